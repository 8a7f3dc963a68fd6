"""``MultivariateNormal`` (Paddle's ``paddle.distribution.MultivariateNormal``)."""
from __future__ import annotations

import math

import numpy as np

from core import backend
from core.distribution.distribution import (
    Distribution,
    as_float,
    detached,
    on_device,
    params,
    sample_shape,
    value_of,
)
from core.linalg import cholesky, inv, triangular_solve
from core.manipulation import broadcast_to
from core.tensor import Tensor

__all__ = ["MultivariateNormal"]

_LOG_2PI = math.log(2 * math.pi)
_MATRICES = ("covariance_matrix", "precision_matrix", "scale_tril")


class MultivariateNormal(Distribution):
    """Paddle's ``MultivariateNormal(loc, covariance_matrix=None, precision_matrix=None,
    scale_tril=None)``: the Gaussian with mean ``loc`` [..., k] and exactly one of a covariance
    matrix, a precision matrix (both symmetric positive definite) or the lower-triangular
    Cholesky factor ``scale_tril`` of the covariance, each [..., k, k]. batch_shape broadcasts
    loc's and the matrix's leading dimensions; event_shape is ``[k]``."""

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None):
        given = {name: value for name, value in zip(
            _MATRICES, (covariance_matrix, precision_matrix, scale_tril)) if value is not None}
        if len(given) != 1:
            raise ValueError(f"MultivariateNormal: give exactly one of 'covariance_matrix', "
                             f"'precision_matrix' and 'scale_tril', got "
                             f"{sorted(given) or 'none'}")
        (kind, matrix), = given.items()
        loc, matrix = _loc_and_matrix(loc, kind, matrix)
        k = loc.shape[-1]
        if kind == "scale_tril":
            tril = matrix.tril()
        elif kind == "covariance_matrix":
            tril = cholesky(matrix)
        else:
            tril = cholesky(inv(matrix))
        batch = tuple(np.broadcast_shapes(tuple(loc.shape[:-1]), tuple(tril.shape[:-2])))
        self.loc = _expand(loc, list(batch) + [k])
        self.scale_tril = _expand(tril, list(batch) + [k, k])
        self.dtype = self.loc.dtype
        super().__init__(batch_shape=batch, event_shape=(k,))

    @property
    def covariance_matrix(self) -> Tensor:
        """``scale_tril @ scale_tril^T``."""
        return self.scale_tril.matmul(self.scale_tril, transpose_y=True)

    @property
    def precision_matrix(self) -> Tensor:
        """The inverse of the covariance matrix."""
        return inv(self.covariance_matrix)

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        """The diagonal of the covariance: the squared rows of scale_tril, summed."""
        return self.scale_tril.square().sum(-1)

    @property
    def stddev(self) -> Tensor:
        return self.variance.sqrt()

    def sample(self, shape=()) -> Tensor:
        return detached(self.rsample, shape)

    def rsample(self, shape=()) -> Tensor:
        """``loc + scale_tril @ eps`` with standard normal ``eps``: differentiable in loc and
        the matrix."""
        full = self._extend_shape(sample_shape(shape, "MultivariateNormal.rsample"))
        eps = on_device(backend.rng().standard_normal(full), self.dtype)
        return self.loc + self.scale_tril.matmul(eps.unsqueeze(-1)).squeeze(-1)

    def log_prob(self, value) -> Tensor:
        """``-(k log(2 pi) + |L^-1 (value - loc)|^2) / 2 - sum log diag(L)``."""
        diff = value_of(value, self.loc, "MultivariateNormal.log_prob") - self.loc
        mahalanobis = _solve_tril(self.scale_tril, diff).square().sum(-1)
        k = self.event_shape[0]
        return -0.5 * (k * _LOG_2PI + mahalanobis) - self._half_log_det()

    def entropy(self) -> Tensor:
        """``k (1 + log(2 pi)) / 2 + sum log diag(L)``."""
        k = self.event_shape[0]
        return self._half_log_det() + 0.5 * k * (1 + _LOG_2PI)

    def _half_log_det(self) -> Tensor:
        """``log det(covariance) / 2``: the sum of log diag(scale_tril)."""
        return self.scale_tril.diagonal(axis1=-2, axis2=-1).log().sum(-1)


def _loc_and_matrix(loc, kind: str, matrix) -> tuple[Tensor, Tensor]:
    """loc and the matrix as float Tensors of one dtype (not broadcast: their shapes differ),
    checked for shape."""
    loc, = params("MultivariateNormal", loc=loc)
    matrix, = params("MultivariateNormal", **{kind: matrix})
    if loc.dtype != matrix.dtype:  # a float64 one makes both float64, as params does
        loc, matrix = (as_float(t, np.dtype("float64")) for t in (loc, matrix))
    if loc.ndim < 1:
        raise ValueError("MultivariateNormal: 'loc' must be at least 1-D ([..., k]), got a 0-D "
                         "value")
    k = loc.shape[-1]
    if matrix.ndim < 2 or tuple(matrix.shape[-2:]) != (k, k):
        raise ValueError(f"MultivariateNormal: '{kind}' must be [..., {k}, {k}] to match loc "
                         f"of shape {loc.shape}, got shape {matrix.shape}")
    return loc, matrix


def _expand(t: Tensor, shape: list) -> Tensor:
    return t if list(t.shape) == shape else broadcast_to(t, shape)


def _solve_tril(tril: Tensor, vectors: Tensor) -> Tensor:
    """``tril^-1 @ vectors`` for vectors [..., k] (their batch may add sample dimensions)."""
    return triangular_solve(tril, vectors.unsqueeze(-1), upper=False).squeeze(-1)


def kl_multivariate_normal(p: MultivariateNormal, q: MultivariateNormal) -> Tensor:
    """``(tr(Sq^-1 Sp) + |Lq^-1 (q.loc - p.loc)|^2 - k) / 2 + log(det Sq / det Sp) / 2``."""
    k = p.event_shape[0]
    if q.event_shape[0] != k:
        raise ValueError(f"kl_divergence: the MultivariateNormals' event sizes differ: {k} and "
                         f"{q.event_shape[0]}")
    trace = triangular_solve(q.scale_tril, p.scale_tril, upper=False).square().sum([-2, -1])
    mahalanobis = _solve_tril(q.scale_tril, q.loc - p.loc).square().sum(-1)
    return (q._half_log_det() - p._half_log_det()
            + 0.5 * (trace + mahalanobis - k))
