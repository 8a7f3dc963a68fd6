"""Exact resume through the CLI: ``python -m runner`` killed with SIGKILL in the middle of an
epoch right after a checkpoint, resumed with ``trainer.resume=true``, ends with bit-identical
parameters and the same metrics as an uninterrupted run, in the same MLflow run.

The uninterrupted run and the run to kill start together (two cores); the resume follows.
"""
from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import core
from runner.track import tracking
from tests.runner.subprocesses import runner_env

STEPS_PER_EPOCH = 41  # ceil(1294 training digits / 32)
ARGS = ["model=mlp", "model.hidden=[64]", "model.dropout=0.1", "schedule=cosine",
        "trainer.epochs=6", "trainer.batch_size=32", "trainer.log_every=7",
        "trainer.checkpoint_every=10", "trainer.keep_last=2", "trainer.progress=false",
        "runtime.threads=1", "tracking.experiment=resume"]
# Per-point values that depend on the clock, or are logged once per process.
UNREPEATABLE = ("time/", "train/samples_per_sec", "tracking/", "memory/", "data/",
                "system/")  # MLflow's CPU/memory sampler


def _start(cwd: Path, *extra: str) -> subprocess.Popen:
    env = runner_env()
    return subprocess.Popen([sys.executable, "-m", "runner", *ARGS, *extra], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _ctrl_c_enabled() -> None:
    """In the child before it starts: SIGINT back to its default. A shell starts background
    jobs with SIGINT ignored (``cmd &`` without job control), and children inherit that, so a
    suite launched that way would see the "Ctrl-C" below ignored and the run finish."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _checkpoints(cwd: Path) -> list[Path]:
    return sorted(cwd.glob("outputs/*/*/checkpoints/ckpt-step*.ckpt"))


def _final_params(cwd: Path) -> dict:
    newest = max(cwd.glob("outputs/*/*/model.pdparams"), key=lambda p: p.stat().st_mtime)
    return core.load(newest)


def _history(cwd: Path):
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=tracking.default_uri(cwd))
    experiment = client.get_experiment_by_name("resume")
    runs = client.search_runs([experiment.experiment_id])
    assert len(runs) == 1  # resumed into the same run
    run = runs[0]
    points = set()
    for key in run.data.metrics:
        if not key.startswith(UNREPEATABLE):
            points |= {(key, m.step, m.value) for m in client.get_metric_history(run.info.run_id,
                                                                                 key)}
    return run, points


def test_sigkill_mid_epoch_then_resume_is_bit_identical(tmp_path):
    reference_dir, killed_dir = tmp_path / "reference", tmp_path / "killed"
    reference_dir.mkdir()
    killed_dir.mkdir()
    reference = _start(reference_dir)
    victim = _start(killed_dir)
    deadline = time.monotonic() + 300  # generous: CI machines may be loaded
    while not any(int(p.stem[9:]) % STEPS_PER_EPOCH for p in _checkpoints(killed_dir)):
        assert victim.poll() is None, victim.communicate()[0]
        assert time.monotonic() < deadline
        time.sleep(0.005)
    victim.send_signal(signal.SIGKILL)
    victim.communicate(timeout=30)
    assert victim.returncode == -signal.SIGKILL
    assert not list(killed_dir.glob("outputs/*/*/model.pdparams"))  # it never finished
    last = _checkpoints(killed_dir)[-1]
    assert int(last.stem[9:]) % STEPS_PER_EPOCH  # a checkpoint from the middle of an epoch

    resumed = _start(killed_dir, "trainer.resume=true")
    out, _ = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, out
    assert re.search(rf"resuming run [0-9a-f]{{32}} from \S+{last.name}: epoch \d+, batch \d+, "
                     rf"step {int(last.stem[9:])}", out), out[-2000:]  # the user is told
    out_ref, _ = reference.communicate(timeout=300)
    assert reference.returncode == 0, out_ref

    expected, final = _final_params(reference_dir), _final_params(killed_dir)
    assert expected.keys() == final.keys()
    for key in expected:
        assert np.array_equal(expected[key], final[key]), key
    run_ref, points_ref = _history(reference_dir)
    run_res, points_res = _history(killed_dir)
    assert run_res.info.status == "FINISHED" and "resumed_from" in run_res.data.tags
    assert points_res == points_ref
    assert {k for k, _, _ in points_ref} >= {"train/loss", "valid/acc", "test/acc"}


def test_a_run_stopped_after_its_last_epoch_resumes_to_test_and_log_its_model(tmp_path):
    """Ctrl-C between the last epoch's checkpoint and the end of the run (test, model) leaves
    it KILLED; trainer.resume=true finishes it instead of saying there is nothing to resume."""
    extra = ("trainer.epochs=2", "trainer.checkpoint_every=41", "tracking.experiment=late")
    first = subprocess.Popen([sys.executable, "-m", "runner", *ARGS, *extra], cwd=tmp_path,
                             env=runner_env(), stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, preexec_fn=_ctrl_c_enabled)
    for line in first.stdout:  # the test has run: only the outputs and the model are left
        if "test loss" in line:
            first.send_signal(signal.SIGINT)
            break
    first.communicate(timeout=120)
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=tracking.default_uri(tmp_path))
    (run,) = client.search_runs([client.get_experiment_by_name("late").experiment_id])
    assert run.info.status == "KILLED"
    # Before the resume, runner.infer says where the weights are, and reads the run's output
    # folder through its checkpoints/.
    infer = [sys.executable, "-m", "runner.infer", "input=test"]
    by_id = subprocess.run([*infer, f"run={run.info.run_id}"], cwd=tmp_path, env=runner_env(),
                           capture_output=True, text=True, timeout=120)
    assert by_id.returncode == 2 and "(KILLED) has no 'model' artifact: it stopped before " \
        "logging it; resume it with trainer.resume=true" in by_id.stderr, by_id.stderr
    (outputs,) = {path.parent.parent for path in _checkpoints(tmp_path)}
    by_folder = subprocess.run([*infer, f"run={outputs}"], cwd=tmp_path, env=runner_env(),
                               capture_output=True, text=True, timeout=120)
    assert by_folder.returncode == 0, by_folder.stderr[-3000:]
    done = subprocess.run([sys.executable, "-m", "runner", *ARGS, *extra,
                           "trainer.resume=true"], cwd=tmp_path, env=runner_env(),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    (run,) = client.search_runs([client.get_experiment_by_name("late").experiment_id])
    assert run.info.status == "FINISHED" and "test/acc" in run.data.metrics
    assert any(a.path == "model" for a in client.list_artifacts(run.info.run_id))
    assert "after 2 epochs" in done.stdout + done.stderr
