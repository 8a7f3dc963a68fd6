"""A sweep's jobs as a table: sorted by the objective, with the params that differ between jobs.

Shared by the end-of-sweep summary (``runner.sweep.callback``) and ``python -m runner.compare``:
the same rows become the console table, ``sweep_summary.csv`` and the ``sweep_objective.png``
bar chart.
"""
from __future__ import annotations

import csv
import dataclasses
import io
import math
import os

from core.atomic import atomic_write

# Params that never tell two jobs apart in a useful way (where files are, how they are tracked).
_NOT_COMPARED = ("tracking.", "data.root", "data.cache_dir", "trainer.progress", "runtime.")


@dataclasses.dataclass
class Row:
    name: str
    status: str  # FINISHED | FAILED | KILLED | RUNNING
    objective: float  # NaN when the job failed or never logged it
    params: dict[str, str]
    seconds: float | None = None
    error: str = ""
    run_id: str = ""
    command_id: str = ""  # the sweep command that ran the job (runner.sweep.job.COMMAND_TAG)

    @property
    def ok(self) -> bool:
        return self.status == "FINISHED" and math.isfinite(self.objective)


def ranked(rows: list[Row], direction: str) -> list[Row]:
    """Best first; jobs without a finite objective last, in their original order."""
    sign = -1.0 if direction == "maximize" else 1.0
    return sorted(rows, key=lambda row: (not row.ok, sign * row.objective if row.ok else 0.0))


def differing_keys(rows: list[Row]) -> list[str]:
    """The param keys, set in every row, whose values differ (what the sweep varied).

    Keys that only some options have (Adam's beta1 beside SGD) would only repeat the option's
    name, which ``<group>.name`` already shows.
    """
    if not rows:
        return []
    shared = set.intersection(*(set(row.params) for row in rows))
    keys = sorted(key for key in shared if not key.startswith(_NOT_COMPARED))
    return [key for key in keys if len({row.params[key] for row in rows}) > 1]


def _cells(row: Row, keys: list[str], shown: dict[str, dict[str, str]]) -> list[str]:
    objective = f"{row.objective:.4f}" if math.isfinite(row.objective) else "-"
    seconds = f"{row.seconds:.1f}" if row.seconds is not None else "-"
    params = (shown[key].get(row.params.get(key, ""), row.params.get(key, "")) for key in keys)
    return [row.name, *params, objective, row.status, seconds]


def _short_numbers(values: set[str]) -> dict[str, str]:
    """A column's float values with the fewest significant digits (4 at least) that keep
    them apart: an Optuna search samples ``0.021600820741402058``, which the table shows as
    ``0.0216``. Values that are not floats are left as they are; the CSV keeps every digit."""
    numbers = {}
    for value in values:
        try:
            numbers[value] = float(value)
        except ValueError:
            continue
    floats = {v: n for v, n in numbers.items() if math.isfinite(n) and not v.lstrip("-").isdigit()}
    for digits in range(4, 18):
        shown = {v: f"{n:.{digits}g}" for v, n in floats.items()}
        if len(set(shown.values())) == len(set(floats.values())):
            return {v: text for v, text in shown.items() if len(text) < len(v)}
    return {}


def table(rows: list[Row], objective: str) -> str:
    """A fixed-width text table of ``rows`` (already ranked)."""
    keys = differing_keys(rows)
    header = ["run", *keys, objective, "status", "seconds"]
    shown = {key: _short_numbers({row.params.get(key, "") for row in rows}) for key in keys}
    body = [_cells(row, keys, shown) for row in rows]
    widths = [max(len(str(line[i])) for line in [header, *body]) for i in range(len(header))]
    lines = ["  ".join(str(cell).ljust(width) for cell, width in zip(line, widths)).rstrip()
             for line in [header, *body]]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


def write_csv(rows: list[Row], objective: str, path: str | os.PathLike) -> str:
    """``rows`` as CSV: name, the differing params, objective, status, seconds, error, run id."""
    keys = differing_keys(rows)
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["run", *keys, objective, "status", "seconds", "error", "run_id"])
    for row in rows:
        writer.writerow([row.name, *(row.params.get(key, "") for key in keys),
                         "" if not math.isfinite(row.objective) else repr(row.objective),
                         row.status, "" if row.seconds is None else f"{row.seconds:.2f}",
                         row.error, row.run_id])
    with atomic_write(os.fspath(path), "w", encoding="utf-8") as handle:
        handle.write(buffer.getvalue())
    return os.fspath(path)


def plot_objectives(rows: list[Row], objective: str, path: str | os.PathLike) -> str:
    """A horizontal bar per job (best on top); failed jobs are named with an empty bar."""
    import matplotlib  # noqa: PLC0415 - heavy import, needed once per sweep

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure  # noqa: PLC0415

    figure = Figure(figsize=(8, 1.2 + 0.35 * len(rows)), dpi=100, layout="constrained")
    axes = figure.add_subplot(1, 1, 1)
    names = [row.name if row.ok else f"{row.name} ({row.status})" for row in rows][::-1]
    values = [row.objective if row.ok else 0.0 for row in rows][::-1]
    colors = ["tab:blue" if row.ok else "tab:red" for row in rows][::-1]
    axes.barh(range(len(rows)), values, color=colors)
    axes.set_yticks(range(len(rows)), names, fontsize=8)
    axes.set_xlabel(objective)
    axes.set_title(f"{objective} per job")
    axes.grid(True, axis="x", alpha=0.3)
    with atomic_write(os.fspath(path), "wb") as handle:
        figure.savefig(handle, format="png")
    return os.fspath(path)
