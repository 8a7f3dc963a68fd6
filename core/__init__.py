"""tomlrun's core: a PaddlePaddle-2-style dynamic-graph library on numpy (and cupy on GPUs)."""
# First, before any import below loads numpy and its OpenBLAS: how long OpenBLAS's idle
# threads spin, which it reads once at load (core/blas_idle.py).
from core import blas_idle  # noqa: F401, I001 - must run before numpy is imported

# Sub-packages, reachable as attributes as in Paddle (``core.nn.Conv2D``, ``core.optimizer.Adam``).
# Modules the docs use by their full name (``core.inference.Inference``, ``core.debug``, ...).
from core import (
    backend,
    data,
    datasets,
    debug,
    device,
    host_memory,  # tunes the C heap at import (numpy's temporaries reuse freed blocks)
    inference,
    io,
    metric,
    nn,
    optimizer,
    regularizer,
    serialize,
    sparse,
)
from core.arithmetic import (  # noqa: A004
                             add,
                             divide,
                             floor_divide,
                             matmul,
                             maximum,
                             minimum,
                             mod,
                             multiply,
                             pow,
                             remainder,
                             subtract,
)
from core.backend import seed
from core.contraction import einsum
from core.creation import (
                             arange,
                             eye,
                             full,
                             full_like,
                             linspace,
                             meshgrid,
                             normal,
                             ones,
                             ones_like,
                             rand,
                             rand_like,
                             randint,
                             randn,
                             randn_like,
                             randperm,
                             uniform,
                             zeros,
                             zeros_like,
)
from core.logic import (  # noqa: A004
                             all,
                             allclose,
                             any,
                             equal,
                             equal_all,
                             greater_equal,
                             greater_than,
                             isclose,
                             isfinite,
                             isinf,
                             isnan,
                             less_equal,
                             less_than,
                             logical_and,
                             logical_not,
                             logical_or,
                             not_equal,
)
from core.linalg import bmm, dot, mm
from core.manipulation import (
                             broadcast_to,
                             cast,
                             chunk,
                             concat,
                             diag,
                             expand,
                             expand_as,
                             flatten,
                             flip,
                             gather,
                             masked_fill,
                             reshape,
                             roll,
                             split,
                             squeeze,
                             stack,
                             tile,
                             transpose,
                             tril,
                             triu,
                             unbind,
                             unsqueeze,
)

# Tensor functions (importing these modules also attaches their Tensor methods).
from core.ops import (  # noqa: A004
                             abs,
                             add_n,
                             argmax,
                             argmin,
                             ceil,
                             clip,
                             cos,
                             cumprod,
                             cumsum,
                             exp,
                             floor,
                             is_tensor,
                             log,
                             log1p,
                             logsumexp,
                             max,
                             mean,
                             min,
                             numel,
                             prod,
                             reciprocal,
                             round,
                             rsqrt,
                             sign,
                             sin,
                             sqrt,
                             square,
                             std,
                             sum,
                             tanh,
                             var,
)
from core.search import argsort, index_select, masked_select, nonzero, sort, topk, unique, where
from core.serialize import load, save  # noqa: E402
from core.device import get_device, set_device  # paddle.set_device / paddle.get_device
from core.model_summary import summary  # paddle.summary
from core import callbacks, static  # noqa: E402 - paddle.callbacks, paddle.static.InputSpec
from core.hapi import Model  # paddle.Model: prepare / fit / evaluate / predict
from core.tensor import Parameter, Tensor, is_grad_enabled, no_grad, to_tensor

import numpy as _np  # noqa: E402


def __getattr__(name: str):
    """``core.__version__`` (paddle.__version__), the installed tomlrun's, looked up on first
    use: reading package metadata costs ~20 ms, which every ``import core`` would pay.
    ``core.vision`` (paddle.vision) is imported on first use too (~9 ms of modules)."""
    if name == "vision":
        import importlib  # noqa: PLC0415

        return importlib.import_module("core.vision")  # also binds core.vision
    if name != "__version__":
        raise AttributeError(f"module 'core' has no attribute '{name}'")
    from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415

    try:
        found = version("tomlrun")
    except PackageNotFoundError:
        found = "0+unknown"  # a bare checkout, not installed
    globals()["__version__"] = found
    return found


# paddle.float32 and friends: the numpy dtypes, equal to what Tensor.dtype gives.
bool = _np.dtype("bool")  # noqa: A001
float16, float32, float64 = _np.dtype("float16"), _np.dtype("float32"), _np.dtype("float64")
int8, int16, int32, int64 = (_np.dtype(n) for n in ("int8", "int16", "int32", "int64"))
uint8 = _np.dtype("uint8")

__all__ = [
    "datasets", "io", "load", "metric", "nn", "optimizer", "regularizer", "save",
    "backend", "data", "debug", "host_memory", "inference", "serialize", "sparse",
    "Parameter", "Tensor", "device", "get_device", "is_grad_enabled", "no_grad", "seed",
    "set_device", "summary", "to_tensor", "Model", "callbacks", "static",
    # math and reductions
    "abs", "add", "argmax", "argmin", "clip", "cumsum", "divide", "einsum", "exp", "log",
    "matmul", "max", "maximum", "mean", "min", "minimum", "multiply", "pow", "sqrt", "square",
    "subtract", "sum", "tanh", "ceil", "cos", "floor", "is_tensor", "log1p", "numel",
    "reciprocal", "round", "rsqrt", "sign", "sin",
    "add_n", "bmm", "cumprod", "dot", "floor_divide", "logsumexp", "mm", "mod", "prod",
    "remainder", "std", "var",
    # dtypes (paddle.float32, ...): numpy dtypes, which astype, cast and to_tensor take
    "bool", "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
    # shapes
    "cast", "chunk", "concat", "expand", "flatten", "gather", "reshape", "split", "squeeze",
    "stack", "tile", "transpose", "unsqueeze", "broadcast_to", "diag", "expand_as", "flip",
    "masked_fill", "roll", "tril", "triu", "unbind",
    # sorting, searching and selection
    "argsort", "index_select", "masked_select", "nonzero", "sort", "topk", "unique", "where",
    # creation
    "arange", "eye", "full", "full_like", "linspace", "ones", "ones_like", "rand", "randint",
    "randn", "zeros", "zeros_like", "meshgrid", "normal", "randperm", "uniform", "rand_like",
    "randn_like",
    # comparisons and logic (no gradient)
    "all", "any", "equal", "greater_equal", "greater_than", "isfinite", "isinf", "isnan",
    "less_equal", "less_than", "logical_and", "logical_not", "logical_or", "not_equal",
    "allclose", "equal_all", "isclose",
]

# More Paddle tensor math: element-wise functions, reductions, indexing along axes, scatters and
# gathers, products, counting, and paddle.linalg (core.linalg: norms, inv, det, solve, ...).
from core import linalg  # noqa: E402 - paddle.linalg
from core.creation import assign, clone  # noqa: E402
from core.elementwise import (  # noqa: E402
    acos,
    acosh,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    cosh,
    erf,
    erfinv,
    expm1,
    frac,
    heaviside,
    lerp,
    log2,
    log10,
    logit,
    sinh,
    tan,
    trunc,
)
from core.indexing import _slice as slice  # noqa: E402, A004 - paddle.slice
from core.indexing import (  # noqa: E402
    gather_nd,
    put_along_axis,
    repeat_interleave,
    scatter,
    scatter_nd_add,
    strided_slice,
    take_along_axis,
)
from core.linalg import cross, inner, norm, outer  # noqa: E402 - paddle.norm: linalg's norm
from core.linalg.products import kron  # noqa: E402
from core.manipulation import diagonal, diff, moveaxis, t, trace  # noqa: E402
from core.statistics import (  # noqa: E402
    amax,
    amin,
    bincount,
    count_nonzero,
    histogram,
    median,
    nanmean,
    nansum,
    quantile,
)

__all__ += [
    "linalg", "norm", "cross", "inner", "outer",
    "acos", "acosh", "amax", "amin", "asin", "asinh", "atan", "atan2", "atanh", "cosh",
    "count_nonzero", "erf", "erfinv", "expm1", "frac", "heaviside", "lerp", "log10", "log2",
    "logit", "median", "nanmean", "nansum", "quantile", "sinh", "tan", "trunc",
    "assign", "clone", "diagonal", "diff", "gather_nd", "kron", "moveaxis", "put_along_axis",
    "repeat_interleave", "scatter", "scatter_nd_add", "slice", "strided_slice", "t",
    "take_along_axis", "trace",
    "bincount", "histogram",
]

# paddle.ParamAttr and paddle.create_parameter: parameter attributes (core/nn/param_attr.py).
from core.nn.param_attr import ParamAttr, create_parameter  # noqa: E402

__all__ += ["ParamAttr", "create_parameter"]

# Tensor and autograd names Paddle code relies on: paddle.grad, grad-mode switches, framework
# facts, more creation/sampling, shapes, products and searches; importing core.inplace attaches
# Tensor's in-place methods (add_, zero_, uniform_, ...).
from core import inplace  # noqa: E402, F401 - attaches Tensor.add_ and the other in-place methods
from core.arithmetic import scale  # noqa: E402
from core.creation import bernoulli, empty, empty_like, multinomial  # noqa: E402
from core.framework import (  # noqa: E402
    disable_static,
    enable_static,
    get_default_dtype,
    in_dynamic_mode,
    is_compiled_with_cuda,
    set_default_dtype,
)
from core.linalg.products import addmm, tensordot  # noqa: E402
from core.logic import (  # noqa: E402
    bitwise_and,
    bitwise_not,
    bitwise_or,
    bitwise_xor,
    logical_xor,
)
from core.manipulation import rank, shape, unstack  # noqa: E402
from core.search import bucketize, index_sample, kthvalue, searchsorted  # noqa: E402
from core.tensor import enable_grad, grad, set_grad_enabled  # noqa: E402

__all__ += [
    "grad", "enable_grad", "set_grad_enabled", "in_dynamic_mode", "disable_static",
    "enable_static", "is_compiled_with_cuda", "get_default_dtype", "set_default_dtype",
    "scale", "empty", "empty_like", "bernoulli", "multinomial", "addmm", "tensordot",
    "logical_xor", "rank", "shape", "unstack", "bucketize", "index_sample", "kthvalue",
    "searchsorted", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor",
]
