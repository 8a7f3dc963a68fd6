"""core.distribution's continuous distributions against torch.distributions and numpy formulas:
log_prob, entropy, mean, variance, sample statistics and shapes, and float64 gradient checks."""
from __future__ import annotations

import math

import numpy as np
import pytest
from gradcheck import check_grad

import core
from core import distribution as D

LOC = np.array([[-1.0, 0.5, 2.0], [0.0, 1.5, -0.3]])
SCALE = np.array([0.5, 1.0, 2.5])
POS_A = np.array([[0.7, 1.5, 3.0], [2.0, 0.4, 5.0]])
POS_B = np.array([1.2, 0.6, 2.5])
VALUE = np.array([[-0.4, 0.9, 1.1], [2.0, 0.2, -1.5]])
UNIT = np.array([[0.2, 0.5, 0.9], [0.05, 0.7, 0.35]])

# name: (core class, torch class name, parameters, a value in the support)
CASES = {
    "Normal": (D.Normal, "Normal", (LOC, SCALE), VALUE),
    "LogNormal": (D.LogNormal, "LogNormal", (LOC * 0.3, SCALE * 0.3), np.abs(VALUE) + 0.1),
    "Laplace": (D.Laplace, "Laplace", (LOC, SCALE), VALUE),
    "Gumbel": (D.Gumbel, "Gumbel", (LOC, SCALE), VALUE),
    "Exponential": (D.Exponential, "Exponential", (POS_A,), np.abs(VALUE)),
    "Gamma": (D.Gamma, "Gamma", (POS_A, POS_B), np.abs(VALUE) + 0.1),
    "Beta": (D.Beta, "Beta", (POS_A, POS_B), UNIT),
    "Uniform": (D.Uniform, "Uniform", (LOC, LOC + 3 * SCALE), LOC + SCALE),
}


def _core(name, dtype="float64"):
    cls, _, args, _ = CASES[name]
    return cls(*(core.to_tensor(a.astype(dtype)) for a in args))


def _torch(name):
    torch = pytest.importorskip("torch")
    _, torch_name, args, _ = CASES[name]
    return getattr(torch.distributions, torch_name)(*(torch.tensor(a) for a in args))


@pytest.mark.parametrize("name", sorted(CASES))
def test_log_prob_entropy_mean_variance_match_torch(name):
    torch = pytest.importorskip("torch")
    dist, ref = _core(name), _torch(name)
    value = CASES[name][3]
    np.testing.assert_allclose(dist.log_prob(core.to_tensor(value)).numpy(),
                               ref.log_prob(torch.tensor(value)).numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(dist.prob(core.to_tensor(value)).numpy(),
                               ref.log_prob(torch.tensor(value)).exp().numpy(), rtol=1e-10)
    np.testing.assert_allclose(dist.entropy().numpy(), ref.entropy().numpy(), rtol=1e-10)
    np.testing.assert_allclose(dist.mean.numpy(), ref.mean.numpy(), rtol=1e-10)
    np.testing.assert_allclose(dist.variance.numpy(), ref.variance.numpy(), rtol=1e-10)
    assert dist.batch_shape == (2, 3) and dist.event_shape == ()


def test_normal_log_prob_and_entropy_follow_the_formulas():
    dist = D.Normal(LOC, SCALE)
    expected = (-(VALUE - LOC) ** 2 / (2 * SCALE ** 2) - np.log(SCALE)
                - 0.5 * math.log(2 * math.pi))
    np.testing.assert_allclose(dist.log_prob(VALUE).numpy(), expected, rtol=1e-10)
    np.testing.assert_allclose(dist.entropy().numpy(),
                               np.broadcast_to(0.5 + 0.5 * math.log(2 * math.pi)
                                               + np.log(SCALE), (2, 3)), rtol=1e-10)
    np.testing.assert_allclose(dist.probs(VALUE).numpy(), np.exp(expected), rtol=1e-10)


def test_parameters_take_the_default_dtype_unless_float64_is_given():
    assert D.Normal(0.0, 1.0).loc.dtype == np.float32
    assert D.Normal([0.0, 1.0], 1.0).scale.dtype == np.float32
    assert D.Normal(np.zeros(2), 1.0).scale.dtype == np.float64
    assert D.Normal(core.to_tensor([0.0], dtype="float32"), np.ones(1)).loc.dtype == np.float64
    assert D.Normal(0.0, 1.0).sample([2]).dtype == np.float32
    assert D.Normal(0.0, 1.0).batch_shape == ()
    core.set_default_dtype("float64")
    try:
        assert D.Gamma(1.0, 2.0).rate.dtype == np.float64
    finally:
        core.set_default_dtype("float32")


def test_parameters_broadcast_and_keep_their_gradient_path():
    loc = core.to_tensor(np.zeros((2, 1)), stop_gradient=False)
    dist = D.Normal(loc, [1.0, 2.0, 3.0])
    assert dist.batch_shape == (2, 3)
    dist.log_prob(np.ones((2, 3))).sum().backward()
    np.testing.assert_allclose(loc.gradient(), np.full((2, 1), 1 + 1 / 4 + 1 / 9))


@pytest.mark.parametrize("name", sorted(CASES))
def test_sample_shapes_are_sample_plus_batch(name):
    dist = _core(name, "float32")
    assert dist.sample().shape == [2, 3]
    assert dist.sample([4]).shape == [4, 2, 3]
    assert dist.sample((5, 1)).shape == [5, 1, 2, 3]
    assert dist.sample(7).shape == [7, 2, 3]
    assert dist.sample([4]).dtype == np.float32
    assert dist.sample([4]).stop_gradient


@pytest.mark.parametrize("name", sorted(CASES))
def test_sample_statistics_match_mean_and_variance(name):
    core.seed(123)
    dist = _core(name)
    draws = dist.sample([20000]).numpy()
    mean, var = dist.mean.numpy(), dist.variance.numpy()
    assert (np.abs(draws.mean(0) - mean) <= 5 * np.sqrt(var / 20000)).all()  # 5 std errors
    np.testing.assert_allclose(draws.var(0), var, rtol=0.15)


@pytest.mark.parametrize("name", sorted(CASES))
def test_seed_repeats_samples(name):
    dist = _core(name, "float32")
    core.seed(7)
    first = dist.sample([3]).numpy()
    core.seed(7)
    np.testing.assert_array_equal(dist.sample([3]).numpy(), first)


@pytest.mark.parametrize("name", sorted(CASES))
def test_log_prob_gradient(name):
    cls, _, args, value = CASES[name]
    wrt = [1, 2] if name == "Uniform" else None  # piecewise constant in the value
    check_grad(lambda v, *a: cls(*a).log_prob(v), value, *args, wrt=wrt)


@pytest.mark.parametrize("name", sorted(CASES))
def test_entropy_gradient(name):
    cls, _, args, _ = CASES[name]
    wrt = [1] if name in ("Normal", "Laplace", "Gumbel") else None  # not a function of loc
    check_grad(lambda *a: cls(*a).entropy(), *args, wrt=wrt)


RSAMPLED = ["Normal", "LogNormal", "Laplace", "Gumbel", "Exponential", "Uniform"]


@pytest.mark.parametrize("name", RSAMPLED)
def test_rsample_gradient_with_a_fixed_seed(name):
    cls, _, args, _ = CASES[name]

    def draw(*a):
        core.seed(3)
        return cls(*a).rsample([4])

    check_grad(draw, *args, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", RSAMPLED)
def test_rsample_is_sample_with_a_gradient(name):
    dist = _core(name)
    core.seed(11)
    plain = dist.sample([3]).numpy()
    core.seed(11)
    np.testing.assert_allclose(dist.rsample([3]).numpy(), plain)


@pytest.mark.parametrize("name", ["Gamma", "Beta"])
def test_rsample_without_reparameterisation_says_so(name):
    with pytest.raises(NotImplementedError, match=f"{name} does not implement rsample"):
        _core(name).rsample([2])


def test_uniform_log_prob_is_minus_inf_outside_the_support():
    dist = D.Uniform(0.0, 2.0)
    out = dist.log_prob(core.to_tensor([-1.0, 0.0, 1.0, 2.0, 3.0])).numpy()
    np.testing.assert_allclose(out, [-np.inf, -np.inf, -math.log(2), -np.inf, -np.inf])
    batched = D.Uniform([0.0, 1.0], 3.0).log_prob(np.full((4, 2), 0.5))
    assert batched.shape == [4, 2]
    assert np.isinf(batched.numpy()[:, 1]).all()


def test_dirichlet_against_torch_and_formulas():
    torch = pytest.importorskip("torch")
    conc = np.array([[0.5, 1.0, 3.0], [2.0, 2.0, 0.8]])
    value = np.array([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]])
    dist, ref = D.Dirichlet(conc), torch.distributions.Dirichlet(torch.tensor(conc))
    assert dist.batch_shape == (2,) and dist.event_shape == (3,)
    np.testing.assert_allclose(dist.log_prob(value).numpy(),
                               ref.log_prob(torch.tensor(value)).numpy(), rtol=1e-10)
    np.testing.assert_allclose(dist.entropy().numpy(), ref.entropy().numpy(), rtol=1e-10)
    np.testing.assert_allclose(dist.mean.numpy(), ref.mean.numpy(), rtol=1e-12)
    np.testing.assert_allclose(dist.variance.numpy(), ref.variance.numpy(), rtol=1e-12)
    core.seed(5)
    draws = dist.sample([20000]).numpy()
    assert draws.shape == (20000, 2, 3)
    np.testing.assert_allclose(draws.sum(-1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(draws.mean(0), dist.mean.numpy(), atol=0.01)
    np.testing.assert_allclose(draws.var(0), dist.variance.numpy(), rtol=0.1)
    check_grad(lambda v, c: D.Dirichlet(c).log_prob(v), value, conc)
    check_grad(lambda c: D.Dirichlet(c).entropy(), conc)


def test_beta_matches_the_two_category_dirichlet():
    a, b, x = np.array([0.7, 3.0]), np.array([1.5, 0.4]), np.array([0.3, 0.8])
    beta = D.Beta(a, b)
    dirichlet = D.Dirichlet(np.stack([a, b], -1))
    np.testing.assert_allclose(beta.log_prob(x).numpy(),
                               dirichlet.log_prob(np.stack([x, 1 - x], -1)).numpy(), rtol=1e-12)
    np.testing.assert_allclose(beta.entropy().numpy(), dirichlet.entropy().numpy(), rtol=1e-12)


def test_bad_arguments_name_the_argument():
    with pytest.raises(TypeError, match="Normal: 'scale' must be a float, a list, a numpy "
                                        "array or a Tensor, got str"):
        D.Normal(0.0, "1")
    with pytest.raises(ValueError, match=r"Normal: the parameters' shapes do not broadcast "
                                         r"together: loc \[2\], scale \[3\]"):
        D.Normal([0.0, 1.0], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="Gamma: 'rate' must be positive, got min -1.0"):
        D.Gamma(1.0, -1.0)
    with pytest.raises(ValueError, match="Gamma: 'concentration' must be positive"):
        D.Gamma([0.0, 1.0], 1.0)
    with pytest.raises(ValueError, match="Exponential: 'rate' must be positive"):
        D.Exponential(0.0)
    with pytest.raises(ValueError, match="Dirichlet: 'concentration' must be at least 1-D"):
        D.Dirichlet(1.0)
    with pytest.raises(TypeError, match="Normal.log_prob: 'value' must be a number"):
        D.Normal(0.0, 1.0).log_prob("x")
    with pytest.raises(TypeError, match="Normal.rsample: 'shape' must be a sequence of "
                                        "non-negative ints"):
        D.Normal(0.0, 1.0).rsample([2.5])


def test_base_distribution_shapes_and_missing_methods():
    dist = D.Distribution(batch_shape=[2], event_shape=(3,))
    assert dist.batch_shape == (2,) and dist.event_shape == (3,)
    for call in (lambda: dist.mean, lambda: dist.variance, lambda: dist.sample(),
                 lambda: dist.rsample(), lambda: dist.entropy(), lambda: dist.log_prob(0.0),
                 lambda: dist.prob(0.0)):
        with pytest.raises(NotImplementedError, match="Distribution does not implement"):
            call()
    with pytest.raises(TypeError, match="'batch_shape' must be a sequence of non-negative"):
        D.Distribution(batch_shape=[-1])


def test_distribution_is_a_lazy_attribute_of_core():
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    code = ("import sys, core; assert 'core.distribution' not in sys.modules; "
            "assert core.distribution.Normal is not None")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
