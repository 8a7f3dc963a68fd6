"""``python -m runner.compare [EXPERIMENT | PARENT_RUN_ID]``: a sweep's runs, best first.

Prints one line per run (the params that differ between runs, the objective, status and
duration), sorted by the objective, and draws the learning curves of the best ``--top`` runs into
one PNG. With an experiment name it shows that experiment's latest sweep (or all its runs when it
holds no sweep); with no argument, the latest sweep in the store. The objective and its direction
come from the sweep (``sweep.objective``, ``sweep.direction``) unless given; an ``--objective``
other than the sweep's is sorted in its own direction (a loss is minimized) unless
``--direction`` says otherwise.
"""
from __future__ import annotations

import argparse
import difflib
import os
import re
import sys
from pathlib import Path

from core.atomic import atomic_write
from runner.config.resolvers import auto_direction
from runner.errors import UserError
from runner.process import closed_stdout_is_quiet
from runner.sweep import job, summary
from runner.track import runstore, tracking

_RUN_ID = re.compile(r"^[0-9a-f]{32}$")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m runner.compare", description=__doc__.split(
        "\n\n")[0].split(": ", 1)[1])
    parser.add_argument("target", nargs="?", default="",
                        help="an experiment name or a sweep's parent run id (default: the "
                             "latest sweep)")
    parser.add_argument("--uri", default="", help="tracking store (default: sqlite:///"
                        "<current folder>/mlflow.db, as python -m runner uses)")
    parser.add_argument("--objective", default="", help="metric to sort by (default: the sweep's)")
    parser.add_argument("--direction", choices=("maximize", "minimize"), default="",
                        help="which end of the objective is best (default: the sweep's for its "
                             "own objective, else minimize a loss and maximize the rest)")
    parser.add_argument("--top", type=int, default=5, help="runs whose curves are drawn")
    parser.add_argument("--output", default="", help="image of the curves, in the format its "
                        "extension names (.png, .pdf, .svg, ...; default: compare-<target>.png)")
    return parser.parse_args(argv)


def select_runs(uri: str, target: str) -> tuple[runstore.RunRecord | None, list]:
    """``(parent run or None, runs)`` named by ``target``."""
    if _RUN_ID.match(target):
        parent = runstore.get_run(uri, target)
        if parent is not None:
            experiment = runstore.client(uri).get_run(target).info.experiment_id
            runs = runstore.children(uri, experiment, target)
            if not runs:
                raise UserError(f"run {target} has no child runs: give a sweep's parent run id "
                                "or an experiment name.")
            return parent, runs
    if target:
        experiments = [runstore.experiment_id(uri, target)]
    else:
        experiments = [e.experiment_id for e in runstore.client(uri).search_experiments()]
    runs = [run for experiment in experiments for run in runstore.experiment_runs(uri, experiment)]
    parents = [run for run in runs if run.tags.get(job.PARENT_TAG) == "parent"]
    if parents:  # runs come newest first
        parent = parents[0]
        return parent, [run for run in runs
                        if run.tags.get("mlflow.parentRunId") == parent.run_id]
    if not runs:
        raise UserError(f"there are no runs in {uri}" + (f" for '{target}'." if target else "."))
    return None, runs


def _setting(parent, runs, key: str, given: str, default: str) -> str:
    if given:
        return given
    for source in ([parent] if parent else []) + runs:
        if source.params.get(f"sweep.{key}"):
            return source.params[f"sweep.{key}"]
    return runs[0].params.get(f"trainer.{key}", default) if runs else default


def _direction(parent, runs, objective: str, given: str) -> str:
    """``--direction``; else the sweep's own, when ``objective`` is the sweep's objective; else
    the objective's (a loss is minimized): ``--objective valid/loss`` on a sweep that maximized
    valid/acc would otherwise put the worst loss first and draw the worst runs' curves."""
    if given:
        return given
    recorded = _setting(parent, runs, "direction", "", "")
    if recorded and objective == _setting(parent, runs, "objective", "", ""):
        return recorded
    return auto_direction(objective)


def check_objective(runs: list[runstore.RunRecord], objective: str) -> None:
    """A ``--objective`` no run logged (a typo) would sort nothing and print ``-`` in every
    row without saying why: name the metrics the runs have."""
    logged = sorted({key for run in runs for key in run.metrics})
    if objective in logged:
        return
    close = difflib.get_close_matches(objective, logged, n=3)
    hint = f" (did you mean {', '.join(close)}?)" if close else ""
    raise UserError(f"--objective {objective} is not a metric of any of these {len(runs)} "
                    f"runs{hint}: they logged {', '.join(logged) or 'no metrics'}.")


def to_rows(runs: list[runstore.RunRecord], objective: str) -> list[summary.Row]:
    return [summary.Row(run.name, run.status, run.value(objective), run.params,
                              run.seconds, run.tags.get("error", ""), run.run_id)
            for run in runs]


def plot_curves(uri: str, rows: list[summary.Row], objective: str,
                path: str | os.PathLike) -> str:
    """The objective and train/loss against the step, one line per run, in one image whose
    format is ``path``'s extension (PNG without one)."""
    import matplotlib  # noqa: PLC0415 - heavy import

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure  # noqa: PLC0415

    keys = [objective] + [key for key in ("train/loss",) if key != objective]
    figure = Figure(figsize=(6 * len(keys), 4), dpi=100, layout="constrained")
    for index, key in enumerate(keys):
        axes = figure.add_subplot(1, len(keys), index + 1)
        for row in rows:
            points = runstore.metric_history(uri, row.run_id, key)
            if points:
                steps, values = zip(*sorted(points))
                axes.plot(steps, values, marker="o" if len(points) < 30 else None,
                          markersize=3, label=row.name)
        axes.set_title(key)
        axes.set_xlabel("step (batches)")
        axes.grid(True, alpha=0.3)
        if axes.has_data():
            axes.legend(fontsize=7)
    with atomic_write(os.fspath(path), "wb") as handle:
        figure.savefig(handle, format=image_format(os.fspath(path)) or "png")
    return os.fspath(path)


def image_format(path: str) -> str:
    """The image format ``path``'s extension names (``""`` without one)."""
    return os.path.splitext(path)[1][1:].lower()


def _image_formats() -> list[str]:
    """The formats matplotlib writes (png, pdf, svg, jpg ...)."""
    from matplotlib.backend_bases import FigureCanvasBase  # noqa: PLC0415 - heavy import

    return sorted(FigureCanvasBase.get_supported_filetypes())


def check_output(path: str) -> None:
    """Refuse an ``--output`` that cannot be written before the store is read: the PNG is
    written atomically beside its target, so its folder must exist (none is created: a typo
    would leave the plot somewhere new)."""
    if not path:
        return
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise UserError(f"--output {path}: the folder {folder} does not exist: create it "
                        "first, or give a path in an existing folder (default "
                        "compare-<target>.png, here).")
    if os.path.isdir(path):
        raise UserError(f"--output {path} is a folder: give the path of the .png to write.")
    # A trailing separator means a folder; the image would otherwise be a file of its name.
    if path.endswith(tuple(filter(None, (os.sep, os.altsep)))):
        raise UserError(f"--output {path} ends in a path separator, so it names a folder: give "
                        "the path of the image to write (e.g. compare.png inside it).")
    # The extension picks the format: a .pdf holding PNG bytes (what was written before)
    # opens nowhere, and an extension matplotlib cannot write is a typo to say now.
    wanted = image_format(path)
    if wanted and wanted not in _image_formats():
        raise UserError(f"--output {path}: .{wanted} is not an image format the curves can be "
                        f"written in: use one of .{', .'.join(_image_formats())} (the "
                        "extension picks the format; default .png).")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    # --output=~/best.png reaches here unexpanded (a shell expands ~ only at a word's start)
    args.output = os.path.expanduser(args.output)
    uri = args.uri or tracking.default_uri(os.getcwd())
    try:
        if args.top < 0:
            raise UserError(f"--top {args.top} is not allowed: use an integer >= 0.")
        check_output(args.output)
        tracking.check_uri(uri, "--uri")
        job.check_server(uri)
        if uri.startswith("sqlite:///") and not Path(uri[len("sqlite:///"):]).is_file():
            raise UserError(f"there is no tracking store at {uri}: run python -m runner here "
                            "first, or give --uri.")
        parent, runs = select_runs(uri, args.target)
        objective = _setting(parent, runs, "objective", args.objective, "valid/acc")
        direction = _direction(parent, runs, objective, args.direction)
        if args.objective:
            check_objective(runs, objective)
        rows = summary.ranked(to_rows(runs, objective), direction)
    except UserError as exc:
        print(f"tomlrun: error: {job.describe(exc)}", file=sys.stderr)
        return 2
    title = (f"{parent.name} ({parent.run_id})" if parent
             else f"runs of '{args.target}'" if args.target else f"every run in {uri}")
    print(f"{title}: {len(rows)} runs, sorted by {objective} ({direction})")
    print(summary.table(rows, objective))
    best = [row for row in rows if row.ok][:args.top]
    if best:
        target = args.target or (parent.run_id if parent else "runs")
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", target)
        path = plot_curves(uri, best, objective, args.output or f"compare-{name}.png")
        print(f"learning curves of the best {len(best)} runs: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(closed_stdout_is_quiet(main))
