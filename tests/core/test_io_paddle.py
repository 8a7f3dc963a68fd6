"""core.io with Paddle's DataLoader keywords, IterableDataset, get_worker_info, ComposeDataset,
WeightedRandomSampler and DistributedBatchSampler."""
from __future__ import annotations

import math
import os
import time

import numpy as np
import pytest

import core
import core as paddle
from core.data import WorkerError


class Squares(core.io.Dataset):
    def __init__(self, n=10):
        self.n = n

    def __getitem__(self, index):
        return np.array([index], dtype=np.int64), np.array([index * index], dtype=np.int64)

    def __len__(self):
        return self.n


class Range(core.io.IterableDataset):
    """Paddle's example: the numbers start .. end - 1, split among workers when it is told to."""

    def __init__(self, start, end, split=False):
        self.start, self.end, self.split = start, end, split

    def __iter__(self):
        start, end = self.start, self.end
        info = core.io.get_worker_info()
        if self.split and info is not None:
            per_worker = math.ceil((end - start) / info.num_workers)
            start = start + info.id * per_worker
            end = min(start + per_worker, end)
        for i in range(start, end):
            yield np.array([i], dtype=np.int64)


def _values(loader):
    return [int(v) for batch in loader for v in np.asarray(batch).reshape(-1)]


# ----- Paddle's DataLoader signature ------------------------------------------------------------
def test_paddle_keywords_are_accepted():
    loader = paddle.io.DataLoader(Squares(10), feed_list=None, places=None, return_list=True,
                                  batch_sampler=None, batch_size=4, shuffle=False,
                                  drop_last=False, collate_fn=None, num_workers=0,
                                  use_buffer_reader=True, prefetch_factor=2,
                                  use_shared_memory=False, timeout=0, worker_init_fn=None,
                                  persistent_workers=False)
    batches = list(loader)
    assert len(loader) == len(batches) == 3
    np.testing.assert_array_equal(batches[0][1].reshape(-1), [0, 1, 4, 9])
    assert loader.return_list is True


def test_num_workers_is_workers():
    plain = list(core.io.DataLoader(Squares(9), batch_size=2))
    for kwargs in ({"num_workers": 2}, {"workers": 2}, {"num_workers": 2, "workers": 2}):
        loader = core.io.DataLoader(Squares(9), batch_size=2, **kwargs)
        assert loader.pipeline.workers == 2
        for a, b in zip(plain, loader):
            np.testing.assert_array_equal(a[1], b[1])


def test_places_is_device():
    # the current device (gpu:N under TOMLRUN_TEST_DEVICE): a loader is iterated only there
    here = core.device.get_device()
    loader = core.io.DataLoader(Squares(4), batch_size=2, places=here)
    x, _ = next(iter(loader))
    assert isinstance(x, core.Tensor) and loader.device == core.backend.parse_device(here)
    assert x.place == here
    assert core.io.DataLoader(Squares(4), places=["cpu"]).device.kind == "cpu"


@pytest.mark.parametrize("kwargs, error, match", [
    ({"return_list": False}, ValueError, "return_list=False .* static-graph"),
    ({"feed_list": ["x"]}, ValueError, "feed_list .* static"),
    ({"return_list": 1}, TypeError, "return_list must be a bool"),
    ({"use_shared_memory": "yes"}, TypeError, "use_shared_memory must be a bool"),
    ({"num_workers": -1}, ValueError, "num_workers must be an integer >= 0, got -1"),
    ({"num_workers": 2, "workers": 3}, ValueError, "num_workers=2 and workers=3"),
    ({"prefetch_factor": 0}, ValueError, "prefetch_factor must be a positive integer"),
    ({"timeout": -1}, ValueError, "timeout must be a number of seconds >= 0"),
    ({"worker_init_fn": 3}, TypeError, "worker_init_fn must be callable"),
    ({"places": ["cpu", "cpu"]}, ValueError, "must name one device"),
    ({"places": "cpu", "device": "cpu"}, ValueError, "places='cpu' and device='cpu'"),
])
def test_bad_paddle_arguments_name_themselves(kwargs, error, match):
    with pytest.raises(error, match=match):
        core.io.DataLoader(Squares(4), **kwargs)


# ----- workers: worker_init_fn, get_worker_info, timeout -----------------------------------------
class WhoReads(core.io.Dataset):
    """Each sample says which worker read it and what worker_init_fn left in that worker."""

    def __getitem__(self, index):
        info = core.io.get_worker_info()
        worker = -1 if info is None else info.id
        count = -1 if info is None else info.num_workers
        same = info is not None and info.dataset is self
        return np.array([index, worker, count, int(same), getattr(self, "init_id", -2),
                         os.getpid()])

    def __len__(self):
        return 12


def test_get_worker_info_is_none_in_the_main_process():
    assert core.io.get_worker_info() is None
    rows = np.concatenate(list(core.io.DataLoader(WhoReads(), batch_size=4)))
    assert set(rows[:, 1]) == {-1}


def test_worker_init_fn_and_get_worker_info_in_workers():
    def init(worker_id):
        info = core.io.get_worker_info()
        assert info.id == worker_id
        info.dataset.init_id = worker_id  # the worker's own copy

    loader = core.io.DataLoader(WhoReads(), batch_size=3, num_workers=2, worker_init_fn=init)
    rows = np.concatenate(list(loader))
    np.testing.assert_array_equal(rows[:, 0], np.arange(12))  # order as without workers
    assert set(rows[:, 1]) == {0, 1} and set(rows[:, 2]) == {2} and set(rows[:, 3]) == {1}
    np.testing.assert_array_equal(rows[:, 4], rows[:, 1])  # init ran in the worker that read
    assert os.getpid() not in set(rows[:, 5])
    assert not hasattr(loader.dataset, "init_id")  # the main process's dataset is untouched


def test_worker_info_is_read_only_and_seeded_per_worker():
    class Seeds(core.io.Dataset):
        def __getitem__(self, index):
            info = core.io.get_worker_info()
            try:
                info.id = 5
            except RuntimeError as exc:
                refused = "read-only" in str(exc)
            return np.array([info.id, info.seed, int(refused)])

        def __len__(self):
            return 4

    rows = np.concatenate(list(core.io.DataLoader(Seeds(), batch_size=1, num_workers=2)))
    seeds = {int(w): int(s) for w, s, _ in rows}
    assert seeds[1] == seeds[0] + 1 and set(rows[:, 2]) == {1}
    assert "WorkerInfo(id=" in repr(core.data.workers.WorkerInfo(0, 1, None, 0))


def test_failing_worker_init_fn_is_raised_in_the_main_process():
    def init(worker_id):
        raise RuntimeError(f"bad init {worker_id}")

    with pytest.raises(WorkerError, match="bad init 0"):
        list(core.io.DataLoader(Squares(4), batch_size=2, num_workers=2, worker_init_fn=init))


def test_timeout_stops_waiting_for_a_slow_worker():
    class Slow(Squares):
        def __getitem__(self, index):
            if index == 2:
                time.sleep(3)
            return super().__getitem__(index)

    loader = core.io.DataLoader(Slow(4), batch_size=2, num_workers=1, timeout=0.5)
    begin = time.perf_counter()
    with pytest.raises(WorkerError, match="sent nothing for 0.5 s .*timeout=0.5"):
        list(loader)
    assert time.perf_counter() - begin < 2.5


# ----- IterableDataset ---------------------------------------------------------------------------
def test_iterable_dataset_batches_in_its_order():
    loader = core.io.DataLoader(Range(2, 9), batch_size=3)
    batches = list(loader)
    assert [b.shape for b in batches] == [(3, 1), (3, 1), (1, 1)]
    assert _values(batches) == list(range(2, 9))
    assert _values(core.io.DataLoader(Range(2, 9), batch_size=3, drop_last=True)) == \
        list(range(2, 8))
    tensors = next(iter(core.io.DataLoader(Range(0, 4), batch_size=2, return_tensors=True)))
    assert isinstance(tensors, core.Tensor) and tensors.shape == [2, 1]
    assert _values(core.io.DataLoader(Range(0, 5), batch_size=2, prefetch=2)) == list(range(5))


def test_iterable_dataset_with_collate_fn():
    loader = core.io.DataLoader(Range(0, 5), batch_size=2,
                                collate_fn=lambda samples: np.concatenate(samples) * 10)
    assert _values(loader) == [0, 10, 20, 30, 40]


def test_iterable_dataset_workers_each_run_the_whole_iterator_as_paddle():
    # Without a split every worker yields every sample (Paddle's rule): duplicates, in turn.
    loader = core.io.DataLoader(Range(0, 4), batch_size=2, num_workers=2)
    assert _values(loader) == [0, 1, 0, 1, 2, 3, 2, 3]


def test_iterable_dataset_split_with_get_worker_info():
    loader = core.io.DataLoader(Range(2, 9, split=True), batch_size=1, num_workers=2)
    values = _values(loader)
    assert values == [2, 6, 3, 7, 4, 8, 5]  # worker 0: 2..5, worker 1: 6..8, taken in turn
    assert sorted(values) == list(range(2, 9))


def test_iterable_dataset_split_in_worker_init_fn():
    """Paddle's documented example: worker_init_fn narrows each worker's copy of the dataset."""
    def init(worker_id):
        info = core.io.get_worker_info()
        dataset = info.dataset
        per_worker = math.ceil((dataset.end - dataset.start) / info.num_workers)
        dataset.start = dataset.start + worker_id * per_worker
        dataset.end = min(dataset.start + per_worker, dataset.end)

    loader = core.io.DataLoader(Range(2, 9), batch_size=1, drop_last=True, num_workers=2,
                                worker_init_fn=init)
    assert sorted(_values(loader)) == list(range(2, 9))


def test_iterable_dataset_worker_failure_is_raised():
    class Broken(core.io.IterableDataset):
        def __iter__(self):
            yield np.zeros(1)
            raise ValueError("stream broke")

    with pytest.raises(WorkerError, match="stream broke"):
        list(core.io.DataLoader(Broken(), batch_size=1, num_workers=2))


def test_iterable_dataset_refusals():
    data = Range(0, 4)
    with pytest.raises(ValueError, match="shuffle=True is not supported for an IterableDataset"):
        core.io.DataLoader(data, shuffle=True)
    with pytest.raises(ValueError, match="no indices for a batch_sampler"):
        core.io.DataLoader(data, batch_sampler=[[0]])
    with pytest.raises(ValueError, match="cache, sort_by_length do"):
        core.io.DataLoader(data, cache="memory", sort_by_length=True)
    with pytest.raises(TypeError, match="has no len"):
        len(core.io.DataLoader(data))
    with pytest.raises(RuntimeError, match="iterated, not indexed"):
        data[0]
    with pytest.raises(RuntimeError, match="has no len"):
        len(data)
    with pytest.raises(NotImplementedError, match="must implement __iter__"):
        iter(core.io.IterableDataset())


# ----- ComposeDataset ----------------------------------------------------------------------------
def test_compose_dataset_joins_fields():
    images = core.io.TensorDataset([np.arange(6).reshape(3, 2)])

    class Labels(core.io.Dataset):
        def __getitem__(self, index):
            return index * 10

        def __len__(self):
            return 3

    data = core.io.ComposeDataset([images, Labels(), Squares(3)])
    assert len(data) == 3
    sample = data[2]
    assert len(sample) == 4
    np.testing.assert_array_equal(sample[0], [4, 5])
    assert sample[1] == 20 and sample[3].tolist() == [4]
    batch = next(iter(core.io.DataLoader(data, batch_size=3)))
    assert len(batch) == 4 and batch[0].shape == (3, 2)


def test_compose_dataset_refusals():
    with pytest.raises(ValueError, match="same length, got \\[3, 4\\]"):
        core.io.ComposeDataset([Squares(3), Squares(4)])
    with pytest.raises(TypeError, match="datasets\\[1\\] must be a map-style dataset"):
        core.io.ComposeDataset([Squares(3), Range(0, 3)])
    with pytest.raises(ValueError, match="non-empty list"):
        core.io.ComposeDataset([])


# ----- WeightedRandomSampler ---------------------------------------------------------------------
def test_weighted_random_sampler_draws_by_weight():
    core.seed(0)
    sampler = core.io.WeightedRandomSampler([0.1, 0.0, 0.3, 0.6], num_samples=20000)
    drawn = np.array(list(sampler))
    assert len(sampler) == drawn.size == 20000
    counts = np.bincount(drawn, minlength=4) / drawn.size
    np.testing.assert_allclose(counts, [0.1, 0.0, 0.3, 0.6], atol=0.015)
    core.seed(0)
    np.testing.assert_array_equal(list(sampler), drawn)  # core.seed fixes the draws


def test_weighted_random_sampler_without_replacement_and_torch():
    torch = pytest.importorskip("torch")
    weights = [1.0, 5.0, 0.0, 2.0, 2.0]
    core.seed(1)
    sampler = core.io.WeightedRandomSampler(weights, num_samples=4, replacement=False)
    firsts = []
    for _ in range(4000):
        drawn = list(sampler)
        assert len(set(drawn)) == 4 and 2 not in drawn
        firsts.append(drawn[0])
    gen = torch.Generator().manual_seed(0)
    reference = [next(iter(torch.utils.data.WeightedRandomSampler(
        weights, 4, replacement=False, generator=gen))) for _ in range(4000)]
    ours = np.bincount(firsts, minlength=5) / 4000
    theirs = np.bincount(reference, minlength=5) / 4000
    np.testing.assert_allclose(ours, theirs, atol=0.04)  # first draw ~ weights / sum
    np.testing.assert_allclose(ours, np.array(weights) / 10, atol=0.03)
    batches = list(core.io.DataLoader(Squares(5), batch_sampler=core.io.BatchSampler(
        sampler=sampler, batch_size=2)))
    assert [len(b[0]) for b in batches] == [2, 2]


@pytest.mark.parametrize("args, match", [
    (([1.0, 2.0], 0), "num_samples must be a positive integer, got 0"),
    (([1.0, 2.0], 2, "no"), "replacement must be a bool"),
    (([1.0, -2.0], 2), "weights must be a 1-D sequence of finite numbers >= 0"),
    (([0.0, 0.0], 2), "not all 0"),
    (([1.0, 2.0], 3, False), "num_samples=3 is more than the 2 weights"),
    (([1.0, 0.0], 2, False), "more than the 1 non-zero weights"),
])
def test_weighted_random_sampler_refusals(args, match):
    with pytest.raises(ValueError, match=match):
        core.io.WeightedRandomSampler(*args)


# ----- DistributedBatchSampler -------------------------------------------------------------------
def _paddle_share(n, batch_size, nranks, rank, shuffle=False, epoch=0, drop_last=False):
    """Paddle's DistributedBatchSampler.__iter__, written out from its source."""
    num_samples = math.ceil(n / nranks)
    total = num_samples * nranks
    indices = list(range(n))
    indices += indices[:total - n]
    if shuffle:
        np.random.RandomState(epoch).shuffle(indices)
    if nranks > 1:
        last = total % (batch_size * nranks)
        local_last = last // nranks
        out = []
        for i in range(rank * batch_size, len(indices) - last, batch_size * nranks):
            out.extend(indices[i:i + batch_size])
        tail = indices[len(indices) - last:]
        out.extend(tail[rank * local_last:(rank + 1) * local_last])
        indices = out
    batches = [indices[i:i + batch_size] for i in range(0, len(indices), batch_size)]
    return [b for b in batches if len(b) == batch_size or not drop_last]


def test_distributed_batch_sampler_single_process_is_the_whole_set():
    sampler = core.io.DistributedBatchSampler(Squares(10), batch_size=4)
    assert sampler.nranks == 1 and sampler.local_rank == 0
    assert list(sampler) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]] and len(sampler) == 3
    loader = core.io.DataLoader(Squares(10), batch_sampler=sampler)
    assert [len(b[0]) for b in loader] == [4, 4, 2]


@pytest.mark.parametrize("n, batch_size, nranks, drop_last", [
    (10, 2, 3, False), (10, 3, 4, False), (23, 4, 2, True), (7, 5, 3, False), (8, 2, 4, False),
])
def test_distributed_batch_sampler_shares_are_paddles(n, batch_size, nranks, drop_last):
    shares = []
    for rank in range(nranks):
        sampler = core.io.DistributedBatchSampler(Squares(n), batch_size, num_replicas=nranks,
                                                  rank=rank, drop_last=drop_last)
        got = list(sampler)
        assert got == _paddle_share(n, batch_size, nranks, rank, drop_last=drop_last)
        assert len(sampler) == len(got)
        shares.append([i for b in got for i in b])
    if not drop_last:
        flat = [i for share in shares for i in share]
        assert set(flat) == set(range(n))  # every sample somewhere
        assert len(flat) == math.ceil(n / nranks) * nranks  # padded by repeating the first


def test_distributed_batch_sampler_shuffles_by_epoch():
    a = core.io.DistributedBatchSampler(Squares(10), 2, num_replicas=2, rank=0, shuffle=True)
    b = core.io.DistributedBatchSampler(Squares(10), 2, num_replicas=2, rank=1, shuffle=True)
    first_a, first_b = list(a), list(b)
    assert first_a == _paddle_share(10, 2, 2, 0, shuffle=True, epoch=0)
    assert sorted(i for x in first_a + first_b for i in x) == list(range(10))  # disjoint
    assert list(a) == _paddle_share(10, 2, 2, 0, shuffle=True, epoch=1)  # epoch went up
    a.set_epoch(0)
    assert list(a) == first_a


@pytest.mark.parametrize("kwargs, error, match", [
    ({"batch_size": 0}, ValueError, "batch_size must be a positive integer, got 0"),
    ({"num_replicas": 0}, ValueError, "num_replicas must be a positive integer, got 0"),
    ({"num_replicas": 2, "rank": 2}, ValueError, "rank must be an integer in \\[0, 2\\)"),
    ({"shuffle": 1}, TypeError, "shuffle must be a bool"),
])
def test_distributed_batch_sampler_refusals(kwargs, error, match):
    kwargs = {"batch_size": 2, **kwargs}
    with pytest.raises(error, match=match):
        core.io.DistributedBatchSampler(Squares(4), **kwargs)
    with pytest.raises(ValueError, match="epoch must be an integer >= 0"):
        core.io.DistributedBatchSampler(Squares(4), 2).set_epoch(-1)
