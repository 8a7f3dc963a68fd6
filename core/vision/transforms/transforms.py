"""Transform objects (``paddle.vision.transforms``): callables on host images, chained by Compose.

Each transform is a ``BaseTransform``: ``__call__`` draws the random parameters once
(``_get_params``) and applies them to every input named in ``keys`` (``_apply_image``,
``_apply_mask``, ...), so an image and its mask are cropped or flipped alike. Random draws come
from ``core.backend.rng()``, the generator ``core.seed(n)`` resets, so a seeded run repeats its
augmentations (Paddle draws from Python's ``random``). A data-loader worker process (forked with
a copy of that generator) draws from a generator of its own, seeded from the copy and its
process id: otherwise every worker, in every pass, would repeat the same draws.
"""
from __future__ import annotations

import numbers
import os
from collections.abc import Sequence

import numpy as np

from core import backend
from core.vision.transforms import functional as F

_MAIN_PID = os.getpid()
_worker_rng: dict = {}  # {pid: Generator} in a forked worker process


def _rng() -> np.random.Generator:
    """The generator random transforms draw from: core's in the main process; in a forked
    worker, one seeded from (core's generator as the fork left it, the worker's pid), made once
    per process, so workers and passes (new workers) draw differently."""
    pid = os.getpid()
    if pid == _MAIN_PID:
        return backend.rng()
    if pid not in _worker_rng:
        _worker_rng.clear()
        _worker_rng[pid] = np.random.default_rng([int(backend.rng().integers(2**63)), pid])
    return _worker_rng[pid]


def _check_prob(owner: str, prob) -> float:
    if isinstance(prob, bool) or not isinstance(prob, numbers.Real) or not 0 <= prob <= 1:
        raise ValueError(f"{owner}: prob={prob!r} must be a probability in [0, 1].")
    return float(prob)


def _image_size(img) -> tuple[int, int]:
    """(height, width) of a numpy/PIL image."""
    shape = F.as_image(img, "transform").shape
    return int(shape[0]), int(shape[1])


class BaseTransform:
    """Base class of the vision transforms; subclass it to write your own.

    ``keys`` (default ``("image",)``) names what each element of the input tuple is: a
    transform called on ``(image, mask)`` with ``keys=("image", "mask")`` applies
    ``_apply_image`` to the first and ``_apply_mask`` to the second; inputs beyond ``keys`` pass
    through unchanged, and a single (non-tuple) input gives a single output. ``_get_params(
    inputs)`` runs once per call, before the ``_apply_*`` methods, and its result is
    ``self.params``: draw random choices there so every key gets the same one.
    """

    def __init__(self, keys=None):
        if keys is None:
            keys = ("image",)
        elif isinstance(keys, str) or not isinstance(keys, Sequence):
            raise ValueError(f"{type(self).__name__}: keys={keys!r} must be a sequence of input "
                             "names such as ('image', 'mask').")
        for key in keys:
            if self._get_apply(key) is None:
                raise NotImplementedError(f"{type(self).__name__}: keys names {key!r}, but the "
                                          f"transform has no _apply_{key} method.")
        self.keys = tuple(keys)
        self.params = None

    def _get_params(self, inputs):
        """Parameters shared by every key of one call (random draws); None by default."""
        return None

    def __call__(self, inputs):
        single = not isinstance(inputs, tuple)
        inputs = (inputs,) if single else inputs
        self.params = self._get_params(inputs)
        outputs = [self._get_apply(key)(value) for key, value in zip(self.keys, inputs)]
        outputs += list(inputs[len(self.keys):])
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def _get_apply(self, key: str):
        return getattr(self, f"_apply_{key}", None)

    def _apply_image(self, image):
        raise NotImplementedError(f"{type(self).__name__} must implement _apply_image")

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items()
                           if k not in ("keys", "params"))
        return f"{type(self).__name__}({fields})"


class Compose:
    """Apply ``transforms`` (a list of callables) one after the other."""

    def __init__(self, transforms):
        if isinstance(transforms, (str, bytes)) or not isinstance(transforms, Sequence) \
                or not all(callable(t) for t in transforms):
            raise TypeError(f"Compose: transforms must be a list of callables, got "
                            f"{transforms!r}.")
        self.transforms = list(transforms)

    def __call__(self, data):
        for transform in self.transforms:
            data = transform(data)
        return data

    def __repr__(self) -> str:
        inner = "".join(f"\n    {t}" for t in self.transforms)
        return f"Compose({inner}\n)"


class ToTensor(BaseTransform):
    """``[H, W(, C)]`` image -> ``[C, H, W]`` (or ``[H, W, C]`` with ``data_format='HWC'``);
    uint8 pixels become float32 in [0, 1] (``x / 255``), other dtypes are not scaled (Paddle's
    rule: MNIST's cv2-backend images are float32 0..255 and stay so).

    Returns a numpy array, not a Tensor: transforms run on host data and the data loader
    makes the batch a Tensor.
    """

    def __init__(self, data_format: str = "CHW", keys=None):
        super().__init__(keys)
        self.data_format = F.check_data_format("ToTensor", data_format)

    def _apply_image(self, img):
        return F.to_tensor(img, self.data_format)


class Normalize(BaseTransform):
    """``output[c] = (input[c] - mean[c]) / std[c]``; see ``functional.normalize`` for the
    broadcasting (a single number is used for three channels, as Paddle: ``[m, m, m]``)."""

    def __init__(self, mean=0.0, std=1.0, data_format: str = "CHW", to_rgb: bool = False,
                 keys=None):
        super().__init__(keys)
        if isinstance(mean, numbers.Number):
            mean = [mean] * 3
        if isinstance(std, numbers.Number):
            std = [std] * 3
        F._channel_values("mean", mean)
        if np.any(F._channel_values("std", std) == 0):
            raise ValueError(f"Normalize: std={std!r} has a zero: the output would be infinite.")
        self.mean, self.std = mean, std
        self.data_format = F.check_data_format("Normalize", data_format)
        self.to_rgb = bool(to_rgb)

    def _apply_image(self, img):
        return F.normalize(img, self.mean, self.std, self.data_format, self.to_rgb)


class Transpose(BaseTransform):
    """Permute the image's axes by ``order`` (default ``(2, 0, 1)``: HWC -> CHW); an ``[H, W]``
    image is read as ``[H, W, 1]`` first."""

    def __init__(self, order=(2, 0, 1), keys=None):
        super().__init__(keys)
        if isinstance(order, str) or not isinstance(order, Sequence) \
                or sorted(order) != list(range(len(order))):
            raise ValueError(f"Transpose: order={order!r} must be a permutation of the axes, "
                             "such as (2, 0, 1).")
        self.order = tuple(order)

    def _apply_image(self, img):
        img = F.as_image(img, "Transpose")
        if img.ndim == 2:
            img = img[:, :, None]
        if len(self.order) != img.ndim:
            raise ValueError(f"Transpose: order={self.order} has {len(self.order)} axes; the "
                             f"image has {img.ndim} ({list(img.shape)}).")
        return img.transpose(self.order)


class Resize(BaseTransform):
    """Resize to ``size`` ((h, w), or an int the shorter side becomes) with 'bilinear' or
    'nearest' interpolation (OpenCV's, see ``functional.resize``)."""

    def __init__(self, size, interpolation: str = "bilinear", keys=None):
        super().__init__(keys)
        self.size = F.check_size("Resize", size)
        self.interpolation = F.check_interpolation("Resize", interpolation)

    def _apply_image(self, img):
        return F.resize(img, self.size, self.interpolation)

    def _apply_mask(self, mask):
        return F.resize(mask, self.size, "nearest")  # labels must not be blended


class CenterCrop(BaseTransform):
    """Crop the centre ``size`` window (an int: a square)."""

    def __init__(self, size, keys=None):
        super().__init__(keys)
        self.size = F.check_size("CenterCrop", size)

    def _apply_image(self, img):
        return F.center_crop(img, self.size)

    _apply_mask = _apply_image


class Pad(BaseTransform):
    """Pad the borders (see ``functional.pad`` for ``padding``, ``fill`` and the modes)."""

    def __init__(self, padding, fill=0, padding_mode: str = "constant", keys=None):
        super().__init__(keys)
        F.check_padding("Pad", padding)
        self.padding = tuple(padding) if isinstance(padding, list) else padding
        self.fill = tuple(fill) if isinstance(fill, list) else fill
        self.padding_mode = F.check_padding_mode("Pad", padding_mode)

    def _apply_image(self, img):
        return F.pad(img, self.padding, self.fill, self.padding_mode)


class RandomCrop(BaseTransform):
    """Crop a ``size`` window at a random place, after padding by ``padding`` if given.

    ``pad_if_needed`` pads an image smaller than ``size`` up to it (width, then height), with
    ``fill`` and ``padding_mode`` as ``Pad``. The top-left corner is drawn uniformly from every
    place the window fits.
    """

    def __init__(self, size, padding=None, pad_if_needed: bool = False, fill=0,
                 padding_mode: str = "constant", keys=None):
        super().__init__(keys)
        size = F.check_size("RandomCrop", size)
        self.size = (size, size) if isinstance(size, int) else size
        if padding is not None:
            F.check_padding("RandomCrop", padding)
        self.padding = padding
        self.pad_if_needed = bool(pad_if_needed)
        self.fill = fill
        self.padding_mode = F.check_padding_mode("RandomCrop", padding_mode)

    def _padded(self, img):
        if self.padding is not None:
            img = F.pad(img, self.padding, self.fill, self.padding_mode)
        h, w = _image_size(img)
        if self.pad_if_needed and w < self.size[1]:
            img = F.pad(img, (self.size[1] - w, 0), self.fill, self.padding_mode)
        if self.pad_if_needed and h < self.size[0]:
            img = F.pad(img, (0, self.size[0] - h), self.fill, self.padding_mode)
        return img

    def _get_params(self, inputs):
        first = self.keys.index("image") if "image" in self.keys else 0
        h, w = _image_size(self._padded(inputs[first]))
        th, tw = self.size
        if th > h or tw > w:
            raise ValueError(f"RandomCrop: size={self.size} is larger than the (padded) {h}x{w} "
                             "image; pass padding= or pad_if_needed=True.")
        rng = _rng()
        return int(rng.integers(0, h - th + 1)), int(rng.integers(0, w - tw + 1))

    def _apply_image(self, img):
        top, left = self.params
        return F.crop(self._padded(img), top, left, *self.size)

    _apply_mask = _apply_image


class RandomHorizontalFlip(BaseTransform):
    """Mirror left-right with probability ``prob``."""

    def __init__(self, prob: float = 0.5, keys=None):
        super().__init__(keys)
        self.prob = _check_prob("RandomHorizontalFlip", prob)

    def _get_params(self, inputs):
        return bool(_rng().random() < self.prob)

    def _apply_image(self, img):
        return F.hflip(img) if self.params else img

    _apply_mask = _apply_image


class RandomVerticalFlip(BaseTransform):
    """Mirror top-bottom with probability ``prob``."""

    def __init__(self, prob: float = 0.5, keys=None):
        super().__init__(keys)
        self.prob = _check_prob("RandomVerticalFlip", prob)

    def _get_params(self, inputs):
        return bool(_rng().random() < self.prob)

    def _apply_image(self, img):
        return F.vflip(img) if self.params else img

    _apply_mask = _apply_image


class Grayscale(BaseTransform):
    """RGB ``[H, W, 3]`` -> gray ``[H, W, 1]`` (or three equal channels with
    ``num_output_channels=3``), ``0.299 R + 0.587 G + 0.114 B``."""

    def __init__(self, num_output_channels: int = 1, keys=None):
        super().__init__(keys)
        if num_output_channels not in (1, 3) or isinstance(num_output_channels, bool):
            raise ValueError(f"Grayscale: num_output_channels={num_output_channels!r} must be 1 "
                             "or 3.")
        self.num_output_channels = num_output_channels

    def _apply_image(self, img):
        return F.to_grayscale(img, self.num_output_channels)


__all__ = ["BaseTransform", "CenterCrop", "Compose", "Grayscale", "Normalize", "Pad",
           "RandomCrop", "RandomHorizontalFlip", "RandomVerticalFlip", "Resize", "ToTensor",
           "Transpose"]
