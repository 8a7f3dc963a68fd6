"""``paddle.text``: Viterbi decoding (``viterbi_decode``, ``ViterbiDecoder``) and the text
datasets tutorials download (``datasets``: ``Imdb``, ``Imikolov``, ``UCIHousing``, also
importable from ``core.text`` itself, as from ``paddle.text``)."""
from core.text import datasets
from core.text.datasets import Imdb, Imikolov, UCIHousing
from core.text.viterbi import ViterbiDecoder, viterbi_decode

__all__ = ["Imdb", "Imikolov", "UCIHousing", "ViterbiDecoder", "datasets", "viterbi_decode"]
