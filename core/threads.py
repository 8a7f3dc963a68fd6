"""The CPU threads core uses: ``set_num_threads(n)`` and the pool that runs an op's slices.

Why a pool of our own rather than BLAS threads: a CNN step on the CPU is half GEMMs and half
element-wise numpy work (im2col copies, pooling, ReLU), which numpy runs on one thread. With
``set_num_threads(n)`` the ops split their batch into n contiguous slices and run them on n
threads (numpy and BLAS release the GIL), and BLAS is held at one thread per slice, so every
core works on every part of the step. BLAS must not keep threads of its own meanwhile:
OpenBLAS's workers spin for about 0.1 s after each threaded call, and on a 2-vCPU VM that
spinning took the second core from our threads (the step then ran 1.4x slower than with BLAS
threads alone; with BLAS at one thread it ran 1.3x faster). Measured numbers: benchmarks/README.md.

By default (from ``import core``) core uses every core this process may use
(``default_threads``: the affinity mask and the cgroup CPU quota, or ``OMP_NUM_THREADS`` where it
is set), as torch does; ``set_num_threads`` overrides it, and ``1`` gives BLAS its own threads
back. Each slice is fixed by the thread count and partial results are combined
in slice order, so results are deterministic for a given count. Device (cupy) arrays always
run inline: a GPU parallelises inside each kernel, and cupy's current device is per thread.
"""
from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

_lock = threading.Lock()
_executor: ThreadPoolExecutor | None = None
_threads = 1
_blas_limit = None  # threadpoolctl's limiter holding BLAS at one thread while _threads > 1


def set_num_threads(threads: int) -> None:
    """Use ``threads`` CPU threads (PaddlePaddle's trainer_count); BLAS runs one per thread.

    ``1`` goes back to a single thread and restores the BLAS thread count found before.
    """
    global _threads, _blas_limit
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ValueError(f"set_num_threads: threads must be an int >= 1, got {threads!r}")
    with _lock:
        if threads > 1 and _blas_limit is None:
            _blas_limit = _limit_blas()
        elif threads == 1 and _blas_limit is not None:
            _blas_limit.restore_original_limits()
            _blas_limit = None
        _threads = threads


def get_num_threads() -> int:
    """The CPU threads core's ops use (``set_num_threads``)."""
    return _threads


def available_cores() -> int:
    """The CPU cores this process may run on: its affinity mask (e.g. one per rank under
    ``mpirun``'s core binding; the machine's count where there is no mask), capped by the
    cgroup CPU quota a container runs under (a 2-CPU quota on a 64-core host is 2 cores:
    more threads would only be throttled)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    quota = cgroup_cpu_quota()
    return max(1, min(cores, quota)) if quota else max(1, cores)


_CGROUP = "/sys/fs/cgroup"
# Thread counts a user may have set for every library; the first one set is taken
# (OMP_NUM_THREADS is what torch and OpenMP read).
THREAD_ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def cgroup_cpu_quota(root: str | None = None) -> int | None:
    """CPUs the cgroup quota allows, rounded up (cgroup v2 ``cpu.max``, else v1
    ``cpu.cfs_quota_us`` / ``cpu.cfs_period_us``); None without a quota."""
    root = _CGROUP if root is None else root
    try:
        with open(os.path.join(root, "cpu.max")) as f:
            quota, period = (f.read().split() + ["100000"])[:2]
    except OSError:
        try:
            with open(os.path.join(root, "cpu", "cpu.cfs_quota_us")) as f:
                quota = f.read().strip()
            with open(os.path.join(root, "cpu", "cpu.cfs_period_us")) as f:
                period = f.read().strip()
        except OSError:
            return None
    try:
        quota_us, period_us = int(quota), int(period)
    except ValueError:  # "max": no quota
        return None
    if quota_us <= 0 or period_us <= 0:  # v1 writes -1 for no quota
        return None
    return -(-quota_us // period_us)


def default_threads(environ=None) -> int:
    """The thread count ``import core`` starts with: the first of ``THREAD_ENV`` that holds a
    positive int (its first entry when it is an OpenMP list such as ``4,2``), else every
    available core (``available_cores``)."""
    environ = os.environ if environ is None else environ
    for name in THREAD_ENV:
        value = environ.get(name, "").split(",")[0].strip()
        if value.isdigit() and int(value) > 0:
            return int(value)
    return available_cores()


def _start_with_default() -> None:
    """Called once at import. Without threadpoolctl BLAS could not be held at one thread per
    worker, and splitting under BLAS's own spinning threads was slower (see the docstring), so
    core then stays at one thread and BLAS keeps its threads."""
    threads = default_threads()
    if threads > 1:
        try:
            set_num_threads(threads)
        except RuntimeError:
            pass


def _limit_blas():
    try:
        from threadpoolctl import threadpool_limits  # noqa: PLC0415 - optional, slow import
    except ImportError as exc:
        raise RuntimeError("set_num_threads needs the threadpoolctl package to hold BLAS at one "
                           "thread per worker: pip install threadpoolctl") from exc
    return threadpool_limits(limits=1, user_api="blas")


def host_workers(array, items: int) -> int:
    """How many threads to split ``items`` (images, rows) of ``array`` over: the thread count
    for host arrays with at least two items, else 1."""
    if _threads == 1 or items < 2 or not isinstance(array, np.ndarray):
        return 1
    return min(items, _threads)


def run_split(items: int, workers: int, task) -> list:
    """``[task(start, stop) for each of `workers` contiguous slices of range(items)]``.

    The first slice runs on the calling thread, the others on the shared pool; every slice has
    finished (or failed) before this returns or raises.
    """
    if workers <= 1:
        return [task(0, items)]
    bounds = [items * i // workers for i in range(workers + 1)]
    pool = _pool(workers - 1)
    futures = [pool.submit(task, bounds[i], bounds[i + 1]) for i in range(1, workers)]
    try:
        first = task(bounds[0], bounds[1])
    finally:
        rest = [f.exception() or f.result() for f in futures]  # wait for all before raising
    for item in rest:
        if isinstance(item, BaseException):
            raise item
    return [first, *rest]


def _pool(size: int) -> ThreadPoolExecutor:
    global _executor
    with _lock:
        if _executor is None or _executor._max_workers < size:
            _executor = ThreadPoolExecutor(max_workers=size, thread_name_prefix="core-worker")
        return _executor


def _after_fork_in_child() -> None:
    """A forked process (a data-loader worker) inherits the pool object but none of its
    threads, and perhaps a lock held at the fork: start both afresh, or its first split waits
    forever."""
    global _executor, _lock
    _executor, _lock = None, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


# ----- GEMMs split by rows (Linear layers; conv2d splits its own blocks) ------------------------
_SPLIT_MIN_MACS = 1 << 21  # multiply-adds: below this one BLAS call beats a thread hand-off


def matmul_rows(xp, a, b):
    """``a @ b`` for 2-D ``a`` [m, k] and ``b`` [k, n], split over the threads when the product
    is large: by rows of ``a`` when m >= n, else by columns of ``b``.

    Why either: each thread reads all of the operand it does not split. With few rows (a
    batch of 32 against a 1024 x 1024 weight) a row split has every thread stream the whole
    weight for a skinny GEMM; a column split reads each part of the weight once.
    """
    m, n = a.shape[0], b.shape[1]
    out = None
    if m * a.shape[1] * n >= _SPLIT_MIN_MACS:
        workers = host_workers(a, max(m, n))
        if workers > 1:
            out = xp.empty((m, n), dtype=xp.result_type(a, b))
            if m >= n:
                run_split(m, workers, lambda i, j: xp.matmul(a[i:j], b, out=out[i:j]))
            else:
                run_split(n, workers, lambda i, j: _into(xp, out[:, i:j], a, b[:, i:j]))
    return xp.matmul(a, b) if out is None else out


def _into(xp, target, a, b) -> None:
    target[...] = xp.matmul(a, b)  # a column block: BLAS writes a contiguous result first


def matmul_inner(xp, a, b):
    """``a.T @ b`` for ``a`` [m, k] and ``b`` [m, n] (a weight gradient: a sum over the m rows),
    split over the threads when large by the output's rows (k) or columns (n), whichever is
    longer: every element is summed by one thread (no partial products to add, and no
    [k, n] partial per thread when the batch m is small)."""
    m, k, n = a.shape[0], a.shape[1], b.shape[1]
    workers = host_workers(a, max(k, n)) if m * k * n >= _SPLIT_MIN_MACS else 1
    if workers == 1:
        return a.T @ b
    out = xp.empty((k, n), dtype=xp.result_type(a, b))
    if k >= n:
        run_split(k, workers, lambda i, j: xp.matmul(a[:, i:j].T, b, out=out[i:j]))
    else:
        run_split(n, workers, lambda i, j: _into(xp, out[:, i:j], a.T, b[:, i:j]))
    return out


def matmul(xp, a, b):
    """``xp.matmul(a, b)``, with the rows of ``a`` split over the threads when ``b`` is 2-D and
    ``a`` is 2-D or a contiguous stack of rows ([..., m, k]: its leading dimensions are rows too)
    and the product is large; any other broadcasting is left to ``xp.matmul``."""
    if b.ndim != 2 or a.ndim < 2 or _threads == 1 or (a.ndim > 2 and not a.flags.c_contiguous):
        return xp.matmul(a, b)
    return matmul_rows(xp, a.reshape(-1, a.shape[-1]), b).reshape(a.shape[:-1] + (b.shape[1],))


_start_with_default()  # every core from ``import core`` (see default_threads)
