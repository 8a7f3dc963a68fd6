"""``save`` / ``load``: nested state dicts in ONE .npz file, no pickle, written atomically.

Format: every array (a Tensor's data, a numpy array, a numpy scalar) is one .npz member named
after its path in the structure (``model/conv1.weight``, sanitised and made unique); the member
``__tomlrun__`` holds a UTF-8 JSON manifest (as a uint8 array) that describes the structure,
holds the Python scalars, strings and None inline, and says which member each array is. Loading
uses ``allow_pickle=False``, so a file can never run code. Any suffix works (``.pdparams``,
``.pdopt``, ``.npz``): the file is written to an open handle, so numpy appends nothing.
"""
from __future__ import annotations

import json
import os
import re
import zipfile

import numpy as np

from core import backend
from core.atomic import atomic_write
from core.tensor import Tensor

MANIFEST = "__tomlrun__"
FORMAT = "tomlrun.state"
VERSION = 1
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


class SerializationError(ValueError):
    """A file that is missing, corrupt, truncated or not written by ``core.serialize.save``."""


# ----- saving ---------------------------------------------------------------------------------

def save(obj, path) -> None:
    """Write ``obj`` (nested dicts/lists/tuples of Tensors, arrays, scalars, strings, None).

    The file is replaced atomically: the data goes to a temporary file in the same folder that is
    flushed and fsync'ed before ``os.replace``, so a crash or error leaves the old file intact.
    """
    path = os.fspath(path)
    arrays: dict[str, np.ndarray] = {}
    manifest = {"format": FORMAT, "version": VERSION, "root": _encode(obj, [], arrays)}
    text = json.dumps(manifest, allow_nan=True, separators=(",", ":"))
    arrays[MANIFEST] = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    _atomic_write(path, arrays)


def _encode(node, where: list[str], arrays: dict) -> dict:
    """The manifest entry for ``node``; arrays are moved into ``arrays`` under a unique name."""
    if isinstance(node, Tensor):
        return {"t": "tensor", "k": _store(backend.to_numpy(node.data), where, arrays)}
    if isinstance(node, np.ndarray) or hasattr(node, "__cuda_array_interface__"):
        return {"t": "ndarray", "k": _store(backend.to_numpy(node), where, arrays)}
    if isinstance(node, np.generic):
        return {"t": "npscalar", "k": _store(np.asarray(node), where, arrays)}
    if node is None or isinstance(node, (bool, int, float, str)):
        return {"t": "value", "v": node}
    if isinstance(node, dict):
        items = []
        for key, value in node.items():
            if isinstance(key, bool) or not isinstance(key, (str, int)):
                raise TypeError(f"save: dict key {key!r} at '{_label(where)}' is a "
                                f"{type(key).__name__}; keys must be str or int")
            items.append([key, _encode(value, where + [str(key)], arrays)])
        return {"t": "dict", "items": items}
    if isinstance(node, (list, tuple)):
        kind = "list" if isinstance(node, list) else "tuple"
        return {"t": kind, "items": [_encode(v, where + [str(i)], arrays)
                                     for i, v in enumerate(node)]}
    raise TypeError(f"save: the value at '{_label(where)}' is a {type(node).__name__}; "
                    "save accepts dicts, lists and tuples of Tensors, numpy arrays, numbers, "
                    "strings and None (save a Layer or Optimizer through its state_dict())")


def _store(array: np.ndarray, where: list[str], arrays: dict) -> str:
    if array.dtype.hasobject:
        raise TypeError(f"save: the array at '{_label(where)}' has dtype object, which cannot be "
                        "stored without pickle")
    base = "/".join(_UNSAFE.sub("_", part) or "_" for part in where) or "_"
    name, n = base, 1
    while name in arrays or name == MANIFEST:
        name, n = f"{base}~{n}", n + 1
    arrays[name] = array
    return name


def _label(where: list[str]) -> str:
    return "/".join(where) or "<root>"


def _atomic_write(path: str, arrays: dict) -> None:
    with atomic_write(path, "wb") as handle:
        _write_npz(handle, arrays)


def _write_npz(handle, arrays: dict) -> None:
    """What ``np.savez`` writes, without its keyword arguments (a key named ``file`` or
    ``allow_pickle`` would collide with them) and never with pickle."""
    with zipfile.ZipFile(handle, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        for name, array in arrays.items():
            with zf.open(name + ".npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.asanyarray(array), allow_pickle=False)


# ----- loading --------------------------------------------------------------------------------

def load(path, return_numpy: bool = False):
    """Read a file written by ``save`` (Paddle's ``paddle.load``).

    Saved Tensors come back as Tensors on the current device, as in Paddle, or with
    ``return_numpy=True`` as numpy arrays; saved numpy arrays come back as numpy arrays.
    ``set_state_dict`` takes either. Raises ``FileNotFoundError`` for a
    missing file and ``SerializationError`` (a ``ValueError``) naming the path for a corrupt,
    truncated or foreign one.
    """
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"load: no file at '{path}'")
    manifest, arrays = _read(path)
    try:
        return _decode(manifest["root"], arrays, return_numpy)
    except (KeyError, TypeError, ValueError) as exc:
        raise SerializationError(f"load: '{path}' has a damaged manifest ({exc!r})") from None


def _read(path: str) -> tuple[dict, dict]:
    with open(path, "rb") as handle:
        magic = handle.read(4)
    if magic != b"PK\x03\x04":  # every .npz is a zip archive; refuse anything else up front
        raise SerializationError(f"load: '{path}' is not a tomlrun state file: it is not an .npz "
                                 "(zip) archive" + (" (the file is empty)" if not magic else ""))
    try:
        with np.load(path, allow_pickle=False) as npz:
            if MANIFEST not in npz.files:
                raise SerializationError(
                    f"load: '{path}' is an .npz file but not one written by tomlrun's save "
                    f"(it has no '{MANIFEST}' entry)")
            arrays = {name: npz[name] for name in npz.files}  # reads (and CRC-checks) all
    except SerializationError:
        raise
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, KeyError) as exc:
        raise SerializationError(
            f"load: '{path}' is not a readable tomlrun file: it is corrupt, truncated or not an "
            f".npz archive ({type(exc).__name__}: {exc})") from None
    try:
        manifest = json.loads(arrays.pop(MANIFEST).tobytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SerializationError(f"load: '{path}' has an unreadable manifest ({exc})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise SerializationError(f"load: '{path}' is not a tomlrun state file")
    if manifest.get("version") != VERSION:
        raise SerializationError(f"load: '{path}' has format version {manifest.get('version')}; "
                                 f"this tomlrun reads version {VERSION}")
    return manifest, arrays


def _decode(node: dict, arrays: dict, return_numpy: bool):
    kind = node["t"]
    if kind == "value":
        return node["v"]
    if kind == "tensor":
        array = arrays[node["k"]]
        return array if return_numpy else Tensor(backend.asarray(array))
    if kind == "ndarray":
        return arrays[node["k"]]
    if kind == "npscalar":
        return arrays[node["k"]][()]
    if kind == "dict":
        return {key: _decode(value, arrays, return_numpy) for key, value in node["items"]}
    if kind in ("list", "tuple"):
        items = [_decode(value, arrays, return_numpy) for value in node["items"]]
        return items if kind == "list" else tuple(items)
    raise ValueError(f"unknown entry type {kind!r}")


__all__ = ["SerializationError", "load", "save"]
