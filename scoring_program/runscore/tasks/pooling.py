"""The part of a pooled task's form that the campaign wing reads to pool its runs, to turn the assessors' labels
into its reference folder, and to take a team's items out of a reference (docs/campaign.md).

Why in the task's form: the wing (`runscore pool`, `judgements`, `report`) serves every pooled task with one code
path; what differs per task is declared here, beside the task's reader and reference loader, so adding a pooled
task stays "filling in a form" and the wing never asks which task it holds:

* what is pooled: ranks 1..k of each run's ranking by the task's own rule (`ranked`: Task.ranked_lists; the
  report's judged@k and leave-one-team-out read the same rankings), or every unit of every run with no depth
  (`units`: r2c2-ac judges each distinct answer and each nugget with the passage it cites), with the sheet's
  columns of each kind of pool;
* the organiser's files a run's units cite (r2c2-ac's official PR runs: `runscore pool --pr-runs`), read and kept
  in the pool folder so that the reference writer resolves the units as the pool did;
* how one label per pooled item becomes the task's reference folder, in the task's own formats (`write_reference`:
  the folder is then loaded by the task's own loader before it is kept);
* what a reference judges and holds relevant, and the same reference without some items (`judged`, `relevant`,
  `without`): the report's pool figures and Zobel's leave-one-team-out test.
"""
import hashlib
from dataclasses import dataclass, field
from typing import Any, Callable, Collection, Dict, List, Mapping, NamedTuple, Optional, Sequence, Set, Tuple

Judged = Dict[str, Dict[str, int]]        # topic -> item -> grade


class PoolUnit(NamedTuple):
    """One unit of a run for a pool of units: its topic, its item key (unique per topic: the same key from two runs
    is one item, judged once), the text an assessor judges, its document in the collection (None: it has none),
    where in the run it is (kept with the run's hit), and the sheet's task-specific cells."""

    topic: str
    item: str
    text: Optional[str] = None
    document: Optional[str] = None
    ref: tuple = ()
    cells: Tuple[Tuple[str, str], ...] = ()


@dataclass
class JudgedPool:
    """What `runscore judgements` hands the reference writer: one label per pooled (topic, item), the topics of
    the pool in its order, the pool folder, and the pooled runs as the pool copied them (run name -> file, read
    from the pool's runs.tsv only when the writer asks)."""

    labels: Dict[Tuple[str, str], str]
    topics: List[str]
    pool_dir: str
    pooled_runs: Callable[[], List[Tuple[str, str]]] = field(default=lambda: [])


def text_hash(text: Optional[str]) -> str:
    """SHA-1 of the whitespace-normalised text an assessor judges ('' when the run carries no text): a sheet's
    hash that no longer matches the pool's means the item's text changed since the pool was built."""
    if text is None:
        return ""
    return hashlib.sha1(" ".join(text.split()).encode("utf-8")).hexdigest()


def as_dicts(qrels: Mapping) -> Judged:
    """Plain dicts from either kind of qrels (a dict, or the columnar reader's dict view)."""
    return {topic: dict(qrels[topic]) for topic in qrels}


def drop_items(qrels: Mapping, removed: Mapping[str, Collection[str]]) -> Mapping:
    """The same qrels without the items `removed` (topic -> items), in the same order: qrels that drop rows
    themselves (ranking/columnar_qrels.py: no dict of every judgement for each team) do, dict qrels are filtered."""
    if hasattr(qrels, "without"):
        return qrels.without(removed)
    return {topic: {item: grade for item, grade in docs.items() if item not in removed.get(topic, ())}
            for topic, docs in as_dicts(qrels).items()}


def write_lines(path: str, lines: Sequence[str]) -> None:
    """A reference file as the task's loader reads it: UTF-8, one line each, \\n line ends."""
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.write("".join(line + "\n" for line in lines))


class Pooling:
    """What the campaign wing asks of a pooled task (module docstring). This base is a ranked pool: a task
    declares its reference writer and its reference's judgements; a pool of units overrides `ranked`, `units`
    and, when its units cite the organiser's files, `read_official`."""

    # Pooled to a depth: ranks 1..k of each run's ranking (Task.ranked_lists). False: every unit of every run.
    ranked: bool = True
    # The sheet's columns after `runs` (a ranked pool: the NTCIRPOOL order's evidence) and after the text (a pool
    # of units: the cells its units carry), in the order written.
    columns_after_runs: Tuple[str, ...] = ("rank_sum", "best_rank")
    columns_after_text: Tuple[str, ...] = ()
    # Every item carries a text an assessor judges (the sheet then always has text_sha1 and text columns).
    items_have_text: bool = False
    # The pool folder's sub-folder holding the organiser's files the units cite ("" when there are none).
    official_folder: str = ""
    # What a pool of units holds, as `runscore pool` says it ("pooled 5 run(s) of 3 team(s), <this>: ...").
    units_pooled: str = "every unit of every run"
    # The order of the items on the pages and in the sheet when `runscore pool --order` is not given: random
    # (seeded), docid or ntcirpool (campaign/pool.py ORDER_WHY). Random by default: NTCIRPOOL's order tells the
    # assessor which items the systems agreed on; a form that wants it says so here.
    order: str = "random"
    # The depth `runscore pool` takes when --depth is not given (an organiser's form says it); None: --depth is needed.
    depth: Optional[int] = None

    # ------------------------------------------------------------------------------ pooling ---
    def read_official(self, paths: Sequence[str]) -> Dict[str, Any]:
        """The organiser's files the units cite, by name, each with its `path` (ConfigError when one is unusable).
        None are read by a task whose units cite none."""
        return {}

    def units(self, run, path: str, official: Mapping[str, Any]) -> Tuple[List[PoolUnit], int]:
        """A pool of units: the units of one checked run read from file `path` (with the organiser's files
        `official`), and how many of its units cannot be pooled (they cite nothing found)."""
        raise NotImplementedError("a pool of units declares its units")

    # ------------------------------------------------------------------------------ judgements ---
    def write_reference(self, judged: JudgedPool, folder: str) -> Dict[str, Any]:
        """Write the reference files of one label per pooled item into `folder`; returns the task.yaml entries
        (after `task:`) that make the folder load."""
        raise NotImplementedError("a pooled task writes its reference folder")

    # ------------------------------------------------------------------------------ report ---
    def judged(self, reference: Any) -> Judged:
        """topic -> item -> grade of every item the reference judges."""
        return as_dicts(reference.qrels)

    def relevant(self, reference: Any) -> Dict[str, Set[str]]:
        """topic -> the items relevant at the task's most lenient level."""
        return {topic: {item for item, grade in docs.items() if grade > 0}
                for topic, docs in self.judged(reference).items()}

    def without(self, reference: Any, removed: Mapping[str, Collection[str]]) -> Any:
        """The same reference with the items `removed` (topic -> items) unjudged, as the task's loader would have
        read it from qrels without them (a topic left without a relevant item treated as the loader treats it)."""
        raise NotImplementedError("a ranked pool declares how its reference loses items")

