"""Datasets defined by a Python generator over files (Paddle's ``process(settings, filename)``).

A *reader* is a function ``reader(path) -> iterable of samples``; register it by name with
``@register_reader("name")`` so a config can choose it (``data=files``, ``data.reader=name``).
A ``FileDataset`` is a stream, not an indexable set: each file is a shard that the loader reads
in order, through its pool (``pool_size``), optionally in worker processes and from a memory
cache after the first pass. An exception inside a reader surfaces as ``ReaderError`` naming the
file and the index of the sample within it.
"""
from __future__ import annotations

import glob
import os
from collections.abc import Callable, Iterable, Iterator

READERS: dict[str, Callable] = {}


class ReaderError(RuntimeError):
    """A reader failed: the message names the file, the sample's index in it and the cause."""


def register_reader(name: str):
    """Decorator: make ``fn(path) -> iterable of samples`` available as reader ``name``."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"register_reader: name must be a non-empty string, got {name!r}.")

    def add(fn: Callable) -> Callable:
        if not callable(fn):
            raise TypeError(f"register_reader('{name}'): expected a function, got {fn!r}.")
        READERS[name] = fn
        return fn

    return add


def get_reader(name: str) -> Callable:
    try:
        return READERS[name]
    except KeyError:
        known = ", ".join(sorted(READERS)) or "none registered"
        raise ValueError(f"reader '{name}' is not registered: register it with "
                         f"@core.data.register_reader('{name}') before building the loader "
                         f"(registered: {known}).") from None


def expand_files(patterns: Iterable[str], root: str = "") -> list[str]:
    """Paths matching ``patterns`` (globs, relative to ``root``), sorted within each pattern."""
    files: list[str] = []
    for pattern in patterns:
        full = os.path.join(root, pattern) if root else pattern
        matches = sorted(glob.glob(full))
        if not matches:
            raise FileNotFoundError(f"no file matches '{full}': check data.root and data.files.")
        files += matches
    return files


class FileDataset:
    """The samples a ``reader`` yields for each of ``files``, file after file.

    ``len()`` reads every file once to count its samples (kept, unless ``counts`` are given),
    because the loader must know how many batches a pass holds.
    """

    def __init__(self, files: list[str], reader: Callable | str, counts: list[int] | None = None,
                 name: str | None = None):
        if isinstance(files, str) or not files:
            raise ValueError(f"FileDataset: files must be a non-empty list of paths, got "
                             f"{files!r}.")
        self.files = [str(f) for f in files]
        self.reader = get_reader(reader) if isinstance(reader, str) else reader
        if not callable(self.reader):
            raise TypeError(f"FileDataset: reader must be callable or a registered name, got "
                            f"{reader!r}.")
        self.name = name or getattr(self.reader, "__name__", "reader")
        if counts is not None and len(counts) != len(self.files):
            raise ValueError(f"FileDataset: {len(counts)} counts for {len(self.files)} files.")
        self._counts = None if counts is None else [int(c) for c in counts]

    @property
    def shards(self) -> list[str]:
        return self.files

    def read_shard(self, index: int) -> Iterator:
        """The samples of file ``index``; a reader error names the file and the sample index."""
        path = self.files[index]
        position = 0
        try:
            for sample in self.reader(path):
                yield sample
                position += 1
        except GeneratorExit:
            raise
        except Exception as exc:
            raise ReaderError(f"reader '{self.name}' failed at sample {position} of file "
                              f"{path}: {type(exc).__name__}: {exc}") from exc

    def counts(self) -> list[int]:
        if self._counts is None:
            self._counts = [sum(1 for _ in self.read_shard(i)) for i in range(len(self.files))]
        return self._counts

    def __len__(self) -> int:
        return sum(self.counts())


@register_reader("csv")
def read_csv(path: str):
    """A built-in reader: numeric CSV rows ``feature, ..., feature, label`` (``#`` comments).

    Yields ``(features float32 [n], label int64)`` per row.
    """
    import numpy as np  # noqa: PLC0415 - only this reader needs it

    with open(path, encoding="utf-8") as handle:
        for line in handle:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            *features, label = line.split(",")
            yield np.array(features, dtype=np.float32), np.int64(int(float(label)))
