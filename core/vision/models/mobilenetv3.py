"""MobileNetV3 (``paddle.vision.models.MobileNetV3Small`` / ``MobileNetV3Large``,
``mobilenet_v3_small`` / ``mobilenet_v3_large``), Howard et al. 2019.

Built as Paddle's (python/paddle/vision/models/mobilenetv3.py, Paddle 3), with its names:
``conv``, ``blocks.<i>`` (``expand_conv``, ``bottleneck_conv``, ``mid_se.fc1`` / ``fc2``,
``linear_conv``; each Conv-BN-act a Sequential), ``lastconv`` and ``classifier``; so keys
read ``conv.0.weight``, ``blocks.3.mid_se.fc1.bias``, ``blocks.0.linear_conv.1._variance``,
``classifier.3.weight``, ... Batch norms use epsilon 0.001 and momentum 0.99, as Paddle's.
"""
from __future__ import annotations

from functools import partial

from core import nn
from core.manipulation import flatten
from core.vision.models._checks import check_choice, check_int, check_scale, load_pretrained
from core.vision.models._layers import ConvNormActivation, make_divisible

ACTIVATIONS = {None: None, "relu": nn.ReLU, "hardswish": nn.Hardswish}
# (in, kernel, expanded, out, squeeze-excite, activation, stride) at scale 1, Paddle's tables
SMALL = [(16, 3, 16, 16, True, "relu", 2), (16, 3, 72, 24, False, "relu", 2),
         (24, 3, 88, 24, False, "relu", 1), (24, 5, 96, 40, True, "hardswish", 2),
         (40, 5, 240, 40, True, "hardswish", 1), (40, 5, 240, 40, True, "hardswish", 1),
         (40, 5, 120, 48, True, "hardswish", 1), (48, 5, 144, 48, True, "hardswish", 1),
         (48, 5, 288, 96, True, "hardswish", 2), (96, 5, 576, 96, True, "hardswish", 1),
         (96, 5, 576, 96, True, "hardswish", 1)]
LARGE = [(16, 3, 16, 16, False, "relu", 1), (16, 3, 64, 24, False, "relu", 2),
         (24, 3, 72, 24, False, "relu", 1), (24, 5, 72, 40, True, "relu", 2),
         (40, 5, 120, 40, True, "relu", 1), (40, 5, 120, 40, True, "relu", 1),
         (40, 3, 240, 80, False, "hardswish", 2), (80, 3, 200, 80, False, "hardswish", 1),
         (80, 3, 184, 80, False, "hardswish", 1), (80, 3, 184, 80, False, "hardswish", 1),
         (80, 3, 480, 112, True, "hardswish", 1), (112, 3, 672, 112, True, "hardswish", 1),
         (112, 5, 672, 160, True, "hardswish", 2), (160, 5, 960, 160, True, "hardswish", 1),
         (160, 5, 960, 160, True, "hardswish", 1)]


class SqueezeExcitation(nn.Layer):
    """``x * scale_activation(fc2(activation(fc1(avgpool(x)))))``, ``fc1`` / ``fc2`` being 1x1
    convolutions with bias to ``squeeze_channels`` and back: Paddle's
    ``SqueezeExcitation(input_channels, squeeze_channels, activation=ReLU,
    scale_activation=Sigmoid)``."""

    def __init__(self, input_channels: int, squeeze_channels: int, activation=nn.ReLU,
                 scale_activation=nn.Sigmoid):
        super().__init__()
        self.avgpool = nn.AdaptiveAvgPool2D(1)
        self.fc1 = nn.Conv2D(input_channels, squeeze_channels, 1)
        self.fc2 = nn.Conv2D(squeeze_channels, input_channels, 1)
        self.activation = activation()
        self.scale_activation = scale_activation()

    def forward(self, input):
        scale = self.fc2(self.activation(self.fc1(self.avgpool(input))))
        return self.scale_activation(scale) * input


class InvertedResidualConfig:
    """One row of a MobileNetV3 table, channels scaled by ``scale`` and made divisible by 8:
    Paddle's ``InvertedResidualConfig(in_channels, kernel, expanded_channels, out_channels,
    use_se, activation, stride, scale=1.0)``; ``activation`` is 'relu', 'hardswish' or None."""

    def __init__(self, in_channels: int, kernel: int, expanded_channels: int, out_channels: int,
                 use_se: bool, activation: str | None, stride: int, scale: float = 1.0):
        check_choice("InvertedResidualConfig", "activation", activation, ACTIVATIONS)
        self.in_channels = self.adjust_channels(in_channels, scale=scale)
        self.kernel = kernel
        self.expanded_channels = self.adjust_channels(expanded_channels, scale=scale)
        self.out_channels = self.adjust_channels(out_channels, scale=scale)
        self.use_se = use_se
        self.activation_layer = ACTIVATIONS[activation]
        self.stride = stride

    @staticmethod
    def adjust_channels(channels: int, scale: float = 1.0) -> int:
        return make_divisible(channels * scale, 8)


class InvertedResidual(nn.Layer):
    """1x1 expansion (only where ``expanded_channels`` differs from ``in_channels``), a
    ``filter_size`` depthwise convolution (``stride``), an optional squeeze-excitation (hard
    sigmoid gate, ``make_divisible(expanded // 4)`` squeezed channels), a linear 1x1
    projection; ``x`` is added back at stride 1 when the channels agree. Paddle's
    ``InvertedResidual(in_channels, expanded_channels, out_channels, filter_size, stride,
    use_se, activation_layer, norm_layer)``."""

    def __init__(self, in_channels: int, expanded_channels: int, out_channels: int,
                 filter_size: int, stride: int, use_se: bool, activation_layer, norm_layer):
        super().__init__()
        self.use_res_connect = stride == 1 and in_channels == out_channels
        self.use_se = use_se
        self.expand = in_channels != expanded_channels
        if self.expand:
            self.expand_conv = ConvNormActivation(
                in_channels, expanded_channels, kernel_size=1, stride=1, padding=0,
                norm_layer=norm_layer, activation_layer=activation_layer)
        self.bottleneck_conv = ConvNormActivation(
            expanded_channels, expanded_channels, kernel_size=filter_size, stride=stride,
            padding=(filter_size - 1) // 2, groups=expanded_channels, norm_layer=norm_layer,
            activation_layer=activation_layer)
        if self.use_se:
            self.mid_se = SqueezeExcitation(expanded_channels,
                                            make_divisible(expanded_channels // 4),
                                            scale_activation=nn.Hardsigmoid)
        self.linear_conv = ConvNormActivation(
            expanded_channels, out_channels, kernel_size=1, stride=1, padding=0,
            norm_layer=norm_layer, activation_layer=None)

    def forward(self, x):
        identity = x
        if self.expand:
            x = self.expand_conv(x)
        x = self.bottleneck_conv(x)
        if self.use_se:
            x = self.mid_se(x)
        x = self.linear_conv(x)
        return identity + x if self.use_res_connect else x


class MobileNetV3(nn.Layer):
    """MobileNetV3 from a list of ``InvertedResidualConfig``, Paddle's ``MobileNetV3(config,
    last_channel, scale=1.0, num_classes=1000, with_pool=True)``.

    A 3x3 stride-2 Conv-BN-Hardswish, the ``config`` blocks, a 1x1 Conv-BN-Hardswish to six
    times the last block's *input* channels (as Paddle), adaptive average pooling to 1x1
    (``with_pool``) and ``classifier``: Linear(to ``last_channel``) -> Hardswish ->
    Dropout(0.2) -> Linear(to ``num_classes``), left out when ``num_classes <= 0``.
    """

    def __init__(self, config: list, last_channel: int, scale: float = 1.0,
                 num_classes: int = 1000, with_pool: bool = True):
        super().__init__()
        if not config or not all(isinstance(c, InvertedResidualConfig) for c in config):
            raise ValueError(f"MobileNetV3: config={config!r} must be a non-empty list of "
                             "InvertedResidualConfig.")
        self.config = config
        self.scale = check_scale("MobileNetV3", scale)
        self.last_channel = check_int("MobileNetV3", "last_channel", last_channel, 1)
        self.num_classes = check_int("MobileNetV3", "num_classes", num_classes)
        self.with_pool = bool(with_pool)
        self.firstconv_in_channels = config[0].in_channels
        self.lastconv_in_channels = config[-1].in_channels
        self.lastconv_out_channels = self.lastconv_in_channels * 6
        norm_layer = partial(nn.BatchNorm2D, epsilon=0.001, momentum=0.99)
        self.conv = ConvNormActivation(3, self.firstconv_in_channels, kernel_size=3, stride=2,
                                       padding=1, groups=1, activation_layer=nn.Hardswish,
                                       norm_layer=norm_layer)
        self.blocks = nn.Sequential(*[InvertedResidual(
            c.in_channels, c.expanded_channels, c.out_channels, c.kernel, c.stride, c.use_se,
            c.activation_layer, norm_layer) for c in config])
        self.lastconv = ConvNormActivation(
            self.lastconv_in_channels, self.lastconv_out_channels, kernel_size=1, stride=1,
            padding=0, groups=1, norm_layer=norm_layer, activation_layer=nn.Hardswish)
        if self.with_pool:
            self.avgpool = nn.AdaptiveAvgPool2D(1)
        if self.num_classes > 0:
            self.classifier = nn.Sequential(
                nn.Linear(self.lastconv_out_channels, self.last_channel), nn.Hardswish(),
                nn.Dropout(p=0.2), nn.Linear(self.last_channel, self.num_classes))

    def forward(self, x):
        x = self.lastconv(self.blocks(self.conv(x)))
        if self.with_pool:
            x = self.avgpool(x)
        if self.num_classes > 0:
            x = self.classifier(flatten(x, 1))
        return x


class MobileNetV3Small(MobileNetV3):
    """MobileNetV3-Small (the ``SMALL`` table, ``last_channel = make_divisible(1024 *
    scale)``), Paddle's ``MobileNetV3Small(scale=1.0, num_classes=1000, with_pool=True)``."""

    def __init__(self, scale: float = 1.0, num_classes: int = 1000, with_pool: bool = True):
        scale = check_scale("MobileNetV3Small", scale)
        super().__init__([InvertedResidualConfig(*row, scale) for row in SMALL],
                         last_channel=make_divisible(1024 * scale, 8), scale=scale,
                         num_classes=num_classes, with_pool=with_pool)


class MobileNetV3Large(MobileNetV3):
    """MobileNetV3-Large (the ``LARGE`` table, ``last_channel = make_divisible(1280 *
    scale)``), Paddle's ``MobileNetV3Large(scale=1.0, num_classes=1000, with_pool=True)``."""

    def __init__(self, scale: float = 1.0, num_classes: int = 1000, with_pool: bool = True):
        scale = check_scale("MobileNetV3Large", scale)
        super().__init__([InvertedResidualConfig(*row, scale) for row in LARGE],
                         last_channel=make_divisible(1280 * scale, 8), scale=scale,
                         num_classes=num_classes, with_pool=with_pool)


def mobilenet_v3_small(pretrained: bool = False, scale: float = 1.0,
                       **kwargs) -> MobileNetV3Small:
    """MobileNetV3-Small: ``MobileNetV3Small(scale=scale, **kwargs)`` (2,542,856 parameters
    at scale 1 with 1000 classes). ``pretrained=True`` loads Paddle's ImageNet weights
    (scale 1.0 only, as Paddle publishes)."""
    model = MobileNetV3Small(scale=scale, **kwargs)
    return load_pretrained(f"mobilenet_v3_small_x{model.scale}", pretrained, model)


def mobilenet_v3_large(pretrained: bool = False, scale: float = 1.0,
                       **kwargs) -> MobileNetV3Large:
    """MobileNetV3-Large: ``MobileNetV3Large(scale=scale, **kwargs)`` (5,483,032 parameters
    at scale 1 with 1000 classes). ``pretrained=True`` loads Paddle's ImageNet weights
    (scale 1.0 only, as Paddle publishes)."""
    model = MobileNetV3Large(scale=scale, **kwargs)
    return load_pretrained(f"mobilenet_v3_large_x{model.scale}", pretrained, model)


__all__ = ["MobileNetV3Large", "MobileNetV3Small", "mobilenet_v3_large", "mobilenet_v3_small"]
