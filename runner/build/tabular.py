"""Tabular CSV data (``data=csv``): reading a CSV with a header, and the learnt transform.

``read_table`` reads a CSV file into a ``Table`` (the header and the rows as strings, each row
with its line number). ``TabularTransform.fit`` learns, on the training rows only, everything
that turns rows into model inputs: the feature columns, the categories of each categorical
column (one-hot encoded), the mean and standard deviation of each numeric column
(``standardize``) and the class names of a string label column (sorted, ids in that order).
``apply`` turns any split's rows (or a raw CSV at inference time) into ``(x float32, y int64)``.
``to_dict`` / ``from_dict`` carry the transform in the inference bundle (``preprocessing``), so
``python -m runner.infer input=file.csv`` prepares a raw file exactly as training did.

Every problem with a file is a ``core.datasets.DatasetError`` of one paragraph naming the file,
the line and the column, and what was expected.
"""
from __future__ import annotations

import csv
import difflib
import os
from dataclasses import dataclass, field

import numpy as np

from core.datasets import DatasetError

KIND = "csv"
UNKNOWN_CATEGORY = ("error", "zeros")


@dataclass
class Table:
    """A CSV file's header and rows (strings), with the file line of each row."""

    path: str
    header: list[str]
    rows: list[list[str]]
    lines: list[int]

    def take(self, index: np.ndarray) -> Table:
        return Table(self.path, self.header, [self.rows[i] for i in index],
                     [self.lines[i] for i in index])

    def column(self, name: str, what: str) -> int:
        """The index of column ``name``; an unknown name lists the header and close spellings."""
        if name in self.header:
            return self.header.index(name)
        close = [] if self._delimiter_hint() else difflib.get_close_matches(name, self.header,
                                                                           n=3)
        hint = f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""
        lead = (f"{what} = '{name}' is not a column of {self.path}{hint}" if
                what.startswith("data.") else f"{self.path} has no column '{name}' ({what}){hint}")
        raise DatasetError(f"{lead}: its header has the columns {', '.join(self.header)}"
                           f"{self._delimiter_hint()}.")

    def _delimiter_hint(self) -> str:
        """A header read as one column that holds another separator: data.delimiter is wrong."""
        if len(self.header) != 1:
            return ""
        for sign, shown in ((";", ";"), ("\t", "\\t"), ("|", "|"), (",", ",")):
            if sign in self.header[0]:
                return (f" (one column: the file seems separated by '{shown}', not by "
                        f"data.delimiter; set data.delimiter='{shown}')")
        return ""

    def __len__(self) -> int:
        return len(self.rows)


def read_table(path: str, delimiter: str = ",") -> Table:
    """The header and rows of the CSV file ``path``; blank lines are skipped."""
    if not os.path.isfile(path):
        raise DatasetError(f"{path} does not exist: expected a CSV file with a header row "
                           "(check data.root and the file names).")
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            reader = csv.reader(handle, delimiter=delimiter)
            header, rows, lines = None, [], []
            for row in reader:
                if not row or all(not cell.strip() for cell in row):
                    continue
                cells = [cell.strip() for cell in row]
                if header is None:
                    header = cells
                    continue
                if len(cells) != len(header):
                    raise DatasetError(f"{path} line {reader.line_num}: {len(cells)} fields, "
                                       f"expected {len(header)} as in the header "
                                       f"({', '.join(header)}).")
                rows.append(cells)
                lines.append(reader.line_num)
    except (UnicodeDecodeError, csv.Error) as exc:
        raise DatasetError(f"{path} cannot be read as a UTF-8 CSV file: {exc}.") from None
    if header is None:
        raise DatasetError(f"{path} is empty: expected a CSV file with a header row naming the "
                           "columns, then one row per sample.")
    twice = sorted({name for name in header if header.count(name) > 1})
    if twice:
        raise DatasetError(f"{path}: the header names column {', '.join(map(repr, twice))} "
                           f"more than once ({', '.join(header)}): expected unique names.")
    if not rows:
        raise DatasetError(f"{path} has a header ({', '.join(header)}) but no rows: expected "
                           "one row per sample after it.")
    return Table(path, header, rows, lines)


def _is_int(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True


@dataclass
class TabularTransform:
    """Rows -> (x float32 [N, F], y int64 [N]), learnt on the training rows (``fit``)."""

    label: str
    columns: list[str]  # the feature columns, in order
    categorical: dict[str, list[str]] = field(default_factory=dict)  # column -> categories
    mean: list[float] = field(default_factory=list)  # per numeric column; empty: no scaling
    std: list[float] = field(default_factory=list)
    classes: list[str] = field(default_factory=list)  # label names by id; empty: integer labels
    unknown_category: str = "error"  # error | zeros: a category not seen in training
    delimiter: str = ","

    # --- learning ----------------------------------------------------------------------------
    @classmethod
    def fit(cls, table: Table, label: str, features: list[str], categorical: list[str],
            standardize: bool, unknown_category: str = "error", delimiter: str = ",",
            label_table: Table | None = None) -> TabularTransform:
        """Learn on ``table`` (the training rows); class names come from ``label_table`` when
        given (the whole training file, so that a rare class cut out for validation is known)."""
        table.column(label, "data.label")
        for name in features:
            table.column(name, "data.features")
        for name in categorical:
            table.column(name, "data.categorical")
        if label in features:
            raise DatasetError(f"data.features names the label column '{label}': list only "
                               "the input columns (or leave data.features empty for all but "
                               "the label).")
        columns = list(features) or [name for name in table.header if name != label]
        if not columns:
            raise DatasetError(f"{table.path} has no column but the label '{label}': expected "
                               "at least one feature column.")
        for name in categorical:
            if name not in columns:
                raise DatasetError(f"data.categorical names '{name}', which is not a feature "
                                   f"column: the features are {', '.join(columns)}.")
        cats = {name: sorted({row[table.header.index(name)] for row in table.rows})
                for name in columns if name in categorical}
        source = label_table or table
        labels = [row[source.header.index(label)] for row in source.rows]
        classes = [] if all(_is_int(v) for v in labels) else sorted(set(labels))
        transform = cls(label, columns, cats, [], [], classes, unknown_category, delimiter)
        if standardize:
            numeric = transform._numeric(table)
            mean = numeric.mean(axis=0) if len(numeric) else np.zeros(0)
            std = numeric.std(axis=0) if len(numeric) else np.zeros(0)
            transform.mean = [float(v) for v in mean]
            transform.std = [float(v) if v > 0 else 1.0 for v in std]  # constant column: 1
        return transform

    # --- applying ----------------------------------------------------------------------------
    def _numeric(self, table: Table) -> np.ndarray:
        names = [n for n in self.columns if n not in self.categorical]
        index = [table.column(n, "a feature column of the training data") for n in names]
        out = np.empty((len(table), len(names)), np.float64)
        for r, row in enumerate(table.rows):
            for c, (name, i) in enumerate(zip(names, index)):
                try:
                    out[r, c] = float(row[i])
                except ValueError:
                    raise DatasetError(
                        f"{table.path} line {table.lines[r]}, column '{name}': {row[i]!r} is "
                        "not a number: a feature column must be numeric unless it is listed "
                        "in data.categorical.") from None
        if not np.isfinite(out).all():
            r, c = np.argwhere(~np.isfinite(out))[0]
            raise DatasetError(f"{table.path} line {table.lines[r]}, column '{names[c]}': "
                               f"{table.rows[r][index[c]]!r} is not a finite number.")
        return out

    def features(self, table: Table) -> np.ndarray:
        """The model inputs of ``table``'s rows: float32 [N, num_features]."""
        numeric = self._numeric(table)
        if self.mean:
            numeric = (numeric - np.asarray(self.mean)) / np.asarray(self.std)
        parts, k = [], 0
        for name in self.columns:
            if name in self.categorical:
                parts.append(self._one_hot(table, name))
            else:
                parts.append(numeric[:, k:k + 1])
                k += 1
        return np.concatenate(parts, axis=1).astype(np.float32)

    def _one_hot(self, table: Table, name: str) -> np.ndarray:
        cats = self.categorical[name]
        where = {c: j for j, c in enumerate(cats)}
        i = table.column(name, "a categorical column of the training data")
        out = np.zeros((len(table), len(cats)), np.float32)
        for r, row in enumerate(table.rows):
            j = where.get(row[i])
            if j is not None:
                out[r, j] = 1.0
            elif self.unknown_category == "error":
                raise DatasetError(f"{table.path} line {table.lines[r]}, column '{name}': "
                                   f"category {row[i]!r} was not seen in the training data "
                                   f"(known: {', '.join(cats)}); set data.unknown_category="
                                   "zeros to encode unseen categories as all zeros.")
        return out

    def labels(self, table: Table) -> np.ndarray:
        """The label ids of ``table``'s rows: int64 [N]."""
        i = table.column(self.label, "the label column of the training data")
        ids = np.empty(len(table), np.int64)
        where = {c: j for j, c in enumerate(self.classes)}
        for r, row in enumerate(table.rows):
            value = row[i]
            if self.classes:
                if value not in where:
                    raise DatasetError(f"{table.path} line {table.lines[r]}, column "
                                       f"'{self.label}': label {value!r} is not one of the "
                                       f"training labels ({', '.join(self.classes)}).")
                ids[r] = where[value]
            elif _is_int(value) and int(value) >= 0:
                ids[r] = int(value)
            else:
                raise DatasetError(f"{table.path} line {table.lines[r]}, column "
                                   f"'{self.label}': label {value!r} is not an integer >= 0 "
                                   "(the training labels are integer class ids).")
        return ids

    def apply(self, table: Table) -> tuple[np.ndarray, np.ndarray]:
        return self.features(table), self.labels(table)

    @property
    def feature_names(self) -> list[str]:
        names = []
        for name in self.columns:
            cats = self.categorical.get(name)
            names += [f"{name}={c}" for c in cats] if cats is not None else [name]
        return names

    # --- the bundle --------------------------------------------------------------------------
    def to_dict(self) -> dict:
        return {"kind": KIND, "label": self.label, "columns": list(self.columns),
                "categorical": {k: list(v) for k, v in self.categorical.items()},
                "mean": list(self.mean), "std": list(self.std), "classes": list(self.classes),
                "unknown_category": self.unknown_category, "delimiter": self.delimiter,
                "feature_names": self.feature_names}

    @classmethod
    def from_dict(cls, data: dict) -> TabularTransform:
        if data.get("kind") != KIND:
            raise ValueError(f"preprocessing of kind {data.get('kind')!r} is not a CSV "
                             "transform.")
        return cls(label=data["label"], columns=list(data["columns"]),
                   categorical={k: list(v) for k, v in data.get("categorical", {}).items()},
                   mean=[float(v) for v in data.get("mean", [])],
                   std=[float(v) for v in data.get("std", [])],
                   classes=list(data.get("classes", [])),
                   unknown_category=data.get("unknown_category", "error"),
                   delimiter=data.get("delimiter", ","))
