"""``paddle.vision.transforms``: image transforms on host (numpy) arrays, and their functional
forms in ``core.vision.transforms.functional``."""
from core.vision.transforms import functional
from core.vision.transforms.transforms import (
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

__all__ = ["BaseTransform", "CenterCrop", "Compose", "Grayscale", "Normalize", "Pad",
           "RandomCrop", "RandomHorizontalFlip", "RandomVerticalFlip", "Resize", "ToTensor",
           "Transpose", "functional"]
