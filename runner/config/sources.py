"""Where a key of the composed config was written: which TOML file, or the command line.

Hydra merges the group option files (``model/mynet.toml`` in a folder of ``hydra.searchpath``),
an ``+experiment=`` preset and the command-line overrides into one config and keeps no record of
which file gave which key. It does record what it composed from: the option chosen for each group
(``runtime.choices``), the folders it searched in order (``runtime.config_sources``) and the
overrides (``overrides.task``). From those, ``located`` tells the user, in the paragraph of a
``ConfigError`` about a key, the file to open: the last of the sources that sets the key or its
closest table (an override beats a preset, a preset beats the option's own file), as
``model.layers.fc.out_features is set in my_conf/model/mynet.toml.``

Outside a Hydra run (``validate`` from Python) nothing is known and messages stay as they are.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from omegaconf import OmegaConf

from runner.errors import ConfigError

EXPERIMENT = "experiment"
# The dotted key a message starts with: model.layers.fc.out_features, 'model.freez', optim.lr.
_LEADING_KEY = re.compile(r"^'?(?P<key>[a-z_][a-z0-9_]*(?:\.[A-Za-z0-9_\-]+)+|[a-z_]+(?= = ))")
_PACKAGE = re.compile(r"^#\s*@package\s+(?P<package>\S+)", re.MULTILINE)


@dataclass
class _File:
    """A TOML file Hydra composed, with its table placed where it lands in the config."""

    path: Path
    group: str  # the group it is an option of (experiment for a preset)
    table: dict  # rooted at the config's top: {"model": {...}} for model/mynet.toml


@dataclass
class Sources:
    """The files and overrides one composed config came from, most authoritative first."""

    cwd: str
    overrides: list[str] = field(default_factory=list)  # as typed: model.layers.fc.type=Tanh
    files: list[_File] = field(default_factory=list)  # the preset, then the group options
    selections: set[str] = field(default_factory=set)  # group names (model=mynet selects)

    def describe(self, key: str) -> str:
        """One sentence on where ``key`` (or its closest table) was set; "" when unknown."""
        parts = key.split(".")
        best, depth = None, 0
        for text in self._overrides():
            name = _override_key(text).split(".")
            if parts[:len(name)] == name and len(name) > depth:
                best, depth = f"was set on the command line: {text}", len(name)
        for source in self.files:
            found = _depth(source.table, parts)
            if found > depth:
                best, depth = f"is set in {self._shown(source.path)}", found
        tables = [source.path for source in self.files if _depth(source.table, parts) == depth
                  and _is_table(source.table, parts[:depth])]
        if best and best.startswith("is set") and len(tables) > 1:  # a table several files fill
            best = "is set in " + " and ".join(self._shown(path) for path in tables)
        if best is None:
            return ""
        below = [text for text in self._overrides()
                 if _override_key(text).startswith(key + ".")]
        if below and best.startswith("is set") and depth < len(parts):  # no file has the key
            return f"{key} was added on the command line: {', '.join(below)}."
        subject = ".".join(parts[:depth]) if best.startswith("is set") else key
        also = (f"; {', '.join(below)} {'was' if len(below) == 1 else 'were'} set on the command "
                "line" if below else "")
        return f"{subject} {best}{also}."

    def describe_option(self, group: str) -> str:
        """Which file the selected option of ``group`` came from, as a sentence; "" if none."""
        path = next((source.path for source in self.files if source.group == group), None)
        return f"The {group} comes from {self._shown(path)}." if path else ""

    def _overrides(self) -> list[str]:
        """Overrides that set values (not group selections, deletions or Hydra's settings)."""
        return [text for text in self.overrides
                if "=" in text and not text.startswith("~")
                and _override_key(text) not in self.selections
                and not _override_key(text).startswith("hydra.")]

    def _shown(self, path: Path) -> str:
        """``path`` relative to the launch folder when it lies inside it."""
        try:
            return str(path.relative_to(Path(self.cwd).resolve()))
        except ValueError:
            return str(path)


def _override_key(text: str) -> str:
    return text.partition("=")[0].lstrip("+~").strip()


def _depth(table: Any, parts: list[str]) -> int:
    """How many leading ``parts`` of a key ``table`` holds (2 for model.layers of a spec)."""
    depth = 0
    for part in parts:
        if not isinstance(table, dict) or part not in table:
            break
        table, depth = table[part], depth + 1
    # A group's table alone says nothing of the key: every option file has one.
    return depth if depth >= 2 or depth == len(parts) else 0


def _is_table(table: Any, parts: list[str]) -> bool:
    for part in parts:
        table = table.get(part) if isinstance(table, dict) else None
    return isinstance(table, dict)


def from_hydra(hydra_config) -> Sources:
    """The sources of the config Hydra composed with ``hydra_config`` (``HydraConfig.get()``)."""
    runtime = hydra_config.runtime
    cwd = str(runtime.cwd)
    choices = {group: option for group, option in dict(runtime.choices).items()
               if option and not group.startswith("hydra")}
    folders = []
    for source in runtime.config_sources:
        if source.schema == "toml" and source.path is not None:
            root, _, mount = str(source.path).partition("?group=")
            folders.append((Path(cwd, root), mount.strip("/")))
    files = []
    groups = sorted(choices, key=lambda group: group != EXPERIMENT)  # the preset wins
    for group in groups:
        path = _option_file(folders, group, str(choices[group]))
        if path is not None:
            files.append(_File(path, group, _placed(path, group)))
    # As typed: an override's value may be an interpolation (model.layers.fc.type=${...}).
    overrides = OmegaConf.to_container(hydra_config.overrides, resolve=False)["task"]
    return Sources(cwd, [str(o) for o in overrides], files, set(choices))


def _option_file(folders, group: str, option: str) -> Path | None:
    """The file Hydra read for ``group=option``: the first search-path folder that holds it."""
    for root, mount in folders:
        if mount and group != mount and not group.startswith(mount + "/"):
            continue
        relative = group[len(mount):].strip("/") if mount else group
        path = root / relative / f"{option}.toml"
        if path.is_file():
            return path.resolve()
    return None


def _placed(path: Path, group: str) -> dict:
    """The file's table where its package puts it: under its group, or at the top
    (``# @package _global_``, as experiment presets are written)."""
    try:
        text = path.read_text(encoding="utf-8")
        table = tomllib.loads(text)
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return {}
    table.pop("defaults", None)
    header = _PACKAGE.search("\n".join(line for line in text.splitlines()[:5]))
    package = header.group("package") if header else group.replace("/", ".")
    if package == "_global_":
        return table
    for part in reversed(package.replace("_global_.", "").split(".")):
        table = {part: table}
    return table


def current() -> Sources | None:
    """The sources of the running Hydra job, else None (called from Python)."""
    try:
        from hydra.core.hydra_config import HydraConfig  # noqa: PLC0415 - a Hydra run only
    except ImportError:  # pragma: no cover - hydra is a dependency
        return None
    if not HydraConfig.initialized():
        return None
    try:
        return from_hydra(HydraConfig.get())
    except Exception:  # noqa: BLE001 - a location is a courtesy; the error itself must show
        return None


def located(exc: ConfigError, fallback: str = "", sources: Sources | None = None) -> ConfigError:
    """``exc`` with a sentence saying where the key its message starts with was set (or, for a
    message about no one key, ``fallback``'s); ``exc`` itself when that is not known."""
    if getattr(exc, "located", False):
        return exc
    sources = sources or current()
    message = str(exc)
    match = _LEADING_KEY.match(message)
    where = ""
    if sources and match:
        where = sources.describe(match.group("key"))
    elif sources and fallback:
        where = sources.describe_option(fallback)
    if not where:
        return exc
    end = "" if message.rstrip().endswith((".", "?", "!")) else "."
    error = ConfigError(f"{message.rstrip()}{end} {where}")
    error.located = True
    return error
