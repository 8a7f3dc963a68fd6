"""paddle.linalg's norms: ``vector_norm`` (any real p, +-inf and 0), ``matrix_norm`` ('fro',
'nuc', +-1, +-2, +-inf over two axes) and ``norm``, which picks one of them by ``axis`` as
Paddle's ``paddle.norm`` (also ``core.norm``).

The 'nuc' and +-2 matrix norms are functions of the singular values, differentiable through
them (U diag(d norm / d s) VH; the +-2 norms where the largest / smallest singular value is
distinct), also under create_graph; the others are built of differentiable ops.
"""
from __future__ import annotations

import math

import numpy as np

from core import backend
from core import ops as _ops  # abs, sum: Python's names in this module
from core.arithmetic import add, divide, multiply
from core.arithmetic import pow as _pow
from core.higher_order import restore
from core.linalg._common import _xp
from core.linalg.decompositions import _of_singular_values, _unit
from core.manipulation import reshape
from core.ops import as_input, normalize_axes, normalize_axis
from core.statistics import amax, amin
from core.tensor import Tensor, apply

__all__ = ["matrix_norm", "norm", "vector_norm"]


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
        return (amax if p > 0 else amin)(_ops.abs(x), axis=list(axes), keepdim=keepdim)
    full = (mag ** p).sum(axis=axes, keepdims=True) ** (1.0 / p)
    out = full if keepdim else full.reshape(tuple(n for i, n in enumerate(a.shape)
                                                  if i not in axes))

    def backward(g):
        g = g if keepdim else xp.expand_dims(g, axes)
        # d/dx (sum |x|^p)^(1/p) = sign(x) |x|^(p-1) / norm^(p-1); 0 where the norm is 0
        safe = xp.where(full > 0, full, 1)
        grad = g * xp.sign(a) * (mag / safe) ** (p - 1)
        return (xp.where(full > 0, grad, 0 * grad),)

    grad_fn = (lambda out, g: (_two_norm_grad(out, g, axes, keepdim, full),)) if p == 2 else \
        lambda out, g: (_p_norm_grad(out, g, p, axes, keepdim, full),)
    return apply(xp.asarray(out), (x,), backward, "vector_norm", grad_fn)


def _p_norm_grad(out: Tensor, g: Tensor, p: float, axes: tuple, keepdim: bool, full) -> Tensor:
    """Any other p's gradient sign(x) (|x| / norm)^(p-1) with Tensors (create_graph), 0 where
    the norm is 0, as the array backward; p = 1's is the constant sign(x)."""
    x = out._parents[0]
    shape = x.shape
    zero = Tensor((full == 0).astype(x.dtype)).broadcast_to(shape)
    if p == 1:  # (|x| / norm)^0 would have a 0 * inf gradient at x = 0
        return restore(g, axes, keepdim, shape) * Tensor(_xp(x.data).sign(x.data)) * (1 - zero)
    ratio = x.abs() / (restore(out, axes, keepdim, shape) + zero)
    return restore(g, axes, keepdim, shape) * x.sign() * ratio ** (p - 1) * (1 - zero)


def _two_norm_grad(out: Tensor, g: Tensor, axes: tuple, keepdim: bool, full) -> Tensor:
    """The 2-norm's gradient x / norm with Tensors (create_graph; WGAN-GP's penalty), 0 where
    the norm is 0: there x is 0 too, so dividing by 1 instead gives it."""
    x = out._parents[0]
    shape = x.shape
    zero = Tensor((full == 0).astype(x.dtype))  # 1 where the norm is 0, kept-dims shape
    return restore(g, axes, keepdim, shape) * x / (restore(out, axes, keepdim, shape)
                                                   + zero.broadcast_to(shape))


def matrix_norm(x, p="fro", axis=(-2, -1), keepdim: bool = False,
                name: str | None = None) -> Tensor:
    """A matrix norm over the two ``axis``: 'fro' (Frobenius), 'nuc' (the sum of singular
    values), 1 / -1 (max / min column sum of |x|), inf / -inf (max / min row sum), 2 / -2
    (largest / smallest singular value). All are differentiable (the +-2 norms where that
    singular value is distinct)."""
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
        out = (amax if p > 0 else amin)(sums, axis=other, keepdim=True)
        return out if keepdim else reshape(out, [n for i, n in enumerate(x.shape)
                                                 if i not in (rows, cols)])
    if p in ("nuc", 2, -2) and not isinstance(p, bool):
        value, slope = _SINGULAR_NORMS[p]
        return _of_singular_values(x, rows, cols, value, slope, "matrix_norm", keepdim)
    raise ValueError(f"matrix_norm: p must be 'fro', 'nuc', 1, -1, 2, -2, inf or -inf, got "
                     f"{p!r}")


# The singular-value norms: (value, d value / d s) of the singular values s [..., k],
# descending; the slopes take the array s or the recorded S (see _of_singular_values).
_SINGULAR_NORMS = {
    "nuc": (lambda s: s.sum(-1), lambda s: s * 0 + 1),
    2: (lambda s: s[..., 0], lambda s: _unit(s, 0)),
    -2: (lambda s: s[..., -1], lambda s: _unit(s, -1)),
}


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


Tensor.norm = norm  # see the note on Tensor methods at the end of core/ops.py


def dist(x, y, p: float = 2.0, name: str | None = None) -> Tensor:
    """Paddle's ``dist(x, y, p=2)``: the p-norm of ``x - y`` (broadcast) over all elements, a
    0-D tensor (p: any real, +-inf or 0, as ``vector_norm``)."""
    del name
    x, y = as_input(x, "dist"), as_input(y, "dist", "y")
    if isinstance(p, bool) or not isinstance(p, (int, float)):
        raise TypeError(f"dist: p must be a number, got {p!r}")
    return vector_norm(x - y, float(p))


__all__ += ["dist"]
Tensor.dist = dist  # see the note on Tensor methods at the end of core/ops.py


def renorm(x, p, axis: int, max_norm, name: str | None = None) -> Tensor:
    """Paddle's ``renorm(x, p, axis, max_norm)``: each slice of ``x`` along ``axis`` (all the
    other dimensions) whose p-norm exceeds ``max_norm`` is scaled by
    ``max_norm / (norm + 1e-7)``; the others are kept. Differentiable in x, the norm's
    dependence included (as torch's renorm)."""
    del name
    x = as_input(x, "renorm")
    if x.dtype.kind != "f":
        raise TypeError(f"renorm: x must be a float tensor, got {x.dtype}")
    for arg, value in (("p", p), ("max_norm", max_norm)):
        if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
            raise TypeError(f"renorm: {arg} must be a number, got {value!r}")
    if p <= 0:
        raise ValueError(f"renorm: p must be > 0, got {p}")
    if max_norm < 0:
        raise ValueError(f"renorm: max_norm must be >= 0, got {max_norm}")
    axis = normalize_axis(axis, x.ndim, "renorm")
    others = [i for i in range(x.ndim) if i != axis]
    if math.isinf(p):  # the max-norm: |x|^inf would overflow to inf or vanish to 0
        norms = _ops.max(_ops.abs(x), axis=others, keepdim=True)
    else:
        norms = _pow(_ops.sum(_pow(_ops.abs(x), float(p)), axis=others, keepdim=True), 1.0 / p)
    over = (norms.data > max_norm).astype(x.dtype)  # which slices shrink: no gradient
    xp = backend.array_module(x.data)
    shrink = divide(Tensor(xp.asarray(over * max_norm, dtype=x.dtype)), add(norms, 1e-7))
    return multiply(x, add(shrink, Tensor(1 - over)))


__all__ += ["renorm"]
Tensor.renorm = renorm  # see the note on Tensor methods at the end of core/ops.py
