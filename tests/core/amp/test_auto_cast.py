"""core.amp.auto_cast / decorate: inside the context white-listed ops (matmul, linear, einsum,
the convolutions) compute from float16 inputs, their float32 weights included, and black-listed
ones (exp, softmax, cross_entropy, ...) from float32 inputs; gradients reach float32 weights in
float32, exactly as through the float16 chain; outside nothing changes, also in other threads;
O2 casts parameters (not normalisation layers) with float32 master weights, and mixed-precision
training with a GradScaler ends close to float32 training."""
from __future__ import annotations

import copy
import threading

import numpy as np
import pytest

import core
import core.amp
import core.autocast
from core import nn
from core.nn import functional as F
from tests.gradcheck import check_grad


def _pair():
    rng = np.random.default_rng(0)
    x = core.to_tensor(rng.normal(size=(4, 3)).astype(np.float32))
    w = core.to_tensor(rng.normal(size=(3, 2)).astype(np.float32), stop_gradient=False)
    return x, w


def _wide_pair():
    """Inputs whose float16 product differs from the float32 product rounded to float16."""
    rng = np.random.default_rng(11)
    x = core.to_tensor(rng.normal(size=(16, 64)).astype(np.float32))
    w = core.to_tensor(rng.normal(size=(64, 8)).astype(np.float32), stop_gradient=False)
    return x, w


def _half(t):
    return t.astype("float16")


_WHITE_OPS = {
    "matmul": lambda x, w: core.matmul(x, w),
    "linear": lambda x, w: F.linear(x, w),
    "einsum": lambda x, w: core.einsum("ij,jk->ik", x, w),
    "conv2d": lambda x, w: F.conv2d(x.reshape([1, 16, 8, 8]), w.reshape([8, 16, 2, 2])),
}


@pytest.mark.parametrize("op", sorted(_WHITE_OPS))
def test_white_listed_ops_compute_from_float16_inputs(op):
    fn = _WHITE_OPS[op]
    x, w = _wide_pair()
    with core.amp.auto_cast():
        inside = fn(x, w)
    assert inside.dtype == core.float16
    from_half = fn(_half(x), _half(w))  # the float16 computation, outside any auto_cast
    rounded = fn(x, w).astype("float16")  # what casting only the result would give
    np.testing.assert_array_equal(inside.numpy(), from_half.numpy())
    assert not np.array_equal(inside.numpy(), rounded.numpy())


@pytest.mark.parametrize("op", sorted(_WHITE_OPS))
def test_float32_weights_get_the_float16_chains_gradient_in_float32(op):
    fn = _WHITE_OPS[op]
    x, w = _wide_pair()
    with core.amp.auto_cast():
        loss = core.sum(fn(x, w).astype("float32") ** 2)
    loss.backward()
    assert w.grad.dtype == core.float32
    amp_grad = w.grad.numpy()
    w.clear_grad()
    core.sum(fn(_half(x), _half(w)).astype("float32") ** 2).backward()
    np.testing.assert_array_equal(amp_grad, w.grad.numpy())


def test_linear_casts_its_bias_and_a_model_with_float32_weights_runs_at_o1():
    core.seed(2)
    model = nn.Sequential(nn.Conv2D(2, 4, 3), nn.ReLU(), nn.Conv2D(4, 3, 3), nn.Flatten(),
                          nn.Linear(3 * 2 * 2, 5))
    x = core.to_tensor(np.random.default_rng(3).normal(size=(2, 2, 6, 6)).astype(np.float32))
    with core.amp.auto_cast():  # O1: the weights stay float32, each conv casts them
        out = model(x)
        loss = F.cross_entropy(out, core.to_tensor(np.array([1, 4])))
    assert out.dtype == core.float16 and loss.dtype == core.float32
    loss.backward()
    for param in model.parameters():
        assert param.dtype == core.float32 and param.grad.dtype == core.float32
    assert np.isfinite(model[4].bias.grad.numpy()).all()


def test_conv3d_and_transposed_convs_are_cast_as_conv2d():
    rng = np.random.default_rng(4)
    x = core.to_tensor(rng.normal(size=(1, 2, 4, 4, 4)).astype(np.float32))
    w = core.to_tensor(rng.normal(size=(3, 2, 2, 2, 2)).astype(np.float32))
    wt = core.to_tensor(rng.normal(size=(2, 3, 2, 2)).astype(np.float32))
    x16 = core.to_tensor(rng.normal(size=(1, 2, 5, 5)).astype(np.float16))
    with core.amp.auto_cast():
        assert F.conv3d(x, w).dtype == core.float16
        assert F.conv3d_transpose(x, w.transpose([1, 0, 2, 3, 4])).dtype == core.float16
        assert F.conv2d_transpose(x16, wt).dtype == core.float16  # float16 x, float32 weight
        assert F.conv1d(x16[:, :, 0], wt.transpose([1, 0, 2, 3])[:, :, 0]).dtype == core.float16


@pytest.mark.filterwarnings("ignore:overflow encountered in exp")  # float16's, on purpose
def test_black_listed_ops_compute_in_float32():
    half = core.to_tensor(np.array([[0.5, 12.0, -3.0]], dtype=np.float16))
    assert not np.isfinite(core.exp(half).numpy()).all()  # 12 overflows float16's exp
    full = half.astype("float32")
    with core.amp.auto_cast():
        out = core.exp(half)
        soft, log_soft = F.softmax(half), F.log_softmax(half)
        loss = F.cross_entropy(half, core.to_tensor(np.array([1])))
        others = [core.sum(half), core.mean(half), core.log(half + 4), core.square(half),
                  core.cumsum(half, axis=1), core.pow(half, 2.0),
                  F.layer_norm(half, [3]), F.binary_cross_entropy_with_logits(half, half)]
    assert out.dtype == core.float32 and np.isfinite(out.numpy()).all()
    np.testing.assert_array_equal(out.numpy(), core.exp(full).numpy())
    np.testing.assert_array_equal(soft.numpy(), F.softmax(full).numpy())
    np.testing.assert_array_equal(log_soft.numpy(), F.log_softmax(full).numpy())
    np.testing.assert_array_equal(loss.numpy(),
                                  F.cross_entropy(full, core.to_tensor(np.array([1]))).numpy())
    assert {t.dtype for t in others} == {core.float32}


def test_ops_on_neither_list_run_on_what_they_get():
    half = core.to_tensor(np.array([0.5, 1.0], dtype=np.float16))
    with core.amp.auto_cast():
        assert F.relu(half).dtype == core.float16
        assert core.tanh(half).dtype == core.float16
        assert (half + core.to_tensor(np.ones(2, np.float32))).dtype == core.float32
        assert core.exp(core.to_tensor(np.ones(2))).dtype == core.float64  # float64 untouched
        assert core.matmul(core.to_tensor(np.ones((2, 2))),
                           core.to_tensor(np.ones((2, 2)))).dtype == core.float64


def test_nothing_changes_outside_auto_cast():
    x, w = _wide_pair()
    half = core.to_tensor(np.array([[0.5, 1.5, -2.0]], dtype=np.float16))

    def run():
        return [core.matmul(x, w), F.linear(x, w), core.exp(half), F.softmax(half),
                core.sum(half), core.einsum("ij,jk->ik", x, w)]

    before = run()
    with core.amp.auto_cast():
        run()
    assert core.autocast.active == 0  # nothing left behind: ops pay one check again
    after = run()
    for b, a in zip(before, after):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert [t.dtype for t in after] == [core.float32, core.float32, core.float16, core.float16,
                                        core.float16, core.float32]


def test_custom_lists_move_ops_between_lists():
    x, w = _pair()
    half = core.to_tensor(np.array([0.5], dtype=np.float16))
    with core.amp.auto_cast(custom_black_list=["matmul"], custom_white_list=["exp"]):
        assert core.matmul(x, w).dtype == core.float32
        assert core.exp(x).dtype == core.float16  # moved off the black list
        assert core.log(half).dtype == core.float32
    with core.amp.auto_cast(custom_white_list=["matmul_v2"]):  # Paddle's kernel name works
        assert core.matmul(x, w).dtype == core.float16
    with core.amp.auto_cast(custom_black_list=["conv2d"]):  # the conv family goes with it
        conv = F.conv2d(x.reshape([1, 1, 4, 3]), w.reshape([1, 1, 3, 2]))
        assert conv.dtype == core.float32


def test_levels_nesting_and_decorator_use():
    x, w = _pair()
    half = core.to_tensor(np.array([0.5], dtype=np.float16))
    with core.amp.auto_cast(level="O0"):
        assert core.matmul(x, w).dtype == core.float32
    with core.amp.auto_cast(level="OD"):  # only white-listed ops in float16, the rest float32
        assert core.matmul(x, w).dtype == core.float16
        assert core.tanh(half).dtype == core.float32
        assert F.relu(half).dtype == core.float16  # not wired: runs on what it gets
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


def test_o2_casts_every_wired_op_but_black_listed_ones():
    x, _ = _pair()
    with core.amp.auto_cast(level="O2"):
        assert core.exp(x).dtype == core.float16  # Paddle's O2 black list is short
        assert F.softmax(x).dtype == core.float16
        assert core.sum(x).dtype == core.float16
        assert F.relu(x).dtype == core.float32  # not wired: runs on what it gets
        assert F.embedding(core.to_tensor(np.array([0, 1])), x).dtype == core.float32


def test_other_threads_are_not_affected():
    x, w = _pair()
    seen = {}
    entered, checked = threading.Event(), threading.Event()

    def outside():
        entered.wait(5)
        seen["dtype"] = core.matmul(x, w).dtype
        seen["exp"] = core.exp(x.astype("float16")).dtype
        checked.set()

    thread = threading.Thread(target=outside)
    thread.start()
    with core.amp.auto_cast():
        entered.set()
        checked.wait(5)
        assert core.matmul(x, w).dtype == core.float16
    thread.join()
    assert seen == {"dtype": core.float32, "exp": core.float16}


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
    with core.amp.auto_cast(level="O2"):  # float32 input, float16 conv: the conv casts it
        out = model(x)
        loss = core.mean(out)
    loss.backward()
    assert model[0].weight.grad.dtype == core.float16
    optimizer.step()
    assert optimizer._multi_precision  # decorate turned on Paddle's multi_precision
    master = optimizer.state_dict()["master_weights"][model[0].weight.name].numpy()
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


def test_a_save_dtype_model_loads_its_checkpoint_copies_and_jit_saves(tmp_path):
    core.seed(4)
    model = nn.Sequential(nn.Linear(3, 4), nn.LayerNorm(4), nn.Linear(4, 2))
    model = core.amp.decorate(model, level="O2", save_dtype="float32")
    saved = model.state_dict()  # float32 copies of the float16 parameters
    assert {str(v.dtype) for v in saved.values()} == {"float32"}
    core.seed(5)
    other = core.amp.decorate(nn.Sequential(nn.Linear(3, 4), nn.LayerNorm(4), nn.Linear(4, 2)),
                              level="O2", save_dtype="float32")
    for load in (other.set_state_dict, other.set_dict, other.load_dict):
        for param in other.parameters():
            param.set_value(np.zeros(param.shape, param.dtype))
        load(saved)  # into the live float16 / float32 tensors, not into copies
        for (key, value), param in zip(saved.items(), other.parameters()):
            assert str(param.dtype) == ("float32" if key.startswith("1.") else "float16")
            np.testing.assert_array_equal(param.numpy().astype(np.float32), value.numpy())
    clone = copy.deepcopy(model)
    clone[0].weight.set_value(np.ones((3, 4), np.float16))
    np.testing.assert_array_equal(clone.state_dict()["0.weight"].numpy(), np.ones((3, 4)))
    assert not np.array_equal(model.state_dict()["0.weight"].numpy(), np.ones((3, 4)))
    x = core.rand([2, 3])
    core.jit.save(model, str(tmp_path / "net"), input_spec=[core.static.InputSpec([None, 3])])
    loaded = core.jit.load(str(tmp_path / "net"))
    with core.amp.auto_cast(level="O2"):
        np.testing.assert_array_equal(loaded(x).numpy(), model(x).numpy())


def _numpy_has_bfloat16() -> bool:
    try:
        np.dtype("bfloat16")  # registered once ml_dtypes is imported (cupy 14 imports it)
    except TypeError:
        return False
    return True


def test_bfloat16_and_bad_arguments_raise_clear_errors(on_cpu):
    """The CPU has bfloat16 only where numpy knows the dtype, and refuses it otherwise."""
    assert core.amp.is_float16_supported()
    assert core.amp.is_bfloat16_supported() == _numpy_has_bfloat16()
    if not _numpy_has_bfloat16():
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
    # both round the inputs to float16 first (the products' summation order may differ)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=2e-3, atol=2e-3)
    half = np.array([[0.5, 12.0, -3.0]], dtype=np.float16)
    with core.amp.auto_cast():
        ours = F.softmax(core.to_tensor(half))
    theirs = torch.softmax(torch.from_numpy(half).float(), -1)  # of the widened input
    assert ours.dtype == core.float32
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


@pytest.mark.parametrize("level", ["O1", "O2"])
def test_in_place_ops_skip_amp_and_keep_the_tensors_dtype(level):
    # Paddle's generated in-place APIs skip amp ("No AMP for ... because it is a inplace or
    # cast api"): a float16 tensor's exp_ computes in float16 and is written back, where the
    # black-listed exp's float32 result could not be.
    values = np.array([[0.5, 1.0, -2.0]], dtype=np.float16)
    methods = {"exp_": (), "log_": (), "square_": (), "sqrt_": (), "pow_": (2.0,),
               "cumsum_": (1,), "scale_": (3.0,), "add_": (core.to_tensor(values),)}
    with core.amp.auto_cast(level=level):
        for name, args in methods.items():
            x = core.to_tensor(np.abs(values))
            assert getattr(x, name)(*args) is x and x.dtype == core.float16, name
            outside = getattr(core, name[:-1])  # the same op on float16, outside auto_cast
            with core.amp.auto_cast(enable=False):
                want = outside(core.to_tensor(np.abs(values)), *args)
            np.testing.assert_array_equal(x.numpy(), want.numpy(), err_msg=name)
        full = core.to_tensor(np.ones((2, 2), np.float32))
        assert core.matmul(full, full).dtype == core.float16  # amp is on again after them
    assert core.autocast.current() is None and core.autocast.active == 0
