"""SELU, CELU, LogSigmoid, Softshrink, Hardshrink, ThresholdedReLU, Maxout, GLU, Softmax2D and
RReLU: float64 gradients against finite differences, values and gradients against torch (or a
numpy formula where torch has no such op), Paddle's documented examples, argument errors,
float32 at extremes, and a network spec that uses them."""
import numpy as np
import pytest

import core
from core import model_summary, nn
from core.nn import functional as F
from runner import build
from runner.config import validation
from tests.core.nn.torch_parity import assert_layer_matches_torch
from tests.gradcheck import check_grad

RNG = np.random.default_rng(7)
# Away from every kink (0, +-0.5, +-1.2, 1, 0.8), where finite differences straddle two pieces.
X = np.array([-25.0, -5.0, -3.7, -2.2, -1.1, -0.7, -0.3, 0.2, 0.9, 1.7, 2.6, 22.0]).reshape(3, 4)
SCALE, ALPHA = 1.0507009873554804934193349852946, 1.6732632423543772848170429916717

CASES = [  # (layer, functional call, torch call)
    (nn.SELU(), F.selu, lambda t, tf: tf.selu(t)),
    (nn.SELU(1.2, 0.8), lambda x: F.selu(x, 1.2, 0.8), lambda t, tf: 1.2 * tf.elu(t, 0.8)),
    (nn.CELU(), F.celu, lambda t, tf: tf.celu(t)),
    (nn.CELU(0.7), lambda x: F.celu(x, 0.7), lambda t, tf: tf.celu(t, 0.7)),
    (nn.CELU(-8.0), lambda x: F.celu(x, -8.0), lambda t, tf: tf.celu(t, -8.0)),
    (nn.LogSigmoid(), F.log_sigmoid, lambda t, tf: tf.logsigmoid(t)),
    (nn.Softshrink(), F.softshrink, lambda t, tf: tf.softshrink(t)),
    (nn.Softshrink(1.2), lambda x: F.softshrink(x, 1.2), lambda t, tf: tf.softshrink(t, 1.2)),
    (nn.Hardshrink(), F.hardshrink, lambda t, tf: tf.hardshrink(t)),
    (nn.Hardshrink(1.2), lambda x: F.hardshrink(x, 1.2), lambda t, tf: tf.hardshrink(t, 1.2)),
    (nn.ThresholdedReLU(), F.thresholded_relu, lambda t, tf: tf.threshold(t, 1.0, 0.0)),
    (nn.ThresholdedReLU(0.8, -0.5), lambda x: F.thresholded_relu(x, 0.8, -0.5),
     lambda t, tf: tf.threshold(t, 0.8, -0.5)),
    (nn.RReLU().eval(), lambda x: F.rrelu(x, training=False),
     lambda t, tf: tf.rrelu(t, training=False)),
    (nn.RReLU(0.05, 0.6).eval(), lambda x: F.rrelu(x, 0.05, 0.6, training=False),
     lambda t, tf: tf.rrelu(t, 0.05, 0.6, training=False)),
]


@pytest.mark.parametrize("layer, fn, ref", CASES,
                         ids=[f"{type(case[0]).__name__}-{i}" for i, case in enumerate(CASES)])
def test_activation_gradient_and_torch_parity(layer, fn, ref):
    check_grad(fn, X)
    # torch's celu backward for alpha != 1 is ~1e-7 (relative) off exp(x / alpha); ours is
    # exact to ~1e-14 (test_celu_gradient_is_exp_of_x_over_alpha)
    loose = isinstance(layer, nn.CELU) and layer._options["alpha"] != 1
    assert_layer_matches_torch(layer, ref, X, grad_rtol=1e-6 if loose else 1e-9)


def test_celu_gradient_is_exp_of_x_over_alpha():
    x = core.to_tensor(np.array([-5.0, -3.7, -2.2, -0.3]), stop_gradient=False)
    for alpha in (0.7, -2.0):
        x.clear_gradient()
        F.celu(x, alpha).sum().backward()
        want = np.where(x.numpy() > 0, 1.0, np.exp(x.numpy() / alpha))
        np.testing.assert_allclose(x.gradient(), want, rtol=1e-13)


def _matches_torch(fn, ref, x):
    """``fn(x)`` and its input gradient for a cosine upstream gradient against torch's (for
    ops whose output is not the input's shape)."""
    torch = pytest.importorskip("torch")
    xt = core.to_tensor(x, stop_gradient=False)
    out = fn(xt)
    upstream = np.cos(np.arange(out.size)).reshape(out.shape)
    out.backward(core.to_tensor(upstream))
    t = torch.tensor(x, requires_grad=True)
    want = ref(t, torch.nn.functional)
    want.backward(torch.tensor(upstream))
    np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(xt.gradient(), t.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_glu_and_softmax2d_on_other_axes_and_ranks():
    torch = pytest.importorskip("torch")
    check_grad(F.glu, X)
    check_grad(nn.GLU(), X)
    _matches_torch(nn.GLU(), lambda t, tf: tf.glu(t), X)
    x4 = RNG.standard_normal((2, 4, 3, 2))
    check_grad(lambda a: F.glu(a, axis=1), x4)
    check_grad(lambda a: F.glu(a, 0), x4)
    check_grad(nn.GLU(axis=-3), x4)
    assert F.glu(core.to_tensor(x4), 1).shape == [2, 2, 3, 2]
    softmax2d = nn.Softmax2D()
    for shape in [(2, 3, 4, 2), (3, 2, 5)]:  # [N, C, H, W] and [C, H, W]
        x = RNG.standard_normal(shape)
        check_grad(softmax2d, x)
        out = softmax2d(core.to_tensor(x)).numpy()
        np.testing.assert_allclose(out.sum(axis=-3), 1.0)
        assert_layer_matches_torch(softmax2d, lambda t, tf: torch.nn.Softmax2d()(t), x)
    _matches_torch(lambda a: F.glu(a, axis=1), lambda t, tf: tf.glu(t, dim=1), x4)


def _maxout_reference(x, groups, axis):
    moved = np.moveaxis(x, axis, -1)
    grouped = moved.reshape(moved.shape[:-1] + (moved.shape[-1] // groups, groups))
    return np.moveaxis(grouped.max(axis=-1), -1, axis)


@pytest.mark.parametrize("shape, groups, axis", [((2, 6, 3, 2), 2, 1), ((2, 6, 3, 2), 3, 1),
                                                 ((2, 3, 2, 4), 2, -1), ((2, 3, 2, 4), 4, 3),
                                                 ((5, 6), 3, 1)])
def test_maxout_against_a_numpy_formula_and_finite_differences(shape, groups, axis):
    x = RNG.permutation(np.arange(np.prod(shape), dtype=np.float64)).reshape(shape) * 0.37
    out = F.maxout(core.to_tensor(x), groups, axis)
    np.testing.assert_array_equal(out.numpy(), _maxout_reference(x, groups, axis))
    check_grad(lambda a: F.maxout(a, groups, axis), x)  # distinct values: no ties
    check_grad(nn.Maxout(groups, axis), x)


def test_maxout_matches_paddles_example_and_sends_ties_to_the_first_maximum():
    x = np.array([[[[0.5002636, 0.22272532, 0.17402348, 0.2874594],
                    [0.95313174, 0.6228939, 0.7129065, 0.7087491],
                    [0.02879342, 0.88725346, 0.61093384, 0.38833922]],
                   [[0.5231306, 0.03807496, 0.91661984, 0.15602879],
                    [0.666127, 0.616567, 0.30741522, 0.24044901],
                    [0.7142536, 0.7351477, 0.31588817, 0.23782359]]]], np.float32)
    out = nn.Maxout(groups=2)(core.to_tensor(x))
    np.testing.assert_allclose(out.numpy(), [[[[0.5231306, 0.22272532, 0.91661984, 0.2874594],
                                               [0.95313174, 0.6228939, 0.7129065, 0.7087491],
                                               [0.7142536, 0.88725346, 0.61093384,
                                                0.38833922]]]])
    assert out.dtype == np.float32 and "groups=2" in repr(nn.Maxout(2))
    tied = core.to_tensor(np.ones((1, 4, 1, 1)), stop_gradient=False)
    F.maxout(tied, 2).sum().backward()
    np.testing.assert_array_equal(tied.gradient().ravel(), [1, 0, 1, 0])


def test_values_match_paddles_documented_examples():
    def run(fn, values, *args):
        return fn(core.to_tensor(np.array(values, np.float32)), *args).numpy()

    np.testing.assert_allclose(run(F.celu, [[-1.0, 6.0], [1.0, 15.6]], 0.2),
                               [[-0.19865242, 6.0], [1.0, 15.6]], rtol=1e-6)
    np.testing.assert_allclose(run(F.selu, [[0.0, 1.0], [2.0, 3.0]]),
                               [[0, 1.050701], [2.101402, 3.152103]], rtol=1e-6)
    np.testing.assert_allclose(run(F.log_sigmoid, [1.0, 2.0, 3.0, 4.0]),
                               [-0.313262, -0.126928, -0.0485874, -0.0181499], rtol=1e-5)
    np.testing.assert_allclose(run(F.softshrink, [-0.9, -0.2, 0.1, 0.8]), [-0.4, 0, 0, 0.3],
                               atol=1e-7)
    np.testing.assert_allclose(run(F.hardshrink, [-1.0, 0.3, 2.5]), [-1, 0, 2.5])
    np.testing.assert_allclose(run(F.thresholded_relu, [2.0, 0.0, 1.0]), [2, 0, 0])
    glu = run(F.glu, [[-0.22014759, -1.76358426, 0.80566144, 0.04241343],
                      [-1.94900405, -1.89956081, 0.17134808, -1.11280477]])
    np.testing.assert_allclose(glu, [[-0.15216254, -0.9004892], [-1.0577879, -0.46985325]],
                               rtol=1e-6)


def test_rrelu_draws_each_negative_slope_in_training_and_uses_the_mean_in_eval():
    core.seed(3)
    lower, upper = 0.1, 0.3
    x = core.to_tensor(-np.linspace(0.5, 4.0, 2000).reshape(40, 50), stop_gradient=False)
    layer = nn.RReLU(lower, upper)
    out = layer(x)  # a new layer trains
    slopes = out.numpy() / x.numpy()
    assert lower <= slopes.min() and slopes.max() <= upper
    assert slopes.std() > 0.05 and abs(slopes.mean() - 0.2) < 0.01  # uniform on [0.1, 0.3]
    out.backward(core.to_tensor(np.ones(x.shape)))
    np.testing.assert_allclose(x.gradient(), slopes)  # the gradient is each drawn slope
    assert not np.array_equal(layer(x).numpy(), out.numpy())  # a fresh draw per call
    positive = core.to_tensor(np.linspace(0.0, 3.0, 7))
    np.testing.assert_array_equal(layer(positive).numpy(), positive.numpy())
    layer.eval()
    np.testing.assert_allclose(layer(x).numpy(), x.numpy() * (lower + upper) / 2)
    core.seed(3)  # the seeded generator makes training draws repeatable
    np.testing.assert_array_equal(F.rrelu(x, lower, upper).numpy(), out.numpy())
    assert "lower=0.1, upper=0.3" in repr(layer)
    check_grad(layer, X)  # eval mode: deterministic
    check_grad(lambda a: F.rrelu(a, lower, upper, training=False), X)


def test_float32_extremes_stay_finite_and_keep_float32():
    x = core.to_tensor(np.array([-1e4, -100.0, -0.7, 0.6, 100.0, 1e4], np.float32),
                       stop_gradient=False)
    fns = [F.selu, F.celu, lambda a: F.celu(a, 0.1), F.log_sigmoid, F.softshrink, F.hardshrink,
           F.thresholded_relu, lambda a: F.rrelu(a, training=False), F.glu,
           lambda a: F.maxout(a.reshape([3, 2]), 2)]
    for fn in fns:
        x.clear_gradient()
        out = fn(x)
        out.sum().backward()
        assert out.dtype == np.float32 and np.isfinite(out.numpy()).all()
        assert np.isfinite(x.gradient()).all()
    ls = F.log_sigmoid(x).numpy()
    assert ls[1] == -100.0 and -1e-40 < ls[4] <= 0 and ls[0] == -1e4
    np.testing.assert_allclose(F.selu(x).numpy()[[1, 4]], [-SCALE * ALPHA, SCALE * 100],
                               rtol=1e-6)
    x.clear_gradient()
    F.log_sigmoid(x).sum().backward()
    # exp(-100) is a float32 subnormal (3.78e-44): float32's own value on the CPU; a GPU may flush
    # subnormals to zero, so the bound is finiteness and sign, not the subnormal's exact bits
    grad = x.gradient()
    assert grad.dtype == np.float32
    np.testing.assert_allclose(grad[[0, 1, 4]], [1.0, 1.0, np.exp(np.float32(-100))],
                               rtol=0, atol=1e-38)
    assert grad[4] >= 0


def test_zero_d_inputs_give_zero_d_outputs_and_gradients():
    for fn in (F.selu, F.celu, F.log_sigmoid, F.softshrink, F.hardshrink, F.thresholded_relu,
               F.rrelu, lambda a: F.rrelu(a, training=False)):
        x = core.to_tensor(np.array(-1.5), stop_gradient=False)
        out = fn(x)
        out.backward()
        assert out.shape == [] and x.gradient().shape == ()


def test_bad_arguments_raise_errors_that_name_them():
    x = core.to_tensor(X)
    cases = [
        (lambda: F.selu(x, scale=1.0), ValueError, "scale=1.0"),
        (lambda: nn.SELU(alpha=-0.1), ValueError, "alpha=-0.1"),
        (lambda: F.celu(x, 0.0), ZeroDivisionError, "alpha=0"),
        (lambda: nn.CELU(0), ZeroDivisionError, "CELU: alpha=0"),
        (lambda: F.celu(x, "1"), ValueError, "alpha='1'"),
        (lambda: F.softshrink(x, -0.5), ValueError, "threshold=-0.5"),
        (lambda: nn.Softshrink(-1), ValueError, "Softshrink: threshold"),
        (lambda: F.hardshrink(x, None), ValueError, "threshold=None"),
        (lambda: nn.ThresholdedReLU(value=float("nan")), ValueError, "value=nan"),
        (lambda: F.maxout(x, 0), ValueError, "groups=0"),
        (lambda: nn.Maxout(2.0), ValueError, "groups=2.0"),
        (lambda: F.maxout(x, 3, axis=1), ValueError, "groups=3 does not divide"),
        (lambda: F.maxout(x, 2, axis=2), ValueError, "axis=2"),
        (lambda: F.glu(x, axis=0), ValueError, "odd"),
        (lambda: nn.GLU(axis=5)(x), ValueError, "axis=5"),
        (lambda: nn.Softmax2D()(x), ValueError, "Softmax2D"),
        (lambda: F.rrelu(x, -0.1, 0.3), ValueError, "lower=-0.1"),
        (lambda: F.rrelu(x, 0.3, 0.2), ValueError, "upper=0.2"),
        (lambda: nn.RReLU(0.1, 1.5), ValueError, "RReLU: upper=1.5"),
        (lambda: nn.RReLU(True), ValueError, "lower=True"),
    ]
    for call, error, words in cases:
        with pytest.raises(error, match=words.replace("(", r"\(").replace(".", r"\.")):
            call()


def test_a_network_spec_uses_the_new_activations():
    """Each layer is a spec type with its constructor arguments; the probe (two samples, eval
    mode) runs through RReLU's mean slope, Maxout's channel groups and Softmax2D."""
    layers = {"conv": {"type": "Conv2D", "out_channels": 6, "kernel_size": 3, "padding": 1},
              "groups": {"type": "Maxout", "groups": 2},
              "norm": {"type": "Softmax2D"},
              "flat": {"type": "Flatten"},
              "fc": {"type": "Linear", "out_features": 8},
              "act": {"type": "SELU"}, "leak": {"type": "RReLU", "lower": 0.2, "upper": 0.4},
              "head": {"type": "Linear"}}
    spec = validation.group_option("model", {"name": "net", "layers": layers, "blocks": {}})
    core.seed(0)
    model = build.build_model(spec, (1, 6, 6), 3)
    assert dict(model.named_parameters())["fc.weight"].shape == [3 * 6 * 6, 8]
    assert type(model["leak"]).__name__ == "RReLU" and model["groups"]._options["groups"] == 2
    model.eval()
    x = core.to_tensor(RNG.random((2, 1, 6, 6)).astype(np.float32))
    assert model(x).shape == [2, 3]
    assert model_summary.summary(model, (2, 1, 6, 6))["total_params"] > 0
