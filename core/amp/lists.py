"""Paddle's auto-mixed-precision op lists (``paddle.amp.amp_lists``), and the core op names
they stand for.

A white-listed op is numerically safe and fast in float16 (inside ``auto_cast`` its float32
inputs are cast to the amp dtype before it computes); a black-listed one is not (its float16
inputs are cast to float32 at O1). ``white_list()`` / ``black_list()`` return Paddle's
nested dicts, ``{dtype: {level: set of op names}}``. Paddle names some ops after its kernels
(``matmul_v2``, ``reduce_sum``); ``CORE_NAMES`` maps them to the names core's ops give
``core.autocast.cast_inputs``, so that a custom list may use either.
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

# Paddle's kernel name -> the names core's ops give ``cast_inputs``. Paddle's ``linear``
# runs matmul_v2 (+ add); core fuses it into one op named "linear".
CORE_NAMES = {
    "matmul_v2": ("matmul", "linear"), "mul": ("matmul", "linear"),
    "fused_gemm_epilogue": ("linear",), "reduce_sum": ("sum",), "reduce_mean": ("mean",),
    "reduce_prod": ("prod",), "pnorm": ("vector_norm",), "frobenius_norm": ("vector_norm",),
    "softmax_with_cross_entropy": ("cross_entropy",), "cross_entropy2": ("cross_entropy",),
    "sigmoid_cross_entropy_with_logits": ("binary_cross_entropy_with_logits",),
    "max_pool2d_with_index": ("max_pool2d",), "tanh_shrink": ("tanhshrink",),
    "lookup_table_v2": ("embedding",), "lookup_table": ("embedding",),
    # Paddle's conv1d runs its conv2d kernel, and so do core's conv1d and transposed convs;
    # core's own 3-D convs go with it: its conv kernels take x and weight of one dtype, so an
    # O1 model's float32 weights must be cast with a float16 input in every conv.
    "conv2d": ("conv3d", "conv3d_transpose"),
}


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
