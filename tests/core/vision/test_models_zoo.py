"""core.vision.models, Paddle's model zoo beyond LeNet/VGG/ResNet: AlexNet, MobileNetV1/V2/V3,
SqueezeNet, ShuffleNetV2, DenseNet, GoogLeNet, InceptionV3, ResNeXt and wide ResNet.

Parameter counts are derived here from Paddle's source (python/paddle/vision/models/*.py) by
counting layer shapes, and checked against torchvision's published totals where the two
architectures are the same; state-dict keys are the names Paddle's code registers. Forward
passes use batch 1, eval mode and the smallest input each net takes, to stay fast on one core.
"""
from __future__ import annotations

import functools

import numpy as np
import pytest

import core
from core import nn
from core.nn import functional as F
from core.vision import models
from core.vision.models import densenet as densenet_module
from core.vision.models import inceptionv3 as inception_module
from core.vision.models import mobilenetv2 as mobilenetv2_module
from core.vision.models import mobilenetv3 as mobilenetv3_module
from core.vision.models import resnet as resnet_module
from core.vision.models import shufflenetv2 as shufflenet_module
from core.vision.models import squeezenet as squeezenet_module
from core.vision.models.googlenet import Inception  # the package's googlenet is the factory
from tests.gradcheck import check_grad

BN = ("weight", "bias", "_mean", "_variance")  # a batch norm's keys, in Paddle and here


def _count(layer) -> int:
    return sum(int(np.prod(p.shape)) for p in layer.parameters())


def _input(*shape, seed: int = 0):
    return core.to_tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def _eval_forward(net, *shape):
    net.eval()
    with core.no_grad():
        return net(_input(*shape))


# ----- parameter counts from layer shapes (Paddle's definitions) ---------------------------------
def conv(cin, cout, k, groups=1, bias=False):
    kh, kw = (k, k) if isinstance(k, int) else k
    return cout * (cin // groups) * kh * kw + (cout if bias else 0)


def bn(c):
    return 2 * c  # weight and bias; _mean / _variance are buffers


def linear(i, o):
    return i * o + o


def cbn(cin, cout, k=1, groups=1):
    """A ConvNormActivation: bias-free convolution and batch norm."""
    return conv(cin, cout, k, groups) + bn(cout)


# (channels in = depthwise channels, pointwise channels out) of mobilenetv1.py's 13 blocks
V1_BLOCKS = [(32, 64), (64, 128), (128, 128), (128, 256), (256, 256), (256, 512),
             *[(512, 512)] * 5, (512, 1024), (1024, 1024)]
V1_NAMES = ["conv2_1", "conv2_2", "conv3_1", "conv3_2", "conv4_1", "conv4_2",
            *[f"conv5_{i}" for i in range(1, 7)], "conv6"]
# stage_out_channels of shufflenetv2.py, per scale (x2.0's 224 is Paddle's; torchvision has 244)
SHUFFLE_WIDTHS = {0.25: (24, 24, 48, 96, 512), 0.33: (24, 32, 64, 128, 512),
                  0.5: (24, 48, 96, 192, 1024), 1.0: (24, 116, 232, 464, 1024),
                  1.5: (24, 176, 352, 704, 1024), 2.0: (24, 224, 488, 976, 2048)}
GOOGLENET_INCEPTIONS = [  # googlenet.py: (in, 1x1, 3x3 reduce, 3x3, 5x5 reduce, 5x5, proj)
    ("_ince3a", 192, 64, 96, 128, 16, 32, 32), ("_ince3b", 256, 128, 128, 192, 32, 96, 64),
    ("_ince4a", 480, 192, 96, 208, 16, 48, 64), ("_ince4b", 512, 160, 112, 224, 24, 64, 64),
    ("_ince4c", 512, 128, 128, 256, 24, 64, 64), ("_ince4d", 512, 112, 144, 288, 32, 64, 64),
    ("_ince4e", 528, 256, 160, 320, 32, 128, 128), ("_ince5a", 832, 256, 160, 320, 32, 128, 128),
    ("_ince5b", 832, 384, 192, 384, 48, 128, 128)]


def mobilenet_v1_count(num_classes=1000):
    blocks = sum(cbn(c, c, 3, groups=c) + cbn(c, out) for c, out in V1_BLOCKS)
    return cbn(3, 32, 3) + blocks + linear(1024, num_classes)


def shufflenet_count(widths, num_classes=1000):
    total = cbn(3, widths[0], 3)
    for stage, repeats in enumerate((4, 8, 4)):
        cin, half = widths[stage], widths[stage + 1] // 2
        total += cbn(cin, cin, 3, cin) + 2 * cbn(cin, half) + cbn(half, half, 3, half) \
            + cbn(half, half)  # the downsampling unit's two branches
        total += (repeats - 1) * (2 * cbn(half, half) + cbn(half, half, 3, half))
    return total + cbn(widths[3], widths[4]) + linear(widths[4], num_classes)


def densenet_count(init, growth, blocks, bn_size=4, num_classes=1000):
    total, c = cbn(3, init, 7), init
    for i, n in enumerate(blocks):
        for j in range(n):
            cj = c + j * growth
            total += bn(cj) + conv(cj, bn_size * growth, 1) + bn(bn_size * growth) \
                + conv(bn_size * growth, growth, 3)
        c += n * growth
        if i < len(blocks) - 1:
            total, c = total + bn(c) + conv(c, c // 2, 1), c // 2
    return total + bn(c) + linear(c, num_classes)


def googlenet_count(num_classes=1000):
    total = conv(3, 64, 7) + conv(64, 64, 1) + conv(64, 192, 3)
    for _, cin, f1, f3r, f3, f5r, f5, proj in GOOGLENET_INCEPTIONS:
        total += conv(cin, f1, 1) + conv(cin, f3r, 1) + conv(f3r, f3, 3) + conv(cin, f5r, 1) \
            + conv(f5r, f5, 5) + conv(cin, proj, 1)
    aux = conv(512, 128, 1) + conv(528, 128, 1) + 2 * (linear(1152, 1024) + linear(1024,
                                                                                    num_classes))
    return total + linear(1024, num_classes) + aux


def resnet_count(layers, groups=1, width=64, num_classes=1000):
    total, inplanes = cbn(3, 64, 7), 64
    for planes, n, stride in zip((64, 128, 256, 512), layers, (1, 2, 2, 2)):
        w = int(planes * width / 64) * groups
        for i in range(n):
            total += cbn(inplanes, w) + cbn(w, w, 3, groups) + cbn(w, planes * 4)
            if i == 0 and (stride != 1 or inplanes != planes * 4):
                total += cbn(inplanes, planes * 4)  # the downsample shortcut
            inplanes = planes * 4
    return total + linear(2048, num_classes)


def test_the_counting_rules_reproduce_torchvisions_published_totals():
    # the rules above, on architectures torchvision shares with Paddle
    assert shufflenet_count(SHUFFLE_WIDTHS[0.5]) == 1_366_792
    assert shufflenet_count(SHUFFLE_WIDTHS[1.0]) == 2_278_604
    assert shufflenet_count(SHUFFLE_WIDTHS[1.5]) == 3_503_624
    assert densenet_count(64, 32, (6, 12, 24, 16)) == 7_978_856
    assert densenet_count(96, 48, (6, 12, 36, 24)) == 28_681_000
    assert resnet_count((3, 4, 6, 3)) == 25_557_032
    assert resnet_count((3, 4, 6, 3), groups=32, width=4) == 25_028_904
    assert resnet_count((3, 4, 23, 3), width=128) == 126_886_696


@pytest.mark.parametrize("build, expected", [
    (models.mobilenet_v1, mobilenet_v1_count()),  # 4,231,976
    (models.mobilenet_v2, 3_504_872),  # torchvision's mobilenet_v2: the same layers
    (models.mobilenet_v3_small, 2_542_856),  # torchvision's: the same layers
    (models.mobilenet_v3_large, 5_483_032),
    (models.squeezenet1_0, 1_248_424),  # torchvision's (Paddle pools without ceil mode,
    (models.squeezenet1_1, 1_235_496),  # which changes shapes, not parameters)
    *[(getattr(models, f"shufflenet_v2_x{name}"), shufflenet_count(SHUFFLE_WIDTHS[scale]))
      for name, scale in (("0_25", 0.25), ("0_33", 0.33), ("0_5", 0.5), ("1_0", 1.0),
                          ("1_5", 1.5), ("2_0", 2.0))],
    (models.shufflenet_v2_swish, shufflenet_count(SHUFFLE_WIDTHS[1.0])),  # swish adds none
    (models.densenet121, 7_978_856),  # torchvision's densenet121 .. 201: the same layers
    (models.densenet161, 28_681_000),
    (models.densenet169, densenet_count(64, 32, (6, 12, 32, 32))),  # 14,149,480
    (models.densenet201, densenet_count(64, 32, (6, 12, 48, 32))),  # 20,013,928
    (models.densenet264, densenet_count(64, 32, (6, 12, 64, 48))),  # 33,337,704
    (models.googlenet, googlenet_count()),  # 11,535,736: no batch norm, two auxiliary heads
    # torchvision's inception_v3 (27,161,264) less its AuxLogits head (3,326,696): Paddle's
    # has no auxiliary head
    (models.inception_v3, 23_834_568),
    (models.resnext50_32x4d, 25_028_904),  # torchvision's
    (models.resnext101_32x4d, resnet_count((3, 4, 23, 3), groups=32, width=4)),  # 44,177,704
    (models.wide_resnet50_2, 68_883_240),  # torchvision's
])
def test_parameter_counts_are_paddles(build, expected):
    assert _count(build()) == expected


def test_alexnet_parameters_shapes_and_keys():
    net = models.alexnet(num_classes=10)
    convs = conv(3, 64, 11, bias=True) + conv(64, 192, 5, bias=True) \
        + conv(192, 384, 3, bias=True) + conv(384, 256, 3, bias=True) + conv(256, 256, 3, bias=True)
    # with 1000 classes: 61,100,840, torchvision's alexnet (the same layers)
    assert convs + linear(9216, 4096) + linear(4096, 4096) + linear(4096, 1000) == 61_100_840
    assert _count(net) == convs + linear(9216, 4096) + linear(4096, 4096) + linear(4096, 10)
    assert set(net.state_dict()) == {
        f"{name}.{kind}" for name in ("_conv1._conv", "_conv2._conv", "_conv3", "_conv4",
                                      "_conv5._conv", "_fc6", "_fc7", "_fc8")
        for kind in ("weight", "bias")}
    assert _eval_forward(net, 1, 3, 224, 224).shape == [1, 10]
    features = models.AlexNet(num_classes=0)
    assert _eval_forward(features, 1, 3, 63, 63).shape == [1, 256, 1, 1]  # the smallest input
    bound = 1.0 / np.sqrt(3 * 11 * 11)  # Paddle's U(-1/sqrt(fan_in), 1/sqrt(fan_in))
    assert np.abs(features._conv1._conv.weight.numpy()).max() <= bound


def test_resnext_and_wide_resnet_factories_pass_paddles_arguments(monkeypatch):
    built = {}
    monkeypatch.setattr(resnet_module, "ResNet",
                        lambda block, depth, **kwargs: (block.__name__, depth, kwargs))
    for name, depth, groups, width in [
            ("resnext50_32x4d", 50, 32, 4), ("resnext50_64x4d", 50, 64, 4),
            ("resnext101_32x4d", 101, 32, 4), ("resnext101_64x4d", 101, 64, 4),
            ("resnext152_32x4d", 152, 32, 4), ("resnext152_64x4d", 152, 64, 4)]:
        built[name] = getattr(models, name)(num_classes=5, groups=1)
        # as Paddle's factories, the variant's groups and width replace the caller's
        assert built[name] == ("BottleneckBlock", depth, {"num_classes": 5, "groups": groups,
                                                          "width": width})
    assert models.wide_resnet50_2(width=64) == ("BottleneckBlock", 50, {"width": 128})
    assert models.wide_resnet101_2(with_pool=False) == ("BottleneckBlock", 101,
                                                        {"with_pool": False, "width": 128})


def test_resnext_keys_are_resnet50s_and_its_output():
    keys = set(models.resnet50(num_classes=0).state_dict())
    net = models.resnext50_32x4d(num_classes=3)
    assert set(net.state_dict()) == keys | {"fc.weight", "fc.bias"}
    assert net.layer4[2].conv2.weight.shape == [1024, 32, 3, 3]  # 1024 channels, 32 groups
    assert _eval_forward(net, 1, 3, 32, 32).shape == [1, 3]


# ----- MobileNets --------------------------------------------------------------------------------
def _cbn_keys(prefix: str) -> set[str]:
    """A ConvNormActivation's keys: the convolution's weight and the batch norm's four."""
    return {f"{prefix}.0.weight", *(f"{prefix}.1.{kind}" for kind in BN)}


def test_mobilenet_v1_keys_shapes_and_scale():
    net = models.mobilenet_v1(scale=0.25, num_classes=3)
    expected = _cbn_keys("conv1") | {"fc.weight", "fc.bias"}
    for name in V1_NAMES:
        expected |= _cbn_keys(f"{name}._depthwise_conv") | _cbn_keys(f"{name}._pointwise_conv")
    assert set(net.state_dict()) == expected
    assert net.conv6._pointwise_conv[0].weight.shape == [256, 256, 1, 1]  # int(1024 * 0.25)
    assert net.conv2_2._depthwise_conv[0].weight.shape == [16, 1, 3, 3]  # depthwise: 16 groups
    assert _eval_forward(net, 1, 3, 32, 32).shape == [1, 3]
    trunk = models.MobileNetV1(scale=0.25, num_classes=0, with_pool=False)
    assert _eval_forward(trunk, 1, 3, 64, 64).shape == [1, 256, 2, 2]  # output stride 32


def test_mobilenet_v2_keys_shapes_and_scale():
    net = models.mobilenet_v2(scale=0.35, num_classes=3)
    keys = set(net.state_dict())
    # 5 for each Conv-BN-ReLU6, 1 + 4 for each block's projection and its norm
    assert len(keys) == 5 + (5 + 5) + 16 * (5 + 5 + 5) + 5 + 2 == 262
    assert _cbn_keys("features.0") | _cbn_keys("features.1.conv.0") \
        | _cbn_keys("features.2.conv.0") | _cbn_keys("features.18") <= keys
    assert {"features.1.conv.1.weight", "features.1.conv.2._mean", "features.2.conv.2.weight",
            "features.2.conv.3._variance", "features.17.conv.3.bias", "classifier.1.weight",
            "classifier.1.bias"} <= keys
    assert "features.1.conv.3.weight" not in keys  # expand ratio 1: no expansion convolution
    assert net.features[0][0].weight.shape == [16, 3, 3, 3]  # make_divisible(32 * 0.35) = 16
    assert net.last_channel == 1280  # 1280 * max(1, scale)
    assert _eval_forward(net, 1, 3, 32, 32).shape == [1, 3]
    trunk = models.MobileNetV2(scale=0.25, num_classes=0, with_pool=False)
    assert _eval_forward(trunk, 1, 3, 64, 64).shape == [1, 1280, 2, 2]
    assert models.mobilenet_v2(scale=1.5, num_classes=0).last_channel == 1920


def test_mobilenet_v3_keys_shapes_and_squeeze_excitation():
    small = models.mobilenet_v3_small(scale=0.5, num_classes=3)
    keys = set(small.state_dict())
    assert _cbn_keys("conv") | _cbn_keys("blocks.0.bottleneck_conv") \
        | _cbn_keys("blocks.0.linear_conv") | _cbn_keys("blocks.1.expand_conv") \
        | _cbn_keys("lastconv") <= keys
    assert {"blocks.0.mid_se.fc1.weight", "blocks.0.mid_se.fc1.bias", "blocks.0.mid_se.fc2.bias",
            "classifier.0.weight", "classifier.3.bias"} <= keys
    assert not any(k.startswith(("blocks.0.expand_conv", "blocks.1.mid_se")) for k in keys)
    assert small.conv[1].momentum == 0.99 and small.conv[1].epsilon == 0.001
    # lastconv: six times the last block's input channels (make_divisible(96 * 0.5) = 48)
    assert small.lastconv[0].weight.shape == [288, 48, 1, 1]
    assert small.classifier[0].weight.shape == [288, 512]  # last_channel make_divisible(512)
    assert _eval_forward(small, 1, 3, 32, 32).shape == [1, 3]
    large = models.MobileNetV3Large(scale=0.25, num_classes=0, with_pool=False)
    assert not any(".mid_se." in k for k in large.state_dict() if k.startswith("blocks.6."))
    assert _eval_forward(large, 1, 3, 64, 64).shape == [1, 240, 2, 2]  # 6 * make_divisible(40)


# ----- SqueezeNet, ShuffleNetV2 ------------------------------------------------------------------
def test_squeezenet_keys_and_shapes():
    fires = {f"_conv{i}.{branch}._conv.{kind}" for i in range(1, 9)
             for branch in ("_conv", "_conv_path1", "_conv_path2") for kind in ("weight", "bias")}
    net = models.squeezenet1_0(num_classes=3)
    assert set(net.state_dict()) == fires | {"_conv.weight", "_conv.bias", "_conv9.weight",
                                             "_conv9.bias"}
    assert net._conv.weight.shape == [96, 3, 7, 7]
    assert _eval_forward(net, 1, 3, 35, 35).shape == [1, 3]  # the smallest input of 1.0
    v11 = models.squeezenet1_1(num_classes=3)
    assert v11._conv.weight.shape == [64, 3, 3, 3] and v11._conv1._conv._conv.weight.shape == [
        16, 64, 1, 1]
    assert _eval_forward(v11, 1, 3, 29, 29).shape == [1, 3]  # the smallest input of 1.1
    assert _eval_forward(models.SqueezeNet("1.1", num_classes=0), 1, 3, 29, 29).shape == [1, 512]
    assert _eval_forward(models.SqueezeNet("1.1", num_classes=3, with_pool=False), 1, 3, 64,
                         64).shape == [1, 3, 3, 3]


def test_shufflenet_v2_keys_and_shapes():
    net = models.shufflenet_v2_x0_25(num_classes=3)
    expected = _cbn_keys("_conv1") | _cbn_keys("_last_conv") | {"_fc.weight", "_fc.bias"}
    for stage, repeats in zip((2, 3, 4), (4, 8, 4)):
        expected |= {k for part in ("_conv_dw_1", "_conv_linear_1", "_conv_pw_2", "_conv_dw_2",
                                    "_conv_linear_2") for k in _cbn_keys(f"{stage}_1.{part}")}
        expected |= {k for i in range(2, repeats + 1)
                     for part in ("_conv_pw", "_conv_dw", "_conv_linear")
                     for k in _cbn_keys(f"{stage}_{i}.{part}")}
    assert set(net.state_dict()) == expected
    assert _eval_forward(net, 1, 3, 32, 32).shape == [1, 3]
    trunk = models.ShuffleNetV2(scale=0.33, act="swish", num_classes=0, with_pool=False)
    assert isinstance(trunk._conv1[2], nn.Swish)
    assert _eval_forward(trunk, 1, 3, 64, 64).shape == [1, 512, 2, 2]
    assert isinstance(models.shufflenet_v2_swish(num_classes=0)._last_conv[2], nn.Swish)


def test_a_state_dict_by_paddles_names_loads_into_a_fresh_net():
    core.seed(0)
    source = models.shufflenet_v2_x0_25(num_classes=3)
    source.train()
    source(_input(2, 3, 32, 32))  # move the running statistics off their initial values
    weights = {k: v.numpy() for k, v in source.state_dict().items()}  # "2_1._conv_dw_1.0...."
    core.seed(1)
    target = models.shufflenet_v2_x0_25(num_classes=3)
    target.set_state_dict(weights)
    x = _input(1, 3, 32, 32, seed=5)
    np.testing.assert_array_equal(_eval_forward_array(target, x.numpy()),
                                  _eval_forward_array(source, x.numpy()))


# ----- DenseNet, GoogLeNet, InceptionV3 ----------------------------------------------------------
def test_densenet_keys_and_shapes():
    net = models.densenet121(num_classes=3)

    def bnac(prefix):
        return {f"{prefix}._conv.weight", *(f"{prefix}._batch_norm.{kind}" for kind in BN)}

    expected = {"conv1_func._conv.weight", *(f"conv1_func._batch_norm.{kind}" for kind in BN),
                *(f"batch_norm.{kind}" for kind in BN), "out.weight", "out.bias"}
    for i, n in enumerate((6, 12, 24, 16), 2):
        for j in range(1, n + 1):
            expected |= bnac(f"db_conv_{i}.conv{i}_{j}.bn_ac_func1")
            expected |= bnac(f"db_conv_{i}.conv{i}_{j}.bn_ac_func2")
        if i < 5:
            expected |= bnac(f"tr_conv{i}_blk.conv_ac_func")
    assert set(net.state_dict()) == expected
    assert _eval_forward(net, 1, 3, 29, 29).shape == [1, 3]  # the smallest input
    trunk = models.DenseNet(121, bn_size=2, dropout=0.2, num_classes=0, with_pool=False)
    assert trunk.db_conv_2.conv2_1.bn_ac_func1._conv.weight.shape == [64, 64, 1, 1]  # 2 * 32
    assert _eval_forward(trunk, 1, 3, 64, 64).shape == [1, 1024, 2, 2]


def test_googlenet_returns_three_outputs_and_has_paddles_keys():
    net = models.googlenet(num_classes=3)
    expected = {"_conv._conv.weight", "_conv_1._conv.weight", "_conv_2._conv.weight",
                "_fc_out.weight", "_fc_out.bias"}
    expected |= {f"{name}.{branch}._conv.weight" for name, *_ in GOOGLENET_INCEPTIONS
                 for branch in ("_conv1", "_conv3r", "_conv3", "_conv5r", "_conv5", "_convprj")}
    expected |= {f"{part}{i}.{kind}" for i in (1, 2) for part in ("_fc_o", "_out")
                 for kind in ("weight", "bias")} | {"_conv_o1._conv.weight",
                                                    "_conv_o2._conv.weight"}
    assert set(net.state_dict()) == expected
    assert _count(net) == googlenet_count(num_classes=3)
    out = _eval_forward(net, 1, 3, 189, 189)  # the smallest input the auxiliary heads take
    assert isinstance(out, tuple) and [o.shape for o in out] == [[1, 3], [1, 3], [1, 3]]
    trunk = models.GoogLeNet(num_classes=0)  # the 5x5 pools of the heads need 93 pixels
    assert [o.shape for o in _eval_forward(trunk, 1, 3, 93, 93)] == [[1, 1024, 1, 1],
                                                                     [1, 512, 1, 1],
                                                                     [1, 528, 1, 1]]


def test_inception_v3_keys_and_shapes():
    net = models.inception_v3(num_classes=3)
    keys = set(net.state_dict())
    # 94 Conv-BN-ReLU units (stem 5, A 3 x 7, B 4, C 4 x 10, D 6, E 2 x 9), 5 keys each, + fc
    assert len(keys) == 94 * 5 + 2
    assert _cbn_keys("inception_stem.conv_1a_3x3") | _cbn_keys("inception_stem.conv_4a_3x3") \
        | _cbn_keys("inception_block_list.0.branch5x5_2") \
        | _cbn_keys("inception_block_list.3.branch3x3dbl_3") \
        | _cbn_keys("inception_block_list.7.branch7x7dbl_5") \
        | _cbn_keys("inception_block_list.8.branch7x7x3_4") \
        | _cbn_keys("inception_block_list.10.branch3x3dbl_3b") | {"fc.weight", "fc.bias"} <= keys
    assert net.inception_block_list[4].branch7x7_2[0].weight.shape == [128, 128, 1, 7]
    assert _eval_forward(net, 1, 3, 75, 75).shape == [1, 3]  # the smallest input
    trunk = models.InceptionV3(num_classes=0)
    assert _eval_forward(trunk, 1, 3, 75, 75).shape == [1, 2048, 1, 1]


# ----- training, gradients -----------------------------------------------------------------------
@pytest.mark.parametrize("build", [
    lambda: models.mobilenet_v2(scale=0.25, num_classes=3),
    lambda: models.shufflenet_v2_x0_25(num_classes=3),
    lambda: models.squeezenet1_1(num_classes=3),
])
def test_one_training_step_changes_the_weights(build):
    core.seed(0)
    net = build()
    net.train()
    before = {k: v.numpy().copy() for k, v in net.state_dict().items()}
    opt = core.optimizer.SGD(learning_rate=0.1, parameters=net.parameters())
    label = core.to_tensor(np.array([[0], [2]], dtype=np.int64))
    loss = F.cross_entropy(net(_input(2, 3, 32, 32)), label)
    loss.backward()
    grads = [p.gradient() for p in net.parameters()]
    assert all(g is not None and np.isfinite(g).all() for g in grads)
    assert sum(bool(np.any(g)) for g in grads) >= 0.9 * len(grads)
    opt.step()
    after = net.state_dict()
    changed = [k for k in before if not np.array_equal(before[k], after[k].numpy())]
    assert len(changed) >= 0.9 * len(before)  # weights and the running statistics
    assert np.isfinite(float(loss.numpy()))


def _float64(layer):
    for tensor in [*layer.parameters(), *layer.buffers()]:
        tensor.data = tensor.data.astype(np.float64)
    return layer


@pytest.mark.parametrize("build, shape", [
    (lambda: mobilenetv2_module.InvertedResidual(4, 4, 1, expand_ratio=2), (2, 4, 4, 4)),
    (lambda: mobilenetv3_module.InvertedResidual(
        4, 8, 4, 3, 1, True, nn.Hardswish, nn.BatchNorm2D), (2, 4, 4, 4)),
    (lambda: shufflenet_module.InvertedResidual(4, 4, 1), (2, 4, 4, 4)),
    (lambda: shufflenet_module.InvertedResidualDS(4, 8, 2), (2, 4, 5, 5)),
    (lambda: squeezenet_module.MakeFire(4, 2, 3, 3), (2, 4, 4, 4)),
    (lambda: densenet_module.DenseLayer(4, 3, 2, 0.0), (2, 4, 4, 4)),
    (lambda: Inception(4, 4, 2, 2, 3, 1, 2, 2), (2, 4, 4, 4)),
    (lambda: inception_module.InceptionA(3, 2), (2, 3, 3, 3)),
])
def test_blocks_gradients_match_finite_differences(build, shape):
    core.seed(0)
    block = _float64(build())  # training mode: batch statistics in the norms
    x = np.random.default_rng(3).standard_normal(shape)
    check_grad(lambda t: block(t), x, rtol=1e-5, atol=1e-6)


def test_mobilenet_v3_block_matches_torch():
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional
    core.seed(0)
    norm = functools.partial(nn.BatchNorm2D, epsilon=0.001, momentum=0.99)
    block = mobilenetv3_module.InvertedResidual(4, 8, 4, 5, 1, True, nn.Hardswish, norm)
    rng = np.random.default_rng(4)
    state = {k: (rng.uniform(0.5, 1.5, v.shape) if k.endswith("_variance")
                 else rng.standard_normal(v.shape)).astype(np.float32)
             for k, v in block.state_dict().items()}
    block.set_state_dict(state)
    x = rng.standard_normal((2, 4, 6, 6)).astype(np.float32)
    got = _eval_forward_array(block, x)
    t = {k: torch.from_numpy(v) for k, v in state.items()}

    def cbn(h, name, groups=1, padding=0, act=None):
        h = tf.conv2d(h, t[f"{name}.0.weight"], padding=padding, groups=groups)
        h = tf.batch_norm(h, t[f"{name}.1._mean"], t[f"{name}.1._variance"],
                          t[f"{name}.1.weight"], t[f"{name}.1.bias"], False, 0.0, 0.001)
        return act(h) if act else h

    h = cbn(torch.from_numpy(x), "expand_conv", act=tf.hardswish)
    h = cbn(h, "bottleneck_conv", groups=8, padding=2, act=tf.hardswish)
    s = tf.conv2d(tf.adaptive_avg_pool2d(h, 1), t["mid_se.fc1.weight"], t["mid_se.fc1.bias"])
    s = tf.conv2d(tf.relu(s), t["mid_se.fc2.weight"], t["mid_se.fc2.bias"])
    h = cbn(h * tf.hardsigmoid(s), "linear_conv")
    np.testing.assert_allclose(got, (torch.from_numpy(x) + h).numpy(), rtol=1e-4, atol=1e-5)


def _eval_forward_array(layer, x):
    layer.eval()
    with core.no_grad():
        return layer(core.to_tensor(x)).numpy()


# ----- errors ------------------------------------------------------------------------------------
FACTORIES = ["alexnet", "mobilenet_v1", "mobilenet_v2", "mobilenet_v3_small",
             "mobilenet_v3_large", "squeezenet1_0", "squeezenet1_1", "shufflenet_v2_x0_25",
             "shufflenet_v2_x0_33", "shufflenet_v2_x0_5", "shufflenet_v2_x1_0",
             "shufflenet_v2_x1_5", "shufflenet_v2_x2_0", "shufflenet_v2_swish", "densenet121",
             "densenet161", "densenet169", "densenet201", "densenet264", "googlenet",
             "inception_v3", "resnext50_32x4d", "resnext50_64x4d", "resnext101_32x4d",
             "resnext101_64x4d", "resnext152_32x4d", "resnext152_64x4d", "wide_resnet50_2",
             "wide_resnet101_2"]


class _Fetched(Exception):
    pass


@pytest.mark.parametrize("name", FACTORIES)
def test_pretrained_asks_for_paddles_published_weights(name, monkeypatch):
    """pretrained=True fetches Paddle's file for the factory (no network here: the fetch is
    stubbed; tests/core/vision/test_pretrained.py loads real Paddle-format files)."""
    from core.vision.models import _checks

    asked = []

    def fetch(url, md5sum=None):
        asked.append((url, md5sum))
        raise _Fetched

    monkeypatch.setattr(_checks, "get_weights_path_from_url", fetch)
    with pytest.raises(_Fetched):
        getattr(models, name)(pretrained=True)
    [(url, md5)] = asked
    assert url.startswith("https://paddle-") and url.endswith(".pdparams") and len(md5) == 32


@pytest.mark.parametrize("build, match", [
    (lambda: models.mobilenet_v1(scale=0), "MobileNetV1: scale=0 must be a positive number"),
    (lambda: models.mobilenet_v1(scale=0.01), r"scale=0.01 leaves conv1 with int\(32 \* scale\)"),
    (lambda: models.mobilenet_v2(scale=-1.0), "MobileNetV2: scale=-1.0 must be a positive"),
    (lambda: models.mobilenet_v2(scale="1"), "MobileNetV2: scale='1' must be a positive"),
    (lambda: models.mobilenet_v3_small(scale=float("nan")), "MobileNetV3Small: scale=nan"),
    (lambda: models.MobileNetV3Large(scale=0.0), "MobileNetV3Large: scale=0.0"),
    (lambda: models.mobilenet_v2(num_classes=2.5), "MobileNetV2: num_classes=2.5"),
    (lambda: mobilenetv2_module.InvertedResidual(4, 4, 3, 6), "stride=3 must be 1 or 2"),
    (lambda: mobilenetv3_module.MobileNetV3([], 16), "config=.* must be a non-empty list"),
    (lambda: mobilenetv3_module.InvertedResidualConfig(16, 3, 16, 16, True, "gelu", 1),
     r"activation='gelu' must be one of \[None, 'relu', 'hardswish'\]"),
    (lambda: models.ShuffleNetV2(scale=0.75),
     r"ShuffleNetV2: scale=0.75 must be one of \[0.25, 0.33, 0.5, 1.0, 1.5, 2.0\]"),
    (lambda: models.ShuffleNetV2(act="gelu"), "ShuffleNetV2: act='gelu' must be one of"),
    (lambda: models.ShuffleNetV2(scale=[1.0]), r"ShuffleNetV2: scale=\[1.0\] must be one of"),
    (lambda: models.SqueezeNet("1.2"), r"SqueezeNet: version='1.2' must be one of \['1.0'"),
    (lambda: models.SqueezeNet(1.0), "SqueezeNet: version=1.0 must be one of"),
    (lambda: models.DenseNet(layers=100), r"DenseNet: layers=100 must be one of \[121, 161"),
    (lambda: models.DenseNet(dropout=1.5), r"DenseNet: dropout=1.5 must be a probability"),
    (lambda: models.DenseNet(bn_size=0), "DenseNet: bn_size=0 must be an integer >= 1"),
    (lambda: models.GoogLeNet(num_classes="10"), "GoogLeNet: num_classes='10'"),
    (lambda: models.InceptionV3(num_classes=None), "InceptionV3: num_classes=None"),
    (lambda: models.AlexNet(num_classes=1.5), "AlexNet: num_classes=1.5"),
    (lambda: models.resnext50_32x4d(depth=50), "multiple values for argument 'depth'"),
])
def test_bad_arguments_name_the_argument(build, match):
    with pytest.raises((ValueError, TypeError), match=match):
        build()
