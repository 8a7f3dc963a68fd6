"""The run's model as an MLflow model: the ``python_function`` flavor through a loader module.

A finished run writes ``<output folder>/model/`` and logs it as the run's ``model`` artifact::

    model/MLmodel                  flavor python_function, loader_module runner.track.bundle,
                                   the signature (inferred from real test samples)
    model/data/inference/model.toml      the description (runner.track.bundle.describe)
    model/data/inference/model.pdparams  the weights (npz via core.serialize: no pickle)
    model/input_example.json, serving_input_example.json
    model/requirements.txt, python_env.yaml, conda.yaml   tomlrun==<version> (+ mlflow)

``mlflow.pyfunc.load_model(uri).predict(batch)`` returns class probabilities (the softmax of
the model's output); ``predict(batch, params={"outputs": ["fc", "softmax"]})`` returns a dict of
the named layers' outputs instead (one name: that output's array; ``output`` is the model's raw
output). A ``data=csv`` model takes the raw table instead, a DataFrame with the training file's
columns (the signature names them), and prepares it with the preprocessing learnt in training.
An input that passes MLflow's check of the signature but that the model cannot take (an unknown
output name, a category training never saw, a value that is not a number) raises ``BadInput``:
a ``UserError`` that is also MLflow's INVALID_PARAMETER_VALUE, which ``mlflow models serve``
answers with status 400 and the message (any other exception is "an unexpected error" and a
stack trace there). The folder is written
with ``mlflow.pyfunc.save_model`` and explicit pip requirements (no dependency inference, no
model load to validate it): ~0.2 s. mlflow is imported inside the functions that need it.
"""
from __future__ import annotations

import functools
import logging
import math
import os
import shutil
import tempfile

import numpy as np

from core.inference import OUTPUT, SOFTMAX, Inference
from runner.build import tabular
from runner.errors import UserError

log = logging.getLogger(__name__)

ARTIFACT_PATH = "model"  # the run's artifact path, and the folder in the run's outputs
LOADER_MODULE = "runner.track.bundle"  # its _load_pyfunc(data_path) is what MLflow calls
EXAMPLE_ROWS = 5  # test samples kept as the input example (and to infer the signature)
BATCH_SIZE = 256
TABLE = "the input table"  # how a data=csv model's errors name the DataFrame it was given


class TomlrunModel:
    """What ``mlflow.pyfunc.load_model`` wraps: a tomlrun model and its description."""

    def __init__(self, model, description: dict):
        self.model, self.description = model, description

    def predict(self, data, params: dict | None = None):
        """Probabilities for ``data`` ([N, *input_shape]); with ``params={"outputs": [...]}``
        of several names, a dict of those outputs."""
        wanted = (params or {}).get("outputs") or [SOFTMAX]
        wanted = [wanted] if isinstance(wanted, str) else list(wanted)
        self._check_outputs(wanted)
        samples = _as_samples(data, self.description)
        try:
            results = Inference(self.model, output_layer=wanted).infer(
                samples, batch_size=BATCH_SIZE)
        except ValueError as exc:  # unknown layer names
            raise bad_input(str(exc)) from None
        if len(wanted) == 1:  # one output (the default: probabilities) is an array
            return results[wanted[0]]
        return {name: results[name] for name in wanted}

    def _check_outputs(self, wanted: list) -> None:
        """Names in the caller's terms (the ``outputs`` param), before any sample is read:
        core's own error speaks of ``Inference``'s ``output_layer`` argument instead."""
        layers = self.model.output_layers()
        unknown = [n for n in wanted if n not in layers and n not in (OUTPUT, SOFTMAX)]
        if unknown:
            which = "is not a layer" if len(unknown) == 1 else "are not layers"
            raise bad_input(f"params outputs = {wanted} names {', '.join(map(repr, unknown))}, "
                            f"which {which} of this model whose output can be read: use "
                            f"{', '.join(layers)}, or '{OUTPUT}' / '{SOFTMAX}' for the model's "
                            "output (logits) and its probabilities.")


@functools.cache
def _bad_input_type() -> type:
    from mlflow.exceptions import MlflowException  # noqa: PLC0415 - mlflow loads the model

    return type("BadInput", (UserError, MlflowException), {
        "__doc__": "What a caller gave predict cannot be used: a UserError for tomlrun's "
                   "callers, MLflow's INVALID_PARAMETER_VALUE (HTTP 400) for serving."})


def bad_input(message: str) -> UserError:
    """The error for an input or parameter of ``predict`` that the model cannot take."""
    from mlflow.protos.databricks_pb2 import INVALID_PARAMETER_VALUE  # noqa: PLC0415

    return _bad_input_type()(message, error_code=INVALID_PARAMETER_VALUE)


def _as_samples(data, description: dict) -> np.ndarray:
    """A DataFrame, list or array of samples, shaped as the model's input (a data=csv
    model's DataFrame is a raw table: prepared as in training)."""
    saved = description.get("preprocessing") or {}
    if saved.get("kind") == tabular.KIND and hasattr(data, "columns"):
        return _prepared_table(data, saved)
    if hasattr(data, "to_numpy"):  # a pandas DataFrame (mlflow's serving of split JSON)
        data = data.to_numpy()
    if isinstance(data, dict):  # {"input": array} from a named-tensor request
        data = next(iter(data.values()))
    shape = tuple(description["input_shape"])
    integer = bool(description.get("vocab_size"))
    try:
        samples = np.asarray(data, dtype=np.int64 if integer else np.float32)
    except (TypeError, ValueError) as exc:  # text, ragged rows: numpy's own words, named here
        raise bad_input(f"predict takes numbers ({'word ids' if integer else 'floats'}) shaped "
                        f"[N, {', '.join(map(str, shape))}]; the input could not be read as "
                        f"such: {exc}.") from None
    if description.get("variable_length"):
        return samples
    if samples.ndim < 1 or samples[0].size != math.prod(shape):  # as runner.infer says it
        raise bad_input(f"predict was given samples of shape {list(samples.shape[1:])}, but the "
                        f"model takes {list(shape)} ({math.prod(shape)} values) per sample.")
    return samples.reshape(len(samples), *shape)


def _prepared_table(data, saved: dict) -> np.ndarray:
    """A data=csv model's raw rows (a DataFrame holding the training file's feature columns,
    in any order; other columns are ignored) as the model's inputs, prepared by the transform
    learnt on the training rows."""
    transform = tabular.TabularTransform.from_dict(saved)
    header = [str(name) for name in data.columns]
    known = [set(transform.categorical.get(name, ())) for name in header]
    rows = [[_cell(value, cats) for value, cats in zip(row, known)]
            for row in data.itertuples(index=False)]
    table = tabular.Table(TABLE, header, rows, list(range(1, len(rows) + 1)))
    try:
        return transform.features(table)
    except ValueError as exc:  # DatasetError: the row, the column and what was expected
        message = str(exc).replace(f"{TABLE} line ", f"{TABLE}, row ").replace(
            "; set data.unknown_category=zeros to encode", ": a model trained with "
            "data.unknown_category=zeros would encode")
        raise bad_input(message) from None


def _cell(value, categories: set[str]) -> str:
    """A DataFrame cell as the text a CSV file would hold. A whole number in a float column
    (pandas makes an integer column float when one of its cells is missing) is a category by
    its integer text: training read ``2`` from the file, the DataFrame holds ``2.0``."""
    text = str(value)
    if text in categories or not isinstance(value, (float, np.floating)):
        return text
    if np.isfinite(value) and float(value).is_integer() and str(int(value)) in categories:
        return str(int(value))
    return text


def example_table(dataset, saved: dict, rows: int = EXAMPLE_ROWS):
    """The first raw rows of a data=csv split (its ``table``) as a DataFrame of the columns the
    model reads (numbers as float64, categories as strings): the input example, whose columns
    the signature names."""
    import pandas as pd  # noqa: PLC0415 - mlflow's dependency; only when a run ends

    transform, table = tabular.TabularTransform.from_dict(saved), dataset.table
    columns = {}
    for name in transform.columns:
        values = [row[table.header.index(name)] for row in table.rows[:rows]]
        columns[name] = values if name in transform.categorical else np.asarray(values,
                                                                                 np.float64)
    return pd.DataFrame(columns)


def example_batch(dataset, rows: int = EXAMPLE_ROWS, description: dict | None = None):
    """The first ``rows`` samples of ``dataset`` as one array (None when they do not stack).
    Sequences of several lengths are cut to the shortest of them: equal-length sequences are
    what the model takes as one array. A data=csv split gives its raw rows (a DataFrame):
    what the model takes."""
    saved = (description or {}).get("preprocessing") or {}
    if saved.get("kind") == tabular.KIND and getattr(dataset, "table", None) is not None:
        return example_table(dataset, saved, rows)
    sequences = getattr(dataset, "sequences", None)
    if sequences is not None and len(sequences):
        first = [np.asarray(s) for s in sequences[:rows]]
        shortest = min(len(s) for s in first)
        return np.stack([s[:shortest] for s in first])
    try:
        arrays = getattr(dataset, "arrays", None)
        if arrays is not None:
            return np.asarray(arrays[0][:rows])
        count = min(rows, len(dataset))
        return np.stack([np.asarray(dataset[i][0]) for i in range(count)])
    except (TypeError, ValueError, IndexError):
        return None


def save(bundle_folder: str, model, description: dict, example, folder: str) -> str:
    """Write the pyfunc model folder ``folder/model`` (whole or not at all); returns it."""
    import mlflow.pyfunc  # noqa: PLC0415 - slow import, only when a run ends
    from mlflow.models import infer_signature  # noqa: PLC0415

    from runner.track.tracking import quiet_mlflow, tomlrun_version  # noqa: PLC0415

    quiet_mlflow()
    signature = None
    if example is not None:
        probabilities = TomlrunModel(model, description).predict(example)
        if not hasattr(example, "columns"):  # a raw table (data=csv) stays one: its columns
            example = _as_samples(example, description)
        signature = infer_signature(example, probabilities, params={"outputs": [SOFTMAX]})
        if description.get("variable_length"):
            signature = _any_length(signature)
        if hasattr(example, "columns"):
            signature = _any_column_type(signature)
    target = os.path.join(os.fspath(folder), ARTIFACT_PATH)
    scratch = tempfile.mkdtemp(dir=os.fspath(folder), prefix=".model-")
    try:
        staged = os.path.join(scratch, ARTIFACT_PATH)
        mlflow.pyfunc.save_model(staged, loader_module=LOADER_MODULE, data_path=bundle_folder,
                                 signature=signature, input_example=example,
                                 pip_requirements=[f"tomlrun=={tomlrun_version()}"])
        if os.path.isdir(target):  # a resumed run ending again replaces its model
            shutil.rmtree(target)
        os.replace(staged, target)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return target


def _any_length(signature):
    """The signature with the time axis free (-1): the example's sequences have one length,
    the model takes any."""
    from mlflow.types.schema import Schema, TensorSpec  # noqa: PLC0415

    spec = signature.inputs.inputs[0]
    shape = (-1, -1, *spec.shape[2:])
    signature.inputs = Schema([TensorSpec(spec.type, shape, spec.name)])
    return signature


def _any_column_type(signature):
    """The signature with a raw table's columns of any type: MLflow would refuse an integer
    column (``pd.read_csv``'s, or JSON's whole numbers) for a ``double`` one and a number for a
    ``string`` category, where the model's own preparation reads both, with its own errors."""
    from mlflow.types.schema import AnyType, ColSpec, Schema  # noqa: PLC0415

    signature.inputs = Schema([ColSpec(AnyType(), spec.name) for spec in signature.inputs.inputs])
    return signature


def bundle_in(model_folder: str) -> str | None:
    """The bundle folder inside a pyfunc model folder written by ``save`` (None if not one)."""
    mlmodel = os.path.join(model_folder, "MLmodel")
    if not os.path.isfile(mlmodel):
        return None
    import yaml  # noqa: PLC0415 - mlflow's dependency; only to read MLmodel

    with open(mlmodel, encoding="utf-8") as handle:
        flavor = (yaml.safe_load(handle) or {}).get("flavors", {}).get("python_function", {})
    if flavor.get("loader_module") != LOADER_MODULE or not flavor.get("data"):
        raise UserError(f"{model_folder} is an MLflow model, but not one that tomlrun logged "
                        f"(its loader module is {flavor.get('loader_module')!r}, not "
                        f"{LOADER_MODULE!r}): load it with mlflow.pyfunc.load_model instead.")
    return os.path.join(model_folder, flavor["data"])

