"""Paddle 3's ``paddle.linalg.matrix_exp``: the matrix exponential by scaling and squaring with
Padé approximants (Higham, "The scaling and squaring method for the matrix exponential
revisited", 2005; the method of scipy.linalg.expm and torch.linalg.matrix_exp).

The approximant is built from differentiable core ops (matmul, solve), so autograd gives the
exact derivative of what is computed; the degree and the number of squarings depend only on
the 1-norm of the input, read once on the host.
"""
from __future__ import annotations

import math

from core.creation import eye
from core.linalg._common import _xp
from core.linalg.decompositions import _square, solve
from core.tensor import Tensor

__all__ = ["matrix_exp"]

# Padé coefficients b_0..b_m of the [m/m] approximant of exp, and the largest 1-norm for which
# each degree is accurate to double precision (Higham 2005, table 10.2).
_PADE = {
    3: [120.0, 60.0, 12.0, 1.0],
    5: [30240.0, 15120.0, 3360.0, 420.0, 30.0, 1.0],
    7: [17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0, 1.0],
    9: [17643225600.0, 8821612800.0, 2075673600.0, 302702400.0, 30270240.0, 2162160.0,
        110880.0, 3960.0, 90.0, 1.0],
    13: [64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
         129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
         40840800.0, 960960.0, 16380.0, 182.0, 1.0],
}
_THETA = {3: 1.495585217958292e-2, 5: 2.539398330063230e-1, 7: 9.504178996162932e-1,
          9: 2.097847961257068e0, 13: 5.371920351148152e0}


def matrix_exp(x, name: str | None = None) -> Tensor:
    """Paddle's ``paddle.linalg.matrix_exp(x, name=None)``: ``exp(x) = sum_k x^k / k!`` of a
    square float matrix, or of each in a batch [..., n, n]. Differentiable.

    The Padé degree (3, 5, 7, 9 or 13) and the squarings follow the largest 1-norm in the
    batch, so every matrix of a batch is treated alike (a small matrix batched with a large
    one is squared more often than alone, which costs a little accuracy, not correctness)."""
    del name
    x = _square(x, "matrix_exp")
    n = x.shape[-1]
    if n == 0 or x.data.size == 0:
        return x * 1
    xp = _xp(x.data)
    norm = float(xp.abs(x.data).sum(-2).max())  # the largest 1-norm (a GPU synchronises)
    if not math.isfinite(norm):
        raise ValueError(f"matrix_exp: x must be finite, got a 1-norm of {norm}")
    identity = eye(n, dtype=x.dtype)
    for degree in (3, 5, 7, 9):
        if norm <= _THETA[degree]:
            return _pade(x, identity, degree)
    squarings = max(0, math.ceil(math.log2(norm / _THETA[13])))
    result = _pade(x / 2 ** squarings, identity, 13)
    for _ in range(squarings):
        result = result.matmul(result)
    return result


def _pade(a: Tensor, identity: Tensor, degree: int) -> Tensor:
    """The [m/m] Padé approximant r(a) = (V - U)^-1 (V + U) with U odd and V even in a."""
    b = _PADE[degree]
    a2 = a.matmul(a)
    powers = [identity, a2]  # a^0, a^2, a^4, ...
    if degree == 13:
        a4 = a2.matmul(a2)
        a6 = a4.matmul(a2)
        odd = a6.matmul(b[13] * a6 + b[11] * a4 + b[9] * a2) + (
            b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * identity)
        even = a6.matmul(b[12] * a6 + b[10] * a4 + b[8] * a2) + (
            b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * identity)
    else:
        for _ in range(2, degree // 2 + 1):
            powers.append(powers[-1].matmul(a2))
        odd = sum(b[2 * k + 1] * p for k, p in enumerate(powers))
        even = sum(b[2 * k] * p for k, p in enumerate(powers))
    u = a.matmul(odd)
    return solve(even - u, even + u)
