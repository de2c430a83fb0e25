"""The formal runs as an organiser holds them: run files, folders, and submission zips downloaded from Codabench.

Why a module of its own: a pool must be built from exactly the runs the formal phase accepted, checked by the same
code (submission.py`s `examine`: discovery, every file's checks, the per-team caps), and a download from
Codabench names each file `{id}_{owner}_PhaseId{phase}_{date}_{file}` (specs/campaign.md 4.4), where the id orders
resubmissions and the owner is the team when the run names do not tell it. Each argument is one submission.
"""
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from ..errors import ConfigError, RunError
from ..tasks.base import ParsedRun, Task

# {id}_{owner}_PhaseId{phase}_{created:%Y-%m-%d:%M-%S}_{file} (Codabench src/apps/api/views/submissions.py)
CODABENCH_NAME = re.compile(r"(?P<id>[0-9]+)_(?P<owner>.+?)_PhaseId(?P<phase>[0-9]+)_"
                            r"(?P<date>[0-9]{4}-[0-9]{2}-[0-9]{2}:[0-9]{2}-[0-9]{2})_(?P<file>.+)")


@dataclass
class Submission:
    """One submission: where it came from, the Codabench id and owner when its name tells them, its valid runs
    (empty when it failed the checks) with the file each came from, and every message the checks gave."""

    source: str
    owner: str = ""
    number: Optional[int] = None
    runs: List[Tuple[ParsedRun, str]] = field(default_factory=list)      # (run, file path on disk)
    companions: List[str] = field(default_factory=list)                  # paths of files read beside runs
    messages: List[str] = field(default_factory=list)
    failed: bool = False


def codabench_parts(name: str) -> Optional[Dict[str, str]]:
    """The parts of a Codabench download name (id, owner, phase, date, file), or None."""
    match = CODABENCH_NAME.fullmatch(os.path.basename(name))
    return match.groupdict() if match else None


def read_submission(source: str, task: Task, workdir: str, reference=None) -> Submission:
    """Check one submission exactly as the formal phase does; its valid runs, or its messages when it fails."""
    from ..submission import examine
    from ..tasks.base import submission_scope

    if not os.path.exists(source):
        raise ConfigError("run or submission %r does not exist" % source)
    parts = codabench_parts(source)
    submission = Submission(source, parts["owner"] if parts else "", int(parts["id"]) if parts else None)
    if os.path.isdir(source):
        res_dir = source
    else:
        res_dir = tempfile.mkdtemp(prefix="submission-", dir=workdir)
        shutil.copyfile(source, os.path.join(res_dir, parts["file"] if parts else os.path.basename(source)))
    try:
        with submission_scope():
            found = examine(res_dir, tempfile.mkdtemp(prefix="unpacked-", dir=workdir), [task],
                            {task.id: reference} if reference is not None else None)
    except RunError as exc:
        submission.messages, submission.failed = [str(exc.diagnostic)], True
        return submission
    # messages name files as the submission holds them; a downloaded file gets its folder in front (FILE:LINE)
    where = source if os.path.isdir(source) else os.path.dirname(source)
    submission.messages = [os.path.join(where, m) if where else m for m in found.messages]
    submission.failed = found.failed
    submission.companions = [c.path for c in found.companions]
    if not found.failed:
        by_display = {c.display: c.path for c in found.candidates}
        for checked in found.checked_by_task.get(task.id, []):
            for run in checked.runs:
                submission.runs.append((run, by_display[checked.display]))
    return submission


def read_submissions(sources: Sequence[str], task: Task, workdir: str, reference=None) -> List[Submission]:
    """Every submission, in Codabench id order when the names carry ids (argument order otherwise), so that a
    later submission of a run name replaces an earlier one."""
    found = [read_submission(s, task, workdir, reference) for s in sources]
    return sorted(found, key=lambda s: (s.number is None, s.number or 0))
