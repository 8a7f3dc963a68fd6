"""paddle.linalg's solvers beyond ``solve``: ``triangular_solve``, ``cholesky_solve``,
``cholesky_inverse`` and ``lstsq``, batched over leading dimensions as Paddle's [..., n, n].

``triangular_solve`` has its own backward (the standard one: gy = op(A)^-T G, gA = -gy X^T kept
to the triangle that is read); ``cholesky_solve`` and ``cholesky_inverse`` are two triangular
solves, and ``lstsq``'s solution is ``pinv(x) @ y``, so their gradients come from those ops.
``triangular_solve`` also has a tensor-level backward (create_graph): the same formula with
core's recorded ``solve`` and matmul, the triangle read kept by a constant mask.
"""
from __future__ import annotations

import numpy as np

from core import backend
from core import ops as _ops  # sum: Python's name in this module
from core.arithmetic import matmul
from core.higher_order import captured, needs, sum_to
from core.linalg._common import _xp
from core.linalg.decompositions import _identity, _mT, _square, _transpose_last, pinv, solve
from core.ops import as_input
from core.tensor import Tensor, apply, unbroadcast

__all__ = ["cholesky_inverse", "cholesky_solve", "lstsq", "triangular_solve"]


def _rhs(y, n: int, fn: str, arg: str, a_shape) -> Tensor:
    y = as_input(y, fn, arg)
    if y.ndim < 2 or y.data.shape[-2] != n:
        raise ValueError(f"{fn}: {arg} must be [..., {n}, k] to match a matrix of shape "
                         f"{list(a_shape)}, got shape {y.shape}")
    if y.data.dtype.kind != "f":
        raise TypeError(f"{fn}: {arg} must be a floating tensor (float32 or float64), got dtype "
                        f"{y.data.dtype}")
    return y


def _batch(a_shape, b_shape, fn: str, names: str) -> tuple:
    try:
        return tuple(np.broadcast_shapes(a_shape[:-2], b_shape[:-2]))  # shapes only
    except ValueError:
        raise ValueError(f"{fn}: the batch dimensions of {names} ({list(a_shape)} and "
                         f"{list(b_shape)}) do not broadcast") from None


def triangular_solve(x, y, upper: bool = True, transpose: bool = False,
                     unitriangular: bool = False, name: str | None = None) -> Tensor:
    """Paddle's ``triangular_solve(x, y, upper=True, transpose=False, unitriangular=False)``:
    the solution X of x @ X = y (x^T @ X = y with ``transpose``) for a triangular x [..., n, n]
    and y [..., n, k] (batch dimensions broadcast). Only x's upper (``upper``) or lower triangle
    is read, and with ``unitriangular`` its diagonal is taken as 1. A zero on the diagonal is an
    error. Differentiable in x (within the triangle read) and y."""
    del name
    x = _square(x, "triangular_solve")
    n = x.data.shape[-1]
    y = _rhs(y, n, "triangular_solve", "y", x.shape)
    xp = _xp(x.data)
    tri = xp.triu if upper else xp.tril
    a = tri(x.data)
    if unitriangular:
        a = a - a * xp.eye(n, dtype=a.dtype) + xp.eye(n, dtype=a.dtype)
    op = _mT(a) if transpose else a
    batch = _batch(a.shape, y.data.shape, "triangular_solve", "x and y")
    op = xp.broadcast_to(op, batch + op.shape[-2:])
    b = xp.broadcast_to(y.data, batch + y.data.shape[-2:])
    # A triangular system through the backend's general solver: numpy and cupy both batch it
    # (scipy's solve_triangular does not), and it is exact for a non-singular triangle.
    try:
        with backend.linalg_errors(xp):  # cupy too raises for a singular matrix
            out = xp.linalg.solve(op, b)
    except np.linalg.LinAlgError:  # cupy raises numpy's class too
        raise ValueError("triangular_solve: x has a zero on its diagonal (in the triangle "
                         "read), so it is singular") from None

    def backward(g):
        gy = xp.linalg.solve(_mT(op), g)
        gop = -(gy @ _mT(out))
        ga = tri(_mT(gop) if transpose else gop)
        if unitriangular:  # the diagonal is not read
            ga = ga - ga * xp.eye(n, dtype=ga.dtype)
        return (None if x.stop_gradient else unbroadcast(ga, x.data.shape),
                None if y.stop_gradient else unbroadcast(gy, y.data.shape))

    return apply(out, (x, y), backward, "triangular_solve", _triangular_solve_grad)


def _triangular_solve_grad(out, g):
    """create_graph: gy = op(A)^-T G and gA = -gy X^T kept to the triangle read, with recorded
    ops: op(A) is rebuilt from x with constant masks (the triangle, the unit diagonal), so the
    gradient with respect to x through ``solve`` stays in that triangle."""
    tri, transpose, unitriangular = captured(out, "tri", "transpose", "unitriangular")
    x, y = out._parents
    xp = _xp(x.data)
    read = tri(xp.ones(x.data.shape[-2:], dtype=x.data.dtype))
    if unitriangular:  # the diagonal is not read: it is 1
        read = read - xp.eye(read.shape[-1], dtype=read.dtype)
    mask = Tensor(read)
    a = x * mask + _identity(x) if unitriangular else x * mask
    op = _transpose_last(a) if transpose else a
    gy = solve(_transpose_last(op), g)
    gx = None
    if needs(x):
        gop = -(gy @ _transpose_last(out))
        gx = sum_to((_transpose_last(gop) if transpose else gop) * mask, x.shape)
    return gx, sum_to(gy, y.shape) if needs(y) else None


def cholesky_solve(x, y, upper: bool = False, name: str | None = None) -> Tensor:
    """Paddle's ``cholesky_solve(x, y, upper=False)``: the solution X of A @ X = x, where ``y``
    is A's Cholesky factor, lower L (A = L L^T) or, with ``upper``, U (A = U^T U); x is the
    right-hand side [..., n, k] (note Paddle's order: x is B, y the factor). Two triangular
    solves, which carry the gradients."""
    del name
    y = _square(y, "cholesky_solve", "y")
    x = _rhs(x, y.data.shape[-1], "cholesky_solve", "x", y.shape)
    _batch(y.data.shape, x.data.shape, "cholesky_solve", "x and y")
    if upper:  # U^T U X = B: U^T Z = B, then U X = Z
        z = triangular_solve(y, x, upper=True, transpose=True)
        return triangular_solve(y, z, upper=True)
    z = triangular_solve(y, x, upper=False)  # L L^T X = B: L Z = B, then L^T X = Z
    return triangular_solve(y, z, upper=False, transpose=True)


def cholesky_inverse(x, upper: bool = False, name: str | None = None) -> Tensor:
    """Paddle's ``cholesky_inverse(x, upper=False)``: the inverse of A = x x^T (x lower
    triangular) or, with ``upper``, A = x^T x, from its Cholesky factor x [..., n, n].
    ``cholesky_solve`` with the identity, which carries the gradient."""
    del name
    x = _square(x, "cholesky_inverse")
    xp = _xp(x.data)
    n = x.data.shape[-1]
    eye = Tensor(xp.broadcast_to(xp.eye(n, dtype=x.data.dtype), x.data.shape).copy())
    return cholesky_solve(eye, x, upper=upper)


_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def lstsq(x, y, rcond: float | None = None, driver: str | None = None,
          name: str | None = None):
    """Paddle's ``lstsq(x, y, rcond=None, driver=None)``: the least-squares solution of
    x @ X = y for x [..., m, n] and y [..., m, k], as a tuple (solution [..., n, k], residuals,
    rank, singular_values), through the SVD for every driver (so the CPU's and the GPU's
    answers agree):

    - residuals [..., k]: the squared column norms of x @ X - y, when m > n and every x has
      full rank, else an empty tensor (shape [0]);
    - rank [...] (int32): the number of singular values above ``rcond`` times the largest, for
      the drivers 'gelsy' (the default), 'gelsd' and 'gelss', else empty;
    - singular_values [..., min(m, n)]: for 'gelsd' and 'gelss', else empty.

    ``rcond`` None means max(m, n) times the machine epsilon of x's dtype. The solution and
    the residuals are differentiable (pinv's gradient, exact where the rank is constant)."""
    del name
    x = as_input(x, "lstsq")
    if x.ndim < 2 or x.data.dtype.kind != "f":
        raise ValueError(f"lstsq: x must be a floating matrix or batch [..., m, n], got shape "
                         f"{x.shape} and dtype {x.dtype}")
    m, n = x.data.shape[-2:]
    y = _rhs(y, m, "lstsq", "y", x.shape)
    if y.data.dtype != x.data.dtype:
        raise TypeError(f"lstsq: x and y must have the same dtype, got {x.dtype} and {y.dtype}")
    _batch(x.data.shape, y.data.shape, "lstsq", "x and y")
    if driver is None:
        driver = "gelsy"
    if driver not in _DRIVERS:
        raise ValueError(f"lstsq: driver must be None or one of {', '.join(_DRIVERS)}, got "
                         f"{driver!r}")
    if rcond is None:
        rcond = max(m, n) * float(np.finfo(x.data.dtype).eps)
    if isinstance(rcond, bool) or not isinstance(rcond, (int, float)) or not rcond >= 0:
        raise ValueError(f"lstsq: rcond must be None or a non-negative number, got {rcond!r}")
    xp = _xp(x.data)
    s = xp.linalg.svd(x.data, compute_uv=False)
    cutoff = rcond * s.max(axis=-1, keepdims=True) if s.size else s
    rank = (s > cutoff).sum(axis=-1).astype(np.int32)
    solution = matmul(pinv(x, rcond=float(rcond)), y)
    empty = Tensor(xp.zeros((0,), dtype=x.data.dtype))
    residuals = empty
    if m > n and bool((rank == min(m, n)).all()):
        residuals = _ops.sum((matmul(x, solution) - y) ** 2, axis=-2)
    return (solution, residuals,
            Tensor(xp.asarray(rank)) if driver != "gels" else Tensor(xp.zeros((0,), np.int32)),
            Tensor(s) if driver in ("gelsd", "gelss") else empty)


Tensor.triangular_solve, Tensor.cholesky_solve = triangular_solve, cholesky_solve
Tensor.cholesky_inverse, Tensor.lstsq = cholesky_inverse, lstsq  # see core/ops.py's end note
