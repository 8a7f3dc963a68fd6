"""LeNet (``paddle.vision.models.LeNet``), for 1 x 28 x 28 images such as MNIST."""
from __future__ import annotations

from core import nn
from core.manipulation import flatten
from core.vision.models._checks import check_int


class LeNet(nn.Layer):
    """LeNet as Paddle builds it (LeCun et al., 1998).

    ``features``: Conv2D(1, 6, 3, stride 1, padding 1) -> ReLU -> MaxPool2D(2, 2) ->
    Conv2D(6, 16, 5, stride 1, padding 0) -> ReLU -> MaxPool2D(2, 2), taking ``[N, 1, 28, 28]``
    to ``[N, 16, 5, 5]``; ``fc``: Linear(400, 120) -> Linear(120, 84) -> Linear(84,
    num_classes), with no activation between the linear layers (as Paddle). With
    ``num_classes <= 0`` there is no ``fc`` and the output is the feature map.
    """

    def __init__(self, num_classes: int = 10):
        super().__init__()
        self.num_classes = check_int("LeNet", "num_classes", num_classes)
        self.features = nn.Sequential(
            nn.Conv2D(1, 6, 3, stride=1, padding=1), nn.ReLU(), nn.MaxPool2D(2, 2),
            nn.Conv2D(6, 16, 5, stride=1, padding=0), nn.ReLU(), nn.MaxPool2D(2, 2))
        if self.num_classes > 0:
            self.fc = nn.Sequential(nn.Linear(400, 120), nn.Linear(120, 84),
                                    nn.Linear(84, self.num_classes))

    def forward(self, inputs):
        x = self.features(inputs)
        if self.num_classes > 0:
            x = self.fc(flatten(x, 1))
        return x
