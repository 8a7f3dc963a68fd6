"""core.distribution.LKJCholesky: log_prob against torch's, draws that are Cholesky factors of
correlation matrices with LKJ's marginals (for both sample methods), draws and density that
agree (importance weights average 1), float64 gradients, shapes, and argument errors."""
from __future__ import annotations

import numpy as np
import pytest
from gradcheck import check_grad

import core
from core import distribution as D


def _draws(dim, eta, n, method, seed=0):
    core.seed(seed)
    return D.LKJCholesky(dim, np.float64(eta), method).sample([n]).numpy()


def test_log_prob_matches_torch_for_a_batch_of_concentrations():
    torch = pytest.importorskip("torch")
    eta = np.array([0.5, 1.0, 3.7])
    value = _draws(4, 2.0, 3, "cvine")  # one factor per concentration
    ours = D.LKJCholesky(4, eta).log_prob(value).numpy()
    theirs = torch.distributions.LKJCholesky(4, torch.tensor(eta)).log_prob(
        torch.tensor(value)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-10)


@pytest.mark.parametrize("method", ["onion", "cvine"])
def test_draws_are_cholesky_factors_of_correlation_matrices(method):
    L = _draws(5, 0.8, 200, method)
    assert L.shape == (200, 5, 5)
    np.testing.assert_array_equal(np.triu(L, 1), 0)
    assert (np.diagonal(L, 0, -2, -1) > 0).all()
    np.testing.assert_allclose((L * L).sum(-1), 1.0, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("method", ["onion", "cvine"])
def test_a_small_concentration_gives_draws_of_finite_log_prob(method, dtype):
    """eta < 1 puts correlations near +-1: a row's diagonal entry rounded to 0 (float32 onion,
    and cvine in both dtypes, whose clip at 1 - tiny was 1), so log_prob was -inf for ~2% of
    draws at eta 0.1. It stays at least sqrt(tiny) of the dtype, as torch's."""
    core.seed(0)
    lkj = D.LKJCholesky(3, core.to_tensor(0.05, dtype=dtype), method)
    L = lkj.sample([4000])
    assert L.dtype == np.dtype(dtype)
    assert (np.diagonal(L.numpy(), 0, -2, -1) > 0).all()
    assert np.isfinite(lkj.log_prob(L).numpy()).all()


@pytest.mark.parametrize("method", ["onion", "cvine"])
def test_correlations_have_lkj_marginals(method):
    # Under LKJ(eta) in d dimensions each correlation is 2 Beta(b, b) - 1 with
    # b = eta - 1 + d/2: mean 0 and variance 1 / (2 eta + d - 1), for every pair. (Paddle's and
    # torch's onion sampler fails this at d >= 3: docs/paddle.md.)
    d, eta, n = 5, 2.0, 40000
    L = _draws(d, eta, n, method, seed=3)
    corr = L @ np.swapaxes(L, -1, -2)
    rows, cols = np.tril_indices(d, -1)
    pairs = corr[:, rows, cols]
    np.testing.assert_allclose(pairs.var(0), 1 / (2 * eta + d - 1), rtol=0.05)
    np.testing.assert_allclose(pairs.mean(0), 0.0, atol=0.01)


def test_draws_and_density_agree():
    # E_{L ~ LKJ(a)} [p_b(L) / p_a(L)] = 1 when both densities are normalised and the draws
    # follow p_a: a check of the normaliser and the sampler together.
    d, n = 4, 40000
    L = core.to_tensor(_draws(d, 1.5, n, "onion", seed=5))
    weights = (D.LKJCholesky(d, np.float64(2.5)).log_prob(L)
               - D.LKJCholesky(d, np.float64(1.5)).log_prob(L)).exp().numpy()
    assert abs(weights.mean() - 1.0) < 0.03


def test_dim_two_density_is_uniform_in_the_correlation_at_eta_one():
    # At d = 2, eta = 1 the correlation r = L[1, 0] is uniform on (-1, 1); the density of L
    # (with L[1, 1] = sqrt(1 - r^2)) is 1/2.
    r = np.array([-0.9, 0.0, 0.4])
    L = np.zeros((3, 2, 2))
    L[:, 0, 0], L[:, 1, 0], L[:, 1, 1] = 1.0, r, np.sqrt(1 - r * r)
    np.testing.assert_allclose(D.LKJCholesky(2, np.float64(1.0)).prob(L).numpy(), 0.5)


def test_shapes_follow_sample_shape_and_batch():
    dist = D.LKJCholesky(3, [1.0, 2.0], "cvine")
    assert dist.batch_shape == (2,) and dist.event_shape == (3, 3)
    assert dist.sample([4]).shape == [4, 2, 3, 3]
    assert D.LKJCholesky(3).sample().shape == [3, 3]
    assert dist.sample([4]).dtype == core.float32


def test_log_prob_gradients_in_value_and_concentration():
    value = _draws(3, 1.0, 2, "onion")

    def fn(v, eta):
        return D.LKJCholesky(3, eta).log_prob(v)

    check_grad(fn, value, np.array([0.7, 2.0]))


@pytest.mark.parametrize("kwargs, error, match", [
    ({"dim": 1}, ValueError, "dim=1 must be >= 2"),
    ({"dim": 2.5}, TypeError, "dim=2.5 must be an int"),
    ({"dim": 3, "concentration": -1.0}, ValueError, "concentration=.* must be positive"),
    ({"dim": 3, "sample_method": "vine"}, ValueError, "sample_method='vine'.*'onion', 'cvine'"),
])
def test_bad_arguments_are_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        D.LKJCholesky(**kwargs)


def test_log_prob_refuses_a_value_of_the_wrong_size():
    with pytest.raises(ValueError, match=r"must end in \[3, 3\]"):
        D.LKJCholesky(3).log_prob(np.eye(4))
