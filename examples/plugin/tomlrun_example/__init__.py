"""tomlrun's example plugin: one of each kind of registration (docs/models.md#plugins).

- ``model=probe``: a plugin model built in Python (``runner.plugins.model``), with its own keys.
- ``GaussianNoise``: a layer type a TOML spec can name (``runner.plugins.layer``).
- ``data=blobs``: an in-memory dataset with its own keys (``runner.plugins.dataset``).
- ``data.reader=tsv``: a file reader for ``data=files`` (``runner.plugins.reader``).
"""
from __future__ import annotations

import numpy as np

import core
from core import nn
from core.io import TensorDataset
from runner import plugins


@plugins.layer()
class GaussianNoise(nn.Layer):
    """Adds N(0, stddev^2) noise to its input while training (a regulariser); identity when
    evaluating."""

    def __init__(self, stddev: float = 0.1):
        super().__init__()
        self.stddev = float(stddev)

    def forward(self, x):
        if not self.training or self.stddev == 0:
            return x
        noise = np.random.default_rng().normal(0.0, self.stddev, x.shape).astype(x.data.dtype)
        return x + core.to_tensor(noise)


@plugins.model("probe", defaults={"hidden": 32, "noise": 0.0})
def probe(input_shape, num_classes: int, hidden: int = 32, noise: float = 0.0) -> nn.Layer:
    """Flatten -> [noise] -> Linear(hidden) -> ReLU -> Linear(classes): a quick baseline."""
    features = int(np.prod(input_shape))
    return nn.Sequential(("flatten", nn.Flatten()), ("noise", GaussianNoise(noise)),
                         ("fc", nn.Linear(features, hidden)), ("act", nn.ReLU()),
                         ("out", nn.Linear(hidden, num_classes)))


@plugins.dataset("blobs", defaults={"samples": 600, "features": 8, "classes": 3,
                                    "spread": 0.6})
def blobs(seed: int, samples: int = 600, features: int = 8, classes: int = 3,
          spread: float = 0.6) -> dict:
    """Gaussian blobs, one per class, split 70/15/15: data that needs no files."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(0.0, 2.0, (classes, features))
    labels = rng.integers(0, classes, samples)
    x = (centres[labels] + rng.normal(0.0, spread, (samples, features))).astype(np.float32)
    cut1, cut2 = int(0.7 * samples), int(0.85 * samples)
    return {"train": TensorDataset([x[:cut1], labels[:cut1]]),
            "valid": TensorDataset([x[cut1:cut2], labels[cut1:cut2]]),
            "test": TensorDataset([x[cut2:], labels[cut2:]]), "num_classes": classes}


@plugins.reader("tsv")
def read_tsv(path: str):
    """Tab-separated numeric rows whose last column is the integer label."""
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                *values, label = line.rstrip("\n").split("\t")
                yield np.asarray(values, dtype=np.float32), int(label)
