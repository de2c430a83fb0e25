"""The campaign commands take a whole campaign: `runscore score`, `pool` and `report` read each run once, keep what
they need of it (scores, the pool's top items, the ranking as columns) and drop its records, and the platform's
per-submission byte budget never refuses an organiser on the command line. What a run is reduced to scores exactly as
the run, against the full judgements and against a team's leave-one-out judgements, on both reading paths.
"""
import json
import os
import random

import pytest

from conftest import ROOT, run_cli
from campaign_sim import ntcir1_campaign
from runscore import pipeline, textfile
from runscore.campaign import agreement_tau, pool as pooling, ranking_tasks
from runscore.errors import Diagnostics
from runscore.pipeline import load_reference
from runscore.ranking import fastpath
from runscore.ranking.columnar_qrels import ColumnarQrels
from runscore.ranking.columnar_run import ColumnarRun
from runscore.tasks import get_task
from runscore.tasks.ntcir1_adhoc import Ntcir1Adhoc

NTC1 = open(os.path.join(ROOT, "starting_kit", "sample_submission", "ntcir1-adhoc", "ntc1"), encoding="utf-8").read()
REF = os.path.join(ROOT, "reference_data", "ntcir1-adhoc")
TASK = get_task("ntcir1-adhoc")


def test_the_command_line_is_not_held_to_the_platforms_byte_budget(tmp_path, monkeypatch):
    """An organiser rescoring the formal runs names every team's files at once: the budget that bounds what one
    submission may cost the platform (128 MiB read line by line) must not refuse them; `runscore check`, which
    judges a submission as the platform will, keeps it."""
    monkeypatch.setattr(textfile, "MAX_SUBMISSION_TEXT_BYTES", len(NTC1.encode()) + 10)
    (tmp_path / "sub").mkdir()
    for name in ("ntc1", "ntc2"):
        (tmp_path / "sub" / name).write_text(NTC1.replace("\tntc1\n", "\t%s\n" % name))
    runs = [tmp_path / "sub" / "ntc1", tmp_path / "sub" / "ntc2"]
    code, out, err = run_cli("score", "--task", "ntcir1-adhoc", "--ref", REF, "--json", *runs)
    assert code == 0, err
    assert sorted(json.loads(out)) == ["ntc1", "ntc2"]
    assert run_cli("validate", "--task", "ntcir1-adhoc", *runs)[0] == 0
    code, out, _ = run_cli("check", "--task", "ntcir1-adhoc", tmp_path / "sub")
    assert code == 1 and "ntc2: error: the submission's files read line by line add up to more than" in out


def _spy_on_parse(monkeypatch):
    """Every run parsed, in order, with what every run parsed before it holds at that moment."""
    parsed, seen = [], []
    parse = Ntcir1Adhoc.parse

    def spying(self, path, display, *args, **kwargs):
        seen.append([type(run.data).__name__ if not hasattr(run.data, "topics") else
                     type(run.data.topics).__name__ for run in parsed])
        runs = parse(self, path, display, *args, **kwargs)
        parsed.extend(runs)
        return runs

    monkeypatch.setattr(Ntcir1Adhoc, "parse", spying)
    return parsed, seen


def test_score_holds_one_batch_of_records_at_a_time_and_prints_what_scoring_at_the_end_gives(tmp_path, monkeypatch):
    runs_dir, ref, _ = ntcir1_campaign(str(tmp_path / "c"), teams=3, topics=4, docs=30, run_length=20)
    files = sorted(os.path.join(runs_dir, f) for f in os.listdir(runs_dir))
    whole = run_cli("score", "--task", "ntcir1-adhoc", "--ref", ref, "--json", "--per-topic", *files)
    monkeypatch.setattr(pipeline, "QUEUE_BYTES", 1)           # every file's runs scored as soon as it is checked
    parsed, seen = _spy_on_parse(monkeypatch)
    assert run_cli("score", "--task", "ntcir1-adhoc", "--ref", ref, "--json", "--per-topic", *files) == whole
    assert whole[0] == 0 and len(parsed) == len(files)
    assert all(held == ["NoneType"] * k for k, held in enumerate(seen))       # the records of earlier runs: gone
    assert [run.data for run in parsed] == [None] * len(files)


def test_report_and_pool_read_each_run_once_and_keep_only_what_they_use(tmp_path, monkeypatch):
    runs_dir, ref, _ = ntcir1_campaign(str(tmp_path / "c"), teams=3, topics=4, docs=30, run_length=20)
    monkeypatch.setattr(pipeline, "QUEUE_BYTES", 1)
    parsed, seen = _spy_on_parse(monkeypatch)
    code, _, err = run_cli("report", "--task", "ntcir1-adhoc", "--ref", ref, "--pool-depth", "5", "--trials", "50",
                           "--tau-bootstrap", "20", runs_dir, "-o", tmp_path / "report")
    assert code == 0, err
    assert len(parsed) == 6 and all(held == ["ColumnarRun"] * k for k, held in enumerate(seen))   # rankings only
    parsed[:], seen[:] = [], []
    code, _, err = run_cli("pool", "--task", "ntcir1-adhoc", "--depth", "5", runs_dir, "-o", tmp_path / "pool")
    assert code == 0, err
    assert len(parsed) == 6 and all(held == ["TopRanked"] * k for k, held in enumerate(seen))     # the top 5
    assert all(len(items) <= 5 for run in parsed for items in run.data.items.values())


# ------------------------------------------------------------------------ what a run is reduced to ---

def _campaign_files(folder, seed, topics=5, ids=("gakkai-%07d", "d%d", "doc-%03d-x")):
    """Two NACSIS runs (scores with ties, a topic the qrels lack) and graded qrels, small enough for the exact
    reader; ids of several lengths (one and two words)."""
    rng = random.Random(seed)
    doc_id = rng.choice(ids)
    os.makedirs(folder, exist_ok=True)
    qrels = []
    for t in range(1, topics + 1):
        for d in rng.sample(range(60), 25):
            qrels.append("%04d 0 %s %s" % (t, doc_id % d, rng.choice("SABCC")))
    with open(os.path.join(folder, "qrels"), "w") as handle:
        handle.write("\n".join(qrels) + "\n")
    paths = []
    for number in (1, 2):
        lines = []
        for t in list(range(1, topics + 1)) + [99]:
            scores = sorted((round(rng.random(), 1) for _ in range(30)), reverse=True)
            for rank, (d, score) in enumerate(zip(rng.sample(range(60), 30), scores), 1):
                lines.append("%04d\t0\t%s\t%d\t%s\tgrp%d" % (t, doc_id % d, rank, score, number))
        paths.append(os.path.join(folder, "grp%d" % number))
        with open(paths[-1], "w") as handle:
            handle.write("\n".join(lines) + "\n")
    return os.path.join(folder, "qrels"), paths


def _bits(scores):
    """Every value of a RunScores by its exact bits."""
    flat = dict(scores.measures)
    flat.update({"%s/%s" % (t, k): v for t, row in scores.per_topic.items() for k, v in row.items()})
    return {k: float(v).hex() for k, v in flat.items()}, list(scores.notes)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("switch", ["0", "1"])          # the runs and qrels read line by line, or as columns
def test_a_run_reduced_to_its_ranking_scores_as_the_run_against_full_and_leave_one_out_judgements(
        tmp_path, monkeypatch, seed, switch):
    rng = random.Random(seed)
    monkeypatch.setenv(fastpath.ENVIRONMENT, switch)
    qrels, paths = _campaign_files(str(tmp_path), seed)
    overrides = {"tie_order": rng.choice(["asc", "desc"]), "similarity_precision": rng.choice(["single", "double"]),
                 "max_docs": rng.choice([7, 1000])}
    reference = load_reference(TASK, qrels, overrides)
    assert isinstance(reference.data.qrels["rel1"], ColumnarQrels) == (switch == "1")
    options = reference.options
    runs = [TASK.parse(p, p, Diagnostics(p), reference.data, options)[0] for p in paths]
    reduced = [TASK.ranked_run(run, options) for run in runs]
    assert all(isinstance(r.data.topics, ColumnarRun) and r.data.topics.grouped_order is None for r in reduced)
    # the pool's lists are the same from the run, from its reduction, and on the other reading path
    for run, small in zip(runs, reduced):
        assert TASK.ranked_lists(small, options, 5) == TASK.ranked_lists(run, options, 5)
        assert TASK.ranked_lists(small, options) == TASK.ranked_lists(run, options)
    # a team's leave-one-out judgements: items of its top 5 that the other run lacks there
    pool = pooling.build_pool(TASK, runs, 5, options)
    removed = {}
    for topic, items in pool.topics.items():
        alone = {item for item, pooled in items.items() if pooled.runs == ["grp1"]}
        if alone:
            removed[topic] = alone
    smaller = ranking_tasks.without(reference, removed)
    for against in (reference, smaller):
        for run, small in zip(runs, reduced):
            assert _bits(TASK.score(small, against.data, options)) == _bits(TASK.score(run, against.data, options))
    assert _bits(TASK.score(runs[0], smaller.data, options)) != _bits(TASK.score(runs[0], reference.data, options))


def test_columnar_qrels_without_items_are_the_dicts_the_exact_path_filters(tmp_path, monkeypatch):
    monkeypatch.setenv(fastpath.ENVIRONMENT, "1")
    qrels, _ = _campaign_files(str(tmp_path), 3)
    columnar = load_reference(TASK, qrels).data.qrels["rel1"]
    assert isinstance(columnar, ColumnarQrels)
    topics = list(columnar)
    every = {topic: dict(columnar[topic]) for topic in topics}
    removed = {topics[0]: set(every[topics[0]]), topics[1]: set(list(every[topics[1]])[::3]), "0099": {"x"}}
    reduced = columnar.without(removed)
    expected = {topic: {d: g for d, g in docs.items() if d not in removed.get(topic, ())} for topic, docs in every.items()}
    assert list(reduced) == topics
    assert {topic: dict(reduced[topic]) for topic in reduced} == expected
    assert [list(reduced[topic]) for topic in topics] == [list(expected[topic]) for topic in topics]    # order kept
    assert reduced.max_grade(topics[0]) is None and columnar.max_grade(topics[0]) is not None


def test_tau_from_signs_made_once_a_measure_is_the_pairwise_formula(tmp_path):
    """kendall_tau_b as it was computed (float signs of every pair, for each pair of measures), NaN rows
    included, against the signs made once a measure."""
    import numpy as np

    rng = np.random.default_rng(5)
    for _ in range(20):
        x, y = np.round(rng.random((40, 9)), 1), np.round(rng.random((40, 9)), 1)
        x[rng.random(x.shape) < 0.02] = np.nan
        i, j = np.triu_indices(9, k=1)
        sx, sy = np.sign(x[:, i] - x[:, j]), np.sign(y[:, i] - y[:, j])
        denominator = np.sqrt(np.count_nonzero(sx, axis=1).astype(float) * np.count_nonzero(sy, axis=1))
        with np.errstate(invalid="ignore", divide="ignore"):
            expected = np.where(denominator > 0, (sx * sy).sum(axis=1) / np.where(denominator > 0, denominator, 1.0),
                                np.nan)
        found = agreement_tau.tau_from_signs(agreement_tau.pair_signs(x), agreement_tau.pair_signs(y))
        assert np.array_equal(np.isnan(found), np.isnan(expected))
        assert np.array_equal(found[~np.isnan(found)], expected[~np.isnan(expected)])


def test_a_sheet_written_line_at_a_time_holds_what_write_cell_writes_cell_by_cell(tmp_path):
    """write_sheet tests a whole line for anything to escape or quote (most pool rows have nothing): hostile cells
    (escapes, formula starts after a TAB, a comma, a semicolon or a quote, line separators) must come out as
    write_cell writes them."""
    from runscore.campaign import sheet

    rng = random.Random(11)
    alphabet = list("ab1 \\\t\n\r=+-@'\",;\x00\u2028é")
    columns = ["topic", "item", "runs", "text", "label"]
    rows = [{c: "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 4))) for c in columns}
            for _ in range(3000)]
    sheet.write_sheet(str(tmp_path / "s.tsv"), columns, rows)
    expected = "\t".join(columns) + "\n" + "".join("\t".join(sheet.write_cell(r[c]) for c in columns) + "\n"
                                                   for r in rows)
    assert (tmp_path / "s.tsv").read_bytes() == expected.encode("utf-8")
