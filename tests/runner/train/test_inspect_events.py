"""Event accessors (layer outputs, parameters, gradients, Paddle's event.gm), config-driven
inspection, freezing, the memory report and the profiler."""
import dataclasses
import logging
import math

import numpy as np
import pytest

import core
from runner import build
from runner.config import schema
from runner.config.options import load_option
from runner.errors import ConfigError
from runner.train.events import EndForwardBackward, EndIteration
from runner.train.inspection import Inspector, statistics
from runner.train.loop import Trainer, evaluate
from runner.train.memory import MemoryReport, graph_bytes
from runner.train.profiling import Profiler

CFG = schema.TrainerConfig(epochs=1, batch_size=64, log_every=1000, progress=False)
SMALL_CNN = ("layers.conv1.out_channels=4", "layers.conv2.out_channels=6",
             "layers.conv1.kernel_size=3", "layers.conv1.padding=1",
             "layers.conv2.kernel_size=3", "layers.conv2.padding=1")
CNN = load_option("model", "cnn", *SMALL_CNN)


class Sink:
    def __init__(self):
        self.points = {}

    def log_metrics(self, metrics, step):
        for key, value in metrics.items():
            self.points.setdefault(key, []).append((step, value))

    def flush(self, force=False):
        pass


@pytest.fixture(scope="module")
def loaders():
    data = build.build_data(schema.DataConfig(), seed=0)
    return build.build_loaders(data, schema.DataConfig(), CFG)


def _trainer(model_cfg=CNN, optim=None):
    optim = optim or schema.AdamConfig(lr=0.01)
    core.seed(0)
    model = build.build_model(model_cfg, (1, 8, 8), 10)
    opt = build.build_optimizer(optim, model.parameters(), optim.lr)
    return Trainer(model, opt, CFG, sink=Sink())


def test_layer_outputs_of_watched_layers_match_a_direct_forward(loaders):
    trainer, seen = _trainer(), []
    trainer.watch("conv2", "fc")

    def check(event):
        if event.batch_id == 2:
            conv2, fc = event.layer_outputs("conv2"), event.layer_outputs("fc")
            with core.no_grad():  # the parameters are not updated yet: the same outputs
                expected_fc = trainer.model(event.batch.inputs).numpy()
            seen.append((conv2.shape, fc, expected_fc))

    trainer.on(EndForwardBackward, check)
    trainer.fit(loaders[0])
    shape, fc, expected = seen[0]
    assert shape == (64, 6, 4, 4)
    np.testing.assert_allclose(fc, expected, rtol=1e-5, atol=1e-6)


def test_the_faq_score_diff_handler_runs_as_written(loaders, caplog):
    """FAQ question 6, with our layer names: event.gm.getLayerOutputs(name)[name]["value"]."""
    logger = logging.getLogger("score_diff")
    trainer = _trainer()
    trainer.watch("fc", "flatten")
    diffs = []

    def score_diff(right_score, left_score):
        return np.average(np.abs(right_score - left_score))

    def event_handler(event):
        if isinstance(event, EndIteration):
            if event.batch_id % 25 == 0:
                diff = score_diff(
                    event.gm.getLayerOutputs("fc")["fc"]["value"],
                    event.gm.getLayerOutputs("flatten")["flatten"]["value"][:, :10])
                # %-formatting as in the FAQ (docs/inspect.md): the handler runs as written.
                logger.info(("Pass %d Batch %d : Cost %.6f, "  # noqa: UP031
                             "average absolute diff scores: %.6f") %
                            (event.pass_id, event.batch_id, event.cost, diff))
                diffs.append(diff)

    trainer.on(EndIteration, event_handler)
    with caplog.at_level(logging.INFO, logger="score_diff"):
        trainer.fit(loaders[0])
    assert len(diffs) == 1 and np.isfinite(diffs[0]) and diffs[0] > 0
    assert "Pass 0 Batch 0 : Cost" in caplog.text


def test_unwatched_layers_are_a_clear_error_and_no_hook_is_added(loaders):
    trainer, errors = _trainer(), []
    assert all(not layer._forward_post_hooks for layer in trainer.model.sublayers())

    def handler(event):
        with pytest.raises(KeyError, match="trainer.watch"):
            event.layer_outputs("conv1")
        errors.append(1)
        event.trainer.stop()

    trainer.on(EndIteration, handler)
    trainer.fit(loaders[0])
    assert errors == [1]
    with pytest.raises(ValueError, match="conv1, act1"):
        trainer.watch("conv9")


def test_parameters_and_gradients_by_name_before_the_update(loaders):
    trainer, seen = _trainer(), {}

    def before(event):
        seen["params"], seen["grads"] = event.parameters(), event.gradients()

    def after(event):
        seen["after"] = event.parameters()
        with pytest.raises(RuntimeError, match="EndForwardBackward"):
            event.gradients()
        event.trainer.stop()

    trainer.on(EndForwardBackward, before)
    trainer.on(EndIteration, after)
    trainer.fit(loaders[0])
    names = [name for name, _ in trainer.model.named_parameters()]
    assert list(seen["params"]) == names == list(seen["grads"])
    assert names[0] == "conv1.weight"
    grad = seen["grads"]["fc.bias"]
    assert grad.shape == (10,) and np.abs(grad).sum() > 0
    assert not np.array_equal(seen["params"]["fc.bias"], seen["after"]["fc.bias"])


def test_statistics_are_the_six_numbers():
    got = statistics(np.array([[0.0, 3.0], [-4.0, 0.0]], dtype=np.float32))
    assert got == {"mean": -0.25, "std": pytest.approx(np.std([0, 3, -4, 0])), "min": -4.0,
                   "max": 3.0, "l2": 5.0, "zero_frac": 0.5}


def test_config_driven_inspection_logs_every_n_steps(loaders):
    trainer = _trainer()
    cfg = schema.InspectConfig(every=5, layer_outputs=["conv2", "fc"], param_stats=True,
                               grad_stats=True)
    Inspector(cfg).attach(trainer)
    trainer.fit(loaders[0])
    points = trainer.sink.points
    steps = [step for step, _ in points["inspect/conv2/out_std"]]
    assert steps == list(range(0, len(loaders[0]), 5))
    for key in ("inspect/fc/out_max", "inspect/conv1.weight/param_l2",
                "inspect/conv1.weight/grad_zero_frac", "inspect/fc.bias/grad_mean"):
        assert key in points
    relu = points["inspect/fc/out_zero_frac"][0][1]
    assert 0 <= relu <= 1


def test_block_entry_and_copy_names_are_inspected_as_their_output_layers(loaders):
    """docs/models.md: ``hidden`` is the last copy's output, ``hidden.0`` the first copy's."""
    trainer = _trainer(load_option("model", "mlp", "hidden=[16,8]"))
    Inspector(schema.InspectConfig(every=5, layer_outputs=["hidden", "hidden.0"])).attach(
        trainer)
    trainer.watch("hidden.1.drop", "hidden.0.drop")
    seen = []

    def check(event):
        if event.batch_id == 3:
            seen.append(True)
            assert event.layer_outputs("hidden").shape == (64, 8)
            np.testing.assert_array_equal(event.layer_outputs("hidden"),
                                          event.layer_outputs("hidden.1.drop"))
            np.testing.assert_array_equal(event.layer_outputs("hidden.0"),
                                          event.layer_outputs("hidden.0.drop"))

    trainer.on(EndIteration, check)
    trainer.fit(loaders[0])
    points = trainer.sink.points
    assert seen and len(points["inspect/hidden/out_std"]) == len(points["inspect/hidden.0/out_l2"])
    assert len(points["inspect/hidden/out_std"]) > 1


def test_with_accumulation_gradients_are_inspected_once_complete(loaders):
    trainer = _trainer()
    trainer = Trainer(trainer.model, trainer.optimizer, dataclasses.replace(CFG, accumulate=3),
                      sink=Sink())
    Inspector(schema.InspectConfig(every=2, grad_stats=True)).attach(trainer)
    summed = {}
    trainer.on(EndForwardBackward, lambda e: e.trainer.step_complete and summed.setdefault(
        e.step, statistics(e.trainer.model.fc.bias.grad_data)["l2"]))
    trainer.fit(loaders[0])
    points = trainer.sink.points["inspect/fc.bias/grad_l2"]
    steps = math.ceil(len(loaders[0]) / 3)
    assert [step for step, _ in points] == list(range(0, steps, 2))  # one point per step
    assert [value for _, value in points] == [summed[s] for s, _ in points]  # the whole step's


def test_freezing_a_layer_keeps_it_unchanged_and_out_of_optimizer_state(loaders):
    frozen = load_option("model", "cnn", *SMALL_CNN, "freeze=[conv1]")
    trainer = _trainer(frozen)
    before = {n: p.data.copy() for n, p in trainer.model.named_parameters()}
    trainer.fit(loaders[0])
    after = dict(trainer.model.named_parameters())
    assert np.array_equal(before["conv1.weight"], after["conv1.weight"].data)
    assert np.array_equal(before["conv1.bias"], after["conv1.bias"].data)
    assert not np.array_equal(before["conv2.weight"], after["conv2.weight"].data)
    state = trainer.optimizer.state_dict()["state"]
    assert "conv1.weight" not in state and "conv2.weight" in state


def test_freezing_an_unknown_layer_or_everything_is_refused():
    with pytest.raises(ConfigError, match="not a layer of this model: the layers are conv1"):
        build.build_model(load_option("model", "cnn", "freeze=[conv7]"), (1, 8, 8), 10)
    with pytest.raises(ConfigError, match="every parameter"):
        build.build_model(load_option("model", "mlp", "hidden=[]", "freeze=[out]"), (1, 8, 8), 10)


def test_memory_report_shows_adadelta_needs_more_than_momentum(loaders):
    sizes = {}
    for optim in (schema.MomentumConfig(), schema.AdadeltaConfig(), schema.AdamConfig()):
        trainer, calls = _trainer(optim=optim), []
        MemoryReport(trainer).attach()
        trainer.on(EndForwardBackward, calls.append)  # after the report's own handler
        trainer.on(EndIteration, lambda e: e.step == 2 and e.trainer.stop())
        trainer.fit(loaders[0])
        assert len(calls) == 2  # the report leaving does not skip the next handler
        assert trainer._handlers[EndForwardBackward] == [calls.append]
        sizes[optim.name] = {k: v[0][1] for k, v in trainer.sink.points.items()
                             if k.startswith("memory/")}
    params = sizes["adam"]["memory/params_bytes"]
    assert params == 4 * sum(p.size for p in trainer.model.parameters())
    assert sizes["momentum"]["memory/optimizer_state_bytes"] == params  # one velocity
    assert sizes["adadelta"]["memory/optimizer_state_bytes"] == 2 * params
    assert sizes["adam"]["memory/grads_bytes"] == params
    assert sizes["adam"]["memory/activation_bytes"] > 64 * 4 * 6 * 8 * 8  # conv outputs at least


def test_graph_bytes_counts_interior_tensors_once():
    x = core.to_tensor(np.ones((2, 3), np.float32), stop_gradient=False)
    y = x * 2.0
    z = y + y
    assert graph_bytes(z) == 2 * 24  # y and z; the leaf x is not an activation


def test_profiler_times_every_layer_and_the_rest(loaders, tmp_path):
    trainer = _trainer()
    profiler = Profiler(trainer)
    profiler.attach()
    trainer.fit(loaders[0])
    assert profiler.batches == len(loaders[0])
    forward = dict(profiler.forward)
    evaluate(trainer.model, loaders[1])
    assert dict(profiler.forward) == forward  # evaluation is not profiled as training
    for name in ("conv1", "act1", "max_pool1", "conv2", "flatten", "fc"):
        assert profiler.forward[name] > 0 and profiler.backward[name] > 0, name
    assert profiler.other["optimizer"] > 0 and profiler.other["loss"] > 0
    parts = sum(profiler.forward.values()) + sum(profiler.backward.values()) \
        + profiler.other["loss"] + profiler.other["optimizer"]
    assert parts <= profiler.other["step"] * 1.01

    class Tracker:
        logged = []

        def log_artifact(self, path, artifact_path=None):
            self.logged.append(path)

    path = profiler.finish(Tracker(), tmp_path)
    text = open(path).read()
    assert Tracker.logged == [path] and "conv2" in text and "optimizer" in text
