"""Hierarchical sigmoid, Paddle's ``hsigmoid_loss``: a binary tree over the classes, one logistic
decision per internal node on a class's path, so a step costs O(log classes) instead of a full
softmax.

With the default tree (no ``path_table``), Paddle's ``SimpleCode`` numbers the nodes as a heap:
class ``label`` is leaf ``c = label + num_classes``; its path has ``bit_length(c) - 1`` nodes,
node ``j`` is ``(c >> (j + 1)) - 1`` (a row of ``weight``) and its target bit is ``(c >> j) & 1``.
A custom tree gives each sample's node rows (``path_table``, padded with negative values after the
path) and bits (``path_code``).

For each path node, ``z = clip(x . weight[node] + bias[node], -40, 40)`` and the loss is
``sum softplus(z) - sum (bit * z)``. As Paddle's kernel does, the positions past a shorter path
(the rows of the [batch, code_length] matrix that the path leaves unused) are zeros whose
``softplus(0) = log 2`` is still added: a constant that shifts the loss of short-path classes
(Paddle's TODO says so) and has no gradient.
"""
from __future__ import annotations

import numpy as np

from core import backend
from core.tensor import Tensor, apply, arrays_to_tensors

__all__ = ["hsigmoid_loss"]

_CLIP = 40.0  # Paddle clips the node logits to [-40, 40] before the softplus


def hsigmoid_loss(input: Tensor, label: Tensor, num_classes: int, weight: Tensor,  # noqa: A002
                  bias: Tensor | None = None, path_table: Tensor | None = None,
                  path_code: Tensor | None = None, is_sparse: bool = False,
                  name: str | None = None) -> Tensor:
    """Hierarchical sigmoid loss (``paddle.nn.functional.hsigmoid_loss(input, label,
    num_classes, weight, bias=None, path_table=None, path_code=None, is_sparse=False)``).

    ``input`` [N, D] features; ``label`` [N] or [N, 1] integer classes in [0, num_classes);
    ``weight`` [num_classes - 1, D] (default tree; a custom tree needs as many rows as its
    largest node index + 1); ``bias`` [num_classes - 1, 1] or None. Returns [N, 1]::

        loss[i] = sum_j softplus(z[i, j]) - sum_{j on the path} bit[i, j] * z[i, j]
        z[i, j] = clip(input[i] . weight[node[i, j]] + bias[node[i, j]], -40, 40)  (0 off-path)

    The off-path zeros add ``log 2`` each, as in Paddle (see the module notes). The gradient of
    ``z`` is ``sigmoid(z) - bit`` on the path, not masked where the clip is active (Paddle's
    grad kernel). ``is_sparse`` (a sparse weight gradient in Paddle) changes nothing here.
    """
    del name, is_sparse
    input, label, weight = arrays_to_tensors(input, label, weight)  # noqa: A001
    _check_float("input", input, 2)
    _check_float("weight", weight, 2)
    if input.shape[1] != weight.shape[1]:
        raise ValueError(f"hsigmoid_loss: weight has {weight.shape[1]} columns but input has "
                         f"{input.shape[1]} features; weight must be [nodes, {input.shape[1]}]")
    n = input.shape[0]
    labels = _labels(label, n)
    if path_table is None:
        if isinstance(num_classes, bool) or not isinstance(num_classes, int) or num_classes < 2:
            raise ValueError(f"hsigmoid_loss: num_classes={num_classes!r} must be an int >= 2")
        if n and (labels.min() < 0 or labels.max() >= num_classes):
            bad = labels[(labels < 0) | (labels >= num_classes)][0]
            raise ValueError(f"hsigmoid_loss: label value {int(bad)} is outside "
                             f"[0, num_classes={num_classes})")
        nodes, bits, on_path = _default_tree(labels, num_classes)
    else:
        if path_code is None:
            raise ValueError("hsigmoid_loss: path_code is required with path_table (a custom "
                             "tree needs both)")
        nodes, bits, on_path = _custom_tree(path_table, path_code, n)
    rows = weight.shape[0]
    if on_path.any() and nodes[on_path].max() >= rows:
        raise ValueError(f"hsigmoid_loss: the tree uses node {int(nodes[on_path].max())} but "
                         f"weight has {rows} rows; use weight of shape [num_classes - 1, D] "
                         "(default tree) or [number of nodes, D]")
    parents = (input, weight) if bias is None else (input, weight, _bias(bias, rows))
    return _forward(parents, nodes, bits, on_path)


def _check_float(what: str, t: Tensor, ndim: int) -> None:
    if t.ndim != ndim or t.dtype.kind != "f":
        raise ValueError(f"hsigmoid_loss: {what} must be a {ndim}-D floating tensor, got shape "
                         f"{t.shape} of {t.dtype}")


def _labels(label: Tensor, n: int) -> np.ndarray:
    if label.dtype.kind not in "iu" or label.size != n or label.ndim not in (1, 2) \
            or (label.ndim == 2 and label.shape[1] != 1):
        raise ValueError(f"hsigmoid_loss: label must be an integer tensor of shape [{n}] or "
                         f"[{n}, 1], got shape {label.shape} of {label.dtype}")
    return backend.to_numpy(label.data).reshape(n).astype(np.int64)


def _bias(bias, rows: int) -> Tensor:
    (bias,) = arrays_to_tensors(bias)
    if bias.dtype.kind != "f" or bias.size != rows or bias.ndim not in (1, 2):
        raise ValueError(f"hsigmoid_loss: bias must be a floating tensor of shape [{rows}, 1], "
                         f"got shape {bias.shape} of {bias.dtype}")
    return bias


def _default_tree(labels: np.ndarray, num_classes: int):
    """(nodes, bits, on_path) [N, code_length] of Paddle's SimpleCode heap numbering."""
    code_length = int(num_classes - 1).bit_length()
    leaf = labels + num_classes
    depth = np.array([int(c).bit_length() - 1 for c in leaf], dtype=np.int64)
    j = np.arange(code_length)
    on_path = j[None, :] < depth[:, None]
    nodes = np.where(on_path, (leaf[:, None] >> (j + 1)) - 1, 0)
    bits = (leaf[:, None] >> j) & 1
    return nodes, bits, on_path


def _custom_tree(path_table, path_code, n: int):
    """(nodes, bits, on_path) of a custom tree: a path ends at its first negative node."""
    path_table, path_code = arrays_to_tensors(path_table, path_code)
    for what, t in (("path_table", path_table), ("path_code", path_code)):
        if t.ndim != 2 or t.shape[0] != n or t.dtype.kind not in "iu":
            raise ValueError(f"hsigmoid_loss: {what} must be an integer tensor of shape "
                             f"[{n}, code_length], got shape {t.shape} of {t.dtype}")
    if path_code.shape != path_table.shape:
        raise ValueError(f"hsigmoid_loss: path_code shape {path_code.shape} must equal "
                         f"path_table shape {path_table.shape}")
    table = backend.to_numpy(path_table.data).astype(np.int64)
    on_path = np.cumprod(table >= 0, axis=1).astype(bool)  # up to the first negative entry
    nodes = np.where(on_path, table, 0)
    bits = backend.to_numpy(path_code.data).astype(np.int64)
    return nodes, bits, on_path


def _forward(parents, nodes, bits, on_path) -> Tensor:
    x, w = parents[0].data, parents[1].data
    xp = backend.array_module(x)
    dtype = x.dtype
    idx = xp.asarray(nodes)
    mask = xp.asarray(on_path.astype(dtype))
    bit = xp.asarray(bits.astype(dtype)) * mask
    rows = w[idx]  # [N, L, D]: the weight row of each path node
    pre = xp.einsum("nld,nd->nl", rows, x)
    if len(parents) == 3:
        pre = pre + parents[2].data.reshape(-1)[idx]
    z = xp.clip(pre * mask, -_CLIP, _CLIP)
    softplus = xp.logaddexp(dtype.type(0), z)  # off-path zeros give log 2 (Paddle's kernel)
    out = (softplus.sum(axis=1) - (bit * z).sum(axis=1)).reshape(-1, 1).astype(dtype)

    def backward(g):
        gz = (g.reshape(-1, 1) * (1 / (1 + xp.exp(-z)) - bit) * mask).astype(dtype)
        gx = xp.einsum("nl,nld->nd", gz, rows)
        gw = xp.zeros_like(w)
        backend.add_at(gw, idx.reshape(-1),
                       (gz[:, :, None] * x[:, None, :]).reshape(-1, w.shape[1]))
        grads = [gx, gw]
        if len(parents) == 3:
            b = parents[2].data
            gb = xp.zeros(b.size, dtype=b.dtype)
            backend.add_at(gb, idx.reshape(-1), gz.reshape(-1))
            grads.append(gb.reshape(b.shape))
        return tuple(grads)

    return apply(out, parents, backward, "hsigmoid_loss")
