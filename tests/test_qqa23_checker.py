"""qqa23-mrc validation: every rule of the official submission checker (one bad file each, with its message),
the Proposed checks of the spec, and the warnings for what the checker forgot. Line numbers are checked: each
answer of the files below sits on its own line (line 1 "{", line 2 the pq_id, answers from line 3)."""
import json
import os

import pytest

from conftest import ROOT, run_cli
from runscore.pipeline import check_file, load_reference
from runscore.tasks.qqa23.run_json import parse_json
from runscore.tasks import get_task

TASK = get_task("qqa23-mrc")
SAMPLE_REF = os.path.join(ROOT, "reference_data", "qqa23-mrc")
Q = "901:1-3_001"                     # a synthetic pq_id of the sample reference


def ans(text="الكتاب", rank=1, score=0.9, start=8, end=8, **extra):
    answer = {"answer": text, "rank": rank, "score": score, "strt_token_indx": start, "end_token_indx": end}
    answer.update(extra)
    return {k: v for k, v in answer.items() if v is not MISSING}


MISSING = object()


def layout(mapping):
    """One pq_id a line, each answer on a line of its own."""
    lines = ["{"]
    items = list(mapping.items())
    for n, (pq_id, answers) in enumerate(items):
        tail = "," if n < len(items) - 1 else ""
        if not isinstance(answers, list) or not answers:
            lines.append("%s: %s%s" % (json.dumps(pq_id), json.dumps(answers, ensure_ascii=False), tail))
            continue
        lines.append("%s: [" % json.dumps(pq_id))
        lines += [json.dumps(a, ensure_ascii=False) + ("," if k < len(answers) - 1 else "")
                  for k, a in enumerate(answers)]
        lines.append("]" + tail)
    return "\n".join(lines + ["}"]) + "\n"


def diagnose(tmp_path, content, name="bigIR_run01.json", reference=False, **options):
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content if isinstance(content, str) else layout(content), encoding="utf-8")
    ref = load_reference(TASK, SAMPLE_REF, options) if reference else None
    opts = ref.options if ref else TASK.resolve_options(options)
    checked = check_file(TASK, str(path), name, ref, opts)
    return checked.diags.lines(), checked.diags.has_errors


F = "bigIR_run01.json"
# (content, expected diagnostic line, is the run invalid): one row per rule of spec 3.2 / 3.3.
BAD_FILES = [
    (b'{"901:1-3_001": [{"answer": "\xff"}]}', F + ":1: error: file is not valid UTF-8 (byte 0xff at offset 29); "
     "save it as UTF-8", True),
    ('{"a": [}\n', F + ":1: error: not valid JSON: Expecting value (column 8)", True),
    ('{\n"a": [],\n}\n', F + ":3: error: not valid JSON: Expecting property name enclosed in double quotes "
     "(column 1)", True),
    ("[]\n", F + ":1: error: the run must be a JSON object mapping each pq_id to a list of answers, found a list",
     True),
    ({Q: {}}, F + ":2: error: pq_id 901:1-3_001: the answers must be a list (an empty list abstains), found an "
     "object", True),
    ({Q: [3]}, F + ":3: error: pq_id 901:1-3_001, answer 1: must be an object with the fields answer, rank, score, "
     "strt_token_indx and end_token_indx, found 3", True),
    ({Q: [ans(text=MISSING)]}, F + ":3: error: pq_id 901:1-3_001, answer 1: field 'answer' is missing", True),
    ({Q: [ans(rank=MISSING)]}, F + ":3: error: pq_id 901:1-3_001, answer 1: field 'rank' is missing", True),
    ({Q: [ans(score=MISSING)]}, F + ":3: error: pq_id 901:1-3_001, answer 1: field 'score' is missing", True),
    ({Q: [ans(start=MISSING)]}, F + ":3: error: pq_id 901:1-3_001, answer 1: field 'strt_token_indx' is missing",
     True),
    ({Q: [ans(end=MISSING)]}, F + ":3: error: pq_id 901:1-3_001, answer 1: field 'end_token_indx' is missing", True),
    ({Q: [ans(text="")]}, F + ":3: warning: pq_id 901:1-3_001, answer 1: the answer text is empty", True),
    ({Q: [ans(text=7)]}, F + ":3: error: pq_id 901:1-3_001, answer 1: answer must be a string, found 7", True),
    ({Q: [ans(rank=1.0)]}, F + ":3: error: pq_id 901:1-3_001, answer 1: rank must be an integer, found 1.0 (a "
     "float)", True),
    ({Q: [ans(start=8.0)]}, F + ":3: error: pq_id 901:1-3_001, answer 1: strt_token_indx must be an integer, found "
     "8.0 (a float)", True),
    ({Q: [ans(end=8.0)]}, F + ":3: error: pq_id 901:1-3_001, answer 1: end_token_indx must be an integer, found "
     "8.0 (a float)", True),
    ({Q: [ans(end=True)]}, F + ":3: error: pq_id 901:1-3_001, answer 1: end_token_indx must be an integer, found a "
     "boolean (true)", True),
    ({Q: [ans(score="high")]}, F + ":3: error: pq_id 901:1-3_001, answer 1: score must be a number, found 'high'",
     True),
    ('{"901:1-3_001": [{"answer": "a", "rank": 1, "score": NaN, "strt_token_indx": 0, "end_token_indx": 0}]}',
     F + ":1: error: pq_id 901:1-3_001, answer 1: score must be a finite number, found nan", True),
    ({Q: [ans(start=5, end=3)]}, F + ":3: error: pq_id 901:1-3_001, answer 1: end_token_indx 3 is smaller than "
     "strt_token_indx 5", True),
    ({Q: [ans(start=7, end=9)]}, F + ":3: error: pq_id 901:1-3_001, answer 1: the span strt_token_indx.."
     "end_token_indx = 7..9 covers 3 token(s) but the answer has 1 word(s); they must be equal", True),
    ({Q: [ans(text="وقرأ الكتاب ومن", start=7, end=8)]}, F + ":3: error: pq_id 901:1-3_001, answer 1: the span "
     "strt_token_indx..end_token_indx = 7..8 covers 2 token(s) but the answer has 3 word(s); they must be equal",
     True),
    ({Q: [ans(rank=k, score=1.0 - k / 100) for k in range(1, 12)]}, F + ":2: warning: pq_id 901:1-3_001 has 11 "
     "answers, more than 10; only the first 10 that survive normalisation are scored", False),
    ({Q: [ans(rank=1), ans(rank=3, score=0.5), ans(rank=4, score=0.4)]}, F + ":4: error: pq_id 901:1-3_001, "
     "answer 2: rank 3 should be 2 (ranks are 1, 2, 3, ... in list order)", True),
    ({Q: [ans(rank=1), ans(rank=2, score=0.5), ans(rank=2, score=0.4)]}, F + ":5: error: pq_id 901:1-3_001, "
     "answer 3: rank 2 is not larger than the rank 2 before it (ranks must increase down the list)", True),
    ({Q: [ans(rank=1), ans(rank=2, score=0.5), ans(rank=5, score=0.4)]}, F + ":5: warning: pq_id 901:1-3_001, "
     "answer 3: rank 5 should be 3 (accepted by the official checker; the list order is the ranking)", False),
    ({Q: [ans(rank=7)]}, F + ":3: warning: pq_id 901:1-3_001, answer 1: rank 7 should be 1 (the official checker "
     "does not check a single answer)", False),
    ({Q: [ans(rank=1, score=0.2), ans(rank=2, score=0.5)]}, F + ":4: error: pq_id 901:1-3_001, answer 2: score 0.5 "
     "is larger than the score 0.2 of the answer before it (scores must not increase down the list)", True),
    ({Q: [ans(rank=1, score=0.5), ans(rank=2, score=0.5)]}, F + ":4: warning: pq_id 901:1-3_001, answer 2: score "
     "0.5 equals the score of the answer before it", False),
    ('{\n"901:1-3_001": [],\n"901:1-3_001": []\n}\n', F + ":3: error: duplicate pq_id 901:1-3_001 (first at line 2); "
     "only one list per pq_id is allowed", True),
    ('{"901:1-3_001": [\n{"answer": "a", "rank": 1, "score": 1,\n"rank": 2, "strt_token_indx": 0, '
     '"end_token_indx": 0}\n]}', F + ":3: error: pq_id 901:1-3_001, answer 1: duplicate field 'rank' (first at line "
     "2)", True),
]


@pytest.mark.parametrize("content,expected,invalid", BAD_FILES)
def test_checker_rule(tmp_path, content, expected, invalid):
    lines, has_errors = diagnose(tmp_path, content)
    assert expected in lines, "\n".join(lines)
    assert has_errors == invalid


def test_empty_answer_also_fails_the_length_rule(tmp_path):
    """As in the official checker: an empty text has 0 words, a span at least 1 token."""
    lines, has_errors = diagnose(tmp_path, {Q: [ans(text="")]})
    assert has_errors and any("covers 1 token(s) but the answer has 0 word(s)" in line for line in lines)


def test_abstentions_and_a_clean_run_pass_silently(tmp_path):
    lines, has_errors = diagnose(tmp_path, {Q: [ans(), ans(text="وقرأ الكتاب", rank=2, score=0.4, start=7, end=8)],
                                            "902:1-2_003": []})
    assert (lines, has_errors) == ([], False)


@pytest.mark.parametrize("name,expected", [
    ("run.json", "run.json: %s: the run file name 'run.json' is not TeamID_RunID.json, with TeamID 3-9 and RunID "
     "2-9 letters or digits (e.g. bigIR_run01.json)"),
    ("bigIR_run01.txt", "bigIR_run01.txt: %s: the run file name 'bigIR_run01.txt' does not end in .json (runs are "
     "named TeamID_RunID.json)"),
    ("ab_run01.json", "ab_run01.json: %s: the run file name 'ab_run01.json' is not TeamID_RunID.json, with TeamID "
     "3-9 and RunID 2-9 letters or digits (e.g. bigIR_run01.json)"),
    ("bigIR_run_01.json", "bigIR_run_01.json: %s: the run file name 'bigIR_run_01.json' is not TeamID_RunID.json, "
     "with TeamID 3-9 and RunID 2-9 letters or digits (e.g. bigIR_run01.json)"),
])
def test_file_name_rule_is_a_warning_unless_strict(tmp_path, name, expected):
    lines, has_errors = diagnose(tmp_path, {Q: []}, name=name)
    assert (lines, has_errors) == ([expected % "warning"], False)
    lines, has_errors = diagnose(tmp_path, {Q: []}, name=name, strict_filename=True)
    assert (lines, has_errors) == ([expected % "error"], True)


def test_good_names_pass():
    for name in ("bigIR_run01.json", "abc_12.json", "TeamNine9_RunNine99.json"):
        assert TASK.claims_name(name)
    assert not TASK.claims_name("bigIR_run01.json.txt")


# ------------------------------------------------------------------- what the checker forgot (gold file) ---
def full_run():
    """A valid run of the synthetic sample (each list spans 3 lines, an empty one 1: 999:1-1_001 lands on 16)."""
    return {"901:1-3_001": [ans()], "901:4-6_002": [ans("محمد", start=1, end=1)], "902:1-2_003": [],
           "902:3-5_004": [ans("اجتهد", start=8, end=8)], "903:1-4_005": [],
           "903:5-7_006": [ans("فشكر", start=16, end=16)]}


def with_changes(changes):
    run = full_run()
    run.update(changes)
    return run


@pytest.mark.parametrize("changes,expected,invalid,options", [
    ({"999:1-1_001": []}, F + ":16: warning: 1 pq_id(s) are not in the gold file and are ignored: 999:1-1_001",
     False, {}),
    ({Q: None}, F + ": warning: 1 pq_id(s) of the gold file are missing from the run and score 0: 901:1-3_001",
     False, {}),
    ({Q: None}, F + ": error: 1 pq_id(s) of the gold file are missing from the run: 901:1-3_001", True,
     {"missing_questions": "error"}),
    ({Q: [ans(text="X", start=30, end=30)]}, F + ":3: warning: pq_id 901:1-3_001, answer 1: the span 30..30 is "
     "outside the passage (tokens 0..21); the scorer reads it anyway", False, {}),
    ({Q: [ans(text="X", start=-1, end=-1)]}, F + ":3: warning: pq_id 901:1-3_001, answer 1: the span -1..-1 is "
     "outside the passage (tokens 0..21); the scorer reads it anyway", False, {}),
    ({Q: [ans(text="الكتب", start=8, end=8)]}, F + ":3: warning: pq_id 901:1-3_001, answer 1: the answer text is "
     "not the passage tokens 8..8 it points at ('الكتاب'); the scorer groups answers by their text and matches them "
     "by their span", False, {}),
    ({Q: [ans(text="إلى", start=2, end=2)]}, F + ":2: warning: pq_id 901:1-3_001: every answer is dropped by the "
     "scorer (its text is only stop words and punctuation, or its span only removed tokens); the official scorer "
     "crashes on such a list when the question has gold answers, runscore scores the question 0", False, {}),
    ({Q: [ans(text="إلى", start=2, end=2)]}, F + ":2: error: pq_id 901:1-3_001: every answer is dropped by the "
     "scorer (its text is only stop words and punctuation, or its span only removed tokens); the official scorer "
     "crashes on such a list when the question has gold answers, runscore rejects the run", True,
     {"all_dropped": "error"}),
])
def test_gold_file_checks(tmp_path, changes, expected, invalid, options):
    run = with_changes({k: v for k, v in changes.items() if v is not None})
    for key in [k for k, v in changes.items() if v is None]:
        del run[key]
    lines, has_errors = diagnose(tmp_path, run, reference=True, **options)
    assert expected in lines, "\n".join(lines)
    assert has_errors == invalid


def test_repeated_findings_are_counted_not_repeated(tmp_path):
    run = with_changes({Q: [ans(text="الكتب", start=8, end=8), ans(text="ثمم", rank=2, score=0.1, start=10,
                                                                      end=10)]})
    lines, _ = diagnose(tmp_path, run, reference=True)
    assert [line for line in lines if "it points at" in line] == [
        F + ":3: warning: pq_id 901:1-3_001, answer 1: the answer text is not the passage tokens 8..8 it points at "
        "('الكتاب'); the scorer groups answers by their text and matches them by their span (and 1 more like it)"]


def test_json_reader_keeps_the_last_duplicate_like_json_loads():
    doc = parse_json('{"a": [1],\n "a": [2, 3]}', "x.json")
    assert doc.value == json.loads('{"a": [1],\n "a": [2, 3]}') == {"a": [2, 3]}
    assert [(d.path, d.key, d.line, d.first_line) for d in doc.duplicates] == [((), "a", 2, 1)]
    assert doc.line(("a", 1)) == 2


def test_cli_exit_codes(tmp_path):
    good = tmp_path / "bigIR_run01.json"
    good.write_text(layout(full_run()), encoding="utf-8")
    bad = tmp_path / "bigIR_run02.json"
    bad.write_text(layout({Q: [ans(rank=1.0)]}), encoding="utf-8")
    assert run_cli("validate", "--task", "qqa23-mrc", "--ref", SAMPLE_REF, good)[0] == 0
    code, _, err = run_cli("validate", "--task", "qqa23-mrc", bad)
    assert code == 1 and "bigIR_run02.json:3: error: pq_id 901:1-3_001, answer 1: rank must be an integer" in err
    assert "Traceback" not in err


def test_messages_stay_on_one_line_and_short(tmp_path):
    """A pq_id with a newline is escaped; a long value is cut (messages are one line, a few hundred chars)."""
    lines, has_errors = diagnose(tmp_path, {"a\nb": [ans(rank="x" * 500)]})
    assert has_errors
    assert lines == [F + ":3: error: pq_id a\\nb, answer 1: rank must be an integer, found '%s..." % ("x" * 56)]


def test_a_number_too_long_for_python_is_an_error_at_its_line(tmp_path):
    lines, has_errors = diagnose(tmp_path, '{\n"901:1-3_001": [%s]\n}\n' % ("9" * 5000))
    assert has_errors and len(lines) == 1 and lines[0].startswith(F + ":2: error: not a usable run: ")


def test_duplicate_key_in_an_unexpected_object_is_a_diagnostic(tmp_path):
    """A duplicate key where a list of answers was expected once crashed while wording the message."""
    from runscore.pipeline import check_file
    from runscore.tasks import get_task

    task = get_task("qqa23-mrc")
    path = tmp_path / "bigIR_run01.json"
    path.write_text('{"a": {"a": 1, "a": 1}}', encoding="utf-8")
    checked = check_file(task, str(path), path.name, None, task.resolve_options({}))
    lines = checked.diags.lines()
    assert checked.diags.has_errors and any("duplicate field 'a'" in line for line in lines)
    assert any(line.startswith("bigIR_run01.json:1: error: pq_id a: the answers must be a list") for line in lines)


@pytest.mark.parametrize("content", ["", "\n", "  \r\n\t\n"])
def test_an_empty_file_is_told_empty_not_invalid_json(tmp_path, content):
    """As every other task says of an empty run ("the file holds no result lines"), not json's "Expecting value"."""
    path = tmp_path / "team_run01.json"
    path.write_text(content, encoding="utf-8")
    code, out, err = run_cli("validate", "--task", "qqa23-mrc", str(path))
    assert code == 1
    assert "%s: error: the file is empty; a run is one JSON object {pq_id: [answer, ...]}" % path in err, err
    assert "Traceback" not in err and "Expecting value" not in err
