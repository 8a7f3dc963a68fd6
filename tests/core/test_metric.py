"""accuracy and Accuracy: top-k counts computed by hand, shapes, errors."""
import numpy as np
import pytest

import core
from core.metric import Accuracy, accuracy

SCORES = np.array([[0.1, 0.7, 0.2],   # top1 = 1, top2 = {1, 2}
                   [0.5, 0.3, 0.2],   # top1 = 0, top2 = {0, 1}
                   [0.3, 0.3, 0.4],   # top1 = 2, top2 = {2, 0} (tie: the first index wins)
                   [0.6, 0.1, 0.3]],  # top1 = 0, top2 = {0, 2}
                  np.float32)
LABELS = np.array([1, 1, 1, 2])       # top1 hits: row 0 -> 1/4; top2 hits: rows 0, 1, 3 -> 3/4


def test_accuracy_top1_and_top2_by_hand():
    acc = accuracy(core.to_tensor(SCORES), core.to_tensor(LABELS[:, None]))
    assert acc.shape == [] and acc.dtype == np.float32  # 0-D, as every reduction
    np.testing.assert_allclose(acc.numpy(), [0.25])
    np.testing.assert_allclose(accuracy(core.to_tensor(SCORES), core.to_tensor(LABELS), k=2)
                               .numpy(), [0.75])
    assert accuracy(core.to_tensor(SCORES), core.to_tensor(LABELS), k=3).item() == 1.0


def test_accuracy_ties_go_to_the_first_maximum():
    scores = core.to_tensor(np.array([[0.5, 0.5, 0.0]], np.float32))
    assert accuracy(scores, core.to_tensor([0])).item() == 1.0
    assert accuracy(scores, core.to_tensor([1])).item() == 0.0


def test_accuracy_fills_correct_and_total():
    correct, total = core.to_tensor([0]), core.to_tensor([0])
    accuracy(core.to_tensor(SCORES), core.to_tensor(LABELS), k=2, correct=correct, total=total)
    assert correct.tolist() == 3 and total.tolist() == 4 and correct.shape == []


def test_accuracy_errors_are_clear():
    with pytest.raises(ValueError, match=r"k=4 .*\[1, 3\]"):
        accuracy(core.to_tensor(SCORES), core.to_tensor(LABELS), k=4)
    with pytest.raises(ValueError, match=r"label must be integers of shape \[4\]"):
        accuracy(core.to_tensor(SCORES), core.to_tensor(LABELS[:3]))


def test_accuracy_metric_accumulates_over_batches():
    metric = Accuracy(topk=(1, 2))
    assert metric.name() == ["acc_top1", "acc_top2"]
    assert metric.update(core.to_tensor(SCORES), core.to_tensor(LABELS)) == [0.25, 0.75]
    correct = metric.compute(core.to_tensor(SCORES[:2]), core.to_tensor(LABELS[:2]))
    assert correct.shape == [2, 2]
    metric.update(correct)  # Paddle's two-step form: compute, then update
    np.testing.assert_allclose(metric.accumulate(), [2 / 6, 5 / 6])
    metric.reset()
    assert metric.accumulate() == [0.0, 0.0]
    single = Accuracy()
    assert single.name() == ["acc"]
    single.update(core.to_tensor(SCORES), core.to_tensor(LABELS[:, None]))
    assert single.accumulate() == 0.25
