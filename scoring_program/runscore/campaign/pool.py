"""Depth-k pools built with each task's own reader and ranking rule, so the pool holds exactly what the evaluation
sees at ranks 1..k (specs/campaign.md 1.1-1.2).

Why here and not in a pooling library: trectools and NTCIRPOOL rank a run by its score column alone, while our
tasks rank by their own rules (ntcir1-adhoc: Similarity descending, ties by Document-ID in the `tie_order`
direction, at most `max_docs`; temporalia-tir: rank ascending, equal ranks in file order; r2c2-pr: PassageRank
ascending, passages identified by content). A pool built by another rule judges documents the evaluation never
looks at and misses some it does. So `ranked_lists` asks the task's own code (the functions its `score` calls)
for each run's ranking, and `build_pool` takes the union of the top k.

Public API (also used by the reusability report, leave-one-team-out):

* ``ranked_lists(task, run, options) -> {topic: [RankedItem(item, text)]}`` in rank order (rank 1 first).
* ``build_pool(task, runs, depth, options, team_of=None) -> Pool``: per topic, every item that some run ranks at
  1..depth, with its ``hits`` (run, team, rank); ``Pool.items(topic)`` in first-seen order; ``Pool.unique_to``.
* ``assessment_units(runs, pr_runs_of, team_of) -> Pool`` for r2c2-ac: the distinct answers per question and the
  distinct (cited passage, nugget) pairs, each with the runs that gave it (no depth: every unit of every run is
  judged); pr_runs_of(run) gives the PR runs that run's nuggets may cite (its own submission's and the official
  ones: never another submission's copy of a PR run).
* ``order_items(items, order, seed, topic)``: NTCIRPOOL's pseudo-relevance order (most runs first, then the
  smallest rank sum, then the item), the item order, or a seeded random order.
"""
import hashlib
import random
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from ..errors import ConfigError
from ..tasks.base import ParsedRun, Task

POOLED_TASKS = ("ntcir1-adhoc", "temporalia-tir", "r2c2-pr", "r2c2-ac")
ORDERS = ("ntcirpool", "random", "item")
ANSWER = "answer"
NUGGET = "nugget"


@dataclass(frozen=True)
class RankedItem:
    """One entry of a run's ranking: the task's item key (document id, R2C2 passage key), its text if the run
    carries it, and the id of its document in the collection (the item itself, or R2C2's docID)."""

    item: str
    text: Optional[str] = None
    document: Optional[str] = None


@dataclass(frozen=True)
class Hit:
    """A run that put an item in the pool: at which rank (1-based; 0 for r2c2-ac units, which have no rank).
    ref: where in the run (r2c2-ac nuggets: (NuggetNum, PR run name, PassageRank))."""

    run: str
    team: str
    rank: int
    ref: tuple = ()


@dataclass
class PooledItem:
    topic: str
    item: str
    text: Optional[str] = None
    document: Optional[str] = None          # its document's id in the collection (None: it has none, an answer)
    hits: List[Hit] = field(default_factory=list)
    extra: Dict[str, str] = field(default_factory=dict)     # task-specific columns (r2c2-ac: unit, passage)

    @property
    def runs(self) -> List[str]:
        """The runs that retrieved it, each once, in pooling order."""
        return list(OrderedDict.fromkeys(h.run for h in self.hits))

    @property
    def teams(self) -> List[str]:
        return list(OrderedDict.fromkeys(h.team for h in self.hits))

    @property
    def rank_sum(self) -> int:
        return sum(h.rank for h in self.hits)

    @property
    def best_rank(self) -> int:
        return min(h.rank for h in self.hits)


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
                owners = {key(h) for h in pooled.hits}
                if len(owners) == 1:
                    counts[owners.pop()] += 1
        return counts


def text_hash(text: Optional[str]) -> str:
    """SHA-1 of the whitespace-normalised text an assessor judges ('' when the run carries no text): a sheet's
    hash that no longer matches the pool's means the item's text changed since the pool was built."""
    if text is None:
        return ""
    return hashlib.sha1(" ".join(text.split()).encode("utf-8")).hexdigest()


# ------------------------------------------------------------------------------------ rankings ---
def ranked_lists(task: Task, run: ParsedRun, options: Dict) -> "OrderedDict[str, List[RankedItem]]":
    """A run's ranking per topic by the task's own rule, as far as the evaluation reads it (its document cap)."""
    if task.id == "ntcir1-adhoc":
        import numpy as np

        from ..ranking import fastpath
        from ..ranking.columnar import ColumnarRun
        from ..ranking.rankeval import ranked_docnos

        topics = run.data.topics
        if isinstance(topics, ColumnarRun):          # a big run read by the fast path: the same records
            topics = fastpath.topic_runs(topics)
        dtype = np.float32 if options["similarity_precision"] == "single" else np.float64
        return OrderedDict((topic, [RankedItem(d, None, d) for d in ranked_docnos(topic_run, options["tie_order"],
                                                                                  options["max_docs"], dtype)])
                           for topic, topic_run in topics.items())
    if task.id == "temporalia-tir":
        return OrderedDict((subtopic, [RankedItem(d, None, d) for d in run.data.ranking(subtopic)])
                           for subtopic in run.data.entries)
    if task.id == "r2c2-pr":
        from ..tasks.r2c2.pr_format import MAX_PASSAGES, key_text

        pr_run = run.data
        mode = options["passage_key_mode"]
        return OrderedDict((qid, [RankedItem(key_text(pr_run.key(qid, rank, mode)), passage.text, passage.doc_id)
                                  for rank, passage in pr_run.passages(qid)][:MAX_PASSAGES])
                           for qid in pr_run.topics)
    raise ConfigError("task %s has no ranked runs to pool; pooled tasks: %s" % (task.id, ", ".join(POOLED_TASKS)))


def default_team(task: Task, run: ParsedRun) -> str:
    """The team a run is credited to when the platform does not say (Task.inferred_team)."""
    return task.inferred_team(run)


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
        for topic, ranking in ranked_lists(task, run, options).items():
            for rank, entry in enumerate(ranking[:depth], start=1):
                pool.add(topic, entry.item, Hit(run.name, team, rank), entry.text, entry.document)
    return pool


# ------------------------------------------------------------------------------------ r2c2-ac ---
def assessment_units(runs: Sequence[ParsedRun], pr_runs_of: Callable[[ParsedRun], Dict],
                     team_of: Callable[[ParsedRun], str],
                     aliases: Optional[Dict[str, str]] = None) -> Tuple[Pool, Dict[str, int]]:
    """The r2c2-ac assessment units: per question, each distinct answer (whitespace-normalised text; judged
    correct or not) and each distinct nugget with its cited passage (passage content key + nugget text; judged
    for entailment and help). The same text is judged once however many runs gave it. A nugget citing no passage
    of pr_runs_of(run) is not pooled: the scorer counts it as not entailed whatever a label says (option
    unresolved_nuggets); returns (pool, {run: nuggets not pooled because unresolved})."""
    from ..tasks.r2c2.pr_format import key_text, normalise_run_name

    pool = Pool("r2c2-ac", None)
    unresolved: Dict[str, int] = OrderedDict()
    for run in runs:
        if run.name in pool.teams:
            raise ConfigError("two runs are named %s; a pool needs distinct run names" % run.name)
        team = team_of(run)
        pool.teams[run.name] = team
        unresolved[run.name] = 0
        ac_run = run.data.run
        pr_runs = pr_runs_of(run)
        for qid, block in ac_run.blocks.items():
            if not block.answered:
                continue
            answer = " ".join(block.answer.split())
            unit = pool.add(qid, "%s:%s" % (ANSWER, text_hash(answer)), Hit(run.name, team, 0), answer)
            unit.extra.setdefault("unit", ANSWER)
            for nugget in block.nuggets:
                pr_name = normalise_run_name(nugget.pr_run, aliases)
                pr_run = pr_runs.get(pr_name)
                passage = pr_run.passage(qid, nugget.rank) if pr_run is not None else None
                if passage is None:
                    unresolved[run.name] += 1
                    continue
                cited = key_text(pr_run.key(qid, nugget.rank, "content"))
                text = " ".join(nugget.text.split())
                unit = pool.add(qid, "%s:%s::%s" % (NUGGET, cited, text_hash(text)),
                                Hit(run.name, team, 0, (nugget.number, pr_name, nugget.rank)), text, passage.doc_id)
                unit.extra.setdefault("unit", NUGGET)
                unit.extra.setdefault("passage", passage.text)
    return pool, unresolved


# ------------------------------------------------------------------------------------ order ---
def order_items(items: Sequence[PooledItem], order: str = "ntcirpool", seed: int = 0,
                topic: str = "") -> List[PooledItem]:
    """Items of one topic in assessment order.

    ntcirpool: NTCIRPOOL's pseudo-relevance order as Sakai describes it (most runs first, then the smallest rank
    sum; specs/campaign.md 1.2, its source is not public), then the item key so the order is total; item: by item
    key; random: a shuffle seeded by (seed, topic), the same on every machine (TREC shows pools in random order).
    """
    if order == "ntcirpool":
        return sorted(items, key=lambda p: (-len(p.runs), p.rank_sum, p.item))
    if order == "item":
        return sorted(items, key=lambda p: p.item)
    if order == "random":
        shuffled = sorted(items, key=lambda p: p.item)
        random.Random("%d:%s" % (seed, topic)).shuffle(shuffled)
        return shuffled
    raise ConfigError("order %r is not one of %s" % (order, ", ".join(ORDERS)))
