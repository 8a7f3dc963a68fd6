"""``trainer.checkpoint_every`` and ``trainer.resume`` as a run uses them.

Checkpoints go to ``<job output folder>/checkpoints``; the folder is recorded on the MLflow run
as the ``checkpoint_dir`` tag, so a later ``trainer.resume`` finds them:

- ``trainer.resume=true``: the newest run of this experiment with this run's name that did not
  finish (killed, failed or still marked RUNNING after a SIGKILL) and has a checkpoint;
- ``trainer.resume=<run id>``: that MLflow run's newest checkpoint;
- ``trainer.resume=<path>``: a checkpoint file, or a folder of them (the newest is taken).

The run continues in the SAME MLflow run (when the checkpoint names one that exists) and keeps
checkpointing into the same folder. A resumed config must match the checkpoint's in everything
that shapes training (``fingerprint``): where files go, how progress is shown and tracking may
differ.
"""
from __future__ import annotations

import logging
import os
from dataclasses import dataclass

from runner.config.validation import flatten
from runner.errors import ConfigError
from runner.train import checkpoint, distributed

log = logging.getLogger(__name__)

CHECKPOINT_TAG = checkpoint.CHECKPOINT_TAG
# Keys that may differ between a run and its resumption: they do not change what is trained.
# trainer.distributed is free because a checkpoint holds the GLOBAL state (every rank's
# parameters and optimizer state are equal; the loader position counts global batches): a run
# resumes with any number of ranks, each global batch split anew (docs/gpu.md).
# trainer.test_on only picks the weights the final test uses. trainer.objective is free too; a
# checkpoint whose early-stopping state watched another metric is refused by checkpoint.restore.
# Whole keys here, whole sections below (a prefix like "trainer.objective" would also free
# trainer.objective_direction).
_FREE = {"trainer.resume", "trainer.progress", "trainer.checkpoint", "trainer.checkpoint_every",
         "trainer.keep_last", "trainer.profile", "trainer.objective", "trainer.distributed",
         "trainer.test_on", "device", "data.root", "data.cache_dir", "data.download"}
_FREE_SECTIONS = ("tracking.", "runtime.", "sweep.", "inspect.", "hydra.")
# Keys added after checkpoints existed: a checkpoint without one was made with the behaviour of
# this value (the key's default), so it matches it; old checkpoints stay resumable.
_ADDED = {"trainer.accumulate": "1", "trainer.early_stop": "0", "trainer.early_stop_delta": "0.0",
          "trainer.keep_best": "false", "trainer.objective_direction": "auto",
          "model.direction": "forward", "trainer.amp": "off", "trainer.loss_scale": "65536.0",
          "trainer.loss_scale_dynamic": "true"}


@dataclass
class Resumption:
    """Where training continues from."""

    path: str  # the checkpoint file
    body: dict  # its verified content
    run_id: str | None  # the MLflow run to continue, when it exists in this store

    @property
    def folder(self) -> str:
        return os.path.dirname(self.path)


def fingerprint(cfg) -> dict[str, str]:
    """The flattened config keys that a resumed run must share with its checkpoint."""
    return {key: value for key, value in flatten(cfg).items()
            if key not in _FREE and not key.startswith(_FREE_SECTIONS)}


def wanted(cfg) -> bool:
    return cfg.trainer.resume not in (False, "", "false", "False")


def find(cfg, tracker) -> Resumption | None:
    """The checkpoint ``cfg.trainer.resume`` points to (None when not resuming)."""
    if not wanted(cfg):
        return None
    # Data parallel: rank 0 (the only rank that tracks) picks the file, every rank loads it.
    path = distributed.on_rank_zero(lambda: _resolve(cfg, tracker))
    body = checkpoint.load(path)
    checkpoint.check_fingerprint(path, body.get("fingerprint", {}), fingerprint(cfg),
                                 defaults=_ADDED)
    run_id = body.get("run_id")
    run = tracker.get_run(run_id) if run_id is not None and hasattr(tracker, "get_run") else None
    # After the last epoch only the test and the logging are left: a run stopped there (KILLED)
    # resumes to finish them; a FINISHED run, or none, has nothing left to do.
    if body["position"]["epoch"] >= cfg.trainer.epochs and (
            run is None or run.info.status == "FINISHED"):
        raise ConfigError(f"checkpoint '{path}' was taken after the last of the run's "
                          f"{cfg.trainer.epochs} epochs: training is complete and there is "
                          "nothing to resume (start a new run to train further).")
    return Resumption(path, body, run_id if run is not None else None)


def _resolve(cfg, tracker) -> str:
    """The absolute path of the checkpoint file ``cfg.trainer.resume`` names."""
    target = cfg.trainer.resume
    if target is True or str(target).lower() == "true":
        path = _latest_unfinished(cfg, tracker)
    elif os.path.exists(os.path.expanduser(str(target))):
        path = _from_path(os.path.expanduser(str(target)))
    else:
        path = _from_run(cfg, tracker, str(target))
    return os.path.abspath(path)


def _from_path(target: str) -> str:
    if os.path.isdir(target):
        path = checkpoint.latest(target)
        if path is None:
            raise ConfigError(f"trainer.resume={target}: the folder holds no checkpoint "
                              "(ckpt-step*.ckpt files); give a checkpoint file or folder.")
        return path
    return target


def _from_run(cfg, tracker, run_id: str) -> str:
    if not hasattr(tracker, "get_run"):
        raise ConfigError(f"trainer.resume={run_id} is neither a checkpoint path that exists nor "
                          "usable as an MLflow run id with tracking.enabled=false: give the "
                          "checkpoint file or folder instead.")
    run = tracker.get_run(run_id)
    if run is None:
        raise ConfigError(f"trainer.resume={run_id} is neither an existing path nor an MLflow "
                          f"run of {tracker.uri}: give a run id, a checkpoint path, or true.")
    return _run_checkpoint(run, f"trainer.resume={run_id}")


def _run_checkpoint(run, label: str) -> str:
    folder = run.data.tags.get(CHECKPOINT_TAG)
    path = checkpoint.latest(folder) if folder else None
    if path is None:
        raise ConfigError(f"{label}: run {run.info.run_id} has no checkpoint"
                          + (f" in {folder}" if folder else "")
                          + ": it ran without trainer.checkpoint_every, or its files were moved.")
    return path


def _latest_unfinished(cfg, tracker) -> str:
    if not hasattr(tracker, "find_runs"):
        raise ConfigError("trainer.resume=true looks the run up in MLflow, but tracking is "
                          "disabled: give the checkpoint file or folder (trainer.resume=PATH).")
    runs = tracker.find_runs(tracker.run_name)
    for run in runs:
        folder = run.data.tags.get(CHECKPOINT_TAG)
        if run.info.status != "FINISHED" and folder and checkpoint.latest(folder):
            return checkpoint.latest(folder)
    raise ConfigError(f"trainer.resume=true: experiment '{cfg.tracking.experiment}' has no "
                      f"unfinished run named '{tracker.run_name}' with a checkpoint"
                      f"{_why_none(runs)}: resume by run id or checkpoint path, or check the "
                      "overrides match the first run's.")


def _why_none(runs) -> str:
    """What the runs of the name say about the missing checkpoint (runs: newest first)."""
    unfinished = [run for run in runs if run.info.status != "FINISHED"]
    if unfinished:
        run = unfinished[0]
        newest = f"its newest unfinished run, {run.info.run_id}, {run.info.status}"
        folder = run.data.tags.get(CHECKPOINT_TAG)
        if folder:
            return (f" ({newest}, has none in {folder}: it stopped before its first "
                    "checkpoint, or the files were moved)")
        return (f" ({newest}, saved none: runs save resumable checkpoints only with "
                "trainer.checkpoint_every=N optimizer steps, 0 by default)")
    if runs:
        return f" ({len(runs)} run(s) of that name, all FINISHED)"
    return ""


def attach(trainer, cfg, loader, resumption: Resumption | None, folder: str,
           run_id: str | None, bundle: dict | None = None) -> None:
    """Give ``trainer`` its checkpointer and, when resuming, the checkpoint's state."""
    if resumption is not None:
        folder = resumption.folder  # keep the run's checkpoints together
        checkpoint.restore(trainer, loader, resumption.body)
    if cfg.trainer.checkpoint_every > 0:
        trainer.checkpointer = checkpoint.Checkpointer(
            folder, cfg.trainer.checkpoint_every, cfg.trainer.keep_last, fingerprint(cfg), run_id,
            bundle)


def open_run(tracker, resumption: Resumption | None, params: dict, tags: dict,
             folder: str | None) -> None:
    """Start the tracked run, or reopen the one the checkpoint belongs to; record ``folder``
    (where this run's checkpoints go) as the ``checkpoint_dir`` tag."""
    if resumption is not None:
        where = resumption.body["position"]
        log.info("resuming %s from %s: epoch %d, batch %d, step %d",
                 f"run {resumption.run_id}" if resumption.run_id else "a new run",
                 resumption.path, where["epoch"], where["batch"], where["step"])
    if resumption is not None and resumption.run_id is not None:
        tracker.resume(resumption.run_id, {**tags, "resumed_from": resumption.path})
    else:
        tracker.start(params=params, tags=tags)
    if folder is not None:
        tracker.set_tag(CHECKPOINT_TAG, resumption.folder if resumption else folder)
