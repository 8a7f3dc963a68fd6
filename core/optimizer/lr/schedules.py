"""More learning-rate schedules with Paddle 3.3.1's arguments and formulas, reached as
``core.optimizer.lr.X`` (this module only keeps ``lr.py`` small).

``PiecewiseDecay``, ``NoamDecay``, ``PolynomialDecay``, ``LambdaDecay`` and ``OneCycleLR`` are
closed-form functions of ``last_epoch``, like the schedules in ``lr.py``. ``ReduceOnPlateau``
is not: it follows a metric, so its state (best value, counters) is part of its state dict.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from core.optimizer.lr.decay import LRScheduler, _check_number


def _positive_int(owner: str, name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{owner}: {name} must be an int >= 1, got {value!r}")
    return value


class PiecewiseDecay(LRScheduler):
    """``values[i]`` while ``last_epoch < boundaries[i]``, then ``values[-1]``; ``values`` has
    one more entry than ``boundaries``."""

    def __init__(self, boundaries, values, last_epoch: int = -1, verbose: bool = False):
        boundaries, values = list(boundaries), list(values)
        if not boundaries or len(values) != len(boundaries) + 1:
            raise ValueError("PiecewiseDecay: boundaries must be non-empty and values must have "
                             f"one more entry; got {len(boundaries)} boundaries and "
                             f"{len(values)} values")
        self.boundaries = boundaries
        self.values = [_check_number("PiecewiseDecay", "values", v, low=0.0) for v in values]
        super().__init__(self.values[0], last_epoch, verbose)

    def get_lr(self) -> float:
        for boundary, value in zip(self.boundaries, self.values):
            if self.last_epoch < boundary:
                return value
        return self.values[-1]


class NoamDecay(LRScheduler):
    """The Transformer's warm-up then inverse-square-root decay::

        lr = learning_rate * d_model ** -0.5 * min(a, last_epoch * warmup_steps ** -1.5)

    with ``a = last_epoch ** -0.5`` (and ``a = 1`` at step 0, so step 0's rate is 0).
    """

    def __init__(self, d_model, warmup_steps: int, learning_rate: float = 1.0,
                 last_epoch: int = -1, verbose: bool = False):
        self.d_model = _check_number("NoamDecay", "d_model", d_model, low=0.0, low_open=True)
        self.warmup_steps = _positive_int("NoamDecay", "warmup_steps", warmup_steps)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        a = 1.0 if self.last_epoch == 0 else self.last_epoch ** -0.5
        b = self.warmup_steps ** -1.5 * self.last_epoch
        return self.base_lr * self.d_model ** -0.5 * min(a, b)


class PolynomialDecay(LRScheduler):
    """``(learning_rate - end_lr) * (1 - epoch / steps) ** power + end_lr``.

    Without ``cycle``: ``epoch = min(last_epoch, decay_steps)`` and ``steps = decay_steps`` (the
    rate stays at ``end_lr``). With ``cycle``: ``epoch = last_epoch`` and ``steps = decay_steps
    * ceil(last_epoch / decay_steps)`` (at least ``decay_steps``): the rate jumps back up.
    """

    def __init__(self, learning_rate: float, decay_steps: int, end_lr: float = 0.0001,
                 power: float = 1.0, cycle: bool = False, last_epoch: int = -1,
                 verbose: bool = False):
        self.decay_steps = _positive_int("PolynomialDecay", "decay_steps", decay_steps)
        self.end_lr = _check_number("PolynomialDecay", "end_lr", end_lr, low=0.0)
        self.power = _check_number("PolynomialDecay", "power", power, low=0.0, low_open=True)
        self.cycle = bool(cycle)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        epoch, steps = self.last_epoch, self.decay_steps
        if self.cycle:
            steps = self.decay_steps * max(math.ceil(epoch / self.decay_steps), 1)
        else:
            epoch = min(epoch, steps)
        return (self.base_lr - self.end_lr) * (1 - epoch / steps) ** self.power + self.end_lr


class LambdaDecay(LRScheduler):
    """``lr = learning_rate * lr_lambda(last_epoch)``."""

    def __init__(self, learning_rate: float, lr_lambda, last_epoch: int = -1,
                 verbose: bool = False):
        if not callable(lr_lambda):
            raise TypeError(f"LambdaDecay: lr_lambda must be callable on the epoch, got "
                            f"{type(lr_lambda).__name__}")
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.base_lr * self.lr_lambda(self.last_epoch)


class OneCycleLR(LRScheduler):
    """The one-cycle policy: from ``max_learning_rate / divide_factor`` up to
    ``max_learning_rate`` over the first ``phase_pct`` of ``total_steps``, then down to
    ``end_learning_rate`` at step ``total_steps - 1`` (with ``three_phase``: back down to the
    initial rate over a second ``phase_pct``, then to ``end_learning_rate``).

    Phase i runs from step ``s_i`` to ``s_{i+1}`` with ``s = [0, phase_pct * total_steps - 1,
    (2 * phase_pct * total_steps - 2,) total_steps - 1]`` and anneals by ``cos`` (``end +
    (start - end) * (1 + cos(pi * pct)) / 2``) or ``linear``, as Paddle. Stepping past
    ``total_steps`` raises.
    """

    def __init__(self, max_learning_rate: float, total_steps: int, divide_factor: float = 25.0,
                 end_learning_rate: float = 0.0001, phase_pct: float = 0.3,
                 anneal_strategy: str = "cos", three_phase: bool = False, last_epoch: int = -1,
                 verbose: bool = False):
        owner = "OneCycleLR"
        top = _check_number(owner, "max_learning_rate", max_learning_rate, low=0.0)
        self.total_steps = _positive_int(owner, "total_steps", total_steps)
        divide = _check_number(owner, "divide_factor", divide_factor, low=0.0, low_open=True)
        end = _check_number(owner, "end_learning_rate", end_learning_rate, low=0.0)
        pct = _check_number(owner, "phase_pct", phase_pct, low=0.0)
        if pct > 1 or three_phase and pct >= 0.5:
            raise ValueError(f"OneCycleLR: phase_pct must be in [0, 1] (below 0.5 with "
                             f"three_phase), got {phase_pct!r}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"OneCycleLR: anneal_strategy must be 'cos' or 'linear', got "
                             f"{anneal_strategy!r}")
        self.anneal_strategy = anneal_strategy
        start, n = top / divide, self.total_steps
        if three_phase:
            self._bounds = [0, pct * n - 1, 2 * pct * n - 2, n - 1]
            self._rates = [start, top, start, end]
        else:
            self._bounds = [0, pct * n - 1, n - 1]
            self._rates = [start, top, end]
        super().__init__(start, last_epoch, verbose)

    def get_lr(self) -> float:
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"OneCycleLR: stepped to {step}, past total_steps="
                             f"{self.total_steps}")
        last = len(self._rates) - 2
        for i in range(last + 1):
            if step <= self._bounds[i + 1] or i == last:
                pct = (step - self._bounds[i]) / (self._bounds[i + 1] - self._bounds[i])
                begin, end = self._rates[i], self._rates[i + 1]
                if self.anneal_strategy == "linear":
                    return (end - begin) * pct + begin
                return end + (begin - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        raise AssertionError("unreachable")


class ReduceOnPlateau(LRScheduler):
    """Multiply the rate by ``factor`` when ``metrics`` (passed to ``step``) stops improving.

    Each ``step(metrics)``, outside a cooldown: the metric improves on ``best`` when it is below
    ``best * (1 - threshold)`` (mode "min", threshold_mode "rel"), below ``best - threshold``
    ("abs"), or above ``best * (1 + threshold)`` / ``best + threshold`` in mode "max". After
    more than ``patience`` steps without improvement the rate becomes ``max(lr * factor,
    min_lr)`` (only if that lowers it by more than ``epsilon``) and ``cooldown`` steps follow in
    which metrics are ignored. Paddle's rules; after construction ``last_epoch`` is 0.
    """

    _STATE = ("cooldown_counter", "best", "num_bad_epochs", "last_epoch", "last_lr")

    def __init__(self, learning_rate: float, mode: str = "min", factor: float = 0.1,
                 patience: int = 10, threshold: float = 1e-4, threshold_mode: str = "rel",
                 cooldown: int = 0, min_lr: float = 0, epsilon: float = 1e-8,
                 verbose: bool = False):
        owner = "ReduceOnPlateau"
        self.mode, self.threshold_mode = str(mode).lower(), str(threshold_mode).lower()
        if self.mode not in ("min", "max") or self.threshold_mode not in ("rel", "abs"):
            raise ValueError(f"ReduceOnPlateau: mode must be 'min' or 'max' and threshold_mode "
                             f"'rel' or 'abs', got {mode!r} and {threshold_mode!r}")
        self.factor = _check_number(owner, "factor", factor, low=0.0)
        if self.factor >= 1.0:
            raise ValueError(f"ReduceOnPlateau: factor must be < 1.0, got {factor!r}")
        self.patience = int(_check_number(owner, "patience", patience, low=0.0))
        self.threshold = _check_number(owner, "threshold", threshold, low=0.0)
        self.cooldown = int(_check_number(owner, "cooldown", cooldown, low=0.0))
        self.min_lr = _check_number(owner, "min_lr", min_lr, low=0.0)
        self.epsilon = _check_number(owner, "epsilon", epsilon, low=0.0)
        self.base_lr = self.last_lr = _check_number(owner, "learning_rate", learning_rate, 0.0)
        self.cooldown_counter, self.best, self.num_bad_epochs = 0, None, 0
        self.last_epoch, self.verbose = 0, verbose

    def step(self, metrics, epoch: int | None = None) -> None:
        """Record this step's ``metrics`` (a number, or a Tensor/array of one element)."""
        self.last_epoch = self.last_epoch + 1 if epoch is None else int(epoch)
        current = _as_float(metrics)
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            return
        if self.best is None or self._is_better(current, self.best):
            self.best, self.num_bad_epochs = current, 0
        else:
            self.num_bad_epochs += 1
        if self.num_bad_epochs > self.patience:
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
            new_lr = max(self.last_lr * self.factor, self.min_lr)
            if self.last_lr - new_lr > self.epsilon:
                self.last_lr = new_lr
                if self.verbose:
                    print(f"Epoch {self.last_epoch}: ReduceOnPlateau set learning rate to "
                          f"{self.last_lr}.")

    def _is_better(self, current: float, best: float) -> bool:
        delta = best * self.threshold if self.threshold_mode == "rel" else self.threshold
        return current < best - delta if self.mode == "min" else current > best + delta

    def get_lr(self) -> float:
        return self.last_lr

    def state_dict(self) -> dict:
        """Python scalars: the counters, ``best``, ``last_epoch`` and ``last_lr``."""
        return {key: getattr(self, key) for key in self._STATE}

    def set_state_dict(self, state_dict: dict) -> None:
        missing = [k for k in self._STATE if k not in state_dict]
        if missing:
            raise ValueError(f"ReduceOnPlateau.set_state_dict: the state lacks {missing}")
        for key in self._STATE:
            setattr(self, key, state_dict[key])

    set_dict = set_state_dict


def _as_float(metrics) -> float:
    if hasattr(metrics, "numpy") or isinstance(metrics, np.ndarray):
        values = np.asarray(metrics.numpy() if hasattr(metrics, "numpy") else metrics)
        if values.size != 1:
            raise ValueError(f"ReduceOnPlateau.step: metrics must have one element, got shape "
                             f"{list(values.shape)} (reduce it first, e.g. with core.mean)")
        return float(values.reshape(()))
    if isinstance(metrics, bool) or not isinstance(metrics, numbers.Real):
        raise TypeError(f"ReduceOnPlateau.step: metrics must be a number, a Tensor or an array "
                        f"of one element, got {type(metrics).__name__}")
    return float(metrics)


__all__ = ["LambdaDecay", "NoamDecay", "OneCycleLR", "PiecewiseDecay", "PolynomialDecay",
           "ReduceOnPlateau"]
