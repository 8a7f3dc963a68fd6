"""The cdf / icdf methods that Paddle 3.3.1 has and core lacked (Bernoulli.cdf,
Exponential.cdf / icdf, Laplace.cdf / icdf, Gumbel.cdf), ContinuousBernoulli.cdf outside
[0, 1], and the literals Paddle 3.3.1 printed for them (compared in full with
tests/core/test_paddle_agreement_misc.py's fixtures)."""
from __future__ import annotations

import numpy as np
import pytest
from gradcheck import check_grad

import core

D = core.distribution


def _t(values):
    return core.to_tensor(np.asarray(values, dtype="float32"))


def test_cdf_icdf_match_paddle_literals():
    # printed by paddlepaddle 3.3.1 (CPU) for these very calls
    np.testing.assert_allclose(D.Bernoulli(_t([0.3, 0.8])).cdf(_t([[-1.0], [0.0], [0.5],
                                                                   [2.0]])).numpy(),
                               [[0, 0], [0.7, 0.2], [0.7, 0.2], [1, 1]], rtol=1e-6)
    np.testing.assert_allclose(D.Exponential(_t([0.5, 2.0])).cdf(_t([1.5, 0.2])).numpy(),
                               [0.52763343, 0.32967997], rtol=1e-6)
    np.testing.assert_allclose(D.Exponential(_t([0.5, 2.0])).icdf(_t([[0.1], [0.9]])).numpy(),
                               [[0.21072103, 0.05268026], [4.6051698, 1.1512924]], rtol=1e-6)
    np.testing.assert_allclose(D.Laplace(_t([0.0, 1.0]), _t([1.0, 2.0])).cdf(
        _t([1.5, -0.2])).numpy(), [0.88843489, 0.27440581], rtol=1e-6)
    np.testing.assert_allclose(D.Laplace(_t([0.0, 1.0]), _t([1.0, 2.0])).icdf(
        _t([[0.1], [0.5], [0.9]])).numpy(),
        [[-1.6094379, -2.2188759], [0.0, 1.0], [1.6094377, 4.2188754]], rtol=1e-6)
    np.testing.assert_allclose(D.Gumbel(_t([0.0, 1.0]), _t([1.0, 2.0])).cdf(
        _t([1.5, -0.2])).numpy(), [0.80001068, 0.1616828], rtol=1e-6)
    np.testing.assert_allclose(D.ContinuousBernoulli(_t([0.3, 0.8])).cdf(
        _t([[-1.0], [2.0]])).numpy(), [[0, 0], [1, 1]])


def test_cdf_icdf_match_torch():
    torch = pytest.importorskip("torch")
    td = torch.distributions
    x = np.array([[0.1], [0.7], [2.5]])
    u = np.array([[0.05], [0.5], [0.95]])
    rate, loc, scale = np.array([0.5, 2.0]), np.array([0.0, 1.0]), np.array([1.0, 2.0])
    pairs = [(D.Exponential(rate), td.Exponential(torch.tensor(rate))),
             (D.Laplace(loc, scale), td.Laplace(torch.tensor(loc), torch.tensor(scale)))]
    for ours, ref in pairs:
        np.testing.assert_allclose(ours.cdf(x).numpy(), ref.cdf(torch.tensor(x)).numpy(),
                                   rtol=1e-12)
        np.testing.assert_allclose(ours.icdf(u).numpy(), ref.icdf(torch.tensor(u)).numpy(),
                                   rtol=1e-12)
    gumbel = td.Gumbel(torch.tensor(loc), torch.tensor(scale))
    np.testing.assert_allclose(D.Gumbel(loc, scale).cdf(x).numpy(),
                               gumbel.cdf(torch.tensor(x)).numpy(), rtol=1e-12)


def test_cdf_icdf_gradients():
    x = np.array([0.3, 1.7])
    u = np.array([0.2, 0.85])
    check_grad(lambda v, r: D.Exponential(r).cdf(v), x, np.array([0.5, 2.0]))
    check_grad(lambda v, r: D.Exponential(r).icdf(v), u, np.array([0.5, 2.0]))
    check_grad(lambda v, m, s: D.Laplace(m, s).cdf(v), x, np.array([0.0, 2.0]),
               np.array([1.0, 0.5]))
    check_grad(lambda v, m, s: D.Laplace(m, s).icdf(v), u, np.array([0.0, 2.0]),
               np.array([1.0, 0.5]))
    check_grad(lambda v, m, s: D.Gumbel(m, s).cdf(v), x, np.array([0.0, 2.0]),
               np.array([1.0, 0.5]))
    check_grad(lambda p: D.Bernoulli(p).cdf(core.to_tensor([0.5, 0.5])), np.array([0.3, 0.6]))


def test_cdf_rejects_a_bad_value():
    with pytest.raises(TypeError, match=r"Exponential\.cdf: 'value' must be a number"):
        D.Exponential(1.0).cdf("1")
    with pytest.raises(TypeError, match=r"Laplace\.icdf: 'value' must be a number"):
        D.Laplace(0.0, 1.0).icdf(None)
    with pytest.raises(TypeError, match=r"Gumbel\.cdf: 'value' must be a number"):
        D.Gumbel(0.0, 1.0).cdf({})
    with pytest.raises(TypeError, match=r"Bernoulli\.cdf: 'value' must be a number"):
        D.Bernoulli(0.5).cdf("x")
    # icdf keeps its range check; cdf takes any value (0 below the support, 1 above)
    with pytest.raises(ValueError, match=r"ContinuousBernoulli\.icdf: 'value' must be in"):
        D.ContinuousBernoulli(0.3).icdf(1.5)
