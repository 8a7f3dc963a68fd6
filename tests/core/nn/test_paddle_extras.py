"""Paddle names users reach for: max unpooling, the upsampling layers, pairwise distances,
alpha dropout, Gumbel-softmax, the temporal shift, and the multi-label margin, triplet (any
distance), dice, log and N-pair losses. Each against PyTorch where it has the op, else against
Paddle's documented formula written in numpy; float64 gradient checks; argument errors."""
from __future__ import annotations

import math

import numpy as np
import pytest

import core
from core import nn
from core.nn import functional as F
from runner import build
from runner.config import validation
from tests.gradcheck import check_grad

RNG = np.random.default_rng(7)


def _t(a, **kw):
    return core.to_tensor(np.asarray(a), **kw)


def _pool_with_indices(x: np.ndarray, kernel: int, stride: int) -> tuple[np.ndarray, np.ndarray]:
    """Max pooling of [N, C, *S] by hand, no padding, with Paddle's mask: each window's first
    maximum as a flat index into the input's spatial plane."""
    n, c, *size = x.shape
    outs = [(s - kernel) // stride + 1 for s in size]
    values = np.zeros((n, c, *outs), x.dtype)
    index = np.zeros((n, c, *outs), np.int64)
    for pos in np.ndindex(*outs):
        window = tuple(slice(p * stride, p * stride + kernel) for p in pos)
        block = x[(slice(None), slice(None)) + window].reshape(n, c, -1)
        best = block.argmax(-1)
        local = np.unravel_index(best, (kernel,) * len(size))
        coords = [p * stride + off for p, off in zip(pos, local)]
        values[(slice(None), slice(None)) + pos] = block.max(-1)
        index[(slice(None), slice(None)) + pos] = np.ravel_multi_index(coords, size)
    return values, index


# ----- max unpooling -----------------------------------------------------------------------------

UNPOOLS = {1: (F.max_unpool1d, nn.MaxUnPool1D), 2: (F.max_unpool2d, nn.MaxUnPool2D),
           3: (F.max_unpool3d, nn.MaxUnPool3D)}


@pytest.mark.parametrize("dims", [1, 2, 3])
@pytest.mark.parametrize("kernel, stride, padding", [(2, 2, 0), (3, 2, 1), (2, 1, 0)])
def test_max_unpool_matches_torch_with_torch_made_indices(dims, kernel, stride, padding):
    torch = pytest.importorskip("torch")
    size = {1: (2, 3, 9), 2: (2, 3, 7, 6), 3: (1, 2, 5, 6, 5)}[dims]
    x = RNG.standard_normal(size).astype(np.float32)
    pool = getattr(torch.nn.functional, f"max_pool{dims}d")
    unpool = getattr(torch.nn.functional, f"max_unpool{dims}d")
    pooled, indices = pool(torch.tensor(x), kernel, stride, padding, return_indices=True)
    # the input's own size: an odd size is beyond the default (torch's unpool fails there)
    want = unpool(pooled, indices, kernel, stride, padding, output_size=size[2:])
    fn, layer = UNPOOLS[dims]
    got = fn(_t(pooled.numpy()), _t(indices.numpy()), kernel, stride, padding,
             output_size=size[2:])
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert got.dtype == np.float32
    made = layer(kernel, stride, padding, output_size=size[2:])(_t(pooled.numpy()),
                                                                _t(indices.numpy()))
    np.testing.assert_array_equal(made.numpy(), want.numpy())


@pytest.mark.parametrize("dims", [1, 2, 3])
def test_max_unpool_output_size_matches_torch(dims):
    torch = pytest.importorskip("torch")
    size = {1: (1, 2, 9), 2: (1, 2, 7, 7), 3: (1, 1, 5, 5, 5)}[dims]
    x = torch.tensor(RNG.standard_normal(size).astype(np.float32))
    pool = getattr(torch.nn.functional, f"max_pool{dims}d")
    pooled, indices = pool(x, 2, 2, return_indices=True)
    want = getattr(torch.nn.functional, f"max_unpool{dims}d")(pooled, indices, 2, 2,
                                                               output_size=size[2:])
    fn = UNPOOLS[dims][0]
    got = fn(_t(pooled.numpy()), _t(indices.numpy()), 2, output_size=list(size))  # [N, C, ...]
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert got.shape == list(size)


def test_max_unpool3d_with_hand_made_indices_puts_each_maximum_back():
    x = RNG.standard_normal((2, 2, 4, 4, 6))
    pooled, index = _pool_with_indices(x, 2, 2)
    out = F.max_unpool3d(_t(pooled), _t(index), kernel_size=2).numpy()
    expected = np.where(np.isin(np.arange(x[0, 0].size), []), 0, 0) * 0.0  # shape below
    expected = np.zeros(x.shape)
    flat = expected.reshape(2, 2, -1)
    np.put_along_axis(flat, index.reshape(2, 2, -1), pooled.reshape(2, 2, -1), axis=2)
    np.testing.assert_array_equal(out, expected)
    # every window's maximum is where it came from, every other position zero
    assert np.count_nonzero(out) == pooled.size
    np.testing.assert_array_equal(out[out != 0], x[out != 0])


def test_max_unpool2d_with_hand_made_indices_and_a_max_pool2d_forward():
    x = RNG.random((2, 3, 6, 8)).astype(np.float32) + 0.1  # > 0: zeros never win a window
    pooled_core = F.max_pool2d(_t(x), 2, 2).numpy()
    pooled, index = _pool_with_indices(x, 2, 2)
    np.testing.assert_array_equal(pooled_core, pooled)  # the same maxima core's pool gives
    out = nn.MaxUnPool2D(2)(_t(pooled), _t(index)).numpy()
    pooled_again, _ = _pool_with_indices(out, 2, 2)
    np.testing.assert_array_equal(pooled_again, pooled)


@pytest.mark.parametrize("dims, name", [(1, "max_unpool1d"), (2, "max_unpool2d"),
                                        (3, "max_unpool3d"), (1, "MaxUnPool1D"),
                                        (2, "MaxUnPool2D"), (3, "MaxUnPool3D")])
def test_max_unpool_gradient_matches_finite_differences(dims, name):
    size = {1: (2, 2, 8), 2: (1, 2, 4, 6), 3: (1, 2, 4, 4, 4)}[dims]
    x = RNG.standard_normal(size)
    pooled, index = _pool_with_indices(x, 2, 2)
    fn = UNPOOLS[dims][0] if name.islower() else UNPOOLS[dims][1](2)
    check_grad(lambda a, i: fn(a, i, 2) if name.islower() else fn(a, i), pooled, index)


def test_max_unpool_gathers_the_gradient_of_shared_positions():
    # overlapping windows: two pooled values may name one position; both read its gradient
    pooled = _t(np.array([[[1.0, 2.0]]]), stop_gradient=False)
    index = _t(np.array([[[1, 1]]]))
    out = F.max_unpool1d(pooled, index, kernel_size=2, stride=1)
    # numpy: the last write wins; a GPU's scatter order is undefined (as Paddle's and torch's)
    assert out.numpy().tolist() in ([[[0.0, 2.0, 0.0]]], [[[0.0, 1.0, 0.0]]])
    if core.backend.xp() is np:
        assert out.numpy().tolist() == [[[0.0, 2.0, 0.0]]]
    (out * _t(np.array([[[5.0, 7.0, 9.0]]]))).sum().backward()
    assert pooled.gradient().tolist() == [[[7.0, 7.0]]]


@pytest.mark.parametrize("call, message", [
    (lambda x, i: F.max_unpool2d(x, i, 2, data_format="NHWC"), "data_format='NHWC'"),
    (lambda x, i: F.max_unpool2d(x, i, 0), "kernel_size=0"),
    (lambda x, i: F.max_unpool2d(x, i, 2, stride=[1, 2, 3]), "stride=[1, 2, 3]"),
    (lambda x, i: F.max_unpool2d(x, i, 2, padding=-1), "padding=-1"),
    (lambda x, i: F.max_unpool2d(x, i, 2, output_size=[9, 4]), "output_size=[9, 4]"),
    (lambda x, i: F.max_unpool2d(x, i, 2, output_size=[4]), "output_size=[4]"),
    (lambda x, i: F.max_unpool2d(x, i * 0 + 16, 2), "'indices' holds 16"),
    (lambda x, i: F.max_unpool2d(x, i * 0 - 1, 2), "'indices' holds -1"),
    (lambda x, i: F.max_unpool2d(x, x, 2), "'indices' must hold integers"),
    (lambda x, i: F.max_unpool2d(x, core.reshape(i, [1, 1, 4]), 2), "'indices' of shape"),
    (lambda x, i: F.max_unpool3d(x, i, 2), "'x' must be 5-D"),
    (lambda x, i: F.max_unpool2d(x.numpy(), i, 2), "'x' must be a core.Tensor"),
    (lambda x, i: nn.MaxUnPool1D(2, data_format="NLC"), "data_format='NLC'"),
])
def test_max_unpool_argument_errors_name_the_argument(call, message):
    x = _t(np.ones((1, 1, 2, 2), np.float32))
    i = _t(np.array([[[[0, 3], [8, 11]]]]))
    with pytest.raises((ValueError, TypeError)) as err:
        call(x, i)
    assert message in str(err.value)


# ----- upsampling ---------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [{"size": [7, 5]}, {"scale_factor": 2}, {"size": 3}])
def test_upsampling_layers_and_upsample_match_torch(kwargs):
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)
    tx = torch.tensor(x)
    nearest = torch.nn.UpsamplingNearest2d(**kwargs)(tx).numpy()
    bilinear = torch.nn.UpsamplingBilinear2d(**kwargs)(tx).numpy()
    np.testing.assert_allclose(nn.UpsamplingNearest2D(**kwargs)(_t(x)).numpy(), nearest,
                               atol=1e-6)
    np.testing.assert_allclose(nn.UpsamplingBilinear2D(**kwargs)(_t(x)).numpy(), bilinear,
                               atol=1e-5)
    np.testing.assert_allclose(F.upsample(_t(x), **kwargs).numpy(), nearest, atol=1e-6)
    np.testing.assert_allclose(F.upsample(_t(x), mode="bilinear", **kwargs).numpy(),
                               torch.nn.functional.interpolate(tx, mode="bilinear", **kwargs)
                               .numpy(), atol=1e-5)


def test_upsampling_layers_take_nhwc():
    x = RNG.standard_normal((1, 3, 4, 2)).astype(np.float32)
    nchw = nn.UpsamplingBilinear2D(size=[5, 7])(_t(x.transpose(0, 3, 1, 2))).numpy()
    nhwc = nn.UpsamplingBilinear2D(size=[5, 7], data_format="NHWC")(_t(x)).numpy()
    np.testing.assert_allclose(nhwc.transpose(0, 3, 1, 2), nchw, atol=1e-6)


@pytest.mark.parametrize("name", ["upsample", "UpsamplingNearest2D", "UpsamplingBilinear2D"])
def test_upsampling_gradient_matches_finite_differences(name):
    make = {"upsample": lambda: lambda x: F.upsample(x, scale_factor=2, mode="bilinear"),
            "UpsamplingNearest2D": lambda: nn.UpsamplingNearest2D(size=[5, 3]),
            "UpsamplingBilinear2D": lambda: nn.UpsamplingBilinear2D(scale_factor=2)}[name]
    check_grad(make(), RNG.standard_normal((1, 2, 3, 2)))


@pytest.mark.parametrize("call, message", [
    (lambda: nn.UpsamplingNearest2D(), "exactly one of size and scale_factor"),
    (lambda: nn.UpsamplingBilinear2D(size=4, scale_factor=2), "exactly one of size"),
    (lambda: nn.UpsamplingNearest2D(size=4, data_format="NCW"), "data_format"),
])
def test_upsampling_argument_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# ----- pairwise distance --------------------------------------------------------------------------

@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, 0.5, math.inf, -math.inf, 0.0])
@pytest.mark.parametrize("keepdim", [False, True])
def test_pairwise_distance_matches_torch(p, keepdim):
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal((5, 4)).astype(np.float32)
    y = RNG.standard_normal((5, 4)).astype(np.float32)
    want = torch.nn.functional.pairwise_distance(torch.tensor(x), torch.tensor(y), p=p,
                                                 eps=1e-6, keepdim=keepdim).numpy()
    got = F.pairwise_distance(_t(x), _t(y), p=p, keepdim=keepdim).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    layer = nn.PairwiseDistance(p=p, keepdim=keepdim)(_t(x), _t(y)).numpy()
    np.testing.assert_allclose(layer, want, rtol=1e-5, atol=1e-6)


def test_pairwise_distance_adds_epsilon_to_the_difference_as_paddles_example():
    x = _t(np.array([[1.0, 3.0], [3.0, 5.0]]))
    y = _t(np.array([[5.0, 6.0], [7.0, 8.0]]))
    # Paddle's docstring: [4.99999860, 4.99999860] = ||(-4 + 1e-6, -3 + 1e-6)||
    np.testing.assert_allclose(F.pairwise_distance(x, y).numpy(),
                               [4.99999860, 4.99999860], atol=1e-8)
    same = F.pairwise_distance(_t(np.ones(4)), _t(np.ones(4)))
    assert same.shape == [] and math.isclose(float(same), 2e-6)  # eps * sqrt(4), not 0
    assert F.pairwise_distance(_t(np.ones(4)), _t(np.ones(4)), keepdim=True).shape == [1]


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, 1.5, math.inf])
def test_pairwise_distance_gradient_matches_finite_differences(p):
    x, y = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))
    check_grad(lambda a, b: F.pairwise_distance(a, b, p=p), x, y)
    check_grad(lambda a, b: nn.PairwiseDistance(p=p, keepdim=True)(a, b), x, y[0])  # broadcast


@pytest.mark.parametrize("call, message", [
    (lambda x: F.pairwise_distance(x, x, p="2"), "p='2'"),
    (lambda x: F.pairwise_distance(x, x, p=math.nan), "p=nan"),
    (lambda x: F.pairwise_distance(x, x, epsilon=math.inf), "epsilon=inf"),
    (lambda x: F.pairwise_distance(x, _t(np.ones((2, 3)))), "do not broadcast"),
    (lambda x: F.pairwise_distance(x, _t(np.ones((3, 4), np.int64))), "y must be a floating"),
    (lambda x: nn.PairwiseDistance(p=None), "p=None"),
])
def test_pairwise_distance_argument_errors(call, message):
    with pytest.raises(ValueError) as err:
        call(_t(np.ones((3, 4), np.float32)))
    assert message in str(err.value)


# ----- alpha dropout ------------------------------------------------------------------------------

def test_alpha_dropout_keeps_zero_mean_and_unit_variance_of_selu_normal_input():
    core.seed(3)
    x = np.random.default_rng(0).standard_normal((400, 500)).astype(np.float32)
    for p in (0.1, 0.5):
        out = F.alpha_dropout(_t(x), p=p).numpy()
        assert abs(out.mean()) < 0.01 and abs(out.var() - 1.0) < 0.02
        alpha_p = -1.6732632423543772848170429916717 * 1.0507009873554804934193349852946
        a = ((1 - p) * (1 + p * alpha_p ** 2)) ** -0.5
        dropped = out == np.float32(a * alpha_p - a * alpha_p * p)  # a * alpha_p + b
        assert abs(dropped.mean() - p) < 0.01
    layer = nn.AlphaDropout(0.3)
    layer.eval()
    np.testing.assert_array_equal(layer(_t(x)).numpy(), x)  # the identity in eval mode
    np.testing.assert_array_equal(F.alpha_dropout(_t(x), 0.3, training=False).numpy(), x)


def test_alpha_dropout_matches_paddles_formula_for_its_mask():
    core.seed(5)
    x = RNG.standard_normal((6, 7)).astype(np.float32)
    out = F.alpha_dropout(_t(x), p=0.4).numpy()
    core.seed(5)
    keep = core.backend.to_numpy(core.backend.random_uniform(x.shape, dtype=np.float32)) >= 0.4
    alpha_p = -1.6732632423543772848170429916717 * 1.0507009873554804934193349852946
    a = ((1 - 0.4) * (1 + 0.4 * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * 0.4
    # float32 against a float64 formula: an absolute floor for values that cancel near 0
    np.testing.assert_allclose(out, a * (x * keep + alpha_p * (1 - keep)) + b, rtol=1e-6,
                               atol=1e-6)
    assert not F.alpha_dropout(_t(x), p=1.0).numpy().any()  # p = 1: all dropped, zeros


@pytest.mark.parametrize("name", ["alpha_dropout", "AlphaDropout"])
def test_alpha_dropout_gradient_matches_finite_differences(name):
    def fn(x):
        core.seed(11)  # the same mask at every evaluation
        return F.alpha_dropout(x, 0.3) if name == "alpha_dropout" else nn.AlphaDropout(0.3)(x)

    check_grad(fn, RNG.standard_normal((4, 5)))


@pytest.mark.parametrize("call", [lambda x: F.alpha_dropout(x, p=1.5),
                                  lambda x: F.alpha_dropout(x, p=True),
                                  lambda x: nn.AlphaDropout(p=-0.1)])
def test_alpha_dropout_rejects_a_p_that_is_no_probability(call):
    with pytest.raises(ValueError, match=r"p=.* is not a probability"):
        call(_t(np.ones(3, np.float32)))


# ----- gumbel softmax -----------------------------------------------------------------------------

def test_gumbel_softmax_samples_follow_the_softmax_of_the_logits():
    core.seed(0)
    probs = np.array([0.1, 0.2, 0.3, 0.4])
    logits = np.tile(np.log(probs), (40000, 1)).astype(np.float32)
    hard = F.gumbel_softmax(_t(logits), hard=True).numpy()
    assert set(np.unique(hard)) == {0.0, 1.0} and (hard.sum(1) == 1).all()
    np.testing.assert_allclose(hard.mean(0), probs, atol=0.01)
    soft = F.gumbel_softmax(_t(logits), temperature=0.5).numpy()
    np.testing.assert_allclose(soft.sum(1), 1.0, rtol=1e-5)
    assert (soft > 0).all() and soft.dtype == np.float32
    # along another axis: each column is a sample
    cols = F.gumbel_softmax(_t(logits.T.copy()), hard=True, axis=0).numpy()
    assert (cols.sum(0) == 1).all()


@pytest.mark.parametrize("temperature", [1.0, 0.7])
def test_gumbel_softmax_gradient_matches_finite_differences(temperature):
    def fn(x):
        core.seed(4)  # the same Gumbel noise at every evaluation
        return F.gumbel_softmax(x, temperature=temperature, axis=1)

    check_grad(fn, RNG.standard_normal((3, 5, 2)))


def test_gumbel_softmax_hard_passes_the_soft_samples_gradient_straight_through():
    x = RNG.standard_normal((4, 6))
    weights = _t(RNG.standard_normal((4, 6)))
    grads = []
    for hard in (False, True):
        core.seed(9)
        t = _t(x, stop_gradient=False)
        out = F.gumbel_softmax(t, temperature=0.5, hard=hard)
        (out * weights).sum().backward()
        grads.append(t.gradient())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-12)
    assert np.abs(grads[1]).max() > 0


@pytest.mark.parametrize("call, message", [
    (lambda x: F.gumbel_softmax(x, temperature=0), "temperature=0"),
    (lambda x: F.gumbel_softmax(x, temperature="1"), "temperature='1'"),
    (lambda x: F.gumbel_softmax(x, axis=2), "axis=2"),
])
def test_gumbel_softmax_argument_errors(call, message):
    with pytest.raises(ValueError) as err:
        call(_t(np.ones((2, 3), np.float32)))
    assert message in str(err.value)


# ----- temporal shift -----------------------------------------------------------------------------

def _temporal_shift_reference(x: np.ndarray, seg_num: int, ratio: float) -> np.ndarray:
    """Paddle's documented steps for NCHW: reshape to [N, T, C, H, W], pad T with a zero frame
    on each side, slice [:T] / [2:T+2] / [1:T+1] for the three channel groups, concatenate."""
    nt, c, h, w = x.shape
    clips = x.reshape(nt // seg_num, seg_num, c, h, w)
    padded = np.pad(clips, ((0, 0), (1, 1), (0, 0), (0, 0), (0, 0)))
    c1, c2 = int(c * ratio), int(c * 2 * ratio)
    t = seg_num
    out = np.concatenate([padded[:, :t, :c1], padded[:, 2:t + 2, c1:c2],
                          padded[:, 1:t + 1, c2:]], axis=2)
    return out.reshape(x.shape)


@pytest.mark.parametrize("seg_num, ratio, channels", [(3, 0.25, 8), (2, 0.2, 4), (4, 0.45, 6),
                                                      (1, 0.25, 4), (2, 0.0, 3)])
def test_temporal_shift_matches_paddles_documented_steps(seg_num, ratio, channels):
    x = RNG.standard_normal((2 * seg_num, channels, 3, 2)).astype(np.float32)
    want = _temporal_shift_reference(x, seg_num, ratio)
    np.testing.assert_array_equal(F.temporal_shift(_t(x), seg_num, ratio).numpy(), want)
    nhwc = F.temporal_shift(_t(x.transpose(0, 2, 3, 1).copy()), seg_num, ratio,
                            data_format="NHWC").numpy()
    np.testing.assert_array_equal(nhwc.transpose(0, 3, 1, 2), want)


@pytest.mark.parametrize("data_format", ["NCHW", "NHWC"])
def test_temporal_shift_gradient_matches_finite_differences(data_format):
    check_grad(lambda x: F.temporal_shift(x, 3, 0.25, data_format=data_format),
               RNG.standard_normal((6, 4, 2, 4)))


@pytest.mark.parametrize("call, message", [
    (lambda x: F.temporal_shift(x, 4), "multiple of seg_num=4"),
    (lambda x: F.temporal_shift(x, 0), "seg_num=0"),
    (lambda x: F.temporal_shift(x, 3, shift_ratio=0.6), "shift_ratio=0.6"),
    (lambda x: F.temporal_shift(x, 3, data_format="NCDHW"), "data_format"),
    (lambda x: F.temporal_shift(core.reshape(x, [6, 4, 4]), 3), "'x' must be 4-D"),
])
def test_temporal_shift_argument_errors(call, message):
    with pytest.raises(ValueError) as err:
        call(_t(np.ones((6, 4, 2, 2), np.float32)))
    assert message in str(err.value)


# ----- multi-label margin loss --------------------------------------------------------------------

LABELS = np.array([[3, 0, -1, 1, 2], [1, 1, 4, -1, -1], [-1, 2, 2, 2, 2], [0, 1, 2, 3, 4]])


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_multi_label_margin_loss_matches_torch(reduction):
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal((4, 5)).astype(np.float32)
    want = torch.nn.functional.multilabel_margin_loss(torch.tensor(x), torch.tensor(LABELS),
                                                      reduction=reduction).numpy()
    got = F.multi_label_margin_loss(_t(x), _t(LABELS), reduction=reduction)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-6)
    layer = nn.MultiLabelMarginLoss(reduction)(_t(x), _t(LABELS))
    np.testing.assert_allclose(layer.numpy(), want, rtol=1e-5, atol=1e-6)
    one = F.multi_label_margin_loss(_t(x[0]), _t(LABELS[0]), reduction=reduction)
    np.testing.assert_allclose(one.numpy(), torch.nn.functional.multilabel_margin_loss(
        torch.tensor(x[0]), torch.tensor(LABELS[0]), reduction=reduction).numpy(), rtol=1e-5)


def test_multi_label_margin_loss_as_paddles_example():
    x = _t(np.array([[0.1, 0.2, 0.4, 0.8], [0.2, 0.5, 0.3, 0.1]], np.float32))
    label = _t(np.array([[3, 0, -1, -1], [0, 2, -1, -1]]))
    # row 0: targets {3, 0}: (1-0.8+0.2)+(1-0.8+0.4)+(1-0.1+0.2)+(1-0.1+0.4) = 3.4, / 4
    # row 1: targets {0, 2}: (1-0.2+0.5)+(1-0.2+0.1)+(1-0.3+0.5)+(1-0.3+0.1) = 4.2, / 4
    got = F.multi_label_margin_loss(x, label, reduction="none").numpy()
    np.testing.assert_allclose(got, [0.85, 1.05], rtol=1e-6)


@pytest.mark.parametrize("name", ["multi_label_margin_loss", "MultiLabelMarginLoss"])
def test_multi_label_margin_loss_gradient_matches_finite_differences(name):
    fn = F.multi_label_margin_loss if name.startswith("multi") else nn.MultiLabelMarginLoss()
    x = RNG.standard_normal((4, 5))
    check_grad(lambda a, y: fn(a, y), x, LABELS)
    check_grad(lambda a, y: F.multi_label_margin_loss(a, y, reduction="none"), x, LABELS)


@pytest.mark.parametrize("call, message", [
    (lambda x: F.multi_label_margin_loss(x, _t(LABELS + 1)), "label value 5"),
    (lambda x: F.multi_label_margin_loss(x, _t(LABELS[:, :3])), "same shape"),
    (lambda x: F.multi_label_margin_loss(x, _t(LABELS.astype(np.float32))), "label integers"),
    (lambda x: F.multi_label_margin_loss(x, _t(LABELS), reduction="avg"), "reduction"),
])
def test_multi_label_margin_loss_argument_errors(call, message):
    with pytest.raises(ValueError) as err:
        call(_t(np.ones((4, 5), np.float32)))
    assert message in str(err.value)


# ----- triplet margin with distance ---------------------------------------------------------------

def _triplets(dtype=np.float32):
    return [RNG.standard_normal((5, 4)).astype(dtype) for _ in range(3)]


@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_triplet_margin_with_distance_loss_matches_torch(swap, reduction):
    torch = pytest.importorskip("torch")
    a, p, n = _triplets()
    tf = torch.nn.functional
    ta, tp, tn = map(torch.tensor, (a, p, n))
    want = tf.triplet_margin_with_distance_loss(ta, tp, tn, margin=1.5, swap=swap,
                                                reduction=reduction).numpy()
    got = F.triplet_margin_with_distance_loss(_t(a), _t(p), _t(n), margin=1.5, swap=swap,
                                              reduction=reduction).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    cosine = lambda u, v: 1.01 - tf.cosine_similarity(u, v)  # noqa: E731
    want = tf.triplet_margin_with_distance_loss(ta, tp, tn, distance_function=cosine,
                                                swap=swap, reduction=reduction).numpy()
    layer = nn.TripletMarginWithDistanceLoss(
        distance_function=lambda u, v: 1.01 - F.cosine_similarity(u, v, axis=1), swap=swap,
        reduction=reduction)
    np.testing.assert_allclose(layer(_t(a), _t(p), _t(n)).numpy(), want, rtol=1e-5,
                               atol=1e-6)


def test_triplet_margin_with_distance_loss_as_paddles_example():
    a = _t(np.array([[1, 5, 3], [0, 3, 2], [1, 4, 1]], np.float32))
    p = _t(np.array([[5, 1, 2], [3, 2, 1], [3, -1, 1]], np.float32))
    n = _t(np.array([[2, 1, -3], [1, 1, -1], [4, -2, 1]], np.float32))
    got = F.triplet_margin_with_distance_loss(a, p, n, reduction="none").numpy()
    np.testing.assert_allclose(got, [0.0, 0.57496595, 0.0], atol=1e-6)


@pytest.mark.parametrize("name", ["triplet_margin_with_distance_loss",
                                  "TripletMarginWithDistanceLoss"])
@pytest.mark.parametrize("swap", [False, True])
def test_triplet_margin_with_distance_loss_gradient_matches_finite_differences(name, swap):
    if name.startswith("triplet"):
        def fn(a, p, n):
            return F.triplet_margin_with_distance_loss(a, p, n, margin=2.0, swap=swap)
    else:
        fn = nn.TripletMarginWithDistanceLoss(
            distance_function=lambda u, v: F.pairwise_distance(u, v, p=1.0), margin=3.0,
            swap=swap, reduction="sum")
    check_grad(fn, *_triplets(np.float64))


@pytest.mark.parametrize("call, message", [
    (lambda a: F.triplet_margin_with_distance_loss(a, a, a, margin=-1), "margin=-1"),
    (lambda a: F.triplet_margin_with_distance_loss(
        a, a, a, distance_function=lambda u, v: core.sum(u - v, axis=1)),
     "distances must be > 0"),
    (lambda a: F.triplet_margin_with_distance_loss(a, a, core.reshape(a, [4, 5])),
     "must have one shape"),
    (lambda a: F.triplet_margin_with_distance_loss(a, a, a, distance_function=3),
     "distance_function=3"),
    (lambda a: nn.TripletMarginWithDistanceLoss(margin=-0.5), "margin=-0.5"),
    (lambda a: nn.TripletMarginWithDistanceLoss(reduction="avg"), "reduction='avg'"),
])
def test_triplet_margin_with_distance_loss_argument_errors(call, message):
    with pytest.raises((ValueError, TypeError)) as err:
        call(_t(np.ones((5, 4), np.float32)))
    assert message in str(err.value)


# ----- dice, log and N-pair losses ----------------------------------------------------------------

def _dice_reference(x: np.ndarray, label: np.ndarray, eps: float) -> float:
    onehot = np.eye(x.shape[-1])[label[..., 0]]
    axes = tuple(range(1, x.ndim))
    inse = (x * onehot).sum(axes)
    return float(np.mean(1 - 2 * inse / (x.sum(axes) + onehot.sum(axes) + eps)))


def test_dice_loss_matches_paddles_formula():
    x = RNG.random((3, 4, 5, 3))
    x /= x.sum(-1, keepdims=True)
    label = RNG.integers(0, 3, (3, 4, 5, 1))
    got = F.dice_loss(_t(x.astype(np.float32)), _t(label))
    assert got.shape == [] and got.dtype == np.float32
    np.testing.assert_allclose(float(got), _dice_reference(x, label, 1e-5), rtol=1e-5)
    np.testing.assert_allclose(float(F.dice_loss(_t(x), _t(label), epsilon=0.5)),
                               _dice_reference(x, label, 0.5), rtol=1e-10)


def test_log_loss_matches_paddles_formula():
    x = RNG.random((6, 1)).astype(np.float32)
    y = RNG.integers(0, 2, (6, 1)).astype(np.float32)
    want = -y * np.log(x + 1e-4) - (1 - y) * np.log(1 - x + 1e-4)
    np.testing.assert_allclose(F.log_loss(_t(x), _t(y)).numpy(), want, rtol=1e-5)
    np.testing.assert_allclose(F.log_loss(_t(x), _t(y), epsilon=0.1).numpy(),
                               -y * np.log(x + 0.1) - (1 - y) * np.log(1.1 - x), rtol=1e-5)


def _npair_reference(a, p, labels, l2_reg):
    """Paddle's steps, literally: tile / equal / normalise the labels, the L2 term, the soft-label
    cross entropy of the similarity rows, then sum(labels * ce, 0) and its mean."""
    n = len(labels)
    tiled = np.tile(labels.reshape(n, 1), (1, n))
    targets = (tiled == tiled.T).astype(np.float64)
    targets /= targets.sum(1, keepdims=True)
    l2 = (np.mean((a ** 2).sum(1)) + np.mean((p ** 2).sum(1))) * 0.25 * l2_reg
    s = a @ p.T
    log_sm = s - s.max(1, keepdims=True)
    log_sm -= np.log(np.exp(log_sm).sum(1, keepdims=True))
    ce = -(targets * log_sm).sum(1, keepdims=True)
    return l2 + np.mean((targets * ce).sum(0))


@pytest.mark.parametrize("labels", [np.array([0, 1, 2, 3, 4, 5]), np.array([1, 1, 2, 3, 3, 3]),
                                    np.array([0.5, 0.5, 0.5, 2.0, 2.0, 7.0])])
def test_npair_loss_matches_paddles_steps(labels):
    a, p = RNG.standard_normal((6, 3)), RNG.standard_normal((6, 3))
    got = F.npair_loss(_t(a.astype(np.float32)), _t(p.astype(np.float32)), _t(labels))
    assert got.shape == []
    np.testing.assert_allclose(float(got), _npair_reference(a, p, labels, 0.002), rtol=1e-5)
    np.testing.assert_allclose(float(F.npair_loss(_t(a), _t(p), _t(labels), l2_reg=0.5)),
                               _npair_reference(a, p, labels, 0.5), rtol=1e-10)


def test_dice_log_and_npair_loss_gradients_match_finite_differences():
    x = RNG.random((2, 3, 4)) + 0.1
    label = RNG.integers(0, 4, (2, 3, 1))
    check_grad(lambda a, y: F.dice_loss(a, y), x, label)
    check_grad(lambda a, y: F.log_loss(a, y, epsilon=0.01), RNG.random((5, 1)) * 0.8 + 0.1,
               RNG.random((5, 1)))
    labels = np.array([1, 1, 2, 3, 3])
    check_grad(lambda a, p, y: F.npair_loss(a, p, y, l2_reg=0.3), RNG.standard_normal((5, 3)),
               RNG.standard_normal((5, 3)), labels)


@pytest.mark.parametrize("call, message", [
    (lambda: F.dice_loss(_t(np.ones((2, 3))), _t(np.ones((2, 3), np.int64))), "label integers"),
    (lambda: F.dice_loss(_t(np.ones((2, 3))), _t(np.full((2, 1), 3))), "label value 3"),
    (lambda: F.dice_loss(_t(np.ones((2, 3))), _t(np.ones((2, 1), np.int64)), epsilon=-1),
     "epsilon=-1"),
    (lambda: F.log_loss(_t(np.ones((2, 1))), _t(np.ones((3, 1)))), "of the same shape"),
    (lambda: F.log_loss(_t(np.ones((2, 1))), _t(np.ones((2, 1))), epsilon="x"), "epsilon='x'"),
    (lambda: F.npair_loss(_t(np.ones((2, 3))), _t(np.ones((3, 3))), _t(np.ones(2))),
     "one shape"),
    (lambda: F.npair_loss(_t(np.ones((2, 3))), _t(np.ones((2, 3))), _t(np.ones(3))),
     "labels hold N values"),
    (lambda: F.npair_loss(_t(np.ones((2, 3))), _t(np.ones((2, 3))), _t(np.ones(2)),
                          l2_reg=None), "l2_reg=None"),
])
def test_dice_log_and_npair_loss_argument_errors(call, message):
    with pytest.raises(ValueError) as err:
        call()
    assert message in str(err.value)


# ----- a network spec with the new layers ---------------------------------------------------------

def test_a_spec_network_pools_and_upsamples_back_with_the_new_layers():
    layers = {"conv": {"type": "Conv2D", "out_channels": 3, "kernel_size": 3, "padding": 1},
              "pool": {"type": "MaxPool2D", "kernel_size": 2},
              "up": {"type": "UpsamplingNearest2D", "scale_factor": 2},
              "smooth": {"type": "UpsamplingBilinear2D", "size": [8, 8]},
              "drop": {"type": "AlphaDropout", "p": 0.2},
              "flat": {"type": "Flatten"}, "out": {"type": "Linear"}}
    node = {"name": "net", "layers": layers, "blocks": {}}
    model = build.build_model(validation.group_option("model", node), (1, 8, 8), 10)
    assert dict(model.named_parameters())["out.weight"].shape == [3 * 8 * 8, 10]
    x = core.to_tensor(RNG.random((2, 1, 8, 8), dtype=np.float32))
    model.train()
    loss = F.cross_entropy(model(x), core.to_tensor(np.array([1, 2])))
    loss.backward()
    assert np.isfinite(float(loss))
    assert all(p.gradient() is not None for p in model.parameters())
    model.eval()
    with core.no_grad():
        assert model(x).shape == [2, 10]
