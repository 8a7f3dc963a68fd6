"""Command line -> typed config: where the TOML configs live, the schemas of every group, the
validation that turns Hydra's composed config into a ``RunConfig``, and Hydra's own errors as
tomlrun's one-paragraph messages.

May import ``core`` (device parsing) and ``runner.errors``; nothing else of the runner.
"""
