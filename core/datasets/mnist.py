"""MNIST and Fashion-MNIST, read from the four standard IDX files.

Files are looked for in ``root`` (raw or ``.gz``), then in the download cache; with
``download=True`` missing ones are fetched into the cache (``core.datasets.download``). The
validation split is the *last* ``valid_size`` samples of the 60,000-sample training set, as in
PaddlePaddle's MNIST tutorial, so it needs no seed and never overlaps the training split.
"""
from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import ClassVar

import numpy as np

from core.datasets.common import DatasetError, ImageDataset, check_split, holdout_count
from core.datasets.download import default_cache_dir
from core.datasets.download import download as download_files
from core.datasets.idx import read_idx

_PIXEL_MAX = 255.0


@functools.lru_cache(maxsize=4)
def _read_cached(path: str, ndim: int, stamp: tuple) -> np.ndarray:
    """Decode an IDX file once per process (train and valid splits share the training files)."""
    del stamp  # part of the cache key only: a rewritten file is read again
    array = read_idx(path, ndim=ndim, dtype_code=0x08)
    array.setflags(write=False)
    return array


def _read(path: Path, ndim: int) -> np.ndarray:
    stat = os.stat(path)
    return _read_cached(str(path), ndim, (stat.st_mtime_ns, stat.st_size))


class IDXImageDataset(ImageDataset):
    """An image-classification set stored as MNIST-style IDX files; subclasses name the set.

    Samples are (image float32 [1, H, W], label int64); pixels are scaled to [0, 1] when
    ``normalize``. ``valid_size`` is a fraction or a count of the training set held out.
    """

    name = ""  # the key in core.datasets.download.SOURCES and the cache folder name
    title = ""
    files: ClassVar[dict] = {"train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
             "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")}
    counts: ClassVar[dict] = {"train": 60000, "test": 10000}
    image_shape = (28, 28)
    classes: tuple = ()

    def __init__(self, root=None, split: str = "train", valid_size=10000, normalize: bool = True,
                 download: bool = False, cache_dir=None, mirrors=None):
        self.split = check_split(split)
        part = "test" if split == "test" else "train"
        image_file, label_file = self._locate(part, root, download, cache_dir, mirrors)
        images, labels = self._load(part, image_file, label_file)
        if split != "test":
            cut = len(labels) - holdout_count(valid_size, len(labels), "valid_size")
            if split == "valid" and cut == len(labels):
                raise ValueError(f"the 'valid' split of {self.title} is empty: valid_size is 0.")
            rows = slice(cut, None) if split == "valid" else slice(0, cut)
            images, labels = images[rows], labels[rows]
        images = images.astype(np.float32)[:, None]
        if normalize:
            images /= _PIXEL_MAX
        super().__init__(images, labels.astype(np.int64))

    @property
    def num_classes(self) -> int:
        return len(self.classes)

    # ----- finding and checking the files ----------------------------------------------
    def _locate(self, part, root, download, cache_dir, mirrors) -> tuple[Path, Path]:
        cache = Path(cache_dir).expanduser() if cache_dir else default_cache_dir(self.name)
        roots = [Path(root).expanduser()] if root else []
        found = [self._find(stem, roots) for stem in self.files[part]]
        if roots and all(found):
            return tuple(found)
        if download:  # fetch (or md5-check) every file of the set in the cache
            download_files(self.name, cache, mirrors)
        folders = [cache] if download else [*roots, cache]
        found = [self._find(stem, folders) for stem in self.files[part]]
        if all(found):
            return tuple(found)
        missing = self.files[part][found.index(None)]
        every = ", ".join(f"{stem}.gz" for pair in self.files.values() for stem in pair)
        searched = " and ".join(str(folder) for folder in folders)
        raise DatasetError(
            f"{self.title} file {missing}[.gz] not found in {searched}. Set data.root to the "
            f"folder that holds the four {self.title} IDX files ({every}), or set "
            f"data.download=true to fetch them into {cache}."
        )

    @staticmethod
    def _find(stem: str, folders: list[Path]) -> Path | None:
        for folder in folders:
            for name in (stem, stem + ".gz"):
                if (folder / name).is_file():
                    return folder / name
        return None

    def _load(self, part: str, image_file: Path, label_file: Path):
        images, labels = _read(image_file, 3), _read(label_file, 1)
        if images.shape[1:] != self.image_shape:
            raise DatasetError(
                f"{image_file} holds images of {images.shape[1]}x{images.shape[2]} pixels; "
                f"{self.title} images are {self.image_shape[0]}x{self.image_shape[1]}."
            )
        if len(images) != len(labels):
            raise DatasetError(
                f"{image_file} holds {len(images)} images but {label_file} holds {len(labels)} "
                "labels: the two files must come from the same set."
            )
        if len(labels) != self.counts[part]:
            raise DatasetError(
                f"{label_file} and {image_file} hold {len(labels)} samples; the {self.title} "
                f"{part} set has {self.counts[part]}: the files are from another set or damaged."
            )
        if labels.size and labels.max() >= len(self.classes):
            raise DatasetError(
                f"{label_file} holds label {labels.max()}; {self.title} labels are "
                f"0..{len(self.classes) - 1}."
            )
        return images, labels


class MNIST(IDXImageDataset):
    """The MNIST handwritten digits (60,000 training and 10,000 test images of 28x28)."""

    name = "mnist"
    title = "MNIST"
    classes = tuple(str(digit) for digit in range(10))


class FashionMNIST(IDXImageDataset):
    """Zalando's Fashion-MNIST: same format and sizes as MNIST, ten kinds of clothing."""

    name = "fashion_mnist"
    title = "Fashion-MNIST"
    classes = ("T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt",
               "Sneaker", "Bag", "Ankle boot")
