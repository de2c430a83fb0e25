"""What a participant may see of a phase: decided here, once, never in a task's page code.

Why: a phase whose reference data is hidden (the formal phase, any organiser's data) must not give its gold away on
the detailed results page or in the logs: a per-query correct/wrong table of a classification run is the label,
per-topic num_rel of one-document runs are the judgements, printed gold answers are the answers, and a table of
every measure (P@5, P@10, ... at two levels) of 100 one-topic runs decoded 1,200 grades in one submission. Three
levels, read from the reference folder's task.yaml key `detail:`:

  aggregate  (the default of a reference that does not say otherwise) each run's leaderboard columns, its format
             diagnostics and its receipt. By construction: a run's scores are cut to its columns the moment they
             are computed (view), so the page writer and the log printer hold no other value computed from the
             reference; the messages come from checks that read the task's public part of the reference only
             (pipeline.LoadedReference.for_checks). The columns are the channel, bounded by the runs a submission
             may hold and the submissions a team may make (codabench/channel.py, docs/codabench.md)
  per_topic  the organiser's choice to show more: the columns, every other aggregate measure that is not a count,
             each topic's effectiveness values (Task.per_topic_effectiveness: never num_rel and the like) and the
             comparison of the runs. A per-topic value is computed from that topic's judgements: the AP of a run
             holding one known relevant document is 1/num_rel; the channel is that much wider (channel.py)
  full       everything (the sample / dry-run phase: its reference data is public)

The test of it is indistinguishability (tests/test_disclosure_leaks.py): two hidden references that give a probe the
same leaderboard values give the same page, logs and scores files, and a rejected submission the same reason.
"""
import math
from dataclasses import replace
from typing import Any, Dict, List

from ..errors import ConfigError
from ..tasks.base import AGGREGATE, DISCLOSURE_LEVELS, FULL, PER_TOPIC, RunScores, Task

HIDDEN_DEFAULT = AGGREGATE

WHAT_EACH_LEVEL_SHOWS = {
    AGGREGATE: "each run's leaderboard columns, its format diagnostics and its receipt (run name, team, line count, "
               "SHA-256 of the file); no other value computed from the hidden reference (no other measure, "
               "per-topic values, gold answers or labels, per-item correctness or relevant counts), and a rejected "
               "submission shows its errors only",
    PER_TOPIC: "each run's aggregate measures, its per-topic effectiveness values (no relevant counts, gold answers "
               "or labels), its format diagnostics and its receipt; a per-topic value is computed from that topic's "
               "judgements (the AP of a run holding one known relevant document tells the topic's number of "
               "relevant documents)",
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
    """What of a run's scores a phase at `level` keeps, applied as soon as the run is scored (codabench/entry.py):
    aggregate keeps the leaderboard columns' values and nothing else (no other measure, note or table). A hidden
    phase keeps each column's value as the leaderboard shows it, rounded to the column's precision: Codabench
    stores a score with 10 decimals and serves it so (`/api/submissions/`, SubmissionScoreSerializer), so the
    scores files, the choice of the row's run and the page must hold no more digits than the channel counts
    (channel.py)."""
    if level == FULL:
        return scores
    columns = {c.measure for c in task.columns}
    shown = {k: shown_value(task, k, v) if k in columns else v for k, v in scores.measures.items()}
    if level == AGGREGATE:
        return RunScores({k: v for k, v in shown.items() if k in columns})
    measures = {k: v for k, v in shown.items() if k in columns or not task.is_count(k)}
    kept = effectiveness_keys(task)
    per_topic = {topic: {k: v for k, v in values.items() if k in kept} for topic, values in scores.per_topic.items()}
    notes = [n for n in scores.notes if shows(level, getattr(n, "shown_from", FULL))]
    tables = [t for t in scores.tables if shows(level, t.get("shown_from", FULL))]
    return replace(scores, measures=measures, per_topic=per_topic, notes=notes, tables=tables)


def shown_value(task: Task, measure: str, value: Any) -> Any:
    """A column's value at its precision (Task.format_value, the one text form of the page and the board); a
    value that is not a finite number is kept as it is (score.py refuses to store it)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
        return value
    return float(task.format_value(measure, value))


def effectiveness_keys(task: Task) -> List[str]:
    if task.per_topic_effectiveness is not None:
        return list(task.per_topic_effectiveness)
    return [k for k in task.per_topic_measures if not task.is_count(k)]


def comparison_shown(level: str) -> bool:
    """The significance tests between runs are computed from per-topic values."""
    return shows(level, PER_TOPIC)


def what_level_shows(level: str, unit: str = "topic") -> str:
    """WHAT_EACH_LEVEL_SHOWS[level] in the task's words: per-item or per-question values (Task.topic_unit) where a
    ranking task has per-topic ones, so that a classification's participant never reads of topics."""
    text = WHAT_EACH_LEVEL_SHOWS[level]
    if unit == "topic":
        return text
    text = text.replace(" (the AP of a run holding one known relevant document tells the topic's number of "
                        "relevant documents)", "")
    return text.replace("per-topic", "per-%s" % unit).replace("that topic's", "that %s's" % unit) \
        .replace("per-question tables", "per-%s tables" % unit)


def phase_sentence(level: str, unit: str = "topic") -> str:
    """One sentence for a page: what this phase shows."""
    return "This phase shows %s." % what_level_shows(level, unit)
