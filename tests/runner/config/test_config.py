"""runner/config/validation.py: every shipped config composes and validates; bad values fail
clearly."""
from __future__ import annotations

import copy
import dataclasses

import pytest
from hydra import compose, initialize_config_dir
from hydra.core.override_parser.overrides_parser import OverridesParser
from omegaconf import OmegaConf

from runner.config import schema
from runner.config.options import load_option
from runner.config.paths import config_dirs
from runner.config.validation import flatten, validate
from runner.errors import ConfigError, UserError

CONF, EXPERIMENTS = config_dirs()
GROUP_OPTIONS = sorted((folder.name, path.stem) for folder in CONF.iterdir() if folder.is_dir()
                       for path in folder.glob("*.toml"))
EXPERIMENT_NAMES = sorted(path.stem for path in EXPERIMENTS.glob("*.toml"))


@pytest.fixture(scope="module")
def make():
    """compose(overrides) -> composed config, with Hydra initialised once for the module."""
    with initialize_config_dir(config_dir=str(CONF), version_base=None):
        yield lambda *overrides: compose("config", overrides=list(overrides))


@pytest.fixture(scope="module")
def edit(make):
    """Value overrides applied to the composed default config (Hydra's grammar, 30x faster)."""
    base = make()
    parser = OverridesParser.create()

    def apply(*overrides):
        cfg = copy.deepcopy(base)
        for override in parser.parse_overrides(list(overrides)):
            assert not override.is_delete() and "/" not in override.key_or_group
            OmegaConf.update(cfg, override.key_or_group, override.value(), force_add=True)
        return cfg

    return apply


def _error(make, *overrides) -> str:
    with pytest.raises(ConfigError) as info:
        validate(make(*overrides))
    message = str(info.value)
    assert "\n" not in message  # one paragraph
    return message


def test_every_group_and_experiment_is_shipped():
    assert {group for group, _ in GROUP_OPTIONS} == {"model", "optim", "schedule", "clip", "data"}
    assert {name for group, name in GROUP_OPTIONS if group == "optim"} == set(
        schema.OPTIM_SCHEMAS)
    assert {"mnist_cnn", "digits_mlp"} <= set(EXPERIMENT_NAMES)


@pytest.mark.parametrize("group, option", GROUP_OPTIONS)
def test_every_group_option_composes_and_validates(make, group, option):
    run_config = validate(make(f"{group}={option}"))
    assert getattr(run_config, group).name == option  # the file name is the option's name


@pytest.mark.parametrize("name", EXPERIMENT_NAMES)
def test_every_experiment_composes_and_validates(make, name):
    assert isinstance(validate(make(f"+experiment={name}")), schema.RunConfig)


def test_sweep_direction_follows_the_objective(make):
    """sweep.direction was maximize whatever the objective, so a sweep of valid/loss picked
    its worst job as the best; by default it now follows the objective (a loss is minimized),
    for the grid sweeper and the Optuna sweeper (which reads ${sweep.direction}) alike."""
    from hydra import compose

    import hydra_plugins.tomlrun_sweep  # noqa: F401 - registers hydra/sweeper=optuna

    assert validate(make()).sweep.direction == "maximize"
    assert validate(make("trainer.objective=valid/loss")).sweep.direction == "minimize"
    assert validate(make("sweep.objective=train/loss")).sweep.direction == "minimize"
    assert validate(make("trainer.objective=valid/loss", "sweep.direction=maximize")
                    ).sweep.direction == "maximize"
    cfg = compose("config", overrides=["hydra/sweeper=optuna", "trainer.objective=valid/loss"],
                  return_hydra_config=True)
    assert cfg.hydra.sweeper.direction == "minimize"
    assert ("sweep.direction = 'auto' is not allowed: use maximize or minimize (or leave it "
            "out: it then follows sweep.objective, a loss minimized"
            in _error(make, "sweep.direction=auto"))


def test_default_config(make):
    run_config = validate(make())
    assert isinstance(run_config.model, schema.SpecConfig) and run_config.model.name == "cnn"
    assert isinstance(run_config.optim, schema.AdamConfig)
    assert (run_config.schedule.name, run_config.clip.name, run_config.data.name) == (
        "constant", "none", "digits")
    assert run_config.device == "cpu"
    # Defaults picked to reach >= 95% on digits within a minute; the rest are the schema's.
    assert (run_config.trainer.epochs, run_config.trainer.batch_size) == (15, 32)
    assert run_config.optim.lr == 0.002
    schema_trainer = dataclasses.replace(schema.TrainerConfig(), epochs=15, batch_size=32)
    assert run_config.trainer == schema_trainer
    assert run_config.runtime == schema.RuntimeConfig()
    assert run_config.tracking == schema.TrackingConfig()


def test_mnist_cnn_reproduces_the_paddle_tutorial(make):
    run_config = validate(make("+experiment=mnist_cnn"))
    assert run_config.model == load_option("model", "cnn")  # the tutorial's network
    assert run_config.data.name == "mnist" and run_config.data.drop_last
    optim = run_config.optim
    assert (optim.name, optim.lr, optim.weight_decay, optim.regularizer) == (
        "adam", 0.001, 1e-5, "l2")
    trainer = run_config.trainer
    assert (trainer.batch_size, trainer.epochs, trainer.log_every) == (100, 5, 200)


def test_an_option_is_checked_by_its_name_key(make):
    run_config = validate(make("model=mlp", "model.hidden=[32]", "model.dropout=0.25"))
    assert run_config.model == load_option("model", "mlp", "hidden=[32]", "dropout=0.25")


def test_early_stop_best_and_accumulate_keys(edit):
    trainer = validate(edit("trainer.early_stop=3", "trainer.early_stop_delta=0.001",
                            "trainer.objective=valid/loss", "trainer.keep_best=true",
                            "trainer.test_on=best", "trainer.accumulate=4",
                            "trainer.objective_direction=minimize")).trainer
    assert (trainer.early_stop, trainer.early_stop_delta, trainer.keep_best) == (3, 0.001, True)
    assert (trainer.test_on, trainer.accumulate, trainer.objective_direction) == (
        "best", 4, "minimize")


def test_dotted_layer_names_in_per_layer_tables_need_no_quoting(make):
    """+model.error_clip.hidden.0.fc=100 nests as {hidden: {0: {fc: 100}}} in Hydra: the
    table's keys are the dotted layer names either way."""
    nested = validate(make("model=mlp", "+model.error_clip.hidden.0.fc=100",
                           "+model.error_clip.out=5", "clip=error", "clip.error_clip=1"))
    flat = validate(make("model=mlp", "+model.error_clip={hidden.0.fc: 100, out: 5}",
                         "clip=error", "clip.error_clip=1"))
    assert nested.model.error_clip == flat.model.error_clip == {"hidden.0.fc": 100.0,
                                                               "out": 5.0}


def test_int_is_accepted_for_float(edit):
    run_config = validate(edit("optim.lr=1", "data.valid_size=300"))
    assert run_config.optim.lr == 1.0 and isinstance(run_config.optim.lr, float)
    assert run_config.data.valid_size == 300.0


def test_device_strings(edit):
    assert validate(edit("device=gpu:2")).device == "gpu:2"  # parsed, not yet checked
    assert validate(edit("device=GPU")).device == "gpu:0"
    message = _error(edit, "device=tpu")
    assert "'tpu'" in message and "'gpu:N'" in message


@pytest.mark.parametrize("overrides, expected", [
    (["optim.lr=-0.1"], "optim.lr = -0.1 is not allowed: use a number > 0"),
    (["optim.lr=0"], "optim.lr = 0 is not allowed: use a number > 0"),
    (["optim.lr=inf"], "optim.lr = inf has the wrong type: expected a finite number"),
    (["optim.lr=fast"], "optim.lr = 'fast' has the wrong type: expected a number"),
    (["optim.lr=null"], "optim.lr = null has the wrong type"),
    (["trainer.epochs=0"], "trainer.epochs = 0 is not allowed: use an integer >= 1"),
    (["trainer.epochs=2.5"], "trainer.epochs = 2.5 has the wrong type: expected an integer"),
    (["trainer.epochs=true"], "trainer.epochs = true has the wrong type"),
    (["trainer.batch_size=0"], "trainer.batch_size = 0 is not allowed"),
    (["trainer.checkpoint=1"], "trainer.checkpoint = 1 has the wrong type: expected true or"),
    (["tracking.experiment=2024"], "expected a string (quote it on the command line"),
    (["model.layers.fc=3"], "model.layers.fc = 3 is not valid: each entry of model.layers is a"),
    (["optim.beta1=1.0"], "optim.beta1 = 1.0 is not allowed: use a number in [0, 1)"),
    (["optim.regularizer=l3"], "use one of l1, l2"),
    (["data.valid_size=2.5"], "a fraction in [0, 1) or a whole count"),
    (["schedule.name=cosine", "schedule.min_lr=0.5"], "use a min_lr <= optim.lr"),
    (["trainer.seed=-1"], "trainer.seed = -1 is not allowed"),
    (["trainer.accumulate=0"], "trainer.accumulate = 0 is not allowed: use an integer >= 1"),
    (["trainer.early_stop=-1"], "trainer.early_stop = -1 is not allowed: use a number >= 0"),
    (["trainer.early_stop_delta=-0.1"], "trainer.early_stop_delta = -0.1 is not allowed"),
    (["trainer.objective_direction=up"], "use one of maximize, minimize, auto"),
    (["trainer.test_on=first"], "trainer.test_on = 'first' is not allowed: use one of last,"),
    (["trainer.test_on=best"], "trainer.test_on = 'best' needs trainer.keep_best = true"),
    (["trainer.early_stop=3", "trainer.objective=train/loss"],
     "trainer.objective = 'train/loss' cannot be monitored by trainer.early_stop = 3"),
    (["inspect.layer_outputs=[fc]"], "inspect.layer_outputs is set but inspect.every = 0 "
                                     "(off), so nothing would be inspected"),
    (["inspect.grad_stats=true"], "inspect.grad_stats is set but inspect.every = 0"),
    # Checked before training (MLflow refused them after it, leaving a FAILED run):
    (["tracking.register_as=a/b"], "tracking.register_as = 'a/b' cannot name a registered "
                                   "model: it contains '/'"),
    (["sweep.register_best='c@d'"], "sweep.register_best = 'c@d' cannot name a registered "
                                    "model: it contains '@'"),
    (["tracking.register_as=' '"], "it is blank or has spaces at its ends"),
    (["trainer.keep_best=true", "trainer.objective=test/acc"],
     "cannot be monitored by trainer.keep_best = true: early stopping and the best checkpoint "
     "watch a validation metric"),
])
def test_bad_values_name_key_value_and_what_is_allowed(edit, overrides, expected):
    assert expected in _error(edit, *overrides)


@pytest.mark.parametrize("overrides, expected", [
    (["+optim.lrr=0.1"], "'optim.lrr' is not a known key (did you mean 'optim.lr'?)"),
    (["+trainer.epoch=3"], "did you mean 'trainer.epochs'?"),
    (["+optim.momentum=0.5"], "('momentum' belongs to optim=momentum, rmsprop)"),
    (["+epochs=3"], "'epochs' is not a known key: the top level holds clip, data, device"),
    (["+experimnt=mnist_cnn"], "'experimnt' is not a known key"),
])
def test_unknown_keys_suggest_the_closest(edit, overrides, expected):
    message = _error(edit, *overrides)
    assert expected in message
    assert "the keys of" in message or "the top level holds" in message


@pytest.mark.parametrize("group, name, valid", [
    ("optim", "lamb", "sgd, momentum, adam, adamw, nadam, radam, adagrad, adadelta, rmsprop"),
    ("data", "cifar10", "digits, mnist, fashion_mnist"),
    ("schedule", "linear", "constant, step, cosine"),
    ("clip", "adaptive", "none, value, norm, global_norm, error"),
])
def test_unknown_option_names_list_the_valid_ones(edit, group, name, valid):
    message = _error(edit, f"{group}.name={name}")
    assert f"{group}.name = '{name}' is not a known {group}" in message and valid in message


def test_missing_groups_and_values(make):
    assert ("choose one of cbow, gru, lstm, cnn, mlp, resnet, transformer with model=NAME"
            in _error(make, "~model"))
    run_config = validate(make("~clip", "~schedule", "~runtime"))  # these have safe defaults
    assert (run_config.clip.name, run_config.schedule.name) == ("none", "constant")
    assert run_config.runtime == schema.RuntimeConfig()
    assert "optim.lr could not be read" in _error(make, "optim.lr=???")
    assert "trainer.nope" in _error(make, "optim.lr=${trainer.nope}")


def test_a_home_folder_in_data_paths_is_expanded(make, monkeypatch, tmp_path):
    """data.root='~/data' (quoted for Hydra) is the home folder, as in a shell; so are the
    file names and globs of data=csv, arrays and files."""
    monkeypatch.setenv("HOME", str(tmp_path))
    csv = validate(make("data=csv", 'data.root="~/data"', 'data.test="~/t.csv"')).data
    assert csv.root == str(tmp_path / "data") and csv.test == str(tmp_path / "t.csv")
    assert csv.train == "train.csv"  # a relative name stays relative to the root
    files = validate(make("data=files", 'data.files=["~/a/*.txt", "b/*.txt"]')).data
    assert files.files == [str(tmp_path / "a" / "*.txt"), "b/*.txt"]


def test_a_backslash_t_delimiter_is_a_tab(make, tmp_path):
    """data.delimiter='\\t' (a real tab is hard to type in a shell and Hydra's grammar) reads
    a tab-separated file; other strings of two characters stay an error."""
    from runner import build  # noqa: PLC0415

    rows = [f"{i / 10}\tu\t{i % 2}" for i in range(20)]
    (tmp_path / "t.tsv").write_text("\n".join(["a\tc\tlabel", *rows]) + "\n")
    cfg = validate(make("data=csv", f"data.root={tmp_path}", "data.train=t.tsv",
                        "data.categorical=[c]", "data.delimiter='\\t'")).data
    assert cfg.delimiter == "\t"
    assert build.build_data(cfg, build.SPLIT_SEED).preprocessing["columns"] == ["a", "c"]
    assert ("data.delimiter = 'ab' is not allowed: use a single character, or \\t for a tab"
            in _error(make, "data=csv", "data.delimiter=ab"))


def test_validate_accepts_a_plain_mapping(make):
    tree = OmegaConf.to_container(make())
    assert validate(tree) == validate(make())
    tree["model"]["output"] = 5
    with pytest.raises(ConfigError, match="model.output = 5 has the wrong type"):
        validate(tree)


def test_a_misspelt_layers_table_is_named(make):
    # [layer.fc] for [layers.fc]: without a layers key the spec reads as a named model
    tree = OmegaConf.to_container(make())
    tree["model"] = {"name": "my_net", "layer": {"fc": {"type": "Linear"}}}
    with pytest.raises(ConfigError, match=r"model.name = 'my_net' is not a known model.*"
                                          r"the model has a 'layer' key \(did you mean 'layers'"):
        validate(tree)


def test_config_error_is_a_user_error():
    assert issubclass(ConfigError, UserError)


def test_flatten_gives_readable_dotted_string_params(make):
    flat = flatten(validate(make("+experiment=mnist_cnn")))
    assert flat["optim.lr"] == "0.001" and flat["optim.weight_decay"] == "1e-05"
    assert flat["model.name"] == "cnn" and flat["model.layers.conv1.out_channels"] == "20"
    assert flat["model.layers.conv1.type"] == "Conv2D" and flat["model.activation"] == "ReLU"
    assert flat["data.drop_last"] == "true" and flat["device"] == "cpu"
    assert flat["trainer.batch_size"] == "100" and flat["tracking.uri"] == ""
    assert all(isinstance(value, str) for value in flat.values())
    assert all(len(key) <= 250 for key in flat)
    # Every schema field appears once, under its section.
    run_config = validate(make("+experiment=mnist_cnn"))
    others = [key for key in flat if not key.startswith("model.")]
    assert len(others) == 2 + sum(len(dataclasses.fields(getattr(run_config, section)))
                                  for section in (f.name for f in dataclasses.fields(run_config)
                                                  if f.name not in ("device", "plugins",
                                                                    "model")))


@pytest.mark.parametrize("signal_name, code", [("Ctrl-C", 130), ("SIGTERM", 143)])
def test_an_interrupt_outside_a_job_is_one_line_not_a_traceback(signal_name, code, capsys,
                                                                 monkeypatch):
    """Ctrl-C between two jobs of a sweep landed in Hydra's own code and printed a traceback."""
    from hydra._internal import utils as hydra_utils  # noqa: PLC0415

    from runner.config import hydra_errors  # noqa: PLC0415
    from runner.process import Terminated  # noqa: PLC0415

    monkeypatch.delenv("HYDRA_FULL_ERROR", raising=False)
    monkeypatch.setattr(hydra_utils, "run_and_report", lambda func: func())  # Hydra's own
    hydra_errors.install("tomlrun")

    def interrupted():
        raise Terminated() if signal_name == "SIGTERM" else KeyboardInterrupt()

    with pytest.raises(SystemExit) as info:
        hydra_utils.run_and_report(interrupted)
    assert info.value.code == code
    assert capsys.readouterr().err == f"tomlrun: stopped by {signal_name}.\n"
