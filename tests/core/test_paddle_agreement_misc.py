"""core against real Paddle 3.3.1's numbers: fft, signal/audio, distribution, geometric,
metric, text.viterbi_decode, vision.ops and vision.transforms.

The cases are tests/core/data/paddle331/agreement_cases.py, run here with core; Paddle's
results are in tests/core/data/paddle331/misc/agreement.npz (make_misc_fixtures.py beside it).
Where Paddle 3.3.1 is wrong, the last tests pin core's own behaviour (docs/paddle.md says why).
"""
from __future__ import annotations

import importlib.util
import os

import numpy as np
import pytest

import core

DATA = os.path.join(os.path.dirname(__file__), "data", "paddle331")


def _cases_module():
    spec = importlib.util.spec_from_file_location(
        "agreement_cases", os.path.join(DATA, "agreement_cases.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CASES = _cases_module()
EXPECTED = np.load(os.path.join(DATA, "misc", "agreement.npz"))

# float32 dB values (10 log10 of small powers) and FFT round trips differ in the last digits
_TOLERANCE = {"signal_audio": 2e-4}


def _case_ids():
    ids = []
    for area, make in CASES.ALL.items():
        ids += [(area, name) for name in make(core)]
    return ids


def _mismatches(area: str, name: str, result) -> list[str]:
    """How ``result`` differs from Paddle's arrays for this case: count, shape, dtype, values
    (floats to the area's tolerance, the rest exactly); empty when it agrees."""
    got = CASES.arrays(result)
    keys = sorted((k for k in EXPECTED.files if k.startswith(f"{area}/{name}/")),
                  key=lambda k: int(k.rsplit("/", 1)[1]))
    if len(got) != len(keys):
        return [f"{area}/{name}: {len(got)} arrays, Paddle gave {len(keys)}"]
    found = []
    for key, array in zip(keys, got):
        want = EXPECTED[key]
        if array.shape != want.shape:
            found.append(f"{key}: shape {array.shape}, Paddle {want.shape}")
        elif array.dtype != want.dtype:
            found.append(f"{key}: dtype {array.dtype}, Paddle {want.dtype}")
        elif want.dtype.kind in "fc":
            tol = _TOLERANCE.get(area, 2e-5)
            if not np.allclose(array, want, rtol=tol, atol=tol, equal_nan=True):
                found.append(f"{key}: values differ by up to "
                             f"{np.nanmax(np.abs(array - want))} (tolerance {tol})")
        elif not np.array_equal(array, want):
            found.append(f"{key}: values {array.ravel()[:8]}, Paddle {want.ravel()[:8]}")
    return found


@pytest.mark.parametrize("area,name", _case_ids(), ids=lambda v: str(v))
def test_agrees_with_paddle(area, name):
    assert _mismatches(area, name, CASES.ALL[area](core)[name]()) == []


def test_transforms_agree_with_paddle():
    Image = pytest.importorskip("PIL.Image")
    cases = CASES.transforms_cases(core, Image)
    assert len(cases) > 50
    found = [m for name, fn in cases.items() for m in _mismatches("transforms", name, fn())]
    assert found == []


def test_every_fixture_is_checked():
    names = {f"{area}/{name}/" for area, name in _case_ids()}
    names |= {f"transforms/{name}/" for name in CASES.transforms_cases(core, _FakeImage)}
    unchecked = [k for k in EXPECTED.files if k[:k.rindex("/") + 1] not in names]
    assert not unchecked


class _FakeImage:
    """Only the case names are read from ``transforms_cases`` here (no case runs)."""

    @staticmethod
    def fromarray(array):
        return array


# ----- where Paddle 3.3.1 is wrong, core's own numbers ------------------------------------------
def test_geometric_kl_is_the_geometric_one():
    # Paddle's Geometric.kl_divergence computes the Bernoulli KL p log(p/q) + (1-p)
    # log((1-p)/(1-q)) = 0.18378691 here; for failures before the first success it is
    # log(p/q) + (1-p)/p log((1-p)/(1-q)).
    p, q = 0.3, 0.6
    kl = core.distribution.kl_divergence(core.distribution.Geometric(core.to_tensor([p])),
                                         core.distribution.Geometric(core.to_tensor([q])))
    want = np.log(p / q) + (1 - p) / p * np.log((1 - p) / (1 - q))
    np.testing.assert_allclose(kl.numpy(), [want], rtol=1e-6)
    assert abs(want - 0.18378691) > 0.4


def test_nms_top_k_without_categories_keeps_top_k():
    # Paddle 3.3.1 ignores top_k when category_idxs is None (it returns every kept box).
    rng = np.random.default_rng(0)
    xy = rng.random((12, 2)) * 10
    boxes = np.concatenate([xy, xy + rng.random((12, 2)) * 5 + 0.5], 1).astype("float32")
    scores = rng.random(12).astype("float32")
    every = core.vision.ops.nms(core.to_tensor(boxes), 0.1, scores=core.to_tensor(scores))
    top = core.vision.ops.nms(core.to_tensor(boxes), 0.1, scores=core.to_tensor(scores),
                              top_k=3)
    assert len(every.numpy()) > 3
    np.testing.assert_array_equal(top.numpy(), every.numpy()[:3])


def test_pad_number_fill_fills_every_channel():
    # Paddle's cv2 and PIL backends both put a number fill into the first channel only
    # (cv2.copyMakeBorder's Scalar(7, 0, 0), PIL's packed colour 7); its docs say the number
    # is the fill value.
    image = np.zeros((2, 2, 3), dtype="uint8")
    out = core.vision.transforms.functional.pad(image, 1, fill=7)
    assert out.shape == (4, 4, 3)
    np.testing.assert_array_equal(out[0, 0], [7, 7, 7])
