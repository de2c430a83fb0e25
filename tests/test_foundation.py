"""The shared stages: diagnostics, text reading, the ranking rule, scores files, task registry, CLI basics."""
import json
import math

import numpy as np
import pytest
import yaml

from conftest import run_cli
from runscore.errors import ConfigError, Diagnostics, RunError
from runscore.ranking.label import NOT_IN_POOL, UNJUDGED, judge_ranking, rank_order
from runscore.report import check_scores, scores_txt, write_scores
from runscore.tasks import all_tasks, get_task
from runscore.textfile import decode_utf8, split_lines


def test_diagnostics_are_capped_with_a_count():
    diags = Diagnostics("run.txt", max_errors=3)
    for line in range(1, 11):
        diags.error(line, "bad line %d" % line)
    diags.warning(2, "odd")
    lines = diags.lines()
    assert lines[:4] == ["run.txt:1: error: bad line 1", "run.txt:2: error: bad line 2", "run.txt:2: warning: odd",
                         "run.txt:3: error: bad line 3"]
    assert lines[-1] == "run.txt: note: 7 more errors not shown (the first 3 different ones listed)"
    assert diags.error_count == 10 and diags.has_errors


@pytest.mark.parametrize("lines, expected", [
    (range(2, 43), "run.txt:2: error: lines 2-42: bad"),
    ([2, 3, 4, 5, 8, 10, 11], "run.txt:2: error: lines 2-5, 8, 10-11: bad"),
    ([5, 5, 5], "run.txt:5: error: line 5 (3 times): bad"),
    ([3, 3, 4], "run.txt:3: error: lines 3-4 (3 times): bad"),
    (range(1, 40, 2), "run.txt:1: error: lines 1, 3, 5, 7, 9, 11 and 14 more places (20 lines): bad"),
    ([7], "run.txt:7: error: bad"),
])
def test_identical_messages_are_grouped_with_their_lines(lines, expected):
    diags = Diagnostics("run.txt")
    for line in lines:
        diags.error(line, "bad")
    assert diags.lines() == [expected]
    assert diags.error_count == len(list(lines))


def test_a_thousand_identical_errors_are_one_message_and_others_stay_apart():
    """1,000 bad lines of one kind do not push a different error out of the 50 listed."""
    diags = Diagnostics("run.txt", max_errors=50)
    for line in range(2, 1002):
        diags.error(line, "expected 4 TAB-separated fields, found 1")
    diags.error(1002, "duplicate query id 7")
    diags.warning(3, "class 'x' unknown")
    assert diags.lines() == ["run.txt:2: error: lines 2-1001: expected 4 TAB-separated fields, found 1",
                             "run.txt:3: warning: class 'x' unknown",
                             "run.txt:1002: error: duplicate query id 7"]
    assert diags.error_count == 1001 and diags.warning_count == 1


def test_file_level_diagnostic_has_no_line_number():
    diags = Diagnostics("run.txt")
    diags.error(0, "empty")
    assert diags.lines() == ["run.txt: error: empty"]


@pytest.mark.parametrize("text, expected", [
    ("a\nb\n", ["a", "b"]),
    ("a\r\nb\r\n", ["a", "b"]),
    ("a\rb\r", ["a", "b"]),               # old Mac line ends
    ("a\nb", ["a", "b"]),                 # no final newline
    ("a\n\nb\n\n", ["a", "", "b", ""]),   # blank lines keep their numbers
    ("a\x0bb\u2028c\n", ["a\x0bb\u2028c"]),   # only \n ends a line (str.splitlines would split here)
])
def test_split_lines_keeps_physical_numbering(text, expected):
    assert split_lines(text) == expected


def test_decode_reports_line_and_offset():
    with pytest.raises(RunError) as info:
        decode_utf8(b"ok\nok\nbad \xff here\n", "run.txt")
    assert str(info.value) == "run.txt:3: error: file is not valid UTF-8 (byte 0xff at offset 10); save it as UTF-8"
    assert decode_utf8(b"\xef\xbb\xbfabc", "x") == "abc"


def test_rank_order_ties_by_docno():
    scores = np.array([0.5, 0.5, 0.9])
    docnos = ["B", "A", "C"]
    assert [docnos[i] for i in rank_order(scores, docnos, "desc")] == ["C", "B", "A"]
    assert [docnos[i] for i in rank_order(scores, docnos, "asc")] == ["C", "A", "B"]
    assert [docnos[i] for i in rank_order(scores, docnos, "file")] == ["C", "B", "A"]


def test_rank_order_compares_docnos_as_bytes():
    # "Z" (0x5a) < "a" (0x61) < "é" (0xc3 0xa9 in UTF-8): descending byte order is é, a, Z.
    docnos = ["a", "Z", "é"]
    order = rank_order(np.zeros(3), docnos, "desc")
    assert [docnos[i] for i in order] == sorted(docnos, key=lambda d: d.encode(), reverse=True)


def test_judge_ranking_marks_unpooled_and_unjudged():
    topic = judge_ranking(["a", "b", "c", "d"], {"a": 2, "b": 0, "c": -1, "z": 1}, level=1)
    assert topic.rels.tolist() == [2, 0, UNJUDGED, NOT_IN_POOL]
    assert topic.num_rel == 2 and topic.num_ret == 4


def test_scores_txt_is_fixed_point_and_yaml_safe():
    scores = {"a_map": 0.1234567890123, "b_tiny": 1e-12, "c_neg": -412.6666666667}
    text = scores_txt(scores)
    assert text == "a_map: 0.1234567890\nb_tiny: 0.0000000000\nc_neg: -412.6666666667\n"
    assert yaml.safe_load(text) == {"a_map": 0.123456789, "b_tiny": 0.0, "c_neg": -412.6666666667}


@pytest.mark.parametrize("bad", [math.nan, math.inf, 1e10, 1])
def test_unstorable_scores_are_refused(bad):
    with pytest.raises(ValueError):
        check_scores({"x": bad})


def test_write_scores_leaves_no_temporary_files(tmp_path):
    write_scores(str(tmp_path), {"x": 0.5})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scores.json", "scores.txt"]
    assert json.loads((tmp_path / "scores.json").read_text()) == {"x": 0.5}


def test_every_task_declares_a_valid_form():
    for task in all_tasks():
        assert task.id and task.description and task.columns, task.id
        keys = [task.leaderboard_key(c) for c in task.columns]
        assert len(set(keys)) == len(keys)
        for key, column in zip(keys, task.columns):
            assert len(key) <= 36 and key == key.lower() and key.replace("_", "").isalnum(), key
            assert len(column.title) <= 36 and column.sorting in ("asc", "desc")
        task.resolve_options({})   # the defaults pass their own checks


def test_unknown_task_suggests():
    with pytest.raises(ConfigError) as info:
        get_task("ntcir1_adhoc")
    assert "did you mean ntcir1-adhoc" in str(info.value)


def test_cli_tasks_lists_ids():
    code, out, err = run_cli("tasks")
    assert code == 0 and out.splitlines()[0].startswith("ntcir1-adhoc ")
    assert all(line.split()[0] == t.id for line, t in zip(out.splitlines(), all_tasks()))


@pytest.mark.parametrize("args, fragment", [
    (["score", "--task", "nope", "--ref", "x", "y"], "unknown task 'nope'"),
    (["score", "--task", "ntcir1-adhoc", "y"], "the following arguments are required: --ref"),
    (["score", "--task", "ntcir1-adhoc", "--ref", "/nonexistent", "y"], "does not exist"),
    (["validate", "--task", "ntcir1-adhoc", "--option", "tie_order=sideways", "/dev/null"], "is not one of"),
    (["frobnicate"], "invalid choice"),
    ([], ""),
])
def test_cli_usage_errors_exit_2(args, fragment):
    code, out, err = run_cli(*args)
    assert code == 2 and fragment in err + out and "Traceback" not in err


def test_cli_missing_run_file_exit_2(tmp_path):
    code, out, err = run_cli("validate", "--task", "ntcir1-adhoc", str(tmp_path / "nope"))
    assert code == 2 and "does not exist" in err


def test_warning_once_reports_the_first_line_with_a_count():
    diags = Diagnostics("run.txt")
    for line in (4, 9, 12):
        diags.warning_once("notab", line, "line has no TAB")
    diags.warning_once("blank", 7, "blank line ignored")
    assert diags.lines() == ["run.txt:4: warning: line has no TAB (and 2 more lines like it)",
                             "run.txt:7: warning: blank line ignored"]
    assert diags.warning_count == 2 and not diags.has_errors


def test_scores_files_are_readable_by_others(tmp_path):
    """The platform's uploader may not be the user that ran the scorer (mkstemp alone would give 0600)."""
    import os
    import stat

    write_scores(str(tmp_path), {"x": 0.5})
    umask = os.umask(0)
    os.umask(umask)
    for name in ("scores.json", "scores.txt"):
        mode = stat.S_IMODE(os.stat(str(tmp_path / name)).st_mode)
        assert mode == 0o666 & ~umask


@pytest.mark.parametrize("grade, fragment", [
    ("94702", None),                                   # large but allowed: no quadratic work downstream
    ("1000001", "grade 1000001 is outside -1000000..1000000"),
    ("-9999999999999999999", "is outside -1000000..1000000"),   # would overflow int64
    ("1" * 5000, "is not an integer"),                 # Python's int digit limit is never reached
])
def test_qrels_grades_are_bounded(tmp_path, grade, fragment):
    from runscore.ranking.qrels import read_qrels

    path = tmp_path / "qrels"
    path.write_text("1 0 d1 1\n1 0 d2 %s\n" % grade)
    if fragment is None:
        assert read_qrels(str(path))["1"]["d2"] == int(grade)
        run = tmp_path / "run"
        run.write_text("1 Q0 d2 1 0.5 r\n1 Q0 d1 2 0.4 r\n")
        code, out, err = run_cli("trec_eval", "-m", "ndcg", str(path), str(run))   # linear in the grade
        assert code == 0 and out.split() == ["ndcg", "all", "1.0000"]
        return
    with pytest.raises(ConfigError) as info:
        read_qrels(str(path))
    assert fragment in str(info.value) and ":2:" in str(info.value)


def test_scoring_one_task_imports_only_its_module():
    """get_task imports the module named after the task (start-up time); the registry still finds them all."""
    import subprocess
    import sys

    script = ("import sys\nfrom runscore.tasks import all_tasks, get_task\n"
              "task = get_task('temporalia-tir')\n"
              "print(sorted(m for m in sys.modules if m.startswith('runscore.tasks.')))\n"
              "print(task is [t for t in all_tasks() if t.id == 'temporalia-tir'][0], len(all_tasks()))\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["['runscore.tasks.assessing', 'runscore.tasks.base', 'runscore.tasks.temporalia', "
                                "'runscore.tasks.temporalia.format', 'runscore.tasks.temporalia.tir']",
                                "True %d" % len(all_tasks())]


SAMPLE_RUNS = {"datasearch-qa": "ds2qa_sample.tsv", "ntcir1-adhoc": "ntc1", "qqa23-mrc": "sample_run01.json",
               "r2c2-ac": "SAMPLE-AC-1", "r2c2-pr": "SAMPLE-PO-1.txt", "temporalia-tir": "tir_sample",
               "temporalia-tqic": "tqic_sample"}


@pytest.mark.parametrize("task_id", sorted(SAMPLE_RUNS))
def test_every_task_sniffs_its_sample_run_and_not_a_blank_start(task_id):
    """Content sniffing (discovery of runs whose names follow no rule) on each task's shipped sample; leading
    blank lines, however many, are skipped (issue 16: five made a valid run "not a run of any task"), and a
    blank start is nobody's run."""
    import os

    from conftest import ROOT

    task = get_task(task_id)
    path = os.path.join(ROOT, "starting_kit", "sample_submission", task_id, SAMPLE_RUNS[task_id])
    with open(path, encoding="utf-8") as handle:
        head = handle.read(4096)
    assert task.sniff(head)
    assert task.sniff("\n\n" + head)                  # blank lines before the first line are skipped
    assert task.sniff("\n \n\t\n\n\n\n\n" + head)
    assert not task.sniff("\n \n\t\n\n\n")


def test_task_yaml_read_again_is_its_current_content(tmp_path):
    """read_task_yaml keeps the last parse of each task.yaml (a scoring reads it three or four times): an edit of
    the same size within the same clock tick is read, an error is raised every time, and what a caller does to
    the dict it got never reaches the next caller."""
    from runscore.tasks.base import read_task_yaml

    path = tmp_path / "task.yaml"
    path.write_text("task: ntcir1-adhoc\noptions:\n  max_docs: 1000\n")
    first = read_task_yaml(str(tmp_path))
    first["options"]["max_docs"] = 5
    assert read_task_yaml(str(tmp_path)) == {"task": "ntcir1-adhoc", "options": {"max_docs": 1000}}
    path.write_text("task: ntcir1-adhoc\noptions:\n  max_docs: 2000\n")          # same size, same mtime tick
    assert read_task_yaml(str(tmp_path))["options"] == {"max_docs": 2000}
    path.write_text("task: ntcir1-adhoc\noptions:\n  max_docs: 1000\n  max_docs: 1\n")
    for _ in range(2):
        with pytest.raises(ConfigError, match="given twice"):
            read_task_yaml(str(tmp_path))
    path.write_bytes(b"task: ntcir1-adhoc\n# \xff\n")
    with pytest.raises(ConfigError, match="cannot read task.yaml: 'utf-8' codec can't decode byte 0xff in position 21"):
        read_task_yaml(str(tmp_path))
