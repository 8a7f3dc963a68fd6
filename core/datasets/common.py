"""What every bundled dataset shares: its error type, split names and hold-out sizes."""
from __future__ import annotations

import numbers

import numpy as np

from core.io import TensorDataset

SPLITS = ("train", "valid", "test")


class DatasetError(ValueError):
    """A dataset file that is missing, malformed or inconsistent (the message names the file)."""


def check_split(split: str) -> str:
    if split not in SPLITS:
        raise ValueError(f"split must be one of {', '.join(SPLITS)}; got {split!r}.")
    return split


def holdout_count(size, total: int, name: str) -> int:
    """How many of ``total`` samples ``size`` holds out: a fraction in [0, 1) or a count.

    Fractions round to the nearest sample; a count must leave at least one sample behind.
    """
    if isinstance(size, bool) or not isinstance(size, numbers.Real) or size < 0:
        raise ValueError(
            f"{name} must be a fraction in [0, 1) or a whole number of samples, got {size!r}."
        )
    if size >= 1 and size != int(size):
        raise ValueError(
            f"{name}={size!r} is neither a fraction below 1 nor a whole number of samples."
        )
    count = round(size * total) if size < 1 else int(size)
    if count >= total > 0:
        raise ValueError(
            f"{name}={size!r} holds out all {total} samples it is taken from, leaving none: "
            f"use a count below {total} or a smaller fraction."
        )
    return count


class ImageDataset(TensorDataset):
    """An array-backed (images, labels) dataset: the loader slices it one batch at a time."""

    @property
    def images(self) -> np.ndarray:
        return self.arrays[0]

    @property
    def labels(self) -> np.ndarray:
        return self.arrays[1]
