"""Row-sparse gradients through the optimizers: exact for SGD, lazy (touched rows) for others."""
from __future__ import annotations

import numpy as np
import pytest

import core
from core import nn, optimizer
from core.regularizer import L2Decay
from core.row_sparse import RowSparseGrad

VOCAB, DIM = 12, 3


def make(sparse: bool, seed: int = 0):
    core.seed(seed)
    table = nn.Embedding(VOCAB, DIM, sparse=sparse)
    head = nn.Linear(DIM, 2)
    return table, head


def train(opt_cls, sparse: bool, batches, **kwargs):
    table, head = make(sparse)
    params = table.parameters() + head.parameters()
    opt = opt_cls(parameters=params, **kwargs)
    for ids in batches:
        hidden = table(core.to_tensor(ids)).sum(axis=1)
        loss = (head(hidden) ** 2).mean()
        loss.backward()
        if sparse:
            assert isinstance(table.weight.grad_data, RowSparseGrad)
        opt.step()
        opt.clear_grad()
    return table.weight.numpy(), head.weight.numpy()


RANDOM_BATCHES = [np.random.default_rng(i).integers(0, VOCAB, (4, 3)) for i in range(5)]
SAME_ROWS = [np.array([[1, 4, 4], [7, 1, 9]])] * 4  # the same rows touched every step
TOUCHED = [1, 4, 7, 9]


@pytest.mark.parametrize("opt_cls, kwargs", [(optimizer.SGD, {"learning_rate": 0.5}),
                                             (optimizer.Adagrad, {"learning_rate": 0.3})])
def test_sparse_equals_dense_exactly(opt_cls, kwargs):
    dense = train(opt_cls, False, RANDOM_BATCHES, **kwargs)
    sparse = train(opt_cls, True, RANDOM_BATCHES, **kwargs)
    np.testing.assert_allclose(sparse[0], dense[0], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(sparse[1], dense[1], rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("opt_cls, kwargs", [
    (optimizer.Momentum, {"learning_rate": 0.1, "momentum": 0.9}),
    (optimizer.Momentum, {"learning_rate": 0.1, "use_nesterov": True}),
    (optimizer.Adam, {"learning_rate": 0.05}),
    (optimizer.AdamW, {"learning_rate": 0.05, "weight_decay": 0.1}),
    (optimizer.RMSProp, {"learning_rate": 0.05, "momentum": 0.5, "centered": True}),
    (optimizer.Adadelta, {"learning_rate": 1.0})])
def test_lazy_rules_match_dense_on_touched_rows(opt_cls, kwargs):
    table0 = make(True)[0].weight.numpy()
    dense = train(opt_cls, False, SAME_ROWS, **kwargs)
    sparse = train(opt_cls, True, SAME_ROWS, **kwargs)
    np.testing.assert_allclose(sparse[0][TOUCHED], dense[0][TOUCHED], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(sparse[1], dense[1], rtol=1e-5, atol=1e-6)
    untouched = [r for r in range(VOCAB) if r not in TOUCHED]
    np.testing.assert_array_equal(sparse[0][untouched], table0[untouched])  # lazy: not moved


def test_weight_decay_applies_to_touched_rows_only():
    table0 = make(True)[0].weight.numpy()
    sparse = train(optimizer.SGD, True, SAME_ROWS[:1], learning_rate=0.1,
                   weight_decay=L2Decay(0.5))
    dense = train(optimizer.SGD, False, SAME_ROWS[:1], learning_rate=0.1,
                  weight_decay=L2Decay(0.5))
    np.testing.assert_allclose(sparse[0][TOUCHED], dense[0][TOUCHED], rtol=1e-6)
    np.testing.assert_array_equal(sparse[0][0], table0[0])
    assert not np.allclose(dense[0][0], table0[0])


@pytest.mark.parametrize("clip", ["value", "norm", "global"])
def test_clipping_a_sparse_gradient_is_exact(clip):
    from core import clipping as clips
    make_clip = {"value": lambda: clips.ClipGradByValue(0.01),
                 "norm": lambda: clips.ClipGradByNorm(0.01),
                 "global": lambda: clips.ClipGradByGlobalNorm(0.01)}[clip]
    dense = train(optimizer.SGD, False, RANDOM_BATCHES, learning_rate=1.0, grad_clip=make_clip())
    sparse = train(optimizer.SGD, True, RANDOM_BATCHES, learning_rate=1.0, grad_clip=make_clip())
    np.testing.assert_allclose(sparse[0], dense[0], rtol=1e-5, atol=1e-7)


def test_row_sparse_grad_behaves_like_its_dense_array():
    grad = RowSparseGrad(np.array([2, 0, 2]), np.ones((3, 2), np.float32), (4, 2))
    dense = grad.to_dense()
    assert dense[:, 0].tolist() == [1, 0, 2, 0]
    merged = grad.coalesce()
    assert merged.rows.tolist() == [0, 2] and merged.values[:, 0].tolist() == [1, 2]
    np.testing.assert_array_equal(grad + np.ones((4, 2), np.float32), dense + 1)
    np.testing.assert_array_equal((grad + grad).to_dense(), 2 * dense)
    assert np.isfinite(grad).all()  # NaN checks see the dense array
    grad[...] = 0
    assert not grad.to_dense().any()
    with pytest.raises(ValueError, match="rows"):
        RowSparseGrad(np.array([0]), np.ones((2, 2)), (4, 2))


def test_optimizer_state_is_created_dense_and_counts_steps():
    table, _ = make(True)
    opt = optimizer.Adam(parameters=table.parameters())
    table(core.to_tensor(np.array([1, 2]))).sum().backward()
    opt.step()
    state = opt.state_dict()["state"][table.weight.name]
    assert state["step"] == 1 and state["moment1"].shape == [VOCAB, DIM]
    assert np.count_nonzero(state["moment1"].numpy().any(axis=1)) == 2


# ----- the touched rows split over core's threads (element-wise rules only) -------------------
SPLIT_RULES = [
    (optimizer.SGD, {"learning_rate": 0.5, "weight_decay": L2Decay(0.1)}),
    (optimizer.Momentum, {"learning_rate": 0.1, "use_nesterov": True}),
    (optimizer.Adam, {"learning_rate": 0.05}),
    (optimizer.AdamW, {"learning_rate": 0.05, "weight_decay": 0.1,
                       "lr_ratio": lambda p: 0.5}),
    (optimizer.Adamax, {"learning_rate": 0.05}),
    (optimizer.Adagrad, {"learning_rate": 0.3}),
    (optimizer.Adadelta, {"learning_rate": 1.0}),
    (optimizer.RMSProp, {"learning_rate": 0.05, "momentum": 0.5, "centered": True}),
    (optimizer.Lamb, {"learning_rate": 0.05})]


@pytest.mark.usefixtures("split_small_work", "on_cpu")  # core's threads: host arrays only
@pytest.mark.parametrize("opt_cls, kwargs", SPLIT_RULES, ids=[c[0].__name__ for c in SPLIT_RULES])
def test_sparse_updates_give_the_same_bits_on_one_thread_and_two(opt_cls, kwargs, monkeypatch):
    """An element-wise rule updates parts of the touched rows on core's threads at once, with
    the same result; Lamb (norms over all the touched rows) updates them in one piece."""
    from core import threads  # noqa: PLC0415

    splits, original = [], threads.run_split

    def recording(items, workers, task):
        if "lazy_update" in task.__qualname__:
            splits.append(workers)
        return original(items, workers, task)

    monkeypatch.setattr(threads, "run_split", recording)
    previous = core.device.get_num_threads()
    try:
        core.device.set_num_threads(1)
        one = train(opt_cls, True, RANDOM_BATCHES, **kwargs)
        core.device.set_num_threads(2)
        two = train(opt_cls, True, RANDOM_BATCHES, **kwargs)
    finally:
        core.device.set_num_threads(previous)
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)
    steps = len(RANDOM_BATCHES)
    assert splits == [1] * steps + [1 if opt_cls is optimizer.Lamb else 2] * steps
