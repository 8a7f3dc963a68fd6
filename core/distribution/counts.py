"""The counting distributions: ``Poisson``, ``Geometric``, ``Binomial`` and ``Multinomial``
(Paddle's ``paddle.distribution`` classes of those names). Draws are float counts in the
parameters' dtype, as Paddle's; they come from core.seed's host generator."""
from __future__ import annotations

import math

import numpy as np

from core import backend
from core.creation import arange
from core.distribution.distribution import (
    Distribution,
    as_float,
    detached,
    host,
    on_device,
    params,
    sample_shape,
    uniform_draws,
    value_of,
)
from core.elementwise import lgamma
from core.search import where
from core.tensor import Tensor

__all__ = ["Binomial", "Geometric", "Multinomial", "Poisson"]


def xlogy(x: Tensor, y: Tensor) -> Tensor:
    """``x log(y)``, 0 where x is 0 (so a zero-probability outcome that never occurs adds
    nothing instead of NaN). y is replaced by 1 there before the log, so that log's gradient
    (1 / y, infinite at y = 0) is not multiplied by the zero cotangent into NaN."""
    zero = x.data == 0
    return where(zero, 0.0, x * where(zero, 1.0, y).log())


def _check_range(fn: str, name: str, t: Tensor, low: float, high: float | None = None,
                 low_open: bool = False, integer: bool = False) -> None:
    """Checks a parameter's values on the host (one read; a GPU synchronises)."""
    data = host(t)
    ok = (data > low) if low_open else (data >= low)
    if high is not None:
        ok &= data <= high
    if integer:
        ok &= data == np.round(data)
    if not ok.all():
        where_ = f"({low}, " if low_open else f"[{low}, "
        allowed = (f"in {where_}{high}]" if high is not None
                   else ("an integer" if integer else "a number") + f" >= {low}")
        bad = float(data[~ok].ravel()[0])
        raise ValueError(f"{fn}: '{name}' must be {allowed}, got {bad!r}")


def _support(low: int, high: int, batch_rank: int, dtype) -> Tensor:
    """The integers low..high as a Tensor shaped [n] + [1] * batch_rank, to broadcast
    against a batch."""
    values = arange(low, high + 1, dtype=dtype)
    return values.reshape([-1] + [1] * batch_rank)


def _wide(t: Tensor) -> Tensor:
    """``t`` in float64 (differentiably): the entropies sum many terms of lgamma of large
    counts, which float32 rounds to garbage (Poisson(1e7) had entropy 0.05, not 9.48)."""
    return as_float(t, np.dtype("float64"))


def _support_entropy(dist, low: int, high: int) -> Tensor:
    """``-sum p log p`` over the integers low..high (the mass left outside is negligible).
    ``dist`` should have float64 parameters (see _wide)."""
    log_p = dist._log_mass(_support(low, high, len(dist.batch_shape), dist.dtype))
    finite = where(log_p.data == float("-inf"), 0.0, log_p)  # p log p is 0 where p is 0
    return -(log_p.exp() * finite).sum(0)


class Poisson(Distribution):
    """Paddle's ``Poisson(rate)``: mass ``rate^k exp(-rate) / k!`` on k = 0, 1, ... (``rate``
    non-negative, checked as Paddle does). ``entropy`` sums ``-p log p`` over the support
    within ``rate +- 10 sqrt(rate) + 10`` (Paddle's within 5 standard deviations)."""

    def __init__(self, rate):
        self.rate, = params("Poisson", rate=rate)
        _check_range("Poisson", "rate", self.rate, 0.0)
        self.dtype = self.rate.dtype
        super().__init__(batch_shape=tuple(self.rate.shape))

    @property
    def mean(self) -> Tensor:
        return self.rate

    @property
    def variance(self) -> Tensor:
        return self.rate

    def sample(self, shape=()) -> Tensor:
        """Counts of shape ``shape + batch_shape`` (floats, no gradient)."""
        full = self._extend_shape(sample_shape(shape, "Poisson.sample"))
        return on_device(backend.rng().poisson(np.broadcast_to(host(self.rate), full)),
                         self.dtype)

    def log_prob(self, value) -> Tensor:
        """``value log(rate) - rate - lgamma(value + 1)``; ``value`` must be non-negative
        (checked, as Paddle)."""
        value = value_of(value, self.rate, "Poisson.log_prob")
        _check_range("Poisson.log_prob", "value", value, 0.0)
        return self._log_mass(value)

    def _log_mass(self, value: Tensor) -> Tensor:
        return xlogy(value, self.rate) - self.rate - lgamma(value + 1)

    def entropy(self) -> Tensor:
        rate = host(self.rate)
        least, most = (float(rate.min()), float(rate.max())) if rate.size else (0.0, 0.0)
        low = max(0, int(least - 10 * math.sqrt(least) - 10))
        high = int(math.ceil(most + 10 * math.sqrt(most) + 10))
        return as_float(_support_entropy(Poisson(_wide(self.rate)), low, high), self.dtype)


class Geometric(Distribution):
    """Paddle's ``Geometric(probs)``: the number of failures before the first success,
    mass ``(1 - p)^k p`` on k = 0, 1, ... (``probs`` in (0, 1], checked)."""

    def __init__(self, probs):
        self.probs, = params("Geometric", probs=probs)
        _check_range("Geometric", "probs", self.probs, 0.0, 1.0, low_open=True)
        self.dtype = self.probs.dtype
        super().__init__(batch_shape=tuple(self.probs.shape))

    @property
    def mean(self) -> Tensor:
        return self.probs.reciprocal() - 1

    @property
    def variance(self) -> Tensor:
        return (self.probs.reciprocal() - 1) / self.probs

    @property
    def stddev(self) -> Tensor:
        return self.variance.sqrt()

    def pmf(self, k) -> Tensor:
        """``(1 - p)^k p``."""
        return self.log_pmf(k).exp()

    def log_pmf(self, k) -> Tensor:
        """``k log(1 - p) + log(p)``."""
        k = value_of(k, self.probs, "Geometric.log_pmf")
        return xlogy(k, 1 - self.probs) + self.probs.log()

    def log_prob(self, value) -> Tensor:
        """``log_pmf(value)`` (core's name for it on every distribution)."""
        return self.log_pmf(value)

    def cdf(self, k) -> Tensor:
        """``1 - (1 - p)^(k + 1)``: P(X <= k)."""
        k = value_of(k, self.probs, "Geometric.cdf")
        return 1 - ((k + 1) * (-self.probs).log1p()).exp()

    def sample(self, shape=()) -> Tensor:
        """Counts of shape ``shape + batch_shape``: ``floor(log(u) / log(1 - p))``."""
        return self.rsample(shape).detach()

    def rsample(self, shape=()) -> Tensor:
        """Paddle's ``rsample``: the same floored draws, whose gradient is zero (a count is
        piecewise constant in ``probs``)."""
        full = self._extend_shape(sample_shape(shape, "Geometric.rsample"))
        u = uniform_draws(full, self.dtype)
        certain = self.probs.data == 1  # always 0 failures; log1p(-1) would be -inf
        safe = where(certain, 0.5, self.probs)
        counts = detached(lambda: where(certain, 0.0, (u.log() / (-safe).log1p()).floor()))
        # The zero gradient as an explicit 0 * probs: through the division it was 0 * inf =
        # NaN where probs is 1.
        return counts + 0 * self.probs

    def entropy(self) -> Tensor:
        """``-((1 - p) log(1 - p) + p log(p)) / p``."""
        p = self.probs
        return -(xlogy(1 - p, 1 - p) + p * p.log()) / p


class Binomial(Distribution):
    """Paddle's ``Binomial(total_count, probs)``: successes in ``total_count`` trials of
    probability ``probs`` (``total_count`` integers >= 1 and ``probs`` in [0, 1], checked as
    Paddle does). Unlike Paddle, ``entropy`` also takes unequal total_counts."""

    def __init__(self, total_count, probs):
        self.total_count, self.probs = params("Binomial", total_count=total_count, probs=probs)
        self.total_count = self.total_count.detach()
        _check_range("Binomial", "total_count", self.total_count, 1.0, integer=True)
        _check_range("Binomial", "probs", self.probs, 0.0, 1.0)
        self.dtype = self.probs.dtype
        super().__init__(batch_shape=tuple(self.probs.shape))

    @property
    def mean(self) -> Tensor:
        return self.total_count * self.probs

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, shape=()) -> Tensor:
        """Counts of shape ``shape + batch_shape`` (floats, no gradient)."""
        full = self._extend_shape(sample_shape(shape, "Binomial.sample"))
        n = np.broadcast_to(host(self.total_count).astype(np.int64), full)
        return on_device(backend.rng().binomial(n, np.broadcast_to(host(self.probs), full)),
                         self.dtype)

    def log_prob(self, value) -> Tensor:
        """``log C(n, value) + value log(p) + (n - value) log(1 - p)``; ``value`` must lie in
        [0, total_count] (checked, as Paddle)."""
        value = value_of(value, self.probs, "Binomial.log_prob")
        data, n = host(value), host(self.total_count)
        if not ((data >= 0) & (data <= n)).all():
            raise ValueError(f"Binomial.log_prob: 'value' must lie in [0, total_count], got "
                             f"values from {data.min()!r} to {data.max()!r}")
        return self._log_mass(value)

    def _log_mass(self, value: Tensor) -> Tensor:
        """The log mass, -inf above total_count (for the support sums)."""
        n = self.total_count
        rest = n - value
        log_mass = (lgamma(n + 1) - lgamma(value + 1) - lgamma(rest.clip(min=0) + 1)
                    + xlogy(value, self.probs) + xlogy(rest, 1 - self.probs))
        return where(rest.data < 0, float("-inf"), log_mass)

    def entropy(self) -> Tensor:
        wide = Binomial(_wide(self.total_count), _wide(self.probs))
        # initial: an empty batch has no maximum
        entropy = _support_entropy(wide, 0, int(host(self.total_count).max(initial=1)))
        return as_float(entropy, self.dtype)


class Multinomial(Distribution):
    """Paddle's ``Multinomial(total_count, probs)``: counts of ``total_count`` (an int >= 1)
    draws from the categories on the last axis of ``probs`` (at least 1-D, normalised by its
    sum, as Paddle). batch_shape is ``probs.shape[:-1]`` and event_shape ``probs.shape[-1:]``."""

    def __init__(self, total_count, probs):
        if isinstance(total_count, bool) or not isinstance(total_count, (int, np.integer)) \
                or total_count < 1:
            raise ValueError(f"Multinomial: 'total_count' must be an int >= 1, got "
                             f"{total_count!r}")
        self.total_count = int(total_count)
        probs, = params("Multinomial", probs=probs)
        if probs.ndim < 1:
            raise ValueError("Multinomial: 'probs' must be at least 1-D (the last axis holds "
                             "the categories), got a 0-D value")
        _check_range("Multinomial", "probs", probs, 0.0)
        self.probs = probs / probs.sum(-1, keepdim=True)
        self.dtype = probs.dtype
        shape = tuple(probs.shape)
        super().__init__(batch_shape=shape[:-1], event_shape=shape[-1:])

    @property
    def mean(self) -> Tensor:
        return self.probs * self.total_count

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, shape=()) -> Tensor:
        """Counts of shape ``shape + batch_shape + event_shape`` (floats, no gradient)."""
        full = self._extend_shape(sample_shape(shape, "Multinomial.sample"))
        pvals = host(self.probs).astype(np.float64)
        pvals = pvals / pvals.sum(-1, keepdims=True)  # float32 sums may pass 1: numpy refuses
        pvals = np.broadcast_to(pvals, full)
        return on_device(backend.rng().multinomial(self.total_count, pvals), self.dtype)

    def log_prob(self, value) -> Tensor:
        """``lgamma(n + 1) - sum lgamma(value + 1) + sum value log(p)`` over the categories."""
        value = value_of(value, self.probs, "Multinomial.log_prob")
        return (lgamma(value.sum(-1) + 1) - lgamma(value + 1).sum(-1)
                + xlogy(value, self.probs).sum(-1))

    def entropy(self) -> Tensor:
        """``n H(probs) - lgamma(n + 1) + sum_i E[lgamma(X_i + 1)]`` with the binomial
        marginals ``X_i ~ Binomial(n, p_i)``, summed in float64 (see _wide)."""
        n, probs = self.total_count, _wide(self.probs)
        counts = _support(0, n, len(self.batch_shape) + 1, probs.dtype)
        marginal = Binomial(float(n), probs)._log_mass(counts).exp()
        expected_lgamma = (marginal * lgamma(counts + 1)).sum(0).sum(-1)
        entropy = (-n * xlogy(probs, probs).sum(-1) - math.lgamma(n + 1) + expected_lgamma)
        return as_float(entropy, self.dtype)
