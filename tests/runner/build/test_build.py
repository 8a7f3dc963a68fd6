"""runner.build: every registry entry builds, shapes follow the data, bad names are refused."""
import math
from pathlib import Path

import numpy as np
import pytest

import core
from core import optimizer, regularizer
from runner import build
from runner.config import schema
from runner.config.options import load_option
from runner.errors import ConfigError, UserError

DATA = Path("/work/shared/data")  # test data only; the product never reads it
DIGITS_SHAPE, MNIST_SHAPE = (1, 8, 8), (1, 28, 28)


def _forward(model, shape, batch=3):
    x = core.to_tensor(np.random.default_rng(0).random((batch, *shape), dtype=np.float32))
    with core.no_grad():
        return model(x)


# ----- models ---------------------------------------------------------------------------------

# Image models (the shipped specs); cbow, gru and lstm take ids or sequences
# (tests/runner/build/test_sequence_build.py).
@pytest.mark.parametrize("name", ["cnn", "mlp"])
@pytest.mark.parametrize("shape", [DIGITS_SHAPE, MNIST_SHAPE])
def test_every_model_builds_and_maps_images_to_class_scores(name, shape):
    cfg = load_option("model", name)
    model = build.build_model(cfg, shape, num_classes=10)
    assert _forward(model, shape).shape == [3, 10]


def test_cnn_is_the_tutorial_network_on_mnist():
    model = build.build_model(load_option("model", "cnn"), MNIST_SHAPE, 10)
    shapes = {name: p.shape for name, p in model.named_parameters()}
    assert shapes == {"conv1.weight": [20, 1, 5, 5], "conv1.bias": [20],
                      "conv2.weight": [20, 20, 5, 5], "conv2.bias": [20],
                      "fc.weight": [980, 10], "fc.bias": [10]}  # 980 = 20 x 7 x 7


def test_cnn_on_digits_flattens_what_the_pools_leave():
    model = build.build_model(load_option(
        "model", "cnn", "layers.conv1.out_channels=4", "layers.conv2.out_channels=6",
        "layers.conv1.kernel_size=3", "layers.conv1.padding=1", "layers.conv2.kernel_size=3",
        "layers.conv2.padding=1"), DIGITS_SHAPE, 10)
    assert dict(model.named_parameters())["fc.weight"].shape == [6 * 2 * 2, 10]


@pytest.mark.parametrize("activation", ["ReLU", "Tanh", "Sigmoid", "GELU"])
def test_mlp_blocks_activations_and_dropout(activation):
    cfg = load_option("model", "mlp", "hidden=[16,8]", f"activation={activation}", "dropout=0.5")
    model = build.build_model(cfg, DIGITS_SHAPE, 10)
    layers = dict(model.named_sublayers())
    assert [name for name, layer in layers.items() if not layer._sub_layers] == [
        "flatten", "hidden.0.fc", "hidden.0.act", "hidden.0.drop", "hidden.1.fc",
        "hidden.1.act", "hidden.1.drop", "out"]
    assert type(layers["hidden.0.act"]).__name__ == activation
    assert dict(model.named_parameters())["hidden.0.fc.weight"].shape == [64, 16]
    model.eval()
    first, second = _forward(model, DIGITS_SHAPE), _forward(model, DIGITS_SHAPE)
    np.testing.assert_array_equal(first.numpy(), second.numpy())  # no dropout in eval mode


def test_cnn_that_pools_to_nothing_is_a_config_error():
    with pytest.raises(ConfigError, match=r"max_pool2 \(MaxPool2D\) cannot take its input"):
        build.build_model(load_option("model", "cnn"), (1, 3, 3), 10)


def test_cnn_needs_images():
    with pytest.raises(ConfigError,
                       match=r"conv1 \(Conv2D\) cannot take its input: 'input' \[40\]"):
        build.build_model(load_option("model", "cnn"), (40,), 10)


# ----- optimizers -----------------------------------------------------------------------------

def _params():
    return build.build_model(load_option("model", "mlp", "hidden=[4]"), (1, 2, 2), 3).parameters()


@pytest.mark.parametrize("name", sorted(build.OPTIMIZERS))
def test_every_optimizer_builds_with_its_schema_defaults_and_steps(name):
    cfg = schema.OPTIM_SCHEMAS[name]()
    params = _params()
    opt = build.build_optimizer(cfg, params, cfg.lr)
    assert type(opt).__name__.lower() == name
    assert opt.get_lr() == cfg.lr
    before = [p.numpy().copy() for p in params]
    for p in params:
        p.grad_data = np.ones_like(p.data)
    opt.step()
    assert any(not np.array_equal(b, p.numpy()) for b, p in zip(before, params))


def test_weight_decay_becomes_the_chosen_regularizer():
    params = _params()
    l2 = build.build_optimizer(schema.AdamConfig(weight_decay=1e-4), params, 0.1)
    l1 = build.build_optimizer(schema.SGDConfig(weight_decay=0.01, regularizer="l1"), params, 0.1)
    none = build.build_optimizer(schema.MomentumConfig(), params, 0.1)
    assert isinstance(l2.regularization, regularizer.L2Decay)
    assert l2.regularization.coeff == 1e-4
    assert isinstance(l1.regularization, regularizer.L1Decay)
    assert none.regularization is None


def test_adamw_decays_decoupled_and_takes_a_scheduler():
    schedule = optimizer.lr.StepDecay(0.01, step_size=2)
    opt = build.build_optimizer(schema.AdamWConfig(weight_decay=0.05), _params(), schedule)
    assert isinstance(opt, optimizer.AdamW) and opt.regularization is None
    assert opt.get_lr() == 0.01
    schedule.step()
    schedule.step()
    assert math.isclose(opt.get_lr(), 0.001)


@pytest.mark.parametrize("cfg,cls,kwargs", [
    (schema.MomentumConfig(momentum=0.5, nesterov=True), optimizer.Momentum,
     {"momentum": 0.5, "use_nesterov": True}),
    (schema.AdamConfig(beta1=0.5, beta2=0.9, epsilon=1e-3), optimizer.Adam,
     {"beta1": 0.5, "beta2": 0.9, "epsilon": 1e-3}),
    (schema.NAdamConfig(beta1=0.5, momentum_decay=0.01), optimizer.NAdam,
     {"beta1": 0.5, "momentum_decay": 0.01}),
    (schema.RAdamConfig(beta2=0.9, epsilon=1e-3), optimizer.RAdam,
     {"beta2": 0.9, "epsilon": 1e-3}),
    (schema.AdagradConfig(epsilon=1e-2, initial_accumulator_value=0.5), optimizer.Adagrad,
     {"epsilon": 1e-2, "initial_accumulator_value": 0.5}),
    (schema.AdadeltaConfig(rho=0.5, epsilon=1e-2), optimizer.Adadelta,
     {"rho": 0.5, "epsilon": 1e-2}),
    (schema.RMSPropConfig(rho=0.5, momentum=0.3, centered=True), optimizer.RMSProp,
     {"rho": 0.5, "momentum": 0.3, "centered": True, "epsilon": 1e-6}),
], ids=lambda v: getattr(v, "name", ""))
def test_schema_fields_reach_the_optimizer(cfg, cls, kwargs):
    """Two steps through the builder move the weights exactly as Paddle-named arguments do."""
    built, direct = _params(), _params()
    for a, b in zip(built, direct):
        b.set_value(a.numpy())
    opts = [build.build_optimizer(cfg, built, 0.1),
            cls(learning_rate=0.1, parameters=direct, **kwargs)]
    grads = [np.random.default_rng(i).standard_normal(p.shape).astype(np.float32)
             for i, p in enumerate(built)]
    for _ in range(2):
        for params, opt in zip((built, direct), opts):
            for p, g in zip(params, grads):
                p.grad_data = g.copy()
            opt.step()
    for a, b in zip(built, direct):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


# ----- schedules ------------------------------------------------------------------------------

def _rates(schedule, steps):
    rates = []
    for _ in range(steps):
        rates.append(schedule() if callable(schedule) else schedule)
        if callable(schedule):
            schedule.step()
    return rates


@pytest.mark.parametrize("name", sorted(build.SCHEDULES))
def test_every_schedule_builds_and_starts_at_lr(name):
    schedule = build.build_schedule(schema.ScheduleConfig(name=name), 0.1, epochs=3,
                                    steps_per_epoch=10)
    assert _rates(schedule, 1) == [0.1]


def test_constant_is_a_float_and_warmup_ramps_from_zero():
    assert build.build_schedule(schema.ScheduleConfig(), 0.1, 3, 10) == 0.1
    warm = build.build_schedule(schema.ScheduleConfig(warmup_epochs=0.5), 0.1, 3, 10)
    rates = _rates(warm, 8)
    assert rates[0] == 0.0 and math.isclose(rates[1], 0.02) and rates[5:] == [0.1] * 3


def test_step_decays_every_step_epochs_in_batches():
    cfg = schema.ScheduleConfig(name="step", step_epochs=2, gamma=0.5)
    rates = _rates(build.build_schedule(cfg, 0.1, 6, 10), 41)
    assert rates[19] == 0.1 and rates[20] == 0.05 and rates[40] == 0.025


def test_cosine_reaches_min_lr_on_the_last_batch_after_warmup():
    cfg = schema.ScheduleConfig(name="cosine", warmup_epochs=1, min_lr=0.001)
    rates = _rates(build.build_schedule(cfg, 0.1, epochs=3, steps_per_epoch=10), 31)
    assert rates[10] == 0.1 and math.isclose(rates[30], 0.001)
    assert all(a >= b for a, b in zip(rates[10:30], rates[11:31]))


# ----- data -----------------------------------------------------------------------------------

def test_digits_splits_shapes_and_loaders():
    data = build.build_data(schema.DataConfig(), seed=0)
    assert data.input_shape == DIGITS_SHAPE and data.num_classes == 10
    assert len(data.train) + len(data.valid) + len(data.test) == 1797
    trainer = schema.TrainerConfig(batch_size=100)
    train, valid, test = build.build_loaders(data, schema.DataConfig(drop_last=True), trainer)
    assert len(train) == len(data.train) // 100 and len(test) == math.ceil(len(data.test) / 100)
    images, labels = next(iter(train))
    assert isinstance(images, core.Tensor) and images.shape == [100, 1, 8, 8]
    assert labels.shape == [100]


def test_loaders_upload_to_the_current_device_from_the_prefetch_thread(monkeypatch):
    import threading  # noqa: PLC0415

    from core import backend  # noqa: PLC0415

    data = build.build_data(schema.DataConfig(), seed=0)
    loaders = build.build_loaders(data, schema.DataConfig(prefetch=2), schema.TrainerConfig())
    assert all(loader.device == backend.current_device() for loader in loaders)
    threads = set()
    original = backend.asarray
    monkeypatch.setattr(backend, "asarray", lambda data, dtype=None: threads.add(
        threading.current_thread().name) or original(data, dtype))
    images, labels = next(iter(loaders[0]))
    assert isinstance(images, core.Tensor) and labels._value_range is not None
    assert threads == {"tomlrun-prefetch"}


def test_no_validation_set_when_valid_size_is_zero():
    data = build.build_data(schema.DataConfig(valid_size=0), seed=0)
    assert data.valid is None
    _, valid, _ = build.build_loaders(data, schema.DataConfig(), schema.TrainerConfig())
    assert valid is None


@pytest.mark.parametrize("name,folder", [("mnist", "mnist"), ("fashion_mnist", "fashion-mnist")])
def test_idx_datasets_build_from_a_root(name, folder):
    if not (DATA / folder).is_dir():
        pytest.skip(f"{DATA / folder} is not on this machine")
    data = build.build_data(schema.DataConfig(name=name, root=str(DATA / folder),
                                              valid_size=10000), seed=0)
    assert data.input_shape == MNIST_SHAPE and data.num_classes == 10
    assert (len(data.train), len(data.valid), len(data.test)) == (50000, 10000, 10000)


def test_missing_idx_files_are_a_user_error(tmp_path):
    cfg = schema.DataConfig(name="mnist", root=str(tmp_path), cache_dir=str(tmp_path / "cache"))
    with pytest.raises(UserError, match="data.root"):
        build.build_data(cfg, seed=0)


def test_refused_sizes_are_a_config_error():
    with pytest.raises(ConfigError, match="valid_size"):
        build.build_data(schema.DataConfig(valid_size=5000), seed=0)


def test_batch_larger_than_the_data_with_drop_last_is_a_config_error():
    data = build.build_data(schema.DataConfig(), seed=0)
    with pytest.raises(ConfigError, match="drop_last"):
        build.build_loaders(data, schema.DataConfig(drop_last=True),
                            schema.TrainerConfig(batch_size=5000))


# ----- unknown names --------------------------------------------------------------------------

@pytest.mark.parametrize("call,match", [
    (lambda: build.build_model(schema.ModelConfig(name="rnn"), DIGITS_SHAPE, 10),
     "cbow, gru, lstm.*a layers table"),
    (lambda: build.build_optimizer(schema.OptimConfig(name="lamb"), [], 0.1), "adadelta"),
    (lambda: build.build_schedule(schema.ScheduleConfig(name="poly"), 0.1, 1, 1), "cosine"),
    (lambda: build.build_data(schema.DataConfig(name="cifar"), 0), "fashion_mnist"),
    (lambda: build.build_clip(schema.ClipConfig(name="adaptive")), "global_norm, none"),
    (lambda: build.build_model(load_option("model", "mlp", "activation=gelu"), DIGITS_SHAPE, 10),
     "'gelu' is not a known layer type: did you mean GELU"),
    (lambda: build.build_optimizer(schema.SGDConfig(weight_decay=0.1, regularizer="l3"),
                                   [], 0.1), "l1, l2"),
])
def test_unknown_names_list_the_valid_ones(call, match):
    with pytest.raises(ConfigError, match=match):
        call()


def test_a_warm_up_as_long_as_the_run_is_a_warning(caplog):
    cfg = schema.ScheduleConfig(name="cosine", warmup_epochs=5)
    with caplog.at_level("WARNING"):
        build.build_schedule(cfg, 0.1, epochs=2, steps_per_epoch=10)
    assert "schedule.warmup_epochs = 5 covers the whole run (2 epochs)" in caplog.text
    caplog.clear()
    with caplog.at_level("WARNING"):
        build.build_schedule(cfg, 0.1, epochs=6, steps_per_epoch=10)
    assert "warmup_epochs" not in caplog.text
