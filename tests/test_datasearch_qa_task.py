"""Task datasearch-qa end to end: bad inputs (message + exit code), gold formats, options, scores computed by
hand overall and per language, per-question output, and the Codabench entry."""
import json
import os

import pytest

from conftest import ROOT, codabench_input, run_score_py
from runscore.cli import main

GOLD_LINES = [
    {"qid": "DS2-QA-E-0001", "answers": ["13,510,000", "13510000"]},
    {"qid": "DS2-QA-E-0002", "answers": ["Iowa"]},
    {"qid": "DS2-QA-J-0001", "answers": ["東京都"]},
]
SYSDESC = "<SYSDESC>test system</SYSDESC>\n"
ANSWERS = "DS2-QA-E-0001\t13,510,000\nDS2-QA-E-0002\tIowa\nDS2-QA-J-0001\t東京都\n"


@pytest.fixture
def ref(tmp_path):
    folder = tmp_path / "ref"
    folder.mkdir()
    (folder / "gold.jsonl").write_text("".join(json.dumps(g, ensure_ascii=False) + "\n" for g in GOLD_LINES),
                                       encoding="utf-8")
    (folder / "task.yaml").write_text("task: datasearch-qa\ngold: gold.jsonl\n", encoding="utf-8")
    return folder


def cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


# (run file content, extra CLI arguments, expected exit code, expected message on stderr)
BAD_INPUTS = [
    (ANSWERS, [], 0, "run.tsv:1: warning: the first line should be <SYSDESC>description of the system</SYSDESC>; "
                     "the run is scored without a description"),
    (ANSWERS, ["--option", "require_sysdesc=true"], 1,
     "run.tsv:1: error: the first line should be <SYSDESC>description of the system</SYSDESC>"),
    ("<SYSDESC>BERT-based approach<SYSDESC>\n" + ANSWERS, [], 0,
     "run.tsv:1: warning: the closing tag lacks the slash: write </SYSDESC> (accepted)"),
    ("<SYSDESC>BERT-based approach\n" + ANSWERS, [], 0,
     "run.tsv:1: warning: the <SYSDESC> line has no closing </SYSDESC>"),
    ("<SYSDESC>[REPLACE ME]</SYSDESC>\n" + ANSWERS, [], 0,
     "run.tsv:1: warning: the system description is empty or still [REPLACE ME]"),
    (SYSDESC + ANSWERS + SYSDESC, [], 1,
     "run.tsv:5: error: a <SYSDESC> line is allowed only as the first line of the file"),
    (SYSDESC + ANSWERS + "DS2-QA-E-0001\t13510000\n", [], 1,
     "run.tsv:5: error: duplicate QUESTION_ID DS2-QA-E-0001 (first answered at line 2)"),
    (SYSDESC + ANSWERS + "DS2-QA-E-0001\t13510000\n", ["--option", "duplicates=keep_first"], 0,
     "run.tsv:5: warning: duplicate QUESTION_ID DS2-QA-E-0001 (first answered at line 2); the first answer is kept"),
    (SYSDESC + ANSWERS + "DS2-QA-E-9999\tx\n", [], 0,
     "run.tsv:5: warning: 1 QUESTION_ID(s) are not test questions and are ignored: DS2-QA-E-9999"),
    (SYSDESC + ANSWERS.replace("DS2-QA-J-0001\t東京都\n", ""), [], 0,
     "run.tsv: warning: no answer for 1 of the 3 test questions (the run must answer all of them): "
     "DS2-QA-J-0001; they score 0"),
    (SYSDESC + ANSWERS.replace("DS2-QA-J-0001\t東京都\n", ""), ["--option", "missing_question=error"], 1,
     "run.tsv: error: no answer for 1 of the 3 test questions"),
    (SYSDESC + "DS2-QA-X-1\tx\n", [], 1, "run.tsv: error: the run answers none of the 3 test questions"),
    (SYSDESC + ANSWERS.replace("\tIowa", "\tIowa\tstate"), [], 0,
     "run.tsv:3: warning: the answer holds a TAB; everything after the first TAB is kept as the answer"),
    (SYSDESC + ANSWERS.replace("\tIowa", "\tIowa\tstate"), ["--option", "tab_in_answer=error"], 1,
     "run.tsv:3: error: the answer holds a TAB (a line is QUESTION_ID<TAB>ANSWER, one TAB)"),
    (SYSDESC + ANSWERS.replace("DS2-QA-E-0002\tIowa", "DS2-QA-E-0002 Iowa"), [], 1,
     "run.tsv:3: error: expected QUESTION_ID<TAB>ANSWER, found no TAB"),
    (SYSDESC + "\tIowa\n" + ANSWERS, [], 1,
     "run.tsv:2: error: QUESTION_ID: '' is not a question id without spaces (e.g. DS2-QA-J-1001)"),
    (SYSDESC + "DS2 QA E 2\tIowa\n" + ANSWERS, [], 1, "run.tsv:2: error: QUESTION_ID: 'DS2 QA E 2' is not"),
    (SYSDESC, [], 1, "run.tsv: error: the file holds no answer lines"),
    ("", [], 1, "run.tsv: error: the file holds no answer lines"),
    (SYSDESC + "\n" + ANSWERS, [], 0, "run.tsv:2: warning: blank line ignored"),
]


@pytest.mark.parametrize("content, extra, code, message", BAD_INPUTS)
def test_bad_inputs(tmp_path, ref, capsys, monkeypatch, content, extra, code, message):
    (tmp_path / "run.tsv").write_text(content, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    exit_code, _, err = cli(capsys, "validate", "--task", "datasearch-qa", "--ref", ref, "run.tsv", *extra)
    assert message in err
    assert exit_code == code
    assert "Traceback" not in err


def test_invalid_utf8_is_a_run_error(tmp_path, ref, capsys):
    run = tmp_path / "run.tsv"
    run.write_bytes(SYSDESC.encode() + b"DS2-QA-J-0001\t\x93\x8c\n")
    exit_code, _, err = cli(capsys, "validate", "--task", "datasearch-qa", "--ref", ref, run)
    assert exit_code == 1 and ":2: error: file is not valid UTF-8" in err


def scores(capsys, ref, run, *extra):
    exit_code, out, err = cli(capsys, "score", "--task", "datasearch-qa", "--ref", ref, run, "--json",
                              "--per-topic", *extra)
    assert exit_code == 0, err
    return json.loads(out)[os.path.basename(str(run))]


def test_perfect_run_and_crlf_bom_give_the_same_scores(tmp_path, ref, capsys):
    plain, windows = tmp_path / "plain.tsv", tmp_path / "windows.tsv"
    plain.write_text(SYSDESC + ANSWERS, encoding="utf-8")
    windows.write_bytes(b"\xef\xbb\xbf" + (SYSDESC + ANSWERS).replace("\n", "\r\n").encode("utf-8"))
    a, b = scores(capsys, ref, plain), scores(capsys, ref, windows)
    assert a["all"]["exact_match"] == 1.0 and a["all"]["macro_f1"] == 1.0
    assert a == b


def test_scores_by_hand(tmp_path, ref, capsys):
    run = tmp_path / "run.tsv"
    run.write_text(SYSDESC + "DS2-QA-E-0001\t１３，５１０，０００\nDS2-QA-E-0002\tthe state of Iowa\n"
                             "DS2-QA-J-0001\t東京\n", encoding="utf-8")
    result = scores(capsys, ref, run)
    q = result["per_topic"]
    # E-0001: NFKC turns the full-width answer into '13,510,000' = gold 1 -> EM 1, F1 1. SQuAD v1.1 (no NFKC,
    # ASCII punctuation only) sees '１３，５１０，０００' vs '13510000': EM 0, F1 0.
    assert q["DS2-QA-E-0001"] == {"em": 1.0, "f1": 1.0, "em_squad": 1.0, "squad11_em": 0.0, "squad11_f1": 0.0}
    # E-0002: 'the state of Iowa' -> {state, of, iowa} vs {iowa}: P = 1/3, R = 1 -> 1/2; EM 0 (both modes)
    assert q["DS2-QA-E-0002"]["em"] == 0.0 and q["DS2-QA-E-0002"]["em_squad"] == 0.0
    assert q["DS2-QA-E-0002"]["f1"] == pytest.approx(2 * (1 / 3) / (1 / 3 + 1), abs=1e-15)
    assert q["DS2-QA-E-0002"]["squad11_f1"] == pytest.approx(2 * (1 / 3) / (1 / 3 + 1), abs=1e-15)
    # J-0001: '東京' vs '東京都' at character level: P = 1, R = 2/3 -> 4/5; SQuAD sees one token each -> 0
    assert q["DS2-QA-J-0001"]["em"] == 0.0
    assert q["DS2-QA-J-0001"]["f1"] == pytest.approx(2 * (2 / 3) / (1 + 2 / 3), abs=1e-15)
    assert q["DS2-QA-J-0001"]["squad11_f1"] == 0.0
    m = result["all"]
    assert m["exact_match"] == pytest.approx(1 / 3, abs=1e-15)
    assert m["macro_f1"] == pytest.approx((1 + 1 / 2 + 4 / 5) / 3, abs=1e-15)
    assert (m["exact_match_e"], m["exact_match_j"]) == (1 / 2, 0.0)
    assert m["macro_f1_e"] == pytest.approx((1 + 1 / 2) / 2, abs=1e-15)
    assert m["macro_f1_j"] == pytest.approx(4 / 5, abs=1e-15)
    assert m["squad11_em"] == 0.0
    assert m["squad11_f1"] == pytest.approx((0 + 1 / 2 + 0) / 3, abs=1e-15)
    assert (m["num_q"], m["num_q_e"], m["num_q_j"], m["num_missing"]) == (3, 2, 1, 0)


def test_missing_question_scores_zero_over_all_questions(tmp_path, ref, capsys):
    run = tmp_path / "run.tsv"
    run.write_text(SYSDESC + ANSWERS.replace("DS2-QA-E-0002\tIowa\n", ""), encoding="utf-8")
    m = scores(capsys, ref, run)["all"]
    assert m["exact_match"] == pytest.approx(2 / 3, abs=1e-15)     # denominator: all 3 gold questions
    assert m["exact_match_e"] == 1 / 2 and m["num_missing"] == 1


def test_options_change_the_scores(tmp_path, ref, capsys):
    run = tmp_path / "run.tsv"
    run.write_text(SYSDESC + "DS2-QA-E-0001\t13510000\nDS2-QA-E-0002\tiowa\nDS2-QA-J-0001\t東京 都\n",
                   encoding="utf-8")
    default = scores(capsys, ref, run)["per_topic"]
    # E-0001 '13510000' equals the second gold; E-0002 'iowa' differs in case under strict; J-0001 has a space
    assert [default[q]["em"] for q in ("DS2-QA-E-0001", "DS2-QA-E-0002", "DS2-QA-J-0001")] == [1.0, 0.0, 0.0]
    assert default["DS2-QA-J-0001"]["f1"] == 1.0          # characters {東, 京, 都}: the space is no token
    squad = scores(capsys, ref, run, "--option", "normalization=squad")["per_topic"]
    assert squad["DS2-QA-E-0002"]["em"] == 1.0             # lower-cased
    whitespace = scores(capsys, ref, run, "--option", "ja_tokenizer=whitespace")["per_topic"]
    # words {東京, 都} vs {東京都}: nothing shared -> 0
    assert whitespace["DS2-QA-J-0001"]["f1"] == 0.0


def test_digit_grouping_option(tmp_path, capsys):
    folder = tmp_path / "ref"
    folder.mkdir()
    (folder / "gold.tsv").write_text("DS2-QA-E-0001\t13510000\n", encoding="utf-8")
    (folder / "task.yaml").write_text("task: datasearch-qa\ngold: gold.tsv\n", encoding="utf-8")
    run = tmp_path / "run.tsv"
    run.write_text(SYSDESC + "DS2-QA-E-0001\t13,510,000\n", encoding="utf-8")
    assert scores(capsys, folder, run)["all"]["exact_match"] == 0.0
    assert scores(capsys, folder, run, "--option", "strip_digit_grouping=true")["all"]["exact_match"] == 1.0


def test_tsv_gold_repeated_qid_adds_answers_and_lang_override(tmp_path, capsys):
    gold = tmp_path / "gold.tsv"
    gold.write_text("qid\tanswer\nQ1\tTokyo\nQ1\t東京\n", encoding="utf-8")
    run = tmp_path / "run.tsv"
    run.write_text(SYSDESC + "Q1\t東京\n", encoding="utf-8")
    exit_code, _, err = cli(capsys, "score", "--task", "datasearch-qa", "--ref", gold, run)
    assert exit_code == 2 and "the language of Q1 is unknown" in err
    gold_jsonl = tmp_path / "gold.jsonl"
    gold_jsonl.write_text(json.dumps({"qid": "Q1", "answers": ["Tokyo", "東京"], "lang": "ja"}) + "\n",
                          encoding="utf-8")
    m = scores(capsys, gold_jsonl, run)["all"]
    assert m["exact_match_j"] == 1.0 and m["num_q_e"] == 0.0 and m["exact_match_e"] == 0.0


BAD_GOLD = [
    ("gold.jsonl", "{not json\n", "gold.jsonl:1: error: not a JSON object"),
    ("gold.jsonl", '["DS2-QA-E-1"]\n', "gold.jsonl:1: error: expected a JSON object with qid and answers"),
    ("gold.jsonl", '{"qid": "DS2-QA-E-1", "answers": []}\n',
     "gold.jsonl:1: error: answers of DS2-QA-E-1 must be a non-empty list of strings"),
    ("gold.jsonl", '{"qid": 1, "answers": ["x"]}\n', "gold.jsonl:1: error: qid must be a string"),
    ("gold.jsonl", '{"qid": "DS2-QA-E-1", "answers": ["x"]}\n{"qid": "DS2-QA-E-1", "answers": ["y"]}\n',
     "gold.jsonl:2: error: duplicate qid DS2-QA-E-1 (first at line 1)"),
    ("gold.jsonl", '{"qid": "DS2-QA-E-1", "answers": ["x"], "lang": "fr"}\n',
     "gold.jsonl:1: error: lang 'fr' of DS2-QA-E-1 is not E (English) or J (Japanese)"),
    ("gold.tsv", "DS2-QA-E-1 x\n", "gold.tsv:1: error: expected 'qid<TAB>answer'"),
    ("gold.tsv", "\n", "gold.tsv: error: the gold file holds no question"),
    ("gold.jsonl", '{"qid": "DS2-QA-E-1", "answers": ["x\\udc80"]}\n',       # half a surrogate pair: exit 2, not a crash
     "gold.jsonl:1: error: not valid Unicode: a string holds \\udc80, half of a UTF-16 surrogate pair"),
]


@pytest.mark.parametrize("name, content, message", BAD_GOLD)
def test_bad_gold_is_a_config_error(tmp_path, capsys, monkeypatch, name, content, message):
    (tmp_path / name).write_text(content, encoding="utf-8")
    run = tmp_path / "run.tsv"
    run.write_text(SYSDESC + "DS2-QA-E-1\tx\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    exit_code, _, err = cli(capsys, "score", "--task", "datasearch-qa", "--ref", name, run)
    assert exit_code == 2 and message in err


def test_discovery_by_content():
    from runscore.tasks import get_task

    task = get_task("datasearch-qa")
    assert task.sniff("<SYSDESC>BERT</SYSDESC>\nDS2-QA-J-1001\t2010\n")
    assert task.sniff("DS2-QA-J-1001\t2010\n")
    assert not task.sniff("001\tpast\tg\tr\n")


def test_score_py_with_sample_reference_and_submission(tmp_path):
    sample = os.path.join(ROOT, "starting_kit", "sample_submission", "datasearch-qa", "ds2qa_sample.tsv")
    with open(sample, encoding="utf-8") as handle:
        input_dir = codabench_input(tmp_path, "datasearch-qa", {"ds2qa_sample.tsv": handle.read()})
    code, out, err = run_score_py(input_dir, tmp_path / "output")
    assert code == 0, err
    board = json.loads((tmp_path / "output" / "scores.json").read_text())
    # The synthetic sample gets E-0001 (same string) and J-0001, J-0003 (equal after NFKC) exactly right: 3 of 8
    assert board["datasearch_qa_exact_match"] == 3 / 8
    assert set(board) == {"datasearch_qa_" + k for k in ("exact_match", "macro_f1", "exact_match_e",
                                                         "exact_match_j", "macro_f1_e", "macro_f1_j",
                                                         "exact_match_squad", "squad11_f1")}
    page = (tmp_path / "output" / "detailed_results.html").read_text(encoding="utf-8")
    assert "Per question: ds2qa_sample.tsv" in page and "normalization=strict" in page


def test_score_py_rejects_duplicate_question(tmp_path):
    run = SYSDESC + "DS2-QA-E-0001\tx\nDS2-QA-E-0001\ty\n"
    input_dir = codabench_input(tmp_path, "datasearch-qa", {"run.tsv": run})
    code, _, err = run_score_py(input_dir, tmp_path / "output")
    assert code == 1 and "duplicate QUESTION_ID DS2-QA-E-0001" in err
    assert not (tmp_path / "output" / "scores.json").exists()


def test_validate_without_reference(tmp_path, capsys):
    run = tmp_path / "run.tsv"
    run.write_text(SYSDESC + ANSWERS + "Q-7\tx\n", encoding="utf-8")
    exit_code, out, err = cli(capsys, "validate", "--task", "datasearch-qa", run)
    assert exit_code == 0 and "run.tsv: valid (0 error(s), 1 warning(s))" in out
    assert ":5: warning: QUESTION_ID Q-7 is not of the form DS2-QA-E-#### or DS2-QA-J-####" in err


def test_tab_inside_answer_is_scored_as_part_of_the_answer(tmp_path, ref, capsys):
    run = tmp_path / "run.tsv"
    run.write_text(SYSDESC + ANSWERS.replace("\tIowa", "\tIowa\tstate"), encoding="utf-8")
    q = scores(capsys, ref, run)["per_topic"]["DS2-QA-E-0002"]
    # the answer is 'Iowa<TAB>state' -> strict 'Iowa state' != 'Iowa' -> EM 0; words {iowa, state} vs {iowa}:
    # P = 1/2, R = 1 -> 2/3
    assert q["em"] == 0.0
    assert q["f1"] == pytest.approx(2 * (1 / 2) * 1 / (1 / 2 + 1), abs=1e-15)


def test_f1_both_empty_option(tmp_path, capsys):
    folder = tmp_path / "ref"
    folder.mkdir()
    (folder / "gold.tsv").write_text("DS2-QA-E-0001\tthe\n", encoding="utf-8")
    (folder / "task.yaml").write_text("task: datasearch-qa\ngold: gold.tsv\n", encoding="utf-8")
    run = tmp_path / "run.tsv"
    run.write_text(SYSDESC + "DS2-QA-E-0001\t\n", encoding="utf-8")
    # '' vs 'the': no English word on either side -> 1.0 by default, 0.0 with the SQuAD v1.1 convention
    assert scores(capsys, folder, run)["all"]["macro_f1"] == 1.0
    assert scores(capsys, folder, run, "--option", "f1_both_empty=0")["all"]["macro_f1"] == 0.0
    assert scores(capsys, folder, run)["all"]["squad11_f1"] == 0.0


@pytest.mark.parametrize("line, expected", [
    ("<SYSDESC>BERT</SYSDESC>", ("BERT", "</SYSDESC>")),
    ("  <sysdesc>BERT-based approach<SYSDESC>  ", ("BERT-based approach", "<SYSDESC>")),   # the seed's own form
    ("<SYSDESC>no closing tag", ("no closing tag", None)),
    ("<SYSDESC>a</SYSDESC> trailing", ("a</SYSDESC> trailing", None)),
    ("DS2-QA-E-1\tanswer", None),
    ("<SYSDESC>" + " " * 200000 + "x", (" " * 200000 + "x", None)),   # linear: no regex backtracking
])
def test_split_sysdesc(line, expected):
    from runscore.tasks.datasearch_qa import split_sysdesc

    assert split_sysdesc(line) == expected
