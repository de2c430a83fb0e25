"""Every place that shows scores says the rules they were made with, in a line a reader
understands (Task.rules_sentence), from the options in force and the task's declared presets, never a task id:
`runscore score`'s summary, score.py's detailed page and log (tests/test_detailed_html.py), the competition's task
page; the same line for two hidden references with the same options (options are not secret)."""
import os

from conftest import ROOT, run_cli
from runscore.codabench.pages import task_page
from runscore.tasks import get_task
from runscore.tasks.base import Option, Task

NTCIR1 = get_task("ntcir1-adhoc")
REF = os.path.join(ROOT, "reference_data", "ntcir1-adhoc")
RUN = os.path.join(ROOT, "starting_kit", "sample_submission", "ntcir1-adhoc", "ntc1")


def test_score_says_ntcir1s_1999_rules_by_default_and_trec_eval_908s_when_set():
    code, out, err = run_cli("score", "--task", "ntcir1-adhoc", "--ref", REF, RUN)
    assert code == 0, err
    assert ("rules: NTCIR-1's (1999) (ties by docno descending, scores as written (doubles), interpolation as "
            "trec_eval 7.2, at most 1000 documents a topic, topics without relevant documents count 0, a repeated "
            "line refused)") in out.splitlines()
    code, out, err = run_cli("score", "--task", "ntcir1-adhoc", "--ref", REF, RUN, "--option", "interp_cutoff=v9",
                             "--option", "similarity_precision=single")
    assert code == 0, err
    assert "rules: trec_eval 9.0.8 (ties by docno descending, scores as C floats, interpolation as trec_eval 9 " \
           "and 10, at most 1000 documents a topic" in out


def test_options_off_every_preset_are_said_as_the_tasks_options():
    line = NTCIR1.rules_sentence({"max_docs": 50, "interp_cutoff": "v10"})
    assert line.startswith("rules: the task's options (") and "at most 50 documents a topic" in line
    assert "interpolation as trec_eval 10.0" in line


def test_an_option_without_words_is_said_as_name_value_and_a_task_without_options_says_nothing():
    class Plain(Task):
        options = (Option("cutoff", 10, "a cutoff"), Option("strict", False, "strict or not"))
    assert Plain().rules_sentence({"strict": True}) == "rules: the task's options (cutoff=10, strict=true)"
    assert Task().rules_sentence({}) == ""


def test_the_competitions_task_page_says_the_default_rules():
    assert "With the defaults: rules: NTCIR-1's (1999) (ties by docno descending" in task_page(NTCIR1, None)


def test_a_trec_ranking_form_says_trec_eval_908s_rules(tmp_path):
    from runscore.tasks.forms import load_form, template
    form = tmp_path / "form.yaml"
    form.write_text(template("trec-ranking", "my-task"), encoding="utf-8")
    task = load_form(str(form))
    assert task.rules_sentence({}).startswith("rules: trec_eval 9.0.8 (interpolation as trec_eval 9 and 10, ")
    assert task.rules_sentence({"score_precision": "double"}).startswith("rules: the task's options (")
