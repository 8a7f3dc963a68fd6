"""Integer input to core.nn.functional's activations follows Paddle per function: sigmoid and
tanh give float32 (Paddle 3 autocasts integers to float32), every other activation raises a
TypeError naming itself and the dtype (Paddle's kernels are registered for float types only).
numpy alone would give float64, or fail half-way with a casting error.

The activations are collected from core.nn.functional.__all__ (every name defined in
core.nn.functional.activation), so a new activation is covered without editing this file."""
import numpy as np
import pytest

import core
from core import nn
from core.nn import functional as F
from runner import build
from runner.config import validation
from tests.gradcheck import check_grad

ACTIVATIONS = sorted(name for name in F.__all__
                     if getattr(getattr(F, name), "__module__", "") == F.activation.__name__)

# The activations that take integer input legitimately, and the dtype they return.
TAKES_INTEGERS = {"sigmoid": np.float32, "tanh": np.float32}

# Extra positional arguments an activation needs besides x.
ARGUMENTS = {"prelu": lambda: (core.to_tensor(np.full([1], 0.25, np.float32)),),
             "maxout": lambda: (2,)}

X = np.array([[-2, -1, 0, 1], [2, 3, -3, 0]])


def test_the_activation_list_is_collected():
    assert {"relu", "sigmoid", "tanh", "softmax", "log_softmax", "gelu", "silu",
            "softplus"} <= set(ACTIVATIONS)
    assert "conv2d" not in ACTIVATIONS and "max_pool2d" not in ACTIVATIONS


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool"])
@pytest.mark.parametrize("name", ACTIVATIONS)
def test_activation_of_integer_input_is_float32_or_a_clear_error(name, dtype):
    x = core.to_tensor(X.astype(dtype) if dtype != "uint8" else np.abs(X).astype(dtype))
    fn, extra = getattr(F, name), ARGUMENTS.get(name, tuple)()
    if name in TAKES_INTEGERS:
        out = fn(x, *extra)
        assert out.dtype == TAKES_INTEGERS[name]
        want = fn(core.to_tensor(x.numpy().astype("float32")), *extra)
        np.testing.assert_array_equal(out.numpy(), want.numpy())  # the float32 computation
    else:
        with pytest.raises(TypeError, match=rf"^{name}: 'x' must be a floating tensor.*"
                                            rf"got dtype {dtype}"):
            fn(x, *extra)


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_float_input_keeps_its_dtype(name):
    fn, extra = getattr(F, name), ARGUMENTS.get(name, tuple)()
    for dtype in ("float32", "float64"):
        x = core.to_tensor(X.astype(dtype) * 0.3)
        if name == "prelu":
            extra = (core.to_tensor(np.full([1], 0.25, dtype)),)
        assert fn(x, *extra).dtype == dtype


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_casts_integers_through_its_dtype_argument(name):
    """Paddle's softmax(x, dtype=...) casts before the kernel, so integers are fine there."""
    torch = pytest.importorskip("torch")
    fn = getattr(F, name)
    out = fn(core.to_tensor(X), axis=1, dtype="float32")
    want = getattr(torch.nn.functional, name)(torch.tensor(X), dim=1, dtype=torch.float32)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out.numpy(), want.numpy(), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", ["sigmoid", "tanh"])
def test_integer_sigmoid_and_tanh_match_torch(name):
    """PyTorch promotes integers to its default float32 for these too."""
    torch = pytest.importorskip("torch")
    out = getattr(F, name)(core.to_tensor(X))
    want = getattr(torch, name)(torch.tensor(X))
    assert str(want.dtype) == "torch.float32" and out.dtype == np.float32
    np.testing.assert_allclose(out.numpy(), want.numpy(), rtol=1e-6, atol=1e-7)


def test_integer_sigmoid_and_tanh_layers_and_gradients():
    x = core.to_tensor(X)
    assert nn.Sigmoid()(x).dtype == np.float32 and nn.Tanh()(x).dtype == np.float32
    with pytest.raises(TypeError, match="relu: 'x' must be a floating tensor"):
        nn.ReLU()(x)
    # the float path they share still has its gradient
    check_grad(F.sigmoid, X * 0.4)
    check_grad(F.tanh, X * 0.4)


def test_spec_network_with_sigmoid_and_tanh():
    layers = {"fc": {"type": "Linear", "out_features": 6}, "gate": {"type": "Sigmoid"},
              "act": {"type": "Tanh"}, "out": {"type": "Linear"}}
    node = {"name": "net", "layers": layers, "blocks": {}}
    model = build.build_model(validation.group_option("model", node), (5,), 3)
    with core.no_grad():
        out = model(core.to_tensor(np.ones((2, 5), np.float32)))
    assert out.shape == [2, 3] and out.dtype == np.float32
