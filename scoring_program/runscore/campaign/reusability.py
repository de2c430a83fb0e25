"""Pool coverage and reusability: judged@k, the relevant items only one run found, and Zobel's
leave-one-team-out test.

Why a module of its own: an overview must say whether its qrels can score systems that did not contribute to the
pool. Zobel (1998) rebuilds the qrels without the items only one group put in the depth-k pool, scores that
group's runs again and looks at how far they move. Every ranking and every score here comes from the task's own
code (campaign/ranking_tasks.py), so the pool holds what the evaluation sees at ranks 1..k.
"""
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Set, Tuple

import numpy as np

from .. import ties
from ..pipeline import LoadedReference
from . import agreement_tau, ranking_tasks

JUDGED_AT = 10


@dataclass
class PoolRow:
    run: str
    team: str
    judged: Dict[int, float]           # k -> mean over the judged topics of (judged items in the top k) / k
    unique_relevant: int               # relevant (topic, item) pairs no other run has (in its top pool depth)


@dataclass
class PoolTable:
    depth: Optional[int]
    cutoffs: List[int]
    topics: int
    rows: List[PoolRow]


def campaign_pool(reference: LoadedReference, runs: Sequence, depth: Optional[int]):
    """One pool.build_pool over every run, deep enough for judged@10, judged@depth and the unique relevant items
    (the whole ranking as the task scores it when there is no depth)."""
    from .pool import build_pool

    teams = {id(r.run): r.team for r in runs}
    deepest = max(depth, JUDGED_AT) if depth is not None else 10 ** 9
    return build_pool(reference.task, [r.run for r in runs], deepest, reference.options, lambda run: teams[id(run)])


def pool_table(reference: LoadedReference, runs: Sequence, depth: Optional[int], pool) -> PoolTable:
    """judged@10 and judged@depth of every run, averaged over the topics of the qrels (a topic the run does not
    answer counts 0; fewer than k items count the missing ranks as unjudged), and the relevant items (at the task's
    most lenient level) found by this run alone within its top `depth` (its whole ranking without a depth)."""
    judged = ranking_tasks.judgements(reference)
    relevant = ranking_tasks.relevant(reference)
    topics = sorted(judged)
    cutoffs = sorted({JUDGED_AT} | ({depth} if depth is not None else set()))
    limit = depth if depth is not None else 10 ** 9
    counts: Dict[Tuple[str, int], int] = {}            # (run name, k) -> judged items at ranks 1..k, all topics
    alone: Dict[str, int] = {}
    for topic, items in pool.topics.items():
        for item, pooled in items.items():
            if item in judged.get(topic, ()) and topic in judged:
                for hit in pooled.hits:
                    for k in cutoffs:
                        if hit.rank <= k:
                            counts[(hit.run, k)] = counts.get((hit.run, k), 0) + 1
            if item in relevant.get(topic, ()):
                finders = {hit.run for hit in pooled.hits if hit.rank <= limit}
                if len(finders) == 1:
                    owner = finders.pop()
                    alone[owner] = alone.get(owner, 0) + 1
    rows = []
    for run in runs:
        shares = {k: counts.get((run.run.name, k), 0) / float(k) / len(topics) if topics else 0.0 for k in cutoffs}
        rows.append(PoolRow(run.label, run.team, shares, alone.get(run.run.name, 0)))
    return PoolTable(depth, cutoffs, len(topics), rows)


@dataclass
class ReuseRow:
    team: str
    run: str
    measure: str
    full: float
    reduced: float
    rank_full: int
    rank_reduced: int
    removed: int                       # judged items taken out of the qrels for this team


@dataclass
class Reusability:
    depth: int
    measure: str
    rows: List[ReuseRow]               # in the campaign's order (best run first)
    tau: float                         # Kendall tau-b between the full and the reduced scores of every run
    largest_rank_change: int
    largest_change_run: str


def team_contributions(pool, depth: int) -> Dict[str, Dict[str, Set[str]]]:
    """topic -> item -> the teams whose runs put it in the depth-k pool (ranks 1..depth of the campaign pool)."""
    out: Dict[str, Dict[str, Set[str]]] = {}
    for topic, items in pool.topics.items():
        for item, pooled in items.items():
            teams = {hit.team for hit in pooled.hits if hit.rank <= depth}
            if teams:
                out.setdefault(topic, {})[item] = teams
    return out


def rank_against(value: float, others: Sequence[float], sorting: str, topics: int) -> int:
    """1 + how many of `others` are strictly better than `value` (an equal mean, as runscore.ties decides over
    `topics` topics, is not better)."""
    return 1 + sum(1 for other in others if ties.better(other, value, sorting, topics))


def leave_one_team_out(reference: LoadedReference, runs: Sequence, depth: int, pool) -> Reusability:
    """For each team: the judged items only its runs put in the depth-k pool are taken out of the qrels, and its
    runs are scored again with the task's own scorer; each reduced score is ranked among the other runs' full
    scores. Items judged but in no run's top k stay (they did not come from this pool)."""
    task = reference.task
    measure = task.primary.measure
    sorting = task.primary.sorting
    judged = ranking_tasks.judgements(reference)
    contributed = team_contributions(pool, depth)
    full = [float(task.leaderboard_value(r.scores, task.primary)) for r in runs]
    reduced = list(full)
    removed_count: Dict[str, int] = {}
    for team in dict.fromkeys(r.team for r in runs):
        removed = {topic: {item for item, teams in items.items() if teams == {team} and item in judged.get(topic, ())}
                   for topic, items in contributed.items()}
        removed = {topic: items for topic, items in removed.items() if items}
        removed_count[team] = sum(len(items) for items in removed.values())
        smaller = ranking_tasks.without(reference, removed) if removed else reference
        for index, run in enumerate(runs):
            if run.team == team:
                scores = task.score(run.run, smaller.data, smaller.options)
                reduced[index] = float(task.leaderboard_value(scores, task.primary))
    topics = max([len(r.scores.per_topic) for r in runs] + [1])
    rows = []
    for index, run in enumerate(runs):
        others = full[:index] + full[index + 1:]
        rows.append(ReuseRow(run.team, run.label, measure, full[index], reduced[index],
                             rank_against(full[index], others, sorting, topics),
                             rank_against(reduced[index], others, sorting, topics), removed_count[run.team]))
    changes = [abs(r.rank_full - r.rank_reduced) for r in rows]
    largest = max(changes, default=0)
    moved = rows[changes.index(largest)].run if largest else ""          # no run moved: none is named
    tau = float(agreement_tau.kendall_tau_b(ties.tie_classes(np.array(full), topics),
                                            ties.tie_classes(np.array(reduced), topics))[0])
    return Reusability(depth, measure, rows, tau, largest, moved)
