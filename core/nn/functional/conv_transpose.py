"""``conv1d``, ``conv2d_transpose`` and ``conv1d_transpose`` (``paddle.nn.functional`` names), all
built on conv2d.

conv1d is conv2d over a height of 1, and conv1d_transpose conv2d_transpose over a height of 1. A
transposed convolution is the input gradient of a convolution, which conv2d itself computes as a
stride-1 convolution of the stride-spread, padded input with the flipped kernel; the same
construction is used here forward, so all reuse conv2d's im2col + GEMM path (and its backward)
instead of a scatter (col2im) kernel.
"""
from __future__ import annotations

import core
from core import backend
from core.higher_order import linear_grad
from core.nn.functional._spatial import check_tensor, padding_pairs, pair, same_pairs
from core.nn.functional.conv import conv2d
from core.tensor import Tensor, apply


def conv1d(x: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
           dilation=1, groups: int = 1, data_format: str = "NCL", name=None) -> Tensor:
    """Cross-correlate [N, C, L] ``x`` with ``weight`` [out, in/groups, k], Paddle's
    ``conv1d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
    data_format='NCL', name=None)``; padding is an int, [p], [left, right], three [before, after]
    pairs, one per axis of ``x`` (the batch and channel pairs [0, 0]), 'SAME' (without dilation,
    as in Paddle) or 'VALID'."""
    del name
    check_tensor(x, "x", "conv1d", ndim=3)
    if data_format not in ("NCL", "NLC"):
        raise ValueError(f"conv1d: data_format must be 'NCL' or 'NLC', got {data_format!r}")
    channels_last = data_format == "NLC"
    pad = _height_one(padding_pairs(padding, 1, "conv1d", channels_last))
    x4 = core.unsqueeze(x, 1 if channels_last else 2)
    out = conv2d(x4, core.unsqueeze(weight, 2), bias, (1, _first(stride)), pad,
                 (1, _first(dilation)), groups, "NHWC" if channels_last else "NCHW")
    return core.squeeze(out, 1 if channels_last else 2)


def conv2d_transpose(x: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1,
                     padding=0, output_padding=0, dilation=1, groups: int = 1,
                     output_size=None, data_format: str = "NCHW", name=None) -> Tensor:
    """Transposed 2-D convolution with ``weight`` [in, out/groups, kh, kw], Paddle's
    ``conv2d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, dilation=1,
    groups=1, output_size=None, data_format='NCHW', name=None)`` (dilation before groups, unlike
    conv1d_transpose and conv3d_transpose: Paddle's own order).

    Output size per axis: (in - 1) * stride - pad_before - pad_after + dilation * (k - 1) + 1
    + output_padding. ``padding``: an int, a pair, (top, bottom, left, right), four [before,
    after] pairs, one per axis of ``x`` (the batch and channel pairs [0, 0]), 'VALID' or 'SAME'
    (Paddle's rule: the padding conv2d's 'SAME' would take over x's sizes, dilation reset to 1,
    so the output is about x * stride); ``output_padding`` must lie in [0, max(stride,
    dilation)); ``output_size`` picks it instead.
    """
    del name
    check_tensor(x, "x", "conv2d_transpose")
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"conv2d_transpose: data_format must be 'NCHW' or 'NHWC', got "
                         f"{data_format!r}")
    pads = padding_pairs(padding, 2, "conv2d_transpose", data_format == "NHWC")
    if data_format == "NHWC":
        x = core.transpose(x, [0, 3, 1, 2])
    strides = pair(stride, "stride", "conv2d_transpose")
    dilations = pair(dilation, "dilation", "conv2d_transpose")
    kernel = weight.shape[2:]
    if pads == "SAME":  # Paddle's UpdatePaddingAndDilation: SAME over x's sizes, dilation 1
        dilations = (1, 1)
        pads = same_pairs(x.shape[2:], kernel, strides)
    extra = list(pair(output_padding, "output_padding", "conv2d_transpose", minimum=0))
    if output_size is None:
        for i in (0, 1):
            if extra[i] >= max(strides[i], dilations[i]):
                raise ValueError(
                    f"conv2d_transpose: output_padding={output_padding!r} must lie in [0, "
                    f"max(stride, dilation)) = [0, {max(strides[i], dilations[i])}) along the "
                    f"{('height', 'width')[i]}")
    else:
        want = pair(output_size, "output_size", "conv2d_transpose")
        for i in (0, 1):
            natural = ((x.shape[2 + i] - 1) * strides[i] - sum(pads[i])
                       + dilations[i] * (kernel[i] - 1) + 1)
            extra[i] = want[i] - natural
            if not 0 <= extra[i] < max(strides[i], dilations[i]):
                raise ValueError(f"conv2d_transpose: output_size={list(want)} cannot be "
                                 f"reached from input {x.shape} (natural size {natural}).")
    spans = [dilations[i] * (kernel[i] - 1) for i in (0, 1)]
    spread = _spread(x, strides, [(spans[i] - pads[i][0], spans[i] - pads[i][1] + extra[i])
                                  for i in (0, 1)])
    in_c, per_group = weight.shape[:2]
    # [in, out/g, kh, kw] -> [out, in/g, kh, kw], flipped: the kernel of the equivalent conv.
    w = core.reshape(weight, [groups, in_c // groups, per_group, *kernel])
    w = core.reshape(core.transpose(w, [0, 2, 1, 3, 4]), [groups * per_group, in_c // groups,
                                                          *kernel])
    out = conv2d(spread, w[:, :, ::-1, ::-1], bias, 1, 0, dilations, groups)
    return core.transpose(out, [0, 2, 3, 1]) if data_format == "NHWC" else out


def _height_one(pads):
    """A 1-D op's parsed padding for its 2-D twin over a height of 1: 'SAME' stays (over a
    height of 1 with a kernel of 1 it adds nothing), a (left, right) pair becomes [0, 0, left,
    right]."""
    return pads if pads == "SAME" else [0, 0, *pads[0]]


def _spread(x: Tensor, strides, pads) -> Tensor:
    """[N, C, H, W] with ``stride - 1`` zeros between elements and ``pads`` (before, after)
    zeros around each spatial axis; a negative pad crops instead."""
    data = x.data
    xp = backend.array_module(data)
    n, c, h, w = data.shape
    full = [(size - 1) * s + 1 + max(b, 0) + max(a, 0)
            for size, s, (b, a) in zip((h, w), strides, pads)]
    place = tuple(slice(max(b, 0), max(b, 0) + (size - 1) * s + 1, s)
                  for size, s, (b, a) in zip((h, w), strides, pads))
    crop = tuple(slice(max(-b, 0), length - max(-a, 0)) for length, (b, a) in zip(full, pads))
    out = xp.zeros((n, c, *full), dtype=data.dtype)
    out[(slice(None), slice(None)) + place] = data

    def backward(g):
        whole = xp.zeros((n, c, *full), dtype=g.dtype)
        whole[(slice(None), slice(None)) + crop] = g
        return (whole[(slice(None), slice(None)) + place],)

    def grad_fn(_out, g):  # create_graph: linear in x, so its Jacobian is the spread itself
        return (linear_grad(apply, g, backward, lambda h: _spread(h, strides, pads),
                            "spread_grad"),)

    return apply(out[(slice(None), slice(None)) + crop], (x,), backward, "spread", grad_fn)


def conv1d_transpose(x: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
                     output_padding=0, groups: int = 1, dilation=1, output_size=None,
                     data_format: str = "NCL", name=None) -> Tensor:
    """Transposed 1-D convolution of [N, C, L] ``x`` with ``weight`` [in, out/groups, k],
    Paddle's ``conv1d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0,
    groups=1, dilation=1, output_size=None, data_format='NCL', name=None)``.

    Output length: (L - 1) * stride - pad_left - pad_right + dilation * (k - 1) + 1 +
    output_padding. ``padding``: an int, [p], [left, right], three [before, after] pairs (the
    batch and channel pairs [0, 0]), 'VALID' or 'SAME' (as conv2d_transpose's); ``output_size``
    (an int or [length]) picks output_padding instead. Runs as conv2d_transpose over a height
    of 1.
    """
    del name
    check_tensor(x, "x", "conv1d_transpose", ndim=3)
    check_tensor(weight, "weight", "conv1d_transpose", ndim=3)
    if data_format not in ("NCL", "NLC"):
        raise ValueError(f"conv1d_transpose: data_format must be 'NCL' or 'NLC', got "
                         f"{data_format!r}")
    pad = _height_one(padding_pairs(padding, 1, "conv1d_transpose", data_format == "NLC"))
    # 'SAME' convolves without dilation (Paddle), so only the stride bounds output_padding
    extra = _first(output_padding)
    step = max(_first(stride), 1 if pad == "SAME" else _first(dilation))
    if isinstance(extra, bool) or not isinstance(extra, int) or not 0 <= extra < step:
        raise ValueError(f"conv1d_transpose: output_padding={output_padding!r} must be an int in "
                         f"[0, max(stride, dilation)) = [0, {step})")
    size = None if output_size is None else (1, _first(output_size))
    channels_last = data_format == "NLC"
    x4 = core.unsqueeze(x, 1 if channels_last else 2)
    out = conv2d_transpose(x4, core.unsqueeze(weight, 2), bias, (1, _first(stride)), pad,
                           (0, extra), dilation=(1, _first(dilation)), groups=groups,
                           output_size=size, data_format="NHWC" if channels_last else "NCHW")
    return core.squeeze(out, 1 if channels_last else 2)


def _first(value):
    """An int, or the first of a one-element list (conv1d's stride and dilation)."""
    return value[0] if isinstance(value, (list, tuple)) else value
