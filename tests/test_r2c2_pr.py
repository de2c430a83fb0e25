"""Task r2c2-pr and the shared R2C2 PR format: every rule of the seed as a bad-input row, the qID spellings,
PR qrels keyed by passage, MSnDCG@20 over the official topic list, and the equal-gain values of the spec."""
import math
import os

import pytest

from conftest import ROOT, run_cli
from runscore.errors import ConfigError, Diagnostics
from runscore.pipeline import check_file, load_reference, score_run
from runscore.tasks.r2c2.pr_format import (key_text, normalise_qid, normalise_run_name, parse_pr_run, parse_run_name,
                                           passage_key, run_name_problem)
from runscore.tasks.r2c2.pr import TASK

GOOD = "0001;1;docA;first passage\n0001;2;docB;second; with a semicolon\n"

# (file name, content, expected diagnostics (exact), valid?)
BAD_INPUTS = [
    # the file-name rule [TeamName]-{PG|PO}-[RunNumber], RunNumber in 1..4
    ("TEAM-PX-1", GOOD, ["TEAM-PX-1: error: run name 'TEAM-PX-1' does not follow [TeamName]-{PG|PO}-[RunNumber] "
                         "(e.g. WASEDA-PO-3; RunNumber 1-4)"]),
    ("TEAM-PO-5", GOOD, ["TEAM-PO-5: error: run name 'TEAM-PO-5': the RunNumber must be an integer in the [1-4] "
                         "range"]),
    ("TEAM-PO-0.txt", GOOD, ["TEAM-PO-0.txt: error: run name 'TEAM-PO-0': the RunNumber must be an integer in "
                             "the [1-4] range"]),
    ("TEAM-po-1", GOOD, ["TEAM-po-1: error: run name 'TEAM-po-1': write the run type in capitals (TEAM-PO-1)"]),
    ("TEAM-AC-1", GOOD, ["TEAM-AC-1: error: run name 'TEAM-AC-1' is an AC run name; a PR run is named "
                         "[TeamName]-{PG|PO}-[RunNumber]"]),
    ("PO-1", GOOD, ["PO-1: error: run name 'PO-1' does not follow [TeamName]-{PG|PO}-[RunNumber] (e.g. "
                    "WASEDA-PO-3; RunNumber 1-4)"]),
    # fields and their values
    ("T-PO-1", "0001;1;docA\n", ["T-PO-1:1: error: expected 4 ';'-separated fields "
                                 "'qID;PassageRank;docID;PassageText', found 3"]),
    ("T-PO-1", "0001\t1\tdocA\ttext\n", ["T-PO-1:1: error: expected 4 ';'-separated fields "
                                         "'qID;PassageRank;docID;PassageText', found 1"]),
    ("T-PO-1", "Q1;1;docA;t\n", ["T-PO-1:1: error: qID: 'Q1' is not a question id (e.g. 0001, D001 or D0001)"]),
    ("T-PO-1", "00001;1;docA;t\n", ["T-PO-1:1: error: qID: '00001' is not a question id (e.g. 0001, D001 or "
                                    "D0001)"]),
    ("T-PO-1", "0001;one;docA;t\n", ["T-PO-1:1: error: PassageRank: 'one' is not an integer (the PassageRank, "
                                     "1-20)"]),
    ("T-PO-1", "0001;1.0;docA;t\n", ["T-PO-1:1: error: PassageRank: '1.0' is not an integer (the PassageRank, "
                                     "1-20)"]),
    ("T-PO-1", "0001;0;docA;t\n", ["T-PO-1:1: error: PassageRank 0 is outside the range [1-20]"]),
    ("T-PO-1", "0001;21;docA;t\n", ["T-PO-1:1: error: PassageRank 21 is outside the range [1-20]"]),
    ("T-PO-1", "0001;-3;docA;t\n", ["T-PO-1:1: error: PassageRank -3 is outside the range [1-20]"]),
    ("T-PO-1", "0001;0020;docA;t\n", ["T-PO-1:1: warning: question 0001: PassageRank 1, 2, 3, 4, 5 ... missing; "
                                     "passages are ranked by PassageRank"]),     # leading zeros: rank 20
    ("T-PO-1", "0001;%s;docA;t\n" % ("9" * 5000),
     ["T-PO-1:1: error: PassageRank %s... (5000 characters) is outside the range [1-20]" % ("9" * 40)]),
    ("T-PO-1", "0001;1;;t\n", ["T-PO-1:1: error: docID: '' is not a non-empty docID (the document the passage "
                               "was extracted from)"]),
    # within a question
    ("T-PO-1", "0001;1;docA;t\n0001;1;docB;u\n", ["T-PO-1:2: error: duplicate PassageRank 1 for question 0001 "
                                                  "(first seen at line 1)"]),
    ("T-PO-1", "0001;1;docA;same  text\n0001;2;docA;same text\n",
     ["T-PO-1:2: error: the same passage (docID docA, same text) is returned twice for question 0001 "
      "(first at line 1)"]),
    ("T-PO-1", "".join("0001;%d;doc%d;t\n" % (r, r) for r in range(1, 21)) + "D001;21;doc21;t\n",
     ["T-PO-1:21: error: PassageRank 21 is outside the range [1-20]"]),
    # whole file
    ("T-PO-1", "", ["T-PO-1: error: the file holds no passage lines"]),
    ("T-PO-1", "\n\n", ["T-PO-1: error: the file holds no passage lines",
                        "T-PO-1:1: warning: blank line ignored (and 1 more lines like it)"]),
    ("T-PO-1", b"0001;1;docA;caf\xe9\n", ["T-PO-1:1: error: file is not valid UTF-8 (byte 0xe9 at offset 15); save "
                                         "it as UTF-8"]),
    # accepted with a warning
    ("T-PO-1", "D005:1;docA;blah;blah\n", ["T-PO-1:1: warning: ':' after the qID instead of ';' (a typo in the task's "
                                           "own format description); read as qID;PassageRank"]),
    ("T-PO-1", "0001;1;docA;t\n0001;3;docB;u\n", ["T-PO-1:1: warning: question 0001: PassageRank 2 missing; "
                                                  "passages are ranked by PassageRank"]),
    ("T-PO-1", "0001;1;docA;\n", ["T-PO-1:1: warning: PassageText is empty"]),
]


def _write(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return str(path)


@pytest.mark.parametrize("name, content, expected", BAD_INPUTS)
def test_bad_inputs(tmp_path, name, content, expected):
    path = _write(tmp_path, name, content)
    checked = check_file(TASK, path, name, None, TASK.resolve_options({}))
    assert checked.diags.lines() == expected
    valid = not any(": error: " in e for e in expected)
    assert bool(checked.runs) == valid


@pytest.mark.parametrize("raw, qid", [("0001", "0001"), ("D001", "0001"), ("D0001", "0001"), ("d065", "0065"),
                                      (" 0042 ", "0042"), ("1", None), ("D00001", None), ("X001", None)])
def test_qid_spellings(raw, qid):
    assert normalise_qid(raw) == qid


def test_seed_example_lines_parse(tmp_path):
    # the seed's own example, typo line included; the text of line 2 keeps its ';'
    text = ("D001;1;docIDabababa;This is a passage\nD001;2;docIDcdcdcdc;This is also; a passage\n"
            "D004;1;docIDefefefe;Another passage blah blah\nD004;20;docIDxyxyxy;blah blah blah\n"
            "D005:1;docIDyzyzyz;blahblahblahblah\n")
    diags = Diagnostics("WASEDA-PO-3")
    run = parse_pr_run(_write(tmp_path, "WASEDA-PO-3", text), "WASEDA-PO-3", diags)
    assert not diags.has_errors
    assert run.name == "WASEDA-PO-3"
    assert list(run.topics) == ["0001", "0004", "0005"]
    assert [(r, p.doc_id, p.text, p.line) for r, p in run.passages("0001")] == [
        (1, "docIDabababa", "This is a passage", 1), (2, "docIDcdcdcdc", "This is also; a passage", 2)]
    assert [r for r, _ in run.passages("0004")] == [1, 20]
    assert run.passage("0005", 1).doc_id == "docIDyzyzyz"
    assert run.passage("0005", 2) is None


@pytest.mark.parametrize("raw, name", [("retrank-PG-1.txt", "retrank-PG-1"), ("dir/ORG-PO-4", "ORG-PO-4"),
                                       (" hit-u-PO-2 ", "hit-u-PO-2")])
def test_run_name_normalisation(raw, name):
    assert normalise_run_name(raw) == name
    assert run_name_problem(name) is None


def test_run_name_aliases_and_parts():
    aliases = {"Hitotsubashi University Keyaki Lab Team-PO-4": "hit-u-PO-4"}
    assert normalise_run_name("Hitotsubashi University Keyaki Lab Team-PO-4", aliases) == "hit-u-PO-4"
    assert tuple(parse_run_name("Error404-PG-3")) == ("Error404", "PG", 3)
    assert str(parse_run_name("Error404-PG-3")) == "Error404-PG-3"


def test_passage_key_is_content_identity():
    assert passage_key("0001", "d", "a  b\n c ") == passage_key("0001", "d", "a b c")
    assert passage_key("0001", "d", "a b c") != passage_key("0001", "e", "a b c")
    # SHA-1 of the normalised text, written docID::sha1 in the qrels
    assert key_text(passage_key("0001", "d", "abc")) == "d::a9993e364706816aba3e25717850c26c9cd0d89d"


# ------------------------------------------------------------------------------------------ scoring ---
def _reference(tmp_path, qrels_lines, topics=None, options=None, assessed=None):
    """A reference folder; `assessed` {run name: text} are the PR runs as assessed (run_rank mode checks them)."""
    ref = tmp_path / "ref"
    ref.mkdir()
    (ref / "qrels.tsv").write_text("".join("\t".join(f) + "\n" for f in qrels_lines), encoding="utf-8")
    yaml = "task: r2c2-pr\nqrels: qrels.tsv\n"
    if assessed is not None:
        (ref / "assessed").mkdir()
        for name, text in assessed.items():
            (ref / "assessed" / name).write_text(text, encoding="utf-8")
        yaml += "assessed_runs: assessed\n"
    if topics is not None:
        yaml += "topics: [%s]\n" % ", ".join('"%s"' % t for t in topics)
    if options:
        yaml += "options:\n" + "".join("  %s: %s\n" % kv for kv in options.items())
    (ref / "task.yaml").write_text(yaml, encoding="utf-8")
    return load_reference(TASK, str(ref))


def _score(tmp_path, reference, name, text):
    path = _write(tmp_path, name, text)
    checked = check_file(TASK, path, name, reference, reference.options)
    assert not checked.diags.has_errors, checked.diags.lines()
    return score_run(reference, checked.runs[0])


def _key(qid, doc, text):
    return key_text(passage_key(qid, doc, text))


@pytest.mark.parametrize("rank, expected", [(1, "0.1420"), (2, "0.0896"), (20, "0.0323")])
def test_equal_gain_values_through_the_task(tmp_path, rank, expected):
    # 20 passages judged L1 (equal gains); the run returns 20 passages, only the one at `rank` relevant
    qrels = [("0009", _key("0009", "rel%d" % i, "relevant %d" % i), "L1") for i in range(20)]
    lines = ["0009;%d;%s;%s" % (r, "rel0" if r == rank else "other%d" % r, "relevant 0" if r == rank else "no")
             for r in range(1, 21)]
    scores = _score(tmp_path, _reference(tmp_path, qrels), "ORG-PO-1", "\n".join(lines) + "\n")
    assert "%.4f" % scores.measures["msndcg20"] == expected
    assert scores.per_topic["0009"]["hit1"] == (1.0 if rank == 1 else 0.0)


def test_mean_over_official_topics_missing_scores_zero_no_relevant_excluded(tmp_path):
    qrels = [("0001", _key("0001", "a", "A"), "L2"), ("0001", _key("0001", "b", "B"), "L1"),
             ("0002", _key("0002", "c", "C"), "L1"),
             ("0003", _key("0003", "d", "D"), "L0")]            # 0003: no relevant passage
    reference = _reference(tmp_path, qrels, topics=["0001", "0002", "0003"])
    # 0001: b (L1) at rank 1, unjudged at 2, a (L2) at 3; 0002 absent; 0099 not official
    text = "0001;1;b;B\n0001;2;x;X\n0001;3;a;A\n0099;1;a;A\n"
    scores = _score(tmp_path, reference, "T-PG-2.txt", text)
    msndcg_0001 = (1 / math.log2(2) + 2 / math.log2(4)) / (2 / math.log2(2) + 1 / math.log2(3))
    assert scores.per_topic["0001"]["msndcg20"] == pytest.approx(msndcg_0001, abs=1e-12)
    assert scores.per_topic["0002"]["msndcg20"] == 0.0
    assert "0003" not in scores.per_topic
    assert scores.measures["msndcg20"] == pytest.approx((msndcg_0001 + 0.0) / 2, abs=1e-12)
    assert scores.measures["p20"] == pytest.approx((2 / 20 + 0) / 2, abs=1e-12)
    assert scores.measures["num_topics"] == 2.0
    assert scores.notes == ["1 official question(s) without any relevant passage left out of the means "
                            "(NTCIREVAL cannot score them): 0003",
                            "1 official question(s) absent from the run score 0: 0002"]


def test_run_rank_keys_and_explicit_gains(tmp_path):
    qrels = [("0001", "T-PO-1::2", "L2"), ("0001", "T-PO-1::1", "L1"), ("0001", "OTHER-PO-1::1", "L1")]
    reference = _reference(tmp_path, qrels, options={"passage_key_mode": "run_rank", "gains": '"1:3"'},
                           assessed={"T-PO-1": "0001;1;a;A\n0001;2;b;B\n"})
    scores = _score(tmp_path, reference, "T-PO-1", "0001;1;a;A\n0001;2;b;B\n")
    # gains L1 -> 1, L2 -> 3; system 1, 3; ideal 3, 1, 1
    expected = (1 / 1 + 3 / math.log2(3)) / (3 / 1 + 1 / math.log2(3) + 1 / math.log2(4))
    assert scores.measures["msndcg20"] == pytest.approx(expected, abs=1e-12)


def test_no_official_question_answered_is_an_error(tmp_path):
    reference = _reference(tmp_path, [("0001", _key("0001", "a", "A"), "L1")])
    path = _write(tmp_path, "T-PO-1", "0002;1;a;A\n")
    checked = check_file(TASK, path, "T-PO-1", reference, reference.options)
    assert checked.diags.lines() == [
        "T-PO-1: error: no line answers any official question (0001 ... 0001)",
        "T-PO-1:1: warning: 1 qID(s) are not official questions and are ignored: 0002"]
    assert checked.runs == []


@pytest.mark.parametrize("lines, options, message", [
    ([("0001", "k", "L2", "x")], None, "PR qrels line has 4 TAB-separated fields"),
    ([("0001", "k", "2")], None, "relevance level '2' is not of the form Lk"),
    ([("0001", "k", "L1"), ("0001", "k", "L2")], None, "duplicate passage key k for question 0001"),
    ([("Q1", "k", "L1")], None, "qID 'Q1' is not a question id"),
    ([("0001", "k", "L3")], {"gains": '"1:2"'},
     r"qrels.tsv:1: error: relevance level L3 is outside the task's scale L0..L2 \(option gains '1:2' declares 2 levels\)"),
    ([("0001", "k", "L1")], {"gains": '"2:1"'}, "option gains: gains must not decrease"),
    ([("0001", "k", "L1")], {"passage_key_mode": "docid"}, "option passage_key_mode = 'docid' is not one of"),
])
def test_bad_reference_is_config_error(tmp_path, lines, options, message):
    with pytest.raises(ConfigError, match=message):
        _reference(tmp_path, lines, options=options)


def test_cli_scores_shipped_sample_and_rejects_bad_run(tmp_path):
    sample = os.path.join(ROOT, "starting_kit", "sample_submission", "r2c2-pr", "SAMPLE-PO-1.txt")
    code, out, err = run_cli("score", "--task", "r2c2-pr", "--ref", os.path.join(ROOT, "reference_data", "r2c2-pr"),
                             sample, "--json")
    assert code == 0, err
    assert '"msndcg20"' in out
    bad = _write(tmp_path, "T-PO-1", "0001;25;d;t\n")
    code, out, err = run_cli("validate", "--task", "r2c2-pr", bad)
    assert code == 1
    assert "T-PO-1:1: error: PassageRank 25 is outside the range [1-20]" in err


def test_name_pattern_claims_pr_runs_only():
    assert TASK.claims_name("WASEDA-PO-3") and TASK.claims_name("retrank-PG-1.txt")
    assert not TASK.claims_name("WASEDA-AC-1") and not TASK.claims_name("WASEDA-PO-5")
