"""Tensor.set_value copies onto the tensor's own device (core/tensor.py), not the current one."""
import numpy as np
import pytest

import core
from core import backend


def test_set_value_writes_in_place_on_each_backend(device):
    x = core.to_tensor(np.zeros((2, 3), np.float32))
    before = x.data
    x.set_value(np.arange(6.0).reshape(2, 3))  # float64 values into a float32 tensor
    assert x.data is before and x.dtype == np.float32
    np.testing.assert_array_equal(x.numpy(), np.arange(6.0).reshape(2, 3))
    x.set_value(core.to_tensor(np.ones((2, 3), np.float64)))
    x.set_value([[1, 2, 3], [4, 5, 6]])
    np.testing.assert_array_equal(x.numpy(), [[1, 2, 3], [4, 5, 6]])
    with pytest.raises(ValueError, match=r"set_value: shape \[3, 2\] does not match the "
                                         r"tensor's shape \[2, 3\]"):
        x.set_value(np.zeros((3, 2)))


def test_set_value_does_not_go_through_the_current_device(monkeypatch, on_cpu):
    """A host tensor while another device is current: backend.asarray would hand back an array
    of that device, which a numpy array cannot take."""
    x = core.to_tensor(np.zeros(3, np.float32))

    def elsewhere():
        raise AssertionError("set_value copied onto the current device")

    monkeypatch.setattr(backend, "xp", elsewhere)
    x.set_value(np.array([1.0, 2.0, 3.0]))
    x.set_value(core.Tensor(np.array([4.0, 5.0, 6.0])))
    np.testing.assert_array_equal(x.numpy(), [4.0, 5.0, 6.0])


def test_set_value_across_host_and_gpu(device):
    if device == "cpu":
        pytest.skip("needs a GPU: a tensor on one device while the other is current")
    on_gpu = core.to_tensor(np.zeros(3, np.float32))
    backend.set_device("cpu")
    on_host = core.to_tensor(np.zeros(3, np.float32))
    on_gpu.set_value(np.array([1.0, 2.0, 3.0]))  # host values into a GPU tensor from the CPU
    assert not isinstance(on_gpu.data, np.ndarray)
    backend.set_device(device)
    on_host.set_value(on_gpu)  # GPU values into a host tensor while the GPU is current
    np.testing.assert_array_equal(on_host.numpy(), [1.0, 2.0, 3.0])
    assert isinstance(on_host.data, np.ndarray)
