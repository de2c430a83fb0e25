"""What the report needs from a ranking task's reference: its judgements, the relevant items, and the same
reference with items taken out.

Why a module of its own: judged@k, the unique relevant documents and the leave-one-team-out test must see exactly
what the evaluation sees. The rankings are the pool's (campaign/pool.py asks the task's own ranking code), and a
reduced reference is the task's own reference object with fewer judgements, scored by the task's own `score`. Tasks without ranked items (classification, QA) are not here: the report writes no pool files
for them.
"""
from typing import Dict, Mapping, Set

from ..pipeline import LoadedReference
from ..ranking.columnar_qrels import ColumnarQrels

RANKING_TASKS = ("ntcir1-adhoc", "temporalia-tir", "r2c2-pr")

Judgements = Dict[str, Dict[str, int]]        # topic -> item -> grade


def is_ranking_task(task_id: str) -> bool:
    return task_id in RANKING_TASKS


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

    def keep(qrels: Mapping) -> Mapping:
        if isinstance(qrels, ColumnarQrels):          # rows dropped from the columns, in the same order
            return qrels.without(removed)
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
