"""numpy batches where Paddle's tutorial has Tensors: core.io.DataLoader yields numpy arrays, and
core's layers and losses take them as core.to_tensor makes them; a layer of your own gets what
it is given."""
import numpy as np
import pytest

import core
from core import nn
from core.io import DataLoader, Dataset
from core.nn import functional as F


class _Digits(Dataset):
    def __init__(self, n=48):
        rng = np.random.default_rng(0)
        self.x = rng.random((n, 1, 8, 8)).astype("float32")
        self.y = rng.integers(0, 10, (n, 1)).astype("int64")

    def __getitem__(self, i):
        return self.x[i], self.y[i]

    def __len__(self):
        return len(self.x)


class _Net(nn.Layer):
    """The tutorial's shape of model: layers called one after another in forward."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(1, 4, 3, padding=1)
        self.pool = nn.MaxPool2D(2, 2)
        self.fc = nn.Linear(4 * 4 * 4, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv(x)))
        return self.fc(core.flatten(x, start_axis=1))


def _train(batches_as_tensors: bool) -> list[float]:
    core.seed(0)
    model = _Net()
    opt = core.optimizer.Adam(learning_rate=0.01, parameters=model.parameters())
    losses = []
    loader = DataLoader(_Digits(), batch_size=16, return_tensors=batches_as_tensors)
    for x_data, y_data in loader():  # the tutorial's loop, as written for Paddle
        loss = F.cross_entropy(model(x_data), y_data)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    return losses


def test_the_tutorial_loop_trains_on_numpy_batches_as_on_tensors():
    numpy_batches = _train(batches_as_tensors=False)
    assert numpy_batches == _train(batches_as_tensors=True)
    assert len(numpy_batches) == 3 and numpy_batches[-1] < numpy_batches[0]


def test_core_layers_take_numpy_arrays_and_give_what_tensors_give():
    core.seed(1)
    x = np.random.default_rng(1).standard_normal((3, 2, 5, 5)).astype(np.float32)
    for layer in (nn.Conv2D(2, 3, 3), nn.BatchNorm2D(2), nn.Sequential(nn.Flatten(),
                                                                       nn.Linear(50, 4))):
        got, want = layer(x), layer(core.to_tensor(x))
        assert isinstance(got, core.Tensor)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    merged = nn.Add()(x, core.to_tensor(x))  # a numpy array beside a Tensor
    np.testing.assert_array_equal(merged.numpy(), 2 * x)


def test_a_float64_array_keeps_its_dtype_and_the_mismatch_is_named():
    with pytest.raises(TypeError, match=r"x \(float64\) and weight \(float32\)"):
        nn.Conv2D(2, 3, 3)(np.zeros((1, 2, 5, 5)))


def test_a_layer_of_your_own_receives_what_it_is_given():
    class Raw(nn.Layer):
        def forward(self, x):
            return type(x)

    assert Raw()(np.zeros(3)) is np.ndarray
    assert Raw()(core.to_tensor(np.zeros(3))) is core.Tensor


@pytest.mark.parametrize("loss, logits, labels", [
    (F.cross_entropy, (4, 3), np.array([[0], [2], [1], [1]])),
    (F.nll_loss, (4, 3), np.array([0, 2, 1, 1])),
    (F.mse_loss, (4, 3), np.ones((4, 3), np.float32)),
    (F.l1_loss, (4, 3), np.ones((4, 3), np.float32)),
    (F.smooth_l1_loss, (4, 3), np.ones((4, 3), np.float32)),
    (F.binary_cross_entropy_with_logits, (4, 3), np.ones((4, 3), np.float32)),
    (F.kl_div, (4, 3), np.full((4, 3), 1 / 3, np.float32)),
    (F.square_error_cost, (4, 3), np.ones((4, 3), np.float32)),
    (F.softmax_with_cross_entropy, (4, 3), np.array([[0], [2], [1], [1]])),
])
def test_losses_take_numpy_labels(loss, logits, labels):
    leaf = core.to_tensor(np.random.default_rng(2).standard_normal(logits).astype(np.float32),
                          stop_gradient=False)
    x = F.log_softmax(leaf) if loss is F.nll_loss else leaf
    got = loss(x, labels)
    np.testing.assert_allclose(got.numpy(), loss(x, core.to_tensor(labels)).numpy(), rtol=1e-6)
    got.backward()  # the graph still reaches the logits
    assert leaf.grad is not None


def test_binary_cross_entropy_takes_numpy_probabilities_and_labels():
    p = np.full((2, 3), 0.25, np.float32)
    y = np.ones((2, 3), np.float32)
    np.testing.assert_allclose(float(F.binary_cross_entropy(p, y)), -np.log(0.25), rtol=1e-6)


_IMAGES = np.ones((2, 3, 4, 4), np.float32)
_FUNCTIONAL_CALLS = {  # every public functional op that takes a Tensor input, with valid arguments
    "relu": (), "sigmoid": (), "softmax": (), "tanh": (), "gelu": (), "elu": (), "silu": (),
    "leaky_relu": (), "relu6": (), "hardswish": (), "log_softmax": (), "dropout": (),
    "softplus": (), "mish": (), "swish": (), "hardsigmoid": (), "hardtanh": (), "softsign": (),
    "tanhshrink": (), "prelu": (np.full(1, 0.25, np.float32),), "label_smooth": (),
    "cosine_similarity": (_IMAGES,),
    "dropout2d": (), "flatten": (), "normalize": (), "instance_norm": (), "layer_norm": ([4],),
    "group_norm": (1,), "pad": ([1, 1, 1, 1],), "max_pool2d": (2,), "avg_pool2d": (2,),
    "adaptive_avg_pool2d": (1,), "adaptive_max_pool2d": (1,),
    "batch_norm": (np.zeros(3, np.float32), np.ones(3, np.float32)),
    "conv2d": (np.ones((3, 3, 1, 1), np.float32),),
    "conv2d_transpose": (np.ones((3, 3, 1, 1), np.float32),),
}


@pytest.mark.parametrize("name", sorted(_FUNCTIONAL_CALLS))
def test_functional_ops_name_a_numpy_input_and_the_fix(name):
    """Functional ops take Tensors, as Paddle's do; a numpy array gets one clear TypeError that
    says to use core.to_tensor, not numpy's "'memoryview' object has no attribute ..."."""
    with pytest.raises(TypeError, match=r"core\.to_tensor") as raised:
        getattr(F, name)(_IMAGES, *_FUNCTIONAL_CALLS[name])
    assert "memoryview" not in str(raised.value)
    assert str(raised.value).startswith(f"{name}: ")  # the op the user called
    as_tensors = [core.to_tensor(a) if isinstance(a, np.ndarray) else a
                  for a in (_IMAGES, *_FUNCTIONAL_CALLS[name])]
    tensor_result = getattr(F, name)(*as_tensors)
    assert isinstance(tensor_result, core.Tensor)  # the same call on a Tensor runs


@pytest.mark.parametrize("call", [
    lambda x: F.linear(x[:, :, 0, 0], core.ones([3, 2])),
    lambda x: F.conv1d(x[0], core.ones([3, 3, 1])),
    lambda x: F.max_pool1d(x[0], 2), lambda x: F.avg_pool1d(x[0], 2),
    lambda x: F.scaled_dot_product_attention(x[0], x[0], x[0]),
    lambda x: core.matmul(x, x), lambda x: core.add(x, x), lambda x: core.exp(x),
    lambda x: core.reshape(x, [-1]), lambda x: core.concat([x, x]),
], ids=["linear", "conv1d", "max_pool1d", "avg_pool1d", "attention", "matmul", "add", "exp",
        "reshape", "concat"])
def test_other_ops_name_a_numpy_input_and_the_fix(call):
    with pytest.raises(TypeError, match=r"core\.to_tensor") as raised:
        call(_IMAGES)
    assert "memoryview" not in str(raised.value)
