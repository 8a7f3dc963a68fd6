"""core/debug.py: replaying a batch names the layer that first produced a NaN or Inf."""
import numpy as np
import pytest

import core
from core import backend, debug, nn
from core.nn import functional as F
from tests.poison import poison_backward, poison_forward

RNG = np.random.default_rng(0)


def _model():
    core.seed(0)
    return nn.Sequential(("conv1", nn.Conv2D(1, 3, 3, padding=1)), ("act1", nn.ReLU()),
                         ("conv2", nn.Conv2D(3, 4, 3, padding=1)), ("act2", nn.ReLU()),
                         ("flatten", nn.Flatten()), ("fc", nn.Linear(4 * 4 * 4, 3)))


def _batch():
    return (core.to_tensor(RNG.standard_normal((2, 1, 4, 4)).astype(np.float32)),
            core.to_tensor(np.array([0, 2])))


def _locate(model, inputs=None):
    inputs, labels = _batch() if inputs is None else (inputs, _batch()[1])
    with np.errstate(all="ignore"):
        return debug.locate_nonfinite(model, F.cross_entropy, inputs, labels)


def test_a_healthy_batch_names_no_one_and_leaves_gradients_as_they_were():
    model = _model()
    weight = model.fc.weight
    weight.grad_data = backend.array_module(weight.data).ones_like(weight.data)
    assert _locate(model) is None
    np.testing.assert_array_equal(weight.gradient(), 1.0)
    assert model.conv1.weight.grad_data is None


@pytest.mark.parametrize("layer", ["conv1", "conv2", "fc"])
def test_a_nan_made_in_a_layers_forward_names_that_layer(layer):
    model = _model()
    poison_forward(getattr(model, layer))
    culprit = _locate(model)
    assert (culprit.layer, culprit.phase) == (layer, "forward")
    assert f"layer '{layer}' produced a non-finite output" in culprit.detail


@pytest.mark.parametrize("layer", ["conv2", "act1", "fc"])
def test_a_nan_made_in_a_layers_backward_names_that_layer(layer):
    model = _model()
    poison_backward(getattr(model, layer))
    culprit = _locate(model)
    assert (culprit.layer, culprit.phase) == (layer, "backward")
    assert "received a finite gradient at its output" in culprit.detail


def test_a_first_layer_whose_only_nan_goes_to_its_parameters_is_named():
    model = _model()
    poison_backward(model.conv1)  # conv1's input is the data: only its weights get the NaN
    culprit = _locate(model)
    assert (culprit.layer, culprit.phase) == ("conv1", "backward")
    assert culprit.detail.endswith("its parameters")


def test_bad_input_and_an_overflowing_loss_are_told_apart():
    inputs = RNG.standard_normal((2, 1, 4, 4)).astype(np.float32)
    inputs[0, 0, 0, 0] = np.inf
    assert _locate(_model(), core.to_tensor(inputs)).layer == "input"
    model = _model()
    model.fc.bias.set_value(np.array([-3e38, 3e38, 0.0], dtype=np.float32))
    culprit = _locate(model)
    assert culprit.layer == "loss" and "layer 'fc'" in culprit.detail
