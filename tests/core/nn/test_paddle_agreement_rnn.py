"""The recurrent family against real Paddle 3.3.1's numbers: SimpleRNN / GRU / LSTM, the cells,
RNN(cell) and BiRNN(cell_fw, cell_bw), and RNNCellBase.get_initial_states.

The fixtures (tests/core/data/paddle331/nn/rnn_agreement.npz) come from
tests/core/data/paddle331/make_rnn_fixtures.py run with a Python that has Paddle; these tests
only read them. Each case rebuilds Paddle's module in core from its stored spec, loads Paddle's
weights through ``set_state_dict``, and compares the state_dict's keys and order, the outputs
and final states, and the gradients of ``sum(out * w)`` (over outputs and states) to the
inputs, the initial states and every parameter.
"""
from __future__ import annotations

import json
import os
import zlib

import numpy as np
import pytest

import core
from core import backend, nn
from tests.gradcheck import check_grad

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "data", "paddle331", "nn", "rnn_agreement.npz")
TOL = {"rtol": 1e-5, "atol": 1e-6}


def _unpack(index, values) -> dict:
    """One case's arrays from make_rnn_fixtures.packed's two entries."""
    index = json.loads(str(index))
    out = dict(index["other"])
    for name, (offset, shape) in index["floats"].items():
        out[name] = values[offset:offset + int(np.prod(shape, dtype=int))].reshape(shape)
    return out


@pytest.fixture(scope="module")
def paddle331():
    with np.load(FIXTURES) as data:
        cases = {key[:-len("/index")] for key in data.files if key.endswith("/index")}
        return {case: _unpack(data[f"{case}/index"], data[f"{case}/values"]) for case in cases}


def _kind(index) -> str:
    """A case's spec kind ("layer", "cell", "RNN", "BiRNN") from its index entry."""
    return json.loads(json.loads(str(index))["other"]["spec"])["kind"]


def _cases(*kinds: str) -> list[str]:
    """The fixture's cases of those kinds (not get_initial_states', "gis*")."""
    with np.load(FIXTURES) as data:
        names = sorted(key[:-len("/index")] for key in data.files if key.endswith("/index"))
        return [case for case in names
                if not case.startswith("gis") and _kind(data[f"{case}/index"]) in kinds]


class AddCell(nn.RNNCellBase):
    """make_rnn_fixtures.AddCell in core: h' = tanh(x W + h U), output 2 * h'."""

    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.input_size, self.hidden_size = input_size, hidden_size
        self.w = self.create_parameter([input_size, hidden_size])
        self.u = self.create_parameter([hidden_size, hidden_size])

    def forward(self, inputs, states):
        h = core.tanh(core.matmul(inputs, self.w) + core.matmul(states, self.u))
        return 2 * h, h

    @property
    def state_shape(self):
        return (self.hidden_size,)


def _build(spec: dict):
    if spec["kind"] in ("layer", "cell"):
        return getattr(nn, spec["cls"])(*spec["args"], **spec["kwargs"])
    cells = [AddCell(*args) if name == "AddCell" else getattr(nn, name)(*args, **kwargs)
             for name, args, kwargs in spec["cells"]]
    return getattr(nn, spec["kind"])(*cells, **spec["kwargs"])


def _flatten(tree) -> list:
    if isinstance(tree, (list, tuple)):
        return [leaf for part in tree for leaf in _flatten(part)]
    return [tree]


def _weights(case: str, i: int, shape) -> np.ndarray:
    """make_rnn_fixtures.weights: the w of sum(out<i> * w), drawn from the same seed."""
    return np.random.default_rng(zlib.crc32(f"{case}/w{i}".encode())).standard_normal(
        shape).astype("float32")


def _paddle_state(data: dict) -> dict:
    return {key: data[f"state/{alias}"] for key, alias in zip(data["keys"], data["alias"])}


def _frozen_zero_biases(data: dict) -> list[str]:
    """Paddle's keys for biases made with ``bias_*_attr=False``: a frozen zero tensor there;
    core has no parameter (docs/paddle.md, "The recurrent family against Paddle 3.3.1")."""
    spec = json.loads(data["spec"])
    attrs = [kwargs for _, _, kwargs in spec.get("cells", [])] + [spec.get("kwargs", {})]
    prefix = "cell." if spec["kind"] in ("RNN", "BiRNN") else ""
    return [f"{prefix}{label}" for kwargs in attrs for label in ("bias_ih", "bias_hh")
            if kwargs.get(f"{label}_attr") is False]


def _load(case: str, data: dict):
    """Core's module for ``case`` holding Paddle's weights; checks nothing is left over."""
    spec = json.loads(data["spec"])
    module = _build(spec)
    state = _paddle_state(data)
    skipped = _frozen_zero_biases(data)
    missing, unexpected = module.set_state_dict(
        {k: v for k, v in state.items() if k not in skipped})
    assert missing == []
    # Paddle 3.3.1 mislabels a projected LSTM's flat names (its cell names are right): core
    # reads those by their cell names and reports the flat ones it cannot place.
    assert unexpected == [] or _mislabelled(data)
    return module, spec


def _inputs(data: dict, spec: dict):
    x = core.to_tensor(data["x"], stop_gradient=False)
    inits = []

    def nest(shapes):
        if isinstance(shapes, list) and shapes and isinstance(shapes[0], list):
            return tuple(nest(s) for s in shapes)
        inits.append(core.to_tensor(data[f"init{len(inits)}"], stop_gradient=False))
        return inits[-1]

    args = [x, None if spec["init"] is None else nest(spec["init"])]
    if "lens" in data:
        args.append(core.to_tensor(np.array(data["lens"], "int64")))
    return args, x, inits


def _assert_replays_paddle(case: str, data: dict):
    """Runs ``case`` in core and compares outputs and gradients with Paddle's."""
    module, spec = _load(case, data)
    args, x, inits = _inputs(data, spec)
    outs = _flatten(module(*args))
    assert len(outs) == len([k for k in data if k.startswith("out")])
    for i, out in enumerate(outs):
        np.testing.assert_allclose(out.numpy(), data[f"out{i}"], **TOL, err_msg=f"out{i}")
    if "dx" not in data:
        return module
    total = sum((out * core.to_tensor(_weights(case, i, out.shape))).sum()
                for i, out in enumerate(outs))
    total.backward()
    np.testing.assert_allclose(x.gradient(), data["dx"], **TOL, err_msg="dx")
    for i, init in enumerate(inits):
        np.testing.assert_allclose(init.gradient(), data[f"dinit{i}"], **TOL,
                                   err_msg=f"dinit{i}")
    ours = module.state_dict()
    for key, alias in _comparable_keys(data):
        want, got = data.get(f"grad/{alias}"), ours[key].gradient()
        if want is None:  # frozen in Paddle: no gradient
            assert got is None or ours[key].stop_gradient, key
        else:
            np.testing.assert_allclose(got, want, **TOL, err_msg=f"grad of {key}")
    return module


def _mislabelled(data: dict) -> bool:
    """Whether Paddle 3.3.1 mislabels this case's flat names: a projected LSTM layer's
    ``weight_ih_l0_reverse`` and so on hold other tensors (its cell names are right)."""
    spec = json.loads(data["spec"])
    return spec["kind"] == "layer" and bool(spec["kwargs"].get("proj_size"))


def _comparable_keys(data: dict) -> list[tuple[str, str]]:
    """(key, the key its values are stored under) for the state_dict entries whose Paddle name
    means what core's does: all but frozen zero biases and mislabelled flat names."""
    skipped = _frozen_zero_biases(data)
    return [(key, alias) for key, alias in zip(data["keys"], data["alias"])
            if key not in skipped and not (_mislabelled(data) and "." not in key)]


@pytest.mark.parametrize("case", _cases("layer"))
def test_layers_match_paddle(paddle331, case):
    _assert_replays_paddle(case, paddle331[case])


@pytest.mark.parametrize("case", _cases("RNN", "BiRNN"))
def test_wrappers_match_paddle(paddle331, case):
    _assert_replays_paddle(case, paddle331[case])


@pytest.mark.parametrize("case", _cases("cell"))
def test_cells_match_paddle(paddle331, case):
    _assert_replays_paddle(case, paddle331[case])


@pytest.mark.parametrize("case", _cases("layer", "cell", "RNN", "BiRNN"))
def test_state_dict_keys_and_order_are_paddles(paddle331, case):
    """The same names in the same order, each holding the tensor Paddle's does; where Paddle
    mislabels flat names (projected LSTM) core's flat names come first, then Paddle's cell
    names; core has no entry for a bias set to False (Paddle: a frozen zero)."""
    data = paddle331[case]
    module = _build(json.loads(data["spec"]))
    ours = module.state_dict()
    keys = [key for key, _ in _comparable_keys(data)]
    if _mislabelled(data):
        assert list(ours)[-len(keys):] == keys
    else:
        assert list(ours) == keys
    for key, alias in _comparable_keys(data):
        assert list(ours[key].shape) == list(data[f"state/{alias}"].shape), key
        assert ours[key] is ours[alias] or _mislabelled(data), key  # cell names are aliases


# ----- what the fixtures cannot hold: Paddle's wrong gradients, its broken shapes ----------
def _central_differences(loss, array: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """d loss() / d array by central differences, perturbing ``array`` in place."""
    grad = np.zeros_like(array)
    for index in np.ndindex(array.shape):
        keep = array[index]
        array[index] = keep + eps
        up = loss()
        array[index] = keep - eps
        grad[index] = (up - loss()) / (2 * eps)
        array[index] = keep
    return backend.to_numpy(grad)  # a parameter's array is on the device (TOMLRUN_TEST_DEVICE)


@pytest.mark.parametrize("cls", ["SimpleRNN", "GRU", "LSTM"])
def test_bidirectional_gradients_with_lengths_and_initial_states_match_finite_differences(cls):
    """Given sequence_length and initial states together, Paddle 3.3.1's rnn op returns wrong
    gradients for a bidirectional layer's backward-direction weights (they disagree with its
    own forward by finite differences; its outputs agree with core's, test_layers_match_paddle).
    core's gradients, to the inputs, the states and every parameter, match central
    differences of its outputs and final states."""
    core.seed(0)
    layer = getattr(nn, cls)(2, 3, num_layers=2, direction="bidirect")
    layer.to(dtype="float64")
    rng = np.random.default_rng(1)
    x, lens = rng.standard_normal((3, 4, 2)), core.to_tensor(np.array([4, 1, 3]))
    inits = [rng.standard_normal((4, 3, 3)) for _ in range(2 if cls == "LSTM" else 1)]
    out_shapes = [(3, 4, 6)] + [(4, 3, 3)] * len(inits)
    ws = [rng.standard_normal(shape) for shape in out_shapes]

    def loss(arrays=None, grad=False):
        tensors = [core.to_tensor(a, stop_gradient=not grad) for a in [x, *inits]]
        states = tuple(tensors[1:]) if cls == "LSTM" else tensors[1]
        outs = _flatten(layer(tensors[0], states, lens))
        total = sum((o * core.to_tensor(w)).sum() for o, w in zip(outs, ws))
        return (total, tensors) if grad else float(total.numpy())

    total, tensors = loss(grad=True)
    total.backward()
    for array, tensor in zip([x, *inits], tensors):
        np.testing.assert_allclose(tensor.gradient(), _central_differences(loss, array),
                                   rtol=1e-5, atol=1e-7)
    for name, param in layer.named_parameters():
        np.testing.assert_allclose(param.gradient(), _central_differences(loss, param.data),
                                   rtol=1e-5, atol=1e-7, err_msg=name)


@pytest.mark.parametrize("is_reverse", [False, True])
def test_padded_steps_gradients_match_finite_differences(is_reverse):
    """RNN(cell) with lengths: the padded steps' outputs (the cell's step from the held
    states, one batched call on the fused path) and everything else differentiate right."""
    core.seed(2)
    cell = nn.GRUCell(2, 3)
    cell.to(dtype="float64")
    rnn = nn.RNN(cell, is_reverse=is_reverse)
    lens = np.array([4, 0, 2])
    rng = np.random.default_rng(3)
    check_grad(lambda x, h: rnn(x, h, lens)[0], rng.standard_normal((3, 4, 2)),
               rng.standard_normal((3, 3)))


def test_projected_lstm_steps_its_cells_as_paddle_does():
    """A projected LSTM layer is Paddle's RNN / BiRNN of LSTMCells (its fused op has no
    projection): the values are test_layers_match_paddle's lstm_proj_* cases; gradients to
    inputs and states match finite differences."""
    core.seed(4)
    layer = nn.LSTM(2, 4, direction="bidirect", proj_size=3)
    layer.to(dtype="float64")
    rng = np.random.default_rng(5)
    lens = np.array([4, 2])
    check_grad(lambda x, h, c: layer(x, (h, c), lens)[0], rng.standard_normal((2, 4, 2)),
               rng.standard_normal((2, 2, 3)), rng.standard_normal((2, 2, 4)))


@pytest.mark.parametrize("name", ["SimpleRNNCell", "GRUCell", "LSTMCell"])
def test_cells_return_paddles_structure(paddle331, name):
    """(h, h) for SimpleRNNCell / GRUCell, (h, (h, c)) for LSTMCell: the output is the new
    hidden state itself, as in Paddle."""
    cell = getattr(nn, name)(3, 4)
    x = core.to_tensor(paddle331[f"cell_{name}_none"]["x"])
    out, states = cell(x)
    assert out is (states[0] if name == "LSTMCell" else states)
    if name == "LSTMCell":
        assert isinstance(states, tuple) and [s.shape for s in states] == [[3, 4], [3, 4]]


GET_INITIAL_STATES = {  # as make_rnn_fixtures.initial_states
    "gru_default": (nn.GRUCell, {}),
    "gru_batch_dim_1": (nn.GRUCell, {"batch_dim_idx": 1}),
    "lstm_nested_value": (nn.LSTMCell, {"init_value": 1.5}),
    "shape_minus_one": (nn.GRUCell, {"shape": [-1, 3], "init_value": 2.0}),
    "two_shapes": (nn.GRUCell, {"shape": ((2, 3), (-1, 4)), "batch_dim_idx": 1}),
}


@pytest.mark.parametrize("case", list(GET_INITIAL_STATES))
def test_get_initial_states_matches_paddle(paddle331, case):
    cls, kwargs = GET_INITIAL_STATES[case]
    ref = core.zeros([6, 2, 3])
    got = _flatten(cls(3, 4).get_initial_states([ref] if case == "two_shapes" else ref,
                                                **kwargs))
    data = paddle331[f"gis/{case}"]
    assert len(got) == data["count"]
    for i, leaf in enumerate(got):
        assert str(leaf.dtype) == "float32"
        np.testing.assert_array_equal(leaf.numpy(), data[str(i)])


def test_lstm_cell_state_shape_is_paddles_but_projected_it_is_h_then_c(paddle331):
    """Paddle 3.3.1's LSTMCell.state_shape is ((hidden_size,), (proj_size,)) with a projection:
    h's and c's shapes swapped, so its zero states fail (h is [B, proj_size]); core gives
    ((proj_size,), (hidden_size,)) and starts from zeros of the right shapes."""
    assert nn.LSTMCell(3, 4).state_shape == tuple(
        tuple(s) for s in paddle331["gis"]["lstm_state_shape"])
    swapped = tuple(tuple(s) for s in paddle331["gis"]["lstm_proj_state_shape"])
    cell = nn.LSTMCell(3, 4, proj_size=2)
    assert cell.state_shape == swapped[::-1] == ((2,), (4,))
    out, (h, c) = cell(core.zeros([5, 3]))
    assert out.shape == h.shape == [5, 2] and c.shape == [5, 4]
