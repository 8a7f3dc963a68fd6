"""Embedding lookup, length-aware sequence pooling and reversal (``paddle.nn.functional`` names).

Sequences come padded as ``[batch, T, ...]`` with ``lengths`` (int, ``[batch]``) giving each
row's real steps; the padded steps never contribute to a pooled value or a gradient.
"""
from __future__ import annotations

import numpy as np

from core import backend
from core.higher_order import captured, linear_grad
from core.row_sparse import RowSparseGrad
from core.tensor import Tensor, apply

POOL_TYPES = ("sum", "mean", "max")


def _raw_ints(x, fn: str, arg: str):
    data = x.data if isinstance(x, Tensor) else backend.asarray(x)
    if data.dtype.kind not in "iu":
        raise TypeError(f"{fn}: {arg} must hold integers, got dtype {data.dtype}.")
    return data


def embedding(x, weight: Tensor, padding_idx: int | None = None, max_norm: float | None = None,
              norm_type: float = 2.0, sparse: bool = False, scale_grad_by_freq: bool = False,
              name: str | None = None) -> Tensor:
    """Rows of ``weight`` ([num, dim]) at the integer ids ``x``: output ``x.shape + [dim]``.

    Paddle 3.x's signature ``embedding(x, weight, padding_idx=None, max_norm=None,
    norm_type=2.0, sparse=False, scale_grad_by_freq=False, name=None)``. Positions whose id is
    ``padding_idx`` (negative counts from the end) output zeros and send no gradient to that
    row, whatever the row holds. ``max_norm`` renormalises, in place, each looked-up row whose
    ``norm_type``-norm exceeds it (Paddle and PyTorch). ``scale_grad_by_freq`` divides each
    position's gradient by how often its id occurs in ``x``. The gradient of ``weight`` is dense
    (``sparse=False``) or a ``core.row_sparse.RowSparseGrad`` of the looked-up rows
    (``sparse=True``).
    """
    del name
    ids = _raw_ints(x, "embedding", "x")
    table = weight.data
    num = table.shape[0]
    xp = backend.array_module(table)
    if ids.size and (int(ids.min()) < 0 or int(ids.max()) >= num):
        raise ValueError(f"embedding: ids must lie in [0, {num - 1}] for a table of {num} rows; "
                         f"got ids from {int(ids.min())} to {int(ids.max())}.")
    if padding_idx is not None:
        if not -num <= padding_idx < num:
            raise ValueError(f"embedding: padding_idx={padding_idx} is outside [-{num}, "
                             f"{num - 1}].")
        padding_idx %= num
    if max_norm is not None:
        _renorm_rows(table, ids, float(max_norm), float(norm_type), xp)
    # take rather than table[ids]: numpy's fancy indexing gathered 5,120 random rows of 64 from
    # a 100k-row table in 350 us, take in 147
    out = xp.take(table, ids, axis=0)
    if padding_idx is not None:
        out[ids == padding_idx] = 0  # take copies: the table itself is untouched
    # 1 / (occurrences of each position's id in x), [ids.shape + (1,)], or None
    freq = _inverse_frequency(ids, num, table.dtype, xp) if scale_grad_by_freq else None

    def backward(g):
        rows = ids.reshape(-1)
        values = g.reshape(len(rows), -1)
        if freq is not None:
            values = values * freq.reshape(len(rows), 1)
        if padding_idx is not None:
            keep = rows != padding_idx
            rows, values = rows[keep], values[keep]
        if sparse:
            return (RowSparseGrad(rows.astype("int64"), values, table.shape),)
        return (backend.kernels(values).sum_by_index(values, rows, num),)

    # create_graph: the dense gradient only (a RowSparseGrad is no Tensor to record)
    return apply(out, (weight,), backward, "embedding", None if sparse else _embedding_grad)


def _inverse_frequency(ids, num: int, dtype, xp):
    """1 / (how often each position's id occurs in ``ids``), shaped ``ids.shape + (1,)``."""
    flat = ids.reshape(-1)
    counts = xp.bincount(flat, minlength=num)
    return (1.0 / counts[flat]).astype(dtype).reshape(*ids.shape, 1)


def _embedding_grad(out, g):  # the looked-up rows' sums, recorded; its Jacobian is the lookup
    ids, padding_idx, freq = captured(out, "ids", "padding_idx", "freq")
    kept = None if padding_idx is None else (ids != padding_idx)[..., None].astype(g.data.dtype)
    if freq is not None:
        kept = freq if kept is None else kept * freq
    kept = None if kept is None else Tensor(kept)

    def looked_up(h):
        rows = h[ids]
        return rows if kept is None else rows * kept

    return (linear_grad(apply, g, out._backward, looked_up, "embedding_grad"),)


def _renorm_rows(table, ids, max_norm: float, norm_type: float, xp) -> None:
    """Scale the looked-up rows whose norm exceeds ``max_norm`` down to it, in place (no
    gradient flows through the rescale, as in Paddle and PyTorch)."""
    rows = xp.unique(ids.reshape(-1))
    norms = (xp.abs(table[rows]) ** norm_type).sum(axis=1) ** (1.0 / norm_type)
    over = norms > max_norm
    scale = max_norm / (norms[over] + 1e-7)  # PyTorch's epsilon
    table[rows[over]] *= scale[:, None].astype(table.dtype)


def length_mask(lengths, maxlen: int | None = None, dtype="bool"):
    """``mask[b, t] = t < lengths[b]`` as a raw backend array of ``dtype`` ([batch, maxlen];
    ``maxlen`` defaults to the longest length): the padding mask core's sequence ops use."""
    data = _raw_ints(lengths, "sequence_mask", "lengths").reshape(-1)
    xp = backend.array_module(data)
    if maxlen is None:
        maxlen = int(data.max()) if data.size else 0  # (cupy's max has no `initial`)
    return (xp.arange(int(maxlen))[None, :] < data[:, None]).astype(dtype)


def sequence_mask(x, maxlen=None, dtype="int64", name: str | None = None) -> Tensor:
    """Paddle's ``sequence_mask(x, maxlen=None, dtype='int64', name=None)``: for integer
    lengths ``x`` (any shape), a Tensor of shape ``x.shape + [maxlen]`` whose entry
    ``[..., t]`` is 1 (True) where ``t < x[...]``, else 0, in ``dtype``. ``maxlen`` (an int
    or a one-element Tensor) defaults to the largest length. No gradient."""
    del name
    if isinstance(maxlen, Tensor):
        maxlen = maxlen.item()
    if maxlen is not None and (isinstance(maxlen, bool) or int(maxlen) != maxlen
                               or maxlen < 0):
        raise ValueError(f"sequence_mask: maxlen must be None or an int >= 0, got {maxlen!r}")
    try:
        dtype = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"sequence_mask: dtype {dtype!r} is not a known dtype; use e.g. "
                        "'int64', 'int32', 'float32', 'float64' or 'bool'") from None
    data = _raw_ints(x, "sequence_mask", "x")
    mask = length_mask(data, maxlen, dtype)
    return Tensor(mask.reshape(tuple(data.shape) + (mask.shape[1],)))


def _check_lengths(x: Tensor, lengths, fn: str):
    data = _raw_ints(lengths, fn, "lengths").reshape(-1)
    if x.ndim < 2 or data.shape[0] != x.shape[0]:
        raise ValueError(f"{fn}: x must be [batch, T, ...] with one length per row; got x of "
                         f"shape {x.shape} and {data.shape[0]} lengths.")
    if data.size and (int(data.min()) < 1 or int(data.max()) > x.shape[1]):
        raise ValueError(f"{fn}: lengths must lie in [1, {x.shape[1]}] (the padded length); "
                         f"got {int(data.min())}..{int(data.max())}.")
    return data


def sequence_pool(x: Tensor, lengths, pool_type: str = "sum") -> Tensor:
    """Pool ``x`` ([batch, T, ...]) over time, using only each row's first ``lengths`` steps.

    ``sum`` and ``mean`` (sum / length) as usual; ``max`` sends the gradient to the first
    maximum of each row and feature.
    """
    if pool_type not in POOL_TYPES:
        raise ValueError(f"sequence_pool: pool_type must be one of {', '.join(POOL_TYPES)}, got "
                         f"{pool_type!r}.")
    lens = _check_lengths(x, lengths, "sequence_pool")
    data = x.data
    xp = backend.array_module(data)
    extra = (1,) * (data.ndim - 2)
    mask_shape = (data.shape[0], data.shape[1]) + extra
    mask = length_mask(lens, data.shape[1], data.dtype).reshape(mask_shape)
    if pool_type == "max":
        filled = xp.where(mask > 0, data, xp.asarray(-xp.inf, dtype=data.dtype))
        arg = filled.argmax(axis=1)
        out = xp.take_along_axis(data, arg[:, None], axis=1)[:, 0]

        def backward(g):
            full = xp.zeros_like(data)
            xp.put_along_axis(full, arg[:, None], g[:, None], axis=1)
            return (full,)

        return apply(out, (x,), backward, "sequence_pool_max")
    scale = mask if pool_type == "sum" else mask / lens.reshape(mask_shape[:1] + (1,) + extra)
    # A weighted sum over time is a batched [1, T] x [T, features] product per row: 12x faster
    # than multiplying by the weights and reducing over the strided time axis.
    batch, steps = data.shape[:2]
    weights = scale.reshape(batch, 1, steps).astype(data.dtype, copy=False)
    out = xp.matmul(weights, data.reshape(batch, steps, -1)).reshape(
        (batch,) + data.shape[2:])
    return apply(out, (x,), lambda g: (g[:, None] * scale,), f"sequence_pool_{pool_type}")


def sequence_reverse(x: Tensor, lengths=None) -> Tensor:
    """Reverse each row of ``x`` ([batch, T, ...]) within its first ``lengths`` steps.

    Padded steps (``t >= length``) stay where they are, so a backward-in-time RNN over the result
    starts at each row's last real step. ``lengths=None`` reverses every row whole. The reversal
    is its own inverse, so the gradient is the output gradient reversed the same way.
    """
    data = x.data
    xp = backend.array_module(data)
    if lengths is None:
        if data.ndim < 2:
            raise ValueError(f"sequence_reverse: x must be [batch, T, ...], got shape {x.shape}.")
        lens = xp.full(data.shape[0], data.shape[1], dtype="int64")
    else:
        lens = _check_lengths(x, lengths, "sequence_reverse")
    t = xp.arange(data.shape[1])[None, :]
    lens = xp.asarray(lens).reshape(-1, 1)
    index = xp.where(t < lens, lens - 1 - t, t)  # [batch, T]: a per-row involution
    index = index.reshape(index.shape + (1,) * (data.ndim - 2))
    out = xp.take_along_axis(data, index, axis=1)
    return apply(out, (x,), lambda g: (xp.take_along_axis(g, index, axis=1),),
                 "sequence_reverse")
