"""The training loop and evaluation.

Per batch, in this order: clear gradients -> forward -> loss -> backward -> optimizer step ->
schedule step -> accumulate metrics. Every ``trainer.log_every`` batches the loop writes a line in
the PaddlePaddle tutorial's format (``epoch 0 batch 200 loss 0.1778 acc 0.93``) and sends the
window's running means to ``sink.log_metrics``; every ``trainer.eval_every`` epochs (and after the
last one) it evaluates on the validation loader. Metric steps count optimizer updates done.

Batch losses and correct counts are summed as backend arrays and read back only when a window is
reported, so a GPU is not synchronised once per batch.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import core
import core.nn.functional as F
from core import backend
from runner.progress import Progress
from runner.schema import TrainerConfig

log = logging.getLogger(__name__)


@dataclass
class TrainState:
    """What callbacks see at the end of each epoch."""

    epoch: int = 0
    step: int = 0  # optimizer updates done
    metrics: dict[str, float] = field(default_factory=dict)  # the latest value of each metric


def _correct(logits, labels):
    """How many predictions in the batch are right, as a backend scalar (no host sync)."""
    predicted = logits.data.argmax(axis=-1)
    return (predicted == labels.data.reshape(predicted.shape)).sum()


def _scalar(value) -> float:
    """A one-element backend array (0-d or [1], as losses come) as a Python float."""
    return float(backend.to_numpy(value).item())


class _Window:
    """Running sums over the batches since the last log line."""

    def __init__(self):
        self.loss_sum = self.correct = 0
        self.batches = self.samples = 0
        self.lr = 0.0  # the rate of the window's last update
        self.start = time.perf_counter()

    def add(self, loss, logits, labels, lr: float) -> None:
        self.lr = lr
        self.loss_sum = self.loss_sum + loss.data
        self.correct = self.correct + _correct(logits, labels)
        self.batches += 1
        self.samples += labels.shape[0]

    def means(self) -> tuple[float, float, float]:
        """(mean batch loss, accuracy, samples per second) of the window."""
        elapsed = max(time.perf_counter() - self.start, 1e-9)
        loss = _scalar(self.loss_sum) / self.batches
        acc = _scalar(self.correct) / self.samples
        return loss, acc, self.samples / elapsed


def evaluate(model, loader) -> tuple[float, float]:
    """(mean loss per sample, accuracy) of ``model`` on ``loader``, in eval mode, without grad."""
    was_training = model.training
    model.eval()
    loss_sum = correct = 0
    samples = 0
    try:
        with core.no_grad():
            for images, labels in loader:
                logits = model(images)
                count = labels.shape[0]
                # The mean times the count, so a short last batch weighs what it holds.
                loss_sum = loss_sum + F.cross_entropy(logits, labels).data * count
                correct = correct + _correct(logits, labels)
                samples += count
    finally:
        if was_training:
            model.train()
    if samples == 0:
        raise ValueError("evaluate: the loader yielded no samples.")
    return _scalar(loss_sum) / samples, _scalar(correct) / samples


class _NoSink:
    def log_metrics(self, metrics: dict[str, float], step: int) -> None:
        del metrics, step

    def flush(self) -> None:
        pass


def fit(model, optimizer, train_loader, cfg: TrainerConfig, valid_loader=None, scheduler=None,
        sink=None, callbacks: Sequence[Callable[[TrainState], None]] = ()) -> TrainState:
    """Train ``model`` for ``cfg.epochs`` epochs; returns the final state.

    ``sink`` receives metrics (``log_metrics(dict, step)``, ``flush()`` at each epoch end): a
    tracker, or anything with that interface. ``callbacks`` are called with the state after
    each epoch's metrics are logged.
    """
    sink = sink if sink is not None else _NoSink()
    state = TrainState()

    def report(metrics: dict[str, float]) -> None:
        state.metrics.update(metrics)
        sink.log_metrics(metrics, state.step)

    model.train()
    for epoch in range(cfg.epochs):
        state.epoch = epoch
        epoch_start = time.perf_counter()
        bar = Progress(len(train_loader), desc=f"epoch {epoch}",
                       enabled=None if cfg.progress else False)
        window = _Window()
        for batch, (images, labels) in enumerate(train_loader):
            optimizer.clear_grad()
            logits = model(images)
            loss = F.cross_entropy(logits, labels)
            loss.backward()
            optimizer.step()
            used_lr = optimizer.get_lr()  # before the schedule moves on to the next batch's
            if scheduler is not None:
                scheduler.step()
            state.step += 1
            window.add(loss, logits, labels, used_lr)
            postfix = None
            if batch % cfg.log_every == 0:
                bar.clear()
                postfix = _report_window(window, epoch, batch, report)
                window = _Window()
            bar.update(1, postfix)
        bar.close()
        report({"time/epoch_sec": time.perf_counter() - epoch_start})
        last = epoch == cfg.epochs - 1
        if valid_loader is not None and ((epoch + 1) % cfg.eval_every == 0 or last):
            loss, acc = evaluate(model, valid_loader)
            log.info("epoch %d valid loss %.4f acc %.4f", epoch, loss, acc)
            report({"valid/loss": loss, "valid/acc": acc})
        sink.flush()
        for callback in callbacks:
            callback(state)
    return state


def _report_window(window: _Window, epoch: int, batch: int, report) -> str:
    """Log and report the window's means; returns them as the progress bar's postfix."""
    loss, acc, speed = window.means()
    log.info("epoch %d batch %d loss %.4f acc %.2f", epoch, batch, loss, acc)
    report({"train/loss": loss, "train/acc": acc, "train/lr": window.lr,
            "train/samples_per_sec": speed})
    return f"loss {loss:.4f} acc {acc:.2f}"
