"""Comparing systems: which differences between runs are real, as evaluation campaigns report them.

Why a module of its own: organisers rank runs and must say which differences are significant. Every function
here works on one topics x runs matrix of per-topic scores (rows = topics, columns = runs) and is pure and
deterministic for a fixed seed, so the CLI (`runscore compare`), the detailed results page and the tests all
see the same numbers. Conventions (which topics, what a missing topic scores, tie rules) are documented in
docs/compare.md.
"""
import html
import math
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
from scipy import special        # not scipy.stats: its import is 0.25 s more, for three functions

from .errors import ConfigError
from .ties import tie_classes

DEFAULT_TRIALS = 5000          # randomised Tukey HSD trials (Sakai's tools and the NTCIR-19 R2C2 overview)
DEFAULT_BOOTSTRAP = 10000      # bootstrap samples for confidence intervals
DEFAULT_SEED = 0
DEFAULT_CONFIDENCE = 0.95
CORRECTIONS = ("holm", "bonferroni", "none")
WILCOXON_EXACT_MAX_N = 25      # exact null distribution up to this many non-zero differences (as scipy)
_CHUNK_ELEMENTS = 2000000      # random numbers drawn per block: bounds memory, does not change results


# ---------------------------------------------------------------------------------------- the matrix ---

@dataclass
class ScoreMatrix:
    """Per-topic scores of one measure: values[t, r] is run r's score on topic t."""

    measure: str
    topics: List[str]
    runs: List[str]
    values: np.ndarray
    notes: List[str] = field(default_factory=list)


def per_topic_measure_names(scored: Sequence[Tuple[Any, Any]]) -> List[str]:
    """Every measure some run has a per-topic value of, sorted."""
    return sorted({name for _, scores in scored for row in scores.per_topic.values() for name in row})


def choose_measure(task, scored: Sequence[Tuple[Any, Any]], measure: Optional[str]) -> str:
    """The measure asked for (any spelling Task.measure_key accepts: `map`, `AP`, `P@10`, the leaderboard key),
    or the task's primary measure; a name with no per-topic values is a usage error naming the close ones."""
    available = per_topic_measure_names(scored)
    wanted = measure if measure is not None else task.primary.measure
    if wanted in available:
        return wanted
    if measure is None:
        raise ConfigError("primary measure %r has no per-topic values in task %s; per-topic measures: %s"
                          % (wanted, task.id, ", ".join(available) or "none"))
    return task.measure_key(wanted, available, "per-topic")


def run_labels(scored: Sequence[Tuple[Any, Any]]) -> List[str]:
    """Run names, made unique with the file name when two runs share one (the same Run-ID in two files)."""
    names = [run.name for run, _ in scored]
    labels = []
    for run, _ in scored:
        label = run.name if names.count(run.name) == 1 else "%s@%s" % (run.name, run.path)
        while label in labels:
            label += "'"
        labels.append(label)
    return labels


def build_matrix(scored: Sequence[Tuple[Any, Any]], measure: str) -> ScoreMatrix:
    """The topics x runs matrix of `measure` from (ParsedRun, RunScores) pairs.

    Topics: every topic for which the task gives at least one run a value of `measure` (the task owns the
    topic set: ntcir1-adhoc scores every official topic, 0 where a run has no ranking). A topic the task scored
    for some runs but not for others counts 0 for the others, with a note.
    """
    labels = run_labels(scored)
    topics: List[str] = []
    seen = set()
    for _, scores in scored:
        for topic, row in scores.per_topic.items():
            if measure in row and topic not in seen:
                seen.add(topic)
                topics.append(topic)
    values = np.zeros((len(topics), len(scored)), dtype=np.float64)
    notes = []
    for column, (label, (_, scores)) in enumerate(zip(labels, scored)):
        missing = []
        for row_index, topic in enumerate(topics):
            value = scores.per_topic.get(topic, {}).get(measure)
            if value is None:
                missing.append(topic)
            else:
                values[row_index, column] = float(value)
        if missing:
            notes.append("%s: no %s value for %d topic(s), counted as 0: %s"
                         % (label, measure, len(missing), ", ".join(missing[:10]) + (" ..." if len(missing) > 10
                                                                                   else "")))
        overall = scores.measures.get(measure)
        if overall is not None and topics and not math.isclose(overall, values[:, column].mean(),
                                                                rel_tol=1e-9, abs_tol=1e-12):
            notes.append("%s: the run's overall %s (%.4f) is not the mean of its per-topic values (%.4f); "
                         "the tests compare per-topic means" % (label, measure, overall, values[:, column].mean()))
    bad = ~np.isfinite(values)
    if bad.any():
        raise ConfigError("per-topic %s values are not finite numbers (e.g. topic %s)"
                          % (measure, topics[int(np.argwhere(bad)[0][0])]))
    return ScoreMatrix(measure, topics, labels, values, notes)


# ---------------------------------------------------------------------------------------- paired tests ---

@dataclass(frozen=True)
class TestResult:
    """statistic, two-sided p-value, and the test's size parameter (df of t; non-zero differences of Wilcoxon)."""

    statistic: float
    p_value: float
    size: int
    method: str = ""


def paired_t_test(x: Sequence[float], y: Sequence[float]) -> TestResult:
    """Student's paired t-test of mean(x - y) = 0, two-sided, df = n - 1.

    Edge cases: all differences zero -> t = 0, p = 1 (no evidence); constant non-zero differences -> t = +-inf,
    p = 0. Needs n >= 2.
    """
    d = np.asarray(x, dtype=np.float64) - np.asarray(y, dtype=np.float64)
    n = d.size
    if n < 2:
        raise ConfigError("a paired t-test needs at least 2 topics, got %d" % n)
    mean = d.mean()
    sd = d.std(ddof=1)
    if sd == 0.0:
        if mean == 0.0:
            return TestResult(0.0, 1.0, n - 1, "t")
        return TestResult(math.copysign(math.inf, mean), 0.0, n - 1, "t")
    t = mean / (sd / math.sqrt(n))
    return TestResult(float(t), float(min(1.0, 2.0 * special.stdtr(n - 1, -abs(t)))), n - 1, "t")


def average_ranks(values: np.ndarray) -> np.ndarray:
    """Ranks 1..n, tied values sharing the mean of their ranks: scipy.stats.rankdata's default, whose values
    (halves of integers) this gives exactly; the t and normal tails of the tests are scipy.stats' own formulas
    (t.sf = special.stdtr(df, -x), norm.sf = special.ndtr(-x)), without importing scipy.stats."""
    order = np.argsort(values, kind="mergesort")
    ordered = values[order]
    starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    sizes = np.diff(np.append(starts, ordered.size))
    ranks = np.empty(ordered.size, dtype=np.float64)
    ranks[order] = np.repeat(starts + (sizes + 1) / 2.0, sizes)
    return ranks


def _signed_rank_counts(n: int) -> np.ndarray:
    """counts[w] = number of sign patterns of ranks 1..n whose positive ranks sum to w (exact null of W+)."""
    counts = np.zeros(n * (n + 1) // 2 + 1, dtype=np.float64)
    counts[0] = 1.0
    for rank in range(1, n + 1):
        counts[rank:] = counts[rank:] + counts[:-rank].copy()
    return counts


def wilcoxon_signed_rank(x: Sequence[float], y: Sequence[float]) -> TestResult:
    """Wilcoxon signed-rank test of x - y, two-sided; statistic = min(W+, W-).

    Zero differences are dropped (Wilcoxon's rule; scipy's and R's default). Exact null distribution when at
    most 25 differences remain and their absolute values have no ties; otherwise the normal approximation with
    the tie correction of the variance and no continuity correction. All differences zero -> p = 1.
    """
    d = np.asarray(x, dtype=np.float64) - np.asarray(y, dtype=np.float64)
    d = d[d != 0.0]
    n = d.size
    if n == 0:
        return TestResult(0.0, 1.0, 0, "no non-zero difference")
    ranks = average_ranks(np.abs(d))
    w_plus = float(ranks[d > 0].sum())
    w_minus = float(ranks[d < 0].sum())
    statistic = min(w_plus, w_minus)
    has_ties = np.unique(np.abs(d)).size < n
    if n <= WILCOXON_EXACT_MAX_N and not has_ties:
        counts = _signed_rank_counts(n)
        total = 2.0 ** n
        w = int(round(statistic))             # no ties: ranks are integers
        p = 2.0 * counts[:w + 1].sum() / total
        return TestResult(statistic, float(min(1.0, p)), n, "exact")
    mean = n * (n + 1) / 4.0
    variance = n * (n + 1) * (2 * n + 1) / 24.0
    _, tie_sizes = np.unique(ranks, return_counts=True)
    variance -= float((tie_sizes ** 3 - tie_sizes).sum()) / 48.0
    if variance <= 0.0:
        return TestResult(statistic, 1.0, n, "normal approximation")
    z = (statistic - mean) / math.sqrt(variance)
    return TestResult(statistic, float(min(1.0, 2.0 * special.ndtr(-abs(z)))), n, "normal approximation")


def adjust_p_values(p_values: Sequence[float], method: str) -> np.ndarray:
    """Family-wise correction: Holm's step-down (default), Bonferroni, or none; results are capped at 1."""
    p = np.asarray(p_values, dtype=np.float64)
    m = p.size
    if method == "none" or m == 0:
        return p.copy()
    if method == "bonferroni":
        return np.minimum(1.0, p * m)
    if method != "holm":
        raise ConfigError("unknown correction %r; one of %s" % (method, ", ".join(CORRECTIONS)))
    order = np.argsort(p, kind="stable")
    # + 0.0 turns a -0.0 p-value into +0.0: numpy's maximum picks between -0.0 and +0.0 by the CPU's SIMD loop.
    stepped = np.maximum.accumulate((m - np.arange(m)) * p[order] + 0.0)
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(1.0, stepped)
    return adjusted


# ---------------------------------------------------------------------------------------- randomised Tukey HSD ---

def _blocks(total: int, per_item: int):
    """(start, size) blocks of `total` items, each of at most _CHUNK_ELEMENTS numbers."""
    size = max(1, min(total, _CHUNK_ELEMENTS // max(1, per_item)))
    for start in range(0, total, size):
        yield start, min(size, total - start)


def tukey_trial_ranges(values: np.ndarray, trials: int, seed: int) -> np.ndarray:
    """max - min of the run means in each trial, where every topic's row of scores is shuffled independently.

    Random keys: trial b, topic t draws m uniforms (numpy's default_rng(seed), in that order) and the row is
    permuted by their stable argsort. Drawing in blocks does not change the stream, so the result depends only
    on (values, trials, seed).
    """
    values = np.asarray(values, dtype=np.float64)
    n, m = values.shape
    rng = np.random.default_rng(seed)
    ranges = np.empty(trials, dtype=np.float64)
    for start, size in _blocks(trials, n * m):
        keys = rng.random((size, n, m))
        order = np.argsort(keys, axis=2, kind="stable")
        permuted = np.take_along_axis(np.broadcast_to(values, (size, n, m)), order, axis=2)
        means = permuted.mean(axis=1)
        ranges[start:start + size] = means.max(axis=1) - means.min(axis=1)
    return ranges


def tie_tolerance(values: np.ndarray) -> float:
    """Differences within this are equal: means summed in another order differ in the last bits."""
    return 1e-12 * max(1.0, float(np.abs(values).max()) if values.size else 1.0)


def randomised_tukey_hsd(values: np.ndarray, trials: int = DEFAULT_TRIALS, seed: int = DEFAULT_SEED) -> np.ndarray:
    """Sakai's randomised Tukey HSD: p[i, j] = share of trials whose max - min of run means >= |mean_i - mean_j|.

    One test for the whole family of pairs (the max - min statistic controls the family-wise error), so its
    p-values need no further correction. Ties within tie_tolerance count as reaching the observed difference.
    """
    values = np.asarray(values, dtype=np.float64)
    if trials < 1:
        raise ConfigError("the randomised Tukey HSD needs at least 1 trial, got %d" % trials)
    means = values.mean(axis=0)
    observed = np.abs(means[:, None] - means[None, :])
    ranges = np.sort(tukey_trial_ranges(values, trials, seed))
    reached = trials - np.searchsorted(ranges, observed - tie_tolerance(values), side="left")
    return reached / float(trials)


# ---------------------------------------------------------------------------------------- bootstrap ---

def bootstrap_means(values: np.ndarray, samples: int = DEFAULT_BOOTSTRAP, seed: int = DEFAULT_SEED) -> np.ndarray:
    """Run means of `samples` bootstrap samples of the topics (samples x runs).

    Each sample draws n topics with replacement (default_rng(seed).integers) and keeps every run's score on
    them, so differences of columns are paired bootstrap replicates of the mean difference.
    """
    values = np.asarray(values, dtype=np.float64)
    n, m = values.shape
    if samples < 1:
        raise ConfigError("the bootstrap needs at least 1 sample, got %d" % samples)
    rng = np.random.default_rng(seed)
    out = np.empty((samples, m), dtype=np.float64)
    for start, size in _blocks(samples, n * m):
        picks = rng.integers(0, n, size=(size, n))
        out[start:start + size] = values[picks].mean(axis=1)
    return out


def percentile_interval(replicates: np.ndarray, confidence: float = DEFAULT_CONFIDENCE) -> np.ndarray:
    """Efron's percentile interval: the (1-c)/2 and (1+c)/2 quantiles (linear interpolation) of each column."""
    if not 0.0 < confidence < 1.0:
        raise ConfigError("confidence must be between 0 and 1, got %r" % confidence)
    tail = (1.0 - confidence) / 2.0
    return np.quantile(replicates, [tail, 1.0 - tail], axis=0)


# ---------------------------------------------------------------------------------------- effect sizes ---

def hedges_correction(df: int) -> float:
    """Hedges' small-sample factor J(df) = Gamma(df/2) / (sqrt(df/2) Gamma((df-1)/2)); J(1) = 0."""
    if df < 2:
        return 0.0
    return math.exp(special.gammaln(df / 2.0) - special.gammaln((df - 1) / 2.0)) / math.sqrt(df / 2.0)


def paired_effect_sizes(x: Sequence[float], y: Sequence[float]) -> Tuple[float, float]:
    """(Cohen's d_z, Hedges' g_z): mean difference over the standard deviation of differences (ddof 1), and
    d_z times J(n - 1). Identical runs give 0; constant non-zero differences give +-inf."""
    d = np.asarray(x, dtype=np.float64) - np.asarray(y, dtype=np.float64)
    mean, sd = float(d.mean()), float(d.std(ddof=1))
    if sd == 0.0:
        dz = 0.0 if mean == 0.0 else math.copysign(math.inf, mean)
    else:
        dz = mean / sd
    return dz, (dz * hedges_correction(d.size - 1) if math.isfinite(dz) else dz)


def residual_variance(values: np.ndarray) -> float:
    """V_E: residual mean square of the two-way ANOVA without replication (topics x runs), as Sakai's ES_E
    divides by: sum of (x_tr - topic mean - run mean + grand mean)^2 over (n - 1)(m - 1)."""
    values = np.asarray(values, dtype=np.float64)
    n, m = values.shape
    residual = values - values.mean(axis=1, keepdims=True) - values.mean(axis=0, keepdims=True) + values.mean()
    return float((residual ** 2).sum() / ((n - 1) * (m - 1)))


# ---------------------------------------------------------------------------------------- the analysis ---

@dataclass
class PairComparison:
    """Run a against run b (a has the higher mean); difference = mean(a) - mean(b)."""

    run_a: str
    run_b: str
    difference: float
    difference_ci: Tuple[float, float]
    wins: int
    losses: int
    ties: int
    t: TestResult
    t_p_adjusted: float
    wilcoxon: TestResult
    wilcoxon_p_adjusted: float
    tukey_p: float
    cohen_dz: float
    hedges_gz: float
    effect_size_e: float


@dataclass
class Comparison:
    matrix: ScoreMatrix
    means: np.ndarray
    mean_ci: np.ndarray                  # 2 x runs
    order: List[int]                     # run columns by mean, best first (ties: input order)
    pairs: List[PairComparison]
    trials: int
    bootstrap: int
    seed: int
    confidence: float
    correction: str
    residual_variance: float


def mean_order(means: np.ndarray, topics: int) -> List[int]:
    """Runs by mean, highest first; equal means (runscore.ties: the same number summed from other values) keep
    the order the runs were given in, whatever their last bits say."""
    equal = tie_classes(means, topics)
    return sorted(range(len(means)), key=lambda r: (-equal[r], r))


def compare(matrix: ScoreMatrix, trials: int = DEFAULT_TRIALS, bootstrap: int = DEFAULT_BOOTSTRAP,
            seed: int = DEFAULT_SEED, confidence: float = DEFAULT_CONFIDENCE, correction: str = "holm") -> Comparison:
    """Every test of docs/compare.md on every pair of runs. Needs at least 2 runs and 2 topics."""
    values = matrix.values
    n, m = values.shape
    if m < 2:
        raise ConfigError("comparing needs at least 2 runs, got %d" % m)
    if n < 2:
        raise ConfigError("comparing needs at least 2 topics with %s values, got %d" % (matrix.measure, n))
    if correction not in CORRECTIONS:
        raise ConfigError("unknown correction %r; one of %s" % (correction, ", ".join(CORRECTIONS)))
    means = values.mean(axis=0)
    order = mean_order(means, n)
    equal = tie_classes(means, n)
    replicates = bootstrap_means(values, bootstrap, seed)
    mean_ci = percentile_interval(replicates, confidence)
    tukey = randomised_tukey_hsd(values, trials, seed)
    v_e = residual_variance(values)
    tolerance = tie_tolerance(values)
    raw = []
    for i_pos, a in enumerate(order):
        for b in order[i_pos + 1:]:
            x, y = values[:, a], values[:, b]
            diff_ci = percentile_interval(replicates[:, a] - replicates[:, b], confidence)
            d = x - y
            raw.append((a, b, float(means[a] - means[b]) if equal[a] != equal[b] else 0.0,
                        (float(diff_ci[0]), float(diff_ci[1])),
                        int((d > tolerance).sum()), int((d < -tolerance).sum()), int((np.abs(d) <= tolerance).sum()),
                        paired_t_test(x, y), wilcoxon_signed_rank(x, y), paired_effect_sizes(x, y)))
    t_adjusted = adjust_p_values([r[7].p_value for r in raw], correction)
    w_adjusted = adjust_p_values([r[8].p_value for r in raw], correction)
    pairs = []
    for k, (a, b, diff, ci, wins, losses, ties, t, w, (dz, gz)) in enumerate(raw):
        es_e = diff / math.sqrt(v_e) if v_e > 0 else (0.0 if diff == 0 else math.inf)
        pairs.append(PairComparison(matrix.runs[a], matrix.runs[b], diff, ci, wins, losses, ties, t,
                                    float(t_adjusted[k]), w, float(w_adjusted[k]), float(tukey[a, b]), dz, gz, es_e))
    return Comparison(matrix, means, mean_ci, order, pairs, trials, bootstrap, seed, confidence, correction, v_e)


def _number(value: float) -> Optional[float]:
    """JSON has no infinity or NaN: such values become null (documented)."""
    return float(value) if math.isfinite(value) else None


def comparison_json(comparison: Comparison, task_id: str = "") -> Dict[str, Any]:
    """The whole analysis as plain JSON data (full precision; non-finite values as null)."""
    matrix = comparison.matrix
    return {
        "task": task_id,
        "measure": matrix.measure,
        "settings": {"trials": comparison.trials, "bootstrap": comparison.bootstrap, "seed": comparison.seed,
                     "confidence": comparison.confidence, "correction": comparison.correction},
        "topics": list(matrix.topics),
        "runs": [matrix.runs[r] for r in comparison.order],
        "per_topic": {matrix.runs[r]: {t: float(matrix.values[i, r]) for i, t in enumerate(matrix.topics)}
                      for r in range(len(matrix.runs))},
        "means": {matrix.runs[r]: {"mean": float(comparison.means[r]),
                                   "ci": [float(comparison.mean_ci[0, r]), float(comparison.mean_ci[1, r])]}
                  for r in comparison.order},
        "residual_variance": comparison.residual_variance,
        "pairs": [{"run_a": p.run_a, "run_b": p.run_b, "difference": p.difference,
                   "difference_ci": list(p.difference_ci), "wins": p.wins, "losses": p.losses, "ties": p.ties,
                   "t": {"statistic": _number(p.t.statistic), "df": p.t.size, "p": p.t.p_value,
                         "p_adjusted": p.t_p_adjusted},
                   "wilcoxon": {"statistic": p.wilcoxon.statistic, "n": p.wilcoxon.size,
                                "method": p.wilcoxon.method, "p": p.wilcoxon.p_value,
                                "p_adjusted": p.wilcoxon_p_adjusted},
                   "tukey_hsd_p": p.tukey_p,
                   "effect_size": {"cohen_dz": _number(p.cohen_dz), "hedges_gz": _number(p.hedges_gz),
                                   "es_e": _number(p.effect_size_e)}}
                  for p in comparison.pairs],
        "notes": list(matrix.notes),
    }


def _fmt(value: float, digits: int = 4) -> str:
    if math.isnan(value):
        return "n/a"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return "%.*f" % (digits, value)


def comparison_tables(comparison: Comparison) -> List[Dict[str, Any]]:
    """The analysis as tables {caption, header, rows} of strings: per-topic scores, means, pairs."""
    matrix = comparison.matrix
    level = int(round(comparison.confidence * 100))
    correction = {"none": "uncorrected"}.get(comparison.correction, comparison.correction)
    runs = [matrix.runs[r] for r in comparison.order]
    per_topic = {"caption": "Per-topic %s" % matrix.measure, "header": ["topic"] + runs,
                 "rows": [[t] + [_fmt(matrix.values[i, r]) for r in comparison.order]
                          for i, t in enumerate(matrix.topics)]}
    means = {"caption": "Mean %s over %d topics, %d%% bootstrap CI (%d samples)"
                        % (matrix.measure, len(matrix.topics), level, comparison.bootstrap),
             "header": ["run", "mean", "ci_low", "ci_high"],
             "rows": [[matrix.runs[r], _fmt(comparison.means[r]), _fmt(comparison.mean_ci[0, r]),
                       _fmt(comparison.mean_ci[1, r])] for r in comparison.order]}
    pairs = {"caption": "Pairs: difference with %d%% bootstrap CI; paired t and Wilcoxon p (%s); randomised Tukey "
                        "HSD p (%d trials, seed %d); effect sizes"
                        % (level, correction, comparison.trials, comparison.seed),
             "header": ["run_a", "run_b", "diff", "ci_low", "ci_high", "w/l/t", "t", "p_t", "W", "p_wilcoxon",
                        "p_tukey", "d_z", "g_z", "ES_E"],
             "rows": [[p.run_a, p.run_b, _fmt(p.difference), _fmt(p.difference_ci[0]), _fmt(p.difference_ci[1]),
                       "%d/%d/%d" % (p.wins, p.losses, p.ties), _fmt(p.t.statistic, 3), _fmt(p.t_p_adjusted),
                       _fmt(p.wilcoxon.statistic, 1), _fmt(p.wilcoxon_p_adjusted), _fmt(p.tukey_p),
                       _fmt(p.cohen_dz, 3), _fmt(p.hedges_gz, 3), _fmt(p.effect_size_e, 3)]
                      for p in comparison.pairs]}
    return [per_topic, means, pairs]


# ---------------------------------------------------------------------------------------- the figure ---

def _svg_number(value: float) -> str:
    return ("%.2f" % value).rstrip("0").rstrip(".")


def _legend(y: int, items: Sequence[Tuple[str, str]]) -> List[str]:
    """One row of legend keys at height y: (SVG of a key drawn in a 16 x 10 box at the origin, its label)."""
    parts, x = [], 4
    for key, label in items:
        parts.append('<g transform="translate(%d %d)">%s</g><text x="%d" y="%d">%s</text>'
                     % (x, y - 9, key, x + 20, y, html.escape(label)))
        x += 20 + int(len(label) * 5.6) + 16
    return parts


MEAN_KEYS = (('<line x1="0" y1="5" x2="16" y2="5" stroke="#4a7bd0" stroke-width="2"/><circle cx="8" cy="5" r="4" '
              'fill="#1d2430"/>', "mean (dot) and its bootstrap CI (line)"),)
PAIR_KEYS = (('<rect x="3" y="0" width="10" height="10" fill="#4a7bd0"/>', "a topic where the first run scores higher"),
             ('<rect x="3" y="0" width="10" height="10" fill="#d0664a"/>', "where the second run scores higher"),
             ('<line x1="0" y1="5" x2="16" y2="5" stroke="#8a5a00" stroke-dasharray="4 2"/>', "mean difference"),
             ('<rect x="0" y="0" width="16" height="10" fill="#f3d9a4" opacity="0.6"/>', "CI of the mean difference"))


def figure_svg(comparison: Comparison, max_panels: int = 15) -> str:
    """An inline SVG: run means with CIs, then one panel per pair of runs (every pair, best-ranked run first, up
    to max_panels) with the per-topic differences as bars spread across the plot, the mean difference (dashed)
    and its CI (band), and the topics named under the bars (every k-th when they are too many to name all).
    No scripts, no fonts to load."""
    matrix = comparison.matrix
    width, left, right, row_h = 820, 170, 60, 18
    plot_w = width - left - right
    parts = []
    y = 20

    # Panel 1: means and their CIs on one shared axis.
    low = min(0.0, float(comparison.mean_ci[0].min()))
    high = max(float(comparison.mean_ci[1].max()), low + 1e-9)

    def sx(v: float) -> float:
        return left + (v - low) / (high - low) * plot_w

    parts.append('<text x="4" y="%d" font-weight="bold">Mean %s with %d%% bootstrap CI</text>'
                 % (y, html.escape(matrix.measure), int(round(comparison.confidence * 100))))
    y += 18
    parts.extend(_legend(y, MEAN_KEYS))
    for r in comparison.order:
        y += row_h
        lo, hi, mean = comparison.mean_ci[0, r], comparison.mean_ci[1, r], comparison.means[r]
        parts.append('<text x="4" y="%d">%s</text>' % (y + 4, html.escape(matrix.runs[r][:28])))
        parts.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#4a7bd0" stroke-width="2"/>'
                     % (sx(lo), y, sx(hi), y))
        parts.append('<circle cx="%.1f" cy="%d" r="4" fill="#1d2430"><title>%s: %.4f [%.4f, %.4f]</title></circle>'
                     % (sx(mean), y, html.escape(matrix.runs[r]), mean, lo, hi))
        parts.append('<text x="%.1f" y="%d">%.4f</text>' % (left + plot_w + 6, y + 4, mean))
    y += 14
    parts.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#9aa3b2"/>' % (left, y, left + plot_w, y))
    for i in range(5):
        tick = low + (high - low) * i / 4.0
        parts.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#9aa3b2"/><text x="%.1f" y="%d" '
                     'text-anchor="middle">%s</text>' % (sx(tick), y, sx(tick), y + 4, sx(tick), y + 15,
                                                          _svg_number(tick)))
    y += 36

    # Panels 2..: per-topic differences a - b for every pair, on a symmetric axis; bars fill the plot's width.
    n = len(matrix.topics)
    slot = plot_w / float(max(1, n))
    bar_w = max(0.6, min(36.0, slot * 0.8))
    label_every = max(1, int(math.ceil(13.0 / slot)))        # topic labels need about 13 px each
    longest = max((len(t) for t in matrix.topics), default=1)
    label_h = int(min(16, longest) * 5.2) + 8
    panel_h = 110
    index = {name: r for r, name in enumerate(matrix.runs)}
    pairs = comparison.pairs[:max_panels]
    if pairs:                    # one key for every pair panel below
        parts.extend(_legend(y, PAIR_KEYS))
        y += 26
    for pair in pairs:
        a, b = index[pair.run_a], index[pair.run_b]
        diffs = matrix.values[:, a] - matrix.values[:, b]
        scale = max(1e-9, float(np.abs(diffs).max()), abs(pair.difference_ci[0]), abs(pair.difference_ci[1]))
        zero = y + 14 + panel_h / 2.0

        def sy(v: float) -> float:
            return zero - v / scale * (panel_h / 2.0)

        parts.append('<text x="4" y="%d" font-weight="bold">%s minus %s per topic: mean %.4f, CI [%.4f, %.4f], '
                     'Tukey HSD p = %.4f</text>' % (y, html.escape(pair.run_a[:28]), html.escape(pair.run_b[:28]),
                                                   pair.difference, pair.difference_ci[0], pair.difference_ci[1],
                                                   pair.tukey_p))
        parts.append('<rect x="%d" y="%.1f" width="%d" height="%.1f" fill="#f3d9a4" opacity="0.6"/>'
                     % (left, sy(pair.difference_ci[1]), plot_w,
                        max(0.5, sy(pair.difference_ci[0]) - sy(pair.difference_ci[1]))))
        for i, (topic, value) in enumerate(zip(matrix.topics, diffs)):
            top, bottom = sorted((sy(value), zero))
            x = left + i * slot + (slot - bar_w) / 2.0
            parts.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s: %.4f</title>'
                         '</rect>' % (x, top, bar_w, max(0.5, bottom - top),
                                      "#4a7bd0" if value >= 0 else "#d0664a", html.escape(topic), value))
            if i % label_every == 0:
                cx = left + (i + 0.5) * slot
                ly = zero + panel_h / 2.0 + 10
                parts.append('<text x="%.1f" y="%.1f" text-anchor="end" font-size="9" transform="rotate(-60 %.1f '
                             '%.1f)">%s</text>' % (cx + 3, ly, cx + 3, ly, html.escape(topic[:16])))
        parts.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#9aa3b2"/>' % (left, zero, left + plot_w, zero))
        parts.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#8a5a00" stroke-dasharray="4 2"/>'
                     % (left, sy(pair.difference), left + plot_w, sy(pair.difference)))
        parts.append('<text x="%d" y="%.1f" text-anchor="end">+%s</text><text x="%d" y="%.1f" text-anchor="end">'
                     '0</text><text x="%d" y="%.1f" text-anchor="end">-%s</text>'
                     % (left - 4, sy(scale) + 8, _svg_number(scale), left - 4, zero + 4, left - 4, sy(-scale),
                        _svg_number(scale)))
        parts.append('<text x="%d" y="%.1f" font-size="9">topics%s</text>'
                     % (4, zero + panel_h / 2.0 + 12, "" if label_every == 1 else " (every %d%s named)"
                        % (label_every, "nd" if label_every == 2 else "rd" if label_every == 3 else "th")))
        y += int(14 + panel_h + label_h + 24)
    if len(comparison.pairs) > len(pairs):
        parts.append('<text x="4" y="%d">(%d more pairs not drawn; --json holds every pair)</text>'
                     % (y, len(comparison.pairs) - len(pairs)))
        y += 20
    return ('<svg xmlns="http://www.w3.org/2000/svg" role="img" width="%d" height="%d" viewBox="0 0 %d %d" '
            'font-family="sans-serif" font-size="11">%s</svg>\n' % (width, y, width, y, "".join(parts)))


# ---------------------------------------------------------------------------------------- results page ---

def comparison_section(task, scored: Sequence[Tuple[Any, Any]], trials: int = DEFAULT_TRIALS,
                       bootstrap: int = DEFAULT_BOOTSTRAP, seed: int = DEFAULT_SEED) -> Optional[Dict[str, Any]]:
    """The analysis on the task's primary measure as a detailed-page section, or None (fewer than 2 runs, no
    per-topic values of the primary measure, or fewer than 2 topics).

    charts: a bar chart of run means (values/labels, as report.detailed_html draws) that also carries the full
    figure under "svg" for a renderer that embeds it.
    """
    if len(scored) < 2:
        return None
    measure = task.primary.measure
    if measure not in per_topic_measure_names(scored):
        return None
    matrix = build_matrix(scored, measure)
    if len(matrix.topics) < 2:
        return None
    comparison = compare(matrix, trials=trials, bootstrap=bootstrap, seed=seed)
    significant = [p for p in comparison.pairs if p.tukey_p < 0.05]
    text = ("%d runs compared on %s over %d topics. Randomised Tukey HSD (%d trials, seed %d): %d of %d pairs "
            "differ at p < 0.05. Paired t and Wilcoxon p-values are Holm-corrected over the pairs. %s"
            % (len(matrix.runs), measure, len(matrix.topics), trials, seed, len(significant), len(comparison.pairs),
               " ".join(matrix.notes))).strip()
    tables = comparison_tables(comparison)[1:]
    chart = {"caption": "Mean %s per run" % measure, "values": [float(comparison.means[r]) for r in comparison.order],
             "labels": [matrix.runs[r] for r in comparison.order], "svg": figure_svg(comparison)}
    return {"title": "Comparison of the %s runs (%s)" % (task.id, measure), "text": text, "tables": tables,
            "charts": [chart]}
