"""The arithmetic primitives behind Tensor's operators: + - * / ** @ [] and comparisons.

Each is an op in the ``apply`` style (forward on the array module, backward closure) and handles
numpy broadcasting by summing gradients back to each input's shape (``unbroadcast``).
"""
from __future__ import annotations

import functools

import numpy as np

from core import autocast, backend, threads
from core.higher_order import captured, needs, sum_to
from core.tensor import Tensor, apply, as_tensor, is_grad_enabled, unbroadcast


def conj_if_complex(array):
    """``array``'s complex conjugate when it is complex, else ``array`` itself (no pass).

    Complex gradients follow torch's (and Paddle's) convention: the gradient of a real loss
    through a holomorphic op is ``g * conj(f'(z))``, so a product's backward multiplies by the
    conjugate of the other operand. Real arrays (and a derivative that is a Python number)
    skip the copy: one dtype check per backward."""
    dtype = getattr(array, "dtype", None)
    return array.conj() if dtype is not None and dtype.kind == "c" else array


def add(x, y, name=None) -> Tensor:
    x, y = _pair(x, y)
    xs, ys = x.data.shape, y.data.shape
    return apply(x.data + y.data, (x, y),
                 lambda g: (unbroadcast(g, xs), unbroadcast(g, ys)), "add", _add_grad)


def _add_grad(out, g):  # the tensor-level backwards (create_graph) read the inputs from out
    x, y = out._parents
    return (sum_to(g, x.shape) if needs(x) else None, sum_to(g, y.shape) if needs(y) else None)


def subtract(x, y, name=None) -> Tensor:
    x, y = _pair(x, y)
    xs, ys = x.data.shape, y.data.shape
    return apply(x.data - y.data, (x, y),
                 lambda g: (unbroadcast(g, xs), unbroadcast(-g, ys)), "subtract", _subtract_grad)


def _subtract_grad(out, g):
    x, y = out._parents
    return (sum_to(g, x.shape) if needs(x) else None, sum_to(-g, y.shape) if needs(y) else None)


def multiply(x, y, name=None) -> Tensor:
    x, y = _pair(x, y)
    a, b = x.data, y.data

    def backward(g):
        return (unbroadcast(g * conj_if_complex(b), a.shape) if not x.stop_gradient else None,
                unbroadcast(g * conj_if_complex(a), b.shape) if not y.stop_gradient else None)

    return apply(a * b, (x, y), backward, "multiply", _multiply_grad)


def _multiply_grad(out, g):
    x, y = out._parents
    return (sum_to(g * y, x.shape) if needs(x) else None,
            sum_to(g * x, y.shape) if needs(y) else None)


def divide(x, y, name=None) -> Tensor:
    """x / y, true division with broadcasting (Paddle's ``divide``, the ``/`` operator).

    Two integer operands (or an integer and a bool) divide in float32, Paddle's default float
    dtype, as Paddle's math_op_patch casts them; numpy would give float64, which then spreads
    through a float32 model. Float operands keep their dtype; two bools stay bool, as Paddle
    3.3.1's kernel divides them (``_bool_divide``)."""
    x, y = _pair(x, y)
    if x.dtype.kind in "iub" and y.dtype.kind in "iub":
        if x.data.dtype is _BOOL and y.data.dtype is _BOOL:
            return _bool_divide(x, y)
        x, y = _as_float32(x), _as_float32(y)
    a, b = x.data, y.data

    def backward(g):
        cb = conj_if_complex(b)
        return (unbroadcast(g / cb, a.shape) if not x.stop_gradient else None,
                unbroadcast(-g * conj_if_complex(a) / (cb * cb), b.shape)
                if not y.stop_gradient else None)

    return apply(a / b, (x, y), backward, "divide", _divide_grad)


def _bool_divide(x: Tensor, y: Tensor) -> Tensor:
    """bool / bool in Paddle 3.3.1 is bool: its integer kernel computes ``x / True = x``, and a
    False divisor is an integer division by zero. No gradient (bools carry none)."""
    a, b = x.data, y.data
    if not bool(b.all()):
        raise ZeroDivisionError("divide: bool division by zero (y has a False; bool / bool "
                                "divides as integers, as in Paddle)")
    return Tensor(backend.array_module(a).logical_and(a, b))


def true_divide(input, other) -> Tensor:  # noqa: A002 - Paddle's names
    """Paddle 3's ``true_divide(input, other)``: ``divide`` under its numpy/torch name (integer
    operands divide in float32 too)."""
    return divide(input, other)


def _divide_grad(out, g):
    x, y = out._parents
    return (sum_to(g / y, x.shape) if needs(x) else None,
            sum_to(-g * out / y, y.shape) if needs(y) else None)


def scale(x, scale=1.0, bias=0.0, bias_after_scale: bool = True, act=None,  # noqa: PLR0913
          name: str | None = None) -> Tensor:
    """Paddle's ``scale(x, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None)``:
    ``scale * x + bias``, or ``scale * (x + bias)`` when ``bias_after_scale`` is False. The
    output keeps ``x``'s dtype, as Paddle's kernel; ``scale`` may be a 1-element Tensor (taken
    as a constant). ``act`` (a fused activation name in Paddle) must be None: apply the
    activation after the call."""
    del name
    if not isinstance(x, Tensor):
        raise TypeError(f"scale: 'x' must be a Tensor, got {type(x).__name__} "
                        "(wrap arrays with core.to_tensor)")
    if act is not None:
        raise ValueError(f"scale: act={act!r} is not supported; act must be None (call the "
                         "activation, e.g. core.nn.functional.relu, on the result)")
    s, b = (float(v.item()) if isinstance(v, Tensor) else v for v in (scale, bias))
    for arg, value in (("scale", s), ("bias", b)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                and not hasattr(value, "__float__"):
            raise TypeError(f"scale: {arg} must be a number or a 1-element Tensor, "
                            f"got {value!r}")
    a = x.data
    out = a * s + b if bias_after_scale else (a + b) * s
    out = out.astype(a.dtype, copy=False)
    return apply(out, (x,), lambda g: ((g * s).astype(g.dtype, copy=False),), "scale",
                 _scale_grad)


def _scale_grad(out, g):
    (s,) = captured(out, "s")
    return (g * s,)


def neg(x: Tensor) -> Tensor:
    return apply(_negated(x.data), (x,), lambda g: (-g,), "neg", _neg_grad)


def _negated(a):
    try:
        return -a
    except TypeError:  # numpy and cupy refuse -bool; Paddle 3.3.1 gives the mask unchanged
        if a.dtype.kind != "b":
            raise
        return a.copy()


def _neg_grad(out, g):
    return (-g,)


def pow(x, y, name=None) -> Tensor:  # noqa: A001 - Paddle's name
    """x ** y element-wise (Paddle's ``pow``, the ``**`` operator); ``y`` a number or a Tensor.

    An integer tensor raised to a Python float computes in float32, as for ``+ - * / %``."""
    if autocast.active:  # inside paddle.amp.auto_cast: black-listed, float32 inputs
        x, y = autocast.cast_inputs("pow", x, y)
    if isinstance(y, Tensor):
        return _pow_tensor(*_pair(x, y))
    if isinstance(y, float) and isinstance(x, Tensor) and x.dtype.kind in "iub":
        x = _as_float32(x)
    a, exponent = x.data, y
    out = a ** exponent
    return apply(out, (x,), lambda g: (g * conj_if_complex(exponent * a ** (exponent - 1)),),
                 "pow", _pow_grad)


def _pow_grad(out, g):  # x ** exponent for a number exponent
    (exponent,) = captured(out, "exponent")
    return (g * exponent * out._parents[0] ** (exponent - 1),)


def _log_base(xp, a, out):
    """The base whose log d(a ** b)/db takes: a real base where it is > 0, else 1 (the gradient
    0 at a <= 0, where the real power's log is undefined); with a complex power, the base as
    complex (its principal log), 1 only at 0 (and ``a > 0`` would compare complex numbers
    lexicographically)."""
    if out.dtype.kind != "c":
        return xp.where(a > 0, a, 1)
    return xp.where(a == 0, 1, a).astype(out.dtype, copy=False)


def _pow_tensor(x: Tensor, y: Tensor) -> Tensor:
    a, b = x.data, y.data
    out = a ** b
    xp = backend.array_module(a)

    def backward(g):
        gx = None
        if not x.stop_gradient:  # g * conj(d out / d a) for complex values (conj_if_complex)
            gx = unbroadcast(g * conj_if_complex(b * a ** (b - 1)), a.shape)
        gy = None
        if not y.stop_gradient:
            gy = unbroadcast(g * conj_if_complex(out * xp.log(_log_base(xp, a, out))), b.shape)
        return gx, gy

    def grad_fn(out, g):  # d/dy takes the log of the base where it is > 0, as backward
        positive = Tensor((a > 0).astype(out.dtype)) if out.dtype.kind != "c" else None
        return (sum_to(g * y * x ** (y - 1), x.shape) if needs(x) else None,
                sum_to(g * out * (x * positive + (1 - positive)).log(), y.shape)
                if needs(y) else None)

    return apply(out, (x, y), backward, "pow", grad_fn)


def matmul(x, y, transpose_x: bool = False, transpose_y: bool = False, name=None) -> Tensor:
    """Matrix product with numpy's matmul broadcasting; 1-D operands as in numpy."""
    x, y = _pair(x, y)
    if autocast.active:  # inside paddle.amp.auto_cast: white-listed, float16 inputs
        x, y = autocast.cast_inputs("matmul", x, y)
    a = x.data.swapaxes(-1, -2) if transpose_x and x.ndim > 1 else x.data
    b = y.data.swapaxes(-1, -2) if transpose_y and y.ndim > 1 else y.data
    xp = backend.array_module(a)
    out = threads.matmul(xp, a, b)  # large products: rows split over core's threads

    def backward(g):
        a2 = conj_if_complex(a[None, :] if a.ndim == 1 else a)
        b2 = conj_if_complex(b[:, None] if b.ndim == 1 else b)
        g2 = g
        if a.ndim == 1 and b.ndim == 1:  # a dot product: g is 0-D
            g2 = g2.reshape(1, 1)
        elif a.ndim == 1:
            g2 = xp.expand_dims(g2, -2)
        elif b.ndim == 1:
            g2 = xp.expand_dims(g2, -1)
        ga = gb = None
        if not x.stop_gradient:
            ga = unbroadcast(threads.matmul(xp, g2, b2.swapaxes(-1, -2)), a2.shape)
            ga = ga.reshape(a.shape)
            ga = ga.swapaxes(-1, -2) if transpose_x and x.ndim > 1 else ga
        if not y.stop_gradient:
            gb = threads.matmul_inner(xp, a2, g2) if a2.ndim == g2.ndim == 2 else \
                unbroadcast(xp.matmul(a2.swapaxes(-1, -2), g2), b2.shape)
            gb = gb.reshape(b.shape)
            gb = gb.swapaxes(-1, -2) if transpose_y and y.ndim > 1 else gb
        return ga, gb

    grad_fn = _matmul_grad if not (transpose_x or transpose_y) else \
        lambda out, g: _matmul_grad(out, g, transpose_x, transpose_y)
    return apply(out, (x, y), backward, "matmul", grad_fn)


def _last_two_swapped(t: Tensor) -> Tensor:
    perm = list(range(t.ndim))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return t.transpose(perm)


def _matmul_grad(out, g, transpose_x: bool = False, transpose_y: bool = False):
    """matmul's backward with Tensors: g @ B^T and A^T @ g of the (transposed) operands,
    1-D operands made matrices and broadcast batch axes summed away, as ``backward``."""
    x, y = out._parents
    a = _last_two_swapped(x) if transpose_x and x.ndim > 1 else x
    b = _last_two_swapped(y) if transpose_y and y.ndim > 1 else y
    a2 = a.unsqueeze(0) if a.ndim == 1 else a
    b2 = b.unsqueeze(-1) if b.ndim == 1 else b
    g2 = g.reshape([1, 1]) if a.ndim == 1 and b.ndim == 1 else \
        g.unsqueeze(-2) if a.ndim == 1 else g.unsqueeze(-1) if b.ndim == 1 else g
    ga = gb = None
    if needs(x):
        ga = sum_to(g2 @ _last_two_swapped(b2), a2.shape).reshape(a.shape)
        ga = _last_two_swapped(ga) if transpose_x and x.ndim > 1 else ga
    if needs(y):
        gb = sum_to(_last_two_swapped(a2) @ g2, b2.shape).reshape(b.shape)
        gb = _last_two_swapped(gb) if transpose_y and y.ndim > 1 else gb
    return ga, gb


def _select(x, y, fn: str, x_wins) -> Tensor:
    """maximum/minimum: each gradient goes to the input ``x_wins(a, b)`` picks, else to y.
    Paddle promotes their operands without the 0-D rule (float32[3] with float64[] is
    float64)."""
    x, y = _pair(x, y, False)  # scalar_rule
    a, b = x.data, y.data
    xp = backend.array_module(a)
    take_x = x_wins(a, b)

    def backward(g):
        zero = xp.zeros((), dtype=g.dtype)
        return (None if x.stop_gradient else unbroadcast(xp.where(take_x, g, zero), a.shape),
                None if y.stop_gradient else unbroadcast(xp.where(take_x, zero, g), b.shape))

    def grad_fn(out, g):  # the winner's mask as a constant of g's dtype
        mask = Tensor(take_x.astype(g.dtype))
        return (sum_to(g * mask, a.shape) if needs(x) else None,
                sum_to(g * (1 - mask), b.shape) if needs(y) else None)

    # NaN wins whichever side holds it (Paddle 3.3.1, numpy and torch); fmax/fmin skip it
    value = xp.where(take_x | (a != a), a, b)
    return apply(value, (x, y), backward, fn, grad_fn)


def maximum(x, y, name: str | None = None) -> Tensor:
    """Element-wise maximum (broadcast). On ties the gradient goes to ``y``, as Paddle's
    kernel (dx = g * (x > y), dy = g * (x <= y))."""
    del name
    return _select(x, y, "maximum", lambda a, b: a > b)


def minimum(x, y, name: str | None = None) -> Tensor:
    """Element-wise minimum (broadcast). On ties the gradient goes to ``y``, as Paddle's
    kernel (dx = g * (x < y), dy = g * (x >= y))."""
    del name
    return _select(x, y, "minimum", lambda a, b: a < b)


def _integer_pair(x, y, fn: str, scalar_rule: bool) -> tuple[Tensor, Tensor]:
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}: 'x' must be a Tensor, got {type(x).__name__} "
                        "(wrap arrays with core.to_tensor)")
    x, y = _pair(x, y, scalar_rule)
    b = y.data
    if b.dtype.kind in "iub" and bool((b == 0).any()):  # as Paddle's integer kernels
        raise ZeroDivisionError(f"{fn}: integer division by zero (y has a 0)")
    return x, y


def floor_divide(x, y, name: str | None = None) -> Tensor:
    """x / y rounded down (toward -inf), element-wise with broadcasting, as Python's ``//``;
    the ``//`` operator. No gradient (Paddle defines none). An integer y must not be 0."""
    del name
    x, y = _integer_pair(x, y, "floor_divide", scalar_rule=False)  # Paddle: no 0-D rule
    return Tensor(backend.floor_divide(x.data, y.data))


def remainder(x, y, name: str | None = None) -> Tensor:
    """x - floor_divide(x, y) * y: the remainder takes the sign of ``y``, as Python's ``%``;
    the ``%`` operator. Gradients as Paddle's kernel: dx = g, dy = -g * floor(x / y)."""
    del name
    x, y = _integer_pair(x, y, "remainder", scalar_rule=True)
    a, b = x.data, y.data
    if a.dtype.kind == "c":  # numpy has no complex remainder; Paddle's is not one (docs)
        raise TypeError(f"remainder: complex operands are not supported (computing in "
                        f"{a.dtype}); take the remainder of the real and imaginary parts")
    xp = backend.array_module(a)

    def backward(g):
        return (None if x.stop_gradient else unbroadcast(g, a.shape),
                None if y.stop_gradient else unbroadcast(-g * xp.floor_divide(a, b), b.shape))

    return apply(xp.remainder(a, b), (x, y), backward, "remainder")


mod = remainder  # Paddle's alias


def getitem(x: Tensor, index) -> Tensor:
    index = _raw_index(index)
    shape, dtype = x.data.shape, x.data.dtype
    xp = backend.array_module(x.data)

    def backward(g):
        full = xp.zeros(shape, dtype=dtype)
        if _is_advanced(index):
            backend.add_at(full, index, g)  # repeated indices must add up, not overwrite
        else:
            full[index] = g
        return (full,)

    return apply(x.data[index], (x,), backward, "getitem", _getitem_grad)


def _getitem_grad(out, g):
    index, shape = captured(out, "index", "shape")
    return (_scattered(g, index, shape),)


def _scattered(g: Tensor, index, shape: tuple) -> Tensor:
    """getitem's gradient as a recorded op: ``g`` written (added, for repeated advanced
    indices) into zeros of the input's ``shape``; its own gradient is getitem again."""
    xp = backend.array_module(g.data)
    full = xp.zeros(shape, dtype=g.dtype)
    if _is_advanced(index):
        backend.add_at(full, index, g.data)
    else:
        full[index] = g.data
    return apply(full, (g,), lambda gg: (gg[index],), "getitem_grad",
                 lambda _out, gg: (getitem(gg, index),))


def setitem(x: Tensor, index, value) -> None:
    """``x[index] = value`` in place (Paddle's ``Tensor.__setitem__``).

    ``index`` is anything ``__getitem__`` takes (ints, slices, ``None``, ``...``, integer or
    boolean arrays and Tensors); ``value`` a scalar, list, numpy array or Tensor, broadcast to
    the indexed positions and cast to ``x``'s dtype. No graph is recorded: with grad enabled,
    ``x`` and a Tensor ``value`` must not need gradients (docs/paddle.md says why and what to
    use instead); under ``core.no_grad()`` anything may be assigned, e.g. a Parameter's rows.
    """
    _check_no_graph(x, value)
    xp = backend.array_module(x.data)
    value = _value_array(value, x.data.dtype, xp)
    if not getattr(getattr(x.data, "flags", None), "writeable", True) or _broadcast(x.data):
        # expand's broadcast view: numpy's is read-only (cupy has no such flag), and cupy's
        # would write every row that shares the memory at once
        x.data = x.data.copy()
    try:
        x.data[_raw_index(index)] = value
    except (IndexError, ValueError, TypeError) as err:
        raise type(err)(f"Tensor.__setitem__: cannot assign a value of shape "
                        f"{list(value.shape)} at index {index!r} of a tensor of shape "
                        f"{x.shape}: {err}") from None
    x._value_range = None  # the bounds to_tensor recorded no longer hold


def _broadcast(array) -> bool:
    """Whether elements of ``array`` share memory (a zero stride, as broadcasting makes)."""
    return array.size > 1 and 0 in array.strides


def _value_array(value, dtype, xp):
    """``value`` as an array of ``dtype`` on the tensor's device (host values are uploaded)."""
    if value is None:  # numpy would write NaN into a float tensor
        raise TypeError("Tensor.__setitem__: the value is None; give a number, an array or a "
                        "Tensor.")
    try:
        return xp.asarray(value.data if isinstance(value, Tensor) else value, dtype=dtype)
    except (TypeError, ValueError) as err:
        raise TypeError(f"Tensor.__setitem__: value {value!r} cannot be made an array of the "
                        f"tensor's dtype {dtype}: {err}") from None


def _check_no_graph(x: Tensor, value) -> None:
    """Refuse an assignment autograd would get wrong. Ops recorded earlier hold ``x`` itself
    as their parent (no version counter), so ``x`` cannot start a new history in place."""
    if not is_grad_enabled():
        return
    if not x.stop_gradient:
        raise RuntimeError(
            "Tensor.__setitem__: the tensor needs a gradient (stop_gradient=False), and core "
            "cannot record an in-place assignment in the graph. Build a new tensor instead "
            "(core.where(mask, value, x), core.concat of slices), or assign inside "
            "`with core.no_grad():` when the change is not to be differentiated (editing a "
            "Parameter's values).")
    if isinstance(value, Tensor) and not value.stop_gradient:
        raise RuntimeError(
            "Tensor.__setitem__: the assigned value needs a gradient (stop_gradient=False), "
            "which an in-place assignment cannot pass on. Build a new tensor so the gradient "
            "reaches the value (core.where, core.concat, core.stack), or assign "
            "value.detach() to copy its values without one.")


def _raw_index(index):
    if isinstance(index, Tensor):
        return index.data
    if isinstance(index, tuple):
        return tuple(i.data if isinstance(i, Tensor) else i for i in index)
    return index


def _is_advanced(index) -> bool:
    parts = index if isinstance(index, tuple) else (index,)
    return any(hasattr(p, "shape") and p.ndim > 0 or isinstance(p, list) for p in parts)


def _pair(x, y, scalar_rule: bool = True) -> tuple[Tensor, Tensor]:
    """``x`` and ``y`` as Tensors of one dtype (Paddle 3.3.1's promotion, see ``_promoted``);
    ``scalar_rule=False`` for the ops whose promotion ignores 0-D operands (floor_divide,
    maximum, minimum)."""
    if isinstance(x, Tensor):
        if isinstance(y, Tensor):  # equal dtypes (the common case) decide nothing more
            if x.data.dtype is y.data.dtype:
                return x, y
            return _promote(x, y, scalar_rule)
        if isinstance(y, float) and x.dtype.kind in "iub":
            x = _as_float32(x)
        elif type(y) is int and x.data.dtype is _BOOL:  # not a bool: type(True) is bool
            x = _as_int64(x)
        return x, _scalar(y, x)
    if not isinstance(y, Tensor):  # two arrays: no Tensor says which device or graph
        raise backend.NotATensorError(f"{backend.called_op()}: {backend.NOT_A_TENSOR}")
    if isinstance(x, float) and y.dtype.kind in "iub":
        y = _as_float32(y)
    elif type(x) is int and y.data.dtype is _BOOL:
        y = _as_int64(y)
    return _scalar(x, y), y


_BOOL = np.dtype("bool")  # one object in numpy and cupy alike: `is` is the cheapest test


def _as_int64(x: Tensor) -> Tensor:
    """A bool tensor meeting a Python int computes in int64, as Paddle 3.3.1 promotes it
    (``mask + 1`` is int64; cast to bool, ``mask / -2`` would divide by True)."""
    return Tensor(x.data.astype("int64"))


def _scalar(value, like: Tensor) -> Tensor:
    """``value`` as a constant beside ``like``: its dtype, except that a Python complex meeting a
    real tensor is complex64 (complex128 beside float64), as Paddle promotes ``x * 1j``; cast to
    ``like``'s real dtype, numpy would refuse the imaginary part."""
    if isinstance(value, complex) and like.dtype.kind != "c":
        dtype = "complex128" if like.dtype == "float64" else "complex64"
        return Tensor(backend.array_module(like.data).asarray(value, dtype=dtype))
    return as_tensor(value, like=like)


def _promote(x: Tensor, y: Tensor, scalar_rule: bool = True) -> tuple[Tensor, Tensor]:
    """``x`` and ``y`` cast to the dtype ``_promoted`` picks. A cast of a tensor that needs a
    gradient is recorded, so the gradient comes back in the tensor's own dtype (a float64 0-D
    tensor in a float32 product receives a float64 gradient, as in Paddle)."""
    a, b = x.data, y.data
    dtype = _promoted(a.dtype, b.dtype, a.ndim == 0, b.ndim == 0, scalar_rule)
    return _cast(x, dtype), _cast(y, dtype)


_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}  # Paddle promotes across these in order


@functools.cache
def _promoted(dx, dy, x_0d: bool, y_0d: bool, scalar_rule: bool = True):
    """The dtype Paddle 3.3.1 computes ``x op y`` in (GetPromoteDtype in phi's
    type_promotion.h, measured in tests/core/data/paddle331/misc/promotion.json). With
    ``scalar_rule``, a 0-D tensor meeting an N-D tensor of the same kind (both integer, both
    float or both complex) acts as a Python number would: the N-D tensor's dtype wins
    (``float32[3] * float64[]`` is float32, ``int32[3] + int64[]`` int32). Otherwise, and for
    two 0-D or two N-D tensors, ``_promote_types``. Paddle refuses two N-D tensors of different
    kinds other than float and complex (int32 + int64, int64 + float32); core promotes them
    with the same table (docs/paddle.md)."""
    kx, ky = _CATEGORY.get(dx.kind), _CATEGORY.get(dy.kind)
    if kx is None or ky is None:  # not a numeric dtype Paddle has (datetime, str): numpy's
        return np.result_type(dx, dy)
    if scalar_rule and x_0d != y_0d and kx == ky and kx:
        return dy if x_0d else dx
    return _promote_types(dx, dy, kx, ky)


def _promote_types(dx, dy, kx: int, ky: int):
    """Paddle's promoteTypes: within a kind the wider dtype (integers as numpy: uint8 with int8
    is int16); across kinds the higher kind's dtype (bool < integer < float < complex), where
    numpy would widen (int64 with float32 is float64 there, int32 with complex64 complex128);
    and a complex64 meeting float64 becomes complex128."""
    if kx == ky:
        return np.result_type(dx, dy)
    high, low = (dx, dy) if kx > ky else (dy, dx)
    if high == np.complex64 and low == np.float64:
        return np.dtype(np.complex128)
    return high


def _cast(x: Tensor, dtype) -> Tensor:
    if x.data.dtype == dtype:
        return x
    return Tensor(x.data.astype(dtype)) if x.stop_gradient else x.astype(dtype)


def _promoted_arrays(x: Tensor, y):
    """The arrays a comparison of ``x`` with ``y`` (a Tensor, a number, an array) compares: a
    Tensor ``y`` of another dtype and ``x`` cast as arithmetic promotes them, so that
    ``float32[3] == float64[]`` compares in float32, as Paddle 3.3.1 does."""
    a = x.data
    if not isinstance(y, Tensor):
        return a, y
    b = y.data
    if a.dtype is b.dtype:
        return a, b
    dtype = _promoted(a.dtype, b.dtype, a.ndim == 0, b.ndim == 0)
    return a.astype(dtype, copy=False), b.astype(dtype, copy=False)


def _as_float32(x: Tensor) -> Tensor:
    """An integer tensor meeting a Python float computes in float32, as Paddle promotes it
    (as ``like`` it cast 2.5 to the integer 2); integers carry no gradient to lose."""
    return Tensor(x.data.astype("float32"))


def _compare(op):
    def method(self, other):
        if isinstance(other, Tensor):
            a, b = self.data, other.data
            if a.dtype is not b.dtype:  # the common equal dtypes skip _promoted_arrays' call
                a, b = _promoted_arrays(self, other)
            return Tensor(op(a, b))
        return Tensor(op(self.data, other))
    return method


Tensor.__add__ = add
Tensor.__radd__ = lambda self, other: add(other, self)
Tensor.__sub__ = subtract
Tensor.__rsub__ = lambda self, other: subtract(other, self)
Tensor.__mul__ = multiply
Tensor.__rmul__ = lambda self, other: multiply(other, self)
Tensor.__truediv__ = divide
Tensor.__rtruediv__ = lambda self, other: divide(other, self)
Tensor.__neg__ = neg
Tensor.__floordiv__ = floor_divide
Tensor.__rfloordiv__ = lambda self, other: floor_divide(*_pair(other, self))  # 2.5 // i: float
Tensor.__mod__ = remainder
Tensor.__rmod__ = lambda self, other: remainder(*_pair(other, self))
Tensor.__pow__ = pow
Tensor.__rpow__ = lambda self, other: _pow_tensor(*_pair(other, self))  # 2.5 ** i: float32
Tensor.__matmul__ = matmul
Tensor.__rmatmul__ = lambda self, other: matmul(other, self)
Tensor.__getitem__ = getitem
Tensor.__setitem__ = setitem
Tensor.__lt__ = _compare(lambda a, b: a < b)
Tensor.__le__ = _compare(lambda a, b: a <= b)
Tensor.__gt__ = _compare(lambda a, b: a > b)
Tensor.__ge__ = _compare(lambda a, b: a >= b)
Tensor.__eq__ = _compare(lambda a, b: a == b)  # element-wise, as in Paddle
Tensor.__ne__ = _compare(lambda a, b: a != b)
Tensor.add, Tensor.subtract, Tensor.multiply, Tensor.divide = add, subtract, multiply, divide
Tensor.matmul, Tensor.pow, Tensor.scale = matmul, pow, scale
Tensor.maximum, Tensor.minimum = maximum, minimum
Tensor.floor_divide, Tensor.remainder, Tensor.mod = floor_divide, remainder, remainder
