"""Paddle's in-place Tensor methods: ``add_``, ``subtract_``, ``multiply_``, ``divide_``,
``scale_``, ``clip_``, ``exp_``, ``sqrt_``, ``tanh_``, ``zero_``, ``fill_``, the random fills
``uniform_``, ``normal_``, ``log_normal_``, ``exponential_``, ``cauchy_`` and ``geometric_``, and
``increment``. Each overwrites the tensor's values and returns the tensor itself.

core's graph holds each op's inputs themselves (there is no version counter that could tell a
backward pass that an input changed since), so an in-place op records no graph, as
``Tensor.__setitem__`` (core/arithmetic.py): with grad enabled, the tensor must not need a
gradient, and a Tensor operand must not either. Paddle refuses a leaf that needs a gradient
too; a tensor inside a graph, which Paddle tracks by version, core refuses likewise (docs/paddle.md
says what to write instead). Under ``core.no_grad()`` anything may be changed, e.g. a
Parameter's values.
"""
from __future__ import annotations

import contextlib
import inspect

import numpy as np

from core import (
    arithmetic,
    autocast,
    backend,
    elementwise,
    indexing,
    logic,
    manipulation,
    ops,
    search,
)
from core.creation import normal, uniform
from core.linalg import norms, products
from core.tensor import Tensor, is_grad_enabled, no_grad


def _check(x: Tensor, fn: str, *operands, instead: str | None = None) -> None:
    """Refuse an in-place change autograd would get wrong (see the module docstring);
    ``instead`` names the out-of-place call to suggest."""
    if not is_grad_enabled():
        return
    instead = instead or f"the out-of-place op (core.{fn[:-1]})"
    if not x.stop_gradient:
        kind = "a leaf tensor" if x.is_leaf else "a tensor computed in the graph"
        raise ValueError(
            f"Tensor.{fn}: the tensor is {kind} that needs a gradient (stop_gradient=False), "
            "and an in-place change cannot be recorded in the graph (Paddle: 'Leaf Tensor "
            f"that doesn't stop gradient can't use inplace strategy'). Use {instead}, or "
            "change it inside `with core.no_grad():` when the change is not to be "
            "differentiated.")
    for value in operands:
        if isinstance(value, Tensor) and not value.stop_gradient:
            raise ValueError(
                f"Tensor.{fn}: the operand needs a gradient (stop_gradient=False), which an "
                f"in-place op cannot pass on; use {instead}, or pass operand.detach().")


@contextlib.contextmanager
def _in_place():
    """The context an in-place method runs its out-of-place op in: no graph (see the module
    docstring) and no ``auto_cast`` input casts. Paddle's in-place APIs skip amp ("No AMP for
    ... because it is a inplace or cast api"): a float16 x inside auto_cast is computed in
    float16, so the result keeps x's dtype and can be written back."""
    with no_grad():
        if not autocast.active:  # the common case: nothing to switch off
            yield
            return
        previous = autocast.push(None)  # None: amp off in this thread, as auto_cast(False)
        try:
            yield
        finally:
            autocast.pop(previous)


def _write(x: Tensor, values, fn: str) -> Tensor:
    """Store ``values`` (an array) as x's values, keeping x's shape and dtype; returns x."""
    if tuple(values.shape) != tuple(x.data.shape):
        raise ValueError(f"Tensor.{fn}: the result has shape {list(values.shape)}, but an "
                         f"in-place op must keep the tensor's shape {x.shape} (the operand "
                         "may broadcast to x, not x to it)")
    if values.dtype != x.data.dtype:
        raise TypeError(f"Tensor.{fn}: the result has dtype {values.dtype}, but an in-place "
                        f"op must keep the tensor's dtype {x.data.dtype}; use the out-of-place "
                        f"core.{fn[:-1]} or cast x first")
    if not getattr(getattr(x.data, "flags", None), "writeable", True) or arithmetic._broadcast(
            x.data):
        x.data = values.copy() if values.base is not None else values  # a read-only view
    else:
        x.data[...] = values
    x._value_range = None  # the bounds to_tensor recorded no longer hold
    return x


def _binary(op, fn: str):
    def method(x: Tensor, y, name: str | None = None) -> Tensor:  # Paddle's core.fn(x, y)
        del name
        _check(x, fn, y)
        with _in_place():
            out = op(x, y)
        return _write(x, out.data, fn)

    method.__name__ = method.__qualname__ = fn
    method.__doc__ = (f"Paddle's ``Tensor.{fn}(y)``: ``core.{fn[:-1]}(x, y)`` written into x, "
                      "which is returned. ``y`` broadcasts to x's shape; the dtype stays x's.")
    return method


def _unary(op, fn: str, floats_only: bool = True):
    def method(x: Tensor, name: str | None = None) -> Tensor:  # Paddle's core.fn(x)
        del name
        _check(x, fn)
        if floats_only and x.data.dtype.kind != "f":
            raise TypeError(f"Tensor.{fn}: the tensor has dtype {x.data.dtype}; in-place "
                            f"{fn[:-1]} needs a float tensor (cast it first)")
        with _in_place():
            out = op(x)
        return _write(x, out.data, fn)

    method.__name__ = method.__qualname__ = fn
    method.__doc__ = f"Paddle's ``Tensor.{fn}()``: ``core.{fn[:-1]}(x)`` written into x."
    return method


def scale_(x: Tensor, scale=1.0, bias=0.0, bias_after_scale: bool = True, act=None,
           name: str | None = None) -> Tensor:
    """Paddle's ``Tensor.scale_(scale=1.0, bias=0.0, bias_after_scale=True, act=None)``:
    ``core.scale`` written into x."""
    _check(x, "scale_", scale, bias)
    with _in_place():
        out = arithmetic.scale(x, scale, bias, bias_after_scale, act, name)
    return _write(x, out.data, "scale_")


def clip_(x: Tensor, min=None, max=None, name: str | None = None) -> Tensor:  # noqa: A002
    """Paddle's ``Tensor.clip_(min=None, max=None)``: ``core.clip`` written into x."""
    del name
    _check(x, "clip_", min, max)
    with _in_place():
        out = ops.clip(x, min, max)
    return _write(x, out.data, "clip_")


def zero_(x: Tensor) -> Tensor:
    """Paddle's ``Tensor.zero_()``: every value set to 0; returns x."""
    return _fill(x, 0, "zero_", "core.zeros_like(x)")


def fill_(x: Tensor, value) -> Tensor:
    """Paddle's ``Tensor.fill_(value)``: every value set to ``value`` (a number, cast to x's
    dtype); returns x."""
    return _fill(x, value, "fill_", "core.full_like(x, value)")


def _fill(x: Tensor, value, fn: str, instead: str) -> Tensor:
    _check(x, fn, instead=instead)
    value = value.item() if isinstance(value, Tensor) else value
    if isinstance(value, (list, tuple)) or not hasattr(value, "__float__"):
        raise TypeError(f"Tensor.{fn}: value must be a number, got {value!r}")
    xp = backend.array_module(x.data)
    return _write(x, xp.full(x.data.shape, value, dtype=x.data.dtype), fn)


def uniform_(x: Tensor, min=0.0, max=1.0, seed: int = 0,  # noqa: A002 - Paddle's names
             name: str | None = None) -> Tensor:
    """Paddle 3.3's ``Tensor.uniform_(min=0, max=1.0, seed=0)``: values drawn uniformly from
    [min, max) as ``core.uniform`` draws them (``seed=0``: core.seed's generator)."""
    _check(x, "uniform_", instead="core.uniform(x.shape, x.dtype, min, max)")
    _float_only(x, "uniform_")
    out = uniform(x.shape, x.dtype, min, max, seed, name)
    return _write(x, _like_device(out.data, x.data), "uniform_")


def normal_(x: Tensor, mean=0.0, std=1.0, name: str | None = None) -> Tensor:
    """Paddle's ``Tensor.normal_(mean=0.0, std=1.0)``: values drawn from N(mean, std**2) with
    core.seed's generator, as ``core.normal``."""
    _check(x, "normal_", instead="core.normal(mean, std, x.shape)")
    _float_only(x, "normal_")
    if float(std) < 0:
        raise ValueError(f"Tensor.normal_: std must be >= 0, got {std}")
    out = normal(float(mean), float(std), x.shape, name)
    return _write(x, _like_device(out.data, x.data).astype(x.data.dtype, copy=False), "normal_")


def _float_only(x: Tensor, fn: str) -> None:
    if x.data.dtype.kind != "f":
        raise TypeError(f"Tensor.{fn}: random values need a float tensor, got {x.data.dtype}")


def _like_device(values, like):
    """``values`` on ``like``'s device (random draws are made on the current device)."""
    if backend.array_module(values) is backend.array_module(like):
        return values
    return backend.array_module(like).asarray(backend.to_numpy(values))


add_ = _binary(arithmetic.add, "add_")
subtract_ = _binary(arithmetic.subtract, "subtract_")
multiply_ = _binary(arithmetic.multiply, "multiply_")
divide_ = _binary(arithmetic.divide, "divide_")
exp_ = _unary(ops.exp, "exp_")
sqrt_ = _unary(ops.sqrt, "sqrt_")
tanh_ = _unary(ops.tanh, "tanh_")

for _method in (add_, subtract_, multiply_, divide_, exp_, sqrt_, tanh_, scale_, clip_, zero_,
                fill_, uniform_, normal_):
    setattr(Tensor, _method.__name__, _method)


# ----- more of Paddle's in-place variants: element-wise math, fills and scatters along
# indices, triangles and cumulative sums (same shape and dtype, written through ``_write``),
# and the shape changes reshape_ / flatten_ / squeeze_ / unsqueeze_ / transpose_ / t_ and
# cast_, which give the tensor a new shape or dtype (the values stay; nothing to record).

def _general(op, fn: str):
    """``Tensor.fn(*args)``: ``op(x, *args)`` written into x; Tensor arguments must not need a
    gradient (as the operands of the binary ops)."""
    signature = inspect.signature(op)

    def method(*args, **kwargs) -> Tensor:
        x, operands, call = _bind(signature, fn, args, kwargs)
        _check(x, fn, *operands)
        with _in_place():
            out = op(*call.args, **call.kwargs)
        return _write(x, out.data, fn)

    method.__name__ = method.__qualname__ = fn
    method.__doc__ = (f"Paddle's ``Tensor.{fn}(...)``: ``core.{fn[:-1]}(x, ...)`` (same "
                      "arguments) written into x, which is returned; the shape and dtype stay.")
    method.__signature__ = signature  # what it takes: op's arguments, passed on
    return method


def _bind(signature, fn: str, args, kwargs):
    """(x, the other arguments' values, the bound call) of an in-place wrapper of the op of
    ``signature``: x is the op's first argument, by position or by its name (``x``, ``input``)."""
    try:
        call = signature.bind(*args, **kwargs)
    except TypeError as error:
        raise TypeError(f"{fn}: {error}; it takes {signature}") from None
    values = list(call.arguments.values())
    return values[0], values[1:], call


def _reshaping(op, fn: str):
    """``Tensor.fn(*args)``: x takes the shape ``op(x, *args)`` gives (the same values)."""
    signature = inspect.signature(op)

    def method(*args, **kwargs) -> Tensor:
        x, _, call = _bind(signature, fn, args, kwargs)
        _check(x, fn)
        with _in_place():
            out = op(*call.args, **call.kwargs)
        x.data = out.data
        return x

    method.__name__ = method.__qualname__ = fn
    method.__doc__ = (f"Paddle's ``Tensor.{fn}(...)``: x itself given the shape of "
                      f"``core.{fn[:-1]}(x, ...)`` (same arguments); returns x.")
    method.__signature__ = signature  # what it takes: op's arguments, passed on
    return method


def cast_(x: Tensor, dtype) -> Tensor:
    """Paddle's ``Tensor.cast_(dtype)``: x's values converted to ``dtype`` in place; returns
    x."""
    _check(x, "cast_", instead="core.cast(x, dtype)")
    x.data = x.data.astype(dtype)
    x._value_range = None
    return x


ceil_ = _unary(ops.ceil, "ceil_", floats_only=False)
floor_ = _unary(ops.floor, "floor_", floats_only=False)
round_ = _unary(ops.round, "round_", floats_only=False)
abs_ = _unary(ops.abs, "abs_", floats_only=False)
square_ = _unary(ops.square, "square_", floats_only=False)
neg_ = _unary(elementwise.neg, "neg_", floats_only=False)
_UNARY = [ceil_, floor_, round_, abs_, square_, neg_] + [
    _unary(op, name) for op, name in (
        (ops.reciprocal, "reciprocal_"), (ops.rsqrt, "rsqrt_"), (ops.log, "log_"),
        (ops.log1p, "log1p_"), (ops.sin, "sin_"), (ops.cos, "cos_"), (elementwise.tan, "tan_"),
        (elementwise.asin, "asin_"), (elementwise.acos, "acos_"), (elementwise.atan, "atan_"),
        (elementwise.sinh, "sinh_"), (elementwise.cosh, "cosh_"),
        (elementwise.asinh, "asinh_"), (elementwise.acosh, "acosh_"),
        (elementwise.atanh, "atanh_"), (elementwise.log2, "log2_"),
        (elementwise.log10, "log10_"), (elementwise.expm1, "expm1_"), (elementwise.erf, "erf_"),
        (elementwise.erfinv, "erfinv_"), (elementwise.frac, "frac_"),
        (elementwise.sigmoid, "sigmoid_"), (elementwise.sinc, "sinc_"),
        (elementwise.lgamma, "lgamma_"), (elementwise.gammaln, "gammaln_"),
        (elementwise.digamma, "digamma_"), (elementwise.i0, "i0_"))]
_BINARY = [_binary(op, name) for op, name in (
    (arithmetic.pow, "pow_"), (arithmetic.remainder, "remainder_"),
    (arithmetic.remainder, "mod_"), (arithmetic.remainder, "floor_mod_"),
    (arithmetic.floor_divide, "floor_divide_"), (elementwise.copysign, "copysign_"),
    (elementwise.hypot, "hypot_"), (elementwise.gcd, "gcd_"), (elementwise.lcm, "lcm_"),
    (elementwise.ldexp, "ldexp_"))]
_GENERAL = [_general(op, name) for op, name in (
    (manipulation.masked_fill, "masked_fill_"), (indexing.index_fill, "index_fill_"),
    (indexing.index_add, "index_add_"), (indexing.index_put, "index_put_"),
    (indexing.masked_scatter, "masked_scatter_"),
    (indexing.put_along_axis, "put_along_axis_"), (indexing.scatter, "scatter_"),
    (manipulation.tril, "tril_"), (manipulation.triu, "triu_"), (ops.cumsum, "cumsum_"),
    (ops.cumprod, "cumprod_"), (elementwise.lerp, "lerp_"), (elementwise.logit, "logit_"),
    (elementwise.nan_to_num, "nan_to_num_"), (elementwise.polygamma, "polygamma_"),
    (elementwise.multigammaln, "multigammaln_"),
    (elementwise.trunc, "trunc_"))]  # trunc's first argument is Paddle's ``input``
_RESHAPING = [_reshaping(op, name) for op, name in (
    (manipulation.reshape, "reshape_"), (manipulation.flatten, "flatten_"),
    (manipulation.squeeze, "squeeze_"), (manipulation.unsqueeze, "unsqueeze_"),
    (manipulation.transpose, "transpose_"), (manipulation.t, "t_"))]

# Each is also a module-level function (``core.reshape_(x, shape)``), as Paddle exports them.
for _method in _UNARY + _BINARY + _GENERAL + _RESHAPING + [cast_]:
    setattr(Tensor, _method.__name__, _method)
    globals()[_method.__name__] = _method
del _method


# ----- Paddle 3's other random fills and increment. The draws are made on the host from
# core.seed's generator (the same numbers on the CPU and a GPU), in float64, then cast to x's
# dtype and moved to x's device.

def _fill_random(x: Tensor, fn: str, instead: str, draw) -> Tensor:
    """x's values replaced by ``draw(shape)`` (a float64 host array); returns x."""
    _check(x, fn, instead=instead)
    _float_only(x, fn)
    values = np.asarray(draw(tuple(x.data.shape)), dtype=np.float64).astype(x.data.dtype)
    return _write(x, backend.array_module(x.data).asarray(values), fn)


def _positive(value, fn: str, arg: str) -> float:
    value = value.item() if isinstance(value, Tensor) else value
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) \
            or not value > 0:
        raise ValueError(f"Tensor.{fn}: {arg} must be a number > 0, got {value!r}")
    return float(value)


def exponential_(x: Tensor, lam=1.0, name: str | None = None) -> Tensor:
    """Paddle's ``Tensor.exponential_(lam=1.0)``: values drawn from the exponential
    distribution of rate ``lam`` (density ``lam * exp(-lam * v)``); returns x."""
    del name
    rate = _positive(lam, "exponential_", "lam")
    return _fill_random(x, "exponential_", "-core.log(1 - core.rand(x.shape)) / lam",
                        lambda shape: backend.rng().exponential(1.0 / rate, shape))


def cauchy_(x: Tensor, loc=0, scale=1, name: str | None = None) -> Tensor:
    """Paddle's ``cauchy_(x, loc=0, scale=1)``: values drawn from the Cauchy distribution
    with peak ``loc`` and half-width at half-maximum ``scale`` (> 0); returns x."""
    del name
    loc = loc.item() if isinstance(loc, Tensor) else loc
    if isinstance(loc, bool) or not isinstance(loc, (int, float, np.number)):
        raise TypeError(f"Tensor.cauchy_: loc must be a number, got {loc!r}")
    width = _positive(scale, "cauchy_", "scale")
    return _fill_random(x, "cauchy_", "a new tensor of Cauchy samples",
                        lambda shape: float(loc) + width * backend.rng().standard_cauchy(shape))


def _host_probabilities(x: Tensor, value, fn: str, arg: str):
    """A number, or a Tensor broadcast to x's shape, as float64 on the host (the draws are
    made there, from core.seed's generator)."""
    if isinstance(value, Tensor):
        try:
            return np.broadcast_to(backend.to_numpy(value.data).astype(np.float64),
                                   tuple(x.data.shape))
        except ValueError:
            raise ValueError(f"Tensor.{fn}: {arg} of shape {value.shape} does not broadcast "
                             f"to x's shape {x.shape}") from None
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
        raise TypeError(f"Tensor.{fn}: {arg} must be a number or a Tensor, got {value!r}")
    return np.float64(value)


def geometric_(x: Tensor, probs, name: str | None = None) -> Tensor:
    """Paddle's ``geometric_(x, probs)``: x filled as Paddle fills it, with
    ``log(u) / log(1 - probs)`` for u uniform in (0, 1): the continuous counterpart of the
    number of failures before the first success (Paddle does not round it to an integer;
    ``floor`` of it is geometric on {0, 1, ...}). ``probs`` (in (0, 1]) is a number or a
    Tensor that broadcasts to x; returns x."""
    del name
    p = _host_probabilities(x, probs, "geometric_", "probs")
    if not ((p > 0) & (p <= 1)).all():
        raise ValueError(f"Tensor.geometric_: probs must be in (0, 1], got values from "
                         f"{np.min(p)} to {np.max(p)}")
    tiny = np.finfo(np.float64).tiny  # keeps log(u) finite

    def draw(shape):
        with np.errstate(divide="ignore"):  # probs == 1: log(0) = -inf gives 0 draws
            return np.log(backend.rng().uniform(tiny, 1.0, shape)) / np.log1p(-p)
    return _fill_random(x, "geometric_", "a new tensor of geometric samples", draw)


def log_normal_(x: Tensor, mean=1.0, std=2.0, name: str | None = None) -> Tensor:
    """Paddle's ``log_normal_(x, mean=1.0, std=2.0)``: values ``exp(v)`` for v drawn from
    N(mean, std**2), as ``core.log_normal``; returns x."""
    del name
    for arg, value in (("mean", mean), ("std", std)):
        if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
            raise TypeError(f"Tensor.log_normal_: {arg} must be a number, got {value!r}")
    if std < 0:
        raise ValueError(f"Tensor.log_normal_: std must be >= 0, got {std}")
    return _fill_random(x, "log_normal_", "core.log_normal(mean, std, x.shape)",
                        lambda shape: np.exp(backend.rng().normal(float(mean), float(std),
                                                                  shape)))


def increment(x: Tensor, value=1.0, name: str | None = None) -> Tensor:
    """Paddle's ``increment(x, value=1.0)``: ``value`` added to the single element of ``x``
    (a counter, e.g. a loop's step), in place, as Paddle's dynamic graph does; returns x."""
    del name
    if not isinstance(x, Tensor):
        raise TypeError(f"increment: x must be a Tensor, got {type(x).__name__}")
    if x.size != 1:
        raise ValueError(f"increment: x must have exactly 1 element, got shape {x.shape}")
    value = value.item() if isinstance(value, Tensor) else value
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
        raise TypeError(f"increment: value must be a number, got {value!r}")
    _check(x, "increment", instead="x + value")
    xp = backend.array_module(x.data)
    return _write(x, (x.data + xp.asarray(value).astype(x.data.dtype)).astype(x.data.dtype),
                  "increment")


for _method in (exponential_, cauchy_, geometric_, log_normal_, increment):
    setattr(Tensor, _method.__name__, _method)
del _method


# ----- Paddle 3's remaining in-place variants: the incomplete gamma functions, comparisons,
# logic and bitwise ops (their bool or integer result written into x, so x must already have
# that dtype: ``_write`` keeps it), shifts, where_, addmm_, renorm_, bernoulli_, and the
# diagonal fills fill_diagonal_ / fill_diagonal_tensor_.

_MORE_BINARY = [_binary(op, name) for op, name in (
    (elementwise.gammainc, "gammainc_"), (elementwise.gammaincc, "gammaincc_"),
    (logic.equal, "equal_"), (logic.not_equal, "not_equal_"), (logic.less_than, "less_than_"),
    (logic.less_than, "less_"), (logic.less_equal, "less_equal_"),
    (logic.greater_than, "greater_than_"), (logic.greater_equal, "greater_equal_"),
    (logic.logical_and, "logical_and_"), (logic.logical_or, "logical_or_"),
    (logic.logical_xor, "logical_xor_"), (logic.bitwise_and, "bitwise_and_"),
    (logic.bitwise_or, "bitwise_or_"), (logic.bitwise_xor, "bitwise_xor_"))]
_MORE_UNARY = [_unary(logic.logical_not, "logical_not_", floats_only=False),
               _unary(logic.bitwise_not, "bitwise_not_", floats_only=False),
               _unary(logic.bitwise_not, "bitwise_invert_", floats_only=False)]
_MORE_GENERAL = [_general(op, name) for op, name in (
    (logic.bitwise_left_shift, "bitwise_left_shift_"),
    (logic.bitwise_right_shift, "bitwise_right_shift_"), (norms.renorm, "renorm_"),
    (products.addmm, "addmm_"))]

for _method in _MORE_BINARY + _MORE_UNARY + _MORE_GENERAL:
    setattr(Tensor, _method.__name__, _method)
    globals()[_method.__name__] = _method
del _method


def where_(condition, x=None, y=None, name: str | None = None) -> Tensor:
    """Paddle's ``where_(condition, x, y)``: ``core.where(condition, x, y)`` written into x,
    which is returned (y broadcasts to x; the dtype stays x's). As in Paddle,
    ``Tensor.where_`` takes the tensor as ``condition``."""
    del name
    if not isinstance(x, Tensor):
        raise TypeError(f"where_: x must be the Tensor to write into, got {type(x).__name__}")
    _check(x, "where_", condition, y, instead="core.where(condition, x, y)")
    with _in_place():
        out = search.where(condition, x, y)
    return _write(x, out.data.astype(x.data.dtype, copy=False), "where_")


def bernoulli_(x: Tensor, p=0.5, name: str | None = None) -> Tensor:
    """Paddle's ``bernoulli_(x, p=0.5)``: every value of x replaced by 1 with probability
    ``p`` (a number in [0, 1], or a Tensor of probabilities that broadcasts to x), else 0,
    drawn from core.seed's generator; returns x."""
    del name
    probs = _host_probabilities(x, p, "bernoulli_", "p")
    if not ((probs >= 0) & (probs <= 1)).all():
        raise ValueError(f"Tensor.bernoulli_: p must be in [0, 1], got values from "
                         f"{np.min(probs)} to {np.max(probs)}")
    return _fill_random(x, "bernoulli_", "core.bernoulli(core.full_like(x, p))",
                        lambda shape: backend.rng().random(shape) < probs)


def fill_diagonal_(x: Tensor, value, offset: int = 0, wrap: bool = False,
                   name: str | None = None) -> Tensor:
    """Paddle's ``Tensor.fill_diagonal_(value, offset=0, wrap=False)``: the diagonal of x set
    to ``value``, in place; returns x. As Paddle's kernel: the flat positions 0, s, 2s, ...
    with s = 1 + n_last + n_last * n_prev + ... (the step from [i, i, ..] to [i+1, i+1, ..]),
    each moved ``offset`` columns within its row (dropped when it would leave the row); a 2-D
    x stops after the first n_cols rows unless ``wrap`` (a tall matrix then restarts its
    diagonal every n_cols + 1 rows, as numpy's ``fill_diagonal(wrap=True)``); x of more than
    2 dimensions, which must all have the same size, always covers its whole diagonal."""
    del name
    if not isinstance(x, Tensor):
        raise TypeError(f"fill_diagonal_: x must be a Tensor, got {type(x).__name__}")
    value = value.item() if isinstance(value, Tensor) else value
    if isinstance(value, (list, tuple)) or not hasattr(value, "__float__"):
        raise TypeError(f"Tensor.fill_diagonal_: value must be a number, got {value!r}")
    if isinstance(offset, bool) or not hasattr(offset, "__index__"):
        raise TypeError(f"Tensor.fill_diagonal_: offset must be an int, got {offset!r}")
    shape = tuple(x.data.shape)
    if len(shape) < 2:
        raise ValueError(f"Tensor.fill_diagonal_: x must have at least 2 dimensions, got shape "
                         f"{list(shape)}")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise ValueError("Tensor.fill_diagonal_: a tensor of more than 2 dimensions must have "
                         f"every dimension of the same size, got shape {list(shape)}")
    _check(x, "fill_diagonal_", instead="core.diagonal_scatter or a mask with core.where")
    columns, step = shape[1], int(sum(np.prod(shape[i + 1:], dtype=np.int64)
                                      for i in range(len(shape))))
    end = x.data.size if wrap or len(shape) > 2 else min(x.data.size, columns * columns)
    starts = np.arange(0, end, step, dtype=np.int64)
    within = (starts % columns + int(offset) >= 0) & (starts % columns + int(offset) < columns)
    flat = (starts[within] + int(offset)).astype(np.int64)
    xp = backend.array_module(x.data)
    values = x.data.copy().reshape(-1)
    values[xp.asarray(flat)] = xp.asarray(value).astype(x.data.dtype)
    return _write(x, values.reshape(shape), "fill_diagonal_")


def fill_diagonal_tensor_(x: Tensor, y, offset: int = 0, dim1: int = 0, dim2: int = 1,
                          name: str | None = None) -> Tensor:
    """Paddle's ``fill_diagonal_tensor_(x, y, offset=0, dim1=0, dim2=1)``:
    ``core.fill_diagonal_tensor`` written into x, which is returned."""
    del name
    _check(x, "fill_diagonal_tensor_", y, instead="core.fill_diagonal_tensor(x, y, ...)")
    with _in_place():
        out = indexing.fill_diagonal_tensor(x, y, offset, dim1, dim2)
    return _write(x, out.data, "fill_diagonal_tensor_")


for _method in (where_, bernoulli_, fill_diagonal_, fill_diagonal_tensor_):
    setattr(Tensor, _method.__name__, _method)
del _method
