"""Running ``python -m runner`` from the checkout in subprocesses: the environment, and many
at once."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def runner_env(**extra: str) -> dict[str, str]:
    """This process's environment with the checkout first on PYTHONPATH, plus ``extra``.

    HYDRA_FULL_ERROR is dropped: tests check that user errors print no traceback.
    """
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]), **extra}
    env.pop("HYDRA_FULL_ERROR", None)
    return env


def run_all(jobs: dict[str, tuple[Path, list[str]]],
            timeout: float) -> dict[str, tuple[int, str, str, Path]]:
    """Start ``python -m runner ARGS`` in CWD for every ``name -> (cwd, args)`` at once, then
    wait for each; ``name -> (returncode, stdout, stderr, cwd)``."""
    env = runner_env()
    started = {name: (cwd, subprocess.Popen([sys.executable, "-m", "runner", *args], cwd=cwd,
                                            env=env, text=True, stdout=subprocess.PIPE,
                                            stderr=subprocess.PIPE))
               for name, (cwd, args) in jobs.items()}
    results = {}
    for name, (cwd, process) in started.items():
        stdout, stderr = process.communicate(timeout=timeout)
        results[name] = (process.returncode, stdout, stderr, cwd)
    return results
