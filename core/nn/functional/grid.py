"""Sampling grids (``paddle.nn.functional`` names): ``affine_grid`` and ``grid_sample``, the two
halves of a spatial transformer (Jaderberg et al. 2015).

``affine_grid`` maps every output pixel's normalised coordinates (-1 .. 1) through a batch of
affine matrices; ``grid_sample`` reads the input at those (fractional) coordinates. Each is one
fused op: the grid's backward is a small contraction, the sampler's a scatter-add into the input
and a closed-form gradient of the bilinear weights for the grid.

Paddle's default is ``align_corners=True`` (-1 and 1 are the centres of the corner pixels);
PyTorch's is False (-1 and 1 are the outer edges of the corner pixels): docs/paddle.md.
"""
from __future__ import annotations

import functools
import itertools

from core import backend
from core.higher_order import captured, linear_grad, needs
from core.nn.functional._spatial import check_tensor
from core.tensor import Tensor, apply

_MODES = ("bilinear", "nearest")
_PADDINGS = ("zeros", "border", "reflection")


def _flag(value, label: str, op: str) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{op}: {label}={value!r} must be True or False.")
    return value


def _base_axis(xp, n: int, align_corners: bool, dtype):
    """The normalised coordinates of ``n`` pixel centres: -1 .. 1 with ``align_corners``, else
    shrunk by (n - 1) / n so that -1 and 1 are the outer pixel edges. One pixel sits at 0."""
    if n <= 1:
        return xp.zeros(max(n, 0), dtype=dtype)
    axis = xp.linspace(-1.0, 1.0, n, dtype=dtype)
    return axis if align_corners else axis * ((n - 1) / n)


def affine_grid(theta: Tensor, out_shape, align_corners: bool = True,
                name: str | None = None) -> Tensor:
    """The sampling grid of a batch of affine maps, Paddle's ``affine_grid(theta, out_shape,
    align_corners=True, name=None)``.

    ``theta`` [N, 2, 3] with ``out_shape`` [N, C, H, W] gives a grid [N, H, W, 2]:
    ``grid[n, h, w] = theta[n] @ (x_w, y_h, 1)``, where x_w, y_h are the normalised coordinates
    of pixel (h, w) (``linspace(-1, 1, W)``, times (W - 1) / W without ``align_corners``).
    ``theta`` [N, 3, 4] with ``out_shape`` [N, C, D, H, W] gives [N, D, H, W, 3] from
    (x, y, z, 1). Each grid entry lists x (width) first, as ``grid_sample`` reads it.
    Differentiable with respect to ``theta``.
    """
    del name
    op = "affine_grid"
    if not isinstance(theta, Tensor):
        raise TypeError(f"{op}: theta must be a core.Tensor, got {type(theta).__name__}")
    if isinstance(out_shape, Tensor):
        out_shape = [int(n) for n in backend.to_numpy(out_shape.data).reshape(-1)]
    if not isinstance(out_shape, (list, tuple)) or len(out_shape) not in (4, 5) or any(
            isinstance(n, bool) or not isinstance(n, int) or n <= 0 for n in out_shape):
        raise ValueError(f"{op}: out_shape={out_shape!r} must be 4 positive integers "
                         "[N, C, H, W] or 5 [N, C, D, H, W].")
    _flag(align_corners, "align_corners", op)
    spatial = len(out_shape) - 2
    want = [out_shape[0], spatial, spatial + 1]
    if list(theta.shape) != want or theta.dtype.kind != "f":
        raise ValueError(f"{op}: theta must be a floating tensor of shape {want} for "
                         f"out_shape={list(out_shape)}, got {theta.dtype} {theta.shape}.")
    data = theta.data
    xp = backend.array_module(data)
    sizes = list(out_shape[2:])  # [H, W] or [D, H, W]
    axes = [_base_axis(xp, n, align_corners, data.dtype) for n in sizes]
    mesh = xp.meshgrid(*axes, indexing="ij")  # (y, x) or (z, y, x)
    # Homogeneous coordinates, x first: [P, spatial + 1] with P = H * W (or D * H * W).
    base = xp.stack([m.reshape(-1) for m in reversed(mesh)] + [xp.ones(mesh[0].size,
                                                                        dtype=data.dtype)],
                    axis=1)
    out = xp.matmul(base, data.transpose(0, 2, 1))  # [N, P, spatial]

    def backward(g):
        g = g.reshape(out.shape)
        return (xp.matmul(g.transpose(0, 2, 1), base),)  # [N, spatial, spatial + 1]

    def grad_fn(_out, g):  # create_graph: linear in theta, so its Jacobian is the grid itself
        return (linear_grad(apply, g, backward, lambda h: affine_grid(h, out_shape,
                                                                       align_corners),
                            "affine_grid_grad"),)

    return apply(out.reshape([out_shape[0], *sizes, spatial]), (theta,), backward, op, grad_fn)


def _reflect(xp, coord, low2: float, high2: float):
    """(``coord`` reflected into [low2 / 2, high2 / 2], d reflected / d coord), PyTorch's and
    Paddle's reflect_coordinates: a triangle wave, slope +-1."""
    if low2 == high2:
        return xp.zeros_like(coord), xp.zeros_like(coord)
    low, span = low2 / 2, (high2 - low2) / 2
    shifted = coord - low
    sign = xp.where(shifted < 0, -1.0, 1.0).astype(coord.dtype)
    shifted = xp.abs(shifted)
    extra = xp.fmod(shifted, span)
    odd = (xp.floor(shifted / span) % 2) == 1
    out = xp.where(odd, span - extra + low, extra + low)
    return out, xp.where(odd, -sign, sign)


def _source(xp, g, size: int, padding_mode: str, align_corners: bool):
    """(pixel coordinate, its derivative by the normalised one) along one axis of ``size``."""
    if align_corners:
        coord, slope = (g + 1) * ((size - 1) / 2), (size - 1) / 2
    else:
        coord, slope = ((g + 1) * size - 1) / 2, size / 2
    d = xp.full(g.shape, slope, dtype=g.dtype)
    if padding_mode == "zeros":
        return coord, d
    if padding_mode == "reflection":
        low2, high2 = (0.0, 2.0 * (size - 1)) if align_corners else (-1.0, 2.0 * size - 1)
        coord, dr = _reflect(xp, coord, low2, high2)
        d = d * dr
    # border, and reflection's final clip (without align_corners it may reach -0.5 / size-0.5)
    inside = (coord >= 0) & (coord <= size - 1)
    return xp.clip(coord, 0, size - 1), d * inside


def grid_sample(x: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool = True, name: str | None = None) -> Tensor:
    """Sample ``x`` [N, C, H, W] at the normalised points of ``grid`` [N, H_out, W_out, 2],
    or ``x`` [N, C, D, H, W] at those of ``grid`` [N, D_out, H_out, W_out, 3], Paddle's
    ``grid_sample(x, grid, mode='bilinear', padding_mode='zeros', align_corners=True,
    name=None)``; the output is [N, C, H_out, W_out] (or [N, C, D_out, H_out, W_out]).

    ``grid[n, h, w] = (x, y)`` in [-1, 1] (x along the width, then y along the height, then z
    along the depth) is mapped to pixel coordinates, ``(x + 1) / 2 * (W - 1)`` with
    ``align_corners`` (-1 and 1 are the corner pixels' centres), else ``((x + 1) * W - 1) / 2``
    (their outer edges). ``mode='bilinear'`` interpolates the 4 (8 in 3-D: trilinear)
    neighbours, ``'nearest'`` takes the nearest pixel (halves round to even). Points outside
    read zeros (``padding_mode='zeros'``), the nearest edge pixel (``'border'``) or their mirror
    image in the edges (``'reflection'``). Differentiable with respect to ``x``; with
    ``'bilinear'`` with respect to ``grid`` too (nearest's gradient for the grid is zero).
    """
    del name
    op = "grid_sample"
    sizes = _check_sampling(x, grid, mode, padding_mode, align_corners, op)
    n, c, spatial = x.shape[0], x.shape[1], len(sizes)
    xp = backend.array_module(x.data)
    data, gdata = x.data, grid.data.astype(x.data.dtype, copy=False)
    points = 1
    for size in grid.shape[1:-1]:
        points *= size
    # per input axis (D, H, W order): the pixel coordinate and its slope by the grid's; grid
    # component k runs along the k-th axis from the last (x along W)
    coords, slopes = zip(*[_source(xp, gdata[..., spatial - 1 - a].reshape(n, points), size,
                                   padding_mode, align_corners)
                           for a, size in enumerate(sizes)])
    cells = 1
    for size in sizes:
        cells *= size
    # Channels last, one row per (sample, pixel): a gather reads all channels of a point at once.
    rows = data.reshape(n, c, cells).transpose(0, 2, 1).reshape(n * cells, c)
    corners = _corners(xp, coords, sizes, mode, (xp.arange(n) * cells)[:, None])
    out = xp.zeros((n, points, c), dtype=data.dtype)
    values = []
    for index, valid, weight, _ in corners:
        value = rows[index] * valid[..., None]  # [N, P, C]; outside reads zeros
        values.append(value)
        out += value if weight is None else value * weight[..., None]

    def backward(g):
        g = g.reshape(n, c, points).transpose(0, 2, 1)  # [N, P, C]
        gx = ggrid = None
        if not x.stop_gradient:
            acc = xp.zeros_like(rows)
            for index, valid, weight, _ in corners:
                part = g * valid[..., None]
                if weight is not None:
                    part = part * weight[..., None]
                backend.add_at(acc, index.reshape(-1), part.reshape(-1, c))  # repeats add up
            gx = acc.reshape(n, cells, c).transpose(0, 2, 1).reshape(data.shape)
        if not grid.stop_gradient:
            if mode == "nearest":  # piecewise constant in the grid
                ggrid = xp.zeros(grid.shape, dtype=grid.data.dtype)
            else:
                d_coords = [xp.zeros((n, points), dtype=data.dtype) for _ in sizes]
                for (_, _, _, d_weights), value in zip(corners, values):
                    along = (g * value).sum(axis=2)
                    for d_coord, d_weight in zip(d_coords, d_weights):
                        d_coord += along * d_weight
                ggrid = xp.stack([d_coords[a] * slopes[a] for a in reversed(range(spatial))],
                                 axis=-1).reshape(grid.shape)
                ggrid = ggrid.astype(grid.data.dtype, copy=False)
        return gx, ggrid

    result = out.transpose(0, 2, 1).reshape(n, c, *grid.shape[1:-1])
    return apply(result, (x, grid), backward, op, functools.partial(
        _grid_sample_grad, padding_mode=padding_mode, align_corners=align_corners))


def _check_sampling(x, grid, mode, padding_mode, align_corners, op: str) -> list:
    """grid_sample's arguments checked; the input's spatial sizes (H, W or D, H, W)."""
    check_tensor(x, "x", op, ndim=5 if isinstance(x, Tensor) and x.ndim == 5 else 4)
    check_tensor(grid, "grid", op, ndim=x.ndim)
    if mode not in _MODES:
        raise ValueError(f"{op}: mode={mode!r} is not supported; use one of {_MODES}.")
    if padding_mode not in _PADDINGS:
        raise ValueError(f"{op}: padding_mode={padding_mode!r} is not supported; use one of "
                         f"{_PADDINGS}.")
    _flag(align_corners, "align_corners", op)
    spatial = x.ndim - 2
    if grid.shape[0] != x.shape[0] or grid.shape[-1] != spatial:
        form = "[N, H_out, W_out, 2]" if spatial == 2 else "[N, D_out, H_out, W_out, 3]"
        raise ValueError(f"{op}: grid must be {form} with N = {x.shape[0]} for x of shape "
                         f"{x.shape}, got {grid.shape}.")
    return list(x.shape[2:])


def _corners(xp, coords, sizes, mode: str, offset) -> list:
    """The neighbours each point reads: (row index [N, P], in-bounds mask [N, P], weight or
    None for nearest, [d weight / d coordinate per axis]). In 2-D the order is (dy, dx) with dx
    fastest; in 3-D (dz, dy, dx)."""
    strides = [1] * len(sizes)
    for a in range(len(sizes) - 2, -1, -1):
        strides[a] = strides[a + 1] * sizes[a + 1]

    def corner(at):
        valid = True
        index = offset
        for i, size, stride in zip(at, sizes, strides):
            valid = valid & (i >= 0) & (i <= size - 1)
            index = index + xp.clip(i, 0, size - 1).astype(xp.int64) * stride
        return index, valid

    if mode == "nearest":
        return [(*corner([xp.rint(coord) for coord in coords]), None, None)]
    lows = [xp.floor(coord) for coord in coords]
    fractions = [coord - low for coord, low in zip(coords, lows)]  # the upper neighbours' weights
    corners = []
    for ups in itertools.product((0, 1), repeat=len(sizes)):
        along = [f if up else 1 - f for f, up in zip(fractions, ups)]
        d_weights = [_product([w for b, w in enumerate(along) if b != a]) * (1 if up else -1)
                     for a, up in enumerate(ups)]
        corners.append((*corner([low + up for low, up in zip(lows, ups)]), _product(along),
                        d_weights))
    return corners


def _product(factors):
    out = factors[0]
    for factor in factors[1:]:
        out = out * factor
    return out


def _grid_sample_grad(out, g, padding_mode: str, align_corners: bool):
    """grid_sample's backward with recorded ops (create_graph). The corners (their rows and
    masks) are the forward's constants; the pixel coordinates are piecewise linear in the grid,
    so each is its value plus its constant slope times (grid - its value): exact to first
    order, as the array backward. The input's gradient scatters g times each corner's weight
    (an op whose gradient is the gather), the grid's contracts g with the gathered values; the
    weights are recorded in the grid, so the cross derivatives are there too."""
    n, c, points, corners, slopes = captured(out, "n", "c", "points", "corners", "slopes")
    x, grid = out._parents
    sizes = list(x.shape[2:])
    cells = _product(sizes)
    dtype = x.data.dtype
    outer = g.reshape([n, c, points]).transpose([0, 2, 1])  # [N, P, C]
    masks = [Tensor(valid.astype(dtype)) for _, valid, *_ in corners]
    weights = [(None, None)] if corners[0][2] is None else _corner_weights(
        grid, sizes, slopes, dtype, padding_mode, align_corners)
    gx = ggrid = None
    if needs(x):
        parts = [_scatter(outer * (mask if weight is None else weight * mask).unsqueeze(-1),
                          index, n * cells)
                 for (index, *_), mask, (weight, _) in zip(corners, masks, weights)]
        gx = sum(parts[1:], parts[0]).reshape([n, cells, c]).transpose([0, 2, 1]).reshape(
            x.shape)
    if needs(grid) and weights[0][0] is None:  # nearest: piecewise constant in the grid
        ggrid = Tensor(backend.array_module(slopes[0]).zeros(grid.data.shape,
                                                             dtype=grid.data.dtype))
    elif needs(grid):
        from core.manipulation import stack  # noqa: PLC0415 - run only on this path

        rows = x.reshape([n, c, cells]).transpose([0, 2, 1]).reshape([n * cells, c])
        d_coords = [0] * len(sizes)
        for (index, *_), mask, (_, d_weights) in zip(corners, masks, weights):
            along = (outer * rows[index]).sum(axis=2) * mask
            d_coords = [d + along * dw for d, dw in zip(d_coords, d_weights)]
        ggrid = stack([d_coords[a] * Tensor(slopes[a]) for a in reversed(range(len(sizes)))],
                      axis=-1).reshape(grid.shape)
        ggrid = ggrid if ggrid.dtype == grid.dtype else ggrid.astype(grid.dtype)
    return gx, ggrid


def _corner_weights(grid: Tensor, sizes, slopes, dtype, padding_mode: str,
                    align_corners: bool) -> list:
    """Each corner's (weight, [d weight / d coordinate per axis]) as Tensors of the grid, in
    the forward's order. ``sizes`` are the input axes' (D, H, W order), ``slopes`` the pixel
    coordinates' derivatives by the grid's."""
    xp = backend.array_module(grid.data)
    n, spatial = grid.shape[0], len(sizes)
    fractions = []
    for a, (size, slope) in enumerate(zip(sizes, slopes)):
        k = spatial - 1 - a  # the grid component along this axis
        values = grid.data[..., k].astype(dtype, copy=False).reshape(n, -1)
        coord, _ = _source(xp, values, size, padding_mode, align_corners)
        moved = grid[..., k].reshape([n, -1])
        moved = moved if moved.dtype == dtype else moved.astype(dtype)
        fractions.append(Tensor(coord - xp.floor(coord)) + Tensor(slope) * (moved - Tensor(values)))
    weights = []
    for ups in itertools.product((0, 1), repeat=spatial):
        along = [f if up else 1 - f for f, up in zip(fractions, ups)]
        d_weights = [_product([w for b, w in enumerate(along) if b != a]) * (1 if up else -1)
                     for a, up in enumerate(ups)]
        weights.append((_product(along), d_weights))
    return weights


def _scatter(part: Tensor, index, rows: int) -> Tensor:
    """``part`` [N, P, C] added into ``rows`` rows of C at ``index`` [N, P] (repeats add up),
    recorded: a linear op whose gradient is the gather ``k[index]``, itself recorded."""
    flat = index.reshape(-1)
    xp = backend.array_module(part.data)
    acc = xp.zeros((rows, part.shape[-1]), dtype=part.data.dtype)
    backend.add_at(acc, flat, part.data.reshape(-1, part.shape[-1]))
    return apply(acc, (part,), lambda k: (k[flat].reshape(part.data.shape),), "grid_sample_grad",
                 lambda _out, k: (k[flat].reshape(part.shape),))
