"""``Conv2D``: the layer around ``functional.conv2d`` (Paddle 2.x names and defaults)."""
from __future__ import annotations

from core.nn import initializer
from core.nn.functional import conv as F
from core.nn.functional._spatial import pair
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
