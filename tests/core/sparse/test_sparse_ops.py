"""paddle.sparse's ops (core/sparse/binary.py, unary.py, products.py, shape.py): Paddle's
docstring examples, values against the dense ops, gradients of the values and of the dense
operands against float64 central differences and torch.sparse, the sparse tensor operators, and
bad arguments named in the errors."""
import numpy as np
import pytest

import core as paddle
from tests.gradcheck import check_grad

rng = np.random.default_rng(61)

X = [[0, -1, 0, 2], [0, 0, -3, 0], [4, 5, 0, 0]]
Y = [[0, 0, 0, -2], [0, 2, -3, 0], [2, 3, 4, 8]]
IDX = [[0, 1, 2, 0, 2], [1, 2, 0, 1, 3]]  # (0, 1) twice
ONCE = [[0, 1, 2, 0, 2], [1, 2, 0, 3, 3]]  # each position once, not sorted
SHAPE = [3, 4]


def coo(values, indices=IDX, shape=SHAPE):
    return paddle.sparse.sparse_coo_tensor(indices, values, shape)


LAYOUTS = {"coo": lambda t: t.to_sparse_coo(t.ndim), "csr": lambda t: t.to_sparse_csr()}


# ----- add / subtract / multiply / divide -----------------------------------------------------

@pytest.mark.parametrize("layout", ["coo", "csr"])
@pytest.mark.parametrize(("fn", "want"), [
    ("add", [[0, -1, 0, 0], [0, 2, -6, 0], [6, 8, 4, 8]]),
    ("subtract", [[0, -1, 0, 4], [0, -2, 0, 0], [2, 2, -4, -8]]),
    ("multiply", [[0, 0, 0, -4], [0, 0, 9, 0], [8, 15, 0, 0]]),
])
def test_binary_docstring_examples(layout, fn, want):
    conv = LAYOUTS[layout]
    x, y = conv(paddle.to_tensor(X, "float32")), conv(paddle.to_tensor(Y, "float32"))
    out = getattr(paddle.sparse, fn)(x, y)
    assert out.is_sparse_csr() == (layout == "csr")
    np.testing.assert_array_equal(out.to_dense().numpy(), want)


def test_divide_docstring_example_on_the_union_of_patterns():
    x = paddle.to_tensor(X, "float32").to_sparse_csr()
    y = paddle.to_tensor(Y, "float32").to_sparse_csr()
    with np.errstate(divide="ignore", invalid="ignore"):
        out = paddle.sparse.divide(x, y).to_dense().numpy()
    # Paddle's kernel writes 0/0 = NaN where neither stores an entry; core keeps those zero.
    np.testing.assert_allclose(out, [[0, -np.inf, 0, -1], [0, 0, 1, 0], [2, 5 / 3, 0, 0]])


@pytest.mark.parametrize("fn", ["add", "subtract", "multiply"])
def test_binary_gradients(fn):
    other_idx = [[0, 1, 2, 2], [3, 2, 3, 0]]  # overlaps x's pattern in part

    def f(a, b):
        return getattr(paddle.sparse, fn)(coo(a), coo(b, other_idx)).to_dense()

    check_grad(f, rng.normal(size=5), rng.normal(size=4))


def test_divide_gradient():
    # One pattern for both: a nonzero denominator wherever the union stores an entry.
    check_grad(lambda a, b: paddle.sparse.divide(coo(a), coo(b)).to_dense(),
               rng.normal(size=5), rng.uniform(1, 2, size=5))


def test_add_matches_torch_and_coalesces():
    torch = pytest.importorskip("torch")
    a, b = rng.normal(size=5), rng.normal(size=3)
    b_idx = [[0, 1, 1], [1, 1, 3]]
    out = paddle.sparse.add(coo(a), coo(b, b_idx))
    t = (torch.sparse_coo_tensor(torch.tensor(IDX), torch.tensor(a), SHAPE,
                                 check_invariants=True)
         + torch.sparse_coo_tensor(torch.tensor(b_idx), torch.tensor(b), SHAPE,
                                   check_invariants=True)).coalesce()
    np.testing.assert_array_equal(out.indices().numpy(), t.indices().numpy())
    np.testing.assert_allclose(out.values().numpy(), t.values().numpy())


def test_scalar_multiply_and_divide_keep_the_pattern():
    x = coo([1., 2., 3., 4., 5.])
    np.testing.assert_array_equal(paddle.sparse.multiply(x, 2).values().numpy(),
                                  [2, 4, 6, 8, 10])
    np.testing.assert_array_equal(paddle.sparse.divide(x, 2.0).values().numpy(),
                                  [.5, 1, 1.5, 2, 2.5])
    assert paddle.sparse.multiply(x, 2).dtype == np.float32


def test_operators():
    a = paddle.to_tensor(X, "float64").to_sparse_coo(2)
    b = paddle.to_tensor(Y, "float64").to_sparse_coo(2)
    np.testing.assert_array_equal((a + b).to_dense().numpy(), np.add(X, Y))
    np.testing.assert_array_equal((a - b).to_dense().numpy(), np.subtract(X, Y))
    np.testing.assert_array_equal((a * b).to_dense().numpy(), np.multiply(X, Y))
    np.testing.assert_array_equal((2 * a).to_dense().numpy(), np.multiply(X, 2))
    np.testing.assert_array_equal((a / 2).to_dense().numpy(), np.divide(X, 2))
    np.testing.assert_array_equal((-a).to_dense().numpy(), np.negative(X))
    np.testing.assert_array_equal((a ** 2).to_dense().numpy(), np.square(X))
    np.testing.assert_array_equal((a @ paddle.ones([4, 1], "float64")).numpy(),
                                  np.sum(X, axis=1, keepdims=True))
    with pytest.raises(TypeError, match="sparse tensors support '\\+' only as core.sparse offers"):
        1 + a  # noqa: B018
    with pytest.raises(TypeError, match="sparse.add: y must be a sparse tensor"):
        a + 1  # noqa: B018


def test_binary_errors():
    x = paddle.to_tensor(X, "float32").to_sparse_coo(2)
    with pytest.raises(ValueError, match="sparse.add: x and y must have the same shape, got "
                                         "\\[3, 4\\] and \\[4, 3\\]"):
        paddle.sparse.add(x, paddle.to_tensor(X, "float32").t().to_sparse_coo(2))
    with pytest.raises(TypeError, match="same layout, got COO and CSR"):
        paddle.sparse.subtract(x, paddle.to_tensor(Y, "float32").to_sparse_csr())
    with pytest.raises(ValueError, match="same sparse_dim, got 2 and 1"):
        paddle.sparse.multiply(x, paddle.to_tensor(Y, "float32").to_sparse_coo(1))
    with pytest.raises(TypeError, match="same dtype, got float32 and float64"):
        paddle.sparse.divide(x, paddle.to_tensor(Y, "float64").to_sparse_coo(2))
    with pytest.raises(TypeError, match="sparse.add: y must be a sparse tensor"):
        paddle.sparse.add(x, paddle.to_tensor(Y, "float32"))


# ----- unary math -----------------------------------------------------------------------------

UNARY = {"abs": np.abs, "sin": np.sin, "tan": np.tan, "asin": np.arcsin, "atan": np.arctan,
         "sinh": np.sinh, "tanh": np.tanh, "asinh": np.arcsinh, "atanh": np.arctanh,
         "sqrt": np.sqrt, "square": np.square, "log1p": np.log1p, "expm1": np.expm1,
         "neg": np.negative, "deg2rad": np.deg2rad, "rad2deg": np.rad2deg}


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("layout", ["coo", "csr"])
def test_unary_values_and_gradients(name, layout):
    values = rng.uniform(0.1, 0.9, size=5)
    x = coo(values, ONCE)
    x = x if layout == "coo" else x.to_sparse_csr()
    out = getattr(paddle.sparse, name)(x)
    assert out.is_sparse_csr() == (layout == "csr")
    np.testing.assert_allclose(out.values().numpy(), UNARY[name](x.values().numpy()), rtol=1e-6)

    def f(v):
        return getattr(paddle.sparse, name)(coo(v, ONCE)).to_dense()

    check_grad(f, values)


def test_unary_docstring_example_abs():
    dense_x = paddle.to_tensor([-2., 0., 1.])
    out = paddle.sparse.abs(dense_x.to_sparse_coo(1))
    np.testing.assert_array_equal(out.to_dense().numpy(), [2., 0., 1.])


def test_pow_isnan_and_cast():
    values = rng.uniform(0.5, 2, size=5)
    check_grad(lambda v: paddle.sparse.pow(coo(v), 3).to_dense(), values)
    np.testing.assert_allclose(paddle.sparse.pow(coo(values, ONCE), 2.5).values().numpy(),
                               values ** 2.5)
    nan = paddle.sparse.isnan(coo([1., np.nan, 2., 3., np.nan], ONCE))
    np.testing.assert_array_equal(nan.values().numpy(), [False, True, False, False, True])
    cast = paddle.sparse.cast(coo(values), index_dtype="int32", value_dtype="float32")
    assert cast.indices().dtype == np.int32 and cast.dtype == np.float32
    csr = paddle.sparse.cast(coo(values).coalesce().to_sparse_csr(), "int32")
    assert csr.crows().dtype == np.int32 and csr.cols().dtype == np.int32
    assert csr.dtype == np.float64
    with pytest.raises(TypeError, match="sparse.pow: factor must be an int or a float"):
        paddle.sparse.pow(coo(values), "2")
    with pytest.raises(TypeError, match="index_dtype must be an integer dtype"):
        paddle.sparse.cast(coo(values), index_dtype="float32")
    with pytest.raises(TypeError, match="sparse.sin: x must be a sparse tensor"):
        paddle.sparse.sin(paddle.ones([2]))


# ----- matmul, masked_matmul, mv, addmm -------------------------------------------------------

def test_matmul_docstring_examples():
    csr = paddle.sparse.sparse_csr_tensor([0, 1, 2, 3], [1, 2, 0], [1., 2., 3.], [3, 3])
    out = paddle.sparse.matmul(csr, paddle.ones([3, 2]))
    np.testing.assert_array_equal(out.numpy(), [[1, 1], [2, 2], [3, 3]])
    x = paddle.sparse.sparse_coo_tensor([[0, 1, 2], [1, 2, 0]], [1., 2., 3.], [3, 3])
    out = paddle.sparse.matmul(x, paddle.ones([3, 2]))
    np.testing.assert_array_equal(out.numpy(), [[1, 1], [2, 2], [3, 3]])
    assert not out.is_sparse()


@pytest.mark.parametrize("layout", ["coo", "csr"])
def test_sparse_dense_matmul_gradients(layout):
    def f(v, y):
        x = coo(v)
        x = x.coalesce().to_sparse_csr() if layout == "csr" else x
        return paddle.sparse.matmul(x, y)

    check_grad(f, rng.normal(size=5), rng.normal(size=(4, 2)))


def test_batched_matmul_gradients():
    indices = [[0, 0, 1, 1, 1], [0, 2, 1, 1, 0], [1, 0, 2, 0, 0]]

    def f(v, y):
        return paddle.sparse.matmul(paddle.sparse.sparse_coo_tensor(indices, v, [2, 3, 3]), y)

    check_grad(f, rng.normal(size=5), rng.normal(size=(2, 3, 2)))
    dense = np.zeros((2, 3, 3))
    dense[0, 0, 1], dense[0, 2, 0], dense[1, 1, 2], dense[1, 1, 0], dense[1, 0, 0] = 1, 2, 3, 4, 5
    csr = paddle.to_tensor(dense).to_sparse_csr()
    y = rng.normal(size=(2, 3, 2))
    np.testing.assert_allclose(paddle.sparse.matmul(csr, paddle.to_tensor(y)).numpy(), dense @ y)


def test_sparse_dense_matmul_matches_torch_sparse_mm():
    torch = pytest.importorskip("torch")
    v, y = rng.normal(size=5), rng.normal(size=(4, 3))
    x = paddle.sparse.sparse_coo_tensor(IDX, v, SHAPE, stop_gradient=False)
    yt = paddle.to_tensor(y, stop_gradient=False)
    out = paddle.sparse.matmul(x, yt)
    (out * out).sum().backward()
    tx = torch.sparse_coo_tensor(torch.tensor(IDX), torch.tensor(v), SHAPE,
                                 requires_grad=True, check_invariants=True)
    ty = torch.tensor(y, requires_grad=True)
    tout = torch.sparse.mm(tx, ty)
    (tout * tout).sum().backward()
    np.testing.assert_allclose(out.numpy(), tout.detach().numpy())
    np.testing.assert_allclose(yt.grad.numpy(), ty.grad.numpy())
    # torch's gradient for the values is per position; ours per stored value: compare them there
    g = tx.grad.coalesce().to_dense().numpy()
    np.testing.assert_allclose(x.grad.values().numpy(), g[tuple(np.asarray(IDX))])


@pytest.mark.parametrize("layout", ["coo", "csr"])
def test_sparse_sparse_matmul(layout):
    other = [[0, 1, 3, 3, 2], [2, 0, 1, 2, 2]]

    def f(a, b):
        x, y = coo(a), coo(b, other, [4, 3])
        if layout == "csr":
            x, y = x.coalesce().to_sparse_csr(), y.coalesce().to_sparse_csr()
        out = paddle.sparse.matmul(x, y)
        assert out.is_sparse_csr() == (layout == "csr")
        return out.to_dense()

    a, b = rng.normal(size=5), rng.normal(size=5)
    want = coo(a).to_dense().numpy() @ coo(b, other, [4, 3]).to_dense().numpy()
    np.testing.assert_allclose(f(paddle.to_tensor(a), paddle.to_tensor(b)).numpy(), want)
    check_grad(f, a, b)


def test_batched_sparse_sparse_matmul_matches_dense():
    a = rng.normal(size=(2, 3, 4)) * (rng.uniform(size=(2, 3, 4)) < 0.5)
    b = rng.normal(size=(2, 4, 2)) * (rng.uniform(size=(2, 4, 2)) < 0.5)
    out = paddle.sparse.matmul(paddle.to_tensor(a).to_sparse_csr(),
                               paddle.to_tensor(b).to_sparse_csr())
    np.testing.assert_allclose(out.to_dense().numpy(), a @ b, atol=1e-12)


def test_masked_matmul_values_and_gradients():
    crows, cols = [0, 2, 3, 5], [1, 3, 2, 0, 1]
    mask = paddle.sparse.sparse_csr_tensor(crows, cols, [1., 2., 3., 4., 5.], [3, 4],
                                           dtype="float64")
    x, y = rng.normal(size=(3, 5)), rng.normal(size=(5, 4))
    out = paddle.sparse.masked_matmul(paddle.to_tensor(x), paddle.to_tensor(y), mask)
    assert out.is_sparse_csr()
    np.testing.assert_array_equal(out.cols().numpy(), cols)
    np.testing.assert_allclose(out.to_dense().numpy(),
                               (x @ y) * (mask.to_dense().numpy() != 0))
    check_grad(lambda a, b: paddle.sparse.masked_matmul(a, b, mask).to_dense(), x, y)
    coo_mask = mask.to_sparse_coo(2)
    batched = paddle.sparse.sparse_coo_tensor([[0, 1], [1, 2], [0, 3]], [1., 1.], [2, 3, 4],
                                              dtype="float64")
    check_grad(lambda a, b: paddle.sparse.masked_matmul(a, b, batched).to_dense(),
               rng.normal(size=(2, 3, 5)), rng.normal(size=(2, 5, 4)))
    assert paddle.sparse.masked_matmul(paddle.to_tensor(x), paddle.to_tensor(y),
                                       coo_mask).is_sparse_coo()


def test_mv_docstring_example_and_gradient():
    csr = paddle.sparse.sparse_csr_tensor([0, 2, 3, 5], [1, 3, 2, 0, 1], [1., 2., 3., 4., 5.],
                                          [3, 4])
    vec = rng.normal(size=4).astype(np.float32)
    np.testing.assert_allclose(paddle.sparse.mv(csr, paddle.to_tensor(vec)).numpy(),
                               csr.to_dense().numpy() @ vec, rtol=1e-6)
    check_grad(lambda v, w: paddle.sparse.mv(coo(v), w), rng.normal(size=5), rng.normal(size=4))


def test_addmm_dense_and_sparse():
    v, y, inp = rng.normal(size=5), rng.normal(size=(4, 2)), rng.normal(size=(3, 2))
    out = paddle.sparse.addmm(paddle.to_tensor(inp), coo(v), paddle.to_tensor(y), 0.5, 2.0)
    np.testing.assert_allclose(out.numpy(), 0.5 * inp + 2.0 * coo(v).to_dense().numpy() @ y)
    check_grad(lambda i, a, b: paddle.sparse.addmm(i, coo(a), b, beta=0.5, alpha=2.0),
               inp, v, y)
    a = paddle.to_tensor(rng.normal(size=(3, 3)) * np.eye(3)).to_sparse_csr()
    b = paddle.to_tensor(np.triu(rng.normal(size=(3, 3)))).to_sparse_csr()
    s = paddle.sparse.addmm(a, a, b, beta=2.0, alpha=3.0)
    assert s.is_sparse_csr()
    np.testing.assert_allclose(s.to_dense().numpy(), 2 * a.numpy() + 3 * a.numpy() @ b.numpy())


def test_product_errors():
    x = coo([1., 2., 3., 4., 5.])
    with pytest.raises(ValueError, match="sparse.matmul: shapes \\[3, 4\\] and \\[3, 2\\] do not "
                                         "multiply"):
        paddle.sparse.matmul(x, paddle.ones([3, 2]))
    with pytest.raises(ValueError, match="both be 2-D, or both 3-D"):
        paddle.sparse.matmul(x, paddle.ones([4]))
    with pytest.raises(TypeError, match="same dtype, got float32 and float64"):
        paddle.sparse.matmul(x, paddle.ones([4, 2], "float64"))
    with pytest.raises(TypeError, match="y must be a Tensor \\(dense or sparse\\), got list"):
        paddle.sparse.matmul(x, [[1.0]])
    with pytest.raises(TypeError, match="a sparse y must have x's layout"):
        paddle.sparse.matmul(x, paddle.ones([4, 2]).to_sparse_csr())
    with pytest.raises(ValueError, match="x must have every axis sparse \\(sparse_dim 2\\), got "
                                         "sparse_dim 1"):
        paddle.sparse.matmul(paddle.ones([3, 4]).to_sparse_coo(1), paddle.ones([4, 2]))
    with pytest.raises(ValueError, match="mask must have the shape of x @ y, \\[3, 2\\], got "
                                         "\\[3, 4\\]"):
        paddle.sparse.masked_matmul(paddle.ones([3, 4]), paddle.ones([4, 2]), x)
    with pytest.raises(TypeError, match="masked_matmul: x must be a dense Tensor"):
        paddle.sparse.masked_matmul(x, paddle.ones([4, 2]), x)
    with pytest.raises(ValueError, match="sparse.mv: vec must be a dense 1-D Tensor"):
        paddle.sparse.mv(x, paddle.ones([4, 1]))
    with pytest.raises(TypeError, match="addmm: with a dense y, input must be a dense Tensor"):
        paddle.sparse.addmm(x, x, paddle.ones([4, 2]))
    with pytest.raises(ValueError, match="addmm: input must have the shape of x @ y, \\[3, 2\\]"):
        paddle.sparse.addmm(paddle.ones([2, 2]), x, paddle.ones([4, 2]))


# ----- sum, transpose, reshape, slice ---------------------------------------------------------

@pytest.mark.parametrize(("axis", "keepdim"), [(None, False), (None, True), (0, False),
                                               (1, True), (-1, False), ([0, 1], False)])
def test_sum_values_and_gradients(axis, keepdim):
    values = rng.normal(size=5)
    out = paddle.sparse.sum(coo(values), axis=axis, keepdim=keepdim)
    dense = coo(values).to_dense().numpy()
    want = dense.sum(axis=None if axis is None else tuple(np.atleast_1d(axis)), keepdims=keepdim)
    if axis is None and not keepdim:
        want = want.reshape(1)  # Paddle's kernel: shape [1]
    assert out.is_sparse_coo()
    np.testing.assert_allclose(out.to_dense().numpy(), want)
    check_grad(lambda v: paddle.sparse.sum(coo(v), axis=axis, keepdim=keepdim).to_dense(),
               values)


def test_sum_matches_torch_sparse_sum_and_takes_dtype_and_csr():
    torch = pytest.importorskip("torch")
    values = rng.normal(size=5)
    t = torch.sparse.sum(torch.sparse_coo_tensor(torch.tensor(IDX), torch.tensor(values),
                                                 SHAPE, check_invariants=True), dim=1)
    np.testing.assert_allclose(paddle.sparse.sum(coo(values), axis=1).to_dense().numpy(),
                               t.to_dense().numpy())
    assert paddle.sparse.sum(coo(values), dtype="float32").dtype == np.float32
    csr = coo(values).coalesce().to_sparse_csr()
    kept = paddle.sparse.sum(csr, axis=-1, keepdim=True)
    assert kept.is_sparse_csr() and kept.shape == [3, 1]
    np.testing.assert_allclose(kept.to_dense().numpy(), csr.numpy().sum(-1, keepdims=True))
    hybrid = paddle.to_tensor(rng.normal(size=(3, 2, 2))).to_sparse_coo(1)
    np.testing.assert_allclose(paddle.sparse.sum(hybrid, axis=[0, 2]).to_dense().numpy(),
                               hybrid.numpy().sum(axis=(0, 2)))
    with pytest.raises(ValueError, match="sparse.sum: axis 2 is out of range for a 2-D tensor"):
        paddle.sparse.sum(coo(values), axis=2)


def test_transpose():
    values = rng.normal(size=5)
    out = paddle.sparse.transpose(coo(values), [1, 0])
    np.testing.assert_allclose(out.to_dense().numpy(), coo(values).to_dense().numpy().T)
    check_grad(lambda v: paddle.sparse.transpose(coo(v), [1, 0]).to_dense(), values)
    dense = rng.normal(size=(2, 3, 4)) * (rng.uniform(size=(2, 3, 4)) < 0.5)
    csr = paddle.to_tensor(dense).to_sparse_csr()
    out = paddle.sparse.transpose(csr, [0, 2, 1])
    assert out.is_sparse_csr()
    np.testing.assert_allclose(out.to_dense().numpy(), dense.transpose(0, 2, 1))
    hybrid = paddle.to_tensor(dense).to_sparse_coo(1)
    np.testing.assert_allclose(paddle.sparse.transpose(hybrid, [0, 2, 1]).to_dense().numpy(),
                               dense.transpose(0, 2, 1))
    with pytest.raises(ValueError, match="perm must be a permutation of 0..1, got \\[0, 0\\]"):
        paddle.sparse.transpose(coo(values), [0, 0])
    with pytest.raises(ValueError, match="moves a sparse axis"):
        paddle.sparse.transpose(hybrid, [1, 0, 2])


def test_reshape():
    values = rng.normal(size=5)
    dense = coo(values).to_dense().numpy()
    for shape, want in (([12], [12]), ([2, -1], [2, 6]), ([3, 0], [3, 4]),
                        ([2, 3, 2], [2, 3, 2])):
        out = paddle.sparse.reshape(coo(values), shape)
        assert out.shape == want
        np.testing.assert_allclose(out.to_dense().numpy(), dense.reshape(want))
    check_grad(lambda v: paddle.sparse.reshape(coo(v), [2, 6]).to_dense(), values)
    csr = paddle.sparse.reshape(coo(values).coalesce().to_sparse_csr(), [6, 2])
    assert csr.is_sparse_csr()
    np.testing.assert_allclose(csr.to_dense().numpy(), dense.reshape(6, 2))
    hybrid = paddle.to_tensor(rng.normal(size=(4, 3))).to_sparse_coo(1)
    np.testing.assert_allclose(paddle.sparse.reshape(hybrid, [2, 2, 3]).to_dense().numpy(),
                               hybrid.numpy().reshape(2, 2, 3))
    with pytest.raises(ValueError, match="cannot reshape a tensor of shape \\[3, 4\\] \\(12 "
                                         "elements\\) to \\[5, -1\\]"):
        paddle.sparse.reshape(coo(values), [5, -1])
    with pytest.raises(ValueError, match="dense axes \\[3\\] of x must end the new shape"):
        paddle.sparse.reshape(hybrid, [3, 4])
    with pytest.raises(ValueError, match="a CSR tensor reshapes to 2-D or 3-D, got \\[12\\]"):
        paddle.sparse.reshape(coo(values).coalesce().to_sparse_csr(), [12])


def test_slice():
    values = rng.normal(size=5)
    dense = coo(values).to_dense().numpy()
    out = paddle.sparse.slice(coo(values), [0, 1], [1, -3], [3, 10])
    np.testing.assert_allclose(out.to_dense().numpy(), dense[1:3, 1:])
    check_grad(lambda v: paddle.sparse.slice(coo(v), [1], [0], [2]).to_dense(), values)
    csr = paddle.sparse.slice(coo(values).coalesce().to_sparse_csr(), [1], [1], [3])
    assert csr.is_sparse_csr()
    np.testing.assert_allclose(csr.to_dense().numpy(), dense[:, 1:3])
    hybrid = paddle.to_tensor(rng.normal(size=(4, 3))).to_sparse_coo(1)
    np.testing.assert_allclose(paddle.sparse.slice(hybrid, [0, 1], [1, 1], [3, 2]).to_dense()
                               .numpy(), hybrid.numpy()[1:3, 1:2])
    with pytest.raises(ValueError, match="one entry each per sliced axis, got lengths 1, 2 and 1"):
        paddle.sparse.slice(coo(values), [0], [0, 1], [1])
    with pytest.raises(ValueError, match="sparse.slice: axis 5 is out of range for a 2-D tensor"):
        paddle.sparse.slice(coo(values), [5], [0], [1])
