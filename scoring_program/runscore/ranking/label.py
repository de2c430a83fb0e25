"""The labelling stage: turn a run's (docno, score) pairs and the qrels into one grade array per topic.

Why one stage: the ranking rule (score descending, ties by docno) and the join with the judgements are where
scorers silently disagree, so they live here, once. Measures downstream see arrays of grades in rank order,
never document ids (trec_eval's `form_res_rels` does the same).
"""
from dataclasses import dataclass, field
from typing import Dict, Sequence

import numpy as np

NOT_IN_POOL = -1    # retrieved but absent from the qrels (trec_eval RELVALUE_NONPOOL)
UNJUDGED = -2       # in the qrels with a negative grade: pooled but unjudged (trec_eval RELVALUE_UNJUDGED)

TIE_ORDERS = ("desc", "asc", "file")


def rank_order(scores: np.ndarray, docnos: Sequence[str], tie_order: str = "desc") -> np.ndarray:
    """Indices of the documents in rank order: score descending, then docno.

    `desc` breaks ties by docno in descending byte order, as every trec_eval version does (comparator
    `strcmp(docno2, docno1)`); `asc` is the opposite; `file` keeps ties in file order (stable sort).
    Python compares str by code point, which for UTF-8 text is the same as byte order.
    """
    n = len(docnos)
    if tie_order == "file":
        return np.argsort(-scores, kind="stable")
    order_by_docno = sorted(range(n), key=docnos.__getitem__, reverse=(tie_order == "desc"))
    docno_rank = np.empty(n, dtype=np.int64)
    docno_rank[order_by_docno] = np.arange(n)
    # lexsort: the last key is the primary one.
    return np.lexsort((docno_rank, -scores))


@dataclass
class JudgedTopic:
    """One topic after labelling.

    rels: the qrels grade of each retrieved document in rank order (after truncation), NOT_IN_POOL for a
          document the qrels do not list, UNJUDGED for one the qrels list with a negative grade.
    judged: every grade the qrels give this topic (negative grades included), in qrels file order.
    level: the relevance level; a document is relevant iff its grade >= level.
    """

    rels: np.ndarray
    judged: np.ndarray
    level: int = 1
    # num_rel and relevant, kept with what they were computed from: every measure of a topic asks for them
    # (32 measures with all_trec), and a caller may replace rels (-J) after the first question.
    _known: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def num_rel(self) -> int:
        """Judged documents at the level or above; a negative grade never counts (trec_eval counts grades >= 0
        only, also with -l 0 or below)."""
        known = self._known.get("num_rel")
        if known is None or known[0] is not self.judged or known[1] != self.level:
            known = self._known["num_rel"] = (self.judged, self.level,
                                              int(np.count_nonzero(self.judged >= max(self.level, 0))))
        return known[2]

    @property
    def num_ret(self) -> int:
        return int(self.rels.shape[0])

    @property
    def relevant(self) -> np.ndarray:
        """Boolean array: is the document at each rank relevant (read-only: it is shared by the measures)."""
        known = self._known.get("relevant")
        if known is None or known[0] is not self.rels or known[1] != self.level:
            relevant = self.rels >= self.level
            relevant.flags.writeable = False
            known = self._known["relevant"] = (self.rels, self.level, relevant)
        return known[2]


def judge_ranking(ranked_docnos: Sequence[str], topic_qrels: Dict[str, int], level: int = 1) -> JudgedTopic:
    """Attach the qrels grade to each ranked document (see JudgedTopic for the special values)."""
    rels = np.fromiter((_grade(topic_qrels.get(d)) for d in ranked_docnos), dtype=np.int64,
                       count=len(ranked_docnos))
    judged = np.fromiter(topic_qrels.values(), dtype=np.int64, count=len(topic_qrels))
    return JudgedTopic(rels, judged, level)


def _grade(value):
    if value is None:
        return NOT_IN_POOL
    return UNJUDGED if value < 0 else value
