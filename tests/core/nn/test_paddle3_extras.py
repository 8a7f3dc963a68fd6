"""Paddle 3 additions to core.nn: fixed-mode padding layers, LP pooling, feature alpha dropout,
hierarchical sigmoid, margin cross entropy with class-centre sampling and adaptive softmax."""
from __future__ import annotations

import numpy as np
import pytest

import core
from core import nn
from core.nn import functional as F
from runner import build
from runner.config import validation
from tests.gradcheck import check_grad

RNG = np.random.default_rng(0)

# ----- padding layers ------------------------------------------------------------------------

PADS = [("ConstantPad1D", 3, [2, 1]), ("ConstantPad2D", 4, [1, 2, 0, 1]),
        ("ConstantPad3D", 5, [1, 0, 2, 1, 1, 1]),
        ("ReflectionPad1D", 3, [2, 1]), ("ReflectionPad2D", 4, [1, 2, 0, 1]),
        ("ReflectionPad3D", 5, [1, 0, 2, 1, 1, 1]),
        ("ReplicationPad1D", 3, [2, 1]), ("ReplicationPad2D", 4, [1, 2, 0, 1]),
        ("ReplicationPad3D", 5, [1, 0, 2, 1, 1, 1]),
        ("CircularPad1D", 3, [2, 1]), ("CircularPad2D", 4, [1, 2, 0, 1]),
        ("CircularPad3D", 5, [1, 0, 2, 1, 1, 1])]


@pytest.mark.parametrize("name, ndim, padding", PADS)
def test_padding_layer_gradients(name, ndim, padding):
    layer = getattr(nn, name)(padding)
    check_grad(layer, RNG.normal(size=(2, 2, 3, 3, 4)[:ndim]))


@pytest.mark.parametrize("name, ndim, padding", PADS)
def test_padding_layers_match_torch(name, ndim, padding):
    torch = pytest.importorskip("torch")
    x = RNG.normal(size=(2, 3, 4, 5, 3)[:ndim]).astype(np.float32)
    args = (padding, 1.5) if name.startswith("Constant") else (padding,)
    ours = getattr(nn, name)(*args)(core.to_tensor(x)).numpy()
    theirs = getattr(torch.nn, name[:-1] + "d")(tuple(padding), *args[1:])(torch.tensor(x))
    np.testing.assert_allclose(ours, theirs.numpy(), rtol=1e-6)


def test_padding_layers_take_channels_last_and_check_arguments():
    x = RNG.normal(size=(1, 3, 4, 2)).astype(np.float32)  # NHWC
    out = nn.ReflectionPad2D([1, 1, 0, 0], data_format="NHWC")(core.to_tensor(x)).numpy()
    np.testing.assert_array_equal(out, np.pad(x, ((0, 0), (0, 0), (1, 1), (0, 0)), "reflect"))
    assert "value=2.0" in repr(nn.ConstantPad1D(1, 2.0)) and "mode" not in repr(
        nn.CircularPad2D(1))
    with pytest.raises(ValueError, match="padding"):
        nn.ReplicationPad2D([1, 2, 3])
    with pytest.raises(ValueError, match="data_format"):
        nn.CircularPad3D(1, data_format="NCHW")


# ----- LP pooling -------------------------------------------------------------------------------

def _lp_reference(x, p, k, s, pad):
    """out = (sum over the window's input cells of x ** p) ** (1 / p), NCHW, floor mode."""
    n, c, h, w = x.shape
    xp_ = np.pad(x ** p, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (h + 2 * pad - k) // s + 1, (w + 2 * pad - k) // s + 1
    out = np.empty((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            out[:, :, i, j] = xp_[:, :, i * s:i * s + k, j * s:j * s + k].sum(axis=(2, 3))
    return out ** (1 / p)


@pytest.mark.parametrize("p", [1.0, 2.0, 3.5])
def test_lp_pool2d_and_LPPool2D_gradients(p):
    x = RNG.uniform(0.2, 1.5, size=(2, 2, 5, 4))
    check_grad(lambda t: F.lp_pool2d(t, p, 2, 1, padding=1), x)
    check_grad(nn.LPPool2D(p, [2, 3], stride=2, ceil_mode=True), x)


def test_lp_pool1d_and_LPPool1D_gradients():
    x = RNG.uniform(0.2, 1.5, size=(2, 3, 7))
    check_grad(lambda t: F.lp_pool1d(t, 2.0, 3, 2, padding=1), x)
    check_grad(nn.LPPool1D(3, 2, data_format="NLC"), x)


def test_lp_pool_matches_torch_without_padding():
    torch = pytest.importorskip("torch")
    x = RNG.uniform(0.1, 2.0, size=(2, 3, 7, 6)).astype(np.float32)
    for p in (1, 2, 3.0):
        np.testing.assert_allclose(F.lp_pool2d(core.to_tensor(x), p, 3, 2).numpy(),
                                   torch.nn.functional.lp_pool2d(torch.tensor(x), p, 3, 2),
                                   rtol=1e-5)
        np.testing.assert_allclose(
            nn.LPPool1D(p, 2)(core.to_tensor(x[:, :, 0])).numpy(),
            torch.nn.LPPool1d(p, 2)(torch.tensor(x[:, :, 0])).numpy(), rtol=1e-5)


def test_lp_pool_padding_adds_nothing_unlike_an_average():
    """Paddle's padding (torch's lp_pool has none): padded cells add 0 to the power sum."""
    x = RNG.uniform(0.1, 2.0, size=(1, 2, 5, 5))
    np.testing.assert_allclose(F.lp_pool2d(core.to_tensor(x), 2, 3, 2, padding=1).numpy(),
                               _lp_reference(x, 2, 3, 2, 1), rtol=1e-12)
    nhwc = F.lp_pool2d(core.to_tensor(x.transpose(0, 2, 3, 1)), 2, 3, 2, padding=1,
                       data_format="NHWC").numpy()
    np.testing.assert_allclose(nhwc.transpose(0, 3, 1, 2), _lp_reference(x, 2, 3, 2, 1))


def test_lp_pool_arguments_are_checked():
    x = core.to_tensor(np.ones((1, 1, 4, 4), np.float32))
    with pytest.raises(ValueError, match="norm_type=0"):
        F.lp_pool2d(x, 0, 2)
    with pytest.raises(ValueError, match="norm_type"):
        nn.LPPool1D(float("-inf"), 2)  # +inf is max pooling, as in Paddle
    with pytest.raises(ValueError, match="kernel_size"):
        F.lp_pool2d(x, 2, 0)
    with pytest.raises(ValueError, match="data_format"):
        nn.LPPool2D(2, 2, data_format="NCL")
    with pytest.raises(ValueError, match="'x' must be 3-D"):
        F.lp_pool1d(x, 2, 2)


# ----- feature alpha dropout --------------------------------------------------------------------

def test_feature_alpha_dropout_and_FeatureAlphaDropout_gradients():
    x = RNG.normal(size=(3, 4, 2, 2))

    def seeded(t):
        core.seed(5)  # the same channel mask at every finite-difference evaluation
        return F.feature_alpha_dropout(t, 0.4)

    check_grad(seeded, x)
    layer = nn.FeatureAlphaDropout(0.3)

    def seeded_layer(t):
        core.seed(7)
        return layer(t)

    check_grad(seeded_layer, x)


def test_feature_alpha_dropout_drops_whole_channels_with_alpha_dropouts_affine_map():
    p = 0.5
    alpha_p = -1.6732632423543772 * 1.0507009873554805
    a = ((1 - p) * (1 + p * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * p
    x = RNG.normal(size=(8, 6, 3, 3))
    core.seed(0)
    out = F.feature_alpha_dropout(core.to_tensor(x), p).numpy()
    kept = np.isclose(out, a * x + b)
    dropped = np.isclose(out, a * alpha_p + b)
    assert (kept | dropped).all()
    per_channel = kept.reshape(8, 6, -1)
    assert (per_channel.all(axis=2) | ~per_channel.any(axis=2)).all()  # whole channels
    assert per_channel.all(axis=2).any() and (~per_channel.any(axis=2)).any()
    layer = nn.FeatureAlphaDropout(p)
    layer.eval()
    np.testing.assert_array_equal(layer(core.to_tensor(x)).numpy(), x)
    assert not F.feature_alpha_dropout(core.to_tensor(x), 1.0).numpy().any()


def test_feature_alpha_dropout_arguments_are_checked():
    with pytest.raises(ValueError, match="p=1.5"):
        nn.FeatureAlphaDropout(1.5)
    with pytest.raises(ValueError, match="'x' must be at least 2-D"):
        F.feature_alpha_dropout(core.to_tensor(np.ones(3, np.float32)), 0.5)


# ----- hierarchical sigmoid ------------------------------------------------------------------

def _hsigmoid_reference(x, label, num_classes, w, b):
    """Paddle's kernel by hand: SimpleCode paths, clip, softplus over the whole code matrix."""
    code_length = int(num_classes - 1).bit_length()
    out = np.zeros((len(x), 1))
    for i, lab in enumerate(label):
        c = int(lab) + num_classes
        z = np.zeros(code_length)
        bits = np.zeros(code_length)
        for j in range(c.bit_length() - 1):
            node = (c >> (j + 1)) - 1
            z[j] = np.clip(x[i] @ w[node] + (0 if b is None else b[node, 0]), -40, 40)
            bits[j] = (c >> j) & 1
        out[i, 0] = np.log1p(np.exp(z)).sum() - (bits * z).sum()
    return out


def test_hsigmoid_loss_and_HSigmoidLoss_gradients():
    x = RNG.normal(size=(5, 3))
    w, b = RNG.normal(size=(5, 3)), RNG.normal(size=(5, 1))
    label = np.array([0, 2, 5, 3, 1])
    check_grad(lambda x, w, b, lab: F.hsigmoid_loss(x, lab, 6, w, b), x, w, b, label)
    check_grad(lambda x, w, lab: F.hsigmoid_loss(x, lab, 6, w), x, w, label)
    layer = nn.HSigmoidLoss(3, 7)
    check_grad(lambda x, lab: layer(x, lab), x, label)
    table = np.array([[0, 1, -1], [0, 2, 3], [0, 1, -1], [0, 2, -1], [0, 2, 3]])
    code = np.array([[1, 0, 0], [0, 1, 1], [1, 1, 0], [0, 0, 0], [0, 1, 0]])
    check_grad(lambda x, w, b, lab, t, c: F.hsigmoid_loss(x, lab, 5, w, b, t, c),
               x, w[:4], b[:4], label, table, code)


def test_hsigmoid_loss_matches_paddles_kernel_formula():
    x = RNG.normal(size=(6, 4)) * 3
    w, b = RNG.normal(size=(6, 4)), RNG.normal(size=(6, 1))
    label = np.array([0, 1, 2, 3, 4, 6])  # 7 classes: paths of 2 and 3 nodes
    out = F.hsigmoid_loss(core.to_tensor(x), core.to_tensor(label), 7, core.to_tensor(w),
                          core.to_tensor(b)).numpy()
    np.testing.assert_allclose(out, _hsigmoid_reference(x, label, 7, w, b), rtol=1e-12)
    assert out.shape == (6, 1)
    # two classes: one node, softplus(z) - bit * z is binary cross entropy with logits
    two = F.hsigmoid_loss(core.to_tensor(x), core.to_tensor(label % 2), 2,
                          core.to_tensor(w[:1])).numpy()[:, 0]
    z = x @ w[0]
    np.testing.assert_allclose(two, np.logaddexp(0, z) - (label % 2) * z)  # bit = label


def test_hsigmoid_custom_tree_and_layer_shapes():
    layer = nn.HSigmoidLoss(4, 3, is_custom=True)
    assert layer.weight.shape == [3, 4] and layer.bias.shape == [3, 1]
    assert nn.HSigmoidLoss(4, 6).weight.shape == [5, 4]
    x = core.to_tensor(RNG.normal(size=(2, 4)).astype(np.float32))
    table = core.to_tensor(np.array([[0, 2], [0, -1]]))
    code = core.to_tensor(np.array([[1, 0], [1, 1]]))
    out = layer(x, core.to_tensor(np.array([0, 1])), table, code).numpy()
    w, b = layer.weight.numpy(), layer.bias.numpy()
    z = np.array([[x.numpy()[0] @ w[0] + b[0, 0], x.numpy()[0] @ w[2] + b[2, 0]],
                  [x.numpy()[1] @ w[0] + b[0, 0], 0.0]])
    np.testing.assert_allclose(out[:, 0], np.logaddexp(0, z).sum(1) - [z[0, 0], z[1, 0]],
                               rtol=1e-5)


def test_hsigmoid_arguments_are_checked():
    x = core.to_tensor(np.ones((2, 3), np.float32))
    w = core.to_tensor(np.ones((3, 3), np.float32))
    lab = core.to_tensor(np.array([0, 4]))
    with pytest.raises(ValueError, match="label value 4"):
        F.hsigmoid_loss(x, lab, 4, w)
    with pytest.raises(ValueError, match="num_classes=1"):
        F.hsigmoid_loss(x, lab, 1, w)
    with pytest.raises(ValueError, match="weight has 2 columns"):
        F.hsigmoid_loss(x, lab, 5, core.to_tensor(np.ones((4, 2), np.float32)))
    with pytest.raises(ValueError, match="weight has 3 rows"):
        F.hsigmoid_loss(x, lab, 8, w)
    with pytest.raises(ValueError, match="path_code is required"):
        F.hsigmoid_loss(x, lab, 5, w, path_table=core.to_tensor(np.zeros((2, 2), np.int64)))
    with pytest.raises(ValueError, match="num_classes=1"):
        nn.HSigmoidLoss(3, 1)
    with pytest.raises(ValueError, match="feature_size=0"):
        nn.HSigmoidLoss(0, 4)


# ----- margin cross entropy and class-centre sampling --------------------------------------

def _margin_reference(x, label, m1, m2, m3, s):
    z = x.copy()
    rows = np.arange(len(x))
    z[rows, label] = np.cos(m1 * np.arccos(x[rows, label]) + m2) - m3
    z *= s
    z -= z.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return -logp[rows, label], np.exp(logp)


@pytest.mark.parametrize("margins", [(1.0, 0.5, 0.0), (1.35, 0.0, 0.0), (1.0, 0.0, 0.35),
                                     (1.0, 0.0, 0.0)])
def test_margin_cross_entropy_gradients(margins):
    x = RNG.uniform(-0.9, 0.9, size=(4, 6))
    label = np.array([0, 2, 5, 3])
    check_grad(lambda t, lab: F.margin_cross_entropy(t, lab, *margins, scale=4.0,
                                                     reduction=None), x, label)


def test_margin_cross_entropy_matches_the_formula_and_reductions():
    x = RNG.uniform(-0.95, 0.95, size=(5, 7))
    label = np.array([0, 6, 2, 2, 4])
    loss, soft = F.margin_cross_entropy(core.to_tensor(x), core.to_tensor(label[:, None]),
                                        1.2, 0.3, 0.1, 16.0, return_softmax=True,
                                        reduction="none")
    ref, ref_soft = _margin_reference(x, label, 1.2, 0.3, 0.1, 16.0)
    np.testing.assert_allclose(loss.numpy()[:, 0], ref, rtol=1e-10)
    np.testing.assert_allclose(soft.numpy(), ref_soft, rtol=1e-10, atol=1e-15)
    mean = F.margin_cross_entropy(core.to_tensor(x), core.to_tensor(label)).numpy()
    np.testing.assert_allclose(mean, _margin_reference(x, label, 1.0, 0.5, 0.0, 64.0)[0].mean())
    total = F.margin_cross_entropy(core.to_tensor(x), core.to_tensor(label), reduction="sum")
    np.testing.assert_allclose(total.numpy(), mean * 5)


def test_margin_cross_entropy_without_margins_is_scaled_softmax_cross_entropy():
    torch = pytest.importorskip("torch")
    x = RNG.uniform(-1, 1, size=(4, 5)).astype(np.float32)
    label = np.array([1, 0, 4, 4])
    ours = F.margin_cross_entropy(core.to_tensor(x), core.to_tensor(label), 1.0, 0.0, 0.0,
                                  scale=8.0).numpy()
    theirs = torch.nn.functional.cross_entropy(torch.tensor(x) * 8, torch.tensor(label))
    np.testing.assert_allclose(ours, theirs.numpy(), rtol=1e-5)


def test_class_center_sample_feeds_margin_cross_entropy_gradients():
    core.seed(2)
    label = np.array([7, 1, 7, 4])
    remapped, centers = F.class_center_sample(core.to_tensor(label), 10, 6)
    centers, remapped = centers.numpy(), remapped.numpy()
    assert list(centers[:3]) == [1, 4, 7] and len(set(centers)) == 6
    assert (centers[remapped] == label).all()
    x = RNG.uniform(-0.9, 0.9, size=(4, 10))
    check_grad(lambda t, lab, idx: F.margin_cross_entropy(
        core.index_select(t, idx, axis=1), lab, scale=2.0), x, remapped, centers)


def test_class_center_sample_keeps_every_positive_and_seeds_the_negatives():
    label = core.to_tensor(np.array([3, 3, 0, 9, 5], dtype=np.int32))
    remapped, centers = F.class_center_sample(label, 10, 2)  # more positives than samples
    assert centers.numpy().tolist() == [0, 3, 5, 9] and remapped.numpy().tolist() == [1, 1, 0,
                                                                                        3, 2]
    assert remapped.dtype == np.int32 and centers.dtype == np.int32
    core.seed(4)
    first = F.class_center_sample(label, 10, 8)[1].numpy()
    core.seed(4)
    np.testing.assert_array_equal(F.class_center_sample(label, 10, 8)[1].numpy(), first)
    assert F.class_center_sample(label, 10, 10)[1].numpy().size == 10


def test_margin_arguments_are_checked():
    x = core.to_tensor(np.zeros((2, 3), np.float32))
    lab = core.to_tensor(np.array([0, 3]))
    with pytest.raises(ValueError, match="label value 3"):
        F.margin_cross_entropy(x, lab)
    with pytest.raises(ValueError, match="reduction='avg'"):
        F.margin_cross_entropy(x, core.to_tensor(np.array([0, 1])), reduction="avg")
    with pytest.raises(ValueError, match="scale=0"):
        F.margin_cross_entropy(x, core.to_tensor(np.array([0, 1])), scale=0)
    with pytest.raises(ValueError, match="group"):
        F.margin_cross_entropy(x, core.to_tensor(np.array([0, 1])), group=object())
    with pytest.raises(ValueError, match="num_samples=5 must be at most num_classes=3"):
        F.class_center_sample(core.to_tensor(np.array([0, 1])), 3, 5)
    with pytest.raises(ValueError, match="num_classes=0"):
        F.class_center_sample(core.to_tensor(np.array([0, 1])), 0, 1)
    with pytest.raises(ValueError, match="label value 3"):
        F.class_center_sample(lab, 3, 2)


# ----- adaptive softmax ------------------------------------------------------------------------

def _adaptive_args(d=8, hidden=(4, 2)):
    head_w, head_b = RNG.normal(size=(d, 5)), RNG.normal(size=5)
    tails = [RNG.normal(size=(d, hidden[0])), RNG.normal(size=(hidden[0], 3)),
             RNG.normal(size=(d, hidden[1])), RNG.normal(size=(hidden[1], 4))]
    return head_w, head_b, tails


def test_adaptive_log_softmax_with_loss_and_AdaptiveLogSoftmaxWithLoss_gradients():
    x = RNG.normal(size=(6, 8))
    label = np.array([0, 3, 5, 9, 2, 8])
    head_w, head_b, tails = _adaptive_args()

    def output(x, hw, hb, a, b, c, d, lab):
        return F.adaptive_log_softmax_with_loss(x, lab, hw, [(a, b), (c, d)], [3, 6, 10],
                                                hb)[0]

    check_grad(output, x, head_w, head_b, *tails, label)
    layer = nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0, head_bias=True)
    check_grad(lambda t, lab: layer(t, lab)[1], x, label)
    check_grad(lambda t: layer.log_prob(t), x)


def test_adaptive_log_softmax_matches_torch():
    torch = pytest.importorskip("torch")
    x = RNG.normal(size=(6, 8))
    label = np.array([0, 3, 5, 9, 2, 8])
    head_w, head_b, tails = _adaptive_args()
    ref = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0,
                                              head_bias=True).double()
    layer = nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0, head_bias=True,
                                          ).to(dtype="float64")
    with torch.no_grad():  # torch's Linear weights are [out, in]: Paddle's transposed
        ref.head.weight.copy_(torch.tensor(head_w.T))
        ref.head.bias.copy_(torch.tensor(head_b))
        for i in range(2):
            ref.tail[i][0].weight.copy_(torch.tensor(tails[2 * i].T))
            ref.tail[i][1].weight.copy_(torch.tensor(tails[2 * i + 1].T))
    layer.head_weight.set_value(head_w)
    layer.head_bias.set_value(head_b)
    for i, w in enumerate(tails):
        layer.tail[i].set_value(w)
    got_out, got_loss = layer(core.to_tensor(x), core.to_tensor(label))
    want = ref(torch.tensor(x), torch.tensor(label))
    np.testing.assert_allclose(got_out.numpy(), want.output.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(got_loss.numpy(), want.loss.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(layer.log_prob(core.to_tensor(x)).numpy(),
                               ref.log_prob(torch.tensor(x)).detach().numpy(), rtol=1e-12)
    np.testing.assert_array_equal(layer.predict(core.to_tensor(x)).numpy(),
                                  ref.predict(torch.tensor(x)).numpy())
    single, _ = layer(core.to_tensor(x[1]), core.to_tensor(np.array(label[1])))
    np.testing.assert_allclose(single.numpy(), got_out.numpy()[1])


def test_adaptive_softmax_layer_shapes_and_arguments():
    layer = nn.AdaptiveLogSoftmaxWithLoss(16, 20, [4, 10])
    assert layer.head_weight.shape == [16, 6] and layer.head_bias is None
    assert [[w.shape for w in pair] for pair in layer.tail_weights] == [[[16, 4], [4, 6]],
                                                                        [[16, 1], [1, 10]]]
    assert len(layer.parameters()) == 5
    with pytest.raises(ValueError, match="cutoffs"):
        nn.AdaptiveLogSoftmaxWithLoss(16, 20, [10, 4])
    with pytest.raises(ValueError, match="cutoffs"):
        nn.AdaptiveLogSoftmaxWithLoss(16, 20, [4, 20])
    with pytest.raises(ValueError, match="div_value"):
        nn.AdaptiveLogSoftmaxWithLoss(16, 20, [4], div_value=0)
    with pytest.raises(ValueError, match="hidden units"):
        nn.AdaptiveLogSoftmaxWithLoss(4, 20, [4, 10])
    x = core.to_tensor(np.zeros((2, 16), np.float32))
    with pytest.raises(ValueError, match="label value 20"):
        layer(x, core.to_tensor(np.array([0, 20])))
    with pytest.raises(ValueError, match="head_weight must be"):
        F.adaptive_log_softmax_with_loss(x, core.to_tensor(np.array([0, 1])),
                                         layer.tail[0], layer.tail_weights, layer.cutoffs)


# ----- a network spec ------------------------------------------------------------------------

def test_a_spec_network_with_reflection_padding_and_lp_pooling_trains():
    node = {"name": "net", "blocks": {}, "layers": {
        "pad": {"type": "ReflectionPad2D", "padding": 1},
        "conv": {"type": "Conv2D", "out_channels": 4, "kernel_size": 3},
        "pool": {"type": "LPPool2D", "norm_type": 2, "kernel_size": 2},
        "drop": {"type": "FeatureAlphaDropout", "p": 0.2},
        "f": {"type": "Flatten"}, "o": {"type": "Linear"}}}
    model = build.build_model(validation.group_option("model", node), (1, 8, 8), 10)
    x = core.to_tensor(RNG.random((3, 1, 8, 8), dtype=np.float32))
    out = model(x)
    assert list(out.shape) == [3, 10]
    out.sum().backward()
    assert model["conv"].weight.grad is not None
    model.eval()
    assert np.isfinite(model(x).numpy()).all()
