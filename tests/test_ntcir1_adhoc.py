"""Task ntcir1-adhoc: every rule of the seed (004) and of the spec's validation section, the ranking rule,
the interpolation rules, and agreement with trec_eval (through pytrec-eval-terrier) on random runs."""
import random

import pytest

from conftest import run_cli
from runscore.pipeline import check_file, load_reference, score_run
from runscore.tasks import get_task

TASK = get_task("ntcir1-adhoc")


def write(tmp_path, name, lines):
    path = tmp_path / name
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


def qrels_folder(tmp_path, rel1, rel2, options=None, topics=None):
    """A reference folder with rel1/rel2 files in NTCIR's layout (grade letter in the dummy column)."""
    folder = tmp_path / "ref"
    folder.mkdir()
    (folder / "rel1").write_text("".join("%s\t%s\t%s\t%d\n" % (t, g, d, g == "A") for t, g, d in rel1))
    (folder / "rel2").write_text("".join("%s\t%s\t%s\t%d\n" % (t, g, d, g in "AB") for t, g, d in rel2))
    lines = ["task: ntcir1-adhoc", "qrels: {rel1: rel1, rel2: rel2}"]
    if topics:
        lines.append("topics: [%s]" % ", ".join("'%s'" % t for t in topics))
    if options:
        lines.append("options:")
        lines += ["  %s: %s" % kv for kv in options.items()]
    (folder / "task.yaml").write_text("\n".join(lines) + "\n")
    return str(folder)


SEED_SAMPLE = [  # the seed's own example, TAB-separated
    "0001\t0\tgakkai-0000000001\t1\t9999\tntc1",
    "0001\t0\tgakkai-0000000002\t2\t9998\tntc1",
    "0001\t0\tgakkai-0000000006\t3\t9997\tntc1",
    "0001\t0\tgakkai-0000000004\t4\t9997\tntc1",
    "0001\t0\tgakkai-0000000005\t5\t9995\tntc1",
    "0002\t0\tgakkai-0000000001\t1\t9999\tntc1",
    "0002\t0\tgakkai-0000000002\t2\t9998\tntc1",
    "0002\t0\tgakkai-0000000006\t2\t9998\tntc1",
]

SEED_QRELS = [("0001", "A", "gakkai-0000000004"), ("0001", "B", "gakkai-0000000006"),
              ("0001", "C", "gakkai-0000000001"), ("0001", "A", "gakkai-0000000099"),
              ("0002", "B", "gakkai-0000000002"), ("0002", "A", "gakkai-0000000006")]


def check(tmp_path, lines, reference=None, options=None, name="ntc1"):
    path = write(tmp_path, name, lines)
    opts = reference.options if reference else TASK.resolve_options(options or {})
    return check_file(TASK, path, name, reference, opts)


def messages(checked):
    return [str(d) for d in checked.diags.sorted_items()]


def test_seed_sample_scores_as_hand_derived(tmp_path):
    ref = load_reference(TASK, qrels_folder(tmp_path, SEED_QRELS, SEED_QRELS))
    checked = check(tmp_path, SEED_SAMPLE, ref)
    assert not checked.diags.has_errors, messages(checked)
    scores = score_run(ref, checked.runs[0])
    # Topic 0001, rank order: ...01 (9999), ...02 (9998), then the tie at 9997 by Document-ID descending:
    # ...06 before ...04, then ...05. rel1 (A only): ...04 at rank 4 of R = 2 relevant -> AP = (1/4)/2.
    # Topic 0002: tie at 9998: ...06 before ...02; rel1: ...06 at rank 2, R = 1 -> AP = 1/2.
    assert scores.per_topic["0001"]["map_rel1"] == pytest.approx((1 / 4) / 2, abs=1e-15)
    assert scores.per_topic["0002"]["map_rel1"] == pytest.approx(1 / 2, abs=1e-15)
    assert scores.measures["map_rel1"] == pytest.approx(((1 / 4) / 2 + 1 / 2) / 2, abs=1e-15)
    # rel2 (A+B): topic 0001 relevant ...06 (rank 3), ...04 (rank 4) of R = 3 -> (1/3 + 2/4) / 3.
    # topic 0002: ...06 (rank 2), ...02 (rank 3) of R = 2 -> (1/2 + 2/3) / 2.
    assert scores.per_topic["0001"]["map_rel2"] == pytest.approx((1 / 3 + 2 / 4) / 3, abs=1e-15)
    assert scores.per_topic["0002"]["map_rel2"] == pytest.approx((1 / 2 + 2 / 3) / 2, abs=1e-15)
    assert scores.measures["num_ret_rel1"] == 8 and scores.measures["num_rel_rel2"] == 5


def test_tie_order_desc_and_asc(tmp_path):
    """Spec A.2 worked example: sims {B: 0.5, A: 0.5, C: 0.9} -> C, B, A (desc) and C, A, B (asc)."""
    qrels = [("0001", "A", "A"), ("0001", "C", "B"), ("0001", "C", "C")]
    lines = ["0001\t0\tB\t1\t0.5\tr1", "0001\t0\tA\t2\t0.5\tr1", "0001\t0\tC\t3\t0.9\tr1"]
    for order, rank_of_a in (("desc", 3), ("asc", 2)):
        sub = tmp_path / order
        sub.mkdir()
        ref = load_reference(TASK, qrels_folder(sub, qrels, qrels, {"tie_order": order}))
        scores = score_run(ref, check(sub, lines, ref, name="r1").runs[0])
        assert scores.per_topic["0001"]["map_rel1"] == pytest.approx(1 / rank_of_a)
        assert scores.per_topic["0001"]["P_5_rel1"] == pytest.approx(1 / 5)


def test_similarity_precision_double_by_default_single_as_trec_eval_9(tmp_path):
    """0.1000000001 and 0.1 differ in double precision and are equal as C floats (float32(0.1000000001) ==
    float32(0.1)). Qrels: B relevant (R = 1). double: A (0.1000000001) then B -> AP = 1/2. single: a tie, broken
    by Document-ID descending -> B then A -> AP = 1. `runscore trec_eval` (9.0.8 rules, float scores) gives 1."""
    import numpy as np

    assert np.float32(0.1000000001) == np.float32(0.1) and 0.1000000001 != 0.1
    qrels = [("0001", "A", "B")]
    lines = ["0001\t0\tA\t1\t0.1000000001\tr1", "0001\t0\tB\t2\t0.1\tr1"]
    for precision, expected in (("double", 1 / 2), ("single", 1.0)):
        sub = tmp_path / precision
        sub.mkdir()
        ref = load_reference(TASK, qrels_folder(sub, qrels, qrels, {"similarity_precision": precision}))
        scores = score_run(ref, check(sub, lines, ref, name="r1").runs[0])
        assert scores.per_topic["0001"]["map_rel1"] == expected, precision
    trec_run = write(tmp_path, "trec_run", ["0001 Q0 A 1 0.1000000001 r1", "0001 Q0 B 2 0.1 r1"])
    trec_qrels = write(tmp_path, "trec_qrels", ["0001 0 B 1"])
    code, out, err = run_cli("trec_eval", "-m", "map", trec_qrels, trec_run)
    assert code == 0 and out.split() == ["map", "all", "1.0000"], (out, err)


@pytest.mark.parametrize("rule, expected", [
    # Spec A.6: R = 3, relevant at ranks 1, 4, 10 -> precisions 1.0, 0.5, 0.3 at those ranks.
    ("ceil", [1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.3, 0.3, 0.3, 0.3]),
    ("v9", [1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.5, 0.3, 0.3, 0.3]),
    ("v10", [1.0, 1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.5, 0.3, 0.3]),
])
def test_interpolation_rules_r3_example(tmp_path, rule, expected):
    qrels = [("0001", "A", "R1"), ("0001", "A", "R4"), ("0001", "A", "R10")]
    docs = {1: "R1", 4: "R4", 10: "R10"}
    lines = ["0001\t0\t%s\t%d\t%d\tr1" % (docs.get(r, "N%02d" % r), r, 100 - r) for r in range(1, 11)]
    ref = load_reference(TASK, qrels_folder(tmp_path, qrels, qrels, {"interp_cutoff": rule}))
    values = score_run(ref, check(tmp_path, lines, ref, name="r1").runs[0]).per_topic["0001"]
    got = [values["iprec_at_recall_%.2f_rel1" % (i / 10)] for i in range(11)]
    assert got == pytest.approx(expected, abs=1e-12)
    assert values["11pt_avg_rel1"] == pytest.approx(sum(expected) / 11, abs=1e-12)


def test_missing_topic_scores_zero_and_counts(tmp_path):
    qrels = SEED_QRELS + [("0003", "A", "x")]
    ref = load_reference(TASK, qrels_folder(tmp_path, qrels, qrels))
    scores = score_run(ref, check(tmp_path, SEED_SAMPLE, ref).runs[0])
    assert scores.per_topic["0003"]["map_rel1"] == 0.0 and scores.per_topic["0003"]["num_ret_rel1"] == 0
    assert scores.measures["num_q_rel1"] == 3
    assert scores.measures["map_rel1"] == pytest.approx(((1 / 4) / 2 + 1 / 2 + 0.0) / 3)
    # said once, as r2c2-pr and temporalia-tir say it: a participant who left a topic out by mistake learns it
    assert [n for n in scores.notes if "absent" in n] == ["1 official topic(s) absent from the run score 0: 0003"]
    whole = score_run(ref, check(tmp_path, SEED_SAMPLE + ["0003\t0\tx\t1\t1\tntc1"], ref, name="r2").runs[0])
    assert not [n for n in whole.notes if "absent" in n]


def test_topic_without_relevant_counted_or_excluded(tmp_path):
    qrels = SEED_QRELS + [("0003", "B", "gakkai-0000000001")]   # 0003 has no A: no rigid relevant document
    lines = SEED_SAMPLE + ["0003\t0\tgakkai-0000000001\t1\t1\tntc1"]
    ref = load_reference(TASK, qrels_folder(tmp_path, qrels, qrels))
    counted = score_run(ref, check(tmp_path, lines, ref).runs[0])
    assert counted.measures["num_q_rel1"] == 3 and any("0003" in n for n in counted.notes)
    sub = tmp_path / "x"
    sub.mkdir()
    ref2 = load_reference(TASK, qrels_folder(sub, qrels, qrels, {"exclude_topics_without_relevant": "true"}))
    excluded = score_run(ref2, check(sub, lines, ref2).runs[0])
    assert excluded.measures["num_q_rel1"] == 2 and excluded.measures["num_q_rel2"] == 3
    assert excluded.measures["map_rel1"] == pytest.approx(counted.measures["map_rel1"] * 3 / 2)


def test_graded_qrels_single_file(tmp_path):
    graded = tmp_path / "graded.qrels"
    graded.write_text("".join("%s 0 %s %s\n" % (t, d, g) for t, g, d in SEED_QRELS))
    ref = load_reference(TASK, str(graded))
    two_files = load_reference(TASK, qrels_folder(tmp_path, SEED_QRELS, SEED_QRELS))
    run = check(tmp_path, SEED_SAMPLE, ref).runs[0]
    assert score_run(ref, run).measures == score_run(two_files, run).measures


def test_max_docs_truncates_after_sorting(tmp_path):
    qrels = [("0001", "A", "D001")]
    # D001 has the lowest similarity but comes first in the file: it falls beyond max_docs = 3.
    lines = ["0001\t0\tD%03d\t%d\t%d\tr1" % (i, i, i) for i in range(1, 6)]
    ref = load_reference(TASK, qrels_folder(tmp_path, qrels, qrels, {"max_docs": 3}))
    checked = check(tmp_path, lines, ref, name="r1")
    assert any("only the first 3" in m for m in messages(checked))
    assert score_run(ref, checked.runs[0]).per_topic["0001"]["num_rel_ret_rel1"] == 0


# ------------------------------------------------------------------------------- bad input ---

GOOD = "0001\t0\tgakkai-1\t1\t0.9\tntc1"
ERRORS = [
    # (lines, line number, message fragment) -- each breaks one rule of the seed or the spec's section 4
    (["0001\t0\tgakkai-1\t1\t0.9"], 1, "expected 6 TAB-separated fields"),
    ([GOOD, "0001\t0\tgakkai-2\t2\tabc\tntc1"], 2, "Similarity-value: 'abc' is not a decimal number"),
    ([GOOD, "0001\t0\tgakkai-2\t2\t\tntc1"], 2, "Similarity-value: '' is not a decimal number"),
    ([GOOD, "0001\t0\tgakkai-2\t2\tnan\tntc1"], 2, "Similarity-value: 'nan' is not a decimal number"),
    ([GOOD, "0001\t0\tgakkai-2\t2\t1e999\tntc1"], 2, "Similarity-value '1e999' is not a finite number"),
    ([GOOD, "0001\t0\tgakkai-1\t2\t0.8\tntc1"], 2, "duplicate Document-ID gakkai-1 in topic 0001 (first seen at "
                                                     "line 1)"),
    ([GOOD, "0001\t0\tgakkai-2\t2\t0.8\tntc2"], 2, "Run-ID 'ntc2' differs from 'ntc1'"),
    ([GOOD, "0001\t0\t\t2\t0.8\tntc1"], 2, "Document-ID: '' is not a Document-ID"),
    (["\t0\tgakkai-1\t1\t0.9\tntc1"], 1, "Topic-ID: '' is not a Topic-ID"),
    ([], 0, "the file holds no result lines"),
]


@pytest.mark.parametrize("lines, line_no, fragment", ERRORS)
def test_errors_name_the_line(tmp_path, lines, line_no, fragment):
    checked = check(tmp_path, lines)
    assert checked.diags.has_errors and checked.runs == []
    first = checked.diags.first_error()
    assert first.line == line_no and fragment in first.message, messages(checked)


WARNINGS = [
    (["0001 0 gakkai-1 1 0.9 ntc1"], 1, "line has no TAB"),
    (["0002\t0\tgakkai-1\t1\t0.9\tntc1", "0001\t0\tgakkai-1\t1\t0.9\tntc1"], 2, "not sorted by Topic-ID"),
    (["0001\t0\tgakkai-1\tfirst\t0.9\tntc1"], 1, "Rank 'first' is not an integer"),
    (["0001\t0\tgakkai-1\t1\t0.5\tntc1", "0001\t0\tgakkai-2\t2\t0.9\tntc1"], 2, "Rank and Similarity disagree"),
    (["1\t0\tgakkai-1\t1\t0.9\tntc1"], 1, "not zero-padded to 4 digits; read as '0001'"),
    (["0001\t0\tgakkai-1\t1\t0.9\tntc1\textra"], 1, "fields after Run-ID are ignored"),
    (["0001\t0\tgakkai-1\t1\t0.9\tntc1", "0001\tQ0\tgakkai-2\t2\t0.8\tntc1"], 0, "Dummy field is not constant"),
    ([GOOD, "", GOOD.replace("gakkai-1", "gakkai-2")], 2, "blank line ignored"),
]


@pytest.mark.parametrize("lines, line_no, fragment", WARNINGS)
def test_warnings_do_not_reject(tmp_path, lines, line_no, fragment):
    checked = check(tmp_path, lines)
    assert not checked.diags.has_errors, messages(checked)
    assert any(d.line == line_no and fragment in d.message for d in checked.diags.items), messages(checked)


def test_warnings_that_need_the_reference(tmp_path):
    ref = load_reference(TASK, qrels_folder(tmp_path, SEED_QRELS, SEED_QRELS))
    checked = check(tmp_path, SEED_SAMPLE + ["0999\t0\tgakkai-1\t1\t0.9\tntc1"], ref)
    assert any("not official topics and are ignored: 0999" in m for m in messages(checked))
    checked = check(tmp_path, ["0999\t0\tgakkai-1\t1\t0.9\tntc1"], ref)
    assert checked.diags.first_error().message.startswith("no line answers any official topic")


def test_duplicates_keep_first_option(tmp_path):
    lines = [GOOD, "0001\t0\tgakkai-1\t2\t0.8\tntc1"]
    checked = check(tmp_path, lines, options={"duplicates": "keep_first"})
    assert not checked.diags.has_errors
    assert checked.runs[0].data.topics["0001"].scores == [0.9]


def test_not_utf8_is_an_error_with_line(tmp_path):
    path = tmp_path / "ntc1"
    path.write_bytes(GOOD.encode() + b"\n0001\t0\tgakk\xe9\t2\t0.5\tntc1\n")
    checked = check_file(TASK, str(path), "ntc1", None, TASK.resolve_options({}))
    first = checked.diags.first_error()
    assert first.line == 2 and "not valid UTF-8" in first.message


def test_bom_and_crlf_score_like_the_clean_file(tmp_path):
    ref = load_reference(TASK, qrels_folder(tmp_path, SEED_QRELS, SEED_QRELS))
    clean = score_run(ref, check(tmp_path, SEED_SAMPLE, ref).runs[0]).measures
    path = tmp_path / "ntc1"
    path.write_bytes(b"\xef\xbb\xbf" + "".join(l + "\r\n" for l in SEED_SAMPLE).encode())
    checked = check_file(TASK, str(path), "ntc1", ref, ref.options)
    assert score_run(ref, checked.runs[0]).measures == clean


def test_bad_reference_is_exit_2(tmp_path):
    folder = tmp_path / "ref"
    folder.mkdir()
    (folder / "task.yaml").write_text("task: ntcir1-adhoc\ngraded_qrels: g\n")
    (folder / "g").write_text("0001 0 d1 A\n0001 0 d2 X\n")
    run = write(tmp_path, "ntc1", [GOOD])
    code, out, err = run_cli("score", "--task", "ntcir1-adhoc", "--ref", folder, run)
    assert code == 2 and "g:2: error: grade 'X' is not an integer or one of S, A, B, C" in err
    (folder / "task.yaml").write_text("task: ntcir1-adhoc\ngraded_qrels: g\noptions: {tie_ordr: asc}\n")
    code, out, err = run_cli("score", "--task", "ntcir1-adhoc", "--ref", folder, run)
    assert code == 2 and "unknown option 'tie_ordr'" in err and "did you mean tie_order" in err


# ------------------------------------------------------------------------------- the peer ---

def test_agrees_with_trec_eval_via_pytrec_eval(tmp_path):
    """On random runs with tied scores, the task's values (interp_cutoff v9) equal trec_eval 9's."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = random.Random(7)
    for case in range(20):
        topics = ["%04d" % t for t in range(1, rng.randint(2, 6))]
        qrels, run = {}, {}
        qrel_rows, run_lines = [], []
        for t in topics:
            docs = ["d%03d" % i for i in range(rng.randint(5, 40))]
            judged = rng.sample(docs, rng.randint(1, len(docs)))
            qrels[t] = {d: rng.choice([0, 0, 1, 2]) for d in judged}
            qrel_rows += ["%s 0 %s %d" % (t, d, g) for d, g in qrels[t].items()]
            if rng.random() < 0.2:
                continue    # a topic missing from the run
            retrieved = rng.sample(docs, rng.randint(1, len(docs)))
            run[t] = {d: float(rng.randint(0, 5)) / 4 for d in retrieved}   # many ties
            run_lines += ["%s\t0\t%s\t%d\t%r\trun" % (t, d, i + 1, s) for i, (d, s) in enumerate(run[t].items())]
        if not run:
            continue
        sub = tmp_path / str(case)
        sub.mkdir()
        (sub / "graded").write_text("\n".join(qrel_rows) + "\n")
        folder = sub / "ref"
        folder.mkdir()
        (folder / "task.yaml").write_text("task: ntcir1-adhoc\ngraded_qrels: ../graded\n"
                                          "options: {interp_cutoff: v9}\n")
        ref = load_reference(TASK, str(folder))
        checked = check(sub, run_lines, ref, name="run")
        ours = score_run(ref, checked.runs[0]).per_topic
        for level, grade in (("rel1", 2), ("rel2", 1)):
            evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P", "Rprec", "recip_rank", "bpref",
                                                               "iprec_at_recall", "num_rel_ret"},
                                                       relevance_level=grade)
            theirs = evaluator.evaluate(run)
            for t, values in theirs.items():
                for name, value in values.items():
                    assert ours[t]["%s_%s" % (name, level)] == pytest.approx(value, abs=1e-9), (case, t, name)


def test_cli_validate_and_score(tmp_path):
    ref = qrels_folder(tmp_path, SEED_QRELS, SEED_QRELS)
    run = write(tmp_path, "ntc1", SEED_SAMPLE)
    code, out, err = run_cli("validate", "--task", "ntcir1-adhoc", "--ref", ref, run)
    assert code == 0 and "valid (0 error(s)" in out
    code, out, err = run_cli("score", "--task", "ntcir1-adhoc", "--ref", ref, run, "--json")
    assert code == 0
    import json
    assert json.loads(out)["ntc1"]["map_rel1"] == pytest.approx(((1 / 4) / 2 + 1 / 2) / 2)
    bad = write(tmp_path, "ntc2", ["0001\t0\tx\t1\tabc\tntc2"])
    code, out, err = run_cli("score", "--task", "ntcir1-adhoc", "--ref", ref, bad)
    assert code == 1 and "ntc2:1: error: Similarity-value" in err and "Traceback" not in err


@pytest.mark.parametrize("rank", ["1", "007", "9" * 18, "9" * 19, "+3", "-3", "", "1.0", "\u0663", "\u00b3",
                                  "\uff11", "1 "])
def test_a_rank_is_read_as_the_one_integer_reader_reads_it(tmp_path, rank):
    """The reader reads a plain ASCII Rank without the regex (numeric.int_or_none for any other): the same
    warnings either way (a Rank that is not an integer; a Rank growing with the Similarity)."""
    from runscore.numeric import int_or_none

    lines = ["0001\t0\tD1\t0\t0.5\tntc1", "0001\t0\tD2\t%s\t0.9\tntc1" % rank]
    found = messages(check(tmp_path, lines))
    value = int_or_none(rank.strip(), signed=True)
    assert any("is not an integer" in m for m in found) == (value is None)
    assert any("Rank and Similarity disagree" in m for m in found) == (value is not None and value > 0)
