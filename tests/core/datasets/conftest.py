"""Helpers for the dataset tests: hand-made IDX files (real data: tests/conftest.py)."""
from __future__ import annotations

import gzip
import struct
from pathlib import Path

import numpy as np
import pytest

CODES = {np.dtype("uint8"): 0x08, np.dtype("int8"): 0x09, np.dtype("int16"): 0x0B,
         np.dtype("int32"): 0x0C, np.dtype("float32"): 0x0D, np.dtype("float64"): 0x0E}


def idx_bytes(array: np.ndarray) -> bytes:
    """The IDX encoding of ``array``, written out by hand from the format's definition."""
    array = np.asarray(array)
    header = struct.pack(">HBB", 0, CODES[array.dtype], array.ndim)
    header += struct.pack(f">{array.ndim}I", *array.shape)
    return header + array.astype(array.dtype.newbyteorder(">")).tobytes()


def write_idx(path: Path, array=None, gz: bool = False, raw: bytes | None = None) -> Path:
    data = idx_bytes(array) if raw is None else raw
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


@pytest.fixture(name="write_idx")
def write_idx_fixture():
    """``write_idx(path, array, gz=False, raw=None)``: write an IDX file (or ``raw`` bytes)."""
    return write_idx


@pytest.fixture(name="idx_bytes")
def idx_bytes_fixture():
    return idx_bytes
