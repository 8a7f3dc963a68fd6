"""The monitored validation metric: its best value, early stopping and the best weights.

After every validation pass the Trainer hands the metrics to ``Monitor.update``. The watched
metric is ``trainer.objective`` (a ``valid/*`` metric), in the direction
``trainer.objective_direction`` (``auto``: a loss is minimized, anything else maximized). A pass
improves when its value beats the best so far by more than ``trainer.early_stop_delta`` (the
first pass always does). ``trainer.early_stop = N`` stops training after N passes in a row
without an improvement; ``trainer.keep_best`` copies the model's parameters and buffers (not the
optimizer) at every improvement, on the device they live on.

The state (best value, its epoch, passes without improvement, the best weights) goes into
resumable checkpoints, so a resumed run stops at the epoch an uninterrupted one stops at.
"""
from __future__ import annotations

import contextlib
import logging
import math
import os

from core import serialize
from core.tensor import Tensor
from runner.config.resolvers import auto_direction

log = logging.getLogger(__name__)

DIRECTIONS = ("maximize", "minimize", "auto")
BEST_FILE = "best.pdparams"  # trainer.keep_best: the weights of the best validation pass
STOPPED_TAG = "stopped_early"  # "epoch N" on a run that early stopping ended


def resolve_direction(metric: str, direction: str) -> str:
    """``maximize`` or ``minimize``; ``auto`` minimizes losses (``*/loss``), maximizes the rest."""
    if direction not in DIRECTIONS:
        raise ValueError(f"objective direction {direction!r} is not valid: use one of "
                         f"{', '.join(DIRECTIONS)}.")
    return auto_direction(metric) if direction == "auto" else direction


class Monitor:
    """Best value of ``metric`` over validation passes; early stopping; the best weights."""

    def __init__(self, model, metric: str, direction: str = "auto", patience: int = 0,
                 delta: float = 0.0, keep_best: bool = False):
        if patience < 0 or delta < 0:
            raise ValueError(f"Monitor: patience={patience} and delta={delta} must be >= 0.")
        self.model, self.metric = model, metric
        self.direction = resolve_direction(metric, direction)
        self.patience, self.delta, self.keep_best = patience, delta, keep_best
        self.best: float | None = None
        self.best_epoch = -1
        self.bad_passes = 0  # validation passes since the last improvement
        self.best_state: dict | None = None  # name -> array copy (keep_best)
        self.stopped_epoch: int | None = None  # the epoch early stopping ended training after

    @classmethod
    def from_config(cls, model, cfg) -> Monitor | None:
        """The monitor ``cfg`` (a ``TrainerConfig``) asks for; None when neither early
        stopping nor the best checkpoint is on."""
        if cfg.early_stop <= 0 and not cfg.keep_best:
            return None
        return cls(model, cfg.objective, cfg.objective_direction, cfg.early_stop,
                   cfg.early_stop_delta, cfg.keep_best)

    def improves(self, value: float) -> bool:
        if math.isnan(value):
            return False
        if self.best is None:
            return True
        if self.direction == "maximize":
            return value > self.best + self.delta
        return value < self.best - self.delta

    def update(self, epoch: int, metrics: dict[str, float]) -> bool:
        """Take the validation pass after ``epoch``; True when training should stop now."""
        if self.metric not in metrics:
            raise ValueError(f"the monitored metric {self.metric} was not reported by the "
                             f"validation pass (it reported {', '.join(sorted(metrics))}).")
        value = float(metrics[self.metric])
        if self.improves(value):
            self.best, self.best_epoch, self.bad_passes = value, epoch, 0
            if self.keep_best:
                self.best_state = {name: tensor.data.copy()
                                   for name, tensor in self.model.state_dict().items()}
            return False
        self.bad_passes += 1
        if self.patience and self.bad_passes >= self.patience:
            self.stopped_epoch = epoch
            best = "nothing (no finite value yet)" if self.best is None \
                else f"{self.best:.4g} (epoch {self.best_epoch})"
            log.info("early stop after epoch %d: %s %.4g has not improved on %s for %d passes",
                     epoch, self.metric, value, best, self.bad_passes)
            return True
        return False

    def metrics(self) -> dict[str, float]:
        """``best/epoch`` and ``best/<metric>`` (empty before a finite value was seen)."""
        if self.best is None:
            return {}
        return {"best/epoch": float(self.best_epoch), f"best/{self.metric}": self.best}

    def finish(self, tracker, folder: str) -> None:
        """At the end of a run: the ``stopped_early`` tag when early stopping ended it, and with
        ``keep_best`` the best weights written to ``folder/best.pdparams`` and logged."""
        if self.stopped_epoch is not None:
            tracker.set_tag(STOPPED_TAG, f"epoch {self.stopped_epoch}")
        if self.keep_best and self.best_state is not None:
            tracker.log_artifact(self.save_best(os.path.join(folder, BEST_FILE)))

    def save_best(self, path) -> str:
        """Write the best weights (``keep_best``) to ``path`` atomically, as Tensors like a
        model's ``state_dict`` (so ``set_state_dict(core.load(path))`` restores them)."""
        if self.best_state is None:
            raise ValueError("Monitor.save_best: no best weights were kept (keep_best is off, "
                             "or no validation pass gave a finite value).")
        path = os.fspath(path)
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        serialize.save({name: Tensor(value) for name, value in self.best_state.items()}, path)
        log.info("best %s %.4g at epoch %d: weights in %s", self.metric, self.best,
                 self.best_epoch, path)
        return path

    # ----- checkpoints -------------------------------------------------------------------
    def state_dict(self) -> dict:
        return {"metric": self.metric, "direction": self.direction, "best": self.best,
                "best_epoch": self.best_epoch, "bad_passes": self.bad_passes,
                "stopped_epoch": self.stopped_epoch, "best_state": self.best_state}

    def set_state_dict(self, state: dict | None) -> None:
        """Continue from ``state_dict``; None (a checkpoint older than early stopping) starts
        fresh. A state that watched another metric or direction raises ``ValueError``."""
        if state is None:
            self.best, self.best_epoch, self.bad_passes = None, -1, 0
            self.best_state = self.stopped_epoch = None
            return
        saved = (state["metric"], state["direction"])
        if saved != (self.metric, self.direction):
            raise ValueError(f"it monitored {saved[0]} ({saved[1]}) but this run monitors "
                             f"{self.metric} ({self.direction}) (trainer.objective, "
                             "trainer.objective_direction)")
        self.best = None if state["best"] is None else float(state["best"])
        self.best_epoch, self.bad_passes = int(state["best_epoch"]), int(state["bad_passes"])
        stopped = state.get("stopped_epoch")
        self.stopped_epoch = None if stopped is None else int(stopped)
        best_state = state.get("best_state")
        self.best_state = None if best_state is None else {
            name: getattr(value, "data", value) for name, value in best_state.items()}


@contextlib.contextmanager
def weights(model, state: dict | None):
    """Within the block ``model`` holds ``state`` (a ``state_dict``; None: its own weights);
    its own parameters and buffers come back afterwards."""
    if state is None:
        yield model
        return
    own = {name: tensor.data.copy() for name, tensor in model.state_dict().items()}
    model.set_state_dict(state, strict=True)
    try:
        yield model
    finally:
        model.set_state_dict(own, strict=True)
