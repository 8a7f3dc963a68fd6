"""TransformerDecoderLayer, TransformerDecoder and Transformer: float64 gradients, torch parity
(post-norm and pre-norm, causal and padding masks), Paddle's mask forms, incremental decoding
with gen_cache, argument errors, and the layers in a network spec."""
import math

import numpy as np
import pytest

import core
from core import nn
from core.nn import functional as F
from tests.gradcheck import check_grad

RNG = np.random.default_rng(0)


def _float64(layer):
    for p in layer.parameters():
        p.data = p.data.astype(np.float64)
    return layer


def _randomize(layer, scale=0.3):
    """Weights away from their initial values (LayerNorm scales near 1), so that every
    parameter's place in the computation matters in the comparisons."""
    for name, p in layer.named_parameters():
        noise = RNG.standard_normal(p.shape).astype(np.float32) * scale
        p.set_value(1.0 + noise if name.split(".")[-2].startswith("norm")
                    and name.endswith("weight") else noise)
    return layer


# ----- gradients (float64 finite differences) ------------------------------------------------

@pytest.mark.parametrize("normalize_before", [False, True])
def test_decoder_layer_gradient_wrt_tgt_memory_and_cross_attention_weight(normalize_before):
    core.seed(1)
    layer = _float64(nn.TransformerDecoderLayer(4, 2, 6, dropout=0.0,
                                                normalize_before=normalize_before))
    causal = nn.Transformer.generate_square_subsequent_mask(3)  # float, -inf above diagonal
    keep = np.array([True, True, True, False])  # the last memory step is padding

    def run(tgt, memory, wk):
        layer.cross_attn.k_proj.weight = wk
        return layer(tgt, memory, tgt_mask=causal, memory_mask=keep)

    check_grad(run, RNG.standard_normal((2, 3, 4)), RNG.standard_normal((2, 4, 4)),
               layer.cross_attn.k_proj.weight.numpy().copy())


def test_decoder_gradient_through_two_layers_and_the_final_norm():
    core.seed(2)
    decoder = _float64(nn.TransformerDecoder(
        nn.TransformerDecoderLayer(4, 2, 6, dropout=0.0, activation="gelu"), 2, nn.LayerNorm(4)))

    def run(tgt, memory, w2):
        decoder.layers[1].linear2.weight = w2
        return decoder(tgt, memory, np.tril(np.ones((3, 3), bool)))

    check_grad(run, RNG.standard_normal((2, 3, 4)), RNG.standard_normal((2, 2, 4)),
               decoder.layers[1].linear2.weight.numpy().copy())


@pytest.mark.parametrize("normalize_before", [False, True])
def test_transformer_gradient_wrt_src_tgt_and_an_encoder_weight(normalize_before):
    core.seed(3)
    model = _float64(nn.Transformer(4, 2, 1, 1, 6, dropout=0.0,
                                    normalize_before=normalize_before))
    causal = model.generate_square_subsequent_mask(3)

    def run(src, tgt, w1):
        model.encoder.layers[0].linear1.weight = w1
        return model(src, tgt, tgt_mask=causal)

    check_grad(run, RNG.standard_normal((2, 4, 4)), RNG.standard_normal((2, 3, 4)),
               model.encoder.layers[0].linear1.weight.numpy().copy())


# ----- torch parity --------------------------------------------------------------------------

def _copy_linear(torch, mine, theirs):
    with torch.no_grad():
        theirs.weight.copy_(torch.tensor(mine.weight.numpy().T))  # Paddle: [in, out]
        theirs.bias.copy_(torch.tensor(mine.bias.numpy()))


def _copy_norm(torch, mine, theirs):
    with torch.no_grad():
        theirs.weight.copy_(torch.tensor(mine.weight.numpy()))
        theirs.bias.copy_(torch.tensor(mine.bias.numpy()))


def _copy_attention(torch, mine, theirs):
    """Paddle's separate q/k/v projections -> torch's packed in_proj ([3E, E], rows q, k, v)."""
    with torch.no_grad():
        theirs.in_proj_weight.copy_(torch.tensor(np.concatenate(
            [getattr(mine, f"{n}_proj").weight.numpy().T for n in "qkv"])))
        theirs.in_proj_bias.copy_(torch.tensor(np.concatenate(
            [getattr(mine, f"{n}_proj").bias.numpy() for n in "qkv"])))
    _copy_linear(torch, mine.out_proj, theirs.out_proj)


def _copy_layer(torch, mine, theirs):
    """An encoder or decoder layer: torch calls the cross attention ``multihead_attn``."""
    _copy_attention(torch, mine.self_attn, theirs.self_attn)
    if hasattr(mine, "cross_attn"):
        _copy_attention(torch, mine.cross_attn, theirs.multihead_attn)
    for name in ("linear1", "linear2"):
        _copy_linear(torch, getattr(mine, name), getattr(theirs, name))
    for name in ("norm1", "norm2", "norm3"):
        if hasattr(mine, name):
            _copy_norm(torch, getattr(mine, name), getattr(theirs, name))


def _both(torch, *arrays):
    return ([core.to_tensor(a, stop_gradient=False) for a in arrays],
            [torch.tensor(a, requires_grad=True) for a in arrays])


@pytest.mark.parametrize("normalize_before", [False, True])
def test_decoder_layer_matches_torch_with_causal_and_padding_masks(normalize_before):
    torch = pytest.importorskip("torch")
    core.seed(4)
    mine = _randomize(nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0,
                                                 normalize_before=normalize_before))
    theirs = torch.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, batch_first=True,
                                              norm_first=normalize_before)
    _copy_layer(torch, mine, theirs)
    tgt, memory = (RNG.standard_normal(s).astype(np.float32) for s in ((2, 5, 8), (2, 6, 8)))
    keep = np.ones((5, 6), bool)
    keep[:, -2:] = False  # padded memory steps; Paddle: True keeps, torch: True masks
    (t, m), (tt, mt) = _both(torch, tgt, memory)
    causal = nn.Transformer.generate_square_subsequent_mask(5)
    out = mine(t, m, tgt_mask=causal, memory_mask=keep)
    want = theirs(tt, mt, tgt_mask=torch.nn.Transformer.generate_square_subsequent_mask(5),
                  memory_mask=torch.tensor(~keep))
    np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=1e-4, atol=1e-5)
    g = RNG.standard_normal(out.shape).astype(np.float32)
    out.backward(core.to_tensor(g))
    want.backward(torch.tensor(g))
    np.testing.assert_allclose(t.gradient(), tt.grad.numpy(), rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(m.gradient(), mt.grad.numpy(), rtol=1e-3, atol=1e-4)


@pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")  # torch's, for norm_first
@pytest.mark.parametrize("normalize_before", [False, True])
def test_transformer_matches_torch(normalize_before):
    """Both build a final LayerNorm for the encoder and the decoder, pre-norm or post-norm."""
    torch = pytest.importorskip("torch")
    core.seed(5)
    mine = _randomize(nn.Transformer(8, 2, 2, 2, 16, dropout=0.0,
                                     normalize_before=normalize_before))
    theirs = torch.nn.Transformer(8, 2, 2, 2, 16, dropout=0.0, batch_first=True,
                                  norm_first=normalize_before)
    for side in ("encoder", "decoder"):
        for a, b in zip(getattr(mine, side).layers, getattr(theirs, side).layers):
            _copy_layer(torch, a, b)
        _copy_norm(torch, getattr(mine, side).norm, getattr(theirs, side).norm)
    src, tgt = (RNG.standard_normal(s).astype(np.float32) for s in ((2, 6, 8), (2, 4, 8)))
    mask = mine.generate_square_subsequent_mask(4)
    want_mask = torch.nn.Transformer.generate_square_subsequent_mask(4)
    np.testing.assert_array_equal(mask.numpy(), want_mask.numpy())
    (s, t), (st, tt) = _both(torch, src, tgt)
    out = mine(s, t, tgt_mask=mask)
    want = theirs(st, tt, tgt_mask=want_mask)
    np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=1e-4, atol=1e-4)
    g = RNG.standard_normal(out.shape).astype(np.float32)
    out.backward(core.to_tensor(g))
    want.backward(torch.tensor(g))
    np.testing.assert_allclose(s.gradient(), st.grad.numpy(), rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(t.gradient(), tt.grad.numpy(), rtol=1e-3, atol=1e-4)


# ----- Paddle's mask forms and the square subsequent mask ---------------------------------------

def test_bool_int_and_float_masks_are_the_same_mask():
    """Paddle: bool keeps True, an integer mask keeps 1s (both -> (mask - 1) * 1e9), a float
    mask is added to the scores as it is."""
    core.seed(6)
    layer = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0)
    tgt, memory = (RNG.standard_normal(s).astype(np.float32) for s in ((2, 3, 8), (2, 5, 8)))
    keep = np.array([[1, 1, 1, 0, 0]] * 3)
    additive = ((keep - 1.0) * 1e9).astype(np.float32)  # the hand-written form
    outs = [layer(tgt, memory, memory_mask=m).numpy()
            for m in (keep.astype(bool), keep, core.to_tensor(keep), additive)]
    for out in outs[1:]:
        np.testing.assert_allclose(out, outs[0], rtol=1e-6, atol=1e-6)
    # The masked steps do not matter; without the mask they do.
    changed = memory.copy()
    changed[:, 3:] = 5.0
    np.testing.assert_allclose(layer(tgt, changed, memory_mask=keep).numpy(), outs[0],
                               rtol=1e-5, atol=1e-5)
    assert not np.allclose(layer(tgt, changed).numpy(), layer(tgt, memory).numpy())


def test_square_subsequent_mask_is_paddles_and_makes_the_decoder_causal():
    mask = nn.Transformer.generate_square_subsequent_mask(4)
    want = np.triu(np.full((4, 4), -np.inf, np.float32), 1)
    assert mask.dtype == np.float32 and mask.shape == [4, 4]
    np.testing.assert_array_equal(mask.numpy(), want)
    np.testing.assert_array_equal(
        nn.Transformer.generate_square_subsequent_mask(core.to_tensor(4)).numpy(), want)
    core.seed(7)
    layer = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0)
    tgt, memory = (RNG.standard_normal(s).astype(np.float32) for s in ((1, 4, 8), (1, 3, 8)))
    later = tgt.copy()
    later[:, 2:] += 1.0  # steps 0 and 1 must not see steps 2 and 3
    a, b = (layer(x, memory, tgt_mask=mask).numpy() for x in (tgt, later))
    np.testing.assert_allclose(a[:, :2], b[:, :2], rtol=1e-5, atol=1e-6)
    assert not np.allclose(a[:, 2:], b[:, 2:])


# ----- incremental decoding (gen_cache) ----------------------------------------------------------

def test_decoding_step_by_step_with_gen_cache_matches_the_causal_pass():
    core.seed(8)
    decoder = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0,
                                                               normalize_before=True), 2,
                                    nn.LayerNorm(8))
    decoder.eval()
    tgt, memory = (RNG.standard_normal(s).astype(np.float32) for s in ((2, 4, 8), (2, 5, 8)))
    full = decoder(tgt, memory, nn.Transformer.generate_square_subsequent_mask(4)).numpy()
    cache = decoder.gen_cache(core.to_tensor(memory))
    static = cache[0][1]
    assert cache[0][0].k.shape == [2, 2, 0, 4] and static.k.shape == [2, 2, 5, 4]
    for step in range(4):
        out, cache = decoder(core.to_tensor(tgt[:, step:step + 1]), core.to_tensor(memory),
                             None, None, cache)
        np.testing.assert_allclose(out.numpy()[:, 0], full[:, step], rtol=1e-4, atol=1e-5)
    assert cache[1][0].k.shape == [2, 2, 4, 4]  # every step's keys, per layer
    assert cache[0][1] is static  # the memory is projected once
    incremental, statics = decoder.gen_cache(core.to_tensor(memory), do_zip=True)
    assert len(incremental) == len(statics) == 2
    assert isinstance(statics[0], nn.MultiHeadAttention.StaticCache)


def test_encoding_step_by_step_with_gen_cache_matches_the_causal_pass():
    core.seed(9)
    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 2)
    encoder.eval()
    src = RNG.standard_normal((2, 3, 8)).astype(np.float32)
    full = encoder(src, nn.Transformer.generate_square_subsequent_mask(3)).numpy()
    cache = encoder.gen_cache(core.to_tensor(src))
    for step in range(3):
        out, cache = encoder(core.to_tensor(src[:, step:step + 1]), None, cache)
        np.testing.assert_allclose(out.numpy()[:, 0], full[:, step], rtol=1e-4, atol=1e-5)


def test_multi_head_attention_returns_weights_then_cache():
    attn = nn.MultiHeadAttention(8, 2, need_weights=True)
    x = core.to_tensor(RNG.standard_normal((2, 3, 8)).astype(np.float32))
    out, weights, cache = attn(x, cache=attn.gen_cache(x))
    assert out.shape == [2, 3, 8] and weights.shape == [2, 2, 3, 3]
    assert cache.k.shape == [2, 2, 3, 4]
    given = attn.gen_cache(cache.k, cache.v)  # a Cache of given keys and values
    assert isinstance(given, nn.MultiHeadAttention.Cache) and given.k is cache.k


# ----- structure -------------------------------------------------------------------------------

def test_decoder_stacks_independent_copies_and_transformer_builds_final_norms():
    layer = nn.TransformerDecoderLayer(8, 2, 16, attn_dropout=0.0, activation="gelu",
                                       layer_norm_eps=1e-6)
    decoder = nn.TransformerDecoder(layer, 3)
    assert decoder.layers[0] is layer and len(decoder.layers) == 3 and decoder.norm is None
    copy = decoder.layers[2]
    assert copy.cross_attn.dropout == 0.0 and copy.dropout.p == 0.1
    assert copy.norm3.epsilon == 1e-6 and copy.linear1.weight is not layer.linear1.weight
    assert len(decoder.parameters()) == 3 * 26  # 2 x 8 attention + 4 linear + 6 norm
    for normalize_before in (False, True):  # Paddle builds both norms either way
        model = nn.Transformer(8, 2, 1, 2, 16, normalize_before=normalize_before)
        assert isinstance(model.encoder.norm, nn.LayerNorm)
        assert isinstance(model.decoder.norm, nn.LayerNorm)
        assert len(model.decoder.layers) == 2
    custom = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 1)
    model = nn.Transformer(8, 2, dim_feedforward=16, num_decoder_layers=1,
                           custom_encoder=custom)
    assert model.encoder is custom and len(model.decoder.layers) == 1


def test_param_attr_lists_reach_their_sublayers():
    """Paddle: a decoder layer's list is (self attention, cross attention, feed-forward); the
    Transformer's list of 2 is (attention, feed-forward), shared by encoder and decoder."""
    layer = nn.TransformerDecoderLayer(8, 2, 16, bias_attr=[False, None, False])
    assert layer.self_attn.q_proj.bias is None and layer.linear1.bias is None
    assert layer.cross_attn.v_proj.bias is not None
    model = nn.Transformer(8, 2, 1, 1, 16, bias_attr=[False, None])
    enc, dec = model.encoder.layers[0], model.decoder.layers[0]
    assert enc.self_attn.out_proj.bias is None and enc.linear2.bias is not None
    assert dec.cross_attn.k_proj.bias is None and dec.linear1.bias is not None
    model = nn.Transformer(8, 2, 1, 1, 16, bias_attr=[None, False, None])
    assert model.encoder.layers[0].self_attn.q_proj.bias is not None
    assert model.decoder.layers[0].cross_attn.q_proj.bias is None


def test_training_a_small_transformer_to_copy_lowers_the_loss():
    """Toy task: the decoder, fed the source shifted right, predicts the source."""
    core.seed(0)
    vocab, dim, length = 6, 16, 5
    embed, head = nn.Embedding(vocab + 1, dim), nn.Linear(dim, vocab)
    model = nn.Transformer(dim, 2, 1, 1, 32, dropout=0.0)
    params = embed.parameters() + model.parameters() + head.parameters()
    opt = core.optimizer.Adam(learning_rate=0.01, parameters=params)
    ids = np.random.default_rng(0).integers(0, vocab, size=(32, length))
    shifted = np.concatenate([np.full((32, 1), vocab), ids[:, :-1]], axis=1)  # start token
    mask = model.generate_square_subsequent_mask(length)
    target = core.to_tensor(ids.reshape(-1, 1))
    losses = []
    for _ in range(25):
        logits = head(model(embed(core.to_tensor(ids)), embed(core.to_tensor(shifted)),
                            tgt_mask=mask))
        loss = F.cross_entropy(core.reshape(logits, [-1, vocab]), target)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    assert losses[-1] < 0.5 * losses[0], losses


# ----- argument errors -------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, match", [
    (dict(d_model=10, nhead=3), "d_model=10 must be divisible by nhead=3"),
    (dict(nhead=0), "nhead=0 must be a positive integer"),
    (dict(d_model=8.0), "d_model=8.0 must be a positive integer"),
    (dict(dim_feedforward=-1), "dim_feedforward=-1 must be a positive integer"),
    (dict(dropout=1.5), r"dropout=1.5 is not a probability"),
    (dict(attn_dropout=-0.1), r"attn_dropout=-0.1 is not a probability"),
    (dict(act_dropout="x"), r"act_dropout='x' is not a probability"),
    (dict(activation="tanh"), r"activation='tanh' is not supported"),
    (dict(weight_attr=[None, None]), "weight_attr has 2 entries; as a list it needs 3"),
])
def test_decoder_layer_argument_errors_name_the_argument(kwargs, match):
    args = {"d_model": 8, "nhead": 2, "dim_feedforward": 16, **kwargs}
    with pytest.raises(ValueError, match=f"TransformerDecoderLayer: {match}"):
        nn.TransformerDecoderLayer(**args)


def test_decoder_transformer_and_mask_argument_errors():
    layer = nn.TransformerDecoderLayer(8, 2, 16)
    with pytest.raises(TypeError, match="decoder_layer is a Linear; give a "
                                        "TransformerDecoderLayer"):
        nn.TransformerDecoder(nn.Linear(8, 8), 2)
    with pytest.raises(ValueError, match="TransformerDecoder: num_layers=0 must be a positive"):
        nn.TransformerDecoder(layer, 0)
    with pytest.raises(TypeError, match="TransformerDecoder: norm is a str"):
        nn.TransformerDecoder(layer, 1, norm="layer")
    with pytest.raises(ValueError, match="Transformer: d_model=12 must be divisible by nhead=5"):
        nn.Transformer(12, 5)
    with pytest.raises(ValueError, match="Transformer: num_encoder_layers=0 must be a positive"):
        nn.Transformer(8, 2, num_encoder_layers=0, dim_feedforward=16)
    with pytest.raises(TypeError, match="Transformer: custom_decoder is a int"):
        nn.Transformer(8, 2, dim_feedforward=16, custom_decoder=3)
    with pytest.raises(ValueError, match="Transformer: weight_attr has 4 entries"):
        nn.Transformer(8, 2, dim_feedforward=16, weight_attr=[None] * 4)
    with pytest.raises(ValueError, match="length=0 must be a positive integer"):
        nn.Transformer.generate_square_subsequent_mask(0)
    with pytest.raises(ValueError, match="TransformerEncoder: num_layers=-1 must be a positive"):
        nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), -1)
    x = core.to_tensor(np.zeros((1, 2, 8), np.float32))
    with pytest.raises(ValueError, match="TransformerDecoderLayer: cache must be the pair"):
        layer(x, x, cache=[1, 2, 3])
    with pytest.raises(ValueError, match="TransformerDecoder: cache must be a list of 2"):
        nn.TransformerDecoder(layer, 2)(x, x, cache=[])
    with pytest.raises(TypeError, match="MultiHeadAttention: cache is a dict"):
        layer.self_attn(x, cache={})
    with pytest.raises(TypeError, match="gen_cache: type=<class 'tuple'> must be"):
        layer.self_attn.gen_cache(x, type=tuple)


# ----- summary and network specs -----------------------------------------------------------------

def test_summary_runs_a_decoder_layer_on_two_inputs(capsys):
    info = core.summary(nn.TransformerDecoderLayer(8, 2, 16), [(1, 3, 8), (1, 5, 8)])
    # Two attentions of four 8x8 Linears, the feed-forward 8 -> 16 -> 8, three LayerNorms.
    assert info["total_params"] == 2 * 4 * (64 + 8) + (128 + 16) + (128 + 8) + 3 * 16
    assert "cross_attn" in capsys.readouterr().out


def test_spec_builds_a_decoder_layer_and_a_transformer_on_two_inputs():
    from runner import build
    from runner.build.spec.layer_types import core_layer_types
    from runner.config import validation

    types = core_layer_types()
    assert "TransformerDecoderLayer" in types and "Transformer" in types
    assert "TransformerDecoder" not in types  # takes a layer object: a container
    layers = {"tgt": {"type": "Linear", "out_features": 8},
              "mem": {"type": "Linear", "out_features": 8, "inputs": ["input"]},
              "dec": {"type": "TransformerDecoderLayer", "nhead": 2, "dim_feedforward": 16,
                      "inputs": ["tgt", "mem"]},
              "both": {"type": "Transformer", "nhead": 2, "num_encoder_layers": 1,
                       "num_decoder_layers": 1, "dim_feedforward": 16,
                       "inputs": ["mem", "dec"]},
              "flat": {"type": "Flatten"},
              "out": {"type": "Linear"}}
    spec = validation.group_option("model", {"name": "net", "layers": layers, "blocks": {}})
    core.seed(0)
    model = build.build_model(spec, (4, 6), 3)
    assert model["dec"].self_attn.embed_dim == 8 and model["both"].d_model == 8  # inferred
    x = core.to_tensor(RNG.standard_normal((5, 4, 6)).astype(np.float32))
    y = core.to_tensor(np.array([0, 1, 2, 0, 1]))
    opt = core.optimizer.Adam(learning_rate=0.01, parameters=model.parameters())
    before = model["both"].decoder.layers[0].cross_attn.q_proj.weight.numpy().copy()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    assert math.isfinite(float(loss)) and model(x).shape == [5, 3]
    assert not np.array_equal(before,
                              model["both"].decoder.layers[0].cross_attn.q_proj.weight.numpy())
