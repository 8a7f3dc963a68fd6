"""VGG (``paddle.vision.models.VGG``, ``vgg11`` ... ``vgg19``), Simonyan & Zisserman 2014."""
from __future__ import annotations

from core import nn
from core.manipulation import flatten
from core.vision.models._checks import check_int, load_pretrained

# Channels of each 3x3 convolution, 'M' a 2x2 max pool: configurations A, B, D, E of the paper.
CFGS = {
    "A": [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "B": [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "D": [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512,
          "M"],
    "E": [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M", 512,
          512, 512, 512, "M"],
}


def make_layers(cfg, batch_norm: bool = False) -> nn.Sequential:
    """The convolutional part of a VGG from ``cfg``: each number a 3x3 Conv2D (padding 1) to
    that many channels followed by ReLU (BatchNorm2D before the ReLU with ``batch_norm``),
    each 'M' a MaxPool2D(2, 2); the input has 3 channels."""
    layers, in_channels = [], 3
    for i, v in enumerate(cfg):
        if v == "M":
            layers.append(nn.MaxPool2D(kernel_size=2, stride=2))
            continue
        v = check_int("make_layers", f"cfg[{i}]", v, 1)
        layers.append(nn.Conv2D(in_channels, v, kernel_size=3, padding=1))
        layers += [nn.BatchNorm2D(v), nn.ReLU()] if batch_norm else [nn.ReLU()]
        in_channels = v
    return nn.Sequential(*layers)


class VGG(nn.Layer):
    """``features`` (from ``make_layers``, ending in 512 channels), adaptive average pooling to
    7x7 (``with_pool``), then ``classifier``: Linear(25088, 4096) -> ReLU -> Dropout ->
    Linear(4096, 4096) -> ReLU -> Dropout -> Linear(4096, num_classes); no classifier when
    ``num_classes <= 0``."""

    def __init__(self, features, num_classes: int = 1000, with_pool: bool = True):
        super().__init__()
        if not isinstance(features, nn.Layer):
            raise TypeError(f"VGG: features must be a Layer (make_layers(cfg)), got "
                            f"{type(features).__name__}.")
        self.features = features
        self.num_classes = check_int("VGG", "num_classes", num_classes)
        self.with_pool = bool(with_pool)
        if self.with_pool:
            self.avgpool = nn.AdaptiveAvgPool2D((7, 7))
        if self.num_classes > 0:
            self.classifier = nn.Sequential(
                nn.Linear(512 * 7 * 7, 4096), nn.ReLU(), nn.Dropout(),
                nn.Linear(4096, 4096), nn.ReLU(), nn.Dropout(),
                nn.Linear(4096, self.num_classes))

    def forward(self, x):
        x = self.features(x)
        if self.with_pool:
            x = self.avgpool(x)
        if self.num_classes > 0:
            x = self.classifier(flatten(x, 1))
        return x


def _vgg(arch: str, cfg: str, batch_norm: bool, pretrained, **kwargs) -> VGG:
    return load_pretrained(arch + ("_bn" if batch_norm else ""), pretrained,
                           VGG(make_layers(CFGS[cfg], batch_norm=batch_norm), **kwargs))


def vgg11(pretrained: bool = False, batch_norm: bool = False, **kwargs) -> VGG:
    """VGG-11 (configuration A); ``batch_norm`` adds BatchNorm2D after each convolution."""
    return _vgg("vgg11", "A", batch_norm, pretrained, **kwargs)


def vgg13(pretrained: bool = False, batch_norm: bool = False, **kwargs) -> VGG:
    """VGG-13 (configuration B); ``batch_norm`` adds BatchNorm2D after each convolution."""
    return _vgg("vgg13", "B", batch_norm, pretrained, **kwargs)


def vgg16(pretrained: bool = False, batch_norm: bool = False, **kwargs) -> VGG:
    """VGG-16 (configuration D); ``batch_norm`` adds BatchNorm2D after each convolution."""
    return _vgg("vgg16", "D", batch_norm, pretrained, **kwargs)


def vgg19(pretrained: bool = False, batch_norm: bool = False, **kwargs) -> VGG:
    """VGG-19 (configuration E); ``batch_norm`` adds BatchNorm2D after each convolution."""
    return _vgg("vgg19", "E", batch_norm, pretrained, **kwargs)


__all__ = ["VGG", "make_layers", "vgg11", "vgg13", "vgg16", "vgg19"]
