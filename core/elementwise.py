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

import numpy as np

from core import backend
from core.arithmetic import _negated, add, multiply, remainder, subtract
from core.framework import get_default_dtype
from core.higher_order import captured, needs, sum_to
from core.ops import _stepwise, _unary, _xp, _xp_of, as_input
from core.tensor import Tensor, apply, unbroadcast

__all__ = ["acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cosh", "erf", "erfinv",
           "expm1", "frac", "heaviside", "lerp", "log10", "log2", "logit", "sinh", "tan", "trunc"]


# ----- trigonometric and hyperbolic functions and their inverses --------------------------------

def tan(x, name=None) -> Tensor:
    """Tangent, element-wise; d/dx = 1 + tan(x)^2."""
    return _unary(x, "tan", lambda xp, a: xp.tan(a), lambda a, out: 1 + out * out,
                  grad_fn=_tan_grad)


def _tan_grad(out, g):  # the tensor-level backwards (create_graph): core.tensor.apply
    return (g * (out * out + 1),)


def asin(x, name=None) -> Tensor:
    """Arcsine, element-wise (NaN outside [-1, 1]); d/dx = 1 / sqrt(1 - x^2)."""
    return _unary(x, "asin", lambda xp, a: xp.arcsin(a),
                  lambda a, out: 1 / _xp_of(a).sqrt(1 - a * a), grad_fn=_asin_grad)


def _asin_grad(out, g):
    a = out._parents[0]
    return (g * (1 - a * a).rsqrt(),)


def acos(x, name=None) -> Tensor:
    """Arccosine, element-wise (NaN outside [-1, 1]); d/dx = -1 / sqrt(1 - x^2)."""
    return _unary(x, "acos", lambda xp, a: xp.arccos(a),
                  lambda a, out: -1 / _xp_of(a).sqrt(1 - a * a), grad_fn=_acos_grad)


def _acos_grad(out, g):
    a = out._parents[0]
    return (-(g * (1 - a * a).rsqrt()),)


def atan(x, name=None) -> Tensor:
    """Arctangent, element-wise; d/dx = 1 / (1 + x^2)."""
    return _unary(x, "atan", lambda xp, a: xp.arctan(a), lambda a, out: 1 / (1 + a * a),
                  grad_fn=_atan_grad)


def _atan_grad(out, g):
    a = out._parents[0]
    return (g / (a * a + 1),)


def sinh(x, name=None) -> Tensor:
    """Hyperbolic sine, element-wise; d/dx = cosh(x)."""
    return _unary(x, "sinh", lambda xp, a: xp.sinh(a), lambda a, out: _xp_of(a).cosh(a),
                  grad_fn=_sinh_grad)


def _sinh_grad(out, g):
    return (g * out._parents[0].cosh(),)


def cosh(x, name=None) -> Tensor:
    """Hyperbolic cosine, element-wise; d/dx = sinh(x)."""
    return _unary(x, "cosh", lambda xp, a: xp.cosh(a), lambda a, out: _xp_of(a).sinh(a),
                  grad_fn=_cosh_grad)


def _cosh_grad(out, g):
    return (g * out._parents[0].sinh(),)


def asinh(x, name=None) -> Tensor:
    """Inverse hyperbolic sine, element-wise; d/dx = 1 / sqrt(x^2 + 1)."""
    return _unary(x, "asinh", lambda xp, a: xp.arcsinh(a),
                  lambda a, out: 1 / _xp_of(a).sqrt(a * a + 1), grad_fn=_asinh_grad)


def _asinh_grad(out, g):
    a = out._parents[0]
    return (g * (a * a + 1).rsqrt(),)


def acosh(x, name=None) -> Tensor:
    """Inverse hyperbolic cosine, element-wise (NaN below 1); d/dx = 1 / sqrt(x^2 - 1)."""
    return _unary(x, "acosh", lambda xp, a: xp.arccosh(a), _acosh_derivative,
                  grad_fn=_acosh_grad)


def _acosh_grad(out, g):  # the two roots, as _acosh_derivative (equal for real a >= 1)
    a = out._parents[0]
    return (g * ((a - 1).rsqrt() * (a + 1).rsqrt()),)


def _acosh_derivative(a, out):
    """1 / sqrt(a^2 - 1); for complex a as 1 / (sqrt(a - 1) sqrt(a + 1)), the branch arccosh
    takes (the single root is wrong for Re a < 0)."""
    xp = _xp_of(a)
    if a.dtype.kind == "c":
        return 1 / (xp.sqrt(a - 1) * xp.sqrt(a + 1))
    return 1 / xp.sqrt(a * a - 1)


def atanh(x, name=None) -> Tensor:
    """Inverse hyperbolic tangent, element-wise (NaN outside [-1, 1]); d/dx = 1 / (1 - x^2)."""
    return _unary(x, "atanh", lambda xp, a: xp.arctanh(a), lambda a, out: 1 / (1 - a * a),
                  grad_fn=_atanh_grad)


def _atanh_grad(out, g):
    a = out._parents[0]
    return (g / (1 - a * a),)


# ----- erf / erfinv, expm1, log2 / log10, trunc / frac, logit -----------------------------------

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def erf(x, name=None) -> Tensor:
    """The error function 2/sqrt(pi) * integral_0^x exp(-t^2) dt, element-wise;
    d/dx = 2/sqrt(pi) * exp(-x^2)."""
    return _unary(x, "erf", lambda xp, a: backend.erf(a),
                  lambda a, out: _TWO_OVER_SQRT_PI * _xp_of(a).exp(-a * a), grad_fn=_erf_grad)


def _erf_grad(out, g):  # the tensor-level backward (create_graph): core.tensor.apply
    a = out._parents[0]
    return (g * (_TWO_OVER_SQRT_PI * (-(a * a)).exp()),)


def erfinv(x, name=None) -> Tensor:
    """The inverse of ``erf`` on (-1, 1), element-wise (+-inf at +-1, NaN outside);
    d/dx = sqrt(pi)/2 * exp(erfinv(x)^2)."""
    return _unary(x, "erfinv", _erfinv,
                  lambda a, out: _xp_of(out).exp(out * out) / _TWO_OVER_SQRT_PI,
                  grad_fn=_erfinv_grad)


def _erfinv_grad(out, g):
    return (g * ((out * out).exp() * (1 / _TWO_OVER_SQRT_PI)),)


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


def expm1(x, name=None) -> Tensor:
    """exp(x) - 1, exact for small x, element-wise; d/dx = exp(x)."""
    return _unary(x, "expm1", lambda xp, a: xp.expm1(a), lambda a, out: out + 1,
                  grad_fn=_expm1_grad)


def _expm1_grad(out, g):
    return (g * (out + 1),)


def log2(x, name=None) -> Tensor:
    """Base-2 logarithm, element-wise; d/dx = 1 / (x ln 2)."""
    return _unary(x, "log2", lambda xp, a: xp.log2(a), lambda a, out: 1 / (a * math.log(2)),
                  grad_fn=_log2_grad)


def _log2_grad(out, g):
    return (g / (out._parents[0] * math.log(2)),)


def log10(x, name=None) -> Tensor:
    """Base-10 logarithm, element-wise; d/dx = 1 / (x ln 10)."""
    return _unary(x, "log10", lambda xp, a: xp.log10(a), lambda a, out: 1 / (a * math.log(10)),
                  grad_fn=_log10_grad)


def _log10_grad(out, g):
    return (g / (out._parents[0] * math.log(10)),)


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
    out = _ints_to_float32(xp.log(p / (1 - p)), a)
    inside = (a >= low) & (a <= 1 - low)

    def backward(g):
        return (xp.where(inside, g / (a * (1 - a)), xp.zeros((), dtype=g.dtype)),)

    return apply(out, (x,), backward, "logit", _logit_grad)


def _logit_grad(out, g):
    """The same zero gradient outside [eps, 1 - eps]: there x is replaced by 0.5 (a constant),
    so 1 / (x (1 - x)) stays finite at 0 and 1 and nothing flows back from outside."""
    (inside,) = captured(out, "inside")
    a, mask = out._parents[0], Tensor(inside.astype(g.dtype))
    safe = a * mask + (1 - mask) * 0.5
    return (g * mask / (safe * (1 - safe)),)


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

    return apply(out, (x, y), backward, "atan2", _atan2_grad)


def _atan2_grad(out, g):  # the tensor-level backward (create_graph): core.tensor.apply
    x, y = out._parents
    r2 = x * x + y * y
    return (sum_to(g * y / r2, x.shape) if needs(x) else None,
            sum_to(-g * x / r2, y.shape) if needs(y) else None)


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


# ----- Paddle 3.x element-wise functions: signs, angles, NaN replacement, sinc, stanh, sigmoid,
# two-input hypot / logaddexp / copysign / fmax / fmin / ldexp / nextafter / gcd / lcm, the gamma
# family (lgamma, digamma, polygamma, multigammaln) and the Bessel functions i0 / i0e / i1 / i1e,
# and vander.

def neg(x, name: str | None = None) -> Tensor:
    """Paddle's ``neg(x)`` (alias ``negative``): -x, element-wise; d/dx = -1."""
    del name
    x = as_input(x, "neg")
    return apply(_negated(x.data), (x,), lambda g: (-g,), "neg")


def negative(x, name: str | None = None) -> Tensor:
    """Paddle's ``negative(x)``: ``neg``."""
    del name
    return neg(as_input(x, "negative"))


def positive(x, name: str | None = None) -> Tensor:
    """Paddle's ``positive(x)``: x itself (+x); bool tensors are refused, as Paddle."""
    del name
    x = as_input(x, "positive")
    if x.data.dtype.kind == "b":
        raise TypeError("positive: x must be a numeric tensor, got dtype bool (use "
                        "logical_not / bitwise_not for bool tensors)")
    return x


def sgn(x, name: str | None = None) -> Tensor:
    """Paddle's ``sgn(x)``: the sign (-1, 0, 1) of a real tensor, x / |x| of a complex one;
    zero gradient, as ``sign``."""
    del name
    x = as_input(x, "sgn")
    if x.data.dtype.kind == "c":
        a = x.data
        mag = _xp(x).abs(a)
        return Tensor(_xp(x).where(mag == 0, 0, a / _xp(x).where(mag == 0, 1, mag)))
    return _stepwise(x, "sgn", lambda xp, a: xp.sign(a))


def signbit(x, name: str | None = None) -> Tensor:
    """Paddle's ``signbit(x)``: whether the sign bit is set (true for -0.0 and negatives); a
    bool tensor."""
    del name
    a = as_input(x, "signbit").data
    if a.dtype.kind == "b":
        raise TypeError("signbit: x must be a numeric tensor, got dtype bool")
    return Tensor(_xp(x).asarray(_xp(x).signbit(a)))


def deg2rad(x, name: str | None = None) -> Tensor:
    """Paddle's ``deg2rad(x)``: degrees to radians (x * pi / 180); integers give float32."""
    del name
    return _unary(x, "deg2rad", lambda xp, a: a * (math.pi / 180),
                  lambda a, out: math.pi / 180)


def rad2deg(x, name: str | None = None) -> Tensor:
    """Paddle's ``rad2deg(x)``: radians to degrees (x * 180 / pi); integers give float32."""
    del name
    return _unary(x, "rad2deg", lambda xp, a: a * (180 / math.pi),
                  lambda a, out: 180 / math.pi)


def nan_to_num(x, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None,
               name: str | None = None) -> Tensor:
    """Paddle's ``nan_to_num(x, nan=0.0, posinf=None, neginf=None)``: NaN, +inf and -inf
    replaced by ``nan``, ``posinf`` and ``neginf`` (None: the dtype's largest / lowest
    finite value). The gradient passes where x is finite and is zero where a value was
    replaced."""
    del name
    x = as_input(x, "nan_to_num")
    a = x.data
    xp = _xp(x)
    for arg, v in (("nan", nan), ("posinf", posinf), ("neginf", neginf)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))):
            raise TypeError(f"nan_to_num: {arg} must be a number or None, got {v!r}")
    if a.dtype.kind != "f":
        return apply(a.copy(), (x,), lambda g: (g,), "nan_to_num")
    out = xp.nan_to_num(a, nan=nan, posinf=posinf, neginf=neginf)
    finite = xp.isfinite(a)
    return apply(out, (x,), lambda g: (g * finite,), "nan_to_num")


def sinc(x, name: str | None = None) -> Tensor:
    """Paddle's ``sinc(x)``: sin(pi x) / (pi x), 1 at 0; d/dx = (cos(pi x) - sinc(x)) / x
    (0 at 0)."""
    del name

    def derivative(a, out):
        xp = _xp_of(a)
        safe = xp.where(a == 0, 1, a)
        return xp.where(a == 0, 0, (xp.cos(math.pi * a) - out) / safe)

    return _unary(x, "sinc", lambda xp, a: xp.sinc(a), derivative)


def stanh(x, scale_a: float = 0.67, scale_b: float = 1.7159, name: str | None = None) -> Tensor:
    """Paddle's ``stanh(x, scale_a=0.67, scale_b=1.7159)``: scale_b * tanh(scale_a * x);
    d/dx = scale_a * scale_b * (1 - tanh(scale_a x)^2)."""
    del name
    a_, b_ = float(scale_a), float(scale_b)
    return _unary(x, "stanh", lambda xp, a: b_ * xp.tanh(a_ * a),
                  lambda a, out: a_ * b_ * (1 - (out / b_) ** 2) if b_ else 0 * a)


def sigmoid(x, name: str | None = None) -> Tensor:
    """Paddle's ``Tensor.sigmoid()`` (``nn.functional.sigmoid``): 1 / (1 + exp(-x)), computed
    without overflow; d/dx = out (1 - out)."""
    del name

    def forward(xp, a):
        e = xp.exp(-xp.abs(a))  # never overflows
        return xp.where(a >= 0, 1 / (1 + e), e / (1 + e))

    return _unary(x, "sigmoid", forward, lambda a, out: out * (1 - out),
                  grad_fn=_sigmoid_grad)


def _sigmoid_grad(out, g):  # the tensor-level backward (create_graph): core.tensor.apply
    return (g * out * (1 - out),)


def _pair(x, y, fn: str) -> tuple[Tensor, Tensor]:
    x = as_input(x, fn)
    if not isinstance(y, Tensor):
        if isinstance(y, bool) or not isinstance(y, (int, float)):
            raise TypeError(f"{fn}: 'y' must be a Tensor or a number, got {y!r}")
        y = Tensor(_xp(x).asarray(y, dtype=x.dtype))
    return x, y


def _binary_op(x, y, fn: str, forward, grads=None) -> Tensor:
    """An element-wise op of two broadcast inputs; ``grads(a, b, out, g)`` gives the two
    gradients before unbroadcasting (None: no gradient)."""
    x, y = _pair(x, y, fn)
    a, b = x.data, y.data
    try:
        out = forward(_xp(x), a, b)
    except ValueError:
        raise ValueError(f"{fn}: shapes {x.shape} and {y.shape} do not broadcast") from None
    if grads is None:
        return Tensor(_xp(x).asarray(out))

    def backward(g):
        gx, gy = grads(a, b, out, g)
        return (None if x.stop_gradient else unbroadcast(gx, a.shape).astype(a.dtype, copy=False),
                None if y.stop_gradient else unbroadcast(gy, b.shape).astype(b.dtype, copy=False))

    return apply(out, (x, y), backward, fn)


def hypot(x, y, name: str | None = None) -> Tensor:
    """Paddle's ``hypot(x, y)``: sqrt(x^2 + y^2) without overflow, broadcast;
    d/dx = x / out, d/dy = y / out."""
    del name

    def grads(a, b, out, g):
        safe = _xp_of(out).where(out == 0, 1, out)
        return g * a / safe, g * b / safe

    return _binary_op(x, y, "hypot", lambda xp, a, b: _ints_to_float32(xp.hypot(a, b), a, b),
                      grads)


def logaddexp(x, y, name: str | None = None) -> Tensor:
    """Paddle's ``logaddexp(x, y)``: log(exp(x) + exp(y)) computed stably, broadcast;
    d/dx = exp(x - out), d/dy = exp(y - out)."""
    del name

    def grads(a, b, out, g):
        xp = _xp_of(a)
        return g * xp.exp(a - out), g * xp.exp(b - out)

    return _binary_op(x, y, "logaddexp",
                      lambda xp, a, b: _ints_to_float32(xp.logaddexp(a, b), a, b), grads)


def _ints_to_float32(out, *inputs):
    """Integer inputs give float32, Paddle's default float dtype (paddlepaddle 3.3.1), where
    numpy's float kernels would give float64."""
    if out.dtype == "float64" and all(v.dtype.kind in "iub" for v in inputs):
        return out.astype("float32")
    return out


def copysign(x, y, name: str | None = None) -> Tensor:
    """Paddle's ``copysign(x, y)``: |x| with the sign of y (its sign bit: -0.0 counts as
    negative), broadcast. d/dx = sign(x) * sign(out) (0 where x is 0); y gets no gradient."""
    del name

    def grads(a, b, out, g):
        xp = _xp_of(a)
        return g * xp.where(a == 0, 0, xp.sign(a) * xp.copysign(1, out)), xp.zeros_like(b)

    return _binary_op(x, y, "copysign", _copysign_values, grads)


def _copysign_values(xp, a, b):
    """Integer (and bool) inputs keep their dtype, as Paddle 3.3.1 (numpy's copysign gives
    float64, float16 for bool); the magnitude is taken in the integer dtype, exactly."""
    if a.dtype.kind not in "iub" or b.dtype.kind not in "iub":
        return xp.copysign(a, b)
    dtype = np.result_type(a.dtype, b.dtype)
    if dtype.kind == "b":  # nothing is negative: x itself, broadcast
        return xp.logical_or(a, xp.zeros_like(b))
    magnitude = xp.abs(a).astype(dtype)
    return xp.where(b < 0, -magnitude, magnitude)


def fmax(x, y, name: str | None = None) -> Tensor:
    """Paddle's ``fmax(x, y)``: the element-wise maximum, where a NaN loses to a number
    (NaN only where both are NaN); the gradient goes to the input chosen (x on ties)."""
    del name

    def grads(a, b, out, g):
        xp = _xp_of(a)
        pick_x = (a >= b) | xp.isnan(b)
        return g * pick_x, g * ~pick_x

    return _binary_op(x, y, "fmax", lambda xp, a, b: xp.fmax(a, b), grads)


def fmin(x, y, name: str | None = None) -> Tensor:
    """Paddle's ``fmin(x, y)``: the element-wise minimum, NaN losing to a number, as
    ``fmax``."""
    del name

    def grads(a, b, out, g):
        xp = _xp_of(a)
        pick_x = (a <= b) | xp.isnan(b)
        return g * pick_x, g * ~pick_x

    return _binary_op(x, y, "fmin", lambda xp, a, b: xp.fmin(a, b), grads)


def ldexp(x, y, name: str | None = None) -> Tensor:
    """Paddle's ``ldexp(x, y)``: x * 2**y (broadcast), computed as Paddle 3.3.1 does: both cast to
    float64 when either is float64, else to the default float dtype (float32), so integer, bool
    and float16 inputs give float32; ``y`` may be fractional. d/dx = 2**y, d/dy = out * ln 2."""
    del name
    x = as_input(x, "ldexp")
    if not isinstance(y, Tensor):  # core also takes a number (Paddle asks for a Tensor)
        if isinstance(y, bool) or not isinstance(y, (int, float)):
            raise TypeError(f"ldexp: 'y' must be a Tensor or a number, got {y!r}")
        y = Tensor(_xp(x).asarray(y, dtype="int64" if isinstance(y, int) else
                                  _ldexp_dtype(x.data.dtype, np.dtype(get_default_dtype()))))
    for arg, t in (("x", x), ("y", y)):
        if t.data.dtype.kind == "c":
            raise TypeError(f"ldexp: {arg} must be a real tensor, got dtype {t.data.dtype}")
    dtype = _ldexp_dtype(x.data.dtype, y.data.dtype)

    def powers(xp, b):
        with np.errstate(over="ignore"):  # 2**200 in float32: inf, as Paddle
            return xp.power(xp.asarray(2, dtype=dtype), b.astype(dtype))

    return _binary_op(x, y, "ldexp", lambda xp, a, b: a.astype(dtype) * powers(xp, b),
                      lambda a, b, out, g: (g * powers(_xp_of(b), b), g * out * math.log(2)))


def _ldexp_dtype(*dtypes) -> np.dtype:
    """float64 when an input is float64, else Paddle's default float dtype."""
    return np.dtype("float64" if np.dtype("float64") in dtypes else get_default_dtype())


def nextafter(x, y, name: str | None = None) -> Tensor:
    """Paddle's ``nextafter(x, y)``: the next representable float after x towards y
    (broadcast); no gradient."""
    del name
    return _binary_op(x, y, "nextafter", lambda xp, a, b: xp.nextafter(a, b))


def _gcd_inputs(x, y, fn: str) -> tuple[Tensor, Tensor]:
    """Both integer or both floating tensors (Paddle 3.3.1 refuses to mix them; core also
    takes a mixture of integer dtypes)."""
    x, y = _pair(x, y, fn)
    kinds = []
    for arg, t in (("x", x), ("y", y)):
        if t.data.dtype.kind not in "iuf":
            raise TypeError(f"{fn}: {arg} must be an integer or floating tensor, got dtype "
                            f"{t.data.dtype}")
        kinds.append(t.data.dtype.kind != "f")
    if kinds[0] != kinds[1]:
        arg, other, t, u = ("x", "y", x, y) if kinds[1] else ("y", "x", y, x)
        raise TypeError(f"{fn}: {arg} must be an integer tensor when {other} is one ({other} "
                        f"has dtype {u.data.dtype}), got dtype {t.data.dtype}; integer and "
                        "floating inputs do not mix")
    return x, y


# Paddle's float ``==`` / ``!=`` (phi EqualFunctor): equal when |a - b| < 1e-15
_PADDLE_FLOAT_EQ = 1e-15


def _float_gcd(xp, a, b):
    """Paddle's float gcd: Euclid's loop on |a| and |b| (broadcast) with ``mod``, to the end.
    Returns the gcd and the coefficients ``ca``, ``cb`` with gcd = ca |a| + cb |b| (the
    integer multiples each remainder step takes), from which Paddle's gradient follows.
    As Paddle, "y != 0" is its float comparison, |y| >= 1e-15 (``_PADDLE_FLOAT_EQ``): a smaller
    remainder ends the loop. Where Paddle's loop never ends (NaN reaches it: a NaN, or an
    infinity against a nonzero number) the gcd is NaN."""
    dtype = np.result_type(a.dtype, b.dtype)
    a, b = xp.broadcast_arrays(a.astype(dtype), b.astype(dtype))
    x, y = xp.abs(a), xp.abs(b)
    cx, cy = xp.ones_like(x), xp.zeros_like(x)  # x = cx |a| + dx |b|, y = cy |a| + dy |b|
    dx, dy = xp.zeros_like(x), xp.ones_like(x)
    with np.errstate(invalid="ignore", divide="ignore"):
        while bool(xp.any(~(xp.abs(y) < _PADDLE_FLOAT_EQ) & ~xp.isnan(y))):
            step = ~(xp.abs(y) < _PADDLE_FLOAT_EQ)  # NaN included, as Paddle's
            safe = xp.where(step, y, 1)
            q = xp.floor(x / safe)
            x, y = xp.where(step, y, x), xp.where(step, xp.fmod(x, safe), 0)
            cx, cy = xp.where(step, cy, cx), xp.where(step, cx - q * cy, 0)
            dx, dy = xp.where(step, dy, dx), xp.where(step, dx - q * dy, 0)
            swap = x < y  # keep x >= y, as Paddle's loop body
            x, y = xp.where(swap, y, x), xp.where(swap, x, y)
            cx, cy = xp.where(swap, cy, cx), xp.where(swap, cx, cy)
            dx, dy = xp.where(swap, dy, dx), xp.where(swap, dx, dy)
    # the gradient through |a| is sign(a); at an infinite or NaN input Paddle's is NaN
    # (a zero cotangent times an infinite quotient in its mod's backward)
    return (xp.where(xp.isnan(y), xp.nan, x), xp.where(xp.isfinite(a), cx * xp.sign(a), xp.nan),
            xp.where(xp.isfinite(b), dx * xp.sign(b), xp.nan))


def gcd(x, y, name: str | None = None) -> Tensor:
    """Paddle's ``gcd(x, y)``: the greatest common divisor of |x| and |y| (broadcast; gcd(0, 0)
    = 0). Integer tensors give the exact gcd. Floating tensors run Paddle 3.3.1's Euclid loop
    with ``mod``, so non-integers have one too (gcd(2.5, 1.0) = 0.5), a remainder under 1e-15
    counts as 0 (Paddle's float ``!=``), gcd(inf, 0) = inf and the result is NaN where
    Paddle's loop would never end (a NaN, or an infinity against a nonzero number). Float
    gcd has Paddle's gradient: gcd = cx |x| + cy |y| for the integer multiples Euclid's
    steps take, d/dx = cx sign(x), d/dy = cy sign(y)."""
    del name
    x, y = _gcd_inputs(x, y, "gcd")
    if x.data.dtype.kind != "f":
        return _binary_op(x, y, "gcd", lambda xp, a, b: xp.gcd(a, b))
    try:
        out, ca, cb = _float_gcd(_xp(x), x.data, y.data)
    except ValueError:
        raise ValueError(f"gcd: shapes {x.shape} and {y.shape} do not broadcast") from None
    shapes = x.data.shape, y.data.shape

    def backward(g):
        return (None if x.stop_gradient else unbroadcast(g * ca, shapes[0]).astype(
                    x.data.dtype, copy=False),
                None if y.stop_gradient else unbroadcast(g * cb, shapes[1]).astype(
                    y.data.dtype, copy=False))

    return apply(out, (x, y), backward, "gcd")


def lcm(x, y, name: str | None = None) -> Tensor:
    """Paddle's ``lcm(x, y)``: the least common multiple of |x| and |y| (broadcast; 0 when
    either is 0). Floating tensors follow Paddle 3.3.1's formula |x * y| // gcd(x, y) (so
    lcm(7.5, 2.5) = 7.0, and an overflowing product gives NaN); no gradient, as Paddle."""
    del name
    x, y = _gcd_inputs(x, y, "lcm")
    if x.data.dtype.kind != "f":
        return _binary_op(x, y, "lcm", lambda xp, a, b: xp.lcm(a, b))
    xp = _xp(x)
    try:
        d = _float_gcd(xp, x.data, y.data)[0]
    except ValueError:
        raise ValueError(f"lcm: shapes {x.shape} and {y.shape} do not broadcast") from None
    zero = xp.abs(d) < _PADDLE_FLOAT_EQ  # Paddle's equal(d, 0)
    with np.errstate(invalid="ignore", over="ignore"):
        product = xp.abs(x.data.astype(d.dtype) * y.data.astype(d.dtype))
        quotient = backend.floor_divide(product, xp.where(zero, 1, d))  # inf // d: NaN
        return Tensor(xp.where(zero, 0, quotient).astype(d.dtype, copy=False))


def frexp(x, name: str | None = None) -> tuple[Tensor, Tensor]:
    """Paddle's ``frexp(x)``: (mantissa, exponent) with x = mantissa * 2**exponent and
    |mantissa| in [0.5, 1); both of x's float dtype, as Paddle. No gradient."""
    del name
    a = as_input(x, "frexp").data
    if a.dtype.kind != "f":
        raise TypeError(f"frexp: x must be a floating tensor, got dtype {a.dtype}")
    mantissa, exponent = _xp(x).frexp(a)
    return Tensor(mantissa), Tensor(exponent.astype(a.dtype))


# The gamma and Bessel functions: scipy.special's (cupyx.scipy.special's on a GPU); without scipy
# on the host, lgamma, digamma (with its gradient, trigamma) and i0 still work: math.lgamma per
# element, series, numpy's i0. core.distribution's densities and KL divergences rely on that.

def _special(name: str, a):
    if backend.array_module(a) is not np:
        import cupyx.scipy.special  # noqa: PLC0415 - ships with cupy

        return getattr(cupyx.scipy.special, name)
    try:
        import scipy.special  # noqa: PLC0415 - optional, heavy import
    except ImportError:
        fallback = _HOST_FALLBACKS.get(name)
        if fallback is None:
            raise ImportError(f"core.{name} needs scipy on the CPU: pip install scipy") from None
        return fallback
    return getattr(scipy.special, name)


def _shifted(a, term):
    """(xp, a as float64, reflect = a < 0.5, z, shift): z is a (or 1 - a below 0.5) raised by
    the recurrence until z >= 10, where the asymptotic series are exact to 1e-16, and shift
    sums ``term(z)`` over the steps taken (digamma: -1/z, trigamma: 1/z^2)."""
    xp = _xp_of(a)
    a = a.astype("float64")
    reflect = a < 0.5
    z = xp.where(reflect, 1 - a, a)
    shift = xp.zeros_like(z)
    for _ in range(10):
        small = z < 10
        shift = shift + xp.where(small, term(z), 0)
        z = xp.where(small, z + 1, z)
    return xp, a, reflect, z, shift


def _digamma_series(a):
    """digamma: the recurrence, then the asymptotic series (reflection below 0.5)."""
    xp, a, reflect, z, shift = _shifted(a, lambda z: -1 / z)
    inv = 1 / (z * z)
    series = xp.log(z) - 0.5 / z - inv * (1 / 12 - inv * (1 / 120 - inv * (1 / 252 - inv * (
        1 / 240 - inv / 132))))
    out = series + shift
    return xp.where(reflect, out - math.pi / xp.tan(math.pi * a), out)


def _trigamma_series(a):
    """psi'(x): the recurrence, then the asymptotic series in 1/x^2; reflection
    psi'(1 - x) + psi'(x) = pi^2 / sin^2(pi x) below 0.5."""
    xp, a, reflect, z, shift = _shifted(a, lambda z: 1 / (z * z))
    inv = 1 / z
    inv2 = inv * inv
    total, power = inv + 0.5 * inv2, inv2 * inv
    for coef in (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6):  # B_2k
        total = total + coef * power
        power = power * inv2
    out = total + shift
    return xp.where(reflect, (math.pi / xp.sin(math.pi * a)) ** 2 - out, out)


def _polygamma_fallback(n: int, a):
    if n != 1:
        raise ImportError(f"core.polygamma with n={n} needs scipy on the CPU: pip install scipy")
    return _trigamma_series(a)


_HOST_FALLBACKS = {
    "gammaln": np.vectorize(math.lgamma, otypes=["float64"]),
    "digamma": _digamma_series,
    "polygamma": _polygamma_fallback,  # n = 1: digamma's gradient
    "i0": np.i0,
}


def _polygamma(n: int, a):
    """polygamma(n, a) in a's dtype; n as an array of a's module (cupyx's polygamma takes no
    Python int)."""
    return _special("polygamma", a)(backend.array_module(a).asarray(n), a).astype(a.dtype,
                                                                               copy=False)


def _special_unary(x, fn: str, name: str, derivative, grad_fn=None) -> Tensor:
    return _unary(x, fn, lambda xp, a: _special(name, a)(a).astype(a.dtype, copy=False),
                  derivative, grad_fn=grad_fn)


def lgamma(x, name: str | None = None) -> Tensor:
    """Paddle's ``lgamma(x)`` (alias ``gammaln``): log|Gamma(x)|; d/dx = digamma(x)."""
    del name
    return _unary(x, "lgamma", _lgamma_values,
                  lambda a, out: _special("digamma", a)(a).astype(a.dtype), grad_fn=_lgamma_grad)


def _lgamma_values(xp, a):
    # scipy's gammaln(-inf) is -inf; |Gamma| grows without bound there, so Paddle 3.3.1 and
    # torch give +inf
    out = _special("gammaln", a)(a).astype(a.dtype, copy=False)
    return xp.where(xp.isneginf(a), xp.asarray(xp.inf, dtype=out.dtype), out)


def _lgamma_grad(out, g):  # the tensor-level backwards (create_graph): core.tensor.apply
    return (g * digamma(out._parents[0]),)


def gammaln(x, name: str | None = None) -> Tensor:
    """Paddle's ``gammaln(x)``: ``lgamma``."""
    del name
    return lgamma(x)


def digamma(x, name: str | None = None) -> Tensor:
    """Paddle's ``digamma(x)``: d/dx log Gamma(x); its derivative is polygamma(1, x)."""
    del name
    return _special_unary(x, "digamma", "digamma",
                          lambda a, out: _polygamma(1, a), _digamma_grad)


def _digamma_grad(out, g):
    return (g * polygamma(out._parents[0], 1),)


def polygamma(x, n: int, name: str | None = None) -> Tensor:
    """Paddle's ``polygamma(x, n)``: the n-th derivative of digamma (n = 0: digamma);
    d/dx = polygamma(x, n + 1)."""
    del name
    if isinstance(n, bool) or not hasattr(n, "__index__") or n < 0:
        raise ValueError(f"polygamma: n must be a non-negative int, got {n!r}")
    n = int(n)
    if n == 0:
        return digamma(x)
    return _unary(x, "polygamma",
                  lambda xp, a: _polygamma(n, a), lambda a, out: _polygamma(n + 1, a),
                  grad_fn=lambda out, g: (g * polygamma(out._parents[0], n + 1),))


def multigammaln(x, p: int, name: str | None = None) -> Tensor:
    """Paddle's ``multigammaln(x, p)``: the log of the multivariate gamma function,
    p (p - 1) / 4 log(pi) + sum_{j<p} lgamma(x - j / 2) (built from lgamma and add)."""
    del name
    x = as_input(x, "multigammaln")
    if isinstance(p, bool) or not hasattr(p, "__index__") or p < 1:
        raise ValueError(f"multigammaln: p must be a positive int, got {p!r}")
    out = lgamma(x)
    for j in range(1, int(p)):
        out = add(out, lgamma(subtract(x, j / 2)))
    return add(out, p * (p - 1) / 4 * math.log(math.pi))


def i0(x, name: str | None = None) -> Tensor:
    """Paddle's ``i0(x)``: the modified Bessel function of order 0; d/dx = i1(x)."""
    del name
    return _special_unary(x, "i0", "i0", lambda a, out: _special("i1", a)(a).astype(a.dtype))


def i0e(x, name: str | None = None) -> Tensor:
    """Paddle's ``i0e(x)``: exp(-|x|) i0(x); d/dx = i1e(x) - sign(x) i0e(x)."""
    del name
    return _special_unary(x, "i0e", "i0e", lambda a, out: (
        _special("i1e", a)(a) - _xp_of(a).sign(a) * out).astype(a.dtype))


def i1(x, name: str | None = None) -> Tensor:
    """Paddle's ``i1(x)``: the modified Bessel function of order 1; d/dx = i0(x) - i1(x) / x
    (1/2 at 0)."""
    del name

    def derivative(a, out):
        xp = _xp_of(a)
        return xp.where(a == 0, 0.5, _special("i0", a)(a) - out / xp.where(a == 0, 1, a))

    return _special_unary(x, "i1", "i1", derivative)


def i1e(x, name: str | None = None) -> Tensor:
    """Paddle's ``i1e(x)``: exp(-|x|) i1(x); d/dx = i0e(x) - i1e(x) (sign(x) + 1 / x) (1/2
    at 0)."""
    del name

    def derivative(a, out):
        xp = _xp_of(a)
        safe = xp.where(a == 0, 1, a)
        return xp.where(a == 0, 0.5, _special("i0e", a)(a) - out * (xp.sign(a) + 1 / safe))

    return _special_unary(x, "i1e", "i1e", derivative)


def vander(x, n: int | None = None, increasing: bool = False, name: str | None = None) -> Tensor:
    """Paddle's ``vander(x, n=None, increasing=False)``: the Vandermonde matrix of the 1-D
    ``x``: column j is x**(n - 1 - j) (``increasing``: x**j); n defaults to len(x).
    Differentiable in x."""
    del name
    x = as_input(x, "vander")
    if x.ndim != 1:
        raise ValueError(f"vander: x must be 1-D, got shape {x.shape}")
    count = x.shape[0] if n is None else n
    if isinstance(count, bool) or not hasattr(count, "__index__") or count < 0:
        raise ValueError(f"vander: n must be a non-negative int or None, got {n!r}")
    xp = _xp(x)
    a = x.data
    powers = xp.arange(int(count))
    if not increasing:
        powers = powers[::-1]
    out = a[:, None] ** powers[None, :].astype(a.dtype)
    if a.dtype.kind != "f":
        return Tensor(out)

    def backward(g):
        lower = a[:, None] ** xp.maximum(powers - 1, 0)[None, :].astype(a.dtype)
        return ((g * powers[None, :] * lower).sum(axis=1),)

    return apply(out, (x,), backward, "vander")


__all__ += ["copysign", "deg2rad", "digamma", "fmax", "fmin", "frexp", "gammaln", "gcd",
            "hypot", "i0", "i0e", "i1", "i1e", "lcm", "ldexp", "lgamma", "logaddexp",
            "multigammaln", "nan_to_num", "neg", "negative", "nextafter", "polygamma",
            "positive", "rad2deg", "sgn", "signbit", "sinc", "stanh", "vander"]

for _name, _fn in {
    "neg": neg, "sgn": sgn, "signbit": signbit, "deg2rad": deg2rad, "rad2deg": rad2deg,
    "nan_to_num": nan_to_num, "sinc": sinc, "stanh": stanh, "sigmoid": sigmoid,
    "hypot": hypot, "logaddexp": logaddexp, "copysign": copysign, "fmax": fmax, "fmin": fmin,
    "ldexp": ldexp, "nextafter": nextafter, "gcd": gcd, "lcm": lcm, "frexp": frexp,
    "lgamma": lgamma, "gammaln": gammaln, "digamma": digamma, "polygamma": polygamma,
    "multigammaln": multigammaln, "i0": i0, "i0e": i0e, "i1": i1, "i1e": i1e, "vander": vander,
    "floor_mod": remainder,  # Paddle's alias of remainder / mod
}.items():
    setattr(Tensor, _name, _fn)  # see the note on Tensor methods at the end of core/ops.py
del _name, _fn


# ----- Paddle 3's regularised incomplete gamma functions: gammainc P(x, y) and gammaincc
# Q(x, y) = 1 - P(x, y), x the shape parameter and y the integration limit (Paddle's and
# scipy's order). scipy.special's (cupyx's on a GPU); without scipy on the host, the series
# for P and the continued fraction for Q (Numerical Recipes' gser / gcf, vectorised).

_TINY = 1e-300  # Lentz's floor for the continued fraction's vanishing denominators


def _gamma_prefix(a, x, lgamma_a):
    """x**a e**-x / Gamma(a), in float64, without overflow (0 at x = 0 for a > 0)."""
    xp = _xp_of(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_x = xp.where(x > 0, xp.log(xp.where(x > 0, x, 1)), -xp.inf)
        return xp.exp(xp.where(a == 0, 0, a * log_x) - x - lgamma_a)


def _gammaincc_fallback(a, x):
    """Q(a, x) on the host without scipy: 1 - the series of P where x < a + 1, else Lentz's
    continued fraction of Q; each converges there in at most a few hundred terms."""
    a, x = np.broadcast_arrays(np.asarray(a, dtype=np.float64), np.asarray(x, dtype=np.float64))
    lgamma_a = np.vectorize(math.lgamma, otypes=["float64"])(np.where(a > 0, a, 1))
    prefix = _gamma_prefix(a, x, lgamma_a)
    series = x < a + 1
    # the series: P = prefix * sum_n x^n / (a (a + 1) ... (a + n))
    safe_a = np.where(a > 0, a, 1)
    term = total = 1 / safe_a
    ap = safe_a.copy()
    for _ in range(2000):
        ap = ap + 1
        term = term * x / ap
        total = total + term
        if np.all(~series | (np.abs(term) < np.abs(total) * 1e-17)):
            break
    lower = 1 - prefix * total
    # the continued fraction (modified Lentz): Q = prefix / (x + 1 - a - 1 (1 - a) / (x + 3 - a
    # - ...))
    b = x + 1 - a
    c = np.full_like(b, 1 / _TINY)
    d = 1 / np.where(np.abs(b) < _TINY, _TINY, b)
    h = d.copy()
    for i in range(1, 2000):
        an = -i * (i - a)
        b = b + 2
        d = an * d + b
        d = 1 / np.where(np.abs(d) < _TINY, _TINY, d)
        c = b + an / np.where(np.abs(c) < _TINY, _TINY, c)
        step = d * c
        h = h * step
        if np.all(series | (np.abs(step - 1) < 1e-16)):
            break
    with np.errstate(invalid="ignore"):
        out = np.where(series, lower, prefix * h)
    out = np.where(x == 0, 1.0, np.where(a == 0, 0.0, out))  # the limits scipy gives
    undefined = np.isnan(a) | np.isnan(x) | (a == 0) & (x == 0)  # scipy: nan at (0, 0)
    return np.where(undefined, np.nan, np.clip(out, 0, 1))


def _gammainc_fallback(a, x):
    return 1 - _gammaincc_fallback(a, x)


_HOST_FALLBACKS.update({"gammaincc": _gammaincc_fallback, "gammainc": _gammainc_fallback})


def _incomplete_gamma(x, y, fn: str, sign: int) -> Tensor:
    """P (``sign`` 1) or Q (-1) of the shape ``x`` and the limit ``y``, broadcast;
    differentiable in y: dP/dy = -dQ/dy = y**(x - 1) e**-y / Gamma(x). Paddle (and torch)
    give the shape parameter x no gradient (it has no closed form), nor does core."""
    x = as_input(x, fn)
    y = as_input(y, fn, "y")
    for arg, t in (("x", x), ("y", y)):
        if t.data.dtype.kind != "f":
            raise TypeError(f"{fn}: '{arg}' must be a float32 or float64 Tensor, got dtype "
                            f"{t.data.dtype}")
        if t.data.size and bool((t.data < 0).any()):  # Paddle checks both too
            raise ValueError(f"{fn}: every value of '{arg}' must be >= 0, got a minimum of "
                             f"{float(t.data.min())}")
    a, b = x.data, y.data
    try:
        shape = np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise ValueError(f"{fn}: x of shape {x.shape} and y of shape {y.shape} do not "
                         "broadcast") from None
    dtype = np.result_type(a.dtype, b.dtype)
    xp = _xp(x)
    out = xp.asarray(_special(fn, a)(a, b)).astype(dtype, copy=False).reshape(shape)

    def backward(g):
        a64, b64 = a.astype("float64"), b.astype("float64")
        lgamma_a = _special("gammaln", a64)(xp.where(a64 > 0, a64, 1))
        with np.errstate(divide="ignore", invalid="ignore"):
            log_b = xp.where(b64 > 0, xp.log(xp.where(b64 > 0, b64, 1)), -xp.inf)
            power = xp.where(a64 == 1, 0, (a64 - 1) * log_b)
            density = xp.exp(power - b64 - lgamma_a)
        # x = 0: P(0, y) is the constant 1 for y > 0 (derivative 0; Paddle's exp(... -
        # lgamma(0)) is 0 too) and NaN at y = 0, as the value; lgamma_a above used 1 there.
        density = xp.where(a64 > 0, density, xp.where(b64 > 0, 0.0, xp.nan))
        return (None, unbroadcast(sign * g * density.astype(dtype), b.shape).astype(b.dtype))

    return apply(out, (x, y), backward, fn)


def gammainc(x, y, name: str | None = None) -> Tensor:
    """Paddle's ``gammainc(x, y)``: the regularised lower incomplete gamma function
    P(x, y) = 1 / Gamma(x) * integral_0^y t^(x-1) e^-t dt, for x >= 0 and y >= 0 (float
    Tensors that broadcast); differentiable in y only, as in Paddle."""
    del name
    return _incomplete_gamma(x, y, "gammainc", 1)


def gammaincc(x, y, name: str | None = None) -> Tensor:
    """Paddle's ``gammaincc(x, y)``: the regularised upper incomplete gamma function
    Q(x, y) = 1 - P(x, y) = 1 / Gamma(x) * integral_y^inf t^(x-1) e^-t dt, for x >= 0 and
    y >= 0; differentiable in y only, as in Paddle."""
    del name
    return _incomplete_gamma(x, y, "gammaincc", -1)


__all__ += ["gammainc", "gammaincc"]
Tensor.gammainc, Tensor.gammaincc = gammainc, gammaincc  # as the functions above (core/ops.py)
