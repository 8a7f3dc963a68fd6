"""PixelShuffle, PixelUnshuffle, ChannelShuffle, Unflatten, Unfold / Fold, ZeroPad2D, Pad1D and
Bilinear: finite-difference gradients, torch parity, Paddle's argument spellings, bad arguments,
and network specs that use them."""
import numpy as np
import pytest

import core
from core import nn
from core.nn import functional as F
from tests.core.nn.torch_parity import assert_matches_torch
from tests.gradcheck import check_grad

RNG = np.random.default_rng(0)


# ----- pixel and channel shuffles -------------------------------------------------------------

@pytest.mark.parametrize("fmt", ["NCHW", "NHWC"])
def test_shuffles_gradients(fmt):
    x = RNG.standard_normal((2, 8, 2, 3) if fmt == "NCHW" else (2, 2, 3, 8))
    check_grad(lambda t: F.pixel_shuffle(t, 2, fmt), x)
    check_grad(lambda t: F.channel_shuffle(t, 4, fmt), x)
    y = RNG.standard_normal((1, 2, 4, 6) if fmt == "NCHW" else (1, 4, 6, 2))
    check_grad(lambda t: F.pixel_unshuffle(t, 2, fmt), y)


def test_shuffle_layers_gradients():
    x = RNG.standard_normal((1, 4, 2, 2))
    check_grad(nn.PixelShuffle(2), x)
    check_grad(nn.PixelUnshuffle(2), x)
    check_grad(nn.ChannelShuffle(2), x)


@pytest.mark.parametrize("r", [1, 2, 3])
def test_pixel_shuffle_and_unshuffle_match_torch(r):
    x = RNG.standard_normal((2, 2 * r * r, 3, 2))
    assert_matches_torch(nn.PixelShuffle(r), lambda t, a: t.nn.functional.pixel_shuffle(a, r), x)
    y = RNG.standard_normal((2, 3, 2 * r, 3 * r))
    assert_matches_torch(nn.PixelUnshuffle(r),
                         lambda t, a: t.nn.functional.pixel_unshuffle(a, r), y)


@pytest.mark.parametrize("groups", [1, 2, 3, 6])
def test_channel_shuffle_matches_torch_and_paddles_example(groups):
    x = RNG.standard_normal((2, 6, 2, 3))
    assert_matches_torch(nn.ChannelShuffle(groups),
                         lambda t, a: t.nn.functional.channel_shuffle(a, groups), x)
    ramp = core.to_tensor(np.arange(6.0).reshape(1, 6, 1, 1))
    if groups == 3:  # Paddle's documented example: 0..5 in 3 groups -> 0, 2, 4, 1, 3, 5
        np.testing.assert_array_equal(F.channel_shuffle(ramp, 3).numpy().ravel(),
                                      [0, 2, 4, 1, 3, 5])


def test_channels_last_shuffles_are_the_channels_first_ones_transposed():
    x = RNG.standard_normal((2, 4, 6, 12))  # NHWC
    nchw = core.to_tensor(x.transpose(0, 3, 1, 2))
    for fn, arg in ((F.pixel_shuffle, 2), (F.pixel_unshuffle, 2), (F.channel_shuffle, 3)):
        want = fn(nchw, arg).numpy().transpose(0, 2, 3, 1)
        np.testing.assert_array_equal(fn(core.to_tensor(x), arg, "NHWC").numpy(), want)
    # unshuffle undoes shuffle in both layouts
    back = F.pixel_unshuffle(F.pixel_shuffle(core.to_tensor(x), 2, "NHWC"), 2, "NHWC")
    np.testing.assert_array_equal(back.numpy(), x)


@pytest.mark.parametrize("call, word", [
    (lambda x: F.pixel_shuffle(x, 0), "upscale_factor"),
    (lambda x: F.pixel_shuffle(x, 3), "upscale_factor"),  # 8 channels, not a multiple of 9
    (lambda x: F.pixel_shuffle(x, 2, "NCL"), "data_format"),
    (lambda x: F.pixel_unshuffle(x, 2.0), "downscale_factor"),
    (lambda x: F.pixel_unshuffle(x, 3), "downscale_factor"),  # 4 x 6 is not divisible by 3
    (lambda x: F.channel_shuffle(x, 3), "groups"),
    (lambda x: F.channel_shuffle(x, -1), "groups"),
    (lambda x: F.pixel_shuffle(core.to_tensor(np.ones((2, 8, 3))), 2), "4-D"),
    (lambda x: nn.PixelShuffle(True), "upscale_factor"),
    (lambda x: nn.PixelUnshuffle(2, data_format="NLC"), "data_format"),
    (lambda x: nn.ChannelShuffle(0), "groups"),
])
def test_shuffle_bad_arguments_name_the_argument(call, word):
    x = core.to_tensor(np.ones((1, 8, 4, 6)))
    with pytest.raises(ValueError, match=word):
        call(x)


# ----- Unflatten ------------------------------------------------------------------------------

@pytest.mark.parametrize("axis, shape, want", [
    (1, [3, 4], [2, 3, 4, 5]), (-1, (5, 1), [2, 12, 5, 1]), (1, [-1, 2], [2, 6, 2, 5]),
    (0, [1, 2], [1, 2, 12, 5]),
])
def test_unflatten_shapes_and_gradient(axis, shape, want):
    x = RNG.standard_normal((2, 12, 5))
    layer = nn.Unflatten(axis, shape)
    out = layer(core.to_tensor(x))
    assert out.shape == want
    np.testing.assert_array_equal(out.numpy(), x.reshape(want))
    check_grad(nn.Unflatten(axis, shape), x)


def test_unflatten_matches_torch_and_undoes_flatten():
    x = RNG.standard_normal((2, 12, 5))
    assert_matches_torch(nn.Unflatten(1, [2, 6]), lambda t, a: t.nn.Unflatten(1, (2, 6))(a), x)
    flat = nn.Flatten()(core.to_tensor(x))
    np.testing.assert_array_equal(nn.Unflatten(1, [12, 5])(flat).numpy(), x)


@pytest.mark.parametrize("make, word", [
    (lambda: nn.Unflatten(1, [5, 5]), "shape"),  # 25 elements for a dimension of 12
    (lambda: nn.Unflatten(1, [-1, 5]), "shape"),  # 12 is not a multiple of 5
    (lambda: nn.Unflatten(3, [3, 4]), "axis"),
    (lambda: nn.Unflatten(1, [-1, -1]), "shape"),
    (lambda: nn.Unflatten(1, [0, 12]), "shape"),
    (lambda: nn.Unflatten(1, []), "shape"),
    (lambda: nn.Unflatten(1.5, [3, 4]), "axis"),
])
def test_unflatten_bad_arguments_name_the_argument(make, word):
    with pytest.raises(ValueError, match=word):
        make()(core.to_tensor(np.ones((2, 12, 5))))


# ----- Unfold / Fold --------------------------------------------------------------------------

GEOMETRIES = [  # kernel_sizes, strides, paddings, dilations: paddings as torch takes them too
    (2, 1, 0, 1), ([2, 3], [1, 2], [1, 0], [2, 1]), (3, 2, 1, 1), ([1, 2], 1, [0, 1], [1, 2]),
]


@pytest.mark.parametrize("k, s, p, d", GEOMETRIES)
def test_unfold_and_fold_gradients(k, s, p, d):
    x = RNG.standard_normal((1, 2, 4, 5))
    check_grad(lambda t: F.unfold(t, k, s, p, d), x)
    cols = F.unfold(core.to_tensor(x), k, s, p, d)
    check_grad(lambda t: F.fold(t, [4, 5], k, s, p, d), RNG.standard_normal(cols.shape))


def test_unfold_and_fold_layers_gradients_with_paddles_argument_order():
    x = RNG.standard_normal((1, 2, 4, 4))
    # Unfold(kernel_sizes, dilations, paddings, strides): the layer's order differs from F's
    check_grad(nn.Unfold([2, 2], 1, [1, 0], 2), x)
    check_grad(nn.Fold([4, 4], 2, strides=2), RNG.standard_normal((1, 8, 4)))


@pytest.mark.parametrize("k, s, p, d", GEOMETRIES)
def test_unfold_and_fold_match_torch(k, s, p, d):
    x = RNG.standard_normal((2, 3, 5, 6))

    def torch_args(v):
        return tuple(v) if isinstance(v, list) else v

    assert_matches_torch(lambda a: nn.Unfold(k, d, p, s)(a),
                         lambda t, a: t.nn.functional.unfold(
                             a, torch_args(k), torch_args(d), torch_args(p), torch_args(s)), x)
    cols = RNG.standard_normal(F.unfold(core.to_tensor(x), k, s, p, d).shape)
    assert_matches_torch(lambda a: F.fold(a, [5, 6], k, s, p, d),
                         lambda t, a: t.nn.functional.fold(
                             a, (5, 6), torch_args(k), torch_args(d), torch_args(p),
                             torch_args(s)), cols)


def test_unfold_four_paddings_are_top_left_bottom_right():
    """Paddle's four paddings are [top, left, bottom, right] (not conv2d's [top, bottom, left,
    right]): the same as unfolding the input zero-padded by hand."""
    x = RNG.standard_normal((1, 2, 3, 4))
    padded = np.pad(x, ((0, 0), (0, 0), (1, 3), (2, 0)))  # top 1, bottom 3, left 2, right 0
    got = F.unfold(core.to_tensor(x), [2, 2], paddings=[1, 2, 3, 0]).numpy()
    want = F.unfold(core.to_tensor(padded), [2, 2]).numpy()
    np.testing.assert_array_equal(got, want)
    assert got.shape == (1, 8, (7 - 1) * (6 - 1))  # padded plane 7 x 6


def test_fold_is_the_adjoint_of_unfold():
    """<unfold(x), c> == <x, fold(c)> for any x and c: the two are each other's transpose."""
    x = RNG.standard_normal((2, 3, 6, 5))
    args = ([3, 2], [2, 1], [1, 0, 2, 1], [1, 2])
    cols = RNG.standard_normal(F.unfold(core.to_tensor(x), *args).shape)
    left = (F.unfold(core.to_tensor(x), *args).numpy() * cols).sum()
    right = (x * F.fold(core.to_tensor(cols), [6, 5], *args).numpy()).sum()
    np.testing.assert_allclose(left, right, rtol=1e-12)


@pytest.mark.parametrize("call, word", [
    (lambda x: F.unfold(x, 0), "kernel_sizes"),
    (lambda x: F.unfold(x, 2, strides=[1, 2, 3]), "strides"),
    (lambda x: F.unfold(x, 2, paddings=[1, 2, 3]), "paddings"),
    (lambda x: F.unfold(x, 2, paddings=-1), "paddings"),
    (lambda x: F.unfold(x, 2, dilations=0), "dilations"),
    (lambda x: F.unfold(x, 9), "kernel_sizes"),  # does not fit a 4 x 5 plane
    (lambda x: F.fold(core.to_tensor(np.ones((1, 8, 5))), [4, 5], 2), "fold"),  # 12 blocks
    (lambda x: F.fold(core.to_tensor(np.ones((1, 7, 12))), [4, 5], 2), "divisible"),
    (lambda x: F.fold(core.to_tensor(np.ones((1, 8, 12))), [0, 5], 2), "output_sizes"),
    (lambda x: nn.Unfold(2, paddings="SAME"), "paddings"),
    (lambda x: nn.Fold([4, 5], [2, 2, 2]), "kernel_sizes"),
])
def test_unfold_and_fold_bad_arguments_name_the_argument(call, word):
    x = core.to_tensor(np.ones((1, 2, 4, 5)))
    with pytest.raises(ValueError, match=word):
        call(x)


# ----- ZeroPad2D, Pad1D (and pad of channels-last inputs) ------------------------------------

@pytest.mark.parametrize("padding", [1, [1, 0, 2, 3]])
def test_zero_pad2d_matches_torch_and_gradient(padding):
    x = RNG.standard_normal((2, 3, 4, 5))
    pads = padding if isinstance(padding, list) else [padding] * 4
    assert_matches_torch(nn.ZeroPad2D(padding), lambda t, a: t.nn.ZeroPad2d(tuple(pads))(a), x)
    check_grad(nn.ZeroPad2D(padding), RNG.standard_normal((1, 2, 3, 2)))
    nhwc = nn.ZeroPad2D(padding, data_format="NHWC")(core.to_tensor(x.transpose(0, 2, 3, 1)))
    want = nn.ZeroPad2D(padding)(core.to_tensor(x)).numpy().transpose(0, 2, 3, 1)
    np.testing.assert_array_equal(nhwc.numpy(), want)


def test_zero_pad2d_follows_paddles_example():
    data = core.to_tensor(np.arange(1.0, 7.0).reshape(1, 1, 2, 3))
    got = nn.ZeroPad2D([1, 0, 1, 2])(data).numpy()[0, 0]
    np.testing.assert_array_equal(got, [[0, 0, 0, 0], [0, 1, 2, 3], [0, 4, 5, 6], [0, 0, 0, 0],
                                        [0, 0, 0, 0]])
    as_tensor = nn.ZeroPad2D(core.to_tensor(np.array([1, 0, 1, 2])))(data).numpy()[0, 0]
    np.testing.assert_array_equal(as_tensor, got)  # Paddle also takes the padding as a Tensor


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("padding", [2, [1, 3]])
def test_pad1d_matches_torch_and_gradient(mode, padding):
    x = RNG.standard_normal((2, 3, 5))
    pads = tuple(padding) if isinstance(padding, list) else (padding, padding)
    kwargs = {"value": 0.5} if mode == "constant" else {}
    assert_matches_torch(nn.Pad1D(padding, mode, 0.5),
                         lambda t, a: t.nn.functional.pad(a, pads, mode, **kwargs), x)
    check_grad(nn.Pad1D(padding, mode, 0.5), RNG.standard_normal((1, 2, 4)))
    nlc = nn.Pad1D(padding, mode, 0.5, "NLC")(core.to_tensor(x.transpose(0, 2, 1))).numpy()
    want = nn.Pad1D(padding, mode, 0.5)(core.to_tensor(x)).numpy().transpose(0, 2, 1)
    np.testing.assert_array_equal(nlc, want)


def test_pad_with_short_lists_pads_the_spatial_axes_of_channels_last_inputs():
    """F.pad([left, right, top, bottom], data_format='NHWC') pads W and H, as Paddle's does
    (it used to refuse channels-last inputs); gradient included."""
    x = RNG.standard_normal((1, 3, 4, 2))
    got = F.pad(core.to_tensor(x), [1, 2, 0, 3], data_format="NHWC").numpy()
    np.testing.assert_array_equal(got, np.pad(x, ((0, 0), (0, 3), (1, 2), (0, 0))))
    check_grad(lambda t: F.pad(t, [1, 0, 2, 1], "reflect", data_format="NHWC"), x)
    nhwc = nn.Pad2D([1, 2, 0, 3], "replicate", data_format="NHWC")(core.to_tensor(x)).numpy()
    np.testing.assert_array_equal(nhwc, np.pad(x, ((0, 0), (0, 3), (1, 2), (0, 0)), "edge"))


@pytest.mark.parametrize("make, word", [
    (lambda: nn.ZeroPad2D([1, 2]), "padding"),
    (lambda: nn.ZeroPad2D(-1), "padding"),
    (lambda: nn.ZeroPad2D(1, data_format="NCL"), "data_format"),
    (lambda: nn.Pad1D([1, 2, 3]), "padding"),
    (lambda: nn.Pad1D(1.5), "padding"),
    (lambda: nn.Pad1D(1, mode="wrap"), "mode"),
    (lambda: nn.Pad1D(1, data_format="NCHW"), "data_format"),
])
def test_padding_layers_bad_arguments_name_the_argument(make, word):
    with pytest.raises(ValueError, match=word):
        make()


def test_padding_layers_refuse_inputs_of_the_wrong_rank():
    with pytest.raises(ValueError, match="ZeroPad2D: expected a 4-D"):
        nn.ZeroPad2D(1)(core.to_tensor(np.ones((2, 3, 4))))
    with pytest.raises(ValueError, match="Pad1D: expected a 3-D"):
        nn.Pad1D(1)(core.to_tensor(np.ones((2, 3, 4, 5))))


# ----- Bilinear -------------------------------------------------------------------------------

def test_bilinear_gradients():
    x1, x2 = RNG.standard_normal((3, 2)), RNG.standard_normal((3, 4))
    w, b = RNG.standard_normal((5, 2, 4)), RNG.standard_normal((1, 5))
    check_grad(F.bilinear, x1, x2, w, b)
    check_grad(lambda a, c, ww: F.bilinear(a, c, ww), x1, x2, w)
    # leading dimensions beyond the batch (as torch allows), the same on both inputs
    check_grad(F.bilinear, RNG.standard_normal((2, 2, 2)), RNG.standard_normal((2, 2, 4)), w, b)


def test_bilinear_layer_gradient_reaches_both_inputs_and_parameters():
    core.seed(0)
    layer = nn.Bilinear(2, 3, 4)
    check_grad(lambda a, c: layer(a, c), RNG.standard_normal((3, 2)), RNG.standard_normal((3, 3)))
    out = layer(core.to_tensor(RNG.standard_normal((3, 2)).astype(np.float32)),
                core.to_tensor(RNG.standard_normal((3, 3)).astype(np.float32)))
    out.sum().backward()
    assert layer.weight.gradient().shape == (4, 2, 3) and layer.bias.gradient().shape == (1, 4)


def test_bilinear_matches_torch_and_paddles_formula():
    x1, x2 = RNG.standard_normal((6, 3)), RNG.standard_normal((6, 4))
    w, b = RNG.standard_normal((5, 3, 4)), RNG.standard_normal((1, 5))
    assert_matches_torch(F.bilinear,
                         lambda t, a, c, ww, bb: t.nn.functional.bilinear(a, c, ww, bb[0]),
                         x1, x2, w, b)
    want = np.einsum("bi,oij,bj->bo", x1, w, x2) + b  # out_i = x1 W_i x2^T + b
    got = F.bilinear(*[core.to_tensor(v) for v in (x1, x2, w, b)]).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_bilinear_layer_shapes_and_defaults():
    core.seed(0)
    layer = nn.Bilinear(5, 4, 1000)
    assert layer.weight.shape == [1000, 5, 4] and layer.bias.shape == [1, 1000]
    assert layer.weight.dtype == np.float32 and not layer.bias.numpy().any()
    bound = np.sqrt(6.0 / (5 * 4 + 1000 * 4))  # Xavier-uniform, fans of a [out, in1, in2] weight
    assert np.abs(layer.weight.numpy()).max() <= bound
    out = layer(core.to_tensor(np.ones((5, 5), np.float32)),
                core.to_tensor(np.ones((5, 4), np.float32)))
    assert out.shape == [5, 1000] and out.dtype == np.float32
    assert nn.Bilinear(2, 3, 4, bias_attr=False).bias is None


@pytest.mark.parametrize("call, word", [
    (lambda: nn.Bilinear(0, 3, 4), "in1_features"),
    (lambda: nn.Bilinear(2, 3.0, 4), "in2_features"),
    (lambda: nn.Bilinear(2, 3, True), "out_features"),
    (lambda: nn.Bilinear(2, 3, 4)(core.to_tensor(np.ones((5, 3))), core.to_tensor(np.ones((5, 3)))),
     "bilinear"),
    (lambda: F.bilinear(core.to_tensor(np.ones((5, 2))), core.to_tensor(np.ones((4, 3))),
                        core.to_tensor(np.ones((4, 2, 3)))), "same batch"),
    (lambda: F.bilinear(core.to_tensor(np.ones((5, 2))), core.to_tensor(np.ones((5, 3))),
                        core.to_tensor(np.ones((4, 2, 3))), core.to_tensor(np.ones(3))), "bias"),
])
def test_bilinear_bad_arguments_name_the_argument(call, word):
    with pytest.raises(ValueError, match=word):
        call()


# ----- network specs --------------------------------------------------------------------------

def _spec_model(layers: dict, shape: tuple, classes: int):
    from runner import build
    from runner.config import validation
    node = {"name": "net", "layers": layers, "blocks": {}}
    return build.build_model(validation.group_option("model", node), shape, classes)


def test_a_spec_cnn_upsamples_with_pixel_shuffle_and_trains():
    core.seed(0)
    layers = {"conv": {"type": "Conv2D", "out_channels": 8, "kernel_size": 3, "padding": 1},
              "up": {"type": "PixelShuffle", "upscale_factor": 2},  # 8 channels -> 2, 2x size
              "shuffle": {"type": "ChannelShuffle", "groups": 2},
              "pad": {"type": "ZeroPad2D", "padding": [1, 0, 0, 1]},
              "flat": {"type": "Flatten"}, "out": {"type": "Linear"}}
    model = _spec_model(layers, (1, 4, 4), 3)
    assert dict(model.named_parameters())["out.weight"].shape == [2 * 9 * 9, 3]
    x = core.to_tensor(RNG.random((2, 1, 4, 4)).astype(np.float32))
    loss = F.cross_entropy(model(x), core.to_tensor(np.array([0, 2])))
    loss.backward()
    assert model["conv"].weight.gradient() is not None and np.isfinite(float(loss))


def test_a_spec_bilinear_layer_reads_two_inputs():
    layers = {"flat": {"type": "Flatten"},
              "proj": {"type": "Linear", "out_features": 4},
              "pair": {"type": "Bilinear", "inputs": ["flat", "proj"], "in1_features": 12,
                       "in2_features": 4, "out_features": 5},
              "out": {"type": "Linear"}}
    model = _spec_model(layers, (3, 4), 2)
    assert dict(model.named_parameters())["pair.weight"].shape == [5, 12, 4]
    with core.no_grad():
        out = model(core.to_tensor(RNG.random((3, 3, 4)).astype(np.float32)))
    assert out.shape == [3, 2]
