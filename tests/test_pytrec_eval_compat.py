"""runscore.pytrec_eval against pytrec-eval-terrier (the test-only oracle): the same topics, the same keys and the
same values, bit for bit, on seeded random qrels/run pairs, for every measure pytrec_eval supports, with and
without parameters, relevance levels 1-3 and the judged-documents-only flag; and the same helpers and errors.

RUNSCORE_PYTREC_CASES sets the number of random pairs (240 here; `make fuzz` runs more).
"""
import math
import os
import random

import pytest

import runscore.pytrec_eval as ours

pytrec_eval = pytest.importorskip("pytrec_eval", reason="pytrec-eval-terrier (test extra) is not installed")

CASES = int(os.environ.get("RUNSCORE_PYTREC_CASES", "240"))
# Parameterised requests in pytrec_eval's syntax: `name.params` and `name_params`.
WITH_PARAMETERS = ["P.3,7", "recall_4", "ndcg_cut.5,12", "map_cut_2,30", "iprec_at_recall.0.25,0.5",
                   "Rprec_mult.0.5,1.5", "success.2", "relative_P_3", "set_F.0.5", "11pt_avg.0.2,0.6"]


def random_case(seed):
    """Qrels and a run of a few topics: ties, scores equal only as C floats, graded and negative grades,
    topics only in the run or only in the qrels, topics without a relevant document, int and float scores."""
    rng = random.Random(seed)
    qrels, run = {}, {}
    for t in range(rng.randint(1, 6)):
        qid = "q%d" % (t * 7 + rng.randint(0, 6))
        docs = ["D%d" % i for i in range(rng.randint(1, 40))]
        kind = rng.random()
        if kind > 0.1:
            judged = rng.sample(docs, rng.randint(1, len(docs)))
            qrels[qid] = {d: rng.choice([-2, -1, 0, 0, 0, 1, 1, 2, 3, 4]) for d in judged}
            if rng.random() < 0.15:
                qrels[qid] = {d: rng.choice([-1, 0]) for d in judged}
            if all(g < 0 for g in qrels[qid].values()):
                qrels[qid][judged[0]] = 0       # only negative grades: trec_eval reads outside an array
        if kind < 0.85:
            retrieved = rng.sample(docs + ["X%d" % i for i in range(5)], rng.randint(1, len(docs)))
            ties = [rng.choice([1.0, 2.0, 2.5]) for _ in range(3)]
            scores = {}
            for d in retrieved:
                roll = rng.random()
                if roll < 0.4:
                    scores[d] = rng.choice(ties)
                elif roll < 0.5:
                    scores[d] = rng.choice(ties) + 1e-12          # equal only as C floats
                elif roll < 0.6:
                    scores[d] = rng.randint(-3, 3)                # ints are scores too
                else:
                    scores[d] = round(rng.uniform(-5, 5), rng.choice([1, 3, 7]))
            run[qid] = scores
    if not any(q in run for q in qrels):
        qid = next(iter(qrels)) if qrels else "q0"
        qrels.setdefault(qid, {"D0": 1})
        run[qid] = {"D0": 1.0}
    if rng.random() < 0.1:
        qrels["empty"] = {}                                       # dropped by both
    return qrels, run, rng.choice([1, 1, 2, 3]), int(rng.random() < 0.3)


def same(a, b):
    return a == b or (a != a and b != b)


def assert_same_output(theirs, mine, where):
    assert list(mine) == list(theirs), "%s: evaluated topics differ" % where
    for qid, values in theirs.items():
        assert sorted(mine[qid]) == sorted(values), "%s topic %s: keys differ" % (where, qid)
        for key, value in values.items():
            assert same(mine[qid][key], value), "%s topic %s %s: runscore %r, pytrec_eval %r" % (
                where, qid, key, mine[qid][key], value)


@pytest.mark.parametrize("block", range(4))
def test_every_value_equals_pytrec_eval_on_random_pairs(block):
    every = set(pytrec_eval.supported_measures)
    seen = set()
    for seed in range(block * CASES // 4, (block + 1) * CASES // 4):
        qrels, run, level, judged_only = random_case(seed)
        measures = every if seed % 2 == 0 else set(random.Random(seed).sample(WITH_PARAMETERS, 4)) | {"map"}
        theirs = pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level=level,
                                                judged_docs_only_flag=judged_only).evaluate(run)
        mine = ours.RelevanceEvaluator(qrels, measures, relevance_level=level,
                                       judged_docs_only_flag=judged_only).evaluate(run)
        assert_same_output(theirs, mine, "seed %d" % seed)
        seen.update(k for values in theirs.values() for k in values)
    if CASES >= 8:
        bases = {m for m in every if any(k == m or k.startswith(m + "_") for k in seen)}
        assert bases == every, "not compared: %s" % sorted(every - bases)


def test_supported_measures_and_nicknames_are_pytrec_evals():
    assert ours.supported_measures == set(pytrec_eval.supported_measures)
    for nickname in ("official", "set", "all_trec"):
        assert ours.supported_nicknames[nickname] == set(pytrec_eval.supported_nicknames[nickname])


def test_a_measure_with_and_without_parameters_keeps_only_the_parameters_as_pytrec_eval():
    qrels, run = {"1": {"a": 1, "b": 0}}, {"1": {"a": 1.0, "b": 2.0, "c": 0.5}}
    for measures in ({"P", "P.1"}, {"ndcg_cut", "ndcg_cut_3", "ndcg_cut.1"}, {"official"}, {"set", "P_2"}):
        assert_same_output(pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run),
                           ours.RelevanceEvaluator(qrels, measures).evaluate(run), str(measures))


def test_document_ids_the_word_packing_cannot_hold_take_the_exact_path_with_the_same_values():
    qrels = {"1": {"a\nb": 1, "c": 2, "d": 0}}
    run = {"1": {"a\nb": 1.0, "c": 1.0, "d": 3.0, "e": 2.0}}
    measures = {"map", "ndcg_cut", "P", "bpref", "recip_rank", "ndcg"}
    assert_same_output(pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run),
                       ours.RelevanceEvaluator(qrels, measures).evaluate(run), "newline in an id")


def test_one_evaluator_scores_several_runs():
    qrels = {"1": {"a": 1, "b": 2}, "2": {"c": 1}}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg"})
    mine = ours.RelevanceEvaluator(qrels, {"map", "ndcg"})
    for run in ({"1": {"a": 1.0, "b": 0.5}}, {"2": {"c": 1.0, "x": 2.0}, "1": {"b": 3.0}}, {}):
        assert_same_output(theirs.evaluate(run), mine.evaluate(run), str(run))


def test_unsupported_measures_say_which_and_are_value_errors():
    qrels = {"1": {"a": 1}}
    with pytest.raises(ValueError, match="unsupported measure 'ndgc_cut.10'.*did you mean ndcg_cut"):
        ours.RelevanceEvaluator(qrels, {"ndgc_cut.10"})
    with pytest.raises(ValueError, match="'prefs_simp' reads preference"):
        ours.RelevanceEvaluator(qrels, {"prefs_simp"})
    with pytest.raises(ValueError, match="set of names"):
        ours.RelevanceEvaluator(qrels, "map")
    with pytest.raises(ValueError):        # pytrec_eval refuses it too
        pytrec_eval.RelevanceEvaluator(qrels, {"ndgc_cut.10"})


@pytest.mark.parametrize("qrels, run, message", [
    ({"1": {"a": "1"}}, {"1": {"a": 1.0}}, "the grade must be an integer"),
    ({1: {"a": 1}}, {"1": {"a": 1.0}}, "topic ids must be strings"),
    ({"1": {"a": 1}}, {"1": {"a": "high"}}, "the score must be a number, got 'high'"),
    ({"1": {"a": 1}}, {"1": {"a": float("nan")}}, "the score must be a finite number"),
    ({"1": {"a": 1}}, {"1": {3: 1.0}}, "document ids must be strings, got 3"),
    ({"1": {"a": 1}}, {"1": [("a", 1.0)]}, "must map document ids to scores"),
    ({"1": {"a": 2 ** 70}}, {"1": {"a": 1.0}}, "qrels: error: topic 1 document a: the grade must be an integer "
                                               "within"),
    ({"1": {"a": 1}}, {"1": {"a": 2 ** 1100}}, "run: error: topic 1 document a: the score must be a finite number"),
])
def test_bad_types_are_type_errors_with_a_reason(qrels, run, message):
    with pytest.raises(TypeError, match=message):
        ours.RelevanceEvaluator(qrels, {"map"}).evaluate(run)


def test_parsers_and_aggregation_are_pytrec_evals():
    run_lines = ["1 Q0 a 1 2.5 r\n", "1 Q0 b 2 1.5 r\n", "2 Q0 c 1 0.25 r\n"]
    qrel_lines = ["1 0 a 1\n", "1 0 b 0\n", "2 0 c 2\n"]
    assert ours.parse_run(run_lines) == pytrec_eval.parse_run(run_lines)
    assert ours.parse_qrel(qrel_lines) == pytrec_eval.parse_qrel(qrel_lines)
    qrels, run = ours.parse_qrel(qrel_lines), ours.parse_run(run_lines)
    mine = ours.RelevanceEvaluator(qrels, {"map", "gm_map", "num_ret"}).evaluate(run)
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"map", "gm_map", "num_ret"}).evaluate(run)
    for measure in ("map", "gm_map", "num_ret"):
        values = [v[measure] for v in mine.values()]
        assert ours.compute_aggregated_measure(measure, values) == pytrec_eval.compute_aggregated_measure(
            measure, [v[measure] for v in theirs.values()])
    assert math.isclose(ours.compute_aggregated_measure("gm_map", [math.log(0.5), math.log(0.125)]), 0.25)
    with pytest.raises(TypeError, match="run:2: error: the line has 3 fields"):
        ours.parse_run(["1 Q0 a 1 2.5 r", "1 Q0 b"])


def test_long_rankings_equal_pytrec_eval():
    """Hundreds of documents per topic (the whole-run kernels' per-topic cumulative sums), many tied scores."""
    rng = random.Random(42)
    qrels, run = {}, {}
    for t in range(5):
        docs = ["doc-%04d" % i for i in range(rng.randint(200, 700))]
        qrels["t%d" % t] = {d: rng.choice([0, 0, 0, 1, 2, 3, -1]) for d in rng.sample(docs, len(docs) // 2)}
        run["t%d" % t] = {d: round(rng.uniform(0, 3), 2) for d in rng.sample(docs, len(docs) - 10)}
    for level in (1, 2):
        measures = set(pytrec_eval.supported_measures)
        assert_same_output(pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level=level).evaluate(run),
                           ours.RelevanceEvaluator(qrels, measures, relevance_level=level).evaluate(run),
                           "level %d" % level)


def test_runs_written_in_rank_order_equal_pytrec_eval():
    """Dicts whose documents come in descending score order (as parse_run gives a usual run file) skip the sort;
    their ties are still broken by document id."""
    for seed in range(40):
        qrels, run, level, judged_only = random_case(seed)
        ordered = {qid: dict(sorted(docs.items(), key=lambda item: -item[1])) for qid, docs in run.items()}
        measures = {"map", "P", "ndcg_cut", "recip_rank", "bpref", "relstring", "iprec_at_recall"}
        assert_same_output(pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level=level).evaluate(ordered),
                           ours.RelevanceEvaluator(qrels, measures, relevance_level=level).evaluate(ordered),
                           "seed %d in rank order" % seed)
