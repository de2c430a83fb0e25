"""The whole-run NTCIREVAL kernels (measures/vectorised_ntcir.py) and the two tasks that use them.

Every value is compared with measures.ntcireval.compute_all on one GradedRanking per topic with `==`: the
kernels add in the same order as ntcireval's `_discounted_sum`, so they agree bit for bit, not to rounding.
The tasks (temporalia-tir, r2c2-pr) are compared with their own per-topic code (per_topic_values), which the
pipeline replaced and which stays as the reference and as the path for ids the words cannot hold.
"""
import os
import random
import shutil
from collections import OrderedDict

import numpy as np
import pytest

from conftest import ROOT, run_score_py
from runscore.ranking.columnar_run import columns_from_records
from runscore.measures.names import compute_all
from runscore.measures.ntcireval import GradedRanking, NoRelevantDocuments, linear_gains
from runscore.measures.vectorised_ntcir import ntcir_values, supported
from runscore.ranking.label_columns import QrelsColumns
from runscore.ranking.measure_columns import MAX_KEY_BYTES, evaluate_ntcir, evaluate_records
from runscore.tasks.r2c2.pr_format import Passage, PRRun, key_text, passage_key
from runscore.tasks.r2c2 import pr as r2c2_pr
from runscore.tasks.temporalia import tir as temporalia_tir
from runscore.tasks.base import ParsedRun

ENV = "RUNSCORE_FAST_PATH"


# ------------------------------------------------------------------------------------------- random cases ---
def random_gains(rng: random.Random):
    """1:2, 1:2:3, linear up to 5 levels, or random non-decreasing gains (ties between levels included)."""
    choice = rng.randrange(4)
    if choice == 0:
        return (1.0, 2.0)
    if choice == 1:
        return (1.0, 2.0, 3.0)
    if choice == 2:
        return linear_gains(rng.randint(1, 5))
    gains = sorted(round(rng.uniform(0.1, 4.0), rng.choice([1, 3, 7])) for _ in range(rng.randint(1, 4)))
    if len(gains) > 1 and rng.random() < 0.3:
        gains[1] = gains[0]
    return tuple(gains)


def random_case(seed: int):
    """Topics with random qrels (R = 0 sometimes, R from 1 to about 60), runs of 0 to 70 documents (shorter
    and longer than the cutoffs and than R) drawn from judged and unjudged documents, ranks with ties, some
    topics absent from the run, lines grouped by topic or interleaved; cutoffs 1..1000."""
    rng = random.Random(seed)
    gains = random_gains(rng)
    top = len(gains)
    topics = ["%03d%s" % (rng.randint(1, 999), rng.choice("praf")) for _ in range(rng.randint(1, 7))]
    topics = list(OrderedDict.fromkeys(topics))
    qrels = {}
    for topic in topics:
        judged = rng.randint(0, 80)
        relevant_share = rng.choice([0.0, 0.1, 0.5, 0.9])
        qrels[topic] = {"doc%d" % rng.randint(0, 150): (rng.randint(1, top) if rng.random() < relevant_share
                                                          else 0) for _ in range(judged)}
    lines = []                                  # (topic, doc, rank) in file order
    for topic in topics:
        if rng.random() < 0.15:
            continue                            # absent from the run
        pool = list(qrels[topic]) + ["new%d" % i for i in range(40)]
        size = rng.choice([0, 1, 5, 19, 20, 21, 45, 70])
        docs = rng.sample(pool, min(size, len(pool)))
        spread = rng.choice([3, 20, 1000])      # few distinct ranks = many ties
        lines.extend((topic, doc, rng.randint(1, spread)) for doc in docs)
    if rng.random() < 0.5:
        rng.shuffle(lines)                      # topics interleaved: rank_lines sorts each topic
    elif rng.random() < 0.5:
        lines.sort(key=lambda line: (topics.index(line[0]), line[2]))   # as systems write: rank order
    cutoffs = [rng.choice([1, 2, 5, 10, 20, 30, 100, 1000]) for _ in range(4)]
    names = ["P@%d" % cutoffs[0], "Hit@%d" % cutoffs[1], "MSnDCG@%d" % cutoffs[2], "nDCG@%d" % cutoffs[3],
             "nDCG@%d(logb=%s)" % (cutoffs[2], rng.choice(["0", "1.5", "3", "10"])), "P@20", "MSnDCG@20"]
    return gains, topics, qrels, lines, names


def reference_values(gains, topic, qrels, lines, names):
    """compute_all on the topic's ranking: rank ascending, equal ranks in file order (None when R = 0)."""
    entries = [(rank, i, doc) for i, (t, doc, rank) in enumerate(lines) if t == topic]
    levels = [qrels.get(topic, {}).get(doc, 0) for _, _, doc in sorted(entries)]
    try:
        graded = GradedRanking(levels, list(qrels.get(topic, {}).values()), gains)
    except NoRelevantDocuments:
        return None
    return compute_all(names, graded)


@pytest.mark.parametrize("first_seed", range(0, 400, 50))
def test_kernels_equal_compute_all_bit_for_bit(first_seed):
    compared = nonzero = 0
    for seed in range(first_seed, first_seed + 50):
        gains, topics, qrels, lines, names = random_case(seed)
        asked = topics + ["999x"] if seed % 5 == 0 else topics      # a topic in neither run nor qrels
        run = columns_from_records([t for t, _, _ in lines], [d for _, d, _ in lines],
                                   [-float(r) for _, _, r in lines])
        got = evaluate_ntcir(run, QrelsColumns(qrels), asked, gains, names)
        for k, topic in enumerate(asked):
            expected = reference_values(gains, topic, qrels, lines, names)
            if expected is None:
                assert got.num_rel[k] == 0, (seed, topic)
                assert all(got.values[str(n)][k] == 0.0 for n in got.values), (seed, topic)
                continue
            assert got.num_rel[k] == sum(1 for level in qrels[topic].values() if level > 0)
            for name, value in expected.items():
                assert got.values[name][k] == value, (seed, topic, name, float(got.values[name][k]).hex(),
                                                      value.hex())
                compared += 1
                nonzero += value != 0.0
    assert compared > 500 and nonzero > 200         # the cases are not all degenerate


def test_an_empty_run_scores_zero_everywhere_but_keeps_r():
    qrels = {"1": {"a": 2, "b": 0}, "2": {"c": 0}}
    run = columns_from_records([], [], [])
    got = evaluate_ntcir(run, QrelsColumns(qrels), ["1", "2"], (1.0, 2.0), ["P@20", "nDCG@20", "Hit@1"])
    assert got.num_rel.tolist() == [1, 0]
    graded = GradedRanking([], [2, 0], (1.0, 2.0))
    for name, value in compute_all(["P@20", "nDCG@20", "Hit@1"], graded).items():
        assert got.values[name][0] == value == 0.0


def test_worked_example_by_hand():
    """Levels in rank order 2, 0, 1 (unjudged 'x' is L0), qrels L2, L1, L1, gains 1:2, cutoff 2:
    MSnDCG@2 = (2/log2(2) + 0) / (2/log2(2) + 1/log2(3)); nDCG@2 (b = 2) = (2/1 + 0) / (2/1 + 1/1);
    P@2 = 1/2; Hit@1 = 1."""
    qrels = {"t": {"a": 2, "b": 1, "c": 1}}
    run = columns_from_records(["t", "t", "t"], ["a", "x", "b"], [-1.0, -2.0, -3.0])
    got = evaluate_ntcir(run, QrelsColumns(qrels), ["t"], (1.0, 2.0), ["MSnDCG@2", "nDCG@2", "P@2", "Hit@1"])
    assert got.values["MSnDCG@2"][0] == pytest.approx(2.0 / (2.0 + 1.0 / np.log2(3.0)), abs=1e-15)
    assert got.values["nDCG@2"][0] == pytest.approx(2.0 / 3.0, abs=1e-15)
    assert got.values["P@2"][0] == 0.5
    assert got.values["Hit@1"][0] == 1.0


# ------------------------------------------------------------------------------------------- bad input ---
BAD_KERNEL_INPUT = [
    # (gains, judged levels of the topic, measure, exception, message fragment)
    ((), [1], "P@20", ValueError, "between 1 and 15 levels"),
    ((2.0, 1.0), [1], "P@20", ValueError, "must not decrease"),
    ((1.0, 0.0), [1], "P@20", ValueError, "positive"),
    ((1.0, 2.0), [3, 1], "P@20", ValueError, "qrels has a level outside L0..L2"),
    ((1.0, 2.0), [-1, 1], "P@20", ValueError, "qrels has a level outside L0..L2"),
    ((1.0, 2.0), [1], "AP", KeyError, "no whole-run kernel for AP"),
    ((1.0, 2.0), [1], "ERR@10", KeyError, "no whole-run kernel for ERR@10"),
]


@pytest.mark.parametrize("gains, judged, name, error, fragment", BAD_KERNEL_INPUT)
def test_bad_kernel_input_is_refused_with_a_message(gains, judged, name, error, fragment):
    with pytest.raises(error, match=fragment.replace(".", r"\.")):
        ntcir_values(np.array([1]), np.array([0, 1]), [np.array(judged)], gains, [name])


def test_a_run_level_above_the_gains_is_refused():
    with pytest.raises(ValueError, match="system list has a level outside"):
        ntcir_values(np.array([3]), np.array([0, 1]), [np.array([1])], (1.0, 2.0), ["P@1"])


def test_supported_names():
    assert supported(["P@20", "Hit@1", "MSnDCG@20", "nDCG@20(logb=10)"])
    assert not supported(["P@20", "AP"])
    assert not supported(["nERR@20"])


COLUMNS_DECLINED = [
    # (document ids, why the words cannot stand for them)
    (["a", "b\x00"], "a NUL byte"),
    (["a", "b\nc"], "a line break"),
    (["a", "x" * (MAX_KEY_BYTES + 1)], "longer than the bound"),
    (["a", "\u00e9" * (MAX_KEY_BYTES // 2 + 1)], "longer than the bound in UTF-8 bytes"),
]


@pytest.mark.parametrize("doc_ids, why", COLUMNS_DECLINED)
def test_columns_from_records_declines_ids_the_words_cannot_hold(doc_ids, why):
    assert columns_from_records(["t"] * len(doc_ids), doc_ids, [0.0] * len(doc_ids),
                                max_key_bytes=MAX_KEY_BYTES) is None, why


def test_columns_from_records_keeps_utf8_ids_and_file_order():
    run = columns_from_records(["b", "a", "b"], ["\u00e9t\u00e9", "x", "ete"], [3.0, 2.0, 1.0])
    assert run.topics == ["b", "a"]
    assert run.topic_lines(0).tolist() == [0, 2] and run.topic_lines(1).tolist() == [1]
    assert run.docno[0].tolist() != run.docno[2].tolist()
    with pytest.raises(ValueError, match="one entry per record"):
        columns_from_records(["a"], ["x", "y"], [1.0])


@pytest.mark.parametrize("run_doc, qrels_doc", [("a\x00", "b"), ("a", "b\x00"), ("\ud800", "b"),
                                                 ("a", "y" * (MAX_KEY_BYTES + 1))])
def test_evaluate_records_falls_back_when_ids_do_not_fit(run_doc, qrels_doc):
    qrels = {"t": {qrels_doc: 1}}
    assert evaluate_records(["t"], [run_doc], [-1.0], qrels, ["t"], (1.0,), ["P@1"]) is None


# ------------------------------------------------------------------------------------------- the tasks ---
def tir_case(seed: int):
    gains, topics, qrels, lines, _ = random_case(seed)
    gains = (1.0, 2.0) if seed % 2 else tuple(g for g in gains[:2]) if len(gains) >= 2 else (1.0, 2.0)
    qrels = {t: {d: min(level, 2) for d, level in docs.items()} for t, docs in qrels.items()}
    reference = temporalia_tir.TirReference(qrels, gains)
    run = temporalia_tir.TirRun("RUN1", "grp")
    for line_no, (topic, doc, rank) in enumerate(lines, 1):
        run.entries.setdefault(topic, []).append((rank, line_no, doc))
    return reference, run


@pytest.mark.parametrize("seed", range(60))
def test_tir_pipeline_equals_the_per_topic_path(seed, monkeypatch):
    reference, run = tir_case(seed)
    for average_over in ("judged_with_relevant", "all"):
        subtopics = sorted(reference.qrels if average_over == "all" else reference.with_relevant(),
                           key=temporalia_tir._subtopic_order)
        assert_same_values(temporalia_tir.pipeline_values(run, reference, subtopics),
                           temporalia_tir.per_topic_values(run, reference, subtopics))
        options = {"average_over": average_over, "gains": "1:2", "qrels_format": "auto"}
        assert_same_scores(monkeypatch, temporalia_tir.TASK, ParsedRun("RUN1", "tir_grp", run), reference, options)


def assert_same_values(fast, exact):
    """Per-topic values of the pipeline and of the per-topic path: the same topics, names and values, in order,
    bit for bit."""
    assert fast is not None
    assert list(fast) == list(exact)
    for topic in exact:
        assert list(fast[topic].items()) == list(exact[topic].items()), topic


def assert_same_scores(monkeypatch, task, parsed, reference, options):
    """score() with the pipeline and with RUNSCORE_FAST_PATH=0 (per topic): every field identical."""
    monkeypatch.delenv(ENV, raising=False)
    fast = task.score(parsed, reference, options)
    monkeypatch.setenv(ENV, "0")
    exact = task.score(parsed, reference, options)
    monkeypatch.delenv(ENV)
    assert list(fast.measures.items()) == list(exact.measures.items())
    assert fast.per_topic == exact.per_topic and list(fast.per_topic) == list(exact.per_topic)
    assert fast.notes == exact.notes
    assert fast.tables == exact.tables


def r2c2_case(seed: int, mode: str):
    """A PR run of up to 20 passages per question (ranks 1-20 with gaps), qrels keyed by passage key text: the
    run's own passages, passages of other runs, and for run_rank mode (run, rank) keys of this run."""
    rng = random.Random(seed)
    gains = random_gains(rng)
    top = len(gains)
    questions = ["%04d" % q for q in rng.sample(range(1, 70), rng.randint(1, 8))]
    run_topics = OrderedDict()
    qrels = {}
    line_no = 0
    for qid in questions:
        passages = [("DOC%d" % rng.randint(1, 9), "text %d;%d" % (rng.randint(0, 30), i)) for i in range(30)]
        passages = list(OrderedDict.fromkeys(passages))
        keys = [key_text(passage_key(qid, doc, text)) if mode == "content" else "RUN-PO-1::%d" % i
                for i, (doc, text) in enumerate(passages, 1)]
        qrels[qid] = {key: rng.choice([0, rng.randint(1, top)]) for key in rng.sample(keys, rng.randint(0, 25))}
        if rng.random() < 0.2:
            continue                                # absent from the run
        ranks = sorted(rng.sample(range(1, 21), rng.randint(0, 20)))
        chosen = rng.sample(passages, len(ranks))
        ordered = OrderedDict()
        for rank, (doc, text) in zip(ranks, chosen):
            line_no += 1
            ordered[rank] = Passage(doc, text, line_no)
        if ordered:
            run_topics[qid] = ordered
    excluded = [q for q in questions if not any(level > 0 for level in qrels[q].values())]
    reference = r2c2_pr.PRReference(qrels, [q for q in questions if q not in excluded], gains, excluded)
    return reference, PRRun("RUN-PO-1", "RUN-PO-1.txt", run_topics)


@pytest.mark.parametrize("seed", range(50))
@pytest.mark.parametrize("mode", ["content", "run_rank"])
def test_r2c2_pipeline_equals_the_per_topic_path(seed, mode, monkeypatch):
    reference, run = r2c2_case(seed, mode)
    assert_same_values(r2c2_pr.pipeline_values(run, reference, mode), r2c2_pr.per_topic_values(run, reference, mode))
    assert_same_scores(monkeypatch, r2c2_pr.TASK, ParsedRun(run.name, run.path, run), reference,
                       {"passage_key_mode": mode, "gains": "linear"})


def test_an_id_the_words_cannot_hold_is_scored_per_topic(monkeypatch):
    """A TIR document id with a NUL (the parser's schema would refuse it; a direct caller may not): the
    pipeline declines and score() still gives the per-topic values."""
    reference = temporalia_tir.TirReference({"001p": {"a\x00": 2, "b": 1}}, (1.0, 2.0))
    run = temporalia_tir.TirRun("RUN1", "grp")
    run.entries["001p"] = [(1, 1, "a\x00"), (2, 2, "c"), (3, 3, "b")]
    assert temporalia_tir.pipeline_values(run, reference, ["001p"]) is None
    options = {"average_over": "all", "gains": "1:2", "qrels_format": "auto"}
    monkeypatch.delenv(ENV, raising=False)
    scores = temporalia_tir.TASK.score(ParsedRun("RUN1", "tir_grp", run), reference, options)
    assert scores.per_topic == temporalia_tir.per_topic_values(run, reference, ["001p"])
    assert scores.per_topic["001p"]["p20"] == 2 / 20


# ------------------------------------------------------------------------------------------- shipped samples ---
@pytest.mark.parametrize("task_id", ["temporalia-tir", "r2c2-pr"])
def test_shipped_sample_gives_the_same_scores_files(task_id, tmp_path, monkeypatch):
    """score.py on the sample submission with the pipeline (1) and per topic (0): the same files, the same
    console output."""
    inp = tmp_path / "input"
    shutil.copytree(os.path.join(ROOT, "reference_data", task_id), str(inp / "ref" / task_id))
    shutil.copytree(os.path.join(ROOT, "starting_kit", "sample_submission", task_id), str(inp / "res"))
    (inp / "res" / "metadata").write_text("exitCode: null\nelapsedTime: null\n")
    outputs = {}
    for switch in ("1", "0"):
        out = tmp_path / ("output" + switch)
        monkeypatch.setenv(ENV, switch)
        code, stdout, stderr = run_score_py(inp, out)
        assert code == 0, stderr
        files = sorted(p for p in os.listdir(str(out)))
        outputs[switch] = {name: (out / name).read_bytes() for name in files if (out / name).is_file()}
        outputs[switch]["console"] = (stdout + stderr).replace(str(out), "OUT")
    assert outputs["1"] == outputs["0"]
    assert {"scores.json", "scores.txt"} <= set(outputs["1"])
    assert task_id.replace("-", "_").encode() in outputs["1"]["scores.json"]
