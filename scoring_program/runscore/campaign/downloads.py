"""The one reader of a campaign's runs as an organiser holds them: Codabench downloads, loose zips, run files and
folders, for `runscore pool` and `runscore report` alike.

Why one reader: the pool must hold exactly the runs the formal phase accepted, and the report must score the same
runs, so both read the same inputs by the same rules. Each rule closes a way for one participant to change another's
standing (campaign/identity.py says where the platform's word comes from):

* a download is checked exactly as the platform checked it: unpacked as Codabench's worker unpacks an upload into
  input/res, then submission.examine (discovery, every file's checks, the per-submission caps, nested zips to
  the same depth);
* a run is (owner, run name): a later submission (higher Codabench id) replaces only the same owner's run of that
  name; the same name from two owners is an error naming both, or with allow_same_names both are kept as
  `name@owner`; two loose files of one team and run name are the same kind of error (no id orders them);
* companion files (r2c2-ac's PR runs) belong to the submission that sent them, each with a receipt;
* the campaign's cap counts an owner's runs over all their submissions (a cap per submission is split by sending
  three submissions): the runs with the lowest run numbers (Task.run_number) are kept, the others listed;
* with a Window, downloads of another phase or after the deadline are left out and listed; a deadline is decided
  by the platform's submission list only (a download's name gives the upload's date, not the submission's);
* a submission the platform's list gives as not Finished (Failed, Cancelled, never run) is left out: the pool
  takes exactly the runs the formal phase accepted;
* a download holding `metadata` or `metadata.yaml` at its top was run by Codabench as a program, and score.py
  refused what it wrote: it is refused here too (a program's zip is not its output);
* a loose input (not named as a download) cannot tell whose it is: its runs are credited to the team each run
  names (Task.team_of, else the run name without its number), and a note says so.

Callers open tasks.base.submission_scope() around reading (and scoring). Failed submissions are returned with their
messages; whether they stop the command is the caller's rule (--skip-invalid).
"""
import os
import tempfile
import zipfile
from dataclasses import dataclass, field, replace
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from ..codabench.receipt import Receipt, receipt_of
from ..discover import MAX_FOLDER_DEPTH, document_kind, ignored, safe_extract
from ..errors import ConfigError, RunError
from ..pipeline import CheckedFile, LoadedReference, check_file
from ..submission import examine
from ..tasks.base import ParsedRun, Task
from .identity import (DOWNLOAD_PATTERN, Origin, Window, deadline_needs_list, not_accepted, origin_of,
                       outside_window, read_submission_list, undecided_message, with_listing)
from .pool import default_team


@dataclass(frozen=True)
class Rules:
    """How the organiser asked the runs to be taken."""

    window: Window = Window()
    submission_list: Optional[str] = None      # the platform's CSV of submissions (full times, owners)
    allow_same_names: bool = False
    runs_per_owner: Optional[int] = None       # besides the task's own cap (the pool's --runs-per-team)


@dataclass
class TakenRun:
    """A run taken: its unique label (the run name, or name@owner), whose it is, and where it came from."""

    label: str
    run: ParsedRun
    path: str                 # the file on disk
    owner: str
    origin: Origin

    @property
    def vouched(self) -> bool:
        return self.origin.vouched


@dataclass
class Companion:
    """A file read beside runs (r2c2-ac's PR runs), as the submission that sent it holds it."""

    name: str                 # the file's name in the submission
    path: str
    owner: str
    origin: Origin
    receipt: Receipt


@dataclass
class CampaignInputs:
    runs: List[TakenRun] = field(default_factory=list)
    companions: List[Companion] = field(default_factory=list)
    messages: List[str] = field(default_factory=list)      # the checks' diagnostics, as FILE:LINE: severity: ...
    notes: List[str] = field(default_factory=list)         # what was replaced or left out, and why
    failed: List[str] = field(default_factory=list)        # inputs that failed the checks
    conflicts: List[str] = field(default_factory=list)     # same run name from two owners (an error)


@dataclass
class _Submission:
    origin: Origin
    runs: List[Tuple[ParsedRun, str]] = field(default_factory=list)      # (run, path)
    companions: List[Tuple[str, str]] = field(default_factory=list)      # (name, path)
    failed: bool = False


def read_campaign(task: Task, inputs: Sequence[str], workdir: str, reference: Optional[LoadedReference] = None,
                  rules: Rules = Rules(), max_errors: int = 50,
                  after_check: Optional[Callable[[Task, CheckedFile], None]] = None) -> CampaignInputs:
    """Every input checked as the formal phase checks it, then the identity rules (module docstring) applied.
    `after_check` sees each file's runs as soon as the file is checked: the caller keeps what it needs of them (a
    pool their top items, a report their scores and rankings) and drops their records, so a campaign is read
    with the memory of one run, whatever its size (the platform's per-submission budget is a submission's own:
    a download is checked as the platform checked it, the command line's loose files are the organiser's)."""
    found = CampaignInputs()
    listing = read_submission_list(rules.submission_list) if rules.submission_list else None
    downloads, loose = _classify(inputs)
    downloads = sorted((with_listing(origin_of(p), listing) for p in downloads), key=lambda o: o.submission)
    for before, after in zip(downloads, downloads[1:]):
        if before.submission == after.submission:
            raise ConfigError("submission %d is given twice (%s and %s); give each download once"
                              % (after.submission, before.source, after.source), after.source)
    _check_phases(downloads, rules.window)
    if rules.window.deadline is not None:
        refused = deadline_needs_list(downloads, listing is not None)
        if refused is not None:
            raise ConfigError(refused)
    undecided = [o for o in downloads if outside_window(o, rules.window) == "unknown"]
    if undecided:
        raise ConfigError(undecided_message(undecided, rules.window))
    submissions: List[_Submission] = []
    for origin in downloads:
        why = outside_window(origin, rules.window) or not_accepted(origin)
        if why is not None:
            found.notes.append("%s: warning: %s left out: %s" % (origin.source, origin.describe(), why))
            continue
        submissions.append(_read_download(task, origin, workdir, reference, found, after_check))
    loose_origins = []
    for path in loose:
        origin = Origin(path)
        loose_origins.append(origin)
        submissions.append(_read_loose(task, origin, workdir, reference, max_errors, found, after_check))
    if loose_origins:
        found.notes.append("%s: note: %s not a Codabench download as the platform names it (%s, given or in a folder "
                           "given), so the platform does not tell whose runs %s, which phase they were sent to or "
                           "when: a run's team is %s"
                           % (loose_origins[0].source, "%d inputs are" % len(loose_origins)
                              if len(loose_origins) > 1 else "this input is", DOWNLOAD_PATTERN,
                              "they hold" if len(loose_origins) > 1 else "it holds", task.team_rule))
    kept = [s for s in submissions if not s.failed]
    found.failed = [s.origin.source for s in submissions if s.failed]
    found.runs = _take_runs(task, kept, rules, found)
    found.companions = [Companion(name, path, s.origin.owner or "", s.origin, receipt_of(path, name, file=name))
                        for s in kept for name, path in s.companions]
    return found


# ------------------------------------------------------------------------------------ the inputs ---
def _classify(inputs: Sequence[str]) -> Tuple[List[str], List[str]]:
    """(downloads, loose inputs): a file or folder named as a download, given or directly inside a folder given,
    is one submission; another folder is read entry by entry (hidden files skipped, in name order,
    MAX_FOLDER_DEPTH deep at most). Deeper down a download name is not believed: only an organiser's folder of
    downloads holds them, and a participant's own files unpacked by hand could be named like a competitor's."""
    downloads: List[str] = []
    loose: List[str] = []

    def visit(path: str, depth: int) -> None:
        if depth <= 1 and origin_of(path).vouched:
            downloads.append(path)
        elif os.path.isdir(path):
            if depth >= MAX_FOLDER_DEPTH:
                raise ConfigError("folders nested more than %d deep" % MAX_FOLDER_DEPTH, path)
            for name in sorted(os.listdir(path)):
                if not ignored(name):
                    visit(os.path.join(path, name), depth + 1)
        elif os.path.isfile(path):
            loose.append(path)
        elif depth == 0:
            raise ConfigError("run or submission %r does not exist" % path)

    for item in inputs:
        visit(item, 0)
    if not downloads and not loose:
        raise ConfigError("no run given: name run files, folders of runs or submission zips")
    return downloads, loose


def _check_phases(downloads: List[Origin], window: Window) -> None:
    """Downloads of several phases need the formal phase named: a submission to another phase must never replace
    a formal run."""
    phases = sorted({o.phase for o in downloads})
    if window.phase is None and len(phases) > 1:
        raise ConfigError("the downloads were sent to %d phases (%s); name the formal phase with --phase ID (the "
                          "number after PhaseId in their names)" % (len(phases), ", ".join(str(p) for p in phases)))


def _read_download(task: Task, origin: Origin, workdir: str, reference, found: CampaignInputs,
                   after_check=None) -> _Submission:
    """One download checked as the platform checked it: the uploaded zip unpacked into a res folder as
    Codabench's worker does, then examined (nested zips opened to the platform's depth). A download that is no
    zip failed on the platform ("Bad or empty zip file") and fails here."""
    submission = _Submission(origin)
    where = origin.source
    if os.path.isdir(origin.source):
        res_dir = origin.source                  # a download unpacked already
        program = _program_file(res_dir)
        if program is not None:
            found.messages.append(_program_message(origin.source, program))
            submission.failed = True
            return submission
    else:
        res_dir = tempfile.mkdtemp(prefix="res-", dir=workdir)
        try:
            if not zipfile.is_zipfile(origin.source):
                raise RunError("not a zip file: Codabench accepts only zip uploads, so the platform did not score "
                               "this submission", origin.source)
            safe_extract(origin.source, res_dir, origin.source)
        except RunError as exc:
            found.messages.append(str(exc.diagnostic))
            submission.failed = True
            return submission
        program = _program_file(res_dir)
        if program is not None:
            found.messages.append(_program_message(origin.source, program))
            submission.failed = True
            return submission
    return _examine(task, submission, res_dir, where, workdir, reference, found, after_check)


PROGRAM_FILES = ("metadata", "metadata.yaml")


def _program_file(res_dir: str) -> Optional[str]:
    """The file that made Codabench run this upload as a program (compute_worker.py looks for metadata.yaml, then
    metadata, at the top of the unpacked zip), or None."""
    for name in sorted(os.listdir(res_dir)):
        if name.lower() in PROGRAM_FILES:
            return name
    return None


def _program_message(source: str, name: str) -> str:
    return ("%s: error: the submission holds %s at its top, so Codabench ran it as a program and score.py refused "
            "what it wrote (in every phase): it is no run the phase accepted" % (source, name))


def _examine(task: Task, submission: _Submission, res_dir: str, where: str, workdir: str, reference,
             found: CampaignInputs, after_check=None) -> _Submission:
    try:
        checked = examine(res_dir, tempfile.mkdtemp(prefix="unpacked-", dir=workdir), [task],
                          {task.id: reference} if reference is not None else None, after_check)
    except RunError as exc:
        shown = str(exc.diagnostic)
        found.messages.append(shown if shown.startswith(where) else "%s/%s" % (where.rstrip("/"), shown))
        submission.failed = True
        return submission
    found.messages.extend("%s/%s" % (where.rstrip("/"), m) for m in checked.messages)
    submission.failed = checked.failed
    if not checked.failed:
        paths = {c.display: c.path for c in checked.candidates}
        for one in checked.checked_by_task.get(task.id, []):
            submission.runs.extend((run, paths[one.display]) for run in one.runs)
        submission.companions = [(os.path.basename(c.display), c.path) for c in checked.companions]
    return submission


def _read_loose(task: Task, origin: Origin, workdir: str, reference, max_errors: int,
                found: CampaignInputs, after_check=None) -> _Submission:
    """A loose file: a document, image or program is refused as one (discover.document_kind); a zip is examined
    as a submission; a file the task reads beside runs is a companion (its own error when it cannot be read at
    all); any other file is a run file checked by the task."""
    submission = _Submission(origin)
    path = origin.source
    base = os.path.basename(path)
    # Before the zip test: a .docx is a zip inside, whose XML parts were read as runs (as in a submission).
    kind = document_kind(base, path, by_first_bytes=not task.claims_name(base))
    if kind is not None:
        found.messages.append("%s: error: %s, not a run: every file given is read as a run; leave it out of the "
                              "folder or the command line" % (path, kind))
        submission.failed = True
        return submission
    if zipfile.is_zipfile(path) and not task.claims_name(base):
        res_dir = tempfile.mkdtemp(prefix="res-", dir=workdir)
        try:
            safe_extract(path, res_dir, path)
        except RunError as exc:
            found.messages.append(str(exc.diagnostic))
            submission.failed = True
            return submission
        return _examine(task, submission, res_dir, path, workdir, reference, found, after_check)
    if task.claims_companion(base) and not task.claims_name(base):
        problem = task.companion_error(path, path)
        if problem is not None:
            found.messages.append(str(problem.diagnostic))
            submission.failed = True
        else:
            submission.companions.append((base, path))
        return submission
    options = reference.options if reference is not None else task.resolve_options({}, "defaults")
    one: CheckedFile = check_file(task, path, path, reference, options, max_errors)
    found.messages.extend(one.diags.lines())
    submission.failed = one.diags.has_errors
    if not submission.failed:
        if after_check is not None and one.runs:
            after_check(task, one)
        submission.runs = [(run, path) for run in one.runs]
    return submission


# ------------------------------------------------------------------------------------ the rules ---
def _take_runs(task: Task, submissions: List[_Submission], rules: Rules, found: CampaignInputs) -> List[TakenRun]:
    """(owner, name) identity, replacement by later submissions, same names across owners, the caps."""
    by_key: Dict[Tuple[str, str], TakenRun] = {}
    for submission in submissions:
        for run, path in submission.runs:
            owner = submission.origin.owner if submission.origin.vouched else default_team(task, run)
            entry = TakenRun(run.name, run, path, owner, submission.origin)
            earlier = by_key.get((owner, run.name))
            if earlier is not None and earlier.vouched and submission.origin.vouched and \
                    earlier.origin.submission != submission.origin.submission:
                found.notes.append("%s: note: run %s of %s replaces the one of their earlier submission %d"
                                   % (submission.origin.source, run.name, owner, earlier.origin.submission))
                del by_key[(owner, run.name)]
            elif earlier is not None:
                if not rules.allow_same_names:
                    found.conflicts.append("%s: error: run %s of %s is also in %s; a run is given once per owner "
                                           "(with --allow-same-names both are kept, as %s@FILE)"
                                           % (submission.origin.source, run.name, owner, earlier.origin.source,
                                              run.name))
                    continue
                entry.label = "%s@%s" % (run.name, submission.origin.source)
                by_key[(owner, entry.label)] = entry
                continue
            by_key[(owner, run.name)] = entry
    taken = _unique_labels(_same_names(list(by_key.values()), rules, found))
    return _capped(task, taken, rules, found)


def _same_names(entries: List[TakenRun], rules: Rules, found: CampaignInputs) -> List[TakenRun]:
    """One run name from two owners: an error naming both, or both kept as name@owner."""
    owners: Dict[str, List[TakenRun]] = {}
    for entry in entries:
        owners.setdefault(entry.label, []).append(entry)
    out = []
    for entry in entries:
        same = owners[entry.label]
        if len(same) == 1:
            out.append(entry)
            continue
        if not rules.allow_same_names:
            if entry is same[1]:
                found.conflicts.append(
                    "%s: error: run %s is sent by %d owners: %s; a run is (owner, name), and a name given by two "
                    "owners could replace or impersonate another's run: ask the teams, or keep each as %s@OWNER "
                    "with --allow-same-names" % (entry.origin.source, entry.label, len(same), "; ".join(
                        "%s (%s)" % (e.owner, e.origin.source) for e in same), entry.label))
            continue
        out.append(replace(entry, label="%s@%s" % (entry.label, entry.owner)))
    return out


def _unique_labels(entries: List[TakenRun]) -> List[TakenRun]:
    """Labels that name one run each: a participant may call a run `r1@alice` to meet the label of alice's `r1`;
    such a run (its label still its own name) gets its owner appended, and should labels still meet, each gets its
    submission, then a count."""
    steps = [(lambda e: e.label == e.run.name, lambda e, k: e.owner),
             (lambda e: True, lambda e, k: str(e.origin.submission or e.origin.source)),
             (lambda e: True, lambda e, k: str(k))]
    for applies, extra in steps:
        counts: Dict[str, int] = {}
        for entry in entries:
            counts[entry.label] = counts.get(entry.label, 0) + 1
        if all(n == 1 for n in counts.values()):
            break
        seen: Dict[str, int] = {}
        for entry in entries:
            if counts[entry.label] > 1 and applies(entry):
                seen[entry.label] = seen.get(entry.label, 0) + 1
                entry.label = "%s@%s" % (entry.label, extra(entry, seen[entry.label]))
    return entries


def _capped(task: Task, entries: List[TakenRun], rules: Rules, found: CampaignInputs) -> List[TakenRun]:
    """Each owner's runs within the campaign's cap and the organiser's, counted over all their submissions: the
    lowest run numbers kept (runs without one after, in submission order), the others listed."""
    limits = [n for n in (task.max_runs_per_team, rules.runs_per_owner) if n is not None]
    if not limits:
        return entries
    limit = min(limits)
    by_owner: Dict[str, List[Tuple[int, TakenRun]]] = {}
    for order, entry in enumerate(entries):
        by_owner.setdefault(entry.owner, []).append((order, entry))
    dropped = set()
    for owner, owned in by_owner.items():
        if len(owned) <= limit:
            continue
        ranked = sorted(owned, key=lambda oe: (_number_key(task, oe[1].run), oe[0]))
        kept, left = ranked[:limit], ranked[limit:]
        whose = "%s (the team its runs name)" % owner if not owned[0][1].vouched else owner
        sent = sorted({e.origin.submission for _, e in owned if e.origin.submission is not None})
        for _, entry in left:
            dropped.add(id(entry))
            found.notes.append("%s: warning: run %s of %s left out: %s sent %d runs of %s%s and at most %d %s taken "
                               "(kept: %s, the lowest run numbers)"
                               % (entry.origin.source, entry.label, owner, whose, len(owned), task.id,
                                  " in submissions %s" % ", ".join(str(n) for n in sent) if len(sent) > 1 else "",
                                  limit, "is" if limit == 1 else "are", ", ".join(e.label for _, e in kept)))
    return [e for e in entries if id(e) not in dropped]


def _number_key(task: Task, run: ParsedRun) -> Tuple[int, int]:
    number = task.run_number(run)
    return (0, number) if number is not None else (1, 0)

