"""Element-wise losses: hand-computed values, reductions, torch, float64 gradient checks, layers."""
import math

import numpy as np
import pytest

import core
from core import nn
from core.nn import functional as F
from tests.gradcheck import check_grad

RNG = np.random.default_rng(5)


def t(values, grad=False):
    return core.to_tensor(np.asarray(values, dtype="float64"), stop_gradient=not grad)


def test_l1_and_smooth_l1_by_hand():
    x, y = t([0.5, -2.0, 3.0]), t([0.0, 0.0, 0.0])
    loss = F.l1_loss(x, y)
    assert loss.shape == []  # 0-D, as core.mean
    assert loss.item() == pytest.approx((0.5 + 2 + 3) / 3)
    assert F.l1_loss(x, y, reduction="sum").item() == pytest.approx(5.5)
    # delta = 1: 0.5*0.25 = 0.125; |z| >= 1: |z| - 0.5 -> 1.5 and 2.5
    np.testing.assert_allclose(F.smooth_l1_loss(x, y, reduction="none").numpy(),
                               [0.125, 1.5, 2.5])
    # delta = 2: 0.125; 0.5*4 would be 2 but |z| = 2 is not < 2: 2*(2 - 1) = 2; 2*(3 - 1) = 4
    np.testing.assert_allclose(F.smooth_l1_loss(x, y, reduction="none", delta=2.0).numpy(),
                               [0.125, 2.0, 4.0])


def test_bce_and_bce_with_logits_by_hand():
    p, y = t([0.8, 0.25]), t([1.0, 0.0])
    want = -(math.log(0.8) + math.log(0.75)) / 2
    assert F.binary_cross_entropy(p, y).item() == pytest.approx(want)
    # a certain wrong prediction: log(0) is clamped at -100, as in Paddle and torch
    assert F.binary_cross_entropy(t([0.0]), t([1.0])).item() == pytest.approx(100.0)
    logits = t([0.0, math.log(3.0)])  # sigmoid: 0.5 and 0.75
    got = F.binary_cross_entropy_with_logits(logits, y, reduction="none").numpy()
    np.testing.assert_allclose(got, [math.log(2), -math.log(0.25)])
    # pos_weight 3 triples the positive term only; weight rescales each element
    got = F.binary_cross_entropy_with_logits(logits, y, reduction="none", pos_weight=t([3.0]),
                                             weight=t([1.0, 2.0])).numpy()
    np.testing.assert_allclose(got, [3 * math.log(2), -2 * math.log(0.25)])
    # extreme logits stay finite
    big = F.binary_cross_entropy_with_logits(t([1000.0, -1000.0]), t([0.0, 1.0]), reduction="sum")
    assert big.item() == pytest.approx(2000.0)


def test_kl_div_by_hand_for_every_reduction():
    target = np.array([[0.5, 0.5, 0.0], [0.25, 0.25, 0.5]])
    logp = np.log(np.array([[0.25, 0.5, 0.25], [0.5, 0.25, 0.25]]))
    elems = np.where(target > 0, target * (np.log(np.where(target > 0, target, 1)) - logp), 0)
    x, y = t(logp), t(target)
    np.testing.assert_allclose(F.kl_div(x, y, reduction="none").numpy(), elems)
    assert F.kl_div(x, y).item() == pytest.approx(elems.mean())
    assert F.kl_div(x, y, reduction="sum").item() == pytest.approx(elems.sum())
    assert F.kl_div(x, y, reduction="batchmean").item() == pytest.approx(elems.sum() / 2)
    # row 0: KL(target || p) = 0.5 log 2 = 0.3466 (the zero-target class adds nothing)
    assert F.kl_div(x, y, reduction="none").numpy()[0].sum() == pytest.approx(0.5 * math.log(2))
    logged = F.kl_div(x, t(np.log(target[1:].repeat(2, 0))), log_target=True, reduction="sum")
    same = F.kl_div(x, t(target[1:].repeat(2, 0)), reduction="sum")
    assert logged.item() == pytest.approx(same.item())


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_gradients_against_finite_differences(reduction):
    x, y = RNG.normal(size=(3, 4)), RNG.normal(size=(3, 4))
    y[0, 0] = x[0, 0] + 0.3  # inside smooth_l1's quadratic zone
    check_grad(lambda a, b: F.l1_loss(a, b, reduction), x, y)
    check_grad(lambda a, b: F.smooth_l1_loss(a, b, reduction, delta=0.8), x, y)
    p, q = RNG.uniform(0.1, 0.9, (3, 4)), RNG.uniform(0, 1, (3, 4))
    w = RNG.uniform(0.5, 2, (4,))
    check_grad(lambda a, b, c: F.binary_cross_entropy(a, b, c, reduction), p, q, w, wrt=[0, 1])
    check_grad(lambda a, b, c, d: F.binary_cross_entropy_with_logits(a, b, c, reduction, d),
               x, q, RNG.uniform(0.5, 2, (3, 1)), w, wrt=[0, 1])
    kl_reduction = "batchmean" if reduction == "mean" else reduction
    check_grad(lambda a, b: F.kl_div(a, b, kl_reduction), x, q)
    check_grad(lambda a, b: F.kl_div(a, b, kl_reduction, log_target=True), x, y)


def test_against_torch():
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional
    x, y = RNG.normal(size=(4, 3)), RNG.normal(size=(4, 3))
    p, q = RNG.uniform(0.05, 0.95, (4, 3)), RNG.uniform(0, 1, (4, 3))
    pw, w = RNG.uniform(0.5, 2, (3,)), RNG.uniform(0.5, 2, (4, 1))
    T = torch.tensor  # noqa: N806
    pairs = [
        (F.l1_loss(t(x), t(y)), tf.l1_loss(T(x), T(y))),
        (F.smooth_l1_loss(t(x), t(y), delta=0.7), tf.huber_loss(T(x), T(y), delta=0.7)),
        (F.binary_cross_entropy(t(p), t(q), t(w)), tf.binary_cross_entropy(T(p), T(q), T(w))),
        (F.binary_cross_entropy_with_logits(t(x), t(q), t(w), pos_weight=t(pw)),
         tf.binary_cross_entropy_with_logits(T(x), T(q), T(w), pos_weight=T(pw))),
        (F.kl_div(t(x), t(q), "batchmean"), tf.kl_div(T(x), T(q), reduction="batchmean")),
        (F.kl_div(t(x), t(y), "sum", log_target=True),
         tf.kl_div(T(x), T(y), reduction="sum", log_target=True)),
    ]
    for ours, theirs in pairs:
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-10)


def test_layers_match_the_functions_and_check_arguments():
    x, y = t(RNG.normal(size=(2, 3))), t(RNG.uniform(0, 1, (2, 3)))
    cases = [(nn.L1Loss(), F.l1_loss(x, y)), (nn.SmoothL1Loss(delta=0.5),
                                               F.smooth_l1_loss(x, y, delta=0.5)),
             (nn.BCEWithLogitsLoss(reduction="sum"),
              F.binary_cross_entropy_with_logits(x, y, reduction="sum")),
             (nn.KLDivLoss("batchmean"), F.kl_div(x, y, "batchmean"))]
    for layer, want in cases:
        assert layer(x, y).item() == pytest.approx(want.item())
    probs = t(RNG.uniform(0.1, 0.9, (2, 3)))
    assert nn.BCELoss()(probs, y).item() == pytest.approx(F.binary_cross_entropy(probs, y).item())
    assert "reduction=sum" in repr(nn.L1Loss("sum"))
    with pytest.raises(ValueError, match="batchmean"):
        nn.L1Loss("batchmean")
    with pytest.raises(ValueError, match="same shape"):
        F.l1_loss(x, t([1.0]))
    with pytest.raises(ValueError, match="delta"):
        F.smooth_l1_loss(x, y, delta=0.0)
