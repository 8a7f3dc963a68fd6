"""max_pool2d / max_pool1d with ``return_mask=True`` (and MaxPool2D / MaxPool1D): the masks
against PyTorch's ``return_indices`` (padding, strides, ceil_mode, ties, -inf, NaN), the round
trip through core's own max_unpool, a SegNet-style encoder/decoder trained a few steps, the
adaptive pools' masks, Paddle's NCHW-only rule, and a network spec."""
import numpy as np
import pytest

import core
from core import nn
from core.nn import functional as F
from runner import build
from runner.config import validation
from tests.gradcheck import check_grad

RNG = np.random.default_rng(0)

# Geometries: square/rectangular kernels, stride != kernel (overlapping and gapped windows),
# padding (which must never win), ceil_mode with a partial last window.
CASES = [dict(kernel_size=2),
         dict(kernel_size=3, stride=2, padding=1),
         dict(kernel_size=3, stride=1, padding=1),
         dict(kernel_size=2, stride=3),
         dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 1), ceil_mode=True),
         dict(kernel_size=3, stride=2, ceil_mode=True),
         dict(kernel_size=(2, 4), stride=(1, 3), padding=(0, 2), ceil_mode=True)]


def _distinct(shape):
    return RNG.permutation(int(np.prod(shape))).reshape(shape) * 0.1


def _ties(shape):
    """ReLU'd small integers: many windows hold several equal maxima (zeros)."""
    return np.maximum(RNG.integers(-3, 2, size=shape), 0).astype(np.float32)


def _torch_pool(torch, x, **kw):
    return torch.nn.functional.max_pool2d(torch.tensor(x), return_indices=True, **kw)


@pytest.mark.parametrize("kw", CASES)
@pytest.mark.parametrize("data", ["distinct", "ties"])
def test_max_pool2d_mask_matches_torch_indices(kw, data):
    torch = pytest.importorskip("torch")
    shape = (2, 3, 7, 8)
    x = (_distinct(shape) if data == "distinct" else _ties(shape)).astype(np.float32)
    out, mask = F.max_pool2d(core.to_tensor(x), return_mask=True, **kw)
    want, index = _torch_pool(torch, x, **kw)
    np.testing.assert_array_equal(out.numpy(), want.numpy())
    np.testing.assert_array_equal(mask.numpy(), index.numpy())
    assert mask.dtype == np.int32 and mask.stop_gradient  # Paddle's int32 mask, no gradient
    assert mask.numpy().flags.c_contiguous
    # the plain pool is the same computation, unchanged by asking for the mask
    np.testing.assert_array_equal(F.max_pool2d(core.to_tensor(x), **kw).numpy(), out.numpy())


def test_max_pool2d_mask_of_all_minus_infinity_windows_points_inside_the_input():
    """Padding is -inf too: a window of -inf values must still point at a real element (the
    first in row-major order, as PyTorch does), never at the padding."""
    torch = pytest.importorskip("torch")
    x = np.full((1, 2, 5, 4), -np.inf, dtype=np.float32)
    x[0, 1, 2:, 1:] = RNG.standard_normal((3, 3))
    out, mask = F.max_pool2d(core.to_tensor(x), 3, 2, 1, return_mask=True)
    want, index = _torch_pool(torch, x, kernel_size=3, stride=2, padding=1)
    np.testing.assert_array_equal(out.numpy(), want.numpy())
    np.testing.assert_array_equal(mask.numpy(), index.numpy())


def test_max_pool2d_mask_points_at_nan_like_the_output():
    torch = pytest.importorskip("torch")
    x = np.array([[[[1.0, np.nan, 2.0, np.nan], [0.0, 5.0, 3.0, 1.0]]]], dtype=np.float32)
    out, mask = F.max_pool2d(core.to_tensor(x), 2, return_mask=True)
    want, index = _torch_pool(torch, x, kernel_size=2)
    np.testing.assert_array_equal(out.numpy(), want.numpy())  # NaN == NaN for assert_array_equal
    np.testing.assert_array_equal(mask.numpy(), index.numpy())


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
                                dict(kernel_size=4, stride=3, padding=2, ceil_mode=True)])
def test_max_pool1d_mask_matches_torch_indices(kw):
    torch = pytest.importorskip("torch")
    x = _ties((2, 3, 11))
    out, mask = F.max_pool1d(core.to_tensor(x), return_mask=True, **kw)
    want, index = torch.nn.functional.max_pool1d(torch.tensor(x), return_indices=True, **kw)
    np.testing.assert_array_equal(out.numpy(), want.numpy())
    np.testing.assert_array_equal(mask.numpy(), index.numpy())
    assert mask.dtype == np.int32 and mask.shape == out.shape


def test_max_pool_layers_return_the_mask():
    x = core.to_tensor(_ties((2, 3, 6, 6)))
    out, mask = nn.MaxPool2D(3, 2, 1, return_mask=True)(x)
    want, index = F.max_pool2d(x, 3, 2, 1, return_mask=True)
    np.testing.assert_array_equal(out.numpy(), want.numpy())
    np.testing.assert_array_equal(mask.numpy(), index.numpy())
    y = core.to_tensor(_ties((2, 3, 9)))
    out, mask = nn.MaxPool1D(2, return_mask=True)(y)
    want, index = F.max_pool1d(y, 2, return_mask=True)
    np.testing.assert_array_equal(out.numpy(), want.numpy())
    np.testing.assert_array_equal(mask.numpy(), index.numpy())


@pytest.mark.parametrize("kw", CASES[:5])
def test_max_pool2d_with_mask_gradient(kw):
    x = _distinct((2, 2, 6, 7))
    check_grad(lambda t: F.max_pool2d(t, return_mask=True, **kw)[0], x)
    check_grad(lambda t: nn.MaxPool2D(return_mask=True, **kw)(t)[0], x)


def test_max_pool1d_with_mask_gradient():
    x = _distinct((2, 3, 9))
    check_grad(lambda t: F.max_pool1d(t, 3, 2, 1, return_mask=True)[0], x)
    check_grad(lambda t: nn.MaxPool1D(2, return_mask=True)(t)[0], x)


@pytest.mark.parametrize("after_relu", [False, True])
def test_max_pool2d_with_mask_gradient_matches_torch_on_ties(after_relu):
    """Ties (and the ReLU-masked backward) route the gradient as without the mask."""
    torch = pytest.importorskip("torch")
    z = RNG.integers(-3, 3, size=(2, 3, 7, 7)).astype(np.float64)
    g = RNG.standard_normal((2, 3, 4, 4))
    zt = core.to_tensor(z, stop_gradient=False)
    x = F.relu(zt) if after_relu else zt
    out, _ = F.max_pool2d(x, 3, 2, 1, return_mask=True)
    out.backward(core.to_tensor(g))
    tz = torch.tensor(z, requires_grad=True)
    tx = torch.relu(tz) if after_relu else tz
    want, _ = torch.nn.functional.max_pool2d(tx, 3, 2, 1, return_indices=True)
    want.backward(torch.tensor(g))
    np.testing.assert_array_equal(out.numpy(), want.detach().numpy())
    np.testing.assert_allclose(zt.gradient(), tz.grad.numpy(), atol=1e-12)


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
                                dict(kernel_size=2, stride=1)])
def test_max_unpool2d_of_max_pool2d_round_trip_matches_torch(kw):
    torch = pytest.importorskip("torch")
    x = _ties((2, 3, 6, 6)).astype(np.float64)
    g = RNG.standard_normal((2, 3, 6, 6))
    xt = core.to_tensor(x, stop_gradient=False)
    back = F.max_unpool2d(*F.max_pool2d(xt, return_mask=True, **kw), output_size=[6, 6], **kw)
    back.backward(core.to_tensor(g))
    tx = torch.tensor(x, requires_grad=True)
    want = torch.nn.functional.max_unpool2d(
        *torch.nn.functional.max_pool2d(tx, return_indices=True, **kw), output_size=[6, 6],
        **kw)
    want.backward(torch.tensor(g))
    np.testing.assert_array_equal(back.numpy(), want.detach().numpy())
    np.testing.assert_allclose(xt.gradient(), tx.grad.numpy(), atol=1e-12)


def test_max_unpool2d_of_max_pool2d_with_the_default_sizes():
    """The brief's form: max_unpool2d(*max_pool2d(x, 2, return_mask=True), 2)."""
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal((2, 3, 8, 6)).astype(np.float32)
    back = F.max_unpool2d(*F.max_pool2d(core.to_tensor(x), 2, return_mask=True), 2)
    want = torch.nn.functional.max_unpool2d(
        *torch.nn.functional.max_pool2d(torch.tensor(x), 2, return_indices=True), 2)
    np.testing.assert_array_equal(back.numpy(), want.numpy())
    check_grad(lambda t: F.max_unpool2d(*F.max_pool2d(t, 2, return_mask=True), 2),
               _distinct((1, 2, 4, 6)))


def test_max_unpool1d_of_max_pool1d_round_trip_matches_torch():
    torch = pytest.importorskip("torch")
    x = _ties((2, 3, 10))
    back = nn.MaxUnPool1D(2)(*nn.MaxPool1D(2, return_mask=True)(core.to_tensor(x)))
    want = torch.nn.functional.max_unpool1d(
        *torch.nn.functional.max_pool1d(torch.tensor(x), 2, return_indices=True), 2)
    np.testing.assert_array_equal(back.numpy(), want.numpy())


class _SegNet(nn.Layer):
    """SegNet's pattern: the encoder's pooling indices place the decoder's values."""

    def __init__(self):
        super().__init__()
        self.enc = nn.Conv2D(1, 4, 3, padding=1)
        self.pool = nn.MaxPool2D(2, return_mask=True)
        self.mid = nn.Conv2D(4, 4, 3, padding=1)
        self.unpool = nn.MaxUnPool2D(2)
        self.dec = nn.Conv2D(4, 1, 3, padding=1)

    def forward(self, x):
        pooled, mask = self.pool(F.relu(self.enc(x)))
        return self.dec(self.unpool(self.mid(pooled), mask))


def test_segnet_style_encoder_decoder_trains():
    core.seed(0)
    model = _SegNet()
    opt = core.optimizer.Adam(learning_rate=0.01, parameters=model.parameters())
    x = core.to_tensor(RNG.standard_normal((4, 1, 8, 8)).astype(np.float32))
    losses = []
    for _ in range(15):
        loss = F.mse_loss(model(x), x)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    assert all(np.isfinite(losses)) and losses[-1] < 0.8 * losses[0]
    assert all(p.gradient() is None or np.isfinite(p.gradient()).all()
               for p in model.parameters())


def test_adaptive_max_pool_masks_match_torch_on_uneven_bins():
    torch = pytest.importorskip("torch")
    x = _ties((2, 3, 7, 10))
    for size in [(3, 4), (1, 1), (7, 10), (5, 3)]:
        out, mask = F.adaptive_max_pool2d(core.to_tensor(x), size, return_mask=True)
        want, index = torch.nn.functional.adaptive_max_pool2d(torch.tensor(x), size, True)
        np.testing.assert_array_equal(out.numpy(), want.numpy())
        np.testing.assert_array_equal(mask.numpy(), index.numpy())
        assert mask.dtype == np.int32
    y = _ties((2, 3, 10))
    for size in (3, 4, 10):
        out, mask = F.adaptive_max_pool1d(core.to_tensor(y), size, return_mask=True)
        want, index = torch.nn.functional.adaptive_max_pool1d(torch.tensor(y), size, True)
        np.testing.assert_array_equal(mask.numpy(), index.numpy())


@pytest.mark.parametrize("call", [
    lambda x: F.max_pool2d(x.transpose([0, 2, 3, 1]), 2, return_mask=True, data_format="NHWC"),
    lambda x: nn.MaxPool2D(2, return_mask=True, data_format="NHWC"),
])
def test_mask_needs_nchw_as_in_paddle(call):
    with pytest.raises(ValueError, match="data_format='NHWC'"):
        call(core.to_tensor(np.zeros((1, 2, 4, 4), np.float32)))


def test_nhwc_pool_without_mask_still_works():
    x = RNG.standard_normal((2, 3, 6, 6)).astype(np.float32)
    nhwc = F.max_pool2d(core.to_tensor(x.transpose(0, 2, 3, 1).copy()), 2, data_format="NHWC")
    np.testing.assert_array_equal(nhwc.numpy().transpose(0, 3, 1, 2),
                                  F.max_pool2d(core.to_tensor(x), 2).numpy())


def test_spec_network_with_masked_pools():
    """A spec layer returning (out, mask) passes its output on; the probe (two samples, eval
    mode) and a forward both run."""
    layers = {"conv": {"type": "Conv2D", "out_channels": 4, "kernel_size": 3, "padding": 1},
              "pool": {"type": "MaxPool2D", "kernel_size": 2, "return_mask": True},
              "flat": {"type": "Flatten"}, "out": {"type": "Linear"}}
    node = {"name": "net", "layers": layers, "blocks": {}}
    model = build.build_model(validation.group_option("model", node), (1, 8, 8), 5)
    x = core.to_tensor(RNG.random((3, 1, 8, 8), dtype=np.float32))
    with core.no_grad():
        out = model(x)
    assert out.shape == [3, 5] and np.isfinite(out.numpy()).all()
    layers["pool"]["return_mask"] = False
    plain = build.build_model(validation.group_option("model", node), (1, 8, 8), 5)
    plain.set_state_dict(model.state_dict())
    with core.no_grad():
        np.testing.assert_array_equal(plain(x).numpy(), out.numpy())


@pytest.mark.usefixtures("split_small_work", "two_threads")
def test_mask_split_over_threads_and_blocks_matches_torch(monkeypatch):
    """The mask runs over blocks of images on core's threads, as the pool's passes do."""
    torch = pytest.importorskip("torch")
    from core.nn.functional import pooling  # noqa: PLC0415 - only to shrink its blocks

    monkeypatch.setattr(pooling, "_BLOCK_BYTES", 1)  # one image per block
    x = _ties((7, 3, 9, 8))
    for kw in (dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)):
        _, mask = F.max_pool2d(core.to_tensor(x), return_mask=True, **kw)
        np.testing.assert_array_equal(mask.numpy(), _torch_pool(torch, x, **kw)[1].numpy())
