"""Rank every topic of a columnar run at once: file-order line indices in rank order, topic after topic.

Why a module of its own: the whole-run kernels (measures/vectorised.py) read grades in rank order and never a
run; ranking the lines is the ranking wing's job, by the one rule of ranking/label.py (score descending, ties
by document id in byte order, or as `tie_order` says), here for millions of lines with a few numpy calls instead
of a sort a topic. The in-memory path (inmemory.py) breaks its ties with the same groups (`tie_groups`).
"""
from typing import Dict, Optional, Sequence, Tuple

import numpy as np

from ..measures.c_numbers import as_scores
from .columnar_run import ColumnarRun


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
