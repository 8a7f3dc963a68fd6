"""The IDX reader: real MNIST files, hand-made files of every type, and every corruption."""
from __future__ import annotations

import gzip

import numpy as np
import pytest

from core.datasets import DatasetError, read_idx


@pytest.mark.parametrize("folder", ["mnist", "fashion-mnist"])
def test_real_label_and_test_image_files(shared_dir, folder):
    root = shared_dir(folder)
    labels = read_idx(root / "train-labels-idx1-ubyte.gz", ndim=1, dtype_code=0x08)
    assert labels.shape == (60000,) and labels.dtype == np.uint8
    assert np.array_equal(np.unique(labels), np.arange(10))
    images = read_idx(root / "t10k-images-idx3-ubyte.gz", ndim=3, dtype_code=0x08)
    assert images.shape == (10000, 28, 28) and images.dtype == np.uint8
    assert images.max() == 255 and images.min() == 0


def test_real_mnist_first_label(shared_dir):
    root = shared_dir("mnist")
    assert read_idx(root / "train-labels-idx1-ubyte.gz")[0] == 5  # MNIST's famous first "5"


@pytest.mark.parametrize("gz", [False, True])
@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "float32", "float64"])
def test_hand_made_files_round_trip(tmp_path, write_idx, dtype, gz):
    rng = np.random.default_rng(0)
    array = (rng.normal(size=(3, 4, 2)) * 50).astype(dtype)
    path = write_idx(tmp_path / "a.idx", array, gz=gz)
    out = read_idx(path)
    assert out.dtype == np.dtype(dtype) and out.dtype.isnative
    np.testing.assert_array_equal(out, array)
    out[0] = 0  # the result is a writable copy


def test_compression_is_detected_by_content_not_name(tmp_path, write_idx):
    array = np.arange(6, dtype=np.uint8)
    np.testing.assert_array_equal(read_idx(write_idx(tmp_path / "raw.gz", array)), array)
    np.testing.assert_array_equal(read_idx(write_idx(tmp_path / "zipped", array, gz=True)), array)


def test_empty_first_dimension(tmp_path, write_idx):
    out = read_idx(write_idx(tmp_path / "e", np.zeros((0, 2, 2), np.uint8)))
    assert out.shape == (0, 2, 2)


def _corruptions(idx_bytes):
    good = idx_bytes(np.arange(24, dtype=np.uint8).reshape(2, 3, 4))
    return {
        "not an IDX file": (b"\x89PNG\r\n\x1a\n" + good, {}, "bad magic number"),
        "unknown type code": (b"\x00\x00\x07\x03" + good[4:], {}, "bad magic number 0x00000703"),
        "wrong ndim": (good, {"ndim": 1}, r"bad magic number 2051 \(0x08 3-D\), expected 2049"),
        "wrong type": (good, {"dtype_code": 0x0D}, "expected 3331"),
        "tiny": (b"\x00\x00", {}, "truncated: 2 bytes"),
        "cut header": (good[:10], {}, "truncated inside its header"),
        "cut data": (good[:-5], {}, r"truncated: its header announces shape \(2, 3, 4\)"),
        "extra data": (good + b"\x00" * 3, {}, "3 bytes beyond"),
    }


@pytest.mark.parametrize("gz", [False, True])
@pytest.mark.parametrize("case", ["not an IDX file", "unknown type code", "wrong ndim",
                                  "wrong type", "tiny", "cut header", "cut data", "extra data"])
def test_each_corruption_is_one_error_naming_the_file(tmp_path, write_idx, idx_bytes, case, gz):
    data, kwargs, match = _corruptions(idx_bytes)[case]
    path = write_idx(tmp_path / f"broken-{gz}", raw=data, gz=gz)
    with pytest.raises(DatasetError, match=match) as info:
        read_idx(path, **kwargs)
    assert str(path) in str(info.value)


def test_truncated_gzip_names_the_file(tmp_path, idx_bytes):
    path = tmp_path / "cut.gz"
    path.write_bytes(gzip.compress(idx_bytes(np.zeros((50, 5), np.uint8)))[:-12])
    with pytest.raises(DatasetError, match="damaged or truncated gzip") as info:
        read_idx(path)
    assert str(path) in str(info.value)


def test_missing_file_and_folder(tmp_path):
    with pytest.raises(DatasetError, match="does not exist") as info:
        read_idx(tmp_path / "nothing.gz")
    assert "nothing.gz" in str(info.value)
    with pytest.raises(DatasetError, match="is a folder"):
        read_idx(tmp_path)


def test_dataset_error_is_a_value_error():
    assert issubclass(DatasetError, ValueError)
