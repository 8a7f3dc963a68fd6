"""The model of a run: the ``model`` group's builders, then names, error clips and freezing."""
from __future__ import annotations

import math

from core import nn
from runner.build import sequence_models
from runner.build.optim import apply_error_clips
from runner.build.registry import lookup
from runner.config import schema
from runner.errors import ConfigError

ACTIVATIONS = {"relu": nn.ReLU, "sigmoid": nn.Sigmoid, "tanh": nn.Tanh}


def _cnn(cfg: schema.CNNConfig, input_shape: tuple[int, ...], num_classes: int) -> nn.Layer:
    """The tutorial's network: per stage conv (k x k, same padding) -> activation -> max-pool."""
    if len(input_shape) != 3:
        raise ConfigError(f"model=cnn needs images (channels, height, width); the data gives "
                          f"samples of shape {list(input_shape)}: use model=mlp.")
    activation = lookup(ACTIVATIONS, cfg.activation, "model.activation")
    channels, height, width = input_shape
    k, pad, pool = cfg.kernel_size, cfg.kernel_size // 2, cfg.pool
    layers = []
    for stage, out_channels in enumerate(cfg.channels, start=1):
        layers.append((f"conv{stage}", nn.Conv2D(channels, out_channels, k, stride=1,
                                                 padding=pad)))
        layers.append((f"act{stage}", activation()))
        layers.append((f"max_pool{stage}", nn.MaxPool2D(kernel_size=pool, stride=pool)))
        # Same padding keeps odd kernels' size (even kernels add one); pooling floors.
        height, width = (height + 2 * pad - k + 1) // pool, (width + 2 * pad - k + 1) // pool
        if height < 1 or width < 1:
            raise ConfigError(
                f"model.channels={list(cfg.channels)} with model.pool={pool} pools the "
                f"{input_shape[1]}x{input_shape[2]} input down to nothing at stage {stage}: "
                "use fewer stages or a smaller pool.")
        channels = out_channels
    layers.append(("flatten", nn.Flatten()))
    layers.append(("fc", nn.Linear(channels * height * width, num_classes)))
    return nn.Sequential(*layers)


def _mlp(cfg: schema.MLPConfig, input_shape: tuple[int, ...], num_classes: int) -> nn.Layer:
    """Flatten -> (linear -> activation [-> dropout]) per hidden size -> linear to classes."""
    activation = lookup(ACTIVATIONS, cfg.activation, "model.activation")
    features = math.prod(input_shape)
    layers = [("flatten", nn.Flatten())]
    for index, size in enumerate(cfg.hidden, start=1):
        layers.append((f"fc{index}", nn.Linear(features, size)))
        layers.append((f"act{index}", activation()))
        if cfg.dropout > 0:
            layers.append((f"dropout{index}", nn.Dropout(cfg.dropout)))
        features = size
    layers.append(("out", nn.Linear(features, num_classes)))
    return nn.Sequential(*layers)


MODELS = {"cnn": _cnn, "mlp": _mlp, **sequence_models.MODELS}  # + cbow, gru, lstm


def build_model(cfg: schema.ModelConfig, input_shape, num_classes: int, vocab_size: int = 0,
                variable_length: bool = False) -> nn.Layer:
    builder = lookup(MODELS, cfg.name, "model")
    if cfg.name in sequence_models.MODELS:  # these also need the vocabulary size
        model = builder(cfg, tuple(input_shape), num_classes, vocab_size)
    else:
        sequence_models.check_fixed_size(cfg.name, vocab_size, variable_length)
        model = builder(cfg, tuple(input_shape), num_classes)
    # Optimizer state and checkpoints are keyed by parameter name: structural names
    # (``conv1.weight``) are the same in every process, unlike the automatic ``param_N``.
    for name, param in model.named_parameters():
        param.name = name
    apply_error_clips(model, getattr(cfg, "error_clip", {}))
    freeze(model, cfg.freeze)
    return model


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
