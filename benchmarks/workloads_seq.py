"""Sequence workloads of ``benchmarks/suite.py``: GRU, LSTM and SimpleRNN over variable
lengths, an embedding bag with sparse updates, and a transformer-style block (see workloads.py
for the interface). Lengths are ``sequence_length`` in core and a packed sequence in torch.
"""
from __future__ import annotations

import math

import numpy as np
from workloads import Workload, copy_weights, linear_weights

import core
from core import nn
from core.nn import functional as F
from core.nn.functional import sequence as S


class _Recurrent(nn.Layer):
    def __init__(self, kind, features: int, hidden: int):
        super().__init__()
        self.rnn, self.fc = kind(features, hidden), nn.Linear(hidden, 10)
        self.kind = kind

    def forward(self, x, lens):
        _, final = self.rnn(x, sequence_length=lens)
        h = final[0] if self.kind is nn.LSTM else final
        return self.fc(h[0])


# kind -> (core layer, torch module)
_KINDS = {"gru": ("GRU", "GRU"), "lstm": ("LSTM", "LSTM"), "rnn": ("SimpleRNN", "RNN")}


class Recurrent(Workload):
    """GRU, LSTM or SimpleRNN (tanh; hidden 128, T = 50, 32 features), each row's last real
    state -> Linear."""

    def __init__(self, batch: int, quick: bool = False, kind: str = "gru"):
        super().__init__(batch, quick)
        self.kind = kind
        self.features, self.hidden, self.steps = (8, 16, 6) if quick else (32, 128, 50)

    def data(self, rng):
        x = rng.standard_normal((self.batch, self.steps, self.features)).astype(np.float32)
        lens = rng.integers(self.steps // 2, self.steps + 1, self.batch).astype(np.int64)
        return x, lens, self.labels(rng)

    def core_model(self):
        return _Recurrent(getattr(nn, _KINDS[self.kind][0]), self.features, self.hidden)

    def core_forward(self, model, x, lens):
        return model(core.to_tensor(x), core.to_tensor(lens))

    def torch_model(self, ours):
        import torch  # noqa: PLC0415

        kind = getattr(torch.nn, _KINDS[self.kind][1])
        model = torch.nn.ModuleDict({"rnn": kind(self.features, self.hidden, batch_first=True),
                                     "fc": torch.nn.Linear(self.hidden, 10)})
        copy_weights(ours, model, linear_weights(ours))
        return model

    def torch_forward(self, model, x, lens):
        import torch  # noqa: PLC0415

        # The lengths stay on the host: pack_padded_sequence wants them as a CPU tensor.
        packed = torch.nn.utils.rnn.pack_padded_sequence(
            self.torch_tensor(x), torch.from_numpy(lens), batch_first=True, enforce_sorted=False)
        _, final = model["rnn"](packed)
        h = final[0] if self.kind == "lstm" else final
        return model["fc"](h[0])


class _Bag(nn.Layer):
    def __init__(self, vocab: int, dim: int):
        super().__init__()
        self.emb, self.fc = nn.Embedding(vocab, dim, sparse=True), nn.Linear(dim, 10)

    def forward(self, ids, lens):
        return self.fc(S.sequence_pool(self.emb(ids), lens, "mean"))


class EmbeddingBag(Workload):
    """Token ids -> Embedding(100k x 64, sparse gradients) -> mean over each row's length ->
    Linear; lazy (sparse) Adam on the table: core's Adam on row-sparse gradients, torch's
    SparseAdam on the table plus Adam on the rest."""

    sparse = True

    def __init__(self, batch: int, quick: bool = False):
        super().__init__(batch, quick)
        self.vocab, self.dim, self.steps = (500, 8, 6) if quick else (100_000, 64, 40)

    def data(self, rng):
        ids = rng.integers(0, self.vocab, (self.batch, self.steps)).astype(np.int64)
        lens = rng.integers(1, self.steps + 1, self.batch).astype(np.int64)
        return ids, lens, self.labels(rng)

    def core_model(self):
        return _Bag(self.vocab, self.dim)

    def core_forward(self, model, ids, lens):
        return model(core.to_tensor(ids), core.to_tensor(lens))

    def torch_model(self, ours):
        import torch  # noqa: PLC0415

        model = torch.nn.ModuleDict({"emb": torch.nn.Embedding(self.vocab, self.dim, sparse=True),
                                     "fc": torch.nn.Linear(self.dim, 10)})
        copy_weights(ours, model, linear_weights(ours))
        return model

    def torch_forward(self, model, ids, lens):
        import torch  # noqa: PLC0415

        lens = self.torch_tensor(lens)
        positions = torch.arange(ids.shape[1], device=lens.device)
        mask = (positions[None, :] < lens[:, None]).float()[:, :, None]
        pooled = (model["emb"](self.torch_tensor(ids)) * mask).sum(1) / lens[:, None].float()
        return model["fc"](pooled)


class _Block(nn.Layer):
    def __init__(self, dim: int, heads: int, ffn: int):
        super().__init__()
        self.ln1, self.qkv = nn.LayerNorm(dim), nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.ln2, self.fc1, self.fc2 = nn.LayerNorm(dim), nn.Linear(dim, ffn), nn.Linear(ffn, dim)
        self.head = nn.Linear(dim, 10)
        self.heads = heads

    def forward(self, x):
        b, t, d = x.shape
        dh = d // self.heads
        qkv = core.transpose(core.reshape(self.qkv(self.ln1(x)), [b, t, 3, self.heads, dh]),
                             [2, 0, 3, 1, 4])
        scores = core.matmul(qkv[0], qkv[1], transpose_y=True) * (1.0 / math.sqrt(dh))
        att = core.matmul(F.softmax(scores, axis=-1), qkv[2])
        x = x + self.proj(core.reshape(core.transpose(att, [0, 2, 1, 3]), [b, t, d]))
        x = x + self.fc2(F.gelu(self.fc1(self.ln2(x)), approximate=True))
        return self.head(core.mean(x, axis=1))


class Transformer(Workload):
    """One pre-norm transformer block (d 128, 4 heads, FFN 512, GELU) over T = 64 tokens,
    mean-pooled -> Linear; attention as matmul + softmax in both libraries."""

    def __init__(self, batch: int, quick: bool = False):
        super().__init__(batch, quick)
        self.dim, self.heads, self.ffn, self.steps = (16, 2, 32, 8) if quick else (128, 4, 512, 64)

    def data(self, rng):
        x = rng.standard_normal((self.batch, self.steps, self.dim)).astype(np.float32)
        return x, self.labels(rng)

    def core_model(self):
        return _Block(self.dim, self.heads, self.ffn)

    def torch_model(self, ours):
        import torch  # noqa: PLC0415

        tnn = torch.nn
        d, h = self.dim, self.heads

        class Block(tnn.Module):
            def __init__(self, ffn):
                super().__init__()
                self.ln1, self.qkv, self.proj = tnn.LayerNorm(d), tnn.Linear(d, 3 * d), \
                    tnn.Linear(d, d)
                self.ln2, self.fc1, self.fc2 = tnn.LayerNorm(d), tnn.Linear(d, ffn), \
                    tnn.Linear(ffn, d)
                self.head, self.gelu = tnn.Linear(d, 10), tnn.GELU(approximate="tanh")

            def forward(self, x):
                b, t, _ = x.shape
                q, k, v = self.qkv(self.ln1(x)).reshape(b, t, 3, h, d // h).permute(2, 0, 3, 1, 4)
                att = torch.softmax(q @ k.transpose(-1, -2) * (1.0 / math.sqrt(d // h)), -1) @ v
                x = x + self.proj(att.transpose(1, 2).reshape(b, t, d))
                x = x + self.fc2(self.gelu(self.fc1(self.ln2(x))))
                return self.head(x.mean(1))

        model = Block(self.ffn)
        copy_weights(ours, model, linear_weights(ours))
        return model
