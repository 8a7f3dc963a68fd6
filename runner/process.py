"""Process-wide settings around a run: core's CPU threads, SIGTERM as an exception, and console
logging when nobody configured it. Each is undone when the run ends (in-process callers, such
as tests and sweeps launched in one process, see no change after ``run``).

Also a console that goes away: ``python -m runner | head`` (or a pager quit early) closes
stdout while the command still writes to it. The console handler and ``closed_stdout_is_quiet``
then stop the console output instead of printing a traceback per line.
"""
from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import threading

from core import device as core_device
from core.threads import default_threads

log = logging.getLogger(__name__)

# The exit status of a command whose stdout reader went away: a shell's for a process that
# SIGPIPE ended (128 + 13), as ``yes | head`` leaves it.
EXIT_BROKEN_PIPE = 141


class Terminated(KeyboardInterrupt):
    """SIGTERM turned into an exception, so the run is closed as KILLED like on Ctrl-C."""


class StoppedBeforeRun(KeyboardInterrupt):
    """Ctrl-C before the MLflow run was opened (reading the data, building the model): there is
    no run to mark KILLED, and nothing to resume."""


@contextlib.contextmanager
def before_run():
    """Within the block, Ctrl-C raises ``StoppedBeforeRun``, so that the message does not speak
    of a run that was never made."""
    try:
        yield
    except StoppedBeforeRun:
        raise
    except KeyboardInterrupt as exc:
        raise StoppedBeforeRun(str(exc)) from exc


@contextlib.contextmanager
def cpu_threads(threads: int):
    """Run core's CPU work on ``threads`` threads within the block (PaddlePaddle's
    trainer_count; core.threads); 0 means what ``import core`` starts with: OMP_NUM_THREADS (or
    OPENBLAS_/MKL_NUM_THREADS) where set, else every core this process may use (one per rank
    under mpirun's default core binding). The previous count comes back after."""
    previous = core_device.get_num_threads()
    cores = core_device.available_cores()
    if threads > cores:
        log.warning(
            "runtime.threads = %d is more than the %d core(s) this process may use: the threads "
            "will take turns on them (runtime.threads=0 uses each core once)", threads, cores)
    core_device.set_num_threads(threads if threads > 0 else default_threads())
    try:
        yield
    finally:
        core_device.set_num_threads(previous)


@contextlib.contextmanager
def sigterm_raises():
    """Within the block, SIGTERM raises ``Terminated``; the previous handler comes back after."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers can only be set from the main thread
        return

    def handler(signum, frame):
        del frame
        raise Terminated(f"stopped by signal {signal.Signals(signum).name}")

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def ensure_console_logging() -> None:
    """Show the loop's log lines on stdout when no one (Hydra, the user) configured logging."""
    root = logging.getLogger()
    if not root.handlers:
        logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stdout)


def _stdout_to_devnull() -> None:
    """From now on, what is written to stdout goes nowhere: the reader has closed the pipe, and
    Python would otherwise fail again on every write and on the final flush."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    finally:
        os.close(devnull)


class ConsoleHandler(logging.StreamHandler):
    """Hydra's console handler (``hydra.job_logging`` in conf/config.toml), for a console that
    may close: when stdout's reader has gone (``python -m runner | head``), the run goes on and
    its lines still reach ``tomlrun.log`` and MLflow, but the console gets no more of them,
    where logging printed a "--- Logging error ---" traceback for each line."""

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802 - logging's name
        if isinstance(sys.exc_info()[1], BrokenPipeError) and self.stream is sys.stdout:
            _stdout_to_devnull()
            return
        super().handleError(record)


def closed_stdout_is_quiet(command):
    """Run ``command()`` (an entry point) and return its exit status; when the reader of stdout
    closed it early (``python -m runner.compare | head -3``), exit quietly with
    ``EXIT_BROKEN_PIPE`` instead of a BrokenPipeError traceback."""
    try:
        return command()
    except BrokenPipeError:
        _stdout_to_devnull()
        return EXIT_BROKEN_PIPE
