"""Errors the user can fix, which the entry point reports as one paragraph without a traceback."""
from __future__ import annotations


class UserError(Exception):
    """A problem in what the user asked for (a config value, a missing data file, ...).

    ``python -m runner`` prints it as ``tomlrun: error: <message>`` and exits with status 2, so its
    message must say, in one paragraph, what is wrong and what is allowed instead.
    """


class ConfigError(UserError):
    """A composed config that does not fit the schemas of ``runner/config/schema.py``."""
