"""core.nn.fusion: at inference a Sequential runs Conv2D + BatchNorm2D as one convolution with
the same result, and only where nobody could tell (no gradient, running statistics, no hooks)."""
import numpy as np
import pytest

import core
from core import nn
from core.inference import Inference
from core.nn import functional as F
from core.nn import fusion, norm


@pytest.fixture
def batch_norm_calls(monkeypatch):
    """How many batch norms ran outside a fold."""
    calls = []
    real = norm.batch_norm

    def counted(*args, **kwargs):
        calls.append(args[0].shape)
        return real(*args, **kwargs)

    monkeypatch.setattr(norm, "batch_norm", counted)
    return calls


def _trained(model, x, steps=3):
    """Running statistics and affine parameters away from their initial ones."""
    opt = core.optimizer.SGD(0.1, parameters=model.parameters())
    model.train()
    for _ in range(steps):
        (model(core.to_tensor(x)) ** 2).mean().backward()
        opt.step()
        opt.clear_grad()
    model.eval()
    return model


def _layer_by_layer(model, x):
    """The model's output with every layer called on its own (no fold)."""
    out = core.to_tensor(x)
    for layer in model:
        out = layer(out)
    return out.numpy()


CASES = {
    "plain": dict(conv={}, bn={}),
    "conv bias, strided, dilated": dict(conv=dict(stride=2, padding=2, dilation=2), bn={}),
    "groups": dict(conv=dict(groups=2, padding=1), bn={}),
    "bn without affine": dict(conv={}, bn=dict(weight_attr=False, bias_attr=False)),
    "no conv bias, NHWC": dict(conv=dict(bias_attr=False, data_format="NHWC"),
                               bn=dict(data_format="NHWC")),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_fold_gives_the_two_layers_result(case, batch_norm_calls):
    core.seed(0)
    spec = CASES[case]
    channels_last = spec["bn"].get("data_format") == "NHWC"
    model = nn.Sequential(nn.Conv2D(4, 6, 3, **spec["conv"]),
                          nn.BatchNorm2D(6, **spec["bn"]), nn.ReLU())
    x = np.random.default_rng(0).standard_normal(
        (5, 9, 9, 4) if channels_last else (5, 4, 9, 9)).astype(np.float32)
    _trained(model, x)
    with core.no_grad():
        want = _layer_by_layer(model, x)
        calls = len(batch_norm_calls)
        got = model(core.to_tensor(x)).numpy()
    assert len(batch_norm_calls) == calls  # folded: no batch norm of its own ran
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def _model_and_data():
    core.seed(1)
    model = nn.Sequential(("conv", nn.Conv2D(3, 4, 3, padding=1)), ("bn", nn.BatchNorm2D(4)),
                          ("flat", nn.Flatten()), ("fc", nn.Linear(4 * 6 * 6, 2)))
    x = np.random.default_rng(2).standard_normal((4, 3, 6, 6)).astype(np.float32)
    return _trained(model, x), x


def test_no_fold_while_training_recording_gradients_or_on_batch_statistics(batch_norm_calls):
    model, x = _model_and_data()
    batch_norm_calls.clear()
    model.train()
    with core.no_grad():  # training mode: batch statistics
        model(core.to_tensor(x))
    model.eval()
    model(core.to_tensor(x))  # a gradient is being recorded
    model["bn"].use_global_stats = False  # eval, but told to use the batch's statistics
    with core.no_grad():
        model(core.to_tensor(x))
    assert len(batch_norm_calls) == 3
    model["bn"].use_global_stats = None
    with core.no_grad():
        model(core.to_tensor(x))
    assert len(batch_norm_calls) == 3


def test_a_hook_or_a_layer_output_request_keeps_the_layers_apart(batch_norm_calls):
    """Inference reads a layer's output through a hook: the convolution's own output is made."""
    model, x = _model_and_data()
    batch_norm_calls.clear()
    out = Inference(model, output_layer=["conv", "fc"]).infer(x)
    assert len(batch_norm_calls) == 1
    model.eval()
    with core.no_grad():
        raw = model["conv"](core.to_tensor(x)).numpy()
    np.testing.assert_allclose(out["conv"], raw, rtol=1e-6)
    seen = []
    handle = model["bn"].register_forward_pre_hook(lambda layer, inputs: seen.append(1))
    with core.no_grad():
        model(core.to_tensor(x))
    assert seen and len(batch_norm_calls) == 2
    handle.remove()
    with core.no_grad():
        model(core.to_tensor(x))
    assert len(batch_norm_calls) == 2


def test_a_layer_that_redefines_forward_is_not_folded(batch_norm_calls):
    class Shifted(nn.BatchNorm2D):
        def forward(self, x):
            return super().forward(x) + 1.0

    core.seed(0)
    model = nn.Sequential(nn.Conv2D(2, 3, 1), Shifted(3))
    model.eval()
    x = np.ones((1, 2, 2, 2), np.float32)
    with core.no_grad():
        out = model(core.to_tensor(x)).numpy()
    assert len(batch_norm_calls) == 1
    np.testing.assert_allclose(out, _layer_by_layer(model, x), rtol=1e-6)


def test_the_folded_kernel_follows_the_current_weights():
    """Nothing is cached: a changed kernel or running statistic shows at the next call."""
    model, x = _model_and_data()
    with core.no_grad():
        before = model(core.to_tensor(x)).numpy()
        model["bn"]._variance.data[...] *= 4.0
        model["conv"].weight.data[...] *= -1.0
        after = model(core.to_tensor(x)).numpy()
        want = _layer_by_layer(model, x)
    assert not np.allclose(before, after)
    np.testing.assert_allclose(after, want, rtol=1e-5, atol=1e-6)


def test_conv_bn_answers_none_for_other_layer_pairs():
    with core.no_grad():
        x = core.to_tensor(np.ones((1, 2, 3, 3), np.float32))
        conv = nn.Conv2D(2, 2, 1)
        assert fusion.conv_bn(conv, nn.ReLU(), x) is None
        assert fusion.conv_bn(conv, nn.BatchNorm2D(2, data_format="NHWC"), x) is None
        bn = nn.BatchNorm2D(2)
        bn.eval()
        folded = fusion.conv_bn(conv, bn, x).numpy()
        np.testing.assert_allclose(folded, bn(F.conv2d(x, conv.weight, conv.bias)).numpy(),
                                   rtol=1e-6)


def test_an_o2_decorated_pair_is_left_apart_and_runs_in_eval(batch_norm_calls):
    # After amp.decorate(level='O2') the kernel is float16 and the batch norm float32: the
    # separate layers give a float32 result, so the pair must not be folded (a folded float32
    # kernel refused the float16 input: "conv2d: x (float16) and weight (float32)").
    from core import amp  # noqa: PLC0415

    model, x = _model_and_data()
    model = amp.decorate(models=model, level="O2")
    model.eval()
    batch_norm_calls.clear()
    x16 = core.to_tensor(x.astype(np.float16))
    with core.no_grad():
        got = model(x16)
    assert len(batch_norm_calls) == 1
    np.testing.assert_array_equal(got.numpy(), _layer_by_layer(model, x.astype(np.float16)))
