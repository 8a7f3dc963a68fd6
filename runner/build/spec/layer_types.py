"""The layer types a TOML spec may name: every public ``core.nn`` layer by its Paddle name, read
from ``core.nn.__all__`` (no list to keep in step by hand), plus the layers plugins register.

A type's arguments are its constructor's parameters, read from the signature, less ``name``;
``weight_attr`` / ``bias_attr`` take ``false`` (no such parameter, as in Paddle) or a table of
Paddle's ``ParamAttr`` settings (``param_attr``).
"""
from __future__ import annotations

import difflib
import inspect

from core import nn, regularizer
from core.nn import initializer
from core.nn.param_attr import ParamAttr
from runner import plugins
from runner.errors import ConfigError

# Layers that hold other layers rather than computing (a spec builds those from its tables).
# RNN and BiRNN take a cell Layer as a constructor argument, which a TOML table cannot give;
# the cells themselves (GRUCell, ...) are spec layer types, and GRU / LSTM / SimpleRNN run
# whole sequences.
CONTAINERS = ("Layer", "Sequential", "LayerList", "LayerDict", "ParameterList", "ParameterDict",
              "TransformerEncoder", "RNN", "BiRNN", "TransformerDecoder")
# Layers of core.nn that are not layers of a network's data path, with the reason a spec that
# names one is told.
NOT_SPEC = {
    "RNNCellBase": "it is the base class of the recurrent cells, with no forward of its own: "
                   "name a cell such as GRUCell, or a whole-sequence layer such as GRU",
    "SpectralNorm": "it normalizes one weight tensor of the fixed shape weight_shape, not a "
                    "batch of samples",
}
HIDDEN_ARGS = ("self", "name", "name_scope", "dtype")
ATTR_ARGS = ("weight_attr", "bias_attr")  # ParamAttr objects in Python; a spec may say false
# The ParamAttr settings a spec table may give. Not ``name``: a spec's parameters are named by
# their layers (conv1.weight), which freezing, checkpoints and the bundle rely on; not
# ``do_model_average``, which core only stores.
ATTR_KEYS = ("initializer", "learning_rate", "regularizer", "trainable", "need_clip")
# Names difflib does not find close, as other libraries spell them.
_SLIPS = {"lr": "learning_rate", "init": "initializer", "weight_decay": "regularizer"}


def core_layer_types() -> dict[str, type]:
    """``core.nn``'s computing layers (losses excluded: a spec describes the network)."""
    found = {}
    for name in nn.__all__:
        obj = getattr(nn, name)
        if inspect.isclass(obj) and issubclass(obj, nn.Layer) and not not_spec_reason(name):
            found[name] = obj
    return found


def not_spec_reason(name: str) -> str:
    """Why the ``core.nn`` layer ``name`` is not a spec type (empty when it is one, or when
    ``name`` is no layer of ``core.nn``)."""
    obj = getattr(nn, name, None) if name in nn.__all__ else None
    if not (inspect.isclass(obj) and issubclass(obj, nn.Layer)):
        return ""
    if name in NOT_SPEC:
        return NOT_SPEC[name]
    if name in CONTAINERS:
        return ("it holds other layers (a spec builds those from its tables: blocks, "
                "repeat) or takes a Layer object as an argument, which a TOML table cannot give")
    if name.endswith("Loss"):
        return "it is a loss, not a layer of the network (the trainer computes the loss)"
    return ""


def layer_types() -> dict[str, type]:
    """Every type a spec may name; a plugin may not take a ``core.nn`` name."""
    types = core_layer_types()
    registry = plugins.REGISTRIES["layer"]
    for name in registry.names():
        if name in types and types[name] is not registry.get(name):
            raise ConfigError(f"the layer type '{name}' is registered twice: by core.nn "
                              f"({plugins.BUILT_IN}) and by {registry.source(name)}; rename "
                              "the plugin's layer.")
        types[name] = registry.get(name)
    return types


def arguments(cls: type) -> dict[str, inspect.Parameter]:
    """The constructor arguments a spec table may set, in signature order."""
    params = inspect.signature(cls.__init__).parameters
    return {name: p for name, p in params.items()
            if name not in HIDDEN_ARGS and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


def required(cls: type) -> list[str]:
    """The arguments without a default."""
    return [name for name, p in arguments(cls).items() if p.default is inspect.Parameter.empty]


def takes_lengths(layer) -> bool:
    """Whether ``layer.forward`` takes ``sequence_length`` (RNNs, sequence pooling)."""
    try:
        return "sequence_length" in inspect.signature(layer.forward).parameters
    except (TypeError, ValueError):
        return False


def value_problem(cls: type, arg: str, value) -> str:
    """Why ``value`` cannot be ``arg`` of ``cls`` by its annotation (empty when it can).

    Only plain annotations are checked (int, float, bool, str and their ``| None`` forms);
    unannotated arguments such as ``kernel_size`` (an int or a list) take any value.
    """
    if arg in ATTR_ARGS:
        return "" if value is False or isinstance(value, dict) else (
            "false (no such parameter) or a table of ParamAttr settings "
            f"({{learning_rate = 0.5}}; keys {', '.join(ATTR_KEYS)})")
    annotation = arguments(cls)[arg].annotation
    if annotation is inspect.Parameter.empty:
        return ""
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
    base = text.replace(" | None", "").replace("Optional[", "").rstrip("]").strip()
    checks = {"int": (lambda v: isinstance(v, int) and not isinstance(v, bool), "an integer"),
              "float": (lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
                        "a number"),
              "bool": (lambda v: isinstance(v, bool), "true or false"),
              "str": (lambda v: isinstance(v, str), "a string")}
    if base not in checks:
        return ""
    ok, wanted = checks[base]
    return "" if ok(value) else wanted


def param_attr(table: dict, where: str) -> ParamAttr:
    """``core.nn.ParamAttr`` from a spec's ``weight_attr`` / ``bias_attr`` table, Paddle's
    ``ParamAttr(initializer=None, learning_rate=1.0, regularizer=None, trainable=True,
    need_clip=True)``; ``initializer`` and ``regularizer`` are tables naming a class of
    ``core.nn.initializer`` / ``core.regularizer`` with its arguments
    (``initializer = {type = "Normal", std = 0.01}``, ``regularizer = {type = "L2Decay",
    coeff = 1e-4}``). ``where`` is the key, for errors."""
    unknown = sorted(set(table) - set(ATTR_KEYS))
    if unknown:
        close = ([_SLIPS[unknown[0]]] if unknown[0] in _SLIPS
                 else difflib.get_close_matches(unknown[0], ATTR_KEYS, n=1))
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        why = (": a spec's parameters are named after their layers" if unknown[0] == "name"
               else "")
        raise ConfigError(f"{where}.{unknown[0]} is not a ParamAttr setting a spec takes{hint}"
                          f"{why}; the settings are {', '.join(ATTR_KEYS)}.")
    settings = dict(table)
    for key, module, base, example in (
            ("initializer", initializer, initializer.Initializer, 'type = "Normal", std = 0.01'),
            ("regularizer", regularizer, regularizer.WeightDecayRegularizer,
             'type = "L2Decay", coeff = 0.0001')):
        if key in settings:
            settings[key] = _instance(settings[key], f"{where}.{key}", module, base, example)
    try:
        return ParamAttr(**settings)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{where} = {table!r} is not a valid ParamAttr: {exc}") from None


def _instance(value, where: str, module, base: type, example: str):
    """An object of the ``module`` class a ``{type = NAME, ...arguments}`` table names."""
    names = sorted(name for name, obj in vars(module).items()
                   if inspect.isclass(obj) and issubclass(obj, base) and obj is not base
                   and not name.startswith("_"))
    if not isinstance(value, dict):
        raise ConfigError(f"{where} = {value!r} is not a table: write {where.rsplit('.', 1)[1]} "
                          f"= {{{example}}}; the types are {', '.join(names)}.")
    kind = value.get("type")
    if kind not in names:
        close = difflib.get_close_matches(str(kind), names, n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise ConfigError(f"{where}.type = {kind!r} is not a {module.__name__} class{hint}: "
                          f"the types are {', '.join(names)} ({{{example}}}).")
    given = {key: item for key, item in value.items() if key != "type"}
    cls = getattr(module, kind)
    takes = arguments(cls)
    for key in given:
        if key not in takes:  # Python's own "unexpected keyword argument" lists nothing
            close = difflib.get_close_matches(key, takes, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise ConfigError(f"{where}.{key} is not an argument of {kind}{hint}: {kind} takes "
                              f"{', '.join(takes) or 'no arguments'}.")
    try:
        return cls(**given)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{where} = {value!r} cannot be made: {kind}: {exc}") from None
