"""``paddle.vision.datasets.Flowers``: the Oxford 102-category flowers, from Paddle's files.

Three files, each md5-fetched into the download cache by ``core.datasets.download`` when not
given: ``102flowers.tgz`` (the JPEGs, ``jpg/image_00001.jpg`` ...), ``imagelabels.mat`` (each
image's class, 1..102) and ``setid.mat`` (the image numbers of each split). As in Paddle, mode
'train' is the set the dataset's readme calls the test set ('tstid', 6,149 images), 'test' its
training set ('trnid', 1,020) and 'valid' 'valid' (1,020); the label is the class as the file
gives it, 1..102, an int64 array of shape ``[1]``. The .mat files are read with
``scipy.io.loadmat`` and the JPEGs decoded with Pillow, as in Paddle: both are optional for
tomlrun and asked for by name when missing. The JPEGs of the mode are read into memory once
(compressed, about 330 MB for all), so samples need no open archive (worker processes can
take the dataset).
"""
from __future__ import annotations

import io
import tarfile

import numpy as np

from core.datasets import DatasetError
from core.datasets.download import ARCHIVE_ERRORS, error_text, locate_file
from core.framework import get_default_dtype
from core.io import Dataset
from core.vision.image import dataset_settings, pil_image_module

MODE_FLAGS = {"train": "tstid", "test": "trnid", "valid": "valid"}  # Paddle's MODE_FLAG_MAP
_FILES = (("data_file", "102flowers.tgz"), ("label_file", "imagelabels.mat"),
          ("setid_file", "setid.mat"))


def _loadmat(path, key: str):
    """``scipy.io.loadmat(path)[key][0]``: scipy is optional, so its absence is explained."""
    try:
        from scipy import io as scipy_io  # noqa: PLC0415 - optional; only Flowers needs it
    except ImportError:
        raise ImportError("Flowers reads its .mat files with scipy.io.loadmat, and scipy is "
                          "not installed: pip install scipy.") from None
    try:
        return np.asarray(scipy_io.loadmat(path)[key][0]).astype(np.int64)
    except KeyError:
        raise DatasetError(f"Flowers: {path} has no {key!r} array: it is not the Flowers-102 "
                           ".mat file expected there.") from None
    except (ValueError, OSError) as exc:
        raise DatasetError(f"Flowers: {path} is not a readable .mat file: {exc}.") from None


def _pil():
    image_module = pil_image_module()
    if image_module is None:
        raise ImportError("Flowers decodes its JPEG images with Pillow, which is not "
                          "installed: pip install pillow.")
    return image_module


class Flowers(Dataset):
    """Paddle's ``paddle.vision.datasets.Flowers(data_file=None, label_file=None,
    setid_file=None, mode='train', transform=None, download=True, backend=None)``.

    ``data_file`` / ``label_file`` / ``setid_file``: the paths of ``102flowers.tgz``,
    ``imagelabels.mat`` and ``setid.mat``; each left None is taken from the download cache
    (``~/.cache/tomlrun/flowers``), where ``download=True`` fetches it (md5-checked).
    ``mode``: 'train' (6,149 images), 'valid' (1,020) or 'test' (1,020), Paddle's swap of the
    readme's train and test (module docstring). ``backend``: 'pil' or 'cv2'; None takes
    ``core.vision.get_image_backend()``.

    ``dataset[i]`` is ``(image, label)``: the decoded JPEG, a ``PIL.Image`` ('pil') or its
    uint8 ``[H, W, 3]`` array ('cv2', cast to the default dtype after the transform), images
    being of various sizes; ``label`` an int64 array of shape ``[1]`` holding the class 1..102.
    Needs scipy and Pillow.
    """

    def __init__(self, data_file=None, label_file=None, setid_file=None, mode: str = "train",
                 transform=None, download: bool = True, backend=None):
        self.mode, self.backend = dataset_settings("Flowers", mode, ("train", "valid", "test"),
                                                   transform, backend)
        self.transform = transform
        self.flag = MODE_FLAGS[self.mode]
        given = (data_file, label_file, setid_file)
        self.data_file, self.label_file, self.setid_file = (
            str(locate_file(path, "flowers", filename, bool(download), "Flowers", argument))
            for path, (argument, filename) in zip(given, _FILES))
        self.labels = _loadmat(self.label_file, "labels")
        self.indexes = _loadmat(self.setid_file, self.flag)
        bad = self.indexes[(self.indexes < 1) | (self.indexes > len(self.labels))]
        if bad.size:
            raise DatasetError(f"Flowers: {self.setid_file} names image {bad[0]}, but "
                               f"{self.label_file} labels images 1..{len(self.labels)}.")
        self._jpegs = self._read_jpegs()
        self.dtype = get_default_dtype()

    def _read_jpegs(self) -> dict:
        """The JPEG bytes of this mode's images, by image number, in one pass over the tar."""
        wanted = {f"jpg/image_{index:05d}.jpg": int(index) for index in self.indexes}
        found = {}
        try:
            with tarfile.open(self.data_file) as archive:
                for member in archive:
                    index = wanted.get(member.name.removeprefix("./"))
                    if index is not None and member.isfile():
                        found[index] = archive.extractfile(member).read()
        except ARCHIVE_ERRORS as exc:  # truncated or corrupt: tarfile's, gzip's, zlib's
            raise DatasetError(f"Flowers: {self.data_file} is not a readable tar archive "
                               f"(102flowers.tgz): {error_text(exc)}.") from None
        missing = sorted(set(wanted.values()) - set(found))
        if missing:
            raise DatasetError(f"Flowers: {self.data_file} has no jpg/image_{missing[0]:05d}.jpg"
                               f" ({len(missing)} images of mode {self.mode!r} missing).")
        return found

    def __getitem__(self, idx):
        index = int(self.indexes[idx])
        label = np.array([self.labels[index - 1]], dtype=np.int64)
        image = self._decode(index)
        if self.backend == "cv2":
            image = np.array(image)
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "pil":
            return image, label
        return np.asarray(image).astype(self.dtype), label

    def _decode(self, index: int):
        """Image ``index`` as a PIL image, decoded now: a damaged JPEG is reported here, with
        the archive and the member, not later inside a transform."""
        try:
            image = _pil().open(io.BytesIO(self._jpegs[index]))
            image.load()
        except OSError as exc:  # PIL.UnidentifiedImageError and truncated data are OSErrors
            raise DatasetError(f"Flowers: jpg/image_{index:05d}.jpg of {self.data_file} is not "
                               f"a readable JPEG ({error_text(exc)}); the archive is damaged, "
                               "download it again.") from None
        return image

    def __len__(self) -> int:
        return len(self.indexes)


__all__ = ["Flowers"]
