"""A sqlite store a kill cannot brick: created whole or not at all, checked before MLflow opens it.
"""
from __future__ import annotations

import glob
import os
import shutil
import sqlite3
import subprocess
import sys
import time

import pytest

from runner.track import store, tracking
from tests.runner.subprocesses import runner_env

SMALL = ["trainer.epochs=1", "model=mlp", "model.hidden=[8]", "runtime.threads=1",
         "trainer.progress=false", "tracking.system_metrics=false", "trainer.checkpoint=false"]


def _start(folder):
    return subprocess.Popen([sys.executable, "-m", "runner", *SMALL], cwd=folder, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=runner_env())


def _kill_when(process, ready, delay: float, timeout: float = 120.0) -> None:
    """SIGKILL ``process`` ``delay`` seconds after ``ready()`` first holds."""
    deadline = time.monotonic() + timeout
    try:
        while not ready():
            assert process.poll() is None, process.communicate()[1][-2000:]
            assert time.monotonic() < deadline, "the run never reached the kill point"
            time.sleep(0.005)
        time.sleep(delay)
    finally:
        process.kill()
        process.communicate(timeout=60)


def _finished(folder) -> int:
    client = tracking.open_client(tracking.default_uri(folder))
    found = client.get_experiment_by_name("tomlrun")
    runs = client.search_runs([found.experiment_id]) if found else []
    return sum(run.info.status == "FINISHED" for run in runs)


def _run(folder):
    done = subprocess.run([sys.executable, "-m", "runner", *SMALL], cwd=folder, text=True,
                          capture_output=True, timeout=300, env=runner_env())
    assert done.returncode == 0, done.stderr[-3000:]


def test_runs_killed_while_creating_or_opening_the_store_leave_it_usable(tmp_path):
    temporaries = str(tmp_path / ".mlflow.db.*.tmp")
    # Killed while the store is being created (at once, and 0.1 s into its migrations).
    for delay in (0.0, 0.1):
        _kill_when(_start(tmp_path), lambda: glob.glob(temporaries), delay)
        assert not (tmp_path / "mlflow.db").exists()  # nothing half-made in place
    _run(tmp_path)
    assert not glob.glob(temporaries) and _finished(tmp_path) == 1
    # Killed while opening the existing store and creating its run: the finished run stays.
    db = tmp_path / "mlflow.db"
    opened = os.stat(db).st_mtime_ns
    _kill_when(_start(tmp_path), lambda: os.stat(db).st_mtime_ns != opened, 0.05)
    _run(tmp_path)
    assert _finished(tmp_path) == 2


def test_a_write_killed_mid_transaction_is_rolled_back_and_the_next_run_works(tmp_path):
    """A kill inside a transaction leaves a hot journal; the read-only check could not roll it
    back ("attempt to write a readonly database"), and the next run was refused."""
    _run(tmp_path)
    path = str(tmp_path / "mlflow.db")
    writer = (f"import os, sqlite3\ndb = sqlite3.connect({path!r}, isolation_level=None)\n"
              "db.execute('PRAGMA cache_size=1')\ndb.execute('BEGIN')\n"
              "for i in range(200):\n    db.execute(\"INSERT INTO experiments (name, "
              "artifact_location, lifecycle_stage) VALUES (?, 'x', 'active')\", "
              "(str(i) * 200,))\nos._exit(0)\n")  # killed before COMMIT
    subprocess.run([sys.executable, "-c", writer], check=True, timeout=60)
    assert os.path.exists(path + "-journal")
    _run(tmp_path)
    assert _finished(tmp_path) == 2  # the first run kept, the half-written rows gone
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT COUNT(*) FROM experiments WHERE artifact_location = 'x'"
                          ).fetchone()[0] == 0


def test_concurrent_jobs_on_a_fresh_folder_create_one_store(tmp_path):
    uri = tracking.default_uri(tmp_path)
    code = "import sys; from runner.track import store; store.prepare(sys.argv[1])"
    jobs = [subprocess.Popen([sys.executable, "-c", code, uri], env=runner_env(),
                             stderr=subprocess.PIPE, text=True) for _ in range(3)]
    for job in jobs:
        assert job.wait(timeout=300) == 0, job.stderr.read()
    store.check(str(tmp_path / "mlflow.db"))
    assert sorted(os.listdir(tmp_path)) == [".mlflow.db.lock", "mlflow.db"]


@pytest.fixture(scope="module")
def good_store(tmp_path_factory):
    folder = tmp_path_factory.mktemp("store")
    store.prepare(tracking.default_uri(folder))
    return folder / "mlflow.db"


def _broken(good_store, tmp_path, version: str | None, runs: int = 0):
    path = tmp_path / "mlflow.db"
    shutil.copy(good_store, path)
    with sqlite3.connect(path) as db:
        if version is None:
            db.execute("DROP TABLE alembic_version")
        else:
            db.execute("UPDATE alembic_version SET version_num = ?", (version,))
        for number in range(runs):
            db.execute("INSERT INTO runs (run_uuid, experiment_id, lifecycle_stage, status) "
                       "VALUES (?, 0, 'active', 'FINISHED')", (f"r{number}",))
    return path


@pytest.mark.parametrize("version, runs, message", [
    ("ffffffffffff", 0, r"schema version ffffffffffff, which this MLflow .* newer MLflow"),
    (None, 0, r"half-created .* delete it \(rm "),
    ("451aebb31d03", 0, r"half-created .*no runs"),
    ("451aebb31d03", 2, r"older schema 451aebb31d03.* holds 2 runs.*mlflow db upgrade"),
])
def test_a_store_mlflow_cannot_use_is_refused_untouched(good_store, tmp_path, version, runs,
                                                        message):
    path = _broken(good_store, tmp_path, version, runs)
    before = path.read_bytes()
    with pytest.raises(store.StoreError, match=message):
        tracking.open_client(tracking.default_uri(tmp_path))
    assert path.read_bytes() == before


def test_the_cli_stops_with_one_paragraph_and_exit_2(good_store, tmp_path):
    path = _broken(good_store, tmp_path, "451aebb31d03")
    before = path.read_bytes()
    done = subprocess.run([sys.executable, "-m", "runner", *SMALL], cwd=tmp_path, text=True,
                          capture_output=True, timeout=300, env=runner_env())
    assert done.returncode == 2
    assert done.stderr.startswith(f"tomlrun: error: the MLflow store {path} is half-created")
    assert "Traceback" not in done.stderr and path.read_bytes() == before
