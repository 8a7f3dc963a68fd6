"""``Uniform`` (Paddle's ``paddle.distribution.Uniform``)."""
from __future__ import annotations

from core.distribution.distribution import (
    Distribution,
    detached,
    params,
    sample_shape,
    uniform_draws,
    value_of,
)
from core.manipulation import broadcast_to
from core.search import where
from core.tensor import Tensor

__all__ = ["Uniform"]


class Uniform(Distribution):
    """Paddle's ``Uniform(low, high, name=None)``: uniform on [low, high) (broadcast together).
    ``log_prob`` is ``-log(high - low)`` strictly inside (low, high) and ``-inf`` elsewhere,
    as Paddle's."""

    def __init__(self, low, high, name: str | None = None):
        self.name = name or "Uniform"
        self.low, self.high = params("Uniform", low=low, high=high)
        self.dtype = self.low.dtype
        super().__init__(batch_shape=tuple(self.low.shape))

    @property
    def mean(self) -> Tensor:
        return (self.low + self.high) / 2

    @property
    def variance(self) -> Tensor:
        return (self.high - self.low).square() / 12

    def sample(self, shape=(), seed: int = 0) -> Tensor:
        """Draws of shape ``shape + batch_shape`` (``seed`` is accepted and unused: the draws
        come from core.seed's generator)."""
        del seed
        return detached(self.rsample, shape)

    def rsample(self, shape=()) -> Tensor:
        """``low + (high - low) * u``: differentiable in low and high."""
        full = self._extend_shape(sample_shape(shape, f"{self.name}.rsample"))
        return self.low + (self.high - self.low) * uniform_draws(full, self.dtype)

    def log_prob(self, value) -> Tensor:
        value = value_of(value, self.low, f"{self.name}.log_prob")
        inside = (self.low.data < value.data) & (value.data < self.high.data)
        density = -(self.high - self.low).log()
        if tuple(density.data.shape) != inside.shape:  # value may add sample dimensions
            density = broadcast_to(density, list(inside.shape))
        return where(inside, density, float("-inf"))

    def entropy(self) -> Tensor:
        return (self.high - self.low).log()
