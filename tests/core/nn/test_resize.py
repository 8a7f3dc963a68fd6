"""Dropout2D, Pad2D / F.pad and Upsample / F.interpolate: values vs torch, gradients."""
import numpy as np
import pytest

import core
from core import nn
from core.nn import functional as F
from tests.gradcheck import check_grad

RNG = np.random.default_rng(0)


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad2d_matches_torch_and_gradient(mode):
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal((2, 3, 4, 5))
    padding = [2, 1, 0, 3]  # Paddle and torch: [left, right, top, bottom]
    got = nn.Pad2D(padding, mode, 0.5)(core.to_tensor(x)).numpy()
    kwargs = {"value": 0.5} if mode == "constant" else {}
    want = torch.nn.functional.pad(torch.tensor(x), padding, mode, **kwargs).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12)
    check_grad(lambda t: F.pad(t, padding, mode), RNG.standard_normal((1, 2, 4, 5)))


def test_pad_every_axis_and_errors():
    x = core.to_tensor(np.ones((1, 2, 2)))
    assert F.pad(x, [0, 1, 1, 0, 2, 2]).shape == [2, 3, 6]
    with pytest.raises(ValueError, match="smaller than"):
        F.pad(core.to_tensor(np.ones((1, 1, 2, 2))), [2, 2, 0, 0], "reflect")
    with pytest.raises(ValueError, match="mode"):
        F.pad(x, [1, 1], "wrap")


@pytest.mark.parametrize("mode, align, kw", [
    ("nearest", False, {"size": [7, 9]}), ("nearest", False, {"scale_factor": 2}),
    ("bilinear", False, {"size": [7, 9]}), ("bilinear", True, {"size": [7, 9]}),
    ("bilinear", False, {"scale_factor": [1.5, 2.5]}), ("bilinear", False, {"size": [3, 2]})])
def test_interpolate_matches_torch_and_gradient(mode, align, kw):
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal((2, 3, 4, 5))
    got = nn.Upsample(mode=mode, align_corners=align, **kw)(core.to_tensor(x)).numpy()
    extra = {"align_corners": align} if mode == "bilinear" else {}
    want = torch.nn.functional.interpolate(torch.tensor(x), mode=mode, **kw, **extra).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    check_grad(lambda t: F.interpolate(t, mode=mode, align_corners=align, **kw),
               RNG.standard_normal((1, 1, 4, 5)))


def test_interpolate_paddle_align_mode_1_and_nearest_align_corners():
    x = core.to_tensor(np.arange(4.0).reshape(1, 1, 1, 4))
    out = F.interpolate(x, size=[1, 8], mode="bilinear", align_mode=1).numpy()[0, 0, 0]
    np.testing.assert_allclose(out, [0, 0.5, 1, 1.5, 2, 2.5, 3, 3])  # src = dst * in / out
    with pytest.raises(ValueError, match="align_corners=True needs an interpolating mode"):
        F.interpolate(x, size=[1, 7], mode="nearest", align_corners=True)  # Paddle 3 refuses


def test_dropout2d_zeroes_whole_channels():
    core.seed(0)
    layer = nn.Dropout2D(0.5)
    x = core.to_tensor(np.ones((4, 8, 3, 3), np.float32), stop_gradient=False)
    out = layer(x).numpy()
    per_channel = out.reshape(4, 8, -1)
    assert set(np.unique(per_channel)) == {0.0, 2.0}
    assert (per_channel.min(-1) == per_channel.max(-1)).all()  # each channel kept or dropped
    layer.eval()
    np.testing.assert_array_equal(layer(x).numpy(), x.numpy())


def test_pad2d_refuses_paddings_paddle_refuses():
    with pytest.raises(ValueError, match=r"Pad2D: padding=\[1, 1\] must be an int >= 0 or 4 "):
        nn.Pad2D([1, 1])  # it padded the width only
    with pytest.raises(ValueError, match="Pad2D: mode='wrap' is not supported"):
        nn.Pad2D(1, mode="wrap")
    with pytest.raises(ValueError, match="Pad2D: expected a 4-D input"):
        nn.Pad2D(1)(core.to_tensor(np.zeros((2, 3, 4), dtype=np.float32)))
