"""AdaptiveAvgPool1D, AdaptiveMaxPool1D (and the max pools' masks), Conv1DTranspose,
InstanceNorm1D and LocalResponseNorm: finite-difference gradients, torch parity, Paddle's
formulas, bad arguments, and a network spec that uses them."""
import numpy as np
import pytest

import core
from core import nn
from core.nn import functional as F
from tests.core.nn.torch_parity import assert_matches_torch
from tests.gradcheck import check_grad

RNG = np.random.default_rng(0)


def _distinct(shape):
    return RNG.permutation(int(np.prod(shape))).reshape(shape) * 0.1


def _ties(shape):
    return np.maximum(RNG.integers(-3, 2, size=shape), 0).astype(np.float64)  # ReLU'd: zeros


# ----- adaptive 1-D pooling -------------------------------------------------------------------

@pytest.mark.parametrize("size", [1, 3, 4, 7, [2]])
def test_adaptive_pool1d_gradients(size):
    x = _distinct((2, 2, 7))
    check_grad(lambda t: F.adaptive_avg_pool1d(t, size), x)
    check_grad(lambda t: F.adaptive_max_pool1d(t, size), x)
    check_grad(nn.AdaptiveAvgPool1D(size), x)
    check_grad(nn.AdaptiveMaxPool1D(size), x)


@pytest.mark.parametrize("size", [1, 2, 3, 5, 9])
def test_adaptive_pool1d_match_torch_on_tied_data(size):
    x = _ties((2, 3, 9))
    assert_matches_torch(nn.AdaptiveAvgPool1D(size),
                         lambda t, a: t.nn.functional.adaptive_avg_pool1d(a, size), x)
    assert_matches_torch(nn.AdaptiveMaxPool1D(size),
                         lambda t, a: t.nn.functional.adaptive_max_pool1d(a, size), x)


def test_adaptive_pool1d_bins_follow_paddles_formula():
    """Output i covers [floor(i * L / m), ceil((i + 1) * L / m)): overlapping bins for 7 -> 3."""
    x = np.arange(7.0).reshape(1, 1, 7)
    bins = [(0, 3), (2, 5), (4, 7)]
    got = F.adaptive_avg_pool1d(core.to_tensor(x), 3).numpy().ravel()
    np.testing.assert_allclose(got, [x[0, 0, a:b].mean() for a, b in bins])
    got = F.adaptive_max_pool1d(core.to_tensor(x[:, :, ::-1].copy()), 3).numpy().ravel()
    np.testing.assert_array_equal(got, [6, 4, 2])


def test_adaptive_max_pool_masks_match_torchs_indices():
    torch = pytest.importorskip("torch")
    x = _ties((2, 3, 9))
    out, mask = nn.AdaptiveMaxPool1D(4, return_mask=True)(core.to_tensor(x))
    want, index = torch.nn.functional.adaptive_max_pool1d(torch.tensor(x), 4, True)
    np.testing.assert_array_equal(out.numpy(), want.numpy())
    np.testing.assert_array_equal(mask.numpy(), index.numpy())
    assert mask.dtype == np.int32 and mask.stop_gradient
    y = _ties((2, 3, 7, 5))  # the 2-D mask indexes the flattened H * W plane
    out, mask = F.adaptive_max_pool2d(core.to_tensor(y), (3, 2), return_mask=True)
    want, index = torch.nn.functional.adaptive_max_pool2d(torch.tensor(y), (3, 2), True)
    np.testing.assert_array_equal(out.numpy(), want.numpy())
    np.testing.assert_array_equal(mask.numpy(), index.numpy())


def test_adaptive_max_pool1d_with_mask_still_has_a_gradient():
    check_grad(lambda t: F.adaptive_max_pool1d(t, 3, return_mask=True)[0], _distinct((1, 2, 8)))


@pytest.mark.parametrize("call, word", [
    (lambda x: F.adaptive_avg_pool1d(x, 0), "output_size"),
    (lambda x: F.adaptive_max_pool1d(x, [2, 3]), "output_size"),
    (lambda x: F.adaptive_avg_pool1d(x, 2.5), "output_size"),
    (lambda x: nn.AdaptiveAvgPool1D(None), "output_size"),
    (lambda x: nn.AdaptiveMaxPool1D(-1), "output_size"),
    (lambda x: F.adaptive_avg_pool1d(core.to_tensor(np.ones((1, 2, 3, 4))), 2), "3-D"),
])
def test_adaptive_pool1d_bad_arguments_name_the_argument(call, word):
    x = core.to_tensor(np.ones((1, 2, 8)))
    with pytest.raises(ValueError, match=word):
        call(x)


# ----- Conv1DTranspose ------------------------------------------------------------------------

CASES = [(1, 0, 0, 1, 1), (2, 1, 1, 1, 1), (3, [2], 2, 2, 1), (2, 0, 1, 1, 2), (1, [1, 0], 0, 1, 1)]


@pytest.mark.parametrize("s, p, op, g, d", CASES)
def test_conv1d_transpose_gradients(s, p, op, g, d):
    x, w, b = RNG.standard_normal((1, 4, 3)), RNG.standard_normal((4, 3, 2)), \
        RNG.standard_normal(3 * g)
    check_grad(lambda a, ww, bb: F.conv1d_transpose(a, ww, bb, s, p, op, g, d), x, w, b)


@pytest.mark.parametrize("s, p, op, g, d", CASES)
def test_conv1d_transpose_matches_torch(s, p, op, g, d):
    x, w, b = RNG.standard_normal((2, 4, 5)), RNG.standard_normal((4, 3, 3)), \
        RNG.standard_normal(3 * g)
    if isinstance(p, list) and len(p) == 2:  # torch has no asymmetric padding: crop by hand
        def ref(t, a, ww, bb):
            return t.nn.functional.conv_transpose1d(a, ww, bb, s, 0, op, g, d)[:, :, p[0]:]
    else:
        def ref(t, a, ww, bb):
            return t.nn.functional.conv_transpose1d(a, ww, bb, s, p[0] if isinstance(p, list)
                                                    else p, op, g, d)
    assert_matches_torch(lambda a, ww, bb: F.conv1d_transpose(a, ww, bb, s, p, op, g, d), ref,
                         x, w, b)


def test_conv1d_transpose_layer_shapes_init_output_size_and_nlc():
    core.seed(0)
    layer = nn.Conv1DTranspose(4, 6, 3, stride=2, padding=1)
    assert layer.weight.shape == [4, 6, 3] and layer.bias.shape == [6]
    assert abs(layer.weight.numpy().std() - np.sqrt(2.0 / (4 * 3))) < 0.15
    x = RNG.standard_normal((2, 4, 5)).astype(np.float32)
    out = layer(core.to_tensor(x))
    assert out.shape == [2, 6, 9] and out.dtype == np.float32  # (5 - 1) * 2 - 2 + 3
    assert layer(core.to_tensor(x), output_size=10).shape == [2, 6, 10]
    assert layer(core.to_tensor(x), output_size=[9]).shape == [2, 6, 9]
    nlc = nn.Conv1DTranspose(4, 6, 3, stride=2, padding=1, data_format="NLC")
    nlc.weight.set_value(layer.weight.numpy())
    got = nlc(core.to_tensor(x.transpose(0, 2, 1))).numpy()
    np.testing.assert_allclose(got, out.numpy().transpose(0, 2, 1), rtol=1e-5, atol=1e-6)
    check_grad(lambda a, w: F.conv1d_transpose(a, w, stride=2, data_format="NLC"),
               RNG.standard_normal((1, 4, 2)), RNG.standard_normal((2, 3, 2)))
    assert nn.Conv1DTranspose(2, 2, [3], bias_attr=False).bias is None


@pytest.mark.parametrize("call, word", [
    (lambda: nn.Conv1DTranspose(0, 2, 3), "in_channels"),
    (lambda: nn.Conv1DTranspose(4, 3, 3, groups=2), "groups"),
    (lambda: nn.Conv1DTranspose(4, 2, 0), "kernel_size"),
    (lambda: nn.Conv1DTranspose(4, 2, [2, 2]), "kernel_size"),
    (lambda: nn.Conv1DTranspose(4, 2, 3, data_format="NCHW"), "data_format"),
    (lambda: nn.Conv1DTranspose(4, 2, 3, stride=2, output_padding=2)(_x()), "output_padding"),
    (lambda: nn.Conv1DTranspose(4, 2, 3, padding=[1, 2, 3])(_x()), "padding"),
    (lambda: nn.Conv1DTranspose(4, 2, 3, stride=2)(_x(), output_size=20), "output_size"),
    (lambda: nn.Conv1DTranspose(4, 2, 3)(core.to_tensor(np.ones((1, 4, 5, 5)))), "3-D"),
])
def test_conv1d_transpose_bad_arguments_name_the_argument(call, word):
    with pytest.raises(ValueError, match=word):
        call()


def _x():
    return core.to_tensor(np.ones((1, 4, 5), np.float32))


# ----- InstanceNorm1D -------------------------------------------------------------------------

def test_instance_norm1d_gradients():
    x = RNG.standard_normal((2, 3, 5))
    check_grad(lambda t: F.instance_norm(t, data_format="NCL"), x)
    check_grad(nn.InstanceNorm1D(3), x)
    check_grad(lambda t, w, b: F.instance_norm(t, weight=w, bias=b, data_format="NCL"), x,
               RNG.standard_normal(3), RNG.standard_normal(3))


def test_instance_norm1d_matches_torch_with_affine_parameters():
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal((2, 3, 6))
    w, b = RNG.standard_normal(3), RNG.standard_normal(3)
    ref = torch.nn.InstanceNorm1d(3, eps=1e-5, affine=True).double()
    with torch.no_grad():
        ref.weight.copy_(torch.tensor(w))
        ref.bias.copy_(torch.tensor(b))
    layer = nn.InstanceNorm1D(3)
    layer.scale.set_value(w)
    layer.bias.set_value(b)
    assert_matches_torch(lambda a: F.instance_norm(a, weight=core.to_tensor(w),
                                                   bias=core.to_tensor(b), data_format="NCL"),
                         lambda t, a: ref(a), x)
    got = layer(core.to_tensor(x.astype(np.float32))).numpy()
    want = ref(torch.tensor(x)).detach().numpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    assert sorted(layer.state_dict()) == ["bias", "scale"]  # Paddle's keys, no running stats


def test_instance_norm1d_of_nc_inputs_is_the_bias():
    """[N, C]: each value is its own instance, so it normalises to 0 and the output is the bias
    (Paddle accepts 2-D inputs for InstanceNorm1D)."""
    layer = nn.InstanceNorm1D(3)
    layer.bias.set_value(np.array([1.0, -2.0, 0.5], np.float32))
    out = layer(core.to_tensor(RNG.standard_normal((4, 3)).astype(np.float32)))
    assert out.shape == [4, 3]
    np.testing.assert_allclose(out.numpy(), np.tile([1.0, -2.0, 0.5], (4, 1)), atol=1e-6)


@pytest.mark.parametrize("call, word", [
    (lambda: nn.InstanceNorm1D(0), "num_features"),
    (lambda: nn.InstanceNorm1D(3, epsilon=0), "epsilon"),
    (lambda: nn.InstanceNorm1D(3, data_format="NLC"), "data_format"),
    (lambda: nn.InstanceNorm1D(3)(core.to_tensor(np.ones((2, 4, 5)))), "num_features"),
    (lambda: nn.InstanceNorm1D(3)(core.to_tensor(np.ones((2, 3, 4, 5)))), "3-D"),
])
def test_instance_norm1d_bad_arguments_name_the_argument(call, word):
    with pytest.raises(ValueError, match=word):
        call()


# ----- LocalResponseNorm ----------------------------------------------------------------------

def _window_squares(x, size, axis=1):
    """The squares summed over channels c - size // 2 .. c + (size - 1) // 2 (those that
    exist), Paddle's window (its code pads size // 2 before and (size - 1) // 2 after)."""
    sq = np.moveaxis(x * x, axis, 0)
    total = np.zeros_like(sq)
    for c in range(sq.shape[0]):
        total[c] = sq[max(0, c - size // 2):c + (size - 1) // 2 + 1].sum(axis=0)
    return np.moveaxis(total, 0, axis)


def _lrn_reference(x, size, alpha, beta, k, axis=1):
    """Paddle's implementation written out: alpha / size times the window's sum of squares."""
    return x / (k + alpha / size * _window_squares(x, size, axis)) ** beta


@pytest.mark.parametrize("size, shape, fmt", [(1, (2, 3, 4), "NCL"), (2, (1, 4, 3, 2), "NCHW"),
                                              (3, (1, 5, 2, 2), "NCHW"), (5, (1, 2, 3, 4), "NHWC"),
                                              (4, (1, 3, 2, 2, 2), "NCDHW"), (3, (2, 4, 3), "NLC")])
def test_local_response_norm_gradients(size, shape, fmt):
    x = RNG.standard_normal(shape)
    check_grad(lambda t: F.local_response_norm(t, size, 0.5, 0.75, 1.5, fmt), x)
    check_grad(nn.LocalResponseNorm(size, alpha=0.3, beta=1.2, k=2.0, data_format=fmt), x)


@pytest.mark.parametrize("size", [1, 2, 3, 5, 8])
@pytest.mark.parametrize("shape", [(2, 6, 5), (2, 6, 3, 4), (1, 6, 2, 3, 2)])
def test_local_response_norm_matches_torch(size, shape):
    x = RNG.standard_normal(shape)
    assert_matches_torch(nn.LocalResponseNorm(size, alpha=0.2, beta=0.75, k=1.0),
                         lambda t, a: t.nn.functional.local_response_norm(a, size, 0.2, 0.75,
                                                                          1.0), x)


def test_local_response_norm_divides_alpha_by_size_as_paddles_implementation_does():
    """Paddle's docs write alpha * sum(x^2), but its code averages the squares (alpha / size),
    as torch does; the default arguments are Paddle's (alpha 1e-4, beta 0.75, k 1)."""
    x = RNG.standard_normal((2, 7, 3, 3)) * 30
    got = nn.LocalResponseNorm(5)(core.to_tensor(x)).numpy()
    np.testing.assert_allclose(got, _lrn_reference(x, 5, 1e-4, 0.75, 1.0), rtol=1e-12)
    documented = x / (1.0 + 1e-4 * _window_squares(x, 5)) ** 0.75  # no / size
    assert not np.allclose(got, documented, rtol=1e-6)


def test_local_response_norm_channels_last_is_channels_first_transposed():
    x = RNG.standard_normal((2, 3, 4, 6))  # NHWC
    got = F.local_response_norm(core.to_tensor(x), 3, 0.1, data_format="NHWC").numpy()
    want = _lrn_reference(x, 3, 0.1, 0.75, 1.0, axis=3)
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("call, word", [
    (lambda x: F.local_response_norm(x, 0), "size"),
    (lambda x: F.local_response_norm(x, 2.5), "size"),
    (lambda x: F.local_response_norm(x, 3, data_format="NWHC"), "data_format"),
    (lambda x: F.local_response_norm(core.to_tensor(np.ones((2, 3))), 3), "3-D to 5-D"),
    (lambda x: nn.LocalResponseNorm(-1), "size"),
])
def test_local_response_norm_bad_arguments_name_the_argument(call, word):
    with pytest.raises(ValueError, match=word):
        call(core.to_tensor(np.ones((1, 3, 4, 4))))


def test_local_response_norm_refuses_integer_inputs():
    with pytest.raises(TypeError, match="floating"):
        F.local_response_norm(core.to_tensor(np.ones((1, 3, 4), np.int64)), 3)


# ----- a network spec over sequences ----------------------------------------------------------

def test_a_spec_sequence_net_pools_adaptively_and_trains():
    """Conv1D -> InstanceNorm1D -> LocalResponseNorm -> Conv1DTranspose -> AdaptiveMaxPool1D /
    AdaptiveAvgPool1D -> Flatten -> Linear on [channels, length] samples, sizes inferred."""
    from runner import build
    from runner.config import validation
    core.seed(0)
    layers = {"conv": {"type": "Conv1D", "out_channels": 4, "kernel_size": 3},
              "norm": {"type": "InstanceNorm1D"},
              "lrn": {"type": "LocalResponseNorm", "size": 3, "data_format": "NCL"},
              "up": {"type": "Conv1DTranspose", "out_channels": 4, "kernel_size": 2,
                     "stride": 2},
              "max": {"type": "AdaptiveMaxPool1D", "output_size": 3},
              "avg": {"type": "AdaptiveAvgPool1D", "output_size": 3, "inputs": ["up"]},
              "both": {"type": "Concat", "inputs": ["max", "avg"], "axis": 1},
              "flat": {"type": "Flatten"}, "out": {"type": "Linear"}}
    node = {"name": "net", "layers": layers, "blocks": {}}
    model = build.build_model(validation.group_option("model", node), (3, 16), 5)
    params = dict(model.named_parameters())
    assert params["norm.scale"].shape == [4] and params["up.weight"].shape == [4, 4, 2]
    assert params["out.weight"].shape == [8 * 3, 5]
    x = core.to_tensor(RNG.random((4, 3, 16)).astype(np.float32))
    loss = F.cross_entropy(model(x), core.to_tensor(np.array([0, 1, 2, 4])))
    loss.backward()
    assert np.isfinite(float(loss)) and params["conv.weight"].gradient() is not None
