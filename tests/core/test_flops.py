"""core.flops: Paddle's paddle.flops, counted by Paddle's rules (hapi/dynamic_flops.py)."""
from __future__ import annotations

import pytest

import core as paddle
from core import nn


def test_lenet_matches_paddles_documented_count(capsys):
    """Paddle's docs: paddle.flops(LeNet(), [1, 1, 28, 28]) prints 'Total Flops: 347560
    Total Params: 61610' (the same LeNet as core.vision.models.LeNet)."""
    net = paddle.vision.models.LeNet()
    assert paddle.flops(net, [1, 1, 28, 28]) == 347560
    out = capsys.readouterr().out
    assert "Total Flops: 347560     Total Params: 61610" in out
    assert "'s flops has been counted" in out and "Layer Name" not in out
    assert "Cannot find suitable count function for <class 'core.nn.pooling.MaxPool2D'>" in out


def test_print_detail_prints_paddles_per_layer_table(capsys):
    paddle.flops(paddle.vision.models.LeNet(), [1, 1, 28, 28], print_detail=True)
    lines = capsys.readouterr().out.splitlines()
    header = next(i for i, line in enumerate(lines) if "Layer Name" in line)
    assert [c.strip() for c in lines[header].split("|")[1:-1]] == [
        "Layer Name", "Input Shape", "Output Shape", "Params", "Flops"]
    rows = [[c.strip() for c in line.split("|")[1:-1]] for line in lines[header + 2:]
            if line.startswith("|")]
    assert rows[0] == ["features.0", "[1, 1, 28, 28]", "[1, 6, 28, 28]", "60", "47040"]
    assert rows[3] == ["features.3", "[1, 6, 14, 14]", "[1, 16, 10, 10]", "2416", "241600"]
    assert rows[-1] == ["fc.2", "[1, 84]", "[1, 10]", "850", "840"]


def test_hand_counted_layers():
    """Each rule: grouped conv without bias = outputs * (in/groups * kernel); BatchNorm2D = two
    per input value; AvgPool = one per output; AdaptiveAvgPool = (window + 1) per output;
    LeakyReLU = one per input value; Linear = in_features per output (no bias term)."""
    net = nn.Sequential(
        nn.Conv2D(4, 6, 3, padding=1, groups=2, bias_attr=False),  # 6*8*8 * (2*9) = 6912
        nn.BatchNorm2D(6),                                           # 2 * 384 = 768
        nn.AvgPool2D(2),                                             # 6*4*4 = 96
        nn.AdaptiveAvgPool2D(2),                                     # (2*2 + 1) * 24 = 120
        nn.LeakyReLU(),                                              # 24
        nn.Flatten(),                                                # 0 (no counter)
        nn.Linear(24, 5),                                            # 24 * 5 = 120
        nn.Dropout(0.5),                                             # 0
    )
    assert paddle.flops(net, [1, 4, 8, 8]) == 6912 + 768 + 96 + 120 + 24 + 120


def test_conv1d_with_bias_and_transposed_conv():
    conv = nn.Sequential(nn.Conv1D(3, 2, 3))  # out [1, 2, 8]: 16 * (3*3 + 1)
    assert paddle.flops(conv, [1, 3, 10]) == 160
    up = nn.Sequential(nn.Conv2DTranspose(2, 3, 2, stride=2))  # out [1,3,8,8]: 192 * (2*4+1)
    assert paddle.flops(up, [1, 2, 4, 4]) == 192 * 9


def test_a_net_that_is_one_layer_counts_itself():
    """Paddle counts sublayers only (so 0 here); core counts the layer (documented)."""
    assert paddle.flops(nn.Linear(4, 3), [1, 4]) == 12


def test_custom_ops_replace_and_add_counters(capsys):
    def count_relu(layer, inputs, output):
        layer.total_ops += int(output.numel())

    def count_linear_with_bias(layer, inputs, output):
        layer.total_ops += paddle.to_tensor([2 * int(output.numel()) * layer.weight.shape[0]])

    net = nn.Sequential(nn.Linear(4, 3), nn.ReLU())
    total = paddle.flops(net, [1, 4], custom_ops={nn.ReLU: count_relu,
                                                  nn.Linear: count_linear_with_bias})
    assert total == 24 + 3
    assert "Customize Function has been applied to <class 'core.nn.activation.ReLU'>" in \
        capsys.readouterr().out


def test_the_net_is_left_as_it_was():
    net = paddle.vision.models.LeNet()
    net.train()
    paddle.flops(net, [1, 1, 28, 28])
    assert net.training and not any(hasattr(layer, "total_ops") for layer in net.sublayers())
    assert not any(layer._forward_post_hooks for layer in net.sublayers())
    net.eval()
    paddle.flops(net, [1, 1, 28, 28])
    assert not net.training


def test_layers_that_do_not_run_are_not_counted():
    class Skips(nn.Layer):
        def __init__(self):
            super().__init__()
            self.used, self.unused = nn.Linear(2, 2), nn.Linear(2, 100)

        def forward(self, x):
            return self.used(x)

    assert paddle.flops(Skips(), [1, 2]) == 4


def test_bad_arguments():
    with pytest.raises(TypeError, match="flops: net must be a core.nn.Layer, got str"):
        paddle.flops("net", [1, 2])
    with pytest.raises(ValueError, match=r"flops: input_size=\[1, 0\] must be the input's "
                                         "shape"):
        paddle.flops(nn.Linear(2, 2), [1, 0])
    with pytest.raises(ValueError, match="input_size='1, 2'"):
        paddle.flops(nn.Linear(2, 2), "1, 2")
    with pytest.raises(TypeError, match=r"custom_ops must be a dict \{Layer type: fn"):
        paddle.flops(nn.Linear(2, 2), [1, 2], custom_ops={"Linear": print})


def test_runs_on_the_current_device(device):
    assert paddle.flops(paddle.vision.models.LeNet(), [1, 1, 28, 28]) == 347560
