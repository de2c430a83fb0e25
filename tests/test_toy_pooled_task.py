"""Adding a pooled task is filling in a form: a toy task whose only code is its own module (tests/toy_pooled_task.py)
and its entry in the registry goes the whole campaign way through the real commands: pool (sheet and assessment
pages), judgements into its reference folder, score, report (pool figures and leave-one-team-out).

Why: the campaign wing once chose by task id in five files, so a new pooled task meant editing all five; this test
fails as soon as the wing (or the platform) needs to know a task by name again.

The toy's numbers, derived by hand. Runs (score descending, ties by doc ascending; depth 2):
  alpha1  t1: d1 .9, d2 .8, d3 .7   t2: d4 .9, d5 .5
  alpha2  t1: d2 .9, d1 .9, d4 .1   t2: d5 .9, d6 .8
  beta1   t1: d3 .9, d5 .8          t2: d6 .9, d4 .8
Pool at depth 2: t1 {d1, d2, d3, d5} (d1, d2 from both alpha runs), t2 {d4, d5, d6}. The truth: d1 and d3 relevant
to t1, d6 to t2, every other pooled doc not. P@2: alpha1 (1/2 + 0)/2 = 0.25, alpha2 (1/2 + 1/2)/2 = 0.5, beta1
(1/2 + 1/2)/2 = 0.5. Leave-one-team-out at depth 2 takes out the judged items only that team pooled:
  team beta: t1's d3 and d5 (t2's d4 and d6 were pooled by alpha too): beta1 = (0 + 1/2)/2 = 0.25;
  team alpha: t1's d1 and d2, t2's d5: alpha1 = (0 + 0)/2 = 0.0, alpha2 = (0 + 1/2)/2 = 0.25.
"""
import csv
import json
import os

import pytest

from conftest import run_cli
from runscore import tasks
from runscore.campaign.sheet import read_sheet, write_sheet

import toy_pooled_task

RUNS = {
    "alpha1": [("t1", "d1", .9), ("t1", "d2", .8), ("t1", "d3", .7), ("t2", "d4", .9), ("t2", "d5", .5)],
    "alpha2": [("t1", "d2", .9), ("t1", "d1", .9), ("t1", "d4", .1), ("t2", "d5", .9), ("t2", "d6", .8)],
    "beta1": [("t1", "d3", .9), ("t1", "d5", .8), ("t2", "d6", .9), ("t2", "d4", .8)],
}
RELEVANT = {("t1", "d1"), ("t1", "d3"), ("t2", "d6")}


@pytest.fixture
def toy_registered(monkeypatch):
    """The toy task in the registry, as a module in runscore/tasks/ defining TASK would be found."""
    tasks.all_tasks()
    monkeypatch.setitem(tasks._TASKS, toy_pooled_task.TASK.id, toy_pooled_task.TASK)
    return toy_pooled_task.TASK


def write_runs(folder):
    os.makedirs(str(folder))
    paths = []
    for name, lines in RUNS.items():
        path = os.path.join(str(folder), name)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write("".join("%s\t%s\t%s\n" % line for line in lines))
        paths.append(path)
    return paths


def test_a_toy_pooled_task_goes_the_whole_campaign_way(toy_registered, tmp_path):
    runs = write_runs(tmp_path / "runs")
    pool_dir = tmp_path / "pool"

    code, out, err = run_cli("pool", "--task", "toy-pooled", "--depth", "2", *runs, "-o", pool_dir, "--html")
    assert code == 0, err
    columns, rows = read_sheet(str(pool_dir / "pool.tsv"))
    assert columns == ["topic", "item", "runs", "rank_sum", "best_rank", "run_names", "label"]
    assert sorted((r.values["topic"], r.values["item"]) for r in rows) == \
        [("t1", "d1"), ("t1", "d2"), ("t1", "d3"), ("t1", "d5"), ("t2", "d4"), ("t2", "d5"), ("t2", "d6")]
    assert {(r.values["topic"], r.values["item"]): r.values["run_names"] for r in rows}[("t1", "d1")] == \
        "alpha1,alpha2"
    assert sorted(os.listdir(str(pool_dir / "assess"))), "the assessment pages and sheets are written"
    stats = json.loads((pool_dir / "pool_stats.json").read_text())
    assert stats["task"] == "toy-pooled" and stats["items_per_topic"] == {"t1": 4, "t2": 3}

    sheet = str(tmp_path / "assessor.tsv")
    write_sheet(sheet, columns, [dict(r.values, label="1" if r.key in RELEVANT else "0") for r in rows])
    reference = tmp_path / "reference"
    code, out, err = run_cli("judgements", "--task", "toy-pooled", "--pool", pool_dir / "pool.tsv", sheet,
                             "-o", reference)
    assert code == 0, err
    assert sorted(os.listdir(str(reference))) == ["qrels.tsv", "task.yaml"]
    assert "task: toy-pooled" in (reference / "task.yaml").read_text()
    assert sorted((reference / "qrels.tsv").read_text().splitlines()) == sorted(
        "%s\t%s\t%d" % (t, d, (t, d) in RELEVANT) for t, d in [("t1", "d1"), ("t1", "d2"), ("t1", "d3"),
                                                               ("t1", "d5"), ("t2", "d4"), ("t2", "d5"), ("t2", "d6")])

    code, out, err = run_cli("score", "--task", "toy-pooled", "--ref", reference, *runs, "--json")
    assert code == 0, err
    assert {run: values["p2"] for run, values in json.loads(out).items()} == \
        {"alpha1": 0.25, "alpha2": 0.5, "beta1": 0.5}

    report = tmp_path / "report"
    code, out, err = run_cli("report", "--task", "toy-pooled", "--ref", reference, "--pool-depth", "2",
                             "--trials", "100", "--tau-bootstrap", "0", *runs, "-o", report)
    assert code == 0, err
    with open(str(report / "reusability.csv"), encoding="utf-8") as handle:
        reduced = {row["run"]: float(row["reduced"]) for row in csv.DictReader(handle)}
    assert reduced == {"alpha1": 0.0, "alpha2": 0.25, "beta1": 0.25}
    assert (report / "pool.csv").exists()


def test_the_campaign_commands_offer_exactly_the_tasks_with_a_pooling_part(toy_registered, tmp_path):
    """`runscore pool` and `judgements` list the registry's pooled tasks: the toy is offered; a task without a
    pooling part is refused by argparse (exit 2), as before."""
    runs = write_runs(tmp_path / "runs")
    code, _, err = run_cli("pool", "--task", "temporalia-tqic", "--depth", "2", *runs, "-o", tmp_path / "p")
    assert code == 2 and "invalid choice" in err and "toy-pooled" in err
    code, _, err = run_cli("judgements", "--task", "qqa23-mrc", "--pool", tmp_path / "x", "s", "-o", tmp_path / "r")
    assert code == 2 and "toy-pooled" in err
