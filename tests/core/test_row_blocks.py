"""core.row_blocks: cache-sized blocks of rows, split over core's threads when worth it."""
import threading

import numpy as np

import core
from core import row_blocks


def test_as_rows_flattens_the_leading_axes():
    a = np.arange(24.0).reshape(2, 3, 4)
    assert row_blocks.as_rows(a).shape == (6, 4)
    assert np.shares_memory(row_blocks.as_rows(a), a)        # a view when contiguous
    assert row_blocks.as_rows(np.float32(3.0)).shape == (1, 1)


def _blocks_seen(rows, passes):
    seen, names = [], set()

    def fn(start, stop):
        names.add(threading.current_thread().name)
        seen.append((start, stop))
        return stop - start

    results = row_blocks.for_blocks(rows, fn, passes=passes)
    return sorted(seen), results, names


def test_blocks_cover_every_row_once_in_order(two_threads):
    rows = np.zeros((3000, 130), np.float32)  # 520 bytes a row: 1008 rows a block, ragged end
    seen, results, _ = _blocks_seen(rows, passes=1)
    assert seen == [(0, 1008), (1008, 2016), (2016, 3000)]
    assert results == [1008, 1008, 984]  # per-block results in row order
    assert _blocks_seen(np.zeros((0, 4)), passes=1)[0] == [(0, 0)]


def test_blocks_split_over_threads_only_when_the_work_pays(two_threads):
    rows = np.zeros((3000, 130), np.float32)  # 390K elements
    assert len(_blocks_seen(rows, passes=1)[2]) == 1        # one pass: below the split limit
    assert len(_blocks_seen(rows, passes=8)[2]) == 2        # eight passes: both threads
    core.device.set_num_threads(1)
    assert len(_blocks_seen(rows, passes=8)[2]) == 1


def test_a_device_array_runs_as_one_block():
    class DeviceLike:  # what for_blocks sees of a cupy array: not numpy's
        shape, itemsize, size = (5000, 130), 4, 650_000

    seen = []
    row_blocks.for_blocks(DeviceLike(), lambda i, j: seen.append((i, j)), passes=8)
    assert seen == [(0, 5000)]
