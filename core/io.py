"""Datasets and the batching data loader (Paddle's ``paddle.io``).

A ``Dataset`` maps an index to one sample. An *array-backed* dataset (a ``TensorDataset`` or any
dataset exposing ``arrays``: equal-length arrays whose ``i``-th rows are sample ``i``) lets the
``DataLoader`` cut each batch with one fancy index per array instead of a Python loop over the
samples; any other dataset is read sample by sample and collated with ``np.stack``.

The loader is split into three steps so that a data pool, a prefetch thread or worker processes
can later be put between them: ``index_batches()`` plans a pass (the only step that draws random
numbers, so it stays in the main process), ``load_batch(indices)`` turns one planned batch into
arrays, and ``__iter__`` chains the two.
"""
from __future__ import annotations

import bisect
import math
import numbers
import time
from collections.abc import Callable, Iterator

import numpy as np

from core import backend
from core.data import pipeline
from core.data.collate import default_collate, to_tensors
from core.data.options import PipelineOptions
from core.data.pool import cut_batches, plan_order
from core.data.prefetch import prefetched
from core.data.workers import InterleavedWorkers
from core.data.workers import get_worker_info as get_worker_info  # paddle.io's name, re-exported
from core.profiler import recorder as _profiling
from core.tensor import Tensor


class Dataset:
    """Abstract dataset: subclasses implement ``__getitem__(index)`` and ``__len__()``."""

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must implement __getitem__")

    def __len__(self) -> int:
        raise NotImplementedError(f"{type(self).__name__} must implement __len__")


class IterableDataset(Dataset):
    """A dataset read as a stream (``paddle.io.IterableDataset``): subclasses implement
    ``__iter__`` yielding samples; it has no indices and no length.

    ``DataLoader`` cuts ``batch_size`` samples at a time from the iterator (``shuffle`` and
    ``batch_sampler`` are refused, as in Paddle). With ``num_workers=N`` each worker process
    runs the whole iterator on its own copy of the dataset, and batches are taken from the
    workers in turn: unless ``__iter__`` (or a ``worker_init_fn``) splits the stream with
    ``core.io.get_worker_info()``, every sample comes N times, as in Paddle.
    """

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must implement __iter__")

    def __getitem__(self, index):
        raise RuntimeError(f"{type(self).__name__} is an IterableDataset: it is iterated, not "
                           "indexed (dataset[index] is not defined).")

    def __len__(self) -> int:
        raise RuntimeError(f"{type(self).__name__} is an IterableDataset: it has no len().")


class ComposeDataset(Dataset):
    """Samples of several map-style datasets side by side (``paddle.io.ComposeDataset``):
    sample ``i`` is the fields of ``datasets[0][i]``, then those of ``datasets[1][i]``, ... in
    one tuple (a sample that is not a tuple or list is one field). The datasets must have the
    same length."""

    def __init__(self, datasets):
        self.datasets = list(datasets) if isinstance(datasets, (list, tuple)) else None
        if not self.datasets:
            raise ValueError(f"ComposeDataset: datasets must be a non-empty list of datasets, "
                             f"got {datasets!r}.")
        for i, dataset in enumerate(self.datasets):
            if isinstance(dataset, IterableDataset) or not (
                    hasattr(dataset, "__getitem__") and hasattr(dataset, "__len__")):
                raise TypeError(f"ComposeDataset: datasets[{i}] must be a map-style dataset "
                                f"(__getitem__ and __len__), got {type(dataset).__name__}.")
        lengths = [len(dataset) for dataset in self.datasets]
        if len(set(lengths)) != 1:
            raise ValueError(f"ComposeDataset: the datasets must have the same length, got "
                             f"{lengths}.")

    def __getitem__(self, index):
        sample = []
        for dataset in self.datasets:
            fields = dataset[index]
            sample.extend(fields if isinstance(fields, (tuple, list)) else [fields])
        return tuple(sample)

    def __len__(self) -> int:
        return len(self.datasets[0])


class TensorDataset(Dataset):
    """A dataset of equal-length arrays; sample ``i`` is ``tuple(a[i] for a in arrays)``."""

    def __init__(self, *arrays):
        if len(arrays) == 1 and isinstance(arrays[0], (list, tuple)):
            arrays = tuple(arrays[0])  # Paddle's TensorDataset takes one list of tensors
        if not arrays:
            raise ValueError("TensorDataset needs at least one array, got none.")
        arrays = tuple(_as_array(a, i) for i, a in enumerate(arrays))
        lengths = [a.shape[0] for a in arrays]
        if len(set(lengths)) != 1:
            raise ValueError(
                f"TensorDataset arrays must have the same length (first dimension), got {lengths}."
            )
        self.arrays = arrays

    def __getitem__(self, index):
        return tuple(a[index] for a in self.arrays)

    def __len__(self) -> int:
        return self.arrays[0].shape[0]


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order (``paddle.io.Subset``). Over an
    array-backed dataset it is array-backed too, so batches are still cut by one fancy index."""

    def __init__(self, dataset, indices):
        _check_dataset(dataset)
        self.dataset, self.indices = dataset, np.asarray(indices, dtype=np.int64).reshape(-1)
        n = len(dataset)
        if self.indices.size and not (-n <= self.indices.min() and self.indices.max() < n):
            raise IndexError(f"Subset: indices reach {int(self.indices.max())} (or "
                             f"{int(self.indices.min())}), outside a dataset of {n} samples.")
        parent = dataset_arrays(dataset)
        if parent is not None:
            self.arrays = tuple(a[self.indices] for a in parent)

    def __getitem__(self, index):
        return self.dataset[int(self.indices[index])]

    def __len__(self) -> int:
        return int(self.indices.size)


class ConcatDataset(Dataset):
    """The samples of ``datasets`` one dataset after the other (``paddle.io.ConcatDataset(
    datasets)``): index ``i`` falls in the dataset whose running total of lengths
    (``cumulative_sizes``) first exceeds it. A negative index counts from the end, as in Paddle
    (beyond ``-len`` is a ValueError there and here); the datasets must be map-style."""

    @staticmethod
    def cumsum(sequence) -> list[int]:
        """Running totals of the lengths of ``sequence``'s datasets (Paddle's helper)."""
        totals, running = [], 0
        for dataset in sequence:
            running += len(dataset)
            totals.append(running)
        return totals

    def __init__(self, datasets):
        if isinstance(datasets, (str, bytes, Dataset)) or not hasattr(datasets, "__iter__"):
            raise TypeError(f"ConcatDataset: datasets must be an iterable of datasets, got "
                            f"{type(datasets).__name__}.")
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("ConcatDataset: datasets must not be empty.")
        for i, dataset in enumerate(self.datasets):
            if isinstance(dataset, IterableDataset) or not (
                    hasattr(dataset, "__getitem__") and hasattr(dataset, "__len__")):
                raise TypeError(f"ConcatDataset: datasets[{i}] must be a map-style dataset "
                                f"(__getitem__ and __len__), got {type(dataset).__name__}; "
                                "chain IterableDatasets with ChainDataset.")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        n = len(self)
        if idx < 0:
            if -idx > n:
                raise ValueError(f"ConcatDataset: index {idx} is beyond the start of a dataset "
                                 f"of {n} samples.")
            idx += n
        if idx >= n:
            raise IndexError(f"ConcatDataset: index {idx} is outside a dataset of {n} samples.")
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][idx - start]


class ChainDataset(IterableDataset):
    """The samples of several IterableDatasets one stream after the other
    (``paddle.io.ChainDataset(datasets)``); it is an IterableDataset itself, so a DataLoader
    reads it as a stream (no len(), no shuffle)."""

    def __init__(self, datasets):
        self.datasets = list(datasets) if isinstance(datasets, (list, tuple)) else None
        if not self.datasets:
            raise ValueError(f"ChainDataset: datasets must be a non-empty list of "
                             f"IterableDatasets, got {datasets!r}.")
        for i, dataset in enumerate(self.datasets):
            if not isinstance(dataset, IterableDataset):
                raise TypeError(f"ChainDataset: datasets[{i}] must be an IterableDataset, got "
                                f"{type(dataset).__name__}; concatenate map-style datasets "
                                "with ConcatDataset.")

    def __iter__(self):
        for dataset in self.datasets:
            yield from dataset


def random_split(dataset, lengths, generator=None) -> list[Subset]:
    """``dataset`` cut at random into ``Subset``s of ``lengths`` samples (``paddle.io.
    random_split``); fractions that sum to 1 are sizes too, the remainder going to the first
    parts one by one. ``generator``: an int seed or a ``numpy.random.Generator`` (default:
    core's seeded generator, so ``core.seed(n)`` fixes the split)."""
    n = len(dataset)
    sizes = _split_sizes(list(lengths), n)
    rng = generator if isinstance(generator, np.random.Generator) else (
        np.random.default_rng(generator) if generator is not None else backend.rng())
    order = rng.permutation(n)
    cuts = np.cumsum([0, *sizes])
    return [Subset(dataset, order[a:b]) for a, b in zip(cuts[:-1], cuts[1:])]


def _split_sizes(lengths: list, n: int) -> list[int]:
    if lengths and all(isinstance(x, float) for x in lengths) and math.isclose(sum(lengths), 1):
        sizes = [math.floor(n * x) for x in lengths]
        for i in range(n - sum(sizes)):
            sizes[i % len(sizes)] += 1
        return sizes
    if not lengths or any(isinstance(x, bool) or not isinstance(x, numbers.Integral) or x < 0
                          for x in lengths) or sum(lengths) != n:
        raise ValueError(f"random_split: lengths {lengths} must be counts >= 0 that sum to the "
                         f"dataset's {n} samples, or fractions that sum to 1.")
    return [int(x) for x in lengths]


def _as_array(value, position: int):
    if isinstance(value, Tensor):
        value = backend.to_numpy(value.data)  # datasets live on the host; batches go to the
        # device when loaded (no copy of a host tensor's values)
    if not (hasattr(value, "shape") and hasattr(value, "dtype")):
        value = np.asarray(value)
    if value.ndim == 0:
        raise ValueError(
            f"TensorDataset array {position} is a scalar; each array needs a first dimension "
            "that indexes the samples."
        )
    return value


def dataset_arrays(dataset) -> tuple | None:
    """The arrays of an array-backed dataset, or None when it must be read sample by sample."""
    arrays = getattr(dataset, "arrays", None)
    if not isinstance(arrays, tuple) or not arrays:
        return None
    n = len(dataset)
    if all(hasattr(a, "shape") and a.ndim >= 1 and a.shape[0] == n for a in arrays):
        return arrays
    return None


class Sampler:
    """Base class of samplers (``paddle.io.Sampler``): an iterable of sample indices over
    ``data_source``; subclasses define ``__iter__`` (and ``__len__`` when they know it)."""

    def __init__(self, data_source=None):
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        raise NotImplementedError(f"{type(self).__name__} must implement __iter__")


class SequenceSampler(Sampler):
    """The indices ``0, 1, ..., len(data_source) - 1`` in order (``paddle.io.SequenceSampler``)."""

    def __init__(self, data_source):
        super().__init__(data_source)

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """The indices of ``data_source`` in a random order (``paddle.io.RandomSampler``): a new
    permutation each pass, or with ``replacement`` ``num_samples`` (default: the dataset's
    length) indices drawn independently.

    ``generator``, as Paddle: an iterable of indices, of which the first ``num_samples`` are
    yielded as they are. core also takes an int seed or a ``numpy.random.Generator`` (drawn
    from pass after pass, so the orders differ per pass but repeat per seed); by default the
    draws come from core's seeded generator (``core.seed(n)`` fixes them), where Paddle uses
    numpy's global one. ``num_samples`` without ``replacement`` is an error, as in Paddle.
    """

    def __init__(self, data_source, replacement: bool = False, num_samples: int | None = None,
                 generator=None):
        super().__init__(data_source)
        if not isinstance(replacement, bool):
            raise TypeError(f"RandomSampler: replacement must be a bool, got {replacement!r}.")
        if num_samples is not None and not replacement:
            raise ValueError("RandomSampler: num_samples should not be given while replacement "
                             "is False (each pass is one permutation of the dataset).")
        if num_samples is not None and (isinstance(num_samples, bool) or not isinstance(
                num_samples, numbers.Integral) or num_samples < 1):
            raise ValueError(f"RandomSampler: num_samples must be a positive integer, got "
                             f"{num_samples!r}.")
        self.replacement, self._num_samples = replacement, num_samples
        if isinstance(generator, numbers.Integral) and not isinstance(generator, bool):
            generator = np.random.default_rng(int(generator))
        self.generator = generator

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else int(self._num_samples)

    def __iter__(self) -> Iterator[int]:
        gen = self.generator
        if gen is not None and not isinstance(gen, np.random.Generator):
            # Paddle's form: the generator yields the indices themselves
            source = iter(gen)
            for _ in range(self.num_samples):
                try:
                    yield next(source)
                except StopIteration:
                    return
            return
        rng = gen if gen is not None else backend.rng()
        n = len(self.data_source)
        if self.replacement:
            yield from rng.integers(0, n, size=self.num_samples).tolist()
        else:
            yield from rng.permutation(n).tolist()

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Lists of ``batch_size`` indices (``paddle.io.BatchSampler``), for
    ``DataLoader(dataset, batch_sampler=...)``.

    The indices come from ``sampler`` (any iterable of indices), or, given a ``dataset``
    instead, from a ``SequenceSampler`` over it (``RandomSampler`` with ``shuffle=True``).
    The last, shorter list is kept unless ``drop_last``.
    """

    def __init__(self, dataset=None, sampler=None, shuffle: bool = False, batch_size: int = 1,
                 drop_last: bool = False):
        if dataset is None:
            if sampler is None:
                raise ValueError("BatchSampler: give a dataset or a sampler.")
            if not hasattr(sampler, "__iter__"):
                raise TypeError(f"BatchSampler: sampler must be a Sampler or an iterable of "
                                f"indices, got {type(sampler).__name__}.")
            if shuffle:
                raise ValueError("BatchSampler: shuffle must be False when a sampler is given "
                                 "(the sampler decides the order; use a RandomSampler).")
        else:
            if sampler is not None:
                raise ValueError("BatchSampler: give a dataset or a sampler, not both.")
            if pipeline.is_stream(dataset):
                raise TypeError("BatchSampler: a dataset read file by file has no indices; "
                                "use DataLoader(dataset, batch_size=...).")
            if not isinstance(shuffle, bool):
                raise TypeError(f"BatchSampler: shuffle must be a bool, got {shuffle!r}.")
            sampler = RandomSampler(dataset) if shuffle else SequenceSampler(dataset)
        if isinstance(batch_size, bool) or not isinstance(batch_size, numbers.Integral) \
                or batch_size < 1:
            raise ValueError(f"BatchSampler: batch_size must be a positive integer, got "
                             f"{batch_size!r}.")
        if not isinstance(drop_last, bool):
            raise TypeError(f"BatchSampler: drop_last must be a bool, got {drop_last!r}.")
        super().__init__(dataset)
        self.sampler, self.shuffle = sampler, shuffle
        self.batch_size, self.drop_last = int(batch_size), drop_last

    def __iter__(self) -> Iterator[list[int]]:
        batch: list[int] = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)
        return (n if self.drop_last else n + self.batch_size - 1) // self.batch_size


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probabilities proportional to ``weights``
    (``paddle.io.WeightedRandomSampler``), with ``replacement`` or without (then
    ``num_samples`` must not exceed ``len(weights)``). A new draw each pass, from core's
    generator (``core.seed(n)`` fixes it)."""

    def __init__(self, weights, num_samples: int, replacement: bool = True):
        if isinstance(num_samples, bool) or not isinstance(num_samples, numbers.Integral) \
                or num_samples <= 0:
            raise ValueError(f"WeightedRandomSampler: num_samples must be a positive integer, "
                             f"got {num_samples!r}.")
        if not isinstance(replacement, bool):
            raise ValueError(f"WeightedRandomSampler: replacement must be a bool, got "
                             f"{replacement!r}.")
        if isinstance(weights, Tensor):
            weights = backend.to_numpy(weights.data)
        values = np.asarray(weights, dtype=np.float64)
        if values.ndim != 1 or values.size == 0 or not np.all(np.isfinite(values)) \
                or np.any(values < 0) or not values.sum() > 0:
            raise ValueError(f"WeightedRandomSampler: weights must be a 1-D sequence of finite "
                             f"numbers >= 0, not all 0; got {weights!r}.")
        if not replacement and num_samples > values.size:
            raise ValueError(f"WeightedRandomSampler: num_samples={num_samples} is more than the "
                             f"{values.size} weights, which replacement=False cannot draw.")
        if not replacement and num_samples > np.count_nonzero(values):
            raise ValueError(f"WeightedRandomSampler: num_samples={num_samples} is more than the "
                             f"{np.count_nonzero(values)} non-zero weights, which "
                             "replacement=False cannot draw.")
        super().__init__(None)
        self.weights, self.num_samples, self.replacement = values, int(num_samples), replacement

    def __iter__(self) -> Iterator[int]:
        p = self.weights / self.weights.sum()
        drawn = backend.rng().choice(p.size, size=self.num_samples, replace=self.replacement, p=p)
        return iter(drawn.tolist())

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The elements of ``indices`` in a random order, a new one each pass
    (``paddle.io.SubsetRandomSampler(indices)``): ``indices[k]`` for ``k`` in a permutation of
    ``range(len(indices))``. ``generator`` (core's addition, as ``RandomSampler``'s): an int
    seed or a ``numpy.random.Generator``; by default core's generator (``core.seed(n)`` fixes
    the orders). Empty ``indices`` are a ValueError, as in Paddle."""

    def __init__(self, indices, generator=None):
        if isinstance(indices, (str, bytes)) or not hasattr(indices, "__len__") \
                or not hasattr(indices, "__getitem__"):
            raise TypeError(f"SubsetRandomSampler: indices must be a sequence of indices, got "
                            f"{type(indices).__name__}.")
        if len(indices) == 0:
            raise ValueError("SubsetRandomSampler: indices must not be empty.")
        if isinstance(generator, numbers.Integral) and not isinstance(generator, bool):
            generator = np.random.default_rng(int(generator))
        if generator is not None and not isinstance(generator, np.random.Generator):
            raise TypeError(f"SubsetRandomSampler: generator must be an int seed, a "
                            f"numpy.random.Generator or None, got {generator!r}.")
        super().__init__(None)
        self.indices, self.generator = indices, generator

    def __iter__(self) -> Iterator:
        rng = self.generator if self.generator is not None else backend.rng()
        for k in rng.permutation(len(self.indices)).tolist():
            yield self.indices[k]

    def __len__(self) -> int:
        return len(self.indices)


class DistributedBatchSampler(BatchSampler):
    """This rank's batches of ``dataset`` among ``num_replicas`` processes
    (``paddle.io.DistributedBatchSampler(dataset, batch_size, num_replicas=None, rank=None,
    shuffle=False, drop_last=False)``).

    As Paddle: the indices ``0 .. n-1`` are padded, by repeating the first ones, to
    ``ceil(n / num_replicas) * num_replicas``, shuffled with ``np.random.RandomState(epoch)``
    when ``shuffle`` (the same order on every rank; ``epoch`` goes up by one each pass, or is
    set with ``set_epoch``), then dealt out a batch at a time: rank ``r`` takes the
    ``batch_size`` indices at ``(k * num_replicas + r) * batch_size`` and its share of the
    incomplete tail. Every rank gets ``ceil(n / num_replicas)`` indices. core runs in one
    process, so ``num_replicas`` defaults to 1 and ``rank`` to 0 (all of the dataset); pass them
    to get another rank's share.
    """

    def __init__(self, dataset, batch_size: int, num_replicas: int | None = None,
                 rank: int | None = None, shuffle: bool = False, drop_last: bool = False):
        if not (hasattr(dataset, "__len__")) or isinstance(dataset, IterableDataset):
            raise TypeError(f"DistributedBatchSampler: dataset must have a len(), got "
                            f"{type(dataset).__name__}.")
        if isinstance(batch_size, bool) or not isinstance(batch_size, numbers.Integral) \
                or batch_size < 1:
            raise ValueError(f"DistributedBatchSampler: batch_size must be a positive integer, "
                             f"got {batch_size!r}.")
        for name, value in (("shuffle", shuffle), ("drop_last", drop_last)):
            if not isinstance(value, bool):
                raise TypeError(f"DistributedBatchSampler: {name} must be a bool, got "
                                f"{value!r}.")
        nranks = 1 if num_replicas is None else num_replicas
        if isinstance(nranks, bool) or not isinstance(nranks, numbers.Integral) or nranks < 1:
            raise ValueError(f"DistributedBatchSampler: num_replicas must be a positive integer, "
                             f"got {num_replicas!r}.")
        local_rank = 0 if rank is None else rank
        if isinstance(local_rank, bool) or not isinstance(local_rank, numbers.Integral) \
                or not 0 <= local_rank < nranks:
            raise ValueError(f"DistributedBatchSampler: rank must be an integer in [0, "
                             f"{int(nranks)}) (num_replicas={int(nranks)}), got {rank!r}.")
        Sampler.__init__(self, dataset)
        self.dataset, self.sampler = dataset, None
        self.batch_size, self.shuffle, self.drop_last = int(batch_size), shuffle, drop_last
        self.nranks, self.local_rank, self.epoch = int(nranks), int(local_rank), 0
        self.num_samples = math.ceil(len(dataset) / self.nranks)
        self.total_size = self.num_samples * self.nranks

    def __iter__(self) -> Iterator[list[int]]:
        indices = list(range(len(self.dataset)))
        indices += indices[:self.total_size - len(indices)]
        if self.shuffle:
            np.random.RandomState(self.epoch).shuffle(indices)  # Paddle's order, rank-agreed
            self.epoch += 1
        if self.nranks > 1:
            indices = self._share(indices)
        for start in range(0, len(indices), self.batch_size):
            batch = indices[start:start + self.batch_size]
            if len(batch) == self.batch_size or not self.drop_last:
                yield batch

    def _share(self, indices: list) -> list:
        """This rank's indices: whole batches dealt round the ranks, then its slice of the
        tail that does not fill one batch per rank."""
        step = self.batch_size * self.nranks
        tail = self.total_size % step
        local_tail = tail // self.nranks
        mine: list = []
        for start in range(self.local_rank * self.batch_size, len(indices) - tail, step):
            mine.extend(indices[start:start + self.batch_size])
        rest = indices[len(indices) - tail:]
        mine.extend(rest[self.local_rank * local_tail:(self.local_rank + 1) * local_tail])
        return mine

    def __len__(self) -> int:
        extra = 0 if self.drop_last else self.batch_size - 1
        return (self.num_samples + extra) // self.batch_size

    def set_epoch(self, epoch: int) -> None:
        """Set the pass number that seeds the shuffle (call it with the same value on every
        rank before each pass)."""
        if isinstance(epoch, bool) or not isinstance(epoch, numbers.Integral) or epoch < 0:
            raise ValueError(f"DistributedBatchSampler.set_epoch: epoch must be an integer "
                             f">= 0, got {epoch!r}.")
        self.epoch = int(epoch)


class DataLoader:
    """Iterate over a dataset in batches of numpy arrays (``core.Tensor`` with return_tensors).

    ``for x, y in loader`` and Paddle's ``for x, y in loader()`` both work; ``len(loader)`` is
    the number of batches per pass. With ``shuffle=True`` each pass draws a new order from a
    generator seeded with ``seed`` (or, when None, from ``core.backend.rng()`` when the loader is
    made, so ``core.seed(n)`` before building it fixes the order too); every sample appears
    exactly once per pass (except the tail that ``drop_last`` drops).

    The data path (``core.data``, docs/data.md): ``pool_size`` (-1: the whole set; 0: stream
    order; k: a shuffle pool of k samples) and ``min_pool_size``, ``shuffle_files`` (shard
    order per pass), ``cache`` ("none" | "memory"), ``prefetch`` (batches prepared by a
    background thread), ``workers`` (decoding processes, same order as without) and
    ``sort_by_length`` (sequence datasets). ``stats`` holds the data-wait time and queue depth.
    ``device`` (``"cpu"``, ``"gpu:N"``; the current device when iterating) makes batches
    Tensors on it; with ``prefetch`` the prefetch thread uploads them (docs/gpu.md).
    The dataset may also be a stream read file by file (``core.data.FileDataset``).

    ``batch_sampler`` (Paddle's): an iterable of lists of indices (a ``BatchSampler``, or your
    own) that decides each batch in place of ``batch_size``, ``shuffle`` and ``drop_last``,
    which must then keep their defaults; ``len(loader)`` is ``len(batch_sampler)``. The order is
    the sampler's, so ``set_state_dict`` skips the batches already given but replays the
    order only if the sampler repeats it (a ``SequenceSampler``).
    """

    def __init__(self, dataset, batch_size: int = 1, shuffle: bool = False,
                 drop_last: bool = False, collate_fn: Callable | None = None,
                 seed: int | None = None, return_tensors: bool = False, pool_size: int = -1,
                 min_pool_size: int = -1, shuffle_files: bool = False, cache: str = "none",
                 prefetch: int = 0, workers: int = 0, sort_by_length: bool = False,
                 device: str | None = None, batch_sampler=None, *, feed_list=None, places=None,
                 return_list: bool = True, num_workers: int = 0, use_buffer_reader: bool = True,
                 prefetch_factor: int = 2, use_shared_memory: bool = True, timeout: float = 0,
                 worker_init_fn: Callable | None = None, persistent_workers: bool = False):
        _check_paddle_options(feed_list, return_list, use_buffer_reader, prefetch_factor,
                              use_shared_memory, timeout, worker_init_fn, persistent_workers)
        workers = _worker_count(workers, num_workers)
        device = _places_device(places, device)
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            _check_iterable_options(shuffle, batch_sampler, pool_size, min_pool_size,
                                    shuffle_files, cache, sort_by_length)
        else:
            _check_dataset(dataset)
        if batch_sampler is not None:
            _check_batch_sampler(batch_sampler, dataset, batch_size, shuffle, drop_last,
                                 sort_by_length)
        if isinstance(batch_size, bool) or not isinstance(batch_size, numbers.Integral) \
                or batch_size < 1:
            raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}.")
        if collate_fn is not None and not callable(collate_fn):
            raise TypeError(f"collate_fn must be callable or None, got {collate_fn!r}.")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral)
                                 or seed < 0):
            raise ValueError(f"seed must be a non-negative integer or None, got {seed!r}.")
        self.dataset = dataset
        self.batch_sampler = batch_sampler
        self.batch_size = None if batch_sampler is not None else int(batch_size)  # as Paddle
        self.shuffle = bool(shuffle)
        self.drop_last = bool(drop_last)
        self.collate_fn = collate_fn
        # Paddle's worker options: worker_init_fn(id) runs first in each worker process, and
        # timeout (seconds, 0: none) bounds the wait for a worker's next batch.
        self.worker_init_fn, self.timeout = worker_init_fn, float(timeout)
        self.return_list, self.persistent_workers = True, bool(persistent_workers)
        # device: batches come out as Tensors on it, converted by the prefetch thread when
        # there is one (pinned memory, its own stream: overlapping compute on a GPU).
        self.device = None if device is None else backend.parse_device(device)
        self.return_tensors = bool(return_tensors) or self.device is not None
        # A collate_fn expects a list of samples, so it disables the array fast path.
        self._arrays = dataset_arrays(dataset) if collate_fn is None and not self._iterable \
            else None
        entropy = seed if seed is not None else int(backend.rng().integers(2**63))
        self._rng = np.random.default_rng(entropy)
        self._pass_state = None  # the generator's state before the current pass was planned
        self._position = 0  # batches of the current pass handed out
        self._resume_at = 0  # batches the next pass skips (set by set_state_dict)
        # Pool, shard order, cache, prefetch thread and workers: see core.data and docs/data.md.
        pipeline.attach(self, PipelineOptions(pool_size, min_pool_size, bool(shuffle_files),
                                              cache, prefetch, workers, bool(sort_by_length)))

    def __len__(self) -> int:
        if self._iterable:
            raise TypeError(f"DataLoader over an IterableDataset ({type(self.dataset).__name__})"
                            " has no len(): the number of batches is known only at the end.")
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        n = len(self.dataset)
        return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)

    def __call__(self) -> Iterator:
        return iter(self)

    def __iter__(self) -> Iterator:
        # Plans the pass (index_batches), skips what set_state_dict says was done, then reads
        # through the pool/cache/workers/prefetch thread; see core.data.pipeline.iterate.
        batches = _iterate_stream(self) if self._iterable else pipeline.iterate(self)
        if _profiling.ACTIVE:  # a started core.profiler times each next (reader cost)
            return _profiling.timed_batches(batches, type(self).__name__)
        return batches

    def state_dict(self) -> dict:
        """Where the loader is: the shuffle generator's state before the current pass was
        planned and the batches of that pass already handed out (between passes: the current
        state and 0). ``set_state_dict`` of it replays the same order and skips those batches."""
        if self._pass_state is None:
            return {"rng": self._rng.bit_generator.state, "next_batch": 0}
        return {"rng": self._pass_state, "next_batch": self._position}

    def set_state_dict(self, state: dict) -> None:
        """Restore ``state_dict()``: the next pass has the saved pass's order and starts at its
        ``next_batch``-th batch (a checkpoint's trainer may set ``next_batch`` to what it did)."""
        try:
            self._rng.bit_generator.state = state["rng"]
            self._resume_at = int(state["next_batch"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"DataLoader.set_state_dict: the state must be a dict from "
                             f"DataLoader.state_dict() with 'rng' and 'next_batch' ({exc!r}).") \
                from None
        if not 0 <= self._resume_at <= len(self):
            raise ValueError(f"DataLoader.set_state_dict: next_batch={self._resume_at} is not in "
                             f"[0, {len(self)}], the batches of one pass.")
        self._pass_state = None

    def index_batches(self) -> list[np.ndarray]:
        """Plan one pass: the sample indices of each batch (draws a new order when shuffling)."""
        self._pass_state = self._rng.bit_generator.state
        if self.batch_sampler is not None:
            return [np.asarray(list(batch), dtype=np.int64).reshape(-1)
                    for batch in self.batch_sampler]
        opts = self.pipeline
        order = plan_order(len(self.dataset), getattr(self.dataset, "shards", None),
                           self.shuffle, opts.pool_size, opts.initial_fill(), opts.shuffle_files,
                           self._rng)
        lengths = getattr(self.dataset, "lengths", None) if opts.sort_by_length else None
        return cut_batches(order, self.batch_size, self.drop_last, lengths, opts.pool_size,
                           self.shuffle, self._rng)

    def load_batch(self, indices: np.ndarray):
        """The batch made of the samples at ``indices``."""
        if self._arrays is not None:
            batch = tuple(a[indices] for a in self._arrays)
        else:
            samples = [self.dataset[int(i)] for i in indices]
            batch = (self.collate_fn or default_collate)(samples)
        return to_tensors(batch) if self.return_tensors else batch


def _iterate_stream(loader) -> Iterator:
    """The batches of one pass over an IterableDataset: ``batch_size`` samples at a time from
    its iterator (the last, shorter batch kept unless ``drop_last``), in this process or, with
    workers, from each worker's own iterator in turn (``InterleavedWorkers``)."""
    if loader.device is not None and loader.device != backend.current_device():
        raise ValueError(f"DataLoader(device='{loader.device}') is iterated while the current "
                         f"device is '{backend.current_device()}': select that device first "
                         "(core.device.set_device) or give the loader the current one.")
    opts, stats = loader.pipeline, loader.stats
    collate = loader.collate_fn or default_collate
    workers = None
    if opts.workers:  # forked here, in the consumer's thread, before a prefetch thread starts
        workers = InterleavedWorkers(
            lambda: _stream_batches(loader.dataset, loader.batch_size, loader.drop_last,
                                    collate), opts.workers, pipeline.worker_setup(loader))

    def make() -> Iterator:
        if workers is not None:
            return iter(workers)
        return _stream_batches(loader.dataset, loader.batch_size, loader.drop_last, collate)

    source = prefetched(make, opts.prefetch) if opts.prefetch else make()
    try:
        while True:
            begin = time.perf_counter()
            try:
                batch = next(source)
            except StopIteration:
                return
            stats.record(time.perf_counter() - begin, 0)
            yield to_tensors(batch) if loader.return_tensors else batch
    finally:
        if hasattr(source, "close"):
            source.close()
        if workers is not None:
            workers.close()


def _stream_batches(dataset, batch_size: int, drop_last: bool, collate) -> Iterator:
    batch: list = []
    for sample in dataset:
        batch.append(sample)
        if len(batch) == batch_size:
            yield collate(batch)
            batch = []
    if batch and not drop_last:
        yield collate(batch)


def _check_paddle_options(feed_list, return_list, use_buffer_reader, prefetch_factor,
                          use_shared_memory, timeout, worker_init_fn, persistent_workers) -> None:
    """Paddle's DataLoader arguments: checked; the static-graph ones refused."""
    if feed_list is not None:
        raise ValueError("DataLoader: feed_list names the static-graph inputs that batches feed "
                         "(Paddle's static mode); core runs dynamic graphs only: leave it None.")
    for name, value in (("return_list", return_list), ("use_buffer_reader", use_buffer_reader),
                        ("use_shared_memory", use_shared_memory),
                        ("persistent_workers", persistent_workers)):
        if not isinstance(value, bool):
            raise TypeError(f"DataLoader: {name} must be a bool, got {value!r}.")
    if not return_list:
        raise ValueError("DataLoader: return_list=False gives batches as dicts keyed by "
                         "feed_list names, which Paddle supports in static-graph mode only; "
                         "core runs dynamic graphs, where batches are lists (return_list=True).")
    if isinstance(prefetch_factor, bool) or not isinstance(prefetch_factor, numbers.Integral) \
            or prefetch_factor < 1:
        raise ValueError(f"DataLoader: prefetch_factor must be a positive integer, got "
                         f"{prefetch_factor!r}.")
    if isinstance(timeout, bool) or not isinstance(timeout, numbers.Real) or not timeout >= 0:
        raise ValueError(f"DataLoader: timeout must be a number of seconds >= 0 (0: no limit), "
                         f"got {timeout!r}.")
    if worker_init_fn is not None and not callable(worker_init_fn):
        raise TypeError(f"DataLoader: worker_init_fn must be callable (it is called with the "
                        f"worker id) or None, got {worker_init_fn!r}.")


def _worker_count(workers, num_workers) -> int:
    """Paddle's ``num_workers`` or core's ``workers`` (the same thing); both only if equal."""
    if isinstance(num_workers, bool) or not isinstance(num_workers, numbers.Integral) \
            or num_workers < 0:
        raise ValueError(f"DataLoader: num_workers must be an integer >= 0, got "
                         f"{num_workers!r}.")
    if num_workers and workers and num_workers != workers:
        raise ValueError(f"DataLoader: num_workers={num_workers} and workers={workers} are the "
                         "same setting (Paddle's name and core's); give one of them.")
    return num_workers or workers


def _places_device(places, device):
    """The device of Paddle's ``places`` (a place, a device string, or a list of one), or
    ``device`` when ``places`` is None."""
    if places is None:
        return device
    if device is not None:
        raise ValueError(f"DataLoader: places={places!r} and device={device!r} are the same "
                         "setting (Paddle's name and core's); give one of them.")
    if isinstance(places, (list, tuple)):
        if len(places) != 1:
            raise ValueError(f"DataLoader: places={places!r} must name one device (dynamic "
                             "graphs load onto one place, as in Paddle).")
        places = places[0]
    if isinstance(places, backend.Place):  # CPUPlace(), CUDAPlace(n); CUDAPinnedPlace: host
        return str(places.device)
    spec = str(places).strip()
    if spec.startswith("Place(") and spec.endswith(")"):  # str() of a Paddle place
        spec = spec[len("Place("):-1]
    return spec


def _check_iterable_options(shuffle, batch_sampler, pool_size, min_pool_size, shuffle_files,
                            cache, sort_by_length) -> None:
    """An IterableDataset is read in its own order, once: the options that reorder, index or
    cache samples do not apply."""
    if shuffle:
        raise ValueError("DataLoader: shuffle=True is not supported for an IterableDataset (it "
                         "is read in its own order, as in Paddle); shuffle inside __iter__.")
    if batch_sampler is not None:
        raise ValueError("DataLoader: an IterableDataset has no indices for a batch_sampler "
                         "(as in Paddle); use batch_size.")
    given = {"pool_size": pool_size != -1, "min_pool_size": min_pool_size != -1,
             "shuffle_files": bool(shuffle_files), "cache": cache != "none",
             "sort_by_length": bool(sort_by_length)}
    refused = [name for name, is_set in given.items() if is_set]
    if refused:
        raise ValueError(f"DataLoader: {', '.join(refused)} do(es) not apply to an "
                         "IterableDataset (read once, in its own order); leave them at their "
                         "defaults.")


def _check_batch_sampler(batch_sampler, dataset, batch_size, shuffle, drop_last,
                         sort_by_length) -> None:
    if batch_size != 1 or shuffle or drop_last:
        raise ValueError("DataLoader: batch_sampler decides the batches; leave batch_size, "
                         "shuffle and drop_last at their defaults (1, False, False) when giving "
                         "it (BatchSampler(dataset, batch_size=..., shuffle=..., drop_last=...) "
                         "takes them).")
    if not (hasattr(batch_sampler, "__iter__") and hasattr(batch_sampler, "__len__")):
        raise TypeError(f"DataLoader: batch_sampler must be iterable (lists of indices) and "
                        f"have a len(), like core.io.BatchSampler; got "
                        f"{type(batch_sampler).__name__}.")
    if pipeline.is_stream(dataset):
        raise ValueError("DataLoader: a dataset read file by file (core.data.FileDataset) has "
                         "no indices for a batch_sampler; use batch_size and shuffle.")
    if sort_by_length:
        raise ValueError("DataLoader: sort_by_length makes its own batches; it cannot be used "
                         "with a batch_sampler.")


def _check_dataset(dataset) -> None:
    if pipeline.is_stream(dataset):  # read file by file (core.data.FileDataset)
        return
    if not (hasattr(dataset, "__getitem__") and hasattr(dataset, "__len__")):
        raise TypeError(
            f"DataLoader needs a dataset with __getitem__ and __len__ (a core.io.Dataset), "
            f"got {type(dataset).__name__}."
        )
