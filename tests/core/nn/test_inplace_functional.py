"""Paddle 3's in-place activations in ``core.nn.functional`` (``relu_``, ``elu_``,
``hardtanh_``, ``leaky_relu_``, ``softmax_``, ``tanh_``, ``thresholded_relu_``): the values
of the out-of-place ops, x itself returned and changed outside a graph, and the refusals of
tensors that need a gradient (core's rule for its in-place Tensor methods)."""
from __future__ import annotations

import numpy as np
import pytest

import core
from core import backend
from core.nn import functional as F

RNG = np.random.default_rng(0)

# (in-place name, its out-of-place form, extra arguments)
OPS = [("relu_", "relu", ()), ("elu_", "elu", (0.7,)), ("hardtanh_", "hardtanh", (-0.5, 0.8)),
       ("leaky_relu_", "leaky_relu", (0.2,)), ("softmax_", "softmax", (0,)),
       ("tanh_", "tanh", ()), ("thresholded_relu_", "thresholded_relu", (0.3, -0.25))]
IDS = [name for name, _, _ in OPS]


def _data(shape=(3, 4)):
    # Kept away from every kink (0, the clip bounds, the threshold) so that central
    # differences see one side only.
    x = RNG.normal(size=shape)
    for kink in (0.0, -0.5, 0.8, 0.3):
        x = np.where(np.abs(x - kink) < 0.05, x + 0.1, x)
    return x


@pytest.mark.parametrize("name, plain, args", OPS, ids=IDS)
def test_values_are_the_out_of_place_ops_and_x_is_changed_in_place(name, plain, args):
    x = _data().astype(np.float32)
    t = core.to_tensor(x)
    array = t.data
    out = getattr(F, name)(t, *args)
    want = getattr(F, plain)(core.to_tensor(x), *args).numpy()
    assert out is t and out.dtype == np.float32
    np.testing.assert_array_equal(t.numpy(), want)
    # written into x's own array (on x's device): views see it
    np.testing.assert_array_equal(backend.to_numpy(array), want)


@pytest.mark.parametrize("name, plain, args", OPS, ids=IDS)
def test_a_graph_tensor_is_refused_and_left_as_it_was(name, plain, args):
    # Core's graph links tensors: an op that used h before the change would send its gradient
    # through the activation. Refused, with the out-of-place form named.
    x = _data()
    w = core.to_tensor(x, stop_gradient=False)
    h = w * 1.5
    earlier = h * 2.0
    with pytest.raises(ValueError, match=rf"{name}: the tensor is computed in the autograd "
                                         rf"graph.*x = F\.{plain}\(x\)"):
        getattr(F, name)(h, *args)
    np.testing.assert_array_equal(h.numpy(), x * 1.5)
    earlier.sum().backward()  # the graph is untouched
    np.testing.assert_allclose(w.grad.numpy(), np.full_like(x, 3.0))


@pytest.mark.parametrize("name, plain, args", OPS, ids=IDS)
def test_under_no_grad_a_graph_tensor_changes_in_place(name, plain, args):
    x = _data()
    h = core.to_tensor(x, stop_gradient=False) * 1.0
    with core.no_grad():
        assert getattr(F, name)(h, *args) is h
    np.testing.assert_allclose(h.numpy(), getattr(F, plain)(core.to_tensor(x), *args).numpy(),
                               rtol=1e-12)


@pytest.mark.parametrize("name, plain, args", OPS, ids=IDS)
def test_a_leaf_that_needs_a_gradient_is_refused_as_by_the_tensor_methods(name, plain, args):
    x = _data()
    leaf = core.to_tensor(x, stop_gradient=False)
    with pytest.raises(ValueError) as ours:
        getattr(F, name)(leaf, *args)
    np.testing.assert_array_equal(leaf.numpy(), x)  # nothing written
    with pytest.raises(ValueError) as methods:
        leaf.tanh_()
    phrase = "Leaf Tensor that doesn't stop gradient can't use inplace strategy"
    assert phrase in str(ours.value) and phrase in str(methods.value)
    assert name in str(ours.value)
    with core.no_grad():  # weight surgery: allowed, as for the Tensor methods
        assert getattr(F, name)(leaf, *args) is leaf


def test_softmax_with_another_dtype_returns_a_new_tensor_as_paddle():
    x = _data().astype(np.float32)
    t = core.to_tensor(x)
    out = F.softmax_(t, dtype="float64")
    assert out is not t and out.dtype == np.float64
    np.testing.assert_array_equal(t.numpy(), x)
    assert F.softmax_(t, dtype="float32") is t


def test_bad_arguments_name_themselves():
    t = core.to_tensor(_data())
    with pytest.raises(ValueError, match=r"elu_: alpha=-1\.0 must be a number >= 0"):
        F.elu_(t, -1.0)
    with pytest.raises(ValueError, match="hardtanh_: max='1'"):
        F.hardtanh_(t, -1.0, "1")
    with pytest.raises(ValueError, match="leaky_relu_: negative_slope=None"):
        F.leaky_relu_(t, None)
    with pytest.raises(TypeError, match="relu_: x must be a core.Tensor"):
        F.relu_(np.zeros(3))
    with pytest.raises(TypeError, match="tanh_: x must be a floating tensor, got dtype int64"):
        F.tanh_(core.to_tensor(np.arange(3)))
    with pytest.raises(ValueError, match="softmax"):
        F.softmax_(t, axis=5)
