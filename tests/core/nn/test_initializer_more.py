"""core.nn.initializer beyond the basic seven: TruncatedNormal, Orthogonal, Assign, Dirac,
Bilinear, calculate_gain and set_global_initializer (Paddle 2.6 / 3.x names)."""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

import core
from core import backend, nn
from core.nn import functional as F
from core.nn import initializer as I
from runner import build
from runner.config import validation


def _draw(init, shape, dtype=None):
    """``init(shape, dtype)`` on the host: the array is the current device's (cupy on a GPU),
    as for every initializer; the tests do numpy math on it."""
    return backend.to_numpy(init(shape, dtype))


def _attr(init):
    """A ParamAttr-like object carrying an initializer (what weight_attr reads)."""
    return SimpleNamespace(initializer=init)


@pytest.fixture
def restore_global():
    yield
    I.set_global_initializer(None)


def _truncated_moments(mean, std, a, b):
    """Mean and standard deviation of Normal(mean, std) truncated to [a, b] (closed form)."""
    alpha, beta = (a - mean) / std, (b - mean) / std
    pdf = [math.exp(-z * z / 2) / math.sqrt(2 * math.pi) for z in (alpha, beta)]
    cdf = [0.5 * (1 + math.erf(z / math.sqrt(2))) for z in (alpha, beta)]
    z = cdf[1] - cdf[0]
    shift = (pdf[0] - pdf[1]) / z
    var = 1 + (alpha * pdf[0] - beta * pdf[1]) / z - shift ** 2
    return mean + std * shift, std * math.sqrt(var)


# ----- TruncatedNormal ----------------------------------------------------------------------

@pytest.mark.parametrize("mean, std, a, b", [
    (0.0, 1.0, -2.0, 2.0),      # the defaults: Paddle 2.6 and 3.x agree
    (0.5, 0.02, 0.47, 0.6),     # absolute cut-offs, one of them inside a std
    (0.0, 1.0, 3.0, 4.0),       # far in the upper tail: the inverse-CDF path
    (1.0, 2.0, -30.0, -5.0),    # the lower tail
])
def test_truncated_normal_statistics_and_exact_bounds(mean, std, a, b):
    core.seed(0)
    values = _draw(I.TruncatedNormal(mean, std, a, b), (400, 500), "float64")
    assert values.shape == (400, 500) and values.dtype == np.float64
    assert values.min() >= a and values.max() <= b
    expected_mean, expected_std = _truncated_moments(mean, std, a, b)
    assert values.mean() == pytest.approx(expected_mean, abs=5e-3 * expected_std)
    assert values.std() == pytest.approx(expected_std, rel=5e-3)


def test_truncated_normal_matches_torch_trunc_normal_statistics():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    theirs = torch.nn.init.trunc_normal_(torch.empty(200_000, dtype=torch.float64),
                                         mean=0.1, std=0.5, a=-0.3, b=1.2).numpy()
    core.seed(0)
    ours = _draw(I.TruncatedNormal(mean=0.1, std=0.5, a=-0.3, b=1.2), (200_000,), "float64")
    assert ours.mean() == pytest.approx(theirs.mean(), abs=5e-3)
    assert ours.std() == pytest.approx(theirs.std(), rel=1e-2)
    assert ours.dtype == np.float64 and ours.min() >= -0.3 and ours.max() <= 1.2


def test_truncated_normal_defaults_and_seed_repeat():
    init = I.TruncatedNormal()
    assert (init.mean, init.std, init.a, init.b) == (0.0, 1.0, -2.0, 2.0)
    core.seed(5)
    first = _draw(init, (7, 3))
    core.seed(5)
    np.testing.assert_array_equal(_draw(init, (7, 3)), first)
    assert first.dtype == np.float32
    core.seed(1)
    layer = nn.Linear(50, 40, weight_attr=_attr(I.TruncatedNormal(std=0.02)))
    assert np.abs(layer.weight.numpy()).max() < 5 * 0.02  # a = -2, b = 2 are absolute


@pytest.mark.parametrize("kwargs, message", [
    ({"std": 0.0}, "std must be a finite number > 0"),
    ({"std": -1.0}, "std"),
    ({"mean": float("nan")}, "mean"),
    ({"a": 1.0, "b": 1.0}, "a must be < b"),
    ({"b": "2"}, "b must be a finite number"),
    ({"a": 50.0, "b": 60.0}, "holds no probability mass"),
])
def test_truncated_normal_names_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        I.TruncatedNormal(**kwargs)


# ----- Orthogonal ---------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(10, 15), (15, 10), (8, 8), (4, 2, 3, 3), (6, 2, 1)])
def test_orthogonal_is_orthogonal(shape):
    core.seed(0)
    w = _draw(I.Orthogonal(), shape, "float64")
    assert w.shape == shape
    flat = w.reshape(shape[0], -1)
    rows, cols = flat.shape
    gram = flat @ flat.T if rows <= cols else flat.T @ flat
    np.testing.assert_allclose(gram, np.eye(min(rows, cols)), atol=1e-5)


def test_orthogonal_gain_float32_and_linear_layout():
    core.seed(1)
    w = _draw(I.Orthogonal(gain=I.calculate_gain("relu")), (6, 9))
    assert w.dtype == np.float32
    np.testing.assert_allclose(w @ w.T, 2.0 * np.eye(6), atol=1e-5)
    layer = nn.Linear(10, 15, weight_attr=_attr(I.Orthogonal()))  # weight [10, 15]
    weight = layer.weight.numpy()
    np.testing.assert_allclose(weight @ weight.T, np.eye(10), atol=1e-5)


def test_orthogonal_matches_torch_statistically():
    """Both are Haar-distributed: the mean |entry| of a square orthogonal matrix agrees."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    theirs = torch.nn.init.orthogonal_(torch.empty(300, 300, dtype=torch.float64)).numpy()
    core.seed(0)
    ours = _draw(I.Orthogonal(), (300, 300), "float64")
    assert np.abs(ours).mean() == pytest.approx(np.abs(theirs).mean(), rel=1e-2)


def test_orthogonal_names_bad_arguments():
    with pytest.raises(ValueError, match="2 or more dimensions"):
        I.Orthogonal()((5,))
    with pytest.raises(ValueError, match="gain"):
        I.Orthogonal(gain=float("inf"))


# ----- Assign -------------------------------------------------------------------------------

def test_assign_copies_values_and_casts():
    source = np.arange(6, dtype=np.float64).reshape(2, 3)
    init = I.Assign(source)
    out = _draw(init, (2, 3))
    np.testing.assert_array_equal(out, source)
    assert out.dtype == np.float32
    source[0, 0] = 99  # a copy was taken
    assert _draw(init, (2, 3))[0, 0] == 0
    np.testing.assert_array_equal(_draw(I.Assign([[1, 2], [3, 4]]), (2, 2), "float64"),
                                  [[1, 2], [3, 4]])
    np.testing.assert_array_equal(_draw(I.Assign(core.to_tensor(np.ones(3))), (3,)), np.ones(3))
    np.testing.assert_array_equal(_draw(I.Assign(0.5), (2, 2)), np.full((2, 2), 0.5))
    layer = nn.Linear(2, 3, weight_attr=_attr(I.Assign(np.full((2, 3), 7.0))))
    np.testing.assert_array_equal(layer.weight.numpy(), np.full((2, 3), 7.0))


def test_assign_names_bad_arguments():
    with pytest.raises(ValueError, match=r"value has shape \[2, 3\] but the parameter has shape"):
        I.Assign(np.zeros((2, 3)))((3, 2))
    with pytest.raises(TypeError, match="value must hold numbers"):
        I.Assign(["a", "b"])


# ----- Dirac --------------------------------------------------------------------------------

def test_dirac_conv_is_the_identity():
    x = np.random.default_rng(0).standard_normal((2, 3, 6, 7)).astype(np.float32)
    conv = nn.Conv2D(3, 3, 3, padding=1, weight_attr=_attr(I.Dirac()), bias_attr=False)
    np.testing.assert_allclose(conv(x).numpy(), x, rtol=1e-6, atol=1e-6)
    # Paddle's documented example: Conv1D(3, 2, 3) keeps the first 2 channels, cropped
    seq = np.random.default_rng(1).standard_normal((8, 3, 10)).astype(np.float32)
    conv1d = nn.Conv1D(3, 2, 3, weight_attr=_attr(I.Dirac()), bias_attr=False)
    np.testing.assert_allclose(conv1d(seq).numpy(), seq[:, 0:2, 1:9], rtol=1e-6, atol=1e-6)
    # an even kernel: the 1 sits at k // 2, as Paddle's example shows
    np.testing.assert_array_equal(_draw(I.Dirac(), (2, 3, 4))[0], [[0, 0, 1, 0], [0, 0, 0, 0],
                                                                  [0, 0, 0, 0]])


@pytest.mark.parametrize("shape, groups", [((4, 2, 3, 3), 2), ((6, 4, 3), 3), ((2, 3, 1, 3, 3), 1)])
def test_dirac_matches_torch(shape, groups):
    torch = pytest.importorskip("torch")
    expected = torch.nn.init.dirac_(torch.empty(*shape), groups=groups).numpy()
    np.testing.assert_array_equal(_draw(I.Dirac(groups), shape), expected)


def test_dirac_grouped_conv_is_the_identity():
    x = np.random.default_rng(2).standard_normal((1, 4, 5, 5)).astype(np.float32)
    conv = nn.Conv2D(4, 4, 3, padding=1, groups=2, weight_attr=_attr(I.Dirac(groups=2)),
                     bias_attr=False)
    np.testing.assert_allclose(conv(x).numpy(), x, rtol=1e-6, atol=1e-6)


def test_dirac_names_bad_arguments():
    with pytest.raises(ValueError, match="groups must be a positive integer"):
        I.Dirac(groups=0)
    with pytest.raises(ValueError, match="groups"):
        I.Dirac(groups=1.5)
    with pytest.raises(ValueError, match="3, 4 or 5 dimensions"):
        I.Dirac()((3, 3))
    with pytest.raises(ValueError, match="not divisible by groups=2"):
        I.Dirac(groups=2)((3, 3, 3))


# ----- Bilinear -----------------------------------------------------------------------------

@pytest.mark.parametrize("size", [1, 2, 3, 4, 5, 6])
def test_bilinear_kernel_follows_paddles_formula(size):
    shape = (2, 3, size, size)
    w = _draw(I.Bilinear(), shape, "float64")
    f = math.ceil(size / 2.0)
    c = (2 * f - 1 - f % 2) / (2.0 * f)
    expected = np.zeros(math.prod(shape))
    for i in range(expected.size):  # Paddle's loop, with the row as an integer index
        x, y = i % size, (i // size) % size
        expected[i] = (1 - abs(x / f - c)) * (1 - abs(y / f - c))
    np.testing.assert_allclose(w, expected.reshape(shape), rtol=1e-12)


def test_bilinear_kernel_upsamples_like_bilinear_interpolation():
    factor, channels = 2, 3
    conv_up = nn.Conv2DTranspose(channels, channels, kernel_size=2 * factor - factor % 2,
                                 padding=math.ceil((factor - 1) / 2), stride=factor,
                                 groups=channels, weight_attr=_attr(I.Bilinear()),
                                 bias_attr=False)
    x = np.random.default_rng(3).standard_normal((2, channels, 5, 6)).astype(np.float32)
    up = conv_up(x).numpy()
    assert up.shape == (2, channels, 10, 12)
    expected = F.interpolate(core.to_tensor(x), scale_factor=factor, mode="bilinear").numpy()
    # equal away from the border, where the transposed conv sees zeros beyond the image
    np.testing.assert_allclose(up[..., 1:-1, 1:-1], expected[..., 1:-1, 1:-1], rtol=1e-5,
                               atol=1e-6)


def test_bilinear_names_bad_shapes():
    with pytest.raises(ValueError, match="4-D with a square kernel"):
        I.Bilinear()((2, 2, 3, 4))
    with pytest.raises(ValueError, match="4-D"):
        I.Bilinear()((2, 3, 3))


# ----- calculate_gain -----------------------------------------------------------------------

@pytest.mark.parametrize("nonlinearity, param", [
    ("sigmoid", None), ("linear", None), ("conv1d", None), ("conv2d", None), ("conv3d", None),
    ("tanh", None), ("relu", None), ("leaky_relu", None), ("leaky_relu", 0.2), ("selu", None)])
def test_calculate_gain_matches_torch(nonlinearity, param):
    torch = pytest.importorskip("torch")
    assert I.calculate_gain(nonlinearity, param) == pytest.approx(
        torch.nn.init.calculate_gain(nonlinearity, param))


def test_calculate_gain_paddles_own_names_and_errors():
    for name in ("conv1d_transpose", "conv2d_transpose", "conv3d_transpose"):
        assert I.calculate_gain(name) == 1.0  # PyTorch spells these conv_transpose1d, ...
    assert I.calculate_gain("leaky_relu") == pytest.approx(math.sqrt(2 / (1 + 0.01 ** 2)))
    with pytest.raises(ValueError, match="nonlinearity='gelu' is not supported"):
        I.calculate_gain("gelu")
    with pytest.raises(ValueError, match="param must be a finite number"):
        I.calculate_gain("leaky_relu", "0.1")


# ----- set_global_initializer ---------------------------------------------------------------

def test_global_initializer_replaces_layer_defaults_not_attributes(restore_global):
    I.set_global_initializer(I.Constant(0.5), I.Constant(-1.0))
    linear, conv = nn.Linear(3, 4), nn.Conv2D(2, 3, 3)
    for layer in (linear, conv):
        assert np.all(layer.weight.numpy() == 0.5) and np.all(layer.bias.numpy() == -1.0)
    fixed = nn.Linear(3, 4, weight_attr=_attr(I.Constant(2.0)))  # the attribute wins
    assert np.all(fixed.weight.numpy() == 2.0) and np.all(fixed.bias.numpy() == -1.0)
    frozen = nn.SimpleRNNCell(3, 4, weight_ih_attr=False)  # Paddle: frozen ones, its own
    assert np.all(frozen.weight_ih.numpy() == 1.0) and np.all(frozen.weight_hh.numpy() == 0.5)

    I.set_global_initializer(I.Constant(0.25))  # bias_init None: biases keep their default
    assert np.all(nn.Linear(2, 2).bias.numpy() == 0.0)
    I.set_global_initializer(None)
    core.seed(0)
    weight = nn.Linear(30, 20).weight.numpy()
    limit = math.sqrt(6 / 50)  # Linear's own Xavier-uniform default again
    assert np.abs(weight).max() <= limit and weight.std() > limit / 3


def test_global_initializer_reaches_a_spec_built_network(restore_global):
    I.set_global_initializer(I.TruncatedNormal(std=0.01, a=-0.02, b=0.02), I.Constant(0.1))
    core.seed(0)
    spec = validation.group_option("model", {
        "name": "net", "blocks": {},
        "layers": {"conv": {"type": "Conv2D", "out_channels": 4, "kernel_size": 3},
                   "flat": {"type": "Flatten"}, "out": {"type": "Linear"}}})
    model = build.build_model(spec, (1, 6, 6), 3)
    for name, param in model.named_parameters():
        values = param.numpy()
        if name.endswith("bias"):
            np.testing.assert_allclose(values, 0.1)
        else:
            assert np.abs(values).max() <= 0.02 and values.std() > 0


def test_set_global_initializer_names_bad_arguments(restore_global):
    with pytest.raises(TypeError, match="weight_init must be an initializer"):
        I.set_global_initializer(0.5)
    with pytest.raises(TypeError, match="bias_init must be an initializer"):
        I.set_global_initializer(None, "zeros")
