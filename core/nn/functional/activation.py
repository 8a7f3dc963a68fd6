"""Activation functions (``paddle.nn.functional`` names), each one fused op with a cheap backward.

Every backward reuses the forward output instead of recomputing from the input: ReLU needs only
the sign of its output, sigmoid and tanh their output, softmax its probabilities.

Integer (and bool) input follows Paddle per function: sigmoid and tanh compute it in float32
(Paddle 3 autocasts it); every other activation raises a TypeError naming itself and the dtype,
as Paddle's float-only kernels fail (softmax and log_softmax take ``dtype=`` to cast first).
"""
from __future__ import annotations

import functools
import math

import numpy as np

from core import autocast, backend
from core.higher_order import captured, needs, sum_to
from core.nn.functional._parallel import recycled_like
from core.nn.functional._sums import row_sums
from core.ops import check_scalar_axis
from core.row_blocks import as_rows, for_blocks
from core.tensor import Tensor, apply, unbroadcast


def relu(x: Tensor, name: str | None = None) -> Tensor:
    """max(x, 0); the gradient passes where the output is positive (one mask multiply)."""
    del name
    _floating(x, "relu")
    out = backend.kernels(x.data).relu(x.data, recycled_like(x.data))

    def backward(g):
        if _premasked.pop(id(g), None) is g:
            return (g,)  # a max-pool applied this ReLU's mask already (see relu_masked)
        # One fused pass on either backend, into a reused array of g's layout.
        return (backend.kernels(g).relu_grad(g, out, recycled_like(g)),)

    return apply(out, (x,), backward, "relu", _relu_grad)


def _relu_grad(out, g):  # the tensor-level backwards (create_graph): core.tensor.apply
    return (g * Tensor((out.data > 0).astype(g.dtype)),)


# Gradients that are already zero wherever their ReLU's output is: id -> the array itself (the
# identity check makes a reused id harmless). Entries live from a max-pool's backward to its
# ReLU's, a moment later; the bound only matters if a backward pass stops in between.
_premasked: dict = {}
_PREMASKED_MAX = 8


def relu_masked(x: Tensor) -> bool:
    """Whether an op consuming ``x`` may apply ReLU's mask to its own, smaller gradient and hand
    it over with ``mark_relu_masked``: ``x`` is a recorded ReLU output that no gradient hook
    watches (a hook must see the true gradient of ``x``, unmasked).

    Why: max-pooling follows ReLU in most CNNs. The pool's gradient is non-zero only at each
    window's maximum, where ReLU's mask equals ``pooled > 0``; masking the pooled gradient (a
    quarter of the size for 2x2 windows) spares ReLU's backward a pass over its whole output.
    """
    return x._op == "relu" and not x._hooks


def mark_relu_masked(grad) -> None:
    """Record ``grad`` (the exact object handed to autograd) as masked for the ReLU it goes to.

    When ``x`` has other consumers, autograd sums their gradients into a new array, which is
    not marked, so ReLU masks the sum as usual (masking twice changes nothing).
    """
    if len(_premasked) >= _PREMASKED_MAX:
        _premasked.pop(next(iter(_premasked)))
    _premasked[id(grad)] = grad


def _floating(x: Tensor, fn: str) -> None:
    """A TypeError naming ``fn`` for an integer or bool tensor: Paddle registers these
    activations' kernels for floating types only (float32/float64 on CPU), so Paddle fails on
    such input too, and numpy would otherwise compute in float64 (or fail half-way with a
    casting error). Non-tensors pass through to the op's own "use core.to_tensor" error."""
    if isinstance(x, Tensor) and x.data.dtype.kind in "iub":
        raise TypeError(f"{fn}: 'x' must be a floating tensor (float32 or float64, as Paddle's "
                        f"{fn} kernel), got dtype {x.data.dtype}; cast it first, e.g. "
                        "x.astype('float32')")


def _autocast(x: Tensor):
    """The array of ``x``, integers and bools as float32: Paddle 3's sigmoid and tanh
    autocast integer input to float32 (numpy would give float64, which then spreads through
    a float32 model), as core's element-wise math does (core.ops._unary)."""
    a = x.data
    if isinstance(x, Tensor) and a.dtype.kind in "iub":
        return a.astype("float32")
    return a


def sigmoid(x: Tensor, name: str | None = None) -> Tensor:
    """1 / (1 + exp(-x)), computed as (tanh(x/2) + 1) / 2, which never overflows. Integer
    input gives float32, as in Paddle 3."""
    del name
    a = _autocast(x)
    xp = backend.array_module(a)
    out = xp.tanh(a * 0.5)
    out += 1
    out *= 0.5
    return apply(out, (x,), lambda g: (g * out * (1 - out),), "sigmoid", _sigmoid_grad)


def _sigmoid_grad(out, g):
    return (g * out * (1 - out),)


def tanh(x: Tensor, name: str | None = None) -> Tensor:
    """Hyperbolic tangent; d/dx = 1 - tanh(x)^2. Integer input gives float32, as in
    Paddle 3."""
    del name
    a = _autocast(x)
    xp = backend.array_module(a)
    out = xp.tanh(a)
    return apply(out, (x,), lambda g: (g * (1 - out * out),), "tanh", _tanh_grad)


def _tanh_grad(out, g):
    return (g * (1 - out * out),)


def _check_axis(x: Tensor, axis: int, fn: str) -> int:
    """``axis`` as a non-negative int, or a clear error."""
    if not isinstance(axis, int) or not -x.ndim <= axis < x.ndim:
        raise ValueError(f"{fn}: axis={axis!r} is out of range for an input with {x.ndim} "
                         f"dimension(s); use an integer in [{-x.ndim}, {x.ndim - 1}].")
    return axis % x.ndim


def _cast(x: Tensor, dtype) -> Tensor:
    return x if dtype is None or x.dtype == dtype else x.astype(dtype)


def softmax(x: Tensor, axis: int = -1, dtype=None, name: str | None = None) -> Tensor:
    """exp(x) / sum(exp(x)) along ``axis``, shifted by the maximum so exp never overflows.
    Along the last axis (attention's scores) it runs over blocks of rows on core's threads
    (core.row_blocks)."""
    del name
    x = _cast(x, dtype)
    if autocast.active:  # inside paddle.amp.auto_cast: black-listed, float32 inputs
        (x,) = autocast.cast_inputs("softmax", x)
    _floating(x, "softmax")
    if x.ndim == 0:  # Paddle: axis 0 or -1 of a 0-D input is a row of one element (1.0)
        check_scalar_axis(axis, "softmax")
        return softmax(x.reshape([1])).reshape([])
    axis = _check_axis(x, axis, "softmax")
    xp, data = backend.array_module(x.data), x.data
    last = axis == data.ndim - 1
    rows = as_rows(data) if last else data
    along = 1 if last else axis  # the axis of ``rows``: a [rows, last axis] view's is 1
    out = xp.empty_like(rows)
    _by_blocks(rows, last, passes=5, fn=lambda s: _softmax_into(xp, rows[s], out[s], along))

    def backward(g):
        grad = as_rows(g) if last else g
        d = xp.empty_like(rows)
        _by_blocks(rows, last, passes=5,
                   fn=lambda s: _softmax_grad_into(xp, grad[s], out[s], d[s], along))
        return (d.reshape(data.shape),)

    return apply(out.reshape(data.shape), (x,), backward, "softmax",
                 lambda out, g: (out * (g - (g * out).sum(axis=axis, keepdim=True)),))


def _by_blocks(rows, by_rows: bool, passes: float, fn) -> None:
    """``fn(slice)`` over blocks of rows (core.row_blocks) or, with ``by_rows`` False, once
    over everything."""
    if by_rows:
        for_blocks(rows, lambda i, j: fn(slice(i, j)), passes=passes)
    else:
        fn(slice(None))


def _softmax_into(xp, x, out, axis: int) -> None:
    rows = x.ndim == 2 and axis == 1  # a block of the row path: the backend picks the shift
    xp.subtract(x, backend.kernels(x).exp_shift(x) if rows else x.max(axis=axis, keepdims=True),
                out=out)
    xp.exp(out, out=out)
    out /= _sum_along(xp, out, axis)


def _softmax_grad_into(xp, g, p, d, axis: int) -> None:
    """The Jacobian-vector product of softmax: d = p * (g - <g, p>)."""
    xp.multiply(g, p, out=d)
    xp.subtract(g, _sum_along(xp, d, axis), out=d)
    d *= p


def _sum_along(xp, a, axis: int):
    """``a.sum(axis, keepdims=True)``; along the last axis of a 2-D block as a GEMV, since
    numpy's reduction over short rows (attention's 64 keys) is 10x slower than BLAS's."""
    if a.ndim != 2 or axis != 1 or a.size < _GEMV_MIN:
        return a.sum(axis=axis, keepdims=True)
    return row_sums(xp, a)[:, None]


_GEMV_MIN = 1 << 12  # elements; below, making the vector of ones costs more than it saves


def log_softmax(x: Tensor, axis: int = -1, dtype=None, name: str | None = None) -> Tensor:
    """x - logsumexp(x) along ``axis``, with the max-subtraction trick."""
    del name
    x = _cast(x, dtype)
    if autocast.active:  # inside paddle.amp.auto_cast: black-listed, float32 inputs
        (x,) = autocast.cast_inputs("log_softmax", x)
    _floating(x, "log_softmax")
    if x.ndim == 0:  # Paddle: axis 0 or -1 of a 0-D input is a row of one element (0.0)
        check_scalar_axis(axis, "log_softmax")
        return log_softmax(x.reshape([1])).reshape([])
    axis = _check_axis(x, axis, "log_softmax")
    xp = backend.array_module(x.data)
    shifted = x.data - x.data.max(axis=axis, keepdims=True)
    out = shifted - xp.log(xp.exp(shifted).sum(axis=axis, keepdims=True))

    def backward(g):
        return (g - xp.exp(out) * g.sum(axis=axis, keepdims=True),)

    return apply(out, (x,), backward, "log_softmax",
                 lambda out, g: (g - out.exp() * g.sum(axis=axis, keepdim=True),))


# ----- Paddle's other activations: each one fused op, with its derivative from saved arrays ----
def _elementwise(x: Tensor, op: str, forward, derivative, grad_fn=None) -> Tensor:
    """``forward(xp, a)`` -> output; ``derivative(xp, a, out)`` -> d out / d a; ``grad_fn``
    the tensor-level backward for create_graph (core.tensor.apply)."""
    xp = backend.array_module(x.data)
    a = x.data
    out = forward(xp, a)
    return apply(out, (x,), lambda g: (g * derivative(xp, a, out),), op, grad_fn)


def _mask(out: Tensor, mask) -> Tensor:
    """A boolean array as a constant Tensor of ``out``'s dtype (a piecewise derivative's
    branch), for the tensor-level backwards."""
    return Tensor(mask.astype(out.dtype))


def _gelu_approximate(approximate) -> bool:
    """gelu's ``approximate`` as a bool: Paddle 3 takes True/False or "tanh"/"none" (a string
    such as "none" must not count as True merely for being non-empty)."""
    if isinstance(approximate, str) and approximate in ("tanh", "none"):
        return approximate == "tanh"
    if isinstance(approximate, bool) or getattr(getattr(approximate, "dtype", None), "kind",
                                                    None) == "b":
        return bool(approximate)
    raise ValueError(f"gelu: approximate must be True, False, 'tanh' or 'none', "
                     f"got {approximate!r}")


def gelu(x: Tensor, approximate: bool | str = False, name: str | None = None) -> Tensor:
    """Gaussian error linear unit (Paddle's ``gelu(x, approximate=False, name=None)``).

    Exact: ``x * Phi(x)`` with the normal CDF ``Phi(x) = (1 + erf(x / sqrt 2)) / 2``;
    ``approximate=True`` (or ``"tanh"``; ``"none"`` is False, as Paddle 3 spells them): the
    tanh form ``x/2 * (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``.
    The forward keeps ``Phi`` (or the tanh) for the backward, every pass runs in place (the
    first version recomputed it and spelled ``x ** 3``, numpy's slow float power, and took 25x
    longer), and both passes run block by block over core's threads (core.row_blocks; the
    tanh form's forward on [2048, 512]: 2.0 -> 0.9 ms on 2 cores).
    """
    del name
    _floating(x, "gelu")
    xp, a = backend.array_module(x.data), x.data
    rows = as_rows(a)
    kept, out = xp.empty_like(rows), xp.empty_like(rows)  # the tanh (or Phi), the output
    approximate = _gelu_approximate(approximate)
    forward, derivative = (_gelu_tanh_forward, _gelu_tanh_derivative) if approximate else \
        (_gelu_erf_forward, _gelu_erf_derivative)
    for_blocks(rows, lambda i, j: forward(xp, rows[i:j], kept[i:j], out[i:j]), passes=8)

    def backward(g):
        grad, d = as_rows(g), xp.empty_like(rows)

        def block(i, j):
            derivative(xp, rows[i:j], kept[i:j], d[i:j])
            d[i:j] *= grad[i:j]

        for_blocks(rows, block, passes=10)
        return (d.reshape(a.shape),)

    grad_fn = _gelu_tanh_grad if approximate else _gelu_erf_grad
    return apply(out.reshape(a.shape), (x,), backward, "gelu", grad_fn)


def _gelu_tanh_grad(out, g):
    x = out._parents[0]
    t = ((x + x * x * x * _GELU_C) * _GELU_K).tanh()
    return (g * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * _GELU_K * (1 + 3 * _GELU_C * x * x)),)


def _gelu_erf_grad(out, g):  # d/dx x Phi(x) = Phi(x) + x phi(x)
    x = out._parents[0]
    return (g * (_normal_cdf(x) + x * _normal_pdf(x)),)


def _normal_pdf(x: Tensor) -> Tensor:
    return (x * x * -0.5).exp() * (1.0 / math.sqrt(2.0 * math.pi))


def _normal_cdf(x: Tensor) -> Tensor:
    """The standard normal CDF as an op of its own, differentiable any number of times (its
    derivative is the pdf, built of core ops): exact gelu's tensor-level backward."""
    xp, a = backend.array_module(x.data), x.data
    cdf = 0.5 * (1.0 + backend.erf(a * (1.0 / math.sqrt(2.0))))
    return apply(cdf.astype(a.dtype, copy=False), (x,),
                 lambda g: (g * xp.exp(a * a * -0.5) * (1.0 / math.sqrt(2.0 * math.pi)),),
                 "normal_cdf", lambda _out, g: (g * _normal_pdf(x),))


_GELU_K, _GELU_C = math.sqrt(2.0 / math.pi), 0.044715


def _gelu_tanh_forward(xp, a, th, out) -> None:
    """th = tanh(k (a + c a^3)), as tanh(a (k + k c a^2)); out = a/2 (1 + th)."""
    xp.multiply(a, a, out=th)
    th *= _GELU_K * _GELU_C
    th += _GELU_K
    th *= a
    xp.tanh(th, out=th)
    xp.add(th, 1.0, out=out)
    out *= a
    out *= 0.5


def _gelu_tanh_derivative(xp, a, th, d) -> None:
    """d = (1 + th) / 2 + a/2 (1 - th^2) k (1 + 3 c a^2), as (1 + th) (1/2 + (1 - th) s) with
    s = a (k/2 + 3/2 k c a^2): nine passes, not eleven, and no 1 - th^2 cancellation."""
    s = xp.multiply(a, a)
    s *= 1.5 * _GELU_K * _GELU_C
    s += 0.5 * _GELU_K
    s *= a
    xp.subtract(1.0, th, out=d)
    d *= s
    d += 0.5
    xp.add(th, 1.0, out=s)
    d *= s


def _gelu_erf_forward(xp, a, cdf, out) -> None:
    """cdf = Phi(a); out = a cdf."""
    cdf[...] = backend.erf(a * (1.0 / math.sqrt(2.0)))
    cdf += 1.0
    cdf *= 0.5
    xp.multiply(a, cdf, out=out)


def _gelu_erf_derivative(xp, a, cdf, d) -> None:
    """d = Phi(a) + a pdf(a)."""
    xp.multiply(a, a, out=d)
    d *= -0.5
    xp.exp(d, out=d)
    d *= a * (1.0 / math.sqrt(2.0 * math.pi))
    d += cdf


def leaky_relu(x: Tensor, negative_slope: float = 0.01, name: str | None = None) -> Tensor:
    """``x`` where x > 0, ``negative_slope * x`` elsewhere, Paddle's ``leaky_relu(x,
    negative_slope=0.01, name=None)``. The derivative at x = 0 is 1, as Paddle's kernel
    (``x >= 0``) gives it; torch's is ``negative_slope`` there."""
    del name
    _floating(x, "leaky_relu")
    return _elementwise(x, "leaky_relu",
                        lambda xp, a: xp.where(a > 0, a, a * negative_slope),
                        lambda xp, a, out: xp.where(a >= 0, 1.0, negative_slope).astype(a.dtype),
                        lambda out, g: (g * _leaky_derivative(out, negative_slope),))


def _leaky_derivative(out: Tensor, slope: float) -> Tensor:
    positive = _mask(out, out._parents[0].data >= 0)
    return positive + (1 - positive) * slope


def silu(x: Tensor, inplace: bool = False, name: str | None = None) -> Tensor:
    """``x * sigmoid(x)``, Paddle 3.x's ``silu(x, inplace=False, name=None)``; the sigmoid is
    the overflow-free tanh form. ``inplace`` is accepted as ``F.dropout``'s is: the result is
    a new tensor either way (an in-place write would corrupt inputs autograd saved)."""
    del name
    if not isinstance(inplace, bool):
        raise TypeError(f"silu: inplace={inplace!r} must be True or False.")
    _floating(x, "silu")

    def sig(xp, a):
        return 0.5 * (xp.tanh(0.5 * a) + 1.0)

    return _elementwise(x, "silu", lambda xp, a: a * sig(xp, a),
                        lambda xp, a, out: sig(xp, a) * (1.0 + a * (1.0 - sig(xp, a))),
                        _silu_grad)


def _silu_grad(out, g):
    x = out._parents[0]
    s = sigmoid(x)
    return (g * s * (1 + x * (1 - s)),)


def elu(x: Tensor, alpha: float = 1.0, name: str | None = None) -> Tensor:
    """``x`` where x > 0, ``alpha * (exp(x) - 1)`` elsewhere (Paddle's ``elu``)."""
    del name
    _floating(x, "elu")
    return _elementwise(x, "elu",
                        lambda xp, a: xp.where(a > 0, a, alpha * xp.expm1(xp.minimum(a, 0))),
                        lambda xp, a, out: xp.where(a > 0, 1.0, out + alpha).astype(a.dtype),
                        lambda out, g: (g * _elu_derivative(out, alpha),))


def _elu_derivative(out: Tensor, alpha: float) -> Tensor:
    """1 where x > 0, else out + alpha (= alpha exp(x)), as a Tensor differentiable in x."""
    positive = _mask(out, out._parents[0].data > 0)
    return positive + (1 - positive) * (out + alpha)


def relu6(x: Tensor, name: str | None = None) -> Tensor:
    """``min(max(x, 0), 6)`` (Paddle's ``relu6``); the gradient passes where 0 < x < 6."""
    del name
    _floating(x, "relu6")
    return _elementwise(x, "relu6", lambda xp, a: xp.clip(a, 0, 6),
                        lambda xp, a, out: ((a > 0) & (a < 6)).astype(a.dtype), _relu6_grad)


def _relu6_grad(out, g):  # the tensor-level backwards (create_graph): core.tensor.apply
    a = out._parents[0].data
    return (g * _mask(out, (a > 0) & (a < 6)),)


def hardswish(x: Tensor, name: str | None = None) -> Tensor:
    """``x * relu6(x + 3) / 6`` (Paddle's ``hardswish``): 0 below -3, x above 3."""
    del name
    _floating(x, "hardswish")
    return _elementwise(x, "hardswish", lambda xp, a: a * xp.clip(a + 3, 0, 6) / 6,
                        lambda xp, a, out: xp.where(a < -3, 0.0, xp.where(
                            a > 3, 1.0, (2 * a + 3) / 6)).astype(a.dtype), _hardswish_grad)


def _hardswish_grad(out, g):  # 0 below -3, (2x + 3) / 6 between, 1 above 3
    x = out._parents[0]
    above, between = _mask(out, x.data > 3), _mask(out, (x.data >= -3) & (x.data <= 3))
    return (g * (above + between * (2 * x + 3) / 6),)


def swish(x: Tensor, name: str | None = None) -> Tensor:
    """``x * sigmoid(x)`` (Paddle's ``swish``, the same function as ``silu``); the backward
    reuses the forward's sigmoid: d/dx = s + out (1 - s)."""
    del name
    _floating(x, "swish")
    xp, a = backend.array_module(x.data), x.data
    s = xp.tanh(a * 0.5)
    s += 1.0
    s *= 0.5
    out = a * s

    def backward(g):
        d = 1.0 - s
        d *= out
        d += s
        d *= g
        return (d,)

    return apply(out, (x,), backward, "swish", _silu_grad)  # silu's function


def _scalars_as_rows(fn):
    """Run ``fn`` on a 0-D input as on one element: numpy's math on 0-D arrays gives scalars,
    which the in-place (``out=``) steps of these ops cannot write into."""
    @functools.wraps(fn)
    def _wrapped(x, *args, **kwargs):  # private: error messages name the op, not this
        if getattr(x, "ndim", 1) == 0:
            from core.manipulation import reshape  # noqa: PLC0415 - only for 0-D inputs

            return reshape(fn(reshape(x, [1]), *args, **kwargs), [])
        return fn(x, *args, **kwargs)

    return _wrapped


def _log1p_exp_neg_abs(a, xp):
    """``log1p(exp(-|a|))`` as one new array (four in-place passes): the part of softplus and
    log-sigmoid in which exp cannot overflow, whatever the sign of ``a``."""
    out = xp.abs(a)
    xp.negative(out, out=out)
    xp.exp(out, out=out)
    xp.log1p(out, out=out)
    return out


@_scalars_as_rows
def softplus(x: Tensor, beta: float = 1, threshold: float = 20, name: str | None = None) -> Tensor:
    """``log(1 + exp(beta x)) / beta``, and ``x`` where ``beta x > threshold`` (Paddle's
    ``softplus(x, beta=1, threshold=20, name=None)``). Computed as ``max(z, 0) + log1p(exp(-|z|))``
    (``z = beta x``), which never overflows; the derivative ``sigmoid(z)`` is read back from the
    output as ``1 - exp(-beta out)``."""
    del name
    _floating(x, "softplus")
    xp, a = backend.array_module(x.data), x.data
    z = a * beta
    linear = z > threshold
    out = _log1p_exp_neg_abs(z, xp)
    out += xp.maximum(z, 0)
    if beta != 1:
        out /= beta
    out = xp.where(linear, a, out)

    def backward(g):
        d = out * -beta
        xp.expm1(d, out=d)
        xp.negative(d, out=d)
        return (xp.where(linear, g, g * d),)

    def grad_fn(out, g):  # sigmoid(beta x), and 1 where the output is linear
        kept = _mask(out, linear)
        return (g * (kept + (1 - kept) * sigmoid(out._parents[0] * beta)),)

    return apply(out, (x,), backward, "softplus", grad_fn)


@_scalars_as_rows
def mish(x: Tensor, name: str | None = None) -> Tensor:
    """``x * tanh(softplus(x))`` (Paddle's ``mish``; softplus turns linear above 20, as in
    Paddle's kernel). The forward keeps ``t = tanh(softplus(x))`` and ``softplus(x)`` for the
    backward: d/dx = t + x (1 - t^2) sigmoid(x), with sigmoid(x) = 1 - exp(-softplus(x))."""
    del name
    _floating(x, "mish")
    xp, a = backend.array_module(x.data), x.data
    sp = _log1p_exp_neg_abs(a, xp)
    sp += xp.maximum(a, 0)
    sp = xp.where(a > 20, a, sp)
    t = xp.tanh(sp)
    out = a * t

    def backward(g):
        sig = -xp.expm1(-sp)
        d = t * t
        xp.subtract(1.0, d, out=d)
        d *= a
        d *= sig
        d += t
        d *= g
        return (d,)

    return apply(out, (x,), backward, "mish", _mish_grad)


def _mish_grad(out, g):  # t + x (1 - t^2) sigmoid(x), sigmoid(x) = 1 - exp(-softplus(x))
    x = out._parents[0]
    sp = softplus(x)  # linear above 20, as the forward
    t = sp.tanh()
    return (g * (t + x * (1 - t * t) * (1 - (-sp).exp())),)


@_scalars_as_rows
def hardsigmoid(x: Tensor, slope: float = 0.1666667, offset: float = 0.5,
                name: str | None = None) -> Tensor:
    """``clip(slope x + offset, 0, 1)`` (Paddle's ``hardsigmoid(x, slope=0.1666667,
    offset=0.5, name=None)``); the gradient ``slope`` passes where the output is in (0, 1)."""
    del name
    _floating(x, "hardsigmoid")
    xp = backend.array_module(x.data)
    out = x.data * slope
    out += offset
    xp.clip(out, 0, 1, out=out)
    return apply(out, (x,), lambda g: (g * (((out > 0) & (out < 1)) * slope)
                                      .astype(out.dtype, copy=False),), "hardsigmoid",
                 _hardsigmoid_grad)


def _hardsigmoid_grad(out, g):
    (slope,) = captured(out, "slope")
    return (g * _mask(out, (out.data > 0) & (out.data < 1)) * slope,)


def hardtanh(x: Tensor, min: float = -1.0, max: float = 1.0,  # noqa: A002 - Paddle's names
             name: str | None = None) -> Tensor:
    """``clip(x, min, max)`` (Paddle's ``hardtanh(x, min=-1.0, max=1.0, name=None)``); the
    gradient passes where min < x < max (read from the output)."""
    del name
    _floating(x, "hardtanh")
    lo, hi = min, max
    xp = backend.array_module(x.data)
    out = xp.clip(x.data, lo, hi)
    return apply(out, (x,), lambda g: (g * ((out > lo) & (out < hi)),), "hardtanh",
                 _hardtanh_grad)


def _hardtanh_grad(out, g):
    lo, hi = captured(out, "lo", "hi")
    return (g * _mask(out, (out.data > lo) & (out.data < hi)),)


@_scalars_as_rows
def softsign(x: Tensor, name: str | None = None) -> Tensor:
    """``x / (1 + |x|)`` (Paddle's ``softsign``); d/dx = 1 / (1 + |x|)^2 = (1 - |out|)^2."""
    del name
    _floating(x, "softsign")
    xp, a = backend.array_module(x.data), x.data
    out = xp.abs(a)
    out += 1.0
    xp.divide(a, out, out=out)

    def backward(g):
        d = xp.abs(out)
        xp.subtract(1.0, d, out=d)
        d *= d
        d *= g
        return (d,)

    return apply(out, (x,), backward, "softsign", _softsign_grad)


def _softsign_grad(out, g):  # 1 / (1 + |x|)^2
    d = 1 + out._parents[0].abs()
    return (g / (d * d),)


def tanhshrink(x: Tensor, name: str | None = None) -> Tensor:
    """``x - tanh(x)`` (Paddle's ``tanhshrink``); d/dx = tanh(x)^2, from the kept tanh."""
    del name
    _floating(x, "tanhshrink")
    xp, a = backend.array_module(x.data), x.data
    th = xp.tanh(a)
    out = a - th
    return apply(out, (x,), lambda g: (g * th * th,), "tanhshrink", _tanhshrink_grad)


def _tanhshrink_grad(out, g):
    th = out._parents[0].tanh()
    return (g * th * th,)


_PRELU_FORMATS = ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC")


def prelu(x: Tensor, weight: Tensor, data_format: str = "NCHW", name: str | None = None) -> Tensor:
    """``max(0, x) + weight * min(0, x)`` (Paddle's ``prelu(x, weight, data_format='NCHW',
    name=None)``). ``weight`` is 1-D: one slope shared by every element ([1]), or one per
    channel ([C]), the channel axis being 1 for channels-first ``data_format`` ("NC", "NCL",
    "NCHW", "NCDHW") and the last for channels-last ("NLC", "NHWC", "NDHWC"). Both ``x`` and
    ``weight`` get gradients."""
    del name
    _floating(x, "prelu")
    xp, a = backend.array_module(x.data), x.data
    if not isinstance(weight, Tensor):
        raise backend.NotATensorError(f"prelu: weight: {backend.NOT_A_TENSOR}")
    if weight.ndim != 1:
        raise ValueError(f"prelu: weight must be 1-D ([1] or [channels]), got shape "
                         f"{weight.shape}")
    w = weight.data.astype(a.dtype, copy=False)
    n = w.shape[0]
    if n > 1:
        if data_format not in _PRELU_FORMATS:
            raise ValueError(f"prelu: data_format must be one of {_PRELU_FORMATS}, got "
                             f"{data_format!r}")
        if a.ndim < 2:
            raise ValueError(f"prelu: an input of shape {x.shape} has no channel axis; a "
                             f"weight of {n} slopes needs at least 2 dimensions")
        axis = 1 if data_format[1] == "C" else a.ndim - 1
        if a.shape[axis] != n:
            raise ValueError(f"prelu: weight has {n} slopes but the input's channel axis "
                             f"({axis}, data_format={data_format!r}) has {a.shape[axis]}")
        shape = [1] * a.ndim
        shape[axis] = n
        w = w.reshape(shape)
    else:
        w = w.reshape(())  # one slope for every element (an input of any rank, 0-D too)
    positive = a > 0
    out = xp.where(positive, a, a * w)

    def backward(g):
        gx = gw = None
        if not x.stop_gradient:
            gx = xp.where(positive, g, g * w)
        if not weight.stop_gradient:
            gw = xp.where(positive, 0, g * a)
            gw = unbroadcast(gw, w.shape).reshape(weight.shape).astype(weight.dtype, copy=False)
        return gx, gw

    return apply(out, (x, weight), backward, "prelu", _prelu_grad)


def _prelu_grad(out, g):  # the tensor-level backward (create_graph): core.tensor.apply
    x, weight = out._parents
    positive, w = captured(out, "positive", "w")
    slopes = weight.astype(x.dtype).reshape(list(w.shape))  # broadcast over x as w
    negative = Tensor((~positive).astype(g.dtype))
    gx = g * (1 - negative) + g * negative * slopes if needs(x) else None
    gw = None
    if needs(weight):
        gw = sum_to(g * x * negative, w.shape).reshape(list(weight.shape)).astype(weight.dtype)
    return gx, gw


# ----- SELU, CELU, LogSigmoid, the shrinks, ThresholdedReLU, Maxout, GLU, RReLU ----------------
def _real(fn: str, name: str, value) -> float:
    """``value`` as a float, or an error that names the argument and the value."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{fn}: {name}={value!r} must be a finite number.")
    return float(value)


_SELU_SCALE, _SELU_ALPHA = 1.0507009873554804934193349852946, 1.6732632423543772848170429916717


def _selu_arguments(scale, alpha, fn: str = "selu") -> tuple[float, float]:
    """Paddle's checks: ``scale`` > 1 and ``alpha`` >= 0."""
    scale, alpha = _real(fn, "scale", scale), _real(fn, "alpha", alpha)
    if scale <= 1.0:
        raise ValueError(f"{fn}: scale={scale!r} must be greater than 1.0.")
    if alpha < 0:
        raise ValueError(f"{fn}: alpha={alpha!r} must be >= 0.")
    return scale, alpha


@_scalars_as_rows
def selu(x: Tensor, scale: float = _SELU_SCALE, alpha: float = _SELU_ALPHA,
         name: str | None = None) -> Tensor:
    """``scale * x`` where x > 0, ``scale * alpha * (exp(x) - 1)`` elsewhere (Paddle's
    ``selu(x, scale=1.0507009873554804934193349852946, alpha=1.6732632423543772848170429916717,
    name=None)``; ``scale`` must be > 1 and ``alpha`` >= 0, as Paddle checks).

    The exponential runs on ``min(x, 0)``, so a large x never overflows (float32 included), and
    every pass writes in place; the backward reads d/dx = scale * alpha * exp(x) back from the
    output as ``out + scale * alpha`` where x <= 0 (``scale`` elsewhere).
    """
    del name
    _floating(x, "selu")
    scale, alpha = _selu_arguments(scale, alpha)
    xp, a = backend.array_module(x.data), x.data
    positive = a > 0
    out = xp.minimum(a, 0)
    xp.expm1(out, out=out)
    out *= alpha
    xp.copyto(out, a, where=positive)
    out *= scale

    def backward(g):
        d = out + scale * alpha
        xp.copyto(d, scale, where=positive)
        d *= g
        return (d,)

    return apply(out, (x,), backward, "selu", _selu_grad)


def _selu_grad(out, g):  # scale where x > 0, else out + scale * alpha (= scale alpha exp(x))
    scale, alpha, positive = captured(out, "scale", "alpha", "positive")
    kept = _mask(out, positive)
    return (g * (kept * scale + (1 - kept) * (out + scale * alpha)),)


def _celu_alpha(alpha, fn: str = "celu") -> float:
    """Paddle's check: ``alpha`` != 0 (it divides x), as a ZeroDivisionError like Paddle's."""
    alpha = _real(fn, "alpha", alpha)
    if alpha == 0:
        raise ZeroDivisionError(f"{fn}: alpha=0 is not allowed: celu divides x by alpha; use a "
                                "non-zero alpha (1.0 is the default).")
    return alpha


@_scalars_as_rows
def celu(x: Tensor, alpha: float = 1.0, name: str | None = None) -> Tensor:
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))`` (Paddle's ``celu(x, alpha=1.0,
    name=None)``; ``alpha=0`` raises ZeroDivisionError, as in Paddle).

    Computed as ``x`` where x > 0 and ``alpha * expm1(min(x, 0) / alpha)`` elsewhere (the same
    function for either sign of alpha), in place; the backward reads d/dx = exp(x / alpha) back
    from the output as ``out / alpha + 1`` where x <= 0.
    """
    del name
    _floating(x, "celu")
    alpha = _celu_alpha(alpha)
    xp, a = backend.array_module(x.data), x.data
    positive = a > 0
    out = xp.minimum(a, 0)
    out /= alpha
    xp.expm1(out, out=out)
    out *= alpha
    xp.copyto(out, a, where=positive)

    def backward(g):
        d = out / alpha
        d += 1.0
        xp.copyto(d, 1.0, where=positive)
        d *= g
        return (d,)

    return apply(out, (x,), backward, "celu", _celu_grad)


def _celu_grad(out, g):  # 1 where x > 0, else out / alpha + 1 (= exp(x / alpha))
    alpha, positive = captured(out, "alpha", "positive")
    kept = _mask(out, positive)
    return (g * (kept + (1 - kept) * (out / alpha + 1)),)


@_scalars_as_rows
def log_sigmoid(x: Tensor, name: str | None = None) -> Tensor:
    """``log(1 / (1 + exp(-x)))`` (Paddle's ``log_sigmoid(x, name=None)``).

    Computed as ``min(x, 0) - log1p(exp(-|x|))``: exp never overflows, so float32 stays finite
    and exact at both ends (log_sigmoid(-100) = -100, log_sigmoid(100) = -3.7e-44). The
    derivative sigmoid(-x) = 1 - exp(out) is read back from the output as ``-expm1(out)``,
    accurate where it is tiny (large x) as where it is near 1.
    """
    del name
    _floating(x, "log_sigmoid")
    xp, a = backend.array_module(x.data), x.data
    out = _log1p_exp_neg_abs(a, xp)
    xp.subtract(xp.minimum(a, 0), out, out=out)

    def backward(g):
        d = xp.expm1(out)
        xp.negative(d, out=d)
        d *= g
        return (d,)

    return apply(out, (x,), backward, "log_sigmoid", _log_sigmoid_grad)


def _log_sigmoid_grad(out, g):  # the tensor-level backward (create_graph): sigmoid(-x)
    return (g * (-out._parents[0]).sigmoid(),)


def _softshrink_threshold(threshold, fn: str = "softshrink") -> float:
    """Paddle's check: ``threshold`` >= 0."""
    threshold = _real(fn, "threshold", threshold)
    if threshold < 0:
        raise ValueError(f"{fn}: threshold={threshold!r} must be >= 0.")
    return threshold


def softshrink(x: Tensor, threshold: float = 0.5, name: str | None = None) -> Tensor:
    """``x - threshold`` where x > threshold, ``x + threshold`` where x < -threshold, 0 between
    (Paddle's ``softshrink(x, threshold=0.5, name=None)``; ``threshold`` must be >= 0).

    That is ``x - clip(x, -threshold, threshold)``: one clip and one subtraction. The gradient
    (1 outside the band) is read from the output, which is non-zero exactly there.
    """
    del name
    _floating(x, "softshrink")
    t = _softshrink_threshold(threshold)
    xp, a = backend.array_module(x.data), x.data
    out = a - xp.clip(a, -t, t)
    return apply(out, (x,), lambda g: (g * (out != 0),), "softshrink", _softshrink_grad)


def _softshrink_grad(out, g):  # 1 outside the band, where the output is non-zero
    return (g * _mask(out, out.data != 0),)


def hardshrink(x: Tensor, threshold: float = 0.5, name: str | None = None) -> Tensor:
    """``x`` where x > threshold or x < -threshold, 0 elsewhere (Paddle's ``hardshrink(x,
    threshold=0.5, name=None)``); the gradient passes where the input does."""
    del name
    _floating(x, "hardshrink")
    t = _real("hardshrink", "threshold", threshold)
    xp, a = backend.array_module(x.data), x.data
    keep = (a > t) | (a < -t)
    out = xp.where(keep, a, 0)
    return apply(out.astype(a.dtype, copy=False), (x,), lambda g: (g * keep,), "hardshrink",
                 _kept_grad)


def _kept_grad(out, g):  # hardshrink's and thresholded_relu's: 1 where the input passed
    (keep,) = captured(out, "keep")
    return (g * _mask(out, keep),)


def thresholded_relu(x: Tensor, threshold: float = 1.0, value: float = 0.0,
                     name: str | None = None) -> Tensor:
    """``x`` where x > threshold, ``value`` elsewhere (Paddle 3.x's ``thresholded_relu(x,
    threshold=1.0, value=0.0, name=None)``; Paddle 2.x had no ``value``, i.e. 0). The gradient
    passes where x > threshold."""
    del name
    _floating(x, "thresholded_relu")
    t = _real("thresholded_relu", "threshold", threshold)
    v = _real("thresholded_relu", "value", value)
    xp, a = backend.array_module(x.data), x.data
    keep = a > t
    out = xp.where(keep, a, v).astype(a.dtype, copy=False)
    return apply(out, (x,), lambda g: (g * keep,), "thresholded_relu", _kept_grad)


def _maxout_groups(groups, fn: str = "maxout") -> int:
    """``groups`` as a positive integer, or an error naming it."""
    if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1:
        raise ValueError(f"{fn}: groups={groups!r} must be a positive integer.")
    return groups


def maxout(x: Tensor, groups: int, axis: int = 1, name: str | None = None) -> Tensor:
    """The maximum over each run of ``groups`` consecutive channels (Paddle's ``maxout(x,
    groups, axis=1, name=None)``): channel ``i`` of the output is the maximum of input channels
    ``i * groups`` ... ``i * groups + groups - 1``, so ``axis`` shrinks from C to C / groups.

    ``axis`` is the channel axis (1 for NCHW, -1 or 3 for NHWC, as in Paddle); any axis of an
    input of any rank is accepted (Paddle takes 4-D inputs only). As Paddle's kernel, the
    gradient goes to the first maximum of each group when several tie.
    """
    del name
    _floating(x, "maxout")
    groups = _maxout_groups(groups)
    axis = _check_axis(x, axis, "maxout")
    xp, a = backend.array_module(x.data), x.data
    channels = a.shape[axis]
    if channels % groups:
        raise ValueError(f"maxout: groups={groups} does not divide the {channels} channels on "
                         f"axis {axis} of the input of shape {x.shape}.")
    grouped = a.reshape(a.shape[:axis] + (channels // groups, groups) + a.shape[axis + 1:])
    at = axis + 1  # the axis of the members of each group
    first = xp.expand_dims(grouped.argmax(axis=at), at)
    out = xp.take_along_axis(grouped, first, axis=at).squeeze(at)

    def backward(g):
        member = xp.arange(groups).reshape((groups,) + (1,) * (grouped.ndim - at - 1))
        d = (first == member) * xp.expand_dims(g, at)
        return (d.reshape(a.shape),)

    return apply(out, (x,), backward, "maxout", _maxout_grad)


def _maxout_grad(out, g):  # create_graph: g at each group's first maximum (a constant mask)
    first, at, groups, a = captured(out, "first", "at", "groups", "a")
    xp = backend.array_module(first)
    member = xp.arange(groups).reshape((groups,) + (1,) * (first.ndim - at - 1))
    mask = Tensor((first == member).astype(a.dtype))
    return ((g.unsqueeze(at) * mask).reshape(list(a.shape)),)


def glu(x: Tensor, axis: int = -1, name: str | None = None) -> Tensor:
    """The gated linear unit ``a * sigmoid(b)``, where ``a`` and ``b`` are the first and second
    halves of ``x`` along ``axis`` (Paddle's ``glu(x, axis=-1, name=None)``); the output is half
    as long along ``axis``, whose size must be even.

    One op: the sigmoid (the overflow-free tanh form) is kept for the backward, which writes
    both halves' gradients, ``g * s`` and ``g * s * a * (1 - s)``, into one array.
    """
    del name
    _floating(x, "glu")
    axis = _check_axis(x, axis, "glu")
    xp, data = backend.array_module(x.data), x.data
    if data.shape[axis] % 2:
        raise ValueError(f"glu: the input of shape {x.shape} has an odd size "
                         f"({data.shape[axis]}) on axis {axis}; glu splits that axis into two "
                         "halves, so it must be even.")
    a, b = xp.split(data, 2, axis=axis)
    s = xp.tanh(b * 0.5)
    s += 1.0
    s *= 0.5
    out = a * s

    def backward(g):
        d = xp.empty_like(data)
        da, db = xp.split(d, 2, axis=axis)  # views: each half written in place
        xp.multiply(g, s, out=da)
        xp.subtract(1.0, s, out=db)
        db *= a
        db *= da
        return (d,)

    return apply(out, (x,), backward, "glu", _glu_grad)


def _glu_grad(out, g):  # the tensor-level backward (create_graph): both halves recomputed
    from core.manipulation import concat, split  # noqa: PLC0415 - run only on this path

    (axis,) = captured(out, "axis")
    a, b = split(out._parents[0], 2, axis=axis)
    s = b.sigmoid()
    da = g * s
    return (concat([da, da * a * (1 - s)], axis=axis),)


def _rrelu_bounds(lower, upper, fn: str = "rrelu") -> tuple[float, float]:
    """Paddle's checks: 0 <= lower <= upper <= 1."""
    lower, upper = _real(fn, "lower", lower), _real(fn, "upper", upper)
    if not 0 <= lower <= 1:
        raise ValueError(f"{fn}: lower={lower!r} must be in [0, 1].")
    if not lower <= upper <= 1:
        raise ValueError(f"{fn}: upper={upper!r} must be in [lower, 1] = [{lower!r}, 1].")
    return lower, upper


@_scalars_as_rows
def rrelu(x: Tensor, lower: float = 1.0 / 8.0, upper: float = 1.0 / 3.0, training: bool = True,
          name: str | None = None) -> Tensor:
    """Randomized leaky ReLU (Paddle's ``rrelu(x, lower=1/8, upper=1/3, training=True,
    name=None)``): ``x`` where x >= 0, ``a * x`` elsewhere.

    In training each element draws its own slope ``a`` uniformly from [lower, upper] (the
    seeded generator of ``core.seed``); otherwise ``a`` is the mean slope (lower + upper) / 2.
    The slopes are kept for the backward (d/dx = a, or 1 where x >= 0). Note Paddle's default
    ``training=True`` (torch's is False); ``nn.RReLU`` passes the layer's mode.
    """
    del name
    _floating(x, "rrelu")
    lower, upper = _rrelu_bounds(lower, upper)
    xp, a = backend.array_module(x.data), x.data
    if training:
        slope = backend.random_uniform(a.shape, lower, upper, dtype=a.dtype)
        xp.copyto(slope, 1.0, where=a >= 0)
    else:
        slope = xp.where(a >= 0, 1.0, (lower + upper) / 2).astype(a.dtype, copy=False)
    return apply(a * slope, (x,), lambda g: (g * slope,), "rrelu", _slope_grad)


def _slope_grad(out, g):  # rrelu's: the drawn (or mean) slopes are constants
    (slope,) = captured(out, "slope")
    return (g * Tensor(slope),)


_GUMBEL_TINY = 1e-10  # lower bound of the uniform draw: -log(-log(u)) stays finite


def gumbel_softmax(x: Tensor, temperature: float = 1.0, hard: bool = False, axis: int = -1,
                   name: str | None = None) -> Tensor:
    """Paddle's ``gumbel_softmax(x, temperature=1.0, hard=False, axis=-1, name=None)``: a
    differentiable sample of the categorical distribution whose logits are ``x``::

        y = softmax((x + g) / temperature, axis),   g = -log(-log(u)),  u ~ U(0, 1)

    (one Gumbel draw per element, from the seeded generator of ``core.seed``). With ``hard``
    the result is the one-hot vector of y's argmax along ``axis``, and the gradient is y's
    (the straight-through estimator), so ``hard`` samples still train.

    The gradient is the exact ``d y / d x = softmax_grad(y) / temperature``. Paddle's kernel
    differs: it omits the 1 / temperature, and with ``hard`` it applies softmax's gradient to
    the one-hot output, which is 0 everywhere (docs/paddle.md).
    """
    del name
    _floating(x, "gumbel_softmax")
    temperature = _real("gumbel_softmax", "temperature", temperature)
    if temperature <= 0:
        raise ValueError(f"gumbel_softmax: temperature={temperature!r} must be > 0.")
    if not isinstance(x, Tensor):
        raise backend.NotATensorError(f"gumbel_softmax: {backend.NOT_A_TENSOR}")
    axis = _check_axis(x, axis, "gumbel_softmax")
    data = x.data
    xp = backend.array_module(data)
    u = backend.random_uniform(data.shape, _GUMBEL_TINY, 1.0, dtype=data.dtype)
    # a draw just below 1 may round to 1 in float32, whose noise -log(-log(1)) is infinite
    xp.minimum(u, data.dtype.type(1.0) - xp.finfo(data.dtype).epsneg, out=u)
    logits = (data - xp.log(-xp.log(u))) / data.dtype.type(temperature)
    soft = xp.empty_like(logits)
    _softmax_into(xp, logits, soft, axis)
    if hard:
        index = xp.expand_dims(soft.argmax(axis=axis), axis)
        out = (xp.arange(data.shape[axis]).reshape(
            [-1 if i == axis else 1 for i in range(data.ndim)]) == index).astype(data.dtype)
    else:
        out = soft

    def backward(g):
        d = xp.empty_like(soft)
        _softmax_grad_into(xp, g, soft, d, axis)
        d /= data.dtype.type(temperature)
        return (d,)

    return apply(out, (x,), backward, "gumbel_softmax", _gumbel_softmax_grad)


def _gumbel_softmax_grad(out, g):
    """The tensor-level backward (create_graph): y = softmax(x / T + c) recomputed with the
    draw as a constant c (log(y) - x / T: softmax ignores a per-row shift), then softmax's
    backward over T, as the array backward (the straight-through y under ``hard``)."""
    soft, data, temperature, axis = captured(out, "soft", "data", "temperature", "axis")
    x = out._parents[0]
    xp, scale = backend.array_module(soft), data.dtype.type(1.0 / temperature)
    with np.errstate(divide="ignore"):  # a probability that underflowed: its logit is -inf
        shift = xp.log(soft) - data * scale
    y = softmax(x * scale + Tensor(shift), axis=axis)
    return ((g - (g * y).sum(axis=axis, keepdim=True)) * y * scale,)
