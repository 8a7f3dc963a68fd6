"""trainer.amp: mixed precision in the training loop (runner/train/amp.py), its NaN/Inf
checks, checkpoints and the CLI."""
import glob
import math
import os
from pathlib import Path

import numpy as np
import pytest

import core
import core.nn.functional as F
from core import serialize
from runner import build
from runner.config import schema
from runner.config.options import load_option
from runner.train import amp, checkpoint
from runner.train.events import EndIteration
from runner.train.health import NonFiniteError
from runner.train.loop import Trainer, evaluate
from tests.runner.sinks import ClockFreeSink
from tests.runner.subprocesses import run_all

DATA = schema.DataConfig()


MLP = ("mlp", "hidden=[16]", "dropout=0.2")


def _parts(level="O1", seed=0, loss_fn=F.cross_entropy, grad_clip=None, model=MLP, **trainer):
    """A fresh 'process' (digits, a small MLP, Adam with a cosine schedule) under trainer.amp."""
    core.seed(seed)
    options = {"epochs": 2, "batch_size": 64, "log_every": 4, "progress": False,
               "amp": level} | trainer
    cfg = schema.TrainerConfig(**options)
    data = build.build_data(DATA, seed=0)
    train, valid, _ = build.build_loaders(data, DATA, cfg)
    model = build.build_model(load_option("model", *model), (1, 8, 8), 10)
    sched = build.build_schedule(schema.ScheduleConfig(name="cosine", warmup_epochs=0.5), 0.01,
                                 cfg.epochs, len(train))
    opt = build.build_optimizer(schema.AdamConfig(lr=0.01), model.parameters(), sched,
                                grad_clip=grad_clip)
    model, opt = amp.prepare(model, opt, cfg, "cpu")
    sink = ClockFreeSink()
    trainer = Trainer(model, opt, cfg, scheduler=sched, sink=sink, loss_fn=loss_fn)
    return trainer, train, valid, sink


@pytest.mark.parametrize("level", ["O1", "O2"])
def test_mixed_precision_learns_and_logs_the_loss_scale(level):
    trainer, train, valid, sink = _parts(level)
    trainer.fit(train, valid)
    assert sink.series("valid/acc")[-1] > 0.6
    scales = sink.series("train/loss_scale")
    assert scales and all(s in (65536.0, 32768.0, 16384.0) for s in scales)
    assert sink.series("train/amp_skipped_steps")  # logged with the other metrics
    assert trainer.health.events == 0
    weight = trainer.model.parameters()[0]
    assert weight.data.dtype == (np.float16 if level == "O2" else np.float32)
    if level == "O2":  # the optimizer keeps float32 masters of the float16 weights
        assert all(m.dtype == np.float32 for m in trainer.optimizer._master_weights.values())
        assert trainer.model.state_dict()[next(iter(trainer.model.state_dict()))].dtype \
            == "float32"  # saved weights are float32 (model.pdparams, the MLflow bundle)


def test_amp_off_adds_no_metric_and_keeps_float32():
    trainer, train, valid, sink = _parts("off", epochs=1)
    trainer.fit(train, valid)
    assert not sink.series("train/loss_scale") and trainer.precision.state_dict() is None


def test_an_overflowing_scale_is_halved_and_the_step_skipped_without_the_check_stopping():
    # 2**40 overflows float16 gradients: the scaler skips and halves until they fit
    trainer, train, valid, sink = _parts("O1", loss_scale=2.0 ** 40, nan_check="stop")
    trainer.fit(train, valid)
    skipped = trainer.precision.skipped
    assert 5 <= skipped < 40
    final = trainer.precision.metrics()
    assert final["train/amp_skipped_steps"] == skipped
    assert final["train/loss_scale"] == 2.0 ** 40 / 2 ** skipped  # one halving per skip
    assert trainer.state.step == 2 * len(train) - skipped  # skipped steps are no updates
    assert trainer.health.events == 0 and trainer.health.skipped == 0
    assert sink.series("valid/acc")[-1] > 0.5  # it still learns


def test_a_static_scale_skips_overflowing_steps_without_changing():
    trainer, train, valid, _ = _parts("O1", epochs=1, loss_scale=2.0 ** 40,
                                      loss_scale_dynamic=False, nan_check="off")
    trainer.fit(train, valid)
    assert trainer.precision.skipped == len(train)  # every step overflows, nothing learnt
    assert trainer.precision.metrics()["train/loss_scale"] == 2.0 ** 40


def _nan_after(step):
    calls = []

    def loss(logits, labels):
        calls.append(1)
        value = F.cross_entropy(logits, labels)
        return value * float("nan") if len(calls) > step else value

    return loss


def test_a_nan_loss_still_stops_under_nan_check_stop():
    trainer, train, valid, _ = _parts("O1", loss_fn=_nan_after(5), nan_check="stop")
    with pytest.raises(NonFiniteError) as info:
        trainer.fit(train, valid)
    assert "First non-finite quantity: the loss (NaN)" in info.value.report
    assert trainer.state.step == 5


def test_nan_check_locate_replays_an_o2_convolutional_batch_under_auto_cast():
    # The float16 convolution takes no float32 input outside auto_cast: the replay runs
    # under the run's auto_cast, as the step did.
    trainer, train, valid, _ = _parts("O2", epochs=1, loss_fn=_nan_after(2),
                                      model=("resnet", "width=4", "channels=[8]"),
                                      nan_check_locate=True)
    with pytest.raises(NonFiniteError) as info:
        trainer.fit(train, valid)
    assert "Located by replaying the batch: every layer's output is finite but the loss " \
        "is not" in info.value.report


def test_a_nan_loss_under_skip_drops_the_update_and_the_scaler_goes_on():
    trainer, train, valid, _ = _parts("O1", epochs=1, loss_fn=_nan_after(5), nan_check="skip",
                                      max_skips=100)
    trainer.fit(train, valid)  # every step from the 6th on has a NaN loss: all dropped
    assert trainer.state.step == 5 and trainer.health.skipped == len(train) - 5
    assert trainer.precision.skipped == 0  # the check's drops are not the scaler's


def test_a_nan_parameter_still_stops_under_amp():
    trainer, train, valid, _ = _parts("O2", epochs=1)

    def poison(event):
        if event.step == 3:
            event.model.out.bias.data[0] = np.nan

    trainer.on(EndIteration, poison)
    with pytest.raises(NonFiniteError) as info:
        trainer.fit(train, valid)
    assert "First non-finite quantity: the parameter 'out.bias'" in info.value.report


class _RecordingClip:
    """A gradient clip that clips nothing and records the largest gradient it was given."""

    def __init__(self):
        self.largest = 0.0

    def __call__(self, params_grads):
        for _, grad in params_grads:
            self.largest = max(self.largest, float(np.abs(grad.astype(np.float64)).max()))
        return params_grads


def test_clipping_sees_unscaled_gradients():
    clip = _RecordingClip()
    trainer, train, valid, _ = _parts("O1", epochs=1, grad_clip=clip)
    trainer.fit(train, valid)
    assert 0 < clip.largest < 10  # scaled by 65536 they would be in the thousands


def test_accumulation_unscales_once_per_step():
    trainer, train, valid, _ = _parts("O1", epochs=2, accumulate=3, loss_scale=2.0 ** 24)
    trainer.fit(train, valid)
    steps = 2 * math.ceil(len(train) / 3)
    skipped = trainer.precision.skipped
    assert 0 < skipped < steps and trainer.state.step == steps - skipped
    assert trainer.precision.metrics()["train/loss_scale"] == 2.0 ** 24 / 2 ** skipped


def test_inspected_gradient_statistics_are_of_the_unscaled_gradients():
    from runner.train.inspection import Inspector  # noqa: PLC0415

    trainer, train, _, sink = _parts("O1", epochs=1, loss_scale=1024.0)
    Inspector(schema.InspectConfig(every=1, grad_stats=True)).attach(trainer)
    unscaled = {}  # the step's real gradient, after the loop unscaled it
    trainer.on(EndIteration, lambda e: unscaled.setdefault(e.trainer.state.step - 1, float(
        np.linalg.norm(e.trainer.model.parameters()[-1].grad_data.astype(np.float64)))))
    trainer.fit(train)
    name = f"inspect/{list(dict(trainer.model.named_parameters()))[-1]}/grad_l2"
    points = {step: v for step, key, v in sink.points if key == name}
    assert trainer.precision.skipped == 0 and len(points) == len(unscaled) > 3
    for step, value in points.items():  # not 1024 times larger
        assert value == pytest.approx(unscaled[step], rel=1e-3), step


def test_evaluation_runs_under_auto_cast():
    trainer, _, valid, _ = _parts("O1", epochs=1)
    seen = []
    original = trainer.model.forward

    def forward(x):
        out = original(x)
        seen.append(out.dtype)
        return out

    trainer.model.forward = forward
    evaluate(trainer.model, valid, trainer.precision)
    evaluate(trainer.model, valid)
    half = len(seen) // 2
    assert set(seen[:half]) == {core.float16} and set(seen[half:]) == {core.float32}


def _params(trainer):
    return {k: v.data.copy() for k, v in trainer.model.state_dict().items()}


def test_o2_stopped_mid_epoch_and_resumed_ends_bit_identical(tmp_path):
    # loss_scale 2**20 overflows in the first steps: the scale moves before the checkpoint
    reference, train, valid, ref_sink = _parts("O2", loss_scale=2.0 ** 20)
    reference.fit(train, valid)

    first, train, valid, _ = _parts("O2", loss_scale=2.0 ** 20)
    first.checkpointer = checkpoint.Checkpointer(tmp_path, every=7, keep_last=2)
    first.on(EndIteration, lambda e: e.step == 30 and e.trainer.stop())
    first.fit(train, valid)
    saved = checkpoint.latest(tmp_path)

    second, train, valid, sink2 = _parts("O2", seed=123, loss_scale=2.0 ** 20)
    checkpoint.restore(second, train, checkpoint.load(saved))
    saved_amp = checkpoint.load(saved)["amp"]
    assert second.precision.state_dict()["skipped"] == saved_amp["skipped"] > 0
    assert second.precision.metrics()["train/loss_scale"] == float(saved_amp["scaler"]["scale"][0])
    assert second.optimizer._master_weights  # the float32 masters came back
    second.fit(train, valid)
    assert reference.precision.skipped > 0
    final, expected = _params(second), _params(reference)
    for key in expected:
        assert np.array_equal(final[key], expected[key]), key
    masters = second.optimizer._master_weights
    for name, value in reference.optimizer._master_weights.items():
        assert np.array_equal(masters[name], value), name
    assert second.precision.metrics() == reference.precision.metrics()
    last = max(p[0] for p in ref_sink.points)
    assert [p for p in sink2.points if p[0] == last] == [p for p in ref_sink.points
                                                           if p[0] == last]


def test_a_checkpoint_from_before_amp_resumes_without_it_and_refuses_another_level(
        tmp_path, monkeypatch):
    from runner.track import tracking  # noqa: PLC0415
    from runner.train import resume  # noqa: PLC0415
    from tests.runner.train.test_resume import _cfg, _save  # noqa: PLC0415

    added = ("trainer.amp", "trainer.loss_scale", "trainer.loss_scale_dynamic")
    current = resume.fingerprint
    monkeypatch.setattr(resume, "fingerprint",
                        lambda cfg: {k: v for k, v in current(cfg).items() if k not in added})
    _save(tmp_path, _cfg(False))
    monkeypatch.setattr(resume, "fingerprint", current)
    found = resume.find(_cfg(str(tmp_path)), tracking.NullTracker())
    assert found is not None and found.body.get("amp") is None  # amp off: no scaler state
    with pytest.raises(checkpoint.CheckpointError,
                       match=r"trainer.amp: checkpoint off \(the default\) vs now O2"):
        resume.find(_cfg(str(tmp_path), amp="O2"), tracking.NullTracker())


def test_precision_refuses_an_unknown_level():
    with pytest.raises(ValueError, match=r"trainer.amp='O3' is not a level: use off, O1 or O2"):
        amp.Precision("O3")


TRAIN = ["model=mlp", "model.hidden=[16]", "optim.lr=0.01", "trainer.epochs=1",
         "trainer.progress=false", "runtime.threads=1", "tracking.system_metrics=false",
         "trainer.log_every=5"]


@pytest.fixture(scope="module")
def cli(tmp_path_factory):
    """Every CLI case at once; name -> (returncode, stdout, stderr, cwd)."""
    cases = {
        "O1": [*TRAIN, "trainer.amp=O1"],
        "O2": [*TRAIN, "trainer.amp=O2"],
        # A convolution takes no float32 sample into float16 weights outside auto_cast: the
        # model summary, before training, runs under the run's auto_cast too.
        "O2_conv": ["model=resnet", "model.width=4", "model.channels=[8]", *TRAIN[2:],
                    "trainer.amp=O2"],
        "bad_level": [*TRAIN, "trainer.amp=O3"],
        "bad_scale": [*TRAIN, "trainer.amp=O1", "trainer.loss_scale=0"],
    }
    return run_all({name: (tmp_path_factory.mktemp(name), args)
                    for name, args in cases.items()}, timeout=300)


@pytest.mark.parametrize("level", ["O1", "O2"])
def test_a_cli_run_in_mixed_precision_finishes_with_finite_metrics(cli, level):
    code, out, err, cwd = cli[level]
    assert code == 0, err[-3000:] + out[-2000:]
    assert f"trainer.amp={level} on the CPU" in err + out  # the one-line warning
    import mlflow  # noqa: PLC0415 - heavy, only here

    client = mlflow.MlflowClient(tracking_uri=f"sqlite:///{cwd / 'mlflow.db'}")
    (run,) = client.search_runs([e.experiment_id for e in client.search_experiments()])
    metrics = run.data.metrics
    assert all(math.isfinite(v) for v in metrics.values())
    assert metrics["train/loss_scale"] > 0 and "train/amp_skipped_steps" in metrics
    assert metrics["test/acc"] > 0.5
    assert run.data.params["trainer.amp"] == level
    # The saved weights are float32 whatever the level: the MLflow model predicts in float32.
    (weights,) = glob.glob(str(cwd / "outputs" / "*" / "*" / "model.pdparams"))
    state = serialize.load(weights, return_numpy=True)
    assert {v.dtype for v in state.values()} == {np.dtype("float32")}
    from runner.track import pyfunc  # noqa: PLC0415

    (model_dir,) = glob.glob(str(cwd / "outputs" / "*" / "*" / pyfunc.ARTIFACT_PATH))
    loaded = mlflow.pyfunc.load_model(model_dir)
    batch = np.zeros((2, 1, 8, 8), dtype=np.float32)
    predicted = np.asarray(loaded.predict(batch))
    assert predicted.dtype == np.float32 and np.isfinite(predicted).all()


def test_an_o2_convolutional_run_summarises_its_float16_model_and_trains(cli):
    code, out, err, cwd = cli["O2_conv"]
    assert code == 0, err[-3000:] + out[-2000:]
    (table,) = glob.glob(str(cwd / "outputs" / "*" / "*" / "model_summary.txt"))
    assert "Conv2D" in Path(table).read_text()


@pytest.mark.parametrize("case, needles", [
    ("bad_level", ["trainer.amp", "'O3'", "one of off, O1, O2"]),
    ("bad_scale", ["trainer.loss_scale", "a finite number > 0"]),
])
def test_bad_amp_settings_are_one_paragraph_with_status_2(cli, case, needles):
    code, _, err, cwd = cli[case]
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tomlrun: error: "), err
    for needle in needles:
        assert needle in err
    assert not Path(cwd, "mlflow.db").exists() and not os.path.exists(cwd / "outputs")
