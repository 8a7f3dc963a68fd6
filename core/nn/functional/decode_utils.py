"""Paddle's ``paddle.nn.functional.gather_tree``: the whole token sequence of each final beam
of a beam search, found by following the parent pointers back from the last step."""
from __future__ import annotations

from core import backend
from core.ops import as_input
from core.tensor import Tensor

__all__ = ["gather_tree"]


def gather_tree(ids, parents) -> Tensor:
    """Paddle's ``gather_tree(ids, parents)``: for ``ids`` and ``parents`` of shape
    [max_time, batch_size, beam_size] (int32 or int64; ``ids[t, b, k]`` the token beam k chose
    at step t, ``parents[t, b, k]`` the beam of step t - 1 it extends), the tokens of each
    beam's full path: ``out[T-1] = ids[T-1]``, then back in time ``out[t, b, k] =
    ids[t, b, p]`` with p the parent reached so far. Same shape and dtype as ``ids``; integer
    ids have no gradient. One vectorised step per time step."""
    ids = as_input(ids, "gather_tree", "ids")
    parents = as_input(parents, "gather_tree", "parents")
    for arg, t in (("ids", ids), ("parents", parents)):
        if t.data.dtype.kind not in "iu":
            raise TypeError(f"gather_tree: '{arg}' must be an int32 or int64 Tensor, got dtype "
                            f"{t.data.dtype}")
        if t.ndim != 3:
            raise ValueError(f"gather_tree: '{arg}' must be 3-D [max_time, batch_size, "
                             f"beam_size], got shape {t.shape}")
    if ids.shape != parents.shape:
        raise ValueError(f"gather_tree: ids and parents must have the same shape, got "
                         f"{ids.shape} and {parents.shape}")
    a, p = ids.data, parents.data
    steps, batch, beam = a.shape
    if p.size and (int(p.min()) < 0 or int(p.max()) >= beam):
        raise ValueError(f"gather_tree: every parent must be a beam index in [0, beam_size="
                         f"{beam}), got values from {int(p.min())} to {int(p.max())}")
    xp = backend.array_module(a)
    out = xp.empty_like(a)
    rows = xp.arange(batch)[:, None]
    parent = xp.broadcast_to(xp.arange(beam), (batch, beam))
    for t in range(steps - 1, -1, -1):
        out[t] = a[t][rows, parent]
        parent = p[t][rows, parent]
    return Tensor(out)
