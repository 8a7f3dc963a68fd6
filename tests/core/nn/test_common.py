"""Linear, Flatten, Dropout and Identity: values, shapes, errors and gradients."""
import numpy as np
import pytest

import core
from core import nn
from core.nn import functional as F
from tests.gradcheck import check_grad

RNG = np.random.default_rng(0)


@pytest.mark.parametrize("x_shape", [(4, 3), (2, 2, 3), (3,)])
def test_linear_gradient_with_and_without_bias(x_shape):
    x, w, b = RNG.standard_normal(x_shape), RNG.standard_normal((3, 5)), RNG.standard_normal(5)
    check_grad(F.linear, x, w, b)
    check_grad(F.linear, x, w)
    np.testing.assert_allclose(F.linear(*map(core.to_tensor, (x, w, b))).numpy(), x @ w + b)


def test_linear_layer_parameters_and_forward():
    core.seed(0)
    layer = nn.Linear(3, 2)
    assert layer.weight.shape == [3, 2] and layer.bias.shape == [2]
    assert layer.weight.dtype == np.float32 and not layer.weight.stop_gradient
    np.testing.assert_array_equal(layer.bias.numpy(), [0.0, 0.0])
    limit = np.sqrt(6.0 / 5)  # Xavier-uniform bound for fan_in 3, fan_out 2
    assert np.abs(layer.weight.numpy()).max() <= limit
    x = RNG.standard_normal((4, 3)).astype(np.float32)
    expected = x @ layer.weight.numpy() + layer.bias.numpy()
    np.testing.assert_allclose(layer(core.to_tensor(x)).numpy(), expected, rtol=1e-6)
    assert [n for n, _ in layer.named_parameters()] == ["weight", "bias"]
    assert nn.Linear(3, 2, bias_attr=False).parameters()[0].shape == [3, 2]
    assert len(nn.Linear(3, 2, bias_attr=False).parameters()) == 1


def test_linear_layer_gradient_wrt_input_weight_and_bias():
    layer = nn.Linear(3, 2)

    def run(x, w, b):
        layer.weight, layer.bias = w, b  # plain tensors stand in for the parameters
        return layer(x)

    check_grad(run, RNG.standard_normal((4, 3)), RNG.standard_normal((3, 2)),
               RNG.standard_normal(2))


def test_linear_shape_errors_are_clear():
    with pytest.raises(ValueError, match=r"input of shape \[4, 5\].*in_features"):
        nn.Linear(3, 2)(core.to_tensor(np.zeros((4, 5), np.float32)))
    with pytest.raises(ValueError, match="out_features=0"):
        nn.Linear(3, 0)


def test_flatten_shapes_values_and_gradient():
    x = RNG.standard_normal((2, 3, 4, 5))
    assert F.flatten(core.to_tensor(x)).shape == [120]
    assert F.flatten(core.to_tensor(x), 1, 2).shape == [2, 12, 5]
    assert nn.Flatten()(core.to_tensor(x)).shape == [2, 60]
    np.testing.assert_array_equal(nn.Flatten()(core.to_tensor(x)).numpy(), x.reshape(2, 60))
    check_grad(nn.Flatten(), x[:, :2, :2, :2])
    check_grad(lambda t: F.flatten(t, -3, -2), x[:, :2, :2, :2])
    with pytest.raises(ValueError, match="start_axis"):
        F.flatten(core.to_tensor(x), 3, 1)
    with pytest.raises(ValueError, match="stop_axis=7"):
        F.flatten(core.to_tensor(x), 0, 7)


def test_dropout_statistics_with_a_seed():
    core.seed(123)
    x = core.to_tensor(np.ones((200, 500), np.float32))
    out = F.dropout(x, p=0.3).numpy()
    dropped = (out == 0).mean()
    assert abs(dropped - 0.3) < 0.005  # 100k Bernoulli(0.3) draws: std 0.0014
    np.testing.assert_allclose(np.unique(out), [0.0, 1.0 / 0.7], rtol=1e-6)
    assert abs(out.mean() - 1.0) < 0.01  # upscale_in_train keeps the expectation
    core.seed(123)
    np.testing.assert_array_equal(F.dropout(x, p=0.3).numpy(), out)  # same seed, same mask


def test_dropout_train_versus_eval_and_modes():
    x = core.to_tensor(RNG.standard_normal((4, 6)).astype(np.float32))
    layer = nn.Dropout(0.5)
    layer.eval()
    assert layer(x) is x
    scaled = F.dropout(x, 0.25, training=False, mode="downscale_in_infer").numpy()
    np.testing.assert_allclose(scaled, x.numpy() * 0.75, rtol=1e-6)
    core.seed(1)
    kept = F.dropout(x, 0.25, mode="downscale_in_infer").numpy()
    assert set(np.unique(kept[kept != 0] / x.numpy()[kept != 0]).round(6)) == {1.0}
    assert (F.dropout(x, 1.0).numpy() == 0).all()
    with pytest.raises(ValueError, match="p=1.5"):
        nn.Dropout(1.5)
    with pytest.raises(ValueError, match="mode='bad'"):
        F.dropout(x, 0.5, mode="bad")


def test_dropout_gradient_is_the_mask():
    x = RNG.standard_normal((3, 5))

    def run(t):
        core.seed(7)  # the same mask for every evaluation of the finite differences
        return F.dropout(t, 0.4)

    check_grad(run, x)
    check_grad(lambda t: (core.seed(7), F.dropout(t, 0.4, axis=1))[1], x)


def test_dropout_axis_drops_whole_columns():
    core.seed(5)
    out = F.dropout(core.to_tensor(np.ones((50, 8))), 0.5, axis=1).numpy()
    assert (out == out[:1]).all()  # the mask varies only along axis 1
    assert 0 < (out[0] == 0).sum() < 8
    with pytest.raises(ValueError, match="axis=3"):
        F.dropout(core.to_tensor(np.ones((2, 2))), 0.5, axis=3)


def test_identity_returns_its_input():
    x = core.to_tensor([1.0, 2.0])
    assert nn.Identity(54, unused=True)(x) is x


@pytest.mark.usefixtures("split_small_work")
def test_linear_split_over_threads_matches_one_thread():
    """Large products split their rows over core's threads; the weight gradient's partial sums
    add up in a fixed order."""
    rng = np.random.default_rng(4)
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in ((512, 96), (96, 64), (64,)))
    g = rng.standard_normal((512, 64)).astype(np.float32)
    results = []
    for threads in (1, 2, 2):
        core.device.set_num_threads(threads)
        try:
            xt, wt, bt = (core.to_tensor(a, stop_gradient=False) for a in (x, w, b))
            out = F.linear(xt, wt, bt)
            out.backward(core.to_tensor(g))
            results.append([out.numpy(), xt.gradient(), wt.gradient(), bt.gradient()])
        finally:
            core.device.set_num_threads(1)
    for got, want in zip(results[1], results[0]):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    for got, want in zip(results[2], results[1]):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_allclose(results[0][0], x @ w + b, rtol=1e-4, atol=1e-4)


def test_dropout_positional_arguments_follow_paddle_3():
    """Paddle 3.x: dropout(x, p, axis, training, inplace, mode, name)."""
    x = core.to_tensor(np.ones((2, 3), np.float32))
    out = F.dropout(x, 0.5, None, False, False, "downscale_in_infer")
    np.testing.assert_allclose(out.numpy(), 0.5)


def test_dropout2d_gradient_matches_finite_differences_under_a_fixed_mask():
    x = np.random.default_rng(5).standard_normal((2, 4, 3, 3))

    def dropped(t):
        core.seed(11)  # the same channel mask on every evaluation
        return F.dropout2d(t, p=0.5, training=True)

    check_grad(dropped, x)
    out = dropped(core.to_tensor(x)).numpy()
    zeroed = np.all(out == 0, axis=(2, 3))
    assert zeroed.any() and not zeroed.all()  # whole channels dropped, others kept
