"""Adam on large parameters runs block by block over core's threads (backend_kernels.adam):
the same numbers as the formula, whatever the thread count, and as torch's Adam."""
import numpy as np
import pytest

import core
from core import backend_kernels
from core.tensor import Parameter


def _run(count: int, shape, steps: int = 3):
    previous = core.device.get_num_threads()
    core.device.set_num_threads(count)
    try:
        rng = np.random.default_rng(0)
        param = Parameter(rng.standard_normal(shape).astype(np.float32), name="w")
        opt = core.optimizer.Adam(0.01, parameters=[param])
        grads = [rng.standard_normal(shape).astype(np.float32) for _ in range(steps)]
        start = param.numpy().copy()
        for g in grads:
            param.grad_data = g.copy()
            opt.step()
        return start, grads, param.numpy().copy()
    finally:
        core.device.set_num_threads(previous)


def _reference(start, grads, lr=0.01, b1=0.9, b2=0.999, eps=1e-8):
    p, m, v = start.astype(np.float64), 0.0, 0.0
    for t, g in enumerate(grads, 1):
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        p = p - lr * (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps)
    return p


@pytest.mark.usefixtures("split_small_work")
@pytest.mark.parametrize("count", [1, 2, 3])
def test_blocked_update_matches_the_formula_for_any_thread_count(count):
    shape = (3 * backend_kernels._ADAM_BLOCK // 64 + 7, 64)  # several blocks and a ragged end
    start, grads, result = _run(count, shape)
    np.testing.assert_allclose(result, _reference(start, grads), rtol=1e-5, atol=1e-6)
    assert np.array_equal(result, _run(1, shape)[2])  # element-wise: bit-identical


def test_matches_torch_adam():
    torch = pytest.importorskip("torch")
    start, grads, result = _run(2, (700, 100))
    p = torch.nn.Parameter(torch.from_numpy(start.copy()))
    opt = torch.optim.Adam([p], lr=0.01)
    for g in grads:
        p.grad = torch.from_numpy(g)
        opt.step()
    np.testing.assert_allclose(result, p.detach().numpy(), rtol=1e-5, atol=1e-6)


def _several(count: int, together: bool, steps: int = 3):
    """Large float32 and float64 parameters and a small one, stepped by one Adam (together)
    or each by an Adam of its own; returns the final values and the number of thread splits
    the last step made."""
    previous = core.device.get_num_threads()
    core.device.set_num_threads(count)
    try:
        rng = np.random.default_rng(1)
        block = backend_kernels._ADAM_BLOCK
        values = [rng.standard_normal(s).astype(d) for s, d in (
            ((2 * block // 32 + 3, 32), np.float32), ((5 * block + 11,), np.float32),
            ((17,), np.float32), ((2 * block + 5,), np.float64))]
        params = [Parameter(v.copy(), name=f"p{i}") for i, v in enumerate(values)]
        opts = [core.optimizer.Adam(0.01, parameters=params)] if together else \
            [core.optimizer.Adam(0.01, parameters=[p]) for p in params]
        grads = [[rng.standard_normal(v.shape).astype(v.dtype) for v in values]
                 for _ in range(steps)]
        splits = []
        real = core.threads.run_split
        for step, gs in enumerate(grads):
            for p, g in zip(params, gs):
                p.grad_data = g.copy()
            if step == steps - 1:
                core.threads.run_split = lambda *a: splits.append(a[:2]) or real(*a)
            try:
                for opt in opts:
                    opt.step()
            finally:
                core.threads.run_split = real
        return values, grads, [p.numpy().copy() for p in params], splits
    finally:
        core.device.set_num_threads(previous)


@pytest.mark.usefixtures("split_small_work")
@pytest.mark.parametrize("count", [1, 2, 3])
def test_one_step_splits_the_blocks_of_every_parameter_at_once(count):
    """One Adam over several parameters: one split over threads for all their blocks, and the
    same bits as an Adam per parameter (each then splits on its own) and as the formula."""
    start, grads, together, splits = _several(count, together=True)
    _, _, alone, alone_splits = _several(count, together=False)
    for got, want in zip(together, alone):
        assert np.array_equal(got, want)
    for i, got in enumerate(together):
        np.testing.assert_allclose(got, _reference(start[i], [g[i] for g in grads]), rtol=1e-5,
                                   atol=1e-6)
    blocks = 3 + 6 + 3  # the three large parameters' blocks (ragged ends); the small one: none
    assert splits == [(blocks, min(count, blocks))]
    assert len(alone_splits) == 3
