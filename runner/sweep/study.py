"""Which MLflow parent run an Optuna sweep continues: the one of its study, when it resumes.

A new Optuna parent run (a study kept in a storage) is tagged with the study's name and storage;
a later command that resumes the study (it has trials) finds the newest parent with those tags
in the same experiment and continues it (runner.sweep.callback). Any other sweep gets a new
parent. Nothing here may stop a sweep: a failed lookup is a warning and a new parent.
"""
from __future__ import annotations

import logging
import re
from pathlib import Path

from omegaconf import DictConfig, OmegaConf

from runner.sweep import job

log = logging.getLogger("runner.sweep.callback")  # the sweep's own messages, one logger

STUDY_TAG = "tomlrun.study"  # on the parent run of an Optuna study kept in a storage
STORAGE_TAG = "tomlrun.study_storage"
OPTUNA_SWEEPER = "hydra_plugins.tomlrun_sweep.optuna_sweeper.OptunaSweeper"


def study_tags(config: DictConfig, launch_dir: str) -> dict[str, str] | None:
    """The tags that name the study of a resumable Optuna sweep; None for any other sweep."""
    if _get(config, "hydra.sweeper._target_", "") != OPTUNA_SWEEPER:
        return None
    name = _get(config, "hydra.sweeper.study_name", "")
    storage = _get(config, "hydra.sweeper.storage", "")
    if not name or not storage:
        return None  # an in-memory study ends with its command: there is nothing to resume
    return {STUDY_TAG: str(name), STORAGE_TAG: storage_tag(str(storage), launch_dir)}


def storage_tag(storage: str, launch_dir: str) -> str:
    """``storage`` as a tag: a relative sqlite path made absolute (``sqlite:///optuna.db`` in two
    launch folders is two studies), and without a password."""
    prefix = "sqlite:///"
    if storage.startswith(prefix) and not storage.startswith(prefix + "/"):
        storage = prefix + str(Path(launch_dir, storage[len(prefix):]).resolve())
    return re.sub(r"^([\w+]+://[^/:@]*):[^/@]*@", r"\1@", storage)


def parent_of_study(uri: str, experiment: str, study: dict[str, str], storage: str):
    """The newest parent run (an MLflow ``Run``) tagged ``study`` when the study already has
    trials in ``storage``; None for a new study, and None with a warning when its parent is not
    in this store (deleted, another tracking.uri) or cannot be looked for: the sweep goes on
    with a new parent."""
    name = study[STUDY_TAG]
    try:
        if not _has_trials(name, storage):
            return None
        found = _find_parent(uri, experiment, study)
    except Exception as exc:  # noqa: BLE001 - never stop a sweep over its bookkeeping
        log.warning("sweep: could not look for the MLflow parent run of study %s (%s); a new "
                    "parent run holds this command's jobs", name, job.describe(exc))
        return None
    if found is None:
        log.warning("sweep: study %s has trials but no parent run in experiment %s of %s "
                    "(deleted, or kept in another experiment or tracking.uri); a new parent run "
                    "holds this command's jobs", name, experiment, uri)
    return found


def _has_trials(name: str, storage: str) -> bool:
    prefix = "sqlite:///"
    if storage.startswith(prefix) and not Path(storage[len(prefix):]).is_file():
        return False  # not created yet (opening it would create it)
    import optuna  # noqa: PLC0415 - the Optuna sweeper imports it anyway

    return any(summary.study_name == name and summary.n_trials > 0 for summary in
               optuna.get_all_study_summaries(storage, include_best_trial=False))


def _find_parent(uri: str, experiment: str, study: dict[str, str]):
    from runner.track import runstore  # noqa: PLC0415

    client = runstore.client(uri)
    found = client.get_experiment_by_name(experiment)
    if found is None or found.lifecycle_stage == "deleted":
        return None
    terms = [f"tags.`{job.PARENT_TAG}` = 'parent'"] + [
        f"tags.`{key}` = '{_quoted(value)}'" for key, value in study.items()]
    runs = client.search_runs([found.experiment_id], filter_string=" AND ".join(terms),
                              order_by=["attributes.start_time DESC"], max_results=1)
    return runs[0] if runs else None


def _quoted(value: str) -> str:
    return value.replace("'", "\\'")


def _get(config: DictConfig, key: str, default):
    value = OmegaConf.select(config, key, default=default)
    return default if value is None else value
