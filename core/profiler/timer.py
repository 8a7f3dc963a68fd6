"""The step timer behind ``Profiler.step_info`` and the "Perf Summary" printed at ``stop``
(Paddle's ``paddle.profiler.timer``): batch cost (time from one ``step()`` to the next),
reader cost (time spent in the DataLoader's ``next``) and throughput.

As in Paddle, ``step_info`` averages the steps since its previous call; the summary at
``stop`` leaves out the first ``SKIPPED_STEPS`` steps (warm-up) and is printed only when more
steps than that were timed.
"""
from __future__ import annotations

import time

SKIPPED_STEPS = 10  # Paddle's skip_iter


class _Extremes:
    """Total, max and min of the values recorded after the skipped steps."""

    def __init__(self):
        self.total, self.max, self.min = 0.0, 0.0, float("inf")

    def add(self, value: float) -> None:
        self.total += value
        self.max, self.min = max(self.max, value), min(self.min, value)


class StepTimer:
    """One started profiler's timings (``begin`` at ``start``, ``step`` at each ``step``)."""

    def __init__(self):
        self.reader_time = self.batch_time = 0.0  # since the last step_info
        self.reader_calls = self.batch_calls = self.samples = 0
        self.steps = 0  # every step since start
        self.reader, self.batch, self.speed = _Extremes(), _Extremes(), _Extremes()
        self.summary_samples = 0
        self.per_sample = True  # False once a step() came without num_samples: steps/s
        self._started = time.perf_counter()

    def begin(self) -> None:
        self._started = time.perf_counter()

    def record_reader(self, seconds: float) -> None:
        """One DataLoader ``next`` took ``seconds``."""
        if seconds <= 0:
            return
        self.reader_time += seconds
        self.reader_calls += 1
        if self.steps >= SKIPPED_STEPS:
            self.reader.add(seconds)

    def step(self, num_samples=None) -> None:
        """A step ended now (``num_samples``: its batch size, for samples/s)."""
        now = time.perf_counter()
        cost, self._started = now - self._started, now
        if num_samples is None:
            self.per_sample = False
        self.batch_time += cost
        self.batch_calls += 1
        self.samples += num_samples or 0
        self.steps += 1
        if self.steps >= SKIPPED_STEPS and cost > 0:
            self.batch.add(cost)
            if self.per_sample:
                self.speed.add(num_samples / cost)
                self.summary_samples += num_samples
            else:
                self.speed.add(1.0 / cost)

    def step_info(self, unit: str) -> str:
        """Paddle's string: `` reader_cost: 0.00011 s batch_cost: 0.00405 s ips: 987.654
        samples/s`` (averages since the previous call; reader_cost only when a DataLoader was
        read), then the averages restart."""
        message = ""
        if self.reader_calls:
            message += f" reader_cost: {self.reader_time / self.reader_calls:.5f} s"
        speed_unit = f"{unit}/s" if self.per_sample else "steps/s"
        if self.batch_calls:
            message += f" batch_cost: {self.batch_time / self.batch_calls:.5f} s"
        speed = self._speed()
        if speed:
            message += f" ips: {speed:.3f} {speed_unit}"
        self.reader_time = self.batch_time = 0.0
        self.reader_calls = self.batch_calls = self.samples = 0
        return message

    def _speed(self) -> float:
        if not self.batch_time:
            return 0.0
        return (self.samples if self.per_sample else self.batch_calls) / self.batch_time

    def summary(self, unit: str = "samples") -> str:
        """The "Perf Summary" table Paddle prints at ``stop`` ('' when at most
        ``SKIPPED_STEPS`` steps ran)."""
        counted = self.steps - SKIPPED_STEPS + 1  # the steps whose costs were recorded
        if self.steps <= SKIPPED_STEPS or self.batch.total <= 0:
            return ""
        reader_avg = self.reader.total / counted
        batch_avg = self.batch.total / counted
        speed_avg = (self.summary_samples if self.per_sample else counted) / self.batch.total
        lines = ["Perf Summary".center(100, "=")]
        if reader_avg:
            lines.append(f"Reader Ratio: {reader_avg / batch_avg * 100:.3f}%")
        lines.append(f"Time Unit: s, IPS Unit: {unit + '/s' if self.per_sample else 'steps/s'}")
        lines.append(_row("", "avg", "max", "min"))
        if reader_avg:
            lines.append(_stats("reader_cost", reader_avg, self.reader))
        lines.append(_stats("batch_cost", batch_avg, self.batch))
        lines.append(_stats("ips", speed_avg, self.speed))
        return "\n".join(lines)


def _row(*cells: str) -> str:
    return "| " + " | ".join(cell.center(15) for cell in cells) + " |"


def _stats(name: str, average: float, extremes: _Extremes) -> str:
    return _row(name, f"{average:.5f}", f"{extremes.max:.5f}", f"{extremes.min:.5f}")
