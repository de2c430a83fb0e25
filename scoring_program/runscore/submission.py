"""One judgement of a submission: which file is a run of which task, every file checked, the verdict.

Why one: `runscore validate`, `runscore check` and score.py answer the same question ("will these files be
accepted, and as what?"). They once found the runs in three ways and disagreed (a run that validate accepted
with a warning was "not a run of any task" on the platform). All three now call examine() or examine_files() and
differ only in how they print. The rules (docs/limits.md, "Which file is a run of which task"):

- a competition scores one task: every file of its submission is a run of that task except the files the task
  reads beside its runs (companions: r2c2-ac's PR runs); the task's own checks then say what is wrong with a file
  in another layout, whatever its name (discover.assign_tasks);
- `runscore check` without --task judges as the competition of the task the runs belong to; runs of several
  tasks are rejected, saying which competition takes which file;
- two runs of one name in one task (`ntc1` and `old/ntc1`) are an error: both would be scored and shown.

Hidden by construction. The caller says what each reference's phase shows (LoadedReference.detail) and whether it
collects runs (LoadedReference.collect, with its official topics); this module imports nothing of the platform.
Against a hidden reference every message comes from checks that read the task's public part of it only
(LoadedReference.for_checks: the official topics, never a judgement). A task whose runs are shaped by the whole
reference (Task.runs_need_reference: r2c2 joins labels while parsing) has each valid file parsed a second time
against it, and of that pass the participant learns one thing only: whether it rejected the file (HIDDEN_VERDICT,
counted as one error whatever it found).
"""
import os
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from .discover import Candidate, assign_tasks, list_candidates, list_file_candidates
from .errors import ERROR, Diagnostic, Diagnostics, RunError
from .pipeline import CheckedFile, LoadedReference, check_file, check_official_topics, check_run_limit
from .tasks.base import Task
from .textfile import read_again, submission_read_budget

SUBMISSION = "submission"       # the "file" of a finding about the submission as a whole
# The one line a file gets when the second pass against a hidden reference rejects it (see the module docstring).
HIDDEN_VERDICT = ("the run cannot be scored as sent against this phase's hidden reference data (for a replay "
                  "leaderboard: it differs from the run as it was assessed, or no assessed run has its name); what "
                  "differs is not shown in this phase (the competition's Overview page says what each phase shows)")


@dataclass
class Examination:
    """What the platform makes of a submission before scoring it: which file is a run of which task, every
    file's diagnostics, and the verdict."""

    candidates: List[Candidate]
    companions: List[Candidate]
    pairs: List[Tuple[Candidate, Task]]
    problems: List[Diagnostic]
    checked: Dict[str, CheckedFile]                  # by the file's display name
    checked_by_task: Dict[str, List[CheckedFile]]
    messages: List[str]
    failed: bool
    errors: int = 0          # findings of severity error, counted from the diagnostics' data (never from text)
    warnings: int = 0
    # The error lines of `messages` only: what a rejected submission of a hidden phase shows (the reason, nothing
    # else; a rejected submission costs a team nothing on Codabench, so it must tell no more than needed).
    reasons: List[str] = field(default_factory=list)


def examine(res_dir: str, workdir: str, tasks: Sequence[Task],
            references: Optional[Dict[str, LoadedReference]] = None,
            after_check: Optional[Callable[[Task, CheckedFile], None]] = None,
            one_competition: bool = False) -> Examination:
    """The submission in folder `res_dir` (nested zips opened into `workdir`), judged among `tasks`: score.py and
    `runscore check`, with the platform's caps (a submission is one team's). one_competition: the tasks are
    candidates, the runs' own task is the competition. `after_check` is called on each file once checked
    (score.py scores its runs there and frees their records, so memory does not add up over the files)."""
    return judge(list_candidates(res_dir, workdir), tasks, references, one_competition, True, True,
                 after_check=after_check)


def collecting_topics(task: Task, reference: LoadedReference, files: List[CheckedFile]) -> List[Diagnostic]:
    """A reference that collects runs (no judgements yet) may list the official topics: runs are checked
    against them."""
    if not (reference.collect and reference.topics):
        return []
    return [d for f in files for d in check_official_topics(task, f.display, f.runs, reference.topics)]


def examine_files(paths: Sequence[str], workdir: str, tasks: Sequence[Task],
                  references: Optional[Dict[str, LoadedReference]] = None, team_cap: bool = False,
                  max_errors: int = 50, options: Optional[Dict[str, Dict[str, Any]]] = None,
                  after_check: Optional[Callable[[Task, CheckedFile], None]] = None) -> Examination:
    """The files named on a command line (zips and folders opened as a submission's): `runscore validate` and
    `runscore score`. The platform's caps on a submission (its runs, the bytes read line by line) are not applied:
    an organiser rescoring a campaign names every team's runs at once; the campaign's per-team cap only with
    --team-cap; `options` ({task id: options}) are --option's when there is no reference. `after_check` as for
    examine (`runscore score` scores each file's runs there, so memory is bounded per file, not per call)."""
    return judge(list_file_candidates(paths, workdir), tasks, references, False, team_cap, False, max_errors,
                 options, after_check)


def judge(candidates: List[Candidate], tasks: Sequence[Task], references: Optional[Dict[str, LoadedReference]],
          one_competition: bool = False, team_cap: bool = True, submission_cap: bool = True, max_errors: int = 50,
          options: Optional[Dict[str, Dict[str, Any]]] = None,
          after_check: Optional[Callable[[Task, CheckedFile], None]] = None) -> Examination:
    """Discover the runs among `tasks` and check each file (against its task's reference data when `references`
    has it, as its phase lets a participant see: module docstring; else with the task's default options). Raises
    RunError when the submission holds no file at all, or only companion files. Callers open
    tasks.base.submission_scope() around it."""
    tasks = list(tasks)
    if not candidates:
        raise RunError("no run file found in the submission; expected %s" % expected(tasks), SUBMISSION)
    mixed: List[Diagnostic] = []
    if one_competition and len(tasks) > 1:
        owners = _owners(candidates, tasks)
        if len(owners) == 1:
            tasks = [t for t in tasks if t.id in owners]
        elif owners:
            mixed.append(Diagnostic(SUBMISSION, 0, ERROR, "runs of %d tasks in one submission, and a competition "
                                    "scores one task: %s; send each task's runs to its own competition (runscore "
                                    "check --task T checks them as it will)" % (len(owners), "; ".join(
                                        "the %s competition takes %s" % (t, _names(files))
                                        for t, files in owners.items()))))
    candidates, companions = _set_companions_aside(candidates, tasks)
    pairs, problems = assign_tasks(candidates, tasks)
    problems = list(problems) + _companion_problems(companions, tasks) + mixed
    if not pairs and not problems:   # only companion files: nothing to score
        raise RunError("the submission holds no run of %s, only files read beside such runs (%s); expected %s"
                       % (" or ".join(t.id for t in tasks), ", ".join(c.display for c in companions),
                          expected(tasks)), SUBMISSION)
    if not pairs:      # say once what was expected, unless every file's message already says it
        said = all("(expected " in p.message for p in problems)
        problems.append(Diagnostic(SUBMISSION, 0, ERROR, "no run of %s in the submission%s"
                                   % (" or ".join(t.id for t in tasks), "" if said else "; expected %s"
                                      % expected(tasks))))
    messages: List[str] = [str(p) for p in problems]
    reasons: List[str] = [str(p) for p in problems if p.severity == ERROR]
    checked: Dict[str, CheckedFile] = {}
    checked_by_task: Dict[str, List[CheckedFile]] = {}
    # On the platform the files read line by line share one byte budget (its defence against a submission that
    # would cost minutes and gigabytes); the command line's files are the user's own, read one at a time.
    with submission_read_budget() if submission_cap else nullcontext():
        for candidate, task in pairs:
            reference = (references or {}).get(task.id)
            chosen = reference.options if reference else (options or {}).get(task.id) or \
                task.resolve_options({}, "defaults")
            one = check_file(task, candidate.path, candidate.display, reference.for_checks() if reference else None,
                             chosen, max_errors)
            if reference is not None and reference.hidden and task.runs_need_reference and one.runs:
                one = _second_pass(task, candidate, reference, one, max_errors)
            checked[candidate.display] = one
            checked_by_task.setdefault(task.id, []).append(one)
            messages.extend(one.diags.lines())
            reasons.extend(_error_lines(one.diags))
            if after_check is not None and one.runs:
                after_check(task, one)
    for task_id, files in checked_by_task.items():
        task = [t for t in tasks if t.id == task_id][0]
        reference = (references or {}).get(task_id)
        if team_cap or submission_cap:     # the platform's rule (a submission is one team's; --team-cap asks for it)
            limits = check_run_limit(task, files, per_submission=submission_cap, one_team=True,
                                     cap=reference.runs_per_submission if reference else None,
                                     hidden=reference is not None and reference.hidden)
        else:                              # a researcher scoring every team's runs in one call
            limits = []
        found = _same_run_names(task, files) + limits
        if reference is not None:
            found += collecting_topics(task, reference, files)
        problems.extend(found)
        messages.extend(str(d) for d in found)
        reasons.extend(str(d) for d in found if d.severity == ERROR)
    # Counted from the diagnostics' data, never from printed text (a warning quoting ": error:" in a participant's
    # field must not reject the submission).
    errors = sum(1 for p in problems if p.severity == ERROR) + sum(c.diags.error_count for c in checked.values())
    warnings = sum(1 for p in problems if p.severity != ERROR) + \
        sum(c.diags.warning_count for c in checked.values())
    return Examination(candidates, companions, pairs, problems, checked, checked_by_task, messages, errors > 0,
                       errors, warnings, reasons)


def _second_pass(task: Task, candidate: Candidate, reference: LoadedReference, public: CheckedFile,
                 max_errors: int) -> CheckedFile:
    """A file that passed the public checks of a hidden phase, parsed against the whole reference: its runs as
    the task scores them, and of its findings only whether there was an error (HIDDEN_VERDICT)."""
    with read_again():
        whole = check_file(task, candidate.path, candidate.display, reference, reference.options, max_errors,
                           name_other_task=False)
    if not whole.diags.has_errors:
        return CheckedFile(public.display, public.diags, whole.runs, whole.size)
    public.diags.error(0, HIDDEN_VERDICT)
    return CheckedFile(public.display, public.diags)


def _error_lines(diags: Diagnostics) -> List[str]:
    """The error lines of a file's report, and the note of how many more errors there were."""
    lines, items = diags.lines(), diags.sorted_items()
    out = [line for line, item in zip(lines, items) if item.severity == ERROR]
    return out + (lines[len(items):len(items) + 1] if diags.hidden_errors else [])


def expected(tasks: Sequence[Task]) -> str:
    return "; ".join("%s: %s" % (t.id, t.run_file_help) for t in tasks)


def _names(names: List[str], limit: int = 6) -> str:
    return ", ".join(names[:limit]) + (" ..." if len(names) > limit else "")


def _owners(candidates: List[Candidate], tasks: List[Task]) -> Dict[str, List[str]]:
    """{task id: its run files} among `tasks`, leaving out a file that another owner reads as a companion (an
    r2c2-ac submission's PR runs are r2c2-pr runs by name, and read beside the AC runs)."""
    runs, _ = _set_companions_aside(candidates, tasks)
    owners: Dict[str, List[str]] = {}
    for candidate, task in assign_tasks(runs, tasks)[0]:
        owners.setdefault(task.id, []).append(candidate.display)
    for owner in [t for t in tasks if t.id in owners]:
        for other in [t for t in list(owners) if t != owner.id]:
            kept = [f for f in owners[other] if not owner.claims_companion(os.path.basename(f))]
            if kept:
                owners[other] = kept
            else:
                del owners[other]
    return owners


def _same_run_names(task: Task, files: List[CheckedFile]) -> List[Diagnostic]:
    """Two files holding a run of the same name (ntc1 and old/ntc1): both would be scored and shown under one
    name."""
    first: Dict[str, str] = {}
    out = []
    for checked in files:
        for run in checked.runs:
            if run.name in first and first[run.name] != checked.display:
                out.append(Diagnostic(checked.display, 0, ERROR, "run %s of task %s is also in %s; each run is "
                                      "scored once: remove one file or give the runs different names"
                                      % (run.name, task.id, first[run.name])))
            first.setdefault(run.name, checked.display)
    return out


def _companion_problems(companions: List[Candidate], tasks: Sequence[Task]) -> List[Diagnostic]:
    """A companion file that cannot be read at all is reported as its own error, not as one of the runs citing
    it."""
    out = []
    for companion in companions:
        base = os.path.basename(companion.display)
        for task in tasks:
            if task.claims_companion(base):
                exc = task.companion_error(companion.path, companion.display)
                if exc is not None:
                    out.append(exc.diagnostic)
                    break
    return out


def _set_companions_aside(candidates: List[Candidate], tasks: Sequence[Task]):
    """Files that no task claims as a run but some task reads beside its runs (see Task.companion_pattern)."""
    runs, companions = [], []
    for candidate in candidates:
        base = os.path.basename(candidate.display)
        if not any(t.claims_name(base) for t in tasks) and any(t.claims_companion(base) for t in tasks):
            companions.append(candidate)
        else:
            runs.append(candidate)
    return runs, companions
