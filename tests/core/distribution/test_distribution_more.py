"""core.distribution's Cauchy, StudentT, Chi2, ContinuousBernoulli, MultivariateNormal,
Poisson, Geometric, Binomial and Multinomial against torch.distributions (and scipy where torch
has no entropy), Paddle's documented numbers, sample moments, float64 gradient checks, their
KL divergences and their argument errors."""
from __future__ import annotations

import math

import numpy as np
import pytest
from gradcheck import check_grad

import core
from core import distribution as D

LOC = np.array([[-1.0, 0.5, 2.0], [0.0, 1.5, -0.3]])
SCALE = np.array([0.5, 1.0, 2.5])
DF = np.array([[0.7, 1.5, 3.0], [2.5, 5.0, 9.0]])
VALUE = np.array([[-0.4, 0.9, 1.1], [2.0, 0.2, -1.5]])
PROBS = np.array([[0.2, 0.45, 0.9], [0.05, 0.7, 0.35]])
UNIT = np.array([[0.2, 0.5, 0.9], [0.05, 0.7, 0.35]])
RATE = np.array([[0.5, 3.0, 12.0], [1.5, 7.0, 30.0]])
COUNTS = np.array([[0.0, 2.0, 15.0], [1.0, 6.0, 28.0]])
COUNT_N = np.array([[4.0, 10.0, 7.0], [4.0, 10.0, 7.0]])
TRIALS = np.array([[1.0, 4.0, 7.0], [0.0, 10.0, 2.0]])
COV = np.array([[2.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 0.5]])
COV2 = np.array([[1.0, -0.2, 0.0], [-0.2, 0.8, 0.1], [0.0, 0.1, 1.5]])

# name: (core class, torch class name, parameters, a value in the support, has moments)
CASES = {
    "Cauchy": (D.Cauchy, "Cauchy", (LOC, SCALE), VALUE),
    "StudentT": (D.StudentT, "StudentT", (DF + 2.2, LOC, SCALE), VALUE),
    "Chi2": (D.Chi2, "Chi2", (DF,), np.abs(VALUE) + 0.1),
    "ContinuousBernoulli": (D.ContinuousBernoulli, "ContinuousBernoulli", (PROBS,), UNIT),
    "Poisson": (D.Poisson, "Poisson", (RATE,), COUNTS),
    "Geometric": (D.Geometric, "Geometric", (PROBS,), COUNTS),
    "Binomial": (D.Binomial, "Binomial", (COUNT_N, PROBS), TRIALS),
}
NO_MOMENTS = {"Cauchy"}
NO_TORCH_ENTROPY = {"Poisson", "Binomial"}  # torch has none for unequal total_counts


def _torch(name, args):
    torch = pytest.importorskip("torch")
    cls = getattr(torch.distributions, CASES[name][1])
    if name == "ContinuousBernoulli":
        return cls(probs=torch.tensor(args[0]))
    if name == "Binomial":
        return cls(torch.tensor(args[0]), probs=torch.tensor(args[1]))
    if name == "Geometric":
        return cls(probs=torch.tensor(args[0]))
    return cls(*(torch.tensor(a) for a in args))


@pytest.mark.parametrize("name", sorted(CASES))
def test_log_prob_entropy_mean_variance_match_torch(name):
    torch = pytest.importorskip("torch")
    cls, _, args, value = CASES[name]
    dist, ref = cls(*args), _torch(name, args)
    np.testing.assert_allclose(dist.log_prob(value).numpy(),
                               ref.log_prob(torch.tensor(value)).numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(dist.prob(value).numpy(),
                               ref.log_prob(torch.tensor(value)).exp().numpy(), rtol=1e-9)
    if name not in NO_TORCH_ENTROPY:
        np.testing.assert_allclose(dist.entropy().numpy(), ref.entropy().numpy(), rtol=1e-9,
                                   atol=1e-12)
    if name not in NO_MOMENTS:
        np.testing.assert_allclose(dist.mean.numpy(), ref.mean.numpy(), rtol=1e-9)
        np.testing.assert_allclose(dist.variance.numpy(), ref.variance.numpy(), rtol=1e-9)
    assert dist.batch_shape == (2, 3) and dist.event_shape == ()
    assert dist.log_prob(value).dtype == np.float64


def test_poisson_and_binomial_entropy_match_scipy():
    stats = pytest.importorskip("scipy.stats")
    rates = np.array([1e-3, 0.5, 3.0, 40.0, 900.0])
    np.testing.assert_allclose(D.Poisson(rates).entropy().numpy(),
                               stats.poisson(rates).entropy(), rtol=1e-8)
    np.testing.assert_allclose(D.Binomial(COUNT_N, PROBS).entropy().numpy(),
                               stats.binom(COUNT_N, PROBS).entropy(), rtol=1e-10)


def test_paddles_documented_values():
    cauchy = D.Cauchy(0.1, 1.2)
    np.testing.assert_allclose(cauchy.entropy().numpy(), 2.71334577, rtol=1e-6)
    np.testing.assert_allclose(cauchy.log_prob(core.to_tensor([1.5, 5.1])).numpy(),
                               [-2.18618369, -4.23728657], rtol=1e-6)
    np.testing.assert_allclose(cauchy.cdf(core.to_tensor([1.5, 5.1])).numpy(),
                               [0.77443725, 0.92502367], rtol=1e-6)
    geom = D.Geometric(0.5)
    assert float(geom.mean) == 1.0 and float(geom.variance) == 2.0
    np.testing.assert_allclose(geom.stddev.numpy(), 1.41421354, rtol=1e-6)
    np.testing.assert_allclose(geom.pmf(2).numpy(), 0.125, rtol=1e-6)
    np.testing.assert_allclose(geom.log_pmf(2).numpy(), -2.07944131, rtol=1e-6)
    np.testing.assert_allclose(geom.cdf(4).numpy(), 0.96875, rtol=1e-6)
    np.testing.assert_allclose(geom.entropy().numpy(), 1.38629436, rtol=1e-6)
    # Paddle truncates the sum at 5 standard deviations; the exact entropy is 3.1167110
    np.testing.assert_allclose(D.Poisson(30.0).entropy().numpy(), 3.11661315, rtol=1e-4)
    cb = D.ContinuousBernoulli(core.to_tensor([0.2, 0.5]))
    np.testing.assert_allclose(cb.mean.numpy(), [0.38801414, 0.5], rtol=1e-6)
    np.testing.assert_allclose(cb.variance.numpy(), [0.07589778, 0.08333334], rtol=1e-6)
    np.testing.assert_allclose(cb.entropy().numpy(), [-0.07641457, 0.0], atol=1e-6)
    np.testing.assert_allclose(cb.cdf(core.to_tensor(0.1)).numpy(), [0.17259926, 0.1],
                               rtol=1e-6)
    np.testing.assert_allclose(cb.icdf(core.to_tensor(0.1)).numpy(), [0.05623737, 0.1],
                               rtol=1e-5)
    kl = D.kl_divergence(D.ContinuousBernoulli(core.to_tensor([0.2, 0.8])),
                         D.ContinuousBernoulli(core.to_tensor([0.7, 0.5])))
    np.testing.assert_allclose(kl.numpy(), [0.20103608, 0.07641447], rtol=1e-5)
    assert D.ContinuousBernoulli(0.3).batch_shape == (1,)  # a number becomes 1-D, as Paddle
    chi2 = D.Chi2(np.array([2.0, 3.0]))
    np.testing.assert_array_equal(chi2.df.numpy(), [2.0, 3.0])
    np.testing.assert_array_equal(chi2.rate.numpy(), [0.5, 0.5])


def test_student_t_moments_where_they_do_not_exist_match_torch():
    torch = pytest.importorskip("torch")
    df = np.array([0.7, 1.0, 1.5, 2.0, 3.0])
    dist = D.StudentT(df, 0.5, 2.0)
    ref = torch.distributions.StudentT(torch.tensor(df), 0.5, 2.0)
    np.testing.assert_allclose(dist.mean.numpy(), ref.mean.numpy(), rtol=1e-12)  # NaN df <= 1
    np.testing.assert_allclose(dist.variance.numpy(), ref.variance.numpy(), rtol=1e-12)


def test_cauchy_has_no_moments_and_its_cdf_matches_torch():
    torch = pytest.importorskip("torch")
    dist = D.Cauchy(LOC, SCALE)
    for prop in ("mean", "variance", "stddev"):
        with pytest.raises(ValueError, match=f"Cauchy distribution has no {prop}"):
            getattr(dist, prop)
    ref = torch.distributions.Cauchy(torch.tensor(LOC), torch.tensor(SCALE))
    np.testing.assert_allclose(dist.cdf(VALUE).numpy(), ref.cdf(torch.tensor(VALUE)).numpy(),
                               rtol=1e-12)


def test_continuous_bernoulli_cdf_icdf_and_taylor_region_match_torch():
    torch = pytest.importorskip("torch")
    probs = np.array([0.05, 0.3, 0.4995, 0.5, 0.5004, 0.8])
    dist = D.ContinuousBernoulli(probs)
    ref = torch.distributions.ContinuousBernoulli(probs=torch.tensor(probs))
    x = np.array([0.1, 0.9, 0.3, 0.5, 0.7, 0.25])
    np.testing.assert_allclose(dist.cdf(x).numpy(), ref.cdf(torch.tensor(x)).numpy(), rtol=1e-9)
    np.testing.assert_allclose(dist.icdf(x).numpy(), ref.icdf(torch.tensor(x)).numpy(),
                               rtol=1e-9)
    np.testing.assert_allclose(dist.icdf(dist.cdf(x)).numpy(), x, rtol=1e-9)
    for what in ("mean", "variance"):
        np.testing.assert_allclose(getattr(dist, what).numpy(), getattr(ref, what).numpy(),
                                   rtol=1e-9)
    np.testing.assert_allclose(dist.log_prob(x).numpy(), ref.log_prob(torch.tensor(x)).numpy(),
                               rtol=1e-9)
    np.testing.assert_allclose(dist.entropy().numpy(), ref.entropy().numpy(), atol=1e-9)
    np.testing.assert_allclose(dist.cdf(np.zeros(6)).numpy(), 0.0)
    np.testing.assert_allclose(dist.cdf(np.ones(6)).numpy(), 1.0)


def test_multinomial_matches_torch():
    torch = pytest.importorskip("torch")
    probs = np.array([[0.2, 0.3, 0.5], [1.0, 3.0, 4.0]])  # normalised by the sum, as Paddle
    value = np.array([[1.0, 0.0, 4.0], [2.0, 2.0, 1.0]])
    dist = D.Multinomial(5, probs)
    ref = torch.distributions.Multinomial(5, probs=torch.tensor(probs))
    assert dist.batch_shape == (2,) and dist.event_shape == (3,)
    np.testing.assert_allclose(dist.probs.numpy(), ref.probs.numpy(), rtol=1e-12)
    np.testing.assert_allclose(dist.log_prob(value).numpy(),
                               ref.log_prob(torch.tensor(value)).numpy(), rtol=1e-10)
    np.testing.assert_allclose(dist.entropy().numpy(), ref.entropy().numpy(), rtol=1e-7)
    np.testing.assert_allclose(dist.mean.numpy(), ref.mean.numpy(), rtol=1e-12)
    np.testing.assert_allclose(dist.variance.numpy(), ref.variance.numpy(), rtol=1e-12)
    stats = pytest.importorskip("scipy.stats")
    np.testing.assert_allclose(  # scipy agrees to 1e-15 (torch to about 2e-8)
        dist.entropy().numpy(), [stats.multinomial(5, p).entropy() for p in ref.probs.numpy()],
        rtol=1e-12)


def test_multivariate_normal_matches_torch_for_each_parameterisation():
    torch = pytest.importorskip("torch")
    loc = np.array([[0.0, 1.0, 2.0], [1.0, -1.0, 0.5]])
    value = np.random.default_rng(0).standard_normal((4, 2, 3))
    tril = np.linalg.cholesky(COV)
    for kind, matrix in (("covariance_matrix", COV), ("precision_matrix", COV2),
                         ("scale_tril", tril)):
        dist = D.MultivariateNormal(loc, **{kind: matrix})
        ref = torch.distributions.MultivariateNormal(torch.tensor(loc),
                                                     **{kind: torch.tensor(matrix)})
        assert dist.batch_shape == (2,) and dist.event_shape == (3,)
        np.testing.assert_allclose(dist.log_prob(value).numpy(),
                                   ref.log_prob(torch.tensor(value)).numpy(), rtol=1e-10)
        np.testing.assert_allclose(dist.entropy().numpy(), ref.entropy().numpy(), rtol=1e-10)
        np.testing.assert_allclose(dist.mean.numpy(), ref.mean.numpy(), rtol=1e-12)
        np.testing.assert_allclose(dist.variance.numpy(), ref.variance.numpy(), rtol=1e-10)
        np.testing.assert_allclose(dist.covariance_matrix.numpy(),
                                   ref.covariance_matrix.numpy(), rtol=1e-10, atol=1e-14)
        np.testing.assert_allclose(dist.precision_matrix.numpy(),
                                   ref.precision_matrix.numpy(), rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(dist.scale_tril.numpy(), ref.scale_tril.numpy(), rtol=1e-10,
                                   atol=1e-14)
    np.testing.assert_allclose(dist.stddev.numpy(), np.sqrt(ref.variance.numpy()), rtol=1e-10)
    batched = D.MultivariateNormal(np.zeros(3), covariance_matrix=np.stack([COV, COV2]))
    assert batched.batch_shape == (2,) and batched.sample([5]).shape == [5, 2, 3]


# ----- samples --------------------------------------------------------------------------------

MOMENT_CASES = {
    "StudentT": (D.StudentT, (DF + 4.5, LOC, SCALE)),
    "Chi2": (D.Chi2, (DF,)),
    "ContinuousBernoulli": (D.ContinuousBernoulli, (PROBS,)),
    "Poisson": (D.Poisson, (RATE,)),
    "Geometric": (D.Geometric, (PROBS,)),
    "Binomial": (D.Binomial, (COUNT_N, PROBS)),
}


@pytest.mark.parametrize("name", sorted(MOMENT_CASES))
def test_sample_statistics_match_mean_and_variance(name):
    cls, args = MOMENT_CASES[name]
    core.seed(123)
    dist = cls(*args)
    draws = dist.sample([20000])
    assert draws.shape == [20000, 2, 3] and draws.stop_gradient
    draws, mean, var = draws.numpy(), dist.mean.numpy(), dist.variance.numpy()
    assert (np.abs(draws.mean(0) - mean) <= 5 * np.sqrt(var / 20000)).all()  # 5 std errors
    np.testing.assert_allclose(draws.var(0), var, rtol=0.2)
    core.seed(7)
    first = cls(*args).sample([3]).numpy()
    core.seed(7)
    np.testing.assert_array_equal(cls(*args).sample([3]).numpy(), first)


def test_counting_samples_are_whole_numbers_in_the_parameters_dtype():
    core.seed(0)
    for dist in (D.Poisson(RATE.astype("float32")), D.Geometric(PROBS.astype("float32")),
                 D.Binomial(COUNT_N.astype("float32"), PROBS.astype("float32"))):
        draws = dist.sample([50])
        assert draws.dtype == np.float32
        np.testing.assert_array_equal(draws.numpy(), np.round(draws.numpy()))
    binomial = D.Binomial(COUNT_N, PROBS).sample([50]).numpy()
    assert (binomial >= 0).all() and (binomial <= COUNT_N).all()


def test_cauchy_sample_quartiles():
    core.seed(5)
    draws = D.Cauchy(LOC, SCALE).sample([40000]).numpy()
    np.testing.assert_allclose(np.median(draws, 0), LOC, atol=0.05 * 2.5)
    spread = (np.quantile(draws, 0.75, 0) - np.quantile(draws, 0.25, 0)) / 2  # = scale
    np.testing.assert_allclose(spread, np.broadcast_to(SCALE, (2, 3)), rtol=0.05)


def test_multinomial_and_multivariate_normal_samples():
    core.seed(2)
    probs = np.array([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]])
    draws = D.Multinomial(6, probs).sample([20000]).numpy()
    assert draws.shape == (20000, 2, 3)
    np.testing.assert_array_equal(draws.sum(-1), 6.0)
    np.testing.assert_allclose(draws.mean(0), 6 * probs, atol=0.05)
    np.testing.assert_allclose(draws.var(0), 6 * probs * (1 - probs), rtol=0.1)
    many = np.random.default_rng(1).random((50, 7)).astype("float32")  # float32 sums drift
    np.testing.assert_array_equal(D.Multinomial(100, many).sample([20]).numpy().sum(-1), 100)
    loc = np.array([0.5, -1.0, 2.0])
    draws = D.MultivariateNormal(loc, covariance_matrix=COV).sample([40000]).numpy()
    np.testing.assert_allclose(draws.mean(0), loc, atol=0.03)
    np.testing.assert_allclose(np.cov(draws.T), COV, atol=0.05)


# ----- gradients ------------------------------------------------------------------------------

GRAD_CASES = {  # name: (factory, parameters, value, which inputs are differentiated)
    "Cauchy": (D.Cauchy, (LOC, SCALE), VALUE, None),
    "StudentT": (D.StudentT, (DF + 2.2, LOC, SCALE), VALUE, None),
    "Chi2": (D.Chi2, (DF,), np.abs(VALUE) + 0.1, None),
    "ContinuousBernoulli": (D.ContinuousBernoulli, (PROBS,), UNIT, None),
    "Poisson": (D.Poisson, (RATE,), COUNTS, [1]),
    "Geometric": (D.Geometric, (PROBS,), COUNTS, [1]),
    "Binomial": (D.Binomial, (COUNT_N, PROBS), TRIALS, [2]),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_log_prob_gradient(name):
    cls, args, value, wrt = GRAD_CASES[name]
    check_grad(lambda v, *a: cls(*a).log_prob(v), value, *args, wrt=wrt)


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_entropy_gradient(name):
    cls, args, _, _ = GRAD_CASES[name]
    wrt = {"Cauchy": [1], "StudentT": [0, 2], "Binomial": [1]}.get(name)
    check_grad(lambda *a: cls(*a).entropy(), *args, wrt=wrt)


def test_multinomial_and_multivariate_normal_gradients():
    probs = np.array([[0.2, 0.3, 0.5], [1.0, 3.0, 4.0]])
    value = np.array([[1.0, 0.0, 4.0], [2.0, 2.0, 1.0]])
    check_grad(lambda p: D.Multinomial(5, p).log_prob(value), probs)
    check_grad(lambda p: D.Multinomial(5, p).entropy(), probs)
    loc = np.array([[0.0, 1.0, 2.0], [1.0, -1.0, 0.5]])
    tril = np.linalg.cholesky(COV)
    check_grad(lambda v, m, t: D.MultivariateNormal(m, scale_tril=t).log_prob(v),
               np.random.default_rng(1).standard_normal((4, 2, 3)), loc, tril)
    check_grad(lambda c: D.MultivariateNormal(loc, covariance_matrix=(c + c.T) / 2).entropy(),
               COV)


@pytest.mark.parametrize("name", ["Cauchy", "ContinuousBernoulli", "MultivariateNormal"])
def test_rsample_gradient_with_a_fixed_seed(name):
    if name == "MultivariateNormal":
        def make(m, t):
            return D.MultivariateNormal(m, scale_tril=t)
        args = (np.array([0.5, -1.0, 2.0]), np.linalg.cholesky(COV))
    else:
        make, args = GRAD_CASES[name][0], GRAD_CASES[name][1]

    def draw(*a):
        core.seed(3)
        return make(*a).rsample([4])

    check_grad(draw, *args, rtol=1e-5, atol=1e-6)
    core.seed(11)
    plain = make(*args).sample([3]).numpy()
    core.seed(11)
    np.testing.assert_allclose(make(*args).rsample([3]).numpy(), plain)


def test_geometric_rsample_is_the_floored_sample():
    core.seed(4)
    plain = D.Geometric(PROBS).sample([3]).numpy()
    core.seed(4)
    np.testing.assert_array_equal(D.Geometric(PROBS).rsample([3]).numpy(), plain)


# ----- KL divergences ------------------------------------------------------------------------

KL_PAIRS = {  # name: (core factory, torch factory, p's parameters, q's parameters)
    "Poisson": (D.Poisson, lambda t, r: t.distributions.Poisson(r), (RATE,), (RATE[::-1].copy(),)),
    "Geometric": (D.Geometric, lambda t, p: t.distributions.Geometric(probs=p), (PROBS,),
                  (PROBS[::-1].copy(),)),
    "Binomial": (D.Binomial, lambda t, n, p: t.distributions.Binomial(n, probs=p),
                 (COUNT_N, PROBS), (COUNT_N, PROBS[::-1].copy())),
    "ContinuousBernoulli": (D.ContinuousBernoulli,
                            lambda t, p: t.distributions.ContinuousBernoulli(probs=p),
                            (PROBS,), (PROBS[::-1].copy(),)),
    "Chi2": (D.Chi2, lambda t, d: t.distributions.Chi2(d), (DF,), (DF[::-1].copy(),)),
    "MultivariateNormal": (
        lambda m, c: D.MultivariateNormal(m, covariance_matrix=c),
        lambda t, m, c: t.distributions.MultivariateNormal(m, covariance_matrix=c),
        (LOC, COV), (LOC[::-1].copy(), COV2)),
}


@pytest.mark.parametrize("name", sorted(KL_PAIRS))
def test_kl_matches_torch(name):
    torch = pytest.importorskip("torch")
    make, make_torch, p_args, q_args = KL_PAIRS[name]
    expected = torch.distributions.kl_divergence(make_torch(torch, *map(torch.tensor, p_args)),
                                                 make_torch(torch, *map(torch.tensor, q_args)))
    got = D.kl_divergence(make(*p_args), make(*q_args))
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(make(*p_args).kl_divergence(make(*q_args)).numpy(), got.numpy())
    np.testing.assert_allclose(D.kl_divergence(make(*p_args), make(*p_args)).numpy(), 0.0,
                               atol=1e-9)


def test_cauchy_kl_matches_numerical_integration():
    integrate = pytest.importorskip("scipy.integrate")
    p, q = D.Cauchy(0.3, 1.2), D.Cauchy(-1.0, 0.5)

    def integrand(x):
        lp, lq = float(p.log_prob(x)), float(q.log_prob(x))
        return math.exp(lp) * (lp - lq)

    expected = integrate.quad(integrand, -np.inf, np.inf, limit=200)[0]
    np.testing.assert_allclose(float(D.kl_divergence(p, q)), expected, rtol=1e-6)


@pytest.mark.parametrize("name", sorted(KL_PAIRS) + ["Cauchy"])
def test_kl_gradient(name):
    if name == "Cauchy":
        make, p_args, q_args = D.Cauchy, (LOC, SCALE), (LOC[::-1].copy(), SCALE[::-1].copy())
    else:
        make, _, p_args, q_args = KL_PAIRS[name]
    n = len(p_args)
    wrt = {"Binomial": [1, 3]}.get(name)
    if name == "MultivariateNormal":
        def kl(m1, c1, m2, c2):
            return D.kl_divergence(make(m1, (c1 + c1.T) / 2), make(m2, (c2 + c2.T) / 2))
        check_grad(kl, *p_args, *q_args)
        return
    check_grad(lambda *a: D.kl_divergence(make(*a[:n]), make(*a[n:])), *p_args, *q_args,
               wrt=wrt)


# ----- bad arguments --------------------------------------------------------------------------

def test_bad_arguments_name_the_argument():
    with pytest.raises(TypeError, match="Cauchy: 'scale' must be a float, a list, a numpy "
                                        "array or a Tensor, got str"):
        D.Cauchy(0.0, "1")
    with pytest.raises(ValueError, match="StudentT: 'df' must be positive, got min -1.0"):
        D.StudentT(-1.0, 0.0, 1.0)
    with pytest.raises(ValueError, match="StudentT: 'scale' must be positive"):
        D.StudentT(1.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="Chi2: 'df' must be positive"):
        D.Chi2([1.0, 0.0])
    with pytest.raises(ValueError, match=r"Poisson: 'rate' must be a number >= 0.0, got "
                                         r"-1.0"):
        D.Poisson([1.0, -1.0])
    with pytest.raises(ValueError, match=r"Poisson.log_prob: 'value' must be a number >= 0.0"):
        D.Poisson(1.0).log_prob([-1.0])
    with pytest.raises(ValueError, match=r"Geometric: 'probs' must be in \(0.0, 1.0\], got "
                                         r"0.0"):
        D.Geometric([0.5, 0.0])
    with pytest.raises(ValueError, match=r"Binomial: 'total_count' must be an integer >= 1.0, "
                                         r"got 2.5"):
        D.Binomial(2.5, 0.5)
    with pytest.raises(ValueError, match=r"Binomial: 'probs' must be in \[0.0, 1.0\], got 1.5"):
        D.Binomial(3, 1.5)
    with pytest.raises(ValueError, match=r"Binomial.log_prob: 'value' must lie in "
                                         r"\[0, total_count\]"):
        D.Binomial(3, 0.5).log_prob(4.0)
    with pytest.raises(ValueError, match="kl_divergence: the Binomials' total_count must be "
                                         "equal"):
        D.kl_divergence(D.Binomial(3, 0.5), D.Binomial(4, 0.5))
    with pytest.raises(ValueError, match="Multinomial: 'total_count' must be an int >= 1, got "
                                         "2.5"):
        D.Multinomial(2.5, [0.5, 0.5])
    with pytest.raises(ValueError, match="Multinomial: 'probs' must be at least 1-D"):
        D.Multinomial(2, 0.5)
    with pytest.raises(ValueError, match=r"ContinuousBernoulli: 'probs' must be in \[0, 1\]"):
        D.ContinuousBernoulli([0.5, 1.2])
    with pytest.raises(ValueError, match="ContinuousBernoulli: 'lims' must be a pair"):
        D.ContinuousBernoulli(0.3, lims=(0.6, 0.4))
    with pytest.raises(ValueError, match=r"ContinuousBernoulli.log_prob: 'value' must be in "
                                         r"\[0, 1\]"):
        D.ContinuousBernoulli(0.3).log_prob(1.5)
    with pytest.raises(ValueError, match="MultivariateNormal: give exactly one of "
                                         "'covariance_matrix', 'precision_matrix' and "
                                         "'scale_tril', got none"):
        D.MultivariateNormal([0.0, 0.0])
    with pytest.raises(ValueError, match="give exactly one of .*got "
                                         r"\['covariance_matrix', 'scale_tril'\]"):
        D.MultivariateNormal([0.0, 0.0], covariance_matrix=np.eye(2), scale_tril=np.eye(2))
    with pytest.raises(ValueError, match=r"MultivariateNormal: 'covariance_matrix' must be "
                                         r"\[..., 2, 2\] to match loc of shape \[2\], got "
                                         r"shape \[3, 3\]"):
        D.MultivariateNormal([0.0, 0.0], covariance_matrix=np.eye(3))
    with pytest.raises(ValueError, match="MultivariateNormal: 'loc' must be at least 1-D"):
        D.MultivariateNormal(0.0, covariance_matrix=np.eye(1))
    with pytest.raises(ValueError, match="cholesky: x is not positive definite"):
        D.MultivariateNormal([0.0, 0.0], covariance_matrix=-np.eye(2))


# ----- QA regressions ------------------------------------------------------------------------

def _leaf(values):
    t = core.to_tensor(np.asarray(values, dtype=np.float64))
    t.stop_gradient = False
    return t


def test_count_gradients_at_boundary_probabilities_are_finite():
    """A zero count at probability 0 or 1 (or rate 0) used to give a NaN gradient: 1/y of the
    log met the where's zero cotangent. The values are the one-sided derivatives."""
    probs = _leaf([1.0, 0.0, 0.5])
    D.Binomial(4.0, probs).log_prob(np.array([4.0, 0.0, 2.0])).sum().backward()
    np.testing.assert_allclose(probs.grad.numpy(), [4.0, -4.0, 0.0])
    probs = _leaf([1.0, 0.5])
    D.Geometric(probs).log_prob(np.array([0.0, 1.0])).sum().backward()
    np.testing.assert_allclose(probs.grad.numpy(), [1.0, 0.0])
    rate = _leaf([0.0, 2.0])
    D.Poisson(rate).log_prob(np.array([0.0, 1.0])).sum().backward()
    np.testing.assert_allclose(rate.grad.numpy(), [-1.0, -0.5])


def test_multinomial_gradient_with_a_zero_probability_matches_torch():
    torch = pytest.importorskip("torch")
    probs = _leaf([[1.0, 0.0, 1.0]])
    D.Multinomial(3, probs).log_prob(np.array([[2.0, 0.0, 1.0]])).sum().backward()
    expected = torch.tensor([[1.0, 0.0, 1.0]], dtype=torch.float64, requires_grad=True)
    torch.distributions.Multinomial(3, expected).log_prob(
        torch.tensor([[2.0, 0.0, 1.0]], dtype=torch.float64)).sum().backward()
    np.testing.assert_allclose(probs.grad.numpy(), expected.grad.numpy())


def test_student_t_variance_keeps_float32():
    dist = D.StudentT(np.array([0.5, 1.5, 3.0], np.float32), 0.0, 1.0)
    variance = dist.variance
    assert variance.dtype == np.float32
    np.testing.assert_allclose(variance.numpy(), [np.nan, np.inf, 3.0])


@pytest.mark.parametrize("make, expected", [
    (lambda: D.Poisson(1e7), 9.477986354732032),   # 0.5 log(2 pi e rate) + O(1/rate)
    (lambda: D.Binomial(1e5, 0.3), 6.3950767560752855),
    (lambda: D.Multinomial(2000, [0.3, 0.7]), 4.439034093998998),
])
def test_float32_count_entropies_are_summed_in_float64(make, expected):
    """float32 sums of lgamma over large supports were garbage (Poisson(1e7): 0.05)."""
    entropy = make().entropy()
    assert entropy.dtype == np.float32
    np.testing.assert_allclose(entropy.numpy(), expected, rtol=1e-6)


def test_count_entropies_of_an_empty_batch():
    assert D.Poisson(np.zeros((0, 3))).entropy().shape == [0, 3]
    assert D.Binomial(np.ones(0), np.full(0, 0.5)).entropy().shape == [0]


def test_poisson_and_geometric_kl_at_a_boundary_parameter():
    """KL(Poisson(0) || Poisson(r)) is r and KL(Geometric(1) || Geometric(1)) is 0; both were
    NaN (0 log 0)."""
    kl = D.kl_divergence(D.Poisson(np.array([0.0, 3.0])), D.Poisson(np.array([2.0, 0.5])))
    np.testing.assert_allclose(kl.numpy(), [2.0, 3.0 * math.log(6.0) - 2.5])
    kl = D.kl_divergence(D.Geometric(np.array([1.0, 1.0])), D.Geometric(np.array([1.0, 0.4])))
    np.testing.assert_allclose(kl.numpy(), [0.0, -math.log(0.4)])


def test_geometric_rsample_gradient_is_zero_at_probability_one():
    """rsample's gradient is zero (counts are piecewise constant); at probs = 1 it was NaN."""
    probs = _leaf([1.0, 0.3])
    draws = D.Geometric(probs).rsample([3])
    assert not draws.stop_gradient
    np.testing.assert_array_equal(draws.numpy()[:, 0], [0.0, 0.0, 0.0])
    draws.sum().backward()
    np.testing.assert_array_equal(probs.grad.numpy(), [0.0, 0.0])
