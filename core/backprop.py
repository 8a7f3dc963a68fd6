"""The reverse-mode engine behind ``Tensor.backward``.

The graph is sorted iteratively and deterministically (no recursion limit, no set order); each
node's closure runs once with the summed gradient of its output; leaves receive their gradients
last, summed first so that a leaf's hooks see its whole gradient once. Nodes are duck-typed
Tensors (``_parents``, ``_backward``, ``_hooks``, ``grad_data``), so this module imports none.
``run_graph_backward`` is ``grad(create_graph=True)``'s pass: the ops' tensor-level backwards
(``_grad_fn``) instead of the array closures, recorded, so that the gradients have a graph.
"""
from __future__ import annotations

import numpy as np

from core import backend
from core.row_sparse import RowSparseGrad


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
    # The seed is the caller's array: an op that hands its gradient on unchanged (x + 0) must
    # not leave it as a leaf's .grad, which clipping and optimizers change in place.
    given_to_leaves: set[int] = {id(seed)}
    for leaf, grad in leaves.values():
        _accumulate_leaf(leaf, grad, given_to_leaves)
    if not retain_graph:
        # A freed node raises a clear error if a later backward reaches it; its grad_fn goes
        # too, since it may hold the op's inputs as the closure did.
        for node in order:
            node._parents, node._backward, node._grad_fn = (), _freed_graph, None


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

    __slots__ = ("_parents", "_backward", "_grad_fn", "_hooks", "stop_gradient")

    def __init__(self, outputs: tuple, seeds: tuple):
        self._parents, self._hooks, self.stop_gradient = outputs, None, False
        self._backward = lambda _grad: seeds
        self._grad_fn = lambda _out, _grad: seeds  # the seeds as Tensors (create_graph)


def _relevant(order: list, wanted: set, stopped: set) -> set:
    """The ids of the nodes whose gradient reaches a target (or is one)."""
    relevant = set(wanted)
    for node in order:  # inputs before outputs: a node is relevant when a parent is
        if any(id(p) in relevant and id(p) not in stopped for p in node._parents):
            relevant.add(id(node))
    return relevant


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
    relevant = _relevant(order, wanted, stopped)
    found, ran = _partial_pass(root, order, relevant, wanted, stopped, seeds, targets,
                               _apply_hooks, _array_step)
    return _finish(found, wanted, order, ran, root, targets, retain_graph)


def _array_step(node, grad):
    """A node's input gradients as arrays (its array closure); a complex gradient reaching a
    real parent keeps its real part."""
    return [g if g is None or g.dtype.kind != "c" else _for_parent(parent, g)
            for parent, g in zip(node._parents, node._backward(grad))]


def _tensor_step(node, grad):
    """A node's input gradients as Tensors (its tensor-level backward, recorded)."""
    return node._grad_fn(node, grad)


def _partial_pass(root, order: list, relevant: set, wanted: set, stopped: set,  # noqa: PLR0913
                  seeds, targets: tuple, hooks, step) -> tuple[dict, list]:
    """The walk shared by ``grad``'s two passes, arrays or Tensors: from the outputs down,
    each relevant node's hooks, then ``step`` (its input gradients), summed into its parents;
    leaves summed first so that their hooks see their whole gradient. Returns (the gradients
    found for the targets, the nodes that ran)."""
    found, pending, ran, leaves = {}, {id(root): seeds}, [], {}
    for node in reversed(order):
        grad = pending.pop(id(node), None)
        if grad is None or id(node) not in relevant:
            continue
        if node is not root:
            grad = hooks(node, grad)
        if id(node) in wanted:
            found[id(node)] = grad
        ran.append(node)
        for parent, parent_grad in zip(node._parents, step(node, grad)):
            key = id(parent)
            if parent_grad is None or parent.stop_gradient or key not in relevant \
                    or key in stopped:
                continue
            into = pending if parent._backward is not None else leaves
            into[key] = parent_grad if key not in into else into[key] + parent_grad
    for target in targets:
        if target._backward is None and id(target) in leaves:
            found[id(target)] = hooks(target, leaves[id(target)])
    return found, ran


def _finish(found: dict, wanted: set, order: list, ran: list, root, targets: tuple,
            retain_graph: bool) -> list:
    """The end of a partial pass (arrays or Tensors alike): a target behind a part of the
    graph an earlier pass freed is an error (say so, not "unused"); unless ``retain_graph``,
    the nodes that ran are freed; the targets' gradients in order (None: unused)."""
    if len(found) < len(wanted) and any(node._backward is _freed_graph for node in order):
        _freed_graph(None)
    if not retain_graph:
        for node in ran:
            if node is not root:
                node._parents, node._backward, node._grad_fn = (), _freed_graph, None
    return [found.get(id(t)) for t in targets]


# ----- create_graph: the backward pass recorded as a graph of its own -------------------------
# An op that supports higher-order gradients gives ``apply`` a ``grad_fn(out, grad)``: the
# gradients of its inputs as Tensors, computed with core's differentiable ops from the output
# gradient (a Tensor) and the op's output and inputs. Run under grad recording, these build the
# gradient's own graph, which a later ``grad`` or ``backward`` goes through. The array closures
# above stay the only path when create_graph is off.

def run_graph_backward(outputs: tuple, seeds: tuple, targets: tuple, blocked: tuple,  # noqa: PLR0913
                       retain_graph: bool, recording, supported: tuple) -> list:
    """``run_partial_backward`` with Tensors for gradients (``seeds`` are Tensors): each node's
    ``_grad_fn`` runs inside ``recording()`` (a context that turns grad recording on), so the
    gradients returned are themselves differentiable. Before anything is computed, a node on
    the way that has no ``_grad_fn`` raises an error naming its op and listing ``supported``."""
    root = _Root(outputs, seeds)
    order = _topological_order(root)
    wanted = {id(t) for t in targets}
    stopped = {id(t) for t in blocked}
    relevant = _relevant(order, wanted, stopped)
    _check_differentiable(root, order, relevant, stopped, supported)
    with recording():
        found, ran = _partial_pass(root, order, relevant, wanted, stopped, seeds, targets,
                                   _apply_tensor_hooks, _tensor_step)
    return _finish(found, wanted, order, ran, root, targets, retain_graph)


def _check_differentiable(root, order: list, relevant: set, stopped: set,
                          supported: tuple) -> None:
    """Raise, before any gradient is computed, at the first node (from the outputs down) that
    the gradient would pass through without a tensor-level backward, or with complex values."""
    reached = {id(root)}
    for node in reversed(order):
        if id(node) not in reached or id(node) not in relevant:
            continue
        if node is not root:
            if node._backward is _freed_graph:
                _freed_graph(None)
            if getattr(node, "_grad_fn", None) is None or node.data.dtype.kind == "c":
                _no_graph_backward(node, supported)
        for parent in node._parents:
            if not parent.stop_gradient and id(parent) not in stopped:
                reached.add(id(parent))


def _no_graph_backward(node, supported: tuple) -> None:
    op = node._op or "an unnamed op"
    why = ("its values are complex (higher-order gradients are real-only)"
           if node.data.dtype.kind == "c" and getattr(node, "_grad_fn", None) is not None
           else "its backward computes on raw arrays and cannot be recorded")
    raise NotImplementedError(
        f"grad(create_graph=True): the op '{op}' (output shape {list(node.data.shape)}) lies "
        f"between the outputs and the inputs, and {why}, so the gradient through it cannot be "
        "differentiated again. Nothing was computed. Ops with a differentiable backward: "
        f"{', '.join(supported)}. Rewrite the function with those ops, or use "
        "create_graph=False (first-order gradients work through every op).")


def _apply_tensor_hooks(tensor, grad):
    """The tensor's hooks on a gradient Tensor: a hook registered with ``register_hook`` sees
    (and may replace) the Tensor itself, so what it computes is recorded; an array hook
    (``register_array_hook``) sees the array, and an array it returns becomes a constant."""
    for hook in tensor._hooks or ():
        tensor_hook = getattr(hook, "tensor_hook", None)
        if tensor_hook is not None:
            out = tensor_hook(grad)
            grad = grad if out is None else out if hasattr(out, "_parents") else type(grad)(out)
        else:
            out = hook(grad.data)
            grad = grad if out is grad.data else type(grad)(out)
    return grad
