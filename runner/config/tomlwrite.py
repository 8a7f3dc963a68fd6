"""A small TOML writer for resolved configs: nested tables of strings, numbers, bools and lists.

The standard library reads TOML (``tomllib``) but does not write it, and a resolved config needs
only a sliver of the format, so this module writes that sliver instead of adding a dependency.
Output round-trips through ``tomllib.loads`` to the same dict (TOML has no null, so ``None`` is
refused rather than silently dropped).
"""
from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping

from core.atomic import atomic_write

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f",
            "\r": "\\r"}


def dumps(data: Mapping) -> str:
    """``data`` (a mapping of mappings and values) as a TOML document."""
    lines: list[str] = []
    _write_table(data, (), lines)
    return "\n".join(lines).lstrip("\n") + "\n"


def dump(data: Mapping, path: str | os.PathLike) -> None:
    """Write ``dumps(data)`` to ``path`` atomically (a temp file renamed over the target)."""
    path = os.fspath(path)
    text = dumps(data)
    with atomic_write(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def _write_table(table: Mapping, prefix: tuple[str, ...], lines: list[str]) -> None:
    # TOML requires a table's plain keys before its sub-tables, so write them in two passes.
    subtables = []
    for key, value in table.items():
        if isinstance(value, Mapping):
            subtables.append((key, value))
        else:
            lines.append(f"{_key(key)} = {_value(value, prefix + (str(key),))}")
    for key, value in subtables:
        path = prefix + (str(key),)
        lines.append("")
        lines.append("[" + ".".join(_key(part) for part in path) + "]")
        _write_table(value, path, lines)


def _key(key) -> str:
    if not isinstance(key, str):
        raise TypeError(f"TOML keys must be strings, got {key!r} ({type(key).__name__})")
    return key if _BARE_KEY.match(key) else _string(key)


def _value(value, path: tuple[str, ...]) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(item, path) for item in value) + "]"
    if hasattr(value, "item") and getattr(value, "ndim", None) == 0:  # numpy scalars
        return _value(value.item(), path)
    name = ".".join(path)
    raise TypeError(f"config value '{name}' = {value!r} ({type(value).__name__}) cannot be "
                    "written as TOML: use a string, number, bool, list or table")


def _float(value: float) -> str:
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    text = repr(value)  # shortest repr that round-trips
    return text if any(c in text for c in ".eE") else text + ".0"


def _string(text: str) -> str:
    out = []
    for char in text:
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'
