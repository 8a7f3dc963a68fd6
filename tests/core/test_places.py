"""Paddle's places: core.CPUPlace / CUDAPlace / CUDAPinnedPlace, Tensor.place, and places where
core takes a device (set_device, to_tensor, Tensor.to, Layer.to, DataLoader(places=...))."""
from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import core
import core as paddle
from core import backend


def test_places_print_compare_and_hash_as_paddle():
    cpu = paddle.CPUPlace()
    assert repr(cpu) == str(cpu) == "Place(cpu)"
    assert repr(paddle.CUDAPinnedPlace()) == "Place(gpu_pinned)"
    assert cpu == paddle.CPUPlace() and cpu != paddle.CUDAPinnedPlace()
    assert len({cpu, paddle.CPUPlace(), paddle.CUDAPinnedPlace()}) == 2
    assert cpu.is_cpu_place() and not cpu.is_gpu_place() and not cpu.is_cuda_pinned_place()
    assert paddle.CUDAPinnedPlace().is_cuda_pinned_place()
    assert isinstance(cpu, paddle.Place)


def test_a_place_equals_its_device_string():
    """Code written when Tensor.place was a string keeps working: Place(cpu) == 'cpu', and
    hashes as it (a dict keyed by 'cpu' finds it)."""
    assert paddle.CPUPlace() == "cpu" and paddle.CPUPlace() != "gpu:0"
    assert {"cpu": 1}[paddle.CPUPlace()] == 1
    assert paddle.CPUPlace() != 0  # not a device string: simply unequal


def test_places_survive_pickle_and_deepcopy():
    for place in (paddle.CPUPlace(), paddle.CUDAPinnedPlace()):
        assert pickle.loads(pickle.dumps(place)) == place
        assert type(copy.deepcopy(place)) is type(place)


def test_place_cannot_be_made_directly_and_cpu_has_no_gpu_id():
    with pytest.raises(TypeError, match=r"core.CPUPlace\(\), core.CUDAPlace\(id\)"):
        paddle.Place()
    with pytest.raises(ValueError, match=r"gpu_device_id: Place\(cpu\) is not a GPU place"):
        paddle.CPUPlace().gpu_device_id()


def test_cuda_place_without_a_gpu_names_the_id(monkeypatch):
    monkeypatch.setattr(backend, "gpu_count", lambda: 0)
    with pytest.raises(core.device.DeviceError, match=r"CUDAPlace\(0\): no GPU is visible"):
        paddle.CUDAPlace(0)


def test_cuda_place_outside_the_visible_gpus(monkeypatch):
    monkeypatch.setattr(backend, "gpu_count", lambda: 2)
    with pytest.raises(core.device.DeviceError, match=r"CUDAPlace\(2\): this machine has 2 "
                                                      r"GPU\(s\).*id must be in 0..1"):
        paddle.CUDAPlace(2)
    place = paddle.CUDAPlace(1)  # only the count is asked: no GPU is touched
    assert repr(place) == "Place(gpu:1)" and place == "gpu:1" and place.is_gpu_place()
    assert place.gpu_device_id() == place.get_device_id() == 1
    assert backend.parse_device(place) == backend.Device("gpu", 1)


@pytest.mark.parametrize("bad", ["0", 1.0, True, None])
def test_cuda_place_id_must_be_an_int(bad):
    with pytest.raises(TypeError, match=f"CUDAPlace: id must be an int .*got {bad!r}"):
        paddle.CUDAPlace(bad)


def test_tensor_place_is_a_place(device):
    x = paddle.to_tensor([1.0, 2.0])
    assert isinstance(x.place, paddle.Place)
    assert x.place == device and str(x.place) == f"Place({device})"
    assert x.place.is_gpu_place() == (device != "cpu")
    assert f"place=Place({device})" in repr(x)


def test_to_tensor_honours_place(device):
    """to_tensor(place=...) makes the tensor there, whatever the current device is."""
    host = paddle.to_tensor([1.0, 2.0], place=paddle.CPUPlace())
    assert isinstance(host.data, np.ndarray) and host.place == "cpu"
    pinned = paddle.to_tensor(np.arange(3), place=paddle.CUDAPinnedPlace())
    assert isinstance(pinned.data, np.ndarray) and pinned.dtype == np.int64
    assert paddle.to_tensor(host, place="cpu").place == "cpu"
    if device != "cpu":
        backend.set_device("cpu")
        on_gpu = paddle.to_tensor([1.0, 2.0], place=paddle.CUDAPlace(0))
        assert on_gpu.place == "gpu:0" and on_gpu.place.gpu_device_id() == 0
        np.testing.assert_array_equal(on_gpu.numpy(), [1.0, 2.0])
        back = paddle.to_tensor(on_gpu, place=paddle.CPUPlace())
        assert isinstance(back.data, np.ndarray)


def test_to_tensor_copies_on_the_current_place():
    source = np.zeros(3, dtype="float32")
    x = paddle.to_tensor(source, place=paddle.CPUPlace())
    source[0] = 5.0
    assert x.numpy()[0] == 0.0


def test_to_tensor_place_to_a_missing_gpu_is_a_clear_error(monkeypatch, on_cpu):
    monkeypatch.setattr(backend, "gpu_count", lambda: 0)
    with pytest.raises(core.device.DeviceError, match="to_tensor: GPU 0 is not available"):
        paddle.to_tensor([1.0], place="gpu:0")
    with pytest.raises(core.device.DeviceError, match="device 'tpu' is not valid"):
        paddle.to_tensor([1.0], place="tpu")


def test_set_device_takes_a_place_and_returns_one(device):
    place = paddle.CPUPlace()
    assert paddle.set_device(place) == place and paddle.get_device() == "cpu"
    returned = paddle.set_device(device)
    assert isinstance(returned, paddle.Place) and returned == device
    assert core.device.set_device(paddle.CUDAPinnedPlace()) == "cpu"  # pinned memory: host


def test_tensor_and_layer_to_take_a_place(device):
    x = paddle.to_tensor([1.0, 2.0])
    assert x.to(paddle.CPUPlace()).place == "cpu"
    assert x.to(device=paddle.CPUPlace(), dtype="float64").dtype == np.float64
    layer = paddle.nn.Linear(2, 3)
    assert layer.to(paddle.CPUPlace()) is layer and layer.weight.place == "cpu"
    if device != "cpu":
        assert paddle.to_tensor([1.0], place="cpu").to(paddle.CUDAPlace(0)).place == "gpu:0"
        assert layer.to(paddle.CUDAPlace(0)).weight.place.gpu_device_id() == 0


def test_tensor_to_another_tensor_reads_its_place(device):
    other = paddle.to_tensor([0.0], dtype="float64")
    moved = paddle.to_tensor([1.0], place="cpu").to(other)
    assert moved.place == other.place and moved.dtype == np.float64


def test_dataloader_places_takes_places(on_cpu):
    data = core.io.TensorDataset([np.arange(4, dtype="float32").reshape(4, 1)])
    for places in (paddle.CPUPlace(), [paddle.CPUPlace()], paddle.CUDAPinnedPlace()):
        loader = core.io.DataLoader(data, batch_size=2, places=places)
        assert loader.device == backend.Device("cpu")
        batch = next(iter(loader))[0]
        assert batch.place == "cpu"
