"""The inference bundle: what rebuilds a trained model without its training config.

A finished run logs the folder ``inference/`` to MLflow: ``model.toml`` (the model config, the
input shape, the number of classes and how the data was scaled) and ``model.pdparams`` (the
weights and buffers). ``load_model`` rebuilds the model from such a folder, from a training
checkpoint (every checkpoint carries the same description), or from an MLflow run id.
"""
from __future__ import annotations

import os

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from core import serialize
from runner import build, plugins
from runner.config import schema, tomlwrite, validation
from runner.errors import ConfigError, UserError
from runner.track import tracking
from runner.train import checkpoint

FOLDER = "inference"
MODEL_FILE = "model.toml"
WEIGHTS_FILE = "model.pdparams"


def describe(cfg, input_shape, num_classes: int, vocab_size: int = 0,
             variable_length: bool = False, preprocessing: dict | None = None) -> dict:
    """The model's description: enough to rebuild it and to prepare inputs like training's
    (``preprocessing``: the transform learnt on the training data, e.g. data=csv's)."""
    description = {"model": schema.to_table(cfg.model),
                   "input_shape": [int(n) for n in input_shape],
                   "num_classes": int(num_classes), "vocab_size": int(vocab_size),
                   "variable_length": bool(variable_length),
                   "data": {"name": cfg.data.name, "normalize": cfg.data.normalize,
                            "valid_size": cfg.data.valid_size},
                   "plugins": plugin_modules(cfg)}
    if preprocessing:  # TOML has no null: the entry is there only when data learnt one
        description["preprocessing"] = preprocessing
    return description


def plugin_modules(cfg) -> list[str]:
    """The plugin modules a model needs to be rebuilt: the config's own, a plugin model's
    builder module, and the modules of plugin layer types a spec uses."""
    modules = set(getattr(cfg, "plugins", []))
    model = cfg.model
    if isinstance(model, schema.PluginModelConfig):
        modules.add(plugins.get("model", model.name).__module__)
    if isinstance(model, schema.SpecConfig):
        used = {table.get("type") for tables in (model.layers, *model.blocks.values())
                for table in tables.values() if isinstance(table, dict)}
        for name in used & set(plugins.REGISTRIES["layer"].names()):
            modules.add(plugins.get("layer", name).__module__)
    return sorted(modules)


def save_bundle(description: dict, model, folder) -> str:
    """Write ``model.toml`` and ``model.pdparams`` into ``folder/inference``; returns it."""
    target = os.path.join(os.fspath(folder), FOLDER)
    os.makedirs(target, exist_ok=True)
    tomlwrite.dump(description, os.path.join(target, MODEL_FILE))
    serialize.save(model.state_dict(), os.path.join(target, WEIGHTS_FILE))
    return target


def log_bundle(cfg, parts, tracker, folder) -> None:
    """Save the bundle of a finished run beside its outputs and log it as ``inference/``."""
    description = describe(cfg, parts.input_shape, parts.num_classes, parts.vocab_size,
                           parts.variable_length, getattr(parts, "preprocessing", None))
    target = save_bundle(description, parts.model, folder)
    for name in (MODEL_FILE, WEIGHTS_FILE):
        tracker.log_artifact(os.path.join(target, name), FOLDER)


def build_from(description: dict):
    """A fresh model as ``description`` says (weights initialised, not loaded)."""
    plugins.load(description.get("plugins", []))  # a plugin model or layer must be imported
    table = {key: value for key, value in description["model"].items() if key != "freeze"}
    try:
        model_cfg = validation.group_option("model", table)
    except ConfigError as exc:
        raise ConfigError(f"the bundle's model cannot be rebuilt by this tomlrun: {exc} (was it "
                          "trained with another version, or with a plugin that is not "
                          "installed?)") from None
    return build.build_model(model_cfg, tuple(description["input_shape"]),
                             int(description["num_classes"]),
                             int(description.get("vocab_size", 0)),
                             bool(description.get("variable_length", False)))


def load_model(source: str, tracking_uri: str | None = None):
    """``(model, description)`` from a bundle folder, a ``model.toml``, a checkpoint file or
    folder, or an MLflow run id (its logged ``inference/`` bundle)."""
    if os.path.isdir(source) and os.path.isfile(os.path.join(source, MODEL_FILE)):
        return _from_bundle(source)
    if os.path.isdir(os.path.join(source, FOLDER)):
        return _from_bundle(os.path.join(source, FOLDER))
    if os.path.basename(source) == MODEL_FILE:
        return _from_bundle(os.path.dirname(source) or ".")
    if os.path.isdir(source):
        latest = checkpoint.latest(source)
        if latest is None:
            raise UserError(f"run={source} is a folder without an inference bundle "
                            f"({MODEL_FILE}) or checkpoints (ckpt-step*.ckpt).")
        source = latest
    if os.path.isfile(source):
        return _from_checkpoint(source)
    return _from_run(source, tracking_uri)


def _from_bundle(folder: str):
    with open(os.path.join(folder, MODEL_FILE), "rb") as handle:
        description = tomllib.load(handle)
    model = build_from(description)
    model.set_state_dict(serialize.load(os.path.join(folder, WEIGHTS_FILE)))
    return model, description


def _from_checkpoint(path: str):
    body = checkpoint.load(path)
    description = body.get("bundle")
    if not description:
        raise UserError(f"checkpoint '{path}' does not describe its model (it predates "
                        "inference bundles): use the run's inference/ folder instead.")
    model = build_from(description)
    model.set_state_dict(body["model"])
    return model, description


def _from_run(run_id: str, tracking_uri: str | None):
    from mlflow.exceptions import MlflowException  # noqa: PLC0415 - slow import, only here
    from mlflow.tracking import MlflowClient  # noqa: PLC0415

    uri = tracking_uri or "sqlite:///" + os.path.abspath("mlflow.db")
    if uri.startswith("sqlite:///") and not os.path.isfile(uri[len("sqlite:///"):]):
        # Asking MLflow would create an empty store: say what is missing instead.
        raise UserError(f"run={run_id} is neither a file or folder nor findable: there is no "
                        f"MLflow store at {uri}; pass uri=<tracking uri> of the run's store.")
    tracking.quiet_mlflow()
    os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")  # a clean summary
    client = MlflowClient(tracking_uri=uri)
    try:
        client.get_run(run_id)
        local = client.download_artifacts(run_id, FOLDER)
    except MlflowException as exc:
        raise UserError(f"run={run_id} is neither a file or folder nor a run with an "
                        f"'{FOLDER}' bundle in {uri} ({exc.message.splitlines()[0]}); pass "
                        "uri=<tracking uri> if the run lives in another store.") from None
    return _from_bundle(local)
