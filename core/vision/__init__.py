"""``paddle.vision``: image datasets, transforms on host arrays, and classic models.

``core.vision.datasets`` (MNIST, FashionMNIST with Paddle's signature), ``core.vision.transforms``
(Compose, ToTensor, Normalize, Resize, crops, flips, ...; numpy, run per sample before
batching) and ``core.vision.models`` (LeNet, ResNet, VGG). Differences from Paddle:
docs/paddle.md, section "core.vision".
"""
from core.vision import datasets, models, transforms
from core.vision.image import get_image_backend, set_image_backend
from core.vision.models import (
    VGG,
    LeNet,
    ResNet,
    resnet18,
    resnet34,
    resnet50,
    resnet101,
    resnet152,
    vgg11,
    vgg13,
    vgg16,
    vgg19,
)
from core.vision.transforms import (
    BaseTransform,
    CenterCrop,
    Compose,
    Grayscale,
    Normalize,
    Pad,
    RandomCrop,
    RandomHorizontalFlip,
    RandomVerticalFlip,
    Resize,
    ToTensor,
    Transpose,
)

__all__ = ["VGG", "BaseTransform", "CenterCrop", "Compose", "Grayscale", "LeNet", "Normalize",
           "Pad", "RandomCrop", "RandomHorizontalFlip", "RandomVerticalFlip", "ResNet", "Resize",
           "ToTensor", "Transpose", "datasets", "get_image_backend", "models", "resnet18",
           "resnet34", "resnet50", "resnet101", "resnet152", "set_image_backend", "transforms",
           "vgg11", "vgg13", "vgg16", "vgg19"]
