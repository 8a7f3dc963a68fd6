"""``hydra/sweeper=optuna`` (hydra_plugins/tomlrun_sweep): search space, failures, resuming.

The end-to-end test runs ``experiments/search_adam.toml`` as a user does, stops it with SIGTERM
after two finished trials, runs the same command again and checks that the study ends with
exactly the four trials asked for, the interrupted one evaluated again, all of them children of
the study's one MLflow parent run.
"""
from __future__ import annotations

import csv
import logging
import signal
import subprocess
import sys
import time

import pytest

optuna = pytest.importorskip("optuna", reason="the sweep extra is not installed: pip install "
                             "'.[sweep]'")

# E402: these imports follow the importorskip on purpose: without the sweep extra (optuna) the
# module is skipped instead of failing to import.
from optuna.distributions import (  # noqa: E402
    CategoricalDistribution,
    FloatDistribution,
    IntDistribution,
)
from optuna.trial import TrialState  # noqa: E402

from hydra_plugins.tomlrun_sweep import optuna_sweeper  # noqa: E402
from runner.sweep import callback, job  # noqa: E402
from runner.sweep import study as sweep_study  # noqa: E402
from runner.track import runstore, tracking  # noqa: E402
from tests.runner.subprocesses import runner_env  # noqa: E402


def test_search_space_from_override_grammar():
    space, fixed = optuna_sweeper.search_space([
        "optim.lr=tag(log, interval(1e-4, 1e-1))", "trainer.batch_size=choice(16, 32)",
        "model.hidden.0=range(16, 65, 16)", "trainer.seed=tag(int, interval(0, 9))",
        "trainer.epochs=2"])
    assert space == {
        "optim.lr": FloatDistribution(1e-4, 1e-1, log=True),
        "trainer.batch_size": CategoricalDistribution([16, 32]),
        "model.hidden.0": IntDistribution(16, 64, step=16),
        "trainer.seed": IntDistribution(0, 9)}
    assert fixed == ["trainer.epochs=2"]


def test_bad_settings_name_the_key():
    with pytest.raises(ValueError, match="hydra.sweeper.direction = 'up' is not valid"):
        optuna_sweeper.OptunaSweeper("up", None, None, 4, 1, None, "tpe", {})
    with pytest.raises(ValueError, match="hydra.sweeper.sampler = 'cma' is not valid"):
        optuna_sweeper.OptunaSweeper("maximize", None, None, 4, 1, None, "cma", {})


@pytest.mark.parametrize("override, message", [
    ("optim.lr=interval(0.1, 0.001)", "`low <= high` must hold"),
    ("optim.lr=tag(log, interval(0, 1))", "`low > 0` must hold for `log=True`"),
    ("trainer.batch_size=tag(int, interval(64, 16))", "`low <= high` must hold"),
])
def test_an_interval_optuna_refuses_names_the_param(override, message):
    """Optuna's ValueError ended the sweep in a traceback with exit status 1."""
    with pytest.raises(optuna_sweeper.SearchSpaceError) as info:
        optuna_sweeper.search_space([override])
    assert str(info.value).startswith(f"hydra.sweeper.params: '{override}' cannot be searched: ")
    assert message in str(info.value)


def test_an_empty_storage_is_an_in_memory_study():
    """storage = "" (TOML has no null) was handed to SQLAlchemy as a URL and failed."""
    assert optuna_sweeper.OptunaSweeper("maximize", "", None, 4, 1, None, "tpe", {}).storage \
        is None


def test_a_bad_search_space_on_the_command_line_is_one_paragraph(tmp_path):
    done = subprocess.run([sys.executable, "-m", "runner", "-m", "hydra/sweeper=optuna",
                           "optim.lr=interval(0.1, 0.001)", "hydra.sweeper.direction=up"],
                          cwd=tmp_path, env=runner_env(), capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 2, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    assert done.stderr.strip() == ("tomlrun: error: hydra.sweeper.direction = 'up' is not "
                                   "valid: use maximize or minimize.")
    done = subprocess.run([sys.executable, "-m", "runner", "-m", "hydra/sweeper=optuna",
                           "optim.lr=interval(0.1, 0.001)", "tracking.enabled=false"],
                          cwd=tmp_path, env=runner_env(), capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 2, done.stderr[-2000:]
    errors = [line for line in done.stderr.splitlines() if line.startswith("tomlrun: error:")]
    assert "Traceback" not in done.stderr and len(errors) == 1
    assert "hydra.sweeper.params: 'optim.lr=interval(0.1, 0.001)' cannot be searched" in errors[0]
    assert "sweep: no job ran" in done.stdout and "status" not in done.stdout  # no empty table


def test_resume_counts_finished_trials_and_requeues_the_interrupted_one():
    study = optuna.create_study(direction="maximize")
    for value in (0.5, 0.7):
        trial = study.ask({"x": FloatDistribution(0, 1)})
        study.tell(trial, value)
    cut = study.ask({"x": FloatDistribution(0, 1)})  # left RUNNING, as by a SIGTERM
    assert optuna_sweeper.resume(study, n_trials=4) == 2
    assert study.trials[cut.number].state == TrialState.FAIL
    [waiting] = study.get_trials(states=(TrialState.WAITING,))
    assert waiting.system_attrs["fixed_params"] == cut.params  # asked first, next run
    assert optuna_sweeper.resume(study, n_trials=2) == 0  # FAIL trials count as done too


def _command(tmp_path):
    return [sys.executable, "-m", "runner", "-m", "+experiment=search_adam",
            "hydra.sweeper.n_trials=4", "trainer.epochs=1", "trainer.progress=false",
            "trainer.checkpoint=false", "model.hidden=[8]", "runtime.threads=1",
            "hydra.sweep.dir=sweep${now:%H%M%S%f}"]


def _study(folder):
    return optuna.load_study(study_name="search_adam", storage=f"sqlite:///{folder}/optuna.db")


def _complete(folder) -> int:
    try:
        return len(_study(folder).get_trials(states=(TrialState.COMPLETE,)))
    except Exception:  # noqa: BLE001 - the study or its tables are not created yet
        return 0


def test_interrupted_search_resumes_with_the_same_command(tmp_path):
    process = subprocess.Popen(_command(tmp_path), cwd=tmp_path, env=runner_env(), text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 180
    while _complete(tmp_path) < 2 and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGTERM)
    first_output, _ = process.communicate(timeout=120)
    assert process.returncode != 0, first_output[-3000:]
    before = _study(tmp_path).trials
    done_before = [t for t in before if t.state == TrialState.COMPLETE]
    cut = [t for t in before if t.state == TrialState.RUNNING]
    assert 2 <= len(done_before) < 4, first_output[-3000:]

    again = subprocess.run(_command(tmp_path), cwd=tmp_path, env=runner_env(), text=True,
                           capture_output=True, timeout=300)
    assert again.returncode == 0, again.stderr[-3000:]
    after = _study(tmp_path).trials
    assert len([t for t in after if t.state == TrialState.COMPLETE]) == 4
    if cut:  # the trial cut off by SIGTERM failed, and its point ran again
        assert after[cut[0].number].state == TrialState.FAIL
        # (A SIGTERM between two suggestions leaves a partial point: the rest is sampled anew.)
        rerun = [(t.params, t.state) for t in after[len(before):]]
        assert any(state == TrialState.COMPLETE and cut[0].params.items() <= params.items()
                   for params, state in rerun), (cut[0].params, rerun)
    points = [tuple(sorted(t.params.items())) for t in after if t.state == TrialState.COMPLETE]
    assert len(set(points)) == 4  # a resumed search does not sample the same points again
    assert f"{len(done_before)} of 4 trials already done" in again.stderr + again.stdout

    # MLflow: the resumed command continued the study's parent run, which holds every job of
    # both commands and ends FINISHED with a summary of them all.
    uri = tracking.default_uri(tmp_path)
    runs = runstore.experiment_runs(uri, runstore.experiment_id(uri, "search_adam"))
    [parent] = [run for run in runs if run.tags.get(job.PARENT_TAG) == "parent"]
    assert parent.status == "FINISHED"
    assert parent.tags[sweep_study.STUDY_TAG] == "search_adam"
    assert parent.tags[sweep_study.STORAGE_TAG] == f"sqlite:///{tmp_path.resolve()}/optuna.db"
    first_dir, _ = parent.tags[callback.DIRS_TAG].split("; ")  # both commands' folders
    children = [run for run in runs if run is not parent]
    assert all(run.tags["mlflow.parentRunId"] == parent.run_id for run in children)
    assert len({run.tags[job.COMMAND_TAG] for run in children}) == 2
    finished = [run for run in children if run.status == "FINISHED"]
    complete = [t for t in after if t.state == TrialState.COMPLETE]
    assert sorted(run.metrics["valid/acc"] for run in finished) == pytest.approx(
        sorted(t.value for t in complete))  # one finished child per finished trial
    assert {float(run.params["optim.lr"]) for run in finished} == {
        t.params["optim.lr"] for t in complete}
    # A trial cut off before its job started has no child; one cut while training has a KILLED one.
    assert len(children) - len(finished) in (0, 1)
    assert parent.metrics["sweep/jobs"] == len(children)
    best = max(finished, key=lambda run: run.metrics["valid/acc"])
    assert parent.tags["best_run_id"] == best.run_id
    assert parent.metrics["valid/acc"] == pytest.approx(_study(tmp_path).best_value)
    summary = runstore.client(uri).download_artifacts(parent.run_id, "sweep_summary.csv",
                                                      str(tmp_path))
    with open(summary) as handle:
        table = list(csv.DictReader(handle))
    assert {row["run_id"] for row in table} == {run.run_id for run in children}
    assert table[0]["run_id"] == best.run_id
    earlier = [run for run in children if run.tags[job.JOB_DIR_TAG].startswith(first_dir)]
    assert len(earlier) >= len(done_before)
    assert f"sweep: {len(children)} jobs ({len(earlier)} of them from earlier commands)" in (
        again.stdout)


def _parent(uri, experiment, study):
    tracker = tracking.MlflowTracker(uri, experiment, "sweep")
    tracker.start(params={}, tags={job.PARENT_TAG: "parent", **study})
    tracker.end("KILLED")
    return tracker.run_id


def test_a_resumed_study_finds_its_parent_run_or_warns(tmp_path, caplog):
    storage = f"sqlite:///{tmp_path}/optuna.db"
    study = {sweep_study.STUDY_TAG: "s", sweep_study.STORAGE_TAG: storage}
    uri = tracking.default_uri(tmp_path)
    parent = _parent(uri, "e", study)
    _parent(uri, "e", {**study, sweep_study.STUDY_TAG: "other"})
    # A new study (no storage yet, then no trials) starts a new parent, silently.
    assert sweep_study.parent_of_study(uri, "e", study, storage) is None
    created = optuna.create_study(study_name="s", storage=storage)
    assert sweep_study.parent_of_study(uri, "e", study, storage) is None
    created.tell(created.ask(), 1.0)
    assert sweep_study.parent_of_study(uri, "e", study, storage).info.run_id == parent
    assert not [record for record in caplog.records if record.levelno >= logging.WARNING]
    # Its parent is not in this store (another experiment or tracking.uri, or deleted): a
    # warning each time.
    assert sweep_study.parent_of_study(uri, "elsewhere", study, storage) is None
    runstore.client(uri).delete_run(parent)
    assert sweep_study.parent_of_study(uri, "e", study, storage) is None
    warnings = [record for record in caplog.records if record.levelno >= logging.WARNING]
    assert [warning.getMessage().split(" of sqlite:///")[0] for warning in warnings] == [
        "sweep: study s has trials but no parent run in experiment elsewhere",
        "sweep: study s has trials but no parent run in experiment e"]
    # A storage that cannot be read: a warning, and the sweep goes on (the sweeper reports it).
    assert sweep_study.parent_of_study(uri, "e", study, "nosuchdb://x/y") is None
    assert caplog.records[-1].getMessage().startswith(
        "sweep: could not look for the MLflow parent run of study s (")


def test_storage_tag_is_absolute_and_has_no_password():
    assert sweep_study.storage_tag("sqlite:///optuna.db", "/runs/a") == (
        "sqlite:////runs/a/optuna.db")
    assert sweep_study.storage_tag("sqlite:////x/optuna.db", "/runs/a") == (
        "sqlite:////x/optuna.db")
    assert sweep_study.storage_tag("postgresql+psycopg2://me:secret@db:5432/optuna", "/a") == (
        "postgresql+psycopg2://me@db:5432/optuna")
