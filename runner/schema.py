"""Typed schemas for every config group: what a composed config may contain.

Each group option (``optim=adam``, ``model=cnn`` ...) has its own dataclass, chosen by the
``name`` key of the group. ``runner.config.validate`` turns a composed Hydra config into a
``RunConfig`` of these dataclasses and refuses unknown keys, wrong types and out-of-range values
with a one-paragraph error. Ranges are checked in ``check()`` methods so that the message can name
the key.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class ModelConfig:
    name: str


@dataclass
class CNNConfig(ModelConfig):
    name: str = "cnn"
    channels: list[int] = field(default_factory=lambda: [20, 20])
    kernel_size: int = 5
    pool: int = 2
    activation: str = "relu"


@dataclass
class MLPConfig(ModelConfig):
    name: str = "mlp"
    hidden: list[int] = field(default_factory=lambda: [128, 64])
    activation: str = "relu"
    dropout: float = 0.0


@dataclass
class OptimConfig:
    name: str
    lr: float = 0.001
    weight_decay: float = 0.0
    regularizer: str = "l2"  # l2 | l1: how weight_decay is applied (AdamW decays decoupled)


@dataclass
class SGDConfig(OptimConfig):
    name: str = "sgd"
    lr: float = 0.1


@dataclass
class MomentumConfig(OptimConfig):
    name: str = "momentum"
    lr: float = 0.01
    momentum: float = 0.9
    nesterov: bool = False


@dataclass
class AdamConfig(OptimConfig):
    name: str = "adam"
    beta1: float = 0.9
    beta2: float = 0.999
    epsilon: float = 1e-8


@dataclass
class AdamWConfig(AdamConfig):
    name: str = "adamw"
    weight_decay: float = 0.01


@dataclass
class AdagradConfig(OptimConfig):
    name: str = "adagrad"
    lr: float = 0.01
    epsilon: float = 1e-6
    initial_accumulator_value: float = 0.0


@dataclass
class AdadeltaConfig(OptimConfig):
    name: str = "adadelta"
    lr: float = 1.0
    rho: float = 0.95
    epsilon: float = 1e-6


@dataclass
class RMSPropConfig(OptimConfig):
    name: str = "rmsprop"
    lr: float = 0.001
    rho: float = 0.95
    epsilon: float = 1e-6
    momentum: float = 0.0
    centered: bool = False


@dataclass
class ScheduleConfig:
    """Learning-rate schedule, stepped once per batch; sizes are given in epochs for people."""

    name: str = "constant"  # constant | step | cosine
    warmup_epochs: float = 0.0  # linear warm-up from 0 to lr over this many epochs
    step_epochs: float = 1.0  # step: multiply by gamma every step_epochs epochs
    gamma: float = 0.1
    min_lr: float = 0.0  # cosine: the floor at the end of training


@dataclass
class ClipConfig:
    name: str = "none"  # issue 2 ships "none"; value / norm / global_norm come with clipping


@dataclass
class DataConfig:
    name: str = "digits"  # digits | mnist | fashion_mnist
    root: str = ""  # folder holding the IDX files (mnist, fashion_mnist)
    download: bool = False  # fetch missing IDX files into cache_dir (md5-verified)
    cache_dir: str = ""  # "" means ~/.cache/tomlrun/<name>
    valid_size: float = 0.1  # a fraction (< 1) or a count (>= 1) of training samples held out
    normalize: bool = True  # scale pixels to [0, 1]
    shuffle: bool = True
    drop_last: bool = False


@dataclass
class TrainerConfig:
    epochs: int = 10
    batch_size: int = 64
    log_every: int = 20  # batches between log lines and metric points
    eval_every: int = 1  # epochs between validation passes
    seed: int = 0
    checkpoint: bool = True  # save the final checkpoint (and log it as an MLflow artifact)
    objective: str = "valid/acc"  # the metric returned to sweepers
    progress: bool = True  # a progress bar on stderr when it is a terminal


@dataclass
class RuntimeConfig:
    threads: int = 0  # BLAS threads (PaddlePaddle's trainer_count); 0 leaves the default


@dataclass
class TrackingConfig:
    enabled: bool = True
    uri: str = ""  # "" means sqlite:///<launch folder>/mlflow.db
    experiment: str = "tomlrun"
    run_name: str = ""  # "" lets the runner name the run from the overrides


@dataclass
class RunConfig:
    model: ModelConfig
    optim: OptimConfig
    schedule: ScheduleConfig
    clip: ClipConfig
    data: DataConfig
    trainer: TrainerConfig
    runtime: RuntimeConfig
    tracking: TrackingConfig
    device: str = "cpu"


# The option classes of each group, by the group's ``name`` key.
MODEL_SCHEMAS = {"cnn": CNNConfig, "mlp": MLPConfig}
OPTIM_SCHEMAS = {
    "sgd": SGDConfig,
    "momentum": MomentumConfig,
    "adam": AdamConfig,
    "adamw": AdamWConfig,
    "adagrad": AdagradConfig,
    "adadelta": AdadeltaConfig,
    "rmsprop": RMSPropConfig,
}

# Groups whose options share one class: the valid values of their ``name`` key.
SCHEDULE_SCHEMAS = {"constant": ScheduleConfig, "step": ScheduleConfig, "cosine": ScheduleConfig}
CLIP_SCHEMAS = {"none": ClipConfig}
DATA_SCHEMAS = {"digits": DataConfig, "mnist": DataConfig, "fashion_mnist": DataConfig}
