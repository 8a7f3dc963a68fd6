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

Inside a worker, ``get_worker_info()`` (``paddle.io.get_worker_info``) says which worker it is
(``id``, ``num_workers``, its copy of the ``dataset``, a ``seed``); a ``worker_init_fn(id)``
runs first in each worker. ``InterleavedWorkers`` serves iterable datasets: every worker runs
its own iterator and their items are taken in turn, as Paddle does.
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


class WorkerInfo:
    """What ``get_worker_info()`` returns inside a data worker (``paddle.io`` ``WorkerInfo``):
    ``id`` (0 .. num_workers - 1), ``num_workers``, ``dataset`` (this worker's copy: changing it
    in ``worker_init_fn`` changes what this worker reads) and ``seed`` (the pass's base seed plus
    ``id``). Read-only, as Paddle's."""

    __slots__ = ("dataset", "id", "num_workers", "seed")

    def __init__(self, id: int, num_workers: int, dataset, seed: int):  # noqa: A002 - Paddle's
        for name, value in (("id", id), ("num_workers", num_workers), ("dataset", dataset),
                            ("seed", seed)):
            object.__setattr__(self, name, value)

    def __setattr__(self, name, value):
        raise RuntimeError(f"WorkerInfo is read-only: cannot set {name!r}.")

    def __repr__(self) -> str:
        return f"WorkerInfo(id={self.id}, num_workers={self.num_workers}, seed={self.seed})"


_worker_info: WorkerInfo | None = None  # set in a worker process, before worker_init_fn


def get_worker_info() -> WorkerInfo | None:
    """This data worker's ``WorkerInfo``; None in the main process (``paddle.io.
    get_worker_info``)."""
    return _worker_info


class WorkerSetup:
    """What each worker does before its first task: record its ``WorkerInfo`` and call
    ``worker_init_fn(id)``. ``seed``: the pass's base seed (worker ``w`` gets ``seed + w``)."""

    def __init__(self, workers: int, dataset=None, worker_init_fn: Callable | None = None,
                 seed: int = 0, timeout: float = 0):
        self.workers, self.dataset, self.worker_init_fn = workers, dataset, worker_init_fn
        self.seed, self.timeout = int(seed), float(timeout)

    def __call__(self, worker_id: int) -> None:
        global _worker_info
        _worker_info = WorkerInfo(worker_id, self.workers, self.dataset, self.seed + worker_id)
        if self.worker_init_fn is not None:
            self.worker_init_fn(worker_id)


def _context():
    # fork: workers inherit the dataset and reader functions as they are (no pickling, so a
    # reader defined anywhere works); spawn-only platforms fall back to the default method.
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else None)


def _work(tasks: list, run_task: Callable, out, worker_id: int = 0, setup=None,
          chunk_size: int = _CHUNK) -> None:
    """A worker's loop: set up (``WorkerSetup``), run each task, send its samples in chunks of
    ``chunk_size``, then ("done", task)."""
    _default_signals()
    try:
        if setup is not None:
            setup(worker_id)
        for task_id, task in tasks:
            chunk = []
            for sample in run_task(task):
                chunk.append(sample)
                if len(chunk) == chunk_size:
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

    def __init__(self, tasks: list, run_task: Callable, workers: int,
                 setup: WorkerSetup | None = None):
        self.workers = workers
        self.count = len(tasks)
        self.timeout = setup.timeout if setup is not None else 0.0
        numbered = list(enumerate(tasks))
        self.processes, self.queues = _start(
            min(workers, len(tasks)), lambda w: (numbered[w::workers], run_task), setup, _CHUNK)

    def __iter__(self) -> Iterator[tuple[int, list]]:
        try:
            for task_id in range(self.count):
                w = task_id % self.workers
                while True:
                    kind, got_id, payload = _get(self.queues[w], self.processes[w], w,
                                                 self.timeout)
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


class InterleavedWorkers:
    """Start ``workers`` processes that each iterate ``make_source()`` (after ``setup``) and
    send every item as it comes; iterate for the items, taken from the workers in turn (worker
    0, 1, ..., 0, 1, ...), skipping a worker once its source is exhausted, as Paddle's loader
    does for an iterable dataset. Each worker runs the whole source: splitting the work is the
    source's business (``get_worker_info()``), as in Paddle."""

    def __init__(self, make_source: Callable, workers: int, setup: WorkerSetup | None = None):
        self.timeout = setup.timeout if setup is not None else 0.0
        self.processes, self.queues = _start(
            workers, lambda w: ([(0, None)], lambda _: make_source()), setup, 1)

    def __iter__(self) -> Iterator:
        try:
            active = list(range(len(self.processes)))
            while active:
                for w in list(active):
                    kind, _, payload = _get(self.queues[w], self.processes[w], w, self.timeout)
                    if kind == "error":
                        detail, trace = payload
                        raise WorkerError(f"data worker {w} failed: {detail}\n{trace}")
                    if kind == "done":
                        active.remove(w)
                    else:
                        yield from payload
        finally:
            self.close()

    def close(self) -> None:
        _stop(self.processes, self.queues)
        self.processes, self.queues = [], []


def _start(count: int, work_of: Callable, setup, chunk_size: int) -> tuple[list, list]:
    """Fork ``count`` workers; worker ``w`` runs ``_work(*work_of(w), ...)`` on its own
    queue. (processes, queues); all are stopped if one fails to start."""
    ctx = _context()
    processes, queues = [], []
    try:
        for w in range(count):
            out = ctx.Queue(maxsize=_DEPTH)
            tasks, run_task = work_of(w)
            proc = ctx.Process(target=_work, args=(tasks, run_task, out, w, setup, chunk_size),
                               daemon=True, name=f"tomlrun-data-{w}")
            with _sigterm_blocked():
                proc.start()
            queues.append(out)
            processes.append(proc)
    except BaseException:
        _stop(processes, queues)
        raise
    return processes, queues


def _get(out, proc, w: int, timeout: float = 0.0):
    """The next message of worker ``w``; a WorkerError when it died, or when ``timeout`` > 0
    seconds pass without one (the loader's ``timeout``)."""
    waited = 0.0
    while True:
        try:
            return out.get(timeout=_POLL_SEC)
        except queue.Empty:
            waited += _POLL_SEC
            if timeout and waited >= timeout:
                raise WorkerError(f"data worker {w} (pid {proc.pid}) sent nothing for "
                                  f"{timeout:g} s (the DataLoader's timeout={timeout:g}).") \
                    from None
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
