"""``python -m runner -m ...``: parent and child runs, failures, summaries, launchers.

Each sweep runs as a user runs it, in a subprocess on the 8x8 digits with a tiny MLP for one
epoch; the sweeps start together (a module fixture) and are checked through what MLflow holds.
"""
from __future__ import annotations

import csv
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from runner.sweep import job, summary
from runner.track import runstore, tracking
from tests.runner.subprocesses import run_all, runner_env

ROOT = Path(__file__).resolve().parents[3]
TINY = ["model=mlp", "model.hidden=[8]", "trainer.epochs=1", "trainer.batch_size=64",
        "trainer.progress=false", "trainer.checkpoint=false", "runtime.threads=1"]
GRID = ["optim=adam,sgd", "optim.lr=0.01,0.05"]
SWEEPS = {
    "basic": [*GRID],
    "joblib": [*GRID, "hydra/launcher=joblib", "hydra.launcher.n_jobs=2"],
    "failing": ["optim=adam", "optim.lr=0.01,-1", "data.valid_size=0.1,0"],
    "submitit": ["optim=adam", "optim.lr=0.01,0.05", "hydra/launcher=submitit_local",
                 "hydra.launcher.timeout_min=5"],
    "unreachable": ["optim.lr=0.01,0.05", "tracking.uri=http://127.0.0.1:9"],
    "loss": ["optim=adam", "optim.lr=0.00001,0.05", "trainer.objective=valid/loss"],
}


@pytest.fixture(scope="module")
def sweeps(tmp_path_factory):
    """Run every sweep at once; name -> (returncode, stdout, stderr, launch folder)."""
    pytest.importorskip("hydra_plugins.hydra_joblib_launcher", reason="pip install '.[sweep]'")
    pytest.importorskip("hydra_plugins.hydra_submitit_launcher", reason="pip install '.[sweep]'")
    return run_all({name: (tmp_path_factory.mktemp(name),
                           ["-m", *TINY, *args, f"tracking.experiment={name}",
                            "hydra.sweep.dir=sweep"])
                    for name, args in SWEEPS.items()}, timeout=300)


def _runs(cwd: Path, experiment: str):
    """(parent, children by run name) as MLflow recorded them."""
    uri = tracking.default_uri(cwd)
    runs = runstore.experiment_runs(uri, runstore.experiment_id(uri, experiment))
    [parent] = [run for run in runs if run.tags.get(job.PARENT_TAG) == "parent"]
    children = {run.name: run for run in runs if run is not parent}
    assert all(run.tags["mlflow.parentRunId"] == parent.run_id for run in children.values())
    return uri, parent, children


GRID_NAMES = {"mlp-adam-hidden_8_-lr0.01", "mlp-adam-hidden_8_-lr0.05",
              "mlp-sgd-hidden_8_-lr0.01", "mlp-sgd-hidden_8_-lr0.05"}


@pytest.mark.parametrize("name", ["basic", "joblib"])
def test_grid_is_one_parent_with_four_finished_children(sweeps, name):
    code, out, err, cwd = sweeps[name]
    assert code == 0, err[-3000:]
    uri, parent, children = _runs(cwd, name)
    names = {key.replace("-epochs1", "").replace("-batch_size64", "") for key in children}
    assert names == GRID_NAMES  # named like the overrides that made them
    assert {run.status for run in children.values()} == {"FINISHED"}
    assert parent.status == "FINISHED"
    assert parent.params["sweep.overrides"].startswith("model=mlp")
    assert parent.metrics["sweep/jobs"] == 4 and parent.metrics["sweep/failed_jobs"] == 0
    # Each child holds its own job's params and metrics: nothing leaked between jobs, which
    # share one process under the basic launcher.
    for run in children.values():
        job_dir = Path(run.tags[job.JOB_DIR_TAG])
        record = next(r for r in job.read_job_records(cwd / "sweep")
                      if r["job_dir"] == str(job_dir))
        assert record["params"]["optim.lr"] == run.params["optim.lr"]
        assert record["params"]["optim.name"] == run.params["optim.name"]
        assert math.isclose(record["objective"], run.metrics["valid/acc"])
    # The parent holds the best job, its objective and the summary artifacts.
    best = max(children.values(), key=lambda run: run.metrics["valid/acc"])
    assert parent.tags["best_run_id"] == best.run_id
    assert parent.metrics["valid/acc"] == pytest.approx(best.metrics["valid/acc"])
    assert parent.tags["best.optim.lr"] == best.params["optim.lr"]
    artifacts = {a.path for a in runstore.client(uri).list_artifacts(parent.run_id)}
    assert artifacts == {"sweep_summary.csv", "sweep_objective.png"}
    with open(cwd / "sweep" / "sweep_summary.csv") as handle:
        table = list(csv.DictReader(handle))
    assert [row["run_id"] for row in table][0] == best.run_id  # sorted, best first
    assert {row["status"] for row in table} == {"FINISHED"} and len(table) == 4
    assert "sweep: 4 jobs, 4 finished, 0 failed" in out


def test_failing_combinations_are_recorded_and_the_sweep_goes_on(sweeps):
    code, out, err, cwd = sweeps["failing"]
    assert code == 1, err[-3000:]  # some jobs failed
    _, parent, children = _runs(cwd, "failing")
    statuses = {run.params.get("optim.lr") + "/" + run.params.get("data.valid_size"): run.status
                for run in children.values()}
    assert statuses == {"0.01/0.1": "FINISHED", "-1/0.1": "FAILED", "0.01/0": "FAILED",
                        "-1/0": "FAILED"}
    errors = [run.tags["error"] for run in children.values() if run.status == "FAILED"]
    assert sum("optim.lr = -1 is not allowed" in error for error in errors) == 2
    assert any("needs a validation set" in error for error in errors)  # failed inside the app
    assert parent.status == "FINISHED" and parent.metrics["sweep/failed_jobs"] == 3
    assert "sweep: 4 jobs, 1 finished, 3 failed" in out
    assert out.count("FAILED mlp-adam") == 3  # the summary lists every failure with its reason
    assert "Traceback" not in err and err.count("tomlrun: job ") == 3


def test_a_loss_objective_is_minimized_without_sweep_direction(sweeps):
    """sweep.direction defaulted to maximize whatever the objective: a sweep of valid/loss
    ranked the worst loss first and named it the best job (trainer.objective_direction = "auto"
    already minimized a loss)."""
    code, out, err, cwd = sweeps["loss"]
    assert code == 0, err[-3000:]
    _, parent, children = _runs(cwd, "loss")
    assert parent.params["sweep.objective"] == "valid/loss"
    assert parent.params["sweep.direction"] == "minimize"
    best = min(children.values(), key=lambda run: run.metrics["valid/loss"])
    assert parent.tags["best_run_id"] == best.run_id
    assert parent.metrics["valid/loss"] == pytest.approx(best.metrics["valid/loss"])
    assert [run.params["sweep.direction"] for run in children.values()] == ["minimize"] * 2
    table = out[out.index("sweep: 2 jobs"):].splitlines()
    assert table[3].split()[1] == best.params["optim.lr"]  # best first


def test_a_failed_jobs_params_are_spelled_as_a_finished_jobs():
    """runner.compare and MLflow's compare view must not see ['a', 'b'] and ["a", "b"] as two
    values: a job that failed before validation logs its raw config the way flatten does."""
    from omegaconf import OmegaConf

    from runner.config.validation import show

    raw = OmegaConf.create({"model": {"layers": {"dec": {"inputs": ["proj", "mem"]}},
                                      "dropout": 0.5, "freeze": []}, "hydra": {"x": 1}})
    assert job.raw_params(raw) == {"model.layers.dec.inputs": "['proj', 'mem']",
                                   "model.dropout": "0.5", "model.freeze": "[]"}
    assert show(["proj", "mem"], quote=False) == "['proj', 'mem']"  # what flatten logs


def test_submitit_local_launcher(sweeps):
    code, out, err, cwd = sweeps["submitit"]
    assert code == 0, err[-3000:]
    _, parent, children = _runs(cwd, "submitit")
    assert len(children) == 2 and {run.status for run in children.values()} == {"FINISHED"}


def test_unreachable_server_stops_the_sweep_before_any_job(sweeps):
    code, out, err, cwd = sweeps["unreachable"]
    assert code == 2
    assert err.strip().splitlines()[-1].startswith(
        "tomlrun: error: tracking.uri = 'http://127.0.0.1:9' cannot be reached")
    assert "Traceback" not in err and not (cwd / "sweep" / "0").exists()


def test_a_grid_run_twice_gets_two_parents(tmp_path):
    """Only a resumed Optuna study continues its parent; the same folder holds both commands'
    job records, and each parent summarises its own command's jobs."""
    command = [sys.executable, "-m", "runner", "-m", *TINY, "optim.lr=0.01,0.05",
               "tracking.experiment=twice", "hydra.sweep.dir=sweep"]
    for _ in range(2):
        done = subprocess.run(command, cwd=tmp_path, env=runner_env(), capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        assert "sweep: 2 jobs, 2 finished, 0 failed" in done.stdout
    uri = tracking.default_uri(tmp_path)
    runs = runstore.experiment_runs(uri, runstore.experiment_id(uri, "twice"))
    parents = [run for run in runs if run.tags.get(job.PARENT_TAG) == "parent"]
    assert len(parents) == 2 and {run.status for run in parents} == {"FINISHED"}
    for parent in parents:
        children = [run for run in runs if run.tags.get("mlflow.parentRunId") == parent.run_id]
        assert len(children) == 2 and parent.metrics["sweep/jobs"] == 2


def test_single_runs_keep_their_one_paragraph_error(tmp_path):
    done = subprocess.run([sys.executable, "-m", "runner", "optim.lr=-1"], cwd=tmp_path,
                          env=runner_env(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "tomlrun: error: optim.lr = -1 is not allowed: use a number > 0. optim.lr was set on "
        "the command line: optim.lr=-1."]


def test_unreachable_server_is_reported_before_training(tmp_path):
    done = subprocess.run([sys.executable, "-m", "runner", *TINY,
                           "tracking.uri=http://127.0.0.1:9"], cwd=tmp_path, env=runner_env(),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "tracking.uri = 'http://127.0.0.1:9' cannot be reached" in done.stderr
    assert "epoch 0" not in done.stdout


# ----- the summary table ------------------------------------------------------------------------
def _row(name, objective, status="FINISHED", **params):
    return summary.Row(name, status, objective, {"optim.lr": "0.1", **params})


def test_ranked_puts_the_best_first_and_failures_last():
    rows = [_row("a", 0.5), _row("b", math.nan, "FAILED"), _row("c", 0.9), _row("d", 0.7)]
    assert [r.name for r in summary.ranked(rows, "maximize")] == ["c", "d", "a", "b"]
    assert [r.name for r in summary.ranked(rows, "minimize")] == ["a", "d", "c", "b"]


def test_differing_keys_ignore_option_specific_and_tracking_keys():
    rows = [_row("a", 1, **{"optim.name": "adam", "optim.beta1": "0.9", "tracking.uri": "x"}),
            _row("b", 2, **{"optim.name": "sgd", "tracking.uri": "y"})]
    assert summary.differing_keys(rows) == ["optim.name"]
    text = summary.table(rows, "valid/acc")
    assert text.splitlines()[0].split() == ["run", "optim.name", "valid/acc", "status", "seconds"]
    assert text.splitlines()[2].split()[:3] == ["a", "adam", "1.0000"]


def test_the_table_shortens_sampled_floats_but_keeps_them_apart(tmp_path):
    """Optuna's samples filled the table with 17-digit floats; the CSV keeps every digit."""
    def column(values):
        rows = [_row(f"r{i}", 1.0 - i / 10, **{"optim.lr": v, "trainer.batch_size": str(i)})
                for i, v in enumerate(values)]
        body = [line.split() for line in summary.table(rows, "valid/acc").splitlines()[2:]]
        assert [cells[2] for cells in body] == [str(i) for i in range(len(values))]  # ints kept
        return [cells[1] for cells in body]

    values = ["0.021600820741402058", "0.004430375245218269", "0.001", "1000000.0", "32"]
    assert column(values) == ["0.0216", "0.00443", "0.001", "1e+06", "32"]
    assert column(["0.021600820741402058", "0.0216"]) == ["0.021601", "0.0216"]  # still apart
    rows = [_row(f"r{i}", 0.5, **{"optim.lr": v}) for i, v in enumerate(values)]
    summary.write_csv(rows, "valid/acc", tmp_path / "s.csv")
    assert "0.021600820741402058" in (tmp_path / "s.csv").read_text()


# ----- python -m runner.compare -----------------------------------------------------------------
def test_compare_prints_the_sweep_sorted_and_draws_the_best_curves(sweeps, tmp_path, capsys):
    from runner import compare

    _, _, _, cwd = sweeps["failing"]
    uri, parent, children = _runs(cwd, "failing")
    output = tmp_path / "best.png"
    assert compare.main(["failing", "--uri", uri, "--output", str(output)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"{parent.name} ({parent.run_id}): 4 runs, sorted by valid/acc")
    assert lines[1].split() == ["run", "data.valid_size", "optim.lr", "valid/acc", "status",
                                "seconds"]
    assert [line.split()[4] for line in lines[3:7]] == ["FINISHED", "FAILED", "FAILED", "FAILED"]
    assert lines[-1] == f"learning curves of the best 1 runs: {output}"
    assert output.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # By parent run id, sorted the other way round: the same runs.
    assert compare.main([parent.run_id, "--uri", uri, "--direction", "minimize", "--top", "0"]
                        ) == 0
    assert len(capsys.readouterr().out.splitlines()) == 7


def test_compare_names_what_exists_when_the_target_is_unknown(sweeps, capsys):
    from runner import compare

    _, _, _, cwd = sweeps["basic"]
    assert compare.main(["nope", "--uri", tracking.default_uri(cwd)]) == 2
    assert capsys.readouterr().err.startswith(
        "tomlrun: error: there is no experiment or run 'nope' in sqlite:///")


def test_compare_names_the_logged_metrics_when_the_objective_is_not_one(sweeps, capsys):
    """A mistyped --objective used to sort nothing and print '-' in every row, silently."""
    from runner import compare

    _, _, _, cwd = sweeps["basic"]
    assert compare.main(["basic", "--uri", tracking.default_uri(cwd), "--objective",
                         "valid/ac"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tomlrun: error: --objective valid/ac is not a metric of any of these "
                          "4 runs (did you mean valid/acc")
    assert "they logged " in err and "train/loss" in err and len(err.splitlines()) == 1


def test_compare_sorts_another_objective_in_its_own_direction(sweeps, capsys):
    """--objective valid/loss on a sweep that maximized valid/acc took the sweep's direction:
    the worst loss came first and the "best" curves drawn were the worst runs'."""
    from runner import compare

    _, _, _, cwd = sweeps["basic"]
    uri, _, children = _runs(cwd, "basic")
    losses = sorted(run.metrics["valid/loss"] for run in children.values())
    assert compare.main(["basic", "--uri", uri, "--objective", "valid/loss", "--top", "0"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("sorted by valid/loss (minimize)")
    assert [float(line.split()[3]) for line in lines[3:7]] == pytest.approx(losses, abs=1e-4)
    # --direction still wins, and the sweep's own objective keeps the sweep's direction
    assert compare.main(["basic", "--uri", uri, "--objective", "valid/loss", "--direction",
                         "maximize", "--top", "0"]) == 0
    assert capsys.readouterr().out.splitlines()[0].endswith("(maximize)")
    assert compare.main(["basic", "--uri", uri, "--top", "0"]) == 0
    assert capsys.readouterr().out.splitlines()[0].endswith("sorted by valid/acc (maximize)")


def test_compare_names_its_own_key_for_a_path_given_as_uri(tmp_path, capsys):
    """--uri mlflow.db was refused in MLflow's words (the file store, ./mlruns) and named as
    tracking.uri, a key this command does not have."""
    from runner import compare

    assert compare.main(["--uri", str(tmp_path / "mlflow.db")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tomlrun: error: --uri = '{tmp_path / 'mlflow.db'}' is a path, not "
                          "a tracking URI"), err
    assert f"write --uri sqlite:///{tmp_path / 'mlflow.db'} (three slashes" in err


def test_compare_without_a_target_or_sweep_titles_every_run(tmp_path, monkeypatch, capsys):
    """With no sweep in the store and no target, the title used to read "runs of ''"."""
    from runner import compare

    done = subprocess.run([sys.executable, "-m", "runner", *TINY], cwd=tmp_path, text=True,
                          capture_output=True, timeout=300, env=runner_env())
    assert done.returncode == 0, done.stderr[-3000:]
    monkeypatch.chdir(tmp_path)
    assert compare.main(["--output", str(tmp_path / "c.png")]) == 0
    uri = tracking.default_uri(tmp_path)
    assert capsys.readouterr().out.startswith(f"every run in {uri}: 1 runs, sorted by valid/acc")


def test_compare_refuses_an_output_in_a_missing_folder(tmp_path, capsys):
    from runner import compare

    png = tmp_path / "none" / "x.png"
    assert compare.main(["--output", str(png)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tomlrun: error: --output {png}: the folder {png.parent} does not "
                          "exist") and "Traceback" not in err
    assert compare.main(["--output", str(tmp_path)]) == 2
    assert f"--output {tmp_path} is a folder" in capsys.readouterr().err


def test_compare_refuses_an_output_that_ends_in_a_separator(tmp_path, capsys):
    """``--output plots/`` names a folder that does not exist yet: not a PNG file named plots."""
    from runner import compare

    folder = f"{tmp_path / 'plots'}{os.sep}"
    assert compare.main(["--output", folder]) == 2
    assert capsys.readouterr().err.startswith(
        f"tomlrun: error: --output {folder} ends in a path separator, so it names a folder")
    assert not (tmp_path / "plots").exists()


def test_compare_writes_the_format_its_output_extension_names(sweeps, tmp_path, capsys):
    from runner import compare

    uri = tracking.default_uri(sweeps["basic"][3])
    for name, magic in (("curves.svg", b"<?xml"), ("curves.PDF", b"%PDF"),
                        ("curves.jpg", b"\xff\xd8\xff"), ("curves", b"\x89PNG")):
        assert compare.main(["basic", "--uri", uri, "--output", str(tmp_path / name)]) == 0
        assert (tmp_path / name).read_bytes()[:len(magic)] == magic, name
    capsys.readouterr()
    assert compare.main(["basic", "--uri", uri, "--output", str(tmp_path / "best.txt")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tomlrun: error: --output {tmp_path / 'best.txt'}: .txt is not an "
                          "image format") and ".pdf" in err and ".svg" in err
    assert not (tmp_path / "best.txt").exists()


def test_compare_writes_an_output_in_the_home_folder(sweeps, tmp_path, monkeypatch, capsys):
    """``--output=~/best.png``: the shell leaves that ``~`` alone; it is the home folder."""
    from runner import compare

    monkeypatch.setenv("HOME", str(tmp_path))
    uri = tracking.default_uri(sweeps["basic"][3])
    assert compare.main(["basic", "--uri", uri, "--output=~/best.png"]) == 0
    assert (tmp_path / "best.png").read_bytes()[:4] == b"\x89PNG"
    assert f"{tmp_path / 'best.png'}" in capsys.readouterr().out


def test_a_failed_registration_of_the_best_model_ends_the_parent_and_the_exit_status(
        tmp_path, capsys):
    """Raised from Hydra's callback it was only a warning: the parent stayed RUNNING, exit 0."""
    from runner.sweep.callback import SweepCallback
    from runner.track.tracking import TrackingError

    class Tracker:
        def __init__(self):
            self.tags = {}

        def log_metrics(self, metrics, step):
            pass

        def log_artifact(self, path):
            pass

        def set_tag(self, key, value):
            self.tags[key] = value

        def register_model(self, name, run_id):
            raise TrackingError("the model registry is not reachable")

        def flush(self, force=False):
            pass

    callback = SweepCallback()
    callback.tracker, callback.register_best = Tracker(), "digits-cnn"
    best = summary.Row(name="mlp-adam-lr0.1", status="FINISHED", objective=0.9, params={},
                       run_id="r1", command_id="c")
    callback._log_summary([best], tmp_path)  # ends normally, so the parent can be closed
    assert "the model registry is not reachable" in callback.tracker.tags["register_error"]
    assert "tomlrun: error: sweep.register_best = 'digits-cnn'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:
        callback.on_multirun_end(None)
    assert stop.value.code == 1
