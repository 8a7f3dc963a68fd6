"""``python -m runner.infer run=<run id | path> input=<file.npy | split> outputs=[fc,softmax]``

Rebuilds a trained model from its logged MLflow model (no training config needed), runs it on the
input and writes every requested output to an ``.npz`` file, then prints a summary.

Keys (``key=value``, in any order):
  run=      an MLflow run id (its logged ``model`` artifact), ``runs:/<id>/model``,
            ``models:/<name>/<version>`` or ``models:/<name>@<alias>`` (the model registry), a
            run's output folder or its ``model/`` folder, or a training checkpoint file or folder
  input=    a ``.npy`` file of samples prepared as in training (e.g. pixels in [0, 1] when the
            data was normalized), shaped [N, *input_shape] or [N, features] ([N, T, *step] of
            equal-length sequences for a sequence model); or a split of the
            run's dataset: ``train``, ``valid`` or ``test``, split as in training (labels come
            with it; data=arrays, csv, text, vowels and files read the run's own files
            again, with the run's data keys: dict_size, max_len, ...); or, for a
            run trained with ``data=csv``, a raw ``.csv`` file with the training header, which
            the saved preprocessing prepares (its label column, when present, gives labels)
  outputs=  layer names (``[conv2,fc]``; a spec's block entry or copy, ``hidden`` or
            ``hidden.0``, is its output layer's output), plus ``output`` (the model's output)
            and ``softmax`` (its softmax); default ``[output]``. ``NAME[i]`` is value i (from
            0) of a layer that returns several, as in a spec's inputs: ``outputs=[pool[1],fc]``
            (a MaxPool2D with return_mask = true: its indices)
  labels=   optional ``.npy`` of integer labels for a ``.npy`` input, one per sample (accuracy
            is printed)
  out=      the ``.npz`` to write (default ``inference.npz``), in a folder that exists
  uri=      the MLflow tracking URI holding the run (default ``sqlite:///./mlflow.db``)
  root=     the folder of the IDX files, for an mnist / fashion_mnist split; for data=arrays,
            csv, text, vowels or files, the folder the run's files are in now (default: where
            they were)
  batch_size=  samples per forward pass, an integer >= 1 (default 256)
  unknown_category=  error or zeros, for a run trained with data=csv: what a category its
            training rows never had does (default: what the run used, data.unknown_category)

``~/...`` in run=, input=, labels=, out= and root= is the home folder (also when quoted).

For a classifier the ``.npz`` also holds ``predicted`` (argmax of the model's output) and, with
labels, ``labels``; the summary prints the predicted label counts and the accuracy.
"""
from __future__ import annotations

import difflib
import math
import os
import re
import sys

import numpy as np
import tomllib

from core import backend
from core import data as cdata
from core.atomic import atomic_write
from core.inference import OUTPUT, SOFTMAX, Inference
from runner import build, plugins
from runner.build import array_data, sequence_data, tabular
from runner.build.spec.parse import ITEM, split_item
from runner.config import schema, validation
from runner.errors import ConfigError, UserError
from runner.process import closed_stdout_is_quiet
from runner.track import bundle, tracking

KEYS = ("run", "input", "outputs", "labels", "out", "uri", "root", "batch_size",
        "unknown_category")
SPLITS = ("train", "valid", "test")
UNKNOWN_CATEGORY = ("error", "zeros")
# Data keys of the training config that messages from the data layer name, and the key of this
# command that sets the same thing (infer takes no ``data.`` keys).
MAX_COUNTS = 20  # predicted label counts printed
# Data kinds whose whole config the bundle records (runner.track.bundle.REBUILT_FROM_FILES).
RECORDED = set(array_data.DATASETS) | set(sequence_data.DATASETS)
OWN_KEYS = {"data.root": "root", "data.unknown_category": "unknown_category"}
# Keys holding a path: ``~/...`` there is the home folder, as in training's data paths
# (runner.config.validation) and as a shell would expand it unquoted.
PATH_KEYS = ("run", "input", "labels", "out", "root")


def parse(argv: list[str]) -> dict[str, str]:
    """``key=value`` words to a dict; unknown keys and words without ``=`` are refused."""
    options: dict[str, str] = {}
    for word in argv:
        key, sep, value = word.partition("=")
        if not sep or key not in KEYS:
            close = difflib.get_close_matches(key, KEYS, n=1)
            hint = f" (did you mean {close[0]}={value}?)" if sep and close else ""
            raise UserError(f"'{word}' is not a key=value argument this command knows{hint}: "
                            f"the keys are {', '.join(KEYS)} (run and input are required).")
        options[key] = os.path.expanduser(value) if key in PATH_KEYS and value.startswith(
            "~") else value
    missing = [k for k in ("run", "input") if not options.get(k)]
    if missing:
        raise UserError(f"missing {' and '.join(missing)}=...: usage: python -m runner.infer "
                        "run=<run id or path> input=<file.npy or split> [outputs=[fc,softmax]]")
    return options


def names(text: str) -> list[str]:
    """``[fc,softmax]``, ``fc,softmax`` or ``[pool[1],fc]`` -> ``["fc", "softmax"]`` /
    ``["pool[1]", "fc"]``: only the list's own outer brackets are taken off (stripping every
    ``]`` at the ends cut ``pool[1]`` to ``pool[1``), and each name is checked."""
    text = text.strip()
    if text.startswith("[") and text.endswith("]") and not ITEM.match(text):
        text = text[1:-1]
    items = [_tidy(part) for part in text.split(",")]
    items = [item for item in items if item]
    for item in items:
        _check_item(item)
    return items


def _tidy(part: str) -> str:
    """One listed name without quotes and without spaces at its ends or around ``[i]``
    (``pool [1]`` -> ``pool[1]``): a space left in would name a layer ``'pool '``."""
    part = part.strip().strip("'\"").strip()
    return re.sub(r"\s*\[\s*(\d+)\s*\]$", r"[\1]", part)


def _check_item(name: str) -> None:
    """A name with ``[`` or ``]`` must be ``NAME[i]``, as a spec's inputs write it
    (runner.build.spec): one whole-number index from 0 after a plain layer name."""
    match = ITEM.match(name)
    if ("[" in name or "]" in name) and (not match or any(c in match["name"] for c in "[]")):
        raise UserError(f"outputs= names {name!r}, which is not a layer or a layer's value: "
                        "NAME[i] reads value i of a layer that returns several, with i a whole "
                        "number from 0 (pool[1], the second value) and one [i] only (no "
                        "negative index, no value inside a value).")


def check_layers(model, wanted: list[str]) -> None:
    """Every name in ``outputs=`` is a layer (or ``output`` / ``softmax``), before any input is
    read: core's own check spoke of ``Inference``'s ``output_layer`` argument, which this
    command has no key for, and came only after a possibly large input had loaded."""
    layers = model.output_layers()
    unknown = [name for name in wanted
               if split_item(name)[0] not in layers and split_item(name)[0] not in (OUTPUT,
                                                                                     SOFTMAX)]
    if not unknown:
        return
    close = [match for name in unknown for match in difflib.get_close_matches(
        split_item(name)[0], [*layers, OUTPUT, SOFTMAX], n=1)]
    hint = f" (did you mean {', '.join(close)}?)" if close else ""
    which = "is not a layer" if len(unknown) == 1 else "are not layers"
    raise UserError(f"outputs=[{','.join(wanted)}] names {', '.join(map(repr, unknown))}, which "
                    f"{which} of this model whose output can be read{hint}: use "
                    f"{', '.join(layers)}, or {OUTPUT} / {SOFTMAX} for the model's output "
                    "(logits) and its softmax (python -m runner.summary lists the layers).")


class _Items:
    """The ``NAME[i]`` outputs: value i of what a layer returns (a MaxPool2D with
    ``return_mask=True`` returns its output and the indices), which ``Inference`` (it keeps a
    layer's first value) does not read. A hook on each such layer keeps value i of every
    forward pass; a pre-hook on the model marks where each chunk of samples starts."""

    def __init__(self, model, wanted: list[str]):
        self.items = {name: split_item(name) for name in wanted if split_item(name)[1] is not None}
        self.layers = model.output_layers()
        self.model, self.chunks = model, []
        for name, (layer, _) in self.items.items():
            # ``output`` and ``softmax`` pass Inference's check of the names without being
            # layers to hook: no value would be kept (numpy's "need at least one array to
            # concatenate" was the message)
            if layer in (OUTPUT, SOFTMAX) and layer not in self.layers:
                raise UserError(f"outputs={name}: {layer} is the model's "
                                f"{'output' if layer == OUTPUT else 'softmax'}, one array, "
                                f"not a layer's values: read it as {layer}.")

    def layer_names(self) -> list[str]:
        """The layers whose values are read, for ``Inference`` (it checks they exist)."""
        return list(dict.fromkeys(layer for layer, _ in self.items.values()))

    def __enter__(self):
        handles = [self.model.register_forward_pre_hook(self._start)]
        handles += [self.layers[layer].register_forward_post_hook(self._keeper(name))
                    for name, (layer, _) in self.items.items() if layer in self.layers]
        self.handles = handles
        return self

    def __exit__(self, *exc) -> None:
        for handle in self.handles:
            handle.remove()

    def _start(self, layer, inputs) -> None:
        del layer
        first = inputs[0] if inputs else None
        while isinstance(first, (tuple, list)):  # a sequence model's (padded, lengths)
            first = first[0]
        self.chunks.append((len(first.data) if hasattr(first, "data") else None, {}))

    def _keeper(self, name: str):
        layer_name, index = self.items[name]

        def keep(layer, inputs, output):
            del inputs
            rows, kept = self.chunks[-1]
            kept[name] = _item(name, type(layer).__name__, output, index, rows)

        return keep

    def results(self) -> dict[str, np.ndarray]:
        return {name: np.concatenate([np.array(backend.to_numpy(kept[name]))
                                      for _, kept in self.chunks if name in kept])
                for name in self.items}


def _item(name: str, kind: str, output, index: int, rows):
    """Value ``index`` of a layer's ``output`` for ``outputs=name``, or a clear error."""
    layer = split_item(name)[0]
    count = len(output) if isinstance(output, (tuple, list)) else 1
    if not isinstance(output, (tuple, list)) or index >= count:
        values = (f"returns {count} values ({layer}[0] to {layer}[{count - 1}])" if count > 1
                  else f"returns one value (read it as {layer})")
        raise UserError(f"outputs={name}: {layer} ({kind}) {values}, so it has no value "
                        f"{index}.")
    value = output[index]
    if isinstance(value, (tuple, list)):  # an LSTM's final states (h, c)
        raise UserError(f"outputs={name}: value {index} of {layer} ({kind}) is {len(value)} "
                        "values (an LSTM's final states (h, c)), not one array, and NAME[i] "
                        f"reads one [i] deep: read {layer} (its first value).")
    data = getattr(value, "data", value)
    if rows is not None and (not getattr(data, "ndim", 0) or data.shape[0] != rows):
        raise UserError(f"outputs={name}: value {index} of {layer} ({kind}) has the shape "
                        f"{list(getattr(data, 'shape', ()))} for {rows} samples, not one row per "
                        "sample (a GRU's or LSTM's final states are [layers, batch, hidden]), "
                        "so its chunks cannot be joined: read a batch-first value.")
    return data


def load_input(options: dict, description: dict) -> tuple[np.ndarray, np.ndarray | None]:
    """(samples shaped like the model's input, labels or None)."""
    source = options["input"]
    if options.get("unknown_category") and not (description.get("preprocessing") or {}).get(
            "kind") == tabular.KIND:
        raise UserError(f"unknown_category={options['unknown_category']}: only a run trained "
                        "with data=csv has categories; leave the key out for this run.")
    if source in SPLITS:
        return _split(source, description, options)
    table_model = (description.get("preprocessing") or {}).get("kind") == tabular.KIND
    npy = source.lower().endswith(".npy")
    # A data=csv model reads any file but a .npy as its table: training took any name
    # (data.train=table.tsv with data.delimiter set), and .CSV is a CSV too.
    if source.lower().endswith(".csv") or (table_model and not npy and os.path.isfile(source)):
        return _csv(source, description, options.get("unknown_category"))
    if not npy or not os.path.isfile(source):
        table = ", nor a table file that exists (data=csv)" if table_model else ""
        raise UserError(f"input={source} is neither a .npy file that exists nor a split "
                        f"({', '.join(SPLITS)}){table}.")
    samples = _npy("input", source)
    shape = tuple(description["input_shape"])
    if description.get("variable_length"):
        return _sequences(source, samples, shape), _labels(options.get("labels"), len(samples))
    if samples.ndim < 1 or samples[0].size != math.prod(shape):
        raise UserError(f"input={source} holds samples of shape {list(samples.shape[1:])}, but "
                        f"the model takes {list(shape)} ({math.prod(shape)} values) per sample.")
    labels = _labels(options.get("labels"), len(samples))
    return samples.reshape(len(samples), *shape), labels


def _sequences(source: str, samples: np.ndarray, step: tuple) -> tuple:
    """A .npy of [N, T, *step] for a variable-length model: N sequences of T steps each, run
    as (padded, lengths) with every length T (padded sequences of other lengths: a split)."""
    if samples.ndim != 2 + len(step) or tuple(samples.shape[2:]) != step:
        raise UserError(f"input={source} holds an array of shape {list(samples.shape)}, but the "
                        f"model reads sequences of steps of shape {list(step)}: give "
                        f"[N, T, {', '.join(map(str, step))}] (N sequences of T steps).")
    return samples, np.full(len(samples), samples.shape[1], dtype=np.int64)


def _npy(key: str, path: str) -> np.ndarray:
    """The array in the .npy file that ``key=path`` names."""
    if not os.path.isfile(path):
        raise UserError(f"{key}={path} does not exist: give the path of a .npy file.")
    try:
        return np.load(path, allow_pickle=False)
    except (OSError, ValueError) as exc:  # not a .npy, or one holding Python objects
        raise UserError(f"{key}={path} is not a .npy file of numbers that numpy can read "
                        f"({exc}).") from None


def _labels(path: str | None, count: int) -> np.ndarray | None:
    """The labels of ``labels=path``: one integer per sample (shape [count] or [count, 1])."""
    if not path:
        return None
    labels = _npy("labels", path)
    if labels.ndim == 0 or labels.size != count or len(labels) != count:
        raise UserError(f"labels={path} holds an array of shape {list(labels.shape)}, but the "
                        f"input has {count} samples: give one integer label per sample, shape "
                        f"[{count}].")
    if labels.dtype.kind not in "iub" and not np.array_equal(labels, np.round(labels)):
        raise UserError(f"labels={path} holds {labels.dtype} values that are not whole "
                        "numbers: give integer class ids.")
    return labels.reshape(count).astype(np.int64)


def _csv(source: str, description: dict, unknown_category: str | None):
    """A raw CSV prepared by the transform the run learnt on its training rows (data=csv)."""
    saved = description.get("preprocessing")
    if not saved or saved.get("kind") != tabular.KIND:
        raise UserError(f"input={source}: this model was not trained on data=csv, so it has no "
                        "saved CSV preprocessing: pass a .npy file of prepared samples.")
    transform = tabular.TabularTransform.from_dict(saved)
    transform.unknown_category = unknown_category or transform.unknown_category
    try:
        table = tabular.read_table(source, transform.delimiter)
        samples = transform.features(table)
        labels = transform.labels(table) if transform.label in table.header else None
    except ValueError as exc:  # DatasetError: the file, line and column
        raise UserError(f"input={source}: {own_keys(str(exc))}") from None
    return samples, labels


def own_keys(message: str) -> str:
    """``message`` with the training keys it names (``data.root``) as this command's
    (``root=``): infer refuses ``data.`` keys, so advice must name the keys it takes."""
    for data_key, key in OWN_KEYS.items():
        message = message.replace(f"{data_key}=", f"{key}=").replace(data_key,
                                                                     f"the {key}= key")
    return message


def _split(split: str, description: dict, options: dict):
    data = description["data"]
    # The run's own split: the same files, keys and split seed as in training (runner.app).
    if data["name"] in RECORDED:
        cfg = _files_config(split, data, options)
    elif plugins.get("dataset", data["name"]) is not None:  # a plugin's data, with its keys
        cfg = schema.PluginDataConfig(name=data["name"], options=data.get("options", {}))
    else:
        cfg = schema.DataConfig(name=data["name"], normalize=data["normalize"],
                                root=options.get("root", ""),
                                valid_size=data.get("valid_size", 0.1))
    try:
        sets = build.build_data(cfg, seed=build.SPLIT_SEED)
    except UserError as exc:  # ConfigError too: a missing folder, a file that moved
        raise UserError(f"input={split}: {own_keys(str(exc))}") from None
    if split == "valid" and sets.valid is None:
        why = ("no valid_files" if isinstance(cfg, schema.FilesConfig)
               else f"valid_size {getattr(cfg, 'valid_size', 0):g}")
        raise UserError(f"input=valid: the run's data has no validation split ({why}): use "
                        "input=test or input=train.")
    return _whole({"train": sets.train, "valid": sets.valid, "test": sets.test}[split])


def _whole(dataset):
    """(samples, labels) of a whole split; a sequence set's samples are ``(padded, lengths)``
    padded to its longest sequence (each row's state stops at its length, so the outputs are
    those of training's batches)."""
    arrays = getattr(dataset, "arrays", None)
    if arrays is not None:
        return np.asarray(arrays[0]), np.asarray(arrays[1])
    if hasattr(dataset, "read_shard"):  # data=files: a stream over the files, not indexable
        samples = [s for shard in range(len(dataset.shards)) for s in dataset.read_shard(shard)]
    else:
        samples = [dataset[i] for i in range(len(dataset))]
    if isinstance(dataset, cdata.SequenceDataset):
        padded, lengths, labels = dataset.collate(samples)
        return (padded, lengths), labels
    return np.stack([s[0] for s in samples]), np.asarray([s[-1] for s in samples])


def _files_config(split: str, data: dict, options: dict):
    """The data config the run trained on, from its files (under ``root=`` when given: they
    may have moved since)."""
    files = data.get("files")
    if files is None:
        raise UserError(f"input={split}: this model's bundle does not record the files and "
                        f"keys of its data={data['name']} (it was logged by an older tomlrun), "
                        "so its splits cannot be rebuilt: pass the samples themselves (a .npy "
                        "file, or for data=csv the .csv file).")
    files = dict(files, root=options.get("root") or files["root"])
    if options.get("unknown_category"):
        files["unknown_category"] = options["unknown_category"]
    try:
        return validation.group_option("data", files)
    except ConfigError as exc:
        raise ConfigError(f"input={split}: the run's data={data['name']} cannot be rebuilt by "
                          f"this tomlrun: {exc}") from None


def check_values(options: dict) -> dict:
    """``options`` with batch_size an int; a bad value or an ``out=`` that cannot be written
    is refused before the model is loaded and run."""
    text = options.get("batch_size", "256")
    try:
        batch_size = int(text)
    except ValueError:
        batch_size = 0
    if batch_size < 1:
        raise UserError(f"batch_size={text} is not allowed: use an integer >= 1 (samples per "
                        "forward pass; default 256).")
    if options.get("uri"):
        tracking.check_uri(options["uri"], "uri")
    category = options.get("unknown_category")
    if category is not None and category not in UNKNOWN_CATEGORY:
        raise UserError(f"unknown_category={category} is not allowed: use "
                        f"{' or '.join(UNKNOWN_CATEGORY)}.")
    out = options.get("out") or "inference.npz"
    folder = os.path.dirname(os.path.abspath(out))
    # Writes are atomic (a temporary file renamed in the folder), and a typo in a folder name
    # should not leave results somewhere new: the folder must exist, as for every output.
    if not os.path.isdir(folder):
        raise UserError(f"out={out}: the folder {folder} does not exist: create it first, or "
                        "give a path in an existing folder (default inference.npz, here).")
    if os.path.isdir(out):
        raise UserError(f"out={out} is a folder: give the path of the .npz file to write.")
    if not out.lower().endswith(".npz"):  # out=preds.csv held a zip archive, and said so
        raise UserError(f"out={out}: the outputs are written as a numpy .npz archive (one "
                        "array per output, with predicted and labels; numpy.load reads it), "
                        "not in the format the extension names: give a name ending in .npz.")
    return dict(options, batch_size=batch_size, out=out)


def main(argv: list[str] | None = None) -> dict:
    """Run the command; returns the arrays written (for tests)."""
    options = check_values(parse(sys.argv[1:] if argv is None else argv))
    model, description = _load_model(options)
    wanted = names(options.get("outputs", "")) or [OUTPUT]
    check_layers(model, wanted)
    samples, labels = load_input(options, description)
    items = _Items(model, wanted)
    plain = [name for name in wanted if name not in items.items]
    try:
        with items:
            results = Inference(model, output_layer=plain + items.layer_names() + [OUTPUT]).infer(
                samples, batch_size=options["batch_size"])
    except ValueError as exc:
        raise UserError(str(exc)) from None
    results.update(items.results())
    arrays = {name: results[name] for name in wanted}
    count = len(samples[0]) if isinstance(samples, tuple) else len(samples)
    summary = [f"{count} samples; outputs: " + ", ".join(
        f"{name} {list(array.shape)}" for name, array in arrays.items())]
    logits = results[OUTPUT]
    if logits.ndim == 2 and logits.shape[1] == description.get("num_classes"):
        predicted = logits.argmax(axis=1)
        arrays["predicted"] = predicted
        counts = np.bincount(predicted, minlength=logits.shape[1])
        summary.append(_counts_line(counts, description.get("preprocessing", {}).get(
            "classes") or []))
        if labels is not None:
            arrays["labels"] = labels
            summary.append(f"accuracy {float((predicted == labels.reshape(-1)).mean()):.4f} "
                           f"on {len(labels)} labelled samples")
    out = options["out"]
    with atomic_write(out, "wb") as handle:
        np.savez(handle, **arrays)
    summary.append(f"wrote {out}")
    print("\n".join(summary))
    return arrays


def _load_model(options: dict):
    """``bundle.load_model`` of ``run=``; a model folder with a file missing or damaged (an
    artifact deleted by hand, a copy cut short) is a UserError naming the run, not a traceback."""
    run = options["run"]
    try:
        return bundle.load_model(run, options.get("uri") or None)
    except (OSError, tomllib.TOMLDecodeError, KeyError) as exc:
        detail = f"{type(exc).__name__}: {exc}" if isinstance(exc, KeyError) else str(exc)
        raise UserError(f"run={run}: its model cannot be loaded: the bundle's "
                        f"{bundle.MODEL_FILE} or {bundle.WEIGHTS_FILE} (model/data/{bundle.FOLDER}"
                        f" in the 'model' artifact) is missing or damaged ({detail}). Use another "
                        "run, or one of its checkpoints (run=<output folder>/checkpoints).") \
            from None


def _counts_line(counts: np.ndarray, classes: list[str]) -> str:
    """The predicted label counts, by class name where the run has them; of many classes (a
    word2vec vocabulary) only the most predicted, which a line can show."""
    shown = range(len(counts))
    head = "predicted label counts: "
    if len(counts) > MAX_COUNTS:
        shown = np.argsort(-counts, kind="stable")[:MAX_COUNTS]
        head = f"predicted label counts (the {MAX_COUNTS} most predicted of {len(counts)}): "
    return head + " ".join(f"{classes[label] if label < len(classes) else label}:"
                           f"{counts[label]}" for label in shown)


def cli(argv: list[str] | None = None) -> int:
    """The command line: this module's help for -h/--help, else ``main``; 0 on success, 2
    (one paragraph on stderr) on a user mistake."""
    args = sys.argv[1:] if argv is None else argv
    if any(arg in ("-h", "--help") for arg in args):
        print(__doc__)
        return 0
    try:
        main(args)
    except (UserError, ValueError) as exc:
        print(f"tomlrun infer: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(closed_stdout_is_quiet(cli))
