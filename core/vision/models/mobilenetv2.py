"""MobileNetV2 (``paddle.vision.models.MobileNetV2``, ``mobilenet_v2``), Sandler et al. 2018.

Built as Paddle's (python/paddle/vision/models/mobilenetv2.py): ``features`` is a Sequential
whose first and last entries are Conv-BN-ReLU6 triples and whose other entries are inverted
residual blocks with a Sequential ``conv``, so a Paddle state dict's keys
(``features.0.0.weight``, ``features.1.conv.0.0.weight``, ``features.2.conv.3._mean``,
``classifier.1.weight``, ...) are this model's keys.
"""
from __future__ import annotations

from core import nn
from core.manipulation import flatten
from core.vision.models._checks import check_int, check_scale, load_pretrained
from core.vision.models._layers import ConvNormActivation, make_divisible

# (expansion t, output channels c, repeats n, first stride s) of the paper's Table 2
INVERTED_RESIDUAL_SETTING = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                             (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]


class InvertedResidual(nn.Layer):
    """1x1 expansion to ``round(inp * expand_ratio)`` channels (left out when the ratio is 1),
    a 3x3 depthwise convolution with ``stride``, both with BN and ReLU6, then a linear 1x1
    projection to ``oup`` with BN; ``x`` is added back when the stride is 1 and ``inp ==
    oup``. Paddle's ``InvertedResidual(inp, oup, stride, expand_ratio, norm_layer)``."""

    def __init__(self, inp: int, oup: int, stride: int, expand_ratio, norm_layer=nn.BatchNorm2D):
        super().__init__()
        if stride not in (1, 2) or isinstance(stride, bool):
            raise ValueError(f"InvertedResidual: stride={stride!r} must be 1 or 2.")
        self.stride = stride
        hidden_dim = int(round(inp * expand_ratio))
        self.use_res_connect = stride == 1 and inp == oup
        layers = []
        if expand_ratio != 1:
            layers.append(ConvNormActivation(inp, hidden_dim, kernel_size=1,
                                             norm_layer=norm_layer, activation_layer=nn.ReLU6))
        layers += [ConvNormActivation(hidden_dim, hidden_dim, stride=stride, groups=hidden_dim,
                                      norm_layer=norm_layer, activation_layer=nn.ReLU6),
                   nn.Conv2D(hidden_dim, oup, 1, 1, 0, bias_attr=False),
                   norm_layer(oup)]
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        return x + self.conv(x) if self.use_res_connect else self.conv(x)


class MobileNetV2(nn.Layer):
    """MobileNetV2 for ``[N, 3, H, W]`` images, Paddle's ``MobileNetV2(scale=1.0,
    num_classes=1000, with_pool=True)``.

    A 3x3 stride-2 Conv-BN-ReLU6 to ``make_divisible(32 * scale)`` channels, the 17 inverted
    residual blocks of ``INVERTED_RESIDUAL_SETTING`` (channels ``make_divisible(c * scale)``),
    a 1x1 Conv-BN-ReLU6 to ``last_channel = make_divisible(1280 * max(1, scale))`` (output
    stride 32), adaptive average pooling to 1x1 (``with_pool``) and ``classifier``:
    Dropout(0.2) -> Linear(last_channel, num_classes), left out when ``num_classes <= 0``.
    """

    def __init__(self, scale: float = 1.0, num_classes: int = 1000, with_pool: bool = True):
        super().__init__()
        self.scale = check_scale("MobileNetV2", scale)
        self.num_classes = check_int("MobileNetV2", "num_classes", num_classes)
        self.with_pool = bool(with_pool)
        input_channel = make_divisible(32 * scale, 8)
        self.last_channel = make_divisible(1280 * max(1.0, scale), 8)
        features = [ConvNormActivation(3, input_channel, stride=2, activation_layer=nn.ReLU6)]
        for t, c, n, s in INVERTED_RESIDUAL_SETTING:
            output_channel = make_divisible(c * scale, 8)
            for i in range(n):
                features.append(InvertedResidual(input_channel, output_channel,
                                                 s if i == 0 else 1, expand_ratio=t))
                input_channel = output_channel
        features.append(ConvNormActivation(input_channel, self.last_channel, kernel_size=1,
                                           activation_layer=nn.ReLU6))
        self.features = nn.Sequential(*features)
        if self.with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if self.num_classes > 0:
            self.classifier = nn.Sequential(nn.Dropout(0.2),
                                            nn.Linear(self.last_channel, self.num_classes))

    def forward(self, x):
        x = self.features(x)
        if self.with_pool:
            x = self.pool2d_avg(x)
        if self.num_classes > 0:
            x = self.classifier(flatten(x, 1))
        return x


def mobilenet_v2(pretrained: bool = False, scale: float = 1.0, **kwargs) -> MobileNetV2:
    """MobileNetV2: ``MobileNetV2(scale=scale, **kwargs)`` (3,504,872 parameters at scale 1
    with 1000 classes). ``pretrained=True`` loads Paddle's ImageNet weights (scale 1.0 only,
    as Paddle publishes)."""
    model = MobileNetV2(scale=scale, **kwargs)
    return load_pretrained(f"mobilenetv2_{model.scale}", pretrained, model)


__all__ = ["MobileNetV2", "mobilenet_v2"]
