"""core.nn, core.nn.functional and core.nn.initializer against Paddle's own signatures.

Paddle code passes arguments by name (``F.cross_entropy(logits, label, soft_label=False)``,
``nn.Conv2D(3, 8, 3, padding=1, bias_attr=False)``) and by position, so every public layer
class, functional and initializer here must take Paddle's parameters: the positional ones in
Paddle's order with Paddle's defaults, the keyword-only ones under the same names and
defaults. The reference is tests/core/paddle_signatures_nn.py (Paddle 3.3.1's source).

Anything else is listed below with a reason and documented in docs/paddle.md, so that drift
either way (core changing a signature, or a stale exception) fails here.
"""
import ast
import inspect
import math
from pathlib import Path

import numpy as np
import pytest

import core
from core import nn
from core.nn import functional as F
from core.nn import initializer as I
from tests.core.paddle_signatures_nn import FUNCTIONAL, INITIALIZER, NN
from tests.gradcheck import check_grad

DOCS = (Path(__file__).resolve().parents[2] / "docs" / "paddle.md").read_text()
EMPTY = inspect.Parameter.empty

# Where core's signature deliberately differs from Paddle 3.3.1's: core's whole signature
# (rendered as ``render`` does) and why. Each name is in docs/paddle.md's section "Signatures
# against Paddle 3.3".
DELIBERATE = {
    "nn.Layer": (
        "(name_scope=None, dtype=None)",
        "dtype=None follows core.get_default_dtype() at construction instead of 'float32'"),
    "nn.RNNCellBase": (
        "(name_scope=None, dtype=None)",
        "a Layer: dtype=None follows core.get_default_dtype() as nn.Layer's does"),
    "F.sigmoid": ("(x, name=None)", "no Paddle 3.x keyword-only out= (core has no out= tensors)"),
    "F.tanh": ("(x, name=None)", "no Paddle 3.x keyword-only out= (core has no out= tensors)"),
    "F.softmax": (
        "(x, axis=-1, dtype=None, name=None)",
        "no Paddle 3.x keyword-only out= (core has no out= tensors)"),
    "F.normalize": (
        "(x, p=2, axis=1, epsilon=1e-12, name=None)",
        "no Paddle 3.x out= (core has no out= tensors)"),
    "nn.ConstantPad1D": (
        "(padding, value=0.0, data_format='NCL', name=None)",
        "value defaults to 0.0 (Paddle requires it)"),
    "nn.ConstantPad2D": (
        "(padding, value=0.0, data_format='NCHW', name=None)",
        "value defaults to 0.0 (Paddle requires it)"),
    "nn.ConstantPad3D": (
        "(padding, value=0.0, data_format='NCDHW', name=None)",
        "value defaults to 0.0 (Paddle requires it)"),
}

# Keyword-only extras core adds after all of Paddle's parameters (Paddle's calls still work):
# name -> (the extras, why). Each name is in docs/paddle.md's section too.
EXTRAS = {f"nn.{name}": ({"options"}, "**options: the shared base of core's activation layers")
          for name in ("Hardswish", "ReLU6", "Hardsigmoid", "Mish", "Softsign", "Swish",
                       "Tanhshrink", "LogSigmoid")}
EXTRAS.update({
    f"nn.{name}": ({"thresholds"}, "core's per-parameter thresholds (Paddle 1's ParamAttr's)")
    for name in ("ClipGradByGlobalNorm", "ClipGradByNorm", "ClipGradByValue")})
EXTRAS["F.ctc_loss"] = ({"name"}, "name=None, as core's other functionals take")

# Public names of core.nn / core.nn.functional that Paddle's namespaces lack.
CORE_ONLY = {
    "nn.functional": "a module", "nn.initializer": "a module", "nn.utils": "a module",
    "nn.Add": "core's merge layer", "nn.Concat": "core's merge layer",
    "nn.Multiply": "core's merge layer", "nn.Matmul": "core's merge layer",
    "nn.SequencePool": "layer form of F.sequence_pool",
    "F.flatten": "core.flatten under F (Paddle has only paddle.flatten)",
    "F.sequence_pool": "Paddle 1.x's sequence_pool on padded batches",
}

MODULES = {"nn": nn, "F": F, "I": I}
REFERENCE = [("nn", name, sig) for name, sig in NN.items()] + \
    [("F", name, sig) for name, sig in FUNCTIONAL.items()] + \
    [("I", name, sig) for name, sig in INITIALIZER.items()]


def _value(text: str):
    """A default as written in Paddle's source (a literal or ``1.0 / 8.0``)."""
    return eval(compile(ast.parse(text, mode="eval"), "<default>", "eval"), {"__builtins__": {}})


def paddle_params(signature: str):
    """[(name, kind, default or EMPTY)] of a stored signature; kind as inspect's."""
    args = ast.parse(f"def f{signature}: pass").body[0].args
    P = inspect.Parameter
    positional = args.posonlyargs + args.args
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    out = [(a.arg, P.POSITIONAL_OR_KEYWORD, EMPTY if d is None else _value(ast.unparse(d)))
           for a, d in zip(positional, defaults)]
    if args.vararg:
        out.append((args.vararg.arg, P.VAR_POSITIONAL, EMPTY))
    out += [(a.arg, P.KEYWORD_ONLY, EMPTY if d is None else _value(ast.unparse(d)))
            for a, d in zip(args.kwonlyargs, args.kw_defaults)]
    if args.kwarg:
        out.append((args.kwarg.arg, P.VAR_KEYWORD, EMPTY))
    return out


def core_params(obj):
    """inspect's parameters of a function, or of a class's ``__init__`` without ``self`` (none
    for a class that keeps object's, which takes no arguments: Paddle's ``()``)."""
    if inspect.isclass(obj) and obj.__init__ is object.__init__:
        return []
    params = list(inspect.signature(obj.__init__ if inspect.isclass(obj) else obj)
                  .parameters.values())
    return params[1:] if inspect.isclass(obj) and params and params[0].name == "self" else params


def render(obj) -> str:
    """core's signature as the reference writes Paddle's: no annotations, defaults as repr."""
    text = []
    for p in core_params(obj):
        star = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "")
        if p.kind == p.KEYWORD_ONLY and not any(t.startswith("*") for t in text):
            text.append("*")
        text.append(star + p.name + ("" if p.default is EMPTY else f"={p.default!r}"))
    return "(" + ", ".join(text) + ")"


def same_default(paddle, mine) -> bool:
    if paddle is EMPTY or mine is EMPTY:
        return paddle is mine
    if isinstance(paddle, bool) or isinstance(mine, bool):
        return type(paddle) is type(mine) and paddle == mine
    if isinstance(paddle, (list, tuple)) and isinstance(mine, (list, tuple)):
        return list(paddle) == list(mine)
    return paddle == mine and (type(paddle) is type(mine) or (
        isinstance(paddle, (int, float)) and isinstance(mine, (int, float))))


def disagreements(signature: str, obj, allowed=frozenset()) -> list[str]:
    """What stops Paddle's calls from working on ``obj`` (missing, misplaced or re-defaulted
    parameters, core extras that are not keyword-only) and keyword-only extras not in
    ``allowed``."""
    theirs, mine = paddle_params(signature), core_params(obj)
    problems = []
    positional = [t for t in theirs if t[1] == inspect.Parameter.POSITIONAL_OR_KEYWORD]
    for i, (name, _, default) in enumerate(positional):
        if i >= len(mine) or mine[i].name != name or mine[i].kind != mine[i].POSITIONAL_OR_KEYWORD:
            problems.append(f"positional parameter {i} must be {name!r}, core has "
                            f"{mine[i].name if i < len(mine) else 'nothing'!r}")
        elif not same_default(default, mine[i].default):
            problems.append(f"{name}: default {mine[i].default!r}, Paddle's {default!r}")
    by_name = {p.name: p for p in mine[len(positional):]}
    variadic = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    for name, kind, default in theirs[len(positional):]:
        p = by_name.pop(name, None)
        if p is None or (kind in variadic or p.kind in variadic) and p.kind != kind:
            problems.append(f"{name!r} ({kind.description}) is missing")
        elif not same_default(default, p.default):
            problems.append(f"{name}: default {p.default!r}, Paddle's {default!r}")
    problems += [f"core's extra {p.name!r} must be keyword-only" for p in by_name.values()
                 if p.kind not in (p.KEYWORD_ONLY, p.VAR_KEYWORD)]
    problems += [f"core's keyword-only extra {p.name!r} is not listed in EXTRAS"
                 for p in by_name.values()
                 if p.kind in (p.KEYWORD_ONLY, p.VAR_KEYWORD) and p.name not in allowed]
    return problems


@pytest.mark.parametrize("module, name, signature", REFERENCE,
                         ids=[f"{m}.{n}" for m, n, _ in REFERENCE])
def test_core_takes_paddles_parameters(module, name, signature):
    obj = getattr(MODULES[module], name)
    key = f"{module}.{name}"
    if key in DELIBERATE:
        want, reason = DELIBERATE[key]
        assert disagreements(signature, obj), f"{key} now agrees with Paddle: drop it from " \
            f"DELIBERATE and docs/paddle.md ({reason})"
        assert render(obj) == want, f"{key}'s deliberate signature drifted"
        return
    allowed = EXTRAS.get(key, (frozenset(), ""))[0]
    assert disagreements(signature, obj, allowed) == [], \
        f"{key}{render(obj)} vs Paddle's {signature}"


@pytest.mark.parametrize("key", sorted(DELIBERATE) + sorted(EXTRAS))
def test_each_deliberate_difference_is_documented(key):
    heading = "### Signatures: `core.nn`, `core.nn.functional`, `core.nn.initializer`"
    section = DOCS.split(heading, 1)
    assert len(section) == 2, f"docs/paddle.md lacks its section '{heading}'"
    module, name = key.split(".")
    assert f"`{module}.{name}`" in section[1], f"{key} is not in docs/paddle.md's section"


def test_every_public_name_has_a_reference_or_is_core_only():
    names = [("nn", n) for n in nn.__all__] + [("F", n) for n in F.__all__]
    tables = {"nn": NN, "F": FUNCTIONAL}
    unreferenced = [f"{m}.{n}" for m, n in names if n not in tables[m]]
    assert sorted(unreferenced) == sorted(CORE_ONLY)
    for key in CORE_ONLY:
        module, name = key.split(".")
        if not inspect.ismodule(getattr(MODULES[module], name)):
            assert f"`{key}`" in DOCS, f"core-only {key} is not in docs/paddle.md"


def test_initializer_reference_covers_core_initializers():
    public = {n for n in dir(I) if not n.startswith("_") and (
        inspect.isclass(getattr(I, n)) and issubclass(getattr(I, n), I.Initializer)
        or n in ("calculate_gain", "set_global_initializer"))}
    assert public == set(INITIALIZER)


def test_disagreements_names_what_paddle_code_would_trip_on():
    """The checker itself: order, defaults, missing keyword-only names, positional extras."""
    def f(x, axis=1, name=None):
        return x
    assert disagreements("(x, axis=1, name=None)", f) == []
    assert disagreements("(x, name=None, axis=1)", f)[0].startswith("positional parameter 1")
    assert disagreements("(x, axis=2, name=None)", f) == ["axis: default 1, Paddle's 2"]
    assert disagreements("(x, axis=1, name=None, *, out=None)", f) == \
        ["'out' (keyword-only) is missing"]
    assert disagreements("(x, axis=1)", f) == ["core's extra 'name' must be keyword-only"]

    def h(x, *, out=None, **options):
        return x
    assert disagreements("(x)", h, {"out", "options"}) == []
    assert disagreements("(x)", h, {"out"}) == \
        ["core's keyword-only extra 'options' is not listed in EXTRAS"]
    assert disagreements("(x, axis=1.0, name=None)", f) == []  # 1 == 1.0: same default
    assert disagreements("(x, axis=True, name=None)", f) == ["axis: default 1, Paddle's True"]
    assert disagreements("(x, *, axis=1, name=None)", f) == []  # positional in core: a superset

    def k(x, *, axis=1):
        return x
    assert disagreements("(x, *, axis=1)", k) == []
    assert disagreements("(x, *args)", k)[0] == "'args' (variadic positional) is missing"

    def g(x, lower=0.125):
        return x
    assert disagreements("(x, lower=1.0 / 8.0)", g) == []


def test_positional_paddle_calls_reach_the_right_parameters():
    """The order fixes this audit made, driven through the public API with Paddle's
    positional calls: conv2d_transpose / Conv2DTranspose / Conv3DTranspose take dilation
    before groups, SimpleRNN takes activation after dropout, GRU / LSTM / SimpleRNN take
    Paddle's *_attr parameters."""
    x = core.ones([1, 4, 3, 3])
    w = core.ones([4, 1, 2, 2])
    # stride 1, padding 0, output_padding 0, dilation 2, groups 4: depthwise, kernel span 3
    out = F.conv2d_transpose(x, w, None, 1, 0, 0, 2, 4)
    assert out.shape == [1, 4, 5, 5]
    layer = nn.Conv2DTranspose(4, 4, 2, 1, 0, 0, 2, 4)
    assert layer.weight.shape == [4, 1, 2, 2] and layer(x).shape == [1, 4, 5, 5]
    layer3 = nn.Conv3DTranspose(4, 4, 2, 1, 0, 0, 2, 4)
    assert layer3.weight.shape == [4, 1, 2, 2, 2]
    assert layer3(core.ones([1, 4, 2, 2, 2])).shape == [1, 4, 4, 4, 4]  # span 3, not 2

    rnn = nn.SimpleRNN(2, 3, 1, "forward", False, 0.0, "relu")
    assert rnn.activation == "relu" and rnn.direction == "forward"
    assert float(rnn(core.ones([1, 4, 2]) * -100.0)[0].min()) >= 0.0  # relu: no negatives


def test_rnn_attrs_reach_every_layer_and_direction():
    frozen = core.ParamAttr(initializer=nn.initializer.Constant(0.5), trainable=False)
    gru = nn.GRU(2, 3, 2, "bidirect", False, 0.0, frozen, None, False, None)
    for k in range(2):
        for suffix in ("", "_reverse"):
            weight = getattr(gru, f"weight_ih_l{k}{suffix}")
            assert weight.stop_gradient and float(weight.numpy().max()) == 0.5
            assert getattr(gru, f"bias_ih_l{k}{suffix}") is None
            assert getattr(gru, f"bias_hh_l{k}{suffix}") is not None
    assert len(gru.parameters()) == 2 * 2 * 3
    out, final = gru(core.ones([2, 5, 2]))
    assert out.shape == [2, 5, 6] and final.shape == [4, 2, 3]

    lstm = nn.LSTM(2, 3, weight_hh_attr=False)
    assert lstm.weight_hh_l0.stop_gradient and float(lstm.weight_hh_l0.numpy().min()) == 1.0
    assert lstm(core.ones([1, 2, 2]))[0].shape == [1, 2, 3]


def test_rnn_without_input_bias_matches_a_zero_bias():
    """bias_ih_attr=False computes what a zero bias computes (Paddle keeps a frozen zero)."""
    core.seed(3)
    plain = nn.SimpleRNN(2, 3, bias_ih_attr=False)
    zeroed = nn.SimpleRNN(2, 3)
    for name in ("weight_ih_l0", "weight_hh_l0", "bias_hh_l0"):
        getattr(zeroed, name).set_value(getattr(plain, name))
    zeroed.bias_ih_l0.set_value(core.zeros([3]))
    x = core.to_tensor([[[0.5, -1.0], [2.0, 0.25]]])
    np.testing.assert_allclose(plain(x)[0].numpy(), zeroed(x)[0].numpy(), rtol=1e-6)


# ----- the parameters this audit added, driven through the public API ------------------------

RNG = np.random.default_rng(1733)


def test_smooth_l1_is_huber_false_is_torchs_smooth_l1_and_differentiates():
    torch = pytest.importorskip("torch")
    x, y = RNG.normal(size=(4, 5)) * 3, RNG.normal(size=(4, 5))
    for reduction in ("mean", "sum", "none"):
        got = F.smooth_l1_loss(core.to_tensor(x), core.to_tensor(y), reduction, 2.0,
                               False).numpy()
        want = torch.nn.functional.smooth_l1_loss(torch.tensor(x), torch.tensor(y),
                                                  reduction=reduction, beta=2.0).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-12)
    huber = nn.SmoothL1Loss(delta=2.0)(core.to_tensor(x), core.to_tensor(y)).numpy()
    layer = nn.SmoothL1Loss("mean", 2.0, False)
    assert layer.is_huber is False
    assert float(layer(core.to_tensor(x), core.to_tensor(y))) == pytest.approx(huber / 2.0)
    check_grad(lambda a, b: F.smooth_l1_loss(a, b, "sum", 0.5, is_huber=False), x, y)
    with pytest.raises(TypeError, match="is_huber must be True or False, got 'no'"):
        F.smooth_l1_loss(core.to_tensor(x), core.to_tensor(y), is_huber="no")


def test_one_hot_num_classes_defaults_to_max_plus_one():
    out = F.one_hot(core.to_tensor([[0, 3], [1, 2]]))
    assert out.shape == [2, 2, 4]
    np.testing.assert_array_equal(out.numpy()[0, 1], [0, 0, 0, 1])
    with pytest.raises(ValueError, match=r"int >= 1 or -1 \(max\(x\) \+ 1\), got -2"):
        F.one_hot(core.to_tensor([1]), -2)
    with pytest.raises(ValueError, match="x is empty"):
        F.one_hot(core.to_tensor(np.zeros([0], dtype="int64")))


def test_spectral_norm_takes_paddles_eps():
    layer = nn.SpectralNorm([3, 4], eps=1e-6, dtype="float64")
    assert layer.epsilon == 1e-6
    with pytest.raises(TypeError):
        nn.SpectralNorm([3, 4], epsilon=1e-6)  # core's old name is gone


@pytest.mark.parametrize("cls", ["KaimingNormal", "KaimingUniform"])
def test_kaiming_mode_fan_out_scales_by_the_fan_out(cls):
    torch = pytest.importorskip("torch")
    core.seed(5)
    shape = [64, 8, 5, 5]  # conv weight [out, in, kh, kw]: fan_in 200, fan_out 1600
    weight = core.create_parameter(shape, "float64",
                                   default_initializer=getattr(I, cls)(mode="fan_out"))
    fan_out = torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(shape))[1]
    bound = math.sqrt(2.0) * math.sqrt(3.0 / fan_out)  # the uniform limit; normal std * sqrt 3
    values = weight.numpy()
    if cls == "KaimingUniform":
        assert np.abs(values).max() <= bound and np.abs(values).max() > 0.95 * bound
    else:
        assert values.std() == pytest.approx(math.sqrt(2.0 / fan_out), rel=0.05)
    with pytest.raises(ValueError, match=f"{cls}: mode='fan' must be 'fan_in' or 'fan_out'"):
        getattr(I, cls)(mode="fan")
    with pytest.raises(ValueError, match="fan_in=3 is given with mode='fan_out'"):
        getattr(I, cls)(3, mode="fan_out")


def test_pad_and_upsample_pick_the_channel_first_layout_by_rank():
    x = core.to_tensor(RNG.normal(size=(1, 2, 3)))
    np.testing.assert_array_equal(F.pad(x, [1, 2]).numpy(),
                                  F.pad(x, [1, 2], data_format="NCL").numpy())
    assert F.pad(x, [1, 2]).shape == [1, 2, 6]
    v = core.to_tensor(RNG.normal(size=(1, 2, 2, 3, 3)))
    assert F.pad(v, [1, 1, 0, 0, 2, 2], mode="replicate").shape == [1, 2, 6, 3, 5]
    img = core.to_tensor(RNG.normal(size=(1, 2, 3, 3)))
    np.testing.assert_array_equal(F.upsample(img, scale_factor=2).numpy(),
                                  F.interpolate(img, scale_factor=2, data_format="NCHW").numpy())


def test_interpolate_recompute_scale_factor_matches_torch():
    torch = pytest.importorskip("torch")
    x = RNG.normal(size=(1, 2, 5, 7))
    for mode, corners in (("bilinear", False), ("nearest", False)):
        for recompute in (True, False):
            got = F.interpolate(core.to_tensor(x), scale_factor=1.7, mode=mode,
                                align_corners=corners, recompute_scale_factor=recompute).numpy()
            want = torch.nn.functional.interpolate(
                torch.tensor(x), scale_factor=1.7, mode=mode,
                align_corners=None if mode == "nearest" else corners,
                recompute_scale_factor=recompute).numpy()
            np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    layer = nn.Upsample(scale_factor=1.7, mode="bilinear", recompute_scale_factor=True)
    np.testing.assert_allclose(layer(core.to_tensor(x)).numpy(), F.interpolate(
        core.to_tensor(x), scale_factor=1.7, mode="bilinear",
        recompute_scale_factor=True).numpy())
    check_grad(lambda a: F.interpolate(a, scale_factor=1.5, mode="bilinear",
                                       recompute_scale_factor=True), x[:, :1, :3, :3])
    with pytest.raises(ValueError, match=r"recompute_scale_factor=True needs scale_factor, not "
                                         r"an explicit size=\[4, 4\]"):
        F.interpolate(core.to_tensor(x), size=[4, 4], recompute_scale_factor=True)


def test_ctc_zero_infinity_is_taken_and_changes_nothing():
    logits = core.to_tensor(RNG.normal(size=(4, 2, 5)).astype("float32"))
    labels = core.to_tensor(np.array([[1, 1, 1], [3, 0, 0]], dtype="int32"))
    lengths = core.to_tensor(np.array([4, 4], dtype="int64"))
    label_lengths = core.to_tensor(np.array([3, 1], dtype="int64"))  # row 0 cannot fit
    args = (logits, labels, lengths, label_lengths)
    plain = F.ctc_loss(*args, reduction="none").numpy()
    np.testing.assert_array_equal(F.ctc_loss(*args, 0, "none", False, True).numpy(), plain)
    assert plain[0] == 0 and np.isfinite(plain).all()
    layer = nn.CTCLoss(0, "none", True)
    assert layer.zero_infinity is True
    np.testing.assert_array_equal(layer(*args).numpy(), plain)
    with pytest.raises(TypeError, match="zero_infinity must be True or False, got 1"):
        F.ctc_loss(*args, zero_infinity=1)


def test_batch_norm_1d_default_layout_takes_2d_and_3d_inputs():
    layer = nn.BatchNorm1D(3)
    assert layer.data_format == "NCL"
    assert layer(core.ones([4, 3])).shape == [4, 3]
    assert layer(core.ones([4, 3, 5])).shape == [4, 3, 5]
    assert nn.BatchNorm2D(3).data_format == "NCHW" and nn.BatchNorm3D(3).data_format == "NCDHW"


def test_adaptive_log_softmax_takes_weight_and_bias_attrs():
    weight = core.ParamAttr(initializer=I.Constant(0.25))
    bias = core.ParamAttr(initializer=I.Constant(-1.0))
    layer = nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], weight, bias, 2.0, True)
    assert layer.div_value == 2.0 and layer.head_bias is not None
    for w in [layer.head_weight] + list(layer.tail):
        assert np.all(w.numpy() == 0.25)
    assert np.all(layer.head_bias.numpy() == -1.0)
    out, loss = layer(core.ones([2, 8]), core.to_tensor(np.array([1, 7], dtype="int64")))
    assert out.shape == [2] and np.isfinite(float(loss))


def test_dropout_and_silu_take_paddle3_inplace():
    x = core.to_tensor(RNG.normal(size=(3, 4)))
    layer = nn.Dropout(0.5, False, [0])  # Paddle 3.x's order: p, inplace, axis
    assert layer.inplace is False and layer.axis == [0]
    layer.eval()
    np.testing.assert_array_equal(layer(x).numpy(), x.numpy())
    with pytest.raises(TypeError, match=r"Dropout: inplace=\[0\] must be True or False"):
        nn.Dropout(0.5, [0])
    want = x.numpy() / (1 + np.exp(-x.numpy()))
    np.testing.assert_allclose(nn.Silu(True)(x).numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(F.silu(x, True).numpy(), want, rtol=1e-12)
    assert repr(nn.Silu()) == repr(nn.Silu(name=None))
    with pytest.raises(TypeError, match="silu: inplace='yes' must be True or False"):
        F.silu(x, inplace="yes")


def test_global_norm_auto_skip_clip_gives_the_same_gradients():
    param = core.create_parameter([3], "float64")
    for scale in (0.1, 10.0):  # under and over the limit
        grad = core.to_tensor(np.array([1.0, -2.0, 2.0]) * scale)
        plain = nn.ClipGradByGlobalNorm(1.0)([(param, grad)])[0][1].numpy()
        skip = nn.ClipGradByGlobalNorm(1.0, "default_group", True)([(param, grad)])[0][1]
        np.testing.assert_allclose(skip.numpy(), plain, rtol=1e-12)
    assert nn.ClipGradByGlobalNorm(1.0, auto_skip_clip=True).auto_skip_clip is True
    with pytest.raises(TypeError, match=r"auto_skip_clip=\{'fc': 2.0\} must be True or False"):
        nn.ClipGradByGlobalNorm(1.0, "g", {"fc": 2.0})
    with pytest.raises(TypeError):
        nn.ClipGradByNorm(1.0, {"fc": 2.0})  # thresholds is keyword-only now


def _torch_lstm_like(layer, torch):
    """torch's LSTM with ``layer``'s weights (torch's weight_hr is core's weight_ho^T)."""
    ref = torch.nn.LSTM(layer.input_size, layer.hidden_size, layer.num_layers,
                        batch_first=True, bidirectional=layer.num_directions == 2,
                        proj_size=layer.proj_size).double()
    with torch.no_grad():
        for name, value in ref.named_parameters():
            mine = getattr(layer, name.replace("weight_hr", "weight_ho")).numpy()
            value.copy_(torch.tensor(mine.T if "weight_hr" in name else mine))
    return ref


@pytest.mark.parametrize("direction, layers", [("forward", 1), ("bidirect", 2)])
def test_projected_lstm_matches_torch(direction, layers):
    torch = pytest.importorskip("torch")
    core.seed(11)
    layer = nn.LSTM(3, 5, layers, direction, proj_size=2)
    layer.to(dtype="float64")
    D = 2 if direction == "bidirect" else 1
    assert layer.weight_hh_l0.shape == [20, 2] and layer.weight_ho_l0.shape == [5, 2]
    if layers == 2:
        assert layer.weight_ih_l1.shape == [20, 2 * D]
    x = RNG.normal(size=(2, 4, 3))
    h0, c0 = RNG.normal(size=(layers * D, 2, 2)), RNG.normal(size=(layers * D, 2, 5))
    out, (h, c) = layer(core.to_tensor(x), (core.to_tensor(h0), core.to_tensor(c0)))
    ref = _torch_lstm_like(layer, torch)
    want, (want_h, want_c) = ref(torch.tensor(x), (torch.tensor(h0), torch.tensor(c0)))
    assert out.shape == [2, 4, 2 * D]
    for got, expected in ((out, want), (h, want_h), (c, want_c)):
        np.testing.assert_allclose(got.numpy(), expected.detach().numpy(), rtol=1e-10,
                                   atol=1e-12)
    (out.sum() + h.sum() * 2 + c.sum() * 3).backward()
    (want.sum() + want_h.sum() * 2 + want_c.sum() * 3).backward()
    for name, value in ref.named_parameters():  # the parameters' gradients too
        mine = getattr(layer, name.replace("weight_hr", "weight_ho")).grad.numpy()
        expected = value.grad.numpy()
        np.testing.assert_allclose(mine, expected.T if "weight_hr" in name else expected,
                                   rtol=1e-9, atol=1e-12)


def test_projected_lstm_lengths_and_gradients():
    core.seed(12)
    layer = nn.LSTM(2, 4, 1, "bidirect", proj_size=3)
    layer.to(dtype="float64")
    x = RNG.normal(size=(2, 5, 2))
    out, (h, c) = layer(core.to_tensor(x), sequence_length=core.to_tensor([5, 3]))
    alone, (h1, c1) = layer(core.to_tensor(x[1:, :3]))  # row 1 by itself, its 3 real steps
    np.testing.assert_allclose(out.numpy()[1, :3], alone.numpy()[0], rtol=1e-10)
    # Paddle steps LSTMCell here (RNN(cell)): padded steps output a step from the held states,
    # not zeros (tests/core/nn/test_paddle_agreement_rnn.py checks Paddle's values)
    assert np.all(out.numpy()[1, 3:] != 0)
    np.testing.assert_allclose(h.numpy()[:, 1], h1.numpy()[:, 0], rtol=1e-10)
    np.testing.assert_allclose(c.numpy()[:, 1], c1.numpy()[:, 0], rtol=1e-10)
    check_grad(lambda a: layer(a)[0], x)
    with pytest.raises(ValueError, match=r"LSTM: proj_size=4 must be an integer in \[0, "
                                         r"hidden_size\) = \[0, 4\)"):
        nn.LSTM(2, 4, proj_size=4)
    with pytest.raises(ValueError, match=r"initial_states\[0\] \(h\) must be \[num_layers \* "
                                         r"num_directions, batch, proj_size\] = \[2, 2, 3\]"):
        layer(core.to_tensor(x), (core.zeros([2, 2, 4], "float64"),
                                  core.zeros([2, 2, 4], "float64")))


def test_sdpa_scale_and_grouped_query_attention_match_torch():
    torch = pytest.importorskip("torch")
    q = RNG.normal(size=(2, 3, 4, 5))  # [batch, seq, heads, head_dim], Paddle's layout
    k, v = RNG.normal(size=(2, 6, 2, 5)), RNG.normal(size=(2, 6, 2, 5))  # 2 key/value heads
    mask = RNG.normal(size=(2, 1, 3, 6))
    got = F.scaled_dot_product_attention(core.to_tensor(q), core.to_tensor(k), core.to_tensor(v),
                                         core.to_tensor(mask), 0.0, False, True, None, 0.3,
                                         True).numpy()
    want = torch.nn.functional.scaled_dot_product_attention(
        *(torch.tensor(a).transpose(1, 2) for a in (q, k, v)), attn_mask=torch.tensor(mask),
        scale=0.3, enable_gqa=True).transpose(1, 2).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    same = F.scaled_dot_product_attention(core.to_tensor(q), core.to_tensor(q),
                                          core.to_tensor(q), backend="p2p").numpy()
    np.testing.assert_allclose(same, F.scaled_dot_product_attention(
        core.to_tensor(q), core.to_tensor(q), core.to_tensor(q)).numpy())
    check_grad(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, scale=0.7,
                                                              is_causal=True),
               q[:1, :, :2], k[:1, :3, :1], v[:1, :3, :1])
    with pytest.raises(ValueError, match=r"query has 4 heads, key 2 and value 2: .*"
                                         r"enable_gqa=True \(now False\)"):
        F.scaled_dot_product_attention(core.to_tensor(q), core.to_tensor(k), core.to_tensor(v),
                                       enable_gqa=False)
    with pytest.raises(ValueError, match="backend='flash' is not supported"):
        F.scaled_dot_product_attention(core.to_tensor(q), core.to_tensor(q), core.to_tensor(q),
                                       backend="flash")


@pytest.mark.parametrize("cls, shape", [("Conv1D", [1, 2, 5]), ("Conv2D", [1, 2, 5, 5]),
                                        ("Conv3D", [1, 2, 4, 4, 4])])
def test_convolutions_take_paddle3_bias_device_dtype(cls, shape, on_cpu):  # device="cpu"
    layer = getattr(nn, cls)(2, 3, 3, bias=False, device="cpu", dtype="float64")
    assert layer.bias is None and layer.weight.dtype == core.float64
    assert str(layer.weight.place).lower().startswith(("place(cpu", "cpu"))
    x = core.to_tensor(RNG.normal(size=shape))
    same = getattr(nn, cls)(2, 3, 3, bias_attr=False)
    same.to(dtype="float64")
    same.weight.set_value(layer.weight)
    np.testing.assert_allclose(layer(x).numpy(), same(x).numpy(), rtol=1e-12)
    assert getattr(nn, cls)(2, 3, 3, bias=True).bias is not None
    legacy = getattr(nn, cls)(2, 3, 3, 1, 1, 1, 1, "reflect")  # 2.x's positional padding_mode
    assert legacy.padding_mode == "reflect"


def test_norms_take_paddle3_affine_switches():
    x = core.to_tensor(RNG.normal(size=(2, 4, 3)))
    torch = pytest.importorskip("torch")
    plain = nn.LayerNorm(3, elementwise_affine=False, dtype="float64")
    assert plain.weight is None and plain.bias is None
    want = torch.nn.functional.layer_norm(torch.tensor(x.numpy()), [3], eps=1e-5).numpy()
    np.testing.assert_allclose(plain(x).numpy(), want, rtol=1e-10)
    no_bias = nn.LayerNorm(3, bias=False)
    assert no_bias.weight.shape == [3] and no_bias.bias is None
    group = nn.GroupNorm(2, 4, affine=False, dtype="float64")
    assert group.weight is None and group.bias is None
    want = torch.nn.functional.group_norm(torch.tensor(x.numpy()), 2, eps=1e-5).numpy()
    np.testing.assert_allclose(group(x).numpy(), want, rtol=1e-10)
    assert nn.GroupNorm(2, 4).weight is not None


def test_embedding_takes_paddle3_weight_and_freeze():
    table = RNG.normal(size=(4, 3))
    layer = nn.Embedding(4, 3, padding_idx=1, _weight=core.to_tensor(table), _freeze=True)
    expected = table.astype("float32")
    expected[1] = 0  # Paddle zeroes the padding row of a given weight too
    np.testing.assert_allclose(layer.weight.numpy(), expected)
    assert layer.weight.stop_gradient
    out = layer(core.to_tensor(np.array([[0, 1, 3]])))
    np.testing.assert_allclose(out.numpy()[0], expected[[0, 1, 3]])
    trainable = nn.Embedding(4, 3, _freeze=True, weight_attr=core.ParamAttr(name="emb_w"))
    assert not trainable.weight.stop_gradient  # Paddle: _freeze only without weight_attr
    wide = nn.Embedding(4, 3, _weight=table, dtype="float64")
    np.testing.assert_array_equal(wide.weight.numpy(), table)
    with pytest.raises(ValueError, match=r"_weight has shape \[3, 3\], but \[num_embeddings, "
                                         r"embedding_dim\] = \[4, 3\]"):
        nn.Embedding(4, 3, _weight=table[:3])
