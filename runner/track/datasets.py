"""A run's data sets as MLflow inputs: one per split, with a digest of what was read.

Each split becomes an MLflow dataset input (the run page's "Datasets used"): its name
(``digits-train``), its source (the data file or folder), a digest, its profile (rows and sample
shape) and the context ``training``, ``validation`` or ``test``. The digest is a hash of the
samples as loaded (for in-memory sets: features and labels) or of the bytes of the files a
file-backed set reads, so a changed data file gives a changed digest. Hashing runs at ~1 GB/s.
"""
from __future__ import annotations

import hashlib
import logging
import os
from pathlib import Path

import numpy as np

CONTEXTS = {"train": "training", "valid": "validation", "test": "test"}
DIGEST_CHARS = 16
_CHUNK = 1 << 20


def log(tracker, data_cfg, splits: dict) -> None:
    """Log the splits as the run's inputs; a set that cannot be described is only a warning."""
    try:
        records = describe(data_cfg, splits)
    except (OSError, TypeError, ValueError, IndexError) as exc:
        logging.getLogger(__name__).warning("data sets not logged to MLflow: %s", exc)
        return
    tracker.log_datasets(records)


def describe(data_cfg, splits: dict) -> list[dict]:
    """The records ``tracker.log_datasets`` takes, for ``{"train": dataset, ...}``."""
    records = []
    for split, dataset in splits.items():
        if dataset is None:
            continue
        files = getattr(dataset, "files", None)  # file-backed sets list theirs (IDX sets: a dict)
        files = [str(f) for f in files] if isinstance(files, (list, tuple)) else []
        digest = _digest_files(files) if files else _digest_samples(dataset)
        records.append({
            "name": f"{data_cfg.name}-{split}", "digest": digest,
            "source": _source(data_cfg, files), "context": CONTEXTS[split],
            "profile": {"num_rows": _rows(dataset), "sample_shape": _sample_shape(dataset)}})
    return records


def _source(data_cfg, files: list[str]) -> str:
    """The file or folder the split was read from."""
    if len(files) == 1:
        return os.path.abspath(files[0])
    if files:
        return os.path.commonpath([os.path.abspath(f) for f in files])
    if data_cfg.name == "digits":
        import core.datasets  # noqa: PLC0415

        return str(Path(core.datasets.__file__).parent / "data" / "digits.csv.gz")
    root = getattr(data_cfg, "root", "") or getattr(data_cfg, "cache_dir", "")
    if root:
        return os.path.abspath(os.path.expanduser(root))
    return str(Path("~/.cache/tomlrun", data_cfg.name).expanduser())


def _digest_files(files: list[str]) -> str:
    hasher = hashlib.sha1(usedforsecurity=False)
    for name in files:
        hasher.update(os.path.basename(name).encode() + b"\0")
        with open(name, "rb") as handle:
            while chunk := handle.read(_CHUNK):
                hasher.update(chunk)
    return hasher.hexdigest()[:DIGEST_CHARS]


def _digest_samples(dataset) -> str:
    hasher = hashlib.sha1(usedforsecurity=False)
    arrays = getattr(dataset, "arrays", None)
    if arrays is None:  # a set without arrays: its samples one by one
        arrays = [np.asarray(part) for i in range(len(dataset)) for part in dataset[i]]
    for array in arrays:
        array = np.ascontiguousarray(array)
        hasher.update(f"{array.dtype}{array.shape}".encode())
        hasher.update(memoryview(array).cast("B"))
    return hasher.hexdigest()[:DIGEST_CHARS]


def _rows(dataset) -> int:
    try:
        return len(dataset)
    except TypeError:
        return -1


def _sample_shape(dataset) -> list[int]:
    arrays = getattr(dataset, "arrays", None)
    if arrays is not None:
        return [int(n) for n in np.shape(arrays[0])[1:]]
    try:
        return [int(n) for n in np.shape(dataset[0][0])]
    except (TypeError, IndexError, KeyError):
        return []
