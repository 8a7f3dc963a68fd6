"""Typed schemas for every config group: what a composed config may contain.

Each group option (``optim=adam``, ``model=cnn`` ...) has its own dataclass, chosen by the
``name`` key of the group. ``runner.config.validation.validate`` turns a composed Hydra config
into a ``RunConfig`` of these dataclasses and refuses unknown keys, wrong types and out-of-range
values with a one-paragraph error. Ranges live in ``runner.config.validation.RULES``, keyed by
the dotted name, so that the message can name the key.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any


@dataclass
class ModelConfig:
    name: str
    freeze: list[str] = field(default_factory=list)  # layers whose parameters are not trained
    error_clip: dict[str, float] = field(default_factory=dict)  # layer name -> error clip


@dataclass
class SpecConfig(ModelConfig):
    """A network written in TOML (docs/models.md): named ``layers`` of ``core.nn`` types (or
    ``block`` copies), reusable ``blocks``, the ``output`` layer (default: the one nothing else
    consumes) and the option's own settings (``knobs``: any other key, e.g. ``hidden``), which
    layers reference as ``${model.hidden}``. A model option with a ``layers`` table is a spec."""

    name: str = "spec"
    layers: dict[str, Any] = field(default_factory=dict, metadata={"flatten": "nested"})
    blocks: dict[str, Any] = field(default_factory=dict, metadata={"flatten": "nested"})
    output: str = ""
    knobs: dict[str, Any] = field(default_factory=dict, metadata={"flatten": "inline"})


@dataclass
class PluginModelConfig(ModelConfig):
    """A model built by a registered Python builder (``runner.plugins.model``): its other keys
    are the builder's keyword arguments."""

    options: dict[str, Any] = field(default_factory=dict, metadata={"flatten": "inline"})


@dataclass
class CBOWConfig(ModelConfig):
    """word2vec's CBOW (the PaddlePaddle FAQ): context embeddings summed, softmax over words."""

    name: str = "cbow"
    embedding_dim: int = 256
    sparse_update: bool = True  # row-sparse embedding gradients, lazy optimizer updates
    pooling: str = "sum"  # sum | mean: how the context's embeddings are combined


@dataclass
class RNNConfig(ModelConfig):
    """A GRU or LSTM sequence classifier (name gru | lstm) over padded batches."""

    name: str = "gru"
    hidden_size: int = 64
    num_layers: int = 1
    direction: str = "forward"  # forward | bidirect (= bidirectional): a second, reversed RNN
    pooling: str = "last"  # last | mean | max | sum: outputs to one vector per sequence
    dropout: float = 0.0  # between recurrent layers and before the classifier
    embedding_dim: int = 64  # used when the data are word ids
    sparse_update: bool = False  # row-sparse embedding gradients (word-id data only)


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
class NAdamConfig(AdamConfig):
    name: str = "nadam"
    lr: float = 0.002
    momentum_decay: float = 0.004


@dataclass
class RAdamConfig(AdamConfig):
    name: str = "radam"


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
    """Clipping (core/clipping.py): ``none`` clips no gradient; ``error`` only clips errors."""

    name: str = "none"  # none | value | norm | global_norm | error
    error_clip: float = 0.0  # clip the gradient at every layer's output to [-t, t]; 0 = off


@dataclass
class GradClipConfig(ClipConfig):
    """``value``: elements to [-t, t]; ``norm``: each gradient's L2 norm <= t; ``global_norm``:
    the L2 norm of all gradients together <= t."""

    name: str = "global_norm"
    threshold: float = 1.0
    params: dict[str, float] = field(default_factory=dict)  # own thresholds by name pattern


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
    # The data path (core.data, docs/data.md): PaddlePaddle's @provider pool, cache and threads.
    pool_size: int = -1  # samples held to shuffle from; -1: the whole set, 0: stream order
    min_pool_size: int = -1  # samples read before the first batch; -1: pool_size
    shuffle_files: bool = False  # shuffle the order of files (shards) every pass
    cache: str = "none"  # none | memory: keep the first pass's decoded samples
    prefetch: int = 0  # batches a background thread prepares ahead (0: none)
    workers: int = 0  # worker processes that decode samples (0: the main process)


@dataclass
class FilesConfig(DataConfig):
    """Samples from a reader over files (Paddle's ``process(settings, filename)``)."""

    name: str = "files"
    files: list[str] = field(default_factory=lambda: ["train/*"])  # globs under root
    valid_files: list[str] = field(default_factory=list)  # none: no validation set
    test_files: list[str] = field(default_factory=lambda: ["test/*"])
    reader: str = "csv"  # a registered reader name, or "module:function"
    num_classes: int = 0  # 0: count the training labels


@dataclass
class TextConfig(DataConfig):
    """CBOW (context, word) samples from a folder of plain-text files (word2vec)."""

    name: str = "text"
    dict_size: int = 3000  # the most frequent words; the rest become <unk>
    window: int = 2  # words taken before and after the target
    valid_size: float = 0.05  # fraction of each file (by position) for validation
    test_size: float = 0.05  # fraction of each file's end for the test set


@dataclass
class SequenceDataConfig(DataConfig):
    """Variable-length labelled sequences (Japanese Vowels), padded per batch with lengths."""

    name: str = "vowels"
    max_len: int = 0  # longest sequence kept as it is; 0: no limit
    long_seq: str = "truncate"  # truncate | drop: what happens to longer sequences
    sort_by_length: bool = False  # batch similar lengths together (less padding)


@dataclass
class PluginDataConfig(DataConfig):
    """Data from a registered Python builder (``runner.plugins.dataset``): keys other than the
    common data keys are the builder's keyword arguments."""

    options: dict[str, Any] = field(default_factory=dict, metadata={"flatten": "inline"})


@dataclass
class ArraysConfig(DataConfig):
    """Arrays from .npz files (or .npy pairs): x of any per-sample shape, integer labels y."""

    name: str = "arrays"
    train: str = "train.npz"  # .npz holding x_key and y_key (relative to root)
    valid: str = ""  # "": valid_size of the training samples
    test: str = ""  # "": test_size of the training samples
    x_key: str = "x"
    y_key: str = "y"
    x_file: str = ""  # .npy pair used instead of train when set
    y_file: str = ""
    valid_x_file: str = ""  # .npy pair used instead of valid when set
    valid_y_file: str = ""
    test_x_file: str = ""  # .npy pair used instead of test when set
    test_y_file: str = ""
    test_size: float = 0.2  # a fraction (< 1) or a count (>= 1) when there is no test file
    num_classes: int = 0  # 0: one more than the largest training label
    normalize: bool = False  # unused: arrays are taken as they are (float32)


@dataclass
class CSVConfig(DataConfig):
    """A CSV table with a header: numeric and categorical feature columns and a label column."""

    name: str = "csv"
    train: str = "train.csv"  # relative to root
    valid: str = ""  # "": valid_size of the training rows
    test: str = ""  # "": test_size of the training rows
    label: str = "label"  # the label column: integer ids or class names (sorted -> ids)
    features: list[str] = field(default_factory=list)  # []: every column but the label
    categorical: list[str] = field(default_factory=list)  # one-hot encoded columns
    unknown_category: str = "error"  # error | zeros: a category not seen in training
    standardize: bool = True  # numeric columns: (x - mean) / std learnt on the training rows
    delimiter: str = ","
    test_size: float = 0.2  # a fraction (< 1) or a count (>= 1) when there is no test file
    num_classes: int = 0  # 0: the number of class names, or one more than the largest id
    normalize: bool = False  # unused: see standardize


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
    checkpoint_every: int = 0  # resumable checkpoint every N steps and at epoch ends; 0 = never
    keep_last: int = 3  # resumable checkpoints kept (older ones are deleted)
    resume: bool | str = False  # true (latest run of this name), an MLflow run id, or a path
    profile: bool = False  # per-layer forward/backward time table at the end (an artifact)
    nan_check: str = "stop"  # stop | skip | warn | off: what a NaN/Inf loss, grad or param does
    max_skips: int = 10  # nan_check=skip: updates dropped before training stops anyway
    nan_check_locate: bool = False  # on a NaN/Inf, replay the batch to name the layer
    distributed: bool = False  # data parallel under mpirun (runner/train/distributed.py)
    accumulate: int = 1  # batches whose gradients are summed into one optimizer step
    # The monitored metric is ``objective`` (runner/train/monitor.py, docs/checkpoints.md).
    objective_direction: str = "auto"  # maximize | minimize | auto (loss metrics: minimize)
    early_stop: int = 0  # validation passes without improvement before stopping; 0 = off
    early_stop_delta: float = 0.0  # the least change that counts as an improvement
    keep_best: bool = False  # keep the weights of the best validation pass (best.pdparams)
    test_on: str = "last"  # last | best: the weights the final test evaluation uses
    # Mixed precision (runner/train/amp.py, docs/checkpoints.md "Mixed precision"): core.amp.
    amp: str = "off"  # off | O1 (white-listed ops in float16) | O2 (float16 weights + masters)
    loss_scale: float = 65536.0  # GradScaler's init_loss_scaling (amp only)
    loss_scale_dynamic: bool = True  # halve the scale on overflow, double it after 2000 good


@dataclass
class RuntimeConfig:
    threads: int = 0  # CPU threads (PaddlePaddle's trainer_count); 0: every core available
    gpu_memory_limit: int = 0  # MiB cupy's memory pool may hold on the GPU; 0 = no cap


@dataclass
class TrackingConfig:
    enabled: bool = True
    uri: str = ""  # "" means sqlite:///<launch folder>/mlflow.db
    experiment: str = "tomlrun"
    run_name: str = ""  # "" lets the runner name the run from the overrides
    system_metrics: bool = True  # MLflow's CPU/memory/GPU sampler (system/* metrics)
    register_as: str = ""  # register the run's model as a new version of this model name


@dataclass
class SweepConfig:
    """What a sweep optimises: the metric the task function returns and its direction."""

    objective: str = ""  # a metric name (valid/acc ...); "" means trainer.objective
    # maximize | minimize: how the best job is chosen; conf/config.toml's default follows the
    # objective (${tomlrun_direction:...}, runner.config.resolvers: a loss is minimized)
    direction: str = "maximize"
    register_best: str = ""  # register the best job's model under this name when a sweep ends


@dataclass
class InspectConfig:
    """Config-driven inspection (runner/train/inspection.py): statistics logged to MLflow."""

    every: int = 0  # steps between inspections; 0 = off
    layer_outputs: list[str] = field(default_factory=list)  # layers (dotted names) to watch
    param_stats: bool = False  # per-parameter mean, std, min, max, l2, zero fraction
    grad_stats: bool = False  # the same for the gradients (taken before the update)


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
    inspect: InspectConfig = field(default_factory=InspectConfig)  # layer/param/grad statistics
    sweep: SweepConfig = field(default_factory=SweepConfig)  # multirun objective and direction
    plugins: list[str] = field(default_factory=list)  # modules registering models, layers, data


# The option classes of each group, by the group's ``name`` key.
# A model option with a ``layers`` table is a SpecConfig whatever its name (cnn and mlp are spec
# files); a registered plugin model is a PluginModelConfig.
MODEL_SCHEMAS = {"cbow": CBOWConfig, "gru": RNNConfig, "lstm": RNNConfig}
OPTIM_SCHEMAS = {
    "sgd": SGDConfig,
    "momentum": MomentumConfig,
    "adam": AdamConfig,
    "adamw": AdamWConfig,
    "nadam": NAdamConfig,
    "radam": RAdamConfig,
    "adagrad": AdagradConfig,
    "adadelta": AdadeltaConfig,
    "rmsprop": RMSPropConfig,
}

# Groups whose options share one class: the valid values of their ``name`` key.
SCHEDULE_SCHEMAS = {"constant": ScheduleConfig, "step": ScheduleConfig, "cosine": ScheduleConfig}
CLIP_SCHEMAS = {"none": ClipConfig, "value": GradClipConfig, "norm": GradClipConfig,
                "global_norm": GradClipConfig, "error": ClipConfig}
DATA_SCHEMAS = {"digits": DataConfig, "mnist": DataConfig, "fashion_mnist": DataConfig,
                "files": FilesConfig, "text": TextConfig, "vowels": SequenceDataConfig,
                "arrays": ArraysConfig, "csv": CSVConfig}


def to_table(value: Any) -> Any:
    """A config as the plain table a TOML file would hold: dataclasses as dicts, with inline
    fields (a spec's knobs, a plugin's options) spread into their parent, so that the table
    validates back to the same config."""
    if is_dataclass(value):
        table: dict[str, Any] = {}
        for item in fields(value):
            inner = to_table(getattr(value, item.name))
            if item.metadata.get("flatten") == "inline":
                table.update(inner)
            else:
                table[item.name] = inner
        return table
    if isinstance(value, dict):
        return {key: to_table(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_table(item) for item in value]
    return value

