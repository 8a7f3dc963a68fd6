"""core.autograd.jacobian / hessian (paddle.autograd's, Paddle 2.5+: lazily evaluated objects
that index like tensors) against torch.autograd.functional, with batch_axis=0 and tuples of
ys/xs; their laziness, indexing rules and errors; and core.autograd.backward from several
roots (Paddle's docstring example)."""
import numpy as np
import pytest

import core
from core.autograd import Hessian, Jacobian, backward, hessian, jacobian
from tests.gradcheck import check_grad

rng = np.random.default_rng(5)
W1, B1, W2 = rng.standard_normal((5, 4)), rng.standard_normal(5), rng.standard_normal((3, 5))
A = rng.standard_normal((3, 4))
S = rng.standard_normal((4, 4))


def leaf(values):
    return core.to_tensor(np.asarray(values, dtype="float64"), stop_gradient=False)


def const(values):
    return core.to_tensor(np.asarray(values, dtype="float64"))


# name -> (core function of a 1-D x, torch function of the same, x)
FUNCTIONS = {
    "tanh_mlp": (lambda x: core.matmul(const(W2), core.tanh(core.matmul(const(W1), x)
                                                             + const(B1))),
                 lambda t, x: t.tensor(W2) @ t.tanh(t.tensor(W1) @ x + t.tensor(B1)),
                 rng.standard_normal(4)),
    "cube": (lambda x: x ** 3, lambda t, x: x ** 3, rng.standard_normal(4)),
    "matmul": (lambda x: core.matmul(const(A), x), lambda t, x: t.tensor(A) @ x,
               rng.standard_normal(4)),
}
# name -> (core scalar function of a 1-D x, torch function of the same)
SCALARS = {
    "tanh_mlp": (lambda x: core.tanh(core.matmul(const(W1), x) + const(B1)).sum(),
                 lambda t, x: t.tanh(t.tensor(W1) @ x + t.tensor(B1)).sum()),
    "cube": (lambda x: (x ** 3).sum(), lambda t, x: (x ** 3).sum()),
    "quadratic": (lambda x: core.matmul(x, core.matmul(const(S), x)),
                  lambda t, x: x @ (t.tensor(S) @ x)),
}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_jacobian_matches_torch(name):
    torch = pytest.importorskip("torch")
    fn, torch_fn, xv = FUNCTIONS[name]
    x = leaf(xv)
    J = jacobian(fn(x), x)
    assert isinstance(J, Jacobian) and J.shape == [fn(x).shape[0], 4]
    expected = torch.autograd.functional.jacobian(lambda t: torch_fn(torch, t),
                                                  torch.tensor(xv)).numpy()
    np.testing.assert_allclose(J[:].numpy(), expected, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(J[1, :].numpy(), expected[1], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(J[:, 2].numpy(), expected[:, 2], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(float(J[-1, 3]), expected[-1, 3], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(J[0:3:2, 1:].numpy(), expected[0:3:2, 1:], rtol=1e-10,
                               atol=1e-12)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_batched_jacobian_matches_torch(name):
    torch = pytest.importorskip("torch")
    fn, torch_fn, _ = FUNCTIONS[name]
    xv = rng.standard_normal((3, 4))

    def batched(x):  # the same function on each row: [B, 4] -> [B, M]
        return core.stack([fn(x[b]) for b in range(3)])

    x = leaf(xv)
    J = jacobian(batched(x), x, batch_axis=0)
    full = torch.autograd.functional.jacobian(
        lambda t: torch.stack([torch_fn(torch, t[b]) for b in range(3)]),
        torch.tensor(xv)).numpy()  # [B, M, B, N]
    expected = np.stack([full[b, :, b, :] for b in range(3)])
    assert J.shape == list(expected.shape)
    np.testing.assert_allclose(J[:].numpy(), expected, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(J[:, 1, :].numpy(), expected[:, 1, :], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(J[2, :, 0].numpy(), expected[2, :, 0], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", sorted(SCALARS))
def test_hessian_matches_torch(name):
    torch = pytest.importorskip("torch")
    fn, torch_fn = SCALARS[name]
    xv = rng.standard_normal(4)
    x = leaf(xv)
    H = hessian(fn(x), x)
    assert isinstance(H, Hessian) and H.shape == [4, 4]
    expected = torch.autograd.functional.hessian(lambda t: torch_fn(torch, t),
                                                 torch.tensor(xv)).numpy()
    np.testing.assert_allclose(H[:].numpy(), expected, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(H[2].numpy(), expected[2], rtol=1e-10, atol=1e-12)


def test_batched_hessian_matches_torch():
    torch = pytest.importorskip("torch")
    fn, torch_fn = SCALARS["tanh_mlp"]
    xv = rng.standard_normal((3, 4))
    x = leaf(xv)
    ys = core.stack([fn(x[b]) for b in range(3)])  # [B]
    H = hessian(ys, x, batch_axis=0)
    assert H.shape == [3, 4, 4]
    expected = np.stack([torch.autograd.functional.hessian(lambda t: torch_fn(torch, t),
                                                           torch.tensor(xv[b])).numpy()
                         for b in range(3)])
    np.testing.assert_allclose(H[:].numpy(), expected, rtol=1e-10, atol=1e-12)
    H1 = hessian(ys.unsqueeze(1), x, batch_axis=0)  # [B, 1] works too
    np.testing.assert_allclose(H1[:, 1, :].numpy(), expected[:, 1, :], rtol=1e-10, atol=1e-12)


def test_tuples_give_nested_tuples_paddle_examples():
    x1, x2 = leaf(rng.standard_normal(3)), leaf(rng.standard_normal(3))
    y = x1 + x2
    J = jacobian(y, (x1, x2))
    assert isinstance(J, tuple) and len(J) == 2
    assert J[0][:].shape == [3, 3] and J[1][:].shape == [3, 3]
    np.testing.assert_array_equal(J[0][:].numpy(), np.eye(3))
    both = jacobian((y, x1 * x2), (x1, x2))
    assert len(both) == 2 and len(both[1]) == 2
    np.testing.assert_allclose(both[1][0][:].numpy(), np.diag(x2.numpy()))
    per_y = jacobian((y, x1 * 2), x1)
    np.testing.assert_array_equal(per_y[1][:].numpy(), 2 * np.eye(3))

    a, b = leaf(rng.standard_normal(3)), leaf(rng.standard_normal(4))
    H = hessian(a.sum() + b.sum(), (a, b))
    assert [[h[:].shape for h in row] for row in H] == [[[3, 3], [3, 4]], [[4, 3], [4, 4]]]
    H = hessian((a * a).sum() * b.sum(), (a, b))
    np.testing.assert_allclose(H[0][1][:].numpy(), np.tile(2 * a.numpy()[:, None], (1, 4)))
    np.testing.assert_allclose(H[1][1][:].numpy(), np.zeros((4, 4)))


def test_zero_d_ys_and_xs():
    x = leaf(1.5)
    J = jacobian(x ** 3, x)
    assert J.shape == []
    np.testing.assert_allclose(J.numpy(), 3 * 1.5 ** 2)
    with pytest.raises(IndexError, match="0-D and cannot be indexed"):
        J[0]
    v = leaf([1.0, 2.0])
    Jrow = jacobian((v * v).sum(), v)  # 0-D ys: shape [2]
    assert Jrow.shape == [2]
    np.testing.assert_allclose(Jrow[:].numpy(), [2.0, 4.0])
    np.testing.assert_allclose(Jrow[1].numpy(), 4.0)
    Jcol = jacobian(v * x, x)  # 0-D xs: shape [2]
    np.testing.assert_allclose(Jcol[:].numpy(), [1.0, 2.0])
    np.testing.assert_allclose(hessian(x ** 3, x).numpy(), 6 * 1.5)


def test_rows_are_computed_on_demand_and_once():
    x = leaf(rng.standard_normal(4))
    hidden = core.tanh(x)
    passes = []
    hidden.register_hook(lambda g: passes.append(1))
    J = jacobian(hidden * 2, x)
    assert passes == []
    J[1, :]
    assert len(passes) == 1
    J[1, 2]
    J[1]
    assert len(passes) == 1
    J[:]
    assert len(passes) == 4
    J[:, 0]
    assert len(passes) == 4


def test_jacobian_carries_a_graph_where_the_ops_allow():
    """Paddle takes the rows with create_graph=True: a loss on J[:] can be differentiated
    (PINN losses on derivatives)."""
    torch = pytest.importorskip("torch")
    xv = rng.standard_normal(4)
    x = leaf(xv)
    J = jacobian(core.tanh(x) * x, x)
    (J[:] ** 2).sum().backward()
    tx = torch.tensor(xv, requires_grad=True)
    tJ = torch.autograd.functional.jacobian(lambda t: torch.tanh(t) * t, tx, create_graph=True)
    (tJ ** 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-10)


def test_jacobian_entries_match_finite_differences():
    """The derivative of J[:] (as a function of x) against float64 central differences: the
    Jacobian is taken at x + z with respect to a zero leaf z, so that it depends on x even
    where the check evaluates it without gradients."""

    def jac(x):
        with core.enable_grad():
            z = core.zeros(x.shape, dtype="float64")
            z.stop_gradient = False
            at = x + z
            return jacobian(core.tanh(core.matmul(const(W1), at)) * at[0], z)[:]

    check_grad(jac, rng.standard_normal(4))

    def hess(x):
        with core.enable_grad():
            z = core.zeros(x.shape, dtype="float64")
            z.stop_gradient = False
            return hessian((core.tanh(x + z) ** 3).sum(), z)[:]

    check_grad(hess, rng.standard_normal(3))


def _array_only_sin(x):
    """sin as an op with an array backward only (no grad_fn): create_graph cannot pass it."""
    from core.tensor import apply

    return apply(np.sin(x.data), (x,), lambda g: (g * np.cos(x.data),), "array_only_sin")


def test_first_order_through_ops_without_a_graph_backward():
    x = leaf(rng.standard_normal(3))
    J = jacobian(_array_only_sin(x), x)  # no tensor-level backward: first order only
    np.testing.assert_allclose(J[:].numpy(), np.diag(np.cos(x.numpy())), rtol=1e-12)
    assert J[:].stop_gradient
    with pytest.raises(NotImplementedError, match="'array_only_sin'"):
        hessian(_array_only_sin(x).sum(), x)


def test_unrelated_inputs_give_zeros():
    x, other = leaf(rng.standard_normal(3)), leaf(rng.standard_normal(2))
    np.testing.assert_array_equal(jacobian(x * 2, other)[:].numpy(), np.zeros((3, 2)))
    np.testing.assert_array_equal(jacobian(core.to_tensor([1.0, 2.0]), x)[:].numpy(),
                                  np.zeros((2, 3)))
    np.testing.assert_array_equal(hessian(x.sum(), x)[:].numpy(), np.zeros((3, 3)))


def test_jacobian_arithmetic_and_attributes_use_the_whole_matrix():
    x = leaf([1.0, 2.0])
    J = jacobian(x * x, x)
    np.testing.assert_allclose((J * 2).numpy(), np.diag([4.0, 8.0]))
    np.testing.assert_allclose((1 + J).numpy(), np.diag([2.0, 4.0]) + 1)
    np.testing.assert_allclose((J @ J).numpy(), np.diag([4.0, 16.0]))
    np.testing.assert_allclose((-J).numpy(), -np.diag([2.0, 4.0]))
    np.testing.assert_array_equal((J == J[:]).numpy(), np.ones((2, 2), dtype=bool))
    assert J.numpy().shape == (2, 2) and J.dtype == np.float64
    assert "Jacobian(shape=[2, 2]" in repr(J)
    np.testing.assert_allclose(J[..., 1].numpy(), [0.0, 4.0])


def test_jacobian_argument_errors():
    x = leaf(rng.standard_normal((2, 3)))
    with pytest.raises(ValueError, match=r"jacobian: batch_axis must be None or 0 \(as "
                                         r"Paddle\), got 1"):
        jacobian(x, x, batch_axis=1)
    with pytest.raises(ValueError, match=r"jacobian: xs must be 0-D or 1-D with batch_axis="
                                         r"None, got shape \[2, 3\]"):
        jacobian(x[0], x)
    with pytest.raises(ValueError, match=r"ys must be 1-D or 2-D with batch_axis=0"):
        jacobian(x.reshape([1, 2, 3]), x, batch_axis=0)
    with pytest.raises(ValueError, match="same batch size"):
        jacobian(x[:1], x, batch_axis=0)
    with pytest.raises(TypeError, match="jacobian: ys must be a Tensor"):
        jacobian(3.0, x[0])
    J = jacobian(x[0] * 2, x[0])
    with pytest.raises(IndexError, match=r"index 3 is out of range for axis 0"):
        J[3]
    with pytest.raises(IndexError, match="too many indices"):
        J[0, 0, 0]
    with pytest.raises(TypeError, match="indexed with ints, slices and '...', got \\[0, 1\\]"):
        J[[0, 1]]
    np.testing.assert_array_equal(J[2:2].numpy().shape, (0, 3))


def test_hessian_argument_errors():
    x = leaf(rng.standard_normal(3))
    with pytest.raises(ValueError, match=r"hessian: ys must hold one element with batch_axis="
                                         r"None, got shape \[3\]"):
        hessian(x * 2, x)
    xb = leaf(rng.standard_normal((2, 3)))
    with pytest.raises(ValueError, match=r"one element per sample \(shape \[B\] or \[B, 1\]\)"):
        hessian(xb, xb, batch_axis=0)
    with pytest.raises(ValueError, match="hessian: batch_axis must be None or 0"):
        hessian(x.sum(), x, batch_axis=-1)
    with pytest.raises(TypeError, match="hessian: ys must be a Tensor"):
        hessian([x.sum()], x)


def test_backward_several_roots_paddle_example():
    x = core.to_tensor([[1, 2], [3, 4]], dtype="float32", stop_gradient=False)
    y = core.to_tensor([[3, 2], [3, 4]], dtype="float32")
    grad_tensor1 = core.to_tensor([[1, 2], [2, 3]], dtype="float32")
    grad_tensor2 = core.to_tensor([[1, 1], [1, 1]], dtype="float32")
    z1, z2 = core.matmul(x, y), core.matmul(x, y)
    backward([z1, z2], [grad_tensor1, grad_tensor2], True)
    np.testing.assert_array_equal(x.grad.numpy(), [[12, 18], [17, 25]])
    x.clear_grad()
    backward([z1, z2], [grad_tensor1, None], True)
    np.testing.assert_array_equal(x.grad.numpy(), [[12, 18], [17, 25]])
    x.clear_grad()
    backward([z1, z2])
    np.testing.assert_array_equal(x.grad.numpy(), [[10, 14], [10, 14]])
    with pytest.raises(RuntimeError, match="already freed"):
        backward(z1)


def test_backward_shared_nodes_run_once_and_leaves_as_roots():
    x = leaf([1.0, 2.0])
    hidden = core.tanh(x)
    runs = []
    hidden.register_hook(lambda g: runs.append(g.numpy().copy()))
    backward((hidden * 2, hidden * 3))
    assert len(runs) == 1
    np.testing.assert_allclose(runs[0], [5.0, 5.0])
    np.testing.assert_allclose(x.grad.numpy(), 5 * (1 - np.tanh(x.numpy()) ** 2))
    w = leaf([1.0, 1.0])
    seed = core.to_tensor([3.0, 4.0], dtype="float64")
    backward(w, seed)
    np.testing.assert_array_equal(w.grad.numpy(), [3.0, 4.0])
    w.grad_data[0] = 0.0  # the leaf owns its gradient: the seed is not changed
    np.testing.assert_array_equal(seed.numpy(), [3.0, 4.0])


def test_backward_argument_errors():
    x = leaf([1.0, 2.0])
    y = x * 2
    with pytest.raises(ValueError, match="contains the same Tensor more than once"):
        backward([y, y])
    with pytest.raises(ValueError, match=r"grad_tensors must be None, a Tensor or a list of 1 "
                                         "entries"):
        backward([y], [None, None])
    with pytest.raises(ValueError, match=r"grad_tensors\[0\] must be None or a Tensor of "
                                         r"tensors\[0\]'s shape \[2\]"):
        backward(y, core.to_tensor([1.0]))
    with pytest.raises(TypeError, match="retain_graph must be True or False, got 1"):
        backward(y, retain_graph=1)
    with pytest.raises(TypeError, match="tensors must be a Tensor or a non-empty list"):
        backward([])
    with pytest.raises(RuntimeError, match=r"tensors\[1\] \(shape \[2\]\) has stop_gradient"):
        backward([y, core.to_tensor([1.0, 2.0])])


def test_batched_jacobian_of_several_inputs_and_outputs_matches_torch():
    torch = pytest.importorskip("torch")
    av, bv = rng.standard_normal((3, 4)), rng.standard_normal((3, 2))

    def fn(a, b, tanh):  # [B, 4], [B, 2] -> ([B, 2], [B, 2]), each row on its own
        return tanh(a[:, :2] * b), (a * a).sum(1, keepdim=True) * b

    a, b = leaf(av), leaf(bv)
    J = jacobian(fn(a, b, core.tanh), (a, b), batch_axis=0)
    full = torch.autograd.functional.jacobian(lambda x, y: fn(x, y, torch.tanh),
                                              (torch.tensor(av), torch.tensor(bv)))
    for i in range(2):
        for j in range(2):
            per_batch = full[i][j].numpy()  # [B, M, B, N]: only the diagonal blocks count
            expected = np.stack([per_batch[k, :, k, :] for k in range(3)])
            assert J[i][j].shape == list(expected.shape)
            np.testing.assert_allclose(J[i][j][:].numpy(), expected, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(J[1][0][:, 1, :].numpy(), np.stack(
        [full[1][0].numpy()[k, 1, k, :] for k in range(3)]), rtol=1e-12)
