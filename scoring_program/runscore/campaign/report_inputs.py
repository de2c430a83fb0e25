"""The runs of a report: run files, folders of runs and submission zips, read and checked through the task.

Why a module of its own: a report must score exactly what `runscore score` scores, so every file goes through the
task's own parser and checks (pipeline.check_file), a submission zip through the platform's own discovery
(submission.examine), and the campaign's per-team caps apply across everything given. Any invalid run stops
the report with every message, before anything is written.
"""
import os
import zipfile
from dataclasses import dataclass, field
from typing import List, Sequence

from .. import compare as analysis
from ..errors import ConfigError
from ..pipeline import CheckedFile, LoadedReference, check_file, check_run_limit, score_runs
from ..tasks.base import submission_scope
from .overview import CampaignRun
from .pool import default_team


@dataclass
class ReadRuns:
    runs: List[CampaignRun]
    messages: List[str] = field(default_factory=list)      # every diagnostic, as FILE:LINE: severity: message
    failed: bool = False


def run_paths(inputs: Sequence[str]) -> List[str]:
    """Files and zips as given; a folder's regular files (hidden ones skipped) in name order."""
    paths = []
    for item in inputs:
        if os.path.isdir(item):
            for name in sorted(os.listdir(item)):
                path = os.path.join(item, name)
                if not name.startswith(".") and os.path.isfile(path):
                    paths.append(path)
        elif os.path.isfile(item):
            paths.append(item)
        else:
            raise ConfigError("%s does not exist" % item)
    if not paths:
        raise ConfigError("no run given: name run files, folders of runs or submission zips")
    return paths


def read_runs(reference: LoadedReference, inputs: Sequence[str], workdir: str, max_errors: int = 50) -> ReadRuns:
    """Check every run (submission zips through the platform's discovery, unpacked under `workdir`, which the
    caller removes after the report is written), apply the per-team caps over all of them, and score the valid
    ones with the task's own scorer. Nothing is scored when anything failed."""
    from ..submission import examine
    from ..discover import safe_extract

    task = reference.task
    checked: List[CheckedFile] = []
    messages: List[str] = []
    failed = False
    with submission_scope():
        for number, path in enumerate(run_paths(inputs)):
            if zipfile.is_zipfile(path) and not task.claims_name(os.path.basename(path)):
                res = os.path.join(workdir, "submission-%d" % number)
                os.makedirs(res)
                safe_extract(path, res, os.path.basename(path))
                found = examine(res, os.path.join(workdir, "work-%d" % number), [task], {task.id: reference})
                messages.extend("%s/%s" % (os.path.basename(path), m) for m in found.messages)
                failed = failed or found.failed
                checked.extend(found.checked_by_task.get(task.id, []))
            else:
                one = check_file(task, path, path, reference, reference.options, max_errors)
                messages.extend(one.diags.lines())
                failed = failed or one.diags.has_errors
                checked.append(one)
        limits = check_run_limit(task, checked, per_team=True, per_submission=False)
        messages.extend(str(d) for d in limits)
        failed = failed or bool(limits)
        if failed:
            return ReadRuns([], messages, True)
        parsed = [run for c in checked for run in c.runs]
        scored = list(zip(parsed, score_runs(reference, parsed)))
    labels = analysis.run_labels(scored)
    runs = [CampaignRun(label, default_team(task, run), run, scores)
            for label, (run, scores) in zip(labels, scored)]
    return ReadRuns(runs, messages, False)
