"""core.vision.transforms' interpolations: ``resize`` with OpenCV's five ('nearest',
'bilinear', 'bicubic', 'area', 'lanczos', as Paddle's cv2 backend) and the warps' 'bicubic'
(Paddle's PIL backend). Paddle 3.3.1's own results are in
tests/core/data/paddle331/misc/resize_cv2.npz (make_resize_fixtures.py beside it); uint8 must
agree pixel for pixel, float32 to 1e-4. Also torch's interpolate where it has the same kernel,
the transform classes, and the argument errors."""
from __future__ import annotations

import os

import numpy as np
import pytest

import core
from core.vision import transforms as T
from core.vision.transforms import functional as F

FIXTURES = np.load(os.path.join(os.path.dirname(__file__), os.pardir, "data", "paddle331",
                                "misc", "resize_cv2.npz"))
RESIZE_CASES = sorted({key.rsplit("/", 1)[0] for key in FIXTURES.files
                       if key.startswith("resize/")})
RNG = np.random.default_rng(7)
IMAGE = RNG.integers(0, 256, size=(11, 13, 3)).astype(np.uint8)
ALL = ("nearest", "bilinear", "bicubic", "area", "lanczos")


def _case(key: str):
    size = FIXTURES[f"{key}/size"]
    size = int(size) if size.ndim == 0 else tuple(int(s) for s in size)
    return (FIXTURES[f"{key}/img"], size, str(FIXTURES[f"{key}/interpolation"]),
            FIXTURES[f"{key}/out"])


# ----- against Paddle 3.3.1 (cv2 backend: OpenCV 5.0) --------------------------------------------
def test_the_fixtures_cover_every_interpolation_and_layout():
    assert len(RESIZE_CASES) >= 40
    names = {_case(key)[2] for key in RESIZE_CASES}
    assert names == set(ALL)
    shapes = {_case(key)[0].shape[2:] for key in RESIZE_CASES}
    assert {(), (1,), (3,), (4,)} <= shapes


@pytest.mark.parametrize("key", RESIZE_CASES)
def test_resize_matches_paddle_cv2_backend(key):
    img, size, interpolation, expected = _case(key)
    out = F.resize(img, size, interpolation)
    assert out.dtype == img.dtype and out.shape == expected.shape
    if img.dtype == np.uint8:
        np.testing.assert_array_equal(out, expected)  # OpenCV's fixed point, pixel for pixel
    else:  # float32 rounding: values up to 255 differ by a few ulps (IPP's 'bicubic' too)
        np.testing.assert_allclose(out, expected, rtol=1e-6, atol=1e-4)


def test_bicubic_is_within_one_level_of_opencv_built_with_ipp():
    """opencv-python's default Intel IPP path computes INTER_CUBIC in floating point; core
    follows OpenCV's own fixed point, so a few pixels differ by one level."""
    img, size, interpolation, expected = _case("ipp/bicubic_up_rgb")
    difference = np.abs(F.resize(img, size, interpolation).astype(int) - expected)
    assert difference.max() <= 1
    assert (difference == 0).mean() > 0.9


@pytest.mark.parametrize("name, warp", [
    ("rotate_30", lambda img: F.rotate(img, 30, interpolation="bicubic")),
    ("rotate_expand_-47", lambda img: F.rotate(img, -47, interpolation="bicubic", expand=True)),
    ("rotate_center", lambda img: F.rotate(img, 12.5, interpolation="bicubic", center=(3, 4))),
    ("affine", lambda img: F.affine(img, 20, (2, -1), 1.2, (8, -5), interpolation="bicubic")),
    ("perspective", lambda img: F.perspective(
        img, [[0, 0], [16, 0], [16, 13], [0, 13]], [[2, 1], [15, 0], [14, 12], [1, 13]],
        interpolation="bicubic")),
    ("rotate_gray", lambda img: F.rotate(img, -75, interpolation="bicubic")),
])
def test_bicubic_warps_match_paddle_pil_backend(name, warp):
    expected = FIXTURES[f"warp/{name}/out"]
    out = warp(FIXTURES[f"warp/{name}/img"])
    assert out.dtype == np.uint8
    if name.startswith("perspective"):
        # its coefficients come from a least-squares solve (numpy.linalg.lstsq, as Paddle's),
        # whose last bits depend on the BLAS build: a pixel whose source lands on the image's
        # edge can fall inside with one build and outside with another (1 of 238 pixels with
        # the GPU machine's OpenBLAS, none here)
        assert np.any(out != expected, axis=-1).mean() <= 0.02
        return
    np.testing.assert_array_equal(out, expected)


# ----- kernels by hand and against torch ---------------------------------------------------------
@pytest.mark.parametrize("interpolation", ["bilinear", "bicubic", "area", "lanczos"])
@pytest.mark.parametrize("size", [(9, 4), (3, 17), (1, 1)])
def test_weights_sum_to_one(interpolation, size):
    flat = np.full((5, 7, 2), 3.25)
    np.testing.assert_allclose(F.resize(flat, size, interpolation), 3.25, rtol=1e-12)


def test_lanczos_and_bicubic_pick_the_pixel_a_source_lands_on():
    """Tripling 1 pixel -> 3 puts the middle output on the input pixel: weight 1 there."""
    row = np.array([[10.0, 80.0, 30.0, 200.0]])
    for interpolation in ("bicubic", "lanczos"):
        out = F.resize(row, (1, 12), interpolation)
        np.testing.assert_allclose(out[0, 1::3], row[0], atol=1e-12)


def test_area_averages_whole_and_fractional_cells():
    img = np.arange(24, dtype=np.float64).reshape(4, 6)
    np.testing.assert_allclose(F.resize(img, (2, 3), "area"),
                               img.reshape(2, 2, 3, 2).mean(axis=(1, 3)))
    # 3 -> 2: output 0 covers input 0 and half of input 1
    np.testing.assert_allclose(F.resize(np.array([[0.0, 3.0, 9.0]]), (1, 2), "area"),
                               [[1.0, 7.0]])
    # uint8 halving rounds (sum + 2) >> 2 as OpenCV: 1+2+2+2=7 -> 2, 1+1+2+2=6 -> 2 (halves up)
    assert F.resize(np.array([[1, 2], [2, 2]], np.uint8), (1, 1), "area")[0, 0] == 2
    assert F.resize(np.array([[1, 1], [2, 2]], np.uint8), (1, 1), "area")[0, 0] == 2


@pytest.mark.parametrize("shape, size", [((7, 9), (13, 17)), ((12, 10, 3), (5, 7)),
                                         ((6, 6, 2), (6, 11)), ((3, 4), (1, 1))])
def test_bicubic_matches_torch(shape, size):
    """torch's bicubic (align_corners=False) is Keys' A = -0.75 kernel with clamped taps: the
    same as OpenCV's on float64 images."""
    torch = pytest.importorskip("torch")
    img = np.random.default_rng(1).standard_normal(shape)
    chw = img[None, None] if img.ndim == 2 else img.transpose(2, 0, 1)[None]
    ref = torch.nn.functional.interpolate(torch.from_numpy(chw), size=size, mode="bicubic",
                                          align_corners=False)[0].numpy()
    ref = ref[0] if img.ndim == 2 else ref.transpose(1, 2, 0)
    np.testing.assert_allclose(F.resize(img, size, "bicubic"), ref, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("size", [(4, 3), (2, 6), (1, 1)])
def test_area_by_whole_factors_matches_torch(size):
    torch = pytest.importorskip("torch")
    img = np.random.default_rng(2).standard_normal((8, 6, 3))
    ref = torch.nn.functional.interpolate(torch.from_numpy(img.transpose(2, 0, 1)[None]),
                                          size=size, mode="area")[0].numpy().transpose(1, 2, 0)
    np.testing.assert_allclose(F.resize(img, size, "area"), ref, rtol=1e-12, atol=1e-12)


def test_other_dtypes_are_rounded_back():
    img = (IMAGE.astype(np.uint16) * 257)[:, :, :2]
    for interpolation in ("bicubic", "lanczos", "area"):
        out = F.resize(img, (7, 20), interpolation)
        assert out.dtype == np.uint16
        exact = F.resize(img.astype(np.float64), (7, 20), interpolation)
        assert np.abs(out - np.clip(exact, 0, 65535)).max() <= 1


def test_bicubic_warp_of_a_float_image_is_not_clipped():
    img = np.zeros((6, 6), np.float32)
    img[2:4, 2:4] = 1.0
    out = F.rotate(img, 30, interpolation="bicubic")
    assert out.dtype == np.float32 and out.min() < 0  # the cubic overshoots; floats keep it


# ----- transform classes -------------------------------------------------------------------------
@pytest.mark.parametrize("interpolation", ALL)
def test_resize_transform_takes_every_interpolation(interpolation):
    transform = T.Resize((5, 8), interpolation=interpolation)
    np.testing.assert_array_equal(transform(IMAGE), F.resize(IMAGE, (5, 8), interpolation))
    assert T.Resize(6, interpolation)(IMAGE).shape == (6, 7, 3)  # int(6 * 13 / 11)


def test_random_resized_crop_uses_the_interpolation():
    core.seed(3)
    out = T.RandomResizedCrop(5, scale=(1.0, 1.0), ratio=(13 / 11, 13 / 11),
                              interpolation="lanczos")(IMAGE)
    np.testing.assert_array_equal(out, F.resize(IMAGE, (5, 5), "lanczos"))


@pytest.mark.parametrize("build, warp", [
    (lambda: T.RandomRotation((20, 20), interpolation="bicubic"),
     lambda img: F.rotate(img, 20, interpolation="bicubic")),
    (lambda: T.RandomAffine((15, 15), interpolation="bicubic"),
     lambda img: F.affine(img, 15, (0, 0), 1.0, (0.0, 0.0), interpolation="bicubic")),
])
def test_warp_transforms_take_bicubic(build, warp):
    np.testing.assert_array_equal(build()(IMAGE), warp(IMAGE))


def test_random_perspective_takes_bicubic():
    core.seed(5)
    out = T.RandomPerspective(prob=1.0, interpolation="bicubic")(IMAGE)
    core.seed(5)
    nearest = T.RandomPerspective(prob=1.0)
    nearest(IMAGE)  # the same draws, kept in .params
    np.testing.assert_array_equal(out, F.perspective(IMAGE, *nearest.params, "bicubic"))


# ----- errors ------------------------------------------------------------------------------------
RESIZE_NAMES = "'nearest', 'bilinear', 'bicubic', 'area', 'lanczos'"
WARP_NAMES = "'nearest', 'bilinear', 'bicubic'"


@pytest.mark.parametrize("call, match", [
    (lambda: F.resize(IMAGE, 4, "cubic"), f"resize: interpolation='cubic' must be one of "
                                          f"{RESIZE_NAMES}"),
    (lambda: F.resize(IMAGE, 4, 2), "interpolation=2 must be one of"),
    (lambda: T.Resize(4, interpolation="Bicubic"), f"Resize: interpolation='Bicubic' .*"
                                                   f"{RESIZE_NAMES}"),
    (lambda: T.RandomResizedCrop(4, interpolation="antialias"),
     "RandomResizedCrop: interpolation='antialias'"),
    (lambda: F.rotate(IMAGE, 9, interpolation="lanczos"), f"rotate: interpolation='lanczos' "
                                                          f"must be one of {WARP_NAMES}\\."),
    (lambda: F.affine(IMAGE, 9, (0, 0), 1.0, 0, interpolation="area"),
     f"affine: interpolation='area' must be one of {WARP_NAMES}"),
    (lambda: F.perspective(IMAGE, [[0, 0]] * 4, [[0, 0]] * 4, interpolation="box"),
     "perspective: interpolation='box'"),
    (lambda: T.RandomRotation(5, interpolation="area"), "RandomRotation: interpolation='area'"),
    (lambda: T.RandomAffine(5, interpolation="lanczos"), "RandomAffine: interpolation='lanczos'"),
    (lambda: T.RandomPerspective(interpolation="area"), "RandomPerspective: interpolation='area'"),
])
def test_unknown_interpolations_are_refused_with_the_allowed_names(call, match):
    with pytest.raises(ValueError, match=match):
        call()
