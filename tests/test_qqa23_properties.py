"""qqa23-mrc on random inputs: any JSON document gives diagnostics, never an exception; any run that passes
the checker scores in [0, 1] per question, and abstaining everywhere scores exactly the zero-answer share."""
import json
import os

from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import ROOT
from runscore.pipeline import check_file, load_reference, score_run
from runscore.tasks.qqa23.gold import read_gold
from runscore.tasks.qqa23.pap import score_record
from runscore.tasks.qqa23.segment import get_segmenter
from runscore.tasks import get_task
from runscore.tasks.base import ParsedRun

TASK = get_task("qqa23-mrc")
SAMPLE_REF = os.path.join(ROOT, "reference_data", "qqa23-mrc")
REFERENCE = load_reference(TASK, SAMPLE_REF)
RECORDS = read_gold(os.path.join(SAMPLE_REF, "qrcd_synthetic_sample_preprocessed.jsonl"))
TABLE = get_segmenter("prefix_table")
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 40), st.floats(allow_nan=True),
                    st.text(alphabet="اب ت.من", max_size=8))
json_values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(
        ["answer", "rank", "score", "strt_token_indx", "end_token_indx", RECORDS[0].pq_id, "x"]), inner,
        max_size=5)), max_leaves=20)


@SETTINGS
@given(json_values)
def test_any_json_gives_diagnostics_not_exceptions(tmp_path, value):
    path = tmp_path / "bigIR_run01.json"
    path.write_text(json.dumps(value), encoding="utf-8")
    checked = check_file(TASK, str(path), "bigIR_run01.json", REFERENCE, REFERENCE.options)
    if not checked.diags.has_errors:
        for run in checked.runs:
            scores = score_run(REFERENCE, run)
            assert 0.0 <= scores.measures["pap10"] <= 1.0


def answers_for(record, draw_spans):
    """Answers whose text is the passage tokens they point at (so they pass the checker), best first."""
    tokens = record.tokens
    answers = []
    for k, (start, length) in enumerate(draw_spans, 1):
        start = min(start, len(tokens) - 1)
        end = min(start + length, len(tokens) - 1)
        answers.append({"answer": " ".join(tokens[start:end + 1]), "rank": k, "score": 1.0 / k,
                        "strt_token_indx": start, "end_token_indx": end})
    return answers


@SETTINGS
@given(st.integers(0, len(RECORDS) - 1), st.lists(st.tuples(st.integers(0, 25), st.integers(0, 6)), max_size=14))
def test_pap_of_a_question_is_between_zero_and_one(index, spans):
    record = RECORDS[index]
    result = score_record(record.passage, record.answers, answers_for(record, spans), TABLE)
    assert 0.0 <= result.pap <= 1.0
    assert all(0.0 <= m <= 1.0 for m in result.matches)


def test_abstaining_everywhere_scores_the_zero_answer_share():
    run = ParsedRun("bigIR_abstain", "bigIR_abstain.json", {r.pq_id: [] for r in RECORDS})
    scores = score_run(REFERENCE, run)
    zero_answer = sum(1 for r in RECORDS if not r.answers)
    assert scores.measures["pap10"] == zero_answer / len(RECORDS)
    assert (scores.measures["noanswer_acc"], scores.measures["pap10_answerable"]) == (1.0, 0.0)
