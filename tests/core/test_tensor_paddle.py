"""Tensor behaviour and names Paddle code relies on: integer division dtypes, clear_grad,
in-place methods, device moves, grad-mode switches, framework facts, and the extra top-level
functions (scale, empty, bernoulli, multinomial, addmm, tensordot, logical_xor, shape, rank,
unstack, searchsorted, bucketize, kthvalue, index_sample)."""
import numpy as np
import pytest

import core
from tests.gradcheck import check_grad

rng = np.random.default_rng(11)


def leaf(values, dtype="float64"):
    return core.to_tensor(np.asarray(values, dtype=dtype), stop_gradient=False)


# ----- integer true division and promotion ------------------------------------------------------

def test_integer_true_division_gives_float32():
    i = core.to_tensor([1, 2, 3])
    for out in (i / 2, i / i, core.divide(i, i), 2 / i, i / 2.5, i ** 0.5, 2.5 ** i):
        assert out.dtype == core.float32
    np.testing.assert_allclose((i / 2).numpy(), [0.5, 1.0, 1.5])
    np.testing.assert_allclose((2.0 ** i).numpy(), [2.0, 4.0, 8.0])  # not cast to int first
    assert (i ** 2).dtype == core.int64  # int ** int stays integral, as Paddle
    assert (i // 2).dtype == core.int64


def test_float64_inputs_stay_float64():
    d = core.to_tensor(np.array([1.0, 2.0]))
    assert (d / 2).dtype == core.float64 and (d ** 0.5).dtype == core.float64
    assert (core.to_tensor([1, 2]) / d).dtype == core.float64


def test_integer_tensor_meeting_float_tensor_takes_its_dtype():
    i, f = core.to_tensor([1, 2]), core.to_tensor([0.5, 1.5])
    for out in (i + f, f * i, i - f, f / i):
        assert out.dtype == core.float32
    x = leaf([0.5, 1.5], "float32")
    (x * core.to_tensor([2, 3])).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 3.0])


def test_rpow_gradient_with_float_base():
    check_grad(lambda x: 2.5 ** x, rng.uniform(-1, 1, (3,)))


# ----- clear_grad ------------------------------------------------------------------------------

def test_clear_grad_zeroes_by_default_and_drops_on_request():
    x = leaf([1.0, 2.0])
    (x * x).sum().backward()
    x.clear_gradient()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0])
    (x * 3.0).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])
    x.clear_grad(set_to_zero=False)
    assert x.grad is None
    x.clear_grad()  # no gradient yet: stays None
    assert x.grad is None


def test_clear_grad_of_a_row_sparse_gradient_gives_dense_zeros():
    emb = core.nn.Embedding(5, 3, sparse=True)
    emb(core.to_tensor([[1, 2]])).sum().backward()
    emb.weight.clear_grad()
    np.testing.assert_array_equal(emb.weight.grad.numpy(), np.zeros((5, 3)))


# ----- in-place methods ------------------------------------------------------------------------

@pytest.mark.parametrize(("method", "expected"), [
    ("add_", lambda a, b: a + b), ("subtract_", lambda a, b: a - b),
    ("multiply_", lambda a, b: a * b), ("divide_", lambda a, b: a / b),
])
def test_binary_inplace_methods_write_into_the_tensor(method, expected):
    a, b = rng.uniform(1, 2, (2, 3)), rng.uniform(1, 2, (3,))
    x = core.to_tensor(a)
    data = x.data
    out = getattr(x, method)(core.to_tensor(b))
    assert out is x and x.data is data
    np.testing.assert_allclose(x.numpy(), expected(a, b))


@pytest.mark.parametrize(("method", "expected"), [
    ("exp_", np.exp), ("sqrt_", np.sqrt), ("tanh_", np.tanh)])
def test_unary_inplace_methods(method, expected):
    a = rng.uniform(0.5, 2, (4,))
    x = core.to_tensor(a)
    assert getattr(x, method)() is x
    np.testing.assert_allclose(x.numpy(), expected(a))


def test_scale_clip_zero_fill_inplace():
    x = core.to_tensor([1.0, -2.0, 3.0])
    np.testing.assert_allclose(x.scale_(2.0, 1.0).numpy(), [3.0, -3.0, 7.0])
    np.testing.assert_allclose(x.scale_(2.0, 1.0, bias_after_scale=False).numpy(),
                               [8.0, -4.0, 16.0])
    np.testing.assert_allclose(x.clip_(-1.0, 9.0).numpy(), [8.0, -1.0, 9.0])
    np.testing.assert_array_equal(x.fill_(4).numpy(), [4.0, 4.0, 4.0])
    np.testing.assert_array_equal(x.zero_().numpy(), [0.0, 0.0, 0.0])
    assert x.dtype == core.float32


def test_random_inplace_fills_follow_the_seed_and_their_law():
    x = core.zeros([20000])
    core.seed(3)
    x.uniform_(min=-2.0, max=4.0)
    first = x.numpy()
    assert first.min() >= -2.0 and first.max() < 4.0 and abs(first.mean() - 1.0) < 0.05
    core.seed(3)
    np.testing.assert_array_equal(x.uniform_(min=-2.0, max=4.0).numpy(), first)
    x.normal_(mean=1.0, std=2.0)
    assert abs(x.numpy().mean() - 1.0) < 0.06 and abs(x.numpy().std() - 2.0) < 0.06
    assert x.dtype == core.float32


def test_inplace_on_a_leaf_needing_grad_raises_as_paddle():
    x = leaf([1.0, 2.0])
    with pytest.raises(ValueError, match="leaf tensor that needs a gradient"):
        x.add_(core.to_tensor([1.0, 1.0], dtype="float64"))
    with pytest.raises(ValueError, match="core.zeros_like"):
        x.zero_()
    with core.no_grad():  # a deliberate, undifferentiated change is allowed
        x.add_(core.to_tensor([1.0, 1.0], dtype="float64"))
    np.testing.assert_allclose(x.numpy(), [2.0, 3.0])


def test_inplace_on_a_tensor_in_the_graph_and_with_a_grad_operand_raises():
    y = leaf([1.0, 2.0]) * 2.0
    with pytest.raises(ValueError, match="computed in the graph"):
        y.exp_()
    x = core.to_tensor([1.0, 2.0], dtype="float64")
    with pytest.raises(ValueError, match="operand needs a gradient"):
        x.multiply_(leaf([1.0, 1.0]))


def test_inplace_refuses_a_change_of_shape_or_dtype():
    with pytest.raises(ValueError, match="keep the tensor's shape"):
        core.to_tensor([1.0, 2.0]).add_(core.ones([3, 2]))
    with pytest.raises(TypeError, match="keep the tensor's dtype int64"):
        core.to_tensor([1, 2]).divide_(core.to_tensor([2, 2]))
    with pytest.raises(TypeError, match="needs a float tensor"):
        core.to_tensor([1, 2]).sqrt_()
    with pytest.raises(TypeError, match="value must be a number"):
        core.ones([2]).fill_([1, 2])
    with pytest.raises(TypeError, match="random values need a float tensor"):
        core.to_tensor([1, 2]).uniform_()


def test_inplace_on_a_broadcast_view_copies_first():
    x = core.expand(core.to_tensor([1.0, 2.0]), [3, 2])
    x.add_(core.to_tensor([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]))
    np.testing.assert_allclose(x.numpy(), [[2, 3], [3, 4], [4, 5]])


# ----- devices and shape facts -----------------------------------------------------------------

def test_cpu_copies_and_passes_the_gradient_back():
    x = leaf([1.0, 2.0])
    y = x.cpu()
    assert y.data is not x.data and y.place == "cpu"
    (y * 3.0).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])


def test_to_takes_devices_dtypes_and_tensors():
    x = core.to_tensor([1.0, 2.0])
    here = core.device.get_device()  # where x lives (gpu:N under TOMLRUN_TEST_DEVICE)
    assert x.to(here) is x and x.to(device=here, dtype="float32") is x
    assert x.to("cpu").place == "cpu"
    assert x.to("float64").dtype == core.float64
    assert x.to("cpu", "int32").dtype == core.int32
    assert x.to(core.to_tensor([1], dtype="int64")).dtype == core.int64
    assert x.to(dtype=core.float16, blocking=True).dtype == core.float16
    with pytest.raises(TypeError, match="neither a device"):
        x.to("floaty")
    with pytest.raises(TypeError, match="unexpected keyword"):
        x.to(place="cpu")


def test_cuda_without_a_gpu_names_the_problem():
    if core.is_compiled_with_cuda():
        pytest.skip("a GPU is visible: covered by the GPU tests")
    with pytest.raises(core.backend.DeviceError, match="GPU 0 is not available"):
        core.ones([2]).cuda()
    with pytest.raises(TypeError, match="device_id must be an int"):
        core.ones([2]).cuda("gpu")


def test_dim_ndimension_element_size():
    x = core.ones([2, 3, 4], dtype="float64")
    assert x.dim() == x.ndimension() == 3
    assert x.element_size() == 8 and core.ones([1], dtype="int32").element_size() == 4


# ----- grad mode and framework facts ------------------------------------------------------------

def test_set_grad_enabled_as_call_context_and_decorator():
    with core.set_grad_enabled(False):
        assert not core.is_grad_enabled()
    assert core.is_grad_enabled()
    core.set_grad_enabled(False)
    try:
        assert not core.is_grad_enabled()
    finally:
        core.set_grad_enabled(True)

    @core.set_grad_enabled(False)
    def inside():
        return core.is_grad_enabled()

    assert core.is_grad_enabled() and not inside() and core.is_grad_enabled()
    with pytest.raises(TypeError, match="mode must be True or False"):
        core.set_grad_enabled("no")


def test_enable_grad_inside_no_grad():
    x = leaf([1.0])
    with core.no_grad():
        with core.enable_grad():
            assert not (x * 2.0).stop_gradient
        assert (x * 2.0).stop_gradient

    @core.enable_grad()
    def f():
        return core.is_grad_enabled()

    with core.no_grad():
        assert f() and not core.is_grad_enabled()


def test_framework_facts():
    assert core.in_dynamic_mode() is True
    assert core.disable_static() is None
    with pytest.raises(RuntimeError, match="static graphs .* are not supported"):
        core.enable_static()
    assert core.get_default_dtype() == "float32"
    assert core.is_compiled_with_cuda() == (core.backend.gpu_count() > 0)


# ----- scale, empty, random sampling ----------------------------------------------------------

def test_scale_values_dtype_and_gradient():
    x = core.to_tensor([1.0, 2.0])
    np.testing.assert_allclose(core.scale(x, 2.0, 1.0).numpy(), [3.0, 5.0])
    np.testing.assert_allclose(core.scale(x, 2.0, 1.0, bias_after_scale=False).numpy(), [4, 6])
    np.testing.assert_allclose(x.scale(scale=core.to_tensor([3.0])).numpy(), [3.0, 6.0])
    assert core.scale(core.to_tensor([1, 2]), 2.5).dtype == core.int64
    check_grad(lambda t: core.scale(t, -1.5, 0.5), rng.standard_normal((2, 3)))
    check_grad(lambda t: core.scale(t, 3.0, 2.0, bias_after_scale=False), rng.standard_normal(4))
    with pytest.raises(ValueError, match="act='relu' is not supported"):
        core.scale(x, act="relu")
    with pytest.raises(TypeError, match="scale must be a number"):
        core.scale(x, "2")
    with pytest.raises(TypeError, match="'x' must be a Tensor"):
        core.scale([1.0], 2.0)


def test_empty_and_empty_like():
    e = core.empty([2, 3])
    assert e.shape == [2, 3] and e.dtype == core.float32
    assert core.empty(4, dtype="int32").dtype == core.int32
    like = core.empty_like(core.ones([3], dtype="float64"))
    assert like.shape == [3] and like.dtype == core.float64
    assert core.empty_like(core.ones([3]), dtype="int64").dtype == core.int64
    with pytest.raises(ValueError, match="non-negative ints"):
        core.empty([-1])
    with pytest.raises(TypeError, match="'x' must be a Tensor"):
        core.empty_like([1.0])


def test_bernoulli_frequencies_and_seed():
    p = core.to_tensor(np.tile([0.0, 0.25, 0.9, 1.0], (20000, 1)).astype("float32"))
    core.seed(5)
    draws = core.bernoulli(p)
    assert draws.dtype == core.float32  # x's dtype
    assert core.bernoulli(p.astype("float64")).dtype == core.float64
    np.testing.assert_allclose(draws.numpy().mean(axis=0), [0.0, 0.25, 0.9, 1.0], atol=0.015)
    core.seed(5)
    np.testing.assert_array_equal(core.bernoulli(p).numpy(), draws.numpy())
    assert abs(core.bernoulli(core.zeros([20000]), p=0.3).numpy().mean() - 0.3) < 0.015
    with pytest.raises(ValueError, match=r"must be in \[0, 1\]"):
        core.bernoulli(core.to_tensor([1.5]))
    with pytest.raises(TypeError, match="float tensor of probabilities"):
        core.bernoulli(core.to_tensor([1]))


def test_multinomial_frequencies_and_rules():
    weights = core.to_tensor([1.0, 3.0, 0.0, 6.0])
    core.seed(2)
    draws = core.multinomial(weights, 20000, replacement=True)
    assert draws.dtype == core.int64 and draws.shape == [20000]
    counts = np.bincount(draws.numpy(), minlength=4) / 20000
    np.testing.assert_allclose(counts, [0.1, 0.3, 0.0, 0.6], atol=0.015)
    rows = core.multinomial(core.to_tensor([[1.0, 1.0, 1.0], [0.0, 5.0, 1.0]]), 2)
    assert rows.shape == [2, 2]
    for row in rows.numpy():
        assert len(set(row)) == 2  # without replacement: distinct
    assert 0 not in rows.numpy()[1]  # zero weight: never drawn
    with pytest.raises(ValueError, match="needs at least that many categories"):
        core.multinomial(weights, 4)
    with pytest.raises(ValueError, match="finite and >= 0"):
        core.multinomial(core.to_tensor([1.0, -1.0]))
    with pytest.raises(ValueError, match="num_samples must be an int >= 1"):
        core.multinomial(weights, 0)
    with pytest.raises(ValueError, match="1-D or 2-D float tensor"):
        core.multinomial(core.ones([2, 2, 2]))


# ----- products --------------------------------------------------------------------------------

def test_addmm_matches_torch_and_gradients():
    torch = pytest.importorskip("torch")
    i, a, b = rng.standard_normal((3,)), rng.standard_normal((2, 4)), rng.standard_normal((4, 3))
    got = core.addmm(core.to_tensor(i), core.to_tensor(a), core.to_tensor(b), beta=0.5,
                     alpha=2.0)
    want = torch.addmm(torch.tensor(i), torch.tensor(a), torch.tensor(b), beta=0.5, alpha=2.0)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
    check_grad(lambda t, x, y: core.addmm(t, x, y, beta=0.5, alpha=2.0), i, a, b)
    with pytest.raises(ValueError, match="x's columns equal to y's rows"):
        core.addmm(core.ones([2, 3]), core.ones([2, 4]), core.ones([3, 3]))
    with pytest.raises(ValueError, match="does not broadcast"):
        core.addmm(core.ones([5]), core.ones([2, 4]), core.ones([4, 3]))


def test_addmm_with_beta_0_ignores_nan_and_inf_in_input_as_blas():
    """Paddle's addmm kernel is one GEMM with beta (C = alpha A B + beta C over the broadcast
    input), and BLAS does not read C when beta is 0: NaN or Inf in input stays out (torch's
    addmm documents the same). numpy's 0 * NaN gave NaN."""
    bad = np.array([[np.nan, np.inf, -np.inf]])
    a, b = rng.standard_normal((2, 4)), rng.standard_normal((4, 3))
    inp = core.to_tensor(bad, stop_gradient=False)
    x = core.to_tensor(a, stop_gradient=False)
    out = core.addmm(inp, x, core.to_tensor(b), beta=0.0, alpha=1.5)
    np.testing.assert_allclose(out.numpy(), 1.5 * a @ b, rtol=1e-12)
    out.sum().backward()
    np.testing.assert_array_equal(inp.grad.numpy(), np.zeros((1, 3)))  # beta * dout
    np.testing.assert_allclose(x.grad.numpy(), 1.5 * np.ones((2, 3)) @ b.T, rtol=1e-12)
    method = core.to_tensor(bad).addmm(core.to_tensor(a), core.to_tensor(b), beta=0)
    np.testing.assert_allclose(method.numpy(), a @ b, rtol=1e-12)
    target = core.to_tensor(np.full((2, 3), np.nan))
    assert target.addmm_(core.to_tensor(a), core.to_tensor(b), beta=0.0) is target
    np.testing.assert_allclose(target.numpy(), a @ b, rtol=1e-12)
    check_grad(lambda t, x, y: core.addmm(t, x, y, beta=0.0, alpha=2.0),
               rng.standard_normal((3,)), a, b)
    # beta other than 0 still reads input: NaN there is NaN in the output
    assert np.isnan(core.addmm(core.to_tensor(bad), core.to_tensor(a), core.to_tensor(b),
                               beta=1e-30).numpy()[0, 0])
    torch = pytest.importorskip("torch")
    want = torch.addmm(torch.tensor(bad), torch.tensor(a), torch.tensor(b), beta=0.0, alpha=1.5)
    np.testing.assert_allclose(out.numpy(), want.numpy(), rtol=1e-12)


@pytest.mark.parametrize("axes", [2, 0, 1, [1, 2], [[1, 2], [0, 1]], [[2, 1], [1, 0]],
                                  [[1], [0]], [[0, 1, 2], [2]]])
def test_tensordot_matches_torch_and_gradients(axes):
    torch = pytest.importorskip("torch")
    if axes == [[0, 1, 2], [2]]:  # Paddle completes [2] to [2, 1, 2]: a repeated axis
        with pytest.raises(ValueError, match="name an axis twice"):
            core.tensordot(core.ones([3, 3, 3]), core.ones([3, 3, 3]), axes)
        return
    a, b = rng.standard_normal((3, 4, 4)), rng.standard_normal((4, 4, 4))
    got = core.tensordot(core.to_tensor(a), core.to_tensor(b), axes)
    if isinstance(axes, list) and all(isinstance(v, int) for v in axes):
        torch_axes = (axes, axes)
    elif isinstance(axes, list):
        torch_axes = tuple(axes)
    else:
        torch_axes = axes
    want = torch.tensordot(torch.tensor(a), torch.tensor(b), dims=torch_axes)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-12)
    check_grad(lambda x, y: core.tensordot(x, y, axes), a, b)


def test_tensordot_completes_the_shorter_axes_list_and_checks_sizes():
    a, b = rng.standard_normal((2, 3, 4)), rng.standard_normal((3, 2, 4))
    got = core.tensordot(core.to_tensor(a), core.to_tensor(b), [[0, 1, 2], [1, 0]])
    np.testing.assert_allclose(got.numpy(), np.tensordot(a, b, ([0, 1, 2], [1, 0, 2])))
    assert core.tensordot(core.to_tensor(a), core.to_tensor(b),
                          core.to_tensor([[1], [0]])).shape == [2, 4, 2, 4]
    with pytest.raises(ValueError, match="paired but differ in size"):
        core.tensordot(core.to_tensor(a), core.to_tensor(b), 1)
    with pytest.raises(ValueError, match="axes=4 must be in 0..3"):
        core.tensordot(core.to_tensor(a), core.to_tensor(b), 4)
    with pytest.raises(TypeError, match="axes must be an int"):
        core.tensordot(core.to_tensor(a), core.to_tensor(b), 1.5)


# ----- logic, shapes ---------------------------------------------------------------------------

def test_logical_xor():
    a = core.to_tensor([True, True, False, False])
    out = core.logical_xor(a, core.to_tensor([True, False, True, False]))
    np.testing.assert_array_equal(out.numpy(), [False, True, True, False])
    np.testing.assert_array_equal(core.to_tensor([1, 0]).logical_xor(core.to_tensor([1, 1]))
                                  .numpy(), [False, True])


def test_shape_is_int64_and_rank_int32_tensors():
    x = core.ones([2, 3, 4])
    s, r = core.shape(x), core.rank(x)
    assert s.dtype == core.int64 and s.tolist() == [2, 3, 4]  # paddlepaddle 3.3.1: int64
    assert r.dtype == core.int32 and r.shape == [] and int(r) == 3
    with pytest.raises(TypeError, match="'input' must be a Tensor"):
        core.shape([1, 2])


def test_unstack_matches_torch_unbind_and_gradients():
    torch = pytest.importorskip("torch")
    a = rng.standard_normal((2, 3, 4))
    parts = core.unstack(core.to_tensor(a), axis=1, num=3)
    for got, want in zip(parts, torch.unbind(torch.tensor(a), dim=1)):
        np.testing.assert_allclose(got.numpy(), want.numpy())
    check_grad(lambda x: core.unstack(x, axis=-1)[1] * core.unstack(x, axis=-1)[3], a)
    with pytest.raises(ValueError, match="num=2 must be None or the size of axis 1"):
        core.unstack(core.to_tensor(a), axis=1, num=2)


# ----- searching -------------------------------------------------------------------------------

@pytest.mark.parametrize("right", [False, True])
def test_searchsorted_and_bucketize_match_torch(right):
    torch = pytest.importorskip("torch")
    seq = np.array([1.0, 3.0, 3.0, 5.0, 7.0])
    vals = np.array([[3.0, 6.0, 0.0], [7.0, 9.0, 1.0]])
    got = core.searchsorted(core.to_tensor(seq), core.to_tensor(vals), right=right)
    want = torch.searchsorted(torch.tensor(seq), torch.tensor(vals), right=right)
    assert got.dtype == core.int64
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    seq2 = np.sort(rng.standard_normal((2, 3, 5)), axis=-1)
    vals2 = rng.standard_normal((2, 3, 4))
    got2 = core.searchsorted(core.to_tensor(seq2), core.to_tensor(vals2), out_int32=True,
                             right=right)
    want2 = torch.searchsorted(torch.tensor(seq2), torch.tensor(vals2), right=right)
    assert got2.dtype == core.int32
    np.testing.assert_array_equal(got2.numpy(), want2.numpy())
    got3 = core.bucketize(core.to_tensor(vals), core.to_tensor(seq), right=right)
    want3 = torch.bucketize(torch.tensor(vals), torch.tensor(seq), right=right)
    np.testing.assert_array_equal(got3.numpy(), want3.numpy())


def test_searchsorted_and_bucketize_errors():
    with pytest.raises(ValueError, match="leading dimensions"):
        core.searchsorted(core.ones([2, 3]), core.ones([3, 3]))
    with pytest.raises(ValueError, match="must be 1-D"):
        core.bucketize(core.ones([2]), core.ones([2, 3]))


def test_kthvalue_matches_torch_and_gradients():
    torch = pytest.importorskip("torch")
    a = rng.standard_normal((3, 5, 4))
    for axis, keepdim in ((None, False), (1, True), (0, False)):
        values, idx = core.kthvalue(core.to_tensor(a), 2, axis=axis, keepdim=keepdim)
        want = torch.kthvalue(torch.tensor(a), 2, dim=-1 if axis is None else axis,
                              keepdim=keepdim)
        np.testing.assert_allclose(values.numpy(), want.values.numpy())
        np.testing.assert_array_equal(idx.numpy(), want.indices.numpy())
        assert idx.dtype == core.int64
    check_grad(lambda x: core.kthvalue(x, 3, axis=1)[0], a)
    with pytest.raises(ValueError, match=r"k=6 must be an int in \[1, 5\]"):
        core.kthvalue(core.to_tensor(a), 6, axis=1)


def test_index_sample_values_and_gradients():
    a = rng.standard_normal((3, 5))
    index = np.array([[0, 4, 4], [1, 1, 2], [3, 0, 2]])
    got = core.index_sample(core.to_tensor(a), core.to_tensor(index))
    np.testing.assert_allclose(got.numpy(), np.take_along_axis(a, index, axis=1))
    check_grad(lambda x: core.index_sample(x, core.to_tensor(index)), a)  # repeats add up
    with pytest.raises(ValueError, match="as many rows"):
        core.index_sample(core.ones([3, 5]), core.to_tensor([[0]]))
    with pytest.raises(ValueError, match=r"must lie in 0..4"):
        core.index_sample(core.ones([1, 5]), core.to_tensor([[5]]))


def test_clear_grad_of_a_sparse_embedding_keeps_its_later_gradients_sparse():
    """Zeros of the table's shape would turn every later row-sparse update dense."""
    from core.row_sparse import RowSparseGrad

    emb = core.nn.Embedding(1000, 4, sparse=True)
    ids = core.to_tensor(np.array([[3, 7, 3]]))
    emb(ids).sum().backward()
    first = emb.weight.gradient().copy()
    emb.weight.clear_grad()
    assert isinstance(emb.weight.grad_data, RowSparseGrad)
    np.testing.assert_array_equal(emb.weight.gradient(), np.zeros((1000, 4), np.float32))
    emb(ids).sum().backward()
    assert isinstance(emb.weight.grad_data, RowSparseGrad)
    np.testing.assert_array_equal(emb.weight.gradient(), first)
