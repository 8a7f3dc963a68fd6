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
