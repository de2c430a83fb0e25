"""Whole-run kernels: measure every topic of a run at once from one array of grades in rank order.

Why: the exact path builds one JudgedTopic per topic and calls Python per measure, which is fine for hundreds of
topics and far too slow for MS MARCO-sized runs. Here all topics live in one grade array in rank order, topic
after topic (`offsets`), and each measure is a few segment operations over it (bincount per topic, positions
within a topic, ...). The ranking wing makes that array (ranking/rank_columns.py ranks the lines by the exact
path's rule and truncation, ranking/label_columns.py joins them with the qrels, ranking/measure_columns.py
wires the three); this module reads grades only. Every sum is taken in the same left-to-right order as
measures.c_numbers.ordered_sum (`ordered_segment_sums`), so values agree bit for bit, not just to rounding. A
measure without a kernel here is computed per topic by measures.trec itself on the same grade arrays.

One room: `_Context` and the kernels of the common measures (`_kernel`, `_bpref`, `_ndcg_cut`, `_iprec`) share
one memo of per-level arrays and `measure_grades` is their only caller; the rest of all_trec is
vectorised_all_trec.py, which reads the same context.
"""
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from .c_numbers import c_div, log2_discounts
from .judged import JudgedTopic
from .trec import REGISTRY, TrecOptions
from .trec_blocks import recall_point_cutoff
from .segment_sums import _suffix_max, ordered_segment_sums, running_segment_sums
from . import vectorised_all_trec

# Measures with a kernel below (and in vectorised_all_trec, for the parameters and levels its has_kernel
# takes); any other trec_eval measure goes through measures.trec per topic.
KERNELS = ("num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
           "iprec_at_recall", "11pt_avg", "P", "recall", "ndcg_cut", "map_cut", "success")


# ------------------------------------------------------------------------------------------- measures ---

class Segments:
    """Where each topic's documents are in the grade array; topic and rank of chosen documents (no array as
    long as the run: a few of them would double the memory of a big run)."""

    def __init__(self, offsets: np.ndarray):
        self.offsets = offsets
        self.count = offsets.shape[0] - 1
        self.sizes = np.diff(offsets)

    def topic_of(self, index: np.ndarray) -> np.ndarray:
        """Topic number of each document index (indices in increasing order give non-decreasing topics)."""
        return np.searchsorted(self.offsets, index, side="right") - 1

    def position_of(self, index: np.ndarray, topic: np.ndarray) -> np.ndarray:
        """0-based rank of each document within its topic."""
        return index - self.offsets[topic]


def sums_before(running: np.ndarray, segment: np.ndarray, position: np.ndarray, count: int,
                cutoffs: Sequence[int]) -> List[np.ndarray]:
    """Per segment and cutoff k, the running sum of its values at positions < k (0 when it has none): the value
    at the last such element. segment and position must be non-decreasing together (position within segment)."""
    out = []
    if running.shape[0] == 0:
        return [np.zeros(count) for _ in cutoffs]
    width = np.int64(int(position.max()) + 2)
    key = segment.astype(np.int64) * width + position.astype(np.int64)
    topics = np.arange(count, dtype=np.int64)
    for k in cutoffs:
        last = np.searchsorted(key, topics * width + min(int(k), int(width) - 1), side="left") - 1
        valid = last >= 0
        valid[valid] &= segment[last[valid]] == topics[valid]
        totals = np.zeros(count, dtype=np.float64)
        totals[valid] = running[last[valid]]
        out.append(totals)
    return out


def _divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator, 0 where the denominator is 0."""
    safe = np.where(denominator == 0, 1, denominator)
    return np.where(denominator == 0, 0.0, numerator / safe)


class QrelsSide:
    """What the kernels take from the qrels of a list of topics alone, the same for every run: each topic's
    judged grades, all of them one after the other, and what is computed from them (R, the ideal nDCG sums, ...)
    in `memo`. Made once per evaluation, or once per evaluator and list of topics where the qrels object keeps
    them (inmemory.MemoryQrels.sides: a training loop evaluates the same topics again and again)."""

    def __init__(self, judged: List[np.ndarray]):
        self.judged = judged
        sizes = np.fromiter(map(len, judged), dtype=np.int64, count=len(judged))
        self.grades = np.concatenate(judged) if judged else np.zeros(0, dtype=np.int64)
        self.topic = np.repeat(np.arange(len(judged)), sizes)
        self.memo: Dict[tuple, object] = {}

    @classmethod
    def of(cls, qrels, topics: Sequence[str]) -> "QrelsSide":
        """The side of these topics, kept in `qrels.sides` (the last list of topics only) when it has one."""
        kept = getattr(qrels, "sides", None)
        if kept is None:
            return cls([qrels.judged_of(t) for t in topics])
        key = tuple(topics)
        side = kept.get(key)
        if side is None:
            side = cls([qrels.judged_of(t) for t in topics])
            kept.clear()
            kept[key] = side
        return side

    def num_rel(self, level: int) -> np.ndarray:
        key = ("num_rel", level)
        if key not in self.memo:
            self.memo[key] = np.bincount(self.topic[self.grades >= level], minlength=len(self.judged)).astype(np.int64)
        return self.memo[key]


class _Context:
    """What several kernels share for one level: relevant documents, their ranks, R per topic."""

    def __init__(self, grades: np.ndarray, segments: Segments, side: QrelsSide, level: int):
        self.grades = grades
        self.seg = segments
        self.level = level
        self.relevant = grades >= level
        self.rel_index = np.flatnonzero(self.relevant)
        self.rel_topic = segments.topic_of(self.rel_index)
        self.rel_position = segments.position_of(self.rel_index, self.rel_topic)
        first = np.searchsorted(self.rel_topic, np.arange(segments.count))
        self.rel_count = np.arange(self.rel_index.shape[0]) - first[self.rel_topic] + 1   # count(r) at r
        self.side = side
        self.judged = side.judged
        self.num_rel = side.num_rel(level)
        self.num_rel_ret = np.bincount(self.rel_topic, minlength=segments.count)
        self.memo: Dict[tuple, List[np.ndarray]] = {}

    def all_judged(self) -> Tuple[np.ndarray, np.ndarray]:
        """(every topic's judged grades one after the other, the topic of each)."""
        return self.side.grades, self.side.topic

    def rel_at(self, k) -> np.ndarray:
        """rel(k) per topic; k may be a number or one number per topic."""
        limit = k if np.isscalar(k) else np.asarray(k)[self.rel_topic]
        return np.bincount(self.rel_topic[self.rel_position < limit], minlength=self.seg.count)

    def precision_sums(self, cutoff: Optional[int] = None) -> np.ndarray:
        keep = slice(None) if cutoff is None else self.rel_position < cutoff
        values = self.rel_count[keep] / (self.rel_position[keep] + 1)
        return ordered_segment_sums(values, self.rel_topic[keep], self.seg.count)

    def ideal_gains(self) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The ideal ranking of every topic at once: its positive grades, highest first, over log2(rank + 1); their
        topics and ranks (0-based). No loop over topics: a run of many small topics would pay a few numpy calls
        each. Kept for this evaluation only (arrays as long as the qrels' positive judgements; what an evaluator
        keeps for its next runs are the sums made from them)."""
        key = ("ideal gains",)
        if key not in self.memo:
            judged, judged_topic = self.all_judged()
            chosen = judged > 0
            best, ideal_topic = judged[chosen], judged_topic[chosen]
            by_topic = np.lexsort((-best, ideal_topic))
            best, ideal_topic = best[by_topic].astype(np.float64), ideal_topic[by_topic]
            del chosen, by_topic
            first = np.searchsorted(ideal_topic, np.arange(self.seg.count))
            ideal_position = np.arange(best.shape[0]) - first[ideal_topic]
            discounts = log2_discounts(int(ideal_position.max()) + 1 if ideal_position.shape[0] else 0)
            self.memo[key] = (best / discounts[ideal_position], ideal_topic, ideal_position)
        return self.memo[key]


def _kernel(name: str, c: _Context, params, options: TrecOptions) -> List[np.ndarray]:
    seg = c.seg
    if name == "num_ret":
        return [seg.sizes.astype(np.float64)]
    if name == "num_rel":
        return [c.num_rel.astype(np.float64)]
    if name == "num_rel_ret":
        return [c.num_rel_ret.astype(np.float64)]
    if name in ("map", "gm_map"):
        return [_divide(c.precision_sums(), c.num_rel)]
    if name == "map_cut":
        return [_divide(c.precision_sums(k), c.num_rel) for k in params]
    if name == "Rprec":
        return [_divide(c.rel_at(c.num_rel), c.num_rel)]
    if name == "recip_rank":
        first = np.searchsorted(c.rel_topic, np.arange(seg.count))
        has = c.num_rel_ret > 0
        out = np.zeros(seg.count)
        out[has] = 1.0 / (c.rel_position[first[has]] + 1)
        return [out]
    if name == "P":
        return [c.rel_at(k) / k for k in params]
    if name == "recall":
        return [_divide(c.rel_at(k), c.num_rel) for k in params]
    if name == "success":
        return [(c.rel_at(k) > 0).astype(np.float64) for k in params]
    if name in ("bpref", "gm_bpref"):
        return [_bpref(c)]
    if name == "ndcg_cut":
        return _ndcg_cut(c, params)
    if name in ("iprec_at_recall", "11pt_avg"):
        if name == "11pt_avg" and len(params) == 0:
            raise ValueError("11pt_avg needs at least one recall point")
        key = ("iprec", tuple(params), options.interp_cutoff, options.empty_is_nan)
        if key not in c.memo:           # iprec_at_recall and 11pt_avg share the values
            c.memo[key] = _iprec(c, params, options.interp_cutoff, options.empty_is_nan)
        values = c.memo[key]
        if name == "iprec_at_recall":
            return values
        # each topic's values added from the last recall point to the first, left to right (ordered_sum of the
        # reversed row: a cumulative sum along the row, + 0.0 as its start from 0.0)
        table = np.array(values).T[:, ::-1] if values else np.zeros((seg.count, 0))
        out = np.zeros(seg.count)
        if table.shape[1]:
            summed = (np.cumsum(table, axis=1)[:, -1] + 0.0) / len(params)
            out = summed if options.empty_is_nan else np.where(seg.sizes > 0, summed, 0.0)
        return [out]
    return vectorised_all_trec.kernel(name, c, params, options)


def _bpref(c: _Context) -> np.ndarray:
    """bpref as measures.trec.bpref: each relevant judged document scores 1 - min(n, R) / min(R, N), n the
    judged non-relevant documents ranked above it, N those in the qrels; unjudged documents are skipped."""
    grades, seg = c.grades, c.seg
    judged = np.flatnonzero(grades >= 0)
    judged_topic = seg.topic_of(judged)
    is_nonrel = grades[judged] < c.level
    running = np.zeros(judged.shape[0] + 1, dtype=np.int64)
    np.cumsum(is_nonrel, out=running[1:])
    first = np.searchsorted(judged_topic, np.arange(seg.count))
    rel_slot = np.flatnonzero(~is_nonrel)
    rel_topic = judged_topic[rel_slot]
    nonrel_so_far = running[rel_slot] - running[first[rel_topic]]
    key = ("judged non-relevant", c.level)
    if key not in c.side.memo:
        all_judged, all_topic = c.all_judged()
        c.side.memo[key] = np.bincount(all_topic[(all_judged >= 0) & (all_judged < c.level)], minlength=seg.count)
    qrels_nonrel = c.side.memo[key]
    denominator = np.minimum(c.num_rel, qrels_nonrel)[rel_topic]
    capped = np.minimum(nonrel_so_far, c.num_rel[rel_topic])
    safe = np.where(denominator == 0, 1, denominator)
    values = np.where(nonrel_so_far > 0, 1.0 - capped / safe, 1.0)
    totals = ordered_segment_sums(values, rel_topic, seg.count)
    return _divide(totals, c.num_rel)


def _ndcg_cut(c: _Context, cutoffs) -> List[np.ndarray]:
    grades, seg = c.grades, c.seg
    positive = np.flatnonzero(grades > 0)
    topic = seg.topic_of(positive)
    position = seg.position_of(positive, topic)
    gain = grades[positive].astype(np.float64) / log2_discounts(int(position.max()) + 1 if position.shape[0]
                                                                  else 0)[position]
    out = []
    dcgs = sums_before(running_segment_sums(gain, topic, seg.count), topic, position, seg.count, cutoffs)
    key = ("ideal dcg", tuple(cutoffs))
    if key not in c.side.memo:          # the qrels' alone: made once per evaluator and topics
        ideal, ideal_topic, ideal_position = c.ideal_gains()
        # Only positions before the deepest cutoff count: the running sums need no more (fewer arrays as long as
        # the qrels at the peak of the measures).
        deepest = max((int(k) for k in cutoffs), default=0)
        if ideal_position.shape[0] and int(ideal_position.max()) >= deepest:
            keep = ideal_position < deepest
            ideal, ideal_topic, ideal_position = ideal[keep], ideal_topic[keep], ideal_position[keep]
            del keep
        c.side.memo[key] = sums_before(running_segment_sums(ideal, ideal_topic, seg.count), ideal_topic,
                                       ideal_position, seg.count, cutoffs)
    for dcg, idcg in zip(dcgs, c.side.memo[key]):
        out.append(np.where(idcg > 0.0, dcg / np.where(idcg > 0.0, idcg, 1.0), dcg))
    return out


_NEGATIVE_NAN = c_div(0.0, 0.0)         # trec_eval's precision of an empty ranking, 0/0 (x86 gives -nan)


def _iprec(c: _Context, points, rule: str, empty_is_nan: bool = False) -> List[np.ndarray]:
    """Interpolated precision: the best precision at or after the c_p-th relevant document. Precision only
    peaks at relevant ranks, so the suffix maximum over the relevant documents is the exact path's value.
    empty_is_nan: an empty ranking gets trec_eval's 0/0 (x86's negative NaN) at the points whose c_p is 0, as
    measures.trec_blocks.c_interpolated_precision."""
    precision = c.rel_count / (c.rel_position + 1)
    best_after = _suffix_max(precision, c.rel_topic, c.seg.count)
    first = np.searchsorted(c.rel_topic, np.arange(c.seg.count))
    out = [np.zeros(c.seg.count) for _ in points]
    cuts: Dict[int, List[int]] = {}     # R -> c_p of every point (R repeats across topics)
    if empty_is_nan:
        for t in np.flatnonzero(c.seg.sizes == 0).tolist():
            num_rel = int(c.num_rel[t])
            if num_rel not in cuts:
                cuts[num_rel] = [recall_point_cutoff(p, num_rel, rule) for p in points]
            for i, cut in enumerate(cuts[num_rel]):
                if cut <= 0:
                    out[i][t] = _NEGATIVE_NAN
    for t in np.flatnonzero(c.num_rel_ret).tolist():
        found = int(c.num_rel_ret[t])
        num_rel = int(c.num_rel[t])
        if num_rel not in cuts:
            cuts[num_rel] = [recall_point_cutoff(p, num_rel, rule) for p in points]
        for i, cut in enumerate(cuts[num_rel]):
            if cut <= found:
                out[i][t] = best_after[first[t] + max(cut, 1) - 1]
    return out


# ------------------------------------------------------------------------------------------- driver ---

def measure_grades(grades: np.ndarray, offsets: np.ndarray, side: QrelsSide, measures: Sequence[str],
                   level: int = 1, options: TrecOptions = TrecOptions(), params: Dict[str, Sequence] = None
                   ) -> Tuple[List[str], Optional[np.ndarray], Optional[List[list]]]:
    """The measures of every topic from its grades in rank order (topic k: grades[offsets[k]:offsets[k + 1]],
    NOT_IN_POOL and UNJUDGED as measures.judged says) and its judgements (`side`): (value names in output order,
    the values as topics x names when every measure has a kernel, else None and the rows a topic)."""
    params = params or {}
    judged = side.judged
    segments = Segments(offsets)
    context = _Context(grades, segments, side, level)
    columns: Dict[str, np.ndarray] = {}
    slow: List[str] = []
    for name in measures:
        measure = REGISTRY[name]
        p = params.get(name, measure.params)
        if name not in KERNELS and not vectorised_all_trec.has_kernel(name, p, level):
            slow.append(name)
            continue
        for value_name, values in zip(measure.value_names(p), _kernel(name, context, p, options)):
            columns[value_name] = values
    order = _value_order(measures, params)
    if not slow:                    # every value has a kernel: the rows are the output, in output order
        table = np.array([columns[n] for n in order]).T if order else np.zeros((segments.count, 0))
        return order, table, None
    rows = []
    names = list(columns)
    table = np.array([columns[n] for n in names]).T.tolist() if names else [[] for _ in range(segments.count)]
    # The measures without a kernel, topic by topic (their value names and parameters found once, not per topic).
    computed = [(REGISTRY[name].value_names(params.get(name, REGISTRY[name].params)), REGISTRY[name].compute,
                 params.get(name, REGISTRY[name].params)) for name in slow]
    for k in range(segments.count):
        row = dict(zip(names, table[k]))
        judged_topic = JudgedTopic(grades[offsets[k]:offsets[k + 1]], judged[k], level)
        for value_names, compute, p in computed:
            row.update(zip(value_names, compute(judged_topic, p, options)))
        rows.append([row[name] for name in order])
    return order, None, rows


def _value_order(measures: Sequence[str], params: Dict[str, Sequence]) -> List[str]:
    out = []
    for name in measures:
        measure = REGISTRY[name]
        out.extend(measure.value_names(params.get(name, measure.params)))
    return out
