"""``Profiler``: Paddle's ``paddle.profiler.Profiler`` on what core can observe.

While the scheduler says RECORD (or RECORD_AND_RETURN) the profiler keeps host time ranges:
each step (``ProfileStep#N``, from one ``step()`` to the next), each layer's forward
(``Layer.__call__``), each ``Tensor.backward`` as one range, each optimizer ``step`` /
``minimize``, each DataLoader ``next`` and the user's ``RecordEvent`` ranges. At the end of a
recording period (RECORD_AND_RETURN, or ``stop``) they become ``profiler_result`` and
``on_trace_ready(profiler)`` runs (by default ``export_chrome_tracing('./profiler_log/')``).
In every state the step timer measures batch and reader cost for ``step_info``.

``Tensor.backward`` is timed by a wrapper set on the class while a profiler (other than a
``timer_only`` one) is started and removed at ``stop``: the autograd engine has no hook, and a
profiler that is not running costs nothing. What core does not record (operators, kernels,
memory) is listed in docs/paddle.md.
"""
from __future__ import annotations

import datetime
import functools
import numbers
import os
import socket
import warnings
from collections.abc import Callable
from enum import Enum

from core import backend
from core.device import synchronize
from core.profiler import recorder
from core.profiler.result import ProfilerResult
from core.profiler.scheduler import RECORDING_STATES, ProfilerState, as_scheduler
from core.profiler.summary import SortedKeys, check_options
from core.profiler.timer import StepTimer
from core.tensor import Tensor


class ProfilerTarget(Enum):
    """Paddle's ``ProfilerTarget``: the devices to profile. CPU always; GPU when cupy sees a
    GPU (ranges then end after ``core.device.synchronize()``, so they include the GPU's work);
    XPU and CUSTOM_DEVICE are not supported (a warning, as Paddle gives for a missing
    device)."""

    CPU = 0
    GPU = 1
    XPU = 2
    CUSTOM_DEVICE = 3


def _supported_targets() -> list[ProfilerTarget]:
    if backend.gpu_count() > 0:
        return [ProfilerTarget.CPU, ProfilerTarget.GPU]
    return [ProfilerTarget.CPU]


def export_chrome_tracing(dir_name: str, worker_name: str | None = None) -> Callable:
    """Paddle's ``export_chrome_tracing(dir_name, worker_name=None)``: an ``on_trace_ready``
    that writes each recorded period to ``dir_name`` as
    ``<worker_name>_time_<date>.paddle_trace.json`` (a Chrome trace; ``worker_name`` defaults
    to ``host_<hostname>pid_<pid>``). The folder is made now."""
    if not isinstance(dir_name, (str, os.PathLike)) or not str(dir_name):
        raise TypeError(f"export_chrome_tracing: dir_name must be a folder path, got "
                        f"{dir_name!r}")
    if worker_name is not None and not isinstance(worker_name, str):
        raise TypeError(f"export_chrome_tracing: worker_name must be a str or None, got "
                        f"{worker_name!r}")
    try:
        os.makedirs(dir_name, exist_ok=True)
    except OSError as exc:
        raise RuntimeError(f"export_chrome_tracing: cannot create the folder {dir_name!r} "
                           f"for the profiling results ({exc})") from None

    def handle(prof) -> None:
        worker = worker_name or f"host_{socket.gethostname()}pid_{os.getpid()}"
        stamp = datetime.datetime.now().strftime("%Y_%m_%d_%H_%M_%S_%f")
        prof.export(os.path.join(dir_name, f"{worker}_time_{stamp}.paddle_trace.json"), "json")

    return handle


def export_protobuf(dir_name: str, worker_name: str | None = None) -> Callable:
    """Paddle's ``export_protobuf(dir_name, worker_name=None)``: Paddle's protobuf trace is a
    serialisation of its C++ profiler's node trees, which core neither has nor depends on
    protobuf for; this raises, pointing to ``export_chrome_tracing``, whose files
    ``load_profiler_result`` reads."""
    raise ValueError(f"export_protobuf({dir_name!r}, {worker_name!r}): core does not write "
                     "Paddle's protobuf traces; use on_trace_ready=export_chrome_tracing("
                     "dir_name), a Chrome trace JSON that load_profiler_result reads back.")


class Profiler:
    """Paddle's ``Profiler(*, targets=None, scheduler=None, on_trace_ready=None,
    record_shapes=False, profile_memory=False, timer_only=False, emit_nvtx=False,
    custom_device_types=[], with_flops=False)``.

    ``scheduler``: a callable ``step -> ProfilerState`` (``make_scheduler``), a ``(start,
    end)`` pair recording steps ``[start, end)``, or None (record from start to stop).
    ``timer_only=True`` only times steps (``step_info``), recording nothing. ``record_shapes``,
    ``profile_memory``, ``emit_nvtx`` and ``with_flops`` need operator-level events core does
    not record: True raises.

    ``with Profiler(...) as prof:`` or ``prof.start()``; call ``prof.step()`` after each
    training step; ``prof.stop()``; ``prof.summary()``.
    """

    def __init__(self, *, targets=None, scheduler=None, on_trace_ready=None,  # noqa: PLR0913
                 record_shapes: bool = False, profile_memory: bool = False,
                 timer_only: bool = False, emit_nvtx: bool = False, custom_device_types=None,
                 with_flops: bool = False):
        for name, value in (("record_shapes", record_shapes), ("profile_memory", profile_memory),
                            ("emit_nvtx", emit_nvtx), ("with_flops", with_flops)):
            if value:
                raise ValueError(f"Profiler: {name}=True needs operator-level events, which "
                                 f"core does not record; leave {name} False (docs/paddle.md)")
        del custom_device_types  # only for ProfilerTarget.CUSTOM_DEVICE, which core lacks
        self.targets = _targets(targets)
        self.scheduler = as_scheduler(scheduler)
        if on_trace_ready is not None and not callable(on_trace_ready):
            raise TypeError(f"Profiler: on_trace_ready must be a callable taking the profiler "
                            f"(e.g. export_chrome_tracing(dir)) or None, got {on_trace_ready!r}")
        self.on_trace_ready = on_trace_ready if on_trace_ready is not None else \
            export_chrome_tracing("./profiler_log/")
        if not isinstance(timer_only, bool):
            raise TypeError(f"Profiler: timer_only must be a bool, got {timer_only!r}")
        self.timer_only = timer_only
        self.step_num = 0
        self.previous_state = ProfilerState.CLOSED
        self.current_state = self.scheduler(0)
        self.profiler_result: ProfilerResult | None = None
        self._timer = StepTimer()
        self._step_token = None
        self._started = False
        self._ever_started = False  # for summary()'s message when nothing was recorded

    def __enter__(self) -> Profiler:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    # ----- the state machine ---------------------------------------------------------------
    def start(self) -> None:
        """Start profiling at step 0 (the scheduler's first state)."""
        if self._started:
            raise RuntimeError("Profiler.start: this profiler is already started; stop() it "
                               "first")
        if recorder.ACTIVE:
            raise RuntimeError("Profiler.start: another core.profiler.Profiler is running; "
                               "stop it first (one profiler at a time)")
        self._started = self._ever_started = True
        self._timer = StepTimer()
        self._timer.begin()
        recorder.set_active(True, self._timer)
        if self.timer_only:
            return
        _time_backward(True)
        if self.current_state in RECORDING_STATES:
            self._record(True)
        self._open_step()

    def step(self, num_samples: int | None = None) -> None:
        """End the current step and start the next (``num_samples``: its batch size, for
        ``step_info``'s throughput in samples/s)."""
        if num_samples is not None and (isinstance(num_samples, bool) or not isinstance(
                num_samples, numbers.Integral) or num_samples < 0):
            raise ValueError(f"Profiler.step: num_samples must be an int >= 0 or None, got "
                             f"{num_samples!r}")
        self._check_started("step")
        self._timer.step(num_samples)
        if self.timer_only:
            return
        self._close_step()
        self.previous_state = self.current_state
        self.step_num += 1
        self.current_state = self.scheduler(self.step_num)
        self._transition()
        self._open_step()

    def stop(self) -> None:
        """Stop profiling: a recording period still open ends here (``on_trace_ready`` runs);
        the timer's Perf Summary is printed when more than 10 steps were timed."""
        self._check_started("stop")
        text = self._timer.summary()
        if text:
            print(text)
        try:
            if not self.timer_only:
                self._close_step()
                if self.current_state == ProfilerState.READY:
                    warnings.warn("Profiler.stop: the profiler stops in READY state: nothing "
                                  "was recorded", stacklevel=2)
                if self.current_state in RECORDING_STATES:
                    self._finish_period()
        finally:
            self._record(False)
            _time_backward(False)
            recorder.set_active(False)
            recorder.forget_layer_names()
            self._started = False

    def _transition(self) -> None:
        previous, current = self.previous_state, self.current_state
        if previous == ProfilerState.RECORD_AND_RETURN:
            self._finish_period()
        elif previous == ProfilerState.RECORD and current not in RECORDING_STATES:
            warnings.warn(f"Profiler.step: improper schedule {previous.name} -> {current.name}: "
                          "the period ends without RECORD_AND_RETURN, its data is dropped",
                          stacklevel=3)
            recorder.take_events()
        elif previous == ProfilerState.READY and current == ProfilerState.CLOSED:
            warnings.warn("Profiler.step: improper schedule READY -> CLOSED: nothing is "
                          "recorded", stacklevel=3)
        self._record(current in RECORDING_STATES)

    def _finish_period(self) -> None:
        self._record(False)
        self.profiler_result = ProfilerResult(recorder.take_events())
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def _record(self, on: bool) -> None:
        gpu = ProfilerTarget.GPU in self.targets
        recorder.set_recording(on, synchronize if gpu else None)

    def _open_step(self) -> None:
        self._step_token = recorder.begin(recorder.TracerEventType.ProfileStep.name,
                                          f"ProfileStep#{self.step_num}")

    def _close_step(self) -> None:
        if self._step_token is not None:
            recorder.end(self._step_token)
            self._step_token = None

    def _check_started(self, method: str) -> None:
        if not self._started:
            raise RuntimeError(f"Profiler.{method}: the profiler is not started; call start() "
                               "(or use it as a context manager) first")

    # ----- results -------------------------------------------------------------------------
    def step_info(self, unit: str | None = None) -> str:
        """Paddle's ``step_info(unit=None)``: `` reader_cost: ... s batch_cost: ... s ips:
        ... <unit>/s``, averaged over the steps since the previous call (``unit`` defaults to
        ``samples``; without ``num_samples`` in ``step`` the speed is in steps/s)."""
        if unit is not None and (not isinstance(unit, str) or not unit):
            raise TypeError(f"Profiler.step_info: unit must be a non-empty str or None, got "
                            f"{unit!r}")
        return self._timer.step_info(unit or "samples")

    def export(self, path: str = "", format: str = "json") -> None:  # noqa: A002 - Paddle's
        """Paddle's ``export(path, format='json')``: the last recorded period as a Chrome
        trace at ``path`` (nothing when no period was recorded, as in Paddle)."""
        if format != "json":
            raise ValueError(f"Profiler.export: format must be 'json' (a Chrome trace), got "
                             f"{format!r} (core does not write Paddle's protobuf traces)")
        if not isinstance(path, (str, os.PathLike)) or not str(path):
            raise TypeError(f"Profiler.export: path must be a file path, got {path!r}")
        if self.profiler_result is not None:
            self.profiler_result.save(str(path), format)

    def summary(self, sorted_by: SortedKeys = SortedKeys.CPUTotal, op_detail: bool = True,
                thread_sep: bool = False, time_unit: str = "ms", views=None) -> None:
        """Paddle's ``summary(sorted_by=SortedKeys.CPUTotal, op_detail=True, thread_sep=False,
        time_unit='ms', views=None)``: print the Overview, Model (with Layer) and UserDefined
        tables of the last recorded period (nothing when none was recorded). ``op_detail``
        has no effect (core records no operators); ``thread_sep=True`` splits the Layer and
        UserDefined tables by thread."""
        check_options(sorted_by, time_unit, views)
        if self.profiler_result is None:
            # Paddle prints nothing here; a silent no-op hides a missing start() or stop().
            warnings.warn(f"Profiler.summary: nothing to summarise, {self._why_no_result()}",
                          stacklevel=2)
            return
        self.profiler_result.summary(sorted_by, op_detail, thread_sep, time_unit, views)

    def _why_no_result(self) -> str:
        if self.timer_only:
            return ("this profiler has timer_only=True, which records no events (stop() prints "
                    "the timer's Perf Summary)")
        if not self._ever_started:
            return ("this profiler was never started: call start() (or use it in a with "
                    "block), step() after each training step, stop(), then summary()")
        if self._started:
            return ("no recording period has finished yet: summary() shows the last finished "
                    "period; call stop() (or step past the scheduler's RECORD_AND_RETURN step) "
                    "first")
        return (f"its scheduler never reached a RECORD state in the {self.step_num + 1} steps "
                "run: pass a scheduler that records within them (make_scheduler(...) or a "
                "(start, end) step pair)")


def _targets(targets) -> set[ProfilerTarget]:
    supported = _supported_targets()
    if not targets:
        return set(supported)
    try:
        listed = [targets] if isinstance(targets, ProfilerTarget) else list(targets)
    except TypeError:
        listed = [targets]  # not iterable: reported below
    for target in listed:
        if not isinstance(target, ProfilerTarget):
            raise ValueError(f"Profiler: targets must be ProfilerTarget members "
                             f"({', '.join(t.name for t in ProfilerTarget)}), got {target!r}")
    chosen = set(listed)
    for target in listed:
        if target not in supported:
            chosen.discard(target)
            warnings.warn(f"Profiling {target} is not supported in current context (core "
                          "sees no GPU)." if target is ProfilerTarget.GPU else
                          f"Profiling {target} is not supported by core.", stacklevel=3)
    return chosen


def _time_backward(on: bool) -> None:
    """Wrap ``Tensor.backward`` so that, while recording, each call is one Backward range;
    ``on=False`` puts the original back."""
    current = Tensor.backward
    original = getattr(current, "_profiler_original", None)
    if not on:
        if original is not None:
            Tensor.backward = original
        return
    if original is not None:
        return

    @functools.wraps(current)
    def backward(self, *args, **kwargs):
        if not recorder.RECORDING:
            return current(self, *args, **kwargs)
        token = recorder.begin(recorder.TracerEventType.Backward.name, "backward")
        try:
            return current(self, *args, **kwargs)
        finally:
            recorder.end(token)

    backward._profiler_original = current
    Tensor.backward = backward
