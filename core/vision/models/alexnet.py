"""AlexNet (``paddle.vision.models.AlexNet``, ``alexnet``), Krizhevsky et al. 2012.

Built as Paddle's (python/paddle/vision/models/alexnet.py), with its names: ``_conv1``,
``_conv2`` and ``_conv5`` are convolution + max-pool blocks (``_conv1._conv.weight``),
``_conv3`` / ``_conv4`` plain convolutions, ``_fc6`` ... ``_fc8`` the classifier. Every weight
and bias starts uniform in ``[-1/sqrt(fan_in), 1/sqrt(fan_in)]``, as Paddle's.
"""
from __future__ import annotations

import math

from core import nn
from core.manipulation import flatten
from core.nn import functional as F
from core.nn.initializer import Uniform
from core.nn.param_attr import ParamAttr
from core.vision.models._checks import check_int, load_pretrained


def uniform_attrs(fan_in: int) -> dict:
    """``weight_attr`` and ``bias_attr`` drawing from U(-1/sqrt(fan_in), 1/sqrt(fan_in))."""
    stdv = 1.0 / math.sqrt(fan_in)
    return {"weight_attr": ParamAttr(initializer=Uniform(-stdv, stdv)),
            "bias_attr": ParamAttr(initializer=Uniform(-stdv, stdv))}


class ConvPoolLayer(nn.Layer):
    """Conv2D (with ``stdv``-uniform initial weights) -> ReLU (``act='relu'``) ->
    MaxPool2D(3, 2): Paddle's ``ConvPoolLayer(input_channels, output_channels, filter_size,
    stride, padding, stdv, groups=1, act=None)``."""

    def __init__(self, input_channels: int, output_channels: int, filter_size: int, stride: int,
                 padding: int, stdv: float, groups: int = 1, act: str | None = None):
        super().__init__()
        if act not in (None, "relu"):
            raise ValueError(f"ConvPoolLayer: act={act!r} must be None or 'relu'.")
        self.relu = nn.ReLU() if act == "relu" else None
        self._conv = nn.Conv2D(input_channels, output_channels, filter_size, stride=stride,
                               padding=padding, groups=groups,
                               weight_attr=ParamAttr(initializer=Uniform(-stdv, stdv)),
                               bias_attr=ParamAttr(initializer=Uniform(-stdv, stdv)))
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)

    def forward(self, inputs):
        x = self._conv(inputs)
        return self._pool(x if self.relu is None else self.relu(x))


class AlexNet(nn.Layer):
    """AlexNet for ``[N, 3, 224, 224]`` images, Paddle's ``AlexNet(num_classes=1000)``.

    Convolutions 11x11/4 (64), 5x5 (192), 3x3 (384, 256, 256), each with ReLU and max pools
    after the first, second and fifth, giving ``[N, 256, 6, 6]`` for a 224 x 224 image; then
    Dropout(0.5) -> Linear(9216, 4096) -> ReLU -> Dropout(0.5) -> Linear(4096, 4096) -> ReLU ->
    Linear(4096, num_classes). There is no adaptive pooling (as in Paddle), so the classifier
    needs inputs of 223 to 226 pixels a side; with ``num_classes <= 0`` there is no classifier
    and the output is the feature map, for any input of at least 63 pixels. The dropouts are
    Paddle's ``downscale_in_infer``: unscaled in training, times 0.5 in evaluation.
    """

    def __init__(self, num_classes: int = 1000):
        super().__init__()
        self.num_classes = check_int("AlexNet", "num_classes", num_classes)
        self._conv1 = ConvPoolLayer(3, 64, 11, 4, 2, 1.0 / math.sqrt(3 * 11 * 11), act="relu")
        self._conv2 = ConvPoolLayer(64, 192, 5, 1, 2, 1.0 / math.sqrt(64 * 5 * 5), act="relu")
        self._conv3 = nn.Conv2D(192, 384, 3, stride=1, padding=1, **uniform_attrs(192 * 9))
        self._conv4 = nn.Conv2D(384, 256, 3, stride=1, padding=1, **uniform_attrs(384 * 9))
        self._conv5 = ConvPoolLayer(256, 256, 3, 1, 1, 1.0 / math.sqrt(256 * 3 * 3), act="relu")
        if self.num_classes > 0:
            # Paddle initialises all three Linears with the first one's fan-in, 256 * 6 * 6
            self._drop1 = nn.Dropout(p=0.5, mode="downscale_in_infer")
            self._fc6 = nn.Linear(256 * 6 * 6, 4096, **uniform_attrs(256 * 6 * 6))
            self._drop2 = nn.Dropout(p=0.5, mode="downscale_in_infer")
            self._fc7 = nn.Linear(4096, 4096, **uniform_attrs(256 * 6 * 6))
            self._fc8 = nn.Linear(4096, self.num_classes, **uniform_attrs(256 * 6 * 6))

    def forward(self, inputs):
        x = self._conv2(self._conv1(inputs))
        x = F.relu(self._conv4(F.relu(self._conv3(x))))
        x = self._conv5(x)
        if self.num_classes > 0:
            x = F.relu(self._fc6(self._drop1(flatten(x, 1))))
            x = F.relu(self._fc7(self._drop2(x)))
            x = self._fc8(x)
        return x


def alexnet(pretrained: bool = False, **kwargs) -> AlexNet:
    """AlexNet: ``AlexNet(**kwargs)`` (61,100,840 parameters with 1000 classes).
    ``pretrained=True`` loads Paddle's ImageNet weights (downloaded once, md5-checked)."""
    return load_pretrained("alexnet", pretrained, AlexNet(**kwargs))


__all__ = ["AlexNet", "alexnet"]
