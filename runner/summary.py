"""``python -m runner.summary [group=option ...] [key=value ...]``: the model summary, no training.

Composes the config exactly as ``python -m runner`` does (same groups, overrides and
``+experiment=``), builds the data and the model, and prints one row per layer: name, type,
output shape, parameters and FLOPs per sample, with the totals. Nothing is trained and nothing
is written to MLflow. A mistake in the config or the network spec is the same one-paragraph
``tomlrun: error:`` with exit status 2.
"""
from __future__ import annotations

import sys

from hydra import compose, initialize_config_dir
from hydra.errors import CompactHydraException

from core import model_summary as summary
from core.backend import DeviceError
from runner import build, plugins
from runner.config import hydra_errors
from runner.config.hydra_setup import register_hydra_plugins, register_plugin_options
from runner.config.paths import config_dirs
from runner.config.validation import validate
from runner.errors import UserError
from runner.process import closed_stdout_is_quiet
from runner.train.taps import find_layer

PROG = "tomlrun"


def describe(overrides: list[str]) -> str:
    """The summary table of the model that ``python -m runner OVERRIDES`` would train."""
    plugins.load(plugins.modules_in_argv(overrides))
    register_hydra_plugins()
    register_plugin_options()
    with initialize_config_dir(config_dir=str(config_dirs()[0]), version_base=None):
        cfg = compose("config", overrides=overrides)
    plugins.load(cfg.get("plugins") or [])
    run_config = validate(cfg)
    build.check_model_config(run_config.model)
    data = build.build_data(run_config.data, build.SPLIT_SEED)
    model = build.build_model(run_config.model, data.input_shape, data.num_classes,
                              data.vocab_size, data.variable_length)
    for name in run_config.inspect.layer_outputs:  # as python -m runner checks them
        try:
            find_layer(model, name, "inspect.layer_outputs: layer")
        except ValueError as exc:
            raise UserError(str(exc)) from None
    rows = summary.summarize(model, data.input_shape, data.vocab_size, data.variable_length)
    shape = "x".join(map(str, data.input_shape))
    return (f"model {run_config.model.name} on data={run_config.data.name} (samples {shape}, "
            f"{data.num_classes} classes)\n{summary.format_table(rows)}")


def main(argv: list[str] | None = None) -> int:
    """Print the summary; 0 on success, 2 (one paragraph on stderr) on a user mistake."""
    args = sys.argv[1:] if argv is None else argv
    if any(arg in ("-h", "--help") for arg in args):
        print(__doc__)
        return 0
    if any(arg in ("-m", "--multirun") for arg in args):
        print(f"{PROG}: error: runner.summary shows one model and does not sweep: drop "
              "-m/--multirun and give each key one value (model=cnn, not model=cnn,mlp).",
              file=sys.stderr)
        return 2
    try:
        print(describe(args))
    except (UserError, DeviceError) as exc:
        print(f"{PROG}: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    except CompactHydraException as exc:
        print(f"{PROG}: error: {hydra_errors.message(exc)}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(closed_stdout_is_quiet(main))
