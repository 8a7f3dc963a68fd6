"""core.vision.ops, Paddle's detection operators: each op against a direct, loop-by-loop numpy
transcription of Paddle 3.x's CPU kernel (brute-force greedy NMS; per box, bin and sample for
the RoI ops; per pixel for yolo_box, prior_box and deformable convolution), float64
finite-difference gradients of the differentiable ones, deform_conv2d against conv2d with zero
offsets, box_coder's encode / decode round trip, the layers, and argument errors."""
from __future__ import annotations

import math

import numpy as np
import pytest

import core
from core.vision import ops
from tests.gradcheck import check_grad

RNG = np.random.default_rng(7)


def _t(a, dtype=None):
    return core.to_tensor(np.asarray(a) if dtype is None else np.asarray(a, dtype=dtype))


def _random_boxes(rng, n, size, low=1.0, high=None):
    high = size / 2 if high is None else high
    xy = rng.uniform(0, size * 0.7, (n, 2))
    wh = rng.uniform(low, high, (n, 2))
    return np.concatenate([xy, xy + wh], axis=1)


# ----- nms ---------------------------------------------------------------------------------------
def _iou(a, b):
    w = max(min(a[2], b[2]) - max(a[0], b[0]), 0)
    h = max(min(a[3], b[3]) - max(a[1], b[1]), 0)
    inter = w * h
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


def _nms_reference(boxes, threshold, order):
    kept = []
    for i in order:
        if all(_iou(boxes[i], boxes[j]) <= threshold for j in kept):
            kept.append(i)
    return kept


@pytest.mark.parametrize("threshold", [0.1, 0.3, 0.7])
def test_nms_matches_brute_force(threshold):
    rng = np.random.default_rng(1)
    boxes = _random_boxes(rng, 40, 20.0)
    scores = rng.uniform(size=40)
    got = ops.nms(_t(boxes), threshold).numpy()
    assert got.dtype == np.int64
    assert got.tolist() == _nms_reference(boxes, threshold, range(40))
    got = ops.nms(_t(boxes), threshold, scores=_t(scores)).numpy()
    assert got.tolist() == _nms_reference(boxes, threshold, np.argsort(-scores))


def test_nms_paddle_docstring_example():
    boxes = np.array([[0.86583614, 0.52014720, 1.12544549, 1.42540050],
                      [0.42400089, 0.40641287, 1.39420986, 1.15078652],
                      [0.51785129, 0.73292869, 1.49571705, 0.77608776],
                      [0.42639419, 0.71958369, 0.63450879, 0.91689879]], dtype=np.float32)
    assert ops.nms(_t(boxes), 0.1).numpy().tolist() == [0, 2, 3]
    out = ops.nms(_t(boxes), 0.1, _t([0.6, 0.7, 0.4, 0.233], "float32"),
                  _t([2, 0, 0, 3], "int64"), [0, 1, 2, 3], 4)
    assert out.numpy().tolist() == [1, 0, 2, 3]


def test_nms_by_category_top_k_and_unlisted_categories():
    rng = np.random.default_rng(2)
    boxes = _random_boxes(rng, 30, 10.0)
    scores = rng.uniform(size=30)
    labels = rng.integers(0, 3, size=30)
    kept = []
    for label in (0, 2):  # category 1 is not listed: its boxes are dropped
        idx = np.nonzero(labels == label)[0]
        kept += [int(idx[i]) for i in _nms_reference(boxes[idx], 0.3,
                                                     np.argsort(-scores[idx], kind="stable"))]
    want = sorted(kept, key=lambda i: -scores[i])
    got = ops.nms(_t(boxes), 0.3, _t(scores), _t(labels, "int64"), [0, 2]).numpy().tolist()
    assert got == want
    got = ops.nms(_t(boxes), 0.3, _t(scores), _t(labels, "int64"), [0, 2], top_k=3)
    assert got.numpy().tolist() == want[:3]
    assert ops.nms(_t(boxes), 0.3, _t(scores), top_k=2).numpy().tolist() == \
        _nms_reference(boxes, 0.3, np.argsort(-scores))[:2]


def test_nms_torchvision_if_available():
    torch = pytest.importorskip("torch")
    torchvision = pytest.importorskip("torchvision")
    rng = np.random.default_rng(3)
    boxes, scores = _random_boxes(rng, 50, 30.0), rng.uniform(size=50)
    want = torchvision.ops.nms(torch.tensor(boxes), torch.tensor(scores), 0.4).numpy()
    assert ops.nms(_t(boxes), 0.4, _t(scores)).numpy().tolist() == want.tolist()


def test_nms_errors():
    boxes = _t(np.zeros((3, 4)))
    with pytest.raises(ValueError, match=r"nms: 'boxes' must have shape \[num_boxes, 4\]"):
        ops.nms(_t(np.zeros((3, 5))))
    with pytest.raises(ValueError, match="nms: scores has 2 entries for 3 boxes"):
        ops.nms(boxes, scores=_t(np.zeros(2)))
    with pytest.raises(ValueError, match="categories .* is required"):
        ops.nms(boxes, scores=_t(np.zeros(3)), category_idxs=_t([0, 0, 0], "int64"))
    with pytest.raises(ValueError, match=r"nms: top_k=4 must be an int in 1 \.\. 3"):
        ops.nms(boxes, scores=_t(np.zeros(3)), top_k=4)
    with pytest.raises(TypeError, match="nms: iou_threshold='a' must be a number"):
        ops.nms(boxes, "a")
    with pytest.raises(TypeError, match="'boxes' must be a core.Tensor"):
        ops.nms(np.zeros((3, 4)))


def _jaccard(a, b, normalized):
    def area(box):
        if box[2] < box[0] or box[3] < box[1]:
            return 0.0
        w, h = box[2] - box[0], box[3] - box[1]
        return w * h if normalized else (w + 1) * (h + 1)

    if b[0] > a[2] or b[2] < a[0] or b[1] > a[3] or b[3] < a[1]:
        return 0.0
    norm = 0.0 if normalized else 1.0
    inter = (min(a[2], b[2]) - max(a[0], b[0]) + norm) * (min(a[3], b[3]) - max(a[1], b[1])
                                                          + norm)
    return inter / (area(a) + area(b) - inter)


def _matrix_nms_reference(boxes, scores, thresh, post, top_k, keep, gaussian, sigma, bg,
                          normalized):
    """Paddle's MatrixNMSKernel (phi/kernels/cpu/matrix_nms_kernel.cc), loop for loop."""
    out, index, counts = [], [], []
    n, classes, m = scores.shape
    for i in range(n):
        dets = []
        for c in range(classes):
            if c == bg:
                continue
            s = scores[i, c]
            perm = [j for j in np.argsort(-s, kind="stable") if s[j] > thresh]
            perm = perm[:top_k] if top_k > -1 else perm
            ious = {(a, b): _jaccard(boxes[i, perm[a]], boxes[i, perm[b]], normalized)
                    for a in range(len(perm)) for b in range(a)}
            iou_max = [max([ious[(a, b)] for b in range(a)], default=0.0)
                       for a in range(len(perm))]
            for a, j in enumerate(perm):
                decay = 1.0
                for b in range(a):
                    iou, mx = ious[(a, b)], iou_max[b]
                    d = math.exp((mx * mx - iou * iou) * sigma) if gaussian else \
                        (1 - iou) / (1 - mx)
                    decay = min(decay, d)
                if decay * s[j] > post:
                    dets.append((decay * s[j], c, j))
        dets = sorted(dets, key=lambda d: -d[0])
        dets = dets[:keep] if keep > -1 else dets
        out += [[c, score, *boxes[i, j]] for score, c, j in dets]
        index += [i * m + j for _, _, j in dets]
        counts.append(len(dets))
    return np.array(out).reshape(-1, 6), np.array(index), np.array(counts)


@pytest.mark.parametrize("gaussian", [False, True])
@pytest.mark.parametrize("normalized", [True, False])
def test_matrix_nms_matches_reference(gaussian, normalized):
    rng = np.random.default_rng(15)
    boxes = np.stack([_random_boxes(rng, 12, 10.0, 0.5, 6.0) for _ in range(2)])
    scores = rng.uniform(size=(2, 3, 12))
    out, num, index = ops.matrix_nms(_t(boxes), _t(scores), 0.3, 0.2, 6, 7,
                                     use_gaussian=gaussian, gaussian_sigma=0.8,
                                     background_label=0, normalized=normalized,
                                     return_index=True)
    want_out, want_index, want_num = _matrix_nms_reference(boxes, scores, 0.3, 0.2, 6, 7,
                                                           gaussian, 0.8, 0, normalized)
    np.testing.assert_allclose(out.numpy(), want_out, rtol=1e-12)
    assert index.numpy().dtype == np.int32 and num.numpy().dtype == np.int32
    assert index.numpy()[:, 0].tolist() == want_index.tolist()
    assert num.numpy().tolist() == want_num.tolist()
    out, num, index = ops.matrix_nms(_t(boxes), _t(scores), 0.3, 0.2, -1, -1,
                                     background_label=-1, return_rois_num=False)
    assert num is None and index is None
    want_out, _, _ = _matrix_nms_reference(boxes, scores, 0.3, 0.2, -1, -1, False, 2.0, -1,
                                           True)
    np.testing.assert_allclose(out.numpy(), want_out, rtol=1e-12)


def test_matrix_nms_nothing_kept_and_errors():
    boxes, scores = _t(np.zeros((2, 3, 4))), _t(np.zeros((2, 2, 3)))
    out, num, _ = ops.matrix_nms(boxes, scores, 0.5, 0.1, -1, -1)
    assert out.shape == [0, 6] and num.numpy().tolist() == [0, 0]
    with pytest.raises(ValueError, match=r"matrix_nms: bboxes \[N, M, 4\] and scores "
                                         r"\[N, C, M\] must agree"):
        ops.matrix_nms(boxes, _t(np.zeros((2, 2, 4))), 0.5, 0.1, -1, -1)
    with pytest.raises(ValueError, match="matrix_nms: keep_top_k=-2 must be an int >= -1"):
        ops.matrix_nms(boxes, scores, 0.5, 0.1, -1, -2)


# ----- roi_align ---------------------------------------------------------------------------------
def _bilinear(plane, y, x):
    """Paddle's roi_align sample (phi/kernels/cpu/roi_align_kernel.cc)."""
    h, w = plane.shape
    if y < -1.0 or y > h or x < -1.0 or x > w:
        return 0.0
    y, x = max(y, 0.0), max(x, 0.0)
    yl, xl = int(y), int(x)
    if yl >= h - 1:
        yh = yl = h - 1
        y = float(yl)
    else:
        yh = yl + 1
    if xl >= w - 1:
        xh = xl = w - 1
        x = float(xl)
    else:
        xh = xl + 1
    ry, rx = yh - y, xh - x
    return (ry * rx * plane[yl, xl] + ry * (1 - rx) * plane[yl, xh]
            + (1 - ry) * rx * plane[yh, xl] + (1 - ry) * (1 - rx) * plane[yh, xh])


def _roi_align_reference(x, boxes, boxes_num, size, scale, ratio, aligned):
    ph, pw = size
    ids = np.repeat(np.arange(len(boxes_num)), boxes_num)
    out = np.zeros((len(boxes), x.shape[1], ph, pw))
    shift = 0.5 if aligned else 0.0
    for r, box in enumerate(boxes):
        x1, y1, x2, y2 = box * scale - shift
        rw, rh = x2 - x1, y2 - y1
        if not aligned:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        gh = ratio if ratio > 0 else int(math.ceil(rh / ph))
        gw = ratio if ratio > 0 else int(math.ceil(rw / pw))
        for c in range(x.shape[1]):
            plane = x[ids[r], c]
            for i in range(ph):
                for j in range(pw):
                    total = 0.0
                    for iy in range(gh):
                        yy = y1 + rh / ph * (i + (iy + 0.5) / gh)
                        for ix in range(gw):
                            xx = x1 + rw / pw * (j + (ix + 0.5) / gw)
                            total += _bilinear(plane, yy, xx)
                    out[r, c, i, j] = total / max(gh * gw, 1)
    return out


@pytest.mark.parametrize("aligned", [True, False])
@pytest.mark.parametrize("ratio", [-1, 2])
def test_roi_align_matches_reference(aligned, ratio):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 3, 9, 11))
    boxes = np.concatenate([_random_boxes(rng, 5, 16.0, 0.5, 12.0),
                            [[-3.0, -2.0, 4.0, 30.0], [10.0, 12.0, 40.0, 19.0]]])
    boxes_num = [3, 4]
    got = ops.roi_align(_t(x), _t(boxes), _t(boxes_num, "int32"), (3, 2), spatial_scale=0.5,
                        sampling_ratio=ratio, aligned=aligned)
    assert got.shape == [7, 3, 3, 2]
    want = _roi_align_reference(x, boxes, boxes_num, (3, 2), 0.5, ratio, aligned)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)


def test_roi_align_empty_image_and_degenerate_box():
    x = RNG.standard_normal((2, 2, 5, 5))
    boxes = np.array([[2.0, 2.0, 2.0, 2.0]])  # aligned: zero size, no samples: 0 (Paddle GPU)
    out = ops.roi_align(_t(x), _t(boxes), _t([0, 1], "int64"), 2)
    np.testing.assert_array_equal(out.numpy(), np.zeros((1, 2, 2, 2)))


def test_roi_align_gradient():
    x = RNG.standard_normal((2, 2, 6, 7))
    boxes = np.array([[0.3, 0.7, 4.1, 5.2], [1.2, 0.4, 6.3, 3.9], [-0.6, 2.2, 3.3, 6.6]])
    num = _t([1, 2], "int32")
    check_grad(lambda t: ops.roi_align(t, _t(boxes), num, (2, 3), 1.0, 2), x)
    check_grad(lambda t: ops.roi_align(t, _t(boxes), num, 2, 0.8, -1, False), x)


def test_roi_align_layer_and_float32():
    x = RNG.standard_normal((1, 4, 8, 8)).astype(np.float32)
    boxes = np.array([[1.0, 1.0, 6.0, 5.0]], dtype=np.float32)
    layer = ops.RoIAlign((4, 3), spatial_scale=1.0)
    out = layer(_t(x), _t(boxes), _t([1], "int32"), aligned=False)
    assert out.shape == [1, 4, 4, 3] and out.dtype == np.float32
    want = _roi_align_reference(x.astype(np.float64), boxes, [1], (4, 3), 1.0, -1, False)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-6)
    assert "output_size=(4, 3)" in repr(layer)


def test_roi_align_torchvision_if_available():
    torch = pytest.importorskip("torch")
    torchvision = pytest.importorskip("torchvision")
    x = RNG.standard_normal((1, 2, 10, 10))
    boxes = np.array([[1.0, 2.0, 7.5, 8.0]])
    want = torchvision.ops.roi_align(torch.tensor(x), [torch.tensor(boxes)], (3, 3), 1.0, 2,
                                     aligned=True).numpy()
    got = ops.roi_align(_t(x), _t(boxes), _t([1], "int32"), 3, 1.0, 2, True).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


# ----- roi_pool ----------------------------------------------------------------------------------
def _c_round(v):
    return math.floor(v + 0.5) if v >= 0 else -math.floor(-v + 0.5)


def _roi_pool_reference(x, boxes, boxes_num, size, scale):
    ph, pw = size
    _, c, h, w = x.shape
    ids = np.repeat(np.arange(len(boxes_num)), boxes_num)
    out = np.zeros((len(boxes), c, ph, pw))
    for r, box in enumerate(boxes):
        sw, sh, ew, eh = (_c_round(v * scale) for v in box)
        bh, bw = max(eh - sh + 1, 1), max(ew - sw + 1, 1)
        size_h, size_w = np.float32(bh) / np.float32(ph), np.float32(bw) / np.float32(pw)
        for i in range(ph):
            for j in range(pw):
                hs = min(max(int(np.floor(np.float32(i) * size_h)) + sh, 0), h)
                he = min(max(int(np.ceil(np.float32(i + 1) * size_h)) + sh, 0), h)
                ws = min(max(int(np.floor(np.float32(j) * size_w)) + sw, 0), w)
                we = min(max(int(np.ceil(np.float32(j + 1) * size_w)) + sw, 0), w)
                if he <= hs or we <= ws:
                    continue
                out[r, :, i, j] = x[ids[r], :, hs:he, ws:we].max(axis=(1, 2))
    return out


def test_roi_pool_matches_reference():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 3, 12, 10))
    boxes = np.concatenate([_random_boxes(rng, 6, 20.0, 0.5, 14.0),
                            [[-5.0, -5.0, 3.0, 2.0], [30.0, 30.0, 40.0, 40.0], [5, 5, 4, 3]]])
    num = [4, 5]
    got = ops.roi_pool(_t(x), _t(boxes), _t(num, "int32"), (3, 4), spatial_scale=0.5)
    np.testing.assert_array_equal(got.numpy(), _roi_pool_reference(x, boxes, num, (3, 4), 0.5))


def test_roi_pool_gradient_and_ties():
    x = RNG.standard_normal((1, 2, 7, 6))
    boxes = np.array([[0.0, 0.0, 4.0, 5.0], [2.0, 1.0, 5.0, 6.0]])
    check_grad(lambda t: ops.roi_pool(t, _t(boxes), _t([2], "int32"), 2), x)
    flat = np.ones((1, 1, 4, 4))  # every pixel ties: the first of each bin gets the gradient
    t = core.to_tensor(flat, stop_gradient=False)
    ops.roi_pool(t, _t([[0.0, 0.0, 3.0, 3.0]]), _t([1], "int32"), 2).sum().backward()
    want = np.zeros((4, 4))
    want[[0, 0, 2, 2], [0, 2, 0, 2]] = 1
    np.testing.assert_array_equal(t.gradient()[0, 0], want)


def test_roi_pool_layer():
    layer = ops.RoIPool(output_size=(4, 3))
    x = RNG.standard_normal((1, 2, 8, 8)).astype(np.float32)
    out = layer(_t(x), _t([[1.0, 1.0, 6.0, 7.0]], "float32"), _t([1], "int32"))
    assert out.shape == [1, 2, 4, 3]
    np.testing.assert_allclose(out.numpy(), _roi_pool_reference(
        x, np.array([[1.0, 1.0, 6.0, 7.0]]), [1], (4, 3), 1.0), rtol=1e-6)
    assert "spatial_scale=1.0" in repr(layer)


# ----- psroi_pool --------------------------------------------------------------------------------
def _psroi_reference(x, boxes, boxes_num, size, scale):
    ph, pw = size
    _, c, h, w = x.shape
    cout = c // (ph * pw)
    ids = np.repeat(np.arange(len(boxes_num)), boxes_num)
    out = np.zeros((len(boxes), cout, ph, pw))
    for r, box in enumerate(boxes):
        sw, sh = _c_round(box[0]) * scale, _c_round(box[1]) * scale
        ew, eh = (_c_round(box[2]) + 1.0) * scale, (_c_round(box[3]) + 1.0) * scale
        rh, rw = max(eh - sh, 0.1), max(ew - sw, 0.1)
        bh, bw = rh / ph, rw / pw
        for k in range(cout):
            for i in range(ph):
                for j in range(pw):
                    hs = min(max(math.floor(i * bh + sh), 0), h)
                    ws = min(max(math.floor(j * bw + sw), 0), w)
                    he = min(max(math.ceil((i + 1) * bh + sh), 0), h)
                    we = min(max(math.ceil((j + 1) * bw + sw), 0), w)
                    if he <= hs or we <= ws:
                        continue
                    plane = x[ids[r], (k * ph + i) * pw + j]
                    out[r, k, i, j] = plane[hs:he, ws:we].sum() / ((he - hs) * (we - ws))
    return out


def test_psroi_pool_matches_reference_and_gradient():
    rng = np.random.default_rng(6)
    x = rng.standard_normal((2, 12, 9, 8))
    boxes = np.concatenate([_random_boxes(rng, 4, 14.0, 0.5, 10.0), [[-4.0, 3.0, 30.0, 5.0]]])
    num = _t([2, 3], "int32")
    got = ops.psroi_pool(_t(x), _t(boxes), num, (2, 3), 0.6)
    assert got.shape == [5, 2, 2, 3]
    np.testing.assert_allclose(got.numpy(), _psroi_reference(x, boxes, [2, 3], (2, 3), 0.6),
                               rtol=1e-12, atol=1e-12)
    small = rng.standard_normal((1, 8, 5, 6))
    check_grad(lambda t: ops.psroi_pool(t, _t(boxes[:2]), _t([2], "int32"), 2, 0.5), small)
    layer = ops.PSRoIPool(2, 0.5)
    np.testing.assert_allclose(layer(_t(small), _t(boxes[:2]), _t([2], "int32")).numpy(),
                               _psroi_reference(small, boxes[:2], [2], (2, 2), 0.5))


def test_roi_ops_errors():
    x, boxes = _t(np.zeros((2, 4, 5, 5))), _t(np.zeros((3, 4)))
    with pytest.raises(ValueError, match="roi_align: boxes_num has 1 entries but x holds 2"):
        ops.roi_align(x, boxes, _t([3], "int32"), 2)
    with pytest.raises(ValueError, match=r"roi_pool: boxes_num=\[1, 1\] must be counts >= 0 "
                                         "that add up to the number of boxes, 3"):
        ops.roi_pool(x, boxes, _t([1, 1], "int32"), 2)
    with pytest.raises(ValueError, match="roi_align: boxes_num must be given"):
        ops.roi_align(x, boxes, None, 2)
    with pytest.raises(TypeError, match="'boxes_num' must be an int tensor"):
        ops.roi_align(x, boxes, _t([1.0, 2.0]), 2)
    with pytest.raises(ValueError, match=r"roi_align: output_size=0 must be a positive int"):
        ops.roi_align(x, boxes, _t([1, 2], "int32"), 0)
    with pytest.raises(ValueError, match="roi_align: spatial_scale=-1.0 must be a positive"):
        ops.roi_align(x, boxes, _t([1, 2], "int32"), 2, spatial_scale=-1.0)
    with pytest.raises(ValueError, match="roi_align: sampling_ratio=1.5 must be an int"):
        ops.roi_align(x, boxes, _t([1, 2], "int32"), 2, sampling_ratio=1.5)
    with pytest.raises(ValueError, match="psroi_pool: x has 4 channels, which must be a "
                                         "multiple of output_size h \\* w = 9"):
        ops.psroi_pool(x, boxes, _t([1, 2], "int32"), 3)
    with pytest.raises(ValueError, match=r"roi_pool: 'x' must be 4-D"):
        ops.roi_pool(_t(np.zeros((4, 5, 5))), boxes, _t([1, 2], "int32"), 2)
    with pytest.raises(ValueError, match="RoIAlign: output_size=\\(2, 0\\)"):
        ops.RoIAlign((2, 0))


# ----- box_coder ---------------------------------------------------------------------------------
def _encode_reference(prior, var, target, normalized):
    off = 0.0 if normalized else 1.0
    out = np.zeros((len(target), len(prior), 4))
    for i, t in enumerate(target):
        for j, p in enumerate(prior):
            pw, ph = p[2] - p[0] + off, p[3] - p[1] + off
            pcx, pcy = p[0] + pw / 2, p[1] + ph / 2
            tcx, tcy = (t[0] + t[2]) / 2, (t[1] + t[3]) / 2
            tw, th = t[2] - t[0] + off, t[3] - t[1] + off
            v = var[j] if var is not None and np.ndim(var) == 2 else (
                var if var is not None else np.ones(4))
            out[i, j] = [(tcx - pcx) / pw / v[0], (tcy - pcy) / ph / v[1],
                         math.log(abs(tw / pw)) / v[2], math.log(abs(th / ph)) / v[3]]
    return out


@pytest.mark.parametrize("normalized", [True, False])
def test_box_coder_encode_matches_reference(normalized):
    rng = np.random.default_rng(8)
    prior, target = _random_boxes(rng, 5, 10.0), _random_boxes(rng, 3, 10.0)
    var = rng.uniform(0.1, 0.3, (5, 4))
    got = ops.box_coder(_t(prior), _t(var), _t(target), box_normalized=normalized)
    assert got.shape == [3, 5, 4]
    np.testing.assert_allclose(got.numpy(), _encode_reference(prior, var, target, normalized))
    got = ops.box_coder(_t(prior), [0.1, 0.1, 0.2, 0.2], _t(target), box_normalized=normalized)
    np.testing.assert_allclose(got.numpy(), _encode_reference(
        prior, np.array([0.1, 0.1, 0.2, 0.2]), target, normalized))


def test_box_coder_round_trip():
    rng = np.random.default_rng(9)
    prior, target = _random_boxes(rng, 6, 1.0, 0.05), _random_boxes(rng, 4, 1.0, 0.05)
    var = rng.uniform(0.1, 0.3, (6, 4))
    for v in (_t(var), [0.1, 0.1, 0.2, 0.2], None):
        code = ops.box_coder(_t(prior), v, _t(target))
        back = ops.box_coder(_t(prior), v, code, "decode_center_size")
        np.testing.assert_allclose(back.numpy(), np.broadcast_to(target[:, None], (4, 6, 4)),
                                   rtol=1e-12, atol=1e-12)
    # Unnormalised, Paddle's encoder centres targets at (x1 + x2) / 2 but priors at
    # x1 + (x2 - x1 + 1) / 2: the round trip comes back half a pixel up and left.
    code = ops.box_coder(_t(prior * 50), _t(var), _t(target * 50), box_normalized=False)
    back = ops.box_coder(_t(prior * 50), _t(var), code, "decode_center_size",
                         box_normalized=False)
    np.testing.assert_allclose(back.numpy(), np.broadcast_to(target[:, None] * 50 - 0.5,
                                                             (4, 6, 4)), atol=1e-10)


def test_box_coder_decode_axis_one():
    rng = np.random.default_rng(10)
    prior = _random_boxes(rng, 3, 1.0, 0.05)  # one prior per row of the target
    deltas = rng.standard_normal((3, 5, 4)) * 0.1
    got = ops.box_coder(_t(prior), [0.1, 0.1, 0.2, 0.2], _t(deltas), "decode_center_size",
                        axis=1).numpy()
    for i in range(3):
        want = ops.box_coder(_t(prior[i:i + 1]), [0.1, 0.1, 0.2, 0.2],
                             _t(deltas[i][:, None]), "decode_center_size").numpy()[:, 0]
        np.testing.assert_allclose(got[i], want)


def test_box_coder_errors():
    prior, target = _t(np.zeros((2, 4))), _t(np.zeros((3, 4)))
    with pytest.raises(ValueError, match="box_coder: code_type='center' is not supported"):
        ops.box_coder(prior, None, target, "center")
    with pytest.raises(TypeError, match="prior_box_var=\\[1, 2\\] must be a Tensor"):
        ops.box_coder(prior, [1, 2], target)
    with pytest.raises(ValueError, match="decode_center_size with axis=0 needs target_box "
                                         r"\[N, M, 4\] with M = 2 priors"):
        ops.box_coder(prior, None, target, "decode_center_size")
    with pytest.raises(ValueError, match="box_coder: axis=2 must be 0 or 1"):
        ops.box_coder(prior, None, target, axis=2)


# ----- prior_box ---------------------------------------------------------------------------------
def _prior_reference(fh, fw, ih, iw, mins, maxs, ratios, flip, clip, steps, offset, order):
    expanded = [1.0]
    for r in ratios:
        if any(abs(r - e) < 1e-6 for e in expanded):
            continue
        expanded += [r, 1 / r] if flip else [r]
    sw, sh = steps if steps[0] and steps[1] else (iw / fw, ih / fh)
    out = []
    for h in range(fh):
        for w in range(fw):
            cx, cy = (w + offset) * sw, (h + offset) * sh
            cell = []
            for s, m in enumerate(mins):
                sizes = [(m * math.sqrt(a) / 2, m / math.sqrt(a) / 2) for a in expanded]
                square = [(math.sqrt(m * maxs[s]) / 2,) * 2] if maxs else []
                if order:
                    sizes = [(m / 2, m / 2)] + square + [
                        sz for a, sz in zip(expanded, sizes) if abs(a - 1) >= 1e-6]
                else:
                    sizes = sizes + square
                cell += [[(cx - bw) / iw, (cy - bh) / ih, (cx + bw) / iw, (cy + bh) / ih]
                         for bw, bh in sizes]
            out.append(cell)
    out = np.array(out).reshape(fh, fw, -1, 4)
    return np.clip(out, 0, 1) if clip else out


@pytest.mark.parametrize("order", [False, True])
def test_prior_box_matches_reference(order):
    inp, img = _t(np.zeros((1, 3, 6, 9), np.float32)), _t(np.zeros((1, 3, 9, 12), np.float32))
    box, var = ops.prior_box(inp, img, [2.0, 4.0], [5.0, 7.0], [1.0, 2.0, 0.5], flip=True,
                             clip=True, min_max_aspect_ratios_order=order)
    want = _prior_reference(6, 9, 9, 12, [2.0, 4.0], [5.0, 7.0], [1.0, 2.0, 0.5], True, True,
                            (0, 0), 0.5, order)
    assert box.shape == list(want.shape) == [6, 9, 8, 4] and box.dtype == np.float32
    np.testing.assert_allclose(box.numpy(), want, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(var.numpy(), np.broadcast_to([0.1, 0.1, 0.2, 0.2],
                                                             (6, 9, 8, 4)), rtol=1e-7)
    box, _ = ops.prior_box(inp, img, 3.0, steps=[2.0, 1.5], offset=0.3)
    np.testing.assert_allclose(box.numpy(), _prior_reference(
        6, 9, 9, 12, [3.0], [], [1.0], False, False, (2.0, 1.5), 0.3, False), rtol=1e-6)


def test_prior_box_errors():
    inp = _t(np.zeros((1, 3, 6, 9), np.float32))
    with pytest.raises(ValueError, match="prior_box: steps=\\[1.0\\] must be \\(step_w, "):
        ops.prior_box(inp, inp, [2.0], steps=[1.0])
    with pytest.raises(ValueError, match="max_sizes=\\[3.0\\] must have one entry per min"):
        ops.prior_box(inp, inp, [2.0, 4.0], max_sizes=[3.0])
    with pytest.raises(ValueError, match="prior_box: min_sizes='a' must be a number"):
        ops.prior_box(inp, inp, "a")


# ----- yolo_box ----------------------------------------------------------------------------------
def _sig(v):
    return 1 / (1 + math.exp(-v))


def _yolo_reference(x, img_size, anchors, classes, thresh, ratio, clip, scale, iou_aware,
                    factor):
    n, _, h, w = x.shape
    an = len(anchors) // 2
    boxes = np.zeros((n, an * h * w, 4))
    scores = np.zeros((n, an * h * w, classes))
    for i in range(n):
        ih, iw = img_size[i]
        head = x[i, an:] if iou_aware else x[i]
        head = head.reshape(an, classes + 5, h, w)
        for a in range(an):
            for k in range(h):
                for col in range(w):
                    conf = _sig(head[a, 4, k, col])
                    if iou_aware:
                        conf = conf ** (1 - factor) * _sig(x[i, a, k, col]) ** factor
                    if conf < thresh:
                        continue
                    bias = -0.5 * (scale - 1)
                    cx = (col + _sig(head[a, 0, k, col]) * scale + bias) * iw / w
                    cy = (k + _sig(head[a, 1, k, col]) * scale + bias) * ih / h
                    bw = math.exp(head[a, 2, k, col]) * anchors[2 * a] * iw / (ratio * w)
                    bh = math.exp(head[a, 3, k, col]) * anchors[2 * a + 1] * ih / (ratio * h)
                    b = [cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2]
                    if clip:
                        b = [max(b[0], 0), max(b[1], 0), min(b[2], iw - 1), min(b[3], ih - 1)]
                    idx = a * h * w + k * w + col
                    boxes[i, idx] = b
                    scores[i, idx] = [conf * _sig(v) for v in head[a, 5:, k, col]]
    return boxes, scores


@pytest.mark.parametrize("iou_aware", [False, True])
def test_yolo_box_matches_reference(iou_aware):
    rng = np.random.default_rng(11)
    classes, anchors = 3, [10, 13, 16, 30]
    per = classes + (6 if iou_aware else 5)
    x = rng.standard_normal((2, 2 * per, 4, 5))
    size = np.array([[64, 80], [50, 40]], dtype=np.int32)
    boxes, scores = ops.yolo_box(_t(x), _t(size), anchors, classes, 0.45, 16, clip_bbox=True,
                                 scale_x_y=1.2, iou_aware=iou_aware, iou_aware_factor=0.4)
    want_b, want_s = _yolo_reference(x, size, anchors, classes, 0.45, 16, True, 1.2,
                                     iou_aware, 0.4)
    assert boxes.shape == [2, 40, 4] and scores.shape == [2, 40, classes]
    assert (want_s == 0).any() and (want_s != 0).any()  # the threshold cut some, not all
    np.testing.assert_allclose(boxes.numpy(), want_b, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(scores.numpy(), want_s, rtol=1e-12, atol=1e-12)


def test_yolo_box_errors():
    x, size = _t(np.zeros((1, 14, 4, 4))), _t(np.ones((1, 2), np.int32))
    with pytest.raises(ValueError, match=r"yolo_box: x has 14 channels; 2 anchors of 3 classes "
                                         "need 16"):
        ops.yolo_box(x, size, [1, 2, 3, 4], 3, 0.1, 8)
    with pytest.raises(ValueError, match="yolo_box: anchors=\\[1, 2, 3\\] must be a list"):
        ops.yolo_box(x, size, [1, 2, 3], 2, 0.1, 8)
    with pytest.raises(ValueError, match=r"img_size must be \[N, 2\] = \[1, 2\]"):
        ops.yolo_box(x, _t(np.ones((2, 2), np.int32)), [1, 2, 3, 4], 2, 0.1, 8)


# ----- deform_conv2d -----------------------------------------------------------------------------
def _deform_reference(x, offset, weight, mask, stride, pad, dil, dg, groups):
    """Paddle's modulated im2col (DmcnIm2colBilinear) and a grouped product, point by point;
    ``stride``, ``pad`` and ``dil`` are (h, w) pairs."""
    n, c, h, w = x.shape
    m, cg, kh, kw = weight.shape
    ho, wo = offset.shape[2:]
    out = np.zeros((n, m, ho, wo))
    cd = c // dg

    def sample(plane, y, xx):
        if not (y > -1 and xx > -1 and y < h and xx < w):
            return 0.0
        y0, x0 = math.floor(y), math.floor(xx)
        total = 0.0
        for yi, wy in ((y0, 1 - (y - y0)), (y0 + 1, y - y0)):
            for xi, wx in ((x0, 1 - (xx - x0)), (x0 + 1, xx - x0)):
                if 0 <= yi < h and 0 <= xi < w:
                    total += wy * wx * plane[yi, xi]
        return total

    for b in range(n):
        for o in range(m):
            g = o // (m // groups)
            for ci in range(cg):
                cin = g * cg + ci
                d = cin // cd
                for i in range(kh):
                    for j in range(kw):
                        k = i * kw + j
                        for y in range(ho):
                            for xx in range(wo):
                                dy = offset[b, d * 2 * kh * kw + 2 * k, y, xx]
                                dx = offset[b, d * 2 * kh * kw + 2 * k + 1, y, xx]
                                v = sample(x[b, cin],
                                           y * stride[0] - pad[0] + i * dil[0] + dy,
                                           xx * stride[1] - pad[1] + j * dil[1] + dx)
                                if mask is not None:
                                    v *= mask[b, d * kh * kw + k, y, xx]
                                out[b, o, y, xx] += weight[o, ci, i, j] * v
    return out


@pytest.mark.parametrize("with_mask", [False, True])
def test_deform_conv2d_matches_reference(with_mask):
    rng = np.random.default_rng(12)
    x = rng.standard_normal((2, 4, 5, 6))
    weight = rng.standard_normal((6, 2, 3, 2))
    ho, wo = (5 + 2 - 5) // 2 + 1, (6 + 2 - 2) // 2 + 1  # spans 2 * (3 - 1) + 1 and 2
    offset = rng.uniform(-2.0, 2.0, (2, 2 * 2 * 6, ho, wo))
    mask = rng.uniform(size=(2, 2 * 6, ho, wo)) if with_mask else None
    bias = rng.standard_normal(6)
    got = ops.deform_conv2d(_t(x), _t(offset), _t(weight), _t(bias), stride=2, padding=1,
                            dilation=(2, 1), deformable_groups=2, groups=2,
                            mask=None if mask is None else _t(mask))
    ref = _deform_reference(x, offset, weight, mask, (2, 2), (1, 1), (2, 1), 2, 2)
    assert got.shape == [2, 6, ho, wo]
    np.testing.assert_allclose(got.numpy(), ref + bias[None, :, None, None], rtol=1e-12,
                               atol=1e-12)


def test_deform_conv2d_zero_offsets_equal_conv2d():
    rng = np.random.default_rng(13)
    x = rng.standard_normal((2, 4, 7, 6))
    weight, bias = rng.standard_normal((6, 2, 3, 3)), rng.standard_normal(6)
    offset = np.zeros((2, 18, 4, 3))
    got = ops.deform_conv2d(_t(x), _t(offset), _t(weight), _t(bias), stride=(2, 2), padding=1,
                            groups=2, mask=_t(np.ones((2, 9, 4, 3))))
    want = core.nn.functional.conv2d(_t(x), _t(weight), _t(bias), stride=2, padding=1,
                                     groups=2)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)
    v1 = ops.deform_conv2d(_t(x), _t(offset), _t(weight), _t(bias), 2, 1, groups=2)
    np.testing.assert_allclose(v1.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)


def test_deform_conv2d_integer_offsets_shift_the_input():
    x = RNG.standard_normal((1, 1, 6, 6))
    weight = np.ones((1, 1, 1, 1))
    offset = np.zeros((1, 2, 6, 6))
    offset[0, 0], offset[0, 1] = 1.0, -2.0  # read one row down, two columns left
    got = ops.deform_conv2d(_t(x), _t(offset), _t(weight)).numpy()[0, 0]
    want = np.zeros((6, 6))
    want[:5, 2:] = x[0, 0, 1:, :4]
    np.testing.assert_allclose(got, want, atol=1e-12)


@pytest.mark.parametrize("with_mask", [False, True])
def test_deform_conv2d_gradients(with_mask):
    rng = np.random.default_rng(14)
    x = rng.standard_normal((1, 4, 4, 5))
    weight = rng.standard_normal((2, 2, 2, 2))
    offset = rng.uniform(-1.3, 1.3, (1, 2 * 2 * 4, 5, 3))  # stays off integer points
    offset += 0.137
    bias = rng.standard_normal(2)
    if with_mask:
        mask = rng.uniform(size=(1, 2 * 4, 5, 3))
        check_grad(lambda a, o, w, m, b: ops.deform_conv2d(
            a, o, w, b, padding=(1, 0), dilation=(1, 2), deformable_groups=2, groups=2,
            mask=m), x, offset, weight, mask, bias, rtol=1e-5, atol=1e-6)
    else:
        check_grad(lambda a, o, w, b: ops.deform_conv2d(
            a, o, w, b, padding=(1, 0), dilation=(1, 2), deformable_groups=2, groups=2),
            x, offset, weight, bias, rtol=1e-5, atol=1e-6)


def test_deform_conv2d_layer():
    core.seed(0)
    layer = ops.DeformConv2D(4, 6, 3, padding=1, deformable_groups=2, groups=2)
    assert layer.weight.shape == [6, 2, 3, 3] and layer.bias.shape == [6]
    assert abs(float(layer.weight.numpy().std()) - math.sqrt(2 / 36)) < 0.12
    x = _t(RNG.standard_normal((2, 4, 5, 5)).astype(np.float32))
    offset = _t(np.zeros((2, 36, 5, 5), np.float32))
    out = layer(x, offset)
    want = core.nn.functional.conv2d(x, layer.weight, layer.bias, padding=1, groups=2)
    np.testing.assert_allclose(out.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)
    out.sum().backward()
    assert layer.weight.gradient() is not None
    assert ops.DeformConv2D(2, 2, 1, bias_attr=False).bias is None
    assert "deformable_groups=2" in repr(layer)


def test_deform_conv2d_errors():
    x, w = _t(np.zeros((1, 4, 5, 5))), _t(np.zeros((2, 4, 3, 3)))
    with pytest.raises(ValueError, match=r"deform_conv2d: offset must be \[N, 2 \* "
                                         r"deformable_groups \* kh \* kw, out_h, out_w\] = "
                                         r"\[1, 18, 3, 3\], got \[1, 9, 3, 3\]"):
        ops.deform_conv2d(x, _t(np.zeros((1, 9, 3, 3))), w)
    with pytest.raises(ValueError, match=r"deform_conv2d: mask must be .* = \[1, 9, 3, 3\]"):
        ops.deform_conv2d(x, _t(np.zeros((1, 18, 3, 3))), w, mask=_t(np.zeros((1, 18, 3, 3))))
    with pytest.raises(ValueError, match="divisible by deformable_groups=3"):
        ops.deform_conv2d(x, _t(np.zeros((1, 54, 3, 3))), w, deformable_groups=3)
    with pytest.raises(ValueError, match=r"weight \[2, 4, 3, 3\] must be \[out, C / groups"):
        ops.deform_conv2d(x, _t(np.zeros((1, 18, 3, 3))), w, groups=2)
    with pytest.raises(ValueError, match=r"bias must be \[2\]"):
        ops.deform_conv2d(x, _t(np.zeros((1, 18, 3, 3))), w, _t(np.zeros(3)))
    with pytest.raises(ValueError, match="DeformConv2D: in_channels=3 and out_channels=4 must "
                                         "both be divisible by groups=2"):
        ops.DeformConv2D(3, 4, 3, groups=2)


def test_ops_load_lazily_and_are_exported():
    import subprocess
    import sys

    code = ("import sys, core; import core.vision; assert 'core.vision.ops' not in sys.modules;"
            " core.vision.ops.nms; assert 'core.vision.ops' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)
    assert set(ops.__all__) <= set(dir(ops))
