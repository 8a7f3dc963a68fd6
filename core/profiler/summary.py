"""The summary tables ``Profiler.summary`` prints, built from recorded events (Paddle's
``profiler_statistic._build_table``, for what core records).

- Overview Summary: per event type, the calls and the time covered (overlapping ranges of a
  type counted once), as a share of the recorded steps' time.
- Model Summary: ProfileStep, then Dataloader / Forward / Backward / Optimization (outermost
  ranges of each: a layer inside a layer is not counted twice) and Others, the steps' time
  that none of them covers, with total / avg / max / min / ratio.
- Layer Summary (with the model view): every layer's forward by structured name.
- UserDefined Summary: ``RecordEvent`` ranges by name.

Times are host wall-clock times (with a GPU target, taken after synchronising the GPU).
"""
from __future__ import annotations

from collections import defaultdict
from enum import Enum

from core.profiler.recorder import TracerEventType


class SortedKeys(Enum):
    """Paddle's ``SortedKeys``: how the Layer and UserDefined rows are ordered (Total, Avg,
    Max: largest first; Min: smallest first). core measures one time per range, so the GPU
    keys order by it too."""

    CPUTotal = 0
    CPUAvg = 1
    CPUMax = 2
    CPUMin = 3
    GPUTotal = 4
    GPUAvg = 5
    GPUMax = 6
    GPUMin = 7


class SummaryView(Enum):
    """Paddle's ``SummaryView``. core prints OverView, ModelView (with its Layer Summary) and
    UDFView; the device, distributed, kernel, operator and memory views have nothing core can
    observe, and asking for them prints a line saying so."""

    DeviceView = 0
    OverView = 1
    ModelView = 2
    DistributedView = 3
    KernelView = 4
    OperatorView = 5
    MemoryView = 6
    MemoryManipulationView = 7
    UDFView = 8


TIME_UNITS = {"s": 1e9, "ms": 1e6, "us": 1e3, "ns": 1.0}
_STEP = TracerEventType.ProfileStep.name
_PARTS = [TracerEventType.Dataloader.name, TracerEventType.Forward.name,
          TracerEventType.Backward.name, TracerEventType.Optimization.name]
_USER = (TracerEventType.UserDefined.name, TracerEventType.PythonUserDefined.name)
_SHOWN = (SummaryView.OverView, SummaryView.ModelView, SummaryView.UDFView)


def check_options(sorted_by, time_unit, views) -> list[SummaryView]:
    """The views to print, after checking ``summary``'s arguments."""
    if not isinstance(sorted_by, SortedKeys):
        raise ValueError(f"summary: sorted_by must be a core.profiler.SortedKeys member, got "
                         f"{sorted_by!r}")
    if time_unit not in TIME_UNITS:
        raise ValueError(f"summary: time_unit must be one of {list(TIME_UNITS)}, got "
                         f"{time_unit!r}")
    if views is None:
        return list(_SHOWN)
    listed = [views] if isinstance(views, SummaryView) else views
    if not isinstance(listed, (list, tuple)) or not all(isinstance(v, SummaryView)
                                                        for v in listed):
        raise ValueError(f"summary: views must be a SummaryView, a list of them or None, got "
                         f"{views!r}")
    return list(listed)


def build_table(events: list[tuple], sorted_by=SortedKeys.CPUTotal, thread_sep: bool = False,
                time_unit: str = "ms", views=None) -> str:
    """The summary text of ``events`` ((kind, name, start_ns, end_ns, tid) tuples)."""
    chosen = check_options(sorted_by, time_unit, views)
    scale = TIME_UNITS[time_unit]
    steps = [e for e in events if e[0] == _STEP]
    step_total = sum(e[3] - e[2] for e in steps)
    parts = []
    if SummaryView.OverView in chosen:
        parts.append(_overview(events, steps, step_total, scale, time_unit))
    if SummaryView.ModelView in chosen:
        parts.append(_model(events, steps, step_total, scale, time_unit))
        parts.extend(_by_name("Layer Summary", [e for e in events
                                                if e[0] == TracerEventType.Forward.name],
                              step_total, scale, time_unit, sorted_by, thread_sep))
    if SummaryView.UDFView in chosen:
        parts.extend(_by_name("UserDefined Summary", [e for e in events if e[0] in _USER],
                              step_total, scale, time_unit, sorted_by, thread_sep))
    for view in chosen:
        if view not in _SHOWN:
            parts.append(f"{view.name}: core does not observe this (no operator, kernel, "
                         "memory or communication events; see docs/paddle.md).")
    return "\n\n".join(part for part in parts if part)


# ----- the views ----------------------------------------------------------------------------
def _overview(events, steps, step_total, scale, unit) -> str:
    lines = [f"Steps: {len(steps)}    Average step time: "
             f"{_num(step_total / len(steps) / scale) if steps else '-'} {unit}"]
    rows = [("Event Type", "Calls", "CPU Time", "Ratio (%)"),
            (_STEP, str(len(steps)), _num(step_total / scale), _ratio(step_total, step_total))]
    kinds = sorted({e[0] for e in events if e[0] != _STEP},
                   key=lambda k: TracerEventType[k].value)
    for kind in kinds:
        mine = [e for e in events if e[0] == kind]
        covered = _covered(mine)
        rows.append((f"  {kind}", str(len(mine)), _num(covered / scale),
                     _ratio(covered, step_total)))
    return _table("Overview Summary", unit, rows, lines)


def _model(events, steps, step_total, scale, unit) -> str:
    rows = [("Name", "Calls", "CPU Total / Avg / Max / Min / Ratio(%)"),
            (_STEP, str(len(steps)), _stats([e[3] - e[2] for e in steps], step_total, step_total,
                                             scale))]
    covering = []
    for kind in _PARTS:
        outer = _outermost([e for e in events if e[0] == kind])
        covering.extend(outer)
        rows.append((f"  {kind}", str(len(outer)),
                     _stats([e[3] - e[2] for e in outer], _covered(outer), step_total, scale)))
    others = [(e[3] - e[2]) - _covered(_clipped(covering, e)) for e in steps]
    rows.append(("  Others", "-", _stats(others, sum(others), step_total, scale)))
    return _table("Model Summary", unit, rows)


def _by_name(title, events, step_total, scale, unit, sorted_by, thread_sep) -> list[str]:
    if not events:
        return []
    groups = defaultdict(list)
    for kind, name, start, stop, tid in events:
        del kind
        groups[tid if thread_sep else None].append((name, stop - start))
    tables = []
    for tid, items in groups.items():
        durations = defaultdict(list)
        for name, duration in items:
            durations[name].append(duration)
        names = sorted(durations, key=lambda n: _sort_key(durations[n], sorted_by))
        rows = [("Name", "Calls", "CPU Total / Avg / Max / Min / Ratio(%)")]
        rows += [(name, str(len(durations[name])),
                  _stats(durations[name], sum(durations[name]), step_total, scale))
                 for name in names]
        heading = title if tid is None else f"{title} (thread {tid})"
        tables.append(_table(heading, unit, rows))
    return tables


# ----- helpers ------------------------------------------------------------------------------
def _sort_key(durations: list, sorted_by: SortedKeys) -> float:
    measure = sorted_by.name[3:]  # Total, Avg, Max, Min
    value = {"Total": sum(durations), "Avg": sum(durations) / len(durations),
             "Max": max(durations), "Min": min(durations)}[measure]
    return value if measure == "Min" else -value


def _outermost(events: list) -> list:
    """The ranges not inside another range of the list on the same thread."""
    kept, reach = [], {}
    for event in sorted(events, key=lambda e: (e[4], e[2], -e[3])):
        reached = reach.get(event[4], -1)
        if event[2] < reached and event[3] <= reached:
            continue
        kept.append(event)
        reach[event[4]] = max(reach.get(event[4], -1), event[3])
    return kept


def _covered(events: list) -> int:
    """Nanoseconds covered by the union of the ranges (all threads merged)."""
    total, reach = 0, None
    for _, _, start, stop, _ in sorted(events, key=lambda e: e[2]):
        if reach is None or start > reach:
            total += stop - start
            reach = stop
        elif stop > reach:
            total += stop - reach
            reach = stop
    return total


def _clipped(events: list, step: tuple) -> list:
    """``events`` cut to the time of ``step``."""
    return [(k, n, max(s, step[2]), min(t, step[3]), tid) for k, n, s, t, tid in events
            if s < step[3] and t > step[2]]


def _stats(durations: list, total: float, step_total: float, scale: float) -> str:
    if not durations:
        return "0.00 / - / - / - / 0.00"
    return (f"{_num(total / scale)} / {_num(sum(durations) / len(durations) / scale)} / "
            f"{_num(max(durations) / scale)} / {_num(min(durations) / scale)} / "
            f"{_ratio(total, step_total)}")


def _num(value: float) -> str:
    return f"{value:.2f}"


def _ratio(part: float, whole: float) -> str:
    return f"{part / whole * 100:.2f}" if whole else "0.00"


def _table(title: str, unit: str, rows: list, before: list | None = None) -> str:
    widths = [max(len(row[i]) for row in rows) + 2 for i in range(len(rows[0]))]
    rule = "  ".join("-" * w for w in widths)
    width = len(rule)

    def line(row):
        return "  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip()

    out = [title.center(width, "-"), *(before or []), f"Time unit: {unit}", rule, line(rows[0]),
           rule, *(line(row) for row in rows[1:]), rule]
    return "\n".join(out)
