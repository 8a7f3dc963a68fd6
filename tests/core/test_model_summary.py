"""core.summary (paddle.summary): the layer table of one sample, the parameter counts, errors."""
import numpy as np
import pytest

import core
from core import nn


def _net():
    core.seed(0)
    return nn.Sequential(("conv", nn.Conv2D(1, 6, 3, padding=1)), ("bn", nn.BatchNorm2D(6)),
                         ("act", nn.ReLU()), ("pool", nn.MaxPool2D(2)), ("flat", nn.Flatten()),
                         ("fc", nn.Linear(6 * 14 * 14, 10)))


def test_summary_prints_each_layer_and_returns_the_parameter_counts(capsys):
    net = _net()
    for param in net["conv"].parameters():  # frozen: counted, but not as trainable
        param.stop_gradient = True
    counts = core.summary(net, (1, 1, 28, 28))
    assert counts == {"total_params": 60 + 12 + 11_770, "trainable_params": 12 + 11_770}
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines()[2:8]}
    assert rows["conv"][:5] == ["Conv2D", "[6,", "28,", "28]", "60"]
    assert rows["bn"][:5] == ["BatchNorm2D", "[6,", "28,", "28]", "12"]
    assert rows["fc"][:3] == ["Linear", "[10]", "11,770"]
    assert "Total params: 11,842\nTrainable params: 11,782\nNon-trainable params: 60" in out
    assert net.training  # the mode is restored


def test_summary_takes_an_example_input_or_any_batch_size(capsys):
    net = _net()
    x = core.to_tensor(np.zeros((5, 1, 28, 28), np.float32))
    first = core.summary(net, input=x)
    table = capsys.readouterr().out
    assert core.summary(net, (-1, 1, 28, 28)) == first
    assert capsys.readouterr().out == table


def test_word_ids_take_an_integer_dtype(capsys):
    net = nn.Sequential(nn.Embedding(50, 8), nn.Flatten(), nn.Linear(4 * 8, 2))
    assert core.summary(net, (1, 4), dtypes="int64")["total_params"] == 50 * 8 + 4 * 8 * 2 + 2
    assert "Embedding" in capsys.readouterr().out


@pytest.mark.parametrize("kwargs, message", [
    ({}, "give input_size"),
    ({"input_size": [(1, 3), (1, 4)]}, "several inputs are not supported"),
    ({"input_size": (28,)}, "needs a batch axis first"),
    ({"input_size": (1, 0, 28, 28)}, "positive sizes"),
])
def test_bad_input_sizes_are_clear_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        core.summary(_net(), **kwargs)
