"""MLflow: writing a run (``tracking``), reading runs back, run names, learning curves, the run's
pyfunc model with the inference bundle inside (``pyfunc``, ``bundle``), its data sets
(``datasets``) and a sqlite store created whole (``store``). mlflow is imported lazily.

May import ``core``, ``runner.config``, ``runner.build`` and ``runner.train``; never sweeps.
"""
