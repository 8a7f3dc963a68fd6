"""Paddle 3's further samplers (standard_normal, standard_gamma, poisson, binomial, log_normal,
randint_like), logspace and tolist, and the random in-place fills (exponential_, cauchy_,
geometric_, log_normal_, normal_ / uniform_ as functions): moments of 20k draws, seeding,
dtypes and shapes, no gradient, and the errors for bad arguments."""
from __future__ import annotations

import numpy as np
import pytest

import core
from tests.gradcheck import check_grad

N = 20000


def _moments(t) -> tuple[float, float]:
    a = t.numpy().astype(np.float64)
    return a.mean(), a.var()


# ----- samplers that return a new tensor ---------------------------------------------------------

def test_standard_normal_moments_shape_dtype_and_seed():
    core.seed(3)
    out = core.standard_normal([N])
    mean, var = _moments(out)
    assert out.dtype == np.float32 and out.shape == [N] and out.stop_gradient
    assert abs(mean) < 0.03 and abs(var - 1) < 0.04
    core.seed(3)
    np.testing.assert_array_equal(core.standard_normal([N]).numpy(), out.numpy())
    assert core.standard_normal((2, 3), dtype="float64").dtype == np.float64


def test_standard_normal_rejects_integer_dtype():
    with pytest.raises(TypeError, match="standard_normal: dtype int64 is not allowed"):
        core.standard_normal([2], dtype="int64")


@pytest.mark.parametrize("rate", [0.5, 4.0])
def test_poisson_moments_keep_shape_and_dtype(rate):
    core.seed(1)
    x = core.full([N], rate, dtype="float64")
    out = core.poisson(x)
    mean, var = _moments(out)
    assert out.dtype == np.float64 and out.shape == [N] and out.stop_gradient
    assert abs(mean - rate) < 0.05 * rate + 0.02 and abs(var - rate) < 0.1 * rate + 0.02
    assert np.all(out.numpy() == np.round(out.numpy()))


def test_poisson_records_no_gradient_and_repeats_with_seed():
    x = core.to_tensor(np.full((4, 5), 3.0, np.float32), stop_gradient=False)
    core.seed(9)
    first = core.poisson(x)
    core.seed(9)
    assert first.stop_gradient and first.dtype == np.float32
    np.testing.assert_array_equal(core.poisson(x).numpy(), first.numpy())


def test_poisson_bad_arguments():
    with pytest.raises(TypeError, match="poisson: 'x' must be a Tensor"):
        core.poisson([1.0])
    with pytest.raises(TypeError, match="poisson: x must be a float tensor of rates"):
        core.poisson(core.to_tensor([1, 2]))
    with pytest.raises(ValueError, match="poisson: every rate in x must be >= 0"):
        core.poisson(core.to_tensor([1.0, -1.0]))


@pytest.mark.parametrize("alpha", [0.5, 3.0])
def test_standard_gamma_moments(alpha):
    core.seed(2)
    out = core.standard_gamma(core.full([N], alpha, dtype="float64"))
    mean, var = _moments(out)
    assert out.shape == [N] and out.dtype == np.float64 and out.stop_gradient
    assert abs(mean - alpha) < 0.04 * alpha + 0.01 and abs(var - alpha) < 0.1 * alpha
    assert (out.numpy() >= 0).all()


def test_standard_gamma_bad_arguments():
    with pytest.raises(ValueError, match="standard_gamma: every shape parameter in x must be"):
        core.standard_gamma(core.to_tensor([-0.5]))
    with pytest.raises(ValueError, match="standard_gamma: every value in x must be finite"):
        core.standard_gamma(core.to_tensor([np.inf]))


def test_binomial_moments_broadcast_and_int64():
    core.seed(4)
    count = core.to_tensor(np.full((N, 1), 10, np.int64))
    prob = core.to_tensor([0.2, 0.7])
    out = core.binomial(count, prob)
    assert out.shape == [N, 2] and out.dtype == np.int64 and out.stop_gradient
    a = out.numpy().astype(np.float64)
    for col, p in enumerate((0.2, 0.7)):
        assert abs(a[:, col].mean() - 10 * p) < 0.06
        assert abs(a[:, col].var() - 10 * p * (1 - p)) < 0.12
    # Paddle's own example passes float counts
    assert core.binomial(core.to_tensor([10.0, 50.0]), core.to_tensor([0.0, 1.0])).tolist() \
        == [0, 50]


def test_binomial_bad_arguments():
    with pytest.raises(TypeError, match="binomial: count must be a Tensor"):
        core.binomial(5, core.to_tensor([0.5]))
    with pytest.raises(ValueError, match="binomial: every value in count must be a whole"):
        core.binomial(core.to_tensor([1.5]), core.to_tensor([0.5]))
    with pytest.raises(ValueError, match=r"binomial: every probability in prob must be in"):
        core.binomial(core.to_tensor([3]), core.to_tensor([1.5]))
    with pytest.raises(TypeError, match="binomial: prob must be a float tensor"):
        core.binomial(core.to_tensor([3]), core.to_tensor([1]))
    with pytest.raises(ValueError, match="do not broadcast together"):
        core.binomial(core.to_tensor([3, 4, 5]), core.to_tensor([0.5, 0.5]))


def test_log_normal_moments_and_defaults():
    core.seed(5)
    out = core.log_normal(0.0, 0.5, shape=[N])
    assert out.dtype == np.float32 and out.stop_gradient and (out.numpy() > 0).all()
    logs = np.log(out.numpy().astype(np.float64))
    assert abs(logs.mean()) < 0.02 and abs(logs.std() - 0.5) < 0.02
    default = np.log(core.log_normal(shape=[N]).numpy().astype(np.float64))
    assert abs(default.mean() - 1.0) < 0.06 and abs(default.std() - 2.0) < 0.06


def test_log_normal_with_tensor_mean_takes_its_shape_and_is_differentiable():
    mean = core.to_tensor(np.zeros((3, 2)), stop_gradient=False)
    out = core.log_normal(mean, 0.0)
    assert out.shape == [3, 2] and out.dtype == np.float64 and not out.stop_gradient
    np.testing.assert_allclose(out.numpy(), 1.0)
    check_grad(lambda m: core.log_normal(m, 0.0), np.linspace(-1, 1, 6).reshape(3, 2))


def test_log_normal_bad_arguments():
    with pytest.raises(ValueError, match="log_normal: give shape"):
        core.log_normal(1.0, 2.0)
    with pytest.raises(ValueError, match="log_normal: std must be >= 0"):
        core.log_normal(1.0, -2.0, shape=[2])


def test_randint_like_range_shape_dtype():
    core.seed(6)
    x = core.zeros([N // 10, 10], dtype="float64")
    out = core.randint_like(x, -5, 5)
    a = out.numpy()
    assert out.shape == [N // 10, 10] and out.dtype == np.float64 and out.stop_gradient
    assert a.min() == -5 and a.max() == 4 and np.all(a == np.round(a))
    assert abs(a.mean() + 0.5) < 0.1
    only_high = core.randint_like(core.zeros([100], dtype="int32"), 3, dtype="int64")
    assert only_high.dtype == np.int64 and set(only_high.tolist()) <= {0, 1, 2}
    core.seed(6)
    np.testing.assert_array_equal(core.randint_like(x, -5, 5).numpy(), a)


def test_randint_like_bad_arguments():
    with pytest.raises(ValueError, match=r"randint_like: low \(3\) must be less than high"):
        core.randint_like(core.zeros([2]), 3, 3)
    with pytest.raises(TypeError, match="randint_like: low and high must be ints"):
        core.randint_like(core.zeros([2]), 0.5, 3)
    with pytest.raises(TypeError, match="randint_like: 'x' must be a Tensor"):
        core.randint_like([0, 0], 3)


def test_logspace_against_numpy_and_torch():
    np.testing.assert_allclose(core.logspace(0, 3, 4).numpy(), [1, 10, 100, 1000])
    out = core.logspace(-1.0, 2.0, 7, base=2.0, dtype="float64")
    np.testing.assert_allclose(out.numpy(), np.logspace(-1, 2, 7, base=2.0))
    assert core.logspace(0, 1, 5).dtype == np.float32
    assert core.logspace(0, 2, 3, dtype="int64").tolist() == [1, 10, 100]
    torch = pytest.importorskip("torch")
    np.testing.assert_allclose(core.logspace(0.5, 1.5, 6, base=3.0).numpy(),
                               torch.logspace(0.5, 1.5, 6, base=3.0).numpy(), rtol=1e-6)


def test_logspace_bad_arguments():
    with pytest.raises(ValueError, match="logspace: num must be an int >= 0"):
        core.logspace(0, 1, -1)
    with pytest.raises(TypeError, match="logspace: base must be a number"):
        core.logspace(0, 1, 3, base="e")


def test_tolist():
    assert core.tolist(core.to_tensor([[1, 2], [3, 4]])) == [[1, 2], [3, 4]]
    assert core.tolist(core.to_tensor(2.5)) == 2.5
    with pytest.raises(TypeError, match="tolist: 'x' must be a Tensor"):
        core.tolist([1])


# ----- in-place random fills -----------------------------------------------------------------

def test_exponential_fill_moments_and_seed():
    x = core.empty([N], dtype="float64")
    core.seed(7)
    assert x.exponential_(2.0) is x
    mean, var = _moments(x)
    assert abs(mean - 0.5) < 0.015 and abs(var - 0.25) < 0.02 and (x.numpy() >= 0).all()
    first = x.numpy().copy()
    core.seed(7)
    np.testing.assert_array_equal(core.exponential_(x, 2.0).numpy(), first)


def test_cauchy_fill_quartiles():
    x = core.zeros([N], dtype="float64")
    core.seed(8)
    core.cauchy_(x, loc=1.0, scale=2.0)
    q1, q2, q3 = np.percentile(x.numpy(), [25, 50, 75])
    assert abs(q2 - 1.0) < 0.1 and abs(q1 + 1.0) < 0.15 and abs(q3 - 3.0) < 0.15


@pytest.mark.parametrize("p", [0.3, 0.8])
def test_geometric_fill_follows_paddles_formula(p):
    """Paddle fills with log(u) / log(1 - p), not rounded: exponential with mean
    -1 / log(1 - p); its floor is geometric on {0, 1, ...} with mean (1 - p) / p."""
    x = core.zeros([N], dtype="float64")
    core.seed(10)
    x.geometric_(p)
    a = x.numpy()
    rate = -np.log1p(-p)
    assert (a >= 0).all() and abs(a.mean() - 1 / rate) < 0.04 / rate
    assert abs(np.floor(a).mean() - (1 - p) / p) < 0.05 * (1 - p) / p + 0.01


def test_geometric_fill_with_tensor_probs():
    x = core.zeros([N // 2, 2], dtype="float32")
    core.seed(12)
    x.geometric_(core.to_tensor([0.2, 0.9]))
    means = x.numpy().mean(axis=0)
    np.testing.assert_allclose(means, -1 / np.log1p(-np.array([0.2, 0.9])), rtol=0.05)


def test_log_normal_fill():
    x = core.zeros([N], dtype="float64")
    core.seed(11)
    core.log_normal_(x, mean=0.5, std=0.25)
    logs = np.log(x.numpy())
    assert abs(logs.mean() - 0.5) < 0.01 and abs(logs.std() - 0.25) < 0.01


def test_normal_and_uniform_fills_as_functions():
    x = core.zeros([N], dtype="float64")
    core.seed(13)
    assert core.normal_(x, 1.0, 3.0) is x
    assert abs(x.numpy().mean() - 1) < 0.1 and abs(x.numpy().std() - 3) < 0.1
    core.uniform_(x, 2.0, 4.0)
    assert x.numpy().min() >= 2 and x.numpy().max() < 4


@pytest.mark.parametrize("fill", [
    lambda t: t.exponential_(), lambda t: t.cauchy_(), lambda t: t.geometric_(0.5),
    lambda t: t.log_normal_()])
def test_random_fills_refuse_a_leaf_that_needs_a_gradient(fill):
    leaf = core.to_tensor(np.zeros(3, np.float32), stop_gradient=False)
    with pytest.raises(ValueError, match="needs a gradient"):
        fill(leaf)
    with core.no_grad():
        fill(leaf)  # allowed: not to be differentiated
    assert leaf.dtype == np.float32 and leaf.shape == [3]


@pytest.mark.parametrize("fill, message", [
    (lambda t: t.exponential_(0.0), "exponential_: lam must be a number > 0"),
    (lambda t: t.cauchy_(scale=-1), "cauchy_: scale must be a number > 0"),
    (lambda t: t.cauchy_(loc="a"), "cauchy_: loc must be a number"),
    (lambda t: t.geometric_(0.0), r"geometric_: probs must be in \(0, 1\]"),
    (lambda t: t.geometric_(core.to_tensor([0.5, 0.5])), "does not broadcast"),
    (lambda t: t.geometric_("p"), "geometric_: probs must be a number or a Tensor"),
    (lambda t: t.log_normal_(std=-1.0), "log_normal_: std must be >= 0"),
])
def test_random_fills_bad_arguments(fill, message):
    with pytest.raises((ValueError, TypeError), match=message):
        fill(core.zeros([3]))


def test_random_fills_need_a_float_tensor():
    with pytest.raises(TypeError, match="exponential_: random values need a float tensor"):
        core.zeros([2], dtype="int64").exponential_()
