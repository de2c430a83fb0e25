"""api.score: check and score runs of one task as `runscore score --json --per-topic` does, with the scores, notes and
diagnostics as data (ScoreResult); api.tasks lists the tasks."""
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

from ..errors import ConfigError, Diagnostic
from ..pipeline import CheckedFile, LoadedReference, check_file, check_run_limit, score_runs
from ..tasks import all_tasks
from ..tasks.base import ParsedRun, RunScores, Task
from .inputs import InvalidRunsError, PathLike, in_memory, load_reference, task_of, write_runs


def tasks() -> Dict[str, str]:
    """Task id -> one-line description (`runscore tasks`)."""
    return {task.id: task.description for task in all_tasks()}


@dataclass
class ScoreResult:
    """What `runscore score` prints, as data.

    measures: {run: {measure: value}}; per_topic: {run: {topic: {measure: value}}}; notes: {run: [text]};
    diagnostics: {file: [Diagnostic]} (warnings of the valid files); files: {run: file it came from};
    scored: [(ParsedRun, RunScores)] in order, for compare(). A measure a run cannot have (e.g. HMR of an r2c2-ac
    run without labels) is absent, and a note says why.
    """

    task: str
    measures: Dict[str, Dict[str, float]]
    per_topic: Dict[str, Dict[str, Dict[str, float]]]
    notes: Dict[str, List[str]]
    diagnostics: Dict[str, List[Diagnostic]]
    files: Dict[str, str]
    options: Dict[str, Any]
    scored: List[Tuple[ParsedRun, RunScores]] = field(default_factory=list, repr=False)

    def to_json(self, per_topic: bool = False) -> Dict[str, Any]:
        """The object `runscore score --json [--per-topic]` prints."""
        out: Dict[str, Any] = {}
        for run, scores in self.scored:
            out[run.name] = {"all": scores.measures, "per_topic": scores.per_topic} if per_topic else scores.measures
        return out


def score(task: Union[str, Task], ref: Union[PathLike, LoadedReference], runs: Any,
          options: Optional[Mapping[str, Any]] = None, companions: Optional[Mapping[str, Union[str, bytes]]] = None,
          max_errors: int = 50, submission_rules: bool = False) -> ScoreResult:
    """Check and score runs of one task, as `runscore score --task TASK --ref REF RUN... --json --per-topic`.

    ref: the reference folder (or single reference file), or a reference from load_reference(). runs: file
    paths, (name, text) pairs or a {name: text} dict (text str or bytes; the name is the file name the task
    reads the run name from, e.g. `BITEM-AC-2`). companions: other in-memory files the runs read beside them
    (e.g. the r2c2 PR runs an AC run cites), not scored. options: task options over task.yaml's (only with a
    reference path). submission_rules: also apply the rules of one platform submission, as score.py and `runscore
    check` do (the runs are one team's, the campaign's cap counts them all: one verdict at every door); a researcher scoring
    many teams' runs leaves it off.

    Raises InvalidRunsError (a RunError) listing every error of every file when a run is invalid, and
    ConfigError for a bad reference, option or argument. Nothing is printed.
    """
    task = task_of(task)
    if isinstance(ref, LoadedReference):
        if options:
            raise ConfigError("options are read with the reference: pass them to load_reference()")
        if ref.task.id != task.id:
            raise ConfigError("the reference was loaded for task %s, not %s" % (ref.task.id, task.id))
        reference = ref
    else:
        reference = load_reference(task, ref, options)
    paths, texts = in_memory(runs)
    if not paths and not texts:
        raise ConfigError("no run to score")
    folder = tempfile.mkdtemp(prefix="runscore-api-") if texts or companions else None
    try:
        if folder is not None:
            write_runs(folder, list((companions or {}).items()))
            paths += write_runs(folder, texts)
        checked: List[CheckedFile] = []
        for path in paths:
            if not os.path.isfile(path):
                raise ConfigError("run file %r does not exist" % path)
            display = os.path.basename(path) if folder is not None and path.startswith(folder + os.sep) else path
            checked.append(check_file(task, path, display, reference, reference.options, max_errors=max_errors))
        limit = [str(d) for d in check_run_limit(task, checked, one_team=True, cap=reference.runs_per_submission)] \
            if submission_rules else []
        failed = [c for c in checked if c.diags.has_errors]
        if failed or limit:         # decided from the diagnostics' data, never from their text (a field may quote ": error:")
            lines = [m for c in checked for m in c.diags.lines()] + limit
            raise InvalidRunsError(lines, {c.display: c.diags.items for c in checked})
        parsed = [run for c in checked for run in c.runs]
        scored = list(zip(parsed, score_runs(reference, parsed)))
    finally:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
    return ScoreResult(task.id, {r.name: s.measures for r, s in scored}, {r.name: s.per_topic for r, s in scored},
                       {r.name: list(s.notes) for r, s in scored}, {c.display: c.diags.items for c in checked},
                       {r.name: r.path for r, _ in scored}, dict(reference.options), scored)
