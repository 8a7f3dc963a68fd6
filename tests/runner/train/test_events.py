"""The Trainer's events: order, what each one exposes, and stopping from a handler."""
import numpy as np
import pytest

import core
from runner import build
from runner.config import schema
from runner.config.options import load_option
from runner.train.events import BeginIteration, BeginPass, EndForwardBackward, EndIteration, EndPass
from runner.train.loop import Trainer

CFG = schema.TrainerConfig(epochs=2, batch_size=64, log_every=1000, progress=False)


@pytest.fixture(scope="module")
def loaders():
    data = build.build_data(schema.DataConfig(), seed=0)
    return build.build_loaders(data, schema.DataConfig(), CFG)


def _trainer(cfg=CFG):
    core.seed(0)
    model = build.build_model(load_option("model", "mlp", "hidden=[16]"), (1, 8, 8), 10)
    opt = build.build_optimizer(schema.AdamConfig(), model.parameters(), 0.01)
    return Trainer(model, opt, cfg)


def test_events_come_in_paddle_order(loaders):
    trainer, seen = _trainer(), []
    for kind in (BeginPass, EndPass, BeginIteration, EndForwardBackward, EndIteration):
        trainer.on(kind, lambda event: seen.append((type(event).__name__, event.pass_id,
                                                    event.batch_id)))
    trainer.fit(loaders[0], loaders[1])
    batches = len(loaders[0])
    assert len(seen) == 2 * (2 + 3 * batches)
    assert seen[0] == ("BeginPass", 0, None)
    assert seen[1:4] == [("BeginIteration", 0, 0), ("EndForwardBackward", 0, 0),
                         ("EndIteration", 0, 0)]
    assert seen[3 * batches + 1] == ("EndPass", 0, None)
    assert seen[-1] == ("EndPass", 1, None)


def test_gradients_are_complete_at_end_forward_backward_and_used_by_the_update(loaders):
    trainer, checks = _trainer(), []

    def before_update(event):
        weight = event.model.parameters()[0]
        checks.append((weight.grad_data is not None, weight.data.copy()))

    def after_update(event):
        had_grad, before = checks[-1]
        assert had_grad
        assert not np.array_equal(before, event.model.parameters()[0].data)
        assert np.isfinite(event.cost) and event.cost > 0

    trainer.on(EndForwardBackward, before_update)
    trainer.on(EndIteration, after_update)
    trainer.fit(loaders[0])
    assert len(checks) == 2 * len(loaders[0])


def test_a_handler_stops_training_after_the_current_batch(loaders):
    trainer, seen = _trainer(), []
    trainer.on(EndIteration, lambda event: event.batch_id == 3 and event.trainer.stop())
    trainer.on(EndPass, lambda event: seen.append(event.metrics.get("valid/acc")))
    state = trainer.fit(loaders[0], loaders[1])
    assert state.step == 4 and state.epoch == 0
    assert len(seen) == 1 and seen[0] is not None  # validation still ran once


def test_registering_something_that_is_not_an_event_type_is_refused():
    with pytest.raises(ValueError, match="EndIteration"):
        _trainer().on("EndIteration", print)
