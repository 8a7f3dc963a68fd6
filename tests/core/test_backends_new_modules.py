"""The modules added on 2026-11-26 compute on every backend what they compute on numpy.

The same harness as tests/core/test_backends.py: each case runs once on the CPU (the reference)
and once on the ``device`` fixture's backend (numpy always; cupy where a GPU is present, skipped
with the reason otherwise), from the same inputs; outputs and input gradients must agree within
float32 tolerance, and the output must live on the device's array module. Here: core.signal,
core.audio, core.text's Viterbi decoding, LKJCholesky, core.sparse (the point-cloud conv3d,
subm_conv3d, max_pool3d and BatchNorm too), core.amp's GradScaler, multi_precision master
weights, PyLayer, jacobian, create_graph, the conv + batch norm fold, core.save / core.load and
the profiler's GPU target.
"""
from __future__ import annotations

import numpy as np
import pytest

import core
import core.amp
from core import backend, nn

RNG = np.random.default_rng(11)


def _x(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def _on(device: str, fn, arrays):
    """``fn`` of the arrays as Tensors on ``device``: (output, its host values, input grads)."""
    backend.set_device(device)
    tensors = [core.to_tensor(a, stop_gradient=a.dtype.kind != "f") for a in arrays]
    out = fn(*tensors)
    grads = []
    if not out.stop_gradient:
        weights = np.cos(np.arange(out.size, dtype=np.float32)).reshape(out.shape)
        out.backward(core.to_tensor(weights.astype(out.numpy().dtype)))
        grads = [t.grad.numpy() for t in tensors if not t.stop_gradient]
    return out, out.numpy(), grads


def _module_of(array) -> str:
    return type(array).__module__.split(".")[0]


def _expected_module(device: str) -> str:
    return "numpy" if device == "cpu" else "cupy"


_LKJ_VALUE = np.linalg.cholesky(np.array([[1.0, 0.3, 0.1], [0.3, 1.0, -0.2],
                                          [0.1, -0.2, 1.0]])).astype(np.float32)
_COO = ([[0, 1, 1, 2, 0], [1, 0, 2, 2, 1]], [4, 3])  # position (0, 1) twice: coalesced first
# A batch of two voxel clouds [2, 4, 4, 4, C] (core.sparse.nn's point-cloud ops): 7 sites, the
# first two neighbours, site (1, 3, 3, 3) on the far corner.
_VOX = [[0, 0, 0, 0, 1, 1, 1], [0, 0, 2, 3, 1, 1, 3], [0, 1, 1, 0, 2, 2, 3],
        [0, 0, 3, 2, 1, 0, 3]]
_VOX_SHAPE = [2, 4, 4, 4, 3]


def _voxels(values):
    return core.sparse.sparse_coo_tensor(core.to_tensor(_VOX), values, _VOX_SHAPE)

# (name, fn(*tensors) -> Tensor, inputs); floating inputs receive gradients.
CASES = [
    ("frame", lambda x: core.signal.frame(x, 5, 2), [_x(3, 17)]),
    ("overlap_add", lambda x: core.signal.overlap_add(x, 3), [_x(2, 6, 4)]),
    ("stft_magnitude", lambda x: core.abs(core.signal.stft(x, 16, 4, window=core.ones([16]))),
     [_x(2, 64)]),
    ("stft_istft", lambda x: core.signal.istft(core.signal.stft(x, 16, 4), 16, 4), [_x(2, 64)]),
    ("mel_spectrogram", lambda x: core.audio.features.MelSpectrogram(
        sr=8000, n_fft=32, hop_length=8, n_mels=6)(x), [np.abs(_x(2, 96))]),
    ("viterbi_scores", lambda p, t, n: core.text.viterbi_decode(p, t, n)[0],
     [_x(3, 5, 4), _x(4, 4), np.array([5, 2, 3], dtype=np.int64)]),
    ("viterbi_paths", lambda p, t, n: core.text.viterbi_decode(p, t, n, False)[1],
     [_x(3, 5, 4), _x(4, 4), np.array([5, 2, 1], dtype=np.int64)]),
    ("lkj_log_prob", lambda v: core.distribution.LKJCholesky(3, 1.5).log_prob(v),  # on the device
     [_LKJ_VALUE]),
    ("sparse_coo_matmul", lambda v, y: core.sparse.matmul(
        core.sparse.sparse_coo_tensor(core.to_tensor(_COO[0]), v, _COO[1]), y),
     [_x(5), _x(3, 2)]),
    ("sparse_add_to_dense", lambda v, w: core.sparse.add(
        core.sparse.sparse_coo_tensor(core.to_tensor(_COO[0]), v, _COO[1]),
        core.sparse.sparse_coo_tensor(core.to_tensor(_COO[0]), w, _COO[1])).to_dense(),
     [_x(5), _x(5)]),
    ("sparse_conv3d", lambda v, w, b: core.sparse.nn.functional.conv3d(
        _voxels(v), w, b, stride=2, padding=1).to_dense(), [_x(7, 3), _x(3, 3, 3, 3, 2), _x(2)]),
    ("sparse_subm_conv3d", lambda v, w: core.sparse.nn.functional.subm_conv3d(
        _voxels(v), w, key="backends").to_dense(), [_x(7, 3), _x(3, 3, 3, 3, 2)]),
    ("sparse_max_pool3d", lambda v: core.sparse.nn.functional.max_pool3d(
        _voxels(v), 2, padding=1, stride=1).to_dense(), [_x(7, 3)]),
    ("sparse_batch_norm", lambda v: core.sparse.nn.BatchNorm(3)(_voxels(v)).values(),
     [_x(7, 3)]),
    ("jacobian", lambda x: core.autograd.jacobian(core.tanh(x) * x, x)[:], [_x(4)]),
    ("create_graph", lambda x: core.grad(core.sum(core.exp(x) * core.sin(x)), x,
                                         create_graph=True)[0], [_x(5)]),
]


@pytest.mark.parametrize("name,fn,arrays", CASES, ids=[c[0] for c in CASES])
def test_new_modules_match_numpy(device, name, fn, arrays):
    _, want, want_grads = _on("cpu", fn, arrays)
    out, got, got_grads = _on(device, fn, arrays)
    assert _module_of(out.data) == _expected_module(device), name
    np.testing.assert_allclose(got, want, rtol=2e-4, atol=2e-5, err_msg=name)
    assert len(got_grads) == len(want_grads)
    for i, (g, w) in enumerate(zip(got_grads, want_grads)):
        np.testing.assert_allclose(g, w, rtol=2e-4, atol=2e-5, err_msg=f"{name} grad {i}")


class _Cube(core.autograd.PyLayer):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensor()
        return grad * 3 * x * x


def test_pylayer_runs_on_the_device_backend(device):
    x = core.to_tensor(_x(6), stop_gradient=False)
    out = _Cube.apply(x)
    out.sum().backward()
    assert _module_of(out.data) == _module_of(x.grad.data) == _expected_module(device)
    np.testing.assert_allclose(x.grad.numpy(), 3 * x.numpy() ** 2, rtol=1e-6)


# (loss scale, the gradients scaled by it, as float16 holds them)
_SCALED = [(1000.0, np.array([0.5, -1.0, 2.0, 3.0]) * 1000.0),
           (2.0 ** 26, np.array([1.0, 2.0, 3.0, -3.0]) * 2.0 ** 14)]  # true: those * 2**-12


@pytest.mark.parametrize("scale,scaled", _SCALED, ids=["1000", "2**26"])
def test_float16_gradients_are_unscaled_in_float32(device, scale, scaled):
    """1/scale is applied in float32 on every backend: as a float16 it would be rounded (1/1000)
    or flushed to 0 (2**-26, below float16's smallest subnormal)."""
    backend.set_device(device)
    scaler = core.amp.GradScaler(init_loss_scaling=scale)
    param = core.create_parameter([4], "float16",
                                  default_initializer=nn.initializer.Constant(1.0))
    scaled = scaled.astype(np.float16)
    param.grad_data = backend.asarray(scaled.copy())  # unscaled in place: not ``scaled``
    scaler.unscale_(core.optimizer.SGD(0.1, parameters=[param]))
    got = param.grad.numpy()
    assert got.dtype == np.float16 and _module_of(param.grad_data) == _expected_module(device)
    want = (scaled.astype(np.float32) * np.float32(1 / scale)).astype(np.float16)
    assert np.all(want != 0)
    np.testing.assert_array_equal(got, want)


def test_scaler_state_with_a_device_array_scale_loads(device):
    """A state whose scale is a device array (a raw cupy array, not a Tensor) loads."""
    backend.set_device(device)
    state = core.amp.GradScaler(init_loss_scaling=512.0).state_dict()
    state["scale"] = backend.asarray(state["scale"])
    scaler = core.amp.GradScaler()
    scaler.load_state_dict(state)
    assert scaler.get_init_loss_scaling() == 512.0


def test_master_weights_live_on_the_parameters_device(device):
    param = core.create_parameter([3], "float16", default_initializer=nn.initializer.Constant(1.0))
    sgd = core.optimizer.SGD(1e-4, parameters=[param], multi_precision=True)
    for _ in range(3):
        param.grad_data = backend.asarray(np.ones(3, dtype=np.float16))
        sgd.step()
        sgd.clear_grad()
    master = sgd.state_dict()["master_weights"][param.name]
    assert _module_of(master.data) == _module_of(param.data) == _expected_module(device)
    np.testing.assert_allclose(master.numpy(), 1 - 3e-4, rtol=1e-6)


def test_conv_batch_norm_fold_on_the_device_backend(device):
    backend.set_device(device)
    core.seed(5)
    model = nn.Sequential(nn.Conv2D(2, 3, 3, padding=1), nn.BatchNorm2D(3))
    model.eval()
    x = core.to_tensor(_x(2, 2, 5, 5))
    with core.no_grad():
        folded = model(x)  # the fold runs here (no gradient, running statistics)
    unfolded = model[1](model[0](x))  # a layer alone: no fold
    assert _module_of(folded.data) == _expected_module(device)
    np.testing.assert_allclose(folded.numpy(), unfolded.numpy(), rtol=1e-4, atol=1e-5)


def test_save_and_load_put_tensors_on_the_current_device(device, tmp_path):
    backend.set_device(device)
    path = str(tmp_path / "state.pdparams")
    values = _x(2, 3)
    core.save({"w": core.to_tensor(values), "n": 3}, path)
    loaded = core.load(path)
    assert _module_of(loaded["w"].data) == _expected_module(device) and loaded["n"] == 3
    np.testing.assert_array_equal(loaded["w"].numpy(), values)


def test_profiler_ranges_on_the_device_backend(device, capsys):
    """With the device's target the ranges synchronise the current device (a no-op on the CPU)
    and still record."""
    backend.set_device(device)
    x = core.to_tensor(_x(64, 64))
    with core.profiler.Profiler(on_trace_ready=lambda p: None) as prof:
        with core.profiler.RecordEvent("device_matmul"):
            (x @ x).numpy()
        prof.step()
    prof.summary(views=core.profiler.SummaryView.UDFView)
    assert "device_matmul" in capsys.readouterr().out
