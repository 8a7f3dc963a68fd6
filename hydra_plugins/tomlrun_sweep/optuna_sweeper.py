"""``hydra/sweeper=optuna``: an Optuna search that resumes, on a current Optuna.

hydra-optuna-sweeper 1.3 pins ``optuna<3``, whose sqlite storage breaks under SQLAlchemy 2, so
tomlrun ships this sweeper instead (do not install both: both register ``hydra/sweeper=optuna``).
It takes the same keys: ``direction``, ``storage``, ``study_name``, ``n_trials``, ``n_jobs``
(trials launched together, e.g. with ``hydra/launcher=joblib``), ``seed``, ``sampler`` (tpe or
random) and ``params``, the search space in Hydra's override grammar::

    [hydra.sweeper.params]
    "optim.lr" = "tag(log, interval(1e-4, 1e-1))"  # log-uniform float
    "trainer.batch_size" = "choice(16, 32, 64)"     # categorical
    "model.hidden.0" = "range(16, 129, 16)"         # integers 16, 32, ... 128
    "trainer.seed" = "tag(int, interval(0, 9))"      # uniform integer

``n_trials`` counts every trial of the study, so running the same command again after an
interruption runs only the trials that are missing; a trial that was cut off (left RUNNING in
the storage) is marked FAIL and its point is evaluated again first. A job that returns NaN
(tomlrun's failed jobs do) is a FAIL trial, and the search goes on. Job N runs trial N (its
folder is ``<sweep dir>/N``), so a resumed search given the same ``hydra.sweep.dir`` keeps the
earlier trials' folders; tomlrun's sweep callback continues the study's MLflow parent run.
"""
from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field
from typing import Any

from hydra.core.config_store import ConfigStore
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.core.override_parser.types import (
    ChoiceSweep,
    IntervalSweep,
    Override,
    RangeSweep,
    Transformer,
)
from hydra.core.plugins import Plugins
from hydra.errors import CompactHydraException
from hydra.plugins.sweeper import Sweeper

log = logging.getLogger(__name__)

SAMPLERS = ("tpe", "random")


@dataclass
class OptunaSweeperConf:
    _target_: str = "hydra_plugins.tomlrun_sweep.optuna_sweeper.OptunaSweeper"
    direction: str = "${sweep.direction}"  # maximize | minimize; tomlrun's sweep.direction
    storage: str | None = None  # e.g. sqlite:///optuna.db (relative to the launch folder)
    study_name: str | None = None  # needed to resume a study kept in storage
    n_trials: int = 20  # trials in the study in all, counting those of earlier runs
    n_jobs: int = 1  # trials launched at once
    seed: int | None = None  # the sampler's seed
    sampler: str = "tpe"  # tpe | random
    params: dict[str, str] = field(default_factory=dict)  # key -> override-grammar sweep


ConfigStore.instance().store(group="hydra/sweeper", name="optuna", node=OptunaSweeperConf,
                             provider="tomlrun")


class SearchSpaceError(CompactHydraException, ValueError):
    """A ``hydra.sweeper.params`` entry that Optuna cannot sample, or a bad sweeper setting.

    A Hydra error, so that tomlrun prints it as one ``tomlrun: error:`` paragraph with exit
    status 2 (runner.config.hydra_errors) even when it is raised inside ``sweep``."""


def distribution(override: Override):
    """The Optuna distribution of one sweep override (choice, range, interval with tags)."""
    try:
        return _distribution(override)
    except SearchSpaceError:
        raise
    except ValueError as exc:  # Optuna's own checks: low > high, log with low <= 0, ...
        raise SearchSpaceError(f"hydra.sweeper.params: '{override.input_line}' cannot be "
                               f"searched: {exc} Write interval(low, high) with low <= high "
                               "(and low > 0 under tag(log, ...)).") from None


def _distribution(override: Override):
    import optuna.distributions as dist  # noqa: PLC0415 - only when sweeping

    value = override.value()
    if isinstance(value, ChoiceSweep) or (isinstance(value, RangeSweep) and value.shuffle):
        return dist.CategoricalDistribution(
            list(override.sweep_iterator(transformer=Transformer.encode)))
    if isinstance(value, RangeSweep):
        if all(isinstance(x, int) for x in (value.start, value.stop, value.step)):
            # range() excludes its stop; Optuna's high is included.
            last = value.start + (value.stop - 1 - value.start) // value.step * value.step
            return dist.IntDistribution(value.start, last, step=value.step)
        return dist.CategoricalDistribution(
            list(override.sweep_iterator(transformer=Transformer.encode)))
    if isinstance(value, IntervalSweep):
        log_scale = "log" in value.tags
        if "int" in value.tags:
            return dist.IntDistribution(int(value.start), int(value.end), log=log_scale)
        return dist.FloatDistribution(float(value.start), float(value.end), log=log_scale)
    raise SearchSpaceError(f"hydra.sweeper.params: '{override.input_line}' cannot be searched: "
                           "use choice(...), range(...) or interval(...) with optional "
                           "tag(log, ...) / tag(int, ...).")


def search_space(arguments: list[str]) -> tuple[dict[str, Any], list[str]]:
    """Split overrides into ``{key: distribution}`` and the fixed overrides every trial gets."""
    space, fixed = {}, []
    for override in OverridesParser.create().parse_overrides(arguments):
        if override.is_sweep_override():
            space[override.get_key_element()] = distribution(override)
        else:
            fixed.append(override.input_line)
    return space, fixed


def suggest(trial, name: str, distribution_) -> Any:
    """Ask ``trial`` for ``name`` through Optuna's public API."""
    import optuna.distributions as dist  # noqa: PLC0415

    if isinstance(distribution_, dist.CategoricalDistribution):
        return trial.suggest_categorical(name, distribution_.choices)
    if isinstance(distribution_, dist.IntDistribution):
        return trial.suggest_int(name, distribution_.low, distribution_.high,
                                 step=distribution_.step, log=distribution_.log)
    return trial.suggest_float(name, distribution_.low, distribution_.high,
                               log=distribution_.log)


def resume(study, n_trials: int) -> int:
    """Fail the trials an interrupted run left RUNNING, queue their points again, and return
    how many trials are still to run."""
    from optuna.trial import TrialState  # noqa: PLC0415

    done = (TrialState.COMPLETE, TrialState.FAIL, TrialState.PRUNED)
    finished = len(study.get_trials(deepcopy=False, states=done))
    for stale in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        study.tell(stale.number, state=TrialState.FAIL)
        study.enqueue_trial(stale.params, skip_if_exists=False)
        log.info("trial %d was interrupted: it is evaluated again", stale.number)
    if finished:
        log.info("study %s: %d of %d trials already done", study.study_name, finished,
                 n_trials)
    return max(0, n_trials - finished)


class OptunaSweeper(Sweeper):
    """Asks Optuna for ``n_jobs`` points at a time, launches them, tells it the objectives."""

    def __init__(self, direction: str, storage: str | None, study_name: str | None,
                 n_trials: int, n_jobs: int, seed: int | None, sampler: str,
                 params: dict | None) -> None:
        if direction not in ("maximize", "minimize"):
            raise SearchSpaceError(f"hydra.sweeper.direction = '{direction}' is not valid: use "
                                   "maximize or minimize.")
        if sampler not in SAMPLERS:
            raise SearchSpaceError(f"hydra.sweeper.sampler = '{sampler}' is not valid: use one "
                                   f"of {', '.join(SAMPLERS)}.")
        if n_trials < 1 or n_jobs < 1:
            raise SearchSpaceError("hydra.sweeper.n_trials and n_jobs must be integers >= 1.")
        # storage = "" (an empty TOML string) is no storage, as null is: an in-memory study.
        self.direction, self.storage, self.study_name = direction, storage or None, study_name
        self.n_trials, self.n_jobs, self.seed, self.sampler = n_trials, n_jobs, seed, sampler
        self.params = dict(params or {})
        self.launcher = None

    def setup(self, *, hydra_context, task_function, config) -> None:
        self.launcher = Plugins.instance().instantiate_launcher(
            hydra_context=hydra_context, task_function=task_function, config=config)

    def sweep(self, arguments: list[str]) -> None:
        import optuna  # noqa: PLC0415 - ~0.5 s, only when sweeping

        space, fixed = search_space([f"{k}={v}" for k, v in self.params.items()] + arguments)
        study = optuna.create_study(study_name=self.study_name, storage=self.storage,
                                    sampler=self._sampler(optuna, self.seed),
                                    direction=self.direction, load_if_exists=True)
        # A resumed search must not replay the seeded sampler from the start (its first trials
        # would repeat earlier points): the seed moves on with the number of trials so far.
        if self.seed is not None and study.trials:
            study.sampler = self._sampler(optuna, self.seed + len(study.trials))
        remaining = resume(study, self.n_trials)
        while remaining > 0:
            trials = [study.ask() for _ in range(min(self.n_jobs, remaining))]
            batch = [tuple(fixed + [f"{name}={suggest(trial, name, d)}"
                                    for name, d in space.items()]) for trial in trials]
            # Trials asked together are numbered in a row: job numbers follow trial numbers.
            returns = self.launcher.launch(batch, initial_job_idx=trials[0].number)
            for trial, job in zip(trials, returns):
                self._tell(study, trial, job)
            remaining -= len(trials)
        self._report(study)

    def _sampler(self, optuna, seed: int | None):
        if self.sampler == "random":
            return optuna.samplers.RandomSampler(seed=seed)
        return optuna.samplers.TPESampler(seed=seed)

    @staticmethod
    def _tell(study, trial, job) -> None:
        from optuna.trial import TrialState  # noqa: PLC0415

        try:
            value = float(job.return_value)  # re-raises the job's exception, if it had one
        except Exception as exc:  # noqa: BLE001 - a failed trial must not end the search
            log.warning("trial %d failed: %s", trial.number, exc)
            value = math.nan
        if math.isfinite(value):
            study.tell(trial, value)
        else:
            study.tell(trial, state=TrialState.FAIL)

    @staticmethod
    def _report(study) -> None:
        from optuna.trial import TrialState  # noqa: PLC0415

        if study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)):
            best = study.best_trial
            log.info("study %s: best trial %d, value %s, params %s", study.study_name,
                     best.number, best.value, best.params)
