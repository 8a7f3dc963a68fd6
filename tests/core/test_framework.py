"""core.framework: the default float dtype (Paddle's get_default_dtype / set_default_dtype) as
every maker of float tensors reads it (the mode facts: tests/core/test_tensor_paddle.py)."""
import numpy as np
import pytest

import core
from core import nn
from core import optimizer as opt


@pytest.fixture
def float64_default():
    core.set_default_dtype("float64")
    yield
    core.set_default_dtype("float32")


def test_the_default_is_float32():
    assert core.get_default_dtype() == "float32"
    assert core.to_tensor(1.5).dtype == core.float32
    assert nn.Linear(2, 3).weight.dtype == core.float32


@pytest.mark.parametrize("make", [
    lambda: core.to_tensor(1.5), lambda: core.to_tensor([[1.0, 2.0]]), lambda: core.zeros([2]),
    lambda: core.ones([2]), lambda: core.full([2], 3.0), lambda: core.rand([2]),
    lambda: core.randn([2]), lambda: core.uniform([2]), lambda: core.normal(0.0, 1.0, [2]),
    lambda: core.empty([2]), lambda: core.linspace(0, 1, 3), lambda: core.arange(0.0, 1.0, 0.5),
    lambda: core.eye(2), lambda: core.assign(2.5),
    lambda: core.nn.Transformer.generate_square_subsequent_mask(3),
], ids=["to_tensor", "to_tensor_list", "zeros", "ones", "full", "rand", "randn", "uniform",
        "normal", "empty", "linspace", "arange", "eye", "assign", "square_mask"])
def test_float_makers_follow_the_default(float64_default, make):
    assert make().dtype == core.float64


def test_integers_and_explicit_dtypes_do_not_follow_it(float64_default):
    assert core.to_tensor(3).dtype == core.int64
    assert core.arange(3).dtype == core.int64
    assert core.zeros([2], dtype="float32").dtype == core.float32
    assert core.to_tensor(np.ones(2, np.float32)).dtype == core.float32  # arrays keep theirs


def test_layers_made_after_the_switch_hold_float64_and_train(float64_default):
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1D(4), nn.ReLU(), nn.Linear(4, 2))
    assert {str(t.dtype) for t in model.state_dict().values()} == {"float64"}
    assert nn.initializer.Normal()((2, 2)).dtype == np.float64
    x = core.to_tensor(np.random.default_rng(0).standard_normal((8, 3)))
    y = core.to_tensor([0, 1] * 4)
    adam = opt.Adam(learning_rate=0.1, parameters=model.parameters())
    losses = []
    for _ in range(20):
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        adam.step()
        adam.clear_grad()
        losses.append(float(loss))
    assert loss.dtype == core.float64 and model[0].weight.dtype == core.float64
    assert losses[-1] < 0.5 * losses[0]


def test_what_exists_keeps_its_dtype():
    before, layer = core.to_tensor(1.0), nn.Linear(2, 2)
    core.set_default_dtype("float64")
    try:
        assert before.dtype == core.float32 and layer.weight.dtype == core.float32
        assert nn.Linear(2, 2).weight.dtype == core.float64
    finally:
        core.set_default_dtype("float32")
    assert nn.Linear(2, 2).weight.dtype == core.float32


@pytest.mark.parametrize("value", ["float64", np.float64, np.dtype("float64"), core.float64])
def test_set_default_dtype_takes_names_and_dtypes(value):
    core.set_default_dtype(value)
    try:
        assert core.get_default_dtype() == "float64"
    finally:
        core.set_default_dtype("float32")


@pytest.mark.parametrize("value", ["int32", "bool", None, "bfloat16", "floaty", 3])
def test_set_default_dtype_refuses_what_is_not_a_float(value):
    with pytest.raises(TypeError, match=r"set_default_dtype: d must be one of \['float16', "
                                        r"'float32', 'float64'\]"):
        core.set_default_dtype(value)
    assert core.get_default_dtype() == "float32"

