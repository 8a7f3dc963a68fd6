"""``Bernoulli`` (Paddle's ``paddle.distribution.Bernoulli``)."""
from __future__ import annotations

import numpy as np

from core import backend
from core.distribution.distribution import (
    Distribution,
    host,
    on_device,
    params,
    sample_shape,
    uniform_draws,
    value_of,
)
from core.nn.functional import log_sigmoid, sigmoid
from core.search import where
from core.tensor import Tensor

__all__ = ["Bernoulli"]


class Bernoulli(Distribution):
    """Paddle's ``Bernoulli(probs, name=None)``: 1 with probability ``probs``, else 0.

    ``probs`` must lie in [0, 1] (checked, as Paddle; a GPU synchronises) and is then clipped
    to [eps, 1 - eps] of its dtype, as Paddle, so ``logits`` stay finite."""

    def __init__(self, probs, name: str | None = None):
        self.name = name or "Bernoulli"
        probs, = params("Bernoulli", probs=probs)
        data = host(probs)
        if not ((data >= 0) & (data <= 1)).all():
            raise ValueError(f"{self.name}: 'probs' must be in [0, 1], got values from "
                             f"{np.nanmin(data)!r} to {np.nanmax(data)!r} (or NaN)")
        eps = float(np.finfo(probs.dtype).eps)
        self.probs = probs.clip(eps, 1 - eps)
        self.logits = self.probs.log() - (-self.probs).log1p()
        self.dtype = probs.dtype
        super().__init__(batch_shape=tuple(probs.shape))

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    def sample(self, shape=()) -> Tensor:
        """0/1 draws of shape ``shape + batch_shape`` in ``probs``' dtype (no gradient)."""
        full = self._extend_shape(sample_shape(shape, f"{self.name}.sample"))
        draws = backend.rng().random(full) < np.broadcast_to(host(self.probs), full)
        return on_device(draws, self.dtype)

    def rsample(self, shape=(), temperature: float = 1.0) -> Tensor:
        """The relaxed (Concrete / Gumbel-softmax) draws of Paddle:
        ``sigmoid((logits + log(u) - log(1 - u)) / temperature)``, differentiable in probs."""
        if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) \
                or temperature <= 0:
            raise ValueError(f"{self.name}.rsample: 'temperature' must be a positive number, "
                             f"got {temperature!r}")
        full = self._extend_shape(sample_shape(shape, f"{self.name}.rsample"))
        u = uniform_draws(full, self.dtype)
        return sigmoid((self.logits + u.log() - (-u).log1p()) / temperature)

    def log_prob(self, value) -> Tensor:
        """``value log(p) + (1 - value) log(1 - p)`` (minus the binary cross entropy with
        logits, as Paddle)."""
        value = value_of(value, self.probs, f"{self.name}.log_prob")
        return value * log_sigmoid(self.logits) + (1 - value) * log_sigmoid(-self.logits)

    def cdf(self, value) -> Tensor:
        """``P(X <= value)``: 0 below 0, ``1 - probs`` on [0, 1), 1 from 1 on (Paddle's
        step function; ``value`` and ``probs`` broadcast)."""
        value = value_of(value, self.probs, f"{self.name}.cdf")
        step = where(value < 1, 1 - self.probs, (1 - self.probs) * 0 + 1)
        return where(value < 0, step * 0, step)

    def entropy(self) -> Tensor:
        return -(self.probs * log_sigmoid(self.logits)
                 + (1 - self.probs) * log_sigmoid(-self.logits))
