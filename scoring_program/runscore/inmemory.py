"""Qrels and runs held in memory (dicts, pandas DataFrames) evaluated with the whole-run kernels.

Why a module of its own: people who score from Python (runscore.api.trec_eval, runscore.pytrec_eval) hold
`{qid: {docno: grade}}` and `{qid: {docno: score}}` dicts, not files. Writing them out and reading them back
would cost more than the evaluation, so this module turns them straight into the columns of the fast path
(columnar.ColumnarRun, measures.vectorised.QrelsColumns) and evaluates every topic at once; the numbers are the
exact path's, bit for bit (the kernels' own promise, docs/performance.md). Inputs the word packing cannot hold
(a document id with a NUL byte or a line break) take the exact per-topic path instead, with the same values.

Checks (strict where pytrec_eval is lenient or crashes): topic and document ids must be strings, grades
integers within +-qrels.MAX_GRADE, scores finite numbers; a DataFrame may not list a document twice for a topic.
Bad qrels raise ConfigError (the organiser's side), a bad run RunError. pandas is never imported here: a
DataFrame is recognised by its `columns`.
"""
from itertools import chain
from numbers import Integral
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from .columnar import ColumnarRun, pack_strings
from .errors import ConfigError, RunError
from .label import judge_ranking
from .measures.trec import TrecOptions, evaluate_topic
from .measures.vectorised import QrelsColumns, evaluate_columnar, label_lines, rank_lines
from .qrels import MAX_GRADE
from .rankeval import TopicRun, ranked_docnos

# Column names of a DataFrame, in the order they are tried: ir_datasets / ir_measures, then PyTerrier.
QRELS_COLUMNS = (("query_id", "doc_id", "relevance"), ("qid", "docno", "label"))
RUN_COLUMNS = (("query_id", "doc_id", "score"), ("qid", "docno", "score"))


def is_dataframe(obj: Any) -> bool:
    return hasattr(obj, "columns") and hasattr(obj, "itertuples") and not isinstance(obj, Mapping)


def _frame_columns(frame: Any, choices: Sequence[Tuple[str, str, str]], what: str, error) -> Tuple[list, list, list]:
    names = [str(c) for c in frame.columns]
    for choice in choices:
        if all(c in names for c in choice):
            return tuple(frame[c].tolist() for c in choice)
    raise error("a %s DataFrame needs the columns %s; it has %s"
                % (what, " or ".join("(%s)" % ", ".join(c) for c in choices), ", ".join(names) or "none"))


def qrels_dict(qrels: Any) -> Dict[str, Dict[str, int]]:
    """`{qid: {docno: grade}}` from a dict of dicts or a DataFrame, checked (ConfigError); topics without any
    judgement are left out (a qrels file cannot hold them)."""
    if is_dataframe(qrels):
        topics, docs, grades = _frame_columns(qrels, QRELS_COLUMNS, "qrels", ConfigError)
        out: Dict[str, Dict[str, int]] = {}
        for topic, doc, grade in zip(topics, docs, grades):
            judged = out.setdefault(str(topic), {})
            doc = str(doc)
            if doc in judged:
                raise ConfigError("qrels: duplicate judgement of document %s for topic %s" % (doc, topic))
            judged[doc] = grade
        qrels = out
    if not isinstance(qrels, Mapping):
        raise ConfigError("qrels must be a dict {qid: {docno: grade}}, a pandas DataFrame or a file path, not %s"
                          % type(qrels).__name__)
    checked: Dict[str, Dict[str, int]] = {}
    for topic, judged in qrels.items():
        if not isinstance(topic, str):
            raise ConfigError("qrels: topic ids must be strings, got %r" % (topic,))
        if not isinstance(judged, Mapping):
            raise ConfigError("qrels: topic %s must map document ids to grades, not %s" % (topic, type(judged).__name__))
        for doc, grade in judged.items():
            if not isinstance(doc, str):
                raise ConfigError("qrels: topic %s: document ids must be strings, got %r" % (topic, doc))
            if not isinstance(grade, Integral) or not -MAX_GRADE <= grade <= MAX_GRADE:
                raise ConfigError("qrels: topic %s document %s: the grade must be an integer within +-%d, got %r"
                                  % (topic, doc, MAX_GRADE, grade))
        if judged:
            checked[topic] = judged if all(type(g) is int for g in judged.values()) else \
                {d: int(g) for d, g in judged.items()}
    return checked


def run_dict(run: Any) -> Mapping[str, Mapping[str, float]]:
    """`{qid: {docno: score}}` from a dict of dicts or a DataFrame (a repeated document is an error, as in a run
    file); the values are checked when the run is turned into columns."""
    if is_dataframe(run):
        topics, docs, scores = _frame_columns(run, RUN_COLUMNS, "run", RunError)
        out: Dict[str, Dict[str, float]] = {}
        for topic, doc, score in zip(topics, docs, scores):
            ranked = out.setdefault(str(topic), {})
            doc = str(doc)
            if doc in ranked:
                raise RunError("run: duplicate document %s for topic %s" % (doc, topic))
            ranked[doc] = score
        return out
    if not isinstance(run, Mapping):
        raise RunError("the run must be a dict {qid: {docno: score}}, a pandas DataFrame or a file path, not %s"
                       % type(run).__name__)
    for topic, ranked in run.items():
        if not isinstance(topic, str):
            raise RunError("run: topic ids must be strings, got %r" % (topic,))
        if not isinstance(ranked, Mapping):
            raise RunError("run: topic %s must map document ids to scores, not %s" % (topic, type(ranked).__name__))
    return run


def _scores(values: List[Any], run: Mapping[str, Mapping[str, float]]) -> np.ndarray:
    array = np.array(values) if values else np.zeros(0)
    if array.dtype.kind not in "fiub" or array.ndim != 1:
        bad = next((v for v in values if not isinstance(v, (int, float, np.integer, np.floating))), values[0])
        topic, doc = next((t, d) for t, r in run.items() for d, v in r.items() if v is bad)
        raise RunError("run: topic %s document %s: the score must be a number, got %r" % (topic, doc, bad))
    array = array.astype(np.float64, copy=False)
    finite = np.isfinite(array)
    if not finite.all():
        at = int(np.flatnonzero(~finite)[0])
        topic, doc = _locate(run, at)
        raise RunError("run: topic %s document %s: the score must be a finite number, got %r" % (topic, doc, values[at]))
    return array


def _locate(run: Mapping[str, Mapping[str, float]], index: int) -> Tuple[str, str]:
    for topic, ranked in run.items():
        if index < len(ranked):
            return topic, list(ranked)[index]
        index -= len(ranked)
    raise IndexError(index)


class MemoryRun:
    """A run dict checked and as columns (`columns` is None when the word packing cannot hold its ids)."""

    def __init__(self, run: Mapping[str, Mapping[str, float]], run_id: str = ""):
        self.source = run
        self.topics = list(run)
        counts = [len(ranked) for ranked in run.values()]
        docnos = list(chain.from_iterable(run.values()))
        self.scores = _scores(list(chain.from_iterable(ranked.values() for ranked in run.values())), run)
        try:
            words = pack_strings(docnos) if docnos else np.zeros((0, 1), dtype=np.uint64)
        except TypeError:           # "\n".join met an id that is not a string
            at = next(i for i, doc in enumerate(docnos) if not isinstance(doc, str))
            raise RunError("run: topic %s: document ids must be strings, got %r" % (_locate(run, at)[0], docnos[at]))
        self.columns: Optional[ColumnarRun] = None
        if words is not None:
            starts = np.zeros(len(counts) + 1, dtype=np.int64)
            np.cumsum(counts, out=starts[1:])
            topic = np.repeat(np.arange(len(counts), dtype=np.int32), counts)
            self.columns = ColumnarRun(self.topics, topic, words, self.scores, [1] * len(counts), None, starts,
                                       run_id)
        self.counts = counts


class MemoryQrels:
    """Checked qrels and their columns, made once (an evaluator reuses them for every run)."""

    def __init__(self, qrels: Dict[str, Dict[str, int]]):
        self.qrels = qrels
        self.columns = QrelsColumns(qrels)


def evaluate(run: MemoryRun, qrels: MemoryQrels, topics: Sequence[str], measures: Sequence[str], level: int = 1,
             options: TrecOptions = TrecOptions(), max_docs: Optional[int] = None,
             params: Optional[Dict[str, Sequence]] = None, score_dtype=np.float64,
             judged_only: bool = False) -> Dict[str, Dict[str, Any]]:
    """Per-topic values keyed by trec_eval output names for `topics` (a topic absent from the run is an empty
    ranking), as rankeval.evaluate_topic_run gives them topic by topic: trec_eval's ranking rule (score
    descending in `score_dtype`, then docno descending), -M truncation, -J (judged_only) after truncation."""
    params = params or {}
    if run.columns is None or not qrels.columns.usable:
        return _evaluate_exact(run, qrels, topics, measures, level, options, max_docs, params, score_dtype,
                               judged_only)
    ranked, offsets = rank_lines(run.columns, topics, "desc", max_docs, score_dtype)
    grades = label_lines(run.columns, ranked, offsets, topics, qrels.columns)
    if judged_only:
        keep = grades >= 0
        kept = np.zeros(keep.shape[0] + 1, dtype=np.int64)
        np.cumsum(keep, out=kept[1:])
        ranked, offsets, grades = ranked[keep], kept[offsets], grades[keep]
    return evaluate_columnar(run.columns, qrels.columns, topics, measures, level, options, "desc", max_docs, params,
                             score_dtype, ranking=(ranked, offsets), grades=grades)


def _evaluate_exact(run, qrels, topics, measures, level, options, max_docs, params, score_dtype, judged_only):
    out = {}
    for topic in topics:
        ranked = run.source.get(topic)
        docnos = []
        if ranked:
            topic_run = TopicRun(list(ranked), [float(s) for s in ranked.values()], [0] * len(ranked))
            docnos = ranked_docnos(topic_run, "desc", max_docs, score_dtype)
        judged = judge_ranking(docnos, qrels.qrels.get(topic, {}), level)
        if judged_only:
            judged.rels = judged.rels[judged.rels >= 0]
        out[topic] = evaluate_topic(judged, measures, options, params)
    return out
