"""Many small runs measured as one batch (ranking/run_batch.py) give each run the exact path's values, bit for bit.

The exact path is rankeval.evaluate_rankings, one run at a time. The cases are seeded: ties, runs missing
topics, topics of the run only, graded and unjudged (negative) judgements, truncation, every tie order, single
precision, document ids of one and several words and non-ASCII ones, more and fewer than 1,000 (run, topic)
pairs (label_columns.label_lines joins them at once or topic by topic). The task scores runs in batches and falls
back to the exact path where the columns cannot hold the ids: the same scores, notes and order as one by one.
"""
import random

import pytest

from runscore.errors import Diagnostics
from runscore.measures.trec_measure import TrecOptions
from runscore.pipeline import load_reference
from runscore.ranking import fastpath, run_batch
from runscore.ranking.rankeval import TopicRun, evaluate_rankings, summarise_runs, summarise_topics
from runscore.tasks import ntcir1_adhoc
from runscore.tasks.ntcir1_adhoc import MEASURES, TASK as NTCIR1

ALL_TREC_KERNELS = ("num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
                    "iprec_at_recall", "11pt_avg", "P", "recall", "ndcg_cut", "map_cut", "success")


def _docno(rng, d, form):
    if form == "short":
        return "d%03d" % d
    if form == "long":
        return "gakkai-%010d" % d                      # 17 bytes: three words
    return "doc-\u00e9\u4e2d-%d" % d                   # non-ASCII, two words


def _case(seed, runs=30, topics=8, form="short"):
    rng = random.Random(seed)
    names = ["%04d" % t for t in range(1, topics + 1)]
    qrels = {}
    for topic in names[:-1]:                           # the last topic has no judgement
        chosen = rng.sample(range(60), rng.randint(0, 20))
        qrels[topic] = {_docno(rng, d, form): rng.choice((-1, 0, 0, 1, 2, 3)) for d in chosen}
    rankings = []
    for _ in range(runs):
        run = {}
        for topic in rng.sample(names + ["0999"], rng.randint(0, len(names))):   # topics missing, one extra
            topic_run = TopicRun()
            count = rng.randint(1, 25)
            for line, d in enumerate(rng.sample(range(60), count), 1):
                topic_run.add(_docno(rng, d, form), rng.choice((1.0, 0.5, 0.25, round(rng.random(), 1))), line)
            run[topic] = topic_run
        rankings.append(run)
    return names, qrels, rankings


def _same(batched, exact):
    """Equal keys in equal order and equal values, bit for bit (repr of the float)."""
    assert list(batched) == list(exact)
    for topic in exact:
        assert list(batched[topic]) == list(exact[topic])
        assert [repr(float(v)) for v in batched[topic].values()] == [repr(float(v)) for v in exact[topic].values()]


@pytest.mark.parametrize("seed, runs, form, level, tie_order, max_docs, rule, dtype", [
    (1, 30, "short", 1, "desc", None, "ceil", "double"),
    (2, 30, "long", 2, "asc", 7, "v9", "double"),
    (3, 30, "nonascii", 1, "file", 12, "v10", "single"),
    (4, 160, "short", 1, "desc", 1000, "ceil", "double"),       # over 1,000 pairs: labelled in one search
    (5, 160, "long", 3, "desc", 5, "v9", "single"),
    (6, 1, "short", 1, "desc", None, "ceil", "double"),           # a batch of one run
])
def test_a_batch_gives_each_run_the_exact_values(seed, runs, form, level, tie_order, max_docs, rule, dtype):
    topics, qrels, rankings = _case(seed, runs, form=form)
    options = TrecOptions(interp_cutoff=rule)
    score_dtype = {"double": float, "single": "float32"}[dtype]
    batch = run_batch.RunBatch(rankings)
    assert batch.usable
    for chosen in (topics, topics[::2]):                   # a second call with other topics ranks again
        got = batch.evaluate(qrels, chosen, ALL_TREC_KERNELS, level, options, tie_order, max_docs,
                             score_dtype=score_dtype)
        for values, ranking in zip(got, rankings):
            _same(values, evaluate_rankings(ranking, qrels, chosen, ALL_TREC_KERNELS, level, options, tie_order,
                                            max_docs, score_dtype=score_dtype)[0])


def test_a_batch_of_runs_without_lines_and_ids_the_columns_cannot_hold():
    topics, qrels, _ = _case(7)
    empty = run_batch.RunBatch([{}, {}])
    for values in empty.evaluate(qrels, topics, MEASURES, 1):
        _same(values, evaluate_rankings({}, qrels, topics, MEASURES, 1)[0])
    long_id = TopicRun()
    long_id.add("x" * (run_batch.MAX_ID_BYTES + 1), 1.0, 1)
    assert not run_batch.RunBatch([{"0001": long_id}]).usable


def _runs_of(tmp_path, count=40, seed=8):
    """`count` NACSIS run files, parsed against a graded qrels file (letters), with ties and missing topics."""
    rng = random.Random(seed)
    lines = ["%04d 0 gakkai-%010d %s" % (t, d, rng.choice("SABC")) for t in range(1, 7)
             for d in rng.sample(range(80), 15)]
    (tmp_path / "qrels").write_text("\n".join(lines) + "\n")
    reference = load_reference(NTCIR1, str(tmp_path / "qrels"))
    runs = []
    for k in range(count):
        name = "run%02d" % k
        rows = []
        for t in sorted(rng.sample(range(1, 8), rng.randint(1, 5))):
            for rank, d in enumerate(rng.sample(range(80), rng.randint(1, 12)), 1):
                rows.append("%04d\t0\tgakkai-%010d\t%d\t%s\t%s" % (t, d, rank, rng.choice((9, 8, 8, 7)), name))
        (tmp_path / name).write_text("\n".join(rows) + "\n")
        runs += NTCIR1.parse(str(tmp_path / name), name, Diagnostics(name), reference.data, reference.options)
    return reference, runs


def _scores(reference, runs):
    return [(s.measures, s.per_topic, s.notes)
            for s in NTCIR1.score_runs(runs, reference.data, reference.options)]


def test_the_task_scores_runs_in_batches_as_one_by_one_on_the_exact_path(tmp_path, monkeypatch):
    reference, runs = _runs_of(tmp_path)
    batched = _scores(reference, runs)
    monkeypatch.setenv(fastpath.ENVIRONMENT, "0")          # the exact path, one run at a time
    exact = [_scores(reference, [run])[0] for run in runs]
    monkeypatch.delenv(fastpath.ENVIRONMENT)
    assert batched == exact
    assert repr(batched) == repr(exact)
    monkeypatch.setattr(ntcir1_adhoc, "BATCH_LINES", 60)    # several batches
    assert len(ntcir1_adhoc._batches(runs)) > 3
    assert _scores(reference, runs) == exact
    monkeypatch.setattr(run_batch, "MAX_ID_BYTES", 8)       # ids the batch cannot hold: the exact path
    assert not run_batch.RunBatch([runs[0].data.topics]).usable
    assert _scores(reference, runs) == exact


def test_the_summaries_of_many_runs_at_once_are_each_runs_own():
    """summarise_runs adds each value over the topics as ordered_sum does, whatever the values' types; a
    geometric mean, and runs of different topic counts, as summarise_topics."""
    rng = random.Random(9)
    measures = ("num_ret", "map", "gm_map", "P", "recip_rank")
    names = ["num_ret", "map", "gm_map"] + ["P_%d" % k for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)] + \
        ["recip_rank"]

    def run(topics):
        return {"%04d" % t: {name: rng.choice((0, 3, 0.1, 1e-300, -0.0, rng.random(), float(rng.random())))
                             for name in names} for t in range(topics)}

    for runs in ([run(7) for _ in range(50)], [run(3), run(5)], [run(0), run(0)], []):
        assert repr(summarise_runs(runs, measures)) == repr([summarise_topics(r, measures) for r in runs])
