"""The C heap keeps the large blocks numpy frees, for the next step's temporaries.

Why: numpy takes every temporary from malloc. glibc serves a block above its mmap threshold
(128 KB at start, then raised to the largest block freed) with freshly mapped pages, and hands
the top of its heap back to the system once more than its trim threshold (twice that) is free.
A training step allocates and frees the same few-MB arrays every step, so their pages were
mapped, faulted in (zeroed by the kernel) and unmapped again every step: a LayerNorm over
[32, 64, 128] spent 1.2 ms doing that and 0.45 ms computing. ``import core`` therefore raises
both thresholds (``mallopt``), so freed blocks stay in the heap and the next step reuses warm
pages: the transformer block's training step went from 48-51 to 36 ms, the MLP's and the
ResNet's by 5-8% (docs/performance.md). The cost: up to ``TRIM_BYTES`` of freed memory stays
with the process instead of going back to the system.

Only glibc has ``mallopt`` (Linux); elsewhere nothing changes. Set ``CORE_HEAP_REUSE=0`` in
the environment before ``import core`` to leave the allocator as it is.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import os

MMAP_BYTES = 64 << 20   # blocks up to this size come from the heap, not from fresh mappings
TRIM_BYTES = 512 << 20  # free memory the heap may keep at its top before giving it back
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameter numbers

applied = False  # whether this process's heap was tuned (for diagnostics and tests)


def keep_freed_blocks(environ=None) -> bool:
    """Raise glibc's mmap and trim thresholds unless ``CORE_HEAP_REUSE=0``; True when done."""
    global applied
    environ = os.environ if environ is None else environ
    if environ.get("CORE_HEAP_REUSE", "1").strip() in ("0", "false", "no", "off"):
        return False
    mallopt = _glibc_mallopt()
    if mallopt is None:
        return False
    applied = bool(mallopt(_M_MMAP_THRESHOLD, MMAP_BYTES)) and bool(
        mallopt(_M_TRIM_THRESHOLD, TRIM_BYTES))
    return applied


def _glibc_mallopt():
    """glibc's ``mallopt``, or None on another C library (musl, macOS, Windows)."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.gnu_get_libc_version  # noqa: B018 - only glibc has it
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return None
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return mallopt


keep_freed_blocks()
