"""The MLflow parent run of a sweep, as a Hydra callback (configured in conf/config.toml).

``on_run_start`` and ``on_multirun_start`` first claim a fresh output folder, so commands
started in the same second do not share one (runner.sweep.outputs).

``on_multirun_start`` opens the parent run (the sweep's overrides, objective, sweeper and
launcher as params) and writes its id where the jobs find it (``runner.sweep.job``).
``on_multirun_end`` reads every job's record, prints the ranked table and the failures, logs the
number of jobs, the best job's params and objective, ``sweep_summary.csv`` and
``sweep_objective.png`` to the parent, closes it, and exits with status 1 when a job failed.
With ``sweep.register_best=NAME`` the best finished job's model becomes a new version of the
registered model NAME (its version is the parent's ``best_model_version`` tag).
A sweep stopped by Ctrl-C or SIGTERM closes the parent as KILLED with the summary so far.

An Optuna search (``hydra/sweeper=optuna``) that resumes a study with trials continues the
parent run of that study (runner.sweep.study): the new jobs become its children and its summary
covers the jobs of every command of the study (the earlier ones read back from MLflow).
"""
from __future__ import annotations

import atexit
import logging
import math
import os
import shlex
import signal
import sys
import threading
import time
import uuid
from pathlib import Path

from hydra.experimental.callback import Callback
from omegaconf import DictConfig, OmegaConf

from runner.config.resolvers import auto_direction
from runner.errors import UserError
from runner.sweep import job, outputs, summary
from runner.sweep.study import STUDY_TAG, parent_of_study, study_tags

log = logging.getLogger(__name__)

SUMMARY_CSV = "sweep_summary.csv"
SUMMARY_PNG = "sweep_objective.png"
EXIT_JOBS_FAILED = 1
DIRS_TAG = "sweep.dirs"  # the sweep folder of every command that added jobs to the parent


class SweepInterrupted(KeyboardInterrupt):
    """SIGTERM during a sweep, raised so that the parent run is closed as KILLED."""


class SweepCallback(Callback):
    """Opens and closes the parent run of a multirun; does nothing for single runs."""

    def __init__(self) -> None:
        self.tracker = None
        self.folder: Path | None = None
        self.objective = "valid/acc"
        self.direction = "maximize"
        self.register_best = ""  # sweep.register_best: register the best job's model as this
        self.begin = 0.0
        self.command_id = ""  # tags this command's jobs apart from earlier ones of the parent
        self.previous_sigterm = None  # the SIGTERM handler to put back when the sweep ends
        self.register_failed = False  # registering the best job's model failed: exit non-zero

    def on_run_start(self, config: DictConfig, **kwargs) -> None:
        """A single run's time-named folder is its own (runner.sweep.outputs); the ranks of a
        data-parallel run, started together by mpirun, share theirs (rank R > 0 writes into
        its rank-R/)."""
        del kwargs
        if not _get(config, "trainer.distributed", False):
            outputs.claim(config, outputs.RUN_DIR)

    def on_multirun_start(self, config: DictConfig, **kwargs) -> None:
        del kwargs
        self.begin = time.time()
        self.command_id = uuid.uuid4().hex
        folder = outputs.claim(config, outputs.SWEEP_DIR)
        if folder is not None:  # the jobs, composed again by the launcher, use it too
            outputs.pin_for_jobs(config, outputs.SWEEP_DIR, folder)
        self.folder = Path(os.getcwd(), config.hydra.sweep.dir).resolve()
        self.folder.mkdir(parents=True, exist_ok=True)
        self.objective = _get(config, "sweep.objective", "") or _get(
            config, "trainer.objective", "valid/acc")
        # conf/config.toml's default follows the objective (a loss is minimized); a config
        # composed without it (no sweep table) gets the same rule
        self.direction = _get(config, "sweep.direction", "") or auto_direction(self.objective)
        self.register_best = _get(config, "sweep.register_best", "")
        info = {"parent_run_id": None}
        if _get(config, "tracking.enabled", True):
            try:
                info = self._open_parent(config)
            except UserError as exc:
                print(f"tomlrun: error: {job.describe(exc)}", file=sys.stderr)
                sys.exit(2)
        job.write_json(self.folder / job.SWEEP_FILE, {**info, "command_id": self.command_id})
        atexit.register(self._close_if_open, "KILLED")
        self.previous_sigterm = _sigterm_raises()

    def on_multirun_end(self, config: DictConfig, **kwargs) -> None:
        del config, kwargs
        rows = self._close_if_open(None)
        # Only this command's jobs set the exit status: an earlier command of a resumed study
        # reported its own failures (and its interrupted job) when it ended.
        if self.register_failed or any(not row.ok for row in rows
                                       if row.command_id == self.command_id):
            sys.exit(EXIT_JOBS_FAILED)

    # ----- the parent run ------------------------------------------------------------------------
    def _open_parent(self, config: DictConfig) -> dict:
        from runner.track import tracking  # noqa: PLC0415 - mlflow loads only when tracking

        launch_dir = os.getcwd()
        uri = _get(config, "tracking.uri", "") or tracking.default_uri(launch_dir)
        job.check_server(uri)
        experiment = _get(config, "tracking.experiment", "tomlrun")
        overrides = list(config.hydra.overrides.task)
        name = " ".join(["sweep", *overrides])[:200]
        location = None if job.is_remote(uri) else tracking.default_artifact_location(
            launch_dir)
        self.tracker = tracking.MlflowTracker(uri, experiment, name,
                                              artifact_location=location)
        tags = {"command": shlex.join(sys.argv), "launch_dir": launch_dir}
        study = study_tags(config, launch_dir)
        found = parent_of_study(uri, experiment, study, str(_get(
            config, "hydra.sweeper.storage", ""))) if study else None
        if found is not None:
            dirs = found.data.tags.get(DIRS_TAG) or found.data.params.get("sweep.dir", "")
            self.tracker.resume(found.info.run_id, {
                **tags, DIRS_TAG: "; ".join(filter(None, [dirs, str(self.folder)]))})
            log.info("sweep: study %s resumed: continuing MLflow parent run %s (%s) in %s",
                     study[STUDY_TAG], found.info.run_id, found.info.run_name, uri)
        else:
            params = {"sweep.overrides": " ".join(overrides), "sweep.objective": self.objective,
                      "sweep.direction": self.direction,
                      "sweep.sweeper": _short(_get(config, "hydra.sweeper._target_", "")),
                      "sweep.launcher": _short(_get(config, "hydra.launcher._target_", "")),
                      "sweep.dir": str(self.folder)}
            self.tracker.start(params=params, tags={
                **tags, **(study or {}), job.PARENT_TAG: "parent",
                DIRS_TAG: str(self.folder)})
            log.info("sweep: MLflow parent run %s (%s) in %s", self.tracker.run_id, name, uri)
        from runner.track import runstore  # noqa: PLC0415

        return {"parent_run_id": self.tracker.run_id, "uri": uri, "experiment": experiment,
                "experiment_id": runstore.experiment_id(uri, experiment)}

    def _close_if_open(self, status: str | None) -> list[summary.Row]:
        """Summarise the jobs so far; close the parent as ``status`` (None: from the jobs)."""
        if self.folder is None:
            return []
        folder, self.folder = self.folder, None  # once: atexit may call again
        if self.previous_sigterm is not None:
            signal.signal(signal.SIGTERM, self.previous_sigterm)
        rows = summary.ranked(_rows(folder, self.command_id, self.objective),
                                    self.direction)
        self._report(rows)
        if self.tracker is not None:
            if status is None:
                status = "FINISHED" if any(row.ok for row in rows) or not rows else "FAILED"
            self._log_summary(rows, folder)
            self.tracker.end(status)
        return rows

    def _report(self, rows: list[summary.Row]) -> None:
        if not rows:  # stopped before its first job (a bad search space, Ctrl-C): no table
            print(f"sweep: no job ran, in {time.time() - self.begin:.1f} s", flush=True)
            return
        failed = [row for row in rows if not row.ok]
        earlier = sum(row.command_id != self.command_id for row in rows)
        lines = [f"sweep: {len(rows)} jobs" + (f" ({earlier} of them from earlier commands)"
                                               if earlier else "") +
                 f", {len(rows) - len(failed)} finished, {len(failed)} failed, "
                 f"in {time.time() - self.begin:.1f} s",
                 summary.table(rows, self.objective)]
        lines += [f"FAILED {row.name}: {row.error or row.status}" for row in failed]
        print("\n".join(lines), flush=True)

    def _log_summary(self, rows: list[summary.Row], folder: Path) -> None:
        tracker = self.tracker
        finished = [row for row in rows if row.ok]
        tracker.log_metrics({"sweep/jobs": len(rows), "sweep/failed_jobs": len(rows) - len(
            finished)}, 0)
        if rows:
            tracker.log_artifact(summary.write_csv(rows, self.objective,
                                                         folder / SUMMARY_CSV))
            tracker.log_artifact(summary.plot_objectives(rows, self.objective,
                                                               folder / SUMMARY_PNG))
        failed = [row.name for row in rows if not row.ok]
        if failed:
            tracker.set_tag("failed_jobs", ", ".join(failed))
        if finished:
            best = finished[0]
            tracker.log_metrics({self.objective: best.objective}, 0)
            tracker.set_tag("best_run_name", best.name)
            if best.run_id:
                tracker.set_tag("best_run_id", best.run_id)
            for key in summary.differing_keys(rows):
                tracker.set_tag(f"best.{key}", best.params.get(key, ""))
            if self.register_best and best.run_id:
                self._register(best)
        tracker.flush(force=True)

    def _register(self, best: summary.Row) -> None:
        """The best job's model as a new version of sweep.register_best. A failure is reported
        and sets the exit status, and the parent run still ends: raised from this callback,
        Hydra would only warn, leaving the parent RUNNING and the exit status 0."""
        try:
            version = self.tracker.register_model(self.register_best, run_id=best.run_id)
        except UserError as exc:
            self.register_failed = True
            self.tracker.set_tag("register_error", str(exc)[:5000])
            print(f"tomlrun: error: sweep.register_best = '{self.register_best}': {exc}",
                  file=sys.stderr, flush=True)
            return
        self.tracker.set_tag("best_model_version", f"models:/{self.register_best}/{version}")
        log.info("sweep: registered the best job's model as models:/%s/%s",
                 self.register_best, version)


def _rows(folder: Path, command_id: str, objective: str) -> list[summary.Row]:
    """This command's jobs from their records, with the MLflow run id of each job where there
    is one, after the parent's child runs that earlier commands (of a resumed study) made."""
    children = _children(folder)
    ids = {run.tags.get(job.JOB_DIR_TAG, ""): run.run_id for run in children
           if run.tags.get(job.COMMAND_TAG) == command_id}
    earlier = [summary.Row(
        name=run.name, status=run.status, objective=run.value(objective), params=run.params,
        seconds=run.seconds, error=run.tags.get("error", ""), run_id=run.run_id,
        command_id=run.tags.get(job.COMMAND_TAG, "")) for run in children
        if run.tags.get(job.COMMAND_TAG) != command_id]
    return earlier + [summary.Row(
        name=record["name"], status=record["status"],
        objective=math.nan if record["objective"] is None else float(record["objective"]),
        params=record["params"], seconds=record.get("seconds"), error=record["error"],
        run_id=ids.get(record["job_dir"], ""), command_id=command_id)
        for record in job.read_job_records(folder, command_id)]


def _children(folder: Path) -> list:
    """The parent's child runs (``runstore.RunRecord``), oldest first; [] without tracking."""
    import json  # noqa: PLC0415

    info = json.loads((folder / job.SWEEP_FILE).read_text())
    if not info.get("parent_run_id"):
        return []
    from runner.track import runstore  # noqa: PLC0415

    runs = runstore.children(info["uri"], info["experiment_id"], info["parent_run_id"])
    return runs[::-1]  # MLflow returns the newest first


def _get(config: DictConfig, key: str, default):
    value = OmegaConf.select(config, key, default=default)
    return default if value is None else value


def _short(target: str) -> str:
    """``hydra._internal.core_plugins.basic_sweeper.BasicSweeper`` -> ``BasicSweeper``."""
    return target.rsplit(".", 1)[-1]


def _sigterm_raises():
    """SIGTERM ends the sweep like Ctrl-C does, so atexit closes the parent run as KILLED.

    Returns the previous handler (None outside the main thread, where none can be set).
    """
    if threading.current_thread() is not threading.main_thread():
        return None

    def handler(signum, frame):
        del frame
        raise SweepInterrupted(f"stopped by signal {signal.Signals(signum).name}")

    return signal.signal(signal.SIGTERM, handler)
