"""Paddle's ``paddle.autograd.backward``: one backward pass from several tensors at once."""
from __future__ import annotations

from core import backend
from core.backprop import _Root, run_backward
from core.tensor import Tensor


def backward(tensors, grad_tensors=None, retain_graph: bool = False) -> None:
    """Paddle's ``paddle.autograd.backward(tensors, grad_tensors=None, retain_graph=False)``:
    accumulate into every leaf's ``.grad`` the gradient of all ``tensors`` (a Tensor or a list
    of distinct Tensors) together, each seeded with its entry of ``grad_tensors`` (a Tensor of
    its shape; None, or no list at all, for ones). One sorted pass serves all roots, so a node
    under several of them runs once with the summed gradient. The graph is freed unless
    ``retain_graph``."""
    tensors = _tensor_list(tensors)
    if len({id(t) for t in tensors}) != len(tensors):
        raise ValueError("backward: tensors contains the same Tensor more than once (Paddle "
                         "refuses it too); pass each root once, with its summed grad_tensors")
    seeds = _seeds(tensors, grad_tensors)
    if not isinstance(retain_graph, bool):
        raise TypeError(f"backward: retain_graph must be True or False, got {retain_graph!r}")
    # The root's own seed is never read (its backward hands each tensor its seed); the engine
    # only needs one to start from it.
    run_backward(_Root(tuple(tensors), seeds), seeds, retain_graph)


def _tensor_list(tensors) -> list:
    values = [tensors] if isinstance(tensors, Tensor) else tensors
    if not isinstance(values, (list, tuple)) or not values \
            or not all(isinstance(t, Tensor) for t in values):
        raise TypeError("backward: tensors must be a Tensor or a non-empty list of Tensors, "
                        f"got {tensors!r}")
    for i, t in enumerate(values):
        if t.stop_gradient:
            raise RuntimeError(
                f"backward: tensors[{i}] (shape {t.shape}) has stop_gradient=True: nothing it "
                "depends on requires a gradient (are the parameters trainable, and is grad "
                "enabled?)")
    return list(values)


def _seeds(tensors: list, grad_tensors) -> tuple:
    given = [None] * len(tensors) if grad_tensors is None else (
        [grad_tensors] if isinstance(grad_tensors, Tensor) else grad_tensors)
    if not isinstance(given, (list, tuple)) or len(given) != len(tensors):
        raise ValueError(f"backward: grad_tensors must be None, a Tensor or a list of "
                         f"{len(tensors)} entries (one per tensor, None for ones), got "
                         f"{grad_tensors!r}")
    seeds = []
    for i, (t, g) in enumerate(zip(tensors, given)):
        if g is None:
            seeds.append(backend.array_module(t.data).ones_like(t.data))
        elif not isinstance(g, Tensor) or tuple(g.shape) != tuple(t.shape):
            raise ValueError(f"backward: grad_tensors[{i}] must be None or a Tensor of "
                             f"tensors[{i}]'s shape {t.shape}, got {g!r}")
        else:
            seeds.append(g.data.copy())  # a leaf may keep its seed: it must not be the caller's
    return tuple(seeds)
