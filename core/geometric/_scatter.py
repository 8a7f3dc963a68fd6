"""What the geometric ops share: checks of node features, edge indices and ``out_size``, and the
differentiable reduction of rows into buckets (``reduce_rows``) behind the segment ops and the
message-passing ops.

The reduction follows Paddle's CPU kernels (paddle/phi/kernels/funcs/segment_pooling.cc,
cpu/send_u_recv_kernel.cc and their grad kernels): a bucket no row goes to is 0 for every
reduce op; ``mean`` divides the sum by the bucket's count (integers truncate toward zero, as
C's division does); the gradient of ``max``/``min`` goes, whole, to every row equal to its
bucket's extreme (ties each receive the full gradient; torch's scatter_reduce shares it).
"""
from __future__ import annotations

import numpy as np

from core import backend
from core.indexing import _in_range
from core.ops import as_input
from core.tensor import Tensor, apply

REDUCE_OPS = ("sum", "mean", "max", "min")
MESSAGE_OPS = ("add", "sub", "mul", "div")
# Paddle's kernels are registered for these (plus bfloat16, which numpy lacks).
_FEATURE_DTYPES = ("float16", "float32", "float64", "int32", "int64")
_INDEX_DTYPES = ("int32", "int64")


def features(value, fn: str, arg: str) -> Tensor:
    """``value`` as a Tensor of at least one dimension and one of Paddle's feature dtypes."""
    value = as_input(value, fn, arg)
    if value.dtype.name not in _FEATURE_DTYPES:
        raise TypeError(f"{fn}: '{arg}' must be a float16, float32, float64, int32 or int64 "
                        f"tensor, got dtype {value.dtype}")
    if value.ndim == 0:
        raise ValueError(f"{fn}: '{arg}' must have at least one dimension (one row per node "
                         "or edge), got a 0-D tensor")
    return value


def index_array(value, fn: str, arg: str, column: bool = False):
    """A 1-D int32/int64 index (a Tensor, array or list) as a backend array; ``column`` also
    takes Paddle's [n, 1] form."""
    idx = value.data if isinstance(value, Tensor) else backend.asarray(value)
    if idx.dtype.name not in _INDEX_DTYPES:
        raise TypeError(f"{fn}: '{arg}' must be an int32 or int64 tensor, got dtype {idx.dtype}")
    if column and idx.ndim == 2 and idx.shape[1] == 1:
        idx = idx.reshape(-1)
    if idx.ndim != 1:
        allowed = "[n] or [n, 1]" if column else "[n]"
        raise ValueError(f"{fn}: '{arg}' must have shape {allowed}, got {list(idx.shape)}")
    return idx


def in_range(idx, size: int, fn: str, arg: str, where: str):
    """``idx`` when its values lie in 0..size-1, else an IndexError naming ``arg``."""
    return _in_range(idx, size, fn, arg, where, negative=False)


def edge_indices(src_index, dst_index, fn: str) -> tuple:
    """The two index arrays of an edge list, of equal lengths."""
    src = index_array(src_index, fn, "src_index")
    dst = index_array(dst_index, fn, "dst_index")
    if src.shape != dst.shape:
        raise ValueError(f"{fn}: 'src_index' and 'dst_index' must have the same length (one "
                         f"entry per edge), got {src.shape[0]} and {dst.shape[0]}")
    return src, dst


def check_op(value, allowed: tuple, fn: str, arg: str) -> str:
    if not isinstance(value, str) or value not in allowed:
        names = ", ".join(repr(a) for a in allowed[:-1]) + f" or {allowed[-1]!r}"
        raise ValueError(f"{fn}: '{arg}' must be {names}, got {value!r}")
    return value


def out_rows(out_size, default: int, fn: str) -> int:
    """Rows of a message-passing output: ``out_size`` when it is positive, else ``default``
    (Paddle ignores an out_size <= 0). An int or a one-element integer Tensor."""
    if out_size is None:
        return default
    if isinstance(out_size, Tensor):
        if out_size.dtype.kind not in "iu" or out_size.size != 1:
            raise TypeError(f"{fn}: 'out_size' must be an int or a one-element integer Tensor, "
                            f"got a Tensor of shape {out_size.shape} and dtype {out_size.dtype}")
        rows = int(out_size.item())
    elif isinstance(out_size, bool) or not isinstance(out_size, (int, np.integer)):
        raise TypeError(f"{fn}: 'out_size' must be an int or a one-element integer Tensor, got "
                        f"{out_size!r}")
    else:
        rows = int(out_size)
    return rows if rows > 0 else default


# ----- the reduction ---------------------------------------------------------------------------

def reduce_rows(values: Tensor, ids, rows: int, reduce_op: str, fn: str) -> Tensor:
    """out[r] = the ``reduce_op`` of the rows values[i] with ids[i] == r (0 where there are
    none), of shape [rows, *values.shape[1:]]; differentiable with respect to ``values``.
    ``ids`` must already lie in 0..rows-1."""
    v = values.data
    xp = backend.array_module(v)
    flat = v.reshape(v.shape[0], int(np.prod(v.shape[1:])))  # not -1: rows may be 0
    ids = ids.astype("int64", copy=False)
    count = xp.bincount(ids, minlength=rows)
    if reduce_op in ("sum", "mean"):
        out = xp.zeros((rows, flat.shape[1]), dtype=v.dtype)
        backend.add_at(out, ids, flat)  # repeated buckets add up
        if reduce_op == "mean":
            out = _divide(out, count, xp)
    else:
        out = _extremes(flat, ids, rows, count, reduce_op, xp)

    def backward(g):
        picked = g.reshape(rows, flat.shape[1])[ids]
        if reduce_op == "mean":
            picked = picked / xp.maximum(count, 1)[ids].reshape(-1, 1).astype(g.dtype)
        elif reduce_op in ("max", "min"):
            # Paddle's rule: every row equal to its bucket's extreme gets the whole gradient
            picked = xp.where(flat == out[ids], picked, xp.zeros((), dtype=g.dtype))
        return (picked.reshape(v.shape),)

    return apply(out.reshape((rows,) + v.shape[1:]), (values,), backward, fn)


def _divide(total, count, xp):
    """Bucket sums over bucket counts (an empty bucket stays 0)."""
    n = xp.maximum(count, 1).reshape(-1, 1)
    if total.dtype.kind == "f":
        return (total / n.astype(total.dtype)).astype(total.dtype, copy=False)
    # integers: C's division truncates toward zero (Paddle's kernel), numpy's // floors
    quotient = xp.abs(total) // n
    return xp.where(total < 0, -quotient, quotient).astype(total.dtype, copy=False)


def _extremes(flat, ids, rows: int, count, reduce_op: str, xp):
    """Bucket maxima or minima, 0 for buckets no row reached (Paddle's). The rows are sorted by
    bucket (one sort of the ids, not of every element), then a segmented scan folds each
    bucket's rows in log2(largest bucket) element-wise steps: exact in every dtype on every
    backend (cupy's maximum.at computes float64 through float32, see core.indexing's
    _extreme_at), and NaN propagates as in maximum/minimum."""
    fold = xp.maximum if reduce_op == "max" else xp.minimum
    out = xp.zeros((rows, flat.shape[1]), dtype=flat.dtype)
    if not ids.size:
        return out
    order = xp.argsort(ids, kind="stable")
    bucket, scan = ids[order], flat[order]
    largest, step = int(count.max()), 1
    while step < largest:
        # Hillis-Steele: row i takes in row i - step when both are in one bucket; the right
        # side is computed whole before the assignment, so each step reads the previous one
        same = (bucket[step:] == bucket[:-step]).reshape(-1, 1)
        scan[step:] = xp.where(same, fold(scan[step:], scan[:-step]), scan[step:])
        step *= 2
    last = xp.ones(bucket.shape, dtype=bool)  # the last row of each bucket holds its extreme
    last[:-1] = bucket[1:] != bucket[:-1]
    out[bucket[last]] = scan[last]
    return out
