"""Region-of-interest pooling, Paddle's ``paddle.vision.ops`` ``roi_align``, ``roi_pool``,
``psroi_pool`` and their layers ``RoIAlign``, ``RoIPool``, ``PSRoIPool``.

Boxes are (x1, y1, x2, y2) rows in input-image coordinates (times ``spatial_scale`` on the
feature map); ``boxes_num`` says how many consecutive boxes belong to each image. Each op
follows the sampling rules of Paddle's CPU kernel (phi/kernels/cpu/*_kernel.cc, Paddle 3.x).

RoIAlign and PSRoIPool are linear in the feature map and separable in y and x: every box
becomes two small weight matrices, Ay [PH, H] and Ax [PW, W], and its output is
``Ay @ x[c] @ Ax^T`` - matrix products over the boxes of one image, and their transposes for
the gradient. RoIPool's max gathers each bin's padded window. The boxes of an image are
walked in chunks that bound the scratch memory (_checks.SCRATCH_ELEMENTS).
"""
from __future__ import annotations

import numpy as np

from core import backend
from core.nn.layer import Layer
from core.tensor import Tensor, apply
from core.vision.ops import _checks


def _image_runs(ids: np.ndarray, batch: int):
    """(image, first box, end box) of each image's run of consecutive boxes."""
    ends = np.searchsorted(ids, np.arange(batch), side="right")
    starts = np.concatenate([[0], ends[:-1]])
    return [(n, int(s), int(e)) for n, (s, e) in enumerate(zip(starts, ends)) if e > s]


def _check_common(x, boxes, boxes_num, output_size, spatial_scale, op):
    _checks.tensor(x, "x", op, ndim=4)
    _checks.boxes_2d(boxes, op)
    size = _checks.output_size(output_size, op)
    scale = _checks.scale(spatial_scale, "spatial_scale", op)
    ids = _checks.batch_ids(boxes_num, boxes.shape[0], x.shape[0], op)
    return size, scale, ids


# ----------------------------------------------------------------------------- roi_align

def _align_weights(xp, start, length, grid, pooled: int, size: int):
    """[R, pooled, size] weights of one axis: bin p of box r averages ``grid[r]`` bilinear
    samples at start + length / pooled * (p + (i + 0.5) / grid). Paddle's rules: a sample
    below -1 or above ``size`` reads 0, one in [-1, 0] reads pixel 0, one past size - 1 reads
    the last pixel."""
    dtype = start.dtype
    most = max(int(grid.max()) if grid.size else 0, 1)
    safe = xp.maximum(grid, 1).astype(dtype)[:, None, None]
    p = xp.arange(pooled, dtype=dtype)[None, :, None]
    i = xp.arange(most, dtype=dtype)[None, None, :]
    coord = start[:, None, None] + (length / pooled)[:, None, None] * (p + (i + 0.5) / safe)
    used = i < grid[:, None, None]
    valid = used & (coord >= -1) & (coord <= size)
    coord = xp.maximum(coord, 0)
    low = xp.floor(coord)
    edge = low >= size - 1
    low = xp.where(edge, size - 1, low)
    high = xp.where(edge, size - 1, low + 1)
    coord = xp.where(edge, low, coord)
    w_low = (high - coord) * valid / safe  # Paddle's ratio of the low neighbour
    w_high = (1 - (high - coord)) * valid / safe
    r = grid.shape[0]
    weights = xp.zeros((r * pooled * size,), dtype=dtype)
    rows = (xp.arange(r)[:, None, None] * pooled + xp.arange(pooled)[None, :, None]) * size
    for index, weight in ((low, w_low), (high, w_high)):
        flat = (rows + index.astype(xp.int64)).reshape(-1)
        backend.add_at(weights, flat, weight.reshape(-1))  # repeated pixels add up
    return weights.reshape(r, pooled, size)


def _align_grid(xp, length, pooled: int, sampling_ratio: int):
    if sampling_ratio > 0:
        return xp.full(length.shape, sampling_ratio, dtype=xp.int64)
    return xp.maximum(xp.ceil(length / pooled), 0).astype(xp.int64)


def roi_align(x: Tensor, boxes: Tensor, boxes_num: Tensor, output_size, spatial_scale=1.0,
              sampling_ratio: int = -1, aligned: bool = True, name=None) -> Tensor:
    """RoIAlign (Mask R-CNN), Paddle's ``roi_align(x, boxes, boxes_num, output_size,
    spatial_scale=1.0, sampling_ratio=-1, aligned=True, name=None)``.

    ``x`` [N, C, H, W]; ``boxes`` [num_boxes, 4] (x1, y1, x2, y2); ``boxes_num`` [N] ints,
    the number of consecutive boxes of each image; ``output_size`` an int or (h, w). Each box,
    times ``spatial_scale`` (and shifted by -0.5 pixel with ``aligned``, Detectron2's
    half-pixel convention), is cut into h x w bins; a bin averages bilinear samples on a
    regular grid of ``sampling_ratio`` x ``sampling_ratio`` points, or
    ceil(box size / bins) per axis when ``sampling_ratio <= 0``. Without ``aligned`` a box is
    at least 1 x 1. Returns [num_boxes, C, h, w]; differentiable with respect to ``x``
    (not ``boxes``, as in Paddle).
    """
    del name
    op = "roi_align"
    (ph, pw), scale, ids = _check_common(x, boxes, boxes_num, output_size, spatial_scale, op)
    if isinstance(sampling_ratio, bool) or not isinstance(sampling_ratio, int):
        raise ValueError(f"{op}: sampling_ratio={sampling_ratio!r} must be an int (<= 0: "
                         "adaptive)")
    if not isinstance(aligned, bool):
        raise ValueError(f"{op}: aligned={aligned!r} must be True or False")
    data = x.data
    xp = backend.array_module(data)
    n, c, h, w = x.shape
    box = boxes.data.astype(data.dtype, copy=False) * scale - (0.5 if aligned else 0.0)
    width, height = box[:, 2] - box[:, 0], box[:, 3] - box[:, 1]
    if not aligned:  # the legacy op forces at least one pixel
        width, height = xp.maximum(width, 1.0), xp.maximum(height, 1.0)
    ay = _align_weights(xp, box[:, 1], height, _align_grid(xp, height, ph, sampling_ratio),
                        ph, h)
    ax = _align_weights(xp, box[:, 0], width, _align_grid(xp, width, pw, sampling_ratio),
                        pw, w)
    runs = _image_runs(ids, n)
    out = xp.zeros((boxes.shape[0], c, ph, pw), dtype=data.dtype)
    for image, first, end in runs:  # one matrix product per image (and chunk of boxes)
        planes = data[image].transpose(1, 0, 2).reshape(h, c * w)
        for part in _checks.chunks(np.arange(first, end), ph * c * w):
            s = slice(int(part[0]), int(part[-1]) + 1)
            rows = (ay[s].reshape(-1, h) @ planes).reshape(len(part), ph, c, w)
            out[s] = rows.transpose(0, 2, 1, 3) @ ax[s].transpose(0, 2, 1)[:, None]

    def backward(g):
        grad = xp.zeros_like(data)
        for image, first, end in runs:
            for part in _checks.chunks(np.arange(first, end), ph * c * w):
                s = slice(int(part[0]), int(part[-1]) + 1)
                cols = (g[s] @ ax[s][:, None]).transpose(0, 2, 1, 3).reshape(-1, c * w)
                grad[image] += (ay[s].reshape(-1, h).T @ cols).reshape(h, c, w).transpose(
                    1, 0, 2)
        return (grad,)

    return apply(out, (x,), backward, op)


# ----------------------------------------------------------------------------- roi_pool

def _c_round(xp, v):
    """C's round(): halves away from zero (numpy's rint rounds them to even)."""
    return xp.sign(v) * xp.floor(xp.abs(v) + 0.5)


def _pool_bins(xp, start, length, pooled: int, size: int):
    """[R, pooled] (first, end) pixels of each bin, Paddle's roi_pool: floor / ceil of
    p * length / pooled in float32, offset by the box start, clipped to the map."""
    bin_size = length.astype(np.float32) / np.float32(pooled)
    p = xp.arange(pooled, dtype=np.float32)[None]
    first = xp.floor(p * bin_size[:, None]).astype(xp.int64) + start[:, None]
    end = xp.ceil((p + 1) * bin_size[:, None]).astype(xp.int64) + start[:, None]
    return xp.clip(first, 0, size), xp.clip(end, 0, size)


def roi_pool(x: Tensor, boxes: Tensor, boxes_num: Tensor, output_size, spatial_scale=1.0,
             name=None) -> Tensor:
    """RoI max pooling (Fast R-CNN), Paddle's ``roi_pool(x, boxes, boxes_num, output_size,
    spatial_scale=1.0, name=None)``.

    Each box, times ``spatial_scale`` and rounded to whole pixels (halves away from zero;
    x2 and y2 inclusive; a malformed box becomes 1 x 1), is cut into h x w bins of
    floor / ceil pixel bounds; each output is the bin's maximum, 0 for a bin outside the map.
    Returns [num_boxes, C, h, w]; differentiable with respect to ``x`` (the gradient goes to
    the first maximum of each bin in row-major order, as Paddle's argmax).
    """
    del name
    op = "roi_pool"
    (ph, pw), scale, ids = _check_common(x, boxes, boxes_num, output_size, spatial_scale, op)
    data = x.data
    xp = backend.array_module(data)
    n, c, h, w = x.shape
    r = boxes.shape[0]
    corner = _c_round(xp, boxes.data * boxes.data.dtype.type(scale)).astype(xp.int64)
    height = xp.maximum(corner[:, 3] - corner[:, 1] + 1, 1)
    width = xp.maximum(corner[:, 2] - corner[:, 0] + 1, 1)
    top, bottom = _pool_bins(xp, corner[:, 1], height, ph, h)
    left, right = _pool_bins(xp, corner[:, 0], width, pw, w)
    kh = max(int((bottom - top).max()) if r else 0, 1)
    kw = max(int((right - left).max()) if r else 0, 1)
    rows = top[:, :, None] + xp.arange(kh)[None, None]  # [R, PH, KH]
    cols = left[:, :, None] + xp.arange(kw)[None, None]  # [R, PW, KW]
    inside = (rows < bottom[:, :, None])[:, :, :, None, None] & \
        (cols < right[:, :, None])[:, None, None]  # [R, PH, KH, PW, KW]
    rows, cols = xp.minimum(rows, h - 1), xp.minimum(cols, w - 1)
    out = xp.zeros((r, c, ph, pw), dtype=data.dtype)
    index = xp.full((r, c, ph, pw), -1, dtype=xp.int64)  # flat index into x; -1: empty bin
    for image, first, end in _image_runs(ids, n):
        for part in _checks.chunks(np.arange(first, end), c * ph * kh * pw * kw):
            s = slice(int(part[0]), int(part[-1]) + 1)
            flat = rows[s][:, :, :, None, None] * w + cols[s][:, None, None]  # [r, PH, KH, PW, KW]
            flat = flat.transpose(0, 1, 3, 2, 4).reshape(len(part), ph, pw, kh * kw)
            mask = inside[s].transpose(0, 1, 3, 2, 4).reshape(flat.shape)
            values = data[image].reshape(c, h * w)[:, flat]  # [C, r, PH, PW, KH * KW]
            values = xp.where(mask[None], values, -xp.inf)
            best = values.argmax(axis=-1)  # the first maximum, as Paddle's strict '>'
            top_value = xp.take_along_axis(values, best[..., None], axis=-1)[..., 0]
            where = xp.take_along_axis(flat[None], best[..., None], axis=-1)[..., 0]
            empty = ~mask.any(axis=-1)[None]
            out[s] = xp.where(empty, 0, top_value).transpose(1, 0, 2, 3)
            offset = (image * c + xp.arange(c))[:, None, None, None] * (h * w)
            index[s] = xp.where(empty, -1, where + offset).transpose(1, 0, 2, 3)

    def backward(g):
        grad = xp.zeros(data.size, dtype=data.dtype)
        hit = index >= 0
        backend.add_at(grad, index[hit], g[hit])  # a pixel that is the max of several bins adds up
        return (grad.reshape(data.shape),)

    return apply(out, (x,), backward, op)


# ----------------------------------------------------------------------------- psroi_pool

def _ps_bins(xp, start, length, pooled: int, size: int):
    """[R, pooled, size] 0/1 masks of each bin's pixels and [R, pooled] pixel counts."""
    bin_size = length / pooled
    p = xp.arange(pooled, dtype=length.dtype)[None]
    first = xp.clip(xp.floor(p * bin_size[:, None] + start[:, None]), 0, size)
    end = xp.clip(xp.ceil((p + 1) * bin_size[:, None] + start[:, None]), 0, size)
    pixel = xp.arange(size, dtype=length.dtype)[None, None]
    mask = (pixel >= first[:, :, None]) & (pixel < end[:, :, None])
    return mask.astype(length.dtype), end - first


def psroi_pool(x: Tensor, boxes: Tensor, boxes_num: Tensor, output_size, spatial_scale=1.0,
               name=None) -> Tensor:
    """Position-sensitive RoI average pooling (R-FCN), Paddle's ``psroi_pool(x, boxes,
    boxes_num, output_size, spatial_scale=1.0, name=None)``.

    ``x`` [N, C, H, W] with C = C_out * h * w: bin (i, j) of output channel k averages input
    channel (k * h + i) * w + j over its pixels. Box corners are rounded to whole pixels
    (x2, y2 inclusive), times ``spatial_scale``; a box is at least 0.1 pixel; bins take
    floor / ceil pixel bounds, an empty bin gives 0. Returns [num_boxes, C_out, h, w];
    differentiable with respect to ``x``.
    """
    del name
    op = "psroi_pool"
    (ph, pw), scale, ids = _check_common(x, boxes, boxes_num, output_size, spatial_scale, op)
    data = x.data
    xp = backend.array_module(data)
    n, c, h, w = x.shape
    if c % (ph * pw):
        raise ValueError(f"{op}: x has {c} channels, which must be a multiple of "
                         f"output_size h * w = {ph * pw} (C = output channels * h * w)")
    cout = c // (ph * pw)
    box = _c_round(xp, boxes.data.astype(data.dtype, copy=False))
    start_x, start_y = box[:, 0] * scale, box[:, 1] * scale
    width = xp.maximum((box[:, 2] + 1) * scale - start_x, 0.1)
    height = xp.maximum((box[:, 3] + 1) * scale - start_y, 0.1)
    my, count_y = _ps_bins(xp, start_y, height, ph, h)  # [R, PH, H], [R, PH]
    mx, count_x = _ps_bins(xp, start_x, width, pw, w)
    area = count_y[:, :, None] * count_x[:, None, :]  # [R, PH, PW]
    inverse = xp.where(area > 0, 1 / xp.where(area > 0, area, 1), 0)[:, None]
    out = xp.zeros((boxes.shape[0], cout, ph, pw), dtype=data.dtype)
    runs = _image_runs(ids, n)
    for image, first, end in runs:
        planes = data[image].reshape(cout, ph, pw, h, w)
        for part in _checks.chunks(np.arange(first, end), c * h):
            s = slice(int(part[0]), int(part[-1]) + 1)
            rows = xp.einsum("cpqhw,rqw->rcpqh", planes, mx[s])
            out[s] = xp.einsum("rcpqh,rph->rcpq", rows, my[s]) * inverse[s]

    def backward(g):
        grad = xp.zeros_like(data)
        scaled = g * inverse
        for image, first, end in runs:
            for part in _checks.chunks(np.arange(first, end), c * h):
                s = slice(int(part[0]), int(part[-1]) + 1)
                rows = xp.einsum("rcpq,rph->rcpqh", scaled[s], my[s])
                grad[image] += xp.einsum("rcpqh,rqw->cpqhw", rows, mx[s]).reshape(c, h, w)
        return (grad,)

    return apply(out, (x,), backward, op)


# ----------------------------------------------------------------------------- layers

class _RoILayer(Layer):
    """A layer over one of the RoI functions: Paddle's ``(output_size, spatial_scale=1.0)``,
    checked when built."""

    def __init__(self, output_size, spatial_scale=1.0):
        super().__init__()
        _checks.output_size(output_size, type(self).__name__)
        _checks.scale(spatial_scale, "spatial_scale", type(self).__name__)
        self._output_size = output_size
        self._spatial_scale = spatial_scale

    def extra_repr(self) -> str:
        return f"output_size={self._output_size}, spatial_scale={self._spatial_scale}"


class RoIAlign(_RoILayer):
    """``roi_align`` as a layer, Paddle's ``RoIAlign(output_size, spatial_scale=1.0)``;
    ``forward(x, boxes, boxes_num, aligned=True)``."""

    def forward(self, x, boxes, boxes_num, aligned: bool = True):
        return roi_align(x, boxes, boxes_num, self._output_size, self._spatial_scale,
                         aligned=aligned)


class RoIPool(_RoILayer):
    """``roi_pool`` as a layer, Paddle's ``RoIPool(output_size, spatial_scale=1.0)``;
    ``forward(x, boxes, boxes_num)``."""

    def forward(self, x, boxes, boxes_num):
        return roi_pool(x, boxes, boxes_num, self._output_size, self._spatial_scale)


class PSRoIPool(_RoILayer):
    """``psroi_pool`` as a layer, Paddle's ``PSRoIPool(output_size, spatial_scale=1.0)``;
    ``forward(x, boxes, boxes_num)``. Paddle names its settings without the underscore."""

    @property
    def output_size(self):
        return self._output_size

    @property
    def spatial_scale(self):
        return self._spatial_scale

    def forward(self, x, boxes, boxes_num):
        return psroi_pool(x, boxes, boxes_num, self._output_size, self._spatial_scale)


__all__ = ["PSRoIPool", "RoIAlign", "RoIPool", "psroi_pool", "roi_align", "roi_pool"]
