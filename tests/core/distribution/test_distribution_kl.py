"""core.distribution.kl_divergence's closed forms against torch, their gradients, register_kl's
dispatch, Independent, and the private lgamma / digamma they are built on."""
from __future__ import annotations

import math
import sys

import numpy as np
import pytest
from gradcheck import check_grad

import core
from core import distribution as D

A = np.array([[0.7, 1.5, 3.0], [2.0, 0.4, 5.0]])
B = np.array([1.2, 0.6, 2.5])
LOC = np.array([[-1.0, 0.5, 2.0], [0.0, 1.5, -0.3]])

# name: (core class, torch class name, p's parameters, q's parameters)
PAIRS = {
    "Normal": (D.Normal, "Normal", (LOC, B), (LOC[::-1].copy(), A)),
    "LogNormal": (D.LogNormal, "LogNormal", (LOC, B), (LOC * 0.5, A)),
    "Laplace": (D.Laplace, "Laplace", (LOC, B), (LOC[::-1].copy(), A)),
    "Exponential": (D.Exponential, "Exponential", (A,), (B,)),
    "Gamma": (D.Gamma, "Gamma", (A, B), (B + 0.5, A)),
    "Beta": (D.Beta, "Beta", (A, B), (B + 0.3, A)),
    "Bernoulli": (D.Bernoulli, "Bernoulli", (A / 6,), (np.broadcast_to(B / 3, A.shape).copy(),)),
    "Uniform": (D.Uniform, "Uniform", (LOC, LOC + 1), (LOC - 0.5, LOC + 2)),
}


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_kl_matches_torch(name):
    torch = pytest.importorskip("torch")
    cls, torch_name, p_args, q_args = PAIRS[name]
    torch_cls = getattr(torch.distributions, torch_name)
    expected = torch.distributions.kl_divergence(
        torch_cls(*map(torch.tensor, p_args)), torch_cls(*map(torch.tensor, q_args))).numpy()
    got = D.kl_divergence(cls(*p_args), cls(*q_args))
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(cls(*p_args).kl_divergence(cls(*q_args)).numpy(), got.numpy())


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_kl_gradient(name):
    cls, _, p_args, q_args = PAIRS[name]
    n = len(p_args)
    check_grad(lambda *a: D.kl_divergence(cls(*a[:n]), cls(*a[n:])), *p_args, *q_args)


def test_kl_of_a_distribution_with_itself_is_zero():
    for cls, _, p_args, _ in PAIRS.values():
        np.testing.assert_allclose(D.kl_divergence(cls(*p_args), cls(*p_args)).numpy(), 0.0,
                                   atol=1e-12)


def test_uniform_kl_is_infinite_when_p_leaves_qs_support():
    kl = D.kl_divergence(D.Uniform([0.0, 0.0], [1.0, 1.0]), D.Uniform([0.5, -1.0], [2.0, 2.0]))
    assert np.isinf(kl.numpy()[0]) and np.isclose(kl.numpy()[1], math.log(3))


def test_dirichlet_kl_matches_torch_and_has_gradients():
    torch = pytest.importorskip("torch")
    p, q = np.array([[0.5, 1.0, 3.0], [2.0, 2.0, 0.8]]), np.array([[1.0, 1.0, 1.0], [0.3, 4, 2]])
    expected = torch.distributions.kl_divergence(torch.distributions.Dirichlet(torch.tensor(p)),
                                                 torch.distributions.Dirichlet(torch.tensor(q)))
    got = D.kl_divergence(D.Dirichlet(p), D.Dirichlet(q))
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-10)
    check_grad(lambda a, b: D.kl_divergence(D.Dirichlet(a), D.Dirichlet(b)), p, q)


def test_gumbel_kl_matches_a_monte_carlo_estimate():
    p, q = D.Gumbel(0.3, 1.2), D.Gumbel(-0.5, 2.0)
    core.seed(0)
    x = p.sample([400000])
    estimate = float((p.log_prob(x) - q.log_prob(x)).mean().item())
    assert abs(float(D.kl_divergence(p, q).item()) - estimate) < 0.01
    check_grad(lambda a, b, c, d: D.kl_divergence(D.Gumbel(a, b), D.Gumbel(c, d)),
               [0.3, 1.0], [1.2, 0.7], [-0.5, 0.2], [2.0, 1.1])


def test_independent_sums_over_reinterpreted_axes():
    torch = pytest.importorskip("torch")
    base = D.Normal(LOC, B)
    ind = D.Independent(base, 1)
    assert ind.batch_shape == (2,) and ind.event_shape == (3,)
    tind = torch.distributions.Independent(
        torch.distributions.Normal(torch.tensor(LOC), torch.tensor(B)), 1)
    value = LOC + 0.3
    np.testing.assert_allclose(ind.log_prob(value).numpy(),
                               tind.log_prob(torch.tensor(value)).numpy(), rtol=1e-10)
    np.testing.assert_allclose(ind.entropy().numpy(), tind.entropy().numpy(), rtol=1e-10)
    np.testing.assert_allclose(ind.mean.numpy(), LOC)
    np.testing.assert_allclose(ind.variance.numpy(), np.broadcast_to(B ** 2, (2, 3)))
    assert ind.sample([4]).shape == [4, 2, 3] and ind.rsample().shape == [2, 3]
    other = D.Independent(D.Normal(LOC * 0, 1.0), 1)
    np.testing.assert_allclose(D.kl_divergence(ind, other).numpy(),
                               D.kl_divergence(base, other._base).numpy().sum(-1), rtol=1e-12)
    whole = D.Independent(base, 2)
    assert whole.batch_shape == () and whole.event_shape == (2, 3)
    check_grad(lambda v, m, s: D.Independent(D.Normal(m, s), 1).log_prob(v), value, LOC, B)


def test_independent_bad_arguments():
    with pytest.raises(ValueError, match=r"'reinterpreted_batch_rank' must be an int in 1..2 "
                                         r"\(base's batch_shape is \[2, 3\]\), got 3"):
        D.Independent(D.Normal(LOC, B), 3)
    with pytest.raises(TypeError, match="Independent: 'base' must be a Distribution"):
        D.Independent(LOC, 1)
    with pytest.raises(NotImplementedError, match="reinterpret different numbers"):
        D.kl_divergence(D.Independent(D.Normal(LOC, B), 1), D.Independent(D.Normal(LOC, B), 2))


def test_missing_pairs_raise_naming_the_pair():
    with pytest.raises(NotImplementedError, match=r"no KL divergence is registered for "
                                                  r"\(Normal, Gamma\)"):
        D.kl_divergence(D.Normal(0.0, 1.0), D.Gamma(1.0, 1.0))
    with pytest.raises(TypeError, match="kl_divergence: 'q' must be a Distribution, got float"):
        D.kl_divergence(D.Normal(0.0, 1.0), 1.0)


def test_register_kl_adds_and_dispatches_to_the_most_specific_pair():
    class MyNormal(D.Normal):
        pass

    class Other(D.Distribution):
        pass

    # a subclass inherits its parent's closed form
    np.testing.assert_allclose(D.kl_divergence(MyNormal(0.0, 1.0), D.Normal(1.0, 1.0)).numpy(),
                               0.5)

    @D.register_kl(MyNormal, D.Normal)
    def _kl_mine(p, q):
        return core.to_tensor(42.0)

    @D.register_kl(Other, D.Distribution)
    def _kl_other(p, q):
        return core.to_tensor(7.0)

    assert float(D.kl_divergence(MyNormal(0.0, 1.0), D.Normal(1.0, 1.0)).item()) == 42.0
    assert float(D.kl_divergence(D.Normal(0.0, 1.0), MyNormal(1.0, 1.0)).item()) == 0.5
    assert float(D.kl_divergence(Other(), D.Normal(0.0, 1.0)).item()) == 7.0
    with pytest.raises(TypeError, match="register_kl: 'cls_q' must be a subclass of "
                                        "Distribution"):
        D.register_kl(D.Normal, float)


def test_the_gamma_functions_work_without_scipy(monkeypatch, on_cpu):  # scipy: host only
    """Beta, Gamma and Dirichlet need lgamma / digamma (and trigamma for their gradients):
    core's own series stand in on a host without scipy, to the same numbers."""
    x = np.concatenate([np.geomspace(1e-3, 1e3, 60), [0.2, 0.5, 1.0, 2.0, 10.0]])
    p, q = D.Beta(2.5, 0.7), D.Beta(1.2, 3.0)
    with_scipy = (core.lgamma(core.to_tensor(x)).numpy(), core.digamma(core.to_tensor(x)).numpy(),
                  core.polygamma(core.to_tensor(x), 1).numpy(), float(D.kl_divergence(p, q)))
    monkeypatch.setitem(sys.modules, "scipy.special", None)  # import scipy.special now fails
    without = (core.lgamma(core.to_tensor(x)).numpy(), core.digamma(core.to_tensor(x)).numpy(),
               core.polygamma(core.to_tensor(x), 1).numpy(), float(D.kl_divergence(p, q)))
    for a, b in zip(with_scipy[:3], without[:3]):
        np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-13)
    assert without[3] == pytest.approx(with_scipy[3], rel=1e-6)
    np.testing.assert_allclose(core.polygamma(core.to_tensor([1.0]), 1).numpy(), [math.pi ** 2 / 6])
    check_grad(lambda t: core.digamma(t), [0.2, 1.5, 7.0])  # through trigamma
    check_grad(lambda a: D.Beta(a, 3.0).entropy(), [0.7, 2.5])
    with pytest.raises(ImportError, match="polygamma with n=2 needs scipy"):
        core.polygamma(core.to_tensor(x), 2)
