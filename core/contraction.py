"""``einsum`` (a tensor contraction) with a gradient derived as another einsum for each operand.

For ``out = einsum("A,B,C->O")`` the gradient of operand B is ``einsum("O,A,C->B'")`` of the output
gradient and the other operands, where B' keeps B's letters that occur in O or in another operand.
A letter that occurs only in B was summed away, so each element along it receives the same
gradient: B' is broadcast back to B's shape. This covers matmul-like, batched, outer and
multi-operand contractions, sums and transposes. Unsupported (with a clear error): ellipsis
(``...``) and a letter repeated within one operand (diagonals and traces).
"""
from __future__ import annotations

import string

from core import autocast, backend
from core.arithmetic import conj_if_complex
from core.ops import as_input
from core.tensor import Tensor, apply

__all__ = ["einsum"]

_LETTERS = frozenset(string.ascii_letters)


def _parse(equation: str, shapes: list[tuple]) -> tuple[list[str], str, dict[str, int]]:
    """Validate the equation against the operand shapes: (input terms, output term, sizes)."""
    if not isinstance(equation, str):
        raise TypeError(f"einsum: equation must be a str such as 'ij,jk->ik', got {equation!r}")
    eq = equation.replace(" ", "")
    if "." in eq:
        raise ValueError(f"einsum: '{equation}' uses an ellipsis ('...'), which is not supported; "
                         "name every dimension with a letter")
    if eq.count("->") > 1:
        raise ValueError(f"einsum: '{equation}' has more than one '->'")
    lhs, arrow, out = eq.partition("->")
    terms = lhs.split(",")
    if set(lhs + out) - _LETTERS - {","}:
        raise ValueError(f"einsum: '{equation}' may only contain letters a-z, A-Z, ',' and '->'")
    if len(terms) != len(shapes):
        raise ValueError(f"einsum: '{equation}' names {len(terms)} operand(s) but "
                         f"{len(shapes)} were given")
    sizes: dict[str, int] = {}
    for i, (term, shape) in enumerate(zip(terms, shapes)):
        if len(term) != len(shape):
            raise ValueError(f"einsum: term '{term}' of '{equation}' has {len(term)} letters but "
                             f"operand {i} has shape {list(shape)}")
        if len(set(term)) != len(term):
            raise ValueError(f"einsum: term '{term}' of '{equation}' repeats a letter (a diagonal "
                             "or trace), which is not supported")
        for letter, n in zip(term, shape):
            if sizes.setdefault(letter, n) != n:
                raise ValueError(f"einsum: letter '{letter}' of '{equation}' has size "
                                 f"{sizes[letter]} in one operand and {n} in operand {i}")
    if not arrow:  # implicit mode, as numpy: letters used once, in alphabetical order
        out = "".join(sorted(c for c in sizes if lhs.count(c) == 1))
    if len(set(out)) != len(out) or set(out) - set(sizes):
        raise ValueError(f"einsum: output '{out}' of '{equation}' must use distinct letters that "
                         "appear in the inputs")
    return terms, out, sizes


def einsum(equation: str, *operands) -> Tensor:
    """Einstein summation over ``operands`` as described by ``equation`` (Paddle/numpy syntax)."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    xs = [as_input(t, "einsum", f"operands[{i}]") for i, t in enumerate(operands)]
    if not xs:
        raise ValueError("einsum: at least one operand is required")
    if autocast.active:  # inside paddle.amp.auto_cast: white-listed, float16 inputs
        xs = autocast.cast_inputs("einsum", *xs)
    terms, out, sizes = _parse(equation, [t.data.shape for t in xs])
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
