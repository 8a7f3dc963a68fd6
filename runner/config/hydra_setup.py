"""Registers tomlrun's Hydra plugins with Hydra directly, whatever the install.

Hydra finds plugins by walking the ``hydra_plugins`` namespace package on ``sys.path``. A
non-editable install puts ``hydra_plugins/tomlrun_*`` there; an editable install (``pip install
-e .``) serves packages through setuptools' import finder instead, which ``pkgutil`` cannot walk,
so Hydra found no TOML source and failed with "Cannot find primary config". Registering the
classes by hand works in both cases; Hydra ignores a class it already has.
"""
from __future__ import annotations


def register_hydra_plugins() -> None:
    """Make the ``toml://`` config source, tomlrun's search path and its sweeper known."""
    from hydra.core.plugins import Plugins  # noqa: PLC0415 - only the entry point needs hydra

    from hydra_plugins.tomlrun_sweep import OptunaSweeper  # noqa: PLC0415
    from hydra_plugins.tomlrun_toml import TomlConfigSource, TomlrunSearchPathPlugin  # noqa: PLC0415

    plugins = Plugins.instance()
    for plugin in (TomlConfigSource, TomlrunSearchPathPlugin, OptunaSweeper):
        plugins.register(plugin)


def register_plugin_options() -> None:
    """Each registered plugin model or dataset as a group option (``model=NAME``), through
    Hydra's ConfigStore: its name plus the defaults it was registered with. An option file of
    the same name in a TOML folder takes precedence (Hydra's search path order)."""
    from hydra.core.config_store import ConfigStore  # noqa: PLC0415

    from runner import plugins  # noqa: PLC0415

    store = ConfigStore.instance()
    for group, options in plugins.OPTION_DEFAULTS.items():
        for name, defaults in options.items():
            store.store(group=group, name=name, node={"name": name, **defaults})
