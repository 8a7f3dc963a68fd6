"""The profiler's states and schedulers: step number -> ``ProfilerState`` (Paddle's rules).

``make_scheduler(closed, ready, record, repeat, skip_first)`` cycles CLOSED x closed ->
READY x ready -> RECORD x (record - 1) -> RECORD_AND_RETURN, after ``skip_first`` CLOSED
steps, ``repeat`` times (0: for ever), then CLOSED. A ``(start, end)`` tuple records steps
``[start, end)``: one READY step before them when ``start >= 1``, as Paddle builds it.
"""
from __future__ import annotations

import numbers
import warnings
from collections.abc import Callable
from enum import Enum


class ProfilerState(Enum):
    """Paddle's ``ProfilerState``: CLOSED (nothing recorded), READY (open, not recording: the
    step before recording, whose start-up cost is not measured), RECORD, RECORD_AND_RETURN
    (the last recorded step of a period: the data is handed to ``on_trace_ready``)."""

    CLOSED = 0
    READY = 1
    RECORD = 2
    RECORD_AND_RETURN = 3


RECORDING_STATES = (ProfilerState.RECORD, ProfilerState.RECORD_AND_RETURN)


def make_scheduler(*, closed: int, ready: int, record: int, repeat: int = 0,
                   skip_first: int = 0) -> Callable[[int], ProfilerState]:
    """Paddle's ``paddle.profiler.make_scheduler(*, closed, ready, record, repeat=0,
    skip_first=0)``: a function ``step -> ProfilerState`` (see the module docstring).

    ``make_scheduler(closed=1, ready=1, record=4, repeat=1)``: step 0 CLOSED, 1 READY, 2-4
    RECORD, 5 RECORD_AND_RETURN, then CLOSED. As in Paddle, ``ready=0`` warns that the first
    recorded step includes the profiler's start-up."""
    counts = {"closed": closed, "ready": ready, "record": record, "repeat": repeat,
              "skip_first": skip_first}
    for name, value in counts.items():
        least = 1 if name == "record" else 0
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < least:
            raise ValueError(f"make_scheduler: {name} must be an int >= {least}, got {value!r}")
    if ready == 0:
        warnings.warn("make_scheduler: ready=0, so the profiler records right after it is "
                      "enabled: the first recorded step may be 'noisy' with its start-up "
                      "overhead.", stacklevel=2)
    period = closed + ready + record

    def state_of(step: int) -> ProfilerState:
        if isinstance(step, bool) or not isinstance(step, numbers.Integral) or step < 0:
            raise ValueError(f"scheduler: step must be an int >= 0, got {step!r}")
        if step < skip_first:
            return ProfilerState.CLOSED
        step -= skip_first
        if repeat > 0 and step // period >= repeat:
            return ProfilerState.CLOSED
        position = step % period
        if position < closed:
            return ProfilerState.CLOSED
        if position < closed + ready:
            return ProfilerState.READY
        return ProfilerState.RECORD if position < period - 1 else ProfilerState.RECORD_AND_RETURN

    return state_of


def _always_record(step: int) -> ProfilerState:
    """Paddle's default scheduler: record from start to stop."""
    del step
    return ProfilerState.RECORD


def as_scheduler(scheduler) -> Callable[[int], ProfilerState]:
    """``Profiler(scheduler=...)``: a callable as it is, a ``(start, end)`` pair as Paddle
    turns it into ``make_scheduler``, None as "always record"."""
    if scheduler is None:
        return _always_record
    if callable(scheduler):
        return scheduler
    if isinstance(scheduler, (tuple, list)) and len(scheduler) == 2 and all(
            isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in scheduler) \
            and scheduler[1] > scheduler[0] and scheduler[1] > 0:
        start, stop = max(int(scheduler[0]), 0), int(scheduler[1])
        if start >= 1:
            return make_scheduler(closed=start - 1, ready=1, record=stop - start, repeat=1)
        return make_scheduler(closed=0, ready=0, record=stop, repeat=1)  # warns, as Paddle
    raise ValueError(f"Profiler: scheduler must be a callable step -> ProfilerState (see "
                     f"make_scheduler), a (start_batch, end_batch) pair of ints with "
                     f"end_batch > start_batch, or None; got {scheduler!r}")
