"""NTCIREVAL's graded-relevance measures (Sakai's `ntcir_eval compute`), as pure functions of one ranked list.

Why its own module: NTCIREVAL differs from trec_eval in ways that change numbers — documents stay in run order,
a cutoff l acts at l' = min(l, L) with L = max(R, syslen), the ideal list is padded to L, gains come from `-g`
and g_max is the gain of the highest *declared* level, ERR's stop probability is g/(g_max + 1), and a topic
without relevant documents is an error ("no rel doc"), not a zero. Spec: shared/specs/ranking-measures.md Part
B; peer: NTCIREVAL (names in `ntcireval_name`), checked against pyNTCIREVAL's fixtures and pytrec_eval.

Every measure is built from three numpy kernels (STYLE.md item 5): gain x discount sums (DCG family, RBP),
cumulative-gain ratios at relevant ranks (AP, Q-measure, O/P/P+, NCU), and cascades (ERR, iRBU).
Measures take a `GradedRanking` (levels in rank order, the qrels' level counts, the gains) — never doc ids.
"""
import math
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .c_numbers import log2_discounts, log_table, power_table, running_total

MAX_LEVELS = 15          # NTCIREVAL's MAXRL_MAX
DEFAULT_BETA = 1.0       # Q-measure, O/P/P+, NCU with BR
DEFAULT_RBP_P = 0.95
DEFAULT_IRBU_P = 0.99
DEFAULT_GAMMA = 0.95     # rank-biased NCU
DEFAULT_LOGB = 2.0       # original nDCG; 0 means natural log
DEFAULT_CUTOFF = 1000


class NoRelevantDocuments(ValueError):
    """R = 0: NTCIREVAL stops with "no rel doc"; callers leave such topics out of the means, with a warning."""


# ------------------------------------------------------------------------------------------- gains ---
MAX_GAIN = 1e6


def parse_gains(text: str) -> Tuple[float, ...]:
    """`-g` syntax `g1:g2:...:gk` (least relevant level first) -> gains; ValueError if malformed.

    NTCIREVAL refuses decreasing gains ("Bad gain/stop values") and more than 15 levels.
    """
    parts = str(text).split(":")
    try:
        gains = tuple(float(p) for p in parts)
    except ValueError:
        raise ValueError("gains %r: expected numbers separated by ':' (e.g. 1:2:3)" % text)
    check_gains(gains)
    return gains


def check_gains(gains: Sequence[float]) -> None:
    if not gains or len(gains) > MAX_LEVELS:
        raise ValueError("gains: between 1 and %d levels are needed, found %d" % (MAX_LEVELS, len(gains)))
    if any(not math.isfinite(g) or g <= 0 for g in gains):
        raise ValueError("gains must be positive numbers: %s" % ":".join("%g" % g for g in gains))
    if any(g > MAX_GAIN for g in gains):     # sums of 1e308 overflow to inf, and inf / inf is NaN
        raise ValueError("gains must be at most %g: %s" % (MAX_GAIN, ":".join("%g" % g for g in gains)))
    if any(b < a for a, b in zip(gains, gains[1:])):
        raise ValueError("gains must not decrease from L1 to Lk: %s" % ":".join("%g" % g for g in gains))


def linear_gains(levels: int) -> Tuple[float, ...]:
    """NTCIR practice: level Lk has gain k (`-g 1:2:...:k`)."""
    return tuple(float(k) for k in range(1, levels + 1))


def format_gains(gains: Sequence[float]) -> str:
    return ":".join("%g" % g for g in gains)


# ------------------------------------------------------------------------------------------- the input ---
class GradedRanking:
    """One topic, labelled: everything a measure needs, precomputed once over ranks 1..L.

    levels: the level of each document of the system list in rank order (0 for L0 and for unjudged documents);
    judged_levels: the level of every judged document of the topic (L0 included), from the qrels;
    gains: gain of L1..Lk (`-g`). A level above k is a ValueError (NTCIREVAL refuses it too).
    """

    def __init__(self, levels: Sequence[int], judged_levels: Sequence[int], gains: Sequence[float]):
        check_gains(gains)
        self.gains = tuple(float(g) for g in gains)
        gain_of = np.array((0.0,) + self.gains)
        self.levels = np.asarray(levels, dtype=np.int64).reshape(-1)
        judged = np.asarray(judged_levels, dtype=np.int64).reshape(-1)
        top = len(self.gains)
        for name, array in (("system list", self.levels), ("qrels", judged)):
            if array.size and (array.min() < 0 or array.max() > top):
                raise ValueError("%s has a level outside L0..L%d (gains declare %d levels)" % (name, top, top))
        self.syslen = int(self.levels.size)
        self.R = int(np.count_nonzero(judged > 0))
        if self.R == 0:
            raise NoRelevantDocuments("no rel doc: the topic has no document judged L1 or above")
        self.L = max(self.R, self.syslen)
        self.g_max = self.gains[-1]
        self.level_counts = np.bincount(judged, minlength=top + 1)      # xrelnum of NTCIREVAL
        pad = self.L - self.syslen
        self.g = np.concatenate([gain_of[self.levels], np.zeros(pad)])
        self.rel = np.concatenate([self.levels > 0, np.zeros(pad, dtype=bool)])
        ideal = np.sort(gain_of[judged[judged > 0]])[::-1]
        self.g_ideal = np.concatenate([ideal, np.zeros(self.L - self.R)])
        self.ranks = np.arange(1, self.L + 1, dtype=np.float64)
        self.count = np.cumsum(self.rel)
        self.cg = np.cumsum(self.g)
        self.cg_ideal = np.cumsum(self.g_ideal)

    def depth(self, cutoff: Optional[int]) -> int:
        """l' = min(l, L); no cutoff means the whole padded list (L)."""
        return self.L if cutoff is None else min(int(cutoff), self.L)

    def first_relevant_rank(self) -> int:
        """r1 (0 when nothing relevant was retrieved)."""
        hits = np.flatnonzero(self.rel)
        return int(hits[0]) + 1 if hits.size else 0

    def first_top_level_rank(self) -> int:
        """rp: rank of the first document with the highest level present in the system list (0 if none)."""
        if not self.syslen or self.levels.max() == 0:
            return 0
        return int(np.argmax(self.levels == self.levels.max())) + 1


# ------------------------------------------------------------------------------------------- kernels ---
def _discounted_sum(gains: np.ndarray, discounts: np.ndarray, depth: int) -> float:
    """Σ_{r ≤ depth} gain(r) · discount(r) — the DCG/RBP kernel.

    Added left to right (a running sum, as NTCIREVAL's C loop adds), not with np.dot, whose order is BLAS's:
    the whole-run kernels (measures/vectorised_ntcir.py) add in the same order and so agree bit for bit."""
    return running_total(gains[:max(depth, 0)] * discounts[:max(depth, 0)])


def _blended_ratio(t: GradedRanking, beta: float) -> np.ndarray:
    """BR(r) = (β·cg(r) + count(r)) / (β·cg*(r) + r); β = 0 gives precision count(r)/r."""
    return (beta * t.cg + t.count) / (beta * t.cg_ideal + t.ranks)


def _sum_at_relevant(values: np.ndarray, t: GradedRanking, depth: int) -> float:
    """Σ over relevant ranks r ≤ depth of values(r) — the AP/Q kernel, added left to right as the C loop adds
    (np.sum regroups the terms)."""
    return running_total(values[:depth][t.rel[:depth]])


def _cascade(stop: np.ndarray, weight: np.ndarray, depth: int) -> float:
    """Σ_{r ≤ depth} weight(r) · s(r) · Π_{i<r} (1 − s(i)) — the ERR/iRBU kernel."""
    stop = stop[:depth]
    reach = np.concatenate([[1.0], np.cumprod(1.0 - stop)[:-1]]) if depth else np.zeros(0)
    return running_total(weight[:depth] * stop * reach)


def _log_discount(t: GradedRanking, logb: float) -> np.ndarray:
    """Original (Järvelin–Kekäläinen) discount: 1 for r = 1 and r ≤ b, else log_b(r); b = 0 is natural log."""
    base = math.e if logb == 0 else logb
    discount = log_table(t.L) / math.log(base)          # libm's log of 1..L (numpy's depends on the CPU)
    discount[(t.ranks <= base) | (t.ranks == 1)] = 1.0
    return discount


def _ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator > 0 else 0.0


# ------------------------------------------------------------------------------------------- measures ---
def average_precision(t: GradedRanking, cutoff: Optional[int] = None) -> float:
    """AP = (1/R) Σ_{relevant r ≤ syslen} count(r)/r; AP@l divides the sum over r ≤ min(l, syslen) by min(l, R)."""
    depth = t.depth(cutoff)
    norm = t.R if cutoff is None else min(int(cutoff), t.R)
    return _sum_at_relevant(t.count / t.ranks, t, depth) / norm


def q_measure(t: GradedRanking, cutoff: Optional[int] = None, beta: float = DEFAULT_BETA) -> float:
    """Q = (1/R) Σ_{relevant r} BR(r) (Sakai 2004); Q@l as AP@l."""
    depth = t.depth(cutoff)
    norm = t.R if cutoff is None else min(int(cutoff), t.R)
    return _sum_at_relevant(_blended_ratio(t, beta), t, depth) / norm


def ndcg(t: GradedRanking, cutoff: Optional[int] = DEFAULT_CUTOFF, logb: float = DEFAULT_LOGB) -> float:
    """Original nDCG@l = DCG(l')/DCG*(l') with the log_b discount (Järvelin & Kekäläinen 2002)."""
    depth = t.depth(cutoff)
    discount = 1.0 / _log_discount(t, logb)
    return _ratio(_discounted_sum(t.g, discount, depth), _discounted_sum(t.g_ideal, discount, depth))


def msndcg(t: GradedRanking, cutoff: Optional[int] = DEFAULT_CUTOFF) -> float:
    """"Microsoft" nDCG@l: discount 1/log(r + 1) at every rank (Burges et al. 2005, linear gains here)."""
    depth = t.depth(cutoff)
    discount = 1.0 / log2_discounts(t.L)                # libm's log2 of 2..L+1 (numpy's depends on the CPU)
    return _ratio(_discounted_sum(t.g, discount, depth), _discounted_sum(t.g_ideal, discount, depth))


def precision(t: GradedRanking, cutoff: int = DEFAULT_CUTOFF) -> float:
    """Prec@l = count(l')/l — still divided by l when l > L."""
    depth = t.depth(cutoff)
    return float(t.count[depth - 1]) / int(cutoff) if depth else 0.0


def hit(t: GradedRanking, cutoff: int = DEFAULT_CUTOFF) -> float:
    """Hit@l = 1 if a relevant document is in the top l', else 0."""
    depth = t.depth(cutoff)
    return 1.0 if depth and t.count[depth - 1] > 0 else 0.0


def reciprocal_rank(t: GradedRanking) -> float:
    """RR = 1/r1, 0 if no relevant document was retrieved."""
    r1 = t.first_relevant_rank()
    return 1.0 / r1 if r1 else 0.0


def err(t: GradedRanking, cutoff: Optional[int] = None) -> float:
    """ERR = Σ (1/r) s(r) Π_{i<r}(1 − s(i)), s = g/(g_max + 1) (Chapelle et al. 2009, NTCIREVAL's stop
    probability); no cutoff = ranks 1..syslen."""
    depth = t.syslen if cutoff is None else t.depth(cutoff)
    return _cascade(t.g / (t.g_max + 1.0), 1.0 / t.ranks, depth)


def nerr(t: GradedRanking, cutoff: Optional[int] = DEFAULT_CUTOFF) -> float:
    """nERR@l = ERR@l divided by the same cascade over the ideal list."""
    depth = t.depth(cutoff)
    return _ratio(_cascade(t.g / (t.g_max + 1.0), 1.0 / t.ranks, depth),
                  _cascade(t.g_ideal / (t.g_max + 1.0), 1.0 / t.ranks, depth))


def rbp(t: GradedRanking, cutoff: Optional[int] = None, p: float = DEFAULT_RBP_P) -> float:
    """RBP = ((1 − p)/g_max) Σ g(r) p^(r−1) (Moffat & Zobel 2008, graded); no cutoff = ranks 1..syslen."""
    depth = t.syslen if cutoff is None else t.depth(cutoff)
    return (1.0 - p) / t.g_max * _discounted_sum(t.g, power_table(p, t.L), depth)


def nrbp(t: GradedRanking, cutoff: Optional[int] = None, p: float = DEFAULT_RBP_P) -> float:
    """nRBP@l = Σ g(r) p^(r−1) / Σ g*(r) p^(r−1) over r ≤ l'."""
    depth = t.depth(cutoff)
    discount = power_table(p, t.L)                      # p ** (r - 1), libm's pow
    return _ratio(_discounted_sum(t.g, discount, depth), _discounted_sum(t.g_ideal, discount, depth))


def irbu(t: GradedRanking, cutoff: Optional[int] = None, p: float = DEFAULT_IRBU_P) -> float:
    """iRBU@l = Σ p^r s(r) Π_{i<r}(1 − s(i)) over r ≤ l' (Sakai & Zeng's intentwise rank-biased utility)."""
    return _cascade(t.g / (t.g_max + 1.0), power_table(p, t.L + 1)[1:], t.depth(cutoff))


def nirbu(t: GradedRanking, cutoff: Optional[int] = None, p: float = DEFAULT_IRBU_P) -> float:
    """niRBU@l = iRBU@l divided by the same cascade over the ideal list."""
    depth = t.depth(cutoff)
    discount = power_table(p, t.L + 1)[1:]              # p ** r, libm's pow
    return _ratio(_cascade(t.g / (t.g_max + 1.0), discount, depth),
                  _cascade(t.g_ideal / (t.g_max + 1.0), discount, depth))


def o_measure(t: GradedRanking, beta: float = DEFAULT_BETA) -> float:
    """O-measure = BR(r1), 0 if nothing relevant retrieved (Sakai 2006)."""
    r1 = t.first_relevant_rank()
    return float(_blended_ratio(t, beta)[r1 - 1]) if r1 else 0.0


def p_measure(t: GradedRanking, beta: float = DEFAULT_BETA) -> float:
    """P-measure = BR(rp), rp = first rank holding the highest level retrieved (Sakai 2006)."""
    rp = t.first_top_level_rank()
    return float(_blended_ratio(t, beta)[rp - 1]) if rp else 0.0


def p_plus(t: GradedRanking, beta: float = DEFAULT_BETA) -> float:
    """P+ = mean of BR(r) over the relevant ranks r ≤ rp (Sakai 2007)."""
    rp = t.first_top_level_rank()
    if not rp:
        return 0.0
    return _sum_at_relevant(_blended_ratio(t, beta), t, rp) / float(t.count[rp - 1])


def ncu(t: GradedRanking, stop: str = "gu", utility: str = "P", beta: float = DEFAULT_BETA,
        gamma: float = DEFAULT_GAMMA, stops: Optional[Sequence[float]] = None) -> float:
    """NCU = Σ_{relevant r} Pr(stop at r) · NU(r) (Sakai & Robertson 2008).

    stop `gu` (graded-uniform): Pr = stop value of the level / Σ over judged relevant docs of their stop values
    (stop values default to the gains, as NTCIREVAL's `-s`); `rb` (rank-biased): Pr = γ^(count(r)−1) /
    Σ_{i<R} γ^i. utility `P` = precision, `BR` = blended ratio with β.
    """
    values = _blended_ratio(t, beta if utility == "BR" else 0.0)
    if stop == "gu":
        stop_of = np.array((0.0,) + tuple(stops if stops is not None else t.gains))
        pr = stop_of[np.concatenate([t.levels, np.zeros(t.L - t.syslen, dtype=np.int64)])]
        pr = pr / running_total(t.level_counts[1:] * stop_of[1:])
    else:
        # gamma ** (count(r) - 1) at the relevant ranks, where count(r) >= 1 (the others are not summed)
        powers = power_table(gamma, max(t.R, int(t.count[-1])) + 1)
        pr = powers[np.maximum(t.count - 1, 0)] / running_total(powers[:t.R])
    return _sum_at_relevant(values * pr, t, t.L)


# ------------------------------------------------------------------------------------------- registry ---
@dataclass(frozen=True)
class NtcirMeasure:
    """A measure family: canonical name, NTCIREVAL's output name, whether it takes a cutoff, parameters."""

    family: str                      # canonical family name (measures/names.py)
    ntcireval: str                   # NTCIREVAL's output name (cutoff measures: name before "@")
    help: str
    compute: Callable[..., float]
    cutoff: str = "none"             # none | optional | required
    params: Dict[str, float] = field(default_factory=dict)   # parameter -> default
    citation: str = ""


# Citations of the registry entries.
SAKAI_2004 = "Sakai, T.: New performance metrics based on multigrade relevance, NTCIR-4 (2004)"
JARVELIN_2002 = "Järvelin, K., Kekäläinen, J.: Cumulated gain-based evaluation of IR techniques, TOIS (2002)"
BURGES_2005 = "Burges, C. et al.: Learning to rank using gradient descent, ICML (2005)"
CHAPELLE_2009 = "Chapelle, O. et al.: Expected reciprocal rank for graded relevance, CIKM (2009)"
MOFFAT_2008 = "Moffat, A., Zobel, J.: Rank-biased precision for measurement of retrieval effectiveness, TOIS (2008)"
SAKAI_2007_IPM = "Sakai, T.: On the reliability of IR metrics based on graded relevance, IP&M 43(2) (2007)"
SAKAI_2007_TOD = "Sakai, T.: On the properties of evaluation metrics for finding one highly relevant document (2007)"
SAKAI_ROBERTSON_2008 = "Sakai, T., Robertson, S.: Modelling a user population for designing IR metrics, EVIA (2008)"
SAKAI_ZENG_2019 = "Sakai, T., Zeng, Z.: Which diversity evaluation measures are 'good'?, SIGIR (2019) (iRBU)"

FAMILIES: Dict[str, NtcirMeasure] = {}


def _family(*args, **kwargs) -> None:
    measure = NtcirMeasure(*args, **kwargs)
    FAMILIES[measure.family] = measure


_family("AP", "AP", "average precision; AP@l divides by min(l, R)", average_precision, "optional")
_family("Q", "Q-measure", "Q-measure: AP with blended ratios (graded)", q_measure, "optional",
        {"beta": DEFAULT_BETA},
        citation=SAKAI_2004)
_family("nDCG", "nDCG", "original nDCG@l (Järvelin-Kekäläinen, log_b discount)", ndcg, "required",
        {"logb": DEFAULT_LOGB},
        citation=JARVELIN_2002)
_family("MSnDCG", "MSnDCG", "'Microsoft' nDCG@l (discount 1/log2(r+1))", msndcg, "required",
        citation=BURGES_2005)
_family("P", "P", "precision at l (count(l')/l)", precision, "required")
_family("Hit", "Hit", "1 if a relevant document is in the top l", hit, "required")
_family("RR", "RR", "reciprocal rank of the first relevant document", reciprocal_rank)
_family("ERR", "ERR", "expected reciprocal rank, s = g/(g_max+1)", err, "optional",
        citation=CHAPELLE_2009)
_family("nERR", "nERR", "ERR@l normalised by the ideal list", nerr, "required",
        citation=CHAPELLE_2009)
_family("RBP", "RBP", "rank-biased precision, graded", rbp, "optional", {"p": DEFAULT_RBP_P},
        citation=MOFFAT_2008)
_family("nRBP", "nRBP", "RBP normalised by the ideal list", nrbp, "optional", {"p": DEFAULT_RBP_P},
        citation=MOFFAT_2008)
_family("iRBU", "iRBU", "intentwise rank-biased utility cascade", irbu, "optional", {"p": DEFAULT_IRBU_P},
        citation=SAKAI_ZENG_2019)
_family("niRBU", "niRBU", "iRBU normalised by the ideal list", nirbu, "optional", {"p": DEFAULT_IRBU_P},
        citation=SAKAI_ZENG_2019)
_family("Omeasure", "O-measure", "blended ratio at the first relevant rank", o_measure, params={"beta": 1.0},
        citation=SAKAI_2007_IPM)
_family("Pmeasure", "P-measure", "blended ratio at the first top-level rank", p_measure, params={"beta": 1.0},
        citation=SAKAI_2007_TOD)
_family("Pplus", "P-plus", "mean blended ratio over relevant ranks up to the first top-level rank", p_plus,
        params={"beta": 1.0},
        citation=SAKAI_2007_TOD)
_family("NCUguP", "NCUgu,P", "NCU, graded-uniform stopping, precision utility",
        lambda t: ncu(t, "gu", "P"), citation=SAKAI_ROBERTSON_2008)
_family("NCUguBR", "NCUgu,BR", "NCU, graded-uniform stopping, blended-ratio utility",
        lambda t, beta=DEFAULT_BETA: ncu(t, "gu", "BR", beta=beta), params={"beta": DEFAULT_BETA},
        citation=SAKAI_ROBERTSON_2008)
_family("NCUrbP", "NCUrb,P", "NCU, rank-biased stopping, precision utility",
        lambda t, gamma=DEFAULT_GAMMA: ncu(t, "rb", "P", gamma=gamma), params={"gamma": DEFAULT_GAMMA},
        citation=SAKAI_ROBERTSON_2008)
_family("NCUrbBR", "NCUrb,BR", "NCU, rank-biased stopping, blended-ratio utility",
        lambda t, beta=DEFAULT_BETA, gamma=DEFAULT_GAMMA: ncu(t, "rb", "BR", beta=beta, gamma=gamma),
        params={"beta": DEFAULT_BETA, "gamma": DEFAULT_GAMMA}, citation=SAKAI_ROBERTSON_2008)


def mean_over_topics(per_topic: Dict[str, Dict[str, float]], topics: Sequence[str], names: List[str],
                     missing: float = 0.0) -> Dict[str, float]:
    """NEV2mean: the mean of each measure over `topics`; a topic absent from `per_topic` counts as `missing`."""
    if not topics:
        return {name: 0.0 for name in names}
    return {name: float(np.mean([per_topic[t][name] if t in per_topic else missing for t in topics]))
            for name in names}
