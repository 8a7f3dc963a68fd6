"""GoogLeNet (``paddle.vision.models.GoogLeNet``, ``googlenet``), Szegedy et al. 2014.

Built as Paddle's (python/paddle/vision/models/googlenet.py, Paddle 3), with its names and its
three outputs: the stem ``_conv``, ``_conv_1``, ``_conv_2``, the inception modules
``_ince3a`` ... ``_ince5b`` (``_conv1``, ``_conv3r``, ``_conv3``, ``_conv5r``, ``_conv5``,
``_convprj``, each holding a bias-free ``_conv``), the main head ``_fc_out`` and the two
auxiliary heads ``_conv_o1`` / ``_fc_o1`` / ``_out1`` and ``_conv_o2`` / ``_fc_o2`` /
``_out2``; so keys read ``_conv._conv.weight``, ``_ince4a._conv5r._conv.weight``,
``_fc_o1.bias``, ``_out2.weight``, ...

As in Paddle (and unlike the paper and torchvision) there is no batch norm, the stem
convolutions have no activation, and each inception module applies ReLU once, to its
concatenated output.
"""
from __future__ import annotations

from core import nn
from core.manipulation import concat, flatten, squeeze
from core.nn import functional as F
from core.nn.initializer import Uniform
from core.nn.param_attr import ParamAttr
from core.vision.models._checks import check_int, load_pretrained

# (input, 1x1, 3x3 reduce, 3x3, 5x5 reduce, 5x5, pool projection) of each inception module
INCEPTIONS = {"_ince3a": (192, 64, 96, 128, 16, 32, 32),
              "_ince3b": (256, 128, 128, 192, 32, 96, 64),
              "_ince4a": (480, 192, 96, 208, 16, 48, 64),
              "_ince4b": (512, 160, 112, 224, 24, 64, 64),
              "_ince4c": (512, 128, 128, 256, 24, 64, 64),
              "_ince4d": (512, 112, 144, 288, 32, 64, 64),
              "_ince4e": (528, 256, 160, 320, 32, 128, 128),
              "_ince5a": (832, 256, 160, 320, 32, 128, 128),
              "_ince5b": (832, 384, 192, 384, 48, 128, 128)}


def xavier(channels: int, filter_size: int) -> ParamAttr:
    """Paddle's initial weights for the heads: U(-s, s), s = sqrt(3 / (filter_size**2 *
    channels))."""
    stdv = (3.0 / (filter_size**2 * channels)) ** 0.5
    return ParamAttr(initializer=Uniform(-stdv, stdv))


class ConvLayer(nn.Layer):
    """A bias-free Conv2D with 'same' padding (``(filter_size - 1) // 2``) and nothing else:
    Paddle's ``ConvLayer(num_channels, num_filters, filter_size, stride=1, groups=1)``."""

    def __init__(self, num_channels: int, num_filters: int, filter_size: int, stride: int = 1,
                 groups: int = 1):
        super().__init__()
        self._conv = nn.Conv2D(num_channels, num_filters, filter_size, stride=stride,
                               padding=(filter_size - 1) // 2, groups=groups, bias_attr=False)

    def forward(self, inputs):
        return self._conv(inputs)


class Inception(nn.Layer):
    """Four branches, 1x1; 1x1 -> 3x3; 1x1 -> 5x5; 3x3 max pool -> 1x1, concatenated along the
    channels and passed through ReLU: Paddle's ``Inception(input_channels, output_channels,
    filter1, filter3R, filter3, filter5R, filter5, proj)`` (``output_channels`` is unused, as
    there)."""

    def __init__(self, input_channels: int, output_channels: int, filter1: int, filter3R: int,
                 filter3: int, filter5R: int, filter5: int, proj: int):
        super().__init__()
        self._conv1 = ConvLayer(input_channels, filter1, 1)
        self._conv3r = ConvLayer(input_channels, filter3R, 1)
        self._conv3 = ConvLayer(filter3R, filter3, 3)
        self._conv5r = ConvLayer(input_channels, filter5R, 1)
        self._conv5 = ConvLayer(filter5R, filter5, 5)
        self._pool = nn.MaxPool2D(kernel_size=3, stride=1, padding=1)
        self._convprj = ConvLayer(input_channels, proj, 1)

    def forward(self, inputs):
        branches = [self._conv1(inputs), self._conv3(self._conv3r(inputs)),
                    self._conv5(self._conv5r(inputs)), self._convprj(self._pool(inputs))]
        return F.relu(concat(branches, axis=1))


class GoogLeNet(nn.Layer):
    """GoogLeNet (Inception v1) for ``[N, 3, H, W]`` images, Paddle's ``GoogLeNet(
    num_classes=1000, with_pool=True)``. ``forward`` returns a tuple ``(out, out1, out2)``
    (as Paddle 3.3.1):
    the main head's output and the auxiliary heads' (fed by ``_ince4a`` and ``_ince4d``).

    With ``num_classes > 0``: ``out`` is adaptive average pooling -> Dropout(0.4) -> Linear(1024,
    num_classes); ``out1`` 5x5/3 average pooling -> 1x1 conv to 128 -> Linear(1152, 1024) ->
    ReLU -> Dropout(0.7) -> Linear(1024, num_classes), and ``out2`` the same without the ReLU
    (as Paddle). The auxiliary Linears take 128 x 3 x 3 inputs, the pooled 13 x 13 maps of a
    224 x 224 image, so with a classifier (and ``with_pool``) the images must have 189 to 236
    pixels a side, as in Paddle. With ``num_classes <= 0`` the three outputs are the pooled
    (``with_pool``) feature maps of ``_ince5b``, ``_ince4a`` and ``_ince4d``.
    """

    def __init__(self, num_classes: int = 1000, with_pool: bool = True):
        super().__init__()
        self.num_classes = check_int("GoogLeNet", "num_classes", num_classes)
        self.with_pool = bool(with_pool)
        self._conv = ConvLayer(3, 64, 7, 2)
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2)
        self._conv_1 = ConvLayer(64, 64, 1)
        self._conv_2 = ConvLayer(64, 192, 3)
        for name, (c_in, *filters) in INCEPTIONS.items():
            self.add_sublayer(name, Inception(c_in, c_in, *filters))
        if self.with_pool:
            self._pool_5 = nn.AdaptiveAvgPool2D(1)
            self._pool_o1 = nn.AvgPool2D(kernel_size=5, stride=3)
            self._pool_o2 = nn.AvgPool2D(kernel_size=5, stride=3)
        if self.num_classes > 0:
            self._build_heads(self.num_classes)

    def _build_heads(self, num_classes: int) -> None:
        self._drop = nn.Dropout(p=0.4, mode="downscale_in_infer")
        self._fc_out = nn.Linear(1024, num_classes, weight_attr=xavier(1024, 1))
        for i, c_in in ((1, 512), (2, 528)):
            self.add_sublayer(f"_conv_o{i}", ConvLayer(c_in, 128, 1))
            self.add_sublayer(f"_fc_o{i}", nn.Linear(1152, 1024, weight_attr=xavier(2048, 1)))
            self.add_sublayer(f"_drop_o{i}", nn.Dropout(p=0.7, mode="downscale_in_infer"))
            self.add_sublayer(f"_out{i}", nn.Linear(1024, num_classes,
                                                    weight_attr=xavier(1024, 1)))

    def forward(self, inputs):
        x = self._pool(self._conv(inputs))
        x = self._pool(self._conv_2(self._conv_1(x)))
        x = self._pool(self._ince3b(self._ince3a(x)))
        ince4a = self._ince4a(x)
        ince4d = self._ince4d(self._ince4c(self._ince4b(ince4a)))
        x = self._pool(self._ince4e(ince4d))
        out, out1, out2 = self._ince5b(self._ince5a(x)), ince4a, ince4d
        if self.with_pool:
            out, out1, out2 = self._pool_5(out), self._pool_o1(out1), self._pool_o2(out2)
        if self.num_classes > 0:
            out = self._fc_out(squeeze(self._drop(out), axis=[2, 3]))
            out1 = self._fc_o1(flatten(self._conv_o1(out1), 1))
            out1 = self._out1(self._drop_o1(F.relu(out1)))
            out2 = self._fc_o2(flatten(self._conv_o2(out2), 1))
            out2 = self._out2(self._drop_o2(out2))
        return out, out1, out2


def googlenet(pretrained: bool = False, **kwargs) -> GoogLeNet:
    """GoogLeNet: ``GoogLeNet(**kwargs)`` (returns ``(out, out1, out2)``).
    ``pretrained=True`` loads Paddle's ImageNet weights (downloaded once, md5-checked)."""
    return load_pretrained("googlenet", pretrained, GoogLeNet(**kwargs))


__all__ = ["GoogLeNet", "googlenet"]
