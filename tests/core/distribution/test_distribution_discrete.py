"""core.distribution's Categorical (Paddle's semantics, checked with Paddle's documented
numbers) and Bernoulli, against torch.distributions and numpy formulas."""
from __future__ import annotations

import numpy as np
import pytest
from gradcheck import check_grad

import core
from core import distribution as D

# Paddle's Categorical docstring: x = paddle.rand([6]) after paddle.seed(100), y after seed(200).
X = np.array([0.55355281, 0.20714243, 0.01162981, 0.51577556, 0.36369765, 0.26091650], "float32")
Y = np.array([0.77663314, 0.90824795, 0.15685187, 0.04279523, 0.34468332, 0.79557180], "float32")


def test_categorical_reproduces_paddles_documented_values():
    cat, cat2 = D.Categorical(core.to_tensor(X)), D.Categorical(core.to_tensor(Y))
    value = core.to_tensor([2, 1, 3])
    np.testing.assert_allclose(cat.probs(value).numpy(), [0.00608027, 0.10829761, 0.26965630],
                               rtol=1e-5)
    np.testing.assert_allclose(cat.log_prob(value).numpy(),
                               [-5.10270691, -2.22287226, -1.31060708], rtol=1e-5)
    entropy = cat.entropy()
    assert entropy.shape == [] and entropy.dtype == np.float32
    np.testing.assert_allclose(entropy.numpy(), 1.77528250, rtol=1e-6)
    kl = cat.kl_divergence(cat2)
    assert kl.shape == [1]  # Paddle keeps the category axis
    np.testing.assert_allclose(kl.numpy(), [0.07195196], rtol=1e-5)
    np.testing.assert_allclose(D.kl_divergence(cat, cat2).numpy(), kl.numpy())


def test_categorical_entropy_and_kl_match_torch_on_softmax_logits():
    torch = pytest.importorskip("torch")
    logits = np.array([[0.3, -1.0, 2.0, 0.1], [1.0, 1.0, -0.5, 0.0]])
    other = np.array([[0.0, 0.2, 0.4, -1.0], [2.0, -2.0, 0.5, 0.3]])
    p, q = D.Categorical(logits), D.Categorical(other)
    tp = torch.distributions.Categorical(logits=torch.tensor(logits))
    tq = torch.distributions.Categorical(logits=torch.tensor(other))
    np.testing.assert_allclose(p.entropy().numpy(), tp.entropy().numpy(), rtol=1e-10)
    np.testing.assert_allclose(D.kl_divergence(p, q).numpy()[:, 0],
                               torch.distributions.kl_divergence(tp, tq).numpy(), rtol=1e-10)
    assert p.batch_shape == (2,) and p.event_shape == ()


def test_categorical_probs_normalise_by_the_sum_with_batches():
    logits = np.array([[1.0, 2.0, 3.0], [4.0, 1.0, 5.0]])
    cat = D.Categorical(logits)
    prob = logits / logits.sum(-1, keepdims=True)
    # a 1-D value is looked up in every distribution of the batch
    np.testing.assert_allclose(cat.probs(core.to_tensor([0, 2])).numpy(), prob[:, [0, 2]])
    # a 2-D value picks along the last axis
    index = np.array([[2], [1]])
    np.testing.assert_allclose(cat.probs(core.to_tensor(index)).numpy(),
                               np.take_along_axis(prob, index, -1))
    np.testing.assert_allclose(cat.log_prob([1, 1]).numpy(), np.log(prob[:, [1, 1]]))
    np.testing.assert_allclose(cat.prob([0]).numpy(), prob[:, [0]])


def test_categorical_samples_int64_with_softmax_frequencies():
    logits = np.array([[0.0, 1.0, 2.0], [3.0, 0.0, -1.0]])
    core.seed(0)
    draws = D.Categorical(logits).sample([20000])
    assert draws.shape == [20000, 2] and draws.dtype == np.int64
    softmax = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    for row in range(2):
        freq = np.bincount(draws.numpy()[:, row], minlength=3) / 20000
        np.testing.assert_allclose(freq, softmax[row], atol=0.015)
    assert D.Categorical(logits).sample([2, 3]).shape == [2, 3, 2]
    assert D.Categorical(X).sample([4]).shape == [4]
    core.seed(9)
    first = D.Categorical(X).sample([5]).numpy()
    core.seed(9)
    np.testing.assert_array_equal(D.Categorical(X).sample([5]).numpy(), first)


def test_categorical_gradients():
    logits = np.array([[0.5, 1.0, 2.0], [1.5, 0.2, 0.9]])
    check_grad(lambda lg: D.Categorical(lg).entropy(), logits)
    check_grad(lambda lg: D.Categorical(lg).log_prob(core.to_tensor([2, 0])), logits)
    check_grad(lambda a, b: D.kl_divergence(D.Categorical(a), D.Categorical(b)),
               logits, logits[::-1].copy())


def test_categorical_bad_arguments():
    with pytest.raises(ValueError, match="Categorical: 'logits' must be at least 1-D"):
        D.Categorical(1.0)
    with pytest.raises(TypeError, match="Categorical.probs: 'value' must hold integer"):
        D.Categorical(X).probs(core.to_tensor([0.5]))
    with pytest.raises(NotImplementedError, match="Categorical does not implement rsample"):
        D.Categorical(X).rsample([2])


PROBS = np.array([[0.2, 0.5, 0.9], [0.05, 0.7, 0.35]])
BITS = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])


def test_bernoulli_matches_torch_and_formulas():
    torch = pytest.importorskip("torch")
    dist, ref = D.Bernoulli(PROBS), torch.distributions.Bernoulli(probs=torch.tensor(PROBS))
    expected = BITS * np.log(PROBS) + (1 - BITS) * np.log1p(-PROBS)
    np.testing.assert_allclose(dist.log_prob(BITS).numpy(), expected, rtol=1e-10)
    np.testing.assert_allclose(dist.log_prob(BITS).numpy(),
                               ref.log_prob(torch.tensor(BITS)).numpy(), rtol=1e-10)
    np.testing.assert_allclose(dist.prob(BITS).numpy(), np.exp(expected), rtol=1e-10)
    np.testing.assert_allclose(dist.entropy().numpy(), ref.entropy().numpy(), rtol=1e-10)
    np.testing.assert_allclose(dist.mean.numpy(), PROBS, rtol=1e-12)
    np.testing.assert_allclose(dist.variance.numpy(), PROBS * (1 - PROBS), rtol=1e-12)


def test_bernoulli_samples():
    core.seed(1)
    dist = D.Bernoulli(PROBS.astype("float32"))
    draws = dist.sample([20000])
    assert draws.shape == [20000, 2, 3] and draws.dtype == np.float32
    assert set(np.unique(draws.numpy())) <= {0.0, 1.0}
    np.testing.assert_allclose(draws.numpy().mean(0), PROBS, atol=0.015)
    relaxed = dist.rsample([5], temperature=0.5)
    assert relaxed.shape == [5, 2, 3]
    assert ((relaxed.numpy() > 0) & (relaxed.numpy() < 1)).all()


def test_bernoulli_gradients():
    check_grad(lambda v, p: D.Bernoulli(p).log_prob(v), BITS, PROBS, wrt=[1])
    check_grad(lambda p: D.Bernoulli(p).entropy(), PROBS)

    def relaxed(p):
        core.seed(4)
        return D.Bernoulli(p).rsample([3], temperature=0.7)

    check_grad(relaxed, PROBS)


def test_bernoulli_clips_and_checks_probs():
    dist = D.Bernoulli([0.0, 1.0])
    assert np.isfinite(dist.logits.numpy()).all()
    with pytest.raises(ValueError, match=r"Bernoulli: 'probs' must be in \[0, 1\]"):
        D.Bernoulli([0.5, 1.5])
    with pytest.raises(ValueError, match="Bernoulli.rsample: 'temperature' must be a positive"):
        D.Bernoulli(0.5).rsample([2], temperature=0)
