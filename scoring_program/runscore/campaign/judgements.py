"""Filled sheets -> one label per pooled item, checked against the pool, every problem told at once.

Why this is strict: at NTCIR WWW-2/3/4 the assessment backend looked labels up by their position in a pool file
while two pool files existed, and three rounds of official results were wrong (specs/campaign.md 1.2). So a label
is found by (topic, item) only, and the sheets must cover exactly the pool: a pooled item nobody labelled, a label
outside the task's scale, an item or topic the pool does not hold, an item whose text hash differs from the pool's
(the sheet came from another pool, or the text changed), and the same item labelled differently (unless a
resolution rule is chosen: one summary line for all such items, the first named) are all errors, reported as `SHEET:LINE: error: topic T item I: ...`, and nothing is
written. Every problem here lies in the organiser's files, so it is a ConfigError (exit 2).

Lenient where that is safe: a label in any case, or as its number where the task's scale is numbered (the task's
reference loader reads numbers too: NTCIR-1's 3/2/1/0, TREC grades 0/1/2); sheets without the pool's informational
columns; CSV as a spreadsheet saves it (campaign/sheet.py). Several sheets labelling one item differently are
resolved only by a rule the organiser names: max, min, median (of the labels given, ordered on the scale; the
lower of the two middle ones when their number is even), or majority (the label most sheets gave; a tie goes to
the median, so three assessors always give one label and two who disagree give the lower label).
"""
import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from ..errors import ConfigError, ConfigErrors
from ..tasks import get_task
from .sheet import LABEL, QRELS, iter_sheet, read_sheet, scale_of

RESOLUTIONS = ("majority", "median", "max", "min")
# Rows of one sheet that are not in the pool before the sheet is given up as a sheet of another pool: a sheet is
# read row by row and never kept, so a sheet of a million foreign rows costs one pass up to here; the first
# SHOWN_NOT_IN_POOL of them are told one by one, the others counted.
MAX_ROWS_NOT_IN_POOL = 1000
SHOWN_NOT_IN_POOL = 20


@dataclass
class Judgements:
    """The pool's rows by (topic, item), the one label of each, and who gave which label."""

    task_id: str
    pool_rows: "Dict[Tuple[str, str], Dict[str, str]]"
    labels: Dict[Tuple[str, str], str]
    given: Dict[Tuple[str, str], Dict[str, str]] = field(default_factory=dict)    # key -> {sheet: label}
    sheets: List[str] = field(default_factory=list)
    resolved: int = 0          # items whose sheets disagreed and a resolution rule decided
    # --partial: topic -> (pooled items without a label, pooled items) of the topics left out of the reference
    incomplete: Dict[str, Tuple[int, int]] = field(default_factory=dict)
    notes: List[str] = field(default_factory=list)

    @property
    def topics(self) -> List[str]:
        return list(dict.fromkeys(topic for topic, _ in self.pool_rows))


def _where(topic: str, item: str) -> str:
    return "topic %s item %s" % (topic, item if len(item) <= 100 else item[:97] + "...")


def read_judgements(task_id: str, pool_path: str, sheet_paths: Sequence[str],
                    resolve: Optional[str] = None, on_disagreements: Optional[Callable] = None,
                    partial: bool = False) -> Judgements:
    """Check every sheet against the pool and return one label per pooled item (ConfigError with every problem).

    on_disagreements(items, pool_rows), when given, is called before any problem is raised with every item the
    sheets label differently ([((topic, item), {sheet: label})], resolved or not): the adjudication sheet is
    written even when the import is refused for them. partial: a topic with a pooled item no sheet labels is
    left out (Judgements.incomplete) instead of being an error; the other topics make the reference.
    A sheet may be a qrels file (sheet.py QRELS_COLUMNS: a previous round's judgements): its judgements of items
    the pool does not hold are counted (Judgements.notes), not errors, as a qrels covers other pools too."""
    if resolve is not None and resolve not in RESOLUTIONS:
        raise ConfigError("--resolve must be one of %s" % ", ".join(RESOLUTIONS))
    if not sheet_paths:
        raise ConfigError("no sheet given")
    if len(set(os.path.abspath(p) for p in sheet_paths)) != len(sheet_paths):
        raise ConfigError("a sheet is given twice; each sheet is one assessor's labels")
    columns, rows = read_sheet(pool_path, ConfigError)
    pool_rows: Dict[Tuple[str, str], Dict[str, str]] = {}
    pool_lines: Dict[Tuple[str, str], int] = {}
    with ConfigErrors() as problems:
        for row in rows:
            if row.key in pool_rows:
                problems.add(ConfigError("%s is listed twice in the pool (first at line %d)"
                                         % (_where(*row.key), pool_lines[row.key]), pool_path, row.line))
                continue
            pool_rows[row.key] = row.values
            pool_lines[row.key] = row.line
    pool_topics = {topic for topic, _ in pool_rows}
    given: Dict[Tuple[str, str], Dict[str, Tuple[str, int]]] = {}      # key -> {sheet: (label, line)}
    unlabelled: Dict[Tuple[str, str], List[Tuple[str, int]]] = {}
    problems = ConfigErrors(limit=200)
    notes: List[str] = []
    for sheet in sheet_paths:
        try:
            sheet_columns, sheet_rows = iter_sheet(sheet, ConfigError)
            hashed = "text_sha1" in columns
            if hashed and "text_sha1" not in sheet_columns:
                problems.add(ConfigError("the sheet has no text_sha1 column; the pool's items carry text, and a "
                                         "label is accepted only for the text it judged", sheet, 1))
                continue
            outside = _read_one_sheet(task_id, sheet, sheet_rows, hashed, pool_rows, pool_topics, given,
                                      unlabelled, problems)
            if outside:
                notes.append("%s: %d judgement(s) of this qrels file are of items the pool does not hold; left out"
                             % (sheet, outside))
        except ConfigError as exc:      # the sheet's layout is wrong from some line on: told with the rest
            problems.add(exc)
    incomplete: Dict[str, List[int]] = {}
    for key, line in pool_lines.items():
        if key in given:
            continue
        if partial:
            incomplete.setdefault(key[0], [0, 0])[0] += 1
            continue
        places = unlabelled.get(key) or [(pool_path, line)]
        for path, at in places:
            problems.add(ConfigError("%s: the pooled item has no label%s" % (_where(*key), "" if path != pool_path
                                                                             else " in any sheet"), path, at))
    labels: Dict[Tuple[str, str], str] = {}
    resolved = 0
    differing: List[Tuple[Tuple[str, str], Dict[str, Tuple[str, int]]]] = []
    for key, by_sheet in given.items():
        values = [label for label, _ in by_sheet.values()]
        if len(set(values)) == 1:
            labels[key] = values[0]
            continue
        choice = _resolve(values, scale_of(task_id, pool_rows[key]).labels, resolve)
        if choice is None:
            differing.append((key, by_sheet))
            continue
        labels[key] = choice
        resolved += 1
    if differing:
        # one line for all of them (a campaign's two assessors disagree on thousands of items): the first is named,
        # the whole list is the disagreements sheet (runscore judgements --disagreements FILE)
        key, by_sheet = differing[0]
        sheets = list(by_sheet)
        problems.add(ConfigError("%d item(s) are labelled differently by the sheets, the first %s: %s; choose "
                                 "--resolve majority, median, max or min, or have them adjudicated "
                                 "(--disagreements FILE writes them as a sheet)"
                                 % (len(differing), _where(*key),
                                    ", ".join("%s in %s:%d" % (by_sheet[s][0], s, by_sheet[s][1]) for s in sheets)),
                                 sheets[-1], by_sheet[sheets[-1]][1]))
    if on_disagreements is not None:
        on_disagreements([(key, {s: lab for s, (lab, _) in by_sheet.items()}) for key, by_sheet in given.items()
                          if len(set(lab for lab, _ in by_sheet.values())) > 1], pool_rows)
    if incomplete:
        for topic, _ in pool_rows:
            if topic in incomplete:
                incomplete[topic][1] += 1
        if len(incomplete) == len(pool_topics):
            problems.add(ConfigError("--partial: no topic has every pooled item labelled (%d topic(s), %d item(s) "
                                     "without a label); nothing to write"
                                     % (len(incomplete), sum(n for n, _ in incomplete.values())), pool_path))
        pool_rows = {key: row for key, row in pool_rows.items() if key[0] not in incomplete}
        labels = {key: label for key, label in labels.items() if key[0] not in incomplete}
        given = {key: by_sheet for key, by_sheet in given.items() if key[0] not in incomplete}
    problems.check()
    return Judgements(task_id, pool_rows, labels, {k: {s: lab for s, (lab, _) in v.items()} for k, v in given.items()},
                      list(sheet_paths), resolved, {t: (n, total) for t, (n, total) in incomplete.items()}, notes)


def _read_one_sheet(task_id, sheet, sheet_rows, hashed, pool_rows, pool_topics, given, unlabelled,
                    problems) -> int:
    """Every row of one sheet, read once and not kept: its labels go into `given`, its problems into `problems`;
    past MAX_ROWS_NOT_IN_POOL rows that the pool does not hold, the sheet is given up with one message. Returns how
    many judgements of a qrels file are of items outside the pool (skipped)."""
    seen: Dict[Tuple[str, str], Tuple[int, str]] = {}
    foreign = outside = 0
    form = None
    for row in sheet_rows:
        if row.values.get(QRELS):          # a qrels file spells topics its own way (31 for NTCIR-1's 0031)
            form = form or get_task(task_id).assessment
            row.values["topic"] = form.topic_key(row.values["topic"])
        topic, item = row.key
        pooled = pool_rows.get(row.key)
        if pooled is None and row.values.get(QRELS):
            outside += 1
            continue
        if pooled is None:
            foreign += 1
            if foreign > MAX_ROWS_NOT_IN_POOL:
                problems.add(ConfigError("more than %d rows of this sheet are not in the pool (%d of them not listed "
                                         "above); it is not a sheet of this pool, and reading stopped here"
                                         % (MAX_ROWS_NOT_IN_POOL, foreign - 1 - SHOWN_NOT_IN_POOL), sheet, row.line))
                return outside
            if foreign > SHOWN_NOT_IN_POOL:
                continue
            where = _where(topic, item)
            if topic not in pool_topics:
                problems.add(ConfigError("%s: topic %s is not in the pool" % (where, topic), sheet, row.line))
            else:
                problems.add(ConfigError("%s: the item is not in the pool of topic %s" % (where, topic),
                                         sheet, row.line))
            continue
        if hashed and row.values.get("text_sha1", "") != pooled.get("text_sha1", ""):
            problems.add(ConfigError("%s: text_sha1 %s differs from the pool's %s (the sheet comes from another "
                                     "pool, or the text changed); label the item again"
                                     % (_where(topic, item), row.values.get("text_sha1", "") or "(empty)",
                                        pooled.get("text_sha1", "")), sheet, row.line))
            continue
        label = row.values[LABEL].strip()
        if not label:
            unlabelled.setdefault(row.key, []).append((sheet, row.line))
            continue
        scale = scale_of(task_id, pooled)
        canonical = scale.canonical(label)
        if canonical is None:
            problems.add(ConfigError("%s: label %r is not on the scale of %s%s (%s)"
                                     % (_where(topic, item), label[:40], task_id,
                                        " %ss" % pooled["unit"] if pooled.get("unit") else "",
                                        scale.written_forms()), sheet, row.line))
            continue
        if row.key in seen:
            first_line, first_label = seen[row.key]
            if first_label != canonical:
                problems.add(ConfigError("%s: labelled %s here and %s at line %d of the same sheet"
                                         % (_where(topic, item), canonical, first_label, first_line),
                                         sheet, row.line))
            continue
        seen[row.key] = (row.line, canonical)
        given.setdefault(row.key, {})[sheet] = (canonical, row.line)
    if foreign > SHOWN_NOT_IN_POOL:
        problems.add(ConfigError("%d more rows are not in the pool (the first %d are listed)"
                                 % (foreign - SHOWN_NOT_IN_POOL, SHOWN_NOT_IN_POOL), sheet))
    return outside


def _resolve(values: List[str], scale: Sequence[str], rule: Optional[str]) -> Optional[str]:
    if rule == "max":
        return max(values, key=scale.index)
    if rule == "min":
        return min(values, key=scale.index)
    if rule == "median":
        return _median(values, scale)
    if rule == "majority":
        counts = Counter(values).most_common()
        if len(counts) > 1 and counts[0][1] == counts[1][1]:
            return _median(values, scale)       # the documented tie rule
        return counts[0][0]
    return None


def _median(values: List[str], scale: Sequence[str]) -> str:
    """The middle label of those given, ordered on the scale; the lower of the two middle ones for an even count
    (a label some assessor gave, never one between two)."""
    ordered = sorted(values, key=scale.index)
    return ordered[(len(ordered) - 1) // 2]
