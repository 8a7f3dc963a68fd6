"""Commands started together get output folders of their own (runner.sweep.outputs).

Hydra names folders after the second a command started; ``${now:%Y}`` (the year) makes every
command here start "in the same second", so the four commands, started at once in one launch
folder, would all collide without the claim.
"""
from __future__ import annotations

import json

import pytest

from runner.sweep import job
from runner.track import runstore, tracking
from tests.runner.subprocesses import run_all

TINY = ["model=mlp", "model.hidden=[8]", "trainer.epochs=1", "trainer.batch_size=64",
        "trainer.progress=false", "trainer.checkpoint=false", "runtime.threads=1",
        "tracking.system_metrics=false"]
RUN_DIR = "hydra.run.dir=runs/${now:%Y}"
SWEEP_DIR = "hydra.sweep.dir=sweeps/${now:%Y}"


@pytest.fixture(scope="module")
def launched(tmp_path_factory):
    """Two single runs and two sweeps, all at once, in one launch folder."""
    cwd = tmp_path_factory.mktemp("together")
    commands = {
        "run_a": [*TINY, "optim.lr=0.01", RUN_DIR],
        "run_b": [*TINY, "optim.lr=0.02", RUN_DIR],
        "sweep_a": ["-m", *TINY, "optim.lr=0.03,0.04", SWEEP_DIR],
        "sweep_b": ["-m", *TINY, "optim.lr=0.05,0.06", SWEEP_DIR],
        "fixed": [*TINY, "optim.lr=0.07", "hydra.run.dir=mine"],
    }
    return cwd, run_all({name: (cwd, args) for name, args in commands.items()}, timeout=300)


def test_runs_started_in_the_same_second_get_folders_of_their_own(launched):
    cwd, results = launched
    for name in ("run_a", "run_b", "fixed"):
        assert results[name][0] == 0, results[name][2][-3000:]
    year = sorted(p.name for p in (cwd / "runs").iterdir())[0]
    assert sorted(p.name for p in (cwd / "runs").iterdir()) == [year, f"{year}-1"]
    learning_rates = set()
    for folder in (cwd / "runs").iterdir():
        log_text = (folder / "tomlrun.log").read_text()
        assert log_text.count("epoch 0 batch 0") == 1  # one run's log, not two interleaved
        learning_rates.add("optim.lr=0.01" in (folder / ".hydra" / "overrides.yaml").read_text())
    assert learning_rates == {True, False}
    # A folder named without the time is the user's choice: used as given.
    assert (cwd / "mine" / "tomlrun.log").is_file()
    assert not list(cwd.glob("mine-*"))


def test_sweeps_started_in_the_same_second_keep_their_jobs_apart(launched):
    cwd, results = launched
    for name in ("sweep_a", "sweep_b"):
        code, out, err, _ = results[name]
        assert code == 0, err[-3000:]
        assert "2 jobs, 2 finished, 0 failed" in out
    folders = sorted((cwd / "sweeps").iterdir())
    assert len(folders) == 2
    uri = tracking.default_uri(cwd)
    parents = set()
    for folder in folders:
        records = job.read_job_records(folder)
        assert len(records) == 2 and {r["status"] for r in records} == {"FINISHED"}
        parent = json.loads((folder / job.SWEEP_FILE).read_text())["parent_run_id"]
        parents.add(parent)
        run = runstore.get_run(uri, parent)
        assert run.status == "FINISHED" and run.params["sweep.dir"] == str(folder)
        rates = {r["params"]["optim.lr"] for r in records}
        assert rates in ({"0.03", "0.04"}, {"0.05", "0.06"})
    assert len(parents) == 2
