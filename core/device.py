"""``core.device``: Paddle's ``paddle.device`` (``set_device`` / ``get_device``, the device
lists, ``synchronize``), its places (``CPUPlace``, ``CUDAPlace``, ``CUDAPinnedPlace``; see
core.backend), ``core.device.cuda`` (GPU count, memory of cupy's pool, properties), and the CPU
thread count (``set_num_threads`` / ``get_num_threads``, PaddlePaddle's trainer_count; see
core.threads).

A GPU is one cupy sees; without cupy or a GPU, the functions that need one raise a clear error,
as Paddle's do in a CPU-only build.
"""
from __future__ import annotations

import sys
import types
from dataclasses import dataclass

import numpy as np

from core import backend
from core.backend import (
    CPUPlace,
    CUDAPinnedPlace,
    CUDAPlace,
    DeviceError,
    Place,
    get_device,
    gpu_count,
)
from core.framework import is_compiled_with_cuda
from core.threads import available_cores, get_num_threads, set_num_threads

__all__ = ["CPUPlace", "CUDAPinnedPlace", "CUDAPlace", "DeviceError", "Place",
           "available_cores", "cuda", "get_all_device_type", "get_available_device",
           "get_device", "get_num_threads", "gpu_count", "is_compiled_with_cuda", "set_device",
           "set_num_threads", "synchronize"]


def set_device(device) -> Place:
    """Paddle's ``set_device(device)``: new tensors are made on ``device`` ("cpu", "gpu",
    "gpu:N", or a place: ``CPUPlace()``, ``CUDAPlace(N)``); returns its place, as Paddle's."""
    chosen = backend.set_device(device)
    return Place._of(str(chosen))


def get_all_device_type() -> list[str]:
    """Paddle's ``get_all_device_type()``: the kinds of device usable here, ``['cpu']`` or
    ``['cpu', 'gpu']``."""
    return ["cpu", "gpu"] if backend.gpu_count() else ["cpu"]


def get_available_device() -> list[str]:
    """Paddle's ``get_available_device()``: every device usable here, ``['cpu', 'gpu:0',
    ...]`` (core lists the CPU too; Paddle lists only its accelerators)."""
    return ["cpu"] + [f"gpu:{index}" for index in range(backend.gpu_count())]


def synchronize(device=None) -> None:
    """Paddle's ``paddle.device.synchronize(device=None)``: wait until the GPU has finished
    its queued work (for timings). Nothing to wait for on the CPU."""
    target = backend.current_device() if device is None else backend.parse_device(device)
    if target.kind == "gpu":
        cuda.synchronize(target.index)


# ----- core.device.cuda: Paddle's paddle.device.cuda -------------------------------------------
@dataclass(frozen=True)
class GPUDeviceProperties:
    """What ``cuda.get_device_properties`` reports, with the fields of Paddle's
    ``_gpuDeviceProperties``."""
    name: str
    major: int
    minor: int
    total_memory: int
    multi_processor_count: int


# Peaks of cupy's pool seen by the readings below: cupy keeps no high-water marks (see
# max_memory_allocated), so these are the highest values read here, per GPU.
_peak_allocated: dict[int, int] = {}
_peak_reserved: dict[int, int] = {}


def _gpu_index(device, fn: str) -> int:
    """The GPU ``device`` names (None: the current GPU; an int, "gpu:N" or a CUDAPlace), or a
    clear error where no GPU is visible (Paddle: "not supported in CPU-only PaddlePaddle")."""
    count = backend.gpu_count()
    if not count:
        raise DeviceError(f"core.device.cuda.{fn}: no GPU is visible to cupy (cupy missing or no "
                          "NVIDIA driver); it needs a GPU, as Paddle's needs a CUDA build.")
    if device is None:
        current = backend.current_device()
        return current.index if current.kind == "gpu" else 0
    if isinstance(device, (int, np.integer)) and not isinstance(device, bool):
        index = int(device)
    elif isinstance(device, (str, Place)):
        target = backend.parse_device(device)
        if target.kind != "gpu":
            raise DeviceError(f"core.device.cuda.{fn}: device={device!r} is not a GPU; give "
                              "None, an int, 'gpu:N' or a CUDAPlace")
        index = target.index
    else:
        raise TypeError(f"core.device.cuda.{fn}: device must be None, an int, 'gpu:N' or a "
                        f"CUDAPlace, got {device!r}")
    if not 0 <= index < count:
        raise DeviceError(f"core.device.cuda.{fn}: device={device!r} asks for GPU {index} but "
                          f"{count} GPU(s) are visible; use 0..{count - 1}")
    return index


def _device_count() -> int:
    """Paddle's ``paddle.device.cuda.device_count()``: the GPUs visible (0 without any)."""
    return backend.gpu_count()


def _empty_cache() -> None:
    """Paddle's ``paddle.device.cuda.empty_cache()``: give the unused blocks of cupy's memory
    pools back to the driver (other processes can use them). Nothing to do without a GPU."""
    if not backend.gpu_count():
        return
    cupy = backend._cupy()
    pool = cupy.get_default_memory_pool()
    for index in range(backend.gpu_count()):
        with cupy.cuda.Device(index):
            _pool_bytes(pool, index)  # the reservation about to shrink still counts as a peak
    pool.free_all_blocks()
    cupy.get_default_pinned_memory_pool().free_all_blocks()


def _synchronize(device=None) -> None:
    """Paddle's ``paddle.device.cuda.synchronize(device=None)``: wait for every queued kernel
    and copy of that GPU (None: the current one)."""
    index = _gpu_index(device, "synchronize")
    cupy = backend._cupy()
    with cupy.cuda.Device(index) as gpu:
        gpu.synchronize()


def _pool_bytes(pool, index: int) -> tuple[int, int]:
    """(allocated, reserved) bytes of cupy's pool on the current GPU, recording the peaks."""
    used, total = int(pool.used_bytes()), int(pool.total_bytes())
    _peak_allocated[index] = max(_peak_allocated.get(index, 0), used)
    _peak_reserved[index] = max(_peak_reserved.get(index, 0), total)
    return used, total


def _memory(device, fn: str) -> tuple[int, int, int]:
    """(GPU index, allocated, reserved) of ``device``, recording the peaks."""
    index = _gpu_index(device, fn)
    cupy = backend._cupy()
    with cupy.cuda.Device(index):  # cupy's pool answers for the current GPU
        return (index, *_pool_bytes(cupy.get_default_memory_pool(), index))


def _memory_allocated(device=None) -> int:
    """Paddle's ``memory_allocated(device=None)``: bytes of that GPU's memory held by tensors
    (cupy's pool: ``used_bytes``)."""
    return _memory(device, "memory_allocated")[1]


def _memory_reserved(device=None) -> int:
    """Paddle's ``memory_reserved(device=None)``: bytes that cupy's pool holds on that GPU, in
    use or cached for reuse (``total_bytes``)."""
    return _memory(device, "memory_reserved")[2]


def _max_memory_allocated(device=None) -> int:
    """Paddle's ``max_memory_allocated(device=None)``: the highest ``memory_allocated`` of that
    GPU. cupy's pool keeps no peak, so this is the highest value read by these functions (this
    call included) and by ``empty_cache``: read ``memory_allocated`` where the peak happens
    (after the forward pass) for an exact figure."""
    index = _memory(device, "max_memory_allocated")[0]
    return _peak_allocated[index]


def _max_memory_reserved(device=None) -> int:
    """Paddle's ``max_memory_reserved(device=None)``: the highest ``memory_reserved`` of that
    GPU. cupy's pool only grows until ``empty_cache`` (which records its size first), so this
    is exact unless cupy itself freed cached blocks to retry an allocation."""
    index = _memory(device, "max_memory_reserved")[0]
    return _peak_reserved[index]


def _get_device_properties(device=None, fn: str = "get_device_properties"
                           ) -> GPUDeviceProperties:
    """Paddle's ``get_device_properties(device=None)``: name, compute capability, memory and
    multiprocessor count of that GPU."""
    index = _gpu_index(device, fn)
    found = backend._cupy().cuda.runtime.getDeviceProperties(index)
    name = found["name"]
    return GPUDeviceProperties(
        name=name.decode() if isinstance(name, bytes) else str(name),
        major=int(found["major"]), minor=int(found["minor"]),
        total_memory=int(found["totalGlobalMem"]),
        multi_processor_count=int(found["multiProcessorCount"]))


def _get_device_name(device=None) -> str:
    """Paddle's ``get_device_name(device=None)``: the GPU's name ("NVIDIA H100 ...")."""
    return _get_device_properties(device, "get_device_name").name


def _get_device_capability(device=None) -> tuple[int, int]:
    """Paddle's ``get_device_capability(device=None)``: the GPU's (major, minor) compute
    capability."""
    found = _get_device_properties(device, "get_device_capability")
    return found.major, found.minor


# A module object, registered as core.device.cuda, so that both ``core.device.cuda.f()`` and
# ``import core.device.cuda`` / ``from core.device import cuda`` work as they do in Paddle.
cuda = types.ModuleType("core.device.cuda", "Paddle's paddle.device.cuda on cupy's GPUs.")
for _name, _fn in {
        "device_count": _device_count, "empty_cache": _empty_cache,
        "synchronize": _synchronize, "memory_allocated": _memory_allocated,
        "memory_reserved": _memory_reserved, "max_memory_allocated": _max_memory_allocated,
        "max_memory_reserved": _max_memory_reserved,
        "get_device_properties": _get_device_properties, "get_device_name": _get_device_name,
        "get_device_capability": _get_device_capability}.items():
    _fn.__name__ = _fn.__qualname__ = _name  # as errors and help() should name them
    _fn.__module__ = cuda.__name__
    setattr(cuda, _name, _fn)
cuda.__all__ = sorted(name for name in vars(cuda) if not name.startswith("_"))
sys.modules[cuda.__name__] = cuda
del _name, _fn
