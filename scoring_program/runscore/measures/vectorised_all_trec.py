"""Whole-run kernels for the rest of trec_eval's all_trec: the set measures, relative_P, utility, Rprec_mult,
num_nonrel_judged_ret, binG, infAP, and the gain measures ndcg, ndcg_rel, Rndcg and G with their default gains.

Why a module of its own: measures/vectorised.py holds the kernels of the common measures and the context
(`_Context`) every kernel reads of one grade array; these 16 were computed topic by topic in Python (measures.trec), which
made `-m all_trec` (and pytrec_eval's `all_trec`) 7 x slower than trec_eval's C. Each kernel here takes the same
_Context and gives the exact path's values bit for bit: the same C operations in the same order, elementwise
(numpy's float64 arithmetic is IEEE, as C's and Python's), every sum over a topic added left to right
(`ordered_segment_sums`), and the gain measures' running sums of integer gains exact in any order. Where the
exact path is not its definition (a relevance level below 1, trec_eval's own gains or an odd parameter), the
measure is left to measures.trec (`has_kernel`).
"""
import math
from typing import List, Sequence

import numpy as np

from .c_numbers import c_div, log2_discounts
from .judged import UNJUDGED
from .segment_sums import ordered_segment_sums, running_segment_sums
from .trec import INFAP_EPSILON

NAMES = ("gm_bpref", "relative_P", "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
         "num_nonrel_judged_ret", "utility", "Rprec_mult", "binG", "infAP", "ndcg", "ndcg_rel", "Rndcg", "G")
_GAIN_MEASURES = ("ndcg", "ndcg_rel", "Rndcg", "G")


def has_kernel(name: str, params: Sequence, level: int) -> bool:
    """Whether `name` with these parameters is computed here (else measures.trec computes it topic by topic)."""
    if name not in NAMES or level < 1:
        return False
    if name in _GAIN_MEASURES:
        return len(params) == 0             # the grades as gains; level=gain pairs go through the exact walk
    if name == "relative_P":
        return all(int(k) >= 1 for k in params)
    if name == "utility":
        return len(params) == 4
    if name == "Rprec_mult":
        return list(params) == sorted(params) and all(0.0 <= m <= 1e6 for m in params)
    return True


def kernel(name: str, c, params, options) -> List[np.ndarray]:
    """The values of one measure for every topic of the context (measures.vectorised._Context; gm_bpref is its
    bpref, computed there)."""
    seg = c.seg
    ret = seg.sizes
    rel, rel_ret = c.num_rel, c.num_rel_ret
    if name == "relative_P":
        return [_divide(c.rel_at(k), np.minimum(k, rel)) for k in params]
    if name == "set_P":
        return [_divide(rel_ret, ret)]
    if name == "set_relative_P":
        return [_divide(rel_ret, np.minimum(ret, rel))]
    if name == "set_recall":
        return [_divide(rel_ret, rel)]
    if name == "set_map":
        found = rel_ret.astype(np.float64)
        both = (ret > 0) & (rel > 0)
        return [_divide(found * found, ret.astype(np.float64) * rel.astype(np.float64), both)]
    if name == "set_F":
        return [_set_f(rel_ret, ret, rel, params[0])]
    if name == "num_nonrel_judged_ret":
        judged_nonrel = (c.grades >= 0) & (c.grades < c.level)
        return [np.bincount(_rank_topic(c)[judged_nonrel], minlength=seg.count).astype(np.float64)]
    if name == "utility":
        n = options.num_docs_in_coll
        return [params[0] * rel_ret + params[1] * (ret - rel_ret) + params[2] * (rel - rel_ret)
                + params[3] * (n + rel_ret - ret - rel)]
    if name == "Rprec_mult":
        return _rprec_mult(c, params)
    if name == "binG":
        total = ordered_sums(1.0 / log2_discounts(int(c.rel_position.max()) + 1 if c.rel_index.shape[0] else 0)[
            c.rel_position + 1 - c.rel_count], c)
        return [_divide(total, rel, rel_ret > 0)]
    if name == "infAP":
        return [_infap(c)]
    if name == "ndcg":
        dcg, idcg = _full_dcg(c), _full_idcg(c)
        return [_divide(dcg, idcg, idcg > 0.0)]
    if name == "ndcg_rel":
        return [_ndcg_rel(c)]
    if name == "Rndcg":
        return [_rndcg(c)]
    if name == "G":
        return [_g(c)]
    raise KeyError(name)


def ordered_sums(values: np.ndarray, c) -> np.ndarray:
    """Per topic, the values of its relevant retrieved documents (one each, in rank order) added left to right."""
    return ordered_segment_sums(values, c.rel_topic, c.seg.count)


def _divide(numerator: np.ndarray, denominator: np.ndarray, where=None) -> np.ndarray:
    """numerator / denominator where `where` (default: the denominator is not 0), else 0.0."""
    where = denominator != 0 if where is None else where
    out = np.zeros(numerator.shape[0], dtype=np.float64)
    np.divide(numerator, denominator, out=out, where=where)
    return out


def _rank_topic(c) -> np.ndarray:
    """The topic of every ranked document."""
    if "rank topic" not in c.memo:
        c.memo["rank topic"] = np.repeat(np.arange(c.seg.count), c.seg.sizes)
    return c.memo["rank topic"]


def _set_f(rel_ret: np.ndarray, ret: np.ndarray, rel: np.ndarray, beta: float) -> np.ndarray:
    """measures.trec._set_f: (beta + 1) P R / (beta P + R), as C divides (c_div where the denominator is 0)."""
    out = np.zeros(rel_ret.shape[0], dtype=np.float64)
    chosen = (ret > 0) & (rel > 0) & (rel_ret > 0)
    p = rel_ret[chosen] / ret[chosen]
    r = rel_ret[chosen] / rel[chosen]
    numerator, denominator = (beta + 1.0) * p * r, beta * p + r
    safe = denominator != 0
    values = np.zeros(p.shape[0], dtype=np.float64)
    np.divide(numerator, denominator, out=values, where=safe)
    for i in np.flatnonzero(~safe).tolist():          # x / 0 as C gives it (inf, -nan)
        values[i] = c_div(float(numerator[i]), float(denominator[i]))
    out[chosen] = values
    return out


def _rprec_mult(c, multiples) -> List[np.ndarray]:
    """rel(cut) / cut with cut = (long)(m R + 0.9), num_rel_ret / cut past the ranking, 0 for a cut below 1."""
    rel = c.num_rel
    out = []
    for m in multiples:
        cut = (m * rel.astype(np.float64) + 0.9).astype(np.int64)       # (long) truncates toward zero
        positive = cut > 0
        found = c.rel_at(np.maximum(cut, 0))
        out.append(_divide(found, cut, positive))
    return out


def _infap(c) -> np.ndarray:
    """measures.trec._infap: at each relevant document of 0-based rank j (j > 0), 1/(j+1) + (j/(j+1)) *
    ((rel-1 + nonrel + unjudged)/j) * ((rel-1 + eps)/(rel-1 + nonrel + 2 eps)) with the counts above it
    (documents outside the pool skipped), 1 at rank 0; their sum over R (or the sum when R = 0)."""
    grades = c.grades
    before = np.zeros(grades.shape[0] + 1, dtype=np.int64)
    first = c.seg.offsets[c.rel_topic]
    np.cumsum((grades >= 0) & (grades < c.level), out=before[1:])
    nonrel = before[c.rel_index] - before[first]
    np.cumsum(grades == UNJUDGED, out=before[1:])
    unjudged = before[c.rel_index] - before[first]
    found = c.rel_count
    j = c.rel_position.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        values = (1.0 / (j + 1.0) + (j / (j + 1.0)) * ((found - 1 + nonrel + unjudged) / j)
                  * ((found - 1 + INFAP_EPSILON) / (found - 1 + nonrel + 2 * INFAP_EPSILON)))
    values[c.rel_position == 0] = 1.0
    total = ordered_sums(values, c)
    return np.where(c.num_rel > 0, _divide(total, c.num_rel), total)


# ------------------------------------------------------------------------------- gain measures ---
# With the default gains (gain = grade, ideal ranking = the positive grades of the qrels, highest first) the
# walks of measures.trec (_ndcg, _ndcg_rel, _rndcg, _g) reduce to running sums at chosen ranks.

def _dcg(c):
    """(topic, 0-based rank, running DCG) of every retrieved document with a positive grade."""
    if "dcg" not in c.memo:
        positive = np.flatnonzero(c.grades > 0)
        topic = c.seg.topic_of(positive)
        position = c.seg.position_of(positive, topic)
        gain = c.grades[positive].astype(np.float64) / log2_discounts(
            int(position.max()) + 1 if position.shape[0] else 0)[position]
        c.memo["dcg"] = (topic, position, running_segment_sums(gain, topic, c.seg.count))
    return c.memo["dcg"]


def _idcg(c):
    """(topic, 0-based rank, grade, running ideal DCG) of every position of each topic's ideal ranking."""
    key = ("idcg",)
    if key not in c.memo:                   # (this evaluation's: arrays as long as the positive judgements)
        ideal, topic, position = c.ideal_gains()
        grade = np.rint(ideal * log2_discounts(int(position.max()) + 1 if position.shape[0] else 0)[position])
        c.memo[key] = (topic, position, grade, running_segment_sums(ideal, topic, c.seg.count),
                       np.bincount(topic, minlength=c.seg.count))
    return c.memo[key]


def _sum_before(running: np.ndarray, segment: np.ndarray, position: np.ndarray, topic: np.ndarray,
                k: np.ndarray) -> np.ndarray:
    """For each query (topic, k): the running sum of that topic's entries at positions below k (0.0 if none)."""
    out = np.zeros(topic.shape[0], dtype=np.float64)
    if running.shape[0] == 0 or topic.shape[0] == 0:
        return out
    width = np.int64(max(int(position.max()), 0) + 2)
    key = segment.astype(np.int64) * width + position
    last = np.searchsorted(key, topic.astype(np.int64) * width + np.clip(k, 0, width - 1), side="left") - 1
    valid = last >= 0
    valid[valid] &= segment[last[valid]] == topic[valid]
    out[valid] = running[last[valid]]
    return out


def _full_dcg(c) -> np.ndarray:
    topic, position, running = _dcg(c)
    every = np.arange(c.seg.count)
    return _sum_before(running, topic, position, every, c.seg.sizes)


def _full_idcg(c) -> np.ndarray:
    topic, position, _grade, running, count = _idcg(c)
    every = np.arange(c.seg.count)
    return _sum_before(running, topic, position, every, count)


def _ndcg_rel(c) -> np.ndarray:
    """measures.trec._ndcg_rel: at each retrieved document of positive gain, DCG / ideal DCG so far (the ideal
    stops growing after its last positive grade); plus (P - found) x the final DCG / the final ideal DCG for
    the P positive documents of the qrels not retrieved; over P."""
    topic, position, running = _dcg(c)
    ideal_topic, ideal_position, _grade, ideal_running, positives = _idcg(c)
    idcg = _sum_before(ideal_running, ideal_topic, ideal_position, topic, np.minimum(position + 1, positives[topic]))
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = running / idcg
    count = c.seg.count
    total = ordered_segment_sums(ratio, topic, count)
    found = np.bincount(topic, minlength=count)
    full_idcg = _full_idcg(c)
    has = positives > 0
    total[has] += (positives[has] - found[has]) * _full_dcg(c)[has] / full_idcg[has]
    return _divide(total, positives, has & (total > 0.0))


def _rndcg(c) -> np.ndarray:
    """measures.trec._rndcg: DCG / ideal DCG at each rank i where the ideal ranking's grade changes (1 <= i <= P,
    the grade after the last positive one being 0), with the DCG of the documents above min(i, num_ret); then
    once more at the end of a ranking longer than P + 1; their mean. 0 when R = 0."""
    ideal_topic, ideal_position, grade, ideal_running, positives = _idcg(c)
    count = c.seg.count
    change = np.zeros(grade.shape[0], dtype=bool)
    change[1:] = (grade[1:] != grade[:-1]) & (ideal_topic[1:] == ideal_topic[:-1])
    has = np.flatnonzero(positives > 0)
    longer = has[c.seg.sizes[has] > positives[has] + 1]
    event_topic = np.concatenate([ideal_topic[change], has, longer])
    event_rank = np.concatenate([ideal_position[change], positives[has], positives[longer] + 1])
    order = np.lexsort((event_rank, event_topic))
    event_topic, event_rank = event_topic[order], event_rank[order]
    at_end = event_rank > positives[event_topic]       # the one after the ranking
    topic, position, running = _dcg(c)
    dcg = _sum_before(running, topic, position, event_topic,
                      np.where(at_end, c.seg.sizes[event_topic], np.minimum(event_rank, c.seg.sizes[event_topic])))
    idcg = _sum_before(ideal_running, ideal_topic, ideal_position, event_topic,
                       np.minimum(event_rank, positives[event_topic]))
    total = ordered_segment_sums(dcg / idcg, event_topic, count)
    changes = np.bincount(event_topic, minlength=count)
    return _divide(total, changes, (c.num_rel > 0) & (changes > 0))


def _g(c) -> np.ndarray:
    """measures.trec._g with integer gains: at rank i, gain / log2(2 + cost - gains so far), cost the ideal
    grades so far (1 a rank past the last positive one); over the sum of the ideal grades. Every running sum
    is a sum of integers, exact in any order."""
    ideal_topic, _position, grade, _running, positives = _idcg(c)
    count = c.seg.count
    rank_topic = _rank_topic(c)
    offsets = c.seg.offsets
    rank = np.arange(rank_topic.shape[0]) - offsets[rank_topic]
    gains = np.maximum(c.grades, 0).astype(np.float64)
    ideal_first = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(positives, out=ideal_first[1:])
    within = rank < positives[rank_topic]
    cost = np.ones(rank.shape[0], dtype=np.float64)
    cost[within] = grade[ideal_first[rank_topic[within]] + rank[within]]
    cost_so_far = np.cumsum(cost)
    gain_so_far = np.cumsum(gains)
    start = offsets[:-1][rank_topic]
    base_cost = np.concatenate([[0.0], cost_so_far])[start]
    base_gain = np.concatenate([[0.0], gain_so_far])[start]
    nonzero = np.flatnonzero(gains != 0)
    argument = (2 + (cost_so_far[nonzero] - base_cost[nonzero])) - (gain_so_far[nonzero] - base_gain[nonzero])
    values = gains[nonzero] / _log2_of_integers(argument)
    result = ordered_segment_sums(values, rank_topic[nonzero], count)
    ideal_sum = np.bincount(ideal_topic, weights=grade, minlength=count)
    return _divide(result, ideal_sum, ideal_sum > 0.0)


def _log2_of_integers(values: np.ndarray) -> np.ndarray:
    """math.log2 (libm's, as C's log2) of integer-valued floats >= 2, each distinct value computed once."""
    if values.shape[0] == 0:
        return values
    if float(values.max()) < 65536:
        return log2_discounts(int(values.max()) - 1)[values.astype(np.int64) - 2]
    distinct, where = np.unique(values, return_inverse=True)
    return np.array([math.log2(v) for v in distinct.tolist()], dtype=np.float64)[where]
