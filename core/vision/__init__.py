"""``paddle.vision``: image datasets, transforms on host arrays, and classic models.

``core.vision.datasets`` (MNIST, FashionMNIST with Paddle's signature), ``core.vision.transforms``
(Compose, ToTensor, Normalize, Resize, crops, flips, ...; numpy, run per sample before
batching) and ``core.vision.models`` (LeNet, ResNet, VGG). Differences from Paddle:
docs/paddle.md, section "core.vision".
"""
from core.vision import datasets, models, transforms
from core.vision.image import get_image_backend, set_image_backend
from core.vision.models import *  # noqa: F403 - paddle.vision re-exports its models
from core.vision.transforms import *  # noqa: F403 - ... and its transforms

__all__ = ["datasets", "get_image_backend", "models", "set_image_backend", "transforms",
           *models.__all__, *transforms.__all__]
