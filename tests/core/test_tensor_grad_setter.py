"""``Tensor.grad`` is settable, as in Paddle 3.3.1: ``x.grad = None`` drops the gradient and
``x.grad = g`` (a Tensor of x's shape and dtype) makes a copy of ``g`` the gradient, which
backward adds to and optimizers and gradient clipping use. The expected numbers are Paddle
3.3.1's for the same steps."""
from __future__ import annotations

import numpy as np
import pytest

import core
from core import nn


def _param(values, dtype="float32"):
    return core.create_parameter([len(values)], dtype,
                                 default_initializer=nn.initializer.Assign(np.asarray(values)))


def test_none_drops_the_gradient():
    w = _param([1.0, 2.0])
    (w * 3).sum().backward()
    assert w.grad is not None
    w.grad = None
    assert w.grad is None and w.gradient() is None


def test_none_on_a_tensor_without_gradient_is_allowed():
    w = _param([1.0])
    w.grad = None
    assert w.grad is None


def test_an_assigned_tensor_becomes_a_copy_of_the_gradient():
    w = _param([1.0, 2.0, 3.0])
    g = core.to_tensor([0.5, -1.0, 2.0])
    w.grad = g
    assert w.grad is not g
    np.testing.assert_array_equal(w.grad.numpy(), [0.5, -1.0, 2.0])
    g.data[0] = 100.0  # Paddle copies: the source's later values do not reach the gradient
    np.testing.assert_array_equal(w.gradient(), [0.5, -1.0, 2.0])
    assert w.grad.dtype == np.float32 and w.grad.stop_gradient


def test_a_gradient_needing_tensor_is_taken_as_values():
    w = _param([1.0, 2.0])
    g = core.to_tensor([1.0, 1.0], stop_gradient=False)
    w.grad = g * 2
    np.testing.assert_array_equal(w.grad.numpy(), [2.0, 2.0])
    assert w.grad.stop_gradient


def test_backward_adds_to_the_assigned_gradient():
    w = _param([0.0, 0.0])
    w.grad = core.to_tensor([10.0, 20.0])
    (w * 2).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [12.0, 22.0])


def test_sgd_steps_with_the_assigned_gradient_and_skips_none():
    w = _param([1.0, 1.0])
    opt = core.optimizer.SGD(learning_rate=0.1, parameters=[w])
    w.grad = core.to_tensor([1.0, 2.0])
    opt.step()
    np.testing.assert_allclose(w.numpy(), [0.9, 0.8], rtol=1e-6)
    w.grad = None
    opt.step()  # no gradient: the parameter is left alone
    np.testing.assert_allclose(w.numpy(), [0.9, 0.8], rtol=1e-6)


def test_adam_steps_with_the_assigned_gradient():
    w = _param([1.0, -1.0])
    opt = core.optimizer.Adam(learning_rate=0.1, parameters=[w])
    w.grad = core.to_tensor([0.5, -2.0])
    opt.step()  # Adam's first step moves each weight by lr against its gradient's sign
    np.testing.assert_allclose(w.numpy(), [0.9, -0.9], rtol=1e-5)


def test_clearing_the_optimizer_leaves_the_assigned_source_alone():
    w = _param([1.0, 1.0])
    opt = core.optimizer.SGD(learning_rate=0.1, parameters=[w])
    g = core.to_tensor([3.0, 4.0])
    w.grad = g
    opt.clear_grad(set_to_zero=True)  # zeroes the gradient array in place
    np.testing.assert_array_equal(w.grad.numpy(), [0.0, 0.0])
    np.testing.assert_array_equal(g.numpy(), [3.0, 4.0])


def test_grad_clip_sees_the_assigned_gradient():
    w = _param([1.0, 1.0])
    w.grad = core.to_tensor([3.0, 4.0])
    opt = core.optimizer.SGD(learning_rate=1.0, parameters=[w],
                             grad_clip=nn.ClipGradByGlobalNorm(1.0))
    opt.step()
    np.testing.assert_allclose(w.numpy(), [0.4, 0.2], rtol=1e-5)


def test_clip_grad_norm_sees_the_assigned_gradient():
    w = _param([1.0, 1.0])
    w.grad = core.to_tensor([3.0, 4.0])
    total = nn.utils.clip_grad_norm_([w], 1.0)
    np.testing.assert_allclose(float(total), 5.0, rtol=1e-6)
    np.testing.assert_allclose(w.grad.numpy(), [0.6, 0.8], rtol=1e-5)


def test_layer_parameters_can_be_cleared_one_by_one():
    layer = nn.Linear(3, 2)
    layer(core.ones([4, 3])).sum().backward()
    for p in layer.parameters():
        p.grad = None
    assert all(p.grad is None for p in layer.parameters())


def test_a_0d_parameter_and_a_plain_tensor_take_a_gradient():
    p = core.create_parameter([], "float32")
    p.grad = core.to_tensor(2.0)
    assert p.grad.shape == [] and float(p.grad) == 2.0
    x = core.to_tensor([1.0, 2.0])  # stop_gradient=True: Paddle allows it too
    x.grad = core.to_tensor([1.0, 1.0])
    np.testing.assert_array_equal(x.gradient(), [1.0, 1.0])


def test_sgd_matches_torch_after_an_assigned_gradient():
    torch = pytest.importorskip("torch")
    start, grads = np.array([1.0, -2.0, 0.5], "float32"), np.array([[0.3, -0.1, 2.0],
                                                                      [1.0, 0.5, -0.5]], "float32")
    w = _param(start)
    opt = core.optimizer.Momentum(learning_rate=0.1, momentum=0.9, parameters=[w])
    t = torch.nn.Parameter(torch.tensor(start))
    topt = torch.optim.SGD([t], lr=0.1, momentum=0.9)
    for g in grads:
        w.grad = core.to_tensor(g)
        t.grad = torch.tensor(g)
        opt.step()
        topt.step()
    np.testing.assert_allclose(w.numpy(), t.detach().numpy(), rtol=1e-6)


@pytest.mark.parametrize("value", [np.ones(2, "float32"), [1.0, 2.0], 1.0],
                         ids=["ndarray", "list", "float"])
def test_a_value_that_is_not_a_tensor_is_refused(value):
    w = _param([1.0, 2.0])
    with pytest.raises(ValueError, match=r"Tensor.grad: the assigned gradient must be a dense "
                                         rf"Tensor or None, got {type(value).__name__}"):
        w.grad = value
    assert w.grad is None


def test_a_sparse_tensor_is_refused():
    w = _param([1.0, 2.0])
    sparse = core.sparse.sparse_coo_tensor([[0]], [1.0], [2])
    with pytest.raises(ValueError, match="must be a dense Tensor or None, got SparseCooTensor"):
        w.grad = sparse


def test_another_shape_is_refused():
    w = _param([1.0, 2.0])
    with pytest.raises(ValueError, match=r"Tensor.grad: the assigned gradient has shape \[3\], "
                                         r"but the tensor's shape is \[2\]"):
        w.grad = core.to_tensor([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"has shape \[1, 2\]"):
        w.grad = core.to_tensor([[1.0, 2.0]])


def test_another_dtype_is_refused():
    w = _param([1.0, 2.0])
    with pytest.raises(RuntimeError, match=r"Tensor.grad: the assigned gradient has dtype "
                                           r"float64, but the tensor's dtype is float32: cast "
                                           r"it first \(g.astype\('float32'\)\)"):
        w.grad = core.to_tensor([1.0, 2.0], dtype="float64")
    with pytest.raises(RuntimeError, match="has dtype int64"):
        w.grad = core.to_tensor([1, 2])


@pytest.mark.parametrize("value", [None, "tensor"])
def test_an_op_output_is_refused(value):
    x = core.to_tensor([1.0, 2.0], stop_gradient=False)
    y = x * 2
    with pytest.raises(RuntimeError, match=r"Tensor.grad: only a leaf tensor's gradient can be "
                                           r"assigned; this tensor \(shape \[2\]\) is the "
                                           r"output of multiply"):
        y.grad = None if value is None else core.ones([2])
