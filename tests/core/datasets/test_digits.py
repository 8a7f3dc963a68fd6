"""The bundled 8x8 digits: contents, splits and their checks."""
from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

import core.datasets
from core.datasets import Digits, load_digits
from core.datasets.digits import split_indices
from core.io import DataLoader, dataset_arrays

PACKAGED = Path(core.datasets.__file__).parent / "data"


def test_the_data_file_ships_inside_the_package_with_its_licence():
    data = (PACKAGED / "digits.csv.gz").read_bytes()
    assert hashlib.md5(data).hexdigest() == "9b335364a7bfd63947c7480a5bd51f2d"
    assert "BSD" in (PACKAGED / "LICENSE-digits.txt").read_text()


def test_load_digits_shapes_dtypes_and_ranges():
    images, labels = load_digits()
    assert images.shape == (1797, 1, 8, 8) and images.dtype == np.float32
    assert labels.shape == (1797,) and labels.dtype == np.int64
    assert images.min() == 0.0 and images.max() == 1.0
    assert sorted(set(labels.tolist())) == list(range(10))
    raw, _ = load_digits(normalize=False)
    assert raw.max() == 16 and np.array_equal(raw, np.round(raw))
    np.testing.assert_allclose(raw / 16, images)
    # scikit-learn's first digit is a 0 whose first row is 0 0 5 13 9 1 0 0
    assert labels[0] == 0 and raw[0, 0, 0].tolist() == [0, 0, 5, 13, 9, 1, 0, 0]


def test_load_digits_returns_fresh_arrays():
    images, labels = load_digits()
    images[:] = -1
    labels[:] = -1
    again, again_labels = load_digits()
    assert again.min() == 0.0 and again_labels.min() == 0


def test_splits_are_disjoint_cover_everything_and_have_the_asked_sizes():
    _, labels = load_digits()
    parts = split_indices(labels, valid_size=0.1, test_size=0.2, seed=0)
    assert len(parts["test"]) == round(0.2 * 1797)
    assert len(parts["valid"]) == round(0.1 * (1797 - len(parts["test"])))
    joined = np.concatenate([parts["train"], parts["valid"], parts["test"]])
    assert np.array_equal(np.sort(joined), np.arange(1797))


def test_splits_are_stratified():
    _, labels = load_digits()
    parts = split_indices(labels, valid_size=0.1, test_size=0.2, seed=4)
    totals = np.bincount(labels)
    for name in ("test", "valid"):
        counts = np.bincount(labels[parts[name]], minlength=10)
        expected = totals * len(parts[name]) / len(labels)
        assert np.all(np.abs(counts - expected) <= 1.5), (name, counts, expected)


def test_digits_datasets_hold_the_rows_of_their_split():
    images, labels = load_digits()
    parts = split_indices(labels, valid_size=0.1, test_size=0.2, seed=0)
    sizes = 0
    for split in ("train", "valid", "test"):
        ds = Digits(split)
        np.testing.assert_array_equal(ds.images, images[parts[split]])
        np.testing.assert_array_equal(ds.labels, labels[parts[split]])
        image, label = ds[0]
        assert image.shape == (1, 8, 8) and 0 <= label <= 9
        sizes += len(ds)
    assert sizes == 1797


def test_the_seed_fixes_the_split():
    a, b, c = Digits("test", seed=1), Digits("test", seed=1), Digits("test", seed=2)
    np.testing.assert_array_equal(a.images, b.images)
    assert not np.array_equal(a.images, c.images)


def test_counts_and_zero_sizes():
    assert len(Digits("test", test_size=300)) == 300
    assert len(Digits("valid", valid_size=100, test_size=300)) == 100
    assert len(Digits("train", valid_size=0, test_size=0)) == 1797
    with pytest.raises(ValueError, match="'valid' split of the digits is empty"):
        Digits("valid", valid_size=0)


@pytest.mark.parametrize("kwargs, match", [
    ({"split": "val"}, "split must be one of train, valid, test"),
    ({"valid_size": -0.1}, "valid_size must be a fraction"),
    ({"test_size": 1.5}, "test_size=1.5 is neither"),
    ({"test_size": 1797}, "holds out all 1797"),
    ({"valid_size": "10%"}, "valid_size must be"),
    ({"valid_size": True}, "valid_size must be"),
    ({"seed": -3}, "seed must be a non-negative integer"),
])
def test_bad_arguments_are_named(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Digits(**kwargs)


def test_digits_use_the_loader_fast_path():
    ds = Digits("valid")
    assert dataset_arrays(ds) is not None
    batches = list(DataLoader(ds, batch_size=64, shuffle=True, seed=0))
    assert sum(len(y) for _, y in batches) == len(ds)
    assert batches[0][0].shape == (64, 1, 8, 8)
