"""``paddle.vision.datasets``: MNIST and Fashion-MNIST with Paddle's signature (files found,
fetched and checked by ``core.datasets``)."""
from core.vision.datasets.mnist import MNIST, FashionMNIST

__all__ = ["MNIST", "FashionMNIST"]
