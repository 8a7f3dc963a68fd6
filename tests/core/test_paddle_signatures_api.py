"""core's Paddle-facing signatures against Paddle 3.3.1's own (tests/core/paddle_signatures_api.py).

Paddle code passes arguments by name and by position, so for every stored name the core object of
the same name (``paddle.X`` is ``core.X``) must take the same parameters: the same names in the
same order with the same defaults, ``name=None`` included. Paddle 3.x's keyword-only arguments
(``*, out=None``, ...) may be missing only where KEYWORD_ONLY_NOT_TAKEN says why; core may take
one positionally too, with Paddle's default. Any extra parameter core has must come after
Paddle's, have a default and be listed in CORE_EXTRAS; a name whose signature differs on purpose
is in DIFFERENCES. Each entry of both dicts is documented in docs/paddle.md.
"""

import ast
import inspect
import pathlib

import numpy as np
import pytest

import core
from tests.core.paddle_signatures_api import SIGNATURES
from tests.gradcheck import check_grad

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs" / "paddle.md"

# Paddle 3.x keyword-only arguments core does not take, by argument name, with why.
KEYWORD_ONLY_NOT_TAKEN = {
    "out": "torch-style output buffers: core's ops make new arrays (docs: Not in core)",
    "device": "torch-style creation arguments: core creates on the current device",
    "requires_grad": "torch-style creation arguments: use stop_gradient",
    "pin_memory": "torch-style creation arguments: core has no pinned host tensors",
    "alpha": "torch-style add/subtract scaling: multiply y first",
    "rounding_mode": "torch-style divide modes: use floor_divide / trunc",
    "copy": "torch-style reshape argument: reshape already copies when it must",
    "output_size": "repeat_interleave's torch-style size hint: the size is computed anyway",
    "correction": "var's torch-style correction: unbiased says the same for 0 and 1",
    "side": "bucketize's torch-style alias of right",
    "sorter": "bucketize's torch-style sorter: sort sorted_sequence first",
    "dump_backward_graph_path": "a debugging dump of Paddle's static backward graph",
}

# Extra trailing parameters core takes beyond Paddle's signature: (name, parameter) -> why.
CORE_EXTRAS = {
    ("paddle.diag_embed", "name"): "core's usual name=None, unused (3.3.1 dropped it here)",
    ("paddle.nanquantile", "name"): "core's usual name=None, unused (3.3.1 has none here)",
    ("paddle.renorm", "name"): "core's usual name=None, unused (3.3.1 has none here)",
    ("paddle.renorm_", "name"): "renorm's arguments, passed on",
    ("paddle.io.SubsetRandomSampler", "generator"): "a seed or numpy Generator, as RandomSampler",
}

# Names whose signature differs from Paddle's on purpose: name -> why.
DIFFERENCES = {
    "paddle.io.DataLoader": "core's own order (batch_size first); Paddle's arguments by keyword",
    "paddle.io.TensorDataset": "takes Paddle's one list of tensors, or the arrays one by one",
    "paddle.save": "core's own file format: no pickle protocol or pickle **configs",
    "paddle.load": "Paddle's **configs spelt out: return_numpy, keep_name_table",
    "paddle.metric.Accuracy": "refuses unknown arguments rather than swallowing *args, **kwargs",
    "paddle.scatter_": "scatter's arguments spelt out where Paddle's takes *args, **kwargs",
    "paddle.ParamAttr": "do_model_average=False: core has no model averaging (core/nn's audit)",
    "paddle.norm": "p='fro' (Paddle 2.x's spelling, the same norms as 3.3's p=None); no dtype",
}


def _default(node):
    """A default as a comparable value: literals evaluated (lists as tuples), else the source."""
    if node is None:
        return inspect.Parameter.empty
    try:
        value = ast.literal_eval(node)
    except ValueError:
        return ast.unparse(node)
    return tuple(value) if isinstance(value, list) else value


def paddle_parameters(signature):
    """[(name, kind, default)] of a stored signature string; kind is 'P', '*', 'K' or '**'."""
    args = ast.parse(f"def f{signature.replace('(/, ', '(', 1)}: pass").body[0].args
    positional = args.posonlyargs + args.args
    defaults = [None] * (len(positional) - len(args.defaults)) + args.defaults
    out = [(a.arg, "P", _default(d)) for a, d in zip(positional, defaults)]
    if args.vararg:
        out.append((args.vararg.arg, "*", inspect.Parameter.empty))
    out += [(a.arg, "K", _default(d)) for a, d in zip(args.kwonlyargs, args.kw_defaults)]
    if args.kwarg:
        out.append((args.kwarg.arg, "**", inspect.Parameter.empty))
    return out


_KINDS = {inspect.Parameter.VAR_POSITIONAL: "*", inspect.Parameter.KEYWORD_ONLY: "K",
          inspect.Parameter.VAR_KEYWORD: "**"}


def core_object(name):
    obj = core
    for part in name.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


def core_parameters(name):
    """[(name, kind, default)] of the core object's signature (a class's __init__, no self)."""
    obj = core_object(name)
    if inspect.isclass(obj) and obj.__init__ is object.__init__:
        return []  # no __init__ of its own: it takes nothing, as Paddle's base classes
    params = list(inspect.signature(obj.__init__ if inspect.isclass(obj) else obj)
                  .parameters.values())
    if (inspect.isclass(obj) or ".Model." in name) and params and params[0].name == "self":
        params = params[1:]
    out = []
    for p in params:
        default = p.default
        out.append((p.name, _KINDS.get(p.kind, "P"),
                    tuple(default) if isinstance(default, list) else default))
    return out


def _same_default(a, b):
    if a is inspect.Parameter.empty or b is inspect.Parameter.empty:
        return a is b
    return type(a) is type(b) and a == b or (isinstance(a, (int, float)) and not
                                              isinstance(a, bool) and not isinstance(b, bool)
                                              and isinstance(b, (int, float)) and a == b)


def signature_problems(name):
    """What keeps core's signature of ``name`` from Paddle's, as readable lines ([] if none)."""
    paddle, ours = paddle_parameters(SIGNATURES[name]), core_parameters(name)
    problems = []
    ours_by_name = {p[0]: p for p in ours}
    # Paddle's positional `out` (prod, gather, scatter, ...) is passed by name like its
    # keyword-only one: where core does not take it, it is left out of the comparison
    expected = [p for p in paddle if p[1] != "K" and (p[0] != "out" or "out" in ours_by_name)]
    for i, (pname, kind, default) in enumerate(expected):
        got = ours[i] if i < len(ours) else None
        if got is None or got[0] != pname or got[1] != kind:
            problems.append(f"parameter {i} is {got[:2] if got else None}, Paddle's is "
                            f"{(pname, kind)}")
        elif not _same_default(got[2], default):
            problems.append(f"{pname}'s default is {got[2]!r}, Paddle's is {default!r}")
    for pname, _, default in (p for p in paddle if p[1] == "K"):
        if pname in ours_by_name:
            if not _same_default(ours_by_name[pname][2], default):
                problems.append(f"{pname}'s default is {ours_by_name[pname][2]!r}, Paddle's is "
                                f"{default!r}")
        elif pname not in KEYWORD_ONLY_NOT_TAKEN:
            problems.append(f"keyword-only {pname} is missing")
    paddle_names = {p[0] for p in paddle}
    for pname, kind, default in ours[len(expected):]:
        if pname in paddle_names:
            continue
        if (name, pname) not in CORE_EXTRAS:
            problems.append(f"extra parameter {pname} is not in CORE_EXTRAS")
        elif kind == "P" and default is inspect.Parameter.empty:
            problems.append(f"extra parameter {pname} has no default")
    return problems


@pytest.mark.parametrize("name", sorted(set(SIGNATURES) - set(DIFFERENCES)))
def test_core_takes_paddles_parameters(name):
    problems = signature_problems(name)
    assert not problems, (f"{name}{SIGNATURES[name]} vs core's "
                          f"{[p[:2] for p in core_parameters(name)]}: {problems}")


@pytest.mark.parametrize("name", sorted(DIFFERENCES))
def test_each_difference_is_still_a_difference(name):
    # An entry that now agrees should leave DIFFERENCES (and its note in docs/paddle.md).
    assert signature_problems(name), f"{name} now agrees with Paddle: drop it from DIFFERENCES"


def test_differences_and_extras_name_stored_names_and_are_documented():
    docs = DOCS.read_text()
    for name in DIFFERENCES:
        assert name in SIGNATURES, name
        assert f"`{name.rsplit('.', 1)[1]}" in docs, f"{name} is not in docs/paddle.md"
    for name, parameter in CORE_EXTRAS:
        assert name in SIGNATURES, name
        assert parameter in docs, f"{name}'s {parameter} is not in docs/paddle.md"


def test_the_reference_parses_and_names_core_objects():
    assert len(SIGNATURES) > 450
    for name, signature in SIGNATURES.items():
        assert name.startswith("paddle."), name
        paddle_parameters(signature)
        assert callable(core_object(name)), name


def test_signature_problems_reports_what_differs(monkeypatch):
    # The checker itself: a renamed parameter, a changed default and a missing keyword-only one.
    monkeypatch.setitem(SIGNATURES, "paddle.clip", "(y, min=None, max=2, name=None, *, foo=1)")
    problems = signature_problems("paddle.clip")
    assert any("parameter 0" in p and "'y'" in p for p in problems)
    assert any("max's default is None, Paddle's is 2" in p for p in problems)
    assert "keyword-only foo is missing" in problems


# ----- the behaviour of the parameters this check brought to Paddle 3.3.1's signatures --------

def _t(values, dtype="float64"):
    return core.to_tensor(np.array(values, dtype=dtype))


@pytest.mark.parametrize("call", [
    lambda x: core.add(x, x, name="n"), lambda x: core.sum(x, axis=0, name="n"),
    lambda x: core.exp(x, name="n"), lambda x: core.equal(x, x, name="n"),
    lambda x: core.isnan(x, name="n"), lambda x: core.concat([x, x], 0, "n"),
    lambda x: core.matmul(x, x, False, True, "n"), lambda x: core.argmax(x, 1, False, "int64", "n"),
    lambda x: core.reshape(x, [4], name="n"), lambda x: core.gather(x, _t([1], "int64"), 0, "n"),
    lambda x: core.rand([2], name="n"), lambda x: core.randint(0, 3, [2], name="n"),
    lambda x: core.clip(x, 0.0, 1.0, "n"), lambda x: core.tanh(x, name="n"),
])
def test_paddles_name_argument_is_taken(call):
    x = _t([[0.5, -1.0], [2.0, 3.0]])
    assert isinstance(call(x), core.Tensor)


def test_round_decimals_rounds_halves_to_even_at_that_place():
    x = _t([1.2345, -0.125, 2.0, 0.5])  # expected values: paddlepaddle 3.3.1's
    np.testing.assert_array_equal(core.round(x, 2).numpy(), [1.23, -0.12, 2.0, 0.5])
    np.testing.assert_array_equal(core.round(_t([125.0, -250.0, 14.0]), decimals=-1).numpy(),
                                  [120.0, -250.0, 10.0])
    assert core.round(_t([1.23456], "float32"), decimals=3).numpy().dtype == np.float32
    np.testing.assert_array_equal(core.round(_t([15, 26], "int64"), decimals=-1).numpy(),
                                  [15, 26])  # integers as they are, as Paddle
    x.stop_gradient = False
    core.round(x, decimals=1).sum().backward()  # piecewise constant: a zero gradient
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros(4))


def test_round_decimals_must_be_an_int():
    with pytest.raises(TypeError, match=r"round: decimals must be an int, got 1.5"):
        core.round(_t([1.0]), decimals=1.5)
    with pytest.raises(TypeError, match=r"decimals must be an int, got True"):
        core.round(_t([1.0]), True)


def test_var_unbiased_none_is_paddles_default_bessel_correction():
    x = _t([1.0, 2.0, 4.0])
    assert core.var(x).item() == pytest.approx(7 / 3)
    assert core.var(x, unbiased=None).item() == core.var(x, unbiased=True).item()
    assert core.var(x, None, False).item() == pytest.approx(14 / 9)


def test_uniform_defaults_to_paddle_3s_unit_interval():
    core.seed(1)
    draws = core.uniform([4000], dtype="float64").numpy()
    assert draws.min() >= 0.0 and draws.max() < 1.0 and draws.mean() == pytest.approx(0.5, abs=0.03)
    x = core.zeros([4000], dtype="float64")
    x.uniform_()
    assert x.numpy().min() >= 0.0 and x.numpy().mean() == pytest.approx(0.5, abs=0.03)


def test_unique_takes_sorted_and_sorts_either_way():
    x = _t([3, 1, 3, 2], "int64")
    for flag in (True, False):
        np.testing.assert_array_equal(core.unique(x, sorted=flag).numpy(), [1, 2, 3])


def test_seed_takes_paddles_argument_name():
    core.seed(seed=5)
    first = core.rand([3]).numpy()
    core.seed(5)
    np.testing.assert_array_equal(core.rand([3]).numpy(), first)


def test_get_device_of_a_tensor_is_its_gpu_index_or_minus_one():
    assert core.get_device() == str(core.device.get_device())
    x = _t([1.0])
    expected = -1 if isinstance(x.data, np.ndarray) else int(x.data.device.id)
    assert core.get_device(x) == expected
    assert core.get_device("not a tensor") == core.get_device()  # ignored, as in Paddle


def test_index_add_alpha_scales_value_as_torch():
    torch = pytest.importorskip("torch")
    x, value = np.arange(12.0).reshape(3, 4), np.ones((2, 4)) * 0.5
    index = np.array([2, 0])
    got = core.index_add(_t(x), _t(index, "int64"), 0, _t(value), alpha=2.5)
    want = torch.tensor(x).index_add(0, torch.tensor(index), torch.tensor(value), alpha=2.5)
    np.testing.assert_allclose(got.numpy(), want.numpy())
    np.testing.assert_allclose(core.index_add(_t(x), _t(index, "int64"), 0, _t(value)).numpy(),
                               torch.tensor(x).index_add(0, torch.tensor(index),
                                                         torch.tensor(value)).numpy())


def test_index_add_alpha_gradient():
    index = core.to_tensor(np.array([1, 1, 0]))
    check_grad(lambda x, v: core.index_add(x, index, 1, v, -1.5),
               np.random.default_rng(0).normal(size=(2, 3)),
               np.random.default_rng(1).normal(size=(2, 3)))


def test_index_add_alpha_must_be_a_number():
    x = _t([[1.0, 2.0]])
    with pytest.raises(TypeError, match=r"index_add: alpha must be an int or float, got 'a'"):
        core.index_add(x, _t([0], "int64"), 0, x, alpha="a")


def _params():
    return [core.create_parameter([3], "float64", default_initializer=None)]


def _step(opt_class, **kwargs):
    core.seed(0)
    params = _params()
    params[0].set_value(np.array([1.0, -2.0, 3.0]))
    opt = opt_class(learning_rate=0.1, parameters=params, **kwargs)
    (params[0] * params[0]).sum().backward()
    opt.step()
    return params[0].numpy()


def test_adam_and_momentum_take_paddles_use_multi_tensor_with_the_same_numbers():
    for opt_class in (core.optimizer.Adam, core.optimizer.Momentum):
        np.testing.assert_array_equal(_step(opt_class, use_multi_tensor=True), _step(opt_class))
    np.testing.assert_array_equal(_step(core.optimizer.Adam, amsgrad=False),
                                  _step(core.optimizer.Adam))
    np.testing.assert_array_equal(_step(core.optimizer.Momentum, rescale_grad=1.0),
                                  _step(core.optimizer.Momentum))
    np.testing.assert_array_equal(_step(core.optimizer.AdamW, name="w"),
                                  _step(core.optimizer.AdamW))  # AdamW passes name on by name


def test_what_adam_and_momentum_cannot_honour_raises():
    with pytest.raises(NotImplementedError, match=r"Adam: amsgrad=True is not implemented"):
        core.optimizer.Adam(parameters=_params(), amsgrad=True)
    with pytest.raises(NotImplementedError, match=r"Momentum: rescale_grad=0.5 is not "):
        core.optimizer.Momentum(parameters=_params(), rescale_grad=0.5)


def test_the_optimizer_base_needs_a_learning_rate_as_paddles():
    with pytest.raises(TypeError, match="learning_rate"):
        core.optimizer.Optimizer(parameters=_params())


def test_in_place_functions_take_their_first_argument_by_paddles_name():
    x = _t(np.ones((3, 3)))
    assert core.tril_(x=x, diagonal=-1) is x and x.numpy().sum() == 3
    u = _t(np.ones((2, 3)))
    assert core.t_(input=u) is u and u.shape == [3, 2]
    assert core.trunc_(input=_t([1.5, -2.5])).numpy().tolist() == [1.0, -2.0]
    y = _t([-1.0, 2.0])
    assert core.abs_(x=y) is y and y.numpy().tolist() == [1.0, 2.0]
    assert core.pow_(x=y, y=2.0).numpy().tolist() == [1.0, 4.0]
    assert y.add_(y=_t([1.0, 1.0])).numpy().tolist() == [2.0, 5.0]
    x.triu_(1)  # as a Tensor method
    assert x.numpy().sum() == 0


def test_in_place_functions_name_what_they_take_on_a_bad_argument():
    with pytest.raises(TypeError, match=r"tril_: got an unexpected keyword argument 'foo'; "
                                        r"it takes \(x, diagonal"):
        core.tril_(_t(np.ones((2, 2))), foo=1)
