"""How the measures agree: Kendall's tau-b between the run rankings by each pair of measures, with a bootstrap
interval.

Why a module of its own: overview papers report tau between measures with a confidence interval, and the
asymptotic interval DialEval-2 used reached 1.026, outside tau's range. What the interval is for: the tau that the
two measures' rankings of these runs have on a topic set of this size, E[tau_n] (the tau of another sample of n
topics from the same population would fall around it). Its standard error is the standard deviation of tau over
bootstrap samples of the topics (the runs' means are recomputed on each sample, then tau), and the interval is the
normal one on Fisher's z = atanh(tau), mapped back with tanh, so it stays inside (-1, 1), contains the point
estimate, and is longer on the side away from the bound, as tau's own distribution near 1 is (Fisher 1921; for
Kendall's tau Fieller, Hartley and Pearson 1957; the bootstrap standard error: Efron and Tibshirani 1993, ch. 6
and 12). Why not the percentile or BCa interval: resampling topics adds noise to the means, so bootstrap taus lie
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


def fisher_interval(tau: float, se: float, confidence: float):
    """(low, high, note): tanh(atanh(tau) -+ z se / (1 - tau^2)), the normal interval on Fisher's z with the
    standard error carried over by the delta method. At tau = +-1 z is infinite: the normal interval on tau itself,
    cut at the bound, with a note."""
    z = float(special.ndtri(0.5 + confidence / 2.0))
    if se == 0.0:
        return tau, tau, ""
    if abs(tau) < 1.0:
        centre, spread = math.atanh(tau), z * se / (1.0 - tau * tau)
        return math.tanh(centre - spread), math.tanh(centre + spread), ""
    return (max(-1.0, tau - z * se), min(1.0, tau + z * se),
            "tau is %d: the interval is the normal one on tau, cut at %d" % (tau, tau))


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
                se = standard_deviation(taus)
                low, high, note = fisher_interval(tau, se, confidence)
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
