"""Every shape of the benchmark's shape table (benchmarks/shapes.py), at a small size: the fast path
takes it (it does not fall back to the line-by-line reader) and prints the exact path's numbers bit for bit, for
every measure of all_trec, per topic, at full precision. In memory: runscore.pytrec_eval on the table's shapes
(many topics in any order, a training loop, all_trec) gives pytrec-eval-terrier's values exactly.

The files are made by the benchmark's own generator, so the shapes tested are the shapes measured.
"""
import os
import sys

import pytest

from conftest import ROOT
from trec_eval_peer import run_runscore

sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
from shapes import long_id, long_id_constant_suffix, long_id_random, make_tiny_files, non_ascii_id, write_pair  # noqa
import shapes  # noqa: E402

from runscore.ranking import label_columns  # noqa: E402
from runscore.ranking import fastpath  # noqa: E402

SHAPES = {
    "clean": dict(topics=40, per_topic=30),
    "long-ids": dict(topics=40, per_topic=30, doc_id=long_id),
    "long-ids-constant-suffix": dict(topics=40, per_topic=30, doc_id=long_id_constant_suffix),
    "long-ids-random": dict(topics=40, per_topic=30, doc_id=long_id_random),
    "mixed-long-and-short-ids": dict(topics=40, per_topic=30,
                                     doc_id=lambda d: long_id(d) if d % 3 == 0 else ("x%d" % d) * (1 + d % 5)),
    "non-ascii": dict(topics=40, per_topic=30, doc_id=non_ascii_id),
    "crlf": dict(topics=40, per_topic=30, eol="\r\n"),
    "space": dict(topics=40, per_topic=30, sep=" "),
    "shuffled": dict(topics=40, per_topic=30, shuffle=True),
    "big-qrels-small-run": dict(topics=500, per_topic=20, judged=(20, 21), run_every=50),
    "many-small-topics": dict(topics=1500, per_topic=5, judged=(5, 6)),     # the join of all topics at once
}


def _fast_and_exact(monkeypatch, qrels, run, args=("-q", "--full-precision", "-m", "all_trec")):
    taken = []
    original = fastpath.trec_eval

    def spy(*a, **k):
        result = original(*a, **k)
        taken.append(result is not None)
        return result

    monkeypatch.setattr(fastpath, "trec_eval", spy)
    monkeypatch.setenv("RUNSCORE_FAST_PATH", "1")
    fast = run_runscore(list(args) + [qrels, run])
    monkeypatch.setenv("RUNSCORE_FAST_PATH", "0")
    exact = run_runscore(list(args) + [qrels, run])
    return fast, exact, taken[0]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_every_file_shape_takes_the_fast_path_and_gives_the_exact_numbers(tmp_path, monkeypatch, shape):
    qrels, run = write_pair(str(tmp_path), shape, **SHAPES[shape])
    fast, exact, taken = _fast_and_exact(monkeypatch, qrels, run)
    assert taken, "%s fell off the fast path" % shape
    assert fast[1] == exact[1] == 0, (fast[2], exact[2])
    assert fast[0] == exact[0]
    assert fast[0].count(b"\n") > 100


@pytest.mark.parametrize("v10", [False, True])
def test_a_small_run_takes_the_fast_path_at_any_size(tmp_path, monkeypatch, v10):
    """runscore trec_eval reads every run as columns (a 100k-line run took 4 s line by line), without the
    environment switch."""
    qrels, run = write_pair(str(tmp_path), "tiny", topics=5, per_topic=10, judged=(20, 21))
    monkeypatch.delenv("RUNSCORE_FAST_PATH", raising=False)
    taken = []
    original = fastpath.trec_eval
    monkeypatch.setattr(fastpath, "trec_eval", lambda *a, **k: taken.append(original(*a, **k)) or taken[-1])
    out, code, _ = run_runscore((["--v10"] if v10 else []) + ["-q", "-m", "all_trec", qrels, run])
    assert code == 0 and taken[0] is not None
    monkeypatch.setenv("RUNSCORE_FAST_PATH", "0")
    assert run_runscore((["--v10"] if v10 else []) + ["-q", "-m", "all_trec", qrels, run])[0] == out


def test_many_small_topics_with_colliding_keys_take_the_per_topic_join(tmp_path, monkeypatch):
    """Two judgements mixing to one key: the join of all topics at once steps aside, the values are the same."""
    qrels, run = write_pair(str(tmp_path), "collide", topics=1200, per_topic=5, judged=(5, 6))
    monkeypatch.setattr(label_columns, "_topic_key", lambda words, topic, bits: words[:, 0] * 0)
    fast, exact, taken = _fast_and_exact(monkeypatch, qrels, run)
    assert taken and fast[0] == exact[0]


def test_many_tiny_files_print_the_same_on_both_paths(tmp_path, monkeypatch, capsys):
    """The submission of many tiny NACSIS runs, scored as the benchmark scores it (runscore score)."""
    from runscore.cli import main

    qrels, folder = make_tiny_files(12)(str(tmp_path), "tiny")
    files = sorted(os.path.join(folder, f) for f in os.listdir(folder))
    outputs = []
    for switch in ("1", "0"):
        monkeypatch.setenv("RUNSCORE_FAST_PATH", switch)
        assert main(["score", "--task", "ntcir1-adhoc", "--ref", qrels, "--json", "--per-topic"] + files) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1] and outputs[0].count("map") >= 12


# ------------------------------------------------------------------------------------------ in memory ---

def _dicts(topics, docs, judged, seed=5, in_rank_order=False):
    import numpy as np

    rng = np.random.default_rng(seed)
    span = 4 * docs
    qrels, run = {}, {}
    for t in range(topics):
        qid = "%05d" % t
        chosen = rng.choice(span, size=judged, replace=False)
        grades = rng.choice(4, size=judged, p=(0.5, 0.25, 0.15, 0.10))
        qrels[qid] = {"d%05d" % d: int(g) for d, g in zip(chosen.tolist(), grades.tolist())}
        chosen = rng.choice(span, size=docs, replace=False)
        scores = np.round(rng.random(docs) * 10, 2)
        if in_rank_order:
            scores = np.sort(scores)[::-1]
        run[qid] = {"d%05d" % d: float(s) for d, s in zip(chosen.tolist(), scores.tolist())}
    return qrels, run


MEMORY_SHAPES = {
    "beir-like: many topics, few judgements, any order": (300, 20, 3, ["map_cut.1,10,100", "ndcg_cut.1,10,100",
                                                                       "recall.1,10,100", "P.1,10,100"], False),
    "few unsorted topics": (30, 200, 40, ["map", "P", "ndcg_cut"], False),
    "written in rank order": (30, 50, 20, ["map", "P", "ndcg_cut", "bpref"], True),
    "all_trec": (60, 30, 15, ["all_trec"], False),
}


@pytest.mark.parametrize("shape", sorted(MEMORY_SHAPES))
def test_in_memory_shapes_give_pytrec_evals_values(shape):
    peer = pytest.importorskip("pytrec_eval")
    import runscore.pytrec_eval as ours

    topics, docs, judged, measures, ordered = MEMORY_SHAPES[shape]
    qrels, run = _dicts(topics, docs, judged, in_rank_order=ordered)
    expected = peer.RelevanceEvaluator(qrels, set(measures)).evaluate(run)
    assert ours.RelevanceEvaluator(qrels, set(measures)).evaluate(run) == expected


def test_an_evaluator_called_in_a_loop_gives_the_values_of_a_fresh_one():
    """A training loop: one evaluator, many runs (what the topics cache must not carry from one run to the next)."""
    peer = pytest.importorskip("pytrec_eval")
    import runscore.pytrec_eval as ours

    qrels, _ = _dicts(50, 100, 20)
    evaluator = ours.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10", "P.5"})
    reference = peer.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10", "P.5"})
    for seed in range(20):
        _, run = _dicts(50, 100, 20, seed=100 + seed, in_rank_order=seed % 2 == 0)
        assert evaluator.evaluate(run) == reference.evaluate(run)


def test_the_shape_table_judges_wall_time_only_on_a_quiet_machine():
    """The issue's targets are wall ratios; a row measured while other work waited for the cores is judged on CPU
    time instead, and the cell says which measure decided."""
    te = {"wall": 1.0, "cpu": 1.0, "peak": 80.0}
    fast_wall = {"wall": 0.7, "cpu": 0.9, "peak": 70.0}        # two threads: wall under CPU
    quiet = {"runscore": dict(fast_wall), "trec_eval": te, "loads": [0.5, 1.8], "cpus": 2}
    busy = {"runscore": dict(fast_wall), "trec_eval": te, "loads": [0.5, 6.0], "cpus": 2}
    old = {"runscore": dict(fast_wall), "trec_eval": te}
    header = {"date": "d", "machine": "m", "load": "l", "note": "n", "repeats": 3, "quick_flag": ""}
    shapes.SHAPE_INDEX[:] = shapes.file_shapes(0.1)
    lines = {key: shapes.table([(key, key, "file", result, 0.8)], header).splitlines()[-1]
             for key, result in (("quiet", quiet), ("busy", busy), ("old", old))}
    assert "<= 0.80 x: met (wall)" in lines["quiet"]
    assert "<= 0.80 x: **not met** (CPU)" in lines["busy"]
    assert "<= 0.80 x: **not met** (CPU)" in lines["old"]
