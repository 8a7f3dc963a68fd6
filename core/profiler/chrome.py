"""Recorded events as a Chrome trace (chrome://tracing, Perfetto) and back.

The file is the Trace Event Format's JSON object form: ``{"traceEvents": [...]}`` with one
complete event (``"ph": "X"``) per range, ``ts`` and ``dur`` in microseconds, ``pid`` and
``tid``, ``cat`` the event type (ProfileStep, Forward, ...). ``args`` keeps the exact
nanosecond bounds, so ``load_profiler_result`` gives back the events that were recorded; a
trace from another tool (without them) is read from ``ts`` and ``dur``. Files are written
atomically (core.atomic): a reader never sees half a trace.
"""
from __future__ import annotations

import json
import os

from core.atomic import atomic_write
from core.profiler.recorder import TracerEventType

PRODUCER = "core.profiler"


def write_trace(path: str, events: list[tuple]) -> None:
    """Write ``events`` ((kind, name, start_ns, end_ns, tid) tuples) to ``path``."""
    pid = os.getpid()
    trace = [{"name": name, "cat": kind, "ph": "X", "ts": start / 1e3,
              "dur": (stop - start) / 1e3, "pid": pid, "tid": tid,
              "args": {"start_ns": start, "end_ns": stop}}
             for kind, name, start, stop, tid in sorted(events, key=lambda e: (e[2], -e[3]))]
    document = {"traceEvents": trace, "displayTimeUnit": "ms",
                "otherData": {"producer": PRODUCER}}
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    with atomic_write(path, "w", encoding="utf-8") as handle:
        json.dump(document, handle)


def read_trace(path: str) -> list[tuple]:
    """The complete events of the Chrome trace at ``path`` as recorder tuples (events of
    other phases, and categories core does not know, are skipped)."""
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"load_profiler_result: {path!r} is not a readable Chrome trace JSON "
                         f"file ({exc})") from None
    items = document.get("traceEvents") if isinstance(document, dict) else document
    if not isinstance(items, list):
        raise ValueError(f"load_profiler_result: {path!r} has no traceEvents list: it is not "
                         "a Chrome trace (export_chrome_tracing writes one)")
    known = {t.name for t in TracerEventType}
    events = []
    for item in items:
        if not isinstance(item, dict) or item.get("ph") != "X" or item.get("cat") not in known:
            continue
        args = item.get("args") or {}
        start = args.get("start_ns", round(float(item["ts"]) * 1e3))
        stop = args.get("end_ns", start + round(float(item.get("dur", 0)) * 1e3))
        events.append((item["cat"], str(item.get("name", "")), int(start), int(stop),
                       item.get("tid", 0)))
    return events
