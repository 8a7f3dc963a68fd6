"""ctc_loss and CTCLoss (core/nn/functional/loss_ctc.py): Paddle's documented example, values and
gradients against torch (on log_softmax'd logits: Paddle's warp-ctc applies the softmax itself),
float64 gradients against finite differences, Paddle's reductions and norm_by_times, infeasible
samples, the layer, and argument errors."""
import numpy as np
import pytest

import core
from core import nn
from core.nn import functional as F
from tests.gradcheck import check_grad

RNG = np.random.default_rng(23)
REDUCTIONS = ["mean", "sum", "none"]


def t(values, dtype=None, grad=False):
    return core.to_tensor(np.asarray(values), dtype=dtype, stop_gradient=not grad)


def _batch():
    """Logits [7, 4, 5] with repeated labels, an empty label, padding past each length."""
    logits = RNG.normal(size=(7, 4, 5))
    labels = np.array([[1, 2, 2, 9], [3, 3, -1, -1], [4, 1, 2, 3], [7, 7, 7, 7]])
    return logits, labels, np.array([7, 5, 6, 3]), np.array([3, 2, 4, 0])


def _paddle_example():
    logits = np.array([
        [[4.17021990e-01, 7.20324516e-01, 1.14374816e-04],
         [3.02332580e-01, 1.46755889e-01, 9.23385918e-02]],
        [[1.86260208e-01, 3.45560730e-01, 3.96767467e-01],
         [5.38816750e-01, 4.19194520e-01, 6.85219526e-01]],
        [[2.04452246e-01, 8.78117442e-01, 2.73875929e-02],
         [6.70467496e-01, 4.17304814e-01, 5.58689833e-01]],
        [[1.40386939e-01, 1.98101491e-01, 8.00744593e-01],
         [9.68261600e-01, 3.13424170e-01, 6.92322612e-01]],
        [[8.76389146e-01, 8.94606650e-01, 8.50442126e-02],
         [3.90547849e-02, 1.69830427e-01, 8.78142476e-01]]], dtype="float32")
    return logits, np.array([[1, 2, 2], [1, 2, 2]], "int32"), np.array([5, 5]), np.array([3, 3])


def test_paddles_documented_example():
    logits, labels, il, ll = _paddle_example()
    args = (t(logits), t(labels), t(il), t(ll))
    none = F.ctc_loss(*args, blank=0, reduction="none")
    assert none.dtype == np.float32 and none.shape == [2]
    np.testing.assert_allclose(none.numpy(), [3.91798496, 2.90765190], rtol=1e-6)
    mean = nn.CTCLoss(blank=0, reduction="mean")(*args)
    assert mean.shape == [] and mean.item() == pytest.approx(1.13760614, rel=1e-6)


@pytest.mark.parametrize("blank", [0, 4])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_values_and_gradients_match_torch(reduction, blank):
    torch = pytest.importorskip("torch")
    logits, labels, il, ll = _batch()
    ll = ll.copy()
    ll[3] = 1  # torch's "mean" clamps an empty label's length to 1; Paddle divides by it
    labels = np.where(labels == blank, (blank + 1) % 5, labels)
    labels = np.where((labels < 0) | (labels > 4), 0 if blank else 1, labels)
    x = t(logits, grad=True)
    out = F.ctc_loss(x, t(labels), t(il), t(ll), blank=blank, reduction=reduction)
    weights = RNG.uniform(0.5, 1.5, out.shape)
    out.backward(t(weights))
    tx = torch.tensor(logits, requires_grad=True)
    want = torch.nn.functional.ctc_loss(
        tx.log_softmax(2), torch.tensor(labels), torch.tensor(il), torch.tensor(ll),
        blank=blank, reduction=reduction)
    (want * torch.tensor(weights)).sum().backward()
    np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=1e-10)
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_gradients_against_finite_differences(reduction):
    logits, labels, il, ll = _batch()
    ll = np.maximum(ll, 1)  # "mean" divides by the label length
    labels[3, 0] = 2

    def loss(x):
        return F.ctc_loss(x, t(labels), t(il), t(ll), blank=0, reduction=reduction)

    check_grad(loss, logits)
    layer = nn.CTCLoss(blank=4, reduction=reduction)
    check_grad(lambda x: layer(x, t(labels[:2] % 4), t(il[:2]), t(ll[:2])), logits[:, :2])


def test_empty_labels_and_frames_past_the_length():
    logits, labels, il, ll = _batch()
    x = t(logits, grad=True)
    out = F.ctc_loss(x, t(labels), t(il), t(ll), reduction="none")
    lp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    assert out.numpy()[3] == pytest.approx(-lp[:3, 3, 0].sum(), rel=1e-12)  # blanks only
    out.sum().backward()
    for b, n in enumerate(il):
        np.testing.assert_array_equal(x.grad.numpy()[n:, b], 0)
    assert np.isinf(F.ctc_loss(x, t(labels), t(il), t(ll), reduction="mean").item())


def test_mean_divides_each_loss_by_its_label_length():
    logits, labels, il, ll = _batch()
    ll = np.array([3, 2, 4, 1])
    args = (t(logits), t(labels % 4 + 1), t(il), t(ll))
    none = F.ctc_loss(*args, reduction="none").numpy()
    assert F.ctc_loss(*args).item() == pytest.approx((none / ll).mean(), rel=1e-12)
    assert F.ctc_loss(*args, reduction="sum").item() == pytest.approx(none.sum(), rel=1e-12)


def test_norm_by_times_scales_the_gradient_not_the_loss():
    logits, labels, il, ll = _batch()
    plain, normed = t(logits, grad=True), t(logits, grad=True)
    a = F.ctc_loss(plain, t(labels), t(il), t(ll), reduction="sum")
    b = nn.CTCLoss(reduction="sum")(normed, t(labels), t(il), t(ll), norm_by_times=True)
    assert a.item() == b.item()
    a.backward()
    b.backward()
    np.testing.assert_allclose(normed.grad.numpy(), plain.grad.numpy() / il[None, :, None],
                               rtol=1e-12)


def test_infeasible_sample_gives_zero_loss_and_gradient():
    torch = pytest.importorskip("torch")
    logits = RNG.normal(size=(3, 2, 4))
    labels = np.array([[1, 1, 2], [1, 2, 3]])  # 1 1 2 needs 4 frames (a blank between the 1s)
    il, ll = np.array([3, 3]), np.array([3, 3])
    x = t(logits, grad=True)
    out = F.ctc_loss(x, t(labels), t(il), t(ll), reduction="none")
    out.sum().backward()
    tx = torch.tensor(logits, requires_grad=True)
    want = torch.nn.functional.ctc_loss(tx.log_softmax(2), torch.tensor(labels),
                                        torch.tensor(il), torch.tensor(ll), reduction="none",
                                        zero_infinity=True)
    want.sum().backward()
    assert out.numpy()[0] == 0
    np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=1e-10)
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), atol=1e-12)


def test_float32_long_sequences_stay_finite():
    logits = (RNG.normal(size=(200, 2, 6)) * 8).astype(np.float32)
    labels = RNG.integers(1, 6, size=(2, 40))
    x = t(logits, grad=True)
    out = F.ctc_loss(x, t(labels), t(np.array([200, 150])), t(np.array([40, 30])))
    out.backward()
    assert out.dtype == np.float32 and np.isfinite(out.item())
    assert x.grad.dtype == np.float32 and np.isfinite(x.grad.numpy()).all()


def test_numpy_inputs_and_layer_repr():
    logits, labels, il, ll = _paddle_example()
    assert F.ctc_loss(logits, labels, il, ll).item() == pytest.approx(1.13760614, rel=1e-6)
    assert repr(nn.CTCLoss(blank=2, reduction="sum")).endswith("(blank=2, reduction=sum)")


def test_bad_arguments_raise_errors_that_name_them():
    logits, labels, il, ll = _paddle_example()
    x, y, i, n = t(logits), t(labels), t(il), t(ll)
    cases = [
        (lambda: F.ctc_loss(t(logits[0]), y, i, n), "log_probs must be a 3-D floating"),
        (lambda: F.ctc_loss(t(logits.astype("int64")), y, i, n), "log_probs must"),
        (lambda: F.ctc_loss(x, t(labels[:1]), i, n), r"labels must be an integer tensor of "
                                                     r"shape \[batch, max_label_length\] with "
                                                     r"batch=2"),
        (lambda: F.ctc_loss(x, t(labels.astype("float32")), i, n), "labels must be an integer"),
        (lambda: F.ctc_loss(x, y, i, n, blank=3), r"blank=3 must be an int in \[0, 3\)"),
        (lambda: F.ctc_loss(x, y, i, n, blank=True), "blank=True"),
        (lambda: F.ctc_loss(x, y, t([6, 5]), n), r"input_lengths holds 6; each must be in "
                                                 r"\[1, 5\]"),
        (lambda: F.ctc_loss(x, y, t([0, 5]), n), "input_lengths holds 0"),
        (lambda: F.ctc_loss(x, y, i, t([4, 3])), r"label_lengths holds 4; each must be in "
                                                 r"\[0, 3\]"),
        (lambda: F.ctc_loss(x, y, t([5.0, 5.0]), n), r"input_lengths must be an integer tensor "
                                                     r"of shape \[2\]"),
        (lambda: F.ctc_loss(x, y, i, t([3])), "label_lengths must be an integer tensor"),
        (lambda: F.ctc_loss(x, t([[1, 0, 2], [1, 2, 2]]), i, n),
         r"label value 0 is not allowed; labels must be in \[0, 3\) and differ from blank"),
        (lambda: F.ctc_loss(x, t([[1, 3, 2], [1, 2, 2]]), i, n), "label value 3"),
        (lambda: F.ctc_loss(x, y, i, n, reduction="batchmean"), "reduction='batchmean'"),
        (lambda: nn.CTCLoss(reduction="avg"), "CTCLoss: reduction='avg'"),
        (lambda: nn.CTCLoss(blank=-1), "CTCLoss: blank=-1"),
    ]
    for call, words in cases:
        with pytest.raises(ValueError, match=words):
            call()
    with pytest.raises(TypeError, match="ctc_loss: input_lengths must be a Tensor"):
        F.ctc_loss(x, y, [5, 5], n)


def test_padding_labels_past_the_length_are_ignored():
    logits, labels, il, ll = _paddle_example()
    padded = np.concatenate([labels, np.full((2, 2), -7, labels.dtype)], axis=1)
    a = F.ctc_loss(t(logits), t(labels), t(il), t(ll), reduction="none").numpy()
    b = F.ctc_loss(t(logits), t(padded), t(il), t(ll), reduction="none").numpy()
    np.testing.assert_array_equal(a, b)
