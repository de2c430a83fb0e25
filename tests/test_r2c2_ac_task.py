"""Task r2c2-ac end to end: PassageKey resolution (reference pool, aliases, `.txt`, the submission's own PR runs),
judgement labels, the spec's worked examples through files, the non-official auto judge, reference defects,
the shipped sample. Every reference folder here is written by the test (synthetic)."""
import json
import os
import shutil

import pytest

from conftest import ROOT, run_cli, run_score_py
from runscore.errors import ConfigError
from runscore.pipeline import check_file, load_reference, score_run
from runscore.tasks.r2c2.autojudge import matches, normalise_answer
from runscore.tasks import get_task

TASK = get_task("r2c2-ac")
OFFICIAL_64 = ["%04d" % i for i in range(1, 66) if i != 25]     # R2C2: 65 questions, 0025 dropped


def write(path, text):
    os.makedirs(os.path.dirname(str(path)), exist_ok=True)
    with open(str(path), "w", encoding="utf-8") as handle:
        handle.write(text)


def tsv(header, rows):
    return "\n".join(["\t".join(header)] + ["\t".join(str(f) for f in row) for row in rows]) + "\n"


def make_reference(root, topics, pool=None, answers=None, nuggets=None, nugget_header=None, golds=None,
                   options=None, aliases=None):
    """A reference folder: topics file, PR-run pool {name: text}, label rows, gold rows, task.yaml."""
    ref = root / "ref"
    config = {"task": "r2c2-ac", "topics": "topics.txt", "options": dict(options or {})}
    write(ref / "topics.txt", "".join(t + "\n" for t in topics))
    if pool is not None:
        config["pr_runs"] = "pool"
        os.makedirs(str(ref / "pool"), exist_ok=True)
        for name, text in pool.items():
            write(ref / "pool" / name, text)
    if answers is not None:
        config["answer_labels"] = "answers.tsv"
        write(ref / "answers.tsv", tsv(["run_id", "qID", "correct"], answers))
    if nuggets is not None:
        config["nugget_labels"] = "nuggets.tsv"
        write(ref / "nuggets.tsv", tsv(nugget_header or ["run_id", "qID", "NuggetNum", "entailed", "relevant"],
                                       nuggets))
    if golds is not None:
        config["gold_answers"] = "gold.tsv"
        write(ref / "gold.tsv", tsv(["qID", "answer"], golds))
    if aliases:
        config["pr_run_aliases"] = aliases
    write(ref / "task.yaml", json.dumps(config))     # JSON is YAML
    return ref


def assess(ref, run_path, name=None):
    """Make `run_path` the assessed copy of its run (or of `name`) in the reference: by default every test here
    scores the very run its labels judged (the replay check itself is tested in test_r2c2_replay.py)."""
    with open(str(ref / "task.yaml"), encoding="utf-8") as handle:
        config = json.load(handle)
    if "answer_labels" not in config or config["options"].get("unchecked_labels") == "trust":
        return
    config["assessed_runs"] = "assessed"
    os.makedirs(str(ref / "assessed"), exist_ok=True)
    with open(str(ref / config["answer_labels"]), encoding="utf-8") as handle:
        labelled = {line.split("\t")[0] for line in list(handle)[1:] if line.strip()}
    for run_name in labelled | {name or os.path.basename(str(run_path))}:
        shutil.copyfile(str(run_path), str(ref / "assessed" / run_name))
    write(ref / "task.yaml", json.dumps(config))


def check(ref, run_path, **overrides):
    assess(ref, run_path)
    reference = load_reference(TASK, str(ref), overrides)
    checked = check_file(TASK, str(run_path), os.path.basename(str(run_path)), reference, reference.options)
    return reference, checked


def score(ref, run_path, **overrides):
    reference, checked = check(ref, run_path, **overrides)
    assert not checked.diags.has_errors, checked.diags.lines()
    return score_run(reference, checked.runs[0]), checked


def warnings(checked):
    return [str(d) for d in checked.diags.sorted_items() if d.severity == "warning"]


def pool_run(topics, ranks=1):
    return "".join("%s;%d;D%s;passage %d of %s\n" % (t, r, t, r, t) for t in topics for r in range(1, ranks + 1))


# ----------------------------------------------------------------------- worked examples ---

def test_retrank_ac1_replica_through_files(tmp_path):
    """61 of 64 right at confidence 100, 3 wrong at 5, one relevant nugget per right answer; a block for the
    dropped topic 0025 is ignored with a warning."""
    wrong = OFFICIAL_64[:3]
    lines, answers, nuggets = [], [], []
    for qid in OFFICIAL_64 + ["0025"]:
        confidence = 5 if qid in wrong else 100
        lines.append("<D%s>answer %s;%d\n1;ORG-PO-1;1;nugget of %s\n</D%s>\n" % (qid, qid, confidence, qid, qid))
        answers.append(("retrank-AC-1", qid, 0 if qid in wrong else 1))
        nuggets.append(("retrank-AC-1", qid, 1, 1, 0 if qid in wrong else 1))
    ref = make_reference(tmp_path, OFFICIAL_64, {"ORG-PO-1": pool_run(OFFICIAL_64)}, answers[:-1], nuggets[:-1])
    write(tmp_path / "sub" / "retrank-AC-1", "".join(lines))
    scores, checked = score(ref, tmp_path / "sub" / "retrank-AC-1")
    m = scores.measures
    assert round(m["r_o"], 4) == 0.95 and m["r_u"] == 1.0
    assert round(m["hmr"], 4) == 0.9744 and round(m["avconf"], 4) == 0.9555
    assert round(m["accuracy"], 4) == 0.9531 and round(m["ob"], 4) == 0.0023
    assert m["hmr"] == pytest.approx(2 * 0.95 / 1.95, abs=1e-15)
    assert m["mnp"] == pytest.approx(61 / 64, abs=1e-15)      # NugPrec 1 on the 61 right answers, 0 on the 3
    assert m["n_answered"] == 64 and m["labelled"] == 1.0
    assert any("1 block(s) for questions that are not official are ignored: 0025" in w for w in warnings(checked))
    assert scores.per_topic[wrong[0]]["nugprec"] == 0.0 and scores.per_topic["0004"]["nugprec"] == 1.0
    assert "0025" not in scores.per_topic and len(scores.per_topic) == 64


def test_denominators_accuracy_over_answered_mnp_over_all_official(tmp_path):
    """Error404-AC-1 shape: 56 of 64 topics answered (4 by an empty element, 4 without a block), 42 right,
    each right answer with 1 relevant nugget of 1: Accuracy = 42/56 = 0.75, MNP = 42/64 (not 42/56)."""
    answered = OFFICIAL_64[:56]
    right = answered[:42]
    text = "".join("<D%s>a;70\n1;ORG-PO-1;1;n\n</D%s>\n" % (q, q) for q in answered)
    text += "".join("<D%s></D%s>\n" % (q, q) for q in OFFICIAL_64[56:60])
    answers = [("Error404-AC-1", q, int(q in right)) for q in answered]
    nuggets = [("Error404-AC-1", q, 1, 1, int(q in right)) for q in answered]
    ref = make_reference(tmp_path, OFFICIAL_64, {"ORG-PO-1": pool_run(OFFICIAL_64)}, answers, nuggets)
    write(tmp_path / "Error404-AC-1", text)
    scores, _ = score(ref, tmp_path / "Error404-AC-1")
    assert scores.measures["accuracy"] == 0.75
    assert scores.measures["mnp"] == 42 / 64
    assert scores.measures["n_answered"] == 56
    assert scores.per_topic[OFFICIAL_64[57]] == {"answered": 0.0, "nugprec": 0.0}


def test_empty_block_option_wrong_counts_it_answered_at_zero(tmp_path):
    ref = make_reference(tmp_path, ["0001", "0002"], {}, [("T-AC-1", "0001", 1)], options={"empty_block": "wrong"})
    write(tmp_path / "T-AC-1", "<D0001>a;80\n</D0001>\n<D0002></D0002>\n")
    scores, _ = score(ref, tmp_path / "T-AC-1")
    # answered: 0001 right at 0.8, 0002 wrong at 0: accuracy 1/2, avconf 0.4, R_O 1 - 0 = 1, R_U 0.8
    m = scores.measures
    assert (m["accuracy"], m["avconf"], m["r_o"], m["r_u"]) == (0.5, 0.4, 1.0, 0.8)


def test_nothing_answered_gives_the_convention_and_a_note(tmp_path):
    ref = make_reference(tmp_path, ["0001"], {}, [("T-AC-1", "0009", 1)])
    write(tmp_path / "T-AC-1", "<D0001></D0001>\n")
    scores, _ = score(ref, tmp_path / "T-AC-1")
    m = scores.measures
    assert (m["accuracy"], m["avconf"], m["ob"], m["r_o"], m["r_u"], m["hmr"]) == (0, 0, 0, 1, 1, 1)
    assert any("answers no official question" in n for n in scores.notes)


# ----------------------------------------------------------------------- PassageKey resolution ---

def labelled_one_nugget_ref(tmp_path, pool, cited, **kwargs):
    """Question 0001 answered right; its one nugget cites `cited`; the labels say entailed and relevant."""
    ref = make_reference(tmp_path, ["0001"], pool, [("T-AC-1", "0001", 1)], [("T-AC-1", "0001", 1, 1, 1)],
                         **kwargs)
    write(tmp_path / "sub" / "T-AC-1", "<D0001>a;90\n1;%s;nugget\n</D0001>\n" % cited)
    return ref, tmp_path / "sub" / "T-AC-1"


def test_rank_the_cited_run_lacks_is_a_warning_and_not_entailed(tmp_path):
    ref, run = labelled_one_nugget_ref(tmp_path, {"ORG-PO-1.txt": pool_run(["0001"], ranks=3)}, "ORG-PO-1;7")
    scores, checked = score(ref, run)
    assert warnings(checked) == ["T-AC-1:2: warning: question 0001: PR run ORG-PO-1 has no passage at PassageRank 7 "
                                 "for this question; the nugget counts as not entailed"]
    assert scores.per_topic["0001"]["n_entailed"] == 0 and scores.per_topic["0001"]["nugprec"] == 0.0
    assert scores.measures["n_nuggets_unresolved"] == 1
    scores, _ = score(ref, run, unresolved_nuggets="labels")      # the option: trust the label
    assert scores.per_topic["0001"]["nugprec"] == 1.0


def test_unresolved_warnings_follow_the_option(tmp_path):
    """With unresolved_nuggets: labels the label is used, so the warnings must not say "not entailed"."""
    ref, run = labelled_one_nugget_ref(tmp_path, {"ORG-PO-1": pool_run(["0001"], ranks=3)}, "ORG-PO-1;7")
    write(run, "<D0001>a;90\n1;ORG-PO-1;7;nugget\n1;NOPE-PG-1;1;x\n</D0001>\n")
    scores, checked = score(ref, run, unresolved_nuggets="labels")
    assert warnings(checked) == [
        "T-AC-1:2: warning: question 0001: PR run ORG-PO-1 has no passage at PassageRank 7 for this question; the "
        "nugget is scored by its label as given (option unresolved_nuggets: labels)",
        "T-AC-1:3: warning: PRrunname NOPE-PG-1 names no known PR run; its 1 nugget line(s) are scored by their "
        "labels as given (option unresolved_nuggets: labels) (known runs: ORG-PO-1)"]
    assert scores.per_topic["0001"]["n_entailed"] == 2


def test_rank_of_another_question_does_not_resolve(tmp_path):
    ref, run = labelled_one_nugget_ref(tmp_path, {"ORG-PO-1": pool_run(["0002"])}, "ORG-PO-1;1")
    scores, checked = score(ref, run)
    assert "PR run ORG-PO-1 has no passage at PassageRank 1 for this question" in warnings(checked)[0]
    assert scores.per_topic["0001"]["nugprec"] == 0.0


def test_unknown_run_name_is_one_warning_with_a_count(tmp_path):
    ref = make_reference(tmp_path, ["0001"], {"ORG-PO-1": pool_run(["0001"])}, [("T-AC-1", "0001", 1)],
                         [("T-AC-1", "0001", n, 1, 1) for n in (1, 2, 3)])
    write(tmp_path / "T-AC-1", "<D0001>a;90\n1;NOPE-PG-1;1;x\n2;NOPE-PG-1;2;y\n3;ORG-PO-1;1;z\n</D0001>\n")
    scores, checked = score(ref, tmp_path / "T-AC-1")
    assert warnings(checked) == ["T-AC-1:2: warning: PRrunname NOPE-PG-1 names no known PR run; its 2 nugget "
                                 "line(s) count as not entailed (known runs: ORG-PO-1)"]
    # 3 nugget lines, only the resolved one counts: NugPrec = 1/3
    assert scores.per_topic["0001"]["nugprec"] == pytest.approx(1 / 3, abs=1e-15)
    assert scores.per_topic["0001"]["n_unresolved"] == 2


def test_txt_suffix_and_display_name_alias_resolve(tmp_path):
    pool = {"hit-u-PO-4": pool_run(["0001"]), "retrank-PG-1.txt": pool_run(["0001"], ranks=2)}
    ref = make_reference(tmp_path, ["0001"], pool, [("T-AC-1", "0001", 1)],
                         [("T-AC-1", "0001", 1, 1, 1), ("T-AC-1", "0001", 2, 1, 0)],
                         aliases={"Hitotsubashi University Keyaki Lab Team-PO-4": "hit-u-PO-4"})
    write(tmp_path / "T-AC-1", "<D0001>a;90\n1;Hitotsubashi University Keyaki Lab Team-PO-4;1;x\n"
                               "2;retrank-PG-1.txt;2;y\n</D0001>\n")
    scores, checked = score(ref, tmp_path / "T-AC-1")
    assert warnings(checked) == []
    assert scores.per_topic["0001"]["nugprec"] == 0.5 and scores.measures["n_nuggets_unresolved"] == 0


def test_display_name_without_alias_is_unknown(tmp_path):
    ref, run = labelled_one_nugget_ref(tmp_path, {"hit-u-PO-4": pool_run(["0001"])},
                                       "Hitotsubashi University Keyaki Lab Team-PO-4;1")
    _, checked = score(ref, run)
    assert "PRrunname Hitotsubashi University Keyaki Lab Team-PO-4 names no known PR run" in warnings(checked)[0]


def test_submission_pr_run_next_to_the_ac_run_resolves(tmp_path):
    ref, run = labelled_one_nugget_ref(tmp_path, {"ORG-PO-1": pool_run(["0001"])}, "T-PG-2;1")
    write(tmp_path / "sub" / "T-PG-2.txt", pool_run(["0001"]))
    scores, checked = score(ref, run)
    assert warnings(checked) == [] and scores.per_topic["0001"]["nugprec"] == 1.0
    scores, checked = score(ref, run, submission_pr_runs=False)
    assert "PRrunname T-PG-2 names no known PR run" in warnings(checked)[0]
    assert scores.per_topic["0001"]["nugprec"] == 0.0


def test_invalid_submission_pr_run_is_not_used(tmp_path):
    ref, run = labelled_one_nugget_ref(tmp_path, {}, "T-PG-2;1")
    write(tmp_path / "sub" / "T-PG-2", "0001;1;D1;text\n0001;1;D2;same rank again\n")
    scores, checked = score(ref, run)
    found = warnings(checked)
    assert found[0] == ("T-AC-1: warning: PR run T-PG-2 of the submission is invalid (1 error(s); first: T-PG-2:2: "
                        "error: duplicate PassageRank 1 for question 0001 (first seen at line 1)); PassageKeys "
                        "citing it are not resolved")
    assert scores.per_topic["0001"]["nugprec"] == 0.0


def test_pool_run_wins_over_a_submission_run_of_the_same_name(tmp_path):
    ref, run = labelled_one_nugget_ref(tmp_path, {"ORG-PO-1": pool_run(["0001"])}, "ORG-PO-1;2")
    write(tmp_path / "sub" / "ORG-PO-1", pool_run(["0001"], ranks=2))       # would have rank 2
    scores, checked = score(ref, run)
    found = warnings(checked)
    assert "PR run ORG-PO-1 of the submission has the name of a run of the reference pool" in found[0]
    assert "PR run ORG-PO-1 has no passage at PassageRank 2" in found[1]
    assert scores.per_topic["0001"]["nugprec"] == 0.0


def test_validate_without_reference_checks_ranks_of_sibling_runs_only(tmp_path):
    write(tmp_path / "T-PG-1", pool_run(["0001"]))
    write(tmp_path / "T-AC-1", "<D0001>a;90\n1;T-PG-1;4;x\n2;OTHER-PO-1;1;y\n</D0001>\n")
    code, out, err = run_cli("validate", "--task", "r2c2-ac", tmp_path / "T-AC-1")
    assert code == 0
    assert "T-AC-1:2: warning: question 0001: PR run T-PG-1 has no passage at PassageRank 4" in err
    assert "OTHER-PO-1" not in err          # the pool is unknown without a reference: no verdict


# ----------------------------------------------------------------------- labels ---

def test_spec_label_format_applies_to_every_line_of_a_nugget_number(tmp_path):
    ref = make_reference(tmp_path, ["0001"], {"A-PO-1": pool_run(["0001"], ranks=2)}, [("T-AC-1", "0001", 1)],
                         [("T-AC-1", "0001", 1, 1, 1)])
    write(tmp_path / "T-AC-1", "<D0001>a;90\n1;A-PO-1;1;x\n1;A-PO-1;2;x\n</D0001>\n")
    scores, checked = score(ref, tmp_path / "T-AC-1")
    assert warnings(checked) == []
    assert scores.per_topic["0001"]["n_relevant"] == 2 and scores.per_topic["0001"]["nugprec"] == 1.0


def test_passage_keyed_labels_judge_each_line(tmp_path):
    header = ["run_id", "qID", "NuggetNum", "PRrunname", "PassageRank", "entailed", "relevant"]
    ref = make_reference(tmp_path, ["0001"], {"A-PO-1": pool_run(["0001"], ranks=2)}, [("T-AC-1", "0001", 1)],
                         [("T-AC-1", "0001", 1, "A-PO-1.txt", 1, 1, 1), ("T-AC-1", "0001", 1, "A-PO-1", 2, 0, 0)],
                         nugget_header=header)
    write(tmp_path / "T-AC-1", "<D0001>a;90\n1;A-PO-1;1;x\n1;A-PO-1;2;x\n</D0001>\n")
    scores, _ = score(ref, tmp_path / "T-AC-1")
    # the repeated NuggetNum counts per line: 1 relevant of 2 lines
    assert scores.per_topic["0001"]["nugprec"] == 0.5 and scores.per_topic["0001"]["n_entailed"] == 1


def test_missing_and_extra_labels_are_warnings(tmp_path):
    ref = make_reference(tmp_path, ["0001", "0002"], {"A-PO-1": pool_run(["0001", "0002"], ranks=2)},
                         [("T-AC-1", "0001", 1), ("T-AC-1", "0003", 1)],
                         [("T-AC-1", "0001", 1, 1, 1), ("T-AC-1", "0001", 5, 1, 0)])
    write(tmp_path / "T-AC-1", "<D0001>a;90\n1;A-PO-1;1;x\n2;A-PO-1;2;y\n</D0001>\n<D0002>b;40\n</D0002>\n")
    scores, checked = score(ref, tmp_path / "T-AC-1")
    found = warnings(checked)
    labels = os.path.join(str(ref), "answers.tsv")
    nuggets = os.path.join(str(ref), "nuggets.tsv")
    assert "T-AC-1:3: warning: no label for nugget 2 of question 0001; counted as not entailed and not relevant" \
        in found
    assert "T-AC-1:5: warning: no answer label for question 0002 of run T-AC-1; counted as incorrect" in found
    # counts only: a participant never sees a reference path or a line of a label file (issue 16)
    assert "T-AC-1: warning: 1 answer label(s) of run T-AC-1 match no question this run answers" in found
    assert "T-AC-1: warning: 1 nugget label(s) of run T-AC-1 match no nugget line of this run" in found
    assert not any(labels in f or nuggets in f or str(ref) in f for f in found)
    assert scores.per_topic["0002"]["correct"] == 0.0 and scores.per_topic["0001"]["nugprec"] == 0.5


def test_unlabelled_run_is_an_error_in_replay_mode(tmp_path):
    ref = make_reference(tmp_path, ["0001"], {}, [("OTHER-AC-1", "0001", 1)])
    write(tmp_path / "T-AC-1", "<D0001>a;90\n</D0001>\n")
    _, checked = check(ref, tmp_path / "T-AC-1")
    assert [str(d) for d in checked.diags.items if d.severity == "error"] == [
        "T-AC-1: error: the reference has no judgement labels for run T-AC-1; this leaderboard replays the "
        "official labels, so only assessed runs can be scored"]


def test_auto_only_keeps_label_measures_apart(tmp_path):
    ref = make_reference(tmp_path, ["0001", "0002"], {}, golds=[("0001", "Bor Gullet"), ("0002", "1977")],
                         options={"unlabelled_runs": "auto_only"})
    write(tmp_path / "T-AC-1", "<D0001>It was Bor Gullet, a creature.;80\n</D0001>\n<D0002>1980;60\n</D0002>\n")
    scores, _ = score(ref, tmp_path / "T-AC-1")
    m = scores.measures
    assert m["labelled"] == 0.0
    # the measures that need labels are absent, not 0 (a 0 reads as a judgement)
    for key in ("hmr", "accuracy", "mnp", "r_o", "r_u", "ob", "n_correct", "brier_unofficial", "ece_unofficial"):
        assert key not in m, key
    # auto: 0001 right at 0.8, 0002 wrong at 0.6: accuracy 1/2, R_O = 0.4, R_U = 0.8, HMR = 2*0.32/1.2
    assert m["auto_accuracy"] == 0.5 and m["auto_r_o"] == pytest.approx(0.4, abs=1e-15)
    assert m["auto_r_u"] == 0.8 and m["auto_hmr"] == pytest.approx(0.64 / 1.2, abs=1e-15)
    assert m["auto_ob"] == pytest.approx(0.7 - 0.5, abs=1e-15)
    assert any("no judgement labels, so the measures that need them (hmr, accuracy, mnp" in n for n in scores.notes)
    assert any("NON-OFFICIAL" in n for n in scores.notes)


BITEM_LIKE = [("0001", 90, 2), ("0002", 75, 0), ("0003", 100, 1), ("0005", 68, 3)]   # (qID, Confidence, nuggets)


def unlabelled_run_text():
    blocks = []
    for qid, confidence, nuggets in BITEM_LIKE:
        lines = "".join("%d;ORG-PO-1;1;nugget %d\n" % (n + 1, n) for n in range(nuggets))
        blocks.append("<D%s>an answer;%d\n%s</D%s>\n" % (qid, confidence, lines, qid))
    return "".join(blocks) + "<D0004></D0004>\n"


def test_unlabelled_run_avconf_is_its_mean_confidence(tmp_path):
    """Defect of issue 18: avconf (and n_answered, nugget counts, per-topic confidence) need no labels, so a run
    without labels gets them; BITEM-AC-2 is such a run (official avconf 0.8331)."""
    topics = ["0001", "0002", "0003", "0004", "0005"]
    ref = make_reference(tmp_path, topics, {"ORG-PO-1": pool_run(topics)}, options={"unlabelled_runs": "auto_only"})
    write(tmp_path / "BITEM-AC-2", unlabelled_run_text())
    scores, _ = score(ref, tmp_path / "BITEM-AC-2")
    m = scores.measures
    confidences = [c / 100.0 for _, c, _ in BITEM_LIKE]
    assert m["avconf"] == pytest.approx(sum(confidences) / len(confidences), abs=1e-15)
    assert m["avconf"] > 0.0
    assert m["n_answered"] == len(BITEM_LIKE)                  # 0004 is an empty element: absent
    assert m["n_nuggets"] == sum(n for _, _, n in BITEM_LIKE)
    assert scores.per_topic["0001"]["confidence"] == 0.9 and scores.per_topic["0005"]["n_nuggets"] == 3
    assert "correct" not in scores.per_topic["0001"] and "nugprec" not in scores.per_topic["0001"]
    assert "hmr" not in m and "auto_hmr" not in m          # no labels, no gold answers
    assert any("auto_* measures are not computed" in n for n in scores.notes)


def test_unlabelled_run_text_output_says_why_instead_of_zero(tmp_path):
    topics = ["0001", "0002", "0003", "0004", "0005"]
    ref = make_reference(tmp_path, topics, {"ORG-PO-1": pool_run(topics)}, options={"unlabelled_runs": "auto_only"})
    write(tmp_path / "BITEM-AC-2", unlabelled_run_text())
    code, out, err = run_cli("score", "--task", "r2c2-ac", "--ref", ref, tmp_path / "BITEM-AC-2", "--per-topic")
    assert code == 0, err
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line.strip()}
    assert rows["hmr"] == ["n/a"] and rows["accuracy"] == ["n/a"] and rows["avconf"] == ["0.8325"]
    assert "no judgement labels, so the measures that need them" in err
    code, out, err = run_cli("score", "--task", "r2c2-ac", "--ref", ref, tmp_path / "BITEM-AC-2", "--json")
    values = json.loads(out)["BITEM-AC-2"]
    assert "hmr" not in values and values["avconf"] == pytest.approx(0.8325, abs=1e-12)


def test_unlabelled_run_on_the_platform_gets_the_documented_placeholder(tmp_path):
    """A leaderboard needs a value in every column: the label-based ones get the task's placeholder (-2, below
    every possible score), never 0; avconf is the real one; the page says why."""
    topics = ["0001", "0002", "0003", "0004", "0005"]
    ref = make_reference(tmp_path, topics, {"ORG-PO-1": pool_run(topics)}, options={"unlabelled_runs": "auto_only"})
    (tmp_path / "input" / "res").mkdir(parents=True)
    os.symlink(str(ref), str(tmp_path / "input" / "ref"))
    write(tmp_path / "input" / "res" / "BITEM-AC-2", unlabelled_run_text())
    code, out, err = run_score_py(tmp_path / "input", tmp_path / "output")
    assert code == 0, err
    with open(str(tmp_path / "output" / "scores.json")) as handle:
        board = json.load(handle)
    placeholder = TASK.leaderboard_placeholder
    assert placeholder < -1.0                       # outside [0, 1] and OB's [-1, 1]
    for column in ("hmr", "accuracy", "mnp", "r_o", "r_u", "ob", "auto_hmr", "auto_accuracy"):
        assert board["r2c2_ac_" + column] == placeholder, column
    assert board["r2c2_ac_avconf"] == 0.8325 and board["r2c2_ac_n_answered"] == 4
    with open(str(tmp_path / "output" / "detailed_results.html"), encoding="utf-8") as handle:
        page = handle.read()
    # a hidden phase (the reference does not say `detail: full`) shows no note; the cell says what it stands for
    assert "n/a: not computed for this run (the leaderboard shows -2)" in page
    assert "no judgement labels, so the measures that need them" not in page


# ----------------------------------------------------------------------- auto judge ---

@pytest.mark.parametrize("answer, golds, rule, expected", [
    ("Bor Gullet", ["Bor Gullet"], "exact", True),
    ("bor gullet.", ["Bor Gullet"], "exact", True),                 # case and punctuation
    ("The Bor Gullet", ["Bor Gullet"], "exact", True),              # article dropped
    ("Saw used Bor Gullet on Bodhi", ["Bor Gullet"], "exact", False),
    ("Saw used Bor Gullet on Bodhi", ["Bor Gullet"], "contains", True),
    ("Saw used Bor Gulletine", ["Bor Gullet"], "contains", False),  # whole words only
    ("Ｂｏｒ Ｇｕｌｌｅｔ", ["Bor Gullet"], "exact", True),            # NFKC full width
    ("“Rogue One”", ["Rogue One"], "exact", True),                  # Unicode quotes are punctuation
    ("", ["Bor Gullet"], "contains", False),
    ("I don't know", ["Bor Gullet"], "contains", False),
    ("1977", ["1976", "1977"], "exact", True),                      # any of several golds
])
def test_auto_judge_matches(answer, golds, rule, expected):
    assert matches(answer, golds, rule) is expected


def test_normalise_answer_steps():
    assert normalise_answer("  The  Empire—Strikes, Back! ") == "empire strikes back"


# ----------------------------------------------------------------------- reference defects ---

REFERENCE_DEFECTS = [
    ("answers.tsv", "run_id\tqID\tcorrect\nT-AC-1\t0001\t2\n", "answers.tsv:2: error: correct must be 0 or 1, "
     "found '2'"),
    ("answers.tsv", "run_id\tqID\nT-AC-1\t0001\n", "answers.tsv:1: error: the header line must name the columns "
     "run_id, qid, correct (TAB-separated); missing: correct"),
    ("answers.tsv", "run_id\tqID\tcorrect\nT-AC-1\t0001\t1\nT-AC-1\t001\t0\n", "answers.tsv:3: error: second answer "
     "label for run T-AC-1 question 0001 (first at line 2)"),
    ("answers.tsv", "run_id\tqID\tcorrect\nT-AC-1\tx1\t1\n", "answers.tsv:2: error: qID 'x1' is not a question id"),
    ("answers.tsv", "run_id\tqID\tcorrect\nT-AC-1\t0001\n", "answers.tsv:2: error: 2 TAB-separated fields, the header "
     "has 3"),
    ("nuggets.tsv", "run_id\tqID\tNuggetNum\tentailed\trelevant\nT-AC-1\t0001\t1\t0\t1\n", "nuggets.tsv:2: error: "
     "relevant = 1 requires entailed = 1 (Stage B sees entailed nuggets only)"),
    ("nuggets.tsv", "run_id\tqID\tNuggetNum\tentailed\trelevant\nT-AC-1\t0002\t1\t1\t1\n", "nuggets.tsv:2: error: "
     "relevant = 1 requires the answer of run T-AC-1 to question 0002 to be labelled correct = 1 in"),
    ("nuggets.tsv", "run_id\tqID\tNuggetNum\tentailed\trelevant\nT-AC-1\t0001\t1\t1\t1\nT-AC-1\t0001\t1\t1\t0\n",
     "nuggets.tsv:3: error: second label for the same nugget T-AC-1 0001 1 (first at line 2)"),
    ("nuggets.tsv", "run_id\tqID\tNuggetNum\tPRrunname\tentailed\trelevant\n", "nuggets.tsv:1: error: the header names "
     "only one of PRrunname, PassageRank; give both or neither"),
    ("nuggets.tsv", "run_id\tqID\tNuggetNum\tentailed\trelevant\nT-AC-1\t0001\tone\t1\t1\n", "nuggets.tsv:2: error: "
     "NuggetNum must be a non-negative integer, found 'one'"),
    ("gold.tsv", "qID\tanswer\n0001\t...\n", "gold.tsv:2: error: gold answer of question 0001 is empty after "
     "normalisation"),
    ("gold.tsv", "qID\tanswer\n0001\n", "gold.tsv:2: error: gold answer line has 1 TAB-separated fields, expected 2: "
     "qID answer"),
    ("topics.txt", "0001\n0001\n", "topics.txt:2: error: question 0001 is listed twice"),
    ("topics.txt", "0001\nq2\n", "topics.txt:2: error: 'q2' is not a question id"),
    ("pool/ORG-PO-1", "0001;1;D1;a\n0001;x;D2;b\n", "ORG-PO-1: error: PR run of the pool is invalid (1 error(s)); "
     "first: "),
    ("pool/notarun", "0001;1;D1;a\n", "error: file 'notarun' in the PR run pool is not named "
     "[TeamName]-{PG|PO}-[RunNumber]"),
    ("pool/ORG-PO-1.txt", "0001;1;D1;a\n", "error: two files of the PR run pool are named ORG-PO-1"),
    ("nuggets.tsv", "run_id\tqID\tNuggetNum\tPRrunname\tPassageRank\tentailed\trelevant\n"
     "T-AC-1\t0001\t1\tORG-PO-1\tfirst\t1\t1\n", "nuggets.tsv:2: error: PassageRank must be an integer, found "
     "'first'"),
]


@pytest.mark.parametrize("name, content, message", REFERENCE_DEFECTS, ids=[d[2][:50] for d in REFERENCE_DEFECTS])
def test_reference_defects_are_config_errors(tmp_path, name, content, message):
    ref = make_reference(tmp_path, ["0001", "0002"], {"ORG-PO-1": pool_run(["0001"])}, [("T-AC-1", "0001", 1)],
                         [("T-AC-1", "0001", 1, 1, 1)], golds=[("0001", "x")])
    write(ref / name, content)
    with pytest.raises(ConfigError) as caught:
        load_reference(TASK, str(ref))
    assert message in str(caught.value)


def test_reference_defect_exits_2_through_the_cli(tmp_path):
    ref = make_reference(tmp_path, ["0001"], {}, [("T-AC-1", "0001", 7)])
    write(tmp_path / "T-AC-1", "<D0001>a;90\n</D0001>\n")
    code, out, err = run_cli("score", "--task", "r2c2-ac", "--ref", ref, tmp_path / "T-AC-1")
    assert code == 2
    assert "answers.tsv:2: error: correct must be 0 or 1, found '7'" in err and "Traceback" not in err


@pytest.mark.parametrize("config, message", [
    ({"topics": "topics.txt", "answer_labels": "answers.tsv", "pr_run_aliases": ["x"]},
     "pr_run_aliases must map display names to PR run names"),
    ({"topics": "topics.txt", "nugget_labels": "answers.tsv", "options": {"unlabelled_runs": "auto_only"}},
     "nugget_labels needs answer_labels too"),
    ({"answer_labels": "answers.tsv"}, "task.yaml must give the official topic list"),
    ({"topics": "topics.txt", "answer_labels": "missing.tsv"}, "answer labels file 'missing.tsv' named in task.yaml "
     "does not exist"),
    ({"topics": "topics.txt", "answer_labels": "answers.tsv", "pr_runs": "nowhere"}, "PR run pool folder"),
    ({"topics": [], "answer_labels": "answers.tsv"}, "the official topic list is empty"),
])
def test_task_yaml_defects(tmp_path, config, message):
    ref = make_reference(tmp_path, ["0001"], None, [("T-AC-1", "0001", 1)])
    config = dict(config, task="r2c2-ac")
    write(ref / "task.yaml", json.dumps(config))
    with pytest.raises(ConfigError) as caught:
        load_reference(TASK, str(ref))
    assert message in str(caught.value)


def test_reference_must_be_a_folder(tmp_path):
    ref = make_reference(tmp_path, ["0001"], None, [("T-AC-1", "0001", 1)])
    with pytest.raises(ConfigError, match="not a single file"):
        load_reference(TASK, str(ref / "answers.tsv"))


def test_reference_without_labels_needs_auto_only(tmp_path):
    ref = make_reference(tmp_path, ["0001"], {})
    with pytest.raises(ConfigError, match="has no judgement labels"):
        load_reference(TASK, str(ref))
    load_reference(TASK, str(ref), {"unlabelled_runs": "auto_only"})


def test_unknown_option_is_a_config_error(tmp_path):
    ref = make_reference(tmp_path, ["0001"], {}, [("T-AC-1", "0001", 1)], options={"empty_blocks": "absent"})
    with pytest.raises(ConfigError, match="did you mean empty_block"):
        load_reference(TASK, str(ref))


def test_no_official_block_is_an_error(tmp_path):
    ref = make_reference(tmp_path, ["0001"], {}, [("T-AC-1", "0001", 1)])
    write(tmp_path / "T-AC-1", "<D0009>a;90\n</D0009>\n")
    _, checked = check(ref, tmp_path / "T-AC-1")
    assert "T-AC-1: error: no block answers an official question (0001 ... 0001)" in checked.diags.lines()


# ----------------------------------------------------------------------- shipped sample ---

SAMPLE_REF = os.path.join(ROOT, "reference_data", "r2c2-ac")
SAMPLE_RUN = os.path.join(ROOT, "starting_kit", "sample_submission", "r2c2-ac", "SAMPLE-AC-1")


def test_sample_scores_as_derived_by_hand():
    """Sample: 6 official topics; answered 0001 (right, 90), 0002 (right by label, 70; the auto judge misses
    'nineteen eighty-seven'), 0003 (wrong, 5), 0004 (right, 100); 0005 empty, 0006 absent."""
    code, out, err = run_cli("score", "--task", "r2c2-ac", "--ref", SAMPLE_REF, SAMPLE_RUN, "--json")
    assert code == 0, err
    m = json.loads(out)["SAMPLE-AC-1"]
    assert m["accuracy"] == 3 / 4
    assert m["avconf"] == pytest.approx((0.9 + 0.7 + 0.05 + 1.0) / 4, abs=1e-15)
    assert m["r_o"] == pytest.approx(1 - 0.05, abs=1e-15)
    assert m["r_u"] == pytest.approx((0.9 + 0.7 + 1.0) / 3, abs=1e-15)
    assert m["hmr"] == pytest.approx(2 * 0.95 * (2.6 / 3) / (0.95 + 2.6 / 3), abs=1e-15)
    # NugPrec: 0001 1 relevant of 3 lines, 0002 1 of 1, 0004 1 of 2; mean over 6 official topics
    assert m["mnp"] == pytest.approx((1 / 3 + 1 + 1 / 2) / 6, abs=1e-15)
    # auto judge: 0002 counted wrong: accuracy 2/4; R_O = 1 - (0.7 + 0.05)/2; R_U = (0.9 + 1.0)/2
    assert m["auto_accuracy"] == 0.5
    assert m["auto_hmr"] == pytest.approx(2 * 0.625 * 0.95 / (0.625 + 0.95), abs=1e-15)
    assert m["n_nuggets_unresolved"] == 0


def test_sample_submission_through_score_py(tmp_path):
    """The Codabench entry with the r2c2-ac and r2c2-pr reference folders; the PR run of the sample
    submission is scored as an r2c2-pr run and cited by the AC run."""
    ref = tmp_path / "input" / "ref"
    for task in ("r2c2-ac", "r2c2-pr"):
        shutil.copytree(os.path.join(ROOT, "reference_data", task), str(ref / task))
    shutil.copytree(os.path.dirname(SAMPLE_RUN), str(tmp_path / "input" / "res"))
    code, out, err = run_score_py(tmp_path / "input", tmp_path / "output")
    assert code == 0, err
    scores = json.loads((tmp_path / "output" / "scores.json").read_text())
    assert scores["r2c2_ac_hmr"] == pytest.approx(2 * 0.95 * (2.6 / 3) / (0.95 + 2.6 / 3), abs=1e-9)
    assert "r2c2_pr_msndcg20" in scores
    assert all(len(k) <= 36 for k in scores)


def test_bad_run_against_the_sample_reference_exits_1_with_every_error(tmp_path):
    """Every error of the file is listed with its line (out-of-range confidence, no labels), no traceback."""
    write(tmp_path / "T-AC-1", "<D0001>a;900\n</D0001>\n")
    code, out, err = run_cli("score", "--task", "r2c2-ac", "--ref", SAMPLE_REF, tmp_path / "T-AC-1")
    assert code == 1
    assert "T-AC-1:1: error: Confidence 900 of question 0001 is outside the [0-100] range" in err
    assert "error: the reference has no judgement labels for run T-AC-1" in err
    assert "Traceback" not in err
