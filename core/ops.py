"""Differentiable tensor functions with Paddle 2.x names: element-wise math, reductions, shapes.

Each op computes its value with the array module of its input (numpy or cupy, one code path) and
records a backward closure through ``core.tensor.apply``. Axes follow Paddle: negative axes count
from the end, ``axis=None`` (or ``[]``) reduces every axis. Shape functions live in
``core.manipulation``, creation in ``core.creation``, comparisons in ``core.logic``, ``einsum``
in ``core.contraction`` and ``dot`` / ``mm`` / ``bmm`` in ``core.linalg``, as in Paddle's
``paddle.tensor`` package; ``matmul`` and the arithmetic ops are the engine's own, from
``core.arithmetic``, re-exported here.
"""
from __future__ import annotations

import math

from core import backend
from core.arithmetic import add, divide, matmul, multiply, subtract
from core.tensor import Tensor, apply, unbroadcast

__all__ = ["abs", "add", "add_n", "argmax", "argmin", "as_input", "ceil", "clip", "cos",
           "cumprod", "cumsum", "divide", "exp", "floor", "is_tensor", "log", "log1p",
           "logsumexp", "matmul", "max", "mean", "min", "multiply", "normalize_axes",
           "normalize_axis", "numel", "prod", "reciprocal", "round", "rsqrt", "sign", "sin",
           "sqrt", "square", "std", "subtract", "sum", "tanh", "var"]


def as_input(x, fn: str, arg: str = "x") -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}: '{arg}' must be a Tensor, got {type(x).__name__} "
                        "(wrap arrays with core.to_tensor)")
    return x


def _xp(x: Tensor):
    return backend.array_module(x.data)


def normalize_axis(axis, ndim: int, fn: str) -> int:
    """``axis`` in [-ndim, ndim) as a non-negative int, or a clear error."""
    if isinstance(axis, Tensor):
        axis = axis.item()
    if isinstance(axis, bool) or not isinstance(axis, int) and not hasattr(axis, "__index__"):
        raise TypeError(f"{fn}: axis must be an int, got {axis!r}")
    axis = int(axis)
    if not -ndim <= axis < ndim:
        allowed = f"{-ndim}..{ndim - 1}" if ndim else "none (the tensor is 0-D)"
        raise ValueError(f"{fn}: axis {axis} is out of range for a {ndim}-D tensor; "
                         f"allowed axes: {allowed}")
    return axis % ndim


def normalize_axes(axis, ndim: int, fn: str) -> tuple[int, ...]:
    """None or [] -> every axis; an int or a list of distinct ints -> sorted non-negative axes."""
    if axis is None or isinstance(axis, (list, tuple)) and len(axis) == 0:
        return tuple(range(ndim))
    if isinstance(axis, (list, tuple)):
        axes = tuple(normalize_axis(a, ndim, fn) for a in axis)
        if len(set(axes)) != len(axes):
            raise ValueError(f"{fn}: axis {list(axis)} names the same axis twice")
        return tuple(sorted(axes))
    return (normalize_axis(axis, ndim, fn),)


def _unary(x, fn: str, forward, derivative) -> Tensor:
    """An element-wise op; ``derivative(a, out)`` is d out / d a."""
    a = as_input(x, fn).data
    out = forward(_xp(x), a)
    return apply(out, (x,), lambda g: (g * derivative(a, out),), fn)


def exp(x) -> Tensor:
    """e ** x, element-wise."""
    return _unary(x, "exp", lambda xp, a: xp.exp(a), lambda a, out: out)


def log(x) -> Tensor:
    """Natural logarithm, element-wise."""
    return _unary(x, "log", lambda xp, a: xp.log(a), lambda a, out: 1 / a)


def sqrt(x) -> Tensor:
    """Square root, element-wise."""
    return _unary(x, "sqrt", lambda xp, a: xp.sqrt(a), lambda a, out: 0.5 / out)


def abs(x) -> Tensor:  # noqa: A001 - Paddle's name
    """|x|; the gradient at 0 is 0 (the sign), as in Paddle."""
    return _unary(x, "abs", lambda xp, a: xp.abs(a), lambda a, out: backend.array_module(a).sign(a))


def square(x) -> Tensor:
    """x * x, element-wise."""
    return _unary(x, "square", lambda xp, a: a * a, lambda a, out: 2 * a)


def tanh(x) -> Tensor:
    """Hyperbolic tangent, element-wise."""
    return _unary(x, "tanh", lambda xp, a: xp.tanh(a), lambda a, out: 1 - out * out)


def sin(x) -> Tensor:
    """Sine, element-wise."""
    return _unary(x, "sin", lambda xp, a: xp.sin(a), lambda a, out: _xp_of(a).cos(a))


def cos(x) -> Tensor:
    """Cosine, element-wise."""
    return _unary(x, "cos", lambda xp, a: xp.cos(a), lambda a, out: -_xp_of(a).sin(a))


def log1p(x) -> Tensor:
    """log(1 + x), exact for small x, element-wise."""
    return _unary(x, "log1p", lambda xp, a: xp.log1p(a), lambda a, out: 1 / (1 + a))


def rsqrt(x) -> Tensor:
    """1 / sqrt(x), element-wise."""
    return _unary(x, "rsqrt", lambda xp, a: 1 / xp.sqrt(a), lambda a, out: -0.5 * out ** 3)


def reciprocal(x) -> Tensor:
    """1 / x, element-wise."""
    return _unary(x, "reciprocal", lambda xp, a: 1 / a, lambda a, out: -out * out)


def _stepwise(x, fn: str, forward) -> Tensor:
    """A piecewise-constant op (floor, ceil, round, sign): its gradient is zero, as Paddle's."""
    a = as_input(x, fn).data
    return apply(forward(_xp(x), a), (x,), lambda g: (_xp_of(g).zeros_like(g),), fn)


def floor(x) -> Tensor:
    """The largest integer <= x, element-wise (same dtype); zero gradient."""
    return _stepwise(x, "floor", lambda xp, a: xp.floor(a))


def ceil(x) -> Tensor:
    """The smallest integer >= x, element-wise (same dtype); zero gradient."""
    return _stepwise(x, "ceil", lambda xp, a: xp.ceil(a))


def round(x) -> Tensor:  # noqa: A001 - Paddle's name
    """x rounded to the nearest integer, halves away from zero as Paddle; zero gradient. The
    fraction ``x - trunc(x)`` is exact in floating point, so no rounding creeps in (adding 0.5
    first would round 0.49999997 up, and 8388609 in float32 to 8388610)."""
    return _stepwise(x, "round", _round_half_away)


def _round_half_away(xp, a):
    if a.dtype.kind in "iub":  # whole numbers already, in their own dtype
        return a.copy()
    whole = xp.trunc(a)
    return whole + xp.where(xp.abs(a - whole) >= 0.5, xp.sign(a), 0).astype(a.dtype)


def sign(x) -> Tensor:
    """-1, 0 or 1 by the sign of x, element-wise; zero gradient."""
    return _stepwise(x, "sign", lambda xp, a: xp.sign(a))


def numel(x) -> Tensor:
    """The number of elements, as a 0-D int64 Tensor (Paddle 3's ``numel``)."""
    x = as_input(x, "numel")
    return Tensor(_xp(x).asarray(math.prod(x.data.shape), dtype="int64"))


def is_tensor(x) -> bool:
    """Whether ``x`` is a core Tensor (``paddle.is_tensor``)."""
    return isinstance(x, Tensor)


def _xp_of(array):
    return backend.array_module(array)


def clip(x, min=None, max=None) -> Tensor:  # noqa: A002 - Paddle's argument names
    """Limit values to [min, max] (either may be None). Gradient flows where min < x < max,
    strictly, as in Paddle's clip_grad kernel."""
    a = as_input(x, "clip").data
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
    return apply(out, (x,), lambda g: (g * inside,), "clip")


# ----- reductions ----------------------------------------------------------------------------

def _restore(g, axes: tuple, keepdim: bool, shape: tuple):
    """Broadcast a reduced gradient back to the input's shape (a read-only view)."""
    xp = backend.array_module(g)
    if not keepdim and axes:
        g = xp.expand_dims(g, axes)
    return xp.broadcast_to(g, shape)


def sum(x, axis=None, dtype=None, keepdim: bool = False) -> Tensor:  # noqa: A001
    """Sum over ``axis`` (None: all). Paddle's argument order: ``dtype`` comes before keepdim."""
    a = as_input(x, "sum").data
    if isinstance(dtype, bool):
        raise TypeError("sum: dtype must be a dtype name, got a bool; pass keepdim=... by name")
    axes = normalize_axes(axis, a.ndim, "sum")
    out = _xp(x).asarray(a.sum(axis=axes, dtype=dtype, keepdims=keepdim))
    shape, source = a.shape, a.dtype  # the closure keeps only these, not the input

    def backward(g):
        return (_restore(g, axes, keepdim, shape).astype(source, copy=False),)

    return apply(out, (x,), backward, "sum")


def mean(x, axis=None, keepdim: bool = False) -> Tensor:
    """Mean over ``axis`` (None: all)."""
    a = as_input(x, "mean").data
    axes = normalize_axes(axis, a.ndim, "mean")
    count = math.prod(a.shape[i] for i in axes)
    if count == 0:
        raise ValueError(f"mean: the reduced axes {list(axes)} of shape {list(a.shape)} are empty")
    out, shape = _xp(x).asarray(a.mean(axis=axes, keepdims=keepdim)), a.shape
    return apply(out, (x,), lambda g: (_restore(g / count, axes, keepdim, shape),), "mean")


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

    return apply(out, (x,), backward, fn)


def max(x, axis=None, keepdim: bool = False) -> Tensor:  # noqa: A001
    """Maximum over ``axis`` (None: all); on ties the gradient goes to the first maximum."""
    return _extreme(x, axis, keepdim, "max")


def min(x, axis=None, keepdim: bool = False) -> Tensor:  # noqa: A001
    """Minimum over ``axis`` (None: all); on ties the gradient goes to the first minimum."""
    return _extreme(x, axis, keepdim, "min")


def _arg_extreme(x, axis, keepdim: bool, dtype, fn: str) -> Tensor:
    a = as_input(x, fn).data
    xp = _xp(x)
    if axis is None:
        out = getattr(xp, fn)(a.reshape(-1))
        out = xp.asarray(out).reshape((1,) * a.ndim if keepdim else ())
    else:
        axis = normalize_axis(axis, a.ndim, fn)
        out = getattr(xp, fn)(a, axis=axis)
        out = xp.expand_dims(out, axis) if keepdim else out
    return Tensor(xp.asarray(out).astype(dtype))


def argmax(x, axis=None, keepdim: bool = False, dtype="int64") -> Tensor:
    """Index of the first maximum along ``axis`` (None: of the flattened tensor); no gradient."""
    return _arg_extreme(x, axis, keepdim, dtype, "argmax")


def argmin(x, axis=None, keepdim: bool = False, dtype="int64") -> Tensor:
    """Index of the first minimum along ``axis`` (None: of the flattened tensor); no gradient."""
    return _arg_extreme(x, axis, keepdim, dtype, "argmin")


def cumsum(x, axis=None, dtype=None, name: str | None = None) -> Tensor:
    """Running sum along ``axis`` (None: of the flattened tensor); the gradient is the reverse
    running sum of the output's gradient."""
    del name
    a = as_input(x, "cumsum").data
    xp = _xp(x)
    flat = axis is None or a.ndim == 0
    axis = 0 if flat else normalize_axis(axis, a.ndim, "cumsum")
    source = a.reshape(-1) if flat else a
    out = xp.cumsum(source, axis=axis, dtype=dtype)
    shape, dt = a.shape, a.dtype

    def backward(g):
        rev = xp.flip(xp.cumsum(xp.flip(g, axis), axis=axis), axis)
        return (rev.reshape(shape).astype(dt, copy=False),)

    return apply(out, (x,), backward, "cumsum")


def prod(x, axis=None, keepdim: bool = False, dtype=None, name: str | None = None) -> Tensor:
    """Product over ``axis`` (None: all); ``dtype`` casts ``x`` first, as Paddle. The gradient
    of each element is the product of the others (exact where some are zero)."""
    del name
    x = as_input(x, "prod")
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
        grad = (before * after * g.reshape(kept)[..., None]).reshape(moved.shape)
        return (xp.moveaxis(grad, ends, axes).astype(source, copy=False),)

    return apply(out, (x,), backward, "prod")


def _spread(x, axis, unbiased: bool, fn: str):
    """For var and std: (x - mean, the reduced axes, 1 / divisor, the variance with the reduced
    axes kept); NaN where the divisor is 0."""
    a = as_input(x, fn).data
    if a.dtype.kind != "f":
        raise TypeError(f"{fn}: x must be a floating tensor, got dtype {a.dtype}")
    axes = normalize_axes(axis, a.ndim, fn)
    count = math.prod(a.shape[i] for i in axes)
    if count == 0:
        raise ValueError(f"{fn}: the reduced axes {list(axes)} of shape {list(a.shape)} are empty")
    divisor = count - 1 if unbiased else count
    scale = 1.0 / divisor if divisor > 0 else math.nan  # Paddle: 0 / 0 for one unbiased sample
    diff = a - a.mean(axis=axes, keepdims=True)
    variance = ((diff * diff).sum(axis=axes, keepdims=True) * scale).astype(diff.dtype)
    return diff, axes, scale, variance


def _dropped(array, axes: tuple, keepdim: bool):
    """``array`` (reduced with its axes kept) without those axes unless ``keepdim``."""
    if keepdim:
        return array
    return array.reshape(tuple(n for i, n in enumerate(array.shape) if i not in axes))


def var(x, axis=None, unbiased: bool = True, keepdim: bool = False,
        name: str | None = None) -> Tensor:
    """Variance over ``axis`` (None: all), divided by n - 1 (``unbiased``) or n."""
    del name
    diff, axes, scale, variance = _spread(x, axis, unbiased, "var")

    def backward(g):
        return (_restore(g, axes, keepdim, diff.shape) * (diff * (2 * scale)),)

    return apply(_xp(x).asarray(_dropped(variance, axes, keepdim)), (x,), backward, "var")


def std(x, axis=None, unbiased: bool = True, keepdim: bool = False,
        name: str | None = None) -> Tensor:
    """Standard deviation over ``axis`` (None: all): the square root of ``var``."""
    del name
    diff, axes, scale, variance = _spread(x, axis, unbiased, "std")
    xp = _xp(x)
    out = xp.sqrt(variance)

    def backward(g):
        return (_restore(g, axes, keepdim, diff.shape) * (diff * scale / out),)

    return apply(xp.asarray(_dropped(out, axes, keepdim)), (x,), backward, "std")


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

    return apply(xp.asarray(out), (x,), backward, "logsumexp")


def cumprod(x, dim=None, dtype=None, name: str | None = None) -> Tensor:
    """Running product along ``dim`` (None: of the flattened tensor); ``dtype`` casts ``x``
    first. The gradient is exact where elements are zero."""
    del name
    x = as_input(x, "cumprod")
    a = x.data if dtype is None else x.data.astype(dtype)
    xp = _xp(x)
    flat = dim is None or a.ndim == 0
    axis = 0 if flat else normalize_axis(dim, a.ndim, "cumprod")
    source = a.reshape(-1) if flat else a
    out = xp.cumprod(source, axis=axis, dtype=source.dtype)  # int32 stays int32
    shape, dt = x.data.shape, x.data.dtype

    def backward(g):
        def rev_cumsum(v):
            return xp.flip(xp.cumsum(xp.flip(v, axis), axis=axis), axis)

        # Before the first zero of a run, d out_i / d a_k = out_i / a_k. At the first zero it
        # is the running product with that zero taken as 1; after it, every term is zero.
        zero = source == 0
        zeros_so_far = xp.cumsum(zero, axis=axis)
        before = zeros_so_far == 0
        first = zero & (zeros_so_far == 1)
        one = xp.ones((), dtype=source.dtype)
        grad = xp.where(before, rev_cumsum(g * out) / xp.where(before, source, one), 0)
        skipped = xp.cumprod(xp.where(first, one, source), axis=axis)
        grad = grad + xp.where(first, rev_cumsum(g * skipped), 0)
        return (grad.reshape(shape).astype(dt, copy=False),)

    return apply(out, (x,), backward, "cumprod")


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
# Tensor methods are attached next to the functions they call (here and in core.manipulation and
# core.logic) rather than in core/tensor.py: that keeps the autograd engine free of imports of
# every op, and it is what Paddle itself does (paddle.tensor attaches its functions to Tensor).
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


# ----- more element-wise math (Paddle's paddle.tensor.math / ops) ---------------------------
# Each derivative is written in terms of the input ``a`` or the output ``out``, whichever is
# cheaper and exact; the formulas are Paddle's (and any calculus text's).

def tan(x) -> Tensor:
    """Tangent, element-wise; d/dx = 1 + tan(x)^2."""
    return _unary(x, "tan", lambda xp, a: xp.tan(a), lambda a, out: 1 + out * out)


def asin(x) -> Tensor:
    """Arcsine, element-wise (NaN outside [-1, 1]); d/dx = 1 / sqrt(1 - x^2)."""
    return _unary(x, "asin", lambda xp, a: xp.arcsin(a),
                  lambda a, out: 1 / _xp_of(a).sqrt(1 - a * a))


def acos(x) -> Tensor:
    """Arccosine, element-wise (NaN outside [-1, 1]); d/dx = -1 / sqrt(1 - x^2)."""
    return _unary(x, "acos", lambda xp, a: xp.arccos(a),
                  lambda a, out: -1 / _xp_of(a).sqrt(1 - a * a))


def atan(x) -> Tensor:
    """Arctangent, element-wise; d/dx = 1 / (1 + x^2)."""
    return _unary(x, "atan", lambda xp, a: xp.arctan(a), lambda a, out: 1 / (1 + a * a))


def sinh(x) -> Tensor:
    """Hyperbolic sine, element-wise; d/dx = cosh(x)."""
    return _unary(x, "sinh", lambda xp, a: xp.sinh(a), lambda a, out: _xp_of(a).cosh(a))


def cosh(x) -> Tensor:
    """Hyperbolic cosine, element-wise; d/dx = sinh(x)."""
    return _unary(x, "cosh", lambda xp, a: xp.cosh(a), lambda a, out: _xp_of(a).sinh(a))


def asinh(x) -> Tensor:
    """Inverse hyperbolic sine, element-wise; d/dx = 1 / sqrt(x^2 + 1)."""
    return _unary(x, "asinh", lambda xp, a: xp.arcsinh(a),
                  lambda a, out: 1 / _xp_of(a).sqrt(a * a + 1))


def acosh(x) -> Tensor:
    """Inverse hyperbolic cosine, element-wise (NaN below 1); d/dx = 1 / sqrt(x^2 - 1)."""
    return _unary(x, "acosh", lambda xp, a: xp.arccosh(a),
                  lambda a, out: 1 / _xp_of(a).sqrt(a * a - 1))


def atanh(x) -> Tensor:
    """Inverse hyperbolic tangent, element-wise (NaN outside [-1, 1]); d/dx = 1 / (1 - x^2)."""
    return _unary(x, "atanh", lambda xp, a: xp.arctanh(a), lambda a, out: 1 / (1 - a * a))


_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def erf(x) -> Tensor:
    """The error function 2/sqrt(pi) * integral_0^x exp(-t^2) dt, element-wise;
    d/dx = 2/sqrt(pi) * exp(-x^2)."""
    return _unary(x, "erf", lambda xp, a: backend.erf(a),
                  lambda a, out: _TWO_OVER_SQRT_PI * _xp_of(a).exp(-a * a))


def erfinv(x) -> Tensor:
    """The inverse of ``erf`` on (-1, 1), element-wise (+-inf at +-1, NaN outside);
    d/dx = sqrt(pi)/2 * exp(erfinv(x)^2)."""
    return _unary(x, "erfinv", _erfinv,
                  lambda a, out: _xp_of(out).exp(out * out) / _TWO_OVER_SQRT_PI)


def _erfinv(xp, a):
    """Giles' single-precision approximation ("Approximating the erfinv function", 2010), then
    Newton steps on erf(y) = a, which make it exact to the dtype's precision. Only ``xp`` and
    ``backend.erf`` are used, so cupy computes it on the device (numpy has no erfinv)."""
    work = a.astype("float64") if a.dtype.kind != "f" else a
    inside = xp.abs(work) < 1
    given, work = work, xp.where(inside, work, 0)  # the edges are set at the end, warning-free
    w = -xp.log((1 - work) * (1 + work))
    small = w < 5
    ws, wl = w - 2.5, xp.sqrt(xp.where(small, 5.0, w)) - 3
    ps = 2.81022636e-08
    for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
              -0.00417768164, 0.246640727, 1.50140941):
        ps = c + ps * ws
    pl = -0.000200214257
    for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
              0.00943887047, 1.00167406, 2.83297682):
        pl = c + pl * wl
    y = xp.where(small, ps, pl) * work
    for _ in range(3):  # each step roughly squares the error (quadratic convergence)
        y = y - (backend.erf(y) - work) / (_TWO_OVER_SQRT_PI * xp.exp(-y * y))
    edge = xp.where(given > 0, xp.inf, -xp.inf)
    y = xp.where(inside, y, xp.where(xp.abs(given) == 1, edge, xp.nan))
    return y.astype(a.dtype if a.dtype.kind == "f" else "float32", copy=False)


def expm1(x) -> Tensor:
    """exp(x) - 1, exact for small x, element-wise; d/dx = exp(x)."""
    return _unary(x, "expm1", lambda xp, a: xp.expm1(a), lambda a, out: out + 1)


def log2(x) -> Tensor:
    """Base-2 logarithm, element-wise; d/dx = 1 / (x ln 2)."""
    return _unary(x, "log2", lambda xp, a: xp.log2(a), lambda a, out: 1 / (a * math.log(2)))


def log10(x) -> Tensor:
    """Base-10 logarithm, element-wise; d/dx = 1 / (x ln 10)."""
    return _unary(x, "log10", lambda xp, a: xp.log10(a), lambda a, out: 1 / (a * math.log(10)))


def trunc(input, name: str | None = None) -> Tensor:  # noqa: A002 - Paddle's argument name
    """x rounded toward zero, element-wise (same dtype); zero gradient, as Paddle's."""
    del name
    return _stepwise(as_input(input, "trunc", "input"), "trunc", lambda xp, a: xp.trunc(a))


def frac(x, name: str | None = None) -> Tensor:
    """The fractional part ``x - trunc(x)``, element-wise (it keeps x's sign); d/dx = 1."""
    del name
    a = as_input(x, "frac").data
    out = a - _xp(x).trunc(a) if a.dtype.kind == "f" else _xp(x).zeros_like(a)
    return apply(out, (x,), lambda g: (g,), "frac")


def logit(x, eps: float | None = None, name: str | None = None) -> Tensor:
    """log(p / (1 - p)) with p = x clipped to [eps, 1 - eps] (no clipping when ``eps`` is
    None). As Paddle's kernel, the gradient 1 / (x (1 - x)) is zero where x lies outside
    [eps, 1 - eps] (with eps None: outside [0, 1])."""
    del name
    a = as_input(x, "logit").data
    if eps is not None and (isinstance(eps, bool) or not isinstance(eps, (int, float))
                            or not 0 <= eps <= 0.5):
        raise ValueError(f"logit: eps must be None or a number in [0, 0.5], got {eps!r}")
    low = 0.0 if eps is None else float(eps)
    xp = _xp(x)
    p = a if eps is None else xp.clip(a, low, 1 - low)
    out = xp.log(p / (1 - p))
    inside = (a >= low) & (a <= 1 - low)

    def backward(g):
        return (xp.where(inside, g / (a * (1 - a)), xp.zeros((), dtype=g.dtype)),)

    return apply(out, (x,), backward, "logit")


def atan2(x, y, name: str | None = None) -> Tensor:
    """arctan(x / y) in the quadrant of the point (y, x), element-wise with broadcasting
    (numpy's ``arctan2(x, y)``: x is the numerator, as in Paddle). d/dx = y / (x^2 + y^2),
    d/dy = -x / (x^2 + y^2)."""
    del name
    x, y = as_input(x, "atan2"), as_input(y, "atan2", "y")
    a, b = x.data, y.data
    xp = _xp(x)
    out = xp.arctan2(a, b)

    def backward(g):
        r2 = a * a + b * b
        return (None if x.stop_gradient else unbroadcast(g * b / r2, a.shape),
                None if y.stop_gradient else unbroadcast(-g * a / r2, b.shape))

    return apply(out, (x, y), backward, "atan2")


def lerp(x, y, weight, name: str | None = None) -> Tensor:
    """x + weight * (y - x), broadcast; ``weight`` a number or a Tensor. Differentiable in
    x, y and a Tensor weight (built from add / multiply, which carry the gradients)."""
    del name
    x, y = as_input(x, "lerp"), as_input(y, "lerp", "y")
    if not isinstance(weight, Tensor):
        if isinstance(weight, bool) or not isinstance(weight, (int, float)):
            raise TypeError(f"lerp: weight must be a number or a Tensor, got {weight!r}")
        weight = Tensor(_xp(x).asarray(weight, dtype=x.dtype))
    return add(x, multiply(weight, subtract(y, x)))


def heaviside(x, y, name: str | None = None) -> Tensor:
    """The Heaviside step: 0 where x < 0, y where x == 0, 1 where x > 0 (broadcast). As
    Paddle's kernel, x gets a zero gradient and y gets the gradient where x == 0."""
    del name
    x, y = as_input(x, "heaviside"), as_input(y, "heaviside", "y")
    a, b = x.data, y.data
    xp = _xp(x)
    zero = a == 0
    out = xp.where(zero, b, (a > 0).astype(xp.result_type(a, b)))

    def backward(g):
        return (None if x.stop_gradient else xp.zeros(a.shape, dtype=a.dtype),
                None if y.stop_gradient else unbroadcast(xp.where(zero, g, 0 * g), b.shape))

    return apply(out, (x, y), backward, "heaviside")


# ----- more reductions -------------------------------------------------------------------------

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

    return apply(xp.asarray(out), (x,), backward, fn)


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


def _to_last(a, axes: tuple):
    """``a`` with ``axes`` moved last and merged into one, plus the kept dimensions."""
    xp = _xp_of(a)
    kept = tuple(n for i, n in enumerate(a.shape) if i not in axes)
    ends = tuple(range(len(kept), a.ndim))
    return xp.moveaxis(a, axes, ends).reshape(kept + (-1,)), kept, ends


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
    outs = []
    for picks in picks_list:
        if len(picks) == 1 and picks[0][1] == 1.0:  # one element: no arithmetic, exact dtype
            outs.append(ranked[..., picks[0][0]].astype(dtype))
        else:
            mixed = 0
            for i, w in picks:  # (this module's ``sum`` is the Tensor reduction)
                mixed = mixed + w * ranked[..., i].astype(dtype)
            outs.append(mixed.astype(dtype))
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
    index, as Paddle: ``(values, indices)``."""
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
    if keepdim:
        index = xp.expand_dims(index, axes[0])
    return values, Tensor(index)


_QUANTILE_METHODS = ("linear", "lower", "higher", "nearest", "midpoint")


def quantile(x, q, axis=None, keepdim: bool = False, interpolation: str = "linear",
             name: str | None = None) -> Tensor:
    """The ``q``-th quantile(s) along ``axis`` (an int or a list; None: all elements). The
    sorted values v_0..v_{n-1} are read at position ``q (n - 1)``: ``linear`` interpolates
    v_lo + (pos - lo)(v_hi - v_lo), ``lower`` / ``higher`` take v_lo / v_hi, ``midpoint``
    their mean, ``nearest`` the nearer (halves away from zero, as paddle.round). A list of q
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
    hi = lo + 1 if lo + 1 < count else lo  # (min, max, sum, abs: the Tensor ops here)
    frac_ = pos - lo
    if method == "lower" or frac_ == 0:
        return [(lo, 1.0)]
    if method == "higher":
        return [(hi, 1.0)]
    if method == "midpoint":
        return [(lo, 0.5), (hi, 0.5)]
    if method == "nearest":
        return [(hi if frac_ >= 0.5 else lo, 1.0)]
    return [(lo, 1.0 - frac_), (hi, frac_)]


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


for _name, _fn in {
    "tan": tan, "asin": asin, "acos": acos, "atan": atan, "sinh": sinh, "cosh": cosh,
    "asinh": asinh, "acosh": acosh, "atanh": atanh, "erf": erf, "erfinv": erfinv,
    "expm1": expm1, "log2": log2, "log10": log10, "trunc": trunc, "frac": frac,
    "logit": logit, "atan2": atan2, "lerp": lerp, "heaviside": heaviside, "amax": amax,
    "amin": amin, "median": median, "quantile": quantile, "nansum": nansum,
    "nanmean": nanmean, "count_nonzero": count_nonzero,
}.items():
    setattr(Tensor, _name, _fn)  # see the note on Tensor methods above
del _name, _fn
__all__ += ["acos", "acosh", "amax", "amin", "asin", "asinh", "atan", "atan2", "atanh",
            "cosh", "count_nonzero", "erf", "erfinv", "expm1", "frac", "heaviside", "lerp",
            "log10", "log2", "logit", "median", "nanmean", "nansum", "quantile", "sinh", "tan",
            "trunc"]
