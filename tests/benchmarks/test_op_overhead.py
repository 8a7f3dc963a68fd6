"""benchmarks/op_overhead.py at a few calls per timing: every op runs in both libraries, gives
the same values, and the table and JSON name each one (no timings are checked)."""
import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import op_overhead  # noqa: E402


def test_every_op_agrees_with_torch_and_is_reported(tmp_path, capsys):
    out = tmp_path / "ops.json"
    threads = op_overhead.core.device.get_num_threads()
    rows = op_overhead.main(["--calls", "20", "--repeats", "1", "--size", "3",
                             "--json", str(out)])
    names = [row["op"] for row in rows]
    assert names == list(op_overhead.ops(pytest.importorskip("torch")))
    assert all(row["values_agree"] and row["core_us"] > 0 and row["torch_us"] > 0 for row in rows)
    assert json.loads(out.read_text()) == rows
    printed = capsys.readouterr().out
    assert all(f"| {name} |" in printed for name in names)
    assert op_overhead.core.device.get_num_threads() == threads  # measured at 1, then restored
