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

from core import backend
from core.arithmetic import getitem
from core.manipulation import _ints, broadcast_to
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
        xp.add.at(full, where, g)  # repeated indices add up
        return (full,)

    return apply(arr.data[where], (arr,), backward, "take_along_axis")


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
        xp.add.at(out, where, v)
        if reduce == "mean":
            count = xp.zeros(a.shape, dtype=a.dtype)
            xp.add.at(count, where, 1)
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
    xp.add.at(zeros, ids, (vv == 0).astype("int64"))
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
    xp.add.at(ties, where, hit_v.astype(g.dtype))
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
    where, _ = _nd_index(x, index, "gather_nd")
    xp = backend.array_module(x.data)
    shape = x.data.shape

    def backward(g):
        full = xp.zeros(shape, dtype=g.dtype)
        xp.add.at(full, where, g)
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
    xp = backend.array_module(x.data)
    out = x.data.copy()
    xp.add.at(out, where, updates.data.astype(x.dtype, copy=False))
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
        xp.add.at(full, lead + (source,), g)
        return (full.reshape(shape),)

    return apply(xp.take(a, source, axis=axis), (x,), backward, "repeat_interleave")




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
