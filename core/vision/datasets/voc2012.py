"""``paddle.vision.datasets.VOC2012``: the PASCAL VOC 2012 segmentation images, from Paddle's
archive.

``VOCtrainval_11-May-2012.tar`` (md5-fetched into the download cache by
``core.datasets.download`` when not given) is read without extracting it: the image names of
the mode's list ``VOCdevkit/VOC2012/ImageSets/Segmentation/<flag>.txt``, each sample being the
JPEG ``JPEGImages/<name>.jpg`` and its class map ``SegmentationClass/<name>.png`` (a palette
PNG whose pixel values are the class indices 0..20, 255 on object borders). As in Paddle, mode
'train' reads the list 'trainval' (2,913 images), 'test' the list 'train' (1,464) and 'valid'
'val' (1,449). The files of the mode are read into memory once (compressed), so samples need
no open archive (worker processes can take the dataset). Decoding needs Pillow, as Paddle's.
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

MODE_FLAGS = {"train": "trainval", "test": "train", "valid": "val"}  # Paddle's MODE_FLAG_MAP
SET_FILE = "VOCdevkit/VOC2012/ImageSets/Segmentation/{}.txt"
DATA_FILE = "VOCdevkit/VOC2012/JPEGImages/{}.jpg"
LABEL_FILE = "VOCdevkit/VOC2012/SegmentationClass/{}.png"
FILENAME = "VOCtrainval_11-May-2012.tar"


def _pil():
    image_module = pil_image_module()
    if image_module is None:
        raise ImportError("VOC2012 decodes its JPEG images and PNG class maps with Pillow, "
                          "which is not installed: pip install pillow.")
    return image_module


class VOC2012(Dataset):
    """Paddle's ``paddle.vision.datasets.VOC2012(data_file=None, mode='train', transform=None,
    download=True, backend=None)``.

    ``data_file``: the path of ``VOCtrainval_11-May-2012.tar``; None takes it from the
    download cache (``~/.cache/tomlrun/voc2012``), where ``download=True`` fetches it
    (md5-checked, about 2 GB). ``mode``: 'train' (the 'trainval' list), 'test' ('train') or
    'valid' ('val'), Paddle's mapping. ``transform``: a callable applied to the image (not to
    the class map). ``backend``: 'pil' or 'cv2'; None takes
    ``core.vision.get_image_backend()``.

    ``dataset[i]`` is ``(image, label)``: with 'pil' the JPEG as a ``PIL.Image`` and the class
    map as a palette ``PIL.Image`` (mode 'P'), the image as the transform leaves it; with 'cv2'
    the uint8 ``[H, W, 3]`` image array (given so to the transform) and the ``[H, W]`` class
    map, both cast to the default dtype. Needs Pillow.
    """

    def __init__(self, data_file=None, mode: str = "train", transform=None,
                 download: bool = True, backend=None):
        self.mode, self.backend = dataset_settings("VOC2012", mode, ("train", "valid", "test"),
                                                   transform, backend)
        self.transform = transform
        self.flag = MODE_FLAGS[self.mode]
        self.data_file = str(locate_file(data_file, "voc2012", FILENAME, bool(download),
                                         "VOC2012"))
        self.names, self._files = self._read()
        self.data = [DATA_FILE.format(name) for name in self.names]  # Paddle's attributes
        self.labels = [LABEL_FILE.format(name) for name in self.names]
        self.dtype = get_default_dtype()

    def _read(self):
        """The image names of the mode's list, and the bytes of their JPEGs and PNGs by
        member name, read in one pass over the archive after its list."""
        set_file = SET_FILE.format(self.flag)
        try:
            with tarfile.open(self.data_file) as archive:
                members = {member.name.removeprefix("./"): member for member in archive
                           if member.isfile()}
                if set_file not in members:
                    raise DatasetError(f"VOC2012: {self.data_file} has no {set_file}: it is "
                                       f"not the VOC 2012 trainval archive ({FILENAME}).")
                listed = archive.extractfile(members[set_file]).read()
                names = [line.strip().decode("utf-8") for line in listed.splitlines()
                         if line.strip()]
                wanted = [DATA_FILE.format(name) for name in names] + \
                    [LABEL_FILE.format(name) for name in names]
                missing = [name for name in wanted if name not in members]
                if missing:
                    raise DatasetError(f"VOC2012: {self.data_file} has no {missing[0]} "
                                       f"({len(missing)} files of the list {set_file} "
                                       "missing).")
                files = {name: archive.extractfile(members[name]).read() for name in wanted}
        except ARCHIVE_ERRORS as exc:  # truncated or corrupt: tarfile's, gzip's, zlib's
            raise DatasetError(f"VOC2012: {self.data_file} is not a readable tar archive "
                               f"({FILENAME}): {error_text(exc)}.") from None
        return names, files

    def _decode(self, member: str):
        """Member ``member`` as a PIL image, decoded now: a damaged file is reported here,
        naming the archive and the member, not later inside a transform."""
        try:
            image = _pil().open(io.BytesIO(self._files[member]))
            image.load()
        except OSError as exc:  # PIL.UnidentifiedImageError and truncated data are OSErrors
            raise DatasetError(f"VOC2012: {member} of {self.data_file} is not a readable "
                               f"image ({error_text(exc)}); the archive is damaged, download "
                               "it again.") from None
        return image

    def __getitem__(self, idx):
        image, label = self._decode(self.data[idx]), self._decode(self.labels[idx])
        if self.backend == "cv2":
            image, label = np.array(image), np.array(label)
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "cv2":
            return np.asarray(image).astype(self.dtype), label.astype(self.dtype)
        return image, label

    def __len__(self) -> int:
        return len(self.names)


__all__ = ["VOC2012"]
