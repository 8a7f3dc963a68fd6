"""Paddle's paddle.device API: core.device (device lists, synchronize) and core.device.cuda
(GPU count, cupy's memory pool, properties). Without a GPU the cuda functions that need one
raise, as Paddle's do in a CPU-only build; a stand-in cupy drives their logic here, and the
`device` fixture runs them on a real GPU where there is one."""
from __future__ import annotations

import contextlib
import types

import pytest

import core
import core as paddle
from core import backend


def test_existing_names_still_work(on_cpu):
    for name in ("DeviceError", "available_cores", "get_device", "get_num_threads",
                 "gpu_count", "set_device", "set_num_threads"):
        assert name in core.device.__all__ and hasattr(core.device, name)
    assert core.device.get_device() == "cpu"


def test_cuda_is_importable_as_paddle_device_cuda():
    import core.device.cuda as cuda  # noqa: PLC0415 - the import form is what is tested
    from core.device import cuda as same  # noqa: PLC0415

    assert cuda is same is paddle.device.cuda
    assert cuda.memory_allocated.__name__ == "memory_allocated"


def test_device_lists_without_a_gpu(monkeypatch, on_cpu):
    monkeypatch.setattr(backend, "gpu_count", lambda: 0)
    assert paddle.device.get_all_device_type() == ["cpu"]
    assert paddle.device.get_available_device() == ["cpu"]
    assert paddle.device.cuda.device_count() == 0
    assert paddle.device.is_compiled_with_cuda() is False
    paddle.device.cuda.empty_cache()  # nothing to free: a no-op, as Paddle's
    paddle.device.synchronize()  # the CPU has nothing queued


def test_device_lists_with_gpus(monkeypatch):
    monkeypatch.setattr(backend, "gpu_count", lambda: 2)
    assert paddle.device.get_all_device_type() == ["cpu", "gpu"]
    assert paddle.device.get_available_device() == ["cpu", "gpu:0", "gpu:1"]
    assert paddle.device.cuda.device_count() == 2


@pytest.mark.parametrize("fn", ["memory_allocated", "memory_reserved", "max_memory_allocated",
                                "max_memory_reserved", "synchronize", "get_device_name",
                                "get_device_properties", "get_device_capability"])
def test_cuda_functions_need_a_gpu(monkeypatch, fn):
    monkeypatch.setattr(backend, "gpu_count", lambda: 0)
    with pytest.raises(ValueError, match=f"core.device.cuda.{fn}: no GPU is visible to cupy"):
        getattr(paddle.device.cuda, fn)()


class _Pool:
    """cupy's MemoryPool for the stand-in: bytes per GPU, answered for the current one."""

    def __init__(self, cupy):
        self.cupy, self.used, self.total, self.freed = cupy, {}, {}, 0

    def used_bytes(self):
        return self.used.get(self.cupy.current, 0)

    def total_bytes(self):
        return self.total.get(self.cupy.current, 0)

    def free_all_blocks(self):
        self.freed += 1
        self.total = dict(self.used)


def _fake_cupy(monkeypatch, count=2):
    """A stand-in for the parts of cupy that core.device.cuda uses."""
    cupy = types.SimpleNamespace(current=0, synced=[])

    @contextlib.contextmanager
    def gpu(index):
        previous, cupy.current = cupy.current, index
        try:
            yield types.SimpleNamespace(synchronize=lambda: cupy.synced.append(index))
        finally:
            cupy.current = previous

    properties = {"name": b"Fake GPU", "major": 9, "minor": 0, "totalGlobalMem": 80 << 30,
                  "multiProcessorCount": 132}
    cupy.cuda = types.SimpleNamespace(
        Device=gpu, runtime=types.SimpleNamespace(getDeviceProperties=lambda i: properties))
    cupy.pool = _Pool(cupy)
    cupy.pinned = types.SimpleNamespace(free_all_blocks=lambda: None)
    cupy.get_default_memory_pool = lambda: cupy.pool
    cupy.get_default_pinned_memory_pool = lambda: cupy.pinned
    monkeypatch.setattr(backend, "_cupy", lambda: cupy)
    monkeypatch.setattr(backend, "gpu_count", lambda: count)
    monkeypatch.setattr(core.device, "_peak_allocated", {})
    monkeypatch.setattr(core.device, "_peak_reserved", {})
    return cupy


def test_memory_reads_cupys_pool_of_the_asked_gpu(monkeypatch):
    cupy = _fake_cupy(monkeypatch)
    cupy.pool.used, cupy.pool.total = {0: 100, 1: 7}, {0: 512, 1: 64}
    cuda = paddle.device.cuda
    assert cuda.memory_allocated() == 100 and cuda.memory_reserved() == 512
    assert cuda.memory_allocated(1) == cuda.memory_allocated("gpu:1") == 7
    assert cuda.memory_reserved(paddle.CUDAPlace(1)) == 64


def test_peaks_outlive_frees_and_empty_cache(monkeypatch):
    cupy = _fake_cupy(monkeypatch)
    cuda = paddle.device.cuda
    cupy.pool.used, cupy.pool.total = {0: 300}, {0: 1024}
    assert cuda.max_memory_allocated(0) == 300
    cupy.pool.used = {0: 10}
    cuda.empty_cache()  # the reservation shrinks to what is in use, after its size is noted
    assert cupy.pool.freed == 1 and cuda.memory_reserved(0) == 10
    assert cuda.max_memory_reserved(0) == 1024 and cuda.max_memory_allocated(0) == 300


def test_synchronize_and_properties(monkeypatch):
    cupy = _fake_cupy(monkeypatch)
    paddle.device.cuda.synchronize(1)
    paddle.device.cuda.synchronize()  # the current GPU; GPU 0 when the CPU is current
    assert cupy.synced == [1, 0]
    found = paddle.device.cuda.get_device_properties("gpu:1")
    assert (found.name, found.major, found.minor, found.multi_processor_count) == (
        "Fake GPU", 9, 0, 132)
    assert found.total_memory == 80 << 30
    assert paddle.device.cuda.get_device_name() == "Fake GPU"
    assert paddle.device.cuda.get_device_capability(0) == (9, 0)


def test_cuda_device_argument_errors(monkeypatch):
    _fake_cupy(monkeypatch)
    cuda = paddle.device.cuda
    with pytest.raises(ValueError, match=r"device=2 asks for GPU 2 but 2 GPU\(s\) are visible"):
        cuda.memory_allocated(2)
    with pytest.raises(ValueError, match="device='cpu' is not a GPU"):
        cuda.memory_reserved("cpu")
    with pytest.raises(TypeError, match="device must be None, an int, 'gpu:N' or a CUDAPlace, "
                                        "got 1.5"):
        cuda.synchronize(1.5)


def test_on_a_real_device(device):
    """The API against the real backend: lists, synchronize, and on a GPU cupy's pool."""
    assert device in paddle.device.get_available_device()
    paddle.device.synchronize()
    paddle.device.cuda.empty_cache()
    if device == "cpu":
        return
    x = paddle.to_tensor([[1.0] * 1024] * 256)
    cuda = paddle.device.cuda
    assert cuda.memory_allocated() >= x.data.nbytes
    assert cuda.max_memory_allocated() >= cuda.memory_allocated()
    assert cuda.memory_reserved() >= cuda.memory_allocated()
    cuda.synchronize(0)
    assert cuda.get_device_name() and cuda.get_device_capability()[0] >= 3
    assert cuda.device_count() >= 1


def test_framework_seed_is_core_seed():
    paddle.framework.seed(7)
    first = paddle.rand([3]).numpy()
    paddle.seed(7)
    assert (paddle.rand([3]).numpy() == first).all()
    with pytest.raises(TypeError, match="seed: seed must be an int, got 1.5"):
        paddle.framework.seed(1.5)
