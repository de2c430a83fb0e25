"""Label the ranked lines of a columnar run: the qrels grade of each (NOT_IN_POOL when the qrels do not list the
document, UNJUDGED for a negative grade), one grade array for every topic in rank order.

Why a module of its own: this is the join of document ids with the judgements, the one place the whole-run path
compares ids (as words, ranking/columnar_words.py); what comes out is the array of grades the kernels of
measures/ read, so no measure sees an id.
"""
from typing import Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from ..measures.judged import NOT_IN_POOL, UNJUDGED
from .columnar_run import ColumnarRun
from .columnar_words import pack_strings, row_keys, rows_equal, widen


class _PerTopic(Mapping):
    """topic -> a value of its judgements' span (start, end), made when asked: a dict of tuples or of array views
    cost about 150 bytes a topic each (9 MB of a 30,000-topic qrels file's 90 MB peak), the codes and the offsets
    cost what they cost already."""

    def __init__(self, codes: Dict[str, int], starts: np.ndarray):
        self.codes, self.starts = codes, starts

    def span(self, topic: str) -> Tuple[int, int]:
        k = self.codes[topic]
        return int(self.starts[k]), int(self.starts[k + 1])

    def __iter__(self) -> Iterator[str]:
        return iter(self.codes)

    def __len__(self) -> int:
        return len(self.codes)

    def __contains__(self, topic) -> bool:
        return topic in self.codes


class _TopicSpans(_PerTopic):
    """topic -> (start, end) of its judgements."""

    def __getitem__(self, topic: str) -> Tuple[int, int]:
        return self.span(topic)


class _TopicGrades(_PerTopic):
    """topic -> its judgements' grades (a view of one array)."""

    def __init__(self, codes: Dict[str, int], starts: np.ndarray, raw: np.ndarray):
        super().__init__(codes, starts)
        self.raw = raw

    def __getitem__(self, topic: str) -> np.ndarray:
        a, b = self.span(topic)
        return self.raw[a:b]


class QrelsColumns:
    """Qrels (topic -> docno -> grade) as arrays for the join: per topic, docno words and grades, sorted by
    a one-word key so a run's documents are looked up with searchsorted and then compared word by word."""

    @classmethod
    def from_table(cls, table: ColumnarRun) -> "QrelsColumns":
        """From a qrels file read by columnar.read_columns(layout=QRELS) (the score column holds the grades)."""
        made = cls({})
        grouped = table.grouped_order
        made.words = table.docno if grouped is None else table.docno[grouped]
        raw = table.score if grouped is None else table.score[grouped]
        codes = {t: k for k, t in enumerate(table.topics)}
        made.topics = _TopicSpans(codes, table.starts)
        made.judged = _TopicGrades(codes, table.starts, raw)
        small = raw.shape[0] == 0 or (int(raw.min()) > -2 ** 31 and int(raw.max()) < 2 ** 31)
        made.grades = np.where(raw < 0, UNJUDGED, raw).astype(np.int32 if small else np.int64)
        return made

    def __init__(self, qrels: Dict[str, Dict[str, int]], pack=None):
        """`pack` turns the document ids (in qrels order) into words; default pack_strings (UTF-8)."""
        self.topics: Dict[str, Tuple[int, int]] = {}
        docnos: List[str] = []
        grades: List[int] = []
        judged_parts = []
        for topic, docs in qrels.items():
            start = len(docnos)
            docnos.extend(docs)
            grades.extend(docs.values())
            self.topics[topic] = (start, len(docnos))
            judged_parts.append(np.fromiter(docs.values(), dtype=np.int64, count=len(docs)))
        self.judged = dict(zip(qrels, judged_parts))
        words = (pack or pack_strings)(docnos) if docnos else np.zeros((0, 1), dtype=np.uint64)
        self.usable = words is not None
        self.words = words if words is not None else np.zeros((0, 1), dtype=np.uint64)
        raw = np.asarray(grades, dtype=np.int64)
        small = raw.shape[0] == 0 or (int(raw.min()) > -2 ** 31 and int(raw.max()) < 2 ** 31)
        self.grades = np.where(raw < 0, UNJUDGED, raw).astype(np.int32 if small else np.int64)

        self._sorted: Dict[Tuple[str, int], Tuple] = {}
        self._joins: Dict[Tuple[tuple, int], Optional[tuple]] = {}

    def judged_of(self, topic: str) -> np.ndarray:
        return self.judged.get(topic, np.zeros(0, dtype=np.int64))

    def joined_keys(self, topics: Sequence[str], width: int, keep: bool = False):
        """_joined_keys for these topics; with `keep`, kept for the next run scored against the same qrels and
        topics (a task scoring a campaign's hundred runs sorted every judgement's key for each; one run, as
        `runscore trec_eval` scores, keeps nothing: the arrays are as long as the qrels)."""
        key = (tuple(topics), width)
        found = self._joins.get(key)
        if found is None:
            self._joins.clear()         # one list of topics at a time
            found = _joined_keys(self, topics, width)
            if keep:
                self._joins[key] = found
        return found

    def lookup_table(self, topic: str, width: int) -> Optional[Tuple]:
        """(sorted keys, their row numbers, words, grades, keys unique?) of one topic's documents, made once."""
        table = self._sorted.get((topic, width))
        if table is None:
            span = self.topics.get(topic)
            if span is None or span[0] == span[1]:
                return None
            words = widen(self.words[span[0]:span[1]], width)
            keys = _key(words)
            order = np.argsort(keys, kind="stable")
            ordered = keys[order]
            table = (ordered, order, words, self.grades[span[0]:span[1]],
                     not np.any(ordered[1:] == ordered[:-1]))
            self._sorted[(topic, width)] = table
        return table


def _key(words: np.ndarray) -> np.ndarray:
    """One uint64 per row: the words mixed (exact when there is one word); see columnar_words.row_keys."""
    return row_keys(words)


def label_lines(run: ColumnarRun, ranked: np.ndarray, offsets: np.ndarray, topics: Sequence[str],
                qrels: QrelsColumns, keep_joins: bool = False) -> np.ndarray:
    """The qrels grade of each ranked line (NOT_IN_POOL when absent, UNJUDGED for a negative grade). keep_joins:
    the qrels keep their side of the join for the next run (QrelsColumns.joined_keys)."""
    grades = np.full(ranked.shape[0], NOT_IN_POOL, dtype=qrels.grades.dtype)
    width = max(run.docno.shape[1], qrels.words.shape[1])
    if _label_at_once(run, ranked, offsets, topics, qrels, width, grades, keep_joins):
        return grades
    for k, topic in enumerate(topics):
        start, end = int(offsets[k]), int(offsets[k + 1])
        table = qrels.lookup_table(topic, width) if start < end else None
        if table is None:
            continue
        sorted_keys, order, judged_words, judged_grades, unique = table
        run_words = widen(run.docno[ranked[start:end]], width)
        if not unique:
            # Two documents of this topic mix to one key (several words only): compare every pair instead.
            same = np.all(run_words[:, None, :] == judged_words[None, :, :], axis=2)
            found = np.where(same.any(axis=1), same.argmax(axis=1), -1)
            matched = found >= 0
            grades[start:end][matched] = judged_grades[found[matched]]
            continue
        run_keys = _key(run_words)
        at = np.searchsorted(sorted_keys, run_keys)
        np.minimum(at, sorted_keys.shape[0] - 1, out=at)
        matched = sorted_keys[at] == run_keys
        if width > 1:                  # a key mixes several words: confirm the words themselves
            matched &= rows_equal(judged_words[order[at]], run_words)
        grades[start:end][matched] = judged_grades[order[at[matched]]]
    return grades


def _label_at_once(run: ColumnarRun, ranked: np.ndarray, offsets: np.ndarray, topics: Sequence[str],
                   qrels: QrelsColumns, width: int, grades: np.ndarray, keep_joins: bool = False) -> bool:
    """label_lines in one search instead of a few numpy calls a topic: every judgement's key holds its topic's
    number in the high bits and its words mixed in the others, the run's lines (topic after topic, so the
    search stays in one topic's keys at a time) are looked up in the sorted keys and each match is confirmed
    on the words. False (nothing written) when two judgements share a key (then the per-topic join, which
    handles that, runs)."""
    found = qrels.joined_keys(topics, width, keep_joins)
    if found is None:
        return False
    ordered, order, rows, judged_words, bits = found
    if not ordered.shape[0] or not ranked.shape[0]:
        return True
    for start in range(0, ranked.shape[0], JOIN_BLOCK):      # a block at a time: its temporaries stay small
        end = min(start + JOIN_BLOCK, ranked.shape[0])
        run_words = widen(run.docno[ranked[start:end]], width)
        run_topic = np.searchsorted(offsets, np.arange(start, end), side="right") - 1
        run_keys = _topic_key(run_words, run_topic, bits)
        at = np.searchsorted(ordered, run_keys)
        np.minimum(at, ordered.shape[0] - 1, out=at)
        found_at = order[at]
        matched = ordered[at] == run_keys       # the same high bits: the same topic
        matched &= rows_equal(judged_words[found_at], run_words)
        grades[start:end][matched] = qrels.grades[rows[found_at[matched]]]
    return True


def _joined_keys(qrels: QrelsColumns, topics: Sequence[str], width: int):
    """The qrels side of _label_at_once for these topics: (sorted keys, their rows in the judgements' order, each
    judgement's row in qrels.words, the judgements' words widened, the topic bits), or None when two judgements
    share a key."""
    spans = [qrels.topics.get(topic, (0, 0)) for topic in topics]
    starts = np.fromiter((a for a, _ in spans), dtype=np.int64, count=len(spans))
    sizes = np.fromiter((b - a for a, b in spans), dtype=np.int64, count=len(spans))
    judged_topic = np.repeat(np.arange(len(topics), dtype=np.int64), sizes)
    first = np.zeros(len(topics), dtype=np.int64)
    np.cumsum(sizes[:-1], out=first[1:])
    rows = np.arange(judged_topic.shape[0], dtype=np.int64) - first[judged_topic] + starts[judged_topic]
    judged_words = widen(qrels.words[rows], width)
    bits = max(len(topics).bit_length(), 1)
    keys = _topic_key(judged_words, judged_topic, bits)
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    del keys, judged_topic          # arrays as long as the qrels: not kept through the run's blocks
    if np.any(ordered[1:] == ordered[:-1]):
        return None
    return ordered, order, rows, judged_words, bits


JOIN_BLOCK = 1 << 16        # run lines joined at a time by _label_at_once


def _topic_key(words: np.ndarray, topic: np.ndarray, bits: int) -> np.ndarray:
    """One uint64 per row: its topic number (below 2 ** bits) in the high `bits` bits, its words mixed in the
    others (Fibonacci hashing: the high bits of a product depend on every bit of the key), so equal rows of one
    topic have equal keys and keys of one topic are neighbours."""
    mixed = _key(words) * np.uint64(0x9E3779B97F4A7C15)
    mixed >>= np.uint64(bits)
    mixed |= topic.astype(np.uint64) << np.uint64(64 - bits)
    return mixed
