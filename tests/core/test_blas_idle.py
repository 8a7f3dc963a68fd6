"""core.blas_idle: ``import core`` shortens OpenBLAS's idle spin when it still can."""
import os
import subprocess
import sys

from core import blas_idle


def test_sets_the_spin_when_numpy_is_not_loaded():
    environ = {}
    assert blas_idle.spin_briefly(environ, modules={})
    assert environ == {"OPENBLAS_THREAD_TIMEOUT": blas_idle.SPIN_LOG2_CYCLES}


def test_keeps_a_value_the_user_set():
    environ = {"OPENBLAS_THREAD_TIMEOUT": "28"}
    assert not blas_idle.spin_briefly(environ, modules={})
    assert environ == {"OPENBLAS_THREAD_TIMEOUT": "28"}


def test_leaves_the_environment_once_numpy_is_loaded():
    """OpenBLAS has read the variable by then: setting it would only mislead."""
    environ = {}
    assert not blas_idle.spin_briefly(environ, modules={"numpy": object()})
    assert environ == {}


def _after_import(first: str, **env) -> list[str]:
    code = (f"import {first}, core, os; "
            "print(os.environ.get('OPENBLAS_THREAD_TIMEOUT'), core.blas_idle.applied)")
    clean = {k: v for k, v in os.environ.items() if k != "OPENBLAS_THREAD_TIMEOUT"}
    return subprocess.run([sys.executable, "-c", code], env={**clean, **env}, check=True,
                          capture_output=True, text=True).stdout.split()


def test_import_core_sets_it_before_numpy_loads():
    assert _after_import("sys") == [blas_idle.SPIN_LOG2_CYCLES, "True"]
    assert _after_import("numpy") == ["None", "False"]  # numpy first: too late, left alone
    assert _after_import("sys", OPENBLAS_THREAD_TIMEOUT="25") == ["25", "False"]
