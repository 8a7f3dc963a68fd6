"""core.hub (paddle.hub): list / help / load the entries of a repository's hubconf.py, from a
local folder or from a GitHub / Gitee branch archive cached in the hub folder. No network: the
downloads are either core.hub._download monkeypatched to copy a zip built here, or the real
downloader pointed at file:// URLs."""
from __future__ import annotations

import subprocess
import sys
import textwrap
import zipfile

import numpy as np
import pytest

import core
from core import hub

HUBCONF = '''
import core

dependencies = ["numpy"]
VERSION = 1  # not callable: not an entry


def mlp(in_features=3, hidden=4, out_features=2):
    """A two-layer MLP: Linear, ReLU, Linear."""
    return core.nn.Sequential(core.nn.Linear(in_features, hidden), core.nn.ReLU(),
                              core.nn.Linear(hidden, out_features))


def linear(in_features=3, out_features=1):
    return core.nn.Linear(in_features, out_features)


def _helper():
    return "private"
'''


def _write_repo(folder, hubconf=HUBCONF, **files):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "hubconf.py").write_text(textwrap.dedent(hubconf), encoding="utf-8")
    for name, text in files.items():
        (folder / f"{name}.py").write_text(textwrap.dedent(text), encoding="utf-8")
    return folder


def _zip_repo(path, top="repo-main", hubconf=HUBCONF):
    """A branch archive as GitHub serves it: every file under one ``<repo>-<branch>/`` folder
    (``top=''``: the files at the archive's root)."""
    prefix = f"{top}/" if top else ""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        if top:
            out.writestr(prefix, "")
        out.writestr(prefix + "hubconf.py", textwrap.dedent(hubconf))
        out.writestr(prefix + "README.md", "a hub repository\n" * 50)
    return path


@pytest.fixture
def hub_home(tmp_path, monkeypatch):
    home = tmp_path / "hub"
    monkeypatch.setenv(hub.HUB_ENV, str(home))
    return home


@pytest.fixture
def served(tmp_path, monkeypatch):
    """core.hub._download replaced by a copy of ``served.zip`` (a file built by the test); the
    URLs asked for are in ``served.urls``."""
    class Served:
        zip = _zip_repo(tmp_path / "served.zip")
        urls = []

    def fake_download(url, target, timeout=60.0):
        Served.urls.append(url)
        target.write_bytes(Served.zip.read_bytes())

    monkeypatch.setattr(hub, "_download", fake_download)
    return Served


# ----- source='local' ------------------------------------------------------------------------

def test_local_list_help_and_load(tmp_path):
    repo = _write_repo(tmp_path / "repo")
    assert hub.list(str(repo), source="local") == ["linear", "mlp"]
    assert hub.help(str(repo), "mlp", source="local") == "A two-layer MLP: Linear, ReLU, Linear."
    assert hub.help(str(repo), "linear", source="local") is None
    model = hub.load(str(repo), "mlp", source="local", in_features=5, hidden=7)
    assert isinstance(model, core.nn.Sequential)
    assert [tuple(p.shape) for p in model.parameters()] == [(5, 7), (7,), (7, 2), (2,)]
    out = model(core.to_tensor(np.ones((4, 5), "float32")))
    assert tuple(out.shape) == (4, 2)
    assert isinstance(hub.load(repo, "linear", source="local"), core.nn.Linear)  # a Path too


def test_core_hub_is_loaded_on_first_use():
    code = ("import sys, core; assert 'core.hub' not in sys.modules; "
            "load = core.hub.load; assert 'core.hub' in sys.modules; "
            "assert callable(load) and core.hub.list and core.hub.help")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert core.hub is hub


def test_each_call_runs_hubconf_afresh_and_restores_sys_path_and_modules(tmp_path):
    repo = _write_repo(tmp_path / "repo", "def answer():\n    return 1\n")
    path_before = list(sys.path)
    assert hub.load(str(repo), "answer", source="local") == 1
    (repo / "hubconf.py").write_text("def answer():\n    return 2\n", encoding="utf-8")
    assert hub.load(str(repo), "answer", source="local") == 2
    assert sys.path == path_before and "hubconf" not in sys.modules


def test_hubconf_and_its_entries_import_the_repository_s_own_modules(tmp_path):
    repo = _write_repo(tmp_path / "repo", """
        from hub_test_blocks import block


        def net(width=3):
            return block(width)


        def late(width=2):
            from hub_test_late import build  # imported when the entry runs
            return build(width)
        """,
        hub_test_blocks="import core\n\ndef block(w):\n    return core.nn.Linear(w, w)\n",
        hub_test_late="import core\n\ndef build(w):\n    return core.nn.Linear(w, 1)\n")
    try:
        assert tuple(hub.load(str(repo), "net", source="local", width=6).weight.shape) == (6, 6)
        assert tuple(hub.load(str(repo), "late", source="local").weight.shape) == (2, 1)
        assert hub.list(str(repo), source="local") == ["block", "late", "net"]  # as Paddle
    finally:
        for name in ("hub_test_blocks", "hub_test_late"):
            sys.modules.pop(name, None)
    assert str(repo) not in sys.path


def test_load_checks_dependencies_naming_every_missing_one(tmp_path):
    repo = _write_repo(tmp_path / "repo", """
        dependencies = ["numpy", "no_such_module_hub_test", "no_such_pkg_hub_test.sub"]


        def entry():
            return "built"
        """)
    with pytest.raises(RuntimeError, match=r"hub\.load: missing dependencies: "
                       r"no_such_module_hub_test, no_such_pkg_hub_test\.sub \(the dependencies "
                       r"of .*hubconf\.py\)"):
        hub.load(str(repo), "entry", source="local")
    # As Paddle, only load checks them: list and help read the entries.
    assert hub.list(str(repo), source="local") == ["entry"]
    assert hub.help(str(repo), "entry", source="local") is None


@pytest.mark.parametrize("value, shown", [('"numpy"', "'numpy'"), ("5", "5"),
                                           ('["numpy", 3]', r"\['numpy', 3\]")])
def test_dependencies_that_are_not_a_list_of_names(tmp_path, value, shown):
    repo = _write_repo(tmp_path / "repo", f"dependencies = {value}\n\ndef entry():\n    pass\n")
    with pytest.raises(RuntimeError, match=rf"sets dependencies={shown}; it must be a list of "
                                           r"module names \(str\)"):
        hub.load(str(repo), "entry", source="local")


def test_a_missing_hubconf_or_folder(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(RuntimeError, match=r"hub\.list: there is no hubconf\.py in .*empty"):
        hub.list(str(empty), source="local")
    with pytest.raises(RuntimeError, match=r"hub\.load: repo_dir='.*nowhere' is not a folder; "
                                           r"source='local' takes the folder"):
        hub.load(str(tmp_path / "nowhere"), "mlp", source="local")
    with pytest.raises(ValueError, match=r"hub\.help: repo_dir=3 must be a folder"):
        hub.help(3, "mlp", source="local")


def test_an_unknown_entry_names_the_entries(tmp_path):
    repo = _write_repo(tmp_path / "repo")
    for call in (hub.load, hub.help):
        with pytest.raises(RuntimeError, match=r"cannot find callable 'resnet' in .*hubconf\.py; "
                                               r"its entries are: linear, mlp\."):
            call(str(repo), "resnet", source="local")
    with pytest.raises(RuntimeError, match=r"cannot find callable 'VERSION'"):
        hub.load(str(repo), "VERSION", source="local")
    with pytest.raises(ValueError, match=r"hub\.load: model=3 must be the name \(a str\)"):
        hub.load(str(repo), 3, source="local")


@pytest.mark.parametrize("source", ["hub", "GitHub", None, "file"])
def test_a_bad_source(tmp_path, source):
    for call, args in ((hub.list, ()), (hub.help, ("mlp",)), (hub.load, ("mlp",))):
        with pytest.raises(ValueError, match=rf"hub\.{call.__name__}: source={source!r} is not "
                                             r"one of 'github', 'gitee', 'local'"):
            call(str(tmp_path), *args, source=source)


@pytest.mark.parametrize("repo_dir, match", [
    ("owner", r"repo_dir='owner' is not of the form 'owner/repo' or 'owner/repo:branch' "
              r"\(default branch 'main'\)"),
    ("a/b/c", "is not of the form"),
    ("/repo", "is not of the form"),
    ("owner/", "is not of the form"),
    ("https://github.com/owner/repo", "is not of the form"),
    ("own er/repo", "is not of the form"),
    ("owner/repo:", r"the branch '' is not a git branch name \(it is empty\)"),
    ("owner/repo:a:b", r"the branch 'a:b' is not a git branch name \(it holds ':'\)"),
    ("owner/repo:my branch", r"\(it holds ' '\)"),
    (None, r"repo_dir=None must be a str"),
])
def test_a_bad_repo_dir(hub_home, served, repo_dir, match):
    with pytest.raises(ValueError, match=r"hub\.load: .*" + match):
        hub.load(repo_dir, "mlp")
    assert served.urls == []


# ----- source='github' / 'gitee' ---------------------------------------------------------------

@pytest.mark.parametrize("repo_dir, source, url, folder", [
    ("lyuwenyu/paddlehub_demo", "github",
     "https://github.com/lyuwenyu/paddlehub_demo/archive/main.zip", "lyuwenyu_paddlehub_demo_main"),
    ("owner/repo:v1.2", "github", "https://github.com/owner/repo/archive/v1.2.zip",
     "owner_repo_v1.2"),
    ("owner/repo:release/2.0", "github", "https://github.com/owner/repo/archive/release/2.0.zip",
     "owner_repo_release_2.0"),
    ("owner/repo", "gitee", "https://gitee.com/owner/repo/repository/archive/master.zip",
     "owner_repo_master"),
    ("owner/my-repo:dev", "gitee", "https://gitee.com/owner/my-repo/repository/archive/dev.zip",
     "owner_my-repo_dev"),
])
def test_download_url_and_cache_layout(hub_home, served, repo_dir, source, url, folder):
    model = hub.load(repo_dir, "mlp", source=source, hidden=3)
    assert [tuple(p.shape) for p in model.parameters()] == [(3, 3), (3,), (3, 2), (2,)]
    assert served.urls == [url]
    # The archive's top folder became the cache folder; no archive or scratch folder is left.
    assert sorted(p.name for p in hub_home.iterdir()) == [folder]
    assert sorted(p.name for p in (hub_home / folder).iterdir()) == ["README.md", "hubconf.py"]


def test_the_cache_is_reused_unless_force_reload(hub_home, served, tmp_path, capsys):
    assert hub.list("owner/repo") == ["linear", "mlp"]
    assert hub.help("owner/repo", "mlp") == "A two-layer MLP: Linear, ReLU, Linear."
    assert isinstance(hub.load("owner/repo", "linear"), core.nn.Linear)
    assert len(served.urls) == 1  # fetched once, then read from the cache
    assert f"using the cached 'owner/repo' in {hub_home / 'owner_repo_main'}" in (
        capsys.readouterr().err)
    served.zip = _zip_repo(tmp_path / "v2.zip", hubconf="def v2():\n    return 'two'\n")
    assert hub.list("owner/repo") == ["linear", "mlp"]  # still the cached copy
    assert hub.list("owner/repo", force_reload=True) == ["v2"]
    assert hub.load("owner/repo", "v2") == "two" and len(served.urls) == 2
    assert sorted(p.name for p in hub_home.iterdir()) == ["owner_repo_main"]
    assert hub.load("owner/repo", "v2", force_reload=True) == "two" and len(served.urls) == 3


def test_a_copy_another_process_unpacked_meanwhile_is_kept(hub_home, served, monkeypatch):
    real_replace = hub.os.replace

    def racing_replace(src, dst):  # the other process renames its copy in first
        if str(dst).endswith("owner_repo_main") and not hub.os.path.exists(dst):
            _write_repo(hub_home / "owner_repo_main", "def theirs():\n    return 0\n")
        return real_replace(src, dst)

    monkeypatch.setattr(hub.os, "replace", racing_replace)
    assert hub.list("owner/repo") == ["theirs"]
    assert sorted(p.name for p in hub_home.iterdir()) == ["owner_repo_main"]


def test_an_archive_without_a_top_folder(hub_home, served, tmp_path):
    served.zip = _zip_repo(tmp_path / "flat.zip", top="")
    assert hub.list("owner/repo:flat", source="gitee") == ["linear", "mlp"]
    assert (hub_home / "owner_repo_flat" / "hubconf.py").is_file()


def _truncated(path):
    data = _zip_repo(path).read_bytes()
    path.write_bytes(data[: len(data) // 2])  # the central directory is gone
    return path


def _bad_crc(path):
    _zip_repo(path, hubconf="x = 1\n" * 400)
    data = bytearray(path.read_bytes())
    at = data.index(b"README.md") + len("README.md") + 10  # inside README.md's deflated bytes
    data[at] ^= 0xFF
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize("damage", [_truncated, _bad_crc])
def test_a_damaged_archive_leaves_nothing_that_looks_complete(hub_home, served, tmp_path,
                                                              damage):
    served.zip = damage(tmp_path / "damaged.zip")
    with pytest.raises(RuntimeError) as info:
        hub.load("owner/repo", "mlp")
    message = str(info.value)
    assert "\n" not in message
    assert f"the archive {hub_home / 'owner_repo_main.zip'} downloaded from " \
           "https://github.com/owner/repo/archive/main.zip is not a readable zip" in message
    assert "force_reload=True" in message
    assert list(hub_home.iterdir()) == []  # no cache folder, no scratch, no archive


def test_a_damaged_reload_keeps_the_cached_copy(hub_home, served, tmp_path):
    hub.load("owner/repo", "mlp")
    served.zip = _truncated(tmp_path / "damaged.zip")
    with pytest.raises(RuntimeError, match="is not a readable zip"):
        hub.load("owner/repo", "mlp", force_reload=True)
    assert sorted(p.name for p in hub_home.iterdir()) == ["owner_repo_main"]
    assert hub.list("owner/repo") == ["linear", "mlp"]


def test_an_empty_archive(hub_home, served, tmp_path):
    with zipfile.ZipFile(tmp_path / "empty.zip", "w"):
        pass
    served.zip = tmp_path / "empty.zip"
    with pytest.raises(RuntimeError, match=r"is not a readable zip \(the archive holds no "
                                           r"files\)"):
        hub.list("owner/repo")
    assert list(hub_home.iterdir()) == []


def test_a_repository_without_hubconf(hub_home, served, tmp_path):
    served.zip = tmp_path / "nohub.zip"
    with zipfile.ZipFile(served.zip, "w") as out:
        out.writestr("repo-main/README.md", "no hubconf here\n")
    with pytest.raises(RuntimeError, match=r"hub\.help: there is no hubconf\.py in "
                                           r".*owner_repo_main; a hub repository defines"):
        hub.help("owner/repo", "mlp")


def test_the_real_downloader_over_file_urls(hub_home, tmp_path, monkeypatch):
    mirror = tmp_path / "mirror"
    (mirror / "owner" / "repo" / "archive").mkdir(parents=True)
    _zip_repo(mirror / "owner" / "repo" / "archive" / "main.zip")
    monkeypatch.setitem(hub.ARCHIVE_URLS, "github",
                        mirror.as_uri() + "/{owner}/{repo}/archive/{branch}.zip")
    assert isinstance(hub.load("owner/repo", "linear", out_features=4), core.nn.Linear)
    assert sorted(p.name for p in hub_home.iterdir()) == ["owner_repo_main"]
    with pytest.raises(RuntimeError, match=r"hub: could not download file://.*/owner/gone/"
                                           r"archive/main\.zip: .*clone the repository and "
                                           r"pass its folder with source='local'"):
        hub.load("owner/gone", "linear")
    assert sorted(p.name for p in hub_home.iterdir()) == ["owner_repo_main"]


def test_the_default_hub_folder(served, tmp_path, monkeypatch):
    monkeypatch.delenv(hub.HUB_ENV, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    hub.list("owner/repo")
    assert (tmp_path / ".cache" / "tomlrun" / "hub" / "owner_repo_main" / "hubconf.py").is_file()


# ----- torch.hub parity -------------------------------------------------------------------------

def test_load_matches_torch_hub_on_a_local_repository(tmp_path):
    """torch.hub.load(source='local') reads the same hubconf.py: the entry called with kwargs,
    a RuntimeError for an unknown entry and for missing dependencies (torch's list and help
    take GitHub repositories only)."""
    torch = pytest.importorskip("torch")
    repo = _write_repo(tmp_path / "repo", '''
        dependencies = ["numpy"]


        def add(a=1, b=2):
            """Adds two numbers."""
            return a + b
        ''')
    assert hub.load(str(repo), "add", source="local", b=5) == torch.hub.load(
        str(repo), "add", source="local", b=5) == 6
    for load in (hub.load, torch.hub.load):
        with pytest.raises(RuntimeError, match="(?i)cannot find callable 'sub'|"
                                               "Cannot find callable sub"):
            load(str(repo), "sub", source="local")
    (repo / "hubconf.py").write_text('dependencies = ["no_such_module_hub_test"]\n\n'
                                     "def add():\n    return 0\n", encoding="utf-8")
    for load in (hub.load, torch.hub.load):
        with pytest.raises(RuntimeError, match="(?i)missing dependencies: "
                                               "no_such_module_hub_test"):
            load(str(repo), "add", source="local")
