"""Conv1D and Conv2DTranspose (built on conv2d): gradients, shapes and torch parity."""
import numpy as np
import pytest

import core
from core import nn
from core.nn import functional as F
from tests.gradcheck import check_grad

RNG = np.random.default_rng(0)


@pytest.mark.parametrize("s, p, op, g, d", [(1, 0, 0, 1, 1), (2, 1, 1, 1, 1),
                                            ((2, 3), (1, 0), (1, 2), 2, 1), (2, 0, 0, 1, 2),
                                            (1, [1, 0, 2, 1], 0, 1, 1)])
def test_conv2d_transpose_matches_torch_and_gradients(s, p, op, g, d):
    torch = pytest.importorskip("torch")
    x, w, b = RNG.random((2, 4, 4, 3)), RNG.random((4, 3, 3, 2)), RNG.random(3 * g)
    got = F.conv2d_transpose(core.to_tensor(x), core.to_tensor(w), core.to_tensor(b), s, p, op,
                             d, g).numpy()  # Paddle's order: dilation, then groups
    if isinstance(p, list):  # torch has no asymmetric padding: crop a symmetric result
        want = torch.nn.functional.conv_transpose2d(torch.tensor(x), torch.tensor(w),
                                                    torch.tensor(b), s, 0, op, g, d).numpy()
        want = want[:, :, 1:, 2:-1]  # top 1, bottom 0, left 2, right 1
    else:
        want = torch.nn.functional.conv_transpose2d(torch.tensor(x), torch.tensor(w),
                                                    torch.tensor(b), s, p, op, g, d).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-10)
    check_grad(lambda a, ww, bb: F.conv2d_transpose(a, ww, bb, s, p, op, d, g),
               RNG.random((1, 4, 3, 4)), w, b)


def test_conv2d_transpose_layer_output_size_and_init():
    core.seed(0)
    layer = nn.Conv2DTranspose(4, 6, 3, stride=2, padding=1)
    assert layer.weight.shape == [4, 6, 3, 3]
    x = core.to_tensor(RNG.random((2, 4, 5, 5)).astype(np.float32))
    assert layer(x).shape == [2, 6, 9, 9]
    assert layer(x, output_size=[10, 10]).shape == [2, 6, 10, 10]
    with pytest.raises(ValueError, match="output_size"):
        layer(x, output_size=[12, 12])
    big = nn.Conv2DTranspose(64, 8, 4).weight.numpy()
    # Paddle 3.3.1: Xavier uniform over [in, out, kh, kw] (fan_in 8 * 16, fan_out 64 * 16)
    bound = np.sqrt(6 / ((8 + 64) * 16))
    assert np.abs(big).max() <= bound
    np.testing.assert_allclose(big.std(), bound / np.sqrt(3), rtol=0.05)


@pytest.mark.parametrize("s, p, d, g, fmt", [(1, 0, 1, 1, "NCL"), (2, 1, 1, 2, "NCL"),
                                             (1, [2, 1], 2, 1, "NCL"), (1, "SAME", 1, 1, "NLC")])
def test_conv1d_matches_torch_and_gradients(s, p, d, g, fmt):
    torch = pytest.importorskip("torch")
    layer = nn.Conv1D(4, 6, 3, s, p, d, g, data_format=fmt)
    x = RNG.random((2, 4, 9))
    xin = x.transpose(0, 2, 1) if fmt == "NLC" else x
    got = layer(core.to_tensor(xin.astype(np.float32))).numpy()
    tx = torch.tensor(x, dtype=torch.float32)
    if isinstance(p, list):
        tx, tp = torch.nn.functional.pad(tx, p), 0
    else:
        tp = p.lower() if isinstance(p, str) else p
    want = torch.nn.functional.conv1d(tx, torch.tensor(layer.weight.numpy()),
                                      torch.tensor(layer.bias.numpy()), s, tp, d, g).numpy()
    np.testing.assert_allclose(got.transpose(0, 2, 1) if fmt == "NLC" else got, want,
                               rtol=1e-5, atol=1e-6)
    check_grad(lambda a, w: F.conv1d(a, w, None, s, p, d, g, fmt),
               RNG.random(xin.shape[:1] + (xin.shape[1], 5) if fmt == "NCL" else (1, 5, 4)),
               RNG.random((6, 4 // g, 3)))
