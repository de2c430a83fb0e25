"""Many small runs of one submission ranked, labelled and measured as one columnar run.

Why: the exact path (rankeval) pays its Python and numpy set-up once a topic, about 0.3 ms, so a submission of
1,000 runs of 5 topics scored at two relevance levels spent 3 s there (the shape table's "many tiny files"). Here every
(run, topic) pair of a batch becomes one topic of a single ColumnarRun, and the whole-run kernels
(measures/vectorised.py, the fast path's, equal to the exact path bit for bit) measure them all in a few dozen
numpy calls. Each run's per-topic values come back as rankeval.evaluate_rankings gives them.
"""
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from .columnar_qrels import ColumnarQrels
from .columnar_run import ColumnarRun, columns_from_records
from .rankeval import TopicRun
from ..measures.trec import TrecOptions
from .label_columns import QrelsColumns, label_lines
from .measure_columns import columnar_table
from .rank_columns import rank_lines

# A batch's lines share one word matrix as wide as its longest document id: ids longer than this many bytes
# would widen every row, so such a batch declines (its runs take the exact path).
MAX_ID_BYTES = 256


class RunBatch:
    """Runs (each {topic: TopicRun}) as one ColumnarRun whose topics are the (run, topic) pairs.

    `usable` is False when the word columns cannot stand for the document ids (a NUL or a line break in one,
    or one longer than MAX_ID_BYTES): the caller scores those runs one by one on the exact path."""

    def __init__(self, rankings: Sequence[Dict[str, TopicRun]]):
        self.count = len(rankings)
        self._names: Dict[str, int] = {}          # a topic name -> its number in this batch
        topic_of_line: List[str] = []
        docnos: List[str] = []
        scores: List[float] = []
        for i, run in enumerate(rankings):
            for topic, topic_run in run.items():
                pair = self._pair(i, topic)
                topic_of_line.extend([pair] * len(topic_run.docnos))
                docnos.extend(topic_run.docnos)
                scores.extend(topic_run.scores)
        self.run: Optional[ColumnarRun] = columns_from_records(topic_of_line, docnos, scores,
                                                               max_key_bytes=MAX_ID_BYTES) if docnos else None
        self.usable = self.run is not None or not docnos
        self._ranking: Optional[Tuple[tuple, Tuple[np.ndarray, np.ndarray]]] = None
        self._grades: Optional[Tuple[tuple, np.ndarray]] = None

    def _pair(self, run: int, topic: str) -> str:
        """The batch's name of one run's topic (no document id or topic name can make two pairs equal)."""
        number = self._names.setdefault(topic, len(self._names))
        return "%d:%d" % (run, number)

    def evaluate(self, qrels, topics: Sequence[str], measures: Sequence[str], level: int = 1,
                 options: TrecOptions = TrecOptions(), tie_order: str = "desc", max_docs: Optional[int] = None,
                 params: Dict[str, Sequence] = None, score_dtype=np.float64) -> List[Dict[str, Dict[str, float]]]:
        """For each run, rankeval.evaluate_rankings(run, qrels, topics, ...)'s per-topic values. The ranking is
        kept for a second call with the same topics and settings (the other relevance level), the labels too
        when the qrels are the same object (graded qrels serve both levels)."""
        names, table = self.table(qrels, topics, measures, level, options, tie_order, max_docs, params, score_dtype)
        return [{topic: dict(zip(names, row)) for topic, row in zip(topics, run_rows)} for run_rows in table.tolist()]

    def table(self, qrels, topics: Sequence[str], measures: Sequence[str], level: int = 1,
              options: TrecOptions = TrecOptions(), tie_order: str = "desc", max_docs: Optional[int] = None,
              params: Dict[str, Sequence] = None, score_dtype=np.float64) -> Tuple[List[str], np.ndarray]:
        """evaluate's values as (value names, runs x topics x names array): what a task summarises and shows
        without a dict a topic in between (measures with kernels only, as the task's are)."""
        if not self.usable:
            raise ValueError("this batch cannot be evaluated as columns (RunBatch.usable is False)")
        pairs = [self._pair(i, t) for i in range(self.count) for t in topics]
        base = _columns_of(qrels)
        judged = _renamed(base, {pair: topics[k % len(topics)] for k, pair in enumerate(pairs)}) if topics else base
        run = self.run if self.run is not None else _empty_run()
        key = (tuple(topics), tie_order, max_docs, np.dtype(score_dtype).str)
        if self._ranking is None or self._ranking[0] != key:
            self._ranking, self._grades = (key, rank_lines(run, pairs, tie_order, max_docs, score_dtype)), None
        ranked, offsets = self._ranking[1]
        if self._grades is None or self._grades[0] != (key, base):
            self._grades = ((key, base), label_lines(run, ranked, offsets, pairs, judged))
        names, values = columnar_table(run, judged, pairs, measures, level, options, tie_order, max_docs, params,
                                       score_dtype, ranking=(ranked, offsets), grades=self._grades[1])
        return names, values.reshape(self.count, len(topics), len(names))


class _Columns:
    """The qrels last converted to columns, kept with their source (two levels may have two qrels files)."""

    made: List[Tuple[object, QrelsColumns]] = []


def _columns_of(qrels) -> QrelsColumns:
    if isinstance(qrels, ColumnarQrels):
        return qrels.columns
    for source, columns in _Columns.made:
        if source is qrels:
            return columns
    columns = QrelsColumns(qrels)
    _Columns.made = [(qrels, columns)] + _Columns.made[:1]
    return columns


def usable_qrels(qrels) -> bool:
    """Can the columns join these qrels? (False when a judged document id holds a NUL or whitespace)"""
    return _columns_of(qrels).usable


def _renamed(base: QrelsColumns, real: Dict[str, str]) -> QrelsColumns:
    """The judgements of each real topic under each of its batch names (the arrays are shared, not copied)."""
    columns = QrelsColumns({})
    columns.words, columns.grades, columns.usable = base.words, base.grades, base.usable
    columns.topics = {pair: base.topics[t] for pair, t in real.items() if t in base.topics}
    columns.judged = {pair: base.judged[t] for pair, t in real.items() if t in base.judged}
    return columns


def _empty_run() -> ColumnarRun:
    return ColumnarRun([], np.zeros(0, dtype=np.int32), np.zeros((0, 1), dtype=np.uint64),
                       np.zeros(0, dtype=np.float64), [], None, np.zeros(1, dtype=np.int64), "")
