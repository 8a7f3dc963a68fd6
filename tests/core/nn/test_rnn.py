"""Embedding, sequence pooling, GRU and LSTM: gradients, padding invariance, torch reference."""
from __future__ import annotations

import contextlib

import numpy as np
import pytest

import core
from core import backend, nn
from core.nn.functional import rnn as R
from core.nn.functional.sequence import embedding, sequence_mask, sequence_pool, sequence_reverse
from core.row_sparse import RowSparseGrad
from tests.gradcheck import check_grad

RNG = np.random.default_rng(0)
LENGTHS = np.array([4, 2, 3])


def _gru(x, h0, w_ih, w_hh, b_ih, b_hh, lengths=LENGTHS):
    return R.gru(x, h0, w_ih, w_hh, b_ih, b_hh, lengths)


def _lstm(x, h0, c0, w_ih, w_hh, b_ih, b_hh, lengths=LENGTHS):
    return R.lstm(x, h0, c0, w_ih, w_hh, b_ih, b_hh, lengths)


def test_gru_scan_gradients():
    b, t, f, h = 3, 4, 2, 3
    check_grad(_gru, RNG.normal(size=(b, t, f)), RNG.normal(size=(b, h)),
               RNG.normal(size=(3 * h, f)), RNG.normal(size=(3 * h, h)),
               RNG.normal(size=3 * h), RNG.normal(size=3 * h))


def test_lstm_scan_gradients():
    b, t, f, h = 3, 4, 2, 3
    check_grad(_lstm, RNG.normal(size=(b, t, f)), RNG.normal(size=(b, h)),
               RNG.normal(size=(b, h)), RNG.normal(size=(4 * h, f)),
               RNG.normal(size=(4 * h, h)), RNG.normal(size=4 * h), RNG.normal(size=4 * h))


@pytest.mark.parametrize("lengths", [[4, 0, 3], [4, 4, 4], [1, 3, 3], None])
def test_scans_with_empty_full_and_tied_lengths(lengths):
    """Rows are sorted by length inside the scans: a row of length 0 carries its initial state,
    full rows skip the sorting, ties keep their order; values and gradients stay exact."""
    b, t, f, h = 3, 4, 2, 3
    lens = None if lengths is None else np.array(lengths)
    check_grad(lambda *a: _gru(*a, lengths=lens), RNG.normal(size=(b, t, f)),
               RNG.normal(size=(b, h)), RNG.normal(size=(3 * h, f)),
               RNG.normal(size=(3 * h, h)), RNG.normal(size=3 * h), RNG.normal(size=3 * h))
    check_grad(lambda *a: _lstm(*a, lengths=lens), RNG.normal(size=(b, t, f)),
               RNG.normal(size=(b, h)), RNG.normal(size=(b, h)), RNG.normal(size=(4 * h, f)),
               RNG.normal(size=(4 * h, h)), RNG.normal(size=4 * h), RNG.normal(size=4 * h))
    if lens is not None and 0 in lengths:  # the empty row carries h0 at every step
        x, h0 = core.to_tensor(RNG.normal(size=(b, t, f))), RNG.normal(size=(b, h))
        out = _gru(x, core.to_tensor(h0), *(core.to_tensor(RNG.normal(size=s)) for s in
                                            ((3 * h, f), (3 * h, h), 3 * h, 3 * h)), lengths=lens)
        np.testing.assert_array_equal(out.numpy()[1], np.repeat(h0[1][None], t, axis=0))


def test_scans_without_biases_and_with_frozen_inputs():
    """Either bias may be absent; parents that need no gradient get none computed, and the
    others still get theirs."""
    b, t, f, h = 3, 4, 2, 3
    check_grad(lambda x, h0, wi, wh: _gru(x, h0, wi, wh, None, None), RNG.normal(size=(b, t, f)),
               RNG.normal(size=(b, h)), RNG.normal(size=(3 * h, f)), RNG.normal(size=(3 * h, h)))
    check_grad(lambda x, h0, c0, wi, wh, bh: _lstm(x, h0, c0, wi, wh, None, bh),
               RNG.normal(size=(b, t, f)), RNG.normal(size=(b, h)), RNG.normal(size=(b, h)),
               RNG.normal(size=(4 * h, f)), RNG.normal(size=(4 * h, h)), RNG.normal(size=4 * h),
               wrt=[3, 4, 5])  # x and the initial states frozen, as a first layer's input is
    # A frozen input weight beside a trainable input bias: the bias's gradient cannot come
    # from the weight gradient's GEMM (its column of ones), so it is summed on its own.
    check_grad(_gru, RNG.normal(size=(b, t, f)), RNG.normal(size=(b, h)),
               RNG.normal(size=(3 * h, f)), RNG.normal(size=(3 * h, h)),
               RNG.normal(size=3 * h), RNG.normal(size=3 * h), wrt=[0, 3, 4, 5])


@pytest.mark.parametrize("lengths", [[4, 1, 3], None])
def test_scans_give_the_same_values_without_a_graph(lengths):
    """Without a gradient to compute the scans reuse one block per step instead of keeping
    every step's gates: the states must be the very same numbers."""
    b, t, f, h = 3, 4, 2, 5
    lens = None if lengths is None else np.array(lengths)
    gru_args = [RNG.normal(size=s).astype(np.float32) for s in
                ((b, t, f), (b, h), (3 * h, f), (3 * h, h), 3 * h, 3 * h)]
    lstm_args = [RNG.normal(size=s).astype(np.float32) for s in
                 ((b, t, f), (b, h), (b, h), (4 * h, f), (4 * h, h), 4 * h, 4 * h)]
    for fn, args in ((_gru, gru_args), (_lstm, lstm_args)):
        tensors = [core.to_tensor(a, stop_gradient=False) for a in args]
        with_graph = fn(*tensors, lengths=lens)
        with core.no_grad():
            without = fn(*tensors, lengths=lens)
        assert not with_graph.stop_gradient and without.stop_gradient
        np.testing.assert_array_equal(without.numpy(), with_graph.numpy())


def run_beside_torch(layer, reference, shape=(2, 6, 3)):
    """((outputs, final), torch's (outputs, final)) of ``layer`` and a batch-first torch RNN
    given the same weights (Paddle's and torch's parameter names agree) and the same input."""
    import torch  # noqa: PLC0415 - the callers skip without it

    with torch.no_grad():
        for name, param in layer.named_parameters():
            getattr(reference, name).copy_(torch.from_numpy(param.numpy()))
    x = RNG.normal(size=shape).astype(np.float32)
    ours = layer(core.to_tensor(x))
    with torch.no_grad():
        theirs = reference(torch.from_numpy(x))
    return ours, theirs


@pytest.mark.parametrize("cls", [nn.GRU, nn.LSTM])
def test_layers_match_torch(cls):
    torch = pytest.importorskip("torch")
    core.seed(1)
    layer = cls(3, 5, num_layers=2)
    reference = getattr(torch.nn, cls.__name__)(3, 5, num_layers=2, batch_first=True)
    (out, final), (want_out, want_final) = run_beside_torch(layer, reference)
    np.testing.assert_allclose(out.numpy(), want_out.numpy(), atol=1e-5)
    if cls is nn.LSTM:
        final, want_final = final[1], want_final[1]  # the cell state
    np.testing.assert_allclose(final.numpy(), want_final.numpy(), atol=1e-5)


@pytest.mark.usefixtures("on_cpu")
@pytest.mark.parametrize("cls, steps", [(nn.GRU, ("gru_step", "gru_step_grad")),
                                        (nn.LSTM, ("lstm_step", "lstm_step_grad")),
                                        (nn.SimpleRNN, ("rnn_step", "rnn_step_grad"))])
def test_scans_run_with_blas_at_core_threads(monkeypatch, two_threads, core_blas_threads, cls,
                                             steps):
    """On two threads every step of a scan, forward and backward, runs with BLAS at two
    threads (a step's GEMM is the work two cores can share); BLAS is back at one afterwards,
    and outputs and gradients are those of the scan on one BLAS thread."""
    from core.backend_kernels import HostKernels  # noqa: PLC0415

    data = RNG.normal(size=(3, 4, 3)).astype(np.float32)

    def run():
        core.seed(3)
        layer = cls(3, 5)
        x = core.to_tensor(data, stop_gradient=False)
        out, _ = layer(x, sequence_length=LENGTHS)
        out.sum().backward()
        return [out.numpy(), x.gradient()] + [p.gradient() for p in layer.parameters()]

    seen = {name: [] for name in steps}  # BLAS's thread counts at each call of each step

    def recording(name, real):
        def step(*args):
            seen[name].append(core_blas_threads())
            return real(*args)
        return staticmethod(step)

    for name in steps:
        monkeypatch.setattr(HostKernels, name, recording(name, getattr(HostKernels, name)))
    got = run()
    one = [1] * len(core_blas_threads())
    assert all(seen[name] and all(count == [2] * len(one) for count in seen[name])
               for name in steps), seen
    assert core_blas_threads() == one
    monkeypatch.setattr(R, "blas_threads", lambda array: contextlib.nullcontext())
    for ours, plain in zip(got, run()):
        np.testing.assert_allclose(ours, plain, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("cls", [nn.GRU, nn.LSTM])
def test_padding_changes_nothing_and_final_state_is_the_last_real_step(cls):
    core.seed(2)
    layer = cls(2, 3)
    short = RNG.normal(size=(1, 3, 2)).astype(np.float32)
    padded = np.concatenate([short, RNG.normal(size=(1, 4, 2)).astype(np.float32)], axis=1)
    alone, final_alone = layer(core.to_tensor(short))
    out, final = layer(core.to_tensor(padded), sequence_length=np.array([3]))
    np.testing.assert_allclose(out.numpy()[:, :3], alone.numpy(), atol=1e-6)
    assert not out.numpy()[:, 3:].any()  # zeros at padded steps
    if cls is nn.LSTM:
        final, final_alone = final[0], final_alone[0]
    np.testing.assert_allclose(final.numpy(), final_alone.numpy(), atol=1e-6)


def test_rnn_refuses_bad_input():
    layer = nn.GRU(2, 3)
    with pytest.raises(ValueError, match=r"inputs must be \[batch, time, 2\]"):
        layer(core.to_tensor(np.zeros((2, 3, 4), np.float32)))
    with pytest.raises(ValueError, match="sequence_length"):
        layer(core.to_tensor(np.zeros((2, 3, 2), np.float32)), sequence_length=np.array([0, 9]))
    with pytest.raises(ValueError, match="direction='backward' is not supported; use one of "
                                         "'forward', 'bidirect', 'bidirectional'"):
        nn.LSTM(2, 3, direction="backward")
    with pytest.raises(ValueError, match="time_major=1 must be True"):  # True works: see
        nn.GRU(2, 3, time_major=1)  # test_rnn_time_major.py
    with pytest.raises(ValueError,
                       match=r"initial_states must be .* = \[4, 2, 3\], got \[2, 2, 3\]"):
        nn.GRU(2, 3, num_layers=2, direction="bidirect")(
            core.to_tensor(np.zeros((2, 3, 2), np.float32)),
            core.to_tensor(np.zeros((2, 2, 3), np.float32)))


# --- bidirectional layers ----------------------------------------------------------------------
RAGGED = np.array([4, 1, 3])


def _bidirect_fn(cls, input_size: int, hidden: int):
    """fn(x, *states, *params) -> every output and final state, flattened into one vector.

    The layer's parameters are replaced by the given float64 Tensors, so that finite
    differences reach the weights of both directions of both layers.
    """
    layer = cls(input_size, hidden, num_layers=2, direction="bidirect")
    names = [name for name, _ in layer.named_parameters()]
    states = 2 if cls is nn.LSTM else 1

    def fn(x, *rest):
        for name, value in zip(names, rest[states:]):
            setattr(layer, name, value)
        initial = tuple(rest[:states]) if cls is nn.LSTM else rest[0]
        out, final = layer(x, initial, sequence_length=RAGGED)
        finals = list(final) if cls is nn.LSTM else [final]
        return core.concat([core.flatten(t) for t in [out, *finals]], axis=0)

    params = [p.numpy().astype(np.float64) for _, p in layer.named_parameters()]
    return fn, states, params


@pytest.mark.parametrize("cls", [nn.GRU, nn.LSTM])
def test_bidirectional_gradients_with_ragged_lengths(cls):
    core.seed(3)
    rng = np.random.default_rng(3)
    fn, states, params = _bidirect_fn(cls, 2, 2)
    x = rng.normal(size=(3, 4, 2))
    check_grad(fn, x, *[rng.normal(size=(4, 3, 2)) for _ in range(states)], *params)


def test_sequence_reverse_within_lengths_and_gradient():
    x = np.arange(12.0).reshape(3, 4, 1)
    got = sequence_reverse(core.to_tensor(x), RAGGED).numpy()[..., 0]
    assert got.tolist() == [[3, 2, 1, 0], [4, 5, 6, 7], [10, 9, 8, 11]]
    assert sequence_reverse(core.to_tensor(x)).numpy()[1, :, 0].tolist() == [7, 6, 5, 4]
    check_grad(lambda t: sequence_reverse(t, RAGGED), np.random.default_rng(4).normal(
        size=(3, 4, 2)))


@pytest.mark.parametrize("cls", [nn.GRU, nn.LSTM])
def test_bidirectional_matches_torch_packed_sequences(cls):
    torch = pytest.importorskip("torch")
    core.seed(5)
    layer = cls(3, 4, num_layers=2, direction="bidirectional")
    reference = getattr(torch.nn, cls.__name__)(3, 4, num_layers=2, batch_first=True,
                                                bidirectional=True).double()
    with torch.no_grad():
        for name, param in layer.named_parameters():
            getattr(reference, name).copy_(torch.from_numpy(param.numpy()))
    lengths = np.array([5, 2, 4, 1])
    x = np.random.default_rng(5).normal(size=(4, 5, 3))
    weights = np.random.default_rng(6).normal(size=(4, 5, 8))  # a non-uniform loss
    mine = core.to_tensor(x, stop_gradient=False)
    for p in layer.parameters():
        p.data = p.data.astype(np.float64)
    out, final = layer(mine, sequence_length=lengths)
    finals = list(final) if cls is nn.LSTM else [final]
    loss = (out * core.to_tensor(weights)).sum() + sum((f * f).sum() for f in finals)
    loss.backward()

    theirs = torch.from_numpy(x).requires_grad_()
    packed = torch.nn.utils.rnn.pack_padded_sequence(theirs, torch.from_numpy(lengths),
                                                     batch_first=True, enforce_sorted=False)
    want_packed, want_final = reference(packed)
    want_out, _ = torch.nn.utils.rnn.pad_packed_sequence(want_packed, batch_first=True,
                                                         total_length=5)
    want_finals = list(want_final) if cls is nn.LSTM else [want_final]
    want_loss = (want_out * torch.from_numpy(weights)).sum() + sum(
        (f * f).sum() for f in want_finals)
    want_loss.backward()

    assert out.shape == [4, 5, 8] and finals[0].shape == [4, 4, 4]
    np.testing.assert_allclose(out.numpy(), want_out.detach().numpy(), atol=1e-10)
    for got, want in zip(finals, want_finals):
        np.testing.assert_allclose(got.numpy(), want.detach().numpy(), atol=1e-10)
    np.testing.assert_allclose(mine.gradient(), theirs.grad.numpy(), atol=1e-9)
    for name, param in layer.named_parameters():
        np.testing.assert_allclose(param.gradient(), getattr(reference, name).grad.numpy(),
                                   atol=1e-9, err_msg=name)


def test_bidirectional_names_and_padding():
    core.seed(7)
    layer = nn.GRU(2, 3, num_layers=2, direction="bidirect")
    shapes = {name: p.shape for name, p in layer.named_parameters()}
    assert list(shapes)[:8] == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0",
                                "weight_ih_l0_reverse", "weight_hh_l0_reverse",
                                "bias_ih_l0_reverse", "bias_hh_l0_reverse"]
    assert shapes["weight_ih_l1_reverse"] == [9, 6] and len(shapes) == 16
    short = RNG.normal(size=(1, 3, 2)).astype(np.float32)
    padded = np.concatenate([short, RNG.normal(size=(1, 2, 2)).astype(np.float32)], axis=1)
    alone, final_alone = layer(core.to_tensor(short))
    out, final = layer(core.to_tensor(padded), sequence_length=np.array([3]))
    np.testing.assert_allclose(out.numpy()[:, :3], alone.numpy(), atol=1e-6)
    assert out.shape == [1, 5, 6] and not out.numpy()[:, 3:].any()
    np.testing.assert_allclose(final.numpy(), final_alone.numpy(), atol=1e-6)


@pytest.mark.parametrize("pool", ["sum", "mean", "max"])
def test_sequence_pool_gradients_and_lengths(pool):
    # Own generator, distinct values: a finite difference is undefined at a tied maximum (the
    # tie rule is tested below), and a shared module RNG made ties depend on test order.
    x = np.random.default_rng(7).normal(size=(3, 4, 2))
    check_grad(lambda t: sequence_pool(t, LENGTHS, pool), x)
    got = sequence_pool(core.to_tensor(x), LENGTHS, pool).numpy()
    for row, n in enumerate(LENGTHS):
        want = {"sum": np.sum, "mean": np.mean, "max": np.max}[pool](x[row, :n], axis=0)
        np.testing.assert_allclose(got[row], want)


def test_sequence_pool_max_tie_goes_to_first():
    x = core.to_tensor(np.array([[[1.0], [1.0], [0.0]]]), stop_gradient=False)
    sequence_pool(x, np.array([3]), "max").sum().backward()
    assert x.gradient().ravel().tolist() == [1.0, 0.0, 0.0]


def test_sequence_mask_and_bad_pool():
    assert sequence_mask(core.to_tensor([1, 3]), 3).tolist() == [[1, 0, 0], [1, 1, 1]]
    with pytest.raises(ValueError, match="pool_type"):
        sequence_pool(core.to_tensor(np.zeros((1, 2, 1))), np.array([1]), "median")
    with pytest.raises(ValueError, match="lengths"):
        sequence_pool(core.to_tensor(np.zeros((1, 2, 1))), np.array([3]), "sum")


def test_embedding_gradients_dense_and_sparse_agree():
    ids = np.array([[1, 3, 1], [0, 3, 4]])
    check_grad(lambda w: embedding(ids, w), RNG.normal(size=(6, 3)))
    weight = RNG.normal(size=(6, 3))
    grads = {}
    for sparse in (False, True):
        w = core.to_tensor(weight, stop_gradient=False)
        (embedding(ids, w, sparse=sparse) * core.to_tensor(np.arange(18.0).reshape(2, 3, 3))
         ).sum().backward()
        grads[sparse] = w.grad_data
    assert isinstance(grads[True], RowSparseGrad)
    assert sorted(set(grads[True].rows.tolist())) == [0, 1, 3, 4]
    dense = backend.to_numpy(grads[False])
    np.testing.assert_allclose(backend.to_numpy(grads[True].to_dense()), dense)


def test_embedding_padding_idx_and_bad_ids():
    core.seed(0)
    layer = nn.Embedding(5, 2, padding_idx=0, sparse=True)
    assert not layer.weight.numpy()[0].any()
    layer(core.to_tensor(np.array([[0, 2, 0]]))).sum().backward()
    assert layer.weight.grad_data.coalesce().rows.tolist() == [2]
    with pytest.raises(ValueError, match=r"ids must lie in \[0, 4\]"):
        layer(core.to_tensor(np.array([5])))
    with pytest.raises(TypeError, match="integers"):
        layer(core.to_tensor(np.array([1.0])))


def test_embedding_padding_idx_outputs_zeros_and_row_gets_no_gradient():
    """Paddle: the output at padding ids is zero even when the row is not, and no gradient."""
    weight = RNG.normal(size=(5, 3))  # row 4 (padding_idx=-1) deliberately non-zero
    w = core.to_tensor(weight, stop_gradient=False)
    ids = np.array([[4, 1, 4], [2, 4, 0]])
    out = embedding(ids, w, padding_idx=-1)
    assert not out.numpy()[ids == 4].any()
    np.testing.assert_array_equal(out.numpy()[ids != 4], weight[ids[ids != 4]])
    (out * core.to_tensor(RNG.normal(size=(2, 3, 3)))).sum().backward()
    assert not w.gradient()[4].any() and w.gradient()[[0, 1, 2]].all()


def test_embedding_signature_max_norm_and_default_init():
    import inspect  # noqa: PLC0415

    assert list(inspect.signature(embedding).parameters) == [
        "x", "weight", "padding_idx", "max_norm", "norm_type", "sparse", "scale_grad_by_freq",
        "name"]  # Paddle 3.x order
    w = core.to_tensor(np.array([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]]))
    embedding(np.array([0, 1]), w, None, 1.0)  # max_norm renormalises looked-up rows in place
    np.testing.assert_allclose(w.numpy(), [[0.6, 0.8], [0.3, 0.4], [6.0, 8.0]], rtol=1e-6)
    core.seed(0)
    table = nn.Embedding(200, 300).weight.numpy()  # Paddle's default: Xavier-uniform
    bound = np.sqrt(6.0 / (200 + 300))
    assert np.abs(table).max() <= bound and np.abs(table).max() > 0.99 * bound
    np.testing.assert_allclose(table.var(), bound ** 2 / 3, rtol=0.02)  # uniform, not normal
