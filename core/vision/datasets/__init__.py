"""``paddle.vision.datasets``: MNIST, FashionMNIST, Cifar10, Cifar100, Flowers and VOC2012 with
Paddle's signatures (files found, fetched md5-checked and read through ``core.datasets``), and
DatasetFolder / ImageFolder over a user's own image folders."""
from core.vision.datasets.cifar import Cifar10, Cifar100
from core.vision.datasets.flowers import Flowers
from core.vision.datasets.folder import DatasetFolder, ImageFolder
from core.vision.datasets.mnist import MNIST, FashionMNIST
from core.vision.datasets.voc2012 import VOC2012

__all__ = ["MNIST", "VOC2012", "Cifar10", "Cifar100", "DatasetFolder", "FashionMNIST",
           "Flowers", "ImageFolder"]
