"""Equal means are equal: tau-b, ranks, group letters and reusability of `runscore report` (and the pair order of
`runscore compare`) against an exact-arithmetic oracle, on means that are equal as numbers but not as floats.

The oracle works with fractions.Fraction: a run's mean is the exact mean of its per-topic values (ratios of small
integers, recovered exactly), tau-b is counted pair by pair, the randomised Tukey HSD is replayed on the same
permutations with exact means. The constructed campaign has three runs whose MAP is exactly 5/8 (AP = 1/rank of
the one relevant document: ranks 1,1,4,4 / 1,3,1,6 / 1,6,1,3), summed left to right into 0.625,
0.6249999999999999 and 0.6250000000000001.
"""
import csv
import itertools
import os
import random
from fractions import Fraction

import numpy as np
import pytest

from runscore import api, compare, ties
from runscore.campaign import agreement_tau, letters

TOPICS = ["0031", "0032", "0033", "0034"]
TIED_RANKS = {"ta1": (1, 1, 4, 4), "tb1": (1, 3, 1, 6), "tc1": (1, 6, 1, 3)}
OTHER_RANKS = {"ta2": (2, 0, 1, 1), "tb2": (1, 2, 0, 5), "tc2": (3, 1, 2, 0), "td1": (1, 1, 2, 2), "td2": (0, 2, 3, 1)}
TRIALS, SEED = 200, 3


def read_csv(path):
    with open(str(path), encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def exact_tau_b(x, y):
    """Kendall (1945) tau-b counted pair by pair on exact numbers; None when a ranking ties every pair."""
    concordant = discordant = ties_x = ties_y = 0
    for i, j in itertools.combinations(range(len(x)), 2):
        sx = (x[i] > x[j]) - (x[i] < x[j])
        sy = (y[i] > y[j]) - (y[i] < y[j])
        concordant += sx * sy > 0
        discordant += sx * sy < 0
        ties_x += sx == 0
        ties_y += sy == 0
    pairs = len(x) * (len(x) - 1) // 2
    if ties_x == pairs or ties_y == pairs:
        return None
    return (concordant - discordant) / ((pairs - ties_x) * (pairs - ties_y)) ** 0.5


def exact(value):
    """The ratio of small integers a per-topic float stands for (denominators here divide 4 * 11 * 2520)."""
    found = Fraction(value).limit_denominator(30000)
    assert abs(float(found) - value) < 1e-12, value
    return found


# ------------------------------------------------------------------------------------------ the rule itself ---

@pytest.mark.parametrize("seed", range(20))
def test_tie_classes_are_the_exact_equalities(seed):
    """Means of k/20 values (P@20) summed in topic order: equal classes exactly where the fractions are equal,
    and tau-b on them equals the exact tau-b."""
    rng = np.random.default_rng(seed)
    topics, runs = int(rng.integers(3, 40)), int(rng.integers(4, 12))
    counts = rng.integers(0, 4, size=(topics, runs))
    for k in range(1, runs, 2):                 # every other run: the same total as the previous one, spread anew
        total = int(counts[:, k - 1].sum())
        spread = np.bincount(rng.integers(0, topics, size=total), minlength=topics)
        counts[:, k] = spread
    values = counts / 20.0
    floats = np.array([sum(float(v) for v in values[:, r]) / topics for r in range(runs)])
    fractions = [Fraction(int(counts[:, r].sum()), 20 * topics) for r in range(runs)]
    classes = ties.tie_classes(floats, topics)
    for i, j in itertools.combinations(range(runs), 2):
        assert (classes[i] == classes[j]) == (fractions[i] == fractions[j]), (floats[i], floats[j])
    other = np.round(floats + rng.normal(0, 0.01, runs), 2)
    expected = exact_tau_b(fractions, [Fraction(str(v)) for v in other])
    found = agreement_tau.kendall_tau_b(classes, ties.tie_classes(other, topics))[0]
    assert (expected is None and np.isnan(found)) or found == pytest.approx(expected, abs=1e-12)


def test_the_rule_ties_float_noise_and_nothing_else():
    assert ties.same(0.026666666666666672, 0.026666666666666665, 30)
    assert ties.same(0.6249999999999999, 0.6250000000000001, 4)
    assert not ties.same(0.5, 0.5 + 1e-9, 10 ** 4)
    assert not ties.same(0.0, 1e-300, 100)
    assert list(ties.tie_classes(np.array([0.3, np.nan, 0.30000000000000004, np.nan]), 2)[[0, 2]]) == [0.3, 0.3]
    assert np.isnan(ties.tie_classes(np.array([0.3, np.nan, np.nan]), 2)[1:]).all()
    inf = float("inf")
    assert list(ties.tie_classes(np.array([inf, 0.5, inf, -inf]), 3)) == [inf, 0.5, inf, -inf]
    assert not ties.same(0.5, inf, 3) and not ties.same(inf, inf, 3)


def test_compare_lists_equal_means_in_the_order_given_with_difference_zero():
    """0.1 + 0.2 and 0.3 + 0.0 are the same sum: the pair keeps the runs' order, its difference is 0."""
    values = np.array([[0.3, 0.1, 0.0], [0.0, 0.2, 0.1]])
    assert values[:, 1].mean() > values[:, 0].mean()           # the floats say run 1 is better
    matrix = compare.ScoreMatrix("P_10", ["t1", "t2"], ["first", "second", "third"], values)
    result = compare.compare(matrix, trials=50, bootstrap=20)
    assert [matrix.runs[r] for r in result.order] == ["first", "second", "third"]
    pair = result.pairs[0]
    assert (pair.run_a, pair.run_b, pair.difference, pair.effect_size_e) == ("first", "second", 0.0, 0.0)


# ------------------------------------------------------------------------------------------ the campaign ---

def write_campaign(folder):
    """Per topic: one S document (rel1 and rel2), three B documents (rel2 only), ten judged C documents and
    unjudged fillers; a run ranks 10 documents: the S document at its given rank (0: not retrieved), B documents
    and fillers at random places of a seeded draw."""
    rng = random.Random(36)
    runs_dir, ref_dir = os.path.join(folder, "runs"), os.path.join(folder, "ref")
    os.makedirs(runs_dir)
    os.makedirs(ref_dir)
    with open(os.path.join(ref_dir, "qrels.txt"), "w", encoding="utf-8") as handle:
        for t in TOPICS:
            handle.write("%s 0 %s-S 3\n" % (t, t))
            handle.writelines("%s 0 %s-B%d 1\n" % (t, t, k) for k in range(3))
            handle.writelines("%s 0 %s-C%d 0\n" % (t, t, k) for k in range(10))
    with open(os.path.join(ref_dir, "task.yaml"), "w", encoding="utf-8") as handle:
        handle.write("task: ntcir1-adhoc\ngraded_qrels: qrels.txt\ntopics: [%s]\n" % ", ".join("'%s'" % t
                                                                                             for t in TOPICS))
    rankings = {}
    for run_id, ranks in sorted(dict(TIED_RANKS, **OTHER_RANKS).items()):
        rankings[run_id] = {}
        lines = []
        for t, rank in zip(TOPICS, ranks):
            others = ["%s-B%d" % (t, k) for k in range(3)] + ["%s-C%d" % (t, k) for k in range(10)] + \
                     ["%s-U%s%d" % (t, run_id[:2], k) for k in range(4)]
            ranking = rng.sample(others, 10)
            if rank:
                ranking = ranking[:rank - 1] + ["%s-S" % t] + ranking[rank - 1:9]
            rankings[run_id][t] = ranking
            lines += ["%s\t0\t%s\t%d\t%d\t%s\n" % (t, doc, k, 100 - k, run_id) for k, doc in enumerate(ranking, 1)]
        with open(os.path.join(runs_dir, run_id), "w", encoding="utf-8") as handle:
            handle.writelines(lines)
    return runs_dir, ref_dir, rankings


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("ties"))
    runs, ref, rankings = write_campaign(folder)
    out = os.path.join(folder, "report")
    api.report("ntcir1-adhoc", ref, [runs], out, pool_depth=10, trials=TRIALS, seed=SEED, tau_bootstrap=50)
    scored = api.score("ntcir1-adhoc", ref, [os.path.join(runs, name) for name in sorted(os.listdir(runs))])
    per_topic, floats = scored.per_topic, {run: values["map_rel1"] for run, values in scored.measures.items()}
    return {"out": out, "rankings": rankings, "per_topic": per_topic, "floats": floats, "names": sorted(rankings)}


def exact_means(campaign, measure):
    return {run: sum((exact(values[measure]) for values in topics.values()), Fraction(0)) / len(TOPICS)
            for run, topics in campaign["per_topic"].items()}


def test_the_campaign_has_equal_means_with_different_floats(campaign):
    """The premise: the three MAPs are 5/8 exactly and three different floats, the best float given last."""
    means = exact_means(campaign, "map_rel1")
    assert {means[r] for r in TIED_RANKS} == {Fraction(5, 8)}
    assert len({campaign["floats"][r] for r in TIED_RANKS}) == 3
    assert max(TIED_RANKS, key=campaign["floats"].get) == "tc1"


def exact_order(campaign, measure):
    """Best first by the exact mean; equal means in the order the runs were given (file names)."""
    means = exact_means(campaign, measure)
    return sorted(campaign["names"], key=lambda r: (-means[r], campaign["names"].index(r)))


def test_means_csv_order_is_the_exact_order(campaign):
    assert [r["run"] for r in read_csv(os.path.join(campaign["out"], "means.csv"))] == \
        exact_order(campaign, "map_rel1")


def test_tau_csv_equals_exact_tau_b(campaign):
    rows = read_csv(os.path.join(campaign["out"], "tau.csv"))
    assert len(rows) == 28
    checked = 0
    for row in rows:
        a, b = exact_means(campaign, row["measure_a"]), exact_means(campaign, row["measure_b"])
        expected = exact_tau_b([a[r] for r in campaign["names"]], [b[r] for r in campaign["names"]])
        if expected is None:
            assert row["tau"] == "" and "undefined" in row["note"]
        else:
            assert float(row["tau"]) == pytest.approx(expected, abs=1e-12), row
            checked += 1
    assert checked >= 20


def exact_tukey_p(values, trials, seed):
    """The randomised Tukey HSD replayed on the product's permutations (trial b, topic t: the stable argsort of
    m uniforms of default_rng(seed), docs/compare.md) with exact means."""
    n, m = len(values), len(values[0])
    keys = np.random.default_rng(seed).random((trials, n, m))
    orders = np.argsort(keys, axis=2, kind="stable")
    means = [sum((values[t][r] for t in range(n)), Fraction(0)) / n for r in range(m)]
    ranges = []
    for trial in range(trials):
        shuffled = [sum((values[t][orders[trial, t, r]] for t in range(n)), Fraction(0)) / n for r in range(m)]
        ranges.append(max(shuffled) - min(shuffled))
    return np.array([[sum(1 for g in ranges if g >= abs(means[i] - means[j])) / trials for j in range(m)]
                     for i in range(m)])


def test_group_letters_equal_the_exact_oracle(campaign):
    names = campaign["names"]                       # the order the test saw the runs in (the folder's name order)
    values = [[exact(campaign["per_topic"][r][t]["map_rel1"]) for r in names] for t in TOPICS]
    p = exact_tukey_p(values, TRIALS, SEED)
    order = exact_order(campaign, "map_rel1")
    expected = letters.compact_letters(p, [names.index(r) for r in order], 0.05)
    groups = {r["run"]: r["group"] for r in read_csv(os.path.join(campaign["out"], "means.csv"))}
    assert groups == {r: expected[k] for k, r in enumerate(names)}
    significance = read_csv(os.path.join(campaign["out"], "significance.csv"))
    for row in significance:
        assert float(row["p"]) == p[names.index(row["run_a"]), names.index(row["run_b"])]
        if {row["run_a"], row["run_b"]} <= set(TIED_RANKS):
            assert float(row["diff"]) == 0.0 and order.index(row["run_a"]) < order.index(row["run_b"])
    assert len({groups[r] for r in TIED_RANKS}) == 1


def test_reusability_ranks_and_tau_equal_the_exact_oracle(campaign):
    """Zobel's test by hand with exact AP (one relevant document at rel1: AP = 1 / its rank)."""
    rankings, names = campaign["rankings"], campaign["names"]
    team = {r: r.rstrip("0123456789") for r in names}
    pooled_by = {}
    for run, topics in rankings.items():
        for t, ranking in topics.items():
            for doc in ranking:
                pooled_by.setdefault((t, doc), set()).add(team[run])

    def ap(run, removed_team=None):
        total = Fraction(0)
        for t in TOPICS:
            relevant = "%s-S" % t
            if removed_team is not None and pooled_by.get((t, relevant)) == {removed_team}:
                continue
            if relevant in rankings[run][t]:
                total += Fraction(1, rankings[run][t].index(relevant) + 1)
        return total / len(TOPICS)

    full = {r: ap(r) for r in names}
    reduced = {r: ap(r, team[r]) for r in names}
    assert full == exact_means(campaign, "map_rel1")
    rows = {r["run"]: r for r in read_csv(os.path.join(campaign["out"], "reusability.csv"))}
    for run in names:
        others = [full[o] for o in names if o != run]
        assert int(rows[run]["rank_full"]) == 1 + sum(v > full[run] for v in others), run
        assert int(rows[run]["rank_reduced"]) == 1 + sum(v > reduced[run] for v in others), run
    assert len({rows[r]["rank_full"] for r in TIED_RANKS}) == 1
    summary = read_csv(os.path.join(campaign["out"], "reusability_summary.csv"))[0]
    assert float(summary["tau"]) == pytest.approx(exact_tau_b([full[r] for r in names],
                                                              [reduced[r] for r in names]), abs=1e-12)
    changes = {r: abs(int(rows[r]["rank_full"]) - int(rows[r]["rank_reduced"])) for r in names}
    assert int(summary["largest_rank_change"]) == max(changes.values())
    assert summary["run"] == (next(r for r in (row["run"] for row in read_csv(
        os.path.join(campaign["out"], "reusability.csv"))) if changes[r] == max(changes.values()))
        if max(changes.values()) else "")
