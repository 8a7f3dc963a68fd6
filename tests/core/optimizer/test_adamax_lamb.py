"""Adamax and Lamb against updates computed by hand with numpy, and Adamax against torch; AdamW's
Paddle 3.3.1 positional order."""
import numpy as np
import pytest

from core.optimizer import Adamax, AdamW, Lamb
from core.tensor import Parameter
from tests.core.optimizer.stepping import GRADS, START, run


def adamax_reference(start, grads, lr, b1=0.9, b2=0.999, eps=1e-8):
    """Paddle's Adamax: epsilon inside the max with the decayed norm."""
    p, m, u, out = np.array(start), 0.0, 0.0, []
    for t, grad in enumerate(grads, start=1):
        g = np.array(grad)
        m = b1 * m + (1 - b1) * g
        u = np.maximum(b2 * u + eps, np.abs(g))
        p = p - lr / (1 - b1 ** t) * m / u
        out.append(p)
    return out


def test_adamax_first_step_literal():
    # t = 1: m = 0.1 g, u = |g|, lr_t = lr / 0.1: the step is lr * sign(g)
    history, _ = run(lambda ps: Adamax(0.1, parameters=ps), GRADS[:1])
    np.testing.assert_allclose(history[0], [0.9, -1.9], atol=1e-12)


def test_adamax_three_steps_match_numpy_and_torch():
    history, opt = run(lambda ps: Adamax(0.02, beta1=0.8, beta2=0.9, parameters=ps))
    for got, want in zip(history, adamax_reference(START, GRADS, 0.02, 0.8, 0.9)):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    assert opt.state_nbytes() == 2 * 2 * 8
    torch = pytest.importorskip("torch")
    w = torch.tensor(START, dtype=torch.float64, requires_grad=True)
    theirs = torch.optim.Adamax([w], lr=0.02, betas=(0.8, 0.9), eps=1e-8)
    for got, grad in zip(history, GRADS):
        w.grad = torch.tensor(grad, dtype=torch.float64)
        theirs.step()
        # torch puts epsilon beside |g| rather than beside the decayed norm: ~1e-8 apart
        np.testing.assert_allclose(got, w.detach().numpy(), rtol=1e-7)


def lamb_reference(start, grads, lr, wd, b1=0.9, b2=0.999, eps=1e-6, adapt=True):
    p, m, v, out = np.array(start), 0.0, 0.0, []
    for t, grad in enumerate(grads, start=1):
        g = np.array(grad)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        r = (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps) + wd * p
        ratio = np.linalg.norm(p) / np.linalg.norm(r) if adapt else 1.0
        p = p - lr * ratio * r
        out.append(p)
    return out


def test_lamb_first_step_literal():
    # t = 1, wd = 0.5: r = sign(g) + 0.5 p = [1, -1] + [0.5, -1] = [1.5, -2];
    # ||p|| = sqrt(5), ||r|| = 2.5: p - 0.1 * sqrt(5) / 2.5 * r
    history, _ = run(lambda ps: Lamb(0.1, lamb_weight_decay=0.5, epsilon=0.0, parameters=ps),
                     GRADS[:1])
    ratio = np.sqrt(5) / 2.5
    np.testing.assert_allclose(history[0], [1 - 0.15 * ratio, -2 + 0.2 * ratio], rtol=1e-12)


def test_lamb_three_steps_match_numpy():
    history, _ = run(lambda ps: Lamb(0.01, lamb_weight_decay=0.1, beta1=0.8, beta2=0.95,
                                     parameters=ps))
    for got, want in zip(history, lamb_reference(START, GRADS, 0.01, 0.1, 0.8, 0.95)):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_lamb_excluded_parameters_skip_decay_and_adaptation():
    excluded = lambda p: p.name == "bias"  # noqa: E731
    history, _ = run(lambda ps: Lamb(0.01, parameters=ps, exclude_from_weight_decay_fn=excluded),
                     name="bias")
    for got, want in zip(history, lamb_reference(START, GRADS, 0.01, 0.0, adapt=False)):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    history, _ = run(lambda ps: Lamb(0.01, parameters=ps, exclude_from_weight_decay_fn=excluded,
                                     always_adapt=True), name="bias")
    for got, want in zip(history, lamb_reference(START, GRADS, 0.01, 0.0)):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_adamw_takes_paddle_3_positional_order():
    param = Parameter(np.zeros(1))
    # learning_rate, beta1, beta2, epsilon, parameters, weight_decay, use_lowprecision_moment,
    # lr_ratio, apply_decay_param_fun, grad_clip, lazy_mode, multi_precision, amsgrad, name
    opt = AdamW(0.1, 0.9, 0.999, 1e-8, [param], 0.05, True, None, None, None, False, False,
                False, "w")
    assert opt._coeff == 0.05 and opt._lr_ratio is None and opt._name == "w"
    with pytest.raises(NotImplementedError, match="amsgrad"):
        AdamW(0.1, parameters=[param], amsgrad=True)
