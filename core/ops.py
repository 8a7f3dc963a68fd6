"""Differentiable tensor functions with Paddle 2.x names: element-wise math, reductions, shapes.

Each op computes its value with the array module of its input (numpy or cupy, one code path) and
records a backward closure through ``core.tensor.apply``. Axes follow Paddle: negative axes count
from the end, ``axis=None`` (or ``[]``) reduces every axis. Shape functions live in
``core.manipulation``, creation in ``core.creation``, comparisons in ``core.logic``, ``einsum``
in ``core.contraction`` and ``dot`` / ``mm`` / ``bmm`` in ``core.linalg``, as in Paddle's
``paddle.tensor`` package; ``matmul`` and the arithmetic ops are the engine's own, from
``core.arithmetic``, re-exported here. The less common element-wise functions (``tan``,
``erf``, ``lerp``, ...) are in ``core.elementwise``, and ``amax``, ``median``, ``quantile`` and
the other statistics in ``core.statistics``; both build on the helpers here.
"""
from __future__ import annotations

import math

from core import autocast, backend
from core.arithmetic import add, conj_if_complex, divide, matmul, multiply, subtract
from core.higher_order import captured, restore
from core.tensor import Tensor, apply

__all__ = ["abs", "add", "add_n", "argmax", "argmin", "as_input", "ceil", "check_scalar_axis",
           "clip", "cos", "cumprod", "cumsum", "divide", "exp", "floor", "is_tensor", "log",
           "log1p", "logsumexp", "matmul", "max", "mean", "min", "multiply", "normalize_axes",
           "normalize_axis", "numel", "prod", "reciprocal", "round", "rsqrt", "sign", "sin",
           "sqrt", "square", "std", "subtract", "sum", "tanh", "var"]


def as_input(x, fn: str, arg: str = "x") -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}: '{arg}' must be a Tensor, got {type(x).__name__} "
                        "(wrap arrays with core.to_tensor)")
    return x


def _xp(x: Tensor):
    return backend.array_module(x.data)


def _axis_int(axis, fn: str, arg: str) -> int:
    """``axis`` (an int, a numpy integer or a one-element Tensor) as an int, or a TypeError."""
    if isinstance(axis, Tensor):
        axis = axis.item()
    if isinstance(axis, bool) or not isinstance(axis, int) and not hasattr(axis, "__index__"):
        raise TypeError(f"{fn}: {arg} must be an int, got {axis!r}")
    return int(axis)


def normalize_axis(axis, ndim: int, fn: str, arg: str = "axis") -> int:
    """``axis`` in [-ndim, ndim) as a non-negative int, or a clear error naming ``arg``."""
    axis = _axis_int(axis, fn, arg)
    if not -ndim <= axis < ndim:
        allowed = f"{-ndim}..{ndim - 1}" if ndim else "none (the tensor is 0-D)"
        raise ValueError(f"{fn}: {arg} {axis} is out of range for a {ndim}-D tensor; "
                         f"allowed axes: {allowed}")
    return axis % ndim


def check_scalar_axis(axis, fn: str, arg: str = "axis") -> None:
    """A reduction's ``axis`` on a 0-D tensor: Paddle takes 0 or -1 there (the tensor's one
    element, as if it had one axis of length 1) and refuses anything else."""
    value = _axis_int(axis, fn, arg)
    if value not in (0, -1):
        raise ValueError(f"{fn}: {arg} {value} is out of range for a 0-D tensor; allowed "
                         "axes: 0 or -1 (its one element, the whole tensor)")


def normalize_axes(axis, ndim: int, fn: str) -> tuple[int, ...]:
    """None or [] -> every axis; an int or a list of distinct ints -> sorted non-negative axes.
    On a 0-D tensor, 0 and -1 (alone or in a list) name the whole tensor, as in Paddle's
    reductions: there are no axes to reduce, so the result is ``()``."""
    if axis is None or isinstance(axis, (list, tuple)) and len(axis) == 0:
        return tuple(range(ndim))
    if ndim == 0:
        return _scalar_axes(axis, fn)
    if isinstance(axis, (list, tuple)):
        axes = tuple(normalize_axis(a, ndim, fn) for a in axis)
        if len(set(axes)) != len(axes):
            raise ValueError(f"{fn}: axis {list(axis)} names the same axis twice")
        return tuple(sorted(axes))
    return (normalize_axis(axis, ndim, fn),)  # the common case, kept short: it runs per op


def _scalar_axes(axis, fn: str) -> tuple:
    items = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    for item in items:
        check_scalar_axis(item, fn)
    if len(items) > 1:
        raise ValueError(f"{fn}: axis {items} names the same axis twice (a 0-D tensor has one, "
                         "0 or -1)")
    return ()


def _unary(x, fn: str, forward, derivative, keep_integers: bool = False,  # noqa: PLR0913
           holomorphic: bool = True, grad_fn=None) -> Tensor:
    """An element-wise op; ``derivative(a, out)`` is d out / d a. For a complex input the
    gradient is ``g * conj(derivative)`` (torch's convention for holomorphic ops);
    ``holomorphic=False`` marks an op whose ``derivative`` is already the gradient factor
    (abs: z / |z|).

    Integer and bool inputs are computed in float32, as Paddle 3.x's unary math does
    ("integer types are autocasted into float32"): numpy would give float64 (float16 for
    bool), which then spreads through a float32 model. ``keep_integers`` is for the ops whose
    values stay integers (abs, square), which keep the input's dtype as in Paddle. ``grad_fn``
    is the tensor-level backward for create_graph (``core.tensor.apply``)."""
    if autocast.active:  # inside paddle.amp.auto_cast: exp, log, ... are black-listed
        (x,) = autocast.cast_inputs(fn, as_input(x, fn))
    a = as_input(x, fn).data
    if not keep_integers and a.dtype.kind in "iub":
        a = a.astype("float32")
    out = forward(_xp(x), a)
    if holomorphic:
        return apply(out, (x,), lambda g: (g * conj_if_complex(derivative(a, out)),), fn,
                     grad_fn)
    return apply(out, (x,), lambda g: (g * derivative(a, out),), fn, grad_fn)


def exp(x, name=None) -> Tensor:
    """e ** x, element-wise."""
    return _unary(x, "exp", lambda xp, a: xp.exp(a), lambda a, out: out,
                  grad_fn=_exp_grad)


def _exp_grad(out, g):  # the tensor-level backwards (create_graph): core.tensor.apply
    return (g * out,)


def log(x, name=None) -> Tensor:
    """Natural logarithm, element-wise."""
    return _unary(x, "log", lambda xp, a: xp.log(a), lambda a, out: 1 / a,
                  grad_fn=_log_grad)


def _log_grad(out, g):
    return (g / out._parents[0],)


def sqrt(x, name=None) -> Tensor:
    """Square root, element-wise."""
    return _unary(x, "sqrt", lambda xp, a: xp.sqrt(a), lambda a, out: 0.5 / out,
                  grad_fn=_sqrt_grad)


def _sqrt_grad(out, g):
    return (g * 0.5 / out,)


def abs(x, name=None) -> Tensor:  # noqa: A001 - Paddle's name
    """|x|; the gradient at 0 is 0 (the sign), as in Paddle."""
    return _unary(x, "abs", lambda xp, a: xp.abs(a), lambda a, out: backend.array_module(a).sign(a),
                  keep_integers=True, holomorphic=False,
                  grad_fn=_abs_grad)


def _abs_grad(out, g):  # the sign as a constant: its derivative is 0 (away from 0)
    return (g * Tensor(_xp_of(out.data).sign(out._parents[0].data)),)


def square(x, name=None) -> Tensor:
    """x * x, element-wise."""
    return _unary(x, "square", lambda xp, a: a * a, lambda a, out: 2 * a, keep_integers=True,
                  grad_fn=_square_grad)


def _square_grad(out, g):
    return (g * 2 * out._parents[0],)


def tanh(x, name=None) -> Tensor:
    """Hyperbolic tangent, element-wise."""
    return _unary(x, "tanh", lambda xp, a: xp.tanh(a), lambda a, out: 1 - out * out,
                  grad_fn=_tanh_grad)


def _tanh_grad(out, g):
    return (g * (1 - out * out),)


def sin(x, name=None) -> Tensor:
    """Sine, element-wise."""
    return _unary(x, "sin", lambda xp, a: xp.sin(a), lambda a, out: _xp_of(a).cos(a),
                  grad_fn=_sin_grad)


def _sin_grad(out, g):
    return (g * cos(out._parents[0]),)


def cos(x, name=None) -> Tensor:
    """Cosine, element-wise."""
    return _unary(x, "cos", lambda xp, a: xp.cos(a), lambda a, out: -_xp_of(a).sin(a),
                  grad_fn=_cos_grad)


def _cos_grad(out, g):
    return (-(g * sin(out._parents[0])),)


def log1p(x, name=None) -> Tensor:
    """log(1 + x), exact for small x, element-wise."""
    return _unary(x, "log1p", lambda xp, a: xp.log1p(a), lambda a, out: 1 / (1 + a),
                  grad_fn=_log1p_grad)


def _log1p_grad(out, g):
    return (g / (out._parents[0] + 1),)


def rsqrt(x, name=None) -> Tensor:
    """1 / sqrt(x), element-wise."""
    return _unary(x, "rsqrt", lambda xp, a: 1 / xp.sqrt(a), lambda a, out: -0.5 * out ** 3,
                  grad_fn=_rsqrt_grad)


def _rsqrt_grad(out, g):
    return (g * (out * out * out) * -0.5,)


def reciprocal(x, name=None) -> Tensor:
    """1 / x, element-wise."""
    return _unary(x, "reciprocal", lambda xp, a: 1 / a, lambda a, out: -out * out,
                  grad_fn=_reciprocal_grad)


def _reciprocal_grad(out, g):
    return (-(g * out * out),)


def _stepwise(x, fn: str, forward) -> Tensor:
    """A piecewise-constant op (floor, ceil, round, sign): its gradient is zero, as Paddle's."""
    a = as_input(x, fn).data
    return apply(forward(_xp(x), a), (x,), lambda g: (_xp_of(g).zeros_like(g),), fn,
                 _stepwise_grad)


def _stepwise_grad(out, g):  # zero whatever g is: a constant, so nothing is recorded
    return (Tensor(_xp_of(g.data).zeros_like(g.data)),)


def floor(x, name=None) -> Tensor:
    """The largest integer <= x, element-wise (same dtype); zero gradient."""
    return _stepwise(x, "floor", lambda xp, a: xp.floor(a))


def ceil(x, name=None) -> Tensor:
    """The smallest integer >= x, element-wise (same dtype); zero gradient."""
    return _stepwise(x, "ceil", lambda xp, a: xp.ceil(a))


def round(x, decimals: int = 0, name=None) -> Tensor:  # noqa: A001 - Paddle's name
    """Paddle's ``round(x, decimals=0, name=None)``: x rounded to ``decimals`` decimal places
    (0: the nearest integer), halves to even as Paddle 3.3.1's CPU kernel (``std::nearbyint``:
    round(2.5) = 2, round(-0.5) = -0); zero gradient. ``rint`` is exact, so no rounding creeps
    in (adding 0.5 first would round 0.49999997 up, and 8388609 in float32 to 8388610)."""
    if isinstance(decimals, bool) or not isinstance(decimals, int):
        raise TypeError(f"round: decimals must be an int, got {decimals!r}")
    if decimals == 0:
        return _stepwise(x, "round", _round_half_even)
    return _stepwise(x, "round", lambda xp, a: _round_at(xp, a, decimals))


def _round_at(xp, a, decimals: int):
    """Paddle's kernel for ``decimals``: round(a * 10**decimals) / 10**decimals in a's dtype."""
    if a.dtype.kind in "iub":  # whole numbers: Paddle leaves them as they are
        return a.copy()
    scale = a.dtype.type(10.0 ** decimals)
    return _round_half_even(xp, a * scale) / scale


def _round_half_even(xp, a):
    if a.dtype.kind in "iub":  # whole numbers already, in their own dtype
        return a.copy()
    return xp.rint(a)


def sign(x, name=None) -> Tensor:
    """-1, 0 or 1 by the sign of x, element-wise; zero gradient."""
    return _stepwise(x, "sign", lambda xp, a: xp.sign(a))


def numel(x, name=None) -> Tensor:
    """The number of elements, as a 0-D int64 Tensor (Paddle 3's ``numel``)."""
    x = as_input(x, "numel")
    return Tensor(_xp(x).asarray(math.prod(x.data.shape), dtype="int64"))


def is_tensor(x) -> bool:
    """Whether ``x`` is a core Tensor (``paddle.is_tensor``)."""
    return isinstance(x, Tensor)


def _xp_of(array):
    return backend.array_module(array)


def clip(x, min=None, max=None, name=None) -> Tensor:  # noqa: A002 - Paddle's argument names
    """Limit values to [min, max] (either may be None). Gradient flows where min < x < max,
    strictly, as in Paddle's clip_grad kernel."""
    a = as_input(x, "clip").data
    if a.dtype.kind in "iu" and any(_is_float_bound(v) for v in (min, max)):
        a = a.astype("float32")  # an integer x with a float bound: float32, as Paddle 3.3.1
    low, high = (None if v is None else float(v.item() if isinstance(v, Tensor) else v)
                 for v in (min, max))
    if low is not None and high is not None and low > high:
        raise ValueError(f"clip: min ({low}) must not be greater than max ({high})")
    xp = _xp(x)
    out, inside = a.copy(), xp.ones(a.shape, dtype=bool)
    if low is not None:
        out, inside = xp.maximum(out, xp.asarray(low, dtype=a.dtype)), inside & (a > low)
    if high is not None:
        out, inside = xp.minimum(out, xp.asarray(high, dtype=a.dtype)), inside & (a < high)
    return apply(out, (x,), lambda g: (g * inside,), "clip",
                 lambda _out, g: (g * Tensor(inside.astype(g.dtype)),))


def _is_float_bound(value) -> bool:
    return isinstance(value, float) or isinstance(value, Tensor) and value.dtype.kind == "f"


# ----- reductions ----------------------------------------------------------------------------

def _restore(g, axes: tuple, keepdim: bool, shape: tuple):
    """Broadcast a reduced gradient back to the input's shape (a read-only view)."""
    xp = backend.array_module(g)
    if not keepdim and axes:
        g = xp.expand_dims(g, axes)
    return xp.broadcast_to(g, shape)


def sum(x, axis=None, dtype=None, keepdim: bool = False, name=None) -> Tensor:  # noqa: A001
    """Sum over ``axis`` (None: all). Paddle's argument order: ``dtype`` comes before keepdim."""
    if autocast.active:  # inside paddle.amp.auto_cast: black-listed, float32 inputs
        (x,) = autocast.cast_inputs("sum", as_input(x, "sum"))
    a = as_input(x, "sum").data
    if isinstance(dtype, bool):
        raise TypeError("sum: dtype must be a dtype name, got a bool; pass keepdim=... by name")
    axes = normalize_axes(axis, a.ndim, "sum")
    out = _xp(x).asarray(a.sum(axis=axes, dtype=dtype, keepdims=keepdim))
    shape, source = a.shape, a.dtype  # the closure keeps only these, not the input

    def backward(g):
        return (_restore(g, axes, keepdim, shape).astype(source, copy=False),)

    return apply(out, (x,), backward, "sum", _sum_grad)


def _sum_grad(out, g):
    axes, keepdim, shape, source = captured(out, "axes", "keepdim", "shape", "source")
    return (_as_dtype(restore(g, axes, keepdim, shape), source),)


def _as_dtype(t: Tensor, dtype) -> Tensor:
    """``t`` cast to ``dtype`` only when it differs (a cast is an op in the graph)."""
    return t if t.dtype == dtype else t.astype(dtype)


def mean(x, axis=None, keepdim: bool = False, name: str | None = None, *, dtype=None) -> Tensor:
    """Mean over ``axis`` (None: all), Paddle's ``mean(x, axis=None, keepdim=False, name=None,
    *, dtype=None)``; ``dtype`` casts ``x`` first, as Paddle does."""
    del name
    if dtype is not None:
        x = as_input(x, "mean").astype(dtype)
        if x.data.dtype.kind not in "fc":  # numpy would hand back float64, not the dtype asked
            raise TypeError(f"mean: dtype must be a float or complex dtype (the mean of an "
                            f"integer or bool tensor is not one), got {dtype!r}")
    if autocast.active:  # inside paddle.amp.auto_cast: black-listed, float32 inputs
        (x,) = autocast.cast_inputs("mean", as_input(x, "mean"))
    a = as_input(x, "mean").data
    axes = normalize_axes(axis, a.ndim, "mean")
    count = math.prod(a.shape[i] for i in axes)
    if count == 0:
        raise ValueError(f"mean: the reduced axes {list(axes)} of shape {list(a.shape)} are empty")
    out, shape = _xp(x).asarray(a.mean(axis=axes, keepdims=keepdim)), a.shape
    return apply(out, (x,), lambda g: (_restore(g / count, axes, keepdim, shape),), "mean",
                 _mean_grad)


def _mean_grad(out, g):
    count, axes, keepdim, shape = captured(out, "count", "axes", "keepdim", "shape")
    return (restore(g / count, axes, keepdim, shape),)


def _extreme(x, axis, keepdim: bool, fn: str) -> Tensor:
    """max or min; the gradient goes to the FIRST extreme only, so ties do not duplicate it."""
    a = as_input(x, fn).data
    axes = normalize_axes(axis, a.ndim, fn)
    if any(a.shape[i] == 0 for i in axes):
        raise ValueError(f"{fn}: cannot reduce an empty axis of shape {list(a.shape)}")
    xp = _xp(x)
    out = xp.asarray(getattr(a, fn)(axis=axes, keepdims=keepdim))
    kept = tuple(n for i, n in enumerate(a.shape) if i not in axes)
    ends = tuple(range(len(kept), a.ndim))

    def backward(g):
        # Move the reduced axes last and flatten them: arg{max,min} then finds the first
        # extreme in row-major order of the reduced axes.
        moved = xp.moveaxis(a, axes, ends)
        flat = moved.reshape(kept + (-1,))
        first = (xp.argmax if fn == "max" else xp.argmin)(flat, axis=-1)
        onehot = xp.arange(flat.shape[-1]) == first[..., None]
        grad = (onehot * g.reshape(kept)[..., None]).reshape(moved.shape)
        return (xp.moveaxis(grad, ends, axes),)

    return apply(out, (x,), backward, fn, _extreme_grad)


def _extreme_grad(out, g):  # the tensor-level backward (create_graph): core.tensor.apply
    a, axes, kept, ends, fn = captured(out, "a", "axes", "kept", "ends", "fn")
    xp = _xp_of(a)
    moved = xp.moveaxis(a, axes, ends)
    flat = moved.reshape(kept + (-1,))
    first = (xp.argmax if fn == "max" else xp.argmin)(flat, axis=-1)
    onehot = (xp.arange(flat.shape[-1]) == first[..., None]).reshape(moved.shape)
    chosen = Tensor(xp.moveaxis(onehot, ends, axes).astype(a.dtype))
    return (restore(g, axes, False, a.shape) * chosen,)  # keepdim or not: the same reshape


def max(x, axis=None, keepdim: bool = False, name=None) -> Tensor:  # noqa: A001
    """Maximum over ``axis`` (None: all); on ties the gradient goes to the first maximum."""
    return _extreme(x, axis, keepdim, "max")


def min(x, axis=None, keepdim: bool = False, name=None) -> Tensor:  # noqa: A001
    """Minimum over ``axis`` (None: all); on ties the gradient goes to the first minimum."""
    return _extreme(x, axis, keepdim, "min")


def _arg_extreme(x, axis, keepdim: bool, dtype, fn: str) -> Tensor:
    a = as_input(x, fn).data
    xp = _xp(x)
    if axis is not None and a.ndim == 0:  # Paddle: axis 0 or -1 of a 0-D tensor is all of it
        check_scalar_axis(axis, fn)
        axis = None
    if axis is None:
        out = getattr(xp, fn)(a.reshape(-1))
        out = xp.asarray(out).reshape((1,) * a.ndim if keepdim else ())
    else:
        axis = normalize_axis(axis, a.ndim, fn)
        out = getattr(xp, fn)(a, axis=axis)
        out = xp.expand_dims(out, axis) if keepdim else out
    return Tensor(xp.asarray(out).astype(dtype))


def argmax(x, axis=None, keepdim: bool = False, dtype="int64", name=None) -> Tensor:
    """Index of the first maximum along ``axis`` (None: of the flattened tensor); no gradient."""
    return _arg_extreme(x, axis, keepdim, dtype, "argmax")


def argmin(x, axis=None, keepdim: bool = False, dtype="int64", name=None) -> Tensor:
    """Index of the first minimum along ``axis`` (None: of the flattened tensor); no gradient."""
    return _arg_extreme(x, axis, keepdim, dtype, "argmin")


def cumsum(x, axis=None, dtype=None, name: str | None = None) -> Tensor:
    """Running sum along ``axis`` (None: of the flattened tensor); the gradient is the reverse
    running sum of the output's gradient."""
    del name
    if autocast.active:  # inside paddle.amp.auto_cast: black-listed, float32 inputs
        (x,) = autocast.cast_inputs("cumsum", as_input(x, "cumsum"))
    a = as_input(x, "cumsum").data
    xp = _xp(x)
    source, axis, shape = _running_layout(a, axis, "cumsum")
    out = xp.cumsum(source, axis=axis, dtype=dtype).reshape(shape)
    dt = a.dtype

    def backward(g):
        g = g.reshape(source.shape)
        rev = xp.flip(xp.cumsum(xp.flip(g, axis), axis=axis), axis)
        return (rev.reshape(a.shape).astype(dt, copy=False),)

    return apply(out, (x,), backward, "cumsum", _cumsum_grad)


def _cumsum_grad(out, g):  # the reverse running sum: total - running + g, recorded
    source, axis, a = captured(out, "source", "axis", "a")
    g = g.reshape(list(source.shape))
    rev = (g.sum(axis=axis, keepdim=True) - cumsum(g, axis=axis) + g).reshape(list(a.shape))
    return (rev if rev.data.dtype == a.dtype else rev.astype(str(a.dtype)),)


def _running_layout(a, axis, fn: str):
    """For cumsum and cumprod: (the array to run over, its axis, the output's shape).
    ``axis=None`` runs over the flattened tensor (a 0-D one gives shape [1], as in Paddle);
    a 0-D tensor with axis 0 or -1 keeps its shape [], as Paddle's running ops do."""
    if axis is None:
        return a.reshape(-1), 0, (a.size,)
    if a.ndim == 0:
        check_scalar_axis(axis, fn)
        return a.reshape(1), 0, ()
    return a, normalize_axis(axis, a.ndim, fn), a.shape


def prod(x, axis=None, keepdim: bool = False, dtype=None, name: str | None = None) -> Tensor:
    """Product over ``axis`` (None: all); ``dtype`` casts ``x`` first, as Paddle. The gradient
    of each element is the product of the others (exact where some are zero)."""
    del name
    x = as_input(x, "prod")
    if autocast.active:  # inside paddle.amp.auto_cast: black-listed, float32 inputs
        (x,) = autocast.cast_inputs("prod", x)
    a = x.data if dtype is None else x.data.astype(dtype)
    xp = _xp(x)
    axes = normalize_axes(axis, a.ndim, "prod")
    out = xp.asarray(a.prod(axis=axes, keepdims=keepdim, dtype=a.dtype))  # int32 stays int32
    kept = tuple(n for i, n in enumerate(a.shape) if i not in axes)
    ends = tuple(range(len(kept), a.ndim))
    source = x.data.dtype

    def backward(g):
        if a.size == 0:  # a product over no elements: nothing to pass a gradient to
            return (xp.zeros(a.shape, dtype=source),)
        # Products of the elements before and after each one (exclusive running products).
        moved = xp.moveaxis(a, axes, ends)
        flat = moved.reshape(kept + (-1,))
        ones = xp.ones(kept + (1,), dtype=a.dtype)
        before = xp.cumprod(xp.concatenate([ones, flat[..., :-1]], axis=-1), axis=-1)
        after = xp.flip(xp.cumprod(xp.concatenate(
            [ones, xp.flip(flat, -1)[..., :-1]], axis=-1), axis=-1), -1)
        # g * conj(d out / d a) for complex x (torch's convention, see conj_if_complex)
        others = conj_if_complex(before * after)
        grad = (others * g.reshape(kept)[..., None]).reshape(moved.shape)
        return (xp.moveaxis(grad, ends, axes).astype(source, copy=False),)

    return apply(out, (x,), backward, "prod", _prod_grad)


def _prod_grad(out, g):
    """The tensor-level backward (create_graph): each element's gradient is the product of the
    others, exact where some are zero as the array backward. It is ``prod`` itself over the
    rows of an [n, n] matrix whose diagonal is 1 (row i: every element but the i-th), so its
    own gradient is recorded too; the n-fold memory is paid on this path only."""
    a, axes, kept, ends, source = captured(out, "a", "axes", "kept", "ends", "source")
    x = out._parents[0]
    if a.size == 0:  # a product over no elements: nothing to pass a gradient to
        return (Tensor(_xp_of(a).zeros(a.shape, dtype=source)),)
    order = [i for i in range(a.ndim) if i not in axes] + list(axes)  # xp.moveaxis's order
    moved = _as_dtype(x, a.dtype).transpose(order) if a.ndim else _as_dtype(x, a.dtype)
    rows = moved.reshape(list(kept) + [-1]).unsqueeze(-2)  # [..., 1, n]
    eye = Tensor(_xp_of(a).eye(rows.shape[-1], dtype=a.dtype))
    others = prod(rows * (1 - eye) + eye, axis=-1)  # [..., n]
    grad = (others * g.reshape(list(kept) + [1])).reshape(list(moved.shape))
    if a.ndim:
        grad = grad.transpose([order.index(i) for i in range(a.ndim)])
    return (_as_dtype(grad, source),)


def _spread(x, axis, unbiased: bool, fn: str):
    """For var and std: (x - mean, the reduced axes, 1 / divisor, the variance with the reduced
    axes kept). The unbiased divisor is max(n - 1, 1), as Paddle's ``where(n > 1, n - 1, 1)``:
    one element per reduction gives 0, not 0 / 0."""
    a = as_input(x, fn).data
    if a.dtype.kind != "f":
        raise TypeError(f"{fn}: x must be a floating tensor, got dtype {a.dtype}")
    axes = normalize_axes(axis, a.ndim, fn)
    count = math.prod(a.shape[i] for i in axes)
    if count == 0:
        raise ValueError(f"{fn}: the reduced axes {list(axes)} of shape {list(a.shape)} are empty")
    divisor = (count - 1 if count > 1 else 1) if unbiased else count  # max() is core's here
    scale = 1.0 / divisor
    diff = a - a.mean(axis=axes, keepdims=True)
    variance = ((diff * diff).sum(axis=axes, keepdims=True) * scale).astype(diff.dtype)
    return diff, axes, scale, variance


def _dropped(array, axes: tuple, keepdim: bool):
    """``array`` (reduced with its axes kept) without those axes unless ``keepdim``."""
    if keepdim:
        return array
    return array.reshape(tuple(n for i, n in enumerate(array.shape) if i not in axes))


def var(x, axis=None, unbiased: bool | None = None, keepdim: bool = False,
        name: str | None = None) -> Tensor:
    """Paddle 3.3's ``var(x, axis=None, unbiased=None, keepdim=False, name=None)``: the variance
    over ``axis`` (None: all), divided by n - 1 (``unbiased``, or None: Paddle's default Bessel
    correction; 1 where n is 1, as Paddle, so one element gives 0) or n."""
    del name
    unbiased = True if unbiased is None else unbiased  # None: Paddle's correction=1
    diff, axes, scale, variance = _spread(x, axis, unbiased, "var")

    def backward(g):
        return (_restore(g, axes, keepdim, diff.shape) * (diff * (2 * scale)),)

    return apply(_xp(x).asarray(_dropped(variance, axes, keepdim)), (x,), backward, "var",
                 _var_grad)


def _centred(out) -> Tensor:
    """x - mean(x) over the reduced axes, recorded (var's and std's create_graph path)."""
    (axes,) = captured(out, "axes")
    x = out._parents[0]
    return x - x.mean(axis=list(axes), keepdim=True)


def _var_grad(out, g):  # the tensor-level backward (create_graph): 2 (x - mean) / divisor
    axes, keepdim, scale = captured(out, "axes", "keepdim", "scale")
    return (restore(g, axes, keepdim, out._parents[0].shape) * _centred(out) * (2 * scale),)


def std(x, axis=None, unbiased: bool = True, keepdim: bool = False,
        name: str | None = None) -> Tensor:
    """Paddle's ``std(x, axis=None, unbiased=True, keepdim=False, name=None)``: the square root
    of ``var``. One element per reduction gives 0, with gradient 0."""
    del name
    diff, axes, scale, variance = _spread(x, axis, unbiased, "std")
    xp = _xp(x)
    out = xp.sqrt(variance)
    single = diff.size == variance.size  # one element per reduction: std is 0 for every x

    def backward(g):
        if single:  # d 0 / dx is 0; the formula below would be 0 / 0 there
            return (xp.zeros(diff.shape, dtype=diff.dtype),)
        return (_restore(g, axes, keepdim, diff.shape) * (diff * scale / out),)

    return apply(xp.asarray(_dropped(out, axes, keepdim)), (x,), backward, "std", _std_grad)


def _std_grad(out, g):  # (x - mean) / (divisor * std); 0 with one element per reduction
    axes, keepdim, scale, single = captured(out, "axes", "keepdim", "scale", "single")
    shape = out._parents[0].shape
    spread = restore(g, axes, keepdim, shape)
    if single:
        return (spread * 0.0,)
    return (spread * _centred(out) * scale / restore(out, axes, keepdim, shape),)


def logsumexp(x, axis=None, keepdim: bool = False, name: str | None = None) -> Tensor:
    """log(sum(exp(x))) over ``axis`` (None: all), computed stably (the maximum is shifted
    out first); the gradient is softmax(x) along the reduced axes."""
    del name
    a = as_input(x, "logsumexp").data
    if a.dtype.kind != "f":
        raise TypeError(f"logsumexp: x must be a floating tensor, got dtype {a.dtype}")
    axes = normalize_axes(axis, a.ndim, "logsumexp")
    if any(a.shape[i] == 0 for i in axes):
        raise ValueError(f"logsumexp: cannot reduce an empty axis of shape {list(a.shape)}")
    xp = _xp(x)
    top = a.max(axis=axes, keepdims=True)
    top = xp.where(xp.isfinite(top), top, xp.zeros((), dtype=a.dtype))  # all -inf rows, inf
    full = xp.log(xp.exp(a - top).sum(axis=axes, keepdims=True)) + top
    out = full if keepdim else full.reshape(tuple(
        n for i, n in enumerate(full.shape) if i not in axes))

    def backward(g):
        return (_restore(g, axes, keepdim, a.shape) * xp.exp(a - full),)

    return apply(xp.asarray(out), (x,), backward, "logsumexp", _logsumexp_grad)


def _logsumexp_grad(out, g):  # softmax over the axes, as exp(x - logsumexp(x)), recorded
    axes, keepdim = captured(out, "axes", "keepdim")
    x = out._parents[0]
    full = restore(out, axes, keepdim, x.shape)
    return (restore(g, axes, keepdim, x.shape) * (x - full).exp(),)


def cumprod(x, dim=None, dtype=None, name: str | None = None) -> Tensor:
    """Running product along ``dim`` (None: of the flattened tensor); ``dtype`` casts ``x``
    first. The gradient is exact where elements are zero, with create_graph too."""
    del name
    x = as_input(x, "cumprod")
    if autocast.active:  # inside paddle.amp.auto_cast: black-listed, float32 inputs
        (x,) = autocast.cast_inputs("cumprod", x)
    a = x.data if dtype is None else x.data.astype(dtype)
    xp = _xp(x)
    source, axis, out_shape = _running_layout(a, dim, "cumprod")
    out = xp.cumprod(source, axis=axis, dtype=source.dtype)  # int32 stays int32
    shape, dt = x.data.shape, x.data.dtype

    def backward(g):
        g = g.reshape(source.shape)
        def rev_cumsum(v):
            return xp.flip(xp.cumsum(xp.flip(v, axis), axis=axis), axis)

        # Before the first zero of a run, d out_i / d a_k = out_i / a_k. At the first zero it
        # is the running product with that zero taken as 1; after it, every term is zero.
        zero = source == 0
        zeros_so_far = xp.cumsum(zero, axis=axis)
        before = zeros_so_far == 0
        first = zero & (zeros_so_far == 1)
        one = xp.ones((), dtype=source.dtype)
        # complex x: g * conj(d out / d a), so the products and quotients of conjugates
        values, products = conj_if_complex(source), conj_if_complex(out)
        grad = xp.where(before, rev_cumsum(g * products) / xp.where(before, values, one), 0)
        skipped = xp.cumprod(xp.where(first, one, values), axis=axis)
        grad = grad + xp.where(first, rev_cumsum(g * skipped), 0)
        return (grad.reshape(shape).astype(dt, copy=False),)

    return apply(out.reshape(out_shape), (x,), backward, "cumprod", _cumprod_grad)


def _cumprod_grad(out, g):
    """cumprod's backward with recorded ops (create_graph), exact at zeros without dividing:
    d out_i / d x_k (i >= k) is the running product at i of the row with x_k taken as 1, so
    each scanned row becomes an [n, n] matrix (row k: x with a 1 at k) whose cumprod gives all
    of them; this path takes n times the input's memory, as prod's."""
    source, axis, shape, dt = captured(out, "source", "axis", "shape", "dt")
    x = out._parents[0]
    rows = x.reshape(list(source.shape))
    rows = rows if rows.data.dtype == source.dtype else rows.astype(str(source.dtype))
    rows, g = rows.moveaxis(axis, -1), g.reshape(list(source.shape)).moveaxis(axis, -1)
    xp = _xp_of(source)
    n = rows.shape[-1]
    eye = Tensor(xp.eye(n, dtype=source.dtype))
    later = Tensor(xp.triu(xp.ones((n, n), dtype=source.dtype)))  # [k, i]: i >= k
    partial = cumprod(rows.unsqueeze(-2) * (1 - eye) + eye, dim=-1)  # [..., k, i]
    grad = (partial * later * g.unsqueeze(-2)).sum(axis=-1).moveaxis(-1, axis)
    grad = grad.reshape(list(shape))
    return (grad if grad.data.dtype == dt else grad.astype(str(dt)),)


def add_n(inputs, name: str | None = None) -> Tensor:
    """The element-wise sum of a list of equally shaped tensors (or of one tensor)."""
    del name
    xs = [inputs] if isinstance(inputs, Tensor) else inputs
    if not isinstance(xs, (list, tuple)) or not xs:
        raise TypeError("add_n: 'inputs' must be a Tensor or a non-empty list of Tensors")
    xs = [as_input(t, "add_n", f"inputs[{i}]") for i, t in enumerate(xs)]
    shapes = {t.data.shape for t in xs}
    if len(shapes) > 1:
        raise ValueError(f"add_n: every input must have the same shape, got "
                         f"{[t.shape for t in xs]}")
    out = xs[0].data.copy()
    for t in xs[1:]:
        out += t.data
    return apply(out, tuple(xs), lambda g: tuple(None if t.stop_gradient else g for t in xs),
                 "add_n")


# ----- Tensor methods --------------------------------------------------------------------------
# Tensor methods are attached next to the functions they call (here, in core.manipulation,
# core.logic and the other modules of ops) rather than in core/tensor.py: that keeps the
# autograd engine free of imports of every op, and it is what Paddle itself does (paddle.tensor
# attaches its functions to Tensor).
for _name, _fn in {
    "sum": sum, "mean": mean, "max": max, "min": min, "argmax": argmax, "argmin": argmin,
    "exp": exp, "log": log, "sqrt": sqrt, "abs": abs, "square": square, "tanh": tanh,
    "clip": clip, "cumsum": cumsum, "sin": sin, "cos": cos, "log1p": log1p, "rsqrt": rsqrt,
    "reciprocal": reciprocal, "floor": floor, "ceil": ceil, "round": round, "sign": sign,
    "numel": numel, "prod": prod, "var": var, "std": std, "logsumexp": logsumexp,
    "cumprod": cumprod,
}.items():
    setattr(Tensor, _name, _fn)
Tensor.__abs__ = abs
del _name, _fn
Tensor.is_tensor = is_tensor  # Paddle's ``x.is_tensor()``: True
