"""Reading runs back from MLflow: the read side of ``runner.track.tracking`` (which writes them).

Used by the end-of-sweep summary and by ``python -m runner.compare``. mlflow is imported lazily,
inside each function, because the import costs ~1.8 s.
"""
from __future__ import annotations

import dataclasses
import math

from runner.errors import UserError


@dataclasses.dataclass
class RunRecord:
    """What a summary or comparison shows of one run."""

    run_id: str
    name: str
    status: str
    params: dict[str, str]
    metrics: dict[str, float]
    tags: dict[str, str]
    seconds: float | None  # wall time from start to end; None while running

    def value(self, key: str) -> float:
        """The last value of metric ``key``, NaN when the run never logged it."""
        return self.metrics.get(key, math.nan)


def client(uri: str):
    from runner.track.tracking import open_client  # noqa: PLC0415

    return open_client(uri)


def _record(run) -> RunRecord:
    info, data = run.info, run.data
    seconds = None
    if info.end_time and info.start_time:
        seconds = (info.end_time - info.start_time) / 1000.0
    return RunRecord(info.run_id, info.run_name or info.run_id[:8], info.status,
                     dict(data.params), dict(data.metrics), dict(data.tags), seconds)


def children(uri: str, experiment_id: str, parent_id: str) -> list[RunRecord]:
    """Every child run of ``parent_id``."""
    runs = client(uri).search_runs(
        [experiment_id], filter_string=f"tags.mlflow.parentRunId = '{parent_id}'",
        max_results=5000)
    return [_record(run) for run in runs]


def find_job_run(uri: str, experiment_id: str, parent_id: str, job_dir: str) -> str | None:
    """The id of the child run that the job in ``job_dir`` created, if it created one."""
    for record in children(uri, experiment_id, parent_id):
        if record.tags.get("tomlrun.job_dir") == job_dir:
            return record.run_id
    return None


def get_run(uri: str, run_id: str) -> RunRecord | None:
    from mlflow.exceptions import MlflowException  # noqa: PLC0415

    try:
        return _record(client(uri).get_run(run_id))
    except MlflowException:
        return None


def experiment_id(uri: str, name: str) -> str:
    """The id of the experiment called ``name``; a ``UserError`` listing the names otherwise."""
    mlflow_client = client(uri)
    found = mlflow_client.get_experiment_by_name(name)
    if found is None:
        names = sorted(e.name for e in mlflow_client.search_experiments())
        raise UserError(f"there is no experiment or run '{name}' in {uri}: the experiments are "
                        f"{', '.join(names) or 'none'}.")
    return found.experiment_id


def experiment_runs(uri: str, experiment: str) -> list[RunRecord]:
    runs = client(uri).search_runs([experiment], max_results=5000,
                                   order_by=["attributes.start_time DESC"])
    return [_record(run) for run in runs]


def metric_history(uri: str, run_id: str, key: str) -> list[tuple[int, float]]:
    """``[(step, value), ...]`` of one metric of one run."""
    return [(m.step, m.value) for m in client(uri).get_metric_history(run_id, key)]
