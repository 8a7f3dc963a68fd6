"""``paddle.text``: Viterbi decoding (``viterbi_decode``, ``ViterbiDecoder``) and the text
datasets tutorials download (``datasets``: ``Conll05st``, ``Imdb``, ``Imikolov``,
``Movielens``, ``UCIHousing``, ``WMT14``, ``WMT16``, also importable from ``core.text``
itself, as from ``paddle.text``)."""
from core.text import datasets
from core.text.datasets import WMT14, WMT16, Conll05st, Imdb, Imikolov, Movielens, UCIHousing
from core.text.viterbi import ViterbiDecoder, viterbi_decode

__all__ = ["WMT14", "WMT16", "Conll05st", "Imdb", "Imikolov", "Movielens", "UCIHousing",
           "ViterbiDecoder", "datasets", "viterbi_decode"]
