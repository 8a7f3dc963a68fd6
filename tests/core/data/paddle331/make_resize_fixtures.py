"""Store Paddle 3.3.1's resize and bicubic-warp results; run with a Python that has Paddle,
opencv-python(-headless) 5.0 and Pillow:

    /tmp/pdvenv/bin/python tests/core/data/paddle331/make_resize_fixtures.py

Writes ``misc/resize_cv2.npz``, replayed by tests/core/vision/test_transforms_interpolations.py.
Not collected by pytest and never imported by the tests: the project depends on neither Paddle
nor OpenCV.

- ``resize/<case>/{img,size,interpolation,out}``: ``paddle.vision.transforms.functional.resize``
  on numpy images, i.e. Paddle's cv2 backend (``cv2.resize`` with INTER_NEAREST, INTER_LINEAR,
  INTER_CUBIC, INTER_AREA, INTER_LANCZOS4). uint8 'bicubic' cases are made with
  ``cv2.ipp.setUseIPP(False)``: opencv-python's Intel IPP build computes INTER_CUBIC on
  images of 4 x 4 and more in floating point instead of OpenCV's own fixed point; the one
  ``ipp/<case>`` entry keeps that default result (core's differs by at most 1 there).
- ``warp/<case>/{img,out}``: 'bicubic' ``rotate`` / ``affine`` / ``perspective`` through
  Paddle's PIL backend (``Image.transform(..., BICUBIC)``) on RGB images, and Pillow's own
  ``Image.rotate`` on a gray one (Paddle 3.3.1's PIL ``rotate`` fails on mode 'L': it makes
  its fill a 3-tuple). core's warps follow the PIL backend's geometry and arithmetic.
"""
from __future__ import annotations

import os

import cv2
import numpy as np
import paddle
import paddle.vision.transforms.functional as PF
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "misc", "resize_cv2.npz")
RNG = np.random.default_rng(331)
DATA: dict[str, np.ndarray] = {}

# (name, input shape, size argument): upscale / downscale, whole and fractional factors,
# gray [H, W] and [H, W, 1], 3 and 4 channels, sides of 1, and an int size
SHAPES = [
    ("up_rgb", (7, 9, 3), (13, 17)),
    ("down_gray", (20, 17), (7, 9)),
    ("down_whole_c1", (16, 12, 1), (8, 4)),
    ("up_whole_rgba", (6, 5, 4), (12, 10)),
    ("mixed_rgb", (8, 18, 3), (19, 6)),
    ("from_1x1", (1, 1, 3), (3, 4)),
    ("to_1x1", (7, 5, 3), (1, 1)),
    ("halve_rgb", (12, 10, 3), (6, 5)),
    ("int_size", (12, 18, 3), 7),
]
INTERPOLATIONS = ("nearest", "bilinear", "bicubic", "area", "lanczos")


def resize_cases() -> None:
    for interpolation in INTERPOLATIONS:
        for name, shape, size in SHAPES:
            img = RNG.integers(0, 256, shape, dtype=np.uint8)
            cv2.ipp.setUseIPP(interpolation != "bicubic")  # OpenCV's own INTER_CUBIC
            store(f"resize/{interpolation}_{name}", img, size, interpolation)
        cv2.ipp.setUseIPP(True)
        img = (RNG.random((9, 7, 3)) * 255 - 20).astype(np.float32)
        store(f"resize/{interpolation}_float32", img, (5, 13), interpolation)
    img = RNG.integers(0, 256, (11, 14, 3), dtype=np.uint8)
    store("ipp/bicubic_up_rgb", img, (23, 19), "bicubic")


def store(key: str, img: np.ndarray, size, interpolation: str) -> None:
    DATA[f"{key}/img"] = img
    DATA[f"{key}/size"] = np.array(size, dtype=np.int64)
    DATA[f"{key}/interpolation"] = np.array(interpolation)
    DATA[f"{key}/out"] = np.asarray(PF.resize(img, size, interpolation))


def warp_cases() -> None:
    rgb = RNG.integers(0, 256, (14, 17, 3), dtype=np.uint8)
    pil = Image.fromarray(rgb)
    corners = ([[0, 0], [16, 0], [16, 13], [0, 13]], [[2, 1], [15, 0], [14, 12], [1, 13]])
    warps = {
        "rotate_30": lambda: PF.rotate(pil, 30, interpolation="bicubic"),
        "rotate_expand_-47": lambda: PF.rotate(pil, -47, interpolation="bicubic", expand=True),
        "rotate_center": lambda: PF.rotate(pil, 12.5, interpolation="bicubic", center=(3, 4)),
        "affine": lambda: PF.affine(pil, 20, (2, -1), 1.2, (8, -5), interpolation="bicubic"),
        "perspective": lambda: PF.perspective(pil, *corners, interpolation="bicubic"),
    }
    for name, warp in warps.items():
        DATA[f"warp/{name}/img"] = rgb
        DATA[f"warp/{name}/out"] = np.asarray(warp())
    gray = RNG.integers(0, 256, (13, 10), dtype=np.uint8)
    DATA["warp/rotate_gray/img"] = gray
    DATA["warp/rotate_gray/out"] = np.asarray(Image.fromarray(gray).rotate(-75, Image.BICUBIC))


def main() -> None:
    paddle.set_device("cpu")
    resize_cases()
    warp_cases()
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    np.savez_compressed(OUT, **DATA)
    print(f"{len(DATA)} arrays, {os.path.getsize(OUT)} bytes")


if __name__ == "__main__":
    main()
