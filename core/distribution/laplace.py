"""``Laplace`` (Paddle's ``paddle.distribution.Laplace``)."""
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

__all__ = ["Laplace"]


class Laplace(Distribution):
    """Paddle's ``Laplace(loc, scale)``: density ``exp(-|x - loc| / scale) / (2 scale)``."""

    def __init__(self, loc, scale):
        self.loc, self.scale = params("Laplace", loc=loc, scale=scale)
        self.dtype = self.loc.dtype
        super().__init__(batch_shape=tuple(self.loc.shape))

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return 2 * self.scale.square()

    @property
    def stddev(self) -> Tensor:
        return math.sqrt(2) * self.scale

    def sample(self, shape=()) -> Tensor:
        return detached(self.rsample, shape)

    def rsample(self, shape=()) -> Tensor:
        """The inverse CDF at ``u`` uniform in (-1, 1): ``loc - scale sign(u) log(1 - |u|)``."""
        full = self._extend_shape(sample_shape(shape, "Laplace.rsample"))
        u = uniform_draws(full, self.dtype) * 2 - 1
        return self.loc - self.scale * u.sign() * (-u.abs()).log1p()

    def log_prob(self, value) -> Tensor:
        value = value_of(value, self.loc, "Laplace.log_prob")
        return -(value - self.loc).abs() / self.scale - (2 * self.scale).log()

    def cdf(self, value) -> Tensor:
        """``1/2 - sign(value - loc) expm1(-|value - loc| / scale) / 2``."""
        diff = value_of(value, self.loc, "Laplace.cdf") - self.loc
        return 0.5 - 0.5 * diff.sign() * (-diff.abs() / self.scale).expm1()

    def icdf(self, value) -> Tensor:
        """``loc - scale sign(value - 1/2) log(1 - 2 |value - 1/2|)``, for ``value`` in
        (0, 1)."""
        term = value_of(value, self.loc, "Laplace.icdf") - 0.5
        return self.loc - self.scale * term.sign() * (-2 * term.abs()).log1p()

    def entropy(self) -> Tensor:
        """``1 + log(2 scale)``."""
        return (2 * self.scale).log() + 1
