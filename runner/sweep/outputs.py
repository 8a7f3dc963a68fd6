"""A folder of its own for every run and sweep, also for those started in the same second.

Hydra names a run's folder ``outputs/<day>/<H-M-S>`` (a sweep's ``multirun/<day>/<H-M-S>``) and
creates it with ``exist_ok``: two commands started within one second (a shell loop with ``&``,
two terminals, a scheduler) shared one folder, where the second overwrote the first one's
model, log and checkpoints, and two sweeps mixed their jobs' records and parent runs. A folder
named after the time (``${now:...}``) is meant to be one command's, so the callback claims it
before Hydra uses it: the first free one of ``NAME``, ``NAME-1``, ``NAME-2`` ... made with an
atomic ``mkdir``. A folder named without the time (``hydra.run.dir=my_run``) is used as given:
sharing it is then what the user asked for. So is the folder of a data-parallel run
(``trainer.distributed``), whose ranks mpirun starts together into one folder.
"""
from __future__ import annotations

import os

from omegaconf import DictConfig, OmegaConf, open_dict, read_write

RUN_DIR = "hydra.run.dir"
SWEEP_DIR = "hydra.sweep.dir"
_MAX_TRIES = 10_000  # folders of one name: far more commands than one second can start


def claim(config: DictConfig, key: str) -> str | None:
    """Claim a fresh folder for the time-named folder ``key`` (``hydra.run.dir`` or
    ``hydra.sweep.dir``) and write it into ``config``; returns it (None: not time-named, left
    as it is)."""
    parent, name = key.rsplit(".", 1)
    node = OmegaConf.select(config, parent)
    template = OmegaConf.to_container(node, resolve=False).get(name) if node else None
    if not isinstance(template, str) or "${now:" not in template:
        return None
    folder = fresh_folder(str(OmegaConf.select(config, key)))
    with read_write(node), open_dict(node):
        node[name] = folder
    return folder


def fresh_folder(path: str) -> str:
    """``path``, or ``path-N`` for the smallest N whose folder does not exist yet, created
    here (``mkdir`` fails when another process made it first, so no two callers get one)."""
    parent = os.path.dirname(path)
    if parent:
        os.makedirs(parent, exist_ok=True)
    for index in range(_MAX_TRIES):
        candidate = path if index == 0 else f"{path}-{index}"
        try:
            os.mkdir(candidate)
        except FileExistsError:
            continue
        return candidate
    raise FileExistsError(f"{path}: {_MAX_TRIES} folders of this name exist already")


def pin_for_jobs(config: DictConfig, key: str, folder: str) -> None:
    """Make ``key = folder`` a Hydra override of ``config``: a sweep's launcher composes every
    job's config again from those overrides, and a job finds its sweep by that folder."""
    overrides = config.hydra.overrides
    quoted = "'" + folder.replace("\\", "\\\\").replace("'", "\\'") + "'"
    with read_write(overrides), open_dict(overrides):
        overrides.hydra.append(f"{key}={quoted}")
