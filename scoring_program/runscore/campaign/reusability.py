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


def pool_table(reference: LoadedReference, runs: Sequence, depth: Optional[int]) -> PoolTable:
    """judged@10 and judged@depth of every run, averaged over the topics of the qrels (a topic the run does not
    answer counts 0; fewer than k items count the missing ranks as unjudged), and the relevant items (at the task's
    most lenient level) found by this run alone within its top `depth` (its whole ranking without a depth)."""
    judged = ranking_tasks.judgements(reference)
    relevant = ranking_tasks.relevant(reference)
    topics = sorted(judged)
    items = [ranking_tasks.ranked_items(reference, r.run) for r in runs]
    cutoffs = sorted({JUDGED_AT} | ({depth} if depth is not None else set()))
    found_by: Dict[Tuple[str, str], Set[int]] = {}
    for index, ranked in enumerate(items):
        for topic, kept in ranking_tasks.top_k(ranked, depth).items():
            for item in kept:
                if item in relevant.get(topic, ()):
                    found_by.setdefault((topic, item), set()).add(index)
    alone: Dict[int, int] = {}
    for owners in found_by.values():
        if len(owners) == 1:
            owner = next(iter(owners))
            alone[owner] = alone.get(owner, 0) + 1
    rows = []
    for index, (run, ranked) in enumerate(zip(runs, items)):
        shares = {}
        for k in cutoffs:
            per_topic = [sum(1 for item in ranked.get(topic, [])[:k] if item in judged[topic]) / float(k)
                         for topic in topics]
            shares[k] = float(np.mean(per_topic)) if per_topic else 0.0
        rows.append(PoolRow(run.label, run.team, shares, alone.get(index, 0)))
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


def team_contributions(reference: LoadedReference, runs: Sequence, depth: int) -> Dict[str, Dict[str, Set[str]]]:
    """topic -> item -> the teams whose runs put it in the depth-k pool (campaign/pool.py's build_pool)."""
    from .pool import build_pool

    teams = {id(r.run): r.team for r in runs}
    pool = build_pool(reference.task, [r.run for r in runs], depth, reference.options, lambda run: teams[id(run)])
    return {topic: {item: set(pooled.teams) for item, pooled in items.items()} for topic, items in pool.topics.items()}


def rank_against(value: float, others: Sequence[float], sorting: str) -> int:
    """1 + how many of `others` are strictly better than `value`."""
    sign = 1.0 if sorting == "desc" else -1.0
    return 1 + sum(1 for other in others if sign * other > sign * value)


def leave_one_team_out(reference: LoadedReference, runs: Sequence, depth: int) -> Reusability:
    """For each team: the judged items only its runs put in the depth-k pool are taken out of the qrels, and its
    runs are scored again with the task's own scorer; each reduced score is ranked among the other runs' full
    scores. Items judged but in no run's top k stay (they did not come from this pool)."""
    task = reference.task
    measure = task.primary.measure
    sorting = task.primary.sorting
    judged = ranking_tasks.judgements(reference)
    pool = team_contributions(reference, runs, depth)
    full = [float(task.leaderboard_value(r.scores, task.primary)) for r in runs]
    reduced = list(full)
    removed_count: Dict[str, int] = {}
    for team in dict.fromkeys(r.team for r in runs):
        removed = {topic: {item for item, teams in items.items() if teams == {team} and item in judged.get(topic, ())}
                   for topic, items in pool.items()}
        removed = {topic: items for topic, items in removed.items() if items}
        removed_count[team] = sum(len(items) for items in removed.values())
        smaller = ranking_tasks.without(reference, removed) if removed else reference
        for index, run in enumerate(runs):
            if run.team == team:
                scores = task.score(run.run, smaller.data, smaller.options)
                reduced[index] = float(task.leaderboard_value(scores, task.primary))
    rows = []
    for index, run in enumerate(runs):
        others = full[:index] + full[index + 1:]
        rows.append(ReuseRow(run.team, run.label, measure, full[index], reduced[index],
                             rank_against(full[index], others, sorting), rank_against(reduced[index], others, sorting),
                             removed_count[run.team]))
    changes = [abs(r.rank_full - r.rank_reduced) for r in rows]
    worst = int(np.argmax(changes)) if changes else 0
    tau = float(agreement_tau.kendall_tau_b(np.array(full), np.array(reduced))[0])
    return Reusability(depth, measure, rows, tau, changes[worst] if changes else 0, rows[worst].run if rows else "")
