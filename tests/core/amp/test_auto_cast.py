"""core.amp.auto_cast / decorate: white-listed ops give float16 inside the context and float32
outside, black-listed ops give float32, gradients keep the parameters' dtypes, O2 casts
parameters (not normalisation layers) with float32 master weights, and mixed-precision
training with a GradScaler ends close to float32 training."""
from __future__ import annotations

import threading

import numpy as np
import pytest

import core
import core.amp
import core.tensor
from core import nn
from core.nn import functional as F
from tests.gradcheck import check_grad


def _pair():
    rng = np.random.default_rng(0)
    x = core.to_tensor(rng.normal(size=(4, 3)).astype(np.float32))
    w = core.to_tensor(rng.normal(size=(3, 2)).astype(np.float32), stop_gradient=False)
    return x, w


def test_white_listed_ops_give_float16_inside_and_float32_outside():
    x, w = _pair()
    with core.amp.auto_cast():
        inside = [core.matmul(x, w), F.linear(x, w), core.einsum("ij,jk->ik", x, w)]
    assert [t.dtype for t in inside] == [core.float16] * 3
    assert core.matmul(x, w).dtype == core.float32
    np.testing.assert_allclose(inside[0].numpy(), core.matmul(x, w).numpy(), rtol=1e-3,
                               atol=1e-3)
    assert core.tensor._amp_hook is None  # nothing left behind: ops pay one check again


def test_black_listed_ops_give_float32_and_others_follow_promotion():
    half = core.to_tensor(np.array([0.5, 1.0], dtype=np.float16))
    with core.amp.auto_cast():
        assert core.exp(half).dtype == core.float32
        assert core.sum(half).dtype == core.float32
        assert F.softmax(half).dtype == core.float32
        assert F.relu(half).dtype == core.float16  # neither list: its input's dtype
        assert (half + core.to_tensor(np.ones(2, np.float32))).dtype == core.float32
        assert core.exp(core.to_tensor(np.ones(2))).dtype == core.float64  # float64 untouched


def test_gradients_flow_back_in_the_parameters_dtype():
    x, w = _pair()
    with core.amp.auto_cast():
        loss = core.sum(core.tanh(core.matmul(x, w)))
    loss.backward()
    amp_grad = w.grad.numpy()
    assert w.grad.dtype == core.float32
    w.clear_grad()
    core.sum(core.tanh(core.matmul(x, w))).backward()
    np.testing.assert_allclose(amp_grad, w.grad.numpy(), rtol=1e-2, atol=1e-3)


def test_custom_lists_move_ops_between_lists():
    x, w = _pair()
    half = core.to_tensor(np.array([0.5], dtype=np.float16))
    with core.amp.auto_cast(custom_black_list=["matmul"], custom_white_list=["tanh", "exp"]):
        assert core.matmul(x, w).dtype == core.float32
        assert core.tanh(x).dtype == core.float16
        assert core.exp(x).dtype == core.float16  # moved off the black list
        assert core.log(half).dtype == core.float32
    with core.amp.auto_cast(custom_white_list=["matmul_v2"]):  # Paddle's kernel name works
        assert core.matmul(x, w).dtype == core.float16


def test_levels_nesting_and_decorator_use():
    x, w = _pair()
    half = core.to_tensor(np.array([0.5], dtype=np.float16))
    with core.amp.auto_cast(level="O0"):
        assert core.matmul(x, w).dtype == core.float32
    with core.amp.auto_cast(level="OD"):  # only white-listed ops in float16, the rest float32
        assert core.matmul(x, w).dtype == core.float16
        assert core.matmul(half, half[None]).dtype == core.float16  # white: stays low
        assert F.relu(half).dtype == core.float32
        assert x.astype("float16").dtype == core.float16  # a cast the user wrote is kept
    with core.amp.auto_cast():
        with core.amp.auto_cast(enable=False):
            assert core.matmul(x, w).dtype == core.float32
        assert core.matmul(x, w).dtype == core.float16

    @core.amp.auto_cast()
    def product():
        return core.matmul(x, w)

    assert product().dtype == core.float16 and product().dtype == core.float16
    assert core.matmul(x, w).dtype == core.float32
    assert core.amp.amp_guard is core.amp.auto_cast


def test_o2_casts_every_op_but_black_listed_ones_and_explicit_casts():
    x, _ = _pair()
    with core.amp.auto_cast(level="O2"):
        assert F.relu(x).dtype == core.float16
        assert F.relu(x).astype("float32").dtype == core.float32
        assert core.cast(F.relu(x), "float32").dtype == core.float32
        assert F.embedding(core.to_tensor(np.array([0, 1])), x).dtype == core.float32


def test_other_threads_are_not_affected():
    x, w = _pair()
    seen = {}
    entered, checked = threading.Event(), threading.Event()

    def outside():
        entered.wait(5)
        seen["dtype"] = core.matmul(x, w).dtype
        checked.set()

    thread = threading.Thread(target=outside)
    thread.start()
    with core.amp.auto_cast():
        entered.set()
        checked.wait(5)
        assert core.matmul(x, w).dtype == core.float16
    thread.join()
    assert seen["dtype"] == core.float32


def _mlp_data():
    rng = np.random.default_rng(7)
    x = rng.normal(size=(64, 8)).astype(np.float32)
    y = np.sin(x @ rng.normal(size=(8, 1))).astype(np.float32)
    return core.to_tensor(x), core.to_tensor(y)


def _train(amp: bool, level: str = "O1", steps: int = 150) -> float:
    core.seed(3)
    model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
    optimizer = core.optimizer.Adam(0.01, parameters=model.parameters())
    if level == "O2":
        model, optimizer = core.amp.decorate(model, optimizer, level="O2")
    scaler = core.amp.GradScaler(enable=amp, init_loss_scaling=1024.0)
    x, y = _mlp_data()
    for _ in range(steps):
        with core.amp.auto_cast(enable=amp, level=level):
            loss = F.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        scaler.minimize(optimizer, loss)
        optimizer.clear_grad()
    with core.amp.auto_cast(enable=False):
        return float(F.mse_loss(model(x).astype("float32"), y))


@pytest.mark.parametrize("level", ["O1", "O2"])
def test_mixed_precision_training_ends_close_to_float32(level):
    full, mixed = _train(False), _train(True, level)
    assert full < 1e-3  # the float32 run has learnt the target
    assert mixed == pytest.approx(full, rel=0.25)


def test_decorate_o2_casts_parameters_but_not_norm_layers():
    model = nn.Sequential(nn.Conv2D(2, 4, 3), nn.BatchNorm2D(4), nn.ReLU(), nn.Flatten(),
                          nn.Linear(4 * 4 * 4, 3), nn.LayerNorm(3))
    optimizer = core.optimizer.SGD(0.1, parameters=model.parameters())
    before = model[0].weight.numpy()
    returned = core.amp.decorate(model, optimizer, level="O2")
    assert returned == (model, optimizer)
    assert model[0].weight.dtype == core.float16 and model[4].weight.dtype == core.float16
    assert model[1].weight.dtype == core.float32 and model[1]._mean.dtype == core.float32
    assert model[5].weight.dtype == core.float32
    x = core.to_tensor(np.random.default_rng(1).normal(size=(2, 2, 6, 6)).astype(np.float32))
    with core.amp.auto_cast(level="O2"):  # float32 input, float16 conv: the model casts it
        out = model(x)
        loss = core.mean(out)
    loss.backward()
    assert model[0].weight.grad.dtype == core.float16
    optimizer.step()
    masters = optimizer._master_weights
    master = masters[id(model[0].weight)]
    assert master.dtype == np.float32  # updated from the float32 values before the cast
    np.testing.assert_allclose(master, before - 0.1 * model[0].weight.grad.numpy().astype(
        np.float32), rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(model[0].weight.numpy(), master.astype(np.float16))


def test_master_weights_keep_small_updates():
    """A float16 weight of 1.0 cannot take a 1e-4 step (its spacing is 1e-3): the float32
    master accumulates ten of them, without master weights nothing moves."""
    results = []
    for master_weight in (None, False):
        param = core.create_parameter([1], "float32",
                                      default_initializer=nn.initializer.Constant(1.0))
        layer = nn.Layer()
        layer.w = param
        optimizer = core.optimizer.SGD(1e-4, parameters=[param])
        core.amp.decorate(layer, optimizer, level="O2", master_weight=master_weight)
        for _ in range(10):
            core.sum(param * 1.0).backward()
            optimizer.step()
            optimizer.clear_grad()
        results.append(float(param.numpy()[0]))
    assert results[0] == pytest.approx(0.999, abs=2e-4)
    assert results[1] == 1.0


def test_decorate_o1_save_dtype_and_errors():
    model = nn.Linear(2, 2)
    assert core.amp.decorate(model) is model
    assert model.weight.dtype == core.float32
    core.amp.decorate(model, save_dtype="float16")
    assert model.state_dict()["weight"].dtype == core.float16
    assert model.weight.dtype == core.float32
    assert core.amp.amp_decorate is core.amp.decorate
    with pytest.raises(ValueError, match=r"level must be one of \['O1', 'O2'\], got 'O3'"):
        core.amp.decorate(model, level="O3")
    with pytest.raises(TypeError, match=r"models must be a Layer or a list of them"):
        core.amp.decorate("model")
    with pytest.raises(TypeError, match=r"optimizers must be a Optimizer or a list"):
        core.amp.decorate(model, optimizers=[1])
    with pytest.raises(ValueError, match=r"save_dtype must be None, 'float16'"):
        core.amp.decorate(model, save_dtype="int8")


def test_bfloat16_and_bad_arguments_raise_clear_errors():
    assert core.amp.is_float16_supported()
    assert not core.amp.is_bfloat16_supported()
    with pytest.raises(ValueError, match=r"dtype 'bfloat16' is not supported by the cpu"):
        core.amp.auto_cast(dtype="bfloat16")
    with pytest.raises(ValueError, match=r"dtype 'bfloat16' is not supported"):
        core.amp.decorate(nn.Linear(2, 2), level="O2", dtype="bfloat16")
    with pytest.raises(ValueError, match=r"dtype must be one of \['float16', 'bfloat16'\]"):
        core.amp.auto_cast(dtype="float32")
    with pytest.raises(ValueError, match=r"level must be one of \['O0', 'OD', 'O1', 'O2'\]"):
        core.amp.auto_cast(level="O3")
    with pytest.raises(ValueError, match=r"both name \['exp'\]"):
        core.amp.auto_cast(custom_white_list=["exp"], custom_black_list={"exp"})
    with pytest.raises(TypeError, match="custom_white_list must be a list or set of op names"):
        core.amp.auto_cast(custom_white_list="matmul")
    with pytest.raises(TypeError, match="enable must be True or False"):
        core.amp.auto_cast(enable="yes")


def test_paddles_op_lists():
    white, black = core.amp.white_list(), core.amp.black_list()
    assert "matmul_v2" in white["float16"]["O1"] and "conv2d" in white["bfloat16"]["O2"]
    assert "softmax" in black["float16"]["O1"] and "softmax" not in black["float16"]["O2"]
    assert "lookup_table_v2" in black["float16"]["O2"] and black["float16"]["OD"] == set()
    assert core.amp.amp_lists.white_list() == white


def test_master_weight_follows_a_parameter_set_from_outside():
    layer = nn.Linear(2, 1)
    optimizer = core.optimizer.SGD(0.5, parameters=layer.parameters())
    core.amp.decorate(layer, optimizer, level="O2")
    layer.weight.set_value(np.full((2, 1), 2.0, dtype=np.float16))
    core.sum(layer.weight * 1.0).backward()
    optimizer.step()
    np.testing.assert_array_equal(layer.weight.numpy(), np.full((2, 1), 1.5, np.float16))


def test_float64_gradients_are_exact_inside_auto_cast():
    rng = np.random.default_rng(5)
    with core.amp.auto_cast(level="O2"):  # float64 is never recast
        check_grad(lambda x, w: core.tanh(core.matmul(x, w)), rng.normal(size=(3, 4)),
                   rng.normal(size=(4, 2)))


def test_matches_torch_autocast_on_the_cpu():
    torch = pytest.importorskip("torch")
    x, w = _pair()
    with core.amp.auto_cast():
        ours = F.linear(x, w)
    with torch.autocast("cpu", dtype=torch.float16):
        theirs = torch.nn.functional.linear(torch.from_numpy(x.numpy()),
                                            torch.from_numpy(w.numpy().T))
    assert theirs.dtype == torch.float16 and ours.dtype == core.float16
    # torch rounds the inputs to float16 first; core only the result
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-2, atol=1e-2)
