"""campaign/pool.py: the pool is the union of each run's top k under the task's ranking rule.

The oracle here is written from the run formats' own words (specs), not from runscore's ranking code: NACSIS
runs sorted by Similarity descending then Document-ID descending (trec_eval's tie rule), TIR runs by rank then file
order, R2C2 PR runs by PassageRank, passages keyed by docID + SHA-1 of the whitespace-normalised text.
"""
import hashlib
import os
import random

import pytest

from runscore.campaign.pool import Hit, build_pool, order_items
from runscore.tasks.pooling import text_hash
from runscore.errors import ConfigError, Diagnostics
from runscore.tasks import get_task


def parse(task, path, options=None):
    options = options or task.resolve_options({})
    diags = Diagnostics(path)
    runs = task.parse(path, path, diags, None, options)
    assert not diags.has_errors, diags.lines()
    return runs


def nacsis_runs(folder, rng, teams=3, per_team=2, topics=("0031", "0032", "0033"), docs=30):
    paths = []
    for t in range(teams):
        for n in range(1, per_team + 1):
            run_id = "team%s%d" % ("abc"[t], n)
            lines = []
            for topic in topics:
                chosen = rng.sample(range(docs), rng.randint(5, 25))
                for rank, d in enumerate(chosen, 1):
                    sim = rng.choice([1.0, 2.0, 2.5, 3.0])          # many ties: the tie rule matters
                    lines.append("%s\t0\tgakkai-%04d\t%d\t%s\t%s" % (topic, d, rank, sim, run_id))
            path = os.path.join(folder, run_id)
            with open(path, "w") as handle:
                handle.write("\n".join(lines) + "\n")
            paths.append(path)
    return paths


def oracle_nacsis(paths, k, tie_desc=True):
    pool = {}
    for path in paths:
        per_topic = {}
        for line in open(path):
            topic, _, doc, _, sim, run_id = line.rstrip("\n").split("\t")
            per_topic.setdefault(topic, []).append((float(sim), doc))
        for topic, entries in per_topic.items():
            ranked = sorted(entries, key=lambda e: (-e[0], tuple(-ord(c) for c in e[1]) if tie_desc else e[1]))
            for rank, (_, doc) in enumerate(ranked[:k], 1):
                pool.setdefault(topic, {}).setdefault(doc, []).append((run_id, rank))
    return pool


def as_dict(pool):
    return {topic: {item: [(h.run, h.rank) for h in pooled.hits] for item, pooled in items.items()}
            for topic, items in pool.topics.items()}


@pytest.mark.parametrize("k", [1, 3, 10, 100])
@pytest.mark.parametrize("tie_order", ["desc", "asc"])
def test_ntcir1_pool_is_the_union_of_top_k_by_similarity_then_docid(tmp_path, k, tie_order):
    rng = random.Random(k)
    paths = nacsis_runs(str(tmp_path), rng)
    task = get_task("ntcir1-adhoc")
    options = task.resolve_options({"tie_order": tie_order})
    runs = [r for p in paths for r in parse(task, p, options)]
    pool = build_pool(task, runs, k, options)
    assert as_dict(pool) == oracle_nacsis(paths, k, tie_desc=(tie_order == "desc"))
    assert pool.teams["teamb2"] == "teamb"


def test_tir_pool_follows_rank_then_file_order(tmp_path):
    lines = ["001p\t2\tD1\tg1\tg1_run1", "001p\t1\tD2\tg1\tg1_run1", "001p\t2\tD3\tg1\tg1_run1",
             "001p\t3\tD4\tg1\tg1_run1", "001p\t1\tD9\tg1\tg1_run2", "001a\t1\tD5\tg1\tg1_run2"]
    path = tmp_path / "tir_g1"
    path.write_text("\n".join(lines) + "\n")
    task = get_task("temporalia-tir")
    runs = parse(task, str(path))
    pool = build_pool(task, runs, 2, task.resolve_options({}))
    # run1 on 001p: D2 (rank 1), then D1 and D3 tie at 2 and keep file order -> D1 second; D3 is rank 3, unpooled
    assert as_dict(pool) == {"001p": {"D2": [("g1_run1", 1)], "D1": [("g1_run1", 2)], "D9": [("g1_run2", 1)]},
                             "001a": {"D5": [("g1_run2", 1)]}}
    assert set(pool.teams.values()) == {"g1"}


def test_r2c2_pr_pool_keys_passages_by_content(tmp_path):
    (tmp_path / "A-PO-1").write_text("0001;2;d1;Same  passage\n0001;1;d2;Other\n")
    (tmp_path / "B-PG-1").write_text("0001;1;d1;Same passage\n0001;3;d3;Third\n")
    task = get_task("r2c2-pr")
    runs = [r for name in ("A-PO-1", "B-PG-1") for r in parse(task, str(tmp_path / name))]
    pool = build_pool(task, runs, 2, task.resolve_options({}))
    same = "d1::" + hashlib.sha1(b"Same passage").hexdigest()
    got = as_dict(pool)["0001"]
    # B-PG-1 ranks d3 second (PassageRank 3 is the 2nd passage: ranks are positions in the run, gaps allowed)
    assert got == {"d2::" + hashlib.sha1(b"Other").hexdigest(): [("A-PO-1", 1)],
                   same: [("A-PO-1", 2), ("B-PG-1", 1)],
                   "d3::" + hashlib.sha1(b"Third").hexdigest(): [("B-PG-1", 2)]}
    assert pool.topics["0001"][same].text == "Same  passage"
    assert pool.unique_to(lambda h: h.run) == {"A-PO-1": 1, "B-PG-1": 1}
    assert text_hash("Same  passage") == hashlib.sha1(b"Same passage").hexdigest()


def test_ntcirpool_order_most_runs_then_rank_sum_then_item():
    from runscore.campaign.pool import PooledItem

    a = PooledItem("t", "a", hits=[Hit("r1", "x", 3)])
    b = PooledItem("t", "b", hits=[Hit("r1", "x", 5), Hit("r2", "y", 5)])
    c = PooledItem("t", "c", hits=[Hit("r1", "x", 1), Hit("r2", "y", 2)])
    d = PooledItem("t", "d", hits=[Hit("r2", "y", 3)])
    assert [p.item for p in order_items([a, b, c, d])] == ["c", "b", "a", "d"]
    assert [p.item for p in order_items([d, c, b, a], "item")] == ["a", "b", "c", "d"]
    first = [p.item for p in order_items([a, b, c, d], "random", seed=7, topic="t")]
    assert first == [p.item for p in order_items([d, c, b, a], "random", seed=7, topic="t")]
    assert sorted(first) == ["a", "b", "c", "d"]


def test_depth_below_one_and_duplicate_names_are_refused(tmp_path):
    task = get_task("temporalia-tir")
    (tmp_path / "tir_g").write_text("001p\t1\tD1\tg\tg_1\n")
    runs = parse(task, str(tmp_path / "tir_g"))
    with pytest.raises(ConfigError):
        build_pool(task, runs, 0, task.resolve_options({}))
    with pytest.raises(ConfigError, match="two runs are named"):
        build_pool(task, runs + runs, 5, task.resolve_options({}))
