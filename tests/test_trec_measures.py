"""trec_eval measures on hand-made topics: the worked examples of shared/specs/ranking-measures.md (A.2, A.6)
and small cases whose expected values are written as their derivations."""
import math

import numpy as np
import pytest

from runscore.ranking.label import NOT_IN_POOL, UNJUDGED, JudgedTopic, judge_ranking, rank_order
from runscore.measures.trec import ELEVEN_POINTS, REGISTRY, TrecOptions, evaluate_topic
from runscore.measures.trec_blocks import interpolated_precision, recall_point_cutoff

N, U = NOT_IN_POOL, UNJUDGED


def topic(rels, judged, level=1):
    return JudgedTopic(np.array(rels, dtype=np.int64), np.array(judged, dtype=np.int64), level)


def values(t, *names, options=TrecOptions(), params=None):
    return evaluate_topic(t, names, options, params)


# ------------------------------------------------------------------------------------ A.2 tie rule ---

def test_ties_are_broken_by_docno_descending():
    """Spec A.2: sims {B: 0.5, A: 0.5, C: 0.9} rank C, B, A; with A relevant: P_1 = P_2 = 0, P_3 = 1/3, map = 1/3."""
    docnos = ["B", "A", "C"]
    order = rank_order(np.array([0.5, 0.5, 0.9]), docnos)
    ranked = [docnos[i] for i in order]
    assert ranked == ["C", "B", "A"]
    t = judge_ranking(ranked, {"A": 1, "B": 0, "C": 0})
    got = values(t, "P", "map", params={"P": (1, 2, 3)})
    assert (got["P_1"], got["P_2"], got["P_3"], got["map"]) == (0.0, 0.0, 1 / 3, (1 / 3) / 1)


# ---------------------------------------------------------------------- A.6 interpolation, R = 3 ---

R3 = topic([1, 0, 0, 1, 0, 0, 0, 0, 0, 1], [1, 1, 1])   # relevant at ranks 1, 4, 10: precisions 1, 1/2, 3/10
A6_TABLE = {
    "ceil": [1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.3, 0.3, 0.3, 0.3],
    "v9": [1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.5, 0.3, 0.3, 0.3],
    "v10": [1.0, 1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.5, 0.3, 0.3],
}


@pytest.mark.parametrize("rule", sorted(A6_TABLE))
def test_interpolated_precision_table_for_r3(rule):
    assert interpolated_precision(R3, ELEVEN_POINTS, rule) == pytest.approx(A6_TABLE[rule], abs=1e-15)


@pytest.mark.parametrize("rule", sorted(A6_TABLE))
def test_11pt_avg_is_the_mean_of_the_table(rule):
    got = values(R3, "11pt_avg", options=TrecOptions(interp_cutoff=rule))["11pt_avg"]
    assert got == pytest.approx(sum(A6_TABLE[rule]) / 11, abs=1e-15)


# The v9 floating-point trap (spec A.6): (long)(p*R + 0.9) is one below ceil(p*R) for these (p, R) up to 200.
V9_TRAPS = [(0.7, r) for r in (3, 23, 33, 43, 53, 63, 73, 83)] + [(0.3, r) for r in (57, 67, 77, 87, 97, 197)]


@pytest.mark.parametrize("p,r", V9_TRAPS)
def test_v9_cutoff_is_one_below_ceil_at_the_traps(p, r):
    assert recall_point_cutoff(p, r, "ceil") == math.ceil(round(p * 10) * r / 10)
    assert recall_point_cutoff(p, r, "v9") == recall_point_cutoff(p, r, "ceil") - 1


def test_v9_traps_are_all_the_traps_up_to_200():
    found = [(p, r) for p in ELEVEN_POINTS for r in range(1, 201)
             if recall_point_cutoff(p, r, "v9") != recall_point_cutoff(p, r, "ceil")]
    assert sorted(found) == sorted(V9_TRAPS)


def test_v10_rounds_half_up():
    # 0.5 * 3 = 1.5 -> 2; 0.1 * 5 = 0.5 -> 1; 0.2 * 3 = 0.6000000000000001 -> 1; 0.4 * 3 = 1.2000000000000002 -> 1
    assert [recall_point_cutoff(p, r, "v10") for p, r in ((0.5, 3), (0.1, 5), (0.2, 3), (0.4, 3))] == [2, 1, 1, 1]


# ------------------------------------------------------------------------------ hand-derived values ---

# Ranking: rel 2, not in pool, 0, unjudged (-2 in qrels), 1, 0. Qrels grades: 2, 0, 1, 0, 3 (not retrieved),
# and one negative grade. R = 3 at level 1 (grades 2, 1, 3).
MIXED = topic([2, N, 0, U, 1, 0], [2, 0, 1, 0, 3, -1])


def test_counts_and_set_measures():
    got = values(MIXED, "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "set_P", "set_recall",
                 "set_relative_P", "set_map", "set_F")
    assert (got["num_ret"], got["num_rel"], got["num_rel_ret"], got["num_nonrel_judged_ret"]) == (6, 3, 2, 2)
    assert got["set_P"] == 2 / 6 and got["set_recall"] == 2 / 3 and got["set_relative_P"] == 2 / min(6, 3)
    assert got["set_map"] == (2 / 6) * (2 / 3)
    assert got["set_F"] == pytest.approx(2 * (2 / 6) * (2 / 3) / ((2 / 6) + (2 / 3)), abs=1e-15)


def test_relstring_utility_success_relative_p():
    got = values(MIXED, "relstring", "utility", "success", "relative_P", params={"relative_P": (1, 2, 5)})
    assert got["relstring"] == "2-0.10"
    assert got["utility"] == 1 * 2 - 1 * (6 - 2) + 0 * (3 - 2) + 0
    assert (got["success_1"], got["success_5"], got["success_10"]) == (1.0, 1.0, 1.0)
    assert (got["relative_P_1"], got["relative_P_2"], got["relative_P_5"]) == (1 / 1, 1 / 2, 2 / 3)


def test_map_cut_rprec_mult_and_bpref():
    got = values(MIXED, "map_cut", "Rprec_mult", "bpref", params={"map_cut": (1, 5), "Rprec_mult": (0.2, 2.0)})
    assert got["map_cut_1"] == (1 / 1) / 3 and got["map_cut_5"] == (1 / 1 + 2 / 5) / 3
    # Rprec_mult 0.2: cutoff (long)(0.2*3 + 0.9) = 1 -> P@1 = 1; 2.0: cutoff 6 -> 2/6.
    assert (got["Rprec_mult_0.20"], got["Rprec_mult_2.00"]) == (1.0, 2 / 6)
    # bpref: the relevant doc at rank 1 has no judged non-relevant above it (1), the one at rank 5 has one
    # (the 0 at rank 3): 1 - min(1, 3)/min(3, 2 judged non-relevant) = 1/2.
    assert got["bpref"] == (1 + (1 - 1 / 2)) / 3


def test_infap_with_unjudged_documents():
    # Relevant at rank 1 (j = 0): 1. Relevant at rank 5 (j = 4): 1 judged non-relevant and 1 unjudged above,
    # the not-in-pool doc is skipped: 1/5 + (4/5) * ((1 + 1 + 1) / 4) * ((1 + e) / (1 + 1 + 2e)).
    e = 0.00001
    expected = (1.0 + (1 / 5 + (4 / 5) * ((1 + 1 + 1) / 4) * ((1 + e) / (1 + 1 + 2 * e)))) / 3
    assert values(MIXED, "infAP")["infAP"] == pytest.approx(expected, abs=1e-15)


def test_ndcg_family_with_default_and_given_gains():
    dcg = 2 / math.log2(2) + 1 / math.log2(6)
    idcg = 3 / math.log2(2) + 2 / math.log2(3) + 1 / math.log2(4)
    got = values(MIXED, "ndcg", "ndcg_cut", params={"ndcg_cut": (1, 5)})
    assert got["ndcg"] == pytest.approx(dcg / idcg, abs=1e-15)
    assert got["ndcg_cut_1"] == 2 / 3
    assert got["ndcg_cut_5"] == pytest.approx(dcg / idcg, abs=1e-15)
    # ndcg.2=10: grade 2 gains 10, so the ideal order is 10 (grade 2), 3 (grade 3), 1 (grade 1).
    pairs = REGISTRY["ndcg"].parse_params("2=10")
    got = values(MIXED, "ndcg", params={"ndcg": pairs})
    assert got["ndcg_2=10"] == pytest.approx((10 + 1 / math.log2(6)) / (10 + 3 / math.log2(3) + 1 / math.log2(4)),
                                             abs=1e-15)


def test_bin_g_and_unj_and_rbp():
    got = values(MIXED, "binG", "unj", "rbp", "rbp_resid")
    # Relevant at rank 1 (0 non-relevant above) and rank 5 (3 documents above, 1 of them relevant: 3 non-rel).
    assert got["binG"] == (1 / math.log2(2) + 1 / math.log2(2 + 3)) / 3
    assert (got["unj_5"], got["unj_10"], got["unj_20"]) == (2 / 5, 2 / 10, 2 / 20)
    # rbp: gains 0..3 scaled to [0, 1] (divide by 3): (1 - 0.9) * (2/3 * 0.9^0 + 1/3 * 0.9^4).
    assert got["rbp"] == pytest.approx(0.1 * (2 / 3 + (1 / 3) * 0.9 ** 4), abs=1e-15)
    # rbp_resid: unjudged at ranks 2 and 4: 0.9^6 + 0.1 * (0.9^1 + 0.9^3).
    assert got["rbp_resid"] == pytest.approx(0.9 ** 6 + 0.1 * (0.9 + 0.9 ** 3), abs=1e-15)


def test_level_changes_relevance_but_not_ndcg_cut_gains():
    t2 = topic(MIXED.rels, MIXED.judged, level=2)
    got = values(t2, "num_rel", "num_rel_ret", "ndcg_cut", params={"ndcg_cut": (1,)})
    assert (got["num_rel"], got["num_rel_ret"], got["ndcg_cut_1"]) == (2, 1, 2 / 3)


# ------------------------------------------------------------------------------------ edge cases ---

EVERY_MEASURE = tuple(REGISTRY)


@pytest.mark.parametrize("case", ["empty ranking", "no relevant", "only negative grades", "nothing judged"])
def test_degenerate_topics_give_finite_values_for_every_measure(case):
    t = {"empty ranking": topic([], [1, 0]),
         "no relevant": topic([0, N], [0, 0]),
         "only negative grades": topic([U, N], [-1]),
         "nothing judged": topic([N], [])}[case]
    got = values(t, *EVERY_MEASURE, options=TrecOptions(interp_cutoff="v10"))
    numbers = {k: v for k, v in got.items() if not isinstance(v, str)}
    assert all(math.isfinite(v) for v in numbers.values()), numbers
    may_be_non_zero = ("num_ret", "num_rel", "utility", "num_nonrel_judged_ret", "rbp_resid", "unj_5", "unj_10",
                       "unj_20")
    non_zero = {k: v for k, v in numbers.items() if v != 0 and k not in may_be_non_zero}
    assert non_zero == {}


def test_params_parse_like_trec_eval():
    assert list(REGISTRY["P"].parse_params("20,5,10.7")) == [5, 10, 20]          # atol, sorted
    assert REGISTRY["iprec_at_recall"].value_names(REGISTRY["iprec_at_recall"].parse_params(".5,.25")) == \
        ["iprec_at_recall_0.25", "iprec_at_recall_0.50"]
    assert REGISTRY["utility"].value_names(REGISTRY["utility"].parse_params("2,-1,0,0")) == ["utility_2,-1,0,0"]
    assert REGISTRY["utility"].value_names() == ["utility"]
    with pytest.raises(ValueError, match="duplicate cutoffs"):
        REGISTRY["P"].parse_params("5,5.5")
