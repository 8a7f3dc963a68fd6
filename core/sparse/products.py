"""Paddle's sparse products: ``paddle.sparse.matmul``, ``masked_matmul``, ``mv`` and
``addmm``, on 2-D matrices or 3-D batches of them (no broadcasting, as Paddle's).

sparse @ dense gathers the rows of the dense operand that the stored entries pick, scales them
by the values and sums them into the output rows; sparse @ sparse pairs every entry (i, k) of x
with the entries (k, j) of y (found with searchsorted on y's entries sorted by k) and sums the
products by (i, j). Both are built from ``gather_rows`` / ``sum_rows`` and core's dense ``*``,
so the gradients (for the values and the dense operand) come with them.
"""
from __future__ import annotations

from core import backend
from core.manipulation import reshape, squeeze, transpose, unsqueeze
from core.ops import sum as dense_sum
from core.sparse.binary import add, multiply
from core.sparse.tensor import (
    SparseCooTensor,
    SparseTensor,
    as_coo,
    coalesced,
    entry_indices,
    expand,
    gather_rows,
    in_layout_of,
    link,
    sparse_input,
    sum_rows,
    unravel_keys,
    values_of,
    with_values,
)
from core.tensor import Tensor

__all__ = ["addmm", "masked_matmul", "matmul", "mv"]


def _check_dims(x, y, fn: str, xname: str = "x", yname: str = "y") -> tuple:
    """(batches, M, K, N) of x [*, M, K] @ y [*, K, N], or a clear error."""
    if x.ndim not in (2, 3) or y.ndim != x.ndim:
        raise ValueError(f"{fn}: {xname} and {yname} must both be 2-D, or both 3-D (a batch), "
                         f"got shapes {x.shape} and {y.shape}")
    if x.shape[-1] != y.shape[-2] or x.shape[:-2] != y.shape[:-2]:
        raise ValueError(f"{fn}: shapes {x.shape} and {y.shape} do not multiply: {xname}'s "
                         f"last axis must equal {yname}'s second to last, and batch sizes "
                         "must match (no broadcasting)")
    if x.dtype != y.dtype:
        raise TypeError(f"{fn}: {xname} and {yname} must have the same dtype, got {x.dtype} "
                        f"and {y.dtype}")
    batches = x.shape[0] if x.ndim == 3 else 1
    return batches, x.shape[-2], x.shape[-1], y.shape[-1]


def _all_sparse(x, fn: str, arg: str) -> None:
    if x.is_sparse_coo() and x.sparse_dim() != x.ndim:
        raise ValueError(f"{fn}: {arg} must have every axis sparse (sparse_dim {x.ndim}), got "
                         f"sparse_dim {x.sparse_dim()}")


def _row_and_inner(indices, x_ndim: int, rows: int, inner: int) -> tuple:
    """Per entry of a [*, rows, inner] sparse operand: b * rows + i and b * inner + k."""
    if x_ndim == 2:
        return indices[0], indices[1]
    return indices[0] * rows + indices[1], indices[0] * inner + indices[2]


def _sparse_dense(x, y: Tensor, dims: tuple) -> Tensor:
    batches, rows, inner, cols = dims
    row_key, inner_key = _row_and_inner(entry_indices(x), x.ndim, rows, inner)
    picked = gather_rows(reshape(y, [batches * inner, cols]), inner_key)
    scaled = picked * unsqueeze(values_of(x), -1)
    out = sum_rows(scaled, row_key, batches * rows)
    return reshape(out, [*x.shape[:-1], cols])


def _sparse_sparse(x, y, dims: tuple):
    batches, rows, inner, cols = dims
    cx, cy = as_coo(x), as_coo(y)
    xp = backend.array_module(cx.data)
    x_row, x_inner = _row_and_inner(cx._indices, cx.ndim, rows, inner)
    y_inner, _ = _row_and_inner(cy._indices, cy.ndim, inner, cols)
    y_col = cy._indices[-1]
    order = xp.argsort(y_inner, kind="stable")
    ranked = y_inner[order]
    start = xp.searchsorted(ranked, x_inner, side="left")
    counts = xp.searchsorted(ranked, x_inner, side="right") - start
    owner, rank = expand(counts)  # one pair per x entry and matching y entry
    partner = order[start[owner] + rank]
    products = gather_rows(values_of(cx), owner) * gather_rows(values_of(cy), partner)
    keys, inverse = xp.unique(x_row[owner] * cols + y_col[partner], return_inverse=True)
    summed = sum_rows(products, inverse.reshape(-1), len(keys))
    shape = [*x.shape[:-1], cols]
    out = SparseCooTensor(unravel_keys(keys, shape), summed.data, shape, coalesced=True)
    return in_layout_of(link(out, (summed,), lambda g: (g,), "sparse_matmul"), x)


def matmul(x, y, name: str | None = None):
    """Paddle's ``paddle.sparse.matmul(x, y, name=None)``: x @ y with x sparse (COO or CSR,
    every axis sparse) and y dense (the result is dense) or sparse of x's layout (the result
    is sparse, that layout). 2-D [M, K] @ [K, N], or 3-D batches [B, M, K] @ [B, K, N];
    differentiable in x's values and in y."""
    del name
    x = sparse_input(x, "sparse.matmul")
    if not isinstance(y, Tensor):
        raise TypeError(f"sparse.matmul: y must be a Tensor (dense or sparse), got "
                        f"{type(y).__name__}")
    dims = _check_dims(x, y, "sparse.matmul")
    _all_sparse(x, "sparse.matmul", "x")
    if not isinstance(y, SparseTensor):
        return _sparse_dense(x, y, dims)
    if y.is_sparse_coo() != x.is_sparse_coo():
        raise TypeError("sparse.matmul: a sparse y must have x's layout (COO @ COO or CSR @ "
                        "CSR); convert one with to_sparse_coo or to_sparse_csr")
    _all_sparse(y, "sparse.matmul", "y")
    return _sparse_sparse(x, y, dims)


def masked_matmul(x, y, mask, name: str | None = None):
    """Paddle's ``paddle.sparse.masked_matmul(x, y, mask, name=None)``: (x @ y) of dense x
    [*, M, K] and y [*, K, N], computed only where the sparse ``mask`` [*, M, N] stores an
    entry; the result has mask's layout and pattern (mask's values are not used).
    Differentiable in x and y."""
    del name
    mask = sparse_input(mask, "sparse.masked_matmul", "mask")
    for arg, value in (("x", x), ("y", y)):
        if not isinstance(value, Tensor) or isinstance(value, SparseTensor):
            raise TypeError(f"sparse.masked_matmul: {arg} must be a dense Tensor, got "
                            f"{type(value).__name__}")
    batches, rows, inner, cols = _check_dims(x, y, "sparse.masked_matmul")
    if mask.shape != [*x.shape[:-1], cols]:
        raise ValueError(f"sparse.masked_matmul: mask must have the shape of x @ y, "
                         f"{[*x.shape[:-1], cols]}, got {mask.shape}")
    _all_sparse(mask, "sparse.masked_matmul", "mask")
    # Coalesced: a repeated mask entry would otherwise hold the product once per repeat.
    mask = coalesced(mask)
    row_key, col_key = _row_and_inner(entry_indices(mask), mask.ndim, rows, cols)
    x_rows = gather_rows(reshape(x, [batches * rows, inner]), row_key)
    y_cols = reshape(transpose(y, [*range(y.ndim - 2), y.ndim - 1, y.ndim - 2]),
                     [batches * cols, inner])
    products = dense_sum(x_rows * gather_rows(y_cols, col_key), axis=-1)
    return with_values(mask, products.astype(mask.dtype))


def mv(x, vec, name: str | None = None) -> Tensor:
    """Paddle's ``paddle.sparse.mv(x, vec, name=None)``: the dense vector x @ vec of a sparse
    2-D x [M, N] (COO or CSR) and a dense vec [N]."""
    del name
    x = sparse_input(x, "sparse.mv")
    if not isinstance(vec, Tensor) or isinstance(vec, SparseTensor) or vec.ndim != 1:
        raise ValueError(f"sparse.mv: vec must be a dense 1-D Tensor, got {vec!r}")
    if x.ndim != 2:
        raise ValueError(f"sparse.mv: x must be a 2-D sparse matrix, got shape {x.shape}")
    return squeeze(matmul(x, unsqueeze(vec, -1)), -1)


def addmm(input, x, y, beta: float = 1.0, alpha: float = 1.0,  # noqa: A002, PLR0913
          name: str | None = None):
    """Paddle's ``paddle.sparse.addmm(input, x, y, beta=1.0, alpha=1.0, name=None)``:
    beta * input + alpha * (x @ y) with x sparse: dense input and y give a dense result;
    sparse input and y (x's layout) a sparse one."""
    del name
    product = matmul(x, y)
    if isinstance(product, SparseTensor):
        if not isinstance(input, SparseTensor):
            raise TypeError("sparse.addmm: with a sparse y, input must be sparse too (of x's "
                            f"layout), got {type(input).__name__}")
        return add(multiply(input, beta), multiply(product, alpha))
    if not isinstance(input, Tensor) or isinstance(input, SparseTensor):
        raise TypeError("sparse.addmm: with a dense y, input must be a dense Tensor, got "
                        f"{type(input).__name__}")
    if input.shape != product.shape:
        raise ValueError(f"sparse.addmm: input must have the shape of x @ y, "
                         f"{product.shape}, got {input.shape}")
    return input * beta + product * alpha


SparseTensor.__matmul__ = lambda self, other: matmul(self, other)
