"""Cyclic learning-rate schedules with Paddle 3.3.1's arguments and formulas, reached as
``core.optimizer.lr.X``: ``CosineAnnealingWarmRestarts`` (SGDR) and ``CyclicLR``.

Both are closed-form functions of ``last_epoch``, like the schedules in ``decay.py``, so their
state dict is ``last_epoch`` and ``last_lr`` and ``step(epoch)`` can jump anywhere.
"""
from __future__ import annotations

import math
import numbers

from core.optimizer.lr.decay import LRScheduler, _check_number


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing restarted every period (SGDR): ``lr = eta_min + (learning_rate -
    eta_min) * (1 + cos(pi * T_cur / T_i)) / 2``, where the first period is ``T_0`` steps, each
    next one ``T_mult`` times longer, and ``T_cur`` counts the steps since the last restart.

    Paddle keeps ``T_cur`` and ``T_i`` as counters advanced by ``step()``; core derives them
    from ``last_epoch`` (the same values when stepped one at a time or to an epoch).
    """

    def __init__(self, learning_rate: float, T_0: int, T_mult: int = 1,  # noqa: N803
                 eta_min: float = 0, last_epoch: int = -1, verbose: bool = False):
        if isinstance(T_0, bool) or not isinstance(T_0, int) or T_0 < 1:
            raise ValueError(f"CosineAnnealingWarmRestarts: T_0 must be an int >= 1, "
                             f"got {T_0!r}")
        if isinstance(T_mult, bool) or not isinstance(T_mult, int) or T_mult < 1:
            raise ValueError(f"CosineAnnealingWarmRestarts: T_mult must be an int >= 1, "
                             f"got {T_mult!r}")
        self.T_0, self.T_mult = T_0, T_mult
        self.eta_min = _check_number("CosineAnnealingWarmRestarts", "eta_min", eta_min, low=0.0)
        self.T_i, self.T_cur = T_0, last_epoch
        super().__init__(learning_rate, last_epoch, verbose)

    def _period(self) -> tuple[int, int]:
        """``(T_cur, T_i)`` at ``last_epoch``."""
        epoch, length = self.last_epoch, self.T_0
        if self.T_mult == 1:
            return epoch % length, length
        while epoch >= length:
            epoch -= length
            length *= self.T_mult
        return epoch, length

    def get_lr(self) -> float:
        self.T_cur, self.T_i = self._period()
        cosine = (1.0 + math.cos(math.pi * self.T_cur / self.T_i)) / 2.0
        return self.eta_min + (self.base_lr - self.eta_min) * cosine

    def set_state_dict(self, state_dict: dict) -> None:
        super().set_state_dict(state_dict)
        self.T_cur, self.T_i = self._period()

    set_dict = set_state_dict


class CyclicLR(LRScheduler):
    """Cycles between ``base_learning_rate`` and ``max_learning_rate``: up in a straight line
    over ``step_size_up`` steps, down over ``step_size_down`` (default: the same), the height
    scaled by ``scale_fn`` of the cycle number (from 1) or of the step count.

    ``mode``: ``'triangular'`` (no scaling), ``'triangular2'`` (halved each cycle) or
    ``'exp_range'`` (``exp_gamma ** step``, per step). A ``scale_fn`` of your own replaces the
    mode and is applied per ``scale_mode`` (``'cycle'`` or ``'iterations'``). Paddle's formula::

        cycle = 1 + last_epoch // cycle_size
        pct = 1 + last_epoch / cycle_size - cycle
        up = pct / up_pct if pct <= up_pct else (1 - pct) / (1 - up_pct)
        lr = base + (max - base) * up * scale_fn(cycle or last_epoch)
    """

    def __init__(self, base_learning_rate: float, max_learning_rate: float, step_size_up: int,
                 step_size_down: int | None = None, mode: str = "triangular",
                 exp_gamma: float = 1.0, scale_fn=None, scale_mode: str = "cycle",
                 last_epoch: int = -1, verbose: bool = False):
        owner = "CyclicLR"
        self.max_lr = _check_number(owner, "max_learning_rate", max_learning_rate, low=0.0)
        for name, value in (("step_size_up", step_size_up), ("step_size_down", step_size_down)):
            if value is None and name == "step_size_down":
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"CyclicLR: {name} must be an int >= 1, got {value!r}")
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.cycle_size = up + down
        self.step_up_pct = up / self.cycle_size
        self.gamma = _check_number(owner, "exp_gamma", exp_gamma, low=0.0, low_open=True)
        if scale_fn is None and mode not in ("triangular", "triangular2", "exp_range"):
            raise ValueError(f"CyclicLR: mode must be 'triangular', 'triangular2' or "
                             f"'exp_range' (or give scale_fn), got {mode!r}")
        if scale_fn is not None and not callable(scale_fn):
            raise TypeError(f"CyclicLR: scale_fn must be callable or None, got "
                            f"{type(scale_fn).__name__}")
        if scale_mode not in ("cycle", "iterations"):
            raise ValueError(f"CyclicLR: scale_mode must be 'cycle' or 'iterations', got "
                             f"{scale_mode!r}")
        self.mode = mode
        if scale_fn is not None:
            self.scale_fn, self.scale_mode = scale_fn, scale_mode
        elif mode == "triangular":
            self.scale_fn, self.scale_mode = self._triangular_scale_fn, "cycle"
        elif mode == "triangular2":
            self.scale_fn, self.scale_mode = self._triangular2_scale_fn, "cycle"
        else:
            self.scale_fn, self.scale_mode = self._exp_range_scale_fn, "iterations"
        base = _check_number(owner, "base_learning_rate", base_learning_rate, low=0.0)
        self.amplitude = self.max_lr - base
        super().__init__(base, last_epoch, verbose)

    @staticmethod
    def _triangular_scale_fn(x) -> float:
        return 1.0

    @staticmethod
    def _triangular2_scale_fn(x) -> float:
        return 1 / (2.0 ** (x - 1))

    def _exp_range_scale_fn(self, x) -> float:
        return self.gamma ** x

    def get_lr(self) -> float:
        iterations = self.last_epoch
        cycle = 1 + iterations // self.cycle_size
        pct = 1.0 + iterations / self.cycle_size - cycle
        if pct <= self.step_up_pct:
            height = pct / self.step_up_pct
        else:
            height = (1 - pct) / (1 - self.step_up_pct)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else iterations)
        if isinstance(scale, bool) or not isinstance(scale, numbers.Real):
            raise TypeError(f"CyclicLR: scale_fn must return a number, got {scale!r}")
        return self.base_lr + self.amplitude * height * float(scale)


__all__ = ["CosineAnnealingWarmRestarts", "CyclicLR"]
