"""``paddle.vision.datasets.Cifar10`` / ``Cifar100``: the CIFAR images from Paddle's archive.

The archive (``cifar-10-python.tar.gz`` / ``cifar-100-python.tar.gz``, md5-fetched into the
download cache by ``core.datasets.download``) is read as it is, without extracting it: the
pickled batches whose member name holds the mode's flag ('data_batch' / 'test_batch' for
Cifar-10, 'train' / 'test' for Cifar-100), in sorted name order, as Paddle. A sample is
``(image, label)``: the image, before ``transform``, an RGB ``PIL.Image`` of 32x32 (backend
'pil', Paddle's default; without Pillow the uint8 ``[32, 32, 3]`` array that image would
hold) or the uint8 ``[32, 32, 3]`` HWC array (backend 'cv2'), which comes out cast to the
default dtype (float32 0..255 without a transform), as Paddle; so ``ToTensor`` scales either
to [0, 1]. The label is a 0-D int64 array (batches ``[B]``), Cifar-100's the fine label.
"""
from __future__ import annotations

import tarfile

import numpy as np

from core import safe_pickle
from core.datasets import DatasetError
from core.datasets.download import ARCHIVE_ERRORS, error_text, locate_file
from core.framework import get_default_dtype
from core.io import Dataset
from core.vision.image import dataset_settings, pil_image_module

MODES = ("train", "test")
_SIDE, _CHANNELS = 32, 3


def _read_batches(path, flag: str, owner: str):
    """The images (uint8 [N, 32, 32, 3], HWC) and labels (int64 [N]) of the batches of the
    archive at ``path`` whose member names hold ``flag``."""
    images, labels = [], []
    try:
        with tarfile.open(path, mode="r") as archive:
            names = sorted(member.name for member in archive if flag in member.name
                           and member.isfile())
            for name in names:
                batch = _unpickle(archive, name, path, owner)
                found = _batch_labels(batch, name, path)
                data = np.asarray(batch[b"data"], dtype=np.uint8)
                if data.ndim != 2 or data.shape[1] != _CHANNELS * _SIDE * _SIDE \
                        or len(data) != len(found):
                    raise DatasetError(f"{path}: batch {name} holds data of shape "
                                       f"{list(data.shape)} for {len(found)} labels; CIFAR "
                                       f"batches hold [N, {_CHANNELS * _SIDE * _SIDE}].")
                images.append(data)
                labels.append(np.asarray(found, dtype=np.int64))
    except ARCHIVE_ERRORS as exc:  # truncated or corrupt: tarfile's, gzip's, zlib's errors
        raise DatasetError(f"{owner}: {path} is not a readable CIFAR archive "
                           f"(cifar-*-python.tar.gz): {error_text(exc)}.") from None
    if not names:
        raise DatasetError(f"{owner}: {path} holds no batch whose name contains {flag!r}: "
                           "it is not this CIFAR archive.")
    data = np.concatenate(images)
    # each row is the 1024 red, then green, then blue values of a 32x32 image: HWC for PIL
    hwc = data.reshape(-1, _CHANNELS, _SIDE, _SIDE).transpose(0, 2, 3, 1)
    return np.ascontiguousarray(hwc), np.concatenate(labels)


def _unpickle(archive, name: str, path, owner: str):
    """Batch ``name`` of the archive, unpickled. Damaged bytes make pickle raise almost
    anything (UnpicklingError, a UnicodeDecodeError, a ValueError, an EOFError): each becomes
    one error that names the archive and the batch. A pickle can run any callable it names,
    so a file from elsewhere (data_file=) is unpickled with numpy's array reconstruction as
    the only globals (``core.safe_pickle``) rather than trusted; Paddle unpickles it
    unrestricted."""
    try:
        return safe_pickle.load(archive.extractfile(name), safe_pickle.NUMPY_GLOBALS,
                                encoding="bytes")
    except safe_pickle.ForbiddenGlobalError as exc:
        raise DatasetError(f"a CIFAR batch must hold only lists, bytes, numbers and numpy "
                           f"arrays, but it names {exc.module}.{exc.name}: the file is not a "
                           "CIFAR archive.") from None
    except ARCHIVE_ERRORS:
        raise  # the archive itself is damaged: _read_batches names it
    except Exception as exc:  # noqa: BLE001 - any failure of pickle on damaged bytes
        raise DatasetError(f"{owner}: {path}: batch {name} is not a readable pickled CIFAR "
                           f"batch ({type(exc).__name__}: {error_text(exc)}); the archive is "
                           "damaged, download it again.") from None


def _batch_labels(batch, name: str, path):
    if not isinstance(batch, dict) or b"data" not in batch:
        raise DatasetError(f"{path}: batch {name} is not a dict with b'data'.")
    for key in (b"labels", b"fine_labels"):  # Cifar-10's, then Cifar-100's
        if key in batch:
            return batch[key]
    raise DatasetError(f"{path}: batch {name} has no b'labels' or b'fine_labels'.")


class Cifar10(Dataset):
    """Paddle's ``paddle.vision.datasets.Cifar10(data_file=None, mode='train', transform=None,
    download=True, backend=None)``: 50,000 training and 10,000 test images of 32x32, 10 classes.

    ``data_file``: the path of ``cifar-10-python.tar.gz``; None takes it from the download
    cache (``~/.cache/tomlrun/cifar10``), where ``download=True`` fetches it (md5-checked).
    ``mode``: 'train' or 'test'. ``transform``: a callable applied to each image. ``backend``:
    'pil' or 'cv2'; None takes ``core.vision.get_image_backend()`` ('pil', as Paddle).

    ``dataset[i]`` is ``(image, label)``: with 'pil' an RGB ``PIL.Image`` (without Pillow the
    uint8 ``[32, 32, 3]`` array it would hold) before the transform, returned as the transform
    leaves it; with 'cv2' the uint8 HWC ``[32, 32, 3]`` array before the transform, cast to
    the default dtype after it (float32 0..255 without one). ``label`` is a 0-D int64 array.
    """

    NAME = "cifar10"
    FILENAME = "cifar-10-python.tar.gz"
    FLAGS = {"train": "data_batch", "test": "test_batch"}  # Paddle's MODE_FLAG_MAP

    def __init__(self, data_file=None, mode: str = "train", transform=None,
                 download: bool = True, backend=None):
        owner = type(self).__name__
        self.mode, self.backend = dataset_settings(owner, mode, MODES, transform, backend)
        self.transform = transform
        self.flag = self.FLAGS[self.mode]
        self.data_file = str(locate_file(data_file, self.NAME, self.FILENAME, bool(download),
                                         owner))
        self.images, self.labels = _read_batches(self.data_file, self.flag, owner)
        self.dtype = get_default_dtype()

    @property
    def arrays(self):
        """The (images, labels) arrays when samples are those rows unchanged (no transform), so
        ``core.io.DataLoader`` cuts batches by fancy indexing; else None. 'pil' gives the uint8
        images (what stacking the PIL images gives), 'cv2' the images in the default dtype."""
        if self.transform is not None:
            return None
        if self.backend == "pil":
            return self.images, self.labels
        if getattr(self, "_float_images", None) is None or \
                self._float_images.dtype != self.dtype:  # made once, on first use
            self._float_images = self.images.astype(self.dtype)
        return self._float_images, self.labels

    def __getitem__(self, idx):
        image, label = self.images[idx], self.labels[idx].copy()  # a 0-D int64 array
        if self.backend == "pil":
            image = _pil_image(image)
        else:
            image = image.copy()  # uint8, as Paddle gives it to the transform; a copy: the
            # transform may write into it
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "pil":
            return image, label
        return np.asarray(image).astype(self.dtype), label

    def __len__(self) -> int:
        return int(self.labels.shape[0])


def _pil_image(pixels: np.ndarray):
    """An RGB PIL image of ``pixels`` (uint8 HWC, Paddle's ``Image.fromarray``), or without
    Pillow the uint8 array that image holds (a copy: a transform may write into it)."""
    image_module = pil_image_module()
    if image_module is None:
        return pixels.copy()
    return image_module.fromarray(pixels)  # uint8 [H, W, 3] is mode 'RGB'


class Cifar100(Cifar10):
    """Paddle's ``paddle.vision.datasets.Cifar100(data_file=None, mode='train', transform=None,
    download=True, backend=None)``: Cifar-10's layout and samples with 100 classes, the label
    being the fine label; ``data_file`` is ``cifar-100-python.tar.gz`` (download cache
    ``~/.cache/tomlrun/cifar100``)."""

    NAME = "cifar100"
    FILENAME = "cifar-100-python.tar.gz"
    FLAGS = {"train": "train", "test": "test"}


__all__ = ["Cifar10", "Cifar100"]
