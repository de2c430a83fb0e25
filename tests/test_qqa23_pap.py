"""qqa23-mrc pAP@10: the official numbers on QRCD dev/train (shared/data/qqa23, skipped when absent), every
per-question value of the expected files, the spec's worked checks, and hand-derived cases on synthetic text."""
import json
import os

import pytest

from conftest import ROOT, shared_path
from runscore.tasks.qqa23.gold import read_gold
from runscore.tasks.qqa23.pap import (ALL_DROPPED, MISSING, PositionMap, Span, char_to_token,
                                      partial_average_precision, score_record, token_f1)
from runscore.tasks.qqa23.segment import get_segmenter, load_table
from runscore.tasks.qqa23.text import answer_text, normalise, strip_clitics

TABLE = get_segmenter("prefix_table")
IDENTITY = get_segmenter("none")
SAMPLE_GOLD = os.path.join(ROOT, "reference_data", "qqa23-mrc", "qrcd_synthetic_sample_preprocessed.jsonl")


def qqa(*parts):
    return shared_path("data", "qqa23", *parts)


def mean_pap(gold_path, run, segment):
    """Per-question pAP and their mean over every gold record, as the official script loops."""
    values = {r.pq_id: score_record(r.passage, r.answers, run.get(r.pq_id), segment).pap
              for r in read_gold(gold_path)}
    return sum(values.values()) / len(values), values


def load(path):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def gold_order_run(gold_path):
    """The "perfect" run of the spec: every gold span as an answer, in gold order."""
    run = {}
    for record in read_gold(gold_path):
        token_of = char_to_token(record.passage)
        run[record.pq_id] = [{"answer": a["text"], "rank": k, "score": 1.0 / k,
                              "strt_token_indx": token_of[a["start_char"]],
                              "end_token_indx": token_of[a["start_char"] + len(a["text"]) - 1]}
                             for k, a in enumerate(record.answers, 1)]
    return run


DEV_NUMBERS = [  # spec section 6: (run, with the prefix table, identity segmentation)
    ("runs/organizers/whole_passage_baseline_dev.json", 0.254840, 0.258066),
    ("runs/gym_mit/Gym_dev0.json", 0.485261, 0.485758),
    ("runs/gym_mit/Gym_dev1.json", 0.436617, 0.435844),
    ("runs/gym_mit/Gym_dev_ensemble.json", 0.480986, 0.480479),
]


@pytest.mark.parametrize("run_file,with_table,identity", DEV_NUMBERS)
def test_dev_runs_match_the_official_scorer(run_file, with_table, identity):
    gold = qqa("QQA23_TaskB_qrcd_v1.2_dev_preprocessed.jsonl")
    run = load(qqa(run_file))
    assert round(mean_pap(gold, run, TABLE)[0], 6) == with_table
    assert round(mean_pap(gold, run, IDENTITY)[0], 6) == identity


def test_gold_run_does_not_reach_one():
    """Quirk 6: each distinct gold text is credited once, so gold spans in gold order give 0.997853."""
    gold = qqa("QQA23_TaskB_qrcd_v1.2_dev_preprocessed.jsonl")
    run = gold_order_run(gold)
    assert round(mean_pap(gold, run, TABLE)[0], 6) == 0.997853
    assert round(mean_pap(gold, run, IDENTITY)[0], 6) == 0.997853


def test_whole_passage_on_train():
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "qqa23_whole_passage", os.path.join(ROOT, "starting_kit", "baselines", "qqa23_whole_passage.py"))
    baseline = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(baseline)
    gold = qqa("QQA23_TaskB_qrcd_v1.2_train_preprocessed.jsonl")
    run = baseline.whole_passage_run(baseline.read_jsonl(gold))
    assert round(mean_pap(gold, run, TABLE)[0], 6) == 0.216222
    assert round(mean_pap(gold, run, IDENTITY)[0], 6) == 0.217221


@pytest.mark.parametrize("run_file,expected_file", [
    ("runs/organizers/whole_passage_baseline_dev.json", "perq_whole_passage_dev.json"),
    ("runs/gym_mit/Gym_dev0.json", "perq_Gym_dev0.json"),
])
def test_every_per_question_value(run_file, expected_file):
    gold = qqa("QQA23_TaskB_qrcd_v1.2_dev_preprocessed.jsonl")
    _, values = mean_pap(gold, load(qqa(run_file)), TABLE)
    expected = load(qqa("expected", expected_file))
    assert list(values) == list(expected)           # every dev record, in gold-file order
    mismatches = {k: (values[k], v) for k, v in expected.items() if abs(values[k] - v) > 1e-6}
    assert mismatches == {}


def test_shipped_table_holds_the_facts_of_the_reference_table():
    reference = load(qqa("farasa_prefix_table.json"))["map"]
    assert load_table() == reference


# ---------------------------------------------------------------------------------- spec 4.4 worked checks ---
WORKED_ID = "2:97-101_241"


def worked_record():
    for record in read_gold(qqa("QQA23_TaskB_qrcd_v1.2_dev_preprocessed.jsonl")):
        if record.pq_id == WORKED_ID:
            return record
    raise AssertionError("dev record %s not found" % WORKED_ID)


def answers_at(record, indices, ranks=None):
    tokens = record.tokens
    return [{"answer": tokens[i], "rank": (ranks or list(range(1, len(indices) + 1)))[k], "score": 1.0,
             "strt_token_indx": i, "end_token_indx": i} for k, i in enumerate(indices)]


@pytest.mark.parametrize("indices,ranks,expected", [
    ([4, 26], None, 1.0),
    ([4, 26], [2, 1], 1.0),                                  # rank fields are never read
    ([0, 4, 26], None, (1 / 2 + 2 / 3) / 2),                 # miss at rank 1
    ([0, 0, 4, 26], None, (1 / 2 + 2 / 3) / 2),              # a repeated miss is dropped (quirk 4)
    ([4, 25, 26], None, (1 / 1 + 2 / 3) / 2),                # second جبريل scores 0 and pushes ميكال to rank 3
])
def test_worked_checks(indices, ranks, expected):
    record = worked_record()
    assert (record.tokens[4], record.tokens[25], record.tokens[26]) == ("لجبريل", "وجبريل", "وميكال")
    result = score_record(record.passage, record.answers, answers_at(record, indices, ranks), TABLE)
    assert result.pap == pytest.approx(expected, abs=1e-12)


def test_worked_check_whole_passage():
    record = worked_record()
    whole = [{"answer": record.passage, "rank": 1, "score": 1, "strt_token_indx": 0,
              "end_token_indx": len(record.tokens) - 1}]
    assert round(score_record(record.passage, record.answers, whole, TABLE).pap, 6) == 0.029412


def test_worked_check_only_a_stop_word_is_zero_not_a_crash():
    record = worked_record()
    assert record.tokens[1] == "من"
    result = score_record(record.passage, record.answers, answers_at(record, [1]), TABLE)
    assert (result.pap, result.outcome) == (0.0, ALL_DROPPED)


# -------------------------------------------------------------------------- hand-derived, synthetic text ---
def sample_records():
    return {r.pq_id: r for r in read_gold(SAMPLE_GOLD)}


def ans(text, start, end):
    return {"answer": text, "rank": 1, "score": 1.0, "strt_token_indx": start, "end_token_indx": end}


def test_stop_words_and_full_stops_shift_positions():
    # 902:3-5_004: removed tokens 4 في, 6 ".", 7 فمن (ف+من), 10 ومن, 13 ".", 17 إلى, 19 ".".
    record = sample_records()["902:3-5_004"]
    positions = PositionMap(record.passage, TABLE)
    assert [positions.removed_up_to(x) for x in (3, 4, 7, 12, 18)] == [0, 1, 3, 4, 6]
    assert positions.start(7) == 7 - 3 + 1          # a start on a removed token moves to the next kept one
    assert positions.end(9) == 9 - 3
    assert positions.start(19) == 19 - 7            # quirk 7: not on the passage's last token
    assert PositionMap(record.passage, IDENTITY).start(7) == 7 - 2   # فمن is kept without segmentation


def test_partial_span_credit():
    # gold "فمن اجتهد نجح" -> [5, 6]; prediction tokens 7..12 -> [5, 8]: F1 = 2*(2/4)*(2/2)/(2/4+1) = 2/3 at
    # rank 1; the second prediction [3, 4] misses; two distinct gold texts: pAP = (2/3)/1 / 2.
    record = sample_records()["902:3-5_004"]
    run = [ans("فمن اجتهد نجح ومن كسل خسر", 7, 12), ans("اجتهدوا في دروسكم", 3, 5)]
    assert score_record(record.passage, record.answers, run, TABLE).pap == pytest.approx((2 / 3) / 2)


def test_miss_then_hit():
    # gold tokens 16..20 -> [11, 14]; a miss at rank 1, then tokens 16..18 -> [11, 13]: F1 = 2*1*(3/4)/(7/4) = 6/7
    # at rank 2: pAP = (6/7)/2 / 1.
    record = sample_records()["903:5-7_006"]
    run = [ans("فأثمر النخل تمرا كثيرا", 11, 14), ans("فشكر الفلاح ربه", 16, 18)]
    assert score_record(record.passage, record.answers, run, TABLE).pap == pytest.approx(3 / 7)


def test_repeated_gold_text_is_credited_once():
    # golds محمد, علي (inside the token وعلي), محمد: two distinct texts; ranks 1 and 2 hit, rank 3 (the second
    # محمد) finds its text used up: pAP = (1/1 + 2/2) / 2.
    record = sample_records()["901:4-6_002"]
    run = [ans("محمد", 1, 1), ans("وعلي", 2, 2), ans("محمد", 9, 9)]
    result = score_record(record.passage, record.answers, run, TABLE)
    assert (result.pap, result.matches) == (1.0, (1.0, 1.0, 0.0))


def test_a_prediction_covering_two_golds_is_split():
    # Ten one-letter tokens, none removed. Golds ب ت = [1, 2] and ح خ = [5, 6]; one prediction [1, 6]. Split:
    # between = [3, 4], middle = 3 + 2 // 2 = 4, parts [1, 3] and [4, 6] at ranks 1 + 1/3 and 1 + 2/3;
    # each part: F1 = 2*(2/3)*1/(2/3+1) = 0.8. pAP = (0.8/1 + 1.6/2) / 2 = 0.8 (unsplit it would be 0.5/2).
    passage = "ا ب ت ث ج ح خ د ذ ر"
    gold = [{"text": "ب ت", "start_char": passage.index("ب")}, {"text": "ح خ", "start_char": passage.index("ح")}]
    run = [ans("ب ت ث ج ح خ", 1, 6), ans("ذ", 8, 8)]
    result = score_record(passage, gold, run, IDENTITY)
    assert result.matches == pytest.approx((0.8, 0.8, 0.0))
    assert result.pap == pytest.approx(0.8)


def test_cutoff_counts_survivors_only():
    # Ten answers that normalise to nothing (the stop word في) come first; the 11th still counts (quirk 2).
    record = sample_records()["901:1-3_001"]
    run = [ans("في", 4, 4)] * 10 + [ans("الكتاب", 8, 8)]
    assert score_record(record.passage, record.answers, run, TABLE).pap == 1.0
    assert score_record(record.passage, record.answers, run, TABLE, cutoff=0).outcome == ALL_DROPPED


@pytest.mark.parametrize("gold_answers,predictions,expected", [
    ([], [], 1.0),                       # zero-answer question, abstained
    ([], [ans("الكتاب", 8, 8)], 0.0),     # zero-answer question, answered
    (None, [], 0.0),                     # answerable question, abstained
])
def test_zero_answer_cases(gold_answers, predictions, expected):
    record = sample_records()["901:1-3_001"]
    gold = record.answers if gold_answers is None else gold_answers
    assert score_record(record.passage, gold, predictions, TABLE).pap == expected


def test_missing_question_scores_zero():
    record = sample_records()["901:1-3_001"]
    result = score_record(record.passage, record.answers, None, TABLE)
    assert (result.pap, result.outcome) == (0.0, MISSING)


def test_text_helpers():
    assert strip_clitics("ومن الكتاب", TABLE) == "من الكتاب"      # only table tokens are segmented
    assert strip_clitics("ومن", IDENTITY) == "ومن"
    assert normalise("ذهب، إلى البيت . في") == "ذهب البيت"
    assert answer_text("الناصية", TABLE) == "ناصية" and answer_text("بالناصية", TABLE) == "بالناصية"
    assert token_f1(Span(0, 3), Span(2, 5)) == pytest.approx(0.5)    # c = 2, p = r = 2/4
    assert token_f1(Span(3, 2), Span(0, 5)) == 0.0                    # an empty span matches nothing
    assert partial_average_precision([0, 0.5, 1], 2) == pytest.approx((0.5 / 2 + 1.5 / 3) / 2)
    assert char_to_token("اب ت") == [0, 0, 0, 1, 1]
