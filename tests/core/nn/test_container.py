"""Sequential and LayerList: composition, indexing, naming, state_dict round trips, gradients."""
import numpy as np
import pytest

import core
from core import nn
from tests.gradcheck import check_grad

RNG = np.random.default_rng(0)


def _mlp():
    return nn.Sequential(("fc1", nn.Linear(4, 3)), ("act", nn.Tanh()), ("fc2", nn.Linear(3, 2)))


def test_sequential_calls_layers_in_order_and_indexes():
    fc1, act, fc2 = nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2)
    model = nn.Sequential(fc1, act, fc2)
    x = core.to_tensor(RNG.standard_normal((5, 4)).astype(np.float32))
    np.testing.assert_array_equal(model(x).numpy(), fc2(act(fc1(x))).numpy())
    assert len(model) == 3 and model[0] is fc1 and model[-1] is fc2
    assert list(model) == [fc1, act, fc2]
    assert isinstance(model[1:], nn.Sequential) and list(model[1:]) == [act, fc2]
    assert [n for n, _ in model.named_parameters()] == ["0.weight", "0.bias",
                                                        "2.weight", "2.bias"]
    with pytest.raises(IndexError, match="index 3"):
        model[3]
    with pytest.raises(TypeError, match="item 1 is a int"):
        nn.Sequential(fc1, 3)


def test_sequential_with_names_and_gradient():
    model = _mlp()
    assert model["act"] is model[1]
    assert list(model.state_dict()) == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    for p in model.parameters():
        p.data = p.data.astype(np.float64)
    check_grad(model, RNG.standard_normal((3, 4)))


def test_state_dict_round_trip_reproduces_outputs():
    core.seed(1)
    a = _mlp()
    core.seed(2)
    b = _mlp()
    x = core.to_tensor(RNG.standard_normal((2, 4)).astype(np.float32))
    assert not np.allclose(a(x).numpy(), b(x).numpy())
    missing, unexpected = b.set_state_dict(a.state_dict())
    assert missing == [] and unexpected == []
    np.testing.assert_array_equal(a(x).numpy(), b(x).numpy())
    assert b.fc1.weight.data is not a.fc1.weight.data  # values copied, memory not shared


def test_set_state_dict_names_missing_and_mismatched_keys():
    model, state = _mlp(), _mlp().state_dict()
    del state["fc2.bias"]
    with pytest.raises(ValueError, match="fc2.bias"):
        model.set_state_dict(state, strict=True)
    state = _mlp().state_dict()
    state["fc1.weight"] = np.zeros((3, 4), np.float32)
    with pytest.raises(ValueError, match=r"fc1.weight: saved \[3, 4\] vs model \[4, 3\]"):
        model.set_state_dict(state, strict=True)


def test_layerlist_append_insert_delete_and_naming():
    layers = nn.LayerList([nn.Linear(2, 2), nn.Linear(2, 3)])
    layers.append(nn.ReLU())
    third = nn.Linear(3, 1)
    layers.insert(1, third)
    assert len(layers) == 4 and layers[1] is third
    assert [n for n, _ in layers.named_parameters()][:4] == ["0.weight", "0.bias",
                                                             "1.weight", "1.bias"]
    del layers[0]
    assert layers[0] is third and len(layers) == 3
    replacement = nn.Tanh()
    layers[-1] = replacement
    assert list(layers)[-1] is replacement and len(layers) == 3
    assert [n for n, _ in layers.named_parameters()] == ["0.weight", "0.bias",
                                                         "1.weight", "1.bias"]
    with pytest.raises(TypeError, match="not a Layer"):
        layers.append("relu")
    with pytest.raises(TypeError, match="container"):
        layers(core.to_tensor([1.0]))


def test_layerlist_parameters_belong_to_the_owner():
    class Stack(nn.Layer):
        def __init__(self):
            super().__init__()
            self.blocks = nn.LayerList([nn.Linear(3, 3) for _ in range(2)])

        def forward(self, x):
            for block in self.blocks:
                x = block(x)
            return x

    model = Stack()
    assert [n for n, _ in model.named_parameters()] == [
        "blocks.0.weight", "blocks.0.bias", "blocks.1.weight", "blocks.1.bias"]
    assert model(core.to_tensor(np.ones((1, 3), np.float32))).shape == [1, 3]
