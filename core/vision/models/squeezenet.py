"""SqueezeNet (``paddle.vision.models.SqueezeNet``, ``squeezenet1_0``, ``squeezenet1_1``),
Iandola et al. 2016.

Built as Paddle's (python/paddle/vision/models/squeezenet.py), with its names: the stem
``_conv``, the fire modules ``_conv1`` ... ``_conv8`` (each ``_conv`` squeeze, ``_conv_path1``
1x1 and ``_conv_path2`` 3x3 expand, each holding its Conv2D as ``_conv``) and the classifier
convolution ``_conv9``: keys ``_conv.weight``, ``_conv1._conv_path2._conv.bias``,
``_conv9.weight``, ...
"""
from __future__ import annotations

from core import nn
from core.manipulation import concat, squeeze
from core.nn import functional as F
from core.vision.models._checks import check_choice, check_int, load_pretrained

VERSIONS = ("1.0", "1.1")
# (input, squeeze, expand 1x1, expand 3x3) channels of fire modules _conv1 ... _conv8
FIRES = [(None, 16, 64, 64), (128, 16, 64, 64), (128, 32, 128, 128), (256, 32, 128, 128),
         (256, 48, 192, 192), (384, 48, 192, 192), (384, 64, 256, 256), (512, 64, 256, 256)]
# after which fire modules (by number) the 3x3 stride-2 max pool runs, per version
POOL_AFTER = {"1.0": (3, 7), "1.1": (2, 4)}


class MakeFireConv(nn.Layer):
    """Conv2D (``padding``) then ReLU: Paddle's ``MakeFireConv(input_channels, output_channels,
    filter_size, padding=0)``."""

    def __init__(self, input_channels: int, output_channels: int, filter_size: int,
                 padding: int = 0):
        super().__init__()
        self._conv = nn.Conv2D(input_channels, output_channels, filter_size, padding=padding)

    def forward(self, x):
        return F.relu(self._conv(x))


class MakeFire(nn.Layer):
    """A fire module: a 1x1 squeeze to ``squeeze_channels``, then 1x1 and 3x3 expansions
    concatenated along the channels: Paddle's ``MakeFire(input_channels, squeeze_channels,
    expand1x1_channels, expand3x3_channels)``."""

    def __init__(self, input_channels: int, squeeze_channels: int, expand1x1_channels: int,
                 expand3x3_channels: int):
        super().__init__()
        self._conv = MakeFireConv(input_channels, squeeze_channels, 1)
        self._conv_path1 = MakeFireConv(squeeze_channels, expand1x1_channels, 1)
        self._conv_path2 = MakeFireConv(squeeze_channels, expand3x3_channels, 3, padding=1)

    def forward(self, inputs):
        x = self._conv(inputs)
        return concat([self._conv_path1(x), self._conv_path2(x)], axis=1)


class SqueezeNet(nn.Layer):
    """SqueezeNet for ``[N, 3, H, W]`` images, Paddle's ``SqueezeNet(version,
    num_classes=1000, with_pool=True)``; ``version`` '1.0' or '1.1'.

    Version 1.0: a 7x7 stride-2 convolution to 96 channels; 1.1: 3x3 stride-2 (padding 1) to
    64 (2.4x fewer operations, as many parameters). Then ReLU, 3x3 stride-2 max pools (no
    ceil mode, as Paddle) around eight fire modules, Dropout(0.5) and ``_conv9``, a 1x1
    convolution to ``num_classes`` (both left out when ``num_classes <= 0``); ``with_pool``
    then applies ReLU and global average pooling, giving ``[N, num_classes]`` (``[N, 512]``
    without a classifier); without it the output is the ``[N, C, h, w]`` map before the ReLU.
    """

    def __init__(self, version: str, num_classes: int = 1000, with_pool: bool = True):
        super().__init__()
        check_choice("SqueezeNet", "version", version, VERSIONS)
        self.version = version
        self.num_classes = check_int("SqueezeNet", "num_classes", num_classes)
        self.with_pool = bool(with_pool)
        if version == "1.0":
            self._conv = nn.Conv2D(3, 96, 7, stride=2)
        else:
            self._conv = nn.Conv2D(3, 64, 3, stride=2, padding=1)
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)
        stem = self._conv.weight.shape[0]
        for i, (c_in, *rest) in enumerate(FIRES, 1):
            self.add_sublayer(f"_conv{i}", MakeFire(stem if c_in is None else c_in, *rest))
        if self.num_classes > 0:
            # Paddle builds these whatever num_classes is (a 0-channel convolution for 0)
            self._drop = nn.Dropout(p=0.5, mode="downscale_in_infer")
            self._conv9 = nn.Conv2D(512, self.num_classes, 1)
        self._avg_pool = nn.AdaptiveAvgPool2D(1)

    def forward(self, inputs):
        x = self._pool(F.relu(self._conv(inputs)))
        for i in range(1, len(FIRES) + 1):
            x = getattr(self, f"_conv{i}")(x)
            if i in POOL_AFTER[self.version]:
                x = self._pool(x)
        if self.num_classes > 0:
            x = self._conv9(self._drop(x))
        if self.with_pool:
            x = squeeze(self._avg_pool(F.relu(x)), axis=[2, 3])
        return x


def _squeezenet(arch: str, version: str, pretrained, **kwargs) -> SqueezeNet:
    return load_pretrained(arch, pretrained, SqueezeNet(version, **kwargs))


def squeezenet1_0(pretrained: bool = False, **kwargs) -> SqueezeNet:
    """SqueezeNet 1.0: ``SqueezeNet('1.0', **kwargs)`` (1,248,424 parameters with 1000
    classes). ``pretrained=True`` loads Paddle's ImageNet weights."""
    return _squeezenet("squeezenet1_0", "1.0", pretrained, **kwargs)


def squeezenet1_1(pretrained: bool = False, **kwargs) -> SqueezeNet:
    """SqueezeNet 1.1: ``SqueezeNet('1.1', **kwargs)`` (1,235,496 parameters with 1000
    classes). ``pretrained=True`` loads Paddle's ImageNet weights."""
    return _squeezenet("squeezenet1_1", "1.1", pretrained, **kwargs)


__all__ = ["SqueezeNet", "squeezenet1_0", "squeezenet1_1"]
