"""RNNCellBase (a user cell through nn.RNN, get_initial_states) and the beam search
(BeamSearchDecoder + dynamic_decode) against a hand-written numpy search on a fixed GRU cell,
greedy decoding for beam_size=1, gradients of the scores and the bad-argument errors."""
import numpy as np
import pytest

import core
from core import nn
from tests.gradcheck import check_grad

RNG = np.random.default_rng(7)
VOCAB, EMBED, HIDDEN, START, END = 5, 3, 4, 0, 4


# ----- RNNCellBase ----------------------------------------------------------------------------

class ElmanCell(nn.RNNCellBase):
    """A user-written cell: h' = tanh([x, h] W + b), output h'."""

    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.fc = nn.Linear(input_size + hidden_size, hidden_size)

    def forward(self, inputs, states):
        h = core.tanh(self.fc(core.concat([inputs, states], axis=-1)))
        return h, h

    @property
    def state_shape(self):
        return (self.hidden_size,)


def test_user_rnn_cell_base_subclass_runs_in_rnn():
    cell = ElmanCell(3, 4)
    x = RNG.standard_normal((2, 5, 3)).astype(np.float32)
    out, final = nn.RNN(cell)(core.to_tensor(x))
    w, b = cell.fc.weight.numpy(), cell.fc.bias.numpy()
    h = np.zeros((2, 4), np.float32)
    for t in range(5):
        h = np.tanh(np.concatenate([x[:, t], h], -1) @ w + b)
        np.testing.assert_allclose(out.numpy()[:, t], h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(final.numpy(), h, rtol=1e-5, atol=1e-6)


def test_rnn_cell_base_subclass_gradient_through_rnn():
    cell = ElmanCell(2, 3)
    cell.to(dtype="float64")
    assert isinstance(cell, nn.RNNCellBase)
    lens = np.array([3, 2])
    check_grad(lambda x, h: nn.RNN(cell)(x, h, sequence_length=core.to_tensor(lens))[0],
               RNG.standard_normal((2, 3, 2)), RNG.standard_normal((2, 3)), wrt=[0, 1])


def test_get_initial_states_paddle_arguments():
    cell = ElmanCell(3, 4)
    ref = core.to_tensor(np.zeros((6, 2, 3), np.float64))
    states = cell.get_initial_states(ref)  # batch from axis 0, dtype from the float input
    assert states.shape == [6, 4] and states.dtype == np.float64 and not states.numpy().any()
    nested = cell.get_initial_states(ref, shape=[[-1, 2], (3, 1)], dtype="float32",
                                     init_value=1.5, batch_dim_idx=1)
    assert [s.shape for s in nested] == [[2, 2], [2, 3, 1]]
    assert all(s.dtype == np.float32 and (s.numpy() == 1.5).all() for s in nested)
    lstm = nn.LSTMCell(3, 4)
    h, c = lstm.get_initial_states([ref])  # Paddle takes the first of a structure
    assert h.shape == c.shape == [6, 4]
    with pytest.raises(NotImplementedError, match="state_shape"):
        nn.RNNCellBase().get_initial_states(ref)
    with pytest.raises(NotImplementedError, match="state_dtype"):
        _ = cell.state_dtype
    with pytest.raises(ValueError, match="shape="):
        cell.get_initial_states(ref, shape="big")


# ----- beam search ----------------------------------------------------------------------------

def _model(dtype="float32"):
    core.seed(3)
    cell = nn.GRUCell(EMBED, HIDDEN)
    embed, head = nn.Embedding(VOCAB, EMBED), nn.Linear(HIDDEN, VOCAB)
    for layer in (cell, embed, head):
        for p in layer.parameters():  # larger weights: sharper, more varied choices
            p.set_value(RNG.standard_normal(p.shape) * 1.5)
        layer.to(dtype=dtype)
    return cell, embed, head


def _numpy_gru(cell, x, h):
    w_ih, w_hh = cell.weight_ih.numpy(), cell.weight_hh.numpy()
    gi = x @ w_ih.T + cell.bias_ih.numpy()
    gh = h @ w_hh.T + cell.bias_hh.numpy()
    n = HIDDEN
    r = 1 / (1 + np.exp(-(gi[:, :n] + gh[:, :n])))
    z = 1 / (1 + np.exp(-(gi[:, n:2 * n] + gh[:, n:2 * n])))
    c = np.tanh(gi[:, 2 * n:] + r * gh[:, 2 * n:])
    return z * h + (1 - z) * c


def _numpy_beam_search(cell, embed, head, h0, beam, max_step):
    """Paddle's beam search written out in numpy: (ids [B, T, beam], log_probs, lengths)."""
    table, w, b = embed.weight.numpy(), head.weight.numpy(), head.bias.numpy()
    batch = h0.shape[0]
    rows = np.arange(batch)[:, None]
    h = np.repeat(h0[:, None], beam, axis=1)
    logp = np.full((batch, beam), -1e9)
    logp[:, 0] = 0
    finished = np.zeros((batch, beam), bool)
    lengths = np.zeros((batch, beam), np.int64)
    ids = np.full((batch, beam), START)
    tokens_per_step, parents_per_step = [], []
    step = 0
    while not finished.all():
        new = _numpy_gru(cell, table[ids].reshape(-1, EMBED), h.reshape(-1, HIDDEN))
        new = new.reshape(batch, beam, HIDDEN)
        logits = new @ w + b
        lp = logits - logits.max(-1, keepdims=True)
        lp = lp - np.log(np.exp(lp).sum(-1, keepdims=True))
        lp[finished] = np.where(np.arange(VOCAB) == END, 0.0, -1e9)
        flat = (lp + logp[..., None]).reshape(batch, -1)
        top = np.argsort(-flat, axis=1, kind="stable")[:, :beam]
        parents, tokens = top // VOCAB, top % VOCAB
        logp = np.take_along_axis(flat, top, axis=1)
        h = new[rows, parents]
        done = finished[rows, parents]
        lengths = lengths[rows, parents] + ~done
        finished = done | (tokens == END)
        ids = tokens
        tokens_per_step.append(tokens)
        parents_per_step.append(parents)
        step += 1
        if step > max_step:
            break
    out = np.empty((step, batch, beam), np.int64)
    pointer = np.broadcast_to(np.arange(beam), (batch, beam))
    for t in range(step - 1, -1, -1):
        out[t] = tokens_per_step[t][rows, pointer]
        pointer = parents_per_step[t][rows, pointer]
    return out.transpose(1, 0, 2), logp, lengths


@pytest.mark.parametrize("beam, max_step", [(3, 6), (2, 3), (3, 20)])
def test_beam_search_matches_numpy(beam, max_step):
    cell, embed, head = _model("float64")
    h0 = RNG.standard_normal((2, HIDDEN))
    decoder = nn.BeamSearchDecoder(cell, START, END, beam, embedding_fn=embed, output_fn=head)
    with core.no_grad():
        ids, final, lengths = nn.dynamic_decode(decoder, inits=core.to_tensor(h0),
                                                max_step_num=max_step, return_length=True)
    want_ids, want_logp, want_len = _numpy_beam_search(cell, embed, head, h0, beam, max_step)
    np.testing.assert_array_equal(ids.numpy(), want_ids)
    np.testing.assert_allclose(final.log_probs.numpy(), want_logp, rtol=1e-9)
    np.testing.assert_array_equal(lengths.numpy(), want_len)
    np.testing.assert_array_equal(final.lengths.numpy(), want_len)
    assert ids.shape[2] == beam and ids.shape[1] <= max_step + 1  # Paddle runs max_step + 1
    scores = final.log_probs.numpy()
    assert (np.diff(scores, axis=1) <= 0).all()  # best beam first


def test_beam_size_one_is_greedy_decoding():
    cell, embed, head = _model("float64")
    h0 = RNG.standard_normal((3, HIDDEN))
    decoder = nn.BeamSearchDecoder(cell, START, END, 1, embedding_fn=embed, output_fn=head)
    with core.no_grad():
        ids, _ = nn.dynamic_decode(decoder, inits=core.to_tensor(h0), max_step_num=8)
        ids_tm, _ = nn.dynamic_decode(decoder, inits=core.to_tensor(h0), max_step_num=8,
                                      output_time_major=True)
    np.testing.assert_array_equal(ids_tm.numpy().transpose(1, 0, 2), ids.numpy())
    table, w, b = embed.weight.numpy(), head.weight.numpy(), head.bias.numpy()
    for row in range(3):  # each row alone, greedily: argmax until END, then END
        h, token, done, greedy = h0[row:row + 1], START, False, []
        for _ in range(ids.shape[1]):
            h = _numpy_gru(cell, table[[token]], h)
            token = END if done else int(np.argmax(h @ w + b))
            done = done or token == END
            greedy.append(token)
        np.testing.assert_array_equal(ids.numpy()[row, :, 0], greedy)


def test_tile_beam_merge_with_batch():
    x = core.to_tensor(np.arange(6.0).reshape(2, 3))
    tiled = nn.BeamSearchDecoder.tile_beam_merge_with_batch(x, 2)
    np.testing.assert_array_equal(tiled.numpy(), np.repeat(x.numpy(), 2, axis=0))
    check_grad(lambda t: nn.BeamSearchDecoder.tile_beam_merge_with_batch(t, 3),
               RNG.standard_normal((2, 2)))


def test_beam_search_scores_gradient():
    """The final scores are differentiable in the initial states (Paddle's dynamic graph);
    the tiny finite-difference steps keep every topk choice."""
    cell, embed, head = _model("float64")
    decoder = nn.BeamSearchDecoder(cell, START, END, 3, embedding_fn=embed, output_fn=head)
    check_grad(lambda h: nn.dynamic_decode(decoder, inits=h, max_step_num=3)[1].log_probs,
               RNG.standard_normal((2, HIDDEN)), rtol=1e-5, atol=1e-7)


def test_dynamic_decode_with_kwargs_and_an_lstm_state_pair():
    """Nested (h, c) states and keyword arguments reach the cell on the merged beams."""
    core.seed(1)
    cell, seen = nn.LSTMCell(EMBED, HIDDEN), []

    class Cell(nn.RNNCellBase):
        def __init__(self):
            super().__init__()
            self.inner = cell

        def forward(self, inputs, states, memory=None):
            seen.append(memory.shape)
            return self.inner(inputs + core.mean(memory, axis=1), states)

    decoder = nn.BeamSearchDecoder(Cell(), START, END, 2, embedding_fn=nn.Embedding(VOCAB,
                                                                                    EMBED),
                                   output_fn=nn.Linear(HIDDEN, VOCAB))
    memory = nn.BeamSearchDecoder.tile_beam_merge_with_batch(
        core.to_tensor(RNG.standard_normal((2, 4, EMBED)).astype(np.float32)), 2)
    zeros = core.to_tensor(np.zeros((2, HIDDEN), np.float32))
    with core.no_grad():
        ids, final = nn.dynamic_decode(decoder, inits=(zeros, zeros), max_step_num=4,
                                       memory=memory)
    assert seen[0] == [4, 4, EMBED] and ids.shape[0] == 2 and ids.shape[2] == 2
    assert final.cell_states[0].shape == [2, 2, HIDDEN]


def test_bad_arguments_name_themselves():
    cell = nn.GRUCell(EMBED, HIDDEN)
    with pytest.raises(ValueError, match="beam_size=0"):
        nn.BeamSearchDecoder(cell, START, END, 0)
    with pytest.raises(ValueError, match="end_token=-1"):
        nn.BeamSearchDecoder(cell, START, -1, 2)
    with pytest.raises(TypeError, match="output_fn"):
        nn.BeamSearchDecoder(cell, START, END, 2, output_fn=3)
    decoder = nn.BeamSearchDecoder(cell, START, END, 2, embedding_fn=nn.Embedding(VOCAB, EMBED),
                                   output_fn=nn.Linear(HIDDEN, VOCAB))
    h0 = core.to_tensor(np.zeros((1, HIDDEN), np.float32))
    with pytest.raises(ValueError, match="max_step_num=0"):
        nn.dynamic_decode(decoder, inits=h0, max_step_num=0)
    with pytest.raises(ValueError, match="inits"):
        nn.dynamic_decode(decoder)
    with pytest.raises(TypeError, match="decoder must have"):
        nn.dynamic_decode(cell, inits=h0)
    wide = nn.BeamSearchDecoder(cell, START, 9, 2, embedding_fn=nn.Embedding(VOCAB, EMBED),
                                output_fn=nn.Linear(HIDDEN, VOCAB))
    with pytest.raises(ValueError, match="end_token=9"):
        nn.dynamic_decode(wide, inits=h0, max_step_num=2)
