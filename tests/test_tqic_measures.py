"""Classification measures of temporalia-tqic: a hand-computed confusion matrix, then scikit-learn as the peer
on seeded random labels (skipped when scikit-learn is absent)."""
import random

import pytest

from runscore.measures.classification import (NO_PREDICTION, ConfusionMatrix, accuracy, f1, macro_f1, precision,
                                              recall)

CLASSES = ("past", "recency", "future", "atemporal")
# Six queries: gold and predicted (None = missing or unknown class).
GOLD = ["past", "past", "future", "recency", "atemporal", "atemporal"]
PRED = ["past", "future", "future", None, "atemporal", "past"]


def hand_matrix():
    return ConfusionMatrix.from_labels(CLASSES, GOLD, PRED)


def test_confusion_matrix_cells():
    m = hand_matrix()
    assert m.counts["past"] == {"past": 1, "recency": 0, "future": 1, "atemporal": 0, NO_PREDICTION: 0}
    assert m.counts["recency"][NO_PREDICTION] == 1
    assert m.counts["atemporal"]["past"] == 1 and m.counts["atemporal"]["atemporal"] == 1
    assert (m.total(), m.correct()) == (6, 3)
    assert m.rows()[0] == ["gold \\ predicted", "past", "recency", "future", "atemporal", NO_PREDICTION, "total"]
    assert m.rows()[1] == ["past", "1", "0", "1", "0", "0", "2"]


def test_hand_computed_measures():
    m = hand_matrix()
    assert accuracy(m) == 3 / 6                           # q1, q3, q5 correct
    assert precision(m, "past") == 1 / 2                  # predicted past: q1 (right), q6 (wrong)
    assert recall(m, "past") == 1 / 2                     # gold past: q1 (right), q2 (wrong)
    assert f1(m, "past") == 2 * 0.5 * 0.5 / (0.5 + 0.5)
    assert precision(m, "future") == 1 / 2                # predicted future: q2 (wrong), q3 (right)
    assert recall(m, "future") == 1 / 1
    assert f1(m, "future") == pytest.approx(2 * 0.5 * 1 / (0.5 + 1), abs=1e-15)
    assert precision(m, "recency") == 0.0                 # nothing predicted as recency: 0/0 -> 0
    assert recall(m, "recency") == 0 / 1                  # the missing prediction is wrong
    assert f1(m, "recency") == 0.0                        # P + R = 0 -> 0
    assert precision(m, "atemporal") == 1 / 1
    assert recall(m, "atemporal") == 1 / 2
    # macro over the four classes (all have gold queries): (1/2 + 2/3 + 0 + 2/3) / 4 = 11/24
    assert macro_f1(m) == pytest.approx((1 / 2 + 2 / 3 + 0 + 2 / 3) / 4, abs=1e-15)


def test_macro_f1_over_gold_classes_or_all_classes():
    # No gold recency query; one query wrongly predicted as recency.
    m = ConfusionMatrix.from_labels(CLASSES, ["past", "future"], ["past", "recency"])
    # F1(past) = 1; F1(future) = 0 (R = 0/1); F1(recency) = 0 (P = 0/1); F1(atemporal) = 0 (nothing at all)
    assert macro_f1(m, "gold_classes") == (1 + 0) / 2     # past and future have gold queries
    assert macro_f1(m, "all_classes") == (1 + 0 + 0 + 0) / 4
    with pytest.raises(ValueError):
        macro_f1(m, "some")


def test_bad_labels_are_value_errors():
    with pytest.raises(ValueError, match="differ in length"):
        ConfusionMatrix.from_labels(CLASSES, ["past"], [])
    with pytest.raises(ValueError, match="gold label 'present'"):
        ConfusionMatrix.from_labels(CLASSES, ["present"], ["past"])


def test_empty_matrix_is_zero_not_a_division_error():
    m = ConfusionMatrix(CLASSES)
    assert (accuracy(m), macro_f1(m), f1(m, "past")) == (0.0, 0.0, 0.0)


@pytest.mark.parametrize("seed", range(20))
def test_agrees_with_scikit_learn(seed):
    metrics = pytest.importorskip("sklearn.metrics")
    rng = random.Random(seed)
    n = rng.randint(1, 60)
    gold_pool = list(CLASSES) if seed % 3 else ["past", "future", "atemporal"]   # sometimes a class has no gold
    gold = [rng.choice(gold_pool) for _ in range(n)]
    predicted = [rng.choice(list(CLASSES) + [None]) for _ in range(n)]
    m = ConfusionMatrix.from_labels(CLASSES, gold, predicted)
    y_pred = [p if p is not None else NO_PREDICTION for p in predicted]
    labels = list(CLASSES)
    assert accuracy(m) == pytest.approx(metrics.accuracy_score(gold, y_pred), abs=1e-12)
    p, r, f, support = metrics.precision_recall_fscore_support(gold, y_pred, labels=labels, zero_division=0)
    for i, k in enumerate(CLASSES):
        assert precision(m, k) == pytest.approx(p[i], abs=1e-12)
        assert recall(m, k) == pytest.approx(r[i], abs=1e-12)
        assert f1(m, k) == pytest.approx(f[i], abs=1e-12)
        assert m.gold_count(k) == support[i]
    gold_classes = [k for k in CLASSES if k in set(gold)]
    assert macro_f1(m, "gold_classes") == pytest.approx(
        metrics.f1_score(gold, y_pred, labels=gold_classes, average="macro", zero_division=0), abs=1e-12)
    assert macro_f1(m, "all_classes") == pytest.approx(
        metrics.f1_score(gold, y_pred, labels=labels, average="macro", zero_division=0), abs=1e-12)
