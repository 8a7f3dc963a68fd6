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


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask=None,
                                 dropout_p: float = 0.0, is_causal: bool = False,
                                 training: bool = True, name: str | None = None) -> Tensor:
    """softmax(q k^T / sqrt(d) + mask) v for inputs [batch, seq, heads, head_dim] (Paddle's
    ``scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
    is_causal=False, training=True, name=None)``); returns [batch, seq, heads, head_dim]."""
    del name
    q, k, v = (core.transpose(t, [0, 2, 1, 3]) for t in (query, key, value))
    out, _ = attend(q, k, v, additive_mask(attn_mask, query.dtype), dropout_p, training,
                    is_causal)
    return core.transpose(out, [0, 2, 1, 3])


def attend(q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None, dropout_p: float,
           training: bool, is_causal: bool = False):
    """(softmax(q k^T / sqrt(d) + mask) v, the attention weights) for [B, H, L, D] inputs;
    ``mask`` is additive and broadcasts to [B, H, L, S]."""
    scores = core.matmul(q * (1.0 / math.sqrt(q.shape[-1])), k, transpose_y=True)
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
