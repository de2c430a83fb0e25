"""runscore.pytrec_eval against pytrec-eval-terrier (the test-only oracle): the same topics, the same keys and the
same values, bit for bit, on seeded random qrels/run pairs, for every measure pytrec_eval supports, with and
without parameters, relevance levels 1-3 and the judged-documents-only flag; and the same helpers and errors.

RUNSCORE_PYTREC_CASES sets the number of random pairs (60 in `make test`, 240 in `make fuzz-ci`, 5,000 in `make fuzz`).
"""
import ast
import math
import os
import random
import subprocess
import sys
import warnings

import numpy as np

import pytest

import runscore.pytrec_eval as ours

pytrec_eval = pytest.importorskip("pytrec_eval", reason="pytrec-eval-terrier (test extra) is not installed")

CASES = int(os.environ.get("RUNSCORE_PYTREC_CASES", "60"))  # 240 in make fuzz-ci
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
    ({"1": {"a": 1}}, {"1": {3: 1.0}}, "document ids must be strings, got 3"),
    ({"1": {"a": 1}}, {"1": [("a", 1.0)]}, "must map document ids to scores"),
    ({"1": {"a": 2 ** 70}}, {"1": {"a": 1.0}}, "qrels: error: topic 1 document a: the grade must be an integer "
                                               "within"),
    ({"1": {"a": 1}}, {"1": {"a": 2 ** 1100}}, "run: error: topic 1 document a: the score must be a number within a "
                                               "double, got 1358"),
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
    with pytest.raises(ValueError, match="run:2: error: the line has 3 fields"):
        ours.parse_run(["1 Q0 a 1 2.5 r", "1 Q0 b"])


# Lines parse_run and parse_qrel refuse, and the exception class pytrec_eval raises for each (its parsers unpack
# `line.strip().split()` into 6 or 4 names, assert the document is new to the topic, and call float() or int()).
PARSER_FAILURES = [
    ("parse_run", ["1 Q0 a 1 2.5 r", "1 Q0 a 2 1.5 r"], AssertionError, "run:2: .*document a is listed twice"),
    ("parse_run", ["1 Q0 a 1 2.5"], ValueError, "run:1: .*5 fields"),
    ("parse_run", ["1 Q0 a 1 2.5 r extra"], ValueError, "run:1: .*7 fields"),
    ("parse_run", ["1 Q0 a 1 high r"], ValueError, "run:1: .*'high' is not a number"),
    ("parse_run", ["1 Q0 a 1 2,5 r"], ValueError, "run:1: .*'2,5' is not a number"),
    ("parse_qrel", ["1 0 a 1", "1 0 a 0"], AssertionError, "qrels:2: .*document a is judged twice"),
    ("parse_qrel", ["1 0 a"], ValueError, "qrels:1: .*3 fields"),
    ("parse_qrel", ["1 0 a 1 x"], ValueError, "qrels:1: .*5 fields"),
    ("parse_qrel", ["1 0 a 1.5"], ValueError, "qrels:1: .*'1.5' is not an integer"),
    ("parse_qrel", ["1 0 a rel"], ValueError, "qrels:1: .*'rel' is not an integer"),
]


@pytest.mark.parametrize("parser, lines, error, message", PARSER_FAILURES)
def test_parsers_fail_with_pytrec_evals_exception_classes(parser, lines, error, message):
    """Code that catches AssertionError or ValueError around pytrec_eval's parsers catches runscore's too; the
    message adds the line (runscore's classes are RunError / ConfigError as well)."""
    with pytest.raises(error):
        getattr(pytrec_eval, parser)(lines)
    with pytest.raises(error, match=message) as raised:
        getattr(ours, parser)(lines)
    assert not isinstance(raised.value, TypeError)
    assert isinstance(raised.value, ours.RunError if parser == "parse_run" else ours.ConfigError)


def test_parsers_skip_blank_lines_where_pytrec_eval_stops():
    """The one difference of the parsers (docs/python-api.md, "Where it differs"): a blank line, as a file's last
    line often is, is skipped; pytrec_eval's unpacking raises ValueError on it."""
    for parser, line in (("parse_run", "1 Q0 a 1 2.5 r"), ("parse_qrel", "1 0 a 1")):
        with pytest.raises(ValueError):
            getattr(pytrec_eval, parser)([line, "\n"])
        assert getattr(ours, parser)([line, "\n", "  "]) == getattr(pytrec_eval, parser)([line])


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


@pytest.mark.parametrize("measure", sorted(ours.supported_measures - {"runid"}))    # (alone, pytrec_eval
def test_each_all_trec_measure_alone_equals_pytrec_eval(measure):                  # gives runid uninitialised)
    """Each measure of all_trec requested alone (its whole-run kernel, measures/vectorised_all_trec.py, or the
    per-topic code, with nothing else in the context), on random pairs with ties, topics without a relevant
    document, negative grades and levels 1-3; and one evaluator reused for runs of other topics (the qrels side
    it keeps per list of topics)."""
    theirs_reused = ours_reused = None
    for seed in range(1000, 1016):
        qrels, run, level, judged_only = random_case(seed)
        theirs = pytrec_eval.RelevanceEvaluator(qrels, {measure}, relevance_level=level).evaluate(run)
        assert_same_output(theirs, ours.RelevanceEvaluator(qrels, {measure}, relevance_level=level).evaluate(run),
                           "%s seed %d" % (measure, seed))
        if theirs_reused is None:
            theirs_reused = pytrec_eval.RelevanceEvaluator(qrels, {measure})
            ours_reused = ours.RelevanceEvaluator(qrels, {measure})
        for subset in (run, dict(list(run.items())[:1]), run):
            assert_same_output(theirs_reused.evaluate(subset), ours_reused.evaluate(subset), "%s reused" % measure)


def test_rankings_of_very_different_lengths_equal_pytrec_eval():
    """One long topic among many short ones: the segment sums walk depth by depth instead of a grid."""
    rng = random.Random(7)
    qrels, run = {}, {}
    for t in range(60):
        docs = ["d%d" % i for i in range(900 if t == 3 else rng.randint(1, 6))]
        qrels["t%d" % t] = {d: rng.choice([0, 1, 2, 3, -1]) for d in docs}
        run["t%d" % t] = {d: round(rng.uniform(0, 2), 1) for d in docs}
    measures = set(pytrec_eval.supported_measures)
    assert_same_output(pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run),
                       ours.RelevanceEvaluator(qrels, measures).evaluate(run), "lengths 1-6 and 900")


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


def _with_non_finite(seed, choices):
    qrels, run, level, judged_only = random_case(seed)
    rng = random.Random(seed)
    for docs in run.values():
        for doc in docs:
            if rng.random() < 0.3:
                docs[doc] = rng.choice(choices)
    return qrels, run, level, judged_only


FLOAT32_MAX = float(np.finfo(np.float32).max)


def test_infinite_scores_are_ranked_as_pytrec_eval_ranks_them_with_a_warning():
    """+-inf (and finite doubles beyond a C float, which trec_eval 9 reads as inf) tie with each other and break
    the tie by docno, as pytrec_eval does; a RuntimeWarning says how many scores are infinite as a C float."""
    every = set(pytrec_eval.supported_measures)
    for seed in range(CASES // 2):
        qrels, run, level, judged_only = _with_non_finite(seed, [math.inf, -math.inf, 1e39, -1e39])
        theirs = pytrec_eval.RelevanceEvaluator(qrels, every, level, judged_only).evaluate(run)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            mine = ours.RelevanceEvaluator(qrels, every, level, judged_only).evaluate(run)
        assert_same_output(theirs, mine, "seed %d" % seed)
        has_inf = any(math.isinf(v) or abs(v) > FLOAT32_MAX for qid in run for v in run[qid].values()
                      if qid in theirs)
        assert any("infinite score(s) (as a C float)" in str(w.message) for w in caught) == has_inf, "seed %d" % seed


def test_nan_scores_rank_below_every_number_with_a_warning():
    """pytrec_eval's order of NaN is its C++ and C libraries' (comparators NaN breaks): runscore ranks NaN below
    every number, ties by docno descending, as `runscore trec_eval` does, and says so."""
    qrels = {"1": {"a": 1, "b": 0, "c": 2}}
    run = {"1": {"a": math.nan, "b": 1.0, "c": math.nan, "d": -math.inf}}
    with pytest.warns(RuntimeWarning, match="2 NaN score.*NaN below every number"):
        values = ours.RelevanceEvaluator(qrels, {"P_1", "P_2", "P_3", "P_4", "recip_rank"}).evaluate(run)["1"]
    # b (1.0), d (-inf), then the NaNs by docno descending: c, a
    assert (values["P_1"], values["P_2"], values["P_3"], values["recip_rank"]) == (0.0, 0.0, 1 / 3, 1 / 3)


# One child process asks pytrec-eval-terrier every question, each in a fork of its own: a level below 0 kills
# pytrec_eval, which must not take the other answers with it, and a new Python a question (importing numpy and
# pytrec_eval each time) cost 0.2 s of CPU each.
_TERRIER_CHILD = r"""
import os, sys
import numpy as np
import pytrec_eval
Q = {'1': {'a': 1, 'b': 0, 'c': 2}}
R = {'1': {'a': 1.0, 'b': 2.0, 'z': 3.0}}

def ask(expression):
    try:
        print(repr(eval(expression)))
    except Exception as e:
        print(type(e).__name__)

for line in sys.stdin:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        os.dup2(write, 1)                     # what pytrec_eval itself prints is part of the answer, as before
        sys.stdout = os.fdopen(1, "w")
        ask(line.rstrip("\n"))
        sys.stdout.flush()
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as answer:
        text = answer.read().decode()
    _, status = os.waitpid(pid, 0)
    sys.__stdout__.write(repr(text.strip() if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 else "crash")
                         + "\n")
    sys.__stdout__.flush()
"""
_TERRIER_ANSWERS = {}


def _terrier(expression):
    """What pytrec-eval-terrier does with `expression` (with qrels Q, run R, np), in a child process: values,
    the exception's type, or 'crash' (a level below 0 kills it). Every expression of this file asked at once."""
    if expression not in _TERRIER_ANSWERS:
        asked = [expression] + [e for _, e in ARGUMENTS if e not in _TERRIER_ANSWERS and e != expression]
        done = subprocess.run([sys.executable, "-c", _TERRIER_CHILD], input="".join(e + "\n" for e in asked).encode(),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        answers = [ast.literal_eval(line) for line in done.stdout.decode().splitlines()]
        assert done.returncode == 0 and len(answers) == len(asked), done.stderr.decode()[-2000:]
        _TERRIER_ANSWERS.update(zip(asked, answers))
    return _TERRIER_ANSWERS[expression]


def _ours(expression):
    try:
        with warnings.catch_warnings():         # (an infinite score's warning is tested on its own, above)
            warnings.filterwarnings("ignore", "runscore.pytrec_eval: .* infinite score", RuntimeWarning)
            return repr(eval(expression, {"pytrec_eval": ours, "np": np, "Q": {"1": {"a": 1, "b": 0, "c": 2}},
                                          "R": {"1": {"a": 1.0, "b": 2.0, "z": 3.0}}}))
    except Exception as exc:                    # noqa: B902 - the type is what is compared
        return "TypeError" if isinstance(exc, TypeError) else type(exc).__name__


ARGUMENTS = [
    # relevance_level: an integer within a C int; 0 refused; below 0 pytrec_eval crashes (we refuse, as for 0).
    # (bpref is left out: with a level far above the highest grade, trec_eval's bpref reads past its array of
    # grade counts and pytrec_eval may crash, as the trec_eval binary does, docs/trec_eval.md)
    ("level=%s" % level, "pytrec_eval.RelevanceEvaluator(Q, {'map', 'P_2', 'ndcg', 'num_rel_ret'}, "
                         "relevance_level=%s).evaluate(R)" % level)
    for level in ("0", "-1", "1", "2", "3", "True", "np.int64(2)", "np.int32(1)", "1.5", "2.0", "None", "'1'",
                  "2**31", "2**31 - 1")
] + [
    # judged_docs_only_flag: any integer within a C int, non-zero meaning on
    ("flag=%s" % flag, "pytrec_eval.RelevanceEvaluator(Q, {'map', 'num_ret'}, judged_docs_only_flag=%s)"
                       ".evaluate(R)" % flag)
    for flag in ("0", "1", "2", "-1", "True", "False", "np.int64(2)", "0.5", "1.0", "None", "'1'", "2**31")
] + [
    # grades: integers only (a float grade, even 1.0, is a TypeError in both)
    ("grade=%s" % grade, "pytrec_eval.RelevanceEvaluator({'1': {'a': %s, 'b': 1}}, {'map', 'ndcg', 'num_rel'})"
                         ".evaluate({'1': {'a': 1.0, 'b': 2.0}})" % grade)
    for grade in ("2", "True", "1.5", "1.0", "-0.5", "float('inf')", "float('nan')", "np.float32(1.0)",
                  "np.float64(2.0)")
] + [
    # scores: Python numbers and numpy.float64 (a float); numpy float32 and integers, see below
    ("score=%s" % score, "pytrec_eval.RelevanceEvaluator(Q, {'map', 'ndcg'}).evaluate({'1': {'a': %s, 'b': 1.5}})"
                         % score)
    for score in ("2", "True", "2.5", "np.float64(2.5)", "1e39", "-1e39", "float('inf')", "float('-inf')")
]


@pytest.mark.parametrize("name,expression", ARGUMENTS, ids=[a[0] for a in ARGUMENTS])
def test_arguments_are_taken_or_refused_as_pytrec_eval_does(name, expression):
    theirs, mine = _terrier(expression), _ours(expression)
    if name == "level=-1":          # pytrec_eval 0.5.11 lets it through (not as trec_eval's -l -1; with bpref it
        assert mine == "TypeError"  # crashes): we refuse it as pytrec_eval refuses 0 (docs/python-api.md)
    else:
        assert mine == theirs, "%s: runscore %s, pytrec_eval %s" % (name, mine, theirs)


@pytest.mark.parametrize("value", ["np.float32(2.5)", "np.int64(2)", "np.float16(0.5)"])
def test_numpy_scores_pytrec_eval_refuses_are_taken_at_their_value(value):
    """pytrec_eval raises TypeError for numpy scalars that are not Python floats (a common output of numpy
    models); runscore takes their value, which is what converting them to float first gives in pytrec_eval."""
    assert _terrier("pytrec_eval.RelevanceEvaluator(Q, {'map'}).evaluate({'1': {'a': %s}})" % value) == "TypeError"
    converted = _terrier("pytrec_eval.RelevanceEvaluator(Q, {'map', 'ndcg'}).evaluate("
                         "{'1': {'a': float(%s), 'b': 1.5}})" % value)
    assert _ours("pytrec_eval.RelevanceEvaluator(Q, {'map', 'ndcg'}).evaluate({'1': {'a': %s, 'b': 1.5}})"
                 % value) == converted


def test_a_run_topic_without_documents_gets_pytrec_evals_values_nan_included():
    """pytrec_eval evaluates a run topic given with no documents as an empty ranking (unless it is the first topic
    it evaluates: then it crashes): 0 everywhere, and trec_eval's 0/0 = NaN for iprec_at_recall at the recall
    points whose cutoff (long)(p R + 0.9) is 0 and for 11pt_avg."""
    every = set(pytrec_eval.supported_measures) | {"iprec_at_recall.0,0.05,0.5,1"}
    for seed in range(CASES // 4):
        qrels, run, level, judged_only = random_case(seed)
        first = next((q for q in run if q in qrels and qrels[q]), None)
        empty = [q for q in qrels if qrels[q] and q != first]
        if first is None or not empty:
            continue
        run = dict(run, **{q: {} for q in empty})       # after the first evaluated topic: pytrec_eval survives
        run = {first: run.pop(first), **run}
        theirs = pytrec_eval.RelevanceEvaluator(qrels, every, level, judged_only).evaluate(run)
        assert any(math.isnan(v) for q in empty for v in theirs[q].values()), "seed %d" % seed
        assert_same_output(theirs, ours.RelevanceEvaluator(qrels, every, level, judged_only).evaluate(run),
                           "seed %d" % seed)
