"""core.io's ConcatDataset, ChainDataset and SubsetRandomSampler, as Paddle documents them, on
their own and read through a DataLoader; and that core.io has every name of paddle.io's
``__all__``."""
from __future__ import annotations

import numpy as np
import pytest

import core
import core as paddle

# paddle.io.__all__ in Paddle 3.x (python/paddle/io/__init__.py)
PADDLE_IO_ALL = [
    "Dataset", "IterableDataset", "TensorDataset", "ComposeDataset", "ChainDataset",
    "BatchSampler", "DistributedBatchSampler", "DataLoader", "get_worker_info", "Sampler",
    "SequenceSampler", "RandomSampler", "WeightedRandomSampler", "random_split", "Subset",
    "SubsetRandomSampler", "ConcatDataset",
]


class Offset(paddle.io.Dataset):
    """Sample i is [start + i] (int64), n samples."""

    def __init__(self, start, n):
        self.start, self.n = start, n

    def __getitem__(self, index):
        return np.array([self.start + index], dtype=np.int64)

    def __len__(self):
        return self.n


class Stream(paddle.io.IterableDataset):
    def __init__(self, values):
        self.values = values

    def __iter__(self):
        for v in self.values:
            yield np.array([v], dtype=np.int64)


def _flat(loader):
    return [int(v) for batch in loader for v in np.asarray(batch).reshape(-1)]


def test_core_io_has_every_name_of_paddle_io():
    missing = [name for name in PADDLE_IO_ALL if not hasattr(core.io, name)]
    assert missing == []


# ----- ConcatDataset ----------------------------------------------------------------------------
def test_concat_dataset_indexes_across_the_datasets():
    data = paddle.io.ConcatDataset([Offset(0, 3), Offset(100, 2), Offset(200, 4)])
    assert len(data) == 9
    assert data.cumulative_sizes == [3, 5, 9]
    assert paddle.io.ConcatDataset.cumsum([Offset(0, 2), Offset(0, 5)]) == [2, 7]
    assert [int(data[i][0]) for i in range(9)] == [0, 1, 2, 100, 101, 200, 201, 202, 203]
    assert int(data[-1][0]) == 203 and int(data[-9][0]) == 0  # from the end, as Paddle
    assert isinstance(data, paddle.io.Dataset)


def test_concat_dataset_takes_any_iterable_and_empty_parts():
    data = paddle.io.ConcatDataset(d for d in (Offset(0, 0), Offset(7, 2), Offset(0, 0)))
    assert len(data) == 2 and [int(data[i][0]) for i in range(2)] == [7, 8]


def test_concat_dataset_through_a_data_loader():
    parts = paddle.io.ConcatDataset([Offset(0, 5), Offset(10, 3)])
    loader = paddle.io.DataLoader(parts, batch_size=3)
    assert _flat(loader) == [0, 1, 2, 3, 4, 10, 11, 12]
    assert len(loader) == 3
    core.seed(3)
    shuffled = _flat(paddle.io.DataLoader(parts, batch_size=4, shuffle=True))
    assert sorted(shuffled) == [0, 1, 2, 3, 4, 10, 11, 12]


def test_concat_dataset_of_tensor_datasets_keeps_their_fields():
    first = paddle.io.TensorDataset([np.arange(3.0)[:, None], np.arange(3)])
    second = paddle.io.TensorDataset([np.full((2, 1), 9.0), np.array([7, 8])])
    images, labels = list(paddle.io.DataLoader(paddle.io.ConcatDataset([first, second]),
                                               batch_size=5))[0]
    np.testing.assert_array_equal(images[:, 0], [0, 1, 2, 9, 9])
    np.testing.assert_array_equal(labels, [0, 1, 2, 7, 8])


def test_concat_dataset_of_subsets_from_random_split():
    core.seed(0)
    first, second = paddle.io.random_split(Offset(0, 6), [2, 4])
    data = paddle.io.ConcatDataset([second, first])
    assert sorted(int(data[i][0]) for i in range(6)) == list(range(6))
    assert [int(data[i][0]) for i in range(4)] == [int(second[i][0]) for i in range(4)]


@pytest.mark.parametrize("build, error, match", [
    (lambda: paddle.io.ConcatDataset([]), ValueError, "must not be empty"),
    (lambda: paddle.io.ConcatDataset(Offset(0, 2)), TypeError, "iterable of datasets"),
    (lambda: paddle.io.ConcatDataset([Offset(0, 2), Stream([1])]), TypeError,
     r"datasets\[1\].*ChainDataset"),
    (lambda: paddle.io.ConcatDataset([Offset(0, 2), 5]), TypeError, r"datasets\[1\].*int"),
])
def test_concat_dataset_refusals(build, error, match):
    with pytest.raises(error, match=match):
        build()


def test_concat_dataset_index_errors():
    data = paddle.io.ConcatDataset([Offset(0, 2), Offset(5, 1)])
    with pytest.raises(IndexError, match="index 3 is outside a dataset of 3"):
        data[3]
    with pytest.raises(ValueError, match="index -4 is beyond the start"):
        data[-4]


# ----- ChainDataset -----------------------------------------------------------------------------
def test_chain_dataset_streams_one_dataset_after_the_other():
    data = paddle.io.ChainDataset([Stream([1, 2]), Stream([]), Stream([3, 4, 5])])
    assert isinstance(data, paddle.io.IterableDataset)
    assert [int(x[0]) for x in data] == [1, 2, 3, 4, 5]
    assert [int(x[0]) for x in data] == [1, 2, 3, 4, 5]  # again: each pass re-reads them
    with pytest.raises(RuntimeError, match="no len"):
        len(data)


def test_chain_dataset_through_a_data_loader():
    data = paddle.io.ChainDataset((Stream([0, 1, 2]), Stream([10, 11])))
    batches = list(paddle.io.DataLoader(data, batch_size=2))
    assert [b.reshape(-1).tolist() for b in batches] == [[0, 1], [2, 10], [11]]
    kept = list(paddle.io.DataLoader(data, batch_size=2, drop_last=True))
    assert len(kept) == 2
    with pytest.raises(ValueError, match="shuffle=True"):
        paddle.io.DataLoader(data, batch_size=2, shuffle=True)


def test_chain_dataset_with_workers_runs_it_in_each_worker_as_paddle():
    data = paddle.io.ChainDataset([Stream([1, 2]), Stream([3])])
    values = _flat(paddle.io.DataLoader(data, batch_size=3, num_workers=2))
    assert sorted(values) == [1, 1, 2, 2, 3, 3]


@pytest.mark.parametrize("build, error, match", [
    (lambda: paddle.io.ChainDataset([]), ValueError, "non-empty list"),
    (lambda: paddle.io.ChainDataset(Stream([1])), ValueError, "non-empty list"),
    (lambda: paddle.io.ChainDataset([Stream([1]), Offset(0, 2)]), TypeError,
     r"datasets\[1\] must be an IterableDataset, got Offset.*ConcatDataset"),
])
def test_chain_dataset_refusals(build, error, match):
    with pytest.raises(error, match=match):
        build()


# ----- SubsetRandomSampler ----------------------------------------------------------------------
def test_subset_random_sampler_permutes_the_indices_each_pass():
    sampler = paddle.io.SubsetRandomSampler(indices=[1, 3, 5, 7, 9])
    assert len(sampler) == 5
    core.seed(2023)
    passes = [list(sampler) for _ in range(6)]
    assert all(sorted(p) == [1, 3, 5, 7, 9] for p in passes)
    assert len({tuple(p) for p in passes}) > 1  # a new order per pass
    core.seed(2023)
    assert [list(sampler) for _ in range(6)] == passes  # core.seed repeats them


def test_subset_random_sampler_generator_seed():
    a = list(paddle.io.SubsetRandomSampler(range(20), generator=4))
    b = list(paddle.io.SubsetRandomSampler(range(20), generator=np.random.default_rng(4)))
    assert a == b and sorted(a) == list(range(20))


def test_subset_random_sampler_in_a_batch_sampler_and_data_loader():
    """The train/validation split Paddle's docs show: each loader sees only its indices."""
    data = Offset(100, 10)
    train = paddle.io.BatchSampler(sampler=paddle.io.SubsetRandomSampler(list(range(7))),
                                   batch_size=3)
    valid = paddle.io.BatchSampler(sampler=paddle.io.SubsetRandomSampler(np.arange(7, 10)),
                                   batch_size=3)
    core.seed(1)
    train_loader = paddle.io.DataLoader(data, batch_sampler=train)
    seen = _flat(train_loader)
    assert len(train_loader) == 3
    assert sorted(seen) == list(range(100, 107))
    assert sorted(_flat(paddle.io.DataLoader(data, batch_sampler=valid))) == [107, 108, 109]


@pytest.mark.parametrize("kwargs, error, match", [
    ({"indices": []}, ValueError, "must not be empty"),
    ({"indices": 5}, TypeError, "sequence of indices, got int"),
    ({"indices": [1, 2], "generator": "seed"}, TypeError, "generator must be"),
])
def test_subset_random_sampler_refusals(kwargs, error, match):
    with pytest.raises(error, match=match):
        paddle.io.SubsetRandomSampler(**kwargs)
