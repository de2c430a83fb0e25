"""The classification and qa kinds of a form (tasks/forms/classification.py, qa.py) through validate, score, bundle
and the dry run, with values equal to an independent computation: scikit-learn for classification (accuracy,
macro- and micro-F1 over the form's labels, per-class recall and F1), and for QA the SQuAD v1.1 script's rules
written out again here (and a character-level reading of them for Japanese and Chinese).
"""
import json
import os
import random
import re
import string
import subprocess
import sys
import unicodedata
import zipfile
from collections import Counter

import pytest

from conftest import ROOT, run_cli


pytestmark = pytest.mark.usefixtures("task_registry_restored")


def new_form(tmp_path, kind, name, edit=None):
    code, _, err = run_cli("new-task", kind, name, cwd=str(tmp_path))
    assert code == 0, err
    path = tmp_path / ("%s.yaml" % name)
    if edit:
        path.write_text(edit(path.read_text()))
    return str(path)


def dry_run(tmp_path, zip_path, submission):
    done = subprocess.run([sys.executable, os.path.join(ROOT, "starting_kit", "dry_run.py"), str(submission),
                           "--bundle", str(zip_path), "--phase", "formal", "--workdir", str(tmp_path / "work")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def detailed_page(tmp_path, zip_path, unit):
    """The dry-run phase's detailed results page (it shows everything), and the competition's pages: the per-topic
    chart and table name the kind's unit (item, question), never a topic; the Data page says nothing of the seed
    campaigns' agreements."""
    with zipfile.ZipFile(str(zip_path)) as archive:
        pages = {n: archive.read(n).decode("utf-8") for n in archive.namelist() if n.startswith("pages/")}
    assert "agreements" not in pages["pages/data.md"] and "organisers' hidden reference data" in pages["pages/data.md"]
    for name, text in pages.items():
        if name != "pages/terms.md":
            assert "topic" not in text.lower(), (name, text[text.lower().index("topic") - 200:][:400])
    with zipfile.ZipFile(str(zip_path)) as archive:      # the kit's sample submission, scored on the sample reference
        for name in archive.namelist():
            if name.startswith("starting_kit/sample_submission/") and not name.endswith("/"):
                (tmp_path / "sample").mkdir(exist_ok=True)
                (tmp_path / "sample" / os.path.basename(name)).write_bytes(archive.read(name))
    done = subprocess.run([sys.executable, os.path.join(ROOT, "starting_kit", "dry_run.py"), str(tmp_path / "sample"),
                           "--bundle", str(zip_path), "--phase", "dry", "--workdir", str(tmp_path / "dry")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    pages = [os.path.join(d, f) for d, _, files in os.walk(str(tmp_path / "dry")) for f in files
             if f == "detailed_results.html"]
    assert pages, "no detailed_results.html under the dry run's workdir"
    page = open(pages[0], encoding="utf-8").read()
    assert " per %s (" % unit in page and ">%s</th>" % unit in page and "Per-%s values" % unit in page, unit
    assert "topic" not in page.lower(), page[page.lower().index("topic") - 200:][:400]
    assert unit == "question" or "per-question" not in page, "a classification's page reads of questions"
    return page


def bundle(tmp_path, form, name, reference):
    zip_path = tmp_path / ("%s.zip" % name)
    code, out, err = run_cli("bundle", "--form", form, "-o", zip_path, "--reference", reference,
                             "--publish-reference")
    assert code == 0, err
    with zipfile.ZipFile(str(zip_path)) as archive:
        assert "scoring_program/runscore/tasks/forms/installed/%s.yaml" % name in archive.namelist()
        pages = " ".join(archive.read(n).decode("utf-8") for n in archive.namelist() if n.startswith("pages/"))
        assert "NTCIR" not in pages and name in pages
    return zip_path


# ------------------------------------------------------------------------------ classification ---
LABELS = ["positive", "negative", "neutral"]


def test_classification_equals_scikit_learn(tmp_path):
    metrics = pytest.importorskip("sklearn.metrics")
    rnd = random.Random(7)
    form = new_form(tmp_path, "classification", "senti")
    (tmp_path / "ref").mkdir()
    gold = {"i%03d" % i: rnd.choice(LABELS[:2] if i % 5 else LABELS) for i in range(60)}
    (tmp_path / "ref" / "gold.tsv").write_text("".join("%s\t%s\n" % pair for pair in gold.items()))
    predicted = {item: rnd.choice(LABELS) for item in gold if rnd.random() > 0.1}     # some items left out
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "senti1").write_text("".join("%s\t%s\n" % pair for pair in predicted.items()))
    run = str(tmp_path / "sub" / "senti1")
    code, _, err = run_cli("validate", "--form", form, "--ref", tmp_path / "ref", run)
    assert code == 0 and "have no label in the run" in err
    code, out, err = run_cli("score", "--form", form, "--ref", tmp_path / "ref", run, "--json")
    assert code == 0, err
    ours = json.loads(out)["senti1"]
    y_true = list(gold.values())
    y_pred = [predicted.get(item, "(none)") for item in gold]
    assert ours["accuracy"] == metrics.accuracy_score(y_true, y_pred)
    assert ours["macro_f1"] == pytest.approx(metrics.f1_score(y_true, y_pred, labels=LABELS, average="macro",
                                                              zero_division=0), abs=1e-15)
    assert ours["micro_f1"] == pytest.approx(metrics.f1_score(y_true, y_pred, labels=LABELS, average="micro",
                                                              zero_division=0), abs=1e-15)
    recalls = metrics.recall_score(y_true, y_pred, labels=LABELS, average=None, zero_division=0)
    f1s = metrics.f1_score(y_true, y_pred, labels=LABELS, average=None, zero_division=0)
    for label, key, r, f in zip(LABELS, ("pos", "neg", "neu"), recalls, f1s):
        assert ours["accuracy_%s" % key] == pytest.approx(r, abs=1e-15) and \
            ours["f1_%s" % key] == pytest.approx(f, abs=1e-15), label
    zip_path = bundle(tmp_path, form, "senti", tmp_path / "ref")
    out = dry_run(tmp_path, zip_path, tmp_path / "sub")
    assert "Accuracy: %s" % round(ours["accuracy"], 4) in out
    detailed_page(tmp_path, zip_path, "item")


def test_classification_runs_and_forms_get_clear_errors(tmp_path):
    form = new_form(tmp_path, "classification", "senti", edit=lambda t: t.replace("format: tsv", "format: csv"))
    bad = tmp_path / "senti1"
    bad.write_text("id,label\na,positive\nb,angry\na,negative\n")
    code, _, err = run_cli("validate", "--form", form, bad)
    assert code == 1
    assert "senti1:3: error: label 'angry' is not one of positive, negative, neutral" in err
    assert "senti1:4: error: item a is labelled twice (first at line 2)" in err
    clash = new_form(tmp_path, "classification", "clash", edit=lambda t: t.replace("key: neg", "key: pos"))
    code, _, err = run_cli("options", "--form", clash)
    assert code == 2 and "clash.yaml:21: error: labels[1].key: key 'pos' is also label 0's" in err
    unknown = new_form(tmp_path, "classification", "unk", edit=lambda t: t.replace("{measure: micro_f1}",
                                                                                 "{measure: micro-f1}"))
    code, _, err = run_cli("options", "--form", unknown)
    assert code == 2 and "columns[2].measure: unknown measure 'micro-f1' (did you mean micro_f1" in err
    both = new_form(tmp_path, "classification", "both", edit=lambda t: t.replace("key: neg", "key: pos")
                    .replace("{measure: micro_f1}", "{measure: micro-f1}").replace("primary: ", "primary: acc #"))
    code, _, err = run_cli("options", "--form", both)       # every problem at once, not the first only
    assert code == 2 and "labels[1].key: key 'pos' is also label 0's" in err and "unknown measure 'micro-f1'" in err \
        and "primary: 'acc' is no column" in err, err


# ------------------------------------------------------------------------------ qa ---
def squad_normalize(s):
    """evaluate-v1.1.py's normalize_answer, written out again."""
    s = s.lower()
    s = "".join(ch for ch in s if ch not in set(string.punctuation))
    s = re.sub(r"\b(a|an|the)\b", " ", s)
    return " ".join(s.split())


def token_f1(prediction_tokens, ground_truth_tokens):
    common = Counter(prediction_tokens) & Counter(ground_truth_tokens)
    num_same = sum(common.values())
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(prediction_tokens)
    recall = 1.0 * num_same / len(ground_truth_tokens)
    return (2 * precision * recall) / (precision + recall)


def char_normalize(s):
    s = unicodedata.normalize("NFKC", s).lower()
    return "".join(ch for ch in s if not ch.isspace() and not unicodedata.category(ch).startswith("P"))


ENGLISH_GOLD = {"q1": ["The Eiffel Tower", "Eiffel Tower"], "q2": ["1889"], "q3": ["Gustave Eiffel"],
                "q4": ["iron"], "q5": ["Paris, France", "Paris"]}
ENGLISH_RUN = {"q1": "the eiffel tower!", "q2": "in 1889", "q3": "Eiffel", "q5": "the city of Paris", "zz": "x"}


def test_qa_equals_the_squad_v11_rules(tmp_path):
    form = new_form(tmp_path, "qa", "myqa", edit=lambda t: t.replace("format: tsv", "format: json"))
    (tmp_path / "ref").mkdir()
    (tmp_path / "ref" / "gold.json").write_text(json.dumps(ENGLISH_GOLD))
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "qa1.json").write_text(json.dumps({k: [v] for k, v in ENGLISH_RUN.items()}))
    run = str(tmp_path / "sub" / "qa1.json")
    code, _, err = run_cli("validate", "--form", form, "--ref", tmp_path / "ref", run)
    assert code == 0 and "question zz is not a question of myqa" in err
    code, out, err = run_cli("score", "--form", form, "--ref", tmp_path / "ref", run, "--json")
    assert code == 0, err
    ours = json.loads(out)["qa1.json"]
    em = f1 = 0.0
    for qid, golds in ENGLISH_GOLD.items():
        if qid in ENGLISH_RUN:
            em += max(float(squad_normalize(ENGLISH_RUN[qid]) == squad_normalize(g)) for g in golds)
            f1 += max(token_f1(squad_normalize(ENGLISH_RUN[qid]).split(), squad_normalize(g).split()) for g in golds)
    assert ours == {"exact_match": em / len(ENGLISH_GOLD), "f1": f1 / len(ENGLISH_GOLD)}
    assert 0 < ours["exact_match"] < ours["f1"] < 1
    zip_path = bundle(tmp_path, form, "myqa", tmp_path / "ref")
    out = dry_run(tmp_path, zip_path, tmp_path / "sub")
    assert "Exact match: %s" % round(ours["exact_match"], 4) in out
    detailed_page(tmp_path, zip_path, "question")


def test_qa_characters_normaliser_for_japanese_and_chinese(tmp_path):
    form = new_form(tmp_path, "qa", "jaqa", edit=lambda t: t.replace("normaliser: squad", "normaliser: characters")
                    .replace("gold: gold.json", "gold: gold.tsv"))
    gold = {"q1": ["東京都"], "q2": ["１８６８年"], "q3": ["北京", "北京市"], "q4": ["大阪"]}
    answers = {"q1": "東京", "q2": "1868年。", "q3": "北京市、中国", "q4": "京都"}
    (tmp_path / "ref").mkdir()
    (tmp_path / "ref" / "gold.tsv").write_text("".join("%s\t%s\n" % (q, a) for q, golds in gold.items()
                                                       for a in golds), encoding="utf-8")
    run = tmp_path / "ja1"
    run.write_text("".join("%s\t%s\n" % pair for pair in answers.items()), encoding="utf-8")
    code, out, err = run_cli("score", "--form", form, "--ref", tmp_path / "ref", run, "--json")
    assert code == 0, err
    ours = json.loads(out)["ja1"]
    em = sum(max(float(char_normalize(answers[q]) == char_normalize(g)) for g in golds) for q, golds in gold.items())
    f1 = sum(max(token_f1(list(char_normalize(answers[q])), list(char_normalize(g))) for g in golds)
             for q, golds in gold.items())
    assert ours == {"exact_match": em / 4, "f1": f1 / 4}
    assert ours["exact_match"] == 0.25, "１８６８年 and 1868年。 are one answer"


def test_qa_runs_get_clear_errors(tmp_path):
    form = new_form(tmp_path, "qa", "myqa", edit=lambda t: t.replace("format: tsv", "format: json"))
    bad = tmp_path / "qa1"
    bad.write_text('{"q1": "a", "q1": "b", "q2": 12345678901234567890}')
    code, _, err = run_cli("validate", "--form", form, bad)
    assert code == 1 and "question q1 is given twice" in err
    bad.write_text('{"q2": 1' + "0" * 100000 + '}')
    code, _, err = run_cli("validate", "--form", form, bad)
    assert code == 1 and "question q2: the answer must be a string" in err
