"""RNN-T loss (Paddle's ``rnnt_loss`` / ``RNNTLoss``): against a brute-force sum over every
alignment, Paddle's documented example, the exact gradient, FastEmit's gradient against a
hand-written formula, reductions and the argument errors."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import core
from core import nn
from core.nn import functional as F
from tests.gradcheck import check_grad

RNG = np.random.default_rng(0)


def _log_softmax(x):
    shifted = x - x.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def _brute_force(lp, labels, frames: int, count: int, blank: int) -> float:
    """-log of the sum, over every alignment, of its probability; ``lp`` [T, U + 1, D] holds
    log-probabilities. An alignment puts the ``count`` label emissions among ``frames - 1``
    blanks, then ends with a blank at (frames - 1, count)."""
    moves = frames - 1 + count
    total = []
    for emits in itertools.combinations(range(moves), count):
        t = u = 0
        logp = 0.0
        for step in range(moves):
            if step in emits:
                logp += lp[t, u, labels[u]]
                u += 1
            else:
                logp += lp[t, u, blank]
                t += 1
        total.append(logp + lp[t, u, blank])
    return -float(np.logaddexp.reduce(total))


def _case(batch=3, frames=5, width=4, classes=6, blank=0, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(batch, frames, width + 1, classes))
    choices = [c for c in range(classes) if c != blank]
    labels = rng.choice(choices, size=(batch, width))
    t_len = np.array([frames, max(1, frames - 2), frames - 1][:batch])
    l_len = np.array([width, 0, width - 2][:batch])
    return x, labels, t_len, l_len


def _tensors(*arrays):
    return [core.to_tensor(a) for a in arrays]


@pytest.mark.parametrize("blank", [0, 2, 5])
def test_rnnt_loss_is_the_sum_over_every_alignment(blank):
    x, labels, t_len, l_len = _case(blank=blank)
    got = F.rnnt_loss(*_tensors(x, labels, t_len, l_len), blank=blank, reduction="none")
    lp = _log_softmax(x)
    want = [_brute_force(lp[b], labels[b], t_len[b], l_len[b], blank) for b in range(3)]
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


def test_paddles_documented_example_and_log_probabilities():
    # Paddle's docstring example (fastemit_lambda=0, reduction='sum') prints -2.85042444 on the
    # CPU, where warp-transducer reads the scores as log-probabilities without a log-softmax;
    # core (as warp-transducer's GPU kernel and torchaudio) applies the log-softmax, and equals
    # the CPU kernel on log-probabilities (log-softmax is idempotent).
    acts = np.array([[[[0.1, 0.6, 0.1, 0.1, 0.1], [0.1, 0.1, 0.6, 0.1, 0.1],
                       [0.1, 0.1, 0.2, 0.8, 0.1]],
                      [[0.1, 0.6, 0.1, 0.1, 0.1], [0.1, 0.1, 0.2, 0.1, 0.1],
                       [0.7, 0.1, 0.2, 0.1, 0.1]]]])
    labels, t_len, l_len = (np.array([[1, 2]], np.int32), np.array([2], np.int32),
                            np.array([2], np.int32))
    assert _brute_force(acts[0], [1, 2], 2, 2, 0) == pytest.approx(-2.85042444)  # Paddle CPU
    got = F.rnnt_loss(*_tensors(acts, labels, t_len, l_len), fastemit_lambda=0.0,
                      reduction="sum")
    assert float(got) == pytest.approx(_brute_force(_log_softmax(acts[0]), [1, 2], 2, 2, 0))
    assert float(got) == pytest.approx(4.495666773770733)
    on_log_probs = F.rnnt_loss(*_tensors(_log_softmax(acts), labels, t_len, l_len),
                               fastemit_lambda=0.0, reduction="sum")
    assert float(on_log_probs) == pytest.approx(float(got))


def test_reductions_and_dtypes():
    x, labels, t_len, l_len = _case()
    args = _tensors(x.astype(np.float32), labels.astype(np.int32), t_len.astype(np.int32),
                    l_len)
    none = F.rnnt_loss(*args, reduction="none")
    assert none.shape == [3] and none.dtype == np.float32
    assert float(F.rnnt_loss(*args, reduction="sum")) == pytest.approx(none.numpy().sum(),
                                                                        rel=1e-6)
    mean = F.rnnt_loss(*args)  # Paddle: the sum over the batch divided by B
    assert mean.shape == [] and float(mean) == pytest.approx(none.numpy().sum() / 3, rel=1e-6)
    # Labels past a sample's length are ignored, whatever they hold (padding such as -1).
    padded = labels.copy()
    padded[1, :], padded[2, l_len[2]:] = -1, 99
    np.testing.assert_allclose(F.rnnt_loss(*_tensors(x, padded, t_len, l_len),
                                           reduction="none").numpy(),
                               F.rnnt_loss(*_tensors(x, labels, t_len, l_len),
                                           reduction="none").numpy())
    # numpy batches are taken as they are (core.io.DataLoader yields them)
    np.testing.assert_allclose(F.rnnt_loss(x, labels, t_len, l_len, reduction="none").numpy(),
                               F.rnnt_loss(*_tensors(x, labels, t_len, l_len),
                                           reduction="none").numpy())


def test_torchaudio_agrees_where_it_is_installed():
    torch = pytest.importorskip("torch")
    taf = pytest.importorskip("torchaudio.functional")
    x, labels, t_len, l_len = _case(blank=1)
    want = taf.rnnt_loss(torch.tensor(x, dtype=torch.float32),
                         torch.tensor(labels, dtype=torch.int32),
                         torch.tensor(t_len, dtype=torch.int32),
                         torch.tensor(l_len, dtype=torch.int32), blank=1, reduction="none")
    got = F.rnnt_loss(*_tensors(x.astype(np.float32), labels, t_len, l_len), blank=1,
                      fastemit_lambda=0.0, reduction="none")
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5)


# ----- gradients -------------------------------------------------------------------------------

@pytest.mark.parametrize("reduction, blank", [("none", 0), ("sum", 3), ("mean", 5)])
def test_rnnt_loss_gradient(reduction, blank):
    # fastemit_lambda=0: the exact gradient (FastEmit changes the gradient on purpose).
    x, labels, t_len, l_len = _case(blank=blank, seed=1)
    extra = [core.to_tensor(a) for a in (labels, t_len, l_len)]
    check_grad(lambda t: F.rnnt_loss(t, *extra, blank=blank, fastemit_lambda=0.0,
                                     reduction=reduction), x)


def test_RNNTLoss_layer_gradient():
    x, labels, t_len, l_len = _case(batch=2, frames=3, width=2, classes=4, seed=2)
    layer = nn.RNNTLoss(blank=0, fastemit_lambda=0.0, reduction="sum")
    extra = [core.to_tensor(a) for a in (labels, t_len, l_len)]
    check_grad(lambda t: layer(t, *extra), x)
    assert "fastemit_lambda=0.0" in repr(layer)


def _numeric_log_prob_grad(lp, labels, t_len, l_len, blank, eps=1e-6):
    """d (sum of the brute-force losses) / d log-probabilities, the log-probabilities taken as
    free variables (no log-softmax): what warp-transducer's CPU kernel differentiates."""
    def total(values):
        return sum(_brute_force(values[b], labels[b], t_len[b], l_len[b], blank)
                   for b in range(len(values)))
    grad = np.zeros_like(lp)
    for index in np.ndindex(lp.shape):
        up, down = lp.copy(), lp.copy()
        up[index] += eps
        down[index] -= eps
        grad[index] = (total(up) - total(down)) / (2 * eps)
    return grad


@pytest.mark.parametrize("lam", [0.0, 0.5])
def test_fastemit_scales_the_label_emission_gradient(lam):
    # FastEmit as warp-transducer's kernels do it: d loss / d log p(label) times (1 + lambda),
    # blank's unchanged, then through the log-softmax: g - softmax * sum(g) at each cell.
    x, labels, t_len, l_len = _case(batch=2, frames=3, width=2, classes=4, seed=3)
    lp = _log_softmax(x)
    g = _numeric_log_prob_grad(lp, labels, t_len, l_len, 0)
    for b, t, u in np.ndindex(g.shape[:3]):
        if u < l_len[b]:
            g[b, t, u, labels[b, u]] *= 1 + lam
    want = g - np.exp(lp) * g.sum(axis=-1, keepdims=True)
    t = core.to_tensor(x, stop_gradient=False)
    loss = F.rnnt_loss(t, *_tensors(labels, t_len, l_len), fastemit_lambda=lam,
                       reduction="sum")
    loss.backward()
    np.testing.assert_allclose(t.grad.numpy(), want, atol=1e-6)
    # The loss itself does not change with lambda.
    assert float(loss) == pytest.approx(float(F.rnnt_loss(
        *_tensors(x, labels, t_len, l_len), fastemit_lambda=0.0, reduction="sum")))


def test_padding_gets_no_gradient_and_the_default_lambda_is_paddles():
    x, labels, t_len, l_len = _case(seed=4)
    t = core.to_tensor(x, stop_gradient=False)
    F.rnnt_loss(t, *_tensors(labels, t_len, l_len)).backward()
    grad = t.grad.numpy()
    assert not grad[1, t_len[1]:].any() and not grad[1, :, l_len[1] + 1:].any()
    assert not grad[2, t_len[2]:].any() and not grad[2, :, l_len[2] + 1:].any()
    layer = nn.RNNTLoss()
    assert layer.fastemit_lambda == 0.001 and layer.blank == 0 and layer.reduction == "mean"


# ----- argument errors -------------------------------------------------------------------------

def test_bad_arguments_name_themselves():
    x, labels, t_len, l_len = _case()
    good = dict(zip(("input", "label", "input_lengths", "label_lengths"),
                    _tensors(x, labels, t_len, l_len)))

    def call(**change):
        return F.rnnt_loss(**{**good, **change})

    cases = [
        ({"input": core.to_tensor(x[0])}, "input must be a non-empty 4-D"),
        ({"input": core.to_tensor(x.astype(np.int64))}, "input must be"),
        ({"label": core.to_tensor(labels[:, :2])}, r"label must be .* \[3, 4\]"),
        ({"label": core.to_tensor(labels.astype(np.float32))}, "label must be an integer"),
        ({"label": core.to_tensor(np.full_like(labels, 6))}, "label value 6"),
        ({"input_lengths": core.to_tensor(np.array([5, 0, 4]))}, "input_lengths holds 0"),
        ({"input_lengths": core.to_tensor(np.array([6, 3, 4]))}, "input_lengths holds 6"),
        ({"input_lengths": core.to_tensor(np.array([5, 3]))}, r"input_lengths must be .*\[3\]"),
        ({"label_lengths": core.to_tensor(np.array([5, 0, 2]))}, "label_lengths holds 5"),
        ({"label_lengths": core.to_tensor(np.array([1.0, 0, 2]))}, "label_lengths must be"),
        ({"blank": 6}, r"blank=6 must be an int in \[0, 6\)"),
        ({"blank": -1}, "blank=-1"), ({"blank": True}, "blank=True"),
        ({"fastemit_lambda": -0.1}, "fastemit_lambda=-0.1"),
        ({"fastemit_lambda": float("nan")}, "fastemit_lambda=nan"),
        ({"fastemit_lambda": "0.1"}, "fastemit_lambda='0.1'"),
        ({"reduction": "avg"}, "reduction='avg'")]
    for change, match in cases:
        with pytest.raises(ValueError, match=match):
            call(**change)
    with pytest.raises(TypeError, match="label must be a Tensor"):
        F.rnnt_loss(good["input"], [[1, 2, 3, 4]] * 3, good["input_lengths"],
                    good["label_lengths"])


def test_RNNTLoss_checks_its_arguments_at_construction():
    with pytest.raises(ValueError, match="RNNTLoss: blank=-1"):
        nn.RNNTLoss(blank=-1)
    with pytest.raises(ValueError, match="RNNTLoss: fastemit_lambda=-1"):
        nn.RNNTLoss(fastemit_lambda=-1)
    with pytest.raises(ValueError, match="RNNTLoss: reduction='batch'"):
        nn.RNNTLoss(reduction="batch")
