"""Sorting, searching and selection with Paddle 3.x names (Paddle's ``paddle/tensor/search.py``).

``topk`` and ``sort`` are differentiable in their values (the gradient goes back to the
positions the values came from), as are ``index_select`` and ``masked_select``; indices
(``argsort``, ``nonzero``, ``topk``'s second output) and ``unique`` carry no gradient. Ties are
ordered by position (a stable sort), so results are deterministic.
"""
from __future__ import annotations

from core import backend
from core.arithmetic import _promote
from core.higher_order import captured, needs, sum_to
from core.manipulation import _taken_grad, squeeze
from core.ops import as_input, check_scalar_axis, normalize_axis
from core.tensor import Tensor, apply, as_tensor, unbroadcast

__all__ = ["argsort", "bucketize", "index_sample", "index_select", "kthvalue", "masked_select",
           "nonzero", "searchsorted", "sort", "topk", "unique", "where"]


def _order(a, axis: int, descending: bool):
    """Stable argsort along ``axis``; descending keeps equal values in their original order."""
    xp = backend.array_module(a)
    if not descending:
        return xp.argsort(a, axis=axis, kind="stable")
    key = a.astype("int64") if a.dtype.kind in "ub" else a
    order = xp.argsort(-key, axis=axis, kind="stable")
    if a.dtype.kind in "fc" and a.ndim:  # NaN is the largest, as Paddle 3.3.1: first here
        nan_first = xp.argsort(~xp.isnan(xp.take_along_axis(a, order, axis=axis)), axis=axis,
                               kind="stable")
        order = xp.take_along_axis(order, nan_first, axis=axis)
    return order


def _taken(x: Tensor, idx, axis: int, op: str) -> Tensor:
    """``x``'s values at ``idx`` along ``axis``; the gradient scatters back to those places."""
    xp = backend.array_module(x.data)
    shape = x.data.shape

    def backward(g):
        full = xp.zeros(shape, dtype=g.dtype)
        grid = [xp.arange(n).reshape([-1 if i == d else 1 for i in range(idx.ndim)])
                for d, n in enumerate(idx.shape)]
        grid[axis] = idx
        full[tuple(grid)] = g  # the positions along an axis are distinct: no overwrites
        return (full,)

    return apply(xp.take_along_axis(x.data, idx, axis=axis), (x,), backward, op)


def argsort(x, axis: int = -1, descending: bool = False, stable: bool = False,
            name: str | None = None) -> Tensor:
    """Indices (int64) that sort ``x`` along ``axis``; always stable here (ties keep order)."""
    del stable, name
    a = as_input(x, "argsort").data
    if a.ndim == 0:  # Paddle: index 0, for axis 0 or -1 only (as a reduction's axis)
        check_scalar_axis(axis, "argsort")
        return Tensor(backend.array_module(a).zeros((), dtype="int64"))
    axis = normalize_axis(axis, a.ndim, "argsort")
    return Tensor(_order(a, axis, descending).astype("int64"))


def sort(x, axis: int = -1, descending: bool = False, stable: bool = False,
         name: str | None = None) -> Tensor:
    """``x`` sorted along ``axis``; the gradient of each value goes to where it came from."""
    del stable, name
    x = as_input(x, "sort")
    if x.ndim == 0:  # the element itself, for axis 0 or -1 only (as argsort)
        check_scalar_axis(axis, "sort")
        return apply(x.data.copy(), (x,), lambda g: (g,), "sort")
    axis = normalize_axis(axis, x.ndim, "sort")
    return _taken(x, _order(x.data, axis, descending), axis, "sort")


def topk(x, k, axis=None, largest: bool = True, sorted: bool = True,  # noqa: A002
         name: str | None = None) -> tuple[Tensor, Tensor]:
    """The ``k`` largest (or smallest) values along ``axis`` (default -1) and their int64
    indices; on ties the earlier position comes first. Values are differentiable."""
    del sorted, name  # always sorted: largest first (smallest first when largest=False)
    x = as_input(x, "topk")
    k = int(k.item() if isinstance(k, Tensor) else k)
    if x.ndim == 0:  # one element: k 1, axis 0 or -1 (as argsort)
        if axis is not None:
            check_scalar_axis(axis, "topk")
        axis = 0
    else:
        axis = normalize_axis(-1 if axis is None else axis, x.ndim, "topk")
    size = x.data.shape[axis] if x.ndim else 1
    if not 1 <= k <= size:
        raise ValueError(f"topk: k={k} must be in [1, {size}] (axis {axis} of shape {x.shape})")
    if x.ndim == 0:
        return x.clone(), Tensor(backend.array_module(x.data).zeros((), dtype="int64"))
    xp = backend.array_module(x.data)
    idx = xp.take(_order(x.data, axis, largest), xp.arange(k), axis=axis)
    return _taken(x, idx, axis, "topk"), Tensor(idx.astype("int64"))


def index_select(x, index, axis: int = 0, name: str | None = None) -> Tensor:
    """Slices of ``x`` along ``axis`` at a 1-D integer ``index`` (repeats add up in backward)."""
    del name
    x = as_input(x, "index_select")
    axis = normalize_axis(axis, x.ndim, "index_select")
    idx = index.data if isinstance(index, Tensor) else backend.asarray(index)
    size = x.data.shape[axis]
    if idx.ndim != 1 or idx.dtype.kind not in "iu":
        raise ValueError(f"index_select: index must be a 1-D integer tensor, got shape "
                         f"{list(idx.shape)} and dtype {idx.dtype}")
    if idx.size and (int(idx.min()) < 0 or int(idx.max()) >= size):
        raise ValueError(f"index_select: index values must lie in 0..{size - 1} (axis {axis} "
                         f"of shape {x.shape}), got {int(idx.min())}..{int(idx.max())}")
    xp = backend.array_module(x.data)
    shape, lead = x.data.shape, (slice(None),) * axis

    def backward(g):
        full = xp.zeros(shape, dtype=g.dtype)
        backend.add_at(full, lead + (idx,), g)
        return (full,)

    return apply(xp.take(x.data, idx, axis=axis), (x,), backward, "index_select", _taken_grad)


def masked_select(x, mask, name: str | None = None) -> Tensor:
    """A 1-D tensor of the elements of ``x`` where the bool ``mask`` holds (both broadcast)."""
    del name
    x = as_input(x, "masked_select")
    m = mask.data if isinstance(mask, Tensor) else backend.asarray(mask)
    if m.dtype.kind != "b":
        raise TypeError(f"masked_select: mask must be a bool tensor, got dtype {m.dtype}")
    xp = backend.array_module(x.data)
    try:
        shape = xp.broadcast_shapes(x.data.shape, m.shape)
    except ValueError:
        raise ValueError(f"masked_select: mask of shape {list(m.shape)} does not broadcast "
                         f"with x of shape {x.shape}") from None
    m = xp.broadcast_to(m, shape)
    source = x.data.shape

    def backward(g):
        full = xp.zeros(shape, dtype=g.dtype)
        full[m] = g
        return (unbroadcast(full, source),)

    return apply(xp.broadcast_to(x.data, shape)[m], (x,), backward, "masked_select")


def nonzero(x, as_tuple: bool = False):
    """Indices of the non-zero elements: int64 [N, ndim], or with ``as_tuple`` one [N] tensor
    per dimension (paddlepaddle 3.3.1's shapes; its docstring still prints [N, 1])."""
    a = as_input(x, "nonzero").data
    xp = backend.array_module(a)
    found = xp.stack(xp.nonzero(a if a.ndim else a.reshape(1)), axis=1).astype("int64")
    if not as_tuple:
        return Tensor(found)
    return tuple(Tensor(found[:, i]) for i in range(found.shape[1]))


def unique(x, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis=None, dtype="int64", sorted: bool = True,  # noqa: A002
           name: str | None = None):
    """Paddle 3.3's ``unique(x, return_index=False, return_inverse=False, return_counts=False,
    axis=None, dtype='int64', sorted=True, name=None)``: the sorted unique values of ``x``
    (flattened unless ``axis`` is given), plus, as asked, the index of each one's first
    occurrence, the inverse map and the counts (``dtype``). ``sorted=False`` gives the same sorted
    result, as in Paddle ("does not affect the return result, same as PyTorch")."""
    del name, sorted
    a = as_input(x, "unique").data
    xp = backend.array_module(a)
    if axis is not None:
        axis = normalize_axis(axis, a.ndim, "unique")
    values, first, inverse, counts = xp.unique(a, return_index=True, return_inverse=True,
                                               return_counts=True, axis=axis)
    extras = [(return_index, first), (return_inverse, inverse.reshape(-1)),
              (return_counts, counts)]
    out = [Tensor(values)] + [Tensor(v.astype(dtype)) for wanted, v in extras if wanted]
    return out[0] if len(out) == 1 else tuple(out)


def where(condition, x=None, y=None, name: str | None = None):
    """Elements of ``x`` where ``condition`` holds, else of ``y`` (all three broadcast).

    With only ``condition``, the indices where it holds: ``core.nonzero(condition,
    as_tuple=True)``, one int64 [N] tensor per dimension, as paddlepaddle 3.3.1.
    """
    del name
    if x is None and y is None:
        return nonzero(condition, as_tuple=True)
    if x is None or y is None:
        raise TypeError("where: give both 'x' and 'y', or neither (then the indices where "
                        "condition holds are returned)")
    cond = condition.data if isinstance(condition, Tensor) else backend.asarray(condition)
    if cond.dtype.kind != "b":
        raise TypeError(f"where: condition must be a bool tensor, got dtype {cond.dtype}")
    like = x if isinstance(x, Tensor) else y if isinstance(y, Tensor) else None
    x, y = as_tensor(x, like=like), as_tensor(y, like=like)
    if x.data.dtype != y.data.dtype:  # Paddle's table, no 0-D rule (int with complex64: c64)
        x, y = _promote(x, y, scalar_rule=False)
    xp = backend.array_module(x.data)
    xs, ys = x.data.shape, y.data.shape

    def backward(g):
        zero = xp.zeros((), dtype=g.dtype)
        return (None if x.stop_gradient else unbroadcast(xp.where(cond, g, zero), xs),
                None if y.stop_gradient else unbroadcast(xp.where(cond, zero, g), ys))

    return apply(xp.where(cond, x.data, y.data), (x, y), backward, "where", _where_grad)


def _where_grad(out, g):  # the tensor-level backward (create_graph): core.tensor.apply
    (cond,) = captured(out, "cond")
    mask = Tensor(cond)
    return tuple(None if not needs(t) else
                 sum_to(where(mask, g, 0.0) if i == 0 else where(mask, 0.0, g), t.shape)
                 for i, t in enumerate(out._parents))


for _fn in (argsort, sort, topk, index_select, masked_select, nonzero, unique):
    setattr(Tensor, _fn.__name__, _fn)  # see the note on Tensor methods at the end of core/ops.py
del _fn


def kthvalue(x, k, axis=None, keepdim: bool = False,
             name: str | None = None) -> tuple[Tensor, Tensor]:
    """Paddle's ``kthvalue(x, k, axis=None, keepdim=False)``: the k-th smallest value along
    ``axis`` (default -1; k counts from 1) and its int64 index; among equal values the earlier
    position counts first. The values are differentiable (the gradient goes to the index)."""
    del name
    x = as_input(x, "kthvalue")
    k = k.item() if isinstance(k, Tensor) else k
    if x.ndim == 0:  # Paddle: the element itself and index 0 (axis 0 or -1, k 1)
        if axis is not None:
            check_scalar_axis(axis, "kthvalue")
        values, idx = kthvalue(x.reshape([1]), k, 0)
        return values.reshape([]), idx.reshape([])
    axis = normalize_axis(-1 if axis is None else axis, x.ndim, "kthvalue")
    size = x.data.shape[axis]
    if isinstance(k, bool) or not hasattr(k, "__index__") or not 1 <= int(k) <= size:
        raise ValueError(f"kthvalue: k={k!r} must be an int in [1, {size}] (axis {axis} of "
                         f"shape {x.shape})")
    xp = backend.array_module(x.data)
    idx = xp.take(_order(x.data, axis, False), xp.asarray([int(k) - 1]), axis=axis)
    values, idx = _taken(x, idx, axis, "kthvalue"), idx.astype("int64")
    if keepdim:
        return values, Tensor(idx)
    return squeeze(values, axis), Tensor(xp.squeeze(idx, axis=axis))


def index_sample(x, index) -> Tensor:
    """Paddle's ``index_sample(x, index)``: for 2-D ``x`` [B, N] and integer ``index``
    [B, M], ``out[i, j] = x[i, index[i, j]]``. Differentiable in x (repeats add up)."""
    x = as_input(x, "index_sample")
    idx = index.data if isinstance(index, Tensor) else backend.asarray(index)
    if x.ndim != 2 or idx.ndim != 2 or idx.dtype.kind not in "iu" \
            or idx.shape[0] != x.data.shape[0]:
        raise ValueError(f"index_sample: x must be 2-D and index a 2-D integer tensor with as "
                         f"many rows, got shapes {x.shape} and {list(idx.shape)} (index dtype "
                         f"{idx.dtype})")
    size = x.data.shape[1]
    if idx.size and (int(idx.min()) < 0 or int(idx.max()) >= size):
        raise ValueError(f"index_sample: index values must lie in 0..{size - 1}, got "
                         f"{int(idx.min())}..{int(idx.max())}")
    xp = backend.array_module(x.data)
    rows = xp.arange(idx.shape[0])[:, None]
    shape = x.data.shape

    def backward(g):
        full = xp.zeros(shape, dtype=g.dtype)
        backend.add_at(full, (rows, idx), g)
        return (full,)

    return apply(x.data[rows, idx], (x,), backward, "index_sample")


def searchsorted(sorted_sequence, values, out_int32: bool = False, right: bool = False,
                 name: str | None = None) -> Tensor:
    """Paddle's ``searchsorted(sorted_sequence, values, out_int32=False, right=False)``: for
    each value, the index where inserting it keeps the innermost rows of ``sorted_sequence``
    sorted (the first such index, or the last with ``right=True``). A 1-D sequence serves every
    value; an N-D one needs ``values`` with the same leading dimensions. int64 (or int32)."""
    del name
    seq = as_input(sorted_sequence, "searchsorted", "sorted_sequence").data
    vals = as_input(values, "searchsorted", "values").data
    side = "right" if right else "left"
    xp = backend.array_module(seq)
    if seq.ndim == 0:
        raise ValueError("searchsorted: sorted_sequence must have at least 1 dimension")
    if seq.ndim == 1:
        out = xp.searchsorted(seq, vals, side=side)
    else:
        if vals.ndim != seq.ndim or vals.shape[:-1] != seq.shape[:-1]:
            raise ValueError(f"searchsorted: values of shape {list(vals.shape)} must have the "
                             "leading dimensions of sorted_sequence, of shape "
                             f"{list(seq.shape)}")
        rows_s, rows_v = seq.reshape(-1, seq.shape[-1]), vals.reshape(-1, vals.shape[-1])
        out = xp.stack([xp.searchsorted(s, v, side=side) for s, v in zip(rows_s, rows_v)])
        out = out.reshape(vals.shape)
    return Tensor(xp.asarray(out).astype("int32" if out_int32 else "int64"))


def bucketize(x, sorted_sequence, out_int32: bool = False, right: bool = False,
              name: str | None = None) -> Tensor:
    """Paddle's ``bucketize(x, sorted_sequence, out_int32=False, right=False)``: the bucket
    index of each element of ``x`` in the 1-D ``sorted_sequence`` (``searchsorted``)."""
    del name
    seq = as_input(sorted_sequence, "bucketize", "sorted_sequence")
    if seq.ndim != 1:
        raise ValueError(f"bucketize: sorted_sequence must be 1-D, got shape {seq.shape}")
    return searchsorted(seq, as_input(x, "bucketize"), out_int32, right)


def mode(x, axis: int = -1, keepdim: bool = False, name: str | None = None):
    """Paddle's ``mode(x, axis=-1, keepdim=False)``: the most frequent value along ``axis``
    (the smallest of equally frequent ones) and the int64 index of its last occurrence, as
    Paddle's kernel. The values are differentiable (the gradient goes to that index)."""
    del name
    x = as_input(x, "mode")
    if x.ndim == 0:  # Paddle: the element itself and index 0 (axis 0 or -1)
        check_scalar_axis(axis, "mode")
        values, index = mode(x.reshape([1]), 0)
        return values.reshape([]), index.reshape([])
    axis = normalize_axis(axis, x.ndim, "mode")
    xp = backend.array_module(x.data)
    moved = xp.moveaxis(x.data, axis, -1)
    n = moved.shape[-1]
    if n == 0:
        raise ValueError(f"mode: axis {axis} of shape {x.shape} is empty")
    order = xp.argsort(moved, axis=-1, kind="stable")
    ranked = xp.take_along_axis(moved, order, axis=-1)
    # run lengths in the sorted row: each element's position within its run of equal values
    starts = xp.ones(ranked.shape, dtype=bool)
    starts[..., 1:] = ranked[..., 1:] != ranked[..., :-1]
    pos = xp.arange(n)
    # where each element's run starts: the row's start positions, in order, at the run's number
    start_positions = xp.sort(xp.where(starts, pos, n), axis=-1)
    run_start = xp.take_along_axis(start_positions, xp.cumsum(starts, axis=-1) - 1, axis=-1)
    length = pos - run_start + 1  # the count so far of this run, largest at its last element
    best = xp.argmax(length, axis=-1)[..., None]  # the first longest run: the smallest value
    # the stable sort keeps equal values in order, so a run's last element is the value's
    # last occurrence in x
    index = xp.take_along_axis(order, best, axis=-1)
    index = xp.moveaxis(index, -1, axis)
    values = _taken(x, index, axis, "mode")
    index = index.astype("int64")
    if keepdim:
        return values, Tensor(index)
    return squeeze(values, axis), Tensor(xp.squeeze(index, axis=axis))


def unique_consecutive(x, return_inverse: bool = False, return_counts: bool = False, axis=None,
                       dtype="int64", name: str | None = None):
    """Paddle's ``unique_consecutive(x, return_inverse=False, return_counts=False, axis=None,
    dtype='int64')``: ``x`` (flattened unless ``axis`` is given) with each run of equal
    consecutive elements (or slices along ``axis``) kept once; as asked also the run each
    element belongs to and the run lengths (``dtype``). No gradient."""
    del name
    a = as_input(x, "unique_consecutive").data
    xp = backend.array_module(a)
    if axis is None:
        moved = a.reshape(-1, 1)
    else:
        axis = normalize_axis(axis, a.ndim, "unique_consecutive")
        moved = xp.moveaxis(a, axis, 0).reshape(a.shape[axis], -1)
    n = moved.shape[0]
    new = xp.ones(n, dtype=bool)
    if n > 1:
        new[1:] = (moved[1:] != moved[:-1]).any(axis=1)
    keep = xp.nonzero(new)[0]
    if axis is None:
        values = a.reshape(-1)[keep]
    else:
        values = xp.take(a, keep, axis=axis)
    out = [Tensor(values)]
    if return_inverse:
        out.append(Tensor((xp.cumsum(new) - 1).astype(dtype)))
    if return_counts:
        out.append(Tensor(xp.diff(xp.concatenate([keep, xp.asarray([n])])).astype(dtype)))
    return out[0] if len(out) == 1 else tuple(out)


__all__ += ["mode", "unique_consecutive"]

for _fn in (mode, unique_consecutive, where, kthvalue, bucketize, index_sample):
    setattr(Tensor, _fn.__name__, _fn)  # see the note on Tensor methods at the end of core/ops.py
del _fn
