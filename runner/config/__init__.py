"""Command line -> typed config: where the TOML configs live, the schemas of every group, the
validation that turns Hydra's composed config into a ``RunConfig``, Hydra's own errors as
tomlrun's one-paragraph messages, and the OmegaConf resolvers the configs use (registered on
import).

May import ``core`` (device parsing) and ``runner.errors``; nothing else of the runner.
"""
from runner.config import resolvers

# Every composed config may read ${tomlrun_direction:...} (sweep.direction's default), and every
# process that composes one (python -m runner, runner.summary, a launcher's worker, a test)
# imports this package first.
resolvers.register()
