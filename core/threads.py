"""The CPU threads core uses: ``set_num_threads(n)`` and the pool that runs an op's slices.

Why a pool of our own rather than BLAS threads: a CNN step on the CPU is half GEMMs and half
element-wise numpy work (im2col copies, pooling, ReLU), which numpy runs on one thread. With
``set_num_threads(n)`` the ops split their batch into n contiguous slices and run them on n
threads (numpy and BLAS release the GIL), and BLAS is held at one thread per slice, so every
core works on every part of the step. BLAS must not keep threads of its own meanwhile:
OpenBLAS's workers spin for about 0.1 s after each threaded call, and on a 2-vCPU VM that
spinning took the second core from our threads (the step then ran 1.4x slower than with BLAS
threads alone; with BLAS at one thread it ran 1.3x faster). Measured numbers: benchmarks/README.md.
The exceptions are GEMMs with nothing to split beside them: one large plain GEMM (a Linear
layer's) gets core's thread count for BLAS for the length of that call (``matmul_rows``), since
BLAS splits one GEMM better than we do, and a recurrence's chain of small per-step GEMMs gets it
for the whole scan (``blas_threads``). OpenBLAS takes such a count from the main thread only
(numpy's 0.3.31 ignored one set on another thread: docs/performance.md), where training runs.

By default (from ``import core``) core uses every core this process may use
(``default_threads``: the affinity mask and the cgroup CPU quota, or ``OMP_NUM_THREADS`` where it
is set), as torch does; ``set_num_threads`` overrides it, and ``1`` gives BLAS its own threads
back. Each slice is fixed by the thread count and partial results are combined
in slice order, so results are deterministic for a given count. Device (cupy) arrays always
run inline: a GPU parallelises inside each kernel, and cupy's current device is per thread.
"""
from __future__ import annotations

import contextlib
import math
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


# What a split costs: handing slices to the pool and waiting for them took ~80 µs on the
# project's 2-vCPU VM (an empty run_split over two threads: two wake-ups across cores, in
# benchmarks/README.md), so an op splits only when its work takes several times that on one
# thread. Work is counted in element passes (one read-modify-write of an element: 0.3-0.5 ns)
# or in BLAS multiply-adds (~0.01 ns each on one core). Splitting every op whatever its size
# made a small CNN with BatchNorm 1.6x slower on two threads than with these limits.
_MIN_SPLIT_PASSES = 1 << 19
_MIN_SPLIT_MACS = 1 << 23


def host_workers(array, items: int, *, passes: float | None = None,
                 macs: float | None = None) -> int:
    """How many threads to split ``items`` (images, rows, blocks) of ``array`` over: core's
    thread count for a host array whose work pays for a split, else 1. The work is ``macs``
    multiply-adds, or ``passes`` element passes (by default one pass over ``array``)."""
    if _threads == 1 or items < 2 or not isinstance(array, np.ndarray) \
            or getattr(_slice, "running", False):  # in a slice already: the pool is taken
        return 1
    if macs is not None:
        worth = macs >= _MIN_SPLIT_MACS
    else:
        worth = (array.size if passes is None else passes) >= _MIN_SPLIT_PASSES
    return min(items, _threads) if worth else 1


# Set while a thread runs a slice of a split. A slice that splits again would queue its parts
# behind the pool's busy threads, and slices waiting on each other never finish: inside a
# slice, ``host_workers`` answers 1 and nested work runs inline.
_slice = threading.local()


def _run_slice(task, start: int, stop: int):
    _slice.running = True
    try:
        return task(start, stop)
    finally:
        _slice.running = False


def run_split(items: int, workers: int, task) -> list:
    """``[task(start, stop) for each of `workers` contiguous slices of range(items)]``.

    The first slice runs on the calling thread, the others on the shared pool; every slice has
    finished (or failed) before this returns or raises.
    """
    if workers <= 1:
        return [task(0, items)]
    global _active_splits
    bounds = [items * i // workers for i in range(workers + 1)]
    pool = _pool(workers - 1)
    with _lock:
        _active_splits += 1
    try:
        futures = [pool.submit(_run_slice, task, bounds[i], bounds[i + 1])
                   for i in range(1, workers)]
        try:
            first = _run_slice(task, bounds[0], bounds[1])
        finally:
            rest = [f.exception() or f.result() for f in futures]  # wait for all, then raise
    finally:
        with _lock:
            _active_splits -= 1
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


# ----- large plain GEMMs: BLAS's own threads, for the length of one call --------------------
_blas_lock = threading.Lock()
_blas_controllers = None  # threadpoolctl's BLAS controllers, found on first use
_active_splits = 0        # run_split calls in progress (their slices may call BLAS themselves)


def matmul_rows(xp, a, b):
    """``a @ b`` for 2-D ``a`` [m, k] and ``b`` [k, n]; a large product runs on BLAS's own
    threads (``_threaded_blas``)."""
    return _threaded_blas(a, b, lambda: xp.matmul(a, b))


def matmul_any_order(xp, a, b):
    """``a @ b`` for 2-D ``a`` [m, k] and ``b`` [k, n], in the memory order OpenBLAS computes
    faster: with few rows and many columns (``2 <= m <= 48``, ``n >= 256``) the result is the
    transpose of a C-contiguous [n, m] product, ``(b.T @ a.T).T``, an F-ordered view with no
    copy. For a Linear layer's forward: its output goes to element-wise ops and GEMMs, which
    take either order. Measured (median of 9): [16, 784] x [784, 1024] 469 -> 369 us on one
    thread, 229 -> 208 on two; [4, 784] x [784, 1024] 1.46x / 1.29x; an MLP 784-1024-1024-10
    forward at 32 rows 1.24x / 1.04x; at 64 rows 1.02x / 0.96x, hence the limit. Device
    arrays keep the plain form: the measurements are OpenBLAS's.
    """
    m, n = a.shape[0], b.shape[1]
    if not _FEW_ROWS_MIN <= m <= _FEW_ROWS_FORWARD or n < _MANY_COLUMNS \
            or not isinstance(a, np.ndarray):
        return matmul_rows(xp, a, b)
    return _threaded_blas(b.T, a.T, lambda: xp.matmul(b.T, a.T)).T


_FEW_ROWS_MIN, _FEW_ROWS_FORWARD, _MANY_COLUMNS = 2, 48, 256  # one row: a GEMV either way


def matmul_inner(xp, a, b):
    """``a.T @ b`` for ``a`` [m, k] and ``b`` [m, n] (a weight gradient: a sum over the m rows);
    a large product runs on BLAS's own threads."""
    del xp
    return _threaded_blas(a, b, lambda: a.T @ b)


def matmul_transposed(xp, a, b, order: str = "C"):
    """``a @ b.T`` for ``a`` [m, n] and ``b`` [k, n] (a Linear's input gradient: g @ W^T), in
    memory ``order`` ("C", or "F" for the gradient of an input that ``matmul_any_order`` made
    F-ordered: element-wise ops between the two then see one layout); a large product runs on
    BLAS's own threads.

    "F" is always ``(b @ a.T).T``, a view. For "C", few rows and a long reduction (``m <= 64``,
    ``n >= 256``) go that way too, plus one transposing copy: OpenBLAS runs a product with few
    rows and a long reduction slowly, and the other orientation 1.2-1.9x faster (measured with
    the copy, one and two threads: [32, 1024] x [1024, 784] 706 -> 484 us on one thread,
    [8, 1024] x [1024, 1024] 605 -> 328 us; [64, 384] x [384, 128] 1.04-1.18x). Short
    reductions (a classifier's 10 outputs) or tiny products lose to the copy and keep the
    plain form.
    """
    m, n = a.shape
    if order == "C" and (m > _FEW_ROWS or n < _LONG_REDUCTION
                         or m * n * b.shape[0] < _MIN_SWAP_MACS):
        return _threaded_blas(a, b.T, lambda: xp.matmul(a, b.T))
    swapped = _threaded_blas(b, a.T, lambda: xp.matmul(b, a.T))
    return swapped.T if order == "F" else xp.ascontiguousarray(swapped.T)


_FEW_ROWS, _LONG_REDUCTION, _MIN_SWAP_MACS = 64, 256, 1 << 20


@contextlib.contextmanager
def blas_threads(array):
    """BLAS at core's thread count for the block: for a chain of GEMMs on host arrays, each too
    small to split (a recurrence's steps: [64, 128] x [128, 384] took 67 us on one BLAS thread
    and 41 on two, where giving core's threads half the batch each lost to the GIL). A plain
    block with one thread, a device ``array``, a split running, or another caller holding the
    raise; raises inside the block (``_threaded_blas``) leave it be.
    """
    if _threads == 1 or _active_splits or not isinstance(array, np.ndarray) \
            or not _blas_lock.acquire(blocking=False):
        yield
        return
    try:
        controllers = _blas()
        for controller in controllers:
            controller.set_num_threads(_threads)
        try:
            yield
        finally:
            for controller in controllers:
                controller.set_num_threads(1)
    finally:
        _blas_lock.release()


def _threaded_blas(a, b, product):
    """``product()``, with BLAS at core's thread count while it runs when the GEMM is large.

    Why not split it over core's threads like the other ops: a Linear layer is one GEMM and
    little else, and BLAS splits a GEMM better than two GEMMs of half the size on two threads
    (same-process interleaved runs on 2 cores: MLP b32 step 8.2 -> 6.2 ms, b256 16.4 -> 13.3,
    a transformer block 30.4 -> 27.5; [32, 1024] x [1024, 1024] 0.74 -> 0.38 ms). Outside these
    calls BLAS stays at one thread per core thread (see the module docstring). Only one caller
    at a time raises it, and never while a split is running slices that may call BLAS too.
    """
    if a.shape[0] * a.shape[1] * b.shape[1] < _MIN_SPLIT_MACS:
        return product()
    with blas_threads(a):
        return product()


def _blas() -> list:
    global _blas_controllers
    if _blas_controllers is None:
        from threadpoolctl import ThreadpoolController  # noqa: PLC0415 - slow import

        _blas_controllers = ThreadpoolController().select(user_api="blas").lib_controllers
    return _blas_controllers


def matmul(xp, a, b):
    """``xp.matmul(a, b)`` on core's threads when large: a 2-D ``b`` against a 2-D ``a`` or a
    contiguous stack of rows ([..., m, k]: its leading dimensions are rows too) is one GEMM on
    BLAS's threads; stacks of the same leading shape (attention's [batch, heads, t, d] products)
    are split by their leading items over core's threads, one BLAS thread each. Any other
    broadcasting is left to ``xp.matmul``."""
    if _threads == 1 or a.ndim < 2 or b.ndim < 2 or a.size * b.shape[-1] < _MIN_SPLIT_MACS:
        if b.ndim > 2 and b.strides[-1] > b.strides[-2] and isinstance(b, np.ndarray):
            # A stack of transposed matrices (attention's k^T; v^T in its backward): numpy's
            # stacked matmul runs that form slowly enough that copying it first pays on one
            # thread ([32, 4, 64, 32] x [32, 4, 32, 64]: 491 -> 435 us); split over two
            # threads, the copy would run alone and cost more than it saves.
            b = np.ascontiguousarray(b)
        return xp.matmul(a, b)  # the last: fewer multiply-adds than any split needs
    if b.ndim == 2:
        if a.ndim > 2 and not a.flags.c_contiguous:
            return xp.matmul(a, b)
        rows = matmul_rows(xp, a.reshape(-1, a.shape[-1]), b)
        return rows.reshape(a.shape[:-1] + (b.shape[1],))
    if a.ndim != b.ndim or a.shape[:-2] != b.shape[:-2]:
        return xp.matmul(a, b)
    return _matmul_stack(xp, a, b)


def _matmul_stack(xp, a, b):
    """Equal-shaped stacks of matrices, their items split over core's threads when large."""
    lead, (m, k), n = a.shape[:-2], a.shape[-2:], b.shape[-1]
    items = math.prod(lead)
    workers = host_workers(a, items, macs=items * m * k * n)
    if workers == 1:
        return xp.matmul(a, b)
    if lead[0] >= workers:
        # Split along the outermost axis: slices of views, where flattening the leading axes
        # of a strided stack (attention's heads: views into one qkv array) copied it first.
        # On two threads: q k^T [32, 4, 64, 32] x [32, 4, 32, 64] 649 -> 353-383 us, the
        # scores times v 380 -> 257-269.
        out = xp.empty(a.shape[:-1] + (n,), dtype=xp.result_type(a, b))
        run_split(lead[0], workers, lambda i, j: xp.matmul(a[i:j], b[i:j], out=out[i:j]))
        return out
    a3, b3 = a.reshape(items, m, k), b.reshape(items, k, n)
    out = xp.empty((items, m, n), dtype=xp.result_type(a, b))
    run_split(items, workers, lambda i, j: xp.matmul(a3[i:j], b3[i:j], out=out[i:j]))
    return out.reshape(lead + (m, n))


_start_with_default()  # every core from ``import core`` (see default_threads)
