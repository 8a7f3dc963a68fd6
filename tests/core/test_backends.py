"""Every backend computes what numpy computes: ops, layers and fused kernels, forward and backward.

Each case runs once on the CPU (the reference) and once on the ``device`` fixture's backend
(numpy always; cupy where a GPU is present, skipped with the reason otherwise), from the same
float32 inputs; outputs and input gradients must agree within float32 tolerance. The whole suite
can also run on a GPU with TOMLRUN_TEST_DEVICE=gpu:0 (tests/conftest.py).
"""
from __future__ import annotations

import numpy as np
import pytest

import core
from core import backend
from core.backend_kernels import HostKernels, adam_factors
from core.nn import functional as F
from core.nn.functional import rnn as R
from tests.gradcheck import check_grad

RNG = np.random.default_rng(7)


def _x(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def _labels(n, classes):
    return RNG.integers(0, classes, n).astype(np.int64)


_LENGTHS = np.array([5, 2, 0, 4])  # a recurrence's ragged rows, one of them empty

# (name, fn(*tensors) -> Tensor, inputs); floating inputs receive gradients.
CASES = [
    ("relu", F.relu, [_x(4, 7)]),
    ("sigmoid", F.sigmoid, [_x(4, 7)]),
    ("tanh", F.tanh, [_x(4, 7)]),
    ("softmax", lambda x: F.softmax(x, axis=1), [_x(3, 5, 2)]),
    ("log_softmax", F.log_softmax, [_x(4, 6)]),
    ("cross_entropy", F.cross_entropy, [_x(8, 5), _labels(8, 5)]),
    ("cross_entropy_ignore", lambda x, y: F.cross_entropy(x, y, ignore_index=2),
     [_x(8, 5), _labels(8, 5)]),
    ("cross_entropy_none", lambda x, y: F.cross_entropy(x, y, reduction="none"),
     [_x(6, 4), _labels(6, 4)]),
    ("mse", F.mse_loss, [_x(5, 3), _x(5, 3)]),
    ("linear", F.linear, [_x(4, 6), _x(6, 3), _x(3)]),
    ("matmul", lambda a, b: a @ b, [_x(2, 3, 4), _x(4, 5)]),
    ("conv2d", lambda x, w, b: F.conv2d(x, w, b, padding=2), [_x(3, 2, 9, 9), _x(4, 2, 5, 5),
                                                             _x(4)]),
    ("conv2d_strided", lambda x, w: F.conv2d(x, w, stride=2, padding=1, dilation=2),
     [_x(2, 3, 11, 10), _x(4, 3, 3, 3)]),
    ("conv2d_groups", lambda x, w: F.conv2d(x, w, groups=2, padding="SAME"),
     [_x(2, 4, 7, 7), _x(6, 2, 3, 3)]),
    ("conv2d_nhwc", lambda x, w: F.conv2d(x, w, data_format="NHWC"), [_x(2, 6, 6, 3),
                                                                      _x(2, 3, 3, 3)]),
    ("max_pool", lambda x: F.max_pool2d(x, 2), [_x(2, 3, 8, 8)]),
    ("max_pool_overlap", lambda x: F.max_pool2d(x, 3, stride=2, padding=1), [_x(2, 3, 9, 9)]),
    ("avg_pool", lambda x: F.avg_pool2d(x, 3, stride=2, padding=1), [_x(2, 3, 9, 9)]),
    ("batch_norm", lambda x, w, b: F.batch_norm(
        x, core.zeros([3]), core.ones([3]), w, b, training=True), [_x(4, 3, 5, 5), _x(3), _x(3)]),
    ("reductions", lambda x: core.mean(core.max(x, axis=1) * core.sum(x, axis=1)), [_x(5, 4)]),
    ("manipulation", lambda x: core.concat([core.transpose(x, [1, 0]), x.reshape([4, 3])[:3]]),
     [_x(3, 4)]),
    ("exp_log_sqrt", lambda x: core.sqrt(core.exp(x) + 1) * core.log(core.abs(x) + 1), [_x(3, 4)]),
    # The recurrences' fused step kernels (core.recurrent_kernels), ragged rows and full ones.
    ("gru", R.gru, [_x(4, 5, 3), _x(4, 6), _x(18, 3), _x(18, 6), _x(18), _x(18), _LENGTHS]),
    ("gru_no_biases", R.gru, [_x(3, 4, 2), _x(3, 5), _x(15, 2), _x(15, 5)]),
    ("lstm", R.lstm, [_x(4, 5, 3), _x(4, 6), _x(4, 6), _x(24, 3), _x(24, 6), _x(24), _x(24),
                      _LENGTHS]),
    ("simple_rnn_tanh", R.simple_rnn, [_x(4, 5, 3), _x(4, 6), _x(6, 3), _x(6, 6), _x(6), _x(6),
                                       _LENGTHS]),
    ("simple_rnn_relu", lambda *a: R.simple_rnn(*a, activation="relu"),
     [_x(4, 5, 3), _x(4, 6), _x(6, 3), _x(6, 6), _x(6), _x(6), _LENGTHS]),
]


def _run(fn, arrays, device):
    backend.set_device(device)
    tensors = [core.to_tensor(a, stop_gradient=a.dtype.kind != "f") for a in arrays]
    out = fn(*tensors)
    weights = np.cos(np.arange(out.size, dtype=np.float32)).reshape(out.shape)
    out.backward(core.to_tensor(weights))
    grads = [t.grad.numpy() for t in tensors if not t.stop_gradient]
    return out, out.numpy(), grads


@pytest.mark.parametrize("name,fn,arrays", CASES, ids=[c[0] for c in CASES])
def test_backend_matches_numpy(device, name, fn, arrays):
    _, want, want_grads = _run(fn, arrays, "cpu")
    out, got, got_grads = _run(fn, arrays, device)
    assert type(out.data).__module__.split(".")[0] == ("numpy" if device == "cpu" else "cupy")
    np.testing.assert_allclose(got, want, rtol=2e-4, atol=2e-5, err_msg=name)
    for i, (g, w) in enumerate(zip(got_grads, want_grads)):
        np.testing.assert_allclose(g, w, rtol=2e-4, atol=2e-5, err_msg=f"{name} grad {i}")


def test_gradients_on_the_device_backend(device):
    """Autograd on the device backend passes float64 finite differences, like on numpy."""
    check_grad(lambda x, w, y: F.cross_entropy(F.relu(F.conv2d(x, w, padding=1)).reshape(
        [2, -1])[:, :6], y), _x(2, 1, 4, 4), _x(2, 1, 3, 3), _labels(2, 6))


# ----- the fused kernels against float64 formulas ---------------------------------------------
# A few rows; many rows spanning little (one shift for all on the host); many spanning much.
@pytest.mark.parametrize("batch,scale", [(6, 5.0), (512, 2.0), (512, 50.0)])
def test_relu_grad_and_softmax_xent_kernels(device, batch, scale):
    xp = backend.xp()
    kernels = backend.kernels(xp.zeros(1))
    g, out = _x(5, 4), _x(5, 4)
    got = backend.to_numpy(kernels.relu_grad(xp.asarray(g), xp.asarray(out)))
    np.testing.assert_array_equal(got, np.where(out > 0, g, 0))
    rows, labels, coef = _x(batch, 9) * scale, _labels(batch, 9), _x(batch)
    nll, probs = kernels.softmax_xent(xp.asarray(rows), xp.asarray(labels))
    r64 = rows.astype(np.float64)
    p64 = np.exp(r64 - r64.max(1, keepdims=True))
    p64 /= p64.sum(1, keepdims=True)
    np.testing.assert_allclose(backend.to_numpy(probs), p64, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(backend.to_numpy(nll), -np.log(p64[np.arange(batch), labels]),
                               rtol=1e-5, atol=1e-6)
    grad = kernels.softmax_xent_grad(probs, xp.asarray(labels), xp.asarray(coef))
    want = p64 * coef[:, None]
    want[np.arange(batch), labels] -= coef
    np.testing.assert_allclose(backend.to_numpy(grad), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("spread", [10.0, 100.0, np.inf])
def test_exp_shift_keeps_exponents_at_most_zero_and_each_rows_top_above_minus_32(device, spread):
    """The softmax's shift: on the host one scalar for a large block spanning <= 32, each row's
    maximum otherwise (and always on the device); the bounds hold whichever it is."""
    xp = backend.xp()
    rng = np.random.default_rng(3)
    lift = np.linspace(0, min(spread, 1e3), 128)[:, None]  # rows at different heights
    rows = (rng.uniform(0, 1, (128, 64)) + lift).astype(np.float32)
    rows[5, 0] = spread if np.isinf(spread) else rows[5, 0]
    shift = backend.to_numpy(backend.kernels(xp.zeros(1)).exp_shift(xp.asarray(rows)))
    assert (shift.ndim == 0) == (xp is np and spread <= 32)
    per_row = np.broadcast_to(shift, (128, 1))
    finite = np.isfinite(rows).all(axis=1)
    assert (rows[finite] - per_row[finite]).max() <= 0
    assert (rows[finite].max(axis=1) - per_row[finite, 0]).min() >= -32


@pytest.mark.parametrize("index", [[3, 0, 3, 5, 0, 3], [4, 1, 2], []])
def test_sum_by_index_adds_repeated_rows_in_order(device, index):
    """As add.at: each repeated index's rows summed in their order (the same bits on the host),
    absent indices zero."""
    xp = backend.xp()
    values = _x(len(index), 4) if index else np.zeros((0, 4), np.float32)
    want = np.zeros((6, 4), np.float32)
    np.add.at(want, np.asarray(index, dtype=np.int64), values)
    got = backend.kernels(xp.zeros(1)).sum_by_index(xp.asarray(values),
                                                    xp.asarray(index, dtype=np.int64), 6)
    np.testing.assert_array_equal(backend.to_numpy(got), want)


def test_adam_kernel_matches_the_host_formula(device):
    xp = backend.xp()
    param, grad, m, v = _x(7, 3), _x(7, 3), _x(7, 3) * 0.1, np.abs(_x(7, 3)) * 0.1
    want = [a.astype(np.float64) for a in (param, m, v)]
    eps, step = adam_factors(0.01, 0.9, 0.999, 1e-8, 3)
    HostKernels(np).adam(want[0], grad.astype(np.float64), want[1], want[2], 0.9, 0.999, eps,
                         step)
    got = [xp.asarray(a) for a in (param, m, v)]
    backend.kernels(got[0]).adam(got[0], xp.asarray(grad), got[1], got[2], 0.9, 0.999, eps, step)
    for g, w, name in zip(got, want, ("param", "moment1", "moment2")):
        np.testing.assert_allclose(backend.to_numpy(g), w, rtol=1e-5, atol=1e-7, err_msg=name)


def test_training_steps_match_between_backends(device):
    """A small CNN trained for a few Adam steps ends with the same weights on every backend."""
    x, y = _x(16, 1, 8, 8), _labels(16, 4)

    def train(dev):
        backend.set_device(dev)
        core.seed(3)
        model = core.nn.Sequential(core.nn.Conv2D(1, 4, 3, padding=1), core.nn.ReLU(),
                                   core.nn.MaxPool2D(2), core.nn.Flatten(), core.nn.Linear(64, 4))
        for p in model.parameters():  # identical start on every backend
            p.data = backend.asarray(np.random.default_rng(p.size).standard_normal(
                p.shape).astype(np.float32) * 0.3)
        opt = core.optimizer.Adam(learning_rate=0.01, parameters=model.parameters())
        for _ in range(3):
            loss = F.cross_entropy(model(core.to_tensor(x)), core.to_tensor(y))
            loss.backward()
            opt.step()
            opt.clear_grad()
        return [p.numpy() for p in model.parameters()]

    for got, want in zip(train(device), train("cpu")):
        np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-5)


def test_memory_limit_and_out_of_memory_message(device):
    backend.set_gpu_memory_limit(1 << 20)  # no effect on the CPU, a cap on the GPU pool
    try:
        if device == "cpu":
            assert backend.out_of_memory_message(MemoryError(1 << 26)) is None
            return
        core.device.cuda.empty_cache()  # a free block left by an earlier test would serve it
        with pytest.raises(Exception) as info:
            backend.xp().empty(1 << 24, dtype=np.float32)
        message = backend.out_of_memory_message(info.value)
        assert "ran out of memory" in message and "batch_size" in message
        assert "67,108,864" in message and "gpu_memory_limit=1048576" in message
    finally:
        backend.set_gpu_memory_limit(None)


def test_nccl_collectives_on_one_gpu(device):
    """The backend's NCCL calls on a one-GPU communicator (more GPUs: docs/gpu.md's mpirun run)."""
    if device == "cpu":
        pytest.skip("NCCL joins GPUs; the CPU path uses MPI "
                    "(tests/runner/train/test_distributed.py)")
    comm = backend.nccl_communicator(1, 0, backend.nccl_unique_id())
    xp = backend.xp()
    x = xp.arange(6, dtype=np.float32)
    backend.nccl_all_reduce_sum(comm, x)
    backend.nccl_broadcast(comm, x, 0)
    np.testing.assert_array_equal(backend.to_numpy(x), np.arange(6))
    with pytest.raises(TypeError, match="float16/32/64"):
        backend.nccl_all_reduce_sum(comm, xp.arange(3))


def test_host_batches_upload_intact_through_the_staging_ring(device):
    """Batches large enough for the pinned staging buffers arrive intact, many in a row (the
    ring reuses a buffer only after its copy is done), in every dtype the loaders make."""
    arrays = [RNG.standard_normal((64, 1, 28, 28)).astype(np.float32) for _ in range(9)]
    arrays += [RNG.integers(0, 10, 40000), np.arange(30000, dtype=np.uint8)]
    tensors = [core.to_tensor(a) for a in arrays]
    for tensor, array in zip(tensors, arrays):
        np.testing.assert_array_equal(tensor.numpy(), array)
    assert core.to_tensor(arrays[0], dtype="float64").dtype == np.float64



def test_set_device_and_get_device_at_the_top_level_as_in_paddle():
    """paddle.set_device / paddle.get_device are core.set_device / core.get_device."""
    before = core.get_device()
    try:
        assert core.set_device is core.device.set_device
        core.set_device("cpu")
        assert core.get_device() == "cpu"
        with pytest.raises(core.device.DeviceError, match="tpu"):
            core.set_device("tpu")
        with pytest.raises(core.device.DeviceError, match="the CPU has no index"):
            core.set_device("cpu:1")
        assert core.get_device() == "cpu"
    finally:
        core.set_device(before)


@pytest.mark.parametrize("dtype", ["complex64", "complex128", "bool", "int8", "uint8", "int16",
                                   "float32", "int64"])
def test_add_at_adds_repeated_indices_for_every_dtype(device, dtype):
    """backend.add_at is numpy's add.at on every backend and dtype: cupy's atomics take only
    some dtypes, so complex, bool and narrow integers go another way there (a sparse tensor of
    booleans, or a complex signal's padded gradient, reach it)."""
    index = np.array([0, 2, 2, 1, 2, 0])
    values = (RNG.integers(-90, 90, size=6) + (1j * RNG.integers(-5, 5, size=6)
                                              if dtype.startswith("complex") else 0))
    values = values.astype(dtype) if dtype != "bool" else np.array([1, 0, 1, 0, 0, 0], bool)
    want = np.zeros(4, dtype=dtype) + np.ones(4, dtype=dtype)
    np.add.at(want, index, values)
    target = core.to_tensor(np.ones(4, dtype=dtype)).data
    backend.add_at(target, core.to_tensor(index).data, core.to_tensor(values).data)
    np.testing.assert_array_equal(backend.to_numpy(target), want)
    assert backend.place_of(target) == backend.place_of(core.zeros([1]).data)


def test_random_draws_are_uniform_and_repeat_from_a_seed_or_a_saved_state(device):
    """Dropout's draws (backend.random_uniform): the host generator on the CPU, a counter-based
    stream on a GPU; either way uniform, uncorrelated, and repeated by core.seed and by
    get_rng_state / set_rng_state."""
    core.seed(5)
    first = backend.to_numpy(backend.random_uniform((200_000,), 0.0, 1.0, "float32"))
    assert first.dtype == np.float32 and 0.0 <= first.min() and first.max() <= 1.0
    assert abs(first.mean() - 0.5) < 0.005 and abs(first.var() - 1 / 12) < 0.002
    assert abs(np.corrcoef(first[:-1], first[1:])[0, 1]) < 0.01
    state = core.get_rng_state()
    wide = backend.to_numpy(backend.random_uniform((3, 5), -2.0, 3.0, "float64"))
    assert wide.shape == (3, 5) and wide.dtype == np.float64 and -2 <= wide.min() <= 3
    half = backend.to_numpy(backend.random_uniform((7,), dtype="float16"))
    assert half.dtype == np.float16
    assert not np.array_equal(backend.to_numpy(backend.random_uniform((3, 5), -2.0, 3.0,
                                                                      "float64")), wide)
    core.set_rng_state(state)
    np.testing.assert_array_equal(
        backend.to_numpy(backend.random_uniform((3, 5), -2.0, 3.0, "float64")), wide)
    np.testing.assert_array_equal(backend.to_numpy(backend.random_uniform((7,), dtype="float16")),
                                  half)
    core.seed(5)
    np.testing.assert_array_equal(
        backend.to_numpy(backend.random_uniform((200_000,), 0.0, 1.0, "float32")), first)


def test_a_bad_gpu_stream_state_is_refused_and_changes_nothing():
    state = core.get_rng_state()
    assert set(state[0]) == {"host", "gpu"} and set(state[0]["gpu"]) == {"seed", "offset"}
    first = core.rand([3]).numpy()
    broken = [{"host": state[0]["host"], "gpu": {"seed": -1, "offset": 0}}]
    with pytest.raises(ValueError, match=r"set_rng_state: .*GPU random stream's state must be "
                                         r"\{'seed': int, 'offset': int\}"):
        core.set_rng_state(broken)  # would rewind the host generator too: all or nothing
    assert not np.array_equal(core.rand([3]).numpy(), first)
    core.set_rng_state([state[0]["host"]])  # the bare host state earlier versions returned
    np.testing.assert_array_equal(core.rand([3]).numpy(), first)


def test_cuda_rng_state_saves_and_restores_the_gpu_stream_alone(device):
    """Paddle's get_cuda_rng_state / set_cuda_rng_state: the GPU stream's seed and offset; the
    host generator is left alone (on the CPU the stream is kept, but the draws are the host's)."""
    core.seed(9)
    saved = core.get_cuda_rng_state()
    assert saved == [{"seed": 9, "offset": 0}]
    first = backend.to_numpy(backend.random_uniform((50,)))
    host_draw = core.rand([2]).numpy()
    core.set_cuda_rng_state(saved)
    assert core.get_cuda_rng_state() == saved
    if device != "cpu":
        np.testing.assert_array_equal(backend.to_numpy(backend.random_uniform((50,))), first)
        assert core.get_cuda_rng_state() == [{"seed": 9, "offset": 50}]
    assert not np.array_equal(core.rand([2]).numpy(), host_draw)  # the host went on
    with pytest.raises(TypeError, match=r"set_cuda_rng_state: state_list must be what "
                                        r"get_cuda_rng_state returned"):
        core.set_cuda_rng_state({"seed": 1, "offset": 0})
    with pytest.raises(ValueError, match=r"set_cuda_rng_state: the GPU random stream's state "
                                         r"must be \{'seed': int, 'offset': int\}"):
        core.set_cuda_rng_state([{"seed": 1}])


def test_floor_divide_of_an_infinite_dividend_is_nan_on_every_backend(device):
    """numpy, Python and Paddle give NaN for inf // d; cupy's kernel gave inf (an H100), which
    made core.floor_divide and the float lcm of an overflowing product differ by device."""
    x = core.to_tensor(np.array([np.inf, -np.inf, 7.0, -7.0]))
    got = core.floor_divide(x, core.to_tensor(np.array([3.0, 2.0, 2.0, 2.0]))).numpy()
    np.testing.assert_array_equal(got, [np.nan, np.nan, 3.0, -4.0])
    overflow = core.lcm(core.to_tensor([1e300]), core.to_tensor([3e300]))
    np.testing.assert_array_equal(overflow.numpy(), [np.nan])
