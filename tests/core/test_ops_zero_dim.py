"""Reductions on a 0-D tensor with ``axis`` 0 or -1: Paddle treats that axis as the whole tensor
(its zero-dim tests reduce ``paddle.rand([])`` with axis=0 and axis=-1 and get shape [] and the
value itself), so core does too; any other axis is an error naming it."""
import numpy as np
import pytest

import core
import core.nn.functional as F
from tests.gradcheck import check_grad


def scalar(value=0.7, grad=False):
    return core.to_tensor(np.float64(value), stop_gradient=not grad)


# The reductions that keep the element itself (Paddle's reduce_api_list, less all/any).
SAME_VALUE = {
    "sum": core.sum, "mean": core.mean, "max": core.max, "min": core.min, "prod": core.prod,
    "amax": core.amax, "amin": core.amin, "nansum": core.nansum, "nanmean": core.nanmean,
    "logsumexp": core.logsumexp, "median": core.median, "nanmedian": core.nanmedian,
}


@pytest.mark.parametrize("axis", [0, -1, [0], (-1,)])
@pytest.mark.parametrize("name", sorted(SAME_VALUE))
def test_reductions_of_a_0d_tensor_along_axis_0_or_minus_1(name, axis):
    fn = SAME_VALUE[name]
    if name == "median" and isinstance(axis, (list, tuple)):
        axis = axis[0]  # Paddle's median takes one int axis
    x = scalar(0.7)
    out = fn(x, axis=axis)
    assert out.shape == []
    np.testing.assert_allclose(out.numpy(), 0.7)
    assert fn(x, axis=axis, keepdim=True).shape == []
    check_grad(lambda v: fn(v, axis=axis), np.array(0.7))


@pytest.mark.parametrize("axis", [0, -1])
def test_tensor_methods_reduce_a_0d_tensor_along_axis_0(axis):
    x = scalar(2.5)
    for method in ("sum", "mean", "max", "min", "prod", "logsumexp", "amax", "amin"):
        out = getattr(x, method)(axis=axis)
        assert out.shape == [] and float(out) == pytest.approx(2.5), method
    assert x.argmax(axis).shape == [] and int(x.argmax(axis)) == 0
    assert x.argmin(axis=axis, keepdim=True).shape == []
    assert x.cumsum(axis).shape == [] and float(x.cumsum(axis)) == 2.5
    assert x.cumprod(axis).shape == [] and float(x.cumprod(axis)) == 2.5
    assert float(x.std(axis, unbiased=False)) == 0.0
    assert float(x.var(axis, unbiased=False)) == 0.0


@pytest.mark.parametrize("axis", [0, -1, [0]])
def test_any_all_count_nonzero_of_a_0d_tensor(axis):
    yes, no = core.to_tensor(True), core.to_tensor(False)
    assert core.any(yes, axis=axis).shape == [] and bool(core.any(yes, axis=axis))
    assert not bool(core.all(no, axis=axis))
    assert bool(yes.all(axis=axis)) and not bool(no.any(axis=axis))
    count = core.count_nonzero(scalar(3.0), axis=axis)
    assert count.shape == [] and int(count) == 1


@pytest.mark.parametrize("axis", [0, -1, None])
def test_argmax_argmin_of_a_0d_tensor_are_0(axis):
    x = scalar(-1.5)
    for fn in (core.argmax, core.argmin):
        out = fn(x, axis=axis)
        assert out.shape == [] and int(out) == 0 and out.dtype == core.int64


@pytest.mark.parametrize("axis", [0, -1, None])
def test_std_var_of_a_0d_tensor_as_paddle(axis):
    x = scalar(1.25)
    # One sample: Paddle's unbiased divisor is max(n - 1, 1), so 0 (its 0-D test: std(x) == 0).
    assert float(core.std(x, axis=axis)) == 0.0 and float(core.var(x, axis=axis)) == 0.0
    assert float(x.std(axis)) == 0.0 and float(x.var(axis)) == 0.0
    assert core.var(x, axis=axis, unbiased=False).shape == []
    np.testing.assert_allclose(core.std(x, axis=[axis] if axis is not None else axis,
                                        unbiased=False).numpy(), 0.0)
    for fn in (core.std, core.var):  # std is 0 for every x: its gradient is 0, not 0 / 0
        check_grad(lambda v, fn=fn: fn(v, axis=axis), np.array(1.25))
        check_grad(lambda v, fn=fn: fn(v, axis=axis, unbiased=False), np.array(1.25))


@pytest.mark.parametrize("fn", [core.cumsum, core.cumprod])
def test_running_ops_of_a_0d_tensor_keep_shape_along_an_axis(fn):
    # Paddle's zero-dim test_cumsum: axis=None flattens to shape [1]; axis 0 or -1 keeps [].
    x = scalar(1.5)
    assert fn(x, None).shape == [1]
    for axis in (0, -1):
        out = fn(x, axis)
        assert out.shape == [] and float(out) == 1.5
        check_grad(lambda v, axis=axis: fn(v, axis), np.array(1.5))
    check_grad(lambda v: fn(v, None), np.array(1.5))


@pytest.mark.parametrize("axis", [0, -1])
def test_softmax_of_a_0d_tensor_is_one(axis):
    x = scalar(3.0)
    assert F.softmax(x, axis=axis).shape == [] and float(F.softmax(x, axis=axis)) == 1.0
    assert float(F.softmax(x)) == 1.0  # the default axis, -1
    assert float(F.log_softmax(x, axis=axis)) == 0.0
    check_grad(lambda v: F.softmax(v, axis=axis) * v, np.array(3.0))
    check_grad(lambda v: F.log_softmax(v, axis=axis) + v * v, np.array(3.0))


def test_0d_reductions_match_torch():
    torch = pytest.importorskip("torch")
    tx = torch.tensor(0.3, dtype=torch.float64)
    x = scalar(0.3)
    pairs = [(core.sum(x, 0), torch.sum(tx, 0)), (core.mean(x, -1), torch.mean(tx, -1)),
             (core.prod(x, 0), torch.prod(tx, 0)), (core.amax(x, -1), torch.amax(tx, -1)),
             (core.logsumexp(x, 0), torch.logsumexp(tx, 0)),
             (core.cumsum(x, 0), torch.cumsum(tx, 0)), (core.cumprod(x, -1), torch.cumprod(tx, -1)),
             (F.softmax(x, 0), torch.softmax(tx, 0)),
             (F.log_softmax(x, -1), torch.log_softmax(tx, -1)),
             (core.argmax(x, 0), torch.argmax(tx, 0))]
    for ours, theirs in pairs:
        assert ours.shape == list(theirs.shape)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("call", [
    lambda x: core.sum(x, axis=1), lambda x: core.mean(x, axis=[-2]), lambda x: x.max(1),
    lambda x: core.argmax(x, axis=1), lambda x: core.cumsum(x, axis=1),
    lambda x: core.cumprod(x, dim=-2), lambda x: F.softmax(x, axis=1),
    lambda x: core.logsumexp(x, axis=2)])
def test_other_axes_of_a_0d_tensor_are_refused(call):
    with pytest.raises(ValueError, match=r"axis -?\d is out of range for a 0-D tensor; allowed "
                                         r"axes: 0 or -1"):
        call(scalar())


def test_0d_axis_errors_name_the_repeat_and_the_type():
    with pytest.raises(ValueError, match=r"sum: axis \[0, -1\] names the same axis twice"):
        core.sum(scalar(), axis=[0, -1])
    with pytest.raises(TypeError, match="mean: axis must be an int, got 0.5"):
        core.mean(scalar(), axis=0.5)
    with pytest.raises(TypeError, match="argmax: axis must be an int, got"):
        core.argmax(scalar(), axis="0")


@pytest.mark.parametrize("call", [lambda x: core.kthvalue(x, 1), lambda x: core.kthvalue(x, 1, 0),
                                  lambda x: core.mode(x), lambda x: core.mode(x, -1, True)])
def test_kthvalue_and_mode_of_a_0d_tensor_are_the_element_at_index_0(call):
    # Paddle's zero-dim tests: shapes [] and [], and the gradient 1 reaches the element.
    values, index = call(scalar(2.5))
    assert values.shape == [] and index.shape == [] and int(index) == 0
    assert float(values) == 2.5 and index.dtype == core.int64
    check_grad(lambda v: call(v)[0], np.array(2.5))


def test_kthvalue_and_mode_of_a_0d_tensor_refuse_other_axes_and_k():
    with pytest.raises(ValueError, match=r"kthvalue: k=2 must be an int in \[1, 1\]"):
        core.kthvalue(scalar(), 2)
    with pytest.raises(ValueError, match="mode: axis 1 is out of range for a 0-D tensor"):
        core.mode(scalar(), axis=1)


@pytest.mark.parametrize("axis", [0, -1, [0]])
def test_squeeze_flip_and_norm_take_axis_0_of_a_0d_tensor(axis):
    x = scalar(-2.0)
    assert core.squeeze(x, axis=axis).shape == [] and float(core.squeeze(x, axis)) == -2.0
    assert float(core.flip(x, axis)) == -2.0
    assert float(core.linalg.norm(x, axis=axis)) == 2.0


@pytest.mark.parametrize("name", ["logcumsumexp", "cummax", "cummin"])
def test_scans_of_a_0d_tensor_as_paddle(name):
    # Paddle: axis None flattens first (x.flatten() of a 0-D tensor is [1]; its zero-dim
    # test_logcumsumexp asserts shape [1]); axis 0 or -1 keeps shape [], the element itself.
    fn = getattr(core, name)
    x = scalar(1.5)
    first = lambda out: out[0] if isinstance(out, tuple) else out  # noqa: E731
    assert first(fn(x)).shape == [1] and float(first(fn(x))) == 1.5
    for axis in (0, -1):
        out = fn(x, axis=axis)
        assert first(out).shape == [] and float(first(out)) == 1.5
        assert first(getattr(x, name)(axis)).shape == []
        if isinstance(out, tuple):  # the index of a single element is 0
            assert out[1].shape == [] and int(out[1]) == 0 and out[1].dtype == core.int64
        check_grad(lambda v, axis=axis: first(fn(v, axis=axis)), np.array(1.5))
    check_grad(lambda v: first(fn(v)), np.array(1.5))
    if name != "logcumsumexp":
        assert fn(x)[1].shape == [1]
    for axis in (1, -2):  # the same refusal as the other 0-D reductions (check_scalar_axis)
        with pytest.raises(ValueError, match=rf"{name}: axis {axis} is out of range for a 0-D "
                                             r"tensor; allowed axes: 0 or -1"):
            fn(x, axis=axis)
