"""ResNet (``paddle.vision.models.ResNet``, ``resnet18`` ... ``resnet152``), He et al. 2015, and
its variants ResNeXt (``resnext50_32x4d`` ... ``resnext152_64x4d``: grouped 3x3 convolutions)
and wide ResNet (``wide_resnet50_2``, ``wide_resnet101_2``: twice the bottleneck width).

Built layer for layer as Paddle's, with the same attribute names, so the keys of a Paddle
``state_dict`` (``conv1.weight``, ``bn1._mean``, ``layer1.0.conv1.weight``,
``layer2.0.downsample.0.weight``, ``fc.bias``, ...) are this model's keys.
"""
from __future__ import annotations

from core import nn
from core.manipulation import flatten
from core.vision.models._checks import check_int, load_pretrained

LAYERS = {18: (2, 2, 2, 2), 34: (3, 4, 6, 3), 50: (3, 4, 6, 3), 101: (3, 4, 23, 3),
          152: (3, 8, 36, 3)}


class BasicBlock(nn.Layer):
    """Two 3x3 convolutions with batch norm and a shortcut: ``relu(bn2(conv2(relu(bn1(conv1(
    x))))) + shortcut(x))``, the shortcut being ``downsample`` (when given) or ``x``.

    ``conv1`` has ``stride``; ``groups`` and ``base_width`` are accepted and ignored, as in
    Paddle (they shape only ``BottleneckBlock``); ``dilation > 1`` is not supported.
    """

    expansion = 1

    def __init__(self, inplanes: int, planes: int, stride: int = 1, downsample=None,
                 groups: int = 1, base_width: int = 64, dilation: int = 1, norm_layer=None):
        super().__init__()
        norm_layer = nn.BatchNorm2D if norm_layer is None else norm_layer
        check_int("BasicBlock", "inplanes", inplanes, 1)
        check_int("BasicBlock", "planes", planes, 1)
        check_int("BasicBlock", "stride", stride, 1)
        if check_int("BasicBlock", "dilation", dilation, 1) > 1:
            raise ValueError(f"BasicBlock: dilation={dilation!r} is not supported; use 1.")
        self.conv1 = nn.Conv2D(inplanes, planes, 3, padding=1, stride=stride, bias_attr=False)
        self.bn1 = norm_layer(planes)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2D(planes, planes, 3, padding=1, bias_attr=False)
        self.bn2 = norm_layer(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        identity = x if self.downsample is None else self.downsample(x)
        return self.relu(out + identity)


class BottleneckBlock(nn.Layer):
    """1x1 -> 3x3 (``stride``, ``groups``, ``dilation``) -> 1x1 convolutions, each with batch
    norm, plus a shortcut; the middle width is ``int(planes * base_width / 64) * groups`` and
    the output has ``planes * 4`` channels."""

    expansion = 4

    def __init__(self, inplanes: int, planes: int, stride: int = 1, downsample=None,
                 groups: int = 1, base_width: int = 64, dilation: int = 1, norm_layer=None):
        super().__init__()
        norm_layer = nn.BatchNorm2D if norm_layer is None else norm_layer
        for name, value in (("inplanes", inplanes), ("planes", planes), ("stride", stride),
                            ("groups", groups), ("base_width", base_width),
                            ("dilation", dilation)):
            check_int("BottleneckBlock", name, value, 1)
        width = int(planes * (base_width / 64.0)) * groups
        if width < 1:
            raise ValueError(f"BottleneckBlock: planes={planes} with base_width={base_width} "
                             "gives a middle width of 0 channels; raise base_width.")
        self.conv1 = nn.Conv2D(inplanes, width, 1, bias_attr=False)
        self.bn1 = norm_layer(width)
        self.conv2 = nn.Conv2D(width, width, 3, padding=dilation, stride=stride, groups=groups,
                               dilation=dilation, bias_attr=False)
        self.bn2 = norm_layer(width)
        self.conv3 = nn.Conv2D(width, planes * self.expansion, 1, bias_attr=False)
        self.bn3 = norm_layer(planes * self.expansion)
        self.relu = nn.ReLU()
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        identity = x if self.downsample is None else self.downsample(x)
        return self.relu(out + identity)


class ResNet(nn.Layer):
    """ResNet for ``[N, 3, H, W]`` images, as Paddle's.

    A 7x7 stride-2 convolution (64 channels), batch norm, ReLU and a 3x3 stride-2 max pool, then
    four stages of ``block`` (``BasicBlock`` or ``BottleneckBlock``) with 64, 128, 256 and 512
    planes (stride 2 from the second stage on; ``LAYERS[depth]`` blocks each: depth 18, 34, 50,
    101 or 152), then adaptive average pooling to 1x1 (``with_pool``) and ``fc``, a Linear to
    ``num_classes`` (none when ``num_classes <= 0``). ``width`` is the bottleneck's base width
    (``width=128``: wide ResNet) and ``groups`` its 3x3 groups (ResNeXt); a BasicBlock ignores
    both, as in Paddle.
    """

    def __init__(self, block, depth: int = 50, width: int = 64, num_classes: int = 1000,
                 with_pool: bool = True, groups: int = 1):
        super().__init__()
        if not (isinstance(block, type) and issubclass(block, nn.Layer)
                and isinstance(getattr(block, "expansion", None), int)):
            raise TypeError(f"ResNet: block={block!r} must be BasicBlock or BottleneckBlock (a "
                            "Layer class with an integer 'expansion').")
        if depth not in LAYERS or isinstance(depth, bool):
            raise ValueError(f"ResNet: depth={depth!r} must be one of {sorted(LAYERS)}.")
        self.groups = check_int("ResNet", "groups", groups, 1)
        self.base_width = check_int("ResNet", "width", width, 1)
        self.num_classes = check_int("ResNet", "num_classes", num_classes)
        self.with_pool = bool(with_pool)
        self._norm_layer = nn.BatchNorm2D
        self.inplanes = 64
        self.dilation = 1
        layers = LAYERS[depth]
        self.conv1 = nn.Conv2D(3, self.inplanes, kernel_size=7, stride=2, padding=3,
                               bias_attr=False)
        self.bn1 = self._norm_layer(self.inplanes)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, 64, layers[0])
        self.layer2 = self._make_layer(block, 128, layers[1], stride=2)
        self.layer3 = self._make_layer(block, 256, layers[2], stride=2)
        self.layer4 = self._make_layer(block, 512, layers[3], stride=2)
        if self.with_pool:
            self.avgpool = nn.AdaptiveAvgPool2D((1, 1))
        if self.num_classes > 0:
            self.fc = nn.Linear(512 * block.expansion, self.num_classes)

    def _make_layer(self, block, planes: int, blocks: int, stride: int = 1):
        downsample = None
        if stride != 1 or self.inplanes != planes * block.expansion:
            # the shortcut must match the block's output: a strided 1x1 convolution and a norm
            downsample = nn.Sequential(
                nn.Conv2D(self.inplanes, planes * block.expansion, 1, stride=stride,
                          bias_attr=False),
                self._norm_layer(planes * block.expansion))
        layers = [block(self.inplanes, planes, stride, downsample, self.groups, self.base_width,
                        self.dilation, self._norm_layer)]
        self.inplanes = planes * block.expansion
        layers += [block(self.inplanes, planes, groups=self.groups, base_width=self.base_width,
                         norm_layer=self._norm_layer) for _ in range(1, blocks)]
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        if self.with_pool:
            x = self.avgpool(x)
        if self.num_classes > 0:
            x = self.fc(flatten(x, 1))
        return x


def _resnet(arch: str, block, depth: int, pretrained, **kwargs) -> ResNet:
    return load_pretrained(arch, pretrained, ResNet(block, depth, **kwargs))


def resnet18(pretrained: bool = False, **kwargs) -> ResNet:
    """ResNet-18: ``ResNet(BasicBlock, 18, **kwargs)`` (11,689,512 parameters with 1000
    classes). ``pretrained=True`` loads Paddle's ImageNet weights."""
    return _resnet("resnet18", BasicBlock, 18, pretrained, **kwargs)


def resnet34(pretrained: bool = False, **kwargs) -> ResNet:
    """ResNet-34: ``ResNet(BasicBlock, 34, **kwargs)``.
    ``pretrained=True`` loads Paddle's weights."""
    return _resnet("resnet34", BasicBlock, 34, pretrained, **kwargs)


def resnet50(pretrained: bool = False, **kwargs) -> ResNet:
    """ResNet-50: ``ResNet(BottleneckBlock, 50, **kwargs)``.
    ``pretrained=True`` loads Paddle's weights."""
    return _resnet("resnet50", BottleneckBlock, 50, pretrained, **kwargs)


def resnet101(pretrained: bool = False, **kwargs) -> ResNet:
    """ResNet-101: ``ResNet(BottleneckBlock, 101, **kwargs)``.
    ``pretrained=True`` loads Paddle's weights."""
    return _resnet("resnet101", BottleneckBlock, 101, pretrained, **kwargs)


def resnet152(pretrained: bool = False, **kwargs) -> ResNet:
    """ResNet-152: ``ResNet(BottleneckBlock, 152, **kwargs)``.
    ``pretrained=True`` loads Paddle's weights."""
    return _resnet("resnet152", BottleneckBlock, 152, pretrained, **kwargs)


def _wide_or_grouped(arch: str, depth: int, pretrained, kwargs: dict, **fixed) -> ResNet:
    # as Paddle's factories, the variant's own groups / width replace any the caller gave
    return _resnet(arch, BottleneckBlock, depth, pretrained, **{**kwargs, **fixed})


def resnext50_32x4d(pretrained: bool = False, **kwargs) -> ResNet:
    """ResNeXt-50 32x4d: ``ResNet(BottleneckBlock, 50, groups=32, width=4, **kwargs)``
    (25,028,904 parameters with 1000 classes). ``pretrained=True`` loads Paddle's weights."""
    return _wide_or_grouped("resnext50_32x4d", 50, pretrained, kwargs, groups=32, width=4)


def resnext50_64x4d(pretrained: bool = False, **kwargs) -> ResNet:
    """ResNeXt-50 64x4d: ``ResNet(BottleneckBlock, 50, groups=64, width=4, **kwargs)``.
    ``pretrained=True`` loads Paddle's weights."""
    return _wide_or_grouped("resnext50_64x4d", 50, pretrained, kwargs, groups=64, width=4)


def resnext101_32x4d(pretrained: bool = False, **kwargs) -> ResNet:
    """ResNeXt-101 32x4d: ``ResNet(BottleneckBlock, 101, groups=32, width=4, **kwargs)``.
    ``pretrained=True`` loads Paddle's weights."""
    return _wide_or_grouped("resnext101_32x4d", 101, pretrained, kwargs, groups=32, width=4)


def resnext101_64x4d(pretrained: bool = False, **kwargs) -> ResNet:
    """ResNeXt-101 64x4d: ``ResNet(BottleneckBlock, 101, groups=64, width=4, **kwargs)``.
    ``pretrained=True`` loads Paddle's weights."""
    return _wide_or_grouped("resnext101_64x4d", 101, pretrained, kwargs, groups=64, width=4)


def resnext152_32x4d(pretrained: bool = False, **kwargs) -> ResNet:
    """ResNeXt-152 32x4d: ``ResNet(BottleneckBlock, 152, groups=32, width=4, **kwargs)``.
    ``pretrained=True`` loads Paddle's weights."""
    return _wide_or_grouped("resnext152_32x4d", 152, pretrained, kwargs, groups=32, width=4)


def resnext152_64x4d(pretrained: bool = False, **kwargs) -> ResNet:
    """ResNeXt-152 64x4d: ``ResNet(BottleneckBlock, 152, groups=64, width=4, **kwargs)``.
    ``pretrained=True`` loads Paddle's weights."""
    return _wide_or_grouped("resnext152_64x4d", 152, pretrained, kwargs, groups=64, width=4)


def wide_resnet50_2(pretrained: bool = False, **kwargs) -> ResNet:
    """Wide ResNet-50-2: ``ResNet(BottleneckBlock, 50, width=128, **kwargs)`` (68,883,240
    parameters with 1000 classes). ``pretrained=True`` loads Paddle's weights."""
    return _wide_or_grouped("wide_resnet50_2", 50, pretrained, kwargs, width=128)


def wide_resnet101_2(pretrained: bool = False, **kwargs) -> ResNet:
    """Wide ResNet-101-2: ``ResNet(BottleneckBlock, 101, width=128, **kwargs)`` (126,886,696
    parameters with 1000 classes). ``pretrained=True`` loads Paddle's weights."""
    return _wide_or_grouped("wide_resnet101_2", 101, pretrained, kwargs, width=128)


__all__ = ["BasicBlock", "BottleneckBlock", "ResNet", "resnet18", "resnet34", "resnet50",
           "resnet101", "resnet152", "resnext50_32x4d", "resnext50_64x4d", "resnext101_32x4d",
           "resnext101_64x4d", "resnext152_32x4d", "resnext152_64x4d", "wide_resnet50_2",
           "wide_resnet101_2"]
