"""The stages wired together once: reference + options, check every file, score every valid run.

Why: the CLI (`validate`, `score`) and the Codabench entry (`score.py`) must behave identically, so both
call these functions and differ only in how they print.
"""
import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .errors import ConfigError, Diagnostics, RunError
from .tasks.base import ParsedRun, RunScores, Task, read_task_yaml


@dataclass
class LoadedReference:
    task: Task
    path: str
    options: Dict[str, Any]
    data: Any


def load_reference(task: Task, ref_path: str, overrides: Optional[Dict[str, Any]] = None) -> LoadedReference:
    """Options come from task.yaml (`options:`), then `overrides` (command line); then the reference is read."""
    if not os.path.exists(ref_path):
        raise ConfigError("reference %r does not exist" % ref_path)
    raw: Dict[str, Any] = {}
    where = ref_path
    if os.path.isdir(ref_path):
        config = read_task_yaml(ref_path)
        where = os.path.join(ref_path, "task.yaml")
        declared = config.get("task")
        if declared is not None and declared != task.id:
            raise ConfigError("task.yaml is for task %r, not %r" % (declared, task.id), where)
        raw = config.get("options") or {}
        if not isinstance(raw, dict):
            raise ConfigError("options must be a mapping of option names to values", where)
    raw = dict(raw)
    raw.update(overrides or {})
    options = task.resolve_options(raw, where)
    return LoadedReference(task, ref_path, options, task.load_reference(ref_path, options))


@dataclass
class CheckedFile:
    display: str
    diags: Diagnostics
    runs: List[ParsedRun] = field(default_factory=list)


def check_file(task: Task, path: str, display: str, reference: Optional[LoadedReference],
               options: Dict[str, Any], max_errors: int = 50) -> CheckedFile:
    """Parse and check one run file; never raises for a bad run (the problem becomes a diagnostic)."""
    diags = Diagnostics(display, max_errors)
    runs: List[ParsedRun] = []
    try:
        runs = task.parse(path, display, diags, reference.data if reference else None, options)
    except RunError as exc:
        diags.add(exc.diagnostic)
    return CheckedFile(display, diags, runs if not diags.has_errors else [])


def check_run_limit(task: Task, checked: Sequence[CheckedFile]) -> List[str]:
    """A task may cap how many runs one submission holds (e.g. 3 per team)."""
    runs = [r for c in checked for r in c.runs]
    if task.max_runs_per_submission is not None and len(runs) > task.max_runs_per_submission:
        return ["%s: error: %d runs of task %s in the submission; at most %d are allowed"
                % (checked[0].display, len(runs), task.id, task.max_runs_per_submission)]
    return []


def score_run(reference: LoadedReference, run: ParsedRun) -> RunScores:
    return reference.task.score(run, reference.data, reference.options)


def best_run(task: Task, scored: List[Tuple[ParsedRun, RunScores]]) -> Tuple[ParsedRun, RunScores]:
    """The run shown on the leaderboard: best by the primary measure; ties go to the first run."""
    primary = task.primary
    sign = 1 if primary.sorting == "desc" else -1
    best = scored[0]
    for candidate in scored[1:]:
        if sign * task.leaderboard_value(candidate[1], primary) > sign * task.leaderboard_value(best[1], primary):
            best = candidate
    return best
