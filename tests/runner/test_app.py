"""runner.app.run end to end on the digits, checked through what MLflow recorded."""
import logging
import os
import re
import signal

import pytest
import tomllib

from core import serialize
from runner import app
from runner.config import schema
from runner.config.options import load_option
from runner.errors import ConfigError
from runner.track import pyfunc, tracking
from runner.train import memory


def make_config(uri: str, **trainer) -> schema.RunConfig:
    options = {"epochs": 1, "batch_size": 64, "log_every": 5, "progress": False} | trainer
    return schema.RunConfig(
        model=load_option("model", "cnn", "layers.conv1.out_channels=4",
                          "layers.conv2.out_channels=8"),
        optim=schema.AdamConfig(lr=0.01),
        schedule=schema.ScheduleConfig(name="cosine", warmup_epochs=0.2),
        clip=schema.ClipConfig(),
        data=schema.DataConfig(),
        trainer=schema.TrainerConfig(**options),
        runtime=schema.RuntimeConfig(threads=1),
        tracking=schema.TrackingConfig(uri=uri, experiment="app-tests"),
    )


@pytest.fixture(scope="module")
def launch(tmp_path_factory):
    """One launch folder and sqlite store for the module (creating the tables costs seconds)."""
    folder = tmp_path_factory.mktemp("launch")
    return folder, tracking.default_uri(folder)


@pytest.fixture
def job_dir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # outside Hydra the outputs go to the current folder
    return tmp_path


def _client(uri):
    from mlflow.tracking import MlflowClient

    return MlflowClient(tracking_uri=uri)


def _only_run(uri, **filters):
    client = _client(uri)
    experiment = client.get_experiment_by_name("app-tests")
    runs = client.search_runs([experiment.experiment_id],
                              filter_string=" and ".join(f"tags.`{k}` = '{v}'"
                                                         for k, v in filters.items()))
    assert len(runs) == 1
    return client, runs[0]


def test_one_epoch_run_is_recorded_and_returns_the_objective(launch, job_dir):
    folder, uri = launch
    overrides = ["optim.lr=0.01", "trainer.epochs=1", "tracking.experiment=app-tests"]
    objective = app.run(make_config(uri), overrides, str(folder))

    client, run = _only_run(uri, overrides=" ".join(overrides))
    assert run.info.status == "FINISHED"
    assert run.info.run_name == "cnn-adam-lr0.01-epochs1"
    metrics = {k: v for k, v in run.data.metrics.items() if not k.startswith("system/")}
    assert "system/cpu_utilization_percentage" in run.data.metrics  # MLflow's sampler
    assert set(metrics) == set(app.METRICS) | {"tracking/overhead_fraction",
                                               "tracking/setup_sec", "model/params",
                                               "model/flops_per_sample"} | set(memory.METRICS) \
        | {"data/wait_fraction", "data/queue_depth"}  # runner/train/data_report.py
    assert {"train/loss", "valid/acc", "test/acc"} <= set(app.METRICS)
    steps = [m.step for m in client.get_metric_history(run.info.run_id, "train/loss")]
    assert steps == [1, 6, 11, 16, 21]  # 21 batches of 64 make the 1294 training digits
    assert objective == metrics["valid/acc"] and 0.3 < objective <= 1.0
    # A share of the training wall time (its size is measured in benchmarks, not asserted here).
    assert 0 <= metrics["tracking/overhead_fraction"] <= 1
    params = run.data.params
    assert params["optim.lr"] == "0.01" and params["model.name"] == "cnn"
    assert params["model.layers.conv1.out_channels"] == "4"
    assert params["model.layers.conv2.type"] == "Conv2D"  # the flattened spec
    tags = run.data.tags
    assert tags["device"] == "cpu" and tags["launch_dir"] == str(folder)
    assert "command" in tags

    artifacts = {a.path for a in client.list_artifacts(run.info.run_id)}
    assert artifacts == {app.CONFIG_FILE, app.CHECKPOINT, app.CURVES_FILE, pyfunc.ARTIFACT_PATH,
                         app.SUMMARY_FILE, app.MODEL_FILE}
    local = client.download_artifacts(run.info.run_id, "", str(job_dir / "downloaded"))
    written = tomllib.loads(open(os.path.join(local, app.CONFIG_FILE)).read())
    assert written["optim"]["lr"] == 0.01
    assert written["model"]["layers"]["conv1"]["out_channels"] == 4
    summary = open(os.path.join(local, app.SUMMARY_FILE)).read()
    assert re.search(r"conv1 +Conv2D +\[4, 8, 8\] +104 ", summary) and "total" in summary
    state = serialize.load(os.path.join(local, app.CHECKPOINT), return_numpy=True)
    assert state["conv1.weight"].shape == (4, 1, 5, 5) and state["fc.weight"].shape == (32, 10)
    with open(os.path.join(local, app.CURVES_FILE), "rb") as png:
        assert png.read(8) == b"\x89PNG\r\n\x1a\n"
    # The job folder holds the same outputs, and the artifacts live under the launch folder.
    assert {p.name for p in job_dir.iterdir()} >= {app.CONFIG_FILE, app.CHECKPOINT,
                                                   app.CURVES_FILE}
    assert run.info.artifact_uri.startswith((folder / "mlruns").as_uri())


def test_an_error_in_training_marks_the_run_failed(launch, job_dir, monkeypatch):
    folder, uri = launch

    def broken(*args, **kwargs):
        raise RuntimeError("loss exploded")

    monkeypatch.setattr(app.Trainer, "fit", broken)
    with pytest.raises(RuntimeError, match="loss exploded"):
        app.run(make_config(uri), ["trainer.seed=11"], str(folder))
    _, run = _only_run(uri, overrides="trainer.seed=11")
    assert run.info.status == "FAILED"
    assert run.data.tags["error"] == "RuntimeError: loss exploded"


def test_sigterm_marks_the_run_killed_and_restores_the_handler(launch, job_dir, monkeypatch):
    folder, uri = launch
    before = signal.getsignal(signal.SIGTERM)

    def terminated(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(app.Trainer, "fit", terminated)
    with pytest.raises(KeyboardInterrupt, match="SIGTERM"):
        app.run(make_config(uri), ["trainer.seed=12"], str(folder))
    _, run = _only_run(uri, overrides="trainer.seed=12")
    assert run.info.status == "KILLED"
    assert signal.getsignal(signal.SIGTERM) is before


@pytest.mark.parametrize("where", ["reading the data", "opening the store"])
def test_ctrl_c_before_the_run_is_opened_is_told_apart(tmp_path, job_dir, monkeypatch, where):
    """A Ctrl-C while the data loads or mlflow imports and creates the store (seconds on a
    first run) used to be reported as "the run was marked KILLED": no run existed."""
    from runner import process

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    if where == "reading the data":
        monkeypatch.setattr(app.build, "build_data", interrupted)
    else:
        monkeypatch.setattr(tracking, "open_client", interrupted)
    uri = tracking.default_uri(tmp_path)
    with pytest.raises(process.StoppedBeforeRun):
        app.run(make_config(uri), [], str(tmp_path))
    assert not (tmp_path / "mlflow.db").exists() and list(job_dir.iterdir()) == []
    # After the run is opened, Ctrl-C stays a plain KeyboardInterrupt: the run is KILLED.
    monkeypatch.undo()
    monkeypatch.chdir(job_dir)
    monkeypatch.setattr(app.Trainer, "fit", interrupted)
    with pytest.raises(KeyboardInterrupt) as caught:
        app.run(make_config(uri), ["trainer.seed=13"], str(tmp_path))
    assert not isinstance(caught.value, process.StoppedBeforeRun)
    client = _client(uri)
    [run] = client.search_runs([client.get_experiment_by_name("app-tests").experiment_id])
    assert run.info.status == "KILLED"


def test_ctrl_c_while_the_run_is_opened_marks_it_killed(tmp_path, job_dir, monkeypatch):
    """Between the run's creation and its first step (logging params, tags, starting the
    system-metrics sampler) a Ctrl-C used to leave the run RUNNING in the store."""
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(tracking.MlflowTracker, "_start_system_metrics", interrupted)
    uri = tracking.default_uri(tmp_path)
    with pytest.raises(KeyboardInterrupt):
        app.run(make_config(uri), ["trainer.seed=14"], str(tmp_path))
    _, run = _only_run(uri, overrides="trainer.seed=14")
    assert run.info.status == "KILLED"


def test_tracking_disabled_still_writes_the_outputs(job_dir):
    cfg = make_config("unused", checkpoint=False, objective="test/acc")
    cfg.tracking.enabled = False
    cfg.data.valid_size = 0
    objective = app.run(cfg, [], str(job_dir))
    assert 0 < objective <= 1
    assert {p.name for p in job_dir.iterdir()} == {app.CONFIG_FILE, app.CURVES_FILE,
                                                   app.SUMMARY_FILE, app.MODEL_FILE}


def test_inspection_without_tracking_is_a_warning(job_dir, caplog):
    """inspect.every with tracking.enabled=false computed statistics that nothing recorded,
    silently: they are MLflow metrics only."""
    cfg = make_config("unused", checkpoint=False, objective="test/acc", log_every=1000)
    cfg.tracking.enabled = False
    cfg.data.valid_size = 0
    cfg.inspect.every = 10
    with caplog.at_level(logging.WARNING, logger="runner.app"):
        app.run(cfg, [], str(job_dir))
    assert [r.getMessage() for r in caplog.records if r.name == "runner.app"] == [
        "inspect.every=10 logs its statistics to MLflow only (inspect/* metrics), and "
        "tracking.enabled=false: nothing will record them. Turn tracking on, or read them "
        "with a handler on the training loop (docs/inspect.md)."]


def test_a_validation_objective_without_validation_data_fails_before_the_run(job_dir):
    cfg = make_config("unused")
    cfg.tracking.enabled = False
    cfg.data.valid_size = 0
    with pytest.raises(ConfigError, match="valid_size"):
        app.run(cfg, [], str(job_dir))
    assert list(job_dir.iterdir()) == []


def test_early_stopping_without_validation_data_fails_before_the_run(job_dir):
    cfg = make_config("unused", early_stop=2)
    cfg.tracking.enabled = False
    cfg.data.valid_size = 0
    with pytest.raises(ConfigError, match=r"watched after each validation pass "
                                          r"\(trainer.early_stop\), but there is no validation"):
        app.run(cfg, [], str(job_dir))
    assert list(job_dir.iterdir()) == []


def test_an_unknown_objective_fails_before_the_run(job_dir):
    cfg = make_config("unused", objective="valid/f1")
    cfg.tracking.enabled = False
    with pytest.raises(ConfigError, match="valid/acc"):
        app.run(cfg, [], str(job_dir))


def test_a_misspelt_sweep_objective_is_named_as_the_key_it_was_set_in(job_dir):
    """sweep.objective=valid/acuracy was reported as trainer.objective, a key the user never
    set; the closest metric is offered."""
    cfg = make_config("unused")
    cfg.tracking.enabled = False
    cfg.sweep.objective = "valid/acuracy"
    with pytest.raises(ConfigError, match=r"^sweep.objective=valid/acuracy is not a metric this "
                                          r"runner logs \(did you mean "
                                          r"sweep.objective=valid/acc\?\)"):
        app.run(cfg, [], str(job_dir))
    cfg.sweep.objective, cfg.data.valid_size = "valid/loss", 0
    cfg.trainer.objective = "test/acc"
    with pytest.raises(ConfigError, match="^sweep.objective=valid/loss needs a validation set"):
        app.run(cfg, [], str(job_dir))
    assert list(job_dir.iterdir()) == []


@pytest.mark.parametrize("overrides,name", [
    ([], "cnn-adam"),
    (["model=cnn", "optim=adam", "optim.lr=0.001"], "cnn-adam-lr0.001"),
    (["data=mnist", "+trainer.epochs=3", "tracking.run_name=x", "hydra.verbose=true"],
     "cnn-adam-mnist-epochs3"),
    (["model.channels=[8,16]"], "cnn-adam-channels_8,16_"),
    (["data.root=/data/mnist", "trainer.progress=false", "runtime.threads=2", "device=gpu:1",
      "schedule=cosine"], "cnn-adam-cosine"),
    (["optim.lr=0.004430375245218269", "trainer.epochs=3"], "cnn-adam-lr0.00443-epochs3"),
    # a key given twice: Hydra takes the last, and so does the name
    (["trainer.epochs=0", "optim.lr=0.1", "trainer.epochs=2"], "cnn-adam-lr0.1-epochs2"),
    # two keys with one last part: each named by the shortest tail that tells them apart
    (["model.layers.conv1.out_channels=32", "model.layers.conv2.out_channels=8"],
     "cnn-adam-conv1.out_channels32-conv2.out_channels8"),
    # how a sweep is run or recorded does not change what each run trains
    (["optim.lr=0.1", "sweep.register_best=digits-cnn"], "cnn-adam-lr0.1"),
])
def test_run_names_come_from_the_overrides(overrides, name):
    assert app.run_name(make_config(""), overrides) == name
