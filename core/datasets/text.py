"""Plain-text corpora for word2vec: tokenising, the vocabulary, and CBOW (context, word) samples.

Any folder of UTF-8 ``.txt`` files works. Words are lower-cased runs of letters (with inner
apostrophes: ``don't``); the vocabulary keeps the ``dict_size - 1`` most frequent words of the
training text (ties broken alphabetically, so it is the same on every machine) and maps the rest
to ``<unk>`` (id 0), as the PaddlePaddle FAQ's word2vec provider does. A CBOW sample is the
``window`` words before and after a position (``2 * window`` ids) and the word there; windows
never cross a file boundary. Each file is split by position into train, then valid, then test,
so the three never share text.
"""
from __future__ import annotations

import os
import re
from collections import Counter

import numpy as np

from core.atomic import atomic_write
from core.datasets.common import DatasetError, check_split

UNK = "<unk>"
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)*")


def tokenize(text: str) -> list[str]:
    return _WORD.findall(text.lower())


class Vocabulary:
    """Word <-> id; id 0 is ``<unk>``. ``counts[i]`` is word ``i``'s training count."""

    def __init__(self, words: list[str], counts: list[int]):
        if not words or words[0] != UNK:
            raise ValueError(f"Vocabulary: the first word must be {UNK!r}.")
        self.words, self.counts = list(words), list(counts)
        self.index = {w: i for i, w in enumerate(self.words)}

    @classmethod
    def build(cls, tokens, dict_size: int) -> Vocabulary:
        if dict_size < 2:
            raise ValueError(f"Vocabulary: dict_size must be >= 2 (<unk> and a word), got "
                             f"{dict_size}.")
        counts = Counter(tokens)
        ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
        kept = ranked[:dict_size - 1]
        unknown = sum(counts.values()) - sum(c for _, c in kept)
        return cls([UNK] + [w for w, _ in kept], [unknown] + [c for _, c in kept])

    def __len__(self) -> int:
        return len(self.words)

    def ids(self, tokens) -> np.ndarray:
        get = self.index.get
        return np.fromiter((get(t, 0) for t in tokens), dtype=np.int64)

    def save(self, path: str) -> None:
        """One ``word<TAB>count`` line per id, written atomically."""
        with atomic_write(path, "w", encoding="utf-8") as handle:
            handle.writelines(f"{w}\t{c}\n" for w, c in zip(self.words, self.counts))

    @classmethod
    def load(cls, path: str) -> Vocabulary:
        words, counts = [], []
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                word, _, count = line.rstrip("\n").partition("\t")
                words.append(word)
                counts.append(int(count or 0))
        return cls(words, counts)


def read_corpus(root: str, pattern: str = ".txt") -> list[tuple[str, list[str]]]:
    """(path, tokens) of every file under ``root`` whose name ends with ``pattern``, sorted."""
    if not os.path.isdir(root):
        raise DatasetError(f"{root} is not a folder: point data.root at a folder of text files.")
    paths = sorted(os.path.join(d, f) for d, _, files in os.walk(root) for f in files
                   if f.endswith(pattern))
    if not paths:
        raise DatasetError(f"{root} holds no '*{pattern}' file.")
    out = []
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as handle:
            out.append((path, tokenize(handle.read())))
    return out


def _cut(count: int, valid: float, test: float) -> tuple[int, int]:
    """Token positions where train ends and where valid ends."""
    return int(count * (1 - valid - test)), int(count * (1 - test))


def cbow_windows(ids: np.ndarray, window: int) -> tuple[np.ndarray, np.ndarray]:
    """(contexts [n, 2*window], targets [n]) of every full window of ``ids``."""
    n = len(ids) - 2 * window
    if n <= 0:
        return np.zeros((0, 2 * window), np.int64), np.zeros(0, np.int64)
    view = np.lib.stride_tricks.sliding_window_view(ids, 2 * window + 1)
    contexts = np.concatenate([view[:, :window], view[:, window + 1:]], axis=1)
    return np.ascontiguousarray(contexts), view[:, window].copy()


class CBOWText:
    """One split of a text corpus as CBOW samples (array-backed, one shard per file).

    ``arrays`` = (contexts int64 [n, 2*window], targets int64 [n]); ``vocab`` is built from the
    training part of every file (pass ``vocab`` to share one between splits).
    """

    def __init__(self, root: str, split: str = "train", dict_size: int = 3000, window: int = 2,
                 valid_size: float = 0.05, test_size: float = 0.05,
                 vocab: Vocabulary | None = None, corpus=None):
        check_split(split)
        if not 0 <= valid_size < 1 or not 0 < test_size < 1 or valid_size + test_size >= 1:
            raise ValueError(f"CBOWText: valid_size={valid_size} and test_size={test_size} must "
                             "be fractions that leave some training text.")
        corpus = corpus if corpus is not None else read_corpus(root)
        if vocab is None:
            vocab = Vocabulary.build((t for _, tokens in corpus
                                      for t in tokens[:_cut(len(tokens), valid_size,
                                                            test_size)[0]]), dict_size)
        self.vocab, self.window, self.num_classes = vocab, window, len(vocab)
        parts, self.shards, start = [], [], 0
        for _, tokens in corpus:
            train_end, valid_end = _cut(len(tokens), valid_size, test_size)
            lo, hi = {"train": (0, train_end), "valid": (train_end, valid_end),
                      "test": (valid_end, len(tokens))}[split]
            contexts, targets = cbow_windows(vocab.ids(tokens[lo:hi]), window)
            parts.append((contexts, targets))
            self.shards.append(np.arange(start, start + len(targets)))
            start += len(targets)
        if start == 0:
            raise DatasetError(f"{root}: the {split} part of the corpus holds no full window of "
                               f"{2 * window + 1} words.")
        self.arrays = (np.concatenate([c for c, _ in parts]),
                       np.concatenate([t for _, t in parts]))

    def __getitem__(self, index):
        return self.arrays[0][index], self.arrays[1][index]

    def __len__(self) -> int:
        return len(self.arrays[1])
