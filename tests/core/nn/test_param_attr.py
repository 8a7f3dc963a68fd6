"""Parameters as in Paddle: ParamAttr and its short forms, create_parameter (the Layer method's
argument order and core.create_parameter), initialisers called on a parameter, set_state_dict's
warnings, ParameterList and Layer.to / astype / float / float16 / apply."""
import math
import warnings
from types import SimpleNamespace

import numpy as np
import pytest

import core
from core import nn
from core.nn import initializer as I
from core.regularizer import L1Decay, L2Decay
from tests.gradcheck import check_grad

RNG = np.random.default_rng(0)


# ----- ParamAttr and its short forms ----------------------------------------------------------
def test_an_initializer_as_the_attribute_is_honoured_by_every_layer():
    linear = nn.Linear(4, 3, weight_attr=I.Constant(2.0), bias_attr=I.Constant(1.0))
    np.testing.assert_array_equal(linear.weight.numpy(), np.full((4, 3), 2.0))
    np.testing.assert_array_equal(linear.bias.numpy(), np.ones(3))
    conv = nn.Conv2D(2, 3, 3, weight_attr=I.Constant(0.5), bias_attr=I.Constant(-1.0))
    np.testing.assert_array_equal(conv.weight.numpy(), np.full((3, 2, 3, 3), 0.5))
    np.testing.assert_array_equal(conv.bias.numpy(), np.full(3, -1.0))
    embedding = nn.Embedding(5, 2, weight_attr=I.Constant(3.0))
    np.testing.assert_array_equal(embedding.weight.numpy(), np.full((5, 2), 3.0))
    norm = nn.LayerNorm(4, weight_attr=I.Constant(2.0), bias_attr=I.Constant(0.5))
    np.testing.assert_array_equal(norm.weight.numpy(), np.full(4, 2.0))
    np.testing.assert_array_equal(norm.bias.numpy(), np.full(4, 0.5))


def test_short_forms_become_a_param_attr_as_in_paddle():
    to_attr = core.ParamAttr._to_attr
    assert isinstance(to_attr(None), core.ParamAttr) and to_attr(None).initializer is None
    assert isinstance(to_attr(True), core.ParamAttr)
    assert to_attr(False) is False
    attr = core.ParamAttr(name="w")
    assert to_attr(attr) is attr
    assert to_attr("my_w").name == "my_w"
    init, decay = I.Normal(), L2Decay(1.0)
    assert to_attr(init).initializer is init and to_attr(decay).regularizer is decay
    assert [a.name for a in to_attr(["a", "b"])] == ["a", "b"]
    assert to_attr({"trainable": False}).trainable is False
    look_alike = to_attr(SimpleNamespace(initializer=init, learning_rate=0.5))
    assert look_alike.initializer is init and look_alike.learning_rate == 0.5


def test_param_attr_fields_reach_the_parameter():
    decay = L1Decay(0.1)
    attr = core.ParamAttr(name="fc_w", initializer=I.Constant(1.5), learning_rate=0.5,
                          regularizer=decay, trainable=False, need_clip=False)
    weight = nn.Linear(2, 2, weight_attr=attr).weight
    assert weight.name == "fc_w" and weight.regularizer is decay
    assert weight.optimize_attr == {"learning_rate": 0.5}
    assert weight.trainable is False and weight.stop_gradient and weight.need_clip is False
    np.testing.assert_array_equal(weight.numpy(), np.full((2, 2), 1.5))
    assert "learning_rate=0.5" in repr(attr)
    assert nn.Linear(2, 2, weight_attr="my_w").weight.name == "my_w"
    assert nn.Linear(2, 2, weight_attr=L2Decay(1.0)).weight.regularizer.coeff == 1.0


def test_a_regularizer_attribute_is_applied_by_the_optimizer():
    layer = nn.Linear(2, 1, weight_attr=core.ParamAttr(initializer=I.Constant(1.0),
                                                        regularizer=L2Decay(0.5)),
                      bias_attr=False)
    opt = core.optimizer.SGD(learning_rate=1.0, parameters=layer.parameters())
    layer(np.zeros((1, 2), np.float32)).sum().backward()  # zero gradient from the loss
    opt.step()
    np.testing.assert_allclose(layer.weight.numpy(), np.full((2, 1), 0.5))  # 1 - 1 * 0.5 * 1


def test_a_dict_attribute_with_an_initializer_wins_over_the_global_one():
    I.set_global_initializer(I.Constant(7.0))
    try:
        cell = nn.SimpleRNNCell(2, 3, weight_ih_attr=False)  # a frozen weight of ones (Paddle)
        np.testing.assert_array_equal(cell.weight_ih.numpy(), np.ones((3, 2)))
        np.testing.assert_array_equal(cell.weight_hh.numpy(), np.full((3, 3), 7.0))
    finally:
        I.set_global_initializer(None)


@pytest.mark.parametrize("attr, message", [
    (12345, r"weight_attr or bias_attr\) must be None, a bool, a str .* got 12345 \(int\)"),
    (3.5, r"got 3.5 \(float\)"),
    (lambda shape, dtype: np.ones(shape), "wrap a custom initializer callable"),
    ({"initialiser": I.Constant(1.0)}, r"unknown key\(s\) \['initialiser'\]"),
])
def test_an_attribute_of_another_type_is_refused(attr, message):
    with pytest.raises(TypeError, match=message):
        nn.Linear(2, 2, weight_attr=attr)


@pytest.mark.parametrize("kwargs, message", [
    (dict(name=3), "name must be a str or None, got 3"),
    (dict(initializer=2.0), "initializer must be an Initializer"),
    (dict(learning_rate=-1.0), "learning_rate must be a number >= 0, got -1.0"),
    (dict(learning_rate="fast"), "learning_rate must be a number >= 0"),
    (dict(regularizer=0.1), "regularizer must be a WeightDecayRegularizer"),
    (dict(trainable=1), "trainable must be True or False, got 1"),
    (dict(need_clip=None), "need_clip must be True or False"),
    (dict(do_model_average="yes"), "do_model_average must be True or False"),
])
def test_param_attr_checks_its_fields(kwargs, message):
    with pytest.raises(TypeError, match=message):
        core.ParamAttr(**kwargs)


# ----- create_parameter -----------------------------------------------------------------------
def test_layer_create_parameter_takes_paddles_argument_order():
    layer = nn.Layer()
    param = layer.create_parameter([2, 3], core.ParamAttr(name="b"), "float64", True,
                                   I.Constant(4.0))
    assert param.name == "b" and param.dtype == np.float64 and param.shape == [2, 3]
    np.testing.assert_array_equal(param.numpy(), np.full((2, 3), 4.0))
    assert layer.create_parameter([3], is_bias=True).numpy().tolist() == [0.0, 0.0, 0.0]
    assert layer.create_parameter([3], attr=False) is None  # Paddle: no parameter
    assert layer.create_parameter([2], attr="").name != ""  # "" is the default attribute
    with pytest.raises(TypeError, match="Layer.create_parameter: shape must be a list"):
        layer.create_parameter(3)
    with pytest.raises(ValueError, match=r"shape must hold ints >= 0, got \[2, -1\]"):
        layer.create_parameter([2, -1])
    with pytest.raises(TypeError, match="a parameter takes one"):
        layer.create_parameter([2], attr=["a", "b"])


def test_core_create_parameter():
    param = core.create_parameter([3, 4], "float64", name="free")
    assert isinstance(param, core.Parameter) and param.name == "free"
    assert param.dtype == np.float64 and not param.stop_gradient
    limit = math.sqrt(6 / 7)
    assert np.abs(param.numpy()).max() <= limit  # Xavier uniform by default
    bias = core.create_parameter([3], core.float32, is_bias=True)
    np.testing.assert_array_equal(bias.numpy(), np.zeros(3))
    fixed = core.create_parameter([2], "float32", attr=core.ParamAttr(initializer=I.Constant(2.0)),
                                  default_initializer=I.Constant(1.0))
    np.testing.assert_array_equal(fixed.numpy(), [2.0, 2.0])  # the attribute wins
    assert core.create_parameter([2], "float32", default_initializer=I.Constant(1.0)
                                 ).numpy().tolist() == [1.0, 1.0]


@pytest.mark.parametrize("kwargs, message", [
    (dict(dtype="float8"), r"dtype must be one of \['bool', 'float16'"),
    (dict(dtype="string"), "got 'string'"),
    (dict(attr="w"), "attr must be a ParamAttr or None, got 'w'"),
    (dict(default_initializer=3), "default_initializer must be an Initializer"),
    (dict(name=5), "name must be a str or None, got 5"),
])
def test_core_create_parameter_checks_its_arguments(kwargs, message):
    args = dict(shape=[2], dtype="float32") | kwargs
    with pytest.raises(TypeError, match=message):
        core.create_parameter(**args)


# ----- initialisers called on a parameter -----------------------------------------------------
def test_an_initializer_fills_a_parameter_in_place():
    linear = nn.Linear(30, 20)
    weight, data = linear.weight, linear.weight.data
    assert I.Normal(0.0, 0.02)(weight) is weight
    assert linear.weight.data is data and weight.dtype == np.float32
    assert abs(weight.numpy().std() - 0.02) < 0.003
    double = core.create_parameter([2, 2], "float64")
    I.Constant(3.0)(double, None)  # Paddle's (param, block): the block is ignored
    assert double.dtype == np.float64 and double.numpy().tolist() == [[3.0, 3.0], [3.0, 3.0]]
    tensor = core.to_tensor(np.zeros((2, 3), np.float32))
    I.Assign(np.arange(6.0).reshape(2, 3))(tensor)
    np.testing.assert_array_equal(tensor.numpy(), np.arange(6.0).reshape(2, 3))
    layer = nn.Linear(3, 4).apply(lambda m: isinstance(m, nn.Linear)
                                  and I.KaimingNormal()(m.weight))
    assert layer.weight.shape == [3, 4]
    with pytest.raises(TypeError, match="Normal: the first argument must be a Tensor"):
        I.Normal()(3)


def test_shape_calls_still_return_arrays():
    values = I.XavierNormal()((4, 5), "float64")
    assert values.shape == (4, 5) and values.dtype == np.float64
    assert I.Constant(1.0)([2]).dtype == np.float32


def _fill(init, shape):
    param = core.create_parameter(list(shape), "float64")
    return init(param).numpy()


def test_xavier_gain_and_fans_match_torch():
    torch = pytest.importorskip("torch")
    shape = (400, 300)  # core [in, out] -> fan_in 400, fan_out 300; torch [out, in] = [300, 400]
    ours = _fill(I.XavierUniform(gain=2.0), shape)
    theirs = torch.nn.init.xavier_uniform_(torch.empty(300, 400, dtype=torch.float64), gain=2.0)
    bound = 2.0 * math.sqrt(6 / 700)
    assert np.abs(ours).max() <= bound and np.abs(ours).max() > 0.99 * bound
    np.testing.assert_allclose(ours.std(), theirs.std().item(), rtol=0.02)
    ours = _fill(I.XavierNormal(gain=0.5), shape)
    theirs = torch.nn.init.xavier_normal_(torch.empty(300, 400, dtype=torch.float64), gain=0.5)
    np.testing.assert_allclose(ours.std(), theirs.std().item(), rtol=0.02)
    ours = _fill(I.XavierUniform(fan_in=10.0, fan_out=20.0), shape)  # given fans win
    assert np.abs(ours).max() <= math.sqrt(6 / 30) and np.abs(ours).max() > 0.4


@pytest.mark.parametrize("slope, nonlinearity", [(0.0, "relu"), (0.2, "leaky_relu"),
                                                 (0.0, "tanh"), (0.0, "linear")])
def test_kaiming_gain_and_bound_match_torch(slope, nonlinearity):
    torch = pytest.importorskip("torch")
    shape = (64, 32, 3, 3)  # conv weights: the same layout and fan_in (32 * 9) in both
    gain = torch.nn.init.calculate_gain(nonlinearity, slope)
    assert I.KaimingUniform(negative_slope=slope, nonlinearity=nonlinearity).gain == \
        pytest.approx(gain)
    ours = _fill(I.KaimingUniform(negative_slope=slope, nonlinearity=nonlinearity), shape)
    theirs = torch.nn.init.kaiming_uniform_(torch.empty(*shape, dtype=torch.float64), a=slope,
                                            nonlinearity=nonlinearity)
    assert np.abs(ours).max() <= gain * math.sqrt(3 / 288)
    np.testing.assert_allclose(ours.std(), theirs.std().item(), rtol=0.03)
    ours = _fill(I.KaimingNormal(negative_slope=slope, nonlinearity=nonlinearity), shape)
    theirs = torch.nn.init.kaiming_normal_(torch.empty(*shape, dtype=torch.float64), a=slope,
                                           nonlinearity=nonlinearity)
    np.testing.assert_allclose(ours.std(), theirs.std().item(), rtol=0.03)


def test_kaiming_fan_in_and_the_basic_initialisers_arguments():
    ours = _fill(I.KaimingNormal(fan_in=2.0), (200, 300))
    np.testing.assert_allclose(ours.std(), 1.0, rtol=0.02)  # sqrt(2) / sqrt(2)
    assert abs(_fill(I.Normal(mean=3.0, std=0.5, name="n"), (300, 300)).mean() - 3.0) < 0.01
    values = _fill(I.Uniform(low=2.0, high=3.0, name="u"), (100, 100))
    assert values.min() >= 2.0 and values.max() <= 3.0
    assert _fill(I.Constant(value=-2.0), (2,)).tolist() == [-2.0, -2.0]


@pytest.mark.parametrize("build, message", [
    (lambda: I.Uniform(1.0, 0.0), "Uniform: low must be <= high"),
    (lambda: I.Normal(std=-1.0), "Normal: std must be >= 0, got -1.0"),
    (lambda: I.Constant("a"), "Constant: value must be a finite number"),
    (lambda: I.XavierUniform(fan_in=0), "XavierUniform: fan_in must be a finite number > 0"),
    (lambda: I.XavierNormal(gain="x"), "XavierNormal: gain must be a finite number"),
    (lambda: I.KaimingNormal(nonlinearity="swish"), "KaimingNormal: calculate_gain: "
                                                    "nonlinearity='swish'"),
    (lambda: I.KaimingUniform(negative_slope=None), "negative_slope must be a finite number"),
])
def test_initializer_arguments_are_checked(build, message):
    with pytest.raises(ValueError, match=message):
        build()


# ----- set_state_dict -------------------------------------------------------------------------
def _net(head: int = 2):
    return nn.Sequential(("backbone", nn.Linear(4, 3)), ("head", nn.Linear(3, head)))


def test_set_state_dict_skips_missing_and_mismatched_keys_with_one_warning():
    source, target = _net(head=5), _net(head=2)
    state = source.state_dict()
    del state["head.bias"]
    state["extra"] = np.zeros(2, np.float32)
    before = target.head.weight.numpy().copy()
    with pytest.warns(UserWarning, match=r"keys not in the state: \['head.bias'\]; shape "
                                         r"mismatches: \['head.weight: saved \[3, 5\]") as got:
        missing, unexpected = target.set_state_dict(state)
    assert len([w for w in got if "set_state_dict" in str(w.message)]) == 1
    assert missing == ["head.weight", "head.bias"]
    assert unexpected == ["head.weight", "extra"]  # a shape mismatch is both (Paddle)
    np.testing.assert_array_equal(target.backbone.weight.numpy(), source.backbone.weight.numpy())
    np.testing.assert_array_equal(target.head.weight.numpy(), before)


def test_set_state_dict_strict_raises_and_loads_nothing():
    source, target = _net(head=5), _net(head=2)
    before = target.backbone.weight.numpy().copy()
    with pytest.raises(ValueError, match=r"Shape mismatches: \['head.weight"):
        target.set_state_dict(source.state_dict(), strict=True)
    np.testing.assert_array_equal(target.backbone.weight.numpy(), before)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a full fit: no warning
        assert _net().set_state_dict(_net().state_dict(), strict=True) == ([], [])


def test_set_state_dict_by_parameter_name():
    source, target = nn.Linear(2, 2), nn.Linear(2, 2)
    state = {source.weight.name: source.weight.numpy()}
    target.weight.name = source.weight.name
    with pytest.warns(UserWarning, match=r"\['bias'\]"):
        missing, unexpected = target.set_state_dict(state, use_structured_name=False)
    assert missing == ["bias"] and unexpected == []
    np.testing.assert_array_equal(target.weight.numpy(), source.weight.numpy())


# ----- ParameterList --------------------------------------------------------------------------
class _Scaled(nn.Layer):
    def __init__(self, params):
        super().__init__()
        self.params = nn.ParameterList(params)

    def forward(self, x):
        for p in self.params:
            x = x * p
        return x


def test_parameter_list_registers_indexes_and_appends():
    params = [core.create_parameter([3], "float32", default_initializer=I.Constant(v))
              for v in (1.0, 2.0)]
    model = _Scaled(params)
    assert list(model.state_dict()) == ["params.0", "params.1"]
    assert len(model.params) == 2 and model.params[-1] is params[1]
    extra = core.create_parameter([3], "float32")
    assert model.params.append(extra) is model.params and model.params[2] is extra
    replacement = core.create_parameter([3], "float32")
    model.params[0] = replacement
    assert list(model.params) == [replacement, params[1], extra]
    assert [n for n, _ in model.named_parameters()] == ["params.0", "params.1", "params.2"]
    with pytest.raises(TypeError, match="ParameterList: item 0 is a ndarray, not a Parameter"):
        nn.ParameterList([np.zeros(3)])
    with pytest.raises(IndexError, match="index 5 is out of range"):
        model.params[5]
    with pytest.raises(TypeError, match="ParameterList is a container"):
        model.params(1)


def test_parameter_list_gradient():
    params = [core.create_parameter([3], "float64", default_initializer=I.Normal())
              for _ in range(2)]
    model = _Scaled(nn.ParameterList(params))  # a ParameterList iterates its parameters
    check_grad(model, RNG.standard_normal((2, 3)))
    x = RNG.standard_normal((2, 3))
    params[0].clear_grad()
    model(core.to_tensor(x)).sum().backward()
    np.testing.assert_allclose(params[0].gradient(), (x * params[1].numpy()).sum(0))


# ----- Layer.to / astype / float / float16 / apply --------------------------------------------
def test_astype_and_to_cast_in_place():
    model = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1D(3))
    weight = model[0].weight
    opt = core.optimizer.SGD(parameters=model.parameters())
    assert model.astype("float64") is model
    assert model[0].weight is weight and weight.dtype == np.float64
    assert model[1]._mean.dtype == np.float64 and opt._parameter_list[0] is weight
    assert model.to(dtype=core.float32) is model and weight.dtype == np.float32
    # to the host and back to the current device (gpu:N under TOMLRUN_TEST_DEVICE): the inputs
    # below go to the current device, so the parameters must end there too
    here = core.device.get_device()
    assert model.to(device="cpu") is model and model.to(device=here) is model
    assert model.to() is model and weight.place == here
    assert model.create_parameter([1]).dtype == np.float32
    out = model(np.ones((4, 2), np.float32))
    assert out.dtype == np.float32


def test_float_and_float16_cast_floating_tensors_except_excluded_layers():
    model = nn.Sequential(nn.Linear(2, 3), nn.LayerNorm(3))
    model[1].register_buffer("steps", core.to_tensor(np.array([1], np.int64)))
    assert model.float16(excluded_layers=nn.LayerNorm) is model
    assert model[0].weight.dtype == np.float16 and model[1].weight.dtype == np.float32
    model.float16(excluded_layers=[model[0]])
    assert model[0].weight.dtype == np.float16 and model[1].weight.dtype == np.float16
    assert model[1].steps.dtype == np.int64  # not floating: left as it is
    model.float()
    assert {p.dtype for p in model.parameters()} == {np.dtype("float32")}
    with pytest.raises(TypeError, match="excluded_layers must be a Layer type or instance"):
        model.float(excluded_layers="LayerNorm")


def test_to_and_astype_check_their_arguments():
    model = nn.Linear(2, 2)
    with pytest.raises(ValueError, match=r"Linear.astype: dtype must be one of .* got 'float8'"):
        model.astype("float8")
    with pytest.raises(ValueError, match="no bfloat16"):
        model.to(dtype="bfloat16")
    with pytest.raises(ValueError, match="device 'tpu' is not valid"):
        model.to(device="tpu")
    with pytest.raises(TypeError, match="Linear.apply: fn must be a callable"):
        model.apply(3)


def test_apply_visits_children_first_then_the_layer():
    model = nn.Sequential(("a", nn.Linear(2, 2)), ("b", nn.Sequential(("c", nn.ReLU()))))
    seen = []
    assert model.apply(lambda layer: seen.append(type(layer).__name__)) is model
    assert seen == ["Linear", "ReLU", "Sequential", "Sequential"]
