"""``Gumbel`` (Paddle's ``paddle.distribution.Gumbel``)."""
from __future__ import annotations

import math

from core.distribution.distribution import (
    Distribution,
    detached,
    params,
    sample_shape,
    uniform_draws,
    value_of,
)
from core.tensor import Tensor

__all__ = ["Gumbel"]

_EULER_GAMMA = 0.5772156649015329


class Gumbel(Distribution):
    """Paddle's ``Gumbel(loc, scale)``: density ``exp(-(z + exp(-z))) / scale`` with
    ``z = (x - loc) / scale``."""

    def __init__(self, loc, scale):
        self.loc, self.scale = params("Gumbel", loc=loc, scale=scale)
        self.dtype = self.loc.dtype
        super().__init__(batch_shape=tuple(self.loc.shape))

    @property
    def mean(self) -> Tensor:
        return self.loc + self.scale * _EULER_GAMMA

    @property
    def variance(self) -> Tensor:
        return self.scale.square() * (math.pi ** 2 / 6)

    @property
    def stddev(self) -> Tensor:
        return self.scale * (math.pi / math.sqrt(6))

    def sample(self, shape=()) -> Tensor:
        return detached(self.rsample, shape)

    def rsample(self, shape=()) -> Tensor:
        """``loc - scale log(-log(u))``: differentiable in loc and scale."""
        full = self._extend_shape(sample_shape(shape, "Gumbel.rsample"))
        u = uniform_draws(full, self.dtype)
        return self.loc - self.scale * (-u.log()).log()

    def log_prob(self, value) -> Tensor:
        z = (value_of(value, self.loc, "Gumbel.log_prob") - self.loc) / self.scale
        return -(z + (-z).exp()) - self.scale.log()

    def cdf(self, value) -> Tensor:
        """``exp(-exp(-(value - loc) / scale))``."""
        z = (value_of(value, self.loc, "Gumbel.cdf") - self.loc) / self.scale
        return (-(-z).exp()).exp()

    def entropy(self) -> Tensor:
        """``log(scale) + 1 + euler_gamma``."""
        return self.scale.log() + (1 + _EULER_GAMMA)
