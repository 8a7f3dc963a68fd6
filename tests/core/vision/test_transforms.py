"""core.vision.transforms: each transform against hand-computed values, Paddle's broadcasting
and padding rules, OpenCV-style resizing against torch, seeded randomness and argument errors."""
from __future__ import annotations

import numpy as np
import pytest

import core
from core.vision import transforms as T
from core.vision.transforms import functional as F

RNG = np.random.default_rng(0)


# ----- ToTensor, Normalize, Transpose ------------------------------------------------------------
def test_to_tensor_scales_uint8_and_moves_channels_first():
    img = np.arange(24, dtype=np.uint8).reshape(2, 4, 3)
    out = T.ToTensor()(img)
    assert out.shape == (3, 2, 4) and out.dtype == np.float32 and isinstance(out, np.ndarray)
    np.testing.assert_allclose(out[1, 1, 2], img[1, 2, 1] / 255.0, rtol=1e-6)
    np.testing.assert_allclose(T.ToTensor("HWC")(img), img / 255.0, rtol=1e-6)
    gray = T.ToTensor()(np.full((5, 6), 51, dtype=np.uint8))
    assert gray.shape == (1, 5, 6)
    np.testing.assert_allclose(gray, 0.2, rtol=1e-6)


def test_to_tensor_leaves_other_dtypes_unscaled_as_paddle():
    img = RNG.uniform(0, 255, size=(3, 4)).astype(np.float32)
    out = T.ToTensor()(img)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out[0], img)


def test_normalize_on_a_gray_image_gives_one_channel():
    img = np.array([[0.0, 127.5], [255.0, 51.0]], dtype=np.float32)
    out = T.Normalize(mean=[127.5], std=[127.5], data_format="CHW")(img)
    assert out.shape == (1, 2, 2) and out.dtype == np.float32
    np.testing.assert_allclose(out[0], [[-1.0, 0.0], [1.0, -0.6]], rtol=1e-6)


def test_normalize_broadcasts_a_single_number_to_three_channels_as_paddle():
    img = np.ones((2, 3), dtype=np.float32) * 10
    out = T.Normalize(mean=4.0, std=2.0)(img)  # Paddle: mean -> [4, 4, 4]
    assert out.shape == (3, 2, 3)
    np.testing.assert_allclose(out, 3.0)


def test_normalize_per_channel_in_both_layouts():
    hwc = RNG.uniform(0, 255, size=(4, 5, 3)).astype(np.float32)
    mean, std = [10.0, 20.0, 30.0], [2.0, 4.0, 5.0]
    expected = (hwc - np.array(mean)) / np.array(std)
    np.testing.assert_allclose(T.Normalize(mean, std, data_format="HWC")(hwc), expected,
                               rtol=1e-5)
    chw = hwc.transpose(2, 0, 1)
    np.testing.assert_allclose(T.Normalize(mean, std)(chw), expected.transpose(2, 0, 1),
                               rtol=1e-5)
    uint8 = (hwc).astype(np.uint8)
    assert T.Normalize(mean, std, data_format="HWC")(uint8).dtype == np.float32


def test_normalize_to_rgb_reverses_the_channel_axis():
    hwc = RNG.uniform(0, 255, size=(2, 3, 3)).astype(np.float32)
    mean, std = [1.0, 2.0, 3.0], [1.0, 1.0, 1.0]
    out = T.Normalize(mean, std, data_format="HWC", to_rgb=True)(hwc)
    np.testing.assert_allclose(out, hwc[..., ::-1] - np.array(mean), rtol=1e-6)
    out = T.Normalize(mean, std, data_format="CHW", to_rgb=True)(hwc.transpose(2, 0, 1))
    np.testing.assert_allclose(out, hwc.transpose(2, 0, 1)[::-1] - np.array(mean)[:, None, None],
                               rtol=1e-6)


def test_transpose():
    img = RNG.integers(0, 255, size=(2, 3, 4)).astype(np.uint8)
    np.testing.assert_array_equal(T.Transpose()(img), img.transpose(2, 0, 1))
    assert T.Transpose()(np.zeros((5, 6))).shape == (1, 5, 6)
    assert T.Transpose((1, 0, 2))(img).shape == (3, 2, 4)


# ----- Resize ------------------------------------------------------------------------------------
def test_resize_bilinear_by_hand():
    img = np.array([[0.0, 10.0]])
    # sources (d + 0.5) * 2/4 - 0.5 = -0.25 (-> 0), 0.25, 0.75, 1.25 (-> edge)
    np.testing.assert_allclose(F.resize(img, (1, 4)), [[0.0, 2.5, 7.5, 10.0]])
    np.testing.assert_allclose(F.resize(np.array([[0.0, 4.0, 8.0, 12.0]]), (1, 2)),
                               [[2.0, 10.0]])  # sources 0.5 and 2.5: no antialiasing


@pytest.mark.parametrize("shape, size", [((5, 7), (9, 4)), ((6, 6, 3), (4, 11)),
                                         ((8, 5, 1), (8, 13))])
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
def test_resize_matches_torch_interpolate(shape, size, mode):
    torch = pytest.importorskip("torch")
    img = RNG.standard_normal(shape)
    out = F.resize(img, size, mode)
    chw = img[None, None] if img.ndim == 2 else img.transpose(2, 0, 1)[None]
    kwargs = {"align_corners": False, "antialias": False} if mode == "bilinear" else {}
    ref = torch.nn.functional.interpolate(torch.from_numpy(chw), size=size, mode=mode,
                                          **kwargs)[0].numpy()
    ref = ref[0] if img.ndim == 2 else ref.transpose(1, 2, 0)
    assert out.shape == ref.shape
    np.testing.assert_allclose(out, ref, rtol=1e-10, atol=1e-12)


def test_resize_int_size_matches_the_shorter_side_and_keeps_integer_dtypes():
    img = RNG.integers(0, 256, size=(20, 10, 3)).astype(np.uint8)
    out = T.Resize(5)(img)
    assert out.shape == (10, 5, 3) and out.dtype == np.uint8
    assert T.Resize(7)(np.zeros((10, 21))).shape == (7, 14)  # int(7 * 21 / 10)
    same = np.zeros((10, 12))
    assert T.Resize(10)(same) is same
    np.testing.assert_array_equal(F.resize(np.array([[0, 255]], np.uint8), (1, 4)),
                                  [[0, 64, 191, 255]])  # 63.75 and 191.25 rounded


# ----- Pad, crops, flips, grayscale --------------------------------------------------------------
def test_pad_modes_follow_paddle_docstring():
    row = np.array([[1, 2, 3, 4]])
    assert F.pad(row, (2, 0), padding_mode="reflect")[0].tolist() == [3, 2, 1, 2, 3, 4, 3, 2]
    assert F.pad(row, (2, 0), padding_mode="symmetric")[0].tolist() == [2, 1, 1, 2, 3, 4, 4, 3]
    assert F.pad(row, (2, 0), padding_mode="edge")[0].tolist() == [1, 1, 1, 2, 3, 4, 4, 4]
    assert F.pad(row, (1, 0), fill=9)[0].tolist() == [9, 1, 2, 3, 4, 9]


def test_pad_sides_and_per_channel_fill():
    img = np.ones((2, 3, 3), dtype=np.uint8)
    out = T.Pad((1, 2, 3, 4), fill=[5, 6, 7])(img)  # left, top, right, bottom
    assert out.shape == (2 + 2 + 4, 3 + 1 + 3, 3) and out.dtype == np.uint8
    np.testing.assert_array_equal(out[2:4, 1:4], img)
    np.testing.assert_array_equal(out[0, 0], [5, 6, 7])
    assert T.Pad(2)(np.zeros((3, 3))).shape == (7, 7)
    assert T.Pad([1, 2])(np.zeros((3, 3))).shape == (7, 5)  # left/right 1, top/bottom 2


def test_center_crop_rounds_halves_to_even_as_paddle():
    img = np.arange(25).reshape(5, 5)
    # top = round((5 - 2) / 2) = round(1.5) = 2
    np.testing.assert_array_equal(T.CenterCrop(2)(img), img[2:4, 2:4])
    np.testing.assert_array_equal(T.CenterCrop((3, 1))(img), img[1:4, 2:3])


def test_random_crop_is_a_window_of_the_padded_image_and_repeats_with_core_seed():
    img = np.arange(36, dtype=np.float64).reshape(6, 6)
    crop = T.RandomCrop(4, padding=1)
    padded = F.pad(img, 1)
    core.seed(7)
    first = [crop(img) for _ in range(20)]
    windows = {(i, j) for i in range(5) for j in range(5)}
    seen = set()
    for out in first:
        hits = [(i, j) for i, j in windows if np.array_equal(out, padded[i:i + 4, j:j + 4])]
        assert len(hits) == 1
        seen.add(hits[0])
    assert len(seen) > 5  # the corner really moves
    core.seed(7)
    again = [crop(img) for _ in range(20)]
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    assert T.RandomCrop((5, 8), pad_if_needed=True)(np.ones((3, 4))).shape == (5, 8)


def test_flips_apply_with_probability_and_alike_to_image_and_mask():
    img = np.arange(6).reshape(2, 3)
    np.testing.assert_array_equal(T.RandomHorizontalFlip(1.0)(img), img[:, ::-1])
    np.testing.assert_array_equal(T.RandomVerticalFlip(1.0)(img), img[::-1])
    np.testing.assert_array_equal(T.RandomHorizontalFlip(0.0)(img), img)
    core.seed(1)
    flip = T.RandomHorizontalFlip(0.3)
    flipped = sum(not np.array_equal(flip(img), img) for _ in range(2000))
    assert 500 < flipped < 700  # 600 expected, sd ~ 20
    both = T.RandomHorizontalFlip(0.5, keys=("image", "mask"))
    for _ in range(10):
        out_img, out_mask, extra = both((img, img.copy(), "label"))
        np.testing.assert_array_equal(out_img, out_mask)
        assert extra == "label"


class _FlipSet(core.io.Dataset):
    """Samples 0..n-1, each the row [0, 1] flipped at random: the sample says if it was."""

    def __init__(self, n):
        self.n, self.flip = n, T.RandomHorizontalFlip(0.5)

    def __getitem__(self, index):
        return self.flip(np.array([[0, 1]]))[0, 0]

    def __len__(self):
        return self.n


def test_flips_in_worker_processes_differ_between_workers_and_passes():
    core.seed(2)
    loader = core.io.DataLoader(_FlipSet(64), batch_size=8, workers=2)
    first, second = (np.concatenate(list(loader)) for _ in range(2))
    by_worker = first.reshape(4, 2, 8)  # batch b is loaded by worker b % 2
    assert not np.array_equal(by_worker[:, 0], by_worker[:, 1])  # equal: p = 2**-32
    assert not np.array_equal(first, second)
    assert 16 < first.sum() < 48


def test_grayscale_by_hand():
    img = np.array([[[255, 0, 0], [0, 255, 0], [0, 0, 255], [10, 20, 30]]], dtype=np.uint8)
    out = T.Grayscale()(img)
    assert out.shape == (1, 4, 1) and out.dtype == np.uint8
    # 0.299 * 255 = 76.2, 0.587 * 255 = 149.7, 0.114 * 255 = 29.1, 2.99 + 11.74 + 3.42 = 18.15
    assert out[0, :, 0].tolist() == [76, 150, 29, 18]
    three = T.Grayscale(3)(img)
    assert three.shape == (1, 4, 3) and (three == out).all()


# ----- BaseTransform and Compose -----------------------------------------------------------------
class AddOffset(T.BaseTransform):
    """A user transform: adds one random offset to the image and to the 'points' key."""

    def _get_params(self, inputs):
        return float(core.backend.rng().integers(1, 100))

    def _apply_image(self, image):
        return image + self.params

    def _apply_points(self, points):
        return points + self.params


def test_base_transform_lets_users_write_their_own():
    out = AddOffset()(np.zeros(2))
    assert out[0] == out[1] >= 1
    image, points = AddOffset(keys=("image", "points"))((np.zeros(2), np.zeros(3)))
    assert image[0] == points[0] >= 1
    with pytest.raises(NotImplementedError, match="'boxes'"):
        AddOffset(keys=("image", "boxes"))


def test_compose_chains_in_order():
    img = np.arange(12, dtype=np.uint8).reshape(3, 4)
    out = T.Compose([T.CenterCrop(2), T.ToTensor(), T.Normalize([0.5], [0.5])])(img)
    expected = (img[0:2, 1:3] / 255.0 - 0.5) / 0.5  # top round(0.5) = 0, left round(1) = 1
    np.testing.assert_allclose(out[0], expected, rtol=1e-6)
    assert "CenterCrop" in repr(T.Compose([T.CenterCrop(2)]))


# ----- errors ------------------------------------------------------------------------------------
@pytest.mark.parametrize("build, match", [
    (lambda: T.ToTensor(data_format="NCHW"), "data_format='NCHW'"),
    (lambda: T.Normalize([1.0], [0.0]), "std="),
    (lambda: T.Normalize("a", [1.0]), "mean='a'"),
    (lambda: T.Normalize([1.0], [1.0], data_format="hwc"), "data_format='hwc'"),
    (lambda: T.Transpose((0, 0, 1)), "order="),
    (lambda: T.Resize(0), "size=0"),
    (lambda: T.Resize((2, 3, 4)), "size="),
    (lambda: T.Resize(4, interpolation="cubic"), "interpolation='cubic'"),
    (lambda: T.CenterCrop(-1), "size=-1"),
    (lambda: T.Pad(-1), "padding=-1"),
    (lambda: T.Pad((1, 2, 3)), "padding="),
    (lambda: T.Pad(1, padding_mode="wrap"), "padding_mode='wrap'"),
    (lambda: T.RandomCrop(3, padding_mode="zeros"), "padding_mode='zeros'"),
    (lambda: T.RandomHorizontalFlip(1.5), "prob=1.5"),
    (lambda: T.RandomVerticalFlip(-0.1), "prob=-0.1"),
    (lambda: T.Grayscale(2), "num_output_channels=2"),
    (lambda: T.BaseTransform(keys="image"), "keys='image'"),
])
def test_bad_arguments_name_the_argument(build, match):
    with pytest.raises(ValueError, match=match):
        build()


def test_bad_inputs_are_explained():
    with pytest.raises(TypeError, match="numpy array"):
        T.ToTensor()(core.to_tensor(np.zeros((2, 2))))
    with pytest.raises(ValueError, match=r"\[H, W\]"):
        F.hflip(np.zeros(3))
    with pytest.raises(ValueError, match="larger than"):
        T.CenterCrop(5)(np.zeros((4, 4)))
    with pytest.raises(ValueError, match="pad_if_needed"):
        T.RandomCrop(5)(np.zeros((4, 4)))
    with pytest.raises(ValueError, match="fill="):
        T.Pad(1, fill=(1, 2))(np.zeros((2, 2, 3)))
    with pytest.raises(ValueError, match="RGB"):
        T.Grayscale()(np.zeros((2, 2)))
    with pytest.raises(TypeError, match="callables"):
        T.Compose(T.ToTensor())
    with pytest.raises(NotImplementedError, match="_apply_image"):
        T.BaseTransform()(np.zeros(2))
