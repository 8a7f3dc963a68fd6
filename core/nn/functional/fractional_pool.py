"""Fractional max pooling (Graham, 2015): Paddle's ``fractional_max_pool2d`` and
``fractional_max_pool3d``.

Each spatial axis of length ``n`` is cut into ``m = output_size`` windows whose starts follow a
pseudo-random sequence drawn from ONE number ``u`` in (0, 1) per call (Paddle's ``random_u``;
the same ``u`` for every sample, channel and axis). The windows are Paddle's kernel's
(paddle/phi/kernels/funcs/pooling.h: FractionalRationalU / FractionalStartIndex /
FractionalEndIndex), computed in float32 as the kernel computes them, so that the same ``u``
picks the same windows as Paddle:

* ``kernel_size`` given (``k``): ``alpha = (n - k) / (m - 1)``, ``start_i = int((i + u) *
  alpha) - int(u * alpha)``, ``end_i = start_i + k`` (overlapping windows of size k);
* ``kernel_size=None`` (disjoint mode): ``alpha = n / m`` and ``u`` is first scaled to
  ``u * min((n // m + 2) / alpha - 1, (n + 1 - n // m) / alpha - (m - 1))``, then
  ``start_i = int((i + u) * alpha) - int(u * alpha)``, ``end_i = int((i + 1 + u) * alpha) -
  int(u * alpha)``: windows of ``n // m`` or ``n // m + 1`` cells that tile the axis.

Starts and ends are clipped to [0, n]. The output is the maximum of each window; the gradient
goes to the FIRST maximum in row-major order, as the mask says (ties are common after a ReLU).

The windows are made on the host (a few ints per axis); the pooling itself is one gather of
every window, padded to the longest one by repeating its last cell (a repeat comes after the
cell it repeats, so the first maximum is unchanged), and one ``argmax``; the backward is one
scatter-add of the output gradient at the mask. Nothing loops over samples, channels or cells.
Under ``grad(create_graph=True)`` that scatter is an op of its own whose gradient is the gather
at the same cells, so derivatives of every order are recorded.
"""
from __future__ import annotations

import math

import numpy as np

from core import backend
from core.higher_order import captured, linear_grad
from core.nn.functional._spatial import _is_int, check_tensor
from core.tensor import Tensor, apply

__all__ = ["fractional_max_pool2d", "fractional_max_pool3d"]

_AXES = {2: ("height", "width"), 3: ("depth", "height", "width")}


def fractional_max_pool2d(x: Tensor, output_size, kernel_size=None, random_u=None,
                          return_mask: bool = False, name: str | None = None):
    """Paddle's ``fractional_max_pool2d(x, output_size, kernel_size=None, random_u=None,
    return_mask=False, name=None)`` over [N, C, H, W].

    ``output_size``: an int or (H_out, W_out), an entry None keeping that input size.
    ``kernel_size``: None (disjoint windows of pseudo-random sizes) or an int or a pair (fixed
    windows at pseudo-random starts). ``random_u`` in (0, 1) fixes the sequence; None draws
    one from ``core.seed``'s generator at each call. Windows, for an axis of length n and m
    outputs (see the module docstring): ``alpha = n / m`` (``(n - k) / (m - 1)`` with a kernel
    k), ``start_i = int((i + u) * alpha) - int(u * alpha)``, output ``max(x[start_i:end_i])``.
    ``return_mask=True`` returns ``(out, mask)``: the int32 index ``h * W + w`` of each
    window's first maximum in its channel's plane (what ``max_unpool2d`` takes).
    """
    del name
    return _fractional(x, output_size, kernel_size, random_u, return_mask, 2)


def fractional_max_pool3d(x: Tensor, output_size, kernel_size=None, random_u=None,
                          return_mask: bool = False, name: str | None = None):
    """Paddle's ``fractional_max_pool3d(x, output_size, kernel_size=None, random_u=None,
    return_mask=False, name=None)`` over [N, C, D, H, W]: ``fractional_max_pool2d``'s windows
    along each of D, H and W (one ``u`` for all three). ``output_size``: an int or (D_out,
    H_out, W_out), None entries keeping the input size; ``kernel_size``: None, an int or three
    ints. The mask holds ``(d * H + h) * W + w`` (int32)."""
    del name
    return _fractional(x, output_size, kernel_size, random_u, return_mask, 3)


# ----- arguments -------------------------------------------------------------------------------

def _sizes(value, label: str, op: str, dims: int, allow_none: bool) -> list:
    """An int or ``dims`` entries as a list of ints (None kept where ``allow_none``)."""
    items = list(value) if isinstance(value, (list, tuple)) else [value] * dims
    ok = len(items) == dims and all(
        (v is None and allow_none) or (_is_int(v) and int(v) >= 1) for v in items)
    if not ok:
        what = "ints >= 1 or None" if allow_none else "ints >= 1"
        raise ValueError(f"{op}: {label}={value!r} must be an int >= 1 or {dims} {what} "
                         f"({', '.join(_AXES[dims])})")
    return [None if v is None else int(v) for v in items]


def check_random_u(random_u, op: str) -> float:
    """``random_u`` as a float in (0, 1); None draws one from core.seed's generator (the
    layers call this at construction too, so a bad value fails before the first batch)."""
    if random_u is None:
        u = 0.0
        while u == 0.0:  # (0, 1): a zero would make every window start at 0
            u = float(backend.rng().random())
        return u
    if isinstance(random_u, bool) or not isinstance(random_u, (int, float, np.floating)) \
            or not 0 < float(random_u) < 1:
        raise ValueError(f"{op}: random_u={random_u!r} must be a float in (0, 1), or None to "
                         "draw one")
    return float(random_u)


def check_arguments(op: str, dims: int, output_size, kernel_size) -> tuple[list, list]:
    """``(output sizes with None kept, kernel sizes with 0 for disjoint mode)``, checked."""
    outs = _sizes(output_size, "output_size", op, dims, allow_none=True)
    kernel = [0] * dims if kernel_size is None else _sizes(kernel_size, "kernel_size", op, dims,
                                                           allow_none=False)
    return outs, kernel


# ----- the windows -----------------------------------------------------------------------------

def _windows(n: int, m: int, k: int, u: float, op: str, axis: str) -> tuple[np.ndarray, ...]:
    """The ``(starts, ends)`` of the m windows along an axis of length n (int64 host arrays),
    as Paddle's kernel computes them in float32; raises where no window can be made."""
    if k > 0 and n < m - 1 + k:
        raise ValueError(f"{op}: the input {axis} {n} is too small for output_size {m} with "
                         f"kernel_size {k}; it must be at least output_size - 1 + kernel_size "
                         f"= {m - 1 + k} (as in Paddle)")
    if k == 0 and m > n:
        raise ValueError(f"{op}: output_size {m} is larger than the input {axis} {n}; without "
                         "a kernel_size the windows tile the input, so output_size must be at "
                         "most the input size")
    f32 = np.float32
    index = np.arange(m, dtype=f32)
    if k > 0:
        # m == 1 divides by zero in Paddle's kernel; its single window starts at 0 there
        # (int(inf) - int(inf) = 0), which alpha = 0 gives without the undefined conversion.
        alpha = f32(n - k) / f32(m - 1) if m > 1 else f32(0)
        uu = f32(u)
    else:
        alpha = f32(n) / f32(m)
        base = n // m
        top = min(f32(base + 2) / alpha - f32(1), f32(n + 1 - base) / alpha - f32(m - 1))
        uu = f32(u) * top
    offset = np.trunc(uu * alpha).astype(np.int64)
    starts = np.trunc((index + uu) * alpha).astype(np.int64) - offset
    if k > 0:
        ends = starts + k
    else:
        ends = np.trunc((index + f32(1) + uu) * alpha).astype(np.int64) - offset
    starts, ends = np.maximum(starts, 0), np.minimum(ends, n)
    # float32 rounding can leave a window empty (u near 1 with n == m, or a last kernel window
    # pushed to start at n when k == 1); Paddle's kernel then outputs -FLT_MAX with mask -1 and
    # its backward writes outside the plane. Such a window takes the one cell before its end.
    starts = np.minimum(starts, ends - 1)
    return starts, ends


def _cells(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """[m, longest window] input positions of each window, the short ones padded by repeating
    their last cell (a repeat never precedes what it repeats: the first maximum stays first)."""
    longest = int((ends - starts).max())
    steps = np.arange(longest)[None, :]
    return starts[:, None] + np.minimum(steps, (ends - starts - 1)[:, None])


# ----- the pool --------------------------------------------------------------------------------

def _fractional(x, output_size, kernel_size, random_u, return_mask, dims: int):
    op = f"fractional_max_pool{dims}d"
    check_tensor(x, "x", op, ndim=dims + 2)
    outs, kernel = check_arguments(op, dims, output_size, kernel_size)
    u = check_random_u(random_u, op)
    data = x.data
    xp = backend.array_module(data)
    n, c = data.shape[:2]
    spatial = data.shape[2:]
    outs = [size if out is None else out for size, out in zip(spatial, outs)]
    cells = [_cells(*_windows(size, out, k, u, op, axis))
             for size, out, k, axis in zip(spatial, outs, kernel, _AXES[dims])]
    # One index array per axis, shaped to broadcast to [out_1, .., out_d, len_1, .., len_d]:
    # axis a's array varies along output axis a and window axis d + a only.
    index = []
    for a, pos in enumerate(cells):
        shape = [1] * (2 * dims)
        shape[a], shape[dims + a] = pos.shape
        index.append(xp.asarray(pos.reshape(shape)))
    windows = data[(slice(None), slice(None), *index)]
    lengths = [pos.shape[1] for pos in cells]
    flat = windows.reshape(n, c, *outs, math.prod(lengths))
    first = flat.argmax(axis=-1)  # the first maximum (a NaN counts as the maximum)
    out = xp.take_along_axis(flat, first[..., None], axis=-1)[..., 0]
    # The window position of each first maximum, then its index in the input plane.
    plane = xp.zeros(first.shape, dtype=np.int64)
    rest = first
    for a in range(dims - 1, -1, -1):
        step = rest % lengths[a]
        rest = rest // lengths[a]
        grid = [1] * len(first.shape)
        grid[2 + a] = outs[a]
        rows = xp.asarray(cells[a])
        along = xp.arange(outs[a]).reshape(grid)
        plane = plane + rows[along, step] * math.prod(spatial[a + 1:])
    mask = plane.astype(np.int32)
    size, cells_out = math.prod(spatial), math.prod(outs)

    def backward(g):
        dx = xp.zeros((n * c, size), dtype=data.dtype)
        lanes = xp.arange(n * c)[:, None]
        # Overlapping windows (a kernel_size) may share a maximum: the gradients add up.
        # (Explicit sizes, not -1: an empty batch has nothing to infer -1 from.)
        backend.add_at(dx, (lanes, plane.reshape(n * c, cells_out)), g.reshape(n * c, cells_out))
        return (dx.reshape(data.shape),)

    pooled = apply(out, (x,), backward, op, _fractional_grad)
    return (pooled, Tensor(mask)) if return_mask else pooled


def _fractional_grad(out, g):  # create_graph: the gradient routed as the forward routed x
    """The scatter of g to each window's first maximum, recorded as an op of its own
    (``fractional_max_pool{2,3}d_grad``) whose gradient is the pool's Jacobian: the gather of
    the input-shaped cotangent at the same cells, so every order is recorded."""
    plane, size = captured(out, "plane", "size")
    xp = backend.array_module(plane)
    lanes = plane.shape[:2]
    flat = plane + (xp.arange(math.prod(lanes), dtype=np.int64) * size).reshape(
        lanes + (1,) * (plane.ndim - 2))

    def routed(h):  # the pool's Jacobian: h at each window's first maximum
        return h.reshape([-1])[flat]

    return (linear_grad(apply, g, out._backward, routed, f"{out._op}_grad"),)
