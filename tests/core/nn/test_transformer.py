"""MultiHeadAttention, TransformerEncoder(Layer), scaled_dot_product_attention: gradients, torch
parity, masks, and a few training steps that lower the loss."""
import numpy as np
import pytest

import core
from core import nn
from core.nn import functional as F
from tests.gradcheck import check_grad

RNG = np.random.default_rng(0)


def test_attention_gradients_with_a_bool_mask():
    q, k, v = (RNG.standard_normal((2, 3, 2, 2)) for _ in range(3))  # [B, L, H, D]
    mask = np.array([[True, True, False]] * 3)  # False: masked (Paddle's convention)
    check_grad(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, mask), q, k, v)


def test_multi_head_attention_gradient_wrt_input_and_projection():
    layer = nn.MultiHeadAttention(4, 2)
    layer.eval()  # float64 inputs with float32 weights: feed the weights in as float64

    def run(x, wq):
        layer.q_proj.weight = wq
        return layer(x)

    check_grad(run, RNG.standard_normal((2, 3, 4)), RNG.standard_normal((4, 4)))


def _float64(layer):
    for p in layer.parameters():
        p.data = p.data.astype(np.float64)
    return layer


@pytest.mark.parametrize("normalize_before", [False, True])
def test_encoder_layer_gradient_wrt_input_and_feed_forward_weight(normalize_before):
    core.seed(1)
    layer = _float64(nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0,
                                                normalize_before=normalize_before))
    mask = np.array([[True, True, False]] * 3)  # the last step is not attended to

    def run(x, w1):
        layer.linear1.weight = w1
        return layer(x, src_mask=mask)

    check_grad(run, RNG.standard_normal((2, 3, 4)), layer.linear1.weight.numpy().copy())


def test_encoder_gradient_through_two_layers_and_the_final_norm():
    core.seed(2)
    encoder = _float64(nn.TransformerEncoder(
        nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0, activation="gelu"), 2, nn.LayerNorm(4)))
    check_grad(encoder, RNG.standard_normal((2, 3, 4)))


def _copy_mha_to_torch(mine, theirs):
    import torch  # noqa: PLC0415

    w = [getattr(mine, f"{n}_proj").weight.numpy().T for n in "qkv"]
    b = [getattr(mine, f"{n}_proj").bias.numpy() for n in "qkv"]
    with torch.no_grad():
        theirs.in_proj_weight.copy_(torch.tensor(np.concatenate(w)))
        theirs.in_proj_bias.copy_(torch.tensor(np.concatenate(b)))
        theirs.out_proj.weight.copy_(torch.tensor(mine.out_proj.weight.numpy().T))
        theirs.out_proj.bias.copy_(torch.tensor(mine.out_proj.bias.numpy()))


def test_multi_head_attention_matches_torch_with_mask_and_weights():
    torch = pytest.importorskip("torch")
    core.seed(1)
    mine = nn.MultiHeadAttention(8, 2, need_weights=True)
    for p in mine.parameters():
        p.set_value(RNG.standard_normal(p.shape).astype(np.float32) * 0.3)
    theirs = torch.nn.MultiheadAttention(8, 2, batch_first=True)
    _copy_mha_to_torch(mine, theirs)
    x = RNG.standard_normal((2, 5, 8)).astype(np.float32)
    keep = np.tril(np.ones((5, 5), bool))
    xt = core.to_tensor(x, stop_gradient=False)
    out, weights = mine(xt, attn_mask=keep)
    t = torch.tensor(x, requires_grad=True)
    want, want_w = theirs(t, t, t, attn_mask=torch.tensor(~keep), average_attn_weights=False)
    np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(weights.numpy(), want_w.detach().numpy(), rtol=1e-4, atol=1e-6)
    g = RNG.standard_normal(out.shape).astype(np.float32)
    out.backward(core.to_tensor(g))
    want.backward(torch.tensor(g))
    np.testing.assert_allclose(xt.gradient(), t.grad.numpy(), rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("normalize_before", [False, True])
def test_encoder_layer_matches_torch(normalize_before):
    torch = pytest.importorskip("torch")
    mine = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, normalize_before=normalize_before)
    theirs = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True,
                                              norm_first=normalize_before)
    _copy_mha_to_torch(mine.self_attn, theirs.self_attn)
    with torch.no_grad():
        for name in ("linear1", "linear2"):
            getattr(theirs, name).weight.copy_(torch.tensor(getattr(mine, name).weight.numpy().T))
            getattr(theirs, name).bias.copy_(torch.tensor(getattr(mine, name).bias.numpy()))
    x = RNG.standard_normal((2, 4, 8)).astype(np.float32)
    np.testing.assert_allclose(mine(core.to_tensor(x)).numpy(),
                               theirs(torch.tensor(x)).detach().numpy(), rtol=1e-4, atol=1e-5)


def test_encoder_stacks_independent_copies_and_applies_norm():
    layer = nn.TransformerEncoderLayer(8, 2, 16, attn_dropout=0.0, activation="gelu")
    encoder = nn.TransformerEncoder(layer, 3, nn.LayerNorm(8))
    assert encoder.layers[0] is layer and len(encoder.layers) == 3
    assert encoder.layers[1].self_attn.dropout == 0.0 and encoder.layers[2].dropout.p == 0.1
    assert encoder.layers[1].linear1.weight is not layer.linear1.weight
    assert len(encoder.parameters()) == 3 * 16 + 2
    encoder.eval()
    out = encoder(core.to_tensor(RNG.standard_normal((2, 3, 8)).astype(np.float32))).numpy()
    np.testing.assert_allclose(out.mean(-1), 0, atol=1e-5)  # the final LayerNorm


def test_training_a_one_layer_encoder_lowers_the_loss():
    """Toy task: predict, at every position, the first token of the sequence."""
    core.seed(0)
    vocab, dim, length = 5, 16, 6
    embed = nn.Embedding(vocab, dim)
    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(dim, 2, 32, dropout=0.0), 1)
    head = nn.Linear(dim, vocab)
    params = embed.parameters() + encoder.parameters() + head.parameters()
    opt = core.optimizer.Adam(learning_rate=0.01, parameters=params)
    ids = np.random.default_rng(0).integers(0, vocab, size=(32, length))
    target = core.to_tensor(np.repeat(ids[:, :1], length, axis=1).reshape(-1, 1))
    losses = []
    for _ in range(30):
        logits = head(encoder(embed(core.to_tensor(ids))))
        loss = F.cross_entropy(core.reshape(logits, [-1, vocab]), target)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    assert losses[-1] < 0.5 * losses[0], losses


def test_layer_dict():
    layers = nn.LayerDict({"a": nn.Linear(2, 3), "b": nn.ReLU()})
    layers["c"] = nn.Linear(3, 1)
    assert list(layers) == ["a", "b", "c"] and "b" in layers and len(layers) == 3
    assert [n for n, _ in layers.named_parameters()] == ["a.weight", "a.bias", "c.weight",
                                                         "c.bias"]
    assert isinstance(layers.pop("b"), nn.ReLU) and list(layers.keys()) == ["a", "c"]
    layers.update([("d", nn.Identity())])
    assert list(layers.state_dict()) == ["a.weight", "a.bias", "c.weight", "c.bias"]
    with pytest.raises(KeyError, match="names are"):
        layers["zz"]
    with pytest.raises(TypeError, match="not a Layer"):
        layers["e"] = 3
    layers.clear()
    assert len(layers) == 0 and layers.parameters() == []


def test_attention_refuses_inputs_that_are_not_3d_by_name():
    """A 4-D input (images through a Linear) used to fail inside the head split's reshape with
    sizes the user never set; the error now names the input and the [batch, length, features]
    layout attention takes."""
    layer = nn.MultiHeadAttention(8, 2)
    seq = core.to_tensor(RNG.standard_normal((2, 3, 8)).astype("float32"))
    images = core.to_tensor(RNG.standard_normal((2, 1, 3, 8)).astype("float32"))
    with pytest.raises(ValueError, match=r"query has shape \[2, 1, 3, 8\]; attention takes 3-D"):
        layer(images)
    with pytest.raises(ValueError, match=r"key has shape \[2, 1, 3, 8\]"):
        layer(seq, images, seq)
    with pytest.raises(ValueError, match=r"query has shape \[2, 1, 3, 8\]"):
        nn.TransformerEncoderLayer(8, 2, 16)(images)
