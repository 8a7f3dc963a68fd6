"""``python -m runner``: compose the TOML configs with Hydra, validate them, train, return the
objective (the value a Hydra sweeper optimises).

Everything the user can fix ends as one paragraph on stderr, ``tomlrun: error: ...``, with exit
status 2 and no traceback. Validation and the device check run before ``runner.app.run``, so a
bad config never starts a run or writes anything to MLflow. Hydra's own errors (an unknown key
or group option, a bad override, a TOML syntax error) are reported the same way
(runner.config.hydra_errors).
"""
from __future__ import annotations

import contextlib
import importlib
import shutil
import sys
from pathlib import Path
from typing import NoReturn

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, open_dict

from core.backend import DeviceError, set_device
from core.data.files import ReaderError
from runner import build, plugins
from runner.config import hydra_errors
from runner.config.hydra_setup import register_hydra_plugins, register_plugin_options
from runner.config.paths import config_dirs, shadowed_options
from runner.config.validation import validate
from runner.errors import ConfigError, UserError
from runner.process import StoppedBeforeRun, before_run, closed_stdout_is_quiet
from runner.sweep import job

PROG = "tomlrun"

# An absolute config_path is how tomlrun's search-path plugin (hydra_plugins/tomlrun_toml)
# recognises this app: it serves exactly this folder as toml:// and mounts experiments/.
_CONF_DIR = config_dirs()[0]
register_hydra_plugins()


@hydra.main(version_base=None, config_path=str(_CONF_DIR), config_name="config")
def main(cfg: DictConfig) -> float:
    """Hydra's task function: one run per composed config (one per job under ``-m``)."""
    try:
        if job.in_multirun():  # a failing job is recorded FAILED and the sweep goes on
            return job.run_job(cfg, _train)
        return _train(cfg)
    except (UserError, DeviceError, ReaderError) as exc:  # ReaderError: a user's reader or file
        if not job.in_multirun():
            _remove_unused_output_dir()
        exit_with_error(exc)
    except KeyboardInterrupt as exc:
        # The run is already closed as KILLED; a stack trace would only hide that message.
        signal_name = "SIGTERM" if type(exc).__name__ == "Terminated" else "Ctrl-C"
        if isinstance(exc, StoppedBeforeRun):
            if not job.in_multirun():
                _remove_unused_output_dir()
            print(f"{PROG}: stopped by {signal_name} before the run started: nothing was "
                  "trained or recorded.", file=sys.stderr)
        else:
            tracked = bool((cfg.get("tracking") or {}).get("enabled", True))
            marked = "; the run was marked KILLED" if tracked else " (tracking was off)"
            print(f"{PROG}: stopped by {signal_name}{marked}{_resume_hint(cfg)}.",
                  file=sys.stderr)
        sys.exit(143 if signal_name == "SIGTERM" else 130)


def _resume_hint(cfg: DictConfig) -> str:
    """How to go on from a stopped run: resume it, or why it cannot be."""
    if (cfg.get("trainer") or {}).get("checkpoint_every", 0) > 0:
        return "; continue it with the same overrides and trainer.resume=true"
    return ("; it saved no resumable checkpoint (trainer.checkpoint_every=0, the default: set "
            "it to N optimizer steps to make runs resumable)")


def _train(cfg: DictConfig) -> float:
    """Validate ``cfg``, select its device and run it; return the objective."""
    with before_run():  # Ctrl-C while checking the config and importing the app
        plugins.load(cfg.get("plugins") or [])  # the config's own plugin modules
        _check_not_hidden(HydraConfig.get())
        _name_spec_after_its_file(cfg, HydraConfig.get())
        run_config = validate(cfg)
        build.check_model_config(run_config.model)  # a spec's layers, before any data is read
        _use_device(run_config.device)
        app = importlib.import_module("runner.app")  # training and MLflow load only when valid
    hydra_config = HydraConfig.get()
    return app.run(run_config, overrides=list(hydra_config.overrides.task),
                   launch_dir=hydra_config.runtime.cwd)


def _name_spec_after_its_file(cfg: DictConfig, hydra_config) -> None:
    """A network spec file without ``name = "..."`` is named after the file (model=my_net:
    my_net), which run names and MLflow's model.name then show, rather than "spec"."""
    model, option = cfg.get("model"), hydra_config.runtime.choices.get("model")
    if isinstance(model, DictConfig) and "layers" in model and "name" not in model and option:
        with open_dict(cfg):
            model["name"] = option


def _check_not_hidden(hydra_config) -> None:
    """A user's option file named like a shipped one would be silently ignored (Hydra reads
    the first match, and the shipped folders come first): refuse it, saying to rename it."""
    hidden = shadowed_options(hydra_config.searchpath, dict(hydra_config.runtime.choices),
                              hydra_config.runtime.cwd)
    if hidden:
        path = Path(hidden[0])
        raise ConfigError(
            f"{path} is not read: tomlrun ships an option of the same name "
            f"({path.parent.name}={path.stem}), and Hydra uses the first file it finds, which "
            f"is the shipped one. Rename your file (e.g. my_{path.name}) and select it "
            f"with {path.parent.name}=my_{path.stem}.")


def _use_device(device: str) -> None:
    """Select the device now, so that gpu:N on a machine without that GPU fails before any work."""
    try:
        set_device(device)
    except DeviceError as exc:
        shown = "" if device in str(exc) else f"device = '{device}' cannot be used: "
        raise ConfigError(shown + str(exc)) from None


def _remove_unused_output_dir() -> None:
    """Hydra made this run's output folder before the config was checked; when a mistake stops
    the run before it wrote anything there (only Hydra's .hydra records and an empty log), the
    folder goes, so that typos leave no debris under outputs/."""
    try:
        runtime = HydraConfig.get().runtime
    except ValueError:  # not under Hydra (called from Python)
        return
    folder = Path(runtime.output_dir)
    if not folder.is_dir() or not {p.name for p in folder.iterdir()} <= {".hydra", "tomlrun.log"}:
        return
    log_file = folder / "tomlrun.log"
    if log_file.exists() and log_file.stat().st_size:
        return
    shutil.rmtree(folder, ignore_errors=True)
    if folder.parent.parent != Path(runtime.cwd) / "outputs":
        return  # a folder the user named (hydra.run.dir): its parents are theirs, kept
    with contextlib.suppress(OSError):  # outputs/<day>/ and outputs/, when they are now empty
        folder.parent.rmdir()
        folder.parent.parent.rmdir()


def exit_with_error(exc: BaseException) -> NoReturn:
    """Print ``exc`` as one ``tomlrun: error:`` paragraph and exit with status 2."""
    message = " ".join(str(exc).split())  # one paragraph, whatever line breaks it carried
    print(f"{PROG}: error: {message}", file=sys.stderr)
    # SystemExit is not an Exception: Hydra's job runner lets it through untouched, unprinted.
    sys.exit(2)


def _load_plugins() -> None:
    """Entry-point plugins and a ``plugins=[...]`` override, before Hydra composes: their
    models and datasets then exist as group options (model=NAME)."""
    try:
        plugins.load(plugins.modules_in_argv(sys.argv[1:]))
    except UserError as exc:
        exit_with_error(exc)
    register_plugin_options()


hydra_errors.install(PROG)
sys.argv[1:] = hydra_errors.switches_first(sys.argv[1:])
_bad_override = hydra_errors.check_overrides(sys.argv[1:])
if _bad_override:
    exit_with_error(UserError(_bad_override))
_load_plugins()

if __name__ == "__main__":
    sys.exit(closed_stdout_is_quiet(main))
