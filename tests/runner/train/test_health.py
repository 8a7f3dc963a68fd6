"""runner/train/health.py: NaN/Inf checks in the training loop, their policies and the stop
report."""
import logging
import sys

import numpy as np
import pytest

import core
from core import backend, nn, optimizer
from runner import build
from runner.config import schema
from runner.config.options import load_option
from runner.errors import UserError
from runner.train import events, health
from runner.train.health import NonFiniteError
from runner.train.loop import Trainer
from tests.poison import poison_backward, poison_forward

DATA = schema.DataConfig()


@pytest.fixture(scope="module")
def digits():
    return build.build_data(DATA, 0)


def _trainer(digits, policy="stop", lr=0.1, clip=None, epochs=1, **options):
    core.seed(0)
    options = {"log_every": 5} | options
    cfg = schema.TrainerConfig(epochs=epochs, batch_size=64, progress=False, nan_check=policy,
                               **options)
    loader, _, _ = build.build_loaders(digits, DATA, cfg)
    # flatten -> hidden.0.fc -> hidden.0.act -> hidden.0.drop -> out
    model = build.build_model(load_option("model", "mlp", "hidden=[16]"), digits.input_shape,
                              digits.num_classes)
    opt = optimizer.SGD(lr, parameters=model.parameters(), grad_clip=clip)
    return Trainer(model, opt, cfg), loader


@pytest.fixture
def warnings_logged(monkeypatch):
    """The warnings runner.train.health logs, whatever earlier tests did to logging (an in-process
    Hydra run reconfigures it: loggers disabled, levels raised)."""
    messages = []

    class Keep(logging.Handler):
        def emit(self, record):
            messages.append(record.getMessage())

    handler, level = Keep(level=logging.WARNING), health.log.level
    disabled = logging.root.manager.disable
    monkeypatch.setattr(health.log, "disabled", False)
    logging.disable(logging.NOTSET)
    health.log.setLevel(logging.WARNING)
    health.log.addHandler(handler)
    yield messages
    health.log.removeHandler(handler)
    health.log.setLevel(level)
    logging.disable(disabled)


def _stop(trainer, loader) -> str:
    with pytest.raises(NonFiniteError) as info:
        trainer.fit(loader)
    assert isinstance(info.value, UserError) and "\n" not in str(info.value)
    return info.value.report


def test_a_nan_in_a_layers_forward_stops_with_a_report_naming_it(digits):
    trainer, loader = _trainer(digits, nan_check_locate=True)
    poison_forward(trainer.model["hidden.0.fc"], after=3)
    report = _stop(trainer, loader)
    assert "at epoch 0, batch 3, step 4 (trainer.nan_check=stop)" in report
    assert "First non-finite quantity: the loss (NaN)" in report
    assert "layer 'hidden.0.fc' produced a non-finite output in the forward pass" in report
    assert "Last finite loss: " in report and "at step 3." in report
    assert "Largest gradient norm seen (global L2, before clipping): " in report
    assert "- Turn on gradient clipping: clip=global_norm clip.threshold=" in report
    assert trainer.state.step == 3  # the bad batch was not applied


def test_a_nan_in_a_layers_backward_names_the_gradient_and_the_layer(digits):
    trainer, loader = _trainer(digits, nan_check_locate=True)
    poison_backward(trainer.model.out, after=2)
    report = _stop(trainer, loader)
    assert "First non-finite quantity: the gradient of parameter 'hidden.0.fc.weight'" in report
    assert "layer 'out' received a finite gradient at its output but its backward produced " \
           "a non-finite gradient" in report
    assert "- Check the labels" not in report  # the loss itself was fine


def test_without_locate_the_report_has_no_replay(digits):
    trainer, loader = _trainer(digits)
    poison_forward(trainer.model.out, after=1)
    report = _stop(trainer, loader)
    assert "Located by replaying" not in report and "the loss (NaN)" in report
    assert "- Check the labels" in report  # a sudden NaN from an ordinary loss


def test_skip_drops_bad_updates_and_stops_after_max_skips(digits, warnings_logged):
    trainer, loader = _trainer(digits, policy="skip", max_skips=3)
    poison_forward(trainer.model.out, after=4)  # every call from the 5th on is bad
    report = _stop(trainer, loader)
    assert trainer.state.step == 4 and trainer.health.skipped == 3
    assert "Updates skipped before stopping: 3 (trainer.max_skips=3)" in report
    assert sum("update skipped" in m for m in warnings_logged) == 3


def test_skip_leaves_the_parameters_as_they_were_and_training_goes_on(digits):
    trainer, loader = _trainer(digits, policy="skip", epochs=1)
    bad = {2, 5}
    calls = [0]
    original = trainer.model.out.forward

    def flaky(x):
        calls[0] += 1
        out = original(x)
        return out * float("nan") if calls[0] in bad else out

    trainer.model.out.forward = flaky
    seen, changed = {}, []
    trainer.on(events.EndForwardBackward, lambda e: seen.update(
        batch=e.batch_id, w=e.model.out.weight.numpy().copy()))
    trainer.on(events.BeginIteration, lambda e: "w" in seen and changed.append(
        (seen["batch"], not np.array_equal(seen["w"], e.trainer.model.out.weight.numpy()))))
    trainer.fit(loader)
    assert trainer.health.skipped == 2 and trainer.health.events == 2
    assert [batch for batch, moved in changed if not moved] == [1, 4]  # calls 2 and 5
    assert trainer.state.step == len(loader) - 2
    assert trainer.health.metrics()["health/skipped_steps"] == 2.0
    assert np.isfinite(trainer.model.out.weight.numpy()).all()


def test_warn_goes_on_and_counts(digits, warnings_logged):
    trainer, loader = _trainer(digits, policy="warn")
    poison_forward(trainer.model.out, after=len(loader) - 2)  # the last two batches
    trainer.fit(loader)
    # Two bad steps, and the end-of-epoch check finds the parameters their updates spoiled.
    assert trainer.health.events == 3 and trainer.state.step == len(loader)
    assert sum("going on (trainer.nan_check=warn)" in m for m in warnings_logged) == 3


def test_off_checks_nothing(digits):
    trainer, loader = _trainer(digits, policy="off")
    poison_forward(trainer.model.out, after=len(loader) - 1)
    trainer.fit(loader)
    assert trainer.health.events == 0 and "health/nonfinite_events" not in \
        trainer.health.metrics()


def test_a_parameter_made_non_finite_by_an_update_is_named_with_that_update(digits):
    trainer, loader = _trainer(digits, policy="skip")

    def corrupt(event):
        if event.step == 3:
            event.model["hidden.0.fc"].bias.data[0] = np.inf

    trainer.on(events.EndIteration, corrupt)
    report = _stop(trainer, loader)  # a parameter cannot be skipped: the update is done
    assert "First non-finite quantity: the parameter 'hidden.0.fc.bias' (+Inf in its sum)" in report
    assert "It became non-finite in the update of step 3 (epoch 0, batch 2)" in report


def test_the_last_update_of_an_epoch_is_checked_before_validation(digits):
    trainer, loader = _trainer(digits)

    def corrupt(event):
        if event.batch_id == len(loader) - 1:
            event.model.out.weight.data[0, 0] = np.nan

    trainer.on(events.EndIteration, corrupt)
    report = _stop(trainer, loader)
    assert "the parameter 'out.weight' (NaN in its sum)" in report
    assert f"at epoch 0, batch {len(loader) - 1}, step {len(loader)} " in report
    assert f"in the update of step {len(loader)}" in report


def test_all_checks_of_a_step_cost_one_device_read(digits, monkeypatch):
    from runner.train.loop import Batch  # noqa: PLC0415

    trainer, loader = _trainer(digits, log_every=10_000)
    batches = [Batch(inputs, labels) for inputs, labels in list(loader)[:4]]
    reads = []
    real = backend.to_numpy

    def spy(array):
        reads.append(sys._getframe(1).f_globals["__name__"])
        return real(array)

    monkeypatch.setattr(backend, "to_numpy", spy)
    for index, batch in enumerate(batches):  # forward, loss, backward, checks, update
        trainer.train_step(0, index, batch)
    # The loss's own label-range check reads too (core.nn.functional.loss); the checks of
    # loss, gradients and parameters together read once per step.
    own = [r for r in reads if not r.startswith("core.nn.functional")]
    assert own == ["runner.train.health"] * 4


def test_metrics_report_clipping_and_error_clipping(digits):
    trainer, loader = _trainer(digits, clip=nn.ClipGradByGlobalNorm(1e-3), log_every=10_000)
    trainer.model["hidden.0.fc"].error_clip = 1e-6
    trainer.fit(loader)
    metrics = trainer.health.metrics()
    assert metrics["health/nonfinite_events"] == 0.0
    assert metrics["clip/acted"] == len(loader)  # the tiny threshold acts on every step
    assert metrics["clip/grad_norm_max"] > 1e-3
    assert metrics["error_clip/hidden.0.fc/acted"] == len(loader)


def test_remedies_follow_the_facts(digits):
    trainer, loader = _trainer(digits, clip=nn.ClipGradByValue(5.0))
    trainer.model.out.error_clip = 50.0
    poison_forward(trainer.model.out, after=1)
    report = _stop(trainer, loader)
    assert "Lower the gradient clipping threshold (clip=value clip.threshold=5 now)" in report
    assert "Lower the error clipping thresholds (now on out)" in report
    assert "Normalise the inputs" not in report  # digits are scaled to [0, 1]
    assert "Lower the learning rate: it is 0.1; try optim.lr=0.01." in report


def test_save_report_writes_the_file_and_tags_the_run(tmp_path):
    class Tracker:
        tags, artifacts = {}, []

        def set_tag(self, key, value):
            self.tags[key] = value

        def log_artifact(self, path):
            self.artifacts.append(path)

    tracker = Tracker()
    health.save_report(ValueError("not ours"), tracker, str(tmp_path))
    assert not tracker.tags and not list(tmp_path.iterdir())
    health.save_report(NonFiniteError("line one\nline two\n"), tracker, str(tmp_path))
    assert (tmp_path / health.REPORT_FILE).read_text() == "line one\nline two\n"
    assert tracker.tags == {health.REPORT_TAG: "line one\nline two\n"}
    assert tracker.artifacts == [str(tmp_path / health.REPORT_FILE)]


def test_save_report_names_a_tracked_run_only_when_there_is_one(tmp_path, caplog):
    """With tracking.enabled=false the log line said the report was "in the tracked run (tag
    nan_report)": there is no run."""
    from runner.track.tracking import NullTracker  # noqa: PLC0415

    with caplog.at_level(logging.INFO, logger="runner.train.health"):
        health.save_report(NonFiniteError("report\n"), NullTracker(), str(tmp_path))
    assert caplog.messages == [f"the NaN/Inf report is in {tmp_path / health.REPORT_FILE}"]
    tracker = NullTracker()
    tracker.run_id = "0123"  # as an MLflow run's tracker has one
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="runner.train.health"):
        health.save_report(NonFiniteError("report\n"), tracker, str(tmp_path))
    assert caplog.messages[0].endswith(" and in the tracked run (tag nan_report)")


def test_nan_in_the_data_is_blamed_on_the_data(digits):
    from runner.train.loop import Batch  # noqa: PLC0415

    trainer, loader = _trainer(digits, nan_check_locate=True)
    report = ""
    for index, (inputs, labels) in enumerate(loader):
        if index == 2:
            poisoned = inputs.numpy().copy()  # a copy: the dataset's arrays stay clean
            poisoned[0, 0, 0, 0] = np.nan
            inputs = core.to_tensor(poisoned)
        try:
            with health.quiet_floating_point():
                trainer.train_step(0, index, Batch(inputs, labels))
        except NonFiniteError as exc:
            report = exc.report
            break
    assert "Located by replaying the batch: the input batch itself contains NaN" in report
    assert "- The input batch contains NaN or Inf values: check the data" in report
    assert "Normalise the inputs" not in report


# ----- row-sparse gradients (Embedding(sparse=True)) ------------------------------------------

class _Bag(nn.Layer):
    """Embedding(sparse=True) -> sum over the sequence -> Linear."""

    def __init__(self, vocab=50, dim=4):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim, sparse=True)
        self.out = nn.Linear(dim, 3)

    def forward(self, ids):
        return self.out(self.emb(ids).sum(axis=1))


IDS = np.array([[3, 7, 3], [7, 11, 3]])  # rows 3 and 7 repeat: stored duplicates


def _bag_step(monkeypatch, poison_entry=None):
    """One train_step of _Bag with densifying a RowSparseGrad made an error; the value at
    entry ``poison_entry`` of the stored rows is set to NaN before the check; ``seen["reads"]``
    lists the modules reading the device from the check on."""
    from core.row_sparse import RowSparseGrad  # noqa: PLC0415
    from runner.train.loop import Batch  # noqa: PLC0415

    core.seed(0)
    model = _Bag()
    cfg = schema.TrainerConfig(epochs=1, batch_size=2, progress=False)
    trainer = Trainer(model, optimizer.SGD(0.1, parameters=model.parameters()), cfg)
    seen = {}

    def before_check(event):
        grad = event.model.emb.weight.grad_data
        assert isinstance(grad, RowSparseGrad) and len(grad.rows) == IDS.size
        if "w" in seen:  # only the first step is watched
            return
        seen["dense_norm"] = float(np.sqrt((grad.to_dense().astype(np.float64) ** 2).sum()
                                           + (event.model.out.weight.grad_data.astype(
                                               np.float64) ** 2).sum()
                                           + (event.model.out.bias.grad_data.astype(
                                               np.float64) ** 2).sum()))
        if poison_entry is not None:
            grad.values[poison_entry, 1] = np.nan
        seen["w"] = event.model.emb.weight.numpy().copy()

        def refuse(*_, **__):
            raise AssertionError("the NaN/Inf check densified a row-sparse gradient")

        monkeypatch.setattr(RowSparseGrad, "to_dense", refuse)
        monkeypatch.setattr(RowSparseGrad, "__array__", refuse)
        real = backend.to_numpy

        def spy(array):
            seen["reads"].append(sys._getframe(1).f_globals["__name__"])
            return real(array)

        monkeypatch.setattr(backend, "to_numpy", spy)

    seen["reads"] = []
    trainer.on(events.EndForwardBackward, before_check)
    batch = Batch(core.to_tensor(IDS), core.to_tensor(np.array([0, 2])))
    return trainer, batch, seen


def test_a_nan_in_one_stored_row_of_a_sparse_gradient_is_named_without_densifying(
        monkeypatch):
    trainer, batch, seen = _bag_step(monkeypatch, poison_entry=5)  # a repeat of row 3
    with pytest.raises(NonFiniteError) as info:
        trainer.train_step(0, 0, batch)
    assert "First non-finite quantity: the gradient of parameter 'emb.weight' (NaN in its " \
           "squared norm)" in info.value.report
    assert trainer.state.step == 0 and np.array_equal(seen["w"], trainer.model.emb.weight.numpy())


def test_a_finite_sparse_gradient_passes_with_the_dense_norm_in_one_read(monkeypatch):
    trainer, batch, seen = _bag_step(monkeypatch)
    assert trainer.train_step(0, 0, batch) is not None and trainer.state.step == 1
    assert seen["reads"] == ["runner.train.health"]  # the check, then a lazy SGD update: no read
    # Repeated rows are summed before squaring, as in the dense gradient.
    assert trainer.health.max_norm[0] == pytest.approx(seen["dense_norm"], rel=1e-6)


def test_the_check_allocates_nothing_of_a_large_tables_size():
    import tracemalloc  # noqa: PLC0415

    from runner.train.loop import Batch  # noqa: PLC0415

    core.seed(0)
    model = _Bag(vocab=200_000, dim=64)  # a dense gradient would be 51 MB (float32)
    opt = optimizer.SGD(0.1, parameters=model.parameters())
    monitor = health.HealthMonitor(model, opt, schema.TrainerConfig(progress=False), None)
    ids = np.random.default_rng(0).integers(0, 200_000, (100, 4))
    batch = Batch(core.to_tensor(ids), None)
    batch.loss = (model(batch.inputs) ** 2).mean()
    batch.loss.backward()
    tracemalloc.start()
    try:
        assert monitor.check(0, 0, batch, 0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 200_000 * 64 * 4 // 20, peak  # < 5% of one table: the stored rows only


def test_after_a_sparse_update_the_step_check_reads_the_rows_it_changed(monkeypatch):
    trainer, batch, _ = _bag_step(monkeypatch)
    # Row 7 is one the batch touched: as if the update of that row had overflowed.
    trainer.on(events.EndIteration,
               lambda event: event.model.emb.weight.data.__setitem__((7, 0), np.inf))
    trainer.train_step(0, 0, batch)
    with pytest.raises(NonFiniteError, match=r"the parameter 'emb.weight' \(\+Inf in its sum"), \
            health.quiet_floating_point():
        trainer.train_step(0, 1, batch)  # the next step's check


def test_a_sparse_table_written_outside_its_update_is_caught_by_the_full_check(monkeypatch):
    trainer, batch, _ = _bag_step(monkeypatch)
    trainer.on(events.EndIteration,
               lambda event: event.model.emb.weight.data.__setitem__((40, 0), np.nan))
    trainer.train_step(0, 0, batch)
    assert trainer.train_step(0, 1, batch) is not None  # row 40 is not one the update changed
    with pytest.raises(NonFiniteError, match="the parameter 'emb.weight' \\(NaN in its sum\\)"):
        trainer.health.check_parameters(trainer.state.step)  # epoch end, before a checkpoint


def test_the_report_says_how_to_locate_and_suggests_a_global_norm_threshold(digits):
    """Without nan_check_locate the report named no layer and did not say how to get one; with
    clip=global_norm already on it advised 'or use clip=global_norm' and no threshold."""
    trainer, loader = _trainer(digits, clip=nn.ClipGradByGlobalNorm(1e30))
    poison_forward(trainer.model.out, after=1)
    report = _stop(trainer, loader)
    assert "run again with trainer.nan_check_locate=true" in report
    assert ("Lower the gradient clipping threshold (clip=global_norm clip.threshold=1e+30 now): "
            "try clip.threshold=") in report
    assert "or use clip=global_norm" not in report
    trainer, loader = _trainer(digits, nan_check_locate=True)
    poison_forward(trainer.model.out, after=1)
    report = _stop(trainer, loader)
    assert "Located by replaying the batch" in report and "nan_check_locate=true" not in report
    assert "Turn on gradient clipping: clip=global_norm clip.threshold=" in report
