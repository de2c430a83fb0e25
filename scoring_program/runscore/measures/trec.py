"""trec_eval's measures (9.0.8 rules by default, 10.0 rules on request), as pure functions of a JudgedTopic.

Each measure is one `TrecMeasure` record: its trec_eval name, default parameters, how per-topic values are
summarised (mean, sum or geometric mean) and a function returning one value per parameter. The trec_eval
front end and every task that reports trec_eval measures read this registry, so a measure is added in one place.
Formulas: shared/specs/ranking-measures.md Part A; peer: trec_eval (names are trec_eval's own).
"""
import math
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..label import JudgedTopic

INTERP_RULES = ("v9", "v10", "ceil")
MIN_GEO_MEAN = 0.00001   # trec_eval floors values at this before taking logs for gm_* measures


@dataclass(frozen=True)
class TrecOptions:
    """Evaluation-wide settings that change measure values.

    interp_cutoff: how a recall point p becomes a number of relevant documents for iprec_at_recall and
    11pt_avg: `v9` = (long)(p*R + 0.9) in doubles (trec_eval 9.x), `v10` = round half up of p*R (10.0),
    `ceil` = integer ceil(R*p) (trec_eval 7.2, NTCIR-1 era).
    """

    interp_cutoff: str = "v9"


@dataclass(frozen=True)
class TrecMeasure:
    name: str
    help: str
    compute: Callable[[JudgedTopic, Sequence, TrecOptions], List[float]]
    params: Optional[Tuple] = None            # default parameters (cutoffs); None = no parameter
    param_type: Optional[type] = None         # int or float
    summary: str = "mean"                     # mean | sum | gm (geometric mean, floored at MIN_GEO_MEAN)
    is_count: bool = False                    # printed as an integer count
    name_format: Callable[[str, object], str] = field(default=None)

    def value_names(self, params: Optional[Sequence] = None) -> List[str]:
        if self.params is None:
            return [self.name]
        params = self.params if params is None else params
        fmt = self.name_format or _default_name
        return [fmt(self.name, p) for p in params]


def _default_name(name: str, param) -> str:
    return "%s_%s" % (name, param)


def _recall_point_name(name: str, param) -> str:
    return "%s_%4.2f" % (name, param)


REGISTRY: Dict[str, TrecMeasure] = {}


def register(measure: TrecMeasure) -> TrecMeasure:
    REGISTRY[measure.name] = measure
    return measure


# --------------------------------------------------------------------------------------------- kernels ---

def _cum_relevant(topic: JudgedTopic) -> np.ndarray:
    """rel(i) for i = 1..num_ret: relevant documents among the first i ranks."""
    return np.cumsum(topic.relevant)


def _rel_at(topic: JudgedTopic, k: int) -> int:
    """rel(k): relevant documents among ranks 1..min(k, num_ret)."""
    return int(np.count_nonzero(topic.relevant[:k]))


def recall_point_cutoff(p: float, num_rel: int, rule: str) -> int:
    """Number of relevant documents that recall p stands for, under one of INTERP_RULES."""
    if rule == "v9":
        return int(p * num_rel + 0.9)
    if rule == "v10":
        x = p * num_rel
        r = math.floor(x)
        return int(r + 1 if x - r >= 0.5 else r)
    if rule == "ceil":
        # trec_eval 7.2: (R*i + 9) / 10 in integers, with i = 10p recovered exactly.
        tenths = int(round(p * 10))
        if abs(p * 10 - tenths) < 1e-9:
            return (num_rel * tenths + 9) // 10
        return int(math.ceil(p * num_rel - 1e-12))
    raise ValueError("unknown interpolation rule %r" % rule)


def interpolated_precision(topic: JudgedTopic, points: Sequence[float], rule: str) -> List[float]:
    """Max precision at or after the rank of the c_p-th retrieved relevant document, for each recall point p."""
    relevant = topic.relevant
    num_rel_ret = int(np.count_nonzero(relevant))
    if num_rel_ret == 0:
        return [0.0] * len(points)
    ranks = np.arange(1, topic.num_ret + 1)
    cum = np.cumsum(relevant)
    precision = cum / ranks
    # Max precision from each rank to the end; only ranks up to the last relevant one matter.
    last = int(np.flatnonzero(relevant)[-1]) + 1
    tail_max = np.maximum.accumulate(precision[:last][::-1])[::-1]
    rel_ranks = np.flatnonzero(relevant)          # 0-based rank of the 1st, 2nd, ... relevant document
    out = []
    for p in points:
        c = recall_point_cutoff(p, topic.num_rel, rule)
        if c > num_rel_ret:
            out.append(0.0)
        elif c <= 0:
            out.append(float(tail_max[rel_ranks[0]]))
        else:
            out.append(float(tail_max[rel_ranks[c - 1]]))
    return out


def average_precision(topic: JudgedTopic) -> float:
    num_rel = topic.num_rel
    if num_rel == 0:
        return 0.0
    relevant = topic.relevant
    rel_ranks = np.flatnonzero(relevant) + 1
    precisions = np.arange(1, rel_ranks.shape[0] + 1) / rel_ranks
    return float(_ordered_sum(precisions)) / num_rel


def _ordered_sum(values: np.ndarray) -> float:
    """Left-to-right sum, as the C loops add (numpy's pairwise sum can differ in the last bit)."""
    total = 0.0
    for v in values.tolist():
        total += v
    return total


# ------------------------------------------------------------------------------------------- measures ---

def _num_ret(t, _p, _o):
    return [float(t.num_ret)]


def _num_rel(t, _p, _o):
    return [float(t.num_rel)]


def _num_rel_ret(t, _p, _o):
    return [float(np.count_nonzero(t.relevant))]


def _map(t, _p, _o):
    return [average_precision(t)]


def _gm_map(t, _p, _o):
    return [average_precision(t)]


def _rprec(t, _p, _o):
    r = t.num_rel
    return [_rel_at(t, r) / r if r else 0.0]


def _bpref(t, _p, _o):
    r = t.num_rel
    if r == 0:
        return [0.0]
    judged_nonrel = int(np.count_nonzero((t.judged >= 0) & (t.judged < t.level)))
    denominator = min(r, judged_nonrel)
    total = 0.0
    nonrel_so_far = 0
    for g in t.rels.tolist():
        if g < 0:
            continue
        if g >= t.level:
            if nonrel_so_far > 0:
                total += 1.0 - min(nonrel_so_far, r) / denominator
            else:
                total += 1.0
        else:
            nonrel_so_far += 1
    return [total / r]


def _recip_rank(t, _p, _o):
    hits = np.flatnonzero(t.relevant)
    return [1.0 / (hits[0] + 1) if hits.shape[0] else 0.0]


def _iprec(t, params, o):
    return interpolated_precision(t, params, o.interp_cutoff)


def _11pt(t, params, o):
    values = interpolated_precision(t, ELEVEN_POINTS, o.interp_cutoff)
    return [_ordered_sum(np.asarray(values)) / len(values)]


def _precision(t, params, _o):
    return [_rel_at(t, k) / k for k in params]


def _recall(t, params, _o):
    r = t.num_rel
    return [(_rel_at(t, k) / r if r else 0.0) for k in params]


ELEVEN_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)

register(TrecMeasure("num_ret", "Number of documents retrieved (after -M truncation).", _num_ret,
                     summary="sum", is_count=True))
register(TrecMeasure("num_rel", "Number of relevant documents in the qrels (grade >= -l level).", _num_rel,
                     summary="sum", is_count=True))
register(TrecMeasure("num_rel_ret", "Number of relevant documents retrieved.", _num_rel_ret,
                     summary="sum", is_count=True))
register(TrecMeasure("map", "Mean average precision (non-interpolated) over all relevant documents; "
                     "0 for a topic without relevant documents.", _map))
register(TrecMeasure("gm_map", "Geometric mean of AP over topics, each AP floored at 0.00001.", _gm_map,
                     summary="gm"))
register(TrecMeasure("Rprec", "Precision after R documents, R = number of relevant documents.", _rprec))
register(TrecMeasure("bpref", "Binary preference: relevant documents ranked above judged non-relevant ones "
                     "(Buckley and Voorhees 2004, trec_eval form).", _bpref))
register(TrecMeasure("recip_rank", "Reciprocal rank of the first relevant document; 0 if none.", _recip_rank))
register(TrecMeasure("iprec_at_recall", "Interpolated precision at recall points (see interp_cutoff).", _iprec,
                     params=ELEVEN_POINTS, param_type=float, name_format=_recall_point_name))
register(TrecMeasure("P", "Precision at cutoff k (divides by k even when fewer are retrieved).", _precision,
                     params=CUTOFFS, param_type=int))
register(TrecMeasure("recall", "Recall at cutoff k.", _recall, params=CUTOFFS, param_type=int))
register(TrecMeasure("11pt_avg", "Mean interpolated precision over the 11 recall points 0.0 ... 1.0.", _11pt))

# The measures trec_eval prints when no -m option is given, in its order.
DEFAULT_SET = ("num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
               "iprec_at_recall", "P")


def summarise(measure: TrecMeasure, values: Sequence[float]) -> float:
    """Summary over evaluated topics, as trec_eval prints it in the `all` rows."""
    if measure.summary == "sum":
        return float(_ordered_sum(np.asarray(values, dtype=float)))
    n = len(values)
    if n == 0:
        return 0.0
    if measure.summary == "gm":
        logs = [math.log(max(v, MIN_GEO_MEAN)) for v in values]
        return math.exp(_ordered_sum(np.asarray(logs)) / n)
    return _ordered_sum(np.asarray(values, dtype=float)) / n


def evaluate_topic(topic: JudgedTopic, names: Sequence[str], options: TrecOptions = TrecOptions(),
                   params: Dict[str, Sequence] = None) -> Dict[str, float]:
    """All values of the named measures for one topic, keyed by trec_eval output name."""
    params = params or {}
    out: Dict[str, float] = {}
    for name in names:
        measure = REGISTRY[name]
        p = params.get(name, measure.params)
        for value_name, value in zip(measure.value_names(p), measure.compute(topic, p, options)):
            out[value_name] = value
    return out
