"""Paddle's ``AudioClassificationDataset`` (python/paddle/audio/datasets/dataset.py): audio
files and their class labels, each sample read with ``core.audio.load`` and turned into the
feature ``feat_type`` names, and the fetching and unpacking of a dataset's archive into its
data home.

A sample is ``(feat, label)``: with feat_type 'raw' the float32 waveform ``[T]`` of a mono file
(``[C, T]`` with C > 1 channels); otherwise the ``core.audio.features`` layer's output for the
waveform as a batch of one, the batch axis removed: 'spectrogram' ``[n_fft // 2 + 1, frames]``,
'melspectrogram' / 'logmelspectrogram' ``[n_mels, frames]``, 'mfcc' ``[n_mfcc, frames]``; for a
file of C > 1 channels the features of each channel, ``[C, n_mels, frames]`` and so on (Paddle's
stft refuses the [1, C, T] batch it builds then). The
layer is built with ``sr=`` the file's sample rate (not 'spectrogram', which has none) and the
dataset's extra keyword arguments (``n_mfcc=40``, ``n_fft=1024``, ...). ``label`` is a Python
int, as Paddle's.
"""
from __future__ import annotations

import inspect
import os
import shutil
import tarfile
import tempfile
import zipfile
from pathlib import Path

from core.audio.backends.backend import load
from core.audio.features import MFCC, LogMelSpectrogram, MelSpectrogram, Spectrogram
from core.datasets import DatasetError
from core.datasets.download import ARCHIVE_ERRORS, default_cache_dir, error_text, fetch
from core.io import Dataset
from core.manipulation import squeeze, unsqueeze

# Paddle's feat_funcs: feat_type -> the feature layer (None: the waveform itself)
feat_funcs = {"raw": None, "melspectrogram": MelSpectrogram, "mfcc": MFCC,
              "logmelspectrogram": LogMelSpectrogram, "spectrogram": Spectrogram}


def feature_layer(owner: str, feat_type, kwargs: dict):
    """The checked ``feat_type``'s layer class (None for 'raw'), its keyword arguments
    checked against the layer's signature now rather than at the first sample."""
    if feat_type not in feat_funcs:
        raise ValueError(f"{owner}: feat_type={feat_type!r} is unknown; it must be one of "
                         f"{list(feat_funcs)}.")
    layer = feat_funcs[feat_type]
    if layer is None:
        return None  # Paddle ignores feature arguments for the raw waveform
    if layer is not Spectrogram and "sr" in kwargs:
        raise TypeError(f"{owner}: sr is the sample rate of each file, passed to {layer.__name__} "
                        "by the dataset; remove sr= from the keyword arguments.")
    try:
        inspect.signature(layer).bind_partial(**kwargs)
    except TypeError:
        unknown = sorted(set(kwargs) - set(inspect.signature(layer).parameters))
        raise TypeError(f"{owner}: feat_type={feat_type!r} builds core.audio.features."
                        f"{layer.__name__}, which takes no argument {unknown[0]!r} (its "
                        f"arguments: {list(inspect.signature(layer).parameters)}).") from None
    return layer


class AudioClassificationDataset(Dataset):
    """Paddle's ``AudioClassificationDataset(files, labels, feat_type='raw', sample_rate=None,
    **kwargs)``: the audio files ``files`` (paths) with their class indices ``labels``.

    ``feat_type``: 'raw', 'melspectrogram', 'mfcc', 'logmelspectrogram' or 'spectrogram'
    (module docstring); ``kwargs``: the feature layer's arguments. ``dataset[i]`` is
    ``(feat, label)``, ``feat`` a float32 Tensor and ``label`` an int. ``sample_rate`` is the
    rate of the file read last (each file gives its own to the feature layer), as Paddle's.
    """

    def __init__(self, files, labels, feat_type: str = "raw", sample_rate=None, **kwargs):
        owner = type(self).__name__
        self._layer = feature_layer(owner, feat_type, kwargs)
        if len(files) != len(labels):
            raise ValueError(f"{owner}: files and labels must be as long, got {len(files)} "
                             f"files and {len(labels)} labels.")
        self.files = list(files)
        self.labels = list(labels)
        self.feat_type = feat_type
        self.sample_rate = sample_rate
        self.feat_config = kwargs  # the feature layer's keyword arguments, as Paddle's
        self._extractors = {}  # sample rate -> the feature layer, built once per rate

    def _extractor(self, sample_rate: int):
        """The feature layer for files of ``sample_rate`` Hz (Paddle builds one per sample)."""
        if sample_rate not in self._extractors:
            if self._layer is Spectrogram:
                self._extractors[sample_rate] = Spectrogram(**self.feat_config)
            else:
                self._extractors[sample_rate] = self._layer(sr=sample_rate, **self.feat_config)
        return self._extractors[sample_rate]

    def __getitem__(self, idx):
        waveform, self.sample_rate = load(self.files[idx])
        if len(waveform.shape) == 2 and waveform.shape[0] == 1:
            waveform = squeeze(waveform, 0)  # a mono file: [T]
        waveform = waveform.astype("float32")
        if self._layer is None:
            return waveform, self.labels[idx]
        if len(waveform.shape) == 2:  # C > 1 channels: the features of each, [C, ..., frames]
            return self._extractor(self.sample_rate)(waveform), self.labels[idx]
        feat = self._extractor(self.sample_rate)(unsqueeze(waveform, 0))
        return squeeze(feat, 0), self.labels[idx]

    def __len__(self) -> int:
        return len(self.files)


def _check_archive(owner: str, archive) -> dict:
    if not isinstance(archive, dict) or not isinstance(archive.get("url"), str) or \
            "/" not in archive["url"] or not isinstance(archive.get("md5"), (str, type(None))):
        raise TypeError(f"{owner}: archive must be a dict {{'url': the archive's URL, 'md5': its "
                        f"md5 sum or None}}, as Paddle's, got {archive!r}.")
    return archive


def prepare(owner: str, name: str, archive: dict, folder: str, needed) -> Path:
    """The data home of dataset ``name`` (``~/.cache/tomlrun/<name>``) holding ``folder``,
    unpacked there first from ``archive`` ({'url', 'md5'}; fetched md5-checked into the data
    home) unless every path of ``needed`` (relative to the data home) is there already, as
    Paddle's ``get_path_from_url(..., decompress=True)`` into its DATA_HOME."""
    home = default_cache_dir(name)
    if all((home / path).exists() for path in needed):
        return home
    archive = _check_archive(owner, archive)
    base, filename = archive["url"].rsplit("/", 1)
    try:
        home.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DatasetError(f"{owner}: cannot create the data home {home}: {exc}.") from None
    path = fetch(filename, archive["md5"], home, (base + "/",),
                 hint=f"Copy {filename} into {home} by hand, or pass archive= with a URL "
                      "that serves it (file:// works).")
    _unpack(owner, path, home, folder)
    missing = [str(home / p) for p in needed if not (home / p).exists()]
    if missing:
        raise DatasetError(f"{owner}: {path} unpacked, but {missing[0]} is not there: the "
                           f"archive is not the {owner} archive.")
    return home


def _unpack(owner: str, path: Path, home: Path, folder: str) -> None:
    """Unpack the zip or tar archive ``path`` and move its top folder ``folder`` into ``home``:
    unpacked beside it first, so that an interrupted unpacking leaves no half folder that
    looks complete."""
    scratch = Path(tempfile.mkdtemp(prefix=".unpack-", dir=home))
    try:
        try:
            if zipfile.is_zipfile(path):
                with zipfile.ZipFile(path) as zipped:  # extractall keeps names inside
                    zipped.extractall(scratch)
            else:
                with tarfile.open(path) as tarred:
                    tarred.extractall(scratch, filter="data")  # no links or paths outside
        except (zipfile.BadZipFile, *ARCHIVE_ERRORS) as exc:
            raise DatasetError(f"{owner}: {path} is not a readable zip or tar archive: "
                               f"{error_text(exc)}.") from None
        if not (scratch / folder).is_dir():
            raise DatasetError(f"{owner}: {path} has no top folder {folder}/: it is not the "
                               f"{owner} archive.")
        if (home / folder).exists():
            shutil.rmtree(home / folder)  # an incomplete earlier unpacking
        os.replace(scratch / folder, home / folder)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


__all__ = ["AudioClassificationDataset"]
