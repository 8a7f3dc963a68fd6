"""``paddle.vision.datasets``: MNIST, FashionMNIST, Cifar10, Cifar100 and Flowers with Paddle's
signatures (files found, fetched md5-checked and read through ``core.datasets``)."""
from core.vision.datasets.cifar import Cifar10, Cifar100
from core.vision.datasets.flowers import Flowers
from core.vision.datasets.mnist import MNIST, FashionMNIST

__all__ = ["MNIST", "Cifar10", "Cifar100", "FashionMNIST", "Flowers"]
