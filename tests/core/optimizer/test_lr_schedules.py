"""Learning-rate schedules: values at specific steps, jumps, state round trips, validation."""
import math

import pytest

from core.optimizer import lr
from tests.core.optimizer.stepping import values


def test_step_decay():
    # 0.1 * 0.5 ** (epoch // 2)
    assert values(lr.StepDecay(0.1, step_size=2, gamma=0.5), 6) == pytest.approx(
        [0.1, 0.1, 0.05, 0.05, 0.025, 0.025])


def test_multistep_and_exponential_decay():
    assert values(lr.MultiStepDecay(1.0, milestones=[2, 4], gamma=0.1), 6) == pytest.approx(
        [1.0, 1.0, 0.1, 0.1, 0.01, 0.01])
    assert values(lr.ExponentialDecay(2.0, gamma=0.5), 4) == pytest.approx([2, 1, 0.5, 0.25])


def test_cosine_literal_values():
    # 0.1 + 0.9 * (1 + cos(pi*t/4)) / 2 at t = 0..4: cos = 1, 0.7071, 0, -0.7071, -1
    got = values(lr.CosineAnnealingDecay(1.0, T_max=4, eta_min=0.1), 5)
    half = 0.5 + math.sqrt(0.5) / 2  # (1 + cos(pi/4)) / 2 = 0.853553...
    assert got == pytest.approx([1.0, 0.1 + 0.9 * half, 0.55, 0.1 + 0.9 * (1 - half), 0.1])


def test_cosine_matches_paddles_recursive_form():
    base, eta_min, t_max = 0.5, 0.01, 5
    sched = lr.CosineAnnealingDecay(base, T_max=t_max, eta_min=eta_min)
    last = base
    for epoch in range(1, 3 * t_max):
        sched.step()
        if (epoch - 1 - t_max) % (2 * t_max) == 0:
            last = last + (base - eta_min) * (1 - math.cos(math.pi / t_max)) / 2
        else:
            last = ((1 + math.cos(math.pi * epoch / t_max))
                    / (1 + math.cos(math.pi * (epoch - 1) / t_max)) * (last - eta_min) + eta_min)
        assert sched() == pytest.approx(last, abs=1e-12)


def test_linear_warmup_to_a_float():
    # 0 -> 0.5 over 4 steps: 0, 0.125, 0.25, 0.375, then 0.5 for ever
    got = values(lr.LinearWarmup(0.5, warmup_steps=4, start_lr=0.0, end_lr=0.5), 7)
    assert got == pytest.approx([0.0, 0.125, 0.25, 0.375, 0.5, 0.5, 0.5])


def test_linear_warmup_then_a_scheduler():
    inner = lr.StepDecay(0.4, step_size=2, gamma=0.5)
    got = values(lr.LinearWarmup(inner, warmup_steps=2, start_lr=0.0, end_lr=0.4), 7)
    # warm-up 0, 0.2; then StepDecay from its step 0: 0.4, 0.4, 0.2, 0.2, 0.1
    assert got == pytest.approx([0.0, 0.2, 0.4, 0.4, 0.2, 0.2, 0.1])


def test_step_to_an_epoch_and_state_round_trip():
    sched = lr.StepDecay(1.0, step_size=3, gamma=0.1)
    sched.step(7)
    assert sched.last_epoch == 7 and sched() == pytest.approx(0.01)
    other = lr.StepDecay(1.0, step_size=3, gamma=0.1)
    other.set_state_dict(sched.state_dict())
    other.step()
    sched.step()
    assert (other.last_epoch, other()) == (sched.last_epoch, sched())
    warm = lr.LinearWarmup(lr.StepDecay(1.0, step_size=1, gamma=0.5), 1, 0.0, 1.0)
    values(warm, 4)
    state = warm.state_dict()
    assert state["LinearWarmup_LR"]["last_epoch"] == 2


@pytest.mark.parametrize("make, match", [
    (lambda: lr.StepDecay(0.1, step_size=0), "step_size"),
    (lambda: lr.StepDecay(0.1, step_size=2, gamma=1.5), "gamma"),
    (lambda: lr.CosineAnnealingDecay(0.1, T_max=0), "T_max"),
    (lambda: lr.LinearWarmup(0.1, warmup_steps=0, start_lr=0, end_lr=0.1), "warmup_steps"),
    (lambda: lr.MultiStepDecay(0.1, milestones=[3, 2]), "milestones"),
    (lambda: lr.StepDecay(-0.1, step_size=2), "learning_rate"),
    (lambda: lr.StepDecay(0.1, step_size=2).step(-3), "epoch"),
])
def test_bad_arguments_are_refused(make, match):
    with pytest.raises(ValueError, match=match):
        make()
