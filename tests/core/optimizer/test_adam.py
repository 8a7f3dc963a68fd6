"""Adam and AdamW against hand-computed updates (the paper's bias-corrected form)."""
import numpy as np
import pytest

from core.optimizer import Adam, AdamW
from core.regularizer import L2Decay
from core.tensor import Parameter
from tests.core.optimizer.stepping import GRADS, START, run  # noqa: F401


def adam_reference(start, grads, lr, b1=0.9, b2=0.999, eps=1e-8, decoupled=0.0):
    """Kingma & Ba with bias-corrected moments; ``decoupled`` is AdamW's decay coefficient."""
    p, m, v, out = np.array(start, dtype="float64"), 0.0, 0.0, []
    for t, grad in enumerate(grads, start=1):
        g = np.array(grad)
        p = p * (1 - lr * decoupled)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        m_hat, v_hat = m / (1 - b1 ** t), v / (1 - b2 ** t)
        p = p - lr * m_hat / (np.sqrt(v_hat) + eps)
        out.append(p)
    return out


def test_adam_first_step_literal():
    # Step 1: m = 0.1*g, v = 0.001*g^2, so m_hat = g and v_hat = g^2 and the step is
    # lr * g/|g| = 0.1 * sign(g): [1, -2] -> [0.9, -1.9] (up to epsilon = 1e-8).
    history, _ = run(lambda ps: Adam(0.1, parameters=ps), GRADS[:1])
    np.testing.assert_allclose(history[0], [0.9, -1.9], atol=1e-7)


def test_adam_three_steps_match_numpy():
    history, opt = run(lambda ps: Adam(0.01, beta1=0.8, beta2=0.99, epsilon=1e-6, parameters=ps))
    for got, want in zip(history, adam_reference(START, GRADS, 0.01, 0.8, 0.99, 1e-6)):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    assert opt.state_nbytes() == 2 * 2 * 8  # moment1 + moment2, each the parameter's size


def test_adam_l2_weight_decay_enters_the_gradient():
    history, _ = run(lambda ps: Adam(0.01, weight_decay=0.1, parameters=ps))
    p, m, v = np.array(START), 0.0, 0.0
    for t, (got, grad) in enumerate(zip(history, GRADS), start=1):
        g = np.array(grad) + 0.1 * p
        m, v = 0.9 * m + 0.1 * g, 0.999 * v + 0.001 * g * g
        p = p - 0.01 * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
        np.testing.assert_allclose(got, p, rtol=1e-12)


def test_adamw_decoupled_decay():
    history, _ = run(lambda ps: AdamW(0.01, weight_decay=0.2, parameters=ps))
    for got, want in zip(history, adam_reference(START, GRADS, 0.01, decoupled=0.2)):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_adamw_decay_literal_with_zero_gradient():
    # g = 0 keeps the moments 0, so only the decay acts: p * (1 - lr*coeff) = 2 * (1 - 0.1*0.5)
    history, _ = run(lambda ps: AdamW(0.1, weight_decay=0.5, parameters=ps), [[0.0]], [2.0])
    np.testing.assert_allclose(history[0], [1.9], atol=1e-15)


def test_adamw_default_decay_is_0_01():
    history, _ = run(lambda ps: AdamW(0.01, parameters=ps))
    for got, want in zip(history, adam_reference(START, GRADS, 0.01, decoupled=0.01)):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_adamw_apply_decay_param_fun_and_lr_ratio():
    keep = lambda name: name != "bias"  # noqa: E731
    history, _ = run(lambda ps: AdamW(0.01, weight_decay=0.2, parameters=ps,
                                      apply_decay_param_fun=keep), name="bias")
    for got, want in zip(history, adam_reference(START, GRADS, 0.01)):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    history, _ = run(lambda ps: AdamW(0.01, weight_decay=0.2, parameters=ps,
                                      lr_ratio=lambda p: 0.5))
    for got, want in zip(history, adam_reference(START, GRADS, 0.005, decoupled=0.2)):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_adamw_keeps_a_parameters_own_regularizer_in_the_gradient():
    param = Parameter(np.array([1.0]), regularizer=L2Decay(0.5))
    opt = AdamW(0.1, weight_decay=0.0, parameters=[param])
    param.grad_data = np.array([0.0])
    opt.step()
    # grad = 0 + 0.5*1 = 0.5 > 0, so the first Adam step is -lr*sign(grad) = -0.1
    np.testing.assert_allclose(param.numpy(), [0.9], atol=1e-7)


def test_adamw_rejects_a_regularizer_object():
    with pytest.raises(TypeError, match="weight_decay"):
        AdamW(0.1, weight_decay=L2Decay(0.1), parameters=[Parameter(np.zeros(1))])


@pytest.mark.parametrize("arg", [{"beta1": 1.0}, {"beta2": -0.1}, {"epsilon": -1.0}])
def test_adam_rejects_bad_hyper_parameters(arg):
    with pytest.raises(ValueError, match=next(iter(arg))):
        Adam(0.1, parameters=[Parameter(np.zeros(1))], **arg)


def test_adam_keeps_float32():
    param = Parameter(np.ones(3, dtype="float32"))
    opt = Adam(0.1, parameters=[param])
    param.grad_data = np.ones(3, dtype="float32")
    opt.step()
    assert param.data.dtype == np.float32
    assert opt.state_nbytes() == 2 * param.data.nbytes
