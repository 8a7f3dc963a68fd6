"""Paddle's ``paddle.sparse.nn.functional``: ``relu``, ``relu6``, ``leaky_relu`` and
``softmax`` of sparse tensors (COO or CSR). The activations act on the stored values (each maps
0 to 0) of the coalesced tensor (see ``core.sparse.tensor.coalesced``); ``softmax`` normalises
the stored entries of each row along the last axis, the implicit zeros taking no part (they
stay zeros), as Paddle's and torch's sparse softmax do. ``conv3d``, ``subm_conv3d`` and
``max_pool3d`` of point clouds live in conv.py and pooling.py.
"""
from __future__ import annotations

from core import backend
from core.nn.functional import activation
from core.ops import exp
from core.sparse.tensor import (
    coalesced,
    entry_indices,
    gather_rows,
    linear_keys,
    sparse_input,
    sum_rows,
    values_of,
    with_values,
)
from core.tensor import Tensor

__all__ = ["leaky_relu", "relu", "relu6", "softmax"]


def relu(x, name: str | None = None):
    """Paddle's ``paddle.sparse.nn.functional.relu(x, name=None)``: max(x, 0) of each stored
    value, same layout and pattern."""
    del name
    x = coalesced(sparse_input(x, "sparse.nn.functional.relu"))
    return with_values(x, activation.relu(values_of(x)))


def relu6(x, name: str | None = None):
    """Paddle's ``paddle.sparse.nn.functional.relu6(x, name=None)``: min(max(x, 0), 6) of each
    stored value, same layout and pattern."""
    del name
    x = coalesced(sparse_input(x, "sparse.nn.functional.relu6"))
    return with_values(x, activation.relu6(values_of(x)))


def leaky_relu(x, negative_slope: float = 0.01, name: str | None = None):
    """Paddle's ``paddle.sparse.nn.functional.leaky_relu(x, negative_slope=0.01, name=None)``:
    x where x >= 0, else negative_slope * x, of each stored value."""
    del name
    x = coalesced(sparse_input(x, "sparse.nn.functional.leaky_relu"))
    return with_values(x, activation.leaky_relu(values_of(x), negative_slope))


def softmax(x, axis: int = -1, name: str | None = None):
    """Paddle's ``paddle.sparse.nn.functional.softmax(x, axis=-1, name=None)``: softmax along
    the last axis over the stored entries of each row (implicit zeros are left out and stay
    zero). Only ``axis=-1`` is supported, as in Paddle. A hybrid COO tensor whose last axis is
    dense takes the dense softmax of its values."""
    del name
    x = coalesced(sparse_input(x, "sparse.nn.functional.softmax"))
    if x.dtype.kind in "iub":  # as the dense softmax: integers would come out as float32
        raise TypeError(f"sparse.nn.functional.softmax: x must be a floating tensor (float32 or "
                        f"float64, as Paddle's kernel), got dtype {x.dtype}; cast it first, "
                        "e.g. core.sparse.cast(x, value_dtype='float32')")
    if axis not in (-1, x.ndim - 1):
        raise ValueError(f"sparse.nn.functional.softmax: only axis=-1 is supported (as in "
                         f"Paddle), got axis={axis!r}")
    values = values_of(x)
    if x.is_sparse_coo() and x.sparse_dim() < x.ndim:
        return with_values(x, activation.softmax(values, axis=-1))
    xp = backend.array_module(x.data)
    indices = entry_indices(x)
    groups, row = xp.unique(linear_keys(indices[:-1], x.shape[:-1]), return_inverse=True)
    row = row.reshape(-1)
    # The largest value of each row, subtracted for stability (softmax does not change): the
    # last of each row once the entries are sorted by value, then stably by row.
    by_value = xp.argsort(x.data, kind="stable")
    order = by_value[xp.argsort(row[by_value], kind="stable")]
    last = xp.ones(len(order), dtype=bool)
    last[:-1] = row[order][1:] != row[order][:-1]
    peak = xp.zeros(len(groups), dtype=x.data.dtype)
    peak[row[order][last]] = x.data[order][last]
    exps = exp(values - Tensor(xp.take(peak, row)))
    return with_values(x, exps / gather_rows(sum_rows(exps, row, len(groups)), row))


# Paddle's point-cloud kernels: sparse 3-D convolution and max pooling of voxels.
from core.sparse.nn.conv import conv3d, subm_conv3d  # noqa: E402
from core.sparse.nn.pooling import max_pool3d  # noqa: E402

__all__ += ["conv3d", "max_pool3d", "subm_conv3d"]
