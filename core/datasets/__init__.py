"""Datasets: the bundled 8x8 digits, and MNIST / Fashion-MNIST from IDX files (optionally fetched).

Each dataset is an array-backed ``core.io.Dataset`` of (image float32 [1, H, W], label int64)
pairs, so ``core.io.DataLoader`` cuts its batches with one fancy index. Every problem with a data
file raises ``DatasetError`` (a ``ValueError``) naming the file.
"""
from core.datasets.common import DatasetError
from core.datasets.digits import Digits, load_digits
from core.datasets.idx import read_idx
from core.datasets.mnist import MNIST, FashionMNIST, IDXImageDataset

# ``core.datasets.download`` stays the module (its ``download`` function fetches the IDX files).
__all__ = ["MNIST", "DatasetError", "Digits", "FashionMNIST", "IDXImageDataset", "load_digits",
           "read_idx"]
from core.datasets.text import CBOWText, Vocabulary, read_corpus, tokenize  # noqa: E402
from core.datasets.vowels import JapaneseVowels, read_ts  # noqa: E402

__all__ += ["CBOWText", "JapaneseVowels", "Vocabulary", "read_corpus", "read_ts", "tokenize"]
