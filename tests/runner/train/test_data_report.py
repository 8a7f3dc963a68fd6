"""runner/train/data_report.py: the end-of-run verdict on the data path and what it advises."""
import numpy as np
import pytest

from core import io
from runner.train import data_report


def _loader(wait_sec: float, **options) -> io.DataLoader:
    """A real loader with these pipeline options that waited ``wait_sec`` for its batches."""
    data = io.TensorDataset([np.zeros((8, 2), np.float32), np.zeros(8, np.int64)])
    loader = io.DataLoader(data, batch_size=4, **options)
    loader.stats.total_wait_sec = wait_sec
    return loader


def test_a_fast_data_path_is_not_the_bottleneck():
    line = data_report.summary(_loader(0.1), 10.0)
    assert line == ("waited for data 1% of training time (0.1 s): data loading was not the "
                    "bottleneck")


@pytest.mark.parametrize("options, advised, not_advised", [
    ({}, ["data.prefetch=2", "data.workers=N", "data.cache=memory", "a smaller data.pool_size"],
     []),
    # a slow reader already behind a prefetch thread, workers and the cache: the advice used to
    # say to turn on what was on
    ({"prefetch": 2, "workers": 2, "cache": "memory", "pool_size": 0},
     ["more workers than data.workers=2", "a faster reader"],
     ["data.prefetch=2", "data.cache=memory", "data.workers=N", "data.pool_size"]),
])
def test_the_advice_leaves_out_what_the_loader_already_uses(options, advised, not_advised):
    line = data_report.summary(_loader(9.0, **options), 10.0)
    assert line.startswith("waited for data 90% of training time (9.0 s): data loading was the "
                           "bottleneck: try ")
    for text in advised:
        assert text in line, (text, line)
    for text in not_advised:
        assert text not in line, (text, line)
