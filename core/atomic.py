"""Atomic file writes: a reader sees the old file or the new one, never half of either.

Every file tomlrun writes (checkpoints, configs, downloads, plots) goes through ``atomic_write``:
the bytes land in a temporary file beside the target, are flushed to disk, and only then renamed
over it. An error or Ctrl-C part-way leaves the previous file untouched and no temporary behind.
"""
from __future__ import annotations

import contextlib
import os
import tempfile


@contextlib.contextmanager
def atomic_write(path, mode: str = "wb", encoding: str | None = None):
    """Yield a file object whose contents replace ``path`` when the block ends without error."""
    path = os.path.abspath(os.fspath(path))
    folder = os.path.dirname(path)
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"cannot write '{path}': the folder '{folder}' does not exist")
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    try:
        # mkstemp creates 0600 files; give the result the permissions a plain open() would.
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, mode, encoding=encoding) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _fsync_folder(folder)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _fsync_folder(folder: str) -> None:
    """Make the rename itself durable; platforms that cannot open a folder skip this."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
