"""``einsum`` (a tensor contraction) with a gradient derived as another einsum for each operand.

For ``out = einsum("A,B,C->O")`` the gradient of operand B is ``einsum("O,A,C->B'")`` of the output
gradient and the other operands, where B' keeps B's letters that occur in O or in another operand.
A letter that occurs only in B was summed away, so each element along it receives the same
gradient: B' is broadcast back to B's shape. This covers matmul-like, batched, outer and
multi-operand contractions, sums and transposes.

Paddle's notation on top of that (``paddle.einsum`` 3.3.1): labels are case-insensitive letters;
``...`` names the unlabelled dimensions, which broadcast (right-aligned) between operands and come
first in an implicit output; a labelled dimension of size 1 broadcasts against a larger one; a
letter repeated within one operand takes its diagonal. Those are rewritten, before the
contraction, into operands whose letters are distinct and agree in size (``_Operand``), so an
equation that needs none of it runs the contraction directly.
"""
from __future__ import annotations

import functools
import string
from collections import Counter

from core import autocast, backend
from core.arithmetic import conj_if_complex
from core.ops import as_input
from core.tensor import Tensor, apply

__all__ = ["einsum"]

_LETTERS = frozenset(string.ascii_lowercase)
# Labels are lower-cased (Paddle's are case-insensitive), so upper-case letters are free to name
# the dimensions that '...' stands for.
_ELLIPSIS_LETTERS = string.ascii_uppercase


class _Operand:
    """How one operand's term maps onto the contraction: ``letters`` names every dimension
    (ellipsis dimensions included, repeats allowed); ``term`` is what the contraction sees:
    the distinct letters in order of first appearance (a repeat takes the diagonal), less those
    of a size-1 dimension that broadcasts against a larger one (``dropped``)."""

    def __init__(self, letters: str, shape: tuple, sizes: dict[str, int]):
        self.letters, self.shape = letters, tuple(shape)
        self.unique = "".join(dict.fromkeys(letters))
        own = dict(zip(letters, shape))
        self.dropped = frozenset(c for c in self.unique if own[c] == 1 and sizes[c] != 1)
        self.term = "".join(c for c in self.unique if c not in self.dropped)
        self.unique_shape = tuple(own[c] for c in self.unique)

    @property
    def rewritten(self) -> bool:
        return self.term != self.letters

    def forward(self, xp, a):
        if self.unique != self.letters:  # the diagonal along each repeated letter
            a = xp.einsum(self.letters + "->" + self.unique, a)
        return xp.ascontiguousarray(a).reshape([n for c, n in zip(self.unique, self.unique_shape)
                                                if c not in self.dropped])

    def backward(self, xp, g):
        g = g.reshape(self.unique_shape)  # the dropped size-1 dimensions back
        if self.unique == self.letters:
            return g
        # the diagonal's gradient: g on the diagonal, zeros elsewhere. Index arrays (one per
        # dimension, each an arange along its letter's axis of g) broadcast to g's shape.
        full = xp.zeros(self.shape, dtype=g.dtype)
        index = tuple(xp.arange(n).reshape([-1 if u == c else 1 for u in self.unique])
                      for c, n in zip(self.letters, self.shape))
        full[index] = g
        return full


def _fail(equation, why: str):
    raise ValueError(f"einsum: invalid equation '{equation}': {why}")


def _split(equation, n_operands: int) -> tuple[list[str], str | None]:
    """The input terms and the output term (None without '->') of the lower-cased equation,
    checked in Paddle's order (the shapes are checked next, by ``_expand``)."""
    eq = equation.replace(" ", "").lower()
    if eq.count("->") > 1:
        _fail(equation, "it has more than one '->' (multiple `->` were found)")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != n_operands:
        _fail(equation, f"it names {len(terms)} operand(s) but {n_operands} were given (the "
                        f"number of operands is {n_operands}, but found {len(terms)} segments)")
    for term, what in [(term, "term") for term in terms] + [(rhs, "output")]:
        for c in term.replace(".", ""):
            if c not in _LETTERS:
                _fail(equation, f"{c!r} is not a valid label; labels are the letters a-z "
                                "(case-insensitive), between ',', '->' and '...'")
        if "." in (term.replace("...", "", 1) if what == "term" else term.replace("...", "")):
            _fail(equation, f"in {what} '{term}', `.` is found outside of an ellipsis ('...')")
    return terms, (rhs if arrow else None)


def _expand(equation, terms: list[str], shapes: list[tuple]) -> tuple[list[str], str]:
    """Each term with its '...' replaced by letters for the dimensions it stands for (aligned
    on the right: an operand with fewer of them broadcasts), and the letters of the widest '...'."""
    widths = []
    for i, (term, shape) in enumerate(zip(terms, shapes)):
        named = len(term.replace("...", ""))
        if named > len(shape) or ("..." not in term and named != len(shape)):
            extra = " besides '...'" if "..." in term else ""
            _fail(equation, f"term '{term}' has {named} letters{extra} but operand {i} has shape "
                            f"{list(shape)} (the label string misses dimensions)")
        widths.append(len(shape) - named)
    width = max(widths)
    if width > len(_ELLIPSIS_LETTERS):
        _fail(equation, f"'...' stands for {width} dimensions; at most "
                        f"{len(_ELLIPSIS_LETTERS)} are supported")
    ellipsis = _ELLIPSIS_LETTERS[:width]
    return ([term.replace("...", ellipsis[width - w:]) for term, w in zip(terms, widths)],
            ellipsis)


def _sizes(equation, letters: list[str], shapes: list[tuple]) -> dict[str, int]:
    """Each letter's size; a size 1 broadcasts against any other, as Paddle."""
    sizes: dict[str, int] = {}
    for i, (term, shape) in enumerate(zip(letters, shapes)):
        own: dict[str, int] = {}
        for c, n in zip(term, shape):
            name = f"letter '{c}'" if c in _LETTERS else "a dimension of '...'"
            if own.setdefault(c, n) != n:
                _fail(equation, f"{name} repeats in operand {i} (a diagonal) with sizes "
                                f"{own[c]} and {n}; a diagonal needs equal sizes")
            known = sizes.setdefault(c, n)
            if n != known and 1 not in (n, known):
                _fail(equation, f"{name} has size {known} in one operand and {n} in operand "
                                f"{i}, which do not broadcast")
            sizes[c] = n if known == 1 else known  # 1 against 0 is 0
    return sizes


@functools.lru_cache(maxsize=256)
def _parse(equation: str, shapes: tuple) -> tuple[tuple[_Operand, ...], str, dict[str, int]]:
    """Validate the equation against the operand shapes: (operands, output term, sizes).
    Cached: a training loop calls einsum with the same equation and shapes at every step, and
    parsing costs as much as a small contraction (the results are never mutated)."""
    terms, rhs = _split(equation, len(shapes))
    letters, ellipsis = _expand(equation, terms, shapes)
    if rhs is not None and any("..." in term for term in terms) and "..." not in rhs:
        _fail(equation, f"missing ellipsis in output labels: output '{rhs}' must contain '...' "
                        "because an input term does")
    sizes = _sizes(equation, letters, shapes)
    if rhs is None:  # implicit mode, as Paddle: '...' first, then the letters used once, sorted
        counts = Counter("".join(terms).replace(".", "").replace(",", ""))
        out = ellipsis + "".join(sorted(c for c, n in counts.items() if n == 1))
    else:
        out = rhs.replace("...", ellipsis)
        if len(set(out)) != len(out) or set(out) - set(sizes):
            # Paddle 3.3.1 documents a repeated output letter as invalid (its kernel
            # writes a diagonal); a letter that no input has crashes its kernel
            _fail(equation, f"output '{rhs}' must use distinct letters that appear in the inputs")
    return tuple(_Operand(t, s, sizes) for t, s in zip(letters, shapes)), out, sizes


def _rewrite(x: Tensor, operand: _Operand) -> Tensor:
    """``x`` as the contraction sees it: diagonals taken, broadcast size-1 dimensions dropped."""
    xp = backend.array_module(x.data)
    return apply(operand.forward(xp, x.data), (x,), lambda g: (operand.backward(xp, g),),
                 "einsum")


def einsum(equation: str, *operands) -> Tensor:
    """Paddle's ``einsum(equation, *operands)``: Einstein summation over ``operands``.

    As Paddle 3.3.1: labels are case-insensitive letters; ``...`` stands for the unlabelled
    dimensions, which broadcast between operands (right-aligned, size 1 against any size) and,
    when an input has it, must appear in an explicit output; without ``->`` the output is
    ``...`` followed by the letters used once, sorted; a labelled dimension of size 1
    broadcasts; a letter repeated within one operand takes its diagonal. Differentiable in
    every operand."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    xs = [as_input(t, "einsum", f"operands[{i}]") for i, t in enumerate(operands)]
    if not xs:
        raise ValueError("einsum: at least one operand is required")
    if autocast.active:  # inside paddle.amp.auto_cast: white-listed, float16 inputs
        xs = autocast.cast_inputs("einsum", *xs)
    if not isinstance(equation, str):  # before the cache, which needs a hashable key
        raise TypeError(f"einsum: equation must be a str such as 'ij,jk->ik', got {equation!r}")
    parsed, out, sizes = _parse(equation, tuple(t.data.shape for t in xs))
    xs = [_rewrite(t, p) if p.rewritten else t for t, p in zip(xs, parsed)]
    terms = [p.term for p in parsed]
    xp = backend.array_module(xs[0].data)
    datas = [t.data for t in xs]
    optimize = len(xs) > 1  # contraction order and BLAS for products; none needed for one

    def run(inputs: list[str], target: str, arrays: list):
        return xp.asarray(xp.einsum(",".join(inputs) + "->" + target, *arrays, optimize=optimize))

    def grad_for(k: int, g):
        others = terms[:k] + terms[k + 1:]
        reached = set(out).union(*others)
        kept = "".join(c for c in terms[k] if c in reached)
        # conj: the complex gradient convention (a no-op on real operands)
        grad = run([out] + others, kept,
                   [g] + [conj_if_complex(d) for d in datas[:k] + datas[k + 1:]])
        if kept != terms[k]:  # letters summed only inside operand k: broadcast back
            grad = grad.reshape([sizes[c] if c in kept else 1 for c in terms[k]])
            grad = xp.broadcast_to(grad, datas[k].shape)
        return grad

    def backward(g):
        return tuple(None if t.stop_gradient else grad_for(k, g) for k, t in enumerate(xs))

    return apply(run(terms, out, datas), tuple(xs), backward, "einsum")
