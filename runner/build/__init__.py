"""Config -> objects: the one place where a validated ``RunConfig`` becomes datasets, loaders, a
model, an optimizer, a schedule and clips, through name -> builder registries.

May import ``core`` and ``runner.config``; never the training loop, tracking or sweeps.
"""
from runner.build.data import DATASETS, SPLIT_SEED, DataSplits, build_data, build_loaders
from runner.build.models import MODELS, build_model, check_model_config, freeze
from runner.build.optim import (
                                CLIPS,
                                OPTIMIZERS,
                                REGULARIZERS,
                                SCHEDULES,
                                apply_error_clips,
                                build_clip,
                                build_optimizer,
                                build_schedule,
)

__all__ = ["CLIPS", "DATASETS", "MODELS", "OPTIMIZERS", "REGULARIZERS", "SCHEDULES",
           "SPLIT_SEED", "DataSplits", "apply_error_clips", "build_clip", "build_data",
           "build_loaders", "build_model", "build_optimizer", "build_schedule",
           "check_model_config", "freeze"]
