"""Experiment tracking: writing runs. mlflow is imported lazily here and in the other modules of
runner.track (the import costs ~1.5 s).

``MlflowTracker`` writes one MLflow run through ``MlflowClient``. Metrics are buffered and sent
with ``log_batch`` (one sqlite ``log_metric`` call costs 5-12 ms, a batched metric ~0.1 ms). A
send costs 15-50 ms on sqlite whatever its size, so sends happen at most every ``flush_seconds``
(the loop asks at each epoch end; short epochs are merged) and when the run ends.
``NullTracker`` has the same interface and records nothing, for tracking.enabled=false and tests.
Both count the seconds spent inside their calls (``overhead_sec``) so the runner can report what
tracking cost.

A run also gets MLflow's system metrics (``system/cpu_utilization_percentage``,
``system/system_memory_usage_megabytes``, GPU ones with nvidia-ml-py; a background thread, one
sample every 10 s, and the samples of the last partial interval when the run ends), its data sets
as inputs (``log_datasets``) and, with ``register_model``, a version of a registered model. A
local sqlite store is created and checked by ``runner.track.store`` before MLflow opens it.
"""
from __future__ import annotations

import contextlib
import logging
import os
import subprocess
import time
from pathlib import Path

from runner.errors import UserError
from runner.track import store

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
    return git_state(folder)[0]


def git_state(folder: str | os.PathLike) -> tuple[str | None, bool]:
    """(commit checked out in ``folder`` or None, whether tracked files differ from it): one
    ``git status`` call; untracked files do not count as changes."""
    try:
        done = subprocess.run(["git", "status", "--porcelain=v2", "--branch", "-uno"],
                              cwd=folder, capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None, False
    if done.returncode != 0:
        return None, False
    lines = done.stdout.splitlines()
    commit = next((line.split()[2] for line in lines if line.startswith("# branch.oid ")), None)
    if commit == "(initial)":
        commit = None
    return commit, any(not line.startswith("#") for line in lines)


def tomlrun_version() -> str:
    """The installed tomlrun's version ("0+unknown" when it runs from a bare checkout)."""
    import core  # noqa: PLC0415

    return core.__version__


def check_uri(uri: str, key: str = "tracking.uri") -> None:
    """A tracking URI written as a bare path (``mlflow.db``, ``/data/mlflow.db``): MLflow takes
    it for a folder store and refuses it with a word about "the filesystem tracking backend"
    and ``./mlruns``, which says nothing of the ``sqlite:///`` the user meant. ``key`` is
    where the URI was given (``tracking.uri``, ``--uri``, ``uri=``)."""
    path = os.path.abspath(os.path.expanduser(uri))
    looks_like_path = "/" in uri or os.sep in uri or uri.endswith(".db") or os.path.exists(path)
    if not uri or "://" in uri or not looks_like_path:
        return  # a URI, or a word MLflow may know (databricks)
    raise TrackingError(
        f"{key} = '{uri}' is a path, not a tracking URI: MLflow would take it for a file "
        "store (a folder such as ./mlruns), which it refuses. For an SQLite store write "
        f"{key}{'=' if key != '--uri' else ' '}sqlite:///{path} (three slashes, then the "
        "path), or give an http(s):// tracking server or a database URI (postgresql://, "
        "mysql://).")


def open_client(uri: str):
    """An ``MlflowClient`` for ``uri`` (tracking and model registry); a local sqlite store is
    created whole or checked first (``runner.track.store``)."""
    check_uri(uri)
    store.prepare(uri)
    from mlflow.exceptions import MlflowException  # noqa: PLC0415 - slow import, only when used
    from mlflow.tracking import MlflowClient  # noqa: PLC0415

    quiet_mlflow()
    try:
        return MlflowClient(tracking_uri=uri, registry_uri=uri)
    except MlflowException as exc:  # an unknown scheme, a store this MLflow refuses, ...
        reason = str(exc).strip().split(". ")[0].strip()
        raise TrackingError(
            f"the MLflow tracking URI '{uri}' (tracking.uri) cannot be used: {reason}. Use "
            "sqlite:///path/to/mlflow.db (the default is mlflow.db in the launch folder), "
            "an http(s):// tracking server, or a database URI (postgresql://, mysql://); "
            "nothing was written.") from None


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

    def connect(self) -> None:
        """Nothing to open."""

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

    def log_artifacts(self, folder: str | os.PathLike, artifact_path: str | None = None) -> None:
        del folder, artifact_path

    def log_datasets(self, datasets: list[dict]) -> None:
        del datasets

    def register_model(self, name: str, run_id: str | None = None) -> str | None:
        del name, run_id
        return None

    def set_tag(self, key: str, value: str) -> None:
        del key, value

    def end(self, status: str = "FINISHED") -> None:
        del status


def _is_duplicate_row(exc: BaseException) -> bool:
    """Whether a store error was caused by a unique-constraint violation (any SQL backend)."""
    from sqlalchemy.exc import IntegrityError  # noqa: PLC0415

    seen = exc
    while seen is not None:
        if isinstance(seen, IntegrityError) or "UNIQUE constraint" in str(seen):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


class MlflowTracker(_Timed):
    """One MLflow run in ``experiment`` of the store at ``uri``."""

    def __init__(self, uri: str, experiment: str, run_name: str = "",
                 artifact_location: str | None = None, flush_seconds: float = 5.0,
                 system_metrics: bool = False):
        self.uri, self.experiment, self.run_name = uri, experiment, run_name
        self.artifact_location = artifact_location
        self.flush_seconds = flush_seconds
        self.system_metrics = system_metrics
        self._monitor = None
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

        self.connect()
        experiment_id = self._experiment_id()
        run = self._client.create_run(experiment_id, run_name=self.run_name or None,
                                      tags={k: _clip(v, MAX_TAG_VALUE) for k, v in tags.items()})
        self.run_id = run.info.run_id
        items = [Param(key, _clip(str(value), MAX_PARAM_VALUE)) for key, value in params.items()]
        for first in range(0, len(items), MAX_PARAMS_PER_BATCH):
            self._client.log_batch(self.run_id, params=items[first:first + MAX_PARAMS_PER_BATCH])
        self._last_flush = time.monotonic()
        self._start_system_metrics(resume=False)
        self.setup_sec += time.perf_counter() - begin

    def connect(self) -> None:
        """Import mlflow and open the store (creating a missing sqlite one), once; ``start``
        and ``resume`` do it when nobody did. Apart from them, a caller can tell a stop while
        it runs (seconds, on a first run) from a stop after the run exists (runner.app)."""
        if self._client is None:
            begin = time.perf_counter()
            self._connect()
            self.setup_sec += time.perf_counter() - begin

    def _connect(self) -> None:
        from mlflow.entities import Metric  # noqa: PLC0415 - slow import, only when used

        self._client = open_client(self.uri)
        self._metric_cls = Metric

    def _start_system_metrics(self, resume: bool) -> None:
        """MLflow's sampler of CPU, memory, disk, network (and GPU) in a background thread."""
        if not self.system_metrics:
            return
        try:
            import psutil  # noqa: F401, PLC0415 - MLflow's sampler needs it
            from mlflow.system_metrics.system_metrics_monitor import SystemMetricsMonitor  # noqa: PLC0415
        except ImportError:
            logging.getLogger(__name__).warning(
                "system metrics are off: psutil is not installed (pip install psutil)")
            return
        self._monitor = SystemMetricsMonitor(self.run_id, resume_logging=resume,
                                             tracking_uri=self.uri)
        self._monitor.start()

    def _stop_system_metrics(self) -> None:
        """Stop the sampler and send the samples of the last, partial interval, so that a run
        shorter than the interval has its point too."""
        monitor, self._monitor = self._monitor, None
        if monitor is None:
            return
        monitor.finish()
        if any(getattr(part, "_metrics", None) for part in monitor.monitors):
            with contextlib.suppress(Exception):
                monitor.publish_metrics(monitor.aggregate_metrics())
                monitor.mlflow_logger.flush()

    def resume(self, run_id: str, tags: dict[str, str]) -> None:
        """Reopen run ``run_id`` (RUNNING again) and log into it from now on. Its params were
        logged when it started (MLflow params are write-once) and are not sent again."""
        begin = time.perf_counter()
        self.connect()
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
        self._start_system_metrics(resume=True)
        self.setup_sec += time.perf_counter() - begin

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

    def log_artifacts(self, folder: str | os.PathLike, artifact_path: str | None = None) -> None:
        with self._timed():
            self._client.log_artifacts(self.run_id, os.fspath(folder), artifact_path)

    def log_datasets(self, datasets: list[dict]) -> None:
        """Log data sets as the run's inputs: each a dict of ``name``, ``digest``, ``source``
        (a path or URI), ``context`` (training, validation, test) and ``profile`` (a dict)."""
        import json  # noqa: PLC0415

        from mlflow.entities import Dataset, DatasetInput, InputTag  # noqa: PLC0415

        with self._timed():
            inputs = [DatasetInput(
                Dataset(name=item["name"], digest=item["digest"], source_type="local",
                        source=json.dumps({"uri": item["source"]}),
                        schema=json.dumps(item.get("schema", {})),
                        profile=json.dumps(item.get("profile", {}))),
                tags=[InputTag("mlflow.data.context", item["context"])]) for item in datasets]
            if inputs:
                self._log_inputs(inputs)

    def _log_inputs(self, inputs: list, attempts: int = 3) -> None:
        """``log_inputs``, tried again when a parallel run of the same experiment created the
        same data set (name and digest) between MLflow's lookup and its insert: the store then
        refuses the second row as a duplicate, and the next try finds the first one's row."""
        from mlflow.exceptions import MlflowException  # noqa: PLC0415

        for attempt in range(attempts):
            try:
                self._client.log_inputs(self.run_id, datasets=inputs)
                return
            except MlflowException as exc:
                if not _is_duplicate_row(exc):
                    raise
                if attempt == attempts - 1:
                    logging.getLogger(__name__).warning(
                        "data sets not logged to MLflow: %s", str(exc).splitlines()[0])
                    return
                time.sleep(0.05 * (attempt + 1))

    def register_model(self, name: str, run_id: str | None = None) -> str:
        """Register the ``model`` artifact of ``run_id`` (this run by default) as a new version
        of the registered model ``name`` (created when missing); returns the version."""
        from mlflow.exceptions import MlflowException  # noqa: PLC0415

        run_id = run_id or self.run_id
        with self._timed():
            try:
                self._client.create_registered_model(name)
            except MlflowException as exc:
                if exc.error_code != "RESOURCE_ALREADY_EXISTS":
                    raise TrackingError(f"cannot register a model as '{name}' in {self.uri}: "
                                        f"{exc.message.splitlines()[0]}") from None
            source = self._client.get_run(run_id).info.artifact_uri.rstrip("/") + "/model"
            version = self._client.create_model_version(name, source, run_id=run_id,
                                                        await_creation_for=0)
        return str(version.version)

    def set_tag(self, key: str, value: str) -> None:
        with self._timed():
            self._client.set_tag(self.run_id, key, _clip(str(value), MAX_TAG_VALUE))

    def end(self, status: str = "FINISHED") -> None:
        """Send what is buffered and close the run as FINISHED, FAILED or KILLED."""
        if self.run_id is None:
            return
        with self._timed():
            try:
                self._stop_system_metrics()
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
        self._before: dict[str, float] = {}

    def log_metrics(self, metrics: dict[str, float], step: int) -> None:
        for key, value in metrics.items():
            self.history.setdefault(key, []).append((int(step), float(value)))
        self.tracker.log_metrics(metrics, step)

    def flush(self, force: bool = False) -> None:
        self.tracker.flush(force)

    def remember(self, metrics: dict[str, float]) -> None:
        """The latest values the run logged before this process (a resumed run's): ``last``
        falls back on them; they are neither logged again nor drawn."""
        self._before = {key: float(value) for key, value in metrics.items()}

    def last(self, key: str) -> float:
        """The latest value logged for ``key`` (KeyError when it was never logged)."""
        if key in self.history:
            return self.history[key][-1][1]
        return self._before[key]
