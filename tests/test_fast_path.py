"""The columnar fast path (ranking/columnar.py + measures/vectorised.py) against the exact path (trec_format +
rankeval + measures.trec) on seeded random runs: every per-topic value of every measure with a kernel, and of a
few without one, must agree within 1e-12 (they are built to agree bit for bit; the test says how many differ at
all). Cases mix ties, tiny score differences that only float32 merges, documents of 1 to 30 bytes (several
words), missing and extra topics, topics without relevant documents, negative (unjudged) grades, relevance
levels 1-3, truncation, the three tie orders and the three interpolation rules, and runs written by score (the
ranking then only sorts groups of tied scores) or in any order.
"""
import io
import random

import numpy as np
import pytest

from runscore.ranking.columnar import NACSIS, TREC, read_columns
from runscore.measures.trec import TrecOptions
from runscore.measures.vectorised import KERNELS
from runscore.ranking.label_columns import QrelsColumns
from runscore.ranking.measure_columns import evaluate_columnar
from runscore.ranking.rank_columns import rank_lines
from runscore.measures.vectorised_all_trec import NAMES as ALL_TREC_KERNELS
from runscore.ranking.rankeval import evaluate_rankings, summarise_topics
from runscore.ranking.trec_format import parse_trec_run

NUM_CASES = 120
# Every kernel: all of all_trec but relstring (a string, served per topic by measures.trec).
MEASURES = KERNELS + ALL_TREC_KERNELS
LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_."


def _docno(rng):
    return "".join(rng.choice(LETTERS) for _ in range(rng.choice((1, 2, 5, 8, 9, 16, 17, 30))))


def make_case(seed):
    """(qrels dict, run text, topics to evaluate)."""
    rng = random.Random(seed)
    qrels, lines = {}, []
    topics = ["%d" % (100 + t) for t in range(rng.randint(1, 12))]
    by_score = rng.random() < 0.6
    for topic in topics:
        pool = list({_docno(rng) for _ in range(rng.randint(1, 60))})
        if rng.random() < 0.85:
            judged = rng.sample(pool, rng.randint(0, len(pool)))
            qrels[topic] = {d: rng.choice((-1, 0, 0, 1, 1, 2, 3)) for d in judged}
        if rng.random() < 0.15:
            continue                      # a qrels topic missing from the run
        retrieved = rng.sample(pool, rng.randint(1, len(pool)))
        base = rng.choice((1.0, 1000.0, 0.5))
        scores = [rng.choice((base, base + 1e-9, round(rng.random(), 2), rng.random() * 10, -rng.random()))
                  for _ in retrieved]
        if by_score:                      # as systems write runs: by score, ties in any docno order
            scores.sort(reverse=True)
        for rank, (docno, score) in enumerate(zip(retrieved, scores), 1):
            lines.append("%s Q0 %s %d %r run%d" % (topic, docno, rank, score, seed))
    lines.append("999 Q0 extra 1 1.5 run%d" % seed)   # a run topic absent from the qrels
    if rng.random() < 0.3:
        rng.shuffle(lines)                # topics not grouped
    return qrels, "\n".join(lines) + "\n", sorted(set(qrels) | {topics[0]})


def exact_and_fast(seed, level, tie_order, max_docs, rule, dtype):
    qrels, text, topics = make_case(seed)
    options = TrecOptions(interp_cutoff=rule)
    slow_run, diags = parse_trec_run(text.encode(), "run")
    assert not diags.has_errors
    exact, _ = evaluate_rankings(slow_run.topics, qrels, topics, MEASURES, level, options, tie_order, max_docs,
                                 score_dtype=dtype)
    run = read_columns(io.BytesIO(text.encode()), TREC)
    assert run is not None
    fast = evaluate_columnar(run, QrelsColumns(qrels), topics, MEASURES, level, options, tie_order, max_docs,
                             score_dtype=dtype)
    return exact, fast


CASES = [(seed, 1 + seed % 3, ("desc", "asc", "file")[seed % 3 if seed % 7 else 0], (None, 5, 30)[seed % 3],
          ("v9", "v10", "ceil")[(seed // 3) % 3], (np.float64, np.float32)[seed % 2]) for seed in range(NUM_CASES)]


@pytest.mark.parametrize("seed,level,tie_order,max_docs,rule,dtype", CASES)
def test_fast_path_equals_exact_path(seed, level, tie_order, max_docs, rule, dtype):
    exact, fast = exact_and_fast(seed, level, tie_order, max_docs, rule, dtype)
    assert list(fast) == list(exact)
    for topic, values in exact.items():
        assert list(fast[topic]) == list(values), topic
        for name, value in values.items():
            assert abs(fast[topic][name] - value) <= 1e-12, (topic, name, fast[topic][name], value)


def test_values_are_bit_identical_on_every_case():
    """Stronger than 1e-12: the sums run in the exact path's order, so no value differs in any bit."""
    differing = []
    for seed, level, tie_order, max_docs, rule, dtype in CASES[:40]:
        exact, fast = exact_and_fast(seed, level, tie_order, max_docs, rule, dtype)
        differing += [(seed, t, n) for t, values in exact.items() for n, v in values.items() if fast[t][n] != v]
        assert summarise_topics(fast, MEASURES) == summarise_topics(exact, MEASURES)
    assert differing == []


def test_the_worked_tie_example_of_the_spec():
    """ranking-measures.md A.2: sims B 0.5, A 0.5, C 0.9 rank C, B, A; qrels A=1 gives P_3 = 1/3, map = 1/3."""
    run = read_columns(io.BytesIO(b"1 Q0 B 1 0.5 r\n1 Q0 A 2 0.5 r\n1 Q0 C 3 0.9 r\n"))
    ranked, offsets = rank_lines(run, ["1"])
    assert [chr(int(w) >> 56) for w in run.docno[ranked, 0]] == ["C", "B", "A"]
    values = evaluate_columnar(run, QrelsColumns({"1": {"A": 1, "B": 0, "C": 0}}), ["1"], ("P", "map"))["1"]
    assert (values["P_5"], values["map"]) == (1 / 5, 1 / 3)


def test_nacsis_layout_reads_the_same_lines():
    text = "0001\t0\tD1\t1\t0.9\tr1\n0001\t0\tD2\t2\t0.5\tr1\n0002\t0\tD1\t1\t3\tr1\n"
    run = read_columns(io.BytesIO(text.encode()), NACSIS)
    assert run.topics == ["0001", "0002"] and run.run_id == "r1" and run.dummy == "0"
    assert run.score.tolist() == [0.9, 0.5, 3.0]
    assert run.first_line == [1, 3]


def test_documents_whose_keys_collide_are_still_told_apart(monkeypatch):
    """Several-word ids are looked up by a mixed 64-bit key; when two documents of a topic share a key the join
    compares words pairwise. Forced here by making every key equal."""
    from runscore.ranking import label_columns

    expected = exact_and_fast(7, 1, "desc", None, "v9", np.float64)[0]
    monkeypatch.setattr(label_columns, "_key", lambda words: np.zeros(words.shape[0], dtype=np.uint64))
    assert exact_and_fast(7, 1, "desc", None, "v9", np.float64)[1] == expected


def test_a_qrels_id_the_words_cannot_hold_falls_back_to_the_exact_path():
    """A NUL byte in a qrels document id (possible in a reference file) cannot be packed: the exact path scores."""
    from runscore.ranking import fastpath

    run = read_columns(io.BytesIO(b"1 Q0 A 1 0.5 r\n1 Q0 B 2 0.4 r\n"))
    qrels = {"1": {"A": 1, "B\x00": 1}}
    values = fastpath.evaluate(run, qrels, ["1"], ("map", "num_rel_ret"))
    assert values["1"] == {"map": 1 / 2, "num_rel_ret": 1.0}     # A at rank 1 of R = 2 relevant documents


def test_files_over_the_columnar_limit_stay_on_the_exact_path(tmp_path, monkeypatch):
    from runscore.ranking import fastpath

    path = tmp_path / "run"
    path.write_bytes(b"1 Q0 A 1 0.5 r\n" * 10)
    monkeypatch.setenv(fastpath.ENVIRONMENT, "1")
    assert fastpath.wanted(str(path))
    monkeypatch.setattr(fastpath, "COLUMNAR_MAX_FILE_BYTES", 100)
    assert not fastpath.wanted(str(path))


@pytest.mark.parametrize("seed", range(30))
@pytest.mark.parametrize("tie_order", ["desc", "asc"])
def test_tied_documents_are_ordered_as_the_exact_ranking(seed, tie_order):
    """Runs written by score with many ties (groups of two lines take a shortcut, bigger groups a sort), and
    document ids that differ only after a long common prefix (in their second or third word)."""
    from runscore.ranking.rankeval import ranked_docnos

    rng = random.Random(seed)
    lines, topics = [], ["%d" % t for t in range(1, 6)]
    for topic in topics:
        prefix = rng.choice(("", "LA0101-", "document-id-prefix-"))
        docs = rng.sample(range(1000), rng.randint(1, 40))
        scores = sorted((rng.choice((1.0, 2.0, 3.0, rng.random())) for _ in docs), reverse=True)
        lines += ["%s Q0 %s%d 1 %r r" % (topic, prefix, d, s) for d, s in zip(docs, scores)]
    text = ("\n".join(lines) + "\n").encode()
    run = read_columns(io.BytesIO(text), TREC)
    ranked, offsets = rank_lines(run, topics, tie_order)
    slow_run, _ = parse_trec_run(text, "run")
    for k, topic in enumerate(topics):
        rows = run.docno[ranked[offsets[k]:offsets[k + 1]]]
        fast = [row.astype(">u8").tobytes().rstrip(b"\0").decode() for row in rows]
        assert fast == ranked_docnos(slow_run.topics[topic], tie_order), topic


@pytest.mark.parametrize("seed", range(6))
def test_segment_sums_over_a_grid_are_the_depth_walks_bit_for_bit(seed, monkeypatch):
    """ordered_segment_sums, running_segment_sums and _suffix_max lay even segments out as a grid (one numpy
    accumulation along its rows); the walk depth by depth they replace gives the same bits, -0.0 included."""
    from runscore.measures import segment_sums

    rng = np.random.default_rng(seed)
    sizes = rng.integers(0, 9, size=rng.integers(1, 30))
    segment = np.repeat(np.arange(sizes.shape[0]), sizes)
    values = rng.choice([0.1, 1 / 3, -0.0, 0.0, 1e-17, 2.5, -7.25, 1e300], size=segment.shape[0])
    values *= rng.random(segment.shape[0])
    count = sizes.shape[0]
    functions = (segment_sums.ordered_segment_sums, segment_sums.running_segment_sums, segment_sums._suffix_max)
    assert segment_sums._segment_grid(values, segment, count, 0.0) is not None or values.shape[0] == 0
    on_grid = [f(values, segment, count).tobytes() for f in functions]
    monkeypatch.setattr(segment_sums, "_segment_grid", lambda *args, **kwargs: None)
    assert [f(values, segment, count).tobytes() for f in functions] == on_grid


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("laid_out", [True, False], ids=["grid", "depth walk"])
def test_suffix_max_is_the_c_walk_from_the_end_bit_for_bit(seed, laid_out, monkeypatch):
    """_suffix_max (interpolated precision) is trec_eval's `best = 0.0; if (x > best) best = x` from the end of
    each segment, bit for bit on every CPU: -0.0, negatives and NaN never beat the start, so a zero is +0.0
    (numpy's AVX-512 maximum gives -0.0 for maximum(-0.0, 0.0), the other loops +0.0) and NaN never shows."""
    from runscore.measures import segment_sums

    rng = np.random.default_rng(seed)
    sizes = rng.integers(0, 9, size=rng.integers(1, 30))
    segment = np.repeat(np.arange(sizes.shape[0]), sizes)
    values = rng.choice([0.5, 1 / 3, -0.0, 0.0, -2.0, np.nan, 1e-300, 7.25], size=segment.shape[0])
    if not laid_out:
        monkeypatch.setattr(segment_sums, "_segment_grid", lambda *args, **kwargs: None)
    expected = np.zeros(values.shape[0])
    for k in range(sizes.shape[0]):
        best = 0.0
        for i in reversed(np.flatnonzero(segment == k).tolist()):
            if values[i] > best:
                best = float(values[i])
            expected[i] = best
    assert segment_sums._suffix_max(values, segment, sizes.shape[0]).tobytes() == expected.tobytes()


def test_the_packed_key_sorts_float32_scores_as_c_compares_them():
    """inmemory._descending_key: topic, then float32 score descending; 0.0 and -0.0 tie, extremes keep their order."""
    from runscore.inmemory import _descending_key

    rng = np.random.default_rng(3)
    special = [0.0, -0.0, 1e-45, -1e-45, 3.4e38, -3.4e38, 1.0, -1.0]
    scores = np.concatenate([rng.standard_normal(500), special]).astype(np.float32)
    code = rng.integers(0, 4, scores.shape[0])
    order = np.argsort(_descending_key(scores, code), kind="stable")
    expected = np.lexsort((-scores.astype(np.float64), code))
    assert (code[order] == code[expected]).all() and (scores[order] == scores[expected]).all()
    zeros = np.flatnonzero(scores == 0)
    assert len(set(_descending_key(scores[zeros], code[zeros] * 0).tolist())) == 1
