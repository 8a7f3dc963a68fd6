"""Japanese Vowels (Kudo et al. 1999) and any multivariate ``.ts`` file (UEA / sktime format).

Each sample is one utterance: a ``[T, 12]`` float32 sequence of LPC cepstrum frames (``T`` from 7
to 29) and the speaker (9 classes, labels 0..8). The reader takes the standard ``.ts`` files
``JapaneseVowels_TRAIN.ts`` / ``JapaneseVowels_TEST.ts`` from ``root``; nothing is downloaded.
The validation split is held out of the training file with a seeded shuffle.
"""
from __future__ import annotations

import os

import numpy as np

from core.data.sequence import SequenceDataset
from core.datasets.common import DatasetError, check_split, holdout_count

FILES = {"train": "JapaneseVowels_TRAIN.ts", "test": "JapaneseVowels_TEST.ts"}


def read_ts(path: str) -> tuple[list[np.ndarray], list[str], list[str]]:
    """(sequences [T, dims] float32, label strings, declared class labels) of a ``.ts`` file."""
    if not os.path.isfile(path):
        raise DatasetError(f"{path} does not exist: point data.root at the folder holding the "
                           "Japanese Vowels .ts files.")
    sequences, labels, classes = [], [], []
    in_data = False
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if not in_data:
                lower = line.lower()
                if lower.startswith("@classlabel"):
                    classes = line.split()[2:]
                in_data = lower == "@data"
                continue
            *dims, label = line.split(":")
            try:
                frames = [np.array(d.split(","), dtype=np.float32) for d in dims]
            except ValueError as exc:
                raise DatasetError(f"{path} line {number}: a value is not a number ({exc}).") \
                    from None
            if not frames or len({len(f) for f in frames}) != 1:
                raise DatasetError(f"{path} line {number}: every dimension of a series must "
                                   "have the same length.")
            sequences.append(np.stack(frames, axis=1))
            labels.append(label.strip())
    if not sequences:
        raise DatasetError(f"{path} holds no series after '@data'.")
    return sequences, labels, classes


class JapaneseVowels(SequenceDataset):
    """One split of Japanese Vowels as a ``SequenceDataset`` (see ``core.data.sequence``).

    ``normalize`` standardises each of the 12 features with the training file's mean and std.
    """

    num_classes = 9

    def __init__(self, root: str, split: str = "train", valid_size=0.1, seed: int = 0,
                 normalize: bool = True, max_len: int = 0, long_seq: str = "truncate"):
        check_split(split)
        train, train_labels, classes = read_ts(os.path.join(root, FILES["train"]))
        index = {name: i for i, name in enumerate(classes or sorted(set(train_labels)))}
        if split == "test":
            sequences, names, _ = read_ts(os.path.join(root, FILES["test"]))
        else:
            held = holdout_count(valid_size, len(train), "valid_size")
            order = np.random.default_rng(seed).permutation(len(train))
            chosen = order[:held] if split == "valid" else order[held:]
            sequences = [train[i] for i in sorted(chosen)]
            names = [train_labels[i] for i in sorted(chosen)]
        unknown = sorted(set(names) - set(index))
        if unknown:
            raise DatasetError(f"{root}: labels {unknown} are not among the classes {classes}.")
        if normalize:
            frames = np.concatenate(train)
            mean, std = frames.mean(axis=0), frames.std(axis=0) + 1e-6
            sequences = [(s - mean) / std for s in sequences]
        self.num_classes = len(index)
        super().__init__(sequences, np.array([index[n] for n in names], dtype=np.int64),
                         max_len=max_len, long_seq=long_seq)
