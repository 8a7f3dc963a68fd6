"""Comparisons and logical tests (Paddle 2.x names). They return bool tensors and no gradient."""
from __future__ import annotations

import numpy as np

from core import backend
from core.arithmetic import _promoted_arrays
from core.ops import as_input, normalize_axes
from core.tensor import Tensor

__all__ = ["all", "allclose", "any", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor",
           "equal", "equal_all", "greater_equal", "greater_than", "isclose", "isfinite", "isinf",
           "isnan", "less_equal", "less_than", "logical_and", "logical_not", "logical_or",
           "logical_xor", "not_equal"]


def _raw(value):
    return value.data if isinstance(value, Tensor) else value


def _compare(fn: str, op, promote: bool = True):
    def compare(x, y, name=None) -> Tensor:
        x = as_input(x, fn)
        a, b = x.data, _raw(y)
        # comparisons cast as arithmetic does (float32[3] == float64[] compares in float32, as
        # Paddle 3.3.1); the logical ops test truth, which a cast to integers would change
        if promote and isinstance(y, Tensor) and a.dtype is not b.dtype:
            a, b = _promoted_arrays(x, y)
        return Tensor(backend.array_module(a).asarray(op(a, b)))  # 0-D: array, not scalar

    compare.__name__ = compare.__qualname__ = fn
    compare.__doc__ = f"Element-wise ``{fn}`` of ``x`` and ``y`` (broadcast); a bool tensor."
    return compare


equal = _compare("equal", lambda a, b: a == b)
not_equal = _compare("not_equal", lambda a, b: a != b)
less_than = _compare("less_than", lambda a, b: a < b)
less_equal = _compare("less_equal", lambda a, b: a <= b)
greater_than = _compare("greater_than", lambda a, b: a > b)
greater_equal = _compare("greater_equal", lambda a, b: a >= b)
logical_and = _compare("logical_and", lambda a, b: backend.array_module(a).logical_and(a, b),
                       promote=False)
logical_or = _compare("logical_or", lambda a, b: backend.array_module(a).logical_or(a, b),
                      promote=False)
logical_xor = _compare("logical_xor", lambda a, b: backend.array_module(a).logical_xor(a, b),
                       promote=False)


def _test(fn: str):
    def test(x, name=None) -> Tensor:
        data = as_input(x, fn).data
        xp = backend.array_module(data)
        return Tensor(xp.asarray(getattr(xp, fn)(data)))

    test.__name__ = test.__qualname__ = fn
    test.__doc__ = f"Element-wise ``{fn}``; a bool tensor."
    return test


logical_not = _test("logical_not")
isfinite = _test("isfinite")
isnan = _test("isnan")
isinf = _test("isinf")


def _bits(value, fn: str, arg: str):
    """The raw array of a bool or integer Tensor (a Python bool or int for ``y``)."""
    if arg == "y" and isinstance(value, (bool, int)):
        return value
    data = as_input(value, fn, arg).data
    if data.dtype.kind not in "biu":
        raise TypeError(f"{fn}: {arg} must be a bool or integer tensor, got dtype {data.dtype}; "
                        "compare floats first (x > 0) or cast them")
    return data


def _no_out(out, fn: str) -> None:
    if out is not None:
        raise TypeError(f"{fn}: out= is not supported (got {type(out).__name__}); use the "
                        "returned tensor")


def _bitwise(fn: str, op):
    def bitwise(x, y, out=None, name: str | None = None) -> Tensor:
        del name
        _no_out(out, fn)
        a, b = _bits(x, fn, "x"), _bits(y, fn, "y")
        try:
            result = op(a, b)
        except ValueError:
            raise ValueError(f"{fn}: shapes {list(a.shape)} and {list(b.shape)} do not "
                             "broadcast") from None
        return Tensor(backend.array_module(a).asarray(result))

    bitwise.__name__ = bitwise.__qualname__ = fn
    bitwise.__doc__ = (f"Paddle's ``{fn}(x, y, out=None, name=None)``: element-wise, of bool "
                       "or integer tensors (broadcast; ``y`` may be a Python bool or int); "
                       "logical for bools. No gradient. ``out=`` is not supported.")
    return bitwise


bitwise_and = _bitwise("bitwise_and", lambda a, b: a & b)
bitwise_or = _bitwise("bitwise_or", lambda a, b: a | b)
bitwise_xor = _bitwise("bitwise_xor", lambda a, b: a ^ b)


def bitwise_not(x, out=None, name: str | None = None) -> Tensor:
    """Paddle's ``bitwise_not(x, out=None, name=None)``: ``~x`` element-wise, of a bool
    (logical not) or integer tensor. No gradient. ``out=`` is not supported."""
    del name
    _no_out(out, "bitwise_not")
    data = _bits(x, "bitwise_not", "x")
    return Tensor(backend.array_module(data).asarray(~data))


def _reduce_bool(x, axis, keepdim: bool, fn: str) -> Tensor:
    data = as_input(x, fn).data
    axes = normalize_axes(axis, data.ndim, fn)
    xp = backend.array_module(data)
    return Tensor(xp.asarray(getattr(xp, fn)(data, axis=axes, keepdims=keepdim)))


def all(x, axis=None, keepdim: bool = False, name=None) -> Tensor:  # noqa: A001 - Paddle's name
    """Whether every element along ``axis`` (None: all) is true."""
    return _reduce_bool(x, axis, keepdim, "all")


def any(x, axis=None, keepdim: bool = False, name=None) -> Tensor:  # noqa: A001 - Paddle's name
    """Whether some element along ``axis`` (None: all) is true."""
    return _reduce_bool(x, axis, keepdim, "any")


def _close(x, y, rtol, atol, equal_nan, fn: str):
    a, b = as_input(x, fn).data, as_input(y, fn, "y").data
    if a.dtype != b.dtype:
        raise TypeError(f"{fn}: x and y must have the same dtype, got {a.dtype} and {b.dtype}")
    for arg, value in (("rtol", rtol), ("atol", atol)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise ValueError(f"{fn}: {arg} must be a non-negative number, got {value!r}")
    xp = backend.array_module(a)
    try:
        return xp, xp.isclose(a, b, rtol=rtol, atol=atol, equal_nan=bool(equal_nan))
    except ValueError:
        raise ValueError(f"{fn}: shapes {list(a.shape)} and {list(b.shape)} do not "
                         "broadcast") from None


def isclose(x, y, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False,
            name: str | None = None) -> Tensor:
    """Element-wise ``|x - y| <= atol + rtol * |y|`` (broadcast); a bool tensor. NaNs are
    equal only with ``equal_nan=True``."""
    del name
    xp, close = _close(x, y, rtol, atol, equal_nan, "isclose")
    return Tensor(xp.asarray(close))


def allclose(x, y, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False,
             name: str | None = None) -> Tensor:
    """Whether ``isclose`` holds everywhere: a 0-D bool tensor."""
    del name
    xp, close = _close(x, y, rtol, atol, equal_nan, "allclose")
    return Tensor(xp.asarray(close.all()))


def equal_all(x, y, name: str | None = None) -> Tensor:
    """Whether ``x`` and ``y`` have the same shape and equal values: a 0-D bool tensor."""
    del name
    a, b = as_input(x, "equal_all").data, as_input(y, "equal_all", "y").data
    xp = backend.array_module(a)
    if a.shape != b.shape:
        return Tensor(xp.asarray(False))
    return Tensor(xp.asarray((a == b).all()))


for _fn in (equal, not_equal, less_than, less_equal, greater_than, greater_equal, logical_and,
            logical_or, logical_xor, logical_not, isfinite, isnan, isinf, all, any, isclose,
            allclose, equal_all, bitwise_and, bitwise_or, bitwise_xor, bitwise_not):
    setattr(Tensor, _fn.__name__, _fn)  # see the note on Tensor methods at the end of core/ops.py
del _fn
# Paddle's operators: & | ^ ~ are the bitwise ops (logical on bool tensors: mask & other_mask).
Tensor.__and__ = bitwise_and
Tensor.__or__ = bitwise_or
Tensor.__xor__ = bitwise_xor
Tensor.__rand__ = lambda self, other: bitwise_and(self, other)
Tensor.__ror__ = lambda self, other: bitwise_or(self, other)
Tensor.__rxor__ = lambda self, other: bitwise_xor(self, other)
Tensor.__invert__ = bitwise_not


# ----- Paddle 3.x tests: isin, isposinf / isneginf / isreal, is_empty, dtype predicates -------

def isin(x, test_x, assume_unique: bool = False, invert: bool = False,
         name: str | None = None) -> Tensor:
    """Paddle's ``isin(x, test_x, assume_unique=False, invert=False)``: whether each element of
    ``x`` occurs in ``test_x`` (any shape); ``invert=True`` gives the opposite. A bool tensor of
    x's shape. ``assume_unique`` is accepted for Paddle's signature (a speed hint)."""
    del name, assume_unique
    a = as_input(x, "isin").data
    b = as_input(test_x, "isin", "test_x").data
    xp = backend.array_module(a)
    return Tensor(xp.asarray(xp.isin(a, b, invert=bool(invert))))


def _float_test(fn: str, op):
    def test(x, name: str | None = None) -> Tensor:
        del name
        data = as_input(x, fn).data
        xp = backend.array_module(data)
        if data.dtype.kind != "f":
            return Tensor(xp.zeros(data.shape, dtype=bool))  # integers are never infinite
        return Tensor(xp.asarray(op(xp, data)))

    test.__name__ = test.__qualname__ = fn
    return test


isposinf = _float_test("isposinf", lambda xp, a: a == xp.inf)
isposinf.__doc__ = "Paddle's ``isposinf(x)``: where ``x`` is +inf; a bool tensor."
isneginf = _float_test("isneginf", lambda xp, a: a == -xp.inf)
isneginf.__doc__ = "Paddle's ``isneginf(x)``: where ``x`` is -inf; a bool tensor."


def isreal(x, name: str | None = None) -> Tensor:
    """Paddle's ``isreal(x)``: where ``x`` has no imaginary part; all true for real dtypes."""
    del name
    data = as_input(x, "isreal").data
    xp = backend.array_module(data)
    if data.dtype.kind == "c":
        return Tensor(xp.asarray(data.imag == 0))
    return Tensor(xp.ones(data.shape, dtype=bool))


def is_empty(x, name: str | None = None) -> Tensor:
    """Paddle's ``is_empty(x)``: whether ``x`` has no elements, as a 0-D bool tensor."""
    del name
    data = as_input(x, "is_empty").data
    return Tensor(backend.array_module(data).asarray(data.size == 0))


def is_floating_point(x) -> bool:
    """Paddle's ``is_floating_point(x)``: whether x's dtype is a floating type (a Python bool)."""
    return as_input(x, "is_floating_point").data.dtype.kind == "f"


def is_integer(x) -> bool:
    """Paddle's ``is_integer(x)``: whether x's dtype is an integer type (bool is not)."""
    return as_input(x, "is_integer").data.dtype.kind in "iu"


def is_complex(x) -> bool:
    """Paddle's ``is_complex(x)``: whether x's dtype is complex (a Python bool)."""
    return as_input(x, "is_complex").data.dtype.kind == "c"


less = _compare("less", lambda a, b: a < b)  # Paddle 3's alias of less_than

__all__ += ["is_complex", "is_empty", "is_floating_point", "is_integer", "isin", "isneginf",
            "isposinf", "isreal", "less"]

for _fn in (isin, isposinf, isneginf, isreal, is_empty, is_floating_point, is_integer,
            is_complex, less):
    setattr(Tensor, _fn.__name__, _fn)  # see the note on Tensor methods at the end of core/ops.py
del _fn


# ----- bit shifts of integer tensors: bitwise_left_shift and bitwise_right_shift, arithmetic (the
# sign bit is kept on a right shift) or logical (the bits as unsigned).
#
# Shift amounts outside [0, bits) are defined as Paddle's kernels define them (C leaves them
# undefined): 0, or -1 for an arithmetic right shift of a negative value. Shifts are not
# differentiable (integer tensors).

def bitwise_left_shift(x, y, is_arithmetic: bool = True, out=None,
                       name: str | None = None) -> Tensor:
    """Paddle's ``bitwise_left_shift(x, y, is_arithmetic=True, out=None)``: ``x << y``
    element-wise (broadcast) for integer tensors of one dtype (``y`` may be an int); the
    arithmetic and logical left shifts are the same."""
    del name, is_arithmetic
    return _shift(x, y, out, "bitwise_left_shift", _left)


def bitwise_right_shift(x, y, is_arithmetic: bool = True, out=None,
                        name: str | None = None) -> Tensor:
    """Paddle's ``bitwise_right_shift(x, y, is_arithmetic=True, out=None)``: ``x >> y``
    element-wise (broadcast): arithmetic (copies of the sign bit come in) or, with
    ``is_arithmetic=False``, logical (zeros come in: the bits read as unsigned)."""
    del name
    return _shift(x, y, out, "bitwise_right_shift",
                  _arithmetic_right if is_arithmetic else _logical_right)


def _shift(x, y, out, fn: str, kernel) -> Tensor:
    x = as_input(x, fn)
    if x.dtype.kind not in "iu":
        raise TypeError(f"{fn}: x must be an integer tensor, got {x.dtype}")
    xp = backend.array_module(x.data)
    if isinstance(y, Tensor):
        if y.dtype != x.dtype:
            raise TypeError(f"{fn}: y must have x's dtype {x.dtype}, got {y.dtype}")
        amounts = y.data
    elif isinstance(y, (int, np.integer)) and not isinstance(y, bool):
        amounts = xp.asarray(y, dtype=x.dtype)
    else:
        raise TypeError(f"{fn}: y must be an integer Tensor or an int, got {y!r}")
    bits = x.data.dtype.itemsize * 8
    outside = (amounts < 0) | (amounts >= bits)
    safe = xp.clip(amounts, 0, bits - 1).astype(x.data.dtype)
    result = Tensor(kernel(xp, x.data, safe, outside).astype(x.data.dtype))
    if out is None:
        return result
    if not isinstance(out, Tensor) or tuple(out.shape) != tuple(result.shape):
        raise ValueError(f"{fn}: out must be a Tensor of the result's shape {result.shape}, "
                         f"got {out!r}")
    out.set_value(result.data.astype(out.dtype))
    return out


def _left(xp, a, amounts, outside):
    return xp.where(outside, 0, xp.left_shift(a, amounts))


def _arithmetic_right(xp, a, amounts, outside):
    return xp.where(outside, xp.where(a < 0, -1, 0), xp.right_shift(a, amounts))


def _logical_right(xp, a, amounts, outside):
    unsigned = np.dtype(f"uint{a.dtype.itemsize * 8}")
    shifted = xp.right_shift(a.astype(unsigned), amounts.astype(unsigned))
    return xp.where(outside, 0, shifted).astype(a.dtype)


for _fn in (bitwise_left_shift, bitwise_right_shift):
    setattr(Tensor, _fn.__name__, _fn)  # see the note on Tensor methods at the end of core/ops.py
del _fn
# Paddle 3.3.1's operators: x << y and x >> y (arithmetic), an int on either side
Tensor.__lshift__ = bitwise_left_shift
Tensor.__rshift__ = bitwise_right_shift
Tensor.__rlshift__ = lambda self, other: bitwise_left_shift(_int_like(other, self), self)
Tensor.__rrshift__ = lambda self, other: bitwise_right_shift(_int_like(other, self), self)


def _int_like(value, like: Tensor) -> Tensor:
    """``1 << y``: the int as a tensor of y's dtype (a non-int is left for _shift to refuse)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return Tensor(backend.array_module(like.data).asarray(value, dtype=like.data.dtype))
    return value

__all__ += ["bitwise_left_shift", "bitwise_right_shift"]


def bitwise_invert(x, out=None, name: str | None = None) -> Tensor:
    """Paddle 3's ``bitwise_invert(x, out=None)``: ``bitwise_not`` under the Python array API's
    name (``~x``)."""
    del name
    _no_out(out, "bitwise_invert")
    return bitwise_not(x)


Tensor.bitwise_invert = bitwise_invert  # see the note on Tensor methods at the end of core/ops.py
