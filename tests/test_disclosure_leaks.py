"""Hidden means hidden: what a participant sees of a phase whose reference data is hidden cannot tell two secret
references apart unless the leaderboard values they give differ.

For every task: two secret references A and B hold the same questions and the same gold items, given to
different questions (B is A with the gold of some questions swapped), so every probe below (one-class runs,
one-document runs, one-line runs, empty runs) gets the same leaderboard values from both, while its per-question
values differ. Everything the participant sees (detailed page, stdout, stderr, scores.json, scores.txt) must be
byte-identical after paths are replaced; the same probes with `detail: full` (the sample phase) must differ,
so the test can fail. A canary test: gold strings no probe sends never appear in participant-visible output of
a hidden phase. The same holds for rejected submissions (each probe with a broken file beside it), which cost a
team nothing on Codabench.

Further cases, one per way a hidden reference leaked through messages and caps before the checks of a hidden
phase read only the task's public part of the reference: qqa23-mrc's warning on questions whose answers are all
dropped (it named the questions with gold answers), temporalia-tir's "subtopics not in the qrels" (and its exit
code), r2c2-ac's list of the pool's PR runs and its replay's error counts, and ntcir1-adhoc's submission of any
number of runs (each run's values shown).
"""
import contextlib
import io
import json
import os
import re

import pytest

from runscore.codabench import entry

OUTPUTS = ("detailed_results.html", "scores.json", "scores.txt")


def _write(folder, files):
    for name, text in files.items():
        path = os.path.join(str(folder), name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)


def score_as_platform(base, reference, submission, detail=None):
    """score.py in the Codabench layout (in-process: fast), every participant-visible output as one text."""
    ref = dict(reference)
    if detail is not None:
        ref["task.yaml"] = ref["task.yaml"] + "detail: %s\n" % detail
    _write(base / "input" / "ref", ref)
    (base / "input" / "res").mkdir(parents=True)
    _write(base / "input" / "res", submission)
    (base / "input" / "res" / "metadata").write_text("exitCode: null\n")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = entry.main(["score.py", str(base / "input"), str(base / "output")])
    shown = ["exit %d" % code, "== stdout", out.getvalue(), "== stderr", err.getvalue()]
    for name in OUTPUTS:
        path = base / "output" / name
        shown += ["== " + name, path.read_text(encoding="utf-8") if path.exists() else "(absent)"]
    return re.sub(re.escape(str(base)), "BASE", "\n".join(shown))


# ------------------------------------------------------------------------------------- the secrets ---
# Each case: (task.yaml text, gold files of A, gold files of B, probes {name: {file: text}}, canaries).
# B gives the gold items of A to other questions of the same kind, so a probe that treats every question alike
# (or touches only questions whose gold A and B share) has the same aggregates from both.

def tqic_case():
    labels = ["past", "future", "recency", "atemporal", "past", "future", "recency", "atemporal"]
    swapped = list(labels)
    swapped[0], swapped[1] = labels[1], labels[0]            # queries 001 and 002 trade their classes

    def gold(classes):
        return {"gold.tsv": "id\tclass\n" + "".join("%03d\t%s\n" % (i + 1, c) for i, c in enumerate(classes))}

    def run(rows):
        return "id\tclass\tgroup_id\trun_id\n" + "".join("%s\t%s\tg\t%s\n" % row for row in rows)

    ids = ["%03d" % (i + 1) for i in range(8)]
    probes = {"one-class": {"tqic_g": run([(q, "past", "r1") for q in ids] + [(q, "future", "r2") for q in ids]
                                          + [(q, "recency", "r3") for q in ids])},
              "one-line": {"tqic_g": run([("005", "past", "r1")])},
              "empty": {"tqic_g": "id\tclass\tgroup_id\trun_id\n"}}
    return "task: temporalia-tqic\ngold: gold.tsv\n", gold(labels), gold(swapped), probes, []


def ntcir1_case():
    # Topics 0031/0032 have one relevant document each (d1 / d2 in A, swapped in B); 0033 has none in A and d1
    # in B, 0034 the reverse: which topics have no relevant document differs too. d3 and the canary are judged
    # non-relevant everywhere; no probe sends the canary.
    def qrels(relevant):
        lines = []
        for topic, doc in relevant.items():
            for other in ("gakkai-0000000001", "gakkai-0000000002", "gakkai-0000000003", "gakkai-0009999999"):
                lines.append("%s\t%s\t%s\t%d\n" % (topic, "A" if other == doc else "C", other, other == doc))
        return "".join(lines)

    a = {"0031": "gakkai-0000000001", "0032": "gakkai-0000000002", "0033": None, "0034": "gakkai-0000000001"}
    b = {"0031": "gakkai-0000000002", "0032": "gakkai-0000000001", "0033": "gakkai-0000000001", "0034": None}
    topics = ["0031", "0032", "0033", "0034"]

    def run(name, docs):
        return "".join("%s\t0\t%s\t%d\t%d\t%s\n" % (t, d, r + 1, 100 - r, name)
                       for t in docs for r, d in enumerate(docs[t]))

    probes = {"one-document": {"ntc1": run("ntc1", {t: ["gakkai-0000000001"] for t in topics}),
                               "ntc2": run("ntc2", {t: ["gakkai-0000000002"] for t in topics})},
              "one-line": {"ntc3": run("ntc3", {"0031": ["gakkai-0000000003"]})},
              "empty": {"ntc4": ""}}
    yaml_text = "task: ntcir1-adhoc\nqrels:\n  rel1: rel1\n  rel2: rel2\n"
    return (yaml_text, {"rel1": qrels(a), "rel2": qrels(a)}, {"rel1": qrels(b), "rel2": qrels(b)}, probes,
            ["gakkai-0009999999"])


def tir_case():
    docs = ["lk-20130101_000", "lk-20130101_001", "lk-20130101_002", "lk-canary_99"]

    def qrels(relevant):
        return "".join("%s %s %s\n" % (sub, d, ("L2" if d == rel else "L0")) for sub, rel in relevant.items()
                       for d in docs)

    a = {"001p": docs[0], "002p": docs[1], "003p": None, "004p": docs[0], "001f": docs[1], "002f": docs[0]}
    b = {"001p": docs[1], "002p": docs[0], "003p": docs[0], "004p": None, "001f": docs[0], "002f": docs[1]}

    def run(rows, run_id="r1"):
        return "id\trank\tdoc_id\tgroup_id\trun_id\n" + "".join("%s\t%d\t%s\tg\t%s\n" % (s, i + 1, d, run_id)
                                                                  for s, ds in rows for i, d in enumerate(ds))

    subs = list(a)
    probes = {"one-document": {"tir_g": run([(s, [docs[0]]) for s in subs]) +
                               "".join(run([(s, [docs[1]]) for s in subs], "r2").splitlines(True)[1:])},
              "one-line": {"tir_g": run([("001p", [docs[2]])])},
              "empty": {"tir_g": "id\trank\tdoc_id\tgroup_id\trun_id\n"}}
    return "task: temporalia-tir\nqrels: qrels.txt\n", {"qrels.txt": qrels(a)}, {"qrels.txt": qrels(b)}, probes, \
        ["lk-canary_99"]


def r2c2_pr_case():
    import hashlib

    passages = [("Q1001", "The starship Aurora was launched in 2101."), ("Q1002", "Harbour towns trade in salt."),
                ("Q1003", "A map of Ked shows three mountains."), ("Q9999", "CANARY passage never sent.")]
    keys = ["%s::%s" % (d, hashlib.sha1(t.encode("utf-8")).hexdigest()) for d, t in passages]

    def qrels(relevant):
        return "qID\tpassage_key\tlevel\n" + "".join("%s\t%s\t%s\n" % (q, k, "L2" if rel is not None
                                                                                 and k == keys[rel] else "L0")
                                                    for q, rel in relevant.items() for k in keys)

    a = {"0001": 0, "0002": 1, "0003": None, "0004": 0}
    b = {"0001": 1, "0002": 0, "0003": 0, "0004": None}

    def run(rows):
        return "".join("%s;%d;%s;%s\n" % (q, i + 1, passages[p][0], passages[p][1]) for q, ps in rows
                       for i, p in enumerate(ps))

    qs = list(a)
    probes = {"one-document": {"TEAM-PO-1.txt": run([(q, [0]) for q in qs]),
                               "TEAM-PO-2.txt": run([(q, [1]) for q in qs])},
              "one-line": {"TEAM-PO-3.txt": run([("0001", [2])])},
              "empty": {"TEAM-PO-4.txt": ""}}
    yaml_text = "task: r2c2-pr\nqrels: qrels.tsv\ntopics: topics.txt\n"
    topics = "".join(q + "\n" for q in qs)
    return (yaml_text, {"qrels.tsv": qrels(a), "topics.txt": topics}, {"qrels.tsv": qrels(b), "topics.txt": topics},
            probes, ["Q9999", keys[3].split("::")[1]])


def r2c2_ac_case():
    answers = {"0001": "Mira Okonkwo", "0002": "Teodor Lanz", "0003": "CANARYGOLDANSWER", "0004": "Vell"}
    swapped = dict(answers)
    swapped["0001"], swapped["0002"] = answers["0002"], answers["0001"]

    def gold(table):
        return "qID\tanswer\n" + "".join("%s\t%s\n" % row for row in table.items())

    def run(rows):
        return "".join("<D%s>%s;%d\n</D%s>\n" % (q, text, conf, q) for q, text, conf in rows)

    qs = ["0001", "0002", "0003", "0004"]
    probes = {"one-answer": {"TEAM-AC-1": run([(q, "Mira Okonkwo", 80) for q in qs]),
                             "TEAM-AC-2": run([(q, "Teodor Lanz", 60) for q in qs])},
              "one-line": {"TEAM-AC-3": run([("0004", "Vell", 50)])},
              "empty": {"TEAM-AC-4": ""}}
    yaml_text = ("task: r2c2-ac\ntopics: topics.txt\ngold_answers: gold.tsv\n"
                 "options:\n  unlabelled_runs: auto_only\n")
    topics = "".join(q + "\n" for q in qs)
    return (yaml_text, {"gold.tsv": gold(answers), "topics.txt": topics},
            {"gold.tsv": gold(swapped), "topics.txt": topics}, probes, ["CANARYGOLDANSWER"])


def qqa23_case():
    passage = "ذهب الطالب إلى المدرسة في الصباح . وقرأ الكتاب ومن ثم كتب الدرس . كناري"
    answers = {"901:1-3_001": [("الكتاب", passage.index("الكتاب"))], "901:1-3_002": [],
               "901:1-3_003": [("كناري", passage.index("كناري"))], "901:1-3_004": [("الطالب", passage.index("الطالب"))]}
    swapped = dict(answers)
    swapped["901:1-3_001"], swapped["901:1-3_002"] = answers["901:1-3_002"], answers["901:1-3_001"]

    def gold(table):
        return "".join(json.dumps({"pq_id": q, "passage": passage, "surah": 901, "verses": "1-3",
                                   "question": "سؤال %d ؟" % i, "answers": [{"text": t, "start_char": s}
                                                                         for t, s in table[q]]},
                                  ensure_ascii=False) + "\n" for i, q in enumerate(table))

    def run(table):
        return json.dumps({q: [{"answer": t, "rank": i + 1, "score": 1.0 - i / 10.0} for i, t in enumerate(ts)]
                           for q, ts in table.items()}, ensure_ascii=False)

    qs = list(answers)
    stop_word = passage.split().index("إلى")           # an answer the scorer drops (a stop word)
    dropped = json.dumps({q: [{"answer": "إلى", "rank": 1, "score": 1.0, "strt_token_indx": stop_word,
                               "end_token_indx": stop_word}] for q in qs}, ensure_ascii=False)
    probes = {"one-answer": {"team_run01.json": run({q: ["الكتاب"] for q in qs})},
              "all-dropped": {"team_run05.json": dropped},
              "no-answer": {"team_run02.json": run({q: [] for q in qs})},
              "one-line": {"team_run03.json": run({"901:1-3_004": ["الطالب"]})},
              "empty": {"team_run04.json": "{}"}}
    return ("task: qqa23-mrc\ngold: gold.jsonl\n", {"gold.jsonl": gold(answers)}, {"gold.jsonl": gold(swapped)},
            probes, ["كناري"])


def datasearch_case():
    answers = {"DS2-QA-E-0001": "Iowa", "DS2-QA-E-0002": "2010", "DS2-QA-E-0003": "CANARY-DS-GOLD",
               "DS2-QA-J-0001": "東京", "DS2-QA-J-0002": "大阪"}
    swapped = dict(answers)
    swapped["DS2-QA-E-0001"], swapped["DS2-QA-E-0002"] = answers["DS2-QA-E-0002"], answers["DS2-QA-E-0001"]
    swapped["DS2-QA-J-0001"], swapped["DS2-QA-J-0002"] = answers["DS2-QA-J-0002"], answers["DS2-QA-J-0001"]

    def gold(table):
        return "".join(json.dumps({"qid": q, "answers": [a], "lang": q.split("-")[2]}, ensure_ascii=False) + "\n"
                       for q, a in table.items())

    def run(rows):
        return "<SYSDESC>probe</SYSDESC>\n" + "".join("%s\t%s\n" % row for row in rows)

    qs = list(answers)
    probes = {"one-answer": {"ds_a.tsv": run([(q, "Iowa") for q in qs])},
              "one-line": {"ds_b.tsv": run([("DS2-QA-E-0003", "wrong")])},
              "empty": {"ds_c.tsv": "<SYSDESC>probe</SYSDESC>\n"}}
    return "task: datasearch-qa\ngold: gold.jsonl\n", {"gold.jsonl": gold(answers)}, {"gold.jsonl": gold(swapped)}, \
        probes, ["CANARY-DS-GOLD"]


def ntcir1_runs_case():
    """More runs than a hidden phase scores: each run's leaderboard values would be shown. Run ntc1 (the row) gets
    the same values from both secrets, ntc2..ntc4 do not."""
    yaml_text, a, b, _, canaries = ntcir1_case()

    def run(name, topic, doc):
        return "%s\t0\t%s\t1\t100\t%s\n" % (topic, doc, name)

    probes = {"four-runs": {"ntc1": run("ntc1", "0031", "gakkai-0000000003"),
                            "ntc2": run("ntc2", "0031", "gakkai-0000000001"),
                            "ntc3": run("ntc3", "0032", "gakkai-0000000001"),
                            "ntc4": run("ntc4", "0033", "gakkai-0000000001")}}
    return yaml_text, a, b, probes, canaries


def tir_judged_case():
    """Which subtopics the assessors judged is hidden: A judges 005a, B judges 005p (neither has a relevant
    document, so no mean counts them); a run answering 005a only scores 0 from both."""
    yaml_text, a, b, _, canaries = tir_case()
    a = {"qrels.txt": a["qrels.txt"] + "005a lk-20130101_000 L0\n005a lk-20130101_001 L0\n"}
    b = {"qrels.txt": a["qrels.txt"].replace("005a", "005p")}
    probe = "id\trank\tdoc_id\tgroup_id\trun_id\n005a\t1\tlk-20130101_002\tg\tr1\n"
    return yaml_text, a, b, {"unjudged-subtopic": {"tir_g": probe}}, canaries


def r2c2_ac_pool_case():
    """Which PR runs the reference's pool holds is hidden: a nugget citing a run in neither pool."""
    yaml_text, a, b, _, canaries = r2c2_ac_case()
    yaml_text = yaml_text.replace("options:", "pr_runs: pool\noptions:")
    a = dict(a, **{"pool/ORGA-PO-1.txt": "0001;1;Q1;Mira Okonkwo directed it.\n"})
    b = dict(b, **{"pool/ORGB-PO-1.txt": "0001;1;Q1;Mira Okonkwo directed it.\n"})
    b["gold.tsv"] = a["gold.tsv"]                                   # the same gold: only the pool differs
    probe = "<D0001>Mira Okonkwo;80\n1;NOBODY-PO-1;1;Mira Okonkwo directed it.\n</D0001>\n"
    return yaml_text, a, b, {"unknown-pr-run": {"TEAM-AC-1": probe}}, canaries + ["ORGA-PO-1", "ORGB-PO-1"]


def r2c2_ac_replay_case():
    """How much a run differs from the run assessed under its name is hidden: A's assessed copy differs from the
    probe in one answer, B's in sixty (more different errors than a report lists)."""
    topics = ["%04d" % q for q in range(1, 61)]

    def run(confidence_of):
        return "".join("<D%s>answer %s;%d\n</D%s>\n" % (q, q, confidence_of(q), q) for q in topics)

    labels = "run_id\tqID\tcorrect\n" + "".join("TEAM-AC-1\t%s\t1\n" % q for q in topics)
    yaml_text = ("task: r2c2-ac\ntopics: topics.txt\nanswer_labels: labels.tsv\nassessed_runs: assessed\n")
    common = {"topics.txt": "".join(q + "\n" for q in topics), "labels.tsv": labels}
    a = dict(common, **{"assessed/TEAM-AC-1": run(lambda q: 51 if q == "0001" else 50)})
    b = dict(common, **{"assessed/TEAM-AC-1": run(lambda q: 51)})
    return yaml_text, a, b, {"changed-run": {"TEAM-AC-1": run(lambda q: 50)}}, []


def r2c2_pr_beyond_the_precision_case():
    """The leaderboard shows a column at its precision (4 decimals), and so must everything else: Codabench stores
    a score with 10 decimals and its API (`/api/submissions/`, the submitter's own rows) returns them, so scores
    files written with 10 decimals gave every run a value far finer than the channel's bound counts. A and B
    judge question 0001 so that the probe's MSnDCG@20 is 0.268866 (A) and 0.268908 (B), both 0.2689 (found by
    search over four retrieved and three unretrieved passages on levels L0-L2)."""
    import hashlib

    texts = ["Passage number %d about the harbour." % i for i in range(7)]
    keys = ["P%d::%s" % (i, hashlib.sha1(t.encode("utf-8")).hexdigest()) for i, t in enumerate(texts)]

    def qrels(levels):
        return "qID\tpassage_key\tlevel\n" + "".join("0001\t%s\tL%d\n" % (k, lvl) for k, lvl in zip(keys, levels))

    a, b = qrels([0, 1, 0, 1, 1, 1, 2]), qrels([0, 2, 0, 0, 1, 2, 2])       # ranks 1-4, then three not retrieved
    probe = "".join("0001;%d;P%d;%s\n" % (i + 1, i, texts[i]) for i in range(4))
    yaml_text = "task: r2c2-pr\nqrels: qrels.tsv\ntopics: topics.txt\n"
    return (yaml_text, {"qrels.tsv": a, "topics.txt": "0001\n"}, {"qrels.tsv": b, "topics.txt": "0001\n"},
            {"four-passages": {"TEAM-PO-1.txt": probe}}, [])


def r2c2_pr_replay_case():
    """Which passage another team's assessed run holds at a rank is hidden (a replay leaderboard, passage_key_mode
    run_rank). The replay checked only the passages a file holds, so a one-line file named like the assessed run
    was accepted exactly when its passage was the assessed one: in a free rejected submission, one guess per
    file. A holds passage Q1001 at rank 1 of question 0001, B another; a run must now be the whole run as it was
    assessed, so both refuse the one-line probe alike."""
    lines = ["0001;1;Q1001;The fictional starship Aurora was launched in 2101.\n",
             "0001;2;Q1002;Harbour towns of the Vell coast trade in salt and amber.\n",
             "0002;1;Q2003;A map of Ked shows three mountains.\n"]
    other = "0001;1;Q1009;The Aurora returned to port after nine years.\n"
    qrels = "".join("%s\tSAMPLE-PO-1::%d\tL1\n" % key for key in (("0001", 1), ("0001", 2), ("0002", 1)))
    yaml_text = ("task: r2c2-pr\nqrels: qrels.tsv\nassessed_runs: assessed\noptions:\n"
                 "  passage_key_mode: run_rank\n")
    a = {"qrels.tsv": qrels, "assessed/SAMPLE-PO-1.txt": "".join(lines)}
    b = {"qrels.tsv": qrels, "assessed/SAMPLE-PO-1.txt": "".join([other] + lines[1:])}
    return yaml_text, a, b, {"one-passage": {"SAMPLE-PO-1.txt": lines[0]}}, []


CASES = {"temporalia-tqic": tqic_case, "ntcir1-adhoc": ntcir1_case, "temporalia-tir": tir_case,
         "r2c2-pr": r2c2_pr_case, "r2c2-ac": r2c2_ac_case, "qqa23-mrc": qqa23_case, "datasearch-qa": datasearch_case,
         "ntcir1-adhoc runs per submission": ntcir1_runs_case, "temporalia-tir judged subtopics": tir_judged_case,
         "r2c2-ac pool": r2c2_ac_pool_case, "r2c2-ac replay": r2c2_ac_replay_case,
         "r2c2-pr beyond the precision": r2c2_pr_beyond_the_precision_case, "r2c2-pr replay": r2c2_pr_replay_case}
# A file that is no run of any task: beside a probe it makes the submission rejected.
BROKEN = {"zz-broken": "this is not a run\n"}


def _reference(yaml_text, gold):
    return dict(gold, **{"task.yaml": yaml_text})


def _outputs(tmp_path, task_id, secret, detail=None, extra=None):
    yaml_text, gold_a, gold_b, probes, _ = CASES[task_id]()
    gold = gold_a if secret == "A" else gold_b
    return {name: score_as_platform(tmp_path / ("%s-%s-%s" % (name, secret, detail)), _reference(yaml_text, gold),
                                    dict(files, **(extra or {})), detail)
            for name, files in probes.items()}


@pytest.mark.parametrize("task_id", sorted(CASES))
def test_hidden_phase_output_is_the_same_for_two_secrets_with_the_same_aggregates(tmp_path, task_id):
    a, b = _outputs(tmp_path, task_id, "A"), _outputs(tmp_path, task_id, "B")
    for probe in a:
        assert "exit 2" not in a[probe], a[probe]
        assert a[probe] == b[probe], "probe %s of %s tells the secrets apart:\n%s" % (
            probe, task_id, "\n".join(_first_difference(a[probe], b[probe])))


@pytest.mark.parametrize("task_id", sorted(CASES))
def test_a_rejected_submission_shows_the_same_reason_for_two_secrets(tmp_path, task_id):
    """Each probe beside a broken file: the submission is rejected, and what it shows (its errors only) cannot
    tell the secrets apart either. Rejected submissions are free on Codabench, so they must tell nothing."""
    a, b = _outputs(tmp_path, task_id, "A", extra=BROKEN), _outputs(tmp_path, task_id, "B", extra=BROKEN)
    for probe in a:
        assert a[probe].startswith("exit 1"), a[probe]
        assert a[probe] == b[probe], "rejected probe %s of %s tells the secrets apart:\n%s" % (
            probe, task_id, "\n".join(_first_difference(a[probe], b[probe])))


@pytest.mark.parametrize("task_id", sorted(CASES))
def test_the_same_probes_tell_the_secrets_apart_in_a_full_phase(tmp_path, task_id):
    """The test above can fail: with `detail: full` (the sample phase) some probe's page differs."""
    a, b = _outputs(tmp_path, task_id, "A", "full"), _outputs(tmp_path, task_id, "B", "full")
    assert any(a[p] != b[p] for p in a)


@pytest.mark.parametrize("task_id", sorted(CASES))
def test_canaries_never_reach_a_participant_of_a_hidden_phase(tmp_path, task_id):
    canaries = CASES[task_id]()[4]
    for secret in ("A", "B"):
        for probe, shown in _outputs(tmp_path, task_id, secret).items():
            for canary in canaries:
                assert canary not in shown, (probe, canary)


def _first_difference(a, b):
    """The text around the first character where the two outputs differ."""
    at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return [repr(a[max(0, at - 300):at + 200]), "  vs", repr(b[max(0, at - 300):at + 200])]


@pytest.mark.parametrize("task_id", sorted(c for c in CASES if " " not in c))      # one case per task
def test_a_per_topic_phase_shows_effectiveness_values_and_no_gold_counts(tmp_path, task_id):
    from runscore.codabench.disclosure import effectiveness_keys
    from runscore.tasks import get_task

    task = get_task(task_id)
    kept = effectiveness_keys(task)
    withheld = [k for k in task.per_topic_measures if k not in kept]
    tables = 0
    for probe, shown in _outputs(tmp_path, task_id, "A", "per_topic").items():
        page = shown[shown.index("== detailed_results.html"):]
        assert not [k for k in withheld if "<th>%s</th>" % k in page], probe
        if "<h4>Per-%s values</h4>" % task.topic_unit in page:
            tables += 1
            assert any("<th>%s</th>" % k in page for k in kept), probe
    assert tables > 0                     # the per-topic values are shown: the checks above looked at something
