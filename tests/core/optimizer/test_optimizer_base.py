"""What every optimizer shares: skipping, regularization, lr scales, clipping, state dicts."""
import numpy as np
import pytest

import core
from core.optimizer import SGD, Adadelta, Adagrad, Adam, AdamW, Momentum, RMSProp, lr
from core.regularizer import L1Decay, L2Decay
from core.serialize import load, save
from core.tensor import Parameter


def param(values, name=None, **kwargs):
    return Parameter(np.array(values, dtype="float64"), name=name, **kwargs)


def test_skips_parameters_without_grad_or_not_trainable():
    a, b, c = param([1.0]), param([2.0]), param([3.0], trainable=False)
    opt = Adam(0.1, parameters=[a, b, c])
    a.grad_data, c.grad_data = np.array([1.0]), np.array([1.0])
    opt.step()
    assert b.numpy()[0] == 2.0 and c.numpy()[0] == 3.0 and a.numpy()[0] != 1.0
    assert set(opt.state_dict()["state"]) == {a.name}  # no state for skipped parameters
    b.stop_gradient = True  # Paddle's way of freezing a parameter
    b.grad_data = np.array([1.0])
    opt.step()
    assert b.numpy()[0] == 2.0


def test_l2_weight_decay_float_is_added_to_the_gradient():
    # w = 2, g = 1, coeff 0.5: g' = 1 + 0.5*2 = 2, SGD lr 0.1 -> 2 - 0.2 = 1.8
    w = param([2.0])
    opt = SGD(0.1, parameters=[w], weight_decay=0.5)
    w.grad_data = np.array([1.0])
    opt.step()
    np.testing.assert_allclose(w.numpy(), [1.8], atol=1e-15)
    np.testing.assert_array_equal(w.grad_data, [1.0])  # the visible gradient is not changed


def test_l1_decay_adds_coeff_times_sign():
    # w = [2, -3, 0], g = 0, coeff 0.5: g' = [0.5, -0.5, 0]; lr 0.1 -> [1.95, -2.95, 0]
    w = param([2.0, -3.0, 0.0])
    opt = SGD(0.1, parameters=[w], weight_decay=L1Decay(0.5))
    w.grad_data = np.zeros(3)
    opt.step()
    np.testing.assert_allclose(w.numpy(), [1.95, -2.95, 0.0], atol=1e-15)


def test_parameter_regularizer_overrides_the_global_one():
    own, plain = param([2.0], regularizer=L1Decay(1.0)), param([2.0])
    opt = Momentum(0.1, momentum=0.0, parameters=[own, plain], weight_decay=L2Decay(0.5))
    own.grad_data, plain.grad_data = np.zeros(1), np.zeros(1)
    opt.step()
    np.testing.assert_allclose(own.numpy(), [2.0 - 0.1 * 1.0], atol=1e-15)   # L1 only
    np.testing.assert_allclose(plain.numpy(), [2.0 - 0.1 * 1.0], atol=1e-15)  # 0.5*2 = 1
    own2 = param([4.0], regularizer=L1Decay(1.0))
    opt2 = SGD(0.1, parameters=[own2], weight_decay=0.5)
    own2.grad_data = np.zeros(1)
    opt2.step()
    np.testing.assert_allclose(own2.numpy(), [3.9], atol=1e-15)  # L1 (1.0), not L2 (2.0)


def test_per_parameter_learning_rate_scale():
    fast, slow = param([1.0]), param([1.0], learning_rate=0.25)
    opt = SGD(0.4, parameters=[fast, slow])
    fast.grad_data, slow.grad_data = np.ones(1), np.ones(1)
    opt.step()
    np.testing.assert_allclose([fast.numpy()[0], slow.numpy()[0]], [0.6, 0.9], atol=1e-15)


class HalveAndRecord:
    def __init__(self):
        self.grad_enabled = None

    def __call__(self, params_grads):
        self.grad_enabled = core.is_grad_enabled()
        assert all(isinstance(g, core.Tensor) for _, g in params_grads)
        return [(p, g * 0.5) for p, g in params_grads]


def test_grad_clip_runs_first_under_no_grad_then_regularization():
    # clip halves g = 4 -> 2; then L2 adds 0.5*w = 1: g' = 3; lr 0.1 -> w = 2 - 0.3 = 1.7
    w, clip = param([2.0]), HalveAndRecord()
    opt = SGD(0.1, parameters=[w], weight_decay=0.5, grad_clip=clip)
    w.grad_data = np.array([4.0])
    opt.step()
    np.testing.assert_allclose(w.numpy(), [1.7], atol=1e-15)
    assert clip.grad_enabled is False


def test_clear_grad():
    w = param([1.0, 2.0])
    opt = SGD(0.1, parameters=[w])
    w.grad_data = np.ones(2)
    grad = w.grad_data
    opt.clear_grad(set_to_zero=True)
    assert w.grad_data is grad and not grad.any()
    opt.clear_grad()
    assert w.grad_data is None


def test_learning_rate_get_set_and_scheduler():
    w = param([1.0])
    opt = SGD(0.1, parameters=[w])
    opt.set_lr(0.3)
    assert opt.get_lr() == 0.3
    sched = lr.StepDecay(1.0, step_size=1, gamma=0.5)
    opt = SGD(sched, parameters=[w])
    with pytest.raises(RuntimeError, match="LRScheduler"):
        opt.set_lr(0.1)
    sched.step()
    w.grad_data = np.ones(1)
    opt.step()  # lr 0.5
    assert opt.get_lr() == 0.5
    np.testing.assert_allclose(w.numpy(), [0.5], atol=1e-15)


OPTIMIZERS = {
    "sgd": lambda ps, s: SGD(s, parameters=ps),
    "momentum": lambda ps, s: Momentum(s, momentum=0.9, use_nesterov=True, parameters=ps),
    "adam": lambda ps, s: Adam(s, parameters=ps, weight_decay=0.01),
    "adamw": lambda ps, s: AdamW(s, parameters=ps),
    "adagrad": lambda ps, s: Adagrad(s, parameters=ps),
    "adadelta": lambda ps, s: Adadelta(s, parameters=ps),
    "rmsprop": lambda ps, s: RMSProp(s, momentum=0.5, centered=True, parameters=ps),
}
GRADS = [np.array([0.5, -1.0, 0.25]), np.array([1.0, 0.5, -2.0]), np.array([-0.3, 0.2, 0.9]),
         np.array([0.7, -0.4, 0.1])]


def _train(opt, w, grads):
    for g in grads:
        w.grad_data = g.copy()
        opt.step()


@pytest.mark.parametrize("kind", sorted(OPTIMIZERS))
def test_state_dict_round_trip_through_a_file_gives_identical_steps(kind, tmp_path):
    make = OPTIMIZERS[kind]
    w = param([1.0, -2.0, 0.5], name="w")
    sched = lr.LinearWarmup(lr.StepDecay(0.1, step_size=2, gamma=0.5), 2, 0.0, 0.1)
    opt = make([w], sched)
    for g in GRADS[:2]:
        _train(opt, w, [g])
        sched.step()
    save({"w": w, "opt": opt.state_dict()}, tmp_path / "ckpt.pdopt")
    _train(opt, w, GRADS[2:3])
    sched.step()
    _train(opt, w, GRADS[3:])

    saved = load(tmp_path / "ckpt.pdopt")
    w2 = param(saved["w"], name="w")
    sched2 = lr.LinearWarmup(lr.StepDecay(0.1, step_size=2, gamma=0.5), 2, 0.0, 0.1)
    opt2 = make([w2], sched2)
    opt2.set_state_dict(saved["opt"])
    assert sched2.last_epoch == 2 and opt2.get_lr() == pytest.approx(0.1)
    _train(opt2, w2, GRADS[2:3])
    sched2.step()
    _train(opt2, w2, GRADS[3:])
    np.testing.assert_array_equal(w2.numpy(), w.numpy())
    assert opt2.get_lr() == opt.get_lr()


def test_set_state_dict_copies_rather_than_aliases():
    w1, w2 = param([1.0], name="w"), param([1.0], name="w")
    opt1, opt2 = Momentum(0.1, parameters=[w1]), Momentum(0.1, parameters=[w2])
    _train(opt1, w1, [np.ones(1)])
    opt2.set_state_dict(opt1.state_dict())
    _train(opt1, w1, [np.ones(1)])
    assert opt2.state_dict()["state"]["w"]["velocity"].numpy()[0] == 1.0
    assert opt2.state_dict()["state"]["w"]["step"] == 1


def test_a_state_dict_lacking_entries_creates_them():
    w = param([1.0, 2.0], name="w")
    opt = Adam(0.1, parameters=[w])
    opt.set_state_dict({})  # nothing at all
    opt.set_state_dict({"state": {"w": {"moment1": np.array([0.5, 0.5]), "step": 3}}})
    w.grad_data = np.array([1.0, -1.0])
    opt.step()
    state = opt.state_dict()["state"]["w"]
    np.testing.assert_allclose(state["moment1"].numpy(), 0.9 * 0.5 + 0.1 * np.array([1, -1]))
    np.testing.assert_allclose(state["moment2"].numpy(), [0.001, 0.001])  # started at zero
    assert state["step"] == 4
    assert opt.state_nbytes() == 2 * w.data.nbytes


def test_set_state_dict_warns_on_unknown_entries_and_refuses_wrong_shapes():
    w = param([1.0, 2.0], name="w")
    opt = Momentum(0.1, parameters=[w])
    with pytest.warns(UserWarning, match="other"):
        opt.set_state_dict({"state": {"other": {"velocity": np.zeros(2)}}})
    with pytest.raises(ValueError, match="velocity.*'w'.*shape"):
        opt.set_state_dict({"state": {"w": {"velocity": np.zeros(3)}}})


@pytest.mark.parametrize("kind, arrays", [("sgd", 0), ("momentum", 1), ("adam", 2),
                                          ("adamw", 2), ("adagrad", 1), ("adadelta", 2),
                                          ("rmsprop", 3)])
def test_state_nbytes(kind, arrays):
    a = Parameter(np.zeros((4, 5), dtype="float32"), name="a")
    b = Parameter(np.zeros(7, dtype="float32"), name="b")
    opt = OPTIMIZERS[kind]([a, b], 0.01)
    assert opt.state_nbytes() == 0  # created lazily
    a.grad_data, b.grad_data = np.ones((4, 5), "float32"), np.ones(7, "float32")
    opt.step()
    assert opt.state_nbytes() == arrays * (a.data.nbytes + b.data.nbytes)


@pytest.mark.parametrize("kwargs, error, match", [
    ({"parameters": None}, ValueError, "parameters"),
    ({"learning_rate": -1.0}, ValueError, "learning_rate"),
    ({"learning_rate": "fast"}, ValueError, "learning_rate"),
    ({"weight_decay": "l2"}, TypeError, "weight_decay"),
    ({"grad_clip": 1.0}, TypeError, "grad_clip"),
])
def test_bad_arguments_are_refused(kwargs, error, match):
    args = {"learning_rate": 0.1, "parameters": [param([1.0])], **kwargs}
    with pytest.raises(error, match=match):
        SGD(**args)


def test_duplicate_parameter_names_are_refused():
    with pytest.raises(ValueError, match="unique.*'w'"):
        SGD(0.1, parameters=[param([1.0], name="w"), param([2.0], name="w")])


def test_minimize_updates_the_given_parameters_except_no_grad_set():
    a, b, c = param([1.0], name="a"), param([1.0], name="b"), param([1.0], name="c")
    opt = SGD(0.5, parameters=[a, b, c])
    for p in (a, b, c):
        p.grad_data = np.ones(1)
    opt.minimize(None, parameters=[a, b], no_grad_set={"b"})
    assert [p.numpy()[0] for p in (a, b, c)] == [0.5, 1.0, 1.0]
    opt.minimize(None)
    assert [p.numpy()[0] for p in (a, b, c)] == [0.0, 0.5, 0.5]
