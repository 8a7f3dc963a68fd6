"""runner.train.monitor and the Trainer: the best validation value, early stopping, the best
weights, and their state in resumable checkpoints."""
import logging

import numpy as np
import pytest

import core
import runner.train.loop
from runner import build
from runner.config import schema
from runner.config.options import load_option
from runner.train import checkpoint
from runner.train.events import EndIteration, EndPass
from runner.train.loop import Trainer
from runner.train.monitor import Monitor, resolve_direction, weights
from tests.runner.sinks import ClockFreeSink

DATA = schema.DataConfig()
ACC = [0.50, 0.70, 0.69, 0.70, 0.71, 0.60, 0.65, 0.70, 0.90, 0.95, 0.99, 0.99]


@pytest.fixture(scope="module")
def digits():
    return build.build_data(DATA, seed=0)


def _loaders(digits):
    """Fresh loaders: a loader's shuffle goes on from pass to pass."""
    return build.build_loaders(digits, DATA, schema.TrainerConfig(batch_size=256))[:2]


@pytest.fixture
def scripted(monkeypatch):
    """Validation returns ACC[epoch] as valid/acc and 1 - ACC[epoch] as valid/loss."""
    current = {}

    def evaluate(model, loader):
        del model, loader
        acc = ACC[current["trainer"].state.epoch]
        return 1.0 - acc, acc

    monkeypatch.setattr(runner.train.loop, "evaluate", evaluate)
    return current


def _trainer(current, seed=0, **options):
    core.seed(seed)
    cfg = schema.TrainerConfig(**({"epochs": 12, "progress": False, "log_every": 3} | options))
    model = build.build_model(load_option("model", "mlp", "hidden=[8]"), (1, 8, 8), 10)
    opt = build.build_optimizer(schema.AdamConfig(lr=0.01), model.parameters(), 0.01)
    trainer = Trainer(model, opt, cfg, sink=ClockFreeSink())
    current["trainer"] = trainer
    return trainer


def test_auto_direction_minimizes_losses_and_maximizes_the_rest():
    assert resolve_direction("valid/loss", "auto") == "minimize"
    assert resolve_direction("valid/acc", "auto") == "maximize"
    assert resolve_direction("valid/loss", "maximize") == "maximize"
    with pytest.raises(ValueError, match="'up' is not valid"):
        resolve_direction("valid/acc", "up")


def test_improvement_needs_more_than_delta_and_nan_never_improves():
    monitor = Monitor(None, "valid/loss", patience=2, delta=0.1)
    assert monitor.direction == "minimize"
    assert not monitor.update(0, {"valid/loss": 1.0}) and monitor.best == 1.0
    assert not monitor.update(1, {"valid/loss": 0.95})  # within delta: no improvement
    assert monitor.update(2, {"valid/loss": float("nan")})  # second pass without: stop
    assert (monitor.best, monitor.best_epoch, monitor.stopped_epoch) == (1.0, 0, 2)
    assert monitor.metrics() == {"best/epoch": 0.0, "best/valid/loss": 1.0}
    with pytest.raises(ValueError, match="valid/loss was not reported"):
        monitor.update(3, {"valid/acc": 0.5})


def test_early_stop_fires_at_the_right_epoch(digits, scripted, caplog):
    train, valid = _loaders(digits)
    trainer = _trainer(scripted, early_stop=3)
    ends = []
    trainer.on(EndPass, lambda event: ends.append(event.pass_id))
    with caplog.at_level(logging.INFO, logger="runner.train.monitor"):
        state = trainer.fit(train, valid)
    # best 0.70 at epoch 1, 0.71 at epoch 4; epochs 5, 6, 7 do not beat it
    assert state.epoch == 7 and ends == list(range(8))
    assert trainer.monitor.stopped_epoch == 7 and trainer.monitor.best_epoch == 4
    assert "early stop after epoch 7: valid/acc 0.7 has not improved on 0.71 (epoch 4) for 3 " \
           "passes" in caplog.text
    sink = trainer.sink
    assert sink.series("best/epoch") == [0, 1, 1, 1, 4, 4, 4, 4]
    assert sink.series("best/valid/acc") == [0.5, 0.7, 0.7, 0.7, 0.71, 0.71, 0.71, 0.71]


def test_delta_and_a_minimized_loss(digits, scripted):
    train, valid = _loaders(digits)
    trainer = _trainer(scripted, early_stop=3, early_stop_delta=0.02, objective="valid/loss")
    trainer.fit(train, valid)
    # loss 0.30 at epoch 1; 0.31, 0.30, 0.29 are not 0.02 lower: stop after epoch 4
    assert trainer.monitor.direction == "minimize"
    assert (trainer.state.epoch, trainer.monitor.best_epoch) == (4, 1)


def test_without_early_stop_keep_best_holds_the_best_epochs_weights(digits, scripted):
    train, valid = _loaders(digits)
    trainer = _trainer(scripted, epochs=9, keep_best=True)
    seen = {}
    trainer.on(EndPass, lambda e: seen.update({e.pass_id: {
        k: v.data.copy() for k, v in e.trainer.model.state_dict().items()}}))
    trainer.fit(train, valid)
    assert trainer.state.epoch == 8 and trainer.monitor.best_epoch == 8
    trainer = _trainer(scripted, epochs=8, keep_best=True)
    trainer.fit(*_loaders(digits))
    best = trainer.monitor.best_state
    assert trainer.monitor.best_epoch == 4 and best.keys() == seen[4].keys()
    for key in best:  # the same run up to epoch 7: epoch 4's weights, not the last ones
        assert np.array_equal(best[key], seen[4][key]), key
    assert not np.array_equal(best["out.weight"], trainer.model.out.weight.data)
    with weights(trainer.model, best) as model:
        assert np.array_equal(model.out.weight.data, seen[4]["out.weight"])
    assert np.array_equal(trainer.model.out.weight.data, seen[7]["out.weight"])


def test_a_resumed_run_stops_at_the_same_epoch_with_the_same_best(digits, scripted, tmp_path):
    train, valid = _loaders(digits)
    reference = _trainer(scripted, early_stop=3, keep_best=True)
    reference.fit(train, valid)

    train, valid = _loaders(digits)
    first = _trainer(scripted, early_stop=3, keep_best=True)
    first.checkpointer = checkpoint.Checkpointer(tmp_path, every=4, keep_last=1)
    per_epoch = len(train)
    first.on(EndIteration, lambda e: e.step == 7 * per_epoch - 2 and e.trainer.stop())
    first.fit(train, valid)
    body = checkpoint.load(checkpoint.latest(tmp_path))  # mid-epoch 6, one pass after the best
    assert body["position"]["epoch"] == 6 and body["position"]["batch"] > 0
    assert body["monitor"]["bad_passes"] == 1 and body["monitor"]["best_epoch"] == 4

    train, valid = _loaders(digits)
    second = _trainer(scripted, seed=7, early_stop=3, keep_best=True)
    checkpoint.restore(second, train, body)
    second.fit(train, valid)
    assert second.state.epoch == reference.state.epoch == 7
    assert second.monitor.stopped_epoch == 7 and second.monitor.best_epoch == 4
    for key, value in reference.monitor.best_state.items():
        assert np.array_equal(second.monitor.best_state[key], value), key
    resumed = [p for p in second.sink.points if p[0] > body["position"]["step"]]
    assert resumed == [p for p in reference.sink.points if p[0] > body["position"]["step"]]


def test_old_checkpoints_load_as_fresh_state_and_another_metric_is_refused(digits, scripted):
    train, _ = _loaders(digits)
    trainer = _trainer(scripted, early_stop=2)
    trainer.monitor.update(0, {"valid/acc": 0.5})
    body = checkpoint.capture(trainer, train, 1, 0)
    old = dict(body)
    del old["monitor"]  # what checkpoints saved before early stopping hold
    other = _trainer(scripted, early_stop=2)
    other.monitor.update(0, {"valid/acc": 0.9})
    checkpoint.restore(other, train, old)
    assert (other.monitor.best, other.monitor.best_epoch, other.monitor.bad_passes) == \
        (None, -1, 0)
    checkpoint.restore(other, train, body)
    assert other.monitor.best == 0.5
    by_loss = _trainer(scripted, early_stop=2, objective="valid/loss")
    with pytest.raises(checkpoint.CheckpointError,
                       match="monitored valid/acc .maximize. but this run monitors valid/loss"):
        checkpoint.restore(by_loss, train, body)


def test_monitoring_is_off_by_default(digits):
    train, _ = _loaders(digits)
    assert _trainer({}).monitor is None
    assert checkpoint.capture(_trainer({}), train, 0, 0)["monitor"] is None
