"""Parameter groups (Paddle's ``parameters=[{'params': ..., 'learning_rate': m, ...}, ...]``) for
every optimizer: the group's learning rate multiplies the global one, its weight_decay becomes
its parameters' regularizer (AdamW: its decoupled coefficient), its rule settings hold while it
is updated; against torch's param groups and by hand; state dicts round trip."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import core
from core.optimizer import SGD, Adadelta, Adagrad, Adam, Adamax, AdamW, Lamb, Momentum, RMSProp
from core.regularizer import L1Decay, L2Decay
from core.tensor import Parameter

RNG = np.random.default_rng(0)
A0 = RNG.standard_normal((3, 2))
B0 = RNG.standard_normal(4)
GRADS = [(RNG.standard_normal((3, 2)), RNG.standard_normal(4)) for _ in range(4)]


def _params():
    return Parameter(A0.copy(), name="a"), Parameter(B0.copy(), name="b")


def _run(opt, a, b, grads=GRADS):
    for ga, gb in grads:
        a.grad_data, b.grad_data = ga.copy(), gb.copy()
        opt.step()
    return a.numpy(), b.numpy()


# ----- against torch -----------------------------------------------------------------------------
CASES = {  # core groups / torch groups: group b has lr multiplier 0.1 and its own settings
    "SGD": (lambda g: SGD(0.05, parameters=g),
            lambda t, g: t.optim.SGD(g, lr=0.05), {}, {}),
    "Momentum": (lambda g: Momentum(0.05, momentum=0.9, parameters=g),
                 lambda t, g: t.optim.SGD(g, lr=0.05, momentum=0.9),
                 {"momentum": 0.5}, {"momentum": 0.5}),
    "Adam": (lambda g: Adam(0.01, parameters=g), lambda t, g: t.optim.Adam(g, lr=0.01),
             {"beta1": 0.8, "epsilon": 1e-6}, {"betas": (0.8, 0.999), "eps": 1e-6}),
    "Adagrad": (lambda g: Adagrad(0.1, epsilon=1e-10, parameters=g),
                lambda t, g: t.optim.Adagrad(g, lr=0.1, eps=1e-10),
                {"epsilon": 1e-3}, {"eps": 1e-3}),
    "Adadelta": (lambda g: Adadelta(1.0, parameters=g),
                 lambda t, g: t.optim.Adadelta(g, lr=1.0, rho=0.95, eps=1e-6),
                 {"rho": 0.5}, {"rho": 0.5}),
}


@pytest.mark.parametrize("name", list(CASES))
def test_groups_match_torch(name):
    torch = pytest.importorskip("torch")
    make_core, make_torch, core_extra, torch_extra = CASES[name]
    a, b = _params()
    opt = make_core([{"params": [a]},
                     {"params": [b], "weight_decay": 0.01, "learning_rate": 0.1, **core_extra}])
    got = _run(opt, a, b)
    ta = torch.tensor(A0, requires_grad=True)
    tb = torch.tensor(B0, requires_grad=True)
    base_lr = make_torch(torch, [torch.zeros(1, requires_grad=True)]).param_groups[0]["lr"]
    topt = make_torch(torch, [{"params": [ta]},
                              {"params": [tb], "weight_decay": 0.01, "lr": base_lr * 0.1,
                               **torch_extra}])
    for ga, gb in GRADS:
        ta.grad, tb.grad = torch.tensor(ga), torch.tensor(gb)
        topt.step()
    np.testing.assert_allclose(got[0], ta.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got[1], tb.detach().numpy(), rtol=1e-10, atol=1e-12)


def test_adamw_group_weight_decay_is_the_decoupled_coefficient_as_torch():
    torch = pytest.importorskip("torch")
    a, b = _params()
    opt = AdamW(0.01, parameters=[{"params": [a]},
                                  {"params": [b], "weight_decay": 0.1, "learning_rate": 0.5}])
    got = _run(opt, a, b)
    assert a.regularizer is None and b.regularizer is None  # not an L2 term in the gradient
    ta = torch.tensor(A0, requires_grad=True)
    tb = torch.tensor(B0, requires_grad=True)
    topt = torch.optim.AdamW([{"params": [ta]},
                              {"params": [tb], "weight_decay": 0.1, "lr": 0.005}],
                             lr=0.01, weight_decay=0.01)
    for ga, gb in GRADS:
        ta.grad, tb.grad = torch.tensor(ga), torch.tensor(gb)
        topt.step()
    np.testing.assert_allclose(got[0], ta.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got[1], tb.detach().numpy(), rtol=1e-10, atol=1e-12)


# ----- by hand, and Paddle's side effects --------------------------------------------------------
def test_sgd_groups_by_hand_and_paddles_example():
    a, b = _params()
    opt = SGD(0.01, parameters=[{"params": [a]},
                                {"params": b, "weight_decay": 0.001, "learning_rate": 0.1}])
    ga, gb = GRADS[0]
    a.grad_data, b.grad_data = ga.copy(), gb.copy()
    opt.step()
    np.testing.assert_allclose(a.numpy(), A0 - 0.01 * ga, rtol=1e-14)
    np.testing.assert_allclose(b.numpy(), B0 - 0.01 * 0.1 * (gb + 0.001 * B0), rtol=1e-14)
    # Paddle's _add_param_group: the multiplier and the regularizer are set on the parameters
    assert a.optimize_attr["learning_rate"] == 1.0 and b.optimize_attr["learning_rate"] == 0.1
    assert isinstance(b.regularizer, L2Decay) and b.regularizer.coeff == 0.001
    assert a.regularizer is None
    assert [len(g["params"]) for g in opt._param_groups] == [1, 1]


def test_the_brief_example_with_model_parameters():
    first, second = core.nn.Linear(3, 4), core.nn.Linear(4, 2)
    opt = core.optimizer.Adam(parameters=[{"params": first.parameters()},
                                          {"params": second.parameters(), "weight_decay": 0.001,
                                           "learning_rate": 0.1}], learning_rate=0.01)
    x = core.to_tensor(RNG.standard_normal((5, 3)).astype("float32"))
    before = [p.numpy().copy() for p in (*first.parameters(), *second.parameters())]
    second(first(x)).sum().backward()
    opt.step()
    after = [p.numpy() for p in (*first.parameters(), *second.parameters())]
    steps = [np.abs(y - x0).max() for x0, y in zip(before, after)]
    # Adam's first step moves each element by about lr: 0.01 for the first Linear, 0.001 after
    np.testing.assert_allclose(steps[:2], 0.01, rtol=1e-3)
    np.testing.assert_allclose(steps[2:], 0.001, rtol=1e-2)


def test_group_settings_hold_only_while_the_group_is_updated():
    a, b = _params()
    opt = Adam(0.01, beta1=0.9, parameters=[{"params": [a]}, {"params": [b], "beta1": 0.5}])
    _run(opt, a, b, GRADS[:1])
    assert opt._beta1 == 0.9 and opt._param_groups[1]["beta1"] == 0.5
    assert opt._param_groups[0]["beta1"] == 0.9  # filled from the optimizer's defaults
    # group a is exactly a flat Adam with beta1=0.9
    a2 = Parameter(A0.copy(), name="a2")
    flat = Adam(0.01, beta1=0.9, parameters=[a2])
    a2.grad_data = GRADS[0][0].copy()
    flat.step()
    np.testing.assert_array_equal(a.numpy(), a2.numpy())


OPTIMIZERS = {
    "SGD": lambda lr, p: SGD(lr, parameters=p),
    "Momentum": lambda lr, p: Momentum(lr, momentum=0.9, use_nesterov=True, parameters=p),
    "Adam": lambda lr, p: Adam(lr, parameters=p),
    "AdamW": lambda lr, p: AdamW(lr, parameters=p),
    "Adamax": lambda lr, p: Adamax(lr, parameters=p),
    "Lamb": lambda lr, p: Lamb(lr, parameters=p),
    "Adagrad": lambda lr, p: Adagrad(lr, parameters=p),
    "Adadelta": lambda lr, p: Adadelta(lr, parameters=p),
    "RMSProp": lambda lr, p: RMSProp(lr, momentum=0.5, parameters=p),
}


@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_every_optimizer_group_lr_is_a_multiplier(name):
    make = OPTIMIZERS[name]
    a, b = _params()
    got = _run(make(0.02, [{"params": [a]}, {"params": [b], "learning_rate": 0.25}]), a, b)
    a1, b1 = _params()
    _run(make(0.02, [a1]), a1, Parameter(B0.copy(), name="unused"), GRADS)
    b2 = Parameter(B0.copy(), name="b")
    _run(make(0.02 * 0.25, [b2]), Parameter(A0.copy(), name="unused2"), b2, GRADS)
    np.testing.assert_allclose(got[0], a1.numpy(), rtol=1e-12)
    np.testing.assert_allclose(got[1], b2.numpy(), rtol=1e-12)


def test_group_grad_clip_and_regularizer_objects():
    a, b = _params()
    clip = core.nn.ClipGradByGlobalNorm(0.1)
    opt = SGD(1.0, parameters=[{"params": [a], "weight_decay": L1Decay(0.5)},
                               {"params": [b], "grad_clip": clip}],
              grad_clip=None)
    ga, gb = GRADS[0]
    a.grad_data, b.grad_data = ga.copy(), gb.copy()
    opt.step()
    np.testing.assert_allclose(a.numpy(), A0 - (ga + 0.5 * np.sign(A0)), rtol=1e-14)
    np.testing.assert_allclose(b.numpy(), B0 - gb * 0.1 / np.linalg.norm(gb), rtol=1e-12)


def test_group_without_clip_when_the_optimizer_clips():
    a, b = _params()
    opt = SGD(1.0, parameters=[{"params": [a]}, {"params": [b], "grad_clip": None}],
              grad_clip=core.nn.ClipGradByValue(0.1))
    ga, gb = GRADS[0]
    a.grad_data, b.grad_data = ga.copy(), gb.copy()
    opt.step()
    np.testing.assert_allclose(a.numpy(), A0 - np.clip(ga, -0.1, 0.1), rtol=1e-14)
    np.testing.assert_allclose(b.numpy(), B0 - gb, rtol=1e-14)


def test_minimize_with_groups_and_no_grad_set():
    a, b = _params()
    opt = SGD(0.1, parameters=[{"params": [a]}, {"params": [b], "learning_rate": 0.5}])
    ga, gb = GRADS[0]
    a.grad_data, b.grad_data = ga.copy(), gb.copy()
    opt.minimize(None, no_grad_set={"a"})
    np.testing.assert_array_equal(a.numpy(), A0)
    np.testing.assert_allclose(b.numpy(), B0 - 0.05 * gb, rtol=1e-14)


# ----- state dicts --------------------------------------------------------------------------------
@pytest.mark.parametrize("name, make", [
    ("Adam", lambda g: Adam(0.01, parameters=g)),
    ("RMSProp", lambda g: RMSProp(0.01, parameters=g)),
    ("Momentum", lambda g: Momentum(0.01, parameters=g)),
])
def test_state_dict_round_trip_with_groups(name, make):
    extra = {"centered": True, "momentum": 0.3} if name == "RMSProp" else {}
    a, b = _params()
    groups = [{"params": [a]}, {"params": [b], "learning_rate": 0.5, **extra}]
    opt = make(groups)
    _run(opt, a, b, GRADS[:2])
    saved = opt.state_dict()
    if name == "RMSProp":
        assert set(saved["state"]["a"]) == {"mean_square", "step"}  # its group's accumulators
        assert set(saved["state"]["b"]) == {"mean_square", "mean_grad", "moment", "step"}
    a2, b2 = Parameter(a.numpy().copy(), name="a"), Parameter(b.numpy().copy(), name="b")
    opt2 = make([{"params": [a2]}, {"params": [b2], "learning_rate": 0.5, **extra}])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every entry matches a parameter and a state array
        opt2.set_state_dict(saved)
    got = _run(opt, a, b, GRADS[2:])
    again = _run(opt2, a2, b2, GRADS[2:])
    np.testing.assert_array_equal(got[0], again[0])
    np.testing.assert_array_equal(got[1], again[1])


def test_a_plain_list_takes_the_single_group_path():
    a, b = _params()
    opt = Adam(0.01, parameters=[a, b])
    assert opt._groups() is None and opt._param_groups is opt._parameter_list
    assert a.optimize_attr["learning_rate"] == 1.0 and a.regularizer is None


# ----- errors ------------------------------------------------------------------------------------
@pytest.mark.parametrize("groups, error, match", [
    (lambda a, b: [{"params": {a}}], TypeError, "ordered collection .* got a set"),
    (lambda a, b: [{"weight_decay": 0.1}], ValueError, "group 0 has no 'params' key"),
    (lambda a, b: [{"params": [a]}, b], TypeError, "mixes parameter-group dicts with Parameter"),
    (lambda a, b: [{"params": [a]}, {"params": [a, b]}], ValueError,
     "appear in more than one parameter group: \\['a'\\]"),
    (lambda a, b: [{"params": [a], "lr": 0.1}], ValueError,
     "group 0 has the key 'lr'; allowed: params, learning_rate, weight_decay"),
    (lambda a, b: [{"params": [a], "learning_rate": -1}], ValueError,
     "group 0: learning_rate must be a float >= 0"),
    (lambda a, b: [{"params": [a]}, {"params": [b], "beta1": 1.5}], ValueError,
     "parameter group 1 beta1 must be >= 0.0 and < 1.0, got 1.5"),
    (lambda a, b: [{"params": [a], "weight_decay": "l2"}], TypeError,
     "group 0: weight_decay must be None, a float"),
    (lambda a, b: [{"params": [a], "lazy_mode": 1}], TypeError, "lazy_mode must be a bool"),
    (lambda a, b: [{"params": [a], "grad_clip": 3}], TypeError, "grad_clip must be None or"),
    (lambda a, b: {"params": [a]}, TypeError, "got a dict \\(wrap it in a list\\)"),
])
def test_bad_groups_name_the_problem(groups, error, match):
    a, b = _params()
    with pytest.raises(error, match=match):
        Adam(0.01, parameters=groups(a, b))


def test_group_key_of_another_rule_is_refused():
    a, _ = _params()
    with pytest.raises(ValueError, match="'beta1'; allowed: params, learning_rate, "
                                         "weight_decay, grad_clip, momentum"):
        Momentum(0.01, parameters=[{"params": [a], "beta1": 0.5}])
    with pytest.raises(ValueError, match="group 0 weight_decay must be >= 0.0"):
        AdamW(0.01, parameters=[{"params": [a], "weight_decay": -0.1}])
