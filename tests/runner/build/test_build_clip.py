"""The clip group and the model's [error_clip] table: config -> clip objects and layer settings."""
import pytest
from hydra import compose, initialize_config_dir

from core import nn
from runner import build
from runner.config import schema
from runner.config.options import load_option
from runner.config.paths import config_dirs
from runner.config.validation import validate
from runner.errors import ConfigError

DIGITS_SHAPE = (1, 8, 8)


@pytest.fixture(scope="module")
def make():
    with initialize_config_dir(config_dir=str(config_dirs()[0]), version_base=None):
        yield lambda *overrides: validate(compose("config", overrides=list(overrides)))


def _cnn(*overrides):
    return build.build_model(load_option("model", "cnn", *overrides), DIGITS_SHAPE, 10)


@pytest.mark.parametrize("name, cls", [("value", nn.ClipGradByValue),
                                       ("norm", nn.ClipGradByNorm),
                                       ("global_norm", nn.ClipGradByGlobalNorm)])
def test_each_clip_option_builds_its_class_with_per_parameter_thresholds(make, name, cls):
    cfg = make(f"clip={name}", "clip.threshold=2.5", "+clip.params={fc.*: 10.0}")
    clip = build.build_clip(cfg.clip, _cnn())
    assert type(clip) is cls and clip.threshold == 2.5 and clip.thresholds == {"fc.*": 10.0}


def test_none_and_error_build_no_gradient_clip_and_error_sets_every_computing_layer(make):
    assert build.build_clip(make().clip, _cnn()) is None
    model = _cnn("error_clip={fc: 5.0}")
    assert build.build_clip(make("clip=error").clip, model) is None
    clipped = {name: layer.error_clip for name, layer in model.named_sublayers()}
    assert clipped["fc"] == 5.0  # the model's own table wins over the group's threshold
    assert clipped["conv1"] == clipped["max_pool2"] == 100.0
    assert model.error_clip is None  # the Sequential itself computes nothing


def test_the_models_error_clip_table_sets_named_layers(make):
    cfg = make("+model.error_clip.fc=100.0", "+model.error_clip.conv2=50")
    model = build.build_model(cfg.model, DIGITS_SHAPE, 10)
    assert (model.fc.error_clip, model.conv2.error_clip, model.conv1.error_clip) == \
        (100.0, 50.0, None)


def test_unknown_layers_and_unmatched_patterns_are_named():
    with pytest.raises(ConfigError, match=r"model.error_clip.fc9: the model has no layer 'fc9'; "
                                          r"its layers are conv1, act1, max_pool1"):
        _cnn("error_clip={fc9: 1.0}")
    cfg = schema.GradClipConfig(params={"dense.*": 1.0})
    with pytest.raises(ConfigError, match=r"clip.params.dense.\* matches no parameter of the "
                                          r"model: its parameters are conv1.weight"):
        build.build_clip(cfg, _cnn())


@pytest.mark.parametrize("overrides, message", [
    (["clip=norm", "clip.threshold=0"], "clip.threshold = 0 is not allowed: use a number > 0"),
    (["clip=value", "+clip.params={fc.weight: -1}"], "clip.params = {fc.weight: -1} is not "
                                                     "allowed: use a table of numbers > 0"),
    (["+model.error_clip.fc=abc"], "model.error_clip = {fc: 'abc'} has the wrong type: expected "
                                   "a table of names to numbers"),
    (["clip=error", "clip.error_clip=0"], "clip.error_clip = 0.0 is not allowed with clip=error"),
    (["trainer.nan_check=ignore"], "trainer.nan_check = 'ignore' is not allowed: use one of "
                                   "stop, skip, warn, off"),
    (["trainer.max_skips=0"], "trainer.max_skips = 0 is not allowed: use an integer >= 1"),
])
def test_bad_values_fail_validation_clearly(make, overrides, message):
    with pytest.raises(ConfigError) as info:
        make(*overrides)
    assert message in str(info.value)


def test_defaults_check_every_step_and_stop(make):
    trainer = make().trainer
    assert (trainer.nan_check, trainer.max_skips, trainer.nan_check_locate) == ("stop", 10, False)
