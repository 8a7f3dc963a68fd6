"""``paddle.version``: what this installation is, with honest values.

Paddle generates this module at build time; here the values are found out: ``full_version``
is the installed tomlrun's (``core.__version__``), ``commit`` the git commit of the checkout
the package runs from (``"unknown"`` for an installed wheel), ``with_mkl`` whether numpy's BLAS
is MKL. As Paddle, every value is a string and a CPU-only installation reports
``cuda_version == cudnn_version == "False"`` (the string); on a GPU they are the CUDA runtime and
cuDNN versions cupy reports (``"12.4"``, ``"8.9.2"``), looked up on first use so that importing
this module never imports cupy.
"""
from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

import core
from core import backend


def _split(version: str) -> tuple[str, str, str]:
    parts = (version.split("+")[0].split(".") + ["0", "0", "0"])[:3]
    return parts[0], parts[1], parts[2]


full_version = core.__version__
major, minor, patch = _split(full_version)
rc = "0"


def _is_release(version: str) -> bool:
    """A release has a plain version; a local build ("0+unknown": a bare checkout, not
    installed; "1.2.dev3") is not tagged."""
    return "+" not in version and all(part.isdigit() for part in _split(version))


istaged = is_tagged = _is_release(full_version)


def _git_commit() -> str:
    """The commit checked out where core's sources are (an editable install), else "unknown"."""
    git = Path(__file__).resolve().parents[1] / ".git"
    try:
        if git.is_file():  # a worktree: .git names the real folder
            git = Path(git.read_text().split("gitdir:", 1)[1].strip())
        head = (git / "HEAD").read_text().strip()
        if not head.startswith("ref: "):
            return head  # a detached HEAD is the commit itself
        ref = head[5:]
        if (git / ref).is_file():
            return (git / ref).read_text().strip()
        for line in (git / "packed-refs").read_text().splitlines():
            if line.endswith(" " + ref):
                return line.split()[0]
    except (OSError, IndexError):
        pass
    return "unknown"


commit = _git_commit()


def _blas_is_mkl() -> bool:
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]["name"]
    except Exception:  # noqa: BLE001 - an older numpy without mode="dicts": say no
        return False
    return "mkl" in str(blas).lower()


with_mkl = "ON" if _blas_is_mkl() else "OFF"


@functools.cache
def _gpu_versions() -> tuple[str, str]:
    """(CUDA runtime, cuDNN) versions as cupy reports them, "False" for each it cannot."""
    if backend.gpu_count() == 0:
        return "False", "False"
    import cupy  # noqa: PLC0415 - present: gpu_count() found a GPU through it

    runtime = cupy.cuda.runtime.runtimeGetVersion()  # 12040 for CUDA 12.4
    cuda_text = f"{runtime // 1000}.{runtime % 1000 // 10}"
    try:
        from cupy.cuda import cudnn  # noqa: PLC0415 - optional in cupy builds

        found = cudnn.getVersion()  # 8902 for 8.9.2; 90100 for 9.1.0
    except Exception:  # noqa: BLE001 - cupy without its cuDNN module or library
        return cuda_text, "False"
    scale = 10000 if found >= 90000 else 1000
    return cuda_text, f"{found // scale}.{found % scale // 100}.{found % 100}"


def cuda() -> str:
    """Paddle's ``paddle.version.cuda()``: the CUDA runtime version cupy uses (``"12.4"``), or
    ``"False"`` (a string, as Paddle's CPU builds) when no GPU is usable."""
    return _gpu_versions()[0]


def cudnn() -> str:
    """Paddle's ``paddle.version.cudnn()``: cuDNN's version as cupy reports it (``"8.9.2"``),
    or ``"False"`` when there is no GPU or cupy has no cuDNN."""
    return _gpu_versions()[1]


def mkl() -> str:
    """Paddle's ``paddle.version.mkl()``: ``"ON"`` when numpy's BLAS is MKL, else ``"OFF"``."""
    return with_mkl


def show() -> None:
    """Paddle's ``paddle.version.show()``: print the version (or, untagged, the commit) and the
    CUDA and cuDNN versions; also the array libraries core computes with."""
    if istaged:
        for name, value in (("full_version", full_version), ("major", major),
                            ("minor", minor), ("patch", patch), ("rc", rc)):
            print(f"{name}: {value}")
    print(f"commit: {commit}")
    print(f"cuda: {cuda()}")
    print(f"cudnn: {cudnn()}")
    print(f"numpy: {np.__version__}")


def __getattr__(name: str):
    """``cuda_version`` / ``cudnn_version``, Paddle's module attributes, found on first use."""
    if name == "cuda_version":
        return cuda()
    if name == "cudnn_version":
        return cudnn()
    raise AttributeError(f"module 'core.version' has no attribute '{name}'")


__all__ = ["cuda", "cudnn", "mkl", "show"]
