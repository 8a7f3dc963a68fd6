"""core.distribution's transforms and TransformedDistribution against torch.distributions
(forward, inverse, log det Jacobians, shapes, log_prob), Paddle's documented numbers, float64
gradient checks, ExponentialFamily's entropy, and argument errors."""
from __future__ import annotations

import math

import numpy as np
import pytest
from gradcheck import check_grad

import core
from core import distribution as D

X = np.array([[0.3, -1.2, 0.8], [1.5, 0.1, -0.4]])
POS = np.abs(X) + 0.2
UNIT = np.array([[0.2, 0.5, 0.9], [0.05, 0.7, 0.35]])


def _affine():
    """``y = 0.5 + 2 x`` in float64 (Python numbers would take the float32 default)."""
    return D.AffineTransform(np.array(0.5), np.array(2.0))


def _pairs(torch):
    """name: (core transform, torch transform, an input in the domain)."""
    T = torch.distributions.transforms
    loc, scale = np.array([0.5, -1.0, 2.0]), np.array([1.5, -0.5, 2.0])
    return {
        "Affine": (D.AffineTransform(loc, scale),
                   T.AffineTransform(torch.tensor(loc), torch.tensor(scale)), X),
        "Exp": (D.ExpTransform(), T.ExpTransform(), X),
        "Power": (D.PowerTransform(np.array(2.5)), T.PowerTransform(torch.tensor(2.5)), POS),
        "Sigmoid": (D.SigmoidTransform(), T.SigmoidTransform(), X),
        "Tanh": (D.TanhTransform(), T.TanhTransform(), X),
        "StickBreaking": (D.StickBreakingTransform(), T.StickBreakingTransform(), X),
        "Independent": (D.IndependentTransform(D.ExpTransform(), 1),
                        T.IndependentTransform(T.ExpTransform(), 1), X),
        "Chain": (D.ChainTransform([_affine(), D.TanhTransform()]),
                  T.ComposeTransform([T.AffineTransform(0.5, 2.0), T.TanhTransform()]), X),
        "Reshape": (D.ReshapeTransform((3,), (3, 1)), T.ReshapeTransform((3,), (3, 1)), X),
    }


NAMES = ["Affine", "Exp", "Power", "Sigmoid", "Tanh", "StickBreaking", "Independent", "Chain",
         "Reshape"]


@pytest.mark.parametrize("name", NAMES)
def test_forward_inverse_and_log_det_jacobian_match_torch(name):
    torch = pytest.importorskip("torch")
    ours, ref, x = _pairs(torch)[name]
    tx = torch.tensor(x)
    ty = ref(tx)
    y = ours.forward(x)
    np.testing.assert_allclose(y.numpy(), ty.numpy(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(ours(core.to_tensor(x)).numpy(), y.numpy())
    np.testing.assert_allclose(ours.inverse(y).numpy(), x, rtol=1e-9, atol=1e-12)
    expected = ref.log_abs_det_jacobian(tx, ty).numpy()
    fldj = ours.forward_log_det_jacobian(x).numpy()
    np.testing.assert_allclose(fldj, np.broadcast_to(expected, fldj.shape), rtol=1e-10,
                               atol=1e-12)
    np.testing.assert_allclose(ours.inverse_log_det_jacobian(y).numpy(), -fldj, rtol=1e-8,
                               atol=1e-10)
    assert ours.forward_shape(x.shape) == tuple(ty.shape)
    assert ours.inverse_shape(tuple(ty.shape)) == x.shape


def test_elementwise_log_det_jacobians_are_the_log_derivatives():
    eps = 1e-6
    for t, x in ((D.ExpTransform(), X), (D.SigmoidTransform(), X), (D.TanhTransform(), X),
                 (D.PowerTransform(3.0), POS), (D.AffineTransform(1.0, -2.0), X)):
        slope = (t.forward(x + eps).numpy() - t.forward(x - eps).numpy()) / (2 * eps)
        np.testing.assert_allclose(t.forward_log_det_jacobian(x).numpy(),
                                   np.log(np.abs(slope)), rtol=1e-6, atol=1e-8)


def test_paddles_documented_values():
    x = core.to_tensor([1.0, 2.0, 3.0])
    stick = D.StickBreakingTransform()
    np.testing.assert_allclose(stick.forward(x).numpy(),
                               [0.47536686, 0.41287899, 0.10645414, 0.00530004], rtol=1e-5)
    np.testing.assert_allclose(stick.forward_log_det_jacobian(x).numpy(), -9.10835075,
                               rtol=1e-6)
    stack = D.StackTransform((D.ExpTransform(), D.PowerTransform(core.to_tensor(2.0))), 1)
    pair = core.stack((x, x), 1)
    np.testing.assert_allclose(stack.forward(pair).numpy(),
                               [[2.71828175, 1.0], [7.38905621, 4.0], [20.08553696, 9.0]],
                               rtol=1e-6)
    np.testing.assert_allclose(stack.forward_log_det_jacobian(pair).numpy(),
                               [[1.0, 0.69314718], [2.0, 1.38629436], [3.0, 1.79175949]],
                               rtol=1e-6)
    np.testing.assert_allclose(stack.inverse(stack.forward(pair)).numpy(), pair.numpy(),
                               rtol=1e-6)
    reshape = D.ReshapeTransform((2, 3), (3, 2))
    assert reshape.forward_shape((5, 2, 3)) == (5, 3, 2)
    assert reshape.inverse_shape((5, 3, 2)) == (5, 2, 3)
    assert reshape.forward(core.ones((1, 2, 3))).shape == [1, 3, 2]
    np.testing.assert_array_equal(reshape.forward_log_det_jacobian(core.ones((1, 2, 3))).numpy(),
                                  [0.0])
    chain = D.ChainTransform((D.AffineTransform(core.to_tensor(0.0), core.to_tensor(1.0)),
                              D.ExpTransform()))
    z = core.to_tensor([0.0, 1.0, 2.0, 3.0])
    np.testing.assert_allclose(chain.forward_log_det_jacobian(z).numpy(), [0, 1, 2, 3],
                               atol=1e-6)
    np.testing.assert_allclose(chain.inverse_log_det_jacobian(chain.forward(z)).numpy(),
                               [0, -1, -2, -3], atol=1e-6)
    multi_exp = D.IndependentTransform(D.ExpTransform(), 1)
    np.testing.assert_allclose(
        multi_exp.forward_log_det_jacobian(core.to_tensor([[1.0, 2, 3], [4, 5, 6]])).numpy(),
        [6.0, 15.0])
    normal = D.TransformedDistribution(
        D.Normal(0.0, 1.0), [D.AffineTransform(core.to_tensor(1.0), core.to_tensor(2.0))])
    np.testing.assert_allclose(normal.log_prob(core.to_tensor(0.5)).numpy(), -1.64333570,
                               rtol=1e-6)


def test_abs_and_softmax_are_not_injective():
    t = D.AbsTransform()
    np.testing.assert_array_equal(t.forward(core.to_tensor([-1.0, 0.0, 1.0])).numpy(),
                                  [1, 0, 1])
    neg, pos = t.inverse(core.to_tensor(1.0))
    assert float(neg) == -1.0 and float(pos) == 1.0
    zeros = t.inverse_log_det_jacobian(core.to_tensor(1.0))
    assert [float(z) for z in zeros] == [0.0, 0.0]
    with pytest.raises(NotImplementedError, match="AbsTransform.forward_log_det_jacobian: the "
                                                  "transform is not injective"):
        t.forward_log_det_jacobian(core.to_tensor(1.0))
    soft = D.SoftmaxTransform()
    y = soft.forward(X)
    np.testing.assert_allclose(y.numpy(), np.exp(X) / np.exp(X).sum(-1, keepdims=True),
                               rtol=1e-12)
    np.testing.assert_allclose(soft.forward(soft.inverse(y)).numpy(), y.numpy(), rtol=1e-12)
    with pytest.raises(NotImplementedError, match="SoftmaxTransform.forward_log_det_jacobian"):
        soft.forward_log_det_jacobian(X)
    with pytest.raises(NotImplementedError, match="SoftmaxTransform.inverse_log_det_jacobian"):
        soft.inverse_log_det_jacobian(y)


def test_calling_a_transform_on_a_distribution_or_a_transform():
    exp = D.ExpTransform()
    dist = exp(D.Normal(0.0, 1.0))
    assert isinstance(dist, D.TransformedDistribution)
    chain = exp(D.AffineTransform(np.array(1.0), np.array(2.0)))
    assert isinstance(chain, D.ChainTransform)
    # Paddle's ChainTransform([self, input]): the called transform applies first
    np.testing.assert_allclose(chain.forward(X).numpy(), 1 + 2 * np.exp(X), rtol=1e-12)


@pytest.mark.parametrize("name", ["Affine", "Power", "Sigmoid", "Tanh", "StickBreaking",
                                  "Chain"])
def test_forward_and_log_det_jacobian_gradients(name):
    torch = pytest.importorskip("torch")  # only for the table of transforms
    ours, _, x = _pairs(torch)[name]
    check_grad(lambda v: ours.forward(v), x)
    if name != "Affine":  # log|scale| does not depend on x
        check_grad(lambda v: ours.forward_log_det_jacobian(v), x)
    check_grad(lambda v: ours.inverse(v), ours.forward(x).numpy())


def test_transformed_distribution_matches_torch():
    torch = pytest.importorskip("torch")
    td, T = torch.distributions, torch.distributions.transforms
    loc, scale = np.array([0.2, -0.5, 1.0]), np.array([0.7, 1.2, 0.4])
    # Normal -> exp is LogNormal
    ours = D.TransformedDistribution(D.Normal(loc, scale), [D.ExpTransform()])
    np.testing.assert_allclose(ours.log_prob(POS[0]).numpy(),
                               D.LogNormal(loc, scale).log_prob(POS[0]).numpy(), rtol=1e-12)
    assert ours.batch_shape == (3,) and ours.event_shape == ()
    # a tanh-squashed affine Gaussian
    ours = D.TransformedDistribution(D.Normal(loc, scale),
                                     [_affine(), D.TanhTransform()])
    ref = td.TransformedDistribution(td.Normal(torch.tensor(loc), torch.tensor(scale)),
                                     [T.AffineTransform(0.5, 2.0), T.TanhTransform()])
    value = UNIT * 2 - 1
    np.testing.assert_allclose(ours.log_prob(value).numpy(),
                               ref.log_prob(torch.tensor(value)).numpy(), rtol=1e-9)
    # stick breaking turns a batch of 3 Normals into one 4-simplex event (Independent base)
    ours = D.TransformedDistribution(D.Normal(loc, scale), [D.StickBreakingTransform()])
    ref = td.TransformedDistribution(
        td.Independent(td.Normal(torch.tensor(loc), torch.tensor(scale)), 1),
        [T.StickBreakingTransform()])
    assert ours.batch_shape == () and ours.event_shape == (4,)
    simplex = np.array([[0.1, 0.2, 0.3, 0.4], [0.25, 0.25, 0.4, 0.1]])
    np.testing.assert_allclose(ours.log_prob(simplex).numpy(),
                               ref.log_prob(torch.tensor(simplex)).numpy(), rtol=1e-9)
    core.seed(0)
    draws = ours.sample([5]).numpy()
    assert draws.shape == (5, 4)
    np.testing.assert_allclose(draws.sum(-1), 1.0, rtol=1e-12)


def test_transformed_distribution_samples_and_rsample_gradient():
    loc, scale = np.array([0.2, -0.5, 1.0]), np.array([0.7, 1.2, 0.4])
    core.seed(3)
    dist = D.TransformedDistribution(D.Normal(loc, scale), [D.ExpTransform()])
    draws = dist.sample([20000]).numpy()
    assert draws.shape == (20000, 3)
    lognormal = D.LogNormal(loc, scale)
    np.testing.assert_allclose(draws.mean(0), lognormal.mean.numpy(), rtol=0.05)
    assert dist.sample([2]).stop_gradient

    def draw(m, s):
        core.seed(5)
        return D.TransformedDistribution(D.Normal(m, s), [_affine(),
                                                          D.TanhTransform()]).rsample([4])

    check_grad(draw, loc, scale, rtol=1e-5, atol=1e-7)
    check_grad(lambda v, m, s: D.TransformedDistribution(
        D.Normal(m, s), [_affine(), D.TanhTransform()]).log_prob(v),
        UNIT * 2 - 1, loc, scale)


class _NaturalNormal(D.ExponentialFamily):
    """The Gaussian in natural parameters, to drive ExponentialFamily.entropy."""

    def __init__(self, loc, scale):
        self.loc, self.scale = core.to_tensor(loc), core.to_tensor(scale)
        super().__init__(batch_shape=tuple(self.loc.shape))

    @property
    def _natural_parameters(self):
        return self.loc / self.scale.square(), -0.5 / self.scale.square()

    def _log_normalizer(self, a, b):
        return -a.square() / (4 * b) + 0.5 * (-math.pi / b).log()

    @property
    def _mean_carrier_measure(self):
        return 0.0


def test_exponential_family_entropy_from_the_log_normalizer():
    loc, scale = np.array([0.0, 1.0, -2.0]), np.array([1.0, 2.0, 0.3])
    entropy = _NaturalNormal(loc, scale).entropy()
    np.testing.assert_allclose(entropy.numpy(), D.Normal(loc, scale).entropy().numpy(),
                               rtol=1e-12)
    assert entropy.stop_gradient
    with pytest.raises(NotImplementedError, match="ExponentialFamily does not implement "
                                                  "_natural_parameters"):
        D.ExponentialFamily(batch_shape=(2,)).entropy()


def test_bad_arguments_name_the_argument():
    with pytest.raises(TypeError, match="ExpTransform.forward: 'x' must be a Tensor, a number, "
                                        "a list or a numpy array, got str"):
        D.ExpTransform().forward("x")
    with pytest.raises(ValueError, match=r"StickBreakingTransform.forward: 'x' must have at "
                                         r"least 1 dimensions"):
        D.StickBreakingTransform().forward(core.to_tensor(1.0))
    with pytest.raises(TypeError, match="ChainTransform: 'transforms' must be a sequence of "
                                        "Transforms"):
        D.ChainTransform([D.ExpTransform(), 3])
    with pytest.raises(ValueError, match="IndependentTransform: 'reinterpreted_batch_rank' "
                                         "must be a positive int, got 0"):
        D.IndependentTransform(D.ExpTransform(), 0)
    with pytest.raises(TypeError, match="IndependentTransform: 'base' must be a Transform"):
        D.IndependentTransform(D.Normal(0.0, 1.0), 1)
    with pytest.raises(ValueError, match=r"ReshapeTransform: 'in_event_shape' \[2, 3\] and "
                                         r"'out_event_shape' \[4\] must have the same number "
                                         r"of elements, got 6 and 4"):
        D.ReshapeTransform((2, 3), (4,))
    with pytest.raises(ValueError, match=r"ReshapeTransform.forward_shape: the shape must end "
                                         r"in the event shape \[2, 3\], got \[3, 2\]"):
        D.ReshapeTransform((2, 3), (6,)).forward_shape((3, 2))
    with pytest.raises(TypeError, match="StackTransform: 'axis' must be an int"):
        D.StackTransform([D.ExpTransform()], axis=1.0)
    with pytest.raises(ValueError, match="StackTransform.forward: the input's size along axis "
                                         "1 must be 2"):
        D.StackTransform([D.ExpTransform(), D.TanhTransform()], 1).forward(X)
    with pytest.raises(TypeError, match="TransformedDistribution: 'base' must be a "
                                        "Distribution"):
        D.TransformedDistribution(D.ExpTransform(), [])
    with pytest.raises(TypeError, match="TransformedDistribution: 'transforms' must be a "
                                        "sequence of Transforms"):
        D.TransformedDistribution(D.Normal(0.0, 1.0), D.ExpTransform())
    with pytest.raises(ValueError, match=r"TransformedDistribution: 'base' must have at least "
                                         r"1 dimensions"):
        D.TransformedDistribution(D.Normal(0.0, 1.0), [D.StickBreakingTransform()])
    with pytest.raises(TypeError, match="ExpTransform.forward_shape: 'shape' must be a "
                                        "sequence of ints"):
        D.ExpTransform().forward_shape(3)


def test_transform_properties_and_the_abstract_base():
    affine = D.AffineTransform(np.array([1.0, 2.0]), np.array(3.0))
    np.testing.assert_array_equal(affine.loc.numpy(), [1.0, 2.0])
    assert float(affine.scale) == 3.0
    assert affine.forward_shape((4, 1)) == (4, 2) and affine.inverse_shape([2]) == (2,)
    assert float(D.PowerTransform(np.array(2.0)).power) == 2.0
    reshape = D.ReshapeTransform([2, 3], [6])
    assert reshape.in_event_shape == (2, 3) and reshape.out_event_shape == (6,)
    exp, tanh = D.ExpTransform(), D.TanhTransform()
    stack = D.StackTransform([exp, tanh], axis=-1)
    assert stack.transforms == [exp, tanh] and stack.axis == -1
    assert D.ChainTransform([exp, tanh]).transforms == [exp, tanh]
    soft = D.SoftmaxTransform()
    assert soft.forward_shape((2, 3)) == (2, 3) and soft.inverse_shape((2, 3)) == (2, 3)
    stick = D.StickBreakingTransform()
    assert stick.forward_shape((5, 3)) == (5, 4) and stick.inverse_shape((5, 4)) == (5, 3)
    base = D.Transform()
    for call in (lambda: base.forward(X), lambda: base.inverse(X)):
        with pytest.raises(NotImplementedError, match="Transform does not implement"):
            call()
    for call in (lambda: base.forward_log_det_jacobian(X),
                 lambda: base.inverse_log_det_jacobian(X)):
        with pytest.raises(NotImplementedError, match="Transform implements neither log det"):
            call()
    normal = D.Normal(np.zeros(3), np.ones(3))
    dist = D.TransformedDistribution(normal, [exp])
    assert dist.base is normal and dist.transforms == [exp]
    np.testing.assert_allclose(dist.prob(POS[0]).numpy(), np.exp(dist.log_prob(POS[0]).numpy()))
    wrapped = D.TransformedDistribution(normal, [stick])
    assert isinstance(wrapped.base, D.Independent)
    from core.distribution import transformed_distribution  # noqa: PLC0415 - Paddle's path

    assert transformed_distribution.TransformedDistribution is D.TransformedDistribution


def test_exponential_family_entropy_under_no_grad():
    """Evaluation loops run under core.no_grad(); the entropy's core.grad used to fail there
    (nothing required a gradient)."""
    loc, scale = np.array([0.0, 1.0]), np.array([1.0, 2.0])
    with core.no_grad():
        entropy = _NaturalNormal(loc, scale).entropy()
        assert not core.is_grad_enabled()  # the context was restored
    np.testing.assert_allclose(entropy.numpy(), D.Normal(loc, scale).entropy().numpy(),
                               rtol=1e-12)
