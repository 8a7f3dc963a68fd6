"""Fixtures shared by core's tests."""
import pytest

import core
from core import threads

# The real limits below which an op runs on one thread (captured before any test patches them).
_SPLIT_LIMITS = {"_MIN_SPLIT_PASSES": threads._MIN_SPLIT_PASSES,
                 "_MIN_SPLIT_MACS": threads._MIN_SPLIT_MACS}


@pytest.fixture
def split_limits() -> dict:
    """core.threads' own limits, as the module defines them."""
    return dict(_SPLIT_LIMITS)


@pytest.fixture
def split_small_work(monkeypatch):
    """Every op splits over core's threads, however little work it has: the tests' arrays are
    small, and a test comparing threaded with single-threaded results must take the split."""
    for name in _SPLIT_LIMITS:
        monkeypatch.setattr(threads, name, 0)


@pytest.fixture
def two_threads():
    """core at two threads for the test, then back to what it was."""
    previous = core.device.get_num_threads()
    core.device.set_num_threads(2)
    yield
    core.device.set_num_threads(previous)


@pytest.fixture
def core_blas_threads():
    """A function giving the thread count of each BLAS library core sets (numpy's: the ones
    loaded when core first raised BLAS; a library loaded later, such as torch's, is not one
    core's GEMMs run on, and it keeps whatever count it has)."""
    return lambda: [controller.get_num_threads() for controller in threads._blas()]
