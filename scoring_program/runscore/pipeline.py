"""The stages wired together once: reference + options, check every file, score every valid run.

Why: the CLI (`validate`, `score`) and the Codabench entry (`score.py`) must behave identically, so both
call these functions and differ only in how they print.
"""
import os
import re
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from .discover import Candidate, accepts, read_head
from .errors import ERROR, WARNING, ConfigError, Diagnostic, Diagnostics, RunError
from .tasks.base import FULL, ParsedRun, RunScores, Task, read_task_yaml, short_repr


# Which run of a submission fills the leaderboard row (task.yaml `leaderboard_run:`): the team's primary run (its
# lowest run number, Task.run_number), or the best by the primary measure. A hidden phase defaults to primary, so
# that sending many runs is no free multiple testing; the shipped sample data says `best` (docs/codabench.md).
LEADERBOARD_RUNS = ("primary", "best")


MODES = ("score", "collect")


@dataclass
class LoadedReference:
    """A task's reference folder, read. collect: its task.yaml says `mode: collect` (a formal phase before the
    judgements exist: runs are checked and receipted, never scored, codabench/collect.py); data is then None and
    topics the official topics it may list."""

    task: Task
    path: str
    options: Dict[str, Any]
    data: Any
    collect: bool = False
    topics: Optional[List[str]] = None
    leaderboard_run: str = "primary"
    runs_per_submission: Optional[int] = None    # task.yaml's cap on a submission's runs (None: the task's own)
    # What a participant may see of a phase scored against it (codabench/disclosure.py): the platform sets it from
    # task.yaml's `detail:`; the command line, whose user holds the reference, sees everything.
    detail: str = FULL
    _public: Optional["LoadedReference"] = field(default=None, repr=False, compare=False)

    @property
    def hidden(self) -> bool:
        """Is the reference hidden from the participants (a phase that shows less than everything)?"""
        return self.detail != FULL

    def for_checks(self) -> "LoadedReference":
        """What the checks of a run read: the whole reference in a phase that shows everything; in a hidden phase
        the task's public part of it (Task.public_reference: the official topics, QRCD's passages), so that no
        message a participant sees can be computed from a hidden judgement, label or answer. Made once."""
        if not self.hidden or self.data is None:
            return self
        if self._public is None or self._public.detail != self.detail:
            self._public = replace(self, data=self.task.public_reference(self.data), _public=None)
        return self._public


def load_reference(task: Task, ref_path: str, overrides: Optional[Dict[str, Any]] = None) -> LoadedReference:
    """Options come from task.yaml (`options:`), then `overrides` (command line); then the reference is read."""
    if not os.path.exists(ref_path):
        raise ConfigError("reference %r does not exist" % ref_path)
    raw: Dict[str, Any] = {}
    where = ref_path
    config: Dict[str, Any] = {}
    if os.path.isdir(ref_path):
        own = os.path.join(ref_path, task.id)
        if not os.path.exists(os.path.join(ref_path, "task.yaml")) and os.path.isdir(own):
            # the tree of every task's folders (reference_data/): say which folder, rather than read it as one
            raise ConfigError("%s holds a reference folder per task, not one task's reference: give --ref %s"
                              % (ref_path, own))
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
    rule, cap = _submission_settings(config, where)
    mode = config.get("mode", "score")
    if mode not in MODES:
        raise ConfigError("mode must be score or collect, not %r" % (mode,), where)
    if mode == "collect":
        topics = config.get("topics")
        if topics is not None and not (isinstance(topics, list) and topics):
            raise ConfigError("topics must be a non-empty list of topic ids", where)
        return LoadedReference(task, ref_path, options, None, True, [str(t) for t in topics] if topics else None,
                               leaderboard_run=rule, runs_per_submission=cap)
    return LoadedReference(task, ref_path, options, task.load_reference(ref_path, options), leaderboard_run=rule,
                           runs_per_submission=cap)


def _submission_settings(config: Dict[str, Any], where: str) -> Tuple[str, Optional[int]]:
    """task.yaml's `leaderboard_run` (primary | best) and `runs_per_submission` (a positive integer), checked."""
    rule = config.get("leaderboard_run", "primary")
    if rule not in LEADERBOARD_RUNS:
        raise ConfigError("leaderboard_run must be one of %s, not %s"
                          % (", ".join(LEADERBOARD_RUNS), short_repr(rule)), where)
    cap = config.get("runs_per_submission")
    if cap is not None and (isinstance(cap, bool) or not isinstance(cap, int) or cap < 1):
        raise ConfigError("runs_per_submission must be a positive integer, not %s" % short_repr(cap), where)
    return rule, cap


@dataclass
class CheckedFile:
    display: str
    diags: Diagnostics
    runs: List[ParsedRun] = field(default_factory=list)
    size: int = 0            # bytes of the file (RunQueue holds a bounded number of them before scoring)


def check_file(task: Task, path: str, display: str, reference: Optional[LoadedReference],
               options: Dict[str, Any], max_errors: int = 50, name_other_task: bool = True) -> CheckedFile:
    """Parse and check one run file; never raises for a bad run (the problem becomes a diagnostic).
    name_other_task: say when the file looks like a run of another task (off when testing whether a task accepts
    a file, discover.accepts)."""
    runs, diags = task.read_file(path, display, reference.data if reference else None, options, max_errors)
    if name_other_task:
        _say_other_task(task, path, display, diags)
    runs = runs if not diags.has_errors else []
    for run in runs:
        run.teams = task.teams_named(run)
        run.team = task.team_of(run)
    return CheckedFile(display, diags, runs, _size(path) if runs else 0)


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _say_other_task(task: Task, path: str, display: str, diags: Diagnostics) -> None:
    """When the file looks like a run of another task and not of this one, say which, whatever its name (a
    file in the wrong task's format is told so at every door): with the errors it causes (an error), or beside the warnings of a task that reads it anyway (a warning).
    Said once: a task's own layout check (Task.wrong_layout) may have said it already."""
    if any("looks like a run of task" in d.message for d in diags.sorted_items()):
        return
    try:
        head = read_head(path)
    except OSError:
        return
    if task.sniff(head):
        return
    # a run whose fields are split on spaces (which ntcir1-adhoc and Temporalia accept with a warning) is sniffed
    # with TABs for the spaces; the other task is named only when it accepts the file
    tabbed = None if "\t" in head else re.sub(r"(?m)[ ]+", "\t", re.sub(r"(?m)^[ ]+|[ ]+$", "", head))
    if tabbed is not None and task.sniff(tabbed):
        return
    other = task._other_task_claiming(head)
    if other is None and tabbed is not None:
        other = task._other_task_claiming(tabbed)
    if other is None or not accepts(other, Candidate(display, path)):    # a sniff is a guess; acceptance is not
        return
    message = "the file looks like a run of task %s, not of %s; a run of %s is %s" % (
        other.id, task.id, task.id, task.run_file_help)
    if diags.has_errors:
        diags.error(0, message)
    else:
        diags.warning(0, message)


def check_run_limit(task: Task, checked: Sequence[CheckedFile], per_team: bool = True,
                    per_submission: bool = True, one_team: bool = False,
                    cap: Optional[int] = None, hidden: bool = False) -> List[Diagnostic]:
    """The caps on a submission's runs of one task (docs/limits.md), as error diagnostics.

    one_team: the platform's rule (score.py, `runscore check`): a submission is one team's, so runs naming
    several teams (Task.teams_named) are an error, and the campaign's cap (`cap`, else Task.max_runs_per_team)
    counts every run of the submission, whatever names the files hold (five runs of made-up groups
    g1..g5 in one file passed a per-team count).
    per_team (without one_team): the cap counted per team as the run names tell it, for `--team-cap` on the
    command line, where a researcher rescoring a campaign may pass several teams' runs.
    per_submission: the platform's resource cap on runs of a task in one submission (Codabench stops a scoring
    program after 600 s), applied by score.py only.
    hidden: the phase's reference is hidden; a task whose campaign sets no cap then has Task.hidden_phase_runs
    (each run's leaderboard values are shown, and they are what a team learns of the hidden reference).
    """
    out: List[Diagnostic] = []
    files = [(c.display, r) for c in checked for r in c.runs]
    limit = cap if cap is not None else (task.hidden_phase_cap if hidden and one_team else task.max_runs_per_team)
    if one_team:
        out.extend(_several_teams(task, files))
        if limit is not None and len(files) > limit:
            rule = "the campaign's rule" if cap is not None or limit == task.max_runs_per_team else \
                "the rule of a phase whose reference data is hidden: every run's scores are shown"
            out.append(Diagnostic(files[limit][0], 0, ERROR,
                                  "%d runs of task %s in the submission (%s); at most %d are allowed in a "
                                  "submission (%s; a submission is one team's)"
                                  % (len(files), task.id, _names([r.name for _, r in files]), limit, rule)))
    elif per_team and limit is not None:
        teams: Dict[str, List[Tuple[str, ParsedRun]]] = {}
        for display, run in files:
            team = task.team_of(run)
            if team:     # a run that names no team is its submitter's: files from many submitters (a campaign's
                teams.setdefault(team, []).append((display, run))     # rescoring) cannot be counted as one team
        for team, runs in teams.items():
            if len(runs) > limit:
                whose = "team %s" % team
                out.append(Diagnostic(runs[limit][0], 0, ERROR,
                                      "%d runs of %s for task %s in the submission (%s); at most %d per team are "
                                      "allowed" % (len(runs), whose, task.id, _names([r.name for _, r in runs]),
                                                   limit)))
    if per_submission and task.max_runs_per_submission is not None and len(files) > task.max_runs_per_submission:
        out.append(Diagnostic(files[task.max_runs_per_submission][0], 0, ERROR,
                              "%d runs of task %s in the submission; at most %d are scored in one submission "
                              "(docs/limits.md); send them in several submissions"
                              % (len(files), task.id, task.max_runs_per_submission)))
    return out


def check_official_topics(task: Task, display: str, runs: Sequence[ParsedRun],
                          topics: Sequence[str]) -> List[Diagnostic]:
    """Against an official topic list that comes without judgements (a collecting phase's task.yaml `topics:`):
    a run that answers none of the topics is an error, topics outside the list a warning, as the tasks' own
    reference checks do. A task that cannot tell a run's topics (Task.answered_topics None) is not checked."""
    official = task.official_topics(topics)
    out = []
    for run in runs:
        answered = task.answered_topics(run)
        if answered is None:
            continue
        unknown = [t for t in answered if t not in official]
        if answered and len(unknown) == len(answered):
            out.append(Diagnostic(display, 0, ERROR, "run %s answers none of the %d official topics"
                                  % (run.name, len(topics))))
        elif unknown:
            out.append(Diagnostic(display, 0, WARNING, "run %s: %d topic(s) are not official topics and will be "
                                  "ignored: %s" % (run.name, len(unknown), ", ".join(unknown[:10]))))
    return out


def _several_teams(task: Task, files: Sequence[Tuple[str, ParsedRun]]) -> List[Diagnostic]:
    """One error at the first run naming a second team, naming both teams and where each is named."""
    first: Optional[Tuple[str, str, str, int]] = None      # team, run, file, line
    for display, run in files:
        for team, line in (run.teams if run.teams is not None else task.teams_named(run)).items():
            if first is None:
                first = (team, run.name, display, line)
            elif team != first[0]:
                where = "%s:%d" % (first[2], first[3]) if first[3] else first[2]
                return [Diagnostic(display, line, ERROR,
                                   "run %s names team %s, but run %s names team %s (%s): a submission is one "
                                   "team's; send each team's runs in its own submission"
                                   % (run.name, team, first[1], first[0], where))]
    return []


def _names(names: List[str], limit: int = 6) -> str:
    return ", ".join(names[:limit]) + (" ..." if len(names) > limit else "")


def score_run(reference: LoadedReference, run: ParsedRun) -> RunScores:
    return score_runs(reference, [run])[0]


def score_runs(reference: LoadedReference, runs: Sequence[ParsedRun]) -> List[RunScores]:
    """The scores of each run, in order: a task may score many runs together for the cost of a few
    (Task.score_runs; ntcir1-adhoc measures a batch of small runs as one, ranking/run_batch.py)."""
    if reference.collect:
        raise ConfigError("the reference folder collects runs (mode: collect): it holds no judgements to score "
                          "against; score with the reference folder made from the judgements (docs/campaign.md)",
                          reference.path)
    return reference.task.score_runs(list(runs), reference.data, reference.options) if runs else []


# The bytes of run files whose parsed records RunQueue holds before it scores them (the records of a
# submission's runs must not add up in memory; a batch of small runs is scored for the cost of a few).
QUEUE_BYTES = 2 * 1024 * 1024


class RunQueue:
    """Runs queued as their files are checked and scored a batch at a time (score_runs), each handed to `scored`
    with its scores: score.py then frees the run's records. At most about QUEUE_BYTES of files wait unscored."""

    def __init__(self, reference: LoadedReference, scored: Callable[[ParsedRun, RunScores], None]):
        self.reference = reference
        self.scored = scored
        self.runs: List[ParsedRun] = []
        self.bytes = 0

    def add(self, checked: CheckedFile) -> None:
        self.runs.extend(checked.runs)
        self.bytes += checked.size
        if self.bytes >= QUEUE_BYTES:
            self.flush()

    def flush(self) -> None:
        if not self.runs:
            return
        runs, self.runs, self.bytes = self.runs, [], 0
        for run, scores in zip(runs, score_runs(self.reference, runs)):
            self.scored(run, scores)


class ScoreAsChecked:
    """Runs scored as soon as their file is checked (a RunQueue's batches) and their records then dropped, or
    reduced by `reduce` (run -> the data kept, e.g. Task.ranked_run's): a command reading a campaign's runs holds
    one batch of records at a time, whatever their total (`runscore score`, `runscore report`). scores(runs) gives
    what scoring every run after the checks would give: a scoring error is raised there, never before the checks'
    verdict, and a reference that collects runs scores nothing (score_runs says why)."""

    def __init__(self, reference: LoadedReference, reduce: Optional[Callable[[ParsedRun], Any]] = None):
        self.reduce = reduce
        self.scored: Dict[int, RunScores] = {}
        self.failure: Optional[Exception] = None
        self.queue = None if reference.collect else RunQueue(reference, self._keep)
        self.reference = reference

    def _keep(self, run: ParsedRun, scores: RunScores) -> None:
        self.scored[id(run)] = scores
        run.data = self.reduce(run) if self.reduce is not None else None

    def add(self, _task: Task, checked: CheckedFile) -> None:
        if self.queue is None or self.failure is not None:
            for run in checked.runs:
                run.data = None
            return
        try:
            self.queue.add(checked)
        except (RunError, ConfigError) as exc:
            self.failure = exc
            for run in self.queue.runs + checked.runs:
                run.data = None
            self.queue.runs = []

    def scores(self, runs: Sequence[ParsedRun]) -> List[RunScores]:
        if self.queue is None:
            return score_runs(self.reference, runs)
        if self.failure is None:
            try:
                self.queue.flush()
            except (RunError, ConfigError) as exc:
                self.failure = exc
        if self.failure is not None:
            raise self.failure
        return [self.scored[id(run)] for run in runs]


def leaderboard_run(task: Task, scored: List[Tuple[ParsedRun, RunScores]],
                    rule: str = "primary") -> Tuple[ParsedRun, RunScores, str]:
    """The run that fills the leaderboard row, and why, in words for the log and the detailed page.

    primary: the team's primary run, its lowest run number (Task.run_number; ties and unnumbered runs in
    submission order, numbered runs first); best: the best by the primary measure (best_run)."""
    if rule == "best":
        run, scores = best_run(task, scored)
        return run, scores, "the best of the %d runs by %s" % (len(scored), task.primary.title) \
            if len(scored) > 1 else "the submission's only run"
    numbers = [task.run_number(run) for run, _ in scored]
    chosen = min(range(len(scored)), key=lambda i: (numbers[i] is None, numbers[i] or 0, i))
    run, scores = scored[chosen]
    if len(scored) == 1:
        why = "the submission's only run"
    elif numbers[chosen] is None:
        why = "the team's primary run (no run has a run number: the first in the submission)"
    else:
        why = "the team's primary run (the lowest run number, %d, of the %d runs)" % (numbers[chosen], len(scored))
    return run, scores, why


def best_run(task: Task, scored: List[Tuple[ParsedRun, RunScores]]) -> Tuple[ParsedRun, RunScores]:
    """The run shown on the leaderboard: best by the primary measure; ties go to the first run."""
    primary = task.primary
    sign = 1 if primary.sorting == "desc" else -1
    best = scored[0]
    for candidate in scored[1:]:
        if sign * task.leaderboard_value(candidate[1], primary) > sign * task.leaderboard_value(best[1], primary):
            best = candidate
    return best
