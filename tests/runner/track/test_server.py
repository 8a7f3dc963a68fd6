"""Team scale: ``tracking.uri=http://...`` on an ``mlflow server`` backed by PostgreSQL.

The module starts Debian's PostgreSQL and ``mlflow server`` on 127.0.0.1 once (the server needs
~15 s to become healthy), then runs a single run and a parallel (joblib) sweep against it at the
same time. Skipped, with the reason, where PostgreSQL is not installed.
"""
from __future__ import annotations

import subprocess
import sys

import pytest

from runner.sweep import job
from runner.track import runstore
from tests.runner import servers
from tests.runner.subprocesses import runner_env
from tests.runner.sweep.test_sweep import TINY

pytest.importorskip("psycopg2", reason="psycopg2 is missing: pip install '.[sweep]'")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    servers.postgres_bin()  # skips with the reason when PostgreSQL is not installed
    folder = tmp_path_factory.mktemp("server")
    with servers.postgres() as database, servers.mlflow_server(database, folder) as uri:
        yield uri


def test_single_run_and_parallel_sweep_on_a_postgres_backed_server(server, tmp_path):
    common = [*TINY, f"tracking.uri={server}", "tracking.experiment=team"]
    commands = {
        "single": [*common, "optim.lr=0.02"],
        "sweep": ["-m", *common, "optim.lr=0.01,0.05", "hydra/launcher=joblib",
                  "hydra.launcher.n_jobs=2", "hydra.sweep.dir=sweep"],
    }
    started = {name: subprocess.Popen([sys.executable, "-m", "runner", *args], cwd=tmp_path,
                                      env=runner_env(), text=True, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE)
               for name, args in commands.items()}
    for name, process in started.items():
        out, err = process.communicate(timeout=300)
        assert process.returncode == 0, f"{name}: {err[-3000:]}"
    assert not (tmp_path / "mlflow.db").exists()  # everything went to the server

    runs = runstore.experiment_runs(server, runstore.experiment_id(server, "team"))
    assert {run.status for run in runs} == {"FINISHED"} and len(runs) == 4
    [parent] = [run for run in runs if run.tags.get(job.PARENT_TAG) == "parent"]
    children = [run for run in runs if run.tags.get("mlflow.parentRunId") == parent.run_id]
    assert sorted(run.params["optim.lr"] for run in children) == ["0.01", "0.05"]
    assert parent.metrics["sweep/jobs"] == 2
    client = runstore.client(server)
    for run in children:  # metrics and artifacts went through the server
        assert len(client.get_metric_history(run.run_id, "train/loss")) >= 1
        assert "learning_curves.png" in {a.path for a in client.list_artifacts(run.run_id)}
    assert {a.path for a in client.list_artifacts(parent.run_id)} == {
        "sweep_summary.csv", "sweep_objective.png"}
