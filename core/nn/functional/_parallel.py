"""Host threads and reusable memory for the im2col ops (conv2d, pooling).

Two ways to use two cores: let BLAS thread each GEMM (the default), or split the batch over
Python threads with one BLAS thread each (``set_host_threads(True)``), which also runs the
im2col copies and pooling in parallel (numpy and BLAS release the GIL). Which wins depends on
the machine: on this project's 2-vCPU VM the Python threads lost (0.74x; every numpy call hands
the GIL over, and thread wake-ups are slow there); on a quiet 16-core Xeon VM they won (1.4x).
Each worker gets a fixed, contiguous slice of the batch and partial results are combined in
slice order, so results are deterministic for a given thread count. The thread count follows
the BLAS thread count the user chose (``threadpoolctl``, ``OMP_NUM_THREADS``...); device (cupy)
arrays always run inline.

Reusable memory: per-thread scratch buffers and the strided views over them are built once per
geometry (``thread_cached``), and large outputs recycle arrays nobody references any more
(``recycled_empty``): fresh multi-megabyte arrays are fresh memory mappings whose pages fault in
on first write.
"""
from __future__ import annotations

import os
import sys
import threading
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from core import backend

_MAX_CACHED = 64  # per thread; a network needs a few entries per layer geometry

_local = threading.local()
_lock = threading.Lock()
_executor: ThreadPoolExecutor | None = None
_blas_libs: list | None = None
_host_threads = False


def set_host_threads(enabled: bool) -> None:
    """Split conv/pool batches over Python threads (True) or leave threading to BLAS (False)."""
    global _host_threads
    _host_threads = bool(enabled)


def _blas() -> list:
    """threadpoolctl's controllers of the loaded BLAS libraries (found once; [] without it)."""
    global _blas_libs
    if _blas_libs is None:
        try:
            from threadpoolctl import ThreadpoolController  # noqa: PLC0415 - optional, slow
        except ImportError:
            _blas_libs = []
        else:
            _blas_libs = ThreadpoolController().select(user_api="blas").lib_controllers
    return _blas_libs


def host_workers(array, items: int) -> int:
    """How many threads to split ``items`` images over: with host threads on, the BLAS thread
    count for host arrays; else 1.

    Device arrays get 1: a GPU parallelises inside each kernel, and cupy's current device is
    per thread, so extra host threads would only add risk.
    """
    if not _host_threads or not isinstance(array, np.ndarray) or items < 2:
        return 1
    libs = _blas()
    if not libs:
        return 1
    return max(1, min(items, libs[0].num_threads, os.cpu_count() or 1))


def run_split(items: int, workers: int, task) -> list:
    """``[task(start, stop) for each of `workers` contiguous slices of range(items)]``.

    The first slice runs on the calling thread, the others on a shared pool; while they run
    every BLAS library is held at one thread (restored afterwards, even on error).
    """
    if workers <= 1:
        return [task(0, items)]
    bounds = [items * i // workers for i in range(workers + 1)]
    libs = _blas()
    saved = [lib.num_threads for lib in libs]
    for lib in libs:
        lib.set_num_threads(1)
    try:
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
    finally:
        for lib, count in zip(libs, saved):
            lib.set_num_threads(count)


def _pool(size: int) -> ThreadPoolExecutor:
    global _executor
    with _lock:
        if _executor is None or _executor._max_workers < size:
            _executor = ThreadPoolExecutor(max_workers=size, thread_name_prefix="core-im2col")
        return _executor


def thread_cached(key, make):
    """The object ``make()`` built for ``key`` on this thread (kept for the next call).

    Used for scratch buffers and the strided views over them: building them once per thread
    and geometry keeps the per-block Python work, which holds the GIL, to a few calls.
    Never hand a cached buffer to a caller.
    """
    cache = getattr(_local, "cache", None)
    if cache is None:
        cache = _local.cache = OrderedDict()
    item = cache.get(key)
    if item is None:
        item = cache[key] = make()
        if len(cache) > _MAX_CACHED:
            cache.popitem(last=False)
    else:
        cache.move_to_end(key)
    return item


_recycled: OrderedDict = OrderedDict()
_MAX_RECYCLED = 3    # arrays kept per shape
_MAX_SHAPES = 16     # shapes kept (least recently used dropped)


def recycled_empty(xp, shape: tuple, dtype):
    """Like ``xp.empty``, but may return an array this function made before and that nothing
    references any more: an op output or input gradient of a previous step.

    Why: a fresh multi-megabyte array is a fresh memory mapping, and the first write to each of
    its pages faults into the kernel; on the tutorial CNN that costs about 15% of a training
    step. Only the cache's own references may remain for an array to be reused (CPython's
    reference count says so exactly: views and exported buffers hold a reference to it), so a
    reused array can never be observed by anyone else.
    """
    key = (tuple(shape), np.dtype(dtype).str, xp.__name__)
    with _lock:
        kept = _recycled.get(key)
        if kept is None:
            kept = _recycled[key] = []
            if len(_recycled) > _MAX_SHAPES:
                _recycled.popitem(last=False)
        else:
            _recycled.move_to_end(key)
        for array in kept:
            # References: the list, the loop variable and getrefcount's own argument.
            if sys.getrefcount(array) == 3:
                return array
        array = xp.empty(shape, dtype)
        if len(kept) < _MAX_RECYCLED:
            kept.append(array)
        return array


def recycled_like(array):
    """``recycled_empty`` with ``array``'s shape, dtype and memory order.

    Element-wise ops must keep the channels-last memory under an NCHW view (see conv.py), and
    their outputs are as large as a conv's, so they page-fault just the same when fresh.
    """
    xp = backend.array_module(array)
    order = sorted(range(array.ndim), key=lambda axis: -abs(array.strides[axis]))
    memory_shape = tuple(array.shape[axis] for axis in order)
    base = recycled_empty(xp, memory_shape, array.dtype)
    return base.transpose([order.index(axis) for axis in range(array.ndim)])
