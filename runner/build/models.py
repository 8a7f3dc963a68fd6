"""The model of a run: the ``model`` group's builders, then names, error clips and freezing."""
from __future__ import annotations

import inspect

import numpy as np

import core
from core import nn
from runner import plugins
from runner.build import sequence_models, spec
from runner.build.optim import apply_error_clips
from runner.build.spec.layer_types import arguments
from runner.config import schema
from runner.errors import ConfigError


def _spec(cfg: schema.SpecConfig, input_shape, num_classes: int, vocab_size: int,
          variable_length: bool, input_dtype: str) -> nn.Layer:
    """A network written in TOML: nodes checked and ordered, then sized and probed."""
    nodes, output, aliases = spec.parse(cfg)
    if vocab_size and not any("num_embeddings" in arguments(node.cls) for node in nodes):
        raise ConfigError(f"the data are word ids (a vocabulary of {vocab_size}), but the "
                          f"model {cfg.name} has no Embedding layer to turn them into vectors: "
                          "start the network with an Embedding (num_embeddings is inferred), "
                          "or use model=cbow.")
    model = spec.build_graph(nodes, output, input_shape, num_classes, vocab_size,
                             variable_length, input_dtype, aliases=aliases)
    if variable_length:
        _check_length_free(model, input_shape, vocab_size, input_dtype)
    return model


def _check_length_free(model, input_shape, vocab_size: int, input_dtype: str) -> None:
    """A sequence model's output must not depend on how long the sequences are (it would on
    the first batch of another length): two probe lengths must give one output shape."""
    shapes = []
    for steps in (3, 5):
        x = np.zeros((2, steps, *input_shape),
                     dtype=np.int64 if vocab_size or input_dtype[0] in "iu" else np.float32)
        with core.no_grad():
            model.eval()
            try:
                shapes.append(model((core.to_tensor(x), np.full(2, steps))).shape)
            except Exception as exc:  # noqa: BLE001 - a layer sized for one length fails here
                shapes.append(" ".join(str(exc).split()))
            finally:
                model.train()
    if shapes[0] != shapes[1]:
        raise ConfigError(f"the network's output shape depends on the sequence length (for 3 "
                          f"steps: {shapes[0]}; for 5 steps: {shapes[1]}): variable-length data "
                          "needs a layer that reduces the time axis, such as a GRU, LSTM or "
                          "SimpleRNN followed by SequencePool (pool_type = \"last\").")


def _probe(model, name: str, input_shape, num_classes: int, vocab_size: int,
           variable_length: bool, input_dtype: str) -> None:
    """One forward pass on two samples of zeros shaped like the data, before any run opens: a
    model that cannot take the data fails here, with a paragraph, instead of in its first
    training step (with a traceback and a failed MLflow run)."""
    dtype = np.int64 if vocab_size or input_dtype[0] in "iu" else np.float32
    if variable_length:
        sample = (core.to_tensor(np.zeros((2, 3, *input_shape), dtype)), np.full(2, 3))
    else:
        sample = core.to_tensor(np.zeros((2, *input_shape), dtype))
    model.eval()
    try:
        with core.no_grad():
            out = model(sample)
    except Exception as exc:  # noqa: BLE001 - any failure means the model does not fit the data
        what = sequence_models.describe(input_shape, variable_length)
        raise ConfigError(f"model={name} cannot take this data: the data gives {what} "
                          f"({np.dtype(dtype).name}), and the model's forward pass on two such "
                          f"samples failed: {' '.join(str(exc).split())}") from None
    finally:
        model.train()
    _check_scores(out, name, num_classes)


def _check_scores(out, name: str, num_classes: int) -> None:
    """The loss reads the forward's result as [batch, classes] scores: anything else (an array,
    a tuple, another width) failed in the first training step, inside an open MLflow run."""
    if not isinstance(out, core.Tensor):
        raise ConfigError(f"model={name}'s forward returned {type(out).__name__}, not a Tensor: "
                          f"the training loss takes one Tensor of scores [batch, {num_classes}] "
                          "(wrap an array with core.to_tensor, or compute with core's ops so "
                          "that gradients flow).")
    if tuple(out.shape) != (2, num_classes):
        raise ConfigError(f"model={name}'s forward gave shape {list(out.shape)} for a batch of 2 "
                          f"samples, but the loss takes one score per class: [2, {num_classes}] "
                          f"(the data has {num_classes} classes).")


def _plugin(cfg: schema.PluginModelConfig, input_shape, num_classes: int, vocab_size: int,
            variable_length: bool, input_dtype: str) -> nn.Layer:
    del variable_length, input_dtype
    builder = plugins.get("model", cfg.name)
    options = dict(cfg.options)
    if "vocab_size" in inspect.signature(builder).parameters:
        options["vocab_size"] = vocab_size
    model = plugins.call("model", cfg.name, tuple(input_shape), num_classes, **options)
    if not isinstance(model, nn.Layer):
        source = plugins.REGISTRIES["model"].source(cfg.name)
        raise ConfigError(f"the plugin model '{cfg.name}' ({source}) returned "
                          f"{type(model).__name__}, not a core.nn.Layer.")
    return model


def _sequence(cfg, input_shape, num_classes: int, vocab_size: int, variable_length: bool,
              input_dtype: str) -> nn.Layer:
    del input_dtype
    return sequence_models.MODELS[cfg.name](cfg, tuple(input_shape), num_classes, vocab_size,
                                            variable_length)


MODELS = {name: _sequence for name in sequence_models.MODELS}  # cbow, gru, lstm


def build_model(cfg: schema.ModelConfig, input_shape, num_classes: int, vocab_size: int = 0,
                variable_length: bool = False, input_dtype: str = "float32") -> nn.Layer:
    """The model of ``cfg`` for samples of ``input_shape``, its parameters named, error clips
    and frozen layers applied."""
    if isinstance(cfg, schema.SpecConfig):
        builder = _spec
    elif isinstance(cfg, schema.PluginModelConfig):
        builder = _plugin
    elif cfg.name in MODELS:
        builder = MODELS[cfg.name]
    else:
        raise ConfigError(f"model '{cfg.name}' is not known: choose one of "
                          f"{', '.join(sorted(MODELS))}, write the network as a spec (a layers "
                          "table, docs/models.md) or register a plugin model (runner.plugins).")
    model = builder(cfg, tuple(input_shape), num_classes, vocab_size, variable_length,
                    input_dtype)
    if builder is not _spec:  # a spec is probed as it is built (runner.build.spec)
        _probe(model, cfg.name, tuple(input_shape), num_classes, vocab_size, variable_length,
               input_dtype)
    # Optimizer state and checkpoints are keyed by parameter name: structural names
    # (``conv1.weight``) are the same in every process, unlike the automatic ``linear_3.w_0``
    # (Paddle's generated names count every layer the process built before).
    for name, param in model.named_parameters():
        param.name = name
    apply_error_clips(model, getattr(cfg, "error_clip", {}))
    freeze(model, cfg.freeze)
    return model


def check_model_config(cfg: schema.ModelConfig) -> None:
    """What can be checked of a model before its data is read: a spec's types, arguments,
    blocks and inputs (raises ConfigError)."""
    if isinstance(cfg, schema.SpecConfig):
        spec.parse(cfg)


def freeze(model: nn.Layer, names) -> None:
    """``model.freeze``: the named layers' parameters get no gradient, no update and no
    optimizer state (``stop_gradient`` and ``trainable=False``, Paddle's way)."""
    layers = dict(model.named_sublayers())
    for name in names:
        if name not in layers:
            raise ConfigError(f"model.freeze names '{name}', which is not a layer of this model: "
                              f"the layers are {', '.join(layers)}.")
        for param in layers[name].parameters():
            param.stop_gradient, param.trainable = True, False
    if names and all(param.stop_gradient for param in model.parameters()):
        raise ConfigError(f"model.freeze = {list(names)} freezes every parameter of the model: "
                          "leave at least one layer with parameters to train.")
