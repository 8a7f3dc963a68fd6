"""``paddle.vision``: image datasets, transforms on host arrays, and classic models.

``core.vision.datasets`` (MNIST, FashionMNIST with Paddle's signature), ``core.vision.transforms``
(Compose, ToTensor, Normalize, Resize, crops, flips, ...; numpy, run per sample before
batching) and ``core.vision.models`` (LeNet, VGG, ResNet/ResNeXt, MobileNet, DenseNet, ...).
``core.vision.ops`` (detection operators: nms, roi_align, deform_conv2d, ...) is imported on
first use. Differences from Paddle: docs/paddle.md, the "core.vision" sections.
"""
import importlib

from core.vision import datasets, models, transforms
from core.vision.image import get_image_backend, set_image_backend
from core.vision.models import *  # noqa: F403 - paddle.vision re-exports its models
from core.vision.transforms import *  # noqa: F403 - ... and its transforms

__all__ = ["datasets", "get_image_backend", "models", "set_image_backend", "transforms",
           *models.__all__, *transforms.__all__]


def __getattr__(name: str):
    """``core.vision.ops`` loads on first use: most programs never run a detection op (it is
    left out of ``__all__`` for the same reason, as ``vision`` is of core's)."""
    if name == "ops":
        return importlib.import_module("core.vision.ops")  # also binds core.vision.ops
    raise AttributeError(f"module 'core.vision' has no attribute {name!r}")
