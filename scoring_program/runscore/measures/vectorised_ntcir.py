"""NTCIREVAL measures over a whole run at once: P@l, Hit@l, MSnDCG@l and the original nDCG@l of every topic.

Why: temporalia-tir and r2c2-pr rank and label their runs with the shared columnar pipeline (rank_lines,
label_lines and evaluate_records in ranking/); this module measures that one grade array (all topics in rank order,
topic after topic) instead of building a GradedRanking per topic. The values are measures.ntcireval's bit for
bit, not just to rounding:

- the same definitions: a cutoff l acts at l' = min(l, L), L = max(R, syslen), with the lists padded by zeros
  to L; padding and L0 documents add gain 0, so DCG@l is the sum over the retrieved documents of level >= 1 at
  ranks <= l, the ideal DCG the sum over the first min(l, R) entries of the ideal list (the qrels' judged
  levels, highest first), and count(l') the relevant documents at ranks <= l (Prec@l still divides by l);
- the same floating-point operations: gains from the `-g` table, the discount tables computed with the same
  expressions as ntcireval (1/log2(r + 1); 1/log_b(r) with 1 for r = 1 and r <= b; libm's log2 and log,
  whose bits do not depend on the CPU as numpy's do), one product per rank, and
  every sum added left to right (`ordered_segment_sums`, the order of ntcireval's `_discounted_sum`; adding a
  zero term leaves a sum unchanged, so leaving the zero terms out changes nothing).

A topic without a document judged L1 or above (R = 0) is one NTCIREVAL refuses ("no rel doc"): its values are 0
here and `num_rel` says which topics they are, so each task keeps its own rule for them.
"""
import math
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence

import numpy as np

from .c_numbers import log2_discounts, log_table
from .names import MeasureName, parse_name
from .ntcireval import check_gains
from .segment_sums import ordered_segment_sums
from .vectorised import Segments

FAMILIES = ("P", "Hit", "MSnDCG", "nDCG")      # the families with a kernel here


@dataclass
class NtcirValues:
    """values: canonical measure name -> one value per topic (in the order of the topics asked for);
    num_rel: R of each topic (0 = NTCIREVAL cannot score it; its values are 0)."""

    values: Dict[str, np.ndarray]
    num_rel: np.ndarray

    def per_topic(self, topics: Sequence[str], keys: Optional[Dict[str, str]] = None,
                  scorable_only: bool = False) -> Dict[str, Dict[str, float]]:
        """{topic: {key: value}} with Python floats; keys maps canonical names to output keys (default: the
        names themselves); scorable_only leaves out the topics with R = 0."""
        names = list(self.values)
        keys = keys or {name: name for name in names}
        columns = [self.values[name].tolist() for name in names]
        out: Dict[str, Dict[str, float]] = {}
        for k, topic in enumerate(topics):
            if scorable_only and not self.num_rel[k]:
                continue
            out[topic] = {keys[name]: columns[i][k] for i, name in enumerate(names)}
        return out


def supported(names: Sequence) -> bool:
    """Can every one of these measures be computed here (a family above, with a cutoff)?"""
    for name in names:
        parsed = parse_name(name) if isinstance(name, str) else name
        if parsed.family not in FAMILIES or parsed.cutoff is None:
            return False
    return True


def ntcir_values(grades: np.ndarray, offsets: np.ndarray, judged: List[np.ndarray], gains: Sequence[float],
                 names: Sequence) -> NtcirValues:
    """The measures of every topic from its grades in rank order (label_lines: NOT_IN_POOL and UNJUDGED count
    as L0, like an unjudged document in NTCIREVAL) and its judged levels from the qrels.

    ValueError, as GradedRanking raises it, for bad gains or a level outside L0..Lk (k = number of gains);
    KeyError for a measure without a kernel here (see `supported`)."""
    check_gains(gains)
    top = len(gains)
    seg = Segments(offsets)
    count = seg.count
    gain_of = np.array((0.0,) + tuple(float(g) for g in gains))

    sizes = np.array([j.shape[0] for j in judged], dtype=np.int64)
    all_judged = np.concatenate(judged).astype(np.int64) if judged else np.zeros(0, dtype=np.int64)
    if all_judged.size and (all_judged.min() < 0 or all_judged.max() > top):
        raise ValueError("qrels has a level outside L0..L%d (gains declare %d levels)" % (top, top))
    if grades.size and grades.max() > top:
        raise ValueError("system list has a level outside L0..L%d (gains declare %d levels)" % (top, top))
    judged_topic = np.repeat(np.arange(count), sizes)
    level_counts = np.bincount(judged_topic * (top + 1) + all_judged,
                               minlength=count * (top + 1)).reshape(count, top + 1)
    num_rel = level_counts[:, 1:].sum(axis=1)

    positive = np.flatnonzero(grades > 0)                  # retrieved documents of level L1 or above
    topic = seg.topic_of(positive)
    position = seg.position_of(positive, topic)            # rank - 1
    gain = gain_of[grades[positive]]

    parsed = [parse_name(n) if isinstance(n, str) else n for n in names]
    for measure in parsed:
        if measure.family not in FAMILIES or measure.cutoff is None:
            raise KeyError("no whole-run kernel for %s" % str(measure))
    depth = max([m.cutoff for m in parsed if m.family in ("MSnDCG", "nDCG")], default=0)
    ideal_gain, ideal_topic, ideal_position = _ideal_lists(level_counts, gain_of, depth)

    scorable = num_rel > 0
    values: Dict[str, np.ndarray] = {}
    for measure in parsed:
        k = measure.cutoff
        if measure.family in ("P", "Hit"):
            hits = np.bincount(topic[position < k], minlength=count)
            value = hits / k if measure.family == "P" else (hits > 0).astype(np.float64)
        else:
            discount = _discounts(measure, k)
            keep = position < k
            dcg = ordered_segment_sums(gain[keep] * discount[position[keep]], topic[keep], count)
            keep = ideal_position < k
            ideal = ordered_segment_sums(ideal_gain[keep] * discount[ideal_position[keep]], ideal_topic[keep],
                                         count)
            value = np.where(ideal > 0, dcg / np.where(ideal > 0, ideal, 1.0), 0.0)
        values[str(measure)] = np.where(scorable, value, 0.0)
    return NtcirValues(values, num_rel)


def _ideal_lists(level_counts: np.ndarray, gain_of: np.ndarray, depth: int):
    """The first `depth` entries of every topic's ideal list (gains of its judged relevant documents, highest
    level first): gains, topic numbers and 0-based ranks, topic after topic."""
    count, width = level_counts.shape
    levels_down = np.arange(width - 1, 0, -1)                       # Lk ... L1
    repeats = np.minimum(level_counts[:, width - 1:0:-1], depth).ravel()
    level = np.repeat(np.tile(levels_down, count), repeats)
    topic = np.repeat(np.repeat(np.arange(count), width - 1), repeats)
    first = np.searchsorted(topic, np.arange(count))
    position = np.arange(topic.shape[0]) - first[topic]
    keep = position < depth
    return gain_of[level[keep]], topic[keep], position[keep]


def _discounts(measure: MeasureName, depth: int) -> np.ndarray:
    """1/discount at ranks 1..depth, by the expressions of ntcireval.msndcg and ntcireval._log_discount."""
    ranks = np.arange(1, depth + 1, dtype=np.float64)
    if measure.family == "MSnDCG":
        return 1.0 / log2_discounts(depth)
    logb = measure.param("logb")
    base = math.e if logb == 0 else logb
    discount = log_table(depth) / math.log(base)
    discount[(ranks <= base) | (ranks == 1)] = 1.0
    return 1.0 / discount
