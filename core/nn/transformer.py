"""``MultiHeadAttention``, the Transformer encoder and decoder layers and stacks, and
``Transformer`` (Paddle names, arguments and defaults; batch-first [batch, seq, features] inputs,
as in Paddle).

Attention masks follow Paddle: they broadcast to [batch, num_heads, query_len, key_len]; a bool
mask keeps True positions, an integer mask keeps 1s (both become ``(mask - 1) * 1e9``), a float
mask is added to the scores as it is (``Transformer.generate_square_subsequent_mask`` gives
one: -inf above the diagonal). Incremental decoding (``gen_cache``, ``cache=``) works as in
Paddle: a ``MultiHeadAttention.Cache`` grows by the new steps' keys and values, a
``StaticCache`` holds the encoder output's once.
"""
from __future__ import annotations

import collections
import math

import core
from core import backend
from core.nn.common import Dropout, Linear
from core.nn.container import LayerList
from core.nn.functional import activation as A
from core.nn.functional.attention import additive_mask, attend
from core.nn.layer import Layer
from core.nn.norm import LayerNorm
from core.tensor import Tensor


def _mask(attn_mask, dtype) -> Tensor | None:
    """Paddle's ``_convert_attention_mask``: bool and integer masks -> ``(mask - 1) * 1e9``
    (1 / True keeps a position), float masks as they are, all in ``dtype``."""
    if attn_mask is None:
        return None
    data = attn_mask.data if isinstance(attn_mask, Tensor) else backend.asarray(attn_mask)
    if data.dtype.kind in "iu":  # Paddle treats integer masks as bool ones: 1 keeps, 0 masks
        return Tensor((data.astype(dtype) - 1.0) * 1e9)
    return additive_mask(attn_mask, dtype)


def _check_3d(name: str, x) -> None:
    """Attention splits [batch, len, features] into heads; a 4-D input (images [N, C, H, W]
    through a Linear) would otherwise fail inside that reshape with sizes the user never set."""
    if len(x.shape) != 3:
        raise ValueError(f"MultiHeadAttention: {name} has shape {list(x.shape)}; attention takes "
                         "3-D [batch, length, features] sequences (flatten or reshape other "
                         "inputs to that first).")


class MultiHeadAttention(Layer):
    """Multi-head attention, Paddle's ``MultiHeadAttention(embed_dim, num_heads, dropout=0.0,
    kdim=None, vdim=None, need_weights=False, weight_attr=None, bias_attr=None)``.

    ``forward(query, key=None, value=None, attn_mask=None, cache=None)`` with [batch, len,
    features] inputs (key and value default to query) returns [batch, len, embed_dim], and the
    attention weights [batch, num_heads, len, key_len] too when ``need_weights``. ``attn_mask``
    broadcasts to [batch, num_heads, len, key_len]: bool or integer (False / 0 masks a
    position) or float (added to the scores), Paddle's convention. ``dropout`` drops attention
    weights in training.

    ``cache`` (inference): a ``MultiHeadAttention.Cache`` holds the projected keys and values
    of earlier steps, [batch, num_heads, steps, head_dim]; this call's are appended and the
    grown cache is returned last. A ``StaticCache`` is used instead of projecting ``key`` and
    ``value`` (the encoder output of cross attention, projected once) and returned as it is.
    ``gen_cache`` makes either.
    """

    Cache = collections.namedtuple("Cache", ["k", "v"])
    StaticCache = collections.namedtuple("StaticCache", ["k", "v"])

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

    def compute_kv(self, key: Tensor, value: Tensor):
        """The projected keys and values split into heads, [batch, num_heads, len, head_dim]
        each (Paddle's ``compute_kv``: what a cache holds)."""
        return self._heads(self.k_proj(key)), self._heads(self.v_proj(value))

    def gen_cache(self, key: Tensor, value=None, type=Cache):  # noqa: A002 - Paddle's name
        """A cache for ``forward`` (Paddle's ``gen_cache``): ``StaticCache`` -> ``key`` and
        ``value`` (``key`` when None) projected once; ``Cache`` with ``value`` None -> empty
        [batch, num_heads, 0, head_dim] keys and values (``key`` gives the batch and dtype);
        ``Cache`` with ``value`` -> ``Cache(key, value)`` as given (already projected)."""
        if type is MultiHeadAttention.StaticCache:
            return self.StaticCache(*self.compute_kv(key, key if value is None else value))
        if type is not MultiHeadAttention.Cache:
            raise TypeError(f"MultiHeadAttention.gen_cache: type={type!r} must be "
                            "MultiHeadAttention.Cache or MultiHeadAttention.StaticCache.")
        if value is not None:
            return self.Cache(key, value)
        xp = backend.array_module(key.data)
        shape = (key.shape[0], self.num_heads, 0, self.head_dim)
        return self.Cache(Tensor(xp.zeros(shape, dtype=key.dtype)),
                          Tensor(xp.zeros(shape, dtype=key.dtype)))

    def forward(self, query: Tensor, key=None, value=None, attn_mask=None, cache=None):
        key = query if key is None else key
        value = query if value is None else value
        for name, x in (("query", query), ("key", key), ("value", value)):
            _check_3d(name, x)
        q = self._heads(self.q_proj(query))
        if isinstance(cache, self.StaticCache):  # cross attention: the memory projected once
            k, v = cache.k, cache.v
        elif cache is None or isinstance(cache, self.Cache):
            k, v = self.compute_kv(key, value)
        else:
            raise TypeError(f"MultiHeadAttention: cache is a {type(cache).__name__}; give a "
                            "MultiHeadAttention.Cache or StaticCache (from gen_cache) or None.")
        if isinstance(cache, self.Cache):  # self attention: earlier steps, then this call's
            k, v = core.concat([cache.k, k], axis=2), core.concat([cache.v, v], axis=2)
            cache = self.Cache(k, v)
        out, weights = attend(q, k, v, _mask(attn_mask, query.dtype), self.dropout,
                              self.training)
        batch, length = query.shape[:2]
        out = core.reshape(core.transpose(out, [0, 2, 1, 3]), [batch, length, self.embed_dim])
        outs = [self.out_proj(out)]  # then the weights and the cache, when asked for
        if self.need_weights:
            outs.append(weights)
        if cache is not None:
            outs.append(cache)
        return outs[0] if len(outs) == 1 else tuple(outs)

    def extra_repr(self) -> str:
        return f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, dropout={self.dropout}"


_ACTIVATIONS = {"relu": A.relu, "gelu": A.gelu}


def _check_layer_args(owner: str, d_model, nhead, dim_feedforward, dropouts: dict,
                      activation) -> None:
    """Clear errors for a Transformer layer's sizes, probabilities and activation."""
    for name, value in (("d_model", d_model), ("nhead", nhead),
                        ("dim_feedforward", dim_feedforward)):
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ValueError(f"{owner}: {name}={value!r} must be a positive integer.")
    if d_model % nhead:
        raise ValueError(f"{owner}: d_model={d_model} must be divisible by nhead={nhead} (each "
                         f"head attends over d_model / nhead features).")
    for name, value in dropouts.items():
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not 0.0 <= value <= 1.0:
            raise ValueError(f"{owner}: {name}={value!r} is not a probability; use a number in "
                             "[0, 1].")
    if activation not in _ACTIVATIONS:
        raise ValueError(f"{owner}: activation={activation!r} is not supported; use one of "
                         f"{sorted(_ACTIVATIONS)}.")


def _split_attr(owner: str, name: str, attr, count: int) -> list:
    """Paddle's ``_convert_param_attr_to_list``: a list or tuple gives each sublayer its own
    ParamAttr (exactly ``count`` of them), anything else is shared; True means the default."""
    if isinstance(attr, (list, tuple)):
        if len(attr) != count:
            raise ValueError(f"{owner}: {name} has {len(attr)} entries; as a list it needs "
                             f"{count}, one per sublayer (attention, ..., feed-forward).")
        return [None if a is True else a for a in attr]
    return [None if attr is True else attr] * count


def _positive_layers(owner: str, num_layers, name: str = "num_layers") -> int:
    if isinstance(num_layers, bool) or not isinstance(num_layers, int) or num_layers <= 0:
        raise ValueError(f"{owner}: {name}={num_layers!r} must be a positive integer.")
    return num_layers


def _optional_layer(owner: str, name: str, layer):
    if layer is not None and not isinstance(layer, Layer):
        raise TypeError(f"{owner}: {name} is a {type(layer).__name__}; give a Layer (such as "
                        "a LayerNorm) or None.")
    return layer


class _ResidualSublayers(Layer):
    """What the encoder and decoder layers share: each sublayer (attention, feed-forward) runs
    inside a residual connection with a LayerNorm before it (``normalize_before``, pre-norm) or
    after the residual sum (post-norm), and the feed-forward block
    ``linear2(dropout(activation(linear1(x))))``.

    The sublayers are made in Paddle's order (so its parameter names and initialisation order
    hold): the attentions named in ``attentions``, ``linear1``, ``dropout``, ``linear2``, then
    ``norm1``... and ``dropout1``..., one per sublayer. ``config`` is the layer's own
    arguments: the stacks build their copies from it, as Paddle does.
    """

    def __init__(self, attentions: tuple[str, ...], config: dict):
        super().__init__()
        owner = type(self).__name__
        c = config
        _check_layer_args(owner, c["d_model"], c["nhead"], c["dim_feedforward"],
                          {name: c[name] for name in ("dropout", "attn_dropout", "act_dropout")},
                          c["activation"])
        self._config = dict(config)
        attn_dropout = c["dropout"] if c["attn_dropout"] is None else c["attn_dropout"]
        act_dropout = c["dropout"] if c["act_dropout"] is None else c["act_dropout"]
        count = len(attentions) + 1  # the attentions, then the feed-forward block
        weights = _split_attr(owner, "weight_attr", c["weight_attr"], count)
        biases = _split_attr(owner, "bias_attr", c["bias_attr"], count)
        self.normalize_before = c["normalize_before"]
        self.activation = _ACTIVATIONS[c["activation"]]
        for index, name in enumerate(attentions):
            setattr(self, name, MultiHeadAttention(c["d_model"], c["nhead"], attn_dropout,
                                                   weight_attr=weights[index],
                                                   bias_attr=biases[index]))
        self.linear1 = Linear(c["d_model"], c["dim_feedforward"], weights[-1], biases[-1])
        self.dropout = Dropout(act_dropout)
        self.linear2 = Linear(c["dim_feedforward"], c["d_model"], weights[-1], biases[-1])
        for index in range(1, count + 1):
            setattr(self, f"norm{index}", LayerNorm(c["d_model"], c["layer_norm_eps"]))
        for index in range(1, count + 1):
            setattr(self, f"dropout{index}", Dropout(c["dropout"]))

    def _block(self, x: Tensor, norm: LayerNorm, body, drop: Dropout) -> Tensor:
        out = body(norm(x) if self.normalize_before else x)
        out = x + drop(out)
        return out if self.normalize_before else norm(out)

    def _feed_forward(self, x: Tensor) -> Tensor:
        return self.linear2(self.dropout(self.activation(self.linear1(x))))


class TransformerEncoderLayer(_ResidualSublayers):
    """Self-attention then a feed-forward block, each with a residual connection and a
    LayerNorm, Paddle's ``TransformerEncoderLayer(d_model, nhead, dim_feedforward,
    dropout=0.1, activation='relu', attn_dropout=None, act_dropout=None,
    normalize_before=False, weight_attr=None, bias_attr=None, layer_norm_eps=1e-05)``.

    ``attn_dropout`` and ``act_dropout`` default to ``dropout``; ``normalize_before`` puts each
    LayerNorm before its block (pre-norm) instead of after the residual sum (post-norm).
    ``weight_attr`` / ``bias_attr`` may be a list of two: the attention's, the feed-forward's.
    ``forward(src, src_mask=None, cache=None)``; with a ``cache`` from ``gen_cache`` it returns
    ``(output, new cache)``, the self-attention's keys and values grown by ``src``'s steps.
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int, dropout: float = 0.1,
                 activation: str = "relu", attn_dropout=None, act_dropout=None,
                 normalize_before: bool = False, weight_attr=None, bias_attr=None,
                 layer_norm_eps: float = 1e-05):
        super().__init__(("self_attn",), dict(
            d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward, dropout=dropout,
            activation=activation, attn_dropout=attn_dropout, act_dropout=act_dropout,
            normalize_before=normalize_before, weight_attr=weight_attr, bias_attr=bias_attr,
            layer_norm_eps=layer_norm_eps))

    def forward(self, src: Tensor, src_mask=None, cache=None):
        new_cache = []

        def attention(x):
            out = self.self_attn(x, x, x, src_mask, cache)
            if cache is None:
                return out
            new_cache.append(out[1])
            return out[0]

        src = self._block(src, self.norm1, attention, self.dropout1)
        src = self._block(src, self.norm2, self._feed_forward, self.dropout2)
        return src if cache is None else (src, new_cache[0])

    def gen_cache(self, src: Tensor):
        """An empty ``MultiHeadAttention.Cache`` for incremental encoding (``src`` gives the
        batch size and dtype), Paddle's ``gen_cache``."""
        return self.self_attn.gen_cache(src, type=MultiHeadAttention.Cache)


class TransformerEncoder(Layer):
    """``num_layers`` encoder layers in sequence, then ``norm`` if given, Paddle's
    ``TransformerEncoder(encoder_layer, num_layers, norm=None)``. The first layer is
    ``encoder_layer`` itself, the others new layers of the same configuration (own weights).
    ``forward(src, src_mask=None, cache=None)``: ``cache`` is ``gen_cache``'s list, one per
    layer; with it, ``(output, new caches)`` is returned."""

    def __init__(self, encoder_layer: TransformerEncoderLayer, num_layers: int, norm=None):
        super().__init__()
        if not isinstance(encoder_layer, TransformerEncoderLayer):
            raise TypeError(f"TransformerEncoder: encoder_layer is a "
                            f"{type(encoder_layer).__name__}; give a TransformerEncoderLayer.")
        num_layers = _positive_layers("TransformerEncoder", num_layers)
        self.layers = LayerList([encoder_layer] + [
            type(encoder_layer)(**encoder_layer._config) for _ in range(num_layers - 1)])
        self.num_layers = num_layers
        self.norm = _optional_layer("TransformerEncoder", "norm", norm)

    def forward(self, src: Tensor, src_mask=None, cache=None):
        src_mask = _mask(src_mask, src.dtype)  # converted once for every layer
        _check_caches("TransformerEncoder", cache, len(self.layers))
        new_caches = []
        for index, layer in enumerate(self.layers):
            if cache is None:
                src = layer(src, src_mask)
            else:
                src, new = layer(src, src_mask, cache[index])
                new_caches.append(new)
        src = src if self.norm is None else self.norm(src)
        return src if cache is None else (src, new_caches)

    def gen_cache(self, src: Tensor) -> list:
        """One empty self-attention cache per layer (Paddle's ``gen_cache``)."""
        return [layer.gen_cache(src) for layer in self.layers]


def _check_caches(owner: str, cache, count: int) -> None:
    if cache is not None and (not isinstance(cache, (list, tuple)) or len(cache) != count):
        raise ValueError(f"{owner}: cache must be a list of {count} entries, one per layer "
                         "(from gen_cache), or None.")


class TransformerDecoderLayer(_ResidualSublayers):
    """Self-attention, cross attention over the encoder output, then a feed-forward block, each
    with a residual connection and a LayerNorm, Paddle's ``TransformerDecoderLayer(d_model,
    nhead, dim_feedforward, dropout=0.1, activation='relu', attn_dropout=None,
    act_dropout=None, normalize_before=False, weight_attr=None, bias_attr=None,
    layer_norm_eps=1e-05)``.

    Post-norm (the default): ``x = norm1(x + dropout1(self_attn(x, x, x, tgt_mask)))``,
    ``x = norm2(x + dropout2(cross_attn(x, memory, memory, memory_mask)))``,
    ``x = norm3(x + dropout3(linear2(dropout(activation(linear1(x))))))``; with
    ``normalize_before`` each norm is applied to its sublayer's input instead (pre-norm).
    ``attn_dropout`` and ``act_dropout`` default to ``dropout``. ``weight_attr`` /
    ``bias_attr`` may be a list of three: self attention's, cross attention's, feed-forward's.

    ``forward(tgt, memory, tgt_mask=None, memory_mask=None, cache=None)`` takes tgt [batch,
    tgt_len, d_model] and memory (the encoder output) [batch, src_len, d_model]; the masks
    broadcast to [batch, nhead, tgt_len, tgt_len] and [batch, nhead, tgt_len, src_len]. With
    ``cache = gen_cache(memory)`` (incremental decoding, inference) it returns ``(output,
    (incremental cache, static cache))``.
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int, dropout: float = 0.1,
                 activation: str = "relu", attn_dropout=None, act_dropout=None,
                 normalize_before: bool = False, weight_attr=None, bias_attr=None,
                 layer_norm_eps: float = 1e-05):
        super().__init__(("self_attn", "cross_attn"), dict(
            d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward, dropout=dropout,
            activation=activation, attn_dropout=attn_dropout, act_dropout=act_dropout,
            normalize_before=normalize_before, weight_attr=weight_attr, bias_attr=bias_attr,
            layer_norm_eps=layer_norm_eps))

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask=None, memory_mask=None,
                cache=None):
        if cache is not None and not (isinstance(cache, (list, tuple)) and len(cache) == 2):
            raise ValueError("TransformerDecoderLayer: cache must be the pair (incremental "
                             "cache, static cache) from gen_cache(memory), or None.")
        new_cache = []

        def attention(attn, source, mask, part):
            def body(x):
                kv = x if source is None else source
                out = attn(x, kv, kv, mask, part)
                if part is None:
                    return out
                new_cache.append(out[1])
                return out[0]
            return body

        incremental, static = (None, None) if cache is None else cache
        tgt = self._block(tgt, self.norm1, attention(self.self_attn, None, tgt_mask, incremental),
                          self.dropout1)
        tgt = self._block(tgt, self.norm2,
                          attention(self.cross_attn, memory, memory_mask, static), self.dropout2)
        tgt = self._block(tgt, self.norm3, self._feed_forward, self.dropout3)
        return tgt if cache is None else (tgt, tuple(new_cache))

    def gen_cache(self, memory: Tensor) -> tuple:
        """(an empty self-attention ``Cache``, the cross attention's ``StaticCache`` of
        ``memory``), Paddle's ``gen_cache``: what ``forward``'s ``cache`` takes."""
        return (self.self_attn.gen_cache(memory, type=MultiHeadAttention.Cache),
                self.cross_attn.gen_cache(memory, memory, type=MultiHeadAttention.StaticCache))


class TransformerDecoder(Layer):
    """``num_layers`` decoder layers in sequence, then ``norm`` if given, Paddle's
    ``TransformerDecoder(decoder_layer, num_layers, norm=None)``. The first layer is
    ``decoder_layer`` itself, the others new layers of the same configuration (own weights).

    ``forward(tgt, memory, tgt_mask=None, memory_mask=None, cache=None)``: every layer reads
    the same ``memory`` and masks; ``cache`` is ``gen_cache(memory)``'s list, one pair per
    layer, and with it ``(output, new caches)`` is returned.
    """

    def __init__(self, decoder_layer: TransformerDecoderLayer, num_layers: int, norm=None):
        super().__init__()
        if not isinstance(decoder_layer, TransformerDecoderLayer):
            raise TypeError(f"TransformerDecoder: decoder_layer is a "
                            f"{type(decoder_layer).__name__}; give a TransformerDecoderLayer.")
        num_layers = _positive_layers("TransformerDecoder", num_layers)
        self.layers = LayerList([decoder_layer] + [
            type(decoder_layer)(**decoder_layer._config) for _ in range(num_layers - 1)])
        self.num_layers = num_layers
        self.norm = _optional_layer("TransformerDecoder", "norm", norm)

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask=None, memory_mask=None,
                cache=None):
        # Converted once for every layer, as Paddle does.
        tgt_mask, memory_mask = _mask(tgt_mask, tgt.dtype), _mask(memory_mask, memory.dtype)
        _check_caches("TransformerDecoder", cache, len(self.layers))
        new_caches = []
        for index, layer in enumerate(self.layers):
            if cache is None:
                tgt = layer(tgt, memory, tgt_mask, memory_mask)
            else:
                tgt, new = layer(tgt, memory, tgt_mask, memory_mask, cache[index])
                new_caches.append(new)
        tgt = tgt if self.norm is None else self.norm(tgt)
        return tgt if cache is None else (tgt, new_caches)

    def gen_cache(self, memory: Tensor, do_zip: bool = False) -> list:
        """Each layer's ``gen_cache(memory)`` pair; ``do_zip`` regroups them as [incremental
        caches, static caches] (Paddle's ``gen_cache``)."""
        cache = [layer.gen_cache(memory) for layer in self.layers]
        return list(zip(*cache)) if do_zip else cache


class Transformer(Layer):
    """An encoder-decoder Transformer without embeddings or output layer, Paddle's
    ``Transformer(d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
    dim_feedforward=2048, dropout=0.1, activation='relu', attn_dropout=None,
    act_dropout=None, normalize_before=False, weight_attr=None, bias_attr=None,
    custom_encoder=None, custom_decoder=None)``.

    ``forward(src, tgt, src_mask=None, tgt_mask=None, memory_mask=None)``:
    ``memory = encoder(src, src_mask)``, then ``decoder(tgt, memory, tgt_mask, memory_mask)``,
    [batch, tgt_len, d_model]. As in Paddle, the built encoder and decoder each end with a
    LayerNorm (``encoder.norm``, ``decoder.norm``), post-norm or pre-norm alike.
    ``custom_encoder`` / ``custom_decoder`` replace the built ones. ``weight_attr`` /
    ``bias_attr`` may be a list: of 1 (shared), 2 (attention, feed-forward) or 3 (self
    attention, cross attention, feed-forward; the encoder takes the first and last).
    """

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6,
                 num_decoder_layers: int = 6, dim_feedforward: int = 2048,
                 dropout: float = 0.1, activation: str = "relu", attn_dropout=None,
                 act_dropout=None, normalize_before: bool = False, weight_attr=None,
                 bias_attr=None, custom_encoder=None, custom_decoder=None):
        super().__init__()
        _check_layer_args("Transformer", d_model, nhead, dim_feedforward,
                          {"dropout": dropout, "attn_dropout": attn_dropout,
                           "act_dropout": act_dropout}, activation)
        _optional_layer("Transformer", "custom_encoder", custom_encoder)
        _optional_layer("Transformer", "custom_decoder", custom_decoder)
        _positive_layers("Transformer", num_encoder_layers, "num_encoder_layers")
        _positive_layers("Transformer", num_decoder_layers, "num_decoder_layers")
        encoder_weights, decoder_weights = _encoder_decoder_attrs("weight_attr", weight_attr)
        encoder_biases, decoder_biases = _encoder_decoder_attrs("bias_attr", bias_attr)
        shared = dict(d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward,
                      dropout=dropout, activation=activation, attn_dropout=attn_dropout,
                      act_dropout=act_dropout, normalize_before=normalize_before)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(**shared, weight_attr=encoder_weights,
                                            bias_attr=encoder_biases)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, LayerNorm(d_model))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(**shared, weight_attr=decoder_weights,
                                            bias_attr=decoder_biases)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, LayerNorm(d_model))
        self.d_model, self.nhead = d_model, nhead

    def forward(self, src: Tensor, tgt: Tensor, src_mask=None, tgt_mask=None,
                memory_mask=None) -> Tensor:
        memory = self.encoder(src, src_mask=_mask(src_mask, src.dtype))
        return self.decoder(tgt, memory, tgt_mask=_mask(tgt_mask, tgt.dtype),
                            memory_mask=_mask(memory_mask, memory.dtype))

    @staticmethod
    def generate_square_subsequent_mask(length) -> Tensor:
        """A [length, length] mask of -inf above the diagonal and 0 elsewhere, in the default
        float dtype (Paddle's ``generate_square_subsequent_mask``): added to the scores, it
        lets step i attend only to steps <= i. ``length`` is an int or a one-element Tensor."""
        if isinstance(length, Tensor) and length.size == 1:
            length = int(length.numpy().reshape(()))
        if isinstance(length, bool) or not hasattr(length, "__index__") or int(length) <= 0:
            raise ValueError(f"Transformer.generate_square_subsequent_mask: length={length!r} "
                             "must be a positive integer.")
        length = int(length)
        return core.triu(core.full([length, length], -math.inf), 1)  # the default dtype

    def extra_repr(self) -> str:
        return f"d_model={self.d_model}, nhead={self.nhead}"


def _encoder_decoder_attrs(name: str, attr):
    """Paddle's Transformer split of a ParamAttr list: 1 entry -> shared; 2 -> (attention,
    feed-forward) for both; 3 -> (self attention, cross attention, feed-forward), the encoder
    taking the first and last. Not a list: shared by everything."""
    if not isinstance(attr, (list, tuple)):
        return attr, attr
    if len(attr) == 1:
        return [attr[0]] * 2, [attr[0]] * 3
    if len(attr) == 2:
        return list(attr), [attr[0], attr[0], attr[1]]
    if len(attr) == 3:
        return [attr[0], attr[2]], list(attr)
    raise ValueError(f"Transformer: {name} has {len(attr)} entries; as a list it needs 1, 2 or "
                     "3 (shared; attention and feed-forward; self attention, cross attention "
                     "and feed-forward).")
