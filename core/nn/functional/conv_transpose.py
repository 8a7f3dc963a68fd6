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
from core.nn.functional._spatial import check_tensor, pair
from core.nn.functional.conv import conv2d
from core.tensor import Tensor, apply


def conv1d(x: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
           dilation=1, groups: int = 1, data_format: str = "NCL", name=None) -> Tensor:
    """Cross-correlate [N, C, L] ``x`` with ``weight`` [out, in/groups, k], Paddle's
    ``conv1d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
    data_format='NCL', name=None)``; padding is an int, [p], [left, right], 'SAME' or 'VALID'."""
    del name
    check_tensor(x, "x", "conv1d", ndim=3)
    if data_format not in ("NCL", "NLC"):
        raise ValueError(f"conv1d: data_format must be 'NCL' or 'NLC', got {data_format!r}")
    if isinstance(padding, str):
        pad = padding
    else:
        pads = list(padding) if isinstance(padding, (list, tuple)) else [padding]
        pad = [0, 0, pads[0], pads[-1]]
    channels_last = data_format == "NLC"
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
    + output_padding. ``padding``: an int, a pair or (top, bottom, left, right);
    ``output_size`` picks output_padding instead (it must lie in [0, stride)).
    """
    del name
    check_tensor(x, "x", "conv2d_transpose")
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"conv2d_transpose: data_format must be 'NCHW' or 'NHWC', got "
                         f"{data_format!r}")
    if data_format == "NHWC":
        x = core.transpose(x, [0, 3, 1, 2])
    strides = pair(stride, "stride", "conv2d_transpose")
    dilations = pair(dilation, "dilation", "conv2d_transpose")
    pads = _pads(padding)
    kernel = weight.shape[2:]
    extra = list(pair(output_padding, "output_padding", "conv2d_transpose", minimum=0))
    if output_size is not None:
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


def _pads(padding):
    if isinstance(padding, str):
        if padding.upper() != "VALID":
            raise ValueError("conv2d_transpose: of the padding strings only 'VALID' is "
                             f"supported, got {padding!r}")
        return (0, 0), (0, 0)
    items = list(padding) if isinstance(padding, (list, tuple)) else [padding]
    if len(items) == 1:
        items = items * 2
    if len(items) == 2:
        return (items[0], items[0]), (items[1], items[1])
    if len(items) == 4:
        return (items[0], items[1]), (items[2], items[3])
    raise ValueError(f"conv2d_transpose: padding must be an int, a pair or four ints, got "
                     f"{padding!r}")


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
    output_padding. ``padding``: an int, [p], [left, right] or 'VALID'; ``output_size`` (an int
    or [length]) picks output_padding instead. Runs as conv2d_transpose over a height of 1.
    """
    del name
    check_tensor(x, "x", "conv1d_transpose", ndim=3)
    check_tensor(weight, "weight", "conv1d_transpose", ndim=3)
    if data_format not in ("NCL", "NLC"):
        raise ValueError(f"conv1d_transpose: data_format must be 'NCL' or 'NLC', got "
                         f"{data_format!r}")
    if isinstance(padding, str):
        pad = padding
    else:
        pads = list(padding) if isinstance(padding, (list, tuple)) else [padding]
        if len(pads) not in (1, 2):
            raise ValueError(f"conv1d_transpose: padding must be an int, [p], [left, right] or "
                             f"'VALID', got {padding!r}")
        pad = [0, 0, pads[0], pads[-1]]
    extra, step = _first(output_padding), max(_first(stride), _first(dilation))
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
