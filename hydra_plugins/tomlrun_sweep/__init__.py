"""tomlrun's Hydra sweeper: ``hydra/sweeper=optuna`` on a current Optuna, resumable.

Hydra finds it by scanning the ``hydra_plugins`` namespace package; importing the module
registers the ``hydra/sweeper=optuna`` config.
"""
from hydra_plugins.tomlrun_sweep.optuna_sweeper import OptunaSweeper, OptunaSweeperConf

__all__ = ["OptunaSweeper", "OptunaSweeperConf"]
