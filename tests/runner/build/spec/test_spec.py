"""Networks written in TOML (runner.build.spec): shipped specs, blocks, graphs, inferred sizes,
overrides and sweeps through the CLI, and every mistake as one paragraph with exit 2."""
from __future__ import annotations

import numpy as np
import pytest

import core
from core import model_summary as summary
from core.inference import Inference
from core.nn import fusion, norm
from runner import build
from runner.config import schema, validation
from runner.config.options import load_option
from runner.errors import ConfigError
from tests.gradcheck import check_grad
from tests.runner.subprocesses import run_all

DIGITS = (1, 8, 8)
RUN_OPTIM = schema.SGDConfig()


def _spec(layers: dict, blocks: dict | None = None, **knobs):
    node = {"name": "net", "layers": layers, "blocks": blocks or {}, **knobs}
    return validation.group_option("model", node)


def _build(layers, shape=DIGITS, classes=10, blocks=None):
    return build.build_model(_spec(layers, blocks), shape, classes)


def _forward(model, shape=DIGITS, batch=3):
    x = core.to_tensor(np.random.default_rng(0).random((batch, *shape), dtype=np.float32))
    with core.no_grad():
        return model(x)


# ----- shipped specs --------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["cnn", "mlp", "resnet"])
def test_each_shipped_image_spec_builds_and_takes_a_training_step(name):
    core.seed(0)
    model = build.build_model(load_option("model", name), (1, 28, 28), 10)
    opt = core.optimizer.Adam(learning_rate=0.01, parameters=model.parameters())
    x = core.to_tensor(np.random.default_rng(1).random((4, 1, 28, 28), dtype=np.float32))
    y = core.to_tensor(np.array([0, 1, 2, 3]))
    before = [p.numpy().copy() for p in model.parameters()]
    loss = core.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    assert np.isfinite(float(loss))
    assert any(not np.array_equal(b, p.numpy()) for b, p in zip(before, model.parameters()))


def test_spec_cnn_has_the_tutorial_networks_parameters():
    model = build.build_model(load_option("model", "cnn"), (1, 28, 28), 10)
    assert sum(p.size for p in model.parameters()) == 20 * 25 + 20 + 20 * 20 * 25 + 20 + 9810


# ----- blocks, graphs, inferred sizes ---------------------------------------------------------

def test_blocks_repeat_and_each_name_their_layers_and_set_their_arguments():
    blocks = {"dense": {"fc": {"type": "Linear", "out_features": "$width"},
                        "act": {"type": "$act"}}}
    layers = {"flat": {"type": "Flatten"},
              "body": {"block": "dense", "each": {"width": [12, 6]}, "with": {"act": "Tanh"}},
              "same": {"block": "dense", "repeat": 2, "with": {"width": 6, "act": "ReLU"}},
              "head": {"type": "Linear"}}
    model = _build(layers, blocks=blocks)
    shapes = {name: p.shape for name, p in model.named_parameters()}
    assert shapes["body.0.fc.weight"] == [64, 12] and shapes["body.1.fc.weight"] == [12, 6]
    assert shapes["same.1.fc.weight"] == [6, 6] and shapes["head.weight"] == [6, 10]
    assert type(model["body.1.act"]).__name__ == "Tanh"
    assert _forward(model).shape == [3, 10]


def test_block_entry_and_copy_names_read_the_output_their_inputs_would_read():
    """docs/models.md: an entry (``body``) is its last copy's output, a copy (``body.0``) its
    block's last layer or its ``output``; hooks read them (Inference, inspect.layer_outputs)."""
    blocks = {"dense": {"fc": {"type": "Linear", "out_features": "$width"},
                        "sum": {"type": "Add", "inputs": ["fc", "act"]},
                        "act": {"type": "Tanh", "inputs": ["fc"]}, "output": "sum"},
              "pair": {"inner": {"block": "dense", "repeat": 2, "with": {"width": 6}},
                       "output": "inner"}}  # a block entry as a block's output
    layers = {"flat": {"type": "Flatten"},
              "body": {"block": "dense", "each": {"width": [12, 6]}},
              "nest": {"block": "pair", "inputs": ["body.0"]},
              "none": {"block": "dense", "repeat": 0, "with": {"width": 6}},
              "sum": {"type": "Concat", "inputs": ["body", "none"]}, "head": {"type": "Linear"}}
    model = _build(layers, blocks=blocks)
    readable = model.output_layers()
    for name, layer in {"body": "body.1.sum", "body.0": "body.0.sum",
                        "nest": "nest.inner.1.sum", "nest.inner.0": "nest.inner.0.sum",
                        "none": "nest.inner.1.sum"}.items():
        assert readable[name] is model[layer], name
    x = np.random.default_rng(0).random((3, *DIGITS), dtype=np.float32)
    out = Inference(model, ["body", "body.0", "body.0.sum", "nest"]).infer(x)
    assert out["body"].shape == (3, 6) and out["body.0"].shape == (3, 12)
    np.testing.assert_array_equal(out["body.0"], out["body.0.sum"])


def test_reading_a_block_of_the_resnet_keeps_the_other_conv_batch_norm_pairs_folded(
        monkeypatch):
    core.seed(0)
    model = build.build_model(load_option("model", "resnet", "width=4", "channels=[8]"),
                              (1, 12, 12), 10)
    x = np.random.default_rng(1).standard_normal((6, 1, 12, 12)).astype(np.float32)
    calls = _bn_calls(monkeypatch)
    out = Inference(model, ["down", "down.0", "down.0.relu2"]).infer(x)
    assert calls == []  # the read layer is a ReLU: every conv + batch norm still runs as one
    assert out["down"].shape == (6, 8, 6, 6)
    np.testing.assert_array_equal(out["down"], out["down.0.relu2"])
    np.testing.assert_array_equal(out["down.0"], out["down.0.relu2"])


def test_residual_and_branches_with_merges_and_sizes_inferred_everywhere():
    layers = {"conv": {"type": "Conv2D", "out_channels": 4, "kernel_size": 3, "padding": 1},
              "bn": {"type": "BatchNorm2D"},
              "branch": {"type": "Conv2D", "inputs": ["input"], "out_channels": 4,
                         "kernel_size": 1},
              "sum": {"type": "Add", "inputs": ["bn", "branch"]},
              "gate": {"type": "Sigmoid", "inputs": ["branch"]},
              "gated": {"type": "Multiply", "inputs": ["sum", "gate"]},
              "both": {"type": "Concat", "inputs": ["gated", "conv"], "axis": 1},
              "flat": {"type": "Flatten"}, "out": {"type": "Linear"}}
    model = _build(layers)
    assert dict(model.named_parameters())["out.weight"].shape == [8 * 8 * 8, 10]
    assert _forward(model).shape == [3, 10]


def test_attention_written_as_layers_with_matmul_merges():
    # one head of self-attention over the image's rows: q k^T / sqrt(d), softmax, times v
    layers = {"rows": {"type": "Flatten", "start_axis": 1, "stop_axis": 2},
              "q": {"type": "Linear", "out_features": 6},
              "k": {"type": "Linear", "inputs": ["rows"], "out_features": 6},
              "v": {"type": "Linear", "inputs": ["rows"], "out_features": 6},
              "scores": {"type": "Matmul", "inputs": ["q", "k"], "transpose_y": True,
                         "alpha": 6 ** -0.5},
              "attn": {"type": "Softmax", "axis": -1},
              "mixed": {"type": "Matmul", "inputs": ["attn", "v"]},
              "flat": {"type": "Flatten"}, "out": {"type": "Linear"}}
    model = _build(layers)
    weights = {name: p.numpy().astype(np.float64) for name, p in model.named_parameters()}
    assert weights["out.weight"].shape == (8 * 6, 10)
    x = np.random.default_rng(2).standard_normal((3, *DIGITS)).astype("float32")
    rows = x.reshape(3, 8, 8)
    q, k, v = (rows @ weights[f"{n}.weight"] + weights[f"{n}.bias"] for n in "qkv")
    scores = q @ k.transpose(0, 2, 1) * 6 ** -0.5
    attn = np.exp(scores - scores.max(-1, keepdims=True))
    attn /= attn.sum(-1, keepdims=True)
    want = (attn @ v).reshape(3, -1) @ weights["out.weight"] + weights["out.bias"]
    model.eval()
    np.testing.assert_allclose(model(core.to_tensor(x)).numpy(), want, rtol=1e-4, atol=1e-5)


def _bn_calls(monkeypatch) -> list:
    calls = []
    real = norm.batch_norm
    monkeypatch.setattr(norm, "batch_norm", lambda *a, **k: calls.append(1) or real(*a, **k))
    return calls


def test_at_inference_each_conv_runs_with_the_batch_norm_that_alone_reads_it(monkeypatch):
    """The ResNet spec's nine conv + batch norm pairs run as nine convolutions (core.nn.fusion),
    with the outputs of the layers run one by one."""
    core.seed(0)
    model = build.build_model(load_option("model", "resnet", "width=4", "channels=[8]"),
                              (1, 12, 12), 10)
    x = core.to_tensor(np.random.default_rng(1).standard_normal((6, 1, 12, 12)).astype(
        np.float32))
    opt = core.optimizer.SGD(0.1, parameters=model.parameters())
    for _ in range(3):  # running statistics and affine parameters of their own
        core.nn.functional.cross_entropy(model(x), core.to_tensor(np.arange(6))).backward()
        opt.step()
        opt.clear_grad()
    model.eval()
    calls = _bn_calls(monkeypatch)
    with core.no_grad():
        folded = model(x).numpy()
        assert calls == []
        monkeypatch.setattr(fusion, "conv_bn", lambda *args: None)
        plain = model(x).numpy()
    assert len(calls) == 6  # stem, stage1 (2), down.0 (2 + shortcut)
    np.testing.assert_allclose(folded, plain, rtol=1e-5, atol=1e-5)


def test_a_conv_read_by_more_than_its_batch_norm_is_not_folded(monkeypatch):
    layers = {"conv": {"type": "Conv2D", "out_channels": 4, "kernel_size": 3, "padding": 1},
              "bn": {"type": "BatchNorm2D"},
              "both": {"type": "Concat", "inputs": ["bn", "conv"], "axis": 1},
              "conv2": {"type": "Conv2D", "out_channels": 4, "kernel_size": 1},
              "bn2": {"type": "BatchNorm2D"},
              "flat": {"type": "Flatten"}, "out": {"type": "Linear"}}
    model = _build(layers)
    model.eval()
    calls = _bn_calls(monkeypatch)
    assert _forward(model).shape == [3, 10]
    assert len(calls) == 1  # bn (conv is read by the concat too); conv2 + bn2 are one conv


def test_a_residual_graphs_input_gradient_matches_finite_differences():
    layers = {"fc1": {"type": "Linear", "out_features": 5},
              "act": {"type": "Tanh"},
              "fc2": {"type": "Linear", "out_features": 5},
              "res": {"type": "Add", "inputs": ["fc2", "input"]},
              "gate": {"type": "Sigmoid", "inputs": ["fc1"]},
              "mix": {"type": "Multiply", "inputs": ["res", "gate"]},
              "cat": {"type": "Concat", "inputs": ["mix", "res"], "axis": 1},
              "out": {"type": "Linear"}}
    core.seed(3)
    model = _build(layers, shape=(5,), classes=3)
    for param in model.parameters():  # float64 for the finite differences
        param.data = param.data.astype(np.float64)
    x = np.random.default_rng(2).standard_normal((4, 5))
    check_grad(lambda t: model(t), x, rtol=1e-5, atol=1e-7)


def test_sequence_lengths_reach_the_rnn_and_the_pooling(shared_dir):
    data = build.build_data(validation.group_option(
        "data", {"name": "vowels", "root": str(shared_dir("japanese-vowels"))}), 0)
    layers = {"rnn": {"type": "GRU", "hidden_size": 8},
              "pool": {"type": "SequencePool", "pool_type": "last"},
              "out": {"type": "Linear"}}
    model = build.build_model(_spec(layers), data.input_shape, data.num_classes,
                              data.vocab_size, data.variable_length)
    train, _, _ = build.build_loaders(data, validation.group_option("data", {
        "name": "vowels", "root": str(shared_dir("japanese-vowels"))}),
        validation.SECTIONS["trainer"](batch_size=4))
    padded, lengths, labels = next(iter(train))
    logits = model((padded, lengths))
    assert logits.shape == [len(labels), 9]
    # The last real step: a row's output does not change when padding is appended.
    longer = core.to_tensor(np.concatenate([padded.numpy(), np.zeros_like(padded.numpy())], 1))
    with core.no_grad():
        np.testing.assert_allclose(model((longer, lengths)).numpy(),
                                   model((padded, lengths)).numpy(), rtol=1e-5, atol=1e-6)


def test_summary_rows_count_parameters_and_flops():
    model = build.build_model(load_option("model", "cnn"), (1, 28, 28), 10)
    rows = {row.name: row for row in summary.summarize(model, (1, 28, 28))}
    assert rows["conv1"].shape == (20, 28, 28) and rows["conv1"].params == 520
    assert rows["conv1"].flops == 2 * 25 * 20 * 28 * 28  # one 25-term dot product per output
    assert rows["fc"].flops == 2 * 980 * 10 and rows["flatten"].shape == (980,)
    table = summary.format_table(list(rows.values()))
    assert table.splitlines()[-1].split()[:2] == ["total", "20,350"]


# ----- errors before anything runs (Python API) -----------------------------------------------

@pytest.mark.parametrize("layers, blocks, message", [
    ({"a": {"type": "Lineer"}}, None, "'Lineer' is not a known layer type: did you mean Linear"),
    ({"a": {"type": "Linear", "out_feature": 3}}, None,
     "model.layers.a.out_feature is not an argument of Linear (did you mean 'out_features'?)"),
    ({"a": {"type": "Flatten"}, "b": {"type": "Conv2D", "kernel_size": 3}}, None,
     "model.layers.b (Conv2D) needs out_channels"),
    ({"a": {"type": "Linear", "out_features": "ten"}}, None,
     "model.layers.a.out_features = 'ten' has the wrong type: Linear's out_features is an "
     "integer"),
    ({"a": {"type": "Flatten"}, "b": {"type": "Linear", "in_features": 10}}, None,
     "'a' gives samples of shape [64], so Linear's in_features must be 64"),
    ({"a": {"type": "Linear", "inputs": ["nope"]}}, None, "inputs names 'nope'"),
    ({"a": {"type": 5}}, None, "model.layers.a.type = 5 is not a layer type name"),
    ({"a": {"type": "ReLU", "inputs": ["b"]}, "b": {"type": "ReLU", "inputs": ["a"]}}, None,
     "read each other in a cycle"),
    # Only the layers on the cycle are named, not those that merely wait on it:
    ({"a": {"type": "ReLU", "inputs": ["b"]}, "b": {"type": "ReLU", "inputs": ["a"]},
      "f": {"type": "Flatten", "inputs": ["b"]}, "o": {"type": "Linear"}}, None,
     "the layers a, b read each other in a cycle"),
    ({"a": {"type": "Flatten"}, "b": {"type": "Flatten", "inputs": ["input"]},
      "o": {"type": "Linear", "inputs": ["a", "b"]}}, None,
     "model.layers.o (Linear) reads 1 input(s) (x), but its inputs name 2: a, b"),
    ({"a": {"type": "Flatten"}, "side": {"type": "ReLU", "inputs": ["a"]},
      "out": {"type": "Linear", "inputs": ["a"]}}, None,
     "the layer side is computed but nothing consumes it"),
    ({"a": {"type": "Flatten"}, "out": {"type": "Linear", "out_features": 4}}, None,
     "gives samples of shape [4], but the data has 10 classes"),
    ({"a": {"block": "nope"}}, {"b": {"x": {"type": "ReLU"}}}, "is not a block of this model"),
    ({"a": {"block": "b", "with": {"k": 1}}}, {"b": {"x": {"type": "ReLU"}}},
     "passes k to block 'b', which does not use it"),
    ({"a": {"block": "b"}}, {"b": {"x": {"type": "Linear", "out_features": "$w"}}},
     "uses $w, but no value was given for it"),
    # A block entry that is not a table would drop the layer from every copy.
    ({"a": {"type": "Flatten"}, "h": {"block": "b"}, "o": {"type": "Linear"}},
     {"b": {"fc": {"type": "Linear", "out_features": 8}, "act": "ReLU"}},
     "model.blocks.b (in model.layers.h).act = 'ReLU' is not a layer table"),
    ({"a": {"type": "Flatten"}, "h": {"block": "b", "repeat": "two"}, "o": {"type": "Linear"}},
     {"b": {"fc": {"type": "Linear", "out_features": 8}}},
     "model.layers.h.repeat = 'two' is not valid: give a whole number of copies"),
    ({"a": {"type": "Flatten"}, "h": {"block": "b", "repeat": 2.7}, "o": {"type": "Linear"}},
     {"b": {"fc": {"type": "Linear", "out_features": 8}}}, "repeat = 2.7 is not valid"),
    ({"a": {"type": "Flatten"}, "h": {"block": "b", "repeat": -1}, "o": {"type": "Linear"}},
     {"b": {"fc": {"type": "Linear", "out_features": 8}}},
     "model.layers.h.repeat = -1 is not allowed: give 0 or more copies (0: the entry passes its "
     "input on"),
    ({"a": {"type": "Flatten", "repeat": 2}, "o": {"type": "Linear"}}, None,
     "model.layers.a has repeat, which copy a block, but it is one layer"),
    ({"a": {"type": "Flatten"}, "h": {"block": "b", "type": "ReLU"}, "o": {"type": "Linear"}},
     {"b": {"fc": {"type": "Linear", "out_features": 8}}},
     "gives both type = 'ReLU' and block = 'b'"),
    ({"a": {"type": "Flatten"}, "h": {"block": "b"}, "o": {"type": "Linear"}},
     {"b": {"fc": {"type": "Linear", "out_features": 8}, "output": "fcc"}},
     "model.blocks.b.output = 'fcc' is not a layer of the block: did you mean fc?"),
    ({"a": {"type": "Flatten"}, "h": {"block": "b"}, "o": {"type": "Linear"}},
     {"b": {"fc": {"type": "Linear", "out_features": 8, "inputs": ["a"]}}},
     "inputs names 'a', which is not a layer of its block: inside a block, inputs name the "
     "block's own layers or 'input'"),
    ({"input": {"type": "Flatten"}, "o": {"type": "Linear"}}, None,
     "model.layers.input: 'input' is reserved for the network's input"),
    ({"a": {"type": "Flatten"}, "o": {"type": "Linear", "out_features": 10},
      "sm": {"type": "Softmax"}}, None,
     "the output layer 'sm' is a Softmax: the training loss (cross-entropy) takes the scores "
     "before any softmax"),
    ({"a": {"type": "AdaptiveAvgPool2D", "output_size": 0}, "f": {"type": "Flatten"},
      "o": {"type": "Linear"}}, None,
     "model.layers.a (AdaptiveAvgPool2D) gives samples of shape [1, 0, 0], with no values"),
    # A block name that is not a string, and a block that holds itself, are one paragraph:
    ({"a": {"type": "Flatten"}, "h": {"block": 3}, "o": {"type": "Linear"}},
     {"b": {"fc": {"type": "Linear", "out_features": 8}}},
     "model.layers.h.block = 3 is not a block name: give a string, block = \"NAME\" for a "
     "[blocks.NAME] table of this model (b)"),
    ({"a": {"type": "Flatten"}, "h": {"block": "b"}, "o": {"type": "Linear"}},
     {"b": {"x": {"type": "ReLU"}, "again": {"block": "c"}}, "c": {"y": {"block": "b"}}},
     "the block uses itself (b -> c -> b)"),
    # An empty [blocks.e] table would pass its input on unchanged, a slip never reported:
    ({"a": {"type": "Flatten"}, "h": {"block": "e"}, "o": {"type": "Linear"}}, {"e": {}},
     "model.blocks.e has no layers: a block needs at least one layer table"),
    ({"a": {"type": "Flatten"}, "h": {"block": "e", "repeat": 0}, "o": {"type": "Linear"}},
     {"e": {"output": "x"}}, "model.blocks.e has no layers"),
    # A slip of ``inputs`` is suggested, on a layer and on a block entry:
    ({"a": {"type": "Flatten"}, "o": {"type": "Linear", "input": ["a"]}}, None,
     "model.layers.o.input is not an argument of Linear (did you mean 'inputs'?)"),
    ({"a": {"type": "Flatten"}, "h": {"block": "b", "input": ["a"]}, "o": {"type": "Linear"}},
     {"b": {"fc": {"type": "Linear", "out_features": 8}}},
     "not input (did you mean 'inputs'?)"),
    ({"a": {"type": "Flatten"}, "o": {"type": "Linear", "inputs": []}}, None,
     "model.layers.o.inputs = [] is not valid"),
    ({"a": {"type": "Flatten"}, "h": {"block": "b", "repeat": 2}, "o": {"type": "Linear",
                                                                        "inputs": ["h.5"]}},
     {"b": {"fc": {"type": "Linear", "out_features": 8}}},
     "model.layers.o.inputs names 'h.5', which is not a layer here: did you mean h.1, h.0?"),
    # Dots join a copy's names: a layer called b.0 would replace block copy b.0's layers.
    ({"a": {"type": "Flatten"}, "h": {"block": "b", "repeat": 2},
      "h.0": {"type": "ReLU", "inputs": ["h"]}, "o": {"type": "Linear"}},
     {"b": {"fc": {"type": "Linear", "out_features": 8}}},
     "model.layers.h.0: the layer name 'h.0' is not allowed"),
    ({"a[1]": {"type": "Flatten"}, "o": {"type": "Linear"}}, None,
     "the layer name 'a[1]' is not allowed"),
    ({"": {"type": "Flatten"}, "o": {"type": "Linear"}}, None, "the layer name '' is not allowed"),
    ({"a": {"type": "SpectralNorm", "weight_shape": [2, 64]}, "o": {"type": "Linear"}}, None,
     "model.layers.a.type = 'SpectralNorm' is not a known layer type: it is a core.nn layer, "
     "but not one a spec can name: it normalizes one weight tensor"),
    ({"a": {"type": "RNNCellBase"}, "o": {"type": "Linear"}}, None,
     "'RNNCellBase' is not a known layer type: it is a core.nn layer, but not one a spec can "
     "name: it is the base class"),
    ({"a": {"type": "Sequential"}, "o": {"type": "Linear"}}, None, "it holds other layers"),
    ({"a": {"type": "CrossEntropyLoss"}, "o": {"type": "Linear"}}, None, "it is a loss"),
    ({"a": {"type": "Flatten"}, "h": {"type": "Linear", "out_features": 4, "weight_attr": False},
      "o": {"type": "Linear"}}, None,
     "model.layers.h.weight_attr = false leaves out the layer's weight, which Linear cannot run "
     "without"),
    ({"a": {"type": "Flatten"}, "o": {"type": "Linear"}, "r": {"type": "ReLU"}}, None,
     "model.layers.o (Linear) needs out_features: give out_features = ... in its table (only "
     "input sizes are inferred; out_features is inferred on the output layer alone, and this "
     "network's output is 'r')"),
    ({"a": {"type": "Flatten"}, "b": {"type": "Linear", "out_features": 3},
      "bil": {"type": "Bilinear", "inputs": ["a", "b"], "in2_features": 4},
      "o": {"type": "Linear"}}, None,
     "model.layers.bil.in2_features = 4 does not fit its input: 'b' gives samples of shape "
     "[3], so Bilinear's in2_features must be 3"),
    # A layer's other values are read as NAME[i]:
    ({"p": {"type": "MaxPool2D", "kernel_size": 2, "return_mask": True},
      "u": {"type": "MaxUnPool2D", "kernel_size": 2}, "f": {"type": "Flatten"},
      "o": {"type": "Linear"}}, None,
     "model.layers.u (MaxUnPool2D) reads 2 input(s) (x, indices), but its inputs name 1: p. Give "
     "it inputs = [...] with that many layers (NAME[i] reads value i"),
    ({"p": {"type": "MaxPool2D", "kernel_size": 2},
      "u": {"type": "MaxUnPool2D", "kernel_size": 2, "inputs": ["p", "p[1]"]},
      "f": {"type": "Flatten"}, "o": {"type": "Linear"}}, None,
     "model.layers.u.inputs names 'p[1]', but p (MaxPool2D) returns one value on the probe"),
    ({"p": {"type": "MaxPool2D", "kernel_size": 2, "return_mask": True},
      "u": {"type": "MaxUnPool2D", "kernel_size": 2, "inputs": ["p", "p[2]"]},
      "f": {"type": "Flatten"}, "o": {"type": "Linear"}}, None,
     "model.layers.u.inputs names 'p[2]', but p (MaxPool2D) returns 2 values"),
    # Mixing the samples of a batch keeps every shape; the spec says so before training:
    ({"a": {"type": "Flatten"}, "s": {"type": "Softmax", "axis": 0}, "o": {"type": "Linear"}},
     None, "model.layers.s.axis = 0 is the batch axis of its input (samples of shape [64], so a "
     "batch has 2 axes): a layer must act on each sample alone; axes count from 0 with the "
     "batch, so a sample's axes are 1 (or -1)."),
    ({"s": {"type": "LogSoftmax", "axis": -4}, "f": {"type": "Flatten"}, "o": {"type": "Linear"}},
     None, "model.layers.s.axis = -4 is the batch axis of its input (samples of shape [1, 8, 8], "
     "so a batch has 4 axes)"),
    ({"s": {"type": "Flatten", "start_axis": 1, "stop_axis": 2}, "r": {"type": "LSTM",
      "hidden_size": 3, "time_major": True}, "f": {"type": "Flatten"}, "o": {"type": "Linear"}},
     None, "model.layers.r.time_major = true is not allowed in a spec: a spec's batches are "
     "batch-first"),
    ({"a": {"type": "Flatten"}, "h": {"block": "b"}, "o": {"type": "Linear"}},
     {"b": {"fc": {"type": "Linear", "out_features": 8}, "output": {"type": "ReLU"}}},
     "model.blocks.b.output is a layer table, but a block's output key names its output layer"),
    ({"u": {"type": "Upsample", "scale_factor": 2, "mode": "$mode"}, "f": {"type": "Flatten"},
      "o": {"type": "Linear"}}, None,
     "model.layers.u.mode = '$mode' uses $mode, but it is not inside a block: $NAME stands for "
     "a block argument"),
    ({"s": {"type": "Flatten", "start_axis": 1, "stop_axis": 2},
      "g": {"type": "GRU", "hidden_size": 3},
      "h": {"type": "Flatten", "inputs": ["g[1]"]}, "o": {"type": "Linear"}}, None,
     "model.layers.h.inputs names 'g[1]', whose values are not one row per sample: g (GRU) "
     "gives it the shape [1, 2, 3] for a batch of 2 samples"),
    ({"a": {"type": "Flatten", "inputs": ["input[1]"]}, "o": {"type": "Linear"}}, None,
     "model.layers.a.inputs names 'input[1]', but 'input' is one value"),
    ({"p": {"type": "MaxPool2D", "kernel_size": 2, "return_mask": True},
      "u": {"type": "MaxUnPool2D", "kernel_size": 2, "inputs": ["p", "q[1]"]},
      "f": {"type": "Flatten"}, "o": {"type": "Linear"}}, None,
     "model.layers.u.inputs names 'q', which is not a layer here"),
    # Matmul of [batch, features] inputs would multiply across the batch (q k^T: [batch, batch]):
    ({"f": {"type": "Flatten"}, "q": {"type": "Linear", "out_features": 4},
      "k": {"type": "Linear", "out_features": 4, "inputs": ["f"]},
      "s": {"type": "Matmul", "inputs": ["q", "k"], "transpose_y": True},
      "o": {"type": "Linear"}}, None,
     "model.layers.s (Matmul) multiplies the last two axes of its inputs, but 'q' gives samples "
     "of shape [4], one axis, so the batch axis would be a matrix axis and the samples would "
     "mix: give it samples of 2 or more axes"),
    # A misspelt item is named as one, not as a missing layer:
    ({"p": {"type": "MaxPool2D", "kernel_size": 2, "return_mask": True},
      "u": {"type": "MaxUnPool2D", "kernel_size": 2, "inputs": ["p", "p[-1]"]},
      "f": {"type": "Flatten"}, "o": {"type": "Linear"}}, None,
     "model.layers.u.inputs names 'p[-1]', which is not a layer or a layer's value: NAME[i] "
     "reads value i of a layer that returns several, with i a whole number from 0"),
    ({"p": {"type": "MaxPool2D", "kernel_size": 2, "return_mask": True},
      "u": {"type": "MaxUnPool2D", "kernel_size": 2, "inputs": ["p", "p[1.0]"]},
      "f": {"type": "Flatten"}, "o": {"type": "Linear"}}, None,
     "model.layers.u.inputs names 'p[1.0]', which is not a layer or a layer's value"),
    ({"s": {"type": "Flatten", "start_axis": 1, "stop_axis": 2},
      "l": {"type": "LSTM", "hidden_size": 3},
      "h": {"type": "Flatten", "inputs": ["l[1][0]"]}, "o": {"type": "Linear"}}, None,
     "model.layers.h.inputs names 'l[1][0]', which is not a layer or a layer's value"),
    ({"s": {"type": "Flatten", "start_axis": 1, "stop_axis": 2},
      "l": {"type": "LSTM", "hidden_size": 3},
      "h": {"type": "Flatten", "inputs": ["l[1]"]}, "o": {"type": "Linear"}}, None,
     "model.layers.h.inputs names 'l[1]', but l (LSTM) returns 2 values as its value 1 (an "
     "LSTM's final states (h, c)), not one Tensor, and a spec reads only one [i] deep: read "
     "'l' (the outputs of every step)"),
    ({"s": {"block": "b", "repeat": 0}, "m": {"type": "ReLU"},
      "u": {"type": "MaxUnPool2D", "kernel_size": 2, "inputs": ["m", "s[1]"]},
      "f": {"type": "Flatten"}, "o": {"type": "Linear"}},
     {"b": {"pool": {"type": "MaxPool2D", "kernel_size": 2, "return_mask": True}}},
     "model.layers.u.inputs names 's[1]', but the block entry 's' passes on the network's "
     "input unchanged (it has no copies, or its output is its input), and that is one value"),
    # weight_attr / bias_attr: false, or a table of Paddle's ParamAttr settings.
    ({"a": {"type": "Flatten"}, "o": {"type": "Linear", "weight_attr": 3}}, None,
     "model.layers.o.weight_attr = 3 has the wrong type: Linear's weight_attr is false (no such "
     "parameter) or a table of ParamAttr settings ({learning_rate = 0.5}; keys initializer, "
     "learning_rate, regularizer, trainable, need_clip)."),
    ({"a": {"type": "Flatten"}, "o": {"type": "Linear", "weight_attr": {"lr": 0.5}}}, None,
     "model.layers.o.weight_attr.lr is not a ParamAttr setting a spec takes (did you mean "
     "'learning_rate'?); the settings are initializer, learning_rate, regularizer, trainable, "
     "need_clip."),
    ({"a": {"type": "Flatten"}, "o": {"type": "Linear", "bias_attr": {"name": "b"}}}, None,
     "model.layers.o.bias_attr.name is not a ParamAttr setting a spec takes: a spec's "
     "parameters are named after their layers"),
    ({"a": {"type": "Flatten"}, "o": {"type": "Linear", "weight_attr": {
        "initializer": {"type": "Normall", "std": 0.1}}}}, None,
     "model.layers.o.weight_attr.initializer.type = 'Normall' is not a core.nn.initializer "
     "class (did you mean Normal?): the types are Assign, Bilinear, Constant, Dirac"),
    ({"a": {"type": "Flatten"}, "o": {"type": "Linear", "weight_attr": {
        "initializer": "Normal"}}}, None,
     "model.layers.o.weight_attr.initializer = 'Normal' is not a table: write initializer = "
     "{type = \"Normal\", std = 0.01}; the types are Assign"),
    ({"a": {"type": "Flatten"}, "o": {"type": "Linear", "weight_attr": {
        "regularizer": {"type": "L2Decay", "coef": 0.1}}}}, None,
     "model.layers.o.weight_attr.regularizer.coef is not an argument of L2Decay (did you mean "
     "'coeff'?): L2Decay takes coeff."),
    ({"a": {"type": "Flatten"}, "o": {"type": "Linear", "weight_attr": {
        "regularizer": {"type": "L1Decay", "coeff": "x"}}}}, None,
     "model.layers.o.weight_attr.regularizer = {'type': 'L1Decay', 'coeff': 'x'} cannot be "
     "made: L1Decay: "),
    ({"a": {"type": "Flatten"}, "o": {"type": "Linear", "bias_attr": {
        "initializer": {"type": "Constant", "valu": 1}}}}, None,
     "model.layers.o.bias_attr.initializer.valu is not an argument of Constant (did you mean "
     "'value'?): Constant takes value."),
    ({"a": {"type": "Flatten"}, "o": {"type": "Linear", "weight_attr": {
        "learning_rate": -1}}}, None,
     "model.layers.o.weight_attr = {'learning_rate': -1} is not a valid ParamAttr: "),
])
def test_spec_mistakes_name_the_layer_and_what_is_allowed(layers, blocks, message):
    with pytest.raises(ConfigError) as info:
        _build(layers, blocks=blocks)
    assert message in str(info.value)


def test_weight_attr_and_bias_attr_tables_are_paddles_param_attr():
    """Paddle code passes ParamAttr(learning_rate=..., initializer=..., regularizer=...,
    trainable=...); a spec writes the same settings as a table (only false was taken)."""
    model = _build({"a": {"type": "Flatten"}, "h": {"type": "Linear", "out_features": 4,
                    "weight_attr": {"initializer": {"type": "Constant", "value": 0.5},
                                    "learning_rate": 0.0},
                    "bias_attr": {"trainable": False, "need_clip": False}},
                    "o": {"type": "Linear", "weight_attr": {
                        "regularizer": {"type": "L2Decay", "coeff": 0.25}}}})
    params = dict(model.named_parameters())
    weight, bias = params["h.weight"], params["h.bias"]
    np.testing.assert_array_equal(weight.numpy(), np.full((64, 4), 0.5, np.float32))
    assert weight.optimize_attr["learning_rate"] == 0.0
    assert bias.stop_gradient and not bias.need_clip
    assert isinstance(params["o.weight"].regularizer, core.regularizer.L2Decay)
    assert params["o.weight"].regularizer.coeff == 0.25
    optimizer = build.build_optimizer(RUN_OPTIM, model.parameters(), 0.1)
    out = params["o.weight"].numpy().copy()
    loss = model(core.to_tensor(np.ones((2, 1, 8, 8), np.float32))).sum()
    loss.backward()
    optimizer.step()
    np.testing.assert_array_equal(weight.numpy(), np.full((64, 4), 0.5, np.float32))  # lr 0
    assert not np.array_equal(params["o.weight"].numpy(), out)


def test_no_core_layer_is_a_spec_type_without_a_reason_and_none_is_both():
    """Every Layer class of core.nn is a spec type or has a reason it is not one."""
    from core import nn
    from runner.build.spec.layer_types import core_layer_types, not_spec_reason

    types = core_layer_types()
    layers = [name for name in nn.__all__ if isinstance(getattr(nn, name), type)
              and issubclass(getattr(nn, name), nn.Layer)]
    assert [name for name in layers if (name in types) == bool(not_spec_reason(name))] == []
    assert not_spec_reason("ParamAttr") == "" and not_spec_reason("NoSuchLayer") == ""


def test_a_dropout_may_share_its_mask_along_the_batch_axis():
    """Dropout's axis lists the axes its mask varies along: 0 drops whole samples."""
    model = _build({"d": {"type": "Dropout", "p": 0.5, "axis": 0}, "f": {"type": "Flatten"},
                    "o": {"type": "Linear"}})
    out = model["d"](core.ones([6, 1, 8, 8]))
    per_sample = out.numpy().reshape(6, -1)
    assert all(len(set(row)) == 1 for row in per_sample)  # each sample kept or dropped whole


def test_bilinear_and_attention_infer_the_sizes_of_their_other_inputs():
    layers = {"a": {"type": "Flatten"},
              "b": {"type": "Linear", "out_features": 3},
              "bil": {"type": "Bilinear", "inputs": ["a", "b"], "out_features": 5},
              "q": {"type": "Unflatten", "axis": 1, "shape": [1, 5]},
              "k": {"type": "Unflatten", "axis": 1, "shape": [8, 8], "inputs": ["a"]},
              "half": {"type": "Linear", "out_features": 32, "inputs": ["a"]},
              "v": {"type": "Unflatten", "axis": 1, "shape": [8, 4], "inputs": ["half"]},
              "att": {"type": "MultiHeadAttention", "num_heads": 1, "inputs": ["q", "k", "v"]},
              "self": {"type": "MultiHeadAttention", "num_heads": 1},  # key, value: the query
              "f": {"type": "Flatten"}, "o": {"type": "Linear"}}
    model = _build(layers)
    assert model["bil"].weight.shape == [5, 64, 3]
    assert model["att"].embed_dim == 5 and model["att"].kdim == 8 and model["att"].vdim == 4
    assert model["self"].kdim == 5 and model["self"].vdim == 5
    assert _forward(model).shape == [3, 10]


def test_max_unpool_reads_the_pools_indices_as_its_second_value():
    """``pool[1]``: a layer's second value (the indices of a MaxPool2D with return_mask)."""
    layers = {"conv": {"type": "Conv2D", "out_channels": 2, "kernel_size": 3, "padding": 1},
              "pool": {"type": "MaxPool2D", "kernel_size": 2, "return_mask": True},
              "mid": {"type": "Tanh"},
              "unpool": {"type": "MaxUnPool2D", "kernel_size": 2, "inputs": ["mid", "pool[1]"]},
              "sum": {"type": "Add", "inputs": ["unpool", "conv"]},
              "flat": {"type": "Flatten"}, "out": {"type": "Linear"}}
    core.seed(0)
    model = _build(layers, shape=(1, 4, 4), classes=3)
    x = np.random.default_rng(0).standard_normal((2, 1, 4, 4)).astype(np.float32)
    with core.no_grad():
        conv = model["conv"](core.to_tensor(x))
        pooled, indices = core.nn.functional.max_pool2d(conv, 2, return_mask=True)
        unpooled = core.nn.functional.max_unpool2d(core.tanh(pooled), indices, 2)
        expected = model["out"](core.flatten(unpooled + conv, 1))
        np.testing.assert_allclose(model(core.to_tensor(x)).numpy(), expected.numpy(),
                                   rtol=1e-5, atol=1e-6)
    summary_rows = {row.name: row for row in summary.summarize(model, (1, 4, 4))}
    assert summary_rows["unpool"].shape == (2, 4, 4)
    for param in model.parameters():  # float64 for the finite differences
        param.data = param.data.astype(np.float64)
    check_grad(lambda t: model(t), x.astype(np.float64), rtol=1e-5, atol=1e-7)


def test_channels_last_layers_infer_channels_from_the_last_axis():
    """data_format NLC / NHWC: in_channels and num_features are the sample's last axis."""
    model = build.build_model(_spec({
        "conv": {"type": "Conv1D", "out_channels": 6, "kernel_size": 3, "padding": 1,
                 "data_format": "NLC"},
        "bn": {"type": "BatchNorm1D", "data_format": "NLC"},
        "pool": {"type": "SequencePool", "pool_type": "max"}, "o": {"type": "Linear"}}),
        (4,), 3, variable_length=True)
    assert model["conv"].weight.shape == [6, 4, 3] and model["bn"].weight.shape == [6]
    model = _build({"conv": {"type": "Conv2D", "out_channels": 5, "kernel_size": 3,
                             "data_format": "NHWC", "in_channels": 3},
                    "f": {"type": "Flatten"}, "o": {"type": "Linear"}}, shape=(8, 8, 3))
    assert model["conv"].weight.shape == [5, 3, 3, 3]
    assert list(_forward(model, shape=(8, 8, 3)).shape) == [3, 10]


def test_layer_norm_over_several_trailing_axes_and_vocabulary_sizes_are_checked():
    model = _build({"ln": {"type": "LayerNorm", "normalized_shape": [8, 8]},
                    "f": {"type": "Flatten"}, "o": {"type": "Linear"}})
    assert model["ln"].weight.shape == [64]  # Paddle's flat weight over normalized_shape [8, 8]
    with pytest.raises(ConfigError, match="normalized_shape must be 8"):
        _build({"ln": {"type": "LayerNorm", "normalized_shape": [7, 8]},
                "f": {"type": "Flatten"}, "o": {"type": "Linear"}})
    layers = {"e": {"type": "Embedding", "embedding_dim": 4, "num_embeddings": 10},
              "p": {"type": "SequencePool", "pool_type": "sum"}, "o": {"type": "Linear"}}
    with pytest.raises(ConfigError, match="num_embeddings = 10 is smaller than the data's "
                                          "vocabulary of 26 words"):
        build.build_model(_spec(layers), (), 3, vocab_size=26, variable_length=True)
    layers["e"]["num_embeddings"] = 30  # room for more words is allowed
    build.build_model(_spec(layers), (), 3, vocab_size=26, variable_length=True)


def test_a_layer_that_gives_nan_on_the_probe_is_named_in_a_warning(caplog):
    with caplog.at_level("WARNING", logger="runner.build.spec.graph"):
        _build({"a": {"type": "Softplus", "beta": 0}, "f": {"type": "Flatten"},
                "o": {"type": "Linear"}})
    assert "model.layers.a (Softplus) gave NaN or Inf on the probe batch" in caplog.text
    caplog.clear()
    with caplog.at_level("WARNING", logger="runner.build.spec.graph"):
        _build({"f": {"type": "Flatten"}, "o": {"type": "Linear"}})
    assert "NaN" not in caplog.text


def test_layers_must_keep_the_batch_and_the_steps_the_lengths_count():
    with pytest.raises(ConfigError, match=r"model.layers.g \(GLU\) turns a batch of 2 samples "
                                          "into 1 rows"):
        _build({"f": {"type": "Flatten"}, "g": {"type": "GLU", "axis": 0},
                "o": {"type": "Linear"}})
    strided = {"down": {"type": "Conv1D", "out_channels": 4, "kernel_size": 3, "stride": 2,
                        "padding": 1, "data_format": "NLC"},
               "pool": {"type": "SequencePool", "pool_type": "last"}, "o": {"type": "Linear"}}
    with pytest.raises(ConfigError, match=r"model.layers.pool \(SequencePool\) reads the "
                                          "sequences' lengths, but its input 'down' has 2 steps"):
        build.build_model(_spec(strided), (5,), 3, variable_length=True)
    strided["down"]["stride"] = 1  # the steps kept: the lengths still count them
    build.build_model(_spec(strided), (5,), 3, variable_length=True)


def test_sequence_branches_are_joined_along_features_not_steps():
    layers = {"a": {"type": "GRU", "hidden_size": 4},
              "b": {"type": "LSTM", "hidden_size": 3, "inputs": ["input"]},
              "cat": {"type": "Concat", "inputs": ["a", "b"]},
              "pool": {"type": "SequencePool", "pool_type": "last"}, "o": {"type": "Linear"}}
    with pytest.raises(ConfigError, match=r"model.layers.cat \(Concat\) joins its inputs along "
                                          "axis 1, the time axis"):
        build.build_model(_spec(layers), (2,), 3, variable_length=True)
    layers["cat"]["axis"] = -1
    model = build.build_model(_spec(layers), (2,), 3, variable_length=True)
    assert model["o"].weight.shape == [7, 3]
    pooled = {"a": {"type": "GRU", "hidden_size": 4},  # pooled [features] join on axis 1
              "pa": {"type": "SequencePool", "pool_type": "last"},
              "b": {"type": "LSTM", "hidden_size": 3, "inputs": ["input"]},
              "pb": {"type": "SequencePool", "pool_type": "max"},
              "cat": {"type": "Concat", "inputs": ["pa", "pb"]}, "o": {"type": "Linear"}}
    assert build.build_model(_spec(pooled), (2,), 3, variable_length=True)["o"].weight.shape \
        == [7, 3]


def test_word_ids_need_an_embedding_and_sequences_a_length_free_output():
    with pytest.raises(ConfigError, match="no Embedding layer"):
        build.build_model(_spec({"a": {"type": "Flatten"}, "o": {"type": "Linear"}}), (4,), 3,
                          vocab_size=50)
    with pytest.raises(ConfigError, match="output shape depends on the sequence length"):
        build.build_model(_spec({"a": {"type": "Flatten"}, "o": {"type": "Linear"}}), (2,), 3,
                          variable_length=True)
    with pytest.raises(ConfigError, match="on a probe of 3 steps, but the data has 3 classes: "
                                          "pool the steps first"):
        build.build_model(_spec({"o": {"type": "Linear"}}), (2,), 3, variable_length=True)


# ----- the command line -----------------------------------------------------------------------

TINY = ["trainer.epochs=1", "trainer.progress=false", "runtime.threads=1",
        "trainer.checkpoint=false"]
CLI_ERRORS = {
    "type": (["model.layers.fc.type=Lineer"], "did you mean Linear"),
    "argument": (["+model.layers.conv1.out_chanels=3"],
                 "out_chanels is not an argument of Conv2D (did you mean 'out_channels'?)"),
    "value": (["model.layers.conv1.out_channels=abc"], "out_channels is an integer"),
    "shape": (["+model.layers.fc.in_features=100"], "in_features must be 80"),
    "inputs": (["+model.layers.fc.inputs=[nowhere]"], "inputs names 'nowhere'"),
    "unused": (["+model.layers.extra={type: ReLU, inputs: [conv1]}"],
               "the layer fc is computed but nothing consumes it (the output is extra)"),
    "classes": (["+model.layers.fc.out_features=7"], "but the data has 10 classes"),
    "knob": (["+model.channels=[3]"], "no layer of the spec 'cnn' uses it"),
    "missing_plus": (["model.layers.fc.in_features=3"], "prefix the override with +"),
    "error_clip_plus": (["model.error_clip.fc=100"], "to add it, prefix the override with +: "
                        "+model.error_clip.fc=VALUE"),
    "knob_typo": (["+model.freez=[conv1]"], "(did you mean model.freeze?)"),
    "knob_replaced": (["model.layers.act1.type=Tanh", "model.layers.act2.type=Tanh"],
                      "drop it with ~model.activation"),
    "softmax_output": (["+model.layers.sm={type: Softmax}", "+model.layers.fc.out_features=10"],
                       "the output layer 'sm' is a Softmax"),
    "not_spec": (["model.layers.fc.type=RNNCellBase"],
                 "model.layers.fc.type = 'RNNCellBase' is not a known layer type: it is a "
                 "core.nn layer, but not one a spec can name: it is the base class"),
    "item": (["+model.layers.fc.inputs=[flatten,'max_pool2[1]']"],
             "model.layers.fc.inputs names 'max_pool2[1]', but max_pool2 (MaxPool2D) returns "
             "one value"),
    "inspect": (["model=mlp", "inspect.every=5", "inspect.layer_outputs=[hidden.2]"],
                "inspect.layer_outputs: layer 'hidden.2' is not a layer of this model whose "
                "output can be read: the names are flatten, hidden, hidden.0, hidden.0.fc, "
                "hidden.0.act, hidden.0.drop, hidden.1, hidden.1.fc"),
}


@pytest.fixture(scope="module")
def cli_runs(tmp_path_factory):
    jobs = {}
    for name, (args, _) in CLI_ERRORS.items():
        folder = tmp_path_factory.mktemp(name)
        jobs[name] = (folder, [*TINY, *args])
    folder = tmp_path_factory.mktemp("sweep")
    # -m after the first override (argparse alone would reject what follows it):
    jobs["sweep"] = (folder, [*TINY[:1], "-m", *TINY[1:], "model.layers.conv1.out_channels=4,8",
                              "model.layers.conv2.out_channels=4,8", "hydra.sweep.dir=sweep",
                              "tracking.experiment=spec-sweep"])
    folder = tmp_path_factory.mktemp("unnamed")  # a user's spec file without name = "..."
    (folder / "conf" / "model").mkdir(parents=True)
    (folder / "conf" / "model" / "tiny_net.toml").write_text(
        '[layers.flat]\ntype = "Flatten"\n\n[layers.out]\ntype = "Linear"\n')
    jobs["unnamed"] = (folder, [*TINY, "hydra.searchpath=[toml://conf]", "model=tiny_net",
                                "tracking.enabled=false"])
    folder = tmp_path_factory.mktemp("edit")
    jobs["edit"] = (folder, [*TINY, "model=mlp", "model.hidden=[16]", "~model.layers.flatten",
                             "+model.layers.hidden.inputs=[input]",
                             "+model.layers.flat={type: Flatten, inputs: [hidden]}",
                             "+model.layers.out.inputs=[flat]", "tracking.enabled=false"])
    folder = tmp_path_factory.mktemp("inspect_blocks")
    jobs["inspect_blocks"] = (folder, [*TINY, "model=mlp", "inspect.every=10",
                                       "inspect.layer_outputs=[hidden,hidden.0]",
                                       "tracking.experiment=spec-inspect"])
    return run_all(jobs, timeout=600)


def test_block_entry_and_copy_names_are_inspected_during_training(cli_runs):
    code, stdout, stderr, folder = cli_runs["inspect_blocks"]
    assert code == 0, stderr[-3000:]
    from runner.track import runstore, tracking

    uri = tracking.default_uri(folder)
    run = runstore.experiment_runs(uri, runstore.experiment_id(uri, "spec-inspect"))[0]
    history = {key: runstore.metric_history(uri, run.run_id, key)
               for key in ("inspect/hidden/out_std", "inspect/hidden.0/out_max")}
    assert all(len(points) > 1 for points in history.values()), history


@pytest.mark.parametrize("case", sorted(CLI_ERRORS))
def test_spec_mistakes_on_the_command_line_are_one_paragraph_exit_2(cli_runs, case):
    code, stdout, stderr, folder = cli_runs[case]
    assert code == 2, stderr[-2000:]
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("tomlrun: error: ")
    assert CLI_ERRORS[case][1] in lines[0]
    assert "Traceback" not in stderr
    assert not (folder / "mlflow.db").exists() and not (folder / "outputs").exists()


def test_a_2x2_sweep_over_layer_arguments_logs_the_flattened_spec(cli_runs):
    code, stdout, stderr, folder = cli_runs["sweep"]
    assert code == 0, stderr[-3000:]
    from runner.track import runstore, tracking

    uri = tracking.default_uri(folder)
    runs = runstore.experiment_runs(uri, runstore.experiment_id(uri, "spec-sweep"))
    children = [run for run in runs if "model.layers.conv1.out_channels" in run.params]
    pairs = sorted((run.params["model.layers.conv1.out_channels"],
                    run.params["model.layers.conv2.out_channels"]) for run in children)
    assert pairs == [("4", "4"), ("4", "8"), ("8", "4"), ("8", "8")]
    assert all(run.params["model.layers.conv1.type"] == "Conv2D" for run in children)


def test_layers_are_removed_added_and_rewired_from_the_command_line(cli_runs):
    code, stdout, stderr, folder = cli_runs["edit"]
    assert code == 0, stderr[-3000:]
    assert "flat " in stderr + stdout and "test loss" in stderr + stdout


def test_a_spec_file_without_a_name_is_named_after_the_file(cli_runs):
    code, stdout, stderr, _ = cli_runs["unnamed"]
    assert code == 0, stderr[-3000:]
    assert "model tiny_net:" in stderr + stdout and "model spec:" not in stderr + stdout


def test_the_summary_command_prints_the_table_without_training(tmp_path, monkeypatch, capsys):
    from runner import summary as summary_cli

    monkeypatch.chdir(tmp_path)
    assert summary_cli.main(["model=mlp", "model.hidden=[32,16]"]) == 0
    printed = capsys.readouterr().out
    assert "hidden.1.fc" in printed and "2,778" in printed  # 64*32+32 + 32*16+16 + 16*10+10
    assert not (tmp_path / "mlflow.db").exists()
    assert summary_cli.main(["model.layers.fc.type=Lineer"]) == 2
    assert "did you mean Linear" in capsys.readouterr().err



def test_name_i_reads_each_copys_own_layer_and_a_block_entrys_output():
    """``pool[1]`` inside a block is that copy's pool; ``down[1]`` is value 1 of the block
    entry's output layer (a SegNet: stages that unpool with their own indices)."""
    blocks = {"seg": {"conv": {"type": "Conv2D", "out_channels": "$ch", "kernel_size": 3,
                               "padding": 1},
                      "pool": {"type": "MaxPool2D", "kernel_size": 2, "return_mask": True},
                      "mid": {"type": "ReLU"},
                      "unpool": {"type": "MaxUnPool2D", "kernel_size": 2,
                                 "inputs": ["mid", "pool[1]"]}},
              "down": {"conv": {"type": "Conv2D", "out_channels": 2, "kernel_size": 1},
                       "pool": {"type": "MaxPool2D", "kernel_size": 2, "return_mask": True}}}
    layers = {"stage": {"block": "seg", "each": {"ch": [2, 3]}},
              "down": {"block": "down"},
              "mid": {"type": "Tanh"},
              "up": {"type": "MaxUnPool2D", "kernel_size": 2, "inputs": ["mid", "down[1]"]},
              "f": {"type": "Flatten"}, "o": {"type": "Linear"}}
    model = _build(layers, shape=(1, 4, 4), classes=3, blocks=blocks)
    x = core.to_tensor(np.random.default_rng(3).standard_normal((2, 1, 4, 4)).astype("float32"))
    F = core.nn.functional
    with core.no_grad():
        h = x
        for copy in ("stage.0", "stage.1"):
            pooled, indices = F.max_pool2d(model[f"{copy}.conv"](h), 2, return_mask=True)
            h = F.max_unpool2d(F.relu(pooled), indices, 2)
        pooled, indices = F.max_pool2d(model["down.conv"](h), 2, return_mask=True)
        want = model["o"](core.flatten(F.max_unpool2d(core.tanh(pooled), indices, 2), 1))
        np.testing.assert_allclose(model(x).numpy(), want.numpy(), rtol=1e-5, atol=1e-6)


def test_error_clip_on_a_block_copy_is_refused_and_names_its_output_layer():
    """A block copy's forward never runs, so its error_clip hook would never clip."""
    layers = {"a": {"type": "Flatten"}, "h": {"block": "b", "repeat": 2},
              "o": {"type": "Linear"}}
    blocks = {"b": {"fc": {"type": "Linear", "out_features": 4}, "act": {"type": "ReLU"}}}
    with pytest.raises(ConfigError) as info:
        build.build_model(_spec(layers, blocks, error_clip={"h": {"0": 1.0}}), DIGITS, 10)
    assert str(info.value) == (
        "error_clip = 1.0 on 'h.0', a block entry or copy: GraphNet runs its layers one by one "
        "and never the group itself, so a threshold on it would clip nothing; set it on "
        "'h.0.act', the layer giving its output (+model.error_clip.h.0.act=1.0).")
    model = build.build_model(_spec(layers, blocks, error_clip={"h": {"0": {"act": 1.0}}}),
                              DIGITS, 10)
    assert model["h.0.act"].error_clip == 1.0
    model["h"].error_clip = None  # off: nothing to refuse
    with pytest.raises(ConfigError, match="on 'h', a block entry or copy"):
        model["h"].error_clip = 2.0


def test_the_output_is_a_layer_not_one_of_its_values():
    layers = {"a": {"type": "Flatten"}, "h": {"block": "b", "repeat": 2},
              "o": {"type": "Linear"}}
    blocks = {"b": {"fc": {"type": "Linear", "out_features": 10}}}
    with pytest.raises(ConfigError, match="model.output = 'h\\[1\\]' is not allowed: the "
                       "output is a whole layer, whose first value the loss reads; NAME\\[i\\] "
                       "is for inputs only. Name the layer \\('h'\\)."):
        build.build_model(_spec(layers, blocks, output="h[1]"), DIGITS, 10)


def test_multi_head_attention_written_as_one_block_entry_per_head():
    """With no layer that moves the heads to a batch axis (Paddle's nn has no Transpose), a
    spec writes the heads as block entries reading the same input, joined by a Concat: with
    the same weights, that is MultiHeadAttention."""
    head = {"q": {"type": "Linear", "out_features": 4},
            "k": {"type": "Linear", "out_features": 4, "inputs": ["input"]},
            "v": {"type": "Linear", "out_features": 4, "inputs": ["input"]},
            "scores": {"type": "Matmul", "inputs": ["q", "k"], "transpose_y": True,
                       "alpha": 0.5},
            "attn": {"type": "Softmax", "axis": -1},
            "mixed": {"type": "Matmul", "inputs": ["attn", "v"]}}
    layers = {"rows": {"type": "Flatten", "start_axis": 1, "stop_axis": 2},
              "h0": {"block": "head", "inputs": ["rows"]},
              "h1": {"block": "head", "inputs": ["rows"]},
              "heads": {"type": "Concat", "axis": -1, "inputs": ["h0", "h1"]},
              "proj": {"type": "Linear", "out_features": 8},
              "flat": {"type": "Flatten"}, "out": {"type": "Linear"}}
    model = _build(layers, blocks={"head": head})
    core.seed(1)
    mha = core.nn.MultiHeadAttention(8, 2)
    for i in range(2):
        cols = slice(4 * i, 4 * i + 4)
        for name in "qkv":
            proj = getattr(mha, f"{name}_proj")
            model[f"h{i}.{name}"].weight.set_value(proj.weight.numpy()[:, cols])
            model[f"h{i}.{name}"].bias.set_value(proj.bias.numpy()[cols])
    model["proj"].weight.set_value(mha.out_proj.weight.numpy())
    model["proj"].bias.set_value(mha.out_proj.bias.numpy())
    x = np.random.default_rng(4).standard_normal((3, *DIGITS)).astype("float32")
    model.eval()
    mha.eval()
    out = Inference(model, ["proj"]).infer(x)["proj"]
    with core.no_grad():
        want = mha(core.to_tensor(x.reshape(3, 8, 8))).numpy()
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)
