"""Paddle's ``paddle.audio.datasets.ESC50``: 2,000 five-second environmental recordings of 50
classes (40 each), in five folds (python/paddle/audio/datasets/esc50.py).

Paddle's archive ``ESC-50-master.zip`` (md5-fetched and unpacked into the data home
``~/.cache/tomlrun/esc50`` unless its folder is there) holds ``ESC-50-master/meta/esc50.csv``
(``filename,fold,target,category,esc10,src_file,take``) and the WAV files in
``ESC-50-master/audio`` (mono, 44.1 kHz, 16-bit). Mode 'train' takes the files of every fold
but ``split``, mode 'dev' those of fold ``split``, in the CSV's order; the label is the CSV's
``target`` (the index of ``label_list``).
"""
from __future__ import annotations

import csv
import os
from typing import NamedTuple

from core.audio.datasets.dataset import AudioClassificationDataset, feature_layer, prepare
from core.datasets import DatasetError


def check_mode(owner: str, mode) -> str:
    if mode not in ("train", "dev"):
        raise ValueError(f"{owner}: mode={mode!r} must be 'train' or 'dev'.")
    return mode


def check_split(owner: str, split, n_folds: int) -> int:
    if isinstance(split, bool) or not isinstance(split, int) or not 1 <= split <= n_folds:
        raise ValueError(f"{owner}: split={split!r} must be an int, 1 <= split <= {n_folds} "
                         "(the fold of the dev set).")
    return split


class ESC50(AudioClassificationDataset):
    """Paddle's ``paddle.audio.datasets.ESC50(mode='train', split=1, feat_type='raw',
    archive=None, **kwargs)``.

    ``mode``: 'train' (the four folds but ``split``, 1,600 files) or 'dev' (fold ``split``,
    400). ``split``: 1..5. ``feat_type``: 'raw', 'melspectrogram', 'mfcc', 'logmelspectrogram'
    or 'spectrogram', built with ``**kwargs`` (``AudioClassificationDataset``). ``archive``:
    ``{'url': ..., 'md5': ...}`` of the archive to fetch instead of Paddle's (``file://``
    URLs work). ``dataset[i]`` is ``(feat, label)``: the float32 waveform ``[220500]`` for
    'raw' (or the feature), and the class index, an int.
    """

    archive = {"url": "https://paddleaudio.bj.bcebos.com/datasets/ESC-50-master.zip",
               "md5": "7771e4b9d86d0945acce719c7a59305a"}
    label_list = [
        # Animals
        "Dog", "Rooster", "Pig", "Cow", "Frog", "Cat", "Hen", "Insects (flying)", "Sheep",
        "Crow",
        # Natural soundscapes & water sounds
        "Rain", "Sea waves", "Crackling fire", "Crickets", "Chirping birds", "Water drops",
        "Wind", "Pouring water", "Toilet flush", "Thunderstorm",
        # Human, non-speech sounds
        "Crying baby", "Sneezing", "Clapping", "Breathing", "Coughing", "Footsteps",
        "Laughing", "Brushing teeth", "Snoring", "Drinking, sipping",
        # Interior/domestic sounds
        "Door knock", "Mouse click", "Keyboard typing", "Door, wood creaks", "Can opening",
        "Washing machine", "Vacuum cleaner", "Clock alarm", "Clock tick", "Glass breaking",
        # Exterior/urban noises
        "Helicopter", "Chainsaw", "Siren", "Car horn", "Engine", "Train", "Church bells",
        "Airplane", "Fireworks", "Hand saw",
    ]
    meta = os.path.join("ESC-50-master", "meta", "esc50.csv")
    audio_path = os.path.join("ESC-50-master", "audio")

    class meta_info(NamedTuple):  # noqa: N801 - Paddle's name
        filename: str
        fold: str
        target: str
        category: str
        esc10: str
        src_file: str
        take: str

    def __init__(self, mode: str = "train", split: int = 1, feat_type: str = "raw",
                 archive=None, **kwargs):
        self.mode = check_mode("ESC50", mode)
        self.split = check_split("ESC50", split, 5)
        feature_layer("ESC50", feat_type, kwargs)  # checked before anything is fetched
        if archive is not None:
            self.archive = archive
        self.data_home = prepare("ESC50", "esc50", self.archive, "ESC-50-master",
                                 (self.meta, self.audio_path))
        files, labels = self._get_data(self.mode, self.split)
        super().__init__(files=files, labels=labels, feat_type=feat_type, **kwargs)

    def _get_meta_info(self) -> list:
        """The rows of esc50.csv after its header, as ``meta_info`` tuples."""
        path = self.data_home / self.meta
        with open(path, newline="", encoding="utf-8") as handle:
            rows = list(csv.reader(handle))[1:]
        infos = []
        for number, row in enumerate(rows, start=2):
            if len(row) != len(self.meta_info._fields) or not row[1].isdigit() \
                    or not row[2].isdigit():
                raise DatasetError(f"ESC50: line {number} of {path} is not a row of "
                                   f"{','.join(self.meta_info._fields)} with an int fold and "
                                   f"target: {','.join(row)!r}.")
            infos.append(self.meta_info(*row))
        return infos

    def _get_data(self, mode: str, split: int):
        files, labels = [], []
        for sample in self._get_meta_info():
            if (int(sample.fold) == split) == (mode == "dev"):
                files.append(os.path.join(self.data_home, self.audio_path, sample.filename))
                labels.append(int(sample.target))
        return files, labels


__all__ = ["ESC50"]
