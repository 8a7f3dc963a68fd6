"""Numerical integration along an axis with Paddle 3's names: ``trapezoid`` and
``cumulative_trapezoid`` (the trapezoidal rule over samples ``y`` at points ``x`` or at a fixed
spacing ``dx``).

Both are built from core's differentiable ops (slicing, add, multiply, sum / cumsum), so the
gradient reaches ``y`` and, when it is a Tensor that needs one, ``x``.
"""
from __future__ import annotations

import numpy as np

from core.arithmetic import add, getitem, multiply, subtract
from core.manipulation import reshape
from core.ops import as_input, cumsum, normalize_axis
from core.ops import sum as _sum
from core.tensor import Tensor

__all__ = ["cumulative_trapezoid", "trapezoid"]


def trapezoid(y, x=None, dx=None, axis: int = -1, name: str | None = None) -> Tensor:
    """Paddle's ``trapezoid(y, x=None, dx=None, axis=-1)``: the integral of ``y`` along
    ``axis`` by the trapezoidal rule, ``sum((y[i] + y[i+1]) / 2 * (x[i+1] - x[i]))``. ``x``
    (the sample points: a 1-D Tensor as long as that axis, or a Tensor of y's shape) and
    ``dx`` (a fixed spacing, 1.0 when neither is given) exclude each other. The axis is
    removed from the result."""
    del name
    return _sum(_panels(y, x, dx, axis, "trapezoid"), axis=_axis(y, axis, "trapezoid"))


def cumulative_trapezoid(y, x=None, dx=None, axis: int = -1,
                         name: str | None = None) -> Tensor:
    """Paddle's ``cumulative_trapezoid(y, x=None, dx=None, axis=-1)``: the running integral
    of ``trapezoid`` (same arguments); the axis has one element fewer than y's."""
    del name
    return cumsum(_panels(y, x, dx, axis, "cumulative_trapezoid"),
                  axis=_axis(y, axis, "cumulative_trapezoid"))


def _axis(y, axis, fn: str) -> int:
    return normalize_axis(axis, as_input(y, fn, "y").ndim, fn)


def _panels(y, x, dx, axis, fn: str) -> Tensor:
    """The area of each trapezoid between neighbouring samples along ``axis``."""
    y = as_input(y, fn, "y")
    if y.dtype.kind != "f":
        raise TypeError(f"{fn}: y must be a float tensor, got {y.dtype}")
    if y.ndim == 0:
        raise ValueError(f"{fn}: y must have at least 1 dimension, got a 0-D tensor")
    axis = normalize_axis(axis, y.ndim, fn)
    heights = add(_part(y, axis, 0, -1), _part(y, axis, 1, None))
    return multiply(heights, _widths(y, x, dx, axis, fn))


def _part(t: Tensor, axis: int, start, stop) -> Tensor:
    index = [slice(None)] * t.ndim
    index[axis] = slice(start, stop)
    return getitem(t, tuple(index))


def _widths(y: Tensor, x, dx, axis: int, fn: str):
    """Half the spacing between neighbouring sample points, shaped to multiply y's panels."""
    if x is not None and dx is not None:
        raise ValueError(f"{fn}: give x or dx, not both")
    if x is None:
        dx = 1.0 if dx is None else dx.item() if isinstance(dx, Tensor) else dx
        if isinstance(dx, bool) or not isinstance(dx, (int, float, np.number)):
            raise TypeError(f"{fn}: dx must be a number, got {dx!r}")
        return float(dx) / 2
    x = as_input(x, fn, "x")
    n = y.data.shape[axis]
    if x.ndim == 1:
        if x.data.shape[0] != n:
            raise ValueError(f"{fn}: a 1-D x must have as many points as y has along axis "
                             f"{axis} ({n}), got {x.data.shape[0]}")
        steps = subtract(_part(x, 0, 1, None), _part(x, 0, 0, -1))
        view = [1] * y.ndim
        view[axis] = max(n - 1, 0)
        steps = reshape(steps, view)
    elif tuple(x.data.shape) == tuple(y.data.shape):
        steps = subtract(_part(x, axis, 1, None), _part(x, axis, 0, -1))
    else:
        raise ValueError(f"{fn}: x must be 1-D or have y's shape {y.shape}, got shape "
                         f"{x.shape}")
    return multiply(steps, 0.5)


for _fn in (trapezoid, cumulative_trapezoid):
    setattr(Tensor, _fn.__name__, _fn)  # see the note on Tensor methods at the end of core/ops.py
del _fn
