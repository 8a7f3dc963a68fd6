"""runner.train.loop: a small model learns the digits; log lines, metrics, evaluation and
progress."""
import io
import logging
import re

import numpy as np
import pytest

import core
from runner import build
from runner.config import schema
from runner.config.options import load_option
from runner.train.events import EndPass
from runner.train.loop import evaluate, fit
from runner.train.progress import Progress

LINE = re.compile(r"^epoch (\d+) batch (\d+) loss (\d+\.\d{4}) acc ([01]\.\d{2})$")


class Sink:
    def __init__(self):
        self.points, self.flushes = [], 0

    def log_metrics(self, metrics, step):
        self.points.extend((key, step, value) for key, value in metrics.items())

    def flush(self):
        self.flushes += 1

    def series(self, key):
        return [(step, value) for k, step, value in self.points if k == key]


@pytest.fixture(scope="module")
def digits():
    data = build.build_data(schema.DataConfig(), seed=0)
    return build.build_loaders(data, schema.DataConfig(), schema.TrainerConfig(batch_size=64))


def _setup(loaders, lr=0.01, schedule=None):
    core.seed(0)
    model = build.build_model(load_option("model", "mlp", "hidden=[32]"), (1, 8, 8), 10)
    steps = len(loaders[0])
    rate = schedule(steps) if schedule else lr
    opt = build.build_optimizer(schema.AdamConfig(), model.parameters(), rate)
    return model, opt, rate


def test_a_small_model_learns_the_digits_in_two_epochs(digits, caplog):
    train, valid, _ = digits
    model, opt, _ = _setup(digits)
    cfg = schema.TrainerConfig(epochs=2, log_every=5, progress=False)
    before = evaluate(model, valid)
    sink = Sink()
    with caplog.at_level(logging.INFO, logger="runner.train.loop"):
        state = fit(model, opt, train, cfg, valid_loader=valid, sink=sink)
    after = evaluate(model, valid)
    assert after[0] < before[0] / 3 and after[1] > 0.85
    losses = [value for _, value in sink.series("train/loss")]
    assert losses[-1] < losses[0] / 3
    assert state.step == 2 * len(train) and state.epoch == 1
    assert state.metrics["valid/acc"] == pytest.approx(after[1])


def test_log_lines_follow_the_tutorial_format(digits, caplog):
    train, _, _ = digits
    model, opt, _ = _setup(digits)
    cfg = schema.TrainerConfig(epochs=2, log_every=10, progress=False)
    with caplog.at_level(logging.INFO, logger="runner.train.loop"):
        fit(model, opt, train, cfg)
    lines = [r.getMessage() for r in caplog.records if r.name == "runner.train.loop"]
    matches = [LINE.match(line) for line in lines]
    assert all(matches), lines
    expected = [(e, b) for e in range(2) for b in range(0, len(train), 10)]
    assert [(int(m[1]), int(m[2])) for m in matches] == expected


def test_metrics_steps_windows_and_validation_schedule(digits):
    train, valid, _ = digits
    model, opt, _ = _setup(digits)
    cfg = schema.TrainerConfig(epochs=3, log_every=4, eval_every=2, progress=False)
    sink = Sink()
    fit(model, opt, train, cfg, valid_loader=valid, sink=sink)
    per_epoch = len(train)
    train_steps = [step for step, _ in sink.series("train/loss")]
    assert train_steps == [e * per_epoch + b + 1 for e in range(3) for b in range(0, per_epoch, 4)]
    for key in ("train/acc", "train/lr", "train/samples_per_sec"):
        assert [s for s, _ in sink.series(key)] == train_steps
    assert all(v == 0.01 for _, v in sink.series("train/lr"))
    assert all(0 <= v <= 1 for _, v in sink.series("train/acc"))
    # validation after epoch 1 (eval_every=2) and after the last epoch
    assert [s for s, _ in sink.series("valid/acc")] == [2 * per_epoch, 3 * per_epoch]
    assert [s for s, _ in sink.series("time/epoch_sec")] == [per_epoch, 2 * per_epoch,
                                                              3 * per_epoch]
    assert sink.flushes == 3


def test_the_schedule_steps_once_per_batch_and_lr_is_logged(digits):
    train, _, _ = digits
    model, opt, scheduler = _setup(
        digits, schedule=lambda steps: core.optimizer.lr.StepDecay(0.01, step_size=steps,
                                                                   gamma=0.5))
    sink = Sink()
    fit(model, opt, train, schema.TrainerConfig(epochs=2, log_every=1000, progress=False),
        scheduler=scheduler, sink=sink)
    assert scheduler.last_epoch == 2 * len(train)
    assert sink.series("train/lr") == [(1, 0.01), (len(train) + 1, 0.005)]


def test_end_pass_handlers_see_each_epoch(digits):
    train, _, _ = digits
    model, opt, _ = _setup(digits)
    seen = []
    fit(model, opt, train, schema.TrainerConfig(epochs=2, progress=False),
        handlers={EndPass: [lambda event: seen.append((event.pass_id, event.step))]})
    assert seen == [(0, len(train)), (1, 2 * len(train))]


def test_evaluate_matches_a_direct_computation_and_keeps_the_mode(digits):
    _, valid, _ = digits
    model, _, _ = _setup(digits)
    model.train()
    loss, acc = evaluate(model, valid)
    assert model.training
    images = np.concatenate([x.numpy() for x, _ in valid])
    labels = np.concatenate([y.numpy() for _, y in valid])
    with core.no_grad():
        logits = model(core.to_tensor(images)).numpy().astype(np.float64)
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    assert loss == pytest.approx(-log_probs[np.arange(len(labels)), labels].mean(), rel=1e-5)
    assert acc == pytest.approx((logits.argmax(axis=1) == labels).mean())


def test_progress_bar_draws_only_on_a_terminal():
    quiet = io.StringIO()
    bar = Progress(10, desc="epoch 0", stream=quiet)
    bar.update(5)
    bar.close()
    assert not bar.enabled and quiet.getvalue() == ""

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    screen = Terminal()
    bar = Progress(4, desc="epoch 1", stream=screen, min_interval=0.0)
    for _ in range(4):
        bar.update(1, postfix="loss 0.5")
    assert bar.render().startswith("epoch 1 100%|" + "#" * 30 + "| 4/4 [")
    assert bar.render().endswith("loss 0.5")
    bar.clear()
    bar.close()
    text = screen.getvalue()
    assert text.count("\r\x1b[K") >= 5 and text.endswith("\n")
    assert "| 2/4 [" in text


def test_train_lr_is_the_rate_the_logged_update_used(digits):
    train, _, _ = digits
    model, opt, warmup = _setup(
        digits, schedule=lambda steps: core.optimizer.lr.LinearWarmup(0.01, 10, 0.0, 0.01))
    sink = Sink()
    fit(model, opt, train, schema.TrainerConfig(epochs=1, log_every=5, progress=False),
        scheduler=warmup, sink=sink)
    assert sink.series("train/lr")[:3] == [(1, 0.0), (6, 0.005), (11, 0.01)]


# ----- trainer.accumulate -----------------------------------------------------------------------

def _accumulating(batch_size, accumulate, samples=36):
    """A dropout-free MLP with SGD, a step schedule and global-norm clipping, on fixed data."""
    rng = np.random.default_rng(3)
    data = core.io.TensorDataset(rng.normal(size=(samples, 1, 8, 8)).astype(np.float32),
                                 rng.integers(0, 10, size=samples))
    loader = core.io.DataLoader(data, batch_size=batch_size, return_tensors=True)
    core.seed(0)
    model = build.build_model(load_option("model", "mlp", "hidden=[16]"), (1, 8, 8), 10)
    schedule = core.optimizer.lr.StepDecay(0.5, step_size=2, gamma=0.5)
    opt = build.build_optimizer(schema.SGDConfig(), model.parameters(), schedule,
                                grad_clip=core.nn.ClipGradByGlobalNorm(2.0))  # acts on 6 of 10
    cfg = schema.TrainerConfig(epochs=2, log_every=1, progress=False, accumulate=accumulate)
    return model, opt, schedule, loader, cfg


def test_accumulating_two_batches_equals_one_batch_twice_as_large():
    # 36 samples: batches of 4 make groups 2+2+2+2+1; batches of 8 make 8+8+8+8+4.
    big = _accumulating(8, 1)
    fit(big[0], big[1], big[3], big[4], scheduler=big[2])
    small = _accumulating(4, 2)
    sink = Sink()
    state = fit(small[0], small[1], small[3], small[4], scheduler=small[2], sink=sink)
    assert state.step == 10 and small[2].last_epoch == big[2].last_epoch == 10
    expected = big[0].state_dict()
    for key, value in small[0].state_dict().items():
        np.testing.assert_allclose(value.numpy(), expected[key].numpy(), rtol=1e-5, atol=1e-6)
    acted = small[1]._grad_clip.read_stats()["acted"]
    assert acted == big[1]._grad_clip.read_stats()["acted"] == 6  # on the summed gradients
    # log lines come at the batches they always came at, each averaging the batches of the
    # steps taken since the last one, at the step count (steps 1, 2 ... per epoch)
    assert [step for step, _ in sink.series("train/loss")] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]


def test_a_step_cut_short_by_the_loader_is_dropped_not_carried_over(caplog):
    """A loader that yields fewer batches than len() says (a stream whose counts are too high)
    ends an epoch inside an accumulation step: those gradients must not leak into the next."""
    rng = np.random.default_rng(0)
    batches = [(core.to_tensor(rng.standard_normal((4, 3)).astype(np.float32)),
                core.to_tensor(rng.integers(0, 2, 4))) for _ in range(3)]

    class Short:
        def __len__(self):
            return 4  # claims 4, yields 3: batches 0+1 are a step, batch 2 starts one

        def __iter__(self):
            return iter(batches)

    def trained(loader, epochs):
        core.seed(0)
        model = core.nn.Linear(3, 2)
        optimizer = core.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
        cfg = schema.TrainerConfig(epochs=epochs, progress=False, accumulate=2, log_every=100)
        return model, fit(model, optimizer, loader, cfg)

    with caplog.at_level(logging.WARNING, logger="runner.train.loop"):
        model, state = trained(Short(), 2)
    assert state.step == 2  # one step per epoch
    assert "epoch 0 ended 1 batch(es) into an accumulation step of 2" in caplog.text

    class Exact:  # the same first two batches each epoch, nothing left over
        def __len__(self):
            return 2

        def __iter__(self):
            return iter(batches[:2])

    expected, _ = trained(Exact(), 2)
    for got, want in zip(model.parameters(), expected.parameters()):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


def test_accumulation_checks_once_per_step_and_fires_every_batch(monkeypatch):
    from runner.train.events import EndForwardBackward, EndIteration
    from runner.train.health import HealthMonitor

    model, opt, schedule, loader, cfg = _accumulating(4, 3)
    reads = []
    original = HealthMonitor._read
    monkeypatch.setattr(HealthMonitor, "_read", lambda self, loss: reads.append(
        float(np.asarray(loss).reshape(-1)[0])) or original(self, loss))
    complete, ends = [], []
    fit(model, opt, loader, cfg, scheduler=schedule,
        handlers={EndForwardBackward: [lambda e: complete.append(e.trainer.step_complete)],
                  EndIteration: [lambda e: ends.append((e.batch_id, e.step))]})
    assert complete == [False, False, True] * 3 * 2  # 9 batches: three steps of three
    assert len(reads) == 6  # one host read per optimizer step
    assert ends[:4] == [(0, 0), (1, 0), (2, 1), (3, 1)]


def test_the_step_loss_read_by_the_check_is_the_mean_over_the_group(monkeypatch):
    from runner.train.health import HealthMonitor

    model, opt, schedule, loader, cfg = _accumulating(4, 2, samples=12)
    checked, losses = [], []
    original = HealthMonitor.check

    def spy(self, epoch, index, batch, step):
        checked.append(float(batch.loss.numpy().reshape(-1)[0]))
        return original(self, epoch, index, batch, step)

    monkeypatch.setattr(HealthMonitor, "check", spy)
    from runner.train.events import EndForwardBackward
    fit(model, opt, loader, schema.TrainerConfig(epochs=1, progress=False, accumulate=2),
        scheduler=schedule,
        handlers={EndForwardBackward: [lambda e: losses.append(float(e.cost))]})
    # 3 batches: a group of two, then a group of one
    assert checked == pytest.approx([(losses[0] + losses[1]) / 2, losses[2]], rel=1e-6)


def test_checkpoints_and_stops_wait_for_the_end_of_a_step(tmp_path):
    from runner.train import checkpoint
    from runner.train.events import EndIteration
    from runner.train.loop import Trainer

    model, opt, schedule, loader, cfg = _accumulating(4, 2)
    trainer = Trainer(model, opt, cfg, scheduler=schedule)
    trainer.checkpointer = checkpoint.Checkpointer(tmp_path, every=1, keep_last=100)
    trainer.on(EndIteration, lambda e: e.pass_id == 1 and e.batch_id == 4 and e.trainer.stop())
    trainer.fit(loader)
    positions = [checkpoint.load(p)["position"] for p in checkpoint.list_checkpoints(tmp_path)]
    assert all(p["batch"] % 2 == 0 for p in positions)  # never inside a group
    assert trainer.state.step == 5 + 3  # stopped at batch 4's group end (batch 5)


def test_a_run_resumed_from_a_mid_epoch_checkpoint_accumulates_the_same(tmp_path):
    from runner.train import checkpoint
    from runner.train.events import EndIteration
    from runner.train.loop import Trainer

    model, opt, schedule, loader, cfg = _accumulating(4, 2)
    reference = Trainer(model, opt, cfg, scheduler=schedule)
    reference.fit(loader)

    model, opt, schedule, loader, cfg = _accumulating(4, 2)
    first = Trainer(model, opt, cfg, scheduler=schedule)
    first.checkpointer = checkpoint.Checkpointer(tmp_path, every=3, keep_last=1)
    first.on(EndIteration, lambda e: e.step == 7 and e.trainer.stop())
    first.fit(loader)
    body = checkpoint.load(checkpoint.latest(tmp_path))
    assert body["position"] == {"epoch": 1, "batch": 2, "step": 6}

    model, opt, schedule, loader, cfg = _accumulating(4, 2)
    second = Trainer(model, opt, cfg, scheduler=schedule)
    checkpoint.restore(second, loader, body)
    second.fit(loader)
    assert second.state.step == reference.state.step == 10
    expected = reference.model.state_dict()
    for key, value in second.model.state_dict().items():
        assert np.array_equal(value.numpy(), expected[key].numpy()), key
