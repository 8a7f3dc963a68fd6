"""Produce tests/core/data/paddle331/misc/param_names.json and misc/param_names_adam.pdopt
(+ ``.npz``) with real Paddle 3.3.1 (CPU):

    /tmp/pdvenv/bin/python tests/core/data/paddle331/make_param_name_fixtures.py

Not collected by pytest and never imported by the tests (the project does not depend on
Paddle). The JSON holds the names Paddle generates (``paddle.utils.unique_name``): each layer's
``full_name()``, its sublayers' and each state_dict entry's ``.name`` (parameters only: Paddle's
other buffers are ``generated_tensor_N``, from a counter no guard restarts) for every layer
class core.nn shares with Paddle, built in the order of ``LAYERS`` inside one
``unique_name.guard()``; then scenarios (containers, subclasses, name_scope, ParamAttr names,
create_parameter, nested and prefixed guards, counters across two networks) and the optimizer
state_dict keys of SGD / Momentum / Adam / AdamW. tests/core/test_param_names_paddle.py replays
the same expressions on core (``import core as paddle``) and asserts every name equal.

The ``.pdopt`` is a small Adam run (``NET``, three steps) saved by ``paddle.save``; the ``.npz``
holds the weights it was saved with, the batches, and the weights after each of two more steps.
"""
from __future__ import annotations

import json
import os

import numpy as np
import paddle
from paddle import nn
from paddle.utils import unique_name

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "misc")

# Constructor expressions, evaluated with ``nn`` as paddle.nn (core.nn in the test).
LAYERS = [
    "nn.Linear(2, 3)", "nn.Linear(2, 3, bias_attr=False)", "nn.Bilinear(2, 3, 4)",
    "nn.Conv1D(2, 3, 3)", "nn.Conv2D(2, 3, 3)", "nn.Conv3D(2, 3, 3)",
    "nn.Conv1DTranspose(2, 3, 3)", "nn.Conv2DTranspose(2, 3, 3)", "nn.Conv3DTranspose(2, 3, 3)",
    "nn.Embedding(5, 3)", "nn.LayerNorm(4)", "nn.GroupNorm(2, 4)", "nn.InstanceNorm1D(3)",
    "nn.InstanceNorm2D(3)", "nn.InstanceNorm3D(3)", "nn.BatchNorm(3)", "nn.BatchNorm1D(3)",
    "nn.BatchNorm2D(3)", "nn.BatchNorm3D(3)", "nn.SyncBatchNorm(3)", "nn.PReLU()",
    "nn.PReLU(3)", "nn.SpectralNorm([3, 4])", "nn.SimpleRNNCell(2, 3)", "nn.LSTMCell(2, 3)",
    "nn.GRUCell(2, 3)", "nn.SimpleRNN(2, 3)", "nn.LSTM(2, 3, num_layers=2)",
    "nn.GRU(2, 3, direction='bidirect')", "nn.LSTM(2, 3, proj_size=2)",
    "nn.MultiHeadAttention(4, 2)", "nn.TransformerEncoderLayer(4, 2, 8)",
    "nn.TransformerDecoderLayer(4, 2, 8)",
    "nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2, 8), 2)",
    "nn.Transformer(4, 2, 1, 1, 8)", "nn.HSigmoidLoss(3, 5)",
    "nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2))",
    "nn.LayerList([nn.Linear(2, 2), nn.Conv2D(1, 1, 1)])",
    "nn.LayerDict({'a': nn.Linear(2, 2)})",
    "nn.ParameterList([paddle.create_parameter([2], 'float32')])",
    "nn.ReLU()", "nn.ReLU6()", "nn.GELU()", "nn.Sigmoid()", "nn.Tanh()", "nn.Softmax()",
    "nn.LogSoftmax()", "nn.LeakyReLU()", "nn.ELU()", "nn.SELU()", "nn.CELU()", "nn.Silu()",
    "nn.Swish()", "nn.Mish()", "nn.Hardswish()", "nn.Hardsigmoid()", "nn.Hardtanh()",
    "nn.Hardshrink()", "nn.Softshrink()", "nn.Softplus()", "nn.Softsign()", "nn.Tanhshrink()",
    "nn.ThresholdedReLU()", "nn.LogSigmoid()", "nn.GLU()", "nn.Maxout(2)", "nn.RReLU()",
    "nn.Softmax2D()", "nn.Identity()", "nn.Flatten()", "nn.Unflatten(1, [2, 2])",
    "nn.Dropout()", "nn.Dropout2D()", "nn.Dropout3D()", "nn.AlphaDropout()",
    "nn.FeatureAlphaDropout()", "nn.MaxPool1D(2)", "nn.MaxPool2D(2)", "nn.MaxPool3D(2)",
    "nn.AvgPool1D(2)", "nn.AvgPool2D(2)", "nn.AvgPool3D(2)", "nn.AdaptiveAvgPool1D(2)",
    "nn.AdaptiveAvgPool2D(2)", "nn.AdaptiveAvgPool3D(2)", "nn.AdaptiveMaxPool1D(2)",
    "nn.AdaptiveMaxPool2D(2)", "nn.AdaptiveMaxPool3D(2)", "nn.MaxUnPool1D(2)",
    "nn.MaxUnPool2D(2)", "nn.MaxUnPool3D(2)", "nn.LPPool1D(2, 2)", "nn.LPPool2D(2, 2)",
    "nn.FractionalMaxPool2D(2)", "nn.FractionalMaxPool3D(2)", "nn.Pad1D(1)", "nn.Pad2D(1)",
    "nn.Pad3D(1)", "nn.ZeroPad1D(1)", "nn.ZeroPad2D(1)", "nn.ZeroPad3D(1)",
    "nn.ConstantPad1D(1, 0.0)", "nn.ConstantPad2D(1, 0.0)", "nn.ConstantPad3D(1, 0.0)",
    "nn.ReflectionPad1D(1)", "nn.ReflectionPad2D(1)", "nn.ReflectionPad3D(1)",
    "nn.ReplicationPad1D(1)", "nn.ReplicationPad2D(1)", "nn.ReplicationPad3D(1)",
    "nn.CircularPad1D(1)", "nn.CircularPad2D(1)", "nn.CircularPad3D(1)",
    "nn.PixelShuffle(2)", "nn.PixelUnshuffle(2)", "nn.ChannelShuffle(2)", "nn.Upsample(2)",
    "nn.UpsamplingNearest2D(2)", "nn.UpsamplingBilinear2D(2)", "nn.Fold([4, 4], 2)",
    "nn.Unfold(2)", "nn.CosineSimilarity()", "nn.PairwiseDistance()",
    "nn.LocalResponseNorm(3)", "nn.BCELoss()", "nn.BCEWithLogitsLoss()", "nn.CTCLoss()",
    "nn.CosineEmbeddingLoss()", "nn.CrossEntropyLoss()", "nn.GaussianNLLLoss()",
    "nn.HingeEmbeddingLoss()", "nn.KLDivLoss()", "nn.L1Loss()", "nn.MSELoss()",
    "nn.MarginRankingLoss()", "nn.MultiLabelMarginLoss()", "nn.MultiLabelSoftMarginLoss()",
    "nn.MultiMarginLoss()", "nn.NLLLoss()", "nn.PoissonNLLLoss()", "nn.RNNTLoss()",
    "nn.SmoothL1Loss()", "nn.SoftMarginLoss()", "nn.TripletMarginLoss()",
    "nn.TripletMarginWithDistanceLoss()", "nn.Layer()",
    "nn.AdaptiveLogSoftmaxWithLoss(4, 10, [5])",  # last: core counts one more parameter_list
]

# Scenarios: each is a list of statements run in one fresh namespace inside a guard, and a
# list of expressions whose values (names) are recorded. ``MyNet`` etc. are defined in SETUP.
SETUP = '''
class MyNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        self.p = self.create_parameter([2])
        self.q = self.create_parameter([2], is_bias=True)
        self.block = nn.Sequential(nn.Linear(2, 2), nn.Conv2D(1, 1, 1))


class HTTPNet2D(nn.Layer):
    pass


class lowerCase(nn.Layer):
    pass


class ABC(nn.Layer):
    pass


class Net_With_Underscore(nn.Layer):
    pass


class Scoped(nn.Layer):
    def __init__(self):
        super().__init__(name_scope="demo_linear_net")
        self.fc = nn.Linear(2, 2)
        self.w = self.create_parameter([2])


class RowParallelLinear(nn.Layer):
    pass


def names(layer):
    return [[k, v.name] for k, v in layer.state_dict().items()
            if type(v).__name__ in ("EagerParamBase", "Parameter")]


def layer_names(layer):
    return [[k, l.full_name()] for k, l in layer.named_sublayers(include_self=True)]
'''

SCENARIOS = {
    "subclasses": ("a = MyNet(); b = MyNet(); c = HTTPNet2D(); d = lowerCase(); e = ABC(); "
                   "f = Net_With_Underscore(); g = RowParallelLinear()",
                   ["layer_names(a)", "names(a)", "layer_names(b)", "names(b)",
                    "c.full_name()", "d.full_name()", "e.full_name()", "f.full_name()",
                    "g.full_name()"]),
    "name_scope": ("a = nn.Layer('MyScope'); b = nn.Layer('MyScope'); c = Scoped(); "
                   "d = nn.Layer('linear'); e = nn.Linear(2, 2)",
                   ["a.full_name()", "b.full_name()", "layer_names(c)", "names(c)",
                    "d.full_name()", "names(e)"]),
    "param_attr": ("a = nn.Linear(2, 2, weight_attr=paddle.ParamAttr(name='W'), "
                   "bias_attr='B'); b = nn.Linear(2, 2, weight_attr=paddle.ParamAttr("
                   "learning_rate=0.5)); c = nn.Conv2D(1, 1, 1, bias_attr=paddle.ParamAttr("
                   "name='conv_b'))",
                   ["names(a)", "names(b)", "names(c)"]),
    "create_parameter": ("a = paddle.create_parameter([2], 'float32'); "
                         "b = paddle.create_parameter([2], 'float32', is_bias=True); "
                         "c = paddle.create_parameter([2], 'float32', name='zz'); "
                         "d = paddle.create_parameter([2], 'float32', "
                         "attr=paddle.ParamAttr(name='yy')); e = nn.Linear(2, 2); "
                         "f = e.create_parameter([2]); g = e.create_parameter([2], is_bias=True);"
                         " h = e.create_parameter([2], attr='named')",
                         ["a.name", "b.name", "c.name", "d.name", "f.name", "g.name",
                          "h.name"]),
    "rnn": ("a = nn.RNN(nn.GRUCell(2, 3)); b = nn.BiRNN(nn.LSTMCell(2, 3), "
            "nn.LSTMCell(2, 3))",
            ["layer_names(a)", "names(a)", "layer_names(b)", "names(b)"]),
    "rnn_layer": ("c = nn.LSTM(2, 3, num_layers=2, direction='bidirect')",
                  ["layer_names(c)", "names(c)"]),
    "two_networks": ("a = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2)); "
                     "b = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))",
                     ["layer_names(a)", "names(a)", "layer_names(b)", "names(b)"]),
    "nested_guard": ("a = nn.Linear(2, 2)\nwith unique_name.guard():\n    b = nn.Linear(2, 2)\n"
                     "c = nn.Linear(2, 2)\nwith unique_name.guard('pre_'):\n"
                     "    d = nn.Linear(2, 2)\n    e = MyNet()",
                     ["names(a)", "names(b)", "names(c)", "d.full_name()", "names(d)",
                      "layer_names(e)", "names(e)"]),
    "generate": ("a = unique_name.generate('linear'); b = nn.Linear(2, 2)",
                 ["a", "b.full_name()", "names(b)"]),
}

OPTIMIZERS = {
    "SGD": "paddle.optimizer.SGD(0.1, parameters=net.parameters())",
    "Momentum": "paddle.optimizer.Momentum(0.1, parameters=net.parameters())",
    "Adam": "paddle.optimizer.Adam(0.1, parameters=net.parameters())",
    "AdamW": "paddle.optimizer.AdamW(0.1, parameters=net.parameters())",
    "Adam_second": "paddle.optimizer.Adam(0.1, parameters=net.parameters())",
}
NET = "nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))"


def _namespace():
    space = {"nn": nn, "paddle": paddle, "unique_name": unique_name}
    exec(SETUP, space)  # noqa: S102 - the fixture's own code
    return space


def layer_cases() -> list:
    space, out = _namespace(), []
    with unique_name.guard():
        for expr in LAYERS:
            layer = eval(expr, space)  # noqa: S307
            out.append({"expr": expr, "layers": space["layer_names"](layer),
                        "params": space["names"](layer)})
    return out


def scenarios() -> dict:
    out = {}
    for key, (code, exprs) in SCENARIOS.items():
        space = _namespace()
        with unique_name.guard():
            exec(code, space)  # noqa: S102
            out[key] = {"code": code, "names": [[e, eval(e, space)] for e in exprs]}  # noqa: S307
    return out


def optimizer_keys() -> dict:
    """{optimizer: its state_dict keys after one step}; ``Adam_second`` is a second Adam over
    the same parameters in the same guard (its accumulators count on: ``_1``)."""
    out = {}
    x = paddle.ones([2, 3])
    for key, expr in OPTIMIZERS.items():
        with unique_name.guard():
            net = eval(NET, {"nn": nn})  # noqa: S307
            if key == "Adam_second":
                first = eval(expr, {"paddle": paddle, "net": net})  # noqa: S307
                net(x).sum().backward()
                first.step()
            opt = eval(expr, {"paddle": paddle, "net": net})  # noqa: S307
            net(x).sum().backward()
            opt.step()
            out[key] = {"expr": expr, "keys": list(opt.state_dict())}
    return out


def adam_resume() -> dict:
    """Three Adam steps on NET, saved; then two more, recorded (the test resumes core)."""
    rng = np.random.default_rng(18)
    data = {f"x{i}": rng.standard_normal((5, 3)).astype("float32") for i in range(5)}
    data.update({f"y{i}": rng.standard_normal((5, 2)).astype("float32") for i in range(5)})
    with unique_name.guard():
        paddle.seed(18)
        net = eval(NET, {"nn": nn})  # noqa: S307
        opt = paddle.optimizer.Adam(0.05, parameters=net.parameters())

        def step(i):
            out = net(paddle.to_tensor(data[f"x{i}"]))
            ((out - paddle.to_tensor(data[f"y{i}"])) ** 2).mean().backward()
            opt.step()
            opt.clear_grad()

        for i in range(3):
            step(i)
        paddle.save(opt.state_dict(), os.path.join(OUT, "param_names_adam.pdopt"))
        data.update({f"saved/{k}": v.numpy() for k, v in net.state_dict().items()})
        for i in (3, 4):
            step(i)
            data.update({f"step{i}/{k}": v.numpy() for k, v in net.state_dict().items()})
        keys = {k: v.name for k, v in net.state_dict().items()}
    np.savez_compressed(os.path.join(OUT, "param_names_adam.npz"), **data)
    return {"net": NET, "lr": 0.05, "names": keys}


def main() -> None:
    os.makedirs(OUT, exist_ok=True)
    result = {"paddle": paddle.__version__, "setup": SETUP, "layers": layer_cases(),
              "scenarios": scenarios(), "optimizers": optimizer_keys(),
              "adam_resume": adam_resume()}
    with open(os.path.join(OUT, "param_names.json"), "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
