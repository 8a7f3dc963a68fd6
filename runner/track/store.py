"""A local sqlite tracking store that a kill cannot brick.

MLflow creates a new sqlite store by running its ~70 schema migrations one by one in the file
itself; a process killed part-way (Ctrl-C twice, SIGKILL, an out-of-memory kill) leaves a
half-migrated file on which every later run fails (``table ... already exists``). ``prepare``
creates a missing store whole or not at all: under a lock file, the migrations run in a
temporary file beside the store, which is renamed into place when they are done (so concurrent
jobs on a fresh folder wait for one creator). An existing store is checked first, read-only:
one that is half-migrated, of an older schema or of a newer MLflow stops the run with one
paragraph naming the file and the remedy, before MLflow touches it.

The check costs a few milliseconds (stdlib sqlite3 and the names of MLflow's migration files);
mlflow itself is imported only to create a store.
"""
from __future__ import annotations

import contextlib
import glob
import importlib.util
import logging
import os
import re
import sqlite3
import time

from runner.errors import UserError

LOCK_TIMEOUT = 300.0  # seconds to wait for another process creating the same store
_REVISIONS: tuple[str, set[str]] | None = None


class StoreError(UserError):
    """A tracking store that cannot be used as it is; the message says what to do."""


def sqlite_path(uri: str) -> str | None:
    """The file of a ``sqlite:///`` URI, or None (another store, or an in-memory one)."""
    if not uri.startswith("sqlite:///"):
        return None
    path = uri[len("sqlite:///"):].split("?", 1)[0]
    return os.path.abspath(path) if path and path != ":memory:" else None


def prepare(uri: str) -> None:
    """Make the sqlite store of ``uri`` usable: check it, or create it whole if missing."""
    path = sqlite_path(uri)
    if path is None:
        return
    if os.path.exists(path):
        check(path)
        return
    folder, name = os.path.split(path)
    os.makedirs(folder, exist_ok=True)
    with _locked(os.path.join(folder, f".{name}.lock"), path):
        if os.path.exists(path):  # another process created it while we waited
            check(path)
            return
        for stale in glob.glob(os.path.join(glob.escape(folder), f".{glob.escape(name)}.*.tmp*")):
            with contextlib.suppress(FileNotFoundError):  # left by a creation that was killed
                os.unlink(stale)
        temporary = os.path.join(folder, f".{name}.{os.getpid()}.tmp")
        try:
            _migrate(temporary)
            _fsync(temporary)
            os.replace(temporary, path)
            _fsync(folder)
        finally:
            for leftover in glob.glob(glob.escape(temporary) + "*"):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(leftover)


def check(path: str) -> None:
    """Raise ``StoreError`` unless ``path`` is a complete store of this MLflow's schema.

    Reads the file without changing it (sqlite read-only mode)."""
    head, known = _revisions()
    if head is None:  # cannot tell: leave it to MLflow
        return
    version, runs = _read(path)
    if version == head:
        return
    uri = "sqlite:///" + path
    if version is not None and version not in known:
        raise StoreError(
            f"the MLflow store {path} has schema version {version}, which this MLflow "
            f"({_mlflow_version()}) does not know: it was written by a newer MLflow. Upgrade "
            "MLflow (pip install -U mlflow), or point tracking.uri at another store; the file "
            "was not changed.")
    if not runs:
        raise StoreError(
            f"the MLflow store {path} is half-created (schema "
            f"{version or 'missing'}, no runs): a process creating it was stopped part-way, "
            f"which MLflow cannot repair. It holds no runs: delete it (rm {path}) and run "
            "again; the file was not changed.")
    raise StoreError(
        f"the MLflow store {path} has the older schema {version}, not {head} as this MLflow "
        f"({_mlflow_version()}) needs, and holds {runs} runs: back it up, then upgrade it "
        f"with mlflow db upgrade {uri} (or use the MLflow that wrote it); the file was not "
        "changed.")


def _read(path: str) -> tuple[str | None, int]:
    """(alembic schema version or None, number of runs) of the sqlite file ``path``."""
    if os.path.getsize(path) == 0:
        return None, 0
    _roll_back_interrupted_write(path)
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True,
                                                timeout=30)) as db:
            tables = {row[0] for row in db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            version = None
            if "alembic_version" in tables:
                row = db.execute("SELECT version_num FROM alembic_version").fetchone()
                version = row[0] if row else None
            runs = db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] \
                if "runs" in tables else 0
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"the MLflow store {path} is not a readable sqlite database ({exc}): "
                         "move it aside, or point tracking.uri at another store; the file was "
                         "not changed.") from None
    return version, int(runs)


def _roll_back_interrupted_write(path: str) -> None:
    """A process killed mid-transaction leaves a hot journal (``path-journal``); a read-only
    connection cannot roll it back ("attempt to write a readonly database"), so the next run
    was refused. One read-write connection does what any sqlite writer would do first: it
    restores the file as it was before that transaction."""
    if os.path.exists(path + "-journal"):
        with contextlib.closing(sqlite3.connect(path, timeout=30)) as db:
            db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()


def _revisions() -> tuple[str | None, set[str]]:
    """(head revision, every revision) of this MLflow's schema, from its migration files."""
    global _REVISIONS  # noqa: PLW0603 - computed once per process
    if _REVISIONS is None:
        spec = importlib.util.find_spec("mlflow")
        folder = os.path.join(list(spec.submodule_search_locations)[0], "store",
                              "db_migrations", "versions")
        revisions, parents = set(), set()
        for script in glob.glob(os.path.join(folder, "*.py")):
            with open(script, encoding="utf-8") as handle:
                text = handle.read()
            found = re.search(r"^revision\s*=\s*['\"](\w+)['\"]", text, re.MULTILINE)
            if found:
                revisions.add(found[1])
                parents.update(re.findall(r"['\"](\w+)['\"]", (re.search(
                    r"^down_revision\s*=\s*(.*)$", text, re.MULTILINE) or [None, ""])[1]))
        heads = revisions - parents
        _REVISIONS = (heads.pop() if len(heads) == 1 else None, revisions)
    return _REVISIONS


def _migrate(path: str) -> None:
    """Create MLflow's tables in the new sqlite file ``path`` (every migration)."""
    import sqlalchemy  # noqa: PLC0415 - mlflow's dependency; only when creating a store
    from mlflow.store.db import utils  # noqa: PLC0415

    for name in ("mlflow", "alembic"):  # migrations log at INFO: keep the console for us
        logging.getLogger(name).setLevel(logging.WARNING)
    engine = sqlalchemy.create_engine("sqlite:///" + path)
    try:
        utils._initialize_tables(engine)  # noqa: SLF001 - what SqlAlchemyStore runs
    finally:
        engine.dispose()


@contextlib.contextmanager
def _locked(lock_path: str, path: str):
    import fcntl  # noqa: PLC0415 - POSIX

    with open(lock_path, "a+b") as handle:
        deadline = time.monotonic() + LOCK_TIMEOUT
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise StoreError(f"another process has been creating the MLflow store "
                                     f"{path} for {LOCK_TIMEOUT:.0f} s (it holds {lock_path})"
                                     ": wait for it, or stop it and run again.") from None
                time.sleep(0.05)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _fsync(path: str) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _mlflow_version() -> str:
    from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415

    try:
        return "mlflow " + version("mlflow")
    except PackageNotFoundError:
        return "mlflow"
