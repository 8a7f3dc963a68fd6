"""Higher-order gradients: core.grad(create_graph=True) records the backward pass, so its
results can be differentiated again (paddle.grad's create_graph). Each supported op is checked
against float64 finite differences of its first derivative and against torch's double
backward; then the uses that need it (a WGAN-GP gradient penalty, Hessian-vector products, a
physics-informed net's d2u/dx2), the error for an op without a tensor-level backward, and the
create_graph=False path left exactly as it was."""
import gc
import tracemalloc
import weakref

import numpy as np
import pytest

import core
import core.nn.functional as F
from core.higher_order import SUPPORTED_OPS
from tests.gradcheck import (
    assert_second_derivatives_match_torch,
    assert_third_order_matches_torch,
    check_second_grad,
    cube,
    leaf,
)

rng = np.random.default_rng(7)




X, Y, ROW = rng.standard_normal((3, 4)), rng.standard_normal((3, 4)), rng.standard_normal(4)
POS, POS_ROW = rng.uniform(0.5, 2.0, (3, 4)), rng.uniform(0.5, 2.0, 4)
LABELS = np.array([1, 0, 3])
IMAGES = rng.standard_normal((2, 4, 3, 3))
PLANES = rng.standard_normal((2, 3, 5, 5))  # pooled and padded
WIDE = X * 3  # across the kinks of the piecewise activations
PROBS, TARGETS = rng.uniform(0.1, 0.9, (3, 4)), rng.uniform(0, 1, (3, 4))
CLASS_WEIGHT, POS_WEIGHT = rng.uniform(0.5, 2, 4), rng.uniform(0.5, 2, 4)
RUNNING = rng.standard_normal(4), rng.uniform(0.5, 2.0, 4)
PICKS = np.array([2, 0, 2])
IDS = np.array([[1, 4, 1], [0, 2, 4]])
SPATIAL_LABELS = np.array([[0, 3], [-100, 1], [2, 2]])
ZEROS = np.where([[1, 0, 1, 1], [1, 1, 1, 1], [0, 1, 1, 0]], X, 0.0)  # prod's exact zeros
# the later additions draw from their own generator: the cases above keep their values
more = np.random.default_rng(26)
UNIT = more.uniform(-0.8, 0.8, (3, 4))  # inside (-1, 1): asin, acos, atanh, erfinv
LIKELY = more.uniform(0.1, 1.0, (3, 4))  # kl_div's labels (probabilities)
SMALL_PLANES = more.standard_normal((1, 2, 3, 3))
SOFT = more.uniform(0.1, 1.0, (3, 4))
SOFT /= SOFT.sum(axis=1, keepdims=True)  # soft labels: each row sums to 1

# name -> (core function, torch function or None, input arrays)
CASES = {
    "add": (lambda x, y: x + y, lambda x, y: x + y, (X, ROW)),
    "subtract": (lambda x, y: x - y, lambda x, y: x - y, (X, ROW)),
    "multiply": (lambda x, y: x * y, lambda x, y: x * y, (X, ROW)),
    "divide": (lambda x, y: x / y, lambda x, y: x / y, (X, POS_ROW)),
    "neg": (lambda x: -x, lambda x: -x, (X,)),
    "scale": (lambda x: core.scale(x, 2.0, 0.5), lambda x: 2.0 * x + 0.5, (X,)),
    "pow_scalar": (lambda x: x ** 2.5, lambda x: x ** 2.5, (POS,)),
    "pow_tensor": (lambda x, y: x ** y, lambda x, y: x ** y, (POS, ROW)),
    "square": (core.square, lambda x: x * x, (X,)),
    "sqrt": (core.sqrt, lambda x: x.sqrt(), (POS,)),
    "exp": (core.exp, lambda x: x.exp(), (X,)),
    "log": (core.log, lambda x: x.log(), (POS,)),
    "abs": (core.abs, lambda x: x.abs(), (X,)),
    "tanh": (core.tanh, lambda x: x.tanh(), (X,)),
    "F.tanh": (F.tanh, lambda x: x.tanh(), (X,)),
    "sigmoid": (lambda x: x.sigmoid(), lambda x: x.sigmoid(), (X,)),
    "F.sigmoid": (F.sigmoid, lambda x: x.sigmoid(), (X,)),
    "relu": (lambda x: F.relu(x) + x, lambda x: x.relu() + x, (X,)),
    "leaky_relu": (lambda x: F.leaky_relu(x, 0.2), "leaky_relu", (X,)),
    "softplus": (lambda x: F.softplus(x, beta=2.0), "softplus", (X,)),
    "gelu": (F.gelu, "gelu", (X,)),
    "gelu_tanh": (lambda x: F.gelu(x, approximate=True), "gelu_tanh", (X,)),
    "silu": (F.silu, "silu", (X,)),
    "elu": (lambda x: F.elu(x, 0.7), "elu", (X,)),
    "softmax": (lambda x: F.softmax(x, axis=0), lambda x: x.softmax(0), (X,)),
    "log_softmax": (F.log_softmax, lambda x: x.log_softmax(-1), (X,)),
    "maximum": (core.maximum, lambda x, y: x.maximum(y), (X, Y)),
    "minimum": (core.minimum, lambda x, y: x.minimum(y), (X, Y)),
    "clip": (lambda x: core.clip(x, -0.5, 0.8), lambda x: x.clip(-0.5, 0.8), (X,)),
    "matmul": (core.matmul, lambda x, y: x @ y, (X, rng.standard_normal((4, 2)))),
    "matmul_tx": (lambda x, y: core.matmul(x, y, transpose_x=True),
                  lambda x, y: x.T @ y, (X, rng.standard_normal((3, 2)))),
    "matmul_ty": (lambda x, y: core.matmul(x, y, transpose_y=True),
                  lambda x, y: x @ y.T, (X, rng.standard_normal((2, 4)))),
    "matmul_batched": (core.matmul, lambda x, y: x @ y,
                       (rng.standard_normal((2, 3, 4)), rng.standard_normal((4, 2)))),
    "matmul_vector": (core.matmul, lambda x, y: x @ y, (X, ROW)),
    "matmul_vector_left": (core.matmul, lambda x, y: x @ y, (ROW, X.T)),
    "matmul_dot": (core.matmul, lambda x, y: x @ y, (ROW, POS_ROW)),
    "linear": (F.linear, lambda x, w, b: x @ w + b,
               (rng.standard_normal((2, 3, 4)), rng.standard_normal((4, 2)),
                rng.standard_normal(2))),
    "sum": (lambda x: core.sum(x, axis=1, keepdim=True) * x, lambda x: x.sum(1, True) * x,
            (X,)),
    "mean": (lambda x: core.mean(x, axis=0) + core.mean(x), lambda x: x.mean(0) + x.mean(),
             (X,)),
    "reshape": (lambda x: x.reshape([4, 3]), lambda x: x.reshape(4, 3), (X,)),
    "transpose": (lambda x: x.transpose([1, 0]), lambda x: x.T, (X,)),
    "unsqueeze_squeeze": (lambda x: x.unsqueeze(1).squeeze(1).flatten(),
                          lambda x: x.flatten(), (X,)),
    # nn.Flatten calls F.flatten, a separate op from core.flatten (a WGAN-GP conv critic's).
    "F.flatten": (lambda x: core.nn.Flatten()(x.reshape([3, 2, 2])), lambda x: x.reshape(3, 4),
                  (X,)),
    "broadcast_to": (lambda x: x.broadcast_to([3, 4]) * x.expand([2, 3, 4]),
                     lambda x: x.broadcast_to(3, 4) * x.expand(2, 3, 4), (ROW,)),
    "concat": (lambda x, y: core.concat([x, y], axis=1), "concat", (X, Y)),
    "stack": (lambda x, y: core.stack([x, y], axis=1), "stack", (X, Y)),
    "split": (lambda x: core.split(x, [1, 3], axis=1)[1], lambda x: x[:, 1:], (X,)),
    "getitem": (lambda x: x[1:, ::2], lambda x: x[1:, ::2], (X,)),
    "getitem_advanced": (lambda x: x[np.array([0, 2, 0])], lambda x: x[[0, 2, 0]], (X,)),
    "norm": (lambda x: core.norm(x, p=2, axis=1), "norm", (X,)),
    "norm_all": (lambda x: core.norm(x), "norm_all", (X,)),
    "mse_loss": (F.mse_loss, "mse_loss", (X, Y)),
    "clone_astype": (lambda x: x.clone().astype("float64"), lambda x: x.clone(), (X,)),
    # the trigonometric and reciprocal ops of PINN residuals, and where's masked losses
    "sin": (core.sin, lambda x: x.sin(), (X,)),
    "cos": (core.cos, lambda x: x.cos(), (X,)),
    "log1p": (core.log1p, lambda x: x.log1p(), (POS,)),
    "rsqrt": (core.rsqrt, lambda x: x.rsqrt(), (POS,)),
    "reciprocal": (core.reciprocal, lambda x: x.reciprocal(), (POS,)),
    "where": (lambda x, y: core.where(x > 0, x * x, y), "where", (X, ROW)),
    "sign_floor_round": (lambda x: x * core.sign(x) + core.floor(x) + core.round(x) * x,
                         "sign_floor_round", (X,)),
    # a critic's Dropout (the same mask every call: seeded) and its inference-time scale
    "dropout": (lambda x: _seeded_dropout(x, 0.4, axis=None), "dropout", (X,)),
    "dropout_axis": (lambda x: _seeded_dropout(x, 0.5, axis=1), "dropout_axis", (X,)),
    "dropout_infer": (lambda x: F.dropout(x, 0.3, training=False, mode="downscale_in_infer"),
                      lambda x: 0.7 * x, (X,)),
    # the normalisations WGAN-GP's critics use instead of batch norm (their statistics too)
    "layer_norm": (lambda x, w, b: F.layer_norm(x, [3, 3], w, b), "layer_norm",
                   (IMAGES, rng.standard_normal((3, 3)), rng.standard_normal((3, 3)))),
    "layer_norm_plain": (lambda x: F.layer_norm(x, [4, 3, 3]), "layer_norm_plain", (IMAGES,)),
    "group_norm": (lambda x, w, b: F.group_norm(x, 2, weight=w, bias=b), "group_norm",
                   (IMAGES, rng.standard_normal(4), rng.standard_normal(4))),
    "instance_norm": (lambda x, w, b: F.instance_norm(x, weight=w, bias=b), "instance_norm",
                      (IMAGES, rng.standard_normal(4), rng.standard_normal(4))),
    # batch norm: batch statistics (differentiated) or running ones (constants); [N, C]
    # features take the channels-innermost path
    "batch_norm": (lambda x, w, b: _batch_norm(x, w, b, True), "batch_norm",
                   (IMAGES, rng.standard_normal(4), rng.standard_normal(4))),
    "batch_norm_eval": (lambda x, w, b: _batch_norm(x, w, b, False), "batch_norm_eval",
                        (IMAGES, rng.standard_normal(4), rng.standard_normal(4))),
    "batch_norm_features": (lambda x, w: _batch_norm(x, w, None, True), "batch_norm_features",
                            (rng.standard_normal((6, 4)), rng.standard_normal(4))),
    "batch_norm_features_eval": (lambda x: _batch_norm(x, None, None, False),
                                 "batch_norm_features_eval", (rng.standard_normal((6, 4)),)),
    # pooling, padding and the other linear (or fixed-routing) ops
    "max_pool2d": (lambda x: F.max_pool2d(x, 2), "max_pool2d", (PLANES,)),
    "max_pool2d_padded": (lambda x: F.max_pool2d(x, 3, 2, 1, ceil_mode=True),
                          "max_pool2d_padded", (PLANES,)),
    "max_pool2d_nhwc": (lambda x: F.max_pool2d(x, 2, 1, data_format="NHWC"), "max_pool2d_nhwc",
                        (PLANES,)),
    "avg_pool2d": (lambda x: F.avg_pool2d(x, 3, 2, 1), "avg_pool2d", (PLANES,)),
    "avg_pool2d_nhwc": (lambda x: F.avg_pool2d(x, 2, 1, data_format="NHWC"), "avg_pool2d_nhwc",
                        (PLANES,)),
    "max_avg_pool1d": (lambda x: F.max_pool1d(x, 3) + F.avg_pool1d(x, 3, 3, 1),
                       "max_avg_pool1d", (rng.standard_normal((2, 3, 9)),)),
    "adaptive_avg_pool2d": (lambda x: F.adaptive_avg_pool2d(x, 2), "adaptive_avg_pool2d",
                            (PLANES,)),
    "adaptive_max_pool2d": (lambda x: F.adaptive_max_pool2d(x, 3), "adaptive_max_pool2d",
                            (PLANES,)),
    "pad_constant": (lambda x: F.pad(x, [1, 2, 2, 1], value=0.5), "pad_constant", (PLANES,)),
    "pad_reflect": (lambda x: F.pad(x, [1, 2, 2, 1], mode="reflect"), "pad_reflect", (PLANES,)),
    "pad_replicate": (lambda x: F.pad(x, [1, 2, 2, 1], mode="replicate"), "pad_replicate",
                      (PLANES,)),
    "pad_circular": (lambda x: F.pad(x, [1, 2, 2, 1], mode="circular"), "pad_circular",
                     (PLANES,)),
    "conv2d_transpose": (lambda x, w, b: F.conv2d_transpose(x, w, b, 2, 1, output_padding=1),
                         "conv2d_transpose", (IMAGES, rng.standard_normal((4, 2, 3, 3)),
                                              rng.standard_normal(2))),
    "conv2d_transpose_groups": (lambda x, w: F.conv2d_transpose(x, w, groups=2),
                                "conv2d_transpose_groups",
                                (IMAGES, rng.standard_normal((4, 1, 2, 2)))),
    "embedding": (lambda w: F.embedding(core.to_tensor(IDS), w), "embedding",
                  (rng.standard_normal((5, 3)),)),
    "embedding_padding": (lambda w: F.embedding(core.to_tensor(IDS), w, padding_idx=1),
                          "embedding_padding", (rng.standard_normal((5, 3)),)),
    "gather": (lambda x: core.gather(x, core.to_tensor(PICKS), axis=1), "gather", (X,)),
    "index_select": (lambda x: core.index_select(x, core.to_tensor(PICKS)), "index_select",
                     (X,)),
    "take_along_axis": (lambda x: core.take_along_axis(x, core.to_tensor(LABELS[:, None]), 1),
                        "take_along_axis", (X,)),
    "tile": (lambda x: core.tile(x, [2, 1, 3]), lambda x: x.repeat(2, 1, 3), (X,)),
    "cumsum": (lambda x: core.cumsum(x, axis=1) * x, lambda x: x.cumsum(1) * x, (X,)),
    "cumsum_flat": (core.cumsum, lambda x: x.flatten().cumsum(0), (X,)),
    # reductions and element-wise functions
    "logsumexp": (lambda x: core.logsumexp(x, axis=1), lambda x: x.logsumexp(1), (X,)),
    "logsumexp_all": (lambda x: core.logsumexp(x, keepdim=True) * x,
                      lambda x: x.flatten().logsumexp(0) * x, (X,)),
    "max_min": (lambda x: core.max(x, axis=1) + core.min(x, axis=0, keepdim=True).sum(),
                lambda x: x.max(1).values + x.min(0, keepdim=True).values.sum(), (X,)),
    "amax_amin": (lambda x: core.amax(x, axis=0) * core.amin(x),
                  lambda x: x.amax(0) * x.amin(), (X,)),
    "erf": (core.erf, lambda x: x.erf(), (X,)),
    "atan2": (core.atan2, "atan2", (X, ROW)),
    "relu6": (lambda x: F.relu6(x * 2 + 3), "relu6", (WIDE,)),
    "hardtanh": (lambda x: F.hardtanh(x, -2.0, 2.5) * x, "hardtanh", (WIDE,)),
    "hardswish": (F.hardswish, "hardswish", (WIDE,)),
    "hardsigmoid": (lambda x: F.hardsigmoid(x) * x, "hardsigmoid", (WIDE,)),
    "swish": (F.swish, "silu", (X,)),
    "mish": (F.mish, "mish", (WIDE,)),
    "selu": (F.selu, "selu", (X,)),
    "celu": (lambda x: F.celu(x, 0.5), "celu", (X,)),  # torch rounds 1 / alpha to float32
    "softsign": (F.softsign, "softsign", (X,)),
    "tanhshrink": (F.tanhshrink, "tanhshrink", (X,)),
    # the losses of GAN discriminators and classifiers
    "l1_loss": (F.l1_loss, "l1_loss", (X, Y)),
    "smooth_l1_loss": (lambda x, y: F.smooth_l1_loss(x, y, "sum", delta=0.7), "smooth_l1_loss",
                       (X, Y)),
    "binary_cross_entropy": (lambda x, y: F.binary_cross_entropy(
        x, y, core.to_tensor(CLASS_WEIGHT)), "binary_cross_entropy", (PROBS, TARGETS)),
    "binary_cross_entropy_plain": (lambda x: F.binary_cross_entropy(
        x, core.to_tensor(TARGETS), reduction="sum"), "binary_cross_entropy_plain", (PROBS,)),
    "bce_with_logits": (lambda x, y: F.binary_cross_entropy_with_logits(
        x, y, core.to_tensor(CLASS_WEIGHT), pos_weight=core.to_tensor(POS_WEIGHT)),
        "bce_with_logits", (X, TARGETS)),
    "bce_with_logits_none": (lambda x: F.binary_cross_entropy_with_logits(
        x, core.to_tensor(TARGETS), reduction="none"), "bce_with_logits_none", (X,)),
    "nll_loss": (lambda x: F.nll_loss(F.log_softmax(x, axis=1), core.to_tensor(
        SPATIAL_LABELS), core.to_tensor(CLASS_WEIGHT)), "nll_loss",
        (rng.standard_normal((3, 4, 2)),)),
    # the rest of the element-wise functions (inputs inside their domains)
    "tan": (core.tan, lambda x: x.tan(), (UNIT,)),
    "asin": (core.asin, lambda x: x.asin(), (UNIT,)),
    "acos": (core.acos, lambda x: x.acos(), (UNIT,)),
    "atan": (core.atan, lambda x: x.atan(), (X,)),
    "sinh": (core.sinh, lambda x: x.sinh(), (X,)),
    "cosh": (core.cosh, lambda x: x.cosh(), (X,)),
    "asinh": (core.asinh, lambda x: x.asinh(), (X,)),
    "acosh": (core.acosh, lambda x: x.acosh(), (POS + 1,)),
    "atanh": (core.atanh, lambda x: x.atanh(), (UNIT,)),
    "erfinv": (core.erfinv, lambda x: x.erfinv(), (UNIT,)),
    "expm1": (core.expm1, lambda x: x.expm1(), (X,)),
    "log2": (core.log2, lambda x: x.log2(), (POS,)),
    "log10": (core.log10, lambda x: x.log10(), (POS,)),
    "logit": (core.logit, lambda x: x.logit(), (PROBS,)),
    # eps clips: the gradient is zero outside [eps, 1 - eps] (Paddle's kernel; torch's too)
    "logit_eps": (lambda x: core.logit(x, 0.2), lambda x: x.logit(0.2), (PROBS,)),
    "lgamma": (core.lgamma, lambda x: x.lgamma(), (POS,)),
    # prod: one, two and no zeros in a row (the gradient is the product of the others)
    "prod": (lambda x: core.prod(x, axis=1, keepdim=True) * x,
             lambda x: x.prod(1, keepdim=True) * x, (ZEROS,)),
    "prod_all": (core.prod, lambda x: x.prod(), (X,)),
    "prod_axes": (lambda x: core.prod(x, axis=[0, 2]), lambda x: x.prod(2).prod(0),
                  (more.standard_normal((2, 3, 4)),)),
    "prod_0d": (core.prod, lambda x: x.prod(), (np.array(1.7),)),
    "repeat_interleave": (lambda x: core.repeat_interleave(x, 2, axis=1),
                          lambda x: x.repeat_interleave(2, dim=1), (X,)),
    "repeat_interleave_flat": (lambda x: core.repeat_interleave(x, 3),
                               lambda x: x.repeat_interleave(3), (X,)),
    "repeat_interleave_counts": (
        lambda x: core.repeat_interleave(x, core.to_tensor(np.array([2, 0, 1])), axis=0),
        "repeat_interleave_counts", (X,)),
    "kl_div": (lambda x, y: F.kl_div(x, y, "batchmean"), "kl_div", (X, LIKELY)),
    "kl_div_log_target": (lambda x, y: F.kl_div(x, y, "sum", log_target=True),
                          "kl_div_log_target", (X, np.log(LIKELY))),
    "cosine_similarity": (F.cosine_similarity, "cosine_similarity", (X, Y)),
    "cosine_similarity_broadcast": (lambda x, y: F.cosine_similarity(x, y, axis=0),
                                    "cosine_similarity_broadcast", (X, ROW)),
    # built of supported ops (matmul, reshape, transpose): checked, not new
    "interpolate_nearest": (lambda x: F.interpolate(x, scale_factor=2), "interpolate_nearest",
                            (SMALL_PLANES,)),
    "interpolate_bilinear": (lambda x: F.interpolate(x, size=[5, 4], mode="bilinear"),
                             "interpolate_bilinear", (SMALL_PLANES,)),
    "pixel_shuffle": (lambda x: F.pixel_shuffle(x, 2), "pixel_shuffle",
                      (more.standard_normal((1, 8, 2, 3)),)),
    # soft labels (with or without the softmax, label smoothing): the label is differentiated
    "soft_cross_entropy": (lambda x, y: F.cross_entropy(x, y, soft_label=True), "soft_ce",
                           (X, SOFT)),
    "soft_cross_entropy_sum_axis": (lambda x, y: F.cross_entropy(
        x.transpose([1, 0]), y, soft_label=True, reduction="sum", axis=0), "soft_ce_sum_axis",
        (X, SOFT.T.copy())),
    "soft_cross_entropy_none_smoothed": (lambda x, y: F.cross_entropy(
        x, y, soft_label=True, reduction="none", label_smoothing=0.1), "soft_ce_none_smoothed",
        (X, SOFT)),
    "soft_cross_entropy_probs": (lambda x, y: F.cross_entropy(
        x, y, soft_label=True, use_softmax=False), "soft_ce_probs", (PROBS, SOFT)),
    # PReLU: per-channel slopes (channels first or last) and one shared slope
    "prelu": (F.prelu, "prelu", (IMAGES, more.uniform(0.1, 0.5, 4))),
    "prelu_shared": (F.prelu, "prelu", (IMAGES, more.uniform(0.1, 0.5, 1))),
    "prelu_nhwc": (lambda x, w: F.prelu(x, w, data_format="NHWC"), "prelu_nhwc",
                   (IMAGES, more.uniform(0.1, 0.5, 3))),
}


def _batch_norm(x, w, b, training):
    mean, var = (core.to_tensor(a.copy()) for a in RUNNING)
    return F.batch_norm(x, mean, var, w, b, training=training)


def _seeded_dropout(x, p, axis):
    core.seed(11)
    return F.dropout(x, p, axis=axis)


def _dropout_mask(p, axis):
    return _seeded_dropout(core.ones([3, 4], dtype="float64"), p, axis).numpy()


def _torch_fn(name, spec):
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional
    named = {
        "leaky_relu": lambda x: tf.leaky_relu(x, 0.2),
        "softplus": lambda x: tf.softplus(x, beta=2.0),
        "gelu": tf.gelu,
        "gelu_tanh": lambda x: tf.gelu(x, approximate="tanh"),
        "silu": tf.silu,
        "elu": lambda x: tf.elu(x, 0.7),
        "stack": lambda x, y: torch.stack([x, y], 1),
        "concat": lambda x, y: torch.cat([x, y], 1),
        "norm": lambda x: torch.linalg.vector_norm(x, 2, dim=1),
        "norm_all": lambda x: torch.linalg.vector_norm(x),
        "mse_loss": tf.mse_loss,
        "where": lambda x, y: torch.where(x > 0, x * x, y),
        "dropout": lambda x: x * torch.tensor(_dropout_mask(0.4, None)),
        "layer_norm": lambda x, w, b: tf.layer_norm(x, [3, 3], w, b),
        "layer_norm_plain": lambda x: tf.layer_norm(x, [4, 3, 3]),
        "group_norm": lambda x, w, b: tf.group_norm(x, 2, w, b),
        "instance_norm": lambda x, w, b: tf.instance_norm(x, weight=w, bias=b),
        "dropout_axis": lambda x: x * torch.tensor(_dropout_mask(0.5, 1)),
        "sign_floor_round": lambda x: x * x.sign() + x.floor() + x.round() * x,
        **_torch_named_new(torch),
    }
    return named[spec] if isinstance(spec, str) else spec


def _torch_named_new(torch):
    """torch's forms of the ops that gained a tensor-level backward with batch norm."""
    tf = torch.nn.functional

    def batch_norm(training):
        def fn(x, w=None, b=None):
            mean, var = (torch.tensor(a.copy()) for a in RUNNING)
            return tf.batch_norm(x, mean, var, w, b, training=training)
        return fn

    def nhwc(pool):
        return lambda x: pool(x.permute(0, 3, 1, 2)).permute(0, 2, 3, 1)

    return {
        "batch_norm": batch_norm(True), "batch_norm_eval": batch_norm(False),
        "batch_norm_features": batch_norm(True), "batch_norm_features_eval": batch_norm(False),
        "max_pool2d": lambda x: tf.max_pool2d(x, 2),
        "max_pool2d_padded": lambda x: tf.max_pool2d(x, 3, 2, 1, ceil_mode=True),
        "max_pool2d_nhwc": nhwc(lambda x: tf.max_pool2d(x, 2, 1)),
        "avg_pool2d": lambda x: tf.avg_pool2d(x, 3, 2, 1, count_include_pad=False),
        "avg_pool2d_nhwc": nhwc(lambda x: tf.avg_pool2d(x, 2, 1)),
        "max_avg_pool1d": lambda x: tf.max_pool1d(x, 3) + tf.avg_pool1d(
            x, 3, 3, 1, count_include_pad=False),
        "adaptive_avg_pool2d": lambda x: tf.adaptive_avg_pool2d(x, 2),
        "adaptive_max_pool2d": lambda x: tf.adaptive_max_pool2d(x, 3),
        "pad_constant": lambda x: tf.pad(x, [1, 2, 2, 1], value=0.5),
        "pad_reflect": lambda x: tf.pad(x, [1, 2, 2, 1], mode="reflect"),
        "pad_replicate": lambda x: tf.pad(x, [1, 2, 2, 1], mode="replicate"),
        "pad_circular": lambda x: tf.pad(x, [1, 2, 2, 1], mode="circular"),
        "conv2d_transpose": lambda x, w, b: tf.conv_transpose2d(x, w, b, 2, 1, 1),
        "conv2d_transpose_groups": lambda x, w: tf.conv_transpose2d(x, w, groups=2),
        "embedding": lambda w: tf.embedding(torch.tensor(IDS), w),
        "embedding_padding": lambda w: tf.embedding(torch.tensor(IDS), w, padding_idx=1),
        "gather": lambda x: x.index_select(1, torch.tensor(PICKS)),
        "index_select": lambda x: x.index_select(0, torch.tensor(PICKS)),
        "take_along_axis": lambda x: x.take_along_dim(torch.tensor(LABELS[:, None]), 1),
        "atan2": torch.atan2,
        "relu6": lambda x: tf.relu6(x * 2 + 3),
        "hardtanh": lambda x: tf.hardtanh(x, -2.0, 2.5) * x,
        "hardswish": tf.hardswish,
        "hardsigmoid": lambda x: (x * 0.1666667 + 0.5).clamp(0, 1) * x,  # Paddle's slope
        "mish": tf.mish, "selu": tf.selu, "celu": lambda x: tf.celu(x, 0.5),
        "softsign": tf.softsign, "tanhshrink": tf.tanhshrink, "l1_loss": tf.l1_loss,
        "smooth_l1_loss": lambda x, y: tf.huber_loss(x, y, "sum", delta=0.7),
        "binary_cross_entropy": lambda x, y: tf.binary_cross_entropy(
            x, y, torch.tensor(CLASS_WEIGHT)),
        "binary_cross_entropy_plain": lambda x: tf.binary_cross_entropy(
            x, torch.tensor(TARGETS), reduction="sum"),
        "bce_with_logits": lambda x, y: tf.binary_cross_entropy_with_logits(
            x, y, torch.tensor(CLASS_WEIGHT), pos_weight=torch.tensor(POS_WEIGHT)),
        "bce_with_logits_none": lambda x: tf.binary_cross_entropy_with_logits(
            x, torch.tensor(TARGETS), reduction="none"),
        "nll_loss": lambda x: tf.nll_loss(x.log_softmax(1), torch.tensor(SPATIAL_LABELS),
                                          torch.tensor(CLASS_WEIGHT)),
        "prelu": tf.prelu,
        "soft_ce": tf.cross_entropy,
        "soft_ce_sum_axis": lambda x, y: tf.cross_entropy(x, y.T, reduction="sum"),
        "soft_ce_none_smoothed": lambda x, y: tf.cross_entropy(x, y, reduction="none",
                                                               label_smoothing=0.1)[:, None],
        "soft_ce_probs": lambda x, y: -(y * x.log()).sum(1).mean(),
        "interpolate_nearest": lambda x: tf.interpolate(x, scale_factor=2),
        "interpolate_bilinear": lambda x: tf.interpolate(x, size=[5, 4], mode="bilinear"),
        "pixel_shuffle": lambda x: tf.pixel_shuffle(x, 2),
        "cosine_similarity": tf.cosine_similarity,
        "cosine_similarity_broadcast": lambda x, y: tf.cosine_similarity(x, y, dim=0),
        "kl_div": lambda x, y: tf.kl_div(x, y, reduction="batchmean"),
        "kl_div_log_target": lambda x, y: tf.kl_div(x, y, reduction="sum", log_target=True),
        "repeat_interleave_counts": lambda x: x.repeat_interleave(torch.tensor([2, 0, 1]), dim=0),
        "prelu_nhwc": lambda x, w: tf.prelu(x.permute(0, 3, 1, 2), w).permute(0, 2, 3, 1),
    }


@pytest.mark.parametrize("name", sorted(CASES))
def test_second_derivatives_match_finite_differences(name):
    fn, _, arrays = CASES[name]
    check_second_grad(cube(fn), *arrays, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(CASES))
def test_second_derivatives_match_torch(name):
    torch = pytest.importorskip("torch")
    fn, spec, arrays = CASES[name]
    assert_second_derivatives_match_torch(fn, _torch_fn(name, spec), arrays, torch,
                                          rtol=1e-10, atol=1e-12, rtol2=1e-9, atol2=1e-10)


def test_prod_with_a_dtype_casts_inside_the_recorded_backward():
    x32 = core.to_tensor(X, dtype="float32", stop_gradient=False)
    x64 = leaf(X.astype("float32").astype("float64"))
    grads = []
    for x in (x32, x64):
        (g,) = core.grad((core.prod(x, axis=0, dtype="float64") ** 3).sum(), x, create_graph=True)
        assert g.dtype == x.dtype
        (g * g).sum().backward()
        grads.append((g.numpy(), x.gradient()))
    for got, expected in zip(grads[0], grads[1]):
        np.testing.assert_allclose(got, expected, rtol=1e-5)


def test_cosine_similarity_second_derivatives_where_eps_clips():
    """eps = 0.18 clips the first row's norm product (0.011 < eps^2), not the others: there
    the norm product is the constant eps (Paddle's formula; torch clips each norm instead)."""
    def fn(x, y):
        return F.cosine_similarity(x * 0.3, y * 0.3, eps=0.18)

    assert np.sum(((0.3 * X) ** 2).sum(1) * ((0.3 * Y) ** 2).sum(1) < 0.18 ** 2) == 1
    check_second_grad(cube(fn), X, Y)


def test_soft_cross_entropy_with_class_weights_second_derivatives():
    """Each row's weight (label @ weight) is a constant of the gradient, as on the first-order
    path, so the input's second derivatives are checked."""
    def fn(x, y):
        return F.cross_entropy(x, y, weight=core.to_tensor(CLASS_WEIGHT), soft_label=True)

    check_second_grad(cube(fn), X, SOFT, wrt=[0])


def test_kl_div_second_derivatives_are_zero_where_the_label_is_not_positive():
    """As the first-order path (Paddle's kernel): label <= 0 contributes nothing. At exactly 0
    the label's own derivative has a kink, so only the input is checked there."""
    labels = LIKELY.copy()
    labels[0, 1], labels[2, 2] = 0.0, -0.3
    check_second_grad(cube(lambda x, y: F.kl_div(x, y, "sum")), X, labels, wrt=[0])
    labels[0, 1] = -0.5
    check_second_grad(cube(lambda x, y: F.kl_div(x, y, "sum")), X, labels)
    x, y = leaf(X), leaf(labels)
    gx, gy = core.grad(cube(lambda x, y: F.kl_div(x, y, "sum"))(x, y), [x, y],
                       create_graph=True)
    (gx.sum() + gy.sum()).backward()
    assert np.all(np.isfinite(x.gradient())) and np.all(y.gradient()[labels <= 0] == 0)


@pytest.mark.parametrize("n", [0, 1])
def test_polygamma_second_derivatives(n):
    """digamma (n = 0) and trigamma: their derivatives are the next polygamma, evaluated by a
    series (or scipy) that differs from torch's in the last digits, hence rtol 1e-8."""
    torch = pytest.importorskip("torch")

    def fn(x):
        return core.digamma(x) if n == 0 else core.polygamma(x, n)

    check_second_grad(cube(fn), POS, rtol=1e-5, atol=1e-6)
    x, t = leaf(POS), torch.tensor(POS, requires_grad=True)
    (g,) = core.grad(cube(fn)(x).sum(), x, create_graph=True)
    (tg,) = torch.autograd.grad(t.polygamma(n).pow(3).sum(), t, create_graph=True)
    np.testing.assert_allclose(g.numpy(), tg.detach().numpy(), rtol=1e-8)
    (g * g).sum().backward()
    (tg * tg).sum().backward()
    np.testing.assert_allclose(x.gradient(), t.grad.numpy(), rtol=1e-8)


def test_cross_entropy_second_derivatives():
    torch = pytest.importorskip("torch")
    logits = rng.standard_normal((3, 5))
    for reduction in ("mean", "sum", "none"):
        def fn(x, reduction=reduction):
            return F.cross_entropy(x, core.to_tensor(LABELS), reduction=reduction)

        check_second_grad(cube(fn), logits)
        x, t = leaf(logits), torch.tensor(logits, requires_grad=True)
        (g,) = core.grad(cube(fn)(x).sum(), x, create_graph=True)
        (tg,) = torch.autograd.grad(torch.nn.functional.cross_entropy(
            t, torch.tensor(LABELS), reduction=reduction).pow(3).sum(), t, create_graph=True)
        np.testing.assert_allclose(g.numpy(), tg.detach().numpy(), rtol=1e-10, atol=1e-12)
        (g * g).sum().backward()
        (tg * tg).sum().backward()
        np.testing.assert_allclose(x.gradient(), t.grad.numpy(), rtol=1e-9, atol=1e-10)


def test_cross_entropy_over_axis_1_with_ignored_rows():
    logits, labels = rng.standard_normal((3, 4, 2)), np.array([[0, 3], [-100, 1], [2, 2]])

    def fn(x):
        return F.cross_entropy(x, core.to_tensor(labels), axis=1)

    check_second_grad(cube(fn), logits)


@pytest.mark.parametrize("stride,padding,groups,layout", [
    (1, 0, 1, "NCHW"), (2, 1, 1, "NCHW"), (1, 1, 2, "NCHW"), (1, 1, 1, "NHWC")])
def test_conv2d_second_derivatives(stride, padding, groups, layout):
    x = rng.standard_normal((2, 4, 5, 5) if layout == "NCHW" else (2, 5, 5, 4))
    w, b = rng.standard_normal((2, 4 // groups, 3, 3)), rng.standard_normal(2)

    def fn(x, w, b):
        return F.conv2d(x, w, b, stride=stride, padding=padding, groups=groups,
                        data_format=layout)

    check_second_grad(cube(fn), x, w, b, rtol=1e-5, atol=1e-6)


def test_conv2d_third_order_matches_torch():
    torch = pytest.importorskip("torch")
    a, k = rng.standard_normal((1, 2, 5, 5)), rng.standard_normal((3, 2, 3, 3))
    x, w = leaf(a), leaf(k)
    xt, wt = torch.tensor(a, requires_grad=True), torch.tensor(k, requires_grad=True)
    out = F.conv2d(x, w, padding=1)
    tout = torch.nn.functional.conv2d(xt, wt, padding=1)
    (gw,) = core.grad((out * out).sum(), w, create_graph=True)
    (tgw,) = torch.autograd.grad((tout * tout).sum(), wt, create_graph=True)
    (gx,) = core.grad((gw * gw).sum(), x, create_graph=True)
    (tgx,) = torch.autograd.grad((tgw * tgw).sum(), xt, create_graph=True)
    (gx * gx).sum().backward()
    (tgx * tgx).sum().backward()
    np.testing.assert_allclose(gx.numpy(), tgx.detach().numpy(), rtol=1e-10, atol=1e-9)
    np.testing.assert_allclose(w.gradient(), wt.grad.numpy(), rtol=1e-9, atol=1e-8)


def test_third_derivative_of_a_power():
    x = leaf([0.5, -1.5, 2.0])
    (g1,) = core.grad((x ** 4).sum(), x, create_graph=True)
    (g2,) = core.grad(g1.sum(), x, create_graph=True)
    (g3,) = core.grad(g2.sum(), x)
    np.testing.assert_allclose(g1.numpy(), 4 * x.numpy() ** 3)
    np.testing.assert_allclose(g2.numpy(), 12 * x.numpy() ** 2)
    np.testing.assert_allclose(g3.numpy(), 24 * x.numpy())


# ----- what it is for ------------------------------------------------------------------------

class _Critic(core.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = core.nn.Conv2D(2, 3, 3, padding=1)
        self.fc = core.nn.Linear(3 * 4 * 4, 1)

    def forward(self, x):
        return self.fc(F.leaky_relu(self.conv(x), 0.2).flatten(1))


def test_wgan_gp_penalty_gradients_match_torch():
    torch = pytest.importorskip("torch")
    critic = _Critic()
    critic.to(dtype="float64")
    params = {name: rng.standard_normal(p.shape) * 0.3 for name, p in critic.named_parameters()}
    for name, p in critic.named_parameters():
        p.set_value(params[name])
    real, fake = rng.standard_normal((4, 2, 4, 4)), rng.standard_normal((4, 2, 4, 4))
    alpha = rng.uniform(size=(4, 1, 1, 1))
    mixed = core.to_tensor(alpha * real + (1 - alpha) * fake, stop_gradient=False)
    (grad,) = core.grad(critic(mixed), mixed, create_graph=True)
    penalty = ((grad.reshape([4, -1]).norm(2, axis=1) - 1) ** 2).mean()
    penalty.backward()

    tm = torch.tensor(alpha * real + (1 - alpha) * fake, requires_grad=True)
    tw = {k: torch.tensor(v, requires_grad=True) for k, v in params.items()}

    def torch_critic(x):
        h = torch.nn.functional.conv2d(x, tw["conv.weight"], tw["conv.bias"], padding=1)
        h = torch.nn.functional.leaky_relu(h, 0.2).flatten(1)
        return h @ tw["fc.weight"] + tw["fc.bias"]

    (tgrad,) = torch.autograd.grad(torch_critic(tm).sum(), tm, create_graph=True)
    tpen = ((tgrad.reshape(4, -1).norm(2, dim=1) - 1) ** 2).mean()
    tpen.backward()
    np.testing.assert_allclose(penalty.item(), tpen.item(), rtol=1e-12)
    for name, p in critic.named_parameters():
        # The critic's input gradient does not depend on the last bias (and on the conv's
        # bias only through leaky_relu's piecewise-constant slope): no gradient, or zeros.
        got, want = p.gradient(), tw[name].grad
        got = np.zeros(p.shape) if got is None else got
        want = np.zeros(p.shape) if want is None else want.numpy()
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12, err_msg=name)
    assert critic.conv.weight.gradient() is not None and critic.fc.weight.gradient() is not None


def _layer_critic(*middle):
    core.seed(3)
    return core.nn.Sequential(core.nn.Conv2D(1, 4, 3, stride=2, padding=1),
                              core.nn.LeakyReLU(0.2), *middle, core.nn.Flatten(),
                              core.nn.Linear(4 * 4 * 4, 1))


_MIDDLES = {"plain": lambda: (), "layer_norm": lambda: (core.nn.LayerNorm([4, 4, 4]),),
            "instance_norm": lambda: (core.nn.InstanceNorm2D(4),),
            # batch norm (users put it in critics, though WGAN-GP advises against it)
            "batch_norm": lambda: (core.nn.BatchNorm2D(4),),
            "sync_batch_norm": lambda: (core.nn.SyncBatchNorm(4),),
            "prelu": lambda: (core.nn.PReLU(4, 0.2),),
            "local_response_norm": lambda: (core.nn.LocalResponseNorm(3),)}


@pytest.mark.parametrize("middle", sorted(_MIDDLES))
def test_a_float32_critic_built_from_layers_trains_with_the_penalty(middle):
    # WGAN-GP as Paddle's tutorials write it: nn.Sequential with LeakyReLU and nn.Flatten
    # (and the paper's layer norm), float32, grad_outputs of ones, retain_graph=True, the
    # penalty added to the critic loss
    critic = _layer_critic(*_MIDDLES[middle]())
    real = core.to_tensor(rng.standard_normal((4, 1, 8, 8)), dtype="float32")
    fake = core.to_tensor(rng.standard_normal((4, 1, 8, 8)), dtype="float32")
    alpha = core.to_tensor(rng.uniform(size=(4, 1, 1, 1)), dtype="float32")
    mixed = alpha * real + (1 - alpha) * fake
    mixed.stop_gradient = False
    d = critic(mixed)
    (grad,) = core.grad(outputs=d, inputs=mixed, grad_outputs=core.ones_like(d),
                        create_graph=True, retain_graph=True)
    penalty = ((grad.reshape([4, -1]).norm(2, axis=1) - 1) ** 2).mean()
    loss = critic(fake).mean() - critic(real).mean() + 10 * penalty
    loss.backward()
    assert grad.dtype == core.float32 and penalty.dtype == core.float32

    double = _layer_critic(*_MIDDLES[middle]())  # the same weights in float64
    double.to(dtype="float64")
    mixed64 = core.to_tensor(mixed.numpy().astype("float64"), stop_gradient=False)
    (grad64,) = core.grad(double(mixed64), mixed64, create_graph=True)
    ((grad64.reshape([4, -1]).norm(2, axis=1) - 1) ** 2).mean().backward()
    np.testing.assert_allclose(grad.numpy(), grad64.numpy(), rtol=1e-4, atol=1e-6)
    weight = critic[0].weight
    assert weight.grad is not None and weight.grad.dtype == core.float32


def test_batch_norm_running_statistics_move_with_the_forward_only():
    critic = _layer_critic(core.nn.BatchNorm2D(4))
    norm = critic[2]
    x = core.to_tensor(rng.standard_normal((4, 1, 8, 8)), dtype="float32", stop_gradient=False)
    d = critic(x)
    after_forward = norm._mean.numpy().copy(), norm._variance.numpy().copy()
    (grad,) = core.grad(d.sum(), x, create_graph=True)
    (grad * grad).sum().backward()
    np.testing.assert_array_equal(norm._mean.numpy(), after_forward[0])
    np.testing.assert_array_equal(norm._variance.numpy(), after_forward[1])
    assert critic[0].weight.grad is not None and norm.weight.grad is not None


# name -> (core function, torch function, input): ops whose gradient is an op of its own
_THIRD_ORDER = {
    "max_pool2d": (lambda x: F.max_pool2d(x, 3, 2, 1), lambda t, x: t.max_pool2d(x, 3, 2, 1)),
    "avg_pool2d": (lambda x: F.avg_pool2d(x, 2, 1),
                   lambda t, x: t.avg_pool2d(x, 2, 1)),
    "adaptive_max_pool2d": (lambda x: F.adaptive_max_pool2d(x, 2),
                            lambda t, x: t.adaptive_max_pool2d(x, 2)),
    "pad_reflect": (lambda x: F.pad(x, [2, 1, 1, 2], mode="reflect"),
                    lambda t, x: t.pad(x, [2, 1, 1, 2], mode="reflect")),
    "conv2d_transpose": (lambda x: F.conv2d_transpose(x, core.to_tensor(_KERNEL), stride=2),
                         lambda t, x: t.conv_transpose2d(x, _torch_kernel(), stride=2)),
}
_KERNEL = rng.standard_normal((3, 2, 3, 3))


def _torch_kernel():
    torch = pytest.importorskip("torch")
    return torch.tensor(_KERNEL)


@pytest.mark.parametrize("name", sorted(_THIRD_ORDER))
def test_third_order_through_recorded_gradient_ops_matches_torch(name):
    torch = pytest.importorskip("torch")
    fn, tfn = _THIRD_ORDER[name]
    a = rng.standard_normal((2, 3, 5, 5))
    assert_third_order_matches_torch(fn, lambda t: tfn(torch.nn.functional, t), a, torch)


@pytest.mark.parametrize("name", ["repeat_interleave", "prod"])
def test_third_order_of_repeat_interleave_and_prod_matches_torch(name):
    """repeat_interleave's gradient is an op of its own (the sum over copies) and prod's is
    prod again: third derivatives go through both."""
    torch = pytest.importorskip("torch")
    fn, tfn = {"repeat_interleave": (lambda x: core.repeat_interleave(x, 2, axis=1),
                                     lambda t: t.repeat_interleave(2, dim=1)),
               "prod": (lambda x: core.prod(x, axis=1), lambda t: t.prod(1))}[name]
    a = np.where([[1, 1, 0], [1, 1, 1]], more.uniform(0.5, 1.5, (2, 3)), 0.0)
    assert_third_order_matches_torch(fn, tfn, a, torch)


def test_hessian_vector_product_of_an_mlp_matches_torch():
    torch = pytest.importorskip("torch")
    w1, b1, w2 = rng.standard_normal((3, 5)), rng.standard_normal(5), rng.standard_normal((5, 1))
    data, v = rng.standard_normal((6, 3)), rng.standard_normal((3, 5))

    def loss(tanh, x, a, b, c):
        return ((tanh(x @ a + b) @ c) ** 2).mean()

    a, b, c = leaf(w1), leaf(b1), leaf(w2)
    (ga,) = core.grad(loss(F.tanh, core.to_tensor(data), a, b, c), a, create_graph=True)
    (hv,) = core.grad((ga * core.to_tensor(v)).sum(), a)
    ta, tb, tc = (torch.tensor(m, requires_grad=True) for m in (w1, b1, w2))
    (tga,) = torch.autograd.grad(loss(torch.tanh, torch.tensor(data), ta, tb, tc), ta,
                                 create_graph=True)
    (thv,) = torch.autograd.grad((tga * torch.tensor(v)).sum(), ta)
    np.testing.assert_allclose(hv.numpy(), thv.numpy(), rtol=1e-10, atol=1e-12)


def test_pinn_loss_with_second_derivative_trains_like_torch():
    """u(x) a tanh MLP; the residual u'' + sin(x) needs d2u/dx2 with a graph (create_graph
    twice), and the loss's gradient reaches every weight."""
    torch = pytest.importorskip("torch")
    sizes = [(1, 8), (8, 8), (8, 1)]
    weights = [(rng.standard_normal(s) * 0.7, rng.standard_normal(s[1]) * 0.1) for s in sizes]
    xs = np.linspace(-1, 1, 7).reshape(7, 1)

    def u(x, params, act):
        h = x
        for i, (w, b) in enumerate(params):
            h = h @ w + b
            h = act(h) if i < len(params) - 1 else h
        return h

    params = [(leaf(w), leaf(b)) for w, b in weights]
    x = leaf(xs)
    out = u(x, params, F.tanh)
    (du,) = core.grad(out.sum(), x, create_graph=True)
    (d2u,) = core.grad(du.sum(), x, create_graph=True)
    loss = ((d2u + core.sin(x.detach())) ** 2).mean() + ((out[0] - 0.0) ** 2).sum()
    loss.backward()

    tparams = [(torch.tensor(w, requires_grad=True), torch.tensor(b, requires_grad=True))
               for w, b in weights]
    tx = torch.tensor(xs, requires_grad=True)
    tout = u(tx, tparams, torch.tanh)
    (tdu,) = torch.autograd.grad(tout.sum(), tx, create_graph=True)
    (td2u,) = torch.autograd.grad(tdu.sum(), tx, create_graph=True)
    tloss = ((td2u + torch.sin(tx.detach())) ** 2).mean() + ((tout[0] - 0.0) ** 2).sum()
    tloss.backward()
    np.testing.assert_allclose(loss.item(), tloss.item(), rtol=1e-12)
    for (w, b), (tw, tb) in zip(params, tparams):
        np.testing.assert_allclose(w.gradient(), tw.grad.numpy(), rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(b.gradient(), tb.grad.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(x.gradient(), tx.grad.numpy(), rtol=1e-9, atol=1e-12)


# ----- the engine's rules on the create_graph path -------------------------------------------

def test_an_op_without_a_tensor_level_backward_is_named_before_anything_runs():
    x = leaf(X)
    calls = []
    h = core.tanh(x)
    h.register_hook(lambda g: calls.append(g))
    out = core.frac(h).sum()
    with pytest.raises(NotImplementedError) as err:
        core.grad(out, x, create_graph=True)
    message = str(err.value)
    assert "'frac'" in message and "create_graph=True" in message
    assert "tanh" in message and "matmul" in message  # the supported ones are listed
    assert calls == []  # nothing was computed
    (g,) = core.grad(out, x)  # the graph is intact: the first-order path still works
    assert g.shape == [3, 4]


def test_complex_values_are_refused_by_name():
    z = core.to_tensor(np.array([1 + 2j, 0.5 - 1j]), stop_gradient=False)
    with pytest.raises(NotImplementedError, match="'multiply'.*complex"):
        core.grad((z * z).abs().sum(), z, create_graph=True)


def test_supported_list_names_the_brief_set():
    for op in ("add", "matmul", "linear", "conv2d", "softmax", "gelu", "getitem", "concat",
               "batch_norm", "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "pad",
               "binary_cross_entropy_with_logits", "logsumexp", "erf", "gather", "tile",
               "cumsum", "amax", "amin", "hardswish", "mish"):
        assert op in SUPPORTED_OPS


def test_sparse_embedding_gradients_are_refused_by_name():
    w = leaf(rng.standard_normal((5, 3)))
    out = (F.embedding(core.to_tensor(IDS), w, sparse=True) ** 2).sum()
    with pytest.raises(NotImplementedError, match="'embedding'"):
        core.grad(out, w, create_graph=True)


def test_grad_then_backward_accumulates_second_order_into_leaves():
    x, w = leaf([0.3, -0.2]), leaf([1.5, 0.5])
    y = (core.tanh(x * w) ** 2).sum()
    (gx,) = core.grad(y, x, create_graph=True)
    assert x.grad is None and w.grad is None  # grad() itself never touches .grad
    assert not gx.stop_gradient
    gx.sum().backward()
    first = w.gradient().copy()
    (gx2,) = core.grad((core.tanh(x * w) ** 2).sum(), x, create_graph=True)
    gx2.sum().backward()
    np.testing.assert_allclose(w.gradient(), 2 * first)  # accumulated, as Paddle
    assert x.grad is not None


def test_hooks_see_the_gradient_tensor_and_their_result_is_differentiated():
    torch = pytest.importorskip("torch")
    values = [0.4, -0.9, 1.1]
    x, t = leaf(values), torch.tensor(values, dtype=torch.float64, requires_grad=True)
    h, th = x * x, t * t
    seen = []

    def hook(g):
        seen.append(g.stop_gradient)
        return g * h  # a replacement that depends on x: its derivative must count

    h.register_hook(hook)
    th.register_hook(lambda g: g * th)
    (g,) = core.grad((h * h).sum(), x, create_graph=True)
    (tg,) = torch.autograd.grad((th * th).sum(), t, create_graph=True)
    np.testing.assert_allclose(g.numpy(), tg.detach().numpy())
    (g2,) = core.grad(g.sum(), x)  # the hook runs again on this pass's gradient of h
    (tg2,) = torch.autograd.grad(tg.sum(), t)
    np.testing.assert_allclose(g2.numpy(), tg2.numpy())
    assert seen[0] is False  # the first hook call saw a Tensor with a graph


def test_grad_outputs_tensor_is_part_of_the_new_graph():
    x, v = leaf([1.0, 2.0]), leaf([0.5, -1.0])
    (g,) = core.grad(x * x, x, grad_outputs=v, create_graph=True)
    gv, gx = core.grad(g.sum(), [v, x])
    np.testing.assert_allclose(gv.numpy(), 2 * x.numpy())
    np.testing.assert_allclose(gx.numpy(), 2 * v.numpy())


def test_allow_unused_no_grad_vars_and_retain_graph_on_the_graph_path():
    x, y, z = leaf([1.0, 2.0]), leaf([3.0, 4.0]), leaf([0.5, 0.5])
    h = x * y
    out = (h * h).sum()
    with pytest.raises(RuntimeError, match="input 1 .*allow_unused=True"):
        core.grad(out, [x, z], create_graph=True)
    gx, gz = core.grad(out, [x, z], create_graph=True, allow_unused=True)
    assert gz is None
    np.testing.assert_allclose(gx.numpy(), 2 * h.numpy() * y.numpy())
    (gx,) = core.grad(out, x, create_graph=True, no_grad_vars=[h], allow_unused=True)
    assert gx is None
    (gx,) = core.grad(out, x, create_graph=True, retain_graph=False)
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        core.grad(gx.sum(), x)  # the second-order graph goes through the freed forward one


def test_constant_gradients_come_back_as_owned_constants():
    x = leaf([1.0, 2.0])
    (g,) = core.grad((x * 3.0).sum(), x, create_graph=True)  # linear: no graph left
    assert g.stop_gradient
    np.testing.assert_allclose(g.numpy(), [3.0, 3.0])
    gx1, gx2 = core.grad(x, [x, x], create_graph=True)
    assert gx1 is not gx2 and gx1.data is not gx2.data


# ----- create_graph=False is the path it always was ------------------------------------------

def test_create_graph_false_never_calls_a_tensor_level_backward():
    def refuse(out, g):
        raise AssertionError("grad_fn ran with create_graph=False")

    x = leaf([1.0, -2.0])
    out = core.tensor.apply(x.data * 3, (x,), lambda g: (g * 3,), "triple", refuse)
    (g,) = core.grad(out.sum(), x)
    np.testing.assert_array_equal(g.numpy(), [3.0, 3.0])
    assert g.stop_gradient


def test_create_graph_false_is_bit_identical_to_backward():
    a, b = rng.standard_normal((5, 4)), rng.standard_normal((4, 3))

    def model(x, w):
        return (F.softmax(F.gelu(x @ w), axis=1) * (x @ w).sigmoid()).sum()

    x1, w1, x2, w2 = leaf(a), leaf(b), leaf(a), leaf(b)
    gx, gw = core.grad(model(x1, w1), [x1, w1])
    model(x2, w2).backward()
    np.testing.assert_array_equal(gx.numpy(), x2.gradient())
    np.testing.assert_array_equal(gw.numpy(), w2.gradient())


def test_no_graph_kept_alive_after_create_graph_false():
    x = leaf(X)
    gc.disable()
    try:
        h = core.tanh(x * 2.0)
        probe = weakref.ref(h)
        out = (h * h).sum()
        core.grad(out, x)
        del h, out
        assert probe() is None  # freed by reference counting: no cycle holds the graph
        h = core.tanh(x)
        probe = weakref.ref(h)
        del h
        assert probe() is None  # a node with a grad_fn that no backward ever freed
        h = core.tanh(x)
        kept = core.concat([h, h], axis=0)  # its grad_fn holds its inputs, as backward did
        probe = weakref.ref(h)
        kept.sum().backward()
        del h
        assert probe() is None  # the freed node dropped its grad_fn with its closure
        h = core.tanh(x)
        kept = core.concat([h, h], axis=0)
        probe = weakref.ref(h)
        core.grad(kept.sum(), x)
        del h
        assert probe() is None
    finally:
        gc.enable()


def test_two_hundred_penalty_steps_do_not_grow_memory(on_cpu):
    # a training loop of create_graph steps: each step's two graphs must be freed entirely
    # (reference counting, gc off), or memory grows with every step. On the CPU: tracemalloc
    # sees host allocations, where cupy's own caches (kernels, pool bookkeeping) would blur it.
    critic = _layer_critic(core.nn.LayerNorm([4, 4, 4]))
    opt = core.optimizer.Adam(learning_rate=1e-3, parameters=critic.parameters())
    x = core.to_tensor(rng.standard_normal((2, 1, 8, 8)), dtype="float32")

    def step():
        mixed = x * 1.0
        mixed.stop_gradient = False
        d = critic(mixed)
        (grad,) = core.grad(d, mixed, core.ones_like(d), create_graph=True)
        loss = d.mean() + 10 * ((grad.reshape([2, -1]).norm(2, axis=1) - 1) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()

    for _ in range(20):  # warm-up: optimizer state, caches
        step()
    gc.collect()  # a full collection also empties the interpreter's free lists
    gc.disable()
    try:
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(200):
            step()
        assert gc.collect() == 0  # no step left a reference cycle behind
        grown = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
        assert grown < 20_000, grown  # what 200 graphs would keep is megabytes
    finally:
        gc.enable()


@pytest.mark.parametrize("create_graph,expected", [(False, 2.0), (True, 4.0)])
def test_paddle_grad_documentation_example(create_graph, expected):
    """paddle.grad's own example: z = x*x + dx/dx; with create_graph the derivative of dx
    (2) reaches x as well."""
    x = core.ones([1], dtype="float32")
    x.stop_gradient = False
    y = x * x
    (dx,) = core.grad([y], [x], create_graph=create_graph, retain_graph=True)
    z = y + dx
    z.backward()
    np.testing.assert_allclose(x.gradient(), [expected])


def test_a_bias_seen_only_through_a_piecewise_slope_is_unused_as_in_paddle():
    """leaky_relu's derivative is piecewise constant: the recorded backward holds its slope as
    a constant, so a bias before it is not in the gradient's graph. Paddle's
    leaky_relu_double_grad gives no input gradient either (allow_unused semantics: None, or
    an error without it); torch's zeros carry the same values."""
    x = core.to_tensor(rng.standard_normal((5, 3)), stop_gradient=False)
    w = core.to_tensor(rng.standard_normal((3, 4)), stop_gradient=False)
    b = core.to_tensor(rng.standard_normal(4), stop_gradient=False)
    (gx,) = core.grad(F.leaky_relu(core.matmul(x, w) + b, 0.1).sum(), x, create_graph=True)
    with pytest.raises(RuntimeError, match=r"input 1 \(shape \[4\]\).*allow_unused=True"):
        core.grad((gx * gx).sum(), [w, b], retain_graph=True)
    gw, gb = core.grad((gx * gx).sum(), [w, b], allow_unused=True)
    assert gb is None
    torch = pytest.importorskip("torch")
    tx, tw, tb = (torch.tensor(t.numpy(), requires_grad=True) for t in (x, w, b))
    (tgx,) = torch.autograd.grad(torch.nn.functional.leaky_relu(tx @ tw + tb, 0.1).sum(), tx,
                                 create_graph=True)
    twg, tbg = torch.autograd.grad((tgx * tgx).sum(), [tw, tb])
    np.testing.assert_allclose(gw.numpy(), twg.numpy(), rtol=1e-12)
    assert not tbg.any()  # the zeros torch gives where core (and Paddle) give None
