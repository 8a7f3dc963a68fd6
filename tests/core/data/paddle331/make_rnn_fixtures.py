"""Produce tests/core/data/paddle331/nn/rnn_agreement.npz with real Paddle 3.3.1 (CPU):

    /tmp/pdvenv/bin/python tests/core/data/paddle331/make_rnn_fixtures.py

Not collected by pytest and never imported by the tests (the project does not depend on
Paddle). Each case is a recurrent layer, cell or wrapper built from a JSON spec stored as
``<case>/spec`` (the test rebuilds the same module in core from it), seeded Paddle weights
(``<case>/state/<key>``, key order in ``<case>/keys``, see ``save_state``), inputs (``x``,
optional initial states ``init<i>`` and ``lens``), the outputs ``out<i>`` (outputs first,
then the final states flattened) and the gradients of ``sum(out<i> * w<i>)`` (``weights``)
to the inputs (``dx``, ``dinit<i>``) and to every entry of the state_dict (``grad/<key>``;
absent where Paddle has none). ``packed`` stores each case as two arrays.
tests/core/nn/test_paddle_agreement_rnn.py replays them on core.
"""
from __future__ import annotations

import json
import os
import zlib

import numpy as np
import paddle
from paddle import nn

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "nn", "rnn_agreement.npz")
RNG = np.random.default_rng(331)
DATA: dict[str, np.ndarray] = {}
B, T, IN, H = 3, 5, 3, 4  # batch, steps, input size, hidden size
LENS = [5, 2, 4]  # one full row, two shorter ones


class AddCell(nn.RNNCellBase):
    """A cell of one's own, as Paddle's docs describe: forward(inputs, states) -> (outputs,
    new_states) and state_shape; h' = tanh(x W + h U), the output is 2 * h'."""

    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.input_size, self.hidden_size = input_size, hidden_size
        self.w = self.create_parameter([input_size, hidden_size])
        self.u = self.create_parameter([hidden_size, hidden_size])

    def forward(self, inputs, states):
        h = paddle.tanh(paddle.matmul(inputs, self.w) + paddle.matmul(states, self.u))
        return 2 * h, h

    @property
    def state_shape(self):
        return (self.hidden_size,)


def build(spec: dict):
    """The module a spec names: a layer or cell of paddle.nn, or RNN / BiRNN around cells."""
    if spec["kind"] in ("layer", "cell"):
        return getattr(nn, spec["cls"])(*spec["args"], **spec["kwargs"])
    cells = [AddCell(*args) if name == "AddCell" else getattr(nn, name)(*args, **kwargs)
             for name, args, kwargs in spec["cells"]]
    return getattr(nn, spec["kind"])(*cells, **spec["kwargs"])


def save_state(case: str, spec: dict, module) -> dict:
    """The spec, the state_dict's keys in order, and each tensor's values once: a key naming
    the same tensor as an earlier one (Paddle's cell names) gets ``<case>/alias`` pointing
    there. Returns the state_dict without those repeats."""
    state, first, aliases = module.state_dict(), {}, []
    for key, value in state.items():
        aliases.append(first.setdefault(id(value), key))
    DATA[f"{case}/spec"] = np.array(json.dumps(spec))
    DATA[f"{case}/keys"] = np.array(list(state))
    DATA[f"{case}/alias"] = np.array(aliases)
    unique = {key: state[key] for key in first.values()}
    for key, value in unique.items():
        DATA[f"{case}/state/{key}"] = value.numpy()
    return unique


def weights(case: str, i: int, shape) -> np.ndarray:
    """The fixed random w of ``sum(out<i> * w)``, not stored: the test draws the same."""
    return np.random.default_rng(zlib.crc32(f"{case}/w{i}".encode())).standard_normal(
        shape).astype("float32")


def flatten(tree) -> list:
    if isinstance(tree, (list, tuple)):
        return [leaf for part in tree for leaf in flatten(part)]
    return [tree]


def tensor(array):
    t = paddle.to_tensor(array)
    t.stop_gradient = False
    return t


def record(case: str, spec: dict, init_shapes=None, lens=None, time_major=False,
           backward=True) -> None:
    """Run ``spec`` on random inputs (one step's for a cell) and save everything listed in the
    module docstring.
    ``init_shapes``: the initial states' shapes, nested as the module takes them (None: the
    module's zeros); ``backward=False`` saves no gradients."""
    paddle.seed(zlib.crc32(case.encode()) % 10_000)
    spec = {**spec, "init": init_shapes, "time_major": time_major}
    module = build(spec)
    state = save_state(case, spec, module)
    size = spec["input_size"]
    shape = (B, size) if spec["kind"] == "cell" else (T, B, size) if time_major else (B, T, size)
    x = RNG.standard_normal(shape).astype("float32")
    DATA[f"{case}/x"] = x
    xt = tensor(x)
    inits = []

    def make(shape):
        value = RNG.standard_normal(shape).astype("float32")
        DATA[f"{case}/init{len(inits)}"] = value
        inits.append(tensor(value))
        return inits[-1]

    def nest(shapes):
        if isinstance(shapes, list) and shapes and isinstance(shapes[0], list):
            return tuple(nest(s) for s in shapes)
        return make(shapes)

    args = [xt, None if init_shapes is None else nest(init_shapes)]
    if lens is not None:
        DATA[f"{case}/lens"] = np.array(lens, "int64")
        args.append(paddle.to_tensor(np.array(lens, "int64")))
    outs = flatten(module(*args))
    total = None
    for i, out in enumerate(outs):
        w = weights(case, i, out.shape)
        DATA[f"{case}/out{i}"] = out.numpy()
        term = (out * paddle.to_tensor(w)).sum()
        total = term if total is None else total + term
    if backward:
        save_gradients(case, total, xt, inits, state)


def save_gradients(case: str, total, xt, inits, state) -> None:
    total.backward()
    DATA[f"{case}/dx"] = xt.grad.numpy()
    for i, init in enumerate(inits):
        DATA[f"{case}/dinit{i}"] = init.grad.numpy()
    for key, value in state.items():
        if value.grad is not None:
            DATA[f"{case}/grad/{key}"] = value.grad.numpy()


def layer(cls, *, input_size=IN, **kwargs) -> dict:
    return {"kind": "layer", "cls": cls, "args": [input_size, H], "kwargs": kwargs,
            "input_size": input_size}


def states(layers: int, directions: int, lstm: bool = False, proj: int = 0) -> list:
    h = [layers * directions, B, proj or H]
    return [h, [layers * directions, B, H]] if lstm else h


def layers() -> None:
    """SimpleRNN / GRU / LSTM: layers, directions, layouts, lengths, initial states, attrs.

    No ``bias_*_attr=False`` here: Paddle 3.3.1's layers then fail on CPU (its rnn op reports
    "Tensor holds no memory" or crashes); the cells take it, below. No gradients where a
    bidirectional layer gets both sequence_length and initial states: there Paddle's rnn op
    returns wrong gradients for the backward direction's weights (they disagree with its own
    forward by finite differences); the test checks core's by finite differences instead."""
    record("simple_tanh", layer("SimpleRNN"))
    record("simple_relu_init", layer("SimpleRNN", activation="relu"), states(1, 1))
    record("simple_lens_init", layer("SimpleRNN"), states(1, 1), LENS)
    record("simple_bidirect_2_lens", layer("SimpleRNN", num_layers=2, direction="bidirect"),
           states(2, 2), LENS, backward=False)
    record("simple_relu_bidirectional_tm_lens",
           layer("SimpleRNN", direction="bidirectional", activation="relu", time_major=True),
           None, LENS, time_major=True)
    record("gru_init", layer("GRU"), states(1, 1))
    record("gru_2_layers_lens", layer("GRU", num_layers=2), states(2, 1), LENS)
    record("gru_bidirect_2_tm_lens_init",
           layer("GRU", num_layers=2, direction="bidirect", time_major=True), states(2, 2),
           LENS, time_major=True, backward=False)
    # Paddle's rnn op has no backward with the frozen weight (its gradient is null)
    record("gru_bidirect_2_lens", layer("GRU", num_layers=2, direction="bidirect"), None, LENS)
    record("gru_frozen_weight_ih", layer("GRU", weight_ih_attr=False), states(1, 1), LENS,
           backward=False)
    record("lstm_init", layer("LSTM"), states(1, 1, True))
    record("lstm_lens", layer("LSTM"), None, LENS)
    record("lstm_bidirect_2_lens_init", layer("LSTM", num_layers=2, direction="bidirect"),
           states(2, 2, True), LENS, backward=False)
    record("lstm_tm_bidirectional_lens", layer("LSTM", direction="bidirectional",
                                               time_major=True), None, LENS, time_major=True)
    record("lstm_proj_init_lens", layer("LSTM", proj_size=2), states(1, 1, True, 2), LENS)
    record("lstm_proj_bidirect_2", layer("LSTM", num_layers=2, direction="bidirect",
                                         proj_size=3), None)


def cell(name, **kwargs) -> list:
    return [name, [IN, H], kwargs]


def wrappers() -> None:
    """RNN(cell) and BiRNN(cell_fw, cell_bw) over Paddle's cells and a cell of one's own."""
    def wrap(kind, cells, **kwargs):
        return {"kind": kind, "cells": cells, "kwargs": kwargs, "input_size": IN}

    record("rnn_gru_lens_init", wrap("RNN", [cell("GRUCell")]), [B, H], LENS)
    record("rnn_simple_reverse_lens", wrap("RNN", [cell("SimpleRNNCell")], is_reverse=True),
           None, LENS)
    record("rnn_lstm_reverse_tm_lens_init",
           wrap("RNN", [cell("LSTMCell")], is_reverse=True, time_major=True), [[B, H], [B, H]],
           LENS, time_major=True)
    record("rnn_lstm_lens", wrap("RNN", [cell("LSTMCell")]), None, LENS)
    record("rnn_lstm_proj_init", wrap("RNN", [cell("LSTMCell", proj_size=2)]),
           [[B, 2], [B, H]])
    record("birnn_lstm_lens_init", wrap("BiRNN", [cell("LSTMCell"), cell("LSTMCell")]),
           [[[B, H], [B, H]], [[B, H], [B, H]]], LENS)
    record("birnn_gru_tm_lens", wrap("BiRNN", [cell("GRUCell"), cell("GRUCell")],
                                     time_major=True), None, LENS, time_major=True)
    record("birnn_simple_relu", wrap("BiRNN", [cell("SimpleRNNCell", activation="relu"),
                                               cell("SimpleRNNCell")]), [[B, H], [B, H]])
    record("rnn_gru_no_bias_ih_lens", wrap("RNN", [cell("GRUCell", bias_ih_attr=False)]),
           [B, H], LENS)
    record("rnn_simple_no_biases_reverse",
           wrap("RNN", [cell("SimpleRNNCell", bias_ih_attr=False, bias_hh_attr=False)],
                is_reverse=True), None, LENS)
    record("rnn_own_cell_lens", wrap("RNN", [["AddCell", [IN, H], {}]]), None, LENS)
    record("rnn_own_cell_reverse_init",
           wrap("RNN", [["AddCell", [IN, H], {}]], is_reverse=True), [B, H], LENS)


def cells() -> None:
    """One step of each cell, with states and without (zeros), outputs and new states."""
    for name, kwargs, shapes in (
            ("SimpleRNNCell", {"activation": "relu"}, [B, H]),
            ("GRUCell", {}, [B, H]),
            ("LSTMCell", {}, [[B, H], [B, H]]),
            ("LSTMCell", {"proj_size": 2}, [[B, 2], [B, H]])):
        for given in (True, False):
            if kwargs.get("proj_size") and not given:
                continue  # Paddle's zero states for it have the wrong shapes (see the test)
            label = "_proj" if kwargs.get("proj_size") else ""
            case = f"cell_{name}{label}_{'states' if given else 'none'}"
            spec = {"kind": "cell", "cls": name, "args": [IN, H], "kwargs": kwargs,
                    "input_size": IN}
            record(case, spec, shapes if given else None)


def initial_states() -> None:
    """get_initial_states: batch_ref's axis, shapes with and without -1, init_value."""
    gru, lstm = nn.GRUCell(IN, H), nn.LSTMCell(IN, H)
    ref = paddle.zeros([6, 2, IN])
    for case, value in (
            ("gis/gru_default", gru.get_initial_states(ref)),
            ("gis/gru_batch_dim_1", gru.get_initial_states(ref, batch_dim_idx=1)),
            ("gis/lstm_nested_value", lstm.get_initial_states(ref, init_value=1.5)),
            ("gis/shape_minus_one", gru.get_initial_states(ref, shape=[-1, 3], init_value=2.0)),
            ("gis/two_shapes", gru.get_initial_states(  # deeper nesting fails in Paddle
                [ref], shape=((2, 3), (-1, 4)), batch_dim_idx=1))):
        leaves = flatten(value)
        DATA[f"{case}/count"] = np.array(len(leaves))
        for i, leaf in enumerate(leaves):
            DATA[f"{case}/{i}"] = leaf.numpy()
    DATA["gis/lstm_state_shape"] = np.array(nn.LSTMCell(IN, H).state_shape)
    DATA["gis/lstm_proj_state_shape"] = np.array(nn.LSTMCell(IN, H, proj_size=2).state_shape)


def packed() -> dict[str, np.ndarray]:
    """DATA as two arrays per case (an npz entry costs ~350 bytes of headers, and a case has
    ~25): ``<case>/values``, its float arrays raveled one after another, and ``<case>/index``,
    JSON ``{"floats": {name: [offset, shape]}, "other": {name: value as a list}}``."""
    cases: dict[str, dict] = {}
    for key, value in DATA.items():
        case, name = key.rsplit("/", 1) if key.startswith("gis/") else key.split("/", 1)
        cases.setdefault(case, {})[name] = value
    out = {}
    for case, arrays in cases.items():
        index, values, offset = {"floats": {}, "other": {}}, [], 0
        for name, value in arrays.items():
            if value.dtype == np.float32:
                index["floats"][name] = [offset, list(value.shape)]
                values.append(value.ravel())
                offset += value.size
            else:
                index["other"][name] = value.tolist()
        out[f"{case}/index"] = np.array(json.dumps(index))
        out[f"{case}/values"] = np.concatenate(values) if values else np.zeros(0, "float32")
    return out


def main() -> None:
    layers()
    wrappers()
    cells()
    initial_states()
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    arrays = packed()
    np.savez_compressed(OUT, **arrays)
    print(f"wrote {OUT}: {len(arrays)} arrays, {os.path.getsize(OUT)} bytes")


if __name__ == "__main__":
    main()
