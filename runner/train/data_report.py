"""What the data path cost, as metrics and as the run summary's verdict, and text artifacts.

Every log window the trainer reports ``data/wait_fraction`` (the share of the window's wall time
the loop spent waiting in ``next(loader)``), ``data/queue_depth`` (mean batches ready in the
prefetch queue when one was taken; 0 without prefetch) and, for padded sequence batches,
``data/padding_fraction``. At the end of a run ``summary`` says whether loading was the
bottleneck. For word2vec runs, ``save_text_artifacts`` writes the vocabulary and the nearest
neighbours of a few frequent words.
"""
from __future__ import annotations

import logging
import os
import time

log = logging.getLogger(__name__)

BOTTLENECK = 0.3  # above this share of training time spent waiting, loading is the bottleneck


def data_metrics(loader, since: float) -> dict[str, float]:
    """The loader's window statistics as metrics; ``since`` is the window's perf_counter start."""
    stats = getattr(loader, "stats", None)
    if stats is None:
        return {}
    window = stats.take_window()
    elapsed = max(time.perf_counter() - since, 1e-9)
    out = {"data/wait_fraction": min(1.0, window["wait_sec"] / elapsed),
           "data/queue_depth": window["queue_depth"]}
    if "padding_fraction" in window:
        out["data/padding_fraction"] = window["padding_fraction"]
    return out


def summary(loader, train_seconds: float) -> str | None:
    """One line: the share of training time spent waiting for data, and what it means."""
    stats = getattr(loader, "stats", None)
    if stats is None or train_seconds <= 0:
        return None
    share = stats.total_wait_sec / train_seconds
    if share > BOTTLENECK:
        verdict = f"data loading was the bottleneck: {_advice(getattr(loader, 'pipeline', None))}"
    else:
        verdict = "data loading was not the bottleneck"
    return f"waited for data {share:.0%} of training time ({stats.total_wait_sec:.1f} s): {verdict}"


def _advice(options) -> str:
    """What to try, leaving out the knobs this loader already uses (its PipelineOptions)."""
    tries = []
    if not getattr(options, "prefetch", 0):
        tries.append("data.prefetch=2")
    workers = getattr(options, "workers", 0)
    tries.append(f"more workers than data.workers={workers}" if workers else "data.workers=N")
    if getattr(options, "cache", "none") != "memory":
        tries.append("data.cache=memory")
    if getattr(options, "pool_size", -1) != 0:  # 0: no pool to shrink
        tries.append("a smaller data.pool_size")
    return f"try {', '.join(tries)}, or a faster reader (docs/data.md)"


def save_text_artifacts(model, dataset, tracker, folder: str) -> None:
    """For a CBOW run on text: log vocab.txt and neighbours.txt (nearest words by cosine)."""
    # Lazy: only word2vec runs need it, and it keeps runner.train's import free of runner.build.
    from runner.build import sequence_data, sequence_models  # noqa: PLC0415

    path = sequence_data.save_vocabulary(dataset, folder)
    if path is None:
        return
    tracker.log_artifact(path)
    if not isinstance(model, sequence_models.CBOW):
        return
    vocab = dataset.vocab
    text = sequence_models.nearest_neighbours(model, vocab,
                                              sequence_models.frequent_words(vocab))
    from core.atomic import atomic_write  # noqa: PLC0415

    neighbours = os.path.join(folder, "neighbours.txt")
    with atomic_write(neighbours, "w", encoding="utf-8") as handle:
        handle.write(text)
    tracker.log_artifact(neighbours)
    log.info("nearest neighbours:\n%s", text.rstrip())
