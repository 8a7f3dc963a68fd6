"""The inference bundle: what rebuilds a trained model without its training config.

A finished run writes its model as an MLflow ``python_function`` model (``runner.track.pyfunc``)
into ``<output folder>/model/`` and logs it as the run's ``model`` artifact. Inside it,
``data/inference/`` is the bundle: ``model.toml`` (the model config, the input shape, the number
of classes, how the data was scaled, the format and the tomlrun version that wrote it) and
``model.pdparams`` (the weights and buffers, npz). ``load_model`` rebuilds the model from such a
folder, from a training checkpoint (every checkpoint carries the same description), from an
MLflow run id, or from a ``runs:/<id>/model``, ``models:/<name>/<version>`` or
``models:/<name>@<alias>`` URI. Runs logged before the pyfunc model (an ``inference/`` artifact)
still load.
"""
from __future__ import annotations

import os
import re
import shutil
import tempfile

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from core import serialize
from runner import build, plugins
from runner.config import schema, tomlwrite, validation
from runner.errors import ConfigError, UserError
from runner.track import pyfunc, tracking
from runner.train import checkpoint

FOLDER = "inference"  # the bundle's folder (inside the pyfunc model: model/data/inference)
MODEL_FILE = "model.toml"
WEIGHTS_FILE = "model.pdparams"
FORMAT = 1  # the description's format: a tomlrun that reads format N reads every format <= N
MODEL_URI = re.compile(r"^models:/(?P<name>[^/@]+)(?:/(?P<version>\d+)|@(?P<alias>[^/@]+))/?$")
RUNS_URI = re.compile(r"^runs:/(?P<run>[0-9a-f]+)(?:/(?P<path>.*))?$")
# Data read from the user's files, whose whole config the description records (the digits and
# the IDX sets need only name, normalize and valid_size; a plugin's data records its options).
REBUILT_FROM_FILES = (schema.ArraysConfig, schema.CSVConfig, schema.TextConfig,
                      schema.SequenceDataConfig, schema.FilesConfig)


def describe(cfg, input_shape, num_classes: int, vocab_size: int = 0,
             variable_length: bool = False, preprocessing: dict | None = None) -> dict:
    """The model's description: enough to rebuild it and to prepare inputs like training's
    (``preprocessing``: the transform learnt on the training data, e.g. data=csv's)."""
    description = {"format": FORMAT, "tomlrun_version": tracking.tomlrun_version(),
                   "model": schema.to_table(cfg.model),
                   "input_shape": [int(n) for n in input_shape],
                   "num_classes": int(num_classes), "vocab_size": int(vocab_size),
                   "variable_length": bool(variable_length),
                   "data": {"name": cfg.data.name, "normalize": cfg.data.normalize,
                            "valid_size": cfg.data.valid_size},
                   "plugins": plugin_modules(cfg)}
    if isinstance(cfg.data, schema.PluginDataConfig):  # a plugin's data: rebuilt with its keys
        description["data"]["options"] = dict(cfg.data.options)
    if isinstance(cfg.data, REBUILT_FROM_FILES):
        # The user's own files and every key that shaped the splits (dict_size, max_len, ...),
        # so that ``runner.infer input=test`` rebuilds the run's splits; the root made
        # absolute, as training read it from here.
        files = schema.to_table(cfg.data)
        files["root"] = os.path.abspath(cfg.data.root or ".")
        description["data"]["files"] = files
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
    if isinstance(cfg.data, schema.PluginDataConfig):
        modules.add(plugins.get("dataset", cfg.data.name).__module__)
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


def log_bundle(cfg, parts, tracker, folder) -> str:
    """Write the run's pyfunc model (the bundle inside) to ``folder/model`` and log it as the
    run's ``model`` artifact; returns the model folder."""
    description = describe(cfg, parts.input_shape, parts.num_classes, parts.vocab_size,
                           parts.variable_length, getattr(parts, "preprocessing", None))
    example = pyfunc.example_batch(getattr(parts.test, "dataset", parts.test),
                                   description=description)
    scratch = tempfile.mkdtemp(dir=os.fspath(folder), prefix=".bundle-")
    try:
        staged = save_bundle(description, parts.model, scratch)
        target = pyfunc.save(staged, parts.model, description, example, os.fspath(folder))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    tracker.log_artifacts(target, pyfunc.ARTIFACT_PATH)
    return target


def build_from(description: dict):
    """A fresh model as ``description`` says (weights initialised, not loaded)."""
    written = int(description.get("format", 1))
    if written > FORMAT:
        raise UserError(
            f"this model was logged by tomlrun {description.get('tomlrun_version', '?')} in "
            f"bundle format {written}, but this tomlrun ({tracking.tomlrun_version()}) reads "
            f"formats up to {FORMAT}: install tomlrun {description.get('tomlrun_version', '')} "
            "or newer to load it.")
    # A plugin model or layer must be imported; a module found only where the model was
    # trained (a plugins=[my_module] file in that launch folder) is missing where it is loaded.
    plugins.load(description.get("plugins", []),
                 "recorded in the model's bundle: the model was trained with it, so it must be "
                 "importable where the model is loaded")
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
    """``(model, description)`` from a bundle or pyfunc model folder, a run's output folder, a
    ``model.toml``, a checkpoint file or folder, an MLflow run id, or a ``runs:/`` or
    ``models:/`` URI (from the store at ``tracking_uri``, by default ``./mlflow.db``)."""
    if source.startswith(("models:/", "runs:/")):
        return from_bundle(_download(source, tracking_uri))
    if os.path.isdir(source):
        for folder in (source, os.path.join(source, pyfunc.ARTIFACT_PATH)):
            inside = pyfunc.bundle_in(folder)
            if inside is not None:
                return from_bundle(inside)
        for folder in (source, os.path.join(source, FOLDER)):
            if os.path.isfile(os.path.join(folder, MODEL_FILE)):
                return from_bundle(folder)
    if os.path.basename(source) == MODEL_FILE:
        return from_bundle(os.path.dirname(source) or ".")
    if os.path.isdir(source):  # checkpoints: the folder's own, or its run's checkpoints/
        latest = checkpoint.latest(source) or checkpoint.latest(os.path.join(source,
                                                                             "checkpoints"))
        if latest is None:
            raise UserError(f"run={source} is a folder without a model (MLmodel, "
                            f"{MODEL_FILE}) or checkpoints (ckpt-step*.ckpt).")
        source = latest
    if os.path.isfile(source):
        return _from_checkpoint(source)
    return from_bundle(_download(source, tracking_uri))


def from_bundle(folder: str):
    """``(model, description)`` from a bundle folder or a pyfunc model folder."""
    inside = pyfunc.bundle_in(folder)
    if inside is not None:
        folder = inside
    with open(os.path.join(folder, MODEL_FILE), "rb") as handle:
        description = tomllib.load(handle)
    model = build_from(description)
    model.set_state_dict(serialize.load(os.path.join(folder, WEIGHTS_FILE), return_numpy=True),
                         strict=True)
    return model, description


def _load_pyfunc(data_path: str, model_config=None) -> pyfunc.TomlrunModel:
    """MLflow's entry point (the pyfunc model's ``loader_module``): the bundle folder."""
    del model_config
    return pyfunc.TomlrunModel(*from_bundle(data_path))


def _from_checkpoint(path: str):
    body = checkpoint.load(path)
    description = body.get("bundle")
    if not description:
        raise UserError(f"checkpoint '{path}' does not describe its model (it predates "
                        "inference bundles): use the run's model/ folder instead.")
    model = build_from(description)
    model.set_state_dict(body["model"], strict=True)
    return model, description


def _download(source: str, tracking_uri: str | None) -> str:
    """The local folder of a run id's model, or of a ``runs:/`` or ``models:/`` URI."""
    from mlflow.exceptions import MlflowException  # noqa: PLC0415 - slow import, only here

    uri = tracking_uri or tracking.default_uri(".")
    if uri.startswith("sqlite:///") and not os.path.isfile(uri[len("sqlite:///"):]):
        # Asking MLflow would create an empty store: say what is missing instead.
        raise UserError(f"run={source} is neither a file or folder nor findable: there is no "
                        f"MLflow store at {uri}; pass uri=<tracking uri> of the run's store.")
    client = tracking.open_client(uri)
    os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")  # a clean summary
    try:
        if source.startswith("models:/"):
            return _download_registered(client, source, uri)
        found = RUNS_URI.match(source)
        if source.startswith("runs:/") and not found:
            raise UserError(f"run={source} is not a runs:/ URI: write runs:/<run id>/model.")
        run_id, path = (found["run"], found["path"] or pyfunc.ARTIFACT_PATH) if found else \
            (source, pyfunc.ARTIFACT_PATH)
        run = client.get_run(run_id)
        names = {item.path for item in client.list_artifacts(run_id)}
        if path == pyfunc.ARTIFACT_PATH and path not in names and FOLDER in names:
            path = FOLDER  # a run logged before the pyfunc model
        if path.split("/")[0] not in names:
            _no_model(run, source)
        return client.download_artifacts(run_id, path)
    except MlflowException as exc:
        raise UserError(f"run={source} is neither a file or folder nor a run with a "
                        f"'{pyfunc.ARTIFACT_PATH}' artifact in {uri} "
                        f"({exc.message.splitlines()[0]}); pass uri=<tracking uri> if the run "
                        "lives in another store.") from None


def _no_model(run, source: str) -> None:
    """A run without its model: one stopped before logging it, or logged without checkpoints;
    say where its weights are, if anywhere."""
    folder = run.data.tags.get(checkpoint.CHECKPOINT_TAG)
    status = run.info.status
    if folder and checkpoint.latest(folder):
        finish = ("resume it with trainer.resume=true to finish it (its test and model), or read"
                  if status != "FINISHED" else "read")
        raise UserError(f"run={source} ({status}) has no '{pyfunc.ARTIFACT_PATH}' artifact: it "
                        f"stopped before logging it; {finish} its checkpoints with "
                        f"run={folder}.")
    raise UserError(f"run={source} ({status}) has no '{pyfunc.ARTIFACT_PATH}' artifact and no "
                    "checkpoints: it logs one only when it ends with trainer.checkpoint=true.")


def _download_registered(client, source: str, uri: str) -> str:
    from mlflow.artifacts import download_artifacts  # noqa: PLC0415
    from mlflow.exceptions import MlflowException  # noqa: PLC0415

    found = MODEL_URI.match(source)
    if not found:
        raise UserError(f"run={source} is not a registered-model URI: write "
                        "models:/<name>/<version> or models:/<name>@<alias>.")
    name, version, alias = found["name"], found["version"], found["alias"]
    try:
        if alias:
            version = client.get_model_version_by_alias(name, alias).version
        location = client.get_model_version_download_uri(name, version)
    except MlflowException as exc:
        known = _versions(client, name)
        reason = exc.message.splitlines()[0].rstrip(". ")
        raise UserError(f"run={source}: {reason} (in {uri}); {known}.") from None
    return download_artifacts(artifact_uri=location, tracking_uri=uri)


def _versions(client, name: str) -> str:
    """What the registry holds under ``name``, for an error message."""
    from mlflow.exceptions import MlflowException  # noqa: PLC0415

    try:
        model = client.get_registered_model(name)
        versions = client.search_model_versions(f"name = '{name}'")
    except MlflowException:
        return f"no model is registered as '{name}' (register one with " \
               "tracking.register_as=NAME)"
    numbers = sorted(int(v.version) for v in versions)
    aliases = ", ".join(f"@{a}" for a in (model.aliases or {})) or "no aliases"
    return f"'{name}' has versions {', '.join(map(str, numbers)) or 'none'} and {aliases}"
