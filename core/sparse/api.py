"""Every public name of Paddle's sparse API, gathered for ``core.sparse.__getattr__``.

Importing this module imports every sparse API module, so the operators that ``binary``,
``unary`` and ``matmul`` attach to the sparse tensor classes are in place before any sparse
tensor is made (each way to make one comes through here: ``core.sparse.<name>`` or the Tensor
methods of ``core.sparse.methods``).
"""
from __future__ import annotations

from core.sparse import nn
from core.sparse.binary import add, divide, multiply, subtract
from core.sparse.products import addmm, masked_matmul, matmul, mv
from core.sparse.shape import reshape, slice, sum, transpose
from core.sparse.tensor import (
    coalesce,
    dense_to_coo,
    dense_to_csr,
    is_same_shape,
    sparse_coo_tensor,
    sparse_csr_tensor,
)
from core.sparse.unary import (
    abs,
    asin,
    asinh,
    atan,
    atanh,
    cast,
    deg2rad,
    expm1,
    isnan,
    log1p,
    neg,
    pow,
    rad2deg,
    sin,
    sinh,
    sqrt,
    square,
    tan,
    tanh,
)

__all__ = ["abs", "add", "addmm", "asin", "asinh", "atan", "atanh", "cast", "coalesce",
           "deg2rad", "dense_to_coo", "dense_to_csr", "divide", "expm1", "is_same_shape",
           "isnan", "log1p", "masked_matmul", "matmul", "multiply", "mv", "neg", "nn", "pow",
           "rad2deg", "reshape", "sin", "sinh", "slice", "sparse_coo_tensor",
           "sparse_csr_tensor", "sqrt", "square", "subtract", "sum", "tan", "tanh",
           "transpose"]
