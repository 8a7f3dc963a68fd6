"""Tensor functions: values against numpy, float64 finite-difference gradients, Paddle's rules."""
import numpy as np
import pytest

import core
from core import arithmetic, contraction, creation, logic, manipulation, ops
from tests.gradcheck import check_grad

rng = np.random.default_rng(3)


def normal(*shape):
    return rng.normal(size=shape)


def distinct(*shape):
    """Values with no ties (so max/min are differentiable everywhere the check looks)."""
    n = int(np.prod(shape))
    return (rng.permutation(n) * 0.37 - n * 0.15).reshape(shape)


def t(values, dtype=None, grad=False):
    return core.to_tensor(np.asarray(values), dtype=dtype, stop_gradient=not grad)


# ----- element-wise math ---------------------------------------------------------------------

@pytest.mark.parametrize("fn,low,high", [
    (core.exp, -2, 2), (core.log, 0.2, 3), (core.sqrt, 0.2, 3), (core.square, -2, 2),
    (core.tanh, -2, 2), (core.abs, 0.1, 2), (core.sin, -3, 3), (core.cos, -3, 3),
    (core.log1p, -0.5, 2), (core.rsqrt, 0.3, 3), (core.reciprocal, 0.3, 3),
])
def test_unary_values_and_gradients(fn, low, high):
    a = rng.uniform(low, high, (3, 4))
    if fn is core.abs:
        a = a * np.where(rng.random((3, 4)) < 0.5, -1, 1)
    expected = {core.exp: np.exp, core.log: np.log, core.sqrt: np.sqrt, core.square: np.square,
                core.tanh: np.tanh, core.abs: np.abs, core.sin: np.sin, core.cos: np.cos,
                core.log1p: np.log1p, core.rsqrt: lambda v: 1 / np.sqrt(v),
                core.reciprocal: np.reciprocal}[fn](a)
    np.testing.assert_allclose(fn(t(a)).numpy(), expected)
    check_grad(fn, a)


def test_abs_gradient_at_zero_is_zero():
    x = t([-1.0, 0.0, 2.0], grad=True)
    abs(x).sum().backward()  # Tensor.__abs__
    np.testing.assert_array_equal(x.gradient(), [-1.0, 0.0, 1.0])


@pytest.mark.parametrize("low,high", [(-0.5, 0.5), (None, 0.3), (-0.3, None), (None, None)])
def test_clip_values_and_gradients(low, high):
    a = np.array([[-1.0, -0.42, -0.1], [0.05, 0.37, 0.9]])
    np.testing.assert_allclose(core.clip(t(a), low, high).numpy(),
                               np.clip(a, -np.inf if low is None else low,
                                       np.inf if high is None else high))
    check_grad(lambda x: core.clip(x, min=low, max=high), a)


def test_clip_boundaries_tensor_bounds_and_errors():
    x = t([-1.0, 0.0, 0.5, 1.0, 2.0], grad=True)
    out = x.clip(t(0.0), t(1.0))
    np.testing.assert_array_equal(out.numpy(), [0.0, 0.0, 0.5, 1.0, 1.0])
    out.sum().backward()
    # Paddle's clip_grad: the gradient flows only strictly inside (min, max).
    np.testing.assert_array_equal(x.gradient(), [0.0, 0.0, 1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="min"):
        core.clip(x, 2.0, 1.0)
    with pytest.raises(TypeError, match="Tensor"):
        core.exp(np.ones(3))


# ----- reductions ----------------------------------------------------------------------------

AXES = [None, 0, -1, 1, [0, 2], (-1, -3), []]


@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("name", ["sum", "mean"])
def test_sum_and_mean(name, axis, keepdim):
    a = normal(2, 3, 2)
    np_axis = None if axis in (None, []) else tuple(axis) if isinstance(axis, list) else axis
    out = getattr(core, name)(t(a), axis=axis, keepdim=keepdim)
    np.testing.assert_allclose(out.numpy(), getattr(np, name)(a, axis=np_axis, keepdims=keepdim))
    assert not np.isscalar(out.data)  # an array, not a numpy scalar
    check_grad(lambda x: getattr(core, name)(x, axis=axis, keepdim=keepdim), a)


def test_sum_dtype_methods_and_errors():
    x = t([[1, 2], [3, 4]], dtype="int32")
    assert core.sum(x, dtype="float64").dtype == np.float64
    assert x.sum(axis=1).tolist() == [3, 7]
    assert float(t([[1.0, 2.0], [3.0, 5.0]]).mean()) == 2.75
    with pytest.raises(TypeError, match="keepdim"):
        core.sum(x, 0, True)
    with pytest.raises(ValueError, match="out of range"):
        core.sum(x, axis=2)
    with pytest.raises(ValueError, match="same axis twice"):
        core.mean(x, axis=[1, -1])


@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("name", ["max", "min"])
def test_max_and_min(name, axis, keepdim):
    a = distinct(2, 3, 2)
    np_axis = None if axis in (None, []) else tuple(axis) if isinstance(axis, list) else axis
    out = getattr(core, name)(t(a), axis=axis, keepdim=keepdim)
    np.testing.assert_array_equal(out.numpy(), getattr(np, name)(a, axis=np_axis,
                                                                  keepdims=keepdim))
    check_grad(lambda x: getattr(core, name)(x, axis=axis, keepdim=keepdim), a)


def test_max_and_min_give_the_gradient_to_the_first_extreme_only():
    a = np.array([[0.0, 3.0, 3.0, 1.0], [2.0, 2.0, 2.0, 0.0], [0.0, 0.0, -1.0, -1.0]])
    x = t(a, grad=True)
    x.max(axis=1).sum().backward()
    np.testing.assert_array_equal(x.gradient(), [[0, 1, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0]])
    x = t(a, grad=True)
    core.min(x, axis=-1, keepdim=True).sum().backward()
    np.testing.assert_array_equal(x.gradient(), [[1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]])
    x = t(a, grad=True)
    x.max().backward()  # all axes: the first maximum in row-major order
    np.testing.assert_array_equal(x.gradient(), np.eye(1, 12, 1).reshape(3, 4))
    x = t(a, grad=True)
    core.max(x, axis=0).sum().backward()
    np.testing.assert_array_equal(x.gradient(), [[0, 1, 1, 1], [1, 0, 0, 0], [0, 0, 0, 0]])
    with pytest.raises(ValueError, match="empty"):
        core.max(t(np.zeros((0, 2))), axis=0)


def test_argmax_and_argmin():
    a = np.array([[1.0, 5.0, 5.0], [7.0, 0.0, 7.0]])
    x = t(a, grad=True)
    assert core.argmax(x, axis=1).tolist() == [1, 0]  # ties: the first index
    assert x.argmax(axis=-1, keepdim=True).shape == [2, 1]
    assert core.argmax(x).tolist() == 3 and core.argmax(x).dtype == np.int64
    assert core.argmax(x, keepdim=True).shape == [1, 1]
    assert core.argmin(x, axis=0).tolist() == [0, 1, 0]
    assert core.argmax(x, axis=0).stop_gradient
    assert core.argmax(x, axis=1, dtype="int32").dtype == np.int32


# ----- shapes --------------------------------------------------------------------------------

def test_reshape_paddle_rules_and_gradient():
    a = normal(2, 3, 4)
    assert core.reshape(t(a), [0, -1]).shape == [2, 12]
    assert core.reshape(t(a), (4, 0, 2)).shape == [4, 3, 2]
    assert t(a).reshape([-1]).shape == [24]
    assert core.reshape(t(a), [t(6), 4]).shape == [6, 4]
    check_grad(lambda x: core.reshape(x, [0, -1, 2]), a)
    for bad, match in [([-1, -1], "more than one -1"), ([5, -1], "cannot infer"),
                       ([2, 3, 5], "elements"), ([0, 0, 0, 0], "position 3"), ([-2, 12], "-2")]:
        with pytest.raises(ValueError, match=match):
            core.reshape(t(a), bad)
    with pytest.raises(TypeError, match="shape"):
        core.reshape(t(a), [2.0, 12])


def test_transpose_and_T():
    a = normal(2, 3, 4)
    np.testing.assert_array_equal(core.transpose(t(a), [2, 0, 1]).numpy(), a.transpose(2, 0, 1))
    np.testing.assert_array_equal(t(a).transpose([-1, 1, 0]).numpy(), a.transpose(2, 1, 0))
    np.testing.assert_array_equal(t(a[0]).T.numpy(), a[0].T)
    assert t(a).T.shape == [4, 3, 2]
    check_grad(lambda x: core.transpose(x, [1, 2, 0]), a)
    check_grad(lambda x: x.T, a[0])
    with pytest.raises(ValueError, match="permutation"):
        core.transpose(t(a), [0, 0, 1])


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_concat(axis):
    parts = [normal(2, 3), normal(2, 3), normal(2, 3)]
    parts[1] = parts[1][:1] if axis == 0 else parts[1][:, :1]
    out = core.concat([t(p) for p in parts], axis=axis)
    np.testing.assert_array_equal(out.numpy(), np.concatenate(parts, axis=axis))
    check_grad(lambda *xs: core.concat(list(xs), axis=axis), *parts)


def test_concat_with_constant_input_and_errors():
    x = t(normal(2, 2), grad=True)
    core.concat((x, t(np.ones((1, 2))), x), axis=0).sum().backward()
    np.testing.assert_array_equal(x.gradient(), 2 * np.ones((2, 2)))
    with pytest.raises(ValueError, match="must match"):
        core.concat([t(np.ones((2, 3))), t(np.ones((2, 4)))], axis=0)
    with pytest.raises(TypeError, match="list"):
        core.concat(t(np.ones(3)))


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
def test_stack(axis):
    parts = [normal(2, 3), normal(2, 3)]
    out = core.stack([t(p) for p in parts], axis=axis)
    np.testing.assert_array_equal(out.numpy(), np.stack(parts, axis=axis))
    check_grad(lambda x, y: core.stack([x, y], axis=axis), *parts)
    with pytest.raises(ValueError, match="same shape"):
        core.stack([t(np.ones(2)), t(np.ones(3))])


@pytest.mark.parametrize("start,stop,shape", [(0, -1, [24]), (1, 2, [2, 12]), (-2, -1, [2, 12]),
                                              (0, 1, [6, 4]), (1, 1, [2, 3, 4])])
def test_flatten(start, stop, shape):
    a = normal(2, 3, 4)
    assert core.flatten(t(a), start, stop).shape == shape
    check_grad(lambda x: x.flatten(start_axis=start, stop_axis=stop), a)


def test_flatten_edge_cases():
    assert core.flatten(t(3.0)).shape == [1]
    with pytest.raises(ValueError, match="start_axis"):
        core.flatten(t(np.ones((2, 3))), 1, 0)


def test_squeeze_and_unsqueeze():
    a = normal(1, 3, 1, 2)
    assert core.squeeze(t(a)).shape == [3, 2]
    assert t(a).squeeze(axis=-2).shape == [1, 3, 2]
    assert core.squeeze(t(a), axis=[0, 1]).shape == [3, 1, 2]  # size-3 axis kept, as in Paddle
    assert core.unsqueeze(t(normal(3, 2)), [0, 2]).shape == [1, 3, 1, 2]
    assert t(normal(3, 2)).unsqueeze(-1).shape == [3, 2, 1]
    assert core.unsqueeze(t(normal(3)), [-1, 0]).shape == [1, 3, 1]
    check_grad(lambda x: core.squeeze(x, [0, 2]), a)
    check_grad(lambda x: core.unsqueeze(x, [1, -1]), normal(3, 2))
    with pytest.raises(ValueError, match="out of range"):
        core.unsqueeze(t(normal(3)), 3)


def test_split():
    a = normal(6, 4)
    parts = core.split(t(a), 3)
    assert [p.shape for p in parts] == [[2, 4]] * 3
    parts = t(a).split([1, -1, 2], axis=-1)
    assert [p.shape for p in parts] == [[6, 1], [6, 1], [6, 2]]
    np.testing.assert_array_equal(parts[2].numpy(), a[:, 2:])
    weights = [1.0, -2.0, 3.0]
    check_grad(lambda x: sum(w * p.sum(axis=0) for w, p in zip(weights, core.split(x, [3, 1, 2]))),
               a)
    for bad in [4, 0, [2, 2], [2, -1, -1], [7, -1], [-2, 8]]:
        with pytest.raises(ValueError, match="split"):
            core.split(t(a), bad)


def test_gather():
    a = normal(4, 3)
    idx = np.array([2, 0, 2, 3])
    np.testing.assert_array_equal(core.gather(t(a), t(idx)).numpy(), a[idx])
    np.testing.assert_array_equal(t(a).gather(t([[1], [1]]), axis=-1).numpy(), a[:, [1, 1]])
    check_grad(lambda x, i: core.gather(x, i), a, idx)  # repeated index: gradients add up
    check_grad(lambda x, i: core.gather(x, i, axis=1), a, np.array([2, 2, 0]))
    with pytest.raises(ValueError, match="0..3"):
        core.gather(t(a), t([4]))
    with pytest.raises(ValueError, match="1-D"):
        core.gather(t(a), t([[0, 1]]))
    with pytest.raises(ValueError, match="integer"):
        core.gather(t(a), t([0.0]))


def test_where():
    cond = np.array([[True, False, True]])
    a, b = normal(2, 3), normal(2, 1)
    out = core.where(t(cond), t(a), t(b))
    np.testing.assert_array_equal(out.numpy(), np.where(cond, a, b))
    check_grad(lambda x, y: core.where(t(cond), x, y), a, b)
    check_grad(lambda x: core.where(t(cond), x, 0.0), a)
    check_grad(lambda y: core.where(t(cond), 1.5, y), b)
    with pytest.raises(TypeError, match="bool"):
        core.where(t([1.0]), t(a), t(b))


# ----- einsum ---------------------------------------------------------------------------------

EINSUM_CASES = [
    ("ij,jk->ik", [(3, 4), (4, 2)]),          # matmul
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 2)]),  # batched matmul
    ("i,j->ij", [(3,), (4,)]),                # outer
    ("ij->ji", [(3, 4)]),                     # transpose
    ("ijk->i", [(2, 3, 2)]),                  # sum out
    ("ij,ij->", [(3, 4), (3, 4)]),            # full contraction to a scalar
    ("ijk,jl->il", [(2, 3, 2), (3, 4)]),      # k summed inside the first operand only
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),  # chain of three
    ("ik,jk", [(2, 3), (4, 3)]),              # implicit output: "ij"
    ("bn,nd -> bd", [(2, 3), (3, 2)]),        # spaces
    ("i,i,i->i", [(4,), (4,), (4,)]),         # element-wise product
]


@pytest.mark.parametrize("equation,shapes", EINSUM_CASES)
def test_einsum_values_and_gradients(equation, shapes):
    arrays = [normal(*s) for s in shapes]
    out = core.einsum(equation, *[t(a) for a in arrays])
    np.testing.assert_allclose(out.numpy(), np.einsum(equation, *arrays), rtol=1e-12)
    assert not np.isscalar(out.data)  # an array, not a numpy scalar
    check_grad(lambda *xs: core.einsum(equation, *xs), *arrays)


def test_einsum_skips_constant_operands_and_accepts_a_list():
    x = t(normal(3, 4), grad=True)
    w = t(normal(4, 2))
    core.einsum("ij,jk->ik", [x, w]).sum().backward()
    np.testing.assert_allclose(x.gradient(), np.broadcast_to(w.numpy().sum(1), (3, 4)))
    assert w.grad is None


@pytest.mark.parametrize("equation,shapes,error,match", [
    ("...ij,jk->ik", [(2, 3), (3, 2)], ValueError, "missing ellipsis"),  # '...' is supported
    ("iij->j", [(3, 2, 2)], ValueError, "diagonal needs equal sizes"),  # as are diagonals
    ("ij,jk->ik", [(2, 3)], ValueError, "2 operand"),
    ("ij,jk->ik", [(2, 3), (4, 2)], ValueError, "size 3"),
    ("ijk->i", [(2, 3)], ValueError, "3 letters"),
    ("ij->iz", [(2, 3)], ValueError, "appear in the inputs"),
    ("ij->ii", [(2, 3)], ValueError, "distinct"),
    ("i1->i", [(2, 3)], ValueError, "letters"),
    ("ij->i->j", [(2, 3)], ValueError, "more than one"),
])
def test_einsum_errors(equation, shapes, error, match):
    with pytest.raises(error, match=match):
        core.einsum(equation, *[t(np.ones(s)) for s in shapes])


# ----- creation ------------------------------------------------------------------------------

def test_creation_defaults_and_values():
    assert core.zeros([2, 3]).dtype == np.float32 and core.zeros([2, 3]).shape == [2, 3]
    assert core.ones(4, dtype="int64").tolist() == [1, 1, 1, 1]
    assert core.full([2], 7).tolist() == [7.0, 7.0] and core.full([2], 7).dtype == np.float32
    assert core.full((1,), 2, dtype="int32").dtype == np.int32
    x = t(np.ones((2, 2)), dtype="float64")
    assert core.zeros_like(x).dtype == np.float64 and core.zeros_like(x).numpy().sum() == 0
    assert core.ones_like(x, dtype="int64").dtype == np.int64
    assert core.full_like(x, 3.0).tolist() == [[3.0, 3.0], [3.0, 3.0]]
    assert core.arange(4).tolist() == [0, 1, 2, 3] and core.arange(4).dtype == np.int64
    assert core.arange(1, 2, 0.25).tolist() == [1.0, 1.25, 1.5, 1.75]
    assert core.arange(1, 2, 0.25).dtype == np.float32
    np.testing.assert_array_equal(core.eye(2, 3).numpy(), np.eye(2, 3))
    assert core.eye(3).dtype == np.float32
    assert core.zeros([0, 2]).shape == [0, 2]
    assert core.zeros([2]).stop_gradient


def test_random_creation_is_seeded():
    core.seed(11)
    first = [core.rand([2, 3]).numpy(), core.randn([4]).numpy(), core.randint(0, 5, [50]).numpy()]
    core.seed(11)
    second = [core.rand([2, 3]).numpy(), core.randn([4]).numpy(), core.randint(0, 5, [50]).numpy()]
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    assert first[0].dtype == np.float32 and 0 <= first[0].min() and first[0].max() < 1
    assert first[2].dtype == np.int64 and set(first[2].tolist()) <= set(range(5))
    assert core.randint(3, shape=[100]).numpy().max() < 3
    assert core.randn([2], dtype="float64").dtype == np.float64


def test_creation_errors():
    for call, error, match in [
        (lambda: core.zeros([2, -1]), ValueError, "non-negative"),
        (lambda: core.ones("3"), TypeError, "shape"),
        (lambda: core.full([2], 1.0, dtype="floaty"), TypeError, "floaty"),
        (lambda: core.rand([2], dtype="int64"), TypeError, "float"),
        (lambda: core.randint(5, 5), ValueError, "less than"),
        (lambda: core.randint(0.5, 3), TypeError, "ints"),
        (lambda: core.arange(0, 3, 0), ValueError, "step"),
        (lambda: core.zeros_like(np.ones(2)), TypeError, "Tensor"),
    ]:
        with pytest.raises(error, match=match):
            call()


# ----- comparisons and logic -------------------------------------------------------------------

def test_comparisons_and_logic():
    a = np.array([[1.0, np.nan, 3.0], [np.inf, -2.0, 0.0]])
    x, y = t(a), t(np.full((2, 3), 1.0))
    cases = [(core.equal(x, y), a == 1.0), (core.not_equal(x, 1.0), a != 1.0),
             (core.less_than(x, y), a < 1.0), (x.greater_than(y), a > 1.0),
             (core.isnan(x), np.isnan(a)), (x.isinf(), np.isinf(a)),
             (core.isfinite(x), np.isfinite(a)), (core.logical_not(core.isnan(x)), ~np.isnan(a))]
    for out, expected in cases:
        assert out.dtype == np.bool_ and out.stop_gradient
        np.testing.assert_array_equal(out.numpy(), expected)
    finite = core.isfinite(x)
    assert not core.all(finite).item() and core.any(finite).item()
    assert core.all(finite, axis=1).tolist() == [False, False]
    assert finite.any(axis=0, keepdim=True).shape == [1, 3]
    assert not np.isscalar(core.all(finite).data)  # an array, not a numpy scalar
    assert core.equal(t(2.0), 2.0).shape == []


def test_no_gradient_through_logic_or_argmax():
    x = t([1.0, 2.0], grad=True)
    assert core.greater_than(x, 1.5).stop_gradient and x.argmax().stop_gradient


# ----- exports and methods ---------------------------------------------------------------------

def test_reexports_and_methods():
    for name in ("matmul", "add", "subtract", "multiply", "divide"):
        assert getattr(core, name) is getattr(arithmetic, name) is getattr(ops, name)
    assert core.einsum is contraction.einsum and core.zeros is creation.zeros
    assert core.reshape is manipulation.reshape and core.all is logic.all
    x = t(distinct(2, 3), grad=True)
    y = (x.exp().log().abs().sqrt().square().tanh().clip(-0.9, 0.9).reshape([3, 2]).T
         .flatten().unsqueeze(0).squeeze().sum() + x.mean() + x.max() + x.min())
    y.backward()
    assert x.gradient().shape == (2, 3)


@pytest.mark.parametrize("fn, expected", [
    (core.floor, [-3.0, -2.0, 0.0, 0.0, 2.0]), (core.ceil, [-2.0, -2.0, 1.0, 1.0, 3.0]),
    (core.round, [-2.0, -2.0, 0.0, 1.0, 2.0]),  # halves to even, as paddlepaddle 3.3.1
    (core.sign, [-1.0, -1.0, 1.0, 1.0, 1.0]),
])
def test_stepwise_ops_values_dtype_and_zero_gradient(fn, expected):
    x = t([-2.5, -2.0, 0.5, 0.7, 2.5], dtype="float32", grad=True)
    out = fn(x)
    np.testing.assert_array_equal(out.numpy(), expected)
    assert out.dtype == np.float32
    core.sum(out * 3.0).backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros(5))
    np.testing.assert_array_equal(getattr(x, fn.__name__)().numpy(), expected)  # the method


def test_numel_is_tensor_and_dtype_names():
    x = core.zeros([2, 3, 4])
    assert core.numel(x).item() == 24 and x.numel().shape == [] and x.numel().dtype == np.int64
    assert core.is_tensor(x) and not core.is_tensor(np.zeros(2))
    assert x.dtype == core.float32 and x.astype(core.int64).dtype == core.int64
    assert core.to_tensor([1, 2], dtype=core.float64).dtype == np.float64
    assert {core.bool, core.float16, core.int8, core.int16, core.int32, core.uint8} == {
        np.dtype(n) for n in ("bool", "float16", "int8", "int16", "int32", "uint8")}


def test_version_is_the_installed_packages():
    from importlib.metadata import PackageNotFoundError, version

    try:
        installed = version("tomlrun")
    except PackageNotFoundError:  # a bare checkout on PYTHONPATH
        installed = "0+unknown"
    assert core.__version__ == installed


def test_round_is_exact_near_halves_and_for_large_values():
    x = t([8388609.0, 16777215.0, 0.49999997, -0.49999997, 2.5, -2.5, -0.5], dtype="float32")
    np.testing.assert_array_equal(core.round(x).numpy(),
                                  [8388609.0, 16777215.0, 0.0, -0.0, 2.0, -2.0, -0.0])  # 3.3.1
    assert core.round(t([3, -4])).numpy().tolist() == [3, -4]  # integers stay as they are
    assert core.round(t([3, -4])).dtype == np.int64


def test_an_integer_tensor_and_a_float_scalar_compute_in_float32_as_paddle():
    x = t([7, -7])
    for got, want in [(x % 2.5, [2.0, 0.5]), (x // 2.5, [2.0, -3.0]), (x - 0.5, [6.5, -7.5]),
                      (x * 0.5, [3.5, -3.5]), (2.5 - x, [-4.5, 9.5]), (x + 0.5, [7.5, -6.5])]:
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got.numpy(), want)
    assert (x + 1).dtype == np.int64 and (x * 2).numpy().tolist() == [14, -14]


def test_prod_over_an_empty_axis_has_an_empty_gradient():
    x = t(np.zeros((3, 0)), grad=True)
    y = core.prod(x, axis=1)
    np.testing.assert_array_equal(y.numpy(), [1.0, 1.0, 1.0])
    core.sum(y).backward()
    assert x.grad.shape == [3, 0]
