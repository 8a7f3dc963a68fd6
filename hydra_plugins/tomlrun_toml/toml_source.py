"""A Hydra ``ConfigSource`` for ``.toml`` files: the ``toml://`` scheme.

``toml:///abs/folder`` serves a folder exactly as ``file://`` serves YAML: sub-folders are config
groups, ``NAME.toml`` files are configs, ``# @package`` lines at the top of a file set its package
(TOML comments are ``#`` too), and a ``defaults`` key written as a TOML array of strings and inline
tables is Hydra's defaults list::

    defaults = [{model = "cnn"}, {"override hydra/job_logging" = "disabled"}, "_self_"]

``toml:///abs/folder?group=NAME`` mounts the folder as the config group ``NAME`` instead of at the
root. tomlrun uses it to serve its top-level ``experiments/`` folder as the ``experiment`` group
(``+experiment=mnist_cnn``): the folder stays where people look for it, in a checkout and in an
installed package alike, and nothing is copied or symlinked into ``conf/`` to make it a group.

TOML has no null and OmegaConf has no dates: TOML dates and times become ISO 8601 strings.
"""
from __future__ import annotations

import builtins
import datetime
import os
import re
import sys
from typing import Any

from hydra.core.object_type import ObjectType
from hydra.errors import CompactHydraException
from hydra.plugins.config_source import ConfigLoadError, ConfigResult, ConfigSource
from omegaconf import OmegaConf

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 ships no TOML parser
    import tomli as tomllib

_EXTENSION = ".toml"
_MOUNT_RE = re.compile(r"^(?P<root>.*)\?group=(?P<group>[A-Za-z0-9_][A-Za-z0-9_./-]*)$")
_POSITION_RE = re.compile(r"^(?P<msg>.*?)\s*\(at line (?P<line>\d+), column (?P<col>\d+)\)$")
_SKIPPED_FOLDERS = {"__pycache__"}


class TomlSyntaxError(ConfigLoadError, CompactHydraException):
    """A ``.toml`` config that does not parse; the message names the file, line and column.

    A ``CompactHydraException`` so that Hydra reports it as one message, without a traceback.
    """


def split_mount(path: str) -> tuple[str, str]:
    """``"/abs/dir?group=experiment"`` -> ``("/abs/dir", "experiment")``; no mount: group ``""``."""
    match = _MOUNT_RE.match(path)
    if not match:
        return path, ""
    return match.group("root"), match.group("group").strip("/")


def read_text(path: str) -> str:
    """The file's text; TOML is UTF-8 by definition, so other bytes (a file saved as UTF-16 or
    Latin-1 by an editor) are a ``TomlSyntaxError`` naming the file and the first bad byte."""
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        return data.decode("utf-8-sig")  # a byte order mark some editors write is dropped
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise TomlSyntaxError(
            f"{path} is not UTF-8 text (byte 0x{data[exc.start]:02x} at line {line}, offset "
            f"{exc.start}), and TOML files must be UTF-8; save it as UTF-8 in your editor.") \
            from None


def parse_toml(text: str, filename: str) -> dict:
    """Parse TOML text; a syntax error becomes a ``TomlSyntaxError`` naming file, line, column."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TomlSyntaxError(_syntax_message(exc, filename)) from None


def _syntax_message(exc: Exception, filename: str) -> str:
    # tomllib (3.11-3.13) and tomli put the position only in the message: "... (at line 3,
    # column 7)"; Python 3.14 adds lineno/colno attributes as well.
    text = str(exc)
    match = _POSITION_RE.match(text)
    line = getattr(exc, "lineno", None) or (match and match.group("line"))
    col = getattr(exc, "colno", None) or (match and match.group("col"))
    msg = getattr(exc, "msg", None) or (match.group("msg") if match else text)
    where = f"line {line}, column {col}" if line else "the end of the file"
    return f"TOML syntax error in {filename} at {where}: {msg}."


def _plain(value: Any) -> Any:
    """``value`` with TOML dates and times replaced by ISO 8601 strings (OmegaConf has no dates)."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, (datetime.date, datetime.time)):  # datetime is a date
        return value.isoformat()
    return value


class TomlConfigSource(ConfigSource):
    """Serves ``.toml`` configs from a folder, optionally mounted as a config group."""

    def __init__(self, provider: str, path: str) -> None:
        if path.find("://") == -1:
            path = f"{self.scheme()}://{path}"
        super().__init__(provider=provider, path=path)
        self.root, self.mount = split_mount(self.path)

    @staticmethod
    def scheme() -> str:
        return "toml"

    # --- mapping Hydra config paths to files --------------------------------------------------
    def _relative(self, config_path: str) -> str | None:
        """The folder-relative path of ``config_path``, or None when it lies outside the mount."""
        config_path = config_path.strip("/")
        if not self.mount:
            return config_path
        if config_path == self.mount:
            return ""
        if config_path.startswith(self.mount + "/"):
            return config_path[len(self.mount) + 1:]
        return None

    def _above_mount(self, config_path: str) -> bool:
        """True for ``""`` and the parents of a nested mount (``a`` for ``a/b``)."""
        config_path = config_path.strip("/")
        return bool(self.mount) and (config_path == "" or
                                     self.mount.startswith(config_path + "/"))

    def _file(self, config_path: str) -> str | None:
        relative = self._relative(config_path)
        if not relative:
            return None
        if not relative.endswith(_EXTENSION):
            relative += _EXTENSION
        return os.path.realpath(os.path.join(self.root, relative))

    # --- the ConfigSource API -----------------------------------------------------------------
    def available(self) -> bool:
        return os.path.isdir(self.root)

    def is_group(self, config_path: str) -> bool:
        if self._above_mount(config_path):
            return self.available()
        relative = self._relative(config_path)
        if relative is None:
            return False
        return os.path.isdir(os.path.join(self.root, relative))

    def is_config(self, config_path: str) -> bool:
        full_path = self._file(config_path)
        return full_path is not None and os.path.isfile(full_path)

    def list(self, config_path: str, results_filter: ObjectType | None) -> builtins.list[str]:
        wants_groups = results_filter in (None, ObjectType.GROUP)
        wants_configs = results_filter in (None, ObjectType.CONFIG)
        if self._above_mount(config_path):
            depth = len([part for part in config_path.strip("/").split("/") if part])
            child = self.mount.split("/")[depth]
            return [child] if wants_groups and self.available() else []
        relative = self._relative(config_path)
        folder = os.path.join(self.root, relative or "")
        if relative is None or not os.path.isdir(folder):
            return []
        found = set()
        for entry in os.listdir(folder):
            full = os.path.join(folder, entry)
            if os.path.isdir(full):
                if wants_groups and entry not in _SKIPPED_FOLDERS and not entry.startswith("."):
                    found.add(entry)
            elif entry.endswith(_EXTENSION) and wants_configs:
                found.add(entry[: -len(_EXTENSION)])
        return sorted(found)

    def load_config(self, config_path: str) -> ConfigResult:
        full_path = self._file(config_path)
        if full_path is None or not os.path.isfile(full_path):
            shown = full_path or f"{config_path} (outside the group '{self.mount}')"
            raise ConfigLoadError(f"Config not found : {shown}")
        text = read_text(full_path)
        try:
            header = self._get_header_dict(text)
        except ValueError as exc:
            raise TomlSyntaxError(f"Bad '# @' header line in {full_path}: {exc}.") from None
        config = OmegaConf.create(_plain(parse_toml(text, full_path)))
        return ConfigResult(
            config=config,
            path=f"{self.scheme()}://{self.path}",
            provider=self.provider,
            header=header,
        )
