"""``paddle.text.datasets``: Imdb, Imikolov and UCIHousing with Paddle's signatures, read from
Paddle's files (md5-fetched into the download cache by ``core.datasets.download``)."""
from core.text.datasets.imdb import Imdb
from core.text.datasets.imikolov import Imikolov
from core.text.datasets.uci_housing import UCIHousing

__all__ = ["Imdb", "Imikolov", "UCIHousing"]
