"""Layers that rearrange values: ``PixelShuffle``, ``PixelUnshuffle``, ``ChannelShuffle``,
``Unflatten``, ``Unfold`` and ``Fold`` (Paddle names), around ``functional.shape``."""
from __future__ import annotations

from core.manipulation import unflatten
from core.nn.functional import shape as F
from core.nn.functional._spatial import pair
from core.nn.layer import Layer
from core.tensor import Tensor


def _checked(owner: str, label: str, value, data_format: str) -> None:
    """A positive int factor and an NCHW / NHWC format, checked when the layer is made."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{owner}: {label}={value!r} must be a positive integer.")
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"{owner}: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")


class PixelShuffle(Layer):
    """[N, C * r * r, H, W] -> [N, C, H * r, W * r], Paddle's ``PixelShuffle(upscale_factor,
    data_format='NCHW', name=None)`` (sub-pixel convolution's upsampling)."""

    def __init__(self, upscale_factor: int, data_format: str = "NCHW", name: str | None = None):
        super().__init__(name)
        _checked("PixelShuffle", "upscale_factor", upscale_factor, data_format)
        self.upscale_factor, self.data_format = upscale_factor, data_format

    def forward(self, x: Tensor) -> Tensor:
        return F.pixel_shuffle(x, self.upscale_factor, self.data_format)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}, data_format={self.data_format}"


class PixelUnshuffle(Layer):
    """[N, C, H * r, W * r] -> [N, C * r * r, H, W], the inverse of PixelShuffle, Paddle's
    ``PixelUnshuffle(downscale_factor, data_format='NCHW', name=None)``."""

    def __init__(self, downscale_factor: int, data_format: str = "NCHW",
                 name: str | None = None):
        super().__init__(name)
        _checked("PixelUnshuffle", "downscale_factor", downscale_factor, data_format)
        self.downscale_factor, self.data_format = downscale_factor, data_format

    def forward(self, x: Tensor) -> Tensor:
        return F.pixel_unshuffle(x, self.downscale_factor, self.data_format)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}, data_format={self.data_format}"


class ChannelShuffle(Layer):
    """Interleave the channels of ``groups`` groups (ShuffleNet), Paddle's
    ``ChannelShuffle(groups, data_format='NCHW', name=None)``."""

    def __init__(self, groups: int, data_format: str = "NCHW", name: str | None = None):
        super().__init__(name)
        _checked("ChannelShuffle", "groups", groups, data_format)
        self.groups, self.data_format = groups, data_format

    def forward(self, x: Tensor) -> Tensor:
        return F.channel_shuffle(x, self.groups, self.data_format)

    def extra_repr(self) -> str:
        return f"groups={self.groups}, data_format={self.data_format}"


class Unflatten(Layer):
    """Split dimension ``axis`` into ``shape``, Paddle's ``Unflatten(axis, shape, name=None)``;
    ``shape`` holds positive ints and at most one -1, which is inferred. Flatten's inverse."""

    def __init__(self, axis: int, shape, name: str | None = None):
        super().__init__(name)
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise ValueError(f"Unflatten: axis={axis!r} must be an integer.")
        self.axis, self.shape = axis, F.unflatten_shape(shape, "Unflatten")

    def forward(self, x: Tensor) -> Tensor:
        return unflatten(x, self.axis, self.shape)

    def extra_repr(self) -> str:
        return f"axis={self.axis}, shape={self.shape}"


class Unfold(Layer):
    """im2col: [N, C, H, W] -> [N, C * kh * kw, L], Paddle's ``Unfold(kernel_sizes,
    dilations=1, paddings=0, strides=1, name=None)`` (note the order, unlike ``F.unfold``'s);
    ``paddings`` is an int, [pad_h, pad_w] or [top, left, bottom, right]."""

    def __init__(self, kernel_sizes, dilations=1, paddings=0, strides=1,
                 name: str | None = None):
        super().__init__(name)
        F.block_args("Unfold", kernel_sizes, strides, paddings, dilations)  # fail early
        self.kernel_sizes, self.dilations = kernel_sizes, dilations
        self.paddings, self.strides = paddings, strides

    def forward(self, x: Tensor) -> Tensor:
        return F.unfold(x, self.kernel_sizes, self.strides, self.paddings, self.dilations)

    def extra_repr(self) -> str:
        return (f"kernel_sizes={self.kernel_sizes}, dilations={self.dilations}, "
                f"paddings={self.paddings}, strides={self.strides}")


class Fold(Layer):
    """col2im: [N, C * kh * kw, L] -> [N, C, H, W] with [H, W] = ``output_sizes``, overlapping
    blocks summed, Paddle's ``Fold(output_sizes, kernel_sizes, dilations=1, paddings=0,
    strides=1, name=None)``; Unfold's adjoint."""

    def __init__(self, output_sizes, kernel_sizes, dilations=1, paddings=0, strides=1,
                 name: str | None = None):
        super().__init__(name)
        F.block_args("Fold", kernel_sizes, strides, paddings, dilations)  # fail early
        pair(output_sizes, "output_sizes", "Fold")
        self.output_sizes, self.kernel_sizes = output_sizes, kernel_sizes
        self.dilations, self.paddings, self.strides = dilations, paddings, strides

    def forward(self, x: Tensor) -> Tensor:
        return F.fold(x, self.output_sizes, self.kernel_sizes, self.strides, self.paddings,
                      self.dilations)

    def extra_repr(self) -> str:
        return (f"output_sizes={self.output_sizes}, kernel_sizes={self.kernel_sizes}, "
                f"dilations={self.dilations}, paddings={self.paddings}, strides={self.strides}")


class _Upsampling(Layer):
    """A fixed-mode ``interpolate``; exactly one of ``size`` and ``scale_factor`` is given."""

    _mode, _align_corners = "nearest", False

    def __init__(self, size, scale_factor, data_format: str, name):
        super().__init__(name)
        owner = type(self).__name__
        if (size is None) == (scale_factor is None):
            raise ValueError(f"{owner}: give exactly one of size and scale_factor, got "
                             f"size={size!r} and scale_factor={scale_factor!r}.")
        if data_format not in ("NCHW", "NHWC"):
            raise ValueError(f"{owner}: data_format must be 'NCHW' or 'NHWC', got "
                             f"{data_format!r}")
        self.size, self.scale_factor, self.data_format = size, scale_factor, data_format

    def forward(self, x: Tensor) -> Tensor:
        return F.upsample(x, self.size, self.scale_factor, self._mode, self._align_corners, 0,
                          self.data_format)

    def extra_repr(self) -> str:
        return (f"size={self.size}, scale_factor={self.scale_factor}, "
                f"data_format={self.data_format}")


class UpsamplingNearest2D(_Upsampling):
    """Nearest-neighbour resizing of 4-D images, Paddle's ``UpsamplingNearest2D(size=None,
    scale_factor=None, data_format='NCHW', name=None)``: ``interpolate(mode='nearest')``, the
    source pixel of output pixel i being floor(i * in / out) (or floor(i / scale_factor))."""

    def __init__(self, size=None, scale_factor=None, data_format: str = "NCHW",
                 name: str | None = None):
        super().__init__(size, scale_factor, data_format, name)


class UpsamplingBilinear2D(_Upsampling):
    """Bilinear resizing of 4-D images with the corners aligned, Paddle's
    ``UpsamplingBilinear2D(size=None, scale_factor=None, data_format='NCHW', name=None)``:
    ``interpolate(mode='bilinear', align_corners=True)``, output pixel i reading input position
    i * (in - 1) / (out - 1)."""

    _mode, _align_corners = "bilinear", True

    def __init__(self, size=None, scale_factor=None, data_format: str = "NCHW",
                 name: str | None = None):
        super().__init__(size, scale_factor, data_format, name)
