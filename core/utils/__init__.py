"""``paddle.utils``: installation checks, unique names, deprecation, optional imports and
weight downloads.

``run_check()`` trains a layer one step on every usable device; ``unique_name`` makes names
unique per key; ``deprecated`` marks an API; ``try_import`` imports an optional dependency or
says what to install; ``require_version`` checks the installed tomlrun; ``download`` fetches
pretrained weights into the md5-checked cache.
"""
from core.utils import download, unique_name
from core.utils.checks import VersionError, require_version, try_import
from core.utils.deprecated import deprecated
from core.utils.install_check import run_check

__all__ = ["VersionError", "deprecated", "download", "require_version", "run_check",
           "try_import", "unique_name"]
