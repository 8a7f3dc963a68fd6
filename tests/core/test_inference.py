"""core.inference.Inference: several layers' outputs, flatten_result, eval mode, errors."""
import numpy as np
import pytest

import core
from core import nn
from core.inference import Inference


class Rows(nn.Layer):
    """Turns [N, C, H, W] into [N * C, H * W]: more rows than samples, like a sequence layer."""

    def forward(self, x):
        return x.reshape([-1, x.shape[2] * x.shape[3]])


def _model():
    core.seed(0)
    return nn.Sequential(("conv", nn.Conv2D(1, 3, 3, padding=1)), ("act", nn.ReLU()),
                         ("drop", nn.Dropout(0.5)), ("flatten", nn.Flatten()),
                         ("fc", nn.Linear(3 * 4 * 4, 5)))


def _images(n=7):
    return np.random.default_rng(1).random((n, 1, 4, 4)).astype(np.float32)


def test_outputs_of_several_layers_by_name_in_eval_mode():
    model, x = _model(), _images()
    out = Inference(model, output_layer=["conv", "fc", "softmax"]).infer(x)
    assert list(out) == ["conv", "fc", "softmax"]
    assert model.training  # the mode is restored
    model.eval()
    with core.no_grad():
        conv = model["conv"](core.to_tensor(x)).numpy()
        logits = model(core.to_tensor(x)).numpy()
    np.testing.assert_allclose(out["conv"], conv, rtol=1e-6)
    np.testing.assert_allclose(out["fc"], logits, rtol=1e-6)  # no dropout at inference
    np.testing.assert_allclose(out["softmax"].sum(axis=1), 1.0, rtol=1e-6)
    assert np.array_equal(out["softmax"].argmax(1), logits.argmax(1))


def test_batches_give_what_one_pass_gives_and_float64_input_is_cast():
    model, x = _model(), _images(10)
    whole = Inference(model, ["fc"]).infer(x)["fc"]
    chunked = Inference(model, ["fc"]).infer(x.astype(np.float64), batch_size=3)["fc"]
    assert chunked.dtype == np.float32
    np.testing.assert_allclose(chunked, whole, rtol=1e-6)


def test_flatten_result_concatenates_side_by_side():
    out = Inference(_model(), ["conv", "fc"]).infer(_images(), flatten_result=True)
    assert out.shape == (7, 3 * 4 * 4 + 5)


def test_flatten_result_with_different_row_counts_explains_and_suggests_the_fix():
    model = nn.Sequential(("conv", nn.Conv2D(1, 3, 3, padding=1)), ("rows", Rows()))
    inference = Inference(model, ["conv", "rows"])
    separate = inference.infer(_images())
    assert separate["rows"].shape == (21, 16) and separate["conv"].shape == (7, 3, 4, 4)
    with pytest.raises(ValueError, match=r"conv: 7, rows: 21.*flatten_result=False"):
        inference.infer(_images(), flatten_result=True)


def test_unknown_layers_and_empty_requests_are_refused():
    with pytest.raises(ValueError, match=r"\['nope'\] are not layers.*conv, act"):
        Inference(_model(), ["nope"])
    with pytest.raises(ValueError, match="output_layer is empty"):
        Inference(_model(), [])


class Stack(nn.Layer):
    """Its blocks sit in a LayerList (a container that never runs itself); ``spare`` never runs."""

    def __init__(self):
        super().__init__()
        self.blocks = nn.LayerList([nn.Flatten(), nn.Linear(16, 4)])
        self.spare = nn.ReLU()

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


def test_a_container_is_not_readable_and_a_layer_that_never_runs_is_a_clear_error():
    model = Stack()
    assert list(model.output_layers()) == ["blocks.0", "blocks.1", "spare"]
    with pytest.raises(ValueError, match=r"\['blocks'\] are not layers.*blocks\.0, blocks\.1"):
        Inference(model, ["blocks"])
    assert Inference(model, ["blocks.1"]).infer(_images())["blocks.1"].shape == (7, 4)
    with pytest.raises(ValueError, match=r"\['spare'\] did not run in the model's forward"):
        Inference(model, ["spare"]).infer(_images())


def test_a_recurrent_layer_gives_its_per_step_outputs():
    """GRU and LSTM return (outputs, final states); reading them gives the per-step outputs."""
    class Seq(nn.Layer):
        def __init__(self):
            super().__init__()
            self.rnn = nn.LSTM(3, 4)
            self.fc = nn.Linear(4, 2)

        def forward(self, x):
            outputs, _ = self.rnn(x)
            return self.fc(outputs[:, -1])

    core.seed(0)
    model = Seq()
    x = np.random.default_rng(0).standard_normal((5, 6, 3)).astype("float32")
    got = Inference(model, ["rnn", "output"]).infer(x)
    model.eval()
    with core.no_grad():
        want, _ = model.rnn(core.to_tensor(x))
    np.testing.assert_allclose(got["rnn"], want.numpy(), rtol=1e-6)
    assert got["output"].shape == (5, 2)
