"""How a run learns: learning-rate schedules, optimizers and gradient/error clipping."""
from __future__ import annotations

import fnmatch
import logging

from core import nn, optimizer, regularizer
from runner.build.registry import lookup
from runner.config import schema
from runner.errors import ConfigError

log = logging.getLogger(__name__)

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
    schedule = lookup(SCHEDULES, cfg.name, "schedule")(cfg, lr, epochs * steps_per_epoch,
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
    make = lookup(REGULARIZERS, cfg.regularizer, "optim.regularizer")
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


def _nadam(cfg):
    return optimizer.NAdam, {"beta1": cfg.beta1, "beta2": cfg.beta2, "epsilon": cfg.epsilon,
                             "momentum_decay": cfg.momentum_decay, "weight_decay": _decay(cfg)}


def _radam(cfg):
    return optimizer.RAdam, {"beta1": cfg.beta1, "beta2": cfg.beta2, "epsilon": cfg.epsilon,
                             "weight_decay": _decay(cfg)}


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
              "nadam": _nadam, "radam": _radam,
              "adagrad": _adagrad, "adadelta": _adadelta, "rmsprop": _rmsprop}


def build_optimizer(cfg: schema.OptimConfig, parameters, learning_rate, grad_clip=None):
    """The optimizer of ``cfg`` over ``parameters``; ``learning_rate`` is a float or scheduler."""
    cls, kwargs = lookup(OPTIMIZERS, cfg.name, "optim")(cfg)
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
    cls = lookup(CLIPS, cfg.name, "clip")
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
