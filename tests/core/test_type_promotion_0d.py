"""Paddle 3.3.1's dtype promotion of binary ops, 0-D tensors included, replayed on core.

tests/core/data/paddle331/misc/promotion.json holds what Paddle 3.3.1 gave for every pair of
11 dtypes, with x and y each 0-D or not, for the arithmetic and comparison operators and
functions and ``where`` (make_promotion_fixtures.py, beside it, says how each cell is coded).
A 0-D tensor meeting an N-D tensor of its kind acts as a Python number: ``float32[3] *
float64[]`` is float32 and ``int32[3] + int64[]`` int32.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import core
from tests.gradcheck import check_grad

FIXTURE = json.loads((Path(__file__).parent / "data" / "paddle331" / "misc" / "promotion.json")
                     .read_text(encoding="utf-8"))
DTYPES = FIXTURE["dtypes"]
OPERATORS = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
             "/": lambda a, b: a / b, "//": lambda a, b: a // b, "%": lambda a, b: a % b,
             "**": lambda a, b: a ** b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
             "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
             ">=": lambda a, b: a >= b}
OPERATOR_OF = {"add": "+", "subtract": "-", "multiply": "*", "divide": "/",
               "floor_divide": "//", "remainder": "%", "pow": "**", "equal": "==",
               "not_equal": "!=", "less_than": "<", "less_equal": "<=", "greater_than": ">",
               "greater_equal": ">="}
COMPARISONS = {"==", "!=", "<", "<=", ">", ">=", "equal", "not_equal", "less_than",
               "less_equal", "greater_than", "greater_equal"}
INTEGER_RESULTS = {"bool", "uint8", "int8", "int16", "int32", "int64"}
# Known differences, each tested on its own below: core refuses a complex remainder, whose
# values in Paddle are not remainders; bool % bool (and // and **) compute in int8, numpy's
# dtype, where Paddle has no kernel. core.where of an integer and complex64 is complex64, as
# Paddle's (numpy's would be complex128).
WHERE_INT_COMPLEX = {("int32", "complex64"), ("int64", "complex64"), ("complex64", "int32"),
                     ("complex64", "int64")}


def call(op: str, a, b):
    if op in OPERATORS:
        return OPERATORS[op](a, b)
    if op == "where":  # the condition alternates over the longer operand (3 if both are 0-D)
        n = a.shape[0] if a.ndim else b.shape[0] if b.ndim else 3
        return core.where(core.arange(n) % 2 == 0, a, b)
    return getattr(core, op)(a, b)


def operand(dtype: str, full: bool):
    """The fixture's operand: 2 (True for bool), of shape [3] or []."""
    return (core.ones([3] if full else [], dtype="float32") * 2).astype(dtype)


def outcome(op: str, dx: str, dy: str, kind: str) -> str:
    x_full, y_full = (part == "nd" for part in kind.split("_"))
    try:
        return str(call(op, operand(dx, x_full), operand(dy, y_full)).dtype)
    except TypeError:
        return "TypeError"


def cells(op: str, kind: str):
    for i, row in enumerate(FIXTURE["tables"][op][kind]):
        for j in range(len(DTYPES)):
            code = row[2 * j:2 * j + 2]
            picked = DTYPES[int(code[1], 16)] if code[0] in "=K" else None
            yield DTYPES[i], DTYPES[j], code[0], picked


def promote_types(dx: str, dy: str) -> str:
    """Paddle's promoteTypes table (two 0-D tensors of ``+``: no 0-D rule, no refusal)."""
    return next(picked for x, y, _, picked in cells("+", "0d_0d") if (x, y) == (dx, dy))


def refused_pair_result(op: str, dx: str, dy: str) -> str:
    """What core gives where Paddle refuses two N-D tensors of different kinds (int32 with
    int64, int64 with float32): Paddle's own promotion table (core.where's too), then the op's
    output rule."""
    dtype = promote_types(dx, dy)
    if op in COMPARISONS:
        return "bool"
    if op in ("/", "divide") and dtype in INTEGER_RESULTS:
        return "float32"
    return dtype


def expected(op: str, dx: str, dy: str, code: str, picked: str | None) -> set[str] | None:
    """The outcomes core may give for a cell; None for the known differences."""
    complex_pair = "complex" in dx + dy
    if op in ("%", "remainder") and complex_pair:
        return None
    if code == "=":
        return {picked}
    if code == "K":  # Paddle picked a dtype it has no CPU kernel for (float16, bool //)
        allowed = {picked, "TypeError"}
        return allowed | {"int8"} if dx == dy == "bool" else allowed
    return {refused_pair_result(op, dx, dy)}


@pytest.mark.parametrize("kind", FIXTURE["kinds"])
@pytest.mark.parametrize("op", list(FIXTURE["tables"]))
def test_result_dtypes_follow_paddle(op, kind):
    wrong = []
    for dx, dy, code, picked in cells(op, kind):
        allowed = expected(op, dx, dy, code, picked)
        if allowed is None:
            continue
        got = outcome(op, dx, dy, kind)
        if got not in allowed:
            wrong.append(f"{dx} {op} {dy}: core {got}, Paddle {code}{picked or ''}")
    assert not wrong, f"{op} ({kind}): " + "; ".join(wrong)


def test_the_fixture_covers_every_pair():
    assert FIXTURE["paddle"].startswith("3.3.1")
    assert len(FIXTURE["tables"]) == 29
    for op, kinds in FIXTURE["tables"].items():
        assert set(kinds) == {"nd_0d", "0d_nd", "0d_0d", "nd_nd"}, op
        for rows in kinds.values():
            assert len(rows) == len(DTYPES) and {len(r) for r in rows} == {2 * len(DTYPES)}


@pytest.mark.parametrize("pair", sorted(WHERE_INT_COMPLEX))
def test_where_of_integer_and_complex64_is_complex64(pair):
    assert outcome("where", *pair, "nd_nd") == "complex64"


@pytest.mark.parametrize("call_form", ["function", "operator"])
def test_complex_remainder_is_refused(call_form):
    x, y = core.to_tensor([5.5, -5.5]), core.to_tensor(2 + 0j)
    with pytest.raises(TypeError, match=r"remainder: complex operands are not supported "
                                        r"\(computing in complex64\)"):
        core.remainder(x, y) if call_form == "function" else x % y


def test_scalar_rule_examples():
    """The examples the rule is known by, through the public API."""
    f32, f64 = core.ones([3]), core.to_tensor(2.0, dtype="float64")
    assert (f32 * f64).dtype == np.float32 and (f64 * f32).dtype == np.float32
    i32, i64 = core.ones([3], dtype="int32"), core.to_tensor(2, dtype="int64")
    assert (i32 * i64).dtype == np.int32 and core.multiply(i64, i32).dtype == np.int32
    assert (i32 * f64).dtype == np.float64  # another kind: the 0-D tensor's float64
    assert (core.ones([3]).astype("complex64") * f64).dtype == np.complex128
    assert core.maximum(f32, f64).dtype == np.float64  # no 0-D rule for maximum
    assert (i32 // i64).dtype == np.int64  # nor for floor_divide


def test_bool_divided_by_bool_stays_bool():
    x = core.to_tensor([True, False, True])
    out = x / core.to_tensor([True, True, True])
    assert out.dtype == np.bool_
    np.testing.assert_array_equal(out.numpy(), [True, False, True])
    np.testing.assert_array_equal(core.divide(x, core.to_tensor(True)).numpy(), x.numpy())
    with pytest.raises(ZeroDivisionError, match=r"divide: bool division by zero \(y has a "
                                                r"False"):
        x / core.to_tensor([True, False, True])


def _tensor(values, dtype):
    return core.to_tensor(np.asarray(values, dtype=dtype))


VALUE_CALLS = [(case, case["op"]) for case in FIXTURE["values"]] + \
    [(case, OPERATOR_OF[case["op"]]) for case in FIXTURE["values"] if case["op"] in OPERATOR_OF]


@pytest.mark.parametrize(("case", "op"), VALUE_CALLS,
                         ids=[f"{op}-{c['x_dtype']}-{c['y_dtype']}" for c, op in VALUE_CALLS])
def test_values_are_computed_in_the_promoted_dtype(case, op):
    """float32[3] == float64[] compares in float32, int32[3] + int64[] wraps in int32."""
    out = call(op, _tensor(case["x"], case["x_dtype"]), _tensor(case["y"], case["y_dtype"]))
    assert str(out.dtype) == case["out_dtype"]
    want = np.asarray(case["out"], dtype=case["out_dtype"])
    if want.dtype.kind == "f":
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-6)
    else:
        np.testing.assert_array_equal(out.numpy(), want)


@pytest.mark.parametrize("case", FIXTURE["grads"], ids=lambda c: f"{c['op']}-{c['x_dtype']}-"
                         f"{c['y_dtype']}-{'0d' if np.ndim(c['y']) == 0 else 'nd'}")
def test_gradients_come_back_in_each_operands_dtype(case):
    """A float64 0-D tensor in a float32 op receives a float64 gradient of shape []."""
    x = core.to_tensor(np.asarray(case["x"], dtype=case["x_dtype"]), stop_gradient=False)
    y = core.to_tensor(np.asarray(case["y"], dtype=case["y_dtype"]), stop_gradient=False)
    out = call(case["op"], x, y)
    assert str(out.dtype) == case["out_dtype"]
    (out * core.to_tensor(np.asarray(case["w"], dtype=case["out_dtype"]))).sum().backward()
    for name, tensor in (("dx", x), ("dy", y)):
        want = np.asarray(case[name], dtype=case[f"{name}_dtype"])
        assert tensor.grad.dtype == want.dtype, name
        assert tensor.grad.shape == list(want.shape), name
        np.testing.assert_allclose(tensor.grad.numpy(), want, rtol=2e-5, err_msg=name)


@pytest.mark.parametrize("op", ["multiply", "divide", "pow", "subtract"])
@pytest.mark.parametrize("zero_d_first", [False, True])
def test_promotion_cast_gradient_matches_finite_differences(op, zero_d_first):
    """float64[3] with a float32 0-D tensor computes in float64; the recorded cast brings the
    0-D operand's gradient back to float32. The step 2**-10 keeps y +- eps exact in float32."""
    fn = getattr(core, op)

    def f(x, y):
        y32 = y.astype("float32")
        return fn(y32, x) if zero_d_first else fn(x, y32)

    x = np.array([0.5, 1.25, 2.0])
    check_grad(f, x, np.array(0.75), rtol=1e-4, atol=1e-6, eps=2.0 ** -10)


def test_the_0d_operand_keeps_no_gradient_of_the_wrong_dtype_under_create_graph():
    x = core.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    y = core.to_tensor(2.0, dtype="float64", stop_gradient=False)
    (gy,) = core.grad([(x * y * y).sum()], [y], create_graph=True)
    assert gy.dtype == np.float64 and gy.shape == []
    np.testing.assert_allclose(gy.numpy(), 2 * 2.0 * 6.0, rtol=1e-6)
    (ggy,) = core.grad([gy], [y])
    np.testing.assert_allclose(ggy.numpy(), 12.0, rtol=1e-6)


@pytest.mark.parametrize("kind", ["nd_0d", "0d_nd", "0d_0d", "nd_nd"])
def test_result_dtypes_match_torch(kind):
    """torch treats 0-D tensors the same way, except that a complex tensor keeps its precision
    against a 0-D float (complex64[3] * float64[] is complex64 there, complex128 in Paddle)."""
    torch = pytest.importorskip("torch")
    x_full, y_full = (part == "nd" for part in kind.split("_"))
    wrong = []
    for dx in DTYPES:
        for dy in DTYPES:
            if x_full != y_full and {dx[:5], dy[:5]} == {"float", "compl"}:
                continue
            tx = (torch.ones([3] if x_full else []) * 2).to(getattr(torch, dx))
            ty = (torch.ones([3] if y_full else []) * 2).to(getattr(torch, dy))
            theirs = str((tx * ty).dtype).removeprefix("torch.")
            ours = str((operand(dx, x_full) * operand(dy, y_full)).dtype)
            if ours != theirs:
                wrong.append(f"{dx} * {dy}: core {ours}, torch {theirs}")
    assert not wrong, "; ".join(wrong)
