"""square_error_cost, label_smooth, softmax_with_cross_entropy, cosine_similarity and
avg_pool1d: gradients against float64 finite differences, values against torch."""
import numpy as np
import pytest

import core
from core import nn
from core.nn import functional as F
from tests.gradcheck import check_grad

RNG = np.random.default_rng(0)


def test_square_error_cost_values_and_gradients():
    a, b = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))
    out = F.square_error_cost(core.to_tensor(a), core.to_tensor(b))
    np.testing.assert_allclose(out.numpy(), (a - b) ** 2, rtol=1e-12)
    check_grad(F.square_error_cost, a, b)
    check_grad(F.square_error_cost, a, RNG.standard_normal((1, 4)))  # broadcast label
    assert F.square_error_cost(a.astype(np.float32), b.astype(np.float32)).shape == [3, 4]


def test_label_smooth_uniform_and_prior():
    label = np.eye(4)[[0, 2, 3]]
    out = F.label_smooth(core.to_tensor(label))
    np.testing.assert_allclose(out.numpy(), 0.9 * label + 0.025, rtol=1e-12)
    prior = np.array([[0.1, 0.2, 0.3, 0.4]])
    out = F.label_smooth(core.to_tensor(label), core.to_tensor(prior), epsilon=0.2)
    np.testing.assert_allclose(out.numpy(), 0.8 * label + 0.2 * prior, rtol=1e-12)
    check_grad(lambda t: F.label_smooth(t, epsilon=0.3), RNG.random((3, 4)))
    check_grad(lambda t, p: F.label_smooth(t, p, 0.3), RNG.random((3, 4)), RNG.random((1, 4)))
    f32 = F.label_smooth(core.to_tensor(label.astype(np.float32)))
    assert f32.dtype == np.float32
    with pytest.raises(ValueError, match="epsilon"):
        F.label_smooth(core.to_tensor(label), epsilon=1.5)
    with pytest.raises(TypeError, match="one_hot"):
        F.label_smooth(core.to_tensor(np.array([1, 2])))


@pytest.mark.parametrize("label_shape", ["with_axis", "without_axis"])
def test_softmax_with_cross_entropy_keeps_the_class_axis(label_shape):
    logits = RNG.standard_normal((5, 4))
    labels = np.array([0, 3, 1, -100, 2])
    lab = labels[:, None] if label_shape == "with_axis" else labels
    x = core.to_tensor(logits, stop_gradient=False)
    loss, soft = F.softmax_with_cross_entropy(x, core.to_tensor(lab), return_softmax=True)
    assert loss.shape == [5, 1] and soft.shape == [5, 4]
    logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    want = np.where(labels >= 0, -logp[np.arange(5), np.maximum(labels, 0)], 0)[:, None]
    np.testing.assert_allclose(loss.numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(soft.numpy(), np.exp(logp), rtol=1e-12)
    check_grad(lambda t: F.softmax_with_cross_entropy(t, core.to_tensor(lab)), logits)


def test_softmax_with_cross_entropy_soft_labels_other_axis_and_torch():
    torch = pytest.importorskip("torch")
    logits = RNG.standard_normal((2, 3, 4))
    soft = RNG.random((2, 3, 4))
    soft /= soft.sum(1, keepdims=True)
    loss = F.softmax_with_cross_entropy(core.to_tensor(logits), core.to_tensor(soft),
                                        soft_label=True, axis=1)
    assert loss.shape == [2, 1, 4]
    want = torch.nn.functional.cross_entropy(torch.tensor(logits), torch.tensor(soft),
                                             reduction="none")
    np.testing.assert_allclose(loss.numpy()[:, 0], want.numpy(), rtol=1e-12)
    check_grad(lambda t, s: F.softmax_with_cross_entropy(t, s, soft_label=True, axis=1),
               logits, soft)
    hard = RNG.integers(0, 3, (2, 1, 4))
    loss = F.softmax_with_cross_entropy(core.to_tensor(logits), core.to_tensor(hard), axis=1)
    want = torch.nn.functional.cross_entropy(torch.tensor(logits), torch.tensor(hard[:, 0]),
                                             reduction="none")
    np.testing.assert_allclose(loss.numpy()[:, 0], want.numpy(), rtol=1e-12)
    with pytest.raises(ValueError, match="does not fit"):
        F.softmax_with_cross_entropy(core.to_tensor(logits), core.to_tensor(np.zeros(2, int)))


@pytest.mark.parametrize("s1, s2, axis", [((4, 5), (4, 5), 1), ((3, 4, 5), (3, 4, 5), -1),
                                          ((4, 5), (1, 5), 1), ((2, 3, 4), (3, 4), 0)])
def test_cosine_similarity_gradients_and_torch(s1, s2, axis):
    a, b = RNG.standard_normal(s1), RNG.standard_normal(s2)
    check_grad(lambda x, y: F.cosine_similarity(x, y, axis), a, b)
    torch = pytest.importorskip("torch")
    layer = nn.CosineSimilarity(axis)
    xa, xb = core.to_tensor(a, stop_gradient=False), core.to_tensor(b, stop_gradient=False)
    out = layer(xa, xb)
    g = RNG.standard_normal(out.shape)
    out.backward(core.to_tensor(g))
    ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    want = torch.nn.functional.cosine_similarity(ta, tb, dim=axis)
    want.backward(torch.tensor(g))
    np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=1e-10)
    np.testing.assert_allclose(xa.gradient(), ta.grad.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(xb.gradient(), tb.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_cosine_similarity_of_a_zero_vector_is_zero_with_finite_gradient():
    a = core.to_tensor(np.zeros((2, 3)), stop_gradient=False)
    b = core.to_tensor(np.ones((2, 3)), stop_gradient=False)
    out = F.cosine_similarity(a, b)
    out.backward()
    np.testing.assert_array_equal(out.numpy(), [0, 0])
    assert np.isfinite(a.gradient()).all() and np.isfinite(b.gradient()).all()
    assert "axis=1" in repr(nn.CosineSimilarity())


@pytest.mark.parametrize("k, s, p, exclusive, ceil", [
    (2, None, 0, True, False), (3, 2, 1, True, False), (3, 2, 1, False, False),
    (2, 2, 0, True, True), (3, 2, [1], False, True), (3, 1, [1, 1], True, False)])
def test_avg_pool1d_matches_torch_and_gradient(k, s, p, exclusive, ceil):
    x = RNG.standard_normal((2, 3, 9))
    check_grad(lambda a: F.avg_pool1d(a, k, s, p, exclusive, ceil), x)
    torch = pytest.importorskip("torch")
    xt = core.to_tensor(x, stop_gradient=False)
    out = nn.AvgPool1D(k, s, p, exclusive, ceil)(xt)
    t = torch.tensor(x, requires_grad=True)
    want = torch.nn.functional.avg_pool1d(t, k, s, p[0] if isinstance(p, list) else p,
                                          ceil_mode=ceil, count_include_pad=not exclusive)
    g = RNG.standard_normal(out.shape)
    out.backward(core.to_tensor(g))
    want.backward(torch.tensor(g))
    np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(xt.gradient(), t.grad.numpy(), rtol=1e-12)
    assert "kernel_size" in repr(nn.AvgPool1D(k))
