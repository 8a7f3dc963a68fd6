"""Learning-rate schedules with Paddle 2.x's names and semantics (``paddle.optimizer.lr``).

A scheduler is created with ``last_epoch=-1`` and steps itself once on construction, so right
after ``__init__`` ``last_epoch`` is 0 and ``last_lr`` is the rate for step 0. The training loop
calls ``scheduler.step()`` (once per batch or per epoch: the caller decides what a step is) and the
optimizer reads ``scheduler()``. Every schedule is a closed-form function of ``last_epoch``, so
``step(epoch)`` can jump anywhere and a restored ``last_epoch`` reproduces the rate exactly
(except ``ReduceOnPlateau``, which follows a metric; see core/optimizer/lr/schedules.py).
"""
from __future__ import annotations

import math


def _check_number(owner: str, name: str, value, low: float | None = None,
                  low_open: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{owner}: {name} must be a finite number, got {value!r}")
    if low is not None and (value <= low if low_open else value < low):
        bound = f"> {low}" if low_open else f">= {low}"
        raise ValueError(f"{owner}: {name} must be {bound}, got {value!r}")
    return float(value)


class LRScheduler:
    """Base class: subclasses define ``get_lr()`` from ``self.base_lr`` and ``self.last_epoch``."""

    def __init__(self, learning_rate: float = 0.1, last_epoch: int = -1, verbose: bool = False):
        owner = type(self).__name__
        self.base_lr = _check_number(owner, "learning_rate", learning_rate, low=0.0)
        if isinstance(last_epoch, bool) or not isinstance(last_epoch, int) or last_epoch < -1:
            raise ValueError(f"{owner}: last_epoch must be an int >= -1, got {last_epoch!r}")
        self.last_epoch = last_epoch
        self.last_lr = self.base_lr
        self.verbose = verbose
        self.step()

    def __call__(self) -> float:
        """The current learning rate."""
        return self.last_lr

    def step(self, epoch: int | None = None) -> None:
        """Advance one step, or jump to ``epoch``, and recompute ``last_lr``."""
        if epoch is None:
            self.last_epoch += 1
        else:
            if isinstance(epoch, bool) or not isinstance(epoch, int) or epoch < 0:
                raise ValueError(f"{type(self).__name__}.step: epoch must be an int >= 0 or "
                                 f"None, got {epoch!r}")
            self.last_epoch = epoch
        self.last_lr = float(self.get_lr())
        if self.verbose:
            print(f"Epoch {self.last_epoch}: {type(self).__name__} set learning rate to "
                  f"{self.last_lr}.")

    def get_lr(self) -> float:
        raise NotImplementedError(f"{type(self).__name__} must define get_lr()")

    def state_dict(self) -> dict:
        """Python scalars only: ``last_epoch`` and ``last_lr``."""
        return {"last_epoch": self.last_epoch, "last_lr": self.last_lr}

    def set_state_dict(self, state_dict: dict) -> None:
        missing = [k for k in ("last_epoch", "last_lr") if k not in state_dict]
        if missing:
            raise ValueError(f"{type(self).__name__}.set_state_dict: the state lacks {missing}")
        self.last_epoch = int(state_dict["last_epoch"])
        self.last_lr = float(state_dict["last_lr"])

    set_dict = set_state_dict

    def __repr__(self) -> str:
        return f"{type(self).__name__}(last_epoch={self.last_epoch}, last_lr={self.last_lr})"


class StepDecay(LRScheduler):
    """``lr = learning_rate * gamma ** (last_epoch // step_size)``."""

    def __init__(self, learning_rate: float, step_size: int, gamma: float = 0.1,
                 last_epoch: int = -1, verbose: bool = False):
        if isinstance(step_size, bool) or not isinstance(step_size, int) or step_size < 1:
            raise ValueError(f"StepDecay: step_size must be an int >= 1, got {step_size!r}")
        gamma = _check_number("StepDecay", "gamma", gamma, low=0.0)
        if gamma >= 1.0:
            raise ValueError(f"StepDecay: gamma must be < 1.0 (it is a decay), got {gamma!r}")
        self.step_size, self.gamma = step_size, gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.base_lr * self.gamma ** (self.last_epoch // self.step_size)


class MultiStepDecay(LRScheduler):
    """``lr = learning_rate * gamma ** (number of milestones <= last_epoch)``."""

    def __init__(self, learning_rate: float, milestones, gamma: float = 0.1,
                 last_epoch: int = -1, verbose: bool = False):
        milestones = list(milestones)
        ints = all(isinstance(m, int) and not isinstance(m, bool) for m in milestones)
        if not milestones or not ints or milestones != sorted(set(milestones)):
            raise ValueError("MultiStepDecay: milestones must be a non-empty, strictly increasing "
                             f"list of ints, got {milestones!r}")
        self.milestones = milestones
        self.gamma = _check_number("MultiStepDecay", "gamma", gamma, low=0.0)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        passed = sum(1 for m in self.milestones if self.last_epoch >= m)
        return self.base_lr * self.gamma ** passed


class ExponentialDecay(LRScheduler):
    """``lr = learning_rate * gamma ** last_epoch``."""

    def __init__(self, learning_rate: float, gamma: float, last_epoch: int = -1,
                 verbose: bool = False):
        self.gamma = _check_number("ExponentialDecay", "gamma", gamma, low=0.0, low_open=True)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.base_lr * self.gamma ** self.last_epoch


class NaturalExpDecay(LRScheduler):
    """``lr = learning_rate * exp(-gamma * last_epoch)``; ``gamma > 0``."""

    def __init__(self, learning_rate: float, gamma: float, last_epoch: int = -1,
                 verbose: bool = False):
        self.gamma = _check_number("NaturalExpDecay", "gamma", gamma, low=0.0, low_open=True)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.base_lr * math.exp(-self.gamma * self.last_epoch)


class InverseTimeDecay(LRScheduler):
    """``lr = learning_rate / (1 + gamma * last_epoch)``; ``gamma >= 0``."""

    def __init__(self, learning_rate: float, gamma: float, last_epoch: int = -1,
                 verbose: bool = False):
        self.gamma = _check_number("InverseTimeDecay", "gamma", gamma, low=0.0)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.base_lr / (1.0 + self.gamma * self.last_epoch)


class MultiplicativeDecay(LRScheduler):
    """Each step multiplies the rate by ``lr_lambda(epoch)``: ``lr = learning_rate *
    lr_lambda(1) * ... * lr_lambda(last_epoch)``.

    Paddle multiplies ``last_lr`` by ``lr_lambda(last_epoch)`` on every step; so does core when
    stepped by one (or after ``set_state_dict``, from the restored ``last_lr``), and a jump
    ``step(epoch)`` recomputes the product from ``learning_rate``.
    """

    def __init__(self, learning_rate: float, lr_lambda, last_epoch: int = -1,
                 verbose: bool = False):
        if not callable(lr_lambda):
            raise TypeError(f"MultiplicativeDecay: lr_lambda must be callable on the epoch, "
                            f"got {type(lr_lambda).__name__}")
        self.lr_lambda = lr_lambda
        self._known = None  # (epoch, rate) last computed, so a step costs one call
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        epoch, known = self.last_epoch, self._known
        if known is not None and known[0] == epoch:
            rate = known[1]
        elif known is not None and known[0] == epoch - 1:
            rate = known[1] * self.lr_lambda(epoch)
        else:
            rate = self.base_lr
            for i in range(1, epoch + 1):
                rate *= self.lr_lambda(i)
        self._known = (epoch, rate)
        return rate

    def set_state_dict(self, state_dict: dict) -> None:
        super().set_state_dict(state_dict)
        self._known = (self.last_epoch, self.last_lr)

    set_dict = set_state_dict


class LinearLR(LRScheduler):
    """From ``learning_rate * start_factor`` to ``learning_rate * end_factor`` in a straight
    line over ``total_steps``, then held: ``lr = learning_rate * (start_factor + (end_factor -
    start_factor) * min(last_epoch, total_steps) / total_steps)``.

    The closed form of Paddle's recursive update (identical when stepped one at a time).
    ``start_factor`` in (0, 1], ``end_factor`` in [0, 1], as Paddle checks.
    """

    def __init__(self, learning_rate: float, total_steps: int, start_factor: float = 1.0 / 3,
                 end_factor: float = 1.0, last_epoch: int = -1, verbose: bool = False):
        if isinstance(total_steps, bool) or not isinstance(total_steps, int) or total_steps < 1:
            raise ValueError(f"LinearLR: total_steps must be an int >= 1, got {total_steps!r}")
        start = _check_number("LinearLR", "start_factor", start_factor, low=0.0, low_open=True)
        end = _check_number("LinearLR", "end_factor", end_factor, low=0.0)
        if start > 1.0 or end > 1.0:
            raise ValueError(f"LinearLR: start_factor must be in (0, 1] and end_factor in "
                             f"[0, 1], got {start_factor!r} and {end_factor!r}")
        self.total_steps, self.start_factor, self.end_factor = total_steps, start, end
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        fraction = min(self.last_epoch, self.total_steps) / self.total_steps
        return self.base_lr * (self.start_factor
                               + (self.end_factor - self.start_factor) * fraction)


class CosineAnnealingDecay(LRScheduler):
    """``lr = eta_min + (learning_rate - eta_min) * (1 + cos(pi * last_epoch / T_max)) / 2``.

    This is the closed form of Paddle's recursive update (identical when stepped one at a time);
    past ``T_max`` the cosine rises again, as in Paddle.
    """

    def __init__(self, learning_rate: float, T_max: int, eta_min: float = 0.0,  # noqa: N803
                 last_epoch: int = -1, verbose: bool = False):
        if isinstance(T_max, bool) or not isinstance(T_max, int) or T_max < 1:
            raise ValueError(f"CosineAnnealingDecay: T_max must be an int >= 1, got {T_max!r}")
        self.T_max = T_max
        self.eta_min = _check_number("CosineAnnealingDecay", "eta_min", eta_min, low=0.0)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        cosine = (1.0 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2.0
        return self.eta_min + (self.base_lr - self.eta_min) * cosine


class LinearWarmup(LRScheduler):
    """Linear warm-up from ``start_lr`` to ``end_lr`` over ``warmup_steps``, then ``learning_rate``.

    ``lr = start_lr + (end_lr - start_lr) * last_epoch / warmup_steps`` while
    ``last_epoch < warmup_steps``; afterwards ``learning_rate`` itself, or, when it is a scheduler,
    that scheduler stepped to ``last_epoch - warmup_steps`` (it starts after the warm-up).
    """

    def __init__(self, learning_rate, warmup_steps: int, start_lr: float, end_lr: float,
                 last_epoch: int = -1, verbose: bool = False):
        if isinstance(learning_rate, LRScheduler):
            self.learning_rate = learning_rate
        else:
            self.learning_rate = _check_number("LinearWarmup", "learning_rate", learning_rate,
                                               low=0.0)
        if isinstance(warmup_steps, bool) or not isinstance(warmup_steps, int) \
                or warmup_steps < 1:
            raise ValueError(f"LinearWarmup: warmup_steps must be an int >= 1, "
                             f"got {warmup_steps!r}")
        self.warmup_steps = warmup_steps
        self.start_lr = _check_number("LinearWarmup", "start_lr", start_lr, low=0.0)
        self.end_lr = _check_number("LinearWarmup", "end_lr", end_lr, low=0.0)
        super().__init__(end_lr, last_epoch, verbose)

    def get_lr(self) -> float:
        if self.last_epoch < self.warmup_steps:
            fraction = self.last_epoch / self.warmup_steps
            return self.start_lr + (self.end_lr - self.start_lr) * fraction
        if isinstance(self.learning_rate, LRScheduler):
            self.learning_rate.step(self.last_epoch - self.warmup_steps)
            return self.learning_rate()
        return self.learning_rate

    def state_dict(self) -> dict:
        state = super().state_dict()
        if isinstance(self.learning_rate, LRScheduler):
            state["LinearWarmup_LR"] = self.learning_rate.state_dict()
        return state

    def set_state_dict(self, state_dict: dict) -> None:
        super().set_state_dict(state_dict)
        if isinstance(self.learning_rate, LRScheduler) and "LinearWarmup_LR" in state_dict:
            self.learning_rate.set_state_dict(state_dict["LinearWarmup_LR"])

    set_dict = set_state_dict
