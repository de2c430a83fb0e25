"""How the measures agree: Kendall's tau-b between the run rankings by each pair of measures, with a bootstrap
interval.

Why a module of its own: overview papers report tau between measures with a confidence interval, and the
asymptotic interval DialEval-2 used reached 1.026, outside tau's range. What the interval is for: the tau that the
two measures' rankings of these runs have on a topic set of this size, E[tau_n] (the tau of another sample of n
topics from the same population would fall around it). Its standard error is the standard deviation of tau over
bootstrap samples of the topics (the runs' means are recomputed on each sample, then tau), and the interval is the
normal one on Fisher's z = atanh(tau) (its half-width from the bootstrap's spread, not by the delta method at tau,
whose se / (1 - tau^2) explodes near 1: fisher_interval), mapped back with tanh, so it stays inside [-1, 1],
contains the point estimate, and is longer on the side away from the bound, as tau's own distribution near 1 is
(Fisher 1921; for Kendall's tau Fieller, Hartley and Pearson 1957; the bootstrap standard error: Efron and
Tibshirani 1993, ch. 6 and 12). Why not the percentile or BCa interval: resampling topics adds noise to the means, so bootstrap taus lie
below the observed tau (pairs of close runs swap more often), by more than their spread when runs are many and
close: the percentile interval then excludes the estimate, and BCa cannot reach beyond the replicates; the
coverage simulation (tests/test_report_tau_coverage.py, docs/report.md) measures all of them.
tau-b is computed here with numpy for many samples at once (checked against scipy.stats.kendalltau); equal means
are equal by runscore.ties' rule, in the observed means and in every bootstrap sample.
"""
import itertools
import math
import warnings
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence

import numpy as np
from scipy import special

from .. import ties

DEFAULT_TAU_BOOTSTRAP = 1000
_PAIRS_PER_BLOCK = 1000000     # (samples x run pairs) differences held at once: 8 MB a temporary


def kendall_tau_b(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """tau-b of the rows of x and y (samples x runs, or one vector); NaN where a ranking is all ties.

    tau_b = (concordant - discordant) / sqrt((n0 - n1)(n0 - n2)), n0 = pairs, n1 / n2 = pairs tied in x / y.
    """
    return tau_from_signs(pair_signs(x), pair_signs(y))


def pair_signs(x: np.ndarray) -> np.ndarray:
    """sign(x[i] - x[j]) for every pair of runs i < j of each row (samples x pairs, int8): made once a measure,
    not once a pair of measures (a report of 8 measures pairs each with 7 others, over 1,000 samples). A row with
    a NaN (a bootstrap sample without a value for some run) gets no sign at all, so its tau is NaN."""
    x = np.atleast_2d(np.asarray(x, dtype=np.float64))
    i, j = np.triu_indices(x.shape[1], k=1)
    out = np.empty((x.shape[0], i.size), dtype=np.int8)
    block = max(1, _PAIRS_PER_BLOCK // max(1, i.size))
    for start in range(0, x.shape[0], block):
        rows = x[start:start + block]
        difference = rows[:, i] - rows[:, j]
        difference[np.isnan(difference).any(axis=1)] = 0.0
        out[start:start + block] = np.sign(difference)
    return out


def tau_from_signs(sx: np.ndarray, sy: np.ndarray) -> np.ndarray:
    """tau-b of each row from the pairs' signs (pair_signs): the sums are of integers, exact in any order."""
    out = np.empty(sx.shape[0], dtype=np.float64)
    block = max(1, _PAIRS_PER_BLOCK // max(1, sx.shape[1]))
    for start in range(0, sx.shape[0], block):
        bx, by = sx[start:start + block], sy[start:start + block]
        numerator = np.multiply(bx, by).sum(axis=1, dtype=np.int64)
        denominator = np.sqrt(np.count_nonzero(bx, axis=1).astype(np.float64) * np.count_nonzero(by, axis=1))
        with np.errstate(invalid="ignore", divide="ignore"):
            out[start:start + block] = np.where(denominator > 0, numerator / np.where(denominator > 0, denominator,
                                                                                     1.0), np.nan)
    return out


def _resampled_means(values: np.ndarray, picks: np.ndarray) -> np.ndarray:
    """samples x runs means of the drawn topics (NaN cells, topics outside a measure's set, are skipped)."""
    out = np.empty((picks.shape[0], values.shape[1]), dtype=np.float64)
    has_gaps = bool(np.isnan(values).any())
    block = max(1, _PAIRS_PER_BLOCK // max(1, values.size))
    for start in range(0, picks.shape[0], block):
        drawn = values[picks[start:start + block]]                  # samples x topics x runs
        with warnings.catch_warnings():              # a run with no drawn topic: NaN, its tau replicate is dropped
            warnings.simplefilter("ignore", RuntimeWarning)
            out[start:start + block] = np.nanmean(drawn, axis=1) if has_gaps else drawn.mean(axis=1)
    return out


@dataclass
class TauRow:
    measure_a: str
    measure_b: str
    tau: float
    ci_low: Optional[float]
    ci_high: Optional[float]
    note: str = ""
    se: Optional[float] = None          # bootstrap standard error of tau


def standard_deviation(values: np.ndarray) -> float:
    """The sample standard deviation (n - 1), its sums correctly rounded (math.fsum): the same bits on every CPU,
    whatever order numpy's vectorised sum would take."""
    values = [float(v) for v in values]
    mean = math.fsum(values) / len(values)
    return math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (len(values) - 1))


def fisher_interval(tau: float, replicates: np.ndarray, pairs: int, confidence: float):
    """(low, high, se, note): the normal interval on Fisher's z = atanh(tau), mapped back with tanh; se is the
    standard deviation of the bootstrap taus.

    The half-width on z is the larger of two measures of the same spread: the delta method's z se / (1 - t^2)
    with its derivative taken at t = halfway between tau and the bootstrap taus' mean, and z times the standard
    deviation of the bootstrap taus' own z values. Why not the delta method at tau itself (the interval before):
    near 1 its derivative explodes, and tau 0.986 with se 0.073 gave [-0.99, 1.00], while the bootstrap taus lie
    below tau, where the spread was measured. Why not either alone: the first under-covers where bootstrap taus
    bunch up near 1 (20 runs, tau near 0.97), the second where they lie well below tau (close runs); the larger
    held E[tau_n] in 0.94 to 1.00 of the simulated campaigns of every scenario (docs/report.md).
    z is infinite at +-1, so every tau (the estimate and the replicates) is first kept within the bound `edge` =
    1 - 1/(pairs of runs), halfway from 1 to the nearest tau a ranking of these runs can have (one discordant
    pair: 1 - 2/pairs); at tau = +-1 the interval reaches the bound itself."""
    z = float(special.ndtri(0.5 + confidence / 2.0))
    replicates = np.asarray(replicates, dtype=np.float64)
    if bool(np.all(replicates == replicates[0])):
        return tau, tau, 0.0, ""            # every sample ranks the runs alike (exact: no rounding of a mean)
    se = standard_deviation(replicates)
    edge = 1.0 - 1.0 / max(1, pairs)
    if abs(tau) < 1.0:
        edge = max(edge, (abs(tau) + 1.0) / 2.0)
    if edge <= 0.0:                 # two runs: tau is -1 or 1 only, z has no room; the normal interval on tau
        return (max(-1.0, tau - z * se), min(1.0, tau + z * se), se,
                "tau is %d: the interval is the normal one on tau, cut at %d" % (tau, tau))

    def kept(t: float) -> float:
        return min(edge, max(-edge, t))

    mean = math.fsum(float(t) for t in replicates) / replicates.size
    halfway = kept((kept(tau) + kept(mean)) / 2.0)
    spread_z = max(se / (1.0 - halfway * halfway),
                   standard_deviation([math.atanh(kept(float(t))) for t in replicates]))
    centre = math.atanh(kept(tau))
    low, high = math.tanh(centre - z * spread_z), math.tanh(centre + z * spread_z)
    if tau >= 1.0:
        high = 1.0
    if tau <= -1.0:
        low = -1.0
    return low, high, se, ""


def outside_note(tau: float, low: Optional[float], high: Optional[float]) -> str:
    """Said in tau.csv when the estimate is not inside its interval (by construction it never should be)."""
    if low is None or high is None or tau != tau or low <= tau <= high:
        return ""
    return "tau lies outside its interval"


def tau_table(means: Dict[str, np.ndarray], per_topic: Dict[str, Optional[np.ndarray]], samples: int, seed: int,
              confidence: float = 0.95) -> List[TauRow]:
    """tau-b for each pair of measures (in the order given) from the runs' means, and its interval
    (fisher_interval) with the standard deviation of tau over `samples` bootstrap samples of the topics (one draw of
    topic indices shared by every measure, numpy's default_rng(seed)).

    per_topic[measure]: topics x runs values whose column means are the runs' means (None when the measure has no
    such values: its interval is left empty with a note). Measures averaged over different topic sets share the
    same drawn topic positions of the union set, each averaging only over its own topics (NaN elsewhere).
    """
    names = list(means)
    n_topics = max((v.shape[0] for v in per_topic.values() if v is not None), default=0)
    replicates: Dict[str, np.ndarray] = {}
    if n_topics and samples > 0:
        rng = np.random.default_rng(seed)
        picks = rng.integers(0, n_topics, size=(samples, n_topics))
        for name in names:
            values = per_topic.get(name)
            if values is None:
                continue
            replicates[name] = pair_signs(ties.tie_classes(_resampled_means(values, picks), n_topics))
    rows = []
    for a, b in itertools.combinations(names, 2):
        tau = float(kendall_tau_b(ties.tie_classes(means[a], n_topics), ties.tie_classes(means[b], n_topics))[0])
        low = high = se = None
        notes = []
        if math.isnan(tau):
            notes.append("a ranking ties every run: tau-b is undefined")
        elif a in replicates and b in replicates:
            taus = tau_from_signs(replicates[a], replicates[b])
            taus = taus[np.isfinite(taus)]
            if taus.size >= 2:
                pairs = replicates[a].shape[1]
                low, high, se, note = fisher_interval(tau, taus, pairs, confidence)
                notes += [note, outside_note(tau, low, high)]
            else:
                notes.append("fewer than 2 bootstrap samples rank the runs: no standard error")
        else:
            missing = [name for name in (a, b) if name not in replicates]
            notes.append("no per-topic values of %s to resample" % " and ".join(missing))
        rows.append(TauRow(a, b, tau, low, high, "; ".join(n for n in notes if n), se))
    return rows


def tau_matrix(rows: Sequence[TauRow], names: Sequence[str]) -> np.ndarray:
    """The symmetric measures x measures matrix of tau (1 on the diagonal), for the heat map."""
    index = {name: k for k, name in enumerate(names)}
    matrix = np.eye(len(names))
    for row in rows:
        matrix[index[row.measure_a], index[row.measure_b]] = matrix[index[row.measure_b], index[row.measure_a]] = \
            row.tau
    return matrix
