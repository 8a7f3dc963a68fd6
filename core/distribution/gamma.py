"""``Exponential`` and ``Gamma`` (Paddle's ``paddle.distribution.Exponential`` / ``Gamma``)."""
from __future__ import annotations

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
from core.elementwise import digamma, lgamma
from core.tensor import Tensor

__all__ = ["Exponential", "Gamma"]


def check_positive(fn: str, **named) -> None:
    """Paddle checks these parameters (one read of the values; a GPU synchronises)."""
    for name, t in named.items():
        data = host(t)
        if not (data > 0).all():
            raise ValueError(f"{fn}: '{name}' must be positive, got min {float(np.min(data))!r}")


class Exponential(Distribution):
    """Paddle's ``Exponential(rate)``: density ``rate exp(-rate x)`` for x >= 0 (``rate`` > 0,
    checked as Paddle does)."""

    def __init__(self, rate):
        self.rate, = params("Exponential", rate=rate)
        check_positive("Exponential", rate=self.rate)
        self.dtype = self.rate.dtype
        super().__init__(batch_shape=tuple(self.rate.shape))

    @property
    def mean(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def variance(self) -> Tensor:
        return self.rate.square().reciprocal()

    def sample(self, shape=()) -> Tensor:
        return detached(self.rsample, shape)

    def rsample(self, shape=()) -> Tensor:
        """``-log(u) / rate``: differentiable in rate."""
        full = self._extend_shape(sample_shape(shape, "Exponential.rsample"))
        return -uniform_draws(full, self.dtype).log() / self.rate

    def log_prob(self, value) -> Tensor:
        """``log(rate) - rate value`` (the formula, also outside the support, as Paddle)."""
        value = value_of(value, self.rate, "Exponential.log_prob")
        return self.rate.log() - self.rate * value

    def cdf(self, value) -> Tensor:
        """``1 - exp(-rate value)`` (the formula, also below 0, as Paddle)."""
        value = value_of(value, self.rate, "Exponential.cdf")
        return -(-self.rate * value).expm1()

    def icdf(self, value) -> Tensor:
        """``-log(1 - value) / rate``, the inverse of ``cdf`` for ``value`` in [0, 1)."""
        value = value_of(value, self.rate, "Exponential.icdf")
        return -(-value).log1p() / self.rate

    def entropy(self) -> Tensor:
        return 1 - self.rate.log()


class Gamma(Distribution):
    """Paddle's ``Gamma(concentration, rate)``: density
    ``rate^a x^(a-1) exp(-rate x) / Gamma(a)`` (both positive, checked as Paddle does).
    ``rsample`` raises NotImplementedError: its gradient needs implicit reparameterisation,
    which core does not have (Paddle 3.3.1's is ``standard_gamma(concentration) / rate``; see
    docs/paddle.md)."""

    def __init__(self, concentration, rate):
        self.concentration, self.rate = params("Gamma", concentration=concentration, rate=rate)
        check_positive("Gamma", concentration=self.concentration, rate=self.rate)
        self.dtype = self.rate.dtype
        super().__init__(batch_shape=tuple(self.rate.shape))

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.rate

    @property
    def variance(self) -> Tensor:
        return self.concentration / self.rate.square()

    def sample(self, shape=()) -> Tensor:
        """Draws of shape ``shape + batch_shape`` (no gradient)."""
        full = self._extend_shape(sample_shape(shape, "Gamma.sample"))
        draws = backend.rng().standard_gamma(np.broadcast_to(host(self.concentration), full))
        return on_device(draws / host(self.rate), self.dtype)

    def log_prob(self, value) -> Tensor:
        value = value_of(value, self.rate, "Gamma.log_prob")
        a = self.concentration
        return a * self.rate.log() + (a - 1) * value.log() - self.rate * value - lgamma(a)

    def entropy(self) -> Tensor:
        """``a - log(rate) + lgamma(a) + (1 - a) digamma(a)``."""
        a = self.concentration
        return a - self.rate.log() + lgamma(a) + (1 - a) * digamma(a)
