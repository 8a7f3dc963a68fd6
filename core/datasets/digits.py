"""The 8x8 handwritten digits that ship inside this package (scikit-learn's ``load_digits``).

1797 images of 8x8 pixels with values 0..16 and their labels 0..9, stored in
``core/datasets/data/digits.csv.gz`` (BSD-3-Clause, see ``data/LICENSE-digits.txt``). Small enough
to train on in seconds, so every config and test can run without downloading anything.
"""
from __future__ import annotations

import functools
import gzip
import importlib.resources
import numbers
import zlib

import numpy as np

from core.datasets.common import DatasetError, ImageDataset, check_split, holdout_count

N_SAMPLES = 1797
PIXEL_MAX = 16
_RESOURCE = "data/digits.csv.gz"


@functools.lru_cache(maxsize=1)
def _read_table() -> np.ndarray:
    """The raw table (int64 [1797, 65]), parsed once per process."""
    resource = importlib.resources.files("core.datasets").joinpath(_RESOURCE)
    where = f"core/datasets/{_RESOURCE}"
    try:
        with resource.open("rb") as raw, gzip.open(raw, "rt") as text:
            table = np.loadtxt(text, delimiter=",", dtype=np.int64, ndmin=2)
    except FileNotFoundError:
        raise DatasetError(
            f"{where} is missing from the installed package: reinstall tomlrun (the file must "
            "be listed as package data)."
        ) from None
    except (OSError, EOFError, ValueError, zlib.error) as exc:
        raise DatasetError(f"{where} is damaged and cannot be parsed ({exc}).") from None
    if table.shape != (N_SAMPLES, 65):
        raise DatasetError(f"{where} has shape {table.shape}; expected ({N_SAMPLES}, 65).")
    if table[:, :64].min() < 0 or table[:, :64].max() > PIXEL_MAX or \
            table[:, 64].min() < 0 or table[:, 64].max() > 9:
        raise DatasetError(f"{where} holds pixels outside 0..16 or labels outside 0..9.")
    table.setflags(write=False)
    return table


def load_digits(normalize: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """All 1797 digits: images float32 [N, 1, 8, 8] (in [0, 1] when normalize) and labels int64."""
    table = _read_table()
    images = table[:, :64].astype(np.float32).reshape(-1, 1, 8, 8)
    if normalize:
        images /= PIXEL_MAX
    return images, table[:, 64].copy()


def split_indices(labels: np.ndarray, valid_size, test_size, seed: int) -> dict[str, np.ndarray]:
    """Disjoint, stratified train/valid/test indices that together cover every sample.

    ``test_size`` is a fraction or count of all samples; ``valid_size`` a fraction or count of
    the samples left for training. Each class is spread evenly over the shuffled order (a sample
    is placed at its rank within its class divided by the class size), so any leading block of
    that order has nearly the class proportions of the whole set.
    """
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}.")
    n = len(labels)
    n_test = holdout_count(test_size, n, "test_size")
    n_valid = holdout_count(valid_size, n - n_test, "valid_size")
    perm = np.random.default_rng(seed).permutation(n)
    shuffled = labels[perm]
    by_class = np.argsort(shuffled, kind="stable")
    counts = np.bincount(shuffled)
    starts = np.repeat(np.cumsum(counts) - counts, counts)
    rank = np.empty(n)
    rank[by_class] = np.arange(n) - starts
    spread = (rank + 0.5) / counts[shuffled]
    order = perm[np.argsort(spread, kind="stable")]
    return {
        "test": np.sort(order[:n_test]),
        "valid": np.sort(order[n_test:n_test + n_valid]),
        "train": np.sort(order[n_test + n_valid:]),
    }


class Digits(ImageDataset):
    """One split of the bundled digits as an array-backed dataset of (image, label) pairs.

    The split is fixed by ``seed``: the same arguments always give the same samples, and the
    train, valid and test splits of one setting are disjoint and cover all 1797 digits.
    """

    num_classes = 10

    def __init__(self, split: str = "train", valid_size=0.1, test_size=0.2, seed: int = 0,
                 normalize: bool = True):
        self.split = check_split(split)
        images, labels = load_digits(normalize=normalize)
        index = split_indices(labels, valid_size, test_size, seed)[split]
        if index.size == 0:
            raise ValueError(
                f"the '{split}' split of the digits is empty with valid_size={valid_size!r} and "
                f"test_size={test_size!r}: give it a positive size."
            )
        super().__init__(images[index], labels[index])
