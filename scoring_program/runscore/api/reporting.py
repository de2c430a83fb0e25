"""api.report: `runscore report`, a campaign's overview tables written into a folder (ReportResult). The campaign
wing is imported only when called, so importing the API stays light."""
import os
import shutil
import tempfile
from dataclasses import dataclass, field, replace
from typing import Any, List, Mapping, Optional, Sequence, Union

from ..errors import ConfigError
from ..tasks.base import Task
from .inputs import InvalidRunsError, PathLike, in_memory, load_reference, task_of, write_runs


@dataclass
class ReportResult:
    """What `runscore report` wrote: the files (relative to the folder), how many runs, the notes, and the
    Overview every file was made from (campaign/overview.py) for further use."""

    folder: str
    files: List[str]
    runs: int
    notes: List[str]
    messages: List[str] = field(default_factory=list)     # the runs' warnings, as FILE:LINE: warning: message
    overview: Any = field(default=None, repr=False)


def report(task: Union[str, Task], ref: PathLike, runs: Any, output: PathLike,
           pool_depth: Optional[int] = None, measures: Sequence[str] = (), trials: int = 10000, seed: int = 0,
           alpha: float = 0.05, tau_bootstrap: int = 1000, confidence: float = 0.95, discpower: bool = False,
           options: Optional[Mapping[str, Any]] = None, max_errors: int = 50, phase: Optional[int] = None,
           deadline: Optional[str] = None, submissions: Optional[PathLike] = None, allow_same_names: bool = False,
           skip_invalid: bool = False, family: Sequence[str] = (), exclude: Sequence[str] = ()) -> ReportResult:
    """`runscore report`: the overview tables of a campaign (docs/report.md) written into `output`.

    family / exclude: the runs (labels or shell patterns) Tukey's HSD compares: only `family` (all when empty),
    less `exclude` (overview.tukey_family).

    runs: run files, folders of runs and Codabench downloads, read by the reader `runscore pool` uses, or runs in
    memory as api.score takes them ((name, text) pairs or a {name: text} dict, text str or bytes; each is a run
    file of that name) (campaign/downloads.py): a run is (owner, name), a later submission replaces its owner's run, the task's cap
    counts an owner's runs over all submissions, phase/deadline/submissions leave out what was sent elsewhere or
    late. Raises InvalidRunsError (nothing written) when a submission is invalid (unless skip_invalid) or a run
    name is sent by two owners (unless allow_same_names), ConfigError for bad usage or reference data.
    """
    from ..campaign import overview, report_files
    from ..campaign.downloads import Rules, read_campaign
    from ..campaign.identity import Window, parse_time
    from ..campaign.pool import few_collections
    from ..pipeline import ScoreAsChecked
    from ..tasks.base import submission_scope

    task = task_of(task)
    overview.check_settings(trials, alpha, confidence, tau_bootstrap, pool_depth)
    report_files.check_output(os.fspath(output))
    paths, texts = in_memory(runs)
    reference = load_reference(task, ref, options)
    rules = Rules(Window(phase, parse_time(deadline, "deadline") if deadline else None),
                  os.fspath(submissions) if submissions else None, allow_same_names)
    workdir = tempfile.mkdtemp(prefix="runscore-report-")
    memory = tempfile.mkdtemp(prefix="runscore-api-") if texts else None
    # Each run is read once: scored as soon as its file is checked, then reduced to its ranking as the evaluation
    # reads it (Task.ranked_run), which the pool figures and leave-one-team-out score again.
    stream = ScoreAsChecked(reference, lambda run: task.ranked_run(run, reference.options).data)
    try:
        if memory is not None:
            paths += write_runs(memory, texts)
        if not paths:
            raise ConfigError("no run to report")
        with submission_scope(), few_collections():
            found = read_campaign(task, paths, workdir, reference, rules, max_errors, stream.add)
            if found.conflicts or (found.failed and not skip_invalid):
                lines = found.messages + found.conflicts
                if found.failed and not skip_invalid:
                    lines.append("%d submission(s) failed the checks: %s (skip_invalid / --skip-invalid leaves "
                                 "them out)" % (len(found.failed), ", ".join(found.failed)))
                raise InvalidRunsError(lines, {})
            if not found.runs:
                raise ConfigError("no run left to report%s" % (": " + "; ".join(found.notes[:3]) if found.notes
                                                               else ""))
            scored = stream.scores([taken.run for taken in found.runs])
        # scored under their own names (a task's labels are keyed by them), then shown under their labels (name@owner
        # when two owners share a name): the reusability figures' pool keys runs by name
        campaign_runs = [overview.CampaignRun(taken.label, taken.owner, replace(taken.run, name=taken.label), scores,
                                             taken.vouched)
                         for taken, scores in zip(found.runs, scored)]
        with few_collections():
            built = overview.build(task, reference, campaign_runs, measures, trials=trials, seed=seed, alpha=alpha,
                                   tau_bootstrap=tau_bootstrap, confidence=confidence, pool_depth=pool_depth,
                                   only=family, exclude=exclude)
        files = report_files.all_files(built, discpower=discpower)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
        if memory is not None:
            shutil.rmtree(memory, ignore_errors=True)
    written = report_files.write_all(os.fspath(output), files)
    return ReportResult(os.fspath(output), written, len(built.runs), list(built.notes),
                        list(found.messages) + list(found.notes), built)
