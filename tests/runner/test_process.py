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


def _with_stdout_closed(tmp_path, module: str, *args: str):
    """``python -m MODULE ARGS`` whose stdout reader has gone before it writes (``| head``
    that already exited): ``(returncode, stderr)``."""
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    from tests.runner.subprocesses import runner_env  # noqa: PLC0415

    child = subprocess.Popen([sys.executable, "-m", module, *args], cwd=tmp_path,
                             env=runner_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    child.stdout.close()
    _, err = child.communicate(timeout=300)
    return child.returncode, err


def test_a_run_whose_console_closed_goes_on_without_a_traceback_per_line(tmp_path):
    """python -m runner | head printed logging's "--- Logging error ---" traceback for every
    line after the reader left; the run goes on, and its log file keeps every line."""
    code, err = _with_stdout_closed(
        tmp_path, "runner", "model=mlp", "model.hidden=[8]", "trainer.epochs=1",
        "trainer.checkpoint=false", "tracking.enabled=false", "runtime.threads=1",
        "hydra.run.dir=out")
    assert code == 0, err[-3000:]
    assert "Logging error" not in err and "Traceback" not in err, err[-3000:]
    log_text = (tmp_path / "out" / "tomlrun.log").read_text()
    assert "epoch 0 valid loss" in log_text and "valid/acc = " in log_text


@pytest.mark.parametrize("module, args", [
    ("runner", ["--help"]),
    ("runner.summary", ["model=mlp"]),
    ("runner.infer", ["--help"]),
])
def test_printing_commands_exit_quietly_when_their_console_closed(tmp_path, module, args):
    """A BrokenPipeError traceback was the end of python -m runner --help | head -1 (and of
    runner.summary, runner.compare, runner.infer piped the same way)."""
    code, err = _with_stdout_closed(tmp_path, module, *args)
    assert code == process.EXIT_BROKEN_PIPE, err[-3000:]
    assert err == ""
