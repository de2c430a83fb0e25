"""ColumnarRun: a checked run (or qrels file) as numpy columns, one entry per result line, in file order.

Why a module of its own: the reader (columnar.py) makes it, tasks whose own parser reads the run make it from
their records (`columns_from_records`), and the whole-run ranking and join (ranking/rank_columns.py, label_columns.py)
consume it; none of them needs the others' code.
"""
from dataclasses import dataclass
from typing import List, Optional

import numpy as np

from .columnar_words import LongIds, pack_strings


@dataclass
class ColumnarRun:
    """A checked run as arrays, in file order (one entry per result line).

    topics: topic ids by code, in order of first appearance; topic: code of each line (int32);
    docno: (lines, words) uint64 big-endian words of the document id, zero padded (row order = byte order);
    score: float64 (a ranking kept by fastpath.ranked_columns: its falling ranks as float32); first_line: physical line of each topic's first line; grouped_order: indices that list
    the lines topic by topic (None when the file already does); starts: offsets of each topic in that order.
    """

    topics: List[str]
    topic: np.ndarray
    docno: np.ndarray
    score: np.ndarray
    first_line: List[int]
    grouped_order: Optional[np.ndarray]
    starts: np.ndarray
    run_id: str
    dummy: str = ""
    # Document ids longer than LONG_ID_BYTES (trec_eval's reader only, `c_space`): such a row holds the first
    # words of its id and, in one extra last column, 1 + the id's rank among the distinct long ids in byte order
    # (every other row has 0 there), so the words still compare as the bytes do and one long id does not widen
    # every row. long_ids: those ids in code order (columnar_words.LongIds); None when there is none.
    long_ids: Optional[LongIds] = None
    space_separated: bool = False   # NACSIS: no TAB in the file, fields split on spaces (the task warns once)

    def __len__(self) -> int:
        return int(self.topic.shape[0])

    def topic_lines(self, code: int) -> np.ndarray:
        """File-order indices of one topic's lines."""
        start, end = int(self.starts[code]), int(self.starts[code + 1])
        if self.grouped_order is None:
            return np.arange(start, end)
        return self.grouped_order[start:end]

    def count(self, code: int) -> int:
        return int(self.starts[code + 1] - self.starts[code])


def columns_from_records(topic_ids: List[str], doc_ids: List[str], scores, run_id: str = "",
                         lines: Optional[List[int]] = None, max_key_bytes: int = 0) -> Optional[ColumnarRun]:
    """A ColumnarRun from parsed records (one entry per result, in file order), for tasks whose own parser
    reads the run: the shared ranking/labelling pipeline then serves them too.

    Document ids become words with pack_strings (UTF-8 bytes, so equal words = equal strings). None when the
    words cannot stand for the ids (an id with a NUL or a line break) or an id is longer than max_key_bytes
    (0 = no limit; bounds the memory of the word matrix): the caller keeps its per-topic code then."""
    count = len(doc_ids)
    if len(topic_ids) != count or len(scores) != count:
        raise ValueError("topic_ids, doc_ids and scores must have one entry per record")
    if max_key_bytes and count and max(map(len, doc_ids)) * 4 > max_key_bytes \
            and max(len(doc.encode("utf-8")) for doc in doc_ids) > max_key_bytes:
        return None                 # checked before packing: one long id widens every row
    if count:
        docno = pack_strings(list(doc_ids))
        if docno is None:
            return None
    else:
        docno = np.zeros((0, 1), dtype=np.uint64)
    topics = list(dict.fromkeys(topic_ids))              # order of first appearance
    codes = {name: code for code, name in enumerate(topics)}
    topic = np.fromiter(map(codes.__getitem__, topic_ids), dtype=np.int32, count=count)
    first = np.unique(topic, return_index=True)[1].tolist()
    first_line = [lines[i] for i in first] if lines is not None else [i + 1 for i in first]
    grouped = not np.any(np.diff(topic) < 0)      # codes follow first appearance: a drop = a topic resumed
    order = None if grouped else np.argsort(topic, kind="stable")
    starts = np.zeros(len(topics) + 1, dtype=np.int64)
    np.cumsum(np.bincount(topic, minlength=len(topics)), out=starts[1:])
    return ColumnarRun(topics, topic, docno, np.asarray(scores, dtype=np.float64).reshape(-1), first_line,
                       order, starts, run_id)
