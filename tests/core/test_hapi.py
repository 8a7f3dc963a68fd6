"""core.Model (paddle.Model): the tutorial's high-level path, driven through the public API and
checked against the same steps written as a plain loop."""
import numpy as np
import pytest

import core
from core import nn
from core.datasets import Digits
from core.io import DataLoader, TensorDataset
from core.nn import functional as F
from core.static import InputSpec


class LeNet(nn.Layer):
    """The tutorial's shape of network, for the 8x8 digits."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(1, 6, 3, padding=1)
        self.pool = nn.MaxPool2D(2, 2)
        self.fc = nn.Linear(6 * 4 * 4, 10)

    def forward(self, x):
        return self.fc(core.flatten(self.pool(F.relu(self.conv(x))), 1))


def _model(lr=0.01, metrics=True, seed=0):
    core.seed(seed)
    model = core.Model(LeNet())
    model.prepare(core.optimizer.Adam(learning_rate=lr, parameters=model.parameters()),
                  nn.CrossEntropyLoss(), core.metric.Accuracy() if metrics else None)
    return model


def _small(n=40, seed=0):
    rng = np.random.default_rng(seed)
    return TensorDataset([rng.random((n, 1, 8, 8)).astype("float32"),
                          rng.integers(0, 10, (n, 1)).astype("int64")])


def test_the_tutorial_fits_the_digits_to_a_known_accuracy(capsys):
    model = _model()
    model.fit(Digits("train"), Digits("valid"), epochs=5, batch_size=64, verbose=2)
    result = model.evaluate(Digits("test"), batch_size=64, verbose=0)
    assert set(result) == {"loss", "acc"}
    assert result["acc"] > 0.9 and result["loss"][0] < 0.4, result
    printed = capsys.readouterr().out
    assert "Epoch 5/5" in printed and "Eval begin..." in printed and "acc: " in printed


def test_fit_takes_the_same_steps_as_the_plain_loop():
    data = _small()
    model = _model(metrics=False)
    model.fit(DataLoader(data, batch_size=16), epochs=2, verbose=0)

    core.seed(0)
    net = LeNet()
    opt = core.optimizer.Adam(learning_rate=0.01, parameters=net.parameters())
    for _ in range(2):
        for x, y in DataLoader(data, batch_size=16):
            loss = F.cross_entropy(net(x), y)
            loss.backward()
            opt.step()
            opt.clear_grad()
    for ours, plain in zip(model.parameters(), net.parameters()):
        np.testing.assert_array_equal(ours.numpy(), plain.numpy())


def test_accumulated_batches_step_once_per_group_with_summed_gradients():
    data = _small(n=32)
    model = _model(metrics=False)
    model.fit(DataLoader(data, batch_size=8), epochs=1, verbose=0, accumulate_grad_batches=2)

    core.seed(0)
    net = LeNet()
    opt = core.optimizer.Adam(learning_rate=0.01, parameters=net.parameters())
    for i, (x, y) in enumerate(DataLoader(data, batch_size=8)):
        F.cross_entropy(net(x), y).backward()
        if i % 2 == 1:
            opt.step()
            opt.clear_grad()
    for ours, plain in zip(model.parameters(), net.parameters()):
        np.testing.assert_allclose(ours.numpy(), plain.numpy(), rtol=1e-6, atol=1e-7)


def test_evaluate_reports_the_mean_loss_over_samples_and_metrics_over_all_batches():
    data, model = _small(n=37), _model()
    result = model.evaluate(data, batch_size=10, verbose=0)  # batches of 10, 10, 10, 7
    x, y = (core.to_tensor(a) for a in data.arrays)
    model.network.eval()
    with core.no_grad():
        logits = model.network(x)
    want_loss = float(F.cross_entropy(logits, y))
    want_acc = float(np.mean(logits.numpy().argmax(1) == y.numpy()[:, 0]))
    assert result["loss"][0] == pytest.approx(want_loss, rel=1e-5)
    assert result["acc"] == pytest.approx(want_acc)


def test_metrics_only_and_predict_with_stacked_or_batched_outputs():
    data = _small(n=25)
    model = core.Model(LeNet())
    model.prepare(metrics=core.metric.Accuracy(topk=(1, 2)))
    assert set(model.evaluate(data, batch_size=10, verbose=0)) == {"acc_top1", "acc_top2"}
    batched = model.predict(data, batch_size=10, verbose=0)
    assert len(batched) == 1 and [b.shape for b in batched[0]] == [(10, 10), (10, 10), (5, 10)]
    stacked = model.predict(data, batch_size=10, verbose=0, stack_outputs=True)
    np.testing.assert_array_equal(stacked[0], np.concatenate(batched[0]))


def test_save_and_load_restore_weights_and_optimizer_state(tmp_path):
    data = _small()
    model = _model()
    model.fit(data, epochs=2, batch_size=16, verbose=0, save_dir=str(tmp_path / "ckpt"),
              shuffle=False)
    written = sorted(p.name for p in (tmp_path / "ckpt").iterdir())
    assert written == ["0.pdopt", "0.pdparams", "1.pdopt", "1.pdparams", "final.pdopt",
                       "final.pdparams"]
    other = _model(seed=5)
    other.load(str(tmp_path / "ckpt" / "final"))
    for a, b in zip(model.parameters(), other.parameters()):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    # the optimizer state came too: one more epoch on each gives the same weights
    model.fit(data, epochs=1, batch_size=16, verbose=0, shuffle=False)
    other.fit(data, epochs=1, batch_size=16, verbose=0, shuffle=False)
    for a, b in zip(model.parameters(), other.parameters()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)


def test_load_with_skip_mismatch_keeps_what_does_not_fit(tmp_path):
    model = _model()
    model.save(str(tmp_path / "m"))

    class Wider(LeNet):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(6 * 4 * 4, 12)

    wider = core.Model(Wider())
    fc_before = wider.network.fc.weight.numpy().copy()
    with pytest.raises(ValueError, match="fc.weight"):
        wider.load(str(tmp_path / "m"))
    with pytest.warns(UserWarning, match="fc.weight") as warned:
        wider.load(str(tmp_path / "m.pdparams"), skip_mismatch=True)
    assert len([w for w in warned if "fc.weight" in str(w.message)]) == 1  # named once
    np.testing.assert_array_equal(wider.network.fc.weight.numpy(), fc_before)
    np.testing.assert_array_equal(wider.network.conv.weight.numpy(),
                                  model.network.conv.weight.numpy())


def test_two_inputs_split_by_input_specs():
    class TwoInputs(nn.Layer):
        def __init__(self):
            super().__init__()
            self.a, self.b = nn.Linear(3, 2), nn.Linear(4, 2)

        def forward(self, *parts):
            return self.a(parts[0]) + self.b(parts[1])

    rng = np.random.default_rng(0)
    data = TensorDataset([rng.random((12, 3)).astype("float32"),
                          rng.random((12, 4)).astype("float32"),
                          rng.integers(0, 2, (12, 1)).astype("int64")])
    model = core.Model(TwoInputs(), inputs=[InputSpec([None, 3]), InputSpec([None, 4])],
                       labels=InputSpec([None, 1], "int64"))
    model.prepare(core.optimizer.SGD(0.1, parameters=model.parameters()), nn.CrossEntropyLoss())
    model.fit(data, batch_size=4, verbose=0)
    assert model.predict(data, batch_size=12, verbose=0)[0][0].shape == (12, 2)
    assert model.summary()["total_params"] == 3 * 2 + 2 + 4 * 2 + 2  # both specs' inputs


def test_num_iters_stops_after_that_many_steps():
    seen = []

    class Count(core.callbacks.Callback):
        def on_train_batch_end(self, step, logs=None):
            seen.append(step)

    _model().fit(_small(), batch_size=8, epochs=10, num_iters=7, verbose=0, callbacks=Count())
    assert len(seen) == 7


def test_callbacks_see_every_hook_in_order_and_can_stop_training():
    calls = []

    class Recorder(core.callbacks.Callback):
        def on_train_begin(self, logs=None):
            calls.append(("train_begin", self.params["epochs"], self.params["steps"]))

        def on_epoch_begin(self, epoch, logs=None):
            calls.append(("epoch_begin", epoch))

        def on_train_batch_end(self, step, logs=None):
            calls.append(("batch", step, sorted(logs)))

        def on_eval_end(self, logs=None):
            calls.append(("eval_end", sorted(logs)))

        def on_epoch_end(self, epoch, logs=None):
            calls.append(("epoch_end", epoch))
            self.model.stop_training = epoch == 1

        def on_train_end(self, logs=None):
            calls.append(("train_end",))

    _model().fit(_small(n=16), _small(n=8), batch_size=8, epochs=5, verbose=0,
                 callbacks=[Recorder()])
    keys = ["acc", "batch_size", "loss", "step"]
    assert calls == [("train_begin", 5, 2),
                     ("epoch_begin", 0), ("batch", 0, keys), ("batch", 1, keys),
                     ("epoch_end", 0), ("eval_end", keys),
                     ("epoch_begin", 1), ("batch", 0, keys), ("batch", 1, keys),
                     ("epoch_end", 1), ("eval_end", keys), ("train_end",)]


def test_early_stopping_stops_when_the_monitor_stops_improving_and_keeps_the_best(tmp_path):
    stop = core.callbacks.EarlyStopping(monitor="loss", patience=1, verbose=0)
    model = _model(lr=0.0)  # nothing changes: the eval loss never improves after the first
    model.fit(_small(n=16), _small(n=8), batch_size=8, epochs=10, verbose=0, callbacks=stop,
              save_dir=str(tmp_path))
    assert stop.stopped_epoch == 1  # evaluations 0 (best), 1 (wait 1 = patience: Paddle's)
    assert (tmp_path / "best_model.pdparams").is_file()
    assert (tmp_path / "final.pdparams").is_file()


def test_progress_lines_follow_log_freq_and_verbose(capsys):
    model = _model()
    model.fit(_small(n=40), epochs=1, batch_size=8, verbose=2, log_freq=2)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Epoch 1/1"
    assert [line.split(" - ")[0] for line in lines[1:]] == ["step 2/5", "step 4/5", "step 5/5"]
    model.fit(_small(n=40), epochs=1, batch_size=8, verbose=0)
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("call, error, words", [
    (lambda m: m.fit(_small(), verbose=0), RuntimeError, "prepare(optimizer, loss)"),
    (lambda m: m.prepare(amp_configs="O3"), ValueError, "amp_configs='O3' is not a level"),
    (lambda m: m.prepare(amp_configs={"level": "O4"}), ValueError, "['level']='O4'"),
    (lambda m: m.prepare(amp_configs={"use_fp16_guard": True}), ValueError,
     "['use_fp16_guard'] are not recognized"),
    (lambda m: m.prepare(amp_configs=2), TypeError, "amp_configs must be"),
    (lambda m: m.prepare(metrics=object()), TypeError, "lacks compute"),
    (lambda m: m.prepare(loss="mse"), TypeError, "loss must be"),
    (lambda m: m.fit(42), TypeError, "train_data must be"),
    (lambda m: m.fit(_small(), epochs=0), ValueError, "epochs=0"),
    (lambda m: m.fit(_small(), batch_size=0), ValueError, "batch_size=0"),
    (lambda m: m.evaluate(_small(), callbacks=[print]), TypeError, "not a core.callbacks"),
    (lambda m: m.summary(), ValueError, "give input_size"),
])
def test_mistakes_get_errors_that_name_them(call, error, words):
    model = core.Model(LeNet())
    with pytest.raises(error) as raised:
        call(model)
    assert words in str(raised.value)


def test_a_batch_without_the_inputs_the_network_takes_is_named():
    class Pair(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 2)

        def forward(self, x, y):
            return self.fc(x) + self.fc(y)

    model = core.Model(Pair())
    model.prepare(metrics=core.metric.Accuracy())
    only_x = TensorDataset([np.ones((4, 3), "float32")])
    with pytest.raises(ValueError, match=r"1 field\(s\), but the network takes 2 input"):
        model.predict(only_x, verbose=0)


def test_summary_uses_the_input_spec():
    model = core.Model(LeNet(), inputs=InputSpec([None, 1, 8, 8], "float32", "image"))
    info = model.summary()
    assert info["total_params"] == sum(int(np.prod(p.shape)) for p in model.parameters())


def test_input_spec_checks_its_shape_and_dtype():
    assert InputSpec([-1, 3]).shape == (None, 3)
    with pytest.raises(ValueError, match="shape"):
        InputSpec(["a"])
    with pytest.raises(ValueError, match="dtype"):
        InputSpec([1], dtype="nope")


def test_a_learning_rate_schedule_steps_after_each_batch_unless_told_by_epoch():
    def fit(callbacks):
        schedule = core.optimizer.lr.StepDecay(learning_rate=0.1, step_size=1, gamma=0.5)
        model = core.Model(LeNet())
        model.prepare(core.optimizer.SGD(schedule, parameters=model.parameters()),
                      nn.CrossEntropyLoss())
        model.fit(_small(n=24), batch_size=8, epochs=2, verbose=0, callbacks=callbacks)
        return schedule.last_epoch

    assert fit(None) == 6  # 3 batches x 2 epochs
    assert fit(core.callbacks.LRScheduler(by_step=False, by_epoch=True)) == 2


def test_num_iters_counts_training_steps_only_and_evaluate_takes_its_own():
    evaluated = []

    class Count(core.callbacks.Callback):
        def on_eval_batch_end(self, step, logs=None):
            evaluated.append(step)

    model = _model()
    model.fit(_small(n=16), _small(n=32), batch_size=8, epochs=5, num_iters=3, verbose=0,
              callbacks=Count())
    assert evaluated == [0, 1, 2, 3, 0, 1, 2, 3]  # two epochs (2 + 1 steps), whole evaluations
    evaluated.clear()
    model.evaluate(_small(n=32), batch_size=8, num_iters=2, verbose=0, callbacks=Count())
    assert evaluated == [0, 1]


class _TopOne(core.metric.Metric):
    """A metric as Paddle's docs write one: numpy functions on what update() receives."""

    def __init__(self):
        self.reset()

    def name(self):
        return "top1"

    def reset(self):
        self.correct = self.total = 0

    def compute(self, pred, label):
        return core.argmax(pred, axis=-1) == label.reshape([-1])

    def update(self, correct):
        self.correct += int(np.sum(correct))
        self.total += correct.shape[0]
        return float(np.mean(correct))

    def accumulate(self):
        return self.correct / max(self.total, 1)


def test_a_metric_written_for_paddle_gets_numpy_arrays_and_agrees_with_accuracy():
    model = _model()
    model.prepare(model._optimizer, nn.CrossEntropyLoss(), [_TopOne(), core.metric.Accuracy()])
    model.fit(_small(n=32), batch_size=8, verbose=0)
    result = model.evaluate(_small(n=32), batch_size=8, verbose=0)
    assert result["top1"] == pytest.approx(result["acc"])


def test_a_list_of_batches_is_used_as_it_is():
    x, y = _small(n=40).arrays
    batches = [(x[i:i + 10], y[i:i + 10]) for i in range(0, 40, 10)]
    seen = []

    class Count(core.callbacks.Callback):
        def on_train_batch_end(self, step, logs=None):
            seen.append(logs["batch_size"])

    _model().fit(batches, verbose=0, callbacks=Count())
    assert seen == [10, 10, 10, 10]
    assert [b.shape for b in _model().predict([b[0] for b in batches], verbose=0)[0]] == \
        [(10, 10)] * 4


@pytest.mark.parametrize("wrap", [np.asarray, core.to_tensor])
def test_an_array_or_tensor_is_batches_along_its_first_axis(wrap):
    """Paddle's Model iterates an array as it is (the ESPCN tutorial predicts on [1, N, C, H,
    W]); a 0-D one holds no batch, and says so instead of numpy's or len()'s own error."""
    x = np.random.default_rng(0).random((3, 2, 1, 8, 8)).astype("float32")
    outputs = _model().predict(wrap(x), verbose=0)[0]
    assert [o.shape for o in outputs] == [(2, 10)] * 3
    with pytest.raises(TypeError, match=r"test_data is a 0-D \w+, which holds no batches: an "
                                        r"array or Tensor is read as batches along its first"):
        _model().predict(wrap(np.float32(1.0)), verbose=0)


def test_stacked_outputs_of_0d_values_are_one_row_per_batch():
    """A network returning one number per batch: Paddle's ``np.vstack`` gives [batches, 1];
    ``np.concatenate`` raised "zero-dimensional arrays cannot be concatenated"."""
    class Score(nn.Layer):
        def forward(self, x):
            return x.mean(), x

    x = np.arange(12, dtype="float32").reshape(3, 2, 2)
    means, rows = core.Model(Score()).predict(x, verbose=0, stack_outputs=True)
    np.testing.assert_allclose(means, [[1.5], [5.5], [9.5]])
    assert rows.shape == (6, 2)


def test_load_with_skip_mismatch_leaves_out_the_optimizer_state_of_skipped_weights(tmp_path):
    model = _model()
    model.fit(_small(), batch_size=8, verbose=0)
    model.save(str(tmp_path / "m"))  # weights and Adam moments for a 10-class head

    class FiveClasses(LeNet):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(6 * 4 * 4, 5)

    tuned = core.Model(FiveClasses())
    tuned.prepare(core.optimizer.Adam(parameters=tuned.parameters()), nn.CrossEntropyLoss())
    with pytest.warns(UserWarning, match="fc.weight"):
        tuned.load(str(tmp_path / "m"), skip_mismatch=True)
    data = TensorDataset([np.ones((8, 1, 8, 8), "float32"), np.zeros((8, 1), "int64")])
    tuned.fit(data, batch_size=8, verbose=0)  # the new head trains from fresh moments


@pytest.mark.parametrize("call, words", [
    (lambda m: m.prepare(loss=nn.CrossEntropyLoss), "pass an instance, CrossEntropyLoss()"),
    (lambda m: m.prepare(metrics=core.metric.Accuracy), "pass an instance, Accuracy()"),
])
def test_a_class_where_an_instance_goes_is_named(call, words):
    with pytest.raises(TypeError, match=words.replace("(", r"\(").replace(")", r"\)")):
        call(core.Model(LeNet()))


def test_a_loss_without_reduction_is_refused_with_the_fix():
    model = core.Model(LeNet())
    model.prepare(core.optimizer.SGD(0.1, parameters=model.parameters()),
                  nn.CrossEntropyLoss(reduction="none"))
    with pytest.raises(ValueError, match="use reduction='mean'"):
        model.fit(_small(n=8), batch_size=4, verbose=0)


def test_early_stopping_does_nothing_in_an_evaluate_after_fit(capsys):
    stop = core.callbacks.EarlyStopping(monitor="loss", patience=0)
    model = _model(lr=0.0)
    model.fit(_small(n=16), _small(n=8), batch_size=8, epochs=3, verbose=0, callbacks=stop)
    capsys.readouterr()
    waited = stop.wait
    for _ in range(3):
        model.evaluate(_small(n=8), batch_size=8, verbose=0, callbacks=[stop])
    assert stop.wait == waited and capsys.readouterr().out == ""


def test_reduce_on_plateau_steps_on_the_evaluated_loss():
    # threshold 0.99: no evaluation counts as an improvement after the first
    schedule = core.optimizer.lr.ReduceOnPlateau(learning_rate=0.1, patience=0, factor=0.5,
                                                 threshold=0.99)
    model = core.Model(LeNet())
    model.prepare(core.optimizer.SGD(schedule, parameters=model.parameters()),
                  nn.CrossEntropyLoss())
    model.fit(_small(n=16), _small(n=8), batch_size=8, epochs=4, verbose=0)
    assert schedule.last_lr == pytest.approx(0.1 * 0.5 ** 3)  # stepped after each evaluation


def test_fit_and_evaluate_take_an_iterable_dataset():
    """A stream has no order to shuffle: fit batches it as it comes (fit's shuffle=True
    default would be refused by DataLoader, as in Paddle)."""
    class Stream(core.io.IterableDataset):
        def __iter__(self):
            rng = np.random.default_rng(0)
            for _ in range(256):
                x = rng.standard_normal(4).astype(np.float32)
                yield x, np.int64(x.sum() > 0)

    core.seed(0)
    model = core.Model(nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2)))
    model.prepare(core.optimizer.Adam(learning_rate=0.01, parameters=model.parameters()),
                  nn.CrossEntropyLoss(), core.metric.Accuracy())
    model.fit(Stream(), epochs=3, batch_size=32, verbose=0)
    assert model.evaluate(Stream(), batch_size=64, verbose=0)["acc"] > 0.85  # 0.95 here


def _amp_model(amp_configs, seed=0):
    core.seed(seed)
    model = core.Model(LeNet())
    model.prepare(core.optimizer.Adam(learning_rate=0.01, parameters=model.parameters()),
                  nn.CrossEntropyLoss(), amp_configs=amp_configs)
    return model


@pytest.mark.parametrize("level", ["O1", "O2"])
def test_amp_configs_train_in_mixed_precision(level):
    model = _amp_model(level)
    data = _small(n=64)
    before = model.evaluate(data, batch_size=16, verbose=0)["loss"][0]
    model.fit(data, epochs=6, batch_size=16, verbose=0, shuffle=False)
    assert model.evaluate(data, batch_size=16, verbose=0)["loss"][0] < 0.8 * before
    # the forward runs under auto_cast: the Linear head computes in float16
    assert model.predict_batch([data[0][0][None]])[0].dtype == np.float16
    weights = {p.dtype for p in model.network.parameters()}
    assert weights == ({core.float16} if level == "O2" else {core.float32})


def test_amp_configs_reach_the_grad_scaler():
    # A loss scale so large that the first step's gradients overflow float16: the scaler skips
    # that update (and halves the scale), so the weights do not move.
    model = _amp_model({"level": "O1", "init_loss_scaling": 2.0 ** 40})
    samples = _small(n=8)
    x, y = np.stack([s[0] for s in samples]), np.stack([s[1] for s in samples])
    before = [p.numpy().copy() for p in model.network.parameters()]
    model.train_batch([x], [y])
    assert all(np.array_equal(a, p.numpy()) for a, p in zip(before, model.network.parameters()))
    model = _amp_model({"level": "O1"})
    model.train_batch([x], [y])
    assert not all(np.array_equal(a, p.numpy())
                   for a, p in zip(before, model.network.parameters()))


def test_amp_loss_scale_is_saved_in_pdscaler_and_loaded_as_paddle(tmp_path):
    # Paddle's Model.save writes the GradScaler's state to path.pdscaler and Model.load reads
    # it back: a resumed run keeps its loss scale and counters instead of starting over.
    config = {"level": "O1", "init_loss_scaling": 1024.0, "incr_every_n_steps": 3}
    model = _amp_model(config)
    model.fit(_small(n=32), epochs=2, batch_size=8, verbose=0, shuffle=False,
              accumulate_grad_batches=2, save_dir=str(tmp_path / "ck"))
    saved = model._scaler.state_dict()
    assert float(saved["scale"][0]) == 2048.0  # 4 updates: one doubling after 3 good steps
    assert (tmp_path / "ck" / "final.pdscaler").is_file()  # ModelCheckpoint saves it too
    model.save(str(tmp_path / "amp"))
    resumed = _amp_model(config)
    resumed.load(str(tmp_path / "amp"))
    loaded = resumed._scaler.state_dict()
    assert float(loaded["scale"][0]) == 2048.0 and loaded["incr_count"] == saved["incr_count"]
    float32 = _model(metrics=False)
    float32.save(str(tmp_path / "plain"))
    assert not (tmp_path / "plain.pdscaler").exists()  # no scaler, no file
    _amp_model(config).load(str(tmp_path / "plain"))  # an older checkpoint without one loads


def test_amp_o2_master_weights_survive_save_and_load(tmp_path, recwarn):
    model = _amp_model("O2")
    model.fit(_small(n=16), epochs=1, batch_size=8, verbose=0, shuffle=False)
    masters = {key: model._optimizer.state_dict()["master_weights"][p.name].numpy()
               for key, p in model.network.named_parameters()}
    model.save(str(tmp_path / "o2"))
    resumed = _amp_model("O2", seed=1)
    resumed.load(str(tmp_path / "o2"))
    assert not [w for w in recwarn if "ignored entries" in str(w.message)]
    state = resumed._optimizer.state_dict()["master_weights"]
    for key, p in resumed.network.named_parameters():
        assert state[p.name].dtype == core.float32
        np.testing.assert_array_equal(state[p.name].numpy(), masters[key], err_msg=key)
