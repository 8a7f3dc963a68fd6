"""``core.einsum`` with Paddle 3.3.1's notation beyond plain letters: '...' (broadcast, implicit
output, different ranks), diagonals, size-1 broadcasting and case-insensitive labels.

Values and gradients are replayed from real Paddle (tests/core/data/paddle331/misc/einsum_gcd.npz,
written by make_einsum_gcd_fixtures.py beside it), checked by float64 finite differences and,
where torch has the same equation, against torch.einsum.
"""
import os

import numpy as np
import pytest

import core
from core import contraction
from tests.gradcheck import check_grad

FIXTURE = os.path.join(os.path.dirname(__file__), "data", "paddle331", "misc", "einsum_gcd.npz")
DATA = np.load(FIXTURE)
CASES = sorted({int(k.split("/")[1]) for k in DATA.files if k.startswith("einsum/")})


def operands(case: int) -> list[np.ndarray]:
    out, k = [], 0
    while f"einsum/{case}/x{k}" in DATA:
        out.append(DATA[f"einsum/{case}/x{k}"])
        k += 1
    return out


def equation(case: int) -> str:
    return str(DATA[f"einsum/{case}/eq"])


@pytest.mark.parametrize("case", CASES, ids=[equation(c) for c in CASES])
def test_einsum_matches_paddle(case):
    key = f"einsum/{case}"
    xs = [core.to_tensor(a, stop_gradient=False) for a in operands(case)]
    out = core.einsum(equation(case), *xs)
    want = DATA[f"{key}/out"]
    assert out.shape == list(want.shape) and out.dtype == want.dtype
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-12, atol=1e-12)
    (out * core.to_tensor(DATA[f"{key}/w"])).sum().backward()
    for k, x in enumerate(xs):
        if f"{key}/dx{k}" in DATA:  # Paddle's backward fails on two of the cases
            np.testing.assert_allclose(x.gradient(), DATA[f"{key}/dx{k}"], rtol=1e-12,
                                       atol=1e-12, err_msg=f"gradient of operand {k}")


@pytest.mark.parametrize("case", CASES, ids=[equation(c) for c in CASES])
def test_einsum_gradients_by_finite_differences(case):
    arrays = operands(case)
    if any(a.size == 0 for a in arrays):
        pytest.skip("no element to perturb")
    check_grad(lambda *xs: core.einsum(equation(case), *xs), *arrays)


# torch.einsum takes the same notation except Paddle's extras: case-insensitive labels and a
# labelled size-1 dimension that broadcasts against a larger one
TORCH_CASES = [c for c in CASES
               if equation(c) == equation(c).lower() and equation(c) not in ("ij,jk", "Ab...,Ab...")
               and not (equation(c) == "ij,ij->ij")]


@pytest.mark.parametrize("case", TORCH_CASES, ids=[equation(c) for c in TORCH_CASES])
def test_einsum_matches_torch(case):
    torch = pytest.importorskip("torch")
    arrays = operands(case)
    tx = [torch.tensor(a, requires_grad=True) for a in arrays]
    want = torch.einsum(equation(case), *tx)
    xs = [core.to_tensor(a, stop_gradient=False) for a in arrays]
    out = core.einsum(equation(case), *xs)
    np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=1e-12, atol=1e-12)
    w = np.random.default_rng(case).standard_normal(want.shape)
    (want * torch.tensor(w)).sum().backward()
    (out * core.to_tensor(w)).sum().backward()
    for x, t in zip(xs, tx):
        np.testing.assert_allclose(x.gradient(), t.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_ellipsis_broadcasts_right_aligned_and_comes_first_in_an_implicit_output():
    a, b = np.ones((3, 1, 2, 4)), np.ones((5, 4, 6))
    assert core.einsum("...ij,...jk", core.to_tensor(a), core.to_tensor(b)).shape == [3, 5, 2, 6]
    out = core.einsum("ba...,...c", core.ones([2, 3, 4]), core.ones([4, 5]))
    assert out.shape == [4, 3, 2, 5]  # '...', then a, b, c
    assert core.einsum("...ij,jk->...ik", core.ones([2, 3]), core.ones([3, 2])).shape == [2, 2]
    empty = core.einsum("...ij,...jk->...ik", core.ones([2, 0, 3]), core.ones([1, 3, 4]))
    assert empty.shape == [2, 0, 4]  # as Paddle
    assert core.einsum("...i,...i", core.ones([1, 3]), core.ones([0, 3])).shape == [0]


def test_labels_are_case_insensitive_and_size_one_labels_broadcast():
    x, y = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4)
    out = core.einsum("IJ,jK->ik", core.to_tensor(x), core.to_tensor(y))
    np.testing.assert_allclose(out.numpy(), x @ y)
    row = np.arange(4.0).reshape(1, 4)  # j has size 1 here and 3 in x: it broadcasts
    out = core.einsum("ij,jk", core.to_tensor(x), core.to_tensor(row))
    np.testing.assert_allclose(out.numpy(), np.outer(x.sum(1), row[0]))


def test_a_single_gradient_flows_through_a_diagonal_and_a_broadcast():
    x = core.to_tensor(np.arange(18.0).reshape(2, 3, 3), stop_gradient=False)
    v = core.to_tensor(np.ones((1, 3)), stop_gradient=False)
    core.einsum("...ii,...i->...", x, v).sum().backward()
    want = np.zeros((2, 3, 3))
    want[:, range(3), range(3)] = 1
    np.testing.assert_array_equal(x.gradient(), want)
    np.testing.assert_array_equal(v.gradient(), np.diagonal(np.arange(18.0).reshape(2, 3, 3),
                                                            axis1=1, axis2=2).sum(0, keepdims=True))


def test_equations_without_rewriting_skip_it():
    parsed, out, _ = contraction._parse("bij,bjk->bik", ((2, 3, 4), (2, 4, 5)))
    assert out == "bik" and not any(p.rewritten for p in parsed)
    parsed, out, _ = contraction._parse("...ij,...jk", ((2, 3, 4), (2, 4, 5)))
    assert out == "Aik" and not any(p.rewritten for p in parsed)  # '...' is just letters
    parsed, _, _ = contraction._parse("...ij,...jk", ((1, 3, 4), (2, 4, 5)))
    assert [p.rewritten for p in parsed] == [True, False]  # the size-1 '...' is dropped


@pytest.mark.parametrize("equation,shapes,match", [
    # Paddle 3.3.1's messages (AssertionError there, ValueError in core), quoted after a colon
    ("...ij,...jk->ik", [(3, 1, 3, 4), (2, 4, 5)], "missing ellipsis in output labels"),
    ("...ij->ji", [(2, 3)], "missing ellipsis in output labels"),
    ("...->", [(2, 3)], "missing ellipsis in output labels"),
    ("..,ij", [(2, 3), (3, 3)], r"`\.` is found outside of an ellipsis"),
    ("....ij->ij", [(2, 3)], r"`\.` is found outside of an ellipsis"),
    ("i.j->ij", [(2, 3)], r"`\.` is found outside of an ellipsis"),
    ("...ij->...i.", [(2, 3)], r"output '\.\.\.i\.', `\.` is found outside of an ellipsis"),
    ("ijk->i", [(2, 3)], "misses dimensions"),
    ("i...jk->i", [(2, 3)], r"3 letters besides '\.\.\.' but operand 0 has shape \[2, 3\]"),
    ("i", [(2, 3)], "misses dimensions"),
    ("ij,jk->ik", [(2, 3)], "the number of operands is 1, but found 2 segments"),
    ("ij->i->j", [(2, 3)], "multiple `->` were found"),
    ("i1->i", [(2, 3)], "'1' is not a valid label"),
    ("ij,jk->i1", [(2, 3), (3, 4)], "'1' is not a valid label"),
    # core's (Paddle's kernel fails with an internal message or crashes)
    ("...ij,...jk->...ik", [(2, 3, 4), (3, 4, 5)], "a dimension of '...' has size 2 in one "
                                                   "operand and 3 in operand 1"),
    ("ij,jk", [(2, 3), (4, 4)], "letter 'j' has size 3 in one operand and 4 in operand 1"),
    ("iij->j", [(3, 2, 2)], "letter 'i' repeats in operand 0 .* sizes 3 and 2"),
    ("ij->x", [(2, 3)], "must use distinct letters that appear in the inputs"),
    ("ij->ii", [(2, 3)], "must use distinct letters"),
    ("...ij->...ij...", [(4, 2, 3)], "must use distinct letters"),
])
def test_einsum_errors(equation, shapes, match):
    with pytest.raises(ValueError, match=match) as info:
        core.einsum(equation, *[core.ones(list(s)) for s in shapes])
    assert f"einsum: invalid equation '{equation}'" in str(info.value)


def test_einsum_type_errors():
    with pytest.raises(TypeError, match="equation must be a str"):
        core.einsum(["ij"], core.ones([2, 2]))
    with pytest.raises(ValueError, match="at least one operand"):
        core.einsum("...")


def test_a_repeated_ellipsis_of_no_dimension_is_accepted_as_paddle():
    out = core.einsum("...ij->...ij...", core.to_tensor(np.arange(6.0).reshape(2, 3)))
    np.testing.assert_array_equal(out.numpy(), np.arange(6.0).reshape(2, 3))
