"""paddle.sparse as a Paddle user would break it (core/sparse/): uncoalesced COO tensors (a
position stored more than once) through the ops that are not linear in the values, against the
same op on the coalesced tensor, float64 central differences and torch.sparse (which coalesces
first); empty and hybrid tensors; and the dense Tensor methods a sparse tensor refuses with a
clear error, as Paddle's do."""
import numpy as np
import pytest

import core as paddle
from tests.gradcheck import check_grad

rng = np.random.default_rng(17)

IDX = [[0, 1, 0, 2, 0], [1, 2, 1, 0, 3]]  # (0, 1) twice
VALUES = [1.0, 2.0, -3.0, -4.0, 0.5]  # (0, 1) holds 1 - 3 = -2
SHAPE = [3, 4]
F = paddle.sparse.nn.functional


def coo(values=VALUES, indices=IDX, shape=SHAPE, **kwargs):
    return paddle.sparse.sparse_coo_tensor(indices, values, shape, **kwargs)


# ----- repeated entries: the op acts on their sum, the value the dense tensor holds ------------

NONLINEAR = {
    "abs": paddle.sparse.abs, "square": paddle.sparse.square, "sin": paddle.sparse.sin,
    "tanh": paddle.sparse.tanh, "expm1": paddle.sparse.expm1, "pow3": lambda x: x ** 3,
    "cast_int": lambda x: paddle.sparse.cast(x, value_dtype="int32"),
    "isnan": paddle.sparse.isnan, "relu": F.relu, "relu6": F.relu6,
    "leaky_relu": lambda x: F.leaky_relu(x, 0.1), "softmax": F.softmax,
    "Softmax layer": paddle.sparse.nn.Softmax(), "ReLU layer": paddle.sparse.nn.ReLU(),
}


@pytest.mark.parametrize("name", sorted(NONLINEAR))
def test_nonlinear_ops_of_repeated_entries_act_on_their_sum(name):
    fn = NONLINEAR[name]
    x = coo([1.0, 2.0, -3.5, -4.0, 0.5])
    out, want = fn(x), fn(x.coalesce())
    np.testing.assert_allclose(out.to_dense().numpy(), want.to_dense().numpy(), rtol=1e-6)
    assert out.nnz() == 4 and out.is_sparse_coo()


def test_each_position_once_keeps_the_storage_order():
    # Coalescing is only for repeats: an unsorted pattern of distinct positions is kept.
    x = coo(indices=[[2, 0, 1, 0, 0], [0, 1, 2, 3, 0]])
    np.testing.assert_array_equal(paddle.sparse.square(x).indices().numpy(), x.indices().numpy())
    np.testing.assert_allclose(F.relu(x).values().numpy(), np.maximum(VALUES, 0))


def test_hybrid_repeated_rows_act_on_their_sum():
    x = paddle.sparse.sparse_coo_tensor([[0, 2, 0]], [[1., -2.], [3., 4.], [5., 6.]], [3, 2])
    np.testing.assert_allclose(F.relu(x).to_dense().numpy(), [[6, 4], [0, 0], [3, 4]])
    np.testing.assert_allclose(F.softmax(x).to_dense().numpy()[0],
                               np.exp([6., 4.]) / np.exp([6., 4.]).sum(), rtol=1e-6)


def test_masked_matmul_with_a_repeated_mask_entry():
    x, y = rng.normal(size=(3, 5)), rng.normal(size=(5, 4))
    out = paddle.sparse.masked_matmul(paddle.to_tensor(x), paddle.to_tensor(y), coo(
        np.ones(5)))
    want = (x @ y) * (coo(np.ones(5)).to_dense().numpy() != 0)
    np.testing.assert_allclose(out.to_dense().numpy(), want)


@pytest.mark.parametrize("name", ["square", "softmax", "relu", "pow3"])
def test_gradients_through_repeated_entries(name):
    fn = NONLINEAR[name]
    check_grad(lambda v: fn(coo(v)).to_dense(), np.array([0.3, -1.2, 0.9, 2.0, -0.7]))


def test_softmax_and_matmul_gradients_with_repeats_match_torch():
    torch = pytest.importorskip("torch")
    v, w = rng.normal(size=5), rng.normal(size=(4, 2))
    weights = rng.normal(size=(3, 4))
    values = paddle.to_tensor(v, stop_gradient=False)
    dense = paddle.to_tensor(w, stop_gradient=False)
    x = coo(values)
    loss = ((F.softmax(x).to_dense() * paddle.to_tensor(weights)).sum()
            + paddle.sparse.matmul(x, dense).sum() + paddle.sparse.matmul(x.coalesce(),
                                                                         dense).sum())
    loss.backward()
    tv = torch.tensor(v, requires_grad=True)
    tw = torch.tensor(w, requires_grad=True)
    t = torch.sparse_coo_tensor(torch.tensor(IDX), tv, SHAPE, check_invariants=True)
    tloss = ((torch.sparse.softmax(t, dim=1).to_dense() * torch.tensor(weights)).sum()
             + torch.sparse.mm(t, tw).sum() + torch.sparse.mm(t.coalesce(), tw).sum())
    tloss.backward()
    np.testing.assert_allclose(loss.numpy(), tloss.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(values.grad.numpy(), tv.grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(dense.grad.numpy(), tw.grad.numpy(), rtol=1e-10)


def test_optimizer_step_on_repeated_values_updates_each_entry():
    x = coo(np.array(VALUES), stop_gradient=False)
    x.name = "adjacency"  # core's optimizers key their state by name
    opt = paddle.optimizer.SGD(learning_rate=0.5, parameters=[x])
    (paddle.sparse.square(x).to_dense()).sum().backward()
    opt.step()
    # d/dv of (sum at a position)^2 is 2 * that sum, for each entry stored there.
    sums = np.array([-2.0, 2.0, -2.0, -4.0, 0.5])
    np.testing.assert_allclose(x.values().numpy(), np.array(VALUES) - 0.5 * 2 * sums, rtol=1e-6)


# ----- empty and hybrid tensors ---------------------------------------------------------------

def test_empty_tensors_through_the_ops():
    empty = coo(paddle.zeros([0], dtype="float64"), paddle.zeros([2, 0], dtype="int64"))
    dense = paddle.ones([4, 2], dtype="float64")
    assert paddle.sparse.sum(empty).numpy().tolist() == [0.0]
    np.testing.assert_array_equal(paddle.sparse.matmul(empty, dense).numpy(), np.zeros((3, 2)))
    for out in (F.softmax(empty), F.relu(empty), paddle.sparse.add(empty, empty),
                paddle.sparse.transpose(empty, [1, 0]), empty.to_sparse_csr(),
                F.softmax(empty.to_sparse_csr())):
        assert out.nnz() == 0 and not out.numpy().any()
    assert "indices=[]" in repr(empty) and "crows=[0, 0, 0, 0]" in repr(empty.to_sparse_csr())


def test_hybrid_values_print_aligned():
    x = paddle.sparse.sparse_coo_tensor([[0, 2]], [[1., -2.], [3., 4.]], [3, 2])
    assert "values=[[ 1., -2.],\n               [ 3.,  4.]])" in repr(x)


# ----- dense Tensor methods: refused, as Paddle's dense kernels refuse a sparse input ------------

@pytest.mark.parametrize(("use", "what"), [
    (lambda x: x[0], "indexing x\\[...\\]"),
    (lambda x: x.__setitem__(0, 1.0), "assignment x\\[...\\] = value"),
    (lambda x: list(x), "indexing x\\[...\\]"),
    (lambda x: x == x, "=="),
    (lambda x: x < 1, "<"),
    (lambda x: x.T, "Tensor.T"),
    (lambda x: x.t(), "Tensor.t"),
    (lambda x: x.transpose([1, 0]), "Tensor.transpose"),
    (lambda x: x.reshape([12]), "Tensor.reshape"),
    (lambda x: x.sum(), "Tensor.sum"),
    (lambda x: x.mean(), "Tensor.mean"),
    (lambda x: x.exp(), "Tensor.exp"),
    (lambda x: x.abs(), "Tensor.abs"),
    (lambda x: abs(x), "abs\\(\\)"),
    (lambda x: x.numel(), "Tensor.numel"),
    (lambda x: x.set_value(np.zeros((3, 4))), "Tensor.set_value"),
    (lambda x: paddle.ones([2, 3]) @ x, "dense @ sparse"),
])
@pytest.mark.parametrize("layout", ["coo", "csr"])
def test_dense_methods_are_refused(use, what, layout):
    x = coo() if layout == "coo" else coo().coalesce().to_sparse_csr()
    with pytest.raises(TypeError, match=f"{what} is not supported for a sparse tensor .*"
                                        "x.to_dense\\(\\) first"):
        use(x)


# ----- core's dense functions: refused too, whatever reads the values array --------------------

def _dense():
    return paddle.ones([3, 4])  # on the test's device (gpu:N under TOMLRUN_TEST_DEVICE)


@pytest.mark.parametrize(("use", "name"), [
    (lambda x: paddle.add(x, _dense()), "add"),
    (lambda x: paddle.multiply(_dense(), x), "multiply"),
    (lambda x: paddle.add(paddle.ones([5], dtype="float32"), x), "add"),  # fits the [5] values
    (lambda x: paddle.exp(x), "exp"),
    (lambda x: paddle.sum(x), "sum"),
    (lambda x: paddle.reshape(x, [12]), "reshape"),
    (lambda x: paddle.concat([_dense(), x]), "concat"),
    (lambda x: paddle.matmul(x, paddle.ones([4, 2])), "matmul"),
    (lambda x: paddle.nn.functional.softmax(x), "softmax"),
    (lambda x: paddle.nn.Linear(4, 2)(x), "(Linear\\.)?forward"),  # the class from 3.11
    (lambda x: paddle.argmax(x), "argmax"),
    (lambda x: paddle.isnan(x), None),  # a function made by a factory goes unnamed
    (lambda x: paddle.equal(x, _dense()), None),
])
@pytest.mark.parametrize("layout", ["coo", "csr"])
def test_dense_functions_refuse_a_sparse_tensor(use, name, layout):
    # They read x.data, the [nnz] values: core.add(x, ones([5])) used to add 1 to each stored
    # value and return a dense [5] tensor. Paddle's dense kernels refuse a sparse input.
    x = coo() if layout == "coo" else coo().coalesce().to_sparse_csr()
    x.stop_gradient = False
    caller = f"{name}\\(\\)" if name else "a dense function"
    for grad in (True, False):
        with paddle.set_grad_enabled(grad), pytest.raises(
                TypeError, match=f"^{caller}: a sparse tensor is not supported by core's dense "
                                 "functions .* x.to_dense\\(\\) first"):
            use(x)


def test_to_tensor_refuses_a_sparse_tensor():
    with pytest.raises(TypeError, match="to_tensor: a sparse tensor is not supported by core's "
                                        "dense functions .* x.to_dense\\(\\)"):
        paddle.to_tensor(coo())


def test_dense_functions_take_the_dense_form_or_the_values():
    x = coo(stop_gradient=False)
    want = x.to_dense().numpy()
    np.testing.assert_allclose(paddle.add(x.to_dense(), _dense()).numpy(), want + 1)
    np.testing.assert_allclose(paddle.exp(x.values()).numpy(), np.exp(VALUES), rtol=1e-6)
    assert paddle.is_floating_point(x) and not paddle.is_integer(x) and x.element_size() == 4
    (paddle.exp(x.values()).sum() + paddle.sum(x.to_dense())).backward()
    np.testing.assert_allclose(x.grad.values().numpy(), np.exp(VALUES) + 1, rtol=1e-6)


def test_what_a_sparse_tensor_keeps_of_the_dense_tensor():
    x = coo(stop_gradient=False)
    want = x.to_dense().numpy()
    np.testing.assert_array_equal(np.asarray(x), want)
    assert np.asarray(x, dtype="float64").dtype == np.float64
    assert x.shape == [3, 4] and x.dtype == np.float32 and x.is_leaf and x.is_floating_point()
    assert float(paddle.sparse.sum(x)) == pytest.approx(want.sum())
    with pytest.raises(ValueError, match="size 1"):
        bool(x)
    paddle.sparse.sum(x).backward()
    assert x.grad.is_sparse_coo()
    x.clear_grad()
    assert not x.grad.values().numpy().any()


def test_sum_takes_a_tensor_axis():
    # A 0-D Tensor axis used to be read as no axis at all (list() of it is empty).
    x = coo()
    want = x.to_dense().numpy()
    np.testing.assert_allclose(paddle.sparse.sum(x, axis=paddle.to_tensor(0)).to_dense().numpy(),
                               want.sum(0))
    np.testing.assert_allclose(paddle.sparse.sum(x, paddle.to_tensor([1])).to_dense().numpy(),
                               want.sum(1))
    with pytest.raises(TypeError, match="sparse.sum: axis must be None, an int, a list or tuple "
                                        "of ints or a Tensor, got str"):
        paddle.sparse.sum(x, axis="0")


@pytest.mark.parametrize("layout", ["coo", "csr"])
def test_softmax_refuses_integer_values_as_the_dense_softmax(layout):
    x = paddle.to_tensor([[0, 1, 0], [2, 0, 3]])
    x = x.to_sparse_coo(2) if layout == "coo" else x.to_sparse_csr()
    with pytest.raises(TypeError, match="softmax: x must be a floating tensor .* got dtype int64"):
        F.softmax(x)
    out = F.softmax(paddle.sparse.cast(x, value_dtype="float32"))
    assert out.dtype == np.float32


def test_softmax_layer_reproduces_paddles_printed_example():
    # Paddle 2.4's paddle.sparse.nn.Softmax example, its printed input and output.
    x = np.array([[0., 0., 0.96823406, 0.19722934], [0.94373937, 0., 0.02060066, 0.71456372],
                  [0., 0., 0., 0.98275049]])
    out = paddle.sparse.nn.Softmax()(paddle.to_tensor(x).to_sparse_csr())
    np.testing.assert_array_equal(out.crows().numpy(), [0, 2, 5, 6])
    np.testing.assert_array_equal(out.cols().numpy(), [2, 3, 0, 2, 3, 3])
    np.testing.assert_allclose(out.values().numpy(), [0.68373820, 0.31626180, 0.45610887,
                                                      0.18119845, 0.36269269, 1.], atol=1e-8)


@pytest.mark.parametrize("layout", ["coo", "csr"])
def test_copy_deepcopy_and_pickle_keep_a_sparse_tensor(layout):
    # They read every slot from their own modules, which the values array refuses otherwise.
    import copy  # noqa: PLC0415 - only this test
    import pickle  # noqa: PLC0415

    x = coo() if layout == "coo" else coo().coalesce().to_sparse_csr()
    for y in (copy.copy(x), copy.deepcopy(x), pickle.loads(pickle.dumps(x))):
        assert type(y) is type(x) and y.shape == x.shape
        np.testing.assert_array_equal(y.numpy(), x.numpy())
        np.testing.assert_array_equal(y.values().numpy(), x.values().numpy())
        with pytest.raises(TypeError, match="^x.data: a sparse tensor is not supported"):
            y.data  # noqa: B018 - the read is the test
