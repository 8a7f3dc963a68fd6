"""core.geometric (paddle.geometric): segment reductions, message passing, reindexing and neighbor
sampling — values against plain loops and Paddle's documented examples, torch's scatter_reduce
where it has the same reduction, float64 finite-difference gradients, a small GCN that trains,
and the errors that name the bad argument."""
import subprocess
import sys
import warnings

import numpy as np
import pytest

import core
from core import geometric as G
from tests.gradcheck import check_grad

rng = np.random.default_rng(29)


def t(values, dtype=None, grad=False):
    return core.to_tensor(np.asarray(values), dtype=dtype, stop_gradient=not grad)


# ----- plain-loop references -------------------------------------------------------------------

def ref_reduce(values, ids, rows, op):
    out = np.zeros((rows,) + values.shape[1:], dtype=values.dtype)
    for r in range(rows):
        picked = values[ids == r]
        if not len(picked):
            continue
        if op == "sum":
            out[r] = picked.sum(0)
        elif op == "mean":
            total = picked.sum(0)
            out[r] = total / len(picked) if values.dtype.kind == "f" else \
                np.trunc(total / len(picked))  # C's integer division
        else:
            out[r] = picked.max(0) if op == "max" else picked.min(0)
    return out


def ref_message(a, b, op):
    return {"add": lambda: a + b, "sub": lambda: a - b, "mul": lambda: a * b,
            "div": lambda: a * (1.0 / (b + 1e-12))}[op]()


def padded(x, y):
    """Paddle's reshape_lhs_rhs in numpy: 1-D -> [n, 1], then 1s after the row dimension."""
    x = x.reshape(-1, 1) if x.ndim == 1 else x
    y = y.reshape(-1, 1) if y.ndim == 1 else y
    n = max(x.ndim, y.ndim)
    return (x.reshape(x.shape[:1] + (1,) * (n - x.ndim) + x.shape[1:]),
            y.reshape(y.shape[:1] + (1,) * (n - y.ndim) + y.shape[1:]))


SEGMENTS = {"sum": G.segment_sum, "mean": G.segment_mean, "max": G.segment_max,
            "min": G.segment_min}
REDUCES = ["sum", "mean", "max", "min"]
MESSAGES = ["add", "sub", "mul", "div"]


# ----- Paddle's documented examples ------------------------------------------------------------

def test_paddle_docstring_examples_of_the_segment_ops():
    data = t([[1, 2, 3], [3, 2, 1], [4, 5, 6]], "float32")
    ids = t([0, 0, 1], "int32")
    assert G.segment_sum(data, ids).numpy().tolist() == [[4, 4, 4], [4, 5, 6]]
    assert G.segment_mean(data, ids).numpy().tolist() == [[2, 2, 2], [4, 5, 6]]
    assert G.segment_max(data, ids).numpy().tolist() == [[3, 2, 3], [4, 5, 6]]
    assert G.segment_min(data, ids).numpy().tolist() == [[1, 2, 1], [4, 5, 6]]
    assert G.segment_sum(data, ids).dtype == np.float32
    assert core.geometric.segment_sum is G.segment_sum  # reachable as paddle.geometric.*


def test_paddle_docstring_examples_of_message_passing():
    x = t([[0, 2, 3], [1, 4, 5], [2, 6, 7]], "float32")
    idx = t([[0, 1], [1, 2], [2, 1], [0, 0]], "int32")
    src, dst = idx[:, 0], idx[:, 1]
    assert G.send_u_recv(x, src, dst, reduce_op="sum").numpy().tolist() == \
        [[0, 2, 3], [2, 8, 10], [1, 4, 5]]
    y = t([1, 1, 1, 1], "float32")
    assert G.send_ue_recv(x, y, src, dst, message_op="add", reduce_op="sum").numpy().tolist() \
        == [[1, 3, 4], [4, 10, 12], [2, 5, 6]]
    yv = t([[0, 1, 2], [2, 3, 4], [4, 5, 6]], "float32")
    assert G.send_uv(x, yv, src, dst, message_op="add").numpy().tolist() == \
        [[2, 5, 7], [5, 9, 11], [4, 9, 11], [0, 3, 5]]
    # out_size: max(dst_index) + 1 rows (a Tensor, as Paddle's example passes), else x's rows
    idx = t([[0, 1], [2, 1], [0, 0]], "int32")
    src, dst = idx[:, 0], idx[:, 1]
    out_size = core.max(dst) + 1
    assert G.send_u_recv(x, src, dst, reduce_op="sum", out_size=out_size).numpy().tolist() == \
        [[0, 2, 3], [2, 8, 10]]
    assert G.send_u_recv(x, src, dst, reduce_op="sum").numpy().tolist() == \
        [[0, 2, 3], [2, 8, 10], [0, 0, 0]]
    y = t([1, 1, 1], "float32")
    assert G.send_ue_recv(x, y, src, dst, "add", "sum", out_size=out_size).numpy().tolist() \
        == [[1, 3, 4], [4, 10, 12]]
    assert G.send_ue_recv(x, y, src, dst, "add", "sum").numpy().tolist() == \
        [[1, 3, 4], [4, 10, 12], [0, 0, 0]]


def test_paddle_docstring_examples_of_reindexing():
    x, neighbors, count = t([0, 1, 2], "int64"), t([8, 9, 0, 4, 7, 6, 7], "int64"), \
        t([2, 3, 2], "int32")
    src, dst, nodes = G.reindex_graph(x, neighbors, count)
    assert src.numpy().tolist() == [3, 4, 0, 5, 6, 7, 6]
    assert dst.numpy().tolist() == [0, 0, 1, 1, 1, 2, 2]
    assert nodes.numpy().tolist() == [0, 1, 2, 8, 9, 4, 7, 6]
    assert src.dtype == dst.dtype == nodes.dtype == np.int64
    neighbors_b, count_b = t([0, 2, 3, 5, 1], "int64"), t([1, 3, 1], "int32")
    src, dst, nodes = G.reindex_heter_graph(x, [neighbors, neighbors_b], [count, count_b])
    assert src.numpy().tolist() == [3, 4, 0, 5, 6, 7, 6, 0, 2, 8, 9, 1]
    assert dst.numpy().tolist() == [0, 0, 1, 1, 1, 2, 2, 0, 1, 1, 1, 2]
    assert nodes.numpy().tolist() == [0, 1, 2, 8, 9, 4, 7, 6, 3, 5]


# ----- segments ----------------------------------------------------------------------------------

@pytest.mark.parametrize("op", REDUCES)
def test_segments_match_a_loop_with_gaps_and_feature_dimensions(op):
    ids = np.array([0, 0, 2, 2, 2, 5, 5])  # segments 1, 3 and 4 are empty: 0
    data = rng.normal(size=(7, 2, 3))
    out = SEGMENTS[op](t(data), t(ids))
    assert out.shape == [6, 2, 3]
    np.testing.assert_allclose(out.numpy(), ref_reduce(data, ids, 6, op), rtol=1e-12)
    ints = rng.integers(-9, 9, size=(7, 3)).astype("int32")  # mean truncates toward zero
    got = SEGMENTS[op](t(ints), t(ids, "int32"))
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got.numpy(), ref_reduce(ints, ids, 6, op))


def test_segments_of_1d_data_empty_data_and_extremes():
    np.testing.assert_allclose(G.segment_max(t([-3.0, -1.0, -7.0]), t([1, 1, 1])).numpy(),
                               [0.0, -1.0])  # an empty segment is 0, not -inf
    np.testing.assert_allclose(G.segment_min(t([np.inf, 2.0]), t([0, 0])).numpy(), [2.0])
    empty = G.segment_sum(t(np.zeros((0, 3))), t(np.zeros(0, dtype="int64")))
    assert empty.shape == [0, 3]
    big = np.array([np.iinfo("int64").max, np.iinfo("int64").min])
    np.testing.assert_array_equal(G.segment_max(t(big), t([0, 1])).numpy(), big)


def test_extremes_of_large_uneven_buckets_and_nan():
    """max/min fold each bucket in log2(size) steps: buckets of 1, 37 and 64 rows."""
    ids = np.repeat([0, 1, 3], [1, 37, 64])
    data = rng.normal(size=(102, 5))
    data[50, 2] = np.nan  # NaN propagates, as in maximum/minimum
    for op in ("max", "min"):
        np.testing.assert_array_equal(SEGMENTS[op](t(data), t(ids)).numpy(),
                                      ref_reduce(data, ids, 4, op))
    order = rng.permutation(102)  # send_u_recv's destinations come unsorted
    got = G.send_u_recv(t(data[order]), t(np.arange(102)), t(ids[order]), "min", out_size=4)
    np.testing.assert_array_equal(got.numpy(), ref_reduce(data, ids, 4, "min"))
    empty = t(np.zeros((0, 3)), grad=True)
    G.segment_max(empty, t(np.zeros(0, "int64"))).sum().backward()
    assert empty.gradient().shape == (0, 3)


@pytest.mark.parametrize("op", REDUCES)
def test_segment_gradients_match_finite_differences(op):
    ids = np.array([0, 0, 0, 2, 3, 3])
    data = rng.normal(size=(6, 3))
    check_grad(lambda d: SEGMENTS[op](d, t(ids)), data)


def test_segment_max_and_min_give_every_tie_the_whole_gradient():
    """Paddle's segment_pool grad: (in == out) * out_grad, so tied rows each get all of it."""
    data = t([[1.0, 5.0], [1.0, 2.0], [0.0, 5.0]], grad=True)
    out = G.segment_max(data, t([0, 0, 0]))
    out.backward(t([[2.0, 3.0]]))
    np.testing.assert_allclose(data.gradient(), [[2, 3], [2, 0], [0, 3]])
    data = t([[4.0], [4.0], [9.0]], grad=True)
    G.segment_min(data, t([0, 0, 1])).sum().backward()
    np.testing.assert_allclose(data.gradient(), [[1], [1], [1]])


@pytest.mark.parametrize("op", REDUCES)
def test_segments_match_torch_scatter_reduce(op):
    torch = pytest.importorskip("torch")
    ids = np.array([0, 1, 1, 1, 4, 4])
    data = rng.normal(size=(6, 4))
    got = SEGMENTS[op](t(data, grad=True), t(ids))
    reduce = {"sum": "sum", "mean": "mean", "max": "amax", "min": "amin"}[op]
    td = torch.tensor(data, requires_grad=True)
    want = torch.zeros(5, 4, dtype=torch.float64).scatter_reduce(
        0, torch.tensor(ids).reshape(-1, 1).expand(6, 4), td, reduce, include_self=False)
    np.testing.assert_allclose(got.numpy(), want.detach().numpy(), rtol=1e-12)
    g = rng.normal(size=(5, 4))
    x = t(data, grad=True)
    SEGMENTS[op](x, t(ids)).backward(t(g))
    want.backward(torch.tensor(g))
    np.testing.assert_allclose(x.gradient(), td.grad.numpy(), rtol=1e-12)  # no ties here


# ----- send_u_recv ------------------------------------------------------------------------------

@pytest.mark.parametrize("op", REDUCES)
def test_send_u_recv_matches_a_loop_for_every_out_size(op):
    x = rng.normal(size=(5, 2, 3))
    src = np.array([0, 4, 4, 2, 1, 0, 3])
    dst = np.array([1, 1, 3, 0, 1, 3, 0])
    gathered = x[src]
    for out_size, rows in ((None, 5), (0, 5), (-2, 5), (4, 4), (np.int64(7), 7),
                           (t([6]), 6)):
        got = G.send_u_recv(t(x), t(src), t(dst), op, out_size)
        np.testing.assert_allclose(got.numpy(), ref_reduce(gathered, dst, rows, op),
                                   rtol=1e-12, err_msg=f"out_size={out_size}")
    xi = rng.integers(-20, 20, size=(5,)).astype("int64")
    got = G.send_u_recv(t(xi), t(src, "int32"), t(dst, "int32"), reduce_op=op)
    assert got.dtype == np.int64 and got.shape == [5]
    np.testing.assert_array_equal(got.numpy(), ref_reduce(xi[src], dst, 5, op))


def test_send_u_recv_without_edges_gives_zeros():
    out = G.send_u_recv(t(np.ones((3, 2))), t(np.zeros(0, "int64")), t(np.zeros(0, "int64")),
                        "max", out_size=4)
    assert out.shape == [4, 2] and not out.numpy().any()
    none = t(np.zeros(0, "int64"))
    out = G.send_ue_recv(t(np.ones((3, 2))), t(np.zeros(0)), none, none, "mul", "min")
    assert out.shape == [3, 2] and not out.numpy().any()
    assert G.send_uv(t(np.ones((3, 2))), t(np.ones(3)), none, none).shape == [0, 2]


@pytest.mark.parametrize("op", REDUCES)
def test_send_u_recv_gradients_match_finite_differences(op):
    src = np.array([0, 1, 2, 0, 3, 3, 1])
    dst = np.array([1, 2, 1, 0, 0, 2, 4])
    x = rng.normal(size=(4, 3))
    check_grad(lambda a: G.send_u_recv(a, t(src), t(dst), op, out_size=5), x)


@pytest.mark.parametrize("op", REDUCES)
def test_send_u_recv_matches_torch_index_reduce(op):
    torch = pytest.importorskip("torch")
    src = np.array([0, 1, 2, 0, 3, 3, 1])
    dst = np.array([1, 2, 1, 0, 0, 2, 4])
    x = rng.normal(size=(4, 3))
    got_x = t(x, grad=True)
    got = G.send_u_recv(got_x, t(src), t(dst), op, out_size=6)
    tx = torch.tensor(x, requires_grad=True)
    zeros, index, messages = torch.zeros(6, 3, dtype=torch.float64), torch.tensor(dst), \
        tx[torch.tensor(src)]
    if op == "sum":
        want = zeros.index_add(0, index, messages)
    else:
        reduce = {"mean": "mean", "max": "amax", "min": "amin"}[op]
        with warnings.catch_warnings():  # "index_reduce() is in beta"
            warnings.simplefilter("ignore", UserWarning)
            want = zeros.index_reduce(0, index, messages, reduce, include_self=False)
    np.testing.assert_allclose(got.numpy(), want.detach().numpy(), rtol=1e-12)
    g = rng.normal(size=(6, 3))
    got.backward(t(g))
    want.backward(torch.tensor(g))
    np.testing.assert_allclose(got_x.gradient(), tx.grad.numpy(), rtol=1e-12)


def test_send_u_recv_max_gives_tied_edges_the_whole_gradient():
    """Paddle's send_u_recv_grad: out_grad * (out == x[src]) for every edge."""
    x = t([[1.0], [1.0], [0.5]], grad=True)
    G.send_u_recv(x, t([0, 1, 2, 0]), t([0, 0, 0, 1]), "max").backward(t([[2.0], [5.0], [7.0]]))
    np.testing.assert_allclose(x.gradient(), [[7.0], [2.0], [0.0]])


# ----- send_ue_recv and send_uv -----------------------------------------------------------------

SHAPES = [((5, 3), (7, 3)), ((5, 3), (7,)), ((5,), (7, 3)), ((5, 2, 3), (7, 3)),
          ((5, 2, 1), (7, 1, 4)), ((5, 3), (7, 1))]


@pytest.mark.parametrize("xs, ys", SHAPES)
@pytest.mark.parametrize("message", MESSAGES)
def test_send_ue_recv_matches_a_loop_with_broadcast_features(xs, ys, message):
    x, y = rng.normal(size=xs), rng.uniform(0.5, 2, size=ys)
    src = np.array([0, 4, 4, 2, 1, 0, 3])
    dst = np.array([1, 1, 3, 0, 1, 3, 4])
    px, py = padded(x, y)
    messages = ref_message(px[src], py, message)
    for op in REDUCES:
        got = G.send_ue_recv(t(x), t(y), t(src), t(dst), message, op, out_size=6)
        np.testing.assert_allclose(got.numpy(), ref_reduce(messages, dst, 6, op), rtol=1e-12,
                                   err_msg=op)


@pytest.mark.parametrize("message", MESSAGES)
@pytest.mark.parametrize("op", REDUCES)
def test_send_ue_recv_gradients_reach_x_and_y(message, op):
    src = np.array([0, 1, 2, 0, 3, 3, 1])
    dst = np.array([1, 2, 1, 0, 0, 2, 1])
    x = rng.normal(size=(4, 3))
    y = rng.uniform(0.5, 2, size=(7, 3)) * rng.choice([-1, 1], size=(7, 3))
    check_grad(lambda a, b: G.send_ue_recv(a, b, t(src), t(dst), message, op), x, y)
    # a broadcast edge feature ([E] -> [E, 1]) sums its gradient over the features
    check_grad(lambda a, b: G.send_ue_recv(a, b, t(src), t(dst), message, op), x, y[:, 0])


@pytest.mark.parametrize("xs, ys", SHAPES)
@pytest.mark.parametrize("message", MESSAGES)
def test_send_uv_matches_a_loop(xs, ys, message):
    x, y = rng.normal(size=xs), rng.uniform(0.5, 2, size=(4,) + ys[1:])
    src = np.array([0, 4, 4, 2, 1, 0, 3])
    dst = np.array([1, 1, 3, 0, 1, 3, 2])
    px, py = padded(x, y)
    got = G.send_uv(t(x), t(y), t(src), t(dst), message)
    np.testing.assert_allclose(got.numpy(), ref_message(px[src], py[dst], message), rtol=1e-12)


@pytest.mark.parametrize("message", MESSAGES)
def test_send_uv_gradients_reach_x_and_y(message):
    src = np.array([0, 1, 2, 0, 2])
    dst = np.array([1, 1, 0, 0, 3])
    x = rng.normal(size=(3, 2))
    y = rng.uniform(0.5, 2, size=(4, 2))
    check_grad(lambda a, b: G.send_uv(a, b, t(src), t(dst), message), x, y)
    check_grad(lambda a, b: G.send_uv(a, b, t(src), t(dst), message), x[:, 0], y)


def test_messages_and_reductions_do_not_differentiate_the_indices():
    x = t(rng.normal(size=(3, 2)), grad=True)
    src, dst = t([0, 1, 2]), t([2, 2, 0])
    out = G.send_ue_recv(x, t(np.ones((3, 2))), src, dst, "mul", "mean")
    assert not out.stop_gradient and src.stop_gradient and dst.stop_gradient
    out.sum().backward()
    assert src.gradient() is None and dst.gradient() is None
    with core.no_grad():
        assert G.send_u_recv(x, src, dst).stop_gradient


def test_int_messages_keep_their_dtype():
    x, y = t([[1, 2], [3, 4]], "int32"), t([[2, 2], [3, 3]], "int32")
    out = G.send_ue_recv(x, y, t([0, 1]), t([1, 1]), "mul", "sum")
    assert out.dtype == np.int32 and out.numpy().tolist() == [[0, 0], [11, 16]]
    assert G.send_uv(x, y, t([0, 1]), t([1, 0]), "sub").numpy().tolist() == [[-2, -1], [1, 2]]


# ----- a model: a 2-layer GCN on a tiny graph ----------------------------------------------------

def test_a_two_layer_gcn_learns_a_tiny_graph():
    core.seed(3)
    # two triangles joined by one edge; each triangle is a class
    edges = [(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (2, 3)]
    pairs = edges + [(b, a) for a, b in edges] + [(n, n) for n in range(6)]
    src, dst = t([a for a, _ in pairs]), t([b for _, b in pairs])
    feats = t(rng.normal(size=(6, 4)).astype("float32"))
    labels = t([0, 0, 0, 1, 1, 1])
    first, second = core.nn.Linear(4, 8), core.nn.Linear(8, 2)
    params = first.parameters() + second.parameters()
    opt = core.optimizer.Adam(learning_rate=0.05, parameters=params)

    def forward():
        h = core.nn.functional.relu(first(G.send_u_recv(feats, src, dst, "mean")))
        return second(G.send_u_recv(h, src, dst, "mean"))

    losses = []
    for _ in range(30):
        loss = core.nn.functional.cross_entropy(forward(), labels)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss.numpy()))
    assert losses[-1] < 0.5 * losses[0]
    assert (forward().numpy().argmax(1) == labels.numpy()).all()


# ----- reindexing ---------------------------------------------------------------------------------

def ref_reindex(x, neighbors, counts):
    """Paddle's CPU kernel as a loop: a dict from node to its new number."""
    number, nodes = {}, []
    for node in list(x) + list(neighbors):
        if node not in number:
            number[node] = len(nodes)
            nodes.append(node)
    bs = len(x)
    dst = [j for i in range(len(counts) // bs) for j in range(bs)
           for _ in range(counts[i * bs + j])]
    return [number[n] for n in neighbors], dst, nodes


def test_reindex_graph_matches_a_loop():
    for dtype in ("int32", "int64"):
        x = rng.permutation(50)[:6]
        counts = rng.integers(0, 5, size=6)
        neighbors = rng.integers(0, 50, size=counts.sum())
        got = G.reindex_graph(t(x, dtype), t(neighbors, dtype), t(counts, "int32"))
        want = ref_reindex(x, neighbors, counts)
        for g, w in zip(got, want):
            assert g.dtype == dtype and g.numpy().tolist() == list(w)


def test_reindex_heter_graph_matches_a_loop():
    x = rng.permutation(40)[:4]
    counts = [rng.integers(0, 4, size=4) for _ in range(3)]
    neighbors = [rng.integers(0, 40, size=c.sum()) for c in counts]
    got = G.reindex_heter_graph(t(x), [t(n) for n in neighbors], [t(c, "int32") for c in counts])
    want = ref_reindex(x, np.concatenate(neighbors), np.concatenate(counts))
    for g, w in zip(got, want):
        assert g.numpy().tolist() == list(w)


def test_reindex_accepts_and_ignores_paddles_gpu_buffers():
    buffer = t(np.full(10, -1), "int32")
    a = G.reindex_graph(t([3, 1]), t([1, 5, 3]), t([1, 2], "int32"), buffer, buffer)
    assert [v.numpy().tolist() for v in a] == [[1, 2, 0], [0, 1, 1], [3, 1, 5]]


# ----- sampling -----------------------------------------------------------------------------------

ROW = [3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7]
COLPTR = [0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13]
NODES = [0, 8, 1, 2, 7]


def neighbors_of(node):
    return ROW[COLPTR[node]:COLPTR[node + 1]]


def split(values, counts):
    return np.split(np.asarray(values), np.cumsum(counts)[:-1])


def test_sample_neighbors_paddle_example_and_its_rules():
    row, colptr, nodes = t(ROW), t(COLPTR), t(NODES)
    core.seed(5)
    out, count = G.sample_neighbors(row, colptr, nodes, sample_size=2)
    assert count.dtype == np.int32 and out.dtype == np.int64
    assert count.numpy().tolist() == [2, 2, 2, 1, 0]
    for node, picked in zip(NODES, split(out.numpy(), count.numpy())):
        assert set(picked) <= set(neighbors_of(node))
        assert len(np.unique(picked)) == len(picked)  # without replacement
    # nodes with at most sample_size neighbors keep them all, in order; -1 keeps every one
    out, count = G.sample_neighbors(row, colptr, nodes)
    assert out.numpy().tolist() == sum((neighbors_of(n) for n in NODES), [])
    out, count = G.sample_neighbors(row, colptr, t([5]), sample_size=5)
    assert out.numpy().tolist() == [9, 3]
    out, count = G.sample_neighbors(row, colptr, nodes, sample_size=0)
    assert out.shape == [0] and count.numpy().tolist() == [0] * 5


def test_sampling_repeats_under_a_seed_and_returns_edge_ids():
    row, colptr, nodes = t(ROW), t(COLPTR), t(NODES * 3)
    eids = t(np.arange(100, 113))
    core.seed(11)
    first = G.sample_neighbors(row, colptr, nodes, sample_size=1, eids=eids, return_eids=True)
    core.seed(11)
    again = G.sample_neighbors(row, colptr, nodes, sample_size=1, eids=eids, return_eids=True)
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    out, _, out_eids = first
    assert (np.asarray(ROW)[out_eids.numpy() - 100] == out.numpy()).all()
    core.seed(11)
    w = t(np.linspace(1, 2, 13), "float32")
    a = G.weighted_sample_neighbors(row, colptr, w, nodes, 1, eids, True)
    core.seed(11)
    b = G.weighted_sample_neighbors(row, colptr, w, nodes, 1, eids, True)
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u.numpy(), v.numpy())
    assert (np.asarray(ROW)[a[2].numpy() - 100] == a[0].numpy()).all()


def test_uniform_sampling_is_uniform():
    core.seed(0)
    row, colptr = t([10, 11, 12, 13]), t([0, 4])
    out, count = G.sample_neighbors(row, colptr, t(np.zeros(4000, "int64")), sample_size=1)
    freq = np.bincount(out.numpy() - 10, minlength=4) / 4000
    np.testing.assert_allclose(freq, 0.25, atol=0.03)


def test_weighted_sampling_follows_the_weights():
    core.seed(0)
    row, colptr = t([10, 11, 12]), t([0, 3])
    weight = t([1.0, 9.0, 0.0], "float32")
    out, count = G.weighted_sample_neighbors(row, colptr, weight, t(np.zeros(4000, "int64")),
                                             sample_size=1)
    freq = np.bincount(out.numpy() - 10, minlength=3) / 4000
    np.testing.assert_allclose(freq, [0.1, 0.9, 0.0], atol=0.03)
    # a 0-weight edge comes only when too few others remain; everything when k >= degree
    out, count = G.weighted_sample_neighbors(row, colptr, weight, t([0] * 50), sample_size=2)
    assert set(out.numpy().tolist()) == {10, 11} and count.numpy().tolist() == [2] * 50
    out, _ = G.weighted_sample_neighbors(row, colptr, weight, t([0]), sample_size=3)
    assert out.numpy().tolist() == [10, 11, 12]
    out, _ = G.weighted_sample_neighbors(row, colptr, weight.reshape([3, 1]), t([0]))
    assert out.numpy().tolist() == [10, 11, 12]


# ----- laziness and errors ------------------------------------------------------------------------

def test_import_core_does_not_import_geometric():
    code = "import sys, core; assert 'core.geometric' not in sys.modules; core.geometric.send_uv"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_bad_arguments_raise_errors_naming_them():
    x, src, dst = t(np.ones((3, 2))), t([0, 1]), t([1, 2])
    with pytest.raises(IndexError, match=r"send_u_recv: 'src_index' values must lie in 0..2"):
        G.send_u_recv(x, t([0, 3]), dst)
    with pytest.raises(IndexError, match=r"send_u_recv: 'dst_index' values must lie in 0..1"):
        G.send_u_recv(x, src, dst, out_size=2)
    with pytest.raises(IndexError, match=r"send_uv: 'dst_index' values must lie in 0..0"):
        G.send_uv(x, t(np.ones((1, 2))), src, dst)
    with pytest.raises(TypeError, match=r"send_u_recv: 'src_index' must be an int32 or int64 "
                                        r"tensor, got dtype float64"):
        G.send_u_recv(x, t([0.0, 1.0]), dst)
    with pytest.raises(TypeError, match=r"send_u_recv: 'x' must be a float16, float32, float64"
                                        r", int32 or int64 tensor, got dtype bool"):
        G.send_u_recv(t([True, False]), src, dst)
    with pytest.raises(TypeError, match=r"send_u_recv: 'x' must be a Tensor"):
        G.send_u_recv([1.0, 2.0], src, dst)
    with pytest.raises(ValueError, match=r"'src_index' and 'dst_index' must have the same "
                                         r"length .* got 2 and 3"):
        G.send_u_recv(x, src, t([0, 1, 2]))
    with pytest.raises(ValueError, match=r"send_u_recv: 'reduce_op' must be 'sum', 'mean', "
                                         r"'max' or 'min', got 'prod'"):
        G.send_u_recv(x, src, dst, reduce_op="prod")
    with pytest.raises(ValueError, match=r"send_ue_recv: 'message_op' must be 'add', 'sub', "
                                         r"'mul' or 'div', got 'pow'"):
        G.send_ue_recv(x, t(np.ones(2)), src, dst, message_op="pow")
    with pytest.raises(TypeError, match=r"send_u_recv: 'out_size' must be an int or a "
                                        r"one-element integer Tensor, got 2.5"):
        G.send_u_recv(x, src, dst, out_size=2.5)
    with pytest.raises(ValueError, match=r"send_ue_recv: 'y' must hold one row per edge "
                                         r"\(2 edges"):
        G.send_ue_recv(x, t(np.ones(3)), src, dst)
    with pytest.raises(TypeError, match=r"send_ue_recv: 'x' and 'y' must have the same dtype"):
        G.send_ue_recv(x, t(np.ones(2, "float32")), src, dst)
    with pytest.raises(ValueError, match=r"send_uv: the feature shapes of 'x' \[2\] and 'y' "
                                         r"\[3\] .* do not broadcast"):
        G.send_uv(x, t(np.ones((3, 3))), src, dst)
    with pytest.raises(TypeError, match=r"send_uv: message_op 'div' needs floating-point"):
        G.send_uv(t([[1], [2]]), t([[1], [2]]), t([0]), t([1]), "div")
    with pytest.raises(ValueError, match=r"send_u_recv: 'x' must have at least one dimension"):
        G.send_u_recv(t(1.0), src, dst)
    with pytest.raises(ValueError, match=r"send_u_recv: 'src_index' must have shape \[n\], "
                                         r"got \[2, 1\]"):
        G.send_u_recv(x, t([[0], [1]]), dst)


def test_bad_segment_arguments_raise_errors_naming_them():
    data = t(np.ones((3, 2)))
    with pytest.raises(ValueError, match=r"segment_sum: 'segment_ids' must be sorted in "
                                         r"ascending order, but segment_ids\[1\] = 2 > "
                                         r"segment_ids\[2\] = 1"):
        G.segment_sum(data, t([0, 2, 1]))
    with pytest.raises(IndexError, match=r"segment_max: 'segment_ids' values must be >= 0, "
                                         r"got -1"):
        G.segment_max(data, t([-1, 0, 0]))
    with pytest.raises(ValueError, match=r"segment_mean: 'segment_ids' must hold one id per "
                                         r"row of 'data' \(3\), got 2"):
        G.segment_mean(data, t([0, 0]))
    with pytest.raises(TypeError, match=r"segment_min: 'segment_ids' must be an int32 or "
                                        r"int64 tensor, got dtype float32"):
        G.segment_min(data, t([0, 0, 1], "float32"))
    with pytest.raises(TypeError, match=r"segment_sum: 'data' must be a float16"):
        G.segment_sum(t(np.ones(3, dtype="complex64")), t([0, 0, 1]))


def test_bad_reindex_and_sampling_arguments_raise_errors_naming_them():
    x, nbrs, count = t([0, 1]), t([5, 6, 7]), t([1, 2], "int32")
    with pytest.raises(ValueError, match=r"reindex_graph: 'count' must add up to the length "
                                         r"of 'neighbors' \(3\), got 4"):
        G.reindex_graph(x, nbrs, t([2, 2], "int32"))
    with pytest.raises(ValueError, match=r"reindex_graph: 'count' must hold one count per "
                                         r"node of x \(2\), got 1"):
        G.reindex_graph(x, nbrs, t([3], "int32"))
    with pytest.raises(ValueError, match=r"reindex_graph: the nodes of 'x' must be unique"):
        G.reindex_graph(t([1, 1]), nbrs, count)
    with pytest.raises(TypeError, match=r"reindex_graph: 'neighbors' must have x's dtype "
                                        r"int64, got int32"):
        G.reindex_graph(x, t([5, 6, 7], "int32"), count)
    with pytest.raises(TypeError, match=r"reindex_graph: 'count' must be an int32 or int64"):
        G.reindex_graph(x, nbrs, t([1.0, 2.0]))
    with pytest.raises(ValueError, match=r"reindex_heter_graph: 'neighbors' and 'count' must "
                                         r"hold one Tensor per edge type each, got 2 and 1"):
        G.reindex_heter_graph(x, [nbrs, nbrs], [count])
    with pytest.raises(ValueError, match=r"reindex_heter_graph: 'count\[1\]' must add up to "
                                         r"the length of 'neighbors\[1\]'"):
        G.reindex_heter_graph(x, [nbrs, nbrs], [count, t([0, 1], "int32")])
    row, colptr = t(ROW), t(COLPTR)
    with pytest.raises(ValueError, match=r"sample_neighbors: 'eids' should not be None if "
                                         r"'return_eids' is True"):
        G.sample_neighbors(row, colptr, t([0]), return_eids=True)
    with pytest.raises(ValueError, match=r"sample_neighbors: 'sample_size' must be -1"):
        G.sample_neighbors(row, colptr, t([0]), sample_size=-2)
    with pytest.raises(IndexError, match=r"sample_neighbors: 'input_nodes' values must lie in "
                                         r"0..9"):
        G.sample_neighbors(row, colptr, t([10]))
    with pytest.raises(TypeError, match=r"sample_neighbors: 'input_nodes' must have row's "
                                        r"dtype int64, got int32"):
        G.sample_neighbors(row, colptr, t([1], "int32"))
    with pytest.raises(ValueError, match=r"sample_neighbors: 'colptr' must be a non-decreasing"):
        G.sample_neighbors(row, t([0, 5, 2]), t([0]))
    with pytest.raises(ValueError, match=r"sample_neighbors: 'eids' must hold one entry per "
                                         r"edge of row \(13\), got 2"):
        G.sample_neighbors(row, colptr, t([0]), eids=t([0, 1]), return_eids=True)
    with pytest.raises(ValueError, match=r"weighted_sample_neighbors: 'edge_weight' values "
                                         r"must be finite and >= 0"):
        G.weighted_sample_neighbors(row, colptr, t(-np.ones(13)), t([0]))
    with pytest.raises(TypeError, match=r"weighted_sample_neighbors: 'edge_weight' must be a "
                                        r"float tensor, got dtype int64"):
        G.weighted_sample_neighbors(row, colptr, t(np.ones(13, "int64")), t([0]))
    with pytest.raises(ValueError, match=r"weighted_sample_neighbors: 'edge_weight' must have "
                                         r"shape \[13\]"):
        G.weighted_sample_neighbors(row, colptr, t(np.ones(12)), t([0]))
