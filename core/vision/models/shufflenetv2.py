"""ShuffleNetV2 (``paddle.vision.models.ShuffleNetV2``, ``shufflenet_v2_x0_25`` ...
``shufflenet_v2_x2_0``, ``shufflenet_v2_swish``), Ma et al. 2018.

Built as Paddle's (python/paddle/vision/models/shufflenetv2.py), with its names: ``_conv1``,
the blocks ``2_1`` ... ``2_4``, ``3_1`` ... ``3_8``, ``4_1`` ... ``4_4`` (registered under
those names, the first of each stage a downsampling block), ``_last_conv`` and ``_fc``; each
Conv-BN(-activation) is a Sequential, so keys read ``_conv1.0.weight``,
``2_1._conv_dw_1.1._mean``, ``3_2._conv_linear.0.weight``, ``_fc.bias``, ...
"""
from __future__ import annotations

from core import nn
from core.manipulation import concat, flatten, split
from core.nn import functional as F
from core.vision.models._checks import check_choice, check_int, load_pretrained
from core.vision.models._layers import ConvNormActivation

STAGE_REPEATS = (4, 8, 4)
# output channels of conv1, the three stages and the last convolution, per scale
STAGE_OUT_CHANNELS = {0.25: (24, 24, 48, 96, 512), 0.33: (24, 32, 64, 128, 512),
                      0.5: (24, 48, 96, 192, 1024), 1.0: (24, 116, 232, 464, 1024),
                      1.5: (24, 176, 352, 704, 1024), 2.0: (24, 224, 488, 976, 2048)}
ACTIVATIONS = {"relu": nn.ReLU, "swish": nn.Swish}


def create_activation_layer(act):
    """The activation Layer class named ``act``: 'relu', 'swish', or None for none."""
    if act is None:
        return None
    check_choice("ShuffleNetV2", "act", act, [*ACTIVATIONS, None])
    return ACTIVATIONS[act]


def _pointwise(c_in: int, c_out: int, activation_layer):
    return ConvNormActivation(c_in, c_out, kernel_size=1, stride=1, padding=0,
                              activation_layer=activation_layer)


def _depthwise(channels: int, stride: int):
    return ConvNormActivation(channels, channels, kernel_size=3, stride=stride, padding=1,
                              groups=channels, activation_layer=None)


class InvertedResidual(nn.Layer):
    """The stride-1 ShuffleNetV2 unit: half the channels pass through, the other half go
    1x1 -> 3x3 depthwise -> 1x1, the halves are concatenated and the channels shuffled in 2
    groups. Paddle's ``InvertedResidual(in_channels, out_channels, stride,
    activation_layer=ReLU)``."""

    def __init__(self, in_channels: int, out_channels: int, stride: int,
                 activation_layer=nn.ReLU):
        super().__init__()
        self._conv_pw = _pointwise(in_channels // 2, out_channels // 2, activation_layer)
        self._conv_dw = _depthwise(out_channels // 2, stride)
        self._conv_linear = _pointwise(out_channels // 2, out_channels // 2, activation_layer)

    def forward(self, inputs):
        x1, x2 = split(inputs, 2, axis=1)
        x2 = self._conv_linear(self._conv_dw(self._conv_pw(x2)))
        return F.channel_shuffle(concat([x1, x2], axis=1), 2)


class InvertedResidualDS(nn.Layer):
    """The downsampling ShuffleNetV2 unit: two branches over the whole input, 3x3 depthwise
    (``stride``) -> 1x1 and 1x1 -> 3x3 depthwise (``stride``) -> 1x1, each to ``out_channels //
    2``, concatenated and shuffled in 2 groups. Paddle's ``InvertedResidualDS(in_channels,
    out_channels, stride, activation_layer=ReLU)``."""

    def __init__(self, in_channels: int, out_channels: int, stride: int,
                 activation_layer=nn.ReLU):
        super().__init__()
        self._conv_dw_1 = _depthwise(in_channels, stride)
        self._conv_linear_1 = _pointwise(in_channels, out_channels // 2, activation_layer)
        self._conv_pw_2 = _pointwise(in_channels, out_channels // 2, activation_layer)
        self._conv_dw_2 = _depthwise(out_channels // 2, stride)
        self._conv_linear_2 = _pointwise(out_channels // 2, out_channels // 2, activation_layer)

    def forward(self, inputs):
        x1 = self._conv_linear_1(self._conv_dw_1(inputs))
        x2 = self._conv_linear_2(self._conv_dw_2(self._conv_pw_2(inputs)))
        return F.channel_shuffle(concat([x1, x2], axis=1), 2)


class ShuffleNetV2(nn.Layer):
    """ShuffleNetV2 for ``[N, 3, H, W]`` images, Paddle's ``ShuffleNetV2(scale=1.0, act='relu',
    num_classes=1000, with_pool=True)``.

    ``scale`` picks the widths (one of ``STAGE_OUT_CHANNELS``: 0.25, 0.33, 0.5, 1.0, 1.5, 2.0);
    ``act`` is 'relu' or 'swish'. A 3x3 stride-2 Conv-BN-act and a 3x3 stride-2 max pool, three
    stages of 4, 8 and 4 units (the first of each downsampling; output stride 32), a 1x1
    Conv-BN-act, adaptive average pooling to 1x1 (``with_pool``) and ``_fc``, a Linear to
    ``num_classes`` (none when ``num_classes <= 0``).
    """

    def __init__(self, scale: float = 1.0, act: str = "relu", num_classes: int = 1000,
                 with_pool: bool = True):
        super().__init__()
        check_choice("ShuffleNetV2", "scale", scale, STAGE_OUT_CHANNELS)
        self.scale = scale
        self.num_classes = check_int("ShuffleNetV2", "num_classes", num_classes)
        self.with_pool = bool(with_pool)
        activation_layer = create_activation_layer(act)
        channels = STAGE_OUT_CHANNELS[scale]
        self._conv1 = ConvNormActivation(3, channels[0], kernel_size=3, stride=2, padding=1,
                                         activation_layer=activation_layer)
        self._max_pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        # a plain list, as Paddle's: the blocks are registered as "2_1", "2_2", ...
        self._block_list = []
        for stage, repeats in enumerate(STAGE_REPEATS):
            c_in, c_out = channels[stage], channels[stage + 1]
            for i in range(repeats):
                block = InvertedResidualDS(c_in, c_out, 2, activation_layer) if i == 0 else \
                    InvertedResidual(c_out, c_out, 1, activation_layer)
                self._block_list.append(self.add_sublayer(f"{stage + 2}_{i + 1}", block))
        self._last_conv = _pointwise(channels[-2], channels[-1], activation_layer)
        if self.with_pool:
            self._pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if self.num_classes > 0:
            self._out_c = channels[-1]
            self._fc = nn.Linear(channels[-1], self.num_classes)

    def forward(self, inputs):
        x = self._max_pool(self._conv1(inputs))
        for block in self._block_list:
            x = block(x)
        x = self._last_conv(x)
        if self.with_pool:
            x = self._pool2d_avg(x)
        if self.num_classes > 0:
            x = self._fc(flatten(x, 1))
        return x


def _shufflenet_v2(arch: str, pretrained, **kwargs) -> ShuffleNetV2:
    return load_pretrained(arch, pretrained, ShuffleNetV2(**kwargs))


def shufflenet_v2_x0_25(pretrained: bool = False, **kwargs) -> ShuffleNetV2:
    """ShuffleNetV2 with 0.25x widths: ``ShuffleNetV2(scale=0.25, **kwargs)``."""
    return _shufflenet_v2("shufflenet_v2_x0_25", pretrained, scale=0.25, **kwargs)


def shufflenet_v2_x0_33(pretrained: bool = False, **kwargs) -> ShuffleNetV2:
    """ShuffleNetV2 with 0.33x widths: ``ShuffleNetV2(scale=0.33, **kwargs)``."""
    return _shufflenet_v2("shufflenet_v2_x0_33", pretrained, scale=0.33, **kwargs)


def shufflenet_v2_x0_5(pretrained: bool = False, **kwargs) -> ShuffleNetV2:
    """ShuffleNetV2 with 0.5x widths: ``ShuffleNetV2(scale=0.5, **kwargs)`` (1,366,792
    parameters with 1000 classes)."""
    return _shufflenet_v2("shufflenet_v2_x0_5", pretrained, scale=0.5, **kwargs)


def shufflenet_v2_x1_0(pretrained: bool = False, **kwargs) -> ShuffleNetV2:
    """ShuffleNetV2 with 1x widths: ``ShuffleNetV2(scale=1.0, **kwargs)`` (2,278,604
    parameters with 1000 classes)."""
    return _shufflenet_v2("shufflenet_v2_x1_0", pretrained, scale=1.0, **kwargs)


def shufflenet_v2_x1_5(pretrained: bool = False, **kwargs) -> ShuffleNetV2:
    """ShuffleNetV2 with 1.5x widths: ``ShuffleNetV2(scale=1.5, **kwargs)``."""
    return _shufflenet_v2("shufflenet_v2_x1_5", pretrained, scale=1.5, **kwargs)


def shufflenet_v2_x2_0(pretrained: bool = False, **kwargs) -> ShuffleNetV2:
    """ShuffleNetV2 with 2x widths: ``ShuffleNetV2(scale=2.0, **kwargs)``."""
    return _shufflenet_v2("shufflenet_v2_x2_0", pretrained, scale=2.0, **kwargs)


def shufflenet_v2_swish(pretrained: bool = False, **kwargs) -> ShuffleNetV2:
    """ShuffleNetV2 with 1x widths and swish activations: ``ShuffleNetV2(scale=1.0,
    act='swish', **kwargs)``."""
    return _shufflenet_v2("shufflenet_v2_swish", pretrained, scale=1.0, act="swish", **kwargs)


__all__ = ["ShuffleNetV2", "shufflenet_v2_swish", "shufflenet_v2_x0_25", "shufflenet_v2_x0_33",
           "shufflenet_v2_x0_5", "shufflenet_v2_x1_0", "shufflenet_v2_x1_5",
           "shufflenet_v2_x2_0"]
