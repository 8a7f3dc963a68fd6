"""``save`` / ``load``: nested state dicts in ONE .npz file, no pickle, written atomically.

Format: every array (a Tensor's data, a numpy array, a numpy scalar) is one .npz member named
after its path in the structure (``model/conv1.weight``, sanitised and made unique); the member
``__tomlrun__`` holds a UTF-8 JSON manifest (as a uint8 array) that describes the structure,
holds the Python scalars, strings and None inline, and says which member each array is. Loading
uses ``allow_pickle=False``, so a file can never run code. Any suffix works (``.pdparams``,
``.pdopt``, ``.npz``): the file is written to an open handle, so numpy appends nothing.

``load`` also reads Paddle's own checkpoints, the pickles ``paddle.save`` writes (see
``_load_paddle``), with an allow-list unpickler (``core.safe_pickle``) that builds numpy arrays
and containers only: a pickle that names anything else is refused before it is called.
"""
from __future__ import annotations

import json
import os
import re
import sys
import zipfile

import numpy as np

from core import backend, safe_pickle
from core.atomic import atomic_write
from core.tensor import Tensor

MANIFEST = "__tomlrun__"
ZIP_MAGIC = b"PK\x03\x04"
# Paddle pickles with protocol 2 to 4 (its check: 1 < protocol < 5), which start PROTO <n>
PICKLE_MAGICS = tuple(bytes([0x80, n]) for n in (2, 3, 4, 5))
NAME_TABLE = "StructuredToParameterName@@"   # Paddle's {structured key: parameter name}
BIG_PARAMS = "UnpackBigParamInfor@@"         # Paddle's {key: {"OriginShape", "slices"}}
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
        _refuse_sparse(node, where)
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


def _refuse_sparse(tensor: Tensor, where: list[str]) -> None:
    """A sparse tensor's ``data`` is only its stored values: saved as a Tensor it would load
    back as a dense ``[nnz]`` Tensor without its indices or shape. Paddle's ``paddle.save``
    cannot store one either (its pickler reads ``numpy()``, which sparse tensors lack)."""
    is_sparse = getattr(tensor, "is_sparse", None)
    if is_sparse is None or not is_sparse():
        return
    kind = "COO" if tensor.is_sparse_coo() else "CSR"
    parts = ("x.indices() and x.values()" if kind == "COO"
             else "x.crows(), x.cols() and x.values()")
    raise TypeError(
        f"save: the value at '{_label(where)}' is a sparse {kind} tensor (shape "
        f"{tensor.shape}, {tensor.nnz()} stored entries), which save cannot store: its data is "
        "only the stored values, and it would load back as a dense Tensor of those values "
        "alone (Paddle's paddle.save refuses sparse tensors too). Save x.to_dense() instead, "
        f"or save {parts} with the shape, and rebuild it after loading with "
        f"core.sparse.sparse_{kind.lower()}_tensor")


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

def load(path, return_numpy: bool = False, keep_name_table: bool = False):
    """Paddle's ``paddle.load(path, **configs)``: read a file written by ``save`` or by
    Paddle's ``paddle.save``, decided by its content (an .npz archive with tomlrun's manifest,
    or a pickle of protocol 2 to 5).

    Saved Tensors come back as Tensors on the current device, as in Paddle, or with
    ``return_numpy=True`` as numpy arrays; saved numpy arrays come back as numpy arrays.
    ``set_state_dict`` takes either. A Paddle state dict loses its
    ``"StructuredToParameterName@@"`` entry (the parameter names, which the loaded Tensors
    carry as ``.name``) unless ``keep_name_table=True``, as in Paddle. Raises
    ``FileNotFoundError`` for a missing file and ``SerializationError`` (a ``ValueError``)
    naming the path for a corrupt, truncated or foreign one, and for a pickle that names
    anything but numpy arrays and containers (the load stops before calling it).
    """
    path = os.fspath(path)
    if os.path.isdir(path):
        raise SerializationError(
            f"load: '{path}' is a folder; load reads one file (core.save's, or paddle.save's "
            "pickle). Paddle's fluid save_params / save_persistables folders and inference "
            "model prefixes are not read.")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"load: no file at '{path}'")
    with open(path, "rb") as handle:
        magic = handle.read(4)
    if magic[:2] in PICKLE_MAGICS:
        return _load_paddle(path, return_numpy, keep_name_table)
    if magic != ZIP_MAGIC:  # every .npz is a zip archive; refuse anything else up front
        raise SerializationError(
            f"load: '{path}' is neither a tomlrun state file (an .npz archive written by "
            "core.save) nor a Paddle checkpoint (a pickle written by paddle.save)"
            + (": the file is empty" if not magic else "") + ". Paddle's binary tensor files "
            "(use_binary_format=True), paddle.jit.save's inference models (the program in "
            ".pdmodel or .json, the weights in .pdiparams) and fluid's save_params folders "
            "are not read; save the Layer's state_dict() with paddle.save instead.")
    manifest, arrays = _read(path)
    try:
        return _decode(manifest["root"], arrays, return_numpy)
    except (KeyError, TypeError, ValueError, RecursionError) as exc:
        raise SerializationError(f"load: '{path}' has a damaged manifest ({exc!r})") from None


def _read(path: str) -> tuple[dict, dict]:
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
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise SerializationError(f"load: '{path}' has an unreadable manifest "
                                 f"({type(exc).__name__}: {exc})") from None
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


# ----- Paddle's checkpoints -------------------------------------------------------------------
# What ``paddle.save`` writes (python/paddle/framework/io.py): one pickle, protocol 2 to 4.
# - A state dict (values all Tensors, or dicts holding no Tensor, as an optimizer's
#   ``LR_Scheduler``) goes through ``_legacy_save``: every Tensor becomes its numpy array, the
#   entry ``"StructuredToParameterName@@"`` maps each such key to the Tensor's name, and at
#   protocol 2/3 an array over 2**30 bytes is cut into flat slices ``key@@.0``, ``key@@.1``, ...
#   listed under ``"UnpackBigParamInfor@@"`` with its ``OriginShape`` (``_unpack_saved_dict``).
# - Anything else goes through ``_pickle_save``: a Tensor is reduced to the tuple
#   ``(name, ndarray)`` (``reduce_varbase``), a LoDTensor to ``eval('data', {'data': ndarray})``
#   (``reduce_LoDTensor``), so plain arrays stay arrays.
# ``paddle.load`` undoes both: ``_pack_loaded_dict`` joins the slices; with a name table the
# arrays it lists become Tensors named after it; without one, ``(name, ndarray)`` tuples
# become Tensors if there are any, else every array does (``_parse_load_result``).

def _lod_tensor_array(expression=None, namespace=None):
    """Stands in for ``eval`` in Paddle's ``reduce_LoDTensor``, which pickles a LoDTensor as
    ``eval('data', {'data': array})``: gives the array, and evaluates nothing else."""
    if expression != "data" or not isinstance(namespace, dict) or set(namespace) != {"data"} \
            or not isinstance(namespace["data"], np.ndarray):
        raise safe_pickle.ForbiddenGlobalError("builtins", "eval")
    return namespace["data"]


_PADDLE_GLOBALS = {**safe_pickle.CONTAINER_GLOBALS, ("builtins", "eval"): _lod_tensor_array}


def _load_paddle(path: str, return_numpy: bool, keep_name_table: bool):
    """A pickle written by ``paddle.save``, turned back into what ``paddle.load`` returns."""
    try:
        with open(path, "rb") as handle:
            # latin1, as paddle.load: Python 2 (fluid) pickles hold array bytes as str
            obj = safe_pickle.load(handle, _PADDLE_GLOBALS, encoding="latin1")
    except safe_pickle.ForbiddenGlobalError as exc:
        raise SerializationError(
            f"load: '{path}' is a pickle that names {exc.module}.{exc.name}, so it is not a "
            "Paddle checkpoint or it contains code: paddle.save's pickles hold only numpy "
            "arrays, numbers, strings and containers. The load stopped before calling it; "
            "load only files you trust with Python's pickle.") from None
    except safe_pickle.ObjectArrayError as exc:
        raise SerializationError(
            f"load: '{path}' is a pickle that {str(exc).removeprefix('the pickle ')}. "
            "paddle.save's checkpoints hold numeric arrays only; the load stopped there."
        ) from None
    except Exception as exc:  # noqa: BLE001 - damaged bytes make pickle raise almost anything
        raise SerializationError(
            f"load: '{path}' is a pickle (Paddle's checkpoint format) that cannot be read: it "
            f"is truncated or damaged ({type(exc).__name__}: {' '.join(str(exc).split())})."
        ) from None
    try:
        return _paddle_result(obj, path, return_numpy, keep_name_table)
    except RecursionError:  # the walks below recurse; a crafted file can nest lists 10**5 deep
        raise SerializationError(
            f"load: '{path}' nests its lists or dicts deeper than Python's recursion limit "
            f"({sys.getrecursionlimit()}): paddle.save never writes such a file.") from None


def _paddle_result(obj, path: str, return_numpy: bool, keep_name_table: bool):
    """The unpickled ``obj`` as ``paddle.load`` returns it."""
    if isinstance(obj, dict):
        obj = _join_big_params(obj, path)
        if NAME_TABLE in obj:
            return _named_state_dict(obj, return_numpy, keep_name_table, path)
    return _parse_load_result(obj, return_numpy)


def _join_big_params(obj: dict, path: str) -> dict:
    """Paddle's ``_pack_loaded_dict``: each array split at save time, joined and reshaped."""
    info = obj.pop(BIG_PARAMS, None)
    if info is None:
        return obj
    try:
        for key, entry in info.items():
            parts = [obj.pop(part) for part in entry["slices"]]
            obj[key] = np.concatenate(parts).reshape(entry["OriginShape"])
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise SerializationError(
            f"load: '{path}' lists a parameter split into slices under '{BIG_PARAMS}' that "
            f"cannot be joined ({type(exc).__name__}: {exc}): the file is damaged.") from None
    return obj


def _named_state_dict(obj: dict, return_numpy: bool, keep_name_table: bool, path: str):
    table = obj[NAME_TABLE]
    if not isinstance(table, dict):
        raise SerializationError(f"load: '{path}' has a '{NAME_TABLE}' entry that is a "
                                 f"{type(table).__name__}, not a dict of parameter names")
    for key, name in table.items():
        if isinstance(obj.get(key), np.ndarray):
            obj[key] = _paddle_tensor(obj[key], name, return_numpy)
    if not keep_name_table:
        del obj[NAME_TABLE]
    return obj


def _parse_load_result(obj, return_numpy: bool):
    """Paddle's ``_parse_load_result``: ``(name, ndarray)`` tuples are Tensors when there
    are any; otherwise (a file of Paddle 2.0, or a LoDTensor's array) every array is."""
    if _contains(obj, _is_named_array):
        return _convert(obj, _is_named_array, lambda t: _paddle_tensor(t[1], t[0], return_numpy))
    return _convert(obj, lambda v: isinstance(v, np.ndarray),
                    lambda a: _paddle_tensor(a, None, return_numpy))


def _is_named_array(node) -> bool:
    return (type(node) is tuple and len(node) == 2 and isinstance(node[0], str)
            and isinstance(node[1], np.ndarray))


def _contains(node, match) -> bool:
    if match(node):
        return True
    if isinstance(node, dict):
        return any(_contains(value, match) for value in node.values())
    if isinstance(node, (list, tuple, set, frozenset)):
        return any(_contains(value, match) for value in node)
    return False


def _convert(node, match, convert):
    """``node`` with every part that ``match``es replaced by ``convert(part)``; containers
    keep their type (an OrderedDict stays one)."""
    if match(node):
        return convert(node)
    if isinstance(node, dict):
        out = type(node)()
        for key, value in node.items():
            out[key] = _convert(value, match, convert)
        return out
    if isinstance(node, (list, tuple)):
        return type(node)(_convert(value, match, convert) for value in node)
    return node  # sets hold no arrays (an array is unhashable)


def _paddle_tensor(array: np.ndarray, name, return_numpy: bool):
    if return_numpy:
        return array
    tensor = Tensor(backend.asarray(array))
    if isinstance(name, str) and name:
        tensor.name = name  # as paddle.load: the name the parameter had when it was saved
    return tensor


__all__ = ["SerializationError", "load", "save"]
