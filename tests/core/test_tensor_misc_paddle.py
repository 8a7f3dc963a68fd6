"""Paddle 3's trapezoid / cumulative_trapezoid, cartesian_prod / combinations, crop, reduce_as,
renorm, multiplex, shard_index, bit shifts and increment: values against numpy and torch,
float64 finite-difference gradients, and the errors for bad arguments."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import core
from tests.gradcheck import check_grad

RNG = np.random.default_rng(0)
Y = RNG.standard_normal((3, 5))


# ----- trapezoid / cumulative_trapezoid ----------------------------------------------------------

@pytest.mark.parametrize("axis", [-1, 0])
def test_trapezoid_matches_numpy(axis):
    y = core.to_tensor(Y)
    np.testing.assert_allclose(core.trapezoid(y, axis=axis).numpy(), np.trapezoid(Y, axis=axis))
    np.testing.assert_allclose(core.trapezoid(y, dx=0.5, axis=axis).numpy(),
                               np.trapezoid(Y, dx=0.5, axis=axis))
    points = np.sort(RNG.standard_normal(Y.shape[axis]))
    np.testing.assert_allclose(core.trapezoid(y, x=core.to_tensor(points), axis=axis).numpy(),
                               np.trapezoid(Y, x=points, axis=axis))
    assert y.trapezoid(axis=axis).shape == list(np.trapezoid(Y, axis=axis).shape)


def test_cumulative_trapezoid_matches_torch():
    torch = pytest.importorskip("torch")
    y, x = core.to_tensor(Y), np.cumsum(RNG.random(Y.shape), axis=1)
    np.testing.assert_allclose(
        core.cumulative_trapezoid(y, x=core.to_tensor(x)).numpy(),
        torch.cumulative_trapezoid(torch.tensor(Y), x=torch.tensor(x)).numpy())
    np.testing.assert_allclose(core.cumulative_trapezoid(y, dx=2.0, axis=0).numpy(),
                               torch.cumulative_trapezoid(torch.tensor(Y), dx=2.0, dim=0).numpy())
    assert y.cumulative_trapezoid().shape == [3, 4]


def test_trapezoid_gradients_reach_y_and_x():
    points = np.cumsum(RNG.random(5)) + 0.1
    check_grad(lambda y, x: core.trapezoid(y, x=x), Y, points)
    check_grad(lambda y, x: core.cumulative_trapezoid(y, x=x, axis=1), Y, RNG.random(Y.shape))
    check_grad(lambda y: core.cumulative_trapezoid(y, dx=0.3, axis=0), Y)


def test_trapezoid_bad_arguments():
    y = core.to_tensor(Y)
    with pytest.raises(ValueError, match="trapezoid: give x or dx, not both"):
        core.trapezoid(y, x=core.to_tensor(np.arange(5.0)), dx=1.0)
    with pytest.raises(ValueError, match=r"a 1-D x must have as many points as y has along"):
        core.trapezoid(y, x=core.to_tensor(np.arange(4.0)))
    with pytest.raises(ValueError, match=r"x must be 1-D or have y's shape"):
        core.cumulative_trapezoid(y, x=core.to_tensor(np.ones((2, 5))))
    with pytest.raises(TypeError, match="trapezoid: y must be a float tensor"):
        core.trapezoid(core.to_tensor([1, 2]))
    with pytest.raises(TypeError, match="trapezoid: dx must be a number"):
        core.trapezoid(y, dx="1")


# ----- cartesian_prod / combinations ---------------------------------------------------------

def test_cartesian_prod_matches_torch_and_itertools():
    a, b, c = np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0]), np.array([6.0, 7.0])
    out = core.cartesian_prod([core.to_tensor(a), core.to_tensor(b), core.to_tensor(c)])
    np.testing.assert_array_equal(out.numpy(), np.array(list(itertools.product(a, b, c))))
    single = core.to_tensor(a)
    assert core.cartesian_prod([single]) is single
    torch = pytest.importorskip("torch")
    np.testing.assert_array_equal(
        core.cartesian_prod([core.to_tensor(a), core.to_tensor(b)]).numpy(),
        torch.cartesian_prod(torch.tensor(a), torch.tensor(b)).numpy())


def test_cartesian_prod_gradient():
    check_grad(lambda a, b: core.cartesian_prod([a, b]), RNG.random(3), RNG.random(4))


def test_cartesian_prod_bad_arguments():
    with pytest.raises(TypeError, match="cartesian_prod: x must be a non-empty list"):
        core.cartesian_prod(core.ones([3]))
    with pytest.raises(ValueError, match=r"cartesian_prod: x\[1\] must be 1-D"):
        core.cartesian_prod([core.ones([3]), core.ones([2, 2])])
    with pytest.raises(TypeError, match="must have the same dtype"):
        core.cartesian_prod([core.ones([3]), core.ones([2], dtype="int64")])


@pytest.mark.parametrize("r, replace", [(2, False), (3, False), (2, True), (3, True)])
def test_combinations_match_itertools_and_torch(r, replace):
    a = np.array([1.0, 2.0, 3.0, 4.0])
    choose = itertools.combinations_with_replacement if replace else itertools.combinations
    out = core.combinations(core.to_tensor(a), r, replace)
    np.testing.assert_array_equal(out.numpy(), np.array(list(choose(a, r))))
    torch = pytest.importorskip("torch")
    np.testing.assert_array_equal(
        out.numpy(), torch.combinations(torch.tensor(a), r, replace).numpy())


def test_combinations_empty_results_have_torchs_shapes():
    x = core.to_tensor([1.0, 2.0])
    assert core.combinations(x, 0).shape == [0]
    assert core.combinations(x, 3).shape == [0, 3]
    assert x.combinations(2).shape == [1, 2]


def test_combinations_gradient_adds_up_repeated_picks():
    check_grad(lambda a: core.combinations(a, 2, with_replacement=True), RNG.random(4))
    check_grad(lambda a: core.combinations(a, 3), RNG.random(5))


def test_combinations_bad_arguments():
    with pytest.raises(ValueError, match="combinations: x must be 1-D"):
        core.combinations(core.ones([2, 2]))
    with pytest.raises(ValueError, match="combinations: r must be an int >= 0"):
        core.combinations(core.ones([3]), -1)


# ----- crop / reduce_as / renorm ---------------------------------------------------------------

def test_crop_follows_paddles_examples():
    x = core.to_tensor([[0, 1, 2, 0, 0], [0, 3, 4, 0, 0], [0, 0, 0, 0, 0]])
    assert core.crop(x, shape=[2, 2], offsets=[0, 1]).tolist() == [[1, 2], [3, 4]]
    x3 = np.arange(24).reshape(2, 3, 4)
    out = core.crop(core.to_tensor(x3), shape=[2, 2, -1], offsets=[0, 0, 1])
    np.testing.assert_array_equal(out.numpy(), x3[:2, :2, 1:])
    np.testing.assert_array_equal(core.crop(core.to_tensor(x3)).numpy(), x3)
    shape = core.to_tensor([1, 2, 2])
    np.testing.assert_array_equal(core.to_tensor(x3).crop(shape, [1, 1, 2]).numpy(),
                                  x3[1:2, 1:3, 2:4])


def test_crop_gradient():
    check_grad(lambda x: core.crop(x, [2, 3], [1, 1]), Y)


def test_crop_bad_arguments():
    x = core.ones([3, 5])
    with pytest.raises(ValueError, match="crop: shape needs one value per dimension"):
        core.crop(x, [2])
    with pytest.raises(ValueError, match="do not fit x's size 5 there"):
        core.crop(x, [2, 3], [0, 3])
    with pytest.raises(TypeError, match="crop: offsets must hold ints"):
        core.crop(x, [2, 3], [0, 1.5])


def test_reduce_as_matches_paddles_example_and_torch():
    x = core.to_tensor([[1, 2, 3, 4], [5, 6, 7, 8]])
    assert core.reduce_as(x, core.to_tensor([1, 2, 3, 4])).tolist() == [6, 8, 10, 12]
    a = RNG.standard_normal((2, 3, 4))
    out = core.reduce_as(core.to_tensor(a), core.ones([3, 1]))
    np.testing.assert_allclose(out.numpy(), a.sum(axis=(0, 2))[:, None])
    torch = pytest.importorskip("torch")
    np.testing.assert_allclose(out.numpy(), torch.tensor(a).sum_to_size(3, 1).numpy())


def test_reduce_as_dtypes():
    assert core.reduce_as(core.ones([2, 3], dtype="int32"), core.ones([3])).dtype == np.int64
    assert core.reduce_as(core.ones([2, 3], dtype="bool"), core.ones([3])).tolist() == [2, 2, 2]
    assert core.reduce_as(core.ones([2, 3]), core.ones([3])).dtype == np.float32


def test_reduce_as_gradient():
    check_grad(lambda x: core.reduce_as(x, core.ones([1, 4])), RNG.random((2, 3, 4)))
    check_grad(lambda x: core.to_tensor(np.ones((3, 1))).add(x).reduce_as(x), Y[:, :1])


def test_reduce_as_bad_target():
    with pytest.raises(ValueError, match=r"reduce_as: target's shape \[4\] must broadcast"):
        core.reduce_as(core.ones([2, 3]), core.ones([4]))
    with pytest.raises(ValueError, match="must broadcast"):
        core.reduce_as(core.ones([3]), core.ones([2, 3]))


@pytest.mark.parametrize("p, axis, max_norm", [(2, 1, 1.0), (1, 0, 2.0), (3.0, -1, 0.5),
                                             (float("inf"), 1, 0.8)])
def test_renorm_matches_torch(p, axis, max_norm):
    torch = pytest.importorskip("torch")
    a = RNG.standard_normal((3, 4, 2))
    expected = torch.renorm(torch.tensor(a), p, axis % 3, max_norm).numpy()
    np.testing.assert_allclose(core.renorm(core.to_tensor(a), p, axis, max_norm).numpy(),
                               expected, rtol=1e-12)
    np.testing.assert_allclose(core.to_tensor(a).renorm(p, axis, max_norm).numpy(), expected)


def test_renorm_gradient_matches_torch_and_finite_differences():
    torch = pytest.importorskip("torch")
    a = RNG.standard_normal((3, 4))
    check_grad(lambda x: core.renorm(x, 2, 0, 1.0), a)
    t = torch.tensor(a, requires_grad=True)
    torch.renorm(t, 2, 0, 1.0).sum().backward()
    x = core.to_tensor(a, stop_gradient=False)
    core.renorm(x, 2, 0, 1.0).sum().backward()
    np.testing.assert_allclose(x.gradient(), t.grad.numpy(), rtol=1e-10)


def test_renorm_bad_arguments():
    x = core.ones([2, 2])
    with pytest.raises(ValueError, match="renorm: p must be > 0"):
        core.renorm(x, 0, 0, 1.0)
    with pytest.raises(ValueError, match="renorm: max_norm must be >= 0"):
        core.renorm(x, 2, 0, -1.0)
    with pytest.raises(TypeError, match="renorm: x must be a float tensor"):
        core.renorm(core.ones([2], dtype="int64"), 2, 0, 1.0)


# ----- multiplex / shard_index ------------------------------------------------------------

def test_multiplex_picks_row_i_from_input_index_i():
    inputs = [core.to_tensor(np.full((4, 3), k, np.float32) + np.arange(4)[:, None] / 10)
              for k in range(4)]
    out = core.multiplex(inputs, core.to_tensor([[3], [0], [1], [2]], dtype="int32"))
    np.testing.assert_allclose(out.numpy()[:, 0], [3.0, 0.1, 1.2, 2.3], rtol=1e-6)
    pair = [core.to_tensor([[1.0, 2.0], [3.0, 4.0]]), core.to_tensor([[5.0, 6.0], [7.0, 8.0]])]
    assert core.multiplex(pair, core.to_tensor([[1], [0]])).tolist() == [[5, 6], [3, 4]]


def test_multiplex_gradient_goes_to_the_rows_taken():
    index = core.to_tensor([[1], [0], [1]])
    check_grad(lambda a, b: core.multiplex([a, b], index), RNG.random((3, 2)),
               RNG.random((3, 2)))


def test_multiplex_bad_arguments():
    pair = [core.ones([2, 2]), core.ones([2, 2])]
    with pytest.raises(ValueError, match=r"index must be an int tensor of shape \[2, 1\]"):
        core.multiplex(pair, core.to_tensor([1, 0]))
    with pytest.raises(ValueError, match=r"the values in index must be in \[0, 2\)"):
        core.multiplex(pair, core.to_tensor([[2], [0]]))
    with pytest.raises(ValueError, match="share one shape of at least 2 dimensions"):
        core.multiplex([core.ones([2, 2]), core.ones([2, 3])], core.to_tensor([[0], [1]]))
    with pytest.raises(TypeError, match="inputs must be a non-empty list"):
        core.multiplex(core.ones([2, 2]), core.to_tensor([[0], [1]]))


def test_shard_index_follows_paddles_formula():
    label = core.to_tensor([[16], [1], [10], [19]])
    assert core.shard_index(label, 20, 2, 0).tolist() == [[-1], [1], [-1], [-1]]
    assert core.shard_index(label, 20, 2, 1, ignore_value=-5).tolist() == [[6], [-5], [0], [9]]
    # 3 shards of ceil(20 / 3) = 7 values: shard 2 holds 14..19
    out = core.shard_index(label.astype("int32"), 20, 3, 2)
    assert out.dtype == np.int32 and out.tolist() == [[2], [-1], [-1], [5]]


def test_shard_index_bad_arguments():
    label = core.to_tensor([[3]])
    with pytest.raises(ValueError, match=r"shard_id must be in \[0, nshards=2\)"):
        core.shard_index(label, 20, 2, 2)
    with pytest.raises(ValueError, match="input's last dimension must be 1"):
        core.shard_index(core.to_tensor([3, 4]), 20, 2, 0)
    with pytest.raises(ValueError, match=r"every value of input must be in \[0, index_num=3\)"):
        core.shard_index(label, 3, 2, 0)
    with pytest.raises(TypeError, match="shard_index: input must be an int tensor"):
        core.shard_index(core.to_tensor([[3.0]]), 20, 2, 0)
    with pytest.raises(TypeError, match="shard_index: nshards must be an int"):
        core.shard_index(label, 20, 2.0, 0)


# ----- bit shifts -----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint8"])
def test_shifts_match_numpy_and_torch(dtype):
    info = np.iinfo(dtype)
    a = RNG.integers(info.min, info.max, size=20, endpoint=True).astype(dtype)
    b = RNG.integers(0, info.bits, size=20).astype(dtype)
    x, y = core.to_tensor(a), core.to_tensor(b)
    np.testing.assert_array_equal(core.bitwise_left_shift(x, y).numpy(), np.left_shift(a, b))
    np.testing.assert_array_equal(x.bitwise_right_shift(y).numpy(), np.right_shift(a, b))
    unsigned = a.view(f"uint{info.bits}")
    np.testing.assert_array_equal(
        core.bitwise_right_shift(x, y, is_arithmetic=False).numpy(),
        np.right_shift(unsigned, b.astype(unsigned.dtype)).view(dtype))
    torch = pytest.importorskip("torch")
    np.testing.assert_array_equal(
        core.bitwise_left_shift(x, y).numpy(),
        torch.bitwise_left_shift(torch.tensor(a), torch.tensor(b)).numpy())


def test_shifts_out_of_range_and_scalar_amounts():
    x = core.to_tensor(np.array([-8, 8], np.int8))
    assert core.bitwise_right_shift(x, core.to_tensor(np.array([9, 9], np.int8))).tolist() \
        == [-1, 0]
    assert core.bitwise_left_shift(x, core.to_tensor(np.array([8, -1], np.int8))).tolist() \
        == [0, 0]
    assert core.bitwise_right_shift(x, 2, is_arithmetic=False).tolist() == [62, 2]
    out = core.zeros([2], dtype="int8")
    assert core.bitwise_left_shift(x, 1, out=out) is out and out.tolist() == [-16, 16]


def test_shifts_bad_arguments():
    with pytest.raises(TypeError, match="bitwise_left_shift: x must be an integer tensor"):
        core.bitwise_left_shift(core.ones([2]), 1)
    with pytest.raises(TypeError, match="y must have x's dtype int64, got int32"):
        core.bitwise_right_shift(core.to_tensor([1]), core.to_tensor([1], dtype="int32"))
    with pytest.raises(TypeError, match="y must be an integer Tensor or an int"):
        core.bitwise_right_shift(core.to_tensor([1]), 1.0)


# ----- increment ------------------------------------------------------------------------

def test_increment_adds_in_place():
    counter = core.to_tensor([0.0])
    assert core.increment(counter) is counter and counter.tolist() == [1.0]
    step = core.to_tensor(np.array([3], np.int64))
    step.increment(2)
    assert step.tolist() == [5] and step.dtype == np.int64


def test_increment_bad_arguments():
    with pytest.raises(ValueError, match=r"increment: x must have exactly 1 element"):
        core.increment(core.zeros([2]))
    with pytest.raises(TypeError, match="increment: value must be a number"):
        core.increment(core.zeros([1]), "1")
    leaf = core.to_tensor([1.0], stop_gradient=False)
    with pytest.raises(ValueError, match="needs a gradient"):
        core.increment(leaf)


# ----- histogram_bin_edges --------------------------------------------------------------

def test_histogram_bin_edges_match_numpy_and_histogram():
    a = RNG.standard_normal(50).astype(np.float32)
    x = core.to_tensor(a)
    edges = core.histogram_bin_edges(x, bins=8)
    assert edges.dtype == np.float32 and edges.shape == [9]
    np.testing.assert_allclose(edges.numpy(), np.histogram_bin_edges(a, bins=8), rtol=1e-6,
                               atol=1e-6)
    counts = core.histogram(x, bins=8).numpy()
    np.testing.assert_array_equal(counts, np.histogram(a, bins=edges.numpy())[0])
    np.testing.assert_allclose(core.histogram_bin_edges(x, 4, -2.0, 2.0).numpy(),
                               [-2, -1, 0, 1, 2])
    assert core.histogram_bin_edges(core.to_tensor([3, 3]), 2).tolist() == [2.0, 3.0, 4.0]


def test_histogram_bin_edges_bad_arguments():
    with pytest.raises(ValueError, match="histogram_bin_edges: bins must be a positive int"):
        core.histogram_bin_edges(core.ones([3]), 0)
    with pytest.raises(ValueError, match="max must not be less than min"):
        core.histogram_bin_edges(core.ones([3]), 4, 1.0, 0.0)
