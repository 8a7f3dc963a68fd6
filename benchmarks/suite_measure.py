"""Measurements beside the timings of ``benchmarks/suite.py``: the sgemm peak, FLOPs per sample,
peak memory of one framework in a child process, and the BLAS libraries that ran.

The suite's device is ``cpu`` or ``gpu:N``; what differs on a GPU lives here: torch's name for
the device, readying torch for it, waiting for queued kernels, the GPU's sgemm peak, what ran,
and device memory in place of RSS. cupy and torch are imported only in the helpers that use them.
"""
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


# ----- the device ------------------------------------------------------------------------------
def torch_device(device: str) -> str:
    """torch's name for the suite's device: our gpu:N is torch's cuda:N (both count the GPUs
    visible to the process)."""
    return "cpu" if device == "cpu" else "cuda:" + device.partition(":")[2]


def prepare_torch(device: str) -> str | None:
    """Ready torch for ``device``; None when it can run there, else why not, in one line.

    On a GPU, float32 stays IEEE float32: torch lets cuDNN's convolutions use TF32 by default,
    cupy's cuBLAS does not (unless CUPY_TF32=1), and the libraries must do the same arithmetic
    for the numerics check and a fair race."""
    if device == "cpu":
        return None
    import torch  # noqa: PLC0415 - a core-only child never loads torch

    index = int(device.partition(":")[2])
    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if index >= count:
        return (f"--device {device}: torch {torch.__version__} sees {count} CUDA GPU(s) "
                f"(torch.version.cuda={torch.version.cuda}); install a CUDA build of torch "
                "or use --device cpu")
    torch.cuda.set_device(index)  # no stray context on cuda:0 when N > 0
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    return None


def synchronize(framework: str, device: str) -> None:
    """Wait for the GPU work ``framework`` has queued: kernels launch asynchronously, so a clock
    read before this would time the launches, not the work. Nothing to wait for on the CPU."""
    if device == "cpu":
        return
    if framework == "core":
        import cupy  # noqa: PLC0415 - only on a GPU

        cupy.cuda.Device().synchronize()  # core's current device: all its streams
    else:
        import torch  # noqa: PLC0415

        torch.cuda.synchronize(torch_device(device))


def device_sgemm_peak(size: int = 4096, repeats: int = 5) -> float:
    """GFLOP/s of cupy's float32 square GEMM (cuBLAS, IEEE float32) on the current GPU, best of
    ``repeats``: the GPU's counterpart of ``sgemm_peak``."""
    import cupy  # noqa: PLC0415 - only on a GPU

    a = cupy.random.standard_normal((size, size), dtype=cupy.float32)
    b = cupy.random.standard_normal((size, size), dtype=cupy.float32)
    out = cupy.empty_like(a)
    gpu = cupy.cuda.Device()
    cupy.matmul(a, b, out=out)  # warm-up: cuBLAS handle and kernel choice
    gpu.synchronize()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        cupy.matmul(a, b, out=out)
        gpu.synchronize()
        best = min(best, time.perf_counter() - start)
    return 2.0 * size ** 3 / best / 1e9


def device_info(device: str) -> dict:
    """What ran: on a GPU its name, the CUDA driver, cupy's and torch's versions."""
    if device == "cpu":
        return {"device": "cpu"}
    import cupy  # noqa: PLC0415 - only on a GPU
    import torch  # noqa: PLC0415

    driver = cupy.cuda.runtime.driverGetVersion()  # 13000 for CUDA 13.0
    return {"device": device, "torch_device": torch_device(device),
            "gpu": torch.cuda.get_device_name(torch_device(device)),
            "cuda_driver": f"{driver // 1000}.{driver % 1000 // 10}", "cupy": cupy.__version__,
            "torch": torch.__version__, "torch_cuda": torch.version.cuda,
            "float32": "IEEE (no TF32)"}


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
    """In this (child) process, on core's current device: build ``name`` in ``framework`` only,
    then run a few training and inference steps, and report the memory the steps themselves
    needed above what imports and model building took (torch's larger library does not count
    against it): RSS on the CPU, the allocator's reserved device memory on a GPU."""
    from suite import WORKLOADS, make_pair  # noqa: PLC0415 - the child imports lazily

    pair = make_pair(WORKLOADS[name](quick), framework, batches=2)
    gc.collect()
    if pair.device == "cpu":
        return _host_step_memory(pair, framework)
    return _device_step_memory(pair, framework)


def _steps(pair, framework: str) -> None:
    pair.train(framework, 3)
    pair.infer(framework, 3)
    synchronize(framework, pair.device)


def _host_step_memory(pair, framework: str) -> dict:
    base = _status_kb("VmRSS")
    exact = _reset_peak()
    _steps(pair, framework)
    peak = _status_kb("VmHWM")  # without the reset: the peak since the start
    return {"base_mb": base / 1024, "peak_mb": peak / 1024, "step_mb": (peak - base) / 1024,
            "exact": exact}


def _device_step_memory(pair, framework: str) -> dict:
    """Device memory the steps made the library's caching allocator reserve, above what it held
    after building the model and optimizer. Reserved bytes (blocks held for reuse), not bytes in
    use, for both libraries: what the process takes from the GPU."""
    synchronize(framework, pair.device)
    if framework == "core":
        base, peak = _cupy_pool_growth(lambda: _steps(pair, framework))
        measure = "cupy default memory pool total_bytes(), after the steps minus before"
    else:
        base, peak = _torch_reserved_growth(lambda: _steps(pair, framework), pair.device)
        measure = "torch.cuda.max_memory_reserved() during the steps minus memory_reserved() before"
    mb = 1 << 20
    return {"base_mb": base / mb, "peak_mb": peak / mb, "step_mb": (peak - base) / mb,
            "measure": measure}


def _cupy_pool_growth(steps) -> tuple[int, int]:
    import cupy  # noqa: PLC0415 - only on a GPU

    pool = cupy.get_default_memory_pool()
    base = pool.total_bytes()
    steps()
    return base, pool.total_bytes()  # the pool only grows (nothing here frees its blocks)


def _torch_reserved_growth(steps, device: str) -> tuple[int, int]:
    import torch  # noqa: PLC0415

    where = torch_device(device)
    base = torch.cuda.memory_reserved(where)
    torch.cuda.reset_peak_memory_stats(where)  # the peak from here on is the steps' own
    steps()
    return base, torch.cuda.max_memory_reserved(where)


def run_memory_child(framework: str, name: str, quick: bool, device: str = "cpu") -> dict | None:
    cmd = [sys.executable, str(HERE / "suite.py"), "--child-memory", f"{framework}:{name}",
           "--device", device]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(HERE.parent), env.get("PYTHONPATH", "")])
    proc = subprocess.run(cmd + (["--quick"] if quick else []), capture_output=True, text=True,
                          env=env, timeout=300)
    if proc.returncode != 0:
        print(f"memory child {framework}:{name} failed:\n{proc.stderr[-2000:]}", file=sys.stderr)
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])
