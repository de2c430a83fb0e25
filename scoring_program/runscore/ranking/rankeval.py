"""Rank, label, measure, summarise: the trec_eval-style evaluation of a run, shared by every front end.

Why a module of its own: `runscore trec_eval` and the ranking tasks must give identical numbers, so both call
`evaluate_rankings`; the only differences between them (which topics are averaged, how ties and truncation
are set) are explicit arguments. This is the exact path, one topic at a time; a big run read as columns goes
through fastpath.evaluate instead, which falls back to this module (never the other way round).
"""
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from .label import JudgedTopic, judge_ranking, rank_order
from ..measures.c_numbers import as_scores
from ..measures.trec import REGISTRY, TrecOptions, evaluate_topic, summarise
from .qrels import Qrels


@dataclass
class TopicRun:
    """The retrieved documents of one topic in file order, with their scores and physical line numbers."""

    docnos: List[str] = field(default_factory=list)
    scores: List[float] = field(default_factory=list)
    lines: List[int] = field(default_factory=list)

    def add(self, docno: str, score: float, line: int) -> None:
        self.docnos.append(docno)
        self.scores.append(score)
        self.lines.append(line)


def ranked_docnos(topic_run: TopicRun, tie_order: str = "desc", max_docs: Optional[int] = None,
                  score_dtype=np.float64) -> List[str]:
    """The docnos in rank order, truncated to max_docs after sorting (trec_eval -M)."""
    scores = as_scores(np.asarray(topic_run.scores, dtype=np.float64), score_dtype)
    order = rank_order(scores, topic_run.docnos, tie_order)
    if max_docs is not None:
        order = order[:max_docs]
    return [topic_run.docnos[i] for i in order.tolist()]


def evaluate_rankings(rankings: Dict[str, TopicRun], qrels: Qrels, topics: Sequence[str], measures: Sequence[str],
                      level: int = 1, options: TrecOptions = TrecOptions(), tie_order: str = "desc",
                      max_docs: Optional[int] = None, params: Dict[str, Sequence] = None,
                      score_dtype=np.float64) -> Tuple[Dict[str, Dict[str, float]], Dict[str, float]]:
    """Per-topic values and the summary over `topics` (a topic absent from the run is an empty ranking).

    Returns (per_topic, summary); values are keyed by trec_eval output names (`P_10`, `map`, ...).
    A big run read as columns (columnar.ColumnarRun) gets the same values from fastpath.evaluate.
    """
    per_topic: Dict[str, Dict[str, float]] = {}
    for topic in topics:
        per_topic[topic] = evaluate_topic_run(rankings.get(topic), qrels.get(topic, {}), measures, level, options,
                                              tie_order, max_docs, params, score_dtype)
    return per_topic, summarise_topics(per_topic, measures, params)


def evaluate_topic_run(topic_run: Optional[TopicRun], topic_qrels: Dict[str, int], measures: Sequence[str],
                       level: int = 1, options: TrecOptions = TrecOptions(), tie_order: str = "desc",
                       max_docs: Optional[int] = None, params: Dict[str, Sequence] = None, score_dtype=np.float64,
                       judged_only: bool = False) -> Dict[str, float]:
    """Rank, truncate, label and measure one topic (None = the topic is missing from the run: empty ranking).

    judged_only drops documents the qrels do not judge before measuring (trec_eval -J).
    """
    docnos = ranked_docnos(topic_run, tie_order, max_docs, score_dtype) if topic_run else []
    judged = judge_ranking(docnos, topic_qrels, level)
    if judged_only:
        judged.rels = judged.rels[judged.rels >= 0]
    return evaluate_topic(judged, measures, options, params)


def summarise_topics(per_topic: Dict[str, Dict[str, float]], measures: Sequence[str],
                     params: Dict[str, Sequence] = None) -> Dict[str, float]:
    params = params or {}
    summary: Dict[str, float] = {}
    for name in measures:
        measure = REGISTRY[name]
        for value_name in measure.value_names(params.get(name, measure.params)):
            summary[value_name] = summarise(measure, [v[value_name] for v in per_topic.values()])
    return summary


def summarise_runs(runs: Sequence[Dict[str, Dict[str, float]]], measures: Sequence[str],
                   params: Dict[str, Sequence] = None) -> List[Dict[str, float]]:
    """[summarise_topics(r, measures, params) for r in runs], each value's sums of every run made at once
    (summarise_table); runs of different topic counts go through summarise_topics."""
    params = params or {}
    counts = {len(run) for run in runs}
    if len(counts) != 1 or 0 in counts:
        return [summarise_topics(run, measures, params) for run in runs]
    names = list(next(iter(runs[0].values())))
    table = np.array([[[values[n] for n in names] for values in run.values()] for run in runs], dtype=np.float64)
    return summarise_table(table, names, measures, params)


def summarise_table(table: np.ndarray, names: Sequence[str], measures: Sequence[str],
                    params: Dict[str, Sequence] = None) -> List[Dict[str, float]]:
    """summarise_topics of every run from its values as one array (runs x topics x value names `names`): one numpy
    addition a topic, in topic order, which adds left to right from 0.0 as measures.c_numbers.ordered_sum does (so
    the same bits); a geometric mean (its logs are libm's) is made per run. A batch of small runs is summarised
    from the kernels' array, with no dict a topic in between."""
    params = params or {}
    runs, count = table.shape[0], table.shape[1]
    column_of = {name: j for j, name in enumerate(names)}
    out: List[Dict[str, float]] = [{} for _ in range(runs)]
    for name in measures:
        measure = REGISTRY[name]
        for value_name in measure.value_names(params.get(name, measure.params)):
            column = table[:, :, column_of[value_name]]
            if measure.summary not in ("sum", "mean") or count == 0:
                for summary, row in zip(out, column.tolist()):
                    summary[value_name] = summarise(measure, row)
                continue
            total = np.zeros(runs, dtype=np.float64)
            for k in range(count):
                total += column[:, k]
            for summary, value in zip(out, (total if measure.summary == "sum" else total / count).tolist()):
                summary[value_name] = value
    return out


def empty_topic(level: int = 1) -> JudgedTopic:
    return JudgedTopic(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), level)
