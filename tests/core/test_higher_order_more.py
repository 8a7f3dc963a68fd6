"""Higher-order gradients of the ops that gained a tensor-level backward after the first set
(tests/core/test_higher_order.py): the shrinking and random activations, the alpha dropouts,
the margin, ranking and likelihood losses, the distances, the 3-D convolutions and pools.
Each is checked against float64 finite differences of its first derivative and, where torch
has the same op, against torch's double backward."""
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

rng = np.random.default_rng(17)




def _away_from(values, kinks, gap=0.05):
    """``values`` moved off the kinks of a piecewise function, so that finite differences do
    not straddle one."""
    values = values.copy()
    for kink in kinks:
        near = np.abs(values - kink) < gap
        values[near] += 2 * gap
    return values


X = rng.standard_normal((3, 4))
Y = rng.standard_normal((3, 4))
Z = rng.standard_normal((3, 4))
WIDE = _away_from(X * 2, [-1.0, -0.5, 0.0, 0.5, 1.0])
SIGNS = np.where(rng.standard_normal((3, 4)) > 0, 1.0, -1.0)
POS = rng.uniform(0.5, 2.0, (3, 4))
COUNTS = rng.uniform(0.0, 3.0, (3, 4))
BITS = (rng.uniform(size=(3, 4)) > 0.5).astype("float64")
PROBS = rng.uniform(0.1, 0.9, (3, 4))
ROW_LABELS = np.array([1, 0, 3])
ROW_SIGNS = np.array([1, -1, -1])
MULTI = np.array([[1, 0, -1, 0], [2, -1, 0, 0], [3, 1, 2, -1]])
SPATIAL_LABELS = np.array([[0, 3], [-100, 1], [2, 2]])
IMAGE = rng.standard_normal((2, 2, 3, 4))
GRID = rng.uniform(-1.1, 1.1, (2, 3, 2, 2))  # a few points outside
VOLUMES = rng.standard_normal((1, 2, 4, 4, 4))
VOLUME_KERNEL = rng.standard_normal((3, 2, 2, 2, 2))


def _seeded(fn, seed=5):
    def run(*xs):
        core.seed(seed)
        return fn(*xs)
    return run


def _affine_of(fn, shape):
    """The constants (scale, shift) of a seeded op that is affine in its input: fn(x) =
    scale * x + shift, read back from two calls."""
    zero = fn(core.zeros(shape, dtype="float64")).numpy()
    return fn(core.ones(shape, dtype="float64")).numpy() - zero, zero


def _gumbel(x):
    return F.gumbel_softmax(x, temperature=0.7)


def _gumbel_torch_noise():
    """The draw of the seeded gumbel_softmax, up to a per-row shift (softmax ignores it)."""
    soft = _seeded(_gumbel)(core.zeros([3, 4], dtype="float64")).numpy()
    return 0.7 * np.log(soft)


# name -> (core function, torch function (a name in _torch_fn, a lambda or None), inputs)
CASES = {
    "log_sigmoid": (F.log_sigmoid, "log_sigmoid", (X * 3,)),
    "softshrink": (lambda x: F.softshrink(x, 0.5) * x, "softshrink", (WIDE,)),
    "hardshrink": (lambda x: F.hardshrink(x, 0.5) * x, "hardshrink", (WIDE,)),
    "thresholded_relu": (lambda x: F.thresholded_relu(x, 1.0) * x, "thresholded_relu", (WIDE,)),
    "rrelu_eval": (lambda x: F.rrelu(x, 0.1, 0.3, training=False), "rrelu_eval", (WIDE,)),
    "rrelu_train": (_seeded(lambda x: F.rrelu(x, 0.1, 0.3)), "rrelu_train", (WIDE,)),
    "glu": (lambda x: F.glu(x, axis=1), "glu", (X,)),
    "gumbel_softmax": (_seeded(_gumbel), "gumbel_softmax", (X,)),
    "alpha_dropout": (_seeded(lambda x: F.alpha_dropout(x, 0.4)), "alpha_dropout", (X,)),
    "feature_alpha_dropout": (_seeded(lambda x: F.feature_alpha_dropout(x, 0.5)),
                              "feature_alpha_dropout", (rng.standard_normal((2, 3, 4)),)),
    # losses: the critics' and classifiers' hinges, likelihoods and distances
    "soft_margin_loss": (F.soft_margin_loss, "soft_margin_loss", (X, SIGNS)),
    "soft_margin_loss_int": (lambda x: F.soft_margin_loss(x, core.to_tensor(
        SIGNS.astype("int64")), "sum"), "soft_margin_loss_int", (X,)),
    "hinge_embedding_loss": (lambda x: F.hinge_embedding_loss(
        x, core.to_tensor(SIGNS), 0.7, "none") * x, "hinge_embedding_loss",
        (_away_from(X, [0.7]),)),
    "margin_ranking_loss": (lambda x, y, z: F.margin_ranking_loss(x, y, z, 0.3),
                            "margin_ranking_loss", (X, Y, SIGNS)),
    "margin_ranking_loss_none": (lambda x, y: F.margin_ranking_loss(
        x, y, core.to_tensor(SIGNS.astype("int64")), 0.3, "none") * x,
        "margin_ranking_loss_none", (X, Y)),
    "poisson_nll_loss": (lambda x, y: F.poisson_nll_loss(x, y, full=True), "poisson_nll_loss",
                         (X, COUNTS)),
    "poisson_nll_loss_rate": (lambda x, y: F.poisson_nll_loss(
        x, y, log_input=False, reduction="sum"), "poisson_nll_loss_rate", (POS, COUNTS)),
    "gaussian_nll_loss": (lambda x, y, v: F.gaussian_nll_loss(x, y, v, full=True),
                          "gaussian_nll_loss", (X, Y, POS)),
    "gaussian_nll_loss_rows": (lambda x, y, v: F.gaussian_nll_loss(x, y, v, reduction="none"),
                               "gaussian_nll_loss_rows", (X, Y, POS[:, 0])),
    "sigmoid_focal_loss": (lambda x, y: F.sigmoid_focal_loss(x, y), "sigmoid_focal_loss",
                           (X, BITS)),
    "sigmoid_focal_loss_normalized": (lambda x, y, n: F.sigmoid_focal_loss(
        x, y, n, alpha=0.3, gamma=1.5, reduction="mean"), "sigmoid_focal_loss_normalized",
        (X, PROBS, np.array([2.5]))),
    "square_error_cost": (F.square_error_cost, "square_error_cost", (X, Y[0])),
    "log_loss": (F.log_loss, "log_loss", (PROBS, BITS)),
    "dice_loss": (lambda x: F.dice_loss(F.softmax(x), core.to_tensor(ROW_LABELS[:, None])),
                  "dice_loss", (X,)),
    "multi_label_soft_margin_loss": (lambda x, y: F.multi_label_soft_margin_loss(
        x, y, core.to_tensor(POS[0])), "multi_label_soft_margin_loss", (X, BITS)),
    "multi_margin_loss": (lambda x: F.multi_margin_loss(
        x, core.to_tensor(ROW_LABELS), margin=0.8, reduction="none") * x.sum(axis=1),
        "multi_margin_loss", (X,)),
    "multi_label_margin_loss": (lambda x: F.multi_label_margin_loss(
        x, core.to_tensor(MULTI), "none") * x.sum(axis=1), "multi_label_margin_loss", (X,)),
    "cosine_embedding_loss": (lambda x, y: F.cosine_embedding_loss(
        x, y, core.to_tensor(ROW_SIGNS), margin=-0.5), "cosine_embedding_loss", (X, Y)),
    "triplet_margin_loss": (lambda x, y, z: F.triplet_margin_loss(x, y, z, margin=2.0),
                            "triplet_margin_loss", (X, Y, Z)),
    "triplet_margin_loss_swap_p3": (lambda x, y, z: F.triplet_margin_loss(
        x, y, z, margin=2.0, p=3.0, swap=True, reduction="none"),
        "triplet_margin_loss_swap_p3", (X, Y, Z * 0.3)),
    "triplet_margin_with_distance_loss": (lambda x, y, z: F.triplet_margin_with_distance_loss(
        x, y, z, margin=2.0), "triplet_margin_loss", (X, Y, Z)),
    "pairwise_distance": (F.pairwise_distance, "pairwise_distance", (X, Y)),
    "pairwise_distance_p3": (lambda x, y: F.pairwise_distance(x, y, 3.0, keepdim=True),
                             "pairwise_distance_p3", (X, Y)),
    "pairwise_distance_p_half": (lambda x, y: F.pairwise_distance(x, y, 0.5), None, (X, Y)),
    "pairwise_distance_p1_inf": (lambda x, y: F.pairwise_distance(x, y, 1.0) * F.pairwise_distance(
        x, y, float("inf")), "pairwise_distance_p1_inf", (X, Y)),
    # hard-label cross_entropy with label smoothing, or on probabilities (use_softmax=False)
    "cross_entropy_smoothed": (lambda x: F.cross_entropy(
        x, core.to_tensor(ROW_LABELS), core.to_tensor(POS[0]), label_smoothing=0.2),
        "cross_entropy_smoothed", (X,)),
    "cross_entropy_smoothed_axis_ignored": (lambda x: F.cross_entropy(
        x, core.to_tensor(SPATIAL_LABELS), reduction="none", axis=1, label_smoothing=0.1),
        "cross_entropy_smoothed_axis_ignored", (rng.standard_normal((3, 4, 2)),)),
    "cross_entropy_probs": (lambda x: F.cross_entropy(
        x, core.to_tensor(ROW_LABELS), use_softmax=False), "cross_entropy_probs", (PROBS,)),
    "cross_entropy_probs_ignored": (lambda x: F.cross_entropy(
        x, core.to_tensor(np.array([1, -100, 3])), reduction="sum", use_softmax=False),
        "cross_entropy_probs_ignored", (PROBS,)),
    "cross_entropy_probs_smoothed": (lambda x: F.cross_entropy(
        x, core.to_tensor(ROW_LABELS), use_softmax=False, label_smoothing=0.1),
        "cross_entropy_probs_smoothed", (PROBS,)),
    "local_response_norm": (lambda x: F.local_response_norm(x, 3, alpha=0.5, beta=0.75, k=1.5),
                            "local_response_norm", (rng.standard_normal((2, 5, 2, 2)),)),
    "local_response_norm_nhwc": (lambda x: F.local_response_norm(
        x, 4, alpha=0.3, data_format="NHWC"), "local_response_norm_nhwc",
        (rng.standard_normal((2, 2, 2, 5)),)),
    # normalisation and spread: F.normalize, var, std and the other vector norms
    "normalize": (F.normalize, "normalize", (X,)),
    "normalize_p3_axis0": (lambda x: F.normalize(x, 3, axis=0), "normalize_p3_axis0", (X,)),
    "normalize_p1_tiny_row": (lambda x: F.normalize(x, 1, epsilon=0.5), "normalize_p1_tiny_row",
                              (np.concatenate([X[:2], X[2:] * 0.05]),)),
    "var": (lambda x: core.var(x, axis=1) * core.var(x), "var", (X,)),
    "std": (lambda x: core.std(x, axis=0, unbiased=False, keepdim=True) * x, "std", (X,)),
    "std_single": (lambda x: core.std(x, axis=0) * x, "std_single", (X[:1],)),
    "vector_norm_p1": (lambda x: core.linalg.vector_norm(x, 1, axis=1) * x.sum(axis=1),
                       "vector_norm_p1", (X,)),
    "vector_norm_p3": (lambda x: core.linalg.vector_norm(x, 3, axis=[0, 1], keepdim=True),
                       "vector_norm_p3", (X,)),
    "norm_p_half": (lambda x: core.norm(x, p=0.5, axis=0), "norm_p_half", (X,)),
    # a spatial transformer: the grid from affine maps, then the sampler (input and grid)
    "affine_grid": (lambda t: F.affine_grid(t, [2, 1, 3, 4]), "affine_grid",
                    (rng.standard_normal((2, 2, 3)),)),
    "affine_grid_3d": (lambda t: F.affine_grid(t, [1, 1, 2, 3, 2], align_corners=False),
                       "affine_grid_3d", (rng.standard_normal((1, 3, 4)),)),
    "grid_sample": (F.grid_sample, "grid_sample", (IMAGE, GRID)),
    "grid_sample_border": (lambda x, g: F.grid_sample(x, g, padding_mode="border",
                                                      align_corners=False),
                           "grid_sample_border", (IMAGE, GRID * 1.3)),
    "grid_sample_reflection": (lambda x, g: F.grid_sample(x, g, padding_mode="reflection"),
                               "grid_sample_reflection", (IMAGE, GRID * 1.4)),
    "grid_sample_reflection_edges": (lambda x, g: F.grid_sample(
        x, g, padding_mode="reflection", align_corners=False), "grid_sample_reflection_edges",
        (IMAGE, GRID * 1.4)),
    "grid_sample_nearest": (lambda x, g: F.grid_sample(x, g, mode="nearest") * x.mean(),
                            "grid_sample_nearest", (IMAGE, GRID)),
    # linear ops whose gradients are ops of their own, and the bilinear layer
    "label_smooth": (lambda y, p: F.label_smooth(y, p, epsilon=0.2) * y, "label_smooth",
                     (PROBS, POS[:1])),
    "unfold": (lambda x: F.unfold(x, [2, 3], strides=[1, 2], paddings=1, dilations=[1, 1]),
               "unfold", (IMAGE,)),
    "fold": (lambda x: F.fold(x, [3, 4], 2, paddings=[1, 0]), "fold",
             (rng.standard_normal((1, 8, 12)),)),
    "diagonal_trace": (lambda x: core.diagonal(x, 1, 0, 2) * core.trace(x[0]),
                       "diagonal_trace", (rng.standard_normal((3, 2, 3)),)),
    "bilinear": (F.bilinear, "bilinear", (X[:, :3], Y, rng.standard_normal((2, 3, 4)),
                                          rng.standard_normal((1, 2)))),
    "npair_loss": (lambda a, p: F.npair_loss(a, p, core.to_tensor(np.array([1, 0, 1])), 0.3),
                   "npair_loss", (X, Y)),
    "logcumsumexp": (lambda x: core.logcumsumexp(x, axis=0), "logcumsumexp", (X,)),
    "logcumsumexp_flat": (core.logcumsumexp, "logcumsumexp_flat", (X * 3,)),
    "kron": (core.kron, "kron", (X[:2, :2], Y[:2])),
    "kron_ranks": (core.kron, "kron", (X[0], rng.standard_normal((2, 2, 3)))),
    "cdist": (core.cdist, "cdist", (X, Y[:2])),
    "cdist_mm_batched": (lambda x, y: core.cdist(x, y, compute_mode="use_mm_for_euclid_dist"),
                         "cdist", (rng.standard_normal((2, 3, 4)), Y[:2])),
    # the 3-D pools (their gradients are ops of their own: third derivatives too)
    "max_pool3d": (lambda x: F.max_pool3d(x, 3, 2, 1), "max_pool3d", (VOLUMES,)),
    "max_pool3d_ndhwc": (lambda x: F.max_pool3d(x, 2, 1, ceil_mode=True, data_format="NDHWC"),
                         "max_pool3d_ndhwc", (VOLUMES,)),
    "avg_pool3d": (lambda x: F.avg_pool3d(x, 3, 2, 1), "avg_pool3d", (VOLUMES,)),
    "avg_pool3d_ndhwc": (lambda x: F.avg_pool3d(x, 2, 1, exclusive=False, data_format="NDHWC"),
                         "avg_pool3d_ndhwc", (VOLUMES,)),
    "adaptive_avg_pool3d": (lambda x: F.adaptive_avg_pool3d(x, [2, 3, 2]),
                            "adaptive_avg_pool3d", (VOLUMES,)),
    "adaptive_avg_pool3d_ndhwc": (lambda x: F.adaptive_avg_pool3d(x, 3, data_format="NDHWC"),
                                  "adaptive_avg_pool3d_ndhwc", (VOLUMES,)),
    "adaptive_max_pool3d": (lambda x: F.adaptive_max_pool3d(x, 3), "adaptive_max_pool3d",
                            (VOLUMES,)),
    # the 3-D convolutions: input, weight and bias
    "conv3d": (lambda x, w, b: F.conv3d(x, w, b, stride=2, padding=1), "conv3d",
               (VOLUMES, VOLUME_KERNEL, rng.standard_normal(3))),
    "conv3d_groups_ndhwc": (lambda x, w: F.conv3d(x, w, padding=[1, 0, 1], groups=2,
                                                 data_format="NDHWC"), "conv3d_groups_ndhwc",
                            (rng.standard_normal((1, 3, 3, 3, 2)),
                             rng.standard_normal((2, 1, 2, 2, 2)))),
    "conv3d_transpose": (lambda x, w, b: F.conv3d_transpose(x, w, b, stride=2, padding=1,
                                                            output_padding=1),
                         "conv3d_transpose", (rng.standard_normal((1, 2, 2, 3, 2)),
                                              rng.standard_normal((2, 3, 2, 2, 3)),
                                              rng.standard_normal(3))),
    "conv3d_transpose_groups": (lambda x, w: F.conv3d_transpose(x, w, groups=2, dilation=2),
                                "conv3d_transpose_groups",
                                (rng.standard_normal((1, 4, 2, 2, 2)),
                                 rng.standard_normal((4, 1, 2, 2, 2)))),
}


def _ndhwc(fn):
    return lambda x: fn(x.permute(0, 4, 1, 2, 3)).permute(0, 2, 3, 4, 1)


def _torch_fn(spec):
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional
    if not isinstance(spec, str):
        return spec

    def affine(fn, shape):
        scale, shift = _affine_of(_seeded(fn), shape)
        return lambda x: x * torch.tensor(scale) + torch.tensor(shift)

    def focal(x, y, alpha=0.25, gamma=2.0):
        p = x.sigmoid()
        p_t = p * y + (1 - p) * (1 - y)
        alpha_t = alpha * y + (1 - alpha) * (1 - y)
        ce = tf.binary_cross_entropy_with_logits(x, y, reduction="none")
        return alpha_t * (1 - p_t) ** gamma * ce

    def dice(x):
        p = x.softmax(-1)
        hot = tf.one_hot(torch.tensor(ROW_LABELS), 4).double()
        return (1 - 2 * (p * hot).sum(1) / (p.sum(1) + hot.sum(1) + 1e-5)).mean()

    def multi_margin(x):
        picked = x[torch.arange(3), torch.tensor(ROW_LABELS)][:, None]
        others = 1 - tf.one_hot(torch.tensor(ROW_LABELS), 4).double()
        return ((0.8 - picked + x).clamp(min=0) * others).sum(1) / 4

    def multi_label_margin(x):
        rows = []
        for i, labels in enumerate(MULTI):
            targets = list(labels[:list(labels).index(-1)] if -1 in labels else labels)
            others = [k for k in range(4) if k not in targets]
            rows.append(sum((1 - x[i, j] + x[i, k]).clamp(min=0) for j in targets for k in others)
                        / 4)
        return torch.stack(rows)

    def smoothed_probs(x):
        target = 0.9 * tf.one_hot(torch.tensor(ROW_LABELS), 4).double() + 0.1 / 4
        return -(target * x.log()).sum(1).mean()

    def smoothed_weighted(x):  # Paddle 3.3.1's rule: rows scaled by the target's class weight
        target = 0.8 * tf.one_hot(torch.tensor(ROW_LABELS), 4).double() + 0.2 / 4
        row_weight = target @ torch.tensor(POS[0])
        return (-(target * tf.log_softmax(x, 1)).sum(1) * row_weight).sum() / row_weight.sum()

    def sampled(mode="bilinear", padding_mode="zeros", align_corners=True):
        return lambda x, g: tf.grid_sample(x, g, mode, padding_mode, align_corners)

    def npair(a, p):
        same = torch.tensor([[1.0, 0, 1], [0, 1, 0], [1, 0, 1]], dtype=torch.float64)
        targets = same / same.sum(1, keepdim=True)
        reg = 0.25 * 0.3 * ((a * a).sum() + (p * p).sum()) / 3
        return reg - (targets * (a @ p.T).log_softmax(1)).sum() / 3

    named = {
        "npair_loss": npair,
        "kron": torch.kron,
        "logcumsumexp": lambda x: x.logcumsumexp(0),
        "logcumsumexp_flat": lambda x: x.flatten().logcumsumexp(0),
        # torch.cdist has no double backward: its formula
        "cdist": lambda x, y: ((x.unsqueeze(-2) - y.unsqueeze(-3)) ** 2).sum(-1).sqrt(),
        "label_smooth": lambda y, p: (0.8 * y + 0.2 * p) * y,
        "unfold": lambda x: tf.unfold(x, [2, 3], stride=[1, 2], padding=1),
        "fold": lambda x: tf.fold(x, [3, 4], 2, padding=[1, 0]),
        "diagonal_trace": lambda x: torch.diagonal(x, 1, 0, 2) * torch.trace(x[0]),
        "bilinear": lambda a, b, w, c: tf.bilinear(a, b, w, c[0]),
        "affine_grid": lambda t: tf.affine_grid(t, [2, 1, 3, 4], align_corners=True),
        "affine_grid_3d": lambda t: tf.affine_grid(t, [1, 1, 2, 3, 2], align_corners=False),
        "grid_sample": sampled(),
        "grid_sample_border": sampled(padding_mode="border", align_corners=False),
        "grid_sample_reflection": sampled(padding_mode="reflection"),
        "grid_sample_reflection_edges": sampled(padding_mode="reflection", align_corners=False),
        "grid_sample_nearest": lambda x, g: sampled("nearest")(x, g) * x.mean(),
        "cross_entropy_smoothed": smoothed_weighted,
        "cross_entropy_smoothed_axis_ignored": lambda x: tf.cross_entropy(
            x, torch.tensor(SPATIAL_LABELS), reduction="none", label_smoothing=0.1),
        "cross_entropy_probs": lambda x: tf.nll_loss(x.log(), torch.tensor(ROW_LABELS)),
        "cross_entropy_probs_ignored": lambda x: tf.nll_loss(
            x.log(), torch.tensor([1, -100, 3]), reduction="sum"),
        "cross_entropy_probs_smoothed": smoothed_probs,
        "normalize": tf.normalize,
        "normalize_p3_axis0": lambda x: tf.normalize(x, 3.0, 0),
        "normalize_p1_tiny_row": lambda x: tf.normalize(x, 1.0, eps=0.5),
        "var": lambda x: x.var(1) * x.var(),
        "std": lambda x: x.std(0, correction=0, keepdim=True) * x,
        "std_single": lambda x: torch.zeros(4, dtype=torch.float64) * x,  # torch: nan
        "vector_norm_p1": lambda x: torch.linalg.vector_norm(x, 1, 1) * x.sum(1),
        "vector_norm_p3": lambda x: torch.linalg.vector_norm(x, 3, [0, 1], keepdim=True),
        "norm_p_half": lambda x: torch.linalg.vector_norm(x, 0.5, 0),
        "local_response_norm": lambda x: tf.local_response_norm(x, 3, 0.5, 0.75, 1.5),
        "local_response_norm_nhwc": lambda x: tf.local_response_norm(
            x.permute(0, 3, 1, 2), 4, 0.3).permute(0, 2, 3, 1),
        "max_pool3d": lambda x: tf.max_pool3d(x, 3, 2, 1),
        "max_pool3d_ndhwc": _ndhwc(lambda x: tf.max_pool3d(x, 2, 1, ceil_mode=True)),
        "avg_pool3d": lambda x: tf.avg_pool3d(x, 3, 2, 1, count_include_pad=False),
        "avg_pool3d_ndhwc": _ndhwc(lambda x: tf.avg_pool3d(x, 2, 1)),
        "adaptive_avg_pool3d": lambda x: tf.adaptive_avg_pool3d(x, [2, 3, 2]),
        "adaptive_avg_pool3d_ndhwc": _ndhwc(lambda x: tf.adaptive_avg_pool3d(x, 3)),
        "adaptive_max_pool3d": lambda x: tf.adaptive_max_pool3d(x, 3),
        "conv3d": lambda x, w, b: tf.conv3d(x, w, b, stride=2, padding=1),
        "conv3d_groups_ndhwc": lambda x, w: tf.conv3d(
            x.permute(0, 4, 1, 2, 3), w, padding=[1, 0, 1], groups=2).permute(0, 2, 3, 4, 1),
        "conv3d_transpose": lambda x, w, b: tf.conv_transpose3d(x, w, b, stride=2, padding=1,
                                                                output_padding=1),
        "conv3d_transpose_groups": lambda x, w: tf.conv_transpose3d(x, w, groups=2,
                                                                    dilation=2),
        "log_sigmoid": tf.logsigmoid,
        "softshrink": lambda x: tf.softshrink(x, 0.5) * x,
        "hardshrink": lambda x: tf.hardshrink(x, 0.5) * x,
        "thresholded_relu": lambda x: tf.threshold(x, 1.0, 0.0) * x,
        "rrelu_eval": lambda x: tf.rrelu(x, 0.1, 0.3, training=False),
        "rrelu_train": lambda x: x * torch.tensor(
            _seeded(lambda t: F.rrelu(t, 0.1, 0.3))(core.to_tensor(WIDE)).numpy() / WIDE),
        "glu": lambda x: tf.glu(x, 1),
        "gumbel_softmax": lambda x: ((x + torch.tensor(_gumbel_torch_noise())) / 0.7).softmax(-1),
        "alpha_dropout": affine(lambda x: F.alpha_dropout(x, 0.4), [3, 4]),
        "feature_alpha_dropout": affine(lambda x: F.feature_alpha_dropout(x, 0.5), [2, 3, 4]),
        "soft_margin_loss": lambda x, y: tf.softplus(-y * x).mean(),  # torch: no label grad
        "soft_margin_loss_int": lambda x: tf.soft_margin_loss(x, torch.tensor(SIGNS),
                                                              reduction="sum"),
        "hinge_embedding_loss": lambda x: tf.hinge_embedding_loss(
            x, torch.tensor(SIGNS), 0.7, reduction="none") * x,
        "margin_ranking_loss": lambda x, y, z: tf.margin_ranking_loss(x, y, z, 0.3),
        "margin_ranking_loss_none": lambda x, y: tf.margin_ranking_loss(
            x, y, torch.tensor(SIGNS), 0.3, reduction="none") * x,
        "poisson_nll_loss": lambda x, y: tf.poisson_nll_loss(x, y, full=True),
        "poisson_nll_loss_rate": lambda x, y: tf.poisson_nll_loss(
            x, y, log_input=False, reduction="sum", eps=1e-8),
        "gaussian_nll_loss": lambda x, y, v: tf.gaussian_nll_loss(x, y, v, full=True),
        "gaussian_nll_loss_rows": lambda x, y, v: tf.gaussian_nll_loss(
            x, y, v[:, None], reduction="none"),
        "sigmoid_focal_loss": lambda x, y: focal(x, y).sum(),
        "sigmoid_focal_loss_normalized": lambda x, y, n: (focal(x, y, 0.3, 1.5) / n).mean(),
        "square_error_cost": lambda x, y: (x - y) ** 2,
        "log_loss": lambda x, y: -y * (x + 1e-4).log() - (1 - y) * (1 - x + 1e-4).log(),
        "dice_loss": dice,
        "multi_label_soft_margin_loss": lambda x, y: tf.multilabel_soft_margin_loss(
            x, y, torch.tensor(POS[0])),
        # torch's own kernels of these two have no double backward: their formulas
        "multi_margin_loss": lambda x: multi_margin(x) * x.sum(1),
        "multi_label_margin_loss": lambda x: multi_label_margin(x) * x.sum(1),
        "cosine_embedding_loss": lambda x, y: tf.cosine_embedding_loss(
            x, y, torch.tensor(ROW_SIGNS), margin=-0.5),
        "triplet_margin_loss": lambda x, y, z: tf.triplet_margin_loss(x, y, z, margin=2.0),
        "triplet_margin_loss_swap_p3": lambda x, y, z: tf.triplet_margin_loss(
            x, y, z, margin=2.0, p=3.0, swap=True, reduction="none"),
        "pairwise_distance": tf.pairwise_distance,
        "pairwise_distance_p3": lambda x, y: tf.pairwise_distance(x, y, 3.0, keepdim=True),
        "pairwise_distance_p1_inf": lambda x, y: tf.pairwise_distance(x, y, 1.0)
        * tf.pairwise_distance(x, y, float("inf")),
    }
    return named[spec]


@pytest.mark.parametrize("name", sorted(CASES))
def test_second_derivatives_match_finite_differences(name):
    fn, _, arrays = CASES[name]
    check_second_grad(cube(fn), *arrays, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(n for n, case in CASES.items() if case[1] is not None))
def test_second_derivatives_match_torch(name):
    torch = pytest.importorskip("torch")
    fn, spec, arrays = CASES[name]
    try:
        assert_second_derivatives_match_torch(fn, _torch_fn(spec), arrays, torch)
    except RuntimeError as exc:  # torch before 2.13 has no double backward of grid_sample
        if "is not implemented" not in str(exc):
            raise
        pytest.skip(f"torch {torch.__version__}: {exc} (finite differences check ours)")


def test_the_new_ops_are_listed_as_supported():
    for op in ("log_sigmoid", "softshrink", "hardshrink", "thresholded_relu", "rrelu", "glu",
               "gumbel_softmax", "alpha_dropout", "feature_alpha_dropout", "soft_margin_loss",
               "hinge_embedding_loss", "margin_ranking_loss", "poisson_nll_loss",
               "gaussian_nll_loss", "sigmoid_focal_loss", "square_error_cost", "log_loss",
               "dice_loss", "multi_label_soft_margin_loss", "multi_label_margin_loss",
               "cosine_embedding_loss", "triplet_margin_loss", "pairwise_distance", "conv3d",
               "conv3d_input_grad", "conv3d_weight_grad", "conv3d_transpose", "max_pool3d",
               "max_pool3d_grad", "avg_pool3d", "avg_pool3d_grad", "adaptive_avg_pool3d",
               "adaptive_max_pool3d", "adaptive_avg_pool3d_grad", "adaptive_max_pool3d_grad",
               "local_response_norm", "normalize", "var", "std", "vector_norm", "grid_sample",
               "grid_sample_grad", "affine_grid", "affine_grid_grad", "label_smooth", "unfold",
               "unfold_grad", "fold", "fold_grad", "diagonal", "diagonal_grad", "bilinear",
               "kron", "cdist", "npair_loss", "logcumsumexp"):
        assert any(entry.split(" ")[0] == op for entry in SUPPORTED_OPS), op


@pytest.mark.parametrize("transpose", [False, True])
def test_conv3d_third_order_matches_torch(transpose):
    """The input and weight gradients of conv3d (and conv3d_transpose) are recorded ops whose
    own gradients are recorded too: the weight gradient's input gradient's weight gradient."""
    torch = pytest.importorskip("torch")
    a = rng.standard_normal((1, 2, 3, 3, 3))
    k = rng.standard_normal((2, 3, 2, 2, 2) if transpose else (3, 2, 2, 2, 2))
    x, w = leaf(a), leaf(k)
    xt, wt = torch.tensor(a, requires_grad=True), torch.tensor(k, requires_grad=True)
    if transpose:
        out = F.conv3d_transpose(x, w, stride=2, padding=1)
        tout = torch.nn.functional.conv_transpose3d(xt, wt, stride=2, padding=1)
    else:
        out = F.conv3d(x, w, padding=1)
        tout = torch.nn.functional.conv3d(xt, wt, padding=1)
    (gw,) = core.grad((out * out).sum(), w, create_graph=True)
    (tgw,) = torch.autograd.grad((tout * tout).sum(), wt, create_graph=True)
    (gx,) = core.grad((gw * gw).sum(), x, create_graph=True)
    (tgx,) = torch.autograd.grad((tgw * tgw).sum(), xt, create_graph=True)
    (gx * gx).sum().backward()
    (tgx * tgx).sum().backward()
    np.testing.assert_allclose(gx.numpy(), tgx.detach().numpy(), rtol=1e-10, atol=1e-9)
    np.testing.assert_allclose(w.gradient(), wt.grad.numpy(), rtol=1e-9, atol=1e-8)


@pytest.mark.parametrize("name", ["max_pool3d", "avg_pool3d", "adaptive_max_pool3d", "unfold",
                                  "fold", "affine_grid", "diagonal_trace"])
def test_third_order_through_recorded_gradient_ops_matches_torch(name):
    torch = pytest.importorskip("torch")
    fn, spec, (a,) = CASES[name]
    tfn = _torch_fn(spec)
    assert_third_order_matches_torch(fn, tfn, a, torch)
