"""core.vision.transforms' colour, warp, resized-crop and erasing transforms: exact values on
small hand-built images, Pillow's results where Pillow is installed (the 'pil' backend Paddle
runs by default), seeded repeatability, keys, and argument errors."""
from __future__ import annotations

import math

import numpy as np
import pytest

import core
from core.vision import transforms as T
from core.vision.transforms import functional as F

RNG = np.random.default_rng(0)
IMAGE = RNG.integers(0, 256, size=(7, 9, 3)).astype(np.uint8)
SQUARE = np.arange(16, dtype=np.uint8).reshape(4, 4)


def _pil():
    return pytest.importorskip("PIL.Image")


def _pil_filter(image_module, interpolation):
    return {"nearest": image_module.NEAREST, "bilinear": image_module.BILINEAR}[interpolation]


# ----- flips and crops exported beside the transforms, as paddle.vision.transforms ---------------
def test_functional_names_are_exported_like_paddle():
    for name in ("hflip", "vflip", "resize", "pad", "affine", "rotate", "perspective",
                 "to_grayscale", "crop", "center_crop", "adjust_brightness", "adjust_contrast",
                 "adjust_hue", "normalize", "erase", "to_tensor"):
        assert getattr(T, name) is getattr(F, name)
        assert getattr(core.vision, name) is getattr(F, name)  # paddle.vision re-exports them
    assert callable(F.adjust_saturation)  # in functional only, as Paddle
    np.testing.assert_array_equal(T.hflip(SQUARE), SQUARE[:, ::-1])
    np.testing.assert_array_equal(T.vflip(SQUARE), SQUARE[::-1])
    np.testing.assert_array_equal(T.crop(SQUARE, 1, 2, 2, 2), [[6, 7], [10, 11]])


# ----- colour ----------------------------------------------------------------------------------
def test_brightness_by_hand():
    img = np.array([[[10, 100, 200]], [[0, 255, 128]]], dtype=np.uint8)
    np.testing.assert_array_equal(F.adjust_brightness(img, 0), np.zeros_like(img))  # black
    np.testing.assert_array_equal(F.adjust_brightness(img, 1), img)
    # 1.5 x: 15, 150, 300 -> 255 (clipped), 0, 382.5 -> 255, 192
    np.testing.assert_array_equal(F.adjust_brightness(img, 1.5)[:, 0],
                                  [[15, 150, 255], [0, 255, 192]])
    # 0.3 x 255 = 76.5 -> 76: integer images are truncated, as PIL's blend
    assert F.adjust_brightness(np.array([[255]], np.uint8), 0.3)[0, 0] == 76
    floats = np.array([[0.5, 2.0]], dtype=np.float32)
    out = F.adjust_brightness(floats, 2)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [[1.0, 4.0]])  # floats are not clipped


def test_contrast_zero_gives_the_mean_gray_level():
    img = np.array([[[255, 0, 0], [0, 255, 0]], [[0, 0, 255], [10, 20, 30]]], dtype=np.uint8)
    # gray levels 76, 150, 29, 18 (0.299 R + 0.587 G + 0.114 B, rounded): mean 68.25 -> 68
    out = F.adjust_contrast(img, 0)
    assert out.shape == img.shape and out.dtype == np.uint8
    np.testing.assert_array_equal(out, np.full_like(img, 68))
    np.testing.assert_array_equal(F.adjust_contrast(img, 1), img)
    gray = np.array([[0.0, 1.0], [2.0, 5.0]])
    np.testing.assert_allclose(F.adjust_contrast(gray, 0.5), 2.0 + 0.5 * (gray - 2.0))


def test_saturation_zero_gives_the_grayscale_image():
    out = F.adjust_saturation(IMAGE, 0)
    gray = F.to_grayscale(IMAGE)
    np.testing.assert_array_equal(out, np.repeat(gray, 3, axis=2))
    np.testing.assert_array_equal(F.adjust_saturation(IMAGE, 1), IMAGE)
    np.testing.assert_array_equal(F.adjust_saturation(SQUARE, 3), SQUARE)  # gray: unchanged


def test_hue_shift_zero_is_the_identity_and_half_gives_complementary_colours():
    np.testing.assert_array_equal(F.adjust_hue(IMAGE, 0.0), IMAGE)
    floats = IMAGE.astype(np.float32) / 255
    np.testing.assert_allclose(F.adjust_hue(floats, 0.0), floats, atol=1e-6)
    primaries = np.array([[[255, 0, 0], [0, 255, 0], [0, 0, 255], [40, 40, 40]]], np.uint8)
    # a half turn: red -> cyan, green -> magenta, blue -> yellow; gray stays gray
    np.testing.assert_array_equal(F.adjust_hue(primaries, 0.5)[0],
                                  [[0, 255, 255], [255, 0, 255], [255, 255, 0], [40, 40, 40]])
    # a third of a turn: red -> green -> blue -> red
    np.testing.assert_array_equal(F.adjust_hue(primaries, 1 / 3)[0, :3],
                                  [[0, 255, 0], [0, 0, 255], [255, 0, 0]])
    np.testing.assert_array_equal(F.adjust_hue(SQUARE, 0.3), SQUARE)


def test_colour_adjustments_keep_shape_and_dtype():
    for adjust, factor in ((F.adjust_brightness, 1.3), (F.adjust_contrast, 0.7),
                           (F.adjust_saturation, 1.8), (F.adjust_hue, -0.2)):
        for img in (IMAGE, IMAGE.astype(np.float32), IMAGE[:, :, :1], SQUARE):
            out = adjust(img, factor)
            assert out.shape == img.shape and out.dtype == img.dtype, adjust.__name__


@pytest.mark.parametrize("factor", [0.0, 0.4, 1.0, 1.7])
def test_colour_adjustments_match_pillow(factor):
    image_module = _pil()
    from PIL import ImageEnhance

    pil = image_module.fromarray(IMAGE)
    for adjust, enhancer in ((F.adjust_brightness, ImageEnhance.Brightness),
                             (F.adjust_contrast, ImageEnhance.Contrast),
                             (F.adjust_saturation, ImageEnhance.Color)):
        expected = np.asarray(enhancer(pil).enhance(factor)).astype(int)
        # PIL blends in float32: a value on a .0 boundary may truncate one lower
        assert np.abs(adjust(IMAGE, factor).astype(int) - expected).max() <= 1
    gray = image_module.fromarray(SQUARE * 15)
    expected = np.asarray(ImageEnhance.Contrast(gray).enhance(factor)).astype(int)
    assert np.abs(F.adjust_contrast(SQUARE * 15, factor).astype(int) - expected).max() <= 1


@pytest.mark.parametrize("hue", [0.1, -0.3, 0.5])
def test_hue_is_close_to_pillows_8_bit_hsv(hue):
    image_module = _pil()
    h, s, v = image_module.fromarray(IMAGE).convert("HSV").split()
    shifted = (np.asarray(h).astype(int) + int(hue * 255)) % 256  # Paddle's PIL adjust_hue
    expected = image_module.merge("HSV", (image_module.fromarray(shifted.astype(np.uint8), "L"),
                                          s, v)).convert("RGB")
    diff = np.abs(F.adjust_hue(IMAGE, hue).astype(int) - np.asarray(expected).astype(int))
    assert diff.mean() < 2.5  # Pillow quantises hue and saturation to 8 bits


# ----- rotate, affine, perspective ---------------------------------------------------------------
def test_rotate_by_multiples_of_90_degrees_is_exact():
    np.testing.assert_array_equal(F.rotate(SQUARE, 90), np.rot90(SQUARE))  # counter-clockwise
    np.testing.assert_array_equal(F.rotate(SQUARE, -90), np.rot90(SQUARE, -1))
    np.testing.assert_array_equal(F.rotate(SQUARE, 180, "bilinear"), np.rot90(SQUARE, 2))
    np.testing.assert_array_equal(F.rotate(IMAGE, 90, expand=True), np.rot90(IMAGE))
    np.testing.assert_array_equal(F.rotate(IMAGE, 270, expand=True), np.rot90(IMAGE, 3))
    np.testing.assert_array_equal(F.rotate(IMAGE, 0), IMAGE)
    out = F.rotate(IMAGE, 90)  # not square, not expanded: cut to 7 x 9, the rest filled
    assert out.shape == IMAGE.shape
    np.testing.assert_array_equal(out[:, 1:8], np.rot90(IMAGE)[1:8])
    assert (out[:, 0] == 0).all() and (out[:, 8] == 0).all()


def test_rotate_center_and_fill():
    img = np.arange(9, dtype=np.float64).reshape(3, 3) + 1
    # about the centre of the top-left pixel: the image turns away, leaving it in place
    out = F.rotate(img, 180, center=(0.5, 0.5), fill=-1)
    expected = np.full((3, 3), -1.0)
    expected[0, 0] = 1
    np.testing.assert_array_equal(out, expected)
    rgb = F.rotate(IMAGE, 45, fill=(1, 2, 3))
    np.testing.assert_array_equal(rgb[0, 0], [1, 2, 3])
    assert F.rotate(IMAGE, 30, expand=True).shape == (11, 13, 3)  # Pillow's expanded size


@pytest.mark.parametrize("interpolation", ["nearest", "bilinear"])
@pytest.mark.parametrize("angle, expand, center", [(30, False, None), (-47.5, True, None),
                                                   (12, False, (2, 3.5)), (200, True, None)])
def test_rotate_matches_pillow(interpolation, angle, expand, center):
    image_module = _pil()
    expected = np.asarray(image_module.fromarray(IMAGE).rotate(
        angle, _pil_filter(image_module, interpolation), expand=expand, center=center,
        fillcolor=(10, 20, 30)))
    out = F.rotate(IMAGE, angle, interpolation, expand, center, fill=(10, 20, 30))
    assert out.shape == expected.shape
    # Pillow steps its coordinates incrementally: a point on a pixel edge may round the
    # other way for a pixel or two
    assert np.mean(np.any(out != expected, axis=-1)) < 0.03


def test_affine_identity_translation_and_rotation():
    np.testing.assert_array_equal(F.affine(IMAGE, 0, (0, 0), 1.0, 0), IMAGE)
    out = F.affine(SQUARE, 0, (1, 2), 1.0, 0.0, fill=99)  # right 1, down 2
    expected = np.full((4, 4), 99, np.uint8)
    expected[2:, 1:] = SQUARE[:2, :3]
    np.testing.assert_array_equal(out, expected)
    # the angle turns clockwise (Paddle's matrix, as torchvision): affine(a) == rotate(-a)
    np.testing.assert_array_equal(F.affine(SQUARE, 90, [0, 0], 1, [0, 0]), np.rot90(SQUARE, -1))
    np.testing.assert_array_equal(F.affine(IMAGE, 33, (0, 0), 1, 0), F.rotate(IMAGE, -33))
    # scale 2 about the centre: the middle 2 x 2 pixels fill the image
    np.testing.assert_array_equal(F.affine(SQUARE, 0, (0, 0), 2.0, 0),
                                  np.repeat(np.repeat(SQUARE[1:3, 1:3], 2, 0), 2, 1))


@pytest.mark.parametrize("interpolation", ["nearest", "bilinear"])
@pytest.mark.parametrize("angle, translate, scale, shear, shear_xy", [
    (30, (1, -2), 1.2, (10, 5), (10, 5)), (-60, [2, 1], 0.7, 15, (15, 0)),
    (0, (0, 0), 1.0, [8], (8, 8))])
def test_affine_matches_pillow_with_paddles_matrix(interpolation, angle, translate, scale,
                                                   shear, shear_xy):
    """Paddle's PIL backend: img.transform(size, AFFINE, _get_affine_matrix(...)), the matrix
    written out here from Paddle's formula (a number shears along x, one value along both)."""
    image_module = _pil()
    rot, sx, sy = (math.radians(v) for v in (angle, *shear_xy))
    cx, cy = IMAGE.shape[1] * 0.5, IMAGE.shape[0] * 0.5
    a = math.cos(rot - sy) / math.cos(sy)
    b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
    c = math.sin(rot - sy) / math.cos(sy)
    d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
    m = [v / scale for v in (d, -b, 0.0, -c, a, 0.0)]
    m[2] += m[0] * (-cx - translate[0]) + m[1] * (-cy - translate[1]) + cx
    m[5] += m[3] * (-cx - translate[0]) + m[4] * (-cy - translate[1]) + cy
    pil = image_module.fromarray(IMAGE)
    expected = np.asarray(pil.transform(pil.size, image_module.AFFINE, m,
                                        _pil_filter(image_module, interpolation),
                                        fillcolor=(7, 7, 7)))
    out = F.affine(IMAGE, angle, translate, scale, shear, interpolation, fill=7)
    assert np.mean(np.any(out != expected, axis=-1)) < 0.03


def test_perspective_identity_points_give_the_identity():
    corners = [[0, 0], [8, 0], [8, 6], [0, 6]]
    np.testing.assert_array_equal(F.perspective(IMAGE, corners, corners, "nearest"), IMAGE)
    # 'bilinear' truncates as Pillow: the least-squares coefficients are 1 + 4e-16 and 1e-16
    # off, so weights of 0.99999... drop some levels by one; real Paddle 3.3.1 (PIL backend)
    # gives these same 70 lower values (it used to be asserted as the identity here); how
    # many depends on the BLAS's least-squares rounding (78 with another OpenBLAS build)
    out = F.perspective(IMAGE, corners, corners, "bilinear")
    assert np.abs(out.astype(int) - IMAGE).max() == 1 and (out <= IMAGE).all()
    assert 0 < (out != IMAGE).sum() <= 100
    # moving every corner right by 1 shifts the image right by one pixel
    moved = [[x + 1, y] for x, y in corners]
    out = F.perspective(SQUARE, [[0, 0], [3, 0], [3, 3], [0, 3]],
                        [[1, 0], [4, 0], [4, 3], [1, 3]], fill=200)
    np.testing.assert_array_equal(out[:, 1:], SQUARE[:, :3])
    assert (out[:, 0] == 200).all()
    assert F.perspective(IMAGE, corners, moved).shape == IMAGE.shape


@pytest.mark.parametrize("interpolation", ["nearest", "bilinear"])
def test_perspective_matches_pillow(interpolation):
    image_module = _pil()
    start, end = [[0, 0], [8, 0], [8, 6], [0, 6]], [[1, 1], [7, 0], [8, 5], [0, 6]]
    # Paddle's _get_perspective_coeffs: least squares for the map end -> start
    rows, rhs = [], []
    for (x, y), (u, v) in zip(end, start):
        rows += [[x, y, 1, 0, 0, 0, -u * x, -u * y], [0, 0, 0, x, y, 1, -v * x, -v * y]]
        rhs += [u, v]
    coeffs = np.linalg.lstsq(np.array(rows, float), np.array(rhs, float), rcond=None)[0]
    pil = image_module.fromarray(IMAGE)
    expected = np.asarray(pil.transform(pil.size, image_module.PERSPECTIVE, list(coeffs),
                                        _pil_filter(image_module, interpolation),
                                        fillcolor=(3, 3, 3)))
    out = F.perspective(IMAGE, start, end, interpolation, fill=3)
    assert np.mean(np.any(out != expected, axis=-1)) < 0.03


def test_warps_keep_dtype_and_gray_layout():
    for warp in (lambda img: F.rotate(img, 17, "bilinear"),
                 lambda img: F.affine(img, 10, (1, 1), 0.9, 5, "bilinear"),
                 lambda img: F.perspective(img, [[0, 0], [3, 0], [3, 3], [0, 3]],
                                           [[1, 0], [3, 1], [2, 3], [0, 2]], "bilinear")):
        for img in (SQUARE, SQUARE.astype(np.float32), SQUARE[:, :, None]):
            out = warp(img)
            assert out.shape == img.shape and out.dtype == img.dtype


# ----- resize against Pillow --------------------------------------------------------------------
@pytest.mark.parametrize("size, interpolation", [((14, 18), "bilinear"), ((21, 27), "bilinear"),
                                                 ((14, 18), "nearest"), ((21, 27), "nearest")])
def test_resize_matches_pillow_when_upsampling(size, interpolation):
    """Pillow antialiases when shrinking and centres 'nearest' differently from OpenCV (whose
    rules core's resize follows): they agree on upsampling, 'nearest' by whole factors."""
    image_module = _pil()
    expected = np.asarray(image_module.fromarray(IMAGE).resize(
        size[::-1], _pil_filter(image_module, interpolation))).astype(int)
    assert np.abs(F.resize(IMAGE, size, interpolation).astype(int) - expected).max() <= 1


# ----- erase -------------------------------------------------------------------------------------
def test_erase_region_values():
    img = np.arange(2 * 4 * 3, dtype=np.float32).reshape(2, 4, 3)
    out = T.erase(img, 0, 1, 1, 2, np.zeros((1, 1, 1)))
    expected = img.copy()
    expected[0, 1:3] = 0
    np.testing.assert_array_equal(out, expected)
    assert out is not img and img[0, 1, 0] == 3  # a copy unless inplace
    per_channel = F.erase(img, 1, 0, 1, 4, np.array([7.0, 8.0, 9.0])[None, None])
    np.testing.assert_array_equal(per_channel[1], np.tile([7.0, 8.0, 9.0], (4, 1)))
    same = F.erase(img, 1, 3, 1, 1, 5, inplace=True)
    assert same is img and img[1, 3].tolist() == [5, 5, 5]
    gray = F.erase(SQUARE, 2, 2, 2, 2, np.full((1, 1, 1), 300.0))
    np.testing.assert_array_equal(gray[2:, 2:], 255)  # clipped to uint8
    np.testing.assert_array_equal(gray[:2], SQUARE[:2])


# ----- transforms ---------------------------------------------------------------------------------
def test_colour_transforms_with_zero_value_leave_the_image():
    for transform in (T.BrightnessTransform(0), T.ContrastTransform(0), T.SaturationTransform(0),
                      T.HueTransform(0), T.ColorJitter()):
        np.testing.assert_array_equal(transform(IMAGE), IMAGE)


def test_colour_transforms_draw_their_factor_in_paddles_range():
    core.seed(5)
    brightness = T.BrightnessTransform((0.0, 0.0))  # always black
    np.testing.assert_array_equal(brightness(IMAGE), 0)
    transform = T.BrightnessTransform(0.4)
    assert transform.value == (0.6, 1.4)
    gray = np.full((1, 1), 100, np.uint8)
    factors = {int(transform(gray)[0, 0]) for _ in range(200)}
    assert min(factors) >= 60 and max(factors) <= 140 and len(factors) > 40
    assert T.HueTransform(0.2).value == (-0.2, 0.2)
    assert T.ContrastTransform([0.5, 2]).value == (0.5, 2.0)


def test_color_jitter_is_repeatable_with_core_seed_and_varies():
    jitter = T.ColorJitter(0.4, 0.4, 0.4, 0.1)
    core.seed(11)
    first = [jitter(IMAGE) for _ in range(5)]
    core.seed(11)
    again = [jitter(IMAGE) for _ in range(5)]
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    assert not np.array_equal(first[0], first[1])
    assert all(out.shape == IMAGE.shape and out.dtype == np.uint8 for out in first)
    assert "ColorJitter(brightness=0.4" in repr(jitter)


def test_color_jitter_applies_the_drawn_adjustments_in_its_order():
    jitter = T.ColorJitter(brightness=0.5, hue=0.2)
    core.seed(3)
    out = jitter(IMAGE)
    steps = jitter.params
    assert [adjust.__name__ for adjust, _ in steps] in (["adjust_brightness", "adjust_hue"],
                                                        ["adjust_hue", "adjust_brightness"])
    expected = IMAGE
    for adjust, factor in steps:
        expected = adjust(expected, factor)
    np.testing.assert_array_equal(out, expected)


def test_random_resized_crop_by_hand_and_with_a_mask():
    transform = T.RandomResizedCrop(4, scale=(1.0, 1.0), ratio=(1.0, 1.0), interpolation="nearest")
    img = np.arange(64, dtype=np.uint8).reshape(8, 8)
    np.testing.assert_array_equal(transform(img), img[::2, ::2])  # whole image, halved
    both = T.RandomResizedCrop((3, 5), keys=("image", "mask"))
    core.seed(4)
    for _ in range(10):
        out, mask = both((IMAGE, IMAGE[:, :, 0].copy()))
        assert out.shape == (3, 5, 3) and out.dtype == np.uint8 and mask.shape == (3, 5)
        top, left, h, w = both.params
        assert 0 <= top <= 7 - h and 0 <= left <= 9 - w
        np.testing.assert_array_equal(mask, F.resize(IMAGE[top:top + h, left:left + w, 0],
                                                      (3, 5), "nearest"))


def test_random_resized_crop_falls_back_to_a_centre_crop():
    # an area of 100x the image never fits: Paddle's fallback, the ratio-clipped centre window
    transform = T.RandomResizedCrop(2, scale=(100.0, 100.0), ratio=(1.0, 1.0))
    transform(np.zeros((4, 10)))
    assert transform.params == (0, 3, 4, 4)


def test_random_rotation_is_seeded_and_turns_a_mask_alike():
    transform = T.RandomRotation((90, 90), keys=("image", "mask"))
    out, mask = transform((SQUARE, SQUARE.copy()))
    np.testing.assert_array_equal(out, np.rot90(SQUARE))
    np.testing.assert_array_equal(mask, np.rot90(SQUARE))
    spin = T.RandomRotation(45, interpolation="bilinear", expand=True)
    core.seed(9)
    first = [spin(IMAGE) for _ in range(4)]
    core.seed(9)
    assert all(np.array_equal(a, spin(IMAGE)) for a in first)
    assert all(-45 <= angle <= 45 for angle in [spin._get_params(None) for _ in range(50)])


def test_random_affine_draws_paddles_parameters():
    transform = T.RandomAffine((-10, 10), translate=(0.5, 0.25), scale=(0.5, 2.0),
                               shear=(-5, 5, -3, 3))
    core.seed(0)
    for _ in range(50):
        angle, (tx, ty), scale, (sx, sy) = transform._get_params((IMAGE,))
        assert -10 <= angle <= 10 and 0.5 <= scale <= 2.0
        assert isinstance(tx, int) and abs(tx) <= 4.5 and abs(ty) <= 1.75  # 0.5 x 9, 0.25 x 7
        assert -5 <= sx <= 5 and -3 <= sy <= 3
    out = transform(IMAGE)
    assert out.shape == IMAGE.shape and out.dtype == IMAGE.dtype
    still = T.RandomAffine(0)
    np.testing.assert_array_equal(still(IMAGE), IMAGE)
    assert T.RandomAffine(5, shear=7).shear == (-7.0, 7.0)


def test_random_affine_warps_the_mask_alike():
    transform = T.RandomAffine((90, 90), keys=("image", "mask"))
    out, mask = transform((SQUARE, SQUARE))
    np.testing.assert_array_equal(out, np.rot90(SQUARE, -1))
    np.testing.assert_array_equal(mask, out)


def test_random_perspective_probability_points_and_seed():
    np.testing.assert_array_equal(T.RandomPerspective(prob=0.0)(IMAGE), IMAGE)
    np.testing.assert_array_equal(T.RandomPerspective(1.0, distortion_scale=0.0)(IMAGE), IMAGE)
    transform = T.RandomPerspective(prob=1.0, distortion_scale=0.5)
    core.seed(2)
    for _ in range(30):
        start, end = transform.get_params(9, 7, 0.5)  # half sizes 4 and 3: moves up to 2, 1
        assert start == [[0, 0], [8, 0], [8, 6], [0, 6]]
        (x0, y0), (x1, y1), (x2, y2), (x3, y3) = end
        assert 0 <= x0 <= 2 and 0 <= y0 <= 1 and 6 <= x1 <= 8 and 0 <= y1 <= 1
        assert 6 <= x2 <= 8 and 5 <= y2 <= 6 and 0 <= x3 <= 2 and 5 <= y3 <= 6
    core.seed(2)
    first = transform(IMAGE)
    core.seed(2)
    np.testing.assert_array_equal(transform(IMAGE), first)
    assert first.shape == IMAGE.shape


def test_random_erasing_erases_one_rectangle_with_the_value():
    img = np.ones((10, 12, 3), dtype=np.float32)
    transform = T.RandomErasing(prob=1.0, value=(0, 2, 3))
    core.seed(6)
    out = transform(img)
    top, left, h, w, _ = transform.params
    assert 0 < h < 10 and 0 < w < 12 and 0.02 * 120 - 12 <= h * w <= 0.33 * 120 + 12
    np.testing.assert_array_equal(out[top:top + h, left:left + w], np.broadcast_to(
        [0, 2, 3], (h, w, 3)))
    rest = np.ones(img.shape[:2], bool)
    rest[top:top + h, left:left + w] = False
    assert (out[rest] == 1).all() and (img == 1).all()  # not in place by default
    np.testing.assert_array_equal(T.RandomErasing(prob=0.0)(img), img)
    inplace = T.RandomErasing(prob=1.0, value=5, inplace=True)
    assert inplace(img) is img and (img == 5).any()


def test_random_erasing_random_values_and_gray_images():
    core.seed(1)
    noisy = T.RandomErasing(prob=1.0, scale=(0.2, 0.3), value="random")
    out = noisy(np.zeros((20, 20), dtype=np.uint8))
    top, left, h, w, values = noisy.params
    assert values.shape == (h, w, 1)
    region = out[top:top + h, left:left + w]
    assert region.max() == 255 and (region == 0).any()  # normal x 255 clipped to uint8
    core.seed(1)
    np.testing.assert_array_equal(noisy(np.zeros((20, 20), dtype=np.uint8)), out)


def test_random_erasing_gives_up_when_no_rectangle_fits():
    transform = T.RandomErasing(prob=1.0, scale=(1.0, 1.0), ratio=(1.0, 1.0))
    np.testing.assert_array_equal(transform(IMAGE), IMAGE)  # the whole image never fits
    assert transform.params is None


def test_new_transforms_compose_with_the_old_ones():
    pipeline = T.Compose([T.RandomResizedCrop(6), T.ColorJitter(0.2, 0.2, 0.2, 0.05),
                          T.RandomRotation(10), T.RandomErasing(prob=1.0), T.ToTensor(),
                          T.Normalize(0.5, 0.5)])
    core.seed(0)
    out = pipeline(IMAGE)
    assert out.shape == (3, 6, 6) and out.dtype == np.float32


# ----- errors ------------------------------------------------------------------------------------
@pytest.mark.parametrize("call, error, match", [
    (lambda: F.adjust_brightness(IMAGE, -1), ValueError, "brightness_factor=-1"),
    (lambda: F.adjust_contrast(IMAGE, "2"), ValueError, "contrast_factor='2'"),
    (lambda: F.adjust_saturation(IMAGE, float("nan")), ValueError, "saturation_factor=nan"),
    (lambda: F.adjust_hue(IMAGE, 0.6), ValueError, r"hue_factor=0.6 .*\[-0.5, 0.5\]"),
    (lambda: F.adjust_hue(np.zeros((2, 2, 4)), 0.1), ValueError, "RGB"),
    (lambda: F.adjust_contrast(np.zeros((2, 2, 2)), 0.1), ValueError, "gray"),
    (lambda: F.rotate(IMAGE, "90"), TypeError, "angle='90'"),
    (lambda: F.rotate(IMAGE, 9, interpolation="lanczos"), ValueError,
     "interpolation='lanczos'"),
    (lambda: F.rotate(IMAGE, 9, center=(1,)), TypeError, r"center=\(1,\)"),
    (lambda: F.rotate(IMAGE, 9, fill=(1, 2)), ValueError, r"fill=\(1, 2\).*\(3\)"),
    (lambda: F.affine(IMAGE, 0, 3, 1.0, 0), TypeError, "translate=3"),
    (lambda: F.affine(IMAGE, 0, (0, 0), 0.0, 0), ValueError, "scale=0.0"),
    (lambda: F.affine(IMAGE, 0, (0, 0), 1.0, (1, 2, 3)), TypeError, r"shear=\(1, 2, 3\)"),
    (lambda: F.perspective(IMAGE, [[0, 0]], [[0, 0]]), ValueError, r"startpoints=\[\[0, 0\]\]"),
    (lambda: F.erase(IMAGE, -1, 0, 1, 1, 0), ValueError, "i=-1"),
    (lambda: F.erase(IMAGE, 5, 0, 3, 1, 0), ValueError, "does not fit"),
    (lambda: F.erase(IMAGE, 0, 0, 2, 2, np.zeros(2)), ValueError, "does not broadcast"),
    (lambda: T.RandomResizedCrop(0), ValueError, "size=0"),
    (lambda: T.RandomResizedCrop(3, scale=(0.9, 0.1)), ValueError, r"scale=\(0.9, 0.1\)"),
    (lambda: T.RandomResizedCrop(3, ratio=(0, 1)), ValueError, r"ratio=\(0, 1\)"),
    (lambda: T.BrightnessTransform(-0.1), ValueError, "value=-0.1"),
    (lambda: T.ContrastTransform((2, 1)), ValueError, r"value=\(2, 1\)"),
    (lambda: T.HueTransform(0.7), ValueError, "value=0.7"),
    (lambda: T.ColorJitter(hue=(-0.6, 0.1)), ValueError, r"hue=\(-0.6, 0.1\)"),
    (lambda: T.ColorJitter(saturation="x"), ValueError, "saturation='x'"),
    (lambda: T.RandomRotation(-5), ValueError, "degrees=-5"),
    (lambda: T.RandomRotation((1, 2, 3)), ValueError, r"degrees=\(1, 2, 3\)"),
    (lambda: T.RandomRotation(5, fill="red"), ValueError, "fill='red'"),
    (lambda: T.RandomAffine(5, translate=(0.5, 1.5)), ValueError, r"translate=\(0.5, 1.5\)"),
    (lambda: T.RandomAffine(5, scale=(0, 1)), ValueError, r"scale=\(0, 1\)"),
    (lambda: T.RandomAffine(5, shear=(1, 2, 3)), ValueError, r"shear=\(1, 2, 3\)"),
    (lambda: T.RandomAffine(5, interpolation="area"), ValueError, "interpolation='area'"),
    (lambda: T.RandomPerspective(prob=2), ValueError, "prob=2"),
    (lambda: T.RandomPerspective(distortion_scale=1.5), ValueError, "distortion_scale=1.5"),
    (lambda: T.RandomErasing(scale=(0.5, 1.5)), ValueError, r"scale=\(0.5, 1.5\)"),
    (lambda: T.RandomErasing(value="noise"), ValueError, "value='noise'"),
    (lambda: T.RandomErasing(value=(1, 2)), ValueError, r"value=\(1, 2\)"),
    (lambda: T.RandomErasing(prob=1.0, value=(1, 2, 3))(np.zeros((9, 9))), ValueError,
     "image has 1 channels"),
])
def test_bad_arguments_name_the_argument(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_pil_images_are_taken_and_numpy_arrays_returned():
    image_module = _pil()
    pil = image_module.fromarray(IMAGE)
    np.testing.assert_array_equal(F.rotate(pil, 90, expand=True), np.rot90(IMAGE))
    np.testing.assert_array_equal(F.adjust_brightness(pil, 0), 0)
    erased = F.erase(pil, 0, 0, 2, 2, 0, inplace=True)  # a PIL image is always copied
    assert isinstance(erased, np.ndarray) and (erased[:2, :2] == 0).all()
    assert np.asarray(pil)[0, 0].tolist() == IMAGE[0, 0].tolist()
    out = T.ColorJitter(0.3, 0.3, 0.3, 0.1)(pil)
    assert isinstance(out, np.ndarray) and out.shape == IMAGE.shape
