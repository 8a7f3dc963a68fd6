"""Your own data without code: ``data=arrays`` (.npz / .npy pairs) and ``data=csv`` (a table).

Each split is a file; a missing validation or test file is cut out of the training samples
(``valid_size``, ``test_size``: a fraction or a count) by one permutation drawn with the split
seed (``runner.build.SPLIT_SEED``): test first, then validation, the rest trains. For CSV the
transform (``runner.build.tabular``) is learnt on what remains for training only and applied to
every split; it rides on the training set as ``preprocessing`` for the inference bundle.
"""
from __future__ import annotations

import os

import numpy as np

from core.datasets import DatasetError
from core.datasets.common import holdout_count
from core.io import TensorDataset
from runner.build import tabular
from runner.config import schema


def _path(cfg, name: str) -> str:
    return name if not cfg.root or os.path.isabs(name) else os.path.join(cfg.root, name)


def _split_off(count_of: int, cfg, seed: int, have_valid: bool, have_test: bool):
    """Index arrays (train, valid or None, test or None) over ``count_of`` training samples."""
    order = np.random.default_rng(seed).permutation(count_of)
    n_test = 0 if have_test else holdout_count(cfg.test_size, count_of, "data.test_size")
    rest = count_of - n_test
    n_valid = 0 if have_valid else holdout_count(cfg.valid_size, rest, "data.valid_size")
    if count_of - n_test - n_valid < 1:
        raise ValueError(f"data.test_size={cfg.test_size} and data.valid_size={cfg.valid_size} "
                         f"leave no training sample of the {count_of}: use smaller sizes.")
    # A fraction of a few samples rounds to none: an empty test set, or a validation set that
    # silently disappears (and then a valid/ objective blamed on data.valid_size = 0).
    for key, size, count, of in (("test_size", cfg.test_size, n_test, f"{count_of}"),
                                 ("valid_size", cfg.valid_size, n_valid,
                                  f"the {rest} left after data.test_size")):
        if size > 0 and count == 0 and not (have_test if key == "test_size" else have_valid):
            raise ValueError(f"data.{key}={size:g} of {of} samples holds out none (it rounds "
                             f"to 0): use a whole count (data.{key}=1 or more) or a larger "
                             "fraction" + (", or data.valid_size=0 for no validation set."
                                           if key == "valid_size" else "."))
    test = None if have_test else order[:n_test]
    valid = None if have_valid or n_valid == 0 else order[n_test:n_test + n_valid]
    return order[n_test + n_valid:], valid, test


# --- data=arrays ------------------------------------------------------------------------------
def _load_npy(path: str, what: str) -> np.ndarray:
    if not os.path.isfile(path):
        raise DatasetError(f"{what}: {path} does not exist: expected a .npy file (check "
                           "data.root and the file names).")
    try:
        return np.load(path, allow_pickle=False)
    except Exception as exc:  # noqa: BLE001 - any unreadable file: say which and why
        raise DatasetError(f"{what}: {path} cannot be read as a .npy array: {exc}.") from None


def _load_npz(path: str, what: str, x_key: str, y_key: str):
    if not os.path.isfile(path):
        raise DatasetError(f"{what}: {path} does not exist: expected an .npz file holding "
                           f"arrays '{x_key}' and '{y_key}' (check data.root and the names).")
    try:
        with np.load(path, allow_pickle=False) as npz:
            keys = list(npz.files)
            missing = [k for k in (x_key, y_key) if k not in keys]
            if missing:
                raise DatasetError(
                    f"{what}: {path} has no array '{missing[0]}': its keys are "
                    f"{', '.join(keys) or 'none'}; name them with data.x_key and data.y_key "
                    f"(now '{x_key}' and '{y_key}').")
            return npz[x_key], npz[y_key]
    except DatasetError:
        raise
    except Exception as exc:  # noqa: BLE001
        # np.load takes a file that is not a zip archive for a pickle, and says so: misleading.
        why = ("it is not a zip archive of .npy arrays (numpy.savez writes one)"
               if "pickle" in str(exc) else str(exc).rstrip("."))
        raise DatasetError(f"{what}: {path} cannot be read as an .npz file: {why}.") from None


def _arrays_split(cfg: schema.ArraysConfig, split: str):
    """(x, y, where) of one split's files, or None when the split has no file."""
    prefix = "" if split == "train" else f"{split}_"
    x_file, y_file = getattr(cfg, f"{prefix}x_file"), getattr(cfg, f"{prefix}y_file")
    npz = getattr(cfg, split)
    if x_file or y_file:
        if not (x_file and y_file):
            given, other = ((f"{prefix}x_file", f"{prefix}y_file") if x_file
                            else (f"{prefix}y_file", f"{prefix}x_file"))
            raise DatasetError(f"data.{given} is set but data.{other} is not: a .npy pair "
                               "needs both the samples and the labels.")
        xp, yp = _path(cfg, x_file), _path(cfg, y_file)
        x = _load_npy(xp, f"data.{prefix}x_file")
        y = _load_npy(yp, f"data.{prefix}y_file")
        return x, y, f"{xp} and {yp}"
    if not npz:
        return None
    path = _path(cfg, npz)
    x, y = _load_npz(path, f"data.{split}", cfg.x_key, cfg.y_key)
    return x, y, path


def _check_arrays(x: np.ndarray, y: np.ndarray, where: str, cfg) -> tuple[np.ndarray, np.ndarray]:
    if x.ndim == 0 or y.ndim == 0:
        raise DatasetError(f"{where}: x has shape {list(x.shape)} and y {list(y.shape)}: "
                           "expected x [N, ...] (one sample per row) and labels y [N].")
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim != 1:
        raise DatasetError(f"{where}: y has shape {list(y.shape)}: expected integer class "
                           "labels of shape [N] (not one-hot rows).")
    if len(x) != len(y):
        raise DatasetError(f"{where}: x holds {len(x)} samples (shape {list(x.shape)}) but y "
                           f"{len(y)} labels: expected the same first dimension.")
    if len(x) == 0:
        raise DatasetError(f"{where}: the arrays hold no samples (x shape {list(x.shape)}).")
    if not (np.issubdtype(x.dtype, np.number) or x.dtype == np.bool_):
        raise DatasetError(f"{where}: x has dtype {x.dtype}: expected numbers.")
    if np.issubdtype(y.dtype, np.floating):
        if not np.all(np.isfinite(y)) or not np.all(y == np.round(y)):
            bad = int(np.argmax(~np.isfinite(y) | (y != np.round(y))))
            raise DatasetError(f"{where}: y[{bad}] = {y[bad]!r} is not an integer label: "
                               "expected integer class ids 0, 1, ... (y of an integer dtype).")
    elif not (np.issubdtype(y.dtype, np.integer) or y.dtype == np.bool_):
        raise DatasetError(f"{where}: y has dtype {y.dtype}: expected integer class ids.")
    y = y.astype(np.int64)
    if y.min() < 0:
        raise DatasetError(f"{where}: y[{int(np.argmin(y))}] = {int(y.min())} is negative: "
                           "expected class ids 0, 1, ...")
    x = x.reshape(len(x), 1) if x.ndim == 1 else x
    with np.errstate(over="ignore"):  # a value beyond float32 becomes inf: reported below
        x = np.ascontiguousarray(x, dtype=np.float32)
    _check_finite(x, where)
    return x, y


def _check_finite(x: np.ndarray, where: str) -> None:
    """A NaN or Inf feature (a missing value, a float32 overflow) would reach the loss on the
    first batch holding it and stop the run under trainer.nan_check with a report about the
    learning rate; name the sample and the feature instead, before anything is trained."""
    finite = np.isfinite(x)
    if finite.all():
        return
    flat = np.flatnonzero(~finite.reshape(len(x), -1).all(axis=1))
    sample = int(flat[0])
    feature = np.unravel_index(int(np.argmax(~finite[sample])), x.shape[1:])
    at = "".join(f"[{int(i)}]" for i in feature)
    raise DatasetError(f"{where}: x[{sample}]{at} = {x[sample][feature]} is not a finite number "
                       f"({len(flat)} of the {len(x)} samples have NaN or Inf features): fill in "
                       "those values or drop those samples and their labels before training.")


def _finish(sets: dict, num_classes: int, where: dict, preprocessing=None) -> dict:
    """Set ``num_classes`` (0: from the training labels) on each set after checking labels."""
    train_x, train_y = sets["train"].arrays
    classes = num_classes or int(train_y.max()) + 1
    for split, dataset in sets.items():
        x, y = dataset.arrays
        if x.shape[1:] != train_x.shape[1:]:
            raise DatasetError(f"{where[split]}: samples of shape {list(x.shape[1:])}, but the "
                               f"training samples are {list(train_x.shape[1:])}.")
        if int(y.max()) >= classes:
            bad = int(np.argmax(y >= classes))
            why = ("data.num_classes" if num_classes
                   else "one more than the largest training label")
            raise DatasetError(f"{where[split]}: label {int(y[bad])} (sample {bad}) is not "
                               f"below num_classes = {classes} ({why}).")
        dataset.num_classes = classes
    sets["train"].preprocessing = preprocessing
    return sets


def arrays(cfg: schema.ArraysConfig, seed: int) -> dict:
    loaded = {split: _arrays_split(cfg, split) for split in ("train", "valid", "test")}
    if loaded["train"] is None:
        raise DatasetError("data=arrays needs training arrays: data.train=FILE.npz (keys "
                           "data.x_key and data.y_key) or data.x_file=X.npy data.y_file=Y.npy.")
    checked = {s: (_check_arrays(v[0], v[1], v[2], cfg), v[2])
               for s, v in loaded.items() if v is not None}
    (x, y), where_train = checked["train"]
    train, valid, test = _split_off(len(x), cfg, seed, "valid" in checked, "test" in checked)
    sets, where = {"train": TensorDataset(x[train], y[train])}, {"train": where_train}
    for split, index in (("valid", valid), ("test", test)):
        if split in checked:
            (sx, sy), where[split] = checked[split]
            sets[split] = TensorDataset(sx, sy)
        elif index is not None:
            sets[split], where[split] = TensorDataset(x[index], y[index]), where_train
    return _finish(sets, cfg.num_classes, where)


# --- data=csv ---------------------------------------------------------------------------------
def csv(cfg: schema.CSVConfig, seed: int) -> dict:
    tables = {}
    for split in ("train", "valid", "test"):
        name = getattr(cfg, split)
        if name:
            tables[split] = tabular.read_table(_path(cfg, name), cfg.delimiter)
    if "train" not in tables:
        raise DatasetError("data=csv needs a training file: data.train=FILE.csv.")
    table = tables["train"]
    train, valid, test = _split_off(len(table), cfg, seed, "valid" in tables, "test" in tables)
    whole = table
    tables["train"] = whole.take(train)
    for split, index in (("valid", valid), ("test", test)):
        if split not in tables and index is not None:
            tables[split] = whole.take(index)
    transform = tabular.TabularTransform.fit(
        tables["train"], cfg.label, cfg.features, cfg.categorical, cfg.standardize,
        cfg.unknown_category, cfg.delimiter, label_table=whole)
    for part in tables.values():  # every file has the columns the transform reads
        if part.header != whole.header:
            for name in (transform.label, *transform.columns):
                part.column(name, f"a column of the training file {whole.path}")
    sets = {split: TensorDataset(*transform.apply(part)) for split, part in tables.items()}
    for split, part in tables.items():  # the raw rows: the MLflow model's input example
        sets[split].table = part
    num_classes = cfg.num_classes or (len(transform.classes) or None)
    return _finish(sets, num_classes or 0, {s: t.path for s, t in tables.items()},
                   preprocessing=transform.to_dict())


DATASETS = {"arrays": arrays, "csv": csv}
