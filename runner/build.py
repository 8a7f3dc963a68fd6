"""The one place where a validated config becomes objects, through name -> builder registries.

Each registry maps the ``name`` of a config group option to a function that takes that option's
dataclass (see ``runner.schema``) plus what the config cannot know (input shape, parameters,
steps per epoch) and returns the object. Adding a model, optimizer, schedule or dataset is one
function and one registry entry. ``runner.config.validate`` normally refuses unknown names first;
the registries refuse them again so that a programmatic caller gets the same clear message.
"""
from __future__ import annotations

import fnmatch
import logging
import math
from dataclasses import dataclass

from core import datasets, io, nn, optimizer, regularizer
from core import device as core_device
from runner import schema, sequence_data, sequence_models
from runner.errors import ConfigError, UserError

log = logging.getLogger(__name__)


def _lookup(registry: dict, name: str, what: str):
    try:
        return registry[name]
    except KeyError:
        raise ConfigError(f"{what} '{name}' is not known: choose one of "
                          f"{', '.join(sorted(registry))}.") from None


# ----- data -----------------------------------------------------------------------------------

@dataclass
class DataSplits:
    """The datasets of one run and the facts the model needs from them."""

    train: object
    valid: object | None  # None when data.valid_size is 0
    test: object
    input_shape: tuple[int, ...]  # one sample, without the batch axis: (1, 28, 28) for MNIST
    num_classes: int
    vocab_size: int = 0  # > 0 when the inputs are word ids (data=text)
    variable_length: bool = False  # batches are (padded, lengths, labels) (data=vowels)


def _digits(cfg: schema.DataConfig, seed: int) -> dict:
    def make(split):
        return datasets.Digits(split=split, valid_size=cfg.valid_size, seed=seed,
                               normalize=cfg.normalize)

    return {split: make(split) for split in _splits(cfg)}


def _idx_dataset(class_name: str):
    """A builder for an IDX dataset (MNIST and Fashion-MNIST share the format and arguments)."""

    def build(cfg: schema.DataConfig, seed: int) -> dict:
        del seed  # IDX sets hold out the end of the training file: the split needs no seed
        cls = getattr(datasets, class_name)
        return {split: cls(root=cfg.root or None, split=split, valid_size=cfg.valid_size,
                           normalize=cfg.normalize, download=cfg.download,
                           cache_dir=cfg.cache_dir or None)
                for split in _splits(cfg)}

    build.__name__ = f"_{class_name.lower()}"
    return build


def _splits(cfg: schema.DataConfig) -> tuple[str, ...]:
    return ("train", "valid", "test") if cfg.valid_size > 0 else ("train", "test")


DATASETS = {
    "digits": _digits,
    "mnist": _idx_dataset("MNIST"),
    "fashion_mnist": _idx_dataset("FashionMNIST"),
    **sequence_data.DATASETS,  # files, text, vowels
}


def build_data(cfg: schema.DataConfig, seed: int) -> DataSplits:
    """The train/valid/test datasets of ``cfg``; a missing or broken file is a UserError."""
    builder = _lookup(DATASETS, cfg.name, "data")
    try:
        sets = builder(cfg, seed)
    except datasets.DatasetError as exc:  # a missing or damaged file: the user can fix it
        raise UserError(f"data={cfg.name}: {exc}") from exc
    except ValueError as exc:  # sizes the dataset refuses (valid_size too large, ...)
        raise ConfigError(f"data={cfg.name}: {exc}") from exc
    train = sets["train"]
    shape, vocab_size, variable = sequence_data.facts(train)  # the first sample's shape, ...
    return DataSplits(train=train, valid=sets.get("valid"), test=sets["test"],
                      input_shape=shape, num_classes=int(train.num_classes),
                      vocab_size=vocab_size, variable_length=variable)


def build_loaders(data: DataSplits, cfg: schema.DataConfig, trainer: schema.TrainerConfig):
    """(train, valid or None, test) loaders; only training shuffles and drops the last batch.

    Batches are Tensors on the current device (selected before building); with data.prefetch
    the prefetch thread uploads them (on a GPU: pinned memory, its own stream)."""
    device = core_device.get_device()

    def plain(dataset):
        if dataset is None:
            return None
        return io.DataLoader(dataset, batch_size=trainer.batch_size, device=device,
                             **sequence_data.loader_options(cfg, dataset, train=False))

    train = io.DataLoader(data.train, batch_size=trainer.batch_size, shuffle=cfg.shuffle,
                          drop_last=cfg.drop_last, seed=trainer.seed, device=device,
                          **sequence_data.loader_options(cfg, data.train, train=True))
    if len(train) == 0:
        raise ConfigError(f"trainer.batch_size={trainer.batch_size} with data.drop_last=true "
                          f"leaves no batch of the {len(data.train)} training samples: use a "
                          "smaller batch size or data.drop_last=false.")
    return train, plain(data.valid), plain(data.test)


# ----- models ---------------------------------------------------------------------------------

ACTIVATIONS = {"relu": nn.ReLU, "sigmoid": nn.Sigmoid, "tanh": nn.Tanh}


def _cnn(cfg: schema.CNNConfig, input_shape: tuple[int, ...], num_classes: int) -> nn.Layer:
    """The tutorial's network: per stage conv (k x k, same padding) -> activation -> max-pool."""
    if len(input_shape) != 3:
        raise ConfigError(f"model=cnn needs images (channels, height, width); the data gives "
                          f"samples of shape {list(input_shape)}: use model=mlp.")
    activation = _lookup(ACTIVATIONS, cfg.activation, "model.activation")
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
    activation = _lookup(ACTIVATIONS, cfg.activation, "model.activation")
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
    builder = _lookup(MODELS, cfg.name, "model")
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


# ----- learning-rate schedules ----------------------------------------------------------------

def _steps(epochs: float, steps_per_epoch: int) -> int:
    return int(round(epochs * steps_per_epoch))


def _constant(cfg: schema.ScheduleConfig, lr: float, total_steps: int, steps_per_epoch: int):
    del cfg, total_steps, steps_per_epoch
    return lr


def _step(cfg: schema.ScheduleConfig, lr: float, total_steps: int, steps_per_epoch: int):
    del total_steps
    return optimizer.lr.StepDecay(lr, step_size=max(1, _steps(cfg.step_epochs, steps_per_epoch)),
                                  gamma=cfg.gamma)


def _cosine(cfg: schema.ScheduleConfig, lr: float, total_steps: int, steps_per_epoch: int):
    # The cosine spans what the warm-up leaves, so it reaches min_lr on the last batch.
    warmup = _steps(cfg.warmup_epochs, steps_per_epoch)
    return optimizer.lr.CosineAnnealingDecay(lr, T_max=max(1, total_steps - warmup),
                                             eta_min=cfg.min_lr)


SCHEDULES = {"constant": _constant, "step": _step, "cosine": _cosine}


def build_schedule(cfg: schema.ScheduleConfig, lr: float, epochs: int, steps_per_epoch: int):
    """A float (constant rate) or a scheduler stepped once per batch, warm-up included."""
    schedule = _lookup(SCHEDULES, cfg.name, "schedule")(cfg, lr, epochs * steps_per_epoch,
                                                         steps_per_epoch)
    warmup = _steps(cfg.warmup_epochs, steps_per_epoch)
    if warmup >= epochs * steps_per_epoch > 0:
        log.warning("schedule.warmup_epochs = %s covers the whole run (%d epochs): the learning "
                    "rate never reaches optim.lr", cfg.warmup_epochs, epochs)
    if warmup > 0:
        schedule = optimizer.lr.LinearWarmup(schedule, warmup_steps=warmup, start_lr=0.0,
                                             end_lr=lr)
    return schedule


# ----- optimizers -----------------------------------------------------------------------------

REGULARIZERS = {"l2": regularizer.L2Decay, "l1": regularizer.L1Decay}


def _decay(cfg: schema.OptimConfig):
    """Coupled weight decay as Paddle takes it: a regularizer object, or None for no decay."""
    make = _lookup(REGULARIZERS, cfg.regularizer, "optim.regularizer")
    return make(cfg.weight_decay) if cfg.weight_decay > 0 else None


# Each builder maps a schema's field names to the constructor's (the rest is common).
def _sgd(cfg):
    return optimizer.SGD, {"weight_decay": _decay(cfg)}


def _momentum(cfg):
    return optimizer.Momentum, {"momentum": cfg.momentum, "use_nesterov": cfg.nesterov,
                                "weight_decay": _decay(cfg)}


def _adam(cfg):
    return optimizer.Adam, {"beta1": cfg.beta1, "beta2": cfg.beta2, "epsilon": cfg.epsilon,
                            "weight_decay": _decay(cfg)}


def _adamw(cfg):
    # AdamW decays the weights directly (decoupled), so weight_decay is a plain coefficient.
    return optimizer.AdamW, {"beta1": cfg.beta1, "beta2": cfg.beta2, "epsilon": cfg.epsilon,
                             "weight_decay": cfg.weight_decay}


def _adagrad(cfg):
    return optimizer.Adagrad, {"epsilon": cfg.epsilon, "weight_decay": _decay(cfg),
                               "initial_accumulator_value": cfg.initial_accumulator_value}


def _adadelta(cfg):
    return optimizer.Adadelta, {"epsilon": cfg.epsilon, "rho": cfg.rho,
                                "weight_decay": _decay(cfg)}


def _rmsprop(cfg):
    return optimizer.RMSProp, {"rho": cfg.rho, "epsilon": cfg.epsilon, "momentum": cfg.momentum,
                               "centered": cfg.centered, "weight_decay": _decay(cfg)}


OPTIMIZERS = {"sgd": _sgd, "momentum": _momentum, "adam": _adam, "adamw": _adamw,
              "adagrad": _adagrad, "adadelta": _adadelta, "rmsprop": _rmsprop}


def build_optimizer(cfg: schema.OptimConfig, parameters, learning_rate, grad_clip=None):
    """The optimizer of ``cfg`` over ``parameters``; ``learning_rate`` is a float or scheduler."""
    cls, kwargs = _lookup(OPTIMIZERS, cfg.name, "optim")(cfg)
    return cls(learning_rate=learning_rate, parameters=list(parameters), grad_clip=grad_clip,
               **kwargs)


# ----- gradient clipping ----------------------------------------------------------------------

CLIPS = {"none": None, "error": None, "value": nn.ClipGradByValue, "norm": nn.ClipGradByNorm,
         "global_norm": nn.ClipGradByGlobalNorm}


def build_clip(cfg: schema.ClipConfig, model: nn.Layer | None = None):
    """The optimizer's ``grad_clip`` for ``cfg`` (None for ``none`` and ``error``).

    With ``model``, ``clip.params`` patterns must each match a parameter name, and
    ``clip.error_clip`` is set on every computing layer without a threshold of its own.
    """
    cls = _lookup(CLIPS, cfg.name, "clip")
    if model is not None:
        names = [name for name, _ in model.named_parameters()]
        for pattern in getattr(cfg, "params", {}):
            if not any(fnmatch.fnmatchcase(name, pattern) for name in names):
                raise ConfigError(f"clip.params.{pattern} matches no parameter of the model: "
                                  f"its parameters are {', '.join(names)}.")
        if cfg.error_clip > 0:
            for _, layer in model.named_sublayers(include_self=True):
                if not layer._sub_layers and layer.error_clip is None:
                    layer.error_clip = cfg.error_clip
    if cls is None:
        return None
    if not isinstance(cfg, schema.GradClipConfig):
        raise ConfigError(f"clip={cfg.name} needs a threshold: give it a GradClipConfig, not a "
                          f"{type(cfg).__name__}.")
    return cls(cfg.threshold, thresholds=dict(cfg.params))


def apply_error_clips(model: nn.Layer, table: dict[str, float]) -> None:
    """Set ``error_clip`` on the layers named in ``table`` (the model's [error_clip])."""
    layers = dict(model.named_sublayers())
    for name, threshold in table.items():
        if name not in layers:
            raise ConfigError(f"model.error_clip.{name}: the model has no layer '{name}'; its "
                              f"layers are {', '.join(layers)}.")
        layers[name].error_clip = threshold
