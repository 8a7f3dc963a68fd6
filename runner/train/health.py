"""NaN/Inf checks of every training step, the policy applied on a hit, and the stop report.

Per step, after backward and before the update, ``HealthMonitor.check`` reads in ONE
device-to-host copy: the loss, every gradient's squared L2 norm (float64, so finite gradients
never overflow it and a NaN/Inf gradient makes it non-finite) and every parameter's float64 sum
(non-finite exactly when the parameter holds a NaN or Inf). The parameters read there are those
after the previous update, so each update is checked at the next step; ``check_parameters`` checks
the last update at once (end of each epoch, before anything is saved).

``trainer.nan_check`` says what a hit does: ``stop`` raises ``NonFiniteError`` with a report
(step, epoch, batch, the first non-finite quantity, the last finite loss, the largest gradient
norm seen, the layer found by replaying the batch when ``trainer.nan_check_locate``, and the
remedies that fit); ``skip`` drops the update and goes on, and once ``trainer.max_skips``
updates were dropped the next hit stops; ``warn`` logs and goes on; ``off`` checks nothing and
never syncs. Under mixed precision (``trainer.amp``) the gradients are unscaled before the
check, and a NaN/Inf gradient with a finite loss and parameters is the loss scale's expected
overflow: no finding, the scaler skips the update (runner.train.amp).
A non-finite parameter cannot be skipped (the update already happened), so it always stops
unless the policy is ``warn``.

A row-sparse gradient (``Embedding(sparse=True)``) is read through its stored rows, never as a
dense table; after its lazy update, the per-step parameter check reads only the rows that update
changed (``check_parameters`` still reads every parameter whole, so a table written outside
the optimizer is caught at the epoch end or the next checkpoint). The counts (events, skips,
clipping and error-clipping "acted") and the records behind the report are saved in training
checkpoints and continue after a resume.
"""
from __future__ import annotations

import contextlib
import logging
import math
import os
from dataclasses import dataclass

import numpy as np

from core import backend, debug
from core.atomic import atomic_write
from core.clipping import error_clip_counts, set_error_clip_counts
from core.row_sparse import is_row_sparse
from runner.errors import UserError

log = logging.getLogger(__name__)

POLICIES = ("stop", "skip", "warn", "off")
REPORT_FILE = "nan_report.txt"
REPORT_TAG = "nan_report"
_LOUD_EVENTS = 10  # warnings logged for the first events, then one per _QUIET_EVERY
_QUIET_EVERY = 100
EARLY_STEPS = 20  # steps whose gradient norms tell the healthy scale (for a clip suggestion)


def quiet_floating_point():
    """numpy's overflow/invalid warnings off: non-finite values are reported by the checks."""
    return np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore")


class NonFiniteError(UserError):
    """Training stopped on a NaN or Inf; ``report`` holds the full multi-line report."""

    def __init__(self, report: str):
        super().__init__(" ".join(line.strip() for line in report.splitlines() if line.strip()))
        self.report = report


@dataclass
class Finding:
    """The first non-finite quantity of a step."""

    kind: str  # "loss", "gradient" or "parameter"
    name: str  # the parameter's dotted name ("" for the loss)
    value: float  # the non-finite value read (NaN or +/-inf)

    def describe(self) -> str:
        shown = "NaN" if math.isnan(self.value) else ("+Inf" if self.value > 0 else "-Inf")
        if self.kind == "loss":
            return f"the loss ({shown})"
        if self.kind == "gradient":
            return f"the gradient of parameter '{self.name}' ({shown} in its squared norm)"
        return f"the parameter '{self.name}' ({shown} in its sum)"


class HealthMonitor:
    """The per-step checks of one training run (see the module docstring)."""

    def __init__(self, model, optimizer, cfg, loss_fn):
        self.model, self.optimizer, self.loss_fn = model, optimizer, loss_fn
        self.policy = getattr(cfg, "nan_check", "stop")
        if self.policy not in POLICIES:
            raise ValueError(f"trainer.nan_check={self.policy!r} is not a policy: use one of "
                             f"{', '.join(POLICIES)}")
        self.max_skips = int(getattr(cfg, "max_skips", 10))
        self.locate = bool(getattr(cfg, "nan_check_locate", False))
        by_id = {id(p): n for n, p in model.named_parameters()}
        # Dotted names read better than the optimizer's unique names (linear_3.w_0) in a report.
        self.params = [(by_id.get(id(p), p.name), p) for p in optimizer._parameter_list]
        self.events = self.skipped = 0
        self.last_loss: tuple[float, int] | None = None  # (value, step)
        self.max_norm: tuple[float, int] = (0.0, 0)
        self._early_norms: list[float] = []  # the first finite global gradient norms
        self._last_update: tuple[int, int, int] | None = None  # (epoch, batch, step) of it
        self._touched: dict = {}  # id(param) -> rows its last row-sparse update changed
        self.overflowed = False  # the last check saw a loss-scale overflow (mixed precision)
        # What the replay of nan_check_locate runs under: the trainer sets its auto_cast
        # (trainer.amp), so the replay computes as the step did (float16 weights at O2 take
        # no float32 input outside it).
        self.replay_context = contextlib.nullcontext

    # ----- the per-step check ------------------------------------------------------------
    def check(self, epoch: int, index: int, batch, step: int, overflow_ok: bool = False) -> bool:
        """True: go on with the update; False: drop it (``skip``). Raises on ``stop``.

        ``overflow_ok`` (mixed precision, the gradients already unscaled): a NaN/Inf gradient
        with a finite loss and finite parameters is the overflow dynamic loss scaling expects,
        not a finding; ``self.overflowed`` tells it (read even with ``nan_check=off``) and the
        scaler skips that update and lowers the scale."""
        self.overflowed = False
        if self.policy == "off":
            if overflow_ok:
                self.overflowed = not self._gradients_finite()
            return True
        values = self._read(batch.loss.data)
        count = len(self.params)
        loss, squares, sums = values[0], values[1:1 + count], values[1 + count:]
        finding = self._first_bad(loss, squares, sums)
        if overflow_ok and finding is not None and finding.kind == "gradient":
            self.overflowed = True  # the scaler's to handle: no event, no skip counted
            return True
        if finding is None:
            self._remember(loss, squares, step)
            self._last_update = (epoch, index, step + 1)
            go_on = True
        else:
            go_on = self._on_finding(finding, epoch, index, step + 1, batch)
        if go_on:  # the update will change only these rows of a row-sparse parameter
            self._touched = {id(p): p.grad_data.rows for _, p in self.params
                             if is_row_sparse(p.grad_data)}
        return go_on

    def check_parameters(self, step: int) -> None:
        """Check the parameters after the last update now (one read)."""
        if self.policy == "off" or not self.params:
            return
        xp = backend.array_module(self.params[0][1].data)
        sums = backend.to_numpy(xp.stack([p.data.sum(dtype=xp.float64) for _, p in self.params]))
        finding = self._first_bad(1.0, [0.0] * len(self.params), sums)
        if finding is not None:
            epoch, index, _ = self._last_update or (0, 0, step)
            self._on_finding(finding, epoch, index, step, None)

    def _gradients_finite(self) -> bool:
        """Whether every gradient is finite (one read), for ``check`` with the policy off."""
        if not self.params:
            return True
        xp = backend.array_module(self.params[0][1].data)
        squares = xp.stack([_squared_norm(p.grad_data, xp) for _, p in self.params])
        return bool(backend.to_numpy(xp.isfinite(squares.sum())))

    def _read(self, loss):
        """[loss, grad squared norms..., parameter sums...] as float64 host values: one sync."""
        xp = backend.array_module(loss)
        items = [xp.asarray(loss, dtype=xp.float64).reshape(-1)[0]]
        items += [_squared_norm(param.grad_data, xp) for _, param in self.params]
        items += [self._parameter_sum(param, xp) for _, param in self.params]
        return backend.to_numpy(xp.stack(items)).tolist()

    def _parameter_sum(self, param, xp):
        """float64 sum of what the last update changed: all of ``param``, or only the rows that
        a lazy row-sparse update touched (an embedding table is not read whole each step)."""
        rows = self._touched.get(id(param))
        return (param.data if rows is None else param.data[rows]).sum(dtype=xp.float64)

    def _first_bad(self, loss, squares, sums) -> Finding | None:
        for (name, _), value in zip(self.params, sums):
            if not math.isfinite(value):  # an earlier update made it: it comes first in time
                return Finding("parameter", name, value)
        if not math.isfinite(loss):
            return Finding("loss", "", loss)
        for (name, _), value in zip(self.params, squares):
            if not math.isfinite(value):
                return Finding("gradient", name, value)
        return None

    def _remember(self, loss: float, squares, step: int) -> None:
        self.last_loss = (loss, step + 1)
        norm = math.sqrt(sum(squares))
        if len(self._early_norms) < EARLY_STEPS:
            self._early_norms.append(norm)
        if norm > self.max_norm[0]:
            self.max_norm = (norm, step + 1)

    # ----- what a hit does ---------------------------------------------------------------
    def _on_finding(self, finding: Finding, epoch: int, index: int, step: int, batch) -> bool:
        """``step`` is the number of the step being checked (updates done, plus one)."""
        self.events += 1
        where = f"epoch {epoch} batch {index} (step {step})"
        if self.policy == "warn":
            self._warn(f"non-finite value at {where}: {finding.describe()}; going on "
                       "(trainer.nan_check=warn)")
            return True
        if self.policy == "skip" and finding.kind != "parameter" \
                and self.skipped < self.max_skips:
            self.skipped += 1
            self._warn(f"non-finite value at {where}: {finding.describe()}; update skipped "
                       f"({self.skipped} of trainer.max_skips={self.max_skips})")
            return False
        raise NonFiniteError(self.report(finding, epoch, index, step, batch))

    def _warn(self, message: str) -> None:
        if self.events <= _LOUD_EVENTS or self.events % _QUIET_EVERY == 0:
            log.warning("%s [%d non-finite events so far]", message, self.events)

    def report(self, finding: Finding, epoch: int, index: int, step: int, batch) -> str:
        """The multi-line stop report (see ``runner.train.remedies`` for the advice part)."""
        from runner.train.remedies import remedies  # noqa: PLC0415 - only needed on a stop

        culprit = self._locate(finding, batch)
        lines = [f"Training stopped on a non-finite value at epoch {epoch}, batch {index}, "
                 f"step {step} (trainer.nan_check={self.policy}).",
                 f"First non-finite quantity: {finding.describe()}."]
        if finding.kind == "parameter":
            lines.append(_parameter_origin(self._last_update))
        if self.policy == "skip":
            lines.append(f"Updates skipped before stopping: {self.skipped} "
                         f"(trainer.max_skips={self.max_skips}).")
        if culprit is not None:
            lines.append(f"Located by replaying the batch: {culprit.detail}.")
        elif self.locate and finding.kind != "parameter" and batch is not None:
            lines.append("Replaying the batch gave finite values throughout (a random layer "
                         "such as dropout may have drawn differently).")
        elif not self.locate and finding.kind != "parameter":
            lines.append("To name the first layer whose output or gradient is non-finite, run "
                         "again with trainer.nan_check_locate=true (it replays the failing "
                         "batch layer by layer).")
        loss = "none (the first step failed)" if self.last_loss is None else \
            f"{self.last_loss[0]:.6g} at step {self.last_loss[1]}"
        lines.append(f"Last finite loss: {loss}.")
        lines.append(f"Largest gradient norm seen (global L2, before clipping): "
                     f"{self.max_norm[0]:.6g} at step {self.max_norm[1]}.")
        lines.append("Remedies:")
        lines += [f"- {text}" for text in remedies(self, finding, culprit, batch)]
        return "\n".join(lines) + "\n"

    def _locate(self, finding: Finding, batch):
        if not self.locate or batch is None or finding.kind == "parameter":
            return None
        log.info("trainer.nan_check_locate: replaying the failing batch layer by layer")
        with self.replay_context():
            return debug.locate_nonfinite(self.model, self.loss_fn, batch.inputs, batch.labels)

    def typical_norm(self) -> float | None:
        """The smallest global gradient norm of the first steps (None before any step): a
        healthy scale even when the norms explode within those steps."""
        return min(self._early_norms) if self._early_norms else None

    # ----- counters carried by a checkpoint ---------------------------------------------
    def state_dict(self) -> dict:
        """Every count and record of this run (``runner.train.checkpoint`` saves it), so a resumed
        run shares the skip budget and logs counts that go on from the saved ones."""
        clip = getattr(self.optimizer, "_grad_clip", None)
        return {"events": self.events, "skipped": self.skipped,
                "last_loss": None if self.last_loss is None else list(self.last_loss),
                "max_norm": list(self.max_norm), "early_norms": list(self._early_norms),
                "last_update": None if self._last_update is None else list(self._last_update),
                "clip": clip.state_dict() if hasattr(clip, "state_dict") else None,
                "error_clip": error_clip_counts(self.model)}

    def set_state_dict(self, state: dict | None) -> None:
        """Continue from ``state_dict``; None (a checkpoint older than these counters) or a
        missing entry leaves that count at zero."""
        state = state or {}
        self.events, self.skipped = int(state.get("events", 0)), int(state.get("skipped", 0))
        last_loss, last_update = state.get("last_loss"), state.get("last_update")
        self.last_loss = None if last_loss is None else (float(last_loss[0]), int(last_loss[1]))
        norm, step = state.get("max_norm", (0.0, 0))
        self.max_norm = (float(norm), int(step))
        self._early_norms = [float(n) for n in state.get("early_norms", [])]
        self._last_update = None if last_update is None else tuple(int(v) for v in last_update)
        clip = getattr(self.optimizer, "_grad_clip", None)
        if state.get("clip") is not None and hasattr(clip, "set_state_dict"):
            clip.set_state_dict(state["clip"])
        set_error_clip_counts(self.model, state.get("error_clip", {}))

    # ----- metrics read at log time ------------------------------------------------------
    def metrics(self) -> dict[str, float]:
        """Counters for MLflow: non-finite events, skipped steps, clipping statistics."""
        out: dict[str, float] = {}
        if self.policy != "off":
            out = {"health/nonfinite_events": float(self.events),
                   "health/skipped_steps": float(self.skipped)}
        clip = getattr(self.optimizer, "_grad_clip", None)
        if hasattr(clip, "read_stats"):
            out.update({f"clip/{key}": value for key, value in clip.read_stats().items()})
        out.update({f"error_clip/{name}/acted": value
                    for name, value in error_clip_counts(self.model).items()})
        return out


def _squared_norm(grad, xp):
    """float64 squared L2 norm of a gradient, non-finite when it holds a NaN or Inf; a
    row-sparse one (``Embedding(sparse=True)``) is read from its stored rows, never densified."""
    if grad is None:
        return xp.zeros((), dtype=xp.float64)
    if is_row_sparse(grad):
        return grad.squared_norm()
    return xp.square(grad, dtype=xp.float64).sum()


def _parameter_origin(last_update) -> str:
    if last_update is None:
        return ("It was non-finite before any update: check its initialiser or the checkpoint "
                "it was loaded from.")
    epoch, index, step = last_update
    return (f"It became non-finite in the update of step {step} (epoch {epoch}, batch {index}), "
            "whose loss and gradients were all finite: the update itself overflowed.")


def save_report(exc: BaseException, tracker, folder: str) -> None:
    """For a ``NonFiniteError``: write the report to ``folder`` and attach it to the run (tag
    and artifact); any other exception is left alone."""
    if not isinstance(exc, NonFiniteError):
        return
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, REPORT_FILE)
    with atomic_write(path, "w", encoding="utf-8") as handle:
        handle.write(exc.report)
    tracker.set_tag(REPORT_TAG, exc.report)
    tracker.log_artifact(path)
    # With tracking.enabled=false (a NullTracker: no run id) there is no run to point to.
    tracked = f" and in the tracked run (tag {REPORT_TAG})" if getattr(
        tracker, "run_id", None) else ""
    log.info("the NaN/Inf report is in %s%s", path, tracked)
