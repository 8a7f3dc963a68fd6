"""tomlrun's ``SearchPathPlugin``: serve ``conf/`` and ``experiments/`` as TOML, for tomlrun only.

Hydra runs every installed search-path plugin for every Hydra app in the environment, so this one
must recognise tomlrun before it touches anything. tomlrun's entry point passes the absolute path
of its ``conf/`` folder as ``config_path`` (Hydra's file source finds no YAML there); when the
search path's ``main`` entry is that folder, this plugin turns it into ``toml://`` and mounts
``experiments/`` as the ``experiment`` group. Any other app's search path is left untouched.
"""
from __future__ import annotations

import os

from hydra.core.config_search_path import ConfigSearchPath
from hydra.plugins.search_path_plugin import SearchPathPlugin

EXPERIMENT_GROUP = "experiment"


def _as_folder(search_path: str) -> str | None:
    """The resolved folder of a plain or ``file://`` search-path entry, else None."""
    if search_path.startswith("file://"):
        search_path = search_path[len("file://"):]
    elif "://" in search_path:
        return None
    return os.path.realpath(search_path)


class TomlrunSearchPathPlugin(SearchPathPlugin):
    """Makes tomlrun's ``conf/`` a TOML source and adds ``experiments/`` as a group."""

    def manipulate_search_path(self, search_path: ConfigSearchPath) -> None:
        elements = search_path.get_path()
        main = next((element for element in elements if element.provider == "main"), None)
        if main is None or main.path is None:
            return
        folder = _as_folder(main.path)
        if folder is None or not folder.endswith(os.sep + "conf"):
            return  # cheap test first: most apps never import tomlrun's runner package
        from runner.config.paths import config_dirs  # noqa: PLC0415 - only once the app may be ours

        conf, experiments = config_dirs()
        if folder != os.path.realpath(conf):
            return
        main.path = f"toml://{conf}"
        search_path.append(
            provider="tomlrun", path=f"toml://{experiments}?group={EXPERIMENT_GROUP}",
            anchor="main",
        )
