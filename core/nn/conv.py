"""Convolution layers: ``Conv2D``, ``Conv1D``, ``Conv2DTranspose``, ``Conv1DTranspose``,
``Conv3D``, ``Conv3DTranspose`` (Paddle names and defaults)."""
from __future__ import annotations

from core.nn import initializer
from core.nn.functional import conv as F
from core.nn.functional import conv_transpose as T
from core.nn.functional import volumetric as V
from core.nn.functional._spatial import padding_pairs, pair
from core.nn.functional.common import _PAD_MODES, pad
from core.nn.layer import Layer
from core.tensor import Tensor

_FORMATS = {1: ("NCL", "NLC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}
_MODES = ("zeros",) + _PAD_MODES[1:]  # Paddle's padding_mode: zeros, reflect, replicate, circular


def _check_channels(owner: str, in_channels, out_channels, groups) -> None:
    for label, value in (("in_channels", in_channels), ("out_channels", out_channels),
                         ("groups", groups)):
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ValueError(f"{owner}: {label}={value!r} must be a positive integer.")
    if in_channels % groups or out_channels % groups:
        raise ValueError(f"{owner}: in_channels={in_channels} and out_channels={out_channels} "
                         f"must both be divisible by groups={groups}.")


def _check_format(owner: str, data_format: str, dims: int) -> None:
    allowed = _FORMATS[dims]
    if data_format not in allowed:
        raise ValueError(f"{owner}: data_format must be '{allowed[0]}' or '{allowed[1]}', got "
                         f"{data_format!r}")


def _mode_padding(owner: str, padding_mode: str, padding, dims: int,
                  data_format: str) -> list[int] | None:
    """``F.pad``'s list for a non-zero ``padding_mode`` (the convolution then runs unpadded), as
    Paddle's _ConvNd: ``padding`` an int or one int per spatial axis, [before, after] per axis
    (flat, or one pair per axis of the data with [0, 0] for the batch and channel axes; core
    also takes one pair per spatial axis); None for 'zeros', after checking ``padding`` the way
    the functional op will (Paddle checks it in the constructor too)."""
    if padding_mode not in _MODES:
        raise ValueError(f"{owner}: padding_mode={padding_mode!r} is not supported; use "
                         f"{', '.join(map(repr, _MODES))}.")
    channels_last = data_format == _FORMATS[dims][1]
    if padding_mode == "zeros":
        padding_pairs(padding, dims, owner, channels_last)
        return None
    if isinstance(padding, str):
        raise ValueError(f"{owner}: padding={padding!r} cannot be a string with "
                         f"padding_mode={padding_mode!r}; give ints.")
    items = list(padding) if isinstance(padding, (list, tuple)) else [padding]
    if len(items) == dims and all(isinstance(v, (list, tuple)) for v in items):
        items = [v for pair in items for v in (pair if len(pair) == 2 else [-1])]
    try:
        pairs = padding_pairs(items, dims, owner, channels_last)
    except ValueError:
        raise ValueError(f"{owner}: padding={padding!r} must be an int >= 0, {dims} ints or "
                         f"{2 * dims} ints ({dims + 2} [before, after] pairs with [0, 0] for the "
                         f"batch and channel axes) with padding_mode={padding_mode!r}.") from None
    # F.pad's order for the spatial axes: last axis first (left, right, top, bottom, ...).
    return [int(v) for pair in reversed(pairs) for v in pair]


def _parameters(layer: Layer, weight_shape, weight_attr, bias_attr, default) -> None:
    """``layer.weight`` (``default`` unless the attribute names an initialiser) and
    ``layer.bias`` [out_channels] (zeros; None for ``bias_attr=False``)."""
    layer.weight = layer.create_parameter(weight_shape, attr=weight_attr,
                                          default_initializer=default)
    layer.bias = None if bias_attr is False else \
        layer.create_parameter([layer.out_channels], attr=bias_attr, is_bias=True)


def _placed(layer: Layer, device, dtype) -> None:
    """Paddle 3.x's keyword-only ``device=`` / ``dtype=``: the new parameters moved and cast
    (``Layer.to``; the layer's dtype for later parameters too)."""
    if device is not None or dtype is not None:
        layer.to(device=device, dtype=dtype)


def _transposed_default(in_channels: int, kernel) -> initializer.Initializer:
    """Paddle's default for transposed convolutions: its layers pass no initializer, so the
    weight [in, out / groups, *k] gets Paddle's Xavier uniform, U(-a, a) with a = sqrt(6 /
    ((in + out / groups) * prod(k))) (Paddle 3.3.1 measured; not the forward convolutions'
    normal(0, sqrt(2 / (in * prod(k)))))."""
    del in_channels, kernel  # the bound follows from the weight's shape
    return initializer.XavierUniform()


class _Conv(Layer):
    """What every convolution layer shares: ``forward`` pads first for a non-zero
    ``padding_mode`` (then ``self.padding`` stays what the user gave, for ``extra_repr``)."""

    _mode_pad: list[int] | None = None

    def _padded(self, x: Tensor):
        """``(x, padding)`` for the functional call."""
        if self._mode_pad is None:
            return x, self.padding
        return pad(x, self._mode_pad, self.padding_mode, data_format=self.data_format), 0


class _ConvTranspose(_Conv):
    def extra_repr(self) -> str:
        kernel = self.kernel_size if isinstance(self.kernel_size, int) else \
            list(self.kernel_size)
        return (f"{self.in_channels}, {self.out_channels}, kernel_size={kernel}, "
                f"stride={self.stride}, padding={self.padding}")


class Conv2D(_Conv):
    """2-D convolution with ``weight`` [out_channels, in_channels / groups, kh, kw].

    The weight defaults to Paddle's choice for convolutions, a normal distribution with
    std = sqrt(2 / fan_in) (``initializer.KaimingNormal``, fan_in = in/groups * kh * kw); the
    bias to zeros. ``weight_attr`` / ``bias_attr`` are ParamAttr-like objects or dicts;
    ``bias_attr=False`` builds the layer without a bias. ``padding_mode`` 'reflect',
    'replicate' or 'circular' pads the input that way first (``padding`` then ints), as Paddle.

    Paddle 3.x's keyword-only ``bias=False`` is ``bias_attr=False``; ``device`` / ``dtype`` put
    the parameters on that device in that dtype (``Layer.to``). Paddle 2.x's positional
    ``padding_mode``, ``weight_attr``, ``bias_attr``, ``data_format`` still work (3.x makes them
    keyword-only).
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 dilation=1, groups: int = 1, padding_mode: str = "zeros", weight_attr=None,
                 bias_attr=None, data_format: str = "NCHW", *, bias: bool = True, device=None,
                 dtype=None):
        super().__init__()
        _check_channels("Conv2D", in_channels, out_channels, groups)
        bias_attr = False if bias is False else bias_attr  # Paddle 3.x's torch-style switch
        _check_format("Conv2D", data_format, 2)
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = pair(kernel_size, "kernel_size", "Conv2D")
        self.stride, self.padding, self.dilation = stride, padding, dilation
        self.groups, self.padding_mode, self.data_format = groups, padding_mode, data_format
        self._mode_pad = _mode_padding("Conv2D", padding_mode, padding, 2,
                                      data_format)
        _parameters(self, [out_channels, in_channels // groups, *self.kernel_size], weight_attr,
                    bias_attr, initializer.KaimingNormal())
        _placed(self, device, dtype)

    def forward(self, x: Tensor) -> Tensor:
        x, padding = self._padded(x)
        return F.conv2d(x, self.weight, self.bias, self.stride, padding, self.dilation,
                        self.groups, self.data_format)

    def extra_repr(self) -> str:
        return (f"{self.in_channels}, {self.out_channels}, kernel_size={list(self.kernel_size)}, "
                f"stride={self.stride}, padding={self.padding}, dilation={self.dilation}, "
                f"groups={self.groups}, data_format={self.data_format}")


class Conv1D(_Conv):
    """1-D convolution of [N, C, L] inputs with ``weight`` [out, in / groups, k], Paddle's
    ``Conv1D(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
    padding_mode='zeros', weight_attr=None, bias_attr=None, data_format='NCL')`` (and 3.x's
    keyword-only ``bias``, ``device``, ``dtype``, as ``Conv2D``'s); the weight
    defaults to Kaiming-normal (Paddle's choice for convolutions), the bias to zeros."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 dilation=1, groups: int = 1, padding_mode: str = "zeros", weight_attr=None,
                 bias_attr=None, data_format: str = "NCL", *, bias: bool = True, device=None,
                 dtype=None):
        super().__init__()
        _check_channels("Conv1D", in_channels, out_channels, groups)
        bias_attr = False if bias is False else bias_attr  # Paddle 3.x's torch-style switch
        _check_format("Conv1D", data_format, 1)
        kernel = kernel_size[0] if isinstance(kernel_size, (list, tuple)) else kernel_size
        self.in_channels, self.out_channels, self.kernel_size = in_channels, out_channels, kernel
        self.stride, self.padding, self.dilation = stride, padding, dilation
        self.groups, self.padding_mode, self.data_format = groups, padding_mode, data_format
        self._mode_pad = _mode_padding("Conv1D", padding_mode, padding, 1,
                                      data_format)
        _parameters(self, [out_channels, in_channels // groups, kernel], weight_attr, bias_attr,
                    initializer.KaimingNormal())
        _placed(self, device, dtype)

    def forward(self, x: Tensor) -> Tensor:
        x, padding = self._padded(x)
        return T.conv1d(x, self.weight, self.bias, self.stride, padding, self.dilation,
                        self.groups, self.data_format)

    def extra_repr(self) -> str:
        return (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, padding={self.padding}, dilation={self.dilation}, "
                f"groups={self.groups}, data_format={self.data_format}")


class Conv2DTranspose(_ConvTranspose):
    """Transposed 2-D convolution with ``weight`` [in, out / groups, kh, kw], Paddle's
    ``Conv2DTranspose(in_channels, out_channels, kernel_size, stride=1, padding=0,
    output_padding=0, dilation=1, groups=1, weight_attr=None, bias_attr=None,
    data_format='NCHW')`` (dilation before groups, as in Paddle; Conv1DTranspose has them the
    other way round, also as in Paddle); ``forward(x, output_size=None)``. ``padding`` takes
    every form ``functional.conv2d_transpose`` does, 'SAME' included. The weight defaults
    to Paddle's Xavier uniform over its shape [in, out / groups, kh, kw], the bias to zeros."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 output_padding=0, dilation=1, groups: int = 1, weight_attr=None,
                 bias_attr=None, data_format: str = "NCHW"):
        super().__init__()
        _check_channels("Conv2DTranspose", in_channels, out_channels, groups)
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = pair(kernel_size, "kernel_size", "Conv2DTranspose")
        padding_pairs(padding, 2, "Conv2DTranspose", data_format == "NHWC")  # fail early
        self.stride, self.padding, self.output_padding = stride, padding, output_padding
        self.groups, self.dilation, self.data_format = groups, dilation, data_format
        _parameters(self, [in_channels, out_channels // groups, *self.kernel_size], weight_attr,
                    bias_attr, _transposed_default(in_channels, self.kernel_size))

    def forward(self, x: Tensor, output_size=None) -> Tensor:
        return T.conv2d_transpose(x, self.weight, self.bias, self.stride, self.padding,
                                  self.output_padding, dilation=self.dilation,
                                  groups=self.groups, output_size=output_size,
                                  data_format=self.data_format)


class Conv1DTranspose(_ConvTranspose):
    """Transposed 1-D convolution of [N, C, L] inputs with ``weight`` [in, out / groups, k],
    Paddle's ``Conv1DTranspose(in_channels, out_channels, kernel_size, stride=1, padding=0,
    output_padding=0, groups=1, dilation=1, weight_attr=None, bias_attr=None,
    data_format='NCL')``; ``forward(x, output_size=None)``. Output length: (L - 1) * stride -
    2 * padding + dilation * (k - 1) + 1 + output_padding. The weight defaults to Paddle's
    Xavier uniform over its shape [in, out / groups, k], the bias to zeros."""

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
        _check_format("Conv1DTranspose", data_format, 1)
        padding_pairs(padding, 1, "Conv1DTranspose", data_format == "NLC")  # fail early
        self.in_channels, self.out_channels, self.kernel_size = in_channels, out_channels, kernel
        self.stride, self.padding, self.output_padding = stride, padding, output_padding
        self.groups, self.dilation, self.data_format = groups, dilation, data_format
        _parameters(self, [in_channels, out_channels // groups, kernel], weight_attr, bias_attr,
                    _transposed_default(in_channels, [kernel]))

    def forward(self, x: Tensor, output_size=None) -> Tensor:
        return T.conv1d_transpose(x, self.weight, self.bias, self.stride, self.padding,
                                  self.output_padding, self.groups, self.dilation, output_size,
                                  self.data_format)


class Conv3D(_Conv):
    """3-D convolution of [N, C, D, H, W] inputs with ``weight`` [out_channels, in_channels /
    groups, kd, kh, kw], Paddle's ``Conv3D(in_channels, out_channels, kernel_size, stride=1,
    padding=0, dilation=1, groups=1, padding_mode='zeros', weight_attr=None, bias_attr=None,
    data_format='NCDHW')`` and 3.x's keyword-only ``bias``, ``device``, ``dtype`` (as
    ``Conv2D``'s; see ``functional.conv3d`` for the formula and the padding forms).

    ``padding_mode`` 'reflect', 'replicate' or 'circular' pads the input that way first (then
    ``padding`` must be an int, three or six ints), as Paddle does. The weight defaults to
    Paddle's Kaiming-normal (std = sqrt(2 / fan_in), fan_in = in/groups * kd * kh * kw), the
    bias to zeros; ``bias_attr=False`` leaves the bias out.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 dilation=1, groups: int = 1, padding_mode: str = "zeros", weight_attr=None,
                 bias_attr=None, data_format: str = "NCDHW", *, bias: bool = True, device=None,
                 dtype=None):
        super().__init__()
        _check_channels("Conv3D", in_channels, out_channels, groups)
        bias_attr = False if bias is False else bias_attr  # Paddle 3.x's torch-style switch
        _check_format("Conv3D", data_format, 3)
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = V.triple(kernel_size, "kernel_size", "Conv3D")
        self.stride, self.padding, self.dilation = stride, padding, dilation
        self.groups, self.padding_mode, self.data_format = groups, padding_mode, data_format
        self._mode_pad = _mode_padding("Conv3D", padding_mode, padding, 3,
                                      data_format)
        _parameters(self, [out_channels, in_channels // groups, *self.kernel_size], weight_attr,
                    bias_attr, initializer.KaimingNormal())
        _placed(self, device, dtype)

    def forward(self, x: Tensor) -> Tensor:
        x, padding = self._padded(x)
        return V.conv3d(x, self.weight, self.bias, self.stride, padding, self.dilation,
                        self.groups, self.data_format)

    def extra_repr(self) -> str:
        return (f"{self.in_channels}, {self.out_channels}, kernel_size={list(self.kernel_size)}, "
                f"stride={self.stride}, padding={self.padding}, dilation={self.dilation}, "
                f"groups={self.groups}, data_format={self.data_format}")


class Conv3DTranspose(_ConvTranspose):
    """Transposed 3-D convolution with ``weight`` [in, out / groups, kd, kh, kw], Paddle's
    ``Conv3DTranspose(in_channels, out_channels, kernel_size, stride=1, padding=0,
    output_padding=0, dilation=1, groups=1, weight_attr=None, bias_attr=None,
    data_format='NCDHW')`` (dilation before groups, as in Paddle's layer, although Paddle's
    functional conv3d_transpose takes groups first); ``forward(x, output_size=None)``. Output
    size per axis: (in - 1) * stride - pad_before - pad_after + dilation * (k - 1) + 1 +
    output_padding. The weight defaults to Paddle's Xavier uniform over its shape [in, out /
    groups, kd, kh, kw], the bias to zeros."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 output_padding=0, dilation=1, groups: int = 1, weight_attr=None,
                 bias_attr=None, data_format: str = "NCDHW"):
        super().__init__()
        _check_channels("Conv3DTranspose", in_channels, out_channels, groups)
        _check_format("Conv3DTranspose", data_format, 3)
        padding_pairs(padding, 3, "Conv3DTranspose", data_format == "NDHWC")  # fail early
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = V.triple(kernel_size, "kernel_size", "Conv3DTranspose")
        self.stride, self.padding, self.output_padding = stride, padding, output_padding
        self.groups, self.dilation, self.data_format = groups, dilation, data_format
        _parameters(self, [in_channels, out_channels // groups, *self.kernel_size], weight_attr,
                    bias_attr, _transposed_default(in_channels, self.kernel_size))

    def forward(self, x: Tensor, output_size=None) -> Tensor:
        return V.conv3d_transpose(x, self.weight, self.bias, self.stride, self.padding,
                                  self.output_padding, self.groups, self.dilation, output_size,
                                  self.data_format)
