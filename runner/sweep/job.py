"""One job of ``python -m runner -m ...``: a child run, and a failure that never stops the sweep.

The sweep callback (``runner.sweep.callback``) opens the MLflow parent run before the first job
and writes its id into ``<sweep dir>/tomlrun-sweep.json``. Every job, in this process (basic
launcher) or another (joblib, submitit), reads that file, so its run is created as a child:
``mlflow.parentRunId`` plus the job's output folder as the ``tomlrun.job_dir`` tag.

A job that fails (a bad value in one combination, a NaN stop, any exception) is reported in one
line, recorded as a FAILED child run with the reason as its ``error`` tag (created here when the
job failed before its run existed) and returns NaN, which Hydra's sweepers and Optuna take as a
failed trial; the sweep goes on. Each job also leaves ``tomlrun-job.json`` in its folder: the
end-of-sweep summary is read from those files, whatever the launcher and even without tracking.
Records and child runs carry the id of the command that launched them, so that a parent run
continued by a resumed Optuna search (``runner.sweep.callback``) tells its commands apart.
"""
from __future__ import annotations

import json
import logging
import math
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.atomic import atomic_write
from runner.config.validation import show
from runner.errors import UserError
from runner.track import runstore, tracking
from runner.track.naming import run_name

log = logging.getLogger(__name__)

SWEEP_FILE = "tomlrun-sweep.json"  # in the sweep folder: the parent run, written once per sweep
JOB_FILE = "tomlrun-job.json"  # in each job's folder: what the job did
JOB_DIR_TAG = "tomlrun.job_dir"  # tells the job's child run apart (job numbers restart)
PARENT_TAG = "tomlrun.sweep"  # "parent" on the run that holds a sweep
COMMAND_TAG = "tomlrun.command_id"  # which `python -m runner -m` command launched a job


def objective_key(cfg) -> str:
    """The metric a run returns: ``sweep.objective``, by default ``trainer.objective``."""
    return cfg.sweep.objective or cfg.trainer.objective


def is_remote(uri: str) -> bool:
    return uri.startswith(("http://", "https://"))


def check_server(uri: str, timeout: float = 5.0) -> None:
    """Raise a ``UserError`` when ``uri`` is an mlflow server that does not answer.

    MLflow's own client retries for minutes before it gives up; this asks ``/health`` once.
    """
    if not is_remote(uri):
        return
    try:
        with urllib.request.urlopen(uri.rstrip("/") + "/health", timeout=timeout):
            return
    except urllib.error.HTTPError:
        return  # it answered (perhaps asking for credentials): the client takes it from here
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise UserError(f"tracking.uri = '{uri}' cannot be reached ({reason}): start the "
                        "server (mlflow server --host HOST --port PORT --backend-store-uri ...) "
                        "or fix the address; nothing was trained.") from None


# ----- where the sweep's files are --------------------------------------------------------------

def _hydra_config():
    from hydra.core.hydra_config import HydraConfig  # noqa: PLC0415 - only under Hydra

    return HydraConfig.get() if HydraConfig.initialized() else None


def in_multirun() -> bool:
    """True inside a job launched by ``-m`` (any sweeper, any launcher)."""
    from hydra.types import RunMode  # noqa: PLC0415

    config = _hydra_config()
    return config is not None and config.mode == RunMode.MULTIRUN


def sweep_folder(hydra_config) -> Path:
    """The absolute sweep folder (``hydra.sweep.dir`` is relative to the launch folder)."""
    return Path(hydra_config.runtime.cwd, hydra_config.sweep.dir).resolve()


def write_json(path: Path, data: dict) -> None:
    with atomic_write(str(path), "w") as handle:
        json.dump(data, handle, indent=1, allow_nan=True)


def read_sweep_file() -> dict:
    """What the sweep callback wrote for the current sweep ({} outside a sweep)."""
    config = _hydra_config()
    if config is None or not in_multirun():
        return {}
    path = sweep_folder(config) / SWEEP_FILE
    return json.loads(path.read_text()) if path.is_file() else {}


def read_sweep_info() -> dict | None:
    """The parent run of the current sweep, or None (no sweep, or tracking disabled)."""
    info = read_sweep_file()
    return info if info.get("parent_run_id") else None


def job_tags() -> dict[str, str]:
    """Tags that make a job's run a child of the sweep's parent run ({} outside a sweep)."""
    info = read_sweep_info()
    if info is None:
        return {}
    config = _hydra_config()
    return {"mlflow.parentRunId": info["parent_run_id"], JOB_DIR_TAG: config.runtime.output_dir,
            "tomlrun.job_num": str(config.job.num), COMMAND_TAG: info.get("command_id", "")}


# ----- running one job --------------------------------------------------------------------------

def run_job(cfg, task: Callable[[Any], float]) -> float:
    """``task(cfg)`` as one sweep job: a failure is recorded and returned as NaN, never raised."""
    config = _hydra_config()
    overrides = list(config.overrides.task)
    begin = time.time()
    record = {"num": config.job.num, "overrides": overrides, "params": raw_params(cfg),
              "name": _name(cfg, overrides), "status": "FINISHED",
              "objective": None, "error": "",
              "command_id": read_sweep_file().get("command_id", "")}
    try:
        value = task(cfg)
        record["objective"] = float(value)
        return value
    except KeyboardInterrupt:
        record["status"] = "KILLED"
        raise
    except Exception as exc:  # noqa: BLE001 - one job's failure must not end the sweep
        record["status"], record["error"] = "FAILED", describe(exc)
        print(f"tomlrun: job {config.job.num} ({' '.join(overrides) or 'no overrides'}) "
              f"failed: {record['error']}", file=sys.stderr)
        if not isinstance(exc, UserError):
            log.debug("job %s failed", config.job.num, exc_info=True)  # in the job's log file
        _record_failure(record, config.runtime.output_dir)
        return math.nan
    finally:
        record["seconds"] = time.time() - begin
        write_json(Path(config.runtime.output_dir) / JOB_FILE, record)


def describe(exc: BaseException) -> str:
    """One paragraph: the message of a user error, ``Type: message`` for anything else."""
    text = " ".join(str(exc).split())
    return text if isinstance(exc, UserError) else f"{type(exc).__name__}: {text}"


def _record_failure(record: dict, job_dir: str) -> None:
    """Make sure MLflow holds a FAILED child run for this job, with the reason as ``error``."""
    info = read_sweep_info()
    if info is None:
        return
    try:
        if runstore.find_job_run(info["uri"], info["experiment_id"], info["parent_run_id"],
                                 job_dir) is not None:
            return  # the run started and was closed FAILED, with its error tag, by runner.app
        tracker = tracking.MlflowTracker(info["uri"], info["experiment"], record["name"])
        tracker.start(params=record["params"], tags={**job_tags(), "overrides": " ".join(
            record["overrides"]), "error": record["error"]})
        tracker.end("FAILED")
    except Exception:  # noqa: BLE001 - a store problem must not hide the job's own error
        log.warning("could not record the failed job in MLflow", exc_info=True)


def _select(cfg, key: str):
    from omegaconf import OmegaConf  # noqa: PLC0415

    try:
        return OmegaConf.select(cfg, key)
    except Exception:  # noqa: BLE001 - an interpolation that fails is the job's own error
        return None


def _name(cfg, overrides: list[str]) -> str:
    """The child run's name, as ``runner.track.naming.run_name`` spells it, from the unvalidated
    config."""
    from types import SimpleNamespace  # noqa: PLC0415

    names = {group: SimpleNamespace(name=str(_select(cfg, f"{group}.name")))
             for group in ("model", "optim")}
    return _select(cfg, "tracking.run_name") or run_name(SimpleNamespace(**names), overrides)


def raw_params(cfg) -> dict[str, str]:
    """Dotted keys to strings, like ``runner.config.validation.flatten``, for a config that may
    be invalid."""
    from omegaconf import OmegaConf  # noqa: PLC0415

    try:
        tree = OmegaConf.to_container(cfg, resolve=True)
    except Exception:  # noqa: BLE001 - fall back to the unresolved values
        tree = OmegaConf.to_container(cfg, resolve=False)
    tree.pop("hydra", None)
    flat: dict[str, str] = {}

    def walk(prefix: str, value) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                walk(f"{prefix}.{key}" if prefix else str(key), item)
        else:
            # Spelled as validation.flatten spells a finished job's params, so that
            # runner.compare and MLflow's compare view see equal values as equal.
            flat[prefix] = show(value, quote=False)

    walk("", tree)
    return flat


def read_job_records(folder: Path, command_id: str = "") -> list[dict]:
    """Every job's record under a sweep folder, in job order; with ``command_id``, only those of
    that command (a folder given again to a later command still holds the earlier jobs)."""
    records = []
    for path in folder.rglob(JOB_FILE):
        record = {**json.loads(path.read_text()), "job_dir": str(path.parent)}
        if not command_id or record.get("command_id", command_id) == command_id:
            records.append(record)
    return sorted(records, key=lambda record: record["num"])
