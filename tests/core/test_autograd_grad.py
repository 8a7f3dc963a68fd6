"""core.grad (paddle.grad): gradients of outputs with respect to chosen inputs, returned as a
list, without touching any tensor's .grad; compared with torch.autograd.grad and finite
differences."""
import numpy as np
import pytest

import core
from tests.gradcheck import numeric_grad

rng = np.random.default_rng(23)


def leaf(values):
    return core.to_tensor(np.asarray(values, dtype="float64"), stop_gradient=False)


def test_matches_finite_differences_and_leaves_grad_alone():
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((4, 2))

    def fn(x, w):
        return core.tanh(core.matmul(x, w)) * 1.5

    x, w = leaf(a), leaf(b)
    out = fn(x, w)
    weights = core.to_tensor(np.sin(np.arange(6) * 0.7 + 0.3).reshape(3, 2) + 1.5)
    gx, gw = core.grad(out, [x, w], grad_outputs=weights)
    assert x.grad is None and w.grad is None
    assert gx.stop_gradient and gx.dtype == core.float64
    np.testing.assert_allclose(gx.numpy(), numeric_grad(fn, [a.copy(), b.copy()], 0),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gw.numpy(), numeric_grad(fn, [a.copy(), b.copy()], 1),
                               rtol=1e-6, atol=1e-8)


def test_matches_torch_autograd_grad_with_several_outputs_and_an_interior_input():
    torch = pytest.importorskip("torch")
    a, b = rng.standard_normal(5), rng.standard_normal(5)
    x, w = leaf(a), leaf(b)
    h = x * w
    outs = [(h * h).sum(), core.exp(h).sum() + (x * 3.0).sum()]
    got = core.grad(outs, [x, h, w])
    tx = torch.tensor(a, requires_grad=True)
    tw = torch.tensor(b, requires_grad=True)
    th = tx * tw
    want = torch.autograd.grad([(th * th).sum(), torch.exp(th).sum() + (tx * 3.0).sum()],
                               [tx, th, tw])
    for g, t in zip(got, want):
        np.testing.assert_allclose(g.numpy(), t.numpy(), rtol=1e-12)


def test_grad_outputs_accept_none_entries_and_a_single_tensor():
    x = leaf([1.0, 2.0])
    y = x * x
    (g,) = core.grad(y, x, grad_outputs=core.to_tensor([1.0, 10.0], dtype="float64"),
                     retain_graph=True)
    np.testing.assert_allclose(g.numpy(), [2.0, 40.0])
    g2, = core.grad([y, x * 3.0], [x], grad_outputs=[None, None])
    np.testing.assert_allclose(g2.numpy(), [5.0, 7.0])


def test_graph_is_freed_unless_retained():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    first = core.grad(y, x, retain_graph=True)[0]
    again = core.grad(y, x)[0]
    np.testing.assert_allclose(first.numpy(), again.numpy())
    with pytest.raises(RuntimeError, match="already freed"):
        core.grad(y, x)
    with pytest.raises(RuntimeError, match="already freed"):
        y.backward()


def test_backward_after_grad_with_retain_graph_still_works():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    core.grad(y, x, retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0])


def test_unused_inputs_raise_or_give_none():
    x, z = leaf([1.0]), leaf([2.0])
    y = (x * 2.0).sum()
    with pytest.raises(RuntimeError, match="input 1 .* allow_unused=True"):
        core.grad(y, [x, z], retain_graph=True)
    gx, gz = core.grad(y, [x, z], allow_unused=True)
    assert gz is None
    np.testing.assert_allclose(gx.numpy(), [2.0])


def test_no_grad_vars_block_the_gradient():
    torch = pytest.importorskip("torch")
    a = rng.standard_normal(3)
    x = leaf(a)
    h = x * x
    y = (h * x).sum()  # d/dx = 3 x^2; with h blocked only the direct path: x^2
    (g,) = core.grad(y, x, no_grad_vars=h)
    tx = torch.tensor(a, requires_grad=True)
    (t,) = torch.autograd.grad(((tx * tx).detach() * tx).sum(), tx)
    np.testing.assert_allclose(g.numpy(), t.numpy(), rtol=1e-12)


def test_output_as_its_own_input_and_hooks():
    x = leaf([1.0, 2.0])
    (g,) = core.grad(x, x)
    np.testing.assert_array_equal(g.numpy(), [1.0, 1.0])
    y = x * 2.0
    y.register_hook(lambda grad: grad * 10.0)
    (g,) = core.grad(y.sum(), x)
    np.testing.assert_allclose(g.numpy(), [20.0, 20.0])


def test_result_is_a_copy_owned_by_the_caller():
    x = leaf([1.0, 2.0])
    seed = core.to_tensor([3.0, 4.0], dtype="float64")
    (g,) = core.grad(x, x, grad_outputs=seed)
    g.data[...] = 0.0
    np.testing.assert_array_equal(seed.numpy(), [3.0, 4.0])


def test_float32_input_gets_a_float32_gradient():
    x = core.to_tensor([1.0, 2.0], stop_gradient=False)
    (g,) = core.grad((x * x).sum(), x)
    assert g.dtype == core.float32


def test_argument_errors():
    x = leaf([1.0])
    y = x * 2.0
    with pytest.raises(NotImplementedError,
                       match="'frac'.*cannot be differentiated again"):
        # an op without a tensor-level backward
        core.grad(core.frac(y), x, create_graph=True)
    with pytest.raises(ValueError, match="only_inputs=False is not supported"):
        core.grad(y, x, only_inputs=False)
    with pytest.raises(TypeError, match="inputs must be a Tensor or a non-empty list"):
        core.grad(y, [])
    with pytest.raises(TypeError, match="outputs must be a Tensor"):
        core.grad(np.ones(1), x)
    with pytest.raises(ValueError, match="grad_outputs has 2 entries but there are 1"):
        core.grad(y, x, grad_outputs=[None, None])
    with pytest.raises(ValueError, match=r"grad_outputs\[0\] must be None or a Tensor"):
        core.grad(y, x, grad_outputs=[core.ones([3])])
    with pytest.raises(RuntimeError, match="output 0 has stop_gradient=True"):
        core.grad(core.ones([1]), x)


@pytest.mark.parametrize("op", [lambda x: x + 0, lambda x: core.reshape(x, [6])],
                         ids=["add_zero", "reshape"])
def test_backward_seed_is_copied_before_a_leaf_keeps_it(op):
    """An op that hands its gradient on unchanged must not leave the caller's seed array as
    the leaf's .grad: optimizers (and the caller) change it in place."""
    x = core.to_tensor(np.ones((2, 3)), dtype="float64", stop_gradient=False)
    y = op(x)
    seed = np.full(y.shape, 2.0)
    y.backward(seed)
    seed[...] = 7.0
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 3), 2.0))
    x.clear_gradient()
    y = op(x)
    given = core.to_tensor(np.full(y.shape, 3.0), dtype="float64")
    y.backward(given)
    given.data[...] = 9.0  # the caller's Tensor, changed in place
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 3), 3.0))
