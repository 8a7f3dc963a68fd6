"""``jit.save`` and ``jit.load``: an inference model as files beside ``path``.

``path + ".pdiparams"``: the layer's ``state_dict()``, in ``core.save``'s format (``core.load``
reads it). ``path + ".pdmodel"``: in the same format (no pickle around it), the saved layer
without its tensors (core.jit.payload: a description, or a pickle where the layer holds
something a description cannot), the table of its tensors, the input and output specs, the
core version and the SHA-256 of the .pdiparams file. Paddle's .pdmodel is a static program and
its .pdiparams.info holds what core keeps in the .pdmodel (structured names, trainable,
stop_gradient), so core writes no .pdiparams.info.

Each file is written atomically, the .pdmodel last, and only after everything has been
prepared: a save that fails leaves an existing model as it was. A crash between the two
renames leaves a .pdiparams whose checksum the old .pdmodel does not match, which ``load``
reports instead of loading mismatched weights.
"""
from __future__ import annotations

import hashlib
import inspect
import os
import warnings

import numpy as np

import core
from core import serialize
from core.jit import payload
from core.jit import specs as spec_tools
from core.jit.probe import output_specs
from core.jit.static_function import StaticFunction, to_static_enabled
from core.jit.translated_layer import TranslatedLayer
from core.nn.layer import Layer
from core.static import InputSpec

MODEL_SUFFIX, PARAMS_SUFFIX = ".pdmodel", ".pdiparams"
FORMAT, VERSION = "tomlrun.jit", 1
_SAVE_CONFIGS = ("output_spec", "with_hook", "combine_params", "clip_extra", "skip_forward")
_LOAD_CONFIGS = ("model_filename", "params_filename")


class ModelFileError(ValueError):
    """A .pdmodel / .pdiparams pair that ``jit.load`` cannot use: another format, a damaged
    file, or two files from different saves."""


# ----- save -------------------------------------------------------------------------------------

def save(layer, path, input_spec=None, **configs) -> None:
    """Paddle's ``paddle.jit.save(layer, path, input_spec=None, **configs)``: write
    ``path.pdmodel`` and ``path.pdiparams`` for ``jit.load``.

    ``layer``: a core.nn.Layer (its ``forward`` is saved) or a function (decorated with
    ``to_static`` or not; it has no parameters). ``input_spec``: one InputSpec (or example
    Tensor, or Python constant) per positional input of forward; None takes the ``to_static``
    input_spec, else the inputs of the last call of the ``to_static`` forward. forward runs on
    example inputs built from the spec (in eval mode, without gradients, random state kept) to
    check the spec and record the outputs. ``configs``: Paddle's ``output_spec`` (None only),
    ``with_hook``, ``combine_params``, ``clip_extra`` (accepted; forward hooks are always
    saved, parameters always go to one file) and ``skip_forward`` (False only).
    """
    if not to_static_enabled():
        raise RuntimeError("jit.save does not work after core.jit.enable_to_static(False) (as "
                           "in Paddle); call enable_to_static(True) first.")
    if isinstance(layer, TranslatedLayer):  # save what was loaded, with its saved spec
        if input_spec is None:
            input_spec = list(layer._saved_input_spec)
        layer = layer._network
    target, forward, static = _target(layer)
    path = _check_path(path)
    _check_configs(configs)
    label = _label(target)
    specs = _input_specs(input_spec, static, forward, label)
    outputs = output_specs(target, forward, specs, static, label)
    # the class's state_dict: the live tensors, even where amp.decorate(save_dtype=...) made
    # the instance's give copies in another dtype
    state = type(target).state_dict(target) if isinstance(target, Layer) else {}
    document = _document(target, state, specs, outputs, label)
    _make_folder(path)
    serialize.save(state, path + PARAMS_SUFFIX)
    document["params_sha256"] = _digest(path + PARAMS_SUFFIX)
    serialize.save(document, path + MODEL_SUFFIX)


def _make_folder(path: str) -> None:
    """The folder of ``path``, created as Paddle's jit.save does; a file in the way (or no
    permission) is an error that names the folder."""
    folder = os.path.dirname(path)
    if not folder:
        return
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as exc:
        reason = "a file is in the way" if isinstance(exc, (FileExistsError, NotADirectoryError)) \
            else (exc.strerror or str(exc))
        raise type(exc)(f"jit.save: cannot create the folder '{folder}' for "
                        f"{os.path.basename(path)}{MODEL_SUFFIX} and "
                        f"{os.path.basename(path)}{PARAMS_SUFFIX}: {reason}.") from None


def _target(layer) -> tuple:
    """(what is saved, its plain forward, the StaticFunction that decorates it or None)."""
    if isinstance(layer, Layer):
        forward = layer.forward
        if isinstance(forward, StaticFunction):
            return layer, forward.dygraph_function, forward
        return layer, forward, None
    if isinstance(layer, StaticFunction):
        if layer._instance is not None:
            raise TypeError(f"jit.save: {layer.__name__} is a to_static method of a "
                            f"{type(layer._instance).__name__}; save the Layer itself (its "
                            "forward is what jit.save saves).")
        return layer._function, layer._function, layer
    if inspect.isfunction(layer):
        return layer, layer, None
    raise TypeError(f"jit.save: layer must be a core.nn.Layer or a function, got "
                    f"{type(layer).__name__} {layer!r:.80}.")


def _check_path(path) -> str:
    path = os.fspath(path)
    if not os.path.basename(path):
        raise ValueError(f"jit.save: path '{path}' must be a file prefix, dirname/name: the "
                         f"files are dirname/name{MODEL_SUFFIX} and dirname/name{PARAMS_SUFFIX}.")
    if os.path.isdir(path):
        raise ValueError(f"jit.save: path '{path}' is a folder; give a file prefix inside it, "
                         f"such as '{os.path.join(path, 'model')}' (the files are "
                         f"prefix{MODEL_SUFFIX} and prefix{PARAMS_SUFFIX}).")
    return path


def _check_configs(configs: dict) -> None:
    unknown = sorted(set(configs) - set(_SAVE_CONFIGS))
    if unknown:
        raise ValueError(f"jit.save: the additional config(s) {unknown} are not supported; "
                         f"Paddle's are {list(_SAVE_CONFIGS)}.")
    for name in ("with_hook", "combine_params", "clip_extra", "skip_forward"):
        if name in configs and not isinstance(configs[name], bool):
            raise TypeError(f"jit.save: {name} must be True or False, got {configs[name]!r}.")
    if configs.get("output_spec") is not None:
        raise ValueError("jit.save: output_spec prunes Paddle's static program to some of its "
                         "output tensors; core saves the layer itself, which returns all its "
                         "outputs (leave output_spec None).")
    if configs.get("skip_forward"):
        raise ValueError("jit.save: skip_forward=True saves no forward, and core's jit.save "
                         "saves forward only: there would be nothing to load (save the "
                         "weights with core.save(layer.state_dict(), path) instead).")


def _label(target) -> str:
    return type(target).__name__ if isinstance(target, Layer) else \
        getattr(target, "__qualname__", repr(target))


def _input_specs(input_spec, static, forward, label: str) -> tuple:
    if input_spec is not None:
        specs = spec_tools.as_specs(input_spec, "jit.save")
    elif static is not None and static.input_spec is not None:
        specs = static.input_spec
    elif static is not None and static.traced_input_spec() is not None:
        specs = spec_tools.as_specs(static.traced_input_spec(),
                                    "jit.save (taking the inputs of the last call)")
    else:
        raise ValueError(
            f"jit.save: {label} has no input_spec and was never called through to_static, so "
            "the shapes and dtypes of its inputs are unknown. Give input_spec=[InputSpec([None, "
            "...], 'float32', 'x'), ...], one per input of forward (core.Model: "
            "Model(network, inputs=[...])), or decorate forward with core.jit.to_static and "
            "call it once.")
    spec_tools.check_arity(forward, specs, "jit.save", f"{label}.forward")
    return spec_tools.named(specs, spec_tools.positional_names(forward)[0])


# ----- the model file ---------------------------------------------------------------------------

def _document(target, state: dict, specs: tuple, outputs: list, label: str) -> dict:
    table = payload.TensorTable(state)
    try:
        tree, extras = payload.describe(target, table)
        kind, body = payload.DESCRIPTION, {"layer": tree, "extras": extras}
    except payload.NotDescribable as reason:
        table = payload.TensorTable(state)
        try:
            data = payload.pickled(target, table)
        except Exception as exc:
            raise ValueError(
                f"jit.save: cannot store {label}. core stores a layer by its structure when "
                "every attribute is a Layer, Tensor, number, string, container of them, or a "
                f"core object or function, and by pickle otherwise; here {reason}, and pickle "
                f"failed ({type(exc).__name__}: {exc}). Remove that attribute or forward hook "
                "(handle.remove()), or define it at module level so pickle can name it.") from exc
        kind, body = payload.PICKLE, {"layer": np.frombuffer(data, dtype=np.uint8)}
    cls = type(target) if isinstance(target, Layer) else target
    return {"format": FORMAT, "version": VERSION, "core_version": core.__version__,
            "kind": kind, **body, "tensors": table.records(),
            "class": f"{cls.__module__}.{cls.__qualname__}",
            "input_spec": [spec_tools.to_record(s) if isinstance(s, InputSpec)
                           else {"constant": s} for s in specs],
            "output_spec": [spec_tools.to_record(s) for s in outputs]}


def _digest(file: str) -> str:
    sha = hashlib.sha256()
    with open(file, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            sha.update(block)
    return sha.hexdigest()


# ----- load -------------------------------------------------------------------------------------

def load(path, **configs) -> TranslatedLayer:
    """Paddle's ``paddle.jit.load(path, **configs)``: the model ``jit.save`` wrote at ``path``,
    as a ``TranslatedLayer`` in eval mode.

    The saved layer's classes must be importable (they are imported, as pickle does; the
    description form runs no other code, the pickle form runs pickle: load files you trust).
    ``configs``: Paddle's ``model_filename`` / ``params_filename`` serve its older folder
    format, which core does not write; as in Paddle, with a path prefix they have no effect.
    """
    _check_load_configs(configs)
    path = os.fspath(path)
    model, params = path + MODEL_SUFFIX, path + PARAMS_SUFFIX
    _check_files(path, model, params)
    document = _read(model)
    if document.get("params_sha256") != _digest(params):
        raise ModelFileError(
            f"jit.load: '{params}' is not the parameter file saved with '{model}' (its "
            "checksum differs): the two come from different saves, or a save was interrupted "
            "between them. Save the model again.")
    try:
        state = serialize.load(params, return_numpy=True)
        tensors = payload.build_tensors(document["tensors"], state)
        network, extras = _network(document, tensors)
        payload.set_extras(tensors, extras)
        specs = [spec_tools.from_record(r) if "constant" not in r else r["constant"]
                 for r in document["input_spec"]]
        outputs = [spec_tools.from_record(r) for r in document["output_spec"]]
    except payload.NotImportable as exc:
        raise ImportError(
            f"jit.load: '{model}' holds a {exc.module}.{exc.qualname}, which cannot be imported "
            f"here ({exc.reason}). jit.save stores a layer's structure and weights, not its "
            f"code: import the module that defines {exc.qualname} (or put its folder on "
            "sys.path) before jit.load.") from None
    except (KeyError, TypeError, IndexError, serialize.SerializationError) as exc:
        raise ModelFileError(f"jit.load: '{model}' is damaged ({type(exc).__name__}: "
                             f"{exc}).") from None
    return TranslatedLayer(network, specs, outputs)


def _check_load_configs(configs: dict) -> None:
    unknown = sorted(set(configs) - set(_LOAD_CONFIGS))
    if unknown:
        raise ValueError(f"jit.load: the additional config(s) {unknown} are not supported; "
                         f"Paddle's are {list(_LOAD_CONFIGS)}.")
    given = [name for name in _LOAD_CONFIGS if configs.get(name) is not None]
    if given:
        warnings.warn(f"jit.load: {given} have no effect when loading the files of a path "
                      "prefix (as in Paddle); core reads only what jit.save writes.",
                      stacklevel=3)


def _check_files(path: str, model: str, params: str) -> None:
    if not os.path.isfile(model):
        hint = ""
        if os.path.isdir(path):
            hint = (f" '{path}' is a folder: jit.load takes the prefix jit.save was given "
                    "(folder/name), and core reads no Paddle save_inference_model folder.")
        elif os.path.isfile(path + ".pdparams"):
            hint = (f" '{path}.pdparams' is there: that is core.save / Model.save weights; "
                    "load it with core.load or Model.load.")
        raise FileNotFoundError(f"jit.load: no model file '{model}'.{hint}")
    if not os.path.isfile(params):
        raise FileNotFoundError(f"jit.load: no parameter file '{params}' beside '{model}'; "
                                "jit.save writes both.")


def _read(model: str) -> dict:
    try:
        document = serialize.load(model, return_numpy=True)
    except serialize.SerializationError as exc:
        raise ModelFileError(
            f"jit.load: '{model}' was not written by core.jit.save ({exc}). A Paddle .pdmodel "
            "holds a static program, which core cannot run: load the model in Paddle, or save "
            "it from core.") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ModelFileError(f"jit.load: '{model}' is a tomlrun file but not a jit.save model "
                             "(core.save writes state dicts; read those with core.load).")
    if document.get("version") != VERSION:
        raise ModelFileError(f"jit.load: '{model}' has jit format version "
                             f"{document.get('version')}; this core reads version {VERSION}.")
    return document


def _network(document: dict, tensors: list) -> tuple:
    if document["kind"] == payload.DESCRIPTION:
        return payload.rebuild(document["layer"], document["extras"], tensors)
    if document["kind"] == payload.PICKLE:
        return payload.unpickled(document["layer"].tobytes(), tensors)
    raise KeyError(f"kind {document['kind']!r}")
