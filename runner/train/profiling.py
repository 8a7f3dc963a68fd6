"""``trainer.profile = true``: where the time of a training step goes, layer by layer.

Forward time of each leaf layer (a layer without sublayers) is measured by a forward pre-hook and
post-hook. Backward time uses array hooks on the layers' outputs: a hook fires when the gradient
of that output is complete, i.e. when the layer's own backward starts; the time until the next
such mark (or the end of backward) is that layer's backward time. The time from the end of the
model's forward to the first mark is the loss (its forward and backward). Optimizer time runs
from ``EndForwardBackward`` to ``EndIteration`` (update and schedule); "data + loop" is the time
between one ``EndIteration`` and the next ``BeginIteration`` (reading the batch, logging).

Times are host wall-clock times: exact on the CPU; on a GPU, kernels run asynchronously, so a
layer's time is when its kernels were queued rather than run. The table is printed at the end
and saved as ``profile.txt`` (logged to MLflow).
"""
from __future__ import annotations

import logging
import os
import time
from collections import defaultdict

from core.atomic import atomic_write
from core.tensor import Tensor
from runner.train.events import BeginIteration, EndForwardBackward, EndIteration

log = logging.getLogger(__name__)
PROFILE_FILE = "profile.txt"
_clock = time.perf_counter


class Profiler:
    """Per-layer forward and backward times, optimizer and data time, per training batch."""

    def __init__(self, trainer):
        self.trainer = trainer
        self.forward: dict[str, float] = defaultdict(float)
        self.backward: dict[str, float] = defaultdict(float)
        self.other: dict[str, float] = defaultdict(float)  # loss, optimizer, data + loop, step
        self.batches = 0
        self._marks: list[tuple[float, str]] = []
        self._started: dict[str, float] = {}
        self._times: dict[str, float] = {}
        self.layers = [(name, layer) for name, layer in trainer.model.named_sublayers()
                       if not layer._sub_layers]

    def attach(self) -> None:
        for name, layer in self.layers:
            layer.register_forward_pre_hook(self._pre(name))
            layer.register_forward_post_hook(self._post(name))
        self.trainer.model.register_forward_post_hook(self._model_done)
        self.trainer.on(BeginIteration, self._begin)
        self.trainer.on(EndForwardBackward, self._backward_done)
        self.trainer.on(EndIteration, self._end)

    # ----- hooks ---------------------------------------------------------------------------
    def _pre(self, name: str):
        def hook(layer, inputs):
            del inputs
            if layer.training:  # validation and test passes are not training steps
                self._started[name] = _clock()

        return hook

    def _post(self, name: str):
        def hook(layer, inputs, output):
            del inputs
            if not layer.training:
                return
            self.forward[name] += _clock() - self._started.pop(name, _clock())
            if isinstance(output, Tensor) and not output.stop_gradient:
                output.register_array_hook(self._mark(name))

        return hook

    def _mark(self, name: str):
        def hook(grad):
            self._marks.append((_clock(), name))
            return grad

        return hook

    def _model_done(self, layer, inputs, output) -> None:
        del inputs, output
        if layer.training:
            self._times["forward_end"] = _clock()

    def _begin(self, event) -> None:
        del event
        now = _clock()
        if "end" in self._times:
            self.other["data + loop"] += now - self._times["end"]
        self._times["begin"] = now
        self._marks = []

    def _backward_done(self, event) -> None:
        del event
        now = _clock()
        self._times["backward_end"] = now
        marks = sorted(self._marks) + [(now, "")]
        if "forward_end" in self._times:
            self.other["loss"] += marks[0][0] - self._times["forward_end"]
        for (start, name), (stop, _) in zip(marks, marks[1:]):
            self.backward[name] += stop - start

    def _end(self, event) -> None:
        del event
        now = _clock()
        self.other["optimizer"] += now - self._times.get("backward_end", now)
        self.other["step"] += now - self._times.get("begin", now)
        self._times["end"] = now
        self.batches += 1

    # ----- report --------------------------------------------------------------------------
    def table(self) -> str:
        """The profile as a fixed-width text table (ms per batch and share of a batch's time)."""
        n = max(self.batches, 1)
        total = (self.other["step"] + self.other["data + loop"]) / n or 1e-12
        rows = [(name, self.forward[name] / n, self.backward[name] / n)
                for name, _ in self.layers]
        lines = [f"profile over {self.batches} batches (ms per batch; share of a batch's time)",
                 f"{'layer':<24}{'forward':>10}{'backward':>10}{'share':>8}"]
        for name, fwd, bwd in rows:
            lines.append(f"{name:<24}{fwd * 1e3:>10.3f}{bwd * 1e3:>10.3f}"
                         f"{(fwd + bwd) / total:>8.1%}")
        for name in ("loss", "optimizer", "data + loop"):
            value = self.other[name] / n
            lines.append(f"{name:<24}{value * 1e3:>20.3f}{value / total:>8.1%}")
        lines.append(f"{'batch total':<24}{total * 1e3:>20.3f}{1:>8.1%}")
        return "\n".join(lines)

    def finish(self, tracker, folder) -> str:
        """Print the table, save it as ``profile.txt`` in ``folder`` and log it."""
        text = self.table()
        log.info("%s", text)
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, PROFILE_FILE)
        with atomic_write(path, "w", encoding="utf-8") as handle:
            handle.write(text + "\n")
        tracker.log_artifact(path)
        return path
