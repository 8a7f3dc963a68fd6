"""A network built from a TOML spec for ``benchmarks/suite.py``: the shipped small ResNet
(conf/model/resnet.toml: residual blocks, batch norm, a projection shortcut, global pooling),
so the suite measures what a spec builds — a GraphNet — not a hand-written Sequential.

The torch twin is written by hand with the same layer names, and weights are copied by name.
"""
from __future__ import annotations

import numpy as np
from workloads import Workload

from runner import build
from runner.config.options import load_option


class ResNetSpec(Workload):
    """conf/model/resnet.toml on 1x28x28 images (width 16, downsampling stages 32 and 64)."""

    def __init__(self, batch: int, quick: bool = False):
        super().__init__(batch, quick)
        self.width, self.channels = (4, [8]) if quick else (16, [32, 64])

    def data(self, rng):
        return rng.standard_normal((self.batch, 1, 28, 28)).astype(np.float32), self.labels(rng)

    def core_model(self):
        cfg = load_option("model", "resnet", f"width={self.width}",
                          f"channels=[{','.join(map(str, self.channels))}]")
        return build.build_model(cfg, (1, 28, 28), self.classes)

    def torch_model(self, ours):
        import torch  # noqa: PLC0415

        model = _torch_resnet(self.width, self.channels, self.classes)
        theirs = dict(model.named_parameters())
        with torch.no_grad():
            for name, param in ours.named_parameters():
                value = param.numpy().T if name == "fc.weight" else param.numpy()
                theirs[name].copy_(torch.from_numpy(np.ascontiguousarray(value)))
        return model


def _torch_resnet(width: int, channels: list[int], classes: int):
    from torch import nn as tnn  # noqa: PLC0415

    def conv(cin, cout, k, stride=1):
        return tnn.Conv2d(cin, cout, k, stride=stride, padding=k // 2, bias=False)

    class Block(tnn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1, self.bn1 = conv(cin, cout, 3, stride), tnn.BatchNorm2d(cout)
            self.conv2, self.bn2 = conv(cout, cout, 3), tnn.BatchNorm2d(cout)
            self.shortcut = conv(cin, cout, 1, stride) if stride > 1 else None
            self.shortcut_bn = tnn.BatchNorm2d(cout) if stride > 1 else None

        def forward(self, x):
            out = self.bn2(self.conv2(tnn.functional.relu(self.bn1(self.conv1(x)))))
            skip = x if self.shortcut is None else self.shortcut_bn(self.shortcut(x))
            return tnn.functional.relu(out + skip)

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.stem, self.stem_bn = conv(1, width, 3), tnn.BatchNorm2d(width)
            self.stage1 = Block(width, width, 1)
            self.down = tnn.ModuleList()
            cin = width
            for cout in channels:
                self.down.append(Block(cin, cout, 2))
                cin = cout
            self.fc = tnn.Linear(cin, classes)

        def forward(self, x):
            x = self.stage1(tnn.functional.relu(self.stem_bn(self.stem(x))))
            for block in self.down:
                x = block(x)
            return self.fc(x.mean(dim=(2, 3)))

    return Net()
