"""Rearranging ops (``paddle.nn.functional`` names): ``pixel_shuffle``, ``pixel_unshuffle``,
``channel_shuffle``, ``unfold`` (im2col) and ``fold`` (col2im), plus ``unflatten`` for the
``Unflatten`` layer.

The three shuffles only move values: each is a reshape, a transpose and a reshape of existing
differentiable ops, so their backward is the inverse permutation. ``unfold`` and ``fold`` are
each other's adjoint: one fused op each, whose backward is the other one.
"""
from __future__ import annotations

import core
from core import backend
from core.higher_order import captured, linear_grad
from core.nn.functional._spatial import check_tensor, pair
from core.nn.functional.common import interpolate
from core.tensor import Tensor, apply

_FORMATS = ("NCHW", "NHWC")


def _factor(value, label: str, op: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{op}: {label}={value!r} must be a positive integer.")
    return value


def _format(data_format: str, op: str) -> bool:
    """Whether ``data_format`` is channels-last (checked)."""
    if data_format not in _FORMATS:
        raise ValueError(f"{op}: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
    return data_format == "NHWC"


def pixel_shuffle(x: Tensor, upscale_factor: int, data_format: str = "NCHW",
                  name: str | None = None) -> Tensor:
    """[N, C * r * r, H, W] -> [N, C, H * r, W * r] with r = ``upscale_factor``, Paddle's
    ``pixel_shuffle(x, upscale_factor, data_format='NCHW', name=None)``:
    ``out[n, c, h * r + i, w * r + j] = x[n, c * r * r + i * r + j, h, w]`` (the same channel
    order for 'NHWC', whose channels are last)."""
    del name
    op = "pixel_shuffle"
    check_tensor(x, "x", op)
    r = _factor(upscale_factor, "upscale_factor", op)
    last = _format(data_format, op)
    n, h, w, c = x.shape if last else [x.shape[0], *x.shape[2:], x.shape[1]]
    if c % (r * r):
        raise ValueError(f"{op}: the {c} channels of the input of shape {x.shape} are not "
                         f"divisible by upscale_factor ** 2 = {r * r}.")
    if last:
        y = core.reshape(x, [n, h, w, c // (r * r), r, r])
        y = core.transpose(y, [0, 1, 4, 2, 5, 3])  # [N, H, r, W, r, C]
        return core.reshape(y, [n, h * r, w * r, c // (r * r)])
    y = core.reshape(x, [n, c // (r * r), r, r, h, w])
    y = core.transpose(y, [0, 1, 4, 2, 5, 3])  # [N, C, H, r, W, r]
    return core.reshape(y, [n, c // (r * r), h * r, w * r])


def pixel_unshuffle(x: Tensor, downscale_factor: int, data_format: str = "NCHW",
                    name: str | None = None) -> Tensor:
    """[N, C, H * r, W * r] -> [N, C * r * r, H, W] with r = ``downscale_factor``, the inverse
    of ``pixel_shuffle``, Paddle's ``pixel_unshuffle(x, downscale_factor, data_format='NCHW',
    name=None)``."""
    del name
    op = "pixel_unshuffle"
    check_tensor(x, "x", op)
    r = _factor(downscale_factor, "downscale_factor", op)
    last = _format(data_format, op)
    n, h, w, c = x.shape if last else [x.shape[0], *x.shape[2:], x.shape[1]]
    if h % r or w % r:
        raise ValueError(f"{op}: the height {h} and width {w} of the input of shape {x.shape} "
                         f"must be divisible by downscale_factor={r}.")
    if last:
        y = core.reshape(x, [n, h // r, r, w // r, r, c])
        y = core.transpose(y, [0, 1, 3, 5, 2, 4])  # [N, H/r, W/r, C, r, r]
        return core.reshape(y, [n, h // r, w // r, c * r * r])
    y = core.reshape(x, [n, c, h // r, r, w // r, r])
    y = core.transpose(y, [0, 1, 3, 5, 2, 4])  # [N, C, r, r, H/r, W/r]
    return core.reshape(y, [n, c * r * r, h // r, w // r])


def channel_shuffle(x: Tensor, groups: int, data_format: str = "NCHW",
                    name: str | None = None) -> Tensor:
    """Interleave the channels of ``groups`` groups (ShuffleNet), Paddle's ``channel_shuffle(x,
    groups, data_format='NCHW', name=None)``: channels viewed as [groups, C / groups] are
    transposed to [C / groups, groups], so 6 channels in 3 groups come out as 0, 2, 4, 1, 3, 5."""
    del name
    op = "channel_shuffle"
    check_tensor(x, "x", op)
    g = _factor(groups, "groups", op)
    last = _format(data_format, op)
    n, h, w, c = x.shape if last else [x.shape[0], *x.shape[2:], x.shape[1]]
    if c % g:
        raise ValueError(f"{op}: the {c} channels of the input of shape {x.shape} are not "
                         f"divisible by groups={g}.")
    if last:
        y = core.transpose(core.reshape(x, [n, h, w, g, c // g]), [0, 1, 2, 4, 3])
        return core.reshape(y, [n, h, w, c])
    y = core.transpose(core.reshape(x, [n, g, c // g, h, w]), [0, 2, 1, 3, 4])
    return core.reshape(y, [n, c, h, w])


def unflatten_shape(shape, op: str) -> list[int]:
    """``shape`` of ``Unflatten`` as a list of ints: each positive, or one -1."""
    items = shape.tolist() if isinstance(shape, Tensor) else shape
    dims = list(items) if isinstance(items, (list, tuple)) else None
    if not dims or any(isinstance(d, bool) or not isinstance(d, int) or (d < 1 and d != -1)
                       for d in dims) or dims.count(-1) > 1:
        raise ValueError(f"{op}: shape={shape!r} must be a non-empty list of positive ints, "
                         "with at most one -1 (inferred).")
    return dims


# ----- unfold (im2col) and fold (col2im) ------------------------------------------------------
def block_args(op: str, kernel_sizes, strides, paddings, dilations) -> tuple:
    """Paddle's unfold / fold arguments as (kernel, stride, dilation) pairs and (top, left,
    bottom, right) paddings, checked; ``paddings`` is an int, [ph, pw] or four ints."""
    kernel = pair(kernel_sizes, "kernel_sizes", op)
    stride = pair(strides, "strides", op)
    dilation = pair(dilations, "dilations", op)
    pads = [paddings] * 4 if isinstance(paddings, int) and not isinstance(paddings, bool) \
        else list(paddings) if isinstance(paddings, (list, tuple)) else None
    if pads is not None and len(pads) == 2:
        pads = pads * 2
    if pads is None or len(pads) != 4 or any(
            isinstance(p, bool) or not isinstance(p, int) or p < 0 for p in pads):
        raise ValueError(f"{op}: paddings={paddings!r} must be an int >= 0, [pad_h, pad_w] "
                         "or [top, left, bottom, right].")
    return kernel, stride, dilation, tuple(pads)


class _Blocks:
    """The sliding blocks of unfold / fold over an [H, W] plane (``block_args``)."""

    def __init__(self, op: str, size_hw, kernel_sizes, strides, paddings, dilations):
        self.kernel, self.stride, self.dilation, pads = block_args(op, kernel_sizes, strides,
                                                                   paddings, dilations)
        self.before, self.after = (pads[0], pads[1]), (pads[2], pads[3])
        self.size = tuple(size_hw)
        self.padded = tuple(s + b + a for s, b, a in zip(self.size, self.before, self.after))
        self.out = tuple((p - d * (k - 1) - 1) // s + 1 for p, k, s, d in
                         zip(self.padded, self.kernel, self.stride, self.dilation))
        if min(self.out) < 1:
            raise ValueError(f"{op}: kernel_sizes={list(self.kernel)} with dilations="
                             f"{list(self.dilation)} does not fit the padded plane "
                             f"{list(self.padded)} (input {list(self.size)}).")

    def window(self, i: int, j: int) -> tuple:
        """The [.., oh, ow] positions of the padded plane that kernel offset (i, j) reads."""
        return (Ellipsis,) + tuple(
            slice(o * d, o * d + (n - 1) * s + 1, s)
            for o, d, n, s in zip((i, j), self.dilation, self.out, self.stride))

    def inner(self) -> tuple:
        """The input plane inside the padded one."""
        return (Ellipsis,) + tuple(slice(b, b + n) for b, n in zip(self.before, self.size))

    def im2col(self, data):
        """[N, C, H, W] -> [N, C * kh * kw, oh * ow], channel-major, then kernel row, column."""
        xp = backend.array_module(data)
        n, c = data.shape[:2]
        padded = xp.zeros((n, c, *self.padded), dtype=data.dtype)
        padded[self.inner()] = data
        cols = xp.empty((n, c, *self.kernel, *self.out), dtype=data.dtype)
        for i in range(self.kernel[0]):
            for j in range(self.kernel[1]):
                cols[:, :, i, j] = padded[self.window(i, j)]
        return cols.reshape(n, c * self.kernel[0] * self.kernel[1], -1)

    def col2im(self, cols):
        """The adjoint of ``im2col``: [N, C * kh * kw, oh * ow] -> [N, C, H, W], each entry
        added into the position its block read (overlapping blocks sum)."""
        xp = backend.array_module(cols)
        n = cols.shape[0]
        c = cols.shape[1] // (self.kernel[0] * self.kernel[1])
        blocks = cols.reshape(n, c, *self.kernel, *self.out)
        padded = xp.zeros((n, c, *self.padded), dtype=cols.dtype)
        for i in range(self.kernel[0]):
            for j in range(self.kernel[1]):
                padded[self.window(i, j)] += blocks[:, :, i, j]
        return xp.ascontiguousarray(padded[self.inner()])


def unfold(x: Tensor, kernel_sizes, strides=1, paddings=0, dilations=1,
           name: str | None = None) -> Tensor:
    """im2col, Paddle's ``unfold(x, kernel_sizes, strides=1, paddings=0, dilations=1,
    name=None)``: [N, C, H, W] -> [N, C * kh * kw, L], one column per sliding block, L = oh * ow
    with oh = (H + top + bottom - (dilation * (kh - 1) + 1)) // stride + 1 (and ow alike).
    ``paddings`` is an int, [pad_h, pad_w] or [top, left, bottom, right] (Paddle's order, not
    conv2d's). Row ``c * kh * kw + i * kw + j`` of a column holds channel c at kernel offset
    (i, j). The backward is ``fold``."""
    del name
    check_tensor(x, "x", "unfold")
    blocks = _Blocks("unfold", x.shape[2:], kernel_sizes, strides, paddings, dilations)
    return _blocks_op(x, blocks, True)


def fold(x: Tensor, output_sizes, kernel_sizes, strides=1, paddings=0, dilations=1,
         name: str | None = None) -> Tensor:
    """col2im, Paddle's ``fold(x, output_sizes, kernel_sizes, strides=1, paddings=0,
    dilations=1, name=None)``: [N, C * kh * kw, L] -> [N, C, H, W] with [H, W] =
    ``output_sizes``, every block's values added where ``unfold`` read them (overlaps sum).
    L must be the number of blocks that ``unfold`` of an [H, W] plane makes. The backward is
    ``unfold``."""
    del name
    check_tensor(x, "x", "fold", ndim=3)
    size = pair(output_sizes, "output_sizes", "fold")
    blocks = _Blocks("fold", size, kernel_sizes, strides, paddings, dilations)
    per_block = blocks.kernel[0] * blocks.kernel[1]
    count = blocks.out[0] * blocks.out[1]
    if x.shape[1] % per_block or x.shape[2] != count:
        raise ValueError(f"fold: input of shape {x.shape} does not fit: its channels must be "
                         f"divisible by kh * kw = {per_block} and its length must be the "
                         f"{count} blocks ({blocks.out[0]} x {blocks.out[1]}) of output_sizes="
                         f"{list(size)}.")
    return _blocks_op(x, blocks, False)


def _blocks_op(x: Tensor, blocks: _Blocks, unfolding: bool) -> Tensor:
    """unfold (im2col) or fold (col2im) of ``x`` over ``blocks``: each is the other's adjoint,
    so under create_graph the gradient of either is an op whose own gradient is the op again."""
    if unfolding:
        return apply(blocks.im2col(x.data), (x,), lambda g: (blocks.col2im(g),), "unfold",
                     _unfold_grad)
    return apply(blocks.col2im(x.data), (x,), lambda g: (blocks.im2col(g),), "fold", _fold_grad)


def _unfold_grad(out, g):  # create_graph: linear, so its Jacobian is unfold itself
    (blocks,) = captured(out, "blocks")
    return (linear_grad(apply, g, out._backward, lambda h: _blocks_op(h, blocks, True),
                        "unfold_grad"),)


def _fold_grad(out, g):  # create_graph: linear, so its Jacobian is fold itself
    (blocks,) = captured(out, "blocks")
    return (linear_grad(apply, g, out._backward, lambda h: _blocks_op(h, blocks, False),
                        "fold_grad"),)


def upsample(x: Tensor, size=None, scale_factor=None, mode: str = "nearest",
             align_corners: bool = False, align_mode: int = 0, data_format: str | None = None,
             name: str | None = None) -> Tensor:
    """Paddle's ``upsample(x, size=None, scale_factor=None, mode='nearest', align_corners=False,
    align_mode=0, data_format=None, name=None)``, ``interpolate`` without
    recompute_scale_factor (the same arguments and result): resize 4-D images, nearest or
    bilinear; ``data_format=None`` is 'NCHW'."""
    del name
    return interpolate(x, size, scale_factor, mode, align_corners, align_mode, data_format)


def temporal_shift(x: Tensor, seg_num: int, shift_ratio: float = 0.25, name: str | None = None,
                   data_format: str = "NCHW") -> Tensor:
    """The Temporal Shift Module's shift, Paddle's ``temporal_shift(x, seg_num,
    shift_ratio=0.25, name=None, data_format='NCHW')``. ``x`` is [N * T, C, H, W] (or NHWC)
    with T = ``seg_num`` frames per clip; with ``c1 = int(C * shift_ratio)`` and ``c2 = int(C
    * 2 * shift_ratio)``, per clip and frame t::

        out[t, :c1]   = x[t - 1, :c1]     (0 at t = 0)
        out[t, c1:c2] = x[t + 1, c1:c2]   (0 at t = T - 1)
        out[t, c2:]   = x[t, c2:]

    Paddle's steps: pad T with one zero frame on each side, then take the slices [:T], [2:],
    [1:T+1] of the three channel groups. ``shift_ratio`` is in [0, 0.5) (Paddle refuses 0.5,
    which would leave no channel unshifted). Values only move, so
    the backward is the opposite shift.
    """
    del name
    op = "temporal_shift"
    check_tensor(x, "x", op)
    channels_last = _format(data_format, op)
    seg_num = _factor(seg_num, "seg_num", op)
    if isinstance(shift_ratio, bool) or not isinstance(shift_ratio, (int, float)) \
            or not 0.0 <= shift_ratio < 0.5:
        raise ValueError(f"{op}: shift_ratio={shift_ratio!r} must be a number in [0, 0.5).")
    frames = x.shape[0]
    if frames % seg_num:
        raise ValueError(f"{op}: the batch axis of x ({frames}) must be a multiple of "
                         f"seg_num={seg_num} (N clips of T = seg_num frames each).")
    channels = x.shape[3 if channels_last else 1]
    c1, c2 = int(channels * shift_ratio), int(channels * 2 * shift_ratio)
    data = x.data
    xp = backend.array_module(data)
    clips = data.reshape(frames // seg_num, seg_num, *data.shape[1:])  # [N, T, ...]
    prefix = (slice(None),) * (4 if channels_last else 2)  # the axes before the channels'
    # (group of channels, the frame each frame reads: -1 the one before, +1 the one after)
    groups = [(slice(0, c1), -1), (slice(c1, c2), 1)]

    def shift(a, direction: int):
        """Each group moved along T (axis 1); ``direction`` -1 undoes the forward's shift."""
        out = a.copy()
        for channels_of, reads in groups:
            index = prefix + (channels_of,)
            src, moved = a[index], xp.zeros_like(a[index])
            if reads * direction < 0:  # frame t takes frame t - 1
                moved[:, 1:] = src[:, :-1]
            else:  # frame t takes frame t + 1
                moved[:, :-1] = src[:, 1:]
            out[index] = moved
        return out

    out = shift(clips, 1)

    def backward(g):
        return (shift(g.reshape(clips.shape), -1).reshape(data.shape),)

    return apply(out.reshape(data.shape), (x,), backward, op)
