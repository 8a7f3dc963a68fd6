"""The networks ``benchmarks/suite.py`` times: each built in core and, from the same initial
weights, in torch eager.

A workload is a class with ``batch`` and sizes (``quick`` shrinks them), ``data(rng)`` (numpy
inputs of one step: a tuple whose last item is the labels), ``core_model()``,
``core_loss(model, batch)`` / ``core_infer``, and ``torch_model(core_model)`` that copies the
weights, ``torch_loss`` / ``torch_infer``. ``WORKLOADS`` maps names to factories; one more
network is one more class and one line there (a ResNet built from a TOML spec, for example).
torch is imported only inside the torch methods, so a core-only child process never loads it.

Devices: core builds on its current device (``core.device.set_device``) and ``core.to_tensor``
uploads there; torch's inputs all pass through ``Workload.torch_tensor``, which moves them to
``torch_device`` (the suite sets it, with the model, to "cuda:N" for gpu:N). Both ``*_infer``
return host numpy arrays.
"""
from __future__ import annotations

import numpy as np

import core
from core import nn
from core.nn import functional as F


def copy_weights(core_model, torch_model, transposed=()) -> None:
    """Copy core's parameters into torch's, in order; ``transposed`` holds the core parameters
    stored [in, out] (Linear weights) that torch stores [out, in]."""
    import torch  # noqa: PLC0415

    ours = [p for p in core_model.parameters()]
    theirs = list(torch_model.parameters())
    assert len(ours) == len(theirs), (len(ours), len(theirs))
    skip = {id(p) for p in transposed}
    with torch.no_grad():
        for p, q in zip(ours, theirs):
            value = p.numpy().T if id(p) in skip else p.numpy()
            assert tuple(value.shape) == tuple(q.shape), (p.name, value.shape, q.shape)
            q.copy_(torch.from_numpy(np.ascontiguousarray(value)))


def linear_weights(model) -> list:
    return [layer.weight for layer in model.sublayers(include_self=True)
            if isinstance(layer, nn.Linear)]


class Workload:
    """Defaults shared by the classifiers below: cross-entropy on the last output."""

    classes = 10
    sparse = False  # torch: SparseAdam for its sparse embedding (core's Adam is lazy on rows)
    torch_device = "cpu"  # where torch's inputs go: the suite's Pair sets "cuda:N" for gpu:N

    def __init__(self, batch: int, quick: bool = False):
        self.batch = max(2, batch // 8) if quick else batch
        self.quick = quick

    def labels(self, rng):
        return rng.integers(0, self.classes, self.batch)

    def core_loss(self, model, batch):
        *inputs, y = batch
        return F.cross_entropy(self.core_forward(model, *inputs), core.to_tensor(y))

    def core_infer(self, model, batch):
        with core.no_grad():
            return self.core_forward(model, *batch[:-1]).numpy()

    def torch_loss(self, model, batch):
        import torch  # noqa: PLC0415

        *inputs, y = batch
        return torch.nn.functional.cross_entropy(self.torch_forward(model, *inputs),
                                                 self.torch_tensor(y))

    def torch_infer(self, model, batch):
        import torch  # noqa: PLC0415

        with torch.no_grad():  # .cpu(): the host copy, as core's .numpy() downloads from a GPU
            return self.torch_forward(model, *batch[:-1]).cpu().numpy()

    def core_forward(self, model, x):
        return model(core.to_tensor(x))

    def torch_forward(self, model, x):
        return model(self.torch_tensor(x))

    def torch_tensor(self, array):
        """A batch's numpy array as a torch tensor on ``torch_device``: the one place torch's
        inputs are made, as ``core.to_tensor`` is core's (on the CPU ``.to`` copies nothing)."""
        import torch  # noqa: PLC0415

        return torch.from_numpy(array).to(self.torch_device)


class Tutorial(Workload):
    """The PaddlePaddle tutorial CNN (benchmarks/throughput.py) on 28x28 images."""

    def data(self, rng):
        return rng.standard_normal((self.batch, 1, 28, 28)).astype(np.float32), self.labels(rng)

    def core_model(self):
        return nn.Sequential(nn.Conv2D(1, 20, 5, padding=2), nn.ReLU(), nn.MaxPool2D(2),
                             nn.Conv2D(20, 20, 5, padding=2), nn.ReLU(), nn.MaxPool2D(2),
                             nn.Flatten(), nn.Linear(980, 10))

    def torch_model(self, ours):
        from torch import nn as tnn  # noqa: PLC0415

        model = tnn.Sequential(tnn.Conv2d(1, 20, 5, padding=2), tnn.ReLU(), tnn.MaxPool2d(2),
                               tnn.Conv2d(20, 20, 5, padding=2), tnn.ReLU(), tnn.MaxPool2d(2),
                               tnn.Flatten(), tnn.Linear(980, 10))
        copy_weights(ours, model, linear_weights(ours))
        return model


class MLP(Workload):
    """784-1024-1024-10 with ReLU: three GEMMs and little else."""

    def __init__(self, batch: int, quick: bool = False):
        super().__init__(batch, quick)
        self.sizes = (784, 64, 64, 10) if quick else (784, 1024, 1024, 10)

    def data(self, rng):
        return rng.standard_normal((self.batch, 784)).astype(np.float32), self.labels(rng)

    def core_model(self):
        a, b, c, d = self.sizes
        return nn.Sequential(nn.Linear(a, b), nn.ReLU(), nn.Linear(b, c), nn.ReLU(),
                             nn.Linear(c, d))

    def torch_model(self, ours):
        from torch import nn as tnn  # noqa: PLC0415

        a, b, c, d = self.sizes
        model = tnn.Sequential(tnn.Linear(a, b), tnn.ReLU(), tnn.Linear(b, c), tnn.ReLU(),
                               tnn.Linear(c, d))
        copy_weights(ours, model, linear_weights(ours))
        return model


class ConvBN(Workload):
    """A small CNN with BatchNorm on 3x32x32 images: conv-BN-ReLU-pool twice, then Linear."""

    def __init__(self, batch: int, quick: bool = False):
        super().__init__(batch, quick)
        self.width = (8, 8) if quick else (32, 64)

    def data(self, rng):
        return rng.standard_normal((self.batch, 3, 32, 32)).astype(np.float32), self.labels(rng)

    def core_model(self):
        c1, c2 = self.width
        return nn.Sequential(nn.Conv2D(3, c1, 3, padding=1), nn.BatchNorm2D(c1), nn.ReLU(),
                             nn.MaxPool2D(2), nn.Conv2D(c1, c2, 3, padding=1),
                             nn.BatchNorm2D(c2), nn.ReLU(), nn.MaxPool2D(2), nn.Flatten(),
                             nn.Linear(c2 * 64, 10))

    def torch_model(self, ours):
        from torch import nn as tnn  # noqa: PLC0415

        c1, c2 = self.width
        # Paddle's momentum 0.9 keeps 90% of the running value: torch's momentum 0.1.
        model = tnn.Sequential(tnn.Conv2d(3, c1, 3, padding=1), tnn.BatchNorm2d(c1),
                               tnn.ReLU(), tnn.MaxPool2d(2), tnn.Conv2d(c1, c2, 3, padding=1),
                               tnn.BatchNorm2d(c2), tnn.ReLU(), tnn.MaxPool2d(2), tnn.Flatten(),
                               tnn.Linear(c2 * 64, 10))
        copy_weights(ours, model, linear_weights(ours))
        return model
