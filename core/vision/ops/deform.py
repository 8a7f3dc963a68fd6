"""Deformable convolution, Paddle's ``paddle.vision.ops.deform_conv2d`` and ``DeformConv2D``:
v1 (Dai et al. 2017, learned offsets) without a mask, v2 (Zhu et al. 2018, offsets and a
modulation mask) with one.

Each kernel tap (i, j) of output pixel (ho, wo) reads the input at
(ho * stride - pad + i * dilation + dy, wo * stride - pad + j * dilation + dx) by bilinear
interpolation, zero outside the map (Paddle's DmcnIm2colBilinear); the sampled columns,
times the mask, meet the weights in one grouped matrix product, as an im2col convolution.
The backward pass scatters the columns' gradient into the input and differentiates the
bilinear weights for the offsets, as grid_sample does.
"""
from __future__ import annotations

import math

from core import backend
from core.nn import initializer
from core.nn.functional._spatial import pair
from core.nn.layer import Layer
from core.tensor import Tensor, apply
from core.vision.ops._checks import tensor


def _count(value, name: str, op: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{op}: {name}={value!r} must be a positive int")
    return value


def _geometry(x, offset, weight, mask, stride, padding, dilation, deformable_groups, groups):
    """(stride, padding, dilation, out_h, out_w) after checking every shape."""
    op = "deform_conv2d"
    tensor(x, "x", op, ndim=4)
    tensor(offset, "offset", op, ndim=4)
    tensor(weight, "weight", op, ndim=4)
    dg = _count(deformable_groups, "deformable_groups", op)
    g = _count(groups, "groups", op)
    stride, dilation = pair(stride, "stride", op), pair(dilation, "dilation", op)
    padding = pair(padding, "padding", op, minimum=0)
    n, c, h, w = x.shape
    m, cg, kh, kw = weight.shape
    if c % g or m % g or cg * g != c:
        raise ValueError(f"{op}: weight {weight.shape} must be [out, C / groups, kh, kw] = "
                         f"[out, {c // g if c % g == 0 else '?'}, kh, kw] for x with C = {c} "
                         f"and groups={g}, out divisible by groups")
    if c % dg:
        raise ValueError(f"{op}: x's {c} channels must be divisible by "
                         f"deformable_groups={dg}")
    out_h = (h + 2 * padding[0] - (dilation[0] * (kh - 1) + 1)) // stride[0] + 1
    out_w = (w + 2 * padding[1] - (dilation[1] * (kw - 1) + 1)) // stride[1] + 1
    if out_h < 1 or out_w < 1:
        raise ValueError(f"{op}: the {kh}x{kw} kernel (dilation {dilation}) does not fit x "
                         f"{x.shape} with padding {padding}")
    want = [n, 2 * dg * kh * kw, out_h, out_w]
    if offset.shape != want:
        raise ValueError(f"{op}: offset must be [N, 2 * deformable_groups * kh * kw, out_h, "
                         f"out_w] = {want}, got {offset.shape}")
    if mask is not None:
        tensor(mask, "mask", op, ndim=4)
        want = [n, dg * kh * kw, out_h, out_w]
        if mask.shape != want:
            raise ValueError(f"{op}: mask must be [N, deformable_groups * kh * kw, out_h, "
                             f"out_w] = {want}, got {mask.shape}")
    return stride, padding, dilation, out_h, out_w


def _corners(xp, py, px, h: int, w: int):
    """(flat pixel index, in-map mask, weight, d weight / d py, d weight / d px) of the four
    bilinear neighbours of points (py, px); neighbours off the map read zero."""
    y0, x0 = xp.floor(py), xp.floor(px)
    fy, fx = py - y0, px - x0
    out = []
    for dy in (0, 1):
        wy = fy if dy else 1 - fy
        for dx in (0, 1):
            wx = fx if dx else 1 - fx
            yi, xi = y0 + dy, x0 + dx
            valid = (yi >= 0) & (yi <= h - 1) & (xi >= 0) & (xi <= w - 1)
            index = xp.clip(yi, 0, h - 1).astype(xp.int64) * w + xp.clip(xi, 0, w - 1).astype(
                xp.int64)
            out.append((index, valid, wx * wy, wx if dy else -wx, wy if dx else -wy))
    return out


def deform_conv2d(x: Tensor, offset: Tensor, weight: Tensor, bias: Tensor | None = None,
                  stride=1, padding=0, dilation=1, deformable_groups: int = 1, groups: int = 1,
                  mask: Tensor | None = None, name=None) -> Tensor:
    """Deformable 2-D convolution, Paddle's ``deform_conv2d(x, offset, weight, bias=None,
    stride=1, padding=0, dilation=1, deformable_groups=1, groups=1, mask=None, name=None)``.

    ``x`` [N, C, H, W]; ``weight`` [M, C / groups, kh, kw]; ``offset``
    [N, 2 * deformable_groups * kh * kw, H_out, W_out] holds (dy, dx) for each deformable
    group and kernel tap (row-major), in that order; ``mask`` (v2) [N, deformable_groups *
    kh * kw, H_out, W_out] scales each sampled value (None: v1, all ones). ``stride``,
    ``padding`` and ``dilation`` are ints or (h, w) pairs; H_out = (H + 2 * pad - (dilation *
    (kh - 1) + 1)) // stride + 1. Returns [N, M, H_out, W_out]; differentiable with respect
    to x, offset, mask, weight and bias.
    """
    del name
    op = "deform_conv2d"
    (sh, sw), (pad_h, pad_w), (dh, dw), out_h, out_w = _geometry(
        x, offset, weight, mask, stride, padding, dilation, deformable_groups, groups)
    if bias is not None:
        tensor(bias, "bias", op, ndim=1)
        if bias.shape[0] != weight.shape[0]:
            raise ValueError(f"{op}: bias must be [{weight.shape[0]}] (one per output "
                             f"channel), got {bias.shape}")
    data = x.data
    xp = backend.array_module(data)
    dtype = data.dtype
    n, c, h, w = x.shape
    m, _, kh, kw = weight.shape
    dg, g = deformable_groups, groups
    cd, taps, pixels = c // dg, kh * kw, out_h * out_w
    off = offset.data.astype(dtype, copy=False).reshape(n * dg, taps, 2, pixels)
    base_y = (xp.arange(kh, dtype=dtype) * dh)[:, None, None, None] + \
        (xp.arange(out_h, dtype=dtype) * sh - pad_h)[None, None, :, None]  # [kh, 1, Ho, 1]
    base_x = (xp.arange(kw, dtype=dtype) * dw)[None, :, None, None] + \
        (xp.arange(out_w, dtype=dtype) * sw - pad_w)[None, None, None, :]  # [1, kw, 1, Wo]
    py = xp.broadcast_to(base_y, (kh, kw, out_h, out_w)).reshape(taps, pixels) + off[:, :, 0]
    px = xp.broadcast_to(base_x, (kh, kw, out_h, out_w)).reshape(taps, pixels) + off[:, :, 1]
    py, px = py.reshape(n * dg, -1), px.reshape(n * dg, -1)  # [N * dg, taps * pixels]
    # Channels last, one row per (image, deformable group, pixel): a gather reads a group's
    # channels at once.
    rows = data.reshape(n * dg, cd, h * w).transpose(0, 2, 1).reshape(-1, cd)
    shift = (xp.arange(n * dg) * (h * w))[:, None]
    corners = [(index + shift, valid, weight_, d_y, d_x)
               for index, valid, weight_, d_y, d_x in _corners(xp, py, px, h, w)]
    values = [rows[index] * valid[..., None] for index, valid, _, _, _ in corners]
    sampled = sum(v * c_[2][..., None] for v, c_ in zip(values, corners))  # [N*dg, T*P, cd]
    scale = None if mask is None else mask.data.astype(dtype, copy=False).reshape(n * dg, -1)
    cols = sampled if scale is None else sampled * scale[..., None]

    def grouped(a):
        """[N * dg, taps * pixels, cd] -> [N, groups, (C / groups) * taps, pixels]."""
        a = a.reshape(n, dg, taps, pixels, cd).transpose(0, 1, 4, 2, 3)  # [N, dg, cd, T, P]
        return a.reshape(n, g, (c // g) * taps, pixels)

    def ungrouped(a):
        a = a.reshape(n, dg, cd, taps, pixels).transpose(0, 1, 3, 4, 2)
        return a.reshape(n * dg, taps * pixels, cd)

    matrix = weight.data.astype(dtype, copy=False).reshape(g, m // g, -1)  # [g, M/g, C/g*T]
    columns = grouped(cols)
    out = (matrix[None] @ columns).reshape(n, m, out_h, out_w)
    if bias is not None:
        out = out + bias.data.astype(dtype, copy=False)[None, :, None, None]
    parents = (x, offset, weight) + ((mask,) if mask is not None else ()) + \
        ((bias,) if bias is not None else ())

    def backward(grad):
        gout = grad.reshape(n, g, m // g, pixels)
        g_weight = (gout @ columns.transpose(0, 1, 3, 2)).sum(axis=0).reshape(weight.shape)
        g_cols = ungrouped(matrix.transpose(0, 2, 1)[None] @ gout)  # [N*dg, T*P, cd]
        g_mask = None if mask is None else (g_cols * sampled).sum(axis=-1).reshape(mask.shape)
        g_sampled = g_cols if scale is None else g_cols * scale[..., None]
        g_x = g_off = None
        if not x.stop_gradient:
            acc = xp.zeros_like(rows)
            for index, valid, weight_, _, _ in corners:  # off-map neighbours get nothing
                part = g_sampled * (weight_ * valid)[..., None]
                backend.add_at(acc, index.reshape(-1), part.reshape(-1, cd))  # repeats add up
            g_x = acc.reshape(n * dg, h * w, cd).transpose(0, 2, 1).reshape(data.shape)
        if not offset.stop_gradient:
            d_y = sum((g_sampled * v).sum(axis=-1) * c_[3] for v, c_ in zip(values, corners))
            d_x = sum((g_sampled * v).sum(axis=-1) * c_[4] for v, c_ in zip(values, corners))
            g_off = xp.stack([d_y.reshape(n * dg, taps, pixels),
                              d_x.reshape(n * dg, taps, pixels)], axis=2).reshape(offset.shape)
        grads = [g_x, g_off, g_weight]
        if mask is not None:
            grads.append(g_mask)
        if bias is not None:
            grads.append(grad.sum(axis=(0, 2, 3)))
        return tuple(grads)

    return apply(out, parents, backward, op)


class DeformConv2D(Layer):
    """Deformable convolution layer, Paddle's ``DeformConv2D(in_channels, out_channels,
    kernel_size, stride=1, padding=0, dilation=1, deformable_groups=1, groups=1,
    weight_attr=None, bias_attr=None)``; ``forward(x, offset, mask=None)`` (mask None: v1).

    ``weight`` [out, in / groups, kh, kw] starts as Normal(0, sqrt(2 / (kh * kw * in))), as
    Paddle's; ``bias`` [out] zeros (none with ``bias_attr=False``).
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 dilation=1, deformable_groups: int = 1, groups: int = 1, weight_attr=None,
                 bias_attr=None):
        super().__init__()
        owner = "DeformConv2D"
        for label, value in (("in_channels", in_channels), ("out_channels", out_channels)):
            _count(value, label, owner)
        _count(deformable_groups, "deformable_groups", owner)
        _count(groups, "groups", owner)
        if weight_attr is False:
            raise ValueError(f"{owner}: weight_attr=False is not allowed: a convolution needs "
                             "its weight")
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"{owner}: in_channels={in_channels} and out_channels="
                             f"{out_channels} must both be divisible by groups={groups}")
        self._in_channels, self._out_channels = in_channels, out_channels
        self._kernel_size = pair(kernel_size, "kernel_size", owner)
        self._stride = pair(stride, "stride", owner)
        self._padding = pair(padding, "padding", owner, minimum=0)
        self._dilation = pair(dilation, "dilation", owner)
        self._deformable_groups, self._groups = deformable_groups, groups
        std = math.sqrt(2.0 / (math.prod(self._kernel_size) * in_channels))
        self.weight = self.create_parameter(
            [out_channels, in_channels // groups, *self._kernel_size], attr=weight_attr,
            default_initializer=initializer.Normal(0.0, std))
        self.bias = None if bias_attr is False else \
            self.create_parameter([out_channels], attr=bias_attr, is_bias=True)

    def forward(self, x, offset, mask=None):
        return deform_conv2d(x, offset, self.weight, self.bias, self._stride, self._padding,
                             self._dilation, self._deformable_groups, self._groups, mask)

    def extra_repr(self) -> str:
        return (f"{self._in_channels}, {self._out_channels}, kernel_size={self._kernel_size}, "
                f"stride={self._stride}, padding={self._padding}, dilation={self._dilation}, "
                f"deformable_groups={self._deformable_groups}, groups={self._groups}")
