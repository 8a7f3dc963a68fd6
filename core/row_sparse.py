"""Row-sparse gradients: only the rows of a table that a batch touched (Paddle's SelectedRows).

``Embedding(sparse=True)`` gives its weight a ``RowSparseGrad`` instead of a dense array of the
whole table. It holds ``rows`` (int64, may repeat before ``coalesce``) and ``values`` (one row of
the table's width per entry). It behaves like a gradient array where the engine and optimizers
need it to: ``+`` with another row-sparse gradient concatenates, ``+`` with a dense array gives a
dense array (so a table that is also used densely still gets one correct gradient), ``copy``,
``astype``, ``shape``/``dtype``, and ``np.asarray(grad)`` / ``to_dense()`` give the dense array
(what anything unaware of sparsity sees); ``squared_norm()`` is what the per-step NaN/Inf check
reads, from the stored rows only. Optimizers update only ``rows`` (``core.optimizer.Optimizer``
documents the lazy rules); gradient clipping sees the coalesced ``values``, whose norms and
elements equal those of the dense gradient, so clipping is exact.
"""
from __future__ import annotations

import numpy as np

from core import backend


class RowSparseGrad:
    """A gradient equal to ``zeros(shape)`` with ``values[k]`` added at row ``rows[k]``."""

    __slots__ = ("rows", "values", "shape")
    base = None  # never a view of another array: the engine need not copy it

    def __init__(self, rows, values, shape):
        shape = tuple(int(n) for n in shape)
        if values.ndim != len(shape) or rows.ndim != 1 or len(rows) != values.shape[0] \
                or tuple(values.shape[1:]) != shape[1:]:
            raise ValueError(f"RowSparseGrad: rows {list(rows.shape)} and values "
                             f"{list(values.shape)} do not describe rows of a {list(shape)} "
                             "table.")
        self.rows, self.values, self.shape = rows, values, shape

    @property
    def dtype(self):
        return self.values.dtype

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def nbytes(self) -> int:
        return int(self.rows.nbytes + self.values.nbytes)

    def coalesce(self) -> RowSparseGrad:
        """The same gradient with each row once (sorted), repeated rows summed."""
        xp = backend.array_module(self.values)
        rows, inverse = xp.unique(self.rows, return_inverse=True)
        if len(rows) == len(self.rows):
            order = xp.argsort(self.rows)
            return RowSparseGrad(self.rows[order], xp.take(self.values, order, axis=0),
                                 self.shape)
        values = backend.kernels(self.values).sum_by_index(self.values, inverse.reshape(-1),
                                                           len(rows))
        return RowSparseGrad(rows, values, self.shape)

    def squared_norm(self):
        """The dense gradient's squared L2 norm as a float64 backend scalar, read from the stored
        rows only: repeated rows are summed first in the values' dtype, exactly as ``to_dense``
        sums them, then squared in float64. Every array has the size of ``values``, so nothing
        of the table's size is allocated, and nothing waits on the device (``coalesce``'s
        ``unique`` would, on a GPU). A NaN or Inf in any stored value makes it non-finite."""
        xp = backend.array_module(self.values)
        if len(self.rows) == 0:
            return xp.zeros((), dtype=xp.float64)
        order = xp.argsort(self.rows)
        rows = self.rows[order]
        # Entry k adds into slot "number of distinct rows up to k, minus one".
        slot = xp.cumsum(xp.concatenate([xp.zeros(1, dtype=bool), rows[1:] != rows[:-1]]))
        ordered = xp.take(self.values, order, axis=0)  # take: 2x numpy's fancy indexing
        sums = backend.kernels(self.values).sum_by_index(ordered, slot, len(self.values))
        return xp.square(sums, dtype=xp.float64).sum()

    def to_dense(self):
        return backend.kernels(self.values).sum_by_index(self.values, self.rows, self.shape[0])

    def __array__(self, dtype=None, copy=None):
        del copy
        dense = backend.to_numpy(self.to_dense())
        return dense if dtype is None else dense.astype(dtype)

    def copy(self) -> RowSparseGrad:
        return RowSparseGrad(self.rows.copy(), self.values.copy(), self.shape)

    def astype(self, dtype, copy: bool = True) -> RowSparseGrad:
        del copy
        return RowSparseGrad(self.rows, self.values.astype(dtype), self.shape)

    def __add__(self, other):
        if isinstance(other, RowSparseGrad):
            xp = backend.array_module(self.values)
            return RowSparseGrad(xp.concatenate([self.rows, other.rows]),
                                 xp.concatenate([self.values, other.values]), self.shape)
        dense = backend.array_module(self.values).array(other, copy=True)
        backend.add_at(dense, self.rows, self.values)
        return dense

    __radd__ = __add__

    def __setitem__(self, key, value) -> None:
        """Only ``grad[...] = 0`` (``clear_grad(set_to_zero=True)``) is meaningful here."""
        if key is not Ellipsis or np.any(np.asarray(value) != 0):
            raise TypeError("RowSparseGrad supports only grad[...] = 0; use to_dense() to edit "
                            "a row-sparse gradient as an array.")
        self.values[...] = 0

    def __repr__(self) -> str:
        return f"RowSparseGrad(shape={list(self.shape)}, rows={len(self.rows)})"


def is_row_sparse(grad) -> bool:
    return isinstance(grad, RowSparseGrad)
