"""``Dirichlet`` and ``Beta`` (Paddle's ``paddle.distribution.Dirichlet`` / ``Beta``)."""
from __future__ import annotations

import numpy as np

from core import backend
from core.distribution.distribution import (
    Distribution,
    host,
    on_device,
    params,
    sample_shape,
    value_of,
)
from core.elementwise import digamma, lgamma
from core.tensor import Tensor

__all__ = ["Beta", "Dirichlet"]


def _log_beta(alpha: Tensor, beta: Tensor) -> Tensor:
    return lgamma(alpha) + lgamma(beta) - lgamma(alpha + beta)


class Dirichlet(Distribution):
    """Paddle's ``Dirichlet(concentration)``: over the simplex of the last axis of
    ``concentration`` (at least 1-D; event_shape is its last dimension). ``rsample`` raises
    NotImplementedError, as Paddle's (no implicit reparameterisation)."""

    def __init__(self, concentration):
        self.concentration, = params("Dirichlet", concentration=concentration)
        if self.concentration.ndim < 1:
            raise ValueError("Dirichlet: 'concentration' must be at least 1-D (the last axis "
                             "holds the categories), got a 0-D value")
        shape = tuple(self.concentration.shape)
        self.dtype = self.concentration.dtype
        super().__init__(batch_shape=shape[:-1], event_shape=shape[-1:])

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def variance(self) -> Tensor:
        total = self.concentration.sum(-1, keepdim=True)
        c = self.concentration
        return c * (total - c) / (total.square() * (total + 1))

    def sample(self, shape=()) -> Tensor:
        """Draws of shape ``shape + batch_shape + event_shape``: normalised gamma draws."""
        full = self._extend_shape(sample_shape(shape, "Dirichlet.sample"))
        gammas = backend.rng().standard_gamma(np.broadcast_to(host(self.concentration), full))
        gammas = np.maximum(gammas, np.finfo(np.float64).tiny)  # tiny concentrations underflow
        return on_device(gammas / gammas.sum(-1, keepdims=True), self.dtype)

    def log_prob(self, value) -> Tensor:
        value = value_of(value, self.concentration, "Dirichlet.log_prob")
        c = self.concentration
        return (((c - 1) * value.log()).sum(-1) + lgamma(c.sum(-1)) - lgamma(c).sum(-1))

    def entropy(self) -> Tensor:
        c = self.concentration
        total, k = c.sum(-1), c.shape[-1]
        return (lgamma(c).sum(-1) - lgamma(total) + (total - k) * digamma(total)
                - ((c - 1) * digamma(c)).sum(-1))


class Beta(Distribution):
    """Paddle's ``Beta(alpha, beta)``: density ``x^(a-1) (1-x)^(b-1) / B(a, b)`` on [0, 1].
    ``rsample`` raises NotImplementedError, as Paddle's."""

    def __init__(self, alpha, beta):
        self.alpha, self.beta = params("Beta", alpha=alpha, beta=beta)
        self.dtype = self.alpha.dtype
        super().__init__(batch_shape=tuple(self.alpha.shape))

    @property
    def mean(self) -> Tensor:
        return self.alpha / (self.alpha + self.beta)

    @property
    def variance(self) -> Tensor:
        total = self.alpha + self.beta
        return self.alpha * self.beta / (total.square() * (total + 1))

    def sample(self, shape=()) -> Tensor:
        """Draws of shape ``shape + batch_shape`` (no gradient)."""
        full = self._extend_shape(sample_shape(shape, "Beta.sample"))
        a = np.broadcast_to(host(self.alpha), full)
        b = np.broadcast_to(host(self.beta), full)
        return on_device(backend.rng().beta(a, b), self.dtype)

    def log_prob(self, value) -> Tensor:
        value = value_of(value, self.alpha, "Beta.log_prob")
        return ((self.alpha - 1) * value.log() + (self.beta - 1) * (-value).log1p()
                - _log_beta(self.alpha, self.beta))

    def entropy(self) -> Tensor:
        a, b = self.alpha, self.beta
        total = a + b
        return (_log_beta(a, b) - (a - 1) * digamma(a) - (b - 1) * digamma(b)
                + (total - 2) * digamma(total))
