"""``paddle.vision.models``: Paddle's model zoo (LeNet, VGG, ResNet / ResNeXt / wide ResNet,
AlexNet, SqueezeNet, MobileNetV1-V3, ShuffleNetV2, DenseNet, GoogLeNet, InceptionV3), each built
as Paddle's with the same parameter names, so a Paddle state dict's keys are these models' keys.

``pretrained=True`` downloads Paddle's published ImageNet weights (md5-checked, cached in
``$TOMLRUN_WEIGHTS_HOME`` or ``~/.cache/tomlrun/weights``) and loads them; a model Paddle
publishes no weights for raises a ValueError naming it.
"""
from core.vision.models.alexnet import AlexNet, alexnet
from core.vision.models.densenet import (
    DenseNet,
    densenet121,
    densenet161,
    densenet169,
    densenet201,
    densenet264,
)
from core.vision.models.googlenet import GoogLeNet, googlenet
from core.vision.models.inceptionv3 import InceptionV3, inception_v3
from core.vision.models.lenet import LeNet
from core.vision.models.mobilenetv1 import MobileNetV1, mobilenet_v1
from core.vision.models.mobilenetv2 import MobileNetV2, mobilenet_v2
from core.vision.models.mobilenetv3 import (
    MobileNetV3Large,
    MobileNetV3Small,
    mobilenet_v3_large,
    mobilenet_v3_small,
)
from core.vision.models.resnet import (
    BasicBlock,
    BottleneckBlock,
    ResNet,
    resnet18,
    resnet34,
    resnet50,
    resnet101,
    resnet152,
    resnext50_32x4d,
    resnext50_64x4d,
    resnext101_32x4d,
    resnext101_64x4d,
    resnext152_32x4d,
    resnext152_64x4d,
    wide_resnet50_2,
    wide_resnet101_2,
)
from core.vision.models.shufflenetv2 import (
    ShuffleNetV2,
    shufflenet_v2_swish,
    shufflenet_v2_x0_5,
    shufflenet_v2_x0_25,
    shufflenet_v2_x0_33,
    shufflenet_v2_x1_0,
    shufflenet_v2_x1_5,
    shufflenet_v2_x2_0,
)
from core.vision.models.squeezenet import SqueezeNet, squeezenet1_0, squeezenet1_1
from core.vision.models.vgg import VGG, vgg11, vgg13, vgg16, vgg19

__all__ = [
    "VGG", "AlexNet", "BasicBlock", "BottleneckBlock", "DenseNet", "GoogLeNet", "InceptionV3",
    "LeNet", "MobileNetV1", "MobileNetV2", "MobileNetV3Large", "MobileNetV3Small", "ResNet",
    "ShuffleNetV2", "SqueezeNet", "alexnet", "densenet121", "densenet161", "densenet169",
    "densenet201", "densenet264", "googlenet", "inception_v3", "mobilenet_v1", "mobilenet_v2",
    "mobilenet_v3_large", "mobilenet_v3_small", "resnet18", "resnet34", "resnet50", "resnet101",
    "resnet152", "resnext50_32x4d", "resnext50_64x4d", "resnext101_32x4d", "resnext101_64x4d",
    "resnext152_32x4d", "resnext152_64x4d", "shufflenet_v2_swish", "shufflenet_v2_x0_25",
    "shufflenet_v2_x0_33", "shufflenet_v2_x0_5", "shufflenet_v2_x1_0", "shufflenet_v2_x1_5",
    "shufflenet_v2_x2_0", "squeezenet1_0", "squeezenet1_1", "vgg11", "vgg13", "vgg16", "vgg19",
    "wide_resnet50_2", "wide_resnet101_2",
]
