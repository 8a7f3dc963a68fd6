"""Name -> builder registries: one lookup with one clear error for every config group."""
from __future__ import annotations

from runner.errors import ConfigError


def lookup(registry: dict, name: str, what: str):
    """``registry[name]``, or a ConfigError naming ``what`` and the known names."""
    try:
        return registry[name]
    except KeyError:
        raise ConfigError(f"{what} '{name}' is not known: choose one of "
                          f"{', '.join(sorted(registry))}.") from None
