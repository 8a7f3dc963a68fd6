"""Paddle's sparse element-wise arithmetic: ``paddle.sparse.add``, ``subtract``, ``multiply``
and ``divide`` of two sparse tensors of the same shape and layout (COO with the same
``sparse_dim``, or CSR); ``multiply`` and ``divide`` also take a Python number for ``y``.

The result stores the union of the two patterns (sorted, each position once): both operands'
values are summed onto that union (a position one of them lacks reads 0 there), then core's
dense ``+ - * /`` combines them, so the gradients are core's. A position neither operand stores
stays an implicit zero, also for ``divide`` (0 / 0 would be NaN: Paddle's CSR kernel writes it,
see docs/paddle.md).
"""
from __future__ import annotations

import numpy as np

from core import backend
from core.sparse.tensor import (
    SparseCooTensor,
    SparseTensor,
    as_coo,
    in_layout_of,
    link,
    sparse_input,
    sum_rows,
    unravel_keys,
    values_of,
    with_values,
)

__all__ = ["add", "divide", "multiply", "subtract"]


def _operands(x, y, fn: str) -> tuple:
    x = sparse_input(x, fn, "x")
    y = sparse_input(y, fn, "y")
    if list(x.shape) != list(y.shape):
        raise ValueError(f"{fn}: x and y must have the same shape, got {x.shape} and "
                         f"{y.shape} (sparse element-wise ops do not broadcast)")
    if x.is_sparse_coo() != y.is_sparse_coo():
        raise TypeError(f"{fn}: x and y must have the same layout, got "
                        f"{_layout(x)} and {_layout(y)}; convert one with to_sparse_coo or "
                        "to_sparse_csr")
    if x.is_sparse_coo() and x.sparse_dim() != y.sparse_dim():
        raise ValueError(f"{fn}: COO x and y must have the same sparse_dim, got "
                         f"{x.sparse_dim()} and {y.sparse_dim()}")
    if x.dtype != y.dtype:
        raise TypeError(f"{fn}: x and y must have the same dtype, got {x.dtype} and {y.dtype}")
    return x, y


def _layout(x) -> str:
    return "COO" if x.is_sparse_coo() else "CSR"


def _combine(x, y, fn: str, op):
    """``op(x values, y values)`` on the union of the patterns, in x's layout."""
    x, y = _operands(x, y, fn)
    cx, cy = as_coo(x), as_coo(y)
    xp = backend.array_module(cx.data)
    keys, inverse = xp.unique(xp.concatenate([cx.keys(), cy.keys()]), return_inverse=True)
    inverse = inverse.reshape(-1)
    count, split = len(keys), len(cx.data)
    left = sum_rows(values_of(cx), inverse[:split], count)
    right = sum_rows(values_of(cy), inverse[split:], count)
    result = op(left, right)
    out = SparseCooTensor(unravel_keys(keys, cx.shape[:cx.sparse_dim()]), result.data,
                          cx.shape, coalesced=True)
    return in_layout_of(link(out, (result,), lambda g: (g,), fn), x)


def _scaled(x, factor, fn: str, op):
    """``op(x values, factor)`` for a Python number ``factor``: the pattern of x."""
    x = sparse_input(x, fn, "x")
    values = values_of(x)
    return with_values(x, op(values, np.asarray(factor, dtype=values.dtype).item()))


def _is_number(y) -> bool:
    return isinstance(y, (int, float)) and not isinstance(y, bool)


def add(x, y, name: str | None = None):
    """Paddle's ``paddle.sparse.add(x, y, name=None)``: x + y for sparse tensors of the same
    shape and layout; the result stores the union of their patterns."""
    del name
    return _combine(x, y, "sparse.add", lambda a, b: a + b)


def subtract(x, y, name: str | None = None):
    """Paddle's ``paddle.sparse.subtract(x, y, name=None)``: x - y for sparse tensors of the
    same shape and layout; the result stores the union of their patterns."""
    del name
    return _combine(x, y, "sparse.subtract", lambda a, b: a - b)


def multiply(x, y, name: str | None = None):
    """Paddle's ``paddle.sparse.multiply(x, y, name=None)``: x * y element-wise for sparse
    tensors of the same shape and layout (the union of their patterns is stored, as Paddle's),
    or x scaled by a Python number y (x's pattern)."""
    del name
    if _is_number(y):
        return _scaled(x, y, "sparse.multiply", lambda a, b: a * b)
    return _combine(x, y, "sparse.multiply", lambda a, b: a * b)


def divide(x, y, name: str | None = None):
    """Paddle's ``paddle.sparse.divide(x, y, name=None)``: x / y element-wise for sparse
    tensors of the same shape and layout (on the union of their patterns: a value over a
    position y lacks gives inf or NaN, as the dense division does), or x divided by a Python
    number y (x's pattern)."""
    del name
    if _is_number(y):
        return _scaled(x, y, "sparse.divide", lambda a, b: a / b)
    return _combine(x, y, "sparse.divide", lambda a, b: a / b)


# Operators of the sparse tensors, as Paddle's take them between sparse tensors (and with a
# number for * and /); the rest raise, since the dense operators would act on the bare values.
def _operator(fn, reverse: bool = False):
    def method(self, other):
        return fn(other, self) if reverse else fn(self, other)
    return method


def _unsupported(symbol: str):
    def method(self, other):
        raise TypeError(f"sparse tensors support {symbol!r} only as core.sparse offers it (x + y, "
                        "x - y, x * y, x / y between sparse tensors of one layout, x * number, "
                        "x / number, x ** number, x @ y); convert with to_dense() for the dense "
                        f"operator, got {type(other).__name__}")
    return method


def _attach() -> None:
    cls = SparseTensor
    cls.__add__, cls.__sub__ = _operator(add), _operator(subtract)
    cls.__mul__, cls.__rmul__ = _operator(multiply), _operator(multiply)
    cls.__truediv__ = _operator(divide)
    cls.__neg__ = lambda self: multiply(self, -1)
    for name, symbol in (("__radd__", "+"), ("__rsub__", "-"), ("__rtruediv__", "/"),
                         ("__floordiv__", "//"), ("__rfloordiv__", "//"), ("__mod__", "%"),
                         ("__rmod__", "%"), ("__rpow__", "**")):
        setattr(cls, name, _unsupported(symbol))


_attach()
