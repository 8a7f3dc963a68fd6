"""paddle.linalg's LU factorisation (``lu``, ``lu_unpack``) and ``householder_product``.

``lu`` is Doolittle elimination with partial pivoting (LAPACK's getrf), written with the array
module's operations one column at a time over the whole batch, so numpy and cupy run the same
code (numpy.linalg has no LU, and scipy's and cupyx's are not batched). Its backward is the
standard one for a square matrix (A = P L U: gA = P L^-T (tril(L^T gL, -1) + triu(gU U^T)) U^-T);
for a rectangular one it raises an error naming lu. ``lu_unpack`` and ``householder_product``
are built from differentiable ops (tril, triu, matmul), which carry the gradients.
"""
from __future__ import annotations

import numpy as np

from core.arithmetic import matmul
from core.linalg._common import _no_backward, _xp
from core.linalg.decompositions import _mT
from core.manipulation import tril, triu
from core.ops import as_input
from core.tensor import Tensor, apply

__all__ = ["householder_product", "lu", "lu_unpack"]


def _matrix(x, fn: str, arg: str = "x") -> Tensor:
    x = as_input(x, fn, arg)
    if x.ndim < 2 or x.data.dtype.kind != "f":
        raise ValueError(f"{fn}: {arg} must be a floating matrix or batch [..., m, n], got shape "
                         f"{x.shape} and dtype {x.dtype}")
    return x


def _getrf(xp, a, pivot: bool):
    """The packed LU factors, the 1-based pivots and LAPACK's info of a [B, m, n] (a copy)."""
    lu_, (count, m, n) = a.copy(), a.shape
    k = min(m, n)
    pivots = xp.broadcast_to(xp.arange(1, k + 1, dtype=np.int32), (count, k)).copy()
    info = xp.zeros(count, dtype=np.int32)
    rows = xp.arange(count)
    for j in range(k):
        if pivot:
            p = xp.argmax(xp.abs(lu_[:, j:, j]), axis=-1) + j
            pivots[:, j] = p + 1
            top, chosen = lu_[rows, j].copy(), lu_[rows, p].copy()
            lu_[rows, p] = top
            lu_[rows, j] = chosen
        head = lu_[:, j, j]
        zero = head == 0
        info = xp.where((info == 0) & zero, j + 1, info)
        # As LAPACK: a zero pivot leaves its column unscaled (with pivoting it is all zeros).
        col = lu_[:, j + 1:, j] / xp.where(zero, 1, head)[:, None]
        lu_[:, j + 1:, j] = col
        lu_[:, j + 1:, j + 1:] -= col[:, :, None] * lu_[:, j, None, j + 1:]
    return lu_, pivots, info


def lu(x, pivot: bool = True, get_infos: bool = False, name: str | None = None):
    """Paddle's ``lu(x, pivot=True, get_infos=False)``: the LU factorisation of x [..., m, n]
    with partial pivoting, as ``(LU, pivots)`` or, with ``get_infos``, ``(LU, pivots, infos)``:
    LU [..., m, n] packs the unit lower L (below the diagonal) and U; pivots [..., min(m, n)]
    (int32, 1-based as LAPACK) say row i was swapped with row pivots[i]; infos [...] (int32) is
    0, or i + 1 where U[i, i] is exactly 0. ``pivot=False`` factorises without row swaps.
    Differentiable for square x (``lu_unpack`` gives P, L, U)."""
    del name
    x = _matrix(x, "lu")
    if not isinstance(pivot, bool):
        raise TypeError(f"lu: pivot must be a bool, got {pivot!r}")
    xp = _xp(x.data)
    shape = x.data.shape
    m, n = shape[-2:]
    flat = x.data.reshape((-1, m, n))
    packed, pivots, info = _getrf(xp, flat, pivot)
    batch = shape[:-2]
    packed = packed.reshape(shape)
    pivots = pivots.reshape(batch + (min(m, n),))
    backward = _lu_backward(xp, packed, pivots) if m == n else _no_backward(
        "lu", f"the gradient is implemented for square matrices, x is [..., {m}, {n}]")
    out = apply(packed, (x,), backward, "lu")
    parts = (out, Tensor(pivots))
    return parts + (Tensor(info.reshape(batch)),) if get_infos else parts


def _lu_backward(xp, packed, pivots):
    def backward(g):
        n = packed.shape[-1]
        eye = xp.eye(n, dtype=packed.dtype)
        low = xp.tril(packed, -1) + eye
        up = xp.triu(packed)
        phi = xp.tril(_mT(low) @ xp.tril(g, -1), -1) + xp.triu(xp.triu(g) @ _mT(up))
        # L^-T phi U^-T, then P in front: P^T A = L U
        inner = _mT(xp.linalg.solve(up, _mT(xp.linalg.solve(_mT(low), phi))))
        return (_permutation(xp, pivots, n, packed.dtype) @ inner,)
    return backward


def _permutation(xp, pivots, m: int, dtype):
    """P [..., m, m] with A = P L U, from LAPACK's 1-based row swaps."""
    batch, k = pivots.shape[:-1], pivots.shape[-1]
    flat = pivots.reshape((-1, k)).astype(np.int64) - 1
    count = flat.shape[0]
    perm = xp.broadcast_to(xp.arange(m), (count, m)).copy()
    rows = xp.arange(count)
    for i in range(k):  # replay the swaps on the row order
        target = flat[:, i]
        here, there = perm[:, i].copy(), perm[rows, target].copy()
        perm[:, i] = there
        perm[rows, target] = here
    # row i of P^T A is row perm[i] of A, so P[perm[i], i] = 1
    p = xp.zeros((count, m, m), dtype=dtype)
    p[rows[:, None], perm, xp.arange(m)[None, :]] = 1
    return p.reshape(batch + (m, m))


def lu_unpack(x, y, unpack_ludata: bool = True, unpack_pivots: bool = True,
              name: str | None = None):
    """Paddle's ``lu_unpack(x, y, unpack_ludata=True, unpack_pivots=True)``: from ``lu``'s
    packed factors x [..., m, n] and pivots y [..., k], ``(P, L, U)`` with x's matrix = P L U:
    P [..., m, m], L [..., m, k] (unit lower), U [..., k, n]. What is not unpacked comes back
    as an empty tensor (shape [0]). L and U are differentiable in x."""
    del name
    x = _matrix(x, "lu_unpack")
    y = as_input(y, "lu_unpack", "y")
    m, n = x.data.shape[-2:]
    k = min(m, n)
    if y.data.dtype.kind not in "iu" or y.data.shape != x.data.shape[:-2] + (k,):
        raise ValueError(f"lu_unpack: y must be lu's integer pivots of shape "
                         f"{list(x.data.shape[:-2]) + [k]} for x of shape {x.shape}, got "
                         f"shape {y.shape} and dtype {y.dtype}")
    xp = _xp(x.data)
    empty = Tensor(xp.zeros((0,), dtype=x.data.dtype))
    low = up = empty
    if unpack_ludata:
        eye = Tensor(xp.eye(m, k, dtype=x.data.dtype))
        low = tril(x[..., :, :k], -1) + eye
        up = triu(x[..., :k, :])
    perm = Tensor(_permutation(xp, y.data, m, x.data.dtype)) if unpack_pivots else empty
    return perm, low, up


def householder_product(x, tau, name: str | None = None) -> Tensor:
    """Paddle's ``householder_product(x, tau)``: the first n columns of H_1 H_2 ... H_k for
    x [..., m, n] (m >= n) and tau [..., k] (k <= n), where H_i = I - tau_i v_i v_i^T and v_i
    is 1 at row i, x[i+1:, i] below and 0 above (LAPACK's orgqr, as from a QR's reflectors).
    Built from matmul and triangles, which carry the gradients in x and tau."""
    del name
    x = _matrix(x, "householder_product")
    tau = as_input(tau, "householder_product", "tau")
    m, n = x.data.shape[-2:]
    if m < n:
        raise ValueError(f"householder_product: x must have at least as many rows as columns "
                         f"[..., m, n] with m >= n, got shape {x.shape}")
    if tau.ndim < 1 or tau.data.shape[-1] > n or tau.data.shape[:-1] != x.data.shape[:-2]:
        raise ValueError(f"householder_product: tau must be [..., k] with x's batch dimensions "
                         f"{list(x.data.shape[:-2])} and k <= {n}, got shape {tau.shape}")
    if tau.data.dtype != x.data.dtype:
        raise TypeError(f"householder_product: x and tau must have the same dtype, got "
                        f"{x.dtype} and {tau.dtype}")
    xp = _xp(x.data)
    reflectors = tril(x, -1) + Tensor(xp.eye(m, n, dtype=x.data.dtype))
    q = Tensor(xp.broadcast_to(xp.eye(m, dtype=x.data.dtype), x.data.shape[:-2] + (m, m)).copy())
    for i in range(tau.data.shape[-1]):  # Q <- Q (I - tau_i v v^T) = Q - tau_i (Q v) v^T
        v = reflectors[..., :, i:i + 1]
        q = q - matmul(matmul(q, v) * tau[..., i:i + 1, None], v, transpose_y=True)
    return q[..., :, :n]


Tensor.lu, Tensor.lu_unpack, Tensor.householder_product = lu, lu_unpack, householder_product
