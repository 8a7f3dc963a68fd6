"""The environment for running ``python -m runner`` from the checkout in a subprocess."""
from __future__ import annotations

import os
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
