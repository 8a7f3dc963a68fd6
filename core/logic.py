"""Comparisons and logical tests (Paddle 2.x names). They return bool tensors and no gradient."""
from __future__ import annotations

from core import backend
from core.ops import as_input, normalize_axes
from core.tensor import Tensor

__all__ = ["all", "any", "equal", "greater_equal", "greater_than", "isfinite", "isinf", "isnan",
           "less_equal", "less_than", "logical_and", "logical_not", "logical_or", "not_equal"]


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


for _fn in (equal, not_equal, less_than, less_equal, greater_than, greater_equal, logical_and,
            logical_or, logical_not, isfinite, isnan, isinf, all, any):
    setattr(Tensor, _fn.__name__, _fn)  # see the note on Tensor methods at the end of core/ops.py
del _fn
