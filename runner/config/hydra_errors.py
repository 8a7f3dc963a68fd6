"""Hydra's own user errors (a misspelt key or group option, a bad override, a TOML syntax error)
as tomlrun's one paragraph with exit status 2, like every other mistake a user can fix.

Hydra reports these itself, before the task function runs, with exit status 1 and advice that
misleads here: "To append to your config use +optim.lrr=0.1" would make a misspelt key pass
Hydra and reach the schema, and a key of another group option (data.root on data=digits) be
silently ignored. ``install`` wraps Hydra's reporting function (``run_and_report``) so that
composition errors become ``tomlrun: error: ...`` naming the key, the close spellings and the
option the key belongs to; every other exception keeps Hydra's report.
"""
from __future__ import annotations

import difflib
import os
import re
import sys
from dataclasses import fields
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from hydra.errors import CompactHydraException, MissingConfigException
from omegaconf import grammar_parser
from omegaconf.errors import GrammarParseError

from runner.config.paths import config_dirs
from runner.config.validation import GROUPS, SECTIONS, TOP_LEVEL

EXIT_USAGE = 2
_OVERRIDE = re.compile(r"Could not override '([^']+)'")


def install(prog: str) -> None:
    """Route Hydra's composition errors through ``message`` (HYDRA_FULL_ERROR=1 keeps Hydra's)."""
    from hydra._internal import utils as hydra_utils  # noqa: PLC0415 - Hydra's private hook

    original = hydra_utils.run_and_report
    if getattr(original, "_tomlrun", False):
        return

    def run_and_report(func):
        def translated():
            try:
                return func()
            except CompactHydraException as exc:
                if os.environ.get("HYDRA_FULL_ERROR") == "1":
                    raise
                print(f"{prog}: error: {message(exc)}", file=sys.stderr)
                sys.exit(EXIT_USAGE)  # SystemExit passes Hydra's `except Exception` untouched
            except KeyboardInterrupt as exc:  # outside a job (between a sweep's jobs): no
                if os.environ.get("HYDRA_FULL_ERROR") == "1":  # traceback through Hydra; a
                    raise  # sweep's parent run is closed KILLED with its summary at exit
                sigterm = type(exc).__name__ == "Terminated"
                print(f"{prog}: stopped by {'SIGTERM' if sigterm else 'Ctrl-C'}.", file=sys.stderr)
                sys.exit(143 if sigterm else 130)

        return original(translated)

    run_and_report._tomlrun = True
    hydra_utils.run_and_report = run_and_report


# Hydra's switches that take no value: argparse reads them only before the first override.
_SWITCHES = ("-m", "--multirun", "--resolve")


def switches_first(argv: list[str]) -> list[str]:
    """``argv`` with Hydra's value-less switches moved before the overrides, so that
    ``python -m runner model=mlp -m optim.lr=0.1,0.01`` sweeps (argparse stops reading
    overrides at the first switch and rejects the rest as unrecognized)."""
    return [a for a in argv if a in _SWITCHES] + [a for a in argv if a not in _SWITCHES]


def check_overrides(argv: list[str]) -> str | None:
    """A paragraph for an override with nothing before its '=' (Hydra's parser raises a bare
    ValueError with a traceback for ``=3``) or a value that starts with ``~`` (Hydra's lexer
    error names no remedy), else None."""
    for arg in argv:
        if not arg.startswith("-") and arg.lstrip("+~").startswith("="):
            return (f"'{arg}' has no key before '=': write KEY=VALUE, e.g. optim.lr=0.01 or "
                    "model=mlp (python -m runner --help lists the groups and keys).")
        key, equals, value = arg.partition("=")
        if equals and not arg.startswith("-") and value.startswith("~"):
            # A shell expands ~ only at a word's start or in a variable assignment: an
            # override such as data.root=~/data reaches us as typed.
            return (f"'{arg}': a value cannot start with '~' in Hydra's override grammar "
                    f"(~ before a key deletes it): write the path out, "
                    f"{key}={os.path.expanduser(value)}, or quote the value for Hydra inside "
                    f"the shell's quotes, '{key}=\"{value}\"' (tomlrun expands ~ in data "
                    "paths).")
    missing = [entry for entry in _searchpath_entries(argv) if entry.startswith("toml://")
               and not os.path.isdir(entry.partition("://")[2])]
    if missing:  # Hydra would only warn, then report every option of it as unknown
        return (f"hydra.searchpath names {', '.join(missing)}, which is not a folder: give the "
                "folder that holds your TOML options (model/NAME.toml, ...), as "
                "toml:///abs/path (three slashes) or a path relative to the launch folder.")
    return None


def _searchpath_entries(argv) -> list[str]:
    entries = []
    for arg in argv:
        key, _, value = arg.partition("=")
        if key.lstrip("+~") == "hydra.searchpath":
            entries += [e.strip().strip("'\"") for e in value.strip().strip("[]").split(",")]
    return entries


def message(exc: CompactHydraException) -> str:
    """One paragraph for a Hydra composition error."""
    text = str(exc)
    found = _OVERRIDE.search(text)
    if found:
        return unknown_override(found.group(1))
    if isinstance(exc, MissingConfigException) and exc.options:
        return _missing_option(exc)
    syntax = _TOML_SYNTAX.match(" ".join(text.split()))
    if syntax:
        return _toml_syntax(syntax)
    if not text.strip() and isinstance(exc.__cause__, GrammarParseError):
        return _bad_interpolation(exc.__cause__, sys.argv[1:])
    if not text.strip() and exc.__cause__ is not None:  # Hydra wraps OmegaConf's without a word
        return " ".join(str(exc.__cause__).split())
    if isinstance(exc.__cause__, CompactHydraException):  # a plugin's own error (the Optuna
        return " ".join(str(exc.__cause__).split())  # sweeper's), not "Error in call to target"
    return " ".join(text.split())


_TOML_SYNTAX = re.compile(r"^TOML syntax error in (?P<file>.+?) at line (?P<line>\d+), "
                          r"column (?P<col>\d+): (?P<msg>.*?)\.?$")
_BARE_WORD = re.compile(r"=\s*(?P<word>[A-Za-z_][\w.-]*)\s*(#.*)?$")


def _toml_syntax(found: re.Match) -> str:
    """The TOML parser's message (file, line, column) with the line itself and, for the
    common slips, what TOML wants instead."""
    message = found.group(0).rstrip(".") + "."
    try:
        lines = Path(found.group("file")).read_text(encoding="utf-8").splitlines()
        line = lines[int(found.group("line")) - 1].strip()
    except (OSError, UnicodeDecodeError, IndexError):
        return message
    msg, hint = found.group("msg"), ""
    bare = _BARE_WORD.search(line)
    if msg == "Invalid value" and bare and bare.group("word") in ("True", "False"):
        hint = f" TOML's booleans are lowercase: {bare.group('word').lower()}."
    elif msg == "Invalid value" and bare:
        hint = f" A string is quoted in TOML: \"{bare.group('word')}\"."
    elif msg == "Cannot overwrite a value":
        hint = " A key is given twice in one table: keep one of them."
    elif msg.startswith("Cannot declare"):
        hint = (" A table is declared twice ([NAME] twice, or after NAME = {...}): give each "
                "table once.")
    elif msg.startswith("Illegal character '\\n'") or msg.startswith("Unterminated string"):
        hint = " A string is not closed on its line: end it with its quote."
    elif msg.startswith("Expected '=' after a key") and ":" in line:
        hint = " TOML joins a key and its value with '=', not ':'."
    return f"{message} Line {found.group('line')} is `{line}`.{hint}"


def _bad_interpolation(cause: GrammarParseError, argv) -> str:
    """A TOML value that OmegaConf cannot parse as an interpolation (``"${model.width"``):
    Hydra reports an empty message, and the file that holds it is found by the key."""
    key = str(getattr(cause, "full_key", "") or "")
    reason = str(cause).splitlines()[0]
    files = [path for path in _toml_files(argv) if _unparsable(_value_at(path, key))]
    where = f" in {files[0]}" if len(files) == 1 else ""
    value = _value_at(files[0], key) if files else None
    shown = f" = '{value}'" if isinstance(value, str) else ""
    return (f"{key}{shown}{where} is not a valid interpolation ({reason}): an interpolation "
            "is ${KEY} with its closing brace, e.g. '${model.width}'; for a literal '${' in "
            "a string, write '\\${'.")


def _toml_files(argv) -> list[Path]:
    """tomlrun's shipped TOML files and those of the ``toml://`` search path in ``argv``."""
    folders = list(config_dirs())
    for entry in _searchpath_entries(argv):
        scheme, _, path = entry.partition("://")
        if scheme == "toml" and path:
            folders.append(Path(path.partition("?")[0]).resolve())
    return [path for folder in folders if folder.is_dir() for path in folder.rglob("*.toml")]


def _value_at(path: Path, key: str):
    try:
        tree = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    for part in key.split(".") if key else []:
        tree = tree.get(part) if isinstance(tree, dict) else None
    return tree


def _unparsable(value) -> bool:
    if not isinstance(value, str) or "${" not in value:
        return False
    try:
        grammar_parser.parse(value)
    except GrammarParseError:
        return True
    return False


def unknown_override(key: str) -> str:
    """Why ``key=VALUE`` names no key of the composed config, and what is close to it."""
    section, _, rest = key.partition(".")
    field = rest.partition(".")[0]
    tail = " (python -m runner --cfg job prints every key of the composed config)."
    if section not in TOP_LEVEL:
        return (f"'{key}' is not a key{_close(section, TOP_LEVEL)}: the top-level keys and "
                f"groups are {', '.join(TOP_LEVEL)}" + tail)
    if section in SECTIONS:
        names = [f.name for f in fields(SECTIONS[section])]
        return (f"'{key}' is not a key{_close(field, names, section)}: the keys of {section} "
                f"are {', '.join(sorted(names))}" + tail)
    if not field:
        return f"'{key}' is a group: choose one of its options with {key}=NAME" + tail
    if section == "model" and field in ("freeze", "error_clip", "output"):
        return (f"'{key}' is not set by the selected model's file, so it cannot be changed; "
                f"to add it, prefix the override with +: +{key}=VALUE (model.{field} is "
                "checked against the model's layer names before anything runs)" + tail)
    if section == "model" and field in ("layers", "blocks") and rest.count(".") >= 1:
        # A spec's tables: an argument (or layer) the file leaves out is added, Hydra's way.
        return (f"'{key}' is not set by the selected model's file, so it cannot be changed; "
                f"to add it (an argument the spec leaves out, or a new layer), prefix the "
                f"override with +: +{key}=VALUE. The layer's type checks the argument's name "
                "and value before anything runs" + tail)
    keys = _option_keys(section)
    owners = sorted(name for name, names in keys.items() if field in names)
    everything = sorted({name for names in keys.values() for name in names})
    if owners:
        return (f"'{key}' is not a key of the selected {section} option: '{field}' belongs to "
                f"{section}={', '.join(owners)}; select one first, e.g. {section}={owners[0]} "
                f"{key}=..." + tail)
    return (f"'{key}' is not a key of any {section} option{_close(field, everything, section)}"
            + tail)


def _option_keys(group: str) -> dict[str, set[str]]:
    """The keys each option of ``group`` sets: its TOML file's (what Hydra composes), else its
    schema's fields."""
    keys = {name: {f.name for f in fields(cls)} for name, cls in GROUPS[group].items()}
    for path in (config_dirs()[0] / group).glob("*.toml"):
        try:
            keys[path.stem] = set(tomllib.loads(path.read_text(encoding="utf-8")))
        except (OSError, tomllib.TOMLDecodeError):
            continue  # the schema's fields stand in; Hydra reports a broken file itself
    return keys


def _missing_option(exc: MissingConfigException) -> str:
    group, _, name = (exc.missing_cfg_file or "").rpartition("/")
    options = sorted(exc.options)
    return (f"{group}={name} is not an option of '{group}'{_close(name, options, group, '=')}: "
            f"the options are {', '.join(options)}." + _searchpath_hint(group, name, sys.argv[1:]))


def _searchpath_hint(group: str, name: str, argv) -> str:
    """Where a user's own option file would have to be: a ``hydra.searchpath`` entry that holds
    ``group/name.toml`` but is not given as toml:// (Hydra reads file:// and pkg:// folders, and
    a plain path, which it takes as file://, for YAML only, so the file is skipped without a
    word), else how to add one."""
    entries = _searchpath_entries(argv)
    for entry in entries:
        scheme, sep, path = entry.partition("://")
        if not sep:  # a bare path: Hydra's file://
            scheme, path = "file", entry
        if scheme != "toml" and os.path.isfile(os.path.join(path, group, f"{name}.toml")):
            given = f"{entry} (a path without a scheme: file://)" if not sep else entry
            return (f" The search path {given} holds {group}/{name}.toml, but Hydra reads a "
                    f"{scheme}:// folder for YAML files only: give a folder of TOML options as "
                    f"hydra.searchpath=[toml://{path}].")
    if not any(entry.startswith("toml://") for entry in entries):
        return (f" An option of your own is a file {group}/{name}.toml in a folder of yours, "
                "added with hydra.searchpath=[toml:///abs/path/to/folder].")
    return ""


def _close(word: str, choices, prefix: str = "", joiner: str = ".") -> str:
    close = difflib.get_close_matches(word, list(choices), n=1)
    if not close:
        return ""
    return f" (did you mean '{prefix + joiner if prefix else ''}{close[0]}'?)"
