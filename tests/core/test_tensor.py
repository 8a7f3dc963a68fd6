"""The autograd engine of core/tensor.py: operators, accumulation, graph shapes, hooks, no_grad."""
import sys

import numpy as np
import pytest

import core
from tests.gradcheck import check_grad

rng = np.random.default_rng(7)


def leaf(values, dtype="float64"):
    return core.to_tensor(np.asarray(values, dtype=dtype), stop_gradient=False)


# ----- operators, with broadcasting ------------------------------------------------------------

@pytest.mark.parametrize("op", [
    lambda x, y: x + y, lambda x, y: x - y, lambda x, y: x * y, lambda x, y: x / y,
    lambda x, y: y - x, lambda x, y: y / x,
])
@pytest.mark.parametrize("shapes", [((2, 3), (2, 3)), ((2, 1, 3), (4, 1)), ((3,), (2, 3)),
                                    ((), (2, 2))])
def test_binary_operators_broadcast(op, shapes):
    a = rng.uniform(0.5, 2.0, shapes[0])
    b = rng.uniform(0.5, 2.0, shapes[1])
    check_grad(op, a, b)


@pytest.mark.parametrize("op", [lambda x: 2.0 - x, lambda x: 3.0 / x, lambda x: x * 0.5 + 1,
                                lambda x: -x, lambda x: x ** 3, lambda x: 2.0 ** x])
def test_operators_with_python_scalars(op):
    check_grad(op, rng.uniform(0.5, 2.0, (2, 3)))


def test_pow_with_tensor_exponent_broadcasts():
    check_grad(lambda x, y: x ** y, rng.uniform(0.5, 2.0, (2, 3)), rng.uniform(-1, 2, (3,)))


@pytest.mark.parametrize("shapes", [((3, 4), (4, 2)), ((2, 3, 4), (4, 5)), ((4,), (4, 3)),
                                    ((3, 4), (4,)), ((2, 1, 3, 4), (5, 4, 2))])
def test_matmul_operator_broadcasts(shapes):
    check_grad(lambda x, y: x @ y, rng.normal(size=shapes[0]), rng.normal(size=shapes[1]))


@pytest.mark.parametrize("tx,ty", [(True, False), (False, True), (True, True)])
def test_matmul_transposes(tx, ty):
    a = rng.normal(size=(2, 4, 3) if tx else (2, 3, 4))
    b = rng.normal(size=(5, 4) if ty else (4, 5))
    check_grad(lambda x, y: core.matmul(x, y, transpose_x=tx, transpose_y=ty), a, b)


def test_getitem_basic_and_advanced_with_repeats():
    a = rng.normal(size=(4, 3))
    check_grad(lambda x: x[1:3, ::-1], a)
    check_grad(lambda x: x[np.array([0, 2, 0, 0])], a)  # repeated rows add up
    check_grad(lambda x: x[core.to_tensor([3, 3]), 1], a)


def test_comparison_operators_are_elementwise_and_detached():
    x = leaf([1.0, 2.0, 3.0])
    out = x > 1.5
    assert out.dtype == np.bool_ and out.stop_gradient
    np.testing.assert_array_equal(out.numpy(), [False, True, True])
    np.testing.assert_array_equal((x == core.to_tensor([1.0, 0.0, 3.0])).numpy(),
                                  [True, False, True])


# ----- graph shapes and accumulation -----------------------------------------------------------

def test_gradient_accumulates_across_backward_calls():
    x = leaf([1.0, 2.0])
    (x * x).sum().backward()
    (x * 3.0).sum().backward()
    np.testing.assert_allclose(x.gradient(), 2 * np.array([1.0, 2.0]) + 3.0)
    x.clear_grad()  # Paddle's default set_to_zero=True: zeros, not None
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0])
    x.clear_grad(set_to_zero=False)
    assert x.grad is None


def test_diamond_graph_sums_both_paths_before_going_on():
    x = leaf([0.5, -1.0, 2.0])
    seen = []
    y = x * 2.0  # used twice below
    y.register_array_hook(lambda g: seen.append(core.backend.to_numpy(g).copy()) or g)
    z = y * y + y
    z.backward()
    expected_y = 2 * y.numpy() + 1
    assert len(seen) == 1  # y's closure ran once, with the sum of both paths
    np.testing.assert_allclose(seen[0], expected_y)
    np.testing.assert_allclose(x.gradient(), expected_y * 2.0)


def test_leaf_used_many_times_and_shared_input_arrays_are_owned():
    x = leaf([1.0, 2.0])
    out = x + x  # add's closure hands the same array to both inputs
    out.backward()
    np.testing.assert_allclose(x.gradient(), [2.0, 2.0])
    w = leaf([1.0])
    y = leaf([2.0])
    (w + y).backward()
    w.grad_data *= 10  # an optimizer changing one gradient in place must not change the other
    np.testing.assert_allclose(y.gradient(), [1.0])


def test_leaf_gradient_keeps_the_leaf_dtype():
    x = leaf([1.0, 2.0], dtype="float32")
    for _ in range(2):
        (x * core.to_tensor(np.array([1.0, 1.0]), dtype="float64")).sum().backward()
    assert x.grad_data.dtype == np.float32
    np.testing.assert_allclose(x.gradient(), [2.0, 2.0])


def test_backward_on_a_leaf_gives_ones():
    x = leaf([[1.0, 2.0]])
    x.backward()
    np.testing.assert_array_equal(x.gradient(), [[1.0, 1.0]])


def test_zero_dimensional_results_are_arrays():
    x = leaf(3.0)
    y = x * x + x
    assert not np.isscalar(y.data) and y.shape == []  # an array, not a numpy scalar
    y.backward()
    assert not np.isscalar(x.grad_data)
    np.testing.assert_allclose(x.gradient(), 7.0)


# ----- stop_gradient and no_grad ---------------------------------------------------------------

def test_stop_gradient_blocks_gradients():
    x = leaf([1.0, 2.0])
    c = core.to_tensor([3.0, 4.0])  # Paddle's default: stop_gradient=True
    (x * c).sum().backward()
    assert c.grad is None
    np.testing.assert_allclose(x.gradient(), [3.0, 4.0])
    d = x.detach() * 2.0
    assert d.stop_gradient
    with pytest.raises(RuntimeError, match="stop_gradient=True"):
        (c * c).sum().backward()


def test_stop_gradient_in_the_middle_of_a_graph():
    x = leaf([1.0, 2.0])
    y = x * 2.0
    y.stop_gradient = True  # cut here: x gets only the direct path
    (y * x).sum().backward()
    np.testing.assert_allclose(x.gradient(), y.numpy())


def test_no_grad_records_nothing_and_restores_state():
    x = leaf([1.0])
    with core.no_grad():
        y = x * 2.0
        assert not core.is_grad_enabled()
        with core.no_grad():
            pass
        assert not core.is_grad_enabled()
    assert core.is_grad_enabled()
    assert y.stop_gradient and y.is_leaf

    @core.no_grad()
    def double(t):
        return t * 2.0

    assert double(x).stop_gradient and core.is_grad_enabled()


def test_no_grad_decorator_is_reentrant():
    @core.no_grad()
    def countdown(n):
        return 0 if n == 0 else countdown(n - 1)

    countdown(3)
    assert core.is_grad_enabled()


# ----- hooks ----------------------------------------------------------------------------------

def test_register_hook_replaces_the_gradient():
    x = leaf([1.0, 2.0])
    y = x * 3.0
    handle = y.register_hook(lambda g: g * 0.0 + 10.0)
    (y * y).sum().backward()
    np.testing.assert_allclose(x.gradient(), [30.0, 30.0])
    handle.remove()
    x.clear_grad()
    y = x * 3.0
    (y * y).sum().backward()
    np.testing.assert_allclose(x.gradient(), 2 * 9 * np.array([1.0, 2.0]))


def test_leaf_hook_sees_the_whole_gradient_once():
    x = leaf([1.0, 2.0])
    calls = []

    def hook(g):
        calls.append(g.numpy().copy())
        return core.to_tensor(np.array([5.0, 5.0]))

    x.register_hook(hook)
    (x * 2.0 + x * 3.0).sum().backward()
    assert len(calls) == 1
    np.testing.assert_allclose(calls[0], [5.0, 5.0])
    np.testing.assert_allclose(x.gradient(), [5.0, 5.0])


# ----- engine robustness -----------------------------------------------------------------------

def test_deep_chain_does_not_hit_the_recursion_limit():
    limit = sys.getrecursionlimit()
    x = leaf([1.0])
    y = x
    for _ in range(5000):
        y = y * 1.0001 + 0.0
    y.backward()
    np.testing.assert_allclose(x.gradient(), [1.0001 ** 5000])
    assert sys.getrecursionlimit() == limit
    del y  # freeing the long chain must not recurse either


def _run_recording(seed):
    data = np.random.default_rng(seed).normal(size=(3,))
    x = leaf(data)
    names = ["a", "b", "c", "d", "e"]
    a = x * 2.0
    b = a.exp()
    c = a * x
    d = b + c + a
    e = (d * b).sum()
    order = []
    for name, t in zip(names, (a, b, c, d, e)):
        t.register_array_hook(lambda g, n=name: order.append(n) or g)
    e.backward()
    return order, x.gradient()


def test_backward_order_and_results_are_deterministic():
    first_order, first_grad = _run_recording(0)
    assert first_order[0] == "e" and first_order[-1] == "a"
    for _ in range(5):
        order, grad = _run_recording(0)
        assert order == first_order
        np.testing.assert_array_equal(grad, first_grad)  # bitwise: same summation order


def test_second_backward_without_retain_graph_raises_clearly():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        y.backward()
    x.clear_grad()
    y = x * x
    z = y.sum()
    z.backward()
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        (y * 2.0).sum().backward()  # reaches the freed part through y


def test_retain_graph_allows_a_second_backward():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.gradient(), 2 * 2 * np.array([1.0, 2.0]))


@pytest.mark.usefixtures("split_small_work")
@pytest.mark.parametrize("a_shape, b_shape, flags", [
    ((300, 128), (128, 96), {}), ((4, 80, 128), (128, 96), {}),
    ((128, 300), (128, 96), {"transpose_x": True})])
def test_large_matmul_split_over_threads_matches_one_thread(a_shape, b_shape, flags):
    """Large products with a 2-D right operand split their rows over core's threads."""
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal(a_shape), rng.standard_normal(b_shape)
    results = []
    for threads in (1, 2):
        core.device.set_num_threads(threads)
        try:
            x, y = core.to_tensor(a, stop_gradient=False), core.to_tensor(b, stop_gradient=False)
            out = core.matmul(x, y, **flags)
            out.backward(core.to_tensor(np.cos(np.arange(out.size)).reshape(out.shape)))
            results.append((out.numpy(), x.gradient(), y.gradient()))
        finally:
            core.device.set_num_threads(1)
    for got, want in zip(results[1], results[0]):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    a_used = a.swapaxes(-1, -2) if flags else a
    np.testing.assert_allclose(results[0][0], a_used @ b, rtol=1e-12)


def test_numpy_returns_a_copy_as_paddle_does():
    """A snapshot taken with .numpy() keeps its values through optimizer steps, and writing to
    it leaves the parameter alone (tensor.data is the live array)."""
    lin = core.nn.Linear(2, 2)
    opt = core.optimizer.SGD(learning_rate=0.5, parameters=lin.parameters())
    before = lin.weight.numpy()
    core.sum(lin(core.ones([1, 2]))).backward()
    opt.step()
    assert not np.array_equal(before, lin.weight.numpy())
    snapshot = lin.weight.numpy()
    snapshot *= 0
    assert np.abs(lin.weight.numpy()).sum() > 0


def test_len_is_the_first_axis_and_a_type_error_for_a_0d_tensor():
    assert len(core.zeros([3, 2])) == 3 and len(core.zeros([0])) == 0
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError, match="0-d"):  # the exception type torch and numpy give
        len(torch.tensor(1.0))
    with pytest.raises(TypeError, match=r"len\(\) of a 0-D Tensor \(shape \[\]\).*numel"):
        len(core.to_tensor(1.5))


def test_iterating_a_0d_tensor_is_a_type_error_and_rows_otherwise():
    rows = list(core.to_tensor([[1.0, 2.0], [3.0, 4.0]]))
    assert len(rows) == 2 and rows[1].numpy().tolist() == [3.0, 4.0]
    assert list(core.zeros([0, 3])) == []
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError, match="0-d"):  # the exception type torch and numpy give
        iter(torch.tensor(1.0))
    with pytest.raises(TypeError, match=r"iteration over a 0-D Tensor \(shape \[\]\).*item"):
        list(core.to_tensor(0))
    with pytest.raises(TypeError, match="0-D Tensor"):
        for _ in core.to_tensor(1.5):
            pass


def test_iterating_rows_keeps_the_gradient():
    x = core.to_tensor([[1.0, 2.0], [3.0, 4.0]], dtype="float64", stop_gradient=False)
    total = None
    for k, row in enumerate(x):
        total = core.sum(row) * (k + 1) if total is None else total + core.sum(row) * (k + 1)
    total.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[1.0, 1.0], [2.0, 2.0]])
