"""Indexing with Paddle 2.x names: ops that read or write a tensor at integer indices or slices.

- along an axis: ``take_along_axis`` and ``put_along_axis`` (numpy's semantics, indices
  broadcast as Paddle's; put combines by assign, add, mul, mean, amax or amin);
- rows and points: ``scatter`` (rows along axis 0), ``gather_nd`` and ``scatter_nd_add``
  (k-dimensional points);
- ``repeat_interleave``: each slice taken ``repeats`` times (an index_select whose index
  repeats each position);
- ``slice`` and ``strided_slice``: Python slicing along named axes.

Gathers add up the gradient at repeated indices; where a put repeats an index, the last write
wins deterministically, on a GPU too (``_last_writers``). ``gather``, ``index_select`` and
``masked_select`` are in ``core.manipulation`` and ``core.search``, as in Paddle.
"""
from __future__ import annotations

import numpy as np

from core import backend
from core.arithmetic import getitem
from core.higher_order import captured, linear_grad
from core.manipulation import _ints, broadcast_to, stack
from core.ops import as_input, normalize_axis
from core.tensor import Tensor, apply, unbroadcast

__all__ = ["gather_nd", "put_along_axis", "repeat_interleave", "scatter", "scatter_nd_add",
           "strided_slice", "take_along_axis"]

# ----- integer indices: checks and index grids -------------------------------------------------

def _index_array(index, fn: str, arg: str = "index"):
    """An integer index as a backend array (Tensors, arrays and lists accepted)."""
    idx = index.data if isinstance(index, Tensor) else backend.asarray(index)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"{fn}: '{arg}' must be an integer tensor, got dtype {idx.dtype}")
    return idx


def _in_range(idx, size: int, fn: str, arg: str, where: str, negative: bool):
    """``idx`` with negative values wrapped (when allowed), or a clear error naming ``arg``."""
    if not idx.size:
        return idx
    low, high = int(idx.min()), int(idx.max())
    least = -size if negative else 0
    if low < least or high >= size:
        allowed = f"{least}..{size - 1}" if size else "none (the axis is empty)"
        raise IndexError(f"{fn}: '{arg}' values must lie in {allowed} ({where}), got "
                         f"{low}..{high}")
    return idx % size if negative and low < 0 else idx


def _grid(idx, axis: int):
    """Index arrays selecting, for every position of ``idx``, element idx[...] along ``axis``
    and the same position along the other axes (numpy's take_along_axis indexing)."""
    xp = backend.array_module(idx)
    grid = [xp.arange(n).reshape([-1 if i == d else 1 for i in range(idx.ndim)])
            for d, n in enumerate(idx.shape)]
    grid[axis] = idx
    return tuple(grid)


def _last_writers(flat_ids):
    """A bool mask of the elements that are the last to target their position (later writes
    win, as Paddle's CPU kernels loop in order); deterministic on every backend, where a
    fancy assignment with repeated indices leaves the winner unspecified on a GPU."""
    xp = backend.array_module(flat_ids)
    flat_ids = flat_ids.reshape(-1)
    order = xp.argsort(flat_ids, kind="stable")
    ranked = flat_ids[order]
    last = xp.ones(ranked.shape, dtype=bool)
    last[:-1] = ranked[:-1] != ranked[1:]
    mask = xp.zeros(ranked.shape, dtype=bool)
    mask[order] = last
    return mask


def _along_axis_index(arr: Tensor, indices, axis, fn: str):
    """The checked ``indices`` array and the normalised ``axis`` of take/put_along_axis."""
    idx = _index_array(indices, fn, "indices")
    if arr.ndim == 0 or idx.ndim != arr.ndim:
        raise ValueError(f"{fn}: indices must have as many dimensions as arr ({arr.ndim}, at "
                         f"least 1), got shape {list(idx.shape)}")
    return idx, normalize_axis(axis, arr.ndim, fn)


# ----- along an axis: take_along_axis, put_along_axis -------------------------------------------

def take_along_axis(arr, indices, axis: int, broadcast: bool = True) -> Tensor:
    """out[..., i, ...] = arr[..., indices[..., i, ...], ...] along ``axis`` (numpy's
    take_along_axis). With ``broadcast`` (Paddle's default) ``indices`` is broadcast to arr's
    shape except along ``axis`` (and arr to indices' where indices is larger); without it,
    indices may be smaller than arr on the other axes, which selects their leading part.
    Negative indices count from the end. The gradient adds up at repeated indices."""
    arr = as_input(arr, "take_along_axis", "arr")
    idx, axis = _along_axis_index(arr, indices, axis, "take_along_axis")
    given = list(idx.shape)
    xp = backend.array_module(arr.data)
    if broadcast:
        if all(n <= m for n, m in zip(idx.shape, arr.data.shape)):
            target = tuple(idx.shape[i] if i == axis else m for i, m in enumerate(arr.shape))
        else:
            target = tuple(idx.shape)
        try:
            idx = xp.broadcast_to(idx, target)
            source = tuple(arr.shape[i] if i == axis else n for i, n in enumerate(target))
            arr = arr if tuple(arr.shape) == source else broadcast_to(arr, list(source))
        except ValueError:
            raise ValueError(f"take_along_axis: indices of shape {given} do not "
                             f"broadcast with arr of shape {arr.shape} (except along axis "
                             f"{axis})") from None
    else:
        _not_larger(idx, arr, axis, "take_along_axis: with broadcast=False, indices")
    idx = _in_range(idx, arr.shape[axis], "take_along_axis", "indices",
                    f"axis {axis} of arr of shape {arr.shape}", negative=True)
    where = _grid(idx, axis)
    shape = arr.data.shape

    def backward(g):
        full = xp.zeros(shape, dtype=g.dtype)
        backend.add_at(full, where, g)  # repeated indices add up
        return (full,)

    return apply(arr.data[where], (arr,), backward, "take_along_axis", _take_along_axis_grad)


def _take_along_axis_grad(out, g):  # create_graph: the sums at the taken places, recorded
    (where,) = captured(out, "where")
    return (linear_grad(apply, g, out._backward, lambda h: h[where], "take_along_axis_grad"),)


def _not_larger(idx, arr, axis: int, what: str) -> None:
    """Indices that do not broadcast may be no larger than ``arr`` off ``axis``."""
    if any(n > m for i, (n, m) in enumerate(zip(idx.shape, arr.shape)) if i != axis):
        raise ValueError(f"{what} of shape {list(idx.shape)} must not be larger than arr of "
                         f"shape {arr.shape} except along axis {axis}")


_PUT_REDUCES = ("assign", "add", "mul", "multiply", "mean", "amax", "amin")


def put_along_axis(arr, indices, values, axis: int, reduce: str = "assign",
                   include_self: bool = True, broadcast: bool = True) -> Tensor:
    """A copy of ``arr`` with ``values`` put at ``indices`` along ``axis`` (the inverse of
    take_along_axis), combined by ``reduce``: 'assign' (the last write wins), 'add',
    'mul'/'multiply', 'mean', 'amax', 'amin'. ``include_self=False`` leaves arr's own value
    out of the reduction at the targeted places. With ``broadcast`` (Paddle's default)
    indices are broadcast to arr's shape except along ``axis``, and values to the indices'
    shape. Differentiable in arr and a Tensor ``values`` (amax/amin: split among ties)."""
    arr = as_input(arr, "put_along_axis", "arr")
    if reduce not in _PUT_REDUCES:
        raise ValueError(f"put_along_axis: reduce must be one of {list(_PUT_REDUCES)}, got "
                         f"{reduce!r}")
    idx, axis = _along_axis_index(arr, indices, axis, "put_along_axis")
    given = list(idx.shape)
    xp = backend.array_module(arr.data)
    if broadcast and all(n <= m for n, m in zip(idx.shape, arr.data.shape)):
        target = tuple(idx.shape[i] if i == axis else m for i, m in enumerate(arr.shape))
        try:
            idx = xp.broadcast_to(idx, target)
        except ValueError:
            raise ValueError(f"put_along_axis: indices of shape {given} do not "
                             f"broadcast to arr's shape {arr.shape} except along axis "
                             f"{axis}") from None
    else:
        _not_larger(idx, arr, axis, "put_along_axis: indices")
    idx = _in_range(idx, arr.shape[axis], "put_along_axis", "indices",
                    f"axis {axis} of arr of shape {arr.shape}", negative=True)
    if isinstance(values, Tensor):
        vals = values
    elif isinstance(values, (bool, int, float)) or hasattr(values, "dtype"):
        vals = Tensor(xp.asarray(values, dtype=arr.dtype))
    else:
        raise TypeError(f"put_along_axis: values must be a number or a Tensor, got {values!r}")
    v = vals.data.astype(arr.dtype, copy=False)
    try:
        if broadcast or v.ndim == 0:
            v = xp.broadcast_to(v, idx.shape)
        else:  # values at least as large as indices: their leading part is used
            v = v[tuple(slice(0, n) for n in idx.shape)]
            if v.shape != idx.shape:
                raise ValueError
    except ValueError:
        raise ValueError(f"put_along_axis: values of shape {list(vals.shape)} do not match "
                         f"indices of shape {list(idx.shape)}") from None
    where = _grid(idx, axis)
    return _put(arr, vals, v, where, reduce, bool(include_self), "put_along_axis")


def _put(arr: Tensor, vals: Tensor, v, where, reduce: str, include_self: bool, fn: str):
    """The reductions of put_along_axis (and scatter): ``v`` (already shaped like the index
    arrays in ``where``) combined into a copy of ``arr`` at ``where``."""
    a = arr.data
    xp = backend.array_module(a)
    flat = xp.ravel_multi_index(tuple(xp.broadcast_to(w, v.shape) for w in where), a.shape)
    targeted = xp.zeros(a.size, dtype=bool)
    targeted[flat.reshape(-1)] = True
    targeted = targeted.reshape(a.shape)
    out = a.copy()
    count = None
    if reduce == "assign":
        last = _last_writers(flat).reshape(v.shape)
        out[tuple(xp.broadcast_to(w, v.shape)[last] for w in where)] = v[last]
    elif reduce in ("add", "mean"):
        if not include_self:
            out[targeted] = 0
        backend.add_at(out, where, v)
        if reduce == "mean":
            count = xp.zeros(a.shape, dtype=a.dtype)
            backend.add_at(count, where, 1)
            count = count + (1 if include_self else 0)
            count = xp.where(targeted, count, 1)
            out = out / count if a.dtype.kind == "f" else out // count
    elif reduce in ("mul", "multiply"):
        if not include_self:
            out[targeted] = 1
        _multiply_at(out, flat, v)
    else:  # amax / amin
        if not include_self:
            start = xp.finfo(a.dtype) if a.dtype.kind == "f" else xp.iinfo(a.dtype)
            out[targeted] = start.min if reduce == "amax" else start.max
        _extreme_at(out, flat, v, reduce)

    def backward(g):
        ga = gv = None
        keep = g if include_self else xp.where(targeted, 0 * g, g)
        if reduce == "assign":
            ga = xp.where(targeted, 0 * g, g)
            gv = g[where] * last
        elif reduce == "add":
            ga, gv = keep, g[where]
        elif reduce == "mean":
            ga, gv = keep / count, (g / count)[where]
        elif reduce in ("mul", "multiply"):
            ga, gv = _multiply_grads(a, out, flat, v, g, targeted, include_self)
        else:
            ga, gv = _extreme_grads(a, out, where, v, g, targeted, include_self)
        if not vals.stop_gradient:
            gv = unbroadcast(gv, vals.data.shape) if gv.shape != vals.data.shape else gv
            if gv.shape != vals.data.shape:  # broadcast=False used values' leading part
                full = xp.zeros(vals.data.shape, dtype=gv.dtype)
                full[tuple(slice(0, n) for n in gv.shape)] = gv
                gv = full
            gv = gv.astype(vals.dtype, copy=False)
        return (None if arr.stop_gradient else ga.astype(a.dtype, copy=False),
                None if vals.stop_gradient else gv)

    return apply(out, (arr, vals), backward, fn)


def _rounds(flat_ids):
    """For each element, how many earlier elements target the same position (its round): the
    elements of one round target distinct positions, so a round is one fancy assignment."""
    xp = backend.array_module(flat_ids)
    ids = flat_ids.reshape(-1)
    order = xp.argsort(ids, kind="stable")
    ranked = ids[order]
    starts = xp.ones(ranked.shape, dtype=bool)
    starts[1:] = ranked[1:] != ranked[:-1]
    run = xp.cumsum(starts) - 1  # which run of equal ids each sorted element is in
    first = xp.flatnonzero(starts)[run]
    rank = xp.empty(ranked.shape, dtype="int64")
    rank[order] = xp.arange(ranked.size) - first
    return rank


def _multiply_at(out, flat, v) -> None:
    """out.flat[flat] *= v with repeated positions multiplied in turn (one round at a time;
    cupy has no multiply.at)."""
    flat, v = flat.reshape(-1), v.reshape(-1)
    rank = _rounds(flat)
    view = out.reshape(-1)  # out is a fresh contiguous array: a view
    for r in range(int(rank.max()) + 1 if rank.size else 0):
        pick = rank == r
        view[flat[pick]] = view[flat[pick]] * v[pick]


def _extreme_at(out, flat, v, reduce: str) -> None:
    """out.flat[flat] = the max (amax) or min (amin) of itself and every value of ``v`` put
    there: one stable sort by value, then by position, leaves each position's extreme value
    last in its run. Not ``maximum.at``: cupy's computes float64 through float32 (its
    atomicMax on double calls fmaxf). NaN propagates as in maximum/minimum: it sorts last."""
    xp = backend.array_module(out)
    ids, vals = flat.reshape(-1), v.reshape(-1)
    if not ids.size:
        return
    # an order-reversing key for amin (~ rather than - for integers and bools: no overflow)
    key = vals if reduce == "amax" else -vals if vals.dtype.kind in "fc" else ~vals
    order = xp.argsort(key, kind="stable")
    order = order[xp.argsort(ids[order], kind="stable")]
    ids, vals = ids[order], vals[order]
    last = xp.ones(ids.shape, dtype=bool)
    last[:-1] = ids[1:] != ids[:-1]
    view = out.reshape(-1)  # out is a fresh contiguous array: a view
    pick = ids[last]
    view[pick] = (xp.maximum if reduce == "amax" else xp.minimum)(view[pick], vals[last])


def _multiply_grads(a, out, flat, v, g, targeted, include_self):
    """Gradients of a product put: d out / d arr = prod(values there) (where arr is included);
    each value's is g * arr * the product of the other values there, computed without dividing
    by a zero (products of the non-zero values and a count of the zeros)."""
    xp = backend.array_module(a)
    shape = v.shape
    ids, vv = flat.reshape(-1), v.reshape(-1)
    nonzero = xp.where(vv == 0, xp.ones((), dtype=vv.dtype), vv)
    prod_nz = xp.ones(a.size, dtype=a.dtype)
    _multiply_at(prod_nz, ids, nonzero)
    zeros = xp.zeros(a.size, dtype="int64")
    backend.add_at(zeros, ids, (vv == 0).astype("int64"))
    prod_all = xp.where(zeros == 0, prod_nz, 0).reshape(a.shape)
    gflat = g.reshape(-1)
    ga = xp.where(targeted, g * prod_all, g) if include_self else xp.where(targeted, 0 * g, g)
    base = a.reshape(-1)[ids] if include_self else xp.ones(ids.shape, dtype=a.dtype)
    others = xp.where(vv == 0, xp.where(zeros[ids] == 1, prod_nz[ids], 0),
                      xp.where(zeros[ids] == 0, prod_nz[ids] / nonzero, 0))
    gv = (gflat[ids] * base * others).reshape(shape)
    del out
    return ga, gv


def _extreme_grads(a, out, where, v, g, targeted, include_self):
    """amax/amin put: the gradient at each position is split evenly among the candidates
    (arr's own value where included, and the values put there) equal to the result."""
    xp = backend.array_module(a)
    own = (a == out) & targeted if include_self else xp.zeros(a.shape, dtype=bool)
    hit_v = v == out[where]
    ties = own.astype(g.dtype)
    backend.add_at(ties, where, hit_v.astype(g.dtype))
    share = g / xp.where(ties > 0, ties, 1)
    ga = xp.where(targeted, xp.where(own, share, 0 * g), g)
    gv = xp.where(hit_v, share[where], 0)
    return ga, gv


# ----- rows and points: scatter, gather_nd, scatter_nd_add --------------------------------------

def scatter(x, index, updates, overwrite: bool = True, name: str | None = None) -> Tensor:
    """A copy of ``x`` with rows ``index`` (1-D integer tensor) along axis 0 taken from
    ``updates`` (shape [len(index)] + x.shape[1:]). ``overwrite=True``: each row is replaced,
    the last update wins where an index repeats. ``overwrite=False``: the indexed rows are
    zeroed first, then every update is added (repeats add up), as Paddle. The gradient of x is
    zero at the indexed rows; each update gets the gradient of the row it reached (a row's
    overwritten updates get zero)."""
    del name
    x = as_input(x, "scatter")
    updates = as_input(updates, "scatter", "updates")
    idx = _index_array(index, "scatter")
    if idx.ndim == 2 and idx.shape[1] == 1:
        idx = idx.reshape(-1)
    if idx.ndim > 1:
        raise ValueError(f"scatter: index must be a 1-D integer tensor (or 0-D), got shape "
                         f"{list(idx.shape)}")
    idx = idx.reshape(-1)
    if x.ndim == 0:
        raise ValueError("scatter: x must have at least one dimension, got a 0-D tensor")
    want = (idx.shape[0],) + x.data.shape[1:]
    if tuple(updates.data.shape) != want:
        raise ValueError(f"scatter: updates must have shape {list(want)} ([len(index)] + "
                         f"x.shape[1:]), got {updates.shape}")
    idx = _in_range(idx, x.data.shape[0], "scatter", "index", f"axis 0 of x of shape "
                    f"{x.shape}", negative=False)
    xp = backend.array_module(x.data)
    where = (idx.reshape((-1,) + (1,) * (x.ndim - 1)),) + tuple(
        xp.arange(n).reshape([-1 if i == d else 1 for i in range(x.ndim)])
        for d, n in enumerate(x.data.shape) if d > 0)
    v = updates.data.astype(x.dtype, copy=False)
    return _put(x, updates, v, where, "assign" if overwrite else "add", False, "scatter")


def _nd_index(x: Tensor, index, fn: str):
    """gather_nd / scatter_nd_add's index [..., k] (k <= x.ndim) as a tuple of k arrays."""
    idx = _index_array(index, fn)
    if idx.ndim == 0 or idx.shape[-1] > x.ndim:
        raise ValueError(f"{fn}: index must have shape [..., k] with k <= x.ndim ({x.ndim}), "
                         f"got {list(idx.shape)}")
    parts = []
    for d in range(idx.shape[-1]):
        parts.append(_in_range(idx[..., d], x.data.shape[d], fn, "index",
                               f"axis {d} of x of shape {x.shape}", negative=False))
    return tuple(parts), idx.shape[:-1] + x.data.shape[idx.shape[-1]:]


def gather_nd(x, index, name: str | None = None) -> Tensor:
    """Slices of ``x`` at the k-dimensional points of ``index`` [..., k]: the output has shape
    index.shape[:-1] + x.shape[k:]. Repeated points add up in the gradient."""
    del name
    x = as_input(x, "gather_nd")
    where, want = _nd_index(x, index, "gather_nd")
    xp = backend.array_module(x.data)
    shape = x.data.shape
    if not where:  # k = 0: each point picks all of x, as Paddle 3.3.1 (shape [..., *x.shape])
        return apply(xp.broadcast_to(x.data, want).copy(), (x,),
                     lambda g: (g.reshape((-1, *shape)).sum(axis=0),), "gather_nd")

    def backward(g):
        full = xp.zeros(shape, dtype=g.dtype)
        backend.add_at(full, where, g)
        return (full,)

    return apply(x.data[where], (x,), backward, "gather_nd")


def scatter_nd_add(x, index, updates, name: str | None = None) -> Tensor:
    """A copy of ``x`` with ``updates`` (shape index.shape[:-1] + x.shape[k:]) added at the
    k-dimensional points of ``index`` [..., k]; repeated points add up. Gradients: x gets g,
    each update the gradient at its point."""
    del name
    x = as_input(x, "scatter_nd_add")
    updates = as_input(updates, "scatter_nd_add", "updates")
    where, want = _nd_index(x, index, "scatter_nd_add")
    if tuple(updates.data.shape) != tuple(want):
        raise ValueError(f"scatter_nd_add: updates must have shape {list(want)} "
                         f"(index.shape[:-1] + x.shape[k:]), got {updates.shape}")
    out = x.data.copy()
    backend.add_at(out, where, updates.data.astype(x.dtype, copy=False))
    return apply(out, (x, updates), lambda g: (g, g[where].astype(updates.dtype)),
                 "scatter_nd_add")


# ----- repeats ----------------------------------------------------------------------------------

def repeat_interleave(x, repeats, axis=None, name: str | None = None) -> Tensor:
    """Each element (axis=None: of the flattened x) or slice along ``axis`` repeated
    ``repeats`` times: an int, or a 1-D integer Tensor with one count per slice. The gradient
    of each element is the sum over its copies."""
    del name
    x = as_input(x, "repeat_interleave")
    xp = backend.array_module(x.data)
    a = x.data.reshape(-1) if axis is None else x.data
    axis = 0 if axis is None else normalize_axis(axis, x.ndim, "repeat_interleave")
    size = a.shape[axis]
    if isinstance(repeats, Tensor) or hasattr(repeats, "shape"):
        counts = _index_array(repeats, "repeat_interleave", "repeats").reshape(-1)
        if counts.size == 1:
            counts = xp.broadcast_to(counts, (size,))
        elif counts.size != size:
            raise ValueError(f"repeat_interleave: repeats must have one count per slice "
                             f"({size} along axis {axis}), got {counts.size}")
    elif isinstance(repeats, int) and not isinstance(repeats, bool):
        counts = xp.full((size,), repeats, dtype="int64")
    else:
        raise TypeError(f"repeat_interleave: repeats must be an int or an integer Tensor, got "
                        f"{repeats!r}")
    if counts.size and int(counts.min()) < 0:
        raise ValueError(f"repeat_interleave: repeats must be non-negative, got "
                         f"{int(counts.min())}")
    source = xp.repeat(xp.arange(size), counts)
    lead = (slice(None),) * axis
    shape = x.data.shape

    def backward(g):
        full = xp.zeros(a.shape, dtype=g.dtype)
        backend.add_at(full, lead + (source,), g)
        return (full.reshape(shape),)

    return apply(xp.take(a, source, axis=axis), (x,), backward, "repeat_interleave",
                 _repeat_interleave_grad)


def _repeat_interleave_grad(out, g):
    """The tensor-level backward (create_graph): the sum over copies, linear in ``g``; its own
    gradient takes the copies again (an advanced-indexing getitem, itself recorded)."""
    a, lead, source = captured(out, "a", "lead", "source")

    def copies(h):
        return getitem(h.reshape(list(a.shape)), lead + (source,))

    return (linear_grad(apply, g, out._backward, copies, "repeat_interleave_grad"),)




# ----- slices ---------------------------------------------------------------------------------

def _slices(x: Tensor, axes, starts, ends, strides, fn: str) -> tuple:
    axes = [normalize_axis(a, x.ndim, fn) for a in _ints(axes, fn, "axes")]
    starts, ends = _ints(starts, fn, "starts"), _ints(ends, fn, "ends")
    steps = [1] * len(axes) if strides is None else _ints(strides, fn, "strides")
    if not len(axes) == len(starts) == len(ends) == len(steps):
        raise ValueError(f"{fn}: axes {axes}, starts {starts}, ends {ends}"
                         + ("" if strides is None else f", strides {steps}")
                         + " must have the same length")
    if 0 in steps:
        raise ValueError(f"{fn}: strides must not contain 0, got {steps}")
    index = [slice(None)] * x.ndim
    for a, lo, hi, step in zip(axes, starts, ends, steps):
        index[a] = slice(lo, hi, step)  # Python's clamping is Paddle's
    return tuple(index)


def _slice(input, axes, starts, ends) -> Tensor:  # noqa: A002 - Paddle's argument name
    """Paddle's ``slice`` (exported as ``core.slice``; named ``_slice`` here because this module
    uses Python's ``slice`` throughout): ``input[starts[i]:ends[i]]`` along each of ``axes``;
    negative starts/ends count from the end and out-of-range ones are clamped to the axis, as
    Paddle."""
    x = as_input(input, "slice", "input")
    return getitem(x, _slices(x, axes, starts, ends, None, "slice"))


def strided_slice(x, axes, starts, ends, strides, name: str | None = None) -> Tensor:
    """``x[starts[i]:ends[i]:strides[i]]`` along each of ``axes`` (Python's slicing; a negative
    stride walks backwards)."""
    del name
    x = as_input(x, "strided_slice")
    return getitem(x, _slices(x, axes, starts, ends, strides, "strided_slice"))



_slice.__name__ = _slice.__qualname__ = "slice"

for _name, _fn in {
    "take_along_axis": take_along_axis, "put_along_axis": put_along_axis, "scatter": scatter,
    "gather_nd": gather_nd, "scatter_nd_add": scatter_nd_add,
    "repeat_interleave": repeat_interleave, "strided_slice": strided_slice,
}.items():
    setattr(Tensor, _name, _fn)  # see the note on Tensor methods at the end of core/ops.py
del _name, _fn


# ----- Paddle 3.x fills and scatters: index_fill, index_add, index_put, masked_scatter, take,
# select_scatter, slice_scatter, diagonal_scatter, scatter_nd; tril_indices / triu_indices.

def _value_tensor(value, x: Tensor, fn: str, arg: str = "value") -> Tensor:
    """``value`` (a number or a Tensor) as a Tensor of x's dtype and device."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (list, tuple)) or not hasattr(value, "__float__"):
        raise TypeError(f"{fn}: '{arg}' must be a number or a Tensor, got {value!r}")
    return Tensor(backend.array_module(x.data).asarray(value, dtype=x.dtype))


def _assign_region(x: Tensor, where, value: Tensor, fn: str) -> Tensor:
    """A copy of ``x`` with ``value`` (broadcast, cast to x's dtype) written at ``where`` (an
    index of distinct positions). x's gradient is zero there; value gets the gradient of the
    positions it filled, summed over its broadcast."""
    xp = backend.array_module(x.data)
    out = x.data.copy()
    try:
        out[where] = value.data.astype(x.dtype, copy=False)
    except ValueError:
        region = list(x.data[where].shape)
        raise ValueError(f"{fn}: value of shape {value.shape} does not broadcast to the "
                         f"region {region} it is written to") from None
    vshape, vdtype = value.data.shape, value.dtype

    def backward(g):
        gx = g.copy()
        gx[where] = 0
        gv = None if value.stop_gradient else unbroadcast(g[where], vshape).astype(
            vdtype, copy=False).reshape(vshape)
        return gx, gv

    return apply(xp.asarray(out), (x, value), backward, fn)


def _axis_index(x: Tensor, index, axis, fn: str):
    """index_fill / index_add's checked 1-D ``index`` (negatives wrapped) and ``axis``."""
    axis = normalize_axis(axis, x.ndim, fn)
    idx = _index_array(index, fn).reshape(-1)
    size = x.data.shape[axis]
    idx = _in_range(idx, size, fn, "index", f"axis {axis} of x of shape {x.shape}",
                    negative=True)
    return idx, axis


def index_fill(x, index, axis: int, value, name: str | None = None) -> Tensor:
    """Paddle's ``index_fill(x, index, axis, value)``: a copy of ``x`` with the slices at the
    1-D integer ``index`` along ``axis`` set to ``value`` (a number or a 0-D Tensor, which gets
    the summed gradient of the filled positions)."""
    del name
    x = as_input(x, "index_fill")
    idx, axis = _axis_index(x, index, axis, "index_fill")
    value = _value_tensor(value, x, "index_fill")
    if value.size != 1:
        raise ValueError(f"index_fill: value must be a number or a one-element Tensor, got "
                         f"shape {value.shape}")
    return _assign_region(x, (slice(None),) * axis + (idx,), _reshaped_value(value),
                          "index_fill")


def _reshaped_value(value: Tensor) -> Tensor:
    if value.ndim == 0:
        return value
    shape = value.data.shape
    return apply(value.data.reshape(()), (value,), lambda g: (g.reshape(shape),), "reshape")


def index_add(x, index, axis: int, value, alpha=1, name: str | None = None) -> Tensor:
    """Paddle 3.3's ``index_add(x, index, axis, value, alpha=1, name=None)``: a copy of ``x``
    with ``alpha * value`` (shape of x with ``len(index)`` along ``axis``) added to the slices at
    ``index`` (repeats add up)."""
    del name
    x = as_input(x, "index_add")
    value = as_input(value, "index_add", "value")
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)):
        raise TypeError(f"index_add: alpha must be an int or float, got {alpha!r}")
    if alpha != 1:  # recorded, so value's gradient is scaled by alpha too
        value = value * alpha
    idx, axis = _axis_index(x, index, axis, "index_add")
    want = x.data.shape[:axis] + (idx.shape[0],) + x.data.shape[axis + 1:]
    if tuple(value.data.shape) != want:
        raise ValueError(f"index_add: value must have shape {list(want)} (x's shape with "
                         f"len(index) along axis {axis}), got {value.shape}")
    where = (slice(None),) * axis + (idx,)
    out = x.data.copy()
    backend.add_at(out, where, value.data.astype(x.dtype, copy=False))
    return apply(out, (x, value), lambda g: (g, g[where].astype(value.dtype, copy=False)),
                 "index_add")


def index_put(x, indices, value, accumulate: bool = False, name: str | None = None) -> Tensor:
    """Paddle's ``index_put(x, indices, value, accumulate=False)``: a copy of ``x`` with
    ``x[indices] = value`` (``indices`` a tuple/list of integer or bool Tensors, as advanced
    indexing; ``value`` broadcast), or ``+= value`` with ``accumulate=True`` (repeated
    positions add up)."""
    del name
    x = as_input(x, "index_put")
    if isinstance(indices, Tensor) or not isinstance(indices, (list, tuple)) or not indices:
        raise TypeError("index_put: indices must be a non-empty tuple or list of Tensors")
    where = tuple(_put_index(t, i) for i, t in enumerate(indices))
    if len(where) > x.ndim:
        raise ValueError(f"index_put: {len(where)} index tensors for x of {x.ndim} dimensions")
    value = _value_tensor(value, x, "index_put")
    if not accumulate:
        return _assign_region(x, where, value, "index_put")
    xp = backend.array_module(x.data)
    region = x.data[where].shape
    try:
        v = xp.broadcast_to(value.data.astype(x.dtype, copy=False), region)
    except ValueError:
        raise ValueError(f"index_put: value of shape {value.shape} does not broadcast to the "
                         f"indexed region {list(region)}") from None
    out = x.data.copy()
    backend.add_at(out, where, v)
    vshape = value.data.shape
    return apply(out, (x, value), lambda g: (g, unbroadcast(g[where], vshape).reshape(vshape)
                                             .astype(value.dtype, copy=False)), "index_put")


def _put_index(t, i: int):
    data = t.data if isinstance(t, Tensor) else backend.asarray(t)
    if data.dtype.kind not in "iub":
        raise TypeError(f"index_put: indices[{i}] must be an integer or bool Tensor, got "
                        f"dtype {data.dtype}")
    return data


def masked_scatter(x, mask, value, name: str | None = None) -> Tensor:
    """Paddle's ``masked_scatter(x, mask, value)``: a copy of ``x`` (broadcast with the bool
    ``mask``) whose masked positions, in row-major order, take the first elements of
    ``value`` (flattened; it needs at least as many as the mask has true entries)."""
    del name
    x = as_input(x, "masked_scatter")
    value = as_input(value, "masked_scatter", "value")
    m = as_input(mask, "masked_scatter", "mask").data
    if m.dtype.kind != "b":
        raise TypeError(f"masked_scatter: mask must be a bool tensor, got dtype {m.dtype}")
    xp = backend.array_module(x.data)
    try:
        shape = np.broadcast_shapes(x.data.shape, m.shape)  # host tuples, any backend
    except ValueError:
        raise ValueError(f"masked_scatter: mask of shape {list(m.shape)} does not broadcast "
                         f"with x of shape {x.shape}") from None
    m = xp.broadcast_to(m, shape)
    count = int(m.sum())
    if count > value.size:
        raise ValueError(f"masked_scatter: the mask selects {count} positions but value has "
                         f"only {value.size} elements")
    out = xp.broadcast_to(x.data, shape).copy()
    out[m] = value.data.reshape(-1)[:count].astype(x.dtype, copy=False)
    xshape, vshape = x.data.shape, value.data.shape

    def backward(g):
        gx = unbroadcast(xp.where(m, xp.zeros((), dtype=g.dtype), g), xshape)
        gv = xp.zeros(value.size, dtype=value.dtype)
        gv[:count] = g[m]
        return gx, gv.reshape(vshape)

    return apply(out, (x, value), backward, "masked_scatter")


def take(x, index, mode: str = "raise", name: str | None = None) -> Tensor:
    """Paddle's ``take(x, index, mode='raise')``: the elements of ``x`` viewed as 1-D at the
    integer ``index`` (the output has index's shape). ``raise``: index in [-numel, numel),
    negatives count from the end; ``wrap``: taken modulo numel; ``clip``: clipped to
    [0, numel - 1] (negatives become 0). Repeated positions add up in backward."""
    del name
    x = as_input(x, "take")
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"take: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    idx = _index_array(index, "take")
    n = x.size
    xp = backend.array_module(x.data)
    if mode == "raise":
        idx = _in_range(idx, n, "take", "index", f"x has {n} elements", negative=True)
    elif n == 0 and idx.size:
        raise IndexError("take: cannot take from an empty x")
    elif mode == "wrap":
        idx = idx % n
    else:
        idx = xp.clip(idx, 0, n - 1)
    shape = x.data.shape

    def backward(g):
        full = xp.zeros(n, dtype=g.dtype)
        backend.add_at(full, idx.reshape(-1), g.reshape(-1))
        return (full.reshape(shape),)

    return apply(x.data.reshape(-1)[idx], (x,), backward, "take")


def select_scatter(x, values, axis: int, index: int, name: str | None = None) -> Tensor:
    """Paddle's ``select_scatter(x, values, axis, index)``: a copy of ``x`` whose slice
    ``index`` along ``axis`` is replaced by ``values`` (x's shape without that axis)."""
    del name
    x = as_input(x, "select_scatter")
    values = as_input(values, "select_scatter", "values")
    axis = normalize_axis(axis, x.ndim, "select_scatter")
    size = x.data.shape[axis]
    if isinstance(index, bool) or not hasattr(index, "__index__") or not -size <= index < size:
        raise IndexError(f"select_scatter: index must be an int in {-size}..{size - 1} (axis "
                         f"{axis} of shape {x.shape}), got {index!r}")
    want = x.data.shape[:axis] + x.data.shape[axis + 1:]
    if tuple(values.data.shape) != want:
        raise ValueError(f"select_scatter: values must have shape {list(want)}, got "
                         f"{values.shape}")
    return _assign_region(x, (slice(None),) * axis + (int(index),), values, "select_scatter")


def slice_scatter(x, value, axes, starts, ends, strides, name: str | None = None) -> Tensor:
    """Paddle's ``slice_scatter(x, value, axes, starts, ends, strides)``: a copy of ``x`` with
    the strided slice (as ``strided_slice``) replaced by ``value`` (broadcast to it)."""
    del name
    x = as_input(x, "slice_scatter")
    value = as_input(value, "slice_scatter", "value")
    where = _slices(x, axes, starts, ends, strides, "slice_scatter")
    return _assign_region(x, where, value, "slice_scatter")


def diagonal_scatter(x, y, offset: int = 0, axis1: int = 0, axis2: int = 1,
                     name: str | None = None) -> Tensor:
    """Paddle's ``diagonal_scatter(x, y, offset=0, axis1=0, axis2=1)``: a copy of ``x`` whose
    ``offset`` diagonal over ``axis1`` and ``axis2`` (as ``diagonal`` reads it) is ``y``."""
    del name
    return _scatter_diagonal(x, y, offset, axis1, axis2, "diagonal_scatter", ("axis1", "axis2"))


def fill_diagonal_tensor(x, y, offset: int = 0, dim1: int = 0, dim2: int = 1,
                         name: str | None = None) -> Tensor:
    """Paddle's ``fill_diagonal_tensor(x, y, offset=0, dim1=0, dim2=1)``: a copy of ``x``
    whose ``offset`` diagonal over ``dim1`` and ``dim2`` is ``y``, which has the diagonal's
    shape (x's other dimensions, then the diagonal's length): ``diagonal_scatter`` under
    Paddle's older name. Differentiable in x and y."""
    del name
    return _scatter_diagonal(x, y, offset, dim1, dim2, "fill_diagonal_tensor", ("dim1", "dim2"))


def _scatter_diagonal(x, y, offset, axis1, axis2, fn: str, names: tuple) -> Tensor:
    x = as_input(x, fn)
    y = as_input(y, fn, "y")
    if x.ndim < 2:
        raise ValueError(f"{fn}: x must have at least 2 dimensions, got shape {x.shape}")
    if isinstance(offset, bool) or not hasattr(offset, "__index__"):
        raise TypeError(f"{fn}: offset must be an int, got {offset!r}")
    a1 = normalize_axis(axis1, x.ndim, fn)
    a2 = normalize_axis(axis2, x.ndim, fn)
    if a1 == a2:
        raise ValueError(f"{fn}: {names[0]} and {names[1]} must differ, both are {a1}")
    xp = backend.array_module(x.data)
    k = int(offset)
    n = xp.diagonal(x.data, k, a1, a2).shape[-1]
    want = tuple(s for i, s in enumerate(x.data.shape) if i not in (a1, a2)) + (n,)
    if tuple(y.data.shape) != want:
        raise ValueError(f"{fn}: y must have the diagonal's shape {list(want)}, got {y.shape}")
    rows, cols = xp.arange(n) + max(-k, 0), xp.arange(n) + max(k, 0)
    # the diagonal positions as one advanced index: the other axes broadcast over the front
    rest = [i for i in range(x.ndim) if i not in (a1, a2)]
    where: list = [None] * x.ndim
    for j, d in enumerate(rest):
        where[d] = xp.arange(x.data.shape[d]).reshape(
            [-1 if i == j else 1 for i in range(len(rest))] + [1])
    where[a1], where[a2] = rows, cols
    return _assign_region(x, tuple(where), y, fn)


def scatter_nd(index, updates, shape, name: str | None = None) -> Tensor:
    """Paddle's ``scatter_nd(index, updates, shape)``: zeros of ``shape`` with ``updates``
    added at the points of ``index`` [..., k] (``scatter_nd_add`` on zeros)."""
    del name
    updates = as_input(updates, "scatter_nd", "updates")
    dims = _ints(shape, "scatter_nd", "shape")
    zeros = Tensor(backend.array_module(updates.data).zeros(tuple(dims), dtype=updates.dtype))
    return scatter_nd_add(zeros, index, updates)


def _triangle_indices(row, col, offset, dtype, fn: str, lower: bool) -> Tensor:
    for arg, v in (("row", row), ("col", col), ("offset", offset)):
        if isinstance(v, bool) or not hasattr(v, "__index__"):
            raise TypeError(f"{fn}: {arg} must be an int, got {v!r}")
    if row < 0 or col < 0:
        raise ValueError(f"{fn}: row and col must be non-negative, got {row} and {col}")
    if np.dtype(dtype) not in (np.dtype("int32"), np.dtype("int64")):
        raise TypeError(f"{fn}: dtype must be int32 or int64, got {dtype!r}")
    xp = backend.xp()
    r, c = (xp.tril_indices if lower else xp.triu_indices)(int(row), int(offset), int(col))
    return Tensor(xp.stack([r, c]).astype(dtype))


def tril_indices(row: int, col: int, offset: int = 0, dtype="int64") -> Tensor:
    """Paddle's ``tril_indices(row, col, offset=0, dtype='int64')``: the [2, N] row and column
    indices of the lower triangle (on and below diagonal ``offset``) of a row x col matrix,
    row by row."""
    return _triangle_indices(row, col, offset, dtype, "tril_indices", lower=True)


def triu_indices(row: int, col: int | None = None, offset: int = 0, dtype="int64") -> Tensor:
    """Paddle's ``triu_indices(row, col=None, offset=0, dtype='int64')``: the [2, N] indices of
    the upper triangle (on and above diagonal ``offset``); ``col`` defaults to ``row``."""
    return _triangle_indices(row, row if col is None else col, offset, dtype, "triu_indices",
                             lower=False)


__all__ += ["diagonal_scatter", "index_add", "index_fill", "index_put", "masked_scatter",
            "scatter_nd", "select_scatter", "slice_scatter", "take", "tril_indices",
            "triu_indices"]

for _name, _fn in {
    "index_fill": index_fill, "index_add": index_add, "index_put": index_put,
    "masked_scatter": masked_scatter, "take": take, "select_scatter": select_scatter,
    "slice_scatter": slice_scatter, "diagonal_scatter": diagonal_scatter,
    "scatter_nd": scatter_nd, "slice": _slice,
}.items():
    setattr(Tensor, _name, _fn)  # see the note on Tensor methods at the end of core/ops.py
del _name, _fn


# ----- multiplex (row i from the input index[i] names) and shard_index (labels within a shard) --

def multiplex(inputs, index, name: str | None = None) -> Tensor:
    """Paddle's ``multiplex(inputs, index)``: ``out[i] = inputs[index[i]][i]`` for tensors
    ``inputs`` of one shape (at least 2-D) and an int ``index`` of shape [rows, 1] naming an
    input for each row. The gradient flows to the rows taken."""
    del name
    if isinstance(inputs, Tensor) or not isinstance(inputs, (list, tuple)) or not inputs:
        raise TypeError("multiplex: inputs must be a non-empty list or tuple of Tensors, got "
                        f"{type(inputs).__name__}")
    for i, t in enumerate(inputs):
        as_input(t, "multiplex", f"inputs[{i}]")
    shapes = {tuple(t.data.shape) for t in inputs}
    if len(shapes) > 1 or inputs[0].ndim < 2:
        raise ValueError(f"multiplex: the inputs must share one shape of at least 2 "
                         f"dimensions, got {[t.shape for t in inputs]}")
    index = as_input(index, "multiplex", "index")
    rows = inputs[0].data.shape[0]
    if index.dtype.kind not in "iu" or tuple(index.data.shape) != (rows, 1):
        raise ValueError(f"multiplex: index must be an int tensor of shape [{rows}, 1] (one "
                         f"input per row), got shape {index.shape} and dtype {index.dtype}")
    picks = index.data.reshape(-1).astype(np.int64)
    xp = backend.array_module(picks)
    if rows and (int(picks.min()) < 0 or int(picks.max()) >= len(inputs)):
        raise ValueError(f"multiplex: the values in index must be in [0, {len(inputs)}), got "
                         f"{int(picks.min())} to {int(picks.max())}")
    return getitem(stack(list(inputs), axis=0), (picks, xp.arange(rows)))


def shard_index(input, index_num: int, nshards: int, shard_id: int,  # noqa: A002 - Paddle's
                ignore_value: int = -1) -> Tensor:
    """Paddle's ``shard_index(input, index_num, nshards, shard_id, ignore_value=-1)``: with
    the range [0, index_num) split in ``nshards`` shards of ``ceil(index_num / nshards)``
    values, each value of ``input`` (an int tensor whose last dimension is 1) that falls in
    shard ``shard_id`` becomes its offset within the shard, every other value
    ``ignore_value``."""
    x = as_input(input, "shard_index", "input")
    if x.dtype.kind not in "iu":
        raise TypeError(f"shard_index: input must be an int tensor, got {x.dtype}")
    if x.ndim == 0 or x.data.shape[-1] != 1:
        raise ValueError(f"shard_index: input's last dimension must be 1, got shape {x.shape}")
    for arg, value in (("index_num", index_num), ("nshards", nshards),
                       ("shard_id", shard_id), ("ignore_value", ignore_value)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"shard_index: {arg} must be an int, got {value!r}")
    if index_num < 1 or nshards < 1:
        raise ValueError(f"shard_index: index_num and nshards must be >= 1, got {index_num} "
                         f"and {nshards}")
    if not 0 <= shard_id < nshards:
        raise ValueError(f"shard_index: shard_id must be in [0, nshards={nshards}), got "
                         f"{shard_id}")
    a = x.data
    if a.size and (int(a.min()) < 0 or int(a.max()) >= index_num):
        raise ValueError(f"shard_index: every value of input must be in [0, index_num="
                         f"{index_num}), got {int(a.min())} to {int(a.max())}")
    size = (index_num + nshards - 1) // nshards
    xp = backend.array_module(a)
    inside = (a // size) == shard_id
    return Tensor(xp.where(inside, a - shard_id * size, ignore_value).astype(a.dtype))


__all__ += ["multiplex", "shard_index"]

# Paddle 3 Tensor methods: fill_diagonal_tensor (above) and shard_index, which Paddle binds too.
__all__ += ["fill_diagonal_tensor"]
Tensor.fill_diagonal_tensor = fill_diagonal_tensor  # see the note at the end of core/ops.py
Tensor.shard_index = shard_index
