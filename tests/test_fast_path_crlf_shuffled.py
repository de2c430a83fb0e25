"""CRLF line ends and lines in random order stay on the fast path and change no number.

CRLF: trec_eval's reading (`c_space`) takes a chunk of CR LF ended lines in the one scan of `_fixed_fields`; the
columns must be the general tokeniser's (CR is C whitespace), whatever the chunk boundaries, and a file that mixes
line ends, holds a CR inside a line or ends in a CR without LF must be read exactly as before. The tasks' NACSIS
reading still declines CR (the task warns about it). Shuffled: one sort of every line (`_sorted_order`), the
topics of a chunk looked up by their word (`_WordCodes`), duplicates found in batches through grouped_order.
"""
import io
import random

import numpy as np
import pytest

from runscore.ranking.rank_columns import rank_lines
from runscore.ranking import columnar, fastpath
from runscore.ranking.columnar import NACSIS, QRELS, TREC, read_columns
from runscore.ranking.rankeval import ranked_docnos
from runscore.ranking.trec_format import parse_trec_run

from test_fast_path_tasks import _files, _ntcir1
from trec_eval_peer import run_runscore

CHUNKS = (41, 301, 4096, 1 << 20)


def _run_lines(rng, topics=6, docs=25, sep=" "):
    lines = []
    for t in range(1, topics + 1):
        scores = sorted((rng.choice((1.0, 2.5, round(rng.random(), 2))) for _ in range(docs)), reverse=True)
        for rank, (d, score) in enumerate(zip(rng.sample(range(500), docs), scores), 1):
            lines.append(sep.join(["%03d" % t, "Q0", "doc%d" % d, str(rank), repr(score), "run"]))
    return lines


def _columns(run):
    return (run.topics, run.first_line, run.run_id, run.topic.tolist(), run.docno.tolist(), run.score.tolist(),
            None if run.grouped_order is None else run.grouped_order.tolist())


def _read(content, monkeypatch, layout=TREC, fixed=True, chunk=1 << 20):
    """read_columns in trec_eval's reading; fixed=False: the general tokeniser reads every chunk."""
    with monkeypatch.context() as patch:
        if not fixed:
            patch.setattr(columnar._Reader, "_fixed_fields", lambda self, buf: None)
        return read_columns(io.BytesIO(content), layout, chunk_bytes=chunk, c_space=True)


CRLF_FILES = {
    "all CRLF": lambda lines: "".join(line + "\r\n" for line in lines),
    "all CRLF, TABs": lambda lines: "".join(line.replace(" ", "\t") + "\r\n" for line in lines),
    "mixed line ends": lambda lines: "".join(line + ("\r\n" if i % 3 else "\n") for i, line in enumerate(lines)),
    "CR inside a line": lambda lines: "".join((line.replace(" Q0 ", "\rQ0 ") if i == 40 else line) + "\r\n"
                                              for i, line in enumerate(lines)),
    "CR before EOF without LF": lambda lines: "".join(line + "\r\n" for line in lines)[:-1],
    "CR CR LF": lambda lines: "".join(line + ("\r\r\n" if i == 70 else "\r\n") for i, line in enumerate(lines)),
    "space before CR": lambda lines: "".join(line + (" \r\n" if i == 7 else "\r\n") for i, line in enumerate(lines)),
}


@pytest.mark.parametrize("shape", sorted(CRLF_FILES))
def test_crlf_chunks_read_as_the_general_tokeniser_reads_them(monkeypatch, shape):
    content = CRLF_FILES[shape](_run_lines(random.Random(5))).encode()
    general = _read(content, monkeypatch, fixed=False)
    assert general is not None
    fixed_chunks = []
    original = columnar._Reader._fixed_fields
    monkeypatch.setattr(columnar._Reader, "_fixed_fields",
                        lambda self, buf: fixed_chunks.append(original(self, buf) is not None) or original(self, buf))
    for chunk in CHUNKS:
        assert _columns(_read(content, monkeypatch, chunk=chunk)) == _columns(general), chunk
    if shape.startswith("all CRLF"):
        assert all(fixed_chunks), "a CRLF chunk fell to the general tokeniser"


def test_crlf_qrels_in_trec_eval_reading(monkeypatch):
    rng = random.Random(2)
    content = "".join("%d 0 doc%d %d\r\n" % (t, d, rng.choice((0, 1, 2))) for t in range(1, 30)
                      for d in rng.sample(range(100), 20)).encode()
    general = _read(content, monkeypatch, QRELS, fixed=False)
    for chunk in CHUNKS:
        assert _columns(_read(content, monkeypatch, QRELS, chunk=chunk)) == _columns(general)


def test_the_tasks_readings_still_decline_crlf(tmp_path):
    """Only trec_eval's reading takes the CRLF scan: a NACSIS file with CR goes to the task's parser, which warns."""
    with open(_files(tmp_path)[1], "rb") as handle:
        content = handle.read()
    assert read_columns(io.BytesIO(content), NACSIS) is not None
    assert read_columns(io.BytesIO(content.replace(b"\n", b"\r\n")), NACSIS) is None


def test_a_crlf_ntcir1_adhoc_run_keeps_its_warning(tmp_path, monkeypatch):
    q, r = _files(tmp_path)
    with open(r, "rb") as handle:
        content = handle.read()
    with open(r, "wb") as handle:
        handle.write(content.replace(b"\n", b"\r\n"))
    fast_runs, fast_diags, fast_scores = _ntcir1(monkeypatch, "1", (q, {}), r)
    exact_runs, exact_diags, exact_scores = _ntcir1(monkeypatch, "0", (q, {}), r)
    assert not isinstance(fast_runs[0].data.topics, columnar.ColumnarRun)
    assert fast_diags == exact_diags and any("warning" in line for line in fast_diags)
    assert fast_scores == exact_scores


@pytest.mark.parametrize("shape", sorted(CRLF_FILES))
def test_runscore_trec_eval_prints_the_exact_paths_output_on_crlf_files(tmp_path, monkeypatch, shape):
    rng = random.Random(9)
    lines = _run_lines(rng)
    qrels = tmp_path / "qrels"
    qrels.write_bytes("".join("%03d 0 doc%d %d\r\n" % (t, d, rng.choice((0, 1, 2))) for t in range(1, 7)
                              for d in rng.sample(range(500), 60)).encode())
    run = tmp_path / "run"
    run.write_bytes(CRLF_FILES[shape](lines).encode())
    args = ["-q", "--full-precision", "-m", "all_trec", str(qrels), str(run)]
    monkeypatch.setenv(fastpath.ENVIRONMENT, "1")
    fast = run_runscore(args)
    monkeypatch.setenv(fastpath.ENVIRONMENT, "0")
    assert fast == run_runscore(args) and fast[1] == 0


# --------------------------------------------------------------------------------------------- shuffled ---

def _shuffled(seed, topics=300, docs=(1, 12), topic_name="%d", long_ids=True):
    """A run of many topics in random order, scores with many ties (a few values), ids of one word and (unless
    not long_ids) of three."""
    rng = random.Random(seed)
    lines = []
    for t in range(topics):
        docs_here = rng.sample(range(10 ** 6), rng.randint(*docs))
        for d in docs_here:
            docno = ("d%d" % d) if d % 3 or not long_ids else ("long-document-%d" % d)
            lines.append("%s Q0 %s 1 %s r" % (topic_name % t, docno, rng.choice(("1", "2", "0.5", "-3", "2.0"))))
    rng.shuffle(lines)
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.parametrize("seed", range(3))
def test_shuffled_topics_read_the_same_at_any_chunk_boundary(seed):
    """_shuffled_topics (a chunk of over 256 topic changes) looks topics up by word; small chunks decode each
    change (`_code_of`): the same codes, first lines and grouping either way, and the exact reader's topics."""
    names = ("%d", "topic-number-%d", "%05d")[seed]       # topics of two words: the per-change decoding
    content = _shuffled(seed, topics=200, topic_name=names)
    small = read_columns(io.BytesIO(content), TREC, chunk_bytes=97)      # at most 256 changes a chunk
    exact, _ = parse_trec_run(content, "run")
    assert small.topics == list(exact.topics)
    assert small.first_line == [r.lines[0] for r in exact.topics.values()]
    for chunk in (5000, 16384, 1 << 20):
        assert _columns(read_columns(io.BytesIO(content), TREC, chunk_bytes=chunk)) == _columns(small), chunk


def test_topic_words_sharing_a_slot_are_searched(monkeypatch):
    """_WordCodes hashes a word to a slot; every word in one slot (forced) leaves all but one to the search of
    the sorted table: the same codes."""
    content = _shuffled(5, topics=400)
    expected = _columns(read_columns(io.BytesIO(content), TREC))
    monkeypatch.setattr(columnar._WordCodes, "_HASH", np.uint64(0))
    assert _columns(read_columns(io.BytesIO(content), TREC)) == expected


def test_a_shuffled_run_with_a_duplicate_is_declined():
    content = _shuffled(3, docs=(5, 5))
    lines = content.splitlines()
    duplicate = lines[123].replace(b" 1 ", b" 9 ")
    assert read_columns(io.BytesIO(content), TREC) is not None
    for at in (0, 500, len(lines)):
        bad = b"\n".join(lines[:at] + [duplicate] + lines[at:]) + b"\n"
        assert read_columns(io.BytesIO(bad), TREC, chunk_bytes=512) is None


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("tie_order", ["desc", "asc", "file"])
@pytest.mark.parametrize("sizes", [(1, 40), (20, 20), (19, 20)])
def test_shuffled_runs_rank_as_the_exact_ranking(seed, tie_order, sizes):
    """Every topic's ranking (ties by docno, or in file order), truncated or not, a topic asked for that the run
    lacks and run topics not asked for; topics of many sizes (one sort of every line) or of one or two sizes
    (sorted as the rows of a matrix)."""
    content = _shuffled(seed, topics=200, docs=sizes)
    run = read_columns(io.BytesIO(content), TREC)
    assert run.grouped_order is not None
    slow_run, _ = parse_trec_run(content, "run")
    rng = random.Random(seed)
    topics = sorted(rng.sample(run.topics, 150) + ["absent"])
    for max_docs in (None, 1, 7):
        ranked, offsets = rank_lines(run, topics, tie_order, max_docs)
        for k, topic in enumerate(topics):
            rows = run.docno[ranked[offsets[k]:offsets[k + 1]]]
            fast = [row.astype(">u8").tobytes().rstrip(b"\0").decode() for row in rows]
            expected = ranked_docnos(slow_run.topics[topic], tie_order, max_docs) if topic in slow_run.topics else []
            assert fast == expected, (topic, max_docs)


def test_the_global_sort_handles_more_topics_than_16_bits(monkeypatch):
    """Over 65,535 topics the topic keys are not 16-bit (no radix sort): the same order as a lexsort, by rows
    and by one sort of every line."""
    from runscore.ranking import rank_columns

    content = _shuffled(1, topics=66000, docs=(1, 2), long_ids=False)
    run = read_columns(io.BytesIO(content), TREC)
    topics = sorted(run.topics)
    position = np.empty(len(run.topics), dtype=np.int64)
    codes = {t: code for code, t in enumerate(run.topics)}
    position[[codes[t] for t in topics]] = np.arange(len(topics))
    words = ~run.docno
    keys = [words[:, j] for j in range(words.shape[1] - 1, -1, -1)] + [-run.score, position[run.topic]]
    expected = np.lexsort(keys).tolist()
    assert rank_lines(run, topics)[0].tolist() == expected
    monkeypatch.setattr(rank_columns, "_by_score_in_rows", lambda run, negated, asked, sizes, bounds, index_type:
                        rank_columns._by_score_at_once(run, negated, asked, index_type))
    assert rank_lines(run, topics)[0].tolist() == expected


def test_nan_scores_sort_last_as_in_the_exact_ranking():
    """A task's records may hold NaN (columns_from_records): NaN ties with NaN, as numpy's lexsort has it."""
    from runscore.ranking.columnar_run import columns_from_records
    from runscore.ranking.label import rank_order

    nan = float("nan")
    topic_ids = ["b", "a", "b", "a", "a", "b", "a"]
    docs = ["x", "y", "z", "w", "v", "u", "t"]
    scores = [nan, 1.0, 2.0, nan, nan, 2.0, 0.5]
    run = columns_from_records(topic_ids, docs, scores)
    ranked, offsets = rank_lines(run, ["a", "b"])
    for k, topic in enumerate(["a", "b"]):
        mine = [i for i, t in enumerate(topic_ids) if t == topic]
        order = rank_order(np.array([scores[i] for i in mine]), [docs[i] for i in mine])
        assert ranked[offsets[k]:offsets[k + 1]].tolist() == [mine[i] for i in order]


# ----------------------------------------------------------------------------------------------- memory ---

def test_big_columns_are_zeroed_maps_that_grow_as_before():
    """_Store's columns of 1 MiB or more are anonymous maps (pages resident only once written): zeroed, writable,
    and a wider id or more lines than the bound copy them as np.zeros arrays did."""
    store = columnar._Store(200000)
    assert isinstance(store.docno.base.base.obj, columnar.mmap.mmap) and not store.docno.any()
    store.add(np.arange(3, dtype=np.int32), np.array([[1], [2], [3]], dtype=np.uint64), np.ones(3))
    store.add(np.zeros(2, dtype=np.int32), np.array([[4, 5], [6, 7]], dtype=np.uint64), np.zeros(2))
    store.add(np.zeros(300000, dtype=np.int32), np.ones((300000, 1), dtype=np.uint64), np.zeros(300000))
    topic, docno, score = store.columns()
    assert docno[:5].tolist() == [[1, 0], [2, 0], [3, 0], [4, 5], [6, 7]] and docno[5:, 1].sum() == 0
    assert topic[:5].tolist() == [0, 1, 2, 0, 0] and score[:5].tolist() == [1, 1, 1, 0, 0]
    assert topic.shape[0] == docno.shape[0] == score.shape[0] == 300005


@pytest.mark.parametrize("shape", ["all CRLF", "mixed line ends", "shuffled"])
def test_two_part_reading_of_crlf_and_shuffled_runs(tmp_path, shape):
    """A big file is read by two readers at once (read_columns' split_at): each takes CRLF chunks and looks
    topics up by word on its own; the joined columns are those of one reader."""
    if shape == "shuffled":
        content = _shuffled(2, topics=400, docs=(5, 5))
    else:
        content = CRLF_FILES[shape](_run_lines(random.Random(3), topics=30)).encode()
    path = tmp_path / "run"
    path.write_bytes(content)
    whole = read_columns(io.BytesIO(content), TREC, chunk_bytes=2048, c_space=True)
    assert whole is not None
    for cut in (1, len(content) // 3, len(content) // 2, len(content) - 30):
        with open(str(path), "rb") as handle:
            part = read_columns(handle, TREC, chunk_bytes=2048, split_at=cut, c_space=True)
        assert _columns(part) == _columns(whole), cut


@pytest.mark.parametrize("shape", ["all CRLF", "shuffled, topics of one size", "shuffled, CRLF"])
def test_crlf_and_shuffled_runs_print_trec_evals_bytes(tmp_path, monkeypatch, shape):
    """Against the real trec_eval 9.0.8 (built from ../shared; skipped without it), on the fast path."""
    import trec_eval_peer as peer

    if peer.binary("9.0.8")[0] is None:
        pytest.skip(peer.binary("9.0.8")[1])
    rng = random.Random(8)
    if shape == "all CRLF":
        run = CRLF_FILES[shape](_run_lines(rng)).encode()
    else:
        run = _shuffled(8, topics=400, docs=(20, 20))
        if "CRLF" in shape:
            run = run.replace(b"\n", b"\r\n")
    judged = [line.split()[:3:2] for line in run.splitlines() if rng.random() < 0.4]     # (topic, docno)
    qrels = b"".join(b"%s 0 %s %d\r\n" % (topic, docno, rng.choice((0, 1, 2))) for topic, docno in judged)
    seen = []
    real = fastpath.read
    monkeypatch.setattr(fastpath, "read", lambda *a, **k: seen.append(real(*a, **k)) or seen[-1])
    monkeypatch.setenv(fastpath.ENVIRONMENT, "1")
    for options in (["-q", "-m", "all_trec"], ["-q", "-M", "7", "-m", "map", "-m", "ndcg_cut.5"]):
        problem = peer.compare(qrels, run, options, "9.0.8", str(tmp_path))
        assert problem is None, problem
        assert seen[-1] is not None                     # the columnar reader took the run


@pytest.mark.parametrize("lines,topics", [(0, 1), (7, 3), (70000, 5), (200000, 2 ** 16), (150000, 70000)])
def test_grouping_order_is_a_stable_sort_of_the_topic_codes(lines, topics):
    """grouping_order sorts block by block (65,536 lines or the number of topics): a stable argsort's result."""
    topic = np.random.default_rng(lines).integers(0, topics, lines).astype(np.int32)
    assert columnar.grouping_order(topic, topics).tolist() == np.argsort(topic, kind="stable").tolist()
