"""core.threads: the thread count, how work is split, failures, and forked children."""
import os
import time

import numpy as np
import pytest

import core
from core import threads
from core.nn import functional as F
from tests.gradcheck import check_grad


@pytest.fixture
def fake_machine(monkeypatch, tmp_path):
    """A machine of 8 cores whose affinity mask, cgroup quota and environment the test sets."""
    def make(affinity=8, cpu_max=None, env=None):
        monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(affinity)))
        if cpu_max is not None:
            (tmp_path / "cpu.max").write_text(cpu_max)
        monkeypatch.setattr(threads, "_CGROUP", str(tmp_path))
        for name in threads.THREAD_ENV:
            monkeypatch.delenv(name, raising=False)
        for name, value in (env or {}).items():
            monkeypatch.setenv(name, value)
    return make


@pytest.mark.parametrize("affinity, cpu_max, env, expected", [
    (8, None, None, 8),                              # every core of the mask
    (3, None, None, 3),                              # a narrower affinity mask (mpirun binding)
    (8, "max 100000", None, 8),                      # cgroup v2 without a quota
    (8, "250000 100000", None, 3),                   # 2.5 CPUs of quota: rounded up
    (2, "400000 100000", None, 2),                   # the mask is narrower than the quota
    (8, "200000 100000", {"OMP_NUM_THREADS": "5"}, 5),   # an explicit setting wins
    (8, None, {"OMP_NUM_THREADS": "4,2"}, 4),        # an OpenMP list: the outermost level
    (8, None, {"OMP_NUM_THREADS": "", "MKL_NUM_THREADS": "6"}, 6),
    (8, None, {"OMP_NUM_THREADS": "zero"}, 8),       # not a count: ignored
])
def test_default_threads_follow_affinity_quota_and_environment(fake_machine, affinity, cpu_max,
                                                               env, expected):
    fake_machine(affinity, cpu_max, env)
    assert threads.default_threads() == expected


def test_import_starts_with_the_default_and_set_num_threads_overrides_it():
    """A fresh interpreter: ``import core`` runs on every core the rules allow (affinity
    narrowed to one core here, then widened by OMP_NUM_THREADS), and an explicit call wins."""
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    code = ("import os, core; from core import threads; "
            "print(core.device.get_num_threads(), threads.default_threads()); "
            "core.device.set_num_threads(1); print(core.device.get_num_threads())")
    env = {k: v for k, v in os.environ.items() if k not in threads.THREAD_ENV}
    for extra, want in (({}, threads.available_cores()), ({"OMP_NUM_THREADS": "3"}, 3)):
        out = subprocess.run([sys.executable, "-c", code], env={**env, **extra}, check=True,
                             capture_output=True, text=True).stdout.split()
        assert out == [str(want), str(want), "1"]


def test_thread_count_and_how_work_is_split(two_threads):
    threadpoolctl = pytest.importorskip("threadpoolctl")
    assert core.device.get_num_threads() == 2
    assert all(p["num_threads"] == 1 for p in threadpoolctl.threadpool_info()
               if p["user_api"] == "blas")  # one BLAS thread per worker while we split
    assert threads.host_workers(np.zeros(1), 1) == 1  # nothing to split
    seen = threads.run_split(9, 2, lambda start, stop: (start, stop))
    assert seen == [(0, 4), (4, 9)]
    with pytest.raises(ValueError, match="threads must be an int >= 1"):
        core.device.set_num_threads(0)


def test_an_op_splits_only_when_its_work_pays_for_the_hand_off(two_threads, split_limits):
    """A split costs two wake-ups across cores (~80 µs on the project's VM): small work stays
    on the calling thread, counted in element passes (one per element by default) or in
    multiply-adds, and a device array never splits."""
    passes, macs = split_limits["_MIN_SPLIT_PASSES"], split_limits["_MIN_SPLIT_MACS"]
    small, large = np.zeros(passes - 1, np.float32), np.zeros(passes, np.float32)
    assert threads.host_workers(small, 9) == 1
    assert threads.host_workers(large, 9) == 2
    assert threads.host_workers(large, 1) == 1                     # one item: nothing to split
    assert threads.host_workers(small, 9, passes=4 * small.size) == 2  # several passes each
    assert threads.host_workers(large, 9, macs=macs - 1) == 1      # a GEMM's own measure
    assert threads.host_workers(small, 9, macs=macs) == 2
    core.device.set_num_threads(1)
    assert threads.host_workers(large, 9) == 1


def test_a_failing_slice_raises_after_every_slice_finished(two_threads):
    finished = []

    def task(start, stop):
        if start:
            raise RuntimeError("slice failed")
        finished.append((start, stop))

    with pytest.raises(RuntimeError, match="slice failed"):
        threads.run_split(4, 2, task)
    assert finished == [(0, 2)]


@pytest.mark.usefixtures("split_small_work", "on_cpu")
def test_a_forked_child_splits_work_on_threads_of_its_own(two_threads):
    """A data-loader worker forked after the pool exists inherits none of its threads: the
    child must start a pool of its own instead of waiting forever."""
    x = core.to_tensor(np.random.default_rng(0).random((64, 2048)).astype(np.float32))
    F.relu(x)  # the parent's pool now exists
    pid = os.fork()
    if pid == 0:  # the child: exit 0 only if the split work finishes and is right
        ok = False
        try:
            ok = np.array_equal(F.relu(x).numpy(), x.numpy())
        finally:
            os._exit(0 if ok else 1)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            assert os.waitstatus_to_exitcode(status) == 0
            return
        time.sleep(0.05)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    pytest.fail("the forked child's split work never finished")


def test_a_large_gemm_runs_on_blas_threads_for_that_call_only(two_threads, core_blas_threads):
    """matmul_rows raises BLAS to core's thread count while its GEMM runs, then puts it back
    at one; small GEMMs, and GEMMs inside a split's slices, stay at one BLAS thread."""
    seen = []  # the BLAS thread counts each product ran under
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((256, 256)), rng.standard_normal((256, 256))
    small = rng.standard_normal((4, 4))

    def product(xp, x, y):
        seen.append(core_blas_threads())
        return x @ y

    np.testing.assert_allclose(threads._threaded_blas(a, b, lambda: product(np, a, b)), a @ b)
    threads._threaded_blas(small, small, lambda: product(np, small, small))
    threads.run_split(2, 2, lambda i, j: threads._threaded_blas(a, b, lambda: product(np, a, b)))
    assert seen[0] == [2] * len(seen[0])
    assert all(count == [1] * len(count) for count in seen[1:])
    assert core_blas_threads() == [1] * len(core_blas_threads())


def test_blas_threads_holds_blas_at_core_threads_for_a_block(two_threads, core_blas_threads):
    """blas_threads raises BLAS to core's thread count for its whole block, a large GEMM's own
    raise inside the block leaves it there (it used to put BLAS back at one when it finished),
    and BLAS is back at one after the block; a non-host array, a block inside a split's slice
    and a block inside another block change nothing."""
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((256, 256)), rng.standard_normal((256, 256))
    one = [1] * len(core_blas_threads())
    with threads.blas_threads(a):
        assert core_blas_threads() == [2] * len(one)
        threads._threaded_blas(a, b, lambda: a @ b)
        assert core_blas_threads() == [2] * len(one)
        with threads.blas_threads(a):  # the raise is held already: a plain block
            assert core_blas_threads() == [2] * len(one)
        assert core_blas_threads() == [2] * len(one)
    assert core_blas_threads() == one
    with threads.blas_threads(a.tolist()):
        assert core_blas_threads() == one
    seen = []

    def slice_(start, stop):
        if start == 0:  # the calling thread: a pool thread's count never shows in OpenBLAS
            with threads.blas_threads(a):
                seen.append(core_blas_threads())

    threads.run_split(2, 2, slice_)
    assert seen == [one]
    with pytest.raises(RuntimeError, match="inside"):
        with threads.blas_threads(a):
            raise RuntimeError("inside")
    assert core_blas_threads() == one  # restored when the block raises, too


@pytest.mark.usefixtures("split_small_work")
def test_stacked_matmul_split_over_threads_matches_one_thread(two_threads):
    """Attention-style [batch, heads, t, d] products: items split over the threads."""
    rng = np.random.default_rng(1)
    a = rng.standard_normal((8, 4, 64, 32)).astype(np.float32)
    b = rng.standard_normal((8, 4, 32, 64)).astype(np.float32)
    got = threads.matmul(np, a, b)
    np.testing.assert_allclose(got, np.matmul(a, b), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(got, threads.matmul(np, a, b))  # deterministic
    assert threads.matmul(np, a, b[:1]).shape == (8, 4, 64, 64)  # broadcasting: numpy's own


@pytest.mark.parametrize("batch", [8, 1])  # split along the batch axis / over flat items
@pytest.mark.parametrize("count", [1, 2])
def test_stacked_matmul_of_head_views_and_transposed_stacks(monkeypatch, batch, count):
    """q k^T and (q k^T) v with q, k, v strided views into one qkv array (attention's heads):
    the product on one thread and on two (split along the batch axis without copying the
    views, or over flattened items when the batch is too short), the transposed stack copied
    first where the product is not split."""
    previous = core.device.get_num_threads()
    core.device.set_num_threads(count)
    monkeypatch.setattr(threads, "_MIN_SPLIT_MACS", 0)
    try:
        rng = np.random.default_rng(6)
        qkv = rng.standard_normal((batch, 64, 3, 4, 32)).astype(np.float32).transpose(
            2, 0, 3, 1, 4)
        q, k, v = qkv
        k_t = k.swapaxes(-1, -2)
        scores = threads.matmul(np, q, k_t)
        np.testing.assert_allclose(scores, np.einsum("bhtd,bhsd->bhts", q, k), rtol=1e-4,
                                   atol=1e-4)
        mixed = threads.matmul(np, scores, v)
        np.testing.assert_allclose(mixed, np.einsum("bhts,bhsd->bhtd", scores, v), rtol=1e-4,
                                   atol=1e-4)
        assert scores.shape == (batch, 4, 64, 64) and mixed.shape == (batch, 4, 64, 32)
    finally:
        core.device.set_num_threads(previous)


@pytest.mark.parametrize("rows, reduction, out, swapped", [
    (16, 512, 128, True),    # few rows, a long reduction: (b @ a.T).T, then one copy
    (64, 256, 64, True),     # the limits themselves
    (65, 512, 128, False),   # one row too many
    (16, 255, 512, False),   # the reduction one short
    (8, 256, 16, False),     # too small a product to pay for the copy
])
def test_input_gradient_product_picks_its_orientation(monkeypatch, rows, reduction, out,
                                                       swapped):
    """matmul_transposed (Linear's g @ W^T) gives the plain product, C-contiguous, whichever
    way round it runs, and it runs the other way round only for few rows and a long
    reduction; Linear's input gradient goes through it."""
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((rows, reduction)), rng.standard_normal((out, reduction))
    calls = []
    real = threads._threaded_blas
    monkeypatch.setattr(threads, "_threaded_blas",
                        lambda x, y, product: calls.append(x.shape) or real(x, y, product))
    got = threads.matmul_transposed(np, a, b)
    np.testing.assert_allclose(got, a @ b.T, rtol=1e-12, atol=1e-12)
    assert got.flags.c_contiguous
    assert calls == [(out, reduction) if swapped else (rows, reduction)]
    x = core.to_tensor(rng.standard_normal((rows, out)), stop_gradient=False)
    w = core.to_tensor(b, stop_gradient=False)  # [in, out] = [out, reduction] here
    F.linear(x, w).backward(core.to_tensor(a))
    np.testing.assert_allclose(x.gradient(), a @ b.T, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("rows, cols, f_ordered", [
    (16, 256, True),    # few rows, many columns: (b.T @ a.T).T, a view
    (2, 512, True),     # the limits themselves
    (48, 300, True),
    (1, 512, False),    # one row: a GEMV either way
    (49, 512, False),   # one row too many
    (16, 255, False),   # one column short
])
def test_forward_product_takes_the_faster_memory_order(rows, cols, f_ordered):
    """matmul_any_order (Linear's forward) gives the plain product either way round; with few
    rows and many columns it comes out F-ordered, the transpose of a C-contiguous product."""
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((rows, 64)), rng.standard_normal((64, cols))
    got = threads.matmul_any_order(np, a, b)
    np.testing.assert_allclose(got, a @ b, rtol=1e-12, atol=1e-12)
    assert (got.flags.f_contiguous and not got.flags.c_contiguous) == f_ordered
    assert got.flags.c_contiguous != f_ordered


@pytest.mark.parametrize("rows", [16, 200])
def test_input_gradient_in_f_order_is_the_transposed_product_without_a_copy(rows):
    """order="F" (the gradient of an F-ordered input) always runs (b @ a.T) and returns its
    transpose, whatever the row count."""
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal((rows, 300)), rng.standard_normal((70, 300))
    got = threads.matmul_transposed(np, a, b, "F")
    np.testing.assert_allclose(got, a @ b.T, rtol=1e-12, atol=1e-12)
    assert got.flags.f_contiguous and not got.flags.c_contiguous and got.base is not None


@pytest.mark.usefixtures("on_cpu")  # the F-ordered view is a host-array policy
def test_a_linear_chain_of_few_rows_keeps_one_layout_forward_and_backward():
    """Linear -> ReLU -> Linear on 16 rows: the hidden layer comes out F-ordered, the gradient
    that reaches it is F-ordered too (element-wise backward ops then see one layout, 5x faster
    than mixed), and the gradients pass float64 finite differences."""
    rng = np.random.default_rng(5)
    x, w1, w2 = (rng.standard_normal(s) for s in ((16, 20), (20, 256), (256, 3)))
    seen = []

    def net(x, w1, w2):
        hidden = F.linear(x, w1)
        seen.append(hidden.data.flags.f_contiguous and not hidden.data.flags.c_contiguous)
        if not hidden.stop_gradient:
            hidden.register_array_hook(lambda g: seen.append(("grad", g.flags.f_contiguous))
                                       or g)
        return F.linear(F.relu(hidden), w2)

    xt, w1t, w2t = (core.to_tensor(v, stop_gradient=False) for v in (x, w1, w2))
    out = net(xt, w1t, w2t)
    np.testing.assert_allclose(out.numpy(), np.maximum(x @ w1, 0) @ w2, rtol=1e-12)
    out.sum().backward()
    assert seen == [True, ("grad", True)]
    check_grad(net, x, w1, w2)


@pytest.mark.usefixtures("split_small_work", "two_threads", "on_cpu")
def test_work_split_inside_a_slice_runs_inline():
    """A slice that would split again runs its work on its own thread: its parts would queue
    behind the pool's busy threads, and slices waiting on each other never finish."""
    import threading  # noqa: PLC0415

    x = np.ones((8, 64))
    inner = []

    def task(start, stop):
        inner.append(threads.host_workers(x, 8))
        return sum(threads.run_split(4, threads.host_workers(x, 4), lambda a, b: b - a))

    done = []
    outer = threading.Thread(target=lambda: done.append(threads.run_split(8, 2, task)),
                             daemon=True)
    outer.start()
    outer.join(20)
    assert done == [[4, 4]], "a nested split never finished"
    assert inner == [1, 1]
    assert threads.host_workers(x, 8) == 2  # outside any slice, work splits again
