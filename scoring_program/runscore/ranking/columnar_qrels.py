"""A big qrels file read as columns, usable wherever the exact path expects its topic -> docno -> grade dict.

Why: a task's reference loader builds a Python dict of every judgement (about 0.7 s for 250,000 lines), and the
fast path then converts that dict back into arrays (ranking/label_columns.py's QrelsColumns). Here the file is read by
columnar.read_columns (layout QRELS, fastpath.read_reference_qrels) straight into those arrays; the dict view
decodes one topic only when the exact path asks for it (a small run scored against a big qrels file). A file
the columnar reader declines is read by qrels.read_qrels, which words the error.
"""
from collections.abc import Mapping
from typing import Callable, Collection, Dict, Iterator, Optional

import numpy as np

from .columnar_words import unpack_words
from .label_columns import QrelsColumns


class ColumnarQrels(Mapping):
    """topic -> {docno: grade} (file order, as qrels.parse_qrels_text), backed by a QrelsColumns."""

    def __init__(self, columns: QrelsColumns):
        self.columns = columns
        self._decoded: Dict[str, Dict[str, int]] = {}

    def __getitem__(self, topic: str) -> Dict[str, int]:
        docs = self._decoded.get(topic)
        if docs is None:
            start, end = self.columns.topics[topic]
            docnos = unpack_words(self.columns.words[start:end])
            docs = self._decoded[topic] = dict(zip(docnos, self.columns.judged[topic].tolist()))
        return docs

    def __iter__(self) -> Iterator[str]:
        return iter(self.columns.topics)

    def __len__(self) -> int:
        return len(self.columns.topics)

    def __contains__(self, topic) -> bool:
        return topic in self.columns.topics

    def max_grade(self, topic: str) -> Optional[int]:
        """The highest grade of a topic (None when the topic has no judgement), without decoding it."""
        judged = self.columns.judged.get(topic)
        return int(judged.max()) if judged is not None and judged.shape[0] else None

    def renamed(self, rename: Callable[[str], str]) -> Optional["ColumnarQrels"]:
        """The same judgements under renamed topics; None when two topics get one name (the exact loader's
        dict would keep the last one: let it)."""
        names = [rename(topic) for topic in self.columns.topics]
        if len(set(names)) < len(names):
            return None
        if names == list(self.columns.topics):
            return self
        columns = QrelsColumns({})
        columns.words, columns.grades, columns.usable = self.columns.words, self.columns.grades, True
        columns.topics = dict(zip(names, self.columns.topics.values()))
        columns.judged = dict(zip(names, self.columns.judged.values()))
        return ColumnarQrels(columns)


    def without(self, removed: "Mapping[str, Collection[str]]") -> "ColumnarQrels":
        """The same judgements, in the same order, without the items `removed` (topic -> document ids): the
        qrels a campaign's leave-one-team-out scores a team against, made by dropping rows, not by a dict of every
        judgement (fifty teams, each a copy of the whole qrels). A topic whose every item is removed stays, with
        no judgement, as it does in the dict the exact path filters."""
        columns = self.columns
        keep = np.ones(columns.words.shape[0], dtype=bool)
        for topic, items in removed.items():
            span = columns.topics.get(topic)
            if span is None or not items:
                continue
            docnos = unpack_words(columns.words[span[0]:span[1]])
            keep[span[0]:span[1]] = [docno not in items for docno in docnos]
        reduced = QrelsColumns({})
        reduced.words, reduced.grades, reduced.usable = columns.words[keep], columns.grades[keep], columns.usable
        kept_before = np.zeros(keep.shape[0] + 1, dtype=np.int64)
        np.cumsum(keep, out=kept_before[1:])
        reduced.topics = {topic: (int(kept_before[a]), int(kept_before[b])) for topic, (a, b) in columns.topics.items()}
        reduced.judged = {topic: columns.judged[topic][keep[a:b]] for topic, (a, b) in columns.topics.items()}
        return ColumnarQrels(reduced)


def max_grade(qrels: Mapping, topic: str) -> Optional[int]:
    """The highest grade of a topic in either kind of qrels (None: no judgement)."""
    if isinstance(qrels, ColumnarQrels):
        return qrels.max_grade(topic)
    docs = qrels.get(topic)
    return max(docs.values()) if docs else None

