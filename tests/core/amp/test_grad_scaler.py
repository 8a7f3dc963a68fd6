"""core.amp.GradScaler / AmpScaler: Paddle's dynamic loss-scaling rules on hand-computed
sequences, skipped steps, the step/update/unscale_ protocol, clipping, row-sparse gradients,
state dicts and argument errors."""
from __future__ import annotations

import numpy as np
import pytest

import core
import core.amp
from core import nn

# the overflow steps overflow on purpose
pytestmark = pytest.mark.filterwarnings("ignore:(overflow|invalid value) encountered")


def _step(scaler, param, optimizer, feed: float):
    """One scaled step of loss = sum(param * feed): the gradient is ``feed`` (inf: overflow)."""
    loss = core.sum(param * core.to_tensor(np.full(param.shape, feed, dtype=np.float32)))
    scaler.scale(loss).backward()
    scaler.minimize(optimizer, loss)
    optimizer.clear_grad()


def _setup(**settings):
    param = core.create_parameter([2], "float32", default_initializer=nn.initializer.Constant(1.0))
    optimizer = core.optimizer.SGD(learning_rate=0.5, parameters=[param])
    return core.amp.GradScaler(**settings), param, optimizer


def test_dynamic_scaling_follows_paddles_counts():
    scaler, param, optimizer = _setup(init_loss_scaling=8.0, incr_every_n_steps=2,
                                      decr_every_n_nan_or_inf=2)
    # (feed, scale after the step, good count, bad count, parameter value after the step)
    sequence = [(1.0, 8.0, 1, 0, 0.5),    # good
                (1.0, 16.0, 0, 0, 0.0),   # second good in a row: x2, count restarts
                (np.inf, 16.0, 0, 1, 0.0),  # bad: skipped, one bad so far
                (1.0, 16.0, 1, 0, -0.5),  # a good step resets the bad count
                (np.inf, 16.0, 0, 1, -0.5),
                (np.nan, 8.0, 0, 0, -0.5),  # second bad in a row: x0.5, count restarts
                (1.0, 8.0, 1, 0, -1.0)]
    for feed, scale, good, bad, value in sequence:
        _step(scaler, param, optimizer, feed)
        state = scaler.state_dict()
        assert float(state["scale"][0]) == scale
        assert (state["incr_count"], state["decr_count"]) == (good, bad)
        np.testing.assert_array_equal(param.numpy(), [value, value])


def test_overflow_skips_the_step_and_halves_the_scale():
    scaler, param, optimizer = _setup()  # Paddle's defaults: 65536, halve on each overflow
    assert scaler.state_dict()["scale"][0] == 65536.0
    _step(scaler, param, optimizer, 1e35)  # 1e35 * 65536 overflows float32
    np.testing.assert_array_equal(param.numpy(), [1.0, 1.0])
    assert scaler.state_dict()["scale"][0] == 32768.0


def test_gradients_are_unscaled_exactly():
    scaler, param, optimizer = _setup(init_loss_scaling=1024.0)
    loss = core.sum(param * core.to_tensor(np.array([3.0, -2.0], dtype=np.float32)))
    scaled = scaler.scale(loss)
    assert float(scaled) == pytest.approx(1024.0 * float(loss))
    scaled.backward()
    np.testing.assert_array_equal(param.grad.numpy(), [3072.0, -2048.0])
    scaler.unscale_(optimizer)
    np.testing.assert_array_equal(param.grad.numpy(), [3.0, -2.0])
    scaler.step(optimizer)
    scaler.update()
    np.testing.assert_allclose(param.numpy(), [1.0 - 1.5, 1.0 + 1.0])


def test_fixed_scaling_never_changes_the_scale():
    scaler, param, optimizer = _setup(init_loss_scaling=4.0, incr_every_n_steps=1,
                                      use_dynamic_loss_scaling=False)
    for feed in (1.0, np.inf, 1.0):
        _step(scaler, param, optimizer, feed)
        assert scaler.state_dict()["scale"][0] == 4.0
    np.testing.assert_allclose(param.numpy(), [0.0, 0.0])  # the inf step was still skipped
    assert not scaler.is_use_dynamic_loss_scaling()


def test_step_update_protocol_errors():
    scaler, param, optimizer = _setup(init_loss_scaling=2.0)
    scaler.scale(core.sum(param * 1.0)).backward()
    scaler.unscale_(optimizer)
    with pytest.raises(RuntimeError, match=r"unscale_\(\) has already been called"):
        scaler.unscale_(optimizer)
    scaler.step(optimizer)
    with pytest.raises(RuntimeError, match=r"unscale_\(\) is being called after step"):
        scaler.unscale_(optimizer)
    with pytest.raises(RuntimeError, match=r"step\(\) has already been called"):
        scaler.step(optimizer)
    scaler.update()
    optimizer.clear_grad()
    scaler.scale(core.sum(param * 1.0)).backward()
    scaler.step(optimizer)  # a fresh step after update()
    scaler.update()


def test_matches_unscaled_training_with_global_norm_clipping():
    """The scaler unscales before the optimizer clips, so a clipped scaled run equals the
    same run without scaling."""
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(16, 3)).astype(np.float32), rng.normal(size=(16, 1)).astype(
        np.float32)
    results = []
    for scaler in (core.amp.GradScaler(init_loss_scaling=1024.0), core.amp.GradScaler(False)):
        core.seed(1)
        model = nn.Linear(3, 1)
        optimizer = core.optimizer.Momentum(0.1, parameters=model.parameters(),
                                            grad_clip=nn.ClipGradByGlobalNorm(0.05))
        for _ in range(5):
            loss = core.mean((model(core.to_tensor(x)) - core.to_tensor(y)) ** 2)
            scaler.scale(loss).backward()
            scaler.minimize(optimizer, loss)
            optimizer.clear_grad()
        results.append(model.weight.numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-6)


def test_row_sparse_gradients_are_unscaled_and_checked():
    results = []
    for scaler in (core.amp.GradScaler(init_loss_scaling=256.0), core.amp.GradScaler(False)):
        core.seed(2)
        table = nn.Embedding(6, 2, sparse=True)
        optimizer = core.optimizer.SGD(0.5, parameters=table.parameters())
        ids = core.to_tensor(np.array([1, 4, 1], dtype=np.int64))
        loss = core.sum(table(ids) * 2.0)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        results.append(table.weight.numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-7)
    scaler = core.amp.GradScaler(init_loss_scaling=256.0)
    table = nn.Embedding(6, 2, sparse=True)
    optimizer = core.optimizer.SGD(0.5, parameters=table.parameters())
    before = table.weight.numpy()
    loss = core.sum(table(core.to_tensor(np.array([2], dtype=np.int64))) * float("inf"))
    scaler.scale(loss).backward()
    scaler.minimize(optimizer, loss)
    np.testing.assert_array_equal(table.weight.numpy(), before)  # the step was skipped
    assert scaler.state_dict()["scale"][0] == 128.0


@pytest.mark.parametrize("reduce", [core.sum, core.mean])
def test_a_sparse_gradient_straight_from_sum_or_mean_is_unscaled(reduce):
    # table(ids).sum(): the row-sparse gradient holds sum's read-only broadcast of ones
    core.seed(3)
    table = nn.Embedding(6, 2, sparse=True)
    before = table.weight.numpy()
    optimizer = core.optimizer.SGD(0.5, parameters=table.parameters())
    scaler = core.amp.GradScaler(init_loss_scaling=64.0)
    ids = core.to_tensor(np.array([[1, 4, 1]], dtype=np.int64))
    loss = reduce(table(ids))
    scaler.scale(loss).backward()
    scaler.minimize(optimizer, loss)
    weight = 1.0 if reduce is core.sum else 1.0 / 6.0  # d loss / d row element, per lookup
    expected = before.copy()
    expected[1] -= 0.5 * 2 * weight
    expected[4] -= 0.5 * weight
    np.testing.assert_allclose(table.weight.numpy(), expected, rtol=1e-6)


def test_float16_gradients_stay_float16():
    scaler = core.amp.GradScaler(init_loss_scaling=1024.0)
    param = core.create_parameter([3], "float16", default_initializer=nn.initializer.Constant(1.0))
    optimizer = core.optimizer.SGD(0.25, parameters=[param])
    scaler.scale(core.sum(param * core.to_tensor(np.full(3, 1e-5, dtype=np.float16)))).backward()
    scaler.unscale_(optimizer)
    assert param.grad.dtype == core.float16
    np.testing.assert_allclose(param.grad.numpy().astype(np.float64), 1e-5, rtol=1e-2)


def test_disabled_scaler_passes_through():
    scaler, param, optimizer = _setup(enable=False)
    loss = core.sum(param * 1.0)
    assert scaler.scale(loss) is loss
    loss.backward()
    scaler.step(optimizer)
    scaler.update()
    np.testing.assert_allclose(param.numpy(), [0.5, 0.5])
    assert not scaler.is_enable() and scaler.state_dict() == {}
    scaler.load_state_dict({})  # ignored when disabled, as Paddle


def test_getters_setters_and_state_dict_round_trip():
    scaler = core.amp.GradScaler(init_loss_scaling=1024, incr_ratio=3.0, decr_ratio=0.25,
                                 incr_every_n_steps=5, decr_every_n_nan_or_inf=3)
    assert scaler.is_enable() and scaler.is_use_dynamic_loss_scaling()
    assert (scaler.get_init_loss_scaling(), scaler.get_incr_ratio(), scaler.get_decr_ratio(),
            scaler.get_incr_every_n_steps(), scaler.get_decr_every_n_nan_or_inf()) == \
        (1024.0, 3.0, 0.25, 5, 3)
    scaler.set_init_loss_scaling(512.0)
    scaler.set_incr_ratio(4.0)
    scaler.set_decr_ratio(0.5)
    scaler.set_incr_every_n_steps(7)
    scaler.set_decr_every_n_nan_or_inf(2)
    assert (scaler.get_init_loss_scaling(), scaler.get_incr_ratio(), scaler.get_decr_ratio(),
            scaler.get_incr_every_n_steps(), scaler.get_decr_every_n_nan_or_inf()) == \
        (512.0, 4.0, 0.5, 7, 2)
    state = scaler.state_dict()
    assert state["scale"].dtype == np.float32 and state["scale"].shape == (1,)
    other = core.amp.GradScaler()
    other.load_state_dict(state)
    assert other.state_dict().keys() == state.keys()
    for key, value in state.items():
        np.testing.assert_array_equal(other.state_dict()[key], value)
    with pytest.raises(RuntimeError, match="state dict is empty"):
        other.load_state_dict({})


def test_amp_scaler_has_paddles_defaults():
    scaler = core.amp.AmpScaler()
    assert scaler.get_init_loss_scaling() == 32768.0
    assert scaler.get_incr_every_n_steps() == 1000
    assert scaler.get_decr_every_n_nan_or_inf() == 1
    assert not hasattr(scaler, "step")  # step/update/unscale_ are GradScaler's
    assert core.amp.OptimizerState.INIT.value == 0


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"incr_ratio": 1.0}, r"incr_ratio must be a finite number > 1.0, got 1.0"),
    ({"decr_ratio": 1.5}, r"decr_ratio must be a number in \(0, 1\), got 1.5"),
    ({"incr_every_n_steps": 0}, r"incr_every_n_steps must be an int >= 1, got 0"),
    ({"decr_every_n_nan_or_inf": 1.5}, r"decr_every_n_nan_or_inf must be an int >= 1"),
    ({"init_loss_scaling": -1.0}, r"init_loss_scaling must be a finite number > 0, got -1.0"),
])
def test_bad_settings_name_the_argument(kwargs, message):
    with pytest.raises(ValueError, match=message):
        core.amp.GradScaler(**kwargs)


def test_bad_setter_values_and_scale_argument():
    scaler = core.amp.GradScaler()
    with pytest.raises(ValueError, match=r"new_incr_ratio must be a finite number > 1.0"):
        scaler.set_incr_ratio(0.5)
    with pytest.raises(ValueError, match=r"new_decr_ratio must be a number in \(0, 1\)"):
        scaler.set_decr_ratio(2.0)
    with pytest.raises(TypeError, match="enable must be True or False, got 1"):
        core.amp.GradScaler(enable=1)
    with pytest.raises(TypeError, match="var must be a Tensor, got float"):
        scaler.scale(1.0)


def test_scaled_loss_stays_float32_inside_an_o2_auto_cast():
    scaler = core.amp.GradScaler(init_loss_scaling=65536.0)
    loss = core.to_tensor(np.float16(4.0))
    with core.amp.auto_cast(level="O2"):
        scaled = scaler.scale(loss)  # 262144 overflows float16
    assert scaled.dtype == core.float32 and float(scaled) == 262144.0


def test_scale_sequence_matches_torch_grad_scaler():
    """With decr_every_n_nan_or_inf=1 Paddle's rule is torch's (growth_interval, backoff)."""
    torch = pytest.importorskip("torch")
    scaler, param, optimizer = _setup(init_loss_scaling=8.0, incr_every_n_steps=2)
    theirs = torch.amp.GradScaler("cpu", init_scale=8.0, growth_factor=2.0,
                                  backoff_factor=0.5, growth_interval=2)
    weight = torch.ones(2, requires_grad=True)
    torch_optimizer = torch.optim.SGD([weight], lr=0.5)
    for feed in (1.0, 1.0, np.inf, 1.0, 1.0, 1.0, np.nan, np.inf, 1.0):
        _step(scaler, param, optimizer, feed)
        theirs.scale((weight * torch.full((2,), float(feed))).sum()).backward()
        theirs.step(torch_optimizer)
        theirs.update()
        torch_optimizer.zero_grad()
        assert scaler.state_dict()["scale"][0] == theirs.get_scale()
        np.testing.assert_allclose(param.numpy(), weight.detach().numpy())
