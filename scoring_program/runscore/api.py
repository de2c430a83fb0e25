"""runscore from Python: score a task's runs, run trec_eval, compare systems, with the command line's numbers.

Why: people who rescore campaigns and compare systems work in notebooks and scripts; shelling out to the CLI and
parsing its text loses precision and the diagnostics. Each function here is the CLI's code path with Python
objects at both ends: `score` is `runscore score --json --per-topic`, `trec_eval` is `runscore trec_eval -q`
(full precision), `compare` is `runscore compare --json`. Problems raise the CLI's exceptions: RunError (the CLI
exits 1; InvalidRunsError carries every diagnostic of every file) and ConfigError (exit 2: bad usage, reference
or option). Results are plain dicts and lists. The drop-in for pytrec_eval is the module runscore.pytrec_eval.
Documentation with examples: docs/python-api.md.
"""
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import inmemory
from .ranking import fastpath
from .errors import ConfigError, Diagnostic, RunError
from .pipeline import CheckedFile, LoadedReference, check_file, check_run_limit
from .pipeline import load_reference as _load_reference
from .pipeline import score_run
from .tasks import all_tasks, get_task
from .tasks.base import ParsedRun, RunScores, Task

__all__ = ["tasks", "load_reference", "score", "ScoreResult", "InvalidRunsError", "trec_eval", "compare", "report",
           "ReportResult", "RunError", "ConfigError", "Diagnostic"]

PathLike = Union[str, "os.PathLike[str]"]


class InvalidRunsError(RunError):
    """Some run files are invalid (the CLI exits 1): `diagnostics` maps each file to all its findings, and the
    message lists them as `FILE:LINE: error: message` lines."""

    def __init__(self, lines: List[str], diagnostics: Dict[str, List[Diagnostic]]):
        first = next((d for items in diagnostics.values() for d in items if d.severity == "error"), None)
        super().__init__(first.message if first else lines[0], first.path if first else "",
                         first.line if first else 0)
        self.lines = lines
        self.diagnostics = diagnostics

    def __str__(self) -> str:
        return "\n".join(self.lines)


def tasks() -> Dict[str, str]:
    """Task id -> one-line description (`runscore tasks`)."""
    return {task.id: task.description for task in all_tasks()}


def _task(task: Union[str, Task]) -> Task:
    return task if isinstance(task, Task) else get_task(task)


def load_reference(task: Union[str, Task], ref: PathLike, options: Optional[Mapping[str, Any]] = None
                   ) -> LoadedReference:
    """A task's reference (a folder with task.yaml, or the task's single reference file) read once, with
    `options` over task.yaml's (as `--option NAME=VALUE`); pass it to score() to score many runs against it."""
    return _load_reference(_task(task), os.fspath(ref), dict(options or {}))


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


RunInput = Union[PathLike, Tuple[str, Union[str, bytes]]]


def _in_memory(runs: Any) -> Tuple[List[Any], List[Tuple[str, Union[str, bytes]]]]:
    """(paths, [(name, text)]) from a path, a (name, text) pair, a {name: text} dict, or a list of these."""
    if isinstance(runs, (str, bytes, os.PathLike)) or (isinstance(runs, tuple) and len(runs) == 2
                                                      and isinstance(runs[1], (str, bytes))):
        runs = [runs]
    elif isinstance(runs, Mapping):
        runs = list(runs.items())
    paths, texts = [], []
    for item in runs:
        if isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], (str, bytes)):
            texts.append(item)
        elif isinstance(item, (str, os.PathLike)):
            paths.append(os.fspath(item))
        else:
            raise ConfigError("a run is a file path, a (name, text) pair or a {name: text} dict, not %r" % (item,))
    return paths, texts


def _write_runs(folder: str, texts: Sequence[Tuple[str, Union[str, bytes]]]) -> List[str]:
    written = []
    for name, text in texts:
        if not isinstance(name, str) or not name or os.path.basename(name) != name or name in (".", ".."):
            raise ConfigError("an in-memory run needs a plain file name (it names the run), not %r" % (name,))
        path = os.path.join(folder, name)
        if os.path.exists(path):
            raise ConfigError("two in-memory files are named %r" % name)
        with open(path, "wb") as handle:
            handle.write(text.encode("utf-8") if isinstance(text, str) else text)
        written.append(path)
    return written


def score(task: Union[str, Task], ref: Union[PathLike, LoadedReference], runs: Any,
          options: Optional[Mapping[str, Any]] = None, companions: Optional[Mapping[str, Union[str, bytes]]] = None,
          max_errors: int = 50, submission_rules: bool = False) -> ScoreResult:
    """Check and score runs of one task, as `runscore score --task TASK --ref REF RUN... --json --per-topic`.

    ref: the reference folder (or single reference file), or a reference from load_reference(). runs: file
    paths, (name, text) pairs or a {name: text} dict (text str or bytes; the name is the file name the task
    reads the run name from, e.g. `BITEM-AC-2`). companions: other in-memory files the runs read beside them
    (e.g. the r2c2 PR runs an AC run cites), not scored. options: task options over task.yaml's (only with a
    reference path). submission_rules: also apply the rules of one platform submission (the per-team run cap);
    a researcher scoring many teams' runs leaves it off.

    Raises InvalidRunsError (a RunError) listing every error of every file when a run is invalid, and
    ConfigError for a bad reference, option or argument. Nothing is printed.
    """
    task = _task(task)
    if isinstance(ref, LoadedReference):
        if options:
            raise ConfigError("options are read with the reference: pass them to load_reference()")
        if ref.task.id != task.id:
            raise ConfigError("the reference was loaded for task %s, not %s" % (ref.task.id, task.id))
        reference = ref
    else:
        reference = load_reference(task, ref, options)
    paths, texts = _in_memory(runs)
    if not paths and not texts:
        raise ConfigError("no run to score")
    folder = tempfile.mkdtemp(prefix="runscore-api-") if texts or companions else None
    try:
        if folder is not None:
            _write_runs(folder, list((companions or {}).items()))
            paths += _write_runs(folder, texts)
        checked: List[CheckedFile] = []
        for path in paths:
            if not os.path.isfile(path):
                raise ConfigError("run file %r does not exist" % path)
            display = os.path.basename(path) if folder is not None and path.startswith(folder + os.sep) else path
            checked.append(check_file(task, path, display, reference, reference.options, max_errors=max_errors))
        limit = [str(d) for d in check_run_limit(task, checked)] if submission_rules else []
        failed = [c for c in checked if c.diags.has_errors]
        if failed or limit:         # decided from the diagnostics' data, never from their text (issue 16)
            lines = [m for c in checked for m in c.diags.lines()] + limit
            raise InvalidRunsError(lines, {c.display: c.diags.items for c in checked})
        scored = [(run, score_run(reference, run)) for c in checked for run in c.runs]
    finally:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
    return ScoreResult(task.id, {r.name: s.measures for r, s in scored}, {r.name: s.per_topic for r, s in scored},
                       {r.name: list(s.notes) for r, s in scored}, {c.display: c.diags.items for c in checked},
                       {r.name: r.path for r, _ in scored}, dict(reference.options), scored)


# ------------------------------------------------------------------------------------------- trec_eval ---

def _trec_argv(measures, complete, level, max_docs, judged_only, num_docs_in_coll, version,
               keep_first_duplicate) -> List[str]:
    if isinstance(measures, str):
        measures = [measures]
    argv = []
    for measure in measures or ():
        if not isinstance(measure, str):
            raise ConfigError("measures are trec_eval -m arguments (strings), not %r" % (measure,))
        argv += ["-m", measure]
    if version not in ("9.0.8", "10.0"):
        raise ConfigError("version is '9.0.8' or '10.0', not %r" % (version,))
    argv += ["-l", str(level)] + (["-M", str(max_docs)] if max_docs is not None else [])
    argv += ["-N", str(num_docs_in_coll)] + (["-c"] if complete else []) + (["-J"] if judged_only else [])
    return argv + (["--v10"] if version == "10.0" else []) + (["--keep-first-duplicate"] if keep_first_duplicate
                                                              else [])


def trec_eval(qrels: Any, run: Any, measures: Optional[Sequence[str]] = None, complete: bool = False,
              level: int = 1, max_docs: Optional[int] = None, judged_only: bool = False, num_docs_in_coll: int = 0,
              version: str = "9.0.8", keep_first_duplicate: bool = False, run_id: str = "") -> Dict[str, Any]:
    """`runscore trec_eval -q [options] QRELS RUN` as data: {"all": {name: value}, "per_topic": {qid: {name:
    value}}, "warnings": [text]}, with trec_eval's output names (`map`, `P_10`, `ndcg_cut_10`, `runid`, `num_q`)
    and the values it prints, at full precision (counts as ints, runid and relstring as text).

    qrels, run: file paths, dicts ({qid: {docno: grade}}, {qid: {docno: score}}) or pandas DataFrames with the
    columns query_id, doc_id, relevance / score (or PyTerrier's qid, docno, label / score). measures: -m
    arguments (`["map", "P.5,10", "ndcg_cut.10", "all_trec"]`; default: trec_eval's official set). complete: -c,
    level: -l, max_docs: -M, judged_only: -J, num_docs_in_coll: -N, version: "9.0.8" (default) or "10.0"
    (--v10). run_id: the runid of a run given as a dict or DataFrame (a file's is its last line's tag).
    """
    from .commands import trec_eval as command
    from .commands.trec_eval_files import TrecEvalFailure

    argv = _trec_argv(measures, complete, level, max_docs, judged_only, num_docs_in_coll, version,
                      keep_first_duplicate)
    settings, _ = command.parse_settings(argv)
    if settings.max_docs is not None and settings.max_docs < 0:
        raise ConfigError("max_docs must be >= 0, got %d" % settings.max_docs)
    names, params = command.select_measures(settings.measure_args, settings.v10)
    warnings: List[str] = []
    try:
        if isinstance(qrels, (str, os.PathLike)) and isinstance(run, (str, os.PathLike)):
            per_topic, printed, file_run_id = _trec_eval_files(command, settings, os.fspath(qrels), os.fspath(run),
                                                               names, params, warnings)
            run_id = file_run_id
        else:
            per_topic, printed = _trec_eval_memory(command, settings, qrels, run, names, params, warnings)
    except TrecEvalFailure as exc:          # what trec_eval would stop on (the command's exit 4 or 7)
        raise RunError(exc.detail.split(": error: ", 1)[-1], exc.detail.split(": error: ", 1)[0])
    if not per_topic:
        raise RunError("no topic of the run is in the qrels (nothing to evaluate)", "run")
    return {"all": _summary(command, names, per_topic, params, run_id),
            "per_topic": {qid: _topic_values(command, names, per_topic[qid], params) for qid in printed},
            "warnings": warnings}


def _trec_eval_files(command, settings, qrels_path, run_path, names, params, warnings):
    """The fast path for a big clean run (as `runscore trec_eval`), else the strict exact readers; the values of
    both are the in-memory evaluation's (every qrels topic with -c, a missing one as an empty ranking)."""
    fast = None if settings.complete else fastpath.trec_eval(settings, qrels_path, run_path, names, params)
    if fast is not None:
        evaluation, run_id = fast
        return evaluation.values, evaluation.printed, run_id
    qrels = _qrels_file(qrels_path, settings)
    if not qrels:
        raise ConfigError("the qrels file has no judgements", qrels_path)
    run, run_id = _run_file(run_path, settings, warnings)
    per_topic, printed = _trec_eval_memory(command, settings, qrels, run, names, params, warnings)
    return per_topic, printed, run_id


def _qrels_file(path: str, settings):
    """A qrels file read by runscore's strict reader (see docs/python-api.md: stricter than the command)."""
    from .ranking.qrels import parse_qrels_text
    from .textfile import read_text

    return parse_qrels_text(read_text(path, error_class=ConfigError), path, allow_comments=settings.v10)


def _run_file(path: str, settings, warnings):
    """({qid: {docno: score}}, run id) of a run file read by runscore's strict reader; its warnings appended."""
    from .ranking.trec_format import read_trec_run

    try:
        run_data, diags = read_trec_run(path, comments=settings.v10, keep_first_duplicate=settings.keep_first_duplicate)
    except OSError as exc:
        raise ConfigError("cannot read run file: %s" % exc.strerror, path)
    _raise_or_warn(diags, warnings)
    return {qid: dict(zip(topic.docnos, topic.scores)) for qid, topic in run_data.topics.items()}, run_data.run_id


def _raise_or_warn(diags, warnings):
    if diags.has_errors:
        raise InvalidRunsError(diags.lines(), {diags.path: diags.items})
    warnings.extend(diags.lines())


def _memory_side(command, settings, qrels, run, warnings):
    """Qrels and run as checked dicts, whatever each was given as."""
    if isinstance(qrels, (str, os.PathLike)):
        qrels = _qrels_file(os.fspath(qrels), settings)
    qrels = inmemory.qrels_dict(qrels)
    if isinstance(run, (str, os.PathLike)):
        run = _run_file(os.fspath(run), settings, warnings)[0]
    run = inmemory.run_dict(run)
    inmemory.check_run(run)
    return qrels, run


def _trec_eval_memory(command, settings, qrels, run, names, params, warnings):
    """commands.trec_eval.evaluate for dicts: the same topics, the same values (whole-run kernels)."""
    qrels, run = _memory_side(command, settings, qrels, run, warnings)
    if not qrels:
        raise ConfigError("the qrels have no judgements")
    topics = []
    for qid in sorted(qrels):
        if qid not in run and not settings.complete:
            if settings.v10:
                raise RunError("topic %s of the qrels has no lines in the run (trec_eval 10.0 stops here; use "
                               "complete=True to score it as an empty ranking)" % qid, "run")
            continue
        topics.append(qid)
    from .measures.trec import TrecOptions

    options = TrecOptions(interp_cutoff="v10" if settings.v10 else "v9", num_docs_in_coll=settings.num_docs_in_coll)
    computed = [m for m in names if m not in ("runid", "num_q")]
    per_topic = inmemory.evaluate(run, inmemory.MemoryQrels(qrels), topics, computed, settings.level, options,
                                  settings.max_docs, params, np.float64 if settings.v10 else np.float32,
                                  settings.judged_only)
    for qid in topics:
        if qid not in run:          # as commands.trec_eval.evaluate: utility of a missing topic is 0
            values = per_topic[qid]
            for name in values:
                if name == "utility" or name.startswith("utility_"):
                    values[name] = 0.0
    return per_topic, [qid for qid in topics if qid in run or settings.v10]


def _summary(command, names, per_topic, params, run_id) -> Dict[str, Any]:
    """summary_lines' values: the same measures, names and summaries, as numbers."""
    from .measures.trec import REGISTRY, summarise

    out: Dict[str, Any] = {}
    for name in names:
        if name == "runid":
            out["runid"] = run_id
            continue
        if name == "num_q":
            out["num_q"] = len(per_topic)
            continue
        measure = REGISTRY[name]
        if measure.summary == "none":
            continue
        for value_name in measure.value_names(params.get(name, measure.params)):
            value = summarise(measure, [v[value_name] for v in per_topic.values()])
            out[value_name] = int(value) if measure.is_count else float(value)
    return out


def _topic_values(command, names, values, params) -> Dict[str, Any]:
    """topic_lines' values: what -q prints for one topic."""
    from .measures.trec import REGISTRY

    out: Dict[str, Any] = {}
    for name in names:
        if name in ("runid", "num_q"):
            continue
        measure = REGISTRY[name]
        if measure.summary == "gm":
            continue
        for value_name in measure.value_names(params.get(name, measure.params)):
            value = values[value_name]
            out[value_name] = value if measure.is_string else int(value) if measure.is_count else float(value)
    return out


# ------------------------------------------------------------------------------------------- compare ---

def compare(scores: Any, measure: Optional[str] = None, runs: Optional[Sequence[str]] = None,
            topics: Optional[Sequence[str]] = None, trials: int = 5000, bootstrap: int = 10000, seed: int = 0,
            confidence: float = 0.95, correction: str = "holm") -> Dict[str, Any]:
    """`runscore compare --json` from per-topic scores: paired t and Wilcoxon (with a family-wise correction),
    randomised Tukey HSD, bootstrap CIs and effect sizes for every pair of runs (docs/compare.md).

    scores: a ScoreResult (measure defaults to the task's primary measure, as the CLI), a dict
    {run: {topic: value}} or {run: {topic: {measure: value}}} (then `measure` is required), or a topics x runs
    matrix (numpy array or nested lists) with `runs` (and optionally `topics`) naming its columns and rows.
    A topic some run has no value for counts 0 for it, with a note (as the CLI).
    """
    from . import compare as analysis

    if trials < 1 or bootstrap < 1:
        raise ConfigError("trials and bootstrap must be at least 1")
    if not 0.0 < confidence < 1.0:
        raise ConfigError("confidence must be between 0 and 1, got %r" % (confidence,))
    task_id = ""
    if isinstance(scores, ScoreResult):
        task = get_task(scores.task)
        task_id = task.id
        scored = scores.scored
        if len(scored) < 2:
            raise ConfigError("comparing needs at least 2 runs; got %d" % len(scored))
        measure = analysis.choose_measure(task, scored, measure)
    else:
        scored, measure = _scored_from(scores, measure, runs, topics)
    matrix = analysis.build_matrix(scored, measure)
    comparison = analysis.compare(matrix, trials=trials, bootstrap=bootstrap, seed=seed, confidence=confidence,
                                  correction=correction)
    return analysis.comparison_json(comparison, task_id)


def _scored_from(scores, measure, runs, topics):
    """(ParsedRun, RunScores) pairs, as a task would have made them, from a dict or a matrix."""
    if isinstance(scores, Mapping):
        scored = []
        for name, rows in scores.items():
            if not isinstance(rows, Mapping):
                raise ConfigError("run %s: per-topic scores are a {topic: value} dict" % name)
            per_topic = {}
            for topic, value in rows.items():
                if isinstance(value, Mapping):
                    if measure is None:
                        raise ConfigError("per-topic rows hold several measures: say which to compare (measure=)")
                    if measure in value:
                        per_topic[str(topic)] = {measure: _number(value[measure], name, topic)}
                else:
                    per_topic[str(topic)] = {measure or "score": _number(value, name, topic)}
            scored.append((ParsedRun(str(name), str(name), None), RunScores({}, per_topic)))
        if len(scored) < 2:
            raise ConfigError("comparing needs at least 2 runs; got %d" % len(scored))
        return scored, measure or "score"
    try:
        values = np.asarray(scores, dtype=np.float64)
    except (TypeError, ValueError):
        raise ConfigError("scores are a ScoreResult, a {run: {topic: value}} dict or a topics x runs matrix")
    if values.ndim != 2:
        raise ConfigError("a score matrix has 2 dimensions (topics x runs), got %d" % values.ndim)
    runs = list(runs) if runs is not None else ["run%d" % (i + 1) for i in range(values.shape[1])]
    topics = list(topics) if topics is not None else [str(i + 1) for i in range(values.shape[0])]
    if len(runs) != values.shape[1] or len(topics) != values.shape[0]:
        raise ConfigError("the matrix is %d topics x %d runs, but %d run and %d topic names were given"
                          % (values.shape[0], values.shape[1], len(runs), len(topics)))
    rows = {run: {topic: float(values[i, j]) for i, topic in enumerate(topics)} for j, run in enumerate(runs)}
    return _scored_from(rows, measure, None, None)


def _number(value: Any, run: str, topic: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ConfigError("run %s topic %s: %r is not a number" % (run, topic, value))


# ------------------------------------------------------------------------------------------- report ---

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


def report(task: Union[str, Task], ref: PathLike, runs: Sequence[PathLike], output: PathLike,
           pool_depth: Optional[int] = None, measures: Sequence[str] = (), trials: int = 10000, seed: int = 0,
           alpha: float = 0.05, tau_bootstrap: int = 1000, confidence: float = 0.95, discpower: bool = False,
           options: Optional[Mapping[str, Any]] = None, max_errors: int = 50) -> ReportResult:
    """`runscore report`: the overview tables of a campaign (docs/report.md) written into `output`.

    runs: run files, folders of runs and submission zips; every run is checked and scored as `runscore score`
    does, with the task's per-team caps over all of them. Raises InvalidRunsError (nothing written) when a run is
    invalid or a team has more runs than the cap, ConfigError for bad usage or reference data.
    """
    from .campaign import overview, report_files, report_inputs

    task = _task(task)
    overview.check_settings(trials, alpha, confidence, tau_bootstrap, pool_depth)
    report_files.check_output(os.fspath(output))
    reference = load_reference(task, ref, options)
    workdir = tempfile.mkdtemp(prefix="runscore-report-")
    try:
        found = report_inputs.read_runs(reference, [os.fspath(r) for r in runs], workdir, max_errors)
        if found.failed:
            raise InvalidRunsError(found.messages, {})
        built = overview.build(task, reference, found.runs, measures, trials=trials, seed=seed, alpha=alpha,
                               tau_bootstrap=tau_bootstrap, confidence=confidence, pool_depth=pool_depth)
        files = report_files.all_files(built, discpower=discpower)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    written = report_files.write_all(os.fspath(output), files)
    return ReportResult(os.fspath(output), written, len(built.runs), list(built.notes), list(found.messages), built)
