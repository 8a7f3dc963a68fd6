"""How long OpenBLAS's idle threads spin after a threaded call, set before numpy loads it.

Why: core runs a large plain GEMM on BLAS's own threads (``core.threads._threaded_blas``) and
the rest of a step on its own threads. After a threaded call OpenBLAS's workers keep spinning
for 2^28 CPU cycles (about 0.1 s) before they sleep, and meanwhile they hold cores that core's
threads need: on the project's 2-vCPU VM the tutorial CNN at batch 1024 (one threaded GEMM in
its Linear layer, then ~100 ms of convolutions on core's threads) ran inference 1.76x slower
and training 1.24x slower than with short spins. 2^19 cycles (about 0.17 ms) keeps the
workers awake between back-to-back GEMMs (an MLP's layers) and parks them before core's next
split: against 2^21 (~0.7 ms, the value before) a transformer block on two threads trains
1.14x and infers 1.10x faster, an MLP 1.01-1.08x, the rest 0.97-1.03x; 2^18 and shorter
spins lost up to 30% on the MLP's inference, its workers asleep by its next GEMM
(child-process runs in docs/performance.md).

OpenBLAS reads ``OPENBLAS_THREAD_TIMEOUT`` once, when it is loaded (with numpy), so
``import core`` sets it only while numpy is not loaded yet and the variable is not set
already. A program that imports numpy first keeps OpenBLAS's default: set the variable in the
environment, or import core before numpy. Other BLAS libraries ignore the variable.
"""
from __future__ import annotations

import os
import sys

VARIABLE = "OPENBLAS_THREAD_TIMEOUT"
SPIN_LOG2_CYCLES = "19"  # OpenBLAS spins 2 ** this many cycles before a worker sleeps

applied = False  # whether this process set the variable before OpenBLAS loaded


def spin_briefly(environ=None, modules=None) -> bool:
    """Set ``OPENBLAS_THREAD_TIMEOUT`` to ``SPIN_LOG2_CYCLES`` unless it is set already or
    numpy is loaded (OpenBLAS then has read it); True when set."""
    global applied
    environ = os.environ if environ is None else environ
    modules = sys.modules if modules is None else modules
    if VARIABLE in environ or "numpy" in modules:
        return False
    environ[VARIABLE] = SPIN_LOG2_CYCLES
    applied = environ is os.environ
    return True


spin_briefly()
