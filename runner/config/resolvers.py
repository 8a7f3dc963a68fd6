"""tomlrun's OmegaConf resolvers, registered when ``runner.config`` is imported.

``${tomlrun_direction:METRIC}`` is the direction in which ``METRIC`` improves: a loss
(``valid/loss``, ``train/loss``: the last part of the name is ``loss``) is minimized, anything
else (``valid/acc``) maximized. ``conf/config.toml`` makes it ``sweep.direction``'s default, so a
sweep whose objective is a loss picks the lowest loss as its best job without being told; a
resolver rather than an ``auto`` value because Hydra's sweepers (tomlrun's Optuna sweeper reads
``${sweep.direction}``) take ``maximize`` or ``minimize`` only. ``trainer.objective_direction =
"auto"`` (runner.train.monitor) and ``python -m runner.compare --objective`` use the same rule.
"""
from __future__ import annotations

from omegaconf import OmegaConf

DIRECTION_RESOLVER = "tomlrun_direction"


def auto_direction(metric: str) -> str:
    """``minimize`` for a loss (``*/loss``), ``maximize`` for any other metric."""
    return "minimize" if str(metric).rsplit("/", 1)[-1] == "loss" else "maximize"


def register() -> None:
    """Make the resolvers known to OmegaConf; registering again changes nothing."""
    if not OmegaConf.has_resolver(DIRECTION_RESOLVER):
        OmegaConf.register_new_resolver(DIRECTION_RESOLVER, auto_direction)
