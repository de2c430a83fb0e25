"""Task temporalia-tir: every rule of the seed as a bad-input row, ranking by rank (ties in file order),
P@20 / MSnDCG@20 / nDCG@20 per subtopic by derivation and against trec_eval 9 (pytrec-eval-terrier), means
overall and per temporal class, the averaging-set option, both qrels formats."""
import math
import os
import random

import pytest

from conftest import ROOT, run_cli
from runscore.errors import ConfigError
from runscore.pipeline import check_file, check_run_limit, load_reference, score_run
from runscore.tasks.temporalia.tir import TASK, normalise_subtopic

HEAD = "id\trank\tdoc_id\tgroup_id\trun_id\n"


def _lines(subtopic, docs, run="g_run1", group="g", start=1):
    return "".join("%s\t%d\t%s\t%s\t%s\n" % (subtopic, r, d, group, run) for r, d in enumerate(docs, start))


# (content, expected diagnostics (exact))
BAD_INPUTS = [
    ("001p\t1\n", ["tir_g:1: error: expected 5 TAB-separated fields 'id rank doc_id group_id run_id', found 2"]),
    ("001p\t1\tD1\tg\tr\textra\n", ["tir_g:1: error: expected 5 TAB-separated fields 'id rank doc_id group_id "
                                    "run_id', found 6"]),
    ("001x\t1\tD1\tg\tr\n", ["tir_g:1: error: id: '001x' is not a subtopic id: query id + p, r, f or a (e.g. "
                             "001p)"]),
    ("001\t1\tD1\tg\tr\n", ["tir_g:1: error: id: '001' is not a subtopic id: query id + p, r, f or a (e.g. "
                            "001p)"]),
    ("q01p\t1\tD1\tg\tr\n", ["tir_g:1: error: id: 'q01p' is not a subtopic id: query id + p, r, f or a (e.g. "
                             "001p)"]),
    ("001p\tone\tD1\tg\tr\n", ["tir_g:1: error: rank: 'one' is not an integer rank (e.g. 1)"]),
    ("001p\t1.5\tD1\tg\tr\n", ["tir_g:1: error: rank: '1.5' is not an integer rank (e.g. 1)"]),
    ("001p\t1\tD 1\tg\tr\n", ["tir_g:1: error: doc_id: 'D 1' is not a document id without spaces (e.g. "
                              "lk-20130223040102_592)"]),
    ("001p\t1\tD1\tg\tr\n001p\t2\tD1\tg\tr\n", ["tir_g:2: error: duplicate doc_id D1 for subtopic 001p in run r "
                                                "(first seen at line 1)"]),
    ("001p\t1\tD1\tg\tr\n1P\t2\tD1\tg\tr\n", ["tir_g:2: error: duplicate doc_id D1 for subtopic 001p in run r "
                                              "(first seen at line 1)"]),
    (_lines("001p", ["D%d" % i for i in range(102)], run="r"),
     ["tir_g:101: error: subtopic 001p of run r has 102 documents; at most 100 may be returned (the first extra "
      "one is on this line)"]),
    # 4 runs of one group: no error of the file (the per-group cap is the platform's, pipeline.check_run_limit)
    ("".join(_lines("001p", ["D1"], run="r%d" % i) for i in range(1, 5)), []),
    ("", ["tir_g: error: the file holds no result lines"]),
    (HEAD, ["tir_g: error: the file holds no result lines"]),
    # accepted, with a warning
    ("001p 1 D1 g r\n", ["tir_g:1: warning: line has no TAB; fields split on spaces (the format asks for TABs)"]),
    ("001p\t1\tD1\n", ["tir_g:1: warning: group_id and run_id missing; the lines without them form one run named "
                       "'tir_g'"]),
    ("001p\t1\tD1\tg\tr\n" + HEAD, ["tir_g:2: warning: header line 'id rank doc_id group_id run_id' in the middle "
                                    "of the file skipped"]),
    ("001p\t1\tD1\tg\tr\n001p\t1\tD2\tg\tr\n", ["tir_g:1: warning: run r subtopic 001p: equal ranks; those "
                                                "documents keep their file order"]),
    ("001p\t0\tD1\tg\tr\n", ["tir_g:1: warning: rank 0 is below 1 (documents are ranked by rank ascending)"]),
    ("001p\t-%s\tD1\tg\tr\n" % ("9" * 5000), ["tir_g:1: warning: rank -1000000000 is below 1 (documents are "
                                                "ranked by rank ascending)"]),
    ("001p\t1\tD1\tg\tr\n\n", ["tir_g:2: warning: blank line ignored"]),
    ("001p\t1\tD1\tg\tr\n001p\t1\tD1\th\ts\n", ["tir_g: warning: the file holds runs of 2 groups (g, h); the format "
                                                "asks for one file per group"]),
    ("001p\t1\tD1\troi_y\tr\n", ["tir_g: warning: the file should be named tir_<group_id> (tir_roi_y), as the task's "
                                   "instructions ask"]),
    ("001p\t1\tD1\tg\tr\n001p\t2\tD2\th\tr\n", ["tir_g:2: warning: run_id 'r' appears with group_id 'g' and 'h'"]),
]


def _write(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content.encode("utf-8"))
    return str(path)


@pytest.mark.parametrize("content, expected", BAD_INPUTS)
def test_bad_inputs(tmp_path, content, expected):
    checked = check_file(TASK, _write(tmp_path, "tir_g", content), "tir_g", None, TASK.resolve_options({}))
    assert checked.diags.lines() == expected
    valid = not any(": error: " in e for e in expected)
    assert bool(checked.runs) == valid


def test_more_than_three_runs_over_several_files_is_refused(tmp_path):
    options = TASK.resolve_options({})
    first = check_file(TASK, _write(tmp_path, "tir_a", _lines("001p", ["D1"], run="r1") + _lines("001p", ["D1"],
                                                                                                   run="r2")),
                       "tir_a", None, options)
    second = check_file(TASK, _write(tmp_path, "tir_b", _lines("001p", ["D1"], run="r3") + _lines("001p", ["D1"],
                                                                                                    run="r4")),
                        "tir_b", None, options)
    assert [str(d) for d in check_run_limit(TASK, [first, second])] == [
        "tir_b: error: 4 runs of team %s for task temporalia-tir in the submission (r1, r2, r3, r4); at most 3 per "
        "team are allowed" % first.runs[0].data.group_id]
    assert check_run_limit(TASK, [first, second], per_team=False) == []


@pytest.mark.parametrize("raw, subtopic", [("001p", "001p"), ("1P", "001p"), ("0012r", "012r"), ("7a", "007a"),
                                           ("001", None), ("001pp", None), ("p001", None)])
def test_subtopic_normalisation(raw, subtopic):
    assert normalise_subtopic(raw) == subtopic


# ------------------------------------------------------------------------------------------ scoring ---
def _reference(tmp_path, qrels_text, options=None):
    ref = tmp_path / "ref"
    ref.mkdir()
    (ref / "qrels").write_text(qrels_text, encoding="utf-8")
    yaml = "task: temporalia-tir\nqrels: qrels\n"
    if options:
        yaml += "options:\n" + "".join("  %s: %s\n" % kv for kv in options.items())
    (ref / "task.yaml").write_text(yaml, encoding="utf-8")
    return load_reference(TASK, str(ref))


def _score_all(tmp_path, reference, text):
    checked = check_file(TASK, _write(tmp_path, "tir_g", text), "tir_g", reference, reference.options)
    assert not checked.diags.has_errors, checked.diags.lines()
    return {run.name: score_run(reference, run) for run in checked.runs}


QRELS = ("001p A L2\n001p B L1\n001p C L0\n"
         "001r D L1\n"
         "001f E L0\n"                          # no relevant document
         "002a F L2\n002a G L2\n")


def test_hand_derived_values_and_class_means(tmp_path):
    reference = _reference(tmp_path, QRELS)
    # 001p ranked by rank: B (rank 1), X, A (rank 3), C; ties none. 001r absent. 002a: G at 2 (F missing).
    text = ("001p\t3\tA\tg\tr\n001p\t1\tB\tg\tr\n001p\t2\tX\tg\tr\n001p\t4\tC\tg\tr\n"
            "002a\t1\tY\tg\tr\n002a\t2\tG\tg\tr\n")
    scores = _score_all(tmp_path, reference, text)["r"]
    # 001p: gains 1:2, levels 1 0 2 0; ideal 2 1; P@20 = 2/20
    ms_001p = (1 / math.log2(2) + 2 / math.log2(4)) / (2 / math.log2(2) + 1 / math.log2(3))
    orig_001p = (1 / 1 + 2 / math.log2(3)) / (2 / 1 + 1 / 1)        # d(r) = 1 for r <= 2, log2(r) after
    # 002a: levels 0 2; ideal 2 2
    ms_002a = (2 / math.log2(3)) / (2 / math.log2(2) + 2 / math.log2(3))
    orig_002a = (2 / 1) / (2 / 1 + 2 / 1)
    p = scores.per_topic
    assert set(p) == {"001p", "001r", "002a"}            # 001f has no relevant document: not averaged
    assert p["001p"] == pytest.approx({"p20": 2 / 20, "msndcg20": ms_001p, "ndcg20_orig": orig_001p}, abs=1e-12)
    assert p["001r"] == {"p20": 0.0, "msndcg20": 0.0, "ndcg20_orig": 0.0}
    assert p["002a"] == pytest.approx({"p20": 1 / 20, "msndcg20": ms_002a, "ndcg20_orig": orig_002a}, abs=1e-12)
    m = scores.measures
    assert m["p20"] == pytest.approx((2 / 20 + 0 + 1 / 20) / 3, abs=1e-12)
    assert m["msndcg20"] == pytest.approx((ms_001p + 0 + ms_002a) / 3, abs=1e-12)
    assert m["p20_past"] == pytest.approx(2 / 20, abs=1e-12)
    assert m["p20_recency"] == 0.0
    assert m["p20_future"] == 0.0                        # no subtopic of the class in the averaging set
    assert m["msndcg20_atemporal"] == pytest.approx(ms_002a, abs=1e-12)
    assert (m["num_subtopics"], m["num_missing"], m["num_without_relevant"]) == (3.0, 1.0, 1.0)
    assert scores.notes == ["r: means over 3 subtopics (average_over = judged_with_relevant)",
                            "r: 1 subtopic(s) of the qrels have no relevant document, left out of the means: 001f",
                            "r: 1 subtopic(s) absent from the run score 0: 001r"]
    assert scores.tables[0]["rows"] == [["001", 2, "%.4f" % ((2 / 20 + 0) / 2), "%.4f" % (ms_001p / 2),
                                         "%.4f" % (orig_001p / 2)],
                                        ["002", 1, "%.4f" % (1 / 20), "%.4f" % ms_002a, "%.4f" % orig_002a]]


def test_average_over_all_counts_subtopics_without_relevant_as_zero(tmp_path):
    reference = _reference(tmp_path, QRELS, {"average_over": "all"})
    scores = _score_all(tmp_path, reference, "001p\t1\tA\tg\tr\n001f\t1\tE\tg\tr\n")["r"]
    assert scores.per_topic["001f"]["p20"] == 0.0
    assert scores.measures["p20"] == pytest.approx((1 / 20 + 0 + 0 + 0) / 4, abs=1e-12)
    assert scores.measures["p20_future"] == 0.0


def test_equal_ranks_keep_file_order(tmp_path):
    reference = _reference(tmp_path, "001p A L2\n001p B L0\n")
    # A and B share rank 1; B comes first in the file, so A is at rank 2
    scores = _score_all(tmp_path, reference, "001p\t1\tB\tg\tr\n001p\t1\tA\tg\tr\n")["r"]
    assert scores.per_topic["001p"]["msndcg20"] == pytest.approx((2 / math.log2(3)) / (2 / 1), abs=1e-12)


def test_several_runs_in_one_file_are_scored_apart(tmp_path):
    reference = _reference(tmp_path, "001p A L1\n")
    scores = _score_all(tmp_path, reference, "001p\t1\tA\tg\tr1\n001p\t1\tB\tg\tr2\n")
    assert {name: s.measures["p20"] for name, s in scores.items()} == {"r1": 1 / 20, "r2": 0.0}


def test_trec_format_qrels_and_id_padding(tmp_path):
    reference = _reference(tmp_path, "1p 0 A 2\n1p 0 B 1\n")
    scores = _score_all(tmp_path, reference, "001P\t1\tB\tg\tr\n")["r"]
    assert scores.measures["msndcg20"] == pytest.approx((1 / 1) / (2 / 1 + 1 / math.log2(3)), abs=1e-12)


def test_unknown_subtopics_warn_and_no_known_subtopic_is_an_error(tmp_path):
    reference = _reference(tmp_path, "001p A L1\n")
    checked = check_file(TASK, _write(tmp_path, "tir_g", "009p\t1\tA\tg\tr\n"), "tir_g", reference,
                         reference.options)
    assert checked.diags.lines() == [
        "tir_g: error: run r has no line for any of the 1 subtopics of the qrels",
        "tir_g:1: warning: run r: 1 subtopic(s) are not in the qrels and are ignored: 009p"]


@pytest.mark.parametrize("qrels, options, message", [
    ("001p A L3\n", None, "relevance level L3 is above the highest declared level L2"),
    ("001p 0 A 3\n", None, "grade 3 is outside the task.s scale 0..2"),
    ("001p A X\n", {"qrels_format": "ntcir"}, "relevance level 'X' is not of the form Lk"),
    ("001x A L1\n", None, "subtopic id '001x' is not a query id followed by p, r, f or a"),
    ("001p A L1\n1p B L1\n", None, "subtopic 001p appears under two spellings"),
    ("001p A L1\n001p A L2\n", None, "duplicate judgement of document A for topic 001p"),
    ("001p A L1\n", {"gains": '"2:1"'}, "option gains: gains must not decrease"),
    ("001p A L1\n", {"average_over": "every"}, "option average_over = 'every' is not one of"),
])
def test_bad_reference_is_config_error(tmp_path, qrels, options, message):
    with pytest.raises(ConfigError, match=message):
        _reference(tmp_path, qrels, options)


@pytest.mark.parametrize("seed", [5, 6])
def test_p20_and_msndcg20_equal_trec_eval(tmp_path, seed):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = random.Random(seed)
    qrels, run, lines = {}, {}, []
    for t in range(1, 6):
        for s in "praf":
            sub = "%03d%s" % (t, s)
            docs = ["d%d" % i for i in range(rng.randint(10, 130))]
            qrels[sub] = {d: rng.choice([0, 0, 1, 2]) for d in rng.sample(docs, rng.randint(1, len(docs)))}
            qrels[sub][docs[0]] = 2                       # at least one relevant document
            ranked = rng.sample(docs, min(len(docs), rng.randint(1, 100)))
            run[sub] = {d: float(len(ranked) - r) for r, d in enumerate(ranked)}   # distinct, rank order
            lines += ["%s\t%d\t%s\tg\tr\n" % (sub, r, d) for r, d in enumerate(ranked, 1)]
    qrels_text = "".join("%s %s L%d\n" % (sub, d, g) for sub, docs in qrels.items() for d, g in docs.items())
    scores = _score_all(tmp_path, _reference(tmp_path, qrels_text), "".join(lines))["r"]
    peer = pytrec_eval.RelevanceEvaluator(qrels, {"P.20", "ndcg_cut.20"}).evaluate(run)
    for sub in qrels:
        assert scores.per_topic[sub]["p20"] == pytest.approx(peer[sub]["P_20"], abs=1e-12)
        assert scores.per_topic[sub]["msndcg20"] == pytest.approx(peer[sub]["ndcg_cut_20"], abs=1e-9)


def test_cli_scores_shipped_sample():
    code, out, err = run_cli("score", "--task", "temporalia-tir", "--ref",
                             os.path.join(ROOT, "reference_data", "temporalia-tir"),
                             os.path.join(ROOT, "starting_kit", "sample_submission", "temporalia-tir", "tir_sample"),
                             "--json")
    assert code == 0, err
    assert '"sample_run1"' in out and '"sample_run2"' in out
