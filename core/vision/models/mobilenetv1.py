"""MobileNetV1 (``paddle.vision.models.MobileNetV1``, ``mobilenet_v1``), Howard et al. 2017.

Built as Paddle's (python/paddle/vision/models/mobilenetv1.py): ``conv1`` and the thirteen
depthwise-separable blocks ``conv2_1``, ``conv2_2``, ``conv3_1``, ``conv3_2``, ``conv4_1``,
``conv4_2``, ``conv5_1`` ... ``conv5_6`` and ``conv6``, each holding ``_depthwise_conv`` and
``_pointwise_conv`` Conv-BN-ReLU Sequentials, then ``fc``; so a Paddle state dict's keys
(``conv1.0.weight``, ``conv2_1._depthwise_conv.1._mean``, ``fc.weight``, ...) are this model's.
"""
from __future__ import annotations

from core import nn
from core.manipulation import flatten
from core.vision.models._checks import check_int, check_scale, load_pretrained
from core.vision.models._layers import ConvNormActivation

# (name, channels in = depthwise channels, pointwise channels out, depthwise stride), at scale 1
BLOCKS = [("conv2_1", 32, 64, 1), ("conv2_2", 64, 128, 2), ("conv3_1", 128, 128, 1),
          ("conv3_2", 128, 256, 2), ("conv4_1", 256, 256, 1), ("conv4_2", 256, 512, 2),
          *[(f"conv5_{i}", 512, 512, 1) for i in range(1, 6)], ("conv5_6", 512, 1024, 2),
          ("conv6", 1024, 1024, 1)]


class DepthwiseSeparable(nn.Layer):
    """A 3x3 depthwise Conv-BN-ReLU (``stride``) to ``int(out_channels1 * scale)`` channels in
    ``int(num_groups * scale)`` groups, then a 1x1 Conv-BN-ReLU to ``int(out_channels2 *
    scale)``: Paddle's ``DepthwiseSeparable(in_channels, out_channels1, out_channels2,
    num_groups, stride, scale)``."""

    def __init__(self, in_channels: int, out_channels1: int, out_channels2: int, num_groups: int,
                 stride: int, scale: float):
        super().__init__()
        self._depthwise_conv = ConvNormActivation(
            in_channels, int(out_channels1 * scale), kernel_size=3, stride=stride, padding=1,
            groups=int(num_groups * scale))
        self._pointwise_conv = ConvNormActivation(
            int(out_channels1 * scale), int(out_channels2 * scale), kernel_size=1, stride=1,
            padding=0)

    def forward(self, x):
        return self._pointwise_conv(self._depthwise_conv(x))


class MobileNetV1(nn.Layer):
    """MobileNetV1 for ``[N, 3, H, W]`` images, Paddle's ``MobileNetV1(scale=1.0,
    num_classes=1000, with_pool=True)``.

    A 3x3 stride-2 Conv-BN-ReLU to ``int(32 * scale)`` channels, the 13 depthwise-separable
    blocks of ``BLOCKS`` (channels times ``scale``, truncated; output stride 32), adaptive
    average pooling to 1x1 (``with_pool``) and ``fc``, a Linear from ``int(1024 * scale)`` to
    ``num_classes`` (none when ``num_classes <= 0``). ``scale`` must leave each layer at least
    one channel (``scale >= 1/32``).
    """

    def __init__(self, scale: float = 1.0, num_classes: int = 1000, with_pool: bool = True):
        super().__init__()
        self.scale = check_scale("MobileNetV1", scale)
        if int(32 * scale) < 1:
            raise ValueError(f"MobileNetV1: scale={scale!r} leaves conv1 with int(32 * scale) "
                             "= 0 channels; use scale >= 1/32.")
        self.num_classes = check_int("MobileNetV1", "num_classes", num_classes)
        self.with_pool = bool(with_pool)
        self.conv1 = ConvNormActivation(3, int(32 * scale), kernel_size=3, stride=2, padding=1)
        # a plain list, as Paddle's: the blocks are registered under their own names
        self.dwsl = [self.add_sublayer(name, DepthwiseSeparable(
            int(c_in * scale), c_in, c_out, c_in, stride, scale))
            for name, c_in, c_out, stride in BLOCKS]
        if self.with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if self.num_classes > 0:
            self.fc = nn.Linear(int(1024 * scale), self.num_classes)

    def forward(self, x):
        x = self.conv1(x)
        for dws in self.dwsl:
            x = dws(x)
        if self.with_pool:
            x = self.pool2d_avg(x)
        if self.num_classes > 0:
            x = self.fc(flatten(x, 1))
        return x


def mobilenet_v1(pretrained: bool = False, scale: float = 1.0, **kwargs) -> MobileNetV1:
    """MobileNetV1: ``MobileNetV1(scale=scale, **kwargs)`` (4,231,976 parameters at scale 1
    with 1000 classes). ``pretrained=True`` loads Paddle's ImageNet weights (scale 1.0 only,
    as Paddle publishes)."""
    model = MobileNetV1(scale=scale, **kwargs)
    return load_pretrained(f"mobilenetv1_{model.scale}", pretrained, model)


__all__ = ["MobileNetV1", "mobilenet_v1"]
