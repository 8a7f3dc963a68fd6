"""The running sums behind each training log line: batch losses and correct counts kept as
backend arrays and read back only when a window is reported, so a GPU is not synchronised once
per batch.
"""
from __future__ import annotations

import logging
import time

from core import backend

log = logging.getLogger("runner.train.loop")  # the loop's log lines keep the loop's logger name


def correct_count(logits, labels):
    """How many predictions in the batch are right, as a backend scalar (no host sync)."""
    predicted = logits.data.argmax(axis=-1)
    return (predicted == labels.data.reshape(predicted.shape)).sum()


def scalar(value) -> float:
    """A one-element backend array (0-d or [1], as losses come) as a Python float."""
    return float(backend.to_numpy(value).item())


class Window:
    """Running sums over the batches since the last log line."""

    def __init__(self):
        self.loss_sum = self.correct = 0
        self.batches = self.samples = 0
        self.lr = 0.0  # the rate of the window's last update
        self.start = time.perf_counter()

    def add(self, loss, logits, labels, lr: float) -> None:
        self.lr = lr
        self.loss_sum = self.loss_sum + loss.data
        self.correct = self.correct + correct_count(logits, labels)
        self.batches += 1
        self.samples += labels.shape[0]

    def state_dict(self) -> dict:
        """The sums (host copies), for a checkpoint taken in the middle of a window."""
        return {"loss_sum": backend.to_numpy(self.loss_sum), "correct": backend.to_numpy(
            self.correct), "batches": self.batches, "samples": self.samples, "lr": self.lr}

    @classmethod
    def from_state(cls, state: dict) -> Window:
        window = cls()
        window.loss_sum = backend.asarray(state["loss_sum"])
        window.correct = backend.asarray(state["correct"])
        window.batches, window.samples = int(state["batches"]), int(state["samples"])
        window.lr = float(state["lr"])
        return window

    def means(self) -> tuple[float, float, float]:
        """(mean batch loss, accuracy, samples per second) of the window."""
        elapsed = max(time.perf_counter() - self.start, 1e-9)
        loss = scalar(self.loss_sum) / self.batches
        acc = scalar(self.correct) / self.samples
        return loss, acc, self.samples / elapsed


def report_window(window: Window, epoch: int, batch: int, report) -> str:
    """Log and report the window's means; returns them as the progress bar's postfix."""
    loss, acc, speed = window.means()
    log.info("epoch %d batch %d loss %.4f acc %.2f", epoch, batch, loss, acc)
    report({"train/loss": loss, "train/acc": acc, "train/lr": window.lr,
            "train/samples_per_sec": speed})
    return f"loss {loss:.4f} acc {acc:.2f}"
