"""The shuffle pool and pass planning: bounded memory, each sample once, seeded order."""
from __future__ import annotations

import numpy as np
import pytest

from core.data.pool import ALL, cut_batches, plan_order, pool_shuffle
from core.io import DataLoader, TensorDataset


def test_pool_yields_every_item_once_and_never_holds_more_than_pool_size():
    held = []
    live = 0

    def stream():
        nonlocal live
        for i in range(1000):
            live += 1
            held.append(live)
            yield i

    out = []
    for item in pool_shuffle(stream(), 16, 4, np.random.default_rng(0)):
        live -= 1
        out.append(item)
    assert sorted(out) == list(range(1000))
    assert max(held) <= 16
    assert out != list(range(1000))


def test_small_pool_keeps_items_near_their_stream_position():
    out = list(pool_shuffle(range(2000), 10, 10, np.random.default_rng(1)))
    # An item can only be drawn after it is read, and it is read at most ~pool_size draws late.
    positions = np.argsort(out)
    assert np.all(positions >= np.arange(2000) - 10)
    assert list(pool_shuffle(range(50), 1, 1, np.random.default_rng(2))) == list(range(50))


def test_min_pool_size_starts_drawing_early():
    # With min_pool_size=1 the first item comes out before the 3rd is read.
    read = []

    def stream():
        for i in range(100):
            read.append(i)
            yield i

    gen = pool_shuffle(stream(), 50, 1, np.random.default_rng(0))
    next(gen)
    assert len(read) <= 2


def test_plan_order_modes():
    rng = np.random.default_rng(0)
    shards = [np.arange(0, 5), np.arange(5, 10), np.arange(10, 15)]
    assert plan_order(15, shards, False, 4, 4, True, rng).tolist() == list(range(15))
    assert plan_order(15, shards, True, 0, 0, False, rng).tolist() == list(range(15))
    shuffled_files = plan_order(15, shards, True, 0, 0, True, np.random.default_rng(3))
    blocks = [tuple(shuffled_files[i:i + 5]) for i in range(0, 15, 5)]
    assert sorted(blocks) == [tuple(s) for s in shards] and blocks != [tuple(s) for s in shards]
    # pool ALL is exactly the loader's historic full permutation.
    assert np.array_equal(plan_order(15, None, True, ALL, ALL, False, np.random.default_rng(5)),
                          np.random.default_rng(5).permutation(15))


def test_cut_batches_by_length_groups_similar_lengths_and_keeps_batch_count():
    lengths = np.random.default_rng(0).integers(1, 100, 64)
    order = np.random.default_rng(1).permutation(64)
    plain = cut_batches(order, 8, False)
    sorted_batches = cut_batches(order, 8, False, lengths, 0, True, np.random.default_rng(2))
    assert len(plain) == len(sorted_batches) == 8
    assert sorted(np.concatenate(sorted_batches).tolist()) == list(range(64))
    spread = np.mean([np.ptp(lengths[b]) for b in sorted_batches])
    assert spread < np.mean([np.ptp(lengths[b]) for b in plain]) / 3


def test_loader_with_pool_is_seeded_and_complete():
    data = TensorDataset(np.arange(100, dtype=np.int64))

    def orders(seed):
        loader = DataLoader(data, batch_size=7, shuffle=True, seed=seed, pool_size=10,
                            min_pool_size=5)
        return [np.concatenate([b[0] for b in loader]).tolist() for _ in range(2)]

    first, second = orders(4)
    assert sorted(first) == sorted(second) == list(range(100))
    assert first != second  # a new order every pass
    assert orders(4) == [first, second]
    assert orders(5) != [first, second]


@pytest.mark.parametrize("kwargs, match", [
    ({"pool_size": -2}, "pool_size"), ({"cache": "disk"}, "cache"), ({"workers": -1}, "workers"),
    ({"prefetch": 1.5}, "prefetch"), ({"pool_size": 4, "min_pool_size": 8}, "min_pool_size")])
def test_bad_pipeline_options_are_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        DataLoader(TensorDataset(np.arange(4)), **kwargs)
