"""``paddle.vision.datasets.MNIST`` / ``FashionMNIST``: Paddle's signature over core.datasets.

The files are found, md5-fetched, decoded and checked by ``core.datasets.MNIST`` /
``FashionMNIST`` (``core.datasets.download`` for ``download=True``); this layer gives Paddle's
view of them: ``mode`` 'train' (60,000) or 'test' (10,000), samples ``(image, label)`` with the
image, before ``transform``, a grayscale ``PIL.Image`` (backend 'pil', Paddle's default; without
Pillow the uint8 ``[28, 28]`` array that image would hold, so ``ToTensor`` scales it to [0, 1]
as it does the PIL image) or float32 ``[28, 28]`` of pixel values 0..255 (backend 'cv2': Paddle
keeps the pixels as float32, so ``ToTensor`` leaves them unscaled), and the label an int64 array
of shape ``[1]`` (batches: ``[B, 1]``, which ``F.cross_entropy`` and ``core.metric.Accuracy``
take).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from core import datasets as core_datasets
from core.datasets import DatasetError
from core.io import Dataset
from core.vision.image import dataset_settings, pil_image_module

MODES = ("train", "test")


def _reader(base: type) -> type:
    """``base`` (a core.datasets IDX set) that reads the files it is given, when given."""

    class Reader(base):
        def __init__(self, image_path, label_path, mode: str, download: bool):
            self.given = (image_path, label_path)
            self.found = None
            super().__init__(root=None, split=mode, valid_size=0, normalize=False,
                             download=download)

        def _locate(self, part, root, download, cache_dir, mirrors):
            image_path, label_path = self.given
            if image_path is None or label_path is None:  # the other from the download cache
                try:
                    cached = super()._locate(part, root, download, cache_dir, mirrors)
                except DatasetError as exc:
                    if download:
                        raise
                    raise DatasetError(
                        f"{self.title} {part} files are not in the download cache and "
                        "download=False: pass image_path= and label_path= (the IDX files, "
                        "raw or .gz), or download=True to fetch them.") from exc
                image_path = cached[0] if image_path is None else image_path
                label_path = cached[1] if label_path is None else label_path
            self.found = (Path(image_path).expanduser(), Path(label_path).expanduser())
            for name, path in zip(("image_path", "label_path"), self.found):
                if not path.is_file():
                    raise DatasetError(f"{self.title}: {name}={str(path)!r} is not a file.")
            return self.found

    Reader.__name__ = Reader.__qualname__ = f"_{base.__name__}Reader"
    return Reader


class MNIST(Dataset):
    """The MNIST handwritten digits with Paddle's ``paddle.vision.datasets.MNIST`` signature.

    ``image_path`` / ``label_path``: the IDX files (raw or .gz); when None, the download cache
    (``~/.cache/tomlrun/mnist``), where ``download=True`` fetches the four files (md5-checked).
    ``mode``: 'train' (60,000 samples) or 'test' (10,000). ``transform``: a callable applied to
    each image. ``backend``: 'pil' or 'cv2'; None takes ``core.vision.get_image_backend()``
    ('pil' unless changed, as Paddle).

    ``dataset[i]`` is ``(image, label)``: with 'pil' the image is a grayscale ``PIL.Image``
    (mode 'L') before the transform, or without Pillow the uint8 ``[28, 28]`` array it would
    hold, and is returned as the transform leaves it; with 'cv2' it is float32 ``[28, 28]``
    (0..255) before the transform and cast to float32 after it. ``label`` is an int64 array of
    shape ``[1]``.
    """

    NAME = "mnist"
    _source = core_datasets.MNIST

    def __init__(self, image_path=None, label_path=None, mode: str = "train", transform=None,
                 download: bool = True, backend=None):
        owner = type(self).__name__
        self.mode, self.backend = dataset_settings(owner, mode, MODES, transform, backend)
        self.transform = transform
        self.dtype = "float32"  # Paddle: paddle.get_default_dtype()
        data = _reader(self._source)(image_path, label_path, self.mode, bool(download))
        self.image_path, self.label_path = (str(path) for path in data.found)
        self.images = data.images[:, 0]  # float32 [N, 28, 28], pixel values 0..255 as Paddle
        self.labels = data.labels[:, None]  # int64 [N, 1]: each label an array of shape [1]
        self.classes = data.classes

    @property
    def arrays(self):
        """The (images, labels) arrays when samples are those rows unchanged (no transform), so
        ``core.io.DataLoader`` cuts batches by fancy indexing; else None. With 'pil' the images
        are uint8, what stacking the PIL images (or their arrays) gives."""
        if self.transform is not None:
            return None
        if self.backend == "cv2":
            return self.images, self.labels
        if getattr(self, "_uint8_images", None) is None:  # made once, on first use
            self._uint8_images = self.images.astype(np.uint8)
        return self._uint8_images, self.labels

    def __getitem__(self, idx):
        image, label = self.images[idx], self.labels[idx].copy()
        if self.backend == "pil":
            image = _pil_image(image)
        else:
            image = image.copy()  # a transform may write into it
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "pil":
            return image, label
        return image.astype(self.dtype), label

    def __len__(self) -> int:
        return int(self.labels.shape[0])


def _pil_image(pixels: np.ndarray):
    """A grayscale PIL image of ``pixels`` (Paddle's ``Image.fromarray(uint8, mode='L')``), or
    without Pillow the uint8 array that image holds (``np.asarray(image)``)."""
    pixels = pixels.astype(np.uint8)
    image_module = pil_image_module()
    if image_module is None:
        return pixels
    return image_module.fromarray(pixels)  # a 2-D uint8 array is mode 'L'


class FashionMNIST(MNIST):
    """Zalando's Fashion-MNIST with Paddle's signature: same layout and sizes as ``MNIST``, ten
    kinds of clothing (``classes``); the download cache is ``~/.cache/tomlrun/fashion_mnist``."""

    NAME = "fashion-mnist"
    _source = core_datasets.FashionMNIST


__all__ = ["MNIST", "FashionMNIST"]
