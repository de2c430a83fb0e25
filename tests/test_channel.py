"""The aggregate channel of a hidden phase, bounded and stated (codabench/channel.py), and the attack that found it
wide open, run again.

The attack: one submission of 100 one-topic NTCIR-1 runs, each placing six judged documents at ranks 1, 6, 11,
16, 21 and 31 (unjudged fillers between them), read P@5, P@10, P@15, P@20, P@30 and P@100 at both levels off the
page's table of every measure and decoded every (document, level) judgement: 1,200 of 1,200. Now a hidden phase
scores at most three runs of an NTCIR-1 submission and shows each run's leaderboard columns only.
"""
import contextlib
import io
import math
import os
import random
import re

import pytest

from conftest import ROOT
from runscore.codabench import channel, entry

LEVELS = ("rel1", "rel2")
CUTOFFS = (5, 10, 15, 20, 30, 100)
RANKS = (1, 6, 11, 16, 21, 31)          # one candidate before each cutoff


def secret_reference(folder, topics, seed=7):
    """Six candidates a topic with seeded grades A, B or C; rel1 = A, rel2 = A or B. Returns the truth:
    {(topic, doc, level): 0 or 1}."""
    rng = random.Random(seed)
    truth, lines = {}, {level: [] for level in LEVELS}
    for topic in topics:
        for k in range(len(RANKS)):
            doc, grade = "gakkai-%s%06d" % (topic, k), rng.choice("ABC")
            for level, relevant in (("rel1", grade == "A"), ("rel2", grade in "AB")):
                truth[(topic, doc, level)] = int(relevant)
                lines[level].append("%s\t%s\t%s\t%d\n" % (topic, grade, doc, relevant))
    os.makedirs(str(folder))
    for level in LEVELS:
        (folder / level).write_text("".join(lines[level]))
    (folder / "task.yaml").write_text("task: ntcir1-adhoc\nqrels:\n  rel1: rel1\n  rel2: rel2\n")   # hidden
    return truth


def probe_run(name, topic):
    """The candidates of `topic` at RANKS, unjudged fillers elsewhere, 31 documents."""
    docs = {rank: "gakkai-%s%06d" % (topic, k) for k, rank in enumerate(RANKS)}
    return "".join("%s\t0\t%s\t%d\t%d\t%s\n" % (topic, docs.get(rank, "gakkai-9%s%05d" % (topic, rank)), rank,
                                                1000 - rank, name) for rank in range(1, 32))


def submit(base, reference_files, runs):
    """score.py as the platform runs it, in-process: (exit code, stderr, page)."""
    res = base / "input" / "res"
    os.makedirs(str(res))
    for name, text in runs.items():
        (res / name).write_text(text)
    (res / "metadata").write_text("exitCode: null\nelapsedTime: null\n")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = entry.main(["score.py", str(base / "input"), str(base / "output")])
    page = (base / "output" / "detailed_results.html").read_text(encoding="utf-8")
    return code, err.getvalue(), page


def decode_every_measure(page, runs, n_topics):
    """The issue's decoder: P@k at both levels of each run, read off the page, give each candidate's judgement
    (a run's P@k is the mean over the n_topics topics of the qrels, the others scoring 0). Returns
    {(topic, doc, level): 0 or 1} of what it could read."""
    decoded = {}
    sections = re.split(r"<h3[^>]*>Run ", page)
    for section in sections[1:]:
        name = section.split(" ", 1)[0].split("<", 1)[0]
        topic = runs.get(name)
        if topic is None:
            continue
        values = dict(re.findall(r">(P_\d+_rel\d)</td><td>([0-9.]+)</td>", section))
        for level in LEVELS:
            hits = [round(float(values["P_%d_%s" % (k, level)]) * k * n_topics) if "P_%d_%s" % (k, level) in values
                    else None for k in CUTOFFS]
            for k in range(len(RANKS)):
                if hits[k] is not None and (k == 0 or hits[k - 1] is not None):
                    decoded[(topic, "gakkai-%s%06d" % (topic, k), level)] = hits[k] - (hits[k - 1] if k else 0)
    return decoded


def shown_columns(page):
    """{run: [its leaderboard column values]} from the page's table of every run's columns."""
    table = page.split("Leaderboard columns of every run", 1)[1].split("</table>", 1)[0]
    rows = re.findall(r'<tr[^>]*><td class="text">([^<]+)</td>((?:<td>[^<]*</td>)+)', table)
    return {name: [float(v) for v in re.findall(r"<td>([^<]*)</td>", cells)] for name, cells in rows}


def decode_columns(page, runs, n_topics, task):
    """What the leaderboard columns give away at best for these probes: P@10 of a run counts its candidates at
    ranks 1 and 6 (means over the n_topics topics): one number a level."""
    index = [c.measure for c in task.columns]
    return {(runs[name], level): round(values[index.index("P_10_" + level)] * 10 * n_topics)
            for name, values in shown_columns(page).items() for level in LEVELS}


def test_the_issues_attack_decodes_nothing_beyond_the_documented_channel(tmp_path):
    topics = ["%04d" % t for t in range(101, 201)]
    truth = secret_reference(tmp_path / "secret", topics)
    runs = {"ntc%d" % (i + 1): topic for i, topic in enumerate(topics)}
    ref = tmp_path / "secret"

    # 100 runs in one submission: refused (a hidden phase scores at most 3 NTCIR-1 runs), nothing shown
    base = tmp_path / "hundred"
    os.makedirs(str(base / "input"))
    os.symlink(str(ref), str(base / "input" / "ref"))
    code, err, page = submit(base, None, {name: probe_run(name, t) for name, t in runs.items()})
    decoded = decode_every_measure(page, runs, len(topics))
    right = sum(1 for key, value in decoded.items() if truth[key] == value)
    assert code == 1 and "at most 3 are allowed in a submission" in err, err
    assert right == 0, "decoded %d of %d judgements" % (right, len(truth))     # the old page gave 1,200 of 1,200

    # the cap's 3 runs: only the leaderboard columns are on the page, and the every-measure decoder reads nothing
    base = tmp_path / "three"
    os.makedirs(str(base / "input"))
    os.symlink(str(ref), str(base / "input" / "ref"))
    three = dict(list(runs.items())[:3])
    code, err, page = submit(base, None, {name: probe_run(name, t) for name, t in three.items()})
    assert code == 0, err
    from runscore.tasks import get_task

    task = get_task("ntcir1-adhoc")
    assert decode_every_measure(page, three, len(topics)) == {}
    assert "P_5_" not in page and "P_100_" not in page and "Every measure" not in page    # the columns only
    columns = shown_columns(page)
    assert sorted(columns) == sorted(three) and all(len(v) == len(task.columns) for v in columns.values())
    # what the columns still tell: the judgements of the candidates at ranks 1 and 6, summed, per level
    told = decode_columns(page, three, len(topics), task)
    for (topic, level), hits in told.items():
        assert hits == sum(truth[(topic, "gakkai-%s%06d" % (topic, k), level)] for k in (0, 1))
    bound = channel.channel(task)
    assert bound.runs == 3 and len(told) <= bound.bits_submission        # far inside the documented channel


def test_docs_state_the_computed_channel():
    """docs/codabench.md holds exactly what the script computes (regenerate: make channel-docs)."""
    with open(os.path.join(ROOT, "docs", "codabench.md"), encoding="utf-8") as handle:
        docs = handle.read()
    assert channel.generated() in docs


def test_every_task_has_a_hidden_phase_cap_and_limits():
    from runscore.tasks import all_tasks

    for task in all_tasks():
        found = channel.channel(task)
        assert 1 <= found.runs <= 4 and 1 <= found.per_day <= found.in_all, task.id
        assert task.hidden_reference is not None, task.id


@pytest.mark.parametrize("task_id, runs", [("ntcir1-adhoc", 3), ("temporalia-tqic", 3), ("r2c2-pr", 4),
                                           ("qqa23-mrc", 1)])
def test_the_bound_follows_the_columns_and_the_cap(task_id, runs):
    """bits a run = the sum over columns of log2(values at the column's precision); a submission = runs x that."""
    from runscore.tasks import get_task

    task = get_task(task_id)
    found = channel.channel(task)
    expected = sum(math.log2(round((task.value_range(c)[1] - task.value_range(c)[0]) * 10 ** c.precision) + 1)
                   for c in task.columns) + (1 if task.runs_need_reference else 0)
    assert found.runs == runs and found.bits_run == pytest.approx(expected)
    assert found.bits_submission == pytest.approx(runs * expected)
