"""Callbacks for ``core.Model`` (``paddle.callbacks``): hooks around training, evaluation and
prediction; the ones ``Model.fit`` adds (progress lines, checkpoints, the learning-rate
schedule), early stopping and ``ReduceLROnPlateau``.

A callback subclasses ``Callback`` and overrides the hooks it needs; ``self.model`` is the
``core.Model`` and ``self.params`` holds ``batch_size``, ``epochs``, ``steps``, ``verbose`` and
``metrics`` (the names in the logs). A callback stops training by setting
``self.model.stop_training = True``; the current epoch ends first.
"""
from __future__ import annotations

import math
import numbers
import os
import sys
import time
import warnings

from core.optimizer.lr import LRScheduler as Schedule
from core.optimizer.lr import ReduceOnPlateau


class Callback:
    """Base class: every hook does nothing. ``logs`` is a dict (loss, metrics, step, batch_size)
    or None."""

    def __init__(self):
        self.model = None
        self.params: dict = {}

    def set_params(self, params: dict) -> None:
        self.params = params

    def set_model(self, model) -> None:
        self.model = model

    def on_train_begin(self, logs=None): ...
    def on_train_end(self, logs=None): ...
    def on_eval_begin(self, logs=None): ...
    def on_eval_end(self, logs=None): ...
    def on_predict_begin(self, logs=None): ...
    def on_predict_end(self, logs=None): ...
    def on_epoch_begin(self, epoch, logs=None): ...
    def on_epoch_end(self, epoch, logs=None): ...
    def on_train_batch_begin(self, step, logs=None): ...
    def on_train_batch_end(self, step, logs=None): ...
    def on_eval_batch_begin(self, step, logs=None): ...
    def on_eval_batch_end(self, step, logs=None): ...
    def on_predict_batch_begin(self, step, logs=None): ...
    def on_predict_batch_end(self, step, logs=None): ...


class CallbackList:
    """The callbacks of one ``fit``/``evaluate``/``predict`` call, called in order."""

    def __init__(self, callbacks: list[Callback], model, params: dict):
        self.callbacks = callbacks
        for callback in callbacks:
            callback.set_model(model)
            callback.set_params(dict(params))

    def begin(self, mode: str, logs=None) -> None:
        self._call(f"on_{mode}_begin", logs)

    def end(self, mode: str, logs=None) -> None:
        self._call(f"on_{mode}_end", logs)

    def batch_begin(self, mode: str, step: int, logs=None) -> None:
        self._call(f"on_{mode}_batch_begin", step, logs)

    def batch_end(self, mode: str, step: int, logs=None) -> None:
        self._call(f"on_{mode}_batch_end", step, logs)

    def epoch_begin(self, epoch: int, logs=None) -> None:
        self._call("on_epoch_begin", epoch, logs)

    def epoch_end(self, epoch: int, logs=None) -> None:
        self._call("on_epoch_end", epoch, logs)

    def update_params(self, **params) -> None:
        for callback in self.callbacks:
            callback.params.update(params)

    def _call(self, hook: str, *args) -> None:
        for callback in self.callbacks:
            getattr(callback, hook)(*args)


def as_callback_list(callbacks) -> list[Callback]:
    """None, one Callback or a list of them, checked."""
    found = [] if callbacks is None else list(callbacks) if isinstance(
        callbacks, (list, tuple)) else [callbacks]
    for callback in found:
        if not isinstance(callback, Callback):
            raise TypeError(f"callbacks: {callback!r} is not a core.callbacks.Callback; subclass "
                            "it and override the hooks you need (on_epoch_end, ...).")
    return found


class ProgBarLogger(Callback):
    """Loss and metrics on stdout every ``log_freq`` steps. ``verbose``: 0 silent; 1 one line
    rewritten in place (on a terminal; elsewhere as 2); 2 a line per ``log_freq`` steps and
    per epoch; 3 as 2 with samples/s."""

    def __init__(self, log_freq: int = 1, verbose: int = 2):
        super().__init__()
        if isinstance(log_freq, bool) or not isinstance(log_freq, int) or log_freq < 1:
            raise ValueError(f"ProgBarLogger: log_freq={log_freq!r} must be a positive integer.")
        if verbose not in (0, 1, 2, 3):
            raise ValueError(f"ProgBarLogger: verbose={verbose!r} must be 0, 1, 2 or 3.")
        self.log_freq, self.verbose = log_freq, verbose
        self._started = self._samples = 0

    def on_train_begin(self, logs=None):
        self._epochs = self.params.get("epochs")

    def on_epoch_begin(self, epoch, logs=None):
        self._begin(f"Epoch {epoch + 1}/{self._epochs}")

    def on_train_batch_end(self, step, logs=None):
        self._batch(step, logs, "steps")

    def on_epoch_end(self, epoch, logs=None):
        self._last(logs, "steps")

    def on_eval_begin(self, logs=None):
        self._begin("Eval begin...")
        self._eval_steps = (logs or {}).get("steps")

    def on_eval_batch_end(self, step, logs=None):
        self._batch(step, logs, "eval_steps")

    def on_eval_end(self, logs=None):
        self._last(logs, "eval_steps")
        self._print(f"Eval samples: {self._samples}")

    def on_predict_begin(self, logs=None):
        self._begin("Predict begin...")
        self._eval_steps = (logs or {}).get("steps")

    def on_predict_batch_end(self, step, logs=None):
        self._batch(step, logs, "eval_steps")

    def on_predict_end(self, logs=None):
        self._last(logs, "eval_steps")
        self._print(f"Predict samples: {self._samples}")

    def _begin(self, title: str) -> None:
        self._started, self._samples, self._pending = time.perf_counter(), 0, None
        self._print(title)

    def _batch(self, step: int, logs, steps_key: str) -> None:
        logs = logs or {}
        self._samples += logs.get("batch_size", 0)
        self._pending = (step, logs)
        if (step + 1) % self.log_freq == 0:
            self._show(step, logs, steps_key)

    def _last(self, logs, steps_key: str) -> None:
        """The last step's line, unless it was just shown."""
        if self._pending and (self._pending[0] + 1) % self.log_freq != 0:
            self._show(*self._pending, steps_key)
        if self.verbose == 1 and _is_terminal():
            self._print("")  # end the line rewritten in place
        self._pending = None

    def _show(self, step: int, logs: dict, steps_key: str) -> None:
        total = self.params.get("steps") if steps_key == "steps" else self._eval_steps
        seconds = time.perf_counter() - self._started
        parts = [f"step {step + 1:{len(str(total or ''))}}/{total if total else '?'}"]
        parts += [f"{name}: {_fmt(logs[name])}" for name in self.params.get("metrics", [])
                  if name in logs]
        per_step = 1000 * seconds / (step + 1)
        parts.append(f"{per_step:.{0 if per_step >= 10 else 1}f}ms/step")
        if self.verbose == 3 and seconds > 0:
            parts.append(f"{self._samples / seconds:,.0f} samples/s")
        line = " - ".join(parts)
        if self.verbose == 1 and _is_terminal():
            sys.stdout.write("\r" + line)
            sys.stdout.flush()
        else:
            self._print(line)

    def _print(self, text: str) -> None:
        if self.verbose:
            print(text, flush=True)


def _fmt(value) -> str:
    values = value if isinstance(value, (list, tuple)) else [value]
    return " ".join(f"{float(v):.4f}" for v in values)


def _is_terminal() -> bool:
    return sys.stdout.isatty()


class ModelCheckpoint(Callback):
    """``model.save(save_dir/<epoch>)`` every ``save_freq`` epochs and ``save_dir/final`` at the
    end of training (each save writes ``.pdparams`` and ``.pdopt``, atomically)."""

    def __init__(self, save_freq: int = 1, save_dir: str | None = None):
        super().__init__()
        if isinstance(save_freq, bool) or not isinstance(save_freq, int) or save_freq < 1:
            raise ValueError(f"ModelCheckpoint: save_freq={save_freq!r} must be a positive "
                             "integer.")
        self.save_freq, self.save_dir = save_freq, save_dir

    def on_epoch_end(self, epoch, logs=None):
        if self.save_dir is not None and epoch % self.save_freq == 0:
            self.model.save(os.path.join(self.save_dir, str(epoch)))

    def on_train_end(self, logs=None):
        if self.save_dir is not None:
            self.model.save(os.path.join(self.save_dir, "final"))


class LRScheduler(Callback):
    """Step the optimizer's learning-rate scheduler (a ``core.optimizer.lr.LRScheduler``) after
    each training batch (``by_step``) or each epoch (``by_epoch``), or (both False) never, as
    Paddle's; ``fit`` adds one stepping by batch unless given, as Paddle does."""

    def __init__(self, by_step: bool = True, by_epoch: bool = False):
        super().__init__()
        if by_step and by_epoch:
            raise ValueError("LRScheduler: by_step=True and by_epoch=True exclude each other "
                             "(Paddle's rule): choose one, or neither to step the schedule "
                             "yourself.")
        self.by_step, self.by_epoch = by_step, by_epoch

    def on_train_batch_end(self, step, logs=None):
        if self.by_step:
            self._step()

    def on_epoch_end(self, epoch, logs=None):
        if self.by_epoch:
            self._step()

    def on_eval_end(self, logs=None):
        """ReduceOnPlateau steps on the evaluated loss, once per evaluation."""
        rate = self._schedule()
        if isinstance(rate, ReduceOnPlateau) and logs and "loss" in logs:
            loss = logs["loss"]
            rate.step(float(loss[0] if isinstance(loss, (list, tuple)) else loss))

    def _step(self) -> None:
        rate = self._schedule()
        if isinstance(rate, Schedule) and not isinstance(rate, ReduceOnPlateau):
            rate.step()  # ReduceOnPlateau needs a metric: it steps after evaluations

    def _schedule(self):
        return getattr(getattr(self.model, "_optimizer", None), "_learning_rate", None)


class EarlyStopping(Callback):
    """Stop ``fit`` when the evaluated ``monitor`` (``'loss'``, ``'acc'``, ...) stops improving.

    After each evaluation: an improvement by more than ``min_delta`` (and past ``baseline``, if
    given) resets the count; otherwise it grows, and training stops once it reaches
    ``patience`` (Paddle's count: ``patience=2`` stops at the second evaluation in a row
    without improvement; ``patience=0`` at the first). ``mode``: ``'min'``, ``'max'``, or
    ``'auto'`` (max for names with 'acc'). With ``save_best_model`` and
    ``fit(save_dir=...)`` the best weights go to ``save_dir/best_model``. Needs ``eval_data``
    in ``fit``; a ``monitor`` the evaluation does not report is warned about, as Paddle does,
    and stops nothing.
    """

    def __init__(self, monitor: str = "loss", mode: str = "auto", patience: int = 0,
                 verbose: int = 1, min_delta: float = 0, baseline: float | None = None,
                 save_best_model: bool = True):
        super().__init__()
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"EarlyStopping: mode={mode!r} must be 'auto', 'min' or 'max'.")
        if isinstance(patience, bool) or not isinstance(patience, int) or patience < 0:
            raise ValueError(f"EarlyStopping: patience={patience!r} must be an integer >= 0.")
        if not isinstance(min_delta, numbers.Real) or min_delta < 0:
            raise ValueError(f"EarlyStopping: min_delta={min_delta!r} must be a number >= 0.")
        self.monitor, self.patience, self.verbose = monitor, patience, verbose
        self.maximize = mode == "max" or mode == "auto" and "acc" in monitor
        self.min_delta, self.baseline = float(min_delta), baseline
        self.save_best_model = save_best_model
        self.best_value = self.wait = self.stopped_epoch = None

    def on_train_begin(self, logs=None):
        self.wait, self.stopped_epoch, self._epoch = 0, None, 0
        worst = -math.inf if self.maximize else math.inf
        self.best_value = worst if self.baseline is None else float(self.baseline)
        self._fitting = True

    def on_train_end(self, logs=None):
        self._fitting = False  # an evaluate() after fit neither counts nor stops anything

    def on_epoch_end(self, epoch, logs=None):
        self._epoch = epoch

    def on_eval_end(self, logs=None):
        if not getattr(self, "_fitting", False):  # evaluate() outside fit
            return
        current = _monitored(logs, self.monitor, "EarlyStopping")
        if current is None:
            return
        gain = current - self.best_value if self.maximize else self.best_value - current
        if gain > self.min_delta:
            self.best_value, self.wait = current, 0
            save_dir = self.params.get("save_dir")
            if self.save_best_model and save_dir is not None:
                self.model.save(os.path.join(save_dir, "best_model"))
            return
        self.wait += 1
        if self.wait >= self.patience:
            self.model.stop_training = True
            self.stopped_epoch = self._epoch
            if self.verbose:
                print(f"Epoch {self._epoch + 1}: early stopping ({self.monitor} has not improved "
                      f"on {self.best_value:.4f} for {self.wait} evaluation(s)).", flush=True)


def _monitored(logs, monitor: str, owner: str) -> float | None:
    """The evaluated value of ``monitor`` (the first loss of a list), or None with a warning
    when the evaluation did not report it (Paddle's callbacks warn and go on too)."""
    if not logs or monitor not in logs:
        warnings.warn(f"{owner}: monitor '{monitor}' is not among the evaluated values "
                      f"{sorted(k for k in (logs or {}) if k not in ('step', 'batch_size'))}; "
                      "it should be 'loss' or a metric's name. Nothing is done.", stacklevel=4)
        return None
    current = logs[monitor]
    return float(current[0] if isinstance(current, (list, tuple)) else current)


class ReduceLROnPlateau(Callback):
    """Paddle's ``paddle.callbacks.ReduceLROnPlateau(monitor='loss', factor=0.1, patience=10,
    verbose=1, mode='auto', min_delta=1e-4, cooldown=0, min_lr=0)``: after each evaluation in
    ``fit``, a ``monitor`` value that does not improve on the best by more than ``min_delta``
    counts; at ``patience`` such evaluations the optimizer's float learning rate becomes
    ``max(lr * factor, min_lr)``, and ``cooldown`` evaluations follow that do not count.
    ``mode``: ``'min'``, ``'max'`` or ``'auto'`` (max for names with 'acc'). An optimizer that
    follows an LRScheduler is left alone, with a warning, as Paddle does (use
    ``core.optimizer.lr.ReduceOnPlateau`` as its learning rate instead)."""

    def __init__(self, monitor: str = "loss", factor: float = 0.1, patience: int = 10,  # noqa: PLR0913
                 verbose: int = 1, mode: str = "auto", min_delta: float = 1e-4,
                 cooldown: int = 0, min_lr: float = 0):
        super().__init__()
        if not isinstance(factor, numbers.Real) or not 0 <= factor < 1:
            raise ValueError(f"ReduceLROnPlateau: factor={factor!r} must be a number in [0, 1) "
                             "(new_lr = lr * factor).")
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"ReduceLROnPlateau: mode={mode!r} must be 'auto', 'min' or "
                             "'max'.")
        for name, value in (("patience", patience), ("cooldown", cooldown)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"ReduceLROnPlateau: {name}={value!r} must be an integer "
                                 ">= 0.")
        for name, value in (("min_delta", min_delta), ("min_lr", min_lr)):
            if not isinstance(value, numbers.Real) or value < 0:
                raise ValueError(f"ReduceLROnPlateau: {name}={value!r} must be a number >= 0.")
        self.monitor, self.factor, self.patience, self.verbose = monitor, factor, patience, verbose
        self.maximize = mode == "max" or mode == "auto" and "acc" in monitor
        self.min_delta, self.cooldown, self.min_lr = float(min_delta), cooldown, float(min_lr)
        self._reset()

    def _reset(self) -> None:
        self.best = -math.inf if self.maximize else math.inf
        self.wait = self.cooldown_counter = self.epoch = 0

    def on_train_begin(self, logs=None):
        self._reset()

    def on_eval_end(self, logs=None):
        current = _monitored(logs, self.monitor, "ReduceLROnPlateau")
        optimizer = getattr(self.model, "_optimizer", None)
        if current is None or optimizer is None:
            return
        if isinstance(optimizer._learning_rate, Schedule):
            warnings.warn("ReduceLROnPlateau: the optimizer's learning rate is an LRScheduler "
                          f"({type(optimizer._learning_rate).__name__}), which this callback "
                          "does not change (Paddle's neither); give the optimizer "
                          "core.optimizer.lr.ReduceOnPlateau instead.", stacklevel=3)
            return
        self._count(current, optimizer)
        self.epoch += 1

    def _count(self, current: float, optimizer) -> None:
        """Paddle's counting: a cooldown evaluation resets the wait; an improvement resets it
        too; otherwise it grows and, at ``patience``, the learning rate is cut."""
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        better = current > self.best + self.min_delta if self.maximize \
            else current < self.best - self.min_delta
        if better:
            self.best, self.wait = current, 0
            return
        if self.cooldown_counter > 0:
            return
        self.wait += 1
        if self.wait >= self.patience and optimizer.get_lr() > self.min_lr:
            new_lr = max(optimizer.get_lr() * self.factor, self.min_lr)
            optimizer.set_lr(new_lr)
            if self.verbose:
                print(f"Epoch {self.epoch + 1}: ReduceLROnPlateau reducing learning rate to "
                      f"{new_lr}.", flush=True)
            self.cooldown_counter, self.wait = self.cooldown, 0
