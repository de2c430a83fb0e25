"""trec_eval's measures (9.0.8 rules by default, 10.0 rules on request), as pure functions of a JudgedTopic.

Each measure is one `TrecMeasure` record: its trec_eval name, help, default parameters and how they are read
from the command line, how per-topic values are summarised (mean, sum, geometric mean, or not at all) and a
function returning one value per parameter. The trec_eval front end and every task that reports trec_eval
measures read this registry, so a measure is added in one place. Formulas: docs/trec_eval.md and
shared/specs/ranking-measures.md Part A; peer: trec_eval (names are trec_eval's own, the registry is in
trec_eval's print order).
"""
import math
import re
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..ranking.label import JudgedTopic

INTERP_RULES = ("v9", "v10", "ceil")
MIN_GEO_MEAN = 0.00001   # trec_eval floors values at this before taking logs for gm_* measures
INFAP_EPSILON = 0.00001  # trec_eval's smoothing constant in infAP

# How the parameters of a measure are written after the dot of `-m name.params` (trec_eval meas_init.c).
LONG_CUTOFFS = "long_cutoffs"        # 5,10,15: integers, sorted, positive, no duplicates; one value each
DOUBLE_CUTOFFS = "double_cutoffs"    # .1,.2: numbers, sorted, no duplicates; one value each
DOUBLE_PARAMS = "double_params"      # 2,-1,0,0: numbers kept in order; one value named name_<params>
PAIR_PARAMS = "pair_params"          # 1=3,2=9: name=number pairs; one value named name_<params>


class Params(tuple):
    """A measure's parameter values plus the text they were given as (None for the defaults).

    trec_eval names a one-value measure after the parameter text when there is one (`utility_2,-1,0,0`).
    """

    text: Optional[str] = None

    @classmethod
    def of(cls, values, text: Optional[str] = None) -> "Params":
        made = cls(values)
        made.text = text
        return made


@dataclass(frozen=True)
class TrecOptions:
    """Evaluation-wide settings that change measure values.

    interp_cutoff: how a recall point p becomes a number of relevant documents for iprec_at_recall,
    11pt_avg (and Rprec_mult, which trec_eval never changed): `v9` = (long)(p*R + 0.9) in doubles (trec_eval
    9.x), `v10` = lround(p*R) (10.0), `ceil` = integer ceil(R*p) (trec_eval 7.2, NTCIR-1 era).
    num_docs_in_coll: trec_eval -N, used only by utility's fourth coefficient.
    empty_is_nan: an empty ranking gets trec_eval's 0/0 (-nan) in iprec_at_recall and 11pt_avg, as `runscore
    trec_eval` prints it after -M 0 or -J; the tasks score a topic missing from the run as 0 everywhere.
    """

    interp_cutoff: str = "v9"
    num_docs_in_coll: int = 0
    empty_is_nan: bool = False


@dataclass(frozen=True)
class TrecMeasure:
    name: str
    help: str
    compute: Callable[[JudgedTopic, Sequence, TrecOptions], List[float]]
    params: Optional[Tuple] = None            # default parameters; None = the measure takes none
    param_type: Optional[type] = None         # int or float (kept for callers of the first API)
    summary: str = "mean"                     # mean | sum | gm (floored at MIN_GEO_MEAN) | none (per topic only)
    is_count: bool = False                    # printed as an integer count
    param_kind: Optional[str] = None          # one of the *_CUTOFFS / *_PARAMS kinds above
    is_string: bool = False                   # value is text (relstring), printed quoted per topic only
    param_count: Optional[int] = None         # exact number of parameters required (utility: 4)

    def value_names(self, params: Optional[Sequence] = None) -> List[str]:
        params = self.params if params is None else params
        if self.param_kind in (LONG_CUTOFFS, DOUBLE_CUTOFFS):
            if self.param_kind == LONG_CUTOFFS:
                return ["%s_%d" % (self.name, p) for p in params]
            # meas_init.c's append_float: snprintf into strlen(name) + 10 bytes, so a long number is cut there
            return [("%s_%3.2f" % (self.name, p))[:len(self.name) + 9] for p in params]
        text = getattr(params, "text", None)
        return ["%s_%s" % (self.name, text) if text else self.name]

    def parse_params(self, text: str) -> Params:
        """Parameters from the text after the dot of `-m name.text`; ValueError says what is wrong."""
        if self.param_kind is None:
            raise ValueError("measure %s takes no parameters" % self.name)
        if text == "":
            raise ValueError("empty parameter list for measure %s" % self.name)
        parts = text.split(",")
        if self.param_kind == LONG_CUTOFFS:
            values = sorted(c_atol(p) for p in parts)
            if values[0] <= 0:
                raise ValueError("cutoffs of %s must be positive, got %r" % (self.name, text))
        elif self.param_kind == DOUBLE_CUTOFFS:
            values = sorted(c_atof(p) for p in parts)
        elif self.param_kind == DOUBLE_PARAMS:
            if self.param_count is not None and len(parts) != self.param_count:
                raise ValueError("%s takes exactly %d parameters, got %d" % (self.name, self.param_count, len(parts)))
            return Params.of([c_atof(p) for p in parts], text)
        else:
            pairs = []
            for part in parts:
                if part.count("=") != 1:
                    raise ValueError("malformed pair parameters %r for %s: expected level=gain,..." % (text, self.name))
                key, value = part.split("=")
                pairs.append((key, c_atof(value)))
            return Params.of(pairs, text)
        if any(a == b for a, b in zip(values, values[1:])):
            raise ValueError("duplicate cutoffs in %r for %s" % (text, self.name))
        return Params.of(values, text)


def c_atol(text: str) -> int:
    """C atol: the leading integer of the text (`23.4` -> 23, `abc` -> 0), as trec_eval reads cutoffs."""
    match = re.match(r"\s*([+-]?[0-9]+)", text)
    return int(match.group(1)) if match else 0


_C_SPACE = "[ \t\n\v\f\r]*"          # C isspace, which strtod skips first
_SPECIAL_PREFIX = re.compile(_C_SPACE + r"([+-]?)(inf(?:inity)?|nan(?:\([0-9A-Za-z_]*\))?)", re.IGNORECASE)
_HEX_PREFIX = re.compile(_C_SPACE + r"([+-]?)0[xX]((?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?)")
_DECIMAL_PREFIX = re.compile(_C_SPACE + r"([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)")


def c_atof(text: str) -> float:
    """glibc atof (strtod), as trec_eval reads scores and measure parameters: the longest number at the start of
    the text (after C white space), 0.0 when there is none (`abc`); decimal and hexadecimal forms, inf/infinity/
    nan(...) in any case; out of range gives +-inf or 0 as strtod. ASCII digits only."""
    special = _SPECIAL_PREFIX.match(text)
    if special:
        value = math.inf if special.group(2)[:1] in "iI" else math.nan
        return -value if special.group(1) == "-" else value
    hexa = _HEX_PREFIX.match(text)
    if hexa:
        body = hexa.group(2)
        if "p" not in body.lower():
            body += "p0"
        try:
            value = float.fromhex("0x" + body)
        except OverflowError:
            value = math.inf
        return -value if hexa.group(1) == "-" else value
    match = _DECIMAL_PREFIX.match(text)
    return float(match.group(1)) if match else 0.0   # correctly rounded as strtod: 1e400 -> inf, 1e-400 -> 0.0


def c_long(x: float) -> int:
    """(long)x as trec_eval's C does on x86-64: truncation toward zero, and LONG_MIN (the processor's "integer
    indefinite") for NaN or a value out of range, where Python's int() raises (`-m Rprec_mult.1e308`)."""
    if x != x or not -9223372036854775808.0 <= x < 9223372036854775808.0:
        return -9223372036854775808
    return int(x)


def c_lround(x: float) -> int:
    """glibc lround (trec_eval 10.0's recall points): halves away from zero, exactly; LONG_MIN for NaN or out of
    range, as on x86-64."""
    if x != x or not -9223372036854775808.0 <= x < 9223372036854775808.0:
        return -9223372036854775808
    whole = math.floor(abs(x))
    whole += 1 if abs(x) - whole >= 0.5 else 0
    return int(-whole if x < 0 else whole)


def c_div(a: float, b: float) -> float:
    """a / b with C double semantics: x/0 is +-inf and 0/0 is NaN instead of a Python exception."""
    if b == 0:
        if a == 0 or a != a:
            return -math.nan   # x86 produces the negative default NaN; glibc prints it as -nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


def c_log2(x: float) -> float:
    """log2 with C semantics: -inf at 0 and NaN below, instead of a Python exception."""
    if x > 0:
        return math.log2(x)
    return -math.inf if x == 0 else -math.nan


_LOG2_TABLE = np.zeros(0)


def log2_discounts(count: int) -> np.ndarray:
    """log2(2), log2(3), ..., log2(count + 1) as C's libm log2 gives them (math.log2): numpy's vectorised
    log2 is one ulp off at some integers (26, 52, 75, ...), which would move nDCG in its last bit."""
    global _LOG2_TABLE
    if _LOG2_TABLE.shape[0] < count:
        size = max(count, 2 * _LOG2_TABLE.shape[0], 1024)
        _LOG2_TABLE = np.array([math.log2(i) for i in range(2, size + 2)], dtype=np.float64)
    return _LOG2_TABLE[:count]


REGISTRY: Dict[str, TrecMeasure] = {}


def register(measure: TrecMeasure) -> TrecMeasure:
    REGISTRY[measure.name] = measure
    return measure


# --------------------------------------------------------------------------------------------- kernels ---

def _rel_at(topic: JudgedTopic, k: int) -> int:
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
        return _c_interpolated_precision(topic, points, rule)
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
    for c in cuts:
        if c > num_rel_ret:
            out.append(0.0)
        elif c <= 0:
            out.append(float(tail_max[rel_ranks[0]]))
        else:
            out.append(float(tail_max[rel_ranks[c - 1]]))
    return out


def _c_interpolated_precision(topic: JudgedTopic, points: Sequence[float], rule: str) -> List[float]:
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


def _c_rprec_mult(t: JudgedTopic, params) -> List[float]:
    """trec_eval's Rprec_mult loop itself (m_Rprec_mult.c), for -l 0 or below (see _c_interpolated_precision)."""
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
    return c_div(_ordered_sum(precisions), float(topic.num_rel))


def _ordered_sum(values) -> float:
    """Left-to-right sum, as the C loops add (numpy's pairwise sum can differ in the last bit)."""
    total = 0.0
    for v in np.asarray(values, dtype=float).tolist():
        total += v
    return total


def _glibc_msort(items: list, compare) -> list:
    """qsort of glibc <= 2.36 (top-down merge sort, stable): reproduces trec_eval's order of gain levels,
    whose comparator truncates gain differences to int and so is not a total order."""
    if len(items) <= 1:
        return list(items)
    half = len(items) // 2
    left, right = _glibc_msort(items[:half], compare), _glibc_msort(items[half:], compare)
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
    return _glibc_msort(levels, lambda a, b: int(a[2] - b[2]))


def _gain_of(levels: List[List]) -> Dict[int, float]:
    table: Dict[int, float] = {}
    for level, _count, gain in levels:
        table.setdefault(level, gain)
    return table


def _result_gains(topic: JudgedTopic, levels: List[List]) -> List[float]:
    table = _gain_of(levels)
    return [table.get(g, 0.0) for g in topic.rels.tolist()]


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
    return [_rel_at(t, r) / r if r else 0.0]


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
    return [1.0 / (hits[0] + 1) if hits.shape[0] else 0.0]


def _iprec(t, params, o):
    return interpolated_precision(t, params, o.interp_cutoff, o.empty_is_nan)


def _precision(t, params, _o):
    return [_rel_at(t, k) / k for k in params]


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
    return [(_rel_at(t, k) / r if r else 0.0) for k in params]


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
        return _c_rprec_mult(t, params)
    num_ret, num_rel_ret = t.num_ret, count_rel_ret(t)
    out = []
    for cut in cuts:
        if cut > num_ret:
            out.append(c_div(float(num_rel_ret), float(cut)))
        elif cut <= 0:
            out.append(0.0)
        else:
            out.append(_rel_at(t, cut) / cut)
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
    return [_ordered_sum(values[::-1]) / len(values)]


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
    levels = gain_levels(t, params)
    gains = _result_gains(t, levels)
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
    levels = gain_levels(t, params)
    gains = _result_gains(t, levels)
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
    levels = gain_levels(t, params)
    gains = _result_gains(t, levels)
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
    levels = gain_levels(t, params)
    gains = _result_gains(t, levels)
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
    return _ordered_sum(values[:k])


def _map_cut(t, params, _o):
    if t.num_rel == 0:
        return [0.0] * len(params)      # m_map_cut.c returns before its loop (unlike m_map.c)
    return [average_precision(t, k) for k in params]


def _relative_p(t, params, _o):
    """rel(k) / min(k, R): precision relative to the best possible at k; 0 when R = 0."""
    if t.num_rel == 0:
        return [0.0] * len(params)
    return [_rel_at(t, k) / min(k, t.num_rel) for k in params]


def _success(t, params, _o):
    return [1.0 if _rel_at(t, k) > 0 else 0.0 for k in params]


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
    table = _gain_of(levels)
    total = 0.0
    weight = 1.0
    for g in t.rels.tolist():
        gain = table.get(g, 0.0)
        if gain != 0:
            total += gain * weight
        weight *= persistence
    return [(1.0 - persistence) * total]


def _rbp_resid(t, _p, _o):
    """The RBP weight an unjudged document could still add (p = 0.9): residual plus unjudged mass."""
    weight = 1.0
    total = 0.0
    unjudged = 0
    for g in t.rels.tolist():
        if g < 0:
            unjudged += 1
            total += weight
        weight *= 0.9
    return [weight + (1 - 0.9) * total if unjudged else 0.0]


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
_m("rbp_resid", "RBP residual (p = 0.9) when the run has unjudged documents, else 0.", _rbp_resid)
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
        return float(_ordered_sum(values))
    n = len(values)
    if n == 0:
        return 0.0
    if measure.summary == "gm":
        logs = [math.log(max(v, MIN_GEO_MEAN)) for v in values]
        return math.exp(_ordered_sum(logs) / n)
    return _ordered_sum(values) / n


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
