"""paddle.sparse's tensors (core/sparse/tensor.py, core/sparse/methods.py): COO and CSR creation
with Paddle's docstring examples, to_dense / to_sparse_coo / to_sparse_csr / coalesce and the
tensor methods, gradients of the values (float64 central differences and torch.sparse), bad
arguments named in the errors, and the package layout (row-sparse gradients still importable,
the API loaded lazily)."""
import subprocess
import sys

import numpy as np
import pytest

import core
import core as paddle
from core.row_sparse import RowSparseGrad, is_row_sparse
from tests.gradcheck import check_grad

rng = np.random.default_rng(16)

IDX = [[0, 1, 2, 0], [1, 2, 0, 1]]  # position (0, 1) twice: not coalesced
SHAPE = [3, 3]


def dense_of(indices, values, shape):
    out = np.zeros(shape, dtype=np.asarray(values).dtype)
    np.add.at(out, tuple(np.asarray(indices)), values)
    return out


# ----- the package ----------------------------------------------------------------------------

def test_row_sparse_gradients_are_not_sparse_tensors():
    grad = RowSparseGrad(np.array([2, 0, 2]), np.ones((3, 2)), (4, 2))
    assert is_row_sparse(grad) and not hasattr(core.sparse, "RowSparseGrad")
    np.testing.assert_array_equal(grad.to_dense(), [[1, 1], [0, 0], [2, 2], [0, 0]])


def test_import_core_does_not_load_the_sparse_api():
    code = ("import sys, core; print(sorted(m for m in sys.modules if m.startswith("
            "'core.sparse.') and m != 'core.sparse.methods'))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "[]"


def test_unknown_names_are_refused():
    with pytest.raises(AttributeError, match="no attribute 'conv3d'.*sparse_coo_tensor"):
        core.sparse.conv3d  # noqa: B018


def test_api_names_are_exposed():
    for name in core.sparse.__all__:
        assert getattr(core.sparse, name) is not None
    assert callable(core.sparse.matmul) and callable(core.sparse.sum)
    assert core.sparse.nn.functional.relu is not None


# ----- creation (Paddle's docstring examples) -------------------------------------------------

def test_sparse_coo_tensor_docstring_example():
    indices = [[0, 1, 2], [1, 2, 0]]
    values = [1.0, 2.0, 3.0]
    coo = paddle.sparse.sparse_coo_tensor(indices, values, [3, 3])
    assert isinstance(coo, paddle.Tensor) and coo.is_sparse() and coo.is_sparse_coo()
    assert not coo.is_sparse_csr()
    assert coo.shape == [3, 3] and coo.ndim == 2 and coo.dtype == np.float32
    assert coo.nnz() == 3 and coo.sparse_dim() == 2 and coo.dense_dim() == 0
    np.testing.assert_array_equal(coo.indices().numpy(), indices)
    np.testing.assert_array_equal(coo.values().numpy(), values)
    assert coo.indices().dtype == np.int64
    np.testing.assert_array_equal(coo.to_dense().numpy(), [[0, 1, 0], [0, 0, 2], [3, 0, 0]])
    text = repr(coo)
    assert "indices=[[0, 1, 2]," in text and "values=[1., 2., 3.]" in text


def test_sparse_coo_tensor_infers_the_shape_and_takes_dtype_and_tensors():
    coo = paddle.sparse.sparse_coo_tensor(paddle.to_tensor([[0, 0, 1, 2, 2], [1, 3, 2, 0, 1]]),
                                          paddle.to_tensor([1, 2, 3, 4, 5], dtype="float32"),
                                          stop_gradient=False)
    assert coo.shape == [3, 4] and not coo.stop_gradient and coo.is_leaf
    as64 = paddle.sparse.sparse_coo_tensor([[0, 1]], [[1, 2], [3, 4]], dtype="float64")
    assert as64.shape == [2, 2] and as64.dtype == np.float64 and as64.dense_dim() == 1
    np.testing.assert_array_equal(as64.to_dense().numpy(), [[1, 2], [3, 4]])
    empty = paddle.sparse.sparse_coo_tensor([[], []], paddle.zeros([0]), [2, 2])
    assert empty.nnz() == 0
    np.testing.assert_array_equal(empty.to_dense().numpy(), np.zeros((2, 2)))


def test_sparse_csr_tensor_docstring_example():
    crows, cols, values = [0, 2, 3, 5], [1, 3, 2, 0, 1], [1, 2, 3, 4, 5]
    csr = paddle.sparse.sparse_csr_tensor(crows, cols, values, [3, 4])
    assert csr.is_sparse_csr() and not csr.is_sparse_coo() and csr.dtype == np.int64
    np.testing.assert_array_equal(csr.crows().numpy(), crows)
    np.testing.assert_array_equal(csr.cols().numpy(), cols)
    np.testing.assert_array_equal(csr.values().numpy(), values)
    np.testing.assert_array_equal(csr.to_dense().numpy(),
                                  [[0, 1, 0, 2], [0, 0, 3, 0], [4, 5, 0, 0]])
    assert "crows=[0, 2, 3, 5]" in repr(csr) and "cols=[1, 3, 2, 0, 1]" in repr(csr)


def test_batched_csr_round_trips_through_dense_and_coo():
    dense = np.array([[[0, 1, 0], [2, 0, 3]], [[0, 0, 0], [4, 0, 5]]], dtype=np.float64)
    csr = paddle.to_tensor(dense).to_sparse_csr()
    np.testing.assert_array_equal(csr.crows().numpy(), [0, 1, 3, 0, 0, 2])
    np.testing.assert_array_equal(csr.cols().numpy(), [1, 0, 2, 0, 2])
    np.testing.assert_array_equal(csr.to_dense().numpy(), dense)
    coo = csr.to_sparse_coo(3)
    np.testing.assert_array_equal(coo.indices().numpy(),
                                  [[0, 0, 0, 1, 1], [0, 1, 1, 1, 1], [1, 0, 2, 0, 2]])
    again = paddle.sparse.sparse_csr_tensor([0, 1, 3, 0, 0, 2], [1, 0, 2, 0, 2],
                                            [1., 2., 3., 4., 5.], [2, 2, 3])
    np.testing.assert_array_equal(again.to_dense().numpy(), dense)
    np.testing.assert_array_equal(coo.to_sparse_csr().crows().numpy(), [0, 1, 3, 0, 0, 2])


def test_dense_tensor_methods():
    x = paddle.to_tensor([[0., 1.], [2., 0.]])
    assert not x.is_sparse() and not x.is_sparse_coo() and not x.is_sparse_csr()
    assert x.to_dense() is x
    assert x.is_same_shape(x.to_sparse_csr()) and not x.is_same_shape(paddle.ones([2]))
    assert paddle.sparse.is_same_shape(x.to_sparse_coo(2), x.to_sparse_csr())


def test_is_same_shape_docstring_example():
    x = paddle.rand([2, 3, 8])
    y = paddle.rand([2, 3, 8]).to_sparse_csr()
    z = paddle.rand([2, 5])
    assert paddle.sparse.is_same_shape(x, y) is True
    assert paddle.sparse.is_same_shape(x, z) is False
    with pytest.raises(TypeError, match="is_same_shape: y must be a Tensor, got list"):
        paddle.sparse.is_same_shape(x, [1])


def test_to_sparse_coo_keeps_dense_axes_in_the_values():
    dense = np.array([[[1., 0.], [0., 0.]], [[0., 0.], [0., 2.]], [[0., 0.], [0., 0.]]])
    coo = paddle.to_tensor(dense).to_sparse_coo(1)
    np.testing.assert_array_equal(coo.indices().numpy(), [[0, 1]])
    assert coo.values().shape == [2, 2, 2] and coo.dense_dim() == 2
    np.testing.assert_array_equal(coo.to_dense().numpy(), dense)
    full = paddle.to_tensor(dense).to_sparse_coo(3)
    np.testing.assert_array_equal(full.indices().numpy(), [[0, 1], [0, 1], [0, 1]])
    assert full.to_sparse_coo(3) is full
    np.testing.assert_array_equal(full.to_sparse_coo(1).indices().numpy(), [[0, 1]])


def test_coalesce_sums_repeats_and_sorts_like_torch():
    torch = pytest.importorskip("torch")
    indices = [[1, 0, 1, 0], [2, 1, 2, 0]]
    values = np.array([1., 2., 3., 4.])
    coo = paddle.sparse.sparse_coo_tensor(indices, values, [2, 3])
    out = paddle.sparse.coalesce(coo)
    want = torch.sparse_coo_tensor(torch.tensor(indices), torch.tensor(values), (2, 3),
                                   check_invariants=True).coalesce()
    np.testing.assert_array_equal(out.indices().numpy(), want.indices().numpy())
    np.testing.assert_array_equal(out.values().numpy(), want.values().numpy())
    assert out.coalesce() is out and coo.coalesce().nnz() == 3


def test_numpy_item_and_len_describe_the_dense_tensor():
    coo = paddle.sparse.sparse_coo_tensor(IDX, [1., 2., 3., 4.], SHAPE)
    np.testing.assert_array_equal(coo.numpy(), dense_of(IDX, [1., 2., 3., 4.], SHAPE))
    assert len(coo) == 3 and coo.size == 9 and coo.dim() == 2
    assert coo.tolist() == dense_of(IDX, [1., 2., 3., 4.], SHAPE).tolist()
    one = paddle.sparse.sparse_coo_tensor([[0]], [5.], [1])
    assert one.item() == 5.0


def test_detach_clone_astype_and_device_moves_keep_the_pattern():
    coo = paddle.sparse.sparse_coo_tensor(IDX, [1., 2., 3., 4.], SHAPE, stop_gradient=False)
    for out in (coo.detach(), coo.clone(), coo.astype("float64"), coo.cpu(), coo.to("cpu"),
                coo.cast("float64")):
        assert out.is_sparse_coo() and out.shape == SHAPE
        np.testing.assert_array_equal(out.to_dense().numpy(), coo.to_dense().numpy())
    assert coo.detach().stop_gradient and not coo.clone().stop_gradient
    assert coo.astype("float64").dtype == np.float64
    assert coo.to("float32") is coo
    csr = paddle.to_tensor([[0., 1.], [2., 0.]]).to_sparse_csr()
    assert csr.cpu().is_sparse_csr()
    np.testing.assert_array_equal(csr.clone().crows().numpy(), [0, 1, 2])


# ----- gradients ------------------------------------------------------------------------------

def test_to_dense_gradient_with_repeated_indices():
    check_grad(lambda v: paddle.sparse.sparse_coo_tensor(IDX, v, SHAPE).to_dense(),
               rng.normal(size=4))


def test_hybrid_to_dense_and_coalesce_gradients():
    def fn(v):
        return paddle.sparse.sparse_coo_tensor(IDX, v, [3, 3, 2]).coalesce().to_dense()

    check_grad(fn, rng.normal(size=(4, 2)))


def test_csr_to_dense_gradient():
    check_grad(lambda v: paddle.sparse.sparse_csr_tensor([0, 2, 2, 3], [0, 2, 1], v,
                                                         [3, 3]).to_dense(),
               rng.normal(size=3))


def test_dense_to_sparse_gradient_reaches_the_stored_entries():
    # Finite differences cannot check this: a step away from 0 changes the pattern. The
    # gradient goes to the stored entries only (the entries of a stored slice of the values).
    mask = np.array([[1, 0, 1], [0, 0, 0]], dtype=np.float64)
    x = paddle.to_tensor(rng.normal(size=(2, 3)) * mask + mask * 0.1, stop_gradient=False)
    ((x.to_sparse_coo(2).to_sparse_csr().values() * 3.0).sum()
     + (x.to_sparse_coo(1).to_dense() * 2.0).sum()).backward()
    np.testing.assert_array_equal(x.grad.numpy(), 3 * mask + [[2, 2, 2], [0, 0, 0]])


def test_leaf_gradient_is_a_sparse_tensor_like_torch():
    torch = pytest.importorskip("torch")
    indices, values = [[0, 1, 2], [1, 2, 0]], rng.normal(size=3)
    coo = paddle.sparse.sparse_coo_tensor(indices, values, SHAPE, stop_gradient=False)
    (coo.to_dense() * paddle.to_tensor(np.arange(9.).reshape(3, 3))).sum().backward()
    assert coo.grad.is_sparse_coo()
    np.testing.assert_array_equal(coo.grad.indices().numpy(), indices)
    t = torch.sparse_coo_tensor(torch.tensor(indices), torch.tensor(values), (3, 3),
                                requires_grad=True, check_invariants=True)
    (t.to_dense() * torch.arange(9.).reshape(3, 3).double()).sum().backward()
    np.testing.assert_allclose(coo.grad.to_dense().numpy(), t.grad.to_dense().numpy())
    np.testing.assert_allclose(coo.gradient(), t.grad.to_dense().numpy())
    coo.clear_grad()
    assert coo.grad.nnz() == 3 and not coo.grad.values().numpy().any()


def test_repeated_indices_each_get_their_gradient():
    coo = paddle.sparse.sparse_coo_tensor(IDX, [1., 2., 3., 4.], SHAPE, stop_gradient=False)
    (coo.to_dense() * paddle.to_tensor(np.arange(9.).reshape(3, 3))).sum().backward()
    np.testing.assert_array_equal(coo.grad.values().numpy(), [1., 5., 6., 1.])


def test_values_given_as_a_tensor_keep_their_graph():
    v = paddle.to_tensor([1., 2., 3., 4.], stop_gradient=False)
    coo = paddle.sparse.sparse_coo_tensor(IDX, v * 2, SHAPE)
    assert not coo.stop_gradient and not coo.is_leaf
    coo.to_dense().sum().backward()
    np.testing.assert_array_equal(v.grad.numpy(), [2., 2., 2., 2.])


# ----- errors ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("indices", "values", "shape", "match"), [
    ([0, 1, 2], [1., 2., 3.], [3], "indices must be 2-D, \\[sparse_dim, nnz\\], got shape \\[3\\]"),
    ([[0, 1], [1, 0]], [1., 2., 3.], [2, 2], "values must have one row per column of indices"),
    ([[0, 3], [1, 0]], [1., 2.], [3, 3], "indices\\[0\\] holds 3, out of range for axis 0 of size "
                                          "3; allowed: 0..2"),
    ([[0, 1], [-1, 0]], [1., 2.], [3, 3], "indices\\[1\\] holds -1, out of range"),
    ([[0, 1], [1, 0]], [1., 2.], [3, 3, 3], "shape \\[3, 3, 3\\] does not fit indices of "
                                             "sparse_dim 2"),
    ([[], []], [], None, "shape is needed when there are no entries"),
])
def test_bad_coo_arguments(indices, values, shape, match):
    with pytest.raises(ValueError, match=match):
        paddle.sparse.sparse_coo_tensor(indices, values, shape)


def test_bad_coo_index_and_value_types():
    with pytest.raises(TypeError, match="indices must hold integers, got dtype float64"):
        paddle.sparse.sparse_coo_tensor([[0.5, 1.0]], [1., 2.], [2])
    with pytest.raises(ValueError, match="values must have at least one axis"):
        paddle.sparse.sparse_coo_tensor([[0]], paddle.to_tensor(1.0), [2])
    coo = paddle.sparse.sparse_coo_tensor([[0]], [1.], [2])
    with pytest.raises(TypeError, match="values must be dense"):
        paddle.sparse.sparse_coo_tensor([[0]], coo, [2])


@pytest.mark.parametrize(("crows", "cols", "values", "shape", "match"), [
    ([0, 2, 1, 3], [0, 1, 2], [1., 2., 3.], [3, 3], "crows must start at 0 and never decrease"),
    ([1, 2, 3, 3], [0, 1, 2], [1., 2., 3.], [3, 3], "crows must start at 0"),
    ([0, 1, 3], [0, 1, 2], [1., 2., 3.], [3, 3], "crows must hold rows \\+ 1 = 4 offsets per "
                                                  "batch \\(4 for shape \\[3, 3\\]\\), got 3"),
    ([0, 1, 2, 2], [0, 1, 2], [1., 2., 3.], [3, 3], "crows ends at \\[2\\] entries but cols and "
                                                     "values hold 3"),
    ([0, 1, 2, 3], [0, 1, 5], [1., 2., 3.], [3, 3], "cols holds 5, out of range for 3 columns"),
    ([0, 1, 2, 3], [0, 1], [1., 2., 3.], [3, 3], "cols and values of the same length"),
    ([0, 1], [0], [1.], [4], "shape must be given, 2-D \\[rows, cols\\] or 3-D"),
])
def test_bad_csr_arguments(crows, cols, values, shape, match):
    with pytest.raises(ValueError, match=match):
        paddle.sparse.sparse_csr_tensor(crows, cols, values, shape)


def test_bad_conversions():
    x = paddle.ones([2, 3])
    with pytest.raises(ValueError, match="sparse_dim must be an int in 1..2 \\(the tensor has 2 "
                                         "axes\\), got 3"):
        x.to_sparse_coo(3)
    with pytest.raises(ValueError, match="a CSR tensor is 2-D or 3-D, got a tensor of "
                                         "shape \\[4\\]"):
        paddle.ones([4]).to_sparse_csr()
    with pytest.raises(ValueError, match="every axis sparse; this COO tensor has shape \\[2, 3\\] "
                                         "and sparse_dim 1"):
        x.to_sparse_coo(1).to_sparse_csr()
    with pytest.raises(TypeError, match="coalesce: x must be a COO tensor"):
        paddle.sparse.coalesce(x.to_sparse_csr())
    with pytest.raises(TypeError, match="coalesce: x must be a sparse tensor .* got Tensor"):
        paddle.sparse.coalesce(x)
