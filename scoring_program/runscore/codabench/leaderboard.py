"""The leaderboard of a competition: its columns, keyed exactly as score.py writes its scores, titled within
Codabench's limits, each sorted by its measure's better direction.

Why checked here: a column key that differs from the key score.py writes shows `n/a` silently on Codabench, and a
column sorted the wrong way ranks the worst run first; both come from the task's own declarations (Task.columns,
Task.better), so a bundle cannot disagree with its scoring program. The linter reads score_keys too.
"""
import re
from typing import Dict, List, Sequence, Tuple

from ..errors import ConfigError
from ..tasks.base import SORTING, Task

MAX_KEY = 36          # Codabench column key and title limits (CB LeaderboardSerializer)
MAX_TITLE = 36
KEY_PATTERN = re.compile(r"[a-z0-9_]+")
LEADERBOARD_KEY = "main"
# Codabench posts a finished submission by the leaderboard's rule (src/apps/leaderboards/strategies.py):
# Force_Latest_Multiple is AllModeStrategy, which posts EVERY finished submission at once, so a team that submits
# several runs sees each ranked; Add, Add_And_Delete and Add_And_Delete_Multiple fall through to
# ManualModeStrategy (nothing is posted until the participant adds it by hand); Force_Last and Force_Best keep one
# row per participant. See docs/codabench.md.
LEADERBOARD_RULE = "Force_Latest_Multiple"


def shorten_title(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters at a word boundary, with an ellipsis ("DS2-QA Exact match
    (SQuAD…", never "… (SQuAD normali...")."""
    if len(text) <= limit:
        return text
    cut = text[:limit - 1]
    if " " in cut.strip():
        cut = cut[:cut.rstrip().rindex(" ")]
    return cut.rstrip(" (-,;:/") + "\u2026"


def column_titles(tasks: Sequence[Task]) -> Dict[Tuple[str, str], str]:
    """Display title of every (task id, column key): the column's own title when the bundle has one task,
    else prefixed by the task's short tag (Task.tag, or its id), cut to 36 characters."""
    titles = {}
    for task in tasks:
        prefix = (task.tag or task.id) if len(tasks) > 1 else ""
        for column in task.columns:
            title = "%s %s" % (prefix, column.title) if prefix else column.title
            title = shorten_title(title, MAX_TITLE)
            titles[(task.id, column.key)] = title
    seen: Dict[str, Tuple[str, str]] = {}
    for where, title in titles.items():
        if title in seen:
            raise ConfigError("leaderboard column title %r is used by %s and %s; give the columns distinct "
                              "titles" % (title, "/".join(seen[title]), "/".join(where)))
        seen[title] = where
    return titles


def leaderboard_columns(tasks: Sequence[Task]) -> List[Dict]:
    """Every column of every task, in registry order, keyed exactly as score.py writes them."""
    titles = column_titles(tasks)
    columns, keys = [], {}
    for task in tasks:
        for column in task.columns:
            key = task.leaderboard_key(column)
            if not KEY_PATTERN.fullmatch(key) or len(key) > MAX_KEY:
                raise ConfigError("leaderboard key %r of task %s must be [a-z0-9_] and at most %d characters"
                                  % (key, task.id, MAX_KEY))
            if key in keys:
                raise ConfigError("leaderboard key %r is declared twice (tasks %s and %s)" % (key, keys[key],
                                                                                            task.id))
            keys[key] = task.id
            check_column_direction(task, column.key)
            columns.append({"title": titles[(task.id, column.key)], "key": key, "index": len(columns),
                            "sorting": column.sorting, "precision": column.precision})
    return columns


def check_column_direction(task: Task, key: str) -> None:
    """A column sorts by its measure's better direction (the measure registry's, Task.better), and a column
    whose measure has none (a description such as OB or a count) comes after every ranked column: Codabench
    breaks ties on the primary column by the others from left to right, so a description placed earlier would
    rank, say, the more overconfident of two runs higher."""
    columns = list(task.columns)
    index = [c.key for c in columns].index(key)
    column = columns[index]
    better = task.better(column.measure)
    if better is not None and column.sorting != SORTING[better]:
        raise ConfigError("leaderboard column %s of task %s sorts %s, but %s is better %s: declare sorting=%r"
                          % (column.key, task.id, column.sorting, column.measure, better, SORTING[better]))
    if better is None and index == 0:
        raise ConfigError("the primary column %s of task %s has no better direction" % (column.key, task.id))
    later = [c.key for c in columns[index + 1:] if task.better(c.measure) is not None]
    if better is None and later:
        raise ConfigError("leaderboard column %s of task %s ranks nothing (its measure has no better direction) "
                          "but comes before the ranked column(s) %s, so it would break ties: move it after them"
                          % (column.key, task.id, ", ".join(later)))


def score_keys(tasks: Sequence[Task]) -> List[str]:
    """The keys score.py writes when its reference data holds these tasks."""
    return [task.leaderboard_key(column) for task in tasks for column in task.columns]
