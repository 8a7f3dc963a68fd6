"""core.text.viterbi_decode / ViterbiDecoder against a brute-force search over every tag path,
with Paddle's BOS/EOS rows (include_bos_eos_tag), variable lengths and the edge sizes."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import core
import core.text


def _path_score(pot, trans, path, bos_eos: bool) -> float:
    score = sum(pot[t, tag] for t, tag in enumerate(path))
    score += sum(trans[a, b] for a, b in itertools.pairwise(path))
    if bos_eos:
        score += trans[-1, path[0]] + trans[-2, path[-1]]
    return score


def _brute_force(pot, trans, lengths, bos_eos: bool):
    """Every path of every sequence scored directly: (best scores, padded best paths)."""
    longest = max(lengths)
    scores, paths = [], np.zeros((len(lengths), longest), dtype=np.int64)
    for b, n in enumerate(lengths):
        candidates = itertools.product(range(trans.shape[0]), repeat=n)
        best = max(candidates, key=lambda path: _path_score(pot[b], trans, path, bos_eos))
        scores.append(_path_score(pot[b], trans, best, bos_eos))
        paths[b, :n] = best
    return np.array(scores), paths


def _decode(pot, trans, lengths, bos_eos: bool):
    scores, paths = core.text.viterbi_decode(core.to_tensor(pot), core.to_tensor(trans),
                                             core.to_tensor(np.array(lengths, dtype=np.int64)),
                                             bos_eos)
    return scores.numpy(), paths.numpy()


@pytest.mark.parametrize("bos_eos", [True, False])
@pytest.mark.parametrize(("lengths", "steps", "tags"), [
    ([4, 2, 1, 3], 4, 3),   # variable lengths, a length-1 sequence among them
    ([3], 3, 4),            # a batch of one
    ([1, 1], 2, 3),         # every sequence of length 1 (no transition at all)
    ([5, 5, 2], 5, 2),      # the smallest tag set that has BOS and EOS
])
def test_matches_brute_force(lengths, steps, tags, bos_eos):
    rng = np.random.default_rng(len(lengths) * 10 + tags)
    pot = rng.normal(size=(len(lengths), steps, tags))
    trans = rng.normal(size=(tags, tags))
    scores, paths = _decode(pot, trans, lengths, bos_eos)
    want_scores, want_paths = _brute_force(pot, trans, lengths, bos_eos)
    np.testing.assert_allclose(scores, want_scores, rtol=1e-12)
    np.testing.assert_array_equal(paths, want_paths)
    assert paths.dtype == np.int64 and scores.dtype == np.float64


def test_bos_eos_rows_change_the_decision():
    """The BOS row (last) and EOS row (second to last) steer the first and last tags: with a
    strong preference there, the path starts and ends where they say, unlike without them."""
    pot = np.zeros((1, 3, 5))
    pot[0, :, 0] = 1.0  # emissions prefer tag 0 everywhere
    pot[0, :, 3:] = -100.0  # and rule out the boundary tags (Paddle allows them in a path)
    trans = np.zeros((5, 5))
    trans[-1, 1] = 5.0  # from BOS into tag 1
    trans[-2, 2] = 5.0  # tag 2 as the last one
    scores, paths = _decode(pot, trans, [3], True)
    np.testing.assert_array_equal(paths, [[1, 0, 2]])
    np.testing.assert_allclose(scores, [11.0])
    scores, paths = _decode(pot, trans, [3], False)
    np.testing.assert_array_equal(paths, [[0, 0, 0]])
    np.testing.assert_allclose(scores, [3.0])


def test_float32_and_paths_cut_to_the_longest_length():
    rng = np.random.default_rng(3)
    pot = rng.normal(size=(2, 6, 3)).astype(np.float32)
    trans = rng.normal(size=(3, 3)).astype(np.float32)
    scores, paths = _decode(pot, trans, [2, 3], False)
    want_scores, want_paths = _brute_force(pot.astype(np.float64), trans.astype(np.float64),
                                           [2, 3], False)
    assert scores.dtype == np.float32 and paths.shape == (2, 3)
    np.testing.assert_allclose(scores, want_scores, rtol=1e-5)
    np.testing.assert_array_equal(paths, want_paths)


def test_decoder_layer_and_no_gradient():
    rng = np.random.default_rng(4)
    pot = core.to_tensor(rng.normal(size=(2, 3, 3)), stop_gradient=False)
    trans = core.to_tensor(rng.normal(size=(3, 3)), stop_gradient=False)
    lengths = core.to_tensor(np.array([3, 2], dtype=np.int64))
    decoder = core.text.ViterbiDecoder(trans, include_bos_eos_tag=False)
    scores, paths = decoder(pot, lengths)
    want = core.text.viterbi_decode(pot, trans, lengths, False)
    np.testing.assert_array_equal(scores.numpy(), want[0].numpy())
    np.testing.assert_array_equal(paths.numpy(), want[1].numpy())
    assert scores.stop_gradient and paths.stop_gradient  # Paddle's op has no gradient
    assert list(decoder.parameters()) == []  # transitions is an attribute, as in Paddle


def test_bad_arguments_name_what_is_allowed():
    pot = core.to_tensor(np.zeros((2, 3, 4)))
    trans = core.to_tensor(np.zeros((4, 4)))
    lengths = core.to_tensor(np.array([3, 1], dtype=np.int64))
    with pytest.raises(ValueError, match=r"transition_params must be \[4, 4\]"):
        core.text.viterbi_decode(pot, core.to_tensor(np.zeros((3, 3))), lengths)
    with pytest.raises(ValueError, match="potentials must be a float32 or float64 tensor"):
        core.text.viterbi_decode(core.to_tensor(np.zeros((2, 3))), trans, lengths)
    with pytest.raises(ValueError, match=r"lengths must lie in \[0, 3\].*got 4"):
        core.text.viterbi_decode(pot, trans, core.to_tensor(np.array([4, 1], dtype=np.int64)))
    with pytest.raises(ValueError, match=r"lengths must be an integer tensor of shape \[2\]"):
        core.text.viterbi_decode(pot, trans, core.to_tensor(np.array([3.0, 1.0])))
    with pytest.raises(ValueError, match="num_tags must be >= 2, got 1"):
        core.text.viterbi_decode(core.to_tensor(np.zeros((2, 3, 1))),
                                 core.to_tensor(np.zeros((1, 1))), lengths)
    with pytest.raises(TypeError, match="include_bos_eos_tag must be True or False"):
        core.text.viterbi_decode(pot, trans, lengths, include_bos_eos_tag=1)
    with pytest.raises(TypeError, match="transitions must be a Tensor, got ndarray"):
        core.text.ViterbiDecoder(np.zeros((4, 4)))


@pytest.mark.parametrize("bos_eos", [True, False])
def test_a_length_0_sequence_gets_paddles_kernel_values(bos_eos):
    # Paddle's CPU kernel starts every sequence at alpha = potentials[:, 0] (+ the BOS row),
    # masks all later steps of a sequence whose remaining length is <= 0 and never adds the EOS
    # row to it (its length is never 1): the score is the first step's best, the path zeros.
    rng = np.random.default_rng(5)
    pot, trans = rng.normal(size=(3, 4, 3)), rng.normal(size=(3, 3))
    scores, paths = _decode(pot, trans, [4, 0, 2], bos_eos)
    first = pot[1, 0] + (trans[-1] if bos_eos else 0)
    assert scores[1] == pytest.approx(first.max(), rel=1e-12)
    np.testing.assert_array_equal(paths[1], 0)
    others, other_paths = _brute_force(pot[[0, 2]], trans, [4, 2], bos_eos)
    np.testing.assert_allclose(scores[[0, 2]], others, rtol=1e-12)  # the rest is unaffected
    np.testing.assert_array_equal(paths[[0, 2]], other_paths)


def test_every_length_0_is_refused():
    # Paddle's kernel would write the last tags to step -1 of an empty path (undefined).
    trans = core.to_tensor(np.zeros((3, 3)))
    with pytest.raises(ValueError, match=r"every sequence has length 0 \(lengths \[0, 0\]\).*"
                                         r"at least one length must be >= 1"):
        core.text.viterbi_decode(core.to_tensor(np.zeros((2, 3, 3))), trans,
                                 core.to_tensor(np.array([0, 0], dtype=np.int64)))
    with pytest.raises(ValueError, match=r"every sequence has length 0 \(lengths \[0\]\)"):
        core.text.viterbi_decode(core.to_tensor(np.zeros((1, 0, 3))), trans,  # no steps at all
                                 core.to_tensor(np.array([0], dtype=np.int64)))
