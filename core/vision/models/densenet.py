"""DenseNet (``paddle.vision.models.DenseNet``, ``densenet121`` ... ``densenet264``), Huang et
al. 2017.

Built as Paddle's (python/paddle/vision/models/densenet.py, Paddle 3), with its names: the
stem ``conv1_func`` (``_conv``, ``_batch_norm``), dense blocks ``db_conv_2`` ... ``db_conv_5``
whose layers are ``conv2_1``, ``conv2_2``, ... (each ``bn_ac_func1`` / ``bn_ac_func2``: a
``_batch_norm`` with ReLU, then a ``_conv``), transitions ``tr_conv2_blk`` ...
``tr_conv4_blk`` (``conv_ac_func``), the final ``batch_norm`` and the Linear ``out``; so keys
read ``conv1_func._conv.weight``, ``db_conv_2.conv2_1.bn_ac_func1._batch_norm._mean``,
``tr_conv3_blk.conv_ac_func._conv.weight``, ``out.bias``, ...
"""
from __future__ import annotations

import math

from core import nn
from core.manipulation import concat, flatten
from core.nn.initializer import Uniform
from core.nn.param_attr import ParamAttr
from core.vision.models._checks import check_choice, check_int, load_pretrained

# layers: (initial features, growth rate, layers per dense block)
DENSENET_SPEC = {121: (64, 32, (6, 12, 24, 16)), 161: (96, 48, (6, 12, 36, 24)),
                 169: (64, 32, (6, 12, 32, 32)), 201: (64, 32, (6, 12, 48, 32)),
                 264: (64, 32, (6, 12, 64, 48))}


class BNACConvLayer(nn.Layer):
    """BatchNorm with ``act`` (pre-activation), then a bias-free Conv2D: Paddle's
    ``BNACConvLayer(num_channels, num_filters, filter_size, stride=1, pad=0, groups=1,
    act='relu')``."""

    def __init__(self, num_channels: int, num_filters: int, filter_size, stride=1, pad=0,
                 groups: int = 1, act: str = "relu"):
        super().__init__()
        self._batch_norm = nn.BatchNorm(num_channels, act=act)
        self._conv = nn.Conv2D(num_channels, num_filters, filter_size, stride=stride,
                               padding=pad, groups=groups, bias_attr=False)

    def forward(self, input):
        return self._conv(self._batch_norm(input))


class ConvBNLayer(nn.Layer):
    """A bias-free Conv2D, then BatchNorm with ``act``: Paddle's ``ConvBNLayer(num_channels,
    num_filters, filter_size, stride=1, pad=0, groups=1, act='relu')``."""

    def __init__(self, num_channels: int, num_filters: int, filter_size, stride=1, pad=0,
                 groups: int = 1, act: str = "relu"):
        super().__init__()
        self._conv = nn.Conv2D(num_channels, num_filters, filter_size, stride=stride,
                               padding=pad, groups=groups, bias_attr=False)
        self._batch_norm = nn.BatchNorm(num_filters, act=act)

    def forward(self, input):
        return self._batch_norm(self._conv(input))


class DenseLayer(nn.Layer):
    """BN-ReLU-1x1 conv to ``bn_size * growth_rate``, BN-ReLU-3x3 conv to ``growth_rate``,
    dropout (``downscale_in_infer``, when ``dropout`` > 0), the result concatenated after the
    input: Paddle's ``DenseLayer(num_channels, growth_rate, bn_size, dropout)``."""

    def __init__(self, num_channels: int, growth_rate: int, bn_size: int, dropout: float):
        super().__init__()
        self.dropout = dropout
        self.bn_ac_func1 = BNACConvLayer(num_channels, bn_size * growth_rate, 1, pad=0, stride=1)
        self.bn_ac_func2 = BNACConvLayer(bn_size * growth_rate, growth_rate, 3, pad=1, stride=1)
        if dropout:
            self.dropout_func = nn.Dropout(p=dropout, mode="downscale_in_infer")

    def forward(self, input):
        conv = self.bn_ac_func2(self.bn_ac_func1(input))
        if self.dropout:
            conv = self.dropout_func(conv)
        return concat([input, conv], axis=1)


class DenseBlock(nn.Layer):
    """``num_layers`` DenseLayers, each adding ``growth_rate`` channels, registered as
    ``{name}_1``, ``{name}_2``, ...: Paddle's ``DenseBlock(num_channels, num_layers, bn_size,
    growth_rate, dropout, name=None)``."""

    def __init__(self, num_channels: int, num_layers: int, bn_size: int, growth_rate: int,
                 dropout: float, name: str | None = None):
        super().__init__()
        self.dropout = dropout
        self.dense_layer_func = [
            self.add_sublayer(f"{name}_{i + 1}", DenseLayer(
                num_channels + i * growth_rate, growth_rate, bn_size, dropout))
            for i in range(num_layers)]

    def forward(self, input):
        conv = input
        for func in self.dense_layer_func:
            conv = func(conv)
        return conv


class TransitionLayer(nn.Layer):
    """BN-ReLU-1x1 conv to ``num_output_features``, then 2x2 average pooling: Paddle's
    ``TransitionLayer(num_channels, num_output_features)``."""

    def __init__(self, num_channels: int, num_output_features: int):
        super().__init__()
        self.conv_ac_func = BNACConvLayer(num_channels, num_output_features, 1, pad=0, stride=1)
        self.pool2d_avg = nn.AvgPool2D(kernel_size=2, stride=2, padding=0)

    def forward(self, input):
        return self.pool2d_avg(self.conv_ac_func(input))


class DenseNet(nn.Layer):
    """DenseNet for ``[N, 3, H, W]`` images, Paddle's ``DenseNet(layers=121, bn_size=4,
    dropout=0.0, num_classes=1000, with_pool=True)``; ``layers`` is 121, 161, 169, 201 or 264
    (``DENSENET_SPEC``).

    A 7x7 stride-2 Conv-BN-ReLU and a 3x3 stride-2 max pool, four dense blocks with
    transitions halving the channels (and the size) between them, BN-ReLU, adaptive average
    pooling to 1x1 (``with_pool``) and ``out``, a Linear to ``num_classes`` (none when
    ``num_classes <= 0``). Input sides of at least 29 pixels.
    """

    def __init__(self, layers: int = 121, bn_size: int = 4, dropout: float = 0.0,
                 num_classes: int = 1000, with_pool: bool = True):
        super().__init__()
        check_choice("DenseNet", "layers", layers, DENSENET_SPEC)
        check_int("DenseNet", "bn_size", bn_size, 1)
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) \
                or not 0.0 <= dropout < 1.0:
            raise ValueError(f"DenseNet: dropout={dropout!r} must be a probability in [0, 1).")
        self.num_classes = check_int("DenseNet", "num_classes", num_classes)
        self.with_pool = bool(with_pool)
        num_features, growth_rate, self.block_config = DENSENET_SPEC[layers]
        self.conv1_func = ConvBNLayer(3, num_features, 7, stride=2, pad=3, act="relu")
        self.pool2d_max = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self.dense_block_func_list, self.transition_func_list = [], []
        for i, num_layers in enumerate(self.block_config):
            self.dense_block_func_list.append(self.add_sublayer(f"db_conv_{i + 2}", DenseBlock(
                num_features, num_layers, bn_size, growth_rate, dropout, name=f"conv{i + 2}")))
            num_features += num_layers * growth_rate
            if i != len(self.block_config) - 1:
                self.transition_func_list.append(self.add_sublayer(
                    f"tr_conv{i + 2}_blk", TransitionLayer(num_features, num_features // 2)))
                num_features //= 2
        self.batch_norm = nn.BatchNorm(num_features, act="relu")
        if self.with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if self.num_classes > 0:
            stdv = 1.0 / math.sqrt(num_features)
            self.out = nn.Linear(num_features, self.num_classes,
                                 weight_attr=ParamAttr(initializer=Uniform(-stdv, stdv)))

    def forward(self, input):
        conv = self.pool2d_max(self.conv1_func(input))
        for i, block in enumerate(self.dense_block_func_list):
            conv = block(conv)
            if i < len(self.transition_func_list):
                conv = self.transition_func_list[i](conv)
        y = self.batch_norm(conv)
        if self.with_pool:
            y = self.pool2d_avg(y)
        if self.num_classes > 0:
            y = self.out(flatten(y, 1))
        return y


def _densenet(arch: str, layers: int, pretrained, **kwargs) -> DenseNet:
    return load_pretrained(arch, pretrained, DenseNet(layers=layers, **kwargs))


def densenet121(pretrained: bool = False, **kwargs) -> DenseNet:
    """DenseNet-121: ``DenseNet(layers=121, **kwargs)`` (7,978,856 parameters with 1000
    classes). ``pretrained=True`` loads Paddle's ImageNet weights."""
    return _densenet("densenet121", 121, pretrained, **kwargs)


def densenet161(pretrained: bool = False, **kwargs) -> DenseNet:
    """DenseNet-161: ``DenseNet(layers=161, **kwargs)``.
    ``pretrained=True`` loads Paddle's weights."""
    return _densenet("densenet161", 161, pretrained, **kwargs)


def densenet169(pretrained: bool = False, **kwargs) -> DenseNet:
    """DenseNet-169: ``DenseNet(layers=169, **kwargs)``.
    ``pretrained=True`` loads Paddle's weights."""
    return _densenet("densenet169", 169, pretrained, **kwargs)


def densenet201(pretrained: bool = False, **kwargs) -> DenseNet:
    """DenseNet-201: ``DenseNet(layers=201, **kwargs)``.
    ``pretrained=True`` loads Paddle's weights."""
    return _densenet("densenet201", 201, pretrained, **kwargs)


def densenet264(pretrained: bool = False, **kwargs) -> DenseNet:
    """DenseNet-264: ``DenseNet(layers=264, **kwargs)``.
    ``pretrained=True`` loads Paddle's weights."""
    return _densenet("densenet264", 264, pretrained, **kwargs)


__all__ = ["DenseNet", "densenet121", "densenet161", "densenet169", "densenet201",
           "densenet264"]
