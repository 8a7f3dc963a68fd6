"""``ContinuousBernoulli`` (Paddle's ``paddle.distribution.ContinuousBernoulli``)."""
from __future__ import annotations

import math

import numpy as np

from core.distribution.distribution import (
    Distribution,
    detached,
    host,
    params,
    sample_shape,
    uniform_draws,
    value_of,
)
from core.search import where
from core.tensor import Tensor

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(Distribution):
    """Paddle's ``ContinuousBernoulli(probs, lims=(0.499, 0.501))``: density
    ``C(p) p^x (1 - p)^(1 - x)`` on [0, 1] with ``C(p) = 2 atanh(1 - 2p) / (1 - 2p)`` (and 2 at
    p = 1/2). ``probs`` must lie in [0, 1] (checked) and is clipped to [eps, 1 - eps]; for
    probs within ``lims`` the formulas, unstable there, use Taylor expansions around 1/2, as
    Paddle's. A Python number gives batch_shape (1,), as Paddle's."""

    def __init__(self, probs, lims=(0.499, 0.501)):
        if isinstance(probs, (int, float)) and not isinstance(probs, bool):
            probs = [probs]  # Paddle makes a number a 1-D Tensor
        probs, = params("ContinuousBernoulli", probs=probs)
        data = host(probs)
        if not ((data >= 0) & (data <= 1)).all():
            raise ValueError(f"ContinuousBernoulli: 'probs' must be in [0, 1], got values from "
                             f"{float(np.nanmin(data))!r} to {float(np.nanmax(data))!r} (or NaN)")
        if not (isinstance(lims, (list, tuple)) and len(lims) == 2
                and 0 < float(lims[0]) < 0.5 < float(lims[1]) < 1):
            raise ValueError(f"ContinuousBernoulli: 'lims' must be a pair (low, high) with "
                             f"0 < low < 0.5 < high < 1, got {lims!r}")
        self.lims = (float(lims[0]), float(lims[1]))
        eps = float(np.finfo(probs.dtype).eps)
        self.probs = probs.clip(eps, 1 - eps)
        self.dtype = self.probs.dtype
        super().__init__(batch_shape=tuple(self.probs.shape))

    def _stable(self):
        """Where probs lies outside ``lims`` (the closed forms are stable there)."""
        p = self.probs.data
        return (p <= self.lims[0]) | (p > self.lims[1])

    def _cut_probs(self) -> Tensor:
        """probs, with lims[0] inside lims: a stable stand-in so the unused branch of each
        ``where`` stays finite (and its gradient zero, not NaN)."""
        return where(self._stable(), self.probs, self.lims[0])

    def _log_constant(self) -> Tensor:
        """``log C(p)``: ``log(2 |atanh(1 - 2p)|) - log|1 - 2p|``, near 1/2
        ``log 2 + (4/3 + 104/45 x) x`` with ``x = (p - 1/2)^2``."""
        cut = self._cut_probs()
        exact = (2 * (1 - 2 * cut).atanh().abs()).log() - (1 - 2 * cut).abs().log()
        x = (self.probs - 0.5).square()
        taylor = math.log(2) + (4 / 3 + 104 / 45 * x) * x
        return where(self._stable(), exact, taylor)

    @property
    def mean(self) -> Tensor:
        cut = self._cut_probs()
        exact = cut / (2 * cut - 1) + 1 / (2 * (1 - 2 * cut).atanh())
        x = self.probs - 0.5
        return where(self._stable(), exact, 0.5 + (1 / 3 + 16 / 45 * x.square()) * x)

    @property
    def variance(self) -> Tensor:
        cut = self._cut_probs()
        exact = (cut * (cut - 1) / (1 - 2 * cut).square()
                 + 1 / ((-cut).log1p() - cut.log()).square())
        x = (self.probs - 0.5).square()
        return where(self._stable(), exact, 1 / 12 - (1 / 15 - 128 / 945 * x) * x)

    def sample(self, shape=()) -> Tensor:
        return detached(self.rsample, shape)

    def rsample(self, shape=()) -> Tensor:
        """``icdf(u)`` for uniform ``u``: differentiable in probs."""
        full = self._extend_shape(sample_shape(shape, "ContinuousBernoulli.rsample"))
        return self._icdf(uniform_draws(full, self.dtype))

    def log_prob(self, value) -> Tensor:
        """``log C(p) + value log(p) + (1 - value) log(1 - p)``; ``value`` must lie in [0, 1]
        (checked, as Paddle)."""
        value = self._unit(value, "log_prob")
        return (self._log_constant() + value * self.probs.log()
                + (1 - value) * (-self.probs).log1p())

    def entropy(self) -> Tensor:
        """``-log C(p) + mean (log(1 - p) - log(p)) - log(1 - p)`` (0 at p = 1/2)."""
        log_q = (-self.probs).log1p()
        return -self._log_constant() + self.mean * (log_q - self.probs.log()) - log_q

    def cdf(self, value) -> Tensor:
        """``(p^x (1 - p)^(1 - x) + p - 1) / (2p - 1)`` (``x`` near p = 1/2), 0 below the
        support and 1 above it (as Paddle: no range check, unlike ``icdf``)."""
        value = value_of(value, self.probs, "ContinuousBernoulli.cdf")
        cut = self._cut_probs()
        exact = ((value * cut.log() + (1 - value) * (-cut).log1p()).exp() + cut - 1) / (
            2 * cut - 1)
        inside = where(self._stable(), exact, value)
        return where(value.data <= 0, 0.0, where(value.data >= 1, 1.0, inside))

    def icdf(self, value) -> Tensor:
        """``(log1p((2p - 1) x - p) - log(1 - p)) / log(p / (1 - p))``, the inverse of ``cdf``
        (``x`` near p = 1/2)."""
        return self._icdf(self._unit(value, "icdf"))

    def _icdf(self, value: Tensor) -> Tensor:
        cut = self._cut_probs()
        exact = (((2 * cut - 1) * value - cut).log1p() - (-cut).log1p()) / (
            cut.log() - (-cut).log1p())
        return where(self._stable(), exact, value)

    def _unit(self, value, method: str) -> Tensor:
        value = value_of(value, self.probs, f"ContinuousBernoulli.{method}")
        data = host(value)
        if not ((data >= 0) & (data <= 1)).all():
            low, high = float(np.nanmin(data)), float(np.nanmax(data))
            raise ValueError(f"ContinuousBernoulli.{method}: 'value' must be in [0, 1], got "
                             f"values from {low!r} to {high!r}")
        return value


def kl_continuous_bernoulli(p: ContinuousBernoulli, q: ContinuousBernoulli) -> Tensor:
    """``-H(p) - (log C(q) + E_p[X] (log q - log(1 - q)) + log(1 - q))``."""
    log_q, log_1q = q.probs.log(), (-q.probs).log1p()
    return -p.entropy() - (q._log_constant() + p.mean * (log_q - log_1q) + log_1q)
