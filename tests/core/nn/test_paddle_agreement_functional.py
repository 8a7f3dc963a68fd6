"""core.nn.functional against real Paddle 3.3.1's numbers, function by function.

The fixtures (tests/core/data/paddle331/nn/functional_agreement.npz) come from
tests/core/data/paddle331/make_functional_fixtures.py run with a Python that has Paddle; these
tests only read them. Each case names a ``paddle.nn.functional`` function, its arguments (arrays
stored beside it) and Paddle's outputs and input gradients of ``sum(out * w)``; the test calls
the same function of core.nn.functional with the same arguments and compares values, dtypes,
shapes and gradients. Where Paddle raised, core must raise too (a ValueError, TypeError or
IndexError that names what was wrong). Every name of Paddle's ``nn.functional.__all__`` that
core has is called, but ``gumbel_softmax`` (random) and ``margin_cross_entropy`` (no CPU kernel
in Paddle) only with misuse. Where core differs on purpose (docs/paddle.md, "paddle.nn.functional
against Paddle 3.3.1") the sets below say how each case is checked instead.
"""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

import core
from core.nn import functional as F
from tests.gradcheck import check_grad

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "data", "paddle331", "nn", "functional_agreement.npz")
TOL = {"rtol": 2e-5, "atol": 2e-6}


def _load() -> dict:
    """The fixture's arrays by name, unpacked from one flat array per dtype (the generator's
    ``pack``): an index entry is a string, or [dtype, offset, shape]."""
    with np.load(FIXTURES) as data:
        flat = {name: data[name] for name in data.files if name != "index"}
        index = json.loads(str(data["index"]))
    out = {}
    for key, entry in index.items():
        if isinstance(entry, str):
            out[key] = entry
            continue
        dtype, offset, shape = entry
        out[key] = flat[dtype][offset:offset + int(np.prod(shape))].reshape(shape)
    return out


DATA = _load()
CASES = sorted(k[:-len("/spec")] for k in DATA if k.endswith("/spec"))
ERRORS = [c for c in CASES if f"{c}/error" in DATA]
VALUES = [c for c in CASES if c not in ERRORS]
# where Paddle's gradient is wrong (float64 finite differences agree with core: see
# test_functional_gradients_match_finite_differences and docs/paddle.md), only values compare
PADDLE_GRADIENT_WRONG = {"group_norm_nhwc", "group_norm_3d_input"}
# sums of cancelling float32 terms: differences of a few ulps of the inputs
LOOSE = {"cosine_similarity_axis0": {"rtol": 1e-4, "atol": 1e-5}}
# core divides by divisor_override on purpose (docs/paddle.md): checked by its own test below
DELIBERATE = {"avg_pool2d_divisor", "avg_pool2d_divisor_ceil", "avg_pool3d_divisor"}
# rnnt_loss's gradient is taken through a log-softmax of the input, as warp-transducer's GPU
# kernel and torchaudio; Paddle's CPU kernel reads the input as log-probabilities
# (core/nn/functional/rnnt.py, docs/paddle.md): the losses agree on log-probability inputs
DIFFERENT_GRADIENT_BY_DESIGN = {"rnnt_loss", "rnnt_loss_sum_fastemit"}


def _spec(case: str) -> dict:
    return json.loads(str(DATA[f"{case}/spec"]))


def _decode(value, tensors):
    if isinstance(value, dict):
        return tensors[value["$"]]
    if isinstance(value, list):
        return [_decode(v, tensors) for v in value]
    return value


def _call(case: str, spec: dict, arrays: list):
    fn = getattr(F, spec["fn"])
    return fn(*_decode(spec["args"], arrays),
              **{k: _decode(v, arrays) for k, v in spec["kwargs"].items()})


def _inputs(case: str, spec: dict) -> list:
    return [core.to_tensor(DATA[f"{case}/in{i}"], stop_gradient=not grad)
            for i, grad in enumerate(spec["grad"])]


def _outputs(out) -> list:
    return list(out) if isinstance(out, (list, tuple)) else [out]


@pytest.mark.parametrize("case", [c for c in VALUES if c not in DELIBERATE])
def test_functional_matches_paddle(case):
    spec = _spec(case)
    tensors = _inputs(case, spec)
    outs = _outputs(_call(case, spec, tensors))
    n_want = sum(1 for k in DATA if k.startswith(f"{case}/out"))
    assert len(outs) == n_want, f"{case}: {len(outs)} outputs vs Paddle's {n_want}"
    tol = LOOSE.get(case, TOL)
    total = None
    for j, out in enumerate(outs):
        want = DATA[f"{case}/out{j}"]
        got = out.numpy()
        assert got.dtype == want.dtype, f"{case} out{j}: dtype {got.dtype} vs {want.dtype}"
        assert got.shape == want.shape, f"{case} out{j}: shape {got.shape} vs {want.shape}"
        np.testing.assert_allclose(got, want, **tol, err_msg=f"{case} out{j}")
        if f"{case}/w{j}" in DATA and not out.stop_gradient:
            term = (out.astype("float32") * core.to_tensor(DATA[f"{case}/w{j}"])).sum()
            total = term if total is None else total + term
    grads = [i for i in range(len(tensors)) if f"{case}/d{i}" in DATA]
    if not grads or case in PADDLE_GRADIENT_WRONG | DIFFERENT_GRADIENT_BY_DESIGN:
        return
    total.backward()
    for i in grads:
        np.testing.assert_allclose(tensors[i].gradient(), DATA[f"{case}/d{i}"], **tol,
                                   err_msg=f"{case} d{i}")


@pytest.mark.parametrize("case", ERRORS)
def test_functional_raises_where_paddle_raises(case):
    spec = _spec(case)
    with pytest.raises((ValueError, TypeError, IndexError)) as info:
        _call(case, spec, _inputs(case, spec))
    assert str(info.value), f"{case}: core's error has no message (Paddle: {DATA[case + '/error']})"


# a float64 finite-difference check of the functions whose gradients are core's own formulas
FD_CASES = ["celu_alpha", "gelu_tanh", "mish", "softplus_beta", "avg_pool2d_divisor",
            "avg_pool2d_divisor_ceil", "lp_pool1d_inf_pad", "bce_logits_large", "glu_axis0",
            "maxout", "prelu_channel", "bilinear", "cosine_similarity_axis0",
            "pairwise_distance_p1_keepdim", "normalize_p3_axis_neg", "pad_reflect",
            "pad_circular_ncl", "temporal_shift", "unfold_args", "fold_args", "affine_grid",
            "grid_sample_bilinear_border_False", "grid_sample_3d",
            "grid_sample_3d_bilinear_reflection_False", "sdpa_mask_float", "batch_norm_train",
            "instance_norm_affine", "group_norm", "local_response_norm_args", "lp_pool2d_args",
            "avg_pool3d_args", "bce_logits_weight_pos", "kl_div_batchmean", "nll_4d_ignore_weight",
            "ce_soft_weight", "swce_soft", "swce_ignore_return", "group_norm_nhwc",
            "group_norm_3d_input", "gaussian_nll_full", "poisson_nll_not_log_full",
            "multi_label_soft_margin_weight", "triplet_margin_p3", "focal_args", "ctc_mean",
            "hsigmoid_bias", "adaptive_log_softmax_bias", "npair_loss_reg", "dice_loss",
            "cosine_embedding_mean", "log_loss_eps"]


@pytest.mark.parametrize("case", FD_CASES)
def test_functional_gradients_match_finite_differences(case):
    spec = _spec(case)
    arrays = [DATA[f"{case}/in{i}"] for i in range(len(spec["grad"]))]
    first = spec["grad"].index(True)

    def fn(t):
        tensors = [t if i == first else core.to_tensor(a.astype("float64") if
                                                        a.dtype == np.float32 else a)
                   for i, a in enumerate(arrays)]
        return _outputs(_call(case, spec, tensors))[0]

    check_grad(fn, arrays[first].astype("float64"))


def test_every_case_runs_a_function_core_and_paddle_share():
    assert len(VALUES) > 250 and len(ERRORS) > 20
    assert {_spec(c)["fn"] for c in CASES} <= set(F.__all__)


def test_grid_sample_3d_gradient_of_the_grid_matches_finite_differences():
    x = DATA["grid_sample_3d_bilinear_border_False/in0"].astype("float64")
    grid = DATA["grid_sample_3d_bilinear_border_False/in1"]
    check_grad(lambda g: F.grid_sample(core.to_tensor(x), g, padding_mode="border",
                                       align_corners=False), grid)


def test_grid_sample_3d_second_order_gradient_matches_finite_differences():
    """create_graph through the 3-D sampler: d/d grid of sum(d out / d x * v)."""
    x = DATA["grid_sample_3d/in0"].astype("float64")
    grid = DATA["grid_sample_3d/in1"].astype("float64")
    v = core.to_tensor(np.random.default_rng(0).standard_normal(x.shape))

    def first_order(g, create_graph):
        xt = core.to_tensor(x, stop_gradient=False)
        (dx,) = core.grad(F.grid_sample(xt, g).sum(), [xt], create_graph=create_graph)
        return (dx * v).sum()

    gt = core.to_tensor(grid, stop_gradient=False)
    (got,) = core.grad(first_order(gt, True), [gt])
    want = np.zeros_like(grid)
    for i in np.ndindex(grid.shape):
        up, down = grid.copy(), grid.copy()
        up[i] += 1e-6
        down[i] -= 1e-6
        want[i] = (first_order(core.to_tensor(up), False).item()
                   - first_order(core.to_tensor(down), False).item()) / 2e-6
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-7)


def test_grid_sample_names_a_wrong_grid_for_a_5d_input():
    x = core.to_tensor(np.zeros((1, 2, 3, 3, 3), np.float32))
    with pytest.raises(ValueError, match=r"grid must be \[N, D_out, H_out, W_out, 3\]"):
        F.grid_sample(x, core.to_tensor(np.zeros((1, 2, 2, 2, 2), np.float32)))
    with pytest.raises(ValueError, match=r"'grid' must be 5-D"):
        F.grid_sample(x, core.to_tensor(np.zeros((1, 2, 2, 3), np.float32)))


def test_embedding_scale_grad_by_freq_divides_by_each_ids_count_also_under_create_graph():
    ids = core.to_tensor(np.array([[0, 2, 2], [2, 1, 0]]))
    table = core.to_tensor(np.arange(12.0).reshape(4, 3), stop_gradient=False)
    out = F.embedding(ids, table, scale_grad_by_freq=True)
    (first,) = core.grad(out.sum(), [table], create_graph=True)
    want = np.array([[1.0] * 3, [1.0] * 3, [1.0] * 3, [0.0] * 3])  # count / count, unused row 0
    np.testing.assert_allclose(first.numpy(), want)
    out.sum().backward()
    np.testing.assert_allclose(table.gradient(), want)
    weights = core.to_tensor(np.arange(18.0).reshape(2, 3, 3))
    (plain,) = core.grad((F.embedding(ids, table, scale_grad_by_freq=True) * weights).sum(),
                         [table])
    np.testing.assert_allclose(plain.numpy()[2], (weights.numpy()[0, 1] + weights.numpy()[0, 2]
                                                  + weights.numpy()[1, 0]) / 3)


def test_errors_core_now_raises_as_paddle_does_name_the_argument():
    x = core.to_tensor(np.ones((1, 1, 6, 6), np.float32))
    with pytest.raises(ValueError, match=r"avg_pool2d: padding='VALID' takes ceil_mode=False"):
        F.avg_pool2d(x, 3, 2, "VALID", ceil_mode=True)
    with pytest.raises(ValueError, match=r"max_pool2d: padding='VALID' takes ceil_mode=False"):
        F.max_pool2d(x, 3, 2, "valid", ceil_mode=True)
    with pytest.raises(ValueError, match=r"binary_cross_entropy: input must hold probabilities "
                                         r"in \[0, 1\], got values in \[-0.5, 1.5\]"):
        F.binary_cross_entropy(core.to_tensor(np.array([1.5, -0.5], np.float32)),
                               core.to_tensor(np.array([1.0, 0.0], np.float32)))
    with pytest.raises(ValueError, match=r"temporal_shift: shift_ratio=0.5 must be a number in "
                                         r"\[0, 0.5\)"):
        F.temporal_shift(core.to_tensor(np.ones((2, 4, 2, 2), np.float32)), 2, 0.5)
    with pytest.raises(ValueError, match=r"align_corners=True needs an interpolating mode .* "
                                         r"not mode='area'"):
        F.interpolate(x, size=[3, 3], mode="area", align_corners=True)
    with pytest.raises(ValueError, match=r"lp_pool2d: norm_type=-inf must be a non-zero number "
                                         r"or inf"):
        F.lp_pool2d(x, float("-inf"), 2)
    with pytest.raises(ValueError, match=r"instance_norm: use_input_stats=False is not "
                                         r"supported: Paddle 3.3.1 ignores it"):
        F.instance_norm(x, use_input_stats=False)


def test_avg_pool_divisor_override_divides_the_sum_where_paddle_rescales_the_mean():
    """A deliberate difference (docs/paddle.md): core divides each window's sum by the override;
    Paddle 3.3.1 returns the (exclusive) mean times kernel_area / divisor_override, which is
    the same only for windows without padding or with exclusive=False."""
    for case, pool in (("avg_pool2d_divisor", F.avg_pool2d), ("avg_pool3d_divisor",
                                                              F.avg_pool3d)):
        spec = _spec(case)
        x = DATA[f"{case}/in0"]
        out = _call(case, spec, [core.to_tensor(x)]).numpy()
        sums = pool(core.to_tensor(x), *spec["args"][1:], divisor_override=1).numpy()
        np.testing.assert_allclose(out, sums / spec["kwargs"]["divisor_override"], rtol=1e-6)
        interior = (slice(None), slice(None)) + (slice(1, -1),) * (x.ndim - 2)
        np.testing.assert_allclose(out[interior], DATA[f"{case}/out0"][interior], **TOL)
    inclusive = "avg_pool2d_divisor_inclusive"  # here the rules agree
    out = _call(inclusive, _spec(inclusive), [core.to_tensor(DATA[f"{inclusive}/in0"])])
    np.testing.assert_allclose(out.numpy(), DATA[f"{inclusive}/out0"], **TOL)


def test_lp_pool_inf_is_max_pooling_over_the_input():
    x = core.to_tensor(np.array([[[-3.0, 1.0, -0.5, -2.0, 0.3, 0.2, 5.0]]], np.float32))
    np.testing.assert_allclose(F.lp_pool1d(x, float("inf"), 2, 2, 1).numpy()[0, 0],
                               [-3.0, 1.0, 0.3, 5.0])  # Paddle: padding is not a 0 here
