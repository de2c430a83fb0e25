"""The labelling stage: turn a run's (docno, score) pairs and the qrels into one grade array per topic.

Why one stage: the ranking rule (score descending, ties by docno) and the join with the judgements are where
scorers silently disagree, so they live here, once. Measures downstream see arrays of grades in rank order,
never document ids (trec_eval's `form_res_rels` does the same).
"""
from typing import Dict, Sequence

import numpy as np

from ..measures.judged import NOT_IN_POOL, UNJUDGED, JudgedTopic  # the grade arrays a measure reads

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
