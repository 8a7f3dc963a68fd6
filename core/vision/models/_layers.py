"""Building blocks shared by the vision models: Paddle's ``paddle.vision.ops.ConvNormActivation``
and ``paddle.vision.models._utils._make_divisible``."""
from __future__ import annotations

from core import nn


def make_divisible(v: float, divisor: int = 8, min_value: int | None = None) -> int:
    """``v`` rounded to the nearest multiple of ``divisor`` (at least ``min_value``, default
    ``divisor``), raised by one ``divisor`` where rounding lost more than 10%: the channel
    counts of the MobileNets (Paddle's ``_make_divisible``, from TensorFlow's models)."""
    min_value = divisor if min_value is None else min_value
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    return new_v + divisor if new_v < 0.9 * v else new_v


def _same_padding(kernel_size, dilation):
    # (k - 1) // 2 * dilation keeps the spatial size at stride 1, per axis for a (kh, kw) kernel
    if isinstance(kernel_size, (tuple, list)):
        return [(k - 1) // 2 * dilation for k in kernel_size]
    return (kernel_size - 1) // 2 * dilation


class ConvNormActivation(nn.Sequential):
    """Conv2D -> norm -> activation as one Sequential (keys ``0.weight``, ``1._mean``, ...),
    Paddle's ``paddle.vision.ops.ConvNormActivation(in_channels, out_channels, kernel_size=3,
    stride=1, padding=None, groups=1, norm_layer=BatchNorm2D, activation_layer=ReLU,
    dilation=1, bias=None)``.

    ``padding=None`` keeps the size at stride 1 (``(kernel_size - 1) // 2 * dilation``);
    ``norm_layer`` / ``activation_layer`` None leave that layer out; the convolution has a bias
    only when there is no norm to absorb it (``bias=None``), or as ``bias`` says.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size=3, stride=1,
                 padding=None, groups: int = 1, norm_layer=nn.BatchNorm2D,
                 activation_layer=nn.ReLU, dilation: int = 1, bias: bool | None = None):
        padding = _same_padding(kernel_size, dilation) if padding is None else padding
        bias = norm_layer is None if bias is None else bias
        layers = [nn.Conv2D(in_channels, out_channels, kernel_size, stride, padding,
                            dilation=dilation, groups=groups, bias_attr=None if bias else False)]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            layers.append(activation_layer())
        super().__init__(*layers)
