"""``Cauchy`` and ``StudentT`` (Paddle's ``paddle.distribution.Cauchy`` / ``StudentT``)."""
from __future__ import annotations

import math

import numpy as np

from core import backend
from core.distribution.distribution import (
    Distribution,
    detached,
    host,
    on_device,
    params,
    sample_shape,
    uniform_draws,
    value_of,
)
from core.distribution.gamma import check_positive
from core.elementwise import digamma, lgamma
from core.search import where
from core.tensor import Tensor

__all__ = ["Cauchy", "StudentT"]

_LOG_PI = math.log(math.pi)


class Cauchy(Distribution):
    """Paddle's ``Cauchy(loc, scale, name=None)``: density
    ``1 / (pi scale (1 + ((x - loc) / scale)^2))``. It has no mean, variance or stddev: those
    properties raise ValueError, as Paddle's."""

    def __init__(self, loc, scale, name: str | None = None):
        self.name = name or "Cauchy"
        self.loc, self.scale = params(self.name, loc=loc, scale=scale)
        self.dtype = self.loc.dtype
        super().__init__(batch_shape=tuple(self.loc.shape))

    @property
    def mean(self) -> Tensor:
        raise ValueError("Cauchy distribution has no mean.")

    @property
    def variance(self) -> Tensor:
        raise ValueError("Cauchy distribution has no variance.")

    @property
    def stddev(self) -> Tensor:
        raise ValueError("Cauchy distribution has no stddev.")

    def sample(self, shape=(), name: str | None = None) -> Tensor:
        """Draws of shape ``shape + batch_shape`` (no gradient)."""
        del name
        return detached(self.rsample, shape)

    def rsample(self, shape=(), name: str | None = None) -> Tensor:
        """The inverse CDF at uniform ``u``: ``loc + scale tan(pi (u - 1/2))``, differentiable
        in loc and scale."""
        del name
        full = self._extend_shape(sample_shape(shape, f"{self.name}.rsample"))
        u = uniform_draws(full, self.dtype)
        return self.loc + self.scale * (math.pi * (u - 0.5)).tan()

    def log_prob(self, value) -> Tensor:
        z = (value_of(value, self.loc, f"{self.name}.log_prob") - self.loc) / self.scale
        return -z.square().log1p() - self.scale.log() - _LOG_PI

    def cdf(self, value) -> Tensor:
        """``atan((value - loc) / scale) / pi + 1/2``."""
        z = (value_of(value, self.loc, f"{self.name}.cdf") - self.loc) / self.scale
        return z.atan() / math.pi + 0.5

    def entropy(self) -> Tensor:
        """``log(4 pi scale)``."""
        return self.scale.log() + math.log(4 * math.pi)


class StudentT(Distribution):
    """Paddle's ``StudentT(df, loc, scale, name=None)``: the location-scale Student's t with
    ``df`` degrees of freedom (``df`` and ``scale`` positive, checked as Paddle does).
    ``mean`` is NaN where df <= 1; ``variance`` is infinite where 1 < df <= 2 and NaN where
    df <= 1. Draws have no gradient (no ``rsample``, as Paddle)."""

    def __init__(self, df, loc, scale, name: str | None = None):
        self.name = name or "StudentT"
        self.df, self.loc, self.scale = params(self.name, df=df, loc=loc, scale=scale)
        check_positive(self.name, df=self.df, scale=self.scale)
        self.dtype = self.loc.dtype
        super().__init__(batch_shape=tuple(self.loc.shape))

    @property
    def mean(self) -> Tensor:
        return where(self.df.data > 1, self.loc, float("nan"))

    @property
    def variance(self) -> Tensor:
        df = self.df.data
        denominator = where(df > 2, self.df - 2, 1.0)  # no division by 0 in the unused branch
        finite = self.scale.square() * self.df / denominator
        xp = backend.array_module(df)
        undefined = Tensor(xp.where(df > 1, xp.inf, xp.nan).astype(df.dtype))  # keeps the dtype
        return where(df > 2, finite, undefined)

    def sample(self, shape=()) -> Tensor:
        """Draws of shape ``shape + batch_shape``: ``loc + scale t`` with standard t draws."""
        full = self._extend_shape(sample_shape(shape, f"{self.name}.sample"))
        t = on_device(backend.rng().standard_t(np.broadcast_to(host(self.df), full)), self.dtype)
        return detached(lambda: self.loc + self.scale * t)

    def log_prob(self, value) -> Tensor:
        z = (value_of(value, self.loc, f"{self.name}.log_prob") - self.loc) / self.scale
        half = 0.5 * (self.df + 1)
        return (lgamma(half) - lgamma(0.5 * self.df) - 0.5 * (self.df.log() + _LOG_PI)
                - self.scale.log() - half * (z.square() / self.df).log1p())

    def entropy(self) -> Tensor:
        """``log(scale) + (df+1)/2 (digamma((df+1)/2) - digamma(df/2)) + log(df)/2
        + log B(df/2, 1/2)``."""
        half, half_df = 0.5 * (self.df + 1), 0.5 * self.df
        log_beta = lgamma(half_df) + 0.5 * _LOG_PI - lgamma(half)
        return (self.scale.log() + half * (digamma(half) - digamma(half_df))
                + 0.5 * self.df.log() + log_beta)
