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


@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_accuracy_metric_reads_a_one_hot_label_as_its_argmax(dtype):
    """Paddle's Accuracy.compute takes labels [N, 1] or one-hot [N, num_classes] (argmax);
    the one-hot float label used to be cast to int64 and refused as the wrong shape."""
    one_hot = np.eye(3, dtype=dtype)[LABELS]
    metric = Accuracy(topk=(1, 2))
    assert metric.update(core.to_tensor(SCORES), core.to_tensor(one_hot)) == [0.25, 0.75]
    soft = np.where(one_hot > 0, 0.8, 0.1).astype("float32")  # label smoothing
    np.testing.assert_array_equal(metric.compute(core.to_tensor(SCORES), soft).numpy(),
                                  metric.compute(core.to_tensor(SCORES), LABELS).numpy())


@pytest.mark.parametrize("label_shape", [(2, 2, 1), (2, 2), "one-hot"])
def test_accuracy_metric_scores_every_position_of_a_tagging_batch(label_shape):
    """Paddle's Accuracy takes pred [N, d0, ..., num_classes] with labels [N, d0, ..., 1]:
    each position is a sample. It was refused (input must be [N, num_classes])."""
    scores = SCORES.reshape(2, 2, 3)
    labels = LABELS.reshape(2, 2)
    label = np.eye(3, dtype="float32")[labels] if label_shape == "one-hot" else \
        labels.reshape(label_shape)
    metric = Accuracy(topk=(1, 2))
    correct = metric.compute(core.to_tensor(scores), core.to_tensor(label))
    assert correct.shape == [2, 2, 2]
    np.testing.assert_array_equal(correct.numpy().reshape(4, 2),
                                  metric.compute(core.to_tensor(SCORES), LABELS).numpy())
    assert metric.update(correct) == [0.25, 0.75]  # over the 4 positions
    with pytest.raises(ValueError, match=r"Accuracy: label must be of shape \[2, 2, 1\] or "
                                         r"\[2, 2\] \(or one-hot\) to match pred of shape "
                                         r"\[2, 2, 3\]; got shape \[4\]"):
        metric.compute(core.to_tensor(scores), core.to_tensor(LABELS))


def test_accuracy_metric_compute_ignores_further_labels_as_paddle():
    """Paddle's ``Accuracy.compute(pred, label, *args)``: paddle.Model passes every label
    (e.g. a padding mask for a masked loss, as the Transformer translation tutorial does);
    the extra ones are ignored. compute() used to refuse them (TypeError)."""
    metric = Accuracy(topk=(1, 2))
    mask = np.ones((4, 1), np.float32)
    np.testing.assert_array_equal(
        metric.compute(core.to_tensor(SCORES), core.to_tensor(LABELS[:, None]), mask).numpy(),
        metric.compute(core.to_tensor(SCORES), core.to_tensor(LABELS[:, None])).numpy())


# Precision, Recall, Auc ----------------------------------------------------------------------

PROBS = np.array([0.9, 0.2, 0.5, 0.7, 0.1, 0.49, 0.8, 0.3], np.float32)
TRUTH = np.array([1, 0, 0, 1, 1, 1, 0, 0])
# rounded at 0.5 (0.5 counts as positive): predicted 1 at 0.9, 0.5, 0.7, 0.8
# tp = {0.9, 0.7} = 2, fp = {0.5, 0.8} = 2, fn = {0.1, 0.49} = 2


def test_precision_and_recall_by_hand_over_two_batches():
    precision, recall = core.metric.Precision(), core.metric.Recall()
    for metric in (precision, recall):
        metric.update(PROBS[:5, None], TRUTH[:5, None])  # [N, 1] numpy
        metric.update(core.to_tensor(PROBS[5:]), core.to_tensor(TRUTH[5:]))  # [N] Tensors
    assert (precision.tp, precision.fp) == (2, 2) and precision.accumulate() == 0.5
    assert (recall.tp, recall.fn) == (2, 2) and recall.accumulate() == 0.5
    assert isinstance(precision.accumulate(), float)
    assert precision.name() == "precision" and recall.name() == "recall"
    assert core.metric.Precision(name="p").name() == "p"
    precision.reset()
    recall.reset()
    assert precision.accumulate() == 0.0 and recall.accumulate() == 0.0  # nothing counted
    precision.update(np.array([0.6, 0.4]), np.array([1, 1]))
    recall.update(np.array([0.6, 0.4]), np.array([1, 1]))
    assert precision.accumulate() == 1.0 and recall.accumulate() == 0.5


def test_precision_and_recall_errors_are_clear():
    with pytest.raises(ValueError, match="numpy array or a Tensor"):
        core.metric.Precision().update([0.7], np.array([1]))
    with pytest.raises(ValueError, match=r"\[N\] or \[N, 1\]"):
        core.metric.Recall().update(np.zeros((3, 2)), np.zeros(3))


def _exact_roc_auc(scores, labels):
    """P(score of a positive > score of a negative), ties counting half."""
    pos, neg = scores[labels == 1], scores[labels == 0]
    diff = pos[:, None] - neg[None, :]
    return float(((diff > 0) + 0.5 * (diff == 0)).mean())


def test_auc_agrees_with_the_exact_roc_area_on_random_data():
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 2, 2000)
    scores = np.clip(rng.normal(0.4 + 0.2 * labels, 0.2), 0.0, 1.0)
    auc = core.metric.Auc()
    for part in np.array_split(np.arange(2000), 7):  # batches, [N, 1] labels as well
        preds = np.stack([1 - scores[part], scores[part]], axis=1)
        auc.update(preds, labels[part][:, None] if part[0] % 2 else labels[part])
    exact = _exact_roc_auc(scores, labels)
    assert 0.7 < exact < 0.9
    assert abs(auc.accumulate() - exact) < 1e-3
    assert isinstance(auc.accumulate(), float) and auc.name() == "auc"
    coarse = core.metric.Auc(num_thresholds=4)  # buckets 0..4: ties inside a bucket count half
    coarse.update(core.to_tensor(np.array([[0.9, 0.1], [0.4, 0.6], [0.3, 0.7], [0.1, 0.9]])),
                  core.to_tensor(np.array([0, 1, 0, 1])))
    # buckets: neg 0.1 -> 0, pos 0.6 -> 2, neg 0.7 -> 2, pos 0.9 -> 3; pairs (pos, neg):
    # (0.9, 0.1) 1, (0.9, 0.7) 1, (0.6, 0.1) 1, (0.6, 0.7) same bucket: 0.5 -> 3.5 / 4
    assert coarse.accumulate() == 3.5 / 4
    coarse.reset()
    assert coarse.accumulate() == 0.0


def test_auc_matches_paddles_loop_bucket_by_bucket():
    rng = np.random.default_rng(1)
    probs, labels = rng.random(300), rng.integers(0, 2, 300)
    auc = core.metric.Auc(num_thresholds=50)
    auc.update(np.stack([1 - probs, probs], 1), labels)
    # Paddle's accumulate, as written there
    stat_pos, stat_neg = np.zeros(51), np.zeros(51)
    for p, lbl in zip(probs, labels):
        (stat_pos if lbl else stat_neg)[int(p * 50)] += 1.0
    tot_pos = tot_neg = area = 0.0
    for idx in range(50, -1, -1):
        prev_pos, prev_neg = tot_pos, tot_neg
        tot_pos += stat_pos[idx]
        tot_neg += stat_neg[idx]
        area += abs(tot_neg - prev_neg) * (tot_pos + prev_pos) / 2.0
    assert auc.accumulate() == pytest.approx(area / tot_pos / tot_neg, rel=1e-12)


def test_auc_errors_are_clear():
    with pytest.raises(ValueError, match=r"\[N, 2\] class probabilities"):
        core.metric.Auc().update(np.array([0.2, 0.8]), np.array([0, 1]))
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        core.metric.Auc().update(np.array([[0.0, 1.5]]), np.array([1]))
    with pytest.raises(ValueError, match="only 'ROC'"):
        core.metric.Auc(curve="PR")


def test_precision_recall_and_auc_through_model_fit_and_evaluate():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(256, 2)).astype(np.float32)
    y = (x[:, 0] + x[:, 1] > 0).astype(np.int64)
    core.seed(0)

    class Binary(core.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = core.nn.Linear(2, 2)

        def forward(self, x):
            return core.nn.functional.softmax(self.fc(x), axis=-1)

    class PositiveProbability(core.metric.Precision):  # Paddle's pattern: compute() picks
        def compute(self, pred, label):                # the column update() expects
            return pred[:, 1], label

    class ByClass(core.metric.Recall):
        def compute(self, pred, label):
            return pred[:, 1], label

    model = core.Model(Binary())
    model.prepare(core.optimizer.Adam(0.05, parameters=model.parameters()),
                  core.nn.CrossEntropyLoss(use_softmax=False),
                  [PositiveProbability(), ByClass(), core.metric.Auc()])
    dataset = core.io.TensorDataset(x, y[:, None])
    model.fit(dataset, epochs=5, batch_size=32, verbose=0)
    result = model.evaluate(dataset, batch_size=64, verbose=0)
    assert set(result) == {"loss", "precision", "recall", "auc"}
    assert result["precision"] > 0.9 and result["recall"] > 0.9 and result["auc"] > 0.97
    probs = model.predict(dataset, batch_size=256, stack_outputs=True, verbose=0)[0][:, 1]
    predicted = np.floor(probs + 0.5)
    assert result["precision"] == pytest.approx(((predicted == 1) & (y == 1)).sum()
                                                / (predicted == 1).sum())
    assert result["recall"] == pytest.approx(((predicted == 1) & (y == 1)).sum() / y.sum())
    assert result["auc"] == pytest.approx(_exact_roc_auc(probs, y), abs=1e-3)


@pytest.mark.parametrize("bad", [[1.7, 0.2], [-0.5, 0.2], [float("nan"), 0.2]])
def test_precision_and_recall_refuse_values_that_are_not_probabilities(bad):
    for metric in (core.metric.Precision(), core.metric.Recall()):
        with pytest.raises(ValueError, match=r"preds must be probabilities in \[0, 1\]"):
            metric.update(np.array(bad), np.array([1, 0]))
