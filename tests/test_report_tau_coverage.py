"""The tau interval of `runscore report` covers what it claims at its nominal level, measured by simulation.

What it claims (docs/report.md, tau.csv): an interval for E[tau_n], the tau between two measures' rankings of these
runs on a topic set of this size. Simulated campaigns like an overview's: m runs with fixed true means under two
measures (one continuous like AP, one a count over 10 like P@10, so its means tie exactly), per-topic scores with
a topic effect, correlated noise between the measures; n topics are drawn, tau.csv's interval computed by the
product (agreement_tau.tau_table), and whether it holds E[tau_n] is counted. E[tau_n] is the mean of tau over many
other draws of n topics, computed by scipy.stats.kendalltau on exact means (the P@10-like measure as integer sums),
so it shares no code with what is tested. The old percentile interval of the same bootstrap taus is measured too:
it holds E[tau_n] in about half of these campaigns, and the observed tau lies outside it as often.

`make test` runs one scenario at 40 campaigns (a few seconds) and the interval's boundary cases; `make tau-coverage`
(which .ci/run calls) runs seven scenarios at 400 campaigns each (RUNSCORE_TAU_COVERAGE_CAMPAIGNS), three of them
with tau in [0.9, 1.0].
"""
import os

import numpy as np
import pytest
from scipy import stats

from runscore import ties
from runscore.campaign import agreement_tau

CAMPAIGNS = int(os.environ.get("RUNSCORE_TAU_COVERAGE_CAMPAIGNS", "40"))
BIG = CAMPAIGNS >= 200
TARGET_DRAWS = 400 if BIG else 200
SAMPLES = 1000 if BIG else 200
CONFIDENCE = 0.95

# runs, topics, spread of the true means, sd of measure b's true means around a's, per-topic noise, correlation
SCENARIOS = {
    "100 runs x 100 topics, close runs": dict(runs=100, topics=100, spread=0.4, gap=0.01, noise=0.2, rho=0.9),
    "40 runs x 50 topics, very close runs": dict(runs=40, topics=50, spread=0.2, gap=0.002, noise=0.2, rho=0.97),
    "20 runs x 30 topics": dict(runs=20, topics=30, spread=0.4, gap=0.01, noise=0.2, rho=0.9),
    "60 runs x 50 topics, measures that disagree": dict(runs=60, topics=50, spread=0.4, gap=0.05, noise=0.2, rho=0.6),
    # tau in [0.9, 1.0], where the delta-method interval on Fisher's z was degenerate
    "near 1: 8 runs x 30 topics": dict(runs=8, topics=30, spread=0.4, gap=0.01, noise=0.2, rho=0.9),
    "near 1: 10 runs x 50 topics": dict(runs=10, topics=50, spread=0.4, gap=0.005, noise=0.2, rho=0.95),
    "near 1: 20 runs x 50 topics": dict(runs=20, topics=50, spread=0.6, gap=0.005, noise=0.15, rho=0.97),
}
CHEAP = "60 runs x 50 topics, close runs"
if not BIG:
    SCENARIOS = {CHEAP: dict(runs=60, topics=50, spread=0.3, gap=0.005, noise=0.25, rho=0.95)}


class Campaigns:
    """Fixed runs (true means of a continuous measure a and a tenths-valued measure b); topics drawn anew."""

    def __init__(self, seed, runs, topics, spread, gap, noise, rho):
        self.rng = np.random.default_rng(seed)
        self.topics, self.noise, self.rho = topics, noise, rho
        self.mu_a = self.rng.uniform(0.1, 0.1 + spread, runs)
        self.mu_b = self.mu_a + self.rng.normal(0.0, gap, runs)

    def draw(self):
        """(a, tenths of b): topics x runs; a's values floats, b's integers 0..10 (b = tenths / 10)."""
        n, m = self.topics, self.mu_a.size
        topic = self.rng.normal(0.0, 0.15, (n, 1))
        first, second = self.rng.normal(0.0, 1.0, (n, m)), self.rng.normal(0.0, 1.0, (n, m))
        a = self.mu_a[None, :] + topic + self.noise * first
        b = self.mu_b[None, :] + topic + self.noise * (self.rho * first + np.sqrt(1 - self.rho ** 2) * second)
        return a, np.clip(np.round(b * 10.0), 0, 10).astype(np.int64)


    def population_tau(self):
        """tau of the population means: a's are mu_a (the topic effect and noise have mean 0); b's are the
        expectations of round(10 X) cut to 0..10, X ~ N(mu_b, 0.15^2 + noise^2), summed from the normal CDF."""
        spread = np.hypot(0.15, self.noise)
        edges = (np.arange(1, 11) - 0.5) / 10.0                        # round(10 X) >= k  <=>  X >= (k - 0.5) / 10
        expected = stats.norm.sf((edges[None, :] - self.mu_b[:, None]) / spread).sum(axis=1)
        return stats.kendalltau(self.mu_a, expected)[0]


def exact_tau(a, tenths):
    """tau-b of the runs' means, b's means compared exactly (integer sums over the same topics)."""
    return stats.kendalltau(a.mean(axis=0), tenths.sum(axis=0))[0]


def tie_aware_tau(a, b, topics):
    return agreement_tau.kendall_tau_b(ties.tie_classes(a, topics), ties.tie_classes(b, topics))


def bootstrap_taus(a, b, seed):
    """The product's bootstrap taus, redrawn (same draw of topics as tau_table with this seed)."""
    n = a.shape[0]
    picks = np.random.default_rng(seed).integers(0, n, size=(SAMPLES, n))
    taus = tie_aware_tau(a[picks].mean(axis=1), b[picks].mean(axis=1), n)
    return taus[np.isfinite(taus)]


def percentile_interval(a, b, seed):
    """The interval runscore printed before: percentiles of the same bootstrap taus."""
    tail = (1.0 - CONFIDENCE) / 2.0
    return np.quantile(bootstrap_taus(a, b, seed), [tail, 1.0 - tail])


def other_intervals(a, b, seed):
    """Percentile, basic (reflected percentile) and BCa (Efron 1987: bias from the share of bootstrap taus below
    tau, acceleration from the leave-one-topic-out taus) intervals of the same bootstrap taus."""
    n = a.shape[0]
    taus = bootstrap_taus(a, b, seed)
    tau = tie_aware_tau(a.mean(axis=0), b.mean(axis=0), n)[0]
    tail = (1.0 - CONFIDENCE) / 2.0
    low, high = np.quantile(taus, [tail, 1.0 - tail])
    below = (np.sum(taus < tau) + 0.5 * np.sum(taus == tau)) / taus.size
    bias = stats.norm.ppf(np.clip(below, 0.5 / taus.size, 1.0 - 0.5 / taus.size))
    jack = tie_aware_tau((a.sum(axis=0) - a) / (n - 1), (b.sum(axis=0) - b) / (n - 1), n - 1)
    centred = jack.mean() - jack
    scale = 6.0 * np.sum(centred ** 2) ** 1.5
    acceleration = np.sum(centred ** 3) / scale if scale > 0 else 0.0
    z = stats.norm.ppf([tail, 1.0 - tail])
    levels = stats.norm.cdf(bias + (bias + z) / (1.0 - acceleration * (bias + z)))
    return {"percentile": (low, high), "basic": (2 * tau - high, 2 * tau - low), "bca": tuple(np.quantile(taus, levels))}


def coverage(settings, seed):
    world = Campaigns(seed, **settings)
    target = float(np.mean([exact_tau(*world.draw()) for _ in range(TARGET_DRAWS)]))
    held = held_before = estimate_outside_before = 0
    for campaign in range(CAMPAIGNS):
        a, tenths = world.draw()
        b = tenths / 10.0
        row = agreement_tau.tau_table({"a": a.mean(axis=0), "b": b.mean(axis=0)}, {"a": a, "b": b}, SAMPLES,
                                      campaign, CONFIDENCE)[0]
        assert row.tau == pytest.approx(exact_tau(a, tenths), abs=1e-12)       # ties in b's means are ties
        assert row.ci_low <= row.tau <= row.ci_high and row.note == ""
        held += row.ci_low <= target <= row.ci_high
        low, high = percentile_interval(a, b, campaign)
        held_before += low <= target <= high
        estimate_outside_before += not low <= row.tau <= high
    return held / CAMPAIGNS, held_before / CAMPAIGNS, estimate_outside_before / CAMPAIGNS


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_tau_interval_covers_its_target_at_the_nominal_level(name):
    held, held_before, outside_before = coverage(SCENARIOS[name], seed=sorted(SCENARIOS).index(name) + 1)
    # 40 campaigns: at a true coverage of 0.95, fewer than 34 hold it with probability 1.4%; 400: 2.7 binomial
    # standard errors below, and room above for the scenario of very close runs, where the interval is
    # conservative (0.9875 measured: the bootstrap's spread of tau is a little larger than tau's own there).
    # Near 1 the interval is conservative (0.99 to 1.00 measured at 8 and 10 runs: a tau of 1 has no room above
    # it, and E[tau_n] lies below the observed tau), so the upper bound there is 1.
    low, high = (0.92, 1.0 if name.startswith("near 1") else 0.99) if BIG else (0.85, 1.0)
    assert low <= held <= high, "%s: the interval held E[tau_n] in %.3f of %d campaigns" % (name, held, CAMPAIGNS)
    if name == CHEAP:
        assert held_before < 0.75 and outside_before > 0.25, (held_before, outside_before)


@pytest.mark.skipif(not BIG, reason="a measurement for docs/report.md: runs in `make tau-coverage` (400 campaigns)")
def test_no_interval_recovers_the_tau_of_the_population_means():
    """Why the interval is for E[tau_n]: where runs are many and close, tau from n topics is below the tau of the
    population means by more than its spread, and neither the percentile nor BCa interval holds the latter (the
    basic interval does more often, not at the nominal level). Measured on the first scenario."""
    name = "100 runs x 100 topics, close runs"
    world = Campaigns(sorted(SCENARIOS).index(name) + 1, **SCENARIOS[name])
    truth = world.population_tau()
    held = {"percentile": 0, "basic": 0, "bca": 0, "runscore": 0}
    below = 0
    campaigns = CAMPAIGNS // 4
    for campaign in range(campaigns):
        a, tenths = world.draw()
        b = tenths / 10.0
        found = other_intervals(a, b, campaign)
        row = agreement_tau.tau_table({"a": a.mean(axis=0), "b": b.mean(axis=0)}, {"a": a, "b": b}, SAMPLES,
                                      campaign, CONFIDENCE)[0]
        found["runscore"] = (row.ci_low, row.ci_high)
        below += row.tau < truth
        for method, (low, high) in found.items():
            held[method] += low <= truth <= high
    shares = {method: count / campaigns for method, count in held.items()}
    assert below / campaigns > 0.95, below / campaigns
    assert shares["percentile"] < 0.2 and shares["bca"] < 0.3 and shares["basic"] < 0.93, shares


def test_the_interval_behaves_near_and_at_1():
    """tau 0.986 with a bootstrap se near 0.07 got [-0.99, 1.00] from the delta method on Fisher's z (se / (1 -
    tau^2) explodes near 1), and tau 1 got an interval on tau itself. Now the z values of the replicates give the
    spread: the interval holds tau, stays in [-1, 1] and is not degenerate; at tau 1 it reaches 1."""
    rng = np.random.default_rng(1)
    pairs = 100 * 99 // 2
    drawn = rng.normal(0.93, 0.075, 1000)
    replicates = np.round(np.where(drawn > 1.0, 2.0 - drawn, drawn) * pairs) / pairs    # taus of 100 runs
    assert 0.05 < agreement_tau.standard_deviation(replicates) < 0.08
    low, high, se, note = agreement_tau.fisher_interval(0.986, replicates, pairs, CONFIDENCE)
    assert 0.5 < low < 0.986 < high < 1.0 and note == ""
    pairs = 9 * 8 // 2                                  # 9 runs: one swapped pair is tau 1 - 2/36
    replicates = rng.choice([1.0, 1 - 2 / 36, 1 - 4 / 36, 1 - 6 / 36, 1 - 10 / 36], 1000, p=[.3, .3, .2, .1, .1])
    low, high, _, _ = agreement_tau.fisher_interval(1.0, replicates, pairs, CONFIDENCE)
    assert 0.5 < low < 1.0 and high == 1.0
    low, high, _, _ = agreement_tau.fisher_interval(-1.0, -replicates, pairs, CONFIDENCE)
    assert low == -1.0 and -1.0 < high < -0.5
    assert agreement_tau.fisher_interval(1.0, np.ones(50), pairs, CONFIDENCE)[:2] == (1.0, 1.0)
