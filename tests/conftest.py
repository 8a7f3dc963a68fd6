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


# ----- backends -------------------------------------------------------------------------------
# TOMLRUN_TEST_DEVICE=gpu:0 runs the WHOLE suite with that device selected (on a GPU machine);
# the `device` fixture below parametrizes a test over every backend, skipping absent ones.
_SUITE_DEVICE = os.environ.get("TOMLRUN_TEST_DEVICE", "cpu")


def _gpu_skip_reason() -> str | None:
    from core import backend  # noqa: PLC0415 - keep collection free of core imports

    try:
        import cupy  # noqa: F401, PLC0415 - only probing whether the backend can exist
    except ImportError:
        return "cupy is not installed (pip install 'tomlrun[gpu]')"
    return None if backend.gpu_count() > 0 else "cupy imports but no GPU is visible"


@pytest.fixture(autouse=True)
def _suite_device():
    """Select TOMLRUN_TEST_DEVICE (default cpu) for each test and restore it afterwards, with
    the default float dtype (a test that sets float64 and fails must not leak it)."""
    from core import backend, framework  # noqa: PLC0415

    if _SUITE_DEVICE != "cpu":
        backend.set_device(_SUITE_DEVICE)
    yield
    backend.set_device(_SUITE_DEVICE)
    framework.set_default_dtype("float32")


@pytest.fixture
def on_cpu():
    """The CPU for this test, also when TOMLRUN_TEST_DEVICE selects a GPU: for tests of host-only
    behaviour (core's thread splits, memory layouts, numpy buffers, fork)."""
    from core import backend  # noqa: PLC0415

    backend.set_device("cpu")  # _suite_device puts the suite's device back afterwards


@pytest.fixture(params=["cpu", "gpu:0"])
def device(request):
    """Run the test once per backend: 'cpu' always, 'gpu:0' when cupy and a GPU are present."""
    from core import backend  # noqa: PLC0415

    if request.param != "cpu":
        reason = _gpu_skip_reason()
        if reason:
            pytest.skip(f"gpu backend: {reason}")
    backend.set_device(request.param)
    yield request.param
    backend.set_device(_SUITE_DEVICE)
