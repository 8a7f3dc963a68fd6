"""LayerNorm, GroupNorm, InstanceNorm2D and their functionals: gradients, torch and Paddle."""
import numpy as np
import pytest

import core
from core import nn
from core.nn import functional as F
from tests.gradcheck import check_grad

RNG = np.random.default_rng(0)


def test_layer_norm_gradients():
    x = RNG.standard_normal((2, 3, 4))
    check_grad(lambda t, w, b: F.layer_norm(t, [3, 4], w, b), x, RNG.standard_normal((3, 4)),
               RNG.standard_normal((3, 4)))
    check_grad(lambda t: F.layer_norm(t, 4), x)


def test_group_and_instance_norm_gradients():
    x = RNG.standard_normal((2, 4, 3, 2))
    w, b = RNG.standard_normal(4) + 1, RNG.standard_normal(4)
    check_grad(lambda t, ww, bb: F.group_norm(t, 2, 1e-5, ww, bb), x, w, b)
    check_grad(lambda t, ww, bb: F.instance_norm(t, weight=ww, bias=bb), x, w, b)


@pytest.mark.parametrize("shape, data_format", [((2, 3, 4), "NLC"), ((2, 3, 2, 4), "NHWC"),
                                                ((2, 2, 2, 1, 4), "NDHWC")])
def test_group_norm_channels_last_is_channels_first_moved(shape, data_format):
    # GroupNorm(data_format='NHWC') was accepted by the layer and refused by its forward
    x = RNG.standard_normal(shape)
    w, b = RNG.standard_normal(4) + 1, RNG.standard_normal(4)
    check_grad(lambda t, ww, bb: F.group_norm(t, 2, 1e-5, ww, bb, data_format), x, w, b)
    layer = nn.GroupNorm(2, 4, data_format=data_format)
    moved = np.moveaxis(x, -1, 1).astype(np.float32)
    want = nn.GroupNorm(2, 4)(core.to_tensor(moved)).numpy()
    got = layer(core.to_tensor(x.astype(np.float32))).numpy()
    np.testing.assert_allclose(np.moveaxis(got, -1, 1), want, rtol=1e-5, atol=1e-6)


def test_group_norm_refuses_an_unknown_data_format():
    with pytest.raises(ValueError, match=r"GroupNorm: data_format='NWC' is not one of"):
        nn.GroupNorm(2, 4, data_format="NWC")
    with pytest.raises(ValueError, match=r"group_norm: data_format='CHW' is not supported"):
        F.group_norm(core.to_tensor(RNG.standard_normal((2, 4, 3))), 2, data_format="CHW")


def _with_torch(layer, ref, x, params) -> list[tuple[str, np.ndarray, np.ndarray, float]]:
    """(what, core's, torch's, tolerance) for the output, the input gradient and each
    parameter's gradient, both layers run from the same weights on ``x``."""
    torch = pytest.importorskip("torch")
    for mine, theirs in params:
        # reshaped: LayerNorm's weight is flat [prod(normalized_shape)], as Paddle's
        theirs.data = torch.tensor(getattr(layer, mine).numpy()).reshape(theirs.shape)
    xt = core.to_tensor(x, stop_gradient=False)
    out = layer(xt)
    g = RNG.standard_normal(out.shape).astype(np.float32)
    out.backward(core.to_tensor(g))
    t = torch.tensor(x, requires_grad=True)
    want = ref(t)
    want.backward(torch.tensor(g))
    pairs = [("output", out.numpy(), want.detach().numpy(), 1e-4),
             ("input gradient", xt.gradient(), t.grad.numpy(), 1e-3)]
    pairs += [(f"{mine} gradient", getattr(layer, mine).gradient(),
               theirs.grad.numpy().reshape(getattr(layer, mine).shape), 1e-3)
              for mine, theirs in params]
    return pairs


def test_layers_match_torch_with_paddle_defaults():
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal((3, 4, 5, 6)).astype(np.float32)
    ln, tln = nn.LayerNorm([5, 6]), torch.nn.LayerNorm([5, 6], eps=1e-5)
    ln.weight.set_value(RNG.standard_normal(30).astype(np.float32))  # Paddle's flat [5 * 6]
    gn, tgn = nn.GroupNorm(2, 4), torch.nn.GroupNorm(2, 4, eps=1e-5)
    gn.bias.set_value(RNG.standard_normal(4).astype(np.float32))
    inn, tin = nn.InstanceNorm2D(4), torch.nn.InstanceNorm2d(4, eps=1e-5, affine=True)
    checks = (_with_torch(ln, tln, x, [("weight", tln.weight), ("bias", tln.bias)])
              + _with_torch(gn, tgn, x, [("weight", tgn.weight), ("bias", tgn.bias)])
              + _with_torch(inn, tin, x, [("scale", tin.weight), ("bias", tin.bias)]))
    assert len(checks) == 12
    for what, mine, theirs, rtol in checks:
        np.testing.assert_allclose(mine, theirs, rtol=rtol, atol=rtol / 10, err_msg=what)


def test_paddle_specifics_defaults_names_and_no_affine():
    """Paddle: epsilon 1e-5; LayerNorm weight/bias ones/zeros; InstanceNorm's 'scale'."""
    assert nn.LayerNorm(4).epsilon == 1e-5 and nn.GroupNorm(2, 4).epsilon == 1e-5
    assert list(nn.InstanceNorm2D(3).state_dict()) == ["scale", "bias"]
    ln = nn.LayerNorm(4, weight_attr=False, bias_attr=False)
    assert ln.parameters() == []
    x = RNG.standard_normal((2, 4)) * 3 + 1
    out = ln(core.to_tensor(x)).numpy()
    want = (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(out, want, rtol=1e-10)
    with pytest.raises(ValueError, match="trailing"):
        ln(core.to_tensor(np.zeros((4, 2))))
    with pytest.raises(ValueError, match="divisible"):
        nn.GroupNorm(3, 4)


@pytest.mark.parametrize("data_format, shape", [("NCHW", (0, 6, 3, 3)), ("NHWC", (0, 3, 3, 6))])
def test_group_norm_of_an_empty_batch(data_format, shape):
    """reshape(0, groups, -1) cannot infer -1: an empty batch raised a bare numpy error."""
    layer = nn.GroupNorm(2, 6, data_format=data_format)
    x = core.to_tensor(np.zeros(shape, np.float32), stop_gradient=False)
    out = layer(x)
    assert out.shape == list(shape)
    out.sum().backward()
    assert x.grad.shape == list(shape)


def test_group_norm_names_a_channel_count_that_does_not_match_the_weight():
    """A channels-last input given as channels-first (or the reverse) used to fail in a bare
    reshape ("cannot reshape array of size 6 into shape (1,4,1,1)")."""
    layer = nn.GroupNorm(2, 6, data_format="NHWC")
    with pytest.raises(ValueError, match=r"group_norm: weight has 6 values, but the input has "
                                         r"4 channels \(axis -1 of its NHWC layout\)"):
        layer(core.to_tensor(np.zeros((2, 6, 3, 4), np.float32)))
    with pytest.raises(ValueError, match=r"bias has 3 values, but the input has 4 channels "
                                         r"\(axis 1 of its NCHW layout\)"):
        F.group_norm(core.to_tensor(np.zeros((2, 4, 3))), 2, bias=core.to_tensor(np.zeros(3)))


def test_layer_norm_of_an_empty_batch():
    x = core.to_tensor(np.zeros((0, 3, 4), np.float32), stop_gradient=False)
    out = F.layer_norm(x, [3, 4])
    out.sum().backward()
    assert out.shape == [0, 3, 4] and x.grad.shape == [0, 3, 4]


def test_layer_norm_loads_the_earlier_unflattened_weights():
    """LayerNorm([4, 5])'s weight and bias are Paddle's flat [20]; a state saved by core before
    (weight [4, 5]) still loads, reshaped, also with strict=True; other shapes are refused."""
    ln = nn.LayerNorm([4, 5])
    weight = RNG.standard_normal((4, 5)).astype(np.float32)
    assert ln.set_state_dict({"weight": weight, "bias": np.ones((4, 5), np.float32)},
                             strict=True) == ([], [])
    np.testing.assert_array_equal(ln.weight.numpy(), weight.reshape(20))
    np.testing.assert_array_equal(ln.bias.numpy(), np.ones(20))
    with pytest.raises(ValueError, match=r"weight: saved \[5, 4\] vs model \[20\]"):
        ln.set_state_dict({"weight": weight.reshape(5, 4), "bias": np.ones(20, np.float32)},
                          strict=True)
    net = nn.Sequential(nn.Linear(5, 5), nn.LayerNorm([5]))  # 1-D: nothing to reshape
    with pytest.raises(ValueError, match="Shape mismatches"):
        net.set_state_dict({**net.state_dict(), "1.weight": np.ones((1, 5), np.float32)},
                           strict=True)
