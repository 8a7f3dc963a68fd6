"""core.summary (paddle.summary): the layer table of one sample, the parameter counts, errors."""
import numpy as np
import pytest

import core
from core import nn
from core.static import InputSpec


def _net():
    core.seed(0)
    return nn.Sequential(("conv", nn.Conv2D(1, 6, 3, padding=1)), ("bn", nn.BatchNorm2D(6)),
                         ("act", nn.ReLU()), ("pool", nn.MaxPool2D(2)), ("flat", nn.Flatten()),
                         ("fc", nn.Linear(6 * 14 * 14, 10)))


def test_summary_prints_each_layer_and_returns_the_parameter_counts(capsys):
    net = _net()
    for param in net["conv"].parameters():  # frozen: counted, but not as trainable
        param.stop_gradient = True
    counts = core.summary(net, (1, 1, 28, 28))  # BatchNorm's running statistics count too,
    assert counts == {"total_params": 60 + 24 + 11_770,  # non-trainable (Paddle's parameters)
                      "trainable_params": 12 + 11_770}
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines()[2:8]}
    assert rows["conv"][:5] == ["Conv2D", "[6,", "28,", "28]", "60"]
    assert rows["bn"][:5] == ["BatchNorm2D", "[6,", "28,", "28]", "24"]
    assert rows["fc"][:3] == ["Linear", "[10]", "11,770"]
    assert "Total params: 11,854\nTrainable params: 11,782\nNon-trainable params: 72" in out
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
    ({"input_size": [(1, 3), (1, 4)], "dtypes": ["float32"]}, "one dtype per input"),
    ({"input_size": [(1, 3), "x"]}, "one input's shape"),
    ({"input_size": [(1, 3), (1, 1.5)]}, "each input's shape"),
    ({"input_size": [(1, 3), (1, 0)]}, "positive sizes"),
    ({"input_size": (28,)}, "needs a batch axis first"),
    ({"input_size": (1, 0, 28, 28)}, "positive sizes"),
])
def test_bad_input_sizes_are_clear_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        core.summary(_net(), **kwargs)


class ImageAndFeatures(nn.Layer):
    """forward(image, features, ids): three inputs of different shapes and dtypes."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(1, 2, 3, padding=1)
        self.flat = nn.Flatten()
        self.dense = nn.Linear(4, 3)
        self.embed = nn.Embedding(10, 3)
        self.head = nn.Linear(2 * 8 * 8 + 3 + 3, 2)

    def forward(self, image, features, ids=None):
        parts = [self.flat(self.conv(image)), self.dense(features)]
        if ids is not None:
            assert ids.dtype == np.int64
            parts.append(self.embed(ids).sum(axis=1))
        else:
            parts.append(core.zeros([image.shape[0], 3]))
        return self.head(core.concat(parts, axis=1))


def test_several_inputs_by_shapes_dtypes_or_example_tensors(capsys):
    core.seed(0)
    net = ImageAndFeatures()
    total = 20 + 15 + 30 + (128 + 6) * 2 + 2
    counts = core.summary(net, input_size=[(1, 1, 8, 8), (1, 4), (1, 5)],
                          dtypes=["float32", "float32", "int64"])
    assert counts == {"total_params": total, "trainable_params": total}
    table = capsys.readouterr().out
    rows = {line.split()[0]: line.split()[1:] for line in table.splitlines()[2:7]}
    assert rows["conv"][:5] == ["Conv2D", "[2,", "8,", "8]", "20"]
    assert rows["dense"][:3] == ["Linear", "[3]", "15"]
    assert rows["embed"][:4] == ["Embedding", "[5,", "3]", "30"]
    assert rows["head"][:3] == ["Linear", "[2]", "270"]
    # the same from example tensors (any batch size) and from InputSpecs
    examples = [core.zeros([3, 1, 8, 8]), core.zeros([3, 4]),
                core.to_tensor(np.zeros((3, 5), np.int64))]
    assert core.summary(net, input=examples) == counts
    assert capsys.readouterr().out == table
    specs = [InputSpec([None, 1, 8, 8]), InputSpec([None, 4]), InputSpec([None, 5], "int64")]
    assert core.summary(net, specs) == counts
    assert capsys.readouterr().out == table
    # two of the three inputs, one dtype for both
    core.summary(net, [(1, 1, 8, 8), (-1, 4)], dtypes="float32")
    rows = {line.split()[0]: line.split()[1:] for line in capsys.readouterr().out.splitlines()}
    assert rows["embed"][:2] == ["Embedding", "-"]  # not run: no output shape


def test_one_input_given_as_a_list_or_an_input_spec(capsys):
    net = _net()
    first = core.summary(net, (1, 1, 28, 28))
    table = capsys.readouterr().out
    assert core.summary(net, [1, 1, 28, 28], dtypes=["float32"]) == first
    assert capsys.readouterr().out == table
    assert core.summary(net, [(1, 1, 28, 28)]) == first
    assert capsys.readouterr().out == table
    assert core.summary(net, InputSpec([None, 1, 28, 28])) == first
    assert capsys.readouterr().out == table


def test_a_network_that_is_one_layer_has_its_own_row_and_dtypes_are_kept(capsys):
    info = core.summary(core.nn.Linear(4, 2), (1, 4))
    table = capsys.readouterr().out
    assert "Linear" in table and info["total_params"] == 10
    seen = []

    class Probe(core.nn.Layer):
        def forward(self, x):
            seen.append(x.dtype)
            return x

    net = core.nn.Sequential(Probe())
    core.summary(net, (1, 3), dtypes="float64")
    core.summary(net, (1, 3), dtypes="int32")
    assert seen == [np.dtype("float64"), np.dtype("int32")]


def _flops_column(table: str, kind: str) -> str:
    row = next(line for line in table.splitlines() if f" {kind} " in line)
    return row.split()[-1]


def test_recurrent_flops_count_the_steps_a_sample_takes(capsys):
    # GRU(3, 4): 12x3 + 12x4 weights, each a multiply-add per step.
    per_step = 2 * (12 * 3 + 12 * 4)
    core.summary(core.nn.GRU(3, 4), (1, 5, 3))
    assert _flops_column(capsys.readouterr().out, "GRU") == str(5 * per_step)
    core.summary(core.nn.GRUCell(3, 4), (1, 3))  # a cell takes one step, whatever its width
    assert _flops_column(capsys.readouterr().out, "GRUCell") == str(per_step)


def test_bilinear_flops_count_every_weight_once_per_sample(capsys):
    class Pair(core.nn.Layer):
        def __init__(self):
            super().__init__()
            self.bil = core.nn.Bilinear(100, 50, 20)

        def forward(self, x):
            return self.bil(x, x[:, :50])

    core.summary(Pair(), (1, 100))
    assert _flops_column(capsys.readouterr().out, "Bilinear") == f"{2 * 20 * 100 * 50 / 1e3:.2f}k"
