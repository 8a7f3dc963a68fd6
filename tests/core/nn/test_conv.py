"""conv2d and Conv2D: gradients (float64 finite differences), torch parity, layouts, errors."""
import numpy as np
import pytest

import core
from core import backend, nn
from core.nn import initializer
from core.nn.conv import Conv2D
from core.nn.functional import _parallel
from core.nn.functional.conv import conv2d
from tests.gradcheck import check_grad

RNG = np.random.default_rng(0)


def _direct_conv(x, w, b, stride, padding):
    """A slow, obviously right reference: loops over output pixels (NCHW, zero padding)."""
    (sh, sw), (ph, pw) = stride, padding
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    kh, kw = w.shape[2:]
    ho, wo = (xp.shape[2] - kh) // sh + 1, (xp.shape[3] - kw) // sw + 1
    out = np.zeros((x.shape[0], w.shape[0], ho, wo))
    for i in range(ho):
        for j in range(wo):
            patch = xp[:, :, i * sh:i * sh + kh, j * sw:j * sw + kw]
            out[:, :, i, j] = np.einsum("nchw,ochw->no", patch, w)
    return out if b is None else out + b[None, :, None, None]


@pytest.mark.parametrize("stride", [1, 2, (2, 1)])
@pytest.mark.parametrize("padding", [0, 1, 2])
def test_conv2d_gradients_non_square_kernel(stride, padding):
    x, w, b = (RNG.standard_normal(s) for s in ((2, 2, 6, 7), (3, 2, 3, 5), (3,)))
    check_grad(lambda x, w, b: conv2d(x, w, b, stride=stride, padding=padding), x, w, b)
    check_grad(lambda x, w: conv2d(x, w, stride=stride, padding=padding), x, w)


def test_conv2d_matches_direct_loops():
    x, w, b = (RNG.standard_normal(s) for s in ((3, 4, 9, 8), (5, 4, 3, 5), (5,)))
    for stride, padding in (((1, 1), (0, 0)), ((2, 1), (1, 2)), ((2, 3), (2, 1))):
        out = conv2d(*map(core.to_tensor, (x, w, b)), stride=stride, padding=padding)
        np.testing.assert_allclose(out.numpy(), _direct_conv(x, w, b, stride, padding),
                                   rtol=1e-10, atol=1e-12)


def test_conv2d_gradients_with_strided_view_inputs():
    """Inputs that are views with odd strides (a slice, an NCHW view of NHWC memory)."""
    w, b = RNG.standard_normal((3, 2, 3, 3)), RNG.standard_normal(3)
    check_grad(lambda x, w, b: conv2d(x[:, :, ::2, 1::2], w, b, padding=1),
               RNG.standard_normal((2, 2, 11, 12)), w, b)
    nhwc = RNG.standard_normal((2, 7, 6, 2))
    view = core.to_tensor(nhwc).data.transpose(0, 3, 1, 2)  # NCHW view, NHWC memory
    contiguous = backend.array_module(view).ascontiguousarray(view)
    outs = []
    for data in (view, contiguous):
        x = core.Tensor(data, stop_gradient=False)
        out = conv2d(x, core.to_tensor(w), core.to_tensor(b), stride=2, padding=1)
        out.backward(core.to_tensor(np.cos(np.arange(out.size)).reshape(out.shape)))
        outs.append((out.numpy(), x.gradient()))
    np.testing.assert_allclose(outs[0][0], outs[1][0], rtol=1e-12)
    np.testing.assert_allclose(outs[0][1], outs[1][1], rtol=1e-12)


@pytest.mark.parametrize("groups, dilation, padding", [(2, 1, 1), (1, 2, 2), (2, (2, 1), "SAME"),
                                                       (1, 1, [1, 0, 2, 1]), (1, 1, "VALID")])
def test_conv2d_gradients_groups_dilation_and_padding_forms(groups, dilation, padding):
    x, w, b = (RNG.standard_normal(s) for s in ((2, 4, 7, 6), (4, 4 // groups, 3, 2), (4,)))
    check_grad(lambda x, w, b: conv2d(x, w, b, stride=(1, 2), padding=padding,
                                      dilation=dilation, groups=groups), x, w, b)


def test_conv2d_nhwc_matches_nchw():
    x, w, b = (RNG.standard_normal(s) for s in ((2, 3, 8, 9), (4, 3, 3, 5), (4,)))
    ref = conv2d(*map(core.to_tensor, (x, w, b)), stride=2, padding=1).numpy()
    nhwc = conv2d(core.to_tensor(x.transpose(0, 2, 3, 1)), core.to_tensor(w), core.to_tensor(b),
                  stride=2, padding=1, data_format="NHWC")
    np.testing.assert_allclose(nhwc.numpy().transpose(0, 3, 1, 2), ref, rtol=1e-12)
    check_grad(lambda x, w: conv2d(x, w, padding=1, data_format="NHWC"),
               RNG.standard_normal((2, 5, 4, 3)), RNG.standard_normal((2, 3, 3, 3)))


@pytest.mark.parametrize("x_shape, w_shape", [((3, 1, 9, 8), (4, 1, 5, 5)),
                                              ((2, 1, 7, 9), (2, 1, 3, 3))])
def test_conv2d_gradients_single_channel_offset_major_im2col(x_shape, w_shape):
    """One input channel: im2col is stored offset by offset (the layout for short windows)."""
    x, w, b = RNG.standard_normal(x_shape), RNG.standard_normal(w_shape), RNG.standard_normal(
        w_shape[0])
    check_grad(lambda x, w, b: conv2d(x, w, b, padding=2), x, w, b)
    np.testing.assert_allclose(conv2d(*map(core.to_tensor, (x, w, b)), padding=(2, 1)).numpy(),
                               _direct_conv(x, w, b, (1, 1), (2, 1)), rtol=1e-10, atol=1e-12)


_LARGE = (256, 1024)  # 1 MB: above recycled_empty's size floor


def test_recycled_arrays_are_reused_only_when_unreferenced():
    first = _parallel.recycled_empty(np, _LARGE, np.float32)
    second = _parallel.recycled_empty(np, _LARGE, np.float32)
    assert second is not first  # `first` is still referenced
    view, first_id = first.T, id(first)
    del first
    third = _parallel.recycled_empty(np, _LARGE, np.float32)
    assert id(third) != first_id  # a view still references it
    second_id = id(second)
    del view, second
    fourth = _parallel.recycled_empty(np, _LARGE, np.float32)
    assert id(fourth) in (first_id, second_id)  # reused: nothing references those any more


def test_small_arrays_are_never_recycled():
    """Under the size floor every call is a fresh array (glibc's heap serves them cheaply)."""
    kept = [_parallel.recycled_empty(np, (3, 5), np.float32) for _ in range(4)]
    assert len({id(a) for a in kept}) == 4 and all(a.shape == (3, 5) for a in kept)
    assert not any(key[0] == (3, 5) for key in _parallel._recycled)


@pytest.mark.usefixtures("split_small_work")
@pytest.mark.parametrize("stride", [1, 2])  # dx from the spread gradient, and by col2im
def test_conv2d_threaded_and_single_thread_agree(stride):
    """The batch split over core's threads gives the same values as one thread, run after run
    (and the same bits for a given thread count)."""
    x, w, b = (RNG.standard_normal(s).astype(np.float32) for s in ((9, 3, 10, 10), (4, 3, 3, 3),
                                                                   (4,)))
    results = []
    for count in (1, 2, 2, 3):
        core.device.set_num_threads(count)
        try:
            xt, wt = core.to_tensor(x, stop_gradient=False), core.to_tensor(w, stop_gradient=False)
            bt = core.to_tensor(b, stop_gradient=False)
            out = conv2d(xt, wt, bt, padding=1, stride=stride)
            out.backward(core.to_tensor(np.sin(np.arange(out.size)).reshape(out.shape)
                                        .astype(np.float32)))
            results.append([out.numpy(), xt.gradient(), wt.gradient(), bt.gradient()])
        finally:
            core.device.set_num_threads(1)
    for result in results[1:]:
        for got, want in zip(result, results[0]):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    for got, want in zip(results[2], results[1]):
        np.testing.assert_array_equal(got, want)  # deterministic for a given thread count


def test_conv2d_matches_torch():
    torch = pytest.importorskip("torch")
    cases = [((4, 3, 12, 11), (6, 3, 3, 5), 1, 2, 1, 1), ((5, 4, 13, 10), (6, 2, 3, 3), 2, 1, 1, 2),
             ((3, 2, 14, 14), (4, 2, 5, 5), (1, 2), (2, 0), 2, 1),
             ((100, 20, 14, 14), (20, 20, 5, 5), 1, 2, 1, 1),
             # strided: dx by col2im, over several blocks of images; a 1x1 projection
             ((40, 16, 28, 28), (32, 16, 3, 3), 2, 1, 1, 1),
             ((8, 16, 14, 14), (32, 16, 1, 1), 2, 0, 1, 1),
             ((6, 4, 17, 16), (6, 2, 3, 3), (3, 2), 2, 2, 2)]
    for x_shape, w_shape, stride, padding, dilation, groups in cases:
        x, w = RNG.standard_normal(x_shape), RNG.standard_normal(w_shape)
        b, g = RNG.standard_normal(w_shape[0]), None
        tensors = [core.to_tensor(a, stop_gradient=False) for a in (x, w, b)]
        out = conv2d(*tensors, stride=stride, padding=padding, dilation=dilation, groups=groups)
        g = RNG.standard_normal(out.shape)
        out.backward(core.to_tensor(g))
        refs = [torch.tensor(a, requires_grad=True) for a in (x, w, b)]
        ref = torch.nn.functional.conv2d(*refs, stride=stride, padding=padding,
                                         dilation=dilation, groups=groups)
        ref.backward(torch.tensor(g))
        np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-9, atol=1e-9)
        for ours, theirs in zip(tensors, refs):
            np.testing.assert_allclose(ours.gradient(), theirs.grad.numpy(), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("keep_bytes", [1 << 24, 0])  # the kept matrix, and the rebuild
@pytest.mark.parametrize("x_shape, w_shape, stride, padding, bias", [
    ((60, 1, 28, 28), (20, 1, 5, 5), 1, 2, True),     # offset-major im2col, several blocks
    ((7, 3, 9, 8), (4, 3, 3, 2), (2, 1), 1, True),    # window-major
    ((7, 3, 9, 8), (4, 3, 3, 3), 1, 0, False)])
def test_conv2d_first_layer_weight_gradients_match_torch(monkeypatch, keep_bytes, x_shape,
                                                         w_shape, stride, padding, bias):
    """An input that needs no gradient (a first layer): the weight and bias gradients come from
    the forward pass's im2col matrix, or from a rebuilt one when it is too large to keep."""
    torch = pytest.importorskip("torch")
    monkeypatch.setattr("core.nn.functional.conv._KEEP_BYTES", keep_bytes)
    x = RNG.standard_normal(x_shape).astype(np.float32)
    w = RNG.standard_normal(w_shape).astype(np.float32)
    b = RNG.standard_normal(w_shape[0]).astype(np.float32) if bias else None
    params = [core.to_tensor(a, stop_gradient=False) for a in (w, b) if a is not None]
    out = conv2d(core.to_tensor(x), *params, stride=stride, padding=padding)
    g = RNG.standard_normal(out.shape).astype(np.float32)
    out.backward(core.to_tensor(g))
    refs = [torch.tensor(a, requires_grad=True) for a in (w, b) if a is not None]
    ref = torch.nn.functional.conv2d(torch.tensor(x), *refs, stride=stride, padding=padding)
    ref.backward(torch.tensor(g))
    np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-4, atol=1e-4)
    for ours, theirs in zip(params, refs):
        np.testing.assert_allclose(ours.gradient(), theirs.grad.numpy(), rtol=1e-4, atol=2e-3)


def test_conv2d_only_computes_needed_gradients():
    x = core.to_tensor(RNG.standard_normal((2, 1, 6, 6)).astype(np.float32))
    w = core.to_tensor(RNG.standard_normal((3, 1, 3, 3)).astype(np.float32), stop_gradient=False)
    conv2d(x, w).backward()
    assert x.gradient() is None and w.gradient().shape == (3, 1, 3, 3)


@pytest.mark.parametrize("kwargs, message", [
    ({"w_shape": (3, 2, 3, 3)}, "channels"), ({"padding": -1}, "padding"),
    ({"padding": "FULL"}, "SAME"), ({"stride": 0}, "stride"), ({"groups": 2}, "divisible"),
    ({"w_shape": (3, 3, 9, 9)}, "does not fit"), ({"data_format": "CHWN"}, "data_format"),
    ({"bias_shape": (4,)}, "bias"), ({"w_dtype": np.float64}, "dtype")])
def test_conv2d_rejects_bad_arguments(kwargs, message):
    x = core.to_tensor(np.zeros((1, 3, 6, 6), np.float32))
    w = core.to_tensor(np.zeros(kwargs.pop("w_shape", (3, 3, 3, 3)), kwargs.pop("w_dtype",
                                                                                np.float32)))
    b = core.to_tensor(np.zeros(kwargs.pop("bias_shape", (3,)), np.float32))
    with pytest.raises((ValueError, TypeError), match=message):
        conv2d(x, w, b, **kwargs)


def test_conv2d_layer_parameters_init_and_forward():
    core.seed(0)
    layer = Conv2D(4, 8, (3, 5), padding=1)
    assert layer.weight.shape == [8, 4, 3, 5] and layer.bias.shape == [8]
    assert not layer.weight.stop_gradient and layer.weight.dtype == np.float32
    np.testing.assert_array_equal(layer.bias.numpy(), np.zeros(8))
    std = np.sqrt(2.0 / (4 * 3 * 5))  # Paddle's conv default: normal, std sqrt(2 / fan_in)
    assert abs(layer.weight.numpy().std() - std) < 0.15 * std
    x = RNG.standard_normal((2, 4, 6, 7)).astype(np.float32)
    expected = _direct_conv(x, layer.weight.numpy(), layer.bias.numpy(), (1, 1), (1, 1))
    np.testing.assert_allclose(layer(core.to_tensor(x)).numpy(), expected, rtol=1e-4, atol=1e-5)
    assert [n for n, _ in layer.named_parameters()] == ["weight", "bias"]
    assert Conv2D(2, 4, 3, bias_attr=False).bias is None
    grouped = Conv2D(4, 6, 3, groups=2, weight_attr={"initializer": None})
    assert grouped.weight.shape == [6, 2, 3, 3]
    fixed = Conv2D(1, 1, 2, weight_attr=type("Attr", (), {"initializer": initializer.Constant(
        0.5)})())
    np.testing.assert_array_equal(fixed.weight.numpy(), np.full((1, 1, 2, 2), 0.5))
    with pytest.raises(ValueError, match="groups"):
        Conv2D(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="padding_mode='mirror' is not supported; use 'zeros', "
                                         "'reflect', 'replicate', 'circular'"):
        Conv2D(3, 4, 3, padding_mode="mirror")


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("dims, padding", [(1, 2), (1, [1, 2]), (2, 1), (2, [1, 2]),
                                           (2, [1, 0, 2, 1]), (3, 1), (3, [1, 0, 1])],
                         ids=["1d-int", "1d-pairs", "2d-int", "2d-per-axis", "2d-pairs",
                              "3d-int", "3d-per-axis"])
def test_padding_modes_pad_the_input_first_as_paddle_and_torch(mode, dims, padding):
    """Paddle's Conv1D/2D/3D(padding_mode=...): pad the input that way, then convolve unpadded
    (torch's Conv*d(padding_mode=...) does the same for equal padding per side)."""
    rng = np.random.default_rng(dims)
    layer = {1: nn.Conv1D, 2: Conv2D, 3: nn.Conv3D}[dims](2, 3, 3, padding=padding,
                                                          padding_mode=mode)
    x = rng.standard_normal((2, 2, *[5] * dims))
    widths = ([(padding, padding)] * dims if isinstance(padding, int) else
              [(p, p) for p in padding] if len(padding) == dims else
              [tuple(padding[2 * i:2 * i + 2]) for i in range(dims)])
    numpy_mode = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}[mode]
    padded = np.pad(x, [(0, 0), (0, 0), *widths], mode=numpy_mode)
    plain = {1: nn.functional.conv1d, 2: conv2d, 3: nn.functional.conv3d}[dims]
    expected = plain(core.to_tensor(padded.astype(np.float32)), layer.weight, layer.bias).numpy()
    out = layer(core.to_tensor(x.astype(np.float32)))
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5, atol=1e-5)
    assert f"padding={padding}" in repr(layer)  # the padding as given, not 0
    if dims == 2 and isinstance(padding, int):
        torch = pytest.importorskip("torch")
        theirs = torch.nn.Conv2d(2, 3, 3, padding=padding, padding_mode=mode)
        with torch.no_grad():
            theirs.weight.copy_(torch.from_numpy(layer.weight.numpy()))
            theirs.bias.copy_(torch.from_numpy(layer.bias.numpy()))
        np.testing.assert_allclose(out.numpy(), theirs(torch.from_numpy(
            x.astype(np.float32))).detach().numpy(), rtol=1e-5, atol=1e-5)
    layer64 = {1: nn.Conv1D, 2: Conv2D, 3: nn.Conv3D}[dims](1, 1, 2, padding=padding,
                                                            padding_mode=mode)
    layer64.to(dtype="float64")
    check_grad(lambda t: layer64(t), rng.standard_normal((1, 1, *[3] * dims)))


@pytest.mark.parametrize("call, match", [
    (lambda: Conv2D(2, 3, 3, padding="SAME", padding_mode="reflect"), "cannot be a string"),
    (lambda: Conv2D(2, 3, 3, padding=[1, 2, 3], padding_mode="reflect"),
     "must be an int >= 0, 2 ints or 4 ints"),
    (lambda: nn.Conv1D(2, 3, 3, padding=-1, padding_mode="circular"), "padding=-1"),
    (lambda: nn.Conv1D(2, 3, 3, data_format="NCHW"), "data_format must be 'NCL' or 'NLC'"),
])
def test_padding_mode_errors_name_the_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize("stride", [1, 2])
def test_partial_blocks_share_their_full_blocks_plan(monkeypatch, stride):
    """Blocks of a few images over a batch of 8 end in a shorter block: it runs on the full
    block's plan (no plan of its own) and gives the values of whole-batch blocks."""
    from core.nn.functional import conv as conv_module  # noqa: PLC0415 - its block size

    # float64: the blocked and whole-batch sums differ only in their order, so the comparison
    # can be tight (in float32 that order moved a weight gradient by 1e-5 in a no-torch run).
    x, w, b = (RNG.standard_normal(s) for s in ((8, 3, 9, 9), (4, 3, 3, 3), (4,)))
    g = np.cos(np.arange(8 * 4 * 9 * 9))

    def run():
        xt, wt = core.to_tensor(x, stop_gradient=False), core.to_tensor(w, stop_gradient=False)
        bt = core.to_tensor(b, stop_gradient=False)
        out = conv2d(xt, wt, bt, padding=1, stride=stride)
        out.backward(core.to_tensor(g[:out.size].reshape(out.shape)))
        return [out.numpy(), xt.gradient(), wt.gradient(), bt.gradient()]

    previous = core.device.get_num_threads()
    core.device.set_num_threads(1)
    try:
        whole = run()
        per_image = 3 * 3 * 3 * 9 * 9 * 8 // stride ** 2  # k * output pixels * float64 bytes
        monkeypatch.setattr(conv_module, "_BLOCK_BYTES", 3 * per_image)
        _parallel._local.cache = None  # this thread's plans, built afresh below
        blocked = run()
        plans = [key for key in _parallel._local.cache if key[0] == "conv2d"]
    finally:
        core.device.set_num_threads(previous)
    for got, want in zip(blocked, whole):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)
    tags = [key[1] for key in plans]  # one plan per direction, none for the shorter tails
    assert sorted(tags) == sorted(set(tags)) and len(tags) >= 2


@pytest.mark.usefixtures("on_cpu")  # the host's per-thread buffers (keyed by array module)
def test_plans_of_every_geometry_share_one_matrix_buffer_per_thread():
    """Each conv geometry keeps its own im2col plan, but all plans on a thread multiply out of
    one shared matrix buffer (and the col2im sources out of another): convs of different
    geometries run in turn must still give exactly what each gives alone, the folded bias's
    column of ones included, forward and backward."""
    cases = [  # (x shape, w shape, stride, padding, bias): stride 2 goes through col2im
        ((2, 3, 9, 9), (4, 3, 3, 3), 1, 1, True),
        ((2, 4, 8, 8), (5, 4, 3, 3), 2, 1, True),
        ((2, 5, 6, 7), (2, 5, 1, 1), 1, 0, False),
    ]

    def run(x_shape, w_shape, stride, padding, bias):
        rng = np.random.default_rng(sum(x_shape) + stride)
        x, w, b = (rng.standard_normal(s) for s in (x_shape, w_shape, w_shape[:1]))
        tensors = [core.to_tensor(a, stop_gradient=False) for a in (x, w, b)]
        out = conv2d(*tensors[:2], tensors[2] if bias else None, stride=stride, padding=padding)
        out.backward(core.to_tensor(np.sin(np.arange(out.size)).reshape(out.shape)))
        return [out.numpy()] + [t.gradient() for t in tensors[:2 + bias]]

    previous = core.device.get_num_threads()
    core.device.set_num_threads(1)
    try:
        _parallel._local.cache = _parallel._local.shared = None
        alone = []
        for case in cases:  # each with the shared buffers fresh
            _parallel._local.cache = _parallel._local.shared = None
            alone.append(run(*case))
        _parallel._local.cache = _parallel._local.shared = None
        interleaved = [run(*case) for case in cases + cases[::-1]]
        plans = [p for key, p in _parallel._local.cache.items() if key[0] == "conv2d"]
    finally:
        core.device.set_num_threads(previous)
    for got, want in zip(interleaved, alone + alone[::-1]):
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)
    assert len(plans) >= 4
    shared = _parallel._local.shared
    matrices, sources = (shared[(slot, "numpy", np.dtype(np.float64).str)]
                         for slot in ("matrix", "source"))
    assert all(np.shares_memory(p.matrix, matrices) for p in plans)
    # col2im's sources (the stride-2 case) and the unpadded 1x1 conv's share one buffer too;
    # padded sources keep their own zeros
    in_shared = [key[1] for key, p in _parallel._local.cache.items()
                 if key[0] == "conv2d" and np.shares_memory(p.source, sources)]
    assert "dx" in in_shared and "x" in in_shared
    assert any(not p.shared_source for p in plans)
