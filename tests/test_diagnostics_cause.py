"""Diagnostics that find the cause: a file in the wrong layout is named once for what it is (comma- or
semicolon-separated, JSON, UTF-16, a run of another task) instead of one field-count error per line; identical
messages on many lines are grouped (text and HTML); no warning contradicts an error of its line; a bad reference
file lists all its errors at once."""
import json
import os

import pytest

from conftest import ROOT, codabench_input, run_cli, run_score_py
from runscore.errors import ConfigError, Diagnostics
from runscore.pipeline import check_file, load_reference
from runscore.tasks import get_task

TQIC_LINES = ["%03d\tpast\tgrp\trun1" % i for i in range(1, 42)]


def _check(tmp_path, task_id, name, data, ref=None):
    path = tmp_path / name
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data, encoding="utf-8")
    task = get_task(task_id)
    reference = load_reference(task, ref) if ref else None
    checked = check_file(task, str(path), name, reference, reference.options if ref else task.resolve_options({}))
    return checked.diags


@pytest.mark.parametrize("task_id, name, data, expected", [
    ("temporalia-tqic", "tqic_g", "\n".join(l.replace("\t", ",") for l in TQIC_LINES) + "\n",
     "tqic_g:1: error: the file looks comma-separated (41 of 41 lines split on ',' into 4 fields); a run of "
     "temporalia-tqic is a file named tqic_<group_id>, TAB-separated lines 'id class group_id run_id' (class past, "
     "future, recent or atemporal)"),
    ("temporalia-tqic", "tqic_g", "\n".join(l.replace("\t", ";") for l in TQIC_LINES) + "\n",
     "tqic_g:1: error: the file looks semicolon-separated (41 of 41 lines split on ';' into 4 fields); a run of "
     "temporalia-tqic is"),
    ("temporalia-tqic", "tqic_g", '{"001": "past",\n "002": "future"}\n',
     "tqic_g:1: error: the file looks like JSON (it starts with '{'), not lines of fields; a run of temporalia-tqic"),
    ("temporalia-tqic", "tqic_g", ("\n".join(TQIC_LINES) + "\n").encode("utf-16-le"),
     "tqic_g:1: error: file looks UTF-16 without a byte order mark (every other byte of its start is 0); save it "
     "as UTF-8"),
    ("temporalia-tqic", "tqic_g", "".join("%03dp\t%d\tD%d\tgrp\trun1\n" % (q, r, r) for q in (1, 2) for r in (1, 2, 3)),
     "tqic_g:1: error: the file looks like a run of task temporalia-tir, not of temporalia-tqic; a run of "
     "temporalia-tqic is"),
    ("ntcir1-adhoc", "ntc1", "".join("0001,0,NTC-%d,%d,0.5,ntc1\n" % (r, r) for r in range(1, 30)),
     "ntc1:1: error: the file looks comma-separated (29 of 29 lines split on ',' into 6 fields); a run of "
     "ntcir1-adhoc is"),
    ("temporalia-tir", "tir_g", "".join("%03dp,%d,D%d,grp,run1\n" % (q, r, r) for q in (1, 2) for r in (1, 2, 3)),
     "tir_g:1: error: the file looks comma-separated (6 of 6 lines split on ',' into 5 fields); a run of "
     "temporalia-tir is"),
    ("datasearch-qa", "ds.tsv", "".join("DS2-QA-E-%04d,answer %d\n" % (i, i) for i in range(1, 10)),
     "ds.tsv:1: error: the file looks comma-separated (9 of 9 lines split on ',' into 2 fields); a run of "
     "datasearch-qa is"),
    ("r2c2-pr", "T-PG-1.txt", "".join("D%03d\t%d\tdoc%d\ttext\n" % (q, r, r) for q in (1, 2) for r in (1, 2, 3)),
     "T-PG-1.txt:1: error: the file looks TAB-separated (6 of 6 lines split on '\\t' into 4 fields); a run of "
     "r2c2-pr is"),
    ("qqa23-mrc", "abc_run01.json", "\n".join(TQIC_LINES) + "\n",
     "abc_run01.json:1: error: the file looks like a run of task temporalia-tqic, not of qqa23-mrc; a run of "
     "qqa23-mrc is a JSON file"),
    ("qqa23-mrc", "abc_run01.json", "".join("38:41-44_105,%d,answer\n" % i for i in range(5)),
     "abc_run01.json:1: error: the file looks comma-separated (5 of 5 lines split on ',' into 3 fields); a run of "
     "qqa23-mrc is"),
])
def test_a_file_in_the_wrong_layout_is_named_once(tmp_path, task_id, name, data, expected):
    diags = _check(tmp_path, task_id, name, data)
    lines = diags.lines()
    assert len(lines) == 1 and lines[0].startswith(expected), lines
    assert diags.error_count == 1 and diags.warning_count == 0


def test_a_few_bad_lines_keep_their_own_messages(tmp_path):
    """The layout is named only when most lines (at least 3) miss it; one bad line in a good file is itself."""
    lines = TQIC_LINES[:5] + ["006,past,grp,run1"] + TQIC_LINES[6:]
    diags = _check(tmp_path, "temporalia-tqic", "tqic_grp", "\n".join(lines) + "\n")
    assert diags.lines() == ["tqic_grp:6: error: expected 4 TAB-separated fields 'id class group_id run_id', found "
                             "no TAB (1 field split on spaces)"]


def test_no_warning_contradicts_an_error_of_its_line(tmp_path):
    """A line without TAB that is wrong anyway gets one error, not also 'fields split on spaces'."""
    text = "\n".join(TQIC_LINES[:10] + ["011 past", "012", "013 past grp run1 extra"]) + "\n"
    diags = _check(tmp_path, "temporalia-tqic", "tqic_g", text)
    by_line = {}
    for d in diags.items:
        by_line.setdefault(d.line, []).append(d.severity)
    assert by_line[12] == ["error"] and by_line[13] == ["error"]
    # line 11 is read (split on spaces, group and run missing): warnings only, no error
    assert "error" not in by_line[11]
    text = "\n".join(["0001 0 NTC-1 1 0.5 ntc1", "0001 0 NTC-2"]) + "\n"
    diags = _check(tmp_path, "ntcir1-adhoc", "ntc1", text)
    assert [str(d) for d in diags.sorted_items()] == [
        "ntc1:1: warning: line has no TAB; fields split on spaces (the format asks for TABs)",
        "ntc1:2: error: expected 6 TAB-separated fields 'Topic-ID Dummy Document-ID Rank Similarity Run-ID', found "
        "no TAB (3 fields split on spaces)"]


def test_a_rejected_answer_is_not_also_kept(tmp_path):
    """datasearch-qa: 'everything after the first TAB is kept' is not said of a line that is an error."""
    text = "<SYSDESC>x</SYSDESC>\nDS2-QA-E-0001\tgood\tanswer\nDS2-QA-E-0002\tbad\tan\rswer\n"
    diags = _check(tmp_path, "datasearch-qa", "ds.tsv", text)
    lines = {d.line: d.severity for d in diags.items if d.severity == "warning"}
    errors = [d.line for d in diags.items if d.severity == "error"]
    assert errors == [3] and lines == {2: "warning"}


def test_a_thousand_bad_lines_are_one_grouped_error(tmp_path):
    """1,000 lines with the same fault: one message naming the lines; a different fault further on is still listed."""
    good = TQIC_LINES[:40]
    bad = ["%03d\tpast\tgrp\trun1\tx\ty" % (100 + i) for i in range(1000)]
    text = "\n".join(good + bad + ["041\tpast\tgrp\trun1", "041\tfuture\tgrp\trun1"]) + "\n"
    diags = _check(tmp_path, "temporalia-tqic", "tqic_grp", text)
    assert diags.lines() == [
        "tqic_grp:41: error: lines 41-1040: expected 4 TAB-separated fields 'id class group_id run_id', found 6",
        "tqic_grp:1042: error: duplicate query id 041 in run run1 (first seen at line 1041)"]
    assert diags.error_count == 1001


def test_grouping_reaches_the_command_line_and_the_html_page(tmp_path):
    lines = TQIC_LINES[:3] + ["%03d\tpast\tgrp" % i for i in range(4, 30)]
    lines += ["%03d\tpast\tgrp\trun1\textra" % i for i in range(30, 60)]
    text = "\n".join(lines) + "\n"
    (tmp_path / "tqic_g").write_text(text, encoding="utf-8")
    code, out, err = run_cli("validate", "--task", "temporalia-tqic", str(tmp_path / "tqic_g"))
    assert code == 1
    assert "tqic_g:30: error: lines 30-59: expected 4 TAB-separated fields 'id class group_id run_id', found 5" in err
    assert err.count("error:") == 1, err
    input_dir = codabench_input(tmp_path, "temporalia-tqic", {"tqic_g": text})
    code, out, err = run_score_py(input_dir, tmp_path / "out")
    assert code == 1
    page = (tmp_path / "out" / "detailed_results.html").read_text(encoding="utf-8")
    assert "lines 30-59: expected 4 TAB-separated fields" in page
    assert page.count("<li class=\"err\">") == 1
    assert "30 errors (1 different)" in page and "submission rejected: 30 error(s)" in err   # counted by line


def test_a_bad_reference_lists_all_its_errors_at_once(tmp_path):
    """A bad class at line 22 no longer hides a duplicate id at line 23 (nor the faults after it)."""
    lines = ["id\tclass"] + ["%03d\tpast" % i for i in range(1, 21)]
    lines += ["021\tsometimes", "005\tfuture", "022\tpast\textra", "x23\tpast"]
    gold = tmp_path / "gold.tsv"
    gold.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_reference(get_task("temporalia-tqic"), str(gold))
    path = str(gold)
    assert info.value.lines() == [
        "%s:22: error: class 'sometimes' is not one of past, recency/recent, future, atemporal" % path,
        "%s:23: error: duplicate query id 005 (first at line 6)" % path,
        "%s:24: error: expected 'id<TAB>class', found 3 field(s)" % path,
        "%s:25: error: query id must be a non-negative integer, found 'x23'" % path]
    code, out, err = run_cli("validate", "--task", "temporalia-tqic", "--ref", path,
                             os.path.join(ROOT, "starting_kit", "sample_submission", "temporalia-tqic", "tqic_sample"))
    assert code == 2 and err.count("error:") == 4 and "Traceback" not in err


@pytest.mark.parametrize("task_id, name, text, expected", [
    ("ntcir1-adhoc", "qrels", "0001 0 D1 1\n0001 0 D2 x\n0001 0 D1 1\n0002 0 D3\n",
     [":2: error: grade 'x' is not", ":3: error: duplicate judgement of document D1 for topic 0001",
      ":4: error: qrels line has 3 fields"]),
    ("r2c2-pr", "qrels.tsv", "qID\tpassage_key\tLk\n0001\tk1\tL1\n0001\tk1\tL2\n0002\t\tL1\n0003\tk3\tLx\n",
     [":3: error: duplicate passage key k1 for question 0001", ":4: error: empty passage key",
      ":5: error: relevance level 'Lx' is not of the form Lk"]),
    ("datasearch-qa", "gold.jsonl", '{"qid": "DS2-QA-E-0001", "answers": ["a"]}\n{"qid": 5}\n'
                                    '{"qid": "DS2-QA-E-0001", "answers": ["b"]}\nnot json\n',
     [":2: error: qid must be a string", ":3: error: duplicate qid DS2-QA-E-0001 (first at line 1)",
      ":4: error: not a JSON object"]),
])
def test_other_references_list_every_fault(tmp_path, task_id, name, text, expected):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_reference(get_task(task_id), str(path))
    lines = info.value.lines()
    assert len(lines) == len(expected)
    for line, fragment in zip(lines, expected):
        assert fragment in line, lines


def test_references_group_one_fault_and_cap_many_with_a_count(tmp_path):
    gold = tmp_path / "gold.tsv"
    gold.write_text("".join("%03d\tnever\n" % i for i in range(1, 81)), encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_reference(get_task("temporalia-tqic"), str(gold))
    assert info.value.lines() == ["%s:1: error: lines 1-80: class 'never' is not one of past, recency/recent, future, "
                                  "atemporal" % gold]
    gold.write_text("".join("%03d\tnever%d\n" % (i, i) for i in range(1, 81)), encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_reference(get_task("temporalia-tqic"), str(gold))
    lines = info.value.lines()
    assert len(lines) == 51 and lines[-1] == ("%s: error: 30 more errors not shown (the first 50 different ones "
                                              "listed)" % gold)


def test_diagnostics_stay_plain_data():
    diags = Diagnostics("x")
    diags.error(3, "bad")
    diags.error(4, "bad")
    assert json.dumps([str(d) for d in diags.items]) == '["x:3: error: lines 3-4: bad"]'
