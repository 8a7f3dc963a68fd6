"""MLflow: writing a run (the only module that imports mlflow is ``tracking``), reading runs back,
run names, learning curves, the data-path report and the inference bundle a finished run logs.

May import ``core``, ``runner.config``, ``runner.build`` and ``runner.train``; never sweeps.
"""
