"""Produce the Paddle 3.3.1 fixtures in this folder; run with a Python that has real Paddle:

    /tmp/pdvenv/bin/python tests/core/data/paddle331/make_fixtures.py [zoo_dir [zoo64_dir]]

Not collected by pytest (its name does not match ``test_*.py``) and never imported by the tests:
the project does not depend on Paddle. It writes

* ``checkpoints/*.pdparams|.pdopt`` and ``checkpoints/expected.npz``: real ``paddle.save`` files
  and the arrays they hold, saved with numpy beside them (tests/core/test_io_paddle_real.py);
* ``model_keys.json.gz``: every paddle.vision.models constructor's state_dict name -> shape
  (tests/core/vision/test_models_paddle_keys.py);
* ``lenet.pdparams.gz`` + ``lenet_io.npz``: a seeded LeNet's weights (gzip: the pickle is 250 KB
  raw), its input and its eval output;
* with ``zoo_dir``: for the main architectures, a seeded model's weights, input and eval /
  train outputs there (too big to commit; compared by hand, see the session report); with
  ``zoo64_dir`` too, the same in float64.
"""
from __future__ import annotations

import gzip
import json
import os
import shutil
import sys

import numpy as np
import paddle
from paddle.vision import models

HERE = os.path.dirname(os.path.abspath(__file__))
CKPT = os.path.join(HERE, "checkpoints")

# constructor name -> kwargs: every factory in paddle.vision.models, VGGs also with batch norm
KEY_MODELS = {name: {} for name in models.__all__ if name[0].islower()}
KEY_MODELS.update({f"{n}_bn": {"batch_norm": True} for n in ("vgg11", "vgg13", "vgg16", "vgg19")})
KEY_MODELS["lenet"] = {}
KEY_MODELS["mobilenet_v2_x0_5"] = {"scale": 0.5}
KEY_MODELS["mobilenet_v3_small_x0_75"] = {"scale": 0.75}
KEY_MODELS["resnet18_no_head"] = {"num_classes": 0, "with_pool": False}
KEY_MODELS["densenet121_c10"] = {"num_classes": 10}

# the architectures whose numerics are compared: name -> (kwargs, input size)
ZOO = {
    "lenet": ({}, (1, 28, 28)),
    "alexnet": ({}, (3, 224, 224)),
    "vgg11_bn": ({"batch_norm": True}, (3, 224, 224)),
    "resnet18": ({}, (3, 224, 224)),
    "resnet50": ({}, (3, 224, 224)),
    "wide_resnet50_2": ({}, (3, 224, 224)),
    "resnext50_32x4d": ({}, (3, 224, 224)),
    "mobilenet_v1": ({}, (3, 224, 224)),
    "mobilenet_v2": ({}, (3, 224, 224)),
    "mobilenet_v3_small": ({}, (3, 224, 224)),
    "mobilenet_v3_large": ({}, (3, 224, 224)),
    "shufflenet_v2_x1_0": ({}, (3, 224, 224)),
    "shufflenet_v2_swish": ({}, (3, 224, 224)),
    "squeezenet1_0": ({}, (3, 224, 224)),
    "squeezenet1_1": ({}, (3, 224, 224)),
    "densenet121": ({}, (3, 224, 224)),
    "googlenet": ({}, (3, 224, 224)),
    "inception_v3": ({}, (3, 299, 299)),
}


def build(name: str, kwargs: dict):
    if name == "lenet":
        return models.LeNet(**kwargs)
    factory = name[:-3] if name.endswith("_bn") else name
    for suffix in ("_x0_5", "_x0_75", "_no_head", "_c10"):
        if factory.endswith(suffix) and factory not in models.__all__:
            factory = factory[: -len(suffix)]
    return getattr(models, factory)(pretrained=False, **kwargs)


def model_keys() -> None:
    table = {}
    for name, kwargs in sorted(KEY_MODELS.items()):
        state = build(name, kwargs).state_dict()
        table[name] = {"kwargs": kwargs, "keys": [[k, list(v.shape)] for k, v in state.items()]}
    # gzip: the plain JSON is 670 KB of repeated names, 47 KB compressed
    with gzip.GzipFile(os.path.join(HERE, "model_keys.json.gz"), "wb", mtime=0) as f:
        f.write(json.dumps(table, separators=(",", ":"), sort_keys=True).encode())


def _outputs(model, x) -> list[np.ndarray]:
    out = model(x)
    return [o.numpy() for o in (out if isinstance(out, (tuple, list)) else [out])]


def _no_dropout(model) -> None:
    # train mode with dropout off leaves only batch norm's batch statistics to compare
    for layer in model.sublayers():
        if isinstance(layer, paddle.nn.Dropout):
            layer.p = 0.0


def zoo(out_dir: str, dtype: str = "float32", names=None) -> None:
    """With ``dtype="float64"`` the models are built and run in float64: agreement to ~1e-12
    then rules out a formula difference hiding under float32 rounding."""
    os.makedirs(out_dir, exist_ok=True)
    paddle.set_default_dtype(dtype)
    for name, (kwargs, size) in ZOO.items():
        if names is not None and name not in names:
            continue
        paddle.seed(17)
        model = build(name, kwargs)
        x = np.random.default_rng(17).standard_normal((2, *size)).astype(dtype)
        model.eval()
        eval_out = _outputs(model, paddle.to_tensor(x))
        paddle.save(model.state_dict(), os.path.join(out_dir, f"{name}.pdparams"))
        model.train()
        _no_dropout(model)
        train_out = _outputs(model, paddle.to_tensor(x))
        arrays = {"x": x}
        arrays.update({f"eval{i}": o for i, o in enumerate(eval_out)})
        arrays.update({f"train{i}": o for i, o in enumerate(train_out)})
        np.savez(os.path.join(out_dir, f"{name}_io.npz"), **arrays)
        print(name, [o.shape for o in eval_out], flush=True)


def lenet_fixture() -> None:
    paddle.seed(17)
    model = models.LeNet()
    model.eval()
    # weights rounded to multiples of 1/64 so that the gzipped pickle stays small (~40 KB)
    for param in model.parameters():
        param.set_value(paddle.round(param * 64) / 64)
    x = np.random.default_rng(17).standard_normal((2, 1, 28, 28)).astype(np.float32)
    out = model(paddle.to_tensor(x)).numpy()
    raw = os.path.join(HERE, "lenet.pdparams")
    paddle.save(model.state_dict(), raw)
    with open(raw, "rb") as src, gzip.GzipFile(raw + ".gz", "wb", mtime=0) as dst:
        shutil.copyfileobj(src, dst)
    os.remove(raw)
    np.savez_compressed(os.path.join(HERE, "lenet_io.npz"), x=x, eval0=out)


class Layers(paddle.nn.Layer):
    """One of each layer whose state dict core must read: the keys are its attribute names."""

    def __init__(self):
        super().__init__()
        self.linear = paddle.nn.Linear(4, 3)
        self.conv = paddle.nn.Conv2D(2, 3, 3, padding=1)
        self.bn = paddle.nn.BatchNorm2D(3)
        self.lstm = paddle.nn.LSTM(4, 3, num_layers=2, direction="bidirect")
        self.gru = paddle.nn.GRU(4, 3)
        self.emb = paddle.nn.Embedding(6, 4, padding_idx=0)
        self.ln = paddle.nn.LayerNorm(4)
        self.mha = paddle.nn.MultiHeadAttention(4, 2)


def _layer_outputs(net: Layers, arrays: dict) -> None:
    """Each layer's eval output on fixed inputs, into ``arrays`` (``out.<layer>``)."""
    rng = np.random.default_rng(3)
    seq = rng.standard_normal((2, 5, 4)).astype(np.float32)
    img = rng.standard_normal((2, 2, 4, 4)).astype(np.float32)
    ids = np.array([[0, 1, 5], [2, 3, 4]], dtype=np.int64)
    arrays.update({"in.seq": seq, "in.img": img, "in.ids": ids})
    net.eval()
    s, i = paddle.to_tensor(seq), paddle.to_tensor(img)
    arrays["out.linear"] = net.linear(s).numpy()
    arrays["out.conv_bn"] = net.bn(net.conv(i)).numpy()
    lstm_out, (h, c) = net.lstm(s)
    arrays.update({"out.lstm": lstm_out.numpy(), "out.lstm_h": h.numpy(), "out.lstm_c": c.numpy()})
    gru_out, h = net.gru(s)
    arrays.update({"out.gru": gru_out.numpy(), "out.gru_h": h.numpy()})
    arrays["out.emb"] = net.emb(paddle.to_tensor(ids)).numpy()
    arrays["out.ln"] = net.ln(s).numpy()
    arrays["out.mha"] = net.mha(s, s, s).numpy()


def layer_checkpoint(arrays: dict) -> None:
    paddle.seed(5)
    net = Layers()
    # a few training-mode batch norm calls, so the running statistics are not their initial 0/1
    for k in range(3):
        net.bn(paddle.randn([4, 3, 2, 2]) * (k + 1) + k)
    for key, param in net.named_parameters():  # nonzero biases and norms, to check them all
        if not key.startswith("bn._"):  # the running statistics are parameters in Paddle
            param.set_value(paddle.randn(param.shape) * 0.5)
    state = net.state_dict()
    paddle.save(state, os.path.join(CKPT, "layers.pdparams"))
    arrays.update({f"layers.{k}": v.numpy() for k, v in state.items()})
    arrays["layers.names"] = np.array([f"{k}={v.name}" for k, v in state.items()])
    _layer_outputs(net, arrays)


def _batches():
    rng = np.random.default_rng(11)
    return [(rng.standard_normal((8, 4)).astype(np.float32),
             rng.standard_normal((8, 3)).astype(np.float32)) for _ in range(4)]


def _train_step(net, opt, batch) -> None:
    x, y = (paddle.to_tensor(a) for a in batch)
    loss = ((net(x) - y) ** 2).mean()
    loss.backward()
    opt.step()
    opt.clear_grad()
    if isinstance(opt._learning_rate, paddle.optimizer.lr.LRScheduler):
        opt._learning_rate.step()


def optimizer_checkpoints(arrays: dict) -> None:
    """Adam and AdamW after three steps with a StepDecay schedule: the .pdparams/.pdopt pair,
    and the parameters after a fourth step (what a resumed run must reproduce)."""
    kinds = {
        "adam": lambda lr, params: paddle.optimizer.Adam(lr, parameters=params),
        "adamw": lambda lr, params: paddle.optimizer.AdamW(lr, parameters=params,
                                                           weight_decay=0.05),
    }
    for kind, make in kinds.items():
        paddle.seed(7)
        net = paddle.nn.Linear(4, 3)
        lr = paddle.optimizer.lr.StepDecay(0.1, step_size=2, gamma=0.5)
        opt = make(lr, net.parameters())
        batches = _batches()
        for batch in batches[:3]:
            _train_step(net, opt, batch)
        paddle.save(net.state_dict(), os.path.join(CKPT, f"{kind}.pdparams"))
        paddle.save(opt.state_dict(), os.path.join(CKPT, f"{kind}.pdopt"))
        arrays[f"{kind}.opt_keys"] = np.array(sorted(opt.state_dict()))
        for key, value in opt.state_dict().items():
            if isinstance(value, paddle.Tensor):
                arrays[f"{kind}.opt.{key}"] = value.numpy()
        arrays[f"{kind}.param_names"] = np.array([p.name for p in net.parameters()])
        arrays[f"{kind}.lr3"] = np.float64(opt.get_lr())
        _train_step(net, opt, batches[3])
        arrays.update({f"{kind}.step4.{k}": v.numpy() for k, v in net.state_dict().items()})
        arrays[f"{kind}.lr4"] = np.float64(opt.get_lr())
    arrays["batches"] = np.stack([np.concatenate([x, y], axis=1) for x, y in _batches()])


def value_checkpoints(arrays: dict) -> None:
    """Tensors of every dtype, 0-D ones, and nested containers with Python scalars."""
    paddle.seed(9)
    f32 = paddle.randn([2, 3])
    typed = {
        "f16": paddle.to_tensor([[0.5, -1.25], [3.0, 65504.0]], dtype="float16"),
        "bf16": paddle.to_tensor([1.0, -2.5, 3.140625], dtype="bfloat16"),
        "i64": paddle.to_tensor([[1, -2], [2**40, 7]], dtype="int64"),
        "flag": paddle.to_tensor([True, False, True]),
        "f64": paddle.to_tensor([1e-300, 2.5], dtype="float64"),
        "i32": paddle.to_tensor([3, 4], dtype="int32"),
        "u8": paddle.to_tensor([0, 255], dtype="uint8"),
        "zero_d": paddle.to_tensor(2.5),
        "zero_d_int": paddle.to_tensor(7, dtype="int64"),
    }
    paddle.save(typed, os.path.join(CKPT, "dtypes.pdparams"))  # all Tensors: a state dict
    for key, value in typed.items():
        arrays[f"dtypes.{key}"] = value.astype("float32").numpy() if key == "bf16" \
            else value.numpy()
        arrays[f"dtypes.{key}.dtype"] = np.array(str(value.dtype))
    nested = {
        "weights": [f32, paddle.arange(4, dtype="int64")],
        "meta": {"epoch": 3, "lr": 0.001, "name": "run-1", "done": False, "none": None,
                 "shape": (2, 3), "zero_d": paddle.to_tensor(1.5)},
        "array": np.arange(3, dtype=np.float32),
    }
    paddle.save(nested, os.path.join(CKPT, "nested.pdparams"))
    arrays["nested.f32"] = f32.numpy()


def model_checkpoint() -> None:
    """``paddle.Model.save``: the network's .pdparams and the optimizer's .pdopt."""
    paddle.seed(13)
    net = paddle.nn.Sequential(paddle.nn.Linear(4, 5), paddle.nn.ReLU(), paddle.nn.Linear(5, 3))
    model = paddle.Model(net)
    model.prepare(paddle.optimizer.Adam(0.01, parameters=net.parameters()),
                  paddle.nn.MSELoss())
    for x, y in _batches()[:2]:
        model.train_batch([x], [y])
    model.save(os.path.join(CKPT, "hapi"))


def jit_checkpoint() -> None:
    """``paddle.jit.save``: what it writes besides the parameters is a program, which core
    does not read; the test checks the error names the file."""
    paddle.seed(15)
    net = paddle.nn.Linear(2, 2)
    spec = [paddle.static.InputSpec([None, 2], "float32", "x")]
    paddle.jit.save(paddle.jit.to_static(net, input_spec=spec), os.path.join(CKPT, "jit", "net"))


def checkpoints() -> None:
    os.makedirs(CKPT, exist_ok=True)
    arrays: dict = {}
    layer_checkpoint(arrays)
    optimizer_checkpoints(arrays)
    value_checkpoints(arrays)
    model_checkpoint()
    jit_checkpoint()
    np.savez_compressed(os.path.join(CKPT, "expected.npz"), **arrays)


if __name__ == "__main__":
    checkpoints()
    model_keys()
    lenet_fixture()
    if len(sys.argv) > 1:
        zoo(sys.argv[1])
    if len(sys.argv) > 2:
        zoo(sys.argv[2], "float64")
