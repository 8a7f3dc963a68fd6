"""Paddle's randomized low-rank decompositions ``paddle.linalg.svd_lowrank`` and
``paddle.linalg.pca_lowrank`` (Halko, Martinsson and Tropp, "Finding structure with
randomness", 2011, algorithms 4.4 and 5.1; the method of torch.svd_lowrank).

A Gaussian test matrix from core.seed's generator sketches the range of x; ``niter`` subspace
(power) iterations sharpen it; the SVD of the small projected matrix gives the factors. They are
built from core's qr and svd, which carry the gradients (the sketch is a constant).
"""
from __future__ import annotations

import numpy as np

from core import backend
from core.linalg.decompositions import qr, svd
from core.linalg.products import matrix_transpose
from core.ops import as_input
from core.tensor import Tensor

__all__ = ["pca_lowrank", "svd_lowrank"]


def _matrix(x, fn: str) -> Tensor:
    x = as_input(x, fn)
    if x.ndim < 2 or x.data.dtype.kind != "f":
        raise ValueError(f"{fn}: x must be a floating matrix or batch [..., m, n], got shape "
                         f"{x.shape} and dtype {x.dtype}")
    return x


def _rank(q, x: Tensor, fn: str) -> int:
    m, n = x.shape[-2:]
    if q is None:
        return min(6, m, n)
    if isinstance(q, bool) or not isinstance(q, (int, np.integer)) or not 0 < q <= min(m, n):
        raise ValueError(f"{fn}: q must be an int in 1..{min(m, n)} (min(m, n) of x's shape "
                         f"{x.shape}), got {q!r}")
    return int(q)


def _iterations(niter, fn: str) -> int:
    if isinstance(niter, bool) or not isinstance(niter, (int, np.integer)) or niter < 0:
        raise ValueError(f"{fn}: niter must be a non-negative int, got {niter!r}")
    return int(niter)


def _range_basis(a: Tensor, q: int, niter: int) -> Tensor:
    """An orthonormal basis Q [..., m, q] of (approximately) the top-q range of a."""
    n = a.shape[-1]
    sketch = backend.rng().standard_normal((n, q))
    omega = Tensor(backend.asarray(sketch, dtype=a.dtype))
    basis, _ = qr(a.matmul(omega))
    for _ in range(niter):
        basis, _ = qr(matrix_transpose(a).matmul(basis))
        basis, _ = qr(a.matmul(basis))
    return basis


def svd_lowrank(x, q: int | None = None, niter: int = 2, M=None, name: str | None = None):
    """Paddle's ``svd_lowrank(x, q=None, niter=2, M=None, name=None)``: ``(U, S, V)`` with
    ``x - M ~= U diag(S) V^T`` of rank q (default min(6, m, n)): U [..., m, q], S [..., q]
    (descending), V [..., n, q] (V, not its transpose, as Paddle). ``M`` (broadcastable to x)
    is subtracted first. Exact when x - M has rank <= q; ``niter`` power iterations help
    when the spectrum decays slowly. Differentiable through core's qr and svd."""
    del name
    x = _matrix(x, "svd_lowrank")
    q, niter = _rank(q, x, "svd_lowrank"), _iterations(niter, "svd_lowrank")
    if M is not None:
        x = x - as_input(M, "svd_lowrank", "M")
    basis = _range_basis(x, q, niter)
    u_small, s, vh = svd(matrix_transpose(basis).matmul(x))
    return basis.matmul(u_small), s, matrix_transpose(vh)


def pca_lowrank(x, q: int | None = None, center: bool = True, niter: int = 2,
                name: str | None = None):
    """Paddle's ``pca_lowrank(x, q=None, center=True, niter=2, name=None)``: ``svd_lowrank``
    of x with each column's mean removed first (``center``), so V's columns are the principal
    directions and ``S^2 / (m - 1)`` the variances along them."""
    del name
    x = _matrix(x, "pca_lowrank")
    if not isinstance(center, bool):
        raise TypeError(f"pca_lowrank: center must be a bool, got {center!r}")
    mean = x.mean(-2, keepdim=True) if center else None
    return svd_lowrank(x, q, niter, M=mean)
