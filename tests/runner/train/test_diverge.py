"""experiments/diverge.toml blows up and is caught; diverge_clipped.toml trains; the MLflow run,
the exit status and the last good checkpoint after a NaN stop."""
import subprocess
import sys

import numpy as np
import pytest
from hydra import compose, initialize_config_dir

from core import serialize
from runner import app
from runner.config.paths import config_dirs
from runner.config.validation import validate
from runner.track import tracking
from runner.train import checkpoint, events, health
from runner.train.health import NonFiniteError
from tests.runner.subprocesses import runner_env


@pytest.fixture(scope="module")
def make():
    with initialize_config_dir(config_dir=str(config_dirs()[0]), version_base=None):
        yield lambda *overrides: validate(compose("config", overrides=list(overrides)))


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    folder = tmp_path_factory.mktemp("launch")
    return folder, tracking.default_uri(folder)


def _run(uri, name):
    from mlflow.tracking import MlflowClient  # noqa: PLC0415 - slow import, only here

    client = MlflowClient(tracking_uri=uri)
    experiment = client.get_experiment_by_name("diverge")
    (run,) = client.search_runs([experiment.experiment_id],
                                filter_string=f"tags.overrides = '{name}'")
    return client, run


def test_diverge_stops_naming_the_culprit_fails_the_run_and_keeps_the_last_checkpoint(
        make, store, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # outside Hydra the outputs go to the current folder
    folder, uri = store
    overrides = ["+experiment=diverge", "trainer.checkpoint_every=2", "trainer.keep_last=1",
                 "trainer.progress=false"]
    cfg = make(*overrides, f"tracking.uri={uri}")
    with pytest.raises(NonFiniteError) as info:
        app.run(cfg, overrides, str(folder))
    report = info.value.report
    assert "at epoch 0, batch 4, step 5" in report
    assert "First non-finite quantity: the loss (+Inf)" in report
    assert "the model's output (layer 'out') reaches |x| = " in report
    assert "- Normalise the inputs: the largest |input| in this batch is 16" in report
    assert "clip=global_norm clip.threshold=0.003" in report

    client, run = _run(uri, " ".join(overrides))
    assert run.info.status == "FAILED"
    assert run.data.tags[health.REPORT_TAG] == report
    assert run.data.tags["error"].startswith("NonFiniteError: Training stopped")
    artifacts = {a.path for a in client.list_artifacts(run.info.run_id)}
    assert health.REPORT_FILE in artifacts and app.CHECKPOINT not in artifacts
    assert (tmp_path / health.REPORT_FILE).read_text() == report
    # The checkpoint of step 4 (the last before the NaN) is kept, and its weights are finite.
    (kept,) = checkpoint.list_checkpoints(tmp_path / "checkpoints")
    assert kept.endswith(checkpoint.checkpoint_name(4))
    assert not (tmp_path / app.CHECKPOINT).exists()
    body = serialize.load(kept, return_numpy=True)
    weights = [np.asarray(v) for k, v in _flat(body) if k.endswith("weight")]
    assert weights and all(np.isfinite(w).all() for w in weights)


def _flat(tree, prefix=""):
    if isinstance(tree, dict):
        for key, value in tree.items():
            yield from _flat(value, f"{prefix}.{key}" if prefix else str(key))
    else:
        yield prefix, tree


def test_the_clipped_variant_trains_and_records_clipping(make, store, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    folder, uri = store
    overrides = ["+experiment=diverge_clipped", "trainer.progress=false"]
    objective = app.run(make(*overrides, f"tracking.uri={uri}", "trainer.checkpoint=false"),
                        overrides, str(folder))
    assert objective >= 0.93  # valid/acc of the MLP that diverge.toml blows up
    client, run = _run(uri, " ".join(overrides))
    metrics = run.data.metrics
    assert run.info.status == "FINISHED" and metrics["test/acc"] >= 0.9
    assert metrics["health/nonfinite_events"] == 0 and metrics["health/skipped_steps"] == 0
    assert metrics["clip/acted"] > 0 and metrics["clip/grad_norm_max"] > 0.003


def test_a_nan_made_by_an_update_never_replaces_a_good_checkpoint(make, tmp_path):
    from runner.train.loop import Trainer  # noqa: PLC0415

    cfg = make("model=mlp", "trainer.epochs=1", "trainer.progress=false")
    parts = app._build(cfg)
    trainer = Trainer(parts.model, parts.optimizer, cfg.trainer)
    trainer.checkpointer = checkpoint.Checkpointer(tmp_path, every=1, keep_last=1)

    def corrupt(event):  # the update of step 3 "overflows"
        if event.step == 3:
            event.model.out.weight.data[0, 0] = np.inf

    trainer.on(events.EndIteration, corrupt)
    with pytest.raises(NonFiniteError, match="in the update of step 3"):
        trainer.fit(parts.train)
    (kept,) = checkpoint.list_checkpoints(tmp_path)
    assert kept.endswith(checkpoint.checkpoint_name(2))


def test_the_command_line_exits_2_with_one_paragraph(tmp_path):
    env = runner_env()
    done = subprocess.run([sys.executable, "-m", "runner", "+experiment=diverge",
                           "tracking.enabled=false", "trainer.nan_check_locate=false"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    errors = [line for line in done.stderr.splitlines() if line.startswith("tomlrun: error:")]
    assert len(errors) == 1 and "Traceback" not in done.stderr
    assert "Training stopped on a non-finite value at epoch 0, batch 4, step 5" in errors[0]
    assert "Remedies: - Normalise the inputs" in errors[0]
    assert "RuntimeWarning" not in done.stderr  # numpy's overflow warnings stay quiet
