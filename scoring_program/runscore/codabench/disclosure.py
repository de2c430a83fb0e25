"""What a participant may see of a phase: decided here, once, never in a task's page code (issue 22).

Why: a phase whose reference data is hidden (the formal phase, any organiser's data) must not give its gold away on
the detailed results page or in the logs: a per-query correct/wrong table of a classification run is the label,
per-topic num_rel of one-document runs are the judgements, printed gold answers are the answers. Three levels, read
from the reference folder's task.yaml key `detail:`:

  aggregate  (the default of a reference that does not say otherwise) each run's aggregate measures (the leaderboard
             columns and every other measure that is not a count), its format diagnostics and its receipt; nothing
             computed from individual gold items: no per-topic values, no gold texts or labels, no per-item
             correctness, no relevant counts, no note naming topics without relevant documents, no comparison of runs
             (its p-values come from per-topic values)
  per_topic  the above plus each topic's effectiveness values (Task.per_topic_effectiveness: never num_rel and the
             like) and the comparison of the runs
  full       everything (the sample / dry-run phase: its reference data is public)

The test of it is indistinguishability (tests/test_disclosure_leaks.py): two hidden references that give a probe the
same aggregates give the same page, logs and scores files.
"""
from dataclasses import replace
from typing import Any, Dict, List, Tuple

from ..errors import ERROR, GOLD_DERIVED, WARNING, ConfigError, Diagnostics, findings_in
from ..tasks.base import AGGREGATE, DISCLOSURE_LEVELS, FULL, PER_TOPIC, RunScores, Task

HIDDEN_DEFAULT = AGGREGATE
WITHHELD = ("the run differs from what the hidden reference data records of it; which parts differ is not shown in "
            "this phase (the competition's Overview page says what each phase shows)")

WHAT_EACH_LEVEL_SHOWS = {
    AGGREGATE: "each run's aggregate measures, its format diagnostics and its receipt (run name, team, line count, "
               "SHA-256 of the file); nothing computed from individual reference items (no per-topic values, gold "
               "answers or labels, per-item correctness or relevant counts), so the page does not give the hidden "
               "items away",
    PER_TOPIC: "each run's aggregate measures, its per-topic effectiveness values (no relevant counts, gold answers "
               "or labels), its format diagnostics and its receipt",
    FULL: "everything: aggregate and per-topic measures, per-question tables with the gold answers or labels, and "
          "notes on the reference data",
}


def level_of(config: Dict[str, Any], where: str) -> str:
    """The level a reference folder's task.yaml asks for; a folder that does not say is hidden (aggregate)."""
    value = config.get("detail", HIDDEN_DEFAULT)
    if value not in DISCLOSURE_LEVELS:
        raise ConfigError("detail must be one of %s (what participants see of this phase), not %r"
                          % (", ".join(DISCLOSURE_LEVELS), value), where)
    return value


def shows(level: str, needed: str) -> bool:
    """Does a phase at `level` show what needs `needed`?"""
    return DISCLOSURE_LEVELS.index(level) >= DISCLOSURE_LEVELS.index(needed)


def view(task: Task, scores: RunScores, level: str) -> RunScores:
    """What of a run's scores a phase at `level` shows."""
    if level == FULL:
        return scores
    columns = {c.measure for c in task.columns}
    measures = {k: v for k, v in scores.measures.items() if k in columns or not task.is_count(k)}
    per_topic: Dict[str, Dict[str, float]] = {}
    if shows(level, PER_TOPIC):
        kept = effectiveness_keys(task)
        per_topic = {topic: {k: v for k, v in values.items() if k in kept} for topic, values in scores.per_topic.items()}
    notes = [n for n in scores.notes if shows(level, getattr(n, "shown_from", FULL))]
    tables = [t for t in scores.tables if shows(level, t.get("shown_from", FULL))]
    return replace(scores, measures=measures, per_topic=per_topic, notes=notes, tables=tables)


def effectiveness_keys(task: Task) -> List[str]:
    if task.per_topic_effectiveness is not None:
        return list(task.per_topic_effectiveness)
    return [k for k in task.per_topic_measures if not task.is_count(k)]


def comparison_shown(level: str) -> bool:
    """The significance tests between runs are computed from per-topic values."""
    return shows(level, PER_TOPIC)


def diagnostic_lines(diags: Diagnostics, level: str) -> List[str]:
    """A file's printable findings at `level`: a finding computed from individual gold items (code GOLD_DERIVED)
    is replaced, in a hidden phase, by one line per severity that says no more than that there is one."""
    if level == FULL:
        return diags.lines()
    items = diags.sorted_items()
    out = [str(d) for d in items if d.code != GOLD_DERIVED]
    for severity in (ERROR, WARNING):
        if any(d.code == GOLD_DERIVED and d.severity == severity for d in items):
            out.append("%s: %s: %s" % (diags.path, severity, WITHHELD))
    return out + diags.lines()[len(items):]


def shown_counts(diags: Diagnostics, level: str) -> Tuple[int, int]:
    """(errors, warnings) of a file as a phase at `level` tells them: the findings computed from gold items count
    as one (their number would say how many parts differ from the hidden record)."""
    if level == FULL:
        return diags.error_count, diags.warning_count
    counts = []
    for severity, total in ((ERROR, diags.error_count), (WARNING, diags.warning_count)):
        withheld = [d for d in diags.items if d.code == GOLD_DERIVED and d.severity == severity]
        counts.append(total - sum(findings_in(str(d)) for d in withheld) + (1 if withheld else 0))
    return counts[0], counts[1]


def phase_sentence(level: str) -> str:
    """One sentence for a page: what this phase shows."""
    return "This phase shows %s." % WHAT_EACH_LEVEL_SHOWS[level]
