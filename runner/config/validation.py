"""From a composed Hydra config to the typed ``RunConfig`` of ``runner/config/schema.py``, and
back to MLflow params.

``validate`` is the boundary: after it, every value has its schema type and lies in its range.
Each group option's class is chosen by the group's ``name`` key, so a user's own
``model/tiny.toml`` with ``name = "mlp"`` is checked as an MLP. Every failure is a ``ConfigError``
whose one paragraph names the key path (``optim.lr``), the bad value and what is allowed.
"""
from __future__ import annotations

import difflib
import inspect
import math
import os
import re
import typing

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib
from collections.abc import Callable, Mapping
from dataclasses import fields, is_dataclass
from typing import Any

from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from core.backend import DeviceError, parse_device
from runner import plugins
from runner.config import schema, sources
from runner.config.paths import config_dirs
from runner.errors import ConfigError

# Option classes by group, each chosen by the group's ``name`` key.
GROUPS: dict[str, dict[str, type]] = {
    "model": schema.MODEL_SCHEMAS,
    "optim": schema.OPTIM_SCHEMAS,
    "schedule": schema.SCHEDULE_SCHEMAS,
    "clip": schema.CLIP_SCHEMAS,
    "data": schema.DATA_SCHEMAS,
}
# Plain tables with one class each; like schedule and clip they take their defaults when absent.
SECTIONS: dict[str, type] = {
    "trainer": schema.TrainerConfig,
    "runtime": schema.RuntimeConfig,
    "tracking": schema.TrackingConfig,
    "inspect": schema.InspectConfig,
    "sweep": schema.SweepConfig,
}
REQUIRED_GROUPS = ("model", "optim", "data")  # what to train, how, and on what: never guessed
TOP_LEVEL = (*GROUPS, *SECTIONS, "device", "plugins")
REGULARIZERS = ("l1", "l2")

Rule = tuple[Callable[[Any], bool], str]
_POSITIVE: Rule = (lambda v: v > 0, "a number > 0")
_NON_NEGATIVE: Rule = (lambda v: v >= 0, "a number >= 0")
_COUNT: Rule = (lambda v: v >= 1, "an integer >= 1")
_FRACTION: Rule = (lambda v: 0 <= v < 1, "a number in [0, 1)")
_POSITIVE_INTS: Rule = (lambda v: all(n >= 1 for n in v), "a list of integers >= 1")
_NON_EMPTY: Rule = (lambda v: v != "", "a non-empty string")
TAB_ESCAPE = "\\t"  # data.delimiter='\\t' on the command line: backslash and t, a tab
_VALID_SIZE: Rule = (lambda v: 0 <= v < 1 or (v >= 1 and float(v).is_integer()),
                     "a fraction in [0, 1) or a whole count of samples >= 1")
_POSITIVE_VALUES: Rule = (lambda v: all(x > 0 for x in v.values()), "a table of numbers > 0")
NAN_POLICIES = ("stop", "skip", "warn", "off")
AMP_LEVELS = ("off", "O1", "O2")  # trainer.amp: core.amp.auto_cast's levels, O0 spelled off


def _choice(options: tuple[str, ...]) -> Rule:
    return (lambda v: v in options, "one of " + ", ".join(options))


# Range rules by section and key (a key means the same wherever it appears in its section).
RULES: dict[str, dict[str, Rule]] = {
    "model": {"dropout": _FRACTION, "error_clip": _POSITIVE_VALUES,
              # sequence models and cbow (runner/build/sequence_models.py)
              "hidden_size": _COUNT, "num_layers": _COUNT, "embedding_dim": _COUNT,
              "pooling": _choice(("last", "mean", "max", "sum")),
              "direction": _choice(("forward", "bidirect", "bidirectional"))},
    "clip": {"threshold": _POSITIVE, "params": _POSITIVE_VALUES, "error_clip": _NON_NEGATIVE},
    "optim": {"lr": _POSITIVE, "weight_decay": _NON_NEGATIVE, "epsilon": _POSITIVE,
              "regularizer": _choice(REGULARIZERS), "momentum": _FRACTION, "beta1": _FRACTION,
              "beta2": _FRACTION, "rho": _FRACTION, "initial_accumulator_value": _NON_NEGATIVE},
    "schedule": {"warmup_epochs": _NON_NEGATIVE, "step_epochs": _POSITIVE, "gamma": _POSITIVE,
                 "min_lr": _NON_NEGATIVE},
    "data": {"valid_size": _VALID_SIZE,
             # the data path and the sequence/text options (core.data, docs/data.md)
             "pool_size": (lambda v: v >= -1, "an integer >= -1 (-1: whole set, 0: no pool)"),
             "min_pool_size": (lambda v: v >= -1, "an integer >= -1 (-1: pool_size)"),
             "cache": _choice(("none", "memory")), "prefetch": _NON_NEGATIVE,
             "workers": _NON_NEGATIVE, "dict_size": (lambda v: v >= 2, "an integer >= 2"),
             "window": _COUNT,
             "test_size": (lambda v: 0 < v < 1 or (v >= 1 and float(v).is_integer()),
                           "a fraction in (0, 1) or a whole count of samples >= 1"),
             "max_len": _NON_NEGATIVE, "long_seq": _choice(("truncate", "drop")),
             "num_classes": _NON_NEGATIVE,
             # data=arrays and data=csv (runner/build/array_data.py, runner/build/tabular.py)
             "x_key": _NON_EMPTY, "y_key": _NON_EMPTY, "label": _NON_EMPTY,
             "unknown_category": _choice(("error", "zeros")),
             "delimiter": (lambda v: len(v) == 1 or v == TAB_ESCAPE,
                           "a single character, or \\t for a tab")},
    "trainer": {"epochs": _COUNT, "batch_size": _COUNT, "log_every": _COUNT,
                "eval_every": _COUNT, "seed": _NON_NEGATIVE, "objective": _NON_EMPTY,
                "checkpoint_every": _NON_NEGATIVE, "keep_last": _COUNT,
                "nan_check": _choice(NAN_POLICIES), "max_skips": _COUNT,
                "accumulate": _COUNT, "early_stop": _NON_NEGATIVE,
                "early_stop_delta": _NON_NEGATIVE, "test_on": _choice(("last", "best")),
                "objective_direction": _choice(("maximize", "minimize", "auto")),
                "amp": _choice(AMP_LEVELS),
                "loss_scale": (lambda v: 0 < v < math.inf, "a finite number > 0")},
    "inspect": {"every": _NON_NEGATIVE},
    "runtime": {"threads": _NON_NEGATIVE, "gpu_memory_limit": _NON_NEGATIVE},
    "tracking": {"experiment": _NON_EMPTY},
    # sweep.direction's default, ${tomlrun_direction:...}, follows sweep.objective (what
    # trainer.objective_direction = "auto" does); "auto" itself would reach Hydra's sweepers
    "sweep": {"direction": (lambda v: v in ("maximize", "minimize"),
                            "maximize or minimize (or leave it out: it then follows "
                            "sweep.objective, a loss minimized and the rest maximized)")},
}


def validate(cfg: DictConfig | Mapping) -> schema.RunConfig:
    """The ``RunConfig`` of a composed config; raises ``ConfigError`` on anything out of schema,
    saying (under Hydra) which file or override set the key it names."""
    try:
        return _validate(cfg)
    except ConfigError as exc:
        raise sources.located(exc) from None


def _validate(cfg: DictConfig | Mapping) -> schema.RunConfig:
    tree = _plain(cfg)
    tree.pop("hydra", None)  # Hydra's own settings, present only when composed with them
    for key in tree:
        if key not in TOP_LEVEL:
            raise ConfigError(_unknown_key(key, "", TOP_LEVEL, "the top level holds"))
    parts: dict[str, Any] = {}
    for group, options in GROUPS.items():
        parts[group] = _group(group, tree.get(group), options)
    raw_model = cfg.get("model") if isinstance(cfg, DictConfig) else None
    if isinstance(raw_model, DictConfig) and "layers" in raw_model:  # a spec as composed
        _check_knobs_used(parts["model"], raw_model)
    for section, cls in SECTIONS.items():
        node = tree.get(section)
        parts[section] = _build(cls, {} if node is None else node, section)
    parts["device"] = _device(tree.get("device", "cpu"))
    listed = tree.get("plugins", [])
    parts["plugins"] = _typed([listed] if isinstance(listed, str) else listed, list[str],
                              "plugins")  # plugins=NAME is a list of one
    run_config = schema.RunConfig(**parts)
    _expand_home(run_config.data)
    _tab_delimiter(run_config.data)
    _check_together(run_config)
    return run_config


def _tab_delimiter(data: Any) -> None:
    """``data.delimiter='\\t'`` is a tab: a shell and Hydra's grammar make a real tab hard to
    type, and TOML's ``"\\t"`` is already one."""
    if getattr(data, "delimiter", None) == TAB_ESCAPE:
        data.delimiter = "\t"


def _expand_home(data: Any) -> None:
    """``~/...`` in the data config's paths (``data.root='~/data'``, ``data.train``, a file
    glob) is the home folder, as in a shell: no file path there starts with a literal ``~``,
    and the IDX sets already read their root so."""
    if not is_dataclass(data):
        return
    for item in fields(data):
        value = getattr(data, item.name)
        if isinstance(value, str) and value.startswith("~"):
            setattr(data, item.name, os.path.expanduser(value))
        elif isinstance(value, list) and any(isinstance(v, str) and v.startswith("~")
                                             for v in value):
            setattr(data, item.name, [os.path.expanduser(v) if isinstance(v, str) else v
                                      for v in value])


_NESTED = {"layers", "blocks"}  # spec tables flattened down to each argument


def flatten(run_config: schema.RunConfig) -> dict[str, str]:
    """Dotted keys to strings (``{"optim.lr": "0.001", "model.channels": "[20, 20]"}``).

    Values are spelled as on the command line, so a logged param pastes back as an override.
    """
    flat: dict[str, str] = {}

    def walk(prefix: str, value: Any) -> None:
        if is_dataclass(value):
            for field in fields(value):
                how = field.metadata.get("flatten")
                inner = getattr(value, field.name)
                if how == "inline":  # a spec's knobs, a plugin's options: model.width
                    for key, item in inner.items():
                        walk(f"{prefix}.{key}", item)
                else:
                    walk(f"{prefix}.{field.name}" if prefix else field.name, inner)
        elif isinstance(value, dict) and value and _NESTED & set(prefix.split(".")):
            for key, item in value.items():  # model.layers.conv1.out_channels
                walk(f"{prefix}.{key}", item)
        else:
            flat[prefix] = show(value, quote=False)

    walk("", run_config)
    return flat


# --- composing the pieces ---------------------------------------------------------------------
def _plain(cfg: DictConfig | Mapping) -> dict:
    """A resolved plain-dict copy; missing values and broken interpolations name their key."""
    if not isinstance(cfg, DictConfig):
        cfg = OmegaConf.create(dict(cfg))
    try:
        return OmegaConf.to_container(cfg, resolve=True, throw_on_missing=True)
    except OmegaConfBaseException as exc:
        key = getattr(exc, "full_key", None) or "the config"
        missing = _MISSING_INTERPOLATION.search(str(exc))
        if missing:
            raise ConfigError(_missing_interpolation(cfg, key, missing.group(1))) from None
        scalar = _NOT_A_TABLE.search(str(exc))
        if scalar:
            raise ConfigError(_not_a_table(cfg, key, scalar.group(1), scalar.group(2))) from None
        reason = str(exc).splitlines()[0]
        raise ConfigError(f"{key} could not be read: {reason}. Give it a value on the command "
                          f"line ({key}=VALUE) or in a TOML file.") from None


_MISSING_INTERPOLATION = re.compile(r"Interpolation key '([^']+)' not found")
_NOT_A_TABLE = re.compile(r"access (\S+): node `([^`]+)` is not a container")


def _missing_interpolation(cfg: DictConfig, key: str, missing: str) -> str:
    """``${model.widht}``: the key that holds it, the missing key and the closest existing one
    (the first part of the path that is not there, matched among its siblings)."""
    tree = OmegaConf.to_container(cfg, resolve=False)
    raw = _raw(tree, key)
    parts = missing.split(".")
    for body in re.findall(r"\$\{(\.+[^}:]*)\}", raw if isinstance(raw, str) else ""):
        if body.lstrip(".") == missing:  # ${.width}: relative to the key's own table
            dots = len(body) - len(body.lstrip("."))
            parts = [*re.split(r"[.\[\]]+", key.strip("."))[:-dots], *parts]
    table, found = tree, []
    for part in parts:
        if not isinstance(table, dict) or part not in table:
            break
        table, found = table[part], [*found, part]
    parent = ".".join(found) or "the top level"
    absolute = ".".join(parts)
    if not isinstance(table, dict):
        return (f"{key} = {show(raw)} refers to {absolute}, which is not a key of the config: "
                f"{parent} is {show(table)}, not a table.")
    wrong = parts[len(found)]
    names = sorted(str(name) for name in table)
    close = difflib.get_close_matches(wrong, names, n=1)
    guess = ".".join([*found, close[0], *parts[len(found) + 1:]]) if close else ""
    hint = f" (did you mean ${{{guess}}}?)" if guess else ""
    shown = ", ".join(names) if len(names) <= 30 else ", ".join(names[:30]) + ", ..."
    return (f"{key} = {show(raw)} refers to {absolute}, which is not a key of the config: "
            f"{parent} has no key '{wrong}'{hint}; the keys of {parent} are "
            f"{shown or '(none)'}.")


def _not_a_table(cfg: DictConfig, key: str, wanted: str, scalar: str) -> str:
    """``trainer = 5`` (a preset replacing a table by a value) read as ``${trainer.objective}``."""
    tree = OmegaConf.to_container(cfg, resolve=False)
    return (f"{scalar} = {show(_raw(tree, scalar))} is not a table, so {key} = "
            f"{show(_raw(tree, key))} cannot read {wanted}: give {scalar} as a table of keys "
            f"([{scalar}] in a TOML file, {scalar}.KEY=VALUE on the command line).")


def _raw(tree: Any, key: str) -> Any:
    """The value at ``key`` (``model.layers.fc.out_features``, ``a.b[0]``) as written."""
    for part in filter(None, re.split(r"[.\[\]]", key)):
        if isinstance(tree, dict):
            tree = tree.get(part)
        elif isinstance(tree, list) and part.isdigit() and int(part) < len(tree):
            tree = tree[int(part)]
    return tree


def group_option(group: str, node: Any) -> Any:
    """The validated dataclass of one group option's table (``{"name": "adam", "lr": 0.1}``)."""
    return _group(group, node, GROUPS[group])


def _option_names(group: str, options: dict[str, type]) -> list[str]:
    """Every name a group option may have: schema classes, shipped TOML files, plugins."""
    files = {path.stem for path in (config_dirs()[0] / group).glob("*.toml")}
    kind = {"model": "model", "data": "dataset"}.get(group)
    registered = set(plugins.REGISTRIES[kind].names()) if kind else set()
    return [*options, *sorted((files | registered) - set(options))]


def _group(group: str, node: Any, options: dict[str, type]) -> Any:
    names = ", ".join(_option_names(group, options) if group in ("model", "data")
                      else options)
    if node is None:
        if group in REQUIRED_GROUPS:
            raise ConfigError(f"the config group '{group}' is missing: choose one of {names} "
                              f"with {group}=NAME.")
        node = {"name": next(iter(options))}
    if not isinstance(node, dict):
        raise ConfigError(f"{group} = {show(node)} is not valid: {group} must be a table of "
                          f"keys; choose one of {names} with {group}=NAME.")
    name = node.get("name")
    if group == "model" and "layers" in node:  # a network written in TOML
        return _spec(node)
    if group == "model" and name not in options and _shipped_spec(name) is not None:
        return _spec(_on_shipped_spec(node))  # {"name": "mlp", "hidden": [8]} from Python
    plugin = plugins.get({"model": "model", "data": "dataset"}.get(group, ""), name) \
        if group in ("model", "data") else None
    if plugin is not None and (name in options or _shipped_spec(name) is not None):
        kind = "model" if group == "model" else "dataset"
        raise ConfigError(f"the {kind} name '{name}' is registered twice: by "
                          f"{plugins.BUILT_IN} and by {plugins.REGISTRIES[kind].source(name)}; "
                          "rename the plugin's.")
    if plugin is not None:
        return _plugin(group, node, plugin)
    if name not in options:
        shown = "is missing" if name is None else f"= {show(name)} is not a known {group}"
        raise ConfigError(f"{group}.name {shown}: the valid {group} names are {names}; choose "
                          f"an option with {group}=NAME (a TOML file names its class by 'name')."
                          + (_layers_typo(node) if group == "model" else ""))
    return _build(options[name], node, group, siblings=options)


def _layers_typo(node: dict) -> str:
    """A hint when a model table looks like a network spec whose ``[layers.*]`` tables were
    misspelt (``[layer.fc]``): without a ``layers`` key it reads as a named model."""
    close = [key for key in node
             if key != "name" and difflib.get_close_matches(key, ["layers"], n=1, cutoff=0.7)]
    if not close:
        return ""
    return (f" If this is a network written in TOML, its layers go in [layers.NAME] tables: "
            f"the model has a '{close[0]}' key (did you mean 'layers'?).")


def _spec(node: dict) -> schema.SpecConfig:
    """A network spec: its own keys typed, every other key a knob; the layers are checked
    against core.nn when the model is built (runner.build.spec)."""
    own = {f.name for f in fields(schema.SpecConfig)} - {"knobs"}
    knobs = {key: value for key, value in node.items() if key not in own}
    spec = _build(schema.SpecConfig, {k: v for k, v in node.items() if k in own}, "model")
    for key in ("layers", "blocks"):
        for name, table in getattr(spec, key).items():
            if not isinstance(table, dict):
                raise ConfigError(f"model.{key}.{name} = {show(table)} is not valid: each entry "
                                  f"of model.{key} is a table (type = \"Linear\", ...).")
    if not spec.layers:
        raise ConfigError("model.layers is empty: a network spec needs at least one layer "
                          "(docs/models.md).")
    spec.knobs = knobs
    return spec


def _check_knobs_used(spec: schema.SpecConfig, raw: DictConfig) -> None:
    """Every knob of a composed spec is referenced (``${model.KEY}``) by some table: a key that
    none uses would change nothing (say, a setting of an older model option)."""
    text = str(OmegaConf.to_container(raw, resolve=False))
    unused = sorted(key for key in spec.knobs if "${model." + key + "}" not in text)
    if unused:
        key = unused[0]
        used = sorted(set(spec.knobs) - set(unused))
        spec_keys = [f.name for f in fields(schema.SpecConfig) if f.name != "knobs"]
        close = difflib.get_close_matches(key, [*spec_keys, "freeze", "error_clip"], n=1)
        hint = f" (did you mean model.{close[0]}?)" if close else ""
        raise ConfigError(
            f"model.{key} = {show(spec.knobs[key])} is set, but no layer of the "
            f"spec '{spec.name}' uses it (as ${{model.{key}}}), so it would change "
            f"nothing{hint}: its settings are {', '.join(used) or '(none)'}; set a layer's "
            f"argument as model.layers.NAME.ARG (python -m runner.summary shows the layers)"
            + ("." if close else f", and where your overrides replace every use of the "
               f"setting, drop it with ~model.{key}."))


def _shipped_spec(name: Any) -> dict | None:
    """The table of the shipped spec option ``name`` (conf/model/NAME.toml), if there is one."""
    path = config_dirs()[0] / "model" / f"{name}.toml"
    if not isinstance(name, str) or not path.is_file():
        return None
    table = tomllib.loads(path.read_text(encoding="utf-8"))
    return table if "layers" in table else None


def _on_shipped_spec(node: dict) -> dict:
    """``node``'s keys laid over the shipped spec of its name, interpolations resolved."""
    base = _shipped_spec(node["name"])
    for key in node:
        if key not in base:
            raise ConfigError(_unknown_key(key, "model", base, f"the keys of model "
                                           f"({node['name']}) are"))
    merged = OmegaConf.merge(OmegaConf.create({"model": base}), {"model": node})
    return OmegaConf.to_container(merged, resolve=True)["model"]


def _plugin(group: str, node: dict, builder) -> Any:
    """A plugin model or dataset: the keys its builder takes, checked against its signature."""
    cls = schema.PluginModelConfig if group == "model" else schema.PluginDataConfig
    own = {f.name for f in fields(cls)} - {"options"}
    options = {key: value for key, value in node.items() if key not in own}
    taken = [name for name, param in inspect.signature(builder).parameters.items()
             if name not in ("input_shape", "num_classes", "vocab_size", "seed")
             and param.kind in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY)]
    kind = "model" if group == "model" else "dataset"
    source = plugins.REGISTRIES[kind].source(node["name"])
    for key in options:
        if key not in taken:
            intro = f"{group}={node['name']} (a plugin from {source}) takes"
            raise ConfigError(_unknown_key(key, group, taken, intro))
    hints = _annotations(builder)
    options = {key: _typed(value, hints[key], f"{group}.{key}") if hints.get(key) in _TYPE_NAMES
               else value for key, value in options.items()}
    config = _build(cls, {k: v for k, v in node.items() if k in own}, group)
    config.options = options
    return config


def _annotations(builder) -> dict:
    """The builder's parameter types, where Python can resolve them ({} where it cannot: a
    plugin's annotations are its own business, and only the plain types are checked)."""
    try:
        return typing.get_type_hints(builder)
    except Exception:  # noqa: BLE001 - an unresolvable annotation only means no check
        return {}


def _build(cls: type, node: Any, path: str, siblings: dict[str, type] | None = None) -> Any:
    """``cls(**node)`` with every key known, typed and in range."""
    if not isinstance(node, dict):
        raise ConfigError(f"{path} = {show(node)} is not valid: {path} must be a table of keys.")
    hints = typing.get_type_hints(cls)
    names = [field.name for field in fields(cls)]
    for key in node:
        if key not in names:
            owners = sorted(n for n, c in (siblings or {}).items()
                            if key in {f.name for f in fields(c)})
            also = f" ('{key}' belongs to {path}={', '.join(owners)})" if owners else ""
            label = f"{path} ({node['name']})" if "name" in node else path
            raise ConfigError(_unknown_key(key, path, names, f"the keys of {label} are", also))
    values = {key: _typed(value, hints[key], f"{path}.{key}") for key, value in node.items()}
    rules = RULES.get(path, {})
    for key, value in values.items():
        if key in rules and not rules[key][0](value):
            raise ConfigError(f"{path}.{key} = {show(node[key])} is not allowed: use "
                              f"{rules[key][1]}.")
    return cls(**values)


def _device(value: Any) -> str:
    text = _typed(value, str, "device")
    try:
        return str(parse_device(text))
    except DeviceError as exc:
        raise ConfigError(str(exc)) from None  # it names the device and what is allowed


def _check_together(run_config: schema.RunConfig) -> None:
    """Rules that involve two keys."""
    schedule, lr = run_config.schedule, run_config.optim.lr
    if schedule.name == "cosine" and schedule.min_lr > lr:
        raise ConfigError(f"schedule.min_lr = {show(schedule.min_lr)} is not allowed: the "
                          f"cosine schedule decays from optim.lr = {show(lr)} down to min_lr, "
                          "so use a min_lr <= optim.lr.")
    if run_config.clip.name == "error" and run_config.clip.error_clip <= 0:
        raise ConfigError("clip.error_clip = 0.0 is not allowed with clip=error, which clips "
                          "the gradient at every layer's output: use a threshold > 0.")
    _check_monitor(run_config.trainer)
    _check_inspect(run_config.inspect)
    _check_pool(run_config.data)
    _check_text_sizes(run_config.data)
    _check_register(run_config)


def _check_inspect(inspect_cfg: schema.InspectConfig) -> None:
    """What to inspect without how often would log nothing."""
    asked = [name for name, on in (("layer_outputs", inspect_cfg.layer_outputs),
                                   ("param_stats", inspect_cfg.param_stats),
                                   ("grad_stats", inspect_cfg.grad_stats)) if on]
    if asked and inspect_cfg.every == 0:
        raise ConfigError(f"inspect.{asked[0]} is set but inspect.every = 0 (off), so nothing "
                          "would be inspected: add inspect.every=N (every N optimizer steps).")


def _check_pool(data: schema.DataConfig) -> None:
    """The pool fills to min_pool_size before the first batch, so it must fit in the pool."""
    pool, least = getattr(data, "pool_size", -1), getattr(data, "min_pool_size", -1)
    if pool > 0 and least > pool:
        raise ConfigError(f"data.min_pool_size = {show(least)} is not allowed with "
                          f"data.pool_size = {show(pool)}: the pool holds at most pool_size "
                          "samples, so use a min_pool_size <= pool_size (or -1 for pool_size).")


def _check_text_sizes(data: schema.DataConfig) -> None:
    """data=text splits each file by position: its test_size is a fraction, not a count."""
    if isinstance(data, schema.TextConfig) and data.test_size >= 1:
        raise ConfigError(f"data.test_size = {show(data.test_size)} is not allowed with "
                          "data=text, which holds out the end of each file: use a fraction "
                          "in (0, 1).")


# Characters MLflow refuses in a registered model's name ('/', ':') or that would make its
# models:/NAME/VERSION and models:/NAME@ALIAS URIs ambiguous ('@').
_MODEL_NAME_FORBIDDEN = "/:@"


def _check_model_name(key: str, name: str) -> None:
    """A registered model's name, checked before training rather than after it."""
    bad = sorted({c for c in name if c in _MODEL_NAME_FORBIDDEN})
    if name and (not name.strip() or name != name.strip() or bad):
        why = (f"it contains {', '.join(repr(c) for c in bad)}" if bad
               else "it is blank or has spaces at its ends")
        raise ConfigError(f"{key} = {show(name)} cannot name a registered model: {why}; use "
                          "letters, digits, '-', '_' and '.', e.g. digits-cnn (runner.infer "
                          "reads it back as models:/NAME/VERSION or models:/NAME@ALIAS).")


def _check_register(run_config: schema.RunConfig) -> None:
    """Registering a model needs one logged: tracking on and the final checkpoint kept."""
    _check_model_name("tracking.register_as", run_config.tracking.register_as)
    _check_model_name("sweep.register_best", run_config.sweep.register_best)
    if run_config.tracking.register_as and not (run_config.trainer.checkpoint
                                                and run_config.tracking.enabled):
        raise ConfigError(f"tracking.register_as = {show(run_config.tracking.register_as)} "
                          "registers the run's logged model, which needs tracking.enabled = "
                          "true and trainer.checkpoint = true: set both, or drop register_as.")


def _check_monitor(trainer: schema.TrainerConfig) -> None:
    """Early stopping and the best checkpoint watch a validation metric."""
    if trainer.test_on == "best" and not trainer.keep_best:
        raise ConfigError("trainer.test_on = 'best' needs trainer.keep_best = true, which keeps "
                          "the weights of the best validation pass: set trainer.keep_best=true "
                          "or test the last weights (trainer.test_on=last).")
    users = [f"trainer.{key} = {show(getattr(trainer, key))}"
             for key in ("early_stop", "keep_best") if getattr(trainer, key)]
    if users and not trainer.objective.startswith("valid/"):
        raise ConfigError(f"trainer.objective = {show(trainer.objective)} cannot be monitored "
                          f"by {' and '.join(users)}: early stopping and the best checkpoint "
                          "watch a validation metric measured after each validation pass; "
                          "use trainer.objective=valid/acc or valid/loss.")


# --- types and messages -----------------------------------------------------------------------
_TYPE_NAMES = {Any: "any value", dict[str, Any]: "a table", float: "a number",
               int: "an integer", bool: "true or false", str: "a string",
               list[int]: "a list of integers", list[str]: "a list of strings",
               bool | str: "true, false or a string",
               dict[str, float]: "a table of names to numbers"}


def _typed(value: Any, hint: Any, path: str) -> Any:
    """``value`` as type ``hint`` (an int is accepted for a float; a bool is never a number)."""
    ok = False
    if hint is float and isinstance(value, (int, float)) and not isinstance(value, bool):
        value, ok = float(value), math.isfinite(value)
    elif hint is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif hint in (bool, str):
        ok = isinstance(value, hint)
    elif hint == list[int]:
        ok = isinstance(value, list) and all(
            isinstance(item, int) and not isinstance(item, bool) for item in value)
    elif hint == list[str]:
        ok = isinstance(value, list) and all(isinstance(item, str) for item in value)
    elif hint == bool | str:
        ok = isinstance(value, (bool, str))
    elif hint is Any:
        ok = True
    elif hint == dict[str, Any]:
        ok = isinstance(value, dict)
    elif hint == dict[str, float] and isinstance(value, dict):
        value = _dotted(value)  # +model.error_clip.h.0.fc=100 nests: {h: {0: {fc: 100}}}
        ok = all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                 for v in value.values())
        value = {str(k): float(v) for k, v in value.items()} if ok else value
    if ok:
        return value
    wanted = _TYPE_NAMES.get(hint, str(hint))
    if hint is float and isinstance(value, float):
        wanted = "a finite number"
    tip = ""
    if hint is str and isinstance(value, (int, float, bool)):
        tip = f" (quote it on the command line: {path}='\"{show(value, quote=False)}\"')"
    raise ConfigError(f"{path} = {show(value)} has the wrong type: expected {wanted}{tip}.")


def _dotted(table: dict, prefix: str = "") -> dict:
    """Nested tables as one table of dotted names (layer names such as ``h.0.fc``)."""
    flat = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(_dotted(value, name + "."))
        else:
            flat[name] = value
    return flat


def _unknown_key(key: str, path: str, valid: typing.Iterable[str], intro: str,
                 also: str = "") -> str:
    valid = sorted(valid)
    full = f"{path}.{key}" if path else key
    close = difflib.get_close_matches(key, valid, n=1)
    hint = f" (did you mean '{path + '.' if path else ''}{close[0]}'?)" if close else ""
    return f"'{full}' is not a known key{hint}{also}: {intro} {', '.join(valid)}."


def show(value: Any, quote: bool = True) -> str:
    """``value`` spelled as in a TOML file or on the command line."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, str):
        return f"'{value}'" if quote else value
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(show(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {show(v)}" for k, v in value.items()) + "}"
    return repr(value)
