"""``python -m runner``: help, --cfg, multirun, user search paths and one-paragraph errors.

The subprocess cases start together (each costs ~1 s of interpreter and Hydra start-up) and none
of them trains: they stop at --help, --cfg or an error. Runs that reach ``runner.app.run`` are
tested in-process against a fake app that records its calls.
"""
from __future__ import annotations

import logging
import sys
import types
from pathlib import Path

import pytest
import yaml

import runner.__main__ as entry
from runner.config import schema
from runner.config.options import load_option
from runner.config.paths import config_dirs
from runner.errors import UserError
from tests.runner.subprocesses import run_all

ROOT = Path(__file__).resolve().parents[2]
TINY = 'name = "mlp"\nhidden = [8]\n'
BROKEN = 'name = "mlp"\nhidden = [8\ndropout = 0.5\n'  # the array is never closed


def _user_folder(base: Path) -> Path:
    """A user's own TOML folder: one good and one broken model option."""
    (base / "model").mkdir(parents=True)
    (base / "model" / "tiny.toml").write_text(TINY)
    (base / "model" / "broken.toml").write_text(BROKEN)
    (base / "model" / "mlp.toml").write_text(TINY)  # named like a shipped option: hidden by it
    (base / "model" / "notepad.toml").write_text(TINY, encoding="utf-16")  # not UTF-8
    (base / "model" / "bom.toml").write_text(TINY, encoding="utf-8-sig")  # UTF-8, with a BOM
    return base


def _cases(user: Path) -> dict[str, list[str]]:
    searchpath = f"hydra.searchpath=[toml://{user}]"
    return {
        "help": ["--help"],
        "cfg": ["--cfg", "job", "+experiment=mnist_cnn"],
        "searchpath": ["--cfg", "job", "model=tiny", searchpath],
        "syntax": ["model=broken", searchpath],
        "not_utf8": ["model=notepad", searchpath],
        "bom": ["--cfg", "job", "model=bom", searchpath],
        "unknown_key": ["+optim.lrr=0.1"],
        "wrong_type": ["trainer.epochs=ten"],
        "negative_lr": ["optim.lr=-0.5"],
        "bad_device": ["device=gpu:99"],
        "bad_device_string": ["device=tpu"],
        "missing_option": ["model=nope"],
        "yaml_searchpath": ["model=tiny", f"hydra.searchpath=[file://{user}]"],
        "bare_searchpath": ["model=tiny", f"hydra.searchpath=[{user}]"],
        "misspelt_option": ["model=cnnn"],
        "bad_override": ["optim.lr=["],
        "misspelt_key": ["optim.lrr=0.1"],
        "misspelt_section": ["modle=mlp"],
        "key_of_another_option": ["data.root=/data"],
        "unknown_layer": ["inspect.layer_outputs=[conv9]", "inspect.every=5"],
        "no_key": ["=3"],
        "missing_searchpath": ["model=mine", "hydra.searchpath=[toml:///no/such/folder]"],
        "pool_order": ["data.pool_size=10", "data.min_pool_size=100"],
        "tracking_scheme": ["tracking.uri=nonsense://x"],
        "tracking_path": ["tracking.uri=mlflow.db"],
        "hidden_option": ["model=mlp", searchpath],
        "tilde_value": ["data=csv", "data.root=~/tables"],
    }


@pytest.fixture(scope="module")
def cli(tmp_path_factory):
    """Run every case at once; name -> (returncode, stdout, stderr, cwd)."""
    user = _user_folder(tmp_path_factory.mktemp("user_conf"))
    return run_all({name: (tmp_path_factory.mktemp(name), args)
                    for name, args in _cases(user).items()}, timeout=120)


def test_help_lists_every_group(cli):
    code, out, err, _ = cli["help"]
    assert code == 0, err
    conf, experiments = config_dirs()
    folders = {path.name: path for path in conf.iterdir() if path.is_dir()}
    folders["experiment"] = experiments
    for group, folder in folders.items():  # every option file, sorted, on its group's line
        options = sorted(path.stem for path in folder.glob("*.toml"))
        assert f"{group}: {', '.join(options)}" in out
    assert "tomlrun trains a neural network" in out


def test_cfg_job_prints_the_composed_experiment(cli):
    code, out, err, _ = cli["cfg"]
    assert code == 0, err
    cfg = yaml.safe_load(out)
    assert cfg["optim"] == {"name": "adam", "lr": 0.001, "beta1": 0.9, "beta2": 0.999,
                            "epsilon": 1e-8, "weight_decay": 1e-5, "regularizer": "l2"}
    assert cfg["data"]["name"] == "mnist" and cfg["trainer"]["batch_size"] == 100


def test_a_utf8_file_with_a_byte_order_mark_is_read(cli):
    code, out, err, _ = cli["bom"]  # some Windows editors write one before the first key
    assert code == 0, err
    assert yaml.safe_load(out)["model"] == {"name": "mlp", "hidden": [8]}


def test_user_searchpath_adds_a_toml_option_and_parses_lazily(cli):
    code, out, err, _ = cli["searchpath"]  # broken.toml lies beside tiny.toml, unread
    assert code == 0, err
    assert yaml.safe_load(out)["model"] == {"name": "mlp", "hidden": [8]}


@pytest.mark.parametrize("case, needles", [
    ("unknown_key", ["'optim.lrr' is not a known key (did you mean 'optim.lr'?)"]),
    ("wrong_type", ["trainer.epochs = 'ten' has the wrong type: expected an integer"]),
    ("negative_lr", ["optim.lr = -0.5 is not allowed: use a number > 0"]),
    ("bad_device", ["gpu:99"]),
    ("bad_device_string", ["device 'tpu' is not valid", "'gpu:N'"]),
    # Hydra's own composition errors, in the same form (runner.config.hydra_errors):
    ("misspelt_key", ["'optim.lrr' is not a key of any optim option (did you mean 'optim.lr'?)"]),
    ("misspelt_section", ["'modle' is not a key (did you mean 'model'?)"]),
    ("key_of_another_option", ["'data.root' is not a key of the selected data option: 'root' "
                               "belongs to data=arrays, csv, fashion_mnist, files, mnist, "
                               "text, vowels"]),
    ("missing_option", ["model=nope is not an option of 'model'", "cbow, cnn, gru, lstm, mlp",
                        "added with hydra.searchpath=[toml:///abs/path/to/folder]"]),
    # A folder of TOML options given the YAML way: Hydra skips it silently; the error says why.
    ("yaml_searchpath", ["model=tiny is not an option of 'model'",
                         "holds model/tiny.toml, but Hydra reads a file:// folder for YAML files "
                         "only", "[toml://"]),
    # ... and given as a bare path, which Hydra takes as file:// (the message said only to add
    # a search path, which the user had done)
    ("bare_searchpath", ["model=tiny is not an option of 'model'",
                         "(a path without a scheme: file://) holds model/tiny.toml, but Hydra "
                         "reads a file:// folder for YAML files only", "[toml://"]),
    ("misspelt_option", ["model=cnnn is not an option of 'model' (did you mean 'model=cnn'?)"]),
    ("syntax", ["TOML syntax error in ", str(Path("model") / "broken.toml"), "line 3, column 1"]),
    ("not_utf8", [str(Path("model") / "notepad.toml"), "is not UTF-8 text (byte 0xff at line 1",
                  "save it as UTF-8"]),
    ("bad_override", ["no viable alternative at input '['"]),
    # Checked once the model is built, still before any run is opened:
    ("unknown_layer", ["inspect.layer_outputs: layer 'conv9' is not a layer of this model"]),
    ("no_key", ["'=3' has no key before '='"]),
    ("missing_searchpath", ["hydra.searchpath names toml:///no/such/folder, which is not a "
                            "folder"]),
    ("pool_order", ["data.min_pool_size = 100 is not allowed with data.pool_size = 10"]),
    # MLflow refuses the store when the client opens, before any run is made:
    # A bare path: MLflow's own refusal spoke of "the filesystem tracking backend (./mlruns)"
    ("tracking_path", ["tracking.uri = 'mlflow.db' is a path, not a tracking URI",
                       "write tracking.uri=sqlite:///", "mlflow.db (three slashes"]),
    ("tracking_scheme", ["tracking URI 'nonsense://x' (tracking.uri) cannot be used",
                         "sqlite:///"]),
    # A user's file named like a shipped option would be silently ignored:
    ("hidden_option", [f"{Path('model') / 'mlp.toml'} is not read: tomlrun ships an option of "
                       "the same name (model=mlp)", "select it with model=my_mlp"]),
    # Hydra's lexer error named no remedy for a home-folder path the shell passed on:
    ("tilde_value", ["'data.root=~/tables': a value cannot start with '~'",
                     f"data.root={Path('~/tables').expanduser()}",
                     """'data.root="~/tables"'"""]),
])
def test_user_errors_are_one_paragraph_with_status_2(cli, case, needles):
    code, out, err, cwd = cli[case]
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tomlrun: error: "), err
    for needle in needles:
        assert needle in err
    # Validation comes first: no run was started, so nothing reached MLflow, and the folder
    # Hydra made for the run is gone again.
    assert not (cwd / "mlflow.db").exists() and not (cwd / "mlruns").exists()
    assert not (cwd / "outputs").exists()


def test_a_mistake_keeps_the_folders_above_a_run_folder_the_user_named(tmp_path):
    # hydra.run.dir=runs/a: runs/ existed before (empty) and is the user's; only a/ goes
    (tmp_path / "runs").mkdir()
    (code, _, err, _), = run_all({"named": (tmp_path, ["hydra.run.dir=runs/a",
                                                       "optim.lr=oops"])}, timeout=120).values()
    assert code == 2, err
    assert (tmp_path / "runs").is_dir() and not (tmp_path / "runs" / "a").exists()


def test_no_case_prints_a_traceback(cli):
    assert all("Traceback" not in err for _, _, err, _ in cli.values())


# --- in-process runs against a fake runner.app --------------------------------------------------
@pytest.fixture
def fake_app(monkeypatch, tmp_path):
    """Replace runner.app with a recorder; run Hydra in tmp_path without touching logging."""
    calls = []
    app = types.ModuleType("runner.app")
    app.error = None

    def run(run_config, overrides, launch_dir):
        calls.append((run_config, overrides, launch_dir))
        if app.error is not None:
            raise app.error
        return 0.5

    app.run, app.calls = run, calls
    monkeypatch.setitem(sys.modules, "runner.app", app)
    monkeypatch.chdir(tmp_path)
    return app


@pytest.fixture(autouse=True)
def _logging_restored():
    """Hydra configures logging in-process (``hydra/*_logging=disabled`` disables every existing
    logger and sets the root to ERROR): put it back, or later tests' caplog sees nothing."""
    loggers = [logging.getLogger(name) for name in list(logging.root.manager.loggerDict)]
    saved = [(logger, logger.disabled, logger.level) for logger in loggers]
    root_level = logging.root.level
    yield
    for logger, disabled, level in saved:
        logger.disabled, logger.level = disabled, level
    logging.root.setLevel(root_level)


def _main(monkeypatch, *args) -> None:
    quiet = ["hydra/job_logging=disabled", "hydra/hydra_logging=disabled",
             "hydra.run.dir=out", "hydra.sweep.dir=multi"]
    monkeypatch.setattr(sys, "argv", ["runner", *args, *quiet])
    entry.main()


def test_run_passes_the_typed_config_overrides_and_launch_dir(fake_app, monkeypatch, tmp_path):
    _main(monkeypatch, "model=mlp", "optim.lr=0.05")
    [(run_config, overrides, launch_dir)] = fake_app.calls
    assert isinstance(run_config.model, schema.SpecConfig) and run_config.model.name == "mlp"
    assert run_config.optim.lr == 0.05
    assert overrides == ["model=mlp", "optim.lr=0.05"]  # Hydra's own settings left out
    assert Path(launch_dir) == tmp_path


def test_multirun_runs_one_job_per_value(fake_app, monkeypatch):
    # No tracking: the sweep's MLflow parent run is tested in sweep/test_sweep.py (and costs
    # seconds).
    _main(monkeypatch, "-m", "optim.lr=0.1,0.2", "+experiment=digits_mlp", "tracking.enabled=false")
    assert [call[0].optim.lr for call in fake_app.calls] == [0.1, 0.2]
    assert all(call[0].model.knobs["hidden"] == [64] for call in fake_app.calls)


def test_user_searchpath_option_is_validated_by_its_name(fake_app, monkeypatch, tmp_path):
    user = _user_folder(tmp_path / "mine")
    _main(monkeypatch, "model=tiny", f"hydra.searchpath=[toml://{user}]")
    assert fake_app.calls[0][0].model == load_option("model", "mlp", "hidden=[8]")


@pytest.mark.parametrize("args", [["optim.lr=0"], ["device=gpu:99"]])
def test_bad_config_never_reaches_the_app(fake_app, monkeypatch, capsys, args):
    with pytest.raises(SystemExit) as info:
        _main(monkeypatch, *args)
    assert info.value.code == 2 and fake_app.calls == []
    assert capsys.readouterr().err.startswith("tomlrun: error: ")


@pytest.mark.parametrize("args, hint", [
    ((), "it saved no resumable checkpoint (trainer.checkpoint_every=0, the default"),
    (("trainer.checkpoint_every=50",), "continue it with the same overrides and "
                                       "trainer.resume=true"),
])
def test_a_stopped_run_says_how_to_go_on(fake_app, monkeypatch, capsys, args, hint):
    fake_app.error = KeyboardInterrupt()
    with pytest.raises(SystemExit) as info:
        _main(monkeypatch, *args)
    assert info.value.code == 130
    err = capsys.readouterr().err
    assert err.startswith("tomlrun: stopped by Ctrl-C; the run was marked KILLED; ")
    assert hint in err and len(err.strip().splitlines()) == 1


def test_a_stopped_run_without_tracking_claims_no_mlflow_run(fake_app, monkeypatch, capsys):
    fake_app.error = KeyboardInterrupt()
    with pytest.raises(SystemExit):
        _main(monkeypatch, "tracking.enabled=false")
    err = capsys.readouterr().err
    assert err.startswith("tomlrun: stopped by Ctrl-C (tracking was off); ") and "KILLED" not in err


def test_a_run_stopped_before_it_was_opened_says_so_and_leaves_no_folder(
        fake_app, monkeypatch, capsys, tmp_path):
    from runner.process import StoppedBeforeRun

    fake_app.error = StoppedBeforeRun()
    with pytest.raises(SystemExit) as info:
        _main(monkeypatch)
    assert info.value.code == 130
    assert capsys.readouterr().err == ("tomlrun: stopped by Ctrl-C before the run started: "
                                       "nothing was trained or recorded.\n")
    assert not (tmp_path / "out").exists()  # Hydra's folder for the run, with nothing in it


def test_user_error_inside_the_app_is_one_paragraph(fake_app, monkeypatch, capsys):
    fake_app.error = UserError("data.root = '/nowhere' does not exist:\nput the IDX files there.")
    with pytest.raises(SystemExit) as info:
        _main(monkeypatch)
    assert info.value.code == 2
    assert capsys.readouterr().err == ("tomlrun: error: data.root = '/nowhere' does not exist: "
                                       "put the IDX files there.\n")
