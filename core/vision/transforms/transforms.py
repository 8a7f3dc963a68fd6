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

import math
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
    """Resize to ``size`` ((h, w), or an int the shorter side becomes) (``paddle.vision.
    transforms.Resize(size, interpolation='bilinear', keys=None)``); ``interpolation`` is one
    of OpenCV's 'nearest', 'bilinear', 'bicubic', 'area', 'lanczos' (see
    ``functional.resize``)."""

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


def _first_image(transform: BaseTransform, inputs):
    """The input the random parameters are drawn for: the one keyed 'image' (else the first)."""
    return inputs[transform.keys.index("image") if "image" in transform.keys else 0]


def _check_range(owner: str, name: str, value, low=0.0, high=math.inf) -> tuple[float, float]:
    """A pair (min, max) with ``low <= min <= max <= high``."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or len(value) != 2 \
            or not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in value) \
            or not low <= value[0] <= value[1] <= high:
        raise ValueError(f"{owner}: {name}={value!r} must be a pair (min, max) with "
                         f"{low} <= min <= max <= {high}.")
    return float(value[0]), float(value[1])


def _jitter_range(owner: str, name: str, value, center: float = 1.0,
                  bound: float = math.inf):
    """Paddle's ``_check_input``: a number ``v >= 0`` -> ``[max(0, center - v), center + v]``
    (``[-v, v]`` for the hue, ``center=0``), a pair is taken as it is; None when the range is
    the single point ``center`` (nothing to do)."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        if not 0 <= value <= bound:
            raise ValueError(f"{owner}: {name}={value!r} must be a number in [0, {bound}] or a "
                             "pair (min, max).")
        low = center - value if center == 0 else max(0.0, center - value)
        value = (low, center + value)
    low_bound = -bound if center == 0 else 0.0
    low, high = _check_range(owner, name, value, low_bound, bound)
    return None if low == high == center else (low, high)


def _angle_range(owner: str, name: str, value, sizes=(2,)) -> tuple[float, ...]:
    """Paddle's ``_setup_angle``: a number ``d >= 0`` -> ``(-d, d)``, else a sequence of one of
    ``sizes`` numbers."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        if not value >= 0:
            raise ValueError(f"{owner}: {name}={value!r} as a single number must be >= 0 (the "
                             "range is (-value, value)).")
        return -float(value), float(value)
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) \
            or len(value) not in sizes \
            or not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in value):
        counts = " or ".join(str(n) for n in sizes)
        raise ValueError(f"{owner}: {name}={value!r} must be a number >= 0 or a sequence of "
                         f"{counts} numbers.")
    return tuple(float(v) for v in value)


def _check_fill(owner: str, fill):
    if fill is None:
        return 0
    if isinstance(fill, numbers.Real) and not isinstance(fill, bool):
        return fill
    if isinstance(fill, Sequence) and not isinstance(fill, (str, bytes)) \
            and all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in fill):
        return tuple(fill)
    raise ValueError(f"{owner}: fill={fill!r} must be a number or one number per channel.")


class RandomResizedCrop(BaseTransform):
    """Crop a random window, then resize it to ``size`` (``paddle.vision.transforms.
    RandomResizedCrop(size, scale=(0.08, 1.0), ratio=(3/4, 4/3), interpolation='bilinear',
    keys=None)``).

    The window's area is ``uniform(*scale)`` of the image's and its aspect ratio (width /
    height) ``exp(uniform(log ratio))``; up to 10 draws are tried for one that fits, else the
    centred window of the image's aspect ratio clipped to ``ratio``, as Paddle. A mask
    (``keys=(..., 'mask')``) is cut alike and resized with 'nearest'.
    """

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4, 4.0 / 3),
                 interpolation: str = "bilinear", keys=None):
        super().__init__(keys)
        size = F.check_size("RandomResizedCrop", size)
        self.size = (size, size) if isinstance(size, int) else size
        self.scale = _check_range("RandomResizedCrop", "scale", scale)
        self.ratio = _check_range("RandomResizedCrop", "ratio", ratio, low=1e-12)
        self.interpolation = F.check_interpolation("RandomResizedCrop", interpolation)

    def _get_params(self, inputs, attempts: int = 10):
        height, width = _image_size(_first_image(self, inputs))
        area, rng = height * width, _rng()
        log_ratio = (math.log(self.ratio[0]), math.log(self.ratio[1]))
        for _ in range(attempts):
            target_area = rng.uniform(*self.scale) * area
            aspect = math.exp(rng.uniform(*log_ratio))
            w = int(round(math.sqrt(target_area * aspect)))
            h = int(round(math.sqrt(target_area / aspect)))
            if 0 < w <= width and 0 < h <= height:
                top = int(rng.integers(0, height - h + 1))
                return top, int(rng.integers(0, width - w + 1)), h, w
        in_ratio = width / height  # fall back to a centred crop
        if in_ratio < self.ratio[0]:
            w, h = width, int(round(width / self.ratio[0]))
        elif in_ratio > self.ratio[1]:
            w, h = int(round(height * self.ratio[1])), height
        else:
            w, h = width, height
        return (height - h) // 2, (width - w) // 2, h, w

    def _apply_image(self, img):
        return F.resize(F.crop(img, *self.params), self.size, self.interpolation)

    def _apply_mask(self, mask):
        return F.resize(F.crop(mask, *self.params), self.size, "nearest")


class BrightnessTransform(BaseTransform):
    """``adjust_brightness`` by a factor drawn from ``[max(0, 1 - value), 1 + value]`` (or the
    pair ``value``) (``paddle.vision.transforms.BrightnessTransform(value, keys=None)``);
    ``value=0`` leaves the image as it is."""

    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = _jitter_range("BrightnessTransform", "value", value)

    def _get_params(self, inputs):
        return None if self.value is None else float(_rng().uniform(*self.value))

    def _apply_image(self, img):
        return img if self.params is None else F.adjust_brightness(img, self.params)


class ContrastTransform(BaseTransform):
    """``adjust_contrast`` by a factor drawn from ``[max(0, 1 - value), 1 + value]`` (or the
    pair ``value``) (``paddle.vision.transforms.ContrastTransform(value, keys=None)``)."""

    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = _jitter_range("ContrastTransform", "value", value)

    def _get_params(self, inputs):
        return None if self.value is None else float(_rng().uniform(*self.value))

    def _apply_image(self, img):
        return img if self.params is None else F.adjust_contrast(img, self.params)


class SaturationTransform(BaseTransform):
    """``adjust_saturation`` by a factor drawn from ``[max(0, 1 - value), 1 + value]`` (or the
    pair ``value``) (``paddle.vision.transforms.SaturationTransform(value, keys=None)``)."""

    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = _jitter_range("SaturationTransform", "value", value)

    def _get_params(self, inputs):
        return None if self.value is None else float(_rng().uniform(*self.value))

    def _apply_image(self, img):
        return img if self.params is None else F.adjust_saturation(img, self.params)


class HueTransform(BaseTransform):
    """``adjust_hue`` by a shift drawn from ``[-value, value]`` (``value`` in [0, 0.5]) or from
    the pair ``value`` within [-0.5, 0.5] (``paddle.vision.transforms.HueTransform(value,
    keys=None)``)."""

    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = _jitter_range("HueTransform", "value", value, center=0.0, bound=0.5)

    def _get_params(self, inputs):
        return None if self.value is None else float(_rng().uniform(*self.value))

    def _apply_image(self, img):
        return img if self.params is None else F.adjust_hue(img, self.params)


class ColorJitter(BaseTransform):
    """Brightness, contrast, saturation and hue jitter in a random order
    (``paddle.vision.transforms.ColorJitter(brightness=0, contrast=0, saturation=0, hue=0,
    keys=None)``): each argument as the value of BrightnessTransform, ContrastTransform,
    SaturationTransform and HueTransform (0: that adjustment is left out)."""

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0, keys=None):
        super().__init__(keys)
        self.brightness, self.contrast = brightness, contrast
        self.saturation, self.hue = saturation, hue
        self._adjust = [(F.adjust_brightness, _jitter_range("ColorJitter", "brightness",
                                                            brightness)),
                        (F.adjust_contrast, _jitter_range("ColorJitter", "contrast", contrast)),
                        (F.adjust_saturation, _jitter_range("ColorJitter", "saturation",
                                                            saturation)),
                        (F.adjust_hue, _jitter_range("ColorJitter", "hue", hue, center=0.0,
                                                     bound=0.5))]

    def _get_params(self, inputs):
        """[(adjustment, factor), ...] in the order they run (shuffled, as Paddle)."""
        rng = _rng()
        order = rng.permutation(len(self._adjust)).tolist()
        return [(self._adjust[i][0], float(rng.uniform(*self._adjust[i][1]))) for i in order
                if self._adjust[i][1] is not None]

    def _apply_image(self, img):
        for adjust, factor in self.params:
            img = adjust(img, factor)
        return img

    def __repr__(self) -> str:
        return (f"ColorJitter(brightness={self.brightness!r}, contrast={self.contrast!r}, "
                f"saturation={self.saturation!r}, hue={self.hue!r})")


class RandomRotation(BaseTransform):
    """Rotate by an angle drawn from ``degrees`` ((min, max), or ``(-d, d)`` for a number
    ``d``), counter-clockwise (``paddle.vision.transforms.RandomRotation(degrees,
    interpolation='nearest', expand=False, center=None, fill=0, keys=None)``); see
    ``functional.rotate`` for ``expand``, ``center`` and ``fill``. A mask is turned alike
    with 'nearest' and fill 0."""

    def __init__(self, degrees, interpolation: str = "nearest", expand: bool = False,
                 center=None, fill=0, keys=None):
        super().__init__(keys)
        self.degrees = _angle_range("RandomRotation", "degrees", degrees)
        self.interpolation = F.check_interpolation("RandomRotation", interpolation,
                                                   F.WARP_INTERPOLATIONS)
        self.expand = bool(expand)
        self.center = None if center is None else F._check_point("RandomRotation", "center",
                                                                  center)
        self.fill = _check_fill("RandomRotation", fill)

    def _get_params(self, inputs):
        return float(_rng().uniform(*self.degrees))

    def _apply_image(self, img):
        return F.rotate(img, self.params, self.interpolation, self.expand, self.center,
                        self.fill)

    def _apply_mask(self, mask):
        return F.rotate(mask, self.params, "nearest", self.expand, self.center, 0)


class RandomAffine(BaseTransform):
    """A random ``functional.affine`` (``paddle.vision.transforms.RandomAffine(degrees,
    translate=None, scale=None, shear=None, interpolation='nearest', fill=0, center=None,
    keys=None)``), each parameter drawn uniformly as Paddle:

    - angle from ``degrees`` ((min, max), or ``(-d, d)``), clockwise as ``affine``;
    - shift ``(int(uniform(-a W, a W)), int(uniform(-b H, b H)))`` for ``translate=(a, b)``
      (fractions in [0, 1]);
    - scale from ``scale=(min, max)`` (> 0);
    - shear along x from ``shear`` (a number ``s``: ``(-s, s)``; a pair), and along y too from
      its third and fourth values when it has four.

    A mask is warped alike with 'nearest' and fill 0.
    """

    def __init__(self, degrees, translate=None, scale=None, shear=None,
                 interpolation: str = "nearest", fill=0, center=None, keys=None):
        super().__init__(keys)
        self.degrees = _angle_range("RandomAffine", "degrees", degrees)
        self.translate = None if translate is None else _check_translate(translate)
        self.scale = None if scale is None else _check_range("RandomAffine", "scale", scale,
                                                             low=1e-12)
        self.shear = None if shear is None else _angle_range("RandomAffine", "shear", shear,
                                                             sizes=(2, 4))
        self.interpolation = F.check_interpolation("RandomAffine", interpolation,
                                                   F.WARP_INTERPOLATIONS)
        self.fill = _check_fill("RandomAffine", fill)
        self.center = None if center is None else F._check_point("RandomAffine", "center",
                                                                  center)

    def _get_params(self, inputs):
        height, width = _image_size(_first_image(self, inputs))
        rng = _rng()
        angle = float(rng.uniform(*self.degrees))
        translate = (0, 0)
        if self.translate is not None:
            max_dx, max_dy = self.translate[0] * width, self.translate[1] * height
            translate = (int(rng.uniform(-max_dx, max_dx)), int(rng.uniform(-max_dy, max_dy)))
        scale = 1.0 if self.scale is None else float(rng.uniform(*self.scale))
        shear = (0.0, 0.0)
        if self.shear is not None:
            shear = (float(rng.uniform(*self.shear[:2])),
                     float(rng.uniform(*self.shear[2:])) if len(self.shear) == 4 else 0.0)
        return angle, translate, scale, shear

    def _apply_image(self, img):
        return F.affine(img, *self.params, interpolation=self.interpolation, fill=self.fill,
                        center=self.center)

    def _apply_mask(self, mask):
        return F.affine(mask, *self.params, interpolation="nearest", fill=0, center=self.center)


def _check_translate(translate) -> tuple[float, float]:
    """RandomAffine's ``translate``: a pair (a, b) of fractions in [0, 1] (not a range)."""
    if isinstance(translate, (str, bytes)) or not isinstance(translate, Sequence) \
            or len(translate) != 2 \
            or not all(isinstance(v, numbers.Real) and not isinstance(v, bool) and 0 <= v <= 1
                       for v in translate):
        raise ValueError(f"RandomAffine: translate={translate!r} must be a pair (a, b) of "
                         "fractions in [0, 1] (the largest shift as a fraction of the width and "
                         "height).")
    return float(translate[0]), float(translate[1])


class RandomPerspective(BaseTransform):
    """With probability ``prob``, a ``functional.perspective`` moving each corner inwards by a
    random amount up to ``distortion_scale`` of half the width / height
    (``paddle.vision.transforms.RandomPerspective(prob=0.5, distortion_scale=0.5,
    interpolation='nearest', fill=0, keys=None)``). A mask is warped alike with 'nearest' and
    fill 0."""

    def __init__(self, prob: float = 0.5, distortion_scale: float = 0.5,
                 interpolation: str = "nearest", fill=0, keys=None):
        super().__init__(keys)
        self.prob = _check_prob("RandomPerspective", prob)
        if isinstance(distortion_scale, bool) or not isinstance(distortion_scale, numbers.Real) \
                or not 0 <= distortion_scale <= 1:
            raise ValueError(f"RandomPerspective: distortion_scale={distortion_scale!r} must be "
                             "in [0, 1].")
        self.distortion_scale = float(distortion_scale)
        self.interpolation = F.check_interpolation("RandomPerspective", interpolation,
                                                   F.WARP_INTERPOLATIONS)
        self.fill = _check_fill("RandomPerspective", fill)

    def get_params(self, width: int, height: int, distortion_scale: float):
        """(startpoints, endpoints): the image's corners [top-left, top-right, bottom-right,
        bottom-left] and where they move, each coordinate ``int(uniform(...))`` within
        ``distortion_scale`` of half the size from its corner, as Paddle."""
        rng = _rng()
        dx, dy = int(distortion_scale * (width // 2)), int(distortion_scale * (height // 2))

        def near(start: int, end: int) -> int:
            return int(rng.uniform(start, end))

        top_left = [near(0, dx + 1), near(0, dy + 1)]
        top_right = [near(width - dx - 1, width), near(0, dy + 1)]
        bottom_right = [near(width - dx - 1, width), near(height - dy - 1, height)]
        bottom_left = [near(0, dx + 1), near(height - dy - 1, height)]
        start = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
        return start, [top_left, top_right, bottom_right, bottom_left]

    def _get_params(self, inputs):
        if not _rng().random() < self.prob:
            return None
        height, width = _image_size(_first_image(self, inputs))
        return self.get_params(width, height, self.distortion_scale)

    def _apply_image(self, img):
        if self.params is None:
            return img
        return F.perspective(img, *self.params, self.interpolation, self.fill)

    def _apply_mask(self, mask):
        return mask if self.params is None else F.perspective(mask, *self.params, "nearest", 0)


class RandomErasing(BaseTransform):
    """With probability ``prob``, set a random rectangle of the image to ``value``
    (``paddle.vision.transforms.RandomErasing(prob=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3),
    value=0, inplace=False, keys=None)``).

    The rectangle's area is ``uniform(*scale)`` of the image's and its height / width ratio
    ``exp(uniform(log ratio))``; up to 10 draws are tried for one smaller than the image, else
    nothing is erased, as Paddle. ``value``: a number, one per channel (three), or 'random'
    (normal noise times 255, as Paddle's numpy path; integer images clip it to their range).
    The image is ``[H, W(, C)]`` (numpy layout): put RandomErasing before ``ToTensor``, whose
    output here is a ``[C, H, W]`` numpy array, not a Tensor.
    """

    def __init__(self, prob: float = 0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0,
                 inplace: bool = False, keys=None):
        super().__init__(keys)
        self.prob = _check_prob("RandomErasing", prob)
        self.scale = _check_range("RandomErasing", "scale", scale, 0.0, 1.0)
        self.ratio = _check_range("RandomErasing", "ratio", ratio, low=1e-12)
        if isinstance(value, str):
            if value != "random":
                raise ValueError(f"RandomErasing: value={value!r} must be a number, a sequence "
                                 "of one or three numbers, or 'random'.")
        elif isinstance(value, numbers.Real) and not isinstance(value, bool):
            pass
        elif not (isinstance(value, Sequence) and len(value) in (1, 3)
                  and all(isinstance(v, numbers.Real) for v in value)):
            raise ValueError(f"RandomErasing: value={value!r} must be a number, a sequence of "
                             "one or three numbers, or 'random'.")
        self.value = tuple(value) if isinstance(value, list) else value
        self.inplace = bool(inplace)

    def _get_params(self, inputs, attempts: int = 10):
        rng = _rng()
        if not rng.random() < self.prob:
            return None
        img = F.as_image(_first_image(self, inputs), "RandomErasing")
        h, w = img.shape[:2]
        channels = 1 if img.ndim == 2 else img.shape[2]
        log_ratio = (math.log(self.ratio[0]), math.log(self.ratio[1]))
        for _ in range(attempts):
            area = rng.uniform(*self.scale) * h * w
            aspect = math.exp(rng.uniform(*log_ratio))
            eh, ew = int(round(math.sqrt(area * aspect))), int(round(math.sqrt(area / aspect)))
            if eh >= h or ew >= w:
                continue
            if self.value == "random":
                value = rng.standard_normal((eh, ew, channels)) * 255
            else:
                value = np.asarray(self.value, dtype=np.float64).reshape(1, 1, -1)
                if value.shape[2] not in (1, channels):
                    raise ValueError(f"RandomErasing: value={self.value!r} has "
                                     f"{value.shape[2]} numbers; the image has {channels} "
                                     "channels.")
            top = int(rng.integers(0, h - eh + 1))
            return top, int(rng.integers(0, w - ew + 1)), eh, ew, value
        return None

    def _apply_image(self, img):
        if self.params is None:
            return img
        return F.erase(img, *self.params, inplace=self.inplace)


__all__ = ["BaseTransform", "BrightnessTransform", "CenterCrop", "ColorJitter", "Compose",
           "ContrastTransform", "Grayscale", "HueTransform", "Normalize", "Pad", "RandomAffine",
           "RandomCrop", "RandomErasing", "RandomHorizontalFlip", "RandomPerspective",
           "RandomResizedCrop", "RandomRotation", "RandomVerticalFlip", "Resize",
           "SaturationTransform", "ToTensor", "Transpose"]
