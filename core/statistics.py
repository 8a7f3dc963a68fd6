"""Reductions and statistics with Paddle 2.x names: ``amax`` / ``amin`` (the gradient split
evenly among tied extremes), ``median``, ``quantile``, ``nansum``, ``nanmean``,
``count_nonzero``, and the counts ``bincount`` and ``histogram`` (no gradient).

``median`` and ``quantile`` are weighted sums of order statistics (``_order_stats``): the
gradient of each goes back to the element that held that sorted position. The common
reductions (``sum``, ``mean``, ``max``, ``var``, ...) and the axis helpers used here are in
``core.ops``.
"""
from __future__ import annotations

import math

import numpy as np

from core import backend
from core.framework import get_default_dtype
from core.higher_order import captured, linear_grad, restore
from core.ops import (
    _dropped,
    _restore,
    _xp,
    _xp_of,
    as_input,
    check_scalar_axis,
    normalize_axes,
    normalize_axis,
)
from core.tensor import Tensor, apply

__all__ = ["amax", "amin", "bincount", "count_nonzero", "histogram", "median", "nanmean",
           "nansum", "quantile"]


# ----- amax / amin: tied extremes share the gradient --------------------------------------------

def _tie_extreme(x, axis, keepdim: bool, fn: str) -> Tensor:
    """amax / amin: the gradient is split evenly among the elements equal to the extreme
    (Paddle's amax/amin), where max/min give it to one of them."""
    a = as_input(x, fn).data
    axes = normalize_axes(axis, a.ndim, fn)
    if any(a.shape[i] == 0 for i in axes):
        raise ValueError(f"{fn}: cannot reduce an empty axis of shape {list(a.shape)}")
    xp = _xp(x)
    full = (a.max if fn == "amax" else a.min)(axis=axes, keepdims=True)
    hit = a == full
    share = hit / hit.sum(axis=axes, keepdims=True)
    out = full if keepdim else _dropped(full, axes, False)

    def backward(g):
        return ((_restore(g, axes, keepdim, a.shape) * share).astype(a.dtype, copy=False),)

    return apply(xp.asarray(out), (x,), backward, fn, _tie_extreme_grad)


def _tie_extreme_grad(out, g):  # the tensor-level backward (create_graph): the same shares
    axes, keepdim, a, share = captured(out, "axes", "keepdim", "a", "share")
    return (restore(g, axes, keepdim, a.shape) * Tensor(share.astype(a.dtype, copy=False)),)


def amax(x, axis=None, keepdim: bool = False, name: str | None = None) -> Tensor:
    """Maximum over ``axis`` (None: all), as ``max``; where several elements equal the
    maximum, the gradient is split evenly among them (``max`` gives it to the first)."""
    del name
    return _tie_extreme(x, axis, keepdim, "amax")


def amin(x, axis=None, keepdim: bool = False, name: str | None = None) -> Tensor:
    """Minimum over ``axis`` (None: all), as ``min``; where several elements equal the
    minimum, the gradient is split evenly among them (``min`` gives it to the first)."""
    del name
    return _tie_extreme(x, axis, keepdim, "amin")


# ----- order statistics: median, quantile -------------------------------------------------------

def _to_last(a, axes: tuple):
    """``a`` with ``axes`` moved last and merged into one, plus the kept dimensions."""
    xp = _xp_of(a)
    kept = tuple(n for i, n in enumerate(a.shape) if i not in axes)
    ends = tuple(range(len(kept), a.ndim))
    # the merged length spelt out: -1 is ambiguous when a kept dimension is 0
    merged = math.prod(a.shape[i] for i in axes)
    return xp.moveaxis(a, axes, ends).reshape(kept + (merged,)), kept, ends


def _from_last(flat_grad, shape: tuple, axes: tuple, kept: tuple, ends: tuple):
    """The inverse of ``_to_last`` for a gradient of the merged array."""
    xp = _xp_of(flat_grad)
    moved = flat_grad.reshape(kept + tuple(shape[i] for i in axes))
    return xp.moveaxis(moved, ends, axes)


def _float_result(dtype):
    """Paddle's median / quantile dtype: float64 stays, every other dtype gives float32."""
    return "float64" if dtype == "float64" else "float32"


def _order_stats(x, axes, keepdim: bool, picks_list, fn: str, dtype=None,
                 stacked: bool = False) -> Tensor:
    """Weighted sums of order statistics along ``axes``: each entry of ``picks_list`` is a list
    of (position, weight) pairs into the sorted values (along the merged axes) and gives one
    output; with ``stacked`` they are stacked on a new leading axis (else there is one). The
    gradient of each weight goes back to the element that held that sorted position (a stable
    sort decides ties)."""
    a = x.data
    xp = _xp(x)
    flat, kept, ends = _to_last(a, axes)
    order = xp.argsort(flat, axis=-1, kind="stable")
    ranked = xp.take_along_axis(flat, order, axis=-1)
    dtype = _float_result(a.dtype) if dtype is None else dtype
    # NaN sorts last, so a pick could miss it: a row holding a NaN gives NaN, as Paddle's
    # median and quantile ("if any value in a reduced row is NaN, the result is NaN")
    nan_rows = xp.isnan(flat).any(axis=-1) if flat.dtype.kind == "f" else None
    outs = []
    for picks in picks_list:
        if len(picks) == 1 and picks[0][1] == 1.0:  # one element: no arithmetic, exact dtype
            picked = ranked[..., picks[0][0]].astype(dtype)
        else:
            picked = 0
            for i, w in picks:
                picked = picked + w * ranked[..., i].astype(dtype)
        if nan_rows is not None:
            picked = xp.where(nan_rows, xp.nan, picked)
        outs.append(xp.asarray(picked).astype(dtype))
    shape = tuple(1 if i in axes else n for i, n in enumerate(a.shape)) if keepdim else kept
    out = xp.stack([o.reshape(shape) for o in outs]) if stacked else outs[0].reshape(shape)
    source = a.shape

    def backward(g):
        g = g.reshape((len(outs),) + kept)
        grad_sorted = xp.zeros(flat.shape, dtype=g.dtype)
        for k, picks in enumerate(picks_list):
            for i, w in picks:
                grad_sorted[..., i] += w * g[k]
        grad = xp.zeros(flat.shape, dtype=g.dtype)
        xp.put_along_axis(grad, order, grad_sorted, axis=-1)  # sorted position -> element
        return (_from_last(grad, source, axes, kept, ends).astype(a.dtype, copy=False),)

    return apply(xp.asarray(out), (x,), backward, fn)


def median(x, axis=None, keepdim: bool = False, mode: str = "avg", name: str | None = None):
    """The median along ``axis`` (an int; None: of all elements). With an even count,
    ``mode='avg'`` (Paddle's default) gives the mean of the two middle values (its gradient
    split half and half) and returns float32 (float64 for float64 input); ``mode='min'``
    gives the lower middle value in x's dtype and, when ``axis`` is given, also its int64
    index, as Paddle: ``(values, indices)``. A reduced row holding a NaN gives NaN (and, with
    ``mode='min'``, the index of its first NaN), as Paddle."""
    del name
    x = as_input(x, "median")
    if mode not in ("avg", "min"):
        raise ValueError(f"median: mode must be 'avg' or 'min', got {mode!r}")
    if isinstance(axis, (list, tuple)):
        raise TypeError(f"median: axis must be an int or None, got {axis!r}")
    a = x.data
    axes = normalize_axes(axis, a.ndim, "median")
    count = math.prod(a.shape[i] for i in axes)
    if count == 0:
        raise ValueError(f"median: cannot take the median of an empty axis of shape "
                         f"{list(a.shape)}")
    if mode == "avg":
        mid = count // 2
        picks = [(mid, 1.0)] if count % 2 else [(mid - 1, 0.5), (mid, 0.5)]
        return _order_stats(x, axes, keepdim, [picks], "median")
    lower = (count - 1) // 2
    values = _order_stats(x, axes, keepdim, [[(lower, 1.0)]], "median", dtype=a.dtype)
    if axis is None:
        return values
    xp = _xp(x)
    flat, _, _ = _to_last(a, axes)
    index = xp.argsort(flat, axis=-1, kind="stable")[..., lower].astype("int64")
    if a.dtype.kind == "f":  # a row with a NaN: its value is NaN, its index the first NaN's
        nans = xp.isnan(flat)
        index = xp.where(nans.any(axis=-1), xp.argmax(nans, axis=-1), index).astype("int64")
    if keepdim:
        index = xp.expand_dims(index, axes[0])
    return values, Tensor(index)


_QUANTILE_METHODS = ("linear", "lower", "higher", "nearest", "midpoint")


def quantile(x, q, axis=None, keepdim: bool = False, interpolation: str = "linear",
             name: str | None = None) -> Tensor:
    """The ``q``-th quantile(s) along ``axis`` (an int or a list; None: all elements). The
    sorted values v_0..v_{n-1} are read at position ``q (n - 1)``: ``linear`` interpolates
    v_lo + (pos - lo)(v_hi - v_lo), ``lower`` / ``higher`` take v_lo / v_hi, ``midpoint``
    their mean, ``nearest`` the nearer (halves to even, as paddle.round). A list of q
    adds a leading axis, one entry per q. float32 result (float64 for float64 input)."""
    del name
    x = as_input(x, "quantile")
    if interpolation not in _QUANTILE_METHODS:
        raise ValueError(f"quantile: interpolation must be one of {list(_QUANTILE_METHODS)}, "
                         f"got {interpolation!r}")
    qs = q.tolist() if isinstance(q, Tensor) else q
    many = isinstance(qs, (list, tuple))
    qs = list(qs) if many else [qs]
    if not qs or any(isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 1
                     for v in qs):
        raise ValueError(f"quantile: q must be a number in [0, 1] or a non-empty list of them, "
                         f"got {q!r}")
    a = x.data
    axes = normalize_axes(axis, a.ndim, "quantile")
    count = math.prod(a.shape[i] for i in axes)
    if count == 0:
        raise ValueError(f"quantile: the reduced axes of shape {list(a.shape)} are empty")
    picks = [_quantile_picks(v, count, interpolation) for v in qs]
    # a list of q, even of one, gives a leading axis with one entry per q
    return _order_stats(x, axes, keepdim, picks, "quantile", stacked=many)


def _quantile_picks(q: float, count: int, method: str) -> list:
    pos = q * (count - 1)
    lo = math.floor(pos)
    hi = lo + 1 if lo + 1 < count else lo
    frac_ = pos - lo
    if method == "lower" or frac_ == 0:
        return [(lo, 1.0)]
    if method == "higher":
        return [(hi, 1.0)]
    if method == "midpoint":
        return [(lo, 0.5), (hi, 0.5)]
    if method == "nearest":
        # halves to even, as Paddle 3.3.1 rounds the position (std::nearbyint)
        return [(hi if frac_ > 0.5 or (frac_ == 0.5 and lo % 2) else lo, 1.0)]
    return [(lo, 1.0 - frac_), (hi, frac_)]


# ----- NaN-aware reductions and counting non-zeros ----------------------------------------------

def nansum(x, axis=None, dtype=None, keepdim: bool = False, name: str | None = None) -> Tensor:
    """Sum over ``axis`` (None: all) treating NaN as 0; NaN elements get a zero gradient."""
    del name
    a = as_input(x, "nansum").data
    axes = normalize_axes(axis, a.ndim, "nansum")
    xp = _xp(x)
    nan = xp.isnan(a) if a.dtype.kind == "f" else xp.zeros(a.shape, dtype=bool)
    clean = xp.where(nan, xp.zeros((), dtype=a.dtype), a)
    out = xp.asarray(clean.sum(axis=axes, dtype=dtype, keepdims=keepdim))

    def backward(g):
        g = _restore(g, axes, keepdim, a.shape)
        return (xp.where(nan, xp.zeros((), dtype=a.dtype), g).astype(a.dtype, copy=False),)

    return apply(out, (x,), backward, "nansum")


def nanmean(x, axis=None, keepdim: bool = False, name: str | None = None) -> Tensor:
    """Mean over ``axis`` (None: all) of the non-NaN elements (NaN where all are NaN); each
    non-NaN element's gradient is 1 / (its count), NaN elements get 0."""
    del name
    a = as_input(x, "nanmean").data
    if a.dtype.kind != "f":
        raise TypeError(f"nanmean: x must be a floating tensor, got dtype {a.dtype}")
    axes = normalize_axes(axis, a.ndim, "nanmean")
    xp = _xp(x)
    nan = xp.isnan(a)
    zero = xp.zeros((), dtype=a.dtype)
    count = (~nan).sum(axis=axes, keepdims=True).astype(a.dtype)
    full = xp.where(nan, zero, a).sum(axis=axes, keepdims=True) / count
    out = full if keepdim else _dropped(full, axes, False)

    def backward(g):
        g = _restore(g, axes, keepdim, a.shape)
        return (xp.where(nan, zero, g / count),)

    return apply(xp.asarray(out), (x,), backward, "nanmean")


def count_nonzero(x, axis=None, keepdim: bool = False, name: str | None = None) -> Tensor:
    """The number of non-zero elements over ``axis`` (None: all), as int64; no gradient."""
    del name
    a = as_input(x, "count_nonzero").data
    axes = normalize_axes(axis, a.ndim, "count_nonzero")
    xp = _xp(x)
    return Tensor(xp.asarray((a != 0).sum(axis=axes, keepdims=keepdim), dtype="int64"))


# ----- counting values (paddle.bincount, paddle.histogram): no gradient ----------------------

def bincount(x, weights=None, minlength: int = 0, name: str | None = None) -> Tensor:
    """How often each value 0..max(x) occurs in the 1-D non-negative integer tensor ``x``
    (at least ``minlength`` bins); with ``weights`` (same shape) the weights are summed
    instead. int64 counts, or the weights' dtype."""
    del name
    a = as_input(x, "bincount").data
    if a.ndim != 1 or a.dtype.kind not in "iu":
        raise ValueError(f"bincount: x must be a 1-D integer tensor, got shape {list(a.shape)} "
                         f"and dtype {a.dtype}")
    if a.size and int(a.min()) < 0:
        raise ValueError(f"bincount: x must be non-negative, got a minimum of {int(a.min())}")
    if isinstance(minlength, bool) or not hasattr(minlength, "__index__") or minlength < 0:
        raise ValueError(f"bincount: minlength must be a non-negative int, got {minlength!r}")
    xp = backend.array_module(a)
    w = _weights_like(weights, a, "bincount: weights", "x")
    out = xp.bincount(a, weights=w, minlength=int(minlength))
    return Tensor(out.astype("int64") if w is None else out.astype(w.dtype))


def _weights_like(weights, a, what: str, of: str):
    """``weights`` as an array of ``a``'s shape (None stays None)."""
    if weights is None:
        return None
    w = weights.data if isinstance(weights, Tensor) else backend.asarray(weights)
    if w.shape != a.shape:
        raise ValueError(f"{what} must have {of}'s shape {list(a.shape)}, got {list(w.shape)}")
    return w


def _bin_range(a, low, high, fn: str) -> tuple[float, float]:
    """[low, high] of histogram bins, Paddle's rule: ``min == max == 0`` takes the data's own
    range, widened by 1 each way where all elements are equal."""
    if float(low) > float(high):
        raise ValueError(f"{fn}: max must not be less than min, got min={low} and max={high}")
    low, high = float(low), float(high)
    if low == high == 0 and a.size:
        low, high = float(a.min()), float(a.max())
    if low == high:
        low, high = low - 1, high + 1
    return low, high


def histogram(input, bins: int = 100, min: float = 0.0, max: float = 0.0,  # noqa: A002
              weight=None, density: bool = False, name: str | None = None) -> Tensor:
    """Counts of ``input``'s elements (flattened) in ``bins`` equal-width bins over [min, max]
    (both ends included; elements outside are ignored). ``min == max == 0`` uses the data's
    own range, widened by 1 each way where all elements are equal. int64 counts, or float32
    with ``weight`` (summed weights) or ``density`` (normalised to integrate to 1)."""
    del name
    a = as_input(input, "histogram", "input").data
    if isinstance(bins, bool) or not hasattr(bins, "__index__") or bins < 1:
        raise ValueError(f"histogram: bins must be a positive int, got {bins!r}")
    low, high = _bin_range(a, min, max, "histogram")
    xp = backend.array_module(a)
    values = a.reshape(-1).astype("float64")
    w = _weights_like(weight, a, "histogram: weight", "input")
    w = None if w is None else w.reshape(-1)
    counts, _ = xp.histogram(values, bins=int(bins), range=(low, high), weights=w,
                             density=bool(density))
    floating = density or w is not None
    return Tensor(counts.astype("float32" if floating else "int64"))


for _name, _fn in {
    "amax": amax, "amin": amin, "median": median, "quantile": quantile, "nansum": nansum,
    "nanmean": nanmean, "count_nonzero": count_nonzero, "bincount": bincount,
    "histogram": histogram,
}.items():
    setattr(Tensor, _name, _fn)  # see the note on Tensor methods at the end of core/ops.py
del _name, _fn


# ----- running extremes and log-sum-exp along an axis: cummax, cummin, logcumsumexp ----------
# Each is an inclusive scan, computed in log2(n) vectorised steps (Hillis-Steele): step s
# combines every element with the one s places earlier. Only array slicing and element-wise
# ops are used, so numpy and cupy run the same code (cupy has no ufunc.accumulate for these).

def _scan(arrays: tuple, combine) -> tuple:
    """Inclusive scan of ``arrays`` (equal shapes, scanned along the last axis) with
    ``combine(earlier, later) -> combined``, each a tuple like ``arrays``; it must be
    associative."""
    n = arrays[0].shape[-1]
    shift = 1
    while shift < n:
        earlier = tuple(a[..., :-shift] for a in arrays)
        later = tuple(a[..., shift:] for a in arrays)
        merged = combine(earlier, later)
        arrays = tuple(_xp_of(a).concatenate([a[..., :shift], m], axis=-1)
                       for a, m in zip(arrays, merged))
        shift *= 2
    return arrays


def _scan_axis(x: Tensor, axis, fn: str):
    """(the input moved so ``axis`` is last, the axis); axis None flattens x, as Paddle. A 0-D
    x runs over its one element with axis 0 or -1 (``check_scalar_axis``, as cumsum)."""
    a = x.data
    if axis is None:
        return a.reshape(1, -1), None
    if a.ndim == 0:
        check_scalar_axis(axis, fn)
        return a.reshape(1), 0
    axis = normalize_axis(axis, a.ndim, fn)
    return _xp_of(a).moveaxis(a, axis, -1), axis


def _unscan(y, axis, shape: tuple):
    """The inverse of ``_scan_axis`` for an output of the moved shape. Axis None gives the
    flattened shape, [1] for a 0-D x (Paddle flattens it first); an axis keeps x's shape."""
    if axis is None:
        return y.reshape(-1)
    return _xp_of(y).moveaxis(y, -1, axis).reshape(shape)


def _cum_extreme(x, axis, dtype, fn: str, wins):
    x = as_input(x, fn)
    if np.dtype(dtype) not in (np.dtype("int32"), np.dtype("int64")):
        raise ValueError(f"{fn}: dtype must be int32 or int64, got {dtype!r}")
    moved, axis = _scan_axis(x, axis, fn)
    xp = _xp(x)
    isnan = xp.isnan if moved.dtype.kind == "f" else (lambda v: xp.zeros(v.shape, dtype=bool))

    def combine(earlier, later):
        (ev, ei), (lv, li) = earlier, later
        # As Paddle's kernel: a NaN wins (the latest NaN), else the extreme, ties to the later.
        keep = ~isnan(lv) & (isnan(ev) | wins(ev, lv))
        return xp.where(keep, ev, lv), xp.where(keep, ei, li)

    index = xp.broadcast_to(xp.arange(moved.shape[-1]), moved.shape)
    values, index = _scan((moved, index), combine)
    shape = x.data.shape
    out_axis = -1 if axis is None else axis
    flat_shape = moved.shape

    def backward(g):
        g = g.reshape(-1) if axis is None else xp.moveaxis(g.reshape(shape or (1,)), out_axis, -1)
        full = xp.zeros(flat_shape, dtype=g.dtype)
        rows = xp.indices(flat_shape)
        backend.add_at(full, tuple(rows[:-1]) + (index,), g.reshape(flat_shape))
        return (full.reshape(shape) if axis is None else _unscan(full, axis, shape),)

    out = apply(_unscan(values, axis, shape), (x,), backward, fn, _cum_extreme_grad)
    return out, Tensor(_unscan(index, axis, shape).astype(dtype))


def _cum_extreme_grad(out, g):
    """cummax / cummin's backward for create_graph: the array backward (each output's gradient
    added at the element it came from) recorded as an op of its own, ``cummax_grad`` or
    ``cummin_grad``, linear in g; its gradient gathers those elements (a recorded getitem), so
    third derivatives are recorded too."""
    index, axis, shape = captured(out, "index", "axis", "shape")
    return (linear_grad(apply, g, out._backward, _extreme_gather(index, axis, shape),
                        f"{out._op}_grad"),)


def _extreme_gather(index, axis, shape: tuple):
    """h (a Tensor of x's shape) -> its elements at the running extremes' ``index`` (in
    ``_scan_axis``'s layout), shaped as cummax's output: the adjoint of its backward."""
    if axis is None:
        flat = index.reshape(-1)
        return lambda h: h.reshape([-1])[flat]
    if not shape:  # a 0-D x: the one element is its own running extreme
        return lambda h: h * 1
    where = list(_xp_of(index).indices(shape))
    where[axis] = _unscan(index, axis, shape)
    where = tuple(where)
    return lambda h: h[where]


def cummax(x, axis=None, dtype="int64", name: str | None = None) -> tuple[Tensor, Tensor]:
    """Paddle's ``cummax(x, axis=None, dtype='int64')``: the running maximum along ``axis``
    (None: of the flattened x) and the index where each was found (``dtype``). Among equal
    values the later index is given; after a NaN the value stays NaN, indexed at the latest NaN
    (Paddle's kernel). The
    gradient of each output goes to the element it came from."""
    del name
    return _cum_extreme(x, axis, dtype, "cummax", lambda e, later: e > later)


def cummin(x, axis=None, dtype="int64", name: str | None = None) -> tuple[Tensor, Tensor]:
    """Paddle's ``cummin(x, axis=None, dtype='int64')``: the running minimum, as ``cummax``."""
    del name
    return _cum_extreme(x, axis, dtype, "cummin", lambda e, later: e < later)


def logcumsumexp(x, axis=None, dtype=None, name: str | None = None) -> Tensor:
    """Paddle's ``logcumsumexp(x, axis=None, dtype=None)``: log(cumsum(exp(x))) along ``axis``
    (None: of the flattened x), computed stably (a scan of logaddexp, never exp(x) itself).
    ``dtype`` casts x first. Float input only. The gradient of out_j with respect to x_i
    (i <= j) is exp(x_i - out_j); it is summed in log space too."""
    del name
    x = as_input(x, "logcumsumexp")
    if dtype is not None:
        x = x.astype(dtype)
    if x.data.dtype.kind != "f":
        raise TypeError(f"logcumsumexp: x must be a floating tensor, got dtype {x.data.dtype} "
                        "(pass dtype='float32')")
    moved, axis = _scan_axis(x, axis, "logcumsumexp")
    xp = _xp(x)
    (out,) = _scan((moved,), lambda e, later: (xp.logaddexp(e[0], later[0]),))
    shape = x.data.shape

    def backward(g):
        g = g.reshape(-1) if axis is None else xp.moveaxis(g.reshape(shape or (1,)), axis, -1)
        g = g.reshape(moved.shape)
        grad = xp.zeros(moved.shape, dtype=moved.dtype)
        usable = xp.isfinite(out)
        for sign in (1, -1):
            part = (sign * g > 0) & usable
            logs = xp.where(part, xp.log(xp.where(part, sign * g, 1)) - out, -xp.inf)
            (rev,) = _scan((logs[..., ::-1],), lambda e, later: (xp.logaddexp(e[0], later[0]),))
            grad = grad + sign * xp.exp(moved + rev[..., ::-1])
        return (grad.reshape(shape) if axis is None else _unscan(grad, axis, shape),)

    return apply(_unscan(out, axis, shape), (x,), backward, "logcumsumexp", _logcumsumexp_grad)


def _logcumsumexp_grad(out, g):
    """logcumsumexp's backward with recorded ops (create_graph): d out_i / d x_j =
    exp(x_j - out_i) for j <= i, as an [n, n] matrix per scanned row (so this path takes n
    times the input's memory), the entries above the diagonal sent to exp(-1e4) = 0 first."""
    (axis,) = captured(out, "axis")
    x = out._parents[0]
    if axis is None:
        rows = [t.reshape([-1]) for t in (x, out, g)]
    else:
        rows = [t.moveaxis(axis, -1) for t in (x, out, g)]
    xs, outs, gs = rows
    n = xs.shape[-1]
    xp = backend.array_module(x.data)
    below = Tensor(xp.tril(xp.ones((n, n), dtype=x.data.dtype)))  # [i, j]: j <= i
    exponent = (xs.unsqueeze(-2) - outs.unsqueeze(-1)) * below + (below - 1) * 1e4
    grad = (gs.unsqueeze(-1) * exponent.exp()).sum(axis=-2)
    return (grad.reshape(x.shape) if axis is None else grad.moveaxis(-1, axis),)


# ----- NaN-ignoring order statistics: nanmedian, nanquantile -----------------------------------

def _nan_order_stats(x: Tensor, axes: tuple, keepdim: bool, qs: list, method: str,
                     stacked: bool, fn: str) -> Tensor:
    """Quantiles ``qs`` of the non-NaN values along ``axes`` (each row has its own count, so the
    picked positions differ per row); NaN where a row has none. The gradient of each pick goes
    to the element that held it."""
    a = x.data
    xp = _xp(x)
    flat, kept, ends = _to_last(a, axes)
    rows = flat.reshape(-1, flat.shape[-1])
    order = xp.argsort(rows, axis=-1, kind="stable")  # NaN sorts last in numpy and cupy
    ranked = xp.take_along_axis(rows, order, axis=-1)
    valid = (~xp.isnan(rows)).sum(axis=-1) if a.dtype.kind == "f" else xp.full(
        rows.shape[0], rows.shape[-1])
    dtype = _float_result(a.dtype)
    r = xp.arange(rows.shape[0])
    picks, outs = [], []
    for q in qs:
        pos = q * xp.maximum(valid - 1, 0).astype("float64")
        lo = xp.floor(pos).astype("int64")
        hi = xp.minimum(lo + 1, xp.maximum(valid - 1, 0))
        frac_ = pos - lo
        w_hi = {"linear": frac_, "lower": 0 * frac_, "higher": (frac_ > 0) * 1.0,
                "midpoint": (frac_ > 0) * 0.5,
                "nearest": ((frac_ > 0.5) | ((frac_ == 0.5) & (lo % 2 == 1))) * 1.0}[method]
        w_lo = 1.0 - w_hi
        # an unweighted neighbour is skipped, not multiplied by 0: 0 * inf would give NaN
        mixed = w_lo * ranked[r, lo] + w_hi * ranked[r, hi]
        value = xp.where(w_hi == 0, ranked[r, lo], xp.where(w_lo == 0, ranked[r, hi], mixed))
        value = value.astype(dtype)
        outs.append(xp.where(valid > 0, value, xp.nan).astype(dtype))
        picks.append((lo, hi, w_lo * (valid > 0), w_hi * (valid > 0)))
    shape = tuple(1 if i in axes else n for i, n in enumerate(a.shape)) if keepdim else kept
    out = xp.stack([o.reshape(shape) for o in outs]) if stacked else outs[0].reshape(shape)
    source = a.shape

    def backward(g):
        g = g.reshape((len(qs), rows.shape[0]))  # not -1: there may be no rows
        grad_sorted = xp.zeros(rows.shape, dtype=g.dtype)
        for k, (lo, hi, w_lo, w_hi) in enumerate(picks):
            backend.add_at(grad_sorted, (r, lo), (w_lo * g[k]).astype(g.dtype))
            backend.add_at(grad_sorted, (r, hi), (w_hi * g[k]).astype(g.dtype))
        grad = xp.zeros(rows.shape, dtype=g.dtype)
        grad[r[:, None], order] = grad_sorted
        return (_from_last(grad.reshape(flat.shape), source, axes, kept, ends)
                .astype(a.dtype, copy=False),)

    return apply(xp.asarray(out), (x,), backward, fn)


def nanquantile(x, q, axis=None, keepdim: bool = False, interpolation: str = "linear",
                name: str | None = None) -> Tensor:
    """Paddle's ``nanquantile(x, q, axis=None, keepdim=False, interpolation='linear')``:
    ``quantile`` of the non-NaN elements (NaN where all are NaN)."""
    del name
    x = as_input(x, "nanquantile")
    if interpolation not in _QUANTILE_METHODS:
        raise ValueError(f"nanquantile: interpolation must be one of "
                         f"{list(_QUANTILE_METHODS)}, got {interpolation!r}")
    qs = q.tolist() if isinstance(q, Tensor) else q
    many = isinstance(qs, (list, tuple))
    qs = list(qs) if many else [qs]
    if not qs or any(isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 1
                     for v in qs):
        raise ValueError(f"nanquantile: q must be a number in [0, 1] or a non-empty list of "
                         f"them, got {q!r}")
    axes = normalize_axes(axis, x.ndim, "nanquantile")
    if math.prod(x.data.shape[i] for i in axes) == 0:
        raise ValueError(f"nanquantile: the reduced axes of shape {x.shape} are empty")
    return _nan_order_stats(x, axes, keepdim, qs, interpolation, many, "nanquantile")


def nanmedian(x, axis=None, keepdim: bool = False, mode: str = "avg",
              name: str | None = None):
    """Paddle's ``nanmedian(x, axis=None, keepdim=False, mode='avg')``: ``median`` of the
    non-NaN elements (NaN where all are NaN). ``mode='avg'`` averages the two middle values
    of an even count; ``mode='min'`` takes the lower one, and with an int ``axis`` also returns
    its int64 index, as ``median`` (a list or tuple of axes gives the values only, as Paddle)."""
    del name
    x = as_input(x, "nanmedian")
    if mode not in ("avg", "min"):
        raise ValueError(f"nanmedian: mode must be 'avg' or 'min', got {mode!r}")
    axes = normalize_axes(axis, x.ndim, "nanmedian")
    if math.prod(x.data.shape[i] for i in axes) == 0:
        raise ValueError(f"nanmedian: the reduced axes of shape {x.shape} are empty")
    if mode == "avg":
        return _nan_order_stats(x, axes, keepdim, [0.5], "linear", False, "nanmedian")
    values = _nan_order_stats(x, axes, keepdim, [0.5], "lower", False, "nanmedian")
    values = values.astype(x.dtype) if values.dtype != x.dtype else values
    if axis is None or isinstance(axis, (list, tuple)):  # Paddle: an index for an int axis only
        return values
    xp = _xp(x)
    flat, _, _ = _to_last(x.data, axes)
    order = xp.argsort(flat, axis=-1, kind="stable")
    valid = (~xp.isnan(flat)).sum(axis=-1, keepdims=True) if flat.dtype.kind == "f" else \
        xp.full(flat.shape[:-1] + (1,), flat.shape[-1])
    lower = xp.maximum(valid - 1, 0) // 2
    index = xp.take_along_axis(order, lower, axis=-1)[..., 0].astype("int64")
    if keepdim:
        index = xp.expand_dims(index, axes[0])
    return values, Tensor(index)


__all__ += ["cummax", "cummin", "logcumsumexp", "nanmedian", "nanquantile"]

for _name, _fn in {
    "cummax": cummax, "cummin": cummin, "logcumsumexp": logcumsumexp, "nanmedian": nanmedian,
    "nanquantile": nanquantile,
}.items():
    setattr(Tensor, _name, _fn)  # see the note on Tensor methods at the end of core/ops.py
del _name, _fn


def histogram_bin_edges(input, bins: int = 100, min: float = 0.0,  # noqa: A002 - Paddle's
                        max: float = 0.0, name: str | None = None) -> Tensor:
    """Paddle's ``histogram_bin_edges(input, bins=100, min=0.0, max=0.0)``: the ``bins + 1``
    equally spaced edges over [min, max]; ``min == max == 0`` uses the data's own range,
    widened by 1 each way where all elements are equal (as ``core.histogram``). In input's
    dtype when it is a float type, else the default float type."""
    del name
    a = as_input(input, "histogram_bin_edges", "input").data
    if isinstance(bins, bool) or not hasattr(bins, "__index__") or bins < 1:
        raise ValueError(f"histogram_bin_edges: bins must be a positive int, got {bins!r}")
    low, high = _bin_range(a, min, max, "histogram_bin_edges")
    dtype = a.dtype if a.dtype.kind == "f" else np.dtype(get_default_dtype())
    edges = np.linspace(low, high, int(bins) + 1, dtype=np.float64).astype(dtype)
    return Tensor(backend.array_module(a).asarray(edges))


__all__ += ["histogram_bin_edges"]


def histogramdd(x, bins=10, ranges=None, density: bool = False, weights=None,
                name: str | None = None) -> tuple[Tensor, list[Tensor]]:
    """Paddle's ``histogramdd(x, bins=10, ranges=None, density=False, weights=None)``: the
    histogram of ``x``'s points, x of shape [..., N] read as points in N dimensions (all but
    the last dimension flattened). ``bins``: an int for every dimension, N ints, or N 1-D
    Tensors of increasing edges; ``ranges``: [left_0, right_0, left_1, right_1, ...] (default:
    each dimension's own minimum and maximum, widened by 0.5 each way where they are equal);
    ``weights``: x.shape[:-1], each point's weight. Returns (the N-D histogram, the N edge
    tensors), in x's float dtype; each last bin includes its right edge. No gradient."""
    del name
    x = as_input(x, "histogramdd")
    if x.ndim < 2 or x.data.dtype.kind != "f":
        raise ValueError(f"histogramdd: x must be a float tensor of at least 2 dimensions "
                         f"[..., N], got shape {x.shape} and dtype {x.data.dtype}")
    dims = x.shape[-1]
    points = backend.to_numpy(x.data).reshape(-1, dims).astype(np.float64)
    if isinstance(bins, (list, tuple)) and bins and all(isinstance(b, Tensor) for b in bins):
        edges = [backend.to_numpy(b.data).astype(np.float64) for b in bins]
        if len(edges) != dims or any(e.ndim != 1 or e.size < 2 or (np.diff(e) <= 0).any()
                                     for e in edges):
            raise ValueError(f"histogramdd: bins given as Tensors must be {dims} 1-D tensors "
                             "of at least 2 strictly increasing edges")
        spec, span = edges, None
    else:
        counts = [bins] * dims if not isinstance(bins, (list, tuple)) else list(bins)
        if len(counts) != dims or any(isinstance(c, bool) or not hasattr(c, "__index__")
                                      or c < 1 for c in counts):
            raise ValueError(f"histogramdd: bins must be a positive int, {dims} positive ints "
                             f"or {dims} 1-D Tensors of edges, got {bins!r}")
        spec, span = [int(c) for c in counts], _dd_ranges(ranges, points, dims)
    w = None
    if weights is not None:
        w = backend.to_numpy(as_input(weights, "histogramdd", "weights").data)
        if tuple(w.shape) != tuple(x.shape[:-1]):
            raise ValueError(f"histogramdd: weights must have x's shape without its last "
                             f"dimension, {x.shape[:-1]}, got {list(w.shape)}")
        w = w.reshape(-1).astype(np.float64)
    hist, edges = np.histogramdd(points, bins=spec, range=span, density=bool(density),
                                 weights=w)
    xp = backend.array_module(x.data)
    dtype = x.data.dtype
    return (Tensor(xp.asarray(hist.astype(dtype))),
            [Tensor(xp.asarray(e.astype(dtype))) for e in edges])


def _dd_ranges(ranges, points, dims: int) -> list[tuple[float, float]]:
    if ranges is None:
        low = points.min(axis=0) if len(points) else np.zeros(dims)
        high = points.max(axis=0) if len(points) else np.ones(dims)
        return [(lo - 0.5, hi + 0.5) if lo == hi else (lo, hi) for lo, hi in zip(low, high)]
    flat = [float(v) for v in ranges] if isinstance(ranges, (list, tuple)) else None
    if flat is None or len(flat) != 2 * dims or any(
            lo > hi for lo, hi in zip(flat[::2], flat[1::2])):
        raise ValueError(f"histogramdd: ranges must be {2 * dims} numbers [left_0, right_0, "
                         f"left_1, ...] with each left <= right, got {ranges!r}")
    return list(zip(flat[::2], flat[1::2]))


__all__ += ["histogramdd"]
for _name, _fn in {"histogramdd": histogramdd, "histogram_bin_edges": histogram_bin_edges}.items():
    setattr(Tensor, _name, _fn)  # see the note on Tensor methods at the end of core/ops.py
del _name, _fn
