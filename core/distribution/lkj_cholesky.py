"""``LKJCholesky`` (Paddle's ``paddle.distribution.LKJCholesky``): the LKJ distribution over
the lower Cholesky factors of correlation matrices (Lewandowski, Kurowicka and Joe, 2009)."""
from __future__ import annotations

import math
import numbers

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
from core.elementwise import lgamma
from core.manipulation import diagonal
from core.tensor import Tensor

__all__ = ["LKJCholesky"]

_METHODS = ("onion", "cvine")


class LKJCholesky(Distribution):
    """Paddle's ``LKJCholesky(dim=2, concentration=1.0, sample_method='onion')``.

    The correlation matrix ``C = L L^T`` has density proportional to ``det(C)^(eta - 1)``
    (``eta``: ``concentration``, > 0; 1 is uniform over correlation matrices, larger values
    concentrate near the identity). A draw is the lower-triangular ``L`` [dim, dim], with a
    positive diagonal and rows of unit norm. ``sample_method`` picks how draws are made, not
    what they are: ``'onion'`` (the extended onion method) or ``'cvine'`` (partial correlations
    on a C-vine) give the same distribution. batch_shape is ``concentration``'s shape;
    event_shape is ``[dim, dim]``. As Paddle's, it has ``sample`` and ``log_prob`` (the latter
    differentiable in the value and the concentration), no ``rsample``, mean or entropy.
    """

    def __init__(self, dim: int = 2, concentration=1.0, sample_method: str = "onion"):
        if isinstance(dim, bool) or not isinstance(dim, numbers.Integral):
            raise TypeError(f"LKJCholesky: dim={dim!r} must be an int >= 2 (the size of the "
                            "correlation matrices).")
        if dim < 2:
            raise ValueError(f"LKJCholesky: dim={dim} must be >= 2 (the size of the correlation "
                             "matrices).")
        if sample_method not in _METHODS:
            raise ValueError(f"LKJCholesky: sample_method={sample_method!r} is not supported; "
                             f"use one of {list(_METHODS)}.")
        self.concentration, = params("LKJCholesky", concentration=concentration)
        if not np.all(host(self.concentration) > 0):
            raise ValueError(f"LKJCholesky: concentration={host(self.concentration).tolist()} "
                             "must be positive.")
        self.dim, self.sample_method = int(dim), sample_method
        self.dtype = self.concentration.dtype
        super().__init__(batch_shape=tuple(self.concentration.shape),
                         event_shape=(self.dim, self.dim))

    def sample(self, shape=()) -> Tensor:
        """Draws of shape ``shape + batch_shape + [dim, dim]`` (no gradient)."""
        extra = sample_shape(shape, "LKJCholesky.sample")
        eta = np.broadcast_to(host(self.concentration).astype(np.float64),
                              extra + self.batch_shape)
        draw = _onion if self.sample_method == "onion" else _cvine
        factor = draw(eta, self.dim, backend.rng())
        # A concentration below 1 puts correlations near +-1, where the last diagonal entry
        # of a row, sqrt(1 - |row|^2), rounds to 0 (in float32 at eta 0.1, 2% of draws): its
        # log_prob would be -inf. As torch, the entry is kept at least sqrt(tiny) of the
        # draws' dtype, which that dtype represents.
        floor = math.sqrt(np.finfo(np.dtype(self.dtype)).tiny)
        diagonal = np.arange(self.dim)
        factor[..., diagonal, diagonal] = np.maximum(factor[..., diagonal, diagonal], floor)
        return on_device(factor, self.dtype)

    def log_prob(self, value) -> Tensor:
        """``sum_i (2 (eta - 1) + dim - i) log L_ii`` over the rows i = 2..dim (the density of C
        times the Jacobian from L to C), minus the log normaliser of page 1999 of the paper."""
        value = value_of(value, self.concentration, "LKJCholesky.log_prob")
        if tuple(value.shape[-2:]) != (self.dim, self.dim):
            raise ValueError(f"LKJCholesky.log_prob: value of shape {list(value.shape)} must "
                             f"end in [{self.dim}, {self.dim}] (dim={self.dim}).")
        rows = self.dim - np.arange(2, self.dim + 1, dtype=np.dtype(self.dtype))
        order = 2 * (self.concentration - 1).unsqueeze(-1) + Tensor(backend.asarray(rows))
        unnormalised = (order * diagonal(value, 0, -2, -1)[..., 1:].log()).sum(-1)
        return unnormalised - _log_normaliser(self.concentration, self.dim)


def _log_normaliser(eta: Tensor, dim: int) -> Tensor:
    """``log c(eta)`` with ``alpha = eta + (dim - 1) / 2``: (dim-1)/2 log(pi) +
    mvlgamma(alpha - 1/2, dim - 1) - (dim - 1) lgamma(alpha)."""
    m = dim - 1
    alpha = eta + 0.5 * m
    mvlgamma = sum(lgamma(alpha - 0.5 + (1 - j) / 2) for j in range(1, m + 1)) \
        + m * (m - 1) / 4 * math.log(math.pi)
    return 0.5 * m * math.log(math.pi) + mvlgamma - m * lgamma(alpha)


def _onion(eta: np.ndarray, dim: int, rng) -> np.ndarray:
    """The onion method (section 3.2 of the paper) for the Cholesky factor: row i >= 1 is
    sqrt(y_i) times a uniform direction in its first i coordinates, with
    y_i ~ Beta(i/2, eta + (dim - 1 - i)/2), and the diagonal completes the row to unit norm.

    Paddle and torch draw y_i ~ Beta(i - 1/2, ...) instead (their ``offset + 0.5`` lacks the
    halving), which for dim >= 3 gives correlations that are not LKJ-distributed (at dim 5,
    eta 2 the variance of C[3, 4] is 0.159 where LKJ's is 1/(2 eta + dim - 1) = 0.125); the
    tests check these marginals, so this follows the paper (docs/paddle.md)."""
    half = 0.5 * np.concatenate([[0.0], np.arange(dim - 1.0)])  # (i - 1)/2, row 0 unused
    marginal = eta + 0.5 * (dim - 2)
    y = rng.beta(np.broadcast_to(half + 0.5, eta.shape + (dim,)), marginal[..., None] - half)
    u = np.tril(rng.standard_normal(eta.shape + (dim, dim)), -1)
    norms = np.linalg.norm(u, axis=-1, keepdims=True)
    norms[..., 0, :] = 1.0  # row 0 has no off-diagonal entries: avoid 0/0
    w = np.sqrt(y)[..., None] * (u / norms)
    tiny = np.finfo(np.float64).tiny  # rounding can push 1 - |w|^2 below 0
    w[..., np.arange(dim), np.arange(dim)] = np.sqrt(np.maximum(1 - (w * w).sum(-1), tiny))
    return w


def _cvine(eta: np.ndarray, dim: int, rng) -> np.ndarray:
    """The C-vine method: the partial correlation at (i, j), j < i, is 2 Beta(b_j, b_j) - 1
    with b_j = eta + (dim - 2)/2 - j/2; row i of L is its partial correlations times the running
    product of sqrt(1 - r^2) along the row, with that product's last value on the diagonal."""
    rows, cols = np.tril_indices(dim, -1)
    conc = eta[..., None] + 0.5 * (dim - 2) - 0.5 * cols
    below_one = np.nextafter(1.0, 0.0)  # 1 - tiny rounds to 1: no clip at all
    partial = np.clip(2 * rng.beta(conc, conc) - 1, -below_one, below_one)
    r = np.zeros(eta.shape + (dim, dim))
    r[..., rows, cols] = partial
    remaining = np.cumprod(np.sqrt(1 - r * r), axis=-1)
    shifted = np.concatenate([np.ones(remaining.shape[:-1] + (1,)), remaining[..., :-1]], -1)
    return (r + np.eye(dim)) * shifted
