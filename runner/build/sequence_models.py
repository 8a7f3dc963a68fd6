"""Models over word ids and variable-length sequences: word2vec's CBOW and GRU/LSTM classifiers.

A sequence batch reaches the model as one input, the tuple ``(padded, lengths)`` (the loader
yields ``(padded, lengths, labels)`` and ``core.data.split_batch`` keeps everything but the
labels together), so the training loop stays ``logits = model(inputs)``. A plain Tensor
``[batch, T, features]`` (all rows full length) works too.
"""
from __future__ import annotations

import numpy as np

import core
from core import nn
from core.nn import functional as F
from runner.config import schema
from runner.errors import ConfigError


class CBOW(nn.Layer):
    """Context ids ``[batch, 2 * window]`` -> embeddings -> sum (or mean) -> logits over words."""

    def __init__(self, vocab_size: int, embedding_dim: int, sparse: bool, pooling: str = "sum"):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embedding_dim, sparse=sparse)
        self.out = nn.Linear(embedding_dim, vocab_size)
        self.pooling = pooling

    def forward(self, context):
        vectors = self.embedding(context)
        pooled = vectors.sum(axis=1) if self.pooling == "sum" else vectors.mean(axis=1)
        return self.out(pooled)


class SequenceClassifier(nn.Layer):
    """(padded, lengths) -> [embedding] -> GRU/LSTM -> pooling over real steps -> linear.

    With ``direction="bidirect"`` the features are ``2 * hidden_size``: pooled outputs hold both
    directions, and ``last`` joins the top layer's forward and backward final states.
    """

    def __init__(self, cell: str, features: int, num_classes: int, hidden_size: int,
                 num_layers: int = 1, pooling: str = "last", dropout: float = 0.0,
                 vocab_size: int = 0, embedding_dim: int = 64, sparse: bool = False,
                 direction: str = "forward"):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embedding_dim, sparse=sparse) \
            if vocab_size else None
        width = embedding_dim if vocab_size else features
        layer = nn.GRU if cell == "gru" else nn.LSTM
        self.rnn = layer(width, hidden_size, num_layers=num_layers, direction=direction,
                         dropout=dropout)
        self.dropout = nn.Dropout(dropout)
        self.out = nn.Linear(hidden_size * self.rnn.num_directions, num_classes)
        self.pooling = pooling

    def forward(self, inputs):
        x, lengths = inputs if isinstance(inputs, (tuple, list)) else (inputs, None)
        if self.embedding is not None:
            x = self.embedding(x)
        outputs, final = self.rnn(x, sequence_length=lengths)
        if self.pooling == "last":
            states = final[0] if isinstance(final, tuple) else final
            # The top layer's rows: forward only, or forward then backward.
            top = [states[-d] for d in range(self.rnn.num_directions, 0, -1)]
            hidden = top[0] if len(top) == 1 else core.concat(top, axis=-1)
        else:
            if lengths is None:
                lengths = np.full(x.shape[0], x.shape[1], dtype=np.int64)
            hidden = F.sequence_pool(outputs, lengths, self.pooling)
        return self.out(self.dropout(hidden))


def _cbow(cfg: schema.CBOWConfig, input_shape, num_classes: int, vocab_size: int,
          variable_length: bool) -> nn.Layer:
    if len(input_shape) != 1 or variable_length:
        raise ConfigError(f"model=cbow needs fixed-size contexts of word ids (data=text); the "
                          f"data gives {describe(input_shape, variable_length)}.")
    if cfg.pooling not in ("sum", "mean"):
        raise ConfigError(f"model.pooling = '{cfg.pooling}' is not allowed for cbow: use sum "
                          "or mean.")
    # The target is a word too: the classes are the vocabulary (how a bundle rebuilds it).
    return CBOW(vocab_size or num_classes, cfg.embedding_dim, cfg.sparse_update, cfg.pooling)


def _rnn(cfg: schema.RNNConfig, input_shape, num_classes: int, vocab_size: int,
         variable_length: bool) -> nn.Layer:
    # Feature vectors per step: [F] per step of variable-length sequences, [T, F] per sample of
    # fixed-length ones (data=arrays); word ids go through the embedding.
    steps_of = 1 if variable_length else 2
    if not vocab_size and len(input_shape) != steps_of:
        raise ConfigError(f"model={cfg.name} needs sequences: variable-length sequences of "
                          "feature vectors (data=vowels), fixed-length ones as [N, T, F] arrays, "
                          f"or word ids (data=text); the data gives "
                          f"{describe(input_shape, variable_length)}.")
    features = 0 if vocab_size else int(input_shape[-1])
    return SequenceClassifier(cfg.name, features, num_classes, cfg.hidden_size, cfg.num_layers,
                              cfg.pooling, cfg.dropout, vocab_size, cfg.embedding_dim,
                              cfg.sparse_update, cfg.direction)


def describe(input_shape, variable_length: bool) -> str:
    """What the data's samples are, in the words of the model errors."""
    if variable_length:
        return f"variable-length sequences of steps of shape {list(input_shape)}"
    return f"fixed-size samples of shape {list(input_shape)}"


MODELS = {"cbow": _cbow, "gru": _rnn, "lstm": _rnn}


def check_fixed_size(name: str, vocab_size: int, variable_length: bool) -> None:
    """Refuse word ids or variable-length sequences for a model made for fixed-size floats."""
    if vocab_size:
        raise ConfigError(f"model={name} takes float features but the data are word ids: use "
                          "model=cbow (or gru / lstm).")
    if variable_length:
        raise ConfigError(f"model={name} takes fixed-size samples but the data are "
                          "variable-length sequences: use model=gru or model=lstm.")


def nearest_neighbours(model, vocab, words: list[str], count: int = 8) -> str:
    """Lines ``word: n1 (cos) n2 (cos) ...`` by cosine similarity of the embedding rows."""
    table = model.embedding.weight.numpy().astype(np.float64)
    unit = table / (np.linalg.norm(table, axis=1, keepdims=True) + 1e-12)
    lines = []
    for word in words:
        index = vocab.index.get(word)
        if index is None:
            continue
        scores = unit @ unit[index]
        scores[[index, 0]] = -np.inf  # neither the word itself nor <unk>
        best = np.argsort(-scores)[:count]
        lines.append(f"{word}: " + ", ".join(f"{vocab.words[i]} ({scores[i]:.2f})"
                                             for i in best))
    return "\n".join(lines) + "\n"


def frequent_words(vocab, count: int = 10, skip: int = 20) -> list[str]:
    """Frequent content-ish words: past the ``skip`` commonest (the, to, and, ...)."""
    return vocab.words[1 + skip:1 + skip + count]


__all__ = ["CBOW", "MODELS", "SequenceClassifier", "check_fixed_size", "nearest_neighbours"]
