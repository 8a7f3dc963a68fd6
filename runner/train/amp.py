"""Mixed precision for the runner: ``trainer.amp = "O1" | "O2"`` through ``core.amp``.

``Precision`` is what the loop, evaluation and checkpoints use: ``context()`` is
``core.amp.auto_cast(level=...)`` (a no-op with amp off), ``scale(loss)`` multiplies the loss
by the ``GradScaler``'s current scale before backward, and ``finish_step`` unscales, steps and
updates the scale. The order inside a step follows Paddle's ``GradScaler`` recipe for loops
that touch the gradients: ``unscale_`` first, so the NaN/Inf check (runner.train.health) and
gradient clipping (inside ``optimizer.step``) see the real gradients; then ``step`` (skipped by
the scaler when a gradient overflowed) and ``update`` (which halves the scale after such a step
and doubles it after 2000 good ones when ``trainer.loss_scale_dynamic``).

At O2 ``prepare`` decorates the model and optimizer once, at build time: float16 parameters
(normalisation layers excepted) with float32 master weights in the optimizer, whose
``state_dict`` carries them, and ``save_dtype='float32'`` so that the model's saved weights
(model.pdparams, the MLflow bundle) are float32 and load anywhere.
"""
from __future__ import annotations

import contextlib
import logging

from core import amp

log = logging.getLogger(__name__)

OFF = "off"


class Precision:
    """The mixed-precision settings of one run (``level`` 'off', 'O1' or 'O2')."""

    def __init__(self, level: str = OFF, loss_scale: float = 65536.0, dynamic: bool = True):
        if level not in (OFF, "O1", "O2"):
            raise ValueError(f"trainer.amp={level!r} is not a level: use off, O1 or O2.")
        self.level = level
        self.scaler = None if level == OFF else amp.GradScaler(
            init_loss_scaling=loss_scale, use_dynamic_loss_scaling=dynamic)
        self.skipped = 0  # steps the scaler skipped on a NaN/Inf gradient (train/amp_skipped_steps)

    @classmethod
    def from_config(cls, cfg) -> Precision:
        """From ``trainer.amp``, ``trainer.loss_scale`` and ``trainer.loss_scale_dynamic``."""
        return cls(getattr(cfg, "amp", OFF), float(getattr(cfg, "loss_scale", 65536.0)),
                   bool(getattr(cfg, "loss_scale_dynamic", True)))

    @property
    def enabled(self) -> bool:
        return self.scaler is not None

    def context(self):
        """``auto_cast`` at the run's level (forward, loss, evaluation), or nothing."""
        return amp.auto_cast(level=self.level) if self.enabled else contextlib.nullcontext()

    def scale(self, loss):
        """The loss times the current scale (float32), or ``loss`` itself with amp off."""
        return loss if not self.enabled else self.scaler.scale(loss)

    def unscale(self, optimizer) -> None:
        """Divide the step's gradients by the scale (once per step, before the checks)."""
        if self.enabled:
            self.scaler.unscale_(optimizer)

    def step(self, optimizer, overflowed: bool) -> bool:
        """The update through the scaler (skipped by it when ``overflowed``), then the scale's
        update; True when the optimizer stepped."""
        if not self.enabled:
            optimizer.step()
            return True
        self.scaler.step(optimizer)
        self.scaler.update()
        if overflowed:
            self.skipped += 1
        return not overflowed

    def drop(self, optimizer) -> None:
        """End the scaler's step without an update (the NaN/Inf check dropped it): with the
        gradients cleared, ``scaler.step`` has nothing to apply, and ``update`` still counts
        the step (lowering the scale when the gradients had overflowed)."""
        if self.enabled:
            optimizer.clear_grad()
            self.scaler.step(optimizer)
            self.scaler.update()

    def loss_scale(self) -> float:
        """The current loss scale (1.0 with amp off): gradients read before ``unscale`` (at
        ``EndForwardBackward``) are the real ones times this."""
        return _scale(self.scaler) if self.enabled else 1.0

    def metrics(self) -> dict[str, float]:
        """``train/loss_scale`` and ``train/amp_skipped_steps`` ({} with amp off)."""
        if not self.enabled:
            return {}
        return {"train/loss_scale": _scale(self.scaler),
                "train/amp_skipped_steps": float(self.skipped)}

    # ----- checkpoints ---------------------------------------------------------------------
    def state_dict(self) -> dict | None:
        """The scaler's state (Paddle's keys) and the skip count; None with amp off."""
        if not self.enabled:
            return None
        return {"scaler": self.scaler.state_dict(), "skipped": self.skipped}

    def set_state_dict(self, state: dict | None) -> None:
        """Continue from ``state_dict``; None (amp was off, or an older checkpoint) keeps the
        configured initial scale."""
        if not self.enabled or not state:
            return
        self.scaler.load_state_dict(state["scaler"])
        self.skipped = int(state.get("skipped", 0))


def _scale(scaler) -> float:
    """The scaler's current loss scale, read through its Paddle-named state."""
    return float(scaler.state_dict()["scale"][0])


def prepare(model, optimizer, cfg, device_kind: str):
    """Decorate ``model`` and ``optimizer`` for ``trainer.amp`` (O2: float16 weights, float32
    masters, float32 saved weights) and warn once when amp runs on a CPU; returns them."""
    level = getattr(cfg, "amp", OFF)
    if level == OFF:
        return model, optimizer
    if device_kind == "cpu":
        log.warning("trainer.amp=%s on the CPU: numpy computes float16 without BLAS, so this "
                    "is much slower than float32; mixed precision is meant for GPUs.", level)
    if level == "O2":
        model, optimizer = amp.decorate(model, optimizer, level="O2", save_dtype="float32")
    return model, optimizer
