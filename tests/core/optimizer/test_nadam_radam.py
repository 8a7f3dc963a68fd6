"""NAdam and RAdam against updates computed by hand with numpy and against torch; NAdam's carried
product through state dicts, parameter groups and lazy row-sparse updates."""
import warnings

import numpy as np
import pytest

import core
from core import nn
from core.optimizer import NAdam, RAdam
from core.regularizer import L2Decay
from core.tensor import Parameter
from tests.core.optimizer.stepping import GRADS, START, run

LONG_GRADS = np.random.default_rng(7).normal(size=(14, 2)).tolist()


def nadam_reference(start, grads, lr, b1=0.9, b2=0.999, eps=1e-8, psi=0.004):
    p, m, v, product, out = np.array(start), 0.0, 0.0, 1.0, []
    for t, grad in enumerate(grads, start=1):
        g = np.array(grad)
        mu = b1 * (1 - 0.5 * 0.96 ** (t * psi))
        mu_next = b1 * (1 - 0.5 * 0.96 ** ((t + 1) * psi))
        product *= mu
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        m_hat = mu_next * m / (1 - product * mu_next) + (1 - mu) * g / (1 - product)
        p = p - lr * m_hat / (np.sqrt(v / (1 - b2 ** t)) + eps)
        out.append(p)
    return out


def radam_reference(start, grads, lr, b1=0.9, b2=0.999, eps=1e-8):
    p, m, v, out = np.array(start), 0.0, 0.0, []
    rho_inf = 2 / (1 - b2) - 1
    for t, grad in enumerate(grads, start=1):
        g = np.array(grad)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        m_hat = m / (1 - b1 ** t)
        rho = rho_inf - 2 * t * b2 ** t / (1 - b2 ** t)
        if rho > 5:
            rect = np.sqrt((rho - 4) * (rho - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho))
            p = p - lr * m_hat * rect * np.sqrt(1 - b2 ** t) / (np.sqrt(v) + eps)
        else:
            p = p - lr * m_hat
        out.append(p)
    return out


def test_nadam_first_step_literal():
    # t = 1, psi = 0: mu = mu_next = 0.45, product = 0.45, m = 0.1 g, sqrt(v_hat) = |g|:
    # m_hat = 0.45 * 0.1 g / (1 - 0.2025) + 0.55 g / 0.55 = g (0.045 / 0.7975 + 1)
    history, _ = run(lambda ps: NAdam(0.1, momentum_decay=0.0, epsilon=0.0, parameters=ps),
                     GRADS[:1])
    scale = 0.1 * (0.045 / 0.7975 + 1)
    np.testing.assert_allclose(history[0], [1 - scale, -2 + scale], rtol=1e-12)


@pytest.mark.parametrize("kwargs", [{}, {"beta1": 0.8, "beta2": 0.95, "momentum_decay": 0.05}])
def test_nadam_matches_numpy_and_torch(kwargs):
    history, opt = run(lambda ps: NAdam(0.01, parameters=ps, **kwargs), LONG_GRADS)
    names = {"beta1": "b1", "beta2": "b2", "momentum_decay": "psi"}
    want = nadam_reference(START, LONG_GRADS, 0.01, **{names[k]: v for k, v in kwargs.items()})
    for got, expected in zip(history, want):
        np.testing.assert_allclose(got, expected, rtol=1e-12)
    assert opt.state_nbytes() == 2 * 2 * 8  # two moments; the product is a number
    torch = pytest.importorskip("torch")
    w = torch.tensor(START, dtype=torch.float64, requires_grad=True)
    theirs = torch.optim.NAdam([w], lr=0.01, betas=(kwargs.get("beta1", 0.9),
                                                    kwargs.get("beta2", 0.999)),
                               momentum_decay=kwargs.get("momentum_decay", 0.004))
    for got, grad in zip(history, LONG_GRADS):
        w.grad = torch.tensor(grad, dtype=torch.float64)
        theirs.step()
        np.testing.assert_allclose(got, w.detach().numpy(), rtol=1e-8)


def test_radam_is_momentum_sgd_until_the_variance_is_tractable():
    # rho_t <= 5 for the first steps (beta2 = 0.999): m_hat alone, so t = 1 steps by lr * g
    history, _ = run(lambda ps: RAdam(0.1, parameters=ps), GRADS[:1])
    np.testing.assert_allclose(history[0], [1 - 0.05, -2 + 0.025], rtol=1e-12)


@pytest.mark.parametrize("kwargs", [{}, {"beta1": 0.8, "beta2": 0.9}])
def test_radam_matches_numpy_and_torch(kwargs):
    history, _ = run(lambda ps: RAdam(0.01, parameters=ps, **kwargs), LONG_GRADS)
    names = {"beta1": "b1", "beta2": "b2"}
    want = radam_reference(START, LONG_GRADS, 0.01, **{names[k]: v for k, v in kwargs.items()})
    for got, expected in zip(history, want):
        np.testing.assert_allclose(got, expected, rtol=1e-12)
    torch = pytest.importorskip("torch")
    w = torch.tensor(START, dtype=torch.float64, requires_grad=True)
    theirs = torch.optim.RAdam([w], lr=0.01, betas=(kwargs.get("beta1", 0.9),
                                                    kwargs.get("beta2", 0.999)))
    for got, grad in zip(history, LONG_GRADS):
        w.grad = torch.tensor(grad, dtype=torch.float64)
        theirs.step()
        np.testing.assert_allclose(got, w.detach().numpy(), rtol=1e-8)


@pytest.mark.parametrize("cls", [NAdam, RAdam])
def test_weight_decay_is_added_to_the_gradient_as_torch(cls):
    torch = pytest.importorskip("torch")
    history, _ = run(lambda ps: cls(0.01, parameters=ps, weight_decay=L2Decay(0.1)), LONG_GRADS)
    w = torch.tensor(START, dtype=torch.float64, requires_grad=True)
    theirs = getattr(torch.optim, cls.__name__)([w], lr=0.01, weight_decay=0.1)
    for got, grad in zip(history, LONG_GRADS):
        w.grad = torch.tensor(grad, dtype=torch.float64)
        theirs.step()
        np.testing.assert_allclose(got, w.detach().numpy(), rtol=1e-8)


def test_nadam_state_dict_carries_the_product_and_resumes_exactly():
    straight, _ = run(lambda ps: NAdam(0.01, parameters=ps), LONG_GRADS)
    _, first = run(lambda ps: NAdam(0.01, parameters=ps), LONG_GRADS[:5], name="w")
    saved = first.state_dict()["state"]["w"]
    assert set(saved) == {"moment1", "moment2", "mu_product", "step"}
    assert isinstance(saved["mu_product"], float) and 0 < saved["mu_product"] < 0.9 ** 5
    path_state = {"state": {"w": {k: (v.numpy() if hasattr(v, "numpy") else v)
                                  for k, v in saved.items()}}}
    param = Parameter(np.array(straight[4]), name="w")
    opt = NAdam(0.01, parameters=[param])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every entry is known
        opt.set_state_dict(path_state)
    for expected, grad in zip(straight[5:], LONG_GRADS[5:]):
        param.grad_data = np.array(grad)
        opt.step()
        np.testing.assert_allclose(param.numpy(), expected, rtol=1e-12)


def test_nadam_groups_as_paddles_example():
    # Paddle's docstring: a second group with its own weight_decay, learning_rate and beta1
    core.seed(0)
    linear_1, linear_2 = nn.Linear(10, 10), nn.Linear(10, 10)
    opt = NAdam(learning_rate=0.1, parameters=[
        {"params": linear_1.parameters()},
        {"params": linear_2.parameters(), "weight_decay": 0.001, "learning_rate": 0.1,
         "beta1": 0.8}], weight_decay=0.01, beta1=0.9)
    w2 = linear_2.weight.numpy().copy()
    loss = linear_2(linear_1(core.uniform([10, 10], min=-0.1, max=0.1))).mean()
    loss.backward()
    grad = linear_2.weight.grad.numpy() + 0.001 * w2
    opt.step()
    want = nadam_reference(w2, [grad], 0.1 * 0.1, b1=0.8)[0]
    np.testing.assert_allclose(linear_2.weight.numpy(), want, rtol=1e-5, atol=1e-7)


def test_nadam_lazy_rows_match_dense_when_every_row_is_touched():
    rows = np.arange(64)

    def train(sparse):
        core.seed(3)
        table = nn.Embedding(64, 4096, sparse=sparse)  # big enough to split over threads
        opt = NAdam(0.01, parameters=table.parameters())
        for _ in range(3):
            (table(core.to_tensor(rows)) ** 2).sum().backward()
            opt.step()
            opt.clear_grad()
        return table.weight.numpy(), opt.state_dict()["state"][table.weight.name]["mu_product"]

    (dense, dense_product), (sparse, sparse_product) = train(False), train(True)
    assert sparse_product == dense_product
    np.testing.assert_allclose(sparse, dense, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("cls", [NAdam, RAdam])
def test_fits_a_least_squares_problem(cls):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 5)).astype("float32")
    y = x @ np.array([1.0, -2.0, 0.5, 3.0, -1.0], "float32")[:, None]
    core.seed(0)
    model = nn.Linear(5, 1)
    opt = cls(0.1, parameters=model.parameters())
    for _ in range(300):
        loss = ((model(core.to_tensor(x)) - core.to_tensor(y)) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
    assert float(loss) < 1e-6


@pytest.mark.parametrize("make, match", [
    (lambda ps: NAdam(parameters=ps, beta1=1.0), r"NAdam: beta1 must be >= 0.0 and < 1.0"),
    (lambda ps: NAdam(parameters=ps, momentum_decay=-1), r"NAdam: momentum_decay must be >= 0"),
    (lambda ps: NAdam(parameters=ps, epsilon=float("nan")), r"NAdam: epsilon must be a finite"),
    (lambda ps: RAdam(parameters=ps, beta2=1.5), r"RAdam: beta2 must be >= 0.0 and < 1.0"),
    (lambda ps: RAdam(learning_rate=-1, parameters=ps), r"RAdam.*learning_rate"),
])
def test_bad_arguments_name_the_argument(make, match):
    with pytest.raises(ValueError, match=match):
        make([Parameter(np.zeros(2))])
