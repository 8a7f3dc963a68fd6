"""The data-path options of ``core.io.DataLoader`` and the statistics it keeps about them."""
from __future__ import annotations

import numbers
from dataclasses import dataclass

from core.data.pool import ALL

CACHES = ("none", "memory")


def _count(name: str, value, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ValueError(f"DataLoader: {name} must be an integer >= {low}, got {value!r}.")
    return int(value)


@dataclass(frozen=True)
class PipelineOptions:
    """How a pass is read: pool, shard order, cache, background thread and worker processes.

    ``pool_size``: samples held to shuffle from (``-1``: the whole pass, ``0``: stream order);
    ``min_pool_size``: samples read before the first draw (``-1``: ``pool_size``);
    ``shuffle_files``: shuffle the shard (file) order every pass; ``cache``: ``"none"`` or
    ``"memory"`` (keep decoded samples after the first pass); ``prefetch``: batches prepared
    ahead by a background thread (0: none); ``workers``: decoding processes (0: none);
    ``sort_by_length``: batch samples of similar length together (sequence datasets).
    """

    pool_size: int = ALL
    min_pool_size: int = ALL
    shuffle_files: bool = False
    cache: str = "none"
    prefetch: int = 0
    workers: int = 0
    sort_by_length: bool = False

    def __post_init__(self):
        _count("pool_size", self.pool_size, ALL)
        _count("min_pool_size", self.min_pool_size, ALL)
        _count("prefetch", self.prefetch, 0)
        _count("workers", self.workers, 0)
        if self.cache not in CACHES:
            raise ValueError(f"DataLoader: cache must be one of {', '.join(CACHES)}, got "
                             f"{self.cache!r}.")
        if self.pool_size > 0 and self.min_pool_size > self.pool_size:
            raise ValueError(f"DataLoader: min_pool_size={self.min_pool_size} is larger than "
                             f"pool_size={self.pool_size}; use a min_pool_size <= pool_size.")

    def initial_fill(self) -> int:
        """How many samples the pool reads before its first draw."""
        return self.pool_size if self.min_pool_size == ALL else self.min_pool_size


class LoaderStats:
    """What the consumer waited for and how full the prefetch queue was.

    ``wait_sec`` counts the time the training loop spent inside ``next(loader)``: decoding and
    collating when nothing is prepared ahead, waiting on the queue when a thread prefetches.
    ``take_window()`` returns the numbers since its last call (for periodic metrics); the
    ``total_*`` counters cover the loader's whole life.
    """

    def __init__(self):
        self.total_wait_sec = 0.0
        self.total_batches = 0
        self._reset()

    def _reset(self) -> None:
        self.wait_sec = 0.0
        self.batches = 0
        self.depth_sum = 0
        self.tokens = 0
        self.padded = 0

    def record(self, wait_sec: float, queue_depth: int) -> None:
        self.wait_sec += wait_sec
        self.total_wait_sec += wait_sec
        self.batches += 1
        self.total_batches += 1
        self.depth_sum += queue_depth

    def record_padding(self, tokens: int, padded: int) -> None:
        """``tokens`` real steps in a batch whose padded array holds ``padded`` steps."""
        self.tokens += tokens
        self.padded += padded

    def take_window(self) -> dict[str, float]:
        """{wait_sec, queue_depth (mean before each batch), padding_fraction} since last call."""
        out = {"wait_sec": self.wait_sec,
               "queue_depth": self.depth_sum / self.batches if self.batches else 0.0}
        if self.padded:
            out["padding_fraction"] = 1.0 - self.tokens / self.padded
        self._reset()
        return out
