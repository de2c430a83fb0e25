"""Depth-k pools built with each task's own reader and ranking rule, so the pool holds exactly what the evaluation
sees at ranks 1..k (specs/campaign.md 1.1-1.2).

Why here and not in a pooling library: trectools and NTCIRPOOL rank a run by its score column alone, while our
tasks rank by their own rules (ntcir1-adhoc: Similarity descending, ties by Document-ID in the `tie_order`
direction, at most `max_docs`; temporalia-tir: rank ascending, equal ranks in file order; r2c2-pr: PassageRank
ascending, passages identified by content). A pool built by another rule judges documents the evaluation never
looks at and misses some it does. So `ranked_lists` asks the task's own code (the functions its `score` calls)
for each run's ranking, and `build_pool` takes the union of the top k.

What is pooled is the task's to say (Task.pooling, tasks/pooling.py); this module never asks which task it holds.
Public API (also used by the reusability report, leave-one-team-out):

* ``ranked_lists(task, run, options, depth) -> {topic: [RankedItem(item, text, document)]}`` in rank order
  (rank 1 first): the task's own ranking (Task.ranked_lists); ``keep_top`` reduces each run to it as soon as it
  is read.
* ``build_pool(task, runs, depth, options, team_of=None) -> Pool``: per topic, every item that some run ranks at
  1..depth, with its ``hits`` (run, team, rank); ``Pool.items(topic)`` in first-seen order; ``Pool.unique_to``.
* ``pool_units(task, runs, files, official, team_of) -> (Pool, unresolved)`` for a task that pools units, not
  ranks (Pooling.units; r2c2-ac: the distinct answers per question and the distinct (cited passage, nugget)
  pairs), each with the runs that gave it, no depth: every unit of every run is judged.
* ``order_items(items, order, seed, topic)``: NTCIRPOOL's pseudo-relevance order (most runs first, then the
  smallest rank sum, then the item), the item (docid) order, or a seeded random order (the blind default of a
  form: Pooling.order); ``ORDER_WHY``: what each order tells the assessor, said on every page.
"""
import gc
import random
from collections import OrderedDict
from contextlib import contextmanager
from itertools import repeat
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple

from ..errors import ConfigError
from ..tasks.base import ParsedRun, RankedItem, Task

ORDERS = ("random", "docid", "ntcirpool", "item")
# What each order is and why, as the pages and `runscore pool` say it: an order is chosen knowingly, never silently.
# NTCIRPOOL's order puts the items most runs retrieved first, so the first tenth of a page is far more often
# relevant than the last (26 % against 1 % on a real campaign): it tells the assessor the systems' consensus.
ORDER_WHY = {
    "random": "shuffled (seeded by the pool's seed and the topic): the order tells nothing about the systems "
              "(TREC's practice)",
    "docid": "by item id: the order tells nothing about the systems; near ids (a collection's neighbours) stay "
             "together",
    "item": "by item id (the same as docid): the order tells nothing about the systems",
    "ntcirpool": "NTCIRPOOL's: the items most runs retrieved first, then the smallest rank sum; this tells the "
                 "assessor what the systems agreed on, as NTCIR's pools do",
}


class Hit(NamedTuple):
    """A run that put an item in the pool: at which rank (1-based; 0 for r2c2-ac units, which have no rank).
    ref: where in the run (r2c2-ac nuggets: (NuggetNum, PR run name, PassageRank)). A tuple: a campaign's pool
    holds hundreds of thousands."""

    run: str
    team: str
    rank: int
    ref: tuple = ()


class PooledItem:
    """An item of the pool: its topic, key, text (if any), the id of its document in the collection (None: it has
    none, an answer), the hits that put it there, task-specific columns (r2c2-ac: unit, passage). A class with
    slots: a campaign's pool holds about a hundred thousand."""

    __slots__ = ("topic", "item", "text", "document", "hits", "extra", "_summary")

    def __init__(self, topic: str, item: str, text: Optional[str] = None, document: Optional[str] = None,
                 hits: Optional[List[Hit]] = None, extra: Optional[Dict[str, str]] = None):
        self.topic = topic
        self.item = item
        self.text = text
        self.document = document
        self.hits: List[Hit] = hits if hits is not None else []
        self.extra: Dict[str, str] = extra if extra is not None else {}
        self._summary: Optional[tuple] = None      # (hits counted, runs, rank sum, best rank)

    def __repr__(self) -> str:
        return "PooledItem(%r, %r, hits=%r)" % (self.topic, self.item, self.hits)

    def summary(self) -> Tuple[List[str], int, int]:
        """(runs, rank_sum, best_rank), worked out once for the hits the item has (the sheet's order and columns)."""
        known = self._summary
        hits = self.hits
        if known is None or known[0] != len(hits):
            if len(hits) == 1:
                hit = hits[0]
                known = (1, [hit.run], hit.rank, hit.rank)
            else:
                ranks = [h.rank for h in hits]
                known = (len(hits), list(dict.fromkeys([h.run for h in hits])), sum(ranks), min(ranks))
            self._summary = known
        return known[1], known[2], known[3]

    @property
    def runs(self) -> List[str]:
        """The runs that retrieved it, each once, in pooling order."""
        return list(self.summary()[0])

    @property
    def teams(self) -> List[str]:
        return list(dict.fromkeys([h.team for h in self.hits]))

    @property
    def rank_sum(self) -> int:
        return self.summary()[1]

    @property
    def best_rank(self) -> int:
        return self.summary()[2]


@dataclass
class Pool:
    """The pooled items of every topic, in first-seen order, and the runs (with their teams) that were pooled."""

    task_id: str
    depth: Optional[int]
    topics: "OrderedDict[str, OrderedDict[str, PooledItem]]" = field(default_factory=OrderedDict)
    teams: "OrderedDict[str, str]" = field(default_factory=OrderedDict)      # run -> team

    def items(self, topic: str) -> List[PooledItem]:
        return list(self.topics.get(topic, {}).values())

    def add(self, topic: str, item: str, hit: Hit, text: Optional[str] = None,
            document: Optional[str] = None) -> PooledItem:
        found = self.topics.setdefault(topic, OrderedDict()).get(item)
        if found is None:
            found = self.topics[topic][item] = PooledItem(topic, item, text, document)
        found.hits.append(hit)
        return found

    def size(self) -> int:
        return sum(len(items) for items in self.topics.values())

    def unique_to(self, key: Callable[[Hit], str]) -> Dict[str, int]:
        """How many pooled items only one run (key = run) or one team (key = team) contributed, for every run or
        team of the pool (0 when it contributed none alone)."""
        counts: Dict[str, int] = OrderedDict()
        for run, team in self.teams.items():
            counts.setdefault(key(Hit(run, team, 0)), 0)
        for items in self.topics.values():
            for pooled in items.values():
                hits = pooled.hits
                owner = key(hits[0])
                if len(hits) == 1 or all(key(h) == owner for h in hits[1:]):
                    counts[owner] += 1
        return counts


@contextmanager
def few_collections():
    """Python's cyclic garbage collector paused while a campaign command builds its pool: it looks at every young
    container each 700 new ones, and half the time of pooling a million hits (tuples, lists and dicts that never
    form a cycle) went to it. Collected again, once, when the block ends."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def pooled_tasks() -> List[str]:
    """The ids of the tasks whose form has a pooling part (Task.pooling), in the registry's order."""
    from ..tasks import all_tasks

    return [task.id for task in all_tasks() if task.pooling is not None]


# ------------------------------------------------------------------------------------ rankings ---
def ranked_lists(task: Task, run: ParsedRun, options: Dict,
                 depth: Optional[int] = None) -> "OrderedDict[str, List[RankedItem]]":
    """A run's ranking per topic by the task's own rule, as far as the evaluation reads it (its document cap), the
    first `depth` items of each topic (a run already reduced to them at reading, TopRanked, gives them)."""
    if isinstance(run.data, TopRanked):
        if depth is None or depth > run.data.depth:
            raise ValueError("run %s was kept to depth %d only" % (run.name, run.data.depth))
        return run.data.lists(depth)
    found = task.ranked_lists(run, options, depth)
    if found is None:
        raise ConfigError("task %s has no ranked runs to pool; pooled tasks: %s" % (task.id, ", ".join(pooled_tasks())))
    return found


@dataclass
class TopRanked:
    """What `runscore pool` keeps of a run once it is read and checked: the first `depth` items of each topic of its
    ranking (and their texts and documents, where they are not the item itself), not its records: a campaign's runs
    are read one at a time, and what is kept is about what the pool holds."""

    depth: int
    items: "OrderedDict[str, List[str]]"
    texts: "Optional[Dict[str, List[Optional[str]]]]"          # None: the run carries no texts
    documents: "Optional[Dict[str, List[Optional[str]]]]"      # None: each item's document is the item itself

    @classmethod
    def of(cls, lists: "OrderedDict[str, List[RankedItem]]", depth: int, shared: Dict[str, str]) -> "TopRanked":
        """`shared` holds one copy of each item key across the runs (the same documents head many rankings)."""
        items = OrderedDict((topic, [shared.setdefault(entry.item, entry.item) for entry in ranking])
                            for topic, ranking in lists.items())
        entries = [entry for ranking in lists.values() for entry in ranking]
        texts = {topic: [entry.text for entry in ranking] for topic, ranking in lists.items()} \
            if any(entry.text is not None for entry in entries) else None
        documents = {topic: [entry.document for entry in ranking] for topic, ranking in lists.items()} \
            if any(entry.document != entry.item for entry in entries) else None
        return cls(depth, items, texts, documents)

    def lists(self, depth: int) -> "OrderedDict[str, List[RankedItem]]":
        texts, documents = self.texts, self.documents
        return OrderedDict((topic, [RankedItem(item, text, item if document is None else document)
                                    for item, text, document in
                                    zip(items[:depth], texts[topic] if texts is not None else repeat(None),
                                        documents[topic] if documents is not None else repeat(None))])
                           for topic, items in self.items.items())


def keep_top(task: Task, options: Dict, depth: Optional[int]) -> Callable:
    """An after_check for the campaign reader (campaign/downloads.py): each checked run of a ranking task reduced
    to TopRanked (a task whose runs are not rankings keeps them: r2c2-ac's units are its answers and nuggets)."""
    shared: Dict[str, str] = {}

    def reduce(_task: Task, checked) -> None:
        for run in checked.runs:
            lists = task.ranked_lists(run, options, depth) if depth is not None else None
            if lists is not None:
                run.data = TopRanked.of(lists, depth, shared)
    return reduce


def default_team(task: Task, run: ParsedRun) -> str:
    """The team a run is credited to when the platform does not say (Task.inferred_team)."""
    return task.inferred_team(run)


def teams_found(task: Task, runs: Sequence[Tuple[str, str, bool]]) -> Optional[str]:
    """Which teams the runs were credited to and by which rule, for pool's and report's notes, when the platform
    vouched for none of some runs' owners (loose files: Task.team_rule); runs is (label, team, vouched). Why:
    runs run1 ... run7 of seven TREC teams are one team "run" by NTCIR's rule, and the organiser must see it."""
    inferred: Dict[str, List[str]] = OrderedDict()
    for label, team, vouched in runs:
        if not vouched:
            inferred.setdefault(team, []).append(label)
    if not inferred:
        return None
    inferred = OrderedDict((team, sorted(labels)) for team, labels in sorted(inferred.items()))
    return "note: %d team(s) found in the runs' names: %s; a run's team is %s" % (
        len(inferred), "; ".join("%s (%s)" % (team, ", ".join(labels[:5]) + (" and %d more" % (len(labels) - 5)
                                                            if len(labels) > 5 else ""))
                  for team, labels in inferred.items()),
        task.team_rule)


def build_pool(task: Task, runs: Sequence[ParsedRun], depth: int, options: Dict,
               team_of: Optional[Callable[[ParsedRun], str]] = None) -> Pool:
    """The depth-`depth` pool of `runs` (already checked by the task): per topic the union of every run's items at
    ranks 1..depth of the task's own ranking; each pooled item lists its hits (run, team, rank) in run order."""
    if depth < 1:
        raise ConfigError("the pool depth must be at least 1, not %d" % depth)
    pool = Pool(task.id, depth)
    for run in runs:
        if run.name in pool.teams:
            raise ConfigError("two runs are named %s; a pool needs distinct run names" % run.name)
        team = team_of(run) if team_of else default_team(task, run)
        pool.teams[run.name] = team
        name = run.name
        for topic, ranking in ranked_lists(task, run, options, depth).items():
            items = pool.topics.get(topic)              # Pool.add, inlined: a campaign pools millions of hits
            if items is None:
                items = pool.topics[topic] = OrderedDict()
            for rank, (item, text, document) in enumerate(ranking, start=1):
                found = items.get(item)
                if found is None:
                    found = items[item] = PooledItem(topic, item, text, document)
                found.hits.append(Hit(name, team, rank))
    return pool


# ------------------------------------------------------------------------------------ units ---
def pool_units(task: Task, runs: Sequence[ParsedRun], files: Mapping[str, str], official: Mapping[str, Any],
               team_of: Callable[[ParsedRun], str]) -> Tuple[Pool, Dict[str, int]]:
    """A pool of units (Pooling.units; r2c2-ac: each distinct answer and each distinct nugget with its cited
    passage): every unit of every run, no depth; the same item from several runs is judged once, with each run's
    hit. files: run name -> the file it was read from (its units may cite files beside it); official: the
    organiser's files the units cite (Pooling.read_official). Returns (pool, {run: units not pooled because they
    cite nothing found})."""
    pool = Pool(task.id, None)
    unresolved: Dict[str, int] = OrderedDict()
    for run in runs:
        if run.name in pool.teams:
            raise ConfigError("two runs are named %s; a pool needs distinct run names" % run.name)
        team = team_of(run)
        pool.teams[run.name] = team
        units, unresolved[run.name] = task.pooling.units(run, files[run.name], official)
        for unit in units:
            pooled = pool.add(unit.topic, unit.item, Hit(run.name, team, 0, unit.ref), unit.text, unit.document)
            for column, value in unit.cells:
                pooled.extra.setdefault(column, value)
    return pool, unresolved


# ------------------------------------------------------------------------------------ order ---
def order_items(items: Sequence[PooledItem], order: str = "ntcirpool", seed: int = 0,
                topic: str = "") -> List[PooledItem]:
    """Items of one topic in assessment order.

    ntcirpool: NTCIRPOOL's pseudo-relevance order as Sakai describes it (most runs first, then the smallest rank
    sum; specs/campaign.md 1.2, its source is not public), then the item key so the order is total; docid (or item):
    by item key; random: a shuffle seeded by (seed, topic), the same on every machine (TREC shows pools in random
    order). ORDER_WHY says what each tells the assessor.
    """
    if order == "ntcirpool":
        def key(pooled: PooledItem):
            runs, rank_sum, _ = pooled.summary()
            return -len(runs), rank_sum, pooled.item
        return sorted(items, key=key)
    if order in ("item", "docid"):
        return sorted(items, key=lambda p: p.item)
    if order == "random":
        shuffled = sorted(items, key=lambda p: p.item)
        random.Random("%d:%s" % (seed, topic)).shuffle(shuffled)
        return shuffled
    raise ConfigError("order %r is not one of %s" % (order, ", ".join(ORDERS)))
