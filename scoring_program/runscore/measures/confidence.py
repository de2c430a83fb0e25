"""Confidence and nugget measures of NTCIR-19 R2C2 AC: Accuracy, NugPrec/MNP, R_O, R_U, HMR, avconf, OB.

Why a module of its own: these are the task's official numbers, so each is a small pure function over arrays
(y_t in {0, 1}: answer correct; c_t in [0, 1]: confidence) that a reader can check against the spec
(shared/specs/r2c2.md section 3) line by line. The denominators differ on purpose: Accuracy and avconf are over
the topics the run answers (n_s), MNP over all official topics, R_O over the wrong answers, R_U over the right
ones. Brier score and ECE are NOT official (the task chose HMR because they do not separate over- from
under-confidence); they are here as clearly labelled diagnostics.

Citation: T. Sakai, "Harmonic Mean of Rewards: Penalising Overconfidence and Underconfidence Separately",
working notes (sakailab.com/r2c2/); the R2C2 design paper (BREV-RAG @ SIGIR-AP 2025) section 2.4. Edge
conventions (empty I- or I+ -> reward 1) follow the participant implementation retrank `src/eval/hmr.py`
(Proposed: the organisers' convention is not published).
"""
import math
from dataclasses import dataclass
from typing import Dict, Iterable, Mapping, Optional, Sequence

import numpy as np


@dataclass(frozen=True)
class MeasureInfo:
    """One registry entry: the output key, the formula in words, the denominator, its status, and which values
    are better ("higher", "lower", or None: a description such as OB, best at 0, that ranks nothing)."""

    key: str
    formula: str
    denominator: str
    status: str
    better: Optional[str] = "higher"


REGISTRY = (
    MeasureInfo("hmr", "2 R_O R_U / (R_O + R_U); 0 if R_O + R_U = 0", "-", "Official (primary)"),
    MeasureInfo("accuracy", "(1/n_s) sum_{t in T_s} y_t", "topics answered by the run (n_s)", "Official"),
    MeasureInfo("mnp", "(1/|T|) sum_{t in T} NugPrec(t), NugPrec(t) = rel_t / |N_t| (0 if no nugget or t "
                "not answered)", "all official topics |T|", "Official"),
    MeasureInfo("r_o", "1 - (1/|I-|) sum_{t in I-} c_t; 1 if I- is empty", "wrong answers |I-|", "Official"),
    MeasureInfo("r_u", "1 - (1/|I+|) sum_{t in I+} (1 - c_t); 1 if I+ is empty", "right answers |I+|",
                "Official"),
    MeasureInfo("avconf", "(1/n_s) sum_{t in T_s} c_t", "topics answered by the run (n_s)", "Official",
                None),
    MeasureInfo("ob", "avconf - accuracy (positive = overconfident on average)", "-", "Official", None),
    MeasureInfo("brier_unofficial", "(1/n_s) sum_{t in T_s} (c_t - y_t)^2", "n_s", "NOT official (diagnostic)",
                "lower"),
    MeasureInfo("ece_unofficial", "sum_b (|B_b|/n_s) |acc_b - conf_b|, equal-width bins of c (10 by default)",
                "n_s", "NOT official (diagnostic)", "lower"),
)

BETTER = {info.key: info.better for info in REGISTRY}


def _arrays(correct: Sequence[float], confidence: Sequence[float]):
    y = np.asarray(correct, dtype=float)
    c = np.asarray(confidence, dtype=float)
    if y.shape != c.shape:
        raise ValueError("correct and confidence must have the same length (%d != %d)" % (y.size, c.size))
    return y, c


def accuracy(correct: Sequence[float]) -> float:
    """Share of answered topics answered correctly; 0 when nothing is answered (n_s = 0)."""
    y = np.asarray(correct, dtype=float)
    return float(y.sum() / y.size) if y.size else 0.0


def avconf(confidence: Sequence[float]) -> float:
    """Mean confidence over the answered topics; 0 when nothing is answered."""
    c = np.asarray(confidence, dtype=float)
    return float(c.sum() / c.size) if c.size else 0.0


def overconfidence_reward(correct: Sequence[float], confidence: Sequence[float]) -> float:
    """R_O = 1 - mean confidence on the wrong answers (1 when no answer is wrong)."""
    y, c = _arrays(correct, confidence)
    wrong = c[y == 0]
    return float(1.0 - wrong.sum() / wrong.size) if wrong.size else 1.0


def underconfidence_reward(correct: Sequence[float], confidence: Sequence[float]) -> float:
    """R_U = 1 - mean (1 - confidence) on the right answers = their mean confidence (1 when none is right)."""
    y, c = _arrays(correct, confidence)
    right = c[y == 1]
    return float(1.0 - (1.0 - right).sum() / right.size) if right.size else 1.0


def harmonic_mean_of_rewards(r_o: float, r_u: float) -> float:
    """HMR: the harmonic mean of R_O and R_U, 0 when both are 0."""
    return 2.0 * r_o * r_u / (r_o + r_u) if r_o + r_u > 0 else 0.0


def brier(correct: Sequence[float], confidence: Sequence[float]) -> float:
    """NOT official. Mean squared difference of confidence and correctness; 0 when nothing is answered."""
    y, c = _arrays(correct, confidence)
    return float(((c - y) ** 2).sum() / y.size) if y.size else 0.0


def ece_bin(confidence_percent: float, bins: int) -> int:
    """Bin of a confidence given on the 0-100 scale: [0, w), [w, 2w), ..., [100 - w, 100] with w = 100/bins.

    Computed on the percent scale so that an integer Confidence lands in its bin without rounding error.
    """
    return min(int(math.floor(confidence_percent * bins / 100.0)), bins - 1)


def expected_calibration_error(correct: Sequence[float], confidence_percent: Sequence[float],
                               bins: int = 10) -> float:
    """NOT official. ECE with `bins` equal-width bins: sum_b |B_b|/n |accuracy_b - mean confidence_b|."""
    y = np.asarray(correct, dtype=float)
    p = np.asarray(confidence_percent, dtype=float)
    if not y.size:
        return 0.0
    index = np.array([ece_bin(v, bins) for v in p], dtype=int)
    total = 0.0
    for b in range(bins):
        members = index == b
        count = int(members.sum())
        if count:
            total += count / y.size * abs(y[members].mean() - (p[members] / 100.0).mean())
    return float(total)


def nugget_precision(relevant: int, returned: int) -> float:
    """NugPrec(t) = relevant nugget lines / nugget lines returned; 0 when the topic has no nugget line."""
    return relevant / returned if returned else 0.0


def mean_nugget_precision(per_topic: Mapping[str, float], topics: Iterable[str]) -> float:
    """MNP over ALL official topics: a topic the run does not answer counts as 0 (spec section 3)."""
    topics = list(topics)
    return sum(per_topic.get(t, 0.0) for t in topics) / len(topics) if topics else 0.0


def confidence_measures(correct: Sequence[float], confidence_percent: Sequence[float],
                        bins: int = 10) -> Dict[str, float]:
    """Every answer-level measure of one run from its answered topics (y_t, Confidence_t on 0-100)."""
    c = [p / 100.0 for p in confidence_percent]
    r_o = overconfidence_reward(correct, c)
    r_u = underconfidence_reward(correct, c)
    acc = accuracy(correct)
    conf = avconf(c)
    return {
        "hmr": harmonic_mean_of_rewards(r_o, r_u),
        "accuracy": acc,
        "r_o": r_o,
        "r_u": r_u,
        "avconf": conf,
        "ob": conf - acc,
        "brier_unofficial": brier(correct, c),
        "ece_unofficial": expected_calibration_error(correct, confidence_percent, bins),
        "n_answered": float(len(c)),
        "n_correct": float(sum(1 for v in correct if v)),
    }
