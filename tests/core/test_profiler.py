"""core.profiler: Paddle's paddle.profiler (schedulers, RecordEvent, the ranges core's layers,
backward, optimizers and DataLoader report, summary tables, Chrome traces, step_info)."""
from __future__ import annotations

import json
import re
import threading

import numpy as np
import pytest

import core
import core.profiler as profiler
from core import nn
from core.nn import functional as F
from core.profiler import recorder
from core.tensor import Tensor

S = profiler.ProfilerState


class MLP(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.act = nn.ReLU()
        self.block = nn.Sequential(nn.Linear(16, 16), nn.Tanh())
        self.fc2 = nn.Linear(16, 3)

    def forward(self, x):
        return self.fc2(self.block(self.act(self.fc1(x))))


def _loader(batches: int = 6, batch_size: int = 4):
    rng = np.random.default_rng(0)
    data = core.io.TensorDataset([rng.random((batches * batch_size, 8)).astype("float32"),
                                  rng.integers(0, 3, batches * batch_size).astype("int64")])
    return core.io.DataLoader(data, batch_size=batch_size)


def _train(prof, loader, model=None, user_event: str | None = None):
    """A small training loop, profiled: prof.step after each batch."""
    model = model or MLP()
    opt = core.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())
    for x, y in loader:
        if user_event:
            with profiler.RecordEvent(user_event):
                loss = F.cross_entropy(model(x), core.to_tensor(y))
        else:
            loss = F.cross_entropy(model(x), core.to_tensor(y))
        loss.backward()
        opt.step()
        opt.clear_grad()
        prof.step(num_samples=len(x))
    return model


def _states(scheduler, n):
    return [scheduler(step) for step in range(n)]


@pytest.fixture(autouse=True)
def _no_profiler_left():
    yield
    assert not recorder.ACTIVE and not recorder.RECORDING
    assert not hasattr(Tensor.backward, "_profiler_original")


# ----- schedulers -----------------------------------------------------------------------------
def test_make_scheduler_follows_paddles_documented_sequences():
    # Paddle's example 1: batch 0 closed, 1 ready, [2, 5] record, then closed
    assert _states(profiler.make_scheduler(closed=1, ready=1, record=4, repeat=1), 8) == [
        S.CLOSED, S.READY, S.RECORD, S.RECORD, S.RECORD, S.RECORD_AND_RETURN, S.CLOSED,
        S.CLOSED]
    # example 2: batch 0 skipped, 1 closed, 2 ready, [3, 6] record, repeated for ever
    got = _states(profiler.make_scheduler(closed=1, ready=1, record=4, skip_first=1), 14)
    assert got == [S.CLOSED, S.CLOSED, S.READY, S.RECORD, S.RECORD, S.RECORD,
                   S.RECORD_AND_RETURN, S.CLOSED, S.READY, S.RECORD, S.RECORD, S.RECORD,
                   S.RECORD_AND_RETURN, S.CLOSED]


def test_tuple_scheduler_records_start_to_end_with_a_ready_step_before():
    prof = profiler.Profiler(scheduler=(2, 5), on_trace_ready=lambda p: None)
    assert _states(prof.scheduler, 7) == [S.CLOSED, S.READY, S.RECORD, S.RECORD,
                                          S.RECORD_AND_RETURN, S.CLOSED, S.CLOSED]
    with pytest.warns(UserWarning, match="ready=0"):  # as Paddle: no READY step before 0
        prof = profiler.Profiler(scheduler=(0, 3), on_trace_ready=lambda p: None)
    assert _states(prof.scheduler, 4) == [S.RECORD, S.RECORD, S.RECORD_AND_RETURN, S.CLOSED]
    default = profiler.Profiler(on_trace_ready=lambda p: None)
    assert _states(default.scheduler, 3) == [S.RECORD] * 3


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"closed": 1, "ready": 1, "record": 0}, "record must be an int >= 1, got 0"),
    ({"closed": -1, "ready": 1, "record": 2}, "closed must be an int >= 0, got -1"),
    ({"closed": 0, "ready": 1.5, "record": 2}, "ready must be an int >= 0, got 1.5"),
    ({"closed": 0, "ready": 1, "record": 2, "repeat": True}, "repeat must be an int >= 0"),
    ({"closed": 0, "ready": 1, "record": 2, "skip_first": -2}, "skip_first must be"),
])
def test_make_scheduler_rejects_bad_counts(kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        profiler.make_scheduler(**kwargs)


def test_scheduler_rejects_a_negative_step():
    with pytest.raises(ValueError, match="step must be an int >= 0, got -1"):
        profiler.make_scheduler(closed=0, ready=1, record=1)(-1)


@pytest.mark.parametrize("scheduler", [(5, 2), (1, 2, 3), "2:5", (0.5, 3)])
def test_profiler_rejects_a_bad_scheduler(scheduler):
    with pytest.raises(ValueError, match="scheduler must be a callable step -> ProfilerState"):
        profiler.Profiler(scheduler=scheduler, on_trace_ready=lambda p: None)


# ----- arguments ------------------------------------------------------------------------------
@pytest.mark.parametrize(("kwargs", "error", "message"), [
    ({"targets": ["cpu"]}, ValueError, "targets must be ProfilerTarget members"),
    ({"targets": 3}, ValueError, "targets must be ProfilerTarget members"),
    ({"on_trace_ready": 3}, TypeError, "on_trace_ready must be a callable"),
    ({"timer_only": "yes"}, TypeError, "timer_only must be a bool, got 'yes'"),
    ({"record_shapes": True}, ValueError, "record_shapes=True needs operator-level events"),
    ({"profile_memory": True}, ValueError, "profile_memory=True"),
    ({"with_flops": True}, ValueError, "with_flops=True"),
    ({"emit_nvtx": True}, ValueError, "emit_nvtx=True"),
])
def test_profiler_rejects_bad_arguments(kwargs, error, message):
    kwargs.setdefault("on_trace_ready", lambda p: None)
    with pytest.raises(error, match=re.escape(message)):
        profiler.Profiler(**kwargs)


def test_gpu_target_without_a_gpu_warns_and_is_dropped():
    if core.backend.gpu_count() > 0:
        pytest.skip("a GPU is visible: the GPU target is supported here")
    with pytest.warns(UserWarning, match="Profiling ProfilerTarget.GPU is not supported"):
        prof = profiler.Profiler(targets=[profiler.ProfilerTarget.CPU,
                                          profiler.ProfilerTarget.GPU],
                                 on_trace_ready=lambda p: None)
    assert prof.targets == {profiler.ProfilerTarget.CPU}


def test_start_step_stop_misuse_is_refused():
    prof = profiler.Profiler(on_trace_ready=lambda p: None)
    with pytest.raises(RuntimeError, match="Profiler.step: the profiler is not started"):
        prof.step()
    with pytest.raises(RuntimeError, match="Profiler.stop: the profiler is not started"):
        prof.stop()
    prof.start()
    try:
        with pytest.raises(RuntimeError, match="already started"):
            prof.start()
        other = profiler.Profiler(on_trace_ready=lambda p: None)
        with pytest.raises(RuntimeError, match="another core.profiler.Profiler is running"):
            other.start()
        with pytest.raises(ValueError, match="num_samples must be an int >= 0 or None, got -1"):
            prof.step(num_samples=-1)
        with pytest.raises(TypeError, match="unit must be a non-empty str or None, got 3"):
            prof.step_info(unit=3)
    finally:
        prof.stop()


def test_summary_and_export_reject_bad_arguments(tmp_path):
    with profiler.Profiler(on_trace_ready=lambda p: None) as prof:
        prof.step()
    with pytest.raises(ValueError, match=r"time_unit must be one of \['s', 'ms', 'us', 'ns'\]"):
        prof.summary(time_unit="h")
    with pytest.raises(ValueError, match="sorted_by must be a core.profiler.SortedKeys"):
        prof.summary(sorted_by="total")
    with pytest.raises(ValueError, match="views must be a SummaryView"):
        prof.summary(views=[1])
    with pytest.raises(ValueError, match="format must be 'json'"):
        prof.export(str(tmp_path / "t.pb"), format="pb")
    with pytest.raises(ValueError, match="core does not write Paddle's protobuf traces"):
        profiler.export_protobuf(str(tmp_path))
    with pytest.raises(TypeError, match="dir_name must be a folder path, got None"):
        profiler.export_chrome_tracing(None)


def test_record_event_rejects_bad_arguments():
    with pytest.raises(TypeError, match="name must be a non-empty str, got 3"):
        profiler.RecordEvent(3)
    with pytest.raises(TypeError, match="event_type must be a core.profiler.TracerEventType"):
        profiler.RecordEvent("x", event_type="Forward")


def test_load_profiler_result_rejects_what_is_not_a_trace(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("not json")
    with pytest.raises(ValueError, match="is not a readable Chrome trace JSON file"):
        profiler.load_profiler_result(str(bad))
    other = tmp_path / "other.json"
    other.write_text('{"events": []}')
    with pytest.raises(ValueError, match="has no traceEvents list"):
        profiler.load_profiler_result(str(other))
    with pytest.raises(TypeError, match="filename must be a path"):
        profiler.load_profiler_result(None)


# ----- what is recorded -----------------------------------------------------------------------
def test_nothing_is_recorded_without_a_running_profiler():
    original = Tensor.backward
    _train(type("NoProfiler", (), {"step": staticmethod(lambda num_samples=None: None)}),
           _loader(3))
    with profiler.RecordEvent("outside"):
        pass
    assert recorder.take_events() == []
    assert Tensor.backward is original


def test_layer_call_only_tests_a_flag_when_nothing_records(monkeypatch):
    def fail(layer):
        raise AssertionError("open_layer ran without a recording profiler")

    monkeypatch.setattr(recorder, "open_layer", fail)
    model = MLP()
    assert model(np.ones((2, 8), "float32")).shape == [2, 3]
    # a READY step (profiler started, not recording) does not record either
    prof = profiler.Profiler(scheduler=profiler.make_scheduler(closed=0, ready=2, record=1),
                             on_trace_ready=lambda p: None)
    prof.start()
    model(np.ones((2, 8), "float32"))
    with pytest.warns(UserWarning, match="READY state"):
        prof.stop()
    assert prof.profiler_result is None


def test_record_event_ranges_nest():
    @profiler.RecordEvent("decorated")
    def work():
        with profiler.RecordEvent("inner"):
            np.linalg.inv(np.eye(20) * 2)

    with profiler.Profiler(on_trace_ready=lambda p: None) as prof:
        with profiler.RecordEvent("outer"):
            work()
        manual = profiler.RecordEvent("manual", profiler.TracerEventType.UserDefined)
        manual.begin()
        manual.end()
        manual.end()  # nothing open: ignored
    events = {e[1]: e for e in prof.profiler_result.get_data()}
    outer, decorated, inner = events["outer"], events["decorated"], events["inner"]
    assert outer[2] <= decorated[2] <= inner[2] <= inner[3] <= decorated[3] <= outer[3]
    assert events["manual"][0] == "UserDefined"
    assert events["ProfileStep#0"][2] <= outer[2] and outer[3] <= events["ProfileStep#0"][3]


def test_training_loop_rows_count_the_recorded_steps(capsys):
    prof = profiler.Profiler(scheduler=(1, 5), on_trace_ready=lambda p: None)
    prof.start()
    _train(prof, _loader(6), user_event="loss")
    prof.stop()
    events = prof.profiler_result.get_data()
    steps = [e for e in events if e[0] == "ProfileStep"]
    assert [e[1] for e in steps] == ["ProfileStep#1", "ProfileStep#2", "ProfileStep#3",
                                     "ProfileStep#4"]
    for kind in ("Dataloader", "Backward", "Optimization"):
        mine = [e for e in events if e[0] == kind]
        assert len(mine) == 4, kind
        assert all(e[3] > e[2] for e in mine), kind
    assert {e[1] for e in events if e[0] == "Optimization"} == {"Adam.step"}
    forward = [e for e in events if e[0] == "Forward"]
    names = [e[1] for e in forward]
    for name in ("MLP", "fc1", "act", "block", "block.0", "block.1", "fc2"):
        assert names.count(name) == 4, name
    prof.summary(time_unit="us")
    text = capsys.readouterr().out
    assert "Time unit: us" in text
    model_rows = _rows(text, "Model Summary")
    assert [row[0] for row in model_rows] == ["ProfileStep", "Dataloader", "Forward",
                                              "Backward", "Optimization", "Others"]
    totals = {row[0]: float(row[2].split(" / ")[0]) for row in model_rows}
    assert all(row[1] == "4" for row in model_rows if row[0] != "Others")
    assert all(value > 0 for value in totals.values())
    parts = sum(totals[k] for k in ("Dataloader", "Forward", "Backward", "Optimization",
                                    "Others"))
    assert parts == pytest.approx(totals["ProfileStep"], abs=0.05)  # rounding of 5 numbers
    layer_rows = {row[0]: row for row in _rows(text, "Layer Summary")}
    assert layer_rows["MLP"][1] == "4" and layer_rows["block.0"][1] == "4"
    assert float(layer_rows["fc1"][2].split(" / ")[0]) < float(layer_rows["MLP"][2].split(
        " / ")[0])
    assert [row[0] for row in _rows(text, "UserDefined Summary")] == ["loss"]


def _rows(text: str, title: str) -> list[list[str]]:
    """The body rows of the summary table called ``title``, as lists of cells."""
    block = text.split(title, 1)[1].split("\n\n", 1)[0].splitlines()[1:]  # after the title
    rules = [i for i, line in enumerate(block) if line.startswith("---")]
    body = block[rules[1] + 1:rules[2]]
    return [re.split(r"\s{2,}", line.strip()) for line in body]


def test_layers_are_named_by_structured_name_and_time_nests():
    with profiler.Profiler(on_trace_ready=lambda p: None) as prof:
        MLP()(np.ones((2, 8), "float32"))
    forward = [e for e in prof.profiler_result.get_data() if e[0] == "Forward"]
    by_name = {e[1]: e for e in forward}
    assert set(by_name) == {"MLP", "fc1", "act", "block", "block.0", "block.1", "fc2"}
    root, block, inner = by_name["MLP"], by_name["block"], by_name["block.0"]
    assert root[2] <= block[2] <= inner[2] <= inner[3] <= block[3] <= root[3]


def test_schedule_periods_each_reach_on_trace_ready():
    results = []
    prof = profiler.Profiler(
        scheduler=profiler.make_scheduler(closed=1, ready=1, record=2, repeat=2),
        on_trace_ready=lambda p: results.append(p.profiler_result))
    prof.start()
    for _ in range(10):
        core.ones([2, 2])
        prof.step()
    prof.stop()
    assert len(results) == 2
    for result, first in zip(results, (2, 6)):
        steps = [e[1] for e in result.get_data() if e[0] == "ProfileStep"]
        assert steps == [f"ProfileStep#{first}", f"ProfileStep#{first + 1}"]


def test_an_improper_schedule_warns_and_drops_the_period():
    def schedule(step):
        return S.RECORD if step == 0 else S.CLOSED

    seen = []
    prof = profiler.Profiler(scheduler=schedule, on_trace_ready=seen.append)
    prof.start()
    with pytest.warns(UserWarning, match="improper schedule RECORD -> CLOSED"):
        prof.step()
    prof.stop()
    assert seen == [] and prof.profiler_result is None


def test_stop_in_record_state_hands_the_period_over():
    seen = []
    with profiler.Profiler(on_trace_ready=seen.append) as prof:
        prof.step()
    assert seen == [prof]
    assert [e[1] for e in prof.profiler_result.get_data() if e[0] == "ProfileStep"] == [
        "ProfileStep#0", "ProfileStep#1"]


def test_thread_sep_splits_tables_by_thread(capsys):
    def work():
        with profiler.RecordEvent("in_thread"):
            pass

    with profiler.Profiler(on_trace_ready=lambda p: None) as prof:
        with profiler.RecordEvent("in_main"):
            thread = threading.Thread(target=work)
            thread.start()
            thread.join()
    prof.summary(thread_sep=True, views=profiler.SummaryView.UDFView)
    text = capsys.readouterr().out
    assert text.count("UserDefined Summary (thread") == 2
    assert "Model Summary" not in text and "Overview Summary" not in text


def test_summary_views_sorting_and_unobserved_views(capsys):
    with profiler.Profiler(on_trace_ready=lambda p: None) as prof:
        for name, size in (("small", 5), ("large", 300), ("large", 1)):
            with profiler.RecordEvent(name):
                np.linalg.inv(np.eye(size) + 1)
    prof.summary(sorted_by=profiler.SortedKeys.CPUTotal, views=[profiler.SummaryView.UDFView])
    assert [r[0] for r in _rows(capsys.readouterr().out, "UserDefined Summary")] == [
        "large", "small"]
    prof.summary(sorted_by=profiler.SortedKeys.CPUMin, views=[profiler.SummaryView.UDFView])
    by_min = [r[0] for r in _rows(capsys.readouterr().out, "UserDefined Summary")]
    events = prof.profiler_result.get_data()
    mins = {n: min(e[3] - e[2] for e in events if e[1] == n) for n in ("small", "large")}
    assert by_min == sorted(mins, key=mins.get)
    prof.summary(views=[profiler.SummaryView.OperatorView, profiler.SummaryView.OverView])
    text = capsys.readouterr().out
    assert "OperatorView: core does not observe this" in text and "Overview Summary" in text


# ----- exports --------------------------------------------------------------------------------
def test_chrome_trace_is_valid_and_nested(tmp_path):
    with pytest.warns(UserWarning, match="ready=0"):
        prof = profiler.Profiler(
            scheduler=(0, 3),
            on_trace_ready=profiler.export_chrome_tracing(str(tmp_path / "log"), "w"))
    prof.start()
    _train(prof, _loader(4))
    prof.stop()
    files = list((tmp_path / "log").glob("w_time_*.paddle_trace.json"))
    assert len(files) == 1
    with open(files[0], encoding="utf-8") as handle:
        trace = json.load(handle)
    items = trace["traceEvents"]
    assert items
    for item in items:
        assert {"name", "ph", "ts", "dur", "pid", "tid", "cat"} <= set(item)
        assert item["ph"] == "X" and item["dur"] >= 0
    steps = [i for i in items if i["cat"] == "ProfileStep"]
    assert len(steps) == 3
    for item in items:  # each range lies inside its step, and layers inside the model
        if item["cat"] == "ProfileStep":
            continue
        assert any(s["ts"] <= item["ts"] and item["ts"] + item["dur"] <= s["ts"] + s["dur"]
                   + 1e-3 for s in steps), item
    roots = [i for i in items if i["name"] == "MLP"]
    for item in (i for i in items if i["name"] == "fc1"):
        assert any(r["ts"] <= item["ts"] and item["ts"] + item["dur"] <= r["ts"] + r["dur"]
                   + 1e-3 for r in roots)


def test_load_profiler_result_round_trip(tmp_path, capsys):
    prof = profiler.Profiler(on_trace_ready=lambda p: None)
    prof.start()
    _train(prof, _loader(3), user_event="loss")
    prof.stop()
    path = tmp_path / "trace.json"
    prof.export(str(path))
    loaded = profiler.load_profiler_result(str(path))
    assert sorted(loaded.get_data()) == sorted(prof.profiler_result.get_data())
    prof.summary()
    first = capsys.readouterr().out
    loaded.summary()
    assert capsys.readouterr().out == first
    assert loaded.table(time_unit="ns").splitlines()[2] == "Time unit: ns"
    again = tmp_path / "again.json"
    loaded.save(str(again))
    assert profiler.load_profiler_result(str(again)).get_data() == loaded.get_data()
    with pytest.raises(ValueError, match="save: format must be 'json'"):
        loaded.save(str(again), format="pb")


def test_default_on_trace_ready_writes_to_profiler_log(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with profiler.Profiler() as prof:
        prof.step()
    assert len(list((tmp_path / "profiler_log").glob("*.paddle_trace.json"))) == 1


# ----- step timer -----------------------------------------------------------------------------
def test_step_info_gives_paddles_string():
    prof = profiler.Profiler(timer_only=True, on_trace_ready=lambda p: None)
    prof.start()
    _train(prof, _loader(3))
    info = prof.step_info(unit="images")
    assert re.fullmatch(r" reader_cost: \d+\.\d{5} s batch_cost: \d+\.\d{5} s "
                        r"ips: \d+\.\d{3} images/s", info), info
    prof.step()  # no num_samples: steps per second, and no reader this time
    assert re.fullmatch(r" batch_cost: \d+\.\d{5} s ips: \d+\.\d{3} steps/s", prof.step_info())
    prof.stop()
    assert prof.profiler_result is None  # timer_only records nothing


def test_timer_only_records_nothing_and_prints_the_perf_summary(capsys):
    prof = profiler.Profiler(timer_only=True, on_trace_ready=lambda p: None)
    prof.start()
    assert not recorder.RECORDING
    _train(prof, _loader(12, batch_size=2))
    prof.stop()
    out = capsys.readouterr().out
    assert "Perf Summary" in out and "Time Unit: s, IPS Unit: samples/s" in out
    assert re.search(r"\|\s+reader_cost\s+\|", out) and re.search(r"\|\s+ips\s+\|", out)
    assert recorder.take_events() == []


def test_a_loader_left_early_is_closed():
    loader = _loader(6)
    with profiler.Profiler(on_trace_ready=lambda p: None) as prof:
        batches = iter(loader)
        next(batches)
        batches.close()
        assert len(list(loader)) == 6  # the next pass starts afresh
    assert len([e for e in prof.profiler_result.get_data() if e[0] == "Dataloader"]) == 7


def test_summary_without_a_recorded_period_says_why(capsys):
    """Paddle's summary() prints nothing then; core also warns, naming what is missing."""
    prof = profiler.Profiler(on_trace_ready=lambda p: None)
    with pytest.warns(UserWarning, match=r"summary: nothing to summarise, this profiler was "
                                         r"never started: call start\(\)"):
        prof.summary()
    late = profiler.Profiler(scheduler=(5, 7), on_trace_ready=lambda p: None)
    late.start()
    late.step()
    with pytest.warns(UserWarning, match=r"no recording period has finished yet.*stop\(\)"):
        late.summary()
    late.stop()
    with pytest.warns(UserWarning, match=r"scheduler never reached a RECORD state in the 2 "
                                         r"steps run"):
        late.summary()
    with pytest.warns(UserWarning, match="timer_only=True, which records no events"):
        profiler.Profiler(timer_only=True, on_trace_ready=lambda p: None).summary()
    assert capsys.readouterr().out == ""
