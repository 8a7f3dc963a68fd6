"""``python -m runner -m ...``: one sweep job as a child run, the MLflow parent run (a Hydra
callback), Optuna studies that resume their parent, and the table of a sweep's runs.

May import every layer below it (config, build, train, track); only the entry points import it.
"""
