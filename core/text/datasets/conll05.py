"""``paddle.text.datasets.Conll05st``: the public test set of the CoNLL-2005 semantic role
labelling task (its WSJ part), one sample per predicate of each sentence, Paddle's way.

``conll05st-tests.tar.gz`` is read without extracting it:
``conll05st-release/test.wsj/words/test.wsj.words.gz`` holds one word a line and
``.../props/test.wsj.props.gz`` the matching line of columns: the predicate's lemma or '-',
then one column of bracketed arguments per predicate (``(A0*``, ``*``, ``*)``, ``(V*)``); a
blank line ends a sentence. Each predicate column becomes IOB labels (``B-A0``, ``I-A0``,
``O``), the sentence's k-th lemma being the k-th column's predicate.

The dictionaries are Paddle's files: ``wordDict.txt`` and ``verbDict.txt`` number their lines
from 0 (id 0 also stands for a word the dictionary lacks); ``targetDict.txt``'s tags (its
``B-X`` / ``I-X`` lines) become ``B-X`` 2k and ``I-X`` 2k+1 in the order the file first names
them, then ``'O'``. A sample is Paddle's tuple of nine int64 arrays of the sentence's length:
``word ids``, the ids of the words two and one before the verb, of the verb, one and two after
(each repeated over the sentence, ``'bos'`` / ``'eos'`` past the ends), ``predicate id``
(repeated), ``mark`` (1 on the five-word window around the verb) and ``label ids``.
"""
from __future__ import annotations

import gzip
import tarfile

import numpy as np

from core.datasets import DatasetError
from core.datasets.download import ARCHIVE_ERRORS, error_text, locate_file
from core.io import Dataset

UNK_IDX = 0  # Paddle's id for a word wordDict.txt lacks
_WORDS = "conll05st-release/test.wsj/words/test.wsj.words.gz"
_PROPS = "conll05st-release/test.wsj/props/test.wsj.props.gz"
# Conll05st's arguments, what each names and the file of the download cache that holds it
_FILES = (("data_file", "conll05st-tests.tar.gz"), ("word_dict_file", "wordDict.txt"),
          ("verb_dict_file", "verbDict.txt"), ("target_dict_file", "targetDict.txt"),
          ("emb_file", "emb"))


def load_dict(path) -> dict:
    """Paddle's ``_load_dict``: each line (stripped) -> its line number."""
    with open(path, encoding="utf-8") as handle:
        return {line.strip(): index for index, line in enumerate(handle)}


def load_label_dict(path) -> dict:
    """Paddle's ``_load_label_dict``: ``B-tag`` 2k, ``I-tag`` 2k+1 for the k-th tag of the
    file's ``B-`` / ``I-`` lines (in the order first named: Paddle's set has no fixed order),
    then ``'O'``."""
    tags = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            line = line.strip()
            if line.startswith(("B-", "I-")):
                tags.setdefault(line[2:], None)
    labels = {}
    for tag in tags:
        labels["B-" + tag] = len(labels)
        labels["I-" + tag] = len(labels)
    labels["O"] = len(labels)
    return labels


def iob_labels(column) -> list[str]:
    """One props column (``(A0*``, ``*``, ``*)``, ``(V*)``, ...) as IOB labels, Paddle's
    reading (a ``*`` inside brackets continues the argument)."""
    tag, inside, labels = "O", False, []
    for item in column:
        if item == "*":
            labels.append("I-" + tag if inside else "O")
        elif item == "*)":
            labels.append("I-" + tag)
            inside = False
        elif "(" in item:
            tag = item[1:item.find("*")]
            labels.append("B-" + tag)
            inside = ")" not in item
        else:
            raise DatasetError(f"Conll05st: unexpected label {item!r} in {_PROPS} (each is "
                               "'*', '*)', '(TAG*' or '(TAG*)').")
    return labels


def split_sentences(words, props):
    """``(words, lemma column, argument columns)`` of each sentence of the two line streams
    (bytes), a blank props line ending each (a sentence without one at the end of the file
    is dropped, as Paddle)."""
    sentence, rows = [], []
    for word, row in zip(words, props):
        row = row.decode().split()
        if row:
            sentence.append(word.strip().decode())
            rows.append(row)
            continue
        if rows:  # consecutive blank lines: no sentence between them
            columns = list(zip(*rows))
            yield sentence, columns[0], columns[1:]
        sentence, rows = [], []


class Conll05st(Dataset):
    """Paddle's ``paddle.text.datasets.Conll05st(data_file=None, word_dict_file=None,
    verb_dict_file=None, target_dict_file=None, emb_file=None, download=True)``: the
    predicates of the WSJ test sentences with their words, verb context and role labels (only
    the test set is public: there is no ``mode``).

    Each ``*_file`` is the path of Paddle's file (``conll05st-tests.tar.gz``,
    ``wordDict.txt``, ``verbDict.txt``, ``targetDict.txt``, ``emb``); None takes it from the
    download cache (``~/.cache/tomlrun/conll05st``), where ``download=True`` fetches it
    (md5-checked). ``dataset[i]``: module docstring. ``get_dict()`` gives the word, verb and
    label dictionaries, ``get_embedding()`` the path of the embedding file.
    """

    def __init__(self, data_file=None, word_dict_file=None, verb_dict_file=None,
                 target_dict_file=None, emb_file=None, download: bool = True):
        given = dict(zip((argument for argument, _ in _FILES),
                         (data_file, word_dict_file, verb_dict_file, target_dict_file,
                          emb_file)))
        for argument, filename in _FILES:
            path = locate_file(given[argument], "conll05st", filename, bool(download),
                               "Conll05st", argument=argument)
            setattr(self, argument, str(path))
        self.word_dict = load_dict(self.word_dict_file)
        self.predicate_dict = load_dict(self.verb_dict_file)
        self.label_dict = load_label_dict(self.target_dict_file)
        self._load_anno()

    def _load_anno(self) -> None:
        """One ``(words, predicate, labels)`` per argument column of each sentence."""
        self.sentences, self.predicates, self.labels = [], [], []
        try:
            with tarfile.open(self.data_file) as archive:
                names = set(archive.getnames())
                missing = [name for name in (_WORDS, _PROPS) if name not in names]
                if missing:
                    raise DatasetError(f"Conll05st: {self.data_file} has no {missing[0]}: it "
                                       "is not conll05st-tests.tar.gz.")
                members = [archive.extractfile(name) for name in (_WORDS, _PROPS)]
                with gzip.GzipFile(fileobj=members[0]) as words, \
                        gzip.GzipFile(fileobj=members[1]) as props:
                    for sentence, lemmas, columns in split_sentences(words, props):
                        verbs = [lemma for lemma in lemmas if lemma != "-"]
                        for verb, column in zip(verbs, columns):
                            self.sentences.append(sentence)
                            self.predicates.append(verb)
                            self.labels.append(iob_labels(column))
        except ARCHIVE_ERRORS as exc:  # truncated or corrupt: tarfile's, gzip's, zlib's
            raise DatasetError(f"Conll05st: {self.data_file} is not a readable tar archive "
                               f"(conll05st-tests.tar.gz): {error_text(exc)}.") from None

    def _id(self, table: dict, name: str, key: str, source: str) -> int:
        if key not in table:  # Paddle puts None in the sample
            raise DatasetError(f"Conll05st: {name} {key!r} is not in {source}.")
        return table[key]

    def __getitem__(self, idx):
        sentence, predicate, labels = self.sentences[idx], self.predicates[idx], self.labels[idx]
        if "B-V" not in labels:
            raise DatasetError(f"Conll05st: predicate {idx} ({predicate!r}) has no '(V*)' "
                               "in its props column: no verb to centre the context on.")
        verb, length = labels.index("B-V"), len(labels)
        mark = np.zeros(length, dtype=np.int64)
        mark[max(verb - 2, 0):verb + 3] = 1
        context = [sentence[k] if 0 <= k < length else ("bos" if k < 0 else "eos")
                   for k in range(verb - 2, verb + 3)]
        word_ids = [self.word_dict.get(word, UNK_IDX) for word in sentence]
        contexts = [np.full(length, self.word_dict.get(word, UNK_IDX), dtype=np.int64)
                    for word in context]
        predicate_id = self._id(self.predicate_dict, "predicate", predicate,
                                self.verb_dict_file)
        label_ids = [self._id(self.label_dict, "label", label, self.target_dict_file)
                     for label in labels]
        return (np.array(word_ids, dtype=np.int64), *contexts,
                np.full(length, predicate_id, dtype=np.int64), mark,
                np.array(label_ids, dtype=np.int64))

    def __len__(self) -> int:
        return len(self.sentences)

    def get_dict(self):
        """Paddle's ``get_dict()``: ``(word_dict, predicate_dict, label_dict)``."""
        return self.word_dict, self.predicate_dict, self.label_dict

    def get_embedding(self):
        """Paddle's ``get_embedding()``: the path of the embedding file (``emb``)."""
        return self.emb_file


__all__ = ["Conll05st"]
