"""Paddle's auto-mixed-precision op lists (``paddle.amp.amp_lists``), and the names core's ops
record in the graph that they stand for.

A white-listed op is numerically safe and fast in float16 (its result is cast to the amp
dtype inside ``auto_cast``); a black-listed one is not (its result comes back in float32 at
O1). ``white_list()`` / ``black_list()`` return Paddle's nested dicts,
``{dtype: {level: set of op names}}``. Paddle names some ops after its kernels
(``matmul_v2``, ``reduce_sum``); ``CORE_NAMES`` maps them to the names core's ops give
``core.tensor.apply``, so that a custom list may use either.
"""
from __future__ import annotations

FP16_WHITE_LIST = frozenset({
    "conv2d", "einsum", "matmul", "matmul_v2", "max_pool2d_with_index", "mul",
    "fake_quantize_dequantize_abs_max", "fake_quantize_dequantize_moving_average_abs_max",
    "fused_gemm_epilogue", "fused_attention", "fused_feedforward",
})

FP16_BLACK_LIST = frozenset({
    "tan", "acos", "asin", "sinh", "cosh", "atanh", "tanh_shrink", "cos_sim", "erfinv", "exp",
    "expm1", "log", "log10", "log2", "reciprocal", "rsqrt", "pow", "square", "reduce_sum",
    "mean", "reduce_mean", "reduce_prod", "cumprod", "cumsum", "dist", "pnorm",
    "frobenius_norm", "renorm", "group_norm", "layer_norm", "softmax", "softmin", "softplus",
    "log_softmax", "softmax_with_cross_entropy", "sigmoid_cross_entropy_with_logits",
    "c_softmax_with_cross_entropy", "cross_entropy", "cross_entropy2", "nll_loss",
    "huber_loss", "triplet_margin_loss", "log_loss", "hsigmoid_loss", "margin_cross_entropy",
})

# float16 / bfloat16 backward kernels of these are slower than float32 ones (Paddle's note)
EXTRA_BLACK_LIST = frozenset({
    "linear_interp_v2", "nearest_interp_v2", "bilinear_interp_v2", "bicubic_interp_v2",
    "trilinear_interp_v2", "lookup_table", "lookup_table_v2", "scatter",
})

BF16_WHITE_LIST = frozenset({"conv2d", "einsum", "matmul_v2"})
BF16_BLACK_LIST = frozenset()

# Paddle's kernel name -> the op names core records (``apply(..., op)``). Paddle's ``linear``
# runs matmul_v2 (+ add); core fuses it into one op named "linear".
CORE_NAMES = {
    "matmul_v2": ("matmul", "linear"), "mul": ("matmul", "linear"),
    "fused_gemm_epilogue": ("linear",), "reduce_sum": ("sum",), "reduce_mean": ("mean",),
    "reduce_prod": ("prod",), "pnorm": ("vector_norm",), "frobenius_norm": ("vector_norm",),
    "softmax_with_cross_entropy": ("cross_entropy",), "cross_entropy2": ("cross_entropy",),
    "sigmoid_cross_entropy_with_logits": ("binary_cross_entropy_with_logits",),
    "max_pool2d_with_index": ("max_pool2d",), "tanh_shrink": ("tanhshrink",),
    "lookup_table_v2": ("embedding",), "lookup_table": ("embedding",),
}

# core's conv kernels take x and weight of one dtype only; the cast of their inputs that
# Paddle does is not available at core's dispatch point (``core.amp.auto_cast``), so a
# float16 result would break the next conv of an O1 model, whose weights stay float32.
NOT_CAST_AT_O1 = frozenset({"conv2d"})


def white_list() -> dict:
    """Paddle's ``paddle.amp.amp_lists.white_list()``: ``{dtype: {level: op names}}``."""
    return {"float16": {"OD": set(FP16_WHITE_LIST), "O1": set(FP16_WHITE_LIST),
                        "O2": set(FP16_WHITE_LIST)},
            "bfloat16": {"OD": set(BF16_WHITE_LIST), "O1": set(BF16_WHITE_LIST),
                         "O2": set(BF16_WHITE_LIST)}}


def black_list() -> dict:
    """Paddle's ``paddle.amp.amp_lists.black_list()``: ``{dtype: {level: op names}}``."""
    return {"float16": {"OD": set(), "O1": set(FP16_BLACK_LIST | EXTRA_BLACK_LIST),
                        "O2": set(EXTRA_BLACK_LIST)},
            "bfloat16": {"OD": set(), "O1": set(BF16_BLACK_LIST | EXTRA_BLACK_LIST),
                         "O2": set(EXTRA_BLACK_LIST)}}


def core_names(names) -> frozenset:
    """Paddle op names together with the core op names they stand for."""
    out = set(names)
    for name in names:
        out.update(CORE_NAMES.get(name, ()))
    return frozenset(out)
