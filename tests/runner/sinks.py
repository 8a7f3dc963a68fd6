"""A metrics sink for Trainer tests: every reported point except the clock-dependent ones."""


class ClockFreeSink:
    """Records ``(step, key, value)`` for every metric but times and data-wait figures, which
    differ between two otherwise identical runs."""

    def __init__(self):
        self.points = []

    def log_metrics(self, metrics, step):
        self.points += [(step, k, v) for k, v in metrics.items()
                        if "sec" not in k and not k.startswith("data/")]

    def flush(self, force=False):
        pass

    def series(self, key):
        return [v for _, k, v in self.points if k == key]
