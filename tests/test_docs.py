"""Every ``python -m runner ...`` command and every ``import`` in the README and docs still
composes, validates and imports: the docs cannot drift from the code unnoticed.

A command's overrides are composed with Hydra and validated as ``python -m runner`` would do
(a network spec's layers are checked too), without training: the first value of each sweep list
stands for the others. Python blocks' import lines are executed.
"""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir

from runner import build, plugins
from runner.config.hydra_setup import register_hydra_plugins
from runner.config.paths import config_dirs
from runner.config.validation import validate
from runner.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"```(\w*)\n(.*?)```", re.S)


def _blocks(*kinds: str):
    for page in PAGES:
        for language, body in FENCE.findall(page.read_text(encoding="utf-8")):
            if language in kinds:
                yield page, body


def _commands():
    """(page, command line, whether the page shows it failing) for each documented run."""
    found = []
    for page, body in _blocks("bash", "sh", ""):  # unlabelled blocks show commands too
        text = re.sub(r"\\\n\s*", " ", body)  # continued lines
        lines = text.splitlines()
        for index, line in enumerate(lines):
            shown = next((n.strip() for n in lines[index + 1:] if n.strip()), "")
            line = line.strip().lstrip("$ ").strip()
            if line.startswith(("tomlrun:", "sweep ")):  # printed output, not a command
                continue
            if "python -m runner" not in line:
                continue
            line = line[line.index("python -m runner"):]
            if line.split()[2] != "runner":  # runner.infer, runner.compare, runner.summary
                continue
            line = re.split(r"\s+#", line)[0]  # a trailing comment
            line = re.sub(r"<[^<>]*>", "X", line)  # a placeholder such as <run id>
            if re.search(r"\$\w", line):
                continue  # a shell variable (a loop in the docs)
            found.append((page.name, line, shown.startswith("tomlrun: error")))
    return found


def _first_of_sweep(value: str) -> str:
    """``a,b`` -> ``a``, leaving commas inside brackets and braces alone."""
    depth = 0
    for index, char in enumerate(value):
        depth += char in "[{("
        depth -= char in "]})"
        if char == "," and depth == 0:
            return value[:index]
    return value


def _overrides(line: str) -> list[str]:
    args = shlex.split(line)[3:]
    kept = []
    for arg in args:
        if arg.startswith("~"):  # a deletion
            kept.append(arg)
            continue
        if arg.startswith("-") or arg.startswith(("hydra", "+hydra")) or "=" not in arg:
            continue  # -m, --cfg, --help; Hydra's own settings (launchers, sweepers, paths)
        key, _, value = arg.partition("=")
        kept.append(f"{key}={_first_of_sweep(value)}")
    return kept


COMMANDS = _commands()


def test_the_docs_show_commands():
    assert len(COMMANDS) >= 20, COMMANDS  # the parser still finds them


@pytest.fixture(scope="module")
def composer():
    register_hydra_plugins()
    with initialize_config_dir(config_dir=str(config_dirs()[0]), version_base=None):
        yield lambda overrides: compose("config", overrides=overrides)


@pytest.mark.parametrize("page, line, fails", COMMANDS,
                         ids=[f"{p}:{i}" for i, (p, *_) in enumerate(COMMANDS)])
def test_each_documented_command_composes_and_validates(composer, page, line, fails):
    overrides = _overrides(line)
    modules = plugins.modules_in_argv(overrides)
    if any(module == "my_module" or module.startswith("my_") for module in modules):
        pytest.skip("a placeholder for the reader's own plugin module")
    if "model=probe" in overrides or "data=blobs" in overrides:
        pytest.skip("the example plugin package must be installed (tests/runner/test_plugins)")
    cfg = composer([o for o in overrides if not o.startswith("plugins=")])
    if fails:  # the page shows an error: a config mistake, or one met later (device, NaN)
        try:
            validate(cfg)
        except ConfigError:
            return
    run_config = validate(cfg)
    build.check_model_config(run_config.model)


def test_python_blocks_import_what_they_name():
    lines = {line.strip() for _, body in _blocks("python") for line in body.splitlines()
             if re.match(r"\s*(from \S+ import [^(]+$|import \S+( as \w+)?$)", line)}
    assert lines, "no import lines found in the docs' Python blocks"
    for line in sorted(lines):
        if "my_" in line or "tomlrun_example" in line:
            continue
        exec(line, {})  # noqa: S102 - the docs' own import lines
