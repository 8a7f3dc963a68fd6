"""Generated names against real Paddle 3.3.1: layers' ``full_name()``, parameters' ``.name`` and
the optimizer state keys built from them.

tests/core/data/paddle331/misc/param_names.json comes from make_param_name_fixtures.py there,
run with Paddle installed: the same constructor expressions and scenarios run here on core
(``import core as paddle``) inside ``unique_name.guard()``, and every name must be Paddle's.
``param_names_adam.pdopt`` is Paddle's Adam state after three steps on a small network, which
core's Adam resumes by name, taking Paddle's next two steps.
"""
from __future__ import annotations

import functools
import json
import os

import numpy as np
import pytest

import core
from core import nn
from core.utils import unique_name

HERE = os.path.join(os.path.dirname(__file__), "data", "paddle331", "misc")


@functools.lru_cache(maxsize=1)
def fixture() -> dict:
    with open(os.path.join(HERE, "param_names.json")) as f:
        return json.load(f)


def _namespace() -> dict:
    """The generator's SETUP (MyNet, ..., ``names``, ``layer_names``) defined with core."""
    space = {"nn": nn, "paddle": core, "unique_name": unique_name}
    exec(fixture()["setup"], space)  # noqa: S102 - the fixture's own test code
    return space


def _parameters_only(names: list, layer) -> list:
    """``names`` (Paddle's [key, name] pairs) without the entries core keeps as buffers."""
    buffers = {key for key, _ in layer.named_buffers()}
    return [pair for pair in names if pair[0] not in buffers]


# core's RNN layers hold their parameters themselves (weight_ih_l0, ...) where Paddle's hold
# RNN / BiRNN sublayers of cells, whose names the parameters take (gru_cell_1.w_0); core's
# AdaptiveLogSoftmaxWithLoss registers its tail weights (a ParameterList) where Paddle keeps
# them in a plain list. Both are core/nn structure, outside the naming.
_STRUCTURE = "core/nn/rnn.py and core/nn/loss layers differ from Paddle in structure"
_KNOWN = {"nn.SimpleRNN(2, 3)", "nn.LSTM(2, 3, num_layers=2)",
          "nn.GRU(2, 3, direction='bidirect')", "nn.LSTM(2, 3, proj_size=2)",
          "nn.AdaptiveLogSoftmaxWithLoss(4, 10, [5])"}


@functools.lru_cache(maxsize=1)
def _built() -> dict:
    """{expression: (its layer names, its parameter names)} for every case of the fixture,
    built in its order inside one guard, as Paddle built them."""
    space, out = _namespace(), {}
    with unique_name.guard():
        for case in fixture()["layers"]:
            layer = eval(case["expr"], space)  # noqa: S307
            out[case["expr"]] = (space["layer_names"](layer),
                                 _parameters_only(case["params"], layer),
                                 space["names"](layer))
    return out


@pytest.mark.parametrize("case", [
    pytest.param(c, id=c["expr"], marks=[pytest.mark.xfail(strict=True, reason=_STRUCTURE)]
                 if c["expr"] in _KNOWN else []) for c in fixture()["layers"]])
def test_every_layer_class_and_its_parameters_are_named_as_in_paddle(case):
    layers, want, got = _built()[case["expr"]]
    assert layers == case["layers"]
    assert got == want


def test_batch_norm_running_statistics_are_named_as_in_paddle():
    case = next(c for c in fixture()["layers"] if c["expr"] == "nn.BatchNorm2D(3)")
    with unique_name.guard():
        layer = nn.BatchNorm2D(3)
    got = [[key, t.name] for key, t in layer.state_dict().items()]
    assert got == case["params"]


@pytest.mark.parametrize("scenario", [
    pytest.param(s, marks=[pytest.mark.xfail(strict=True, reason=_STRUCTURE)]
                 if s == "rnn_layer" else []) for s in sorted(fixture()["scenarios"])])
def test_scenario_names_are_paddles(scenario):
    """Subclasses (their snake-case class name), name_scope, ParamAttr names, create_parameter
    on a layer and at top level, RNN cells, two networks in one guard, nested and prefixed
    guards."""
    case, space = fixture()["scenarios"][scenario], _namespace()
    with unique_name.guard():
        exec(case["code"], space)  # noqa: S102
        for expr, want in case["names"]:
            assert eval(expr, space) == want, expr  # noqa: S307


def test_names_continue_across_networks_outside_a_guard_and_restart_inside_one():
    first = nn.Linear(2, 2)
    second = nn.Linear(2, 2)
    number = int(first.full_name().rsplit("_", 1)[1])
    assert second.full_name() == f"linear_{number + 1}"
    assert second.weight.name == f"linear_{number + 1}.w_0"
    with unique_name.guard():
        assert nn.Linear(2, 2).weight.name == "linear_0.w_0"
    assert nn.Linear(2, 2).full_name() == f"linear_{number + 2}"  # the outer counters again


def test_a_shared_param_attr_stays_unnamed():
    attr = core.ParamAttr(learning_rate=0.5)
    with unique_name.guard():
        a, b = nn.Linear(2, 2, weight_attr=attr), nn.Linear(2, 2, weight_attr=attr)
    assert (a.weight.name, b.weight.name, attr.name) == ("linear_0.w_0", "linear_1.w_0", None)


def test_create_parameter_with_a_name_and_an_unnamed_attr_extends_the_name():
    with unique_name.guard():
        p = core.create_parameter([2], "float32", name="zz", attr=core.ParamAttr())
        q = core.create_parameter([2], "float32", attr=core.ParamAttr(), is_bias=True)
    assert (p.name, q.name) == ("zz.w_0", "create_parameter_0.b_0")


def test_an_unnamed_parameter_is_an_eager_param_base():
    with unique_name.guard():
        nn.Linear(2, 2)  # two parameters: Paddle counts them too
        p = core.Parameter(np.zeros(2, "float32"))
    assert p.name == "_eager_param_base_2"


def test_a_bad_name_scope_is_refused_naming_it():
    with pytest.raises(TypeError, match=r"Layer: name_scope=3 must be a str or None"):
        nn.Layer(3)


# ----- optimizer state keys ---------------------------------------------------------------------

def _paddle_state(keys: list, net, beta_power: float) -> dict:
    """A Paddle-layout optimizer state with ``keys``: arrays of each parameter's shape, beta
    powers of ``beta_power``."""
    shapes = {p.name: p.shape for p in net.parameters()}
    state = {}
    for key in keys:
        param = next(name for name in shapes if key.startswith(name + "_"))
        pow_acc = "_pow_acc_" in key
        state[key] = core.to_tensor(np.full([1] if pow_acc else shapes[param],
                                            beta_power if pow_acc else 0.5, "float32"))
    return state


@pytest.mark.parametrize("kind", ["SGD", "Momentum", "Adam", "AdamW", "Adam_second"])
def test_paddles_optimizer_state_keys_load_into_cores_optimizer(kind):
    """Each key Paddle's optimizer writes names a parameter of the same network built in core
    and an accumulator of core's optimizer: set_state_dict takes them all."""
    case = fixture()["optimizers"][kind]
    with unique_name.guard():
        net = eval(fixture()["adam_resume"]["net"], {"nn": nn})  # noqa: S307
    opt = eval(case["expr"], {"paddle": core, "net": net})  # noqa: S307
    opt.set_state_dict(_paddle_state(case["keys"], net, 0.9 ** 2))
    state = opt.state_dict()["state"]
    if kind == "SGD":
        assert case["keys"] == [] and state == {}
        return
    for param in net.parameters():
        assert sorted(k for k in state[param.name] if k != "step") == \
            sorted(opt._accumulators_for(param)), param.name
        for name in opt._accumulators_for(param):
            np.testing.assert_array_equal(state[param.name][name].numpy(), 0.5)
        if "Adam" in kind:
            assert state[param.name]["step"] == 1


def test_an_ambiguous_paddle_accumulator_is_refused_naming_both():
    with unique_name.guard():
        net = nn.Linear(2, 2)
    opt = core.optimizer.Momentum(0.1, parameters=net.parameters())
    state = _paddle_state(["linear_0.w_0_velocity_0", "linear_0.w_0_velocity_1"], net, 0.0)
    with pytest.raises(ValueError, match=r"linear_0\.w_0_velocity_0.*linear_0\.w_0_velocity_1"):
        opt.set_state_dict(state)


def test_paddles_adam_pdopt_resumes_in_core_with_paddles_next_two_steps():
    resume = fixture()["adam_resume"]
    with np.load(os.path.join(HERE, "param_names_adam.npz")) as archive:
        data = {key: archive[key] for key in archive.files}
    with unique_name.guard():
        net = eval(resume["net"], {"nn": nn})  # noqa: S307 - built as Paddle built it
    assert {k: p.name for k, p in net.named_parameters()} == resume["names"]
    net.set_state_dict({key[len("saved/"):]: value for key, value in data.items()
                        if key.startswith("saved/")}, strict=True)
    opt = core.optimizer.Adam(resume["lr"], parameters=net.parameters())
    opt.set_state_dict(core.load(os.path.join(HERE, "param_names_adam.pdopt")))
    for i in (3, 4):
        out = net(core.to_tensor(data[f"x{i}"]))
        ((out - core.to_tensor(data[f"y{i}"])) ** 2).mean().backward()
        opt.step()
        opt.clear_grad()
        for key, value in net.state_dict().items():
            np.testing.assert_allclose(value.numpy(), data[f"step{i}/{key}"], rtol=1e-5,
                                       atol=1e-6, err_msg=f"step {i}: {key}")


def test_a_layers_name_argument_does_not_name_it_as_in_paddle():
    """Paddle 3.3.1: ``ReLU(name="x").full_name()`` is ``re_lu_0``, ``Linear(2, 2,
    name="fc")``'s weight ``linear_0.w_0``: the ``name`` argument is not a name scope."""
    with unique_name.guard():
        relu, linear = nn.ReLU(name="x"), nn.Linear(2, 2, name="fc")
        pool, norm = nn.MaxPool2D(2, name="mp"), nn.GroupNorm(1, 2, name="gn")
    assert (relu.full_name(), linear.full_name(), linear.weight.name) == \
        ("re_lu_0", "linear_0", "linear_0.w_0")
    assert (pool.full_name(), norm.weight.name) == ("max_pool2d_0", "group_norm_0.w_0")


def test_jit_load_renames_generated_parameters_as_paddle_and_keeps_param_attr_names(tmp_path):
    """Paddle 3.3.1's ``jit.load`` names a loaded ``linear_0.w_0`` ``linear_0.w_0_0`` (then
    ``_1`` for a second load): unique_name over the saved name. core keeps a ParamAttr's name
    (Paddle's ``W`` becomes ``W_0``; docs/paddle.md)."""
    with unique_name.guard():
        net = nn.Sequential(nn.Linear(2, 2),
                            nn.Linear(2, 2, weight_attr=core.ParamAttr(name="W")))
        core.jit.save(net, str(tmp_path / "net"),
                      input_spec=[core.static.InputSpec([None, 2], "float32")])
        first, second = (core.jit.load(str(tmp_path / "net")) for _ in range(2))
    assert [p.name for p in first.parameters()] == \
        ["linear_0.w_0_0", "linear_0.b_0_0", "W", "linear_1.b_0_0"]
    assert [p.name for p in second.parameters()] == \
        ["linear_0.w_0_1", "linear_0.b_0_1", "W", "linear_1.b_0_1"]
