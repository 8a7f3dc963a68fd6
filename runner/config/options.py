"""A shipped group option as a typed config, from Python: ``load_option("model", "mlp",
"hidden=[16]")`` reads ``conf/model/mlp.toml``, applies overrides written as on the command line
(without the group prefix) and validates it, as ``python -m runner model=mlp model.hidden=[16]``
would. Interpolations such as ``${model.hidden}`` resolve against the option itself.
"""
from __future__ import annotations

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from omegaconf import OmegaConf

from runner.config import validation
from runner.config.paths import config_dirs
from runner.errors import ConfigError


def load_option(group: str, name: str, *overrides: str):
    """The validated dataclass of option ``name`` of ``group`` with ``overrides`` applied."""
    if group not in validation.GROUPS:
        raise ConfigError(f"'{group}' is not a config group: the groups are "
                          f"{', '.join(validation.GROUPS)}.")
    path = config_dirs()[0] / group / f"{name}.toml"
    if not path.is_file():
        options = sorted(p.stem for p in path.parent.glob("*.toml"))
        raise ConfigError(f"{group}={name} is not a shipped option: the options are "
                          f"{', '.join(options)}.")
    node = OmegaConf.create({group: tomllib.loads(path.read_text(encoding="utf-8"))})
    for override in overrides:
        key, sep, value = override.partition("=")
        if not sep:
            raise ConfigError(f"override '{override}' is not KEY=VALUE.")
        node = OmegaConf.merge(node, OmegaConf.from_dotlist([f"{group}.{key}={value}"]))
    plain = OmegaConf.to_container(node, resolve=True)[group]
    return validation.group_option(group, plain)
