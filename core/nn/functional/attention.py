"""Scaled dot-product attention over batched heads (``paddle.nn.functional`` name).

All heads of all samples go through two batched matmuls ([B, H, L, D] @ [B, H, D, S]), so the
cost is a few large GEMMs with no Python loop over heads or positions.
"""
from __future__ import annotations

import math

import core
from core import backend
from core.nn.functional.activation import softmax
from core.nn.functional.common import dropout
from core.tensor import Tensor


def additive_mask(attn_mask, dtype) -> Tensor | None:
    """Paddle's mask convention as an additive float mask: a bool mask keeps True positions
    (False ones get -1e9, Paddle's ``(mask - 1) * 1e9``); a float mask is added as it is."""
    if attn_mask is None:
        return None
    data = attn_mask.data if isinstance(attn_mask, Tensor) else backend.asarray(attn_mask)
    if data.dtype == bool:
        data = (data.astype(dtype) - 1.0) * 1e9
    return Tensor(data.astype(dtype, copy=False))


_SDPA_BACKENDS = (None, "p2p")


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask=None,
                                 dropout_p: float = 0.0, is_causal: bool = False,
                                 training: bool = True, backend: str | None = None,
                                 scale: float | None = None, enable_gqa: bool = True,
                                 name: str | None = None) -> Tensor:
    """softmax(q k^T * scale + mask) v for inputs [batch, seq, heads, head_dim] (Paddle 3.x's
    ``scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
    is_causal=False, training=True, backend=None, scale=None, enable_gqa=True, name=None)``);
    returns [batch, seq, heads, head_dim].

    ``scale`` defaults to 1 / sqrt(head_dim). With ``enable_gqa`` (grouped-query attention),
    key and value may have fewer heads than query, a divisor of its count: query head h reads
    key / value head h // (query heads / key heads), as Paddle's and torch's. ``backend``
    'p2p' is Paddle's ring attention for distributed tensors, which core has none of: it
    computes the same as None, the one numpy / cupy kernel.
    """
    del name
    if backend not in _SDPA_BACKENDS:
        raise ValueError(f"scaled_dot_product_attention: backend={backend!r} is not supported; "
                         f"use one of {_SDPA_BACKENDS}.")
    key, value = _grouped(query, key, value, enable_gqa)
    q, k, v = (core.transpose(t, [0, 2, 1, 3]) for t in (query, key, value))
    out, _ = attend(q, k, v, additive_mask(attn_mask, query.dtype), dropout_p, training,
                    is_causal, scale)
    return core.transpose(out, [0, 2, 1, 3])


def _grouped(query: Tensor, key: Tensor, value: Tensor, enable_gqa: bool):
    """key and value with one head per query head: each repeated over its group under GQA."""
    if not all(isinstance(t, Tensor) for t in (query, key, value)):
        return key, value  # the transpose that follows names a numpy input and its fix
    heads = [t.shape[2] if t.ndim == 4 else None for t in (query, key, value)]
    if None in heads:
        raise ValueError(f"scaled_dot_product_attention: query, key and value must be [batch, "
                         f"seq, heads, head_dim], got shapes {query.shape}, {key.shape}, "
                         f"{value.shape}.")
    q_heads, k_heads, v_heads = heads
    if q_heads == k_heads == v_heads:
        return key, value
    if not enable_gqa or k_heads != v_heads or q_heads % k_heads:
        raise ValueError(f"scaled_dot_product_attention: query has {q_heads} heads, key "
                         f"{k_heads} and value {v_heads}: they must be equal, or, with "
                         f"enable_gqa=True (now {enable_gqa}), key and value equal and dividing "
                         "query's.")
    groups = q_heads // k_heads
    return (core.repeat_interleave(key, groups, axis=2),
            core.repeat_interleave(value, groups, axis=2))


def attend(q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None, dropout_p: float,
           training: bool, is_causal: bool = False, scale: float | None = None):
    """(softmax(q k^T * scale + mask) v, the attention weights) for [B, H, L, D] inputs;
    ``mask`` is additive and broadcasts to [B, H, L, S]; ``scale`` defaults to 1 /
    sqrt(D)."""
    factor = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    scores = core.matmul(q * factor, k, transpose_y=True)
    if is_causal:
        xp = backend.array_module(scores.data)
        length, source = scores.shape[-2:]
        causal = xp.triu(xp.full((length, source), -1e9, dtype=scores.dtype), 1)
        scores = scores + Tensor(causal)
    if mask is not None:
        scores = scores + mask
    weights = softmax(scores, axis=-1)
    if dropout_p:
        weights = dropout(weights, dropout_p, training=training)
    return core.matmul(weights, v), weights
