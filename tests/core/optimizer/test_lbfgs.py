"""LBFGS: the same iterates as torch's (which Paddle's ports) with fixed steps and with the
strong-Wolfe line search, convergence on Rosenbrock's function, state dicts and bad input."""
import numpy as np
import pytest

import core
from core import nn
from core.optimizer import LBFGS
from core.optimizer.line_search import cubic_minimum
from core.tensor import Parameter

START = [-1.2, 1.0]


def rosenbrock(xy):
    x, y = xy[0], xy[1]
    return (1 - x) ** 2 + 100 * (y - x * x) ** 2


def core_iterates(steps, **kwargs):
    w = Parameter(np.array(START, dtype="float64"))
    opt = LBFGS(parameters=[w], **kwargs)

    def closure():
        opt.clear_grad()
        loss = rosenbrock(w)
        loss.backward()
        return loss

    out = []
    for _ in range(steps):
        opt.step(closure)
        out.append(w.numpy().copy())
    return out, opt


@pytest.mark.parametrize("kwargs", [
    {"learning_rate": 1e-3, "max_iter": 5},
    {"line_search_fn": "strong_wolfe", "max_iter": 4, "history_size": 3},
    {"line_search_fn": "strong_wolfe", "learning_rate": 0.5, "max_iter": 20},
])
def test_lbfgs_iterates_match_torch(kwargs):
    torch = pytest.importorskip("torch")
    ours, opt = core_iterates(4, **kwargs)
    w = torch.tensor(START, dtype=torch.float64, requires_grad=True)
    names = {"learning_rate": "lr"}
    theirs = torch.optim.LBFGS([w], **{names.get(k, k): v for k, v in kwargs.items()})

    def closure():
        theirs.zero_grad()
        loss = rosenbrock(w)
        loss.backward()
        return loss

    for got in ours:
        theirs.step(closure)
        np.testing.assert_allclose(got, w.detach().numpy(), rtol=1e-9, atol=1e-12)
    torch_state = theirs.state[w]
    assert opt.state_dict()["state"]["func_evals"] == torch_state["func_evals"]
    assert opt.state_dict()["state"]["n_iter"] == torch_state["n_iter"]


def test_lbfgs_with_line_search_finds_rosenbrocks_minimum():
    iterates, opt = core_iterates(5, line_search_fn="strong_wolfe")
    np.testing.assert_allclose(iterates[-1], [1.0, 1.0], atol=1e-4)
    assert opt.state_dict()["state"]["func_evals"] < 100


def test_lbfgs_fits_a_linear_model_and_returns_the_first_loss():
    rng = np.random.default_rng(0)
    x = core.to_tensor(rng.normal(size=(32, 4)))
    y = core.to_tensor(rng.normal(size=(32, 4)) @ np.ones((4, 1)))
    core.seed(0)
    model = nn.Linear(4, 1)
    opt = LBFGS(line_search_fn="strong_wolfe", parameters=model.parameters())

    def closure():
        opt.clear_grad()
        loss = ((model(x.astype("float32")) - y.astype("float32")) ** 2).mean()
        loss.backward()
        return loss

    first = float(closure())
    returned = opt.step(closure)
    assert float(returned) == pytest.approx(first)
    assert float(closure()) < 0.5 * first


def test_state_dict_round_trip_continues_the_same_iterates():
    straight, _ = core_iterates(4, line_search_fn="strong_wolfe", max_iter=3)
    first_two, opt = core_iterates(2, line_search_fn="strong_wolfe", max_iter=3)
    saved = opt.state_dict()
    assert set(saved["state"]) >= {"func_evals", "n_iter", "d", "alpha", "old_yk", "old_sk",
                                   "ro", "H_diag", "prev_flat_grad", "prev_loss"}
    w = Parameter(np.array(first_two[-1]))
    again = LBFGS(line_search_fn="strong_wolfe", max_iter=3, parameters=[w])
    again.set_state_dict(saved)

    def closure():
        again.clear_grad()
        loss = rosenbrock(w)
        loss.backward()
        return loss

    for expected in straight[2:]:
        again.step(closure)
        np.testing.assert_allclose(w.numpy(), expected, rtol=1e-12)


def test_a_zero_gradient_stops_at_once():
    w = Parameter(np.array([1.0, 1.0]))  # Rosenbrock's minimum
    opt = LBFGS(parameters=[w])
    calls = []

    def closure():
        calls.append(1)
        opt.clear_grad()
        loss = rosenbrock(w)
        loss.backward()
        return loss

    opt.step(closure)
    assert len(calls) == 1 and w.numpy().tolist() == [1.0, 1.0]


def test_cubic_minimum_of_a_quadratic_and_without_a_minimum():
    # f = (x - 2)^2 through x = 0 and 3: the minimiser is 2
    assert cubic_minimum(0.0, 4.0, -4.0, 3.0, 1.0, 2.0) == pytest.approx(2.0)
    # a rising cubic (d1 = 0 < g1 g2): no minimum, so the bracket's midpoint
    assert cubic_minimum(0.0, 0.0, 1.0, 1.0, 2.0 / 3.0, 1.0) == pytest.approx(0.5)


@pytest.mark.parametrize("kwargs, error, match", [
    ({"line_search_fn": "backtracking"}, ValueError, r"line_search_fn must be None .*"
                                                     r"'strong_wolfe', got 'backtracking'"),
    ({"weight_decay": 0.01}, ValueError, r"LBFGS: weight_decay is not applied"),
    ({"grad_clip": nn.ClipGradByNorm(1.0)}, ValueError, r"LBFGS: grad_clip is not applied"),
    ({"max_iter": 0}, ValueError, r"LBFGS: max_iter must be an integer >= 1, got 0"),
    ({"history_size": 2.5}, ValueError, r"LBFGS: history_size must be an integer >= 1"),
    ({"learning_rate": -1.0}, ValueError, r"LBFGS: learning_rate must be >= 0"),
])
def test_bad_arguments_name_the_argument(kwargs, error, match):
    with pytest.raises(error, match=match):
        LBFGS(parameters=[Parameter(np.zeros(2))], **kwargs)


def test_step_without_a_closure_and_minimize_explain_the_closure():
    opt = LBFGS(parameters=[Parameter(np.zeros(2))])
    with pytest.raises(TypeError, match="LBFGS.step needs a closure"):
        opt.step(None)
    with pytest.raises(NotImplementedError, match=r"opt.step\(closure\)"):
        opt.minimize(core.to_tensor(1.0))


def test_lbfgs_sparse_embedding_gradient_is_densified():
    # Regression: an Embedding(sparse=True) gradient (row-sparse) broke the flat gradient;
    # LBFGS now reads it densely and takes the same steps as with a dense embedding.
    ids = core.to_tensor(np.array([0, 1, 1, 3]))
    weights = []
    for sparse in (True, False):
        emb = nn.Embedding(5, 3, sparse=sparse)
        emb.weight.set_value(np.arange(15, dtype="float32").reshape(5, 3) / 10)
        opt = LBFGS(parameters=emb.parameters(), max_iter=4, line_search_fn="strong_wolfe")

        def closure(emb=emb, opt=opt):
            opt.clear_grad()
            loss = ((emb(ids) - 1) ** 2).sum()
            loss.backward()
            return loss

        opt.step(closure)
        weights.append(emb.weight.numpy())
    np.testing.assert_allclose(weights[0], weights[1], rtol=1e-6)
    assert not np.allclose(weights[0], np.arange(15).reshape(5, 3) / 10)


def test_state_dict_numbers_given_as_tensors_are_read_as_numbers():
    # Regression: Paddle keeps H_diag (and ro) as 0-D tensors; a state dict holding its numbers
    # as Tensors put a Tensor into the two-loop recursion, which failed on the next step.
    straight, _ = core_iterates(3, line_search_fn="strong_wolfe", max_iter=3)
    first_two, opt = core_iterates(2, line_search_fn="strong_wolfe", max_iter=3)
    saved = dict(opt.state_dict()["state"])
    for key in ("func_evals", "n_iter", "alpha", "H_diag", "prev_loss"):
        saved[key] = core.to_tensor(np.array(saved[key]))
    saved["ro"] = [core.to_tensor(np.array(v)) for v in saved["ro"]]
    w = Parameter(np.array(first_two[-1]))
    again = LBFGS(line_search_fn="strong_wolfe", max_iter=3, parameters=[w])
    again.set_state_dict({"state": saved})
    assert isinstance(again.state["H_diag"], float) and isinstance(again.state["n_iter"], int)

    def closure():
        again.clear_grad()
        loss = rosenbrock(w)
        loss.backward()
        return loss

    again.step(closure)
    np.testing.assert_allclose(w.numpy(), straight[2], rtol=1e-12)
