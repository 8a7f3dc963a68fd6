"""Worker processes that decode samples, with results in the same order as without them.

A pass is a list of *tasks* (a file to read, or the indices of one batch). Worker ``w`` runs
tasks ``w, w + n, w + 2n, ...`` and sends their samples in chunks on its own bounded queue; the
main process reads task after task from the worker that owns it. The order is therefore the one
a single process would produce, whatever the workers' speeds, and memory is bounded by
``workers x depth x chunk`` samples. Workers are forked at the start of a pass (they inherit the
dataset and reader, nothing is pickled but the samples) and stopped at its end, also when the
consumer stops early or a worker fails: a failure is raised in the main process as
``WorkerError`` with the worker's message (which names the file and sample), and a worker that
dies without a word (killed, crashed) is noticed within a tenth of a second: nothing hangs.
"""
from __future__ import annotations

import contextlib
import multiprocessing
import queue
import signal
import traceback
from collections.abc import Callable, Iterator

_CHUNK = 64  # samples per message: fewer, larger pickles
_DEPTH = 4  # chunks a worker may have waiting before it blocks
_POLL_SEC = 0.1


class WorkerError(RuntimeError):
    """A data worker failed; the message says which file or sample and why."""


def _context():
    # fork: workers inherit the dataset and reader functions as they are (no pickling, so a
    # reader defined anywhere works); spawn-only platforms fall back to the default method.
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else None)


def _work(tasks: list, run_task: Callable, out) -> None:
    """A worker's loop: run each task, send its samples in chunks, then ("done", task)."""
    _default_signals()
    try:
        for task_id, task in tasks:
            chunk = []
            for sample in run_task(task):
                chunk.append(sample)
                if len(chunk) == _CHUNK:
                    out.put(("data", task_id, chunk))
                    chunk = []
            if chunk:
                out.put(("data", task_id, chunk))
            out.put(("done", task_id, None))
    except BaseException as exc:  # noqa: BLE001 - every failure must reach the main process
        detail = f"{type(exc).__name__}: {exc}"
        out.put(("error", None, (detail, traceback.format_exc())))


def _default_signals() -> None:
    """A forked worker inherits the parent's signal handlers: a trainer's handler that turns
    SIGTERM into a graceful-stop exception would make ``close()``'s terminate print that
    exception's traceback from every worker. A worker just ends on SIGTERM, and leaves Ctrl-C
    (SIGINT, sent to the whole process group) to the parent, which stops it. SIGTERM was
    blocked across the fork (``_sigterm_blocked``), so one sent before this point waits, then
    ends the worker quietly."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})


@contextlib.contextmanager
def _sigterm_blocked():
    """SIGTERM held back in this thread while it forks (the child inherits the mask): a
    terminate() that reaches a worker before its first line waits instead of running the
    parent's handler there. The parent's own SIGTERM, if one comes, is delivered after."""
    blocked = hasattr(signal, "pthread_sigmask")
    if blocked:
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    try:
        yield
    finally:
        if blocked:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)


class OrderedWorkers:
    """Start ``workers`` processes on ``tasks`` now; iterate for ``(task position, chunk)``.

    Starting in the constructor lets the main thread fork the workers even when a prefetch
    thread does the reading. ``close()`` (also run when iteration ends or fails) stops them.
    """

    def __init__(self, tasks: list, run_task: Callable, workers: int):
        ctx = _context()
        self.workers = workers
        self.count = len(tasks)
        self.queues, self.processes = [], []
        numbered = list(enumerate(tasks))
        try:
            for w in range(min(workers, len(tasks))):
                out = ctx.Queue(maxsize=_DEPTH)
                proc = ctx.Process(target=_work, args=(numbered[w::workers], run_task, out),
                                   daemon=True, name=f"tomlrun-data-{w}")
                with _sigterm_blocked():
                    proc.start()
                self.queues.append(out)
                self.processes.append(proc)
        except BaseException:
            self.close()
            raise

    def __iter__(self) -> Iterator[tuple[int, list]]:
        try:
            for task_id in range(self.count):
                w = task_id % self.workers
                while True:
                    kind, got_id, payload = _get(self.queues[w], self.processes[w], w)
                    if kind == "error":
                        detail, trace = payload
                        raise WorkerError(f"data worker {w} failed: {detail}\n{trace}")
                    if got_id != task_id:  # cannot happen with one queue per worker
                        raise WorkerError(f"data worker {w} sent task {got_id}, expected "
                                          f"{task_id}.")
                    if kind == "done":
                        break
                    yield task_id, payload
        finally:
            self.close()

    def close(self) -> None:
        _stop(self.processes, self.queues)
        self.processes, self.queues = [], []


def _get(out, proc, w: int):
    while True:
        try:
            return out.get(timeout=_POLL_SEC)
        except queue.Empty:
            if not proc.is_alive():
                try:  # it may have written its last message just before exiting
                    return out.get(timeout=_POLL_SEC)
                except queue.Empty:
                    raise WorkerError(f"data worker {w} (pid {proc.pid}) exited with code "
                                      f"{proc.exitcode} without finishing its files.") from None


def _stop(processes: list, queues: list) -> None:
    for proc in processes:
        if proc.is_alive():
            proc.terminate()
    for proc in processes:
        proc.join(timeout=5)
    for out in queues:
        out.cancel_join_thread()  # do not block on data nobody will read
        out.close()
