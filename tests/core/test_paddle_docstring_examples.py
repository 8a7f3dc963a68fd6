"""Paddle's own docstring examples, run with ``core`` as ``paddle``.

Each case is an example from a PaddlePaddle API docstring, copied as Paddle prints it
(``>>> `` statements followed by the output Paddle printed) from PaddlePaddle/Paddle's
``python/paddle`` sources: ``tensor/math.py`` at develop commit 0025159317fc and, as the
headers of the groups below say, the stored Paddle 3.x versions of ``_paddle_docs.py`` (the
C ops' docstrings), ``tensor/{stat,search,creation,manipulation}.py`` and
``nn/functional/{activation,loss,common,input}.py``, ``nn/layer/activation.py``. The runner
executes the statements with ``import paddle`` turned into ``import core as paddle`` and
compares each printed result with Paddle's: the shape, the dtype, ``stop_gradient`` and the
values, floats to the precision Paddle printed. Examples of random draws compare the shape and
dtype only. Where an example had to be cut or changed (a part using an API core lacks, an
output that depends on Paddle's own unstable sort or on its GPU, a typo), a comment in the
example says so; ``docs/paddle.md`` ("Paddle's own docstring examples") lists what the
examples changed in core.
"""
from __future__ import annotations

import ast
import math
import re
import textwrap
from dataclasses import dataclass

import numpy as np
import pytest

import core
from tests.gradcheck import check_grad


@dataclass(frozen=True)
class Example:
    """One docstring example: the API it documents and the example's text."""

    api: str
    text: str
    random: bool = False   # values are random draws: compare shape and dtype only
    atol: float = 0.0      # widens the printed precision where Paddle's float32 kernel rounds
                           # differently (each use says which value is the nearer to exact)


# ----- the runner ------------------------------------------------------------------------

_IMPORT_AS = re.compile(r"^import paddle((?:\.\w+)*) as (\w+)\s*$")
_IMPORT_SUB = re.compile(r"^import paddle((?:\.\w+)+)\s*$")
_FROM = re.compile(r"^from paddle((?:\.\w+)*) import (.*)$")


def _port(line: str) -> str:
    """The line with Paddle's imports turned into core's."""
    stripped = line.strip()
    if stripped == "import paddle":
        return "import core as paddle"
    if match := _IMPORT_AS.match(stripped):
        return f"import core{match[1]} as {match[2]}"
    if match := _IMPORT_SUB.match(stripped):
        return f"import core{match[1]}; import core as paddle"
    if match := _FROM.match(stripped):
        return f"from core{match[1]} import {match[2]}"
    return line


def _chunks(text: str) -> list[tuple[str, str | None]]:
    """(statement source, Paddle's printed output or None) for each ``>>>`` statement."""
    chunks: list[tuple[list[str], list[str]]] = []
    for raw in textwrap.dedent(text).strip("\n").splitlines():
        line = raw.strip()
        if raw.lstrip().startswith(">>>"):
            chunks.append(([_port(raw.lstrip()[4:])], []))
        elif raw.lstrip().startswith("...") and chunks and not chunks[-1][1]:
            chunks[-1][0].append(raw.lstrip()[4:])
        elif line:
            chunks[-1][1].append(line)
    return [("\n".join(src), "\n".join(out) if out else None) for src, out in chunks]


def run_example(example: Example) -> int:
    """Run the example's statements in order, checking each printed output; returns how many
    outputs were compared."""
    namespace: dict = {}
    compared = 0
    printed: list = []  # what print() showed since the last output Paddle printed
    namespace["print"] = lambda *args, **_: printed.append(args[0] if len(args) == 1 else args)
    for source, expected in _chunks(example.text):
        if "doctest: +SKIP" in source or not source.strip() or source.lstrip().startswith("#"):
            continue
        shown = _evaluate(source, namespace)
        if expected is None:
            continue  # a print() here shows with the next output (Paddle prints them together)
        actual = shown if shown is not _NOTHING else (printed[0] if len(printed) == 1 else
                                                      list(printed))
        printed.clear()
        _check(actual, expected, example, source)
        compared += 1
    return compared


_NOTHING = object()


def _evaluate(source: str, namespace: dict):
    """The value of the statement's closing expression (not a print(), whose arguments the
    namespace's print records), else _NOTHING."""
    tree = ast.parse(source)
    *body, last = tree.body
    if isinstance(last, ast.Expr) and not (
            isinstance(last.value, ast.Call) and getattr(last.value.func, "id", None) == "print"):
        exec(compile(ast.Module(body, []), "<paddle example>", "exec"), namespace)  # noqa: S102
        return eval(compile(ast.Expression(last.value), "<paddle example>", "eval"),  # noqa: S307
                    namespace)
    exec(compile(tree, "<paddle example>", "exec"), namespace)  # noqa: S102
    return _NOTHING


# ----- comparing with what Paddle printed ---------------------------------------------

_HEADER = re.compile(r"Tensor\(shape=\[([^\]]*)\], dtype=(?:paddle\.)?(\w+), "
                     r"place=[^,]*(?:,[^,=]*)?, "
                     r"stop_gradient=(True|False),(.*)\)\s*$", re.S)
_NUMBER = re.compile(r"[-+]?(?:inf|nan|(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?)\.?")


def _tensor_blocks(text: str) -> list[str]:
    """Each ``Tensor(...)`` in Paddle's printed output, brackets matched."""
    blocks, start = [], text.find("Tensor(")
    while start >= 0:
        depth, i = 0, start + len("Tensor")
        while True:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            if depth == 0:
                break
            i += 1
        blocks.append(text[start:i + 1])
        start = text.find("Tensor(", i)
    return blocks


def _flat_tensors(value) -> list:
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _flat_tensors(v)]
    return [value]


def _check(actual, expected: str, example: Example, source: str) -> None:
    blocks = _tensor_blocks(expected)
    if not blocks:
        _check_plain(actual, expected, source)
        return
    tensors = _flat_tensors(actual)
    assert len(tensors) == len(blocks), \
        f"{source}: {len(tensors)} results, Paddle printed {len(blocks)}"
    for tensor, block in zip(tensors, blocks, strict=True):
        _check_tensor(tensor, block, example, source)


def _check_tensor(tensor, block: str, example: Example, source: str) -> None:
    match = _HEADER.match(block)
    assert match, f"unparsed Paddle output {block!r}"
    shape = [int(s) for s in match[1].split(",") if s.strip()]
    assert isinstance(tensor, core.Tensor), \
        f"{source}: {type(tensor).__name__}, Paddle gives a Tensor"
    assert list(tensor.shape) == shape, f"{source}: shape {list(tensor.shape)}, Paddle {shape}"
    assert str(tensor.dtype).replace("paddle.", "") == match[2], \
        f"{source}: dtype {tensor.dtype}, Paddle {match[2]}"
    # ``x.grad`` is stop_gradient=False in Paddle and True in core (docs/paddle.md, "Paddle's
    # own docstring examples"): a gradient here is never a leaf a later backward reaches.
    if not source.strip().endswith(".grad"):
        assert tensor.stop_gradient == (match[3] == "True"), \
            f"{source}: stop_gradient {tensor.stop_gradient}, Paddle {match[3]}"
    data = match[4]
    if example.random or "..." in data:
        return
    values = np.asarray(tensor.numpy())
    if values.dtype == np.bool_:
        want = [t == "True" for t in re.findall(r"True|False", data)]
        np.testing.assert_array_equal(values.reshape(-1), want, err_msg=source)
    elif np.iscomplexobj(values):
        want = [complex(t.replace(" ", "")) for t in re.findall(r"\(([^)]*j)\)", data)]
        np.testing.assert_allclose(values.reshape(-1), want, rtol=1e-6, atol=1e-7, err_msg=source)
    else:
        tokens = _NUMBER.findall(data)
        want = np.array([float(t.rstrip(".") if t.rstrip(".").lstrip("+-") in ("inf", "nan") else t)
                         for t in tokens])
        assert want.size == values.size, \
            f"{source}: {values.size} values, Paddle printed {want.size}"
        tol = np.array([_printed_tolerance(t, values.dtype) for t in tokens]) + example.atol
        got = values.reshape(-1).astype(np.float64)
        with np.errstate(invalid="ignore"):  # inf - inf: the equality test covers it
            same = (got == want) | (np.isnan(got) & np.isnan(want)) | (np.abs(got - want) <= tol)
        assert same.all(), f"{source}:\ncore   {got.tolist()}\nPaddle {want.tolist()}"


def _printed_tolerance(token: str, dtype) -> float:
    """Half a unit in the last place Paddle printed, widened by a few float32 roundings."""
    token = token.rstrip(".") if token.rstrip(".").lstrip("+-") in ("inf", "nan") else token
    if not np.issubdtype(dtype, np.floating):
        return 0.0
    mantissa, _, exponent = token.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    value = abs(float(token)) if math.isfinite(float(token)) else 0.0
    rel = 4 * float(np.finfo(dtype).eps) if np.dtype(dtype).itemsize < 8 else 1e-12
    return 0.5 * 10.0 ** (-decimals + int(exponent or 0)) + rel * value


def _check_plain(actual, expected: str, source: str) -> None:
    """A printed Python value: a shape, a dtype, a number, a bool."""
    text = re.sub(r"paddle\.Size\((.*)\)", r"\1", expected.strip())
    if text.startswith("<class 'paddle."):  # type(...): the class name, whatever its module
        assert actual.__name__ == text[len("<class 'paddle."):-2].rpartition(".")[2], source
        return
    if text.startswith("paddle."):
        assert str(actual).replace("paddle.", "") == text[len("paddle."):], f"{source}: {actual}"
        return
    if isinstance(actual, np.ndarray):  # numpy's print: numbers apart by spaces
        tokens = re.findall(r"True|False", text) or _NUMBER.findall(text)
        want = np.array([t == "True" for t in tokens] if tokens[0] in ("True", "False")
                        else [float(t) for t in tokens])
        np.testing.assert_allclose(actual.reshape(-1).astype(want.dtype), want, rtol=1e-6,
                                   atol=1e-7, err_msg=source)
        assert actual.ndim == text.count("[", 0, len(text) - len(text.lstrip("["))), source
        return
    want = ast.literal_eval(text)
    if isinstance(actual, core.Tensor):
        actual = actual.tolist()
    if isinstance(want, float):
        assert abs(float(actual) - want) <= _printed_tolerance(text, np.float32), \
            f"{source}: {actual}"
    else:
        assert (list(actual) if isinstance(actual, tuple) and isinstance(want, list) else actual) \
            == want, f"{source}: {actual!r}, Paddle {want!r}"

# ----- python/paddle/tensor/math.py @ 0025159317fc459e3ae2f5ae8b7043303f61ad56 -----------

MATH = [
    Example("scale", r"""
    >>> import paddle
    >>> data = paddle.arange(6).astype("float32").reshape([2, 3])
    >>> print(data)
    Tensor(shape=[2, 3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[0., 1., 2.],
     [3., 4., 5.]])
    >>> res = paddle.scale(data, scale=2.0, bias=1.0)
    >>> print(res)
    Tensor(shape=[2, 3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[1. , 3. , 5. ],
     [7. , 9. , 11.]])
    >>> factor = paddle.to_tensor([2], dtype='float32')
    >>> res = paddle.scale(data, scale=factor, bias=1.0)
    >>> print(res)
    Tensor(shape=[2, 3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[1. , 3. , 5. ],
     [7. , 9. , 11.]])
    """),
    Example("stanh", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([1.0, 2.0, 3.0, 4.0])
    >>> out = paddle.stanh(x, scale_a=0.67, scale_b=1.72)
    >>> print(out)
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [1.00616539, 1.49927628, 1.65933096, 1.70390475])
    """),
    Example("multiplex", r"""
    >>> import paddle
    >>> img1 = paddle.to_tensor([[1, 2], [3, 4]], dtype=paddle.float32)
    >>> img2 = paddle.to_tensor([[5, 6], [7, 8]], dtype=paddle.float32)
    >>> inputs = [img1, img2]
    >>> index = paddle.to_tensor([[1], [0]], dtype=paddle.int32)
    >>> res = paddle.multiplex(inputs, index)
    >>> print(res)
    Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[5., 6.],
     [3., 4.]])
    """),
    Example("pow", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([1, 2, 3], dtype='float32')
    >>> # example 1: y is a float or int
    >>> res = paddle.pow(x, 2)
    >>> print(res)
    Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [1., 4., 9.])
    >>> res = paddle.pow(x, 2.5)
    >>> print(res)
    Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [1.         , 5.65685415 , 15.58845711])
    >>> # example 2: y is a Tensor
    >>> y = paddle.to_tensor([2], dtype='float32')
    >>> res = paddle.pow(x, y)
    >>> print(res)
    Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [1., 4., 9.])
    """),
    Example("add", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([2, 3, 4], 'float64')
    >>> y = paddle.to_tensor([1, 5, 2], 'float64')
    >>> z = paddle.add(x, y)
    >>> print(z)
    Tensor(shape=[3], dtype=float64, place=Place(cpu), stop_gradient=True,
    [3., 8., 6.])
    """),
    Example("logaddexp", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([-1, -2, -3], 'float64')
    >>> y = paddle.to_tensor([-1], 'float64')
    >>> z = paddle.logaddexp(x, y)
    >>> print(z)
    Tensor(shape=[3], dtype=float64, place=Place(cpu), stop_gradient=True,
    [-0.30685282, -0.68673831, -0.87307199])
    """),
    Example("subtract", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([[1, 2], [7, 8]])
    >>> y = paddle.to_tensor([[5, 6], [3, 4]])
    >>> res = paddle.subtract(x, y)
    >>> print(res)
    Tensor(shape=[2, 2], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[-4, -4],
     [ 4,  4]])
    >>> x = paddle.to_tensor([[[1, 2, 3], [1, 2, 3]]])
    >>> y = paddle.to_tensor([1, 0, 4])
    >>> res = paddle.subtract(x, y)
    >>> print(res)
    Tensor(shape=[1, 2, 3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[[ 0,  2, -1],
      [ 0,  2, -1]]])
    >>> x = paddle.to_tensor([2, float('nan'), 5], dtype='float32')
    >>> y = paddle.to_tensor([1, 4, float('nan')], dtype='float32')
    >>> res = paddle.subtract(x, y)
    >>> print(res)
    Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [1. , nan, nan])
    >>> x = paddle.to_tensor([5, float('inf'), -float('inf')], dtype='float64')
    >>> y = paddle.to_tensor([1, 4, 5], dtype='float64')
    >>> res = paddle.subtract(x, y)
    >>> print(res)
    Tensor(shape=[3], dtype=float64, place=Place(cpu), stop_gradient=True,
    [ 4.  ,  inf., -inf.])
    """),
    Example("divide", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([2, 3, 4], dtype='float64')
    >>> y = paddle.to_tensor([1, 5, 2], dtype='float64')
    >>> z = paddle.divide(x, y)
    >>> print(z)
    Tensor(shape=[3], dtype=float64, place=Place(cpu), stop_gradient=True,
    [2.        , 0.60000000, 2.        ])
    """),
    Example("floor_divide", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([2, 3, 8, 7])
    >>> y = paddle.to_tensor([1, 5, 3, 3])
    >>> z = paddle.floor_divide(x, y)
    >>> print(z)
    Tensor(shape=[4], dtype=int64, place=Place(cpu), stop_gradient=True,
    [2, 0, 2, 2])
    >>> x = paddle.to_tensor([2, 3, 8, 7])
    >>> y = paddle.to_tensor([1, -5, -3, -3])
    >>> z = paddle.floor_divide(x=x, y=y)
    >>> print(z)
    Tensor(shape=[4], dtype=int64, place=Place(cpu), stop_gradient=True,
    [2, -1, -3, -3])
    """),
    Example("remainder", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([2, 3, 8, 7])
    >>> y = paddle.to_tensor([1, 5, 3, 3])
    >>> z = paddle.remainder(x, y)
    >>> print(z)
    Tensor(shape=[4], dtype=int64, place=Place(cpu), stop_gradient=True,
    [0, 3, 2, 1])
    >>> z = paddle.floor_mod(x, y)
    >>> print(z)
    Tensor(shape=[4], dtype=int64, place=Place(cpu), stop_gradient=True,
    [0, 3, 2, 1])
    >>> z = paddle.mod(x, y)
    >>> print(z)
    Tensor(shape=[4], dtype=int64, place=Place(cpu), stop_gradient=True,
    [0, 3, 2, 1])
    """),
    Example("multiply", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([[1, 2], [3, 4]])
    >>> y = paddle.to_tensor([[5, 6], [7, 8]])
    >>> res = paddle.multiply(x, y)
    >>> print(res)
    Tensor(shape=[2, 2], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[5 , 12],
     [21, 32]])
    >>> x = paddle.to_tensor([[[1, 2, 3], [1, 2, 3]]])
    >>> y = paddle.to_tensor([2])
    >>> res = paddle.multiply(x, y)
    >>> print(res)
    Tensor(shape=[1, 2, 3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[[2, 4, 6],
      [2, 4, 6]]])
    """),
    Example("nan_to_num", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([float('nan'), 0.3, float('+inf'), float('-inf')], dtype='float32')
    >>> out1 = paddle.nan_to_num(x)
    >>> out1
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [ 0.                                      ,
      0.30000001                              ,
      340282346638528859811704183484516925440.,
     -340282346638528859811704183484516925440.])
    >>> out2 = paddle.nan_to_num(x, nan=1)
    >>> out2
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [ 1.                                      ,
      0.30000001                              ,
      340282346638528859811704183484516925440.,
     -340282346638528859811704183484516925440.])
    >>> out3 = paddle.nan_to_num(x, posinf=5)
    >>> out3
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [ 0.                                      ,
      0.30000001                              ,
      5.                                      ,
     -340282346638528859811704183484516925440.])
    >>> out4 = paddle.nan_to_num(x, nan=10, neginf=-99)
    >>> out4
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [ 10.                                    ,
      0.30000001                             ,
     340282346638528859811704183484516925440.,
     -99.                                    ])
    """),
    Example("nanmean", r"""
    >>> import paddle
    >>> # x is a 2-D Tensor:
    >>> x = paddle.to_tensor(
    ...     [
    ...         [float('nan'), 0.3, 0.5, 0.9],
    ...         [0.1, 0.2, float('-nan'), 0.7],
    ...     ]
    ... )
    >>> out1 = paddle.nanmean(x)
    >>> out1
    Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
    0.44999996)
    >>> out2 = paddle.nanmean(x, axis=0)
    >>> out2
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [0.10000000, 0.25000000, 0.50000000, 0.79999995])
    >>> out3 = paddle.nanmean(x, axis=0, keepdim=True)
    >>> out3
    Tensor(shape=[1, 4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[0.10000000, 0.25000000, 0.50000000, 0.79999995]])
    >>> out4 = paddle.nanmean(x, axis=1)
    >>> out4
    Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [0.56666666, 0.33333334])
    >>> out5 = paddle.nanmean(x, axis=1, keepdim=True)
    >>> out5
    Tensor(shape=[2, 1], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[0.56666666],
     [0.33333334]])
    >>> # y is a 3-D Tensor:
    >>> y = paddle.to_tensor(
    ...     [
    ...         [[1, float('nan')], [3, 4]],
    ...         [[5, 6], [float('-nan'), 8]],
    ...     ]
    ... )
    >>> out6 = paddle.nanmean(y, axis=[1, 2])
    >>> out6
    Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [2.66666675, 6.33333349])
    >>> out7 = paddle.nanmean(y, axis=[0, 1])
    >>> out7
    Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [3., 6.])
    """),
    Example("count_nonzero", r"""
    >>> import paddle
    >>> # x is a 2-D Tensor:
    >>> x = paddle.to_tensor(
    ...     [
    ...         [0.0, 1.1, 1.2],
    ...         [0.0, 0.0, 1.3],
    ...         [0.0, 0.0, 0.0],
    ...     ]
    ... )
    >>> out1 = paddle.count_nonzero(x)
    >>> out1
    Tensor(shape=[], dtype=int64, place=Place(cpu), stop_gradient=True,
    3)
    >>> out2 = paddle.count_nonzero(x, axis=0)
    >>> out2
    Tensor(shape=[3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [0, 1, 2])
    >>> out3 = paddle.count_nonzero(x, axis=0, keepdim=True)
    >>> out3
    Tensor(shape=[1, 3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[0, 1, 2]])
    >>> out4 = paddle.count_nonzero(x, axis=1)
    >>> out4
    Tensor(shape=[3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [2, 1, 0])
    >>> out5 = paddle.count_nonzero(x, axis=1, keepdim=True)
    >>> out5
    Tensor(shape=[3, 1], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[2],
     [1],
     [0]])
    >>> # y is a 3-D Tensor:
    >>> y = paddle.to_tensor(
    ...     [
    ...         [[0.0, 1.1, 1.2], [0.0, 0.0, 1.3], [0.0, 0.0, 0.0]],
    ...         [[0.0, 2.5, 2.6], [0.0, 0.0, 2.4], [2.1, 2.2, 2.3]],
    ...     ]
    ... )
    >>> out6 = paddle.count_nonzero(y, axis=[1, 2])
    >>> out6
    Tensor(shape=[2], dtype=int64, place=Place(cpu), stop_gradient=True,
    [3, 6])
    >>> out7 = paddle.count_nonzero(y, axis=[0, 1])
    >>> out7
    Tensor(shape=[3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [1, 3, 5])
    """),
    Example("add_n", r"""
    >>> import paddle
    >>> input0 = paddle.to_tensor([[1, 2, 3], [4, 5, 6]], dtype='float32')
    >>> input1 = paddle.to_tensor([[7, 8, 9], [10, 11, 12]], dtype='float32')
    >>> output = paddle.add_n([input0, input1])
    >>> output
    Tensor(shape=[2, 3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[8. , 10., 12.],
     [14., 16., 18.]])
    """),
    Example("trunc", r"""
    >>> import paddle
    >>> input = paddle.to_tensor([[0.1, 1.5], [-0.2, -2.4]], 'float32')
    >>> output = paddle.trunc(input)
    >>> output
    Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[ 0.,  1.],
     [-0., -2.]])
    """),
    Example("mm", r"""
    >>> import paddle
    >>> input = paddle.arange(1, 7).reshape((3, 2)).astype('float32')
    >>> mat2 = paddle.arange(1, 9).reshape((2, 4)).astype('float32')
    >>> out = paddle.mm(input, mat2)
    >>> out
    Tensor(shape=[3, 4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[11., 14., 17., 20.],
     [23., 30., 37., 44.],
     [35., 46., 57., 68.]])
    """),
    Example("inner", r"""
    >>> import paddle
    >>> x = paddle.arange(1, 7).reshape((2, 3)).astype('float32')
    >>> y = paddle.arange(1, 10).reshape((3, 3)).astype('float32')
    >>> out = paddle.inner(x, y)
    >>> print(out)
    Tensor(shape=[2, 3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[14. , 32. , 50. ],
     [32. , 77. , 122.]])
    """),
    Example("outer", r"""
    >>> import paddle
    >>> x = paddle.arange(1, 4).astype('float32')
    >>> y = paddle.arange(1, 6).astype('float32')
    >>> out = paddle.outer(x, y)
    >>> print(out)
    Tensor(shape=[3, 5], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[1. , 2. , 3. , 4. , 5. ],
     [2. , 4. , 6. , 8. , 10.],
     [3. , 6. , 9. , 12., 15.]])
    """),
    Example("max", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([[0.2, 0.3, 0.5, 0.9], [0.1, 0.2, 0.6, 0.7]], dtype='float64',
    ...     stop_gradient=False)
    >>> result1 = paddle.max(x)
    >>> result1.backward()
    >>> result1
    Tensor(shape=[], dtype=float64, place=Place(cpu), stop_gradient=False,
    0.90000000)
    >>> x.grad
    Tensor(shape=[2, 4], dtype=float64, place=Place(cpu), stop_gradient=False,
    [[0., 0., 0., 1.],
     [0., 0., 0., 0.]])
    >>> x.clear_grad()
    >>> result2 = paddle.max(x, axis=0)
    >>> result2.backward()
    >>> result2
    Tensor(shape=[4], dtype=float64, place=Place(cpu), stop_gradient=False,
    [0.20000000, 0.30000000, 0.60000000, 0.90000000])
    >>> x.grad
    Tensor(shape=[2, 4], dtype=float64, place=Place(cpu), stop_gradient=False,
    [[1., 1., 0., 1.],
     [0., 0., 1., 0.]])
    >>> x.clear_grad()
    >>> result3 = paddle.max(x, axis=-1)
    >>> result3.backward()
    >>> result3
    Tensor(shape=[2], dtype=float64, place=Place(cpu), stop_gradient=False,
    [0.90000000, 0.70000000])
    >>> x.grad
    Tensor(shape=[2, 4], dtype=float64, place=Place(cpu), stop_gradient=False,
    [[0., 0., 0., 1.],
     [0., 0., 0., 1.]])
    >>> x.clear_grad()
    >>> result4 = paddle.max(x, axis=1, keepdim=True)
    >>> result4.backward()
    >>> result4
    Tensor(shape=[2, 1], dtype=float64, place=Place(cpu), stop_gradient=False,
    [[0.90000000],
     [0.70000000]])
    >>> x.grad
    Tensor(shape=[2, 4], dtype=float64, place=Place(cpu), stop_gradient=False,
    [[0., 0., 0., 1.],
     [0., 0., 0., 1.]])
    >>> y = paddle.to_tensor(
    ...     [
    ...         [[1.0, 2.0], [3.0, 4.0]],
    ...         [[5.0, 6.0], [7.0, 8.0]],
    ...     ],
    ...     dtype='float64',
    ...     stop_gradient=False,
    ... )
    >>> result5 = paddle.max(y, axis=[1, 2])
    >>> result5.backward()
    >>> result5
    Tensor(shape=[2], dtype=float64, place=Place(cpu), stop_gradient=False,
    [4., 8.])
    >>> y.grad
    Tensor(shape=[2, 2, 2], dtype=float64, place=Place(cpu), stop_gradient=False,
    [[[0., 0.],
      [0., 1.]],
     [[0., 0.],
      [0., 1.]]])
    >>> y.clear_grad()
    >>> result6 = paddle.max(y, axis=[0, 1])
    >>> result6.backward()
    >>> result6
    Tensor(shape=[2], dtype=float64, place=Place(cpu), stop_gradient=False,
    [7., 8.])
    >>> y.grad
    Tensor(shape=[2, 2, 2], dtype=float64, place=Place(cpu), stop_gradient=False,
    [[[0., 0.],
      [0., 0.]],
     [[0., 0.],
      [1., 1.]]])
    """),
    Example("min", r"""
    >>> import paddle
    >>> x = paddle.to_tensor(
    ...     [
    ...         [0.2, 0.3, 0.5, 0.9],
    ...         [0.1, 0.2, 0.6, 0.7],
    ...     ],
    ...     dtype='float64',
    ...     stop_gradient=False,
    ... )
    >>> result1 = paddle.min(x)
    >>> result1.backward()
    >>> result1
    Tensor(shape=[], dtype=float64, place=Place(cpu), stop_gradient=False,
    0.10000000)
    >>> x.grad
    Tensor(shape=[2, 4], dtype=float64, place=Place(cpu), stop_gradient=False,
    [[0., 0., 0., 0.],
     [1., 0., 0., 0.]])
    >>> x.clear_grad()
    >>> result2 = paddle.min(x, axis=0)
    >>> result2.backward()
    >>> result2
    Tensor(shape=[4], dtype=float64, place=Place(cpu), stop_gradient=False,
    [0.10000000, 0.20000000, 0.50000000, 0.70000000])
    >>> x.grad
    Tensor(shape=[2, 4], dtype=float64, place=Place(cpu), stop_gradient=False,
    [[0., 0., 1., 0.],
     [1., 1., 0., 1.]])
    >>> x.clear_grad()
    >>> result3 = paddle.min(x, axis=-1)
    >>> result3.backward()
    >>> result3
    Tensor(shape=[2], dtype=float64, place=Place(cpu), stop_gradient=False,
    [0.20000000, 0.10000000])
    >>> x.grad
    Tensor(shape=[2, 4], dtype=float64, place=Place(cpu), stop_gradient=False,
    [[1., 0., 0., 0.],
     [1., 0., 0., 0.]])
    >>> y = paddle.to_tensor(
    ...     [
    ...         [[1.0, 2.0], [3.0, 4.0]],
    ...         [[5.0, 6.0], [7.0, 8.0]],
    ...     ],
    ...     dtype='float64',
    ...     stop_gradient=False,
    ... )
    >>> result6 = paddle.min(y, axis=[0, 1])
    >>> result6.backward()
    >>> result6
    Tensor(shape=[2], dtype=float64, place=Place(cpu), stop_gradient=False,
    [1., 2.])
    >>> y.grad
    Tensor(shape=[2, 2, 2], dtype=float64, place=Place(cpu), stop_gradient=False,
    [[[1., 1.],
      [0., 0.]],
     [[0., 0.],
      [0., 0.]]])
    """),
    Example("clip", r"""
    >>> import paddle
    >>> x1 = paddle.to_tensor([[1.2, 3.5], [4.5, 6.4]], 'float32')
    >>> out1 = paddle.clip(x1, min=3.5, max=5.0)
    >>> out1
    Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[3.50000000, 3.50000000],
     [4.50000000, 5.        ]])
    >>> out2 = paddle.clip(x1, min=2.5)
    >>> out2
    Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[2.50000000, 3.50000000],
     [4.50000000, 6.40000010]])
    """),
    Example("trace", r"""
    >>> import paddle
    >>> case1 = paddle.randn([2, 3])
    >>> case2 = paddle.randn([3, 10, 10])
    >>> case3 = paddle.randn([3, 10, 5, 10])
    >>> data1 = paddle.trace(case1)
    >>> data1.shape
    paddle.Size([])
    >>> data2 = paddle.trace(case2, offset=1, axis1=1, axis2=2)
    >>> data2.shape
    paddle.Size([3])
    >>> data3 = paddle.trace(case3, offset=-3, axis1=1, axis2=-1)
    >>> data3.shape
    paddle.Size([3, 5])
    """),
    Example("cumsum", r"""
    >>> import paddle
    >>> data = paddle.arange(12)
    >>> data = paddle.reshape(data, (3, 4))
    >>> y = paddle.cumsum(data)
    >>> y
    Tensor(shape=[12], dtype=int64, place=Place(cpu), stop_gradient=True,
    [0 , 1 , 3 , 6 , 10, 15, 21, 28, 36, 45, 55, 66])
    >>> y = paddle.cumsum(data, axis=0)
    >>> y
    Tensor(shape=[3, 4], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[0 , 1 , 2 , 3 ],
     [4 , 6 , 8 , 10],
     [12, 15, 18, 21]])
    >>> y = paddle.cumsum(data, axis=-1)
    >>> y
    Tensor(shape=[3, 4], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[0 , 1 , 3 , 6 ],
     [4 , 9 , 15, 22],
     [8 , 17, 27, 38]])
    >>> y = paddle.cumsum(data, dtype='float64')
    >>> assert y.dtype == paddle.float64
    """),
    Example("cummax", r"""
    >>> import paddle
    >>> data = paddle.to_tensor([-1, 5, 0, -2, -3, 2])
    >>> data = paddle.reshape(data, (2, 3))
    >>> value, indices = paddle.cummax(data)
    >>> value
    Tensor(shape=[6], dtype=int64, place=Place(cpu), stop_gradient=True,
    [-1,  5,  5,  5,  5,  5])
    >>> indices
    Tensor(shape=[6], dtype=int64, place=Place(cpu), stop_gradient=True,
    [0, 1, 1, 1, 1, 1])
    >>> value, indices = paddle.cummax(data, axis=0)
    >>> value
    Tensor(shape=[2, 3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[-1,  5,  0],
     [-1,  5,  2]])
    >>> indices
    Tensor(shape=[2, 3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[0, 0, 0],
     [0, 0, 1]])
    >>> value, indices = paddle.cummax(data, axis=-1)
    >>> value
    Tensor(shape=[2, 3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[-1,  5,  5],
     [-2, -2,  2]])
    >>> indices
    Tensor(shape=[2, 3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[0, 1, 1],
     [0, 0, 2]])
    >>> value, indices = paddle.cummax(data, dtype='int64')
    >>> assert indices.dtype == paddle.int64
    """),
    Example("cummin", r"""
    >>> import paddle
    >>> data = paddle.to_tensor([-1, 5, 0, -2, -3, 2])
    >>> data = paddle.reshape(data, (2, 3))
    >>> value, indices = paddle.cummin(data)
    >>> value
    Tensor(shape=[6], dtype=int64, place=Place(cpu), stop_gradient=True,
    [-1, -1, -1, -2, -3, -3])
    >>> indices
    Tensor(shape=[6], dtype=int64, place=Place(cpu), stop_gradient=True,
    [0, 0, 0, 3, 4, 4])
    >>> value, indices = paddle.cummin(data, axis=0)
    >>> value
    Tensor(shape=[2, 3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[-1,  5,  0],
     [-2, -3,  0]])
    >>> indices
    Tensor(shape=[2, 3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[0, 0, 0],
     [1, 1, 0]])
    >>> value, indices = paddle.cummin(data, axis=-1)
    >>> value
    Tensor(shape=[2, 3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[-1, -1, -1],
     [-2, -3, -3]])
    >>> indices
    Tensor(shape=[2, 3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[0, 0, 0],
     [0, 1, 1]])
    """),
    Example("logcumsumexp", r"""
    >>> import paddle
    >>> data = paddle.arange(12, dtype='float64')
    >>> data = paddle.reshape(data, (3, 4))
    >>> y = paddle.logcumsumexp(data)
    >>> y
    Tensor(shape=[12], dtype=float64, place=Place(cpu), stop_gradient=True,
    [0.         , 1.31326169 , 2.40760596 , 3.44018970 , 4.45191440 ,
     5.45619332 , 6.45776285 , 7.45833963 , 8.45855173 , 9.45862974 ,
     10.45865844, 11.45866900])
    >>> y = paddle.logcumsumexp(data, axis=0)
    >>> y
    Tensor(shape=[3, 4], dtype=float64, place=Place(cpu), stop_gradient=True,
    [[0.         , 1.         , 2.         , 3.         ],
     [4.01814993 , 5.01814993 , 6.01814993 , 7.01814993 ],
     [8.01847930 , 9.01847930 , 10.01847930, 11.01847930]])
    >>> y = paddle.logcumsumexp(data, axis=-1)
    >>> y
    Tensor(shape=[3, 4], dtype=float64, place=Place(cpu), stop_gradient=True,
    [[0.         , 1.31326169 , 2.40760596 , 3.44018970 ],
     [4.         , 5.31326169 , 6.40760596 , 7.44018970 ],
     [8.         , 9.31326169 , 10.40760596, 11.44018970 ]])
    >>> y = paddle.logcumsumexp(data, dtype='float64')
    >>> assert y.dtype == paddle.float64
    """),
    Example("cumprod", r"""
    >>> import paddle
    >>> data = paddle.arange(12)
    >>> data = paddle.reshape(data, (3, 4))
    >>> data
    Tensor(shape=[3, 4], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[0 , 1 , 2 , 3 ],
     [4 , 5 , 6 , 7 ],
     [8 , 9 , 10, 11]])
    >>> y = paddle.cumprod(data, dim=0)
    >>> y
    Tensor(shape=[3, 4], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[0  , 1  , 2  , 3  ],
     [0  , 5  , 12 , 21 ],
     [0  , 45 , 120, 231]])
    >>> y = paddle.cumprod(data, dim=-1)
    >>> y
    Tensor(shape=[3, 4], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[0   , 0   , 0   , 0   ],
     [4   , 20  , 120 , 840 ],
     [8   , 72  , 720 , 7920]])
    >>> y = paddle.cumprod(data, dim=1, dtype='float64')
    >>> y
    Tensor(shape=[3, 4], dtype=float64, place=Place(cpu), stop_gradient=True,
    [[0.   , 0.   , 0.   , 0.   ],
     [4.   , 20.  , 120. , 840. ],
     [8.   , 72.  , 720. , 7920.]])
    >>> assert y.dtype == paddle.float64
    """),
    Example("prod", r"""
    >>> import paddle
    >>> x = paddle.to_tensor(
    ...     [
    ...         [0.2, 0.3, 0.5, 0.9],
    ...         [0.1, 0.2, 0.6, 0.7],
    ...     ]
    ... )
    >>> out1 = paddle.prod(x)
    >>> out1
    Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
    0.00022680)
    >>> out2 = paddle.prod(x, -1)
    >>> out2
    Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [0.02700000, 0.00840000])
    >>> out3 = paddle.prod(x, 0)
    >>> out3
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [0.02000000, 0.06000000, 0.30000001, 0.63000000])
    >>> out4 = paddle.prod(x, 0, keepdim=True)
    >>> out4
    Tensor(shape=[1, 4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[0.02000000, 0.06000000, 0.30000001, 0.63000000]])
    >>> out5 = paddle.prod(x, 0, dtype='int64')
    >>> out5
    Tensor(shape=[4], dtype=int64, place=Place(cpu), stop_gradient=True,
    [0, 0, 0, 0])
    >>> y = paddle.to_tensor(
    ...     [
    ...         [[1.0, 2.0], [3.0, 4.0]],
    ...         [[5.0, 6.0], [7.0, 8.0]],
    ...     ]
    ... )
    >>> out6 = paddle.prod(y, [0, 1])
    >>> out6
    Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [105., 384.])
    >>> out7 = paddle.prod(y, (1, 2))
    >>> out7
    Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [24.  , 1680.])
    """),
    Example("increment", r"""
    >>> import paddle
    >>> data = paddle.zeros(shape=[1], dtype='float32')
    >>> counter = paddle.increment(data)
    >>> counter
    Tensor(shape=[1], dtype=float32, place=Place(cpu), stop_gradient=True,
    [1.])
    """),
    Example("broadcast_shape", r"""
    >>> import paddle
    >>> shape = paddle.broadcast_shape([2, 1, 3], [1, 3, 1])
    >>> shape
    [2, 3, 3]
    """),
    Example("gammaln", r"""
    >>> import paddle
    >>> x = paddle.arange(1.5, 4.5, 0.5)
    >>> out = paddle.gammaln(x)
    >>> print(out)
    Tensor(shape=[6], dtype=float32, place=Place(cpu), stop_gradient=True,
        [-0.12078223,  0.        ,  0.28468287,  0.69314718,  1.20097363,
         1.79175949])
    """),
    Example("digamma", r"""
    >>> import paddle
    >>> data = paddle.to_tensor([[1, 1.5], [0, -2.2]], dtype='float32')
    >>> res = paddle.digamma(data)
    >>> res
    Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[-0.57721591,  0.03648996],
     [-inf.      ,  5.32286835]])
    """),
    Example("multigammaln", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([2.5, 3.5, 4, 6.5, 7.8, 10.23, 34.25])
    >>> p = 2
    >>> out = paddle.multigammaln(x, p)
    >>> print(out)
    Tensor(shape=[7], dtype=float32, place=Place(cpu), stop_gradient=True,
    [0.85704780  , 2.46648574  , 3.56509781  , 11.02241898 , 15.84497738 ,
     26.09257889 , 170.68318176])
    """),
]

MATH += [
    Example("neg", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([-0.4, -0.2, 0.1, 0.3])
    >>> out = paddle.neg(x)
    >>> out
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [ 0.40000001,  0.20000000, -0.10000000, -0.30000001])
    """),
    Example("logit", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([0.2635, 0.0106, 0.2780, 0.2097, 0.8095])
    >>> out1 = paddle.logit(x)
    >>> out1
    Tensor(shape=[5], dtype=float32, place=Place(cpu), stop_gradient=True,
    [-1.02785587, -4.53624487, -0.95440406, -1.32673466,  1.44676447])
    """),
    Example("lerp", r"""
    >>> import paddle
    >>> x = paddle.arange(1.0, 5.0, dtype='float32')
    >>> y = paddle.empty([4], dtype='float32')
    >>> y.fill_(10.0)
    >>> out = paddle.lerp(x, y, 0.5)
    >>> out
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [5.50000000, 6.        , 6.50000000, 7.        ])
    """),
    Example("erfinv", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([0, 0.5, -1.0], dtype="float32")
    >>> out = paddle.erfinv(x)
    >>> out
    Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [ 0.       , 0.47693631, -inf.     ])
    """),
    Example("rad2deg", r"""
    >>> import paddle
    >>> import math
    >>> x1 = paddle.to_tensor([3.142, -3.142, 6.283, -6.283, 1.570, -1.570])
    >>> result1 = paddle.rad2deg(x1)
    >>> result1
    Tensor(shape=[6], dtype=float32, place=Place(cpu), stop_gradient=True,
    [ 180.02334595, -180.02334595,  359.98937988, -359.98937988,
      89.95437622 , -89.95437622 ])
    >>> x2 = paddle.to_tensor(math.pi / 2)
    >>> result2 = paddle.rad2deg(x2)
    >>> result2
    Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
    90.)
    >>> x3 = paddle.to_tensor(1)
    >>> result3 = paddle.rad2deg(x3)
    >>> result3
    Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
    57.29578018)
    """),
    Example("deg2rad", r"""
    >>> import paddle
    >>> x1 = paddle.to_tensor([180.0, -180.0, 360.0, -360.0, 90.0, -90.0])
    >>> result1 = paddle.deg2rad(x1)
    >>> result1
    Tensor(shape=[6], dtype=float32, place=Place(cpu), stop_gradient=True,
    [3.14159274, -3.14159274,  6.28318548, -6.28318548,  1.57079637,
    -1.57079637])
    >>> x2 = paddle.to_tensor(180)
    >>> result2 = paddle.deg2rad(x2)
    >>> result2
    Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
    3.14159274)
    """),
    Example("gcd", r"""
    >>> import paddle
    >>> x1 = paddle.to_tensor(12)
    >>> x2 = paddle.to_tensor(20)
    >>> paddle.gcd(x1, x2)
    Tensor(shape=[], dtype=int64, place=Place(cpu), stop_gradient=True,
    4)
    >>> x3 = paddle.arange(6)
    >>> paddle.gcd(x3, x2)
    Tensor(shape=[6], dtype=int64, place=Place(cpu), stop_gradient=True,
    [20, 1 , 2 , 1 , 4 , 5])
    >>> x4 = paddle.to_tensor(0)
    >>> paddle.gcd(x4, x2)
    Tensor(shape=[], dtype=int64, place=Place(cpu), stop_gradient=True,
    20)
    >>> paddle.gcd(x4, x4)
    Tensor(shape=[], dtype=int64, place=Place(cpu), stop_gradient=True,
    0)
    >>> x5 = paddle.to_tensor(-20)
    >>> paddle.gcd(x1, x5)
    Tensor(shape=[], dtype=int64, place=Place(cpu), stop_gradient=True,
    4)
    """),
    Example("lcm", r"""
    >>> import paddle
    >>> x1 = paddle.to_tensor(12)
    >>> x2 = paddle.to_tensor(20)
    >>> paddle.lcm(x1, x2)
    Tensor(shape=[], dtype=int64, place=Place(cpu), stop_gradient=True,
    60)
    >>> x3 = paddle.arange(6)
    >>> paddle.lcm(x3, x2)
    Tensor(shape=[6], dtype=int64, place=Place(cpu), stop_gradient=True,
    [0, 20, 20, 60, 20, 20])
    >>> x4 = paddle.to_tensor(0)
    >>> paddle.lcm(x4, x2)
    Tensor(shape=[], dtype=int64, place=Place(cpu), stop_gradient=True,
    0)
    >>> paddle.lcm(x4, x4)
    Tensor(shape=[], dtype=int64, place=Place(cpu), stop_gradient=True,
    0)
    >>> x5 = paddle.to_tensor(-20)
    >>> paddle.lcm(x1, x5)
    Tensor(shape=[], dtype=int64, place=Place(cpu), stop_gradient=True,
    60)
    """),
    Example("diff", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([1, 4, 5, 2])
    >>> out = paddle.diff(x)
    >>> out
    Tensor(shape=[3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [ 3,  1, -3])
    >>> x_2 = paddle.to_tensor([1, 4, 5, 2])
    >>> out = paddle.diff(x_2, n=2)
    >>> out
    Tensor(shape=[2], dtype=int64, place=Place(cpu), stop_gradient=True,
    [ -2,  -4])
    >>> y = paddle.to_tensor([7, 9])
    >>> out = paddle.diff(x, append=y)
    >>> out
    Tensor(shape=[5], dtype=int64, place=Place(cpu), stop_gradient=True,
    [ 3,  1, -3,  5,  2])
    >>> out = paddle.diff(x, n=2, append=y)
    >>> out
    Tensor(shape=[4], dtype=int64, place=Place(cpu), stop_gradient=True,
    [-2, -4,  8, -3])
    >>> out = paddle.diff(x, n=3, append=y)
    >>> out
    Tensor(shape=[3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [-2 ,  12, -11])
    >>> z = paddle.to_tensor([[1, 2, 3], [4, 5, 6]])
    >>> out = paddle.diff(z, axis=0)
    >>> out
    Tensor(shape=[1, 3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[3, 3, 3]])
    >>> out = paddle.diff(z, axis=1)
    >>> out
    Tensor(shape=[2, 2], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[1, 1],
     [1, 1]])
    """),
    Example("frac", r"""
    >>> import paddle
    >>> input = paddle.to_tensor(
    ...     [
    ...         [12.22000003, -1.02999997],
    ...         [-0.54999995, 0.66000003],
    ...     ]
    ... )
    >>> output = paddle.frac(input)
    >>> output
    Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[ 0.22000027, -0.02999997],
     [-0.54999995,  0.66000003]])
    """),
    Example("sgn", r"""
    >>> import paddle
    >>> x = paddle.to_tensor(
    ...     [
    ...         [3 + 4j, 7 - 24j, 0, 1 + 2j],
    ...         [6 + 8j, 3, 0, -2],
    ...     ]
    ... )
    >>> paddle.sgn(x)
    Tensor(shape=[2, 4], dtype=complex64, place=Place(cpu), stop_gradient=True,
    [[ (0.60000002+0.80000001j),  (0.28000000-0.95999998j),
       (0.00000000+0.00000000j),  (0.44721359+0.89442718j)],
     [ (0.60000002+0.80000001j),  (1.00000000+0.00000000j),
       (0.00000000+0.00000000j), (-1.00000000+0.00000000j)]])
    """),
    Example("take", r"""
    >>> import paddle
    >>> x_int = paddle.arange(0, 12).reshape([3, 4])
    >>> x_float = x_int.astype(paddle.float64)
    >>> idx_pos = paddle.arange(4, 10).reshape([2, 3])  # positive index
    >>> idx_neg = paddle.arange(-2, 4).reshape([2, 3])  # negative index
    >>> idx_err = paddle.arange(-2, 13).reshape([3, 5])  # index out of range
    >>> paddle.take(x_int, idx_pos)
    Tensor(shape=[2, 3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[4, 5, 6],
     [7, 8, 9]])
    >>> paddle.take(x_int, idx_neg)
    Tensor(shape=[2, 3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[10, 11, 0 ],
     [1 , 2 , 3 ]])
    >>> paddle.take(x_float, idx_pos)
    Tensor(shape=[2, 3], dtype=float64, place=Place(cpu), stop_gradient=True,
    [[4., 5., 6.],
     [7., 8., 9.]])
    >>> x_int.take(idx_pos)
    Tensor(shape=[2, 3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[4, 5, 6],
     [7, 8, 9]])
    >>> paddle.take(x_int, idx_err, mode='wrap')
    Tensor(shape=[3, 5], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[10, 11, 0 , 1 , 2 ],
     [3 , 4 , 5 , 6 , 7 ],
     [8 , 9 , 10, 11, 0 ]])
    >>> paddle.take(x_int, idx_err, mode='clip')
    Tensor(shape=[3, 5], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[0 , 0 , 0 , 1 , 2 ],
     [3 , 4 , 5 , 6 , 7 ],
     [8 , 9 , 10, 11, 11]])
    """),
    Example("frexp", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([[1, 2, 3, 4]], dtype="float32")
    >>> # Paddle spells it paddle.tensor.math.frexp; core keeps its ops at the top level only.
    >>> mantissa, exponent = paddle.frexp(x)
    >>> mantissa
    Tensor(shape=[1, 4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[0.50000000, 0.50000000, 0.75000000, 0.50000000]])
    >>> exponent
    Tensor(shape=[1, 4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[1., 2., 2., 3.]])
    """),
    Example("trapezoid", r"""
    >>> import paddle
    >>> y = paddle.to_tensor([4, 5, 6], dtype='float32')
    >>> paddle.trapezoid(y)
    Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
    10.)
    >>> paddle.trapezoid(y, dx=2.0)
    Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
    20.)
    >>> y = paddle.to_tensor([4, 5, 6], dtype='float32')
    >>> x = paddle.to_tensor([1, 2, 3], dtype='float32')
    >>> paddle.trapezoid(y, x)
    Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
    10.)
    >>> y = paddle.to_tensor([1, 2, 3], dtype='float64')
    >>> x = paddle.to_tensor([8, 6, 4], dtype='float64')
    >>> paddle.trapezoid(y, x)
    Tensor(shape=[], dtype=float64, place=Place(cpu), stop_gradient=True,
    -8.)
    >>> y = paddle.arange(6).reshape((2, 3)).astype('float32')
    >>> paddle.trapezoid(y, axis=0)
    Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [1.50000000, 2.50000000, 3.50000000])
    >>> paddle.trapezoid(y, axis=1)
    Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [2., 8.])
    """),
    Example("cumulative_trapezoid", r"""
    >>> import paddle
    >>> y = paddle.to_tensor([4, 5, 6], dtype='float32')
    >>> paddle.cumulative_trapezoid(y)
    Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [4.50000000, 10.       ])
    >>> y = paddle.to_tensor([4, 5, 6], dtype='float32')
    >>> x = paddle.to_tensor([1, 2, 3], dtype='float32')
    >>> paddle.cumulative_trapezoid(y, x)
    Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [4.50000000, 10.       ])
    >>> y = paddle.to_tensor([1, 2, 3], dtype='float64')
    >>> x = paddle.to_tensor([8, 6, 4], dtype='float64')
    >>> paddle.cumulative_trapezoid(y, x)
    Tensor(shape=[2], dtype=float64, place=Place(cpu), stop_gradient=True,
    [-3., -8.])
    >>> y = paddle.arange(6).reshape((2, 3)).astype('float32')
    >>> paddle.cumulative_trapezoid(y, axis=0)
    Tensor(shape=[1, 3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[1.50000000, 2.50000000, 3.50000000]])
    >>> paddle.cumulative_trapezoid(y, axis=1)
    Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[0.50000000, 2.        ],
     [3.50000000, 8.        ]])
    """),
    Example("vander", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([1.0, 2.0, 3.0], dtype="float32")
    >>> out = paddle.vander(x)
    >>> out
    Tensor(shape=[3, 3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[1., 1., 1.],
     [4., 2., 1.],
     [9., 3., 1.]])
    >>> out1 = paddle.vander(x, 2)
    >>> out1
    Tensor(shape=[3, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[1., 1.],
     [2., 1.],
     [3., 1.]])
    >>> out2 = paddle.vander(x, increasing=True)
    >>> out2
    Tensor(shape=[3, 3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[1., 1., 1.],
     [1., 2., 4.],
     [1., 3., 9.]])
    >>> # Paddle's example goes on with paddle.complex(real, imag), which core lacks;
    >>> # the same complex vector is made with to_tensor here.
    >>> complex = paddle.to_tensor([2.0 + 1.0j, 4.0 + 3.0j])
    >>> out3 = paddle.vander(complex)
    >>> out3
    Tensor(shape=[2, 2], dtype=complex64, place=Place(cpu), stop_gradient=True,
    [[(2.00000000+1.00000000j), (1.00000000+0.00000000j)],
     [(4.00000000+3.00000000j), (1.00000000+0.00000000j)]])
    """),
    Example("polygamma", r"""
    >>> import paddle
    >>> data = paddle.to_tensor([2, 3, 25.5], dtype='float32')
    >>> res = paddle.polygamma(data, 1)
    >>> print(res)
    Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [0.64493412,  0.39493406,  0.03999467])
    """),
]

# ----- python/paddle/_paddle_docs.py (the docstrings of the C++ ops; develop, 2025) -------

C_OPS = [
    Example("acos", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([-0.4, -0.2, 0.1, 0.3])
    >>> out = paddle.acos(x)
    >>> print(out)
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [1.98231316, 1.77215421, 1.47062886, 1.26610363])
    """),
    Example("acosh", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([1.0, 3.0, 4.0, 5.0])
    >>> out = paddle.acosh(x)
    >>> print(out)
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [0.        , 1.76274717, 2.06343699, 2.29243159])
    """),
    Example("sinh", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([-0.4, -0.2, 0.1, 0.3])
    >>> out = paddle.sinh(x)
    >>> print(out)
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [-0.41075233, -0.20133601,  0.10016675,  0.30452031])
    """),
    Example("amin", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([[0.2, 0.1, 0.1, 0.1], [0.1, 0.1, 0.6, 0.7]], dtype='float64',
    ...     stop_gradient=False)
    >>> result1 = paddle.amin(x)
    >>> result1.backward()
    >>> result1
    Tensor(shape=[], dtype=float64, place=Place(cpu), stop_gradient=False,
    0.10000000)
    >>> x.grad
    Tensor(shape=[2, 4], dtype=float64, place=Place(cpu), stop_gradient=False,
    [[0.        , 0.20000000, 0.20000000, 0.20000000],
     [0.20000000, 0.20000000, 0.        , 0.        ]])
    >>> x.clear_grad()
    >>> result1_min = paddle.min(x)
    >>> result1_min.backward()
    >>> result1_min
    Tensor(shape=[], dtype=float64, place=Place(cpu), stop_gradient=False,
    0.10000000)
    >>> x.clear_grad()
    >>> result2 = paddle.amin(x, axis=0)
    >>> result2.backward()
    >>> result2
    Tensor(shape=[4], dtype=float64, place=Place(cpu), stop_gradient=False,
    [0.10000000, 0.10000000, 0.10000000, 0.10000000])
    >>> x.grad
    Tensor(shape=[2, 4], dtype=float64, place=Place(cpu), stop_gradient=False,
    [[0.        , 0.50000000, 1.        , 1.        ],
     [1.        , 0.50000000, 0.        , 0.        ]])
    >>> x.clear_grad()
    >>> result3 = paddle.amin(x, axis=-1)
    >>> result3.backward()
    >>> result3
    Tensor(shape=[2], dtype=float64, place=Place(cpu), stop_gradient=False,
    [0.10000000, 0.10000000])
    >>> x.grad
    Tensor(shape=[2, 4], dtype=float64, place=Place(cpu), stop_gradient=False,
    [[0.        , 0.33333333, 0.33333333, 0.33333333],
     [0.50000000, 0.50000000, 0.        , 0.        ]])
    >>> x.clear_grad()
    >>> result4 = paddle.amin(x, axis=1, keepdim=True)
    >>> result4.backward()
    >>> result4
    Tensor(shape=[2, 1], dtype=float64, place=Place(cpu), stop_gradient=False,
    [[0.10000000],
     [0.10000000]])
    >>> x.grad
    Tensor(shape=[2, 4], dtype=float64, place=Place(cpu), stop_gradient=False,
    [[0.        , 0.33333333, 0.33333333, 0.33333333],
     [0.50000000, 0.50000000, 0.        , 0.        ]])
    >>> y = paddle.to_tensor([[[0.2, 0.1], [0.1, 0.1]], [[0.1, 0.1], [0.6, 0.7]]], dtype='float64',
    ...     stop_gradient=False)
    >>> result5 = paddle.amin(y, axis=[1, 2])
    >>> result5.backward()
    >>> result5
    Tensor(shape=[2], dtype=float64, place=Place(cpu), stop_gradient=False,
    [0.10000000, 0.10000000])
    >>> y.grad
    Tensor(shape=[2, 2, 2], dtype=float64, place=Place(cpu), stop_gradient=False,
    [[[0.        , 0.33333333],
      [0.33333333, 0.33333333]],
     [[0.50000000, 0.50000000],
      [0.        , 0.        ]]])
    >>> y.clear_grad()
    >>> result6 = paddle.amin(y, axis=[0, 1])
    >>> result6.backward()
    >>> result6
    Tensor(shape=[2], dtype=float64, place=Place(cpu), stop_gradient=False,
    [0.10000000, 0.10000000])
    >>> y.grad
    Tensor(shape=[2, 2, 2], dtype=float64, place=Place(cpu), stop_gradient=False,
    [[[0.        , 0.33333333],
      [0.50000000, 0.33333333]],
     [[0.50000000, 0.33333333],
      [0.        , 0.        ]]])
    """),
    Example("amax", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([[0.1, 0.9, 0.9, 0.9], [0.9, 0.9, 0.6, 0.7]], dtype='float64',
    ...     stop_gradient=False)
    >>> result1 = paddle.amax(x)
    >>> result1.backward()
    >>> result1
    Tensor(shape=[], dtype=float64, place=Place(cpu), stop_gradient=False,
    0.90000000)
    >>> x.clear_grad()
    >>> result1_max = paddle.max(x)
    >>> result1_max.backward()
    >>> result1_max
    Tensor(shape=[], dtype=float64, place=Place(cpu), stop_gradient=False,
    0.90000000)
    >>> x.clear_grad()
    >>> result2 = paddle.amax(x, axis=0)
    >>> result2.backward()
    >>> result2
    Tensor(shape=[4], dtype=float64, place=Place(cpu), stop_gradient=False,
    [0.90000000, 0.90000000, 0.90000000, 0.90000000])
    >>> x.grad
    Tensor(shape=[2, 4], dtype=float64, place=Place(cpu), stop_gradient=False,
    [[0.        , 0.50000000, 1.        , 1.        ],
     [1.        , 0.50000000, 0.        , 0.        ]])
    >>> x.clear_grad()
    >>> result3 = paddle.amax(x, axis=-1)
    >>> result3.backward()
    >>> result3
    Tensor(shape=[2], dtype=float64, place=Place(cpu), stop_gradient=False,
    [0.90000000, 0.90000000])
    >>> x.grad
    Tensor(shape=[2, 4], dtype=float64, place=Place(cpu), stop_gradient=False,
    [[0.        , 0.33333333, 0.33333333, 0.33333333],
     [0.50000000, 0.50000000, 0.        , 0.        ]])
    >>> y = paddle.to_tensor([[[0.1, 0.9], [0.9, 0.9]], [[0.9, 0.9], [0.6, 0.7]]], dtype='float64',
    ...     stop_gradient=False)
    >>> result5 = paddle.amax(y, axis=[1, 2])
    >>> result5.backward()
    >>> result5
    Tensor(shape=[2], dtype=float64, place=Place(cpu), stop_gradient=False,
    [0.90000000, 0.90000000])
    >>> y.grad
    Tensor(shape=[2, 2, 2], dtype=float64, place=Place(cpu), stop_gradient=False,
    [[[0.        , 0.33333333],
      [0.33333333, 0.33333333]],
     [[0.50000000, 0.50000000],
      [0.        , 0.        ]]])
    """),
    Example("all", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([[1, 0], [1, 1]], dtype='int32')
    >>> x
    Tensor(shape=[2, 2], dtype=int32, place=Place(cpu), stop_gradient=True,
    [[1, 0],
     [1, 1]])
    >>> x = paddle.cast(x, 'bool')
    >>> out1 = paddle.all(x)
    >>> out1
    Tensor(shape=[], dtype=bool, place=Place(cpu), stop_gradient=True,
    False)
    >>> out2 = paddle.all(x, axis=0)
    >>> out2
    Tensor(shape=[2], dtype=bool, place=Place(cpu), stop_gradient=True,
    [True , False])
    >>> out3 = paddle.all(x, axis=-1)
    >>> out3
    Tensor(shape=[2], dtype=bool, place=Place(cpu), stop_gradient=True,
    [False, True ])
    >>> out4 = paddle.all(x, axis=1, keepdim=True)
    >>> out4
    Tensor(shape=[2, 1], dtype=bool, place=Place(cpu), stop_gradient=True,
    [[False],
     [True ]])
    """),
    Example("argmax", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([[5, 8, 9, 5], [0, 0, 1, 7], [6, 9, 2, 4]])
    >>> out1 = paddle.argmax(x)
    >>> print(out1.numpy())
    2
    >>> out2 = paddle.argmax(x, axis=0)
    >>> print(out2.numpy())
    [2 2 0 1]
    >>> out3 = paddle.argmax(x, axis=-1)
    >>> print(out3.numpy())
    [2 3 1]
    >>> out4 = paddle.argmax(x, axis=0, keepdim=True)
    >>> print(out4.numpy())
    [[2 2 0 1]]
    """),
    Example("argmin", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([[5, 8, 9, 5], [0, 0, 1, 7], [6, 9, 2, 4]])
    >>> out1 = paddle.argmin(x)
    >>> print(out1.numpy())
    4
    >>> out2 = paddle.argmin(x, axis=0)
    >>> print(out2.numpy())
    [1 1 1 2]
    >>> out3 = paddle.argmin(x, axis=-1)
    >>> print(out3.numpy())
    [0 0 2]
    >>> out4 = paddle.argmin(x, axis=0, keepdim=True)
    >>> print(out4.numpy())
    [[1 1 1 2]]
    """),
    Example("atan", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([-0.4, -0.2, 0.1, 0.3])
    >>> out = paddle.atan(x)
    >>> print(out)
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [-0.38050640, -0.19739556,  0.09966865,  0.29145682])
    """),
    Example("atanh", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([-0.4, -0.2, 0.1, 0.3])
    >>> out = paddle.atanh(x)
    >>> print(out)
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [-0.42364895, -0.20273255,  0.10033534,  0.30951962])
    """),
    Example("atan2", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([-1, +1, +1, -1]).astype('float32')
    >>> x
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [-1,  1,  1, -1])
    >>> y = paddle.to_tensor([-1, -1, +1, +1]).astype('float32')
    >>> y
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [-1,  -1,  1, 1])
    >>> out = paddle.atan2(x, y)
    >>> out
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [-2.35619450,  2.35619450,  0.78539819, -0.78539819])
    """),
    Example("log2", r"""
    >>> import paddle
    >>> x_i = paddle.to_tensor([[1.0], [2.0]])
    >>> res = paddle.log2(x_i)
    >>> res
    Tensor(shape=[2, 1], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[0.],
     [1.]])
    >>> x_i = paddle.full(shape=[1], fill_value=2, dtype='float32')
    >>> paddle.to_tensor(x_i)
    >>> res = paddle.log2(x_i)
    >>> res
    Tensor(shape=[1], dtype=float32, place=Place(cpu), stop_gradient=True,
    [1.])
    >>> x_i = paddle.full(shape=[1], fill_value=2, dtype='float64')
    >>> paddle.to_tensor(x_i)
    >>> res = paddle.log2(x_i)
    >>> res
    Tensor(shape=[1], dtype=float64, place=Place(cpu), stop_gradient=True,
    [1.])
    """),
    Example("log10", r"""
    >>> import paddle
    >>> x_i = paddle.to_tensor([[1.0], [10.0]])
    >>> res = paddle.log10(x_i)
    >>> res
    Tensor(shape=[2, 1], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[0.],
     [1.]])
    >>> x_i = paddle.full(shape=[1], fill_value=10, dtype='float64')
    >>> paddle.to_tensor(x_i)
    >>> res = paddle.log10(x_i)
    >>> res
    Tensor(shape=[1], dtype=float64, place=Place(cpu), stop_gradient=True,
    [1.])
    """),
    Example("asinh", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([-0.4, -0.2, 0.1, 0.3])
    >>> out = paddle.asinh(x)
    >>> print(out)
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [-0.39003533, -0.19869010,  0.09983408,  0.29567307])
    """),
    Example("reciprocal", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([-0.4, -0.2, 0.1, 0.3])
    >>> out = paddle.reciprocal(x)
    >>> print(out)
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [-2.50000000, -5.        ,  10.       ,  3.33333325])
    """),
    Example("square", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([-0.4, -0.2, 0.1, 0.3])
    >>> out = paddle.square(x)
    >>> print(out)
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [0.16000001, 0.04000000, 0.01000000, 0.09000000])
    """),
    Example("tan", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([-0.4, -0.2, 0.1, 0.3])
    >>> out = paddle.tan(x)
    >>> print(out)
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [-0.42279324, -0.20271003,  0.10033467,  0.30933627])
    """),
    Example("log1p", r"""
    >>> import paddle
    >>> data = paddle.to_tensor([[0], [1]], dtype='float32')
    >>> res = paddle.log1p(data)
    >>> res
    Tensor(shape=[2, 1], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[0.        ],
     [0.69314718]])
    """),
    Example("matmul", r"""
    >>> import paddle
    >>> x = paddle.rand([10])
    >>> y = paddle.rand([10])
    >>> z = paddle.matmul(x, y)
    >>> print(z.shape)
    paddle.Size([])
    >>> x = paddle.rand([10, 5])
    >>> y = paddle.rand([5])
    >>> z = paddle.matmul(x, y)
    >>> print(z.shape)
    paddle.Size([10])
    >>> x = paddle.rand([10, 5, 2])
    >>> y = paddle.rand([2])
    >>> z = paddle.matmul(x, y)
    >>> print(z.shape)
    paddle.Size([10, 5])
    >>> x = paddle.rand([10, 5, 2])
    >>> y = paddle.rand([10, 2, 5])
    >>> z = paddle.matmul(x, y)
    >>> print(z.shape)
    paddle.Size([10, 5, 5])
    >>> x = paddle.rand([10, 1, 5, 2])
    >>> y = paddle.rand([1, 3, 2, 5])
    >>> z = paddle.matmul(x, y)
    >>> print(z.shape)
    paddle.Size([10, 3, 5, 5])
    """, random=True),
    Example("logsumexp", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([[-1.5, 0.0, 2.0], [3.0, 1.2, -2.4]])
    >>> out1 = paddle.logsumexp(x)
    >>> out1
    Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
    3.46912265)
    >>> out2 = paddle.logsumexp(x, 1)
    >>> out2
    Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [2.15317822, 3.15684605])
    """),
    Example("softplus", r"""
    >>> import paddle
    >>> import paddle.nn.functional as F
    >>> x = paddle.to_tensor([-0.4, -0.2, 0.1, 0.3], dtype='float32')
    >>> out = F.softplus(x)
    >>> print(out)
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [0.51301527, 0.59813893, 0.74439669, 0.85435522])
    """),
    Example("i0", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([0, 1, 2, 3, 4], dtype="float32")
    >>> paddle.i0(x)
    Tensor(shape=[5], dtype=float32, place=Place(cpu), stop_gradient=True,
    [0.99999994 , 1.26606596 , 2.27958512 , 4.88079262 , 11.30192089])
    """),
    Example("i0e", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([0, 1, 2, 3, 4], dtype="float32")
    >>> print(paddle.i0e(x))
    Tensor(shape=[5], dtype=float32, place=Place(cpu), stop_gradient=True,
    [0.99999994, 0.46575963, 0.30850831, 0.24300036, 0.20700191])
    """),
    Example("isclose", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([10000.0, 1e-07])
    >>> y = paddle.to_tensor([10000.1, 1e-08])
    >>> result1 = paddle.isclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name="ignore_nan")
    >>> print(result1)
    Tensor(shape=[2], dtype=bool, place=Place(cpu), stop_gradient=True,
    [True , False])
    >>> result2 = paddle.isclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=True, name="equal_nan")
    >>> print(result2)
    Tensor(shape=[2], dtype=bool, place=Place(cpu), stop_gradient=True,
    [True , False])
    >>> x = paddle.to_tensor([1.0, float('nan')])
    >>> y = paddle.to_tensor([1.0, float('nan')])
    >>> result1 = paddle.isclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name="ignore_nan")
    >>> print(result1)
    Tensor(shape=[2], dtype=bool, place=Place(cpu), stop_gradient=True,
    [True , False])
    >>> result2 = paddle.isclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=True, name="equal_nan")
    >>> print(result2)
    Tensor(shape=[2], dtype=bool, place=Place(cpu), stop_gradient=True,
    [True, True])
    """),
    Example("isfinite", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([float('-inf'), -2, 3.6, float('inf'), 0, float('-nan'), float('nan')])
    >>> out = paddle.isfinite(x)
    >>> out
    Tensor(shape=[7], dtype=bool, place=Place(cpu), stop_gradient=True,
    [False, True , True , False, True , False, False])
    """),
    Example("isinf", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([float('-inf'), -2, 3.6, float('inf'), 0, float('-nan'), float('nan')])
    >>> out = paddle.isinf(x)
    >>> out
    Tensor(shape=[7], dtype=bool, place=Place(cpu), stop_gradient=True,
    [True , False, False, True , False, False, False])
    """),
    Example("isnan", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([float('-inf'), -2, 3.6, float('inf'), 0, float('-nan'), float('nan')])
    >>> out = paddle.isnan(x)
    >>> out
    Tensor(shape=[7], dtype=bool, place=Place(cpu), stop_gradient=True,
    [False, False, False, False, False, True , True ])
    """),
    Example("roll", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])
    >>> out_z1 = paddle.roll(x, shifts=1)
    >>> print(out_z1.numpy())
    [[9. 1. 2.]
     [3. 4. 5.]
     [6. 7. 8.]]
    >>> out_z2 = paddle.roll(x, shifts=1, axis=0)
    >>> print(out_z2.numpy())
    [[7. 8. 9.]
     [1. 2. 3.]
     [4. 5. 6.]]
    >>> out_z3 = paddle.roll(x, shifts=1, axis=1)
    >>> print(out_z3.numpy())
    [[3. 1. 2.]
     [6. 4. 5.]
     [9. 7. 8.]]
    """),
    Example("ceil", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([-0.4, -0.2, 0.1, 0.3])
    >>> out = paddle.ceil(x)
    >>> print(out)
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [-0., -0., 1. , 1. ])
    """),
    Example("sum", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([[0.2, 0.3, 0.5, 0.9], [0.1, 0.2, 0.6, 0.7]])
    >>> out1 = paddle.sum(x)
    >>> out1
    Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
    3.50000000)
    >>> out2 = paddle.sum(x, axis=0)
    >>> out2
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [0.30000001, 0.50000000, 1.10000002, 1.59999990])
    >>> out3 = paddle.sum(x, axis=-1)
    >>> out3
    Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [1.89999998, 1.60000002])
    >>> out4 = paddle.sum(x, axis=1, keepdim=True)
    >>> out4
    Tensor(shape=[2, 1], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[1.89999998],
     [1.60000002]])
    >>> y = paddle.to_tensor([[[1, 2], [3, 4]], [[5, 6], [7, 8]]])
    >>> out5 = paddle.sum(y, axis=[1, 2])
    >>> out5
    Tensor(shape=[2], dtype=int64, place=Place(cpu), stop_gradient=True,
    [10, 26])
    >>> out6 = paddle.sum(y, axis=[0, 1])
    >>> out6
    Tensor(shape=[2], dtype=int64, place=Place(cpu), stop_gradient=True,
    [16, 20])
    >>> x = paddle.to_tensor([[True, True, True, True], [False, False, False, False]])
    >>> out7 = paddle.sum(x)
    >>> out7
    Tensor(shape=[], dtype=int64, place=Place(cpu), stop_gradient=True,
    4)
    >>> out8 = paddle.sum(x, axis=0)
    >>> out8
    Tensor(shape=[4], dtype=int64, place=Place(cpu), stop_gradient=True,
    [1, 1, 1, 1])
    >>> out9 = paddle.sum(x, axis=1)
    >>> out9
    Tensor(shape=[2], dtype=int64, place=Place(cpu), stop_gradient=True,
    [4, 0])
    """),
    Example("index_put", r"""
    >>> import paddle
    >>> x = paddle.zeros([3, 3])
    >>> value = paddle.ones([3])
    >>> ix1 = paddle.to_tensor([0, 1, 2])
    >>> ix2 = paddle.to_tensor([1, 2, 1])
    >>> indices = (ix1, ix2)
    >>> out = paddle.index_put(x, indices, value)
    >>> print(x)
    Tensor(shape=[3, 3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[0., 0., 0.],
     [0., 0., 0.],
     [0., 0., 0.]])
    >>> print(out)
    Tensor(shape=[3, 3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[0., 1., 0.],
     [0., 0., 1.],
     [0., 1., 0.]])
    """),
    Example("any", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([[1, 0], [1, 1]], dtype='int32')
    >>> x = paddle.assign(x)
    >>> x
    Tensor(shape=[2, 2], dtype=int32, place=Place(cpu), stop_gradient=True,
    [[1, 0],
     [1, 1]])
    >>> x = paddle.cast(x, 'bool')
    >>> out1 = paddle.any(x)
    >>> out1
    Tensor(shape=[], dtype=bool, place=Place(cpu), stop_gradient=True,
    True)
    >>> out2 = paddle.any(x, axis=0)
    >>> out2
    Tensor(shape=[2], dtype=bool, place=Place(cpu), stop_gradient=True,
    [True, True])
    >>> out3 = paddle.any(x, axis=-1)
    >>> out3
    Tensor(shape=[2], dtype=bool, place=Place(cpu), stop_gradient=True,
    [True, True])
    >>> out4 = paddle.any(x, axis=1, keepdim=True)
    >>> out4
    Tensor(shape=[2, 1], dtype=bool, place=Place(cpu), stop_gradient=True,
    [[True],
     [True]])
    """),
    Example("expand_as", r"""
    >>> import paddle
    >>> data_x = paddle.to_tensor([1, 2, 3], 'int32')
    >>> data_y = paddle.to_tensor([[1, 2, 3], [4, 5, 6]], 'int32')
    >>> out = paddle.expand_as(data_x, data_y)
    >>> print(out)
    Tensor(shape=[2, 3], dtype=int32, place=Place(cpu), stop_gradient=True,
    [[1, 2, 3],
     [1, 2, 3]])
    """),
    Example("nn.functional.grid_sample", r"""
    >>> import paddle
    >>> import paddle.nn.functional as F
    >>> x = paddle.to_tensor([[[[-0.6, 0.8, -0.5], [-0.5, 0.2, 1.2], [1.4, 0.3, -0.2]]]],
    ...     dtype='float64')
    >>> grid = paddle.to_tensor(
    ...     [
    ...         [
    ...             [[0.2, 0.3], [-0.4, -0.3], [-0.9, 0.3], [-0.9, -0.6]],
    ...             [[0.4, 0.1], [0.9, -0.8], [0.4, 0.5], [0.5, -0.2]],
    ...             [[0.1, -0.8], [-0.3, -1.0], [0.7, 0.4], [0.2, 0.8]],
    ...         ]
    ...     ],
    ...     dtype='float64',
    ... )
    >>> y_t = F.grid_sample(x, grid, mode='bilinear', padding_mode='border', align_corners=True)
    >>> print(y_t)
    Tensor(shape=[1, 1, 3, 4], dtype=float64, place=Place(cpu), stop_gradient=True,
    [[[[ 0.34000000,  0.01600000,  0.08600000, -0.44800000],
       [ 0.55000000, -0.07600000,  0.35000000,  0.59000000],
       [ 0.59600000,  0.38000000,  0.52000000,  0.24000000]]]])
    """),
    Example("nn.functional.pixel_shuffle", r"""
    >>> import paddle
    >>> import paddle.nn.functional as F
    >>> x = paddle.randn(shape=[2, 9, 4, 4])
    >>> out_var = F.pixel_shuffle(x, 3)
    >>> print(out_var.shape)
    paddle.Size([2, 1, 12, 12])
    """, random=True),
    Example("nn.functional.gelu", r"""
    >>> import paddle
    >>> import paddle.nn.functional as F
    >>> x = paddle.to_tensor([[-1, 0.5], [1, 1.5]])
    >>> out1 = F.gelu(x)
    >>> print(out1)
    Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[-0.15865529,  0.34573123],
     [ 0.84134471,  1.39978933]])
    >>> out2 = F.gelu(x, True)
    >>> print(out2)
    Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[-0.15880796,  0.34571400],
     [ 0.84119201,  1.39957154]])
    >>> out3 = F.gelu(x, "none")
    >>> print(out3)
    Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[-0.15865529,  0.34573123],
     [ 0.84134471,  1.39978933]])
    >>> out4 = F.gelu(x, "tanh")
    >>> print(out4)
    Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[-0.15880796,  0.34571400],
     [ 0.84119201,  1.39957154]])
    """),
    Example("nn.functional.sigmoid", r"""
    >>> import paddle
    >>> import paddle.nn.functional as F
    >>> x = paddle.to_tensor([-0.4, -0.2, 0.1, 0.3])
    >>> out = F.sigmoid(x)
    >>> print(out)
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [0.40131235, 0.45016602, 0.52497917, 0.57444251])
    """),
    Example("greater_than", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([1, 2, 3])
    >>> y = paddle.to_tensor([1, 3, 2])
    >>> result1 = paddle.greater_than(x, y)
    >>> print(result1)
    Tensor(shape=[3], dtype=bool, place=Place(cpu), stop_gradient=True,
    [False, False, True ])
    """),
    Example("sin", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([-0.4, -0.2, 0.1, 0.3])
    >>> out = paddle.sin(x)
    >>> print(out)
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [-0.38941833, -0.19866933,  0.09983342,  0.29552022])
    """),
    Example("sign", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([3.0, 0.0, -2.0, 1.7], dtype='float32')
    >>> out = paddle.sign(x=x)
    >>> out
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [ 1.,  0., -1.,  1.])
    """),
    Example("lgamma", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([-0.4, -0.2, 0.1, 0.3])
    >>> out = paddle.lgamma(x)
    >>> out
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [1.31452465, 1.76149750, 2.25271273, 1.09579802])
    """),
    Example("log", r"""
    >>> import paddle
    >>> x = [[2, 3, 4], [7, 8, 9]]
    >>> x = paddle.to_tensor(x, dtype='float32')
    >>> print(paddle.log(x))
    Tensor(shape=[2, 3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[0.69314718, 1.09861231, 1.38629436],
     [1.94591010, 2.07944155, 2.19722462]])
    """),
    Example("rsqrt", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([0.1, 0.2, 0.3, 0.4])
    >>> out = paddle.rsqrt(x)
    >>> print(out)
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [3.16227770, 2.23606801, 1.82574177, 1.58113885])
    """),
    Example("cos", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([-0.4, -0.2, 0.1, 0.3])
    >>> out = paddle.cos(x)
    >>> print(out)
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [0.92106098, 0.98006660, 0.99500418, 0.95533651])
    """),
    Example("cosh", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([-0.4, -0.2, 0.1, 0.3])
    >>> out = paddle.cosh(x)
    >>> print(out)
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [1.08107233, 1.02006674, 1.00500417, 1.04533851])
    """),
    Example("floor", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([-0.4, -0.2, 0.1, 0.3])
    >>> out = paddle.floor(x)
    >>> print(out)
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [-1., -1.,  0.,  0.])
    """),
    Example("maximum", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([[1, 2], [7, 8]])
    >>> y = paddle.to_tensor([[3, 4], [5, 6]])
    >>> res = paddle.maximum(x, y)
    >>> print(res)
    Tensor(shape=[2, 2], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[3, 4],
     [7, 8]])
    >>> x = paddle.to_tensor([[1, 2, 3], [1, 2, 3]])
    >>> y = paddle.to_tensor([3, 0, 4])
    >>> res = paddle.maximum(x, y)
    >>> print(res)
    Tensor(shape=[2, 3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[3, 2, 4],
     [3, 2, 4]])
    >>> x = paddle.to_tensor([2, 3, 5], dtype='float32')
    >>> y = paddle.to_tensor([1, float("nan"), float("nan")], dtype='float32')
    >>> res = paddle.maximum(x, y)
    >>> print(res)
    Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [2. , nan, nan])
    >>> x = paddle.to_tensor([5, 3, float("inf")], dtype='float32')
    >>> y = paddle.to_tensor([1, -float("inf"), 5], dtype='float32')
    >>> res = paddle.maximum(x, y)
    >>> print(res)
    Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [5.  , 3.  , inf.])
    """),
    Example("minimum", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([[1, 2], [7, 8]])
    >>> y = paddle.to_tensor([[3, 4], [5, 6]])
    >>> res = paddle.minimum(x, y)
    >>> print(res)
    Tensor(shape=[2, 2], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[1, 2],
     [5, 6]])
    >>> x = paddle.to_tensor([[[1, 2, 3], [1, 2, 3]]])
    >>> y = paddle.to_tensor([3, 0, 4])
    >>> res = paddle.minimum(x, y)
    >>> print(res)
    Tensor(shape=[1, 2, 3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[[1, 0, 3],
      [1, 0, 3]]])
    >>> x = paddle.to_tensor([2, 3, 5], dtype='float32')
    >>> y = paddle.to_tensor([1, float("nan"), float("nan")], dtype='float32')
    >>> res = paddle.minimum(x, y)
    >>> print(res)
    Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [1. , nan, nan])
    >>> x = paddle.to_tensor([5, 3, float("inf")], dtype='float64')
    >>> y = paddle.to_tensor([1, -float("inf"), 5], dtype='float64')
    >>> res = paddle.minimum(x, y)
    >>> print(res)
    Tensor(shape=[3], dtype=float64, place=Place(cpu), stop_gradient=True,
    [ 1.  , -inf.,  5.  ])
    """),
    Example("sqrt", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([0.1, 0.2, 0.3, 0.4])
    >>> out = paddle.sqrt(x)
    >>> print(out)
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [0.31622776, 0.44721359, 0.54772258, 0.63245553])
    """),
    Example("tril", r"""
    >>> import paddle
    >>> data = paddle.arange(1, 13, dtype="int64").reshape([3, -1])
    >>> print(data)
    Tensor(shape=[3, 4], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[1 , 2 , 3 , 4 ],
     [5 , 6 , 7 , 8 ],
     [9 , 10, 11, 12]])
    >>> tril1 = paddle.tril(data)
    >>> print(tril1)
    Tensor(shape=[3, 4], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[1 , 0 , 0 , 0 ],
     [5 , 6 , 0 , 0 ],
     [9 , 10, 11, 0 ]])
    >>> tril2 = paddle.tril(data, diagonal=2)
    >>> print(tril2)
    Tensor(shape=[3, 4], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[1 , 2 , 3 , 0 ],
     [5 , 6 , 7 , 8 ],
     [9 , 10, 11, 12]])
    >>> tril3 = paddle.tril(data, diagonal=-1)
    >>> print(tril3)
    Tensor(shape=[3, 4], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[0 , 0 , 0 , 0 ],
     [5 , 0 , 0 , 0 ],
     [9 , 10, 0 , 0 ]])
    """),
    Example("triu", r"""
    >>> import paddle
    >>> # Paddle spells it paddle.tensor.triu; core keeps its ops at the top level only.
    >>> x = paddle.arange(1, 13, dtype="int64").reshape([3, -1])
    >>> triu1 = paddle.triu(x)
    >>> print(triu1)
    Tensor(shape=[3, 4], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[1 , 2 , 3 , 4 ],
     [0 , 6 , 7 , 8 ],
     [0 , 0 , 11, 12]])
    >>> triu2 = paddle.triu(x, diagonal=2)
    >>> print(triu2)
    Tensor(shape=[3, 4], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[0, 0, 3, 4],
     [0, 0, 0, 8],
     [0, 0, 0, 0]])
    >>> triu3 = paddle.triu(x, diagonal=-1)
    >>> print(triu3)
    Tensor(shape=[3, 4], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[1 , 2 , 3 , 4 ],
     [5 , 6 , 7 , 8 ],
     [0 , 10, 11, 12]])
    """),
    Example("bmm", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([[[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]], [[3.0, 3.0, 3.0], [4.0, 4.0,
    ...     4.0]]])
    >>> y = paddle.to_tensor([[[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]], [[4.0, 4.0], [5.0, 5.0], [6.0,
    ...     6.0]]])
    >>> out = paddle.bmm(x, y)
    >>> print(out)
    Tensor(shape=[2, 2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[[6. , 6. ],
      [12., 12.]],
     [[45., 45.],
      [60., 60.]]])
    """),
    Example("logical_and", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([True])
    >>> y = paddle.to_tensor([True, False, True, False])
    >>> res = paddle.logical_and(x, y)
    >>> print(res)
    Tensor(shape=[4], dtype=bool, place=Place(cpu), stop_gradient=True,
    [True , False, True , False])
    """),
    Example("logical_or", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([True, False], dtype="bool").reshape([2, 1])
    >>> y = paddle.to_tensor([True, False, True, False], dtype="bool").reshape([2, 2])
    >>> res = paddle.logical_or(x, y)
    >>> print(res)
    Tensor(shape=[2, 2], dtype=bool, place=Place(cpu), stop_gradient=True,
    [[True , True ],
     [True , False]])
    """),
    Example("logical_not", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([True, False, True, False])
    >>> res = paddle.logical_not(x)
    >>> print(res)
    Tensor(shape=[4], dtype=bool, place=Place(cpu), stop_gradient=True,
    [False, True , False, True ])
    """),
    Example("logical_xor", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([True, False], dtype="bool").reshape([2, 1])
    >>> y = paddle.to_tensor([True, False, True, False], dtype="bool").reshape([2, 2])
    >>> res = paddle.logical_xor(x, y)
    >>> print(res)
    Tensor(shape=[2, 2], dtype=bool, place=Place(cpu), stop_gradient=True,
    [[False, True ],
     [True , False]])
    """),
    Example("dot", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([1, 2, 3])
    >>> y = paddle.to_tensor([4, 5, 6])
    >>> z = paddle.dot(x, y)
    >>> print(z)
    Tensor(shape=[], dtype=int64, place=Place(cpu), stop_gradient=True,
    32)
    >>> x = paddle.to_tensor([[1, 2, 3], [2, 4, 6]])
    >>> y = paddle.to_tensor([[4, 5, 6], [4, 5, 6]])
    >>> z = paddle.dot(x, y)
    >>> print(z)
    Tensor(shape=[2], dtype=int64, place=Place(cpu), stop_gradient=True,
    [32, 64])
    """),
    Example("tanh", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([-0.4, -0.2, 0.1, 0.3])
    >>> out = paddle.tanh(x)
    >>> out
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [-0.37994900, -0.19737528,  0.09966799,  0.29131261])
    """),
    Example("exp", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([-0.4, -0.2, 0.1, 0.3])
    >>> out = paddle.exp(x)
    >>> print(out)
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [0.67032003, 0.81873077, 1.10517097, 1.34985888])
    """),
    Example("expm1", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([-0.4, -0.2, 0.1, 0.3])
    >>> out = paddle.expm1(x)
    >>> print(out)
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [-0.32967997, -0.18126924,  0.10517092,  0.34985882])
    """),
    Example("diag", r"""
    >>> import paddle
    >>> paddle.disable_static()
    >>> x = paddle.to_tensor([1, 2, 3])
    >>> y = paddle.diag(x)
    >>> print(y)
    Tensor(shape=[3, 3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[1, 0, 0],
     [0, 2, 0],
     [0, 0, 3]])
    >>> y = paddle.diag(x, offset=1)
    >>> print(y)
    Tensor(shape=[4, 4], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[0, 1, 0, 0],
     [0, 0, 2, 0],
     [0, 0, 0, 3],
     [0, 0, 0, 0]])
    >>> y = paddle.diag(x, padding_value=6)
    >>> print(y)
    Tensor(shape=[3, 3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[1, 6, 6],
     [6, 2, 6],
     [6, 6, 3]])
    >>> x = paddle.to_tensor([[1, 2, 3], [4, 5, 6]])
    >>> y = paddle.diag(x)
    >>> print(y)
    Tensor(shape=[2], dtype=int64, place=Place(cpu), stop_gradient=True,
    [1, 5])
    >>> y = paddle.diag(x, offset=1)
    >>> print(y)
    Tensor(shape=[2], dtype=int64, place=Place(cpu), stop_gradient=True,
    [2, 6])
    >>> y = paddle.diag(x, offset=-1)
    >>> print(y)
    Tensor(shape=[1], dtype=int64, place=Place(cpu), stop_gradient=True,
    [4])
    """),
    Example("diagonal", r"""
    >>> import paddle
    >>> paddle.seed(2023)
    >>> x = paddle.rand([2, 2, 3], 'float32')
    >>> print(x)
    Tensor(shape=[2, 2, 3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[[0.86583614, 0.52014720, 0.25960937],
      [0.90525323, 0.42400089, 0.40641287]],
     [[0.97020894, 0.74437362, 0.51785129],
      [0.73292869, 0.97786582, 0.04315904]]])
    >>> out1 = paddle.diagonal(x)
    >>> print(out1)
    Tensor(shape=[3, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[0.86583614, 0.73292869],
     [0.52014720, 0.97786582],
     [0.25960937, 0.04315904]])
    >>> out2 = paddle.diagonal(x, offset=0, axis1=2, axis2=1)
    >>> print(out2)
    Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[0.86583614, 0.42400089],
     [0.97020894, 0.97786582]])
    >>> out3 = paddle.diagonal(x, offset=1, axis1=0, axis2=1)
    >>> print(out3)
    Tensor(shape=[3, 1], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[0.90525323],
     [0.42400089],
     [0.40641287]])
    """, random=True),
]

# ----- python/paddle/tensor/stat.py (develop, 2025; the stored version the library tools
# ----- give as read_file id 5090534458) -------------------------------------------------

STAT = [
    Example("mean", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([[[1., 2., 3., 4.],
    ...                        [5., 6., 7., 8.],
    ...                        [9., 10., 11., 12.]],
    ...                       [[13., 14., 15., 16.],
    ...                        [17., 18., 19., 20.],
    ...                        [21., 22., 23., 24.]]])
    >>> out1 = paddle.mean(x)
    >>> print(out1.numpy())
    12.5
    >>> out2 = paddle.mean(x, axis=-1)
    >>> print(out2.numpy())
    [[ 2.5  6.5 10.5]
     [14.5 18.5 22.5]]
    >>> out3 = paddle.mean(x, axis=-1, keepdim=True)
    >>> print(out3.numpy())
    [[[ 2.5]
      [ 6.5]
      [10.5]]
     [[14.5]
      [18.5]
      [22.5]]]
    >>> out4 = paddle.mean(x, axis=[0, 2])
    >>> print(out4.numpy())
    [ 8.5 12.5 16.5]
    >>> out5 = paddle.mean(x, dtype='float64')
    >>> out5
    Tensor(shape=[], dtype=float64, place=Place(gpu:0), stop_gradient=True,
        12.50000000)
    """),
    Example("var", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([[1.0, 2.0, 3.0], [1.0, 4.0, 5.0]])
    >>> out1 = paddle.var(x)
    >>> print(out1.numpy())
    2.6666667
    >>> out2 = paddle.var(x, axis=1)
    >>> print(out2.numpy())
    [1.         4.3333335]
    """),
    Example("std", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([[1.0, 2.0, 3.0], [1.0, 4.0, 5.0]])
    >>> out1 = paddle.std(x)
    >>> print(out1.numpy())
    1.6329932
    >>> out2 = paddle.std(x, unbiased=False)
    >>> print(out2.numpy())
    1.490712
    >>> out3 = paddle.std(x, axis=1)
    >>> print(out3.numpy())
    [1.       2.081666]
    """),
    Example("numel", r"""
    >>> import paddle
    >>> x = paddle.full(shape=[4, 5, 7], fill_value=0, dtype='int32')
    >>> numel = paddle.numel(x)
    >>> print(numel.numpy())
    140
    """),
    Example("nanmedian", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([[float('nan'), 2. , 3. ], [0. , 1. , 2. ]])
    >>> y1 = x.nanmedian()
    >>> print(y1.numpy())
    2.0
    >>> y2 = x.nanmedian(0)
    >>> print(y2.numpy())
    [0.  1.5 2.5]
    >>> y3 = x.nanmedian(0, keepdim=True)
    >>> print(y3.numpy())
    [[0.  1.5 2.5]]
    >>> y4 = x.nanmedian((0, 1))
    >>> print(y4.numpy())
    2.0
    >>> y5 = x.nanmedian(mode='min')
    >>> print(y5.numpy())
    2.0
    >>> y6, y6_index = x.nanmedian(0, mode='min')
    >>> print(y6.numpy())
    [0. 1. 2.]
    >>> print(y6_index.numpy())
    [1 1 1]
    >>> y7, y7_index = x.nanmedian(1, mode='min')
    >>> print(y7.numpy())
    [2. 1.]
    >>> print(y7_index.numpy())
    [1 1]
    >>> y8 = x.nanmedian((0,1), mode='min')
    >>> print(y8.numpy())
    2.0
    """),
    Example("median", r"""
    >>> import paddle
    >>> import numpy as np
    >>> x = paddle.arange(12).reshape([3, 4])
    >>> y1 = paddle.median(x)
    >>> print(y1)
    Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
    5.50000000)
    >>> y2 = paddle.median(x, axis=0)
    >>> print(y2)
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [4., 5., 6., 7.])
    >>> y3 = paddle.median(x, axis=1)
    >>> print(y3)
    Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [1.50000000, 5.50000000, 9.50000000])
    >>> y4 = paddle.median(x, axis=0, keepdim=True)
    >>> print(y4)
    Tensor(shape=[1, 4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[4., 5., 6., 7.]])
    >>> y5 = paddle.median(x, mode='min')
    >>> print(y5)
    Tensor(shape=[], dtype=int64, place=Place(cpu), stop_gradient=True,
    5)
    >>> median_value, median_indices = paddle.median(x, axis=1, mode='min')
    >>> print(median_value)
    Tensor(shape=[3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [1, 5, 9])
    >>> print(median_indices)
    Tensor(shape=[3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [1, 1, 1])
    >>> x = paddle.to_tensor(np.array([[1,float('nan'),3,float('nan')],
    ...     [1,2,3,4],[float('nan'),1,2,3]]))
    >>> y6 = paddle.median(x, axis=-1, keepdim=True)
    >>> print(y6)
    Tensor(shape=[3, 1], dtype=float64, place=Place(cpu), stop_gradient=True,
    [[nan       ],
     [2.50000000],
     [nan       ]])
    >>> median_value, median_indices = paddle.median(x, axis=1, keepdim=True, mode='min')
    >>> print(median_value)
    Tensor(shape=[3, 1], dtype=float64, place=Place(cpu), stop_gradient=True,
    [[nan],
     [2. ],
     [nan]])
    >>> print(median_indices)
    Tensor(shape=[3, 1], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[1],
     [1],
     [0]])
    """),
    Example("quantile", r"""
    >>> import paddle
    >>> y = paddle.arange(0, 8 ,dtype="float32").reshape([4, 2])
    >>> y1 = paddle.quantile(y, q=0.5, axis=[0, 1])
    >>> print(y1)
    Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
    3.50000000)
    >>> y2 = paddle.quantile(y, q=0.5, axis=1)
    >>> print(y2)
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [0.50000000, 2.50000000, 4.50000000, 6.50000000])
    >>> y3 = paddle.quantile(y, q=[0.3, 0.5], axis=0)
    >>> print(y3)
    Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[1.80000000, 2.80000000],
     [3.        , 4.        ]])
    >>> y[0,0] = float("nan")
    >>> y4 = paddle.quantile(y, q=0.8, axis=1, keepdim=True)
    >>> print(y4)
    Tensor(shape=[4, 1], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[nan       ],
     [2.80000000],
     [4.80000000],
     [6.80000000]])
    """),
    Example("nanquantile", r"""
    >>> import paddle
    >>> x = paddle.to_tensor(
    ...     [[0, 1, 2, 3, 4],
    ...      [5, 6, 7, 8, 9]],
    ...     dtype="float32")
    >>> x[0,0] = float("nan")
    >>> y1 = paddle.nanquantile(x, q=0.5, axis=[0, 1])
    >>> print(y1)
    Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
    5.)
    >>> y2 = paddle.nanquantile(x, q=0.5, axis=1)
    >>> print(y2)
    Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [2.50000000, 7.        ])
    >>> y3 = paddle.nanquantile(x, q=[0.3, 0.5], axis=0)
    >>> print(y3)
    Tensor(shape=[2, 5], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[5.        , 2.50000000, 3.50000000, 4.50000000, 5.50000000],
     [5.        , 3.50000000, 4.50000000, 5.50000000, 6.50000000]])
    >>> y4 = paddle.nanquantile(x, q=0.8, axis=1, keepdim=True)
    >>> print(y4)
    Tensor(shape=[2, 1], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[3.40000000],
     [8.20000000]])
    >>> nan = paddle.full(shape=[2, 3], fill_value=float("nan"))
    >>> y5 = paddle.nanquantile(nan, q=0.8, axis=1, keepdim=True)
    >>> print(y5)
    Tensor(shape=[2, 1], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[nan],
     [nan]])
    """),
]

# ----- python/paddle/tensor/search.py (Paddle 3.x; read_file id 1008441239) -------------------

SEARCH = [
    Example("argsort", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([[[5,8,9,5],
    ...                        [0,0,1,7],
    ...                        [6,9,2,4]],
    ...                       [[5,2,4,2],
    ...                        [4,7,7,9],
    ...                        [1,7,0,6]]],
    ...                      dtype='float32')
    >>> out1 = paddle.argsort(x, axis=-1)
    >>> out2 = paddle.argsort(x, axis=0)
    >>> out3 = paddle.argsort(x, axis=1)
    >>> print(out1)
    Tensor(shape=[2, 3, 4], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[[0, 3, 1, 2],
      [0, 1, 2, 3],
      [2, 3, 0, 1]],
     [[1, 3, 2, 0],
      [0, 1, 2, 3],
      [2, 0, 3, 1]]])
    >>> print(out2)
    Tensor(shape=[2, 3, 4], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[[0, 1, 1, 1],
      [0, 0, 0, 0],
      [1, 1, 1, 0]],
     [[1, 0, 0, 0],
      [1, 1, 1, 1],
      [0, 0, 0, 1]]])
    >>> print(out3)
    Tensor(shape=[2, 3, 4], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[[1, 1, 1, 2],
      [0, 0, 2, 0],
      [2, 2, 0, 1]],
     [[2, 0, 2, 0],
      [1, 1, 0, 2],
      [0, 2, 1, 1]]])
    >>> # (Paddle's stable=False order of the ties below is its own sort's; left out here)
    >>> x = paddle.to_tensor([1, 0]*40, dtype='float32')
    >>> out2 = paddle.argsort(x, stable=True)
    >>> print(out2)
    Tensor(shape=[80], dtype=int64, place=Place(cpu), stop_gradient=True,
    [1 , 3 , 5 , 7 , 9 , 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31, 33, 35,
     37, 39, 41, 43, 45, 47, 49, 51, 53, 55, 57, 59, 61, 63, 65, 67, 69, 71,
     73, 75, 77, 79, 0 , 2 , 4 , 6 , 8 , 10, 12, 14, 16, 18, 20, 22, 24, 26,
     28, 30, 32, 34, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58, 60, 62,
     64, 66, 68, 70, 72, 74, 76, 78])
    """),
    Example("index_select", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([[1.0, 2.0, 3.0, 4.0],
    ...                       [5.0, 6.0, 7.0, 8.0],
    ...                       [9.0, 10.0, 11.0, 12.0]])
    >>> index = paddle.to_tensor([0, 1, 1], dtype='int32')
    >>> out_z1 = paddle.index_select(x=x, index=index)
    >>> print(out_z1.numpy())
    [[1. 2. 3. 4.]
     [5. 6. 7. 8.]
     [5. 6. 7. 8.]]
    >>> out_z2 = paddle.index_select(x=x, index=index, axis=1)
    >>> print(out_z2.numpy())
    [[ 1.  2.  2.]
     [ 5.  6.  6.]
     [ 9. 10. 10.]]
    """),
    Example("nonzero", r"""
    >>> import paddle
    >>> x1 = paddle.to_tensor([[1.0, 0.0, 0.0],
    ...                        [0.0, 2.0, 0.0],
    ...                        [0.0, 0.0, 3.0]])
    >>> x2 = paddle.to_tensor([0.0, 1.0, 0.0, 3.0])
    >>> out_z1 = paddle.nonzero(x1)
    >>> print(out_z1)
    Tensor(shape=[3, 2], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[0, 0],
     [1, 1],
     [2, 2]])
    >>> # changed: paddlepaddle 3.3.1 prints 1-D tuples here (the docstring says [N, 1])
    >>> out_z1_tuple = paddle.nonzero(x1, as_tuple=True)
    >>> for out in out_z1_tuple:
    ...     print(out)
    Tensor(shape=[3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [0, 1, 2])
    Tensor(shape=[3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [0, 1, 2])
    >>> out_z2 = paddle.nonzero(x2)
    >>> print(out_z2)
    Tensor(shape=[2, 1], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[1],
     [3]])
    >>> out_z2_tuple = paddle.nonzero(x2, as_tuple=True)
    >>> for out in out_z2_tuple:
    ...     print(out)
    Tensor(shape=[2], dtype=int64, place=Place(cpu), stop_gradient=True,
    [1, 3])
    """),
    Example("sort", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([[[5,8,9,5],
    ...                        [0,0,1,7],
    ...                        [6,9,2,4]],
    ...                       [[5,2,4,2],
    ...                        [4,7,7,9],
    ...                        [1,7,0,6]]],
    ...                      dtype='float32')
    >>> out1 = paddle.sort(x=x, axis=-1)
    >>> out2 = paddle.sort(x=x, axis=0)
    >>> out3 = paddle.sort(x=x, axis=1)
    >>> print(out1.numpy())
    [[[5. 5. 8. 9.]
      [0. 0. 1. 7.]
      [2. 4. 6. 9.]]
     [[2. 2. 4. 5.]
      [4. 7. 7. 9.]
      [0. 1. 6. 7.]]]
    >>> print(out2.numpy())
    [[[5. 2. 4. 2.]
      [0. 0. 1. 7.]
      [1. 7. 0. 4.]]
     [[5. 8. 9. 5.]
      [4. 7. 7. 9.]
      [6. 9. 2. 6.]]]
    >>> print(out3.numpy())
    [[[0. 0. 1. 4.]
      [5. 8. 2. 5.]
      [6. 9. 9. 7.]]
     [[1. 2. 0. 2.]
      [4. 7. 4. 6.]
      [5. 7. 7. 9.]]]
    """),
    Example("mode", r"""
    >>> import paddle
    >>> tensor = paddle.to_tensor([[[1,2,2],[2,3,3]],[[0,5,5],[9,9,0]]], dtype=paddle.float32)
    >>> res = paddle.mode(tensor, 2)
    >>> print(res)
    (Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[2., 3.],
     [5., 9.]]), Tensor(shape=[2, 2], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[2, 2],
     [2, 1]]))
    """),
    Example("where", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([0.9383, 0.1983, 3.2, 1.2])
    >>> y = paddle.to_tensor([1.0, 1.0, 1.0, 1.0])
    >>> out = paddle.where(x>1, x, y)
    >>> print(out)
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [1.        , 1.        , 3.20000005, 1.20000005])
    >>> # changed: paddlepaddle 3.3.1 prints shape [2] here (the docstring says [2, 1])
    >>> out = paddle.where(x>1)
    >>> print(out)
    (Tensor(shape=[2], dtype=int64, place=Place(cpu), stop_gradient=True,
    [2, 3]),)
    """),
    Example("index_sample", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([[1.0, 2.0, 3.0, 4.0],
    ...                       [5.0, 6.0, 7.0, 8.0],
    ...                       [9.0, 10.0, 11.0, 12.0]], dtype='float32')
    >>> index = paddle.to_tensor([[0, 1, 2],
    ...                           [1, 2, 3],
    ...                           [0, 0, 0]], dtype='int32')
    >>> target = paddle.to_tensor([[100, 200, 300, 400],
    ...                            [500, 600, 700, 800],
    ...                            [900, 1000, 1100, 1200]], dtype='int32')
    >>> out_z1 = paddle.index_sample(x, index)
    >>> print(out_z1.numpy())
    [[1. 2. 3.]
     [6. 7. 8.]
     [9. 9. 9.]]
    >>> top_value, top_index = paddle.topk(x, k=2)
    >>> out_z2 = paddle.index_sample(target, top_index)
    >>> print(top_value.numpy())
    [[ 4.  3.]
     [ 8.  7.]
     [12. 11.]]
    >>> print(top_index.numpy())
    [[3 2]
     [3 2]
     [3 2]]
    >>> print(out_z2.numpy())
    [[ 400  300]
     [ 800  700]
     [1200 1100]]
    """),
    Example("masked_select", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([[1.0, 2.0, 3.0, 4.0],
    ...                       [5.0, 6.0, 7.0, 8.0],
    ...                       [9.0, 10.0, 11.0, 12.0]])
    >>> mask = paddle.to_tensor([[True, False, False, False],
    ...                          [True, True, False, False],
    ...                          [True, False, False, False]])
    >>> out = paddle.masked_select(x, mask)
    >>> print(out.numpy())
    [1. 5. 6. 9.]
    """),
    Example("topk", r"""
    >>> import paddle
    >>> data_1 = paddle.to_tensor([1, 4, 5, 7])
    >>> value_1, indices_1 = paddle.topk(data_1, k=1)
    >>> print(value_1)
    Tensor(shape=[1], dtype=int64, place=Place(cpu), stop_gradient=True,
    [7])
    >>> print(indices_1)
    Tensor(shape=[1], dtype=int64, place=Place(cpu), stop_gradient=True,
    [3])
    >>> data_2 = paddle.to_tensor([[1, 4, 5, 7], [2, 6, 2, 5]])
    >>> value_2, indices_2 = paddle.topk(data_2, k=1)
    >>> print(value_2)
    Tensor(shape=[2, 1], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[7],
     [6]])
    >>> print(indices_2)
    Tensor(shape=[2, 1], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[3],
     [1]])
    >>> value_3, indices_3 = paddle.topk(data_2, k=1, axis=-1)
    >>> print(value_3)
    Tensor(shape=[2, 1], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[7],
     [6]])
    >>> value_4, indices_4 = paddle.topk(data_2, k=1, axis=0)
    >>> print(value_4)
    Tensor(shape=[1, 4], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[2, 6, 5, 7]])
    >>> print(indices_4)
    Tensor(shape=[1, 4], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[1, 1, 0, 0]])
    """),
    Example("bucketize", r"""
    >>> import paddle
    >>> sorted_sequence = paddle.to_tensor([2, 4, 8, 16], dtype='int32')
    >>> x = paddle.to_tensor([[0, 8, 4, 16], [-1, 2, 8, 4]], dtype='int32')
    >>> out1 = paddle.bucketize(x, sorted_sequence)
    >>> print(out1)
    Tensor(shape=[2, 4], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[0, 2, 1, 3],
     [0, 0, 2, 1]])
    >>> out2 = paddle.bucketize(x, sorted_sequence, right=True)
    >>> print(out2)
    Tensor(shape=[2, 4], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[0, 3, 2, 4],
     [0, 1, 3, 2]])
    >>> out3 = x.bucketize(sorted_sequence)
    >>> print(out3)
    Tensor(shape=[2, 4], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[0, 2, 1, 3],
     [0, 0, 2, 1]])
    >>> out4 = x.bucketize(sorted_sequence, right=True)
    >>> print(out4)
    Tensor(shape=[2, 4], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[0, 3, 2, 4],
     [0, 1, 3, 2]])
    """),
    Example("searchsorted", r"""
    >>> import paddle
    >>> sorted_sequence = paddle.to_tensor([[1, 3, 5, 7, 9, 11],
    ...                                     [2, 4, 6, 8, 10, 12]], dtype='int32')
    >>> values = paddle.to_tensor([[3, 6, 9, 10], [3, 6, 9, 10]], dtype='int32')
    >>> out1 = paddle.searchsorted(sorted_sequence, values)
    >>> print(out1)
    Tensor(shape=[2, 4], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[1, 3, 4, 5],
     [1, 2, 4, 4]])
    >>> out2 = paddle.searchsorted(sorted_sequence, values, right=True)
    >>> print(out2)
    Tensor(shape=[2, 4], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[2, 3, 5, 5],
     [1, 3, 4, 5]])
    >>> sorted_sequence_1d = paddle.to_tensor([1, 3, 5, 7, 9, 11, 13])
    >>> out3 = paddle.searchsorted(sorted_sequence_1d, values)
    >>> print(out3)
    Tensor(shape=[2, 4], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[1, 3, 4, 5],
     [1, 3, 4, 5]])
    """),
    Example("kthvalue", r"""
    >>> import paddle
    >>> x = paddle.randn((2,3,2))
    >>> y = paddle.kthvalue(x, 2, 1)
    >>> print(y)
    (Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[ 0.11855337,  0.41220093],
     [-0.09276631,  1.15149164]]),
    Tensor(shape=[2, 2], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[0, 1],
     [1, 1]]))
    """, random=True),
]

# ----- python/paddle/nn/functional/activation.py (Paddle 2.6 doctest form; read_file id
# ----- 302551126; the gelu example of Paddle 3 is among the C-op docs above) -----------------

ACTIVATION = [
    Example("nn.functional.celu", r"""
    >>> import paddle
    >>> import paddle.nn.functional as F
    >>> x = paddle.to_tensor([[-1., 6.], [1., 15.6]])
    >>> out = F.celu(x, alpha=0.2)
    >>> print(out)
    Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[-0.19865242,  6.        ],
     [ 1.        , 15.60000038]])
    """),
    Example("nn.functional.elu", r"""
    >>> import paddle
    >>> import paddle.nn.functional as F
    >>> x = paddle.to_tensor([[-1., 6.], [1., 15.6]])
    >>> out = F.elu(x, alpha=0.2)
    >>> print(out)
    Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[-0.12642412,  6.        ],
     [ 1.        , 15.60000038]])
    """),
    Example("nn.functional.hardshrink", r"""
    >>> import paddle
    >>> import paddle.nn.functional as F
    >>> x = paddle.to_tensor([-1, 0.3, 2.5])
    >>> out = F.hardshrink(x)
    >>> print(out)
    Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [-1.       ,  0.       , 2.50000000])
    """),
    Example("nn.functional.hardtanh", r"""
    >>> import paddle
    >>> import paddle.nn.functional as F
    >>> x = paddle.to_tensor([-1.5, 0.3, 2.5])
    >>> out = F.hardtanh(x)
    >>> print(out)
    Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [-1.       , 0.30000001,  1.       ])
    """),
    Example("nn.functional.hardsigmoid", r"""
    >>> import paddle
    >>> import paddle.nn.functional as F
    >>> x = paddle.to_tensor([-4., 5., 1.])
    >>> out = F.hardsigmoid(x)
    >>> print(out)
    Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [0.        , 1.        , 0.66666669])
    """),
    Example("nn.functional.hardswish", r"""
    >>> import paddle
    >>> import paddle.nn.functional as F
    >>> x = paddle.to_tensor([-4., 5., 1.])
    >>> out = F.hardswish(x)
    >>> print(out)
    Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [-0.       , 5.        , 0.66666669])
    """),
    Example("nn.functional.leaky_relu", r"""
    >>> import paddle
    >>> import paddle.nn.functional as F
    >>> x = paddle.to_tensor([-2., 0., 1.])
    >>> out = F.leaky_relu(x)
    >>> print(out)
    Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [-0.02000000,  0.        ,  1.        ])
    """),
    Example("nn.functional.prelu", r"""
    >>> import paddle
    >>> import paddle.nn.functional as F
    >>> data = paddle.to_tensor([[[[-2.0,  3.0, -4.0,  5.0],
    ...                            [ 3.0, -4.0,  5.0, -6.0],
    ...                            [-7.0, -8.0,  8.0,  9.0]],
    ...                           [[ 1.0, -2.0, -3.0,  4.0],
    ...                            [-5.0,  6.0,  7.0, -8.0],
    ...                            [ 6.0,  7.0,  8.0,  9.0]]]], dtype='float32')
    >>> w = paddle.to_tensor([0.25], dtype='float32')
    >>> out = F.prelu(data, w)
    >>> print(out)
    Tensor(shape=[1, 2, 3, 4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[[[-0.50000000,  3.        , -1.        ,  5.        ],
       [ 3.        , -1.        ,  5.        , -1.50000000],
       [-1.75000000, -2.        ,  8.        ,  9.        ]],
      [[ 1.        , -0.50000000, -0.75000000,  4.        ],
       [-1.25000000,  6.        ,  7.        , -2.        ],
       [ 6.        ,  7.        ,  8.        ,  9.        ]]]])
    """),
    Example("nn.functional.rrelu", r"""
    >>> import paddle
    >>> import paddle.nn.functional as F
    >>> paddle.seed(1)
    >>> input_tensor = paddle.to_tensor([[[[-2.0,  3.0, -4.0,  5.0],
    ...                                    [ 3.0, -4.0,  5.0, -6.0],
    ...                                    [-7.0, -8.0,  8.0,  9.0]],
    ...                                   [[ 1.0, -2.0, -3.0,  4.0],
    ...                                    [-5.0,  6.0,  7.0, -8.0],
    ...                                    [ 6.0,  7.0,  8.0,  9.0]]]], dtype='float32')
    >>> out = F.rrelu(input_tensor, 0.1, 0.3)
    >>> print(out)
    Tensor(shape=[1, 2, 3, 4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[[[-0.20715050,  3.        , -1.01193857,  5.        ],
       [ 3.        , -0.94084597,  5.        , -0.65544695],
       [-1.24268556, -2.34339547,  8.        ,  9.        ]],
      [[ 1.        , -0.44942653, -0.68969047,  4.        ],
       [-1.03736508,  6.        ,  7.        , -0.95799232],
       [ 6.        ,  7.        ,  8.        ,  9.        ]]]])
    """, random=True),
    Example("nn.functional.relu", r"""
    >>> import paddle
    >>> import paddle.nn.functional as F
    >>> x = paddle.to_tensor([-2, 0, 1], dtype='float32')
    >>> out = F.relu(x)
    >>> print(out)
    Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [0., 0., 1.])
    """),
    Example("nn.functional.log_sigmoid", r"""
    >>> import paddle
    >>> import paddle.nn.functional as F
    >>> x = paddle.to_tensor([1.0, 2.0, 3.0, 4.0])
    >>> out = F.log_sigmoid(x)
    >>> print(out)
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [-0.31326166, -0.12692805, -0.04858733, -0.01814996])
    """, atol=5e-8),  # exact: -0.0181499279; core -0.01814993, Paddle's float32 -0.01814996
    Example("nn.functional.maxout", r"""
    >>> import paddle
    >>> import paddle.nn.functional as F
    >>> paddle.seed(2023)
    >>> x = paddle.rand([1, 2, 3, 4])
    >>> out = F.maxout(x, groups=2)
    >>> print(out)
    Tensor(shape=[1, 1, 3, 4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[[[0.86583614, 0.71958369, 0.25960937, 0.90525323],
       [0.42400089, 0.40641287, 0.97020894, 0.74437362],
       [0.51785129, 0.73292869, 0.97786582, 0.92382854]]]])
    """, random=True),
    Example("nn.functional.relu6", r"""
    >>> import paddle
    >>> import paddle.nn.functional as F
    >>> x = paddle.to_tensor([-1, 0.3, 6.5])
    >>> out = F.relu6(x)
    >>> print(out)
    Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [0.        , 0.30000001, 6.        ])
    """),
    Example("nn.functional.selu", r"""
    >>> import paddle
    >>> import paddle.nn.functional as F
    >>> x = paddle.to_tensor([[0.0, 1.0],[2.0, 3.0]])
    >>> out = F.selu(x)
    >>> print(out)
    Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[0.        , 1.05070102],
     [2.10140204, 3.15210295]])
    """),
    Example("nn.functional.silu", r"""
    >>> import paddle
    >>> import paddle.nn.functional as F
    >>> x = paddle.to_tensor([1.0, 2.0, 3.0, 4.0])
    >>> out = F.silu(x)
    >>> print(out)
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [0.73105860, 1.76159406, 2.85772228, 3.92805505])
    """),
    Example("nn.functional.softmax", r"""
    >>> import paddle
    >>> import paddle.nn.functional as F
    >>> x = paddle.to_tensor([[[2.0, 3.0, 4.0, 5.0],
    ...                        [3.0, 4.0, 5.0, 6.0],
    ...                        [7.0, 8.0, 8.0, 9.0]],
    ...                       [[1.0, 2.0, 3.0, 4.0],
    ...                        [5.0, 6.0, 7.0, 8.0],
    ...                        [6.0, 7.0, 8.0, 9.0]]],dtype='float32')
    >>> out1 = F.softmax(x)
    >>> out2 = F.softmax(x, dtype='float64')
    >>> print(out1)
    >>> print(out2)
    Tensor(shape=[2, 3, 4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[[0.03205860, 0.08714432, 0.23688284, 0.64391428],
      [0.03205860, 0.08714432, 0.23688284, 0.64391428],
      [0.07232949, 0.19661194, 0.19661194, 0.53444666]],
     [[0.03205860, 0.08714432, 0.23688284, 0.64391428],
      [0.03205860, 0.08714432, 0.23688284, 0.64391428],
      [0.03205860, 0.08714432, 0.23688284, 0.64391428]]])
    Tensor(shape=[2, 3, 4], dtype=float64, place=Place(cpu), stop_gradient=True,
    [[[0.03205860, 0.08714432, 0.23688282, 0.64391426],
      [0.03205860, 0.08714432, 0.23688282, 0.64391426],
      [0.07232949, 0.19661193, 0.19661193, 0.53444665]],
     [[0.03205860, 0.08714432, 0.23688282, 0.64391426],
      [0.03205860, 0.08714432, 0.23688282, 0.64391426],
      [0.03205860, 0.08714432, 0.23688282, 0.64391426]]])
    """),
    Example("nn.functional.softshrink", r"""
    >>> import paddle
    >>> import paddle.nn.functional as F
    >>> x = paddle.to_tensor([-0.9, -0.2, 0.1, 0.8])
    >>> out = F.softshrink(x)
    >>> print(out)
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [-0.39999998,  0.        ,  0.        ,  0.30000001])
    """),
    Example("nn.functional.softsign", r"""
    >>> import paddle
    >>> import paddle.nn.functional as F
    >>> x = paddle.to_tensor([-0.4, -0.2, 0.1, 0.3])
    >>> out = F.softsign(x)
    >>> print(out)
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [-0.28571430, -0.16666666,  0.09090909,  0.23076925])
    """),
    Example("nn.functional.swish", r"""
    >>> import paddle
    >>> import paddle.nn.functional as F
    >>> x = paddle.to_tensor([-2., 0., 1.])
    >>> out = F.swish(x)
    >>> print(out)
    Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [-0.23840584,  0.        ,  0.73105860])
    """),
    Example("nn.functional.mish", r"""
    >>> import paddle
    >>> import paddle.nn.functional as F
    >>> x = paddle.to_tensor([-5., 0., 5.])
    >>> out = F.mish(x)
    >>> print(out)
    Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [-0.03357624,  0.        ,  4.99955177])
    """),
    Example("nn.functional.tanhshrink", r"""
    >>> import paddle
    >>> import paddle.nn.functional as F
    >>> x = paddle.to_tensor([-0.4, -0.2, 0.1, 0.3])
    >>> out = F.tanhshrink(x)
    >>> print(out)
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [-0.02005100, -0.00262472,  0.00033201,  0.00868741])
    """, atol=5e-8),  # exact: 0.4 - tanh(0.4) = 0.0200510377; core -0.02005103, Paddle -0.02005100
    Example("nn.functional.thresholded_relu", r"""
    >>> import paddle
    >>> import paddle.nn.functional as F
    >>> x = paddle.to_tensor([2., 0., 1.])
    >>> out = F.thresholded_relu(x)
    >>> print(out)
    Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [2., 0., 0.])
    """),
    Example("nn.functional.log_softmax", r"""
    >>> import paddle
    >>> import paddle.nn.functional as F
    >>> x = [[[-2.0, 3.0, -4.0, 5.0],
    ...       [3.0, -4.0, 5.0, -6.0],
    ...       [-7.0, -8.0, 8.0, 9.0]],
    ...      [[1.0, -2.0, -3.0, 4.0],
    ...       [-5.0, 6.0, 7.0, -8.0],
    ...       [6.0, 7.0, 8.0, 9.0]]]
    >>> x = paddle.to_tensor(x)
    >>> out1 = F.log_softmax(x)
    >>> out2 = F.log_softmax(x, dtype='float64')
    >>> print(out1)
    Tensor(shape=[2, 3, 4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[[-7.12783957 , -2.12783957 , -9.12783909 , -0.12783945 ],
      [-2.12705135 , -9.12705135 , -0.12705141 , -11.12705135],
      [-16.31326103, -17.31326103, -1.31326187 , -0.31326184 ]],
     [[-3.05181193 , -6.05181217 , -7.05181217 , -0.05181199 ],
      [-12.31326675, -1.31326652 , -0.31326646 , -15.31326675],
      [-3.44018984 , -2.44018984 , -1.44018972 , -0.44018975 ]]])
    >>> print(out2)
    Tensor(shape=[2, 3, 4], dtype=float64, place=Place(cpu), stop_gradient=True,
    [[[-7.12783948 , -2.12783948 , -9.12783948 , -0.12783948 ],
      [-2.12705141 , -9.12705141 , -0.12705141 , -11.12705141],
      [-16.31326180, -17.31326180, -1.31326180 , -0.31326180 ]],
     [[-3.05181198 , -6.05181198 , -7.05181198 , -0.05181198 ],
      [-12.31326640, -1.31326640 , -0.31326640 , -15.31326640],
      [-3.44018970 , -2.44018970 , -1.44018970 , -0.44018970 ]]])
    """),
    Example("nn.functional.glu", r"""
    >>> import paddle
    >>> from paddle.nn import functional as F
    >>> x = paddle.to_tensor(
    ...     [[-0.22014759, -1.76358426,  0.80566144,  0.04241343],
    ...         [-1.94900405, -1.89956081,  0.17134808, -1.11280477]]
    ... )
    >>> print(F.glu(x))
    Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[-0.15216254, -0.90048921],
    [-1.05778778, -0.46985325]])
    """),
    Example("nn.functional.gumbel_softmax", r"""
    >>> import paddle
    >>> import paddle.nn.functional as F
    >>> paddle.seed(2023)
    >>> logits = paddle.randn([4, 6])
    >>> temperature = 0.01
    >>> gumbel_softmax = F.gumbel_softmax(logits, temperature)
    >>> print(gumbel_softmax)
    Tensor(shape=[4, 6], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[0.00000000, 1.        , 0.00000000, 0.00000000, 0.00000000, 0.00000000],
     [0.00000000, 0.00000000, 1.        , 0.00000000, 0.00000000, 0.00000000],
     [0.00000000, 0.00000004, 0.00000000, 0.00000000, 1.        , 0.00000000],
     [0.00000000, 1.        , 0.00000000, 0.00000000, 0.00000000, 0.00000000]])
    """, random=True),
]

# ----- python/paddle/tensor/creation.py (Paddle 3.0 doctest form; read_file id 793597269) ----

CREATION = [
    Example("linspace", r"""
    >>> import paddle
    >>> data = paddle.linspace(0, 10, 5, 'float32')
    >>> print(data.numpy())
    [0. 2.5 5. 7.5 10.]
    >>> data = paddle.linspace(0, 10, 1, 'float32')
    >>> print(data.numpy())
    [0.]
    """),
    Example("logspace", r"""
    >>> import paddle
    >>> data = paddle.logspace(0, 10, 5, 2, 'float32')
    >>> print(data.numpy())
    [1.0000000e+00 5.6568542e+00 3.2000000e+01 1.8101933e+02 1.0240000e+03]
    >>> data = paddle.logspace(0, 10, 1, 2, 'float32')
    >>> print(data.numpy())
    [1.]
    """),
    Example("to_tensor", r"""
    >>> import paddle
    >>> type(paddle.to_tensor(1))
    <class 'paddle.Tensor'>
    >>> paddle.to_tensor(1)
    Tensor(shape=[], dtype=int64, place=Place(cpu), stop_gradient=True,
    1)
    >>> x = paddle.to_tensor(1, stop_gradient=False)
    >>> print(x)
    Tensor(shape=[], dtype=int64, place=Place(cpu), stop_gradient=False,
    1)
    >>> paddle.to_tensor(x)  # A new tensor will be created with default stop_gradient=True
    Tensor(shape=[], dtype=int64, place=Place(cpu), stop_gradient=True,
    1)
    >>> paddle.to_tensor([[0.1, 0.2], [0.3, 0.4]], place=paddle.CPUPlace(), stop_gradient=False)
    Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=False,
    [[0.10000000, 0.20000000],
     [0.30000001, 0.40000001]])
    >>> type(paddle.to_tensor([[1+1j, 2], [3+2j, 4]], dtype='complex64'))
    <class 'paddle.Tensor'>
    >>> paddle.to_tensor([[1+1j, 2], [3+2j, 4]], dtype='complex64')
    Tensor(shape=[2, 2], dtype=complex64, place=Place(cpu), stop_gradient=True,
    [[(1+1j), (2+0j)],
     [(3+2j), (4+0j)]])
    """),
    Example("full_like", r"""
    >>> import paddle
    >>> input = paddle.full(shape=[2, 3], fill_value=0.0, dtype='float32', name='input')
    >>> output = paddle.full_like(input, 2.0)
    >>> print(output.numpy())
    [[2. 2. 2.]
     [2. 2. 2.]]
    """),
    Example("ones", r"""
    >>> import paddle
    >>> data1 = paddle.ones(shape=[3, 2])
    >>> print(data1.numpy())
    [[1. 1.]
     [1. 1.]
     [1. 1.]]
    >>> shape = paddle.to_tensor([3, 2])
    >>> data2 = paddle.ones(shape=shape)
    >>> print(data2.numpy())
    [[1. 1.]
     [1. 1.]
     [1. 1.]]
    >>> shape = [paddle.to_tensor(3), paddle.to_tensor(2)]
    >>> data3 = paddle.ones(shape=shape)
    >>> print(data3.numpy())
    [[1. 1.]
     [1. 1.]
     [1. 1.]]
    """),
    Example("ones_like", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([1,2,3])
    >>> out1 = paddle.ones_like(x)
    >>> print(out1.numpy())
    [1 1 1]
    >>> out2 = paddle.ones_like(x, dtype='int32')
    >>> print(out2.numpy())
    [1 1 1]
    """),
    Example("zeros", r"""
    >>> import paddle
    >>> data1 = paddle.zeros(shape=[3, 2])
    >>> print(data1.numpy())
    [[0. 0.]
     [0. 0.]
     [0. 0.]]
    >>> shape = paddle.to_tensor([3, 2])
    >>> data2 = paddle.zeros(shape=shape)
    >>> print(data2.numpy())
    [[0. 0.]
     [0. 0.]
     [0. 0.]]
    >>> shape = [paddle.to_tensor(3), paddle.to_tensor(2)]
    >>> data3 = paddle.zeros(shape=shape)
    >>> print(data3.numpy())
    [[0. 0.]
     [0. 0.]
     [0. 0.]]
    """),
    Example("zeros_like", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([1, 2, 3])
    >>> out1 = paddle.zeros_like(x)
    >>> print(out1.numpy())
    [0 0 0]
    >>> out2 = paddle.zeros_like(x, dtype='int32')
    >>> print(out2.numpy())
    [0 0 0]
    """),
    Example("eye", r"""
    >>> import paddle
    >>> data = paddle.eye(3, dtype='int32')
    >>> print(data.numpy())
    [[1 0 0]
     [0 1 0]
     [0 0 1]]
    >>> data = paddle.eye(2, 3, dtype='int32')
    >>> print(data.numpy())
    [[1 0 0]
     [0 1 0]]
    """),
    Example("full", r"""
    >>> import paddle
    >>> data1 = paddle.full(shape=[3, 2], fill_value=1.)
    >>> print(data1.numpy())
    [[1. 1.]
     [1. 1.]
     [1. 1.]]
    >>> shape = paddle.to_tensor([3, 2])
    >>> data2 = paddle.full(shape=shape, fill_value=2.)
    >>> print(data2.numpy())
    [[2. 2.]
     [2. 2.]
     [2. 2.]]
    >>> shape = [paddle.to_tensor(3), paddle.to_tensor(2)]
    >>> data3 = paddle.full(shape=shape, fill_value=3.)
    >>> print(data3.numpy())
    [[3. 3.]
     [3. 3.]
     [3. 3.]]
    >>> val = paddle.full([], 2.0, "float32")
    >>> data5 = paddle.full(shape=[3, 2], fill_value=val)
    >>> print(data5.numpy())
    [[2. 2.]
     [2. 2.]
     [2. 2.]]
    """),
    Example("arange", r"""
    >>> import paddle
    >>> out1 = paddle.arange(5)
    >>> print(out1.numpy())
    [0 1 2 3 4]
    >>> out2 = paddle.arange(3, 9, 2.0)
    >>> print(out2.numpy())
    [3. 5. 7.]
    >>> out3 = paddle.arange(4.999, dtype='float32')
    >>> print(out3.numpy())
    [0. 1. 2. 3. 4.]
    >>> start_var = paddle.to_tensor(3)
    >>> out4 = paddle.arange(start_var, 7)
    >>> print(out4.numpy())
    [3 4 5 6]
    """),
    Example("meshgrid", r"""
    >>> import paddle
    >>> x = paddle.randint(low=0, high=100, shape=[100])
    >>> y = paddle.randint(low=0, high=100, shape=[200])
    >>> grid_x, grid_y = paddle.meshgrid(x, y)
    >>> print(grid_x.shape)
    [100, 200]
    >>> print(grid_y.shape)
    [100, 200]
    """, random=True),
    Example("diag_embed", r"""
    >>> import paddle
    >>> diag_embed_input = paddle.arange(6)
    >>> diag_embed_output1 = paddle.diag_embed(diag_embed_input)
    >>> print(diag_embed_output1)
    Tensor(shape=[6, 6], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[0, 0, 0, 0, 0, 0],
     [0, 1, 0, 0, 0, 0],
     [0, 0, 2, 0, 0, 0],
     [0, 0, 0, 3, 0, 0],
     [0, 0, 0, 0, 4, 0],
     [0, 0, 0, 0, 0, 5]])
    >>> diag_embed_output2 = paddle.diag_embed(diag_embed_input, offset=-1, dim1=0,dim2=1 )
    >>> print(diag_embed_output2)
    Tensor(shape=[7, 7], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[0, 0, 0, 0, 0, 0, 0],
     [0, 0, 0, 0, 0, 0, 0],
     [0, 1, 0, 0, 0, 0, 0],
     [0, 0, 2, 0, 0, 0, 0],
     [0, 0, 0, 3, 0, 0, 0],
     [0, 0, 0, 0, 4, 0, 0],
     [0, 0, 0, 0, 0, 5, 0]])
    >>> diag_embed_input_2dim = paddle.reshape(diag_embed_input,[2,3])
    >>> diag_embed_output3 = paddle.diag_embed(diag_embed_input_2dim,offset= 0, dim1=0, dim2=2 )
    >>> print(diag_embed_output3)
    Tensor(shape=[3, 2, 3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[[0, 0, 0],
      [3, 0, 0]],
     [[0, 1, 0],
      [0, 4, 0]],
     [[0, 0, 2],
      [0, 0, 5]]])
    """),
    Example("diagflat", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([1, 2, 3])
    >>> y = paddle.diagflat(x, offset=-1)
    >>> print(y)
    Tensor(shape=[4, 4], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[0, 0, 0, 0],
     [1, 0, 0, 0],
     [0, 2, 0, 0],
     [0, 0, 3, 0]])
    >>> x = paddle.to_tensor([[1, 2], [3, 4]])
    >>> y = paddle.diagflat(x)
    >>> print(y)
    Tensor(shape=[4, 4], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[1, 0, 0, 0],
     [0, 2, 0, 0],
     [0, 0, 3, 0],
     [0, 0, 0, 4]])
    >>> y = paddle.diagflat(x, offset=1)
    >>> print(y)
    Tensor(shape=[5, 5], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[0, 1, 0, 0, 0],
     [0, 0, 2, 0, 0],
     [0, 0, 0, 3, 0],
     [0, 0, 0, 0, 4],
     [0, 0, 0, 0, 0]])
    """),
    Example("empty", r"""
    >>> import paddle
    >>> # (Paddle's example prints the uninitialised values (doctest: +SKIP))
    >>> data1 = paddle.empty(shape=[3, 2])
    >>> data1.shape
    [3, 2]
    >>> data1.dtype
    paddle.float32
    """),
    Example("assign", r"""
    >>> import paddle
    >>> import numpy as np
    >>> data = paddle.full(shape=[3, 2], fill_value=2.5, dtype='float64')
    >>> print(data.numpy())
    [[2.5 2.5]
     [2.5 2.5]
     [2.5 2.5]]
    >>> array = np.array([[1, 1], [3, 4], [1, 3]]).astype(
    ...     np.int64
    ... )  # type: ignore[var-annotated]
    >>> result1 = paddle.zeros(shape=[3, 3], dtype='float32')
    >>> paddle.assign(array, result1)
    >>> print(result1.numpy())
    [[1 1]
     [3 4]
     [1 3]]
    >>> result2 = paddle.assign(data)
    >>> print(result2.numpy())
    [[2.5 2.5]
     [2.5 2.5]
     [2.5 2.5]]
    >>> result3 = paddle.assign(np.array([[2.5, 2.5], [2.5, 2.5], [2.5, 2.5]], dtype='float32'))
    >>> print(result3.numpy())
    [[2.5 2.5]
     [2.5 2.5]
     [2.5 2.5]]
    """),
    Example("tril_indices", r"""
    >>> import paddle
    >>> data1 = paddle.tril_indices(4,4,0)
    >>> print(data1)
    Tensor(shape=[2, 10], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[0, 1, 1, 2, 2, 2, 3, 3, 3, 3],
     [0, 0, 1, 0, 1, 2, 0, 1, 2, 3]])
    >>> data2 = paddle.tril_indices(4,4,2)
    >>> print(data2)
    Tensor(shape=[2, 15], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3],
     [0, 1, 2, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3]])
    >>> data3 = paddle.tril_indices(4,4,-1)
    >>> print(data3)
    Tensor(shape=[2, 6], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[1, 2, 2, 3, 3, 3],
     [0, 0, 1, 0, 1, 2]])
    """),
    Example("triu_indices", r"""
    >>> import paddle
    >>> data1 = paddle.triu_indices(4,4,0)
    >>> print(data1.numpy())
    [[0 0 0 0 1 1 1 2 2 3]
     [0 1 2 3 1 2 3 2 3 3]]
    >>> data2 = paddle.triu_indices(4,4,2)
    >>> print(data2.numpy())
    [[0 0 1]
     [2 3 3]]
    >>> data3 = paddle.triu_indices(4,4,-1)
    >>> print(data3.numpy())
    [[0 0 0 0 1 1 1 1 2 2 2 3 3]
     [0 1 2 3 0 1 2 3 1 2 3 2 3]]
    """),
]

# ----- python/paddle/tensor/manipulation.py (Paddle 3.0 doctest form; read_file id 197795162) -

MANIPULATION = [
    Example("shard_index", r"""
    >>> import paddle
    >>> label = paddle.to_tensor([[16], [1]], "int64")
    >>> shard_label = paddle.shard_index(input=label,
    ...                                  index_num=20,
    ...                                  nshards=2,
    ...                                  shard_id=0)
    >>> print(shard_label.numpy())
    [[-1]
     [ 1]]
    """),
    Example("fill_", r"""
    >>> import paddle
    >>> tensor = paddle.to_tensor([0, 1, 2, 3, 4])
    >>> tensor.fill_(0)
    >>> print(tensor.tolist())
    [0, 0, 0, 0, 0]
    """),
    Example("zero_", r"""
    >>> import paddle
    >>> tensor = paddle.to_tensor([0, 1, 2, 3, 4])
    >>> tensor.zero_()
    >>> print(tensor.tolist())
    [0, 0, 0, 0, 0]
    """),
    Example("tolist", r"""
    >>> import paddle
    >>> t = paddle.to_tensor([0,1,2,3,4])
    >>> expectlist = t.tolist()
    >>> print(expectlist)
    [0, 1, 2, 3, 4]
    >>> expectlist = paddle.tolist(t)
    >>> print(expectlist)
    [0, 1, 2, 3, 4]
    """),
    Example("concat", r"""
    >>> import paddle
    >>> x1 = paddle.to_tensor([[1, 2, 3],
    ...                        [4, 5, 6]])
    >>> x2 = paddle.to_tensor([[11, 12, 13],
    ...                        [14, 15, 16]])
    >>> x3 = paddle.to_tensor([[21, 22],
    ...                        [23, 24]])
    >>> zero = paddle.full(shape=[1], dtype='int32', fill_value=0)
    >>> out1 = paddle.concat(x=[x1, x2, x3], axis=-1)
    >>> out2 = paddle.concat(x=[x1, x2], axis=0)
    >>> out3 = paddle.concat(x=[x1, x2], axis=zero)
    >>> print(out1)
    Tensor(shape=[2, 8], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[1 , 2 , 3 , 11, 12, 13, 21, 22],
     [4 , 5 , 6 , 14, 15, 16, 23, 24]])
    >>> print(out2)
    Tensor(shape=[4, 3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[1 , 2 , 3 ],
     [4 , 5 , 6 ],
     [11, 12, 13],
     [14, 15, 16]])
    >>> print(out3)
    Tensor(shape=[4, 3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[1 , 2 , 3 ],
     [4 , 5 , 6 ],
     [11, 12, 13],
     [14, 15, 16]])
    """),
    Example("broadcast_tensors", r"""
    >>> import paddle
    >>> # (Paddle's example gives the shapes in a comment; they are printed here)
    >>> x1 = paddle.rand([1, 2, 3, 4]).astype('float32')
    >>> x2 = paddle.rand([1, 2, 1, 4]).astype('float32')
    >>> x3 = paddle.rand([1, 1, 3, 1]).astype('float32')
    >>> out1, out2, out3 = paddle.broadcast_tensors(input=[x1, x2, x3])
    >>> [out1.shape, out2.shape, out3.shape]
    [[1, 2, 3, 4], [1, 2, 3, 4], [1, 2, 3, 4]]
    """, random=True),
    Example("rot90", r"""
    >>> import paddle
    >>> data = paddle.arange(4)
    >>> data = paddle.reshape(data, (2, 2))
    >>> print(data.numpy())
    [[0 1]
     [2 3]]
    >>> y = paddle.rot90(data, 1, [0, 1])
    >>> print(y.numpy())
    [[1 3]
     [0 2]]
    >>> y= paddle.rot90(data, -1, [0, 1])
    >>> print(y.numpy())
    [[2 0]
     [3 1]]
    >>> data2 = paddle.arange(8)
    >>> data2 = paddle.reshape(data2, (2,2,2))
    >>> y = paddle.rot90(data2, 1, [1, 2])
    >>> print(y.numpy())
    [[[1 3]
      [0 2]]
     [[5 7]
      [4 6]]]
    """),
    Example("flatten", r"""
    >>> import paddle
    >>> image_shape=(2, 3, 4, 4)
    >>> x = paddle.arange(end=image_shape[0] * image_shape[1] * image_shape[2] * image_shape[3])
    >>> img = paddle.reshape(x, image_shape)
    >>> out = paddle.flatten(img, start_axis=1, stop_axis=2)
    >>> print(out.shape)
    [2, 12, 4]
    >>> # out shares data with img in dygraph mode
    >>> img[0, 0, 0, 0] = -1
    >>> print(out[0, 0, 0])
    Tensor(shape=[], dtype=int64, place=Place(cpu), stop_gradient=True,
    -1)
    """),
    Example("stack", r"""
    >>> import paddle
    >>> x1 = paddle.to_tensor([[1.0, 2.0]])
    >>> x2 = paddle.to_tensor([[3.0, 4.0]])
    >>> x3 = paddle.to_tensor([[5.0, 6.0]])
    >>> out = paddle.stack([x1, x2, x3], axis=0)
    >>> print(out.shape)
    [3, 1, 2]
    >>> print(out)
    Tensor(shape=[3, 1, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[[1., 2.]],
     [[3., 4.]],
     [[5., 6.]]])
    >>> out = paddle.stack([x1, x2, x3], axis=-2)
    >>> print(out.shape)
    [1, 3, 2]
    >>> print(out)
    Tensor(shape=[1, 3, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[[1., 2.],
      [3., 4.],
      [5., 6.]]])
    >>> x1 = paddle.ones([0, 1, 2])
    >>> x2 = paddle.ones([0, 1, 2])
    >>> out = paddle.stack([x1, x2], axis=0)
    >>> print(out.shape)
    [2, 0, 1, 2]
    >>> out = paddle.stack([x1, x2], axis=1)
    >>> print(out.shape)
    [0, 2, 1, 2]
    """),
    Example("hstack", r"""
    >>> import paddle
    >>> x1 = paddle.to_tensor(1.0)
    >>> x2 = paddle.to_tensor(2.0)
    >>> out = paddle.hstack((x1, x2))
    >>> print(out)
    Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [1., 2.])
    >>> x1 = paddle.to_tensor([1.0, 2.0])
    >>> x2 = paddle.to_tensor([3.0, 4.0, 5.0])
    >>> out = paddle.hstack((x1, x2))
    >>> print(out)
    Tensor(shape=[5], dtype=float32, place=Place(cpu), stop_gradient=True,
    [1., 2., 3., 4., 5.])
    >>> x1 = paddle.to_tensor(1.0)
    >>> x2 = paddle.to_tensor([3.0, 4.0, 5.0])
    >>> out = paddle.hstack((x1, x2))
    >>> print(out)
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [1., 3., 4., 5.])
    >>> x1 = paddle.to_tensor([[1.0, 2.0]])
    >>> x2 = paddle.to_tensor([[3.0, 4.0, 5.0]])
    >>> out = paddle.hstack((x1, x2))
    >>> print(out)
    Tensor(shape=[1, 5], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[1., 2., 3., 4., 5.]])
    """),
    Example("vstack", r"""
    >>> import paddle
    >>> x1 = paddle.to_tensor(1.0)
    >>> x2 = paddle.to_tensor(2.0)
    >>> out = paddle.vstack((x1, x2))
    >>> print(out)
    Tensor(shape=[2, 1], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[1.],
     [2.]])
    >>> x1 = paddle.to_tensor([1.0, 2.0, 3.0])
    >>> x2 = paddle.to_tensor([[3.0, 4.0, 5.0]])
    >>> out = paddle.vstack((x1, x2))
    >>> print(out)
    Tensor(shape=[2, 3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[1., 2., 3.],
     [3., 4., 5.]])
    """),
    Example("dstack", r"""
    >>> import paddle
    >>> x1 = paddle.to_tensor(1.0)
    >>> x2 = paddle.to_tensor(2.0)
    >>> out = paddle.dstack((x1, x2))
    >>> print(out)
    Tensor(shape=[1, 1, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[[1., 2.]]])
    >>> x1 = paddle.to_tensor([1.0, 2.0, 3.0])
    >>> x2 = paddle.to_tensor([3.0, 4.0, 5.0])
    >>> out = paddle.dstack((x1, x2))
    >>> print(out)
    Tensor(shape=[1, 3, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[[1., 3.],
      [2., 4.],
      [3., 5.]]])
    >>> x1 = paddle.to_tensor([[[1.0, 2.0], [3.0, 4.0]]])
    >>> x2 = paddle.to_tensor([[[3.0, 4.0], [5.0, 6.0]]])
    >>> out = paddle.dstack((x1, x2))
    >>> print(out)
    Tensor(shape=[1, 2, 4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[[1., 2., 3., 4.],
      [3., 4., 5., 6.]]])
    """),
    Example("column_stack", r"""
    >>> import paddle
    >>> x1 = paddle.to_tensor(1.0)
    >>> x2 = paddle.to_tensor(2.0)
    >>> out = paddle.column_stack((x1, x2))
    >>> print(out)
    Tensor(shape=[1, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[1., 2.]])
    >>> x1 = paddle.to_tensor([[1.0], [2.0], [3.0]])
    >>> x2 = paddle.to_tensor([3.0, 4.0, 5.0])
    >>> out = paddle.column_stack((x1, x2))
    >>> print(out)
    Tensor(shape=[3, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[1., 3.],
     [2., 4.],
     [3., 5.]])
    >>> x1 = paddle.to_tensor([[[1.0, 2.0], [3.0, 4.0]]])
    >>> x2 = paddle.to_tensor([[[3.0, 4.0], [5.0, 6.0]]])
    >>> out = paddle.column_stack((x1, x2))
    >>> print(out)
    Tensor(shape=[1, 4, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[[1., 2.],
      [3., 4.],
      [3., 4.],
      [5., 6.]]])
    """),
    Example("row_stack", r"""
    >>> import paddle
    >>> x1 = paddle.to_tensor(1.0)
    >>> x2 = paddle.to_tensor(2.0)
    >>> out = paddle.row_stack((x1, x2))
    >>> print(out)
    Tensor(shape=[2, 1], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[1.],
     [2.]])
    >>> x1 = paddle.to_tensor([[1.0, 2.0, 3.0]])
    >>> x2 = paddle.to_tensor([[3.0, 4.0, 5.0]])
    >>> out = paddle.row_stack((x1, x2))
    >>> print(out)
    Tensor(shape=[2, 3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[1., 2., 3.],
     [3., 4., 5.]])
    """),
    Example("split", r"""
    >>> import paddle
    >>> x = paddle.rand([3, 9, 5])
    >>> out0, out1, out2 = paddle.split(x, num_or_sections=3, axis=1)
    >>> print(out0.shape)
    [3, 3, 5]
    >>> print(out1.shape)
    [3, 3, 5]
    >>> print(out2.shape)
    [3, 3, 5]
    >>> out0, out1, out2 = paddle.split(x, num_or_sections=[2, 3, 4], axis=1)
    >>> print(out0.shape)
    [3, 2, 5]
    >>> print(out1.shape)
    [3, 3, 5]
    >>> print(out2.shape)
    [3, 4, 5]
    >>> out0, out1, out2 = paddle.split(x, num_or_sections=[2, 3, -1], axis=1)
    >>> print(out0.shape)
    [3, 2, 5]
    >>> print(out1.shape)
    [3, 3, 5]
    >>> print(out2.shape)
    [3, 4, 5]
    >>> out0, out1, out2 = paddle.split(x, num_or_sections=3, axis=-2)
    >>> print(out0.shape)
    [3, 3, 5]
    >>> print(out1.shape)
    [3, 3, 5]
    >>> print(out2.shape)
    [3, 3, 5]
    """, random=True),
    Example("tensor_split", r"""
    >>> import paddle
    >>> x = paddle.rand([8])
    >>> out0, out1, out2 = paddle.tensor_split(x, num_or_indices=3)
    >>> print(out0.shape)
    [3]
    >>> print(out1.shape)
    [3]
    >>> print(out2.shape)
    [2]
    >>> x = paddle.rand([8])
    >>> out0, out1, out2 = paddle.tensor_split(x, num_or_indices=[2, 3])
    >>> print(out0.shape)
    [2]
    >>> print(out1.shape)
    [1]
    >>> print(out2.shape)
    [5]
    >>> x = paddle.rand([7, 8])
    >>> out0, out1, out2 = paddle.tensor_split(x, num_or_indices=[2, 3], axis=1)
    >>> print(out0.shape)
    [7, 2]
    >>> print(out1.shape)
    [7, 1]
    >>> print(out2.shape)
    [7, 5]
    """, random=True),
    Example("hsplit", r"""
    >>> import paddle
    >>> x = paddle.rand([8])
    >>> out0, out1 = paddle.hsplit(x, num_or_indices=2)
    >>> print(out0.shape)
    [4]
    >>> x = paddle.rand([7, 8])
    >>> out0, out1, out2 = paddle.hsplit(x, num_or_indices=[1, 4])
    >>> print(out0.shape)
    [7, 1]
    >>> print(out1.shape)
    [7, 3]
    >>> print(out2.shape)
    [7, 4]
    """, random=True),
    Example("dsplit", r"""
    >>> import paddle
    >>> x = paddle.rand([7, 6, 8])
    >>> out0, out1 = paddle.dsplit(x, num_or_indices=2)
    >>> print(out0.shape)
    [7, 6, 4]
    >>> out0, out1, out2 = paddle.dsplit(x, num_or_indices=[1, 4])
    >>> print(out0.shape)
    [7, 6, 1]
    >>> print(out1.shape)
    [7, 6, 3]
    >>> print(out2.shape)
    [7, 6, 4]
    """, random=True),
    Example("vsplit", r"""
    >>> import paddle
    >>> x = paddle.rand([8, 6, 7])
    >>> out0, out1 = paddle.vsplit(x, num_or_indices=2)
    >>> print(out0.shape)
    [4, 6, 7]
    >>> out0, out1, out2 = paddle.vsplit(x, num_or_indices=[1, 4])
    >>> print(out0.shape)
    [1, 6, 7]
    >>> print(out1.shape)
    [3, 6, 7]
    >>> print(out2.shape)
    [4, 6, 7]
    """, random=True),
    Example("squeeze", r"""
    >>> import paddle
    >>> x = paddle.rand([5, 1, 10])
    >>> output = paddle.squeeze(x, axis=1)
    >>> print(x.shape)
    [5, 1, 10]
    >>> print(output.shape)
    [5, 10]
    >>> # output shares data with x in dygraph mode
    >>> x[0, 0, 0] = 10.
    >>> print(output[0, 0])
    Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
    10.)
    """),
    Example("unique_consecutive", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([1, 1, 2, 2, 3, 1, 1, 2])
    >>> output = paddle.unique_consecutive(x) #
    >>> print(output)
    Tensor(shape=[5], dtype=int64, place=Place(cpu), stop_gradient=True,
    [1, 2, 3, 1, 2])
    >>> _, inverse, counts = paddle.unique_consecutive(x, return_inverse=True, return_counts=True)
    >>> print(inverse)
    Tensor(shape=[8], dtype=int64, place=Place(cpu), stop_gradient=True,
    [0, 0, 1, 1, 2, 3, 3, 4])
    >>> print(counts)
    Tensor(shape=[5], dtype=int64, place=Place(cpu), stop_gradient=True,
     [2, 2, 1, 2, 1])
    >>> x = paddle.to_tensor([[2, 1, 3], [3, 0, 1], [2, 1, 3], [2, 1, 3]])
    >>> output = paddle.unique_consecutive(x, axis=0) #
    >>> print(output)
    Tensor(shape=[3, 3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[2, 1, 3],
     [3, 0, 1],
     [2, 1, 3]])
    """),
]

MANIPULATION += [
    Example("unique", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([2, 3, 3, 1, 5, 3])
    >>> unique = paddle.unique(x)
    >>> print(unique)
    Tensor(shape=[4], dtype=int64, place=Place(cpu), stop_gradient=True,
    [1, 2, 3, 5])
    >>> _, indices, inverse, counts = paddle.unique(x, return_index=True, return_inverse=True,
    ...     return_counts=True)
    >>> print(indices)
    Tensor(shape=[4], dtype=int64, place=Place(cpu), stop_gradient=True,
    [3, 0, 1, 4])
    >>> print(inverse)
    Tensor(shape=[6], dtype=int64, place=Place(cpu), stop_gradient=True,
    [1, 2, 2, 0, 3, 2])
    >>> print(counts)
    Tensor(shape=[4], dtype=int64, place=Place(cpu), stop_gradient=True,
    [1, 1, 3, 1])
    >>> x = paddle.to_tensor([[2, 1, 3], [3, 0, 1], [2, 1, 3]])
    >>> unique = paddle.unique(x)
    >>> print(unique)
    Tensor(shape=[4], dtype=int64, place=Place(cpu), stop_gradient=True,
    [0, 1, 2, 3])
    >>> unique = paddle.unique(x, axis=0)
    >>> print(unique)
    Tensor(shape=[2, 3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[2, 1, 3],
     [3, 0, 1]])
    """),
    Example("unsqueeze", r"""
    >>> import paddle
    >>> x = paddle.rand([5, 10])
    >>> print(x.shape)
    [5, 10]
    >>> out1 = paddle.unsqueeze(x, axis=0)
    >>> print(out1.shape)
    [1, 5, 10]
    >>> out2 = paddle.unsqueeze(x, axis=[0, 2])
    >>> print(out2.shape)
    [1, 5, 1, 10]
    >>> axis = paddle.to_tensor([0, 1, 2])
    >>> out3 = paddle.unsqueeze(x, axis=axis)
    >>> print(out3.shape)
    [1, 1, 1, 5, 10]
    >>> # out1, out2, out3 share data with x in dygraph mode
    >>> x[0, 0] = 10.
    >>> print(out1[0, 0, 0])
    Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
    10.)
    >>> print(out2[0, 0, 0, 0])
    Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
    10.)
    >>> print(out3[0, 0, 0, 0, 0])
    Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
    10.)
    """),
    Example("gather", r"""
    >>> import paddle
    >>> input = paddle.to_tensor([[1,2],[3,4],[5,6]])
    >>> index = paddle.to_tensor([0,1])
    >>> output = paddle.gather(input, index, axis=0)
    >>> print(output)
    Tensor(shape=[2, 2], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[1, 2],
     [3, 4]])
    """),
    Example("unbind", r"""
    >>> import paddle
    >>> # (Paddle's example gives the shapes in comments; they are printed here)
    >>> input = paddle.rand([3, 4, 5])
    >>> [x0, x1, x2] = paddle.unbind(input, axis=0)
    >>> [x0.shape, x1.shape, x2.shape]
    [[4, 5], [4, 5], [4, 5]]
    >>> [x0, x1, x2, x3] = paddle.unbind(input, axis=1)
    >>> x3.shape
    [3, 5]
    """, random=True),
    Example("scatter", r"""
    >>> import paddle
    >>> # (Paddle's example gives the CPU result of overwrite=True in a comment)
    >>> x = paddle.to_tensor([[1, 1], [2, 2], [3, 3]], dtype='float32')
    >>> index = paddle.to_tensor([2, 1, 0, 1], dtype='int64')
    >>> updates = paddle.to_tensor([[1, 1], [2, 2], [3, 3], [4, 4]], dtype='float32')
    >>> output1 = paddle.scatter(x, index, updates, overwrite=False)
    >>> print(output1)
    Tensor(shape=[3, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[3., 3.],
     [6., 6.],
     [1., 1.]])
    >>> output2 = paddle.scatter(x, index, updates, overwrite=True)
    >>> # CPU device:
    >>> # [[3., 3.],
    >>> #  [4., 4.],
    >>> #  [1., 1.]]
    >>> output2.tolist()
    [[3.0, 3.0], [4.0, 4.0], [1.0, 1.0]]
    """),
    Example("scatter_nd_add", r"""
    >>> import paddle
    >>> x = paddle.rand(shape=[3, 5, 9, 10], dtype='float32')
    >>> updates = paddle.rand(shape=[3, 9, 10], dtype='float32')
    >>> index = paddle.to_tensor([[1, 1],
    ...                           [0, 1],
    ...                           [1, 3]], dtype='int64')
    >>> output = paddle.scatter_nd_add(x, index, updates)
    >>> print(output.shape)
    [3, 5, 9, 10]
    """, random=True),
    Example("chunk", r"""
    >>> import paddle
    >>> # (Paddle's example gives the shapes in comments; they are printed here)
    >>> x = paddle.rand([3, 9, 5])
    >>> out0, out1, out2 = paddle.chunk(x, chunks=3, axis=1)
    >>> [out0.shape, out1.shape, out2.shape]
    [[3, 3, 5], [3, 3, 5], [3, 3, 5]]
    >>> out0, out1, out2 = paddle.chunk(x, chunks=3, axis=-2)
    >>> [out0.shape, out1.shape, out2.shape]
    [[3, 3, 5], [3, 3, 5], [3, 3, 5]]
    """, random=True),
    Example("tile", r"""
    >>> import paddle
    >>> data = paddle.to_tensor([1, 2, 3], dtype='int32')
    >>> out = paddle.tile(data, repeat_times=[2, 1])
    >>> print(out)
    Tensor(shape=[2, 3], dtype=int32, place=Place(cpu), stop_gradient=True,
    [[1, 2, 3],
     [1, 2, 3]])
    >>> out = paddle.tile(data, repeat_times=(2, 2))
    >>> print(out)
    Tensor(shape=[2, 6], dtype=int32, place=Place(cpu), stop_gradient=True,
    [[1, 2, 3, 1, 2, 3],
     [1, 2, 3, 1, 2, 3]])
    >>> repeat_times = paddle.to_tensor([1, 2], dtype='int32')
    >>> out = paddle.tile(data, repeat_times=repeat_times)
    >>> print(out)
    Tensor(shape=[1, 6], dtype=int32, place=Place(cpu), stop_gradient=True,
    [[1, 2, 3, 1, 2, 3]])
    """),
    Example("broadcast_to", r"""
    >>> import paddle
    >>> data = paddle.to_tensor([1, 2, 3], dtype='int32')
    >>> out = paddle.broadcast_to(data, shape=[2, 3])
    >>> print(out)
    Tensor(shape=[2, 3], dtype=int32, place=Place(cpu), stop_gradient=True,
    [[1, 2, 3],
     [1, 2, 3]])
    """),
    Example("expand", r"""
    >>> import paddle
    >>> data = paddle.to_tensor([1, 2, 3], dtype='int32')
    >>> out = paddle.expand(data, shape=[2, 3])
    >>> print(out)
    Tensor(shape=[2, 3], dtype=int32, place=Place(cpu), stop_gradient=True,
    [[1, 2, 3],
     [1, 2, 3]])
    """),
    Example("reshape", r"""
    >>> import paddle
    >>> x = paddle.rand([2, 4, 6], dtype="float32")
    >>> positive_four = paddle.full([1], 4, "int32")
    >>> out = paddle.reshape(x, [-1, 0, 3, 2])
    >>> print(out.shape)
    [2, 4, 3, 2]
    >>> out = paddle.reshape(x, shape=[positive_four, 12])
    >>> print(out.shape)
    [4, 12]
    >>> shape_tensor = paddle.to_tensor([8, 6], dtype=paddle.int32)
    >>> out = paddle.reshape(x, shape=shape_tensor)
    >>> print(out.shape)
    [8, 6]
    >>> # out shares data with x in dygraph mode
    >>> x[0, 0, 0] = 10.
    >>> print(out[0, 0])
    Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
    10.)
    """),
    Example("atleast_1d", r"""
    >>> import paddle
    >>> x = paddle.to_tensor(123, dtype='int32')
    >>> out = paddle.atleast_1d(x)
    >>> print(out)
    Tensor(shape=[1], dtype=int32, place=Place(cpu), stop_gradient=True,
    [123])
    >>> x = paddle.to_tensor(123, dtype='int32')
    >>> y = paddle.to_tensor([1.23], dtype='float32')
    >>> out = paddle.atleast_1d(x, y)
    >>> print(out)
    [Tensor(shape=[1], dtype=int32, place=Place(cpu), stop_gradient=True,
    [123]), Tensor(shape=[1], dtype=float32, place=Place(cpu), stop_gradient=True,
    [1.23000002])]
    >>> x = paddle.to_tensor(123, dtype='int32')
    >>> y = paddle.to_tensor([[1.23]], dtype='float32')
    >>> out = paddle.atleast_1d(x, y)
    >>> print(out)
    [Tensor(shape=[1], dtype=int32, place=Place(cpu), stop_gradient=True,
    [123]), Tensor(shape=[1, 1], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[1.23000002]])]
    """),
    Example("atleast_2d", r"""
    >>> import paddle
    >>> x = paddle.to_tensor(123, dtype='int32')
    >>> out = paddle.atleast_2d(x)
    >>> print(out)
    Tensor(shape=[1, 1], dtype=int32, place=Place(cpu), stop_gradient=True,
    [[123]])
    >>> x = paddle.to_tensor(123, dtype='int32')
    >>> y = paddle.to_tensor([1.23], dtype='float32')
    >>> out = paddle.atleast_2d(x, y)
    >>> print(out)
    [Tensor(shape=[1, 1], dtype=int32, place=Place(cpu), stop_gradient=True,
    [[123]]), Tensor(shape=[1, 1], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[1.23000002]])]
    >>> x = paddle.to_tensor(123, dtype='int32')
    >>> y = paddle.to_tensor([[[1.23]]], dtype='float32')
    >>> out = paddle.atleast_2d(x, y)
    >>> print(out)
    [Tensor(shape=[1, 1], dtype=int32, place=Place(cpu), stop_gradient=True,
    [[123]]), Tensor(shape=[1, 1, 1], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[[1.23000002]]])]
    """),
    Example("atleast_3d", r"""
    >>> import paddle
    >>> x = paddle.to_tensor(123, dtype='int32')
    >>> out = paddle.atleast_3d(x)
    >>> print(out)
    Tensor(shape=[1, 1, 1], dtype=int32, place=Place(cpu), stop_gradient=True,
    [[[123]]])
    >>> x = paddle.to_tensor(123, dtype='int32')
    >>> y = paddle.to_tensor([1.23], dtype='float32')
    >>> out = paddle.atleast_3d(x, y)
    >>> print(out)
    [Tensor(shape=[1, 1, 1], dtype=int32, place=Place(cpu), stop_gradient=True,
    [[[123]]]), Tensor(shape=[1, 1, 1], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[[1.23000002]]])]
    >>> x = paddle.to_tensor(123, dtype='int32')
    >>> y = paddle.to_tensor([[[[1.23]]]], dtype='float32')
    >>> out = paddle.atleast_3d(x, y)
    >>> print(out)
    [Tensor(shape=[1, 1, 1], dtype=int32, place=Place(cpu), stop_gradient=True,
    [[[123]]]), Tensor(shape=[1, 1, 1, 1], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[[[1.23000002]]]])]
    """),
    Example("gather_nd", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([[[1, 2], [3, 4], [5, 6]],
    ...                       [[7, 8], [9, 10], [11, 12]]])
    >>> index = paddle.to_tensor([[0, 1]])
    >>> output = paddle.gather_nd(x, index)
    >>> print(output)
    Tensor(shape=[1, 2], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[3, 4]])
    """),
    Example("tensordot", r"""
    >>> import paddle
    >>> from typing import Literal
    >>> data_type: Literal["float64"] = 'float64'
    >>> x = paddle.arange(4, dtype=data_type).reshape([2, 2])
    >>> y = paddle.arange(4, dtype=data_type).reshape([2, 2])
    >>> z = paddle.tensordot(x, y, axes=0)
    >>> print(z)
    Tensor(shape=[2, 2, 2, 2], dtype=float64, place=Place(cpu), stop_gradient=True,
     [[[[0., 0.],
        [0., 0.]],
       [[0., 1.],
        [2., 3.]]],
      [[[0., 2.],
        [4., 6.]],
       [[0., 3.],
        [6., 9.]]]])
    >>> x = paddle.arange(10, dtype=data_type)
    >>> y = paddle.arange(10, dtype=data_type)
    >>> z1 = paddle.tensordot(x, y, axes=1)
    >>> z2 = paddle.dot(x, y)
    >>> print(z1)
    Tensor(shape=[], dtype=float64, place=Place(cpu), stop_gradient=True,
    285.)
    >>> print(z2)
    Tensor(shape=[], dtype=float64, place=Place(cpu), stop_gradient=True,
    285.)
    >>> x = paddle.arange(6, dtype=data_type).reshape([2, 3])
    >>> y = paddle.arange(12, dtype=data_type).reshape([3, 4])
    >>> z1 = paddle.tensordot(x, y, axes=1)
    >>> z2 = paddle.matmul(x, y)
    >>> print(z1)
    Tensor(shape=[2, 4], dtype=float64, place=Place(cpu), stop_gradient=True,
    [[20., 23., 26., 29.],
     [56., 68., 80., 92.]])
    >>> print(z2)
    Tensor(shape=[2, 4], dtype=float64, place=Place(cpu), stop_gradient=True,
    [[20., 23., 26., 29.],
     [56., 68., 80., 92.]])
    >>> x = paddle.arange(24, dtype=data_type).reshape([2, 3, 4])
    >>> y = paddle.arange(36, dtype=data_type).reshape([3, 3, 4])
    >>> z = paddle.tensordot(x, y, axes=[1, 2])
    >>> print(z)
    Tensor(shape=[2, 3], dtype=float64, place=Place(cpu), stop_gradient=True,
    [[506. , 1298., 2090.],
     [1298., 3818., 6338.]])
    >>> x = paddle.arange(60, dtype=data_type).reshape([3, 4, 5])
    >>> y = paddle.arange(24, dtype=data_type).reshape([4, 3, 2])
    >>> z = paddle.tensordot(x, y, axes=([1, 0], [0, 1]))
    >>> print(z)
    Tensor(shape=[5, 2], dtype=float64, place=Place(cpu), stop_gradient=True,
    [[4400., 4730.],
     [4532., 4874.],
     [4664., 5018.],
     [4796., 5162.],
     [4928., 5306.]])
    >>> x = paddle.arange(720, dtype=data_type).reshape([2, 3, 4, 5, 6])
    >>> y = paddle.arange(720, dtype=data_type).reshape([3, 2, 4, 5, 6])
    >>> z = paddle.tensordot(x, y, axes=[[0, 1, 3, 4], [1, 0]])
    >>> print(z)
    Tensor(shape=[4, 4], dtype=float64, place=Place(cpu), stop_gradient=True,
    [[23217330., 24915630., 26613930., 28312230.],
     [24915630., 26775930., 28636230., 30496530.],
     [26613930., 28636230., 30658530., 32680830.],
     [28312230., 30496530., 32680830., 34865130.]])
    """),
    Example("repeat_interleave", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([[1, 2, 3], [4, 5, 6]])
    >>> repeats = paddle.to_tensor([3, 2, 1], dtype='int32')
    >>> out = paddle.repeat_interleave(x, repeats, 1)
    >>> print(out)
    Tensor(shape=[2, 6], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[1, 1, 1, 2, 2, 3],
     [4, 4, 4, 5, 5, 6]])
    >>> out = paddle.repeat_interleave(x, 2, 0)
    >>> print(out)
    Tensor(shape=[4, 3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[1, 2, 3],
     [1, 2, 3],
     [4, 5, 6],
     [4, 5, 6]])
    >>> out = paddle.repeat_interleave(x, 2, None)
    >>> print(out)
    Tensor(shape=[12], dtype=int64, place=Place(cpu), stop_gradient=True,
    [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6])
    """),
    Example("moveaxis", r"""
    >>> import paddle
    >>> x = paddle.ones([3, 2, 4])
    >>> outshape = paddle.moveaxis(x, [0, 1], [1, 2]).shape
    >>> print(outshape)
    [4, 3, 2]
    >>> x = paddle.ones([2, 3])
    >>> outshape = paddle.moveaxis(x, 0, 1).shape # equivalent to paddle.t(x)
    >>> print(outshape)
    [3, 2]
    """),
    Example("masked_fill", r"""
    >>> import paddle
    >>> x = paddle.ones((3, 3), dtype="float32")
    >>> mask = paddle.to_tensor([[True, True, False]])
    >>> print(mask)
    Tensor(shape=[1, 3], dtype=bool, place=Place(gpu:0), stop_gradient=True,
           [[True , True , False]])
    >>> out = paddle.masked_fill(x, mask, 2)
    >>> print(out)
    Tensor(shape=[3, 3], dtype=float32, place=Place(gpu:0), stop_gradient=True,
           [[2., 2., 1.],
            [2., 2., 1.],
            [2., 2., 1.]])
    """),
    Example("take_along_axis", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([[1, 2, 3], [4, 5, 6], [7,8,9]])
    >>> index = paddle.to_tensor([[0]])
    >>> axis = 0
    >>> result = paddle.take_along_axis(x, index, axis)
    >>> print(result)
    Tensor(shape=[1, 3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[1, 2, 3]])
    """),
    Example("put_along_axis", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([[10, 30, 20], [60, 40, 50]])
    >>> index = paddle.to_tensor([[0]])
    >>> value = 99
    >>> axis = 0
    >>> result = paddle.put_along_axis(x, index, value, axis)
    >>> print(result)
    Tensor(shape=[2, 3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[99, 99, 99],
     [60, 40, 50]])
    >>> index = paddle.zeros((2,2)).astype("int32")
    >>> value=paddle.to_tensor([[1,2],[3,4]]).astype(x.dtype)
    >>> result = paddle.put_along_axis(x, index, value, 0, "add", True, False)
    >>> print(result)
    Tensor(shape=[2, 3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[14, 36, 20],
     [60, 40, 50]])
    >>> result = paddle.put_along_axis(x, index, value, 0, "mul", True, False)
    >>> print(result)
    Tensor(shape=[2, 3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[30 , 240, 20 ],
     [60 , 40 , 50 ]])
    >>> result = paddle.put_along_axis(x, index, value, 0, "mean", True, False)
    >>> print(result)
    Tensor(shape=[2, 3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[4 , 12, 20],
     [60, 40, 50]])
    >>> result = paddle.put_along_axis(x, index, value, 0, "amin", True, False)
    >>> print(result)
    Tensor(shape=[2, 3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[1 , 2 , 20],
     [60, 40, 50]])
    >>> result = paddle.put_along_axis(x, index, value, 0, "amax", True, False)
    >>> print(result)
    Tensor(shape=[2, 3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[10, 30, 20],
     [60, 40, 50]])
    >>> result = paddle.put_along_axis(x, index, value, 0, "add", False, False)
    >>> print(result)
    Tensor(shape=[2, 3], dtype=int64, place=Place(cpu), stop_gradient=True,
    [[4 , 6 , 20],
     [60, 40, 50]])
    """),
    Example("unflatten", r"""
    >>> import paddle
    >>> x = paddle.randn(shape=[4, 6, 8])
    >>> shape = [2, 3]
    >>> axis = 1
    >>> res = paddle.unflatten(x, axis, shape)
    >>> print(res.shape)
    [4, 2, 3, 8]
    >>> x = paddle.randn(shape=[4, 6, 8])
    >>> shape = (-1, 2)
    >>> axis = -1
    >>> res = paddle.unflatten(x, axis, shape)
    >>> print(res.shape)
    [4, 6, 4, 2]
    >>> x = paddle.randn(shape=[4, 6, 8])
    >>> shape = paddle.to_tensor([2, 2])
    >>> axis = 0
    >>> res = paddle.unflatten(x, axis, shape)
    >>> print(res.shape)
    [2, 2, 6, 8]
    """, random=True),
    Example("unfold", r"""
    >>> import paddle
    >>> x = paddle.arange(9, dtype="float64")
    >>> out = paddle.unfold(x, 0, 2, 4)
    >>> print(out)
    Tensor(shape=[2, 2], dtype=float64, place=Place(cpu), stop_gradient=True,
    [[0., 1.],
     [4., 5.]])
    """),
    Example("index_fill", r"""
    >>> import paddle
    >>> input_tensor = paddle.to_tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]], dtype='int64')
    >>> index = paddle.to_tensor([0, 2], dtype="int32")
    >>> value = -1
    >>> res = paddle.index_fill(input_tensor, index, 0, value)
    >>> print(input_tensor)
    Tensor(shape=[3, 3], dtype=int64, place=Place(gpu:0), stop_gradient=True,
           [[1, 2, 3],
            [4, 5, 6],
            [7, 8, 9]])
    >>> print(res)
    Tensor(shape=[3, 3], dtype=int64, place=Place(gpu:0), stop_gradient=True,
           [[-1, -1, -1],
            [ 4,  5,  6],
            [-1, -1, -1]])
    """),
    Example("diagonal_scatter", r"""
    >>> import paddle
    >>> x = paddle.arange(6.0).reshape((2, 3))
    >>> y = paddle.ones((2,))
    >>> out = x.diagonal_scatter(y)
    >>> print(out)
    Tensor(shape=[2, 3], dtype=float32, place=Place(gpu:0), stop_gradient=True,
           [[1., 1., 2.],
            [3., 1., 5.]])
    """),
    Example("select_scatter", r"""
    >>> import paddle
    >>> x = paddle.zeros((2,3,4)).astype("float32")
    >>> values = paddle.ones((2,4)).astype("float32")
    >>> res = paddle.select_scatter(x,values,1,1)
    >>> print(res)
    Tensor(shape=[2, 3, 4], dtype=float32, place=Place(cpu), stop_gradient=True,
           [[[0., 0., 0., 0.],
             [1., 1., 1., 1.],
             [0., 0., 0., 0.]],
            [[0., 0., 0., 0.],
             [1., 1., 1., 1.],
             [0., 0., 0., 0.]]])
    """),
    Example("slice_scatter", r"""
    >>> import paddle
    >>> x = paddle.zeros((3, 9))
    >>> value = paddle.ones((3, 2))
    >>> res = paddle.slice_scatter(x, value, axes=[1], starts=[2], ends=[6], strides=[2])
    >>> print(res)
    Tensor(shape=[3, 9], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[0., 0., 1., 0., 1., 0., 0., 0., 0.],
     [0., 0., 1., 0., 1., 0., 0., 0., 0.],
     [0., 0., 1., 0., 1., 0., 0., 0., 0.]])
    >>> x = paddle.zeros((3, 9))
    >>> value = paddle.ones((3, 1))
    >>> res = paddle.slice_scatter(x, value, axes=[1], starts=[2], ends=[6], strides=[2])
    >>> print(res)
    Tensor(shape=[3, 9], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[0., 0., 1., 0., 1., 0., 0., 0., 0.],
     [0., 0., 1., 0., 1., 0., 0., 0., 0.],
     [0., 0., 1., 0., 1., 0., 0., 0., 0.]])
    >>> x = paddle.zeros((3, 3, 5))
    >>> value = paddle.ones((1, 3, 1))
    >>> res = paddle.slice_scatter(x, value, axes=[0, 2], starts=[1, 0], ends=[3, 4], strides=[1,
    ...     2])
    >>> print(res)
    Tensor(shape=[3, 3, 5], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[[0., 0., 0., 0., 0.],
      [0., 0., 0., 0., 0.],
      [0., 0., 0., 0., 0.]],
     [[1., 0., 1., 0., 0.],
      [1., 0., 1., 0., 0.],
      [1., 0., 1., 0., 0.]],
     [[1., 0., 1., 0., 0.],
      [1., 0., 1., 0., 0.],
      [1., 0., 1., 0., 0.]]])
    """),
    Example("block_diag", r"""
    >>> import paddle
    >>> A = paddle.to_tensor([[4], [3], [2]])
    >>> B = paddle.to_tensor([7, 6, 5])
    >>> C = paddle.to_tensor(1)
    >>> D = paddle.to_tensor([[5, 4, 3], [2, 1, 0]])
    >>> E = paddle.to_tensor([[8, 7], [7, 8]])
    >>> out = paddle.block_diag([A, B, C, D, E])
    >>> print(out)
    Tensor(shape=[9, 10], dtype=int64, place=Place(gpu:0), stop_gradient=True,
        [[4, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        [3, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        [2, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        [0, 7, 6, 5, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 1, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 5, 4, 3, 0, 0],
        [0, 0, 0, 0, 0, 2, 1, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0, 0, 8, 7],
        [0, 0, 0, 0, 0, 0, 0, 0, 7, 8]])
    """),
]

# ----- python/paddle/nn/functional/loss.py (Paddle 3.0 doctest form; read_file id 470252433) --

LOSS = [
    Example("nn.functional.square_error_cost", r"""
    >>> import paddle
    >>> input = paddle.to_tensor([1.1, 1.9])
    >>> label = paddle.to_tensor([1.0, 2.0])
    >>> output = paddle.nn.functional.square_error_cost(input, label)
    >>> print(output)
    Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
            [0.01000000, 0.01000000])
    """),
    Example("nn.functional.binary_cross_entropy", r"""
    >>> import paddle
    >>> input = paddle.to_tensor([0.5, 0.6, 0.7], 'float32')
    >>> label = paddle.to_tensor([1.0, 0.0, 1.0], 'float32')
    >>> output = paddle.nn.functional.binary_cross_entropy(input, label)
    >>> print(output)
    Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
            0.65537095)
    """),
    Example("nn.functional.binary_cross_entropy_with_logits", r"""
    >>> import paddle
    >>> logit = paddle.to_tensor([5.0, 1.0, 3.0])
    >>> label = paddle.to_tensor([1.0, 0.0, 1.0])
    >>> output = paddle.nn.functional.binary_cross_entropy_with_logits(logit, label)
    >>> print(output)
    Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
            0.45618808)
    """),
    Example("nn.functional.smooth_l1_loss", r"""
    >>> import paddle
    >>> paddle.seed(2023)
    >>> input = paddle.rand([3, 3]).astype('float32')
    >>> label = paddle.rand([3, 3]).astype('float32')
    >>> output = paddle.nn.functional.smooth_l1_loss(input, label)
    >>> print(output)
    Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
            0.08307374)
    """, random=True),
    Example("nn.functional.margin_ranking_loss", r"""
    >>> import paddle
    >>> input = paddle.to_tensor([[1, 2], [3, 4]], dtype='float32')
    >>> other = paddle.to_tensor([[2, 1], [2, 4]], dtype='float32')
    >>> label = paddle.to_tensor([[1, -1], [-1, -1]], dtype='float32')
    >>> loss = paddle.nn.functional.margin_ranking_loss(input, other, label)
    >>> print(loss)
    Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
            0.75000000)
    """),
    Example("nn.functional.l1_loss", r"""
    >>> import paddle
    >>> input = paddle.to_tensor([[1.5, 0.8], [0.2, 1.3]])
    >>> label = paddle.to_tensor([[1.7, 1], [0.4, 0.5]])
    >>> l1_loss = paddle.nn.functional.l1_loss(input, label)
    >>> print(l1_loss)
    Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
            0.34999999)
    >>> l1_loss = paddle.nn.functional.l1_loss(input, label, reduction='none')
    >>> print(l1_loss)
    Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
            [[0.20000005, 0.19999999],
             [0.20000000, 0.79999995]])
    >>> l1_loss = paddle.nn.functional.l1_loss(input, label, reduction='sum')
    >>> print(l1_loss)
    Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
            1.39999998)
    """),
    Example("nn.functional.nll_loss", r"""
    >>> import paddle
    >>> from paddle.nn.functional import nll_loss
    >>> log_softmax = paddle.nn.LogSoftmax(axis=1)
    >>> input = paddle.to_tensor([[0.88103855, 0.9908683 , 0.6226845 ],
    ...     [0.53331435, 0.07999352, 0.8549948 ],
    ...     [0.25879037, 0.39530203, 0.698465  ],
    ...     [0.73427284, 0.63575995, 0.18827209],
    ...     [0.05689114, 0.0862954 , 0.6325046 ]], "float32")
    >>> log_out = log_softmax(input)
    >>> label = paddle.to_tensor([0, 2, 1, 1, 0], "int64")
    >>> result = nll_loss(log_out, label)
    >>> print(result)
    Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
           1.07202101)
    """),
    Example("nn.functional.poisson_nll_loss", r"""
    >>> import paddle
    >>> import paddle.nn.functional as F
    >>> paddle.seed(2023)
    >>> input = paddle.randn([5, 2], dtype=paddle.float32)
    >>> label = paddle.randn([5, 2], dtype=paddle.float32)
    >>> loss = F.poisson_nll_loss(input, label, log_input=True, reduction='none')
    >>> print(loss)
    Tensor(shape=[5, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
           [[ 1.09998012,  3.68829036],
            [ 1.95291090,  0.69603068],
            [-0.39289063, -2.03713036],
            [ 4.52518702,  1.28625548],
            [ 3.94454789,  0.53521496]])
    >>> loss = F.poisson_nll_loss(input, label, reduction='mean')
    >>> print(loss)
    Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
           1.52983975)
    """, random=True),
    Example("nn.functional.kl_div", r"""
    >>> import paddle
    >>> import paddle.nn.functional as F
    >>> paddle.seed(2023)
    >>> shape = (5, 20)
    >>> x = F.log_softmax(paddle.randn(shape), axis=1).astype('float32')
    >>> target = paddle.uniform(shape, min=-10, max=10).astype('float32')
    >>> pred_loss = F.kl_div(x, target, reduction='batchmean')
    >>> print(pred_loss.shape)
    []
    >>> pred_loss = F.kl_div(x, target, reduction='mean')
    >>> print(pred_loss.shape)
    []
    >>> pred_loss = F.kl_div(x, target, reduction='sum')
    >>> print(pred_loss.shape)
    []
    >>> pred_loss = F.kl_div(x, target, reduction='none')
    >>> print(pred_loss.shape)
    [5, 20]
    >>> target = paddle.uniform(shape, min=0, max=10).astype('float32')
    >>> log_target = paddle.log(target)
    >>> pred_loss_1 = F.kl_div(x, target, reduction='none')
    >>> pred_loss_2 = F.kl_div(x, log_target, reduction='none', log_target=True)
    >>> print(paddle.allclose(pred_loss_1, pred_loss_2))
    Tensor(shape=[], dtype=bool, place=Place(cpu), stop_gradient=True,
    True)
    """),
    Example("nn.functional.mse_loss", r"""
    >>> import paddle
    >>> mse_loss = paddle.nn.loss.MSELoss()
    >>> input = paddle.to_tensor(1.5)
    >>> label = paddle.to_tensor(1.7)
    >>> output = mse_loss(input, label)
    >>> print(output)
    Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
           0.04000002)
    """),
    Example("nn.functional.ctc_loss", r"""
    >>> import paddle.nn.functional as F
    >>> import paddle
    >>> import numpy as np
    >>> log_probs = paddle.to_tensor(np.array([
    ...     [[4.17021990e-01, 7.20324516e-01, 1.14374816e-04],
    ...      [3.02332580e-01, 1.46755889e-01, 9.23385918e-02]],
    ...     [[1.86260208e-01, 3.45560730e-01, 3.96767467e-01],
    ...      [5.38816750e-01, 4.19194520e-01, 6.85219526e-01]],
    ...     [[2.04452246e-01, 8.78117442e-01, 2.73875929e-02],
    ...      [6.70467496e-01, 4.17304814e-01, 5.58689833e-01]],
    ...     [[1.40386939e-01, 1.98101491e-01, 8.00744593e-01],
    ...      [9.68261600e-01, 3.13424170e-01, 6.92322612e-01]],
    ...     [[8.76389146e-01, 8.94606650e-01, 8.50442126e-02],
    ...      [3.90547849e-02, 1.69830427e-01, 8.78142476e-01]]
    ... ]), dtype="float32")
    >>> labels = paddle.to_tensor([[1, 2, 2],
    ...     [1, 2, 2]], dtype="int32")
    >>> input_lengths = paddle.to_tensor([5, 5], dtype="int64")
    >>> label_lengths = paddle.to_tensor([3, 3], dtype="int64")
    >>> loss = F.ctc_loss(log_probs, labels,
    ...     input_lengths,
    ...     label_lengths,
    ...     blank=0,
    ...     reduction='none')
    >>> print(loss)
    Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
           [3.91798496, 2.90765190])
    >>> loss = F.ctc_loss(log_probs, labels,
    ...     input_lengths,
    ...     label_lengths,
    ...     blank=0,
    ...     reduction='mean')
    >>> print(loss)
    Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
           1.13760614)
    """),
    Example("nn.functional.softmax_with_cross_entropy", r"""
    >>> import paddle
    >>> logits = paddle.to_tensor([0.4, 0.6, 0.9], dtype="float32")
    >>> label = paddle.to_tensor([1], dtype="int64")
    >>> out = paddle.nn.functional.softmax_with_cross_entropy(logits=logits, label=label)
    >>> print(out)
    Tensor(shape=[1], dtype=float32, place=Place(cpu), stop_gradient=True,
           [1.15328646])
    """),
    Example("nn.functional.cross_entropy", r"""
    >>> import paddle
    >>> paddle.seed(99999)
    >>> N=100
    >>> C=200
    >>> reduction='mean'
    >>> input =  paddle.rand([N, C], dtype='float64')
    >>> label =  paddle.randint(0, C, shape=[N], dtype='int64')
    >>> weight = paddle.rand([C], dtype='float64')
    >>> cross_entropy_loss = paddle.nn.loss.CrossEntropyLoss(
    ...     weight=weight, reduction=reduction)
    >>> dy_ret = cross_entropy_loss(
    ...                             input,
    ...                             label)
    >>> print(dy_ret)
    Tensor(shape=[], dtype=float64, place=Place(cpu), stop_gradient=True,
           5.35419278)
    >>> axis = -1
    >>> N = 4
    >>> C = 3
    >>> shape = [N, C]
    >>> label_smoothing = 0.4
    >>> logits = paddle.uniform(shape, dtype='float64', min=0.1, max=1.0)
    >>> integer_labels = paddle.randint(low=0, high=C, shape=[N], dtype='int64')
    >>> one_hot_labels = paddle.nn.functional.one_hot(integer_labels, C).astype('float32')
    >>> paddle_integer_loss_mean = paddle.nn.functional.cross_entropy(
    ...     logits,
    ...     integer_labels,
    ...     axis=axis,
    ...     label_smoothing=label_smoothing,
    ...     reduction=reduction
    ... )
    >>> print(paddle_integer_loss_mean)
    Tensor(shape=[], dtype=float64, place=Place(cpu), stop_gradient=True,
    1.08317309)
    """, random=True),
    Example("nn.functional.sigmoid_focal_loss", r"""
    >>> import paddle
    >>> logit = paddle.to_tensor([[0.97, 0.91, 0.03], [0.55, 0.43, 0.71]], dtype='float32')
    >>> label = paddle.to_tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], dtype='float32')
    >>> one = paddle.to_tensor([1.], dtype='float32')
    >>> fg_label = paddle.greater_equal(label, one)
    >>> fg_num = paddle.sum(paddle.cast(fg_label, dtype='float32'))
    >>> output = paddle.nn.functional.sigmoid_focal_loss(logit, label, normalizer=fg_num)
    >>> print(output)
    Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
           0.65782464)
    """),
]

# ----- python/paddle/nn/functional/common.py (Paddle 3.0 doctest form; read_file id 299881992)
# ----- and input.py (commit 746c1975b9e1950e7dc239e34eff0a816f5dac80) -----------------------

COMMON = [
    Example("nn.functional.interpolate", r"""
    >>> import paddle
    >>> import paddle.nn.functional as F
    >>> input_data = paddle.randn(shape=(2,3,6,10)).astype(paddle.float32)
    >>> output_1 = F.interpolate(x=input_data, size=[12,12])
    >>> print(output_1.shape)
    [2, 3, 12, 12]
    >>> output_2 = F.interpolate(x=input_data, scale_factor=[2,1])
    >>> print(output_2.shape)
    [2, 3, 12, 10]
    >>> output_3 = F.interpolate(x=input_data, scale_factor=[2,1], mode="bilinear")
    >>> print(output_2.shape)
    [2, 3, 12, 10]
    """, random=True),
    Example("nn.Upsample", r"""
    >>> import paddle
    >>> import paddle.nn as nn
    >>> input_data = paddle.randn(shape=(2,3,6,10)).astype(paddle.float32)
    >>> upsample_out = paddle.nn.Upsample(size=[12,12])
    >>> output = upsample_out(x=input_data)
    >>> print(output.shape)
    [2, 3, 12, 12]
    """, random=True),
    Example("nn.functional.bilinear", r"""
    >>> import paddle
    >>> import paddle.nn.functional as F
    >>> x1 = paddle.randn((5, 5)).astype(paddle.float32)
    >>> x2 = paddle.randn((5, 4)).astype(paddle.float32)
    >>> w = paddle.randn((1000, 5, 4)).astype(paddle.float32)
    >>> b = paddle.randn((1, 1000)).astype(paddle.float32)
    >>> result = F.bilinear(x1, x2, w, b)
    >>> print(result.shape)
    [5, 1000]
    """, random=True),
    Example("nn.functional.dropout", r"""
    >>> import paddle
    >>> # (random: y_test's values are checked in the next case)
    >>> paddle.seed(2023)
    >>> x = paddle.to_tensor([[1,2,3], [4,5,6]]).astype(paddle.float32)
    >>> y_train = paddle.nn.functional.dropout(x, 0.5)
    >>> y_test = paddle.nn.functional.dropout(x, 0.5, training=False)
    >>> y_0 = paddle.nn.functional.dropout(x, axis=0)
    >>> y_1 = paddle.nn.functional.dropout(x, axis=1)
    >>> y_01 = paddle.nn.functional.dropout(x, axis=[0,1])
    >>> print(x)
    Tensor(shape=[2, 3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[1., 2., 3.],
     [4., 5., 6.]])
    >>> print(y_train)
    Tensor(shape=[2, 3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[2., 4., 0.],
    [8., 0., 0.]])
    >>> print(y_0)
    Tensor(shape=[2, 3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[2., 4., 6.],
     [8. , 10., 12.]])
    """, random=True),
    Example("nn.functional.dropout (training=False)", r"""
    >>> import paddle
    >>> # (the deterministic part of dropout's example)
    >>> x = paddle.to_tensor([[1,2,3], [4,5,6]]).astype(paddle.float32)
    >>> y_test = paddle.nn.functional.dropout(x, 0.5, training=False)
    >>> print(y_test)
    Tensor(shape=[2, 3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[1., 2., 3.],
     [4., 5., 6.]])
    """),
    Example("nn.functional.alpha_dropout", r"""
    >>> import paddle
    >>> paddle.seed(1)
    >>> x = paddle.to_tensor([[-1, 1], [-1, 1]]).astype(paddle.float32)
    >>> y_train = paddle.nn.functional.alpha_dropout(x, 0.5)
    >>> y_test = paddle.nn.functional.alpha_dropout(x, 0.5, training=False)
    >>> print(y_train)
    Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[-0.77919382,  1.66559887],
    [-0.10721093, -0.77919382]])
    >>> print(y_test)
    Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[-1.,  1.],
    [-1.,  1.]])
    """, random=True),
    Example("nn.functional.pad", r"""
    >>> import paddle
    >>> import paddle.nn.functional as F
    >>> x_shape = (1, 1, 3)
    >>> x = paddle.arange(paddle.prod(paddle.to_tensor(x_shape)),
    ...     dtype="float32").reshape(x_shape) + 1
    >>> y = F.pad(x, [0, 0, 0, 0, 2, 3], value=1, mode='constant', data_format="NCL")
    >>> print(y)
    Tensor(shape=[1, 1, 8], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[[1., 1., 1., 2., 3., 1., 1., 1.]]])
    >>> x_shape = (1, 1, 3)
    >>> x = paddle.arange(paddle.prod(paddle.to_tensor(x_shape)),
    ...     dtype="float32").reshape(x_shape) + 1
    >>> y = F.pad(x, [2, 3], value=1, mode='constant', data_format="NCL")
    >>> print(y)
    Tensor(shape=[1, 1, 8], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[[1., 1., 1., 2., 3., 1., 1., 1.]]])
    >>> x_shape = (1, 1, 2, 3)
    >>> x = paddle.arange(paddle.prod(paddle.to_tensor(x_shape)),
    ...     dtype="float32").reshape(x_shape) + 1
    >>> y = F.pad(x, [1, 2, 1, 1], value=1, mode='circular')
    >>> print(y)
    Tensor(shape=[1, 1, 4, 6], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[[[6., 4., 5., 6., 4., 5.],
       [3., 1., 2., 3., 1., 2.],
       [6., 4., 5., 6., 4., 5.],
       [3., 1., 2., 3., 1., 2.]]]])
    >>> x_shape = (1, 1, 3)
    >>> x = paddle.arange(paddle.prod(paddle.to_tensor(x_shape)),
    ...     dtype="float32").reshape(x_shape) + 1
    >>> y = F.pad(x, [1, 0, 0, 1, 0, 0], value=0, mode='constant', pad_from_left_axis=True)
    >>> print(y)
    Tensor(shape=[2, 2, 3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[[0., 0., 0.],
      [0., 0., 0.]],
     [[1., 2., 3.],
      [0., 0., 0.]]])
    >>> x_shape = (1, 1, 3)
    >>> x = paddle.arange(paddle.prod(paddle.to_tensor(x_shape)),
    ...     dtype="float32").reshape(x_shape) + 1
    >>> y = F.pad(x, [1, 0, 0, 1, 0, 0], value=0, mode='constant', pad_from_left_axis=False)
    >>> print(y)
    Tensor(shape=[1, 2, 4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[[0., 1., 2., 3.],
      [0., 0., 0., 0.]]])
    >>> x_shape = (1, 1, 3)
    >>> x = paddle.arange(paddle.prod(paddle.to_tensor(x_shape)),
    ...     dtype="float32").reshape(x_shape) + 1
    >>> y = F.pad(x, [1, 0, 0, 1], value=0, mode='constant')
    >>> print(y)
    Tensor(shape=[1, 2, 4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[[0., 1., 2., 3.],
      [0., 0., 0., 0.]]])
    """),
    Example("nn.functional.zeropad2d", r"""
    >>> import paddle
    >>> import paddle.nn.functional as F
    >>> x_shape = paddle.to_tensor([1, 1, 2, 3])
    >>> x = paddle.arange(paddle.prod(x_shape), dtype="float32").reshape(x_shape) + 1
    >>> y = F.zeropad2d(x, [1, 2, 1, 1])
    >>> print(y)
    Tensor(shape=[1, 1, 4, 6], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[[[0., 0., 0., 0., 0., 0.],
       [0., 1., 2., 3., 0., 0.],
       [0., 4., 5., 6., 0., 0.],
       [0., 0., 0., 0., 0., 0.]]]])
    """),
    Example("nn.functional.cosine_similarity", r"""
    >>> import paddle
    >>> import paddle.nn as nn
    >>> paddle.seed(1)
    >>> x1 = paddle.randn(shape=[2, 3])
    >>> x2 = paddle.randn(shape=[2, 3])
    >>> result = paddle.nn.functional.cosine_similarity(x1, x2, axis=0)
    >>> print(result)
    Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
    [ 0.97689527,  0.99996042, -0.55138415])
    """, random=True),
    Example("nn.functional.linear", r"""
    >>> import paddle
    >>> paddle.seed(2023)
    >>> x = paddle.randn((3, 2), dtype="float32")
    >>> weight = paddle.full(shape=[2, 4], fill_value=0.5, dtype="float32", name="weight")
    >>> print(weight)
    Tensor(shape=[2, 4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[0.50000000, 0.50000000, 0.50000000, 0.50000000],
     [0.50000000, 0.50000000, 0.50000000, 0.50000000]])
    >>> bias = paddle.ones(shape=[4], dtype="float32", name="bias")
    >>> print(bias)
    Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [1., 1., 1., 1.])
    >>> y = paddle.nn.functional.linear(x, weight, bias)
    >>> print(y)
    Tensor(shape=[3, 4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[ 1.58740902,  1.58740902,  1.58740902,  1.58740902],
     [ 1.08524013,  1.08524013,  1.08524013,  1.08524013],
     [-0.67769694, -0.67769694, -0.67769694, -0.67769694]])
    """, random=True),
    Example("nn.functional.label_smooth", r"""
    >>> import paddle
    >>> paddle.disable_static()
    >>> # (Paddle's docstring continues this statement with '>>>', a typo for '...')
    >>> x = paddle.to_tensor([[[0, 1, 0],
    ...                     [ 1,  0, 1]]], dtype="float32", stop_gradient=False)
    >>> output = paddle.nn.functional.label_smooth(x)
    >>> print(output)
    Tensor(shape=[1, 2, 3], dtype=float32, place=Place(cpu), stop_gradient=False,
    [[[0.03333334, 0.93333334, 0.03333334],
    [0.93333334, 0.03333334, 0.93333334]]])
    """),
    Example("nn.functional.fold", r"""
    >>> import paddle
    >>> import paddle.nn.functional as F
    >>> x = paddle.randn([2,3*2*2,12])
    >>> y = F.fold(x, output_sizes=[4, 5], kernel_sizes=2)
    >>> print(y.shape)
    [2, 3, 4, 5]
    """, random=True),
    Example("nn.functional.one_hot", r"""
    >>> import paddle
    >>> label = paddle.to_tensor([1, 1, 3, 0], dtype='int64')
    >>> print(label.shape)
    [4]
    >>> one_hot_label = paddle.nn.functional.one_hot(label, num_classes=4)
    >>> print(one_hot_label.shape)
    [4, 4]
    >>> print(one_hot_label)
    Tensor(shape=[4, 4], dtype=float32, place=Place(cpu), stop_gradient=True,
           [[0., 1., 0., 0.],
            [0., 1., 0., 0.],
            [0., 0., 0., 1.],
            [1., 0., 0., 0.]])
    """),
    Example("nn.functional.embedding", r"""
    >>> import paddle
    >>> import paddle.nn as nn
    >>> x0 = paddle.arange(3, 6).reshape((3, 1)).astype(paddle.int64)
    >>> w0 = paddle.full(shape=(10, 3), fill_value=2).astype(paddle.float32)
    >>> x = paddle.to_tensor(x0, stop_gradient=False)
    >>> print(x.numpy())
    [[3]
     [4]
     [5]]
    >>> print(x.shape)
    [3, 1]
    >>> w = paddle.to_tensor(w0, stop_gradient=False)
    >>> print(w.shape)
    [10, 3]
    >>> emb = nn.functional.embedding(
    ...         x=x, weight=w, sparse=True, name="embedding")
    >>> print(emb.numpy())
    [[[2. 2. 2.]]
     [[2. 2. 2.]]
     [[2. 2. 2.]]]
    >>> print(emb.shape)
    [3, 1, 3]
    """),
]

# ----- python/paddle/nn/layer/activation.py (Paddle 3.0 doctest form; read_file id 164206988) -

def _layer(name: str, x: str, expected: str, ctor: str = "()", atol: float = 0.0,
           shape: list | None = None) -> Example:
    """An activation layer's example: build the layer, call it on x, print the result (every
    one prints a float32 tensor, of x's shape unless ``shape`` says, that stops gradients)."""
    shape = list(np.shape(ast.literal_eval(x))) if shape is None else shape
    return Example(f"nn.{name}", f"""
    >>> import paddle
    >>> x = paddle.to_tensor({x})
    >>> m = paddle.nn.{name}{ctor}
    >>> out = m(x)
    >>> print(out)
    Tensor(shape={shape}, dtype=float32, place=Place(cpu), stop_gradient=True,
    {expected}
    """, atol=atol)


LAYERS = [
    _layer("CELU", "[[-1. ,6.], [1., 15.6]]", """[[-0.19865242,  6.        ],
     [ 1.        , 15.60000038]])""", "(0.2)"),
    _layer("ELU", "[[-1. ,6.], [1., 15.6]]", """[[-0.12642412,  6.        ],
     [ 1.        , 15.60000038]])""", "(0.2)"),
    _layer("GLU", "[[-0.22014759, -1.76358426,  0.80566144,  0.04241343], "
                  "[-1.94900405, -1.89956081,  0.17134808, -1.11280477]]",
           """[[-0.15216254, -0.90048921],
    [-1.05778778, -0.46985325]])""", shape=[2, 2]),
    _layer("GELU", "[[-1, 0.5],[1, 1.5]]", """[[-0.15880796,  0.34571400],
     [ 0.84119201,  1.39957154]])""", "(True)"),
    _layer("Hardshrink", "[-1, 0.3, 2.5]", """[-1.       ,  0.       , 2.50000000])"""),
    _layer("Hardswish", "[-4., 5., 1.]", """[-0.       , 5.        , 0.66666669])"""),
    _layer("Tanh", "[-0.4, -0.2, 0.1, 0.3]",
           """[-0.37994900, -0.19737528,  0.09966799,  0.29131261])"""),
    _layer("Hardtanh", "[-1.5, 0.3, 2.5]", """[-1.       , 0.30000001,  1.       ])"""),
    _layer("ReLU", "[-2., 0., 1.]", """[0., 0., 1.])"""),
    _layer("ReLU6", "[-1., 0.3, 6.5]", """[0.        , 0.30000000, 6.        ])"""),
    _layer("SELU", "[[0.0, 1.0],[2.0, 3.0]]", """[[0.        , 1.05070102],
     [2.10140204, 3.15210295]])"""),
    _layer("LeakyReLU", "[-2.0, 0, 1]", """[-0.02000000,  0.        ,  1.        ])"""),
    _layer("Sigmoid", "[1.0, 2.0, 3.0, 4.0]",
           """[0.73105860, 0.88079703, 0.95257413, 0.98201376])"""),
    _layer("Hardsigmoid", "[-4., 5., 1.]", """[0.        , 1.        , 0.66666669])"""),
    _layer("Softplus", "[-0.4, -0.2, 0.1, 0.3]",
           """[0.51301527, 0.59813893, 0.74439669, 0.85435522])"""),
    _layer("Softshrink", "[-0.9, -0.2, 0.1, 0.8]",
           """[-0.39999998,  0.        ,  0.        ,  0.30000001])"""),
    _layer("Softsign", "[-0.4, -0.2, 0.1, 0.3]",
           """[-0.28571430, -0.16666666,  0.09090909,  0.23076925])"""),
    _layer("Swish", "[-2., 0., 1.]", """[-0.23840584,  0.        ,  0.73105860])"""),
    _layer("Mish", "[-5., 0., 5.]", """[-0.03357624,  0.        ,  4.99955177])"""),
    _layer("Tanhshrink", "[-0.4, -0.2, 0.1, 0.3]",
           """[-0.02005100, -0.00262472,  0.00033201,  0.00868741])""",
           atol=5e-8),  # see F.tanhshrink
    _layer("ThresholdedReLU", "[2., 0., 1.]", """[2., 0., 0.])"""),
    _layer("Silu", "[1.0, 2.0, 3.0, 4.0]", """[0.73105860, 1.76159406, 2.85772228, 3.92805505])"""),
    _layer("LogSigmoid", "[1.0, 2.0, 3.0, 4.0]",
           """[-0.31326166, -0.12692805, -0.04858733, -0.01814996])""",
           atol=5e-8),  # see F.log_sigmoid
    Example("nn.PReLU", r"""
    >>> import paddle
    >>> data = paddle.to_tensor([[[[-2.0,  3.0, -4.0,  5.0],
    ...                            [ 3.0, -4.0,  5.0, -6.0],
    ...                            [-7.0, -8.0,  8.0,  9.0]],
    ...                           [[ 1.0, -2.0, -3.0,  4.0],
    ...                            [-5.0,  6.0,  7.0, -8.0],
    ...                            [ 6.0,  7.0,  8.0,  9.0]]]])
    >>> m = paddle.nn.PReLU(1, 0.25)
    >>> out = m(data)
    >>> print(out)
    Tensor(shape=[1, 2, 3, 4], dtype=float32, place=Place(cpu), stop_gradient=False,
    [[[[-0.50000000,  3.        , -1.        ,  5.        ],
       [ 3.        , -1.        ,  5.        , -1.50000000],
       [-1.75000000, -2.        ,  8.        ,  9.        ]],
      [[ 1.        , -0.50000000, -0.75000000,  4.        ],
       [-1.25000000,  6.        ,  7.        , -2.        ],
       [ 6.        ,  7.        ,  8.        ,  9.        ]]]])
    """),
    Example("nn.Softmax", r"""
    >>> import paddle
    >>> x = paddle.to_tensor([[[2.0, 3.0, 4.0, 5.0],
    ...                        [3.0, 4.0, 5.0, 6.0],
    ...                        [7.0, 8.0, 8.0, 9.0]],
    ...                       [[1.0, 2.0, 3.0, 4.0],
    ...                        [5.0, 6.0, 7.0, 8.0],
    ...                        [6.0, 7.0, 8.0, 9.0]]], dtype='float32')
    >>> m = paddle.nn.Softmax()
    >>> out = m(x)
    >>> print(out)
    Tensor(shape=[2, 3, 4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[[0.03205860, 0.08714432, 0.23688284, 0.64391428],
      [0.03205860, 0.08714432, 0.23688284, 0.64391428],
      [0.07232949, 0.19661194, 0.19661194, 0.53444666]],
     [[0.03205860, 0.08714432, 0.23688284, 0.64391428],
      [0.03205860, 0.08714432, 0.23688284, 0.64391428],
      [0.03205860, 0.08714432, 0.23688284, 0.64391428]]])
    """),
    Example("nn.LogSoftmax", r"""
    >>> import paddle
    >>> x = [[[-2.0,  3.0, -4.0,  5.0],
    ...       [ 3.0, -4.0,  5.0, -6.0],
    ...       [-7.0, -8.0,  8.0,  9.0]],
    ...      [[ 1.0, -2.0, -3.0,  4.0],
    ...       [-5.0,  6.0,  7.0, -8.0],
    ...       [ 6.0,  7.0,  8.0,  9.0]]]
    >>> m = paddle.nn.LogSoftmax()
    >>> x = paddle.to_tensor(x)
    >>> out = m(x)
    >>> print(out)
    Tensor(shape=[2, 3, 4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[[-7.12783957 , -2.12783957 , -9.12783909 , -0.12783945 ],
      [-2.12705135 , -9.12705135 , -0.12705141 , -11.12705135],
      [-16.31326103, -17.31326103, -1.31326187 , -0.31326184 ]],
     [[-3.05181193 , -6.05181217 , -7.05181217 , -0.05181199 ],
      [-12.31326675, -1.31326652 , -0.31326646 , -15.31326675],
      [-3.44018984 , -2.44018984 , -1.44018972 , -0.44018975 ]]])
    """),
    Example("nn.Maxout", r"""
    >>> import paddle
    >>> paddle.seed(100)
    >>> x = paddle.rand([1, 2, 3, 4])
    >>> m = paddle.nn.Maxout(groups=2)
    >>> out = m(x)
    >>> print(out)
    Tensor(shape=[1, 1, 3, 4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[[[0.85139430, 0.95717543, 0.43864486, 0.51577556],
       [0.84765935, 0.45680618, 0.39412445, 0.72039396],
       [0.59444654, 0.78120756, 0.78364515, 0.90572405]]]])
    """, random=True),
    Example("nn.Softmax2D", r"""
    >>> import paddle
    >>> paddle.seed(100)
    >>> x = paddle.rand([1, 2, 3, 4])
    >>> m = paddle.nn.Softmax2D()
    >>> out = m(x)
    >>> print(out)
    Tensor(shape=[1, 2, 3, 4], dtype=float32, place=Place(cpu), stop_gradient=True,
    [[[[0.42608523, 0.32081410, 0.39483935, 0.55642301],
       [0.38131708, 0.45118359, 0.44891062, 0.46053308],
       [0.35746980, 0.60766530, 0.38638926, 0.70425135]],
      [[0.57391477, 0.67918587, 0.60516071, 0.44357699],
       [0.61868292, 0.54881644, 0.55108935, 0.53946698],
       [0.64253020, 0.39233473, 0.61361068, 0.29574865]]]])
    """, random=True),
]


ALL = (MATH + C_OPS + STAT + SEARCH + ACTIVATION + CREATION + MANIPULATION + LOSS
       + COMMON + LAYERS)


@pytest.mark.parametrize("example", [pytest.param(e, id=e.api) for e in ALL])
def test_paddle_docstring_example(example):
    # every case shows at least one output of Paddle's to compare with (shape and dtype only
    # for random draws)
    assert run_example(example) > 0, f"{example.api}: the example printed nothing to compare"


# ----- the fixes these examples led to, beyond what the examples print ----------------------

def test_gelu_takes_paddle3_approximate_strings():
    x = core.to_tensor(np.linspace(-3, 3, 7))
    np.testing.assert_array_equal(core.nn.functional.gelu(x, "tanh").numpy(),
                                  core.nn.functional.gelu(x, True).numpy())
    np.testing.assert_array_equal(core.nn.functional.gelu(x, "none").numpy(),
                                  core.nn.functional.gelu(x, False).numpy())
    check_grad(lambda t: core.nn.functional.gelu(t, "tanh"), np.linspace(-2, 2, 5))
    with pytest.raises(ValueError, match="gelu: approximate must be True, False, 'tanh' or "
                                         "'none', got 'fast'"):
        core.nn.functional.gelu(x, "fast")


def test_to_tensor_complex_follows_the_default_dtype():
    assert core.to_tensor([1 + 2j]).dtype == np.complex64
    previous = core.get_default_dtype()
    core.set_default_dtype("float64")
    try:
        assert core.to_tensor([1 + 2j, 3]).dtype == np.complex128
    finally:
        core.set_default_dtype(previous)
    assert core.to_tensor(np.array([1 + 2j])).dtype == np.complex128  # arrays keep theirs


def test_median_of_rows_with_nan_matches_torch():
    torch = pytest.importorskip("torch")
    a = np.array([[1, np.nan, 3, np.nan], [1, 2, 3, 4], [np.nan, 1, 2, 3], [4, 3, np.nan, 0]])
    values, indices = core.median(core.to_tensor(a), axis=1, mode="min")
    expected = torch.median(torch.tensor(a), dim=1)
    np.testing.assert_array_equal(values.numpy(), expected.values.numpy())
    np.testing.assert_array_equal(indices.numpy(), expected.indices.numpy())
    avg = core.median(core.to_tensor(a), axis=1).numpy()
    assert np.isnan(avg[[0, 2, 3]]).all() and avg[1] == 2.5


def test_mean_dtype_casts_first_and_keeps_the_gradient():
    x = core.to_tensor(np.array([[1.0, 2.0], [3.0, 5.0]], dtype=np.float32))
    out = core.mean(x, axis=0, dtype="float64")
    assert out.dtype == np.float64
    np.testing.assert_allclose(out.numpy(), [2.0, 3.5])
    check_grad(lambda t: core.mean(t, axis=1, keepdim=True, dtype="float64"),
               np.random.default_rng(0).normal(size=(3, 4)))


def test_constant_pad_of_any_even_length_matches_torch():
    torch = pytest.importorskip("torch")
    a = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    for pad in ([1, 0, 0, 1], [2, 1]):  # 2 * ndim values pad first axis first (Paddle)
        got = core.nn.functional.pad(core.to_tensor(a), pad, value=-1.0)
        want = torch.nn.functional.pad(torch.tensor(a), pad, value=-1.0)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    check_grad(lambda t: core.nn.functional.pad(t, [1, 0, 0, 1]), a)
    with pytest.raises(ValueError, match=r"pad: pad=\[1, 0, 1\] does not fit an input of 3 "
                                         r"dimensions"):
        core.nn.functional.pad(core.to_tensor(a), [1, 0, 1])


def test_assign_into_an_output_of_another_shape():
    out = core.zeros([3, 3], dtype="float32")
    assert core.assign(np.array([[1, 1], [3, 4], [1, 3]]), out) is out
    assert out.shape == [3, 2] and out.dtype == np.int64
    same = core.zeros([2], dtype="float64")
    core.assign(core.to_tensor([1.5, 2.5], dtype="float32"), same)
    assert same.dtype == np.float64  # one of x's shape keeps its dtype
    with pytest.raises(TypeError, match="assign: output must be a Tensor or None, got list"):
        core.assign(np.zeros(2), [0, 0])


def test_mean_refuses_a_dtype_it_cannot_return():
    # QA regression: dtype='int32' used to give a float64 mean (numpy's mean of ints)
    x = core.to_tensor(np.array([1.0, 2.0], dtype=np.float32))
    for dtype in ("int32", "int64", "bool"):
        with pytest.raises(TypeError, match=f"mean: dtype must be a float or complex.*{dtype}"):
            core.mean(x, dtype=dtype)
    assert core.mean(x, dtype="float32").dtype == np.float32


def test_pad_refuses_negative_amounts_in_every_mode():
    # QA regression: a negative constant pad crashed inside numpy, the other modes ignored it
    x = core.ones([1, 2, 5])
    for mode in ("constant", "reflect", "replicate", "circular"):
        with pytest.raises(ValueError, match=r"pad: pad amounts must be non-negative, got "
                                             r"pad=\[-1, 1\]"):
            core.nn.functional.pad(x, [-1, 1], mode=mode)
