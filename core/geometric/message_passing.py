"""Paddle's message passing: ``paddle.geometric.send_u_recv``, ``send_ue_recv`` and ``send_uv``
(python/paddle/geometric/message_passing/send_recv.py).

An edge e carries a message from node ``src_index[e]`` to node ``dst_index[e]``: the source's
feature row (``send_u_recv``), combined with the edge's own feature ``y[e]`` (``send_ue_recv``)
or with the destination's feature row ``y[dst_index[e]]`` (``send_uv``) by ``message_op``;
``send_u_recv``/``send_ue_recv`` then reduce the messages arriving at each node by
``reduce_op`` (see core/geometric/_scatter.py for the reduction's rules).

The messages are built with core's differentiable gather and element-wise ops and reduced by
one scatter, so gradients reach ``x`` and ``y`` (never the indices). Paddle's fused kernels
avoid the [num_edges, ...] message tensor; this builds it.
"""
from __future__ import annotations

import numpy as np

from core.arithmetic import add, multiply, subtract
from core.geometric._scatter import (
    MESSAGE_OPS,
    REDUCE_OPS,
    check_op,
    edge_indices,
    features,
    in_range,
    out_rows,
    reduce_rows,
)
from core.manipulation import gather, reshape
from core.tensor import Tensor

__all__ = ["send_u_recv", "send_ue_recv", "send_uv"]


def send_u_recv(x, src_index, dst_index, reduce_op: str = "sum", out_size=None,
                name: str | None = None) -> Tensor:
    """``paddle.geometric.send_u_recv(x, src_index, dst_index, reduce_op="sum", out_size=None,
    name=None)``: out[i] = the ``reduce_op`` ('sum', 'mean', 'max' or 'min') of x[src_index[e]]
    over the edges e with dst_index[e] == i; 0 for a node no edge reaches. The output has
    ``out_size`` rows when out_size > 0, else as many as ``x``."""
    del name
    fn = "send_u_recv"
    x = features(x, fn, "x")
    reduce_op = check_op(reduce_op, REDUCE_OPS, fn, "reduce_op")
    src, dst = edge_indices(src_index, dst_index, fn)
    rows = out_rows(out_size, x.shape[0], fn)
    src = in_range(src, x.shape[0], fn, "src_index", "the rows of x")
    dst = in_range(dst, rows, fn, "dst_index", "the rows of the output: out_size, else x's")
    return reduce_rows(gather(x, Tensor(src)), dst, rows, reduce_op, fn)


def send_ue_recv(x, y, src_index, dst_index, message_op: str = "add", reduce_op: str = "sum",
                 out_size=None, name: str | None = None) -> Tensor:
    """``paddle.geometric.send_ue_recv(x, y, src_index, dst_index, message_op="add",
    reduce_op="sum", out_size=None, name=None)``: each edge e sends x[src_index[e]]
    ``message_op`` y[e] ('add', 'sub', 'mul' or 'div'), and out[i] reduces the messages of the
    edges with dst_index[e] == i by ``reduce_op``. ``x``'s rows and ``y``'s broadcast after
    the first dimension (a 1-D tensor counts as [n, 1]; the one with fewer dimensions gets 1s
    after its first), so the output is [out_size or len(x), *broadcast feature shape]."""
    del name
    fn = "send_ue_recv"
    x, y = _node_and_edge_features(x, y, fn)
    message_op = _message_op(message_op, x, fn)
    reduce_op = check_op(reduce_op, REDUCE_OPS, fn, "reduce_op")
    src, dst = edge_indices(src_index, dst_index, fn)
    if y.shape[0] != src.shape[0]:
        raise ValueError(f"{fn}: 'y' must hold one row per edge ({src.shape[0]} edges in "
                         f"src_index), got {y.shape[0]} rows")
    rows = out_rows(out_size, x.shape[0], fn)
    src = in_range(src, x.shape[0], fn, "src_index", "the rows of x")
    dst = in_range(dst, rows, fn, "dst_index", "the rows of the output: out_size, else x's")
    x, y = _lhs_rhs(x, y, fn)
    message = _message(gather(x, Tensor(src)), y, message_op)
    return reduce_rows(message, dst, rows, reduce_op, fn)


def send_uv(x, y, src_index, dst_index, message_op: str = "add",
            name: str | None = None) -> Tensor:
    """``paddle.geometric.send_uv(x, y, src_index, dst_index, message_op="add", name=None)``:
    one row per edge e, x[src_index[e]] ``message_op`` y[dst_index[e]] ('add', 'sub', 'mul' or
    'div'); feature shapes broadcast as in ``send_ue_recv``."""
    del name
    fn = "send_uv"
    x, y = _node_and_edge_features(x, y, fn)
    message_op = _message_op(message_op, x, fn)
    src, dst = edge_indices(src_index, dst_index, fn)
    src = in_range(src, x.shape[0], fn, "src_index", "the rows of x")
    dst = in_range(dst, y.shape[0], fn, "dst_index", "the rows of y")
    x, y = _lhs_rhs(x, y, fn)
    return _message(gather(x, Tensor(src)), gather(y, Tensor(dst)), message_op)


def _node_and_edge_features(x, y, fn: str) -> tuple:
    x, y = features(x, fn, "x"), features(y, fn, "y")
    if x.dtype != y.dtype:  # Paddle's kernels take one dtype for both
        raise TypeError(f"{fn}: 'x' and 'y' must have the same dtype, got {x.dtype} and "
                        f"{y.dtype}")
    return x, y


def _message_op(message_op, x: Tensor, fn: str) -> str:
    message_op = check_op(message_op, MESSAGE_OPS, fn, "message_op")
    if message_op == "div" and x.dtype.kind != "f":  # Paddle's 1 / (y + 1e-12) needs floats
        raise TypeError(f"{fn}: message_op 'div' needs floating-point 'x' and 'y', got dtype "
                        f"{x.dtype}")
    return message_op


def _lhs_rhs(x: Tensor, y: Tensor, fn: str) -> tuple:
    """Paddle's reshape_lhs_rhs: a 1-D tensor becomes [n, 1]; the tensor with fewer dimensions
    gets 1s right after its first, so that the feature shapes broadcast from the right of the
    row dimension, never into it."""
    if x.ndim == 1:
        x = reshape(x, [-1, 1])
    if y.ndim == 1:
        y = reshape(y, [-1, 1])
    ndim = max(x.ndim, y.ndim)
    x = reshape(x, x.shape[:1] + [1] * (ndim - x.ndim) + x.shape[1:]) if x.ndim < ndim else x
    y = reshape(y, y.shape[:1] + [1] * (ndim - y.ndim) + y.shape[1:]) if y.ndim < ndim else y
    try:
        np.broadcast_shapes(tuple(x.shape[1:]), tuple(y.shape[1:]))
    except ValueError:
        raise ValueError(f"{fn}: the feature shapes of 'x' {x.shape[1:]} and 'y' {y.shape[1:]} "
                         "(after the row dimension) do not broadcast") from None
    return x, y


def _message(a: Tensor, b: Tensor, message_op: str) -> Tensor:
    if message_op == "add":
        return add(a, b)
    if message_op == "sub":
        return subtract(a, b)
    if message_op == "mul":
        return multiply(a, b)
    # Paddle's formula exactly: x * (1 / (y + 1e-12)), finite where y is 0
    return multiply(a, 1.0 / (b + 1e-12))
