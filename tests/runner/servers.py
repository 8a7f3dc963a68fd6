"""Test helpers: a throw-away PostgreSQL cluster and ``mlflow server``, both on 127.0.0.1.

Each is a context manager that always stops what it started (pytest fixture teardown), listens
on a random free port and keeps its files in a temporary folder. PostgreSQL is Debian's package
(``apt-get install postgresql``); as root, its tools run as the ``postgres`` user, because
``initdb`` refuses to run as root.
"""
from __future__ import annotations

import contextlib
import glob
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

PG_BINARIES = sorted(glob.glob("/usr/lib/postgresql/*/bin"))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def postgres_bin() -> Path:
    """The folder of Debian's PostgreSQL server binaries, or a skip saying how to get them."""
    for folder in reversed(PG_BINARIES):
        if (Path(folder) / "initdb").is_file() and (Path(folder) / "pg_ctl").is_file():
            return Path(folder)
    pytest.skip("PostgreSQL is not installed (apt-get install postgresql): the PostgreSQL-backed "
                "mlflow server test needs initdb and pg_ctl from /usr/lib/postgresql/*/bin.")


def _as_postgres(command: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return command
    if shutil.which("runuser") is None:
        pytest.skip("running as root without runuser: cannot start PostgreSQL as 'postgres'")
    return ["runuser", "-u", "postgres", "--", *command]


@contextlib.contextmanager
def postgres():
    """A PostgreSQL cluster with a database ``mlflow``; yields its SQLAlchemy URI."""
    binaries = postgres_bin()
    # Not under pytest's tmp folder: that one is private to root, and as root the server runs
    # as 'postgres', which must reach its data folder.
    folder = Path(tempfile.mkdtemp(prefix="tomlrun-postgres-"))
    data, sockets = folder / "pgdata", folder / "pgsock"
    sockets.mkdir()
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres")
        shutil.chown(sockets, "postgres")
    port = free_port()
    subprocess.run(_as_postgres([str(binaries / "initdb"), "-D", str(data), "-U", "postgres",
                                 "--auth=trust", "-E", "UTF8"]),
                   check=True, capture_output=True, timeout=120)
    options = f"-h 127.0.0.1 -p {port} -k {sockets} -F"
    subprocess.run(_as_postgres([str(binaries / "pg_ctl"), "-D", str(data), "-o", options,
                                 "-l", str(folder / "postgres.log"), "-w", "start"]),
                   check=True, capture_output=True, timeout=120)
    try:
        subprocess.run(_as_postgres([str(binaries / "createdb"), "-h", "127.0.0.1", "-p",
                                     str(port), "-U", "postgres", "mlflow"]),
                       check=True, capture_output=True, timeout=60)
        # SQLAlchemy 2.1 takes psycopg (3) for plain postgresql://: name the driver installed.
        yield f"postgresql+psycopg2://postgres@127.0.0.1:{port}/mlflow"
    finally:
        subprocess.run(_as_postgres([str(binaries / "pg_ctl"), "-D", str(data), "-m", "fast",
                                     "-w", "stop"]), capture_output=True, timeout=120)
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def mlflow_server(backend_uri: str, folder: Path, timeout: float = 120.0):
    """``mlflow server`` on 127.0.0.1 and a free port; yields its ``http://`` URI."""
    port = free_port()
    folder.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "MLFLOW_SERVER_ENABLE_JOB_EXECUTION": "false"}
    log = open(folder / "mlflow-server.log", "w")  # noqa: SIM115 - closed in finally
    process = subprocess.Popen(
        [sys.executable, "-m", "mlflow", "server", "--host", "127.0.0.1", "--port", str(port),
         "--workers", "1", "--backend-store-uri", backend_uri,
         "--artifacts-destination", (folder / "artifacts").as_uri()],
        env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    uri = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            if process.poll() is not None:
                raise RuntimeError("mlflow server exited: " + (folder / "mlflow-server.log")
                                   .read_text()[-2000:])
            try:
                with urllib.request.urlopen(uri + "/health", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"mlflow server not healthy after {timeout} s")
            time.sleep(0.25)
        yield uri
    finally:
        stop_group(process, grace=30)  # the server and its workers
        log.close()


def stop_group(process, grace: float) -> None:
    """SIGTERM ``process``'s process group, SIGKILL it if it has not ended after ``grace`` s."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=grace)
