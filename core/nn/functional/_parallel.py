"""Reusable memory for the im2col ops (conv2d, pooling) and the element-wise ops beside them.

Per-thread scratch buffers and the strided views over them are built once per geometry
(``thread_cached``; each of core's worker threads has its own, see core.threads), the im2col
matrices of all geometries share one buffer per thread (``shared_scratch``), and large outputs
recycle arrays nobody references any more (``recycled_empty``): fresh multi-megabyte arrays are
fresh memory mappings whose pages fault in on first write.
"""
from __future__ import annotations

import math
import os
import sys
import threading
from collections import OrderedDict

import numpy as np

from core import backend

_MAX_CACHED = 64  # per thread; a network needs a few entries per layer geometry

_local = threading.local()
_lock = threading.Lock()


def _after_fork_in_child() -> None:
    global _lock
    _lock = threading.Lock()  # it may have been held by another thread at the fork


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


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


# Elements of a thread's shared scratch buffer at least: conv2d's blocks hold about 2 MB of
# im2col matrix (4 MB where a strided conv's backward needs two), so one buffer serves them all.
_SHARED_MIN_BYTES = 1 << 22


def shared_scratch(xp, shape: tuple, dtype, slot: str = "matrix"):
    """A ``shape`` view of this thread's one scratch buffer for ``slot`` and ``dtype``: its
    contents are undefined and the next caller on this thread with that slot overwrites them.

    Why: each conv2d geometry (and block size) has its own im2col plan, and a ResNet keeps ~20
    per thread; their matrices, ~2 MB each, took 23 MB per thread when each plan owned one,
    though a thread fills and multiplies only one matrix at a time. A request larger than the
    buffer gets a larger one; plans built before keep the old one (their views hold it).
    """
    need = math.prod(shape)
    dtype = np.dtype(dtype)
    buffers = getattr(_local, "shared", None)
    if buffers is None:
        buffers = _local.shared = {}
    key = (slot, xp.__name__, dtype.str)
    buffer = buffers.get(key)
    if buffer is None or buffer.size < need:
        buffer = buffers[key] = xp.empty(max(need, _SHARED_MIN_BYTES // dtype.itemsize), dtype)
    return buffer[:need].reshape(shape)


_recycled: OrderedDict = OrderedDict()
_MAX_RECYCLED = 3    # arrays kept per shape
_MAX_SHAPES = 16     # shapes kept (least recently used dropped)
# Smaller arrays are plain ``xp.empty``: glibc serves requests under its default mmap
# threshold (128 KB) from the heap, without fresh mappings, and for them the cache's lock and
# lookups were most of an op's cost (a ReLU on [4, 4]: 9.9 -> 4 us).
_RECYCLE_MIN_BYTES = 1 << 17


def recycled_empty(xp, shape: tuple, dtype):
    """Like ``xp.empty``, but may return an array this function made before and that nothing
    references any more: an op output or input gradient of a previous step.

    Why: a fresh multi-megabyte array is a fresh memory mapping, and the first write to each of
    its pages faults into the kernel; on the tutorial CNN that costs about 15% of a training
    step. Only the cache's own references may remain for an array to be reused (CPython's
    reference count says so exactly: views and exported buffers hold a reference to it), so a
    reused array can never be observed by anyone else.
    """
    if math.prod(shape) * np.dtype(dtype).itemsize < _RECYCLE_MIN_BYTES:
        return xp.empty(shape, dtype)
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
    if array.flags.c_contiguous:
        return recycled_empty(xp, array.shape, array.dtype)
    order, back = backend.memory_order(array)
    base = recycled_empty(xp, tuple(array.shape[axis] for axis in order), array.dtype)
    return base.transpose(back)
