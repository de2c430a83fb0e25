"""Single-label classification measures from one confusion matrix: accuracy, per-class P/R/F1, macro F1.

Why a confusion matrix first: every measure is a ratio of its cells, so computing the matrix once (gold x
predicted, plus a column for "no valid prediction") makes each measure a one-line, checkable formula, and the
same matrix is what the detailed report shows.

Conventions (stated, because the peers differ): a ratio with an empty denominator is 0.0 (scikit-learn's
zero_division=0); a query without a valid prediction (missing, or an unknown class) is wrong: it counts in the
recall denominator of its gold class and in no precision denominator.
"""
from typing import Dict, List, Optional, Sequence

NO_PREDICTION = "(none)"   # column of the confusion matrix for a missing or invalid prediction


class ConfusionMatrix:
    """counts[gold][predicted] over `classes`; predicted may also be NO_PREDICTION."""

    def __init__(self, classes: Sequence[str]):
        self.classes = list(classes)
        self.columns = self.classes + [NO_PREDICTION]
        self.counts: Dict[str, Dict[str, int]] = {g: {p: 0 for p in self.columns} for g in self.classes}

    @classmethod
    def from_labels(cls, classes: Sequence[str], gold: Sequence[str],
                    predicted: Sequence[Optional[str]]) -> "ConfusionMatrix":
        """gold[i] is a class; predicted[i] is a class, or None / anything else for "no valid prediction"."""
        if len(gold) != len(predicted):
            raise ValueError("gold and predicted labels differ in length (%d, %d)" % (len(gold), len(predicted)))
        matrix = cls(classes)
        for g, p in zip(gold, predicted):
            if g not in matrix.counts:
                raise ValueError("gold label %r is not one of %s" % (g, ", ".join(classes)))
            matrix.counts[g][p if p in matrix.counts else NO_PREDICTION] += 1
        return matrix

    def total(self) -> int:
        return sum(sum(row.values()) for row in self.counts.values())

    def correct(self) -> int:
        return sum(self.counts[k][k] for k in self.classes)

    def gold_count(self, k: str) -> int:
        """Queries whose gold class is k (the row sum)."""
        return sum(self.counts[k].values())

    def predicted_count(self, k: str) -> int:
        """Queries predicted as k (the column sum)."""
        return sum(self.counts[g][k] for g in self.classes)

    def rows(self) -> List[List[str]]:
        """Header + one row per gold class, for the detailed report."""
        out = [["gold \\ predicted"] + self.columns + ["total"]]
        for g in self.classes:
            out.append([g] + [str(self.counts[g][p]) for p in self.columns] + [str(self.gold_count(g))])
        return out


def _ratio(numerator: int, denominator: int) -> float:
    return numerator / denominator if denominator else 0.0


def accuracy(matrix: ConfusionMatrix) -> float:
    """#correct / #queries (Temporalia: "the number of queries with correct temporal classes divided by the
    total number of queries")."""
    return _ratio(matrix.correct(), matrix.total())


def precision(matrix: ConfusionMatrix, k: str) -> float:
    """#(gold k, predicted k) / #(predicted k)."""
    return _ratio(matrix.counts[k][k], matrix.predicted_count(k))


def recall(matrix: ConfusionMatrix, k: str) -> float:
    """#(gold k, predicted k) / #(gold k); Temporalia's "per-class accuracy" is this number."""
    return _ratio(matrix.counts[k][k], matrix.gold_count(k))


def f1(matrix: ConfusionMatrix, k: str) -> float:
    """2PR / (P + R) of class k; 0.0 when P + R = 0."""
    p, r = precision(matrix, k), recall(matrix, k)
    return 2 * p * r / (p + r) if p + r else 0.0


def macro_f1(matrix: ConfusionMatrix, over: str = "gold_classes") -> float:
    """Mean of the per-class F1 over the classes that occur in the gold labels (`gold_classes`, a class without
    gold queries has no defined recall), or over every declared class (`all_classes`)."""
    if over == "all_classes":
        classes = matrix.classes
    elif over == "gold_classes":
        classes = [k for k in matrix.classes if matrix.gold_count(k)]
    else:
        raise ValueError("macro_f1 over %r: expected gold_classes or all_classes" % over)
    return sum(f1(matrix, k) for k in classes) / len(classes) if classes else 0.0
