"""Convolution layers: ``Conv2D``, ``Conv1D``, ``Conv2DTranspose``, ``Conv1DTranspose``,
``Conv3D``, ``Conv3DTranspose`` (Paddle names and defaults)."""
from __future__ import annotations

import math

from core.nn import initializer
from core.nn.functional import conv as F
from core.nn.functional import conv_transpose as T
from core.nn.functional import volumetric as V
from core.nn.functional._spatial import pair
from core.nn.functional.common import _PAD_MODES, pad
from core.nn.layer import Layer
from core.tensor import Tensor


class Conv2D(Layer):
    """2-D convolution with ``weight`` [out_channels, in_channels / groups, kh, kw].

    The weight defaults to Paddle's choice for convolutions, a normal distribution with
    std = sqrt(2 / fan_in) (``initializer.KaimingNormal``, fan_in = in/groups * kh * kw); the
    bias to zeros. ``weight_attr`` / ``bias_attr`` are ParamAttr-like objects or dicts;
    ``bias_attr=False`` builds the layer without a bias.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 dilation=1, groups: int = 1, padding_mode: str = "zeros", weight_attr=None,
                 bias_attr=None, data_format: str = "NCHW"):
        super().__init__()
        for label, value in (("in_channels", in_channels), ("out_channels", out_channels),
                             ("groups", groups)):
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"Conv2D: {label}={value!r} must be a positive integer.")
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"Conv2D: in_channels={in_channels} and out_channels={out_channels}"
                             f" must both be divisible by groups={groups}.")
        if padding_mode != "zeros":
            raise ValueError(f"Conv2D: padding_mode={padding_mode!r} is not supported; only "
                             "'zeros' is.")
        if data_format not in ("NCHW", "NHWC"):
            raise ValueError(f"Conv2D: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = pair(kernel_size, "kernel_size", "Conv2D")
        self.stride, self.padding, self.dilation = stride, padding, dilation
        self.groups, self.data_format = groups, data_format
        shape = [out_channels, in_channels // groups, *self.kernel_size]
        self.weight = self.create_parameter(shape, attr=weight_attr,
                                            default_initializer=initializer.KaimingNormal())
        self.bias = None if bias_attr is False else \
            self.create_parameter([out_channels], attr=bias_attr, is_bias=True)

    def forward(self, x: Tensor) -> Tensor:
        return F.conv2d(x, self.weight, self.bias, self.stride, self.padding, self.dilation,
                        self.groups, self.data_format)

    def extra_repr(self) -> str:
        return (f"{self.in_channels}, {self.out_channels}, kernel_size={list(self.kernel_size)}, "
                f"stride={self.stride}, padding={self.padding}, dilation={self.dilation}, "
                f"groups={self.groups}, data_format={self.data_format}")


def _check_channels(owner: str, in_channels, out_channels, groups) -> None:
    for label, value in (("in_channels", in_channels), ("out_channels", out_channels),
                         ("groups", groups)):
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ValueError(f"{owner}: {label}={value!r} must be a positive integer.")
    if in_channels % groups or out_channels % groups:
        raise ValueError(f"{owner}: in_channels={in_channels} and out_channels={out_channels} "
                         f"must both be divisible by groups={groups}.")


class Conv1D(Layer):
    """1-D convolution of [N, C, L] inputs with ``weight`` [out, in / groups, k], Paddle's
    ``Conv1D(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
    padding_mode='zeros', weight_attr=None, bias_attr=None, data_format='NCL')``; the weight
    defaults to Kaiming-normal (Paddle's choice for convolutions), the bias to zeros."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 dilation=1, groups: int = 1, padding_mode: str = "zeros", weight_attr=None,
                 bias_attr=None, data_format: str = "NCL"):
        super().__init__()
        _check_channels("Conv1D", in_channels, out_channels, groups)
        if padding_mode != "zeros":
            raise ValueError(f"Conv1D: padding_mode={padding_mode!r} is not supported; only "
                             "'zeros' is.")
        kernel = kernel_size[0] if isinstance(kernel_size, (list, tuple)) else kernel_size
        self.in_channels, self.out_channels, self.kernel_size = in_channels, out_channels, kernel
        self.stride, self.padding, self.dilation = stride, padding, dilation
        self.groups, self.data_format = groups, data_format
        self.weight = self.create_parameter([out_channels, in_channels // groups, kernel],
                                            attr=weight_attr,
                                            default_initializer=initializer.KaimingNormal())
        self.bias = None if bias_attr is False else \
            self.create_parameter([out_channels], attr=bias_attr, is_bias=True)

    def forward(self, x: Tensor) -> Tensor:
        return T.conv1d(x, self.weight, self.bias, self.stride, self.padding, self.dilation,
                        self.groups, self.data_format)

    def extra_repr(self) -> str:
        return f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}"


class Conv2DTranspose(Layer):
    """Transposed 2-D convolution with ``weight`` [in, out / groups, kh, kw], Paddle's
    ``Conv2DTranspose(in_channels, out_channels, kernel_size, stride=1, padding=0,
    output_padding=0, groups=1, dilation=1, weight_attr=None, bias_attr=None,
    data_format='NCHW')``; ``forward(x, output_size=None)``. The weight defaults to Paddle's
    normal(0, sqrt(2 / (in_channels * kh * kw))), the bias to zeros."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 output_padding=0, groups: int = 1, dilation=1, weight_attr=None,
                 bias_attr=None, data_format: str = "NCHW"):
        super().__init__()
        _check_channels("Conv2DTranspose", in_channels, out_channels, groups)
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = pair(kernel_size, "kernel_size", "Conv2DTranspose")
        self.stride, self.padding, self.output_padding = stride, padding, output_padding
        self.groups, self.dilation, self.data_format = groups, dilation, data_format
        std = math.sqrt(2.0 / (in_channels * math.prod(self.kernel_size)))
        self.weight = self.create_parameter(
            [in_channels, out_channels // groups, *self.kernel_size], attr=weight_attr,
            default_initializer=initializer.Normal(0.0, std))
        self.bias = None if bias_attr is False else \
            self.create_parameter([out_channels], attr=bias_attr, is_bias=True)

    def forward(self, x: Tensor, output_size=None) -> Tensor:
        return T.conv2d_transpose(x, self.weight, self.bias, self.stride, self.padding,
                                  self.output_padding, self.groups, self.dilation, output_size,
                                  self.data_format)

    def extra_repr(self) -> str:
        return (f"{self.in_channels}, {self.out_channels}, kernel_size={list(self.kernel_size)}, "
                f"stride={self.stride}, padding={self.padding}")


class Conv1DTranspose(Layer):
    """Transposed 1-D convolution of [N, C, L] inputs with ``weight`` [in, out / groups, k],
    Paddle's ``Conv1DTranspose(in_channels, out_channels, kernel_size, stride=1, padding=0,
    output_padding=0, groups=1, dilation=1, weight_attr=None, bias_attr=None,
    data_format='NCL')``; ``forward(x, output_size=None)``. Output length: (L - 1) * stride -
    2 * padding + dilation * (k - 1) + 1 + output_padding. The weight defaults to Paddle's
    normal(0, sqrt(2 / (in_channels * k))), the bias to zeros."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 output_padding=0, groups: int = 1, dilation=1, weight_attr=None,
                 bias_attr=None, data_format: str = "NCL"):
        super().__init__()
        _check_channels("Conv1DTranspose", in_channels, out_channels, groups)
        kernel = kernel_size[0] if isinstance(kernel_size, (list, tuple)) and \
            len(kernel_size) == 1 else kernel_size
        if isinstance(kernel, bool) or not isinstance(kernel, int) or kernel <= 0:
            raise ValueError(f"Conv1DTranspose: kernel_size={kernel_size!r} must be a positive "
                             "integer (or a list of one).")
        if data_format not in ("NCL", "NLC"):
            raise ValueError(f"Conv1DTranspose: data_format must be 'NCL' or 'NLC', got "
                             f"{data_format!r}")
        self.in_channels, self.out_channels, self.kernel_size = in_channels, out_channels, kernel
        self.stride, self.padding, self.output_padding = stride, padding, output_padding
        self.groups, self.dilation, self.data_format = groups, dilation, data_format
        self.weight = self.create_parameter(
            [in_channels, out_channels // groups, kernel], attr=weight_attr,
            default_initializer=initializer.Normal(0.0, math.sqrt(2.0 / (in_channels * kernel))))
        self.bias = None if bias_attr is False else \
            self.create_parameter([out_channels], attr=bias_attr, is_bias=True)

    def forward(self, x: Tensor, output_size=None) -> Tensor:
        return T.conv1d_transpose(x, self.weight, self.bias, self.stride, self.padding,
                                  self.output_padding, self.groups, self.dilation, output_size,
                                  self.data_format)

    def extra_repr(self) -> str:
        return (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, padding={self.padding}")


class Conv3D(Layer):
    """3-D convolution of [N, C, D, H, W] inputs with ``weight`` [out_channels, in_channels /
    groups, kd, kh, kw], Paddle's ``Conv3D(in_channels, out_channels, kernel_size, stride=1,
    padding=0, dilation=1, groups=1, padding_mode='zeros', weight_attr=None, bias_attr=None,
    data_format='NCDHW')`` (see ``functional.conv3d`` for the formula and the padding forms).

    ``padding_mode`` 'reflect', 'replicate' or 'circular' pads the input that way first (then
    ``padding`` must be an int, three or six ints), as Paddle does. The weight defaults to
    Paddle's Kaiming-normal (std = sqrt(2 / fan_in), fan_in = in/groups * kd * kh * kw), the
    bias to zeros; ``bias_attr=False`` leaves the bias out.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 dilation=1, groups: int = 1, padding_mode: str = "zeros", weight_attr=None,
                 bias_attr=None, data_format: str = "NCDHW"):
        super().__init__()
        _check_channels("Conv3D", in_channels, out_channels, groups)
        if padding_mode not in ("zeros",) + _PAD_MODES[1:]:
            raise ValueError(f"Conv3D: padding_mode={padding_mode!r} is not supported; use "
                             f"'zeros', {', '.join(map(repr, _PAD_MODES[1:]))}.")
        if data_format not in ("NCDHW", "NDHWC"):
            raise ValueError(f"Conv3D: data_format must be 'NCDHW' or 'NDHWC', got "
                             f"{data_format!r}")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = V.triple(kernel_size, "kernel_size", "Conv3D")
        self.stride, self.padding, self.dilation = stride, padding, dilation
        self.groups, self.padding_mode, self.data_format = groups, padding_mode, data_format
        self._mode_pad = None
        if padding_mode != "zeros":
            if isinstance(padding, str):
                raise ValueError(f"Conv3D: padding={padding!r} cannot be a string with "
                                 f"padding_mode={padding_mode!r}; give ints.")
            pairs = V.padding_pairs(padding, None, self.kernel_size, (1, 1, 1), (1, 1, 1),
                                    "Conv3D", data_format == "NCDHW")
            # F.pad's order for the spatial axes: last axis first (left, right, top, ...).
            self._mode_pad = [v for pair in reversed(pairs) for v in pair]
        shape = [out_channels, in_channels // groups, *self.kernel_size]
        self.weight = self.create_parameter(shape, attr=weight_attr,
                                            default_initializer=initializer.KaimingNormal())
        self.bias = None if bias_attr is False else \
            self.create_parameter([out_channels], attr=bias_attr, is_bias=True)

    def forward(self, x: Tensor) -> Tensor:
        padding = self.padding
        if self._mode_pad is not None:
            x = pad(x, self._mode_pad, self.padding_mode, data_format=self.data_format)
            padding = 0
        return V.conv3d(x, self.weight, self.bias, self.stride, padding, self.dilation,
                        self.groups, self.data_format)

    def extra_repr(self) -> str:
        return (f"{self.in_channels}, {self.out_channels}, kernel_size={list(self.kernel_size)}, "
                f"stride={self.stride}, padding={self.padding}, dilation={self.dilation}, "
                f"groups={self.groups}, data_format={self.data_format}")


class Conv3DTranspose(Layer):
    """Transposed 3-D convolution with ``weight`` [in, out / groups, kd, kh, kw], Paddle's
    ``Conv3DTranspose(in_channels, out_channels, kernel_size, stride=1, padding=0,
    output_padding=0, groups=1, dilation=1, weight_attr=None, bias_attr=None,
    data_format='NCDHW')``; ``forward(x, output_size=None)``. Output size per axis: (in - 1) *
    stride - pad_before - pad_after + dilation * (k - 1) + 1 + output_padding. The weight
    defaults to Paddle's normal(0, sqrt(2 / (in_channels * kd * kh * kw))), the bias to
    zeros."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 output_padding=0, groups: int = 1, dilation=1, weight_attr=None,
                 bias_attr=None, data_format: str = "NCDHW"):
        super().__init__()
        _check_channels("Conv3DTranspose", in_channels, out_channels, groups)
        if data_format not in ("NCDHW", "NDHWC"):
            raise ValueError(f"Conv3DTranspose: data_format must be 'NCDHW' or 'NDHWC', got "
                             f"{data_format!r}")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = V.triple(kernel_size, "kernel_size", "Conv3DTranspose")
        self.stride, self.padding, self.output_padding = stride, padding, output_padding
        self.groups, self.dilation, self.data_format = groups, dilation, data_format
        std = math.sqrt(2.0 / (in_channels * math.prod(self.kernel_size)))
        self.weight = self.create_parameter(
            [in_channels, out_channels // groups, *self.kernel_size], attr=weight_attr,
            default_initializer=initializer.Normal(0.0, std))
        self.bias = None if bias_attr is False else \
            self.create_parameter([out_channels], attr=bias_attr, is_bias=True)

    def forward(self, x: Tensor, output_size=None) -> Tensor:
        return V.conv3d_transpose(x, self.weight, self.bias, self.stride, self.padding,
                                  self.output_padding, self.groups, self.dilation, output_size,
                                  self.data_format)

    def extra_repr(self) -> str:
        return (f"{self.in_channels}, {self.out_channels}, kernel_size={list(self.kernel_size)}, "
                f"stride={self.stride}, padding={self.padding}")
