"""paddle.sparse.nn (core/sparse/nn/): relu, relu6, leaky_relu and softmax of COO and CSR
tensors and their layers, against the dense activations and torch.sparse.softmax, with float64
finite-difference gradients; and a small GCN layer, relu(sparse_adj @ (x @ W)), trained a few
steps with its gradients (weights and edge values) matching torch's."""
import numpy as np
import pytest

import core as paddle
from tests.gradcheck import check_grad

rng = np.random.default_rng(7)

IDX = [[0, 0, 1, 2, 2, 2], [1, 3, 2, 0, 1, 3]]
SHAPE = [3, 4]


def coo(values, indices=IDX, shape=SHAPE):
    return paddle.sparse.sparse_coo_tensor(indices, values, shape)


@pytest.mark.parametrize(("name", "layer", "dense"), [
    ("relu", paddle.sparse.nn.ReLU(), lambda a: np.maximum(a, 0)),
    ("relu6", paddle.sparse.nn.ReLU6(), lambda a: np.clip(a, 0, 6)),
    ("leaky_relu", paddle.sparse.nn.LeakyReLU(0.2), lambda a: np.where(a >= 0, a, 0.2 * a)),
])
@pytest.mark.parametrize("layout", ["coo", "csr"])
def test_activations(name, layer, dense, layout):
    values = rng.normal(size=6) * 4
    x = coo(values) if layout == "coo" else coo(values).to_sparse_csr()
    fn = getattr(paddle.sparse.nn.functional, name)
    out = fn(x, 0.2) if name == "leaky_relu" else fn(x)
    assert out.is_sparse_csr() == (layout == "csr")
    np.testing.assert_allclose(out.values().numpy(), dense(x.values().numpy()))
    np.testing.assert_allclose(layer(x).to_dense().numpy(), dense(x.to_dense().numpy()))
    check_grad(lambda v: layer(coo(v)).to_dense(), values)


def test_relu_docstring_example():
    dense_x = paddle.to_tensor([-2., 0., 1.])
    out = paddle.sparse.nn.functional.relu(dense_x.to_sparse_coo(1))
    np.testing.assert_array_equal(out.to_dense().numpy(), [0., 0., 1.])
    out = paddle.sparse.nn.ReLU()(dense_x.to_sparse_coo(1))
    np.testing.assert_array_equal(out.values().numpy(), [0., 1.])


def test_softmax_docstring_example_csr():
    # Paddle's example: a random CSR matrix; each row's stored entries get their softmax.
    np.random.seed(2022)
    mask = np.random.rand(3, 4) < 0.5
    x = np.random.rand(3, 4) * mask
    csr = paddle.to_tensor(x).to_sparse_csr()
    out = paddle.sparse.nn.Softmax()(csr)
    assert out.is_sparse_csr()
    np.testing.assert_array_equal(out.crows().numpy(), csr.crows().numpy())
    dense = out.to_dense().numpy()
    want = np.zeros_like(x)
    for r in range(3):
        keep = x[r] != 0
        if keep.any():
            e = np.exp(x[r, keep] - x[r, keep].max())
            want[r, keep] = e / e.sum()
    np.testing.assert_allclose(dense, want, rtol=1e-12)


def test_softmax_matches_torch_sparse_softmax():
    torch = pytest.importorskip("torch")
    values = rng.normal(size=6) * 3
    x = paddle.sparse.sparse_coo_tensor(IDX, values, SHAPE, stop_gradient=False)
    out = paddle.sparse.nn.functional.softmax(x)
    weights = np.arange(1., 7.)
    (out.values() * paddle.to_tensor(weights)).sum().backward()
    t = torch.sparse_coo_tensor(torch.tensor(IDX), torch.tensor(values), SHAPE,
                                requires_grad=True, check_invariants=True)
    tout = torch.sparse.softmax(t, dim=1)
    (tout.coalesce().values() * torch.tensor(weights)).sum().backward()
    np.testing.assert_allclose(out.values().numpy(), tout.coalesce().values().detach().numpy())
    np.testing.assert_allclose(x.grad.values().numpy(), t.grad.coalesce().values().numpy())


def test_softmax_gradients_batched_and_hybrid():
    idx3 = [[0, 0, 1, 1, 1], [0, 0, 1, 1, 0], [0, 2, 1, 2, 1]]
    check_grad(lambda v: paddle.sparse.nn.functional.softmax(
        paddle.sparse.sparse_coo_tensor(idx3, v, [2, 2, 3])).to_dense(), rng.normal(size=5))
    check_grad(lambda v: paddle.sparse.nn.functional.softmax(
        paddle.sparse.sparse_coo_tensor([[0, 2]], v, [3, 4])).to_dense(),
        rng.normal(size=(2, 4)))
    big = coo(np.array([1000., 1001., 5., -1000., 0., 1.]))  # stable for large values
    assert np.isfinite(paddle.sparse.nn.functional.softmax(big).values().numpy()).all()


def test_softmax_and_activation_errors():
    with pytest.raises(ValueError, match="only axis=-1 is supported \\(as in Paddle\\), got "
                                         "axis=0"):
        paddle.sparse.nn.functional.softmax(coo(np.ones(6)), axis=0)
    with pytest.raises(TypeError, match="sparse.nn.functional.relu: x must be a sparse tensor"):
        paddle.sparse.nn.functional.relu(paddle.ones([2]))


# ----- a GCN layer, trained ------------------------------------------------------------------

class GCN(paddle.nn.Layer):
    """relu(adj @ (x @ W + b)) with a sparse adjacency."""

    def __init__(self, weight, bias):
        super().__init__()
        self.linear = paddle.nn.Linear(*weight.shape)
        self.linear.weight.set_value(weight)
        self.linear.bias.set_value(bias)

    def forward(self, adj, x):
        return paddle.nn.functional.relu(paddle.sparse.matmul(adj, self.linear(x)))


def _graph():
    edges = np.array([[0, 1, 1, 2, 2, 3, 4, 5, 0, 3], [1, 0, 2, 1, 3, 2, 5, 4, 0, 3]])
    degree = np.bincount(edges[0], minlength=6).astype(np.float64)
    weights = 1 / np.sqrt(degree[edges[0]] * degree[edges[1]])
    return edges, weights


def test_gcn_layer_trains_like_torch():
    torch = pytest.importorskip("torch")
    edges, edge_weights = _graph()
    x, target = rng.normal(size=(6, 4)), rng.normal(size=(6, 3))
    w0, b0 = rng.normal(size=(4, 3)) * 0.5, rng.normal(size=3) * 0.1
    paddle.set_default_dtype("float64")
    try:
        model = GCN(w0, b0)
    finally:
        paddle.set_default_dtype("float32")
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
    tw = torch.tensor(w0, requires_grad=True)
    tb = torch.tensor(b0, requires_grad=True)
    topt = torch.optim.SGD([tw, tb], lr=0.1)
    losses = []
    for step in range(4):
        adj = paddle.sparse.sparse_coo_tensor(edges, edge_weights, [6, 6],
                                              stop_gradient=step != 0)
        out = model(adj, paddle.to_tensor(x))
        loss = ((out - paddle.to_tensor(target)) ** 2).mean()
        loss.backward()
        tadj = torch.sparse_coo_tensor(torch.tensor(edges), torch.tensor(edge_weights), (6, 6),
                                       requires_grad=step == 0, check_invariants=True)
        tout = torch.relu(torch.sparse.mm(tadj, torch.tensor(x) @ tw + tb))
        tloss = ((tout - torch.tensor(target)) ** 2).mean()
        tloss.backward()
        np.testing.assert_allclose(float(loss), tloss.item(), rtol=1e-12)
        np.testing.assert_allclose(model.linear.weight.grad.numpy(), tw.grad.numpy(),
                                   rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(model.linear.bias.grad.numpy(), tb.grad.numpy(),
                                   rtol=1e-10, atol=1e-12)
        if step == 0:  # the edge weights' gradient, per edge
            want = tadj.grad.coalesce().to_dense().numpy()[tuple(edges)]
            np.testing.assert_allclose(adj.grad.values().numpy(), want, rtol=1e-10, atol=1e-12)
        opt.step()
        opt.clear_grad()
        topt.step()
        topt.zero_grad()
        losses.append(float(loss))
    assert losses[-1] < losses[0]
    np.testing.assert_allclose(model.linear.weight.numpy(), tw.detach().numpy(), rtol=1e-10)
