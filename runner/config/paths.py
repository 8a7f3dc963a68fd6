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


def shadowed_options(searchpath, choices: dict, launch_dir: str) -> list[str]:
    """The user's option files (``toml://`` / ``file://`` folders of ``hydra.searchpath``) that
    were selected but not read: Hydra takes the first match, and tomlrun's own folders come
    before the search path, so a file named like a shipped option is hidden by it."""
    conf, experiments = config_dirs()
    hidden = []
    for entry in searchpath or []:
        scheme, _, path = str(entry).partition("://")
        if scheme not in ("toml", "file") or not path:
            continue
        folder = Path(launch_dir, path)  # an absolute path stays as it is
        for group, option in (choices or {}).items():
            if not option or group.startswith("hydra"):
                continue
            shipped = experiments / f"{option}.toml" if group == "experiment" \
                else conf / group / f"{option}.toml"
            mine = folder / group / f"{option}.toml"
            if mine.is_file() and shipped.is_file() and mine.resolve() != shipped.resolve():
                hidden.append(str(mine))
    return hidden
