"""The volumetric (NCDHW) family: conv3d / Conv3D, conv3d_transpose / Conv3DTranspose, the 3-D
max / average / adaptive pools, BatchNorm3D, InstanceNorm3D, dropout3d / Dropout3D, Pad3D,
ZeroPad3D, ZeroPad1D and zeropad2d: finite-difference gradients, PyTorch parity with copied
weights, Paddle's differences, argument errors and a network spec built from them."""
from __future__ import annotations

import numpy as np
import pytest

import core
from core import nn
from core.nn import functional as F
from tests.gradcheck import check_grad


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def _t(array, grad=False, dtype="float64"):
    return core.to_tensor(np.asarray(array, dtype=dtype), stop_gradient=not grad)


# ----- gradients (float64 central differences) ------------------------------------------------
CONV_CASES = [
    dict(),
    dict(stride=2, padding=1),
    dict(stride=(1, 2, 1), padding=[1, 0, 0, 1, 1, 0], dilation=(2, 1, 1)),
    dict(padding="SAME", stride=2),
]


@pytest.mark.parametrize("kw", CONV_CASES)
def test_conv3d_gradients_match_finite_differences(kw):
    x, w, b = _rand(2, 2, 4, 4, 3), _rand(4, 2, 2, 3, 2, seed=1), _rand(4, seed=2)
    check_grad(lambda x, w, b: F.conv3d(x, w, b, **kw), x, w, b)


def test_conv3d_grouped_channels_last_gradients():
    x, w, b = _rand(1, 3, 4, 3, 4), _rand(4, 2, 2, 2, 1, seed=1), _rand(4, seed=2)
    check_grad(lambda x, w, b: F.conv3d(x, w, b, padding=1, groups=2, data_format="NDHWC"),
               x, w, b)


@pytest.mark.parametrize("kw", [dict(), dict(stride=2, padding=1, output_padding=1),
                                dict(stride=(2, 1, 1), dilation=(1, 2, 1), groups=2)])
def test_conv3d_transpose_gradients_match_finite_differences(kw):
    x, w, b = _rand(1, 2, 2, 3, 2), _rand(2, 2, 2, 2, 2, seed=1), _rand(2 * kw.get("groups", 1))
    check_grad(lambda x, w, b: F.conv3d_transpose(x, w, b, **kw), x, w, b)


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
                                dict(kernel_size=(2, 2, 3), stride=(1, 2, 2), ceil_mode=True)])
def test_max_pool3d_and_avg_pool3d_gradients(kw):
    # distinct values: a max-pool's gradient is only defined without ties
    x = np.random.default_rng(0).permutation(2 * 2 * 4 * 5 * 5).reshape(2, 2, 4, 5, 5) * 0.1
    check_grad(lambda x: F.max_pool3d(x, **kw), x)
    check_grad(lambda x: F.avg_pool3d(x, **kw), x)
    check_grad(lambda x: F.avg_pool3d(x, exclusive=False, **kw), x)


def test_adaptive_pool3d_gradients():
    x = np.random.default_rng(0).permutation(2 * 5 * 4 * 6).reshape(1, 2, 5, 4, 6) * 0.1
    check_grad(lambda x: F.adaptive_avg_pool3d(x, (2, 3, 4)), x)
    check_grad(lambda x: F.adaptive_max_pool3d(x, (3, None, 4)), x)
    check_grad(lambda x: F.adaptive_avg_pool3d(x, 2, data_format="NDHWC"), x)


def test_volumetric_layers_gradients():
    core.seed(0)
    x = _rand(2, 3, 3, 4, 3)
    layers = {"Conv3D": nn.Conv3D(3, 2, 2, padding=1, padding_mode="replicate"),
              "Conv3DTranspose": nn.Conv3DTranspose(3, 2, 2, stride=2),
              "MaxPool3D": nn.MaxPool3D(2, ceil_mode=True),
              "AvgPool3D": nn.AvgPool3D(2, padding=1),
              "AdaptiveAvgPool3D": nn.AdaptiveAvgPool3D(2),
              "AdaptiveMaxPool3D": nn.AdaptiveMaxPool3D([1, 2, 2]),
              "BatchNorm3D": nn.BatchNorm3D(3),
              "InstanceNorm3D": nn.InstanceNorm3D(3),
              "Pad3D": nn.Pad3D([1, 0, 2, 1, 0, 1], mode="reflect"),
              "ZeroPad3D": nn.ZeroPad3D(1)}
    for name, layer in layers.items():
        layer.to(dtype="float64")
        check_grad(layer, x + 0.01 * np.arange(x.size).reshape(x.shape), rtol=1e-4,
                   atol=1e-6)
        assert name


def test_pad3d_modes_and_zeropad_gradients():
    x = _rand(1, 2, 3, 3, 4)
    for mode in ("constant", "reflect", "replicate", "circular"):
        check_grad(nn.Pad3D([1, 2, 0, 1, 2, 0], mode=mode, value=0.5), x)
    check_grad(nn.ZeroPad1D([2, 1]), _rand(2, 3, 4))
    check_grad(lambda x: F.zeropad2d(x, [1, 2, 0, 1]), _rand(1, 2, 3, 3))


def test_dropout3d_gradient_and_whole_channels():
    core.seed(3)
    x = np.ones((4, 6, 2, 3, 2))
    out = F.dropout3d(_t(x), p=0.5, training=True).numpy()
    per_channel = out.reshape(4, 6, -1)
    assert set(np.unique(per_channel)) <= {0.0, 2.0}
    assert (per_channel.min(-1) == per_channel.max(-1)).all()  # whole channels kept or zeroed
    assert 0 < (per_channel[..., 0] == 0).sum() < 24
    np.testing.assert_array_equal(F.dropout3d(_t(x), 0.5, training=False).numpy(), x)
    last = nn.Dropout3D(0.5, data_format="NDHWC")(_t(x.transpose(0, 2, 3, 4, 1))).numpy()
    assert (last.min(axis=(1, 2, 3)) == last.max(axis=(1, 2, 3))).all()

    def fn(x):
        core.seed(7)  # the same mask on every call
        return F.dropout3d(x, 0.3)

    check_grad(fn, _rand(2, 3, 2, 2, 2))
    core.seed(7)
    check_grad(lambda x: nn.Dropout3D(0.0)(x), _rand(1, 2, 2, 2, 2))


# ----- PyTorch parity -----------------------------------------------------------------------------
def _torch_pad(torch, tx, padding):
    """A six-int Paddle padding applied in torch (front, back, top, bottom, left, right)."""
    return torch.nn.functional.pad(tx, (padding[4], padding[5], padding[2], padding[3],
                                        padding[0], padding[1]))


@pytest.mark.parametrize("kw", CONV_CASES[:3])
def test_conv3d_matches_torch_forward_and_gradients(kw):
    torch = pytest.importorskip("torch")
    x, w, b = _rand(2, 4, 5, 6, 5), _rand(6, 2, 2, 3, 2, seed=1), _rand(6, seed=2)
    tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    pad = kw.get("padding", 0)
    tin = _torch_pad(torch, tx, pad) if isinstance(pad, list) else tx
    ref = torch.nn.functional.conv3d(tin, tw, tb, kw.get("stride", 1),
                                     0 if isinstance(pad, list) else pad,
                                     kw.get("dilation", 1), groups=2)
    X, W, B = _t(x, True), _t(w, True), _t(b, True)
    out = F.conv3d(X, W, B, groups=2, **kw)
    np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), atol=1e-10)
    g = _rand(*ref.shape, seed=5)
    out.backward(_t(g))
    ref.backward(torch.tensor(g))
    for mine, theirs in ((X, tx), (W, tw), (B, tb)):
        np.testing.assert_allclose(mine.gradient(), theirs.grad.numpy(), atol=1e-10)


def test_conv3d_layer_matches_torch_in_float32_and_ndhwc():
    torch = pytest.importorskip("torch")
    core.seed(0)
    layer = nn.Conv3D(3, 4, (2, 3, 3), stride=(1, 2, 1), padding=1, data_format="NDHWC")
    ref = torch.nn.Conv3d(3, 4, (2, 3, 3), stride=(1, 2, 1), padding=1)
    ref.weight.data = torch.tensor(layer.weight.numpy())
    ref.bias.data = torch.tensor(layer.bias.numpy())
    x = _rand(2, 4, 5, 6, 3).astype("float32")
    out = layer(_t(x, dtype="float32"))
    assert str(out.numpy().dtype) == "float32"
    expected = ref(torch.tensor(x).permute(0, 4, 1, 2, 3)).permute(0, 2, 3, 4, 1)
    np.testing.assert_allclose(out.numpy(), expected.detach().numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("kw", [dict(), dict(stride=2, padding=1, output_padding=1),
                                dict(stride=(1, 2, 3), padding=(1, 0, 1), dilation=(2, 1, 2),
                                     output_padding=(1, 1, 0))])
def test_conv3d_transpose_matches_torch(kw):
    torch = pytest.importorskip("torch")
    x, w, b = _rand(2, 4, 3, 4, 3), _rand(4, 3, 2, 3, 2, seed=1), _rand(6, seed=2)
    tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    ref = torch.nn.functional.conv_transpose3d(tx, tw, tb, groups=2, **kw)
    X, W, B = _t(x, True), _t(w, True), _t(b, True)
    out = F.conv3d_transpose(X, W, B, groups=2, **kw)
    np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), atol=1e-10)
    g = _rand(*ref.shape, seed=5)
    out.backward(_t(g))
    ref.backward(torch.tensor(g))
    for mine, theirs in ((X, tx), (W, tw), (B, tb)):
        np.testing.assert_allclose(mine.gradient(), theirs.grad.numpy(), atol=1e-10)


def test_conv3d_transpose_output_size_picks_the_output_padding():
    x, w = _t(_rand(1, 2, 3, 3, 3)), _t(_rand(2, 1, 3, 3, 3))
    out = F.conv3d_transpose(x, w, stride=2, padding=1, output_size=[6, 5, 6])
    assert out.shape == [1, 1, 6, 5, 6]
    layer = nn.Conv3DTranspose(2, 1, 3, stride=2, padding=1)
    assert layer(x.astype("float32"), output_size=[5, 6, 6]).shape == [1, 1, 5, 6, 6]


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
                                dict(kernel_size=(2, 3, 2), stride=(1, 2, 3), padding=(1, 1, 0),
                                     ceil_mode=True)])
def test_pool3d_match_torch_with_indices_and_count_include_pad(kw):
    torch = pytest.importorskip("torch")
    x = _rand(2, 3, 5, 6, 7)
    X, tx = _t(x, True), torch.tensor(x, requires_grad=True)
    out, mask = F.max_pool3d(X, return_mask=True, **kw)
    ref, index = torch.nn.functional.max_pool3d(tx, return_indices=True, **kw)
    np.testing.assert_array_equal(out.numpy(), ref.detach().numpy())
    np.testing.assert_array_equal(mask.numpy(), index.numpy())
    assert mask.numpy().dtype == np.int32
    g = _rand(*ref.shape, seed=4)
    out.backward(_t(g))
    ref.backward(torch.tensor(g))
    np.testing.assert_allclose(X.gradient(), tx.grad.numpy(), atol=1e-12)
    for exclusive in (True, False):
        if exclusive is False and kw.get("ceil_mode"):
            continue  # Paddle's divisor differs there: test_avg_pool3d_inclusive_divisor...
        X, tx = _t(x, True), torch.tensor(x, requires_grad=True)
        out = F.avg_pool3d(X, exclusive=exclusive, **kw)
        ref = torch.nn.functional.avg_pool3d(tx, count_include_pad=not exclusive, **kw)
        np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), atol=1e-12)
        out.backward(_t(g))
        ref.backward(torch.tensor(g))
        np.testing.assert_allclose(X.gradient(), tx.grad.numpy(), atol=1e-12)


def test_avg_pool3d_inclusive_divisor_leaves_out_ceil_modes_extra_padding():
    """Paddle 3.3.1 (exclusive=False) counts the padding asked for but not the extra that
    ceil_mode adds beyond it: without padding, a last window holding one element is that
    element (values checked against real Paddle; core used to divide by kd*kh*kw)."""
    x = _rand(1, 1, 3, 3, 3)
    out = F.avg_pool3d(_t(x), 2, stride=2, ceil_mode=True, exclusive=False).numpy()
    expected = np.zeros((1, 1, 2, 2, 2))
    for i, j, k in np.ndindex(2, 2, 2):
        window = x[0, 0, 2 * i:2 * i + 2, 2 * j:2 * j + 2, 2 * k:2 * k + 2]
        expected[0, 0, i, j, k] = window.sum() / window.size
    np.testing.assert_allclose(out, expected, atol=1e-12)
    with pytest.raises(ValueError, match="avg_pool3d: padding='VALID' takes ceil_mode=False"):
        F.avg_pool3d(_t(x), 2, padding="VALID", ceil_mode=True)
    assert F.avg_pool3d(_t(x), 3, padding=1, divisor_override=2).numpy()[0, 0, 0, 0, 0] == \
        pytest.approx(x[0, 0, :2, :2, :2].sum() / 2)


@pytest.mark.parametrize("size", [2, (3, 4, 5), (None, 2, 3)])
def test_adaptive_pool3d_match_torch(size):
    torch = pytest.importorskip("torch")
    x = _rand(2, 3, 5, 6, 7)
    g = _rand(2, 3, *[s if s is not None else 5 for s in
                      (size if isinstance(size, tuple) else (size,) * 3)], seed=3)
    X, tx = _t(x, True), torch.tensor(x, requires_grad=True)
    out, mask = F.adaptive_max_pool3d(X, size, return_mask=True)
    ref, index = torch.nn.functional.adaptive_max_pool3d(tx, size, return_indices=True)
    np.testing.assert_array_equal(out.numpy(), ref.detach().numpy())
    np.testing.assert_array_equal(mask.numpy(), index.numpy())
    out.backward(_t(g))
    ref.backward(torch.tensor(g))
    np.testing.assert_allclose(X.gradient(), tx.grad.numpy(), atol=1e-12)
    X, tx = _t(x, True), torch.tensor(x, requires_grad=True)
    out = nn.AdaptiveAvgPool3D(size)(X)
    ref = torch.nn.functional.adaptive_avg_pool3d(tx, size)
    np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), atol=1e-12)
    out.backward(_t(g))
    ref.backward(torch.tensor(g))
    np.testing.assert_allclose(X.gradient(), tx.grad.numpy(), atol=1e-12)


@pytest.mark.parametrize("data_format", ["NCDHW", "NDHWC"])
def test_batch_norm3d_matches_torch_in_training_and_eval(data_format):
    torch = pytest.importorskip("torch")
    x = _rand(3, 4, 2, 3, 5)
    layer = nn.BatchNorm3D(4, data_format=data_format)
    layer.to(dtype="float64")
    ref = torch.nn.BatchNorm3d(4, momentum=0.1).double()  # torch's 0.1 is Paddle's 0.9
    X, tx = _t(x, True), torch.tensor(x, requires_grad=True)
    mine = X if data_format == "NCDHW" else core.transpose(X, [0, 2, 3, 4, 1])
    out = layer(mine)
    if data_format == "NDHWC":
        out = core.transpose(out, [0, 4, 1, 2, 3])
    expected = ref(tx)
    np.testing.assert_allclose(out.numpy(), expected.detach().numpy(), atol=1e-10)
    g = _rand(*x.shape, seed=2)
    out.backward(_t(g))
    expected.backward(torch.tensor(g))
    np.testing.assert_allclose(X.gradient(), tx.grad.numpy(), atol=1e-10)
    np.testing.assert_allclose(layer._mean.numpy(), ref.running_mean.numpy(), atol=1e-12)
    # Paddle folds the biased batch variance into the running one (torch the unbiased)
    count = x.size // 4
    biased = (ref.running_var.numpy() - 0.9) * (count - 1) / count + 0.9
    np.testing.assert_allclose(layer._variance.numpy(), biased, atol=1e-12)
    layer.eval()
    ref.eval()
    ref.running_var.data = torch.tensor(layer._variance.numpy())
    out = layer(mine)
    if data_format == "NDHWC":
        out = core.transpose(out, [0, 4, 1, 2, 3])
    np.testing.assert_allclose(out.numpy(), ref(tx).detach().numpy(), atol=1e-10)


def test_instance_norm3d_matches_torch():
    torch = pytest.importorskip("torch")
    x = _rand(2, 3, 2, 3, 4)
    layer = nn.InstanceNorm3D(3)
    layer.to(dtype="float64")
    layer.scale.set_value(np.array([0.5, 1.5, 2.0]))
    layer.bias.set_value(np.array([0.1, -0.2, 0.3]))
    ref = torch.nn.InstanceNorm3d(3, affine=True).double()
    ref.weight.data = torch.tensor([0.5, 1.5, 2.0], dtype=torch.float64)
    ref.bias.data = torch.tensor([0.1, -0.2, 0.3], dtype=torch.float64)
    X, tx = _t(x, True), torch.tensor(x, requires_grad=True)
    out, expected = layer(X), ref(tx)
    np.testing.assert_allclose(out.numpy(), expected.detach().numpy(), atol=1e-10)
    g = _rand(*x.shape, seed=2)
    out.backward(_t(g))
    expected.backward(torch.tensor(g))
    np.testing.assert_allclose(X.gradient(), tx.grad.numpy(), atol=1e-10)


def test_pad3d_and_zeropads_match_torch_and_paddles_example():
    torch = pytest.importorskip("torch")
    x = _rand(1, 2, 3, 4, 5)
    for mode in ("constant", "reflect", "replicate", "circular"):
        out = nn.Pad3D([1, 2, 0, 1, 2, 1], mode=mode)(_t(x)).numpy()
        ref = torch.nn.functional.pad(torch.tensor(x), (1, 2, 0, 1, 2, 1), mode=mode)
        np.testing.assert_allclose(out, ref.numpy())
    # Paddle's documented example: [1, 0, 1, 2, 0, 0] on arange(6) + 1 of shape [1, 1, 1, 2, 3]
    data = (np.arange(6) + 1.0).reshape(1, 1, 1, 2, 3)
    got = nn.ZeroPad3D([1, 0, 1, 2, 0, 0])(_t(data)).numpy()
    np.testing.assert_array_equal(got[0, 0, 0], [[0, 0, 0, 0], [0, 1, 2, 3], [0, 4, 5, 6],
                                                 [0, 0, 0, 0], [0, 0, 0, 0]])
    z1 = nn.ZeroPad1D([2, 1], data_format="NLC")(_t(_rand(1, 3, 2))).numpy()
    assert z1.shape == (1, 6, 2) and (z1[:, :2] == 0).all() and (z1[:, -1] == 0).all()
    data2 = (np.arange(6) + 1.0).reshape(1, 1, 2, 3)
    np.testing.assert_array_equal(F.zeropad2d(_t(data2), [1, 2, 1, 1]).numpy()[0, 0],
                                  [[0, 0, 0, 0, 0, 0], [0, 1, 2, 3, 0, 0], [0, 4, 5, 6, 0, 0],
                                   [0, 0, 0, 0, 0, 0]])


# ----- argument errors ----------------------------------------------------------------------------
@pytest.mark.parametrize("call, match", [
    (lambda: F.conv3d(_t(_rand(1, 2, 3, 3, 3)), _t(_rand(2, 2, 2, 2))), "'weight' must be 5-D"),
    (lambda: F.conv3d(_t(_rand(1, 2, 3, 3)), _t(_rand(2, 2, 2, 2, 2))), "'x' must be 5-D"),
    (lambda: F.conv3d(_t(_rand(1, 3, 3, 3, 3)), _t(_rand(2, 2, 2, 2, 2))), "3 channels"),
    (lambda: F.conv3d(_t(_rand(1, 2, 3, 3, 3)), _t(_rand(2, 2, 2, 2, 2)), stride=(1, 2)),
     "'stride' must be an int or three ints"),
    (lambda: F.conv3d(_t(_rand(1, 2, 3, 3, 3)), _t(_rand(2, 2, 2, 2, 2)), padding=[1, 2]),
     "padding must be"),
    (lambda: F.conv3d(_t(_rand(1, 2, 3, 3, 3)), _t(_rand(2, 2, 2, 2, 2)), padding="FULL"),
     "padding string"),
    (lambda: F.conv3d(_t(_rand(1, 2, 3, 3, 3)), _t(_rand(2, 2, 4, 2, 2))), "does not fit"),
    (lambda: F.conv3d(_t(_rand(1, 2, 3, 3, 3)), _t(_rand(2, 2, 2, 2, 2)), groups=0),
     "groups must be"),
    (lambda: F.conv3d(_t(_rand(1, 2, 3, 3, 3)), _t(_rand(2, 2, 2, 2, 2)), _t(_rand(3))),
     "bias must be a Tensor of shape \\[2\\]"),
    (lambda: F.conv3d(_t(_rand(1, 2, 3, 3, 3)), _t(_rand(2, 2, 2, 2, 2)), data_format="NCHW"),
     "data_format must be 'NCDHW' or 'NDHWC'"),
    (lambda: F.conv3d(_t(_rand(1, 2, 3, 3, 3)), _t(_rand(2, 2, 2, 2, 2)),
                      padding=[[0, 1], [0, 0], [1, 1], [1, 1], [1, 1]]), "padding must be"),
    (lambda: F.conv3d_transpose(_t(_rand(1, 2, 3, 3, 3)), _t(_rand(2, 1, 2, 2, 2)),
                                output_padding=2, stride=2), "output_padding=2"),
    (lambda: F.conv3d_transpose(_t(_rand(1, 2, 3, 3, 3)), _t(_rand(2, 1, 2, 2, 2)),
                                output_size=[9, 9, 9]), "output_size="),
    (lambda: F.conv3d_transpose(_t(_rand(1, 2, 3, 3, 3)), _t(_rand(2, 1, 2, 2, 2)),
                                padding="FULL"), "padding string must be 'SAME' or 'VALID'"),
    (lambda: F.max_pool3d(_t(_rand(1, 1, 4, 4, 4)), 2, padding=2), "at most half"),
    (lambda: F.max_pool3d(_t(_rand(1, 1, 4, 4)), 2), "'x' must be 5-D"),
    (lambda: F.avg_pool3d(_t(_rand(1, 1, 4, 4, 4)), 2, divisor_override=0),
     "divisor_override must be a positive number"),
    (lambda: F.avg_pool3d(_t(_rand(1, 1, 4, 4, 4)), [2, 2]), "'kernel_size' must be"),
    (lambda: F.adaptive_avg_pool3d(_t(_rand(1, 1, 4, 4, 4)), [2, 0, 2]), "output_size must be"),
    (lambda: F.dropout3d(_t(_rand(1, 1, 4, 4)), 0.5), "expected a 5-D"),
    (lambda: F.zeropad2d(_t(_rand(1, 1, 4, 4)), [1, 2]), "padding=\\[1, 2\\]"),
    (lambda: nn.Conv3D(2, 3, 2, groups=2), "must both be divisible by groups=2"),
    (lambda: nn.Conv3D(0, 3, 2), "in_channels=0"),
    (lambda: nn.Conv3D(2, 3, (2, 2)), "'kernel_size' must be an int or three ints"),
    (lambda: nn.Conv3D(2, 3, 2, padding_mode="mirror"), "padding_mode='mirror'"),
    (lambda: nn.Conv3D(2, 3, 2, padding="SAME", padding_mode="reflect"), "padding='SAME'"),
    (lambda: nn.Conv3D(2, 3, 2, data_format="NCHW"), "data_format must be 'NCDHW'"),
    (lambda: nn.Conv3DTranspose(2, 3, 2, groups=2), "divisible by groups=2"),
    (lambda: nn.MaxPool3D([2, 2]), "'kernel_size'"),
    (lambda: F.max_pool3d(_t(_rand(1, 4, 4, 4, 1)), 2, return_mask=True, data_format="NDHWC"),
     "return_mask=True needs data_format='NCDHW'"),
    (lambda: nn.MaxPool3D(2, return_mask=True, data_format="NDHWC"), "MaxPool3D: return_mask"),
    (lambda: nn.AvgPool3D(0), "'kernel_size'"),
    (lambda: nn.BatchNorm3D(4, data_format="NCHW"), "data_format='NCHW'"),
    (lambda: nn.BatchNorm3D(4)(_t(_rand(2, 4, 3, 3), dtype="float32")), "5 dimensions"),
    (lambda: nn.BatchNorm3D(4)(_t(_rand(2, 3, 3, 3, 3), dtype="float32")),
     "num_features=4"),
    (lambda: nn.InstanceNorm3D(0), "num_features=0"),
    (lambda: nn.InstanceNorm3D(3, data_format="NDHWC"), "data_format='NDHWC'"),
    (lambda: nn.InstanceNorm3D(3)(_t(_rand(2, 4, 3, 3, 3), dtype="float32")),
     "num_features=3"),
    (lambda: nn.Dropout3D(data_format="NCHW"), "data_format must be"),
    (lambda: nn.Pad3D([1, 2, 3]), "padding=\\[1, 2, 3\\]"),
    (lambda: nn.Pad3D(1, mode="edge"), "mode='edge'"),
    (lambda: nn.Pad3D(1)(_t(_rand(1, 2, 3, 3))), "expected a 5-D"),
    (lambda: nn.ZeroPad3D(-1), "padding=-1"),
    (lambda: nn.ZeroPad1D([1, 2, 3]), "padding=\\[1, 2, 3\\]"),
])
def test_bad_arguments_raise_errors_that_name_them(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


def test_paddings_spelled_every_paddle_way_agree():
    x, w = _t(_rand(1, 2, 4, 5, 4)), _t(_rand(3, 2, 3, 3, 3))
    base = F.conv3d(x, w, padding=1).numpy()
    for spelled in ([1, 1, 1], [1, 1, 1, 1, 1, 1], [[0, 0], [0, 0], [1, 1], [1, 1], [1, 1]],
                    "SAME", "same"):
        np.testing.assert_allclose(F.conv3d(x, w, padding=spelled).numpy(), base)
    last = F.conv3d(core.transpose(x, [0, 2, 3, 4, 1]), w, data_format="NDHWC",
                    padding=[[0, 0], [1, 1], [1, 1], [1, 1], [0, 0]])
    np.testing.assert_allclose(core.transpose(last, [0, 4, 1, 2, 3]).numpy(), base)
    valid = F.conv3d(x, w, padding="VALID")
    assert valid.shape == [1, 3, 2, 3, 2]


# ----- a network spec ---------------------------------------------------------------------------
def test_a_spec_network_of_conv3d_batchnorm3d_and_maxpool3d_builds_and_trains():
    from runner import build
    from runner.config import validation

    layers = {"conv": {"type": "Conv3D", "out_channels": 4, "kernel_size": 3, "padding": 1},
              "bn": {"type": "BatchNorm3D"},
              "act": {"type": "ReLU"},
              "pool": {"type": "MaxPool3D", "kernel_size": 2},
              "flat": {"type": "Flatten"}, "out": {"type": "Linear"}}
    spec = validation.group_option("model", {"name": "net", "layers": layers, "blocks": {}})
    model = build.build_model(spec, (1, 4, 6, 6), 3)
    params = dict(model.named_parameters())
    assert params["conv.weight"].shape == [4, 1, 3, 3, 3]
    assert params["bn.weight"].shape == [4]
    assert params["out.weight"].shape == [4 * 2 * 3 * 3, 3]
    x = core.to_tensor(np.random.default_rng(0).random((2, 1, 4, 6, 6), dtype=np.float32))
    loss = model(x).sum()
    loss.backward()
    assert params["conv.weight"].gradient() is not None
    model.eval()
    with core.no_grad():
        assert model(x).shape == [2, 3]
