"""The import contracts of pyproject.toml hold: core stands alone, the runner's layers import
downward only, and no sibling modules import each other in a cycle (docs/architecture.md); and
`ruff check` finds nothing under pyproject's rule set."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import core

ROOT = Path(__file__).resolve().parents[1]


def test_import_contracts_are_kept():
    lint = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    if not Path(lint).exists():
        pytest.fail("lint-imports is missing: pip install '.[dev]' installs import-linter")
    done = subprocess.run([lint, "--config", str(ROOT / "pyproject.toml")], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "0 broken" in done.stdout


def test_ruff_finds_nothing():
    pytest.importorskip("ruff", reason="ruff is missing: pip install '.[dev]' installs it")
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "."], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


@pytest.mark.parametrize("name", ["inference", "io", "nn", "optimizer", "metric", "datasets",
                                  "debug", "sparse", "backend", "regularizer", "device",
                                  "serialize", "data"])
def test_public_modules_are_attributes_of_core(name):
    assert hasattr(core, name), f"core.{name} needs an explicit import in core/__init__.py"


def test_no_test_module_needs_torch_to_be_collected():
    """torch is not in the dev extra: the README's test command runs without it, so a test
    module imports torch inside the tests that use it (pytest.importorskip), never at the top
    (one such import stopped the whole run at collection)."""
    offenders = [f"{path.relative_to(ROOT)}:{number}"
                 for path in sorted((ROOT / "tests").rglob("*.py"))
                 for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if line.startswith(("import torch", "from torch"))]
    assert offenders == []
