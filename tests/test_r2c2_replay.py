"""Replayed labels apply only to the text they judged: r2c2-ac answers, confidences and nugget
lines, r2c2-pr passages in passage_key_mode run_rank. The attacks that once earned labels, the options, the messages (never a
reference path or the assessed text), and the property: a run renamed to an assessed run's name never earns that
run's labels, for every task."""
import json
import os
import re
import shutil

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import ROOT, codabench_input, run_score_py
from runscore.errors import ConfigError
from runscore.pipeline import check_file, load_reference, score_run
from runscore.tasks import all_tasks, get_task
from runscore.tasks.r2c2.ac_format import parse_ac_run
from runscore.errors import Diagnostics
from runscore.tasks.r2c2.pr_format import key_text, parse_pr_run, run_rank_key

AC = get_task("r2c2-ac")
PR = get_task("r2c2-pr")
SAMPLE_AC = os.path.join(ROOT, "starting_kit", "sample_submission", "r2c2-ac")
REF_AC = os.path.join(ROOT, "reference_data", "r2c2-ac")
HIDDEN_TEXT = ["Mira Okonkwo", "nineteen eighty-seven", "Biscuit", "Salt Harbour"]   # in the assessed run


def _read(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def _submission(tmp_path, text, name="SAMPLE-AC-1"):
    folder = tmp_path / "sub"
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")
    shutil.copyfile(os.path.join(SAMPLE_AC, "SAMPLE-PG-1.txt"), str(folder / "SAMPLE-PG-1.txt"))
    return str(folder / name)


def _check(path, **options):
    reference = load_reference(AC, REF_AC, options)
    checked = check_file(AC, path, os.path.basename(path), reference, reference.options)
    return reference, checked


def _score(path, **options):
    reference, checked = _check(path, **options)
    assert not checked.diags.has_errors, checked.diags.lines()
    return score_run(reference, checked.runs[0]), checked


MADE_UP = "<D0001>no idea at all;100\n</D0001>\n<D0002>banana;100\n</D0002>\n<D0003>zzz;100\n</D0003>\n"


def test_the_assessed_sample_still_gets_its_labels(tmp_path):
    scores, checked = _score(_submission(tmp_path, _read(os.path.join(SAMPLE_AC, "SAMPLE-AC-1"))))
    trusted, _ = _score(_submission(tmp_path, _read(os.path.join(SAMPLE_AC, "SAMPLE-AC-1"))),
                        unchecked_labels="trust")
    assert scores.measures == trusted.measures and scores.measures["n_changed_parts"] == 0.0
    assert scores.measures["accuracy"] == 3 / 4    # the answer labels: 0001, 0002, 0004 correct, 0003 wrong


def test_the_shipped_assessed_copy_is_the_sample_run():
    assert _read(os.path.join(REF_AC, "assessed_runs", "SAMPLE-AC-1")) == _read(os.path.join(SAMPLE_AC,
                                                                                           "SAMPLE-AC-1"))


def test_made_up_answers_under_the_assessed_name_are_refused_per_line(tmp_path):
    _, checked = _check(_submission(tmp_path, MADE_UP))
    errors = [str(d) for d in checked.diags.sorted_items() if d.severity == "error"]
    # an error on each changed answer line, and for 0001 and 0002 the nugget lines of the assessed run left out
    assert sorted({e.split(": error: ")[0] for e in errors[1:]}) == ["SAMPLE-AC-1:1", "SAMPLE-AC-1:3",
                                                                      "SAMPLE-AC-1:5"]
    assert ("SAMPLE-AC-1:1: error: question 0001: 3 nugget line(s) of run SAMPLE-AC-1 as it was assessed are "
            "missing here; a replay leaderboard scores only the runs as they were assessed (docs/r2c2-ac.md)") in errors
    assert errors[0] == ("SAMPLE-AC-1: error: 1 question(s) answered in run SAMPLE-AC-1 as it was assessed are "
                         "not answered here; a replay leaderboard scores only the runs as they were assessed "
                         "(docs/r2c2-ac.md)")
    assert any("question 0002: the answer or its Confidence differs from run SAMPLE-AC-1 as it was assessed" in e
               for e in errors)


def test_made_up_answers_earn_nothing_with_changed_parts_unjudged(tmp_path):
    scores, checked = _score(_submission(tmp_path, MADE_UP), changed_parts="unjudged")
    assert scores.measures["accuracy"] == 0.0 and scores.measures["mnp"] == 0.0
    assert scores.measures["hmr"] == 0.0            # all wrong at confidence 100: R_O = 0
    # 3 changed answers + the 3 and 1 nugget lines of 0001 and 0002 left out (they stay in the denominators)
    assert scores.measures["n_changed_parts"] == 3.0 + 3 + 1
    assert scores.per_topic["0001"]["n_nuggets"] == 3.0
    assert all(scores.per_topic[q].get("correct") == 0.0 for q in ("0001", "0002", "0003"))


def test_a_single_empty_block_is_refused(tmp_path):
    _, checked = _check(_submission(tmp_path, "<D0001></D0001>\n"))
    assert checked.diags.has_errors
    assert any("question(s) answered in run SAMPLE-AC-1 as it was assessed are not answered here" in str(d)
               for d in checked.diags.items)


def test_a_changed_confidence_is_a_changed_part(tmp_path):
    text = _read(os.path.join(SAMPLE_AC, "SAMPLE-AC-1")).replace("I don't know;5", "I don't know;0")
    scores, checked = _score(_submission(tmp_path, text), changed_parts="unjudged")
    assert scores.measures["n_changed_parts"] == 1.0
    assert any(":14: warning: question 0003: the answer or its Confidence differs" in str(d) or
               "question 0003: the answer or its Confidence differs" in str(d) for d in checked.diags.items)


def test_a_changed_nugget_text_loses_its_label_only(tmp_path):
    clean, _ = _score(_submission(tmp_path, _read(os.path.join(SAMPLE_AC, "SAMPLE-AC-1"))))
    text = _read(os.path.join(SAMPLE_AC, "SAMPLE-AC-1")).replace("The Salt Harbour was directed by Mira Okonkwo.",
                                                                 "Anything at all.")
    scores, checked = _score(_submission(tmp_path, text), changed_parts="unjudged")
    assert scores.measures["n_changed_parts"] == 1.0
    assert scores.per_topic["0001"]["correct"] == 1.0            # the answer is unchanged
    assert scores.per_topic["0001"]["n_relevant"] == clean.per_topic["0001"]["n_relevant"] - 1
    warning = [str(d) for d in checked.diags.items if "differs" in str(d)]
    assert warning == ["SAMPLE-AC-1:2: warning: question 0001: nugget line 1;ALPHA-PO-1;1 differs from run "
                       "SAMPLE-AC-1 as it was assessed (its NuggetNum, cited passage or text), so its label does "
                       "not apply; counted as not entailed"]


def test_score_py_messages_show_no_reference_path_or_hidden_text(tmp_path):
    input_dir = codabench_input(tmp_path, "r2c2-ac", {"SAMPLE-AC-1": MADE_UP + "<D0004>x;1\n9;ALPHA-PO-1;1;y\n"
                                                                             "</D0004>\n"})
    code, out, err = run_score_py(input_dir, tmp_path / "output")
    assert code == 1
    for text in (out, err):
        assert "reference_data" not in text and "/ref/" not in text and ".tsv" not in text
        assert not any(hidden in text for hidden in HIDDEN_TEXT)


def test_labels_without_assessed_runs_are_a_reference_error(tmp_path):
    ref = tmp_path / "ref"
    shutil.copytree(REF_AC, str(ref))
    text = _read(str(ref / "task.yaml"))
    (ref / "task.yaml").write_text(re.sub(r"(?m)^assessed_runs:.*\n", "", text), encoding="utf-8")
    with pytest.raises(ConfigError, match="add assessed_runs"):
        load_reference(AC, str(ref))
    assert load_reference(AC, str(ref), {"unchecked_labels": "trust"}).data.assessed is None


def test_an_invalid_assessed_run_is_a_reference_error(tmp_path):
    ref = tmp_path / "ref"
    shutil.copytree(REF_AC, str(ref))
    (ref / "assessed_runs" / "SAMPLE-AC-1").write_text("<D0001>a;900\n</D0001>\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="assessed run is invalid"):
        load_reference(AC, str(ref))


# ------------------------------------------------------------------------------------- r2c2-pr run_rank ---

PR_SAMPLE = os.path.join(ROOT, "starting_kit", "sample_submission", "r2c2-pr", "SAMPLE-PO-1.txt")


def _pr_reference(tmp_path, relevant, options):
    """run_rank qrels: every (SAMPLE-PO-1, rank) in `relevant` judged L1; the sample is the assessed run."""
    run = parse_pr_run(PR_SAMPLE, "SAMPLE-PO-1.txt", Diagnostics("x"))
    ref = tmp_path / "ref"
    (ref / "assessed").mkdir(parents=True)
    shutil.copyfile(PR_SAMPLE, str(ref / "assessed" / "SAMPLE-PO-1.txt"))
    lines = ["%s\t%s\tL1\n" % (qid, key_text(run_rank_key(qid, "SAMPLE-PO-1", rank))) for qid, rank in relevant]
    (ref / "qrels.tsv").write_text("".join(lines), encoding="utf-8")
    (ref / "task.yaml").write_text("task: r2c2-pr\nqrels: qrels.tsv\nassessed_runs: assessed\noptions:\n"
                                   "  passage_key_mode: run_rank\n" + "".join("  %s: %s\n" % kv
                                                                               for kv in options.items()),
                                   encoding="utf-8")
    return load_reference(PR, str(ref)), run


def _pr_lines():
    return _read(PR_SAMPLE).splitlines(True)


@settings(max_examples=25, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(changes=st.lists(st.booleans(), min_size=len(_pr_lines()), max_size=len(_pr_lines())))
def test_property_pr_run_rank_labels_only_where_the_passage_is_as_assessed(tmp_path_factory, changes):
    tmp_path = tmp_path_factory.mktemp("pr")
    run = parse_pr_run(PR_SAMPLE, "SAMPLE-PO-1.txt", Diagnostics("x"))
    relevant = [(qid, rank) for qid in run.topics for rank, _ in run.passages(qid)]
    reference, _ = _pr_reference(tmp_path, relevant, {"changed_parts": "unjudged"})
    lines = [line if not changed else line.rstrip("\n") + " (changed)\n" for line, changed in zip(_pr_lines(),
                                                                                                 changes)]
    path = tmp_path / "SAMPLE-PO-1.txt"
    path.write_text("".join(lines), encoding="utf-8")
    checked = check_file(PR, str(path), "SAMPLE-PO-1.txt", reference, reference.options)
    assert not checked.diags.has_errors
    scores = score_run(reference, checked.runs[0])
    kept = {}
    for line, changed in zip(_pr_lines(), changes):
        if not changed:
            kept[line.split(";")[0]] = kept.get(line.split(";")[0], 0) + 1
    for qid, values in scores.per_topic.items():
        assert values["p20"] * 20 == pytest.approx(kept.get(qid, 0))
    default, _ = _pr_reference(tmp_path_factory.mktemp("pr"), relevant, {})
    strict = check_file(PR, str(path), "SAMPLE-PO-1.txt", default, default.options)
    assert strict.diags.error_count == sum(changes)


def test_pr_run_rank_without_assessed_runs_is_a_reference_error(tmp_path):
    ref = tmp_path / "ref"
    ref.mkdir()
    (ref / "qrels.tsv").write_text("0001\tSAMPLE-PO-1::1\tL1\n", encoding="utf-8")
    (ref / "task.yaml").write_text("task: r2c2-pr\nqrels: qrels.tsv\noptions:\n  passage_key_mode: run_rank\n",
                                   encoding="utf-8")
    with pytest.raises(ConfigError, match="add assessed_runs"):
        load_reference(PR, str(ref))


# ------------------------------------------------------------------------------ r2c2-ac property ---

def _blocks():
    return parse_ac_run(os.path.join(SAMPLE_AC, "SAMPLE-AC-1"), "SAMPLE-AC-1", Diagnostics("x")).blocks


def _render(blocks, answer_changes, nugget_changes):
    out = []
    k = 0
    for i, (qid, block) in enumerate(blocks.items()):
        if not block.answered:
            out.append("<D%s></D%s>\n" % (qid, qid))
            continue
        answer, confidence = block.answer, block.confidence
        if answer_changes[i] == 1:
            answer = answer + " (changed)"
        elif answer_changes[i] == 2:
            confidence = 100 - confidence
        out.append("<D%s>%s;%g\n" % (qid, answer, confidence))
        for nugget in block.nuggets:
            text = nugget.text + (" (changed)" if nugget_changes[k] else "")
            k += 1
            out.append("%d;%s;%d;%s\n" % (nugget.number, nugget.pr_run, nugget.rank, text))
        out.append("</D%s>\n" % qid)
    return "".join(out)


N_BLOCKS = len(_blocks())
N_NUGGETS = sum(len(b.nuggets) for b in _blocks().values())


@settings(max_examples=30, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(answer_changes=st.lists(st.integers(0, 2), min_size=N_BLOCKS, max_size=N_BLOCKS),
       nugget_changes=st.lists(st.booleans(), min_size=N_NUGGETS, max_size=N_NUGGETS))
def test_property_ac_labels_only_where_the_part_is_as_assessed(tmp_path_factory, answer_changes, nugget_changes):
    """Named as the assessed run, a variant earns `correct` only on unchanged answers and relevant nuggets only on
    unchanged lines; by default every changed part is an error on its line."""
    tmp_path = tmp_path_factory.mktemp("ac")
    blocks = _blocks()
    clean, _ = _score(_submission(tmp_path, _render(blocks, [0] * N_BLOCKS, [False] * N_NUGGETS)))
    path = _submission(tmp_path, _render(blocks, answer_changes, nugget_changes))
    scores, _ = _score(path, changed_parts="unjudged")
    k = 0
    for i, (qid, block) in enumerate(blocks.items()):
        n = len(block.nuggets)
        if block.answered and qid in scores.per_topic:
            if answer_changes[i]:
                assert scores.per_topic[qid]["correct"] == 0.0 and scores.per_topic[qid]["n_relevant"] == 0.0
            else:
                assert scores.per_topic[qid]["correct"] == clean.per_topic[qid]["correct"]
                assert scores.per_topic[qid]["n_relevant"] <= clean.per_topic[qid]["n_relevant"]
                if not any(nugget_changes[k:k + n]):
                    assert scores.per_topic[qid]["n_relevant"] == clean.per_topic[qid]["n_relevant"]
        k += n
    changed = sum(1 for i, (q, b) in enumerate(blocks.items()) if b.answered and answer_changes[i]) + \
        sum(nugget_changes)
    assert scores.measures["n_changed_parts"] == changed
    _, strict = _check(path)
    assert strict.diags.error_count == changed


# ------------------------------------------------------------------------------ every task ---

def _renamed(name):
    """Another name of the same form: the last digit bumped, or a suffix."""
    match = re.search(r"[0-9](?=[^0-9]*$)", name)
    if match:
        digit = "2" if match.group(0) == "1" else "1"
        return name[:match.start()] + digit + name[match.end():]
    return name + "x"


@pytest.mark.parametrize("task", [t for t in all_tasks()
                                  if os.path.isdir(os.path.join(ROOT, "starting_kit", "sample_submission", t.id))],
                         ids=lambda t: t.id)
def test_property_a_run_renamed_to_an_assessed_name_never_earns_its_labels(tmp_path, task):
    """For every task: another run's content under the assessed sample's name scores exactly what it scores under
    a name of its own (labels keyed by name never apply to text they did not judge). The other content is the
    assessed sample with its first judged line changed."""
    sample_dir = os.path.join(ROOT, "starting_kit", "sample_submission", task.id)
    options = {"changed_parts": "unjudged"} if any(o.name == "changed_parts" for o in task.options) else {}
    if task.id == "r2c2-ac":
        options["unlabelled_runs"] = "auto_only"     # under a name of its own the run has no labels
    reference = load_reference(task, os.path.join(ROOT, "reference_data", task.id), options)
    for name in sorted(os.listdir(sample_dir)):
        if task.name_pattern is not None and not task.claims_name(name):
            continue
        other = _other_content(task.id, _read(os.path.join(sample_dir, name)))
        results = []
        for shown in (name, _renamed(name)):
            folder = tmp_path / ("as-" + shown)
            shutil.copytree(sample_dir, str(folder))
            os.remove(str(folder / name))
            (folder / shown).write_text(other, encoding="utf-8")
            checked = check_file(task, str(folder / shown), shown, reference, reference.options)
            assert not checked.diags.has_errors, checked.diags.lines()
            scores = score_run(reference, checked.runs[0])
            measures = {k: v for k, v in scores.measures.items() if k not in ("n_changed_parts", "labelled")}
            if task.id == "r2c2-ac":   # what labels give: correct answers and relevant nuggets
                measures = {"correct": sum(v.get("correct", 0.0) for v in scores.per_topic.values()),
                            "relevant": sum(v.get("n_relevant", 0.0) for v in scores.per_topic.values()),
                            "mnp": scores.measures.get("mnp", 0.0)}
            results.append(measures)
        assert results[0] == results[1]


def _other_content(task_id, text):
    """The sample with one judged part changed, still valid."""
    if task_id == "r2c2-ac":     # every answer and nugget changed
        text = re.sub(r"(?m)^([0-9]+;[^;\n]*;[0-9]+;.*)$", r"\1 x", text)
        text = re.sub(r"(?m)^(<D[0-9]+>)([^<\n])", r"\1x\2", text)
        return re.sub(r"(?m)^(?![0-9]+;)([^<\n])", r"x\1", text)
    if task_id == "qqa23-mrc":
        data = json.loads(text)
        first = next(iter(data))
        data[first][0]["answer"] = " ".join("x" for _ in data[first][0]["answer"].split())
        return json.dumps(data, ensure_ascii=False, indent=1)
    lines = text.splitlines(True)
    body = [i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith(("<", "id\t"))]
    i, j = body[0], body[1]
    lines[i], lines[j] = lines[j], lines[i]
    return "".join(lines)


def test_dropping_non_relevant_nugget_lines_does_not_raise_mnp(tmp_path):
    """A nugget line of the assessed run left out stays in the NugPrec denominator (else dropping the lines
    labelled not relevant would raise MNP), and is told."""
    original = _read(os.path.join(SAMPLE_AC, "SAMPLE-AC-1"))
    clean, _ = _score(_submission(tmp_path, original))
    dropped = original.replace("2;ALPHA-PO-1;2;Mira Okonkwo co-wrote the screenplay; it premiered at the Vell "
                               "festival.\n", "", 1)
    assert dropped != original
    scores, checked = _score(_submission(tmp_path, dropped), changed_parts="unjudged")
    assert scores.per_topic["0001"]["nugprec"] == clean.per_topic["0001"]["nugprec"]
    assert scores.measures["mnp"] == clean.measures["mnp"]
    assert any("question 0001: 1 nugget line(s) of run SAMPLE-AC-1 as it was assessed are missing here" in str(d)
               for d in checked.diags.items)
    _, strict = _check(_submission(tmp_path, dropped))
    assert strict.diags.error_count == 1
