"""Fixtures for the whole suite: where the owners' shared test data lives.

The data sits in ``shared/data`` beside the checkout (``../shared/data`` from the repository
root), as on developers' machines and in CI; ``TOMLRUN_SHARED_DATA`` points elsewhere. Tests that
need it are skipped, with the path in the reason, where it is missing: the product never needs it.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("TOMLRUN_SHARED_DATA", REPO.parent / "shared" / "data"))


@pytest.fixture
def shared_dir():
    """``shared_dir("mnist")``: a folder of the shared test data, or a skip when it is absent."""
    def get(name: str) -> Path:
        folder = SHARED_DATA / name
        if not folder.is_dir():
            pytest.skip(f"{folder} is not available")
        return folder
    return get
