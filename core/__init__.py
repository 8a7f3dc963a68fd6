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


# Paddle's submodules that most programs never touch, imported on first use (``core.fft.fft``)
# so that ``import core`` does not pay for them: vision ~30 ms of modules, the others a few each.
_LAZY_SUBMODULES = ("amp", "audio", "autograd", "distribution", "fft", "geometric", "hub", "jit",
                    "signal", "text", "utils", "version", "vision")


def __getattr__(name: str):
    """``core.__version__`` (paddle.__version__), the installed tomlrun's, looked up on first
    use: reading package metadata costs ~20 ms, which every ``import core`` would pay; and the
    submodules of ``_LAZY_SUBMODULES``, imported on first use."""
    if name in _LAZY_SUBMODULES:
        import importlib  # noqa: PLC0415

        return importlib.import_module(f"core.{name}")  # also binds core.<name>
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

# Paddle's places (paddle.CPUPlace / CUDAPlace / CUDAPinnedPlace) and paddle.flops.
from core.backend import CPUPlace, CUDAPinnedPlace, CUDAPlace, Place  # noqa: E402
from core.model_summary import flops  # noqa: E402

__all__ += ["CPUPlace", "CUDAPinnedPlace", "CUDAPlace", "Place", "flops"]


# Paddle 3.x tensor functions (the Tensor methods are attached by their modules): shapes and
# splits, fills and scatters along indices, running extremes and NaN-ignoring order
# statistics, element-wise math (signs, the gamma and Bessel families, gcd / lcm, ...), tests.
from core.elementwise import (  # noqa: E402
    copysign,
    deg2rad,
    digamma,
    fmax,
    fmin,
    frexp,
    gammaln,
    gcd,
    hypot,
    i0,
    i0e,
    i1,
    i1e,
    lcm,
    ldexp,
    lgamma,
    logaddexp,
    multigammaln,
    nan_to_num,
    neg,
    negative,
    nextafter,
    polygamma,
    positive,
    rad2deg,
    sgn,
    signbit,
    sinc,
    stanh,
    vander,
)
from core.indexing import (  # noqa: E402
    diagonal_scatter,
    index_add,
    index_fill,
    index_put,
    masked_scatter,
    scatter_nd,
    select_scatter,
    slice_scatter,
    take,
    tril_indices,
    triu_indices,
)
from core.linalg.norms import dist  # noqa: E402
from core.linalg.products import mv  # noqa: E402
from core.logic import (  # noqa: E402
    is_complex,
    is_empty,
    is_floating_point,
    is_integer,
    isin,
    isneginf,
    isposinf,
    isreal,
    less,
)
from core.manipulation import (  # noqa: E402
    as_strided,
    atleast_1d,
    atleast_2d,
    atleast_3d,
    block_diag,
    broadcast_shape,
    broadcast_tensors,
    column_stack,
    diag_embed,
    diagflat,
    dsplit,
    dstack,
    hsplit,
    hstack,
    rot90,
    row_stack,
    tensor_split,
    unflatten,
    unfold,
    view,
    view_as,
    vsplit,
    vstack,
)
from core.manipulation import flip as reverse  # noqa: E402 - paddle.reverse
from core.search import mode, unique_consecutive  # noqa: E402
from core.statistics import cummax, cummin, logcumsumexp, nanmedian, nanquantile  # noqa: E402

__all__ += [
    "copysign", "deg2rad", "digamma", "fmax", "fmin", "frexp", "gammaln", "gcd", "hypot", "i0",
    "i0e", "i1", "i1e", "lcm", "ldexp", "lgamma", "logaddexp", "multigammaln", "nan_to_num",
    "neg", "negative", "nextafter", "polygamma", "positive", "rad2deg", "sgn", "signbit", "sinc",
    "stanh", "vander",
    "diagonal_scatter", "index_add", "index_fill", "index_put", "masked_scatter", "scatter_nd",
    "select_scatter", "slice_scatter", "take", "tril_indices", "triu_indices",
    "dist", "mv",
    "is_complex", "is_empty", "is_floating_point", "is_integer", "isin", "isneginf", "isposinf",
    "isreal", "less",
    "as_strided", "atleast_1d", "atleast_2d", "atleast_3d", "block_diag", "broadcast_shape",
    "broadcast_tensors", "column_stack", "diag_embed", "diagflat", "dsplit", "dstack", "hsplit",
    "hstack", "reverse", "rot90", "row_stack", "tensor_split", "unflatten", "unfold", "view",
    "view_as", "vsplit", "vstack",
    "mode", "unique_consecutive", "cummax", "cummin", "logcumsumexp", "nanmedian",
    "nanquantile",
]

# Paddle's top-level in-place functions (paddle.reshape_(x, shape), ...): core.inplace's
# methods, which take the tensor first; and paddle.floor_mod, remainder's alias.
from core.arithmetic import remainder as floor_mod  # noqa: E402
from core.inplace import (  # noqa: E402
    abs_,
    acos_,
    acosh_,
    asin_,
    asinh_,
    atan_,
    atanh_,
    cast_,
    copysign_,
    cos_,
    cosh_,
    cumprod_,
    cumsum_,
    digamma_,
    divide_,
    erf_,
    expm1_,
    flatten_,
    floor_divide_,
    floor_mod_,
    frac_,
    gammaln_,
    gcd_,
    hypot_,
    i0_,
    index_add_,
    index_fill_,
    index_put_,
    lcm_,
    ldexp_,
    lgamma_,
    log1p_,
    log2_,
    log10_,
    log_,
    logit_,
    masked_fill_,
    masked_scatter_,
    mod_,
    multigammaln_,
    multiply_,
    nan_to_num_,
    neg_,
    polygamma_,
    pow_,
    remainder_,
    reshape_,
    scatter_,
    sin_,
    sinc_,
    sinh_,
    square_,
    squeeze_,
    t_,
    tan_,
    tanh_,
    transpose_,
    tril_,
    triu_,
    trunc_,
    unsqueeze_,
)

__all__ += [
    "floor_mod", "abs_", "acos_", "acosh_", "asin_", "asinh_", "atan_", "atanh_", "cast_",
    "copysign_", "cos_", "cosh_", "cumprod_", "cumsum_", "digamma_", "divide_", "erf_",
    "expm1_", "flatten_", "floor_divide_", "floor_mod_", "frac_", "gammaln_", "gcd_", "hypot_",
    "i0_", "index_add_", "index_fill_", "index_put_", "lcm_", "ldexp_", "lgamma_", "log1p_",
    "log2_", "log10_", "log_", "logit_", "masked_fill_", "masked_scatter_", "mod_",
    "multigammaln_", "multiply_", "nan_to_num_", "neg_", "polygamma_", "pow_", "remainder_",
    "reshape_", "scatter_", "sin_", "sinc_", "sinh_", "square_", "squeeze_", "t_", "tan_",
    "tanh_", "transpose_", "tril_", "triu_", "trunc_", "unsqueeze_",
]

# paddle.linalg's top-level aliases (Paddle 3): paddle.cdist, paddle.cholesky, paddle.inverse
# and paddle.eigvalsh (the rest of core.linalg stays under core.linalg, as in Paddle).
from core.linalg import cdist, cholesky, eigvalsh  # noqa: E402
from core.linalg import inv as inverse  # noqa: E402

__all__ += ["cdist", "cholesky", "eigvalsh", "inverse"]

# Paddle 3's further samplers and ranges (core.creation), random in-place fills and increment
# (core.inplace, which also attaches the Tensor methods), integration, combinatorics, blocks of
# tensors and bit shifts.
from core.combinatorics import cartesian_prod, combinations  # noqa: E402
from core.creation import (  # noqa: E402
    binomial,
    log_normal,
    logspace,
    poisson,
    randint_like,
    standard_gamma,
    standard_normal,
    tolist,
)
from core.indexing import multiplex, shard_index  # noqa: E402
from core.inplace import (  # noqa: E402
    cauchy_,
    exponential_,
    geometric_,
    increment,
    log_normal_,
    normal_,
    uniform_,
)
from core.integrate import cumulative_trapezoid, trapezoid  # noqa: E402
from core.linalg.norms import renorm  # noqa: E402
from core.logic import bitwise_left_shift, bitwise_right_shift  # noqa: E402
from core.manipulation import crop, reduce_as  # noqa: E402

__all__ += [
    "bitwise_left_shift", "bitwise_right_shift", "crop", "multiplex", "reduce_as", "renorm",
    "shard_index", "cartesian_prod", "combinations", "binomial", "log_normal", "logspace",
    "poisson", "randint_like", "standard_gamma", "standard_normal", "tolist", "cauchy_",
    "exponential_", "geometric_", "increment", "log_normal_", "normal_", "uniform_",
    "cumulative_trapezoid", "trapezoid",
]

from core.statistics import histogram_bin_edges  # noqa: E402

__all__ += ["histogram_bin_edges"]

# paddle.pdist: condensed pairwise p-norm distances (core.linalg.pdist; Tensor.pdist is bound
# there); matrix_exp, svd_lowrank and pca_lowrank stay under core.linalg, as in Paddle.
from core.linalg.distances import pdist  # noqa: E402

__all__ += ["pdist"]

# Paddle 3 names core lacked (docs/paddle.md, "Paddle 3 names added late"): the incomplete gamma
# functions, the remaining in-place variants (comparisons, logic, bitwise, where_, addmm_,
# renorm_, bernoulli_, fill_diagonal_tensor_), bitwise_invert, matrix_transpose, dtype facts,
# the random generator's state, the math constants, and (core.eager_methods) Tensor's
# retain_grads / detach_ / apply / apply_ / is_contiguous / contiguous.
import math as _math  # noqa: E402

from core import eager_methods  # noqa: E402, F401 - attaches Tensor.retain_grads and the others
from core.elementwise import gammainc, gammaincc  # noqa: E402
from core.framework import (  # noqa: E402
    finfo,
    get_cuda_rng_state,
    get_rng_state,
    iinfo,
    set_cuda_rng_state,
    set_rng_state,
)
from core.inplace import (  # noqa: E402
    addmm_,
    bernoulli_,
    bitwise_and_,
    bitwise_invert_,
    bitwise_left_shift_,
    bitwise_not_,
    bitwise_or_,
    bitwise_right_shift_,
    bitwise_xor_,
    equal_,
    gammainc_,
    gammaincc_,
    greater_equal_,
    greater_than_,
    less_,
    less_equal_,
    less_than_,
    logical_and_,
    logical_not_,
    logical_or_,
    logical_xor_,
    not_equal_,
    renorm_,
    where_,
)
from core.linalg.products import matrix_transpose  # noqa: E402
from core.logic import bitwise_invert  # noqa: E402

inf, nan, pi, e = _math.inf, _math.nan, _math.pi, _math.e  # paddle.inf, paddle.pi, ...
newaxis = None  # paddle.newaxis: x[:, core.newaxis] adds a dimension, as numpy's

__all__ += [
    "gammainc", "gammaincc", "gammainc_", "gammaincc_", "finfo", "iinfo", "get_rng_state",
    "get_cuda_rng_state", "set_cuda_rng_state",
    "set_rng_state", "addmm_", "bernoulli_", "bitwise_and_", "bitwise_invert",
    "bitwise_invert_", "bitwise_left_shift_", "bitwise_not_", "bitwise_or_",
    "bitwise_right_shift_", "bitwise_xor_", "equal_", "greater_equal_", "greater_than_",
    "less_", "less_equal_", "less_than_", "logical_and_", "logical_not_", "logical_or_",
    "logical_xor_", "not_equal_", "renorm_", "where_", "matrix_transpose", "inf", "nan", "pi",
    "e", "newaxis",
]

# Complex tensors (paddle.real / imag / conj / angle / complex / polar / as_complex / as_real;
# core.complex also attaches the Tensor methods); paddle.fft is core.fft (_LAZY_SUBMODULES).
from core.complex import angle, as_complex, as_real, complex, conj, imag, polar, real  # noqa: E402, A004

__all__ += ["angle", "as_complex", "as_real", "complex", "conj", "imag", "polar", "real"]

# More Paddle 3 names (docs/paddle.md, "Paddle 3 names added late"): histogramdd, vecdot, the
# DLPack exchange and disable_signal_handler.
from core.eager_methods import from_dlpack, to_dlpack  # noqa: E402
from core.framework import disable_signal_handler  # noqa: E402
from core.linalg.products import vecdot  # noqa: E402
from core.statistics import histogramdd  # noqa: E402

__all__ += ["disable_signal_handler", "from_dlpack", "histogramdd", "to_dlpack", "vecdot"]

# Paddle 3.3.1's top-level sigmoid (nn.functional.sigmoid, also Tensor.sigmoid) and true_divide.
from core.arithmetic import true_divide  # noqa: E402
from core.nn.functional.activation import sigmoid  # noqa: E402

__all__ += ["sigmoid", "true_divide"]

# paddle.sparse: core.sparse's API loads on first use of one of its names; this small module
# gives the dense Tensor its to_sparse_coo / to_sparse_csr / is_sparse* methods.
from core.sparse import methods as _sparse_methods  # noqa: E402, F401
