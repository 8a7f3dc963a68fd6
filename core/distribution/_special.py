"""``lgamma`` and ``digamma`` for the distributions' densities, entropies and KL divergences.

numpy has neither, and scipy is not a dependency of core; these are written with the array
module's element-wise functions only, so the same code runs on numpy and on cupy. Both take
positive arguments, which is all the distributions pass (concentrations, rates, counts + 1):

* ``lgamma``: the Lanczos approximation (g = 7, 9 terms; relative error about 1e-15) for
  x >= 0.5, and the reflection formula below it;
* ``digamma`` and its derivative ``trigamma``: shift x up by 10 with the recurrences
  psi(x) = psi(x + 1) - 1/x, psi'(x) = psi'(x + 1) + 1/x^2, then the asymptotic series, whose
  first left-out term is below 1e-16 for x >= 10.

The Tensor ops differentiate once (lgamma' = digamma, digamma' = trigamma): the gradients of
log-densities and KL divergences; trigamma is not differentiable again.
"""
from __future__ import annotations

import math

from core import backend
from core.tensor import Tensor, apply

_LANCZOS_G = 7.0
_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
            -176.61502916214059, 12.507343278686905, -0.13857109526572012,
            9.9843695780195716e-6, 1.5056327351493116e-7)
_SHIFT = 10
# Bernoulli numbers B_2k / 2k for psi's series (1/12, -1/120, ...) and B_2k for psi''s.
_PSI_SERIES = (1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760, 1 / 12)
_TRIGAMMA_SERIES = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6)


def _lanczos(xp, x):
    """lgamma(x) for x >= 0.5."""
    z = x - 1
    total = xp.full_like(z, _LANCZOS[0])
    for k, coef in enumerate(_LANCZOS[1:], 1):
        total = total + coef / (z + k)
    t = z + _LANCZOS_G + 0.5
    return 0.5 * math.log(2 * math.pi) + (z + 0.5) * xp.log(t) - t + xp.log(total)


def lgamma_array(a):
    """log|Gamma(a)| element-wise for a > 0 (an array of numpy or cupy)."""
    xp = backend.array_module(a)
    small = a < 0.5
    # Reflection for 0 < a < 0.5: lgamma(a) = log(pi / sin(pi a)) - lgamma(1 - a).
    safe = xp.where(small, 1 - a, a)
    big = _lanczos(xp, safe)
    tiny = xp.where(small, a, 0.25)  # sin(pi a) > 0 where the reflection is used
    reflected = math.log(math.pi) - xp.log(xp.sin(math.pi * tiny)) - big
    return xp.where(small, reflected, big).astype(a.dtype, copy=False)


def digamma_array(a):
    """psi(a) = d/da lgamma(a), element-wise for a > 0."""
    xp = backend.array_module(a)
    shifted = a + _SHIFT
    total = xp.log(shifted) - 0.5 / shifted
    inv2 = 1 / (shifted * shifted)
    power = inv2
    for coef in _PSI_SERIES:
        total = total - coef * power
        power = power * inv2
    for k in range(_SHIFT):
        total = total - 1 / (a + k)
    return total.astype(a.dtype, copy=False)


def trigamma_array(a):
    """psi'(a), element-wise for a > 0."""
    shifted = a + _SHIFT
    inv = 1 / shifted
    inv2 = inv * inv
    total = inv + 0.5 * inv2
    power = inv2 * inv
    for coef in _TRIGAMMA_SERIES:
        total = total + coef * power
        power = power * inv2
    for k in range(_SHIFT):
        total = total + 1 / ((a + k) * (a + k))
    return total.astype(a.dtype, copy=False)


def lgamma(x: Tensor) -> Tensor:
    """log Gamma(x) of a positive float Tensor (Paddle's ``paddle.lgamma`` on x > 0)."""
    a = x.data
    return apply(lgamma_array(a), (x,), lambda g: (g * digamma_array(a),), "lgamma")


def digamma(x: Tensor) -> Tensor:
    """psi(x) of a positive float Tensor (Paddle's ``paddle.digamma`` on x > 0)."""
    a = x.data
    return apply(digamma_array(a), (x,), lambda g: (g * trigamma_array(a),), "digamma")
