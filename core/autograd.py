"""The reverse-mode engine behind ``Tensor.backward``.

The graph is sorted iteratively and deterministically (no recursion limit, no set order); each
node's closure runs once with the summed gradient of its output; leaves receive their gradients
last, summed first so that a leaf's hooks see its whole gradient once. Nodes are duck-typed
Tensors (``_parents``, ``_backward``, ``_hooks``, ``grad_data``), so this module imports none.
"""
from __future__ import annotations

import numpy as np

from core import backend
from core.sparse import RowSparseGrad


def _topological_order(root) -> list:
    """Interior nodes reachable from ``root``, inputs before outputs, in a fixed order."""
    order, visited = [], set()
    stack = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if id(node) in visited:
            continue
        visited.add(id(node))
        stack.append((node, True))
        for parent in reversed(node._parents):
            if parent._backward is not None and id(parent) not in visited:
                stack.append((parent, False))
    return order


def _apply_hooks(tensor, grad):
    for hook in tensor._hooks or ():
        grad = hook(grad)
    return grad


def _freed_graph(grad):
    raise RuntimeError(
        "backward() reached a part of the graph that an earlier backward() already freed: pass "
        "retain_graph=True to the first backward() to go through the same graph twice, or "
        "recompute the forward pass before the second backward().")


def run_backward(root, seed, retain_graph: bool = False) -> None:
    if root._backward is None:  # backward() on a leaf: its gradient is the seed itself
        _accumulate_leaf(root, seed, {id(seed)})  # the id forces a copy the leaf owns
        return
    order = _topological_order(root)
    pending = {id(root): seed}
    # A leaf's contributions are summed first so that its hooks see its whole gradient once,
    # as they do for interior nodes; dict order keeps the accumulation deterministic.
    leaves: dict[int, list] = {}
    for node in reversed(order):
        grad = pending.pop(id(node), None)
        if grad is None:
            continue
        grad = _apply_hooks(node, grad)
        for parent, parent_grad in zip(node._parents, node._backward(grad)):
            if parent_grad is None or parent.stop_gradient:
                continue
            if parent_grad.dtype.kind == "c":
                parent_grad = _for_parent(parent, parent_grad)
            key = id(parent)
            if parent._backward is not None:
                pending[key] = parent_grad if key not in pending else pending[key] + parent_grad
            elif key in leaves:
                leaves[key][1] = leaves[key][1] + parent_grad
            else:
                leaves[key] = [parent, parent_grad]
    given_to_leaves: set[int] = set()
    for leaf, grad in leaves.values():
        _accumulate_leaf(leaf, grad, given_to_leaves)
    if not retain_graph:
        for node in order:  # a freed node raises a clear error if a later backward reaches it
            node._parents, node._backward = (), _freed_graph


def _for_parent(parent, grad):
    """A complex gradient reaching a real tensor keeps its real part, as in torch (and Paddle):
    the gradient of a complex z is dL/d(Re z) + i dL/d(Im z), and a real tensor only moves along
    the real axis. Done on the edge so that hooks and real ops above see real gradients."""
    if grad.dtype.kind == "c" and parent.data.dtype.kind != "c":
        return grad.real
    return grad


def _accumulate_leaf(leaf, grad, given: set[int]) -> None:
    grad = _apply_hooks(leaf, grad)
    if leaf.grad_data is not None:
        grad = leaf.grad_data + grad
    elif grad.base is not None or id(grad) in given:
        # A closure may hand the same array (or a view of another) to several inputs; a leaf
        # must own its gradient because clipping and optimizers may change it in place.
        grad = grad.copy()
    if isinstance(grad, RowSparseGrad):  # Embedding(sparse=True): only the touched rows
        grad = grad if grad.dtype == leaf.data.dtype else grad.astype(leaf.data.dtype)
    elif grad.dtype != leaf.data.dtype or isinstance(grad, np.generic):
        # Keep the leaf's dtype, and an array (numpy returns scalars for 0-D math).
        grad = _for_parent(leaf, grad)
        grad = backend.array_module(grad).asarray(grad, dtype=leaf.data.dtype)
    given.add(id(grad))
    leaf.grad_data = grad


class _Root:
    """A node above several outputs, so that one sorted pass serves them all (``grad``)."""

    __slots__ = ("_parents", "_backward", "_hooks", "stop_gradient")

    def __init__(self, outputs: tuple, seeds: tuple):
        self._parents, self._hooks, self.stop_gradient = outputs, None, False
        self._backward = lambda _grad: seeds


def run_partial_backward(outputs: tuple, seeds: tuple, targets: tuple, blocked: tuple = (),
                         retain_graph: bool = False) -> list:
    """The gradients of ``outputs`` (seeded with ``seeds``) with respect to ``targets``, as a
    list of arrays (None for a target no output depends on), without touching any
    ``grad_data``: Paddle's ``paddle.grad``. Only the nodes between the outputs and the
    targets run their backward; ``blocked`` nodes pass no gradient on (``no_grad_vars``).
    The nodes that ran are freed unless ``retain_graph``."""
    root = _Root(outputs, seeds)
    order = _topological_order(root)
    wanted = {id(t) for t in targets}
    stopped = {id(t) for t in blocked}
    relevant = set(wanted)  # nodes whose gradient reaches a target (or is one)
    for node in order:  # inputs before outputs: a node is relevant when a parent is
        if any(id(p) in relevant and id(p) not in stopped for p in node._parents):
            relevant.add(id(node))
    found, pending, ran, leaves = {}, {id(root): seeds}, [], {}
    for node in reversed(order):
        grad = pending.pop(id(node), None)
        if grad is None or id(node) not in relevant:
            continue
        if node is not root:
            grad = _apply_hooks(node, grad)
        if id(node) in wanted:
            found[id(node)] = grad
        ran.append(node)
        for parent, parent_grad in zip(node._parents, node._backward(grad)):
            key = id(parent)
            if parent_grad is None or parent.stop_gradient or key not in relevant \
                    or key in stopped:
                continue
            if parent_grad.dtype.kind == "c":
                parent_grad = _for_parent(parent, parent_grad)
            if parent._backward is not None:
                pending[key] = parent_grad if key not in pending else pending[key] + parent_grad
            else:
                leaves[key] = parent_grad if key not in leaves else leaves[key] + parent_grad
    for target in targets:
        if target._backward is None and id(target) in leaves:
            found[id(target)] = _apply_hooks(target, leaves[id(target)])
    if len(found) < len(wanted) and any(node._backward is _freed_graph for node in order):
        _freed_graph(None)  # a target may sit behind the freed part: say so, not "unused"
    if not retain_graph:
        for node in ran:
            if node is not root:
                node._parents, node._backward = (), _freed_graph
    return [found.get(id(t)) for t in targets]
