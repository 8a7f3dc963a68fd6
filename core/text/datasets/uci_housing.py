"""``paddle.text.datasets.UCIHousing``: the Boston housing prices, from Paddle's ``housing.data``.

The file holds 506 rows of 14 whitespace-separated numbers: 13 features, then the median
price. Each feature column is normalised as Paddle does, over all rows before the split:
``(x - mean) / (max - min)``; the price is left as it is. Mode 'train' is the first
``int(0.8 * rows)`` rows (404), 'test' the rest (102), in file order. A sample is
``(feature, target)``: ``[13]`` and ``[1]`` arrays in the default dtype (float32 unless
``core.set_default_dtype`` changed it), as Paddle.
"""
from __future__ import annotations

import numpy as np

from core.datasets import DatasetError
from core.datasets.download import locate_file
from core.framework import get_default_dtype
from core.io import Dataset

MODES = ("train", "test")
FEATURE_NAMES = ("CRIM", "ZN", "INDUS", "CHAS", "NOX", "RM", "AGE", "DIS", "RAD", "TAX",
                 "PTRATIO", "B", "LSTAT")
_COLUMNS, _TRAIN_RATIO = 14, 0.8


def load_housing(path) -> np.ndarray:
    """The rows of ``path`` (float64 [N, 14]) with the 13 feature columns normalised."""
    try:
        with open(path, "rb") as handle:
            data = np.array(handle.read().split(), dtype=np.float64)
    except ValueError as exc:
        raise DatasetError(f"UCIHousing: {path} holds a value that is not a number ({exc}): "
                           "it is not housing.data.") from None
    if data.size == 0 or data.size % _COLUMNS:
        raise DatasetError(f"UCIHousing: {path} holds {data.size} numbers, not rows of "
                           f"{_COLUMNS} (13 features and the price): it is not housing.data.")
    data = data.reshape(-1, _COLUMNS)
    maximums, minimums = data.max(axis=0), data.min(axis=0)
    averages = data.sum(axis=0) / data.shape[0]  # Paddle's mean, summed then divided
    features = slice(0, _COLUMNS - 1)
    data[:, features] = (data[:, features] - averages[features]) / \
        (maximums[features] - minimums[features])
    return data


class UCIHousing(Dataset):
    """Paddle's ``paddle.text.datasets.UCIHousing(data_file=None, mode='train',
    download=True)``: 404 training and 102 test rows of 13 normalised features and a price.

    ``data_file``: the path of ``housing.data``; None takes it from the download cache
    (``~/.cache/tomlrun/uci_housing``), where ``download=True`` fetches it (md5-checked).
    ``dataset[i]`` is ``(feature [13], target [1])`` in the default dtype.
    """

    def __init__(self, data_file=None, mode: str = "train", download: bool = True):
        if not isinstance(mode, str) or mode.lower() not in MODES:
            raise ValueError(f"UCIHousing: mode={mode!r} must be 'train' or 'test'.")
        self.mode = mode.lower()
        self.data_file = str(locate_file(data_file, "uci_housing", "housing.data",
                                         bool(download), "UCIHousing"))
        data = load_housing(self.data_file)
        offset = int(data.shape[0] * _TRAIN_RATIO)
        self.data = data[:offset] if self.mode == "train" else data[offset:]
        self.dtype = get_default_dtype()

    @property
    def arrays(self):
        """(features [N, 13], targets [N, 1]) in the default dtype: ``core.io.DataLoader``
        cuts batches from them by fancy indexing."""
        data = self.data.astype(self.dtype)
        return data[:, :-1], data[:, -1:]

    def __getitem__(self, idx):
        row = self.data[idx]
        return row[:-1].astype(self.dtype), row[-1:].astype(self.dtype)

    def __len__(self) -> int:
        return len(self.data)


__all__ = ["UCIHousing"]
