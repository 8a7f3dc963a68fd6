"""Where tomlrun's TOML configs live: inside the installed package or at the checkout's root."""
from __future__ import annotations

from pathlib import Path


def config_dirs() -> tuple[Path, Path]:
    """The absolute ``(conf, experiments)`` folders.

    A non-editable install ships them as ``runner/conf`` and ``runner/experiments`` (see the
    package mapping in pyproject.toml); a source checkout keeps them at the repository root, next
    to ``runner/``. Either way they are found from any working directory.
    """
    package = Path(__file__).resolve().parents[1]  # runner/
    for base in (package, package.parent):
        if (base / "conf" / "config.toml").is_file():
            return base / "conf", base / "experiments"
    raise FileNotFoundError(
        f"tomlrun's configuration folder is missing: neither {package / 'conf'} nor "
        f"{package.parent / 'conf'} holds config.toml; reinstall tomlrun (pip install tomlrun)."
    )
