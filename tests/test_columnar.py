"""ranking/columnar.py reads exactly what the exact readers read, and declines every file they would comment on.

The rule under test: for any input, either the fast reader returns None (the exact reader then words the
diagnostics), or the exact reader has nothing to say about the file and both readers hold the same topics,
documents, scores, first lines and run id. Tables of tricky inputs (valid and invalid) for both layouts, plus
number parsing against Python's float() and chunk boundaries.
"""
import io
import random

import numpy as np
import pytest

from runscore.ranking.columnar import NACSIS, TREC, read_columns, read_columns_file
from runscore.ranking.columnar_numbers import parse_decimals
from runscore.errors import Diagnostics
from runscore.tasks.ntcir1_adhoc import TASK as NTCIR1
from runscore.ranking.trec_format import parse_trec_run


def _docnos(run, lines):
    return [bytes(row.astype(">u8").tobytes()).rstrip(b"\0").decode("ascii") for row in run.docno[lines]]


def _fast_view(run):
    """topic -> (docnos, scores) in file order, first lines, run id."""
    topics = {}
    for code, topic in enumerate(run.topics):
        lines = run.topic_lines(code)
        topics[topic] = (_docnos(run, lines), run.score[lines].tolist())
    return topics, run.first_line, run.run_id


def _exact_view(trec_run):
    topics = {t: (r.docnos, r.scores) for t, r in trec_run.topics.items()}
    return topics, [r.lines[0] for r in trec_run.topics.values()], trec_run.run_id


# (content, does the fast reader take it) - every row is also checked against the exact reader.
TREC_TABLE = [
    (b"1 Q0 D1 1 0.5 r\n1 Q0 D2 2 0.25 r\n2 Q0 D1 1 3 r\n", True),
    (b"1\tQ0\tD1\t1\t0.5\tr\n", True),                                    # TABs
    (b"1  Q0   D1 1 0.5 r  extra fields\n\n\n2 Q0 D9 1 -7 r2\n", True),   # runs of spaces, extras, blank lines
    (b"1 Q0 D1 1 0.5 r\r\n1 Q0 D2 1 0.4 r\r\n", True),                   # CRLF
    (b"1 Q0 D1 1 0.5 r\n1 Q0 D2 1 0.4 r", True),                         # no final LF
    (b"1 Q0 D1 1 +.5 r\n1 Q0 D2 1 1. r\n1 Q0 D3 1 -0 r\n", True),        # every form of the number grammar
    (b"1 Q0 D1 1 1e5 r\n1 Q0 D2 1 -2.5E-3 r\n1 Q0 D3 1 0.12345678901234567 r\n", True),   # exponent, 17 digits
    (b"1 Q0 D1 1 0.5 r\x0b\n1\x0cQ0 D2 1 0.4 r\n", True),                # \v and \f are whitespace to split()
    (b"2 Q0 D1 1 0.5 r\n1 Q0 D1 1 0.5 r\n2 Q0 D2 1 0.4 r\n", True),      # topics not grouped
    (b"1 Q0 a-very-long-document-identifier-of-50-bytes-xx 1 0.5 r\n", True),
    (b"# comment 1 2 3 4 5\n1 Q0 D1 1 0.5 r\n", True),                   # '#' is a topic without comments
    (b"1 Q0 D1 1 abc r\n", False),                                       # not a number
    (b"1 Q0 D1 1 1e999 r\n", False),                                     # out of range
    (b"1 Q0 D1 1 nan r\n", False),
    (b"1 Q0 D1 1 inf r\n", False),
    (b"1 Q0 D1 1 0x1p3 r\n", False),
    (b"1 Q0 D1 1 1_000 r\n", False),
    (b"1 Q0 D1 1 .5.5 r\n", False),
    (b"1 Q0 D1 1\n", False),                                             # too few fields
    (b"1 Q0 D1 1 0.5 r\n1 Q0 D1 2 0.4 r\n", False),                      # duplicate
    (b"1 Q0 abcdefghijklmnopq 1 0.5 r\n1 Q0 abcdefghijklmnopq 2 0.4 r\n", False),   # duplicate of 3 words
    (b"", False),
    (b"\n\n", False),
    (b"1 Q0 D\xff 1 0.5 r\n", False),                                    # not UTF-8
    (b"\xef\xbb\xbf1 Q0 D1 1 0.5 r\n", False),                           # BOM: exact reader only
    (b"1 Q0 D\xc3\xa9 1 0.5 r\n", False),                                # non-ASCII: exact reader only
    (b"1 Q0 D\x00 1 0.5 r\n", False),                                    # NUL
    (b"1 Q0 D1 1 0.5 r\r1 Q0 D2 1 0.4 r\r", False),                      # CR-only line ends
]


@pytest.mark.parametrize("content,taken", TREC_TABLE)
def test_trec_layout_agrees_with_the_exact_reader(content, taken):
    fast = read_columns(io.BytesIO(content), TREC)
    exact, diags = parse_trec_run(content, "run")
    assert (fast is not None) == taken
    if fast is None:
        return
    assert diags.items == []
    assert _fast_view(fast) == _exact_view(exact)


def test_comment_lines_are_left_to_the_exact_reader():
    content = b"# Q0 D0 1 0.25 r\n1 Q0 D1 1 0.5 r\n"
    assert read_columns(io.BytesIO(content), TREC, comments=True) is None
    assert read_columns(io.BytesIO(content), TREC, comments=False) is not None


NACSIS_TABLE = [
    (b"0001\t0\tD1\t1\t0.9\tntc1\n0001\t0\tD2\t2\t0.5\tntc1\n0002\t0\tD1\t1\t3\tntc1\n", True),
    (b"0001\t0\tD1\t1\t0.9\tntc1\n0001\t0\tD2\t2\t0.9\tntc1\n", True),                 # a tie
    (b"0001\t0\tD1\t1\t0.9\tntc1\n0002\t0\tD1\t1\t0.9\tntc1", True),                    # no final LF
    (b"0001\t0\tD1\t1\t0.9\tntc1", False),                                             # nor any LF: exact
    (b"0001\t0\tD1\t1\t0.9\tntc1\n\n", False),                                         # blank line: warning
    (b"0001 0 D1 1 0.9 ntc1\n0001 0 D2 2 0.5 ntc1\n", True),   # no TAB: split on spaces, one warning
    (b"0001\t0\tD1\t1\t0.9\tntc1\textra\n", False),                                    # 7 fields: warning
    (b"0001\t0\tD1\t1\t0.9\tntc1\r\n", False),                                         # CRLF: exact reader
    (b"31\t0\tD1\t1\t0.9\tntc1\n", False),                                             # not zero-padded
    (b"0002\t0\tD1\t1\t0.9\tntc1\n0001\t0\tD1\t1\t0.9\tntc1\n", False),                # not sorted
    (b"0001\t0\tD1\tone\t0.9\tntc1\n", False),                                         # Rank not an integer
    (b"0001\t0\tD1\t1\t0.5\tntc1\n0001\t0\tD2\t2\t0.9\tntc1\n", False),                # Rank and sim disagree
    (b"0001\t0\tD1\t5\t0.5\tntc1\n0001\t0\tD2\t2\t0.9\tntc1\n", True),                 # sim grows, Rank falls
    (b"0001\t0\tD1\t1\t0.5\tntc1\n0002\t0\tD2\t2\t0.9\tntc1\n", True),                 # grows across topics
    (b"0001\t0\tD1\t1\t0.9\tntc1\n0001\t0\tD2\t3\t0.5\tntc1\n0001\t0\tD3\t4\t0.6\tntc1\n", False),
    (b"0001\t0\tD1\t100000000\t0.5\tntc1\n0001\t0\tD2\t100000001\t0.9\tntc1\n", False),  # long Ranks
    (b"0001\t0\tD1\t1\t0.9\tntc1\n0001\t1\tD2\t2\t0.5\tntc1\n", False),                # Dummy not constant
    (b"0001\t0\tD1\t1\t0.9\tntc1\n0001\t0\tD2\t2\t0.5\tntc2\n", False),                # two Run-IDs
    (b"0001\t0\tD1\t1\t0.9\tntc1\n0001\t0\tD1\t2\t0.5\tntc1\n", False),                # duplicate
    (b"0001\t0\tD1\t1\tx\tntc1\n", False),                                             # not a number
    (b"0001\t0\t\t1\t0.9\tntc1\n", False),                                             # empty Document-ID
]


@pytest.mark.parametrize("content,taken", NACSIS_TABLE)
def test_nacsis_layout_agrees_with_the_task_parser(content, taken, tmp_path, monkeypatch):
    monkeypatch.setenv("RUNSCORE_FAST_PATH", "0")     # the task's exact parser, whatever the environment
    path = tmp_path / "ntc1"
    path.write_bytes(content)
    fast = read_columns(io.BytesIO(content), NACSIS)
    diags = Diagnostics("ntc1")
    runs = NTCIR1.parse(str(path), "ntc1", diags, None, NTCIR1.resolve_options({}))
    assert (fast is not None) == taken
    if fast is None:
        return
    notab = [] if b"\t" in content else ["line has no TAB; fields split on spaces (the format asks for TABs) (and 1 "
                                          "more line like it)"]
    assert [d.message for d in diags.items] == notab
    topics = {t: (r.docnos, r.scores) for t, r in runs[0].data.topics.items()}
    assert _fast_view(fast) == (topics, [r.lines[0] for r in runs[0].data.topics.values()], runs[0].name)


@pytest.mark.parametrize("disagree_at", [None, 1, 2, 5, 9])
def test_nacsis_rank_check_across_chunk_boundaries(disagree_at):
    """Rank and Similarity growing together is found wherever the chunks are cut (the check carries the last
    line of a chunk over); Similarity growing while Rank falls is not a warning."""
    lines = []
    for i in range(10):
        rank, sim = 10 - i, (0.1 * (i + 1) if i % 3 else 1.0 - 0.05 * i)      # Rank falls, sim up and down
        if i == disagree_at:
            rank, sim = 100 + i, 5.0
        lines.append("0001\t0\tD%d\t%d\t%r\tntc1\n" % (i, rank, sim))
    content = "".join(lines).encode()
    for chunk in (8, 30, 64, 100, 4096):
        assert (read_columns(io.BytesIO(content), NACSIS, chunk_bytes=chunk) is None) == (disagree_at is not None)


@pytest.mark.parametrize("longest", [8, 20])
def test_decimals_equal_python_float(longest):
    """Fields of at most 8 bytes take a path of their own (eight flags per uint64); both must equal float()."""
    rng = random.Random(longest)
    texts = []
    while len(texts) < 4000:
        digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 20)))
        dot = rng.randint(0, len(digits))
        text = rng.choice(("", "-", "+")) + digits[:dot] + rng.choice((".", "")) + digits[dot:]
        if rng.random() < 0.1:
            text += "e%d" % rng.randint(-30, 30)
        if len(text) <= longest:
            texts.append(text)
    texts[-1] = "9" * longest
    blob = (" ".join(texts) + " ").encode()
    buf = np.frombuffer(blob, dtype=np.uint8)
    ends = np.flatnonzero(buf == 32)
    starts = np.concatenate(([0], ends[:-1] + 1))
    values = parse_decimals(buf, starts, ends)
    expected = [float(t) for t in texts]
    assert [v.hex() for v in values.tolist()] == [e.hex() for e in expected]


@pytest.mark.parametrize("text", ["1.2.3", "--1", "1-", ".", "+", "1e", "e5", "0x10", "1,5", "inf", "nan", "1/",
                                  "1.5e", "-.e1"])
def test_decimals_refuse_what_the_run_grammar_refuses(text):
    buf = np.frombuffer(("0.5 %s " % text).encode(), dtype=np.uint8)
    ends = np.flatnonzero(buf == 32)
    starts = np.concatenate(([0], ends[:-1] + 1))
    assert parse_decimals(buf, starts, ends) is None


def test_chunk_boundaries_do_not_change_the_result():
    rng = random.Random(3)
    lines = ["%d Q0 D%d %d %.4f r" % (t, d, d, rng.random()) for t in range(20) for d in range(50)]
    content = ("\n".join(lines) + "\n").encode()
    whole = _fast_view(read_columns(io.BytesIO(content), TREC))
    for chunk in (7, 64, 1000, 4096):
        assert _fast_view(read_columns(io.BytesIO(content), TREC, chunk_bytes=chunk)) == whole


# Qrels (`topic iter docno grade`): None, or the same judgements as qrels.parse_qrels_text.
QRELS_TABLE = [
    (b"1 0 D1 1\n1 0 D2 0\n2 0 D1 2\n", True),
    (b"1\t0\tD1\t1\n\n1 0 D2 -1 extra\r\n", True),                       # blank line, extra field, CRLF
    (b"2 0 D1 1\n1 0 D1 1\n2 0 D2 007\n", True),                         # topics not grouped, leading zeros
    (b"1 0 D1 +3\n", True),
    (b"1 0 D1 1_0\n", False),                                           # int() reads 10: exact reader only
    (b"1 0 D1 A\n", False),                                             # not an integer
    (b"1 0 D1\n", False),                                               # too few fields
    (b"1 0 D1 1\n1 0 D1 0\n", False),                                   # duplicate judgement
    (b"", False),
    (b"1 0 D\xc3\xa9 1\n", False),
    (b"1 0 D1 -1000000\n1 0 D2 1000000\n", True),                        # qrels.MAX_GRADE
    (b"1 0 D1 1000001\n", False),                                       # beyond it: the exact reader refuses
]


@pytest.mark.parametrize("content,taken", QRELS_TABLE)
def test_qrels_layout_agrees_with_the_exact_reader(content, taken):
    from runscore.ranking.columnar import QRELS
    from runscore.ranking.qrels import parse_qrels_text

    fast = read_columns(io.BytesIO(content), QRELS)
    assert (fast is not None) == taken
    if fast is None:
        return
    exact = parse_qrels_text(content.decode(), "qrels")
    view = {}
    for code, topic in enumerate(fast.topics):
        lines = fast.topic_lines(code)
        view[topic] = dict(zip(_docnos(fast, lines), fast.score[lines].tolist()))
    assert view == exact


LETTERS = {"S": 3, "A": 2, "B": 1, "C": 0}
# Qrels with a grade map (NTCIR's letters), against qrels.parse_qrels_text(grade_map=...).
LETTER_TABLE = [
    (b"1 0 D1 S\n1 0 D2 A\n1 0 D3 B\n1 0 D4 C\n", LETTERS, True),
    (b"1 0 D1 A\n1 0 D2 1\n2 0 D1 -1\n", LETTERS, True),             # letters and integers mixed
    (b"1 0 D1 a\n", LETTERS, False),                                   # not a key (case matters)
    (b"1 0 D1 AA\n", LETTERS, False),
    (b"1 0 D1 A\n", {"A": 2000000}, False),                             # mapped beyond MAX_GRADE: exact reader
    (b"1 0 D1 1\n", {"1": 5}, False),                                  # a digit key: the exact reader maps it
    (b"1 0 D1 10\n", {"10": 5, "A": 1}, False),
]


@pytest.mark.parametrize("content,grade_map,taken", LETTER_TABLE)
def test_qrels_letter_grades_agree_with_the_exact_reader(content, grade_map, taken):
    from runscore.ranking.columnar import QRELS
    from runscore.ranking.qrels import parse_qrels_text

    fast = read_columns(io.BytesIO(content), QRELS, grade_map=grade_map)
    assert (fast is not None) == taken
    if fast is None:
        return
    exact = parse_qrels_text(content.decode(), "qrels", grade_map=grade_map)
    view = {}
    for code, topic in enumerate(fast.topics):
        lines = fast.topic_lines(code)
        view[topic] = dict(zip(_docnos(fast, lines), fast.score[lines].tolist()))
    assert view == exact


class _Stream(io.RawIOBase):
    """A pipe-like file: cannot seek, so the columns grow instead of being counted first."""

    def __init__(self, data):
        self._data = io.BytesIO(data)

    def readable(self):
        return True

    def seekable(self):
        return False

    def readinto(self, buffer):
        chunk = self._data.read(len(buffer))
        buffer[:len(chunk)] = chunk
        return len(chunk)


def test_unseekable_input_and_wider_ids_in_a_later_chunk():
    lines = ["%d Q0 D%d 1 0.%d r" % (t, d, d) for t in range(30) for d in range(1, 60)]
    lines.append("29 Q0 a-much-longer-document-identifier 1 0.5 r")      # 5 words, in the last chunk
    content = ("\n".join(lines) + "\n").encode()
    counted = read_columns(io.BytesIO(content), TREC, chunk_bytes=512)
    grown = read_columns(io.BufferedReader(_Stream(content)), TREC, chunk_bytes=512)
    assert counted.docno.shape[1] == grown.docno.shape[1] == 5
    assert _fast_view(grown) == _fast_view(counted) == _exact_view(parse_trec_run(content, "run")[0])


@pytest.mark.parametrize("layout,pattern", [("trec", "%s Q %s 1 1 r\n"), ("nacsis", "000%s\t0\t%s\t1\t1\tr\n"),
                                            ("qrels", "%s 0 %s 1\n")])
def test_the_capacity_bound_holds_for_the_shortest_lines(tmp_path, layout, pattern):
    """Columns are allocated once from the file size; the shortest possible records must fit (else they grow)."""
    import string

    from runscore.ranking.columnar import _capacity

    content = "".join(pattern % (t, d) for t in "123456789" for d in string.ascii_letters).encode()
    path = tmp_path / "run"
    path.write_bytes(content)
    with open(str(path), "rb") as handle:
        assert _capacity(handle, layout) >= 9 * 52
    assert _capacity(io.BytesIO(content), layout) == 9 * 52 + 1         # not a file: counted
    assert len(read_columns_file(str(path), layout)) == 9 * 52


@pytest.mark.parametrize("lengths", [(1, 30), (8, 8), (16, 16), (5, 5), (7, 9)])
@pytest.mark.parametrize("words", [0, 5])
def test_packed_words_are_the_big_endian_bytes(lengths, words):
    """pack_fields against int.from_bytes: equal lengths (one mask), mixed lengths, more words than needed."""
    from runscore.ranking.columnar_words import pack_fields, padded_buffer

    rng = random.Random(sum(lengths) + words)
    fields = [bytes(rng.randrange(33, 127) for _ in range(rng.randint(*lengths))) for _ in range(300)]
    data = b" ".join(fields)
    starts = np.cumsum([0] + [len(f) + 1 for f in fields[:-1]])
    ends = starts + np.array([len(f) for f in fields])
    packed = pack_fields(padded_buffer(data), starts, ends, words)
    count = max(words, (max(map(len, fields)) + 7) // 8)
    expected = [[int.from_bytes(f.ljust(8 * count, b"\0")[8 * j:8 * j + 8], "big") for j in range(count)]
                for f in fields]
    assert packed.tolist() == expected


def _same_columns(a, b):
    """Two reads of one file give the same ColumnarRun (None for both, or every field equal)."""
    if a is None or b is None:
        return a is None and b is None
    arrays = ("topic", "docno", "score", "starts")
    return (a.topics == b.topics and a.first_line == b.first_line and a.run_id == b.run_id and a.dummy == b.dummy
            and all(np.array_equal(getattr(a, n), getattr(b, n)) for n in arrays)
            and (a.grouped_order is None) == (b.grouped_order is None)
            and (a.grouped_order is None or np.array_equal(a.grouped_order, b.grouped_order)))


def _split_reads(tmp_path, content, layout, **options):
    """The file read whole, and read in two parts cut after every line."""
    from runscore.ranking.columnar import read_columns_file

    path = tmp_path / "file"
    path.write_bytes(content)
    whole = read_columns(io.BytesIO(content), layout, **options)
    cuts = [0] + [i + 1 for i, byte in enumerate(content) if byte == 10]
    parts = []
    for cut in cuts:
        with open(str(path), "rb") as handle:
            parts.append((cut, read_columns(handle, layout, split_at=cut, **options)))
    assert read_columns_file(str(path), layout, **options) is not None or whole is None
    return whole, parts


SPLIT_CASES = ([(c, TREC, {}) for c, _ in TREC_TABLE] + [(c, NACSIS, {}) for c, _ in NACSIS_TABLE]
               + [(c, "qrels", {}) for c, _ in QRELS_TABLE]
               + [(c, "qrels", {"grade_map": m}) for c, m, _ in LETTER_TABLE]
               + [(b"0001\t0\tD1\t1\t0.5\tntc1\n0001\t0\tD2\t2\t0.9\tntc1\n", NACSIS, {}),     # disagree at the cut
                  (b"0001\t0\tD1\t1\t0.9\tntc1\n0002\t0\tD2\t2\t0.9\tntc2\n", NACSIS, {}),     # Run-ID changes
                  (b"0001\t0\tD1\t1\t0.9\tntc1\n0002\t1\tD2\t2\t0.9\tntc1\n", NACSIS, {}),     # Dummy changes
                  (b"0002\t0\tD1\t1\t0.9\tntc1\n0001\t0\tD2\t2\t0.9\tntc1\n", NACSIS, {}),     # order across the cut
                  (b"1 Q0 A 1 1 r\n2 Q0 A 1 1 r\n1 Q0 B 2 0 r\n", TREC, {}),                  # topic 1 comes back
                  (b"1 Q0 A 1 1 r\n1 Q0 A 2 0 r\n", TREC, {}),                                # duplicate across
                  (b"1 Q0 A 1 1 r\n\n\n2 Q0 B 1 1 s\n", TREC, {}),                             # blank lines
                  (b"\n\n1 Q0 A 1 1 r\n", TREC, {}),                                          # first part blank
                  (b"1 Q0 A 1 1 r\n2 Q0 B 1 1 r", TREC, {}),                                   # no final LF
                  (b"# c\n1 Q0 A 1 1 r\n# d\n2 Q0 B 1 1 r\n", TREC, {"comments": True})])


@pytest.mark.parametrize("content,layout,options", SPLIT_CASES)
def test_a_file_read_in_two_parts_gives_the_same_columns(tmp_path, content, layout, options):
    whole, parts = _split_reads(tmp_path, content, layout, **options)
    for cut, part in parts:
        assert _same_columns(part, whole), cut


@pytest.mark.parametrize("seed", range(12))
def test_random_runs_read_in_two_parts(tmp_path, seed):
    """Seeded runs of test_fast_path (ties, ids of 1-30 bytes, topics not grouped), cut at several lines."""
    from test_fast_path import make_case

    _, text, _ = make_case(seed)
    content = text.encode()
    path = tmp_path / "run"
    path.write_bytes(content)
    whole = read_columns(io.BytesIO(content), TREC)
    assert whole is not None
    rng = random.Random(seed)
    for cut in [0, len(content) // 2] + [rng.randrange(len(content)) for _ in range(6)]:
        with open(str(path), "rb") as handle:
            assert _same_columns(read_columns(handle, TREC, split_at=cut), whole), cut


@pytest.mark.parametrize("duplicate_in", [None, 0, 300, 599])
def test_duplicates_found_by_either_thread(monkeypatch, duplicate_in):
    """has_duplicates shares its batches of topics between two threads on big runs (forced here)."""
    from runscore.ranking import columnar

    monkeypatch.setattr(columnar, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(columnar, "_free_cpus", lambda: 2)
    lines = []
    for topic in range(600):                     # 600 topics of 3 lines: batches 0-255, 256-511, 512-599
        docs = ["A", "B", "A" if topic == duplicate_in else "C"]
        lines += ["%d Q0 %s 1 1 r" % (topic, d) for d in docs]
    run = read_columns(io.BytesIO(("\n".join(lines) + "\n").encode()), TREC)
    assert (run is None) == (duplicate_in is not None)


def test_without_pread_a_file_is_read_by_one_reader(tmp_path, monkeypatch):
    """Windows has no os.pread: the two-part reading is skipped, the columns are the same."""
    import os as os_module

    content = b"1 Q0 A 1 1 r\n2 Q0 B 1 1 r\n"
    path = tmp_path / "run"
    path.write_bytes(content)
    monkeypatch.delattr(os_module, "pread")
    with open(str(path), "rb") as handle:
        assert _same_columns(read_columns(handle, TREC, split_at=0), read_columns(io.BytesIO(content), TREC))


def _bad_line_run(bad_at, lines=40):
    """A clean NACSIS run with line `bad_at` made blank (a warning on the exact path: declined here)."""
    out = ["0001\t0\tD%d\t%d\t%r\tntc1\n" % (i, i, 1.0 / i) for i in range(1, lines + 1)]
    out[bad_at - 1] = "\n"
    return "".join(out).encode()


@pytest.mark.parametrize("bad_at", [1, 7, 23, 40])
@pytest.mark.parametrize("split", [None, 0, 300, 600])
def test_a_declined_file_says_where(tmp_path, bad_at, split):
    """why receives the line range of the chunk the reader stopped in, in whole-file line numbers also when the
    file was read in two parts (the second part's numbers are shifted)."""
    import re

    content = _bad_line_run(bad_at)
    path = tmp_path / "ntc1"
    path.write_bytes(content)
    why = []
    with open(str(path), "rb") as handle:
        assert read_columns(handle, NACSIS, chunk_bytes=64, split_at=split, why=why) is None
    first, last = re.fullmatch(r"lines? (\d+)(?:-(\d+))?", why[0]).groups()
    assert int(first) <= bad_at <= int(last or first), why


@pytest.mark.parametrize("content,expected", [
    (b"0001\t0\tD1\t1\t0.9\tntc1\n0001\t0\tD1\t2\t0.5\tntc1\n", "a document listed twice for one topic"),
    (b"0001\t0\tD1\t1\t0.9\tntc1", "no line end (LF) in the file"),
    (b"\n\n", "no result line"),
])
def test_declines_after_reading_say_why(content, expected):
    why = []
    assert read_columns(io.BytesIO(content), TREC if content.startswith(b"\n") else NACSIS, why=why) is None
    assert why == [expected]


@pytest.mark.parametrize("topics,taken", [
    (["0001", "0002", "0003", "0004"], True),
    (["0001", "0003", "0002", "0004"], False),        # out of order between two chunks
    (["0001", "0002", "0004", "0003"], False),        # ... at the last one
    (["0001", "0002", "31", "0040"], False),          # not zero-padded, in a later chunk
])
def test_nacsis_topic_order_is_checked_across_chunks(topics, taken):
    """The order check looks at the topics each chunk adds and at the last one before them."""
    content = "".join("%s\t0\tD1\t1\t0.5\tntc1\n" % t for t in topics).encode()
    for chunk in (8, 30, 4096):                       # one line a chunk, two, all
        assert (read_columns(io.BytesIO(content), NACSIS, chunk_bytes=chunk) is not None) == taken


def test_a_qrels_table_of_many_small_topics_keeps_no_python_object_a_topic():
    """QrelsColumns.from_table gives each topic's span and grades from the table's offsets when asked: a dict of
    (start, end) tuples and one array view a topic cost about 300 bytes a topic (9 MB of the 90 MB peak of
    `runscore trec_eval` on 30,000 topics of 5 documents). The spans and grades are those of the table."""
    import tracemalloc
    from runscore.ranking.columnar import QRELS
    from runscore.ranking.label_columns import QrelsColumns

    topics = 20000
    text = b"".join(b"q%d 0 d%d %d\n" % (t, d, (t + d) % 3 - (d == 4)) for t in range(topics) for d in range(5))
    table = read_columns(io.BytesIO(text), QRELS, c_space=True)
    tracemalloc.start()
    try:
        columns = QrelsColumns.from_table(table)
        made = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert made < 120 * topics, "%d bytes a topic" % (made // topics)
    assert len(columns.topics) == len(columns.judged) == topics and list(columns.topics) == table.topics
    assert "q7" in columns.topics and "q7" in columns.judged and "x" not in columns.judged
    assert columns.topics["q7"] == (35, 40) and columns.judged["q7"].tolist() == [1, 2, 0, 1, 1]
    assert columns.judged_of("x").shape == (0,) and columns.topics.get("x", (0, 0)) == (0, 0)
