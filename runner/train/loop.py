"""The training loop and evaluation.

Per batch, in this order: clear gradients -> forward -> loss -> backward -> (EndForwardBackward)
-> NaN/Inf check (one device read; may drop the update) -> optimizer step (gradient clipping,
regularization, update) -> schedule step -> (EndIteration) -> accumulate metrics. Handlers
registered with ``Trainer.on`` receive the events of ``runner.train.events``.

``trainer.accumulate = N`` sums the gradients of N consecutive batches (counted from each
epoch's start; the last group may be shorter) into one step, each loss back-propagated scaled by
1/(batches in its group): the check, clipping, update and schedule run once per step, and
``state.step`` counts steps. Every batch fires its events (``step_complete`` tells whether the
gradients are the whole step's); checkpoints and ``stop()`` wait for the step's end. After each
validation pass a ``runner.train.monitor.Monitor`` (``trainer.early_stop``, ``trainer.keep_best``)
records the best ``trainer.objective`` and may stop training (docs/checkpoints.md).

``trainer.amp`` (runner/train/amp.py): forward and loss under ``core.amp.auto_cast``, the loss
multiplied by the loss scale before backward, the gradients unscaled once per step before the
check and the update; a gradient overflow is the scaler's to skip (``train/loss_scale``,
``train/amp_skipped_steps``), not a NaN/Inf finding. Evaluation runs under the same auto_cast.

Every ``trainer.log_every`` batches the loop writes a line in the PaddlePaddle tutorial's format
(``epoch 0 batch 200 loss 0.1778 acc 0.93``) and sends the window's running means to
``sink.log_metrics``; every ``trainer.eval_every`` epochs (and after the last one) it evaluates on
the validation loader. Metric steps count optimizer updates done.

Batch losses and correct counts are summed as backend arrays and read back only when a window is
reported, so a GPU is not synchronised once per batch.
"""
from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import core
import core.nn.functional as F
from core import backend
from core.data import split_batch
from core.tensor import Tensor
from runner.config.schema import TrainerConfig
from runner.train import events
from runner.train.amp import Precision
from runner.train.data_report import data_metrics
from runner.train.health import HealthMonitor, quiet_floating_point
from runner.train.monitor import Monitor
from runner.train.progress import Progress
from runner.train.taps import LayerTaps
from runner.train.window import Window, correct_count, report_window, scalar

log = logging.getLogger(__name__)


@dataclass
class TrainState:
    """Where training is; events expose it to handlers."""

    epoch: int = 0
    batch: int = 0  # batches of this epoch done before fit began (non-zero only on resume)
    step: int = 0  # optimizer updates done
    metrics: dict[str, float] = field(default_factory=dict)  # the latest value of each metric


def evaluate(model, loader, precision: Precision | None = None) -> tuple[float, float]:
    """(mean loss per sample, accuracy) of ``model`` on ``loader``, in eval mode, without grad;
    under ``precision``'s ``auto_cast`` (trainer.amp) as Paddle's hapi evaluates, so the
    metrics reflect the precision trained."""
    was_training = model.training
    model.eval()
    loss_sum = correct = 0
    samples = 0
    context = precision.context() if precision is not None else contextlib.nullcontext()
    try:
        with core.no_grad(), context:
            for fields in loader:
                images, labels = split_batch(fields)  # (padded, lengths) stay one input
                logits = model(images)
                count = labels.shape[0]
                # The mean times the count, so a short last batch weighs what it holds.
                loss_sum = loss_sum + F.cross_entropy(logits, labels).data * count
                correct = correct + correct_count(logits, labels)
                samples += count
    finally:
        if was_training:
            model.train()
    if samples == 0:
        raise ValueError("evaluate: the loader yielded no samples.")
    return scalar(loss_sum) / samples, scalar(correct) / samples


class _NoSink:
    def log_metrics(self, metrics: dict[str, float], step: int) -> None:
        del metrics, step

    def flush(self, force: bool = False) -> None:
        del force


@dataclass
class Batch:
    """One training batch as it goes through a step."""

    inputs: object
    labels: object
    logits: object = None
    loss: object = None


class Trainer:
    """Trains a model batch by batch and tells registered handlers what happens.

    ``on(EndIteration, handler)`` registers a handler (see ``runner.train.events``); a handler stops
    training with ``event.trainer.stop()``, which ends the run after the current batch (after
    the current optimizer step with ``trainer.accumulate`` > 1).
    """

    def __init__(self, model, optimizer, cfg: TrainerConfig, scheduler=None, sink=None,
                 loss_fn=F.cross_entropy):
        self.model, self.optimizer, self.cfg = model, optimizer, cfg
        self.scheduler, self.loss_fn = scheduler, loss_fn
        self.sink = sink if sink is not None else _NoSink()
        self.state = TrainState()
        self._handlers: dict[type, list] = {kind: [] for kind in events.EVENT_TYPES}
        self._stopping = False
        self.taps = LayerTaps(model)  # layers whose outputs events expose (trainer.watch)
        self.checkpointer = None  # a runner.train.checkpoint.Checkpointer, when checkpointing
        self.resumed_window = None  # the log window a checkpoint was taken in (resume)
        self.health = HealthMonitor(model, optimizer, cfg, loss_fn)  # NaN/Inf checks, clip stats
        self.precision = Precision.from_config(cfg)  # trainer.amp: auto_cast and loss scaling
        self.health.replay_context = self.precision.context  # nan_check_locate's replay
        self.monitor = Monitor.from_config(model, cfg)  # best value, early stop (None: off)
        self.accumulate = int(getattr(cfg, "accumulate", 1))
        if self.accumulate < 1:
            raise ValueError(f"trainer.accumulate={self.accumulate} is not allowed: use an "
                             "integer >= 1 (batches summed into one optimizer step).")
        self.step_complete = True  # whether the gradients are the whole optimizer step's
        self._step_loss = None  # the step's summed scaled losses (None: no batch yet)
        self._step_batches = 0

    def watch(self, *names: str) -> None:
        """Keep the outputs of these layers (dotted names) for ``event.layer_outputs(name)``."""
        self.taps.watch(names)

    def on(self, event_type: type, handler: Callable) -> Callable:
        """Call ``handler(event)`` on every event of ``event_type``; returns the handler."""
        if event_type not in self._handlers:
            names = ", ".join(kind.__name__ for kind in events.EVENT_TYPES)
            raise ValueError(f"Trainer.on: {event_type!r} is not an event type: use one of "
                             f"{names} (from runner.train.events).")
        self._handlers[event_type].append(handler)
        return handler

    def off(self, event_type: type, handler: Callable) -> None:
        """Stop calling ``handler`` for ``event_type`` (no listener left: no event is built)."""
        if event_type in self._handlers:  # a new list: a firing loop keeps its own
            self._handlers[event_type] = [h for h in self._handlers[event_type] if h != handler]

    def stop(self) -> None:
        """Stop after the current batch, or with ``trainer.accumulate`` > 1 after the current
        optimizer step (validation and test still run)."""
        self._stopping = True

    def _fire(self, event_type: type, *args) -> None:
        handlers = self._handlers[event_type]
        if handlers:  # no listener, no event object
            event = event_type(self, *args)
            for handler in handlers:
                handler(event)

    def report(self, metrics: dict[str, float]) -> None:
        self.state.metrics.update(metrics)
        self.sink.log_metrics(metrics, self.state.step)

    def fit(self, train_loader, valid_loader=None) -> TrainState:
        """Train for ``cfg.epochs`` epochs (or until stopped); returns the final state."""
        self.model.train()
        for epoch in range(self.state.epoch, self.cfg.epochs):  # a resumed run starts later
            self.state.epoch = epoch
            self._fire(events.BeginPass, epoch)
            self._train_epoch(epoch, train_loader)
            self.health.check_parameters(self.state.step)  # the epoch's last update
            last = epoch == self.cfg.epochs - 1 or self._stopping
            if valid_loader is not None and ((epoch + 1) % self.cfg.eval_every == 0 or last):
                self._validate(epoch, valid_loader)
            self.sink.flush()
            self._fire(events.EndPass, epoch)
            if self.checkpointer is not None and not self._stopping:
                self.checkpointer.after_epoch(self, train_loader, epoch)
            if self._stopping:
                if self.monitor is None or self.monitor.stopped_epoch != epoch:  # else logged
                    log.info("training stopped by a handler after epoch %d step %d",
                             epoch, self.state.step)
                break
        return self.state

    def _validate(self, epoch: int, loader) -> None:
        """Evaluate, report, and let the monitor decide whether training stops early."""
        amp_on = (self.precision,) if self.precision.enabled else ()  # trainer.amp: auto_cast
        loss, acc = evaluate(self.model, loader, *amp_on)
        log.info("epoch %d valid loss %.4f acc %.4f", epoch, loss, acc)
        self.report({"valid/loss": loss, "valid/acc": acc})
        if self.monitor is not None:
            if self.monitor.update(epoch, self.state.metrics):
                self._stopping = True
            self.report(self.monitor.metrics())

    def _train_epoch(self, epoch: int, loader) -> None:
        start = time.perf_counter()
        first, self.state.batch = self.state.batch, 0  # a resumed epoch skips what was done
        bar = Progress(len(loader) - first, desc=f"epoch {epoch}",
                       enabled=None if self.cfg.progress else False)
        window = Window() if self.resumed_window is None \
            else Window.from_state(self.resumed_window)
        self.resumed_window = None
        total, pending = len(loader), []  # pending: the batches of the step being accumulated
        for index, fields in enumerate(loader, start=first):
            inputs, labels = split_batch(fields)  # sequences: inputs = (padded, lengths)
            self._fire(events.BeginIteration, epoch, index)
            batch = Batch(inputs, labels)
            pending.append(batch)
            group_start = index - index % self.accumulate
            size = min(self.accumulate, total - group_start)  # the epoch's last may be short
            ends_step = index + 1 >= group_start + size
            with quiet_floating_point():  # non-finite values are the checks' to report
                used_lr = self.train_step(epoch, index, batch, scale=1.0 / size,
                                          ends_step=ends_step)
            if ends_step:
                if used_lr is not None:  # None: the update was dropped (nan_check=skip)
                    for done in pending:
                        window.add(done.loss, done.logits, done.labels, used_lr)
                pending = []
            postfix = None
            if index % self.cfg.log_every == 0 and window.batches:
                bar.clear()
                self.report(data_metrics(loader, window.start))  # data/wait_fraction ...
                postfix = report_window(window, epoch, index, self.report)
                self.report(self.health.metrics())
                self.report(self.precision.metrics())  # train/loss_scale (trainer.amp)
                window = Window()
            bar.update(1, postfix)
            if not ends_step:  # checkpoints and stops wait for the step's end
                continue
            if self.checkpointer is not None:
                self.checkpointer.after_step(self, loader, epoch, index + 1, window)
            if self._stopping:
                break
        if self._step_loss is not None:  # the loader ended inside a step (fewer than len)
            log.warning("epoch %d ended %d batch(es) into an accumulation step of %d: their "
                        "gradients are dropped", epoch, self._step_batches, self.accumulate)
            self._step_loss, self._step_batches = None, 0
            self.optimizer.clear_grad()
        bar.close()
        self.report({"time/epoch_sec": time.perf_counter() - start})

    def train_step(self, epoch: int, index: int, batch: Batch, scale: float = 1.0,
                   ends_step: bool = True) -> float | None:
        """Forward and backward of one batch, its gradient (times ``scale``) added to those of
        the step's earlier batches; at the step's last batch (``ends_step``) the check and the
        update. Returns the learning rate the update used (None when no update was made: the
        step goes on, or the update was dropped)."""
        if self._step_loss is None:  # the first batch of an optimizer step
            self.optimizer.clear_grad()
        with self.precision.context():  # trainer.amp: float16 where auto_cast allows
            batch.logits = self.model(batch.inputs)
            batch.loss = self.loss_fn(batch.logits, batch.labels)
        loss_scaled = self.precision.scale(batch.loss)  # times the loss scale (amp) or itself
        if scale == 1.0:
            loss_scaled.backward()
        else:  # the seed scales every gradient of this batch at no extra pass
            loss_scaled.backward(backend.array_module(loss_scaled.data).full_like(
                loss_scaled.data, scale))
        scaled = batch.loss.data if scale == 1.0 else batch.loss.data * scale
        self._step_loss = scaled if self._step_loss is None else self._step_loss + scaled
        self._step_batches += 1
        self.step_complete = ends_step
        self._fire(events.EndForwardBackward, epoch, index, batch)
        if not ends_step:
            self._fire(events.EndIteration, epoch, index, batch)
            return None
        # The check reads the step's loss (the mean over its batches) with its gradients.
        checked = batch if self._step_batches == 1 else \
            Batch(batch.inputs, batch.labels, batch.logits, Tensor(self._step_loss))
        self._step_loss, self._step_batches = None, 0
        # Mixed precision: the real gradients first (checks and clipping see them); a gradient
        # overflow is then the scaler's to skip, not a NaN/Inf finding.
        self.precision.unscale(self.optimizer)
        amp_on = {"overflow_ok": True} if self.precision.enabled else {}
        if not self.health.check(epoch, index, checked, self.state.step, **amp_on):  # one sync
            self.precision.drop(self.optimizer)
            return None
        if not self.precision.step(self.optimizer, self.health.overflowed):
            return None  # skipped by the loss scaler, which lowered the scale (as nan_check=skip)
        used_lr = self.optimizer.get_lr()  # before the schedule moves on to the next batch's
        if self.scheduler is not None:
            self.scheduler.step()
        self.state.step += 1
        self._fire(events.EndIteration, epoch, index, batch)
        return used_lr


def fit(model, optimizer, train_loader, cfg: TrainerConfig, valid_loader=None, scheduler=None,
        sink=None, handlers: dict[type, Sequence[Callable]] | None = None) -> TrainState:
    """Train with a ``Trainer``; ``handlers`` maps event types to handler lists."""
    trainer = Trainer(model, optimizer, cfg, scheduler=scheduler, sink=sink)
    for event_type, functions in (handlers or {}).items():
        for handler in functions:
            trainer.on(event_type, handler)
    return trainer.fit(train_loader, valid_loader)
