"""benchmarks/suite.py's numerics check at tiny sizes: every workload trains a few steps in core
and torch from the same weights on the same batches, and the losses agree (no timings), on the
CPU and, where cupy and a GPU are present, on gpu:0 (both libraries there)."""
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import suite  # noqa: E402


@pytest.mark.parametrize("name", list(suite.WORKLOADS))
def test_losses_agree_with_torch(name, device):
    assert suite.select_device(device) is None  # torch on the same device, IEEE float32
    check = suite.numerics(suite.WORKLOADS[name](quick=True), steps=3)
    assert check["ok"], check


def test_quick_run_writes_a_table_and_json(tmp_path, capsys):
    out = tmp_path / "suite.json"
    result = suite.main(["--quick", "--workloads", "mlp_b32", "--threads", "1", "--rounds", "1",
                         "--no-memory", "--json", str(out)])
    assert out.exists() and result["numerics"]["mlp_b32"]["ok"]
    assert {row["mode"] for row in result["rows"]} == {"train", "infer"}
    assert "mlp_b32" in capsys.readouterr().out
