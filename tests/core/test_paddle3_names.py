"""Paddle 3 names core added late: gammainc / gammaincc (with and without scipy), the remaining
in-place variants, fill_diagonal_ / fill_diagonal_tensor(_), Tensor.retain_grads and the other
eager Tensor methods, matrix_transpose / Tensor.mT, nn.ParameterDict, F.gather_tree, iinfo /
finfo, the random generator's state and the math constants. Values against numpy, scipy,
torch and Paddle's documented examples; gradients against float64 finite differences."""
import math
import sys

import numpy as np
import pytest

import core
from core import nn
from core.nn import functional as F
from tests.gradcheck import check_grad

rng = np.random.default_rng(310)


def t(values, dtype=None, grad=False):
    return core.to_tensor(np.asarray(values), dtype=dtype, stop_gradient=not grad)


# ----- gammainc / gammaincc -----------------------------------------------------------------

def test_gammainc_and_gammaincc_match_paddles_example():
    x = t([0.5] * 5, dtype="float32")
    y = t([0, 1, 10, 100, 1000], dtype="float32")
    np.testing.assert_allclose(core.gammainc(x, y).numpy(),
                               [0.0, 0.84270084, 0.99999225, 1.0, 1.0], rtol=1e-6)
    np.testing.assert_allclose(core.gammaincc(x, y).numpy(),
                               [1.0, 0.15729916, 0.00000774, 0.0, 0.0], rtol=1e-5, atol=1e-7)
    assert core.gammainc(x, y).dtype == np.float32


def test_gammainc_matches_torch_and_broadcasts():
    torch = pytest.importorskip("torch")
    a = rng.uniform(0.1, 20, (4, 1))
    x = rng.uniform(0, 25, (1, 5))
    np.testing.assert_allclose(t(a).gammainc(t(x)).numpy(),
                               torch.special.gammainc(torch.tensor(a), torch.tensor(x)).numpy(),
                               rtol=1e-10)
    np.testing.assert_allclose(t(a).gammaincc(t(x)).numpy(),
                               torch.special.gammaincc(torch.tensor(a), torch.tensor(x)).numpy(),
                               rtol=1e-9)


def test_gammainc_gradient_flows_to_the_limit_only():
    a = rng.uniform(0.5, 6, 6)
    x = rng.uniform(0.2, 8, 6)
    check_grad(core.gammainc, a, x, wrt=[1])
    check_grad(core.gammaincc, a, x, wrt=[1])
    check_grad(lambda s, v: core.gammaincc(s, v), np.full((2, 1), 2.5), x.reshape(1, 6), wrt=[1])
    shape, limit = t(a, grad=True), t(x, grad=True)
    core.gammainc(shape, limit).sum().backward()
    assert shape.grad is None  # as in Paddle and torch: no gradient for the shape parameter
    assert limit.grad is not None


def test_gammainc_without_scipy_uses_the_series_and_continued_fraction(monkeypatch):
    special = pytest.importorskip("scipy.special")
    a = np.concatenate([rng.uniform(0, 40, 300), [0.0, 1.0, 1e-3, 150.0, 0.5]])
    x = np.concatenate([rng.uniform(0, 50, 300), [2.0, 0.0, 4.0, 160.0, 1000.0]])
    lower, upper = special.gammainc(a, x), special.gammaincc(a, x)
    monkeypatch.setitem(sys.modules, "scipy.special", None)  # `import scipy.special` fails
    with pytest.raises(ImportError):
        import scipy.special  # noqa: F401
    np.testing.assert_allclose(core.gammainc(t(a), t(x)).numpy(), lower, rtol=1e-10,
                               atol=1e-13)
    np.testing.assert_allclose(core.gammaincc(t(a), t(x)).numpy(), upper, rtol=1e-10,
                               atol=1e-13)
    check_grad(core.gammaincc, a[:5] + 0.5, x[:5] + 0.1, wrt=[1])  # lgamma's host fallback


def test_gammainc_errors_name_the_argument():
    with pytest.raises(ValueError, match="gammainc: every value of 'x' must be >= 0"):
        core.gammainc(t([-1.0]), t([1.0]))
    with pytest.raises(ValueError, match="gammaincc: every value of 'y' must be >= 0"):
        core.gammaincc(t([1.0]), t([-1.0]))
    with pytest.raises(TypeError, match="gammainc: 'y' must be a float32 or float64 Tensor"):
        core.gammainc(t([1.0]), t([1]))
    with pytest.raises(TypeError, match="gammainc: 'y' must be a Tensor"):
        core.gammainc(t([1.0]), 2.0)
    with pytest.raises(ValueError, match="do not broadcast"):
        core.gammainc(t([1.0, 2.0]), t([1.0, 2.0, 3.0]))


def test_gammainc_in_place_writes_into_x_and_refuses_a_gradient():
    x = t([0.5, 0.5])
    assert x.gammainc_(t([1.0, 10.0])) is x
    np.testing.assert_allclose(x.numpy(), [0.84270084, 0.99999225], rtol=1e-6)
    x = t([2.0])
    core.gammaincc_(x, t([1.0]))
    np.testing.assert_allclose(x.numpy(), [2 / math.e], rtol=1e-6)  # Q(2, 1) = 2 / e
    with pytest.raises(ValueError, match="Tensor.gammainc_: the tensor is a leaf tensor that "
                                         "needs a gradient"):
        t([1.0], grad=True).gammainc_(t([1.0]))


# ----- in-place comparisons, logic, bitwise, where_, addmm_, renorm_, bernoulli_ ------------

def test_in_place_logic_and_bitwise_keep_the_tensor():
    b = t([True, False, True])
    assert b.logical_and_(t([True, True, False])) is b
    np.testing.assert_array_equal(b.numpy(), [True, False, False])
    core.logical_not_(b)
    np.testing.assert_array_equal(b.numpy(), [False, True, True])
    b.logical_or_(t([True, False, False])).logical_xor_(t([True, True, True]))
    np.testing.assert_array_equal(b.numpy(), [False, False, False])
    i = t([5, 6, 7])
    i.bitwise_and_(t([3, 3, 3]))
    np.testing.assert_array_equal(i.numpy(), [1, 2, 3])
    core.bitwise_or_(i, t([4, 4, 4]))
    core.bitwise_xor_(i, t([1, 1, 1]))
    np.testing.assert_array_equal(i.numpy(), [4, 7, 6])
    i.bitwise_invert_()
    np.testing.assert_array_equal(i.numpy(), [-5, -8, -7])
    core.bitwise_not_(i)
    i.bitwise_left_shift_(t([1, 1, 1]))
    np.testing.assert_array_equal(i.numpy(), [8, 14, 12])
    core.bitwise_right_shift_(i, t([2, 2, 2]))
    np.testing.assert_array_equal(i.numpy(), [2, 3, 3])
    np.testing.assert_array_equal(core.bitwise_invert(t([0, 1])).numpy(), [-1, -2])
    np.testing.assert_array_equal(t([True]).bitwise_invert().numpy(), [False])


def test_in_place_comparisons_write_bools_into_a_bool_tensor_only():
    a, b = np.array([False, False, True, True]), np.array([False, True, False, True])
    for fn, op in [("equal_", np.equal), ("not_equal_", np.not_equal), ("less_than_", np.less),
                   ("less_", np.less), ("less_equal_", np.less_equal),
                   ("greater_than_", np.greater), ("greater_equal_", np.greater_equal)]:
        x = t(a)
        assert getattr(x, fn)(t(b)) is x
        np.testing.assert_array_equal(x.numpy(), op(a, b), err_msg=fn)
        y = t(a)
        getattr(core, fn)(y, t(b))
        np.testing.assert_array_equal(y.numpy(), op(a, b), err_msg=fn)
    with pytest.raises(TypeError, match="Tensor.equal_: the result has dtype bool, but an "
                                        "in-place op must keep the tensor's dtype float32"):
        t([1.0, 2.0], dtype="float32").equal_(t([1.0, 3.0], dtype="float32"))


def test_where_addmm_renorm_and_bernoulli_in_place():
    x = t([1.0, 2.0, 3.0])
    assert core.where_(t([True, False, True]), x, t(0.0)) is x
    np.testing.assert_array_equal(x.numpy(), [1.0, 0.0, 3.0])
    assert t([False, True, True]).where_(x, t([9.0, 9.0, 9.0])) is x  # self is the condition
    np.testing.assert_array_equal(x.numpy(), [9.0, 0.0, 3.0])
    with pytest.raises(TypeError, match="where_: x must be the Tensor to write into"):
        core.where_(t([True]), 1.0, t([2.0]))
    base = rng.normal(size=(2, 3))
    a, b = rng.normal(size=(2, 4)), rng.normal(size=(4, 3))
    out = t(base)
    assert out.addmm_(t(a), t(b), beta=0.5, alpha=2.0) is out
    np.testing.assert_allclose(out.numpy(), 0.5 * base + 2.0 * a @ b)
    r = t(base * 10)
    core.renorm_(r, 2.0, 0, 1.0)
    np.testing.assert_allclose(np.linalg.norm(r.numpy(), axis=1), [1.0, 1.0], rtol=1e-6)
    core.seed(3)
    draws = core.zeros([4000]).bernoulli_(0.25)
    assert set(np.unique(draws.numpy())) <= {0.0, 1.0}
    assert abs(draws.numpy().mean() - 0.25) < 0.03
    core.seed(3)
    np.testing.assert_array_equal(core.bernoulli_(core.zeros([4000]), 0.25).numpy(),
                                  draws.numpy())
    ends = core.zeros([2, 3]).bernoulli_(t([[0.0], [1.0]]))
    np.testing.assert_array_equal(ends.numpy(), [[0, 0, 0], [1, 1, 1]])
    with pytest.raises(ValueError, match=r"Tensor.bernoulli_: p must be in \[0, 1\]"):
        core.zeros([2]).bernoulli_(1.5)
    with pytest.raises(TypeError, match="Tensor.bernoulli_: random values need a float tensor"):
        t([1, 2]).bernoulli_(0.5)
    with pytest.raises(ValueError, match="Tensor.renorm_: the tensor is a leaf tensor"):
        t(base, grad=True).renorm_(2.0, 0, 1.0)


# ----- diagonal fills -----------------------------------------------------------------------

def test_fill_diagonal_matches_paddles_example_and_numpy():
    x = core.ones((4, 3)) * 2
    assert x.fill_diagonal_(1.0) is x
    assert x.tolist() == [[1.0, 2.0, 2.0], [2.0, 1.0, 2.0], [2.0, 2.0, 1.0], [2.0, 2.0, 2.0]]
    for shape, wrap in [((7, 3), True), ((7, 3), False), ((3, 5), False), ((4, 4, 4), False)]:
        got = core.zeros(shape).fill_diagonal_(5, wrap=wrap).numpy()
        expected = np.zeros(shape, dtype=np.float32)
        np.fill_diagonal(expected, 5, wrap=wrap)
        np.testing.assert_array_equal(got, expected, err_msg=f"{shape} wrap={wrap}")


def test_fill_diagonal_offset_and_torch():
    torch = pytest.importorskip("torch")
    got = core.zeros((3, 4)).fill_diagonal_(7, offset=1).numpy()
    np.testing.assert_array_equal(got, np.eye(3, 4, 1) * 7)
    got = core.zeros((3, 3)).fill_diagonal_(7, offset=-1).numpy()
    np.testing.assert_array_equal(got, np.eye(3, 3, -1) * 7)
    for shape, wrap in [((5, 2), True), ((2, 5), False), ((3, 3, 3), False)]:
        expected = torch.zeros(shape).fill_diagonal_(4.0, wrap=wrap).numpy()
        np.testing.assert_array_equal(core.zeros(shape).fill_diagonal_(4.0, wrap=wrap).numpy(),
                                      expected)


def test_fill_diagonal_errors():
    with pytest.raises(ValueError, match="fill_diagonal_: x must have at least 2 dimensions"):
        core.zeros([3]).fill_diagonal_(1.0)
    with pytest.raises(ValueError, match="every dimension of the same size, got shape"):
        core.zeros([2, 3, 3]).fill_diagonal_(1.0)
    with pytest.raises(TypeError, match="fill_diagonal_: value must be a number"):
        core.zeros([2, 2]).fill_diagonal_([1.0])
    with pytest.raises(TypeError, match="fill_diagonal_: offset must be an int"):
        core.zeros([2, 2]).fill_diagonal_(1.0, offset=0.5)
    with pytest.raises(ValueError, match="Tensor.fill_diagonal_: the tensor is a leaf tensor"):
        t(np.zeros((2, 2)), grad=True).fill_diagonal_(1.0)


def test_fill_diagonal_tensor_values_gradients_and_in_place():
    x = core.ones((4, 3)) * 2
    y = core.ones((3,))
    expected = [[1.0, 2.0, 2.0], [2.0, 1.0, 2.0], [2.0, 2.0, 1.0], [2.0, 2.0, 2.0]]
    assert x.fill_diagonal_tensor(y).tolist() == expected  # Paddle's example
    assert x.tolist() == [[2.0] * 3] * 4
    assert x.fill_diagonal_tensor_(y) is x and x.tolist() == expected
    base = rng.normal(size=(2, 3, 4))
    diag = rng.normal(size=(3, 2))  # dims 0 and 2 with offset 1: the other dim, then length
    got = t(base).fill_diagonal_tensor(t(diag), offset=1, dim1=0, dim2=2).numpy()
    want = base.copy()
    for k in range(2):
        want[k, :, k + 1] = diag[:, k]
    np.testing.assert_allclose(got, want)
    check_grad(lambda a, b: a.fill_diagonal_tensor(b, 1, 0, 2), base, diag)
    with pytest.raises(ValueError, match=r"fill_diagonal_tensor: y must have the diagonal's "
                                         r"shape \[3, 2\], got \[2, 3\]"):
        t(base).fill_diagonal_tensor(t(diag.T), offset=1, dim1=0, dim2=2)
    with pytest.raises(ValueError, match="fill_diagonal_tensor: dim1 and dim2 must differ"):
        t(base).fill_diagonal_tensor(t(diag), dim1=1, dim2=-2)
    with pytest.raises(ValueError, match="Tensor.fill_diagonal_tensor_: the operand needs a "
                                         "gradient"):
        core.ones((3, 3)).fill_diagonal_tensor_(t(np.ones(3), grad=True))


# ----- Tensor.retain_grads and the other eager methods ---------------------------------------

def test_retain_grads_keeps_an_interior_gradient_and_accumulates():
    torch = pytest.importorskip("torch")
    a = rng.normal(size=3)
    x = t(a, grad=True)
    y = x * 3
    y.retain_grads()
    y.retain_grads()  # a second call changes nothing
    z = (y * y).sum()
    z.backward(retain_graph=True)
    tx = torch.tensor(a, requires_grad=True)
    ty = tx * 3
    ty.retain_grad()
    (ty * ty).sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), ty.grad.numpy())
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy())
    z.backward()
    np.testing.assert_allclose(y.grad.numpy(), 2 * ty.grad.numpy())  # accumulates, as a leaf's
    leaf, frozen = t(a, grad=True), t(a)
    leaf.retain_grads()
    frozen.retain_grads()
    assert leaf._hooks is None and frozen._hooks is None  # nothing to do for either


def test_retain_grads_sees_the_gradient_after_hooks_and_sums_two_paths():
    x = t([1.0, 2.0], grad=True)
    y = x * 2
    y.register_hook(lambda g: g * 10)
    y.retain_grads()
    (y + y * y).sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), 10 * (1 + 2 * np.array([2.0, 4.0])))
    with pytest.raises(TypeError, match="retain_grads: x must be a Tensor"):
        core.eager_methods.retain_grads([1.0])


def test_detach_apply_and_contiguity():
    x = t([1.0, 2.0], grad=True)
    y = x * 2
    assert y.detach_() is y and y.stop_gradient and y.is_leaf
    z = t([1.0, 2.0])
    np.testing.assert_array_equal(z.apply(lambda v: v * 3).numpy(), [3.0, 6.0])
    assert z.apply_(lambda v: v + 1) is z
    np.testing.assert_array_equal(z.numpy(), [2.0, 3.0])
    with pytest.raises(RuntimeError, match="Tensor.apply: cannot apply a function to a tensor "
                                           "that needs a gradient"):
        x.apply(lambda v: v)
    with pytest.raises(RuntimeError, match="Tensor.apply_: cannot apply a function in place"):
        x.apply_(lambda v: v)
    with pytest.raises(TypeError, match="Tensor.apply_: func must return a Tensor"):
        z.apply_(lambda v: 1.0)
    with pytest.raises(TypeError, match="Tensor.apply: func must be callable"):
        z.apply(3)
    assert z.is_contiguous() and z.contiguous() is z
    strided = core.ones([3, 4]).mT
    assert not strided.is_contiguous()
    dense = strided.contiguous()
    assert dense.is_contiguous()
    np.testing.assert_array_equal(dense.numpy(), strided.numpy())


def test_matrix_transpose_and_mT():
    a = rng.normal(size=(2, 3, 4))
    np.testing.assert_array_equal(core.matrix_transpose(t(a)).numpy(), a.swapaxes(-1, -2))
    np.testing.assert_array_equal(t(a).mT.numpy(), a.swapaxes(-1, -2))
    check_grad(core.matrix_transpose, a)
    with pytest.raises(ValueError, match="matrix_transpose: x must have at least 2 dimensions"):
        core.matrix_transpose(t([1.0]))


# ----- nn.ParameterDict and F.gather_tree ---------------------------------------------------

class _Stacked(nn.Layer):
    def __init__(self, n):
        super().__init__()
        self.params = nn.ParameterDict(
            {f"t{i}": core.create_parameter(shape=[2, 2], dtype="float64") for i in range(n)})

    def forward(self, x):
        for key in self.params:
            x = core.matmul(x, self.params[key])
        return x


def test_parameter_dict_follows_paddles_example():
    core.seed(0)
    model = _Stacked(4)
    assert len(model.params) == 4
    x = core.uniform([5, 2], dtype="float64")
    assert model(x).shape == [5, 2]
    model.params["t3"] = core.create_parameter(shape=[2, 3], dtype="float64")  # replace
    assert model(x).shape == [5, 3] and list(model.params) == ["t0", "t1", "t2", "t3"]
    model.params["t4"] = core.create_parameter(shape=[3, 4], dtype="float64")  # append
    assert len(model.params) == 5 and model(x).shape == [5, 4]
    assert [name for name, _ in model.named_parameters()] == [f"params.t{i}" for i in range(5)]
    assert set(model.state_dict()) == {f"params.t{i}" for i in range(5)}
    assert "t4" in model.params and list(model.params.keys()) == [f"t{i}" for i in range(5)]
    assert model.params["t0"] is list(model.params.values())[0]


def test_parameter_dict_gradients_reach_its_parameters():
    weights = rng.normal(size=(3, 2))
    holder = nn.ParameterDict([("w", core.create_parameter([3, 2], "float64"))])
    holder["w"].set_value(weights)
    check_grad(lambda x: core.matmul(x, holder["w"]), rng.normal(size=(4, 3)))
    holder.clear_gradients()
    x = rng.normal(size=(4, 3))
    core.matmul(t(x), holder["w"]).sum().backward()
    np.testing.assert_allclose(holder["w"].grad.numpy(), x.T @ np.ones((4, 2)))


def test_parameter_dict_errors():
    with pytest.raises(TypeError, match="ParameterDict: item 'a' is a Tensor, not a Parameter"):
        nn.ParameterDict({"a": t([1.0])})
    with pytest.raises(ValueError, match="ParameterDict.update: item 0 is 'ab', not a"):
        nn.ParameterDict(["ab"])
    with pytest.raises(TypeError, match="ParameterDict.update: parameters must be a dict"):
        nn.ParameterDict(3)
    with pytest.raises(KeyError, match="ParameterDict: no parameter named 'b'"):
        nn.ParameterDict()["b"]
    with pytest.raises(TypeError, match="ParameterDict is a container, not a layer to call"):
        nn.ParameterDict()(t([1.0]))


def test_gather_tree_matches_paddles_example_and_a_loop():
    ids = t([[[2, 2], [6, 1]], [[3, 9], [6, 1]], [[0, 1], [9, 0]]])
    parents = t([[[0, 0], [1, 1]], [[1, 0], [1, 0]], [[0, 0], [0, 1]]])
    out = F.gather_tree(ids, parents)
    assert out.tolist() == [[[2, 2], [1, 6]], [[3, 3], [6, 1]], [[0, 1], [9, 0]]]
    assert out.dtype == ids.dtype
    steps, batch, beam = 6, 3, 4
    a = rng.integers(0, 50, (steps, batch, beam))
    p = rng.integers(0, beam, (steps, batch, beam))
    want = np.empty_like(a)
    for b in range(batch):
        for k in range(beam):
            parent = k
            for s in range(steps - 1, -1, -1):
                want[s, b, k] = a[s, b, parent]
                parent = p[s, b, parent]
    np.testing.assert_array_equal(F.gather_tree(t(a), t(p)).numpy(), want)


def test_gather_tree_paths_pick_differentiable_scores():
    """gather_tree's ids have no gradient; scores gathered along its paths do."""
    ids = np.array([[[0, 1]], [[1, 0]], [[1, 1]]])  # [T=3, B=1, beam=2]
    parents = np.array([[[0, 0]], [[1, 0]], [[0, 0]]])
    path = F.gather_tree(t(ids), t(parents)).numpy()

    def score(logits):  # logits [T, B, vocab=2]: the chosen tokens' scores per beam
        return core.take_along_axis(logits, t(path), axis=2)
    check_grad(score, rng.normal(size=(3, 1, 2)))


def test_gather_tree_errors_name_the_argument():
    good = t(np.zeros((2, 1, 2), dtype=np.int64))
    with pytest.raises(TypeError, match="gather_tree: 'ids' must be an int32 or int64 Tensor"):
        F.gather_tree(t(np.zeros((2, 1, 2))), good)
    with pytest.raises(ValueError, match=r"gather_tree: 'parents' must be 3-D \[max_time"):
        F.gather_tree(good, t(np.zeros((2, 2), dtype=np.int64)))
    with pytest.raises(ValueError, match="ids and parents must have the same shape"):
        F.gather_tree(good, t(np.zeros((2, 1, 3), dtype=np.int64)))
    with pytest.raises(ValueError, match=r"every parent must be a beam index in \[0, "
                                         r"beam_size=2\), got values from 0 to 5"):
        F.gather_tree(good, t(np.array([[[0, 5]], [[0, 0]]])))


# ----- dtype facts, the generator's state, constants ----------------------------------------

def test_iinfo_finfo_rng_state_and_constants():
    assert core.iinfo(core.int32).max == 2**31 - 1 and core.iinfo("uint8").min == 0
    assert core.iinfo(core.bool).max == 255  # Paddle reports bool as uint8
    f32 = core.finfo(core.float32)
    assert f32.eps == np.finfo(np.float32).eps and f32.bits == 32 and f32.dtype == np.float32
    assert core.finfo(core.ones([1], dtype="float16")).tiny == np.finfo(np.float16).tiny
    with pytest.raises(TypeError, match="iinfo: dtype must be an integer dtype"):
        core.iinfo("float32")
    with pytest.raises(TypeError, match="finfo: dtype must be a float or complex dtype"):
        core.finfo("int64")
    state = core.get_rng_state()
    first = core.rand([4]).numpy()
    core.set_rng_state(state)
    np.testing.assert_array_equal(core.rand([4]).numpy(), first)
    with pytest.raises(TypeError, match="set_rng_state: state_list must be what get_rng_state"):
        core.set_rng_state({"state": 1})
    with pytest.raises(ValueError, match="set_rng_state: state_list"):
        core.set_rng_state([{"bit_generator": "nope"}])
    assert (core.inf, core.pi, core.e) == (math.inf, math.pi, math.e) and math.isnan(core.nan)
    assert core.ones([2, 3])[:, core.newaxis].shape == [2, 1, 3]


# ----- histogramdd, vecdot, DLPack, and the smaller names -----------------------------------

def test_histogramdd_matches_paddles_example_and_torch():
    torch = pytest.importorskip("torch")
    x = t([[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0]], dtype="float32")
    hist, edges = core.histogramdd(x, bins=[3, 3], weights=t([1.0, 2.0, 4.0, 8.0],
                                                              dtype="float32"))
    np.testing.assert_array_equal(hist.numpy(), [[0, 1, 0], [2, 0, 0], [4, 0, 8]])
    np.testing.assert_allclose(edges[0].numpy(), [0.0, 0.66666669, 1.33333337, 2.0])
    assert hist.dtype == np.float32 and len(edges) == 2
    points = rng.normal(size=(4, 10, 3))  # all but the last dimension are flattened
    flat = torch.tensor(points.reshape(-1, 3))
    for kwargs, tkwargs in [({"bins": [3, 4, 2], "density": True},
                             {"bins": [3, 4, 2], "density": True}),
                            ({"bins": 4, "ranges": [-1.0, 1.0, -2.0, 2.0, 0.0, 1.0]},
                             {"bins": 4, "range": [-1.0, 1.0, -2.0, 2.0, 0.0, 1.0]})]:
        hist, edges = t(points).histogramdd(**kwargs)
        want = torch.histogramdd(flat, **tkwargs)
        np.testing.assert_allclose(hist.numpy(), want.hist.numpy(), rtol=1e-12)
        for got, expected in zip(edges, want.bin_edges):
            np.testing.assert_allclose(got.numpy(), expected.numpy())
    given = [t([-3.0, 0.0, 3.0]), t([-3.0, 3.0]), t([-1.0, 0.0, 1.0])]
    hist, _ = core.histogramdd(t(points), bins=given)
    want = torch.histogramdd(flat, bins=[torch.tensor(g.numpy()) for g in given])
    np.testing.assert_array_equal(hist.numpy(), want.hist.numpy())


def test_histogramdd_errors_name_the_argument():
    x = t(rng.normal(size=(5, 2)))
    with pytest.raises(ValueError, match="histogramdd: x must be a float tensor of at least 2"):
        core.histogramdd(t([1.0, 2.0]))
    with pytest.raises(ValueError, match="histogramdd: bins must be a positive int, 2 positive"):
        core.histogramdd(x, bins=[3])
    with pytest.raises(ValueError, match="histogramdd: bins given as Tensors must be 2 1-D"):
        core.histogramdd(x, bins=[t([0.0, 1.0]), t([1.0, 0.0])])
    with pytest.raises(ValueError, match=r"histogramdd: ranges must be 4 numbers"):
        core.histogramdd(x, ranges=[0.0, 1.0])
    with pytest.raises(ValueError, match=r"histogramdd: weights must have x's shape without"):
        core.histogramdd(x, weights=t(np.ones(4)))


def test_vecdot_matches_torch_and_its_gradient():
    torch = pytest.importorskip("torch")
    a, b = rng.normal(size=(2, 3)), rng.normal(size=(3,))
    np.testing.assert_allclose(core.vecdot(t(a), t(b)).numpy(),
                               torch.linalg.vecdot(torch.tensor(a), torch.tensor(b)).numpy())
    np.testing.assert_allclose(t(a).vecdot(t(a), axis=0).numpy(), (a * a).sum(0))
    check_grad(lambda u, v: core.vecdot(u, v, axis=0), a, rng.normal(size=(2, 1)))
    with pytest.raises(ValueError, match="vecdot: x of shape"):
        core.vecdot(t(a), t(np.ones(4)))
    with pytest.raises(ValueError, match="vecdot: axis 2 is out of range"):
        core.vecdot(t(a), t(b), axis=2)


def test_dlpack_shares_memory_with_torch_both_ways():
    torch = pytest.importorskip("torch")
    x = t([1.0, 2.0, 3.0], dtype="float32")
    shared = torch.from_dlpack(x)
    shared[0] = 10.0
    assert x.numpy()[0] == 10.0
    y = core.from_dlpack(torch.arange(4.0))
    np.testing.assert_array_equal(y.numpy(), [0.0, 1.0, 2.0, 3.0])
    np.testing.assert_array_equal(core.from_dlpack(core.to_dlpack(x)).numpy(), x.numpy())
    capsule = torch.utils.dlpack.to_dlpack(torch.ones(2))
    np.testing.assert_array_equal(core.from_dlpack(capsule).numpy(), [1.0, 1.0])
    # DLPack's device types: 1 host memory, 2 CUDA (x on gpu:N under TOMLRUN_TEST_DEVICE)
    assert x.__dlpack_device__()[0] == (1 if core.device.get_device() == "cpu" else 2)
    needs_grad = t([1.0, 2.0], grad=True)  # exported as its values, unlike Paddle
    np.testing.assert_array_equal(torch.as_tensor(needs_grad).cpu().numpy(), [1.0, 2.0])
    with pytest.raises(TypeError, match="from_dlpack: dlpack must be a DLPack capsule"):
        core.from_dlpack([1.0])
    with pytest.raises(TypeError, match="to_dlpack: x must be a Tensor"):
        core.to_dlpack(np.ones(2))


def test_multinomial_and_is_tensor_methods_and_disable_signal_handler():
    core.seed(1)
    draws = t([0.0, 1.0, 0.0]).multinomial(5, replacement=True)
    np.testing.assert_array_equal(draws.numpy(), [1] * 5)
    assert t([1.0]).is_tensor()
    assert core.disable_signal_handler() is None


def test_gammainc_gradient_at_a_zero_shape_matches_paddle_and_torch():
    """P(0, y) is 1 for every y > 0, so its derivative is 0 (Paddle's and torch's); it was
    exp(-y) / y, lgamma(0) having been replaced by 0."""
    torch = pytest.importorskip("torch")
    shape, limit = [0.0, 0.0, 1.5], [1.0, 3.0, 2.0]
    for ours, theirs in ((core.gammainc, torch.special.gammainc),
                         (core.gammaincc, torch.special.gammaincc)):
        y = t(limit, grad=True)
        ours(t(shape), y).sum().backward()
        expected = torch.tensor(limit, dtype=torch.float64, requires_grad=True)
        theirs(torch.tensor(shape, dtype=torch.float64), expected).sum().backward()
        np.testing.assert_allclose(y.grad.numpy(), expected.grad.numpy(), atol=1e-15)


def test_to_dlpack_of_a_read_only_view():
    """expand / broadcast_to give read-only views, which a legacy DLPack capsule cannot carry
    (numpy raised BufferError); their values are exported as a copy."""
    x = core.broadcast_to(t([1.0, 2.0, 3.0]), [2, 3])
    np.testing.assert_array_equal(core.from_dlpack(core.to_dlpack(x)).numpy(),
                                  [[1.0, 2.0, 3.0]] * 2)


def test_parameter_dict_refuses_names_paddle_refuses():
    # QA regression: 'training' used to replace the layer's training flag with a Parameter
    # (and 'update' to hide the method behind the name); dotted and empty names as Paddle.
    p = core.create_parameter([1], "float32")
    for name in ("training", "update", "forward"):
        with pytest.raises(KeyError, match=f"the name '{name}' is already an attribute"):
            nn.ParameterDict({name: p})
    for name in ("a.b", ""):
        with pytest.raises(KeyError, match="a name must be non-empty and contain no '.'"):
            nn.ParameterDict({name: p})
    holder = nn.ParameterDict({"w": p})
    holder["w"] = core.create_parameter([2], "float32")  # replacing its own name stays allowed
    assert holder["w"].shape == [2] and holder.training


def test_parameter_dict_state_dict_round_trip_and_optimizer_step():
    model = _Stacked(2)
    saved = {k: v.numpy().copy() for k, v in model.state_dict().items()}
    opt = core.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
    model(core.ones([1, 2], dtype="float64")).sum().backward()
    opt.step()
    assert not np.allclose(model.params["t0"].numpy(), saved["params.t0"])
    model.set_state_dict({k: core.to_tensor(v) for k, v in saved.items()})
    np.testing.assert_array_equal(model.params["t0"].numpy(), saved["params.t0"])


def test_iinfo_finfo_take_numpy_scalar_types_and_name_an_integer_example():
    # QA regression: np.float32 (a type with a class attribute `dtype`) was refused, and
    # iinfo's error suggested 'float32' as an integer dtype
    assert core.finfo(np.float32).bits == 32 and core.iinfo(np.int16).max == 2**15 - 1
    with pytest.raises(TypeError, match=r"a name such as 'int32', or core\.int32\), got 'float32'"):
        core.iinfo("float32")


def test_rng_state_reproduces_dropout_masks_and_initialisers():
    state = core.get_rng_state()
    mask = F.dropout(core.ones([64]), p=0.5).numpy()
    weight = nn.Linear(3, 3).weight.numpy()
    values = core.rand([5]).numpy()
    core.set_rng_state(state)
    np.testing.assert_array_equal(F.dropout(core.ones([64]), p=0.5).numpy(), mask)
    np.testing.assert_array_equal(nn.Linear(3, 3).weight.numpy(), weight)
    np.testing.assert_array_equal(core.rand([5]).numpy(), values)


def test_from_dlpack_names_a_capsule_read_twice():
    # QA regression: the second read fell through to the GPU path ("No module named 'cupy'")
    capsule = core.to_dlpack(t([1.0, 2.0]))
    np.testing.assert_array_equal(core.from_dlpack(capsule).numpy(), [1.0, 2.0])
    with pytest.raises(ValueError, match="from_dlpack: this DLPack capsule was already consumed"):
        core.from_dlpack(capsule)
    assert core.from_dlpack(core.to_dlpack(core.to_tensor(3.0))).shape == []  # 0-D round trip
