"""qqa23-mrc end to end: the CLI and score.py on the synthetic sample (values derived by hand), the real dev
gold as a single-file reference, the baseline generator, options, and the gold-file reader's errors."""
import io
import json
import os
import shutil
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout

import pytest

from conftest import ROOT, run_cli, run_score_py, shared_path

from runscore.cli import main as cli_main
from runscore.errors import ConfigError
from runscore.tasks.qqa23.gold import read_gold
from runscore.tasks import get_task

TASK = get_task("qqa23-mrc")


def cli(*args):
    """`runscore ARGS` in this process (fast); test_sample_scores_by_cli runs the real command once."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli_main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()
SAMPLE_REF = os.path.join(ROOT, "reference_data", "qqa23-mrc")
SAMPLE_RUN = os.path.join(ROOT, "starting_kit", "sample_submission", "qqa23-mrc", "sample_run01.json")
BASELINE = os.path.join(ROOT, "starting_kit", "baselines", "qqa23_whole_passage.py")

# The sample run on the synthetic gold, per question (derivations in test_qqa23_pap.py for 002, 004, 006):
# 001 exact hit at rank 1 -> 1; 002 -> (1/1 + 2/2)/2 = 1; 003 zero-answer, abstained -> 1;
# 004 F1 2/3 at rank 1 over 2 gold texts -> 1/3; 005 zero-answer, answered -> 0; 006 F1 6/7 at rank 2 -> 3/7.
SAMPLE_PER_QUESTION = {"901:1-3_001": 1.0, "901:4-6_002": 1.0, "902:1-2_003": 1.0, "902:3-5_004": 1 / 3,
                       "903:1-4_005": 0.0, "903:5-7_006": 3 / 7}


def test_sample_scores_by_cli():
    code, out, err = run_cli("score", "--task", "qqa23-mrc", "--ref", SAMPLE_REF, SAMPLE_RUN, "--json", "--per-topic")
    assert code == 0, err
    result = json.loads(out)["sample_run01"]
    per_question = {k: v["pap10"] for k, v in result["per_topic"].items()}
    assert per_question == pytest.approx(SAMPLE_PER_QUESTION)
    answerable = [SAMPLE_PER_QUESTION[k] for k in ("901:1-3_001", "901:4-6_002", "902:3-5_004", "903:5-7_006")]
    assert result["all"]["pap10"] == pytest.approx(sum(SAMPLE_PER_QUESTION.values()) / 6)
    assert result["all"]["pap10_answerable"] == pytest.approx(sum(answerable) / 4)
    assert result["all"]["noanswer_acc"] == pytest.approx((1.0 + 0.0) / 2)
    # 002: three answers, two matched (the second محمد finds its text used up), two distinct gold texts.
    assert result["per_topic"]["901:4-6_002"] == {"pap10": 1.0, "answerable": 1.0, "answers": 3.0, "matched": 2.0,
                                                  "gold_texts": 2.0}
    assert result["per_topic"]["903:1-4_005"] == {"pap10": 0.0, "answerable": 0.0, "answers": 1.0, "matched": 0.0,
                                                  "gold_texts": 0.0}


def test_sample_scores_by_score_py(tmp_path):
    ref = tmp_path / "input" / "ref"
    shutil.copytree(SAMPLE_REF, str(ref / "qqa23-mrc"))
    res = tmp_path / "input" / "res"
    res.mkdir()
    shutil.copy(SAMPLE_RUN, str(res))
    (res / "metadata").write_text("exitCode: null\n")
    code, out, err = run_score_py(tmp_path / "input", tmp_path / "output")
    assert code == 0, err
    scores = json.loads((tmp_path / "output" / "scores.json").read_text())
    assert scores["qqa23_mrc_pap10"] == pytest.approx(sum(SAMPLE_PER_QUESTION.values()) / 6, abs=1e-9)
    assert set(scores) == {"qqa23_mrc_pap10", "qqa23_mrc_pap10_answerable", "qqa23_mrc_noanswer_acc"}


def test_two_runs_in_one_submission_are_refused(tmp_path):
    ref = tmp_path / "input" / "ref"
    shutil.copytree(SAMPLE_REF, str(ref / "qqa23-mrc"))
    res = tmp_path / "input" / "res"
    res.mkdir()
    shutil.copy(SAMPLE_RUN, str(res / "sample_run01.json"))
    shutil.copy(SAMPLE_RUN, str(res / "sample_run02.json"))
    code, _, err = run_score_py(tmp_path / "input", tmp_path / "output")
    assert code == 1 and ("sample_run02.json: error: 2 runs of task qqa23-mrc in the submission "
                          "(sample_run01, sample_run02); at most 1 are allowed in a submission (the campaign's "
                          "rule; a submission is one team's)") in err


def test_sniffing_claims_a_misnamed_run():
    with open(SAMPLE_RUN, encoding="utf-8") as handle:
        assert TASK.sniff(handle.read(4096))
    assert TASK.sniff('{"38:41-44_105": []}')
    assert not TASK.sniff('{"qid": "1", "answer": "x"}') and not TASK.sniff("301 Q0 d1 1 2.0 r\n")


def test_dev_gold_as_a_single_file_reference():
    gold = shared_path("data", "qqa23", "QQA23_TaskB_qrcd_v1.2_dev_preprocessed.jsonl")
    run = shared_path("data", "qqa23", "runs", "organizers", "whole_passage_baseline_dev.json")
    for options, expected in (((), 0.254840), (("--option", "segmentation=none"), 0.258066)):
        code, out, err = cli("score", "--task", "qqa23-mrc", "--ref", gold, run, "--json", *options)
        assert code == 0, err
        assert round(json.loads(out)["whole_passage_baseline_dev"]["pap10"], 6) == expected


def test_dev_gold_named_in_task_yaml(tmp_path):
    gold = shared_path("data", "qqa23", "QQA23_TaskB_qrcd_v1.2_dev_preprocessed.jsonl")
    run = shared_path("data", "qqa23", "runs", "gym_mit", "Gym_dev0.json")
    (tmp_path / "task.yaml").write_text("task: qqa23-mrc\ngold: %s\n" % gold)
    code, out, err = cli("score", "--task", "qqa23-mrc", "--ref", tmp_path, run, "--json")
    assert code == 0, err
    assert round(json.loads(out)["Gym_dev0"]["pap10"], 6) == 0.485261


def test_baseline_generator_reproduces_the_organisers_run(tmp_path):
    gold = shared_path("data", "qqa23", "QQA23_TaskB_qrcd_v1.2_dev_preprocessed.jsonl")
    official = shared_path("data", "qqa23", "runs", "organizers", "whole_passage_baseline_dev.json")
    out = tmp_path / "bigIR_wholepass.json"
    proc = subprocess.run([sys.executable, BASELINE, gold, str(out)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    with open(official, "rb") as handle:
        assert out.read_bytes() == handle.read()
    code, text, err = cli("score", "--task", "qqa23-mrc", "--ref", gold, out, "--json")
    assert code == 0 and err == ""                 # valid by construction, not even a warning
    assert round(json.loads(text)["bigIR_wholepass"]["pap10"], 6) == 0.254840


def test_baseline_generator_on_the_sample(tmp_path):
    out = tmp_path / "bigIR_wholepass.json"
    gold = os.path.join(SAMPLE_REF, "qrcd_synthetic_sample_preprocessed.jsonl")
    subprocess.run([sys.executable, BASELINE, gold, str(out)], check=True, capture_output=True)
    run = json.loads(out.read_text(encoding="utf-8"))
    assert run["901:1-3_001"] == [{"answer": read_gold(gold)[0].passage, "strt_token_indx": 0,
                                   "end_token_indx": 21, "rank": 1, "score": 1}]
    assert cli("validate", "--task", "qqa23-mrc", "--ref", SAMPLE_REF, out)[0] == 0


def test_test_split_runs_validate_with_warnings():
    gold = shared_path("data", "qqa23", "test", "QQA23_TaskB_qrcd_v1.2_test_gold_preprocessed.jsonl")
    run = shared_path("data", "qqa23", "test", "Gym_run0_test.json")
    code, out, err = cli("score", "--task", "qqa23-mrc", "--ref", gold, run, "--json")
    assert code == 0, err
    assert "24 pq_id(s) are not in the gold file and are ignored" in err
    assert 0 < json.loads(out)["Gym_run0_test"]["pap10"] < 1


@pytest.mark.parametrize("argv,message", [
    (("--option", "segmentation=farasa"), "option segmentation = 'farasa' is not one of"),
    (("--option", "cutoff=0"), "option cutoff must be at least 1"),
    (("--option", "cutof=5"), "unknown option 'cutof' for task qqa23-mrc (did you mean cutoff?)"),
])
def test_bad_options_are_usage_errors(argv, message):
    code, _, err = cli("score", "--task", "qqa23-mrc", "--ref", SAMPLE_REF, SAMPLE_RUN, *argv)
    assert code == 2 and message in err, err


def test_farasapy_absent_is_a_clear_usage_error():
    import importlib.util

    if importlib.util.find_spec("farasa") is not None:
        pytest.skip("farasapy is installed here")
    code, _, err = cli("score", "--task", "qqa23-mrc", "--ref", SAMPLE_REF, SAMPLE_RUN, "--option",
                           "segmentation=farasapy")
    assert code == 2 and "needs the farasapy package and Java" in err


GOOD = {"pq_id": "1:1-2_1", "passage": "ذهب الطالب إلى البيت .", "answers": [{"text": "الطالب", "start_char": 4}]}


def gold_line(**changes):
    record = dict(GOOD)
    record.update(changes)
    return json.dumps(record, ensure_ascii=False)


@pytest.mark.parametrize("lines,message", [
    ([gold_line(), "{"], "gold.jsonl:2: error: not a JSON object: Expecting property name enclosed in double "
     "quotes (column 2); QRCD files hold one JSON object a line"),
    (["[1]"], "gold.jsonl:1: error: not a JSON object; QRCD files hold one JSON object a line"),
    ([gold_line(passage=None)], "gold.jsonl:1: error: field 'passage' is missing or not a string"),
    ([gold_line(answers={})], "gold.jsonl:1: error: field 'answers' is missing or not a list"),
    ([gold_line(), gold_line()], "gold.jsonl:2: error: duplicate pq_id 1:1-2_1 (first at line 1)"),
    ([gold_line(passage="ذهب الطالب إلى البيت.")], "gold.jsonl:1: error: pq_id 1:1-2_1: a full stop is attached "
     "to a word; this looks like the raw QRCD file, and the scorer needs the preprocessed one (*_preprocessed.jsonl, "
     "each '.' its own token)"),
    ([gold_line(passage="ذهب  الطالب")], "gold.jsonl:1: error: pq_id 1:1-2_1: the passage has leading, trailing or "
     "repeated spaces"),
    ([gold_line(answers=[{"text": "الطالب", "start_char": 5}])], "gold.jsonl:1: error: pq_id 1:1-2_1, answer 1: "
     "the text 'الطالب' is not at start_char 5 of the passage"),
    ([gold_line(answers=[{"text": "الطالب"}])], "gold.jsonl:1: error: pq_id 1:1-2_1, answer 1: needs a non-empty "
     "string 'text' and an integer 'start_char'"),
    ([""], "gold.jsonl: error: the gold file holds no records"),
    # half a UTF-16 surrogate pair in an id: score.py's page and log could not be written (an internal error)
    ([json.dumps(dict(GOOD, pq_id="1:1-2_\udc80"))], "gold.jsonl:1: error: not valid Unicode: a string holds \\udc80, "
     "half of a UTF-16 surrogate pair without its other half; write the character itself (or both halves of its pair)"),
])
def test_bad_gold_files(tmp_path, lines, message):
    path = tmp_path / "gold.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        read_gold(str(path))
    assert str(caught.value).replace(str(tmp_path) + os.sep, "") == message


def test_an_escaped_surrogate_pair_in_the_gold_is_one_character(tmp_path):
    path = tmp_path / "gold.jsonl"
    path.write_text(json.dumps(dict(GOOD, question="\U0001F600?")) + "\n", encoding="utf-8")    # "\ud83d\ude00"
    assert "\\ud83d\\ude00" in path.read_text(encoding="utf-8")
    assert [r.pq_id for r in read_gold(str(path))] == ["1:1-2_1"]


def test_task_yaml_without_gold_is_a_config_error(tmp_path):
    (tmp_path / "task.yaml").write_text("task: qqa23-mrc\n")
    code, _, err = cli("score", "--task", "qqa23-mrc", "--ref", tmp_path, SAMPLE_RUN)
    assert code == 2 and "task.yaml must name the preprocessed QRCD gold file as gold: FILE" in err


def test_columns_and_keys():
    keys = [TASK.leaderboard_key(c) for c in TASK.columns]
    assert keys == ["qqa23_mrc_pap10", "qqa23_mrc_pap10_answerable", "qqa23_mrc_noanswer_acc"]
    assert all(len(k) <= 36 and k.replace("_", "").isalnum() and k == k.lower() for k in keys)
    assert all(len(c.title) <= 36 for c in TASK.columns)


def test_per_question_table_of_the_detailed_report(tmp_path):
    from runscore.pipeline import check_file, load_reference, score_run

    reference = load_reference(TASK, SAMPLE_REF)
    checked = check_file(TASK, SAMPLE_RUN, "sample_run01.json", reference, reference.options)
    table = score_run(reference, checked.runs[0]).tables[0]
    rows = {row[0]: row[1:] for row in table["rows"]}
    # 002: gold texts محمد, علي (distinct, in gold order); وعلي is not segmented by the table, so it stays whole.
    assert rows["901:4-6_002"] == ["محمد | علي", "محمد | وعلي | محمد", "1 1 0", "scored", "1.000000"]
    assert rows["903:1-4_005"] == ["(zero-answer)", "(none)", "", "answered a zero-answer question", "0.000000"]
    assert rows["902:3-5_004"][1:] == ["اجتهد نجح كسل خسر | اجتهدوا دروسكم", "0.6667 0", "scored", "0.333333"]


def score_sample_variant(tmp_path, change):
    """Score the sample run after `change(run)`; returns (diagnostic lines, RunScores)."""
    from runscore.pipeline import check_file, load_reference, score_run

    with open(SAMPLE_RUN, encoding="utf-8") as handle:
        run = json.load(handle)
    change(run)
    path = tmp_path / "sample_run02.json"
    path.write_text(json.dumps(run, ensure_ascii=False), encoding="utf-8")
    reference = load_reference(TASK, SAMPLE_REF)
    checked = check_file(TASK, str(path), "sample_run02.json", reference, reference.options)
    assert not checked.diags.has_errors, checked.diags.lines()
    return checked.diags.lines(), score_run(reference, checked.runs[0])


def test_extra_pq_id_is_ignored(tmp_path):
    lines, scores = score_sample_variant(tmp_path, lambda run: run.update({"999:1-2_001": []}))
    assert scores.per_topic["901:1-3_001"]["pap10"] == 1.0 and "999:1-2_001" not in scores.per_topic
    assert scores.measures["pap10"] == pytest.approx(sum(SAMPLE_PER_QUESTION.values()) / 6)
    assert any("are not in the gold file and are ignored: 999:1-2_001" in line for line in lines)


def test_missing_and_all_dropped_questions_score_zero_with_notes(tmp_path):
    def change(run):
        del run["901:1-3_001"]                                   # was 1.0
        run["903:5-7_006"] = [{"answer": "على", "rank": 1, "score": 1.0, "strt_token_indx": 19,
                               "end_token_indx": 19}]            # a stop word only; was 3/7
    lines, scores = score_sample_variant(tmp_path, change)
    expected = dict(SAMPLE_PER_QUESTION, **{"901:1-3_001": 0.0, "903:5-7_006": 0.0})
    assert scores.measures["pap10"] == pytest.approx(sum(expected.values()) / 6)
    assert scores.notes[:2] == ["sample_run02: 1 pq_id(s) missing from the run, scored 0 (901:1-3_001)",
                                "sample_run02: 1 pq_id(s) every prediction dropped, scored 0 (903:5-7_006)"]
    assert any("every answer is dropped by the scorer" in line for line in lines)


def test_half_a_surrogate_pair_is_the_participants_error_not_a_crash(tmp_path):
    """`"\\ud800"` is valid JSON, and json.loads keeps the lone half, which no UTF-8 page can hold: the sample
    phase's page (it shows the answers) failed to be written, an internal error (exit 2). It is refused at its
    line; an escaped pair (one character) is text like any other."""
    text = open(SAMPLE_RUN, encoding="utf-8").read()
    at = text.index('"answer": "') + len('"answer": "')
    line = text.count("\n", 0, at) + 1
    (tmp_path / "input" / "res").mkdir(parents=True)
    shutil.copytree(SAMPLE_REF, str(tmp_path / "input" / "ref"))
    (tmp_path / "input" / "res" / "team_run01.json").write_text(text[:at] + "\\ud800" + text[at:], encoding="utf-8")
    code, out, err = run_score_py(tmp_path / "input", tmp_path / "output")
    assert code == 1, err
    assert "team_run01.json:%d: error: not valid Unicode: a string holds \\ud800" % line in err
    (tmp_path / "input" / "res" / "team_run01.json").write_text(text[:at] + "\\ud83d\\ude00" + text[at:],
                                                                encoding="utf-8")
    code, out, err = run_score_py(tmp_path / "input", tmp_path / "output2")
    assert code == 0, err
