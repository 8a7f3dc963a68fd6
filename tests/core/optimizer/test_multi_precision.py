"""Paddle's ``multi_precision`` in the Optimizer base: float16 parameters keep float32 master
weights that take updates below float16's spacing, rules run (with their state) in float32,
masters go through state_dict / set_state_dict under Paddle's "master_weights" key, follow a
parameter changed from outside, and decorate(O2) + GradScaler + auto_cast(O2) trains an MLP
to near the float32 loss."""
from __future__ import annotations

import numpy as np
import pytest

import core
import core.amp
from core import nn
from core.nn import functional as F


def _half_param(values, name=None):
    param = core.create_parameter([len(values)], "float16", name=name,
                                  default_initializer=nn.initializer.Constant(0.0))
    param.set_value(np.asarray(values, dtype=np.float16))
    return param


def _on_device(values, dtype):
    """A raw gradient array on the current device (gpu:N under TOMLRUN_TEST_DEVICE)."""
    return core.to_tensor(np.asarray(values, dtype=dtype)).data


def _steps(optimizer, param, grads):
    for grad in grads:
        param.grad_data = _on_device(grad, np.float16)
        optimizer.step()
        optimizer.clear_grad()


def test_sgd_master_accumulates_updates_below_float16_spacing():
    """A float16 1.0 cannot take a 1e-4 step (its spacing there is 1e-3): by hand, in float32,
    the master goes 1 - 1e-4 per step and the parameter follows it rounded."""
    with_master, alone = _half_param([1.0, -2.0]), _half_param([1.0, -2.0])
    sgd = core.optimizer.SGD(1e-4, parameters=[with_master], multi_precision=True)
    plain = core.optimizer.SGD(1e-4, parameters=[alone])
    expected = np.array([1.0, -2.0], dtype=np.float32)
    lr = np.float32(1e-4)
    for _ in range(12):
        _steps(sgd, with_master, [[1.0, 1.0]])
        _steps(plain, alone, [[1.0, 1.0]])
        expected = expected - lr * np.float32(1.0)
    master = sgd.state_dict()["master_weights"][with_master.name].numpy()
    assert master.dtype == np.float32
    np.testing.assert_array_equal(master, expected)
    np.testing.assert_array_equal(with_master.numpy(), expected.astype(np.float16))
    assert with_master.dtype == core.float16 and float(with_master.numpy()[0]) < 1.0
    np.testing.assert_array_equal(alone.numpy(), [1.0, -2.0])  # float16 alone never moves


def test_momentum_state_and_update_run_in_float32():
    param = _half_param([0.5])
    optimizer = core.optimizer.Momentum(0.01, momentum=0.9, parameters=[param],
                                        multi_precision=True)
    grads = [[0.3], [-0.2], [0.7]]
    _steps(optimizer, param, grads)
    value, velocity = np.float32(0.5), np.float32(0.0)
    for (g,) in grads:  # Paddle's rule, in float32 from the float16 gradients
        velocity = np.float32(0.9) * velocity + np.float32(np.float16(g))
        value = value - np.float32(0.01) * velocity
    state = optimizer.state_dict()
    assert state["state"][param.name]["velocity"].dtype == core.float32
    np.testing.assert_allclose(state["master_weights"][param.name].numpy(), [value],
                               rtol=1e-6)
    assert param.numpy()[0] == np.float16(state["master_weights"][param.name].numpy()[0])


@pytest.mark.parametrize("rule", ["Adam", "AdamW", "Lamb"])
def test_a_master_follows_the_same_rule_as_a_float32_parameter(rule):
    """The master of a float16 parameter gets exactly what a float32 parameter with the same
    start and the same (float16) gradients gets."""
    rng = np.random.default_rng(0)
    start = rng.normal(size=6).astype(np.float16)
    grads = [rng.normal(size=6).astype(np.float16) for _ in range(5)]
    low = _half_param(start)
    full = core.create_parameter([6], "float32",
                                 default_initializer=nn.initializer.Constant(0.0))
    full.set_value(start.astype(np.float32))
    make = getattr(core.optimizer, rule)
    with_master = make(learning_rate=0.01, parameters=[low], multi_precision=True)
    reference = make(learning_rate=0.01, parameters=[full])
    for grad in grads:
        _steps(with_master, low, [grad])
        full.grad_data = _on_device(grad, np.float32)
        reference.step()
        reference.clear_grad()
    master = with_master.state_dict()["master_weights"][low.name].numpy()
    np.testing.assert_array_equal(master, full.numpy())
    np.testing.assert_array_equal(low.numpy(), full.numpy().astype(np.float16))


def test_state_dict_round_trip_continues_the_same_run():
    rng = np.random.default_rng(1)
    grads = [rng.normal(size=3).astype(np.float16) * 1e-2 for _ in range(6)]
    first = _half_param([1.0, 2.0, 3.0], name="w_round_trip")
    optimizer = core.optimizer.Adam(1e-3, parameters=[first], multi_precision=True)
    _steps(optimizer, first, grads[:3])
    saved = optimizer.state_dict()
    assert set(saved) == {"state", "master_weights"}
    assert saved["master_weights"]["w_round_trip"].dtype == core.float32
    assert optimizer.state_nbytes() == 3 * 4 * 3  # moment1, moment2 and the master, float32
    copied = {"state": {k: dict(v) for k, v in saved["state"].items()},
              "master_weights": {k: v.numpy() for k, v in saved["master_weights"].items()}}

    second = _half_param(first.numpy(), name="w_round_trip")
    restored = core.optimizer.Adam(1e-3, parameters=[second], multi_precision=True)
    restored.set_state_dict(copied)
    _steps(optimizer, first, grads[3:])
    _steps(restored, second, grads[3:])
    np.testing.assert_array_equal(second.numpy(), first.numpy())
    np.testing.assert_array_equal(restored.state_dict()["master_weights"]["w_round_trip"].numpy(),
                                  optimizer.state_dict()["master_weights"]["w_round_trip"].numpy())


def test_set_state_dict_checks_master_weights():
    param = _half_param([1.0, 2.0], name="w_checked")
    optimizer = core.optimizer.SGD(0.1, parameters=[param], multi_precision=True)
    with pytest.warns(UserWarning, match=r"master_weights\.elsewhere"):
        optimizer.set_state_dict({"master_weights": {"elsewhere": np.zeros(2, np.float32)}})
    with pytest.raises(ValueError, match="state 'master_weights' of parameter 'w_checked' has "
                                         r"shape \[3\] but the parameter has shape \[2\]"):
        optimizer.set_state_dict({"master_weights": {"w_checked": np.zeros(3, np.float32)}})


def test_an_element_set_from_outside_restarts_its_master():
    param = _half_param([1.0, 1.0])
    optimizer = core.optimizer.SGD(1e-4, parameters=[param], multi_precision=True)
    _steps(optimizer, param, [[1.0, 1.0]] * 3)
    param.set_value(np.array([2.0, param.numpy()[1]], dtype=np.float16))  # only element 0
    _steps(optimizer, param, [[1.0, 1.0]])
    master = optimizer.state_dict()["master_weights"][param.name].numpy()
    assert master[0] == np.float32(2.0) - np.float32(1e-4)
    assert master[1] == np.float32(np.float32(np.float32(np.float32(1.0) - np.float32(1e-4))
                                              - np.float32(1e-4)) - np.float32(1e-4)) \
        - np.float32(1e-4)


def test_row_sparse_gradients_update_the_masters_rows():
    core.seed(5)
    table = nn.Embedding(6, 3, sparse=True)
    core.amp.decorate(table, level="O2")  # float16 weights; the optimizer comes after
    start = table.weight.numpy().astype(np.float32)
    optimizer = core.optimizer.SGD(1e-4, parameters=table.parameters(), multi_precision=True)
    core.sum(table(core.to_tensor(np.array([1, 4, 4]))).astype("float32")).backward()
    optimizer.step()
    master = optimizer.state_dict()["master_weights"][table.weight.name].numpy()
    expected = start.copy()
    expected[1] -= np.float32(1e-4)
    expected[4] -= np.float32(1e-4) * np.float32(2.0)  # row 4 was looked up twice
    np.testing.assert_allclose(master, expected, rtol=1e-7)
    np.testing.assert_array_equal(table.weight.numpy(), master.astype(np.float16))


def test_float32_parameters_and_the_default_keep_no_masters():
    full = core.create_parameter([2], "float32", default_initializer=nn.initializer.Constant(1.0))
    low = _half_param([1.0, 1.0])
    optimizer = core.optimizer.SGD(0.1, parameters=[full], multi_precision=True)
    full.grad_data = _on_device(np.ones(2), np.float32)
    optimizer.step()
    assert "master_weights" not in optimizer.state_dict()
    plain = core.optimizer.SGD(0.5, parameters=[low])
    _steps(plain, low, [[1.0, 1.0]])
    assert "master_weights" not in plain.state_dict()
    np.testing.assert_array_equal(low.numpy(), [0.5, 0.5])


def test_multi_precision_must_be_a_bool():
    param = _half_param([1.0])
    for make in (core.optimizer.SGD, core.optimizer.Momentum, core.optimizer.Adam,
                 core.optimizer.AdamW, core.optimizer.Lamb, core.optimizer.ASGD,
                 core.optimizer.Rprop):
        with pytest.raises(TypeError, match=f"{make.__name__}: multi_precision must be True or "
                                            "False, got 'yes'"):
            make(parameters=[param], multi_precision="yes")


def test_decorate_o2_turns_multi_precision_on_or_off():
    model = nn.Linear(2, 2)
    optimizer = core.optimizer.Momentum(0.1, parameters=model.parameters())
    before = model.weight.numpy()
    core.amp.decorate(model, optimizer, level="O2")
    assert optimizer._multi_precision
    seeded = optimizer.state_dict()["master_weights"][model.weight.name].numpy()
    np.testing.assert_array_equal(seeded, before)  # the values before the cast: nothing lost
    other = nn.Linear(2, 2)
    off = core.optimizer.Adam(0.1, parameters=other.parameters(), multi_precision=True)
    core.amp.decorate(other, off, level="O2", master_weight=False)
    assert not off._multi_precision


def _mlp_data():
    rng = np.random.default_rng(7)
    x = rng.normal(size=(64, 8)).astype(np.float32)
    y = np.sin(x @ rng.normal(size=(8, 1))).astype(np.float32)
    return core.to_tensor(x), core.to_tensor(y)


def _train(amp: bool, steps: int = 150) -> float:
    core.seed(3)
    model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
    optimizer = core.optimizer.Momentum(0.05, parameters=model.parameters())
    if amp:
        model, optimizer = core.amp.decorate(model, optimizer, level="O2")
    scaler = core.amp.GradScaler(enable=amp, init_loss_scaling=1024.0)
    x, y = _mlp_data()
    for _ in range(steps):
        with core.amp.auto_cast(enable=amp, level="O2"):
            loss = F.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        optimizer.clear_grad()
    if amp:
        assert model[0].weight.dtype == core.float16
    return float(F.mse_loss(model(x).astype("float32"), y))


def test_grad_scaler_decorate_and_auto_cast_o2_train_near_float32():
    full, mixed = _train(False), _train(True)
    assert full < 0.02  # the float32 run has learnt the target
    assert mixed == pytest.approx(full, rel=0.25)
