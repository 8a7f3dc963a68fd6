"""The sparse-tensor methods of a dense ``core.Tensor``: ``to_sparse_coo``, ``to_sparse_csr``,
``to_dense``, ``is_sparse``, ``is_sparse_coo``, ``is_sparse_csr`` and ``is_same_shape``.

``core/__init__.py`` imports this module, so every dense Tensor has these methods. The
conversions import the sparse API only when called, so ``import core`` does not load it. The
sparse tensor classes override every one of these methods.
"""
from __future__ import annotations

import importlib

from core.tensor import Tensor


def _sparse_tensor_module():
    # The whole API, not only core.sparse.tensor: core.sparse.api puts the sparse tensors'
    # operators in place (see there).
    return importlib.import_module("core.sparse.api")


def to_sparse_coo(self, sparse_dim: int):
    """Paddle's ``Tensor.to_sparse_coo(sparse_dim)``: a COO tensor of the nonzero entries over
    the first ``sparse_dim`` axes; the rest stay dense in its values. Differentiable."""
    return _sparse_tensor_module().dense_to_coo(self, sparse_dim)


def to_sparse_csr(self):
    """Paddle's ``Tensor.to_sparse_csr()``: a CSR tensor of a 2-D or 3-D tensor's nonzero
    entries. Differentiable."""
    return _sparse_tensor_module().dense_to_csr(self)


def to_dense(self):
    """Paddle's ``Tensor.to_dense()``: a dense tensor is its own dense form."""
    return self


def is_sparse(self) -> bool:
    """Paddle's ``Tensor.is_sparse()``: False for a dense tensor."""
    return False


def is_sparse_coo(self) -> bool:
    """Paddle's ``Tensor.is_sparse_coo()``: False for a dense tensor."""
    return False


def is_sparse_csr(self) -> bool:
    """Paddle's ``Tensor.is_sparse_csr()``: False for a dense tensor."""
    return False


def is_same_shape(self, y) -> bool:
    """Paddle's ``Tensor.is_same_shape(y)``: whether ``y`` (dense or sparse) has this shape."""
    return list(self.shape) == list(y.shape)


for _fn in (to_sparse_coo, to_sparse_csr, to_dense, is_sparse, is_sparse_coo, is_sparse_csr,
            is_same_shape):
    setattr(Tensor, _fn.__name__, _fn)
del _fn
