"""``paddle.hub``: list, describe and load the models a repository offers in its ``hubconf.py``.

A hub repository is a folder (on GitHub, on Gitee, or local) whose top-level ``hubconf.py``
defines entry points: functions (or classes) that build a model, with a docstring, and
optionally a ``dependencies`` list of the modules they need. As Paddle's
(python/paddle/hapi/hub.py):

- ``list(repo_dir, source='github', force_reload=False)``: the names of the callables of
  ``hubconf.py`` that do not start with ``_``;
- ``help(repo_dir, model, source='github', force_reload=False)``: entry ``model``'s docstring;
- ``load(repo_dir, model, source='github', force_reload=False, **kwargs)``: ``model(**kwargs)``,
  once every module of ``dependencies`` is importable.

``source='github'`` or ``'gitee'``: ``repo_dir`` is ``'owner/repo[:branch]'`` (default branch
``main`` on GitHub, ``master`` on Gitee, as Paddle), fetched as the branch's zip archive into
the hub folder, ``$TOMLRUN_HUB_HOME`` or else ``~/.cache/tomlrun/hub`` (Paddle's
``~/.cache/paddle/hub``), as ``<owner>_<repo>_<branch>`` (a ``/`` of the branch becomes ``_``),
and reused from there unless ``force_reload``. ``source='local'``: ``repo_dir`` is the folder.

The archive is downloaded to a temporary file renamed into place once complete, unpacked into a
temporary folder, and only then renamed to the cache folder: an interrupted transfer or a damaged
archive leaves the previous cache (or none) as it was, never a half-unpacked folder. There is no
md5 check: a branch's archive changes with every push.
"""
from __future__ import annotations

import builtins
import contextlib
import http.client
import importlib.util
import os
import re
import shutil
import sys
import tempfile
import types
import zipfile
from pathlib import Path

from core.datasets.download import (
    ARCHIVE_ERRORS,
    BadTransferError,
    default_cache_dir,
    error_text,
    failure_reason,
    fetch_verified,
    make_dir,
)

__all__ = ["HUB_ENV", "help", "list", "load"]

HUB_ENV = "TOMLRUN_HUB_HOME"  # where downloaded hub repositories are cached, when set
MODULE_HUBCONF = "hubconf.py"
VAR_DEPENDENCY = "dependencies"
SOURCES = ("github", "gitee", "local")

# The archive of a branch (Paddle's _git_archive_link); the tests point these at file:// URLs.
ARCHIVE_URLS = {
    "github": "https://github.com/{owner}/{repo}/archive/{branch}.zip",
    "gitee": "https://gitee.com/{owner}/{repo}/repository/archive/{branch}.zip",
}
DEFAULT_BRANCH = {"github": "main", "gitee": "master"}

# What GitHub and Gitee allow in an owner or repository name; and what git refuses in a branch
# name (``git check-ref-format``), ':' included, since it separates the branch in repo_dir.
_NAME = re.compile(r"[A-Za-z0-9_.-]+")
_BAD_BRANCH_CHARS = set(" ~^:?*[\\") | {chr(c) for c in range(32)}


def _hub_dir() -> Path:
    """The folder downloaded repositories are cached in: ``$TOMLRUN_HUB_HOME`` when set, else
    ``~/.cache/tomlrun/hub``."""
    home = os.environ.get(HUB_ENV)
    return Path(home).expanduser() if home else default_cache_dir("hub")


def list(repo_dir, source: str = "github", force_reload: bool = False) -> builtins.list[str]:  # noqa: A001
    """Paddle's ``paddle.hub.list(repo_dir, source='github', force_reload=False)``: the entry
    points of ``repo_dir``'s ``hubconf.py``, its callables whose names do not start with ``_``
    (in ``dir()`` order, as Paddle; a class ``hubconf.py`` imports counts too).

    ``repo_dir``: ``'owner/repo[:branch]'`` for ``source='github'`` / ``'gitee'``, a folder for
    ``'local'``. ``force_reload``: download the repository again even if it is cached.
    """
    folder = _repo_folder("list", repo_dir, source, force_reload)
    with _on_sys_path(folder):
        module = _import_hubconf("list", folder)
    return [name for name in dir(module)
            if not name.startswith("_") and callable(getattr(module, name))]


def help(repo_dir, model: str, source: str = "github", force_reload: bool = False):  # noqa: A001
    """Paddle's ``paddle.hub.help(repo_dir, model, source='github', force_reload=False)``: the
    docstring of entry ``model`` of ``repo_dir``'s ``hubconf.py`` (None when it has none)."""
    _check_model("help", model)
    folder = _repo_folder("help", repo_dir, source, force_reload)
    with _on_sys_path(folder):
        module = _import_hubconf("help", folder)
    return _entry("help", module, model, folder).__doc__


def load(repo_dir, model: str, source: str = "github", force_reload: bool = False, **kwargs):
    """Paddle's ``paddle.hub.load(repo_dir, model, source='github', force_reload=False,
    **kwargs)``: what entry ``model`` of ``repo_dir``'s ``hubconf.py`` returns when called with
    ``**kwargs`` (usually a ``core.nn.Layer``), once every module its ``dependencies`` list
    names is importable.

    The repository's folder stays on ``sys.path`` while the entry runs (Paddle takes it off
    before), so that an entry may import the repository's own modules when it is called.
    """
    _check_model("load", model)
    folder = _repo_folder("load", repo_dir, source, force_reload)
    with _on_sys_path(folder):
        module = _import_hubconf("load", folder)
        _check_dependencies(module, folder)
        return _entry("load", module, model, folder)(**kwargs)


# ----- arguments -------------------------------------------------------------------------------

def _check_source(caller: str, source) -> str:
    if source not in SOURCES:
        raise ValueError(f"hub.{caller}: source={source!r} is not one of "
                         f"{', '.join(repr(s) for s in SOURCES)}.")
    return source


def _check_model(caller: str, model) -> None:
    if not isinstance(model, str):
        raise ValueError(f"hub.{caller}: model={model!r} must be the name (a str) of an entry "
                         f"of {MODULE_HUBCONF}.")


def _parse_repo_info(caller: str, repo, source: str) -> tuple[str, str, str]:
    """``'owner/repo[:branch]'`` -> ``(owner, repo, branch)``, the branch ``main`` on GitHub and
    ``master`` on Gitee when not given (Paddle's ``_parse_repo_info``)."""
    form = f"'owner/repo' or 'owner/repo:branch' (default branch {DEFAULT_BRANCH[source]!r})"
    if not isinstance(repo, str):
        raise ValueError(f"hub.{caller}: repo_dir={repo!r} must be a str, {form}, for "
                         f"source={source!r}.")
    names, colon, branch = repo.partition(":")
    if not colon:
        branch = DEFAULT_BRANCH[source]
    owner, slash, name = names.partition("/")
    if not (slash and _NAME.fullmatch(owner) and _NAME.fullmatch(name)):
        raise ValueError(f"hub.{caller}: repo_dir={repo!r} is not of the form {form} for "
                         f"source={source!r}: "
                         "owner and repo are letters, digits, '-', '_' and '.'; for a folder "
                         "on this machine pass source='local'.")
    bad = sorted(set(branch) & _BAD_BRANCH_CHARS)
    if not branch or bad:
        why = f"it holds {''.join(bad)!r}" if bad else "it is empty"
        raise ValueError(f"hub.{caller}: repo_dir={repo!r}: the branch {branch!r} is not a git "
                         f"branch name ({why}); the form is {form}.")
    return owner, name, branch


# ----- the repository's folder -----------------------------------------------------------------

def _repo_folder(caller: str, repo_dir, source, force_reload) -> Path:
    """The local folder of ``repo_dir``: the cached download for GitHub and Gitee (fetched
    first unless cached, or always with ``force_reload``), the folder itself for 'local'."""
    if _check_source(caller, source) != "local":
        return _get_cache_or_reload(caller, repo_dir, bool(force_reload), source)
    if not isinstance(repo_dir, (str, os.PathLike)):
        raise ValueError(f"hub.{caller}: repo_dir={repo_dir!r} must be a folder (str or path) "
                         "for source='local'.")
    folder = Path(repo_dir).expanduser()
    if not folder.is_dir():
        raise RuntimeError(f"hub.{caller}: repo_dir={os.fspath(repo_dir)!r} is not a folder; "
                           f"source='local' takes the folder that holds {MODULE_HUBCONF}.")
    return folder.resolve()


def _get_cache_or_reload(caller: str, repo: str, force_reload: bool, source: str) -> Path:
    owner, name, branch = _parse_repo_info(caller, repo, source)
    cache = make_dir(_hub_dir())
    folder = cache / "_".join([owner, name, branch.replace("/", "_")])
    if folder.is_dir() and not force_reload:
        _say(f"using the cached {repo!r} in {folder}")
        return folder
    url = ARCHIVE_URLS[source].format(owner=owner, repo=name, branch=branch)
    archive = cache / f"{folder.name}.zip"
    _say(f"downloading {url}")
    try:
        _download(url, archive)
        _unpack(url, archive, folder)
    finally:
        with contextlib.suppress(FileNotFoundError):
            archive.unlink()  # Paddle keeps only the unpacked folder
    return folder


def _download(url: str, target: Path, timeout: float = 60.0) -> None:
    """``url`` into ``target``, renamed into place only once complete (no md5)."""
    try:
        fetch_verified(url, target, None, timeout)
    except (OSError, http.client.HTTPException, ValueError, BadTransferError) as exc:
        raise RuntimeError(
            f"hub: could not download {url}: {failure_reason(exc)}. Check that the repository and "
            "branch exist and are public, or clone the repository and pass its folder with "
            "source='local'.") from None


def _unpack(url: str, archive: Path, folder: Path) -> None:
    """Unpack ``archive`` into a temporary folder beside ``folder``, then put its top folder
    (GitHub's ``<repo>-<branch>/``) in ``folder``'s place; on any error nothing is left."""
    scratch = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".{folder.name}.", suffix=".tmp"))
    try:
        try:
            with zipfile.ZipFile(archive) as zipped:
                if not zipped.namelist():
                    raise zipfile.BadZipFile("the archive holds no files")
                zipped.extractall(scratch)
        except (zipfile.BadZipFile, *ARCHIVE_ERRORS) as exc:
            raise RuntimeError(
                f"hub: the archive {archive} downloaded from {url} is not a readable zip "
                f"({error_text(exc)}); it was deleted, nothing was unpacked and the cache "
                "holds what it held before. Run again with force_reload=True to download it "
                "again.") from None
        _replace(folder, _top_folder(scratch))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _top_folder(scratch: Path) -> Path:
    """The repository's root in an unpacked archive: its one top-level folder (GitHub and Gitee
    wrap the files in one), else the unpacked files themselves."""
    entries = builtins.list(scratch.iterdir())
    if len(entries) == 1 and entries[0].is_dir():
        return entries[0]
    return scratch


def _replace(folder: Path, new: Path) -> None:
    """Put ``new`` where ``folder`` is, the old cache moved aside first and removed after, so
    that ``folder`` is at every moment either the old repository or the whole new one."""
    old = None
    if folder.exists():
        old = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".{folder.name}.", suffix=".old"))
        os.replace(folder, old / "repo")
    try:
        os.replace(new, folder)
    except OSError:
        if not folder.is_dir():
            raise
        # Another process unpacked the same branch in between: its copy is as good as ours.
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


# ----- hubconf.py ------------------------------------------------------------------------------

@contextlib.contextmanager
def _on_sys_path(folder: Path):
    """``folder`` first on ``sys.path`` for the block, so that ``hubconf.py`` can import the
    repository's own modules; taken off again afterwards, whatever happened."""
    entry = str(folder)
    sys.path.insert(0, entry)
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(entry)


def _import_hubconf(caller: str, folder: Path) -> types.ModuleType:
    """A fresh module object run from ``folder/hubconf.py`` (never one cached by an earlier
    call, so that a reloaded repository's new code is what runs)."""
    path = folder / MODULE_HUBCONF
    if not path.is_file():
        raise RuntimeError(f"hub.{caller}: there is no {MODULE_HUBCONF} in {folder}; a hub "
                           f"repository defines its entry points in a top-level "
                           f"{MODULE_HUBCONF}.")
    spec = importlib.util.spec_from_file_location("hubconf", path)
    module = importlib.util.module_from_spec(spec)
    # Registered while it runs (as Paddle's __import__ does), so that dataclasses and pickling
    # inside it find their module; whatever sys.modules held before is put back.
    previous = sys.modules.get("hubconf")
    sys.modules["hubconf"] = module
    try:
        spec.loader.exec_module(module)
    finally:
        if previous is None:
            sys.modules.pop("hubconf", None)
        else:
            sys.modules["hubconf"] = previous
    return module


def _check_dependencies(module: types.ModuleType, folder: Path) -> None:
    """Raise naming every module of ``hubconf.dependencies`` that cannot be imported."""
    dependencies = getattr(module, VAR_DEPENDENCY, None)
    if dependencies is None:
        return
    if not (isinstance(dependencies, (builtins.list, tuple))
            and all(isinstance(d, str) for d in dependencies)):
        raise RuntimeError(f"hub.load: {folder / MODULE_HUBCONF} sets {VAR_DEPENDENCY}="
                           f"{dependencies!r}; it must be a list of module names (str).")
    missing = [name for name in dependencies if not _importable(name)]
    if missing:
        raise RuntimeError(f"hub.load: missing dependencies: {', '.join(missing)} (the "
                           f"{VAR_DEPENDENCY} of {folder / MODULE_HUBCONF}); install them "
                           "and load again.")


def _importable(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # a missing parent package, or a malformed name
        return False


def _entry(caller: str, module: types.ModuleType, name: str, folder: Path):
    entry = getattr(module, name, None)
    if entry is None or not callable(entry):
        entries = [n for n in dir(module)
                   if not n.startswith("_") and callable(getattr(module, n))]
        raise RuntimeError(f"hub.{caller}: cannot find callable {name!r} in "
                           f"{folder / MODULE_HUBCONF}; its entries are: "
                           f"{', '.join(entries) or '(none)'}.")
    return entry


def _say(message: str) -> None:
    print(f"tomlrun: {message}", file=sys.stderr, flush=True)
