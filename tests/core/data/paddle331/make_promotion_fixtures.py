"""Measure Paddle 3.3.1's dtype promotion of binary ops; run with a Python that has Paddle:

    /tmp/pdvenv/bin/python tests/core/data/paddle331/make_promotion_fixtures.py

Writes ``misc/promotion.json`` (tests/core/test_type_promotion_0d.py replays it on core). Not
collected by pytest and never imported by the tests: the project does not depend on Paddle.

``tables[op][kind]`` holds one string per x dtype (the order of ``dtypes``), two characters per
y dtype: ``=<i>`` Paddle's result has ``dtypes[i]``; ``K<i>`` Paddle picked ``dtypes[i]`` (named
in its error) but has no CPU kernel for it; ``T-`` Paddle refuses the pair (TypeError: "Type
promotion only support calculations between floating-point numbers and between complex and
real numbers"); ``E-`` any other error. ``kind`` says which operand is 0-D: ``nd_0d`` (x of
shape [3], y of shape []), ``0d_nd``, ``0d_0d``, ``nd_nd``. Every operand holds 2 (True for
bool). ``values`` are cases where the promotion shows in the values (a 0-D float64 cast to
float32 before a comparison); ``grads`` the gradients of ``sum(out * w)`` where a 0-D operand
of another dtype takes part.
"""
from __future__ import annotations

import json
import os
import re
import warnings

import numpy as np
import paddle

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "misc", "promotion.json")
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
          "complex64", "complex128"]
KINDS = ("nd_0d", "0d_nd", "0d_0d", "nd_nd")
OPERATORS = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
             "/": lambda a, b: a / b, "//": lambda a, b: a // b, "%": lambda a, b: a % b,
             "**": lambda a, b: a ** b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
             "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
             ">=": lambda a, b: a >= b}
FUNCTIONS = ("add", "subtract", "multiply", "divide", "floor_divide", "remainder", "pow",
             "maximum", "minimum", "equal", "not_equal", "less_than", "less_equal",
             "greater_than", "greater_equal", "where")
RNG = np.random.default_rng(3310)


def operand(dtype: str, full: bool):
    return (paddle.ones([3] if full else [], dtype="float32") * 2).astype(dtype)


def call(op: str, a, b):
    if op in OPERATORS:
        return OPERATORS[op](a, b)
    if op == "where":  # the condition alternates over the longer operand (3 if both are 0-D)
        n = a.shape[0] if a.ndim else b.shape[0] if b.ndim else 3
        return paddle.where(paddle.arange(n) % 2 == 0, a, b)
    return getattr(paddle, op)(a, b)


def cell(op: str, a, b) -> str:
    try:
        return "=" + format(DTYPES.index(str(call(op, a, b).dtype).replace("paddle.", "")), "x")
    except TypeError:
        return "T-"
    except Exception as err:  # noqa: BLE001 - Paddle's C++ errors have many classes
        picked = re.search(r"Selected wrong DataType `(\w+)`", str(err))
        return "K" + format(DTYPES.index(picked.group(1)), "x") if picked else "E-"


def tables() -> dict:
    result = {}
    for op in (*OPERATORS, *FUNCTIONS):
        result[op] = {}
        for kind in KINDS:
            x_full, y_full = (part == "nd" for part in kind.split("_"))
            result[op][kind] = ["".join(cell(op, operand(dx, x_full), operand(dy, y_full))
                                        for dy in DTYPES) for dx in DTYPES]
    return result


# (op, x values, x dtype, y values, y dtype): a list is a tensor of shape [n], a number 0-D
VALUE_CASES = [
    ("equal", [0.1, 0.2], "float32", 0.1, "float64"),
    ("less_than", [6, 4], "int32", 2 ** 33 + 5, "int64"),
    ("greater_equal", 0.1, "float64", [0.1, 0.2], "float32"),
    ("not_equal", [16777216.0, 3.0], "float32", 16777217, "int64"),
    ("add", [1, 2], "int32", 2 ** 33 + 5, "int64"),
    ("add", [1.0, 2.0], "float32", 1e-10, "float64"),
    ("subtract", 0.1, "float64", [0.3, 1.0], "float32"),
    ("multiply", [1.5, -2.0], "float32", 0.1, "float64"),
    ("divide", [7, -7], "int32", 2, "int64"),
    ("remainder", [7, -7], "int32", -3, "int64"),
    ("pow", [1.5, 2.0], "float32", 2.5, "float64"),
    ("maximum", [0.1, 0.3], "float32", 0.2, "float64"),
    ("floor_divide", [7, -7], "int32", 2, "int64"),
    ("where", [0.1, 0.2], "float32", 0.3, "float64"),
    ("multiply", [0.5, 1.5], "float32", 2, "int64"),
    ("add", [1, 2], "int8", 3.5, "float64"),
]


def values() -> list:
    cases = []
    for op, xv, xd, yv, yd in VALUE_CASES:
        out = call(op, paddle.to_tensor(xv, dtype=xd), paddle.to_tensor(yv, dtype=yd))
        cases.append({"op": op, "x": xv, "x_dtype": xd, "y": yv, "y_dtype": yd,
                      "out": out.numpy().tolist(), "out_dtype": str(out.dtype)[7:]})
    return cases


# (op, x dtype, x 0-D?, y dtype, y 0-D?): gradients of sum(out * w), both operands trainable
GRAD_CASES = [(op, "float32", False, "float64", True) for op in
              ("add", "subtract", "multiply", "divide", "pow", "remainder")] + \
             [(op, "float64", True, "float32", False) for op in
              ("add", "subtract", "multiply", "divide", "pow")] + \
             [("multiply", "float32", True, "float64", False),
              ("maximum", "float32", False, "float64", True)]


def grads() -> list:
    cases = []
    for op, xd, x0, yd, y0 in GRAD_CASES:
        xv = RNG.uniform(0.5, 2.0, () if x0 else (3,))
        yv = RNG.uniform(0.5, 2.0, () if y0 else (3,))
        x = paddle.to_tensor(xv, dtype=xd, stop_gradient=False)
        y = paddle.to_tensor(yv, dtype=yd, stop_gradient=False)
        out = call(op, x, y)
        w = RNG.standard_normal(out.shape)
        (out * paddle.to_tensor(w, dtype=out.dtype)).sum().backward()
        cases.append({"op": op, "x": xv.tolist(), "x_dtype": xd, "y": yv.tolist(),
                      "y_dtype": yd, "w": w.tolist(), "out_dtype": str(out.dtype)[7:],
                      "dx": x.grad.numpy().tolist(), "dx_dtype": str(x.grad.dtype)[7:],
                      "dy": y.grad.numpy().tolist(), "dy_dtype": str(y.grad.dtype)[7:]})
    return cases


def main() -> None:
    paddle.set_device("cpu")
    warnings.filterwarnings("ignore")
    data = {"paddle": paddle.__version__, "dtypes": DTYPES, "kinds": list(KINDS),
            "tables": tables(), "values": values(), "grads": grads()}
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=0, sort_keys=True)
        handle.write("\n")
    print(f"{OUT}: {os.path.getsize(OUT)} bytes")


if __name__ == "__main__":
    main()
