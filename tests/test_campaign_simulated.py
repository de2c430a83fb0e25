"""A simulated campaign, the whole way: teams' formal runs, a hidden truth, pool, sheets filled from the truth (one
topic through the assessment page in Chromium), import, score. Every score must equal the one computed directly
from the truth restricted to the pool, by code that shares nothing with runscore's path: the pool is rebuilt from
the raw run lines by the run formats' own words, ntcir1-adhoc is scored by pytrec_eval (trec_eval), temporalia-tir,
r2c2-ac and r2c2-pr by the few lines of arithmetic below (specs: temporalia.md 2.4, r2c2.md 3 and 4.3,
ranking-measures.md B.2).
"""
import hashlib
import json
import math
import os
import random

import pytest

from runscore.campaign.sheet import read_sheet, write_sheet
from runscore.cli import main

import test_campaign_assess_page as page_test
from test_campaign_assess_page import press, saved_sheet

browser = page_test.browser       # the headless Chromium fixture (skips without Chromium)


def fill_sheets(pool_path, truth_of, folder, split=2):
    """The pool split between `split` assessors by topic, every label taken from the truth."""
    columns, rows = read_sheet(pool_path)
    topics = sorted({r.values["topic"] for r in rows})
    sheets = []
    for n in range(split):
        mine = [dict(r.values, label=truth_of(r.values)) for r in rows if topics.index(r.values["topic"]) % split == n]
        path = os.path.join(str(folder), "assessor%d.tsv" % n)
        write_sheet(path, columns, mine)
        sheets.append(path)
    return sheets


def scores_of(capsys, argv):
    capsys.readouterr()
    assert main(argv + ["--json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


# ------------------------------------------------------------------------------------ ntcir1-adhoc ---
def test_ntcir1_adhoc_campaign(tmp_path, capsys):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = random.Random(2024)
    topics = ["%04d" % t for t in range(31, 37)]
    docs = ["gakkai-%010d" % d for d in range(60)]
    truth = {(t, d): rng.choice("SAABBCCCCC") for t in topics for d in docs if rng.random() < 0.5}
    runs = {}
    for team in "wxyz":
        for n in (1, 2):
            run_id = "%s%d" % (team, n)
            runs[run_id] = {t: {d: round(rng.uniform(0, 5), 1) for d in rng.sample(docs, 30)} for t in topics}
            with open(str(tmp_path / run_id), "w") as handle:
                for t in topics:
                    for rank, (d, s) in enumerate(runs[run_id][t].items(), 1):
                        handle.write("%s\t0\t%s\t%d\t%s\t%s\n" % (t, d, rank, s, run_id))
    k = 10
    # the oracle pool: per run and topic, Similarity descending, ties by Document-ID descending (trec_eval)
    pool = {t: set() for t in topics}
    for run in runs.values():
        for t in topics:
            ranked = sorted(run[t].items(), key=lambda e: (e[1], e[0]), reverse=True)
            pool[t].update(d for d, _ in ranked[:k])
    out = str(tmp_path / "pool")
    assert main(["pool", "--task", "ntcir1-adhoc", "--depth", str(k)] + [str(tmp_path / r) for r in runs] +
                ["-o", out]) == 0
    _, rows = read_sheet(os.path.join(out, "pool.tsv"))
    assert {t: {r.values["item"] for r in rows if r.values["topic"] == t} for t in topics} == pool
    sheets = fill_sheets(os.path.join(out, "pool.tsv"), lambda v: truth.get((v["topic"], v["item"]), "C"), tmp_path)
    ref = str(tmp_path / "ref")
    assert main(["judgements", "--task", "ntcir1-adhoc", "--pool", os.path.join(out, "pool.tsv")] + sheets +
                ["-o", ref]) == 0
    got = scores_of(capsys, ["score", "--task", "ntcir1-adhoc", "--ref", ref] + [str(tmp_path / r) for r in runs])
    for level, relevant in (("rel1", "SA"), ("rel2", "SAB")):
        qrels = {t: {d: int(truth.get((t, d), "C") in relevant) for d in pool[t]} for t in topics}
        evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P_10", "Rprec"})
        for run_id, run in runs.items():
            per_topic = evaluator.evaluate({t: {d: float(s) for d, s in run[t].items()} for t in topics})
            assert len(per_topic) == len(topics)
            for ours, theirs in (("map", "map"), ("P_10", "P_10"), ("Rprec", "Rprec")):
                expected = sum(v[theirs] for v in per_topic.values()) / len(topics)
                assert got[run_id]["%s_%s" % (ours, level)] == pytest.approx(expected, abs=1e-12), (run_id, ours)


# ------------------------------------------------------------------------------------ temporalia-tir ---
def msndcg(levels, all_levels, gains, cutoff=20):
    def dcg(values):
        return sum(gains[v] / math.log2(r + 1) for r, v in enumerate(values[:cutoff], 1) if v > 0)
    ideal = dcg(sorted(all_levels, reverse=True))
    return dcg(levels) / ideal


def test_temporalia_tir_campaign_one_topic_through_the_page(tmp_path, capsys, browser):
    rng = random.Random(11)
    subtopics = ["%03d%s" % (t, c) for t in range(1, 5) for c in "praf"]
    docs = ["lk-2013%04d_%d" % (d, d % 7) for d in range(50)]
    truth = {(s, d): rng.choice([0, 0, 0, 1, 1, 2]) for s in subtopics for d in docs}
    runs = {}            # run -> subtopic -> [(rank, line order, doc)]
    for group in ("ga", "gb", "gc"):
        lines = []
        for n in (1, 2):
            run_id = "%s_run%d" % (group, n)
            runs[run_id] = {}
            for s in subtopics:
                chosen = rng.sample(docs, 30)
                entries = []
                for i, d in enumerate(chosen):
                    rank = i + 1 if rng.random() < 0.8 else max(1, i)          # some equal ranks
                    entries.append((rank, len(lines), d))
                    lines.append("%s\t%d\t%s\t%s\t%s" % (s, rank, d, group, run_id))
                runs[run_id][s] = entries
        (tmp_path / ("tir_%s" % group)).write_text("\n".join(lines) + "\n")
    k = 8
    ranked = {r: {s: [d for _, _, d in sorted(e)] for s, e in per.items()} for r, per in runs.items()}
    pool = {s: set() for s in subtopics}
    for per in ranked.values():
        for s, docs_in_order in per.items():
            pool[s].update(docs_in_order[:k])
    out = str(tmp_path / "pool")
    assert main(["pool", "--task", "temporalia-tir", "--depth", str(k), "--html"] +
                [str(tmp_path / ("tir_%s" % g)) for g in ("ga", "gb", "gc")] + ["-o", out]) == 0
    pool_path = os.path.join(out, "pool.tsv")
    _, rows = read_sheet(pool_path)
    assert {s: {r.values["item"] for r in rows if r.values["topic"] == s} for s in subtopics} == pool
    # topic 001p through the page: the truth's label typed with its key for every item, in the page's order
    browser.get("file://" + os.path.join(out, "assess", "topic-001p.html"))
    page_items = [e.get_attribute("data-item") for e in browser.find_elements("css selector", ".card")]
    press(browser, [str(truth[("001p", d)]) for d in page_items])
    browser.find_element("id", "save").click()
    from_page = saved_sheet(browser, "labels-001p.tsv")
    sheets = fill_sheets(pool_path, lambda v: "L%d" % truth[(v["topic"], v["item"])], tmp_path)
    columns, first = read_sheet(sheets[0])
    write_sheet(sheets[0], columns, [r.values for r in first if r.values["topic"] != "001p"])
    ref = str(tmp_path / "ref")
    assert main(["judgements", "--task", "temporalia-tir", "--pool", pool_path, from_page] + sheets +
                ["-o", ref]) == 0
    got = scores_of(capsys, ["score", "--task", "temporalia-tir", "--ref", ref] +
                    [str(tmp_path / ("tir_%s" % g)) for g in ("ga", "gb", "gc")])
    level = {(s, d): truth[(s, d)] for s in subtopics for d in pool[s]}        # the truth restricted to the pool
    averaged = [s for s in subtopics if any(level[(s, d)] > 0 for d in pool[s])]
    gains = {1: 1, 2: 2}
    for run_id, per in ranked.items():
        p20 = [sum(1 for d in per[s][:20] if level.get((s, d), 0) > 0) / 20 for s in averaged]
        nd = [msndcg([level.get((s, d), 0) for d in per[s]], [level[(s, d)] for d in pool[s]], gains)
              for s in averaged]
        assert got[run_id]["p20"] == pytest.approx(sum(p20) / len(averaged), abs=1e-12)
        assert got[run_id]["msndcg20"] == pytest.approx(sum(nd) / len(averaged), abs=1e-12)


# ------------------------------------------------------------------------------------ r2c2-ac (+ PR) ---
def sha1(text):
    return hashlib.sha1(" ".join(text.split()).encode("utf-8")).hexdigest()


def test_r2c2_ac_campaign_and_its_pr_qrels(tmp_path, capsys):
    rng = random.Random(7)
    topics = ["%04d" % t for t in range(1, 9)]
    bank = {t: [("%d" % (5000 + 10 * int(t) + i), "Passage %d of question %s; with text." % (i, t))
                for i in range(15)] for t in topics}
    pr_folder = tmp_path / "pr"
    pr_folder.mkdir()
    pr_runs = {}
    for name in ("P1-PO-1", "P2-PG-1"):
        pr_runs[name] = {t: rng.sample(bank[t], 10) for t in topics}
        with open(str(pr_folder / name), "w") as handle:
            for t in topics:
                for rank, (doc, text) in enumerate(pr_runs[name][t], 1):
                    handle.write("%s;%d;%s;%s\n" % (t, rank, doc, text))
    answers = {t: ["Answer %s-%d" % (t, i) for i in range(3)] for t in topics}
    nugget_texts = {t: ["Nugget %s-%d" % (t, i) for i in range(3)] for t in topics}
    correct = {(t, a): rng.randint(0, 1) for t in topics for a in answers[t]}
    label = {}
    ac_runs = {}
    submissions = []
    for team in ("A1", "A2", "A3"):
        folder = tmp_path / team
        folder.mkdir()
        submissions.append(str(folder))
        for n in (1, 2):
            name = "%s-AC-%d" % (team, n)
            blocks = {}
            text = []
            for t in topics:
                if rng.random() < 0.15:
                    continue
                answer, conf = rng.choice(answers[t]), rng.randint(0, 100)
                nuggets = []
                for number in range(1, rng.randint(0, 3) + 1):
                    nuggets.append((number, rng.choice(list(pr_runs)), rng.randint(1, 12), rng.choice(nugget_texts[t])))
                blocks[t] = (answer, conf, nuggets)
                text.append("<D%s>%s;%d" % (t, answer, conf))
                text.extend("%d;%s;%d;%s" % n for n in nuggets)
                text.append("</D%s>" % t)
            ac_runs[name] = blocks
            (folder / name).write_text("\n".join(text) + "\n")

    def passage(t, pr_name, rank):
        found = pr_runs[pr_name][t]
        return found[rank - 1] if rank <= len(found) else None

    def nugget_label(t, doc, ptext, ntext):
        key = (t, doc, sha1(ptext), sha1(ntext))
        if key not in label:
            label[key] = rng.choice([0, 1, 2])
        return label[key]

    # the oracle's units: distinct answers, distinct (cited passage content, nugget text); unresolvable: not pooled
    units = set()
    for blocks in ac_runs.values():
        for t, (answer, _, nuggets) in blocks.items():
            units.add((t, "answer", sha1(answer)))
            for _, pr_name, rank, ntext in nuggets:
                found = passage(t, pr_name, rank)
                if found is not None:
                    units.add((t, "nugget", (found[0], sha1(found[1]), sha1(ntext))))
                    nugget_label(t, found[0], found[1], ntext)
    out = str(tmp_path / "pool")
    assert main(["pool", "--task", "r2c2-ac"] + submissions + ["--pr-runs", str(pr_folder), "-o", out]) == 0
    pool_path = os.path.join(out, "pool.tsv")
    _, rows = read_sheet(pool_path)
    assert len(rows) == len(units)

    def truth_of(values):
        if values["unit"] == "answer":
            return str(correct[(values["topic"], values["text"])])
        doc, phash, nhash = values["item"][len("nugget:"):].split("::")
        return str(next(v for (t, d, p, n), v in label.items()
                        if (t, d, p, n) == (values["topic"], doc, phash, nhash)))
    sheets = fill_sheets(pool_path, truth_of, tmp_path, split=3)
    ref = str(tmp_path / "ref")
    assert main(["judgements", "--task", "r2c2-ac", "--pool", pool_path] + sheets + ["-o", ref]) == 0
    run_files = [os.path.join(s, n) for s in submissions for n in sorted(os.listdir(s))]
    got = scores_of(capsys, ["score", "--task", "r2c2-ac", "--ref", ref] + run_files)
    official = sorted({t for blocks in ac_runs.values() for t in blocks})
    for name, blocks in ac_runs.items():
        y = {t: correct[(t, a)] for t, (a, _, _) in blocks.items()}
        c = {t: conf / 100 for t, (_, conf, _) in blocks.items()}
        wrong = [t for t in blocks if not y[t]]
        right = [t for t in blocks if y[t]]
        r_o = 1 - sum(c[t] for t in wrong) / len(wrong) if wrong else 1.0
        r_u = sum(c[t] for t in right) / len(right) if right else 1.0
        hmr = 2 * r_o * r_u / (r_o + r_u) if r_o + r_u else 0.0
        nugprec = {}
        for t, (_, _, nuggets) in blocks.items():
            relevant = 0
            for _, pr_name, rank, ntext in nuggets:
                found = passage(t, pr_name, rank)
                if found is not None and y[t] and nugget_label(t, found[0], found[1], ntext) == 2:
                    relevant += 1
            nugprec[t] = relevant / len(nuggets) if nuggets else 0.0
        assert got[name]["accuracy"] == pytest.approx(sum(y.values()) / len(y), abs=1e-12)
        assert got[name]["hmr"] == pytest.approx(hmr, abs=1e-12)
        assert got[name]["mnp"] == pytest.approx(sum(nugprec.values()) / len(official), abs=1e-12)

    # PR qrels through r2c2-qrels (a passage's level = entailed nugget lines citing it), then the PR runs scored
    qrels_path = str(tmp_path / "pr_ref" / "pr_qrels.tsv")
    os.makedirs(os.path.dirname(qrels_path))
    assert main(["r2c2-qrels", "--pr"] + [str(pr_folder / n) for n in pr_runs] +
                ["--ac"] + [os.path.join(ref, "assessed_runs", n) for n in sorted(ac_runs)] +
                ["--labels", os.path.join(ref, "ac_nugget_labels.tsv"), "-o", qrels_path]) == 0
    with open(os.path.join(os.path.dirname(qrels_path), "task.yaml"), "w") as handle:
        handle.write("task: r2c2-pr\nqrels: pr_qrels.tsv\n")
    got = scores_of(capsys, ["score", "--task", "r2c2-pr", "--ref", os.path.dirname(qrels_path)] +
                    [str(pr_folder / n) for n in pr_runs])
    count = {}
    for blocks in ac_runs.values():
        for t, (_, _, nuggets) in blocks.items():
            for _, pr_name, rank, ntext in nuggets:
                found = passage(t, pr_name, rank)
                if found is not None:
                    key = (t, found[0], sha1(found[1]))
                    count[key] = count.get(key, 0) + int(nugget_label(t, found[0], found[1], ntext) >= 1)
    top = max(count.values())
    gains = {k: k for k in range(1, top + 1)}
    scored = [t for t in topics if any(v > 0 for (tt, _, _), v in count.items() if tt == t)]
    for name, per in pr_runs.items():
        values = []
        for t in scored:
            levels = [count.get((t, doc, sha1(text)), 0) for doc, text in per[t]]
            all_levels = [v for (tt, _, _), v in count.items() if tt == t]
            values.append(msndcg(levels, all_levels, gains))
        assert got[name]["msndcg20"] == pytest.approx(sum(values) / len(scored), abs=1e-12)
