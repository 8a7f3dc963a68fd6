"""Early stopping and the best checkpoint through ``python -m runner`` on the digits.

``trainer.early_stop_delta=0.5`` makes the outcome certain: no epoch can beat the first one's
validation accuracy by 0.5, so epoch 0 stays the best and the run stops after epoch 1.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

import core
from runner import build
from runner.config import schema
from runner.config.options import load_option
from runner.track import tracking
from runner.train.loop import evaluate
from tests.runner.subprocesses import runner_env

ARGS = ["model=mlp", "model.hidden=[32]", "trainer.epochs=4", "trainer.early_stop=1",
        "trainer.early_stop_delta=0.5", "trainer.keep_best=true", "trainer.test_on=best",
        "trainer.progress=false", "runtime.threads=1", "tracking.experiment=best"]


def _run(cwd: Path) -> str:
    done = subprocess.run([sys.executable, "-m", "runner", *ARGS], cwd=cwd, env=runner_env(),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def _model(weights: dict):
    model = build.build_model(load_option("model", "mlp", "hidden=[32]"), (1, 8, 8), 10)
    model.set_state_dict(weights)
    return model


def test_early_stop_and_the_best_weights_for_the_test(tmp_path):
    out = _run(tmp_path)
    assert "early stop after epoch 1: valid/acc" in out and "for 1 passes" in out
    assert "(the best weights (epoch 0))" in out

    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=tracking.default_uri(tmp_path))
    (run,) = client.search_runs([client.get_experiment_by_name("best").experiment_id])
    assert run.info.status == "FINISHED" and run.data.tags["stopped_early"] == "epoch 1"
    history = client.get_metric_history(run.info.run_id, "valid/acc")
    assert len(history) == 2  # epochs 0 and 1, then the stop
    metrics = run.data.metrics
    assert metrics["best/epoch"] == 0 and metrics["best/valid/acc"] == history[0].value
    assert "best.pdparams" in {a.path for a in client.list_artifacts(run.info.run_id)}

    (folder,) = {p.parent for p in tmp_path.glob("outputs/*/*/best.pdparams")}
    best, last = core.load(folder / "best.pdparams"), core.load(folder / "model.pdparams")
    assert best.keys() == last.keys()
    assert not np.array_equal(best["hidden.0.fc.weight"], last["hidden.0.fc.weight"])
    data = schema.DataConfig()
    _, valid, test = build.build_loaders(build.build_data(data, seed=0), data,
                                         schema.TrainerConfig(batch_size=256))
    # best.pdparams holds epoch 0's weights: their validation accuracy is the best one logged
    assert evaluate(_model(best), valid)[1] == metrics["best/valid/acc"]
    # test_on=best: the test metrics are those of the best weights, not of the last ones
    assert evaluate(_model(best), test)[1] == metrics["test/acc"]
    assert evaluate(_model(last), valid)[1] == history[1].value
