"""``paddle.vision.datasets.DatasetFolder`` / ``ImageFolder``: a user's own images on disk.

``DatasetFolder(root)`` takes each sub-folder of ``root`` as a class (sorted names, indices
0, 1, ...) and every file below it (sub-folders included, symlinks followed unless they lead
back up into a cycle) whose name ends with one of ``extensions`` as a sample of that class, in
Paddle's order: class by class, the folders of a class in sorted path order, the files of a
folder in sorted name order. A sample
is ``(image, class_index)``, the class index a Python int. ``ImageFolder(root)`` takes every
matching file below ``root`` as an unlabelled sample ``[image]`` (a list of one, as Paddle).

The default loader is Paddle's ``default_loader``: with the image backend 'pil' (Paddle's
default) the file as an RGB ``PIL.Image``; with 'cv2' the uint8 RGB ``[H, W, 3]`` array that
``cv2.cvtColor(cv2.imread(path), cv2.COLOR_BGR2RGB)`` gives, decoded here with Pillow (OpenCV
is not needed). Pillow is optional for tomlrun: the default loader asks for it by name when it
is missing; a ``loader=`` of one's own needs nothing.
"""
from __future__ import annotations

import os

import numpy as np

from core.datasets import DatasetError
from core.datasets.download import error_text
from core.framework import get_default_dtype
from core.io import Dataset
from core.vision.image import get_image_backend, pil_image_module

# Paddle's IMG_EXTENSIONS (python/paddle/vision/datasets/folder.py)
IMG_EXTENSIONS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp")


def has_valid_extension(filename: str, extensions) -> bool:
    """Paddle's ``has_valid_extension(filename, extensions)``: whether ``filename`` ends with
    one of ``extensions`` (a list or tuple of str), ignoring case."""
    if not isinstance(extensions, (list, tuple)) or \
            not all(isinstance(ext, str) for ext in extensions):
        raise TypeError(f"extensions must be a list or tuple of str such as ('.jpg', '.png'), "
                        f"got {extensions!r}.")
    return filename.lower().endswith(tuple(ext.lower() for ext in extensions))


def pil_loader(path: str):
    """Paddle's ``pil_loader``: the image file ``path`` as an RGB ``PIL.Image`` (decoded now,
    so a damaged file is reported here, naming it)."""
    image_module = pil_image_module()
    if image_module is None:
        raise ImportError(f"reading the image {path} needs Pillow, which is not installed: "
                          "pip install pillow (or pass a loader= of your own).")
    try:
        with open(path, "rb") as handle:
            return image_module.open(handle).convert("RGB")
    except OSError as exc:  # PIL.UnidentifiedImageError and truncated data are OSErrors
        raise DatasetError(f"{path} is not a readable image ({error_text(exc)}).") from None


def cv2_loader(path: str) -> np.ndarray:
    """Paddle's ``cv2_loader``: the uint8 RGB ``[H, W, 3]`` array of image file ``path``
    (what OpenCV's imread then BGR-to-RGB conversion gives), decoded with Pillow."""
    return np.asarray(pil_loader(path))


def default_loader(path: str):
    """Paddle's ``default_loader``: ``cv2_loader`` when the image backend
    (``core.vision.get_image_backend()``) is 'cv2', else ``pil_loader``."""
    return cv2_loader(path) if get_image_backend() == "cv2" else pil_loader(path)


def _root(root, owner: str) -> str:
    if not isinstance(root, (str, os.PathLike)):
        raise TypeError(f"{owner}: root must be a folder path (str or os.PathLike), got "
                        f"{type(root).__name__}.")
    path = os.path.expanduser(os.fspath(root))
    if not os.path.isdir(path):
        raise FileNotFoundError(f"{owner}: root={os.fspath(root)!r} is not a folder.")
    return path


def _file_check(owner: str, loader, extensions, transform, is_valid_file):
    """The checked arguments shared by both datasets: the predicate choosing the files, and
    the extensions kept as the ``extensions`` attribute (IMG_EXTENSIONS when neither
    ``extensions`` nor ``is_valid_file`` is given)."""
    for name, value in (("loader", loader), ("transform", transform),
                        ("is_valid_file", is_valid_file)):
        if value is not None and not callable(value):
            raise TypeError(f"{owner}: {name} must be callable or None, got "
                            f"{type(value).__name__}.")
    if extensions is not None and is_valid_file is not None:
        raise ValueError(f"{owner}: pass extensions or is_valid_file, not both (Paddle's "
                         "docstring); is_valid_file alone decides which files are samples.")
    if is_valid_file is not None:
        return is_valid_file, extensions
    extensions = IMG_EXTENSIONS if extensions is None else extensions
    has_valid_extension("", extensions)  # checks them now, naming the argument
    return (lambda path: has_valid_extension(path, extensions)), extensions


def _walk(folder: str, is_valid_file) -> list:
    """Paddle's walk: the files below ``folder`` (links followed) that ``is_valid_file``
    takes, folder by folder in sorted path order, each folder's files in sorted order.

    A link back to a folder the walk is inside (``up -> ..``) is not followed: os.walk would
    follow it until the path holds 40 links, listing every file again at each level, and two
    such links make that 2 ** 40 walks (Paddle's walk hangs); links elsewhere are followed."""
    folders = []
    for root, dirs, names in os.walk(folder, followlinks=True):
        dirs[:] = [name for name in dirs if not _links_back(root, name)]
        folders.append((root, names))
    return [os.path.join(root, name) for root, names in sorted(folders)
            for name in sorted(names) if is_valid_file(os.path.join(root, name))]


def _links_back(root: str, name: str) -> bool:
    """Whether sub-folder ``name`` of ``root`` is a link to ``root`` or a folder above it."""
    path = os.path.join(root, name)
    if not os.path.islink(path):
        return False
    target, here = os.path.realpath(path), os.path.realpath(root)
    return here == target or here.startswith(target.rstrip(os.sep) + os.sep)


def _none_found(owner: str, root: str, extensions) -> RuntimeError:
    """Paddle's RuntimeError for a folder without samples, on one line."""
    allowed = ",".join(extensions) if extensions is not None else "those is_valid_file takes"
    return RuntimeError(f"{owner}: found 0 files in subfolders of {root}; supported "
                        f"extensions are: {allowed}.")


class DatasetFolder(Dataset):
    """Paddle's ``paddle.vision.datasets.DatasetFolder(root, loader=None, extensions=None,
    transform=None, is_valid_file=None)``: samples in ``root/<class>/**/<file>``.

    ``loader``: a callable reading a sample from its path (None: ``default_loader``, by the
    image backend). ``extensions``: the allowed file endings (list or tuple; None:
    ``IMG_EXTENSIONS``). ``is_valid_file``: a callable taking a path, deciding instead of
    ``extensions`` (not both). ``transform``: a callable applied to each loaded sample.

    Attributes, as Paddle's: ``classes`` (sorted class-folder names), ``class_to_idx``
    ({name: index}), ``samples`` ([(path, class_index)]), ``targets`` ([class_index]).
    ``dataset[i]`` is ``(sample, class_index)``, the index a Python int. No file found is a
    RuntimeError naming ``root`` and the extensions, as Paddle's.
    """

    def __init__(self, root, loader=None, extensions=None, transform=None, is_valid_file=None):
        owner = type(self).__name__
        is_valid, self.extensions = _file_check(owner, loader, extensions, transform,
                                                is_valid_file)
        self.root = root
        folder = _root(root, owner)
        self.classes, self.class_to_idx = self._find_classes(folder)
        self.samples = [(path, index) for name, index in self.class_to_idx.items()
                        for path in _walk(os.path.join(folder, name), is_valid)]
        if not self.samples:
            raise _none_found(owner, os.fspath(root), self.extensions)
        self.targets = [index for _, index in self.samples]
        self.loader = default_loader if loader is None else loader
        self.transform = transform
        self.dtype = get_default_dtype()

    @staticmethod
    def _find_classes(folder: str):
        """Paddle's ``_find_classes``: the sub-folders of ``folder`` (links to folders too),
        sorted, and their indices."""
        with os.scandir(folder) as entries:
            classes = sorted(entry.name for entry in entries if entry.is_dir())
        return classes, {name: index for index, name in enumerate(classes)}

    def __getitem__(self, index):
        path, target = self.samples[index]
        sample = self.loader(path)
        if self.transform is not None:
            sample = self.transform(sample)
        return sample, target

    def __len__(self) -> int:
        return len(self.samples)


class ImageFolder(Dataset):
    """Paddle's ``paddle.vision.datasets.ImageFolder(root, loader=None, extensions=None,
    transform=None, is_valid_file=None)``: every matching file below ``root`` (sub-folders
    included, links followed), unlabelled.

    The arguments are ``DatasetFolder``'s. ``samples`` is the list of paths (sorted folder by
    folder, as Paddle); ``dataset[i]`` is ``[sample]``, a list holding the loaded (and
    transformed) sample, as Paddle's. No file found is a RuntimeError naming ``root``.
    """

    def __init__(self, root, loader=None, extensions=None, transform=None, is_valid_file=None):
        owner = type(self).__name__
        is_valid, self.extensions = _file_check(owner, loader, extensions, transform,
                                                is_valid_file)
        self.root = root
        self.samples = _walk(_root(root, owner), is_valid)
        if not self.samples:
            raise _none_found(owner, os.fspath(root), self.extensions)
        self.loader = default_loader if loader is None else loader
        self.transform = transform

    def __getitem__(self, index):
        sample = self.loader(self.samples[index])
        if self.transform is not None:
            sample = self.transform(sample)
        return [sample]

    def __len__(self) -> int:
        return len(self.samples)


# paddle.vision.datasets exports the two classes; the loaders and IMG_EXTENSIONS are this
# module's attributes, as in Paddle's folder.py
__all__ = ["DatasetFolder", "ImageFolder"]
