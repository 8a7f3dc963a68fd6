"""More element-wise math with Paddle 2.x names: trigonometric and hyperbolic functions and their
inverses, ``erf`` / ``erfinv``, ``expm1``, ``log2`` / ``log10``, ``logit``, ``trunc`` / ``frac``,
and the two-input ``atan2``, ``lerp`` and ``heaviside`` (which broadcast).

The common ones (``exp``, ``log``, ``sin``, ``tanh``, ...) and the helpers these are built on
(``_unary`` for a differentiable op, ``_stepwise`` for a zero-gradient one) are in ``core.ops``.
Each derivative is written in terms of the input ``a`` or the output ``out``, whichever is
cheaper and exact; the formulas are Paddle's (and any calculus text's).
"""
from __future__ import annotations

import math

from core import backend
from core.arithmetic import add, multiply, subtract
from core.ops import _stepwise, _unary, _xp, _xp_of, as_input
from core.tensor import Tensor, apply, unbroadcast

__all__ = ["acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cosh", "erf", "erfinv",
           "expm1", "frac", "heaviside", "lerp", "log10", "log2", "logit", "sinh", "tan", "trunc"]


# ----- trigonometric and hyperbolic functions and their inverses --------------------------------

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


# ----- erf / erfinv, expm1, log2 / log10, trunc / frac, logit -----------------------------------

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


# ----- two inputs, broadcast: atan2, lerp, heaviside --------------------------------------------

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


for _name, _fn in {
    "tan": tan, "asin": asin, "acos": acos, "atan": atan, "sinh": sinh, "cosh": cosh,
    "asinh": asinh, "acosh": acosh, "atanh": atanh, "erf": erf, "erfinv": erfinv,
    "expm1": expm1, "log2": log2, "log10": log10, "trunc": trunc, "frac": frac,
    "logit": logit, "atan2": atan2, "lerp": lerp, "heaviside": heaviside,
}.items():
    setattr(Tensor, _name, _fn)  # see the note on Tensor methods at the end of core/ops.py
del _name, _fn
