"""NaturalExpDecay, InverseTimeDecay, MultiplicativeDecay, LinearLR,
CosineAnnealingWarmRestarts and CyclicLR: rates computed by hand over several steps, Paddle's
recursive forms where it has them, state round trips, validation."""
import math

import pytest

from core.optimizer import SGD, lr
from core.tensor import Parameter
from tests.core.optimizer.stepping import values


def test_natural_exp_and_inverse_time_decay():
    got = values(lr.NaturalExpDecay(0.5, gamma=0.1), 4)
    assert got == pytest.approx([0.5 * math.exp(-0.1 * t) for t in range(4)])
    assert got[2] == pytest.approx(0.40936537653899097)  # literal: 0.5 * e ** -0.2
    assert values(lr.InverseTimeDecay(0.5, gamma=0.5), 4) == pytest.approx(
        [0.5, 0.5 / 1.5, 0.25, 0.2])
    with pytest.raises(ValueError, match="gamma must be > 0"):
        lr.NaturalExpDecay(0.5, gamma=0.0)
    with pytest.raises(ValueError, match="gamma must be >= 0"):
        lr.InverseTimeDecay(0.5, gamma=-1.0)


def test_multiplicative_decay_multiplies_the_last_rate():
    # Paddle's docs: lambda epoch: 0.95 -> 0.5, 0.475, 0.45125
    assert values(lr.MultiplicativeDecay(0.5, lambda epoch: 0.95), 3) == pytest.approx(
        [0.5, 0.475, 0.45125])
    # a factor that depends on the epoch: 1 * 0.9 * 0.8 * 0.7
    factors = lambda epoch: 1.0 - 0.1 * epoch  # noqa: E731
    got = values(lr.MultiplicativeDecay(1.0, factors), 4)
    assert got == pytest.approx([1.0, 0.9, 0.72, 0.504])
    calls = []
    sched = lr.MultiplicativeDecay(1.0, lambda epoch: calls.append(epoch) or 0.5)
    for _ in range(5):
        sched.step()
    assert calls == [1, 2, 3, 4, 5] and sched() == 0.5 ** 5  # one call per step
    sched.step(2)  # a jump recomputes the product
    assert sched() == 0.25
    with pytest.raises(TypeError, match="callable"):
        lr.MultiplicativeDecay(1.0, 0.9)


def test_multiplicative_decay_resumes_from_the_saved_rate():
    sched = lr.MultiplicativeDecay(1.0, lambda epoch: 0.5)
    for _ in range(3):
        sched.step()
    other = lr.MultiplicativeDecay(1.0, lambda epoch: 0.5)
    other.set_state_dict(sched.state_dict())
    other.step()
    assert other.last_epoch == 4 and other() == 0.0625


def test_linear_lr_matches_paddles_recursive_update():
    got = values(lr.LinearLR(0.9, total_steps=3), 6)  # 0.9 * (1/3 + (2/3) * t / 3), then held
    assert got == pytest.approx([0.3, 0.5, 0.7, 0.9, 0.9, 0.9])
    # Paddle: lr_t = lr_{t-1} * (1 + c / (T * s + (t - 1) * c)) while t <= T
    base, T, s, e = 0.1, 5, 0.5, 0.1  # noqa: N806
    want, rate = [base * s], base * s
    for t in range(1, 8):
        if t <= T:
            rate *= 1.0 + (e - s) / (T * s + (t - 1) * (e - s))
        want.append(rate)
    got = values(lr.LinearLR(base, T, start_factor=s, end_factor=e), 8)
    assert got == pytest.approx(want) and got[-1] == pytest.approx(0.01)
    for kwargs in ({"start_factor": 0.0}, {"start_factor": 1.5}, {"end_factor": 1.1},
                   {"total_steps": 0}):
        with pytest.raises(ValueError):
            lr.LinearLR(**{"learning_rate": 0.1, "total_steps": 3, **kwargs})


def _sgdr(t_cur, t_i, base=1.0, eta_min=0.0):
    return eta_min + (base - eta_min) * (1 + math.cos(math.pi * t_cur / t_i)) / 2


def test_cosine_warm_restarts_with_and_without_t_mult():
    got = values(lr.CosineAnnealingWarmRestarts(1.0, T_0=3), 7)
    assert got == pytest.approx([1.0, 0.75, 0.25, 1.0, 0.75, 0.25, 1.0])
    # T_mult = 2: periods of 2, 4, 8 steps; eta_min 0.1
    got = values(lr.CosineAnnealingWarmRestarts(1.0, T_0=2, T_mult=2, eta_min=0.1), 8)
    want = [_sgdr(c, 2, eta_min=0.1) for c in (0, 1)] + \
        [_sgdr(c, 4, eta_min=0.1) for c in range(4)] + [_sgdr(c, 8, eta_min=0.1) for c in (0, 1)]
    assert got == pytest.approx(want)
    assert got[2] == pytest.approx(1.0) and got[3] == pytest.approx(0.1 + 0.9 * 0.8535533905932737)
    sched = lr.CosineAnnealingWarmRestarts(1.0, T_0=2, T_mult=2)
    sched.step(7)  # 2 + 4 = 6 steps of earlier periods: T_cur 1 of T_i 8
    assert (sched.T_cur, sched.T_i) == (1, 8) and sched() == pytest.approx(_sgdr(1, 8))
    with pytest.raises(ValueError, match="T_0"):
        lr.CosineAnnealingWarmRestarts(1.0, T_0=0)
    with pytest.raises(ValueError, match="T_mult"):
        lr.CosineAnnealingWarmRestarts(1.0, T_0=2, T_mult=1.5)


def test_cyclic_lr_modes():
    # base 0.1, max 0.5, up 2, down 2: 0.1, 0.3, 0.5, 0.3, 0.1, ...
    got = values(lr.CyclicLR(0.1, 0.5, step_size_up=2), 9)
    assert got == pytest.approx([0.1, 0.3, 0.5, 0.3, 0.1, 0.3, 0.5, 0.3, 0.1])
    # up 1, down 3: 0 -> 1 in one step, back in three
    got = values(lr.CyclicLR(0.0, 1.0, step_size_up=1, step_size_down=3), 5)
    assert got == pytest.approx([0.0, 1.0, 2 / 3, 1 / 3, 0.0])
    # triangular2: the second cycle's height is halved
    got = values(lr.CyclicLR(0.0, 1.0, 2, mode="triangular2"), 8)
    assert got == pytest.approx([0.0, 0.5, 1.0, 0.5, 0.0, 0.25, 0.5, 0.25])
    # exp_range: height * gamma ** step
    got = values(lr.CyclicLR(0.0, 1.0, 2, mode="exp_range", exp_gamma=0.5), 4)
    assert got == pytest.approx([0.0, 0.5 * 0.5, 1.0 * 0.25, 0.5 * 0.125])
    # own scale_fn over iterations
    got = values(lr.CyclicLR(0.0, 1.0, 2, scale_fn=lambda x: 1 / (1 + x),
                             scale_mode="iterations"), 3)
    assert got == pytest.approx([0.0, 0.25, 1 / 3])


@pytest.mark.parametrize("kwargs, error", [
    ({"step_size_up": 0}, ValueError),
    ({"step_size_down": 1.5}, ValueError),
    ({"mode": "sawtooth"}, ValueError),
    ({"scale_mode": "epoch"}, ValueError),
    ({"scale_fn": 3}, TypeError),
    ({"max_learning_rate": -1.0}, ValueError),
])
def test_cyclic_lr_refuses_bad_arguments(kwargs, error):
    args = {"base_learning_rate": 0.1, "max_learning_rate": 0.5, "step_size_up": 2, **kwargs}
    with pytest.raises(error):
        lr.CyclicLR(**args)


@pytest.mark.parametrize("make", [
    lambda: lr.NaturalExpDecay(0.5, 0.3),
    lambda: lr.InverseTimeDecay(0.5, 0.3),
    lambda: lr.MultiplicativeDecay(0.5, lambda e: 0.9),
    lambda: lr.LinearLR(0.5, 4),
    lambda: lr.CosineAnnealingWarmRestarts(0.5, 2, T_mult=2),
    lambda: lr.CyclicLR(0.1, 0.5, 2, mode="triangular2"),
])
def test_state_round_trip_and_an_optimizer_reads_the_rate(make):
    sched = make()
    for _ in range(5):
        sched.step()
    other = make()
    other.set_state_dict(sched.state_dict())
    assert other.last_epoch == 5 and other() == sched()
    sched.step()
    other.step()
    assert other() == pytest.approx(sched())
    param = Parameter([1.0])
    opt = SGD(learning_rate=other, parameters=[param])
    assert opt.get_lr() == pytest.approx(sched())
