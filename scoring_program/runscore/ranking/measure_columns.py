"""Rank, label and measure a columnar run: the whole-run pipeline the fast path, the run batches, the in-memory
API and the NTCIREVAL tasks share.

Why a module of its own: the three steps are three rooms (ranking/rank_columns.py, ranking/label_columns.py,
the kernels of measures/), and the measures read grade arrays only; this is the one place that hands the ranked,
labelled run to them, with the same arguments for every caller.
"""
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..measures.trec_measure import TrecOptions
from ..measures.vectorised import QrelsSide, measure_grades
from ..measures.vectorised_ntcir import NtcirValues, ntcir_values
from .columnar_run import ColumnarRun, columns_from_records
from .label_columns import QrelsColumns, label_lines
from .rank_columns import rank_lines


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
    the rows a topic): the run ranked (unless `ranking` is given) and labelled (unless `grades` is), then
    measured by measures.vectorised.measure_grades."""
    ranked, offsets = ranking if ranking is not None else rank_lines(run, topics, tie_order, max_docs, score_dtype)
    if grades is None:
        grades = label_lines(run, ranked, offsets, topics, qrels)
    return measure_grades(grades, offsets, QrelsSide.of(qrels, topics), measures, level, options, params)


# ------------------------------------------------------------------------------------------- NTCIREVAL ---
def evaluate_ntcir(run: ColumnarRun, qrels: QrelsColumns, topics: Sequence[str], gains: Sequence[float],
                   names: Sequence, tie_order: str = "file", max_docs: Optional[int] = None) -> NtcirValues:
    """Rank (rank_lines: score descending, ties by `tie_order`), label (label_lines) and measure every topic
    of `topics` (a topic absent from the run is an empty list)."""
    ranked, offsets = rank_lines(run, topics, tie_order, max_docs)
    grades = label_lines(run, ranked, offsets, topics, qrels)
    return ntcir_values(grades, offsets, [qrels.judged_of(t) for t in topics], gains, names)


# ------------------------------------------------------------------------------------------- task wiring ---
MAX_KEY_BYTES = 1024       # longer document ids (run or qrels) keep the per-topic code: one widens every row


class _QrelsCache:
    """The last qrels converted: the runs of one submission share their reference (up to 3 or 4 runs)."""

    source = None
    columns: Optional[QrelsColumns] = None


def _qrels_columns(qrels: Dict[str, Dict[str, int]]) -> Optional[QrelsColumns]:
    if _QrelsCache.source is not qrels:
        columns: Optional[QrelsColumns] = None
        longest = max((max(map(len, docs), default=0) for docs in qrels.values()), default=0)
        if longest * 4 <= MAX_KEY_BYTES or all(len(doc.encode("utf-8")) <= MAX_KEY_BYTES
                                               for docs in qrels.values() for doc in docs):
            columns = QrelsColumns(qrels)
            if not columns.usable:
                columns = None
        _QrelsCache.source, _QrelsCache.columns = qrels, columns
    return _QrelsCache.columns


def evaluate_records(topic_ids: List[str], doc_ids: List[str], scores: Sequence[float],
                     qrels: Dict[str, Dict[str, int]], topics: Sequence[str], gains: Sequence[float],
                     names: Sequence, tie_order: str = "file", max_docs: Optional[int] = None
                     ) -> Optional[NtcirValues]:
    """A task's parsed run (one entry per result: topic, document id, score; ties broken by `tie_order`)
    through the shared pipeline: columns, rank_lines, label_lines, the kernels above. None when the words
    cannot hold a document id of the run or of the qrels (a NUL, a line break, more than MAX_KEY_BYTES): the
    task then scores per topic with measures.ntcireval, which gives the same values."""
    try:
        run = columns_from_records(topic_ids, doc_ids, scores, max_key_bytes=MAX_KEY_BYTES)
        columns = _qrels_columns(qrels) if run is not None else None
    except UnicodeEncodeError:           # a lone surrogate: no UTF-8 bytes to compare
        return None
    if columns is None:
        return None
    return evaluate_ntcir(run, columns, topics, gains, names, tie_order, max_docs)
