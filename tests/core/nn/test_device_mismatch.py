"""A layer whose inputs and parameters sit on different devices says so, instead of passing on
the array library's TypeError ("Unsupported type <class 'numpy.ndarray'>", "Argument 'b' has
incorrect type"): its name, the devices of each side, and how to move them."""
from __future__ import annotations

import numpy as np
import pytest

import core
from core import backend, nn


def _pretend_on_gpu(monkeypatch, arrays):
    """``backend.place_of`` reports gpu:0 for ``arrays`` (by identity): a mismatch on a CPU
    (the tests that use it select the CPU: under TOMLRUN_TEST_DEVICE=gpu:0 all would be
    there already)."""
    real, ids = backend.place_of, {id(a) for a in arrays}
    monkeypatch.setattr(backend, "place_of",
                        lambda a: backend.Place._of("gpu:0") if id(a) in ids else real(a))


def _fail(self, *inputs):
    raise TypeError("Unsupported type <class 'numpy.ndarray'>")  # what cupy says


def test_parameters_on_another_device_are_named_with_the_layer(monkeypatch, on_cpu):
    layer = nn.Linear(3, 2)
    _pretend_on_gpu(monkeypatch, [layer.weight.data, layer.bias.data])
    monkeypatch.setattr(nn.Linear, "forward", _fail)
    with pytest.raises(backend.DeviceMismatchError, match=(
            r"^Linear: its inputs are on cpu and its parameters on gpu:0: every tensor of one "
            r"forward must be on one device\. Move the inputs .*layer\.to\(device=\.\.\.\)")) \
            as caught:
        layer(core.ones([1, 3]))
    assert isinstance(caught.value.__cause__, TypeError)  # the library's words stay attached


def test_the_innermost_layer_reports_and_its_containers_pass_it_on(monkeypatch, on_cpu):
    inner = nn.Linear(3, 2)
    net = nn.Sequential(nn.ReLU(), inner)
    _pretend_on_gpu(monkeypatch, [inner.weight.data, inner.bias.data])
    monkeypatch.setattr(nn.Linear, "forward", _fail)
    with pytest.raises(backend.DeviceMismatchError, match=r"^Linear: its inputs are on cpu"):
        net(np.ones((1, 3), np.float32))


def test_inputs_of_two_devices_without_parameters(monkeypatch, on_cpu):
    label = core.to_tensor([0])
    _pretend_on_gpu(monkeypatch, [label.data])
    monkeypatch.setattr(nn.CrossEntropyLoss, "forward", _fail)
    with pytest.raises(backend.DeviceMismatchError,
                       match=r"^CrossEntropyLoss: its inputs are on cpu and gpu:0: every"):
        nn.CrossEntropyLoss()(core.ones([1, 2]), label)


def test_a_type_error_on_one_device_is_left_as_it_is(monkeypatch, on_cpu):
    monkeypatch.setattr(nn.Linear, "forward", _fail)
    with pytest.raises(TypeError, match="Unsupported type") as caught:
        nn.Linear(3, 2)(core.ones([1, 3]))
    assert not isinstance(caught.value, backend.DeviceMismatchError)


def test_a_gpu_model_given_host_inputs_says_so(device):
    """For real on a GPU (skipped without one): a model built on gpu:0, an input on the CPU."""
    if device == "cpu":
        pytest.skip("needs two devices: the model on a GPU, the input on the CPU")
    layer = nn.Linear(3, 2)
    x = core.to_tensor(np.ones((1, 3), np.float32), place="cpu")
    with pytest.raises(backend.DeviceMismatchError,
                       match=r"^Linear: its inputs are on cpu and its parameters on gpu:0"):
        layer(x)
