"""tomlrun's runner: ``python -m runner`` composes the TOML configs with Hydra, validates them,
builds the run through registries, trains, and tracks it in MLflow. ``core`` is the library it
drives; this package is the only one that imports hydra, omegaconf or mlflow."""
