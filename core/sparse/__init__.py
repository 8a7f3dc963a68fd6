"""``paddle.sparse``: COO and CSR sparse tensors.

Paddle's sparse tensor API (``sparse_coo_tensor``, ``sparse_csr_tensor``, ``matmul``, ``add``,
the unary math, ``sum``, ``transpose``, ``reshape``, ``slice``, ``core.sparse.nn``...) lives in
the modules of this package and is imported on first use through this module's
``__getattr__``, so that ``import core`` does not pay for it. The Tensor methods
``to_sparse_coo``, ``to_sparse_csr``, ``is_sparse``... of the dense Tensor are attached by
``core.sparse.methods``, which ``core/__init__.py`` imports. (The row-sparse gradients of
``Embedding(sparse=True)``, Paddle's SelectedRows, are ``core.row_sparse``.)
"""
from __future__ import annotations

import importlib

# Paddle's sparse API (core.sparse.api gathers it from the modules beside this one).
_API = ("sparse_coo_tensor", "sparse_csr_tensor", "coalesce", "is_same_shape", "matmul",
        "masked_matmul", "mv", "addmm", "add", "subtract", "multiply", "divide", "abs", "sin",
        "tan", "asin", "atan", "sinh", "tanh", "asinh", "atanh", "sqrt", "square", "log1p",
        "expm1", "pow", "neg", "deg2rad", "rad2deg", "cast", "isnan", "sum", "transpose",
        "reshape", "slice", "nn")

__all__ = list(_API)


def __getattr__(name: str):
    """Paddle's sparse API, imported on first use (see the module docstring)."""
    if name not in _API:
        raise AttributeError(f"module 'core.sparse' has no attribute '{name}'; paddle.sparse's "
                             f"names here are: {', '.join(sorted(_API))}")
    value = getattr(importlib.import_module("core.sparse.api"), name)
    globals()[name] = value  # later look-ups skip this function
    return value
