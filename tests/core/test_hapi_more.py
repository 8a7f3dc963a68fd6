"""core.Model (paddle.Model) as a Paddle user drives it, beyond tests/core/test_hapi.py: a
second prepare after amp 'O2', EarlyStopping's count and a monitor the evaluation lacks, and
the ReduceLROnPlateau callback, each against what Paddle's hapi does."""
import warnings

import numpy as np
import pytest

import core
from core import nn
from core.io import TensorDataset


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return self.fc(x)


def _data(n=16, seed=0):
    rng = np.random.default_rng(seed)
    return TensorDataset([rng.random((n, 4)).astype("float32"),
                          rng.integers(0, 3, (n, 1)).astype("int64")])


def _model(lr=0.1, metrics=None, amp_configs=None):
    core.seed(0)
    model = core.Model(Net())
    model.prepare(core.optimizer.SGD(learning_rate=lr, parameters=model.parameters()),
                  nn.CrossEntropyLoss(), metrics, amp_configs=amp_configs)
    return model


# ----- prepare after amp 'O2' -------------------------------------------------------------------

@pytest.mark.parametrize("level", [None, "O1"])
def test_prepare_below_o2_after_o2_warns_that_the_weights_stay_half(level):
    # Paddle's Model.prepare decorates at O2 and never casts back: a later prepare without amp
    # keeps float16 weights, which then train in float16 with no scaler and no master weights.
    model = _model(amp_configs="O2")
    with pytest.warns(UserWarning, match=f"parameters are float16 .* amp level now is "
                                         f"{level or 'O0'}: .* network.float\\(\\) first"):
        model.prepare(core.optimizer.SGD(0.1, parameters=model.parameters()),
                      nn.CrossEntropyLoss(), amp_configs=level)
    assert {p.dtype for p in model.parameters()} == {core.float16}  # as Paddle: not cast back
    model.network.float()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.prepare(core.optimizer.SGD(0.1, parameters=model.parameters()),
                      nn.CrossEntropyLoss())
        model.fit(_data(), batch_size=8, verbose=0)  # float32 again: trains without a word
        _model(amp_configs="O2").prepare(amp_configs="O2")  # O2 again: nothing to warn about


# ----- EarlyStopping ----------------------------------------------------------------------------

@pytest.mark.parametrize(("patience", "stopped"), [(0, 1), (1, 1), (2, 2), (3, 3)])
def test_early_stopping_counts_evaluations_without_improvement_as_paddle(patience, stopped):
    # lr 0: the evaluated loss never improves after the first evaluation (epoch 0). Paddle
    # stops once the count of evaluations without improvement reaches patience.
    stop = core.callbacks.EarlyStopping(monitor="loss", patience=patience, verbose=0)
    _model(lr=0.0).fit(_data(), _data(8), batch_size=8, epochs=10, verbose=0, callbacks=stop)
    assert stop.stopped_epoch == stopped


def test_early_stopping_warns_about_a_monitor_the_evaluation_lacks_and_trains_on():
    stop = core.callbacks.EarlyStopping(monitor="acc", patience=0, verbose=0)
    model = _model(lr=0.0)  # no metric: the evaluation reports only the loss
    with pytest.warns(UserWarning, match="EarlyStopping: monitor 'acc' is not among the "
                                         "evaluated values \\['loss'\\]"):
        model.fit(_data(), _data(8), batch_size=8, epochs=3, verbose=0, callbacks=stop)
    assert not model.stop_training and stop.stopped_epoch is None


# ----- ReduceLROnPlateau ------------------------------------------------------------------------

def _lrs(callback, epochs=6, lr=0.0):
    """The optimizer's learning rate after each epoch of fit (lr 0 keeps the eval loss flat);
    the callback sets only the value the optimizer reports."""
    model = _model(lr=lr)
    seen = []

    class Record(core.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            seen.append(model._optimizer.get_lr())

    model.fit(_data(), _data(8), batch_size=8, epochs=epochs, verbose=0,
              callbacks=[callback, Record()])
    return seen, model


def test_reduce_lr_on_plateau_cuts_the_rate_after_patience_flat_evaluations(capsys):
    model = _model(lr=1.0)
    model.fit(_data(), _data(8), batch_size=8, epochs=5, verbose=0, callbacks=[
        core.callbacks.ReduceLROnPlateau(patience=2, factor=0.5, min_delta=1e9)])
    # min_delta 1e9: no evaluation improves on the first; evaluations 1-2 and 3-4 each make
    # two in a row, so the rate is halved twice
    assert model._optimizer.get_lr() == pytest.approx(0.25)
    out = capsys.readouterr().out
    assert "Epoch 3: ReduceLROnPlateau reducing learning rate to 0.5." in out
    assert "Epoch 5: ReduceLROnPlateau reducing learning rate to 0.25." in out


def test_reduce_lr_on_plateau_cooldown_and_min_lr():
    cut = core.callbacks.ReduceLROnPlateau(patience=1, factor=0.1, cooldown=2, min_lr=0.005,
                                           min_delta=1e9, verbose=0)
    model = _model(lr=1.0)
    model.fit(_data(), _data(8), batch_size=8, epochs=8, verbose=0, callbacks=[cut])
    # eval 0 sets the best; 1 cuts to 0.1; 2 and 3 cool down; 4 cuts to 0.01; 5, 6 cool down;
    # 7 would cut to 0.001, held at min_lr
    assert model._optimizer.get_lr() == pytest.approx(0.005)


def test_reduce_lr_on_plateau_keeps_the_rate_while_the_monitor_improves():
    rng = np.random.default_rng(1)
    x = rng.random((32, 4)).astype("float32")
    data = TensorDataset([x, (x.sum(1, keepdims=True) > 2).astype("int64")])
    model = _model(lr=0.5, metrics=core.metric.Accuracy())
    cut = core.callbacks.ReduceLROnPlateau(monitor="loss", patience=1, min_delta=0.0,
                                           verbose=0)
    model.fit(data, data, batch_size=32, epochs=5, verbose=0, shuffle=False, callbacks=[cut])
    assert model._optimizer.get_lr() == 0.5 and cut.wait == 0  # full-batch descent improves
    assert not cut.maximize
    assert core.callbacks.ReduceLROnPlateau(monitor="acc").maximize  # 'auto': max for acc


def test_reduce_lr_on_plateau_leaves_a_scheduler_alone_with_a_warning():
    schedule = core.optimizer.lr.StepDecay(learning_rate=0.1, step_size=100)
    model = core.Model(Net())
    model.prepare(core.optimizer.SGD(schedule, parameters=model.parameters()),
                  nn.CrossEntropyLoss())
    with pytest.warns(UserWarning, match="learning rate is an LRScheduler \\(StepDecay\\)"):
        model.fit(_data(), _data(8), batch_size=8, epochs=2, verbose=0, callbacks=[
            core.callbacks.ReduceLROnPlateau(patience=0, verbose=0)])
    assert model._optimizer.get_lr() == pytest.approx(0.1)


def test_reduce_lr_on_plateau_warns_about_a_missing_monitor():
    with pytest.warns(UserWarning, match="ReduceLROnPlateau: monitor 'auc' is not among"):
        seen, _ = _lrs(core.callbacks.ReduceLROnPlateau(monitor="auc", patience=0), epochs=2,
                       lr=0.3)
    assert seen == [0.3, 0.3]


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"factor": 1.0}, "factor=1.0 must be a number in \\[0, 1\\)"),
    ({"mode": "up"}, "mode='up' must be 'auto', 'min' or 'max'"),
    ({"patience": -1}, "patience=-1 must be an integer >= 0"),
    ({"cooldown": 1.5}, "cooldown=1.5 must be an integer >= 0"),
    ({"min_lr": -1}, "min_lr=-1 must be a number >= 0"),
    ({"min_delta": "x"}, "min_delta='x' must be a number >= 0"),
])
def test_reduce_lr_on_plateau_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=f"ReduceLROnPlateau: {match}"):
        core.callbacks.ReduceLROnPlateau(**kwargs)


# ----- LRScheduler ------------------------------------------------------------------------------

@pytest.mark.parametrize(("by_step", "by_epoch", "last_epoch"), [
    (True, False, 4),  # 2 batches x 2 epochs
    (False, True, 2),
    (False, False, 0),  # Paddle takes neither: the schedule is the user's to step
])
def test_lr_scheduler_callback_steps_by_batch_by_epoch_or_not_at_all(by_step, by_epoch,
                                                                      last_epoch):
    schedule = core.optimizer.lr.StepDecay(learning_rate=0.1, step_size=100)
    model = core.Model(Net())
    model.prepare(core.optimizer.SGD(schedule, parameters=model.parameters()),
                  nn.CrossEntropyLoss())
    model.fit(_data(), batch_size=8, epochs=2, verbose=0,
              callbacks=core.callbacks.LRScheduler(by_step=by_step, by_epoch=by_epoch))
    assert schedule.last_epoch == last_epoch


def test_lr_scheduler_callback_refuses_both():
    with pytest.raises(ValueError, match="LRScheduler: by_step=True and by_epoch=True exclude "
                                         "each other"):
        core.callbacks.LRScheduler(by_step=True, by_epoch=True)
