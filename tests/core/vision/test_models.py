"""core.vision.models: LeNet, ResNet and VGG built as Paddle's: output shapes, parameter counts
(the published ones), Paddle's state_dict key names, a float64 gradient check through the
residual blocks, and argument errors."""
from __future__ import annotations

import numpy as np
import pytest

import core
from core import nn
from core.vision import models
from core.vision.models import BasicBlock, BottleneckBlock, LeNet, ResNet
from core.vision.models.vgg import CFGS, VGG, make_layers
from tests.gradcheck import check_grad


def _count(layer) -> int:
    return sum(int(np.prod(p.shape)) for p in layer.parameters())


def _input(*shape):
    return core.to_tensor(np.random.default_rng(0).standard_normal(shape).astype(np.float32))


# ----- LeNet -------------------------------------------------------------------------------------
def test_lenet_shapes_and_parameters():
    net = LeNet()
    assert net(_input(3, 1, 28, 28)).shape == [3, 10]
    # conv 1*6*9+6, conv 6*16*25+16, fc 400*120+120, 120*84+84, 84*10+10
    assert _count(net) == 60 + 2416 + 48120 + 10164 + 850 == 61610
    assert [type(m).__name__ for m in net.features] == ["Conv2D", "ReLU", "MaxPool2D", "Conv2D",
                                                        "ReLU", "MaxPool2D"]
    assert [type(m).__name__ for m in net.fc] == ["Linear"] * 3  # no activation between
    assert LeNet(num_classes=4)(_input(2, 1, 28, 28)).shape == [2, 4]
    assert LeNet(num_classes=0)(_input(2, 1, 28, 28)).shape == [2, 16, 5, 5]
    assert sorted(LeNet().state_dict()) == sorted(
        f"{part}.{i}.{kind}" for part, idx in (("features", (0, 3)), ("fc", (0, 1, 2)))
        for i in idx for kind in ("weight", "bias"))


# ----- ResNet ------------------------------------------------------------------------------------
@pytest.mark.parametrize("build, expected", [
    (models.resnet18, 11_689_512),  # Paddle's documented count (torchvision's too)
    (models.resnet34, 21_797_672),
    (models.resnet50, 25_557_032),
    (models.resnet101, 44_549_160),
    (models.resnet152, 60_192_808),
])
def test_resnet_parameter_counts(build, expected):
    assert _count(build()) == expected


def test_resnet18_state_dict_keys_are_paddles():
    keys = set(models.resnet18().state_dict())
    paddle_keys = {  # written out from Paddle's resnet18().state_dict()
        "conv1.weight", "bn1.weight", "bn1.bias", "bn1._mean", "bn1._variance",
        "layer1.0.conv1.weight", "layer1.0.bn1._mean", "layer1.1.conv2.weight",
        "layer2.0.downsample.0.weight", "layer2.0.downsample.1.weight",
        "layer2.0.downsample.1._variance", "layer4.1.bn2._variance", "fc.weight", "fc.bias"}
    assert paddle_keys <= keys and len(keys) == 102  # 62 parameters and 40 running statistics
    assert not any(k.startswith("layer1.0.downsample") for k in keys)  # 64 -> 64: identity
    assert models.resnet18().fc.weight.shape == [512, 1000]  # Paddle's Linear: [in, out]


def test_resnet_shapes():
    net = models.resnet18(num_classes=7)
    net.eval()
    assert net(_input(2, 3, 32, 32)).shape == [2, 7]
    features = models.resnet18(num_classes=0, with_pool=False)
    features.eval()
    assert features(_input(1, 3, 64, 64)).shape == [1, 512, 2, 2]
    assert not hasattr(features, "fc") and not hasattr(features, "avgpool")
    wide = ResNet(BottleneckBlock, 50, width=128, num_classes=0)
    assert wide.layer1[0].conv2.weight.shape == [128, 128, 3, 3]
    resnext = ResNet(BottleneckBlock, 50, width=4, groups=32, num_classes=0)
    assert resnext.layer1[0].conv2.weight.shape == [128, 4, 3, 3]  # 128 channels in 32 groups


def _float64(layer):
    for tensor in [*layer.parameters(), *layer.buffers()]:
        tensor.data = tensor.data.astype(np.float64)
    return layer


def test_basic_block_gradients_with_a_strided_shortcut():
    core.seed(0)
    downsample = nn.Sequential(nn.Conv2D(3, 4, 1, stride=2, bias_attr=False),
                               nn.BatchNorm2D(4))
    block = _float64(BasicBlock(3, 4, stride=2, downsample=downsample))
    x = np.random.default_rng(1).standard_normal((2, 3, 5, 5))
    check_grad(lambda t: block(t), x, rtol=1e-5, atol=1e-6)


def test_bottleneck_block_gradients_with_an_identity_shortcut():
    core.seed(1)
    block = _float64(BottleneckBlock(8, 2, groups=2, base_width=64))  # width 4, output 8
    x = np.random.default_rng(2).standard_normal((2, 8, 3, 3))
    check_grad(lambda t: block(t), x, rtol=1e-5, atol=1e-6)


# ----- VGG ---------------------------------------------------------------------------------------
def test_vgg_features_and_parameter_counts():
    # torchvision's published totals less the classifier's 123,642,856 parameters
    assert _count(models.vgg11(num_classes=0)) == 132_863_336 - 123_642_856
    assert _count(models.vgg16(num_classes=0)) == 138_357_544 - 123_642_856
    assert _count(models.vgg16(num_classes=0, batch_norm=True)) == 138_365_992 - 123_642_856
    net = models.vgg11(num_classes=0)
    net.eval()
    assert net(_input(1, 3, 32, 32)).shape == [1, 512, 7, 7]
    assert VGG(make_layers(CFGS["A"]), num_classes=0, with_pool=False)(
        _input(1, 3, 32, 32)).shape == [1, 512, 1, 1]
    layers = make_layers([8, "M", 16], batch_norm=True)
    assert [type(m).__name__ for m in layers] == ["Conv2D", "BatchNorm2D", "ReLU", "MaxPool2D",
                                                  "Conv2D", "BatchNorm2D", "ReLU"]


# ----- errors ------------------------------------------------------------------------------------
@pytest.mark.parametrize("build, error, match", [
    # pretrained=True downloads Paddle's weights (tests/core/vision/test_pretrained.py); a
    # model Paddle publishes none for is refused by name before anything is fetched
    (lambda: models.vgg11(pretrained=True), ValueError, "vgg11: pretrained=True, but Paddle"),
    (lambda: models.vgg16(pretrained=True, batch_norm=True), ValueError, "vgg16_bn"),
    (lambda: ResNet(BasicBlock, depth=20), ValueError, "depth=20"),
    (lambda: ResNet(nn.Linear, depth=18), TypeError, "block="),
    (lambda: ResNet(BasicBlock, 18, groups=0), ValueError, "groups=0"),
    (lambda: LeNet(num_classes=2.5), ValueError, "num_classes=2.5"),
    (lambda: BasicBlock(4, 4, dilation=2), ValueError, "dilation=2"),
    (lambda: BottleneckBlock(4, 1, base_width=16), ValueError, "base_width=16"),
    (lambda: VGG([1, 2]), TypeError, "features must be a Layer"),
    (lambda: make_layers([64, "X"]), ValueError, r"cfg\[1\]='X'"),
])
def test_bad_arguments_name_the_argument(build, error, match):
    with pytest.raises(error, match=match):
        build()
