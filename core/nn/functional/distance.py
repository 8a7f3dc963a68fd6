"""Distances between vectors (``paddle.nn.functional.pairwise_distance``).

Paddle adds ``epsilon`` to the DIFFERENCE before taking its norm, ``||x - y + epsilon||_p``
(as PyTorch's ``pairwise_distance``), so the distance of a vector to itself is ``epsilon *
D ** (1 / p)``, not 0, and the norm's gradient stays finite there. One fused op: the forward
keeps what the closed-form gradient of the norm needs.
"""
from __future__ import annotations

import functools
import math

from core import backend
from core.higher_order import needs, sum_to
from core.tensor import Tensor, apply, arrays_to_tensors, unbroadcast


def check_norm_order(fn: str, p) -> float:
    """``p`` as a float (any real number, or +-inf), or an error that names it."""
    if isinstance(p, bool) or not isinstance(p, (int, float)) or math.isnan(p):
        raise ValueError(f"{fn}: p={p!r} must be a number (the norm's order; inf and -inf "
                         "give the largest and smallest absolute difference).")
    return float(p)


def p_norm(xp, v, p: float, keepdim: bool = False):
    """``||v||_p`` along the last axis and d norm / d v, as Paddle's ``p_norm``: p = 0 counts
    the non-zero entries (gradient 0), +-inf takes the largest / smallest magnitude (the
    gradient goes to every entry that attains it), otherwise ``(sum |v|^p)^(1/p)``, whose
    gradient ``sign(v) |v|^(p-1) / norm^(p-1)`` is set to 0 where it is undefined (a zero
    norm, or a zero entry when p < 1)."""
    magnitude = abs(v)
    if p == 0:
        norm = (v != 0).sum(axis=-1, keepdims=True).astype(v.dtype)
        grad = xp.zeros_like(v)
    elif math.isinf(p):
        norm = magnitude.max(axis=-1, keepdims=True) if p > 0 else \
            magnitude.min(axis=-1, keepdims=True)
        grad = xp.sign(v) * (magnitude == norm)
    elif p == 2:
        norm = xp.sqrt((v * v).sum(axis=-1, keepdims=True))
        grad = v / xp.where(norm > 0, norm, 1)
    elif p == 1:
        norm, grad = magnitude.sum(axis=-1, keepdims=True), xp.sign(v)
    else:
        # Zero entries through safe stand-ins, so no power of 0 by a negative number is taken
        # (their true terms: 0 for p > 0; inf for p < 0, whose norm is then 0).
        present = magnitude > 0
        safe = xp.where(present, magnitude, 1)
        terms = xp.where(present, safe ** p, 0.0 if p > 0 else math.inf)
        norm = terms.sum(axis=-1, keepdims=True) ** (1.0 / p)
        usable = norm > 0
        grad = xp.sign(v) * (safe / xp.where(usable, norm, 1)) ** (p - 1)
        grad = xp.where(usable & present, grad, 0)
    norm, grad = norm.astype(v.dtype, copy=False), grad.astype(v.dtype, copy=False)
    return (norm if keepdim else norm[..., 0]), grad


def pairwise_distance(x: Tensor, y: Tensor, p: float = 2.0, epsilon: float = 1e-6,
                      keepdim: bool = False, name: str | None = None) -> Tensor:
    """Paddle's ``pairwise_distance(x, y, p=2.0, epsilon=1e-6, keepdim=False, name=None)``::

        ||x - y + epsilon||_p   along the last axis

    for ``x`` and ``y`` of shape [N, D] or [D] (they broadcast); the result is [N] (or 0-D),
    [N, 1] (or [1]) with ``keepdim``. ``p`` follows Paddle's ``p_norm``: 0 counts non-zero
    differences, ``inf`` / ``-inf`` take the largest / smallest magnitude. Both inputs take
    gradients (opposite signs).
    """
    del name
    x, y = arrays_to_tensors(x, y)  # numpy batches too, as the losses
    fn = "pairwise_distance"
    for label, t in (("x", x), ("y", y)):
        if not isinstance(t, Tensor):
            raise TypeError(f"{fn}: {label} must be a Tensor or a numpy array, got "
                            f"{type(t).__name__}")
        if t.ndim == 0 or t.dtype.kind != "f":
            raise ValueError(f"{fn}: {label} must be a floating tensor of shape [N, D] or [D], "
                             f"got shape {t.shape} ({t.dtype}).")
    p = check_norm_order(fn, p)
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)) \
            or not math.isfinite(epsilon):
        raise ValueError(f"{fn}: epsilon={epsilon!r} must be a finite number.")
    a, b = x.data, y.data.astype(x.dtype, copy=False)
    xp = backend.array_module(a)
    try:
        diff = a - b
    except ValueError:
        raise ValueError(f"{fn}: x of shape {x.shape} and y of shape {y.shape} do not "
                         "broadcast.") from None
    if epsilon != 0.0:
        diff += diff.dtype.type(epsilon)
    out, dnorm = p_norm(xp, diff, p, keepdim)

    def backward(g):
        gd = (g if keepdim else g[..., None]) * dnorm
        return (None if x.stop_gradient else unbroadcast(gd, a.shape),
                None if y.stop_gradient else unbroadcast(-gd, y.data.shape).astype(
                    y.dtype, copy=False))

    return apply(out, (x, y), backward, fn, functools.partial(
        _pairwise_distance_grad, p=p, epsilon=epsilon, keepdim=keepdim))


def _pairwise_distance_grad(out, g, p: float, epsilon: float, keepdim: bool):
    """pairwise_distance's tensor-level backward (create_graph): ``norm_grad`` of the
    recomputed difference, times g."""
    x, y = out._parents
    v = x - (y if y.dtype == x.dtype else y.astype(x.dtype))
    if epsilon != 0.0:
        v = v + epsilon
    gd = (g if keepdim else g.unsqueeze(-1)) * norm_grad(v, p)
    return (sum_to(gd, x.shape) if needs(x) else None,
            sum_to(-gd, y.shape) if needs(y) else None)


def norm_grad(v: Tensor, p: float) -> Tensor:
    """d ||v||_p / d v along the last axis (any p, +-inf too), as ``p_norm``'s array gradient
    but built of recorded ops, so that it can be differentiated again: the zero gradient of
    p = 0, the constant one of p = 1 and +-inf (piecewise linear), ``v / ||v||`` for p = 2,
    and ``sign(v) (|v| / ||v||)^(p - 1)`` otherwise, zero where it is undefined (a zero norm,
    or a zero entry when p < 1: those entries stand in as 1 and are masked out). For p < 0 a
    zero entry makes the whole norm 0 (its term is inf), so such a row's gradient is 0 too:
    the norm is then constant near it along every other entry."""
    xp, a = backend.array_module(v.data), v.data
    if p == 0 or math.isinf(p) or p == 1:
        return Tensor(p_norm(xp, a, p, keepdim=True)[1])
    # A zero norm stands in as 1 INSIDE its root (sqrt and x ** (1 / p) have infinite slopes
    # at 0, which a mask after them would turn into NaN), and its gradient is masked out.
    if p == 2:
        squares = (v * v).sum(axis=-1, keepdim=True)
        return v / (squares + Tensor((squares.data == 0).astype(a.dtype))).sqrt()
    present = Tensor((a != 0).astype(a.dtype))
    safe = v.abs() * present + (1 - present)
    total = ((safe ** p) * present).sum(axis=-1, keepdim=True)
    usable = total.data > 0
    if p < 0:  # the norm of a row with a zero entry is 0, as p_norm's
        usable = usable & (a != 0).all(axis=-1, keepdims=True)
    usable = Tensor(usable.astype(a.dtype))
    ratio = safe / (total * usable + (1 - usable)) ** (1.0 / p)
    return Tensor(xp.sign(a)) * ratio ** (p - 1) * present * usable


__all__ = ["pairwise_distance"]
