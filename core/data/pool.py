"""The shuffle pool and the plan of one pass (PaddlePaddle's PyDataProvider2 ``@provider``).

Data arrives as a stream: the samples of each shard (a file, or a block of an in-memory set) in
order. The pool holds at most ``pool_size`` samples and hands out a random one each time a sample
is needed, so ``pool_size`` decides both the memory held and how far apart two samples that are
neighbours in the stream can end up. ``min_pool_size`` samples are read before the first draw
(training starts sooner); after that, up to two samples are read per draw until the pool is
full, so it grows from ``min_pool_size`` to ``pool_size``. Shuffling the order of the shards
every pass (``shuffle_files``) keeps batches random with a small pool, as the FAQ recommends.

All random numbers of a pass are drawn from the loader's generator when the pass is planned, in
the main process, so a seed fixes the order whatever threads or workers prepare the batches.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Iterator

import numpy as np

ALL = -1  # pool_size meaning "the whole pass" (a full permutation); TOML has no null

_DRAWS = 4096  # random numbers fetched per generator call (one call per sample is slow)


def pool_shuffle(items: Iterable, pool_size: int, min_pool_size: int,
                 rng: np.random.Generator) -> Iterator:
    """Yield ``items`` in pool-shuffled order, holding at most ``pool_size`` of them.

    Every item is yielded exactly once. ``pool_size=1`` keeps the stream's order.
    """
    source = iter(items)
    pool: list = []
    exhausted = False

    def read(count: int) -> None:
        nonlocal exhausted
        while count > 0 and len(pool) < pool_size and not exhausted:
            try:
                pool.append(next(source))
            except StopIteration:
                exhausted = True
            count -= 1

    read(max(1, min(min_pool_size, pool_size)))
    draws, used = rng.random(_DRAWS), 0
    while pool:
        if used == _DRAWS:
            draws, used = rng.random(_DRAWS), 0
        pick = int(draws[used] * len(pool))
        used += 1
        pool[pick], pool[-1] = pool[-1], pool[pick]  # swap-remove keeps the draw O(1)
        yield pool.pop()
        read(2)


def shard_order(count: int, shuffle_files: bool, rng: np.random.Generator) -> np.ndarray:
    """The order the shards are read in this pass."""
    return rng.permutation(count) if shuffle_files else np.arange(count)


def plan_order(n: int, shards: list | None, shuffle: bool, pool_size: int, min_pool_size: int,
               shuffle_files: bool, rng: np.random.Generator) -> np.ndarray:
    """The sample indices of one pass, in the order they are served.

    ``pool_size=ALL`` draws one permutation of all samples (exactly as a loader without a pool
    does, so seeds keep their meaning); ``0`` serves the stream in shard order; ``k > 0`` runs the
    stream through a pool of ``k``. Without ``shuffle`` the order is always the stream's.
    """
    if shuffle and pool_size == ALL:
        return rng.permutation(n)
    shards = shards if shards is not None else [np.arange(n)]
    if shuffle:
        shards = [shards[i] for i in shard_order(len(shards), shuffle_files, rng)]
    stream = np.concatenate([np.asarray(s, dtype=np.int64) for s in shards]) if shards \
        else np.zeros(0, dtype=np.int64)
    if not shuffle or pool_size == 0:
        return stream
    return np.fromiter(pool_shuffle(stream, pool_size, min_pool_size, rng), dtype=np.int64,
                       count=len(stream))


def cut_batches(order: np.ndarray, batch_size: int, drop_last: bool, lengths=None,
                window: int = 0, shuffle: bool = False,
                rng: np.random.Generator | None = None) -> list[np.ndarray]:
    """Cut a pass's order into batches; with ``lengths``, batch similar lengths together.

    Length sorting works on consecutive windows of ``window`` samples (rounded up to whole
    batches; 0 means the whole pass): each window is sorted by length and cut into batches, and
    the batches of the pass are then shuffled (when ``shuffle``) so lengths do not rise steadily
    through a pass. The number of batches is the same as without sorting.
    """
    stop = (len(order) // batch_size) * batch_size if drop_last else len(order)
    if lengths is None:
        return [order[i:i + batch_size] for i in range(0, stop, batch_size)]
    window = len(order) if window <= 0 else window
    window = max(batch_size, math.ceil(window / batch_size) * batch_size)
    batches = []
    for start in range(0, stop, window):
        block = order[start:min(start + window, stop)]
        block = block[np.argsort(lengths[block], kind="stable")]
        batches += [block[i:i + batch_size] for i in range(0, len(block), batch_size)]
    if shuffle and rng is not None:
        batches = [batches[i] for i in rng.permutation(len(batches))]
    return batches
