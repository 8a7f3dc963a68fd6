"""InceptionV3 (``paddle.vision.models.InceptionV3``, ``inception_v3``), Szegedy et al. 2015.

Built as Paddle's (python/paddle/vision/models/inceptionv3.py), with its names: the stem
``inception_stem`` (``conv_1a_3x3`` ... ``conv_4a_3x3``), then the eleven blocks in the
LayerList ``inception_block_list`` (three A, one B, four C, one D, two E), each branch a
Conv-BN-ReLU Sequential, and ``fc``; so keys read ``inception_stem.conv_1a_3x3.0.weight``,
``inception_block_list.0.branch5x5_2.1._mean``, ``inception_block_list.10.branch_pool_conv
.0.weight``, ``fc.weight``, ... There is no auxiliary classifier (Paddle has none).
"""
from __future__ import annotations

import math

from core import nn
from core.manipulation import concat, reshape
from core.nn.initializer import Uniform
from core.nn.param_attr import ParamAttr
from core.vision.models._checks import check_int, load_pretrained
from core.vision.models._layers import ConvNormActivation


def _cbr(c_in: int, c_out: int, kernel_size=1, stride=1, padding=0) -> ConvNormActivation:
    """Conv (no bias) -> BatchNorm2D -> ReLU, the only convolution the network uses."""
    return ConvNormActivation(c_in, c_out, kernel_size=kernel_size, stride=stride,
                              padding=padding, activation_layer=nn.ReLU)


def _avg_pool_3x3() -> nn.AvgPool2D:
    # the padded cells count in the mean (exclusive=False), as in Paddle's model
    return nn.AvgPool2D(kernel_size=3, stride=1, padding=1, exclusive=False)


class InceptionStem(nn.Layer):
    """3x3/2, 3x3, 3x3 (padded) convolutions, a 3x3/2 max pool, 1x1 and 3x3 convolutions and
    another 3x3/2 max pool: ``[N, 3, 299, 299]`` to ``[N, 192, 35, 35]``."""

    def __init__(self):
        super().__init__()
        self.conv_1a_3x3 = _cbr(3, 32, 3, stride=2)
        self.conv_2a_3x3 = _cbr(32, 32, 3)
        self.conv_2b_3x3 = _cbr(32, 64, 3, padding=1)
        self.max_pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)
        self.conv_3b_1x1 = _cbr(64, 80, 1)
        self.conv_4a_3x3 = _cbr(80, 192, 3)

    def forward(self, x):
        x = self.conv_2b_3x3(self.conv_2a_3x3(self.conv_1a_3x3(x)))
        x = self.conv_4a_3x3(self.conv_3b_1x1(self.max_pool(x)))
        return self.max_pool(x)


class InceptionA(nn.Layer):
    """1x1 (64); 1x1 -> 5x5 (64); 1x1 -> 3x3 -> 3x3 (96); 3x3 average pool -> 1x1
    (``pool_features``), concatenated: ``224 + pool_features`` channels out."""

    def __init__(self, num_channels: int, pool_features: int):
        super().__init__()
        self.branch1x1 = _cbr(num_channels, 64)
        self.branch5x5_1 = _cbr(num_channels, 48)
        self.branch5x5_2 = _cbr(48, 64, 5, padding=2)
        self.branch3x3dbl_1 = _cbr(num_channels, 64)
        self.branch3x3dbl_2 = _cbr(64, 96, 3, padding=1)
        self.branch3x3dbl_3 = _cbr(96, 96, 3, padding=1)
        self.branch_pool = _avg_pool_3x3()
        self.branch_pool_conv = _cbr(num_channels, pool_features)

    def forward(self, x):
        return concat([self.branch1x1(x), self.branch5x5_2(self.branch5x5_1(x)),
                       self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x))),
                       self.branch_pool_conv(self.branch_pool(x))], axis=1)


class InceptionB(nn.Layer):
    """Grid reduction: 3x3/2 (384); 1x1 -> 3x3 -> 3x3/2 (96); 3x3/2 max pool; concatenated."""

    def __init__(self, num_channels: int):
        super().__init__()
        self.branch3x3 = _cbr(num_channels, 384, 3, stride=2)
        self.branch3x3dbl_1 = _cbr(num_channels, 64)
        self.branch3x3dbl_2 = _cbr(64, 96, 3, padding=1)
        self.branch3x3dbl_3 = _cbr(96, 96, 3, stride=2)
        self.branch_pool = nn.MaxPool2D(kernel_size=3, stride=2)

    def forward(self, x):
        return concat([self.branch3x3(x),
                       self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x))),
                       self.branch_pool(x)], axis=1)


class InceptionC(nn.Layer):
    """Factorised 7x7: 1x1 (192); 1x1 -> 1x7 -> 7x1 (192); 1x1 -> 7x1 -> 1x7 -> 7x1 -> 1x7
    (192); 3x3 average pool -> 1x1 (192); ``channels_7x7`` inside the 7-wide branches."""

    def __init__(self, num_channels: int, channels_7x7: int):
        super().__init__()
        c7 = channels_7x7
        self.branch1x1 = _cbr(num_channels, 192)
        self.branch7x7_1 = _cbr(num_channels, c7)
        self.branch7x7_2 = _cbr(c7, c7, (1, 7), padding=(0, 3))
        self.branch7x7_3 = _cbr(c7, 192, (7, 1), padding=(3, 0))
        self.branch7x7dbl_1 = _cbr(num_channels, c7)
        self.branch7x7dbl_2 = _cbr(c7, c7, (7, 1), padding=(3, 0))
        self.branch7x7dbl_3 = _cbr(c7, c7, (1, 7), padding=(0, 3))
        self.branch7x7dbl_4 = _cbr(c7, c7, (7, 1), padding=(3, 0))
        self.branch7x7dbl_5 = _cbr(c7, 192, (1, 7), padding=(0, 3))
        self.branch_pool = _avg_pool_3x3()
        self.branch_pool_conv = _cbr(num_channels, 192)

    def forward(self, x):
        b7 = self.branch7x7_3(self.branch7x7_2(self.branch7x7_1(x)))
        bd = self.branch7x7dbl_1(x)
        for conv in (self.branch7x7dbl_2, self.branch7x7dbl_3, self.branch7x7dbl_4,
                     self.branch7x7dbl_5):
            bd = conv(bd)
        return concat([self.branch1x1(x), b7, bd, self.branch_pool_conv(self.branch_pool(x))],
                      axis=1)


class InceptionD(nn.Layer):
    """Grid reduction: 1x1 -> 3x3/2 (320); 1x1 -> 1x7 -> 7x1 -> 3x3/2 (192); 3x3/2 max
    pool; concatenated."""

    def __init__(self, num_channels: int):
        super().__init__()
        self.branch3x3_1 = _cbr(num_channels, 192)
        self.branch3x3_2 = _cbr(192, 320, 3, stride=2)
        self.branch7x7x3_1 = _cbr(num_channels, 192)
        self.branch7x7x3_2 = _cbr(192, 192, (1, 7), padding=(0, 3))
        self.branch7x7x3_3 = _cbr(192, 192, (7, 1), padding=(3, 0))
        self.branch7x7x3_4 = _cbr(192, 192, 3, stride=2)
        self.branch_pool = nn.MaxPool2D(kernel_size=3, stride=2)

    def forward(self, x):
        b7 = self.branch7x7x3_1(x)
        for conv in (self.branch7x7x3_2, self.branch7x7x3_3, self.branch7x7x3_4):
            b7 = conv(b7)
        return concat([self.branch3x3_2(self.branch3x3_1(x)), b7, self.branch_pool(x)], axis=1)


class InceptionE(nn.Layer):
    """Expanded filter bank: 1x1 (320); 1x1 -> [1x3, 3x1] (2 x 384); 1x1 -> 3x3 -> [1x3,
    3x1] (2 x 384); 3x3 average pool -> 1x1 (192): 2048 channels out."""

    def __init__(self, num_channels: int):
        super().__init__()
        self.branch1x1 = _cbr(num_channels, 320)
        self.branch3x3_1 = _cbr(num_channels, 384)
        self.branch3x3_2a = _cbr(384, 384, (1, 3), padding=(0, 1))
        self.branch3x3_2b = _cbr(384, 384, (3, 1), padding=(1, 0))
        self.branch3x3dbl_1 = _cbr(num_channels, 448)
        self.branch3x3dbl_2 = _cbr(448, 384, 3, padding=1)
        self.branch3x3dbl_3a = _cbr(384, 384, (1, 3), padding=(0, 1))
        self.branch3x3dbl_3b = _cbr(384, 384, (3, 1), padding=(1, 0))
        self.branch_pool = _avg_pool_3x3()
        self.branch_pool_conv = _cbr(num_channels, 192)

    def forward(self, x):
        b3 = self.branch3x3_1(x)
        bd = self.branch3x3dbl_2(self.branch3x3dbl_1(x))
        return concat([self.branch1x1(x), self.branch3x3_2a(b3), self.branch3x3_2b(b3),
                       self.branch3x3dbl_3a(bd), self.branch3x3dbl_3b(bd),
                       self.branch_pool_conv(self.branch_pool(x))], axis=1)


class InceptionV3(nn.Layer):
    """InceptionV3 for ``[N, 3, 299, 299]`` images (any side of at least 75 pixels), Paddle's
    ``InceptionV3(num_classes=1000, with_pool=True)``.

    The stem, three InceptionA (pool features 32, 64, 64), InceptionB, four InceptionC (7x7
    channels 128, 160, 160, 192), InceptionD and two InceptionE (``layers_config``, Paddle's
    table), adaptive average pooling to 1x1 (``with_pool``), then Dropout(0.2) and ``fc``, a
    Linear(2048, num_classes) (both left out when ``num_classes <= 0``).
    """

    def __init__(self, num_classes: int = 1000, with_pool: bool = True):
        super().__init__()
        self.num_classes = check_int("InceptionV3", "num_classes", num_classes)
        self.with_pool = bool(with_pool)
        self.layers_config = {"inception_a": [[192, 256, 288], [32, 64, 64]],
                              "inception_b": [288],
                              "inception_c": [[768, 768, 768, 768], [128, 160, 160, 192]],
                              "inception_d": [768],
                              "inception_e": [1280, 2048]}
        cfg = self.layers_config
        self.inception_stem = InceptionStem()
        self.inception_block_list = nn.LayerList(
            [InceptionA(c, p) for c, p in zip(*cfg["inception_a"])]
            + [InceptionB(c) for c in cfg["inception_b"]]
            + [InceptionC(c, c7) for c, c7 in zip(*cfg["inception_c"])]
            + [InceptionD(c) for c in cfg["inception_d"]]
            + [InceptionE(c) for c in cfg["inception_e"]])
        if self.with_pool:
            self.avg_pool = nn.AdaptiveAvgPool2D(1)
        if self.num_classes > 0:
            self.dropout = nn.Dropout(p=0.2, mode="downscale_in_infer")
            stdv = 1.0 / math.sqrt(2048.0)
            self.fc = nn.Linear(2048, self.num_classes,
                                weight_attr=ParamAttr(initializer=Uniform(-stdv, stdv)))

    def forward(self, x):
        x = self.inception_stem(x)
        for block in self.inception_block_list:
            x = block(x)
        if self.with_pool:
            x = self.avg_pool(x)
        if self.num_classes > 0:
            x = self.fc(self.dropout(reshape(x, [-1, 2048])))
        return x


def inception_v3(pretrained: bool = False, **kwargs) -> InceptionV3:
    """InceptionV3: ``InceptionV3(**kwargs)`` (23,834,568 parameters with 1000 classes).
    ``pretrained=True`` loads Paddle's ImageNet weights (downloaded once, md5-checked)."""
    return load_pretrained("inception_v3", pretrained, InceptionV3(**kwargs))


__all__ = ["InceptionV3", "inception_v3"]
