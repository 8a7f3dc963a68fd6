"""The array backend: the only module that knows about numpy versus cupy.

Every other module asks this one for the array module of an array (``array_module``) or of the
current device (``xp()``), so the same math runs on the CPU and on the GPU. cupy is imported
lazily and only here; a machine without it never pays for, or fails on, the import.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

import numpy as np

_DEVICE_RE = re.compile(r"^(cpu|gpu)(?::(\d+))?$")


class DeviceError(ValueError):
    """A device string that is malformed or names hardware this machine does not have."""


@dataclass(frozen=True)
class Device:
    kind: str  # "cpu" or "gpu"
    index: int = 0

    def __str__(self) -> str:
        return "cpu" if self.kind == "cpu" else f"gpu:{self.index}"


_current = Device("cpu")


def parse_device(spec: str) -> Device:
    """Parse ``cpu``, ``gpu`` or ``gpu:N`` (N counts the GPUs visible to this process)."""
    match = _DEVICE_RE.match(str(spec).strip().lower())
    if not match:
        raise DeviceError(
            f"device '{spec}' is not valid: use 'cpu', 'gpu' or 'gpu:N' where N is the index of a "
            "GPU visible to this process (CUDA_VISIBLE_DEVICES=2,3 makes physical GPU 2 'gpu:0')."
        )
    kind, index = match.group(1), int(match.group(2) or 0)
    return Device(kind, index if kind == "gpu" else 0)


def _cupy():
    try:
        import cupy  # noqa: PLC0415 - optional dependency, imported only when a GPU is asked for
    except ImportError as exc:
        raise DeviceError(
            "a GPU device was requested but cupy is not installed: install the gpu extra "
            "(pip install 'tomlrun[gpu]', or pip install cupy-cuda12x / cupy-cuda13x to match "
            f"your CUDA driver), or run with device=cpu. ({exc})"
        ) from None
    return cupy


def gpu_count() -> int:
    """How many GPUs cupy can see (0 when cupy is missing or no driver is present)."""
    try:
        return _cupy().cuda.runtime.getDeviceCount()
    except Exception:  # noqa: BLE001 - no driver, no cupy, broken runtime: all mean "no GPU"
        return 0


def set_device(spec: str) -> Device:
    """Select the device new tensors are created on: ``"cpu"``, ``"gpu"`` or ``"gpu:N"``."""
    global _current
    device = parse_device(spec)
    if device.kind == "gpu":
        cupy = _cupy()
        count = gpu_count()
        if device.index >= count:
            visible = os.environ.get("CUDA_VISIBLE_DEVICES")
            note = f" (CUDA_VISIBLE_DEVICES={visible})" if visible is not None else ""
            raise DeviceError(
                f"device '{spec}' asks for GPU {device.index} but this machine has {count} visible "
                f"GPU(s){note}: use device=gpu:0..gpu:{count - 1}" if count else
                f"device '{spec}' asks for a GPU but no GPU is visible to cupy{note}: check the "
                "NVIDIA driver, or run with device=cpu."
            )
        cupy.cuda.Device(device.index).use()
    _current = device
    return device


def get_device() -> str:
    return str(_current)


def current_device() -> Device:
    return _current


def xp():
    """The array module of the current device: numpy on the CPU, cupy on a GPU."""
    return np if _current.kind == "cpu" else _cupy()


def array_module(array):
    """The array module that owns ``array`` (numpy for numpy arrays and Python scalars)."""
    if isinstance(array, np.ndarray) or np.isscalar(array):
        return np
    return _cupy().get_array_module(array)


def asarray(data, dtype=None):
    """``data`` as an array of the current device (copies across devices when needed)."""
    module = xp()
    if module is np and not isinstance(data, np.ndarray) and hasattr(data, "get"):
        data = data.get()  # a cupy array coming back to the host
    return module.asarray(data, dtype=dtype)


def to_numpy(array) -> np.ndarray:
    """A host (numpy) copy or view of ``array``, whichever device it lives on."""
    if isinstance(array, np.ndarray):
        return array
    if hasattr(array, "get"):
        return array.get()
    return np.asarray(array)


def seed(n: int) -> None:
    """Seed the random generators of every backend in use."""
    global _rng
    _rng = np.random.default_rng(n)
    if _current.kind == "gpu":
        _cupy().random.seed(n)


_rng = np.random.default_rng(0)


def rng() -> np.random.Generator:
    """The host random generator used for initialisation, dropout masks and shuffling."""
    return _rng


def random_uniform(shape, low=0.0, high=1.0, dtype="float32"):
    """Uniform samples on the current device (drawn on the device when it is a GPU)."""
    if _current.kind == "gpu":
        return _cupy().random.uniform(low, high, size=shape).astype(dtype)
    return _rng.uniform(low, high, size=shape).astype(dtype, copy=False)
