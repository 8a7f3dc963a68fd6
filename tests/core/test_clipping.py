"""core/clipping.py: Paddle-2 gradient clipping, per-parameter thresholds, and error clipping."""
import numpy as np
import pytest

import core
from core import nn, optimizer
from core.clipping import error_clip_counts
from core.tensor import Parameter, Tensor
from tests.gradcheck import check_grad

RNG = np.random.default_rng(0)


def _param(values, name, need_clip=True):
    return Parameter(np.asarray(values, dtype=np.float32), name=name, need_clip=need_clip)


def _pairs(*grads, need_clip=None):
    need_clip = need_clip or [True] * len(grads)
    return [(_param(np.zeros_like(np.asarray(g, dtype=np.float32)), f"p{i}", keep),
             Tensor(np.asarray(g, dtype=np.float32))) for i, (g, keep) in
            enumerate(zip(grads, need_clip))]


def _raw(pairs):
    return [g.numpy() for _, g in pairs]


# ----- the three clips --------------------------------------------------------------------

def test_clip_by_value_clips_elements_and_skips_need_clip_false():
    pairs = _pairs([-3.0, 0.5, 2.0], [5.0, -5.0], need_clip=[True, False])
    out = _raw(nn.ClipGradByValue(1.0)(pairs))
    np.testing.assert_array_equal(out[0], [-1.0, 0.5, 1.0])
    np.testing.assert_array_equal(out[1], [5.0, -5.0])  # need_clip=False passes untouched
    np.testing.assert_array_equal(_raw(nn.ClipGradByValue(2.0, min=-0.5)(pairs))[0],
                                  [-0.5, 0.5, 2.0])


def test_clip_by_norm_rescales_each_gradient_on_its_own():
    pairs = _pairs([3.0, 4.0], [0.3, 0.4])  # norms 5 and 0.5
    out = _raw(nn.ClipGradByNorm(1.0)(pairs))
    np.testing.assert_allclose(out[0], [0.6, 0.8], rtol=1e-6)
    np.testing.assert_allclose(out[1], [0.3, 0.4], rtol=1e-6)  # below the limit: unchanged


def test_clip_by_global_norm_rescales_all_together():
    pairs = _pairs([3.0, 0.0], [0.0, 4.0], [12.0], need_clip=[True, True, False])
    out = _raw(nn.ClipGradByGlobalNorm(1.0)(pairs))  # global norm of the clipped group: 5
    np.testing.assert_allclose(out[0], [0.6, 0.0], rtol=1e-6)
    np.testing.assert_allclose(out[1], [0.0, 0.8], rtol=1e-6)
    np.testing.assert_array_equal(out[2], [12.0])
    unchanged = _raw(nn.ClipGradByGlobalNorm(10.0)(pairs))
    np.testing.assert_array_equal(unchanged[0], [3.0, 0.0])


def test_own_thresholds_by_name_and_pattern_override_the_global_one():
    grads = [np.array([3.0, 4.0]), np.array([6.0, 8.0]), np.array([0.0, 2.0])]
    params = [_param(np.zeros(2), n) for n in ("conv1.weight", "fc.weight", "fc.bias")]
    pairs = [(p, Tensor(g.astype(np.float32))) for p, g in zip(params, grads)]
    by_norm = _raw(nn.ClipGradByNorm(1.0, thresholds={"fc.*": 5.0})(pairs))
    np.testing.assert_allclose(by_norm[0], [0.6, 0.8], rtol=1e-6)
    np.testing.assert_allclose(by_norm[1], [3.0, 4.0], rtol=1e-6)  # own limit 5
    np.testing.assert_allclose(by_norm[2], [0.0, 2.0], rtol=1e-6)
    by_value = _raw(nn.ClipGradByValue(1.0, thresholds={"fc.weight": 7.0})(pairs))
    np.testing.assert_array_equal(by_value[1], [6.0, 7.0])
    np.testing.assert_array_equal(by_value[2], [0.0, 1.0])
    # Global: conv1 and fc.bias share a global norm of sqrt(29); fc.weight goes on its own.
    glob = _raw(nn.ClipGradByGlobalNorm(1.0, thresholds={"fc.weight": 5.0})(pairs))
    np.testing.assert_allclose(glob[0], np.array([3.0, 4.0]) / np.sqrt(29), rtol=1e-6)
    np.testing.assert_allclose(glob[1], [3.0, 4.0], rtol=1e-6)


def test_zero_gradients_do_not_divide_by_zero_and_nan_propagates_to_the_check():
    zero = _raw(nn.ClipGradByGlobalNorm(1.0)(_pairs([0.0, 0.0])))
    np.testing.assert_array_equal(zero[0], [0.0, 0.0])
    with np.errstate(invalid="ignore"):
        nan = _raw(nn.ClipGradByGlobalNorm(1.0)(_pairs([np.nan, 1.0], [1.0])))
    assert np.isnan(nan[0]).all() and np.isnan(nan[1]).all()  # not silently zeroed


def test_large_finite_gradients_keep_a_finite_norm():
    out = _raw(nn.ClipGradByGlobalNorm(1.0)(_pairs(np.full(4, 1e30))))  # squares overflow fp32
    np.testing.assert_allclose(out[0], np.full(4, 0.5), rtol=1e-5)


def test_statistics_count_acting_calls_and_the_pre_clip_norm():
    clip = nn.ClipGradByGlobalNorm(1.0)
    clip(_pairs([3.0, 4.0]))  # norm 5: acts
    clip(_pairs([0.3, 0.4]))  # norm 0.5: does not
    stats = clip.read_stats()
    assert stats["acted"] == 1.0
    assert stats["grad_norm"] == pytest.approx(2.75) and stats["grad_norm_max"] == pytest.approx(5)
    clip(_pairs([0.0, 2.0]))
    stats = clip.read_stats()  # acted is cumulative; the norms restart at each read
    assert stats == pytest.approx({"acted": 2.0, "grad_norm": 2.0, "grad_norm_max": 2.0})
    by_value = nn.ClipGradByValue(1.0)
    by_value(_pairs([0.5]))
    by_value(_pairs([-1.5]))
    assert by_value.read_stats()["acted"] == 1.0


def test_an_optimizer_applies_the_clip_before_the_update():
    param = _param([1.0, 1.0], "w")
    param.grad_data = np.array([30.0, 40.0], dtype=np.float32)
    opt = optimizer.SGD(learning_rate=1.0, parameters=[param],
                        grad_clip=nn.ClipGradByGlobalNorm(5.0))
    opt.step()
    np.testing.assert_allclose(param.numpy(), [1.0 - 3.0, 1.0 - 4.0], rtol=1e-6)
    np.testing.assert_array_equal(param.grad_data, [30.0, 40.0])  # the gradient is not changed


@pytest.mark.parametrize("make, message", [
    (lambda: nn.ClipGradByValue(0.0), "max must be a finite number > 0"),
    (lambda: nn.ClipGradByValue(1.0, min=2.0), "min must be a finite number < max"),
    (lambda: nn.ClipGradByNorm(float("nan")), "clip_norm must be a finite number > 0"),
    (lambda: nn.ClipGradByGlobalNorm(1.0, thresholds={"fc.*": -1}), r"thresholds\['fc.\*'\]"),
    (lambda: nn.ClipGradByGlobalNorm(1.0, thresholds=[1.0]), "must be a dict"),
])
def test_bad_arguments_are_named(make, message):
    with pytest.raises((ValueError, TypeError), match=message):
        make()


# ----- error clipping ---------------------------------------------------------------------

def _linear_chain(x, weights, threshold):
    """sum(c * fc(x)^2) through a Linear layer carrying ``error_clip``."""
    core.seed(0)
    layer = nn.Linear(3, 2)
    layer.weight.set_value(weights[0])
    layer.bias.set_value(weights[1])
    layer.error_clip = threshold
    out = layer(x)
    return layer, out


def test_error_clip_above_the_largest_error_changes_nothing():
    x = RNG.standard_normal((4, 3))
    w, b = RNG.standard_normal((3, 2)), RNG.standard_normal(2)

    def fn(x_t, w_t, b_t):
        layer = nn.Linear(3, 2)
        layer.weight, layer.bias = _as_param(w_t, "w"), _as_param(b_t, "b")
        layer.error_clip = 1e9
        out = layer(x_t)
        return out * out

    check_grad(fn, x, w, b, wrt=[0])  # the gradient reaching x is the true one


def _as_param(tensor, name):
    param = Parameter(tensor.data, name=name)
    return param


def test_error_clip_below_the_errors_equals_the_hand_clipped_chain():
    x = RNG.standard_normal((4, 3)).astype(np.float32) * 3
    w = RNG.standard_normal((3, 2)).astype(np.float32)
    b = RNG.standard_normal(2).astype(np.float32)
    c = np.array([[1.0, -2.0]], dtype=np.float32)
    threshold = 0.5
    xt = core.to_tensor(x, stop_gradient=False)
    layer, out = _linear_chain(xt, (w, b), threshold)
    (core.to_tensor(c) * out * out).sum().backward()
    y = x @ w + b
    g = np.clip(2 * c * y, -threshold, threshold)  # the error arriving at fc's output, clipped
    assert np.abs(2 * c * y).max() > threshold  # the clip really acts here
    np.testing.assert_allclose(layer.weight.gradient(), x.T @ g, rtol=1e-5)
    np.testing.assert_allclose(layer.bias.gradient(), g.sum(0), rtol=1e-5)
    np.testing.assert_allclose(xt.gradient(), g @ w.T, rtol=1e-5)


def test_error_clip_counts_the_backward_passes_it_acted_in():
    core.seed(0)
    model = nn.Sequential(("fc1", nn.Linear(3, 4)), ("act", nn.ReLU()), ("fc2", nn.Linear(4, 2)))
    model.fc2.error_clip = 1e-6  # every real error is larger: acts
    model.fc1.error_clip = 1e9  # never acts
    assert error_clip_counts(model) == {"fc1": 0.0, "fc2": 0.0}
    for _ in range(3):
        model(core.to_tensor(RNG.standard_normal((5, 3)).astype(np.float32))).sum().backward()
    assert error_clip_counts(model) == {"fc1": 0.0, "fc2": 3.0}
    model.fc2.error_clip = None
    assert error_clip_counts(model) == {"fc1": 0.0}


@pytest.mark.parametrize("bad", [0.0, -1.0, float("inf"), "big", True])
def test_a_bad_error_clip_is_refused_when_set(bad):
    with pytest.raises(ValueError, match="error_clip must be a finite number > 0"):
        nn.Linear(2, 2).error_clip = bad
