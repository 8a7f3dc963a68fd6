"""Datasets beyond fixed-size images: reader-over-files, text for word2vec, and sequences.

Builders for ``data=files``, ``data=text`` and ``data=vowels`` (registered in ``runner.build``),
what the model builder needs to know about a training set (``facts``), and the loader options a
data config asks for (``loader_options``): the pool, cache, prefetch and workers of every
loader, and the padding collate and length sorting of sequence sets.
"""
from __future__ import annotations

import importlib
import os

from core import data as cdata
from core import datasets
from runner.config import schema
from runner.errors import ConfigError


def _reader(spec: str):
    """A registered reader name, or ``package.module:function``."""
    if ":" not in spec:
        return cdata.get_reader(spec)
    module, _, attr = spec.partition(":")
    try:
        return getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"data.reader = '{spec}' cannot be loaded: {exc}.") from None


def _file_set(cfg: schema.FilesConfig, patterns: list[str], reader, label: str):
    try:
        files = cdata.expand_files(patterns, cfg.root)
    except FileNotFoundError as exc:
        raise datasets.DatasetError(f"data.{label}: {exc}") from None
    return cdata.FileDataset(files, reader, name=cfg.reader)


class SameShapes:
    """``reader`` whose samples must all have the feature shapes of the first one it read.

    A batch stacks its samples, so a row with a field missing would otherwise stop training
    mid-pass in the collate with a traceback naming no file; raised here, the error becomes a
    ``core.data.ReaderError`` naming the file and the sample. The first shapes are kept from
    the training files' first read, in the main process, before workers fork."""

    def __init__(self, reader):
        self.reader = reader
        self.first = None  # (feature shapes, path) of the first sample read

    def __call__(self, path: str):
        for sample in self.reader(path):
            if isinstance(sample, (tuple, list)):
                shapes = tuple(tuple(getattr(part, "shape", ())) for part in sample[:-1])
                if self.first is None:
                    self.first = (shapes, path)
                elif shapes != self.first[0]:
                    raise ValueError(
                        f"its features have shape {_shapes(shapes)} but the first sample (of "
                        f"{self.first[1]}) has {_shapes(self.first[0])}: every sample must have "
                        "the same shapes to be batched (a row with a missing or extra field?)")
            yield sample


def _shapes(shapes: tuple) -> str:
    return ", ".join(str(list(shape)) for shape in shapes)


def files(cfg: schema.FilesConfig, seed: int) -> dict:
    del seed  # the files are the split
    reader = SameShapes(_reader(cfg.reader))
    sets = {"train": _file_set(cfg, cfg.files, reader, "files"),
            "test": _file_set(cfg, cfg.test_files, reader, "test_files")}
    if cfg.valid_files:
        sets["valid"] = _file_set(cfg, cfg.valid_files, reader, "valid_files")
    for split, key, what in (("train", "files", "training"), ("valid", "valid_files",
                              "validation"), ("test", "test_files", "test")):
        if split in sets and len(sets[split]) == 0:  # len() reads and keeps the file counts
            raise datasets.DatasetError(
                f"data.{key}: the reader '{cfg.reader}' gave no sample from "
                f"{', '.join(sets[split].files)}: expected at least one {what} sample (an "
                "empty file, or a reader that skips every line?).")
    classes = cfg.num_classes or 1 + max(int(sample[-1]) for sample in _samples(sets["train"]))
    for dataset in sets.values():
        dataset.num_classes = classes
    return sets


def _samples(dataset):
    for shard in range(len(dataset.shards)):
        yield from dataset.read_shard(shard)


def text(cfg: schema.TextConfig, seed: int) -> dict:
    del seed  # each file is split by position
    root = _root(cfg, "a folder of plain-text *.txt files (the corpus)")
    corpus = datasets.read_corpus(root)
    train = datasets.CBOWText(root, "train", cfg.dict_size, cfg.window, cfg.valid_size,
                              cfg.test_size, corpus=corpus)
    sets = {"train": train}
    for split in ("valid", "test") if cfg.valid_size > 0 else ("test",):
        sets[split] = datasets.CBOWText(root, split, cfg.dict_size, cfg.window,
                                        cfg.valid_size, cfg.test_size, vocab=train.vocab,
                                        corpus=corpus)
    return sets


def vowels(cfg: schema.SequenceDataConfig, seed: int) -> dict:
    root = _root(cfg, "the folder holding JapaneseVowels_TRAIN.ts and JapaneseVowels_TEST.ts")

    def make(split):
        return datasets.JapaneseVowels(root, split, cfg.valid_size, seed,
                                       cfg.normalize, cfg.max_len, cfg.long_seq)

    splits = ("train", "valid", "test") if cfg.valid_size > 0 else ("train", "test")
    return {split: make(split) for split in splits}


def _root(cfg, what: str) -> str:
    """``data.root``, which these datasets need: an empty one would read the launch folder."""
    if not cfg.root:
        raise ConfigError(f"data={cfg.name} needs data.root: {what} (data.root=/path/to/it).")
    return cfg.root


DATASETS = {"files": files, "text": text, "vowels": vowels}


def facts(train) -> tuple[tuple[int, ...], int, bool]:
    """(input shape of one sample or step, vocabulary size or 0, variable length?)."""
    if isinstance(train, cdata.SequenceDataset):
        return train.step_shape, int(getattr(train, "vocab_size", 0)), True
    if isinstance(train, datasets.CBOWText):
        return (2 * train.window,), len(train.vocab), False
    if isinstance(train, cdata.FileDataset):
        first = next(iter(train.read_shard(0)))[0]
        return tuple(int(n) for n in first.shape), 0, False
    first = train[0][0]
    return tuple(int(n) for n in first.shape), 0, False


def loader_options(cfg: schema.DataConfig, dataset, train: bool) -> dict:
    """Keyword arguments of ``core.io.DataLoader`` for ``dataset`` under ``cfg``."""
    options = {"cache": cfg.cache, "prefetch": cfg.prefetch, "workers": cfg.workers,
               "collate_fn": getattr(dataset, "collate", None)}
    if train:  # the pool and file order only matter where the order is random
        options.update(pool_size=cfg.pool_size, min_pool_size=cfg.min_pool_size,
                       shuffle_files=cfg.shuffle_files,
                       sort_by_length=bool(getattr(cfg, "sort_by_length", False)))
    return options


def save_vocabulary(dataset, folder: str) -> str | None:
    """Write the training vocabulary of a text set into ``folder``; its path, or None."""
    vocab = getattr(dataset, "vocab", None)
    if vocab is None:
        return None
    path = os.path.join(folder, "vocab.txt")
    vocab.save(path)
    return path
