"""core.distribution: Paddle's ``paddle.distribution`` — probability distributions with
``sample`` / ``rsample`` / ``log_prob`` / ``prob`` / ``entropy`` / ``mean`` / ``variance``,
``Independent``, and ``kl_divergence`` with ``register_kl``.

Continuous: Normal, LogNormal, Laplace, Gumbel, Cauchy, StudentT, Exponential, Gamma, Chi2,
Beta, Dirichlet, Uniform, ContinuousBernoulli, MultivariateNormal, LKJCholesky (over the
Cholesky factors of correlation matrices); discrete: Bernoulli,
Categorical, Geometric, Poisson, Binomial, Multinomial. ``ExponentialFamily`` is a base with
an entropy from the log normaliser; ``TransformedDistribution`` pushes a base distribution
through the ``Transform`` subclasses (``AffineTransform``, ``ExpTransform``, ...).

Parameters may be Python floats, lists, numpy arrays or Tensors; they broadcast together and
are float32 (``core.get_default_dtype()``) unless one is float64. Samples come from
``core.seed``'s generator. Imported on first use of ``core.distribution`` (not by
``import core``).
"""
from core.distribution.bernoulli import Bernoulli
from core.distribution.categorical import Categorical
from core.distribution.cauchy import Cauchy, StudentT
from core.distribution.chi2 import Chi2
from core.distribution.continuous_bernoulli import ContinuousBernoulli
from core.distribution.counts import Binomial, Geometric, Multinomial, Poisson
from core.distribution.dirichlet import Beta, Dirichlet
from core.distribution.distribution import Distribution
from core.distribution.exponential_family import ExponentialFamily
from core.distribution.gamma import Exponential, Gamma
from core.distribution.gumbel import Gumbel
from core.distribution.independent import Independent
from core.distribution.kl import kl_divergence, register_kl
from core.distribution.laplace import Laplace
from core.distribution.lkj_cholesky import LKJCholesky
from core.distribution.multivariate_normal import MultivariateNormal
from core.distribution.normal import LogNormal, Normal
from core.distribution.transform import (
    AbsTransform,
    AffineTransform,
    ChainTransform,
    ExpTransform,
    IndependentTransform,
    PowerTransform,
    ReshapeTransform,
    SigmoidTransform,
    SoftmaxTransform,
    StackTransform,
    StickBreakingTransform,
    TanhTransform,
    Transform,
)
from core.distribution.transformed_distribution import TransformedDistribution
from core.distribution.uniform import Uniform

__all__ = ["Bernoulli", "Beta", "Categorical", "Dirichlet", "Distribution", "Exponential",
           "Gamma", "Gumbel", "Independent", "Laplace", "LogNormal", "Normal", "Uniform",
           "kl_divergence", "register_kl",
           "Binomial", "Cauchy", "Chi2", "ContinuousBernoulli", "Geometric", "Multinomial",
           "MultivariateNormal", "Poisson", "StudentT", "ExponentialFamily",
           "TransformedDistribution", "Transform", "AbsTransform", "AffineTransform",
           "ChainTransform", "ExpTransform", "IndependentTransform", "PowerTransform",
           "ReshapeTransform", "SigmoidTransform", "SoftmaxTransform", "StackTransform",
           "StickBreakingTransform", "TanhTransform", "LKJCholesky"]
