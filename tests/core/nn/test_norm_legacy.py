"""Paddle's older BatchNorm (rank 2-5, act by name, trainable_statistics) and SyncBatchNorm
(one process: BatchNorm; convert_sync_batchnorm): gradients, torch parity, Paddle's running
variance, errors, and a network spec that uses both."""
import numpy as np
import pytest

import core
from core import nn
from core.nn import functional as F
from runner import build
from runner.config import validation
from tests.gradcheck import check_grad

RNG = np.random.default_rng(11)
SHAPES = [(4, 3), (3, 3, 4), (2, 3, 2, 3), (2, 3, 2, 2, 2)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_batchnorm_gradients_every_rank(shape, layout):
    x = RNG.standard_normal(shape if layout == "NCHW" or len(shape) == 2
                            else (shape[0], *shape[2:], shape[1]))
    bn = nn.BatchNorm(3, act="tanh", data_layout=layout, dtype="float64")
    bn.weight.set_value(RNG.uniform(0.5, 1.5, 3))
    check_grad(lambda t: bn(t), x, rtol=1e-4, atol=1e-7)
    bn.eval()
    check_grad(lambda t: bn(t), x)


@pytest.mark.parametrize("shape", SHAPES)
def test_sync_batchnorm_gradients(shape):
    layer = nn.SyncBatchNorm(3)
    layer.to(dtype="float64")
    check_grad(lambda t: layer(t), RNG.standard_normal(shape), rtol=1e-4, atol=1e-7)


@pytest.mark.parametrize("shape", SHAPES)
def test_batchnorm_and_sync_match_torch_in_training(shape):
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal(shape).astype(np.float32)
    for layer in (nn.BatchNorm(3, act="relu"), nn.SyncBatchNorm(3)):
        xt = core.to_tensor(x, stop_gradient=False)
        out = layer(xt)
        tx = torch.tensor(x, requires_grad=True)
        rm, rv = torch.zeros(3), torch.ones(3)
        ref = torch.nn.functional.batch_norm(tx, rm, rv, training=True, momentum=0.1, eps=1e-5)
        if isinstance(layer, nn.BatchNorm):
            ref = torch.relu(ref)
        np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-4, atol=1e-5)
        g = RNG.standard_normal(shape).astype(np.float32)
        out.backward(core.to_tensor(g))
        ref.backward(torch.tensor(g))
        np.testing.assert_allclose(xt.gradient(), tx.grad.numpy(), rtol=1e-3, atol=1e-4)
        # Paddle: the running mean as torch's; the running variance takes the biased one
        np.testing.assert_allclose(layer._mean.numpy(), rm.numpy(), rtol=1e-5, atol=1e-6)
        axes = tuple(i for i in range(len(shape)) if i != 1)
        np.testing.assert_allclose(layer._variance.numpy(), 0.9 + 0.1 * x.var(axis=axes),
                                   rtol=1e-5)


def test_batchnorm_modes_and_paddle_flags():
    x = core.to_tensor(RNG.standard_normal((6, 3, 2)).astype(np.float32) * 2 + 1)
    bn = nn.BatchNorm(3)
    bn.eval()  # running statistics (zeros, ones): nearly the identity, nothing updated
    np.testing.assert_allclose(bn(x).numpy(), x.numpy() / np.sqrt(1 + 1e-5), rtol=1e-6)
    assert not bn._mean.numpy().any()
    stats = nn.BatchNorm(3, trainable_statistics=True)
    stats.eval()  # eval, but the batch statistics normalise and the running ones update
    out = stats(x).numpy()
    np.testing.assert_allclose(out.mean(axis=(0, 2)), 0, atol=1e-5)
    assert stats._mean.numpy().any()
    fixed = nn.BatchNorm(3, use_global_stats=True)  # training, yet the running statistics
    np.testing.assert_allclose(fixed(x).numpy(), x.numpy() / np.sqrt(1 + 1e-5), rtol=1e-6)
    assert not fixed._mean.numpy().any()
    assert sorted(nn.BatchNorm(3).state_dict()) == ["_mean", "_variance", "bias", "weight"]
    assert nn.BatchNorm(3, dtype="float64").weight.dtype == np.float64
    assert nn.BatchNorm(3, param_attr=False, bias_attr=False).weight is None


def test_convert_sync_batchnorm_keeps_weights_and_statistics():
    net = nn.Sequential(nn.Conv2D(2, 3, 3), nn.BatchNorm2D(3), nn.ReLU(),
                        nn.Sequential(nn.Flatten(), nn.Linear(12, 4), nn.BatchNorm1D(4)),
                        nn.BatchNorm(4))
    x = core.to_tensor(RNG.standard_normal((2, 2, 4, 4)).astype(np.float32))
    net(x)  # a training step moves the running statistics
    net.eval()
    before = net(x).numpy()
    bn2d = net[1]
    converted = nn.SyncBatchNorm.convert_sync_batchnorm(net)
    assert converted is net
    assert type(net[1]) is nn.SyncBatchNorm and type(net[3][2]) is nn.SyncBatchNorm
    assert type(net[4]) is nn.BatchNorm  # Paddle leaves its older BatchNorm alone
    assert net[1].weight is bn2d.weight and net[1]._mean is bn2d._mean
    assert not net[1].training
    np.testing.assert_allclose(net(x).numpy(), before, rtol=1e-6)
    single = nn.SyncBatchNorm.convert_sync_batchnorm(nn.BatchNorm1D(4, data_format="NLC"))
    assert type(single) is nn.SyncBatchNorm and single.data_format == "NLC"


def test_bad_arguments_name_themselves():
    with pytest.raises(ValueError, match="act='nope'"):
        nn.BatchNorm(3, act="nope")
    with pytest.raises(ValueError, match="data_format='NCL'"):
        nn.BatchNorm(3, data_layout="NCL")
    with pytest.raises(ValueError, match="dtype='int8'"):
        nn.BatchNorm(3, dtype="int8")
    with pytest.raises(ValueError, match="num_features=0"):
        nn.BatchNorm(0)
    with pytest.raises(ValueError, match="is_test=1"):
        nn.BatchNorm(3, is_test=1)
    with pytest.raises(ValueError, match="num_channels=3"):
        nn.BatchNorm(3)(core.to_tensor(np.zeros((2, 4), np.float32)))
    with pytest.raises(ValueError, match="2 to 5 dimensions"):
        nn.SyncBatchNorm(3)(core.to_tensor(np.zeros((3,), np.float32)))
    with pytest.raises(ValueError, match="momentum=2"):
        nn.SyncBatchNorm(3, momentum=2)
    with pytest.raises(ValueError, match="data_format='XY'"):
        nn.SyncBatchNorm(3, data_format="XY")
    with pytest.raises(TypeError, match="layer must be"):
        nn.SyncBatchNorm.convert_sync_batchnorm("net")
    assert F.relu is not None


def test_network_spec_with_batchnorm_and_sync_batchnorm():
    layers = {"conv": {"type": "Conv2D", "out_channels": 4, "kernel_size": 3, "padding": 1},
              "bn": {"type": "BatchNorm", "act": "relu"},
              "sync": {"type": "SyncBatchNorm"},
              "flat": {"type": "Flatten"}, "head": {"type": "Linear"}}
    spec = validation.group_option("model", {"name": "net", "layers": layers, "blocks": {}})
    model = build.build_model(spec, (1, 6, 6), 5)
    x = core.to_tensor(RNG.random((3, 1, 6, 6), dtype=np.float32))
    out = model(x)
    assert out.shape == [3, 5]
    assert any(isinstance(m, nn.BatchNorm) and m.num_features == 4 for m in model.sublayers())
    assert any(isinstance(m, nn.SyncBatchNorm) for m in model.sublayers())
