"""MarginRankingLoss, HingeEmbeddingLoss, CosineEmbeddingLoss, SoftMarginLoss,
MultiLabelSoftMarginLoss, TripletMarginLoss, PoissonNLLLoss, GaussianNLLLoss and MultiMarginLoss:
float64 gradients against finite differences, values and gradients against torch with Paddle's
defaults, Paddle's own rules where it differs from torch (against numpy formulas), reductions,
layers, argument errors and float32 at extremes."""
import math

import numpy as np
import pytest

import core
from core import nn
from core.nn import functional as F
from tests.gradcheck import check_grad

RNG = np.random.default_rng(11)
REDUCTIONS = ["mean", "sum", "none"]


def t(values, grad=False):
    return core.to_tensor(np.asarray(values), stop_gradient=not grad)


def _signs(n):
    return np.where(RNG.random(n) < 0.5, -1.0, 1.0)


def _away_from(values, kink, gap=0.05):
    """Shift ``values`` so that none lies within ``gap`` of ``kink`` (finite differences across a
    kink straddle two pieces)."""
    near = np.abs(values - kink) < gap
    return np.where(near, kink + np.sign(values - kink + 1e-12) * 2 * gap, values)


def _ranking_data(n=6):
    x, o, y = RNG.normal(size=n), RNG.normal(size=n), _signs(n)
    z = 0.3 - y * (x - o)  # margin 0.3: keep the hinge away from 0
    x = x + y * (_away_from(z, 0.0) - z) * -1
    return x, o, y


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_element_losses_gradients_against_finite_differences(reduction):
    x, o, y = _ranking_data()
    check_grad(lambda a, b, c: F.margin_ranking_loss(a, b, c, 0.3, reduction), x, o, y)
    check_grad(lambda a, b, c: nn.MarginRankingLoss(0.3, reduction)(a, b, c), x, o, y)
    h = _away_from(RNG.normal(size=(3, 4)), 1.2)
    labels = np.array([[1, -1, -1, 1], [-1, -1, 1, 0], [1, -1, -1, -1]], np.float64)
    check_grad(lambda a, b: F.hinge_embedding_loss(a, b, 1.2, reduction), h, labels, wrt=[0])
    check_grad(lambda a, b: nn.HingeEmbeddingLoss(1.2, reduction)(a, b), h, labels, wrt=[0])
    s, sy = RNG.normal(size=(3, 4)) * 3, _signs(12).reshape(3, 4)
    check_grad(lambda a, b: F.soft_margin_loss(a, b, reduction), s, sy)
    check_grad(lambda a, b: nn.SoftMarginLoss(reduction)(a, b), s, sy)
    rate, counts = RNG.normal(size=(3, 4)), RNG.integers(0, 6, (3, 4)).astype(np.float64)
    counts[counts == 1] = 3.0  # full=True's Stirling term switches on above 1
    for log_input in (True, False):
        x = rate if log_input else np.abs(rate) + 0.2
        check_grad(lambda a, b, li=log_input: F.poisson_nll_loss(a, b, li, True, 1e-8, reduction),
                   x, counts)
        check_grad(lambda a, b, li=log_input: nn.PoissonNLLLoss(li, reduction=reduction)(a, b),
                   x, counts)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_gaussian_nll_loss_gradients_for_each_variance_shape(reduction):
    x, y = RNG.normal(size=(4, 3)), RNG.normal(size=(4, 3))
    for var in (RNG.uniform(0.2, 2, (4, 3)), RNG.uniform(0.2, 2, (4, 1)),
                RNG.uniform(0.2, 2, (4,))):
        check_grad(lambda a, b, v: F.gaussian_nll_loss(a, b, v, reduction=reduction), x, y, var)
        check_grad(lambda a, b, v: nn.GaussianNLLLoss(True, 1e-6, reduction)(a, b, v), x, y, var)
    check_grad(lambda a, b, v: F.gaussian_nll_loss(a, b, v, True, reduction=reduction),
               x, y[:, :1], RNG.uniform(0.2, 2, (4, 3)))  # a label per row, broadcast


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_row_losses_gradients_against_finite_differences(reduction):
    a, b = RNG.normal(size=(5, 4)), RNG.normal(size=(5, 4))
    labels = np.array([1, -1, -1, 1, -1])
    cos = (a * b).sum(1) / np.sqrt((a * a).sum(1) * (b * b).sum(1))
    a[np.abs(cos - 0.2) < 0.05] *= -1  # keep cos - margin away from 0
    check_grad(lambda p, q, c: F.cosine_embedding_loss(p, q, c, 0.2, reduction), a, b, labels,
               wrt=[0, 1])
    check_grad(lambda p, q, c: nn.CosineEmbeddingLoss(0.2, reduction)(p, q, c), a, b, labels,
               wrt=[0, 1])
    anchor, pos, neg = (RNG.normal(size=(6, 4)) for _ in range(3))
    for p, swap in [(2.0, False), (1.0, False), (3.0, False), (2.0, True), (1.5, True)]:
        check_grad(lambda u, v, w, p=p, s=swap: F.triplet_margin_loss(u, v, w, 1.5, p, 1e-6, s,
                                                                      reduction),
                   anchor, pos, neg)
    check_grad(lambda u, v, w: nn.TripletMarginLoss(reduction=reduction, swap=True)(u, v, w),
               anchor, pos, neg)
    logits, targets = RNG.normal(size=(4, 5)) * 2, (RNG.random((4, 5)) < 0.5).astype(float)
    weight = RNG.uniform(0.5, 2, 5)
    check_grad(lambda u, v: F.multi_label_soft_margin_loss(u, v, reduction=reduction),
               logits, targets)
    check_grad(lambda u, v, w: F.multi_label_soft_margin_loss(u, v, w, reduction), logits,
               targets, weight, wrt=[0, 1])
    check_grad(lambda u, v: nn.MultiLabelSoftMarginLoss(t(weight), reduction)(u, v), logits,
               targets)
    scores, classes = RNG.normal(size=(6, 4)), np.array([0, 3, 1, 2, 3, 0])
    for p, w in [(1, None), (2, None), (1, weight[:4]), (2, weight[:4]), (3, None)]:
        check_grad(lambda u, c, p=p, w=w: F.multi_margin_loss(
            u, c, p, 0.8, None if w is None else t(w), reduction), scores, classes, wrt=[0])
    check_grad(lambda u, c: nn.MultiMarginLoss(2, 0.8, t(weight[:4]), reduction)(u, c), scores,
               classes, wrt=[0])


def test_against_torch_with_paddles_defaults():
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional

    def both(ours, theirs, *arrays, grads=None):
        """Values and gradients (for the inputs in ``grads``) of a 'none' loss, with a cosine
        upstream gradient, and the default 'mean' value."""
        grads = range(len(arrays)) if grads is None else grads
        mine = [core.to_tensor(a, stop_gradient=i not in grads) for i, a in enumerate(arrays)]
        them = [torch.tensor(a, requires_grad=i in grads and a.dtype.kind == "f")
                for i, a in enumerate(arrays)]
        out, want = ours(*mine, reduction="none"), theirs(*them, reduction="none")
        upstream = np.cos(np.arange(out.size)).reshape(out.shape)
        out.backward(core.to_tensor(upstream))
        want.backward(torch.tensor(upstream))
        np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=1e-9, atol=1e-12)
        for i in grads:
            np.testing.assert_allclose(mine[i].gradient(), them[i].grad.numpy(), rtol=1e-9,
                                       atol=1e-12, err_msg=f"input {i}")
        mean = ours(*[core.to_tensor(a) for a in arrays])
        assert mean.shape == []
        np.testing.assert_allclose(mean.item(), theirs(*map(torch.tensor, arrays)).item(),
                                   rtol=1e-9)

    x, o, y = _ranking_data(8)
    both(F.margin_ranking_loss, tf.margin_ranking_loss, x, o, y)
    both(lambda a, b, c, **k: F.margin_ranking_loss(a, b, c, 0.3, **k),
         lambda a, b, c, **k: tf.margin_ranking_loss(a, b, c, margin=0.3, **k), x, o, y)
    h, hy = RNG.normal(size=(3, 4)), _signs(12).reshape(3, 4)
    both(F.hinge_embedding_loss, tf.hinge_embedding_loss, h, hy, grads=[0])
    a, b, c = RNG.normal(size=(5, 3)), RNG.normal(size=(5, 3)), np.array([1, -1, 1, -1, -1])
    both(F.cosine_embedding_loss, tf.cosine_embedding_loss, a, b, c, grads=[0, 1])
    both(lambda *v, **k: F.cosine_embedding_loss(*v, margin=-0.3, **k),
         lambda *v, **k: tf.cosine_embedding_loss(*v, margin=-0.3, **k), a, b, c, grads=[0, 1])
    both(F.soft_margin_loss, tf.soft_margin_loss, h * 3, hy, grads=[0])  # torch: no label grad
    logits, targets = RNG.normal(size=(4, 5)), (RNG.random((4, 5)) < 0.5).astype(float)
    weight = RNG.uniform(0.5, 2, 5)
    both(F.multi_label_soft_margin_loss, tf.multilabel_soft_margin_loss, logits, targets)
    both(lambda u, v, **k: F.multi_label_soft_margin_loss(u, v, t(weight), **k),
         lambda u, v, **k: tf.multilabel_soft_margin_loss(u, v, torch.tensor(weight), **k),
         logits, targets)
    u, v, w = (RNG.normal(size=(6, 4)) for _ in range(3))
    both(F.triplet_margin_loss, tf.triplet_margin_loss, u, v, w)
    for p, swap in [(1.0, False), (3.0, True)]:
        both(lambda *z, p=p, s=swap, **k: F.triplet_margin_loss(*z, 0.5, p, 1e-4, s, **k),
             lambda *z, p=p, s=swap, **k: tf.triplet_margin_loss(*z, margin=0.5, p=p, eps=1e-4,
                                                                 swap=s, **k), u, v, w)
    rate, counts = RNG.normal(size=(3, 4)), RNG.integers(0, 6, (3, 4)).astype(np.float64)
    both(F.poisson_nll_loss, tf.poisson_nll_loss, rate, counts)
    # full=True: torch's label gradient is NaN where label <= 1 (its masked Stirling term
    # still differentiates log(0)); core's is that of the loss, without the term there
    both(lambda *z, **k: F.poisson_nll_loss(*z, log_input=False, full=True, **k),
         lambda *z, **k: tf.poisson_nll_loss(*z, log_input=False, full=True, **k),
         np.abs(rate) + 0.1, counts, grads=[0])
    mean, label = RNG.normal(size=(4, 3)), RNG.normal(size=(4, 3))
    var = RNG.uniform(0.1, 2, (4, 3))
    var[0, 0] = 1e-8  # below epsilon: the loss uses epsilon, the gradient passes straight
    both(F.gaussian_nll_loss, tf.gaussian_nll_loss, mean, label, var)
    both(lambda *z, **k: F.gaussian_nll_loss(*z, full=True, **k),
         lambda *z, **k: tf.gaussian_nll_loss(*z, full=True, **k), mean, label, var[:, 0])
    scores, classes = RNG.normal(size=(6, 4)), np.array([0, 3, 1, 2, 3, 0])
    both(F.multi_margin_loss, tf.multi_margin_loss, scores, classes, grads=[0])
    both(lambda *z, **k: F.multi_margin_loss(*z, p=2, margin=0.7, **k),
         lambda *z, **k: tf.multi_margin_loss(*z, p=2, margin=0.7, **k), scores, classes,
         grads=[0])
    cw = RNG.uniform(0.5, 2, 4)  # with weight: the same for p=1 (below for p=2)
    both(lambda *z, **k: F.multi_margin_loss(*z, weight=t(cw), **k),
         lambda *z, **k: tf.multi_margin_loss(*z, weight=torch.tensor(cw), **k), scores,
         classes, grads=[0])


def test_paddles_rules_where_torch_differs():
    # multi_margin_loss: Paddle 3.3.1 computes the class weight outside the power (its
    # docstring says inside; real Paddle's numbers: test_paddle_agreement_loss.py)
    scores, classes = RNG.normal(size=(5, 4)), np.array([2, 0, 1, 3, 2])
    w = RNG.uniform(0.5, 2, 4)
    z = 0.9 - scores[np.arange(5), classes][:, None] + scores
    z[np.arange(5), classes] = -1  # the label's own column does not count
    want = (w[classes][:, None] * np.maximum(0, z) ** 2).sum(1) / 4
    got = F.multi_margin_loss(t(scores), t(classes), 2, 0.9, t(w), "none").numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12)
    # hinge_embedding_loss: a label other than 1 and -1 contributes 0 (torch: both terms)
    got = F.hinge_embedding_loss(t([0.3, 2.0, 0.5]), t([0.0, 1.0, -1.0]), reduction="none")
    np.testing.assert_allclose(got.numpy(), [0.0, 2.0, 0.5])
    # cosine_embedding_loss: 1e-11 added to each squared norm (torch adds 1e-12)
    a, b = np.array([[1e-6, 0.0]]), np.array([[1e-6, 0.0]])
    got = F.cosine_embedding_loss(t(a), t(b), t([1]), reduction="none").item()
    assert got == pytest.approx(1 - 1e-12 / (1e-12 + 1e-11), rel=1e-9)
    # one pair of 1-D inputs and a label of shape [1], as Paddle allows
    one = F.cosine_embedding_loss(t([1.0, 0.0], grad=True), t([0.0, 1.0]), t([-1]), -0.5, "none")
    assert one.shape == [1] and one.item() == pytest.approx(0.5)


def test_reduced_and_unreduced_shapes():
    n = 4
    x = t(RNG.normal(size=(n, 3)))
    scores, other, signs = t(RNG.normal(size=n)), t(RNG.normal(size=n)), t(_signs(n))
    cases = [
        lambda r: F.margin_ranking_loss(scores, other, signs, reduction=r),
        lambda r: F.cosine_embedding_loss(x, x, t(np.ones(n, int)), reduction=r),
        lambda r: F.triplet_margin_loss(x, x, x, reduction=r),
        lambda r: F.multi_label_soft_margin_loss(x, t(np.ones((n, 3))), reduction=r),
        lambda r: F.multi_margin_loss(x, t(np.arange(n) % 3), reduction=r),
        lambda r: F.gaussian_nll_loss(x, x, t(np.ones(n)), reduction=r),
    ]
    for case in cases:
        assert case("none").shape[0] == n and case("mean").shape == [] == case("sum").shape
        assert case("sum").item() == pytest.approx(case("none").numpy().sum())
        assert case("mean").item() == pytest.approx(case("none").numpy().mean())


def test_float32_stays_finite_at_extremes():
    big = np.array([[100.0, -100.0, 1e4]], np.float32)
    signs = np.array([[-1.0, 1.0, -1.0]], np.float32)
    x = core.to_tensor(big, stop_gradient=False)
    loss = F.soft_margin_loss(x, core.to_tensor(signs), reduction="none")
    loss.sum().backward()
    assert loss.dtype == np.float32
    np.testing.assert_allclose(loss.numpy(), [[100.0, 100.0, 1e4]])  # log(1 + e^z) -> z
    np.testing.assert_allclose(x.gradient(), [[1.0, -1.0, 1.0]])
    x.clear_gradient()
    loss = F.multi_label_soft_margin_loss(x, core.to_tensor(np.array([[0, 1, 0]], np.float32)))
    loss.backward()
    assert loss.dtype == np.float32 and loss.item() == pytest.approx((100 + 100 + 1e4) / 3)
    assert np.isfinite(x.gradient()).all()
    var = core.to_tensor(np.array([[0.0, 1e-3, 5.0]], np.float32))
    loss = F.gaussian_nll_loss(x, core.to_tensor(np.zeros((1, 3), np.float32)), var)
    assert loss.dtype == np.float32 and np.isfinite(loss.item())  # variance 0 -> epsilon


def test_layers_hold_their_arguments():
    assert "reduction=sum" in repr(nn.TripletMarginLoss(reduction="sum"))
    layer = nn.TripletMarginLoss(0.5, 1.0, 1e-3, True)
    assert (layer.margin, layer.p, layer.epsilon, layer.swap) == (0.5, 1.0, 1e-3, True)
    assert nn.PoissonNLLLoss().epsilon == 1e-8 and nn.GaussianNLLLoss().epsilon == 1e-6
    assert nn.MultiMarginLoss().p == 1 and nn.CosineEmbeddingLoss().margin == 0
    assert nn.HingeEmbeddingLoss().margin == 1.0 and nn.MarginRankingLoss().margin == 0.0


def test_bad_arguments_raise_errors_that_name_them():
    x, y = t(RNG.normal(size=(3, 4))), t(RNG.normal(size=(3, 4)))
    labels = t(np.array([0, 1, 2]))
    cases = [
        (lambda: F.margin_ranking_loss(x, y, y, reduction="avg"), "reduction='avg'"),
        (lambda: nn.SoftMarginLoss("batchmean"), "SoftMarginLoss: reduction='batchmean'"),
        (lambda: F.margin_ranking_loss(x, y, y, margin="1"), "margin='1'"),
        (lambda: F.soft_margin_loss(x, t([1.0])), "same shape"),
        (lambda: F.hinge_embedding_loss(x, t([1.0, -1.0])), "same shape"),
        (lambda: F.poisson_nll_loss(x, y, epsilon=0), "epsilon=0"),
        (lambda: nn.PoissonNLLLoss(epsilon=-1.0), "PoissonNLLLoss: epsilon=-1.0"),
        (lambda: F.gaussian_nll_loss(x, y, t(-np.ones((3, 4)))), "variance has negative"),
        (lambda: F.gaussian_nll_loss(x, y, t(np.ones((3, 2)))), "variance of shape \\[3, 2\\]"),
        (lambda: F.gaussian_nll_loss(x, t(np.ones(3)), t(np.ones(3))), "label of shape \\[3\\]"),
        (lambda: nn.GaussianNLLLoss(epsilon=0.0), "epsilon=0.0"),
        (lambda: F.cosine_embedding_loss(x, y, labels, margin=1.5), "margin=1.5"),
        (lambda: nn.CosineEmbeddingLoss(-2), "CosineEmbeddingLoss: margin=-2"),
        (lambda: F.cosine_embedding_loss(x, t(np.ones((3, 3))), labels), "same shape"),
        (lambda: F.cosine_embedding_loss(x, y, t(np.ones((3, 1)))), "label of shape"),
        (lambda: F.triplet_margin_loss(x, y, y, margin=-0.1), "margin=-0.1"),
        (lambda: F.triplet_margin_loss(x, y, y, p=0), "p=0"),
        (lambda: nn.TripletMarginLoss(p=-1), "TripletMarginLoss: p=-1"),
        (lambda: F.triplet_margin_loss(x, y, t(np.ones((3, 3)))), "one shape"),
        (lambda: F.multi_label_soft_margin_loss(x, y, t(np.ones(3))), "weight of shape"),
        (lambda: F.multi_margin_loss(x, labels, p=0), "p=0"),
        (lambda: nn.MultiMarginLoss(p=1.5), "MultiMarginLoss: p=1.5"),
        (lambda: F.multi_margin_loss(x, t(np.array([0, 1, 4])), reduction="sum"),
         "label value 4 is out of range for 4 classes"),
        (lambda: F.multi_margin_loss(x, t(np.array([0.0, 1.0, 2.0]))), "label integers"),
        (lambda: F.multi_margin_loss(x, labels, weight=t(np.ones(3))), "weight of shape"),
    ]
    for call, words in cases:
        with pytest.raises(ValueError, match=words):
            call()
    with pytest.raises(TypeError, match="gaussian_nll_loss: variance"):
        F.gaussian_nll_loss(x, y, [1.0])


def test_numpy_batches_are_taken_as_tensors():
    x, y = RNG.normal(size=(3, 4)), _signs(12).reshape(3, 4)
    assert F.soft_margin_loss(x, y).item() == pytest.approx(
        np.log1p(np.exp(-x * y)).mean(), rel=1e-6)
    lab = np.array([1, 0, 3])
    assert np.isfinite(nn.MultiMarginLoss()(t(x), lab).item())
    assert math.isfinite(F.triplet_margin_loss(x, x + 1, x - 1).item())


# ----- sigmoid_focal_loss -------------------------------------------------------------------

def _focal_reference(x, y, alpha=0.25, gamma=2.0):
    """torchvision's sigmoid_focal_loss, written out in numpy (alpha always applied, as
    Paddle's)."""
    p = 1 / (1 + np.exp(-x))
    ce = -(y * np.log(p) + (1 - y) * np.log(1 - p))
    p_t = p * y + (1 - p) * (1 - y)
    return (alpha * y + (1 - alpha) * (1 - y)) * (1 - p_t) ** gamma * ce


@pytest.mark.parametrize("alpha, gamma", [(0.25, 2.0), (0.7, 0.0), (0.5, 1.5), (1, 3)])
def test_sigmoid_focal_loss_values_against_the_formula(alpha, gamma):
    x, y = RNG.normal(size=(4, 5)) * 3, (RNG.random((4, 5)) < 0.3).astype(float)
    per = _focal_reference(x, y, alpha, gamma)
    got = F.sigmoid_focal_loss(t(x), t(y), alpha=alpha, gamma=gamma, reduction="none")
    np.testing.assert_allclose(got.numpy(), per, rtol=1e-10, atol=1e-14)
    assert F.sigmoid_focal_loss(t(x), t(y), alpha=alpha, gamma=gamma).item() == \
        pytest.approx(per.sum(), rel=1e-10)  # Paddle's default reduction: "sum"
    mean = F.sigmoid_focal_loss(t(x), t(y), t([4.0]), alpha, gamma, reduction="mean")
    assert mean.shape == [] and mean.item() == pytest.approx(per.mean() / 4, rel=1e-10)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_sigmoid_focal_loss_gradients_against_finite_differences(reduction):
    x, y = RNG.normal(size=(3, 4)) * 2, RNG.random((3, 4))  # soft labels: label gradient too
    check_grad(lambda a, b: F.sigmoid_focal_loss(a, b, reduction=reduction), x, y)
    check_grad(lambda a, b, n: F.sigmoid_focal_loss(a, b, n, alpha=0.6, gamma=1.5,
                                                    reduction=reduction), x, y, np.array([2.5]))
    check_grad(lambda a, b, n: F.sigmoid_focal_loss(a, b, n, gamma=0, reduction=reduction),
               x, y, np.array(3.0))


def test_sigmoid_focal_loss_float32_stays_finite_at_extremes():
    x = t(np.array([[-80.0, -20.0, 0.0, 20.0, 80.0]], np.float32), grad=True)
    y = t(np.array([[1.0, 0.0, 1.0, 1.0, 0.0]], np.float32))
    out = F.sigmoid_focal_loss(x, y, reduction="none")
    out.sum().backward()
    assert out.dtype == np.float32 and np.isfinite(out.numpy()).all()
    assert np.isfinite(x.grad.numpy()).all()
    assert out.numpy()[0, 0] == pytest.approx(0.25 * 80, rel=1e-5)  # (1 - p_t) -> 1, ce -> 80


def test_sigmoid_focal_loss_bad_arguments():
    x, y = t(np.zeros((2, 3))), t(np.ones((2, 3)))
    cases = [
        (lambda: F.sigmoid_focal_loss(x, t(np.ones((3, 2)))), "same shape"),
        (lambda: F.sigmoid_focal_loss(x, y, reduction="batchmean"), "reduction='batchmean'"),
        (lambda: F.sigmoid_focal_loss(x, y, alpha=float("nan")), "alpha=nan"),
        (lambda: F.sigmoid_focal_loss(x, y, gamma="2"), "gamma='2'"),
        (lambda: F.sigmoid_focal_loss(x, y, t(np.ones(2))), r"normalizer must hold one value "
                                                           r"\(shape \[\] or \[1\]\), got shape "
                                                           r"\[2\]"),
    ]
    for call, words in cases:
        with pytest.raises(ValueError, match=words):
            call()
    with pytest.raises(TypeError, match="sigmoid_focal_loss: normalizer must be a Tensor"):
        F.sigmoid_focal_loss(x, y, 2.0)
