"""core.nn.utils (paddle.nn.utils): gradient clipping functions, parameters <-> vector, weight
normalisation and spectral normalisation, against PyTorch, core's own clips and hand math."""
from __future__ import annotations

import math

import numpy as np
import pytest

import core
from core import backend, nn
from core.nn import utils
from core.nn.utils import _spectral_divide, _weight_norm
from core.row_sparse import RowSparseGrad
from core.tensor import Parameter, Tensor
from runner import build
from runner.config import validation
from tests.gradcheck import check_grad

RNG = np.random.default_rng(0)


def _params_with_grads(shapes=((3, 4), (5,), (2, 2, 2)), scale=3.0, seed=1):
    rng = np.random.default_rng(seed)
    params = []
    for shape in shapes:
        p = Parameter(rng.standard_normal(shape).astype(np.float32))
        p.grad_data = (scale * rng.standard_normal(shape)).astype(np.float32)
        params.append(p)
    return params


# ----- clip_grad_norm_ / clip_grad_value_ ---------------------------------------------------

@pytest.mark.parametrize("norm_type", [2.0, 1.0, math.inf, 0])
@pytest.mark.parametrize("max_norm", [0.5, 1e4])
def test_clip_grad_norm_matches_torch(norm_type, max_norm):
    torch = pytest.importorskip("torch")
    params = _params_with_grads()
    params[1].grad_data[:2] = 0  # a zero or two for the 0-"norm"
    ours_before = [p.gradient() for p in params]
    tparams = [torch.nn.Parameter(torch.tensor(p.numpy())) for p in params]
    for tp, g in zip(tparams, ours_before):
        tp.grad = torch.tensor(g)
    total = utils.clip_grad_norm_(params, max_norm, norm_type=norm_type)
    expected = torch.nn.utils.clip_grad_norm_(tparams, max_norm, norm_type=norm_type)
    assert isinstance(total, Tensor) and total.dtype == np.float32 and total.shape == []
    assert isinstance(total.data, np.ndarray)  # a 0-D array, as every Tensor holds
    np.testing.assert_allclose(float(total), float(expected), rtol=1e-5)
    for p, tp in zip(params, tparams):
        np.testing.assert_allclose(p.gradient(), tp.grad.numpy(), rtol=1e-5, atol=1e-7)


def test_clip_grad_norm_agrees_with_clip_grad_by_global_norm():
    params = _params_with_grads(scale=5.0)
    pairs = [(p, Tensor(p.grad_data.copy())) for p in params]
    clip = nn.ClipGradByGlobalNorm(1.0)
    by_class = [g.numpy() for _, g in clip(pairs)]
    total = utils.clip_grad_norm_(params, 1.0)
    assert float(total) == pytest.approx(clip.read_stats()["grad_norm"], rel=1e-6)
    for p, g in zip(params, by_class):  # max_norm / (norm + 1e-6) vs max_norm / norm
        np.testing.assert_allclose(p.gradient(), g, rtol=1e-5)
    joined = np.sqrt(sum((p.gradient().astype(np.float64) ** 2).sum() for p in params))
    assert joined == pytest.approx(1.0, rel=1e-5)


def test_clip_grad_norm_leaves_small_gradients_and_skips_missing_ones():
    params = _params_with_grads(scale=1e-3)
    params.append(Parameter(np.ones(3, np.float32)))  # no gradient
    before = [p.gradient() for p in params[:-1]]
    total = utils.clip_grad_norm_(params, 10.0)
    expected = math.sqrt(sum((g.astype(np.float64) ** 2).sum() for g in before))
    assert float(total) == pytest.approx(expected, rel=1e-6)
    for p, g in zip(params, before):
        np.testing.assert_allclose(p.gradient(), g, rtol=1e-6)
    assert params[-1].grad is None
    assert float(utils.clip_grad_norm_([params[-1]], 1.0)) == 0.0  # no gradients at all


def test_clip_grad_norm_takes_a_single_tensor_and_a_model_after_backward():
    core.seed(0)
    model = nn.Linear(6, 4)
    x = core.to_tensor(RNG.standard_normal((5, 6)).astype(np.float32))
    (model(x) ** 2).sum().backward()
    total = utils.clip_grad_norm_(model.parameters(), 0.1)
    assert float(total) > 0.1
    after = math.sqrt(sum((p.gradient().astype(np.float64) ** 2).sum()
                          for p in model.parameters()))
    assert after == pytest.approx(0.1, rel=1e-4)
    single = _params_with_grads(shapes=((4,),))[0]
    utils.clip_grad_norm_(single, 0.01)
    assert np.linalg.norm(single.gradient()) == pytest.approx(0.01, rel=1e-4)


def test_clip_grad_norm_clips_a_row_sparse_gradient_exactly():
    param = Parameter(np.zeros((5, 3), np.float32))
    values = RNG.standard_normal((3, 3)).astype(np.float32) * 4
    param.grad_data = RowSparseGrad(np.array([0, 3, 0]), values, (5, 3))
    dense = np.asarray(param.grad_data)
    total = utils.clip_grad_norm_([param], 1.0)
    assert float(total) == pytest.approx(np.linalg.norm(dense), rel=1e-6)
    assert isinstance(param.grad_data, RowSparseGrad)
    np.testing.assert_allclose(np.asarray(param.grad_data), dense / np.linalg.norm(dense),
                               rtol=1e-5)


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # inf * 0
def test_clip_grad_norm_nonfinite():
    params = _params_with_grads()
    params[0].grad_data[0, 0] = np.inf
    with pytest.raises(RuntimeError, match="non-finite|inf"):
        utils.clip_grad_norm_(params, 1.0, error_if_nonfinite=True)
    total = utils.clip_grad_norm_(params, 1.0)  # scales by the infinite norm, as Paddle
    assert math.isinf(float(total))


def test_clip_grad_value_matches_torch_and_clip_grad_by_value():
    torch = pytest.importorskip("torch")
    params = _params_with_grads()
    grads = [p.gradient() for p in params]
    by_class = [g.numpy() for _, g in
                nn.ClipGradByValue(0.7)([(p, Tensor(g.copy())) for p, g in zip(params, grads)])]
    tparams = [torch.nn.Parameter(torch.tensor(p.numpy())) for p in params]
    for tp, g in zip(tparams, grads):
        tp.grad = torch.tensor(g)
    assert utils.clip_grad_value_(params, 0.7) is None
    torch.nn.utils.clip_grad_value_(tparams, 0.7)
    for p, tp, g in zip(params, tparams, by_class):
        np.testing.assert_array_equal(p.gradient(), tp.grad.numpy())
        np.testing.assert_array_equal(p.gradient(), g)


@pytest.mark.parametrize("call, message", [
    (lambda ps: utils.clip_grad_norm_(ps, 0.0), "max_norm"),
    (lambda ps: utils.clip_grad_norm_(ps, float("nan")), "max_norm"),
    (lambda ps: utils.clip_grad_norm_(ps, 1.0, norm_type=3), "norm_type"),
    (lambda ps: utils.clip_grad_norm_(ps, 1.0, norm_type="2"), "norm_type"),
    (lambda ps: utils.clip_grad_value_(ps, -1.0), "clip_value"),
    (lambda ps: utils.clip_grad_value_(ps, True), "clip_value"),
])
def test_clip_functions_name_a_bad_argument(call, message):
    with pytest.raises(ValueError, match=message):
        call(_params_with_grads())


def test_clip_functions_refuse_non_tensors():
    with pytest.raises(TypeError, match="parameters"):
        utils.clip_grad_norm_(3.0, 1.0)
    with pytest.raises(TypeError, match="parameters"):
        utils.clip_grad_value_([np.ones(3)], 1.0)


# ----- parameters <-> vector ----------------------------------------------------------------

def test_parameters_to_vector_and_back_match_torch():
    torch = pytest.importorskip("torch")
    params = _params_with_grads()
    vec = utils.parameters_to_vector(params)
    expected = torch.nn.utils.parameters_to_vector(
        [torch.tensor(p.numpy()) for p in params])
    np.testing.assert_array_equal(vec.numpy(), expected.numpy())
    assert vec.shape == [12 + 5 + 8] and vec.stop_gradient

    core.seed(1)
    source, target = nn.Linear(3, 4), nn.Linear(3, 4)
    arrays = [p.data for p in target.parameters()]
    utils.vector_to_parameters(utils.parameters_to_vector(source.parameters()),
                               target.parameters())
    for a, b, array in zip(source.parameters(), target.parameters(), arrays):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
        assert b.data is array  # written in place: an optimizer's references stay valid


def test_vector_to_parameters_casts_and_names_bad_arguments():
    params = [Parameter(np.zeros((2, 3), np.float32)), Parameter(np.zeros(2, np.float64))]
    utils.vector_to_parameters(core.to_tensor(np.arange(8.0)), params)
    np.testing.assert_array_equal(params[0].numpy(), np.arange(6.0).reshape(2, 3))
    assert params[0].dtype == np.float32 and params[1].dtype == np.float64
    with pytest.raises(ValueError, match="vec must be 1-D with 8 elements"):
        utils.vector_to_parameters(core.to_tensor(np.arange(7.0)), params)
    with pytest.raises(TypeError, match="vec must be a Tensor"):
        utils.vector_to_parameters(np.arange(8.0), params)
    with pytest.raises(TypeError, match="parameters must share one dtype"):
        utils.parameters_to_vector(params)
    with pytest.raises(ValueError, match="parameters is empty"):
        utils.parameters_to_vector([])


# ----- weight_norm --------------------------------------------------------------------------

@pytest.mark.parametrize("shape, dim", [((4, 3), 0), ((4, 3), 1), ((2, 3, 2, 2), 1),
                                        ((2, 3, 2, 2), 3), ((3, 4), -1)])
def test_weight_norm_op_gradient(shape, dim):
    v = RNG.standard_normal(shape)
    g = RNG.standard_normal(() if dim == -1 else (shape[dim],))
    check_grad(lambda v, g: _weight_norm(v, g, dim), v, g)


def test_weight_norm_layer_gradient_through_the_hook():
    """weight_g and weight_v get finite-difference-exact gradients through Linear's forward."""
    core.seed(2)
    x = RNG.standard_normal((3, 4))

    def run(v, g):
        layer = nn.Linear(4, 2)
        layer.bias.data = backend.asarray(np.zeros(2))  # the current device's array
        utils.weight_norm(layer, dim=1)
        layer.__dict__["weight_v"], layer.__dict__["weight_g"] = v, g  # the hook reads these
        return layer(core.to_tensor(x))

    check_grad(run, RNG.standard_normal((4, 2)), RNG.standard_normal(2) + 2.0)


@pytest.mark.filterwarnings("ignore::FutureWarning")  # torch.nn.utils.weight_norm
@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_keeps_the_output_and_matches_torch(dim):
    torch = pytest.importorskip("torch")
    core.seed(3)
    conv = nn.Conv2D(3, 5, 3)
    x = RNG.standard_normal((2, 3, 6, 6)).astype(np.float32)
    before = conv(x).numpy()
    assert utils.weight_norm(conv, dim=dim) is conv
    names = [n for n, _ in conv.named_parameters()]
    assert names == ["bias", "weight_v", "weight_g"] and not isinstance(conv.weight, Parameter)
    assert conv.weight_g.shape == ([] if dim is None else [conv.weight_v.shape[dim]])
    np.testing.assert_allclose(conv(x).numpy(), before, rtol=1e-5, atol=1e-6)

    tconv = torch.nn.Conv2d(3, 5, 3)  # PyTorch's g keeps singleton axes: compare values
    with torch.no_grad():
        tconv.weight.copy_(torch.tensor(conv.weight_v.numpy()))
        tconv.bias.copy_(torch.tensor(conv.bias.numpy()))
    tconv = torch.nn.utils.weight_norm(tconv, dim=dim)
    np.testing.assert_allclose(conv.weight_g.numpy().ravel(),
                               tconv.weight_g.detach().numpy().ravel(), rtol=1e-5)
    with torch.no_grad():  # move g, then both layers recompute w before the forward
        tconv.weight_g.mul_(1.5)
    conv.weight_g.data = conv.weight_g.data * np.float32(1.5)
    out = conv(x)
    tout = tconv(torch.tensor(x))
    np.testing.assert_allclose(out.numpy(), tout.detach().numpy(), rtol=1e-4, atol=1e-5)
    out.sum().backward()
    tout.sum().backward()
    np.testing.assert_allclose(conv.weight_v.gradient(), tconv.weight_v.grad.numpy(),
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(conv.weight_g.gradient().ravel(),
                               tconv.weight_g.grad.numpy().ravel(), rtol=1e-4, atol=1e-5)


def test_weight_norm_trains_and_remove_weight_norm_restores_a_plain_weight():
    core.seed(4)
    layer = nn.Linear(4, 3)
    utils.weight_norm(layer)
    opt = core.optimizer.SGD(learning_rate=0.1, parameters=layer.parameters())
    x = core.to_tensor(RNG.standard_normal((6, 4)).astype(np.float32))
    g_before = layer.weight_g.numpy()
    (layer(x) ** 2).mean().backward()
    opt.step()
    assert not np.array_equal(layer.weight_g.numpy(), g_before)
    norms = np.linalg.norm(layer.weight_v.numpy(), axis=1, keepdims=True)
    expected = layer.weight_g.numpy()[:, None] * layer.weight_v.numpy() / norms
    out = layer(x).numpy()
    np.testing.assert_allclose(layer.weight.numpy(), expected, rtol=1e-5)

    assert utils.remove_weight_norm(layer) is layer
    assert isinstance(layer.weight, Parameter) and not hasattr(layer, "weight_g")
    assert [n for n, _ in layer.named_parameters()] == ["bias", "weight"]
    assert not layer._forward_pre_hooks
    np.testing.assert_allclose(layer.weight.numpy(), expected, rtol=1e-5)
    np.testing.assert_allclose(layer(x).numpy(), out, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found"):
        utils.remove_weight_norm(layer)


def test_weight_norm_state_dict_round_trip():
    core.seed(5)
    a, b = utils.weight_norm(nn.Linear(3, 2)), utils.weight_norm(nn.Linear(3, 2))
    assert set(a.state_dict()) == {"bias", "weight_v", "weight_g"}
    b.set_state_dict(a.state_dict())
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_array_equal(a(x).numpy(), b(x).numpy())


def test_weight_norm_names_bad_arguments():
    layer = nn.Linear(3, 2)
    with pytest.raises(ValueError, match="name='kernel' is not a parameter"):
        utils.weight_norm(layer, name="kernel")
    with pytest.raises(ValueError, match="dim=2 must be an integer in"):
        utils.weight_norm(layer, dim=2)
    with pytest.raises(ValueError, match="dim=-3"):
        utils.weight_norm(layer, dim=-3)
    with pytest.raises(TypeError, match="layer must be a core.nn.Layer"):
        utils.weight_norm(np.ones(3))
    utils.weight_norm(layer, dim=-2)  # -2 counts from the end: axis 0
    assert layer.weight_g.shape == [3]
    with pytest.raises(ValueError, match="name='weight' is not a parameter"):
        utils.weight_norm(layer)  # weight is no longer a parameter


# ----- spectral_norm ------------------------------------------------------------------------

@pytest.mark.parametrize("shape, dim", [((4, 3), 0), ((4, 3), 1), ((3, 2, 2, 2), 1)])
def test_spectral_norm_op_gradient(shape, dim):
    weight = RNG.standard_normal(shape)
    h = shape[dim]
    u = RNG.standard_normal(h)
    v = RNG.standard_normal(math.prod(shape) // h)
    # u and v as the layer's buffers hold them: arrays of the current device
    u, v = backend.asarray(u / np.linalg.norm(u)), backend.asarray(v / np.linalg.norm(v))
    check_grad(lambda w: _spectral_divide(w, u, v, dim), weight)


def test_spectral_norm_layer_gradient_in_eval_mode():
    """In eval mode u and v stay fixed: the weight is a smooth function of weight_orig."""
    core.seed(6)
    x = RNG.standard_normal((3, 4))

    def run(w):
        core.seed(6)
        layer = utils.spectral_norm(nn.Linear(4, 3)).eval()
        for buf in layer.buffers():
            buf.data = buf.data.astype(np.float64)
        layer.bias.data = backend.asarray(np.zeros(3))
        layer.__dict__["weight_orig"] = w  # the hook reads it
        return layer(core.to_tensor(x))

    check_grad(run, RNG.standard_normal((4, 3)))


@pytest.mark.parametrize("make, dim", [(lambda: nn.Linear(5, 4), None),
                                       (lambda: nn.Conv2D(3, 4, 3), None),
                                       (lambda: nn.Conv2D(3, 4, 3), 1)])
def test_spectral_norm_matches_torch_from_the_same_u_and_v(make, dim):
    torch = pytest.importorskip("torch")
    core.seed(7)
    layer = make()
    weight = layer.weight.numpy()
    utils.spectral_norm(layer, n_power_iterations=2, dim=dim)
    assert [n for n, _ in layer.named_parameters()][-1] == "weight_orig"
    assert {n for n, _ in layer.named_buffers()} == {"weight_u", "weight_v"}
    np.testing.assert_array_equal(layer.weight.numpy(), weight)  # a copy until a forward
    np.testing.assert_allclose(np.linalg.norm(layer.weight_u.numpy()), 1.0, rtol=1e-6)
    # PyTorch's Linear weight is [out, in]: core's (Paddle's) [in, out] transposed, and
    # Paddle's dim=None -> 1 for Linear puts the same output axis first
    linear = isinstance(layer, nn.Linear)
    tweight = torch.tensor(weight.T if linear else weight)
    tdim = 0 if (linear or dim is None) else dim
    tlayer = torch.nn.Linear(5, 4) if linear else torch.nn.Conv2d(3, 4, 3)
    with torch.no_grad():
        tlayer.weight.copy_(tweight)
    tlayer = torch.nn.utils.spectral_norm(tlayer, n_power_iterations=2, dim=tdim)
    with torch.no_grad():
        tlayer.weight_u.copy_(torch.tensor(layer.weight_u.numpy()))
        tlayer.weight_v.copy_(torch.tensor(layer.weight_v.numpy()))
        tlayer.bias.copy_(torch.tensor(layer.bias.numpy()))
    shape = (2, 5) if linear else (2, 3, 5, 5)
    for _ in range(3):  # training forwards: power iteration on both sides
        x = RNG.standard_normal(shape).astype(np.float32)
        out, tout = layer(x), tlayer(torch.tensor(x))
        np.testing.assert_allclose(out.numpy(), tout.detach().numpy(), rtol=1e-4, atol=1e-5)
    got = layer.weight.numpy()
    np.testing.assert_allclose(got.T if linear else got, tlayer.weight.detach().numpy(),
                               rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(layer.weight_u.numpy(), tlayer.weight_u.numpy(), rtol=1e-4,
                               atol=1e-6)
    out.sum().backward()
    tout.sum().backward()
    tgrad = tlayer.weight_orig.grad.numpy()
    np.testing.assert_allclose(layer.weight_orig.gradient(), tgrad.T if linear else tgrad,
                               rtol=1e-4, atol=1e-5)


def test_spectral_norm_largest_singular_value_approaches_one():
    core.seed(8)
    conv = nn.Conv2D(4, 6, 3)
    utils.spectral_norm(conv)
    x = core.to_tensor(RNG.standard_normal((1, 4, 5, 5)).astype(np.float32))
    for _ in range(40):
        conv(x)
    sigma = np.linalg.svd(conv.weight.numpy().reshape(6, -1), compute_uv=False)[0]
    assert sigma == pytest.approx(1.0, abs=1e-3)
    u_before = conv.weight_u.numpy()
    conv.eval()
    conv(x)
    np.testing.assert_array_equal(conv.weight_u.numpy(), u_before)  # no iteration in eval


def test_spectral_norm_names_bad_arguments():
    with pytest.raises(ValueError, match="n_power_iterations must be a positive integer"):
        utils.spectral_norm(nn.Linear(3, 2), n_power_iterations=0)
    with pytest.raises(ValueError, match="eps"):
        utils.spectral_norm(nn.Linear(3, 2), eps=-1.0)
    with pytest.raises(ValueError, match="dim=5"):
        utils.spectral_norm(nn.Linear(3, 2), dim=5)
    with pytest.raises(ValueError, match="name='w'"):
        utils.spectral_norm(nn.Linear(3, 2), name="w")
    layer = utils.spectral_norm(nn.Linear(3, 2), name="bias")
    with pytest.raises(RuntimeError, match="already has a spectral_norm hook"):
        layer.add_parameter("bias", Parameter(np.zeros(2, np.float32)))
        utils.spectral_norm(layer, name="bias")


# ----- through the runner -------------------------------------------------------------------

def test_a_spec_built_network_takes_weight_norm_and_spectral_norm():
    core.seed(9)
    spec = validation.group_option("model", {
        "name": "net", "blocks": {},
        "layers": {"fc1": {"type": "Linear", "out_features": 6}, "act": {"type": "Tanh"},
                   "out": {"type": "Linear"}}})
    model = build.build_model(spec, (5,), 3)
    layers = dict(model.named_sublayers())
    utils.weight_norm(layers["fc1"])
    utils.spectral_norm(layers["out"])
    x = RNG.standard_normal((4, 5)).astype(np.float32)
    y = core.to_tensor(np.array([0, 1, 2, 0]))
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    names = {n for n, p in model.named_parameters() if p.grad is not None}
    assert {"fc1.weight_g", "fc1.weight_v", "out.weight_orig"} <= names
    total = utils.clip_grad_norm_(model.parameters(), 1e-3)
    assert float(total) > 1e-3
    summary = core.summary(model, (1, 5))
    assert summary["total_params"] == sum(p.size for p in model.parameters())
