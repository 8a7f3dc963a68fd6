"""core.autograd.PyLayer (paddle.autograd.PyLayer): custom ops written as a static forward and
backward. Paddle's docstring examples, a two-input two-output op against the same computation
in core ops, float64 finite differences through PyLayers, non-Tensor arguments and outputs, the
context's marks (non-differentiable outputs, materialised gradients, not-in-place inputs), the
gradient-count check, a PyLayer trained inside a network, double backward through a PyLayer's
recorded backward, and saved_tensors_hooks on save_for_backward."""
import numpy as np
import pytest

import core
from core.autograd import PyLayer, PyLayerContext, saved_tensors_hooks
from tests.gradcheck import check_grad, check_second_grad

rng = np.random.default_rng(11)


def leaf(values):
    return core.to_tensor(np.asarray(values, dtype="float64"), stop_gradient=False)


class cus_tanh(PyLayer):  # noqa: N801 - Paddle's docstring example
    @staticmethod
    def forward(ctx, x):
        y = core.tanh(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, dy):
        y, = ctx.saved_tensor()
        return dy * (1 - core.square(y))


class MulExp(PyLayer):
    """Two inputs, two outputs: (x * y, exp(x) + y). Backward recomputes exp(x) from the saved
    input: an intermediate of forward is a constant (forward records nothing), so saving it
    would leave its dependence on x out of a second derivative (as in Paddle and torch)."""

    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return x * y, core.exp(x) + y

    @staticmethod
    def backward(ctx, da, db):
        x, y = ctx.saved_tensor()
        return da * y + db * core.exp(x), da * x + db


def test_paddle_docstring_example_cus_tanh():
    data = leaf(rng.standard_normal((2, 3)))
    z = cus_tanh.apply(data)
    assert not z.stop_gradient
    z.mean().backward()
    expected = (1 - np.tanh(data.numpy()) ** 2) / 6
    np.testing.assert_allclose(data.grad.numpy(), expected, rtol=1e-12)


def test_paddle_docstring_example_with_function_arguments():
    """PyLayer's class docstring (Paddle 2.2): non-Tensor arguments, one by keyword with a
    default, and an attribute set on ctx for backward."""

    class tanh_fn(PyLayer):  # noqa: N801
        @staticmethod
        def forward(ctx, x, func1, func2=core.square):
            ctx.func = func2
            y = func1(x)
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, dy):
            y, = ctx.saved_tensor()
            return dy * (1 - ctx.func(y))

    data = leaf(rng.standard_normal((2, 3)))
    z = tanh_fn.apply(data, func1=core.tanh)
    z.mean().backward()
    np.testing.assert_allclose(data.grad.numpy(), (1 - np.tanh(data.numpy()) ** 2) / 6,
                               rtol=1e-12)
    data.clear_grad()
    tanh_fn.apply(data, core.tanh, func2=lambda y: y * y).sum().backward()
    np.testing.assert_allclose(data.grad.numpy(), 1 - np.tanh(data.numpy()) ** 2, rtol=1e-12)


def test_forward_runs_without_recording_and_ctx_is_a_context():
    seen = {}

    class Probe(PyLayer):
        @staticmethod
        def forward(ctx, x):
            seen["ctx"], seen["grad"] = ctx, core.is_grad_enabled()
            y = x * 2
            seen["inner"] = y.stop_gradient
            return y

        @staticmethod
        def backward(ctx, dy):
            seen["backward_grad"] = core.is_grad_enabled()
            return dy * 2

    x = leaf([1.0, 2.0])
    Probe.apply(x).sum().backward()
    assert isinstance(seen["ctx"], PyLayerContext)
    assert seen["grad"] is False and seen["inner"] is True
    assert seen["backward_grad"] is False  # backward of a plain backward() records nothing
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])


def test_two_inputs_two_outputs_match_core_ops():
    xv, yv = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    w1, w2 = core.to_tensor(rng.standard_normal((3, 4))), core.to_tensor(rng.standard_normal(4))

    x, y = leaf(xv), leaf(yv)
    a, b = MulExp.apply(x, y)
    assert not a.stop_gradient and not b.stop_gradient
    ((a * w1).sum() + (b * w2).sum()).backward()

    x2, y2 = leaf(xv), leaf(yv)
    a2, b2 = x2 * y2, core.exp(x2) + y2
    ((a2 * w1).sum() + (b2 * w2).sum()).backward()
    np.testing.assert_allclose(a.numpy(), a2.numpy())
    np.testing.assert_allclose(b.numpy(), b2.numpy())
    np.testing.assert_allclose(x.grad.numpy(), x2.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(y.grad.numpy(), y2.grad.numpy(), rtol=1e-12)


def test_two_outputs_backward_runs_once_with_both_gradients():
    calls = []

    class Pair(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, da, db):
            calls.append((da.numpy().copy(), db.numpy().copy()))
            return da * 2 + db * 3

    x = leaf([1.0, 2.0])
    a, b = Pair.apply(x)
    (a.sum() * 5 + (b * b).sum()).backward()
    assert len(calls) == 1
    np.testing.assert_allclose(calls[0][0], [5.0, 5.0])
    np.testing.assert_allclose(calls[0][1], 2 * 3 * x.numpy())
    np.testing.assert_allclose(x.grad.numpy(), 10 + 18 * x.numpy())


def test_finite_differences_through_pylayers():
    check_grad(cus_tanh.apply, rng.standard_normal((3, 4)))
    check_grad(lambda x, y: MulExp.apply(x, y)[0] * 2 + MulExp.apply(x, y)[1],
               rng.standard_normal((2, 3)), rng.standard_normal((2, 3)))
    check_grad(lambda x, y: core.matmul(cus_tanh.apply(x), y),
               rng.standard_normal((2, 3)), rng.standard_normal((3, 2)))


def test_finite_differences_through_a_list_input():
    class WeightedSum(PyLayer):
        @staticmethod
        def forward(ctx, xs, scale):
            ctx.scale = scale
            return sum(x * (i + 1) for i, x in enumerate(xs)) * scale

        @staticmethod
        def backward(ctx, dy):
            return [dy * (ctx.scale * (i + 1)) for i in range(3)]

    check_grad(lambda a, b, c: WeightedSum.apply([a, b, c], 0.5),
               rng.standard_normal(4), rng.standard_normal(4), rng.standard_normal(4))


def test_keyword_tensor_inputs_list_outputs_and_a_repeated_output():
    seen = {}

    class Parts(PyLayer):
        @staticmethod
        def forward(ctx, x, scale=1.0, *, bias):
            y = x * scale
            return [y, y + bias], y, y  # a list output, then y twice

        @staticmethod
        def backward(ctx, parts, dy, dy_again):
            seen["parts"], seen["dy"], seen["again"] = parts, dy.numpy(), dy_again.numpy()
            total = parts[0] + parts[1] + dy + dy_again
            return total * ctx_scale, parts[1]  # x's gradient, then bias's (a keyword input)

    ctx_scale = 2.0
    x, bias = leaf([1.0, 2.0]), leaf([0.5, 0.5])
    (first, second), y, again = Parts.apply(x, 2.0, bias=bias)
    assert y is not again and not again.stop_gradient
    (first.sum() + second.sum() * 3 + y.sum() * 5 + again.sum() * 7).backward()
    assert isinstance(seen["parts"], list) and len(seen["parts"]) == 2
    np.testing.assert_array_equal(seen["dy"], [5.0, 5.0])
    np.testing.assert_array_equal(seen["again"], [7.0, 7.0])
    np.testing.assert_array_equal(x.grad.numpy(), [32.0, 32.0])
    np.testing.assert_array_equal(bias.grad.numpy(), [3.0, 3.0])


def test_non_tensor_outputs_get_no_gradient_slot():
    """Paddle's test_simple_pylayer_multiple_output: forward returns (y1, 1, y2, None) and
    backward receives the two Tensor outputs' gradients only."""

    class Outs(PyLayer):
        @staticmethod
        def forward(ctx, x1, x2, func1, func2=core.square):
            ctx.func = func2
            y1, y2 = func1(x1), func1(x2)
            ctx.save_for_backward(y1, y2)
            return y1, 1, y2, None

        @staticmethod
        def backward(ctx, dy1, dy2):
            y1, y2 = ctx.saved_tensor()
            return dy1 * (1 - ctx.func(y1)), dy2 * (1 - ctx.func(y2))

    x1, x2 = leaf(rng.standard_normal(3)), leaf(rng.standard_normal(3))
    y1, one, y2, none = Outs.apply(x1, x2, core.tanh)
    assert one == 1 and none is None
    (y1 + y2).mean().backward()
    for x in (x1, x2):
        np.testing.assert_allclose(x.grad.numpy(), (1 - np.tanh(x.numpy()) ** 2) / 3,
                                   rtol=1e-12)


def test_mark_non_differentiable_paddle_example():
    seen = {}

    class Tanh(PyLayer):
        @staticmethod
        def forward(ctx, x):
            a, b = x + x, x + x + x
            ctx.mark_non_differentiable(a)
            return a, b

        @staticmethod
        def backward(ctx, grad_a, grad_b):
            seen["a"], seen["b"] = grad_a.numpy(), grad_b.numpy()
            return grad_b

    x = core.ones([1], dtype="float64")
    x.stop_gradient = False
    a, b = Tanh.apply(x)
    assert a.stop_gradient and not b.stop_gradient
    b.sum().backward()
    np.testing.assert_array_equal(seen["a"], [0.0])
    np.testing.assert_array_equal(seen["b"], [1.0])
    np.testing.assert_array_equal(x.grad.numpy(), [1.0])


@pytest.mark.parametrize("materialize", [True, False])
def test_set_materialize_grads(materialize):
    seen = {}

    class Tanh(PyLayer):
        @staticmethod
        def forward(ctx, x):
            if not materialize:
                ctx.set_materialize_grads(False)
            return x + x + x, x + x

        @staticmethod
        def backward(ctx, grad, grad2):
            seen["grad2"] = grad2
            return grad

    x = core.ones([1], dtype="float64")
    x.stop_gradient = False
    Tanh.apply(x)[0].backward()
    if materialize:
        np.testing.assert_array_equal(seen["grad2"].numpy(), [0.0])
        assert seen["grad2"].dtype == np.float64
    else:
        assert seen["grad2"] is None
    np.testing.assert_array_equal(x.grad.numpy(), [1.0])


def test_set_materialize_grads_refuses_non_bool():
    with pytest.raises(TypeError, match="set_materialize_grads: value must be True or False"):
        PyLayerContext().set_materialize_grads(1)


class _Returns(PyLayer):
    """Its backward returns whatever ctx.result holds."""

    @staticmethod
    def forward(ctx, x, y, result):
        ctx.result = result
        return x * y

    @staticmethod
    def backward(ctx, dy):
        return ctx.result(dy)


def test_wrong_number_of_gradients_names_the_layer_and_counts():
    x, y = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    with pytest.raises(ValueError, match=r"_Returns\.backward returned 1 gradient\(s\), but "
                                         r"forward took 2 Tensor input\(s\), so 2 were "
                                         r"expected"):
        _Returns.apply(x, y, lambda dy: dy).sum().backward()
    with pytest.raises(ValueError, match=r"returned 3 gradient\(s\).*so 2 were expected"):
        _Returns.apply(x, y, lambda dy: (dy, dy, dy)).sum().backward()


def test_fewer_gradients_are_allowed_when_the_rest_stop_gradient():
    x, y = leaf([1.0, 2.0]), core.to_tensor([3.0, 4.0], dtype="float64")
    _Returns.apply(x, y, lambda dy: dy * 3).sum().backward()  # as Paddle: y needs none
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])


def test_inputs_with_stop_gradient_get_none():
    x, y = leaf([1.0, 2.0]), core.to_tensor([3.0, 4.0], dtype="float64")
    _Returns.apply(x, y, lambda dy: (dy * 2, dy * 5)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])
    assert y.grad is None


def test_bad_gradients_are_refused():
    x, y = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    with pytest.raises(TypeError, match=r"_Returns\.backward: the gradient of input 1 must be "
                                        "a Tensor or None, got ndarray"):
        _Returns.apply(x, y, lambda dy: (dy, dy.numpy())).sum().backward()
    with pytest.raises(ValueError, match=r"gradient of input 0 has shape \[1\], but that input "
                                         r"has shape \[2\]"):
        _Returns.apply(x, y, lambda dy: (dy[:1], dy)).sum().backward()


def test_forward_must_return_a_tensor():
    class NoTensor(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return 3

        @staticmethod
        def backward(ctx, dy):
            return dy

    with pytest.raises(ValueError, match="NoTensor.forward must return at least one Tensor"):
        NoTensor.apply(leaf([1.0]))


def test_unimplemented_forward_and_backward():
    class Nothing(PyLayer):
        pass

    with pytest.raises(NotImplementedError, match="implement the forward function"):
        Nothing.apply(leaf([1.0]))

    class OnlyForward(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 2

    out = OnlyForward.apply(leaf([1.0]))
    with pytest.raises(NotImplementedError, match="implement the backward function"):
        out.sum().backward()


def test_no_input_needing_a_gradient_records_nothing():
    x = core.to_tensor([1.0, 2.0])
    out = cus_tanh.apply(x)
    assert out.stop_gradient and out.is_leaf
    with core.no_grad():
        out = cus_tanh.apply(leaf([1.0, 2.0]))
    assert out.stop_gradient and out.is_leaf


def test_mark_not_inplace_paddle_example():
    class Exp(PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_not_inplace(x)
            return x

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output.exp()

    x = leaf([[0.5]])
    layers = [Exp(), Exp()]
    for _step in range(2):
        for layer in layers:
            a = layer.apply(x)
        assert a is not x and not a.stop_gradient
        a.backward()
    np.testing.assert_allclose(x.grad.numpy(), [[2 * np.e]])  # two steps of exp(1)


def test_returning_a_leaf_input_that_needs_a_gradient_is_refused():
    class Same(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, dy):
            return dy

    with pytest.raises(ValueError, match=r"Same\.forward returned its input .* a leaf that "
                                         "needs a gradient.*mark_not_inplace"):
        Same.apply(leaf([1.0]))
    x = leaf([1.0, 2.0])
    hidden = x * 3
    out = Same.apply(hidden)  # not a leaf: a new output on the same values
    assert out is not hidden
    (out * out).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 18 * x.numpy())


def test_output_hooks_and_retain_graph():
    calls = []

    class Double(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, dy):
            calls.append(1)
            return dy * 2

    x = leaf([1.0, 2.0])
    out = Double.apply(x)
    out.register_hook(lambda g: g * 10)
    loss = out.sum()
    loss.backward(retain_graph=True)
    loss.backward()
    assert len(calls) == 2
    np.testing.assert_allclose(x.grad.numpy(), [40.0, 40.0])
    with pytest.raises(RuntimeError, match="already freed"):
        loss.backward()


class Cube(PyLayer):
    """x ** 3, its backward written with core ops (recorded under create_graph)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, dy):
        x, = ctx.saved_tensor()
        return dy * 3 * x * x


def test_double_backward_through_a_pylayer():
    x = leaf(rng.standard_normal(5))
    g, = core.grad(Cube.apply(x).sum(), x, create_graph=True)
    assert not g.stop_gradient
    np.testing.assert_allclose(g.numpy(), 3 * x.numpy() ** 2, rtol=1e-12)
    g.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 6 * x.numpy(), rtol=1e-12)
    # Through a saved output (tanh): the second derivative goes through the PyLayer again.
    y = leaf(rng.standard_normal(4))
    gy, = core.grad(cus_tanh.apply(y).sum(), y, create_graph=True)
    g2, = core.grad(gy.sum(), y)
    t = np.tanh(y.numpy())
    np.testing.assert_allclose(g2.numpy(), -2 * t * (1 - t * t), rtol=1e-10)


def test_double_backward_matches_finite_differences():
    check_second_grad(cus_tanh.apply, rng.standard_normal((2, 3)))
    check_second_grad(lambda x, y: MulExp.apply(x, y)[0] + MulExp.apply(x, y)[1] * 2,
                      rng.standard_normal(3), rng.standard_normal(3))


def test_double_backward_against_torch():
    torch = pytest.importorskip("torch")
    xv = rng.standard_normal((2, 3))
    x = leaf(xv)
    g, = core.grad((MulExp.apply(x, x * 2)[1] * Cube.apply(x)).sum(), x, create_graph=True)
    (g * g).sum().backward()
    tx = torch.tensor(xv, requires_grad=True)
    tg, = torch.autograd.grad(((tx.exp() + tx * 2) * tx ** 3).sum(), tx, create_graph=True)
    (tg * tg).sum().backward()
    np.testing.assert_allclose(g.numpy(), tg.detach().numpy(), rtol=1e-10)
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-10)


class LinearFn(PyLayer):
    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.save_for_backward(x, weight)
        return core.matmul(x, weight) + bias

    @staticmethod
    def backward(ctx, dy):
        x, weight = ctx.saved_tensor()
        return core.matmul(dy, weight.T), core.matmul(x.T, dy), dy.sum(axis=0)


class _Net(core.nn.Layer):
    def __init__(self, custom: bool):
        super().__init__()
        self.custom = custom
        self.fc1, self.fc2 = core.nn.Linear(3, 8), core.nn.Linear(8, 1)

    def forward(self, x):
        if self.custom:
            h = cus_tanh.apply(LinearFn.apply(x, self.fc1.weight, self.fc1.bias))
        else:
            h = core.tanh(self.fc1(x))
        return self.fc2(h)


def test_a_pylayer_inside_a_network_trains_like_core_ops():
    core.seed(3)
    custom = _Net(custom=True)
    plain = _Net(custom=False)
    plain.set_state_dict(custom.state_dict())
    x = core.to_tensor(rng.standard_normal((16, 3)).astype("float32"))
    target = core.to_tensor(rng.standard_normal((16, 1)).astype("float32"))
    losses = {}
    for name, net in (("custom", custom), ("plain", plain)):
        opt = core.optimizer.Adam(learning_rate=0.05, parameters=net.parameters())
        losses[name] = []
        for _ in range(20):
            loss = ((net(x) - target) ** 2).mean()
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses[name].append(float(loss))
    assert losses["custom"][-1] < 0.5 * losses["custom"][0]
    np.testing.assert_allclose(losses["custom"], losses["plain"], rtol=1e-4)
    np.testing.assert_allclose(custom.fc1.weight.numpy(), plain.fc1.weight.numpy(), rtol=1e-4,
                               atol=1e-6)


def test_saved_tensors_hooks_paddle_example_counts():
    packed, unpacked = [], []

    class cus_multiply(PyLayer):  # noqa: N801 - Paddle's docstring example
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return core.multiply(a, b)

        @staticmethod
        def backward(ctx, dy):
            a, b = ctx.saved_tensor()
            return dy * b, dy * a

    def pack_hook(x):
        packed.append(x.shape)
        return x.numpy()

    def unpack_hook(x):
        unpacked.append(x.shape)
        return core.to_tensor(x)

    a = core.ones([3, 3], dtype="float64")
    b = core.ones([3, 3], dtype="float64") * 2
    a.stop_gradient = b.stop_gradient = False
    with saved_tensors_hooks(pack_hook, unpack_hook):
        y = cus_multiply.apply(a, b)
        assert len(packed) == 2 and unpacked == []
    z = core.multiply(a, b)  # outside the context: no hook
    y.sum().backward()
    assert len(packed) == 2 and len(unpacked) == 2
    np.testing.assert_array_equal(a.grad.numpy(), np.full((3, 3), 2.0))
    np.testing.assert_array_equal(b.grad.numpy(), np.ones((3, 3)))
    with saved_tensors_hooks(pack_hook, unpack_hook):
        z = core.multiply(a, b)  # core's own ops keep arrays, not saved tensors: no hook
    z.sum().backward()
    assert len(packed) == 2 and len(unpacked) == 2


def test_saved_tensors_hooks_nest_and_pack_lists():
    log = []

    def hooks(tag):
        return saved_tensors_hooks(lambda t: (log.append(f"pack {tag}"), t)[1],
                                   lambda t: (log.append(f"unpack {tag}"), t)[1])

    ctx = PyLayerContext()
    with hooks("outer"):
        with hooks("inner"):
            ctx.save_for_backward([leaf([1.0]), None], leaf([2.0]))
        assert log == ["pack inner", "pack inner"]
        other = PyLayerContext()
        other.save_for_backward(leaf([3.0]))
    assert log[-1] == "pack outer"
    saved = ctx.saved_tensor()
    assert saved[0][1] is None and float(saved[1]) == 2.0
    assert log[-2:] == ["unpack inner", "unpack inner"]  # the hooks in force when saved
    bare = PyLayerContext()
    bare.save_for_backward(leaf([4.0]), 5)  # no hooks: anything is kept as it is
    assert bare.saved_tensor()[1] == 5
    assert PyLayerContext().saved_tensor() is None


def test_saved_tensors_hooks_errors():
    with pytest.raises(TypeError, match="saved_tensors_hooks: pack_hook must be callable"):
        saved_tensors_hooks(None, lambda t: t)
    with pytest.raises(TypeError, match="saved_tensors_hooks: unpack_hook must be callable"):
        saved_tensors_hooks(lambda t: t, 3)
    with saved_tensors_hooks(lambda t: t, lambda t: t):
        with pytest.raises(TypeError, match="takes Tensors, lists or tuples of Tensors, and "
                                            "None.*got int"):
            PyLayerContext().save_for_backward(5)


def test_core_autograd_names():
    import core.autograd as autograd

    assert core.autograd is autograd
    assert autograd.no_grad is core.no_grad and autograd.grad is core.grad
    assert autograd.enable_grad is core.enable_grad
    assert autograd.set_grad_enabled is core.set_grad_enabled
    assert autograd.is_grad_enabled is core.is_grad_enabled
    assert {"PyLayer", "PyLayerContext", "backward", "jacobian", "hessian",
            "saved_tensors_hooks"} <= set(autograd.__all__)


def test_a_pylayer_trains_inside_model_fit_under_amp_like_core_ops():
    """Model.prepare(amp_configs='O1'): the PyLayer's forward and backward run under
    auto_cast and the GradScaler like the core ops they replace."""
    data = core.io.TensorDataset([rng.standard_normal((32, 3)).astype("float32"),
                                  rng.standard_normal((32, 1)).astype("float32")])
    weights = {}
    for custom in (True, False):
        core.seed(5)
        model = core.Model(_Net(custom=custom))
        model.prepare(core.optimizer.Adam(learning_rate=0.05, parameters=model.parameters()),
                      core.nn.MSELoss(), amp_configs="O1")
        model.fit(data, epochs=2, batch_size=8, verbose=0, shuffle=False,
                  accumulate_grad_batches=2)
        assert model.predict_batch([data[0][0][None]])[0].dtype == np.float16
        weights[custom] = model.network.fc1.weight.numpy()
    np.testing.assert_allclose(weights[True], weights[False], rtol=1e-3, atol=1e-3)


def test_a_pylayer_over_a_sparse_embedding_keeps_the_row_sparse_gradient():
    ids = core.to_tensor([[1, 2], [2, 5]])
    grads = {}
    for custom in (True, False):
        core.seed(2)
        emb = core.nn.Embedding(10, 3, sparse=True)
        out = emb(ids)
        (cus_tanh.apply(out) if custom else core.tanh(out)).sum().backward()
        assert type(emb.weight.grad_data).__name__ == "RowSparseGrad"
        grads[custom] = emb.weight.grad.numpy()
    np.testing.assert_allclose(grads[True], grads[False], rtol=1e-6)
    assert not grads[True][[0, 3, 4, 6, 7, 8, 9]].any()


class _ComplexTanh(PyLayer):
    """tanh for complex inputs: the gradient convention is torch's (and core's), so a
    holomorphic function's backward multiplies by the conjugate derivative."""

    @staticmethod
    def forward(ctx, z):
        y = core.tanh(z)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, dy):
        (y,) = ctx.saved_tensor()
        return dy * core.conj(1 - y * y)


def test_complex_inputs_follow_core_and_torch_conventions():
    values = np.array([1 + 2j, 0.5 - 1j, -0.3 + 0.1j])
    z = core.to_tensor(values, stop_gradient=False)
    core.abs(_ComplexTanh.apply(z)).sum().backward()
    plain = core.to_tensor(values, stop_gradient=False)
    core.abs(core.tanh(plain)).sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), plain.grad.numpy(), rtol=1e-12)
    torch = pytest.importorskip("torch")
    t = torch.tensor(values, requires_grad=True)
    torch.tanh(t).abs().sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), t.grad.numpy(), rtol=1e-12)


def test_forward_outputs_in_a_dict_and_backward_returning_numpy_are_refused():
    class DictOut(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return {"y": x * 2}

        @staticmethod
        def backward(ctx, dy):
            return dy * 2

    with pytest.raises(ValueError, match=r"DictOut.forward must return at least one Tensor.*"
                                         r"inside a dict or another object are not outputs"):
        DictOut.apply(leaf([1.0]))

    class NumpyGrad(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 2, None, "label"  # None and other values pass through as they are

        @staticmethod
        def backward(ctx, dy):
            return dy.numpy() * 2

    x = leaf([1.0, 2.0])
    y, none, label = NumpyGrad.apply(x)
    assert none is None and label == "label"
    with pytest.raises(TypeError, match="NumpyGrad.backward: the gradient of input 0 must be a "
                                        "Tensor or None, got ndarray"):
        y.sum().backward()
