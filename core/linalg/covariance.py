"""paddle.linalg's ``cov`` (numpy.cov's weights and ddof) and ``corrcoef``, built from
differentiable ops (matmul, sum, sqrt, clip), which carry the gradients."""
from __future__ import annotations

from core import ops as _ops  # sum, sqrt, clip: sum is Python's name in this module
from core.arithmetic import matmul
from core.linalg._common import _xp
from core.manipulation import diagonal, reshape, transpose
from core.ops import as_input
from core.tensor import Tensor

__all__ = ["corrcoef", "cov"]


def cov(x, rowvar: bool = True, ddof: bool = True, fweights=None, aweights=None,
        name: str | None = None) -> Tensor:
    """The covariance matrix of the variables in x (rows are variables with ``rowvar``, else
    columns), as numpy.cov: with weights w = fweights * aweights, mean = sum(w x) / sum(w) and
    cov = (x - mean) w (x - mean)^T / (sum(w) - ddof * sum(w * aweights) / sum(w)) (ddof True
    subtracts 1 for unweighted data). Built from differentiable ops."""
    del name
    total = _ops.sum
    x = as_input(x, "cov")
    if x.ndim > 2 or x.data.dtype.kind != "f":
        raise ValueError(f"cov: x must be a floating 1-D or 2-D tensor, got shape {x.shape} "
                         f"and dtype {x.dtype}")
    obs = reshape(x, [1, -1]) if x.ndim < 2 else (x if rowvar else transpose(x, [1, 0]))
    count = obs.shape[1]
    xp = _xp(x.data)
    w = None
    for arg, weights, kinds in (("fweights", fweights, "iu"), ("aweights", aweights, "fiu")):
        if weights is None:
            continue
        wt = as_input(weights, "cov", arg)
        if wt.ndim != 1 or wt.shape[0] != count or wt.data.dtype.kind not in kinds:
            raise ValueError(f"cov: {arg} must be a 1-D {'integer' if kinds == 'iu' else ''} "
                             f"tensor of {count} observations, got shape {wt.shape}")
        if bool((wt.data < 0).any()):
            raise ValueError(f"cov: {arg} must be non-negative")
        wt = Tensor(wt.data.astype(x.dtype))
        w = wt if w is None else w * wt
    if w is None:
        w = Tensor(xp.ones(count, dtype=x.dtype))
    w_sum = total(w)
    mean = total(obs * w, axis=1, keepdim=True) / w_sum
    centred = obs - mean
    if not ddof:
        fact = w_sum
    elif aweights is None:
        fact = w_sum - 1
    else:
        fact = w_sum - total(w * Tensor(as_input(aweights, "cov", "aweights").data.astype(
            x.dtype))) / w_sum
    out = matmul(centred * w, transpose(centred, [1, 0])) / fact
    return reshape(out, []) if out.shape == [1, 1] else out


def corrcoef(x, rowvar: bool = True, name: str | None = None) -> Tensor:
    """Pearson correlation coefficients: cov(x) / sqrt(diag outer diag), clipped to [-1, 1]
    as numpy.corrcoef; differentiable (from cov)."""
    del name
    c = cov(x, rowvar)
    if c.ndim == 0:
        return c / c
    d = _ops.sqrt(diagonal(c))
    return _ops.clip(c / reshape(d, [-1, 1]) / reshape(d, [1, -1]), -1.0, 1.0)


Tensor.cov, Tensor.corrcoef = cov, corrcoef  # see the note at the end of core/ops.py
