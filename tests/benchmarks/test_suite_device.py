"""benchmarks/suite.py --device, driven through ``suite.main`` on every backend present (cpu
always, gpu:0 where cupy and a GPU are): numerics agree, the rows are there and name the device,
each memory child runs on the device; and a device that cannot run is a usage error, not a
traceback."""
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import suite  # noqa: E402
import suite_measure  # noqa: E402

WORKLOADS = ("cnn_b100", "embed_bag_b128")


def test_quick_run_on_each_device(device, capsys):
    result = suite.main(["--quick", "--workloads", ",".join(WORKLOADS), "--rounds", "1",
                         "--no-memory", "--device", device])
    assert all(check["ok"] for check in result["numerics"].values()), result["numerics"]
    rows = result["rows"]
    assert {(row["workload"], row["mode"]) for row in rows} == {
        (name, mode) for name in WORKLOADS for mode in ("train", "infer")}
    assert all(row["core"] > 0 and row["torch"] > 0 for row in rows)
    assert result["device"]["device"] == device
    assert suite.core.device.get_device() == device  # the fixture's choice, restored by main
    printed, progress = capsys.readouterr()
    # minutes of work show on stderr, stage by stage, before the table
    assert "numerics cnn_b100: ok" in progress and "round 1 of 1" in progress, progress
    if device == "cpu":
        assert all(isinstance(row["threads"], int) for row in rows)
    else:  # one set of rows, labelled with the device; the GPU's name printed
        assert all(row["threads"] == device for row in rows)
        assert f"on {device}" in printed and result["device"]["gpu"] in printed
        assert all(row["sgemm_peak_gflops"] > 0 for row in rows)


@pytest.mark.parametrize("framework", suite.FRAMEWORKS)
def test_memory_child_runs_on_the_device(device, framework):
    memory = suite_measure.run_memory_child(framework, "mlp_b32", True, device)
    assert memory is not None and memory["step_mb"] >= 0, memory
    if device != "cpu":  # the caching allocators' reserved bytes, and which one says so
        assert ("cupy" if framework == "core" else "torch") in memory["measure"]


@pytest.mark.parametrize("bad", ["tpu", "gpu", "cuda:0", "gpu:x", "gpu:0,gpu:1"])
def test_a_device_other_than_cpu_or_gpu_n_is_a_usage_error(bad, capsys):
    with pytest.raises(SystemExit) as exit_info:
        suite.main(["--quick", "--no-memory", "--device", bad])
    assert exit_info.value.code == 2
    assert "is not a device: use cpu or gpu:N" in capsys.readouterr().err


def test_gpu_without_cupy_is_a_usage_error(monkeypatch, capsys):
    suite.core.device.set_device("cpu")  # main restores this; the fixture restores its own
    monkeypatch.setitem(sys.modules, "cupy", None)  # `import cupy` fails, as without cupy
    with pytest.raises(SystemExit) as exit_info:
        suite.main(["--quick", "--no-memory", "--device", "gpu:0"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "cupy is not installed" in err and "Traceback" not in err
    assert suite.core.device.get_device() == "cpu"


def test_gpu_without_torch_cuda_is_a_usage_error(monkeypatch, capsys):
    import torch

    suite.core.device.set_device("cpu")
    monkeypatch.setattr(suite.core.device, "set_device", lambda spec: None)  # core could run
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(SystemExit) as exit_info:
        suite.main(["--quick", "--no-memory", "--device", "gpu:0"])
    assert exit_info.value.code == 2
    assert "sees 0 CUDA GPU(s)" in capsys.readouterr().err
