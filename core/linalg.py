"""Products with Paddle's ``paddle.tensor.linalg`` names: ``dot``, ``mm`` and ``bmm``.

``mm`` and ``bmm`` check their shapes (naming them) and run ``matmul``, so they share its
threaded kernel and its backward; ``dot`` is a row-wise product and sum.
"""
from __future__ import annotations

from core import backend
from core.arithmetic import matmul
from core.ops import as_input
from core.tensor import Tensor, apply

__all__ = ["bmm", "dot", "mm"]


def dot(x, y, name: str | None = None) -> Tensor:
    """The inner product of two 1-D tensors (a 0-D tensor), or of each row of two 2-D
    tensors of shape [N, M] (a tensor of shape [N])."""
    del name
    x, y = as_input(x, "dot"), as_input(y, "dot", "y")
    a, b = x.data, y.data
    if a.shape != b.shape or a.ndim not in (1, 2):
        raise ValueError(f"dot: x and y must be 1-D or 2-D tensors of the same shape, got "
                         f"{x.shape} and {y.shape}")
    xp = backend.array_module(a)
    out = xp.asarray((a * b).sum(axis=-1))

    def backward(g):
        g = g[..., None]
        return (None if x.stop_gradient else g * b, None if y.stop_gradient else g * a)

    return apply(out, (x, y), backward, "dot")


def mm(input, mat2, name: str | None = None) -> Tensor:  # noqa: A002 - Paddle's argument name
    """The matrix product of ``input`` and ``mat2`` (``matmul`` without its transposes;
    batch dimensions broadcast)."""
    del name
    x, y = as_input(input, "mm", "input"), as_input(mat2, "mm", "mat2")
    inner_x = x.data.shape[-1] if x.ndim else None
    inner_y = y.data.shape[-2] if y.ndim >= 2 else (y.data.shape[0] if y.ndim else None)
    if inner_x is None or inner_y is None or inner_x != inner_y:
        raise ValueError(f"mm: cannot multiply input of shape {x.shape} by mat2 of shape "
                         f"{y.shape}: input's last dimension must equal mat2's second to last")
    return matmul(x, y)


def bmm(x, y, name: str | None = None) -> Tensor:
    """Batched matrix product of 3-D tensors [B, N, K] and [B, K, M] -> [B, N, M]."""
    del name
    x, y = as_input(x, "bmm"), as_input(y, "bmm", "y")
    sx, sy = x.data.shape, y.data.shape
    if len(sx) != 3 or len(sy) != 3 or sx[0] != sy[0] or sx[2] != sy[1]:
        raise ValueError(f"bmm: x and y must be 3-D, [B, N, K] and [B, K, M], got {x.shape} "
                         f"and {y.shape}")
    return matmul(x, y)


Tensor.dot, Tensor.mm, Tensor.bmm = dot, mm, bmm  # see the note at the end of core/ops.py


# ----- paddle.linalg: norms, inverses, determinants, solves and decompositions -----------------
# Forward passes use the backend's ``linalg`` (numpy.linalg or cupy.linalg), batched over the
# leading dimensions as Paddle's [..., n, n]. The backward formulas are the standard matrix
# calculus ones (Giles, "An extended collection of matrix derivative results", 2008); each is
# checked against float64 finite differences in tests/core/test_linalg.py.
import math  # noqa: E402

from core import ops as _ops  # noqa: E402 - abs, sum, amax...: Python's names in this module
from core.manipulation import diagonal, reshape, transpose  # noqa: E402
from core.ops import normalize_axes, normalize_axis  # noqa: E402
from core.tensor import unbroadcast  # noqa: E402

__all__ += ["cholesky", "corrcoef", "cov", "det", "eigh", "inv", "matrix_norm", "matrix_power",
            "multi_dot", "norm", "pinv", "qr", "slogdet", "solve", "svd", "vector_norm"]


def _xp(a):
    return backend.array_module(a)


def _mT(a):  # noqa: N802 - the matrix transpose of the last two axes
    return a.swapaxes(-1, -2)


def _square(x, fn: str, arg: str = "x") -> Tensor:
    x = as_input(x, fn, arg)
    if x.ndim < 2 or x.data.shape[-1] != x.data.shape[-2]:
        raise ValueError(f"{fn}: {arg} must be a square matrix or a batch of them [..., n, n], "
                         f"got shape {x.shape}")
    if x.data.dtype.kind != "f":
        raise TypeError(f"{fn}: {arg} must be a floating tensor (float32 or float64), got dtype "
                        f"{x.data.dtype}")
    return x


def _no_backward(fn: str, why: str):
    def backward(g):
        raise RuntimeError(f"{fn}: no gradient is implemented for this op ({why}); detach its "
                           "input, or compute what you need from ops that have one")
    return backward


def inv(x, name: str | None = None) -> Tensor:
    """The inverse of a square matrix (or of each in a batch [..., n, n]); a singular matrix is
    an error. d inv(A) = -inv(A) dA inv(A), so the gradient is -inv(A)^T G inv(A)^T."""
    del name
    x = _square(x, "inv")
    xp = _xp(x.data)
    try:
        out = xp.linalg.inv(x.data)
    except xp.linalg.LinAlgError as err:
        raise ValueError(f"inv: x is singular and has no inverse ({err})") from None
    return apply(out, (x,), lambda g: (-(_mT(out) @ g @ _mT(out)),), "inv")


def det(x, name: str | None = None) -> Tensor:
    """The determinant of a square matrix (or of each in a batch: shape [...]). The gradient
    is g * det(A) * inv(A)^T (through the adjugate; a singular A gives a zero gradient here)."""
    del name
    x = _square(x, "det")
    xp = _xp(x.data)
    a = x.data
    out = xp.asarray(xp.linalg.det(a))

    def backward(g):
        sign, logabs = xp.linalg.slogdet(a)
        regular = sign != 0
        safe = xp.where(regular[..., None, None], a, xp.eye(a.shape[-1], dtype=a.dtype))
        grad = (g * out)[..., None, None] * _mT(xp.linalg.inv(safe))
        return (xp.where(regular[..., None, None], grad, 0 * grad),)

    return apply(out, (x,), backward, "det")


def slogdet(x, name: str | None = None) -> Tensor:
    """The sign and the natural log of |det| of a square matrix (or batch), stacked as Paddle
    2.x/3.x: one Tensor of shape [2, ...] (row 0 the signs, row 1 log|det|; a singular matrix
    gives 0 and -inf). The log|det| row is differentiable: its gradient is inv(A)^T."""
    del name
    x = _square(x, "slogdet")
    xp = _xp(x.data)
    a = x.data
    sign, logabs = xp.linalg.slogdet(a)
    out = xp.stack([xp.asarray(sign, dtype=a.dtype), xp.asarray(logabs, dtype=a.dtype)])

    def backward(g):
        safe = xp.where((sign != 0)[..., None, None], a, xp.eye(a.shape[-1], dtype=a.dtype))
        return (g[1][..., None, None] * _mT(xp.linalg.inv(safe)),)

    return apply(out, (x,), backward, "slogdet")


def solve(x, y, left: bool = True, name: str | None = None) -> Tensor:
    """The solution X of x @ X = y (``left=False``: X @ x = y); x is [..., n, n], y [..., n, k]
    or a vector [n] (batch dimensions broadcast). Gradients: gy = solve(x^T, G), gx = -gy X^T."""
    del name
    x = _square(x, "solve")
    y = as_input(y, "solve", "y")
    if not left:  # X x = y  <=>  x^T X^T = y^T
        return _transpose_last(solve(_transpose_last(x), _transpose_last(y)))
    xp = _xp(x.data)
    a, b = x.data, y.data
    vector = b.ndim == 1
    b2 = b[:, None] if vector else b
    if b2.ndim < 2 or b2.shape[-2] != a.shape[-1]:
        raise ValueError(f"solve: y must be [..., {a.shape[-1]}, k] or [{a.shape[-1]}] to match "
                         f"x of shape {x.shape}, got {y.shape}")
    try:
        batch = xp.broadcast_shapes(a.shape[:-2], b2.shape[:-2])
        out = xp.linalg.solve(xp.broadcast_to(a, batch + a.shape[-2:]),
                              xp.broadcast_to(b2, batch + b2.shape[-2:]))
    except xp.linalg.LinAlgError as err:
        raise ValueError(f"solve: x is singular ({err})") from None
    except ValueError:
        raise ValueError(f"solve: the batch dimensions of x {x.shape} and y {y.shape} do not "
                         "broadcast") from None

    def backward(g):
        g2 = g[..., None] if vector else g
        gy = xp.linalg.solve(xp.broadcast_to(_mT(a), batch + a.shape[-2:]), g2)
        gx = -(gy @ _mT(out))
        return (None if x.stop_gradient else unbroadcast(gx, a.shape),
                None if y.stop_gradient else unbroadcast(gy, b2.shape).reshape(b.shape))

    return apply(out[..., 0] if vector else out, (x, y), backward, "solve")


def _transpose_last(x: Tensor) -> Tensor:
    """``x`` with its last two axes swapped (a differentiable matrix transpose)."""
    perm = list(range(x.ndim))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return transpose(x, perm)


def cholesky(x, upper: bool = False, name: str | None = None) -> Tensor:
    """The Cholesky factor of a symmetric positive-definite matrix (or batch): lower L with
    x = L L^T, or with ``upper`` U = L^T (x = U^T U). Only x's lower triangle is read. The
    gradient is symmetric, as Paddle's and torch's: with M = tril(L^T G),
    gA = L^-T (M + tril(M, -1)^T) / 2 L^-1."""
    del name
    x = _square(x, "cholesky")
    xp = _xp(x.data)
    try:
        low = xp.linalg.cholesky(x.data)
    except xp.linalg.LinAlgError as err:
        raise ValueError(f"cholesky: x is not positive definite ({err})") from None
    if not xp.isfinite(low).all():  # cupy returns NaN instead of raising
        raise ValueError("cholesky: x is not positive definite")

    def backward(g):
        gl = _mT(g) if upper else g
        m = xp.tril(_mT(low) @ gl)
        p = 0.5 * (m + _mT(xp.tril(m, -1)))
        inv_low = xp.linalg.inv(low)
        return (_mT(inv_low) @ p @ inv_low,)

    return apply(_mT(low).copy() if upper else low, (x,), backward, "cholesky")


def matrix_power(x, n: int, name: str | None = None) -> Tensor:
    """x multiplied by itself ``n`` times (n >= 0; 0 gives the identity), or inv(x) to the
    -n (n < 0), for a square matrix or batch; built from matmul and inv (repeated squaring),
    which carry the gradient."""
    del name
    x = _square(x, "matrix_power")
    if isinstance(n, bool) or not hasattr(n, "__index__"):
        raise TypeError(f"matrix_power: n must be an int, got {n!r}")
    n = int(n)
    if n == 0:
        xp = _xp(x.data)
        eye = xp.broadcast_to(xp.eye(x.data.shape[-1], dtype=x.dtype), x.data.shape).copy()
        return apply(eye, (x,), lambda g: (0 * g,), "matrix_power")
    base = inv(x) if n < 0 else x
    result, n = None, abs(n)
    while n:
        if n & 1:
            result = base if result is None else matmul(result, base)
        n >>= 1
        if n:
            base = matmul(base, base)
    return result


def pinv(x, rcond: float = 1e-15, hermitian: bool = False, name: str | None = None) -> Tensor:
    """The Moore-Penrose pseudo-inverse of x [..., m, n] (singular values below ``rcond``
    times the largest are treated as 0). The gradient is Golub and Pereyra's, exact where the
    rank is constant (written out in the code below). ``hermitian`` is accepted for Paddle's
    signature; the SVD used for every input gives the same result."""
    del name
    x = as_input(x, "pinv")
    if x.ndim < 2 or x.data.dtype.kind != "f":
        raise ValueError(f"pinv: x must be a floating matrix or batch [..., m, n], got shape "
                         f"{x.shape} and dtype {x.dtype}")
    if isinstance(rcond, bool) or not isinstance(rcond, (int, float)) or rcond < 0:
        raise ValueError(f"pinv: rcond must be a non-negative number, got {rcond!r}")
    xp = _xp(x.data)
    a = x.data
    # Through the SVD directly: cupy's pinv has no ``hermitian`` (a speed hint in numpy, which
    # gives the same result), and both backends then compute the same thing.
    u, s, vh = xp.linalg.svd(a, full_matrices=False)
    cutoff = rcond * s.max(axis=-1, keepdims=True) if s.size else s
    kept = s > cutoff
    s_inv = xp.where(kept, 1 / xp.where(kept, s, 1), 0)
    out = (_mT(vh) * s_inv[..., None, :]) @ _mT(u)

    def backward(g):
        m, n = a.shape[-2], a.shape[-1]
        left = xp.eye(m, dtype=a.dtype) - a @ out  # projector onto the complement of range(A)
        right = xp.eye(n, dtype=a.dtype) - out @ a  # onto the null space of A
        grad = -(_mT(out) @ g @ _mT(out))
        grad = grad + left @ _mT(g) @ out @ _mT(out)
        grad = grad + _mT(out) @ out @ _mT(g) @ right
        return (grad,)

    return apply(out, (x,), backward, "pinv")


def qr(x, mode: str = "reduced", name: str | None = None):
    """The QR decomposition of x [..., m, n]: ``(Q, R)`` for mode 'reduced' (Q [..., m, k],
    k = min(m, n)) or 'complete' (Q [..., m, m]), only R for 'r'. Forward only: backward
    raises an error naming qr."""
    del name
    x = as_input(x, "qr")
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"qr: mode must be 'reduced', 'complete' or 'r', got {mode!r}")
    if x.ndim < 2 or x.data.dtype.kind != "f":
        raise ValueError(f"qr: x must be a floating matrix or batch [..., m, n], got shape "
                         f"{x.shape} and dtype {x.dtype}")
    xp = _xp(x.data)
    back = _no_backward("qr", "the QR decomposition is forward-only in core")
    if mode == "r":
        return apply(xp.linalg.qr(x.data, mode="r"), (x,), back, "qr")
    q, r = xp.linalg.qr(x.data, mode=mode)
    return apply(q, (x,), back, "qr"), apply(r, (x,), back, "qr")


def svd(x, full_matrices: bool = False, name: str | None = None):
    """The singular value decomposition x = U diag(S) VH of x [..., m, n]: ``(U, S, VH)``, S in
    descending order (Paddle returns VH, the conjugate transpose of V). Forward only: backward
    raises an error naming svd."""
    del name
    x = as_input(x, "svd")
    if x.ndim < 2 or x.data.dtype.kind != "f":
        raise ValueError(f"svd: x must be a floating matrix or batch [..., m, n], got shape "
                         f"{x.shape} and dtype {x.dtype}")
    xp = _xp(x.data)
    u, s, vh = xp.linalg.svd(x.data, full_matrices=bool(full_matrices))
    back = _no_backward("svd", "the singular vectors' gradient is not implemented in core")
    return tuple(apply(part, (x,), back, "svd") for part in (u, s, vh))


def eigh(x, UPLO: str = "L", name: str | None = None):  # noqa: N803 - Paddle's name
    """The eigenvalues (ascending) and eigenvectors (columns) of a symmetric matrix or batch,
    reading its lower (``UPLO='L'``) or upper ('U') triangle: ``(w, V)``. Differentiable for
    distinct eigenvalues: gA = V (diag(gw) + F * (V^T gV)) V^T with F_ij = 1 / (w_j - w_i),
    symmetrised (the gradient with respect to a symmetric input)."""
    del name
    x = _square(x, "eigh")
    if UPLO not in ("L", "U"):
        raise ValueError(f"eigh: UPLO must be 'L' or 'U', got {UPLO!r}")
    xp = _xp(x.data)
    w, v = xp.linalg.eigh(x.data, UPLO=UPLO)
    parts = {}

    def make(which):
        def backward(g):
            gw = g if which == "w" else xp.zeros(w.shape, dtype=w.dtype)
            gv = g if which == "v" else xp.zeros(v.shape, dtype=v.dtype)
            inner = xp.zeros(v.shape, dtype=v.dtype)
            n = w.shape[-1]
            rows = xp.arange(n)
            inner[..., rows, rows] = gw
            if which == "v":
                gap = w[..., None, :] - w[..., :, None]
                off = ~xp.eye(n, dtype=bool)
                f = xp.where(off, 1 / xp.where(off, gap, 1), 0)
                inner = inner + f * (_mT(v) @ gv)
            grad = v @ inner @ _mT(v)
            return (0.5 * (grad + _mT(grad)),)
        return backward

    parts["w"] = apply(w, (x,), make("w"), "eigh")
    parts["v"] = apply(v, (x,), make("v"), "eigh")
    return parts["w"], parts["v"]


# ----- norms ------------------------------------------------------------------------------------

def _norm_axes(axis, ndim: int, fn: str) -> tuple:
    if axis is None:
        return tuple(range(ndim))
    return normalize_axes(axis if isinstance(axis, (list, tuple)) else [axis], ndim, fn)


def vector_norm(x, p: float = 2.0, axis=None, keepdim: bool = False,
                name: str | None = None) -> Tensor:
    """The p-norm of x over ``axis`` (an int or a list; None: all elements, flattened):
    (sum |x|^p)^(1/p) for any real p, max |x| for inf, min |x| for -inf, and the count of
    non-zero elements for 0 (no gradient). At x = 0 the 2-norm's gradient is 0."""
    del name
    x = as_input(x, "vector_norm")
    if x.data.dtype.kind != "f":
        raise TypeError(f"vector_norm: x must be a floating tensor, got dtype {x.dtype}")
    if p is None:
        p = 2.0
    if isinstance(p, bool) or not isinstance(p, (int, float)):
        raise ValueError(f"vector_norm: p must be a number (inf, -inf and 0 included), got "
                         f"{p!r}")
    axes = _norm_axes(axis, x.ndim, "vector_norm")
    a = x.data
    xp = _xp(a)
    mag = xp.abs(a)
    p = float(p)
    if p == 0:
        return Tensor(xp.asarray((a != 0).sum(axis=axes, keepdims=keepdim), dtype=a.dtype))
    if math.isinf(p):
        return (_ops.amax if p > 0 else _ops.amin)(_ops.abs(x), axis=list(axes), keepdim=keepdim)
    full = (mag ** p).sum(axis=axes, keepdims=True) ** (1.0 / p)
    out = full if keepdim else full.reshape(tuple(n for i, n in enumerate(a.shape)
                                                  if i not in axes))

    def backward(g):
        g = g if keepdim else xp.expand_dims(g, axes)
        # d/dx (sum |x|^p)^(1/p) = sign(x) |x|^(p-1) / norm^(p-1); 0 where the norm is 0
        safe = xp.where(full > 0, full, 1)
        grad = g * xp.sign(a) * (mag / safe) ** (p - 1)
        return (xp.where(full > 0, grad, 0 * grad),)

    return apply(xp.asarray(out), (x,), backward, "vector_norm")


def matrix_norm(x, p="fro", axis=(-2, -1), keepdim: bool = False,
                name: str | None = None) -> Tensor:
    """A matrix norm over the two ``axis``: 'fro' (Frobenius), 'nuc' (the sum of singular
    values; forward only), 1 / -1 (max / min column sum of |x|), inf / -inf (max / min row
    sum), 2 / -2 (largest / smallest singular value; forward only)."""
    del name
    x = as_input(x, "matrix_norm")
    if x.ndim < 2:
        raise ValueError(f"matrix_norm: x must have at least 2 dimensions, got shape {x.shape}")
    if not isinstance(axis, (list, tuple)) or len(axis) != 2:
        raise ValueError(f"matrix_norm: axis must be a list of two axes, got {axis!r}")
    rows, cols = (normalize_axis(a, x.ndim, "matrix_norm") for a in axis)
    if rows == cols:
        raise ValueError(f"matrix_norm: axis must name two different axes, got {list(axis)}")
    if p == "fro":
        return vector_norm(x, 2.0, [rows, cols], keepdim)
    if p in (1, -1, math.inf, -math.inf) and not isinstance(p, bool):
        summed, other = (rows, cols) if abs(p) == 1 else (cols, rows)
        sums = _ops.sum(_ops.abs(x), axis=summed, keepdim=True)
        out = (_ops.amax if p > 0 else _ops.amin)(sums, axis=other, keepdim=True)
        return out if keepdim else reshape(out, [n for i, n in enumerate(x.shape)
                                                 if i not in (rows, cols)])
    if p in ("nuc", 2, -2) and not isinstance(p, bool):
        xp = _xp(x.data)
        moved = xp.moveaxis(x.data, (rows, cols), (-2, -1))
        s = xp.linalg.svd(moved, compute_uv=False)
        val = s.sum(-1) if p == "nuc" else (s[..., 0] if p == 2 else s[..., -1])
        if keepdim:
            val = xp.expand_dims(val, tuple(sorted((rows, cols))))
        return apply(xp.asarray(val), (x,), _no_backward(
            "matrix_norm", f"p={p!r} needs the singular vectors' gradient"), "matrix_norm")
    raise ValueError(f"matrix_norm: p must be 'fro', 'nuc', 1, -1, 2, -2, inf or -inf, got "
                     f"{p!r}")


def norm(x, p="fro", axis=None, keepdim: bool = False, name: str | None = None) -> Tensor:
    """Paddle's ``norm``: with ``axis`` None or one axis, a vector norm (p a number, 'fro'
    or None meaning 2; axis None flattens x); with two axes, a matrix norm (``matrix_norm``'s
    p). The 2-norm of a vector and 'fro' of a matrix agree, so the default is the same either
    way."""
    del name
    x = as_input(x, "norm")
    two = isinstance(axis, (list, tuple)) and len(axis) == 2
    if p is None:
        p = "fro"
    if two:
        return matrix_norm(x, p, list(axis), keepdim)
    if p == "fro":
        p = 2.0
    if isinstance(p, str):
        raise ValueError(f"norm: p={p!r} needs a matrix: give axis as two axes (a vector norm "
                         "takes a number)")
    if isinstance(axis, (list, tuple)) and len(axis) > 2:
        raise ValueError(f"norm: axis must be None, an int or two ints, got {list(axis)}")
    return vector_norm(x, p, axis, keepdim)


# ----- products and statistics built from differentiable ops ------------------------------------

def multi_dot(x, name: str | None = None) -> Tensor:
    """The chained matrix product x[0] @ x[1] @ ... (the first may be 1-D, a row; the last
    1-D, a column), multiplied in the cheapest order (dynamic programming on the shapes)."""
    del name
    if isinstance(x, Tensor) or not isinstance(x, (list, tuple)) or len(x) < 2:
        raise TypeError("multi_dot: x must be a list or tuple of at least two Tensors")
    mats = [as_input(t, "multi_dot", f"x[{i}]") for i, t in enumerate(x)]
    first_vec, last_vec = mats[0].ndim == 1, mats[-1].ndim == 1
    if first_vec:
        mats[0] = reshape(mats[0], [1, -1])
    if last_vec:
        mats[-1] = reshape(mats[-1], [-1, 1])
    for i, m in enumerate(mats):
        if m.ndim != 2:
            raise ValueError(f"multi_dot: x[{i}] must be 2-D (the first and last may be 1-D), "
                             f"got shape {m.shape}")
    for i in range(len(mats) - 1):
        if mats[i].shape[1] != mats[i + 1].shape[0]:
            raise ValueError(f"multi_dot: x[{i}] of shape {mats[i].shape} cannot multiply "
                             f"x[{i + 1}] of shape {mats[i + 1].shape}")
    dims = [mats[0].shape[0]] + [m.shape[1] for m in mats]
    n = len(mats)
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = math.inf
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k

    def chain(i, j):
        if i == j:
            return mats[i]
        return matmul(chain(i, split[i][j]), chain(split[i][j] + 1, j))

    out = chain(0, n - 1)
    if first_vec and last_vec:
        return reshape(out, [])
    if first_vec or last_vec:
        return reshape(out, [-1])
    return out


def cov(x, rowvar: bool = True, ddof: bool = True, fweights=None, aweights=None,
        name: str | None = None) -> Tensor:
    """The covariance matrix of the variables in x (rows are variables with ``rowvar``, else
    columns), as numpy.cov: with weights w = fweights * aweights, mean = sum(w x) / sum(w) and
    cov = (x - mean) w (x - mean)^T / (sum(w) - ddof * sum(w * aweights) / sum(w)) (ddof True
    subtracts 1 for unweighted data). Built from differentiable ops."""
    del name
    total = _ops.sum
    x = as_input(x, "cov")
    if x.ndim > 2 or x.data.dtype.kind != "f":
        raise ValueError(f"cov: x must be a floating 1-D or 2-D tensor, got shape {x.shape} "
                         f"and dtype {x.dtype}")
    obs = reshape(x, [1, -1]) if x.ndim < 2 else (x if rowvar else transpose(x, [1, 0]))
    count = obs.shape[1]
    xp = _xp(x.data)
    w = None
    for arg, weights, kinds in (("fweights", fweights, "iu"), ("aweights", aweights, "fiu")):
        if weights is None:
            continue
        wt = as_input(weights, "cov", arg)
        if wt.ndim != 1 or wt.shape[0] != count or wt.data.dtype.kind not in kinds:
            raise ValueError(f"cov: {arg} must be a 1-D {'integer' if kinds == 'iu' else ''} "
                             f"tensor of {count} observations, got shape {wt.shape}")
        if bool((wt.data < 0).any()):
            raise ValueError(f"cov: {arg} must be non-negative")
        wt = Tensor(wt.data.astype(x.dtype))
        w = wt if w is None else w * wt
    if w is None:
        w = Tensor(xp.ones(count, dtype=x.dtype))
    w_sum = total(w)
    mean = total(obs * w, axis=1, keepdim=True) / w_sum
    centred = obs - mean
    if not ddof:
        fact = w_sum
    elif aweights is None:
        fact = w_sum - 1
    else:
        fact = w_sum - total(w * Tensor(as_input(aweights, "cov", "aweights").data.astype(
            x.dtype))) / w_sum
    out = matmul(centred * w, transpose(centred, [1, 0])) / fact
    return reshape(out, []) if out.shape == [1, 1] else out


def corrcoef(x, rowvar: bool = True, name: str | None = None) -> Tensor:
    """Pearson correlation coefficients: cov(x) / sqrt(diag outer diag), clipped to [-1, 1]
    as numpy.corrcoef; differentiable (from cov)."""
    del name
    c = cov(x, rowvar)
    if c.ndim == 0:
        return c / c
    d = _ops.sqrt(diagonal(c))
    return _ops.clip(c / reshape(d, [-1, 1]) / reshape(d, [1, -1]), -1.0, 1.0)


for _name, _fn in {"norm": norm, "cholesky": cholesky, "matrix_power": matrix_power,
                   "inverse": inv, "pinv": pinv}.items():
    setattr(Tensor, _name, _fn)  # see the note on Tensor methods at the end of core/ops.py
del _name, _fn


# ----- cross, outer and inner products (paddle.cross / outer / inner) ---------------------------

def cross(x, y, axis: int = 9, name: str | None = None) -> Tensor:
    """The 3-D cross product of x and y (same shape) along ``axis``. Paddle's default
    ``axis=9`` means the first axis of size 3 (not the last, as torch.linalg.cross). Gradients:
    gx = y x g, gy = g x x."""
    del name
    x, y = as_input(x, "cross"), as_input(y, "cross", "y")
    if x.data.shape != y.data.shape:
        raise ValueError(f"cross: x and y must have the same shape, got {x.shape} and {y.shape}")
    if axis == 9:
        found = [i for i, n in enumerate(x.data.shape) if n == 3]
        if not found:
            raise ValueError(f"cross: with the default axis (9: the first axis of size 3), x "
                             f"must have an axis of size 3, got shape {x.shape}")
        axis = found[0]
    else:
        axis = normalize_axis(axis, x.ndim, "cross")
        if x.data.shape[axis] != 3:
            raise ValueError(f"cross: axis {axis} of x must have size 3, got shape {x.shape}")
    xp = _xp(x.data)

    def product(u, v):
        return xp.cross(u, v, axis=axis)

    return apply(product(x.data, y.data), (x, y),
                 lambda g: (product(y.data, g), product(g, x.data)), "cross")


def outer(x, y, name: str | None = None) -> Tensor:
    """The outer product x_i y_j of x and y, both flattened first: shape [x.size, y.size]."""
    del name
    x, y = as_input(x, "outer"), as_input(y, "outer", "y")
    return matmul(reshape(x, [-1, 1]), reshape(y, [1, -1]))


def inner(x, y, name: str | None = None) -> Tensor:
    """The sum of products over the last axis of x and of y: shape x.shape[:-1] +
    y.shape[:-1] (a product of two scalars for 0-D inputs)."""
    del name
    x, y = as_input(x, "inner"), as_input(y, "inner", "y")
    if x.ndim == 0 or y.ndim == 0:
        return x * y
    if x.shape[-1] != y.shape[-1]:
        raise ValueError(f"inner: the last dimensions of x {x.shape} and y {y.shape} must match")
    out = matmul(reshape(x, [-1, x.shape[-1]]), reshape(y, [-1, y.shape[-1]]), transpose_y=True)
    return reshape(out, x.shape[:-1] + y.shape[:-1])


Tensor.cross, Tensor.outer, Tensor.inner = cross, outer, inner
