"""Hydra plugins that make TOML a config format: the ``toml://`` source and tomlrun's search path.

Hydra finds these by scanning the ``hydra_plugins`` namespace package (which therefore has no
``__init__.py``). The config source is generic: any Hydra app can name a ``toml://`` folder in its
search path. The search-path plugin acts only for tomlrun's own entry point.
"""
from hydra_plugins.tomlrun_toml.search_path import TomlrunSearchPathPlugin
from hydra_plugins.tomlrun_toml.toml_source import TomlConfigSource, TomlSyntaxError

__all__ = ["TomlConfigSource", "TomlSyntaxError", "TomlrunSearchPathPlugin"]
