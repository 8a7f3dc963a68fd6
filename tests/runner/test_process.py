"""runner.process: the process-wide settings a run makes and undoes."""
import pytest

import core
from runner import process


def test_cpu_threads_apply_inside_the_block_only():
    """runtime.threads: core's thread count inside the run, BLAS at one thread per worker
    meanwhile; both come back afterwards. 0 means every core the process may use."""
    threadpoolctl = pytest.importorskip("threadpoolctl")

    def blas_threads():
        return [p["num_threads"] for p in threadpoolctl.threadpool_info()
                if p["user_api"] == "blas"]

    before, threads = blas_threads(), core.device.get_num_threads()
    with process.cpu_threads(3):
        assert core.device.get_num_threads() == 3
        assert blas_threads() == [1] * len(before)
    assert core.device.get_num_threads() == threads and blas_threads() == before
    with process.cpu_threads(0):
        assert core.device.get_num_threads() == core.device.available_cores()
    assert core.device.get_num_threads() == threads and blas_threads() == before


def test_zero_threads_honour_omp_num_threads_as_import_core_does(monkeypatch):
    """runtime.threads=0 is core's default count: OMP_NUM_THREADS where set (it had taken every
    core whatever the environment said)."""
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    with process.cpu_threads(0):
        assert core.device.get_num_threads() == 1
    monkeypatch.delenv("OMP_NUM_THREADS")
    for name in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        monkeypatch.delenv(name, raising=False)
    with process.cpu_threads(0):
        assert core.device.get_num_threads() == core.device.available_cores()


def test_more_threads_than_cores_is_a_warning(caplog):
    cores = core.device.available_cores()
    with caplog.at_level("WARNING"), process.cpu_threads(cores + 2):
        assert core.device.get_num_threads() == cores + 2
    assert f"runtime.threads = {cores + 2} is more than the {cores} core(s)" in caplog.text
