"""Experiment tracking: the only module that imports mlflow (lazily: the import costs ~1.5 s).

``MlflowTracker`` writes one MLflow run through ``MlflowClient``. Metrics are buffered and sent
with ``log_batch`` (one sqlite ``log_metric`` call costs 5-12 ms, a batched metric ~0.1 ms). A
send costs 15-50 ms on sqlite whatever its size, so sends happen at most every ``flush_seconds``
(the loop asks at each epoch end; short epochs are merged) and when the run ends.
``NullTracker`` has the same interface and records nothing, for tracking.enabled=false and tests.
Both count the seconds spent inside their calls (``overhead_sec``) so the runner can report what
tracking cost.
"""
from __future__ import annotations

import contextlib
import logging
import os
import subprocess
import time
from pathlib import Path

from runner.errors import UserError

MAX_METRICS_PER_BATCH = 1000  # MLflow's limit for one log_batch call
MAX_PARAMS_PER_BATCH = 100
MAX_PARAM_VALUE = 6000
MAX_TAG_VALUE = 5000  # well under MLflow's 8000-character tag limit


def default_uri(launch_dir: str | os.PathLike) -> str:
    """``sqlite:///<absolute launch dir>/mlflow.db``: MLflow 3's default store, made absolute."""
    return "sqlite:///" + str(Path(launch_dir).resolve() / "mlflow.db")


def default_artifact_location(launch_dir: str | os.PathLike) -> str:
    return (Path(launch_dir).resolve() / "mlruns").as_uri()


def git_commit(folder: str | os.PathLike) -> str | None:
    """The commit checked out in ``folder``, or None when it is not a git work tree."""
    try:
        done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=folder, capture_output=True,
                              text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and commit else None


def quiet_mlflow() -> None:
    """MLflow and alembic log schema migrations and more at INFO; keep the console for us."""
    for name in ("mlflow", "alembic"):
        logging.getLogger(name).setLevel(logging.WARNING)


class _Timed:
    """Adds the time spent in tracker calls to ``overhead_sec``."""

    overhead_sec = 0.0

    @contextlib.contextmanager
    def _timed(self):
        start = time.perf_counter()
        try:
            yield
        finally:
            self.overhead_sec += time.perf_counter() - start


class NullTracker(_Timed):
    """The tracker interface, doing nothing: tracking.enabled=false, unit tests."""

    run_id: str | None = None

    def __init__(self):
        self.overhead_sec = 0.0
        self.setup_sec = 0.0

    def start(self, params: dict[str, str], tags: dict[str, str]) -> None:
        del params, tags

    def resume(self, run_id: str, tags: dict[str, str]) -> None:
        del run_id, tags

    def log_metrics(self, metrics: dict[str, float], step: int) -> None:
        del metrics, step

    def flush(self, force: bool = False) -> None:
        del force

    def log_artifact(self, path: str | os.PathLike, artifact_path: str | None = None) -> None:
        del path, artifact_path

    def set_tag(self, key: str, value: str) -> None:
        del key, value

    def end(self, status: str = "FINISHED") -> None:
        del status


class MlflowTracker(_Timed):
    """One MLflow run in ``experiment`` of the store at ``uri``."""

    def __init__(self, uri: str, experiment: str, run_name: str = "",
                 artifact_location: str | None = None, flush_seconds: float = 5.0):
        self.uri, self.experiment, self.run_name = uri, experiment, run_name
        self.artifact_location = artifact_location
        self.flush_seconds = flush_seconds
        self.overhead_sec = 0.0
        self.setup_sec = 0.0  # import and store creation: paid once, reported separately
        self.run_id: str | None = None
        self._client = None
        self._buffer: list = []
        self._last_flush = time.monotonic()
        self._metric_cls = None

    def start(self, params: dict[str, str], tags: dict[str, str]) -> None:
        """Create the run (and the experiment if needed) and log ``params`` and ``tags``."""
        begin = time.perf_counter()
        from mlflow.entities import Param  # noqa: PLC0415 - slow import, only when used

        self._connect()
        experiment_id = self._experiment_id()
        run = self._client.create_run(experiment_id, run_name=self.run_name or None,
                                      tags={k: _clip(v, MAX_TAG_VALUE) for k, v in tags.items()})
        self.run_id = run.info.run_id
        items = [Param(key, _clip(str(value), MAX_PARAM_VALUE)) for key, value in params.items()]
        for first in range(0, len(items), MAX_PARAMS_PER_BATCH):
            self._client.log_batch(self.run_id, params=items[first:first + MAX_PARAMS_PER_BATCH])
        self._last_flush = time.monotonic()
        self.setup_sec = time.perf_counter() - begin

    def _connect(self) -> None:
        from mlflow.entities import Metric  # noqa: PLC0415 - slow import, only when used
        from mlflow.tracking import MlflowClient  # noqa: PLC0415

        quiet_mlflow()
        self._metric_cls = Metric
        self._client = MlflowClient(tracking_uri=self.uri)

    def resume(self, run_id: str, tags: dict[str, str]) -> None:
        """Reopen run ``run_id`` (RUNNING again) and log into it from now on. Its params were
        logged when it started (MLflow params are write-once) and are not sent again."""
        begin = time.perf_counter()
        self._connect()
        run = self.get_run(run_id)
        if run is None:
            raise TrackingError(f"trainer.resume={run_id}: no MLflow run with that id in "
                                f"{self.uri}; give the id of a run in this store (the runner "
                                "prints it at the end) or trainer.resume=true.")
        self.run_id, self.run_name = run_id, run.info.run_name
        self._client.update_run(run_id, status="RUNNING")
        for key, value in tags.items():
            self._client.set_tag(run_id, key, _clip(str(value), MAX_TAG_VALUE))
        self._last_flush = time.monotonic()
        self.setup_sec = time.perf_counter() - begin

    def get_run(self, run_id: str):
        """The MLflow run ``run_id`` of this store, or None when there is none."""
        from mlflow.exceptions import MlflowException  # noqa: PLC0415

        if self._client is None:
            self._connect()
        try:
            return self._client.get_run(run_id)
        except MlflowException:
            return None

    def find_runs(self, run_name: str) -> list:
        """The (at most 50) newest runs of this experiment called ``run_name``, newest first."""
        if self._client is None:
            self._connect()
        found = self._client.get_experiment_by_name(self.experiment)
        if found is None:
            return []
        name = run_name.replace("'", "\\'")
        return self._client.search_runs([found.experiment_id],
                                        filter_string=f"attributes.run_name = '{name}'",
                                        order_by=["attributes.start_time DESC"],
                                        max_results=50)

    def log_metrics(self, metrics: dict[str, float], step: int) -> None:
        """Buffer one point per metric; send the buffer when it is old or full."""
        with self._timed():
            stamp = int(time.time() * 1000)
            self._buffer.extend(self._metric_cls(key, float(value), stamp, int(step))
                                for key, value in metrics.items())
            stale = time.monotonic() - self._last_flush >= self.flush_seconds
            if stale or len(self._buffer) >= MAX_METRICS_PER_BATCH:
                self._send()

    def flush(self, force: bool = False) -> None:
        """Send the buffer if the last send is ``flush_seconds`` old (at once when ``force``)."""
        with self._timed():
            if force or time.monotonic() - self._last_flush >= self.flush_seconds:
                self._send()

    def log_artifact(self, path: str | os.PathLike, artifact_path: str | None = None) -> None:
        with self._timed():
            self._client.log_artifact(self.run_id, os.fspath(path), artifact_path)

    def set_tag(self, key: str, value: str) -> None:
        with self._timed():
            self._client.set_tag(self.run_id, key, _clip(str(value), MAX_TAG_VALUE))

    def end(self, status: str = "FINISHED") -> None:
        """Send what is buffered and close the run as FINISHED, FAILED or KILLED."""
        if self.run_id is None:
            return
        with self._timed():
            try:
                self._send()
            finally:
                self._client.set_terminated(self.run_id, status)

    def _send(self) -> None:
        buffer, self._buffer = self._buffer, []
        for first in range(0, len(buffer), MAX_METRICS_PER_BATCH):
            self._client.log_batch(self.run_id,
                                   metrics=buffer[first:first + MAX_METRICS_PER_BATCH])
        self._last_flush = time.monotonic()

    def _experiment_id(self) -> str:
        from mlflow.exceptions import MlflowException  # noqa: PLC0415

        found = self._client.get_experiment_by_name(self.experiment)
        if found is None:
            try:
                return self._client.create_experiment(
                    self.experiment, artifact_location=self.artifact_location)
            except MlflowException:
                # A parallel job (multirun) may have created it between our lookup and create.
                found = self._client.get_experiment_by_name(self.experiment)
                if found is None:
                    raise
        if found.lifecycle_stage == "deleted":
            raise TrackingError(
                f"MLflow experiment '{self.experiment}' in {self.uri} is deleted: restore it "
                f"(mlflow experiments restore --experiment-id {found.experiment_id}) or choose "
                "another name with tracking.experiment=NAME.")
        return found.experiment_id


class TrackingError(UserError):
    """The tracking store refuses the run in a way the user can fix."""


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


class Recorder:
    """A metrics sink that keeps every point (for curves and the objective) and forwards it."""

    def __init__(self, tracker):
        self.tracker = tracker
        self.history: dict[str, list[tuple[int, float]]] = {}

    def log_metrics(self, metrics: dict[str, float], step: int) -> None:
        for key, value in metrics.items():
            self.history.setdefault(key, []).append((int(step), float(value)))
        self.tracker.log_metrics(metrics, step)

    def flush(self, force: bool = False) -> None:
        self.tracker.flush(force)

    def last(self, key: str) -> float:
        """The latest value logged for ``key`` (KeyError when it was never logged)."""
        return self.history[key][-1][1]
