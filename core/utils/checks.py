"""``paddle.utils.try_import`` and ``paddle.utils.require_version``."""
from __future__ import annotations

import importlib
import re
import warnings

_VERSION_FORMAT = re.compile(r"\d+(\.\d+){0,3}")
# modules whose pip package is named otherwise (Paddle's try_import knows cv2's)
_INSTALL_NAMES = {"cv2": "opencv-python", "PIL": "Pillow", "sklearn": "scikit-learn",
                  "yaml": "PyYAML"}


class VersionError(RuntimeError):
    """The installed tomlrun is outside the range ``require_version`` asks for (Paddle raises
    a bare ``Exception`` whose message starts ``VersionError:``)."""


def try_import(module_name: str, err_msg: str | None = None):
    """Paddle's ``try_import(module_name, err_msg=None)``: the imported module, or an
    ImportError saying which package to install (``err_msg`` replaces that message)."""
    if not isinstance(module_name, str) or not module_name:
        raise TypeError(f"try_import: module_name={module_name!r} must be a module's name "
                        "(a non-empty str).")
    try:
        return importlib.import_module(module_name)
    except ImportError:
        top = module_name.split(".")[0]
        install = _INSTALL_NAMES.get(top, top)
        raise ImportError(err_msg or (
            f"Failed importing {module_name}. This likely means that some modules require "
            f"additional dependencies that have to be installed by hand (usually with `pip "
            f"install {install}`).")) from None


def _version_parts(argument: str, value) -> list[int]:
    if not isinstance(value, str):
        raise TypeError(f"require_version: {argument}={value!r} must be a str like '1.5.2'.")
    if _VERSION_FORMAT.fullmatch(value) is None:
        raise ValueError(f"require_version: {argument}={value!r} must be in the format "
                         r"'\d+(\.\d+){0,3}', like '1.5.2.0'.")
    parts = [int(part) for part in value.split(".")]
    return parts + [0] * (4 - len(parts))


def require_version(min_version: str, max_version: str | None = None) -> None:
    """Paddle's ``require_version(min_version, max_version=None)``: check that the installed
    version (tomlrun's, ``core.version.full_version``) is at least ``min_version`` and, when
    given, at most ``max_version`` (versions of up to four numbers, missing ones 0); raise
    ``VersionError`` when it is not. A version that is not a plain release ("0+unknown", a bare
    checkout) only warns, as Paddle's develop builds ("0.0.0")."""
    low = _version_parts("min_version", min_version)
    high = None if max_version is None else _version_parts("max_version", max_version)
    from core import version  # noqa: PLC0415 - reads package metadata and .git on import

    if not version.istaged:
        warnings.warn(f"require_version: tomlrun {min_version} or higher is required, but "
                      f"{version.full_version} is installed, a development build: make sure "
                      "it suits your code.", stacklevel=2)
        return
    installed = [int(version.major), int(version.minor), int(version.patch), 0]
    if installed < low or (high is not None and installed > high):
        wanted = (f"in [{min_version}, {max_version}]" if high is not None
                  else f"{min_version} or higher")
        raise VersionError(f"VersionError: tomlrun version {wanted} required, but "
                           f"{version.full_version} installed.")


__all__ = ["VersionError", "require_version", "try_import"]
