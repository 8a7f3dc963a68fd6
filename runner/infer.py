"""``python -m runner.infer run=<run id | path> input=<file.npy | split> outputs=[fc,softmax]``

Rebuilds a trained model from its logged MLflow model (no training config needed), runs it on the
input and writes every requested output to an ``.npz`` file, then prints a summary.

Keys (``key=value``, in any order):
  run=      an MLflow run id (its logged ``model`` artifact), ``runs:/<id>/model``,
            ``models:/<name>/<version>`` or ``models:/<name>@<alias>`` (the model registry), a
            run's output folder or its ``model/`` folder, or a training checkpoint file or folder
  input=    a ``.npy`` file of samples prepared as in training (e.g. pixels in [0, 1] when the
            data was normalized), shaped [N, *input_shape] or [N, features]; or a split of the
            run's dataset: ``train``, ``valid`` or ``test``, split as in training (labels come
            with it; data=arrays and data=csv read the run's own files again); or, for a
            run trained with ``data=csv``, a raw ``.csv`` file with the training header, which
            the saved preprocessing prepares (its label column, when present, gives labels)
  outputs=  layer names (``[conv2,fc]``; a spec's block entry or copy, ``hidden`` or
            ``hidden.0``, is its output layer's output), plus ``output`` (the model's output)
            and ``softmax`` (its softmax); default ``[output]``
  labels=   optional ``.npy`` of integer labels for a ``.npy`` input (accuracy is printed)
  out=      the ``.npz`` to write (default ``inference.npz``)
  uri=      the MLflow tracking URI holding the run (default ``sqlite:///./mlflow.db``)
  root=     the folder of the IDX files, for an mnist / fashion_mnist split; for data=arrays
            or data=csv, the folder the run's files are in now (default: where they were)
  batch_size=  samples per forward pass (default 256)

For a classifier the ``.npz`` also holds ``predicted`` (argmax of the model's output) and, with
labels, ``labels``; the summary prints the predicted label counts and the accuracy.
"""
from __future__ import annotations

import math
import os
import sys

import numpy as np

from core.atomic import atomic_write
from core.inference import OUTPUT, Inference
from runner import build, plugins
from runner.build import array_data, tabular
from runner.config import schema, validation
from runner.errors import ConfigError, UserError
from runner.track import bundle

KEYS = ("run", "input", "outputs", "labels", "out", "uri", "root", "batch_size")
SPLITS = ("train", "valid", "test")


def parse(argv: list[str]) -> dict[str, str]:
    """``key=value`` words to a dict; unknown keys and words without ``=`` are refused."""
    options: dict[str, str] = {}
    for word in argv:
        key, sep, value = word.partition("=")
        if not sep or key not in KEYS:
            raise UserError(f"'{word}' is not a key=value argument this command knows: the keys "
                            f"are {', '.join(KEYS)} (run and input are required).")
        options[key] = value
    missing = [k for k in ("run", "input") if not options.get(k)]
    if missing:
        raise UserError(f"missing {' and '.join(missing)}=...: usage: python -m runner.infer "
                        "run=<run id or path> input=<file.npy or split> [outputs=[fc,softmax]]")
    return options


def names(text: str) -> list[str]:
    """``[fc,softmax]`` or ``fc,softmax`` -> ``["fc", "softmax"]``."""
    items = [part.strip().strip("'\"") for part in text.strip().strip("[]").split(",")]
    return [item for item in items if item]


def load_input(options: dict, description: dict) -> tuple[np.ndarray, np.ndarray | None]:
    """(samples shaped like the model's input, labels or None)."""
    source = options["input"]
    if source in SPLITS:
        return _split(source, description, options.get("root", ""))
    if source.endswith(".csv"):
        return _csv(source, description)
    if not source.endswith(".npy") or not os.path.isfile(source):
        raise UserError(f"input={source} is neither a .npy file that exists nor a split "
                        f"({', '.join(SPLITS)}).")
    samples = np.load(source, allow_pickle=False)
    labels = np.load(options["labels"], allow_pickle=False) if options.get("labels") else None
    shape = tuple(description["input_shape"])
    if samples.ndim < 1 or samples[0].size != math.prod(shape):
        raise UserError(f"input={source} holds samples of shape {list(samples.shape[1:])}, but "
                        f"the model takes {list(shape)} ({math.prod(shape)} values) per sample.")
    if labels is not None and len(labels) != len(samples):
        raise UserError(f"labels={options['labels']} has {len(labels)} labels for "
                        f"{len(samples)} samples.")
    return samples.reshape(len(samples), *shape), labels


def _csv(source: str, description: dict):
    """A raw CSV prepared by the transform the run learnt on its training rows (data=csv)."""
    saved = description.get("preprocessing")
    if not saved or saved.get("kind") != tabular.KIND:
        raise UserError(f"input={source}: this model was not trained on data=csv, so it has no "
                        "saved CSV preprocessing: pass a .npy file of prepared samples.")
    transform = tabular.TabularTransform.from_dict(saved)
    try:
        table = tabular.read_table(source, transform.delimiter)
        samples = transform.features(table)
        labels = transform.labels(table) if transform.label in table.header else None
    except ValueError as exc:  # DatasetError: the file, line and column
        raise UserError(f"input={source}: {exc}") from None
    return samples, labels


def _split(split: str, description: dict, root: str):
    data = description["data"]
    # The run's own split: the same files, sizes and split seed as in training (runner.app).
    if data["name"] in array_data.DATASETS:
        cfg = _files_config(split, data, root)
    elif plugins.get("dataset", data["name"]) is not None:  # a plugin's data, with its keys
        cfg = schema.PluginDataConfig(name=data["name"], options=data.get("options", {}))
    else:
        cfg = schema.DataConfig(name=data["name"], normalize=data["normalize"], root=root,
                                valid_size=data.get("valid_size", 0.1))
    sets = build.build_data(cfg, seed=build.SPLIT_SEED)
    if split == "valid" and sets.valid is None:
        raise UserError("input=valid: the run's data has no validation split (valid_size 0).")
    dataset = {"train": sets.train, "valid": sets.valid, "test": sets.test}[split]
    arrays = getattr(dataset, "arrays", None)
    if arrays is None:
        samples = [dataset[i] for i in range(len(dataset))]
        arrays = (np.stack([s[0] for s in samples]), np.asarray([s[1] for s in samples]))
    return np.asarray(arrays[0]), np.asarray(arrays[1])


def _files_config(split: str, data: dict, root: str):
    """The data=arrays / data=csv config the run trained on (its files under ``root`` when
    given: they may have moved since)."""
    files = data.get("files")
    if files is None:
        raise UserError(f"input={split}: this model's bundle does not record the files of its "
                        f"data={data['name']} (it was logged by an older tomlrun): pass the "
                        "file itself (input=file.csv, or a .npy of samples).")
    files = dict(files, root=root or files["root"])
    try:
        return validation.group_option("data", files)
    except ConfigError as exc:
        raise ConfigError(f"input={split}: the run's data={data['name']} cannot be rebuilt by "
                          f"this tomlrun: {exc}") from None


def main(argv: list[str] | None = None) -> dict:
    """Run the command; returns the arrays written (for tests)."""
    options = parse(sys.argv[1:] if argv is None else argv)
    model, description = bundle.load_model(options["run"], options.get("uri") or None)
    samples, labels = load_input(options, description)
    wanted = names(options.get("outputs", "")) or [OUTPUT]
    try:
        batch_size = int(options.get("batch_size", 256))
        results = Inference(model, output_layer=wanted + [OUTPUT]).infer(
            samples, batch_size=batch_size)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    arrays = {name: results[name] for name in wanted}
    summary = [f"{len(samples)} samples; outputs: " + ", ".join(
        f"{name} {list(array.shape)}" for name, array in arrays.items())]
    logits = results[OUTPUT]
    if logits.ndim == 2 and logits.shape[1] == description.get("num_classes"):
        predicted = logits.argmax(axis=1)
        arrays["predicted"] = predicted
        counts = np.bincount(predicted, minlength=logits.shape[1])
        classes = description.get("preprocessing", {}).get("classes") or []
        summary.append("predicted label counts: " + " ".join(
            f"{classes[label] if label < len(classes) else label}:{count}"
            for label, count in enumerate(counts)))
        if labels is not None:
            arrays["labels"] = labels
            summary.append(f"accuracy {float((predicted == labels.reshape(-1)).mean()):.4f} "
                           f"on {len(labels)} labelled samples")
    out = options.get("out") or "inference.npz"
    with atomic_write(out, "wb") as handle:
        np.savez(handle, **arrays)
    summary.append(f"wrote {out}")
    print("\n".join(summary))
    return arrays


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
    sys.exit(cli())
