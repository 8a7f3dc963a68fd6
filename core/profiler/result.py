"""``ProfilerResult``: the events of one recorded period, as ``Profiler.stop`` (or
``load_profiler_result``) gives them: summary tables and Chrome trace export."""
from __future__ import annotations

from core.profiler import chrome
from core.profiler.summary import SortedKeys, build_table


class ProfilerResult:
    """The ranges recorded in one profiling period (Paddle's ``_ProfilerResult``)."""

    def __init__(self, events: list[tuple]):
        self._events = list(events)

    def get_data(self) -> list[tuple]:
        """The events: ``(type name, name, start_ns, end_ns, thread id)`` tuples."""
        return list(self._events)

    def save(self, path: str, format: str = "json") -> None:  # noqa: A002 - Paddle's name
        """Write the events to ``path`` as a Chrome trace (``format='json'``, the only one
        core writes)."""
        if format != "json":
            raise ValueError(f"save: format must be 'json' (a Chrome trace); got {format!r} "
                             "(core does not write Paddle's protobuf traces)")
        chrome.write_trace(path, self._events)

    def table(self, sorted_by=SortedKeys.CPUTotal, thread_sep: bool = False,
              time_unit: str = "ms", views=None) -> str:
        """The summary tables as text (what ``summary`` prints)."""
        return build_table(self._events, sorted_by, thread_sep, time_unit, views)

    def summary(self, sorted_by=SortedKeys.CPUTotal, op_detail: bool = True,
                thread_sep: bool = False, time_unit: str = "ms", views=None) -> None:
        """Print the summary tables (``Profiler.summary``'s arguments; ``op_detail`` is
        accepted and has no effect: core records no operators)."""
        del op_detail
        print(self.table(sorted_by, thread_sep, time_unit, views))


def load_profiler_result(filename: str) -> ProfilerResult:
    """Paddle's ``paddle.profiler.load_profiler_result(filename)``: the result saved by
    ``export_chrome_tracing`` (or ``Profiler.export``), whose ``summary()`` prints the tables
    again. Paddle reads its protobuf files; core reads its Chrome trace JSON."""
    if not isinstance(filename, str) or not filename:
        raise TypeError(f"load_profiler_result: filename must be a path (str), got "
                        f"{filename!r}")
    return ProfilerResult(chrome.read_trace(filename))
