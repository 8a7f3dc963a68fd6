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
output). The folder is written
with ``mlflow.pyfunc.save_model`` and explicit pip requirements (no dependency inference, no
model load to validate it): ~0.2 s. mlflow is imported inside the functions that need it.
"""
from __future__ import annotations

import logging
import os
import shutil
import tempfile

import numpy as np

from core.inference import SOFTMAX, Inference
from runner.errors import UserError

log = logging.getLogger(__name__)

ARTIFACT_PATH = "model"  # the run's artifact path, and the folder in the run's outputs
LOADER_MODULE = "runner.track.bundle"  # its _load_pyfunc(data_path) is what MLflow calls
EXAMPLE_ROWS = 5  # test samples kept as the input example (and to infer the signature)
BATCH_SIZE = 256


class TomlrunModel:
    """What ``mlflow.pyfunc.load_model`` wraps: a tomlrun model and its description."""

    def __init__(self, model, description: dict):
        self.model, self.description = model, description

    def predict(self, data, params: dict | None = None):
        """Probabilities for ``data`` ([N, *input_shape]); with ``params={"outputs": [...]}``
        of several names, a dict of those outputs."""
        wanted = list((params or {}).get("outputs") or [SOFTMAX])
        if isinstance(wanted, str):
            wanted = [wanted]
        samples = _as_samples(data, self.description)
        try:
            results = Inference(self.model, output_layer=wanted).infer(
                samples, batch_size=BATCH_SIZE)
        except ValueError as exc:  # unknown layer names
            raise UserError(str(exc)) from None
        if len(wanted) == 1:  # one output (the default: probabilities) is an array
            return results[wanted[0]]
        return {name: results[name] for name in wanted}


def _as_samples(data, description: dict) -> np.ndarray:
    """A DataFrame, list or array of samples, shaped as the model's input."""
    if hasattr(data, "to_numpy"):  # a pandas DataFrame (mlflow's serving of split JSON)
        data = data.to_numpy()
    if isinstance(data, dict):  # {"input": array} from a named-tensor request
        data = next(iter(data.values()))
    shape = tuple(description["input_shape"])
    integer = bool(description.get("vocab_size"))
    samples = np.asarray(data, dtype=np.int64 if integer else np.float32)
    if description.get("variable_length"):
        return samples
    return samples.reshape(len(samples), *shape)


def example_batch(dataset, rows: int = EXAMPLE_ROWS) -> np.ndarray | None:
    """The first ``rows`` samples of ``dataset`` as one array (None when they do not stack).
    Sequences of several lengths are cut to the shortest of them: equal-length sequences are
    what the model takes as one array."""
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
        signature = infer_signature(_as_samples(example, description), probabilities,
                                    params={"outputs": [SOFTMAX]})
        if description.get("variable_length"):
            signature = _any_length(signature)
        example = _as_samples(example, description)
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

