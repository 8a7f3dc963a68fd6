"""core.load against files written by real Paddle (paddlepaddle 3.3.1, CPU), not by hand.

The fixtures in tests/core/data/paddle331/checkpoints/ come from make_fixtures.py there, run
with Paddle installed; ``expected.npz`` beside them holds, saved with numpy, what Paddle had:
each tensor's values, the layers' outputs on fixed inputs, and the parameters one optimizer
step after the checkpoint. Paddle itself is not needed here.
"""
from __future__ import annotations

import functools
import os

import numpy as np
import pytest

import core
from core import nn
from core.serialize import SerializationError

HERE = os.path.join(os.path.dirname(__file__), "data", "paddle331", "checkpoints")


def path(name: str) -> str:
    return os.path.join(HERE, name)


@functools.lru_cache(maxsize=1)
def expected() -> dict:
    with np.load(path("expected.npz")) as archive:
        return {key: archive[key] for key in archive.files}


class Layers(nn.Layer):
    """make_fixtures.py's ``Layers``, in core: the same attribute names, so the same keys."""

    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 3)
        self.conv = nn.Conv2D(2, 3, 3, padding=1)
        self.bn = nn.BatchNorm2D(3)
        self.lstm = nn.LSTM(4, 3, num_layers=2, direction="bidirect")
        self.gru = nn.GRU(4, 3)
        self.emb = nn.Embedding(6, 4, padding_idx=0)
        self.ln = nn.LayerNorm(4)
        self.mha = nn.MultiHeadAttention(4, 2)


# ----- layers' state dicts ----------------------------------------------------------------------

def test_layer_state_dict_loads_with_paddles_values_and_names():
    state, want = core.load(path("layers.pdparams")), expected()
    keys = [key[len("layers."):] for key in want if key.startswith("layers.")
            and key != "layers.names"]
    assert list(state) == keys  # Paddle's order, the name table dropped
    for key in keys:
        np.testing.assert_array_equal(state[key].numpy(), want[f"layers.{key}"])
    names = dict(item.split("=") for item in want["layers.names"])
    assert {key: state[key].name for key in keys} == names
    assert state["bn._mean"].name.endswith("w_1")  # a running mean: batch_norm_0.w_1
    raw = core.load(path("layers.pdparams"), return_numpy=True, keep_name_table=True)
    assert raw["StructuredToParameterName@@"] == names
    assert isinstance(raw["linear.weight"], np.ndarray)


def test_layer_set_state_dict_takes_paddles_keys_and_gives_paddles_outputs():
    net, state = Layers(), core.load(path("layers.pdparams"))
    missing, unexpected = net.set_state_dict(state)
    assert missing == []
    # Paddle's LSTM/GRU state dict lists each weight twice: flat (lstm.weight_ih_l0) and as
    # its cell's (lstm.0.cell_fw.weight_ih), the same array; core's layers register only the
    # flat names, so the cell aliases may come back unexpected -- but they must be aliases
    for key in unexpected:
        np.testing.assert_array_equal(state[key].numpy(), state[_flat_rnn_key(key)].numpy())
    net.eval()
    want = expected()
    seq, img = core.to_tensor(want["in.seq"]), core.to_tensor(want["in.img"])
    got = {"linear": net.linear(seq), "conv_bn": net.bn(net.conv(img)),
           "emb": net.emb(core.to_tensor(want["in.ids"])), "ln": net.ln(seq),
           "mha": net.mha(seq, seq, seq)}
    got["lstm"], (got["lstm_h"], got["lstm_c"]) = net.lstm(seq)
    got["gru"], got["gru_h"] = net.gru(seq)
    for key, value in got.items():
        np.testing.assert_allclose(value.numpy(), want[f"out.{key}"], rtol=1e-5, atol=1e-6,
                                   err_msg=key)


def _flat_rnn_key(key: str) -> str:
    """``lstm.1.cell_bw.weight_ih`` -> ``lstm.weight_ih_l1_reverse``, ``gru.0.cell.bias_hh``
    -> ``gru.bias_hh_l0``: the flat name of a cell's parameter in Paddle's RNN layers."""
    layer, index, cell, name = key.split(".")
    return f"{layer}.{name}_l{index}" + ("_reverse" if cell == "cell_bw" else "")


def test_batch_norm_running_statistics_are_loaded():
    net = Layers()
    net.set_state_dict(core.load(path("layers.pdparams")))
    np.testing.assert_array_equal(net.bn._mean.numpy(), expected()["layers.bn._mean"])
    np.testing.assert_array_equal(net.bn._variance.numpy(), expected()["layers.bn._variance"])


# ----- dtypes, 0-D tensors, nested containers -------------------------------------------------

@pytest.mark.parametrize("key", ["f16", "i64", "flag", "f64", "i32", "u8", "zero_d",
                                 "zero_d_int"])
def test_every_dtype_and_zero_d_tensors_keep_dtype_shape_and_values(key):
    got, want = core.load(path("dtypes.pdparams"))[key], expected()[f"dtypes.{key}"]
    assert got.dtype == want.dtype and tuple(got.shape) == want.shape
    np.testing.assert_array_equal(got.numpy(), want)
    assert str(expected()[f"dtypes.{key}.dtype"]) == f"paddle.{got.dtype}"  # Paddle's dtype


def test_bfloat16_loads_as_its_uint16_bits():
    # numpy has no bfloat16: paddle.save stores its bits as uint16, and core has no bfloat16
    # dtype to give them back as (Paddle's load does); the float32 values are the bits << 16
    got = core.load(path("dtypes.pdparams"))["bf16"]
    assert got.dtype == np.uint16
    as_float = (got.numpy().astype(np.uint32) << 16).view(np.float32)
    np.testing.assert_array_equal(as_float, expected()["dtypes.bf16"])


def test_nested_containers_keep_python_scalars_and_tensors():
    got = core.load(path("nested.pdparams"))
    weights, meta = got["weights"], got["meta"]
    assert isinstance(weights, list) and all(isinstance(w, core.Tensor) for w in weights)
    np.testing.assert_array_equal(weights[0].numpy(), expected()["nested.f32"])
    np.testing.assert_array_equal(weights[1].numpy(), np.arange(4))
    assert weights[1].dtype == np.int64
    zero_d = meta.pop("zero_d")
    assert meta == {"epoch": 3, "lr": 0.001, "name": "run-1", "done": False, "none": None,
                    "shape": (2, 3)}
    assert isinstance(zero_d, core.Tensor) and zero_d.shape == [] and float(zero_d) == 1.5
    # a bare numpy array stays one, as in Paddle
    assert isinstance(got["array"], np.ndarray)
    np.testing.assert_array_equal(got["array"], np.arange(3, dtype=np.float32))


# ----- optimizers: resuming from Paddle's .pdopt ----------------------------------------------

def _resumed(kind: str):
    """A core Linear and optimizer resumed from Paddle's ``kind`` checkpoint: the parameters
    take Paddle's names first, as Paddle matches accumulators by parameter name."""
    weights = core.load(path(f"{kind}.pdparams"))
    net = nn.Linear(4, 3)
    net.set_state_dict(weights)
    for key, param in net.named_parameters():
        param.name = weights[key].name
    lr = core.optimizer.lr.StepDecay(0.1, step_size=2, gamma=0.5)
    if kind == "adam":
        opt = core.optimizer.Adam(lr, parameters=net.parameters())
    else:
        opt = core.optimizer.AdamW(lr, parameters=net.parameters(), weight_decay=0.05)
    opt.set_state_dict(core.load(path(f"{kind}.pdopt")))
    return net, opt


@pytest.mark.parametrize("kind", ["adam", "adamw"])
def test_optimizer_resumes_from_paddles_pdopt_with_paddles_next_step(kind):
    net, opt = _resumed(kind)
    want = expected()
    assert opt.get_lr() == pytest.approx(float(want[f"{kind}.lr3"]))
    batch = want["batches"][3]
    x, y = core.to_tensor(batch[:, :4]), core.to_tensor(batch[:, 4:])
    loss = ((net(x) - y) ** 2).mean()
    loss.backward()
    opt.step()
    opt.clear_grad()
    opt._learning_rate.step()
    for key, value in net.state_dict().items():
        np.testing.assert_allclose(value.numpy(), want[f"{kind}.step4.{key}"], rtol=1e-5,
                                   atol=1e-6, err_msg=key)  # Paddle's beta ** t: float32
    assert opt.get_lr() == pytest.approx(float(want[f"{kind}.lr4"]))


def test_optimizer_takes_paddles_moments_and_step_count():
    net, opt = _resumed("adam")
    state, want = opt.state_dict()["state"], expected()
    name = net.weight.name
    np.testing.assert_array_equal(state[name]["moment1"].numpy(),
                                  want[f"adam.opt.{name}_moment1_0"])
    np.testing.assert_array_equal(state[name]["moment2"].numpy(),
                                  want[f"adam.opt.{name}_moment2_0"])
    assert state[name]["step"] == 3


def test_optimizer_refuses_paddle_accumulators_of_unknown_parameters():
    with core.utils.unique_name.guard():
        net = nn.Linear(4, 3)  # linear_0.w_0: the .pdopt is of Paddle's linear_5
    opt = core.optimizer.Adam(parameters=net.parameters())
    with pytest.raises(ValueError, match=r"Paddle's optimizer state.*_moment1_0.*match no "
                                         r"accumulator.*unique_name\.guard.*p\.name"):
        opt.set_state_dict(core.load(path("adam.pdopt")))


def test_optimizer_refuses_a_beta1_power_that_gives_no_step_count():
    weights, state = core.load(path("adam.pdparams")), core.load(path("adam.pdopt"))
    net = nn.Linear(4, 3)
    for key, param in net.named_parameters():
        param.name = weights[key].name
    opt = core.optimizer.Adam(parameters=net.parameters())
    state[f"{net.weight.name}_beta1_pow_acc_0"] = core.to_tensor([1.5])
    with pytest.raises(ValueError, match=r"beta1_pow_acc of parameter 'linear_\d+\.w_0' is "
                                         r"1\.5, which with beta1=0\.9 gives no step count"):
        opt.set_state_dict(state)


# ----- paddle.Model.save, paddle.jit.save -----------------------------------------------------

def test_model_save_output_loads_into_core_model():
    weights = core.load(path("hapi.pdparams"))
    net = nn.Sequential(nn.Linear(4, 5), nn.ReLU(), nn.Linear(5, 3))
    for key, param in net.named_parameters():
        param.name = weights[key].name
    model = core.Model(net)
    model.prepare(core.optimizer.Adam(0.01, parameters=net.parameters()), nn.MSELoss())
    model.load(path("hapi"))
    for key, value in net.state_dict().items():
        np.testing.assert_array_equal(value.numpy(), weights[key].numpy())
    moments = core.load(path("hapi.pdopt"))
    state = model._optimizer.state_dict()["state"]
    for param in net.parameters():
        np.testing.assert_array_equal(state[param.name]["moment2"].numpy(),
                                      moments[f"{param.name}_moment2_0"].numpy())
        assert state[param.name]["step"] == 2


@pytest.mark.parametrize("name", ["net.pdiparams", "net.json"])
def test_jit_save_output_is_refused_naming_the_format(name):
    with pytest.raises(SerializationError, match=r"paddle\.jit\.save"):
        core.load(path(os.path.join("jit", name)))
