"""Adagrad, Adadelta and RMSProp against hand-computed updates."""
import numpy as np
import pytest

from core.optimizer import Adadelta, Adagrad, RMSProp
from core.tensor import Parameter
from tests.core.optimizer.stepping import GRADS, START, run  # noqa: F401

# ----- Adagrad -----------------------------------------------------------------------------

def test_adagrad_literal_numbers():
    # lr 0.1, g = 2 twice: G = 4 -> p = 1 - 0.1*2/2 = 0.9; G = 8 -> p = 0.9 - 0.2/sqrt(8)
    history, _ = run(lambda ps: Adagrad(0.1, epsilon=0.0, parameters=ps), [[2.0]] * 2, [1.0])
    np.testing.assert_allclose(np.ravel(history), [0.9, 0.9 - 0.2 / 8 ** 0.5], atol=1e-15)


def test_adagrad_initial_accumulator_literal():
    # G starts at 5: G = 5 + 4 = 9 -> p = 1 - 0.1 * 2 / 3
    history, _ = run(lambda ps: Adagrad(0.1, epsilon=0.0, initial_accumulator_value=5.0,
                                        parameters=ps), [[2.0]], [1.0])
    np.testing.assert_allclose(history[0], [1 - 0.2 / 3], atol=1e-15)


def test_adagrad_three_steps_match_numpy():
    history, opt = run(lambda ps: Adagrad(0.05, epsilon=1e-3, parameters=ps,
                                          initial_accumulator_value=0.1))
    p, acc = np.array(START), np.full(2, 0.1)
    for got, grad in zip(history, GRADS):
        g = np.array(grad)
        acc = acc + g ** 2
        p = p - 0.05 * g / (np.sqrt(acc) + 1e-3)
        np.testing.assert_allclose(got, p, rtol=1e-13)
    assert opt.state_nbytes() == 2 * 8


# ----- Adadelta ----------------------------------------------------------------------------

def test_adadelta_literal_numbers():
    # rho 0.5, eps 1, lr 1, g = 1: Eg = 0.5; update = -sqrt((0 + 1) / (0.5 + 1)) = -sqrt(2/3)
    history, _ = run(lambda ps: Adadelta(1.0, epsilon=1.0, rho=0.5, parameters=ps),
                     [[1.0]], [1.0])
    np.testing.assert_allclose(history[0], [1 - (2 / 3) ** 0.5], atol=1e-15)


def test_adadelta_three_steps_match_numpy():
    lr, rho, eps = 0.5, 0.9, 1e-2
    history, opt = run(lambda ps: Adadelta(lr, epsilon=eps, rho=rho, parameters=ps))
    p, eg, edx = np.array(START), np.zeros(2), np.zeros(2)
    for got, grad in zip(history, GRADS):
        g = np.array(grad)
        eg = rho * eg + (1 - rho) * g * g
        dx = -np.sqrt(edx + eps) / np.sqrt(eg + eps) * g
        edx = rho * edx + (1 - rho) * dx * dx
        p = p + lr * dx
        np.testing.assert_allclose(got, p, rtol=1e-13)
    assert opt.state_nbytes() == 2 * 2 * 8  # two arrays of the parameter's size


# ----- RMSProp -----------------------------------------------------------------------------

def test_rmsprop_literal_numbers():
    # rho 0.5, eps 0, lr 0.1, g = 2: E[g^2] = 2 -> p = 1 - 0.1 * 2 / sqrt(2) = 1 - 0.1*sqrt(2)
    history, _ = run(lambda ps: RMSProp(0.1, rho=0.5, epsilon=0.0, parameters=ps),
                     [[2.0]], [1.0])
    np.testing.assert_allclose(history[0], [1 - 0.1 * 2 ** 0.5], atol=1e-15)


def test_centered_rmsprop_literal_numbers():
    # as above plus E[g] = 1, so the denominator is sqrt(2 - 1^2) = 1: p = 1 - 0.1 * 2 = 0.8
    history, _ = run(lambda ps: RMSProp(0.1, rho=0.5, epsilon=0.0, centered=True,
                                        parameters=ps), [[2.0]], [1.0])
    np.testing.assert_allclose(history[0], [0.8], atol=1e-15)


@pytest.mark.parametrize("centered", [False, True])
@pytest.mark.parametrize("momentum", [0.0, 0.7])
def test_rmsprop_three_steps_match_numpy(centered, momentum):
    lr, rho, eps = 0.01, 0.9, 1e-4
    history, opt = run(lambda ps: RMSProp(lr, rho=rho, epsilon=eps, momentum=momentum,
                                          centered=centered, parameters=ps))
    p, ms, mg, mom = np.array(START), np.zeros(2), np.zeros(2), np.zeros(2)
    for got, grad in zip(history, GRADS):
        g = np.array(grad)
        ms = rho * ms + (1 - rho) * g * g
        mg = rho * mg + (1 - rho) * g
        var = ms - mg * mg if centered else ms
        mom = momentum * mom + lr * g / np.sqrt(var + eps)
        p = p - mom
        np.testing.assert_allclose(got, p, rtol=1e-13)
    arrays = 1 + int(centered) + int(momentum > 0)
    assert opt.state_nbytes() == arrays * 2 * 8


@pytest.mark.parametrize("make", [
    lambda ps: RMSProp(0.1, rho=1.0, parameters=ps),
    lambda ps: Adadelta(0.1, rho=-0.1, parameters=ps),
    lambda ps: Adagrad(0.1, epsilon=-1.0, parameters=ps),
])
def test_bad_hyper_parameters_are_refused(make):
    with pytest.raises(ValueError, match="must be"):
        make([Parameter(np.zeros(1))])
