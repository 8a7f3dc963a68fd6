"""BatchNorm1D/2D and batch_norm: gradients, running statistics, train versus eval, state."""
import numpy as np
import pytest

import core
from core import nn
from core.nn import functional as F
from tests.gradcheck import check_grad

RNG = np.random.default_rng(0)


def _stats(channels):
    return core.to_tensor(np.zeros(channels)), core.to_tensor(np.ones(channels))


@pytest.mark.parametrize("shape,fmt", [((5, 3), "NC"), ((2, 3, 4), "NCL"),
                                       ((2, 3, 2, 2), "NCHW"), ((2, 2, 2, 3), "NHWC")])
def test_batch_norm_train_gradient_wrt_input_weight_bias(shape, fmt):
    x = RNG.standard_normal(shape)
    w, b = RNG.standard_normal(3) + 1.0, RNG.standard_normal(3)

    def run(t, weight, bias):
        mean, var = _stats(3)
        return F.batch_norm(t, mean, var, weight, bias, training=True, data_format=fmt)

    check_grad(run, x, w, b)
    check_grad(lambda t: F.batch_norm(t, *_stats(3), training=True, data_format=fmt), x)


def test_batch_norm_eval_gradient_uses_running_statistics():
    x, w, b = RNG.standard_normal((4, 3, 2)), RNG.standard_normal(3), RNG.standard_normal(3)
    mean, var = core.to_tensor(RNG.standard_normal(3)), core.to_tensor(RNG.random(3) + 0.5)
    check_grad(lambda t, ww, bb: F.batch_norm(t, mean, var, ww, bb, data_format="NCL"), x, w, b)
    out = F.batch_norm(core.to_tensor(x), mean, var, core.to_tensor(w), core.to_tensor(b),
                       data_format="NCL").numpy()
    c = (None, slice(None), None)  # per-channel values broadcast over N and L
    expected = (x - mean.numpy()[c]) / np.sqrt(var.numpy()[c] + 1e-5) * w[c] + b[c]
    np.testing.assert_allclose(out, expected, rtol=1e-12)


def test_batchnorm2d_layer_gradient_in_train_mode():
    layer = nn.BatchNorm2D(2)

    def run(x, weight, bias):
        layer.weight, layer.bias = weight, bias  # plain tensors stand in for the parameters
        return layer(x)

    check_grad(run, RNG.standard_normal((3, 2, 2, 3)), RNG.standard_normal(2) + 1.0,
               RNG.standard_normal(2))


def test_running_statistics_after_two_steps_match_a_hand_computation():
    layer = nn.BatchNorm1D(2)  # momentum 0.9: running = 0.9 * running + 0.1 * batch
    x1 = np.array([[1.0, 2.0], [3.0, 6.0]], np.float32)
    x2 = np.array([[0.0, 1.0], [2.0, 1.0], [4.0, 4.0]], np.float32)
    layer(core.to_tensor(x1))
    layer(core.to_tensor(x2))
    # Paddle folds in the BIASED batch variance (divided by n, not n - 1).
    # Step 1: batch means (2, 4), biased variances (1, 4).
    # Step 2: batch means (2, 2), biased variances (8/3, 2).
    mean1 = 0.9 * np.array([0.0, 0.0]) + 0.1 * np.array([2.0, 4.0])
    var1 = 0.9 * np.array([1.0, 1.0]) + 0.1 * np.array([1.0, 4.0])
    mean2 = 0.9 * mean1 + 0.1 * np.array([2.0, 2.0])
    var2 = 0.9 * var1 + 0.1 * np.array([8.0 / 3.0, 2.0])
    np.testing.assert_allclose(layer._mean.numpy(), mean2, rtol=1e-6)
    np.testing.assert_allclose(layer._variance.numpy(), var2, rtol=1e-6)
    np.testing.assert_allclose(layer._mean.numpy(), [0.38, 0.56], rtol=1e-6)
    np.testing.assert_allclose(layer._variance.numpy(), [0.9 + 0.8 / 3, 1.37], rtol=1e-6)


def test_train_normalises_by_the_batch_and_eval_by_running_statistics():
    layer = nn.BatchNorm2D(3)
    x = (RNG.standard_normal((8, 3, 4, 4)) * 5 + 2).astype(np.float32)
    out = layer(core.to_tensor(x)).numpy()
    np.testing.assert_allclose(out.mean(axis=(0, 2, 3)), 0.0, atol=1e-5)
    np.testing.assert_allclose(out.var(axis=(0, 2, 3)), 1.0, rtol=1e-3)
    layer.eval()
    before = layer._mean.numpy().copy()
    got = layer(core.to_tensor(x)).numpy()
    np.testing.assert_array_equal(layer._mean.numpy(), before)  # eval never updates
    m = layer._mean.numpy()[None, :, None, None]
    v = layer._variance.numpy()[None, :, None, None]
    np.testing.assert_allclose(got, (x - m) / np.sqrt(v + 1e-5), rtol=1e-5, atol=1e-5)


def test_use_global_stats_in_training_neither_uses_nor_updates_the_batch():
    layer = nn.BatchNorm1D(2, use_global_stats=True)
    x = np.array([[1.0, 2.0], [3.0, 5.0]], np.float32)
    out = layer(core.to_tensor(x)).numpy()
    np.testing.assert_allclose(out, x / np.sqrt(1 + 1e-5), rtol=1e-6)
    np.testing.assert_array_equal(layer._mean.numpy(), [0.0, 0.0])


def test_batchnorm1d_on_ncl_and_state_dict_round_trip():
    a, b = nn.BatchNorm1D(3), nn.BatchNorm1D(3)
    a(core.to_tensor(RNG.standard_normal((4, 3, 5)).astype(np.float32)))
    assert list(a.state_dict()) == ["weight", "bias", "_mean", "_variance"]
    b.set_state_dict(a.state_dict())
    np.testing.assert_array_equal(b._mean.numpy(), a._mean.numpy())
    np.testing.assert_array_equal(b._variance.numpy(), a._variance.numpy())
    x = core.to_tensor(RNG.standard_normal((2, 3, 5)).astype(np.float32))
    np.testing.assert_array_equal(a.eval()(x).numpy(), b.eval()(x).numpy())


@pytest.mark.parametrize("layer,shape", [(nn.BatchNorm1D, (0, 3)), (nn.BatchNorm2D, (0, 3, 4, 4)),
                                         (nn.BatchNorm2D, (0, 4, 4, 3))])
def test_an_empty_training_batch_leaves_the_running_statistics_as_torch(layer, shape):
    """A batch of no samples has no statistics: its output is empty and the running mean and
    variance stay as they were (they had become NaN, for good, with numpy's empty means)."""
    bn = layer(3, data_format="NHWC") if shape[-1] == 3 and len(shape) == 4 else layer(3)
    bn.train()
    x = core.to_tensor(np.zeros(shape, np.float32), stop_gradient=False)
    out = bn(x)
    out.sum().backward()
    assert out.shape == list(shape) and x.grad.shape == list(shape)
    np.testing.assert_array_equal(bn._mean.numpy(), np.zeros(3))
    np.testing.assert_array_equal(bn._variance.numpy(), np.ones(3))
    np.testing.assert_array_equal(bn.weight.grad.numpy(), np.zeros(3))


def test_batchnorm_errors_are_clear():
    with pytest.raises(ValueError, match="4 channels.*num_features=3"):
        nn.BatchNorm2D(3)(core.to_tensor(np.zeros((2, 4, 2, 2), np.float32)))
    with pytest.raises(ValueError, match="4 dimensions"):
        nn.BatchNorm2D(3)(core.to_tensor(np.zeros((2, 3), np.float32)))
    with pytest.raises(ValueError, match="data_format='NHWC'"):
        nn.BatchNorm1D(3, data_format="NHWC")
    with pytest.raises(ValueError, match="momentum=1.5"):
        nn.BatchNorm1D(3, momentum=1.5)
