"""Cases run alike on real Paddle 3.3.1 and on core (``P`` is ``paddle`` or ``core``), for
tests/core/test_paddle_agreement_misc.py: fft, signal/audio, distribution, geometric, metric,
text.viterbi_decode, vision.ops and vision.transforms.

make_misc_fixtures.py (beside this file, run with a Python that has Paddle) stores Paddle's
results in misc/agreement.npz; the test computes the same cases with core and compares. This
module imports neither library: the caller passes it. Not collected by pytest (its name does
not match ``test_*.py``). Only cases where core follows Paddle are here; where Paddle is wrong
(docs/paddle.md says which), the test module checks core's own numbers instead.
"""
from __future__ import annotations

import numpy as np


def _rng():
    return np.random.default_rng(20261126)


def _boxes(rng, n, size):
    xy = rng.random((n, 2)) * size
    wh = rng.random((n, 2)) * size / 2 + 0.5
    return np.concatenate([xy, xy + wh], 1).astype("float32")


def fft_cases(P):
    rng = _rng()
    xr = rng.standard_normal((4, 6))
    xc = rng.standard_normal((4, 6)) + 1j * rng.standard_normal((4, 6))
    x3 = rng.standard_normal((3, 4, 5)).astype("float32")
    T, F = P.to_tensor, P.fft
    cases = {}
    for norm in ("backward", "ortho", "forward"):
        for name in ("fft", "ifft", "rfft", "ihfft"):
            cases[f"{name}_{norm}"] = lambda f=name, n=norm: getattr(F, f)(T(xr), n=8, axis=0,
                                                                             norm=n)
        for name in ("irfft", "hfft"):
            cases[f"{name}_{norm}"] = lambda f=name, n=norm: getattr(F, f)(T(xc), n=7, norm=n)
        for name in ("fft2", "rfft2", "ihfft2", "fftn", "ifftn", "rfftn", "ihfftn"):
            cases[f"{name}_{norm}"] = lambda f=name, n=norm: getattr(F, f)(
                T(x3), s=(3, 6), axes=(0, 2), norm=n)
        for name in ("irfft2", "hfft2", "irfftn", "hfftn"):
            cases[f"{name}_{norm}"] = lambda f=name, n=norm: getattr(F, f)(T(xc), s=(3, 6),
                                                                             norm=n)
    for n in (1, 5, 8):
        cases[f"fftfreq{n}"] = lambda n=n: F.fftfreq(n, d=0.5)
        cases[f"rfftfreq{n}"] = lambda n=n: F.rfftfreq(n, d=0.5, dtype="float64")
    cases["fftshift"] = lambda: F.fftshift(T(x3))
    cases["ifftshift_axes"] = lambda: F.ifftshift(T(x3), axes=(0, 2))
    return cases


def signal_audio_cases(P):
    rng = _rng()
    x = rng.standard_normal((1, 96)).astype("float32")
    long = rng.standard_normal((1, 2048)).astype("float32")
    T, S, AF, FE = P.to_tensor, P.signal, P.audio.functional, P.audio.features
    hann = np.hanning(32).astype("float32") + 0.1
    cases = {}
    for center in (True, False):
        for pad_mode in ("reflect", "constant"):
            for normalized in (False, True):
                for onesided in (True, False):
                    cases[f"stft_{center}_{pad_mode}_{normalized}_{onesided}"] = (
                        lambda c=center, p=pad_mode, n=normalized, o=onesided: S.stft(
                            T(x), 32, hop_length=8, center=c, pad_mode=p, normalized=n,
                            onesided=o))
    cases["stft_window"] = lambda: S.stft(T(x), 32, hop_length=8, win_length=24,
                                          window=T(np.hanning(24).astype("float32")))
    cases["istft"] = lambda: S.istft(S.stft(T(x), 32, hop_length=8), 32, hop_length=8,
                                     length=90)
    cases["istft_twosided_normalized"] = lambda: S.istft(
        S.stft(T(x), 32, hop_length=8, onesided=False, normalized=True), 32, hop_length=8,
        onesided=False, normalized=True)
    cases["istft_no_center"] = lambda: S.istft(
        S.stft(T(x), 32, hop_length=8, center=False, window=T(hann)), 32, hop_length=8,
        center=False, window=T(hann))
    for window in ("hamming", "hann", "blackman", "bohman", "cosine", "triang", "bartlett",
                   "nuttall", "taylor", ("gaussian", 3.0), ("exponential", None, 2.0),
                   ("kaiser", 5.0), ("general_gaussian", 1.5, 2.0), ("tukey", 0.3)):
        for fftbins in (True, False):
            cases[f"window_{window}_{fftbins}"] = lambda w=window, f=fftbins: AF.get_window(
                w, 17, fftbins=f, dtype="float64")
    hz = np.array([0.0, 100, 999, 1000, 1001, 4000, 8000], "float32")
    for htk in (False, True):
        cases[f"hz_to_mel_{htk}"] = lambda h=htk: AF.hz_to_mel(T(hz), htk=h)
        cases[f"mel_to_hz_{htk}"] = lambda h=htk: AF.mel_to_hz(
            T(np.array([0.0, 5, 15, 20, 30, 40], "float32")), htk=h)
        cases[f"mel_frequencies_{htk}"] = lambda h=htk: AF.mel_frequencies(10, 20.0, 8000.0,
                                                                          htk=h)
        for norm in ("slaney", 2.0, 1.0):
            cases[f"fbank_{htk}_{norm}"] = lambda h=htk, n=norm: AF.compute_fbank_matrix(
                16000, 128, n_mels=12, f_min=30.0, htk=h, norm=n)
    power = np.abs(x[:, :50]) ** 2
    cases["power_to_db"] = lambda: AF.power_to_db(T(power))
    cases["power_to_db_ref"] = lambda: AF.power_to_db(T(power), ref_value=2.0, top_db=10.0)
    cases["power_to_db_no_top"] = lambda: AF.power_to_db(T(power), amin=1e-3, top_db=None)
    cases["create_dct_ortho"] = lambda: AF.create_dct(13, 40, norm="ortho")
    cases["create_dct_none"] = lambda: AF.create_dct(13, 40, norm=None)
    cases["Spectrogram"] = lambda: FE.Spectrogram()(T(long))
    cases["Spectrogram_p1"] = lambda: FE.Spectrogram(n_fft=64, hop_length=300, power=1.0,
                                                     center=False)(T(long))
    cases["MelSpectrogram"] = lambda: FE.MelSpectrogram()(T(long))
    cases["MelSpectrogram_htk"] = lambda: FE.MelSpectrogram(
        sr=8000, n_fft=256, n_mels=32, htk=True, norm=2.0, f_min=20.0, f_max=3000.0)(T(long))
    cases["LogMelSpectrogram"] = lambda: FE.LogMelSpectrogram()(T(long))
    cases["MFCC"] = lambda: FE.MFCC()(T(long))
    cases["MFCC_13"] = lambda: FE.MFCC(n_mfcc=13, n_mels=40, top_db=None)(T(long))
    return cases


def distribution_cases(P):
    D = P.distribution

    def T(a):
        return P.to_tensor(np.asarray(a, dtype="float32"))

    makers = {
        "Normal": (lambda: D.Normal(T([0.0, 1.0]), T([1.0, 2.0])), [0.3, -1.0]),
        "Uniform": (lambda: D.Uniform(T([0.0, 1.0]), T([2.0, 3.0])), [0.5, 2.5]),
        "Bernoulli": (lambda: D.Bernoulli(T([0.3, 0.8])), [1.0, 0.0]),
        "Beta": (lambda: D.Beta(T([0.5, 2.0]), T([1.5, 3.0])), [0.2, 0.7]),
        "Gamma": (lambda: D.Gamma(T([2.0, 0.5]), T([1.0, 3.0])), [1.5, 0.2]),
        "Exponential": (lambda: D.Exponential(T([0.5, 2.0])), [1.5, 0.2]),
        "Laplace": (lambda: D.Laplace(T([0.0, 1.0]), T([1.0, 2.0])), [1.5, -0.2]),
        "LogNormal": (lambda: D.LogNormal(T([0.0, 1.0]), T([1.0, 0.5])), [1.5, 0.2]),
        "Cauchy": (lambda: D.Cauchy(T([0.0, 1.0]), T([1.0, 2.0])), [1.5, -0.2]),
        "Gumbel": (lambda: D.Gumbel(T([0.0, 1.0]), T([1.0, 2.0])), [1.5, -0.2]),
        "Geometric": (lambda: D.Geometric(T([0.3, 0.6])), [2.0, 0.0]),
        "Poisson": (lambda: D.Poisson(T([2.0, 0.5])), [3.0, 0.0]),
        "Binomial": (lambda: D.Binomial(10, T([0.3, 0.6])), [3.0, 7.0]),
        "StudentT": (lambda: D.StudentT(T([3.0, 5.0]), T([0.0, 1.0]), T([1.0, 2.0])),
                     [1.5, -0.2]),
        "Chi2": (lambda: D.Chi2(T([3.0, 5.0])), [1.5, 4.0]),
        "ContinuousBernoulli": (lambda: D.ContinuousBernoulli(T([0.3, 0.8])), [0.2, 0.9]),
        "Dirichlet": (lambda: D.Dirichlet(T([1.0, 2.0, 3.0])), [0.2, 0.3, 0.5]),
        "Multinomial": (lambda: D.Multinomial(5, T([0.2, 0.3, 0.5])), [1.0, 2.0, 2.0]),
        "MultivariateNormal": (lambda: D.MultivariateNormal(
            T([0.0, 1.0]), covariance_matrix=T([[2.0, 0.5], [0.5, 1.0]])), [0.5, 0.5]),
        "Independent": (lambda: D.Independent(D.Normal(T([[0.0, 1.0]]), T([[1.0, 2.0]])), 1),
                        [[0.5, 0.5]]),
    }
    # where Paddle 3.3.1 has cdf / icdf (icdf's argument holds probabilities)
    has_cdf = ("Bernoulli", "Exponential", "Laplace", "Cauchy", "Gumbel", "Geometric",
               "ContinuousBernoulli")
    has_icdf = ("Exponential", "Laplace", "ContinuousBernoulli")
    cases = {}
    for name, (make, value) in makers.items():
        if name != "Geometric":  # Paddle 3.3.1's has pmf / log_pmf only
            cases[f"{name}.log_prob"] = lambda m=make, v=value: m().log_prob(T(v))
            cases[f"{name}.prob"] = lambda m=make, v=value: m().prob(T(v))
        if name not in ("Cauchy", "Uniform"):  # none in Paddle 3.3.1
            cases[f"{name}.mean"] = lambda m=make: m().mean
            cases[f"{name}.variance"] = lambda m=make: m().variance
        if name not in ("Independent",):
            cases[f"{name}.entropy"] = lambda m=make: m().entropy()
        if name in has_cdf:
            cases[f"{name}.cdf"] = lambda m=make, v=value: m().cdf(T(v))
            cases[f"{name}.cdf_grid"] = lambda m=make: m().cdf(T([[-1.0], [0.0], [0.5], [2.0]]))
        if name in has_icdf:
            cases[f"{name}.icdf"] = lambda m=make: m().icdf(T([[0.1], [0.5], [0.9]]))
    categorical = lambda: D.Categorical(T([[0.1, 0.2, 0.7], [1.0, 1.0, 2.0]]))  # noqa: E731
    index = P.to_tensor(np.array([2, 0]))
    cases["Categorical.probs"] = lambda: categorical().probs(index)
    cases["Categorical.log_prob"] = lambda: categorical().log_prob(index)
    cases["Categorical.entropy"] = lambda: categorical().entropy()
    pairs = {
        "Normal": (lambda: D.Normal(T([0.0, 1.0]), T([1.0, 2.0])),
                   lambda: D.Normal(T([1.0, 0.0]), T([0.5, 1.0]))),
        "Beta": (lambda: D.Beta(T([0.5]), T([1.5])), lambda: D.Beta(T([2.0]), T([1.0]))),
        "Dirichlet": (lambda: D.Dirichlet(T([1.0, 2.0])), lambda: D.Dirichlet(T([2.0, 2.0]))),
        "Bernoulli": (lambda: D.Bernoulli(T([0.3])), lambda: D.Bernoulli(T([0.6]))),
        "Gamma": (lambda: D.Gamma(T([2.0]), T([1.0])), lambda: D.Gamma(T([1.0]), T([2.0]))),
        "Exponential": (lambda: D.Exponential(T([2.0])), lambda: D.Exponential(T([1.0]))),
        "Laplace": (lambda: D.Laplace(T([0.0]), T([1.0])), lambda: D.Laplace(T([1.0]), T([2.0]))),
        "LogNormal": (lambda: D.LogNormal(T([0.0]), T([1.0])),
                      lambda: D.LogNormal(T([1.0]), T([2.0]))),
        "Cauchy": (lambda: D.Cauchy(T([0.0]), T([1.0])), lambda: D.Cauchy(T([1.0]), T([2.0]))),
        "Poisson": (lambda: D.Poisson(T([2.0])), lambda: D.Poisson(T([1.0]))),
        "Binomial": (lambda: D.Binomial(10, T([0.3])), lambda: D.Binomial(10, T([0.6]))),
        "Categorical": (lambda: D.Categorical(T([0.1, 0.9])), lambda: D.Categorical(T([0.5, 0.5]))),
        "ContinuousBernoulli": (lambda: D.ContinuousBernoulli(T([0.3])),
                                lambda: D.ContinuousBernoulli(T([0.6]))),
        "MultivariateNormal": (
            lambda: D.MultivariateNormal(T([0.0, 1.0]),
                                         covariance_matrix=T([[2.0, 0.5], [0.5, 1.0]])),
            lambda: D.MultivariateNormal(T([1.0, 0.0]), covariance_matrix=T(np.eye(2)))),
    }
    for name, (p, q) in pairs.items():
        cases[f"kl_{name}"] = lambda p=p, q=q: D.kl_divergence(p(), q())
    transformed = lambda: D.TransformedDistribution(  # noqa: E731
        D.Normal(T([0.0, 1.0]), T([1.0, 2.0])),
        [D.ExpTransform(), D.AffineTransform(T([1.0]), T([2.0]))])
    cases["TransformedDistribution.log_prob"] = lambda: transformed().log_prob(T([1.5, 4.0]))
    for name, make in (("Exp", D.ExpTransform), ("Sigmoid", D.SigmoidTransform),
                       ("Tanh", D.TanhTransform), ("StickBreaking", D.StickBreakingTransform),
                       ("Power", lambda: D.PowerTransform(T([2.0])))):
        cases[f"{name}Transform.forward"] = lambda m=make: m().forward(T([0.3, 0.6]))
        cases[f"{name}Transform.fldj"] = lambda m=make: m().forward_log_det_jacobian(
            T([0.3, 0.6]))
    return cases


def geometric_cases(P):
    rng = _rng()
    G, T = P.geometric, P.to_tensor
    x = rng.standard_normal((5, 3)).astype("float32")
    e = rng.standard_normal((6, 3)).astype("float32")
    e1 = rng.standard_normal((6, 1)).astype("float32")
    src, dst = np.array([0, 1, 2, 0, 3, 4]), np.array([1, 2, 1, 0, 3, 1])
    seg = np.array([0, 0, 1, 1, 1, 3])
    cases = {}
    for reduce in ("sum", "mean", "max", "min"):
        cases[f"send_u_recv_{reduce}"] = lambda r=reduce: G.send_u_recv(
            T(x), T(src), T(dst), reduce_op=r, out_size=7)
        cases[f"segment_{reduce}"] = lambda r=reduce: getattr(G, f"segment_{r}")(T(e), T(seg))
        for message in ("add", "sub", "mul", "div"):
            cases[f"send_ue_recv_{message}_{reduce}"] = lambda r=reduce, m=message: (
                G.send_ue_recv(T(x), T(e1), T(src), T(dst), message_op=m, reduce_op=r))
    for message in ("add", "sub", "mul", "div"):
        cases[f"send_uv_{message}"] = lambda m=message: G.send_uv(
            T(x), T(x[::-1].copy()), T(src), T(dst), message_op=m)
    cases["reindex_graph"] = lambda: G.reindex_graph(
        T(np.array([0, 1, 2])), T(np.array([8, 9, 0, 4, 7, 6, 7])),
        T(np.array([2, 3, 2], dtype="int32")))
    return cases


def metric_text_cases(P):
    rng = _rng()
    M, T = P.metric, P.to_tensor
    pred = rng.random((10, 4)).astype("float32")
    label = rng.integers(0, 4, (10, 1))
    p1 = rng.random(20).astype("float32")
    l1 = rng.integers(0, 2, 20)

    def accuracy(topk):
        m = M.Accuracy(topk=topk)
        first = m.update(m.compute(T(pred), T(label)))
        m.update(m.compute(T(pred[:3]), T(label[:3])))
        return [first, m.accumulate()]

    def binary(cls):
        m = cls()
        m.update(p1, l1)
        m.update(T(p1[:5]), T(l1[:5]))
        return m.accumulate()

    def auc(n):
        m = M.Auc(num_thresholds=n)
        m.update(np.stack([1 - p1, p1], 1), l1.reshape(-1, 1))
        return m.accumulate()

    cases = {"Accuracy_1": lambda: accuracy((1,)), "Accuracy_1_2": lambda: accuracy((1, 2)),
             "Precision": lambda: binary(M.Precision), "Recall": lambda: binary(M.Recall),
             "Auc_4095": lambda: auc(4095), "Auc_3": lambda: auc(3),
             "accuracy_k1": lambda: M.accuracy(T(pred), T(label), k=1),
             "accuracy_k2": lambda: M.accuracy(T(pred), T(label), k=2)}
    potentials = rng.standard_normal((2, 5, 4)).astype("float32")
    transitions = rng.standard_normal((4, 4)).astype("float32")
    lengths = np.array([5, 3])
    for tag in (True, False):
        cases[f"viterbi_decode_{tag}"] = lambda t=tag: P.text.viterbi_decode(
            T(potentials), T(transitions), T(lengths), include_bos_eos_tag=t)
    return cases


def vision_ops_cases(P):
    rng = _rng()
    ops, T = P.vision.ops, P.to_tensor
    boxes, scores = _boxes(rng, 12, 10.0), rng.random(12).astype("float32")
    categories = rng.integers(0, 3, 12)
    prior, target = _boxes(rng, 5, 1.0), _boxes(rng, 3, 1.0)
    deltas = (rng.standard_normal((3, 5, 4)) * 0.3).astype("float32")
    var = [0.1, 0.1, 0.2, 0.2]
    feat = T(rng.random((1, 2, 4, 6)).astype("float32"))
    image = T(rng.random((1, 3, 32, 48)).astype("float32"))
    yolo_in = rng.standard_normal((2, 16, 4, 4)).astype("float32")
    img_size = np.array([[64, 64], [48, 80]], dtype="int32")
    fmap = rng.standard_normal((2, 4, 8, 10)).astype("float32")
    fmap9 = rng.standard_normal((2, 18, 8, 10)).astype("float32")
    rois = np.array([[1.2, 0.5, 6.3, 5.1], [0.0, 0.0, 9.0, 7.0], [2.5, 3.5, 3.0, 4.2]],
                    dtype="float32")
    rois_num = np.array([2, 1], dtype="int32")
    xd = rng.standard_normal((1, 4, 6, 6)).astype("float32")
    weight = rng.standard_normal((6, 2, 3, 3)).astype("float32")
    offset = rng.standard_normal((1, 36, 6, 6)).astype("float32")
    mask = rng.random((1, 18, 6, 6)).astype("float32")
    bboxes = rng.random((2, 10, 4)).astype("float32")
    bboxes[..., 2:] += bboxes[..., :2]
    bscores = rng.random((2, 3, 10)).astype("float32")
    cases = {
        "nms": lambda: ops.nms(T(boxes), 0.3),
        "nms_scores": lambda: ops.nms(T(boxes), 0.3, scores=T(scores)),
        "nms_categories_top_k": lambda: ops.nms(T(boxes), 0.3, scores=T(scores),
                                              category_idxs=T(categories),
                                              categories=[0, 1, 2], top_k=4),
        "nms_some_categories": lambda: ops.nms(T(boxes), 0.3, scores=T(scores),
                                             category_idxs=T(categories), categories=[0, 2]),
        "prior_box": lambda: ops.prior_box(feat, image, min_sizes=[4.0], max_sizes=[8.0],
                                         aspect_ratios=[1.0, 2.0], flip=True, clip=True),
        "prior_box_steps": lambda: ops.prior_box(feat, image, min_sizes=[4.0, 6.0],
                                               aspect_ratios=[2.0], steps=[8.0, 8.0],
                                               offset=0.3, variance=[0.1, 0.2, 0.3, 0.4]),
        "prior_box_order": lambda: ops.prior_box(feat, image, min_sizes=[4.0], max_sizes=[9.0],
                                               aspect_ratios=[2.0, 3.0], flip=True,
                                               min_max_aspect_ratios_order=True),
        "yolo_box": lambda: ops.yolo_box(T(yolo_in), T(img_size), anchors=[10, 13, 16, 30],
                                       class_num=3, conf_thresh=0.3, downsample_ratio=16),
        "yolo_box_scale": lambda: ops.yolo_box(T(yolo_in), T(img_size), anchors=[10, 13, 16, 30],
                                             class_num=3, conf_thresh=0.01, downsample_ratio=16,
                                             clip_bbox=False, scale_x_y=1.2),
        "roi_pool": lambda: ops.roi_pool(T(fmap), T(rois), T(rois_num), 3, spatial_scale=0.9),
        "psroi_pool": lambda: ops.psroi_pool(T(fmap9), T(rois), T(rois_num), 3,
                                           spatial_scale=0.9),
        "deform_conv2d": lambda: ops.deform_conv2d(T(xd), T(offset), T(weight), padding=1,
                                                 groups=2, deformable_groups=2, mask=T(mask)),
        "matrix_nms": lambda: ops.matrix_nms(T(bboxes), T(bscores), 0.1, 0.2, 8, 5,
                                           return_index=True),
        "matrix_nms_gaussian": lambda: ops.matrix_nms(T(bboxes), T(bscores), 0.1, 0.0, -1, -1,
                                                    use_gaussian=True, background_label=-1,
                                                    normalized=False),
    }
    for normalized in (True, False):
        cases[f"box_coder_encode_{normalized}"] = lambda n=normalized: ops.box_coder(
            T(prior), var, T(target), code_type="encode_center_size", box_normalized=n)
        cases[f"box_coder_decode_{normalized}"] = lambda n=normalized: ops.box_coder(
            T(prior), var, T(deltas), code_type="decode_center_size", box_normalized=n)
    for aligned in (True, False):
        for ratio in (-1, 2):
            cases[f"roi_align_{aligned}_{ratio}"] = lambda a=aligned, r=ratio: ops.roi_align(
                T(fmap), T(rois), T(rois_num), 3, spatial_scale=0.9, sampling_ratio=r,
                aligned=a)
    return cases


def transforms_cases(P, Image):
    """Cases where Paddle's two backends and core agree: numpy images (Paddle's cv2 backend)
    for the layout, crop, flip, pad and float resizing functions; PIL images (Paddle's
    default 'pil' backend, whose geometry and colour rules core follows) for the warps and
    colour adjustments. ``Image`` is PIL.Image."""
    rng = _rng()
    F = P.vision.transforms.functional
    u8 = rng.integers(0, 256, (7, 9, 3)).astype("uint8")
    f32 = rng.random((7, 9, 3)).astype("float32")
    g8 = rng.integers(0, 256, (7, 9)).astype("uint8")

    def pil():
        return Image.fromarray(u8)

    corners = ([[0, 0], [8, 0], [8, 6], [0, 6]], [[1, 0], [7, 1], [8, 5], [0, 6]])
    cases = {
        "to_tensor_u8": lambda: F.to_tensor(u8), "to_tensor_pil": lambda: F.to_tensor(pil()),
        "to_tensor_gray_hwc": lambda: F.to_tensor(g8, data_format="HWC"),
        "to_tensor_f32": lambda: F.to_tensor(f32),
        "normalize": lambda: F.normalize(f32, [0.5, 0.4, 0.3], [0.2, 0.3, 0.4],
                                         data_format="HWC"),
        "crop": lambda: F.crop(u8, 1, 2, 4, 5), "center_crop": lambda: F.center_crop(u8, (4, 5)),
        "hflip": lambda: F.hflip(u8), "vflip": lambda: F.vflip(g8),
        "pad_constant_tuple": lambda: F.pad(u8, 2, fill=(1, 2, 3)),
        "gray_3": lambda: F.to_grayscale(u8, 3),
        "perspective_bilinear": lambda: F.perspective(pil(), *corners,
                                                      interpolation="bilinear"),
    }
    for mode in ("edge", "reflect", "symmetric"):
        for padding in (2, (1, 2), (1, 2, 3, 0)):
            cases[f"pad_{mode}_{padding}"] = lambda m=mode, p=padding: F.pad(u8, p,
                                                                           padding_mode=m)
    for interpolation in ("nearest", "bilinear"):
        for size in ((5, 4), 4, (14, 20), 11):
            cases[f"resize_{interpolation}_{size}"] = lambda i=interpolation, s=size: F.resize(
                f32, s, i)
        for angle in (30, -45.5, 90):
            cases[f"rotate_{interpolation}_{angle}"] = lambda i=interpolation, a=angle: F.rotate(
                pil(), a, interpolation=i)
            cases[f"rotate_expand_{interpolation}_{angle}"] = (
                lambda i=interpolation, a=angle: F.rotate(pil(), a, interpolation=i,
                                                          expand=True, fill=(10, 20, 30)))
        cases[f"affine_{interpolation}"] = lambda i=interpolation: F.affine(
            pil(), 30, [1, 2], 1.2, 10, interpolation=i)
        cases[f"affine_shear_{interpolation}"] = lambda i=interpolation: F.affine(
            pil(), -20, [-1, 1], 0.8, (5, 10), interpolation=i)
    # pixel centres landing on pixel borders up to rounding: Pillow's fixed-point 'nearest',
    # its a + (b - a) d bilinear weights and its float32 blends decide these
    cases["affine_center_nearest"] = lambda: F.affine(pil(), 45, [0, 0], 1.0, 0, center=(3, 2))
    cases["affine_center_bilinear"] = lambda: F.affine(pil(), 45, [0, 0], 1.0, 0, center=(3, 2),
                                                       interpolation="bilinear")
    cases["rotate_expand_thin_bilinear"] = lambda: F.rotate(Image.fromarray(u8[:3]), 45,
                                                            interpolation="bilinear",
                                                            expand=True)
    cases["rotate_90_expand_odd"] = lambda: F.rotate(pil(), 90, expand=True)
    cases["affine_scale_only"] = lambda: F.affine(pil(), 0, [1, 0], 1.7, 0)
    for factor in (0.0, 0.5, 1.3, 2.7182818):
        cases[f"brightness_{factor}"] = lambda f=factor: F.adjust_brightness(pil(), f)
        cases[f"contrast_{factor}"] = lambda f=factor: F.adjust_contrast(pil(), f)
        cases[f"saturation_{factor}"] = lambda f=factor: F.adjust_saturation(pil(), f)
    return cases


ALL = {"fft": fft_cases, "signal_audio": signal_audio_cases,
       "distribution": distribution_cases, "geometric": geometric_cases,
       "metric_text": metric_text_cases, "vision_ops": vision_ops_cases}


def arrays(result) -> list[np.ndarray]:
    """A case's result as a flat list of numpy arrays (Tensors, PIL images, numbers, lists)."""
    if result is None:  # an output that was not asked for (matrix_nms's index)
        return []
    if isinstance(result, (list, tuple)):
        return [a for item in result for a in arrays(item)]
    if hasattr(result, "getbands"):  # a PIL image
        return [np.asarray(result)]
    if hasattr(result, "numpy") and not isinstance(result, np.ndarray):
        return [np.asarray(result.numpy())]
    return [np.asarray(result)]
