"""One pass of ``core.io.DataLoader``: plan, read (pool, cache, workers), prefetch, measure.

The plan of the pass (batch indices, or the file order and pool seed of a stream) is drawn in the
calling thread before anything else starts, from the loader's own generator: the same seed gives
the same batches with or without prefetching or workers. Batches are converted to Tensors in the
consumer's thread, so a GPU's current device and streams stay the training loop's; except when the
loader is given a ``device`` and prefetches: then the prefetch thread uploads each batch through a
``core.backend.UploadChannel`` (its own stream on a GPU) and the consumer's stream waits for the
copies on the device, not on the host.
"""
from __future__ import annotations

import copy
import time
from collections.abc import Iterator

import numpy as np

from core import backend
from core.data.collate import default_collate, to_tensors
from core.data.files import ReaderError
from core.data.pool import ALL, pool_shuffle, shard_order
from core.data.prefetch import prefetched
from core.data.workers import OrderedWorkers, WorkerSetup


def is_stream(dataset) -> bool:
    """A dataset read shard by shard (``read_shard``) rather than indexed sample by sample."""
    return hasattr(dataset, "read_shard") and not hasattr(dataset, "__getitem__")


def iterate(loader) -> Iterator:
    """The batches of one pass of ``loader`` (its ``__iter__``)."""
    opts, stats = loader.pipeline, loader.stats
    stream = is_stream(loader.dataset)
    plan = _plan_stream(loader) if stream else loader.index_batches()
    count = len(plan[0]) if stream else len(plan)
    # A restored state (DataLoader.set_state_dict) skips the batches its pass already gave.
    start, loader._resume_at = loader._resume_at, 0
    if stream:
        workers = _start_workers(loader, plan, stream)

        def make():
            return _skip(_stream_batches(loader, plan, workers), start)
    else:
        workers = _start_workers(loader, plan[start:], stream)

        def make():
            return _map_batches(loader, plan[start:], workers)
    channel = _upload_channel(loader)
    depth = [0]
    source = prefetched(make if channel is None else _uploading(make, channel, to_tensors),
                        opts.prefetch, lambda n: depth.__setitem__(0, n)) \
        if opts.prefetch else make()
    lengths = None if stream else getattr(loader.dataset, "lengths", None)
    try:
        for position in range(start, count):
            begin = time.perf_counter()
            if channel is not None:
                channel.release()  # before ``batch`` lets go of the previous batch
            try:
                batch = next(source)
            except StopIteration:
                break
            if channel is not None:
                batch, ticket = batch
                channel.accept(ticket)
            elif loader.return_tensors:
                batch = to_tensors(batch)
            stats.record(time.perf_counter() - begin, depth[0])
            if lengths is not None:
                used = lengths[plan[position]]
                stats.record_padding(int(used.sum()), len(used) * int(used.max(initial=0)))
            loader._position = position + 1
            yield batch
        loader._pass_state = None  # the pass is over: the next one draws from the current state
    finally:
        if channel is not None:
            channel.release()  # the next pass's uploads may reuse this pass's last batches
        if hasattr(source, "close"):
            source.close()
        if workers is not None:
            workers.close()


def _upload_channel(loader):
    """The channel the prefetch thread uploads through (None: the consumer converts, onto the
    current device, which must be the loader's when it names one)."""
    if loader.device is None:
        return None
    if loader.device != backend.current_device():
        raise ValueError(f"DataLoader(device='{loader.device}') is iterated while the current "
                         f"device is '{backend.current_device()}': batches must go where the "
                         "model is, so select that device first (core.device.set_device) or "
                         "give the loader the current one.")
    if not loader.pipeline.prefetch:
        return None
    if loader._channel is None or loader._channel.device != loader.device:
        loader._channel = backend.upload_channel(loader.device)  # kept: one stream, every pass
    return loader._channel


def _uploading(make, channel, to_tensors):
    """``make`` for the prefetch thread: each batch as Tensors on the device, with the ticket
    the consumer's ``channel.accept`` takes."""
    def source() -> Iterator:
        batches = make()
        try:
            with channel.producing():
                for batch in batches:
                    yield to_tensors(batch), channel.ready()
        finally:
            batches.close()  # in this thread, as prefetched closes what it runs (workers)

    return source


# ----- in-memory (indexable) datasets ----------------------------------------------------------

def _start_workers(loader, plan, stream: bool):
    workers = loader.pipeline.workers
    if workers == 0:
        return None
    if stream:
        if _shards_cached(loader):
            return None
        order = plan[1]
        return OrderedWorkers(list(order), loader.dataset.read_shard, workers,
                              worker_setup(loader))
    if loader._arrays is not None or _all_cached(loader):
        return None  # array slicing, or every sample already decoded: nothing to hand out
    dataset = loader.dataset

    def read_batch(indices):
        for i in indices:
            try:
                yield dataset[int(i)]
            except Exception as exc:  # name the sample: the worker's traceback is a copy
                raise ReaderError(f"reading sample index {int(i)} of "
                                  f"{type(dataset).__name__} failed: {type(exc).__name__}: "
                                  f"{exc}") from exc

    return OrderedWorkers(list(plan), read_batch, workers, worker_setup(loader))


def worker_setup(loader) -> WorkerSetup:
    """The loader's ``worker_init_fn``, ``timeout`` and a base seed for ``get_worker_info()``:
    drawn from a copy of the loader's generator, so workers leave its batch order as it is."""
    seed = int(copy.deepcopy(loader._rng).integers(2**31))
    return WorkerSetup(loader.pipeline.workers, loader.dataset,
                       getattr(loader, "worker_init_fn", None), seed,
                       getattr(loader, "timeout", 0))


def attach(loader, options) -> None:
    """Give ``loader`` its pipeline options, statistics and (empty) caches."""
    from core.data.options import LoaderStats  # noqa: PLC0415

    loader.pipeline = options
    loader.stats = LoaderStats()
    keep = options.cache == "memory"
    loader._sample_cache = {} if keep else None  # index -> decoded sample
    loader._shard_cache = {} if keep else None  # shard -> its samples, once read whole
    loader._channel = None  # the UploadChannel of a loader with a device, made on first use


def _shards_cached(loader) -> bool:
    cache = loader._shard_cache
    return cache is not None and len(cache) == len(loader.dataset.shards)


def _all_cached(loader) -> bool:
    cache = loader._sample_cache
    return cache is not None and len(cache) == len(loader.dataset)


def _map_batches(loader, plan: list, workers) -> Iterator:
    collate = loader.collate_fn or default_collate
    cache = loader._sample_cache
    if workers is None:
        for indices in plan:
            yield _load(loader, indices, collate, cache)
        return
    samples: list = []
    for task_id, chunk in _with_ends(workers, len(plan)):
        if chunk is None:  # the batch is complete
            if cache is not None:
                cache.update(zip((int(i) for i in plan[task_id]), samples))
            yield collate(samples)
            samples = []
        else:
            samples += chunk


def _with_ends(workers, count: int):
    """(task, chunk) pairs from the workers, plus (task, None) after each task's last chunk."""
    current = 0
    for task_id, chunk in workers:
        while task_id > current:
            yield current, None
            current += 1
        yield task_id, chunk
    while current < count:
        yield current, None
        current += 1


def _load(loader, indices, collate, cache):
    if loader._arrays is not None:
        return tuple(a[indices] for a in loader._arrays)
    if cache is None:
        return collate([loader.dataset[int(i)] for i in indices])
    samples = []
    for i in indices:
        i = int(i)
        if i not in cache:
            cache[i] = loader.dataset[i]
        samples.append(cache[i])
    return collate(samples)


# ----- streams (files read by a reader) --------------------------------------------------------

def _plan_stream(loader):
    """(batch count, shard order, pool seed or None) of the next pass of a stream."""
    opts, rng = loader.pipeline, loader._rng
    loader._pass_state = rng.bit_generator.state
    shards = len(loader.dataset.shards)
    order = shard_order(shards, loader.shuffle and opts.shuffle_files, rng)
    seed = int(rng.integers(2**63)) if loader.shuffle and opts.pool_size != 0 else None
    return [None] * len(loader), order, seed


def _skip(batches: Iterator, count: int) -> Iterator:
    for number, batch in enumerate(batches):
        if number >= count:
            yield batch


def _stream_samples(loader, order, workers) -> Iterator:
    dataset, cache = loader.dataset, loader._shard_cache
    if _shards_cached(loader):
        for shard in order:
            yield from cache[int(shard)]
        return
    if workers is not None:
        chunks = _with_ends(workers, len(order))
        shard_samples = _group(chunks)
    else:
        shard_samples = (dataset.read_shard(int(s)) for s in order)
    for shard, samples in zip(order, shard_samples):
        kept = [] if cache is not None else None
        for sample in samples:
            if kept is not None:
                kept.append(sample)
            yield sample
        if kept is not None:
            cache[int(shard)] = kept


def _group(chunks) -> Iterator:
    """One generator of samples per task from (task, chunk or None) pairs."""
    source = iter(chunks)
    done = False

    def one_task():
        nonlocal done
        for _, chunk in source:
            if chunk is None:
                return
            yield from chunk
        done = True

    while not done:
        yield one_task()


def _stream_batches(loader, plan, workers) -> Iterator:
    count, order, seed = plan
    opts = loader.pipeline
    samples = _stream_samples(loader, order, workers)
    if seed is not None:
        size = len(loader.dataset) if opts.pool_size == ALL else opts.pool_size
        fill = size if opts.min_pool_size == ALL else opts.min_pool_size
        samples = pool_shuffle(samples, size, fill, np.random.default_rng(seed))
    collate = loader.collate_fn or default_collate
    batch: list = []
    made = 0
    for sample in samples:
        batch.append(sample)
        if len(batch) == loader.batch_size:
            yield collate(batch)
            made += 1
            batch = []
            if made == count:
                return
    if batch and not loader.drop_last:
        yield collate(batch)
