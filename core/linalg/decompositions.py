"""paddle.linalg's inverses, determinants, solves and decompositions: ``inv``, ``det``,
``slogdet``, ``solve``, ``cholesky``, ``matrix_power``, ``pinv``, ``qr``, ``svd`` and ``eigh``.

Forward passes use the backend's ``linalg`` (numpy.linalg or cupy.linalg), batched over the
leading dimensions as Paddle's [..., n, n]. The backward formulas are the standard matrix
calculus ones (Giles, "An extended collection of matrix derivative results", 2008); each is
checked against float64 finite differences in tests/core/test_linalg.py (``qr``'s and ``svd``'s,
torch's svd_backward and linalg_qr_backward, in tests/core/test_linalg_grads.py). Each also
passes ``apply`` a tensor-level backward (``grad_fn``, for ``core.grad(create_graph=True)``):
the same formula with core's recorded ops (inv, solve and matmul among them), so their second
and third derivatives are recorded too (tests/core/test_higher_order_linalg.py). A
multi-output op (eigh, qr, svd) gives each output its own backward: the gradient is linear in
the outputs' gradients, so each adds its part. ``_of_singular_values`` is the backward of a
function of the singular values alone (the 'nuc' and +-2 norms, cond).
"""
from __future__ import annotations

import numpy as np

from core import backend
from core.arithmetic import matmul
from core.higher_order import captured, needs, sum_to, zero_grad
from core.linalg._common import _no_backward, _xp
from core.manipulation import transpose
from core.ops import as_input
from core.tensor import Tensor, apply, unbroadcast

__all__ = ["cholesky", "det", "eigh", "inv", "matrix_power", "pinv", "qr", "slogdet", "solve",
           "svd"]


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


def inv(x, name: str | None = None) -> Tensor:
    """The inverse of a square matrix (or of each in a batch [..., n, n]); a singular matrix is
    an error. d inv(A) = -inv(A) dA inv(A), so the gradient is -inv(A)^T G inv(A)^T."""
    del name
    x = _square(x, "inv")
    xp = _xp(x.data)
    try:
        with backend.linalg_errors(xp):  # cupy too raises for a singular matrix
            out = xp.linalg.inv(x.data)
    except np.linalg.LinAlgError as err:  # cupy raises numpy's class too
        raise ValueError(f"inv: x is singular and has no inverse ({err})") from None
    return apply(out, (x,), lambda g: (-(_mT(out) @ g @ _mT(out)),), "inv", _inv_grad)


def _inv_grad(out, g):  # create_graph: -inv^T G inv^T, with the recorded inverse ``out``
    inverse = _transpose_last(out)
    return (-(inverse @ g @ inverse),)


def _identity(x: Tensor) -> Tensor:
    """A constant identity matrix of x's size, dtype and device."""
    xp = _xp(x.data)
    return Tensor(xp.eye(x.data.shape[-1], dtype=x.data.dtype))


def _regular_inverse(x: Tensor, regular) -> Tensor:
    """inv(x), recorded, with each matrix where ``regular`` (a boolean array [...]) is False
    replaced by the identity first, as the array backwards of det and slogdet do."""
    if bool(regular.all()):  # the usual case: no masking to record
        return inv(x)
    keep = Tensor(regular[..., None, None].astype(x.data.dtype))
    return inv(x * keep + _identity(x) * (1 - keep))


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

    return apply(out, (x,), backward, "det", _det_grad)


def _det_grad(out, g):
    """create_graph: g * det(A) * inv(A)^T with recorded ops (``out`` is det(A) itself), and 0
    for a singular matrix, as the array backward."""
    (a,) = captured(out, "a")
    x = out._parents[0]
    regular = _xp(a).linalg.slogdet(a)[0] != 0
    scale = (g * out).reshape(list(out.shape) + [1, 1])
    grad = scale * _transpose_last(_regular_inverse(x, regular))
    if bool(regular.all()):
        return (grad,)
    return (grad * Tensor(regular[..., None, None].astype(a.dtype)),)


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

    return apply(out, (x,), backward, "slogdet", _slogdet_grad)


def _slogdet_grad(out, g):  # create_graph: g[1] * inv(A)^T (the log|det| row), recorded
    (sign,) = captured(out, "sign")
    x = out._parents[0]
    scale = g[1].reshape(list(out.shape[1:]) + [1, 1])
    return (scale * _transpose_last(_regular_inverse(x, sign != 0)),)


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
        with backend.linalg_errors(xp):  # cupy too raises for a singular matrix
            out = xp.linalg.solve(xp.broadcast_to(a, batch + a.shape[-2:]),
                                  xp.broadcast_to(b2, batch + b2.shape[-2:]))
    except np.linalg.LinAlgError as err:  # cupy raises numpy's class too
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

    return apply(out[..., 0] if vector else out, (x, y), backward, "solve", _solve_grad)


def _solve_grad(out, g):
    """create_graph: gy = solve(x^T, G) and gx = -gy X^T with recorded ops (``out`` is X),
    summed over broadcast batch dimensions."""
    (vector,) = captured(out, "vector")
    x, y = out._parents
    g2, solution = (g.unsqueeze(-1), out.unsqueeze(-1)) if vector else (g, out)
    gy = solve(_transpose_last(x), g2)
    gx = sum_to(-(gy @ _transpose_last(solution)), x.shape) if needs(x) else None
    if not needs(y):
        return gx, None
    return gx, sum_to(gy, [y.shape[0], 1] if vector else y.shape).reshape(y.shape)


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
    except np.linalg.LinAlgError as err:  # cupy raises numpy's class too
        raise ValueError(f"cholesky: x is not positive definite ({err})") from None
    if not xp.isfinite(low).all():  # cupy returns NaN instead of raising
        raise ValueError("cholesky: x is not positive definite")

    def backward(g):
        gl = _mT(g) if upper else g
        m = xp.tril(_mT(low) @ gl)
        p = 0.5 * (m + _mT(xp.tril(m, -1)))
        inv_low = xp.linalg.inv(low)
        return (_mT(inv_low) @ p @ inv_low,)

    return apply(_mT(low).copy() if upper else low, (x,), backward, "cholesky", _cholesky_grad)


def _cholesky_grad(out, g):
    """create_graph: the array backward's formula with recorded ops, from the recorded factor
    ``out``; tril is a product with a constant mask."""
    (upper,) = captured(out, "upper")
    low = _transpose_last(out) if upper else out
    gl = _transpose_last(g) if upper else g
    xp = _xp(out.data)
    ones = xp.ones(out.data.shape[-2:], dtype=out.data.dtype)
    m = (_transpose_last(low) @ gl) * Tensor(xp.tril(ones))
    p = (m + _transpose_last(m * Tensor(xp.tril(ones, -1)))) * 0.5
    inv_low = inv(low)
    return (_transpose_last(inv_low) @ p @ inv_low,)


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
        return apply(eye, (x,), lambda g: (0 * g,), "matrix_power", zero_grad)
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

    return apply(out, (x,), backward, "pinv", _pinv_grad)


def _pinv_grad(out, g):  # create_graph: the array backward's formula with recorded ops
    x = out._parents[0]
    left = _identity(out) - x @ out  # [m, m]: pinv is [n, m]
    right = _identity(x) - out @ x  # [n, n]
    out_t, g_t = _transpose_last(out), _transpose_last(g)
    grad = -(out_t @ g @ out_t) + left @ g_t @ out @ out_t
    return (grad + out_t @ out @ g_t @ right,)


def qr(x, mode: str = "reduced", name: str | None = None):
    """The QR decomposition of x [..., m, n]: ``(Q, R)`` for mode 'reduced' (Q [..., m, k],
    k = min(m, n)) or 'complete' (Q [..., m, m]), only R for 'r'. Differentiable as torch's
    linalg.qr (Walter and Lehmann's formulas, see ``_qr_grad_array``) where x's leading k
    columns are linearly independent, for 'reduced' and for 'complete' with m <= n (where it
    is the same Q). Not for mode 'r' (the gradient needs Q) nor 'complete' with m > n (Q's
    last m - n columns are not determined by x): there the backward raises an error."""
    del name
    x = as_input(x, "qr")
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"qr: mode must be 'reduced', 'complete' or 'r', got {mode!r}")
    if x.ndim < 2 or x.data.dtype.kind != "f":
        raise ValueError(f"qr: x must be a floating matrix or batch [..., m, n], got shape "
                         f"{x.shape} and dtype {x.dtype}")
    xp = _xp(x.data)
    if mode == "r":
        back = _no_backward("qr", "mode='r' returns no Q, which the gradient needs; use "
                            "mode='reduced'")
        return apply(xp.linalg.qr(x.data, mode="r"), (x,), back, "qr")
    q, r = xp.linalg.qr(x.data, mode=mode)
    if q.shape[-1] > r.shape[-1]:  # 'complete' with m > n
        back = _no_backward("qr", "mode='complete' with more rows than columns: Q's last m - n "
                            "columns are not determined by x; use mode='reduced'")
        return apply(q, (x,), back, "qr"), apply(r, (x,), back, "qr")
    return _qr_outputs(x, q, r)


def _qr_outputs(x: Tensor, q, r) -> tuple[Tensor, Tensor]:
    """The Tensors (Q, R) of qr's arrays, each with its array backward and its tensor-level
    one (create_graph), as eigh's pair: the gradient is linear in (gQ, gR), so each output
    adds its own part."""
    def make(which):
        def backward(g):
            return (_qr_grad_array(which, g, q, r),)
        return backward

    return (apply(q, (x,), make("q"), "qr", _qr_grad),
            apply(r, (x,), make("r"), "qr", _qr_grad))


def _qr_grad_array(which: str, g, q, r):
    """The part of x's gradient from Q's gradient (``which`` 'q') or R's ('r'), as torch's
    linalg_qr_backward (real case). With M = gR R^T - Q^T gQ (the output's term only):
    m >= n: gA = (gQ + Q sym(triu(M))) R^-T, sym(T) = T + T^T with the diagonal once;
    m < n (R = [R1 | R2], R1 square): gA = [Q tril(M^T - M) R1^-T | 0] + Q gR."""
    xp = _xp(q)
    m, n = q.shape[-2], r.shape[-1]
    mat = g @ _mT(r) if which == "r" else -(_mT(q) @ g)
    if m >= n:
        upper = xp.triu(mat)
        b = q @ (upper + _mT(xp.triu(mat, 1)))
        if which == "q":
            b = b + g
        return _mT(_qr_solve(xp, r, _mT(b)))
    b = q @ xp.tril(_mT(mat) - mat)
    lead = _mT(_qr_solve(xp, r[..., :m], _mT(b)))  # b R1^-T
    grad = xp.concatenate([lead, xp.zeros(lead.shape[:-1] + (n - m,), dtype=lead.dtype)], -1)
    return grad + q @ g if which == "r" else grad


def _qr_solve(xp, r, b):
    """solve(R1, b) for qr's gradient, where a singular R1 means x's leading columns are
    linearly dependent: the error says so."""
    try:
        with backend.linalg_errors(xp):  # cupy too raises for a singular matrix
            return xp.linalg.solve(r, b)
    except np.linalg.LinAlgError:  # cupy raises numpy's class too
        raise ValueError("qr: the gradient needs x's leading min(m, n) columns to be linearly "
                         "independent (R's leading square block invertible)") from None


def _qr_grad(out, g):
    """create_graph: ``_qr_grad_array``'s formula with recorded ops, in the recorded (Q, R)
    made again from the arrays the array backward holds; triangles are products with
    constant masks, R^-T a recorded solve."""
    q_arr, r_arr, which = captured(out, "q", "r", "which")
    q, r = _qr_outputs(out._parents[0], q_arr, r_arr)
    xp = _xp(q_arr)
    m, n = q_arr.shape[-2], r_arr.shape[-1]
    mat = g @ _transpose_last(r) if which == "r" else -(_transpose_last(q) @ g)
    ones = xp.ones((min(m, n),) * 2, dtype=q_arr.dtype)
    if m >= n:
        sym = mat * Tensor(xp.triu(ones)) + _transpose_last(mat * Tensor(xp.triu(ones, 1)))
        b = q @ sym + g if which == "q" else q @ sym
        return (_transpose_last(solve(r, _transpose_last(b))),)
    b = q @ ((_transpose_last(mat) - mat) * Tensor(xp.tril(ones)))
    lead = _transpose_last(solve(r[..., :m], _transpose_last(b)))
    grad = lead @ Tensor(xp.eye(m, n, dtype=q_arr.dtype))  # [lead | 0]
    return (grad + q @ g if which == "r" else grad,)


def svd(x, full_matrices: bool = False, name: str | None = None):
    """The singular value decomposition x = U diag(S) VH of x [..., m, n]: ``(U, S, VH)``, S in
    descending order (Paddle returns VH, the conjugate transpose of V). Differentiable (the
    formulas of torch's svd_backward, see ``_svd_grad_array``) for distinct singular values,
    and non-zero ones where m != n and U's or VH's gradient is used: otherwise the gradient is
    inf or NaN, as torch's. The loss must not depend on the singular vectors' signs (a
    function of S, of U diag(S) VH, of U's or VH's squares...), which are arbitrary. With
    ``full_matrices`` the gradients of U's and VH's columns and rows past min(m, n) are
    ignored, as torch's: they are any basis of the complement."""
    del name
    x = as_input(x, "svd")
    if x.ndim < 2 or x.data.dtype.kind != "f":
        raise ValueError(f"svd: x must be a floating matrix or batch [..., m, n], got shape "
                         f"{x.shape} and dtype {x.dtype}")
    xp = _xp(x.data)
    u, s, vh = xp.linalg.svd(x.data, full_matrices=bool(full_matrices))
    return _svd_outputs(x, u, s, vh)


def _svd_outputs(x: Tensor, u, s, vh) -> tuple[Tensor, Tensor, Tensor]:
    """The Tensors (U, S, VH) of svd's arrays, each with its array backward and its
    tensor-level one (create_graph): the gradient is linear in (gU, gS, gVH), so each output
    adds its own part, and no output holds another."""
    def make(which):
        def backward(g):
            return (_svd_grad_array(which, g, u, s, vh),)
        return backward

    return (apply(u, (x,), make("u"), "svd", _svd_grad),
            apply(s, (x,), make("s"), "svd", _svd_grad),
            apply(vh, (x,), make("vh"), "svd", _svd_grad))


def _svd_grad_array(which: str, g, u, s, vh):
    """The part of x's gradient from U's gradient (``which`` 'u'), S's ('s') or VH's ('vh'),
    as torch's svd_backward (real case), with k = min(m, n), U and VH cut to k columns / rows
    and F_ij = 1 / (s_j^2 - s_i^2) off the diagonal (0 on it):
    S: U diag(gS) VH;
    U: U (F * (U^T gU - gU^T U)) diag(S) VH, plus (I - U U^T) gU diag(S)^-1 VH when m > n;
    VH: U diag(S) (F * (VH gVH^T - gVH VH^T)) VH, plus U diag(S)^-1 gVH (I - VH^T VH) when
    m < n."""
    xp = _xp(s)
    k = s.shape[-1]
    u, vh = u[..., :k], vh[..., :k, :]  # full_matrices: the rest is not seen
    if which == "s":
        return (u * g[..., None, :]) @ vh
    sq = s * s
    off = ~xp.eye(k, dtype=bool)
    f = xp.where(off, 1 / xp.where(off, sq[..., None, :] - sq[..., :, None], 1), 0)
    if which == "u":
        g = g[..., :k]
        grad = u @ (f * (_mT(u) @ g - _mT(g) @ u) * s[..., None, :])
        if u.shape[-2] > k:
            scaled = g / s[..., None, :]
            grad = grad + scaled - u @ (_mT(u) @ scaled)
        return grad @ vh
    g = g[..., :k, :]
    grad = (s[..., :, None] * (f * (vh @ _mT(g) - g @ _mT(vh)))) @ vh
    if vh.shape[-1] > k:
        scaled = g / s[..., :, None]
        grad = grad + scaled - (scaled @ _mT(vh)) @ vh
    return u @ grad


def _svd_grad(out, g):
    """create_graph: ``_svd_grad_array``'s formula with recorded ops, in the recorded
    (U, S, VH) made again from the arrays the array backward holds."""
    u_arr, s_arr, vh_arr, which = captured(out, "u", "s", "vh", "which")
    u, s, vh = _svd_outputs(out._parents[0], u_arr, s_arr, vh_arr)
    k = s_arr.shape[-1]
    if u_arr.shape[-1] > k:
        u = u[..., :k]
    if vh_arr.shape[-2] > k:
        vh = vh[..., :k, :]
    if which == "s":
        return ((u * g.unsqueeze(-2)) @ vh,)
    eye = Tensor(_xp(s_arr).eye(k, dtype=s_arr.dtype))
    sq = s * s
    f = (1 - eye) / (sq.unsqueeze(-2) - sq.unsqueeze(-1) + eye)  # 1 on the diagonal: no 0 / 0
    if which == "u":
        g = g[..., :k] if g.shape[-1] > k else g
        grad = u @ (f * (_transpose_last(u) @ g - _transpose_last(g) @ u) * s.unsqueeze(-2))
        if u_arr.shape[-2] > k:
            scaled = g / s.unsqueeze(-2)
            grad = grad + scaled - u @ (_transpose_last(u) @ scaled)
        return (grad @ vh,)
    g = g[..., :k, :] if g.shape[-2] > k else g
    vh_t = _transpose_last(vh)
    grad = (s.unsqueeze(-1) * (f * (vh @ _transpose_last(g) - g @ vh_t))) @ vh
    if vh_arr.shape[-1] > k:
        scaled = g / s.unsqueeze(-1)
        grad = grad + scaled - (scaled @ vh_t) @ vh
    return (u @ grad,)


def _of_singular_values(x: Tensor, rows: int, cols: int, value, slope, op: str,
                        keepdim: bool = False) -> Tensor:
    """A function of the singular values s [..., k] of x's matrices over the axes ``rows`` and
    ``cols`` (a norm, a condition number), recorded as op ``op``: ``value(s)`` its array
    [...] (kept over the two axes with ``keepdim``), ``slope(s)`` d value / d s [..., k],
    written with operators and indexing so that it takes both the array s and the recorded S
    (create_graph). The forward computes s alone; the backward computes the singular vectors
    again (gx = U diag(g * slope) VH), so a call without a backward pays nothing for them."""
    xp = _xp(x.data)
    moved = xp.moveaxis(x.data, (rows, cols), (-2, -1))
    s = xp.linalg.svd(moved, compute_uv=False)
    out = xp.asarray(value(s))
    if keepdim:
        out = xp.expand_dims(out, tuple(sorted((rows, cols))))

    def backward(g):
        u, _, vh = xp.linalg.svd(moved, full_matrices=False)
        weights = g.reshape(s.shape[:-1] + (1,)) * slope(s)
        return (xp.moveaxis((u * weights[..., None, :]) @ vh, (-2, -1), (rows, cols)),)

    return apply(out, (x,), backward, op, _of_singular_values_grad)


def _of_singular_values_grad(out, g):
    """create_graph: U diag(g * slope(S)) VH in the recorded svd of x's matrices."""
    rows, cols, slope = captured(out, "rows", "cols", "slope")
    x = out._parents[0]
    perm = [i for i in range(x.ndim) if i not in (rows, cols)] + [rows, cols]
    u, s, vh = svd(transpose(x, perm))
    weights = g.reshape(list(s.shape[:-1]) + [1]) * slope(s)
    return (transpose((u * weights.unsqueeze(-2)) @ vh, [int(i) for i in np.argsort(perm)]),)


def _unit(s, i: int):
    """d s[..., i] / d s: 1 at index i of the last axis, 0 elsewhere, for the array s or the
    recorded S (a constant either way)."""
    data = s.data if isinstance(s, Tensor) else s
    e = _xp(data).zeros(data.shape[-1], dtype=data.dtype)
    e[i] = 1
    return Tensor(e) if isinstance(s, Tensor) else e


def _singular_cond(x: Tensor, p) -> Tensor:
    """cond(x, p) for p None or 2 (the largest over the smallest singular value) or -2 (the
    inverse ratio), differentiable: d (a / b) = da / b - a db / b^2. A singular x gives inf
    (and an inf or NaN gradient), as Paddle's value."""
    big, small = (0, -1) if p != -2 else (-1, 0)

    def value(s):
        with np.errstate(divide="ignore", invalid="ignore"):
            return s[..., big] / s[..., small]

    def slope(s):
        top, bottom = s[..., big:big + 1 or None], s[..., small:small + 1 or None]
        return _unit(s, big) / bottom - _unit(s, small) * top / (bottom * bottom)

    return _of_singular_values(x, x.ndim - 2, x.ndim - 1, value, slope, "cond")


def eigh(x, UPLO: str = "L", name: str | None = None):  # noqa: N803 - Paddle's name
    """The eigenvalues (ascending) and eigenvectors (columns) of a symmetric matrix or batch,
    reading its lower (``UPLO='L'``) or upper ('U') triangle: ``(w, V)``. Differentiable for
    distinct eigenvalues: gA = V (diag(gw) + F * (V^T gV)) V^T with F_ij = 1 / (w_j - w_i),
    symmetrised (the gradient with respect to a symmetric input)."""
    del name
    x = _square(x, "eigh")
    if UPLO not in ("L", "U"):
        raise ValueError(f"eigh: UPLO must be 'L' or 'U', got {UPLO!r}")
    w, v = _xp(x.data).linalg.eigh(x.data, UPLO=UPLO)
    return _eigh_outputs(x, w, v)


def _eigh_outputs(x: Tensor, w, v) -> tuple[Tensor, Tensor]:
    """The Tensors (w, V) of eigh's arrays ``w`` and ``v``, each with its array backward and
    its tensor-level one (create_graph). The tensor-level backward of either output makes a
    new pair from the same arrays (recorded, parent ``x``), so neither output holds the other."""
    xp = _xp(w)

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

    return (apply(w, (x,), make("w"), "eigh", _eigh_values_grad),
            apply(v, (x,), make("v"), "eigh", _eigh_vectors_grad))


def _eigh_pair(out) -> tuple[Tensor, Tensor]:
    """(w, V) recorded again from the arrays ``out``'s array backward holds."""
    w, v = captured(out, "w", "v")
    return _eigh_outputs(out._parents[0], w, v)


def _eigh_values_grad(out, g):  # create_graph: V diag(gw) V^T (symmetric), recorded
    _, v = _eigh_pair(out)
    return ((v * g.unsqueeze(-2)) @ _transpose_last(v),)


def _eigh_vectors_grad(out, g):
    """create_graph: V (F * (V^T gV)) V^T, symmetrised, with F_ij = 1 / (w_j - w_i) off the
    diagonal and 0 on it, recorded in w and V."""
    w, v = _eigh_pair(out)
    eye = _identity(v)
    gap = w.unsqueeze(-2) - w.unsqueeze(-1) + eye  # 1 on the diagonal: no division by 0
    inner = (1 - eye) / gap * (_transpose_last(v) @ g)
    grad = v @ inner @ _transpose_last(v)
    return ((grad + _transpose_last(grad)) * 0.5,)


for _name, _fn in {"cholesky": cholesky, "matrix_power": matrix_power, "inverse": inv,
                   "pinv": pinv}.items():
    setattr(Tensor, _name, _fn)  # see the note on Tensor methods at the end of core/ops.py
del _name, _fn
Tensor.solve, Tensor.qr = solve, qr  # Paddle's Tensor.solve(y), Tensor.qr(mode)
