"""Document ids longer than one word on the fast path: one hashed key a line for the duplicate check and
the qrels join (columnar_words.row_keys, label_columns._topic_key), confirmed on the words where two keys meet, and
ids over columnar.LONG_ID_BYTES ranked in byte order word by word (columnar_words.byte_ranks). Every case gives
the exact path's numbers.

The cases mix ids of 1-8, 9-64 and more than 64 bytes, non-ASCII bytes, ids sharing long prefixes and ids that
are prefixes of others, with tied scores so the byte order of the ids decides the ranking; hash collisions are
forced by monkeypatching the key functions.
"""
import io
import random

import numpy as np
import pytest

from test_fast_path_shapes import _fast_and_exact

from runscore.ranking import label_columns, rank_columns
from runscore.ranking import columnar
from runscore.ranking.columnar import QRELS, TREC, read_columns
from runscore.ranking.columnar_words import row_keys


def _id_pool(rng: random.Random):
    """Ids of every class, with the near misses that matter: equal first 64 bytes, one id a prefix of another."""
    long_base = b"https://collection.example.org/" + b"p" * rng.choice([33, 34, 40, 250])
    ids = {b"d%d" % i for i in range(8)}
    ids |= {b"doc-%09d" % i for i in range(8)}                          # 13 bytes: two words
    ids |= {b"caf\xc3\xa9-%d" % i for i in range(6)} | {b"\xe2\x80\x80x%d" % i for i in range(3)}
    ids |= {b"M" * 63 + b"%d" % i for i in range(3)} | {b"M" * 64, b"M" * 65, b"M" * 64 + b"\xff"}
    ids |= {long_base + b"/d%05d" % i for i in range(12)}                # share all but their last bytes
    ids |= {long_base, long_base + b"a", long_base + b"ab", long_base[:64], long_base[:72]}
    ids |= {b"\xff" * 70, b"\xff" * 70 + b"\x01", b"L" * 300}
    return sorted(ids)


def _case(seed: int):
    """(qrels, run) bytes: 30 topics, every id class, scores with many ties, sometimes lines in random order."""
    rng = random.Random(seed)
    pool = _id_pool(rng)
    absent = [b"Q" * 90 + b"%d" % i for i in range(4)] + [b"only-in-qrels-%d" % i for i in range(4)]
    qrels, run = [], []
    for topic in range(1, 31):
        for doc in rng.sample(pool, 25) + rng.sample(absent, 2):
            qrels.append(b"%d 0 %s %d\n" % (topic, doc, rng.choice([0, 0, 1, 2, 3])))
        docs = rng.sample(pool, rng.randrange(5, 45))
        scores = sorted((rng.choice([1.0, 0.5, 0.25, 0.125]) for _ in docs), reverse=True)
        run += [b"%d Q0 %s %d %s r\n" % (topic, d, rank, repr(s).encode())
                for rank, (d, s) in enumerate(zip(docs, scores), 1)]
    if seed % 2:
        rng.shuffle(run)
    return b"".join(qrels), b"".join(run)


def _write(tmp_path, qrels: bytes, run: bytes):
    (tmp_path / "qrels").write_bytes(qrels)
    (tmp_path / "run").write_bytes(run)
    return str(tmp_path / "qrels"), str(tmp_path / "run")


@pytest.mark.parametrize("seed", range(4))
def test_ids_of_every_length_give_the_exact_numbers(tmp_path, monkeypatch, seed):
    qrels, run = _write(tmp_path, *_case(seed))
    fast, exact, taken = _fast_and_exact(monkeypatch, qrels, run)
    assert taken and fast[1] == exact[1] == 0, (fast[2], exact[2])
    assert fast[0] == exact[0] and fast[0].count(b"\n") > 1000


def _colliding(words: np.ndarray) -> np.ndarray:
    """Keys that meet for many different rows: only 2 values for rows of several words."""
    return row_keys(words) & np.uint64(1) if words.shape[1] > 1 else row_keys(words)


def test_forced_key_collisions_change_no_number(tmp_path, monkeypatch):
    """Mixed keys that meet everywhere: the duplicate check confirms them on the words, the join of every topic at
    once steps aside (two judgements share a key) and the per-topic join compares words pairwise."""
    qrels, run = _write(tmp_path, *_case(5))
    expected = _fast_and_exact(monkeypatch, qrels, run)[1]
    monkeypatch.setattr(columnar, "row_keys", _colliding)
    monkeypatch.setattr(label_columns, "_key", _colliding)
    fast, _, taken = _fast_and_exact(monkeypatch, qrels, run)
    assert taken and fast == expected


def test_a_run_key_meeting_a_judgement_key_is_confirmed_on_the_words(tmp_path, monkeypatch):
    """One judgement a topic and every key of a topic equal: the join of all topics at once runs (its judgements'
    keys are distinct) and only the words tell the judged document from the others."""
    rng = random.Random(3)
    pool = _id_pool(rng)
    qrels, run = [], []
    for topic in range(1, 41):
        docs = rng.sample(pool, 12)
        qrels.append(b"%d 0 %s 1\n" % (topic, docs[rng.randrange(12)]))
        run += [b"%d Q0 %s %d 0.5 r\n" % (topic, d, rank) for rank, d in enumerate(docs, 1)]
    qrels_path, run_path = _write(tmp_path, b"".join(qrels), b"".join(run))
    expected = _fast_and_exact(monkeypatch, qrels_path, run_path)[1]
    monkeypatch.setattr(label_columns, "_key", lambda words: np.zeros(words.shape[0], dtype=np.uint64))
    joined_at_once = []
    original = label_columns._label_at_once
    monkeypatch.setattr(label_columns, "_label_at_once", lambda *a: joined_at_once.append(original(*a)) or joined_at_once[-1])
    fast, _, taken = _fast_and_exact(monkeypatch, qrels_path, run_path)
    assert taken and joined_at_once == [True] and fast == expected


def _read(content: bytes, layout=TREC, **options):
    return read_columns(io.BytesIO(content), layout, c_space=True, **options)


@pytest.mark.parametrize("collide", [False, True])
@pytest.mark.parametrize("first,second,duplicate", [
    (b"L" * 300, b"L" * 300, True),
    (b"L" * 299 + b"a", b"L" * 299 + b"b", False),         # equal but for the last byte
    (b"L" * 64 + b"x", b"L" * 64, False),                   # a long id and its first 64 bytes
    (b"caf\xc3\xa9-0001", b"caf\xc3\xa9-0001", True),       # two words
    (b"caf\xc3\xa9-0001", b"caf\xc3\xa9-0002", False),
    (b"M" * 63 + b"1", b"M" * 63 + b"1", True),             # eight words
], ids=["long-equal", "long-last-byte", "long-and-its-prefix", "two-words-equal", "two-words", "eight-words"])
def test_duplicates_are_found_on_the_full_bytes(monkeypatch, first, second, duplicate, collide):
    if collide:
        monkeypatch.setattr(columnar, "row_keys", _colliding)
    for layout, line in ((TREC, b"%d Q0 %s %d 1 r\n"), (QRELS, b"%d 0 %s %d\n")):
        lines = [line % (t, b"other%d" % t, 1) for t in range(1, 4)]
        lines += [line % (2, first, 1), line % (2, b"z" * 100, 0), line % (2, second, 2)]
        table = _read(b"".join(lines), layout)
        assert (table is None) == duplicate, layout


def test_long_ids_read_in_two_parts_get_the_codes_of_one_read(tmp_path):
    """The second part's reader has its own codes; absorbing it maps them to the first's, so a file read in two
    parts has the columns and long-id codes of one read."""
    rng = random.Random(11)
    pool = _id_pool(rng)
    lines = [b"%d Q0 %s %d %s r\n" % (t, d, r, b"%.2f" % rng.random())
             for t in range(1, 9) for r, d in enumerate(rng.sample(pool, 20), 1)]
    lines += [b"9 Q0 %s 1 1 r\n" % (b"N" * 80)]              # a long id only in the second part
    content = b"".join(lines)
    path = tmp_path / "run"
    path.write_bytes(content)
    whole = _read(content)
    assert whole.long_ids is not None and list(whole.long_ids) == sorted(whole.long_ids)
    for cut in (0, len(content) // 3, len(content) // 2, len(content) - 5):
        with open(str(path), "rb") as handle:
            part = read_columns(handle, TREC, split_at=cut, c_space=True)
        assert np.array_equal(part.docno, whole.docno) and part.long_ids == whole.long_ids, cut


def test_a_long_id_row_orders_as_its_bytes():
    """The rows of the long-id layout compare as the ids' bytes (the ranking's tie-break): lexsorting the rows gives
    the byte order of the ids, short and long mixed."""
    pool = _id_pool(random.Random(2))
    run = _read(b"".join(b"1 Q0 %s %d 1 r\n" % (d, r) for r, d in enumerate(reversed(pool), 1)))
    words = run.docno
    order = np.lexsort(words.T[::-1])
    assert [list(reversed(pool))[i] for i in order.tolist()] == pool


@pytest.mark.parametrize("seed,run_long_ids", [(0, True), (1, True), (2, False)])
def test_qrels_read_by_either_reader_join_alike(seed, run_long_ids):
    """A qrels file read as columns (`_in_run_layout`) and by the exact reader (`_trec_eval_packer`, from its
    strings) label every run line alike: long ids mapped to the run's codes, ids the run lacks matching nothing
    (also when the run has no long id)."""
    from runscore.ranking import fastpath

    qrels_bytes, run_bytes = _case(seed)
    if not run_long_ids:
        run_bytes = b"".join(line for line in run_bytes.splitlines(True) if len(line.split()[2]) <= 64)
    run = _read(run_bytes)
    table = _read(qrels_bytes, QRELS)
    assert (run.long_ids is not None) == run_long_ids and table.long_ids is not None
    parsed = {}
    for line in qrels_bytes.decode("latin-1").splitlines():
        topic, _, doc, grade = line.split()
        parsed.setdefault(topic, {})[doc] = int(grade)
    both = [label_columns.QrelsColumns.from_table(fastpath._in_run_layout(table, run)),
            label_columns.QrelsColumns(parsed, fastpath._trec_eval_packer(run))]
    topics = sorted(run.topics)
    ranked, offsets = rank_columns.rank_lines(run, topics)
    grades = [label_columns.label_lines(run, ranked, offsets, topics, columns) for columns in both]
    assert np.array_equal(grades[0], grades[1]) and np.count_nonzero(grades[0] >= 0) > 100


def _long_ids(ids):
    """The ids as a reader keeps them (columnar_words.LongIdBytes), from one buffer."""
    from runscore.ranking.columnar_words import LongIdBytes, padded_buffer
    lengths = np.array([len(i) for i in ids], dtype=np.int64)
    starts = np.zeros(len(ids), dtype=np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])
    kept = LongIdBytes()
    kept.add(padded_buffer(b"".join(ids)), starts, starts + lengths)
    return kept


def _ragged(ids):
    """(words, word starts, lengths, keys) of the ids: every one, in order, equal ones too."""
    from runscore.ranking.columnar_words import padded_buffer, ragged_words, word_starts
    lengths = np.array([len(i) for i in ids], dtype=np.int64)
    starts = np.zeros(len(ids), dtype=np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])
    words, lengths, keys = ragged_words(padded_buffer(b"".join(ids)), starts, starts + lengths)
    return words, word_starts(lengths), lengths, keys


@pytest.mark.parametrize("seed,colliding", [(s, False) for s in range(6)] + [(6, True), (7, True)])
def test_long_ids_rank_and_look_up_in_byte_order(monkeypatch, seed, colliding):
    """byte_ranks orders ids as Python orders bytes (strcmp), equal ids of any length ranked alike, and codes_of
    finds exactly the equal id: ids that are prefixes of others ending on a word's edge, ids equal but for their
    last byte, bytes over 0x7f, one id repeated; with `colliding`, keys of only 4 values, so that distinct ids
    share keys everywhere a key is used (the chunk, the table, the ranking, the look-up)."""
    from runscore.ranking import columnar_words
    from runscore.ranking.columnar_words import LongIds, byte_ranks, long_ids_of
    if colliding:
        real = columnar_words.ragged_words

        def few_keys(*args):
            words, lengths, keys = real(*args)
            return words, lengths, keys & np.uint64(3)
        monkeypatch.setattr(columnar_words, "ragged_words", few_keys)
    rng = random.Random(seed)
    pool = [i for i in _id_pool(rng) if i]
    pool += [b"w" * 64, b"w" * 72, b"w" * 80 + b"\x80", b"w" * 79 + b"\x7f", b"\xfe" * 16 + b"x" * 200]
    run = rng.sample(pool, len(pool) // 2) * 3
    rng.shuffle(run)
    order, rank = byte_ranks(LongIds(*_ragged(run)))
    distinct = sorted(set(run))
    assert [run[i] for i in order.tolist()] == distinct
    assert rank.tolist() == [distinct.index(i) for i in run]
    table, rows = long_ids_of(_long_ids(run), 2)
    assert list(table) == distinct and rows[:, 2].tolist() == [distinct.index(i) + 1 for i in run]
    asked = pool + [b"w" * 88, b"Q" * 90]
    codes = table.codes_of(LongIds(*_ragged(asked)))
    assert codes.tolist() == [distinct.index(i) + 1 if i in distinct else 0 for i in asked]


@pytest.mark.parametrize("chunk_bytes", [64, 300, 1 << 20])
@pytest.mark.parametrize("wider", [0, 1])
def test_the_code_column_stays_free_whatever_the_order_of_widths(chunk_bytes, wider):
    """Short ids of 8 words, then a long id, then short ids one word wider (where the code column was), then (if
    `wider`) the widest short ids (16 words): every read gives the columns of one read in one chunk, the short ids' rows 0 in
    the code column and the rows in the ids' byte order."""
    ids = [b"W" * 64, b"n1", b"L" * 200, b"n2", b"Y" * 72, b"L" * 130] + [b"X" * 128, b"W" * 128 + b"!"] * wider
    content = b"".join(b"1 Q0 %s %d 1 r\n" % (d, r) for r, d in enumerate(ids, 1))
    whole = _read(content)
    run = _read(content, chunk_bytes=chunk_bytes)
    assert np.array_equal(run.docno, whole.docno) and run.long_ids == whole.long_ids
    long = [len(d) > 128 for d in ids]
    assert [bool(code) for code in run.docno[:, -1].tolist()] == long
    order = np.lexsort(run.docno.T[::-1])
    assert [ids[i] for i in order.tolist()] == sorted(ids)


@pytest.mark.parametrize("block", [2, 1 << 15])
def test_each_line_keeps_its_id_whatever_the_chunks_share(monkeypatch, block):
    """A reader's chunks of long ids, each repeating ids within itself and ids of earlier chunks between new ones
    (the new ids' words copied through a mask of the chunk's, a block of ids at a time): every line's entry holds
    that line's bytes, and each distinct id is stored once."""
    from runscore.ranking.columnar_words import LongIdBytes, padded_buffer
    real = LongIdBytes._append
    monkeypatch.setattr(LongIdBytes, "_append", lambda self, ids, which: real(self, ids, which, block))
    monkeypatch.setattr(LongIdBytes, "BATCH", 1 if block == 2 else 10)       # chunk by chunk, or a few at once
    rng = random.Random(block)
    pool = [b"L" * n + b"%d" % i for i, n in enumerate([129, 130, 136, 137, 200, 300, 129, 250, 144, 129])]
    kept, lines = LongIdBytes(), []
    for _ in range(5):
        chunk = [rng.choice(pool) for _ in range(rng.randint(1, 12))]
        lengths = np.array([len(i) for i in chunk], dtype=np.int64)
        starts = np.zeros(len(chunk), dtype=np.int64)
        np.cumsum(lengths[:-1], out=starts[1:])
        kept.add(padded_buffer(b"".join(chunk)), starts, starts + lengths)
        lines += chunk
    stored = list(kept.entries())
    assert [stored[e] for e in np.concatenate(kept.lines).tolist()] == lines
    assert sorted(stored) == sorted(set(lines))


def test_the_key_table_grows_with_keys_pushed_past_its_end(monkeypatch):
    """Every key's slot among the table's last 16 (the keys' own slots are kept by the table in use): the table
    grows past 2,048 ids with most keys placed past its end, from slot 0, yet every id read again finds its entry
    and no id gets a second one."""
    from runscore.ranking import columnar_words
    from runscore.ranking.columnar_words import LongIdBytes, padded_buffer
    monkeypatch.setattr(columnar_words, "_slots",
                        lambda keys, size: (size - 1 - (keys & np.uint64(15))).astype(np.int64))
    monkeypatch.setattr(LongIdBytes, "BATCH", 1)                 # each chunk looked up as it comes
    ids = [b"L" * 129 + b"%05d" % i for i in range(2100)]
    kept = LongIdBytes()
    for chunk in (ids[:1500], ids[1500:], ids[::-1]):
        lengths = np.array([len(i) for i in chunk], dtype=np.int64)
        starts = np.zeros(len(chunk), dtype=np.int64)
        np.cumsum(lengths[:-1], out=starts[1:])
        kept.add(padded_buffer(b"".join(chunk)), starts, starts + lengths)
    assert kept.table_keys.shape[0] > 4096 and kept.count == len(ids)
    stored = list(kept.entries())
    assert [stored[e] for e in np.concatenate(kept.lines).tolist()] == ids + ids[::-1]
