"""paddle.linalg's spectral functions: ``eig``, ``eigvals``, ``eigvalsh``, ``cond`` and
``matrix_rank``.

``eig`` and ``eigvals`` return complex tensors (complex64 for float32 input, complex128 for
float64), as Paddle's: a general real matrix has complex eigenvalues. core's Tensor holds
complex arrays, but few of core's ops take them (no autograd through complex values), so both
are forward-only and their backward raises an error naming the op. cupy.linalg has no general
eigensolver, so ``eig`` computes on the host and returns to x's device (as Paddle, whose eig
runs on the CPU). ``eigvalsh`` is ``eigh``'s eigenvalues, with its gradient; ``cond`` is built
from ``matrix_norm`` and ``inv`` (differentiable where they are) or from singular values
(p = 2, -2 or None: differentiable through them, ``decompositions._singular_cond``).
"""
from __future__ import annotations

import math

import numpy as np

from core import backend
from core.linalg._common import _no_backward, _xp
from core.linalg.decompositions import _singular_cond, _square, eigh, inv
from core.linalg.norms import matrix_norm
from core.ops import as_input
from core.tensor import Tensor, apply

__all__ = ["cond", "eig", "eigvals", "eigvalsh", "matrix_rank"]


def _host_eig(x: Tensor, fn: str, vectors: bool):
    a = x.data
    xp = _xp(a)
    complex_dtype = np.complex64 if a.dtype == np.float32 else np.complex128
    host = backend.to_numpy(a)  # no general eigensolver in cupy.linalg
    if not np.isfinite(host).all():
        raise ValueError(f"{fn}: x has inf or NaN entries; eigenvalues need finite values")
    if vectors:
        w, v = np.linalg.eig(host)
        return xp.asarray(w.astype(complex_dtype)), xp.asarray(v.astype(complex_dtype))
    return xp.asarray(np.linalg.eigvals(host).astype(complex_dtype)), None


def eig(x, name: str | None = None):
    """Paddle's ``eig(x)``: the eigenvalues [..., n] and eigenvectors [..., n, n] (columns,
    unit norm) of a square matrix or batch, as complex tensors in LAPACK's (geev's) order.
    Forward only: a backward raises an error naming eig."""
    del name
    x = _square(x, "eig")
    w, v = _host_eig(x, "eig", vectors=True)
    back = _no_backward("eig", "core has no autograd through complex values")
    return apply(w, (x,), back, "eig"), apply(v, (x,), back, "eig")


def eigvals(x, name: str | None = None) -> Tensor:
    """Paddle's ``eigvals(x)``: the eigenvalues [..., n] of a square matrix or batch, a complex
    tensor in LAPACK's order (not sorted). Forward only, as ``eig``."""
    del name
    x = _square(x, "eigvals")
    w, _ = _host_eig(x, "eigvals", vectors=False)
    return apply(w, (x,), _no_backward("eigvals", "core has no autograd through complex "
                                                  "values"), "eigvals")


def eigvalsh(x, UPLO: str = "L", name: str | None = None) -> Tensor:  # noqa: N803 - Paddle's
    """Paddle's ``eigvalsh(x, UPLO='L')``: the eigenvalues (ascending) of a symmetric matrix or
    batch, reading its lower ('L') or upper ('U') triangle. ``eigh``'s eigenvalues, with its
    gradient (V diag(g) V^T, symmetrised)."""
    del name
    return eigh(x, UPLO)[0]


def cond(x, p=None, name: str | None = None) -> Tensor:
    """Paddle's ``cond(x, p=None)``: the condition number of a matrix or batch [..., m, n].
    p None or 2: the largest over the smallest singular value (any shape; -2 the inverse
    ratio); 'fro', 'nuc', 1, -1, inf, -inf: norm(x, p) * norm(inv(x), p) (square x). All
    are differentiable (the singular-value forms where the largest and smallest singular
    values are distinct and non-zero)."""
    del name
    x = as_input(x, "cond")
    if x.ndim < 2 or x.data.dtype.kind != "f":
        raise ValueError(f"cond: x must be a floating matrix or batch [..., m, n], got shape "
                         f"{x.shape} and dtype {x.dtype}")
    if p is None or p in (2, -2) and not isinstance(p, bool):
        return _singular_cond(x, p)  # a singular x: inf, as Paddle
    if p not in ("fro", "nuc", 1, -1, math.inf, -math.inf) or isinstance(p, bool):
        raise ValueError(f"cond: p must be None, 'fro', 'nuc', 1, -1, 2, -2, inf or -inf, got "
                         f"{p!r}")
    if x.data.shape[-1] != x.data.shape[-2]:
        raise ValueError(f"cond: p={p!r} needs square matrices [..., n, n] (it inverts x), got "
                         f"shape {x.shape}; p=2 or None takes any shape")
    try:
        inverse = inv(x)
    except ValueError:
        raise ValueError(f"cond: x is singular, so its condition number for p={p!r} is "
                         "infinite (p=2 or None returns inf instead)") from None
    return matrix_norm(x, p) * matrix_norm(inverse, p)


def matrix_rank(x, tol=None, hermitian: bool = False, atol=None, rtol=None,
                name: str | None = None) -> Tensor:
    """Paddle's ``matrix_rank(x, tol=None, hermitian=False, atol=None, rtol=None)``: the
    number of singular values of x [..., m, n] (with ``hermitian``, absolute eigenvalues of
    the symmetric x, read from its lower triangle) above a threshold, an int64 tensor [...].
    The threshold: ``tol`` alone (absolute; None means largest * max(m, n) * eps), or
    max(atol, rtol * largest), where rtol defaults to max(m, n) * eps when atol is absent or 0,
    and to 0 otherwise. ``tol``, ``atol`` and ``rtol`` may be numbers or tensors that
    broadcast to the batch."""
    del name
    x = as_input(x, "matrix_rank")
    if x.ndim < 2 or x.data.dtype.kind != "f":
        raise ValueError(f"matrix_rank: x must be a floating matrix or batch [..., m, n], got "
                         f"shape {x.shape} and dtype {x.dtype}")
    if tol is not None and (atol is not None or rtol is not None):
        raise ValueError("matrix_rank: give tol alone, or atol and/or rtol, not both")
    xp = _xp(x.data)
    m, n = x.data.shape[-2:]
    if hermitian:
        if m != n:
            raise ValueError(f"matrix_rank: hermitian=True needs square matrices, got shape "
                             f"{x.shape}")
        s = xp.abs(xp.linalg.eigvalsh(x.data))
    else:
        s = xp.linalg.svd(x.data, compute_uv=False)
    largest = s.max(axis=-1) if s.shape[-1] else xp.zeros(s.shape[:-1], dtype=s.dtype)
    eps = float(np.finfo(x.data.dtype).eps)
    tol, atol, rtol = (_threshold(v, xp, name_) for v, name_ in
                       ((tol, "tol"), (atol, "atol"), (rtol, "rtol")))
    if atol is None and rtol is None:
        cutoff = largest * max(m, n) * eps if tol is None else tol
    else:
        if rtol is None:
            rtol = max(m, n) * eps if atol is None or not bool((atol > 0).any()) else 0.0
        cutoff = xp.maximum(0.0 if atol is None else atol, rtol * largest)
    cutoff = xp.asarray(cutoff, dtype=s.dtype)
    return Tensor((s > cutoff[..., None]).sum(axis=-1).astype(np.int64))


def _threshold(value, xp, arg: str):
    if value is None:
        return None
    if isinstance(value, Tensor):
        return value.data
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        raise TypeError(f"matrix_rank: {arg} must be None, a number or a Tensor, got {value!r}")
    return xp.asarray(float(value))


Tensor.eig, Tensor.eigvals, Tensor.eigvalsh = eig, eigvals, eigvalsh
Tensor.cond, Tensor.matrix_rank = cond, matrix_rank  # see the note at the end of core/ops.py
