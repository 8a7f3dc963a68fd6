"""Trackers: the null tracker, and the MLflow tracker against a temporary sqlite store."""
import pytest

from runner.track import tracking


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """One sqlite store for the module: creating its tables costs seconds."""
    folder = tmp_path_factory.mktemp("launch")
    return folder, tracking.default_uri(folder)


def _client(uri):
    from mlflow.tracking import MlflowClient

    return MlflowClient(tracking_uri=uri)


def _tracker(store, **kwargs):
    folder, uri = store
    return tracking.MlflowTracker(uri, "tests", run_name=kwargs.pop("run_name", "r"),
                                  artifact_location=tracking.default_artifact_location(folder),
                                  **kwargs)


def test_null_tracker_has_the_interface_and_records_nothing(tmp_path):
    tracker = tracking.NullTracker()
    tracker.start({"a": "1"}, {"t": "v"})
    tracker.log_metrics({"train/loss": 1.0}, step=1)
    tracker.flush()
    tracker.set_tag("k", "v")
    tracker.log_artifact(tmp_path)
    tracker.end("FINISHED")
    assert tracker.run_id is None and tracker.overhead_sec >= 0 and tracker.setup_sec == 0
    assert list(tmp_path.iterdir()) == []


def test_default_uri_and_artifact_location_are_absolute(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert tracking.default_uri(".") == f"sqlite:///{tmp_path.resolve()}/mlflow.db"
    assert tracking.default_artifact_location(".") == (tmp_path.resolve() / "mlruns").as_uri()


def test_run_records_params_tags_metrics_artifacts_and_status(store, tmp_path):
    tracker = _tracker(store, run_name="full")
    params = {f"p{i:03d}": str(i) for i in range(250)}  # more than one params batch (100)
    tracker.start(params, {"device": "cpu", "overrides": "optim.lr=0.1"})
    for step in range(1, 6):
        tracker.log_metrics({"train/loss": 1.0 / step, "train/acc": step / 10}, step)
    artifact = tmp_path / "config.toml"
    artifact.write_text("a = 1\n")
    tracker.log_artifact(artifact)
    tracker.set_tag("extra", "yes")
    tracker.end("FINISHED")

    client = _client(store[1])
    run = client.get_run(tracker.run_id)
    assert run.info.status == "FINISHED"
    assert run.info.run_name == "full"
    assert run.data.params == params
    assert run.data.tags["device"] == "cpu" and run.data.tags["extra"] == "yes"
    history = client.get_metric_history(tracker.run_id, "train/loss")
    assert [(m.step, m.value) for m in history] == [(s, 1.0 / s) for s in range(1, 6)]
    assert [a.path for a in client.list_artifacts(tracker.run_id)] == ["config.toml"]
    experiment = client.get_experiment(run.info.experiment_id)
    assert experiment.artifact_location == tracking.default_artifact_location(store[0])
    assert tracker.setup_sec > 0 and tracker.overhead_sec > 0


def test_failed_status_is_recorded(store):
    tracker = _tracker(store)
    tracker.start({}, {})
    tracker.set_tag("error", "RuntimeError: boom")
    tracker.end("FAILED")
    run = _client(store[1]).get_run(tracker.run_id)
    assert run.info.status == "FAILED"
    assert run.data.tags["error"] == "RuntimeError: boom"


def test_metrics_are_sent_in_few_batches(store, monkeypatch):
    tracker = _tracker(store, flush_seconds=3600)
    tracker.start({}, {})
    calls = []
    real = tracker._client.log_batch
    monkeypatch.setattr(tracker._client, "log_batch",
                        lambda run_id, **kw: calls.append(len(kw.get("metrics", ()))) or
                        real(run_id, **kw))
    for step in range(1, 1251):  # 2500 points
        tracker.log_metrics({"train/loss": 1.0, "train/acc": 0.5}, step)
    tracker.end("FINISHED")
    assert calls == [1000, 1000, 500]
    history = _client(store[1]).get_metric_history(tracker.run_id, "train/acc")
    assert len(history) == 1250


def test_stale_buffer_is_sent_on_the_next_log(store, monkeypatch):
    tracker = _tracker(store, flush_seconds=0.0)
    tracker.start({}, {})
    calls = []
    monkeypatch.setattr(tracker._client, "log_batch",
                        lambda run_id, **kw: calls.append(len(kw["metrics"])))
    tracker.log_metrics({"a": 1.0}, 1)
    tracker.log_metrics({"a": 2.0}, 2)
    assert calls == [1, 1]


def test_long_param_and_tag_values_are_clipped(store):
    tracker = _tracker(store)
    tracker.start({"long": "x" * 7000}, {"long": "y" * 9000})
    tracker.end("FINISHED")
    run = _client(store[1]).get_run(tracker.run_id)
    assert len(run.data.params["long"]) == tracking.MAX_PARAM_VALUE
    assert run.data.params["long"].endswith("...")
    assert len(run.data.tags["long"]) == tracking.MAX_TAG_VALUE


def test_deleted_experiment_is_a_clear_error(store):
    client = _client(store[1])
    experiment_id = client.create_experiment("gone")
    client.delete_experiment(experiment_id)
    tracker = tracking.MlflowTracker(store[1], "gone")
    with pytest.raises(tracking.TrackingError, match="tracking.experiment"):
        tracker.start({}, {})


def test_recorder_keeps_history_and_forwards():
    class Spy(tracking.NullTracker):
        def __init__(self):
            super().__init__()
            self.seen, self.flushed = [], 0

        def log_metrics(self, metrics, step):
            self.seen.append((dict(metrics), step))

        def flush(self, force=False):
            self.flushed += 1 + 10 * force

    spy = Spy()
    recorder = tracking.Recorder(spy)
    recorder.log_metrics({"valid/acc": 0.5}, 10)
    recorder.log_metrics({"valid/acc": 0.75, "valid/loss": 0.3}, 20)
    recorder.flush()
    recorder.flush(force=True)
    assert recorder.history["valid/acc"] == [(10, 0.5), (20, 0.75)]
    assert recorder.last("valid/acc") == 0.75
    assert spy.seen[1] == ({"valid/acc": 0.75, "valid/loss": 0.3}, 20) and spy.flushed == 12
    with pytest.raises(KeyError):
        recorder.last("test/acc")


def test_git_commit_outside_a_repository_is_none(tmp_path):
    assert tracking.git_commit(tmp_path) is None


def test_epoch_end_flushes_are_merged_until_flush_seconds_pass(store, monkeypatch):
    tracker = _tracker(store, flush_seconds=3600)
    tracker.start({}, {})
    calls = []
    monkeypatch.setattr(tracker._client, "log_batch",
                        lambda run_id, **kw: calls.append(len(kw["metrics"])))
    for epoch in range(3):
        tracker.log_metrics({"valid/acc": 0.5}, epoch)
        tracker.flush()
    assert calls == []
    tracker.flush(force=True)
    assert calls == [3]
    tracker.flush_seconds = 0.0
    tracker.log_metrics({"valid/acc": 0.5}, 4)
    assert calls == [3, 1]


def _store_error(cause: Exception):
    """The exception MLflow's SQL store raises for ``cause`` (it wraps it while handling it)."""
    from mlflow.exceptions import MlflowException
    from mlflow.protos.databricks_pb2 import INTERNAL_ERROR

    try:
        raise cause
    except Exception as exc:  # noqa: BLE001 - re-raised wrapped, as the store does
        return MlflowException(exc, INTERNAL_ERROR)


DATASET = {"name": "digits-train", "digest": "0123456789abcdef", "source": "/data/digits.csv",
           "context": "training", "profile": {"num_rows": 10}}


def test_a_data_set_created_by_a_parallel_run_meanwhile_is_logged_on_a_second_try(
        store, monkeypatch):
    """Two sweep jobs may both look the data set up, find nothing and insert it: the second
    insert breaks the store's unique constraint. The tracker tries again and finds the row."""
    import sqlite3

    from sqlalchemy.exc import IntegrityError

    first, second = _tracker(store), _tracker(store)
    first.start({}, {})
    second.start({}, {})
    real = second._client.log_inputs
    calls = []

    def racing(run_id, datasets):
        calls.append(run_id)
        if len(calls) == 1:  # the other job inserts the same data set first
            first.log_datasets([DATASET])
            raise _store_error(IntegrityError("INSERT INTO datasets", {}, sqlite3.IntegrityError(
                "UNIQUE constraint failed: datasets.experiment_id, datasets.name, "
                "datasets.digest")))
        return real(run_id, datasets=datasets)

    monkeypatch.setattr(second._client, "log_inputs", racing)
    second.log_datasets([DATASET])
    for tracker in (first, second):
        tracker.end("FINISHED")
        inputs = _client(store[1]).get_run(tracker.run_id).inputs.dataset_inputs
        assert [(i.dataset.name, i.dataset.digest) for i in inputs] == [
            ("digits-train", "0123456789abcdef")]
    assert len(calls) == 2


def test_other_store_errors_while_logging_data_sets_are_not_retried(store, monkeypatch):
    from mlflow.exceptions import MlflowException

    tracker = _tracker(store)
    tracker.start({}, {})
    calls = []

    def broken(run_id, datasets):
        calls.append(run_id)
        raise _store_error(RuntimeError("disk I/O error"))

    monkeypatch.setattr(tracker._client, "log_inputs", broken)
    with pytest.raises(MlflowException, match="disk I/O error"):
        tracker.log_datasets([DATASET])
    tracker.end("FAILED")
    assert len(calls) == 1
