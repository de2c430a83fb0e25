"""trec_eval's measures (9.0.8 rules by default, 10.0 rules on request), as pure functions of a JudgedTopic.

Each measure is one `TrecMeasure` record: its trec_eval name, help, default parameters and how they are read
from the command line, how per-topic values are summarised (mean, sum, geometric mean, or not at all) and a
function returning one value per parameter. The trec_eval front end and every task that reports trec_eval
measures read this registry, so a measure is added in one place. Formulas: docs/trec_eval.md and
shared/specs/ranking-measures.md Part A; peer: trec_eval (names are trec_eval's own, the registry is in
trec_eval's print order). What a measure record is: measures/trec_measure.py; the building blocks several
measures share: measures/trec_blocks.py; C's arithmetic: measures/c_numbers.py.
"""
import math
from typing import Dict, List, Sequence

import numpy as np

from .c_numbers import c_div, c_log2, c_long, log2_discounts, ordered_sum
from .trec_blocks import (average_precision, c_rprec_mult, count_rel_ret, gain_levels, gain_of, interpolated_precision,
                          levels_and_gains, rel_at, rel_level_counts)
from .trec_measure import DOUBLE_CUTOFFS, DOUBLE_PARAMS, LONG_CUTOFFS, PAIR_PARAMS, Params, TrecMeasure, TrecOptions
from .judged import JudgedTopic

MIN_GEO_MEAN = 0.00001   # trec_eval floors values at this before taking logs for gm_* measures
INFAP_EPSILON = 0.00001  # trec_eval's smoothing constant in infAP

REGISTRY: Dict[str, TrecMeasure] = {}


def register(measure: TrecMeasure) -> TrecMeasure:
    REGISTRY[measure.name] = measure
    return measure


# ------------------------------------------------------------------------------------------- measures ---

def _num_ret(t, _p, _o):
    return [float(t.num_ret)]


def _num_rel(t, _p, _o):
    return [float(t.num_rel)]


def _num_rel_ret(t, _p, _o):
    return [float(count_rel_ret(t))]


def _map(t, _p, _o):
    return [average_precision(t)]


def _rprec(t, _p, _o):
    r = t.num_rel
    return [rel_at(t, r) / r if r else 0.0]


def bpref(t: JudgedTopic) -> float:
    r = t.num_rel
    if r == 0:
        return 0.0
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
    return total / r


def _bpref(t, _p, _o):
    return [bpref(t)]


def _recip_rank(t, _p, _o):
    hits = np.flatnonzero(t.relevant)
    return [1.0 / (int(hits[0]) + 1) if hits.shape[0] else 0.0]      # a float, not numpy's float64


def _iprec(t, params, o):
    return interpolated_precision(t, params, o.interp_cutoff, o.empty_is_nan)


def _precision(t, params, _o):
    return [rel_at(t, k) / k for k in params]


def _relstring(t, params, _o):
    """The grades of the first N documents as characters (trec_eval m_relstring.c)."""
    n = max(int(params[0]), 0)
    chars = []
    for g in t.rels[:n].tolist():
        if g > 9:
            chars.append(">")
        elif g >= 0:
            chars.append(str(g))
        elif g == -1:
            chars.append("-")
        elif g == -2:
            chars.append(".")
        else:
            chars.append("<")
    return ["".join(chars)]


def _recall(t, params, _o):
    r = t.num_rel
    return [(rel_at(t, k) / r if r else 0.0) for k in params]


def _infap(t, _p, _o):
    """Inferred AP (Yilmaz and Aslam, CIKM 2006) in trec_eval's form: documents outside the pool are skipped,
    pooled-but-unjudged ones (negative grades) count towards the rank but not as judged."""
    nonrel = rel = unjudged = 0
    total = 0.0
    for j, g in enumerate(t.rels.tolist()):
        if g == -1:
            continue
        if g == -2:
            unjudged += 1
            continue
        if g < t.level:
            nonrel += 1
            continue
        rel += 1
        if j == 0:
            total += 1.0
        else:
            fj = float(j)
            total += (1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * ((rel - 1 + nonrel + unjudged) / fj)
                      * ((rel - 1 + INFAP_EPSILON) / (rel - 1 + nonrel + 2 * INFAP_EPSILON)))
    return [total / t.num_rel if t.num_rel else total]


def _rprec_mult(t, params, o):
    """Precision at ceil-ish(m * R) documents for each multiple m (cutoff (long)(m*R + 0.9), never lround)."""
    cuts = [c_long(m * t.num_rel + 0.9) for m in params]
    if t.level <= 0 or cuts != sorted(cuts):      # (a huge multiple's cutoff wraps to LONG_MIN as in C)
        return c_rprec_mult(t, params)
    num_ret, num_rel_ret = t.num_ret, count_rel_ret(t)
    out = []
    for cut in cuts:
        if cut > num_ret:
            out.append(c_div(float(num_rel_ret), float(cut)))
        elif cut <= 0:
            out.append(0.0)
        else:
            out.append(rel_at(t, cut) / cut)
    return out


def _utility(t, params, o):
    if len(params) != 4:
        raise ValueError("utility needs exactly 4 coefficients, got %d" % len(params))
    rel_ret, ret, rel = count_rel_ret(t), t.num_ret, t.num_rel
    return [params[0] * rel_ret + params[1] * (ret - rel_ret) + params[2] * (rel - rel_ret)
            + params[3] * (o.num_docs_in_coll + rel_ret - ret - rel)]


def _11pt(t, params, o):
    """Mean of interpolated precision over the recall points (default the 11 points 0.0 ... 1.0)."""
    if len(params) == 0:
        raise ValueError("11pt_avg needs at least one recall point")
    values = interpolated_precision(t, params, o.interp_cutoff, o.empty_is_nan)
    return [ordered_sum(values[::-1]) / len(values)]


def _bin_g(t, _p, _o):
    total = 0.0
    rel_so_far = 0
    for i in np.flatnonzero(t.relevant).tolist():
        rel_so_far += 1
        total += 1.0 / math.log2(3 + i - rel_so_far)
    return [c_div(total, float(t.num_rel)) if rel_so_far else 0.0]


class _IdealWalk:
    """The ideal ranking walked one rank at a time, as trec_eval's gain measures do (levels by gain, highest
    first, skipping empty levels; the walk ends at the first level whose gain is not positive)."""

    def __init__(self, levels: List[List]):
        self.levels = levels
        self.cur = len(levels) - 1
        self.gain = levels[self.cur][2] if self.cur >= 0 else 0.0
        self.num_at_level = 0

    def advance(self) -> float:
        self.num_at_level += 1
        while self.cur >= 0 and self.num_at_level > self.levels[self.cur][1]:
            self.num_at_level = 1
            self.cur -= 1
            self.gain = self.levels[self.cur][2] if self.cur >= 0 else 0.0
        return self.gain


def _g(t, params, _o):
    """trec_eval's experimental G (m_G.c): gain over log2(2 + ideal cumulative cost - cumulative gain)."""
    levels, gains = levels_and_gains(t, params)
    walk = _IdealWalk(levels)
    sum_results = sum_ideal = sum_cost = result_g = 0.0
    i = 0
    while i < len(gains) and walk.gain > 0.0:
        gain = gains[i]
        sum_results += gain
        ideal_gain = walk.advance()
        if ideal_gain > 0.0:
            sum_ideal += ideal_gain
        sum_cost += ideal_gain if ideal_gain >= 1.0 else 1.0
        if gain != 0:
            result_g += c_div(gain, c_log2(2 + sum_cost - sum_results))
        i += 1
    while i < len(gains):
        gain = gains[i]
        sum_results += gain
        sum_cost += 1.0
        if gain != 0:
            result_g += c_div(gain, c_log2(2 + sum_cost - sum_results))
        i += 1
    while walk.gain > 0.0:
        ideal_gain = walk.advance()
        if ideal_gain > 0.0:
            sum_ideal += ideal_gain
    return [result_g / sum_ideal if sum_ideal > 0.0 else 0.0]


def _ndcg(t, params, _o):
    """nDCG over the whole ranking (Jarvelin and Kekalainen 2002), gain / log2(rank + 1)."""
    levels, gains = levels_and_gains(t, params)
    walk = _IdealWalk(levels)
    dcg = idcg = 0.0
    i = 0
    while i < len(gains) and walk.gain > 0.0:
        if gains[i] != 0:
            dcg += gains[i] / math.log2(i + 2)
        ideal_gain = walk.advance()
        if ideal_gain > 0.0:
            idcg += ideal_gain / math.log2(i + 2)
        i += 1
    while i < len(gains):
        if gains[i] != 0:
            dcg += gains[i] / math.log2(i + 2)
        i += 1
    while walk.gain > 0.0:
        ideal_gain = walk.advance()
        if ideal_gain > 0.0:
            idcg += ideal_gain / math.log2(i + 2)
        i += 1
    return [dcg / idcg if idcg > 0.0 else 0.0]


def _ndcg_rel(t, params, _o):
    """nDCG averaged over the relevant (positive-gain) documents; an unretrieved one counts the final nDCG."""
    levels, gains = levels_and_gains(t, params)
    walk = _IdealWalk(levels)
    dcg = idcg = total = 0.0
    num_rel = rel_ret = 0
    i = 0
    while i < len(gains) and walk.gain > 0.0:
        gain = gains[i]
        if gain != 0:
            dcg += gain / math.log2(i + 2)
        ideal_gain = walk.advance()
        if ideal_gain > 0.0:
            num_rel += 1
            idcg += ideal_gain / math.log2(i + 2)
        if gain > 0:
            total += c_div(dcg, idcg)
            rel_ret += 1
        i += 1
    while i < len(gains):
        gain = gains[i]
        if gain != 0:
            dcg += gain / math.log2(i + 2)
        if gain > 0:
            total += c_div(dcg, idcg)
            rel_ret += 1
        i += 1
    while walk.gain > 0.0:
        ideal_gain = walk.advance()
        if ideal_gain > 0.0:
            num_rel += 1
            idcg += ideal_gain / math.log2(i + 2)
        i += 1
    total += c_div((num_rel - rel_ret) * dcg, idcg)        # m_ndcg_rel.c: (n * dcg) / idcg, in that order
    return [c_div(total, num_rel) if total > 0.0 else 0.0]


def _rndcg(t, params, _o):
    """nDCG averaged at the ranks where the ideal ranking's gain changes, and at num_ret (m_Rndcg.c)."""
    if t.num_rel == 0:
        return [0.0]
    levels, gains = levels_and_gains(t, params)
    walk = _IdealWalk(levels)
    old = walk.gain
    dcg = idcg = total = 0.0
    changes = 0
    i = 0
    while i < len(gains) and walk.gain > 0.0:
        ideal_gain = walk.advance()
        if old != ideal_gain:
            if idcg > 0.0:
                total += dcg / idcg
                changes += 1
            old = ideal_gain
        if gains[i] != 0:
            dcg += gains[i] / math.log2(i + 2)
        if ideal_gain > 0.0:
            idcg += ideal_gain / math.log2(i + 2)
        i += 1
    if i < len(gains):
        while i < len(gains):
            if gains[i] != 0:
                dcg += gains[i] / math.log2(i + 2)
            i += 1
        if idcg > 0.0:
            total += dcg / idcg
            changes += 1
    while walk.gain > 0.0:
        ideal_gain = walk.advance()
        if old != ideal_gain:
            if idcg > 0.0:
                total += dcg / idcg
                changes += 1
            old = ideal_gain
        if ideal_gain > 0.0:
            idcg += ideal_gain / math.log2(i + 2)
        i += 1
    return [c_div(total, changes)]


def _ndcg_cut(t, params, _o):
    """nDCG@k with gain = qrels grade (> 0 only, -l ignored) and discount log2(rank + 1) (trec_eval >= 9.0.4)."""
    grades = t.rels.astype(float)
    discounts = log2_discounts(t.num_ret)
    contrib = np.where(grades > 0, grades, 0.0) / discounts if t.num_ret else np.zeros(0)
    counts = rel_level_counts(t)
    ideal_grades = np.repeat(np.arange(counts.shape[0])[::-1], counts[::-1]).astype(float)
    ideal_grades = ideal_grades[ideal_grades > 0]
    ideal_contrib = ideal_grades / log2_discounts(ideal_grades.shape[0])
    out = []
    for k in params:
        dcg = _prefix_sum(contrib, k)
        idcg = _prefix_sum(ideal_contrib, k)
        out.append(dcg / idcg if idcg > 0.0 else dcg)
    return out


def _prefix_sum(values: np.ndarray, k: int) -> float:
    return ordered_sum(values[:k])


def _map_cut(t, params, _o):
    if t.num_rel == 0:
        return [0.0] * len(params)      # m_map_cut.c returns before its loop (unlike m_map.c)
    return [average_precision(t, k) for k in params]


def _relative_p(t, params, _o):
    """rel(k) / min(k, R): precision relative to the best possible at k; 0 when R = 0."""
    if t.num_rel == 0:
        return [0.0] * len(params)
    return [rel_at(t, k) / min(k, t.num_rel) for k in params]


def _success(t, params, _o):
    return [1.0 if rel_at(t, k) > 0 else 0.0 for k in params]


def _set_p(t, _p, _o):
    return [count_rel_ret(t) / t.num_ret if t.num_ret else 0.0]


def _set_relative_p(t, _p, _o):
    denominator = min(t.num_ret, t.num_rel)
    return [count_rel_ret(t) / denominator if denominator else 0.0]


def _set_recall(t, _p, _o):
    return [count_rel_ret(t) / t.num_rel if t.num_rel else 0.0]


def _set_map(t, _p, _o):
    """set_P * set_recall (trec_eval's "set map")."""
    if not (t.num_ret and t.num_rel):
        return [0.0]
    rel_ret = float(count_rel_ret(t))
    # trec_eval's arithmetic: rel_ret**2 / (ret * R); (rel_ret/ret) * (rel_ret/R) differs in the last bit.
    return [(rel_ret * rel_ret) / (float(t.num_ret) * float(t.num_rel))]


def _set_f(t, params, _o):
    """(beta + 1) P R / (beta P + R), beta = 1 by default; 0 when nothing relevant is retrieved."""
    rel_ret = count_rel_ret(t)
    if not (t.num_ret and t.num_rel and rel_ret):
        return [0.0]
    p, r = rel_ret / t.num_ret, rel_ret / t.num_rel
    beta = params[0]
    return [c_div((beta + 1.0) * p * r, beta * p + r)]


def _num_nonrel_judged_ret(t, _p, _o):
    return [float(np.count_nonzero((t.rels >= 0) & (t.rels < t.level)))]


def _rbp(t, params, _o):
    """Rank-biased precision (Moffat and Zobel 2008), persistence p (default 0.9), gains scaled into [0, 1]."""
    persistence = 0.9
    pairs = []
    for key, value in params:
        if key == "p":
            persistence = value
        else:
            pairs.append((key, value))
    levels = gain_levels(t, pairs)
    gains = [g for _l, _c, g in levels]
    if gains:
        low, high = min(gains), max(gains)
        if low < 0 or high > 1:
            for entry in levels:
                entry[2] = c_div(entry[2] - low, high - low)
    table = gain_of(levels)
    total = 0.0
    weight = 1.0
    for g in t.rels.tolist():
        gain = table.get(g, 0.0)
        if gain != 0:
            total += gain * weight
        weight *= persistence
    return [(1.0 - persistence) * total]


def _rbp_resid(t, params, _o):
    """The RBP weight an unjudged document could still add: residual plus unjudged mass, persistence p (0.9 by
    default; -m rbp_resid.p=0.95 as m_rbp_resid.c reads it, other pairs ignored)."""
    persistence = 0.9
    for key, value in params:
        if key == "p":
            persistence = value
    weight = 1.0
    total = 0.0
    unjudged = 0
    for g in t.rels.tolist():
        if g < 0:
            unjudged += 1
            total += weight
        weight *= persistence
    return [weight + (1 - persistence) * total if unjudged else 0.0]


def _unj(t, params, _o):
    unjudged = t.rels < 0
    return [int(np.count_nonzero(unjudged[:k])) / k for k in params]


ELEVEN_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RPREC_MULTIPLES = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)


def _m(name, help_text, compute, **kw):
    return register(TrecMeasure(name, help_text, compute, **kw))


# Registered in trec_eval's print order (measures.c), which is the order of the output lines.
_m("num_ret", "Number of documents retrieved (after -M truncation).", _num_ret, summary="sum", is_count=True)
_m("num_rel", "Number of relevant documents in the qrels (grade >= -l level).", _num_rel, summary="sum",
   is_count=True)
_m("num_rel_ret", "Number of relevant documents retrieved.", _num_rel_ret, summary="sum", is_count=True)
_m("map", "Mean average precision (non-interpolated) over all relevant documents; 0 for a topic without "
   "relevant documents.", _map)
_m("gm_map", "Geometric mean of AP over topics, each AP floored at 0.00001.", _map, summary="gm")
_m("Rprec", "Precision after R documents, R = number of relevant documents.", _rprec)
_m("bpref", "Binary preference: relevant documents ranked above judged non-relevant ones (Buckley and "
   "Voorhees 2004, trec_eval form).", _bpref)
_m("recip_rank", "Reciprocal rank of the first relevant document; 0 if none.", _recip_rank)
_m("iprec_at_recall", "Interpolated precision at recall points (see interp_cutoff).", _iprec,
   params=ELEVEN_POINTS, param_type=float, param_kind=DOUBLE_CUTOFFS)
_m("P", "Precision at cutoff k (divides by k even when fewer are retrieved).", _precision, params=CUTOFFS,
   param_type=int, param_kind=LONG_CUTOFFS)
_m("relstring", "Grades of the first N (default 10) documents as a string: 0-9, '>' above 9, '-' not in the "
   "qrels, '.' negative grade; per topic only.", _relstring, params=Params.of([10.0]), param_type=float,
   param_kind=DOUBLE_PARAMS, summary="none", is_string=True)
_m("recall", "Recall at cutoff k: rel(k) / R.", _recall, params=CUTOFFS, param_type=int, param_kind=LONG_CUTOFFS)
_m("infAP", "Inferred AP (Yilmaz and Aslam 2006): negative qrels grades mark pooled but unjudged documents.",
   _infap)
_m("gm_bpref", "Geometric mean of bpref over topics, floored at 0.00001.", _bpref, summary="gm")
_m("Rprec_mult", "Precision at multiples m of R: rel(c)/c with c = (long)(m*R + 0.9).", _rprec_mult,
   params=RPREC_MULTIPLES, param_type=float, param_kind=DOUBLE_CUTOFFS)
_m("utility", "p1*a + p2*b + p3*c + p4*d over the contingency table (a relevant retrieved, b non-relevant "
   "retrieved, c relevant missed, d the rest of the -N collection); default 1,-1,0,0.", _utility,
   params=Params.of([1.0, -1.0, 0.0, 0.0]), param_type=float, param_kind=DOUBLE_PARAMS, param_count=4)
_m("11pt_avg", "Mean interpolated precision over recall points (default the 11 points 0.0 ... 1.0).", _11pt,
   params=Params.of(list(ELEVEN_POINTS)), param_type=float, param_kind=DOUBLE_PARAMS)
_m("binG", "Binary G: mean over relevant documents of 1/log2(2 + non-relevant ranked above it).", _bin_g)
_m("G", "Normalised gain G (trec_eval experimental): gain / log2(2 + ideal cost - gain so far).", _g,
   params=Params.of([]), param_kind=PAIR_PARAMS)
_m("ndcg", "nDCG over the whole ranking; gains = grades unless level=gain pairs are given.", _ndcg,
   params=Params.of([]), param_kind=PAIR_PARAMS)
_m("ndcg_rel", "nDCG averaged over the relevant documents (trec_eval experimental).", _ndcg_rel,
   params=Params.of([]), param_kind=PAIR_PARAMS)
_m("Rndcg", "nDCG averaged at the ends of the ideal ranking's gain levels (trec_eval experimental).", _rndcg,
   params=Params.of([]), param_kind=PAIR_PARAMS)
_m("ndcg_cut", "nDCG@k, gain = qrels grade (-l ignored), discount log2(rank + 1).", _ndcg_cut, params=CUTOFFS,
   param_type=int, param_kind=LONG_CUTOFFS)
_m("map_cut", "AP over the first k documents, still divided by R.", _map_cut, params=CUTOFFS, param_type=int,
   param_kind=LONG_CUTOFFS)
_m("relative_P", "rel(k) / min(k, R).", _relative_p, params=CUTOFFS, param_type=int, param_kind=LONG_CUTOFFS)
_m("success", "1 if a relevant document is in the first k, else 0.", _success, params=(1, 5, 10), param_type=int,
   param_kind=LONG_CUTOFFS)
_m("set_P", "num_rel_ret / num_ret.", _set_p)
_m("set_relative_P", "num_rel_ret / min(num_ret, R).", _set_relative_p)
_m("set_recall", "num_rel_ret / R.", _set_recall)
_m("set_map", "set_P * set_recall.", _set_map)
_m("set_F", "(beta+1) P R / (beta P + R) of the retrieved set, beta = 1 by default.", _set_f,
   params=Params.of([1.0]), param_type=float, param_kind=DOUBLE_PARAMS)
_m("num_nonrel_judged_ret", "Number of retrieved documents judged non-relevant (grade >= 0 and < level).",
   _num_nonrel_judged_ret, summary="sum", is_count=True)
# trec_eval 10.0 additions.
_m("rbp", "Rank-biased precision, persistence p (default 0.9; -m rbp.p=0.95), gains scaled into [0, 1].", _rbp,
   params=Params.of([]), param_kind=PAIR_PARAMS)
_m("rbp_resid", "RBP residual, persistence p (default 0.9; -m rbp_resid.p=0.95), when the run has unjudged "
   "documents, else 0.", _rbp_resid, params=Params.of([]), param_kind=PAIR_PARAMS)
_m("unj", "Fraction of the first k documents that are unjudged (absent or negative in the qrels).", _unj,
   params=(5, 10, 20), param_type=int, param_kind=LONG_CUTOFFS)

# The measures trec_eval prints when no -m option is given ("official"), in its order.
DEFAULT_SET = ("num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
               "iprec_at_recall", "P")
# -m all_trec (relstring is part of it but prints nothing unless asked for per topic).
ALL_TREC_V9 = ("num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
               "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult", "utility",
               "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P",
               "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret")
ALL_TREC_V10 = ALL_TREC_V9 + ("rbp", "rbp_resid", "unj")
V10_ONLY = ("rbp", "rbp_resid", "unj")


def summarise(measure: TrecMeasure, values: Sequence[float]) -> float:
    """Summary over evaluated topics, as trec_eval prints it in the `all` rows."""
    if measure.summary == "sum":
        return float(ordered_sum(values))
    n = len(values)
    if n == 0:
        return 0.0
    if measure.summary == "gm":
        logs = [math.log(max(v, MIN_GEO_MEAN)) for v in values]
        return math.exp(ordered_sum(logs) / n)
    return ordered_sum(values) / n


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
