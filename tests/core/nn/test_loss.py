"""cross_entropy and mse_loss: hand-computed values, reductions, ignore_index, errors, gradients."""
import functools
import math

import numpy as np
import pytest

import core
from core import backend, nn
from core.nn import functional as F
from tests.gradcheck import check_grad

RNG = np.random.default_rng(0)


def _reference_ce(logits, labels, weight=None, ignore_index=-100):
    """Per-row losses and row weights, straight from the definition (numpy, float64)."""
    logits = np.asarray(logits, np.float64)
    losses, weights = [], []
    for row, label in zip(logits, labels):
        if label == ignore_index:
            losses.append(0.0)
            weights.append(0.0)
            continue
        w = 1.0 if weight is None else weight[label]
        losses.append(w * (math.log(np.exp(row).sum()) - row[label]))
        weights.append(w)
    return np.array(losses), np.array(weights)


def test_cross_entropy_on_a_2x3_example_computed_by_hand():
    logits = core.to_tensor([[1.0, 2.0, 3.0], [1.0, 0.0, -1.0]], stop_gradient=False)
    labels = core.to_tensor([2, 1])
    row0 = math.log(math.e ** 1 + math.e ** 2 + math.e ** 3) - 3.0
    row1 = math.log(math.e ** 1 + math.e ** 0 + math.e ** -1) - 0.0
    loss = F.cross_entropy(logits, labels)
    assert loss.shape == [] and loss.dtype == np.float32  # 0-D, as core.mean (docs/paddle.md)
    np.testing.assert_allclose(loss.numpy(), [(row0 + row1) / 2], rtol=1e-6)
    loss.backward()
    p = np.exp(logits.numpy()) / np.exp(logits.numpy()).sum(axis=1, keepdims=True)
    onehot = np.array([[0, 0, 1], [0, 1, 0]])
    np.testing.assert_allclose(logits.gradient(), (p - onehot) / 2, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(
        F.cross_entropy(logits, labels, reduction="sum").numpy(), [row0 + row1], rtol=1e-6)
    none = F.cross_entropy(logits, labels, reduction="none")
    assert none.shape == [2]
    np.testing.assert_allclose(none.numpy(), [row0, row1], rtol=1e-6)
    column = F.cross_entropy(logits, core.to_tensor([[2], [1]]), reduction="none")
    assert column.shape == [2, 1]  # the unreduced loss takes the label's shape


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_gradient_for_each_reduction(reduction):
    x, labels = RNG.standard_normal((5, 4)), np.array([0, 3, 1, 1, 2])
    check_grad(lambda t, y: F.cross_entropy(t, y, reduction=reduction), x, labels)
    check_grad(lambda t, y: F.cross_entropy(t, y, reduction=reduction), x, labels[:, None])


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_ignore_index(reduction):
    x, labels = RNG.standard_normal((6, 3)), np.array([0, -100, 2, 1, -100, 1])
    losses, _ = _reference_ce(x, labels)
    got = F.cross_entropy(core.to_tensor(x), core.to_tensor(labels), reduction=reduction).numpy()
    expected = {"none": losses, "sum": [losses.sum()], "mean": [losses.sum() / 4]}[reduction]
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    check_grad(lambda t, y: F.cross_entropy(t, y, reduction=reduction), x, labels)
    t = core.to_tensor(x, stop_gradient=False)
    F.cross_entropy(t, core.to_tensor(labels), reduction=reduction).backward()
    assert (t.gradient()[labels == -100] == 0).all()


def test_cross_entropy_custom_ignore_index_and_all_ignored():
    x, labels = RNG.standard_normal((4, 3)), np.array([0, 2, 2, 1])
    got = F.cross_entropy(core.to_tensor(x), core.to_tensor(labels), ignore_index=2).numpy()
    losses, _ = _reference_ce(x, labels, ignore_index=2)
    np.testing.assert_allclose(got, [losses.sum() / 2], rtol=1e-12)
    t = core.to_tensor(x, stop_gradient=False)
    loss = F.cross_entropy(t, core.to_tensor([-100] * 4))
    np.testing.assert_array_equal(loss.numpy(), [0.0])  # nothing counted: 0, not nan
    loss.backward()
    assert (t.gradient() == 0).all()


def test_cross_entropy_class_weights():
    x, labels = RNG.standard_normal((5, 3)), np.array([0, 2, -100, 1, 2])
    weight = np.array([0.5, 2.0, 1.5])
    losses, weights = _reference_ce(x, labels, weight)
    got = F.cross_entropy(core.to_tensor(x), core.to_tensor(labels), core.to_tensor(weight))
    np.testing.assert_allclose(got.numpy(), [losses.sum() / weights.sum()], rtol=1e-12)
    check_grad(lambda t, y, w: F.cross_entropy(t, y, w), x, labels, weight, wrt=[0])
    check_grad(lambda t, y, w: F.cross_entropy(t, y, w, reduction="none"), x, labels, weight,
               wrt=[0])


def test_cross_entropy_along_another_axis():
    x = RNG.standard_normal((2, 4, 3))  # [N, C, L] with the classes on axis 1
    labels = np.array([[0, 3, 1], [2, 2, -100]])
    check_grad(lambda t, y: F.cross_entropy(t, y, axis=1), x, labels)
    check_grad(lambda t, y: F.cross_entropy(t, y, axis=1, reduction="none"), x, labels[:, None])
    moved = np.moveaxis(x, 1, -1).reshape(-1, 4)
    losses, _ = _reference_ce(moved, labels.reshape(-1))
    got = F.cross_entropy(core.to_tensor(x), core.to_tensor(labels), axis=1, reduction="none")
    np.testing.assert_allclose(got.numpy(), losses.reshape(2, 3), rtol=1e-12)


def test_cross_entropy_soft_labels_and_probabilities():
    x = RNG.standard_normal((3, 4))
    soft = RNG.random((3, 4))
    soft /= soft.sum(axis=1, keepdims=True)
    logp = x - np.log(np.exp(x).sum(axis=1, keepdims=True))
    got = F.cross_entropy(core.to_tensor(x), core.to_tensor(soft), soft_label=True)
    np.testing.assert_allclose(got.numpy(), [-(soft * logp).sum() / 3], rtol=1e-12)
    for reduction in ("mean", "none"):
        check_grad(functools.partial(F.cross_entropy, soft_label=True, reduction=reduction),
                   x, soft)
    check_grad(lambda t, y: F.cross_entropy(t, y, soft_label=True, axis=0), x, soft)
    probs = np.exp(logp)
    got = F.cross_entropy(core.to_tensor(probs), core.to_tensor([1, 0, 3]), use_softmax=False)
    np.testing.assert_allclose(got.numpy(), [-(logp[0, 1] + logp[1, 0] + logp[2, 3]) / 3])
    check_grad(lambda t, y: F.cross_entropy(t, y, use_softmax=False), probs, np.array([1, 0, 3]))


def test_cross_entropy_is_stable_for_huge_logits():
    x = core.to_tensor([[1000.0, -1000.0, 0.0]], stop_gradient=False)
    loss = F.cross_entropy(x, core.to_tensor([1]))
    np.testing.assert_allclose(loss.numpy(), [2000.0])
    loss.backward()
    assert np.isfinite(x.gradient()).all()


def test_cross_entropy_errors_name_the_problem():
    x = core.to_tensor(np.zeros((3, 10), np.float32))
    with pytest.raises(ValueError, match=r"label value 12 .*10 classes"):
        F.cross_entropy(x, core.to_tensor([1, 12, 3]))
    with pytest.raises(ValueError, match=r"label value -1 .*10 classes"):
        F.cross_entropy(x, core.to_tensor([1, -1, 3]))
    with pytest.raises(ValueError, match=r"label of shape \[4\]"):
        F.cross_entropy(x, core.to_tensor([1, 2, 3, 4]))
    with pytest.raises(TypeError, match="soft_label=True"):
        F.cross_entropy(x, core.to_tensor([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match=r"weight of shape \[3\]"):
        F.cross_entropy(x, core.to_tensor([1, 2, 3]), core.to_tensor([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="reduction='avg'"):
        nn.CrossEntropyLoss(reduction="avg")


def test_cross_entropy_loss_layer_matches_functional():
    x, labels = core.to_tensor(RNG.standard_normal((4, 3))), core.to_tensor([0, 1, 2, -100])
    layer = nn.CrossEntropyLoss(reduction="sum")
    np.testing.assert_array_equal(layer(x, labels).numpy(),
                                  F.cross_entropy(x, labels, reduction="sum").numpy())
    check_grad(lambda t, y: nn.CrossEntropyLoss()(t, y), x.numpy(), labels.numpy())


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_loss_values_and_gradients(reduction):
    a, b = RNG.standard_normal((3, 2)), RNG.standard_normal((3, 2))
    squared = (a - b) ** 2
    expected = {"none": squared, "sum": [squared.sum()], "mean": [squared.mean()]}[reduction]
    got = nn.MSELoss(reduction)(core.to_tensor(a), core.to_tensor(b))
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-12)
    check_grad(lambda x, y: F.mse_loss(x, y, reduction), a, b)


def test_mse_loss_refuses_broadcasting_shapes():
    with pytest.raises(ValueError, match=r"\[3\].*\[3, 1\]"):
        F.mse_loss(core.to_tensor([1.0, 2.0, 3.0]), core.to_tensor([[1.0], [2.0], [3.0]]))


def test_probability_input_ignores_rows_whose_stand_in_class_has_probability_zero():
    probs = core.to_tensor([[0.0, 1.0], [0.25, 0.75]], stop_gradient=False)
    loss = F.cross_entropy(probs, core.to_tensor([-100, 1]), use_softmax=False)
    np.testing.assert_allclose(loss.numpy(), [-np.log(0.75)], rtol=1e-6)
    loss.backward()
    np.testing.assert_allclose(probs.gradient(), [[0.0, 0.0], [0.0, -1 / 0.75]], rtol=1e-6)


# ----- the label check reads the host range that to_tensor recorded (no device read) ----------
def test_to_tensor_records_the_range_of_integer_host_arrays_only():
    assert core.to_tensor(np.array([[3], [0], [7]]))._value_range == (0, 7)
    assert core.to_tensor(np.array([5, -2], np.int32), dtype="int64")._value_range == (-2, 5)
    assert core.to_tensor(np.array([300, 1]), dtype="int8")._value_range is None  # may wrap
    assert core.to_tensor(np.array([1.0, 2.0]))._value_range is None
    assert core.to_tensor(np.zeros(0, np.int64))._value_range is None
    assert core.Tensor(np.array([1, 2]))._value_range is None  # made without a host read


def test_labels_with_a_known_range_are_checked_without_reading_the_device(monkeypatch):
    from core.nn.functional import loss as loss_module

    logits = RNG.standard_normal((6, 4))
    labels = np.array([0, 3, 1, 2, 2, 0])
    want = {ignore: F.cross_entropy(core.to_tensor(logits), core.Tensor(backend.asarray(labels)),
                                    ignore_index=ignore).numpy() for ignore in (-100, 2)}

    def no_device_read(values):
        raise AssertionError("cross_entropy read the labels' range from the device")

    monkeypatch.setattr(loss_module, "_bounds", no_device_read)
    for ignore, expected in want.items():
        got = F.cross_entropy(core.to_tensor(logits), core.to_tensor(labels), ignore_index=ignore)
        np.testing.assert_array_equal(got.numpy(), expected)
    per_row, weights = _reference_ce(logits, labels, ignore_index=2)
    np.testing.assert_allclose(want[2], [per_row.sum() / weights.sum()], rtol=1e-6)


def test_labels_out_of_range_made_by_to_tensor_raise_the_same_error(monkeypatch):
    from core.nn.functional import loss as loss_module

    x = core.to_tensor(np.zeros((3, 10), np.float32))
    reads = []
    original = loss_module._bounds
    monkeypatch.setattr(loss_module, "_bounds", lambda v: reads.append(1) or original(v))
    with pytest.raises(ValueError, match=r"label value 12 .*10 classes; labels must be in"):
        F.cross_entropy(x, core.to_tensor(np.array([1, 12, 3])))
    with pytest.raises(ValueError, match=r"label value -1 .*10 classes; labels must be in"):
        F.cross_entropy(x, core.to_tensor(np.array([1, -1, 3])))
    # A range that includes ignore_index and a negative value takes the exact path and passes.
    loss = F.cross_entropy(x, core.to_tensor(np.array([1, -100, 3])))
    np.testing.assert_allclose(loss.numpy(), [math.log(10)], rtol=1e-6)
    assert len(reads) == 4  # two for the range that holds ignore_index: all, then the kept
    F.cross_entropy(x, core.Tensor(backend.asarray(np.array([1, 2, 3]))))  # device-made: read
    assert len(reads) == 5


# ----- nll_loss ------------------------------------------------------------------------------

def test_nll_loss_by_hand_with_weight_and_ignore_index():
    logp = np.log(np.array([[0.2, 0.8], [0.6, 0.4], [0.5, 0.5]]))
    x, labels = core.to_tensor(logp), core.to_tensor([1, 0, -100])
    loss = F.nll_loss(x, labels)
    assert loss.shape == []
    assert loss.item() == pytest.approx(-(math.log(0.8) + math.log(0.6)) / 2)  # 2 counted rows
    weight = core.to_tensor([2.0, 1.0], dtype="float64")
    got = F.nll_loss(x, labels, weight=weight).item()
    assert got == pytest.approx(-(1 * math.log(0.8) + 2 * math.log(0.6)) / 3)
    none = F.nll_loss(x, labels, reduction="none").numpy()
    np.testing.assert_allclose(none, [-math.log(0.8), -math.log(0.6), 0.0])
    layer = nn.NLLLoss(weight=weight, reduction="sum")
    assert layer(x, labels).item() == pytest.approx(-(math.log(0.8) + 2 * math.log(0.6)))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss_gradients_and_spatial_inputs(reduction):
    x = RNG.standard_normal((3, 4, 2))  # [N, C, d1]: classes on axis 1
    labels = np.array([[0, 3], [-100, 1], [2, 2]])
    weight = RNG.uniform(0.5, 2.0, 4)
    check_grad(lambda a, w: F.nll_loss(a, core.to_tensor(labels), w, reduction=reduction),
               x, weight, wrt=[0])
    assert F.nll_loss(core.to_tensor(x), core.to_tensor(labels), reduction="none").shape == [3, 2]


def test_nll_loss_matches_log_softmax_cross_entropy_and_torch():
    x, labels = RNG.standard_normal((5, 3)), np.array([0, 2, 1, 1, 0])
    logp = F.log_softmax(core.to_tensor(x), axis=1)
    got = F.nll_loss(logp, core.to_tensor(labels))
    np.testing.assert_allclose(got.numpy(), F.cross_entropy(core.to_tensor(x),
                                                            core.to_tensor(labels)).numpy())
    torch = pytest.importorskip("torch")
    want = torch.nn.functional.nll_loss(torch.log_softmax(torch.tensor(x), 1),
                                        torch.tensor(labels))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10)
    with pytest.raises(ValueError, match="nll_loss: label value 3"):
        F.nll_loss(logp, core.to_tensor([0, 3, 1, 1, 0]))
    with pytest.raises(ValueError, match=r"\[N, \.\.\.\]"):
        F.nll_loss(logp, core.to_tensor([0, 1]))
