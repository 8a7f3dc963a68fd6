"""paddle.sparse.nn's point-cloud ops (core/sparse/nn/conv.py, pooling.py, norm.py): conv3d,
subm_conv3d and max_pool3d of COO voxel tensors [N, D, H, W, C] against the dense ops on
to_dense() (core's and torch's), float64 finite-difference gradients of values, weight and
bias, Paddle's docstring examples, the layers Conv3D, SubmConv3D, MaxPool3D, BatchNorm and
SyncBatchNorm, argument errors, rulebook reuse by key, and a small net that trains."""
import numpy as np
import pytest

import core as paddle
from core.sparse.nn import conv as conv_module
from tests.gradcheck import check_grad

F = paddle.sparse.nn.functional
rng = np.random.default_rng(11)


def voxels(shape, density=0.3, seed=0):
    """A dense [N, D, H, W, C] array that is zero off a random set of sites."""
    gen = np.random.default_rng(seed)
    active = gen.random(shape[:4]) < density
    return gen.normal(size=shape) * active[..., None], active


def sparse(dense, stop_gradient=True):
    x = paddle.to_tensor(dense).to_sparse_coo(4)
    x.stop_gradient = stop_gradient
    return x


def dense_conv(dense, weight, stride=1, padding=0, dilation=1):
    """core's dense conv3d (NDHWC) of the same data with the weight in the dense layout."""
    w = paddle.to_tensor(np.ascontiguousarray(weight.transpose(4, 3, 0, 1, 2)))
    return paddle.nn.functional.conv3d(paddle.to_tensor(dense), w, stride=stride,
                                       padding=padding, dilation=dilation,
                                       data_format="NDHWC").numpy()


def linear(indices, shape):
    return np.ravel_multi_index(tuple(indices), shape)


# ----- conv3d ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("kernel", "stride", "padding", "dilation"), [
    ((3, 3, 3), 1, 0, 1),
    ((3, 3, 3), 2, 1, 1),
    ((2, 3, 1), (1, 2, 1), (1, 0, 2), (1, 1, 2)),
    ((3, 2, 3), (2, 1, 3), [1, 0, 2, 1, 0, 1], 2),
    ((3, 3, 3), 1, "SAME", 1),
])
def test_conv3d_equals_dense_conv_on_to_dense(kernel, stride, padding, dilation):
    dense, active = voxels((2, 6, 7, 5, 3))
    weight = rng.normal(size=(*kernel, 3, 4))
    out = F.conv3d(sparse(dense), paddle.to_tensor(weight), stride=stride, padding=padding,
                   dilation=dilation)
    want = dense_conv(dense, weight, stride, padding, dilation)
    assert out.shape == list(want.shape)
    # Equal on the active output sites and zero (implicit) elsewhere.
    np.testing.assert_allclose(out.to_dense().numpy(), want, rtol=1e-12, atol=1e-12)
    # The active sites: every output position the window of some input site reaches.
    ones = np.ones((*kernel, 1, 1))
    reached = dense_conv(active[..., None].astype(float), ones, stride, padding,
                         dilation)[..., 0] > 0
    got = np.zeros(want.shape[:4], dtype=bool)
    got[tuple(out.indices().numpy())] = True
    np.testing.assert_array_equal(got, reached)
    keys = linear(out.indices().numpy(), want.shape[:4])
    assert (np.diff(keys) > 0).all()  # sorted by linear index, each site once (Paddle's order)
    assert out.is_sparse_coo() and out.sparse_dim() == 4 and out.values().shape[1] == 4


def test_conv3d_with_bias_matches_torch():
    torch = pytest.importorskip("torch")
    dense, _ = voxels((2, 5, 6, 4, 2), seed=3)
    weight, bias = rng.normal(size=(3, 3, 3, 2, 5)), rng.normal(size=5)
    out = F.conv3d(sparse(dense), paddle.to_tensor(weight), paddle.to_tensor(bias), stride=2,
                   padding=1)
    t = torch.nn.functional.conv3d(torch.tensor(dense).permute(0, 4, 1, 2, 3),
                                   torch.tensor(weight).permute(4, 3, 0, 1, 2),
                                   torch.tensor(bias), stride=2, padding=1)
    want = t.permute(0, 2, 3, 4, 1).numpy()
    sites = tuple(out.indices().numpy())
    np.testing.assert_allclose(out.values().numpy(), want[sites], rtol=1e-12, atol=1e-12)
    # The bias is added at the active output sites only; elsewhere the output stays 0.
    off = np.ones(want.shape[:4], dtype=bool)
    off[sites] = False
    assert (out.to_dense().numpy()[off] == 0).all()


def test_conv3d_gradients_match_torch():
    torch = pytest.importorskip("torch")
    dense, active = voxels((1, 5, 5, 4, 2), seed=4)
    weight = rng.normal(size=(3, 3, 3, 2, 3))
    x = sparse(dense, stop_gradient=False)
    w = paddle.to_tensor(weight, stop_gradient=False)
    out = F.conv3d(x, w, stride=(1, 2, 1), padding=1)
    seed = rng.normal(size=out.values().shape)
    (out.values() * paddle.to_tensor(seed)).sum().backward()
    tx = torch.tensor(dense).permute(0, 4, 1, 2, 3).requires_grad_()
    tw = torch.tensor(weight).permute(4, 3, 0, 1, 2).detach().requires_grad_()
    tout = torch.nn.functional.conv3d(tx, tw, stride=(1, 2, 1), padding=1).permute(0, 2, 3, 4,
                                                                                    1)
    sites = tuple(torch.tensor(out.indices().numpy()))
    (tout[sites] * torch.tensor(seed)).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.permute(2, 3, 4, 1, 0).numpy(),
                               rtol=1e-10, atol=1e-12)
    tgrad = tx.grad.permute(0, 2, 3, 4, 1).numpy()
    np.testing.assert_allclose(x.grad.values().numpy(), tgrad[active], rtol=1e-10, atol=1e-12)


def _fixed_sites(seed, shape=(2, 3, 4, 3)):
    gen = np.random.default_rng(seed)
    active = gen.random(shape) < 0.4
    return np.array(np.nonzero(active)), int(active.sum())


@pytest.mark.parametrize(("stride", "padding", "dilation"), [(1, 0, 1), (2, 1, 1), (1, 1, 2)])
def test_conv3d_finite_difference_gradients(stride, padding, dilation):
    indices, nnz = _fixed_sites(5)

    def fn(values, weight, bias):
        x = paddle.sparse.sparse_coo_tensor(indices, values, [2, 3, 4, 3, 2])
        return F.conv3d(x, weight, bias, stride=stride, padding=padding,
                        dilation=dilation).to_dense()

    check_grad(fn, rng.normal(size=(nnz, 2)), rng.normal(size=(2, 2, 2, 2, 3)),
               rng.normal(size=3))


def test_conv3d_of_a_batch_of_two_point_clouds_is_each_clouds_conv():
    first, _ = voxels((1, 4, 5, 4, 2), seed=6)
    second, _ = voxels((1, 4, 5, 4, 2), seed=7)
    weight = paddle.to_tensor(rng.normal(size=(3, 3, 3, 2, 3)))
    both = F.conv3d(sparse(np.concatenate([first, second])), weight, padding=1)
    for b, cloud in enumerate((first, second)):
        alone = F.conv3d(sparse(cloud), weight, padding=1)
        np.testing.assert_allclose(both.to_dense().numpy()[b], alone.to_dense().numpy()[0],
                                   rtol=1e-12, atol=1e-12)
    assert (both.indices().numpy()[0] == 0).sum() == F.conv3d(sparse(first), weight,
                                                               padding=1).nnz()


def test_conv3d_sums_repeated_sites_and_keeps_float32():
    indices = [[0, 0, 0], [1, 1, 0], [2, 2, 1], [0, 0, 3]]
    values = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]], dtype=np.float32)
    x = paddle.sparse.sparse_coo_tensor(indices, values, [1, 3, 4, 4, 2])  # (0,1,2,0) twice
    weight = paddle.to_tensor(rng.normal(size=(2, 2, 2, 2, 3)).astype(np.float32))
    out = F.conv3d(x, weight, padding=1)
    assert out.dtype == np.float32 and out.values().dtype == np.float32
    want = dense_conv(x.to_dense().numpy().astype(np.float64),
                      weight.numpy().astype(np.float64), 1, 1, 1)
    np.testing.assert_allclose(out.to_dense().numpy(), want, rtol=1e-5, atol=1e-6)


def test_conv3d_of_no_active_sites_is_empty():
    x = paddle.sparse.sparse_coo_tensor(np.zeros((4, 0), dtype=np.int64), np.zeros((0, 2)),
                                        [1, 4, 4, 4, 2])
    out = F.conv3d(x, paddle.to_tensor(np.ones((3, 3, 3, 2, 5))), stride=2)
    assert out.shape == [1, 1, 1, 1, 5] and out.nnz() == 0
    sub = F.subm_conv3d(x, paddle.to_tensor(np.ones((3, 3, 3, 2, 5))))
    assert sub.shape == [1, 4, 4, 4, 5] and sub.nnz() == 0


# ----- subm_conv3d ----------------------------------------------------------------------------
@pytest.mark.parametrize("dilation", [1, 2, (1, 2, 1)])
def test_subm_conv3d_keeps_the_input_sites(dilation):
    dense, active = voxels((2, 6, 5, 7, 3), seed=8)
    weight, bias = rng.normal(size=(3, 1, 3, 3, 2)), rng.normal(size=2)
    x = sparse(dense)
    # stride and padding are not used (Paddle's kernel resets them): the kernel is centred.
    out = F.subm_conv3d(x, paddle.to_tensor(weight), paddle.to_tensor(bias), stride=2,
                        padding=3, dilation=dilation)
    np.testing.assert_array_equal(out.indices().numpy(), x.indices().numpy())
    assert out.shape == [2, 6, 5, 7, 2]
    d = (dilation,) * 3 if isinstance(dilation, int) else dilation
    want = dense_conv(dense, weight, 1, (d[0], 0, d[2]), d) + bias
    np.testing.assert_allclose(out.values().numpy(), want[active], rtol=1e-12, atol=1e-12)


def test_subm_conv3d_keeps_an_unsorted_input_order():
    indices = np.array([[0, 0, 0], [2, 0, 1], [1, 1, 1], [0, 1, 1]])  # not sorted
    values = rng.normal(size=(3, 2))
    x = paddle.sparse.sparse_coo_tensor(indices, values, [1, 3, 2, 2, 2])
    weight = rng.normal(size=(3, 3, 3, 2, 2))
    out = F.subm_conv3d(x, paddle.to_tensor(weight))
    np.testing.assert_array_equal(out.indices().numpy(), indices)
    want = dense_conv(x.to_dense().numpy(), weight, 1, 1, 1)
    np.testing.assert_allclose(out.values().numpy(), want[tuple(indices)], rtol=1e-12)


def test_subm_conv3d_finite_difference_gradients():
    indices, nnz = _fixed_sites(9)

    def fn(values, weight, bias):
        x = paddle.sparse.sparse_coo_tensor(indices, values, [2, 3, 4, 3, 2])
        return F.subm_conv3d(x, weight, bias).values()

    check_grad(fn, rng.normal(size=(nnz, 2)), rng.normal(size=(3, 3, 1, 2, 2)),
               rng.normal(size=2))


def test_subm_conv3d_key_reuses_the_rulebook_for_the_same_sites():
    dense, _ = voxels((1, 4, 4, 4, 2), seed=10)
    other, _ = voxels((1, 4, 4, 4, 2), seed=12)
    weight = paddle.to_tensor(rng.normal(size=(3, 3, 3, 2, 2)))
    x = sparse(dense)
    first = F.subm_conv3d(x, weight, key="subm_key_test")
    book = conv_module._SUBM_BOOKS["subm_key_test"][2]
    second = F.subm_conv3d(first, weight, key="subm_key_test")  # same indices array
    assert conv_module._SUBM_BOOKS["subm_key_test"][2] is book
    want = F.subm_conv3d(first, weight)
    np.testing.assert_array_equal(second.values().numpy(), want.values().numpy())
    # Other sites under the same key: the rulebook is rebuilt, the result stays right.
    moved = F.subm_conv3d(sparse(other), weight, key="subm_key_test")
    assert conv_module._SUBM_BOOKS["subm_key_test"][2] is not book
    np.testing.assert_allclose(moved.values().numpy(),
                               F.subm_conv3d(sparse(other), weight).values().numpy())


# ----- Paddle's docstring examples ------------------------------------------------------------
EXAMPLE_INDICES = [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 1, 2], [1, 3, 2, 3]]


def _example_input():
    indices = paddle.to_tensor(EXAMPLE_INDICES, dtype="int32")
    values = paddle.to_tensor([[1], [2], [3], [4]], dtype="float32")
    return paddle.sparse.sparse_coo_tensor(indices, values, [1, 1, 3, 4, 1],
                                           stop_gradient=True)


def test_docstring_examples_shapes():
    x = _example_input()
    weight = paddle.randn((1, 3, 3, 1, 1), dtype="float32")
    assert F.conv3d(x, weight).shape == [1, 1, 1, 2, 1]
    assert F.subm_conv3d(x, weight).shape == [1, 1, 3, 4, 1]
    assert paddle.sparse.nn.Conv3D(1, 1, (1, 3, 3))(x).shape == [1, 1, 1, 2, 1]
    assert paddle.sparse.nn.SubmConv3D(1, 1, (1, 3, 3))(x).shape == [1, 1, 3, 4, 1]
    dense_x = paddle.randn((1, 4, 4, 4, 3))
    out = F.max_pool3d(dense_x.to_sparse_coo(4), [3, 3, 3], stride=[1, 1, 1],
                       padding=[0, 0, 0])
    assert out.shape == [1, 2, 2, 2, 3]
    out = paddle.sparse.nn.MaxPool3D(kernel_size=3, data_format="NDHWC")(
        paddle.randn((2, 3, 6, 6, 3)).to_sparse_coo(4))
    assert out.shape == [2, 1, 2, 2, 3]
    x = paddle.randn((1, 6, 6, 6, 3)).astype("float32").to_sparse_coo(4)
    assert paddle.sparse.nn.BatchNorm(3)(x).shape == [1, 6, 6, 6, 3]


# ----- layers ---------------------------------------------------------------------------------
def test_conv3d_layers_parameters_and_repr():
    conv = paddle.sparse.nn.Conv3D(4, 8, (3, 1, 3), stride=2, padding=1)
    assert conv.weight.shape == [3, 1, 3, 4, 8] and conv.bias.shape == [8]
    assert (conv.bias.numpy() == 0).all()
    assert sorted(conv.state_dict()) == ["bias", "weight"]
    assert "kernel_size=[3, 1, 3]" in repr(conv) and "stride=[2, 2, 2]" in repr(conv)
    wide = paddle.sparse.nn.Conv3D(50, 40, 3)  # Paddle's init: N(0, 2 / (27 * in_channels))
    np.testing.assert_allclose(wide.weight.numpy().std(), (2 / (27 * 50)) ** 0.5, rtol=0.05)
    subm = paddle.sparse.nn.SubmConv3D(2, 3, 3, bias_attr=False, key="layer_key")
    assert subm.bias is None and list(subm.state_dict()) == ["weight"]
    dense, active = voxels((1, 4, 4, 4, 2), seed=13)
    out = subm(sparse(dense).astype("float32"))
    assert out.nnz() == int(active.sum())


def test_max_pool3d_is_the_maximum_of_the_active_sites():
    dense, active = voxels((2, 5, 6, 4, 3), density=0.4, seed=14)
    out = F.max_pool3d(sparse(dense), 2, stride=(2, 1, 2), padding=(0, 1, 1))
    # Reference: dense max pooling with the inactive sites (and the padding) at -inf.
    holes = np.where(active[..., None], dense, -np.inf)
    want = paddle.nn.functional.max_pool3d(paddle.to_tensor(holes), 2, stride=(2, 1, 2),
                                           padding=(0, 1, 1), data_format="NDHWC").numpy()
    assert out.shape == list(want.shape)
    sites = tuple(out.indices().numpy())
    np.testing.assert_array_equal(out.values().numpy(), want[sites])
    reached = np.isfinite(want[..., 0])
    assert out.nnz() == int(reached.sum()) and reached[sites].all()
    assert (np.diff(linear(out.indices().numpy(), want.shape[:4])) > 0).all()


def test_max_pool3d_of_positive_values_equals_dense_max_pool_on_to_dense():
    dense, _ = voxels((1, 6, 6, 6, 2), seed=15)
    dense = np.abs(dense)  # the implicit zeros never win
    out = paddle.sparse.nn.MaxPool3D(3, stride=2, padding=1)(sparse(dense))
    want = paddle.nn.functional.max_pool3d(sparse(dense).to_dense(), 3, 2, 1,
                                           data_format="NDHWC")
    np.testing.assert_array_equal(out.to_dense().numpy(), want.numpy())
    torch = pytest.importorskip("torch")
    t = torch.nn.functional.max_pool3d(torch.tensor(dense).permute(0, 4, 1, 2, 3), 3, 2, 1)
    np.testing.assert_array_equal(out.to_dense().numpy(), t.permute(0, 2, 3, 4, 1).numpy())


def test_max_pool3d_gradient_goes_to_the_arg_max():
    indices, nnz = _fixed_sites(16)
    check_grad(lambda v: F.max_pool3d(paddle.sparse.sparse_coo_tensor(
        indices, v, [2, 3, 4, 3, 2]), 2, stride=1, padding=1).values(),
        rng.normal(size=(nnz, 2)))
    x = paddle.sparse.sparse_coo_tensor([[0, 0], [0, 0], [0, 0], [0, 1]],
                                        [[1.0, 5.0], [3.0, 2.0]], [1, 2, 2, 2, 2],
                                        stop_gradient=False)
    F.max_pool3d(x, 2).values().sum().backward()
    np.testing.assert_array_equal(x.grad.values().numpy(), [[0.0, 1.0], [1.0, 0.0]])


def test_batch_norm_normalises_the_active_values():
    dense, active = voxels((2, 4, 4, 4, 3), seed=17)
    x = sparse(dense, stop_gradient=False)
    norm = paddle.sparse.nn.BatchNorm(3)
    assert norm.momentum == 0.9 and norm.epsilon == 1e-5
    norm.to(dtype="float64")
    out = norm(x)
    values = dense[active]
    mean, var = values.mean(0), values.var(0)
    np.testing.assert_array_equal(out.indices().numpy(), x.indices().numpy())
    np.testing.assert_allclose(out.values().numpy(), (values - mean) / np.sqrt(var + 1e-5),
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(norm._mean.numpy(), 0.1 * mean, rtol=1e-12)
    np.testing.assert_allclose(norm._variance.numpy(), 0.9 + 0.1 * var, rtol=1e-12)
    norm.eval()
    running = norm(x).values().numpy()
    np.testing.assert_allclose(running, (values - 0.1 * mean) / np.sqrt(0.9 + 0.1 * var + 1e-5),
                               rtol=1e-10)
    indices = x.indices().numpy()
    norm.train()
    check_grad(lambda v: norm(paddle.sparse.sparse_coo_tensor(indices, v, x.shape)).values(),
               values, rtol=1e-5, atol=1e-6)


def test_batch_norm_of_no_active_site_keeps_the_running_statistics():
    """An empty cloud (or one a strided layer emptied) gives an empty output; its mean of no
    value would otherwise make the running statistics NaN for good (torch leaves them too)."""
    dense, _ = voxels((1, 4, 4, 4, 3), seed=21)
    norm = paddle.sparse.nn.BatchNorm(3)
    norm.to(dtype="float64")
    norm(sparse(dense))
    mean, variance = norm._mean.numpy().copy(), norm._variance.numpy().copy()
    for layer in (norm, paddle.sparse.nn.SyncBatchNorm(3)):
        empty = paddle.sparse.sparse_coo_tensor(np.zeros((4, 0), dtype=np.int64),
                                                np.zeros((0, 3)), [2, 4, 4, 4, 3])
        out = layer(empty)
        assert out.shape == [2, 4, 4, 4, 3] and out.values().shape == [0, 3]
        assert np.isfinite(layer._mean.numpy()).all()
        assert np.isfinite(layer._variance.numpy()).all()
    np.testing.assert_array_equal(norm._mean.numpy(), mean)
    np.testing.assert_array_equal(norm._variance.numpy(), variance)
    np.testing.assert_allclose(norm(sparse(dense)).values().numpy().mean(0), 0, atol=1e-12)


def test_sync_batch_norm_is_batch_norm_in_one_process():
    dense, _ = voxels((1, 4, 4, 4, 2), seed=18)
    x = sparse(dense).astype("float32")
    norm, sync = paddle.sparse.nn.BatchNorm(2), paddle.sparse.nn.SyncBatchNorm(2)
    np.testing.assert_allclose(sync(x).values().numpy(), norm(x).values().numpy(), rtol=1e-6)
    np.testing.assert_allclose(sync._mean.numpy(), norm._mean.numpy(), rtol=1e-6)
    model = paddle.nn.Sequential(paddle.sparse.nn.Conv3D(2, 2, 3),
                                 paddle.sparse.nn.BatchNorm(2), paddle.nn.BatchNorm1D(2))
    converted = paddle.sparse.nn.SyncBatchNorm.convert_sync_batchnorm(model)
    assert type(converted[1]) is paddle.sparse.nn.SyncBatchNorm
    assert converted[1].weight is model[1].weight and converted[1]._mean is model[1]._mean
    assert type(converted[2]) is paddle.nn.SyncBatchNorm
    assert type(converted[0]) is paddle.sparse.nn.Conv3D


# ----- errors ---------------------------------------------------------------------------------
def test_argument_errors_name_the_value_and_what_is_allowed():
    dense, _ = voxels((1, 4, 4, 4, 2), seed=19)
    x, weight = sparse(dense), paddle.to_tensor(np.ones((3, 3, 3, 2, 2)))
    with pytest.raises(TypeError, match="conv3d: x must be a sparse COO tensor of shape "
                                        "\\[N, D, H, W, C\\] \\(sparse_dim 4\\), got Tensor"):
        F.conv3d(paddle.to_tensor(dense), weight)
    with pytest.raises(ValueError, match="sparse_dim 4, values \\[nnz, C\\]\\), got shape "
                                         "\\[1, 4, 4, 4, 2\\] with sparse_dim 5"):
        F.conv3d(paddle.to_tensor(dense).to_sparse_coo(5), weight)
    with pytest.raises(ValueError, match="data_format must be 'NDHWC' .* got 'NCDHW'"):
        F.conv3d(x, weight, data_format="NCDHW")
    with pytest.raises(ValueError, match="weight \\[3, 3, 3, 4, 2\\] expects 4 input channels "
                                         ".* x \\[1, 4, 4, 4, 2\\] has 2"):
        F.subm_conv3d(x, paddle.to_tensor(np.ones((3, 3, 3, 4, 2))))
    with pytest.raises(ValueError, match="groups=2 is not supported: Paddle's sparse "
                                         "convolution supports groups=1 only"):
        F.conv3d(x, weight, groups=2)
    with pytest.raises(ValueError, match="SubmConv3D: groups=2 is not supported"):
        paddle.sparse.nn.SubmConv3D(2, 2, 3, groups=2)
    with pytest.raises(ValueError, match="padding_mode must be 'zeros' .* got 'reflect'"):
        paddle.sparse.nn.Conv3D(2, 2, 3, padding_mode="reflect")
    with pytest.raises(ValueError, match="bias must be a dense Tensor of shape \\[2\\]"):
        F.conv3d(x, weight, paddle.to_tensor(np.ones(3)))
    with pytest.raises(ValueError, match="weight must be a dense 5-D Tensor"):
        F.conv3d(x, paddle.to_tensor(np.ones((3, 3, 2, 2))))
    with pytest.raises(ValueError, match="the kernel .* does not fit the padded input depth"):
        F.conv3d(x, paddle.to_tensor(np.ones((5, 3, 3, 2, 2))))
    with pytest.raises(ValueError, match="ceil_mode=True is not supported"):
        F.max_pool3d(x, 2, ceil_mode=True)
    with pytest.raises(ValueError, match="return_mask=True is not supported"):
        paddle.sparse.nn.MaxPool3D(2, return_mask=True)
    with pytest.raises(TypeError, match="max_pool3d: x must be a COO tensor .* got a CSR"):
        F.max_pool3d(paddle.to_tensor(np.ones((2, 3, 3))).to_sparse_csr(), 2)
    with pytest.raises(ValueError, match="BatchNorm: x must store values \\[nnz, C\\] with C "
                                         "= num_features = 3"):
        paddle.sparse.nn.BatchNorm(3)(x)
    with pytest.raises(TypeError, match="BatchNorm: x must be a sparse COO tensor"):
        paddle.sparse.nn.BatchNorm(2)(paddle.to_tensor(dense))


# ----- a small net, trained -------------------------------------------------------------------
def test_sparse_conv_net_trains():
    paddle.seed(3)
    dense, _ = voxels((2, 6, 6, 6, 2), density=0.25, seed=20)
    x = sparse(dense).astype("float32")
    net = paddle.nn.Sequential(paddle.sparse.nn.SubmConv3D(2, 4, 3, key="net"),
                               paddle.sparse.nn.ReLU(),
                               paddle.sparse.nn.Conv3D(4, 4, 3, stride=2, padding=1),
                               paddle.sparse.nn.BatchNorm(4),
                               paddle.sparse.nn.MaxPool3D(2))
    target = None
    opt = paddle.optimizer.Adam(learning_rate=0.05, parameters=net.parameters())
    losses = []
    for _ in range(6):
        out = net(x).values()
        if target is None:
            target = paddle.to_tensor(rng.normal(size=out.shape).astype(np.float32))
        loss = ((out - target) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    assert losses[-1] < 0.8 * losses[0]


def test_subm_conv3d_with_an_even_kernel_keeps_the_grid():
    dense, active = voxels((1, 4, 5, 6, 2), density=0.5, seed=21)
    weight = rng.normal(size=(2, 4, 3, 2, 3))
    out = F.subm_conv3d(sparse(dense), paddle.to_tensor(weight), dilation=(1, 1, 2))
    assert out.shape == [1, 4, 5, 6, 3]
    # The kernel starts dilation * (k // 2) before each site: padding (1, 0, 2, 1, 2, 2).
    want = dense_conv(dense, weight, 1, [1, 0, 2, 1, 2, 2], (1, 1, 2))
    np.testing.assert_allclose(out.values().numpy(), want[active], rtol=1e-12, atol=1e-12)
