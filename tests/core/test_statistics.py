"""core/statistics.py: amax / amin, median, quantile, nansum, nanmean, count_nonzero, bincount
and histogram: values against numpy and torch, Paddle's documented examples, gradients against
float64 finite differences."""
import numpy as np
import pytest

import core
from tests.gradcheck import check_grad

rng = np.random.default_rng(71)


def t(values, dtype=None, grad=False):
    return core.to_tensor(np.asarray(values), dtype=dtype, stop_gradient=not grad)



# ----- reductions -----------------------------------------------------------------------------

@pytest.mark.parametrize("axis", [None, 0, 1, [0, 1]])
@pytest.mark.parametrize("keepdim", [False, True])
def test_amax_amin_values_and_gradients(axis, keepdim):
    a = rng.normal(size=(3, 4))
    ax = None if axis is None else tuple(np.atleast_1d(axis))
    np.testing.assert_allclose(core.amax(t(a), axis, keepdim).numpy(),
                               a.max(axis=ax, keepdims=keepdim))
    np.testing.assert_allclose(t(a).amin(axis, keepdim).numpy(), a.min(axis=ax, keepdims=keepdim))
    check_grad(lambda x: core.amax(x, axis, keepdim), a)
    check_grad(lambda x: core.amin(x, axis, keepdim), a)


def test_amax_splits_the_gradient_among_ties_where_max_picks_one():
    # Paddle's docs: amax distributes the gradient evenly between equal maxima.
    x = t([[0.1, 0.9, 0.9, 0.9], [0.9, 0.9, 0.6, 0.7]], grad=True)
    core.amax(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0, 0.2, 0.2, 0.2], [0.2, 0.2, 0, 0]],
                               rtol=1e-6)
    y = t([[0.2, 0.1, 0.1, 0.1], [0.1, 0.1, 0.6, 0.7]], grad=True)
    core.amin(y, axis=1).sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), [[0, 1 / 3, 1 / 3, 1 / 3], [0.5, 0.5, 0, 0]],
                               rtol=1e-6)
    z = t([[0.1, 0.9, 0.9, 0.9]], grad=True)
    core.max(z).backward()
    assert z.grad.numpy().sum() == pytest.approx(1.0) and (z.grad.numpy() > 0).sum() == 1


def test_median_follows_paddles_examples():
    x = core.arange(12).reshape([3, 4])
    y1 = core.median(x)
    assert y1.dtype == np.float32 and y1.shape == [] and y1.item() == 5.5
    np.testing.assert_allclose(core.median(x, axis=0).numpy(), [4, 5, 6, 7])
    np.testing.assert_allclose(core.median(x, axis=1).numpy(), [1.5, 5.5, 9.5])
    np.testing.assert_allclose(core.median(x, axis=0, keepdim=True).numpy(), [[4, 5, 6, 7]])
    values, index = core.median(x, axis=1, mode="min")
    np.testing.assert_array_equal(values.numpy(), [1, 5, 9])
    assert values.dtype == np.int64 and index.dtype == np.int64
    np.testing.assert_array_equal(index.numpy(), [1, 1, 1])
    assert core.median(x, mode="min").item() == 5
    assert core.median(t(np.ones(3))).dtype == np.float64
    with pytest.raises(ValueError, match="median: mode"):
        core.median(x, mode="max")


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_median_gradients_and_torch(axis, keepdim):
    a = rng.normal(size=(3, 5))
    check_grad(lambda x: core.median(x, axis, keepdim), a)
    even = rng.normal(size=(4, 6))
    check_grad(lambda x: core.median(x, axis, keepdim), even)
    check_grad(lambda x: x.median(axis, keepdim, mode="min")[0] if axis is not None
               else x.median(mode="min"), even)
    torch = pytest.importorskip("torch")  # torch's median is the lower middle (Paddle's 'min')
    ta = torch.tensor(a)
    want = ta.median() if axis is None else ta.median(dim=axis, keepdim=keepdim).values
    np.testing.assert_allclose(core.median(t(a), axis, keepdim).numpy(), want.numpy())
    np.testing.assert_allclose(core.median(t(even), axis, keepdim).numpy(),
                               np.median(even, axis=axis, keepdims=keepdim))


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "nearest", "midpoint"])
@pytest.mark.parametrize("axis", [None, 1, [0, 2]])
def test_quantile_values_gradients_and_torch(interpolation, axis):
    torch = pytest.importorskip("torch")
    a = rng.normal(size=(3, 4, 5))
    q = [0.1, 0.5, 0.8]
    got = core.quantile(t(a), q, axis, interpolation=interpolation)
    if isinstance(axis, list):
        flat = np.moveaxis(a, axis, [-2, -1]).reshape(4, -1)
        want = torch.quantile(torch.tensor(flat), torch.tensor(q, dtype=torch.float64), dim=-1,
                              interpolation=interpolation).numpy()
    else:
        want = torch.quantile(torch.tensor(a), torch.tensor(q, dtype=torch.float64), dim=axis,
                              interpolation=interpolation).numpy()
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    check_grad(lambda x: core.quantile(x, q, axis, interpolation=interpolation), a)
    check_grad(lambda x: x.quantile(0.3, axis, True, interpolation=interpolation), a)


def test_quantile_shapes_dtypes_and_errors():
    a = np.arange(10.0)
    assert core.quantile(t(a), 0.35).item() == pytest.approx(np.quantile(a, 0.35))
    assert core.quantile(t(a), [0.35]).shape == [1]
    assert core.quantile(t(np.ones((2, 3))), 0.5, axis=1, keepdim=True).shape == [2, 1]
    assert core.quantile(t([1, 2, 3]), 0.5).dtype == np.float32
    with pytest.raises(ValueError, match="quantile: q must"):
        core.quantile(t(a), 1.5)
    with pytest.raises(ValueError, match="quantile: interpolation"):
        core.quantile(t(a), 0.5, interpolation="cubic")


def test_nansum_nanmean_and_count_nonzero():
    torch = pytest.importorskip("torch")
    a = rng.normal(size=(3, 4))
    a[0, 1] = a[2, 3] = np.nan
    for axis in (None, 0, 1):
        np.testing.assert_allclose(core.nansum(t(a), axis).numpy(), np.nansum(a, axis=axis))
        np.testing.assert_allclose(core.nanmean(t(a), axis).numpy(), np.nanmean(a, axis=axis))
        np.testing.assert_allclose(
            t(a).nanmean(axis, keepdim=True).numpy(),
            (torch.nanmean(torch.tensor(a), dim=axis, keepdim=True) if axis is not None
             else torch.nanmean(torch.tensor(a)).reshape(1, 1)).numpy())
        check_grad(lambda x, axis=axis: core.nansum(x, axis), a)
        check_grad(lambda x, axis=axis: core.nanmean(x, axis), a)
    x = t([[0, 1, 2], [0, 0, 3]])
    np.testing.assert_array_equal(core.count_nonzero(x, axis=1).numpy(), [2, 1])
    assert core.count_nonzero(x).item() == 3 and core.count_nonzero(x).dtype == np.int64
    assert x.count_nonzero(axis=0, keepdim=True).shape == [1, 3]
    with pytest.raises(TypeError, match="nanmean: x must be a floating"):
        core.nanmean(x)


def test_bincount_and_histogram():
    torch = pytest.importorskip("torch")
    x = np.array([1, 1, 4, 0, 2])
    np.testing.assert_array_equal(core.bincount(t(x)).numpy(), [1, 2, 1, 0, 1])
    w = rng.uniform(size=5)
    np.testing.assert_allclose(core.bincount(t(x), t(w), minlength=7).numpy(),
                               torch.bincount(torch.tensor(x), torch.tensor(w), 7).numpy())
    assert core.bincount(t(x)).dtype == np.int64
    # Paddle's example
    np.testing.assert_array_equal(core.histogram(t([1, 2, 1]), bins=4, min=0, max=3).numpy(),
                                  [0, 2, 1, 0])
    data = rng.normal(size=50)
    np.testing.assert_array_equal(
        core.histogram(t(data), bins=7).numpy(),
        torch.histc(torch.tensor(data), bins=7).numpy().astype("int64"))
    assert core.histogram(t(data), 5, -1, 1).numpy().sum() == ((data >= -1) & (data <= 1)).sum()
    dens = core.histogram(t(data), 5, density=True)
    assert dens.dtype == np.float32
    np.testing.assert_allclose(dens.numpy().sum() * (data.max() - data.min()) / 5, 1, rtol=1e-5)
    np.testing.assert_array_equal(core.histogram(t([2.0, 2.0]), 2).numpy(), [0, 2])
    with pytest.raises(ValueError, match="bincount: x must be non-negative"):
        core.bincount(t([-1, 2]))
    with pytest.raises(ValueError, match="histogram: bins must be a positive int"):
        core.histogram(t(data), 0)
    with pytest.raises(ValueError, match="histogram: max must not be less than min"):
        core.histogram(t(data), 3, 2, 1)


def test_order_statistics_of_an_empty_batch():
    # QA regression: a kept dimension of size 0 (an empty batch) made the merged-axis reshape
    # ambiguous (numpy's "cannot reshape array of size 0"); the results are empty, as torch's.
    x = t(np.zeros((0, 3)), grad=True)
    assert core.median(x, axis=1).shape == [0]
    assert [r.shape for r in core.median(x, axis=1, mode="min")] == [[0], [0]]
    assert core.quantile(x, [0.2, 0.5], axis=1, keepdim=True).shape == [2, 0, 1]
    assert [r.shape for r in core.nanmedian(x, axis=1, mode="min")] == [[0], [0]]
    y = core.nanquantile(x, [0.2, 0.5], axis=1)
    assert y.shape == [2, 0]
    y.sum().backward()
    assert x.grad.shape == [0, 3]


# ----- var / std with one element per reduction ------------------------------------------------

@pytest.mark.parametrize("keepdim", [False, True])
def test_var_std_over_an_axis_of_length_one_are_zero_with_finite_gradients(keepdim):
    # Paddle divides by max(n - 1, 1) (its var: where(n > 1, n - 1, 1)), so one element per
    # row gives 0 where 0 / 0 would be NaN; the gradient is 0 (std is 0 for every x).
    a = rng.normal(size=(3, 1, 2))
    for fn in (core.var, core.std):
        out = fn(t(a), axis=1, keepdim=keepdim)
        assert out.shape == ([3, 1, 2] if keepdim else [3, 2])
        np.testing.assert_array_equal(out.numpy(), 0.0)
        np.testing.assert_array_equal(getattr(t(a), fn.__name__)(1).numpy(), 0.0)
        check_grad(lambda x, fn=fn: fn(x, axis=1, keepdim=keepdim), a)
        check_grad(lambda x, fn=fn: fn(x, axis=[1, 2]), a)  # two elements: the usual n - 1
    x = t(a, grad=True)
    core.std(x, axis=1).sum().backward()
    assert np.isfinite(x.grad.numpy()).all()
