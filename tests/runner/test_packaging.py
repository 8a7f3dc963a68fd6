"""pyproject.toml ships every package folder, the TOML configs and the data files.

setuptools cannot combine its automatic package search with the mapping that installs the
top-level conf/ and experiments/ folders as runner/conf and runner/experiments, so the packages
are listed by hand; these tests fail, naming the folder, when the list falls behind the tree.
(A real non-editable ``pip install .`` was checked by hand: see runner/config/paths.py.)
"""
from __future__ import annotations

import fnmatch
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
SETUPTOOLS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
SKIPPED = {"__pycache__"}


def _package_folders() -> dict[str, Path]:
    """Installed package name -> source folder, for every folder that must be installed."""
    mapping = {"": ROOT, **{name: ROOT / folder
                            for name, folder in SETUPTOOLS["package-dir"].items()}}
    tops = {"core": ROOT / "core", "runner": ROOT / "runner"}
    # hydra_plugins is a namespace package: each plugin folder in it is a top-level package.
    tops.update({f"hydra_plugins.{p.name}": p for p in (ROOT / "hydra_plugins").iterdir()
                 if p.is_dir() and p.name not in SKIPPED})
    tops.update({name: folder for name, folder in mapping.items() if name})
    found = {}
    for top, folder in tops.items():
        for sub in [folder, *sorted(p for p in folder.rglob("*") if p.is_dir())]:
            parts = sub.relative_to(folder).parts
            if SKIPPED & set(parts) or not any(f.is_file() for f in sub.iterdir()):
                continue
            found[".".join([top, *parts])] = sub
    return found


def test_every_folder_with_files_is_a_listed_package():
    folders = _package_folders()
    listed = set(SETUPTOOLS["packages"])
    missing = sorted(set(folders) - listed)
    assert not missing, f"add these packages to [tool.setuptools] packages: {missing}"
    stale = sorted(listed - set(folders))
    assert not stale, f"these listed packages have no folder: {stale}"


def test_every_data_file_matches_a_package_data_pattern():
    patterns = SETUPTOOLS["package-data"]
    unshipped = []
    for package, folder in _package_folders().items():
        wanted = patterns.get("*", []) + patterns.get(package, [])
        for path in folder.iterdir():
            if path.is_file() and path.suffix not in (".py", ".pyc") and path.name != ".gitignore":
                if not any(fnmatch.fnmatch(path.name, pattern) for pattern in wanted):
                    unshipped.append(str(path.relative_to(ROOT)))
    assert not unshipped, f"add package-data patterns for: {unshipped}"


def test_configs_are_mapped_into_the_runner_package():
    assert SETUPTOOLS["package-dir"] == {"runner.conf": "conf",
                                         "runner.experiments": "experiments"}
    assert (ROOT / "conf" / "config.toml").is_file()
    assert any((ROOT / "experiments").glob("*.toml"))


def test_hydra_plugins_stays_a_namespace_package():
    # Other Hydra plugins install into hydra_plugins too; an __init__.py here would hide them.
    assert not (ROOT / "hydra_plugins" / "__init__.py").exists()
    assert (ROOT / "hydra_plugins" / "tomlrun_toml" / "__init__.py").is_file()
