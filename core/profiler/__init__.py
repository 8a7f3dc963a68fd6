"""Paddle's ``paddle.profiler``: where the time of a training step goes.

    import core.profiler as profiler

    prof = profiler.Profiler(scheduler=(2, 5),
                             on_trace_ready=profiler.export_chrome_tracing("./log"))
    prof.start()
    for step, (x, y) in enumerate(loader):
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        prof.step(num_samples=len(x))
    prof.stop()
    prof.summary(time_unit="ms")

Modules by concern: ``scheduler`` (states and schedulers), ``recorder`` (the ranges core's
layers, optimizers and data loader report, ``RecordEvent``), ``timer`` (``step_info``),
``summary`` (the tables), ``chrome`` (the trace file), ``result`` (a recorded period),
``profiler`` (``Profiler`` itself). What core records and what it cannot: docs/paddle.md.
"""
import importlib

# Where each public name lives. core.nn.layer, core.optimizer and core.io import ``recorder``
# (the flags their hooks test) at ``import core``; the rest (tables, trace files, the
# Profiler) loads on first use of a name, so that ``import core`` does not pay ~20 ms for it.
_HOMES = {
    "Profiler": "profiler", "ProfilerTarget": "profiler", "export_chrome_tracing": "profiler",
    "export_protobuf": "profiler", "RecordEvent": "recorder", "TracerEventType": "recorder",
    "ProfilerResult": "result", "load_profiler_result": "result", "ProfilerState": "scheduler",
    "make_scheduler": "scheduler", "SortedKeys": "summary", "SummaryView": "summary",
}
__all__ = sorted(_HOMES)


def __getattr__(name: str):
    if name not in _HOMES:
        raise AttributeError(f"module 'core.profiler' has no attribute '{name}'")
    value = getattr(importlib.import_module(f"core.profiler.{_HOMES[name]}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_HOMES))
