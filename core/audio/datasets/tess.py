"""Paddle's ``paddle.audio.datasets.TESS``: the Toronto emotional speech set, 200 words spoken
by two actresses in seven emotions, 2,800 recordings (python/paddle/audio/datasets/tess.py).

Paddle's archive ``TESS_Toronto_emotional_speech_set.zip`` (md5-fetched and unpacked into the
data home ``~/.cache/tomlrun/tess`` unless its folder is there) holds the WAV files below
``TESS_Toronto_emotional_speech_set/``, each named ``<speaker>_<word>_<emotion>.wav``; the
label is the index of the emotion in ``label_list``. The files are split into ``n_folds``
folds by their position (file i in fold ``i % n_folds + 1``): mode 'dev' takes fold ``split``,
'train' the others.
"""
from __future__ import annotations

import os
from typing import NamedTuple

from core.audio.datasets.dataset import AudioClassificationDataset, feature_layer, prepare
from core.audio.datasets.esc50 import check_mode, check_split
from core.datasets import DatasetError


class TESS(AudioClassificationDataset):
    """Paddle's ``paddle.audio.datasets.TESS(mode='train', n_folds=5, split=1,
    feat_type='raw', archive=None, **kwargs)``.

    ``mode``: 'train' or 'dev'; ``n_folds``: the number of folds (int >= 1); ``split``: the
    dev fold, 1..n_folds. ``feat_type`` and ``**kwargs``: the feature
    (``AudioClassificationDataset``). ``archive``: ``{'url': ..., 'md5': ...}`` of the archive
    to fetch instead of Paddle's. The files are taken in sorted path order (Paddle takes
    ``os.walk``'s, which depends on the file system), so the folds are the same everywhere.
    ``dataset[i]`` is ``(feat, label)``, the label the emotion's index, an int.
    """

    archive = {"url": "https://bj.bcebos.com/paddleaudio/datasets/"
                      "TESS_Toronto_emotional_speech_set.zip",
               "md5": "1465311b24d1de704c4c63e4ccc470c7"}
    label_list = ["angry", "disgust", "fear", "happy", "neutral",
                  "ps",  # pleasant surprise
                  "sad"]
    audio_path = "TESS_Toronto_emotional_speech_set"

    class meta_info(NamedTuple):  # noqa: N801 - Paddle's name
        speaker: str
        word: str
        emotion: str

    def __init__(self, mode: str = "train", n_folds: int = 5, split: int = 1,
                 feat_type: str = "raw", archive=None, **kwargs):
        self.mode = check_mode("TESS", mode)
        if isinstance(n_folds, bool) or not isinstance(n_folds, int) or n_folds < 1:
            raise ValueError(f"TESS: n_folds={n_folds!r} must be an int >= 1.")
        self.n_folds = n_folds
        self.split = check_split("TESS", split, n_folds)
        feature_layer("TESS", feat_type, kwargs)  # checked before anything is fetched
        if archive is not None:
            self.archive = archive
        self.data_home = prepare("TESS", "tess", self.archive, self.audio_path,
                                 (self.audio_path,))
        files, labels = self._get_data(self.mode, n_folds, self.split)
        super().__init__(files=files, labels=labels, feat_type=feat_type, **kwargs)

    def _get_meta_info(self, files) -> list:
        """Each file's ``meta_info`` (speaker, word, emotion), from its name."""
        infos = []
        for path in files:
            parts = os.path.basename(path)[:-4].split("_")
            if len(parts) != 3 or parts[2] not in self.label_list:
                raise DatasetError(f"TESS: {path} is not named <speaker>_<word>_<emotion>.wav "
                                   f"with an emotion of {self.label_list}.")
            infos.append(self.meta_info(*parts))
        return infos

    def _get_data(self, mode: str, n_folds: int, split: int):
        folder = os.path.join(self.data_home, self.audio_path)
        wav_files = sorted(os.path.join(root, name) for root, _, names in os.walk(folder)
                           for name in names if name.endswith(".wav"))
        files, labels = [], []
        for index, (path, sample) in enumerate(zip(wav_files,
                                                   self._get_meta_info(wav_files))):
            if (index % n_folds + 1 == split) == (mode == "dev"):
                files.append(path)
                labels.append(self.label_list.index(sample.emotion))
        return files, labels


__all__ = ["TESS"]
