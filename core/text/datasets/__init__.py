"""``paddle.text.datasets``: Conll05st, Imdb, Imikolov, Movielens, UCIHousing, WMT14 and WMT16
with Paddle's signatures, read from Paddle's files (md5-fetched into the download cache by
``core.datasets.download``)."""
from core.text.datasets.conll05 import Conll05st
from core.text.datasets.imdb import Imdb
from core.text.datasets.imikolov import Imikolov
from core.text.datasets.movielens import Movielens
from core.text.datasets.uci_housing import UCIHousing
from core.text.datasets.wmt14 import WMT14
from core.text.datasets.wmt16 import WMT16

__all__ = ["Conll05st", "Imdb", "Imikolov", "Movielens", "UCIHousing", "WMT14", "WMT16"]
