"""``MultiHeadAttention``, ``TransformerEncoderLayer`` and ``TransformerEncoder`` (Paddle names,
arguments and defaults; batch-first [batch, seq, features] inputs, as in Paddle)."""
from __future__ import annotations

import core
from core.nn.common import Dropout, Linear
from core.nn.container import LayerList
from core.nn.functional import activation as A
from core.nn.functional.attention import additive_mask, attend
from core.nn.layer import Layer
from core.nn.norm import LayerNorm
from core.tensor import Tensor


class MultiHeadAttention(Layer):
    """Multi-head attention, Paddle's ``MultiHeadAttention(embed_dim, num_heads, dropout=0.0,
    kdim=None, vdim=None, need_weights=False, weight_attr=None, bias_attr=None)``.

    ``forward(query, key=None, value=None, attn_mask=None)`` with [batch, len, features]
    inputs (key and value default to query) returns [batch, len, embed_dim], and the attention
    weights [batch, num_heads, len, key_len] too when ``need_weights``. ``attn_mask``
    broadcasts to [batch, num_heads, len, key_len]: bool (False masks a position) or float
    (added to the scores), Paddle's convention. ``dropout`` drops attention weights in training.
    """

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, kdim=None,
                 vdim=None, need_weights: bool = False, weight_attr=None, bias_attr=None):
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0 or embed_dim % num_heads:
            raise ValueError(f"MultiHeadAttention: embed_dim={embed_dim} must be a positive "
                             f"multiple of num_heads={num_heads}.")
        self.embed_dim, self.num_heads, self.dropout = embed_dim, num_heads, dropout
        self.kdim, self.vdim = kdim or embed_dim, vdim or embed_dim
        self.head_dim, self.need_weights = embed_dim // num_heads, need_weights
        self.q_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr)
        self.k_proj = Linear(self.kdim, embed_dim, weight_attr, bias_attr)
        self.v_proj = Linear(self.vdim, embed_dim, weight_attr, bias_attr)
        self.out_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr)

    def _heads(self, x: Tensor) -> Tensor:
        """[B, L, E] -> [B, H, L, E / H]: every head in one batched matmul."""
        batch, length = x.shape[:2]
        return core.transpose(core.reshape(x, [batch, length, self.num_heads, self.head_dim]),
                              [0, 2, 1, 3])

    def forward(self, query: Tensor, key=None, value=None, attn_mask=None, cache=None):
        if cache is not None:
            raise ValueError("MultiHeadAttention: cache (incremental decoding) is not supported.")
        key = query if key is None else key
        value = query if value is None else value
        q, k, v = (self._heads(proj(t)) for proj, t in
                   ((self.q_proj, query), (self.k_proj, key), (self.v_proj, value)))
        out, weights = attend(q, k, v, additive_mask(attn_mask, query.dtype), self.dropout,
                              self.training)
        batch, length = query.shape[:2]
        out = core.reshape(core.transpose(out, [0, 2, 1, 3]), [batch, length, self.embed_dim])
        out = self.out_proj(out)
        return (out, weights) if self.need_weights else out

    def extra_repr(self) -> str:
        return f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, dropout={self.dropout}"


_ACTIVATIONS = {"relu": A.relu, "gelu": A.gelu}


class TransformerEncoderLayer(Layer):
    """Self-attention then a feed-forward block, each with a residual connection and a
    LayerNorm, Paddle's ``TransformerEncoderLayer(d_model, nhead, dim_feedforward,
    dropout=0.1, activation='relu', attn_dropout=None, act_dropout=None,
    normalize_before=False, weight_attr=None, bias_attr=None, layer_norm_eps=1e-05)``.

    ``attn_dropout`` and ``act_dropout`` default to ``dropout``; ``normalize_before`` puts each
    LayerNorm before its block (pre-norm) instead of after the residual sum (post-norm).
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int, dropout: float = 0.1,
                 activation: str = "relu", attn_dropout=None, act_dropout=None,
                 normalize_before: bool = False, weight_attr=None, bias_attr=None,
                 layer_norm_eps: float = 1e-05):
        super().__init__()
        if activation not in _ACTIVATIONS:
            raise ValueError(f"TransformerEncoderLayer: activation={activation!r} is not "
                             f"supported; use one of {sorted(_ACTIVATIONS)}.")
        # TransformerEncoder builds its copies from these arguments, as Paddle does.
        self._config = dict(d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward,
                            dropout=dropout, activation=activation, attn_dropout=attn_dropout,
                            act_dropout=act_dropout, normalize_before=normalize_before,
                            weight_attr=weight_attr, bias_attr=bias_attr,
                            layer_norm_eps=layer_norm_eps)
        attn_dropout = dropout if attn_dropout is None else attn_dropout
        act_dropout = dropout if act_dropout is None else act_dropout
        self.normalize_before, self.activation = normalize_before, _ACTIVATIONS[activation]
        self.self_attn = MultiHeadAttention(d_model, nhead, attn_dropout, weight_attr=weight_attr,
                                            bias_attr=bias_attr)
        self.linear1 = Linear(d_model, dim_feedforward, weight_attr, bias_attr)
        self.dropout = Dropout(act_dropout)
        self.linear2 = Linear(dim_feedforward, d_model, weight_attr, bias_attr)
        self.norm1 = LayerNorm(d_model, layer_norm_eps)
        self.norm2 = LayerNorm(d_model, layer_norm_eps)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)

    def _block(self, src: Tensor, norm: LayerNorm, body, drop: Dropout) -> Tensor:
        out = body(norm(src) if self.normalize_before else src)
        out = src + drop(out)
        return out if self.normalize_before else norm(out)

    def forward(self, src: Tensor, src_mask=None, cache=None) -> Tensor:
        if cache is not None:
            raise ValueError("TransformerEncoderLayer: cache is not supported.")
        src = self._block(src, self.norm1, lambda x: self.self_attn(x, x, x, src_mask),
                          self.dropout1)
        return self._block(src, self.norm2, lambda x: self.linear2(
            self.dropout(self.activation(self.linear1(x)))), self.dropout2)


class TransformerEncoder(Layer):
    """``num_layers`` encoder layers in sequence, then ``norm`` if given, Paddle's
    ``TransformerEncoder(encoder_layer, num_layers, norm=None)``. The first layer is
    ``encoder_layer`` itself, the others new layers of the same configuration (own weights)."""

    def __init__(self, encoder_layer: TransformerEncoderLayer, num_layers: int, norm=None):
        super().__init__()
        self.layers = LayerList([encoder_layer] + [
            type(encoder_layer)(**encoder_layer._config) for _ in range(num_layers - 1)])
        self.num_layers, self.norm = num_layers, norm

    def forward(self, src: Tensor, src_mask=None, cache=None) -> Tensor:
        if cache is not None:
            raise ValueError("TransformerEncoder: cache is not supported.")
        for layer in self.layers:
            src = layer(src, src_mask)
        return src if self.norm is None else self.norm(src)
