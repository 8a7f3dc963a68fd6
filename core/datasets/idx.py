"""Reader for the IDX format of MNIST and its relatives, raw or gzip-compressed.

An IDX file is a 4-byte magic number (two zero bytes, a type code, the number of dimensions),
one big-endian uint32 per dimension, then the values in row-major order, big-endian. Whether a
file is compressed is decided by its first bytes (the gzip magic 1f 8b), not by its name.
Every way the file can be wrong raises one ``DatasetError`` that names the file.
"""
from __future__ import annotations

import gzip
import os
import struct
import zlib

import numpy as np

from core.datasets.common import DatasetError

# IDX type code -> big-endian numpy dtype.
DTYPES = {
    0x08: np.dtype(">u1"), 0x09: np.dtype(">i1"), 0x0B: np.dtype(">i2"),
    0x0C: np.dtype(">i4"), 0x0D: np.dtype(">f4"), 0x0E: np.dtype(">f8"),
}
_GZIP_MAGIC = b"\x1f\x8b"


def read_idx(path, ndim: int | None = None, dtype_code: int | None = None) -> np.ndarray:
    """The array stored in the IDX file ``path`` (native byte order).

    ``ndim`` and ``dtype_code`` (0x08 for uint8 ...), when given, are checked against the magic
    number, e.g. ``read_idx(p, ndim=3, dtype_code=0x08)`` for MNIST images (magic 2051).
    """
    path = os.fspath(path)
    data = _read_bytes(path)
    code, dims, offset = _parse_header(path, data)
    expected = _expected_magic(ndim, dtype_code, code, len(dims))
    if expected is not None:
        raise DatasetError(
            f"{path}: bad magic number {_magic(code, len(dims))}, expected {expected}: it is a "
            "different or damaged file."
        )
    dtype = DTYPES[code]
    count = int(np.prod(dims, dtype=np.int64)) if dims else 1
    need, have = count * dtype.itemsize, len(data) - offset
    if have < need:
        raise DatasetError(
            f"{path} is truncated: its header announces shape {tuple(dims)} ({need} bytes of "
            f"data) but only {have} bytes follow; download it again."
        )
    if have > need:
        raise DatasetError(
            f"{path} has {have - need} bytes beyond the {need} its header (shape {tuple(dims)}) "
            "announces: it is damaged or not an IDX file."
        )
    array = np.frombuffer(data, dtype=dtype, count=count, offset=offset).reshape(dims)
    return array.astype(dtype.newbyteorder("="))  # a writable copy in native byte order


def _read_bytes(path: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        raise DatasetError(f"{path} does not exist.") from None
    except IsADirectoryError:
        raise DatasetError(f"{path} is a folder, not an IDX file.") from None
    except OSError as exc:
        raise DatasetError(f"{path} cannot be read: {exc.strerror or exc}.") from None
    if data[:2] != _GZIP_MAGIC:
        return data
    try:
        return gzip.decompress(data)
    except (EOFError, OSError, zlib.error) as exc:
        raise DatasetError(
            f"{path} is a damaged or truncated gzip file ({exc}); download it again."
        ) from None


def _parse_header(path: str, data: bytes) -> tuple[int, list[int], int]:
    if len(data) < 4:
        raise DatasetError(
            f"{path} is truncated: {len(data)} bytes, fewer than the 4 of an IDX magic number."
        )
    zero, code, ndim = struct.unpack(">HBB", data[:4])
    if zero != 0 or code not in DTYPES:
        codes = ", ".join(f"0x{c:02X}" for c in DTYPES)
        raise DatasetError(
            f"{path}: bad magic number 0x{data[:4].hex().upper()}, expected two zero bytes, a "
            f"type code ({codes}) and the number of dimensions: it is not an IDX file."
        )
    offset = 4 + 4 * ndim
    if len(data) < offset:
        raise DatasetError(
            f"{path} is truncated inside its header: {ndim} dimensions need {offset} bytes, "
            f"the file has {len(data)}."
        )
    dims = list(struct.unpack(f">{ndim}I", data[4:offset]))
    return code, dims, offset


def _magic(code: int, ndim: int) -> str:
    return f"{(code << 8) | ndim} (0x{code:02X} {ndim}-D)"


def _expected_magic(ndim, dtype_code, code, found_ndim) -> str | None:
    """A description of the wanted magic number when the file's does not match, else None."""
    if (ndim is None or ndim == found_ndim) and (dtype_code is None or dtype_code == code):
        return None
    want_code = code if dtype_code is None else dtype_code
    want_ndim = found_ndim if ndim is None else ndim
    return _magic(want_code, want_ndim)
