"""Comparisons and logical tests (Paddle 2.x names). They return bool tensors and no gradient."""
from __future__ import annotations

from core import backend
from core.ops import as_input, normalize_axes
from core.tensor import Tensor

__all__ = ["all", "allclose", "any", "equal", "equal_all", "greater_equal", "greater_than",
           "isclose", "isfinite", "isinf", "isnan", "less_equal", "less_than", "logical_and",
           "logical_not", "logical_or", "logical_xor", "not_equal"]


def _raw(value):
    return value.data if isinstance(value, Tensor) else value


def _compare(fn: str, op):
    def compare(x, y) -> Tensor:
        a = as_input(x, fn).data
        return Tensor(backend.array_module(a).asarray(op(a, _raw(y))))  # 0-D: array, not scalar

    compare.__name__ = compare.__qualname__ = fn
    compare.__doc__ = f"Element-wise ``{fn}`` of ``x`` and ``y`` (broadcast); a bool tensor."
    return compare


equal = _compare("equal", lambda a, b: a == b)
not_equal = _compare("not_equal", lambda a, b: a != b)
less_than = _compare("less_than", lambda a, b: a < b)
less_equal = _compare("less_equal", lambda a, b: a <= b)
greater_than = _compare("greater_than", lambda a, b: a > b)
greater_equal = _compare("greater_equal", lambda a, b: a >= b)
logical_and = _compare("logical_and", lambda a, b: backend.array_module(a).logical_and(a, b))
logical_or = _compare("logical_or", lambda a, b: backend.array_module(a).logical_or(a, b))
logical_xor = _compare("logical_xor", lambda a, b: backend.array_module(a).logical_xor(a, b))


def _test(fn: str):
    def test(x) -> Tensor:
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


def _reduce_bool(x, axis, keepdim: bool, fn: str) -> Tensor:
    data = as_input(x, fn).data
    axes = normalize_axes(axis, data.ndim, fn)
    xp = backend.array_module(data)
    return Tensor(xp.asarray(getattr(xp, fn)(data, axis=axes, keepdims=keepdim)))


def all(x, axis=None, keepdim: bool = False) -> Tensor:  # noqa: A001 - Paddle's name
    """Whether every element along ``axis`` (None: all) is true."""
    return _reduce_bool(x, axis, keepdim, "all")


def any(x, axis=None, keepdim: bool = False) -> Tensor:  # noqa: A001 - Paddle's name
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
            allclose, equal_all):
    setattr(Tensor, _fn.__name__, _fn)  # see the note on Tensor methods at the end of core/ops.py
del _fn
