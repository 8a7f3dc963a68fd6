"""Volumetric (3-D, NCDHW) convolution and pooling, ``paddle.nn.functional`` names: ``conv3d``,
``conv3d_transpose``, ``max_pool3d``, ``avg_pool3d``, ``adaptive_avg_pool3d`` and
``adaptive_max_pool3d``.

These run on a path of their own, not the tuned 2-D one (conv.py, pooling.py): an im2col over the
channels-last, padded input, built with one strided copy per kernel offset, then one GEMM per
channel group. Its adjoint (col2im) adds the columns back with one strided add per offset. That is
memory-heavy (the column matrix holds kd*kh*kw copies of the input) but short, runs unchanged on
cupy, and gives the three gradients of a convolution from two GEMMs and one fold:

* forward   ``out = cols @ W``              (cols: [N*Do*Ho*Wo, kd*kh*kw*C/groups])
* weight    ``dW = cols^T @ g``
* input     ``dx = fold(g @ W^T)``

A transposed convolution is a convolution's input gradient, so ``conv3d_transpose`` runs the same
pieces in the other order (forward = fold, input gradient = the convolution's forward).
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from core import autocast, backend
from core.higher_order import captured, linear_grad, needs
from core.nn.functional import _spatial
from core.nn.functional._spatial import Window, _is_int, _same, check_fits, check_tensor
from core.nn.functional.pooling import _ceil, check_mask_format
from core.tensor import Tensor, apply

_FORMATS = ("NCDHW", "NDHWC")
_AXES = ("depth", "height", "width")


# ----- arguments -------------------------------------------------------------------------------
def triple(value, name: str, op: str, minimum: int = 1) -> tuple[int, int, int]:
    """An int or three ints as (depth, height, width), each at least ``minimum``."""
    items = list(value) if isinstance(value, (list, tuple)) else [value] * 3
    if len(items) != 3 or not all(_is_int(v) and int(v) >= minimum for v in items):
        raise ValueError(f"{op}: '{name}' must be an int or three ints >= {minimum} (depth, "
                         f"height, width), got {value!r}")
    return int(items[0]), int(items[1]), int(items[2])


def _check_format(data_format: str, op: str) -> bool:
    """True for channels-first ('NCDHW')."""
    if data_format not in _FORMATS:
        raise ValueError(f"{op}: data_format must be 'NCDHW' or 'NDHWC', got {data_format!r}")
    return data_format == "NCDHW"


def padding_pairs(padding, sizes, kernel, stride, dilation, op: str, channels_first: bool = True):
    """``padding`` as three (before, after) pairs, Paddle's spellings: 'SAME' / 'VALID', an int,
    [pad_d, pad_h, pad_w], six ints [front, back, top, bottom, left, right], or five pairs
    including the batch and channel axes (which must be [0, 0]); see ``_spatial.padding_pairs``.
    'SAME' pads for output ceil(size / stride) with the given ``dilation`` (the sparse conv3d's
    rule; dense convolutions reset the dilation to 1 first, as Paddle)."""
    pads = _spatial.padding_pairs(padding, 3, op, not channels_first)
    if pads != "SAME":
        return pads
    return tuple(_same(sizes[i], kernel[i], stride[i], dilation[i]) for i in range(3))


def windows3d(sizes, kernel, stride, padding, dilation, op: str, channels_first: bool = True):
    """The (depth, height, width) windows of a 3-D op; raises when the kernel does not fit.
    'SAME' resets the dilation to 1, as Paddle's kernels do."""
    kernel = triple(kernel, "kernel_size", op)
    stride = triple(stride, "stride", op)
    dilation = (1, 1, 1) if _spatial.is_same(padding) else triple(dilation, "dilation", op)
    pads = padding_pairs(padding, sizes, kernel, stride, dilation, op, channels_first)
    axes = tuple(Window(sizes[i], kernel[i], stride[i], dilation[i], *pads[i]) for i in range(3))
    return check_fits(axes, _AXES, op)


# ----- im2col / col2im over any number of spatial axes -----------------------------------------
@dataclass(frozen=True)
class _Grid:
    """Where the windows of one op lie in a padded, channels-last array: per axis the kernel,
    stride and dilation, and the number of windows (explicit, since a transposed convolution's
    count is its input size, not a function of the padded length)."""

    kernel: tuple
    stride: tuple
    dilation: tuple
    outs: tuple

    @classmethod
    def of(cls, axes, outs=None) -> _Grid:
        return cls(tuple(a.kernel for a in axes), tuple(a.stride for a in axes),
                   tuple(a.dilation for a in axes),
                   tuple(a.out for a in axes) if outs is None else tuple(outs))

    @property
    def volume(self) -> int:
        return math.prod(self.kernel)

    def _offsets(self):
        """Each kernel offset with the strided slices its windows read, in row-major order."""
        for offset in itertools.product(*(range(k) for k in self.kernel)):
            yield offset, tuple(slice(o * d, o * d + (n - 1) * s + 1, s) for o, d, s, n in
                                zip(offset, self.dilation, self.stride, self.outs))

    def unfold(self, src):
        """[N, *outs, *kernel, C]: every window of ``src`` [N, *padded, C], one copy per
        kernel offset (each a whole-array strided copy, not a per-window loop)."""
        xp = backend.array_module(src)
        n, c = src.shape[0], src.shape[-1]
        cols = xp.empty((n, *self.outs, *self.kernel, c), dtype=src.dtype)
        lead = (slice(None),) * (1 + len(self.outs))
        for offset, where in self._offsets():
            cols[lead + offset] = src[(slice(None),) + where]
        return cols

    def fold(self, cols, padded_shape):
        """col2im, the adjoint of ``unfold``: each column entry added back where it was read.
        Windows of one offset never overlap, so one strided ``+=`` per offset is exact."""
        xp = backend.array_module(cols)
        out = xp.zeros(padded_shape, dtype=cols.dtype)
        lead = (slice(None),) * (1 + len(self.outs))
        for offset, where in self._offsets():
            out[(slice(None),) + where] += cols[lead + offset]
        return out


def _pad_channels_last(xp, data, pads, fill=0.0):
    """``data`` [N, *spatial, C] inside a ``fill``-bordered array (no copy without padding)."""
    if not any(b or a for b, a in pads):
        return data
    shape = (data.shape[0], *[s + b + a for s, (b, a) in zip(data.shape[1:-1], pads)],
             data.shape[-1])
    out = xp.full(shape, fill, dtype=data.dtype)
    out[_interior(data.shape, pads)] = data
    return out


def _interior(shape, pads) -> tuple:
    """The slices of a padded [N, *spatial, C] array that hold the unpadded data."""
    return (slice(None),) + tuple(slice(b, b + s) for s, (b, _) in zip(shape[1:-1], pads)) \
        + (slice(None),)


class _GroupedGemm:
    """The GEMMs of a grouped convolution with weight [O, C/groups, *kernel] over columns
    [N, *outs, *kernel, C] (see the module docstring)."""

    def __init__(self, xp, grid: _Grid, w, groups: int):
        self.xp, self.grid, self.groups = xp, grid, groups
        out_c, self.per_group = w.shape[:2]
        self.og = out_c // groups
        k = grid.volume * self.per_group
        spatial = tuple(range(2, 2 + len(grid.kernel)))
        # [og, cg, *kernel] -> [*kernel, cg, og] -> [K*cg, og]: rows match a column's order.
        self.wmats = [w[g * self.og:(g + 1) * self.og].transpose(*spatial, 1, 0).reshape(k, -1)
                      for g in range(groups)]

    def _group_rows(self, cols, g: int):
        """Group ``g``'s columns as a [N*P, K*cg] matrix."""
        cg = self.per_group
        return cols[..., g * cg:(g + 1) * cg].reshape(-1, self.grid.volume * cg)

    def forward(self, cols):
        """[N*P, O]: the convolution of the windows in ``cols``."""
        rows = cols.shape[0] * math.prod(self.grid.outs)
        out = self.xp.empty((rows, self.og * self.groups), dtype=cols.dtype)
        for g, wmat in enumerate(self.wmats):
            out[:, g * self.og:(g + 1) * self.og] = self._group_rows(cols, g) @ wmat
        return out

    def column_grad(self, g2d, cols_shape):
        """The gradient of the columns, [N, *outs, *kernel, C], from the output's [N*P, O]."""
        dcols = self.xp.empty(cols_shape, dtype=g2d.dtype)
        cg, lead = self.per_group, cols_shape[:-1]
        for g, wmat in enumerate(self.wmats):
            part = g2d[:, g * self.og:(g + 1) * self.og] @ wmat.T
            dcols[..., g * cg:(g + 1) * cg] = part.reshape(*lead, cg)
        return dcols

    def weight_grad(self, cols, g2d):
        """dW [O, C/groups, *kernel] = cols^T @ g, group by group."""
        xp, grid = self.xp, self.grid
        parts = []
        ndim = len(grid.kernel)
        for g in range(self.groups):
            dw = self._group_rows(cols, g).T @ g2d[:, g * self.og:(g + 1) * self.og]
            dw = dw.reshape(*grid.kernel, self.per_group, self.og)
            parts.append(dw.transpose(ndim + 1, ndim, *range(ndim)))
        return parts[0] if len(parts) == 1 else xp.concatenate(parts, axis=0)


def _check_conv(op, x, weight, bias, groups, channels: int, w_in: int, w_out: int, per: str):
    """x and weight agree with ``groups``; ``bias`` is [out]."""
    check_tensor(x, "x", op, ndim=5)
    check_tensor(weight, "weight", op, ndim=5)
    if x.dtype != weight.dtype:
        raise TypeError(f"{op}: x ({x.dtype}) and weight ({weight.dtype}) must have the same "
                        "dtype")
    if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1:
        raise ValueError(f"{op}: groups must be an int >= 1, got {groups!r}")
    if weight.shape[0] % groups:
        raise ValueError(f"{op}: the weight's first axis ({weight.shape[0]}) is not divisible "
                         f"by groups={groups}")
    if channels != w_in:
        raise ValueError(f"{op}: the input has {channels} channels but the weight "
                         f"{list(weight.shape)} with groups={groups} expects {w_in} (weight is "
                         f"{per}; check data_format)")
    if bias is not None:
        if not isinstance(bias, Tensor) or tuple(bias.shape) != (w_out,):
            shape = bias.shape if isinstance(bias, Tensor) else type(bias).__name__
            raise ValueError(f"{op}: bias must be a Tensor of shape [{w_out}], got {shape}")
        if bias.dtype != x.dtype:
            raise TypeError(f"{op}: bias dtype {bias.dtype} differs from x's dtype {x.dtype}")


def _to_channels_last(data, channels_first: bool):
    return data.transpose(0, 2, 3, 4, 1) if channels_first else data


def _to_public(data, channels_first: bool):
    return data.transpose(0, 4, 1, 2, 3) if channels_first else data


# ----- convolution -----------------------------------------------------------------------------
def conv3d(x: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
           dilation=1, groups: int = 1, data_format: str = "NCDHW", name=None) -> Tensor:
    """Cross-correlate ``x`` with ``weight`` [out, in/groups, kd, kh, kw], Paddle's
    ``conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
    data_format='NCDHW', name=None)``.

    out[n, o, d, h, w] = bias[o] + sum_{c, i, j, k} x_pad[n, g*C/groups + c, d*sd + i*dd,
    h*sh + j*dh, w*sw + k*dw] * weight[o, c, i, j, k] (g: the group of o). Per axis the output
    size is (in + pad_before + pad_after - dilation * (k - 1) - 1) // stride + 1. ``padding``:
    an int, [pd, ph, pw], [front, back, top, bottom, left, right], five [before, after] pairs
    (batch and channel [0, 0]), 'SAME' (output ceil(in / stride); as in Paddle, it convolves
    without dilation) or 'VALID'.
    """
    del name
    channels_first = _check_format(data_format, "conv3d")
    check_tensor(x, "x", "conv3d", ndim=5)
    check_tensor(weight, "weight", "conv3d", ndim=5)
    if autocast.active:  # inside paddle.amp.auto_cast: white-listed (as conv2d), float16
        x, weight, bias = autocast.cast_inputs("conv3d", x, weight, bias)
    channels = x.shape[1] if channels_first else x.shape[4]
    groups_ok = isinstance(groups, int) and not isinstance(groups, bool) and groups >= 1
    _check_conv("conv3d", x, weight, bias, groups, channels,
                weight.shape[1] * groups if groups_ok else channels, weight.shape[0],
                "[out, in/groups, kd, kh, kw]")
    xh = _to_channels_last(x.data, channels_first)
    xp = backend.array_module(xh)
    axes = windows3d(xh.shape[1:4], weight.shape[2:], stride, padding, dilation, "conv3d",
                     channels_first)
    pads = [(a.before, a.after) for a in axes]
    grid = _Grid.of(axes)
    w = weight.data
    gemm = _GroupedGemm(xp, grid, w, groups)
    src = _pad_channels_last(xp, xh, pads)
    cols = grid.unfold(src)
    out = gemm.forward(cols)
    if bias is not None:
        out += bias.data
    out = out.reshape(xh.shape[0], *grid.outs, -1)
    parents = (x, weight) if bias is None else (x, weight, bias)

    def backward(g):
        g2d = xp.ascontiguousarray(_to_channels_last(g, channels_first)).reshape(-1, w.shape[0])
        dx = dw = db = None
        if not x.stop_gradient:
            dsrc = grid.fold(gemm.column_grad(g2d, cols.shape), src.shape)
            dx = _to_public(dsrc[_interior(xh.shape, pads)], channels_first)
        if not weight.stop_gradient:
            dw = gemm.weight_grad(cols, g2d)
        if bias is not None and not bias.stop_gradient:
            db = g2d.sum(axis=0)
        return (dx, dw) if bias is None else (dx, dw, db)

    def grad_fn(_out, g):  # create_graph: the two adjoints as recorded ops, and the bias's sum
        ops = _Adjoints3D(grid, pads, groups, channels_first, xh.shape, w)
        return _bilinear_grads(ops.input_grad(g, weight) if needs(x) else None,
                               ops.weight_grad(x, g) if needs(weight) else None, bias, g,
                               channels_first)

    return apply(_to_public(out, channels_first), parents, backward, "conv3d", grad_fn)


def _bilinear_grads(gx, gw, bias, g, channels_first: bool) -> tuple:
    """A 3-D convolution's (or transposed one's) tensor-level gradients: the input's and the
    weight's, then the bias's (the output gradient summed over all but the channels)."""
    if bias is None:
        return gx, gw
    return gx, gw, (g.sum(axis=[0, 2, 3, 4] if channels_first else [0, 1, 2, 3])
                    if needs(bias) else None)


class _Adjoints3D:
    """conv3d (without bias) and its two adjoints, each a recorded op whose gradients are the
    other two, as conv2d's ``_Adjoints``: conv(x, w) is bilinear, so d/dx <h, conv(x, w)> =
    input_grad(h, w) and d/dw = weight_grad(x, h), and likewise for the adjoints. A
    conv3d_transpose is this input_grad, so its create_graph path uses the same three.
    ``x_shape`` is the convolution's input shape, channels-last; ``w_like`` the kernel (any
    array of its shape: the GEMMs read it only where the kernel is an argument)."""

    def __init__(self, grid: _Grid, pads, groups: int, channels_first: bool, x_shape, w_like):
        self.grid, self.pads, self.groups = grid, pads, groups
        self.channels_first, self.x_shape, self.w_like = channels_first, tuple(x_shape), w_like

    def _columns(self, xd):
        xh = _to_channels_last(xd, self.channels_first)
        return self.grid.unfold(_pad_channels_last(backend.array_module(xh), xh, self.pads))

    def _rows(self, gd, out_channels: int):
        g = _to_channels_last(gd, self.channels_first)
        return backend.array_module(g).ascontiguousarray(g).reshape(-1, out_channels)

    def _gemm(self, wd):
        return _GroupedGemm(backend.array_module(wd), self.grid, wd, self.groups)

    def _conv(self, xd, wd):
        out = self._gemm(wd).forward(self._columns(xd))
        return _to_public(out.reshape(xd.shape[0], *self.grid.outs, -1), self.channels_first)

    def _input_grad(self, gd, wd):
        n, *sizes, c = self.x_shape
        padded = (n, *[s + b + a for s, (b, a) in zip(sizes, self.pads)], c)
        cols_shape = (n, *self.grid.outs, *self.grid.kernel, c)
        dcols = self._gemm(wd).column_grad(self._rows(gd, wd.shape[0]), cols_shape)
        full = self.grid.fold(dcols, padded)
        return _to_public(full[_interior(self.x_shape, self.pads)], self.channels_first)

    def _weight_grad(self, xd, gd):
        return self._gemm(self.w_like).weight_grad(self._columns(xd),
                                                   self._rows(gd, self.w_like.shape[0]))

    def conv(self, x: Tensor, w: Tensor) -> Tensor:
        return apply(self._conv(x.data, w.data), (x, w),
                     lambda h: (self._input_grad(h, w.data), self._weight_grad(x.data, h)),
                     "conv3d", lambda _out, h: (self.input_grad(h, w), self.weight_grad(x, h)))

    def input_grad(self, g: Tensor, w: Tensor) -> Tensor:
        return apply(self._input_grad(g.data, w.data), (g, w),
                     lambda k: (self._conv(k, w.data), self._weight_grad(k, g.data)),
                     "conv3d_input_grad",
                     lambda _out, k: (self.conv(k, w), self.weight_grad(k, g)))

    def weight_grad(self, x: Tensor, g: Tensor) -> Tensor:
        return apply(self._weight_grad(x.data, g.data), (x, g),
                     lambda k: (self._input_grad(g.data, k), self._conv(x.data, k)),
                     "conv3d_weight_grad",
                     lambda _out, k: (self.input_grad(g, k), self.conv(x, k)))


def conv3d_transpose(x: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1,
                     padding=0, output_padding=0, groups: int = 1, dilation=1, output_size=None,
                     data_format: str = "NCDHW", name=None) -> Tensor:
    """Transposed 3-D convolution with ``weight`` [in, out/groups, kd, kh, kw], Paddle's
    ``conv3d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
    dilation=1, output_size=None, data_format='NCDHW', name=None)``: the input gradient of
    ``conv3d`` with that weight read as [out, in/groups, ...].

    Output size per axis: (in - 1) * stride - pad_before - pad_after + dilation * (k - 1) + 1
    + output_padding. ``padding``: an int, three ints, six ints, five pairs, 'VALID' or 'SAME'
    (Paddle's rule: the padding conv3d's 'SAME' would take over x's sizes, dilation reset to 1,
    so the output is about x * stride); ``output_size`` ([d, h, w] or an int) picks
    output_padding instead, which must lie in [0, max(stride, dilation)).
    """
    del name
    op = "conv3d_transpose"
    channels_first = _check_format(data_format, op)
    check_tensor(x, "x", op, ndim=5)
    check_tensor(weight, "weight", op, ndim=5)
    if autocast.active:  # inside paddle.amp.auto_cast: white-listed (as conv2d), float16
        x, weight, bias = autocast.cast_inputs(op, x, weight, bias)
    channels = x.shape[1] if channels_first else x.shape[4]
    groups_ok = isinstance(groups, int) and not isinstance(groups, bool) and groups >= 1
    _check_conv(op, x, weight, bias, groups, channels, weight.shape[0],
                weight.shape[1] * groups if groups_ok else weight.shape[1],
                "[in, out/groups, kd, kh, kw]")
    xh = _to_channels_last(x.data, channels_first)
    xp = backend.array_module(xh)
    kernel = tuple(weight.shape[2:])
    strides = triple(stride, "stride", op)
    dilations = triple(dilation, "dilation", op)
    pads = _spatial.padding_pairs(padding, 3, op, not channels_first)
    if pads == "SAME":  # Paddle: pads for ceil(x / stride) over x's sizes, dilation reset to 1
        dilations = (1, 1, 1)
        pads = _spatial.same_pairs(xh.shape[1:4], kernel, strides)
    natural = [(xh.shape[1 + i] - 1) * strides[i] - sum(pads[i])
               + dilations[i] * (kernel[i] - 1) + 1 for i in range(3)]
    if output_size is None:
        extra = list(triple(output_padding, "output_padding", op, minimum=0))
    else:
        want = triple(output_size, "output_size", op)
        extra = [want[i] - natural[i] for i in range(3)]
    for i in range(3):
        step = max(strides[i], dilations[i])
        if not 0 <= extra[i] < step:
            given = f"output_size={output_size!r}" if output_size is not None else \
                f"output_padding={output_padding!r}"
            raise ValueError(f"{op}: {given} gives an extra {extra[i]} along the {_AXES[i]}, "
                             f"which must lie in [0, max(stride, dilation)) = [0, {step}) "
                             f"(natural output size {natural[i]})")
    sizes = [natural[i] + extra[i] for i in range(3)]
    if min(sizes) < 1:
        raise ValueError(f"{op}: the padding {padding!r} leaves an empty output {sizes}")
    # The convolution whose input gradient this is: input `sizes` padded by `pads`, one window
    # per element of x. Its padded extent covers every window (after the output padding).
    grid = _Grid(kernel, strides, dilations, tuple(xh.shape[1:4]))
    padded = (xh.shape[0], *[sizes[i] + sum(pads[i]) for i in range(3)],
              weight.shape[1] * groups)
    w = weight.data
    gemm = _GroupedGemm(xp, grid, w, groups)
    x2d = xp.ascontiguousarray(xh).reshape(-1, channels)
    cols_shape = (xh.shape[0], *grid.outs, *kernel, padded[-1])
    full = grid.fold(gemm.column_grad(x2d, cols_shape), padded)
    out = full[_interior((0, *sizes, 0), pads)]
    if bias is not None:
        out = out + bias.data
    parents = (x, weight) if bias is None else (x, weight, bias)

    def backward(g):
        gh = _to_channels_last(g, channels_first)
        dx = dw = db = None
        if not (x.stop_gradient and weight.stop_gradient):
            cols = grid.unfold(_pad_channels_last(xp, gh, pads))
            if not x.stop_gradient:
                dx = _to_public(gemm.forward(cols).reshape(xh.shape), channels_first)
            if not weight.stop_gradient:
                dw = gemm.weight_grad(cols, x2d)
        if bias is not None and not bias.stop_gradient:
            db = gh.reshape(-1, gh.shape[-1]).sum(axis=0)
        return (dx, dw) if bias is None else (dx, dw, db)

    def grad_fn(_out, g):  # create_graph: the input gradient of a conv3d, with its adjoints
        ops = _Adjoints3D(grid, pads, groups, channels_first, (padded[0], *sizes, padded[-1]),
                          w)
        return _bilinear_grads(ops.conv(g, weight) if needs(x) else None,
                               ops.weight_grad(g, x) if needs(weight) else None, bias, g,
                               channels_first)

    return apply(_to_public(out, channels_first), parents, backward, op, grad_fn)


# ----- pooling ---------------------------------------------------------------------------------
class _Pool3D:
    """Arguments and geometry of one 3-D pooling call (padding at most half the kernel, as in
    core's 2-D pools and PyTorch, so that no window is all padding)."""

    def __init__(self, op, x, kernel_size, stride, padding, ceil_mode, data_format):
        self.channels_first = _check_format(data_format, op)
        check_tensor(x, "x", op, ndim=5)
        self.xh = _to_channels_last(x.data, self.channels_first)
        self.xp = backend.array_module(self.xh)
        stride = kernel_size if stride is None else stride
        axes = windows3d(self.xh.shape[1:4], kernel_size, stride, padding, 1, op,
                         self.channels_first)
        for axis in axes:
            if max(axis.before, axis.after) > axis.kernel // 2:
                raise ValueError(f"{op}: padding ({axis.before}, {axis.after}) must be at most "
                                 f"half the kernel size {axis.kernel}, so that no window is "
                                 "all padding")
        if ceil_mode and isinstance(padding, str) and padding.upper() == "VALID":
            raise ValueError(f"{op}: padding='VALID' takes ceil_mode=False, got ceil_mode=True "
                             "(Paddle: 'VALID' means no window reaches past the input)")
        # the padding the caller asked for: ceil_mode's extra padding after it is not part of
        # the inclusive (exclusive=False) divisor, as in Paddle (and core's 2-D pools)
        self.asked_after = tuple(a.after for a in axes)
        self.axes = tuple(_ceil(a) for a in axes) if ceil_mode else axes
        self.pads = [(a.before, a.after) for a in self.axes]
        self.grid = _Grid.of(self.axes)

    def windows(self, fill):
        """(the padded source, its windows flattened: [N, Do, Ho, Wo, kd*kh*kw, C])."""
        src = _pad_channels_last(self.xp, self.xh, self.pads, fill)
        cols = self.grid.unfold(src)
        return src, cols.reshape(*cols.shape[:4], -1, cols.shape[-1])

    def input_grad(self, dcols, src_shape):
        """The input gradient (public layout) from the windows' gradient."""
        full = self.grid.fold(dcols.reshape(*dcols.shape[:4], *self.grid.kernel,
                                            dcols.shape[-1]), src_shape)
        return _to_public(full[_interior(self.xh.shape, self.pads)], self.channels_first)

    def public(self, out):
        return _to_public(out, self.channels_first)


def max_pool3d(x: Tensor, kernel_size, stride=None, padding=0, return_mask: bool = False,
               ceil_mode: bool = False, data_format: str = "NCDHW", name=None):
    """The maximum of each [kd, kh, kw] window, Paddle's ``max_pool3d(x, kernel_size,
    stride=None, padding=0, return_mask=False, ceil_mode=False, data_format='NCDHW',
    name=None)``: out[n, c, d, h, w] = max over (i, j, k) of x_pad[n, c, d*sd + i, h*sh + j,
    w*sw + k], padding being -inf. ``stride`` defaults to ``kernel_size``.

    The gradient goes to the FIRST maximum of each window in row-major (i, j, k) order. With
    ``return_mask`` the result is ``(out, mask)``: mask holds each maximum's int32 index in the
    flattened D * H * W volume of its input channel (Paddle's and PyTorch's convention).
    """
    del name
    check_mask_format("max_pool3d", return_mask, data_format, "NCDHW")
    pool = _Pool3D("max_pool3d", x, kernel_size, stride, padding, ceil_mode, data_format)
    xp = pool.xp
    src, cols = pool.windows(-xp.inf)
    first = cols.argmax(axis=4)  # argmax keeps the first of tied maxima
    out = xp.take_along_axis(cols, first[:, :, :, :, None], 4)[:, :, :, :, 0]

    def backward(g):
        dcols = xp.zeros(cols.shape, dtype=g.dtype)
        xp.put_along_axis(dcols, first[:, :, :, :, None],
                          _to_channels_last(g, pool.channels_first)[:, :, :, :, None], 4)
        return (pool.input_grad(dcols, src.shape),)

    result = apply(pool.public(out), (x,), backward, "max_pool3d", _max_pool3d_grad)
    if not return_mask:
        return result
    return result, Tensor(pool.public(_first_max_index(pool, first).astype("int32")))


def _first_max_index(pool: _Pool3D, first):
    """Each window's first maximum (``first``: its offset in the window) as an index into the
    flattened, unpadded D * H * W volume of its channel; channels-last [N, Do, Ho, Wo, C]."""
    xp, kernel, sizes = pool.xp, pool.grid.kernel, pool.xh.shape[1:4]
    offsets = list(xp.unravel_index(first, kernel))
    flat = 0
    for axis_index, (axis, offset) in enumerate(zip(pool.axes, offsets)):
        shape = [1, 1, 1, 1, 1]
        shape[1 + axis_index] = axis.out
        start = (xp.arange(axis.out) * axis.stride - axis.before).reshape(shape)
        flat = flat * sizes[axis_index] + start + offset
    return flat


def _max_pool3d_grad(out, g):  # create_graph: the gradient routed as the forward routed x
    pool, first = captured(out, "pool", "first")
    n, *sizes, c = pool.xh.shape
    index = _to_public(_first_max_index(pool, first), True)  # [N, C, Do, Ho, Wo]
    flat = index + (pool.xp.arange(n * c, dtype="int64") * math.prod(sizes)).reshape(
        n, c, 1, 1, 1)

    def routed(h):  # the pool's Jacobian: h at each window's first maximum
        h = h if pool.channels_first else h.transpose([0, 4, 1, 2, 3])
        picked = h.reshape([-1])[flat]
        return picked if pool.channels_first else picked.transpose([0, 2, 3, 4, 1])

    return (linear_grad(apply, g, out._backward, routed, "max_pool3d_grad"),)


def avg_pool3d(x: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               exclusive: bool = True, divisor_override=None, data_format: str = "NCDHW",
               name=None) -> Tensor:
    """The mean of each [kd, kh, kw] window, Paddle's ``avg_pool3d(x, kernel_size, stride=None,
    padding=0, ceil_mode=False, exclusive=True, divisor_override=None, data_format='NCDHW',
    name=None)``. ``exclusive`` (Paddle's default, PyTorch's ``count_include_pad=False``)
    divides each window's sum by its number of real (non-padding) elements; otherwise by
    kd * kh * kw (with ``ceil_mode``, a last window's extra padding beyond the asked one does
    not count, as in Paddle); ``divisor_override`` replaces the divisor altogether."""
    del name
    pool = _Pool3D("avg_pool3d", x, kernel_size, stride, padding, ceil_mode, data_format)
    xp = pool.xp
    if divisor_override is not None:
        if isinstance(divisor_override, bool) or not isinstance(divisor_override, (int, float)) \
                or divisor_override <= 0:
            raise ValueError(f"avg_pool3d: divisor_override must be a positive number, got "
                             f"{divisor_override!r}")
        divisor = float(divisor_override)
    elif not exclusive and pool.asked_after == tuple(a.after for a in pool.axes):
        divisor = float(pool.grid.volume)
    else:  # exclusive: the real elements; inclusive with ceil_mode: those and the asked padding
        divisor = 1
        for axis_index, (axis, asked) in enumerate(zip(pool.axes, pool.asked_after)):
            low, high = (0, axis.size) if exclusive else (-axis.before, axis.size + asked)
            start = xp.arange(axis.out) * axis.stride - axis.before
            count = xp.minimum(start + axis.kernel, high) - xp.maximum(start, low)
            shape = [1, 1, 1]
            shape[axis_index] = axis.out
            divisor = divisor * count.reshape(shape)
        divisor = divisor[..., None].astype(pool.xh.dtype)  # [Do, Ho, Wo, 1]
    src, cols = pool.windows(0.0)
    out = cols.sum(axis=4) / divisor

    def backward(g):
        share = (_to_channels_last(g, pool.channels_first) / divisor)[:, :, :, :, None]
        dcols = xp.broadcast_to(share, cols.shape)
        return (pool.input_grad(dcols, src.shape),)

    def grad_fn(_out, g):  # create_graph: linear in x, so its Jacobian is the pool itself
        return (linear_grad(apply, g, backward, lambda h: avg_pool3d(
            h, kernel_size, stride, padding, ceil_mode, exclusive, divisor_override,
            data_format), "avg_pool3d_grad"),)

    return apply(pool.public(out), (x,), backward, "avg_pool3d", grad_fn)


# ----- adaptive pooling ------------------------------------------------------------------------
def _bins(size: int, out: int):
    """Paddle's adaptive bins: [floor(i * size / out), ceil((i + 1) * size / out))."""
    return [(i * size // out, -(-(i + 1) * size // out)) for i in range(out)]


def _output_sizes(output_size, sizes, op: str):
    items = list(output_size) if isinstance(output_size, (list, tuple)) else [output_size] * 3
    if len(items) != 3 or not all(v is None or (_is_int(v) and int(v) >= 1) for v in items):
        raise ValueError(f"{op}: output_size must be an int >= 1 or three of them (None keeps "
                         f"the input's size), got {output_size!r}")
    return [sizes[i] if items[i] is None else int(items[i]) for i in range(3)]


def _adaptive3d(x: Tensor, output_size, op: str, reduce_max: bool, return_mask: bool = False,
                channels_first: bool = True):
    check_tensor(x, "x", op, ndim=5)
    data = x.data if channels_first else x.data.transpose(0, 4, 1, 2, 3)
    xp = backend.array_module(data)
    n, c, *sizes = data.shape
    outs = _output_sizes(output_size, sizes, op)
    bins = [_bins(sizes[i], outs[i]) for i in range(3)]
    out = xp.empty((n, c, *outs), dtype=data.dtype)
    firsts = {}  # cell -> index of the first maximum within its flattened bin
    # One whole-batch reduction per output cell: adaptive output grids are small.
    for cell in itertools.product(*(range(o) for o in outs)):
        where = tuple(slice(*bins[a][cell[a]]) for a in range(3))
        block = data[(slice(None), slice(None)) + where].reshape(n, c, -1)
        if reduce_max:
            first = firsts[cell] = block.argmax(axis=-1)
            out[(slice(None), slice(None)) + cell] = \
                xp.take_along_axis(block, first[..., None], -1)[..., 0]
        else:
            out[(slice(None), slice(None)) + cell] = block.mean(axis=-1)

    def backward(g):
        g = g if channels_first else g.transpose(0, 4, 1, 2, 3)
        dx = xp.zeros(data.shape, dtype=g.dtype)
        for cell in itertools.product(*(range(o) for o in outs)):
            where = (slice(None), slice(None)) + tuple(slice(*bins[a][cell[a]]) for a in range(3))
            grad = g[(slice(None), slice(None)) + cell]
            target = dx[where]
            if reduce_max:
                flat = xp.zeros((n, c, math.prod(target.shape[2:])), dtype=g.dtype)
                xp.put_along_axis(flat, firsts[cell][..., None], grad[..., None], -1)
                target += flat.reshape(target.shape)
            else:
                target += grad[..., None, None, None] / math.prod(target.shape[2:])
        return (dx if channels_first else dx.transpose(0, 2, 3, 4, 1),)

    def grad_fn(_out, g):  # create_graph: the gradient routed as the forward routed x
        if not reduce_max:  # linear in x: the Jacobian is the pool itself
            return (linear_grad(apply, g, backward, lambda h: _adaptive3d(
                h, output_size, op, False, channels_first=channels_first), f"{op}_grad"),)
        flat = _adaptive_mask(firsts, bins, sizes, (n, c, *outs), xp).astype("int64") + (
            xp.arange(n * c, dtype="int64") * math.prod(sizes)).reshape(n, c, 1, 1, 1)
        return (linear_grad(apply, g, backward, lambda hh: hh.reshape([-1])[flat],
                            f"{op}_grad"),)  # adaptive_max_pool3d is channels-first only

    pooled = apply(out if channels_first else out.transpose(0, 2, 3, 4, 1), (x,), backward, op,
                   grad_fn)
    if not return_mask:
        return pooled
    return pooled, Tensor(_adaptive_mask(firsts, bins, sizes, (n, c, *outs), xp))


def _adaptive_mask(firsts: dict, bins, sizes, shape, xp):
    """The int32 [N, C, Do, Ho, Wo] index of each bin's first maximum in its channel's
    flattened D * H * W volume."""
    mask = xp.empty(shape, dtype="int32")
    for cell, first in firsts.items():
        starts = [bins[a][cell[a]][0] for a in range(3)]
        extents = [bins[a][cell[a]][1] - starts[a] for a in range(3)]
        offsets = xp.unravel_index(first, extents)
        index = 0
        for a in range(3):
            index = index * sizes[a] + starts[a] + offsets[a]
        mask[(slice(None), slice(None)) + cell] = index
    return mask


def adaptive_avg_pool3d(x: Tensor, output_size, data_format: str = "NCDHW",
                        name=None) -> Tensor:
    """Average over Paddle's adaptive bins to an ``output_size`` [Do, Ho, Wo] grid, Paddle's
    ``adaptive_avg_pool3d(x, output_size, data_format='NCDHW', name=None)``: cell (i, j, k) is
    the mean of x over [floor(i*D/Do), ceil((i+1)*D/Do)) x (likewise for H, W). An int means the
    same size on every axis; None keeps that axis's input size."""
    del name
    channels_first = _check_format(data_format, "adaptive_avg_pool3d")
    return _adaptive3d(x, output_size, "adaptive_avg_pool3d", False,
                       channels_first=channels_first)


def adaptive_max_pool3d(x: Tensor, output_size, return_mask: bool = False, name=None):
    """Maximum over Paddle's adaptive bins to an ``output_size`` [Do, Ho, Wo] grid, Paddle's
    ``adaptive_max_pool3d(x, output_size, return_mask=False, name=None)`` (NCDHW); the gradient
    goes to each bin's first maximum. ``return_mask=True`` returns ``(out, mask)``: each
    maximum's int32 index in the flattened D * H * W volume of its input channel."""
    del name
    return _adaptive3d(x, output_size, "adaptive_max_pool3d", True, bool(return_mask))
