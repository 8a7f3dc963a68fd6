"""One run: a validated ``RunConfig`` in, the objective metric out.

``run`` selects the device, BLAS threads and seed, builds data, model, optimizer and schedule
(``runner.build``), opens the tracked run, trains (``runner.train.loop``), evaluates on the test
set, saves the final checkpoint, logs the artifacts and closes the run as FINISHED, FAILED (with the
error as the ``error`` tag) or KILLED (Ctrl-C or SIGTERM). Building happens before the tracked
run is opened, so a config or data mistake fails fast and leaves no empty run behind.
"""
from __future__ import annotations

import contextlib
import dataclasses
import difflib
import hashlib
import logging
import math
import os
import shlex
import sys
import time

import core
from core import model_summary as summary
from core import serialize
from core.atomic import atomic_write
from core.backend import DeviceError
from core.optimizer.lr import LRScheduler
from runner import build, instruments, plugins, process
from runner.config import schema, tomlwrite
from runner.config.schema import RunConfig
from runner.config.validation import flatten
from runner.errors import ConfigError, UserError
from runner.sweep import job
from runner.track import bundle, datasets, tracking
from runner.track.curves import plot_learning_curves
from runner.track.naming import run_name
from runner.train import amp, data_report, distributed, health, resume
from runner.train.loop import Trainer, evaluate
from runner.train.monitor import weights
from runner.train.taps import find_layer

log = logging.getLogger(__name__)

CHECKPOINT = "model.pdparams"
CONFIG_FILE = "config.toml"
CURVES_FILE = "learning_curves.png"
SUMMARY_FILE = "model_summary.txt"
MODEL_FILE = "model_spec.toml"  # the model option as resolved (a spec: its tables)


# Every metric a run logs, hence every valid trainer.objective.
METRICS = ("train/loss", "train/acc", "train/lr", "train/samples_per_sec", "time/epoch_sec",
           "valid/loss", "valid/acc", "test/loss", "test/acc",
           "health/nonfinite_events", "health/skipped_steps",  # unless trainer.nan_check=off
           "data/wait_fraction", "data/queue_depth")  # + data/padding_fraction for sequences


@dataclasses.dataclass
class _Parts:
    model: object
    optimizer: object
    scheduler: object | None  # None for a constant learning rate
    train: object
    valid: object | None
    test: object
    input_shape: tuple = ()  # one sample's shape, for the inference bundle
    num_classes: int = 0
    vocab_size: int = 0
    variable_length: bool = False
    preprocessing: dict | None = None  # the learnt input transform (data=csv), for the bundle


def checkpoint_folder(cfg: RunConfig) -> str | None:
    """Where this run's resumable checkpoints go (None when it makes none)."""
    if cfg.trainer.checkpoint_every <= 0:
        return None
    return os.path.join(output_dir(), "checkpoints")


def run(cfg: RunConfig, overrides: list[str], launch_dir: str) -> float:
    """Train and test as ``cfg`` says; return the last value of ``cfg.trainer.objective``."""
    process.ensure_console_logging()
    launch_dir = os.path.abspath(launch_dir)
    try:
        core.device.set_device(cfg.device)
    except DeviceError as exc:
        raise UserError(str(exc)) from exc
    cfg = distributed.start(cfg)  # trainer.distributed: join the MPI job, pick this rank's GPU
    core.backend.set_gpu_memory_limit(cfg.runtime.gpu_memory_limit << 20)  # no-op on a CPU
    # distributed.guard: a failing rank ends the whole job
    with distributed.guard(), process.cpu_threads(cfg.runtime.threads):
        with process.before_run():  # Ctrl-C here: no run exists yet
            core.seed(cfg.trainer.seed)
            parts = distributed.prepare(_build(cfg))  # same start on every rank; batches sharded
            tracker = make_tracker(cfg, overrides, launch_dir)
            tracker.connect()  # importing mlflow, creating the store: seconds on a first run
            resumption = resume.find(cfg, tracker)  # None unless trainer.resume is set
        status = "FAILED"
        begin = time.perf_counter()
        try:  # from here on, the run ends FINISHED, FAILED or KILLED whatever happens
            # Opening is inside: a Ctrl-C while it logs the params or the tags must not leave
            # the new (or reopened) run RUNNING (tracker.end of a run never created is a no-op).
            resume.open_run(tracker, resumption, flatten(cfg),
                            run_tags(overrides, launch_dir, cfg), checkpoint_folder(cfg))
            datasets.log(tracker, cfg.data, {  # train/valid/test as MLflow inputs, with digests
                "train": parts.train.dataset, "valid": getattr(parts.valid, "dataset", None),
                "test": parts.test.dataset})
            with process.sigterm_raises():
                objective, epochs = _train_and_report(cfg, parts, tracker, resumption)
            status = "FINISHED"
            _end(tracker, status)
            _summarise(cfg, tracker, objective, time.perf_counter() - begin, epochs)
            return objective
        except KeyboardInterrupt:
            status = "KILLED"
            raise
        except BaseException as exc:
            with contextlib.suppress(Exception):  # a broken store must not hide the real error
                tracker.set_tag("error", f"{type(exc).__name__}: {exc}")
            with contextlib.suppress(Exception):  # a NaN/Inf stop: its report as tag + artifact
                health.save_report(exc, tracker, output_dir())
            if core.backend.out_of_memory_message(exc):  # GPU OOM: say what to change
                raise UserError(core.backend.out_of_memory_message(exc)) from exc
            raise
        finally:
            if status != "FINISHED":
                _end(tracker, status)


def _build(cfg: RunConfig) -> _Parts:
    data = build.build_data(cfg.data, build.SPLIT_SEED)
    train, valid, test = build.build_loaders(data, cfg.data, cfg.trainer)
    why = _no_validation(cfg.data.name)
    _check_objective(cfg.trainer.objective, valid is not None, why, monitored=_monitors(cfg))
    if job.objective_key(cfg) != cfg.trainer.objective:  # a sweep's own objective
        _check_objective(job.objective_key(cfg), valid is not None, why, key="sweep.objective")
    model = build.build_model(cfg.model, data.input_shape, data.num_classes, data.vocab_size,
                              data.variable_length)
    for name in cfg.inspect.layer_outputs:  # a wrong name stops here, before any run is opened
        try:
            find_layer(model, name, "inspect.layer_outputs: layer")
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
    _warn_untracked_inspection(cfg)
    # The schedule counts optimizer steps: with trainer.accumulate, one per N batches (an
    # epoch's last, shorter group is a step too).
    steps_per_epoch = math.ceil(len(train) / cfg.trainer.accumulate)
    schedule = build.build_schedule(cfg.schedule, cfg.optim.lr, cfg.trainer.epochs,
                                    steps_per_epoch)
    optimizer = build.build_optimizer(cfg.optim, model.parameters(), schedule,
                                      grad_clip=build.build_clip(cfg.clip, model))
    # trainer.amp=O2: float16 weights with float32 masters, decorated once (runner.train.amp)
    model, optimizer = amp.prepare(model, optimizer, cfg.trainer,
                                   core.backend.current_device().kind)
    scheduler = schedule if isinstance(schedule, LRScheduler) else None
    return _Parts(model, optimizer, scheduler, train, valid, test, data.input_shape,
                  data.num_classes, data.vocab_size, data.variable_length,
                  data.preprocessing)


def _warn_untracked_inspection(cfg: RunConfig) -> None:
    """``[inspect]`` statistics are MLflow metrics only: with tracking off they were computed
    every ``inspect.every`` steps and went nowhere, without a word."""
    if cfg.inspect.every and not cfg.tracking.enabled:
        log.warning("inspect.every=%d logs its statistics to MLflow only (inspect/* metrics), "
                    "and tracking.enabled=false: nothing will record them. Turn tracking on, "
                    "or read them with a handler on the training loop (docs/inspect.md).",
                    cfg.inspect.every)


def _summarise(cfg: RunConfig, tracker, objective: float, seconds: float,
               epochs: int) -> None:
    """The last lines a user reads: the result, and where the run and its files are."""
    log.info("%s = %.4f after %d epoch%s in %.1f s; outputs in %s", job.objective_key(cfg),
             objective, epochs, "" if epochs == 1 else "s", seconds, output_dir())
    if tracker.run_id is not None:
        log.info("MLflow run %s (%s) in %s; browse with: mlflow ui --backend-store-uri %s",
                 tracker.run_id, tracker.run_name, tracker.uri, tracker.uri)


def _end(tracker, status: str) -> None:
    """Close the run; when the run already failed, a failing close is only logged."""
    try:
        tracker.end(status)
    except Exception:
        if status == "FINISHED":
            raise
        log.warning("could not mark the tracked run %s", status, exc_info=True)


def _train_and_report(cfg: RunConfig, parts: _Parts, tracker,
                      resumption=None) -> tuple[float, int]:
    """Train, test and log; returns the objective and the number of epochs trained."""
    recorder = tracking.Recorder(tracker)
    if resumption is not None and resumption.run_id is not None:
        # What the run logged before it stopped: a run resumed after its last epoch trains no
        # more, and its objective is among these.
        run = tracker.get_run(resumption.run_id)
        recorder.remember(run.data.metrics if run is not None else {})
    _describe_model(cfg, parts, tracker, output_dir())
    begin = time.perf_counter()
    overhead_before = tracker.overhead_sec
    trainer = Trainer(parts.model, parts.optimizer, cfg.trainer, scheduler=parts.scheduler,
                      sink=recorder)
    # Checkpoints and resume, inspection, profiling and the memory report (runner.instruments).
    tools = instruments.attach(trainer, cfg, parts, tracker, resumption, checkpoint_folder(cfg))
    distributed.attach(trainer, parts.train)  # gradients averaged over ranks before each step
    state = trainer.fit(parts.train, parts.valid)
    data_verdict = data_report.summary(parts.train, time.perf_counter() - begin)
    tools.finish(tracker, output_dir())
    if trainer.monitor is not None:  # the stopped_early tag, best.pdparams (runner.train.monitor)
        trainer.monitor.finish(tracker, output_dir())
    test_loss, test_acc = _test(cfg, trainer, parts)
    recorder.log_metrics({"test/loss": test_loss, "test/acc": test_acc}, state.step)
    recorder.flush(force=True)
    # What tracking cost while training: the time inside tracker calls over the wall time.
    # The one-off import and store setup are reported apart, as tracking/setup_sec.
    fraction = (tracker.overhead_sec - overhead_before) / (time.perf_counter() - begin)
    recorder.log_metrics({"tracking/overhead_fraction": fraction,
                          "tracking/setup_sec": tracker.setup_sec}, state.step)
    _save_outputs(cfg, parts.model, recorder, tracker, output_dir())
    data_report.save_text_artifacts(parts.model, parts.train.dataset, tracker, output_dir())
    if data_verdict:  # whether data loading was the bottleneck (runner/train/data_report.py)
        log.info("%s", data_verdict)
    if cfg.trainer.checkpoint:  # the pyfunc model (bundle inside): model/ (runner.track.pyfunc)
        bundle.log_bundle(cfg, parts, tracker, output_dir())
        if cfg.tracking.register_as:
            version = tracker.register_model(cfg.tracking.register_as)
            log.info("registered the model as models:/%s/%s", cfg.tracking.register_as, version)
    # The LAST value of sweep.objective (by default trainer's), also with early stopping or
    # keep_best: what a sweep compares stays the state training ended in.
    # (A run resumed after its last epoch trained none more: state.epoch is already epochs.)
    return recorder.last(job.objective_key(cfg)), min(state.epoch + 1, cfg.trainer.epochs)


def _describe_model(cfg: RunConfig, parts: _Parts, tracker, folder: str) -> None:
    """The model summary (printed, and an artifact) and the model's config as its own file."""
    # Under the run's auto_cast: at trainer.amp=O2 the weights are float16 already, and a
    # convolution refuses the float32 sample outside it.
    with amp.Precision.from_config(cfg.trainer).context():
        rows = summary.summarize(parts.model, parts.input_shape, parts.vocab_size,
                                 parts.variable_length)
    table = summary.format_table(rows)
    log.info("model %s:\n%s", cfg.model.name, table)
    os.makedirs(folder, exist_ok=True)  # a data-parallel rank's own folder may not exist yet
    with atomic_write(os.path.join(folder, SUMMARY_FILE), "w") as handle:
        handle.write(table + "\n")
    tracker.log_artifact(os.path.join(folder, SUMMARY_FILE))
    spec_path = os.path.join(folder, MODEL_FILE)
    tomlwrite.dump(schema.to_table(cfg.model), spec_path)
    tracker.log_artifact(spec_path)
    tracker.log_metrics({"model/params": float(sum(r.params for r in rows)),
                         "model/flops_per_sample": float(sum(r.flops for r in rows))}, 0)


def _monitors(cfg: RunConfig) -> str:
    """The keys that make the run watch trainer.objective ("" when none does)."""
    return " and ".join(f"trainer.{key}" for key in ("early_stop", "keep_best")
                        if getattr(cfg.trainer, key))


def _test(cfg: RunConfig, trainer, parts: _Parts) -> tuple[float, float]:
    """Test loss and accuracy of the weights trainer.test_on names. The best weights are
    swapped in for the test only: model.pdparams and the bundle keep the last."""
    best = trainer.monitor.best_state if cfg.trainer.test_on == "best" else None
    with weights(parts.model, best):
        loss, acc = evaluate(parts.model, parts.test, trainer.precision)
    which = "the last weights" if best is None else \
        f"the best weights (epoch {trainer.monitor.best_epoch})"
    log.info("test loss %.4f acc %.4f (%s)", loss, acc, which)
    return loss, acc


def _save_outputs(cfg: RunConfig, model, recorder, tracker, folder: str) -> None:
    """Write the resolved config, checkpoint and curves into ``folder`` and log them."""
    os.makedirs(folder, exist_ok=True)
    config_path = os.path.join(folder, CONFIG_FILE)
    tomlwrite.dump(schema.to_table(cfg), config_path)
    tracker.log_artifact(config_path)
    if cfg.trainer.checkpoint:
        checkpoint = os.path.join(folder, CHECKPOINT)
        serialize.save(model.state_dict(), checkpoint)
        tracker.log_artifact(checkpoint)
    curves = plot_learning_curves(recorder.history, os.path.join(folder, CURVES_FILE))
    tracker.log_artifact(curves)


def output_dir() -> str:
    """Hydra's job output folder when running under Hydra, else the current folder."""
    try:
        from hydra.core.hydra_config import HydraConfig  # noqa: PLC0415 - optional here
    except ImportError:
        return os.getcwd()
    if HydraConfig.initialized():
        return distributed.rank_folder(HydraConfig.get().runtime.output_dir)  # rank-R/ if > 0
    return os.getcwd()


def _no_validation(data_name: str) -> str:
    """Why a run has no validation set, and how to get one."""
    if data_name == "files":
        return ("data.valid_files is empty: list validation files "
                "(data.valid_files='[\"valid/*.csv\"]')")
    if plugins.get("dataset", data_name) is not None:  # its builder decides, not valid_size
        source = plugins.REGISTRIES["dataset"].source(data_name)
        return (f"the plugin dataset '{data_name}' ({source}) returned valid = None: return a "
                "validation split from its builder")
    return "data.valid_size is 0: hold out some data (data.valid_size=0.1)"


def _check_objective(objective: str, has_valid: bool, why: str, monitored: str = "",
                     key: str = "trainer.objective") -> None:
    """``objective``, the value of ``key``, names a metric the run logs and can measure."""
    if objective not in METRICS:
        close = difflib.get_close_matches(objective, METRICS, n=1)
        hint = f" (did you mean {key}={close[0]}?)" if close else ""
        raise ConfigError(f"{key}={objective} is not a metric this runner logs{hint}: "
                          f"choose one of {', '.join(METRICS)}.")
    if monitored and not has_valid:
        raise ConfigError(f"{key}={objective} is watched after each validation "
                          f"pass ({monitored}), but there is no validation set ({why}), or "
                          "turn early stopping and the best checkpoint off.")
    if objective.startswith("valid/") and not has_valid:
        raise ConfigError(f"{key}={objective} needs a validation set but {why}, "
                          "or use a test/ or train/ metric as the objective.")


# ----- tracking setup -------------------------------------------------------------------------

def make_tracker(cfg: RunConfig, overrides: list[str], launch_dir: str):
    """An MLflow tracker for ``cfg.tracking`` (a NullTracker when tracking is disabled)."""
    if not cfg.tracking.enabled:
        return tracking.NullTracker()
    uri = cfg.tracking.uri or tracking.default_uri(launch_dir)
    job.check_server(uri)  # an unreachable mlflow server fails now, not at the first metric
    local = not job.is_remote(uri)  # a shared server chooses where artifacts go
    return tracking.MlflowTracker(uri, cfg.tracking.experiment,
                                  cfg.tracking.run_name or run_name(cfg, overrides),
                                  artifact_location=tracking.default_artifact_location(launch_dir)
                                  if local else None, system_metrics=cfg.tracking.system_metrics)


def run_tags(overrides: list[str], launch_dir: str, cfg: RunConfig | None = None) -> dict:
    tags = {"device": core.device.get_device(), "command": shlex.join(sys.argv),
            "overrides": " ".join(overrides), "launch_dir": launch_dir,
            "tomlrun.version": tracking.tomlrun_version()}
    if cfg is not None:  # the resolved config's hash: equal hashes, equal configs
        tags["tomlrun.config_sha256"] = hashlib.sha256(
            tomlwrite.dumps(dataclasses.asdict(cfg)).encode()).hexdigest()
    commit, dirty = tracking.git_state(launch_dir)
    if commit:
        tags["mlflow.source.git.commit"] = commit  # the name MLflow's UI shows
        tags["tomlrun.git_dirty"] = str(dirty).lower()  # tracked files changed since commit
    tags.update(job.job_tags())  # under -m: the parent run and the job's folder
    return tags
