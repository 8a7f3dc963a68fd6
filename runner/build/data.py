"""The data of a run: the ``data`` group's datasets and their train/valid/test loaders."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core import data as cdata
from core import datasets, io
from core import device as core_device
from runner import plugins
from runner.build import array_data, sequence_data
from runner.build.registry import lookup
from runner.config import schema
from runner.errors import ConfigError, UserError

# The train/valid/test split is drawn with a fixed seed, not trainer.seed, so that every run of a
# sweep (seeds included) is measured on the same validation samples.
SPLIT_SEED = 0

@dataclass
class DataSplits:
    """The datasets of one run and the facts the model needs from them."""

    train: object
    valid: object | None  # None when data.valid_size is 0
    test: object
    input_shape: tuple[int, ...]  # one sample, without the batch axis: (1, 28, 28) for MNIST
    num_classes: int
    vocab_size: int = 0  # > 0 when the inputs are word ids (data=text)
    variable_length: bool = False  # batches are (padded, lengths, labels) (data=vowels)
    preprocessing: dict | None = None  # the learnt input transform (data=csv), for the bundle


def _digits(cfg: schema.DataConfig, seed: int) -> dict:
    def make(split):
        return datasets.Digits(split=split, valid_size=cfg.valid_size, seed=seed,
                               normalize=cfg.normalize)

    return {split: make(split) for split in _splits(cfg)}


def _idx_dataset(class_name: str):
    """A builder for an IDX dataset (MNIST and Fashion-MNIST share the format and arguments)."""

    def build(cfg: schema.DataConfig, seed: int) -> dict:
        del seed  # IDX sets hold out the end of the training file: the split needs no seed
        cls = getattr(datasets, class_name)
        return {split: cls(root=cfg.root or None, split=split, valid_size=cfg.valid_size,
                           normalize=cfg.normalize, download=cfg.download,
                           cache_dir=cfg.cache_dir or None)
                for split in _splits(cfg)}

    build.__name__ = f"_{class_name.lower()}"
    return build


def _splits(cfg: schema.DataConfig) -> tuple[str, ...]:
    return ("train", "valid", "test") if cfg.valid_size > 0 else ("train", "test")


DATASETS = {
    "digits": _digits,
    "mnist": _idx_dataset("MNIST"),
    "fashion_mnist": _idx_dataset("FashionMNIST"),
    **sequence_data.DATASETS,  # files, text, vowels
    **array_data.DATASETS,  # arrays, csv
}


def build_data(cfg: schema.DataConfig, seed: int) -> DataSplits:
    """The train/valid/test datasets of ``cfg``; a missing or broken file is a UserError."""
    builder = _plugin_sets if isinstance(cfg, schema.PluginDataConfig) \
        else lookup(DATASETS, cfg.name, "data")
    try:
        sets = builder(cfg, seed)
    except datasets.DatasetError as exc:  # a missing or damaged file: the user can fix it
        raise UserError(f"data={cfg.name}: {exc}") from exc
    except ValueError as exc:  # sizes the dataset refuses (valid_size too large, ...)
        raise ConfigError(f"data={cfg.name}: {exc}") from exc
    train = sets["train"]
    shape, vocab_size, variable = sequence_data.facts(train)  # the first sample's shape, ...
    classes = sets.get("num_classes") or getattr(train, "num_classes", None) or _count(train)
    return DataSplits(train=train, valid=sets.get("valid"), test=sets["test"],
                      input_shape=shape, num_classes=int(classes),
                      vocab_size=vocab_size, variable_length=variable,
                      preprocessing=getattr(train, "preprocessing", None))


def _plugin_sets(cfg: schema.PluginDataConfig, seed: int) -> dict:
    """A registered dataset builder's splits (runner.plugins.dataset), checked."""
    sets = plugins.call("dataset", cfg.name, seed=seed, **cfg.options)
    source = plugins.REGISTRIES["dataset"].source(cfg.name)
    if not isinstance(sets, dict) or "train" not in sets or "test" not in sets:
        raise ConfigError(f"the plugin dataset '{cfg.name}' ({source}) must return a dict with "
                          f"'train' and 'test' datasets (and optionally 'valid', "
                          f"'num_classes'); it returned {type(sets).__name__}.")
    for split in ("train", "valid", "test"):
        _check_split(sets.get(split), f"the plugin dataset '{cfg.name}' ({source})", split)
    return sets


def _check_split(dataset, what: str, split: str) -> None:
    """A plugin's split must hold samples ``(features, ..., label)``: a bare ``(x, y)`` pair of
    arrays has a length and items too, and would otherwise fail batches later, mid-run."""
    if dataset is None and split == "valid":
        return
    if isinstance(dataset, cdata.FileDataset):  # samples come from its reader, read later
        return
    try:
        count = len(dataset)
        sample = dataset[0] if count else None
    except Exception as exc:  # noqa: BLE001 - any object that is not a dataset ends up here
        found = f"{type(dataset).__name__} ({type(exc).__name__}: {exc})"
    else:
        if count and isinstance(sample, (tuple, list)) and len(sample) >= 2:
            return
        found = (f"{type(dataset).__name__} of {count} items" if not count else
                 f"{type(dataset).__name__} whose item 0 is {_describe(sample)}")
    raise ConfigError(f"{what} returned a {split} split that is not a dataset of samples: "
                      f"got a {found}. Each split must have a len() and give (features, ..., "
                      "label) tuples by index, e.g. core.io.TensorDataset([x, y]) for arrays "
                      "x [N, ...] and integer labels y [N]; 'valid' may be None.")


def _describe(value) -> str:
    shape = getattr(value, "shape", None)
    return f"{type(value).__name__} of shape {tuple(shape)}" if shape is not None \
        else type(value).__name__


def _count(dataset) -> int:
    """The number of classes of a dataset without ``num_classes``: its largest label + 1."""
    arrays = io.dataset_arrays(dataset)
    labels = arrays[-1] if arrays else [dataset[i][-1] for i in range(len(dataset))]
    return int(np.max(np.asarray(labels))) + 1


def build_loaders(data: DataSplits, cfg: schema.DataConfig, trainer: schema.TrainerConfig):
    """(train, valid or None, test) loaders; only training shuffles and drops the last batch.

    Batches are Tensors on the current device (selected before building); with data.prefetch
    the prefetch thread uploads them (on a GPU: pinned memory, its own stream)."""
    device = core_device.get_device()

    def plain(dataset):
        if dataset is None:
            return None
        return io.DataLoader(dataset, batch_size=trainer.batch_size, device=device,
                             **sequence_data.loader_options(cfg, dataset, train=False))

    train = io.DataLoader(data.train, batch_size=trainer.batch_size, shuffle=cfg.shuffle,
                          drop_last=cfg.drop_last, seed=trainer.seed, device=device,
                          **sequence_data.loader_options(cfg, data.train, train=True))
    if len(train) == 0:
        raise ConfigError(f"trainer.batch_size={trainer.batch_size} with data.drop_last=true "
                          f"leaves no batch of the {len(data.train)} training samples: use a "
                          "smaller batch size or data.drop_last=false.")
    return train, plain(data.valid), plain(data.test)
