"""``paddle.vision.models``: LeNet, ResNet and VGG, built as Paddle's (same parameter names).

No pretrained weights are shipped: ``pretrained=True`` raises and says how to load your own.
"""
from core.vision.models.lenet import LeNet
from core.vision.models.resnet import (
    BasicBlock,
    BottleneckBlock,
    ResNet,
    resnet18,
    resnet34,
    resnet50,
    resnet101,
    resnet152,
)
from core.vision.models.vgg import VGG, vgg11, vgg13, vgg16, vgg19

__all__ = ["VGG", "BasicBlock", "BottleneckBlock", "LeNet", "ResNet", "resnet18", "resnet34",
           "resnet50", "resnet101", "resnet152", "vgg11", "vgg13", "vgg16", "vgg19"]
