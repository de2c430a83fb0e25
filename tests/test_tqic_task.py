"""Task temporalia-tqic end to end: bad inputs (message + exit code), gold formats, several runs per file, scores
computed by hand, and the Codabench entry."""
import json
import os

import pytest

from conftest import ROOT, codabench_input, run_cli, run_score_py
from runscore.cli import main

GOLD = "id\tclass\n001\tpast\n002\tpast\n003\tfuture\n004\tRecency\n005\tatemporal\n006\tatemporal\n"
GOOD = ("id\tclass\tgroup_id\trun_id\n"
        "001\tpast\tg\tr1\n002\tfuture\tg\tr1\n003\tfuture\tg\tr1\n004\tpresent\tg\tr1\n005\tatemporal\tg\tr1\n"
        "006\tpast\tg\tr1\n")


@pytest.fixture
def ref(tmp_path):
    folder = tmp_path / "ref"
    folder.mkdir()
    (folder / "gold.tsv").write_text(GOLD, encoding="utf-8")
    (folder / "task.yaml").write_text("task: temporalia-tqic\ngold: gold.tsv\n", encoding="utf-8")
    return folder


def cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def run_lines(rows, run_id="r1", group="g"):
    return "".join("%s\t%s\t%s\t%s\n" % (q, c, group, run_id) for q, c in rows)


ALL_RIGHT = run_lines([("001", "past"), ("002", "past"), ("003", "future"), ("004", "recent"),
                       ("005", "atemporal"), ("006", "atemporal")])

# (run file content, extra CLI arguments, expected exit code, expected message on stderr)
BAD_INPUTS = [
    (ALL_RIGHT + "001\tfuture\tg\tr1\n", [], 1,
     "run.tsv:7: error: duplicate query id 001 in run r1 (first seen at line 1)"),
    (GOOD, [], 0, "run.tsv:5: warning: class 'present' is not one of past, future, recent, atemporal; "
                  "query 004 counts as wrong"),
    (GOOD, ["--option", "unknown_class=error"], 1,
     "run.tsv:5: error: class 'present' is not one of past, future, recent, atemporal"),
    (ALL_RIGHT.replace("001\tpast\t", "001\t\t"), [], 0, "run.tsv:1: warning: class '' is not one of"),
    ("q01\tpast\tg\tr1\n" + ALL_RIGHT, [], 1, "run.tsv:1: error: id: 'q01' is not a numeric query id (e.g. 001)"),
    ("001\tpast\tg\tr1\textra\n", [], 1,
     "run.tsv:1: error: expected 4 TAB-separated fields 'id class group_id run_id', found 5"),
    ("001\n", [], 1, "run.tsv:1: error: expected 4 TAB-separated fields 'id class group_id run_id', found no TAB "
                      "(1 field split on spaces)"),
    ("001\tpast\tg\tr 1\n", [], 1, "run.tsv:1: error: run_id: 'r 1' is not a run id without spaces"),
    (ALL_RIGHT + run_lines([("001", "past")], "r2") + run_lines([("001", "past")], "r3")
     + run_lines([("001", "past")], "r4"), ["--team-cap"], 1,
     "run.tsv: error: 4 runs of task temporalia-tqic in the submission (r1, r2, r3, r4); at most 3 are allowed in a "
     "submission"),
    (ALL_RIGHT + "999\tpast\tg\tr1\n", [], 0,
     "run.tsv:7: warning: run r1: 1 query id(s) are not in the gold set and are ignored: 999"),
    (ALL_RIGHT.replace("003\tfuture\tg\tr1\n", ""), [], 0,
     "run.tsv: warning: run r1 has no line for 1 of the 6 gold queries; they count as wrong: 003"),
    (ALL_RIGHT.replace("003\tfuture\tg\tr1\n", ""), ["--option", "missing_query=error"], 1,
     "run.tsv: error: run r1 has no line for 1 of the 6 gold queries: 003"),
    (ALL_RIGHT + "001\tfuture\tg\tr1\n", ["--option", "duplicates=keep_first"], 0,
     "run.tsv:7: warning: duplicate query id 001 in run r1 (first seen at line 1); the first line is kept"),
    ("100\tpast\tg\tr1\n", [], 1, "run.tsv: error: run r1 answers none of the 6 gold queries"),
    ("", [], 1, "run.tsv: error: the file holds no result lines"),
    ("id class group_id run_id\n", [], 1, "run.tsv: error: the file holds no result lines"),
    (ALL_RIGHT.replace("\t", " "), [], 0,
     "run.tsv:1: warning: line has no TAB; fields split on spaces (the format asks for TABs) (and 5 more lines"),
    ("001\tpast\n" + ALL_RIGHT[len("001\tpast\tg\tr1\n"):].replace("\tg\tr1", ""), [], 0,
     "run.tsv:1: warning: group_id and run_id missing; the lines without them form one run named 'run.tsv'"),
    (ALL_RIGHT.replace("\n", "\n\n", 1), [], 0, "run.tsv:2: warning: blank line ignored"),
    (ALL_RIGHT + "id\tclass\tgroup_id\trun_id\n", [], 0,
     "run.tsv:7: warning: header line 'id class group_id run_id' in the middle of the file skipped"),
    (ALL_RIGHT + run_lines([(q, "past") for q in ("001", "002", "003", "004", "005", "006")], "r2", "h"), [], 0,
     "run.tsv: warning: the file holds runs of 2 groups (g, h); the format asks for one file per group"),
]


@pytest.mark.parametrize("content, extra, code, message", BAD_INPUTS)
def test_bad_inputs(tmp_path, ref, capsys, monkeypatch, content, extra, code, message):
    run = tmp_path / "run.tsv"
    run.write_text(content, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    exit_code, out, err = cli(capsys, "validate", "--task", "temporalia-tqic", "--ref", ref, "run.tsv", *extra)
    assert message in err
    assert exit_code == code
    assert "Traceback" not in err


def test_invalid_utf8_is_a_run_error(tmp_path, ref, capsys):
    run = tmp_path / "run.tsv"
    run.write_bytes(b"001\tp\xe4st\tg\tr1\n")
    exit_code, _, err = cli(capsys, "validate", "--task", "temporalia-tqic", "--ref", ref, run)
    assert exit_code == 1 and "file is not valid UTF-8 (byte 0xe4 at offset 5)" in err


def test_more_than_three_runs_in_a_submission(tmp_path, ref, capsys):
    a, b = tmp_path / "tqic_a", tmp_path / "tqic_b"
    a.write_text(ALL_RIGHT + ALL_RIGHT.replace("r1", "r2"), encoding="utf-8")
    b.write_text(ALL_RIGHT.replace("r1", "r3") + ALL_RIGHT.replace("r1", "r4"), encoding="utf-8")
    # the campaign's cap, checked on the command line only with --team-cap, as the platform counts it:
    # every run of the submission, the same verdict as score.py's
    exit_code, _, err = cli(capsys, "validate", "--task", "temporalia-tqic", "--ref", ref, a, b)
    assert exit_code == 0, err
    exit_code, _, err = cli(capsys, "validate", "--task", "temporalia-tqic", "--ref", ref, "--team-cap", a, b)
    assert exit_code == 1
    assert "error: 4 runs of task temporalia-tqic in the submission (r1, r2, r3, r4); at most 3 are allowed in a " \
        "submission" in err


def scores(capsys, ref, run, *extra):
    exit_code, out, err = cli(capsys, "score", "--task", "temporalia-tqic", "--ref", ref, run, "--json",
                              "--per-topic", *extra)
    assert exit_code == 0, err
    return json.loads(out)


def test_scores_by_hand(tmp_path, ref, capsys):
    run = tmp_path / "tqic_g"
    run.write_text(GOOD, encoding="utf-8")
    result = scores(capsys, ref, run)["r1"]
    m = result["all"]
    # gold: 1 past, 2 past, 3 future, 4 recency, 5 atemporal, 6 atemporal
    # run:  1 past, 2 future, 3 future, 4 'present' (unknown: wrong), 5 atemporal, 6 past
    assert m["accuracy"] == 3 / 6
    assert (m["acc_past"], m["acc_recency"], m["acc_future"], m["acc_atemporal"]) == (1 / 2, 0 / 1, 1 / 1, 1 / 2)
    assert (m["precision_past"], m["precision_future"], m["precision_recency"], m["precision_atemporal"]) == \
        (1 / 2, 1 / 2, 0.0, 1 / 1)
    assert m["macro_f1"] == pytest.approx((1 / 2 + 0 + 2 / 3 + 2 / 3) / 4, abs=1e-15)
    assert (m["num_q"], m["num_correct"], m["num_missing"], m["num_invalid"]) == (6, 3, 0, 1)
    assert result["per_topic"]["001"] == {"correct": 1.0}
    assert result["per_topic"]["004"] == {"correct": 0.0}


def test_ids_compared_as_integers_and_class_spellings(tmp_path, ref, capsys):
    run = tmp_path / "tqic_g"
    run.write_text(run_lines([("1", "PAST"), ("02", "Past"), ("3", "future"), ("0004", "Recency"),
                              ("5", "atemporal"), ("6", " Atemporal ")]), encoding="utf-8")
    assert scores(capsys, ref, run)["r1"]["all"]["accuracy"] == 1.0


def test_missing_query_counts_wrong(tmp_path, ref, capsys):
    run = tmp_path / "tqic_g"
    run.write_text(ALL_RIGHT.replace("004\trecent\tg\tr1\n", ""), encoding="utf-8")
    m = scores(capsys, ref, run)["r1"]["all"]
    assert m["accuracy"] == 5 / 6                     # the denominator stays all 6 gold queries
    assert m["acc_recency"] == 0 / 1 and m["num_missing"] == 1 and m["num_invalid"] == 0


def test_several_runs_in_one_file_are_scored_separately(tmp_path, ref, capsys):
    run = tmp_path / "tqic_g"
    majority = run_lines([(q, "atemporal") for q in ("001", "002", "003", "004", "005", "006")], "r2")
    run.write_text("id\tclass\tgroup_id\trun_id\n" + ALL_RIGHT + majority, encoding="utf-8")
    result = scores(capsys, ref, run)
    assert list(result) == ["r1", "r2"]
    assert result["r1"]["all"]["accuracy"] == 1.0
    assert result["r2"]["all"]["accuracy"] == 2 / 6   # queries 5 and 6 are atemporal
    # macro F1 of r2: only atemporal has P = 2/6, R = 2/2 -> F1 = 2(1/3)(1)/(4/3) = 1/2; others 0 -> (1/2)/4
    assert result["r2"]["all"]["macro_f1"] == pytest.approx((2 * (1 / 3) * 1 / (1 / 3 + 1)) / 4, abs=1e-15)


def test_macro_f1_over_option(tmp_path, capsys):
    folder = tmp_path / "ref"
    folder.mkdir()
    (folder / "gold.tsv").write_text("1\tpast\n2\tfuture\n", encoding="utf-8")
    (folder / "task.yaml").write_text("task: temporalia-tqic\ngold: gold.tsv\n", encoding="utf-8")
    run = tmp_path / "tqic_g"
    run.write_text(run_lines([("1", "past"), ("2", "recent")]), encoding="utf-8")
    # F1: past 1, future 0 (R = 0/1), recency 0 (P = 0/1), atemporal 0
    assert scores(capsys, folder, run)["r1"]["all"]["macro_f1"] == (1 + 0) / 2
    assert scores(capsys, folder, run, "--option", "macro_f1_over=all_classes")["r1"]["all"]["macro_f1"] == 1 / 4


# ------------------------------------------------------------------------------ gold files ---

OFFICIAL_XML = """<?xml version="1.0" encoding="UTF-8"?>
<queries>
<query><id>001</id><query_string>history of the olympics</query_string>
  <query_issue_time>May 1, 2013 GMT+0</query_issue_time><temporal_class>Past</temporal_class></query>
<query><id>002</id><query_string>weather tomorrow</query_string>
  <query_issue_time>May 1, 2013 GMT+0</query_issue_time><temporal_class>Future</temporal_class></query>
<query><id>003</id><query_string>latest news</query_string>
  <query_issue_time>May 1, 2013 GMT+0</query_issue_time><temporal_class>Recency</temporal_class></query>
</queries>
"""


def test_official_xml_gold_as_single_file(tmp_path, capsys):
    gold = tmp_path / "NTCIR-11_TQIC_Queries_with_Class.xml"
    gold.write_text(OFFICIAL_XML, encoding="utf-8")
    run = tmp_path / "tqic_g"
    run.write_text(run_lines([("001", "past"), ("002", "past"), ("003", "recent")]), encoding="utf-8")
    m = scores(capsys, gold, run)["r1"]["all"]
    assert m["accuracy"] == 2 / 3 and m["acc_future"] == 0.0 and m["acc_recency"] == 1.0
    assert m["acc_atemporal"] == 0.0                  # no gold atemporal query: reported 0 (and a note)


BAD_GOLD = [
    ("001\tpresent\n", "gold.tsv:1: error: class 'present' is not one of past, recency/recent, future, atemporal"),
    ("001\tpast\n001\tfuture\n", "gold.tsv:2: error: duplicate query id 001 (first at line 1)"),
    ("abc\tpast\n", "gold.tsv:1: error: query id must be a non-negative integer, found 'abc'"),
    ("001\tpast\textra\n", "gold.tsv:1: error: expected 'id<TAB>class', found 3 field(s)"),
    ("id\tclass\n", "gold.tsv: error: the gold file holds no query"),
]


@pytest.mark.parametrize("content, message", BAD_GOLD)
def test_bad_gold_is_a_config_error(tmp_path, capsys, monkeypatch, content, message):
    gold = tmp_path / "gold.tsv"
    gold.write_text(content, encoding="utf-8")
    run = tmp_path / "tqic_g"
    run.write_text(ALL_RIGHT, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    exit_code, _, err = cli(capsys, "score", "--task", "temporalia-tqic", "--ref", "gold.tsv", run)
    assert exit_code == 2 and message in err


def test_bad_xml_and_missing_gold_key(tmp_path, capsys):
    gold = tmp_path / "gold.xml"
    gold.write_text("<queries><query><id>1</id></query></queries>", encoding="utf-8")
    run = tmp_path / "tqic_g"
    run.write_text(ALL_RIGHT, encoding="utf-8")
    exit_code, _, err = cli(capsys, "score", "--task", "temporalia-tqic", "--ref", gold, run)
    assert exit_code == 2 and "<query> number 1 lacks <id> or <temporal_class>" in err
    folder = tmp_path / "ref"
    folder.mkdir()
    (folder / "task.yaml").write_text("task: temporalia-tqic\n", encoding="utf-8")
    exit_code, _, err = cli(capsys, "score", "--task", "temporalia-tqic", "--ref", folder, run)
    assert exit_code == 2 and "task.yaml must name the gold class file" in err


# ------------------------------------------------------------------------------ discovery and Codabench ---

def test_discovery_by_name_and_content():
    from runscore.tasks import get_task

    task = get_task("temporalia-tqic")
    assert task.claims_name("tqic_roi_y") and not task.claims_name("tir_roi_y")
    assert task.sniff("id\tclass\tgroup_id\trun_id\n001\tfuture\troi_y\troi_y_system1\n")
    assert task.sniff("001\tRecent\tg\tr\n")
    assert not task.sniff("001\t1\tDOC1\tg\tr\n")


def test_score_py_with_sample_reference_and_submission(tmp_path):
    sample = os.path.join(ROOT, "starting_kit", "sample_submission", "temporalia-tqic", "tqic_sample")
    with open(sample, encoding="utf-8") as handle:
        input_dir = codabench_input(tmp_path, "temporalia-tqic", {"tqic_sample": handle.read()})
    code, out, err = run_score_py(input_dir, tmp_path / "output")
    assert code == 0, err
    board = json.loads((tmp_path / "output" / "scores.json").read_text())
    # sample_run1 gets 16 of the 20 synthetic queries right (4 deliberate errors); it beats sample_run2
    assert board["temporalia_tqic_accuracy"] == 16 / 20
    page = (tmp_path / "output" / "detailed_results.html").read_text(encoding="utf-8")
    assert "Confusion matrix: sample_run1" in page and "Confusion matrix: sample_run2" in page


def test_cli_smoke_subprocess():
    code, out, _ = run_cli("tasks")
    assert code == 0 and "temporalia-tqic" in out
    code, out, _ = run_cli("options", "--task", "temporalia-tqic")
    assert code == 0 and "unknown_class = 'wrong'" in out


def test_short_header_for_files_without_run_ids(tmp_path, ref, capsys):
    run = tmp_path / "tqic_g"
    run.write_text("id\tclass\n" + "".join("%03d\t%s\n" % (i, c) for i, c in enumerate(
        ["past", "past", "future", "recent", "atemporal", "atemporal"], 1)), encoding="utf-8")
    assert scores(capsys, ref, run)["tqic_g"]["all"]["accuracy"] == 1.0


def test_validate_without_reference(tmp_path, capsys):
    run = tmp_path / "tqic_g"
    run.write_text(GOOD, encoding="utf-8")
    exit_code, out, err = cli(capsys, "validate", "--task", "temporalia-tqic", run)
    assert exit_code == 0 and "tqic_g: valid (0 error(s), 1 warning(s))" in out
    assert "class 'present' is not one of" in err


def test_bom_and_crlf(tmp_path, ref, capsys):
    run = tmp_path / "tqic_g"
    run.write_bytes(b"\xef\xbb\xbf" + ("id\tclass\tgroup_id\trun_id\n" + ALL_RIGHT).replace("\n", "\r\n").encode())
    assert scores(capsys, ref, run)["r1"]["all"]["accuracy"] == 1.0


def test_duplicates_keep_first_scores_the_first_line(tmp_path, ref, capsys):
    run = tmp_path / "tqic_g"
    run.write_text(ALL_RIGHT + "001\tfuture\tg\tr1\n", encoding="utf-8")
    # the first line of query 001 (past, right) is kept; the later 'future' is ignored -> 6 of 6
    assert scores(capsys, ref, run, "--option", "duplicates=keep_first")["r1"]["all"]["accuracy"] == 1.0
