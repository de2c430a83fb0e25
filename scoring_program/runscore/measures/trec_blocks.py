"""Building blocks that several trec_eval measures share, as functions of a JudgedTopic: rel(k), num_rel_ret as
trec_eval counts it, recall points to cutoffs, interpolated precision (and trec_eval's own loops where they are
not the definition), AP, gain levels sorted as glibc's qsort sorts them.

Why a module of its own: measures/trec.py holds one small function per measure, and measures/vectorised.py's
kernels reuse the same rules (recall_point_cutoff) so the two paths agree bit for bit.
"""
import math
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from .c_numbers import c_atol, c_div, c_int, c_long, c_lround, ordered_sum
from .judged import JudgedTopic


def rel_at(topic: JudgedTopic, k: int) -> int:
    """rel(k): relevant documents among ranks 1..min(k, num_ret)."""
    return int(np.count_nonzero(topic.relevant[:k]))


def count_rel_ret(topic: JudgedTopic) -> int:
    """num_rel_ret as trec_eval's form_res_rels counts it: judged documents (grade >= 0) at the level or above
    (with -l 0 or below, a document outside the pool or unjudged is not counted here, though measures that test
    `grade >= level` rank by rank do count it)."""
    rels = topic.rels
    if topic.level > 0:
        return int(np.count_nonzero(rels >= topic.level))
    return int(np.count_nonzero(rels >= 0))


def rel_level_counts(topic: JudgedTopic) -> np.ndarray:
    """Documents of the qrels at each grade 0..max (negative grades are not counted, as in trec_eval)."""
    judged = topic.judged[topic.judged >= 0]
    if judged.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    return np.bincount(judged)


def recall_point_cutoff(p: float, num_rel: int, rule: str) -> int:
    """Number of relevant documents that recall p stands for, under one of INTERP_RULES."""
    if rule == "v9":
        return c_long(p * num_rel + 0.9)
    if rule == "v10":
        return c_lround(p * num_rel)
    if rule == "ceil":
        # trec_eval 7.2: (R*i + 9) / 10 in integers, with i = 10p recovered exactly.
        tenths = int(round(p * 10))
        if abs(p * 10 - tenths) < 1e-9:
            return (num_rel * tenths + 9) // 10
        return int(math.ceil(p * num_rel - 1e-12))
    raise ValueError("unknown interpolation rule %r" % rule)


def interpolated_precision(topic: JudgedTopic, points: Sequence[float], rule: str,
                           empty_is_nan: bool = False) -> List[float]:
    """Max precision at or after the rank of the c_p-th retrieved relevant document, for each recall point p."""
    if topic.num_ret == 0 and not empty_is_nan:
        return [0.0] * len(points)
    cuts = [recall_point_cutoff(p, topic.num_rel, rule) for p in points]
    if topic.num_ret == 0 or topic.level <= 0 or list(points) != sorted(points) or cuts != sorted(cuts):
        # (11pt_avg keeps its parameters' order; a huge recall point's cutoff wraps to LONG_MIN as in C)
        return c_interpolated_precision(topic, points, rule)
    relevant = topic.relevant
    num_rel_ret = int(np.count_nonzero(relevant))
    if num_rel_ret == 0:
        return [0.0] * len(points)
    ranks = np.arange(1, topic.num_ret + 1)
    cum = np.cumsum(relevant)
    precision = cum / ranks
    # Max precision from each rank to the end; only ranks up to the last relevant one matter. (count / rank is
    # +0.0 or positive, never -0.0 or NaN, so numpy's maximum has one answer under every SIMD loop.)
    last = int(np.flatnonzero(relevant)[-1]) + 1
    tail_max = np.maximum.accumulate(precision[:last][::-1])[::-1]
    rel_ranks = np.flatnonzero(relevant)          # 0-based rank of the 1st, 2nd, ... relevant document
    out = []
    for c in cuts:
        if c > num_rel_ret:
            out.append(0.0)
        elif c <= 0:
            out.append(float(tail_max[rel_ranks[0]]))
        else:
            out.append(float(tail_max[rel_ranks[c - 1]]))
    return out


def c_interpolated_precision(topic: JudgedTopic, points: Sequence[float], rule: str) -> List[float]:
    """trec_eval's loop itself (m_iprec_at_recall.c), for the cases where it is not the definition: an empty
    ranking starts from precision 0/0 (-nan on x86) and gives it to the recall points whose cutoff is 0; with
    -l 0 or below, num_rel_ret counts judged documents only while the loop tests `grade >= level` rank by rank
    (so a document outside the pool counts there with -l -1)."""
    rels = topic.rels.tolist()
    level = topic.level
    num_ret, num_rel_ret = len(rels), count_rel_ret(topic)
    cutoffs = [recall_point_cutoff(p, topic.num_rel, rule) for p in points]
    values = [0.0] * len(points)
    current = len(points) - 1
    while current >= 0 and cutoffs[current] > num_rel_ret:
        current -= 1
    int_precis = c_div(float(num_rel_ret), float(num_ret))
    rel_so_far = num_rel_ret
    i = num_ret
    while i > 0 and rel_so_far > 0:
        precis = rel_so_far / i
        if int_precis < precis:
            int_precis = precis
        if rels[i - 1] >= level:
            while current >= 0 and rel_so_far == cutoffs[current]:
                values[current] = int_precis
                current -= 1
            rel_so_far -= 1
        i -= 1
    while current >= 0:
        values[current] = int_precis
        current -= 1
    return values


def c_rprec_mult(t: JudgedTopic, params) -> List[float]:
    """trec_eval's Rprec_mult loop itself (m_Rprec_mult.c), for -l 0 or below (see c_interpolated_precision)."""
    rels = t.rels.tolist()
    num_ret, num_rel_ret = len(rels), count_rel_ret(t)
    cutoffs = [c_long(m * t.num_rel + 0.9) for m in params]
    values = [0.0] * len(cutoffs)
    current = len(cutoffs) - 1
    while current >= 0 and cutoffs[current] > num_ret:
        values[current] = c_div(float(num_rel_ret), float(cutoffs[current]))
        current -= 1
    rel_so_far = num_rel_ret
    i = num_ret
    while i > 0 and rel_so_far > 0:
        precis = rel_so_far / i
        while current >= 0 and i == cutoffs[current]:
            values[current] = precis
            current -= 1
        if rels[i - 1] >= t.level:
            rel_so_far -= 1
        i -= 1
    return values


def average_precision(topic: JudgedTopic, cutoff: Optional[int] = None) -> float:
    """AP over the first `cutoff` ranks (all when None), divided by R; 0 when R = 0."""
    relevant = topic.relevant if cutoff is None else topic.relevant[:cutoff]
    rel_ranks = np.flatnonzero(relevant) + 1
    if rel_ranks.shape[0] == 0:
        return 0.0
    precisions = np.arange(1, rel_ranks.shape[0] + 1) / rel_ranks
    # As m_map.c: with -l 0 or below a document outside the pool counts rank by rank but not in R (x/0 = inf).
    return c_div(ordered_sum(precisions), float(topic.num_rel))


def glibc_msort(items: list, compare) -> list:
    """qsort of glibc <= 2.36 (top-down merge sort, stable): reproduces trec_eval's order of gain levels,
    whose comparator truncates gain differences to int and so is not a total order."""
    if len(items) <= 1:
        return list(items)
    half = len(items) // 2
    left, right = glibc_msort(items[:half], compare), glibc_msort(items[half:], compare)
    out = []
    i = j = 0
    while i < len(left) and j < len(right):
        if compare(left[i], right[j]) <= 0:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out + left[i:] + right[j:]


def gain_levels(topic: JudgedTopic, pairs: Sequence = ()) -> List[List]:
    """[level, number of qrels documents at it, gain] for every grade, sorted by gain as trec_eval sorts them.

    Gains default to the grade; `pairs` ((level text, gain), ...) from `-m ndcg.1=3,2=9` override them.
    """
    levels: List[List] = []
    for key, gain in pairs:
        levels.append([c_atol(key), 0, float(gain)])
    first_entry: Dict[int, List] = {}           # the first entry of each level, as a linear search finds it
    for entry in levels:
        first_entry.setdefault(entry[0], entry)
    counts = rel_level_counts(topic)
    for grade, count in enumerate(counts.tolist()):
        entry = first_entry.get(grade)
        if entry is not None:
            entry[1] = count
        else:
            levels.append([grade, count, float(grade)])
    return glibc_msort(levels, lambda a, b: c_int(a[2] - b[2]))     # comp_rel_gain's (int) difference


def gain_of(levels: List[List]) -> Dict[int, float]:
    table: Dict[int, float] = {}
    for level, _count, gain in levels:
        table.setdefault(level, gain)
    return table


def result_gains(topic: JudgedTopic, levels: List[List]) -> List[float]:
    table = gain_of(levels)
    return [table.get(g, 0.0) for g in topic.rels.tolist()]


def levels_and_gains(topic: JudgedTopic, pairs: Sequence = ()) -> Tuple[List[List], List[float]]:
    """(gain_levels, result_gains) of a topic, made once for the four gain measures (G, ndcg, ndcg_rel, Rndcg) of
    one topic and kept with what they were made from (read them, never change them)."""
    key = tuple(pairs)
    known = topic._known.get("gains")
    if known is None or known[0] is not topic.rels or known[1] is not topic.judged or known[2] != key:
        levels = gain_levels(topic, pairs)
        known = topic._known["gains"] = (topic.rels, topic.judged, key, levels, result_gains(topic, levels))
    return known[3], known[4]
