"""cross_entropy(label_smoothing=...): values against torch, gradients, the layer, errors."""
import numpy as np
import pytest

import core
from core import nn
from core.nn import functional as F
from tests.gradcheck import check_grad

RNG = np.random.default_rng(3)
LOGITS = RNG.normal(size=(6, 5))
LABELS = np.array([0, 3, -100, 4, 1, 2])  # one ignored row
WEIGHT = RNG.uniform(0.5, 2.0, size=5)


def _torch_ce(logits, labels, weight=None, **kwargs):
    torch = pytest.importorskip("torch")
    weight = None if weight is None else torch.tensor(weight)
    return torch.nn.functional.cross_entropy(torch.tensor(logits), torch.tensor(labels),
                                             weight, **kwargs).numpy()


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weight", [None])  # with weight core follows Paddle, not torch:
def test_hard_labels_match_torch(reduction, weight):  # test_paddle_agreement_loss.py
    got = F.cross_entropy(core.to_tensor(LOGITS), core.to_tensor(LABELS),
                          None if weight is None else core.to_tensor(weight),
                          reduction=reduction, label_smoothing=0.1)
    expected = _torch_ce(LOGITS, LABELS, weight, reduction=reduction, label_smoothing=0.1)
    assert got.shape == list(expected.shape)
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-12, atol=1e-12)


def test_custom_ignore_index_another_axis_and_label_with_the_axis_kept():
    logits = RNG.normal(size=(2, 4, 3))  # classes on axis 1, as torch's [N, C, d]
    labels = np.array([[1, 3, 7], [0, 7, 2]])
    got = F.cross_entropy(core.to_tensor(logits), core.to_tensor(labels[:, None, :]),
                          ignore_index=7, axis=1, label_smoothing=0.2)
    expected = _torch_ce(logits, labels, ignore_index=7, label_smoothing=0.2)
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-12)


def test_soft_labels_are_smoothed_toward_uniform():
    soft = RNG.dirichlet(np.ones(5), size=6)
    for reduction in ("mean", "sum"):
        got = F.cross_entropy(core.to_tensor(LOGITS), core.to_tensor(soft), soft_label=True,
                              reduction=reduction, label_smoothing=0.3)
        expected = _torch_ce(LOGITS, soft, reduction=reduction, label_smoothing=0.3)
        np.testing.assert_allclose(got.numpy(), expected, rtol=1e-12)


def test_probability_input_equals_the_smoothed_soft_target():
    probs = np.exp(LOGITS) / np.exp(LOGITS).sum(axis=1, keepdims=True)
    probs[2, 0] = 0.0  # the ignored row may hold a zero: it must not make the loss NaN
    labels = core.to_tensor(LABELS)
    got = F.cross_entropy(core.to_tensor(probs), labels, use_softmax=False,
                          label_smoothing=0.1, reduction="none")
    with_softmax = F.cross_entropy(core.to_tensor(LOGITS), labels, label_smoothing=0.1,
                                   reduction="none")
    expected = with_softmax.numpy()
    expected[2] = 0.0
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-12)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("use_softmax", [True, False])
def test_gradients_match_finite_differences(reduction, use_softmax):
    logits = LOGITS if use_softmax else RNG.uniform(0.1, 1.0, size=LOGITS.shape)
    labels = core.to_tensor(LABELS)
    weight = core.to_tensor(WEIGHT)

    def fn(x):
        return F.cross_entropy(x, labels, weight, reduction=reduction, use_softmax=use_softmax,
                               label_smoothing=0.15)

    check_grad(fn, logits)
    check_grad(lambda x: F.cross_entropy(x, labels, reduction=reduction,
                                         use_softmax=use_softmax, label_smoothing=0.15), logits)


def test_soft_label_gradients_reach_input_and_label():
    soft = RNG.dirichlet(np.ones(5), size=6)
    check_grad(lambda x, y: F.cross_entropy(x, y, soft_label=True, label_smoothing=0.2),
               LOGITS, soft)


def test_zero_smoothing_is_the_default_path_bit_for_bit():
    x = core.to_tensor(LOGITS.astype(np.float32), stop_gradient=False)
    labels = core.to_tensor(LABELS)
    plain = F.cross_entropy(x, labels, core.to_tensor(WEIGHT.astype(np.float32)))
    plain.backward()
    grad = x.gradient()
    # no gradient, not zeros, before the second backward: adding into zeros turns a -0.0 of the
    # ignored row (cupy gives one) into +0.0, a difference of accumulation, not of the loss
    x.clear_grad(set_to_zero=False)
    zero = F.cross_entropy(x, labels, core.to_tensor(WEIGHT.astype(np.float32)),
                           label_smoothing=0.0)
    zero.backward()
    assert plain.numpy().tobytes() == zero.numpy().tobytes()
    assert grad.tobytes() == x.gradient().tobytes()


def test_the_layer_takes_label_smoothing_in_paddles_position():
    layer = nn.CrossEntropyLoss(None, -100, "mean", False, -1, True, 0.1)
    assert layer.label_smoothing == 0.1
    x, y = core.to_tensor(LOGITS), core.to_tensor(LABELS)
    np.testing.assert_array_equal(layer(x, y).numpy(),
                                  F.cross_entropy(x, y, label_smoothing=0.1).numpy())
    # the functional's position too: after use_softmax, before name
    np.testing.assert_array_equal(
        F.cross_entropy(x, y, None, -100, "mean", False, -1, True, 0.1).numpy(),
        layer(x, y).numpy())


@pytest.mark.parametrize("bad", [-0.1, 1.0, 1.5, float("nan"), "0.1", True])
def test_label_smoothing_outside_0_1_is_refused(bad):
    x, y = core.to_tensor(LOGITS), core.to_tensor(LABELS)
    with pytest.raises(ValueError, match="label_smoothing"):
        F.cross_entropy(x, y, label_smoothing=bad)
    with pytest.raises(ValueError, match="label_smoothing"):
        nn.CrossEntropyLoss(label_smoothing=bad)
