"""Whole-run kernels: rank, label and measure every topic of a columnar run at once.

Why: the exact path builds one JudgedTopic per topic and calls Python per measure, which is fine for hundreds of
topics and far too slow for MS MARCO-sized runs. Here all topics live in one grade array in rank order, topic
after topic (`offsets`), and each measure is a few segment operations over it (bincount per topic, positions
within a topic, ...). The numbers are the exact path's: the same ranking rule (label.rank_order: score
descending, docno in byte order), the same truncation, and every sum taken in the same left-to-right order as
measures.c_numbers.ordered_sum (`ordered_segment_sums`), so values agree bit for bit, not just to rounding. A
measure without a kernel here is computed per topic by measures.trec itself on the same grade arrays.
"""
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..ranking.columnar_run import ColumnarRun
from ..ranking.columnar_words import pack_strings, row_keys, rows_equal, widen
from ..ranking.label import NOT_IN_POOL, UNJUDGED, JudgedTopic
from .c_numbers import as_scores, c_div, log2_discounts
from .trec import REGISTRY, TrecOptions
from .trec_blocks import recall_point_cutoff
from .segment_sums import _suffix_max, ordered_segment_sums, running_segment_sums
from . import vectorised_all_trec

# Measures with a kernel below (and in vectorised_all_trec, for the parameters and levels its has_kernel
# takes); any other trec_eval measure goes through measures.trec per topic.
KERNELS = ("num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
           "iprec_at_recall", "11pt_avg", "P", "recall", "ndcg_cut", "map_cut", "success")


# ------------------------------------------------------------------------------------------- ranking ---

def rank_lines(run: ColumnarRun, topics: Sequence[str], tie_order: str = "desc", max_docs: Optional[int] = None,
               score_dtype=np.float64) -> Tuple[np.ndarray, np.ndarray]:
    """File-order line indices in rank order, topic after topic in `topics` order (a topic absent from the run
    has no lines), truncated to max_docs per topic; and the offsets of each topic in that array."""
    codes = {t: i for i, t in enumerate(run.topics)}
    scores = as_scores(run.score, score_dtype)
    index_type = np.int32 if len(run) < 2 ** 31 else np.int64      # half the memory for the usual sizes
    offsets = np.zeros(len(topics) + 1, dtype=np.int64)
    for k, topic in enumerate(topics):
        code = codes.get(topic)
        kept = 0 if code is None else run.count(code)
        offsets[k + 1] = offsets[k] + (kept if max_docs is None else min(kept, max_docs))
    order = _presorted_order(run, scores, tie_order, index_type)
    if order is not None:
        # Each topic's lines are already in rank order: take the first ones of each, in `topics` order.
        first = np.array([run.starts[codes[t]] if t in codes else 0 for t in topics], dtype=np.int64)
        if int(offsets[-1]) == len(run) and np.array_equal(first, offsets[:-1]):
            return order, offsets       # every line, topics in file order: no copy (8 bytes a line less at peak)
        index = np.repeat((first - offsets[:-1]).astype(index_type), np.diff(offsets))
        index += np.arange(int(offsets[-1]), dtype=index_type)
        return order[index], offsets
    return _sorted_order(run, scores, codes, topics, offsets, tie_order, max_docs, index_type), offsets


def _sorted_order(run: ColumnarRun, scores: np.ndarray, codes: Dict[str, int], topics: Sequence[str],
                  offsets: np.ndarray, tie_order: str, max_docs: Optional[int], index_type) -> np.ndarray:
    """rank_lines for any other run (lines in random order, scores rising): every topic's lines by score (stable:
    equal scores in file order), then the ties broken by docno, as label.rank_order, without a sort a topic
    (5,000 topics of 200 lines: 0.6 s of numpy calls). Topics of a few sizes (top-k runs) are sorted as the rows
    of a matrix, 256 topics at a time (a third of the time of one sort of every line, and small temporaries);
    others by one sort of every line."""
    asked = np.array([codes[t] for t in topics if t in codes], dtype=np.int64)      # codes in `topics` order
    sizes = np.diff(run.starts)[asked]
    bounds = np.zeros(asked.shape[0] + 1, dtype=np.int64)       # where each asked topic starts, untruncated
    np.cumsum(sizes, out=bounds[1:])
    # scores is rank_lines' own copy when it changed the type (trec_eval 9's float): negated in place then
    negated = np.negative(scores, out=None if scores is run.score else scores)
    del scores
    if np.unique(sizes).shape[0] * 64 <= asked.shape[0]:
        order = _by_score_in_rows(run, negated, asked, sizes, bounds, index_type)
    else:
        order = _by_score_at_once(run, negated, asked, index_type)
    new_topic = np.zeros(order.shape[0], dtype=bool)
    new_topic[bounds[:-1]] = True
    ranked = negated[order]
    del negated
    tied = ranked[1:] == ranked[:-1]
    tied |= np.isnan(ranked[1:]) & np.isnan(ranked[:-1])
    del ranked
    tied &= ~new_topic[1:]
    del new_topic
    if tie_order != "file" and np.any(tied):
        _break_ties(order, run.docno, tied, tie_order)
    if max_docs is not None and order.shape[0] > int(offsets[-1]):
        rank = np.arange(order.shape[0]) - np.repeat(bounds[:-1], sizes)
        order = order[rank < max_docs]
    return order


def _by_score_in_rows(run: ColumnarRun, negated: np.ndarray, asked: np.ndarray, sizes: np.ndarray,
                      bounds: np.ndarray, index_type) -> np.ndarray:
    """The asked topics' lines, topic after topic, each by -score (stable): topics of one size sorted together as
    the rows of a matrix."""
    order = np.empty(int(bounds[-1]), dtype=index_type)
    for size in np.unique(sizes).tolist():
        which = np.flatnonzero(sizes == size)
        for start in range(0, which.shape[0], 256):
            part = which[start:start + 256]
            lines = run.starts[asked[part]][:, None] + np.arange(size)
            if run.grouped_order is not None:
                lines = run.grouped_order[lines]
            by_score = np.argsort(negated[lines], axis=1, kind="stable")
            order[bounds[part][:, None] + np.arange(size)] = np.take_along_axis(lines, by_score, axis=1)
    return order


def _by_score_at_once(run: ColumnarRun, negated: np.ndarray, asked: np.ndarray, index_type) -> np.ndarray:
    """The same order from one stable sort of every line by -score and one by topic (a radix sort of 16-bit
    keys when the topics asked for are fewer than 65,536); lines of topics not asked for are left out."""
    position = np.zeros(len(run.topics), dtype=np.uint16 if asked.shape[0] < 2 ** 16 else np.int64)
    position[asked] = np.arange(1, asked.shape[0] + 1)         # 0 = not asked for
    by_score = np.argsort(negated, kind="stable").astype(index_type, copy=False)
    line_position = position[run.topic][by_score]
    by_topic = np.argsort(line_position, kind="stable")
    absent = int(np.count_nonzero(line_position == 0))         # these sort first
    del line_position
    return by_score[by_topic[absent:]]


def _presorted_order(run: ColumnarRun, scores: np.ndarray, tie_order: str,
                     index_type=np.int64) -> Optional[np.ndarray]:
    """The rank order of a run written as systems write them (topics grouped, scores not increasing within a
    topic): the file order with each group of equal scores sorted by docno. None for any other run."""
    if run.grouped_order is not None:
        return None
    topic = run.topic
    same = topic[1:] == topic[:-1]
    if np.any(same & (scores[1:] > scores[:-1])):
        return None
    order = np.arange(len(run), dtype=index_type)
    tied = same & (scores[1:] == scores[:-1])          # line i+1 ties with line i
    if tie_order == "file" or not np.any(tied):
        return order
    _break_ties(order, run.docno, tied, tie_order)
    return order


def _break_ties(order: np.ndarray, docno: np.ndarray, tied: np.ndarray, tie_order: str) -> None:
    """Reorder, in place, each group of tied lines of `order` by docno (tied[i]: order[i + 1] ties with
    order[i]; "desc" = descending byte order). Most groups are two lines: each pair is put in order with one
    comparison; the bigger groups are sorted (stable: equal ids keep their order)."""
    slots, starts_group, group, size = tie_groups(tied)
    first = slots[starts_group & (size == 2)]
    a, b = docno[order[first]], docno[order[first + 1]]
    swap = first[_rows_less(a, b) if tie_order == "desc" else _rows_less(b, a)]
    order[swap], order[swap + 1] = order[swap + 1], order[swap]
    slots, group = slots[size > 2], group[size > 2]
    if slots.shape[0]:
        lines = order[slots]
        words = docno[lines]
        if tie_order == "desc":
            words = ~words
        keys = [words[:, j] for j in range(words.shape[1] - 1, -1, -1)] + [group]
        order[slots] = lines[np.lexsort(keys)]


def tie_groups(tied: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The groups of tied items, from tied[i] = "item i+1 ties with item i": (positions of the items that are in a
    group, whether each starts its group, its group number, its group's size). Shared by the rankers of the
    columnar and the in-memory paths, which order pairs with one comparison and sort only bigger groups."""
    member = np.zeros(tied.shape[0] + 1, dtype=bool)
    member[1:] |= tied
    member[:-1] |= tied
    slots = np.flatnonzero(member)
    starts_group = np.ones(slots.shape[0], dtype=bool)
    starts_group[1:] = ~tied[slots[1:] - 1]
    group = np.cumsum(starts_group)
    return slots, starts_group, group, np.bincount(group)[group]


def _rows_less(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row by row, is a < b? (words compared left to right: the byte order of the document ids)"""
    if a.shape[1] == 1:
        return a[:, 0] < b[:, 0]
    column = np.argmax(a != b, axis=1)[:, None]
    return np.take_along_axis(a, column, 1)[:, 0] < np.take_along_axis(b, column, 1)[:, 0]


# ------------------------------------------------------------------------------------------- labelling ---

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
        made.topics = {t: (int(table.starts[k]), int(table.starts[k + 1])) for k, t in enumerate(table.topics)}
        made.judged = {t: raw[a:b] for t, (a, b) in made.topics.items()}
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


# ------------------------------------------------------------------------------------------- measures ---

class Segments:
    """Where each topic's documents are in the grade array; topic and rank of chosen documents (no array as
    long as the run: a few of them would double the memory of a big run)."""

    def __init__(self, offsets: np.ndarray):
        self.offsets = offsets
        self.count = offsets.shape[0] - 1
        self.sizes = np.diff(offsets)

    def topic_of(self, index: np.ndarray) -> np.ndarray:
        """Topic number of each document index (indices in increasing order give non-decreasing topics)."""
        return np.searchsorted(self.offsets, index, side="right") - 1

    def position_of(self, index: np.ndarray, topic: np.ndarray) -> np.ndarray:
        """0-based rank of each document within its topic."""
        return index - self.offsets[topic]


def sums_before(running: np.ndarray, segment: np.ndarray, position: np.ndarray, count: int,
                cutoffs: Sequence[int]) -> List[np.ndarray]:
    """Per segment and cutoff k, the running sum of its values at positions < k (0 when it has none): the value
    at the last such element. segment and position must be non-decreasing together (position within segment)."""
    out = []
    if running.shape[0] == 0:
        return [np.zeros(count) for _ in cutoffs]
    width = np.int64(int(position.max()) + 2)
    key = segment.astype(np.int64) * width + position.astype(np.int64)
    topics = np.arange(count, dtype=np.int64)
    for k in cutoffs:
        last = np.searchsorted(key, topics * width + min(int(k), int(width) - 1), side="left") - 1
        valid = last >= 0
        valid[valid] &= segment[last[valid]] == topics[valid]
        totals = np.zeros(count, dtype=np.float64)
        totals[valid] = running[last[valid]]
        out.append(totals)
    return out


def _divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator, 0 where the denominator is 0."""
    safe = np.where(denominator == 0, 1, denominator)
    return np.where(denominator == 0, 0.0, numerator / safe)


class QrelsSide:
    """What the kernels take from the qrels of a list of topics alone, the same for every run: each topic's
    judged grades, all of them one after the other, and what is computed from them (R, the ideal nDCG sums, ...)
    in `memo`. Made once per evaluation, or once per evaluator and list of topics where the qrels object keeps
    them (inmemory.MemoryQrels.sides: a training loop evaluates the same topics again and again)."""

    def __init__(self, judged: List[np.ndarray]):
        self.judged = judged
        sizes = np.fromiter(map(len, judged), dtype=np.int64, count=len(judged))
        self.grades = np.concatenate(judged) if judged else np.zeros(0, dtype=np.int64)
        self.topic = np.repeat(np.arange(len(judged)), sizes)
        self.memo: Dict[tuple, object] = {}

    @classmethod
    def of(cls, qrels, topics: Sequence[str]) -> "QrelsSide":
        """The side of these topics, kept in `qrels.sides` (the last list of topics only) when it has one."""
        kept = getattr(qrels, "sides", None)
        if kept is None:
            return cls([qrels.judged_of(t) for t in topics])
        key = tuple(topics)
        side = kept.get(key)
        if side is None:
            side = cls([qrels.judged_of(t) for t in topics])
            kept.clear()
            kept[key] = side
        return side

    def num_rel(self, level: int) -> np.ndarray:
        key = ("num_rel", level)
        if key not in self.memo:
            self.memo[key] = np.bincount(self.topic[self.grades >= level], minlength=len(self.judged)).astype(np.int64)
        return self.memo[key]


class _Context:
    """What several kernels share for one level: relevant documents, their ranks, R per topic."""

    def __init__(self, grades: np.ndarray, segments: Segments, side: QrelsSide, level: int):
        self.grades = grades
        self.seg = segments
        self.level = level
        self.relevant = grades >= level
        self.rel_index = np.flatnonzero(self.relevant)
        self.rel_topic = segments.topic_of(self.rel_index)
        self.rel_position = segments.position_of(self.rel_index, self.rel_topic)
        first = np.searchsorted(self.rel_topic, np.arange(segments.count))
        self.rel_count = np.arange(self.rel_index.shape[0]) - first[self.rel_topic] + 1   # count(r) at r
        self.side = side
        self.judged = side.judged
        self.num_rel = side.num_rel(level)
        self.num_rel_ret = np.bincount(self.rel_topic, minlength=segments.count)
        self.memo: Dict[tuple, List[np.ndarray]] = {}

    def all_judged(self) -> Tuple[np.ndarray, np.ndarray]:
        """(every topic's judged grades one after the other, the topic of each)."""
        return self.side.grades, self.side.topic

    def rel_at(self, k) -> np.ndarray:
        """rel(k) per topic; k may be a number or one number per topic."""
        limit = k if np.isscalar(k) else np.asarray(k)[self.rel_topic]
        return np.bincount(self.rel_topic[self.rel_position < limit], minlength=self.seg.count)

    def precision_sums(self, cutoff: Optional[int] = None) -> np.ndarray:
        keep = slice(None) if cutoff is None else self.rel_position < cutoff
        values = self.rel_count[keep] / (self.rel_position[keep] + 1)
        return ordered_segment_sums(values, self.rel_topic[keep], self.seg.count)

    def ideal_gains(self) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The ideal ranking of every topic at once: its positive grades, highest first, over log2(rank + 1); their
        topics and ranks (0-based). No loop over topics: a run of many small topics would pay a few numpy calls
        each. Kept for this evaluation only (arrays as long as the qrels' positive judgements; what an evaluator
        keeps for its next runs are the sums made from them)."""
        key = ("ideal gains",)
        if key not in self.memo:
            judged, judged_topic = self.all_judged()
            chosen = judged > 0
            best, ideal_topic = judged[chosen], judged_topic[chosen]
            by_topic = np.lexsort((-best, ideal_topic))
            best, ideal_topic = best[by_topic].astype(np.float64), ideal_topic[by_topic]
            del chosen, by_topic
            first = np.searchsorted(ideal_topic, np.arange(self.seg.count))
            ideal_position = np.arange(best.shape[0]) - first[ideal_topic]
            discounts = log2_discounts(int(ideal_position.max()) + 1 if ideal_position.shape[0] else 0)
            self.memo[key] = (best / discounts[ideal_position], ideal_topic, ideal_position)
        return self.memo[key]


def _kernel(name: str, c: _Context, params, options: TrecOptions) -> List[np.ndarray]:
    seg = c.seg
    if name == "num_ret":
        return [seg.sizes.astype(np.float64)]
    if name == "num_rel":
        return [c.num_rel.astype(np.float64)]
    if name == "num_rel_ret":
        return [c.num_rel_ret.astype(np.float64)]
    if name in ("map", "gm_map"):
        return [_divide(c.precision_sums(), c.num_rel)]
    if name == "map_cut":
        return [_divide(c.precision_sums(k), c.num_rel) for k in params]
    if name == "Rprec":
        return [_divide(c.rel_at(c.num_rel), c.num_rel)]
    if name == "recip_rank":
        first = np.searchsorted(c.rel_topic, np.arange(seg.count))
        has = c.num_rel_ret > 0
        out = np.zeros(seg.count)
        out[has] = 1.0 / (c.rel_position[first[has]] + 1)
        return [out]
    if name == "P":
        return [c.rel_at(k) / k for k in params]
    if name == "recall":
        return [_divide(c.rel_at(k), c.num_rel) for k in params]
    if name == "success":
        return [(c.rel_at(k) > 0).astype(np.float64) for k in params]
    if name in ("bpref", "gm_bpref"):
        return [_bpref(c)]
    if name == "ndcg_cut":
        return _ndcg_cut(c, params)
    if name in ("iprec_at_recall", "11pt_avg"):
        if name == "11pt_avg" and len(params) == 0:
            raise ValueError("11pt_avg needs at least one recall point")
        key = ("iprec", tuple(params), options.interp_cutoff, options.empty_is_nan)
        if key not in c.memo:           # iprec_at_recall and 11pt_avg share the values
            c.memo[key] = _iprec(c, params, options.interp_cutoff, options.empty_is_nan)
        values = c.memo[key]
        if name == "iprec_at_recall":
            return values
        # each topic's values added from the last recall point to the first, left to right (ordered_sum of the
        # reversed row: a cumulative sum along the row, + 0.0 as its start from 0.0)
        table = np.array(values).T[:, ::-1] if values else np.zeros((seg.count, 0))
        out = np.zeros(seg.count)
        if table.shape[1]:
            summed = (np.cumsum(table, axis=1)[:, -1] + 0.0) / len(params)
            out = summed if options.empty_is_nan else np.where(seg.sizes > 0, summed, 0.0)
        return [out]
    return vectorised_all_trec.kernel(name, c, params, options)


def _bpref(c: _Context) -> np.ndarray:
    """bpref as measures.trec.bpref: each relevant judged document scores 1 - min(n, R) / min(R, N), n the
    judged non-relevant documents ranked above it, N those in the qrels; unjudged documents are skipped."""
    grades, seg = c.grades, c.seg
    judged = np.flatnonzero(grades >= 0)
    judged_topic = seg.topic_of(judged)
    is_nonrel = grades[judged] < c.level
    running = np.zeros(judged.shape[0] + 1, dtype=np.int64)
    np.cumsum(is_nonrel, out=running[1:])
    first = np.searchsorted(judged_topic, np.arange(seg.count))
    rel_slot = np.flatnonzero(~is_nonrel)
    rel_topic = judged_topic[rel_slot]
    nonrel_so_far = running[rel_slot] - running[first[rel_topic]]
    key = ("judged non-relevant", c.level)
    if key not in c.side.memo:
        all_judged, all_topic = c.all_judged()
        c.side.memo[key] = np.bincount(all_topic[(all_judged >= 0) & (all_judged < c.level)], minlength=seg.count)
    qrels_nonrel = c.side.memo[key]
    denominator = np.minimum(c.num_rel, qrels_nonrel)[rel_topic]
    capped = np.minimum(nonrel_so_far, c.num_rel[rel_topic])
    safe = np.where(denominator == 0, 1, denominator)
    values = np.where(nonrel_so_far > 0, 1.0 - capped / safe, 1.0)
    totals = ordered_segment_sums(values, rel_topic, seg.count)
    return _divide(totals, c.num_rel)


def _ndcg_cut(c: _Context, cutoffs) -> List[np.ndarray]:
    grades, seg = c.grades, c.seg
    positive = np.flatnonzero(grades > 0)
    topic = seg.topic_of(positive)
    position = seg.position_of(positive, topic)
    gain = grades[positive].astype(np.float64) / log2_discounts(int(position.max()) + 1 if position.shape[0]
                                                                  else 0)[position]
    out = []
    dcgs = sums_before(running_segment_sums(gain, topic, seg.count), topic, position, seg.count, cutoffs)
    key = ("ideal dcg", tuple(cutoffs))
    if key not in c.side.memo:          # the qrels' alone: made once per evaluator and topics
        ideal, ideal_topic, ideal_position = c.ideal_gains()
        # Only positions before the deepest cutoff count: the running sums need no more (fewer arrays as long as
        # the qrels at the peak of the measures).
        deepest = max((int(k) for k in cutoffs), default=0)
        if ideal_position.shape[0] and int(ideal_position.max()) >= deepest:
            keep = ideal_position < deepest
            ideal, ideal_topic, ideal_position = ideal[keep], ideal_topic[keep], ideal_position[keep]
            del keep
        c.side.memo[key] = sums_before(running_segment_sums(ideal, ideal_topic, seg.count), ideal_topic,
                                       ideal_position, seg.count, cutoffs)
    for dcg, idcg in zip(dcgs, c.side.memo[key]):
        out.append(np.where(idcg > 0.0, dcg / np.where(idcg > 0.0, idcg, 1.0), dcg))
    return out


_NEGATIVE_NAN = c_div(0.0, 0.0)         # trec_eval's precision of an empty ranking, 0/0 (x86 gives -nan)


def _iprec(c: _Context, points, rule: str, empty_is_nan: bool = False) -> List[np.ndarray]:
    """Interpolated precision: the best precision at or after the c_p-th relevant document. Precision only
    peaks at relevant ranks, so the suffix maximum over the relevant documents is the exact path's value.
    empty_is_nan: an empty ranking gets trec_eval's 0/0 (x86's negative NaN) at the points whose c_p is 0, as
    measures.trec_blocks.c_interpolated_precision."""
    precision = c.rel_count / (c.rel_position + 1)
    best_after = _suffix_max(precision, c.rel_topic, c.seg.count)
    first = np.searchsorted(c.rel_topic, np.arange(c.seg.count))
    out = [np.zeros(c.seg.count) for _ in points]
    cuts: Dict[int, List[int]] = {}     # R -> c_p of every point (R repeats across topics)
    if empty_is_nan:
        for t in np.flatnonzero(c.seg.sizes == 0).tolist():
            num_rel = int(c.num_rel[t])
            if num_rel not in cuts:
                cuts[num_rel] = [recall_point_cutoff(p, num_rel, rule) for p in points]
            for i, cut in enumerate(cuts[num_rel]):
                if cut <= 0:
                    out[i][t] = _NEGATIVE_NAN
    for t in np.flatnonzero(c.num_rel_ret).tolist():
        found = int(c.num_rel_ret[t])
        num_rel = int(c.num_rel[t])
        if num_rel not in cuts:
            cuts[num_rel] = [recall_point_cutoff(p, num_rel, rule) for p in points]
        for i, cut in enumerate(cuts[num_rel]):
            if cut <= found:
                out[i][t] = best_after[first[t] + max(cut, 1) - 1]
    return out


# ------------------------------------------------------------------------------------------- driver ---

def evaluate_columnar(run: ColumnarRun, qrels: QrelsColumns, topics: Sequence[str], measures: Sequence[str],
                      level: int = 1, options: TrecOptions = TrecOptions(), tie_order: str = "desc",
                      max_docs: Optional[int] = None, params: Dict[str, Sequence] = None, score_dtype=np.float64,
                      ranking: Optional[Tuple[np.ndarray, np.ndarray]] = None,
                      grades: Optional[np.ndarray] = None) -> Dict[str, Dict[str, float]]:
    """Per-topic values keyed by trec_eval output names, as rankeval.evaluate_topic_run gives them for each
    topic (a topic absent from the run is an empty ranking). `ranking` reuses a rank_lines result, `grades`
    a label_lines result for that ranking and these qrels."""
    names, rows = columnar_rows(run, qrels, topics, measures, level, options, tie_order, max_docs, params,
                                score_dtype, ranking, grades)
    return {topic: dict(zip(names, row)) for topic, row in zip(topics, rows)}


def columnar_rows(run: ColumnarRun, qrels: QrelsColumns, topics: Sequence[str], measures: Sequence[str],
                  level: int = 1, options: TrecOptions = TrecOptions(), tie_order: str = "desc",
                  max_docs: Optional[int] = None, params: Dict[str, Sequence] = None, score_dtype=np.float64,
                  ranking: Optional[Tuple[np.ndarray, np.ndarray]] = None,
                  grades: Optional[np.ndarray] = None) -> Tuple[List[str], List[list]]:
    """evaluate_columnar's values as (the value names in output order, one list of values a topic in `topics`
    order): for a caller that makes its own rows (runscore.pytrec_eval), no dict a topic in between."""
    order, table, rows = columnar_values(run, qrels, topics, measures, level, options, tie_order, max_docs, params,
                                   score_dtype, ranking, grades)
    if table is not None:
        return order, (table.tolist() if order else [[] for _ in topics])
    return order, rows


def columnar_table(run: ColumnarRun, qrels: QrelsColumns, topics: Sequence[str], measures: Sequence[str],
                   level: int = 1, options: TrecOptions = TrecOptions(), tie_order: str = "desc",
                   max_docs: Optional[int] = None, params: Dict[str, Sequence] = None, score_dtype=np.float64,
                   ranking: Optional[Tuple[np.ndarray, np.ndarray]] = None,
                   grades: Optional[np.ndarray] = None) -> Tuple[List[str], np.ndarray]:
    """The same values as one float64 array (topics x value names): for a caller that summarises many runs'
    topics at once (ranking/run_batch.py). Every measure must have a kernel."""
    order, table, _ = columnar_values(run, qrels, topics, measures, level, options, tie_order, max_docs, params,
                                score_dtype, ranking, grades)
    if table is None:
        raise ValueError("columnar_table needs measures with kernels only")
    return order, table.astype(np.float64, copy=False)


def columnar_values(run, qrels, topics, measures, level, options, tie_order, max_docs, params, score_dtype, ranking,
              grades) -> Tuple[List[str], Optional[np.ndarray], Optional[List[list]]]:
    """(value names in output order, the values as topics x names when every measure has a kernel, else None and
    the rows a topic)."""
    params = params or {}
    ranked, offsets = ranking if ranking is not None else rank_lines(run, topics, tie_order, max_docs, score_dtype)
    if grades is None:
        grades = label_lines(run, ranked, offsets, topics, qrels)
    side = QrelsSide.of(qrels, topics)
    judged = side.judged
    context = _Context(grades, Segments(offsets), side, level)
    columns: Dict[str, np.ndarray] = {}
    slow: List[str] = []
    for name in measures:
        measure = REGISTRY[name]
        p = params.get(name, measure.params)
        if name not in KERNELS and not vectorised_all_trec.has_kernel(name, p, level):
            slow.append(name)
            continue
        for value_name, values in zip(measure.value_names(p), _kernel(name, context, p, options)):
            columns[value_name] = values
    order = _value_order(measures, params)
    if not slow:                    # every value has a kernel: the rows are the output, in output order
        table = np.array([columns[n] for n in order]).T if order else np.zeros((len(topics), 0))
        return order, table, None
    rows = []
    names = list(columns)
    table = np.array([columns[n] for n in names]).T.tolist() if names else [[] for _ in topics]
    # The measures without a kernel, topic by topic (their value names and parameters found once, not per topic).
    computed = [(REGISTRY[name].value_names(params.get(name, REGISTRY[name].params)), REGISTRY[name].compute,
                 params.get(name, REGISTRY[name].params)) for name in slow]
    for k, topic in enumerate(topics):
        row = dict(zip(names, table[k]))
        judged_topic = JudgedTopic(grades[offsets[k]:offsets[k + 1]], judged[k], level)
        for value_names, compute, p in computed:
            row.update(zip(value_names, compute(judged_topic, p, options)))
        rows.append([row[name] for name in order])
    return order, None, rows


def _value_order(measures: Sequence[str], params: Dict[str, Sequence]) -> List[str]:
    out = []
    for name in measures:
        measure = REGISTRY[name]
        out.extend(measure.value_names(params.get(name, measure.params)))
    return out
