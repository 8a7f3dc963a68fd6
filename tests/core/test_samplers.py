"""Samplers (SequenceSampler, RandomSampler, BatchSampler) and DataLoader(batch_sampler=...):
the indices each yields, lengths, seeding, and batches through the loader."""
from __future__ import annotations

import numpy as np
import pytest

import core
from core.io import (
    BatchSampler,
    DataLoader,
    Dataset,
    RandomSampler,
    Sampler,
    SequenceSampler,
    TensorDataset,
)

X = np.arange(10, dtype=np.float32)[:, None] * np.ones((1, 3), np.float32)
Y = np.arange(10, dtype=np.int64)


class Squares(Dataset):  # read sample by sample (no arrays)
    def __getitem__(self, i):
        return np.float32(i * i), np.int64(i)

    def __len__(self):
        return 7


def test_sequence_and_random_samplers():
    data = TensorDataset(X, Y)
    assert list(SequenceSampler(data)) == list(range(10)) and len(SequenceSampler(data)) == 10
    core.seed(3)
    first = list(RandomSampler(data))
    assert sorted(first) == list(range(10)) and first != list(range(10))
    core.seed(3)
    assert list(RandomSampler(data)) == first  # core.seed fixes the draws
    seeded = RandomSampler(data, generator=7)
    one, two = list(seeded), list(seeded)
    assert sorted(one) == sorted(two) == list(range(10)) and one != two  # new order each pass
    assert list(RandomSampler(data, generator=7)) == one
    drawn = RandomSampler(data, replacement=True, num_samples=25,
                          generator=np.random.default_rng(0))
    picks = list(drawn)
    assert len(drawn) == 25 and len(picks) == 25 and set(picks) <= set(range(10))
    assert len(set(picks)) < 10 or len(picks) > 10  # with replacement: repeats
    # Paddle's form: the generator yields the indices, up to num_samples
    assert list(RandomSampler(data, generator=iter([4, 2, 9]))) == [4, 2, 9]
    assert list(RandomSampler(data, True, 2, generator=iter([4, 2, 9]))) == [4, 2]
    assert isinstance(seeded, Sampler)


def test_random_sampler_refuses_num_samples_without_replacement():
    with pytest.raises(ValueError, match="replacement is False"):
        RandomSampler(range(5), num_samples=3)
    with pytest.raises(ValueError, match="positive integer"):
        RandomSampler(range(5), replacement=True, num_samples=0)


@pytest.mark.parametrize("batch_size, drop_last, want", [
    (3, False, [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]),
    (3, True, [[0, 1, 2], [3, 4, 5], [6, 7, 8]]),
    (5, True, [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]),
])
def test_batch_sampler_over_a_dataset(batch_size, drop_last, want):
    sampler = BatchSampler(TensorDataset(X, Y), batch_size=batch_size, drop_last=drop_last)
    assert list(sampler) == want and len(sampler) == len(want)


def test_batch_sampler_over_a_sampler_and_shuffled():
    sampler = BatchSampler(sampler=RandomSampler(range(10), generator=1), batch_size=4)
    batches = list(sampler)
    assert [len(b) for b in batches] == [4, 4, 2] and len(sampler) == 3
    assert sorted(sum(batches, [])) == list(range(10))
    core.seed(0)
    shuffled = BatchSampler(TensorDataset(X, Y), shuffle=True, batch_size=4)
    assert isinstance(shuffled.sampler, RandomSampler)
    assert sorted(sum(list(shuffled), [])) == list(range(10))


@pytest.mark.parametrize("kwargs, error, words", [
    ({}, ValueError, "a dataset or a sampler"),
    ({"dataset": range(3), "sampler": range(3)}, ValueError, "not both"),
    ({"sampler": range(3), "shuffle": True}, ValueError, "shuffle must be False"),
    ({"sampler": range(3), "batch_size": 0}, ValueError, "batch_size"),
    ({"sampler": 5}, TypeError, "iterable of indices"),
])
def test_batch_sampler_errors(kwargs, error, words):
    with pytest.raises(error, match=words):
        BatchSampler(**kwargs)


def test_loader_with_a_batch_sampler_array_backed_and_sample_by_sample():
    data = TensorDataset(X, Y)
    loader = DataLoader(data, batch_sampler=BatchSampler(data, batch_size=4))
    assert len(loader) == 3 and loader.batch_size is None
    batches = list(loader)
    assert [b[1].tolist() for b in batches] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    np.testing.assert_array_equal(batches[2][0], X[8:])
    # your own batch sampler: any iterable of index lists with a len()
    loader = DataLoader(Squares(), batch_sampler=[[6, 0], [3], [1, 2, 5]])
    got = list(loader)
    assert [b[1].tolist() for b in got] == [[6, 0], [3], [1, 2, 5]]
    assert got[0][0].tolist() == [36.0, 0.0] and len(loader) == 3


def test_loader_with_a_shuffling_batch_sampler_reshuffles_each_pass_and_gives_tensors():
    data = TensorDataset(X, Y)
    sampler = BatchSampler(sampler=RandomSampler(data, generator=5), batch_size=3,
                           drop_last=True)
    loader = DataLoader(data, batch_sampler=sampler, return_tensors=True)
    first = [b[1].numpy().tolist() for b in loader]
    second = [b[1].numpy().tolist() for b in loader]
    assert len(first) == len(second) == 3 and all(len(b) == 3 for b in first)
    assert first != second
    for x, y in loader:
        assert isinstance(x, core.Tensor)
        np.testing.assert_array_equal(x.numpy()[:, 0], y.numpy())  # rows stay paired


def test_loader_with_a_batch_sampler_resumes_mid_pass():
    data = TensorDataset(X, Y)
    loader = DataLoader(data, batch_sampler=BatchSampler(data, batch_size=4))
    it = iter(loader)
    next(it)
    state = loader.state_dict()
    again = DataLoader(data, batch_sampler=BatchSampler(data, batch_size=4))
    again.set_state_dict(state)
    assert [b[1].tolist() for b in again] == [[4, 5, 6, 7], [8, 9]]


@pytest.mark.parametrize("kwargs", [{"batch_size": 4}, {"shuffle": True}, {"drop_last": True}])
def test_loader_refuses_a_batch_sampler_with_batch_options(kwargs):
    data = TensorDataset(X, Y)
    with pytest.raises(ValueError, match="leave batch_size, shuffle and drop_last"):
        DataLoader(data, batch_sampler=BatchSampler(data, batch_size=4), **kwargs)
    with pytest.raises(TypeError, match="lists of indices"):
        DataLoader(data, batch_sampler=iter([[0, 1]]))
