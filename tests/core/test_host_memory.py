"""core.host_memory: after ``import core`` a freed multi-MB numpy array stays in the C heap for
the next one (instead of being unmapped and mapped afresh), unless CORE_HEAP_REUSE=0."""
import ctypes
import os
import subprocess
import sys

import pytest

from core import host_memory

PROBE = """
import ctypes, json
import core, numpy as np

class Info(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd",
                "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]

libc = ctypes.CDLL("libc.so.6")
libc.mallinfo2.restype = Info
block = np.ones(8 << 18, np.float32)  # 8 MB
mapped = libc.mallinfo2().hblkhd
del block
print(json.dumps({"applied": core.host_memory.applied, "mapped_while_held": mapped,
                  "heap_free_after": libc.mallinfo2().fordblks}))
"""


def _has_mallinfo2() -> bool:
    try:
        ctypes.CDLL("libc.so.6").mallinfo2  # noqa: B018 - glibc >= 2.33
    except (OSError, AttributeError):
        return False
    return True


pytestmark = pytest.mark.skipif(host_memory._glibc_mallopt() is None or not _has_mallinfo2(),
                                reason="needs glibc (mallopt, mallinfo2)")


def _probe(**env) -> dict:
    import json

    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                         check=True, env={**os.environ, **env}).stdout
    return json.loads(out)


def test_freed_blocks_stay_in_the_heap_after_import_core():
    seen = _probe(CORE_HEAP_REUSE="1")
    assert seen["applied"] is True
    assert seen["mapped_while_held"] < 8 << 20  # served from the heap, not a fresh mapping
    assert seen["heap_free_after"] >= 8 << 20   # and kept there once freed


def test_core_heap_reuse_0_leaves_the_allocator_alone():
    seen = _probe(CORE_HEAP_REUSE="0")
    assert seen["applied"] is False
    assert seen["mapped_while_held"] >= 8 << 20  # glibc's default: a mapping of its own
    assert seen["heap_free_after"] < 8 << 20


def test_the_switch_is_read_from_the_given_environment():
    assert host_memory.keep_freed_blocks({"CORE_HEAP_REUSE": "off"}) is False
    assert host_memory.keep_freed_blocks({}) is True
