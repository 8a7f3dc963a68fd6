"""What a started ``core.profiler.Profiler`` records: host time ranges, kept as plain tuples.

This module is the one place the rest of core reaches: ``Layer.__call__``, ``Optimizer.step``
and ``DataLoader.__iter__`` test one of two module flags and do nothing else while no profiler
runs (a flag test is a few nanoseconds; see docs/paddle.md). It imports nothing from core, so
any part of core may import it without an import cycle.

- ``RECORDING``: the profiler's scheduler is in RECORD or RECORD_AND_RETURN (and it is not
  ``timer_only``): ranges are appended to the event list.
- ``ACTIVE``: a profiler is started at all; its step timer (``step_info``'s reader cost)
  reads the DataLoader's waits in every state, as Paddle's benchmark timer does.

An event is ``(kind, name, start_ns, end_ns, thread id)``, ``kind`` a ``TracerEventType``
name, times from ``time.perf_counter_ns``. Ranges of one thread nest (they are opened and
closed in stack order), which the summary and the Chrome trace rely on.
"""
from __future__ import annotations

import contextlib
import functools
import threading
import time
from enum import Enum

RECORDING = False
ACTIVE = False

clock = time.perf_counter_ns
_events: list[tuple] = []
_local = threading.local()  # .layers: the open Layer ranges of this thread (layer, name)
_synchronize = None  # set while a GPU target is profiled: waits for the queued kernels
_reader_sink = None  # the started profiler's step timer: record_reader(seconds)
_names: dict[tuple[int, int], str] = {}  # (id(parent), id(layer)) -> structured name


class TracerEventType(Enum):
    """The kinds of range core records, with the values of Paddle's ``TracerEventType``
    (``paddle.profiler`` passes them to ``RecordEvent(event_type=...)``). Paddle's operator,
    kernel, memory-copy and communication kinds have no counterpart: core cannot observe
    them (docs/paddle.md)."""

    Dataloader = 1
    ProfileStep = 2
    UserDefined = 7
    Forward = 9
    Backward = 10
    Optimization = 11
    PythonUserDefined = 14


def begin(kind: str, name: str) -> tuple:
    """Open a range: the token ``end`` closes."""
    if _synchronize is not None:
        _synchronize()  # work queued before the range is not the range's
    return kind, name, clock()


def end(token: tuple) -> None:
    """Close the range ``token`` opened and keep it (only while recording: a range opened in
    RECORD state and closed after the profiler stopped is dropped)."""
    if _synchronize is not None:
        _synchronize()  # the range's kernels have run, not just been queued
    stop = clock()
    if RECORDING:
        kind, name, start = token
        _events.append((kind, name, start, stop, threading.get_ident()))


def take_events() -> list[tuple]:
    """The events recorded so far, removed from the recorder."""
    global _events
    taken, _events = _events, []
    return taken


# ----- layers -------------------------------------------------------------------------------
def open_layer(layer) -> tuple:
    """Open the Forward range of ``layer``'s call (``Layer.__call__`` calls this only while
    recording). Its name is the layer's structured name under the outermost layer being run
    (``fc1``, ``block.0.conv``); an outermost layer is named by its class."""
    stack = getattr(_local, "layers", None)
    if stack is None:
        stack = _local.layers = []
    name = _layer_name(layer, stack[-1] if stack else None)
    stack.append((layer, name))
    return begin(TracerEventType.Forward.name, name)


def close_layer(token: tuple) -> None:
    _local.layers.pop()
    end(token)


def _layer_name(layer, parent) -> str:
    if parent is None:
        return type(layer).__name__
    parent_layer, parent_name = parent
    key = (id(parent_layer), id(layer))
    name = _names.get(key)
    if name is None:
        # a sublayer called by its parent: its dotted path there (a grandchild called
        # directly is found too); a layer the parent does not own keeps its class name
        name = next((path for path, sub in parent_layer.named_sublayers() if sub is layer),
                    type(layer).__name__)
        _names[key] = name
    if not parent_name or len(_local.layers) == 1:
        return name
    return f"{parent_name}.{name}"


def forget_layer_names() -> None:
    """Drop the name cache (ids may be reused once a profiling session's layers are gone)."""
    _names.clear()


# ----- optimizer steps and data loading -----------------------------------------------------
def recorded_step(method):
    """Decorate an optimizer's ``step``/``minimize``: while recording, the call is one
    Optimization range named ``<Optimizer class>.<method>``."""

    @functools.wraps(method)
    def run(self, *args, **kwargs):
        if not RECORDING:
            return method(self, *args, **kwargs)
        token = begin(TracerEventType.Optimization.name, f"{type(self).__name__}.{method.__name__}")
        try:
            return method(self, *args, **kwargs)
        finally:
            end(token)

    return run


def timed_batches(batches, name: str):
    """``batches`` (an iterator) with each ``next`` timed: a Dataloader range while recording,
    and the reader cost of the started profiler's step timer. Closing this generator closes
    ``batches`` (a DataLoader pass stops its workers and prefetch thread on close)."""
    try:
        while True:
            start = clock()
            try:
                batch = next(batches)
            except StopIteration:
                return
            stop = clock()
            if _reader_sink is not None:
                _reader_sink.record_reader((stop - start) / 1e9)
            if RECORDING:
                _events.append((TracerEventType.Dataloader.name, name, start, stop,
                                threading.get_ident()))
            yield batch
    finally:
        close = getattr(batches, "close", None)
        if close is not None:
            close()


# ----- the profiler's switches --------------------------------------------------------------
def set_active(active: bool, reader_sink=None) -> None:
    global ACTIVE, _reader_sink
    ACTIVE, _reader_sink = active, reader_sink if active else None


def set_recording(recording: bool, synchronize=None) -> None:
    global RECORDING, _synchronize
    RECORDING = recording
    _synchronize = synchronize if recording else None


# ----- user ranges --------------------------------------------------------------------------
class RecordEvent(contextlib.ContextDecorator):
    """Paddle's ``paddle.profiler.RecordEvent(name, event_type=TracerEventType.
    PythonUserDefined)``: a named range of your own, recorded while a profiler records.

    ``with RecordEvent("augment"): ...``, ``@RecordEvent("augment")`` on a function, or
    ``event.begin()`` ... ``event.end()``. Ranges nest; the summary lists user ranges in its
    UserDefined table (and Forward/Backward/... ranges in those rows when ``event_type`` says
    so). Outside a recording profiler ``begin``/``end`` do nothing.
    """

    def __init__(self, name: str, event_type: TracerEventType = TracerEventType.PythonUserDefined):
        if not isinstance(name, str) or not name:
            raise TypeError(f"RecordEvent: name must be a non-empty str, got {name!r}")
        if not isinstance(event_type, TracerEventType):
            raise TypeError(f"RecordEvent: event_type must be a core.profiler.TracerEventType "
                            f"({', '.join(t.name for t in TracerEventType)}), got "
                            f"{event_type!r}")
        self.name, self.event_type = name, event_type
        self._tokens: list[tuple] = []  # a decorated function may run inside itself

    def begin(self) -> None:
        """Open the range (ignored unless a profiler records)."""
        if RECORDING:
            self._tokens.append(begin(self.event_type.name, self.name))

    def end(self) -> None:
        """Close the range the latest ``begin`` opened (ignored if none is open)."""
        if self._tokens:
            end(self._tokens.pop())

    def __enter__(self) -> RecordEvent:
        self.begin()
        return self

    def __exit__(self, *exc) -> None:
        self.end()
