"""SGD and Momentum against hand-computed updates."""
import numpy as np
import pytest

from core.optimizer import SGD, Momentum
from core.tensor import Parameter
from tests.core.optimizer import stepping


def run(make_opt, start, grads):
    """Step a fresh float64 parameter through ``grads``; the parameter after each step."""
    return stepping.run(make_opt, grads, start)


GRADS = [[0.5, 0.25], [-1.0, 2.0], [0.1, -0.3]]


def test_sgd_literal_numbers():
    # p = [1, -2], g = [0.5, 0.25], lr = 0.1: p - lr*g = [1 - 0.05, -2 - 0.025] = [0.95, -2.025]
    history, _ = run(lambda ps: SGD(0.1, parameters=ps), [1.0, -2.0], GRADS[:1])
    np.testing.assert_allclose(history[0], [0.95, -2.025], rtol=0, atol=1e-15)


def test_sgd_three_steps_match_numpy():
    history, opt = run(lambda ps: SGD(0.05, parameters=ps), [1.0, -2.0], GRADS)
    expected = np.array([1.0, -2.0])
    for got, grad in zip(history, GRADS):
        expected = expected - 0.05 * np.array(grad)
        np.testing.assert_allclose(got, expected, rtol=1e-14)
    assert opt.state_nbytes() == 0


def test_momentum_literal_numbers():
    # mu = 0.9, lr = 0.1, p = 1, g = 1 every step:
    # v1 = 1    -> p = 1    - 0.1 * 1    = 0.9
    # v2 = 1.9  -> p = 0.9  - 0.1 * 1.9  = 0.71
    # v3 = 2.71 -> p = 0.71 - 0.1 * 2.71 = 0.439
    history, _ = run(lambda ps: Momentum(0.1, momentum=0.9, parameters=ps), [1.0], [[1.0]] * 3)
    np.testing.assert_allclose(np.ravel(history), [0.9, 0.71, 0.439], atol=1e-14)


def test_nesterov_literal_numbers():
    # p = p - lr * (g + mu * v):
    # v1 = 1    -> p = 1     - 0.1 * (1 + 0.9)   = 0.81
    # v2 = 1.9  -> p = 0.81  - 0.1 * (1 + 1.71)  = 0.539
    # v3 = 2.71 -> p = 0.539 - 0.1 * (1 + 2.439) = 0.1951
    history, _ = run(lambda ps: Momentum(0.1, momentum=0.9, use_nesterov=True, parameters=ps),
                     [1.0], [[1.0]] * 3)
    np.testing.assert_allclose(np.ravel(history), [0.81, 0.539, 0.1951], atol=1e-14)


@pytest.mark.parametrize("nesterov", [False, True])
def test_momentum_three_steps_match_numpy(nesterov):
    lr, mu = 0.2, 0.8
    history, opt = run(lambda ps: Momentum(lr, momentum=mu, use_nesterov=nesterov,
                                           parameters=ps), [1.0, -2.0], GRADS)
    p, v = np.array([1.0, -2.0]), np.zeros(2)
    for got, grad in zip(history, GRADS):
        g = np.array(grad)
        v = mu * v + g
        p = p - lr * (g + mu * v) if nesterov else p - lr * v
        np.testing.assert_allclose(got, p, rtol=1e-13)
    assert opt.state_nbytes() == 2 * 8  # one velocity array of the parameter's size


def test_momentum_rejects_negative_momentum():
    with pytest.raises(ValueError, match="momentum"):
        Momentum(0.1, momentum=-0.5, parameters=[Parameter(np.zeros(1))])
