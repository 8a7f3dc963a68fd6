"""Rprop and ASGD (Paddle's stochastic average gradient) against updates computed by hand, Rprop
against torch."""
import numpy as np
import pytest

import core
from core import nn
from core.optimizer import ASGD, Rprop, lr
from core.regularizer import L2Decay
from core.tensor import Parameter
from tests.core.optimizer.stepping import START, run

# sign patterns: same, flipped, zero, same again
SIGN_GRADS = [[0.5, -0.25], [1.0, 2.0], [0.3, 0.0], [0.2, -1.0], [0.7, -0.5]]


def rprop_reference(start, grads, lr, low=1e-5, high=50.0, shrink=0.5, grow=1.2):
    p, prev, rate, out = np.array(start), np.zeros(2), np.full(2, lr), []
    for grad in grads:
        g = np.array(grad)
        product = g * prev
        rate = np.clip(rate * np.where(product > 0, grow, np.where(product < 0, shrink, 1.0)),
                       low, high)
        g = np.where(product < 0, 0.0, g)
        p = p - np.sign(g) * rate
        prev = g
        out.append(p)
    return out


def test_rprop_steps_literal():
    history, opt = run(lambda ps: Rprop(0.1, parameters=ps), SIGN_GRADS[:3], name="w")
    # 1: first step (no previous gradient): lr * sign(g)
    np.testing.assert_allclose(history[0], [0.9, -1.9], rtol=1e-12)
    # 2: element 0 kept its sign (rate 0.12), element 1 flipped (rate 0.05, no step)
    np.testing.assert_allclose(history[1], [0.78, -1.9], rtol=1e-12)
    # 3: element 0 again (rate 0.144); element 1's memory was cleared, and g = 0: no step
    np.testing.assert_allclose(history[2], [0.636, -1.9], rtol=1e-12)
    state = opt.state_dict()["state"]["w"]
    np.testing.assert_allclose(state["learning_rates"].numpy(), [0.144, 0.05], rtol=1e-12)
    np.testing.assert_array_equal(state["prevs"].numpy(), [0.3, 0.0])


@pytest.mark.parametrize("kwargs", [{}, {"learning_rate_range": (0.02, 0.15), "etas": (0.3, 1.5)}])
def test_rprop_matches_numpy_and_torch(kwargs):
    history, _ = run(lambda ps: Rprop(0.1, parameters=ps, **kwargs), SIGN_GRADS)
    low, high = kwargs.get("learning_rate_range", (1e-5, 50.0))
    shrink, grow = kwargs.get("etas", (0.5, 1.2))
    for got, want in zip(history, rprop_reference(START, SIGN_GRADS, 0.1, low, high, shrink,
                                                  grow)):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    torch = pytest.importorskip("torch")
    w = torch.tensor(START, dtype=torch.float64, requires_grad=True)
    theirs = torch.optim.Rprop([w], lr=0.1, etas=(shrink, grow), step_sizes=(low, high))
    for got, grad in zip(history, SIGN_GRADS):
        w.grad = torch.tensor(grad, dtype=torch.float64)
        theirs.step()
        np.testing.assert_allclose(got, w.detach().numpy(), rtol=1e-12)


def test_rprop_fits_full_batch_least_squares():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 5)).astype("float32")
    y = x @ np.array([1.0, -2.0, 0.5, 3.0, -1.0], "float32")[:, None]
    core.seed(0)
    model = nn.Linear(5, 1)
    opt = Rprop(0.01, parameters=model.parameters())
    for _ in range(200):
        loss = ((model(core.to_tensor(x)) - core.to_tensor(y)) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
    assert float(loss) < 1e-6


@pytest.mark.parametrize("kwargs, error, match", [
    ({"learning_rate": lr.StepDecay(0.1, 2)}, TypeError, r"Rprop: learning_rate must be a float"),
    ({"learning_rate": 1e-6}, ValueError,
     r"learning_rate_range\[0\] <= learning_rate.*\(1e-05, 50\).*1e-06"),
    ({"learning_rate_range": (0.0, 1.0)}, ValueError, r"Rprop: learning_rate_range must"),
    ({"learning_rate_range": 5}, ValueError, r"Rprop: learning_rate_range must be a pair"),
    ({"etas": (1.2, 0.5)}, ValueError, r"Rprop: etas must satisfy 0 < etas\[0\] < 1 < etas\[1\]"),
    ({"etas": ("a", 2)}, ValueError, r"Rprop: etas must be a pair of numbers"),
])
def test_rprop_bad_arguments_name_the_argument(kwargs, error, match):
    with pytest.raises(error, match=match):
        Rprop(parameters=[Parameter(np.zeros(2))], **kwargs)


def asgd_reference(start, grads, lr, n):
    p, d, ys, out = np.array(start), np.zeros(2), [np.zeros(2)] * n, []
    for t, grad in enumerate(grads, start=1):
        g = np.array(grad)
        i = (t - 1) % n
        d = d - ys[i] + g
        ys = ys[:i] + [g] + ys[i + 1:]
        p = p - lr * d / min(t, n)
        out.append(p)
    return out


def test_asgd_steps_literal():
    g1, g2, g3 = (np.array(g) for g in SIGN_GRADS[:3])
    history, opt = run(lambda ps: ASGD(0.1, batch_num=2, parameters=ps), SIGN_GRADS[:3],
                       name="w")
    np.testing.assert_allclose(history[0], START - 0.1 * g1, rtol=1e-12)
    np.testing.assert_allclose(history[1], history[0] - 0.1 * (g1 + g2) / 2, rtol=1e-12)
    # the third batch replaces the first's remembered gradient
    np.testing.assert_allclose(history[2], history[1] - 0.1 * (g2 + g3) / 2, rtol=1e-12)
    assert opt.state_nbytes() == 3 * 2 * 8  # d and one gradient per batch
    assert set(opt.state_dict()["state"]["w"]) == {"d", "y_0", "y_1", "step"}


@pytest.mark.parametrize("batch_num", [1, 3, 7])
def test_asgd_matches_numpy(batch_num):
    history, _ = run(lambda ps: ASGD(0.05, batch_num=batch_num, parameters=ps), SIGN_GRADS)
    for got, want in zip(history, asgd_reference(START, SIGN_GRADS, 0.05, batch_num)):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_asgd_with_one_batch_is_sgd_and_decay_enters_the_gradient():
    history, _ = run(lambda ps: ASGD(0.1, parameters=ps, weight_decay=L2Decay(0.5)),
                     SIGN_GRADS[:2])
    p = np.array(START)
    for grad in SIGN_GRADS[:2]:
        p = p - 0.1 * (np.array(grad) + 0.5 * p)
    np.testing.assert_allclose(history[-1], p, rtol=1e-12)


def test_asgd_trains_over_an_epoch_of_batches():
    # SAG's setting: the same batches, in the same order, every epoch
    rng = np.random.default_rng(1)
    x = rng.normal(size=(64, 5)).astype("float32")
    y = x @ np.array([1.0, -2.0, 0.5, 3.0, -1.0], "float32")[:, None]
    core.seed(0)
    model = nn.Linear(5, 1)
    opt = ASGD(0.1, batch_num=4, parameters=model.parameters())
    for _ in range(150):
        for batch in range(4):
            rows = slice(16 * batch, 16 * batch + 16)
            loss = ((model(core.to_tensor(x[rows])) - core.to_tensor(y[rows])) ** 2).mean()
            loss.backward()
            opt.step()
            opt.clear_grad()
    full = ((model(core.to_tensor(x)) - core.to_tensor(y)) ** 2).mean()
    assert float(full) < 1e-4


@pytest.mark.parametrize("batch_num", [0, -2, 1.5, True, None])
def test_asgd_batch_num_must_be_a_positive_integer(batch_num):
    with pytest.raises(ValueError, match=r"ASGD: batch_num must be an integer >= 1.*"
                                         + repr(batch_num).replace(".", r"\.")):
        ASGD(batch_num=batch_num, parameters=[Parameter(np.zeros(2))])
