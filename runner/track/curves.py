"""Learning curves as a PNG: train and valid loss (left) and accuracy (right) against the step.

matplotlib is imported lazily with the Agg backend: it is needed once per run, at the end, and
must work on machines without a display.
"""
from __future__ import annotations

import os

from core.atomic import atomic_write

# (panel title, metric keys) for each panel, in order.
PANELS = (("loss", ("train/loss", "valid/loss")), ("accuracy", ("train/acc", "valid/acc")))


def plot_learning_curves(history: dict[str, list[tuple[int, float]]],
                         path: str | os.PathLike) -> str:
    """Draw ``history`` (metric -> [(step, value), ...]) into the PNG ``path``, atomically."""
    import matplotlib  # noqa: PLC0415 - heavy import, needed once per run

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure  # noqa: PLC0415

    # A bare Figure (not pyplot) keeps no global state and leaks no windows between runs.
    figure = Figure(figsize=(10, 4), dpi=100, layout="constrained")
    for index, (title, keys) in enumerate(PANELS):
        axes = figure.add_subplot(1, len(PANELS), index + 1)
        for key in keys:
            points = history.get(key, [])
            if points:
                steps, values = zip(*points)
                axes.plot(steps, values, marker="o" if len(points) < 30 else None,
                          markersize=3, label=key)
        axes.set_title(title)
        axes.set_xlabel("step (batches)")
        axes.grid(True, alpha=0.3)
        if axes.has_data():
            axes.legend()
    path = os.fspath(path)
    with atomic_write(path, "wb") as handle:
        figure.savefig(handle, format="png")
    return path
