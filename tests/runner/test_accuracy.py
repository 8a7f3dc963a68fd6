"""Training reaches known accuracies, run exactly as a user runs it: ``python -m runner``.

The default job (the tutorial CNN on the embedded digits) must reach >= 95% test accuracy, and
one epoch of the PaddlePaddle MNIST tutorial >= 97% (the tutorial's own log shows 97-99% from
its first epoch on). Each case reads the result back from the MLflow store the run wrote.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.runner.subprocesses import runner_env


def _train(tmp_path: Path, *overrides: str) -> dict[str, float]:
    env = runner_env()
    done = subprocess.run([sys.executable, "-m", "runner", *overrides], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    import mlflow  # noqa: PLC0415 - heavy, and only these tests need it

    client = mlflow.MlflowClient(tracking_uri=f"sqlite:///{tmp_path / 'mlflow.db'}")
    experiments = [e.experiment_id for e in client.search_experiments()]
    (run,) = client.search_runs(experiments)
    assert run.info.status == "FINISHED"
    return run.data.metrics


def test_default_job_reaches_95_percent_on_digits(tmp_path):
    metrics = _train(tmp_path)
    assert metrics["test/acc"] >= 0.95
    assert metrics["valid/acc"] >= 0.93


def test_one_epoch_of_the_mnist_tutorial_reaches_97_percent(tmp_path, shared_dir):
    metrics = _train(tmp_path, "+experiment=mnist_cnn", f"data.root={shared_dir('mnist')}",
                     "trainer.epochs=1")
    assert metrics["test/acc"] >= 0.97
    assert metrics["train/loss"] < 0.15
