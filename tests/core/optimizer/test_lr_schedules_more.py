"""PiecewiseDecay, NoamDecay, PolynomialDecay, LambdaDecay, OneCycleLR and ReduceOnPlateau:
values computed by hand for several steps, state round trips, validation."""
import math

import numpy as np
import pytest

import core
from core.optimizer import SGD, lr
from core.tensor import Parameter
from tests.core.optimizer.stepping import values


def test_piecewise_decay():
    got = values(lr.PiecewiseDecay(boundaries=[2, 4], values=[1.0, 0.5, 0.1]), 6)
    assert got == pytest.approx([1.0, 1.0, 0.5, 0.5, 0.1, 0.1])
    with pytest.raises(ValueError, match="one more"):
        lr.PiecewiseDecay([2, 4], [1.0, 0.5])


def test_noam_decay():
    # d_model = 4, warmup 2, lr 2: 2 * 0.5 * min(t ** -0.5, t * 2 ** -1.5); step 0 gives 0
    got = values(lr.NoamDecay(d_model=4, warmup_steps=2, learning_rate=2.0), 5)
    want = [0.0] + [min(t ** -0.5, t * 2 ** -1.5) for t in (1, 2, 3, 4)]
    assert got == pytest.approx(want)
    assert got[1] == pytest.approx(2 ** -1.5) and got[4] == pytest.approx(0.5)  # literal


def test_polynomial_decay_with_and_without_cycle():
    # (1 - 0.1) * (1 - t/4) ** 2 + 0.1, held at t >= 4
    got = values(lr.PolynomialDecay(1.0, decay_steps=4, end_lr=0.1, power=2.0), 6)
    assert got == pytest.approx([1.0, 0.60625, 0.325, 0.15625, 0.1, 0.1])
    # cycle: at t = 5 the span is 4 * ceil(5/4) = 8: 0.9 * (1 - 5/8) + 0.1 = 0.4375
    got = values(lr.PolynomialDecay(1.0, decay_steps=4, end_lr=0.1, cycle=True), 6)
    assert got == pytest.approx([1.0, 0.775, 0.55, 0.325, 0.1, 0.4375])


def test_lambda_decay():
    got = values(lr.LambdaDecay(0.5, lambda epoch: 0.9 ** epoch), 4)
    assert got == pytest.approx([0.5, 0.45, 0.405, 0.3645])
    with pytest.raises(TypeError, match="callable"):
        lr.LambdaDecay(0.5, 0.9)


def test_one_cycle_cos_and_linear():
    # max 1, divide 4 -> start 0.25; total 10, pct 0.3: up over steps 0..2, down over 2..9
    got = values(lr.OneCycleLR(1.0, 10, divide_factor=4.0, end_learning_rate=0.0), 10)
    up = [1.0 + (0.25 - 1.0) / 2 * (math.cos(math.pi * s / 2) + 1) for s in (0, 1, 2)]
    down = [0.5 * (math.cos(math.pi * (s - 2) / 7) + 1) for s in range(3, 10)]
    assert got == pytest.approx(up + down)
    assert got[0] == pytest.approx(0.25) and got[2] == pytest.approx(1.0) and got[9] == 0.0
    linear = values(lr.OneCycleLR(1.0, 10, divide_factor=4.0, end_learning_rate=0.0,
                                  anneal_strategy="linear"), 4)
    assert linear == pytest.approx([0.25, 0.625, 1.0, 6 / 7])
    three = values(lr.OneCycleLR(1.0, 10, divide_factor=4.0, end_learning_rate=0.0,
                                 phase_pct=0.3, anneal_strategy="linear", three_phase=True), 10)
    # phases: 0..2 up to 1, 2..4 back to 0.25, 4..9 to 0
    assert three == pytest.approx([0.25, 0.625, 1.0, 0.625, 0.25, 0.2, 0.15, 0.1, 0.05, 0.0])
    sched = lr.OneCycleLR(1.0, 3)
    with pytest.raises(ValueError, match="total_steps"):
        sched.step(4)


def test_reduce_on_plateau_patience_threshold_cooldown_and_min_lr():
    sched = lr.ReduceOnPlateau(1.0, factor=0.5, patience=1, cooldown=1, min_lr=0.2)
    assert sched.last_epoch == 0 and sched() == 1.0
    rates = []
    # 10 is best; 10 and 9.9995 do not beat 10 * (1 - 1e-4) = 9.999: 2 bad steps > patience,
    # so 1 -> 0.5. The cooldown step ignores its metric, even 5.0 (best stays 10). 11, 12: two
    # bad steps -> 0.25; cooldown (13); 14, 15 -> max(0.125, min_lr 0.2) = 0.2.
    for metric in [10.0, 10.0, 9.9995, 5.0, 11.0, 12.0, 13.0, 14.0, 15.0]:
        sched.step(core.to_tensor(metric) if metric == 11.0 else metric)
        rates.append(sched())
    assert rates == pytest.approx([1.0, 1.0, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.2])
    sched.step(np.array([1.0]))  # a cooldown step: ignored
    assert sched.last_epoch == 10 and sched.best == 10.0
    again = lr.ReduceOnPlateau(1.0)
    again.set_state_dict(sched.state_dict())
    assert again.best == 10.0 and again() == 0.2 and again.last_epoch == 10
    high = lr.ReduceOnPlateau(1.0, mode="max", threshold=0.5, threshold_mode="abs", patience=0)
    for metric in [1.0, 1.4, 2.0]:
        high.step(metric)
    assert high() == pytest.approx(0.1)  # 1.4 is not above 1 + 0.5: reduced once
    with pytest.raises(ValueError, match="one element"):
        high.step(np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="factor"):
        lr.ReduceOnPlateau(1.0, factor=1.0)


def test_schedules_drive_an_optimizer_and_round_trip():
    param = Parameter(np.array([1.0]))
    sched = lr.PiecewiseDecay([1], [0.5, 0.1])
    opt = SGD(sched, parameters=[param])
    param.grad_data = np.array([1.0])
    opt.step()
    sched.step()
    opt.step()
    np.testing.assert_allclose(param.numpy(), [1.0 - 0.5 - 0.1])
    other = lr.PolynomialDecay(1.0, 4)
    other.set_state_dict(lr.PolynomialDecay(1.0, 4, last_epoch=2).state_dict())
    assert other.last_epoch == 3 and other() == pytest.approx(0.9999 * 0.25 + 0.0001)
