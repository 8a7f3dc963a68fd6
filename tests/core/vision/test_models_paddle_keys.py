"""Every core.vision.models architecture against paddlepaddle 3.3.1's: state dict names and
shapes, and a seeded LeNet's weights and output.

``model_keys.json.gz`` (tests/core/data/paddle331/, written by make_fixtures.py there with
Paddle installed) holds, for each Paddle constructor (and a few argument variants), Paddle's
``state_dict()`` as ``[name, shape]`` pairs in Paddle's order. Building a model costs no
weights download, so this catches drift in any architecture. Paddle itself is not needed.
"""
from __future__ import annotations

import functools
import gzip
import json
import os
import shutil

import numpy as np
import pytest

import core
from core.vision import models

DATA = os.path.join(os.path.dirname(__file__), os.pardir, "data", "paddle331")
# running statistics: parameters in Paddle's state dict order, buffers in core's
BUFFERS = ("._mean", "._variance")


@functools.lru_cache(maxsize=1)
def paddle_keys() -> dict:
    with gzip.open(os.path.join(DATA, "model_keys.json.gz"), "rt") as f:
        return json.load(f)


def build(name: str, kwargs: dict):
    """The model make_fixtures.py built as ``name``: a factory, with a suffix for a variant."""
    if name == "lenet":
        return models.LeNet(**kwargs)
    factory = name[:-3] if name.endswith("_bn") else name
    for suffix in ("_x0_5", "_x0_75", "_no_head", "_c10"):
        if factory.endswith(suffix) and factory not in models.__all__:
            factory = factory[: -len(suffix)]
    return getattr(models, factory)(pretrained=False, **kwargs)


def test_every_paddle_constructor_is_covered():
    factories = {name for name in models.__all__ if name[0].islower()}
    assert factories <= set(paddle_keys())
    assert len(paddle_keys()) == 47


@pytest.mark.parametrize("name", sorted(paddle_keys()))
def test_state_dict_names_and_shapes_are_paddles(name):
    entry = paddle_keys()[name]
    want = [(key, tuple(shape)) for key, shape in entry["keys"]]
    got = [(key, tuple(value.shape)) for key, value in
           build(name, entry["kwargs"]).state_dict().items()]
    missing = sorted(set(dict(want)) - set(dict(got)))
    unexpected = sorted(set(dict(got)) - set(dict(want)))
    assert (missing, unexpected) == ([], []), f"{name}: missing {missing[:5]}, " \
                                              f"unexpected {unexpected[:5]}"
    wrong = [(key, dict(got)[key], shape) for key, shape in want if dict(got)[key] != shape]
    assert wrong == [], f"{name}: (key, core's shape, Paddle's shape) {wrong[:5]}"
    # the parameters in Paddle's order (core lists a layer's buffers after all parameters)
    assert [k for k, _ in got if not k.endswith(BUFFERS)] == \
        [k for k, _ in want if not k.endswith(BUFFERS)]


def test_lenet_loads_paddles_weights_and_gives_paddles_output(tmp_path):
    # a real paddle.save pickle, gzipped for the repository (weights on a 1/64 grid)
    raw = tmp_path / "lenet.pdparams"
    with gzip.open(os.path.join(DATA, "lenet.pdparams.gz"), "rb") as src, open(raw, "wb") as dst:
        shutil.copyfileobj(src, dst)
    model = models.LeNet()
    assert model.set_state_dict(core.load(raw)) == ([], [])
    model.eval()
    with np.load(os.path.join(DATA, "lenet_io.npz")) as io:
        out = model(core.to_tensor(io["x"]))
        np.testing.assert_allclose(out.numpy(), io["eval0"], rtol=1e-5, atol=1e-5)
