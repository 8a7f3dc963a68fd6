"""Paddle's sparse reductions and reshapes: ``paddle.sparse.sum``, ``transpose``, ``reshape``
and ``slice``. Each moves or drops index rows (COO; a CSR tensor goes through COO and back),
sums entries that land on one position, and acts on the dense axes of the values with core's
dense op, so gradients flow to the values.
"""
from __future__ import annotations

import math

import numpy as np

from core import backend
from core.indexing import _slice as dense_slice  # paddle.slice (core.indexing names it _slice)
from core.manipulation import transpose as dense_transpose
from core.ops import sum as dense_sum
from core.sparse.tensor import (
    SparseCooTensor,
    as_coo,
    coalesce,
    gather_rows,
    in_layout_of,
    link,
    sparse_input,
    unravel_keys,
    values_of,
)
from core.tensor import Tensor

__all__ = ["reshape", "slice", "sum", "transpose"]


def _coo(indices, values: Tensor, shape, coalesced: bool = False) -> SparseCooTensor:
    """A COO tensor holding ``values`` (a dense Tensor) at ``indices``; gradients reach them."""
    out = SparseCooTensor(indices, values.data, shape, coalesced=coalesced)
    return link(out, (values,), lambda g: (g,), "sparse_coo")


def _axes(axis, ndim: int, fn: str) -> list[int]:
    """``axis`` (None, an int, a list or tuple of ints, or a dense Tensor of them, as Paddle's
    dense ``sum`` takes) as sorted non-negative axes."""
    if axis is None:
        return list(range(ndim))
    if isinstance(axis, Tensor):  # list() of a 0-D Tensor would be [], no axis at all
        axis = axis.tolist()
    if not isinstance(axis, (int, np.integer, list, tuple)):
        raise TypeError(f"{fn}: axis must be None, an int, a list or tuple of ints or a Tensor, "
                        f"got {type(axis).__name__}")
    listed = [axis] if isinstance(axis, (int, np.integer)) else list(axis)
    out = set()
    for a in listed:
        if isinstance(a, bool) or not isinstance(a, (int, np.integer)) or not -ndim <= a < ndim:
            raise ValueError(f"{fn}: axis {a!r} is out of range for a {ndim}-D tensor; "
                             f"allowed: {-ndim}..{ndim - 1}")
        out.add(int(a) % ndim)
    return sorted(out)


def sum(x, axis=None, dtype=None, keepdim: bool = False, name: str | None = None):  # noqa: A001
    """Paddle's ``paddle.sparse.sum(x, axis=None, dtype=None, keepdim=False, name=None)``: the
    sum over ``axis`` (None: every axis) as a sparse tensor of x's layout where the result is
    2-D or 3-D (else COO). Summing every axis gives shape [1] (with ``keepdim``, [1] * ndim),
    as Paddle's kernel does. ``dtype`` casts the values first."""
    del name
    x = sparse_input(x, "sparse.sum")
    full = axis is None
    axes = _axes(axis, x.ndim, "sparse.sum")
    coo = as_coo(x)
    values = values_of(coo) if dtype is None else values_of(coo).astype(dtype)
    sparse_dim = coo.sparse_dim()
    dense_axes = [a - sparse_dim + 1 for a in axes if a >= sparse_dim]
    if dense_axes:
        values = dense_sum(values, axis=dense_axes, keepdim=keepdim)
    summed = [a for a in axes if a < sparse_dim]
    xp = backend.array_module(coo.data)
    index = coo._indices
    kept = [a for a in range(sparse_dim) if a not in summed]
    shape = [1 if a in axes else n for a, n in enumerate(coo.shape)]
    if keepdim:
        index = xp.where(xp.asarray([[a in summed] for a in range(sparse_dim)]), 0, index)
    else:
        index = index[kept]
        shape = [n for a, n in enumerate(shape) if a not in axes]
    if full and not keepdim:  # Paddle's kernel gives [1], not a 0-D tensor
        index, shape = xp.zeros((1, index.shape[1]), dtype=np.int64), [1]
    out = coalesce(_coo(index, values, shape))
    return in_layout_of(out, x)


def transpose(x, perm, name: str | None = None):
    """Paddle's ``paddle.sparse.transpose(x, perm, name=None)``: the axes of x permuted as
    ``perm`` (a permutation of 0..ndim-1; sparse axes stay among the sparse ones), in x's
    layout; a COO result is coalesced (sorted)."""
    del name
    x = sparse_input(x, "sparse.transpose")
    perm = [int(p) for p in perm]
    if sorted(p % x.ndim if -x.ndim <= p < x.ndim else p for p in perm) != list(range(x.ndim)):
        raise ValueError(f"sparse.transpose: perm must be a permutation of 0..{x.ndim - 1}, "
                         f"got {perm}")
    perm = [p % x.ndim for p in perm]
    coo = as_coo(x)
    sparse_dim = coo.sparse_dim()
    if sorted(perm[:sparse_dim]) != list(range(sparse_dim)):
        raise ValueError(f"sparse.transpose: perm {perm} moves a sparse axis (the first "
                         f"{sparse_dim}) among the dense ones; sparse axes must stay sparse")
    values = values_of(coo)
    if sparse_dim < x.ndim:
        values = dense_transpose(values, [0] + [p - sparse_dim + 1 for p in perm[sparse_dim:]])
    shape = [x.shape[p] for p in perm]
    out = coalesce(_coo(coo._indices[perm[:sparse_dim]], values, shape))
    return in_layout_of(out, x)


def _new_shape(shape, old: list[int], fn: str) -> list[int]:
    """Paddle's reshape rules: 0 copies the old size, one -1 is inferred."""
    shape = [old[i] if n == 0 and i < len(old) else int(n) for i, n in enumerate(shape)]
    known = math.prod(n for n in shape if n != -1)
    total = math.prod(old)
    if shape.count(-1) > 1 or any(n < -1 for n in shape) \
            or (-1 in shape and (known == 0 or total % known)) \
            or (-1 not in shape and known != total):
        raise ValueError(f"{fn}: cannot reshape a tensor of shape {old} ({total} elements) to "
                         f"{shape}; allowed: sizes whose product is {total}, one -1, 0 for an "
                         "unchanged size")
    return [total // known if n == -1 else n for n in shape]


def reshape(x, shape, name: str | None = None):
    """Paddle's ``paddle.sparse.reshape(x, shape, name=None)``: x with a new shape (the same
    number of elements; 0 keeps a size, one -1 is inferred), in x's layout (CSR needs a 2-D or
    3-D result). Only the sparse axes are reshaped: the dense axes of a hybrid COO tensor must
    end the new shape unchanged."""
    del name
    x = sparse_input(x, "sparse.reshape")
    coo = as_coo(x)
    sparse_dim = coo.sparse_dim()
    dense = coo.shape[sparse_dim:]
    new = _new_shape(list(shape), coo.shape, "sparse.reshape")
    if dense and new[len(new) - len(dense):] != dense:
        raise ValueError(f"sparse.reshape: the dense axes {dense} of x must end the new shape "
                         f"unchanged, got {new}")
    new_sparse = new[:len(new) - len(dense)]
    if x.is_sparse_csr() and len(new) not in (2, 3):
        raise ValueError(f"sparse.reshape: a CSR tensor reshapes to 2-D or 3-D, got {new}")
    index = unravel_keys(coo.keys(), new_sparse)
    out = _coo(index, values_of(coo), new, coalesced=coo._coalesced)
    return in_layout_of(out, x)


def slice(x, axes, starts, ends, name: str | None = None):  # noqa: A001 - Paddle's name
    """Paddle's ``paddle.sparse.slice(x, axes, starts, ends, name=None)``: x restricted to
    ``starts[i] <= index < ends[i]`` on each axis ``axes[i]`` (negative bounds count from the
    end; bounds are clipped to the axis), in x's layout."""
    del name
    x = sparse_input(x, "sparse.slice")
    if not len(axes) == len(starts) == len(ends):
        raise ValueError(f"sparse.slice: axes, starts and ends must have one entry each per "
                         f"sliced axis, got lengths {len(axes)}, {len(starts)} and {len(ends)}")
    coo = as_coo(x)
    xp = backend.array_module(coo.data)
    sparse_dim = coo.sparse_dim()
    index, shape = coo._indices, coo.shape
    keep = xp.ones(index.shape[1], dtype=bool)
    lows = [0] * sparse_dim
    dense = {}  # values axis -> (lo, hi)
    for axis, start, end in zip(_axes_list(axes, x.ndim), starts, ends):
        lo, hi = _bounds(int(start), int(end), shape[axis])
        shape[axis] = hi - lo
        if axis < sparse_dim:
            keep &= (index[axis] >= lo) & (index[axis] < hi)
            lows[axis] = lo
        else:
            dense[axis - sparse_dim + 1] = (lo, hi)
    chosen = xp.nonzero(keep)[0]
    values = gather_rows(values_of(coo), chosen)
    if dense:
        values = dense_slice(values, list(dense), [lo for lo, _ in dense.values()],
                            [hi for _, hi in dense.values()])
    shift = xp.asarray(lows, dtype=np.int64).reshape(-1, 1)
    out = _coo(index[:, chosen] - shift, values, shape, coalesced=coo._coalesced)
    return in_layout_of(out, x)


def _bounds(start: int, end: int, size: int) -> tuple[int, int]:
    """[lo, hi) of a slice of an axis of ``size``: negative bounds count from the end, both
    are clipped to the axis, and hi is at least lo."""
    lo = min(max(start + size if start < 0 else start, 0), size)
    hi = min(max(end + size if end < 0 else end, 0), size)
    return lo, max(hi, lo)


def _axes_list(axes, ndim: int) -> list[int]:
    out = []
    for a in axes:
        if isinstance(a, bool) or not isinstance(a, (int, np.integer)) or not -ndim <= a < ndim:
            raise ValueError(f"sparse.slice: axis {a!r} is out of range for a {ndim}-D tensor; "
                             f"allowed: {-ndim}..{ndim - 1}")
        out.append(int(a) % ndim)
    return out
