"""MNIST and Fashion-MNIST: real files when present, and tiny hand-made sets for every error."""
from __future__ import annotations

import numpy as np
import pytest

from core.datasets import MNIST, DatasetError, FashionMNIST, read_idx
from core.io import DataLoader, dataset_arrays

TRAIN_IMAGES, TRAIN_LABELS = "train-images-idx3-ubyte", "train-labels-idx1-ubyte"
TEST_IMAGES, TEST_LABELS = "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"


class TinyMNIST(MNIST):
    """MNIST's layout at a tiny size, so each test writes its own files in microseconds."""

    counts = {"train": 12, "test": 5}
    image_shape = (4, 4)


def tiny_arrays(n, seed=0):
    rng = np.random.default_rng(seed)
    images = rng.integers(0, 256, size=(n, 4, 4), dtype=np.uint8)
    images[0, 0, 0] = 255
    return images, (np.arange(n) % 10).astype(np.uint8)


@pytest.fixture
def tiny_root(tmp_path, write_idx):
    """A folder with the four files of TinyMNIST: training files gzipped, test files raw."""
    root = tmp_path / "tiny"
    root.mkdir()
    for (images_name, labels_name), n, gz in [((TRAIN_IMAGES, TRAIN_LABELS), 12, True),
                                              ((TEST_IMAGES, TEST_LABELS), 5, False)]:
        images, labels = tiny_arrays(n, seed=n)
        suffix = ".gz" if gz else ""
        write_idx(root / (images_name + suffix), images, gz=gz)
        write_idx(root / (labels_name + suffix), labels, gz=gz)
    return root


# ----- real data -----------------------------------------------------------------------------
def test_real_mnist_splits(shared_dir):
    root = shared_dir("mnist")
    train, valid = MNIST(root, split="train"), MNIST(root, split="valid")
    assert (len(train), len(valid)) == (50000, 10000)
    assert train.images.shape == (50000, 1, 28, 28) and train.images.dtype == np.float32
    assert train.labels.dtype == np.int64 and train.images.max() == 1.0
    labels = read_idx(root / "train-labels-idx1-ubyte.gz")
    np.testing.assert_array_equal(valid.labels, labels[50000:])  # the last 10,000
    np.testing.assert_array_equal(train.labels, labels[:50000])
    assert len(MNIST(root, split="valid", valid_size=0.1)) == 6000


def test_real_test_splits(shared_dir):
    test = MNIST(shared_dir("mnist"), split="test", normalize=False)
    assert len(test) == 10000 and test.images.max() == 255.0
    fashion = FashionMNIST(shared_dir("fashion-mnist"), split="test")
    assert fashion.images.shape == (10000, 1, 28, 28) and fashion.num_classes == 10
    assert fashion.classes[9] == "Ankle boot"
    assert not np.array_equal(fashion.images[:10], test.images[:10] / 255)


# ----- tiny sets: loading ----------------------------------------------------------------------
def test_tiny_splits_read_raw_and_gzip_files(tiny_root):
    images, labels = tiny_arrays(12, seed=12)
    train = TinyMNIST(tiny_root, split="train", valid_size=3)
    valid = TinyMNIST(tiny_root, split="valid", valid_size=3)
    test = TinyMNIST(tiny_root, split="test", normalize=False)
    np.testing.assert_allclose(train.images[:, 0], images[:9] / 255.0, rtol=1e-6)
    np.testing.assert_array_equal(valid.labels, labels[9:])
    np.testing.assert_array_equal(test.images[:, 0], tiny_arrays(5, seed=5)[0])
    assert train.images.shape == (9, 1, 4, 4) and dataset_arrays(train) is not None
    x, y = next(iter(DataLoader(train, batch_size=4)))
    assert x.shape == (4, 1, 4, 4) and y.dtype == np.int64


def test_files_in_the_cache_are_found_without_root(tiny_root):
    test = TinyMNIST(split="test", cache_dir=tiny_root)
    assert len(test) == 5


def test_only_the_files_of_the_split_are_needed(tiny_root):
    for name in (TRAIN_IMAGES, TRAIN_LABELS):
        (tiny_root / (name + ".gz")).unlink()
    assert len(TinyMNIST(tiny_root, split="test")) == 5


# ----- tiny sets: errors ---------------------------------------------------------------------
def test_missing_file_says_what_to_do(tiny_root, tmp_path):
    (tiny_root / (TRAIN_LABELS + ".gz")).unlink()
    with pytest.raises(DatasetError) as info:
        TinyMNIST(tiny_root, cache_dir=tmp_path / "empty-cache")
    message = str(info.value)
    for part in (TRAIN_LABELS, str(tiny_root), "data.download=true", "data.root",
                 "empty-cache"):
        assert part in message


def _replace(root, name, array, write_idx, gz):
    for suffix in ("", ".gz"):
        (root / (name + suffix)).unlink(missing_ok=True)
    return write_idx(root / (name + (".gz" if gz else "")), array, gz=gz)


@pytest.mark.parametrize("case, name, array, match", [
    ("count mismatch", TRAIN_LABELS, np.zeros(11, np.uint8), "holds 12 images but .* 11 labels"),
    ("wrong count", TEST_LABELS, None, "hold 4 samples; the MNIST test set has 5"),
    ("wrong image size", TEST_IMAGES, np.zeros((5, 3, 4), np.uint8), "3x4 pixels"),
    ("labels as images", TEST_IMAGES, np.zeros(5, np.uint8), "bad magic number 2049"),
    ("bad label", TEST_LABELS, np.full(5, 10, np.uint8), "holds label 10"),
])
def test_inconsistent_files_are_one_error_naming_the_file(tiny_root, write_idx, case, name,
                                                          array, match):
    split = "test" if name.startswith("t10k") else "train"
    if case == "wrong count":  # both files agree with each other but not with the set's size
        _replace(tiny_root, TEST_IMAGES, np.zeros((4, 4, 4), np.uint8), write_idx, gz=False)
        array = np.zeros(4, np.uint8)
    path = _replace(tiny_root, name, array, write_idx, gz=split == "train")
    with pytest.raises(DatasetError, match=match) as info:
        TinyMNIST(tiny_root, split=split)
    assert str(path) in str(info.value)


def test_truncated_file_names_the_file(tiny_root):
    path = tiny_root / TEST_IMAGES
    path.write_bytes(path.read_bytes()[:-7])
    with pytest.raises(DatasetError, match="truncated") as info:
        TinyMNIST(tiny_root, split="test")
    assert str(path) in str(info.value)


def test_a_rewritten_file_is_read_again(tiny_root, write_idx):
    assert TinyMNIST(tiny_root, split="test").labels[0] == 0
    _replace(tiny_root, TEST_LABELS, np.full(5, 7, np.uint8), write_idx, gz=True)
    assert TinyMNIST(tiny_root, split="test").labels[0] == 7


@pytest.mark.parametrize("kwargs, match", [
    ({"split": "validation"}, "split must be one of"),
    ({"split": "valid", "valid_size": 0}, "'valid' split of MNIST is empty"),
    ({"valid_size": 12}, "holds out all 12"),
    ({"valid_size": -1}, "valid_size must be"),
])
def test_bad_arguments(tiny_root, kwargs, match):
    with pytest.raises(ValueError, match=match):
        TinyMNIST(tiny_root, **kwargs)
