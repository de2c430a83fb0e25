"""What the report needs from a ranking task: each run's ranked items per topic, the judgements, and the
reference with items taken out.

Why a module of its own: judged@k, the unique relevant documents and the leave-one-team-out test must see exactly
what the evaluation sees, so every function here calls the task's own ranking code (ntcir1-adhoc: Similarity
descending with its tie order and max_docs; temporalia-tir: rank ascending in file order; r2c2-pr: PassageRank with
its passage keys), and a reduced reference is the task's own reference object with fewer judgements, scored by the
task's own `score`. Tasks without ranked items (classification, QA) are not here: the report writes no pool files
for them.
"""
import os
from typing import Dict, List, Mapping, Optional, Set

import numpy as np

from ..errors import Diagnostics
from ..pipeline import LoadedReference
from ..ranking import fastpath
from ..ranking.columnar import ColumnarRun
from ..ranking.rankeval import ranked_docnos
from ..tasks.base import ParsedRun

RANKING_TASKS = ("ntcir1-adhoc", "temporalia-tir", "r2c2-pr")

Judgements = Dict[str, Dict[str, int]]        # topic -> item -> grade


def is_ranking_task(task_id: str) -> bool:
    return task_id in RANKING_TASKS


def ranked_items(reference: LoadedReference, run: ParsedRun) -> Dict[str, List[str]]:
    """topic -> the run's items in the order the task ranks them (only the items the task scores)."""
    task_id = reference.task.id
    options = reference.options
    if task_id == "ntcir1-adhoc":
        topics = run.data.topics
        if isinstance(topics, ColumnarRun):          # a big run read as columns: read it again per topic
            topics = _exact_parse(reference, run).data.topics
        dtype = np.float32 if options["similarity_precision"] == "single" else np.float64
        return {topic: ranked_docnos(topic_run, options["tie_order"], options["max_docs"], dtype)
                for topic, topic_run in topics.items()}
    if task_id == "temporalia-tir":
        return {subtopic: run.data.ranking(subtopic) for subtopic in run.data.entries}
    if task_id == "r2c2-pr":
        from ..tasks.r2c2.pr import MAX_PASSAGES, _key

        mode = options["passage_key_mode"]
        return {topic: [_key(run.data, topic, rank, mode) for rank, _ in run.data.passages(topic)][:MAX_PASSAGES]
                for topic in run.data.topics}
    raise ValueError("task %s has no ranked items" % task_id)


def _exact_parse(reference: LoadedReference, run: ParsedRun) -> ParsedRun:
    """The run parsed again on the exact path (one TopicRun per topic instead of columns)."""
    before = os.environ.get(fastpath.ENVIRONMENT)
    os.environ[fastpath.ENVIRONMENT] = "0"
    try:
        parsed = reference.task.parse(run.path, run.path, Diagnostics(run.path), reference.data, reference.options)
    finally:
        if before is None:
            del os.environ[fastpath.ENVIRONMENT]
        else:
            os.environ[fastpath.ENVIRONMENT] = before
    return parsed[0]


def judgements(reference: LoadedReference) -> Judgements:
    """topic -> item -> grade of every judged item (ntcir1-adhoc: the relaxed level's qrels, with the strict
    level's items added, so an item judged at either level counts as judged)."""
    data = reference.data
    if reference.task.id == "ntcir1-adhoc":
        out: Judgements = {}
        for level in ("rel1", "rel2"):
            for topic, docs in _as_dicts(data.qrels[level]).items():
                row = out.setdefault(topic, {})
                for doc, grade in docs.items():
                    row[doc] = max(row.get(doc, grade), grade)
        return out
    return {topic: dict(docs) for topic, docs in data.qrels.items()}


def relevant(reference: LoadedReference) -> Dict[str, Set[str]]:
    """topic -> the items relevant at the task's most lenient level (ntcir1-adhoc: relaxed, rel2)."""
    data = reference.data
    if reference.task.id == "ntcir1-adhoc":
        threshold = data.thresholds["rel2"]
        return {topic: {doc for doc, grade in docs.items() if grade >= threshold}
                for topic, docs in _as_dicts(data.qrels["rel2"]).items()}
    return {topic: {item for item, grade in docs.items() if grade > 0} for topic, docs in data.qrels.items()}


def _as_dicts(qrels: Mapping) -> Judgements:
    """Plain dicts from either kind of qrels (a dict, or the columnar reader's dict view)."""
    return {topic: dict(qrels[topic]) for topic in qrels}


def without(reference: LoadedReference, removed: Mapping[str, Set[str]]) -> LoadedReference:
    """The same reference with the items `removed` (topic -> items) taken out of every qrels, so they are unjudged;
    topics left without a relevant item are treated as the task treats such topics when it loads qrels."""
    data = reference.data
    task_id = reference.task.id

    def keep(qrels: Mapping) -> Judgements:
        return {topic: {item: grade for item, grade in docs.items() if item not in removed.get(topic, ())}
                for topic, docs in _as_dicts(qrels).items()}

    if task_id == "ntcir1-adhoc":
        from ..tasks.ntcir1_adhoc import Reference

        if data.qrels["rel1"] is data.qrels["rel2"]:
            shared = keep(data.qrels["rel1"])
            qrels = {"rel1": shared, "rel2": shared}
        else:
            qrels = {level: keep(data.qrels[level]) for level in ("rel1", "rel2")}
        reduced = Reference(qrels, dict(data.thresholds), list(data.topics))
    elif task_id == "temporalia-tir":
        from ..tasks.temporalia.tir import TirReference

        reduced = TirReference(keep(data.qrels), data.gains)
    elif task_id == "r2c2-pr":
        from ..tasks.r2c2.pr import PRReference

        qrels = keep(data.qrels)
        topics = [t for t in data.topics if any(grade > 0 for grade in qrels.get(t, {}).values())]
        excluded = list(data.excluded) + [t for t in data.topics if t not in topics]
        reduced = PRReference(qrels, topics, data.gains, excluded, data.assessed)
    else:
        raise ValueError("task %s has no qrels to reduce" % task_id)
    return LoadedReference(reference.task, reference.path, reference.options, reduced)


def top_k(items: Dict[str, List[str]], depth: Optional[int]) -> Dict[str, List[str]]:
    """The first `depth` items of each topic (all of them when depth is None)."""
    return {topic: ranked if depth is None else ranked[:depth] for topic, ranked in items.items()}
