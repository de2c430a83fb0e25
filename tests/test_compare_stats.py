"""The statistics of runscore.compare against independent peers: scipy's tests, a loop-based randomised Tukey HSD,
exact enumeration of the randomisation distribution, and bootstrap coverage on data with a known mean."""
import itertools
import json
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats

from runscore import compare
from runscore.errors import ConfigError


def _random_pairs(seed, count=40):
    """Seeded random paired samples of several sizes and shapes (continuous, discrete with ties, zeros)."""
    rng = np.random.RandomState(seed)
    for k in range(count):
        n = int(rng.randint(5, 60))
        x = rng.beta(2, 3, n)
        if k % 3 == 1:
            y = np.clip(x + rng.normal(0.03, 0.1, n), 0, 1)
        elif k % 3 == 2:                                     # P@10-like values: many ties and zero differences
            x = rng.randint(0, 11, n) / 10.0
            y = rng.randint(0, 11, n) / 10.0
        else:
            y = rng.beta(2, 2.5, n)
        yield x, y


# ------------------------------------------------------------------------------------------ paired t ---

def test_paired_t_matches_scipy_ttest_rel():
    checked = 0
    for x, y in _random_pairs(11):
        ours = compare.paired_t_test(x, y)
        theirs = stats.ttest_rel(x, y)
        if np.all(x == y):
            continue
        assert ours.statistic == pytest.approx(theirs.statistic, rel=1e-10, abs=1e-12)
        assert ours.p_value == pytest.approx(theirs.pvalue, rel=1e-9, abs=1e-15)
        assert ours.size == len(x) - 1
        checked += 1
    assert checked >= 30


def test_paired_t_edge_cases():
    same = compare.paired_t_test([0.1, 0.5, 0.7], [0.1, 0.5, 0.7])
    assert (same.statistic, same.p_value) == (0.0, 1.0)            # no difference at all: no evidence
    shifted = compare.paired_t_test([0.5, 0.75, 1.0], [0.25, 0.5, 0.75])
    assert shifted.statistic == math.inf and shifted.p_value == 0.0  # every topic +0.25 (exact in binary)
    with pytest.raises(ConfigError):
        compare.paired_t_test([0.5], [0.2])


# ------------------------------------------------------------------------------------------ Wilcoxon ---

def test_wilcoxon_matches_scipy_in_both_modes():
    exact = approx = 0
    for x, y in _random_pairs(12, 60):
        d = x - y
        nonzero = d[d != 0]
        if nonzero.size == 0:
            continue
        ours = compare.wilcoxon_signed_rank(x, y)
        untied = np.unique(np.abs(nonzero)).size == nonzero.size
        if nonzero.size == d.size and nonzero.size <= 25 and untied:
            theirs = stats.wilcoxon(x, y, mode="exact")
            assert ours.method == "exact"
            exact += 1
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")                 # scipy: "sample size too small"
                theirs = stats.wilcoxon(x, y, zero_method="wilcox", correction=False, mode="approx")
            assert ours.method == "normal approximation"
            approx += 1
        assert ours.statistic == pytest.approx(theirs.statistic, abs=1e-9)
        assert ours.p_value == pytest.approx(theirs.pvalue, rel=1e-9, abs=1e-15)
        assert ours.size == nonzero.size
    assert exact >= 5 and approx >= 20


def test_average_ranks_and_tails_are_scipy_stats_own():
    """compare avoids importing scipy.stats (0.25 s): its ranks and tails must be scipy.stats' to the last bit."""
    rng = np.random.RandomState(11)
    for k in range(200):
        values = rng.randint(0, 1 + k % 12, 1 + k % 40).astype(float) / 7.0     # many ties, and none
        assert compare.average_ranks(values).tolist() == stats.rankdata(values).tolist()
    for x in np.concatenate([rng.normal(0, 3, 200), [0.0, 1e-300, 40.0, np.inf]]):
        z = abs(float(x))
        assert compare.special.ndtr(-z) == stats.norm.sf(z)
        for df in (1, 2, 5, 29, 1000):
            assert compare.special.stdtr(df, -z) == stats.t.sf(z, df)


def test_wilcoxon_exact_small_case_by_hand():
    # d = (+1, +2, +3): W+ = 6, W- = 0; of the 2^3 = 8 sign patterns only one has W- = 0 and one has W+ = 0,
    # so the two-sided p = 2 * 1/8.
    result = compare.wilcoxon_signed_rank([1.0, 2.0, 3.0], [0.0, 0.0, 0.0])
    assert result.statistic == 0.0 and result.p_value == 2 * 1 / 8


def test_wilcoxon_all_zero_differences():
    result = compare.wilcoxon_signed_rank([0.2, 0.4], [0.2, 0.4])
    assert (result.p_value, result.size) == (1.0, 0)


# ------------------------------------------------------------------------------------------ corrections ---

def test_holm_gives_no_negative_zero_whatever_the_cpu():
    """A p-value of -0.0 came out of Holm's running maximum as -0.0 (the smallest is its own maximum) and beside +0.0
    went into numpy's maximum, whose sign of zero is the SIMD loop's choice; the adjusted values are +0.0 on every
    CPU (printed '0.0000', never '-0.0000')."""
    for p in ([-0.0, 0.5], [0.0, -0.0, -0.0, 0.0, 0.5], [-0.0, 0.0, -0.0]):
        adjusted = compare.adjust_p_values(p, "holm")
        assert [math.copysign(1.0, v) for v in adjusted if v == 0.0] == [1.0] * p.count(0.0), p


def test_holm_and_bonferroni_by_hand():
    p = [0.01, 0.04, 0.03]
    # Holm: sorted 0.01, 0.03, 0.04 times 3, 2, 1 = 0.03, 0.06, 0.04; running maximum = 0.03, 0.06, 0.06.
    assert compare.adjust_p_values(p, "holm") == pytest.approx([0.03, 0.06, 0.06])
    assert compare.adjust_p_values(p, "bonferroni") == pytest.approx([0.03, 0.12, 0.09])
    assert list(compare.adjust_p_values([0.6, 0.5], "holm")) == [1.0, 1.0]   # 2 * 0.5 = 1, capped
    assert list(compare.adjust_p_values(p, "none")) == p


# ------------------------------------------------------------------------------------------ Tukey HSD ---

def slow_tukey_hsd(values, trials, seed):
    """Loop-based randomised Tukey HSD with the same random keys: per trial, per topic, m uniforms ordered."""
    rng = np.random.default_rng(seed)
    n, m = values.shape
    run_means = [sum(values[t][r] for t in range(n)) / n for r in range(m)]
    counts = [[0] * m for _ in range(m)]
    tolerance = 1e-12 * max(1.0, max(abs(v) for row in values for v in row))
    for _ in range(trials):
        sums = [0.0] * m
        for t in range(n):
            keys = rng.random(m)
            perm = sorted(range(m), key=lambda r: (keys[r], r))
            for r in range(m):
                sums[r] += values[t][perm[r]]
        means = [s / n for s in sums]
        spread = max(means) - min(means)
        for i in range(m):
            for j in range(m):
                if spread >= abs(run_means[i] - run_means[j]) - tolerance:
                    counts[i][j] += 1
    return np.array(counts) / trials


@pytest.mark.parametrize("seed,shape", [(0, (8, 3)), (7, (15, 4)), (2024, (6, 5))])
def test_tukey_hsd_matches_slow_implementation(seed, shape):
    rng = np.random.RandomState(seed)
    values = rng.beta(2, 3, shape) + np.linspace(0, 0.2, shape[1])
    fast = compare.randomised_tukey_hsd(values, trials=400, seed=seed)
    slow = slow_tukey_hsd(values, 400, seed)
    np.testing.assert_array_equal(fast, slow)
    assert np.all(np.diag(fast) == 1.0)


def test_tukey_hsd_blocks_do_not_change_the_result(monkeypatch):
    values = np.random.RandomState(3).rand(10, 4)
    whole = compare.randomised_tukey_hsd(values, trials=300, seed=5)
    monkeypatch.setattr(compare, "_CHUNK_ELEMENTS", 7 * 40)   # blocks of 7 trials
    np.testing.assert_array_equal(compare.randomised_tukey_hsd(values, trials=300, seed=5), whole)


def exact_randomisation_p(values):
    """Every one of the (m!)^n row permutations, enumerated: the p-value the randomised test estimates."""
    n, m = values.shape
    means = values.mean(axis=0)
    observed = np.abs(means[:, None] - means[None, :])
    perms = list(itertools.permutations(range(m)))
    reached = np.zeros((m, m))
    total = 0
    for choice in itertools.product(perms, repeat=n):
        permuted = np.array([values[t, list(p)] for t, p in enumerate(choice)])
        trial = permuted.mean(axis=0)
        reached += (trial.max() - trial.min()) >= observed - 1e-12
        total += 1
    return reached / total


def test_tukey_hsd_estimates_the_exact_randomisation_p_value():
    values = np.array([[0.9, 0.5, 0.2], [0.7, 0.6, 0.1], [0.8, 0.3, 0.4], [0.6, 0.65, 0.3]])
    exact = exact_randomisation_p(values)            # 6^4 = 1296 arrangements
    trials = 20000
    estimate = compare.randomised_tukey_hsd(values, trials=trials, seed=1)
    # Binomial standard error sqrt(p(1-p)/B) <= 0.0036; allow 4 of them.
    np.testing.assert_allclose(estimate, exact, atol=4 * math.sqrt(0.25 / trials))
    assert 0.0 < exact[0, 2] < 0.2                    # the comparison is not a trivial 0 or 1


# ------------------------------------------------------------------------------------------ bootstrap ---

def test_bootstrap_ci_covers_the_true_mean_at_the_nominal_rate():
    rng = np.random.RandomState(42)
    true_means = np.array([0.3, 0.5])
    hits = np.zeros(2)
    repetitions = 300
    for k in range(repetitions):
        sample = np.column_stack([rng.normal(true_means[0], 0.1, 40), rng.beta(5, 5, 40)])   # beta(5,5) mean 0.5
        interval = compare.percentile_interval(compare.bootstrap_means(sample, 1000, seed=k), 0.95)
        hits += (interval[0] <= true_means) & (true_means <= interval[1])
    coverage = hits / repetitions
    # Nominal 0.95; the percentile interval undercovers slightly at n = 40 (about 0.94); the binomial standard
    # error over 300 repetitions is about 0.013.
    assert np.all(coverage >= 0.90) and np.all(coverage <= 0.99), coverage


def test_bootstrap_ci_of_differences_covers_the_true_difference():
    rng = np.random.RandomState(7)
    hits = 0
    repetitions = 300
    for k in range(repetitions):
        topic_effect = rng.uniform(0, 0.6, 30)                     # shared difficulty, cancels in the pair
        a = topic_effect + rng.normal(0.10, 0.05, 30)
        b = topic_effect + rng.normal(0.05, 0.05, 30)              # true difference 0.05
        replicates = compare.bootstrap_means(np.column_stack([a, b]), 1000, seed=k)
        low, high = compare.percentile_interval(replicates[:, 0] - replicates[:, 1], 0.95)
        hits += low <= 0.05 <= high
    assert 0.90 <= hits / repetitions <= 0.99


def test_bootstrap_is_deterministic_and_blocks_do_not_change_it(monkeypatch):
    values = np.random.RandomState(0).rand(12, 3)
    first = compare.bootstrap_means(values, 500, seed=9)
    np.testing.assert_array_equal(first, compare.bootstrap_means(values, 500, seed=9))
    assert not np.array_equal(first, compare.bootstrap_means(values, 500, seed=10))
    monkeypatch.setattr(compare, "_CHUNK_ELEMENTS", 36 * 13)
    np.testing.assert_array_equal(compare.bootstrap_means(values, 500, seed=9), first)


# ------------------------------------------------------------------------------------------ effect sizes ---

def test_effect_sizes_by_derivation():
    x = np.array([0.5, 0.7, 0.9, 0.4])
    y = np.array([0.4, 0.5, 0.6, 0.4])
    d = x - y                                         # 0.1, 0.2, 0.3, 0.0: mean 0.15, sd sqrt(0.05/3)
    dz = 0.15 / math.sqrt(0.05 / 3)
    j = math.gamma(1.5) / (math.sqrt(1.5) * math.gamma(1.0))    # Hedges' J(3)
    ours_dz, ours_gz = compare.paired_effect_sizes(x, y)
    assert ours_dz == pytest.approx(dz, rel=1e-12)
    assert ours_gz == pytest.approx(dz * j, rel=1e-12)
    assert compare.hedges_correction(50) == pytest.approx(1 - 3 / (4 * 50 - 1), abs=1e-4)  # the usual approximation
    # With two runs the residual variance of the two-way ANOVA is var(d) / 2, so ES_E = sqrt(2) * d_z.
    assert compare.residual_variance(np.column_stack([x, y])) == pytest.approx(d.var(ddof=1) / 2, rel=1e-12)


def test_residual_variance_matches_scipy_free_anova_formula():
    values = np.random.RandomState(5).rand(9, 4)
    n, m = values.shape
    grand = values.mean()
    ss_total = ((values - grand) ** 2).sum()
    ss_topics = m * ((values.mean(axis=1) - grand) ** 2).sum()
    ss_runs = n * ((values.mean(axis=0) - grand) ** 2).sum()
    expected = (ss_total - ss_topics - ss_runs) / ((n - 1) * (m - 1))
    assert compare.residual_variance(values) == pytest.approx(expected, rel=1e-10)


# ------------------------------------------------------------------------------------------ the analysis ---

def _matrix(values, runs=None):
    values = np.asarray(values, dtype=float)
    return compare.ScoreMatrix("AP", ["t%d" % i for i in range(values.shape[0])],
                               runs or ["r%d" % j for j in range(values.shape[1])], values)


def test_compare_orders_pairs_and_uses_holm_over_the_family():
    values = np.random.RandomState(8).rand(20, 3) + [0.0, 0.3, 0.1]
    result = compare.compare(_matrix(values), trials=200, bootstrap=300, seed=4)
    assert [result.matrix.runs[r] for r in result.order] == ["r1", "r2", "r0"]
    assert [(p.run_a, p.run_b) for p in result.pairs] == [("r1", "r2"), ("r1", "r0"), ("r2", "r0")]
    raw = [p.t.p_value for p in result.pairs]
    assert [p.t_p_adjusted for p in result.pairs] == list(compare.adjust_p_values(raw, "holm"))
    first = result.pairs[0]
    assert first.difference == pytest.approx(values[:, 1].mean() - values[:, 2].mean())
    assert first.wins + first.losses + first.ties == 20
    assert first.difference_ci[0] <= first.difference <= first.difference_ci[1]


def test_compare_is_deterministic_for_a_seed():
    values = np.random.RandomState(9).rand(15, 4)
    one = compare.comparison_json(compare.compare(_matrix(values), trials=300, bootstrap=300, seed=3))
    two = compare.comparison_json(compare.compare(_matrix(values), trials=300, bootstrap=300, seed=3))
    other = compare.comparison_json(compare.compare(_matrix(values), trials=300, bootstrap=300, seed=4))
    assert one == two
    assert one["pairs"] != other["pairs"]


@pytest.mark.parametrize("values,message", [
    ([[0.1], [0.2]], "at least 2 runs"),
    ([[0.1, 0.2]], "at least 2 topics"),
])
def test_compare_refuses_too_little_data(values, message):
    with pytest.raises(ConfigError, match=message):
        compare.compare(_matrix(values))


def test_identical_runs_give_no_evidence_and_json_has_no_infinity():
    values = np.array([[0.2, 0.2, 0.5], [0.4, 0.4, 0.75], [0.6, 0.6, 1.0]])   # r2 = r0 + 0.3 or + 0.35 or +0.4
    result = compare.compare(_matrix(values), trials=100, bootstrap=100)
    same = next(p for p in result.pairs if {p.run_a, p.run_b} == {"r0", "r1"})
    assert (same.t.p_value, same.wilcoxon.p_value, same.tukey_p, same.cohen_dz) == (1.0, 1.0, 1.0, 0.0)
    assert same.ties == 3
    data = compare.comparison_json(result)
    json.dumps(data, allow_nan=False)      # raises on NaN or infinity


# ------------------------------------------------------------------------------------------ properties ---

@settings(max_examples=40, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(2, 8), st.integers(2, 5)),
              elements=st.floats(0, 1, allow_nan=False, width=32)), st.integers(0, 2 ** 31))
def test_tukey_hsd_p_values_are_symmetric_and_shrink_as_differences_grow(values, seed):
    p = compare.randomised_tukey_hsd(values, trials=60, seed=seed)
    assert np.all((p >= 0) & (p <= 1)) and np.array_equal(p, p.T) and np.all(np.diag(p) == 1.0)
    # The pairs share one null distribution (of the range), so a larger observed difference never has a
    # larger p-value.
    means = values.mean(axis=0)
    diffs = np.abs(means[:, None] - means[None, :]).ravel()
    flat = p.ravel()
    clearly_larger = diffs[:, None] > diffs[None, :] + 2 * compare.tie_tolerance(values)
    assert not np.any(clearly_larger & (flat[:, None] > flat[None, :]))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=12), st.sampled_from(["holm", "bonferroni"]))
def test_corrections_never_lower_a_p_value_and_holm_never_exceeds_bonferroni(p, method):
    adjusted = compare.adjust_p_values(p, method)
    assert np.all(adjusted >= np.asarray(p) - 1e-15) and np.all(adjusted <= 1.0)
    assert np.all(compare.adjust_p_values(p, "holm") <= compare.adjust_p_values(p, "bonferroni") + 1e-15)


# ------------------------------------------------------------------------------------------ a textbook example ---

# Table 5.1 of Sakai's textbook (T. Sakai, 情報アクセス評価方法論, Corona, 2015): three systems on 20 topics, with the
# worked values printed there (as quoted in the documentation of the elinor evaluation library). The
# published values have 3-4 decimals, so they are compared at that precision.
SAKAI_A = [0.70, 0.30, 0.20, 0.60, 0.40, 0.40, 0.00, 0.70, 0.10, 0.30,
           0.50, 0.40, 0.00, 0.60, 0.50, 0.30, 0.10, 0.50, 0.20, 0.10]
SAKAI_B = [0.50, 0.10, 0.00, 0.20, 0.40, 0.30, 0.00, 0.50, 0.30, 0.30,
           0.40, 0.40, 0.10, 0.40, 0.20, 0.10, 0.10, 0.60, 0.30, 0.20]
SAKAI_C = [0.00, 0.00, 0.20, 0.10, 0.30, 0.30, 0.10, 0.20, 0.40, 0.40,
           0.40, 0.30, 0.30, 0.20, 0.20, 0.20, 0.10, 0.50, 0.40, 0.30]


def test_sakai_textbook_paired_t_example():
    # Published: mean difference 0.0750, variance of differences 0.0251, effect size 0.473, t = 2.116,
    # two-sided p = 0.048 (df = 19).
    result = compare.paired_t_test(SAKAI_A, SAKAI_B)
    d_z, _ = compare.paired_effect_sizes(SAKAI_A, SAKAI_B)
    assert (result.size, round(result.statistic, 3), round(result.p_value, 3), round(d_z, 3)) == (19, 2.116, 0.048,
                                                                                                  0.473)


def test_sakai_textbook_residual_variance_example():
    # Published two-way ANOVA without replication: residual variation S_E = 0.8317 over (20 - 1)(3 - 1) = 38
    # degrees of freedom, V_E = 0.0219.
    values = np.column_stack([SAKAI_A, SAKAI_B, SAKAI_C])
    v_e = compare.residual_variance(values)
    assert round(v_e * 38, 4) == 0.8317 and round(v_e, 4) == 0.0219
