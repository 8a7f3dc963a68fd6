"""Readers over files, worker processes, the memory cache and the prefetch thread."""
from __future__ import annotations

import os
import time
import tracemalloc

import numpy as np
import pytest

from core.data import FileDataset, ReaderError, WorkerError, expand_files, register_reader
from core.io import DataLoader


def write_files(folder, counts):
    paths = []
    for number, count in enumerate(counts):
        path = folder / f"part{number}.txt"
        start = sum(counts[:number])
        path.write_text("".join(f"{start + i}\n" for i in range(count)))
        paths.append(str(path))
    return paths


@register_reader("test_lines")
def read_lines(path):
    with open(path) as handle:
        for line in handle:
            if line.strip() == "13":
                if os.environ.get("TOMLRUN_TEST_FAIL") == "1":
                    raise ValueError("unlucky line")
            yield np.int64(int(line)), np.int64(int(line) % 2)


def all_ids(loader):
    return [int(i) for batch in loader for i in batch[0]]


@pytest.fixture
def files(tmp_path):
    return write_files(tmp_path, [30, 25, 40, 5])


def test_stream_in_file_order_without_shuffle(files):
    loader = DataLoader(FileDataset(files, "test_lines"), batch_size=8)
    assert len(loader) == 13
    assert all_ids(loader) == list(range(100))


@pytest.mark.parametrize("workers, prefetch", [(0, 0), (2, 0), (0, 2), (3, 3)])
def test_same_seed_same_order_with_workers_and_prefetch(files, workers, prefetch):
    def passes(**kwargs):
        loader = DataLoader(FileDataset(files, "test_lines"), batch_size=8, shuffle=True,
                            seed=3, pool_size=12, shuffle_files=True, **kwargs)
        return [all_ids(loader) for _ in range(2)]

    reference = passes()
    got = passes(workers=workers, prefetch=prefetch)
    assert got == reference
    assert sorted(got[0]) == sorted(got[1]) == list(range(100))  # every sample once per pass
    assert got[0] != got[1]


def test_memory_cache_reads_files_only_once(files):
    calls = []

    def reader(path):
        calls.append(path)
        yield from read_lines(path)

    loader = DataLoader(FileDataset(files, reader, counts=[30, 25, 40, 5]), batch_size=10,
                        shuffle=True, seed=0, pool_size=20, shuffle_files=True, cache="memory")
    first, second = all_ids(loader), all_ids(loader)
    assert len(calls) == 4
    assert sorted(first) == sorted(second) == list(range(100)) and first != second


def test_map_dataset_cache_and_workers_keep_order():
    class Slow:
        def __init__(self):
            self.reads = 0

        def __getitem__(self, i):
            self.reads += 1
            return np.float32(i), np.int64(i)

        def __len__(self):
            return 50

    def run(**kwargs):
        data = Slow()
        loader = DataLoader(data, batch_size=6, shuffle=True, seed=1, **kwargs)
        return [np.concatenate([b[1] for b in loader]).tolist() for _ in range(2)], data

    reference, _ = run()
    got, data = run(workers=2, cache="memory", prefetch=1)
    assert got == reference
    assert data.reads == 0  # pass 1 decoded in the workers, pass 2 served from memory
    _, plain = run(cache="memory")
    assert plain.reads == 50


def test_peak_memory_is_bounded_by_the_pool(tmp_path):
    big = 100_000  # bytes per sample; 300 samples would hold 30 MB

    def reader(path):
        for i in range(100):
            yield np.full(big // 8, i, dtype=np.float64), np.int64(i)

    paths = write_files(tmp_path, [1, 1, 1])
    loader = DataLoader(FileDataset(paths, reader, counts=[100] * 3), batch_size=4, shuffle=True,
                        seed=0, pool_size=10, shuffle_files=True)
    tracemalloc.start()
    try:
        seen = 0
        for images, _ in loader:
            seen += len(images)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert seen == 300
    # pool (10) + one batch being built (4) + the collated batch (4) + slack, far below 300.
    assert peak < 24 * big


def test_reader_error_names_file_and_sample(files):
    os.environ["TOMLRUN_TEST_FAIL"] = "1"
    try:
        loader = DataLoader(FileDataset(files, "test_lines", counts=[30, 25, 40, 5]),
                            batch_size=8)
        with pytest.raises(ReaderError, match=r"sample 13 of file .*part0.txt.*unlucky"):
            all_ids(loader)
    finally:
        del os.environ["TOMLRUN_TEST_FAIL"]


@pytest.mark.parametrize("prefetch", [0, 2])
def test_worker_error_surfaces_with_file_and_index_and_stops(files, prefetch):
    os.environ["TOMLRUN_TEST_FAIL"] = "1"
    try:
        loader = DataLoader(FileDataset(files, "test_lines", counts=[30, 25, 40, 5]),
                            batch_size=8, workers=2, prefetch=prefetch)
        begin = time.perf_counter()
        with pytest.raises(WorkerError, match=r"sample 13 of file .*part0.txt.*unlucky"):
            all_ids(loader)
        assert time.perf_counter() - begin < 20
    finally:
        del os.environ["TOMLRUN_TEST_FAIL"]
    import multiprocessing
    deadline = time.time() + 5
    while multiprocessing.active_children() and time.time() < deadline:
        time.sleep(0.05)
    assert not multiprocessing.active_children()


def test_a_worker_that_dies_is_reported(files):
    def reader(path):
        yield np.int64(0), np.int64(0)
        os._exit(3)

    loader = DataLoader(FileDataset(files, reader, counts=[1] * 4), batch_size=2, workers=2)
    with pytest.raises(WorkerError, match="exited with code 3"):
        all_ids(loader)


def test_stopping_early_stops_the_prefetch_thread(files):
    import threading
    loader = DataLoader(FileDataset(files, "test_lines"), batch_size=4, prefetch=2, workers=2)
    for number, _ in enumerate(loader):
        if number == 2:
            break
    deadline = time.time() + 5
    while any(t.name == "tomlrun-prefetch" for t in threading.enumerate()) \
            and time.time() < deadline:
        time.sleep(0.05)
    assert not any(t.name == "tomlrun-prefetch" for t in threading.enumerate())


def test_stats_report_wait_and_queue_depth(files):
    loader = DataLoader(FileDataset(files, "test_lines"), batch_size=8, prefetch=3)
    for _ in loader:
        time.sleep(0.005)  # a "model" slower than the data: the queue fills up
    window = loader.stats.take_window()
    assert window["wait_sec"] >= 0 and loader.stats.total_batches == 13
    assert window["queue_depth"] > 0.5


def test_expand_files_and_unknown_reader(tmp_path, files):
    assert expand_files(["part*.txt"], root=str(tmp_path)) == sorted(files)
    with pytest.raises(FileNotFoundError, match="nothing"):
        expand_files(["nothing*.txt"], root=str(tmp_path))
    with pytest.raises(ValueError, match="not registered"):
        FileDataset(files, "no_such_reader")


@pytest.mark.parametrize("stream", [False, True])
def test_resume_mid_pass_with_pool_and_prefetch(files, stream):
    from core.io import TensorDataset

    def make():
        data = FileDataset(files, "test_lines", counts=[30, 25, 40, 5]) if stream \
            else TensorDataset(np.arange(100, dtype=np.int64), np.zeros(100, np.int64))
        return DataLoader(data, batch_size=8, shuffle=True, seed=7, pool_size=16,
                          shuffle_files=True, prefetch=2, workers=2 if stream else 0)

    reference = make()
    all_ids(reference)  # one pass, so the resumed pass is not the first
    full = [[int(i) for i in batch[0]] for batch in reference]
    loader = make()
    all_ids(loader)
    partial = []
    for number, batch in enumerate(loader):
        partial.append([int(i) for i in batch[0]])
        if number == 2:
            state = loader.state_dict()
            break
    resumed = make()
    resumed.set_state_dict(state)
    rest = [[int(i) for i in batch[0]] for batch in resumed]
    assert partial + rest == full


def test_worker_error_in_an_indexable_dataset_names_the_index():
    class Broken:
        def __getitem__(self, i):
            if i == 37:
                raise KeyError("no such record")
            return np.float32(i), np.int64(0)

        def __len__(self):
            return 60

    loader = DataLoader(Broken(), batch_size=8, workers=2)
    with pytest.raises(WorkerError, match="sample index 37 of Broken failed: KeyError"):
        list(loader)


class _GracefulStop(BaseException):
    pass


def _raise_graceful(signum, frame):
    raise _GracefulStop("stopped by SIGTERM")


def test_workers_stopped_mid_pass_print_nothing_under_a_parents_sigterm_handler(files, capfd):
    """A trainer turns SIGTERM into an exception for a graceful stop; forked workers inherit
    that handler, and stopping them at the end of a pass must not print its traceback."""
    import signal

    previous = signal.signal(signal.SIGTERM, _raise_graceful)
    try:
        for _ in range(3):
            loader = DataLoader(FileDataset(files, "test_lines"), batch_size=4, workers=2)
            batches = iter(loader)
            next(batches)  # the workers are mid-pass when the pass is dropped
            batches.close()
            time.sleep(0.2)  # let the stopped workers write whatever they would
    finally:
        signal.signal(signal.SIGTERM, previous)
    err = capfd.readouterr().err
    assert "Traceback" not in err and "_GracefulStop" not in err, err
