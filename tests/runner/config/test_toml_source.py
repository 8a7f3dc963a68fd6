"""The ``toml://`` config source and tomlrun's search-path plugin (hydra_plugins/tomlrun_toml)."""
from __future__ import annotations

import datetime
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from hydra._internal.config_search_path_impl import ConfigSearchPathImpl
from hydra.core.global_hydra import GlobalHydra
from hydra.core.object_type import ObjectType
from hydra.errors import CompactHydraException
from hydra.plugins.config_source import ConfigLoadError
from hydra.test_utils.config_source_common_tests import ConfigSourceTestSuite

from hydra_plugins.tomlrun_toml import TomlConfigSource, TomlrunSearchPathPlugin, toml_source
from runner.config.paths import config_dirs

FIXTURES = Path(__file__).parent / "toml_source_configs"


def _syntax_error() -> type:
    # Hydra's plugin scan re-executes plugin modules already imported, which redefines their
    # classes; look the class up when a test runs so that it is the one the module raises.
    return toml_source.TomlSyntaxError


@pytest.mark.parametrize("type_, path", [(TomlConfigSource, f"toml://{FIXTURES}")])
class TestTomlConfigSource(ConfigSourceTestSuite):
    """Hydra's own contract for config sources, on TOML versions of its fixture configs."""

    # The suite's table names YAML files; the same cases with the TOML extension.
    @pytest.mark.parametrize("config_path, expected", [
        ("", False), ("optimizer", False), ("dataset/imagenet", True),
        ("dataset/imagenet.toml", True), ("dataset/imagenet.yaml", False),
        ("dataset/imagenet.foobar", False), ("configs_with_defaults_list/global_package", True),
        ("configs_with_defaults_list/group_package", True), ("level1", False),
        ("level1/level2", False), ("level1/level2/nested1", True), ("not_found", False),
    ])
    def test_is_config(self, type_, path, config_path, expected) -> None:
        assert type_(provider="foo", path=path).is_config(config_path=config_path) == expected


def _write(folder: Path, relative: str, text: str) -> Path:
    path = folder / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_syntax_error_names_file_line_and_column(tmp_path):
    path = _write(tmp_path, "model/bad.toml", 'name = "mlp"\nhidden = 8 9\n')
    source = TomlConfigSource("test", f"toml://{tmp_path}")
    with pytest.raises(_syntax_error()) as info:
        source.load_config("model/bad")
    message = str(info.value)
    assert str(path) in message and "line 2, column 12" in message and "\n" not in message
    # Hydra prints a CompactHydraException as its message alone, without a traceback.
    assert isinstance(info.value, CompactHydraException)
    assert isinstance(info.value, ConfigLoadError)


def test_bad_header_line_is_reported_with_the_file(tmp_path):
    path = _write(tmp_path, "x.toml", "# @package a b\nfoo = 1\n")
    with pytest.raises(_syntax_error(), match=str(path)):
        TomlConfigSource("test", f"toml://{tmp_path}").load_config("x")


def test_package_header_then_comments_and_dates(tmp_path):
    _write(tmp_path, "x.toml",
           "# @package _global_\n# a comment after the header\n"
           "day = 2024-05-01\nstamp = 2024-05-01T10:20:30Z\n[nested]\nt = 07:30:00\n")
    result = TomlConfigSource("test", f"toml://{tmp_path}").load_config("x")
    assert result.header["package"] == "_global_"
    assert result.config == {"day": "2024-05-01", "stamp": "2024-05-01T10:20:30+00:00",
                             "nested": {"t": "07:30:00"}}
    assert datetime.date.fromisoformat(result.config.day)  # ISO 8601, round-trips


def test_mounted_folder_is_a_group(tmp_path):
    _write(tmp_path, "fast.toml", "# @package _global_\nx = 1\n")
    _write(tmp_path, "sub/deep.toml", "y = 2\n")
    source = TomlConfigSource("test", f"toml://{tmp_path}?group=experiment")
    assert source.root == str(tmp_path) and source.mount == "experiment"
    assert source.available()
    assert source.is_group("") and source.is_group("experiment") and source.is_group(
        "experiment/sub")
    assert not source.is_group("model") and not source.is_config("fast")
    assert source.is_config("experiment/fast") and source.is_config("experiment/sub/deep")
    assert source.list("", ObjectType.GROUP) == ["experiment"]
    assert source.list("", ObjectType.CONFIG) == []
    assert source.list("experiment", None) == ["fast", "sub"]
    assert source.list("model", None) == []
    assert source.load_config("experiment/fast").header["package"] == "_global_"
    with pytest.raises(ConfigLoadError):
        source.load_config("fast")


def test_nested_mount(tmp_path):
    _write(tmp_path, "one.toml", "x = 1\n")
    source = TomlConfigSource("test", f"toml://{tmp_path}?group=a/b")
    assert source.is_group("a") and source.list("a", None) == ["b"]
    assert source.list("a/b", ObjectType.CONFIG) == ["one"]
    assert not TomlConfigSource("t", f"toml://{tmp_path / 'nope'}?group=a").is_group("a")


def _compose_toml_folder(folder: Path, tmp_path: Path, overrides: list[str]):
    """Compose TOML configs of ``folder``, named in a YAML app's hydra.searchpath."""
    app = tmp_path / "yaml_app"
    _write(app, "config.yaml",
           f"hydra:\n  searchpath: ['toml://{folder}']\ndefaults:\n  - main\n  - _self_\n")
    with initialize_config_dir(config_dir=str(app), version_base=None):
        return compose("config", overrides=overrides)


def test_defaults_lists_with_inline_tables_and_overrides(tmp_path):
    folder = tmp_path / "toml_app"
    _write(folder, "main.toml",
           'defaults = [{db = "mysql"}, {"optional extra" = "none"}, "_self_", {server = "a"}]\n'
           "port = 1\n")
    _write(folder, "db/mysql.toml", 'driver = "mysql"\n')
    _write(folder, "db/pg.toml", 'driver = "pg"\n')
    _write(folder, "server/a.toml", "# @package _global_\nport = 80\n")
    _write(folder, "exp/pg.toml",
           '# @package _global_\ndefaults = [{"override /db" = "pg"}]\nport = 2\n')
    assert _compose_toml_folder(folder, tmp_path, []) == {"db": {"driver": "mysql"}, "port": 80}
    cfg = _compose_toml_folder(folder, tmp_path, ["+exp=pg"])
    assert cfg == {"db": {"driver": "pg"}, "port": 2}  # command-line additions compose last


# --- the search-path plugin ---------------------------------------------------------------------
def _search_path(main: str | None) -> ConfigSearchPathImpl:
    path = ConfigSearchPathImpl()
    path.append("hydra", "pkg://hydra.conf")
    if main is not None:
        path.append("main", main)
    return path


def _entries(search_path: ConfigSearchPathImpl) -> list[tuple[str, str]]:
    return [(element.provider, element.path) for element in search_path.get_path()]


@pytest.mark.parametrize("prefix", ["", "file://"])
def test_plugin_serves_our_conf_as_toml_and_mounts_experiments(prefix):
    conf, experiments = config_dirs()
    search_path = _search_path(prefix + str(conf))
    TomlrunSearchPathPlugin().manipulate_search_path(search_path)
    assert _entries(search_path) == [
        ("hydra", "pkg://hydra.conf"),
        ("main", f"toml://{conf}"),
        ("tomlrun", f"toml://{experiments}?group=experiment"),
    ]


@pytest.mark.parametrize("main", [None, "/srv/other_app/conf", "file:///srv/app/configs",
                                  "pkg://other_app.conf", "toml:///srv/x/conf"])
def test_plugin_leaves_other_apps_alone(main):
    search_path = _search_path(main)
    before = _entries(search_path)
    TomlrunSearchPathPlugin().manipulate_search_path(search_path)
    assert _entries(search_path) == before


def test_another_hydra_app_composes_without_tomlrun(tmp_path):
    """A YAML app in the same environment sees neither our groups nor our TOML source."""
    app = tmp_path / "conf"
    _write(app, "config.yaml", "defaults:\n  - db: sqlite\n  - _self_\nname: other\n")
    _write(app, "db/sqlite.yaml", "file: x.db\n")
    with initialize_config_dir(config_dir=str(app), version_base=None):
        loader = GlobalHydra.instance().config_loader()
        assert [source.scheme() for source in loader.get_sources()] == [
            "pkg", "file", "structured"]
        assert loader.get_group_options("model") == []
        assert loader.get_group_options("experiment") == []
        assert compose("config") == {"db": {"file": "x.db"}, "name": "other"}
        # Without our groups, +experiment=NAME is a plain new key, not a composed experiment.
        assert compose("config", overrides=["+experiment=mnist_cnn"]).experiment == "mnist_cnn"
