"""Tensor functions and operators where core once disagreed with Paddle itself.

Every expected value here was produced by paddlepaddle 3.3.1 (CPU) on the same inputs, in a
throwaway environment (paddle is not a dependency of the project or of these tests).
"""
import numpy as np
import pytest

import core
from tests.gradcheck import check_grad


def t(values, dtype=None, grad=False):
    return core.to_tensor(np.asarray(values, dtype=dtype), stop_gradient=not grad)


# ----- round: halves to even --------------------------------------------------------------------

HALVES = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 0.49999997, -3.5]
HALVES_ROUNDED = [-2.0, -2.0, -0.0, 0.0, 2.0, 2.0, 4.0, 0.0, -4.0]  # paddlepaddle 3.3.1


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_round_takes_halves_to_even_as_paddle(dtype):
    out = core.round(t(HALVES, dtype))
    np.testing.assert_array_equal(out.numpy(), HALVES_ROUNDED)
    assert out.dtype == dtype
    assert np.signbit(out.numpy()[2])  # -0.5 rounds to -0.0
    np.testing.assert_array_equal(t(HALVES, dtype).round().numpy(), HALVES_ROUNDED)
    x = t(HALVES, dtype)
    x.round_()
    np.testing.assert_array_equal(x.numpy(), HALVES_ROUNDED)


def test_round_with_decimals_takes_halves_to_even_at_that_place():
    # paddlepaddle 3.3.1: round(x * 10**d) / 10**d with the half-to-even rounding
    np.testing.assert_allclose(core.round(t([0.25, -0.35, 1.45], "float64"), 1).numpy(),
                               [0.2, -0.4, 1.4], rtol=0, atol=1e-15)
    np.testing.assert_array_equal(core.round(t([125.0, -250.0, 14.0], "float64"), -1).numpy(),
                                  [120.0, -250.0, 10.0])


def test_quantile_nearest_takes_halves_to_even():
    x = t(np.arange(4), "float32")
    np.testing.assert_array_equal(
        core.quantile(x, [0.5, 1 / 6, 5 / 6], interpolation="nearest").numpy(), [2.0, 0.0, 2.0])
    y = t(np.arange(6), "float64")
    np.testing.assert_array_equal(
        core.quantile(y, [0.1, 0.3, 0.5, 0.7, 0.9], interpolation="nearest").numpy(),
        [0.0, 2.0, 2.0, 4.0, 4.0])
    rows = t([[0, 1, 2, 3], [4, 5, 6, 7]], "float32")
    np.testing.assert_array_equal(
        core.quantile(rows, 0.5, axis=1, interpolation="nearest").numpy(), [2.0, 6.0])
    with_nan = t([[0, 1, 2, np.nan], [4, 5, 6, 7]], "float32")
    np.testing.assert_array_equal(
        core.nanquantile(with_nan, [1 / 6, 0.5], axis=1, interpolation="nearest").numpy(),
        [[0.0, 4.0], [1.0, 6.0]])


def test_nanquantile_reads_an_infinite_neighbour_only_when_it_is_picked():
    x = t([1.0, np.nan, 3.0, -np.inf, np.inf, 0.0], "float32")
    np.testing.assert_array_equal(core.nanquantile(x, [0.25, 0.75]).numpy(), [0.0, 3.0])
    np.testing.assert_array_equal(core.nanquantile(x, 1.0, interpolation="lower").numpy(), np.inf)
    # Paddle gives NaN here (its lerp computes inf + 0 * (inf - inf)); numpy and core give inf
    np.testing.assert_array_equal(core.nanquantile(x, 1.0).numpy(), np.inf)


# ----- element-wise values -----------------------------------------------------------------------

def test_maximum_and_minimum_propagate_nan_from_either_side():
    x, y = t([np.nan, 1.0, 2.0], "float32"), t([2.0, np.nan, 1.0], "float32")
    np.testing.assert_array_equal(core.maximum(x, y).numpy(), [np.nan, np.nan, 2.0])
    np.testing.assert_array_equal(core.minimum(x, y).numpy(), [np.nan, np.nan, 1.0])
    np.testing.assert_array_equal(core.fmax(x, y).numpy(), [2.0, 1.0, 2.0])  # fmax skips NaN


def test_lgamma_of_minus_infinity_is_plus_infinity():
    out = core.lgamma(t([-np.inf, np.inf, 0.5], "float64"))
    np.testing.assert_allclose(out.numpy(), [np.inf, np.inf, 0.5723649429247001], rtol=1e-15)
    assert core.gammaln(t([-np.inf], "float32")).numpy()[0] == np.inf


@pytest.mark.parametrize("fn", [core.hypot, core.logaddexp])
def test_binary_float_functions_of_integers_are_float32(fn):
    out = fn(t([3, 4], "int32"), t([4, 3], "int32"))
    assert out.dtype == core.float32
    assert fn(t([3, 4], "int64"), t([4, 3], "int64")).dtype == core.float32
    assert fn(t([3.0], "float64"), t([4.0], "float64")).dtype == core.float64


def test_logit_of_integers_is_float32():
    assert core.logit(t([0, 1, 2], "int64")).dtype == core.float32
    assert core.logit(t([0.25], "float64")).dtype == core.float64


# ----- Python scalars meeting tensors ----------------------------------------------------------

def test_bool_tensor_and_python_int_compute_in_int64():
    m = t([True, False, True])
    for out, expected in [(m + 1, [2, 1, 2]), (m * -3, [-3, 0, -3]), (1 - m, [0, 1, 0]),
                          (m // 2, [0, 0, 0]), (m % 2, [1, 0, 1]), (2 ** m, [2, 1, 2])]:
        assert out.dtype == core.int64
        np.testing.assert_array_equal(out.numpy(), expected)
    half = m / -2  # was m / True: the -2 was cast to the bool dtype
    assert half.dtype == core.float32
    np.testing.assert_array_equal(half.numpy(), [-0.5, -0.0, -0.5])
    assert (m + True).dtype == core.bool and (m * 0.5).dtype == core.float32


def test_python_float_floor_divided_or_modded_by_an_int_tensor_is_float32():
    i = t([3, -4, 7], "int32")
    out = 2.5 // i
    assert out.dtype == core.float32
    np.testing.assert_array_equal(out.numpy(), [0.0, -1.0, 0.0])
    np.testing.assert_array_equal((2.5 % i).numpy(), [2.5, -1.5, 2.5])
    assert (7 // i).dtype == core.int32 and (7.5 % i).dtype == core.float32


# ----- creation, shapes, items -------------------------------------------------------------------

def test_shape_is_int64_and_full_of_a_bool_is_bool():
    assert core.shape(core.ones([2, 3])).dtype == core.int64
    out = core.full([2], True)
    assert out.dtype == core.bool
    np.testing.assert_array_equal(out.numpy(), [True, True])
    assert core.full([2], 3).dtype == core.float32  # numbers: the default float dtype


def test_item_takes_a_flat_index_or_a_position():
    x = t([[1.0, 2.0], [3.0, 4.0]], "float32")
    assert x.item(2) == 3.0 and isinstance(x.item(2), float)
    y = t([[1, 2], [3, 4]], "int32")
    assert y.item(1, 0) == 3 and isinstance(y.item(1, 0), int)
    assert t([5.0]).item() == 5.0
    with pytest.raises(IndexError, match="out of bounds"):
        x.item(4)
    with pytest.raises(ValueError, match="size 1"):
        x.item()


def test_trace_of_int32_stays_int32():
    x = t([[1, 2], [3, 4]], "int32")
    out = core.trace(x)
    assert out.dtype == core.int32 and int(out) == 5
    assert core.trace(t([[1, 2], [3, 4]], "int64"), 1).dtype == core.int64


def test_gather_nd_with_an_empty_last_index_axis_picks_all_of_x():
    x = t([[1.0, 2.0], [3.0, 4.0]], "float32")
    out = core.gather_nd(x, t(np.zeros((3, 0)), "int64"))
    assert out.shape == [3, 2, 2]
    np.testing.assert_array_equal(out.numpy(), [[[1, 2], [3, 4]]] * 3)
    a = np.random.default_rng(3).normal(size=(2, 3))
    check_grad(lambda v: core.gather_nd(v, t(np.zeros((2, 2, 0)), "int64")), a)


# ----- sorting and selection ----------------------------------------------------------------------

def test_descending_sort_puts_nan_first_as_the_largest_value():
    x = t([1.0, np.nan, 3.0, -np.inf, np.inf, 0.0], "float32")
    np.testing.assert_array_equal(core.argsort(x, descending=True).numpy(), [1, 4, 2, 0, 5, 3])
    np.testing.assert_array_equal(core.argsort(x).numpy(), [3, 5, 0, 2, 4, 1])  # NaN last
    y = t([np.nan, 2.0, np.nan, 1.0, -1.0, -0.0], "float32")
    np.testing.assert_array_equal(core.sort(y, descending=True).numpy(),
                                  [np.nan, np.nan, 2.0, 1.0, -0.0, -1.0])
    values, indices = core.topk(t([1.0, np.nan, 3.0], "float64"), 2)
    np.testing.assert_array_equal(values.numpy(), [np.nan, 3.0])
    np.testing.assert_array_equal(indices.numpy(), [1, 2])
    a = np.array([[3.0, np.nan, 1.0], [np.nan, 0.5, 2.0]])
    check_grad(lambda v: core.sort(v, axis=1, descending=True)[:, 1:], a)


def test_nonzero_as_tuple_and_where_of_a_condition_give_1d_index_tensors():
    x = t([[1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 3.0]], "float32")
    rows, cols = core.nonzero(x, as_tuple=True)
    assert rows.shape == [3] and rows.dtype == core.int64
    np.testing.assert_array_equal(cols.numpy(), [0, 1, 2])
    (only,) = core.where(t([0.9383, 0.1983, 3.2, 1.2], "float32") > 1)
    assert only.shape == [2]
    np.testing.assert_array_equal(only.numpy(), [2, 3])
    assert core.nonzero(x).shape == [3, 2]  # without as_tuple: [N, ndim] as before


def test_clip_of_integers_with_a_float_bound_is_float32():
    x = t([-5, 0, 5], "int32")
    for bounds, expected in [((-2.0, 3), [-2.0, 0.0, 3.0]), ((1.5, None), [1.5, 1.5, 5.0]),
                             ((None, 2.5), [-5.0, 0.0, 2.5]),
                             ((t(1.5, "float32"), None), [1.5, 1.5, 5.0])]:
        out = core.clip(x, *bounds)
        assert out.dtype == core.float32
        np.testing.assert_array_equal(out.numpy(), expected)
    out = core.clip(x, -2, 3)  # integer bounds: integer result
    assert out.dtype == core.int32
    np.testing.assert_array_equal(out.numpy(), [-2, 0, 3])
    with pytest.raises(ValueError, match=r"min \(3.5\) must not be greater than max \(1.0\)"):
        core.clip(x, 3.5, 1.0)


def test_copysign_of_integers_keeps_their_dtype():
    out = core.copysign(t([-2, 1, 3, 0], "int32"), t([1, 1, -1, -1], "int32"))
    assert out.dtype == core.int32
    np.testing.assert_array_equal(out.numpy(), [2, 1, -3, 0])
    mask = core.copysign(t([True, False]), t([True, True]))
    assert mask.dtype == core.bool
    np.testing.assert_array_equal(mask.numpy(), [True, False])
    assert core.copysign(t([-2.0], "float32"), t([1.0], "float32")).dtype == core.float32


def test_shift_operators_are_the_bitwise_shifts():
    x, y = t([-8, 3, 5], "int32"), t([1, 2, 0], "int32")
    for out, expected in [(x << y, [-16, 12, 5]), (x >> y, [-4, 0, 5]), (x << 1, [-16, 6, 10]),
                          (1 << y, [2, 4, 1]), (16 >> y, [8, 4, 16])]:
        assert out.dtype == core.int32
        np.testing.assert_array_equal(out.numpy(), expected)
    with pytest.raises(TypeError, match="y must be an integer Tensor or an int, got 1.5"):
        x << 1.5  # noqa: B018 - the operator is the test
    with pytest.raises(TypeError, match="'x' must be a Tensor, got float"):
        1.5 << x  # noqa: B018


def test_gather_with_a_0d_index_drops_the_axis():
    x = t(np.arange(12.0).reshape(3, 4), "float32")
    out = core.gather(x, t(1, "int64"), axis=1)
    assert out.shape == [3]
    np.testing.assert_array_equal(out.numpy(), [1.0, 5.0, 9.0])
    assert core.gather(x, t(2, "int64")).shape == [4]
    a = np.random.default_rng(5).normal(size=(3, 4))
    check_grad(lambda v: core.gather(v, t(2, "int64"), axis=-1), a)
    with pytest.raises(ValueError, match=r"index values must lie in 0..2 .*got 7..7"):
        core.gather(x, t(7, "int64"))


def test_negating_a_bool_tensor_gives_the_mask():
    m = t([True, False])
    for out in (-m, core.neg(m), core.negative(m)):
        assert out.dtype == core.bool
        np.testing.assert_array_equal(out.numpy(), [True, False])
    np.testing.assert_array_equal((-t([1, -2], "int32")).numpy(), [-1, 2])


def test_top_level_sigmoid_and_true_divide_as_paddle_331():
    """paddle.sigmoid and paddle.true_divide are top-level names in 3.3.1 (values from it)."""
    ints = core.to_tensor([3, 4], dtype="int32")
    quotient = core.true_divide(ints, core.to_tensor([2, 3], dtype="int32"))
    assert quotient.dtype == np.float32
    np.testing.assert_allclose(quotient.numpy(), [1.5, 1.33333337], rtol=1e-7)
    x = core.to_tensor([0.5, 1.0], stop_gradient=False)
    out = core.sigmoid(x)
    np.testing.assert_allclose(out.numpy(), [0.62245935, 0.73105860], rtol=1e-7)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), out.numpy() * (1 - out.numpy()), rtol=1e-6)


def test_dot_of_int32_stays_int32_as_paddle_331():
    a = core.to_tensor([[3, 4], [1, -2]], dtype="int32")
    out = core.dot(a, a)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out.numpy(), [25, 5])
