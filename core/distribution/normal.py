"""``Normal`` and ``LogNormal`` (Paddle's ``paddle.distribution.Normal`` / ``LogNormal``)."""
from __future__ import annotations

import math

from core import backend
from core.distribution.distribution import (
    Distribution,
    detached,
    on_device,
    params,
    sample_shape,
    value_of,
)
from core.tensor import Tensor

__all__ = ["LogNormal", "Normal"]

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


class Normal(Distribution):
    """Paddle's ``Normal(loc, scale, name=None)``: the Gaussian with mean ``loc`` and standard
    deviation ``scale`` (floats, lists, arrays or Tensors, broadcast together; scale is not
    checked for positivity, as in Paddle)."""

    def __init__(self, loc, scale, name: str | None = None):
        self.name = name or "Normal"
        self.loc, self.scale = params("Normal", loc=loc, scale=scale)
        self.dtype = self.loc.dtype
        super().__init__(batch_shape=tuple(self.loc.shape))

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return self.scale.square()

    @property
    def stddev(self) -> Tensor:
        return self.scale

    def sample(self, shape=(), seed: int = 0) -> Tensor:
        """Draws of shape ``shape + batch_shape`` (Paddle's ``sample(shape=(), seed=0)``; the
        draws come from core.seed's generator, so ``seed`` is accepted and unused)."""
        del seed
        return detached(self.rsample, shape)

    def rsample(self, shape=()) -> Tensor:
        """``loc + scale * eps`` with standard normal ``eps``: differentiable in loc and scale."""
        full = self._extend_shape(sample_shape(shape, f"{self.name}.rsample"))
        eps = on_device(backend.rng().standard_normal(full), self.dtype)
        return self.loc + eps * self.scale

    def log_prob(self, value) -> Tensor:
        value = value_of(value, self.loc, f"{self.name}.log_prob")
        z = (value - self.loc) / self.scale
        return -0.5 * z.square() - self.scale.log() - _HALF_LOG_2PI

    def entropy(self) -> Tensor:
        """``0.5 + 0.5 log(2 pi) + log(scale)``."""
        return self.scale.log() + (0.5 + _HALF_LOG_2PI)


class LogNormal(Distribution):
    """Paddle's ``LogNormal(loc, scale)``: ``exp(X)`` for ``X ~ Normal(loc, scale)`` (``loc``
    and ``scale`` are the underlying normal's)."""

    def __init__(self, loc, scale):
        self._base = Normal(loc, scale, name="LogNormal")
        self.loc, self.scale, self.dtype = self._base.loc, self._base.scale, self._base.dtype
        super().__init__(batch_shape=self._base.batch_shape)

    @property
    def mean(self) -> Tensor:
        return (self.loc + 0.5 * self.scale.square()).exp()

    @property
    def variance(self) -> Tensor:
        s2 = self.scale.square()
        return (s2.exp() - 1) * (2 * self.loc + s2).exp()

    def sample(self, shape=()) -> Tensor:
        return detached(self.rsample, shape)

    def rsample(self, shape=()) -> Tensor:
        return self._base.rsample(shape).exp()

    def log_prob(self, value) -> Tensor:
        """The normal's log density at ``log(value)`` minus ``log(value)`` (the Jacobian)."""
        log_value = value_of(value, self.loc, "LogNormal.log_prob").log()
        return self._base.log_prob(log_value) - log_value

    def entropy(self) -> Tensor:
        return self._base.entropy() + self.loc
