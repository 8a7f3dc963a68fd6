"""``paddle.text.datasets.Imdb``: the IMDB movie reviews as word-id arrays, from Paddle's archive.

``aclImdb_v1.tar.gz`` is read without extracting it. Each review (``aclImdb/<train|test>/
<pos|neg>/*.txt``) is tokenised as Paddle does, on bytes: trailing newlines stripped, ASCII
punctuation deleted, lower-cased, split on whitespace. The word dictionary is built from the
reviews of both modes: the words seen more than ``cutoff`` times, most frequent first (ties in
byte order), then ``'<unk>'`` for every other word. As in Paddle the words are ``bytes`` keys
of ``word_idx`` and ``'<unk>'`` a ``str`` one; a sample is ``(doc, label)`` with ``doc`` the
int64 ids of the review's words and ``label`` an int64 array of shape ``[1]``: 0 for a
positive review, 1 for a negative one (Paddle's numbering), the positive reviews first, each
group in archive order. The archive is read once (Paddle reads it three times).
"""
from __future__ import annotations

import collections
import re
import string
import tarfile

import numpy as np

from core.datasets import DatasetError
from core.datasets.download import ARCHIVE_ERRORS, error_text, locate_file
from core.io import Dataset

MODES = ("train", "test")
_REVIEW = re.compile(r"aclImdb/((train)|(test))/((pos)|(neg))/.*\.txt$")  # Paddle's pattern
_PUNCTUATION = string.punctuation.encode("latin-1")
UNK = "<unk>"


def tokenize(text: bytes) -> list[bytes]:
    """Paddle's ad-hoc tokenisation of one review (bytes in, bytes words out)."""
    return text.rstrip(b"\n\r").translate(None, _PUNCTUATION).lower().split()


def build_word_dict(docs, cutoff: int) -> dict:
    """Words seen more than ``cutoff`` times in ``docs``, numbered most frequent first (ties in
    byte order), then ``'<unk>'``."""
    freq = collections.Counter(word for doc in docs for word in doc)
    kept = sorted((item for item in freq.items() if item[1] > cutoff),
                  key=lambda item: (-item[1], item[0]))
    word_idx = {word: index for index, (word, _) in enumerate(kept)}
    word_idx[UNK] = len(kept)
    return word_idx


class Imdb(Dataset):
    """Paddle's ``paddle.text.datasets.Imdb(data_file=None, mode='train', cutoff=150,
    download=True)``: 25,000 training and 25,000 test reviews, labelled 0 (positive) or 1
    (negative).

    ``data_file``: the path of ``aclImdb_v1.tar.gz``; None takes it from the download cache
    (``~/.cache/tomlrun/imdb``), where ``download=True`` fetches it (md5-checked). ``cutoff``:
    a word enters ``word_idx`` when seen more than ``cutoff`` times over both modes. ``dataset
    [i]`` is ``(doc, label)``: ``doc`` the int64 word ids of review ``i``, ``label`` int64 of
    shape ``[1]``. ``word_idx`` maps each kept word (bytes) and ``'<unk>'`` to its id.
    """

    def __init__(self, data_file=None, mode: str = "train", cutoff: int = 150,
                 download: bool = True):
        if not isinstance(mode, str) or mode.lower() not in MODES:
            raise ValueError(f"Imdb: mode={mode!r} must be 'train' or 'test'.")
        if isinstance(cutoff, bool) or not isinstance(cutoff, (int, np.integer)):
            raise TypeError(f"Imdb: cutoff must be an int (a word count), got {cutoff!r}.")
        self.mode = mode.lower()
        self.data_file = str(locate_file(data_file, "imdb", "aclImdb_v1.tar.gz",
                                         bool(download), "Imdb"))
        every, own = self._read()
        self.word_idx = build_word_dict(every, int(cutoff))
        unk = self.word_idx[UNK]
        self.docs, self.labels = [], []
        for label, group in enumerate((own["pos"], own["neg"])):  # Paddle: pos 0, neg 1
            for doc in group:
                self.docs.append(np.array([self.word_idx.get(w, unk) for w in doc],
                                          dtype=np.int64))
                self.labels.append(label)

    def _read(self):
        """Every review of the archive tokenised, and this mode's by sentiment."""
        every, own = [], {"pos": [], "neg": []}
        try:
            with tarfile.open(self.data_file) as archive:
                for member in archive:
                    found = _REVIEW.match(member.name)
                    if found is None or not member.isfile():
                        continue
                    doc = tokenize(archive.extractfile(member).read())
                    every.append(doc)
                    if found.group(1) == self.mode:
                        own[found.group(4)].append(doc)
        except ARCHIVE_ERRORS as exc:  # truncated or corrupt: tarfile's, gzip's, zlib's
            raise DatasetError(f"Imdb: {self.data_file} is not a readable tar archive "
                               f"(aclImdb_v1.tar.gz): {error_text(exc)}.") from None
        if not every:
            raise DatasetError(f"Imdb: {self.data_file} holds no review "
                               "(aclImdb/<train|test>/<pos|neg>/*.txt): it is not the IMDB "
                               "archive.")
        return every, own

    def __getitem__(self, idx):
        return self.docs[idx].copy(), np.array([self.labels[idx]], dtype=np.int64)

    def __len__(self) -> int:
        return len(self.docs)


__all__ = ["Imdb"]
