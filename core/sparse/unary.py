"""Paddle's sparse unary math: ``paddle.sparse.abs``, ``sin``, ``tan``, ``asin``, ``atan``,
``sinh``, ``tanh``, ``asinh``, ``atanh``, ``sqrt``, ``square``, ``log1p``, ``expm1``, ``pow``,
``neg``, ``deg2rad``, ``rad2deg``, ``cast`` and ``isnan``.

Each maps 0 to 0 (which is why Paddle offers these and not ``exp`` or ``cos``), so it acts on
the stored values only and keeps the layout and pattern of ``x`` (COO or CSR; an uncoalesced
COO tensor is coalesced first, since these are not linear). The value math is
core's dense op on the values, and so is its gradient.
"""
from __future__ import annotations

import numpy as np

from core import elementwise, logic, ops
from core.arithmetic import pow as dense_pow
from core.sparse.tensor import SparseTensor, coalesced, sparse_input, values_of, with_values

__all__ = ["abs", "asin", "asinh", "atan", "atanh", "cast", "deg2rad", "expm1", "isnan",
           "log1p", "neg", "pow", "rad2deg", "sin", "sinh", "sqrt", "square", "tan", "tanh"]


def _elementwise(dense):
    """``paddle.sparse.<name>(x, name=None)``: the dense op ``dense`` (core's function of that
    name) on the stored values."""
    name = dense.__name__

    def op(x, name: str | None = None):
        del name
        x = coalesced(sparse_input(x, f"sparse.{op.__name__}"))
        return with_values(x, dense(values_of(x)))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"Paddle's ``paddle.sparse.{name}(x, name=None)``: ``{name}`` of each stored "
                  "value of the sparse tensor ``x`` (COO or CSR), same layout and pattern; "
                  "differentiable in the values.")
    return op


abs = _elementwise(ops.abs)  # noqa: A001 - Paddle's names
sin = _elementwise(ops.sin)
tan = _elementwise(elementwise.tan)
asin = _elementwise(elementwise.asin)
atan = _elementwise(elementwise.atan)
sinh = _elementwise(elementwise.sinh)
tanh = _elementwise(ops.tanh)
asinh = _elementwise(elementwise.asinh)
atanh = _elementwise(elementwise.atanh)
sqrt = _elementwise(ops.sqrt)
square = _elementwise(ops.square)
log1p = _elementwise(ops.log1p)
expm1 = _elementwise(elementwise.expm1)
neg = _elementwise(elementwise.neg)
deg2rad = _elementwise(elementwise.deg2rad)
rad2deg = _elementwise(elementwise.rad2deg)
isnan = _elementwise(logic.isnan)


def pow(x, factor, name: str | None = None):  # noqa: A001 - Paddle's name
    """Paddle's ``paddle.sparse.pow(x, factor, name=None)``: each stored value to the power
    ``factor`` (a Python number), same layout and pattern."""
    del name
    x = coalesced(sparse_input(x, "sparse.pow"))
    if isinstance(factor, bool) or not isinstance(factor, (int, float)):
        raise TypeError(f"sparse.pow: factor must be an int or a float, got {factor!r}")
    return with_values(x, dense_pow(values_of(x), factor))


def cast(x, index_dtype=None, value_dtype=None, name: str | None = None):
    """Paddle's ``paddle.sparse.cast(x, index_dtype=None, value_dtype=None, name=None)``: the
    values cast to ``value_dtype`` and the index arrays (COO ``indices``, CSR ``crows`` and
    ``cols``) to ``index_dtype`` (an integer dtype); None keeps a dtype."""
    del name
    x = coalesced(sparse_input(x, "sparse.cast"))  # a cast to int is not linear
    values = values_of(x)
    out = with_values(x, values if value_dtype is None else values.astype(value_dtype))
    if index_dtype is None:
        return out
    if np.dtype(index_dtype).kind not in "iu":
        raise TypeError(f"sparse.cast: index_dtype must be an integer dtype (int32, int64...), "
                        f"got {index_dtype!r}")
    if out.is_sparse_coo():
        out._indices = out._indices.astype(index_dtype)
    else:
        out._crows, out._cols = out._crows.astype(index_dtype), out._cols.astype(index_dtype)
    return out


SparseTensor.__pow__ = lambda self, factor: pow(self, factor)  # x ** 2, as Paddle's
