"""What the report needs from a ranking task's reference: its judgements, the relevant items, and the same
reference with items taken out.

Why a module of its own: judged@k, the unique relevant documents and the leave-one-team-out test must see exactly
what the evaluation sees. The rankings are the pool's (campaign/pool.py asks the task's own ranking code), and a
reduced reference is the task's own reference object with fewer judgements (Task.pooling.without), scored by the
task's own `score`. Tasks whose pool is not of ranked items (r2c2-ac's units, or no pool at all: classification,
QA) are not here: the report writes no pool files for them.
"""
from typing import Collection, Dict, Mapping, Set

from ..pipeline import LoadedReference
from ..tasks.base import Task
from ..tasks.pooling import Judged

Judgements = Judged        # topic -> item -> grade


def is_ranking_task(task: Task) -> bool:
    """A task pooled by the ranks of its runs (the report's pool figures read the same rankings)."""
    return task.pooling is not None and task.pooling.ranked


def judgements(reference: LoadedReference) -> Judgements:
    """topic -> item -> grade of every judged item (an item judged at any of the task's levels counts)."""
    return reference.task.pooling.judged(reference.data)


def relevant(reference: LoadedReference) -> Dict[str, Set[str]]:
    """topic -> the items relevant at the task's most lenient level."""
    return reference.task.pooling.relevant(reference.data)


def without(reference: LoadedReference, removed: Mapping[str, Collection[str]]) -> LoadedReference:
    """The same reference with the items `removed` (topic -> items) taken out of every qrels, so they are unjudged;
    topics left without a relevant item are treated as the task treats such topics when it loads qrels."""
    reduced = reference.task.pooling.without(reference.data, removed)
    return LoadedReference(reference.task, reference.path, reference.options, reduced)
