"""``paddle.text.datasets.WMT16``: the English-German Multi30K pairs of WMT'16's multimodal
task as word-id sequences, Paddle's way.

``wmt16.tar.gz`` is read without extracting it: ``wmt16/train``, ``wmt16/test`` and
``wmt16/val`` hold one pair a line, English and German separated by a tab (other lines are
skipped). Each language's dictionary is built from its column of ``wmt16/train``: ``<s>`` 0,
``<e>`` 1, ``<unk>`` 2, then the words by falling count (ties in the order first seen), up to
``dict_size`` entries. ``lang`` is the source language. As in Paddle a sample is ``(src_ids,
trg_ids, trg_ids_next)``, int64: ``<s> source <e>``, ``<s> target`` and ``target <e>``, a
word outside its dictionary being ``<unk>``.
"""
from __future__ import annotations

import collections
import tarfile

import numpy as np

from core.datasets import DatasetError
from core.datasets.download import ARCHIVE_ERRORS, error_text, locate_file
from core.text.datasets._translation import TranslationPairs

MODES = ("train", "test", "val")
LANGS = ("en", "de")
START_MARK, END_MARK, UNK_MARK = "<s>", "<e>", "<unk>"
TOTAL_EN_WORDS, TOTAL_DE_WORDS = 11250, 19220  # the dictionaries' sizes with every word
_TOTAL = {"en": TOTAL_EN_WORDS, "de": TOTAL_DE_WORDS}


def build_dict(sentences, dict_size: int) -> dict:
    """Paddle's ``_build_dict``: the three marks, then the words of ``sentences`` by falling
    count (a stable sort: ties in the order first seen), ``dict_size`` entries at most; each
    word -> its position."""
    counts = collections.Counter()
    for sentence in sentences:
        counts.update(sentence.split())
    ranked = sorted(counts.items(), key=lambda item: item[1], reverse=True)
    words = [START_MARK, END_MARK, UNK_MARK] + [word for word, _ in ranked[:dict_size - 3]]
    return {word: index for index, word in enumerate(words)}


def _check_size(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 3:
        raise ValueError(f"WMT16: {name}={value!r} must be an int >= 3 (the number of words "
                         "of the dictionary, '<s>', '<e>' and '<unk>' included); Paddle's "
                         "default -1 is refused too.")
    return int(value)


class WMT16(TranslationPairs):
    """Paddle's ``paddle.text.datasets.WMT16(data_file=None, mode='train', src_dict_size=-1,
    trg_dict_size=-1, lang='en', download=True)``: 29,000 'train', 1,000 'test' and 1,014
    'val' sentence pairs as word ids.

    ``data_file``: the path of ``wmt16.tar.gz``; None takes it from the download cache
    (``~/.cache/tomlrun/wmt16``), where ``download=True`` fetches it (md5-checked).
    ``src_dict_size`` / ``trg_dict_size``: the sizes of the source and target dictionaries,
    which must be given (the default -1 is refused, as in Paddle). ``lang``: the source
    language, 'en' (then German is the target) or 'de'. ``dataset[i]``: module docstring;
    ``get_dict(lang, reverse=False)`` gives a language's dictionary.
    """

    def __init__(self, data_file=None, mode: str = "train", src_dict_size: int = -1,
                 trg_dict_size: int = -1, lang: str = "en", download: bool = True):
        if not isinstance(mode, str) or mode.lower() not in MODES:
            raise ValueError(f"WMT16: mode={mode!r} must be 'train', 'test' or 'val'.")
        if lang not in LANGS:
            raise ValueError(f"WMT16: lang={lang!r} must be 'en' or 'de' (the source "
                             "language).")
        sizes = _check_size("src_dict_size", src_dict_size), \
            _check_size("trg_dict_size", trg_dict_size)
        self.mode, self.lang = mode.lower(), lang
        self.trg_lang = "de" if lang == "en" else "en"
        # Paddle's attributes: the sizes capped at the full vocabularies
        self.src_dict_size = min(sizes[0], _TOTAL[lang])
        self.trg_dict_size = min(sizes[1], _TOTAL[self.trg_lang])
        self.data_file = str(locate_file(data_file, "wmt16", "wmt16.tar.gz", bool(download),
                                         "WMT16"))
        texts = self._read(("train", self.mode))
        columns = {language: [pair[k] for pair in texts["train"]]
                   for k, language in enumerate(LANGS)}
        self.src_dict = build_dict(columns[lang], sizes[0])
        self.trg_dict = build_dict(columns[self.trg_lang], sizes[1])
        self._load_data(texts[self.mode])

    def _read(self, names) -> dict:
        """The (English, German) pairs of ``wmt16/<name>`` for each name."""
        texts = {}
        try:
            with tarfile.open(self.data_file) as archive:
                for name in dict.fromkeys(names):
                    try:
                        member = archive.extractfile(f"wmt16/{name}")
                    except KeyError:
                        raise DatasetError(f"WMT16: {self.data_file} has no wmt16/{name}: it "
                                           "is not wmt16.tar.gz.") from None
                    lines = (line.decode().strip().split("\t") for line in member)
                    texts[name] = [pair for pair in lines if len(pair) == 2]
        except ARCHIVE_ERRORS as exc:  # truncated or corrupt: tarfile's, gzip's, zlib's
            raise DatasetError(f"WMT16: {self.data_file} is not a readable tar archive "
                               f"(wmt16.tar.gz): {error_text(exc)}.") from None
        return texts

    def _load_data(self, pairs) -> None:
        # As Paddle: the marks' ids (the same in both dictionaries) from the source one.
        start, end, unk = (self.src_dict[mark] for mark in (START_MARK, END_MARK, UNK_MARK))
        source = LANGS.index(self.lang)
        self.src_ids, self.trg_ids, self.trg_ids_next = [], [], []
        for pair in pairs:
            src = [self.src_dict.get(w, unk) for w in pair[source].split()]
            trg = [self.trg_dict.get(w, unk) for w in pair[1 - source].split()]
            self.src_ids.append([start, *src, end])
            self.trg_ids.append([start, *trg])
            self.trg_ids_next.append([*trg, end])

    def get_dict(self, lang: str, reverse: bool = False) -> dict:
        """Paddle's ``get_dict(lang, reverse=False)``: the dictionary of ``lang`` ('en' or
        'de'), word -> id, or id -> word with ``reverse=True``."""
        if lang not in LANGS:
            raise ValueError(f"WMT16.get_dict: lang={lang!r} must be 'en' or 'de'.")
        words = self.src_dict if lang == self.lang else self.trg_dict
        return {i: w for w, i in words.items()} if reverse else dict(words)


__all__ = ["WMT16"]
