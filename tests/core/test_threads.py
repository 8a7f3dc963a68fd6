"""core.threads: the thread count, how work is split, failures, and forked children."""
import os
import time

import numpy as np
import pytest

import core
from core import threads
from core.nn import functional as F


@pytest.fixture
def two_threads():
    core.device.set_num_threads(2)
    yield
    core.device.set_num_threads(1)


def test_thread_count_and_how_work_is_split(two_threads):
    threadpoolctl = pytest.importorskip("threadpoolctl")
    assert core.device.get_num_threads() == 2
    assert all(p["num_threads"] == 1 for p in threadpoolctl.threadpool_info()
               if p["user_api"] == "blas")  # one BLAS thread per worker while we split
    assert threads.host_workers(np.zeros(1), 1) == 1  # nothing to split
    assert threads.host_workers(np.zeros(1), 9) == 2
    seen = threads.run_split(9, 2, lambda start, stop: (start, stop))
    assert seen == [(0, 4), (4, 9)]
    with pytest.raises(ValueError, match="threads must be an int >= 1"):
        core.device.set_num_threads(0)


def test_a_failing_slice_raises_after_every_slice_finished(two_threads):
    finished = []

    def task(start, stop):
        if start:
            raise RuntimeError("slice failed")
        finished.append((start, stop))

    with pytest.raises(RuntimeError, match="slice failed"):
        threads.run_split(4, 2, task)
    assert finished == [(0, 2)]


def test_a_forked_child_splits_work_on_threads_of_its_own(two_threads):
    """A data-loader worker forked after the pool exists inherits none of its threads: the
    child must start a pool of its own instead of waiting forever."""
    x = core.to_tensor(np.random.default_rng(0).random((64, 2048)).astype(np.float32))
    F.relu(x)  # the parent's pool now exists
    pid = os.fork()
    if pid == 0:  # the child: exit 0 only if the split work finishes and is right
        ok = False
        try:
            ok = np.array_equal(F.relu(x).numpy(), x.numpy())
        finally:
            os._exit(0 if ok else 1)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            assert os.waitstatus_to_exitcode(status) == 0
            return
        time.sleep(0.05)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    pytest.fail("the forked child's split work never finished")
