"""Paddle's ``cdist`` and ``pdist``. ``cdist``: the p-norm distance between every row of x
[..., P, M] and every row of y [..., R, M], a tensor [..., P, R] (batch dimensions broadcast, as
torch.cdist); ``pdist``: the distances between the rows of one matrix, each pair once.

The forward either forms the differences x_i - y_j ([..., P, R, M]) or, for p = 2 when
``compute_mode`` asks for it, uses |x|^2 + |y|^2 - 2 x y^T (one matmul, no [P, R, M] array; less
exact for close points). Both share one backward, written out below; at a zero distance the
gradient is 0, as Paddle's and torch's. Under ``grad(create_graph=True)`` the same backward runs
with recorded ops (``_euclid_grad`` for p = 2, ``_direct_grad_fn`` otherwise), so every order
is differentiable.
"""
from __future__ import annotations

import math

import numpy as np

from core import backend
from core.higher_order import captured, needs, sum_to
from core.linalg._common import _xp
from core.manipulation import gather
from core.ops import as_input
from core.tensor import Tensor, apply, unbroadcast

__all__ = ["cdist", "pdist"]

_MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
          "donot_use_mm_for_euclid_dist")


def _rows(x, fn: str, arg: str) -> Tensor:
    x = as_input(x, fn, arg)
    if x.ndim < 2:
        raise ValueError(f"{fn}: {arg} must be a matrix of row vectors [..., P, M] (at least "
                         f"2-D), got shape {x.shape}")
    if x.data.dtype.kind != "f":
        raise TypeError(f"{fn}: {arg} must be a floating tensor (float32 or float64), got dtype "
                        f"{x.data.dtype}")
    return x


def cdist(x, y, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary",
          name: str | None = None) -> Tensor:
    """Paddle's ``cdist(x, y, p=2.0, compute_mode='use_mm_for_euclid_dist_if_necessary')``:
    out[..., i, j] = ||x[..., i, :] - y[..., j, :]||_p for p >= 0 (0 counts the differing
    coordinates, inf takes the largest). ``compute_mode``: for p = 2, matrix multiplication
    when P > 25 or R > 25 (the default), always ('use_mm_for_euclid_dist') or never
    ('donot_use_mm_for_euclid_dist'). Differentiable in x and y."""
    del name
    x, y = _rows(x, "cdist", "x"), _rows(y, "cdist", "y")
    if isinstance(p, bool) or not isinstance(p, (int, float)) or math.isnan(p) or p < 0:
        raise ValueError(f"cdist: p must be a non-negative number (inf allowed), got {p!r}")
    if compute_mode not in _MODES:
        raise ValueError(f"cdist: compute_mode must be one of {', '.join(_MODES)}; got "
                         f"{compute_mode!r}")
    a, b = x.data, y.data
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(f"cdist: x and y must have the same number of columns M, got shapes "
                         f"{x.shape} and {y.shape}")
    try:
        batch = tuple(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]))  # shapes only
    except ValueError:
        raise ValueError(f"cdist: the batch dimensions of x {x.shape} and y {y.shape} do not "
                         "broadcast") from None
    xp = _xp(a)
    a = xp.broadcast_to(a, batch + a.shape[-2:])
    b = xp.broadcast_to(b, batch + b.shape[-2:])
    p = float(p)
    many = a.shape[-2] > 25 or b.shape[-2] > 25
    use_mm = p == 2 and (compute_mode == "use_mm_for_euclid_dist"
                         or compute_mode == _MODES[0] and many)
    out = _euclid_mm(xp, a, b) if use_mm else _direct(xp, a, b, p)

    def backward(g):
        if p == 2:  # no [P, R, M] array: d out_ij / d x_i = (x_i - y_j) / out_ij
            w = g * xp.where(out > 0, 1 / xp.where(out > 0, out, 1), 0)
            ga = a * w.sum(-1)[..., None] - w @ b
            gb = b * w.sum(-2)[..., None] - w.swapaxes(-1, -2) @ a
        else:
            gd = _direct_grad(xp, a, b, out, g, p)  # d out / d (x_i - y_j), [..., P, R, M]
            ga, gb = gd.sum(-2), -gd.sum(-3)
        return (None if x.stop_gradient else unbroadcast(ga, x.data.shape),
                None if y.stop_gradient else unbroadcast(gb, y.data.shape))

    return apply(out, (x, y), backward, "cdist", _euclid_grad if p == 2 else _direct_grad_fn)


def _euclid_grad(out, g):
    """cdist's p = 2 backward with recorded ops: w = g / out (0 where out is 0), then
    x_i sum_j w_ij - (w @ y)_i, and alike for y, as the array backward."""
    a, b = captured(out, "a", "b")
    x, y = out._parents
    xs, ys = x.broadcast_to(list(a.shape)), y.broadcast_to(list(b.shape))
    on = Tensor((out.data > 0).astype(a.dtype))
    w = g * on / (out + (1 - on))
    swap = list(range(w.ndim - 2)) + [w.ndim - 1, w.ndim - 2]
    return (sum_to(xs * w.sum(axis=-1, keepdim=True) - w @ ys, x.shape) if needs(x) else None,
            sum_to(ys * w.sum(axis=-2).unsqueeze(-1) - w.transpose(swap) @ xs, y.shape)
            if needs(y) else None)


def _direct_grad_fn(out, g):
    """cdist's backward for p != 2 with recorded ops: d out / d (x_i - y_j) as
    ``_direct_grad`` computes it, over the recorded differences [..., P, R, M], summed over
    y's rows for x and over x's rows (negated) for y."""
    a, b, p = captured(out, "a", "b", "p")
    x, y = out._parents
    diff = x.broadcast_to(list(a.shape)).unsqueeze(-2) - y.broadcast_to(list(b.shape)).unsqueeze(-3)
    gd = g.unsqueeze(-1) * _distance_slope(diff, out, p)
    return (sum_to(gd.sum(axis=-2), x.shape) if needs(x) else None,
            sum_to(-gd.sum(axis=-3), y.shape) if needs(y) else None)


def _distance_slope(diff: Tensor, out: Tensor, p: float) -> Tensor:
    """d out / d diff (out = ||diff||_p along the last axis; p >= 0, p != 2), as
    ``_direct_grad`` but of recorded ops: a constant for p = 0 (zero), p = 1 (the signs) and
    inf (the signs where the maximum is reached: piecewise linear), else sign(diff) (|diff| /
    out)^(p - 1), with zero differences standing in as 1 (no 0 to a negative power when
    p < 1) and masked out, and 0 where the distance is 0."""
    d, dist = diff.data, out.data[..., None]
    xp = backend.array_module(d)
    if p == 0:
        return Tensor(xp.zeros_like(d))
    if p == 1:
        return Tensor(xp.sign(d))
    if math.isinf(p):
        return Tensor(xp.sign(d) * (xp.abs(d) == dist))
    present = Tensor((d != 0).astype(d.dtype))
    on = Tensor((dist > 0).astype(d.dtype))
    safe = diff.abs() * present + (1 - present)
    ratio = safe / (out.unsqueeze(-1) * on + (1 - on))
    return Tensor(xp.sign(d)) * ratio ** (p - 1) * present * on


def _euclid_mm(xp, a, b):
    """sqrt(|a_i|^2 + |b_j|^2 - 2 a_i . b_j), clipped at 0 (rounding can make it negative)."""
    cross = a @ b.swapaxes(-1, -2)
    sq = (a * a).sum(-1)[..., :, None] + (b * b).sum(-1)[..., None, :] - 2 * cross
    return xp.sqrt(xp.maximum(sq, 0))


def _direct(xp, a, b, p: float):
    diff = xp.abs(a[..., :, None, :] - b[..., None, :, :])
    if p == 0:
        return (diff != 0).sum(-1).astype(a.dtype)
    if math.isinf(p):
        return diff.max(-1) if diff.shape[-1] else diff.sum(-1)
    return (diff ** p).sum(-1) ** (1 / p)


def _direct_grad(xp, a, b, out, g, p: float):
    diff = a[..., :, None, :] - b[..., None, :, :]
    mag = xp.abs(diff)
    if p == 0:  # a count: piecewise constant
        return xp.zeros_like(diff)
    if math.isinf(p):  # to the coordinates that reach the max
        return g[..., None] * xp.sign(diff) * (mag == out[..., None])
    safe = xp.where(out > 0, out, 1)[..., None]
    # d/d diff (sum |diff|^p)^(1/p) = sign(diff) (|diff| / out)^(p-1); 0 where diff or out is 0
    # (the ratio is 1 there, so that p < 1 never raises 0 to a negative power).
    ratio = xp.where(mag > 0, mag / safe, 1)
    grad = xp.sign(diff) * ratio ** (p - 1)  # sign(0) = 0 covers diff = 0
    return xp.where(out[..., None] > 0, g[..., None] * grad, 0)


def pdist(x, p: float = 2.0, name: str | None = None) -> Tensor:
    """Paddle's ``pdist(x, p=2.0, name=None)``: the p-norm distances between the rows of x
    [N, M], each pair i < j once, in the order (0, 1), (0, 2), ..., (1, 2), ... — the condensed
    form of scipy's pdist, a tensor [N (N - 1) / 2]. ``p`` as in cdist (>= 0, inf allowed).
    Differentiable (0 at a zero distance, as cdist)."""
    del name
    x = _rows(x, "pdist", "x")
    if x.ndim != 2:
        raise ValueError(f"pdist: x must be a 2-D matrix of row vectors [N, M], got shape "
                         f"{x.shape}")
    if isinstance(p, bool) or not isinstance(p, (int, float)) or math.isnan(p) or p < 0:
        raise ValueError(f"pdist: p must be a non-negative number (inf allowed), got {p!r}")
    n = x.shape[0]
    rows, cols = np.triu_indices(n, k=1)
    pairs = Tensor(backend.asarray((rows * n + cols).astype(np.int64)))
    # the direct differences, as torch.pdist: pdist is for modest N, where accuracy matters more
    full = cdist(x, x, p, compute_mode="donot_use_mm_for_euclid_dist")
    return gather(full.reshape([-1]), pairs)


Tensor.cdist = cdist  # see the note on Tensor methods at the end of core/ops.py
Tensor.pdist = pdist
