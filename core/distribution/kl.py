"""The closed-form KL divergences core knows, registered with ``register_kl`` (Paddle's
``paddle/distribution/kl.py``). ``kl_divergence`` and ``register_kl`` themselves live with the
base class (core.distribution.distribution), whose ``kl_divergence`` method calls them; this
module re-exports them under Paddle's path."""
from __future__ import annotations

from core.distribution.bernoulli import Bernoulli
from core.distribution.categorical import Categorical
from core.distribution.cauchy import Cauchy
from core.distribution.continuous_bernoulli import ContinuousBernoulli, kl_continuous_bernoulli
from core.distribution.counts import Binomial, Geometric, Poisson, xlogy
from core.distribution.dirichlet import Beta, Dirichlet
from core.distribution.distribution import kl_divergence, register_kl
from core.distribution.gamma import Exponential, Gamma
from core.distribution.gumbel import _EULER_GAMMA, Gumbel
from core.distribution.independent import Independent, sum_rightmost
from core.distribution.laplace import Laplace
from core.distribution.multivariate_normal import MultivariateNormal, kl_multivariate_normal
from core.distribution.normal import LogNormal, Normal
from core.distribution.uniform import Uniform
from core.elementwise import digamma, lgamma
from core.nn.functional import log_sigmoid, log_softmax, softmax
from core.search import where

__all__ = ["kl_divergence", "register_kl"]

# ----- closed forms -------------------------------------------------------------------------

@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).square()
    t1 = ((p.loc - q.loc) / q.scale).square()
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(LogNormal, LogNormal)
def _kl_lognormal_lognormal(p, q):
    return _kl_normal_normal(p._base, q._base)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    """``log((q.high - q.low) / (p.high - p.low))``, infinite where p's support leaves q's."""
    kl = (q.high - q.low).log() - (p.high - p.low).log()
    outside = (q.low.data > p.low.data) | (q.high.data < p.high.data)
    return where(outside, float("inf"), kl)


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    """Over ``softmax(logits)``, keeping the category axis (shape batch + [1]), as Paddle."""
    return (softmax(p.logits, -1) * (log_softmax(p.logits, -1) - log_softmax(q.logits, -1))
            ).sum(-1, keepdim=True)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    return (p.probs * (log_sigmoid(p.logits) - log_sigmoid(q.logits))
            + (1 - p.probs) * (log_sigmoid(-p.logits) - log_sigmoid(-q.logits)))


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    p_total, q_total = p.alpha + p.beta, q.alpha + q.beta
    return (lgamma(q.alpha) + lgamma(q.beta) + lgamma(p_total)
            - lgamma(p.alpha) - lgamma(p.beta) - lgamma(q_total)
            + (p.alpha - q.alpha) * digamma(p.alpha) + (p.beta - q.beta) * digamma(p.beta)
            + (q_total - p_total) * digamma(p_total))


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    pc, qc = p.concentration, q.concentration
    p_total = pc.sum(-1)
    return (lgamma(p_total) - lgamma(qc.sum(-1)) - (lgamma(pc) - lgamma(qc)).sum(-1)
            + ((pc - qc) * (digamma(pc) - digamma(p_total).unsqueeze(-1))).sum(-1))


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    ratio = q.rate / p.rate
    return ratio - ratio.log() - 1


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    pa, pr, qa, qr = p.concentration, p.rate, q.concentration, q.rate
    return (qa * (pr / qr).log() + lgamma(qa) - lgamma(pa) + (pa - qa) * digamma(pa)
            + (qr - pr) * (pa / pr))


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    scale_ratio = p.scale / q.scale
    distance = (p.loc - q.loc).abs()
    return (-scale_ratio.log() + distance / q.scale
            + scale_ratio * (-distance / p.scale).exp() - 1)


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    ratio = p.scale / q.scale
    shift = (p.loc - q.loc) / q.scale
    return (-ratio.log() + shift + _EULER_GAMMA * (ratio - 1)
            + (-shift).exp() * (lgamma(ratio + 1)).exp() - 1)


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    n = p._reinterpreted_batch_rank
    if n != q._reinterpreted_batch_rank:
        raise NotImplementedError(
            f"kl_divergence: Independent distributions that reinterpret different numbers of "
            f"batch axes ({n} and {q._reinterpreted_batch_rank}) are not supported")
    return sum_rightmost(kl_divergence(p._base, q._base), n)


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    """``log(((p.scale + q.scale)^2 + (p.loc - q.loc)^2) / (4 p.scale q.scale))``."""
    return (((p.scale + q.scale).square() + (p.loc - q.loc).square()).log()
            - (4 * p.scale * q.scale).log())


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    """``rate_p log(rate_p / rate_q) - rate_p + rate_q``, in closed form (Paddle sums the mass
    over a truncated support); xlogy makes a zero rate_p give rate_q, not NaN."""
    return xlogy(p.rate, p.rate) - xlogy(p.rate, q.rate) - p.rate + q.rate


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    """``-H(p) - log(q) - (1/p - 1) log(1 - q)``: E_p[-log q(X)] with E_p[X] = 1/p - 1."""
    return -p.entropy() - q.probs.log() - xlogy(p.mean, 1 - q.probs)  # 0 where p = 1


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    """``n KL(Bernoulli(p) || Bernoulli(q))`` for equal total_counts (Paddle requires them
    equal too)."""
    if not (p.total_count.data == q.total_count.data).all():
        raise ValueError("kl_divergence: the Binomials' total_count must be equal, got "
                         f"{p.total_count.numpy().tolist()} and "
                         f"{q.total_count.numpy().tolist()}")
    pp, qp = p.probs, q.probs
    return p.total_count * (xlogy(pp, pp) - xlogy(pp, qp)
                            + xlogy(1 - pp, 1 - pp) - xlogy(1 - pp, 1 - qp))


register_kl(MultivariateNormal, MultivariateNormal)(kl_multivariate_normal)
register_kl(ContinuousBernoulli, ContinuousBernoulli)(kl_continuous_bernoulli)
