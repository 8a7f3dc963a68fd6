"""Measurements beside the timings of ``benchmarks/suite.py``: the sgemm peak, FLOPs per sample,
peak memory of one framework in a child process, and the BLAS libraries that ran."""
from __future__ import annotations

import contextlib
import gc
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def blas_libraries() -> list[dict]:
    """threadpoolctl's view of the loaded BLAS/OpenMP libraries: which kernels ran."""
    from threadpoolctl import threadpool_info  # noqa: PLC0415

    return [{"api": lib["user_api"], "library": lib["internal_api"],
             "threads": lib["num_threads"], "kernels": lib.get("architecture") or "-",
             "file": Path(lib["filepath"]).name} for lib in threadpool_info()]


@contextlib.contextmanager
def blas_threads(count: int | None):
    """numpy's BLAS at ``count`` threads inside the block (None: leave it)."""
    if count is None:
        yield
        return
    from threadpoolctl import threadpool_limits  # noqa: PLC0415

    with threadpool_limits(limits=count, user_api="blas"):
        yield


def sgemm_peak(threads: int, size: int = 2048, repeats: int = 3) -> float:
    """GFLOP/s of numpy's float32 square GEMM on ``threads`` BLAS threads (best of repeats)."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((size, size), dtype=np.float32)
    b = rng.standard_normal((size, size), dtype=np.float32)
    out = np.empty_like(a)
    best = float("inf")
    with blas_threads(threads):
        np.matmul(a, b, out=out)
        for _ in range(repeats):
            start = time.perf_counter()
            np.matmul(a, b, out=out)
            best = min(best, time.perf_counter() - start)
    return 2.0 * size ** 3 / best / 1e9


def flops_per_sample(workload, torch_model, batch) -> tuple[float | None, float | None]:
    """(training, inference) FLOPs per sample, counted by torch's FlopCounterMode on one step
    (GEMMs and convolutions; the element-wise work is not counted). None where it counts 0."""
    import torch  # noqa: PLC0415
    from torch.utils.flop_counter import FlopCounterMode  # noqa: PLC0415

    counts = []
    for train in (True, False):
        counter = FlopCounterMode(display=False)
        with counter:
            if train:
                workload.torch_loss(torch_model, batch).backward()
            else:
                with torch.no_grad():
                    workload.torch_forward(torch_model, *batch[:-1])
        counts.append(counter.get_total_flops() / workload.batch or None)
    torch_model.zero_grad(set_to_none=True)
    return counts[0], counts[1]


# ----- peak memory: one framework and one workload per child process ---------------------------
def _status_kb(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def _reset_peak() -> bool:
    """Reset VmHWM to the current RSS (Linux >= 4.0), so the peak is the step's own."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def child_memory(framework: str, name: str, quick: bool) -> dict:
    """In this (child) process: build ``name`` in ``framework`` only, then run a few training
    and inference steps; the peak RSS above the RSS after imports and model building is what
    the steps themselves needed (torch's larger library does not count against it)."""
    from suite import WORKLOADS, make_pair  # noqa: PLC0415 - the child imports lazily

    workload = WORKLOADS[name](quick)
    pair = make_pair(workload, framework, batches=2)
    gc.collect()
    base = _status_kb("VmRSS")
    exact = _reset_peak()
    pair.train(framework, 3)
    pair.infer(framework, 3)
    peak = _status_kb("VmHWM")  # without the reset: the peak since the start
    return {"base_mb": base / 1024, "peak_mb": peak / 1024, "step_mb": (peak - base) / 1024,
            "exact": exact}


def run_memory_child(framework: str, name: str, quick: bool) -> dict | None:
    cmd = [sys.executable, str(HERE / "suite.py"), "--child-memory", f"{framework}:{name}"]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(HERE.parent), env.get("PYTHONPATH", "")])
    proc = subprocess.run(cmd + (["--quick"] if quick else []), capture_output=True, text=True,
                          env=env, timeout=300)
    if proc.returncode != 0:
        print(f"memory child {framework}:{name} failed:\n{proc.stderr[-2000:]}", file=sys.stderr)
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])
