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
from dataclasses import dataclass, field, replace
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from .. import inmemory
from ..measures.trec import REGISTRY
from ..ranking import fastpath
from ..errors import ConfigError, Diagnostic, RunError
from ..pipeline import CheckedFile, LoadedReference, check_file, check_run_limit
from ..pipeline import load_reference as _load_reference
from ..pipeline import score_runs
from ..tasks import all_tasks, get_task
from ..tasks.base import ParsedRun, RunScores, Task

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
    reference path). submission_rules: also apply the rules of one platform submission, as score.py and `runscore
    check` do (the runs are one team's, the campaign's cap counts them all: one verdict at every door); a researcher scoring
    many teams' runs leaves it off.

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
              version: str = "9.0.8", keep_first_duplicate: bool = False, run_id: str = "",
              strict: bool = False) -> Dict[str, Any]:
    """`runscore trec_eval -q [options] QRELS RUN` as data: {"all": {name: value}, "per_topic": {qid: {name:
    value}}, "warnings": [text]}, with trec_eval's output names (`map`, `P_10`, `ndcg_cut_10`, `runid`, `num_q`)
    and the values it prints, at full precision (counts as ints, runid and relstring as text).

    qrels, run: file paths, dicts ({qid: {docno: grade}}, {qid: {docno: score}}) or pandas DataFrames with the
    columns query_id, doc_id, relevance / score (or PyTerrier's qid, docno, label / score); the same data gives
    the same values whatever it is given as (a run topic without documents is left out, as in a file).
    measures: -m arguments (`["map", "P.5,10", "ndcg_cut.10", "all_trec"]`; default: trec_eval's official set) or
    ir_measures names (`nDCG@10`, `P(rel=2)@5`, `AP`, `R@100`, `RR`, `RR@10`, `Judged@10`), returned under the
    name asked, with ir_measures' own aggregation when complete=True (there bare `Rprec` and `infAP` are
    ir_measures' too; `trec_eval:NAME` is always trec_eval's -m NAME, keyed `trec_eval:` + its output name).
    complete: -c, level: -l, max_docs: -M, judged_only: -J, num_docs_in_coll: -N, version: "9.0.8" (default)
    or "10.0" (--v10); level and judged_only are trec_eval's options (an ir_measures name says its own rel and
    judged_only). run_id: the runid of a run given as a dict or DataFrame (a file's is its last line's tag).
    Files are read as `runscore trec_eval` reads them (as trec_eval does, a warning for each lenient reading);
    strict: --strict, those readings are errors (ConfigError for the qrels, InvalidRunsError for the run).
    """
    if isinstance(measures, str):
        measures = [measures]
    measures = list(measures or ())
    explicit = [m[len(TREC_EVAL_PREFIX):] for m in measures if isinstance(m, str) and m.startswith(TREC_EVAL_PREFIX)]
    asked = [(m, _ir_measures_name(m, complete) if isinstance(m, str) else None) for m in measures
             if not (isinstance(m, str) and m.startswith(TREC_EVAL_PREFIX))]
    trec_args = [m for m, ir in asked if ir is None]
    ir_names = [ir for _, ir in asked if ir is not None]
    options = dict(complete=complete, level=level, max_docs=max_docs, judged_only=judged_only,
                   num_docs_in_coll=num_docs_in_coll, version=version, keep_first_duplicate=keep_first_duplicate,
                   run_id=run_id, strict=strict)
    if not ir_names and not explicit:
        return _trec_eval(qrels, run, trec_args, **options)
    # Two evaluations when both kinds are asked, so that trec_eval's rule for a measure asked twice (the first -m
    # wins) never drops a cutoff asked by its ir_measures name (P.5 and P@10); a third for the names spelt
    # trec_eval:NAME, whose values are keyed with that prefix.
    empty: Dict[str, Any] = {"all": {}, "per_topic": {}, "warnings": []}
    result = _trec_eval(qrels, run, trec_args, **options) if trec_args or not (ir_names or explicit) else empty
    parts = [_ir_measures(qrels, run, ir_names, options, bool(trec_args or explicit))] if ir_names else []
    if explicit:
        spelt = _trec_eval(qrels, run, explicit, **options)
        parts.append({"all": {TREC_EVAL_PREFIX + k: v for k, v in spelt["all"].items()},
                      "per_topic": {q: {TREC_EVAL_PREFIX + k: v for k, v in row.items()}
                                    for q, row in spelt["per_topic"].items()}, "warnings": spelt["warnings"]})
    for extra in parts:
        result["all"].update(extra["all"])
        for qid, values in extra["per_topic"].items():
            result["per_topic"].setdefault(qid, {}).update(values)
        result["warnings"] += [w for w in extra["warnings"] if w not in result["warnings"]]
    return result


# A measure spelt `trec_eval:NAME` is trec_eval's -m NAME whatever else NAME could mean (with complete=True, bare
# `Rprec` and `infAP` are ir_measures' names): its values come back keyed `trec_eval:` + trec_eval's output name.
TREC_EVAL_PREFIX = "trec_eval:"
# Bare names that are both trec_eval's and ir_measures': trec_eval's, except with complete=True, which asks for
# ir_measures' answer (every qrels topic, zeros where nothing is shared), as ir_measures gives it for them.
_BOTH = ("Rprec", "infAP")


def _ir_measures_name(name: str, complete: bool) -> Any:
    """The ir_measures measure `name` stands for (None: a trec_eval name); with complete=True a bare Rprec or
    infAP is ir_measures' (`Rprec()`, `infAP()`), still returned under the name asked."""
    from ..measures import ir_measures_names

    if complete and name.strip() in _BOTH:
        return ir_measures_names.parse(name.strip() + "()")._replace(name=name)
    return ir_measures_names.parse(name)


def _trec_eval(qrels: Any, run: Any, measures: Sequence[str], complete: bool, level: int, max_docs: Optional[int],
               judged_only: bool, num_docs_in_coll: int, version: str, keep_first_duplicate: bool, run_id: str,
               strict: bool) -> Dict[str, Any]:
    """trec_eval() for trec_eval's -m arguments: the files through the command's own reading and main loop (or
    its fast path), anything else through the whole-run kernels, both into the command's summary."""
    from ..commands import trec_eval as command
    from ..ranking.trec_eval_files import TrecEvalFailure

    argv = _trec_argv(measures, complete, level, max_docs, judged_only, num_docs_in_coll, version,
                      keep_first_duplicate)
    settings, _ = command.parse_settings(argv)
    settings.qrels_path = os.fspath(qrels) if isinstance(qrels, (str, os.PathLike)) else "qrels"
    if settings.max_docs is not None and settings.max_docs < 0:
        raise ConfigError("max_docs must be >= 0, got %d" % settings.max_docs)
    names, params = command.select_measures(settings.measure_args, settings.v10)
    warnings: List[str] = []
    files = isinstance(qrels, (str, os.PathLike)) and isinstance(run, (str, os.PathLike))
    try:
        if files:
            evaluation, run_id = _trec_eval_files(command, settings, os.fspath(qrels), os.fspath(run), names,
                                                  params, warnings, strict)
        else:
            evaluation = _trec_eval_memory(command, settings, qrels, run, names, params, warnings, strict)[0]
    except TrecEvalFailure as exc:
        raise _failure(exc, settings.qrels_path)
    summary = dict(command.summary_values(names, evaluation, params, run_id))
    # ids read from files are their bytes as Latin-1 characters; the dicts' ids are the caller's own text
    key = _text if files else str
    return {"all": summary, "per_topic": {key(qid): _topic_values(command, names, evaluation.values[qid], params)
                                          for qid in evaluation.printed}, "warnings": warnings}


def _failure(exc, qrels_path: str) -> Exception:
    """What trec_eval stops on (the command's exits 2, 4 and 7) as the API's error: ConfigError when the qrels
    are at fault, RunError when the run is."""
    where, _, message = exc.detail.partition(": error: ")
    qrels_fault = where == qrels_path or where.startswith(qrels_path + ":")
    return (ConfigError if qrels_fault else RunError)(message, where)


def _text(name: str) -> str:
    """An id read from a file's bytes (kept as Latin-1 characters, one per byte) as the text it is in UTF-8."""
    try:
        return name.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return name


def _ir_measures(qrels: Any, run: Any, ir_names: Sequence[Any], options: Dict[str, Any], with_trec_eval_names: bool
                 ) -> Dict[str, Any]:
    """trec_eval() for ir_measures names: each evaluated with its own settings (relevance level, judged only,
    gains), as ir_measures' pytrec_eval provider groups them. complete=True gives ir_measures' aggregation: the
    drop-in's values (pytrec_eval's, bit for bit) for the topics it evaluates, 0 for every other qrels topic,
    added up in ir_measures' order; otherwise trec_eval's evaluation and averaging over the evaluated topics."""
    from ..commands import trec_eval as command
    from ..measures import ir_measures_names as ir
    from ..ranking.trec_eval_files import TrecEvalFailure

    if (options["level"] != 1 or options["judged_only"]) and not with_trec_eval_names:
        raise ConfigError("level= and judged_only= are trec_eval's -l and -J, for trec_eval names; an ir_measures "
                          "name says its own (P(rel=2, judged_only=True)@10), as in ir_measures")
    if options["complete"] and (options["version"] != "9.0.8" or options["max_docs"] is not None):
        raise ConfigError("complete=True gives ir_measures' own numbers (pytrec_eval's evaluation: trec_eval 9.0.8 "
                          "rules, every document); version= and max_docs= apply to trec_eval names")
    settings, _ = command.parse_settings(_trec_argv(["num_q"], False, 1, None, False, 0, options["version"],
                                                    options["keep_first_duplicate"]))
    warnings: List[str] = []
    qrels_topics = _qrels_topics(qrels)
    settings.qrels_path = os.fspath(qrels) if isinstance(qrels, (str, os.PathLike)) else "qrels"
    try:
        qrels, run = _memory_side(command, settings, qrels, run, warnings, options["strict"])
    except TrecEvalFailure as exc:
        raise _failure(exc, settings.qrels_path)
    qrels_topics = qrels_topics if qrels_topics is not None else list(qrels)
    graded = {}
    for setting in dict.fromkeys(m.setting for m in ir_names if m.gains):
        graded[setting[2]] = ir.map_grades(qrels, setting[2])
    if options["complete"]:
        per_topic, summary = _ir_measures_complete(ir, qrels, qrels_topics, graded, run, ir_names, warnings)
    else:
        per_topic, summary = _ir_measures_evaluated(ir, qrels, graded, run, ir_names, options, warnings)
    return {"all": summary, "per_topic": per_topic, "warnings": warnings}


def _qrels_topics(qrels: Any) -> Optional[List[str]]:
    """Every topic of qrels given as a dict, also those without judgements (ir_measures averages over them)."""
    return list(qrels) if isinstance(qrels, Mapping) and all(isinstance(q, str) for q in qrels) else None


def _ir_measures_complete(ir, qrels, qrels_topics, graded, run, ir_names, warnings):
    """ir_measures' iter_calc and calc_aggregate: per topic, what its providers give (the drop-in's values for the
    topics pytrec_eval evaluates, in the run's order; Judged@k and RR@k as its judged and MS MARCO providers
    compute them) and 0 for every other topic it expects; each measure added up in that order."""
    import warnings as python_warnings
    from .. import pytrec_eval as dropin

    values: Dict[Any, Dict[str, float]] = {m: {} for m in ir_names}
    by_setting: Dict[Any, List[Any]] = {}
    for measure in ir_names:
        if measure.kind == "trec":
            by_setting.setdefault(measure.setting, []).append(measure)
    for (rel, judged_only, gains, _), group in by_setting.items():
        with python_warnings.catch_warnings(record=True) as caught:      # (the drop-in's: about scores)
            python_warnings.simplefilter("always")
            evaluator = dropin.RelevanceEvaluator(graded[gains] if gains else qrels, ir.trec_eval_args(group),
                                                  relevance_level=rel, judged_docs_only_flag=judged_only)
            evaluated = evaluator.evaluate(run)
        for text in ("run: warning: %s" % str(w.message).split(": ", 1)[-1] for w in caught):
            if text not in warnings:
                warnings.append(text)
        for measure in group:
            key = _dropin_key(measure)
            for qid, row in evaluated.items():
                values[measure][qid] = row[key]
    for measure in ir_names:
        if measure.kind == "trec":
            continue
        for qid, docs in run.items():
            judged = qrels.get(qid)
            if measure.kind == "judged" and judged:
                values[measure][qid] = ir.judged_at(ir.ranked_as_ir_measures(docs), judged, measure.cutoff)
            elif measure.kind == "rr_cut" and any(g >= measure.rel for g in (judged or {}).values()):
                values[measure][qid] = ir.rr_at(ir.ranked_as_ir_measures(docs), judged, measure.cutoff, measure.rel)
    per_topic: Dict[str, Dict[str, float]] = {}
    summary: Dict[str, Any] = {}
    expected = ir.expected_topics(ir_names, qrels_topics, qrels)
    for measure in ir_names:
        found = values[measure]
        listed = list(found.values()) + [0.0 for qid in expected if qid not in found]
        summary[measure.name] = ir.aggregate(measure, listed)
        for qid in list(found) + sorted(qid for qid in expected if qid not in found):
            per_topic.setdefault(qid, {})[measure.name] = found.get(qid, 0.0)
    return per_topic, summary


def _dropin_key(measure) -> str:
    """The key runscore.pytrec_eval gives the value of an ir_measures measure: trec_eval's output name for a
    cutoff measure (P_5, iprec_at_recall_0.50), else the measure's name (map, set_F)."""
    from ..measures.trec import DOUBLE_CUTOFFS, LONG_CUTOFFS

    base = measure.trec_arg.split(".")[0]
    kind = REGISTRY[base].param_kind if base in REGISTRY else None        # (num_q is not a measure there)
    return measure.value_name if kind in (LONG_CUTOFFS, DOUBLE_CUTOFFS) else base


def _ir_measures_evaluated(ir, qrels, graded, run, ir_names, options, warnings):
    """ir_measures names with trec_eval's evaluation (any version, max_docs) and its averaging: the topics of
    both the run and the qrels, each measure's mean over them in trec_eval's order (counts summed)."""
    by_setting: Dict[Any, List[Any]] = {}
    for measure in ir_names:
        by_setting.setdefault(measure.setting if measure.kind == "trec" else (1, False, None, ""), []).append(measure)
    per_topic: Dict[str, Dict[str, float]] = {}
    summary: Dict[str, Any] = {}
    for (rel, judged_only, gains, _), group in by_setting.items():
        settings = dict(options, complete=False, level=rel, judged_only=judged_only, strict=False)
        out = _trec_eval(graded[gains] if gains else qrels, run, ir.trec_eval_args(group) or ["num_q"], **settings)
        for warning in out["warnings"]:
            if warning not in warnings:
                warnings.append(warning)
        for measure in group:
            if measure.kind == "trec":
                summary[measure.name] = out["all"][measure.value_name]
                for qid, row in out["per_topic"].items():
                    per_topic.setdefault(qid, {})[measure.name] = row[measure.value_name]
                continue
            listed = []
            for qid in out["per_topic"]:
                ranked = ir.ranked_as_ir_measures(run.get(qid, {}))
                value = ir.judged_at(ranked, qrels[qid], measure.cutoff) if measure.kind == "judged" else \
                    ir.rr_at(ranked, qrels[qid], measure.cutoff, measure.rel)
                per_topic.setdefault(qid, {})[measure.name] = value
                listed.append(value)
            summary[measure.name] = ir.aggregate(measure, listed)
    return per_topic, summary


def _trec_eval_files(command, settings, qrels_path, run_path, names, params, warnings, strict):
    """The fast path for a big clean run (as `runscore trec_eval`), else both files read as the command reads
    them (trec_eval's lenient readings warned about, or refused with `strict`) and trec_eval's main loop:
    (Evaluation, run id)."""
    fast = None if settings.complete else fastpath.trec_eval(settings, qrels_path, run_path, names, params)
    if fast is not None:
        return command.Evaluation.of_columns(fast, settings.complete), fast.run_id
    qrels, run = _read_as_trec_eval(command, settings, qrels_path, run_path, warnings, strict)
    evaluation = command.evaluate(settings, qrels, run, names, params, run_path, [], warnings)
    return evaluation, run.run_id


def _read_as_trec_eval(command, settings, qrels_path, run_path, warnings, strict):
    """Both files read as `runscore trec_eval` reads them: its notes (what trec_eval reads silently: a score
    `abc` read as 0, a grade `1.5` read as 1, a BOM kept in an id, a repeated docno) become `warnings`, or
    errors with `strict` (ConfigError for the qrels, InvalidRunsError for the run)."""
    from ..ranking.trec_eval_files import read_qrels, read_run

    qrels = read_qrels(_file_bytes(qrels_path, "qrels"), qrels_path, settings.v10)
    run = read_run(_file_bytes(run_path, "run"), run_path, settings.v10)
    if settings.keep_first_duplicate:
        command._keep_first_lines(run, run.notes)
    else:
        command._duplicate_notes(run, run.notes)
    shown = {}
    for path, notes in ((qrels_path, qrels.notes), (run_path, run.notes)):
        shown[path] = ["%s: %s: %s" % ("%s:%d" % (path, n.line) if n.line else path, "error" if strict else
                                       "warning", n.message) for n in sorted(notes, key=lambda n: n.line)]
        warnings.extend([] if strict else shown[path])
    # as the command: with strict, a refused run line wins (exit 1) over a refused qrels line (exit 2)
    if strict and run.notes:
        raise InvalidRunsError(shown[run_path], {run_path: [Diagnostic(run_path, n.line, "error", n.message)
                                                            for n in run.notes]})
    if strict and qrels.notes:
        first = min(qrels.notes, key=lambda n: n.line)
        raise ConfigError(first.message, qrels_path, first.line)
    return qrels, run


def _file_bytes(path: str, what: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as exc:
        raise ConfigError("cannot read the %s file: %s" % (what, exc.strerror), path)


def _qrels_file(path: str, settings, warnings=None, strict=False):
    """{qid: {docno: grade}} of a qrels file read as `runscore trec_eval` reads it (a judgement repeated for a
    topic is an error: a dict holds one)."""
    from ..ranking.trec_eval_files import read_qrels

    qrels = read_qrels(_file_bytes(path, "qrels"), path, settings.v10)
    _notes_to(qrels.notes, path, warnings, strict, ConfigError)
    out = {}
    for qid in qrels.topics:
        twice = qrels.duplicate(qid)
        if twice is not None:
            raise ConfigError("duplicate judgement of %s in topic %s (first at line %d)" % (_text(twice[0]),
                              _text(qid), twice[1]), path, twice[2])
        out[_text(qid)] = {_text(d): g for d, g in qrels.grades(qid).items()}
    return out


def _run_file(path: str, settings, warnings, strict=False):
    """({qid: {docno: score}}, run id) of a run file read as `runscore trec_eval` reads it (a repeated docno is
    an error, as a dict holds one score, unless keep_first_duplicate)."""
    from ..commands import trec_eval as command
    from ..ranking.trec_eval_files import read_run

    run = read_run(_file_bytes(path, "run"), path, settings.v10)
    if settings.keep_first_duplicate:
        command._keep_first_lines(run, run.notes)
    _notes_to(run.notes, path, warnings, strict, RunError)
    out = {}
    for qid, topic in run.topics.items():
        ranked = out[_text(qid)] = {}
        for docno, score, line in zip(topic.docnos, topic.scores, topic.lines):
            if _text(docno) in ranked:
                raise RunError("duplicate docno %s in topic %s (keep_first_duplicate=True keeps the first)"
                               % (_text(docno), _text(qid)), path, line)
            ranked[_text(docno)] = score
    return out, _text(run.run_id)


def _notes_to(notes, path, warnings, strict, error_class):
    for note in sorted(notes, key=lambda n: n.line):
        if strict:
            raise error_class(note.message, path, note.line)
        if warnings is not None:
            warnings.append("%s: warning: %s" % ("%s:%d" % (path, note.line) if note.line else path, note.message))


def _memory_side(command, settings, qrels, run, warnings, strict=False):
    """Qrels and run as checked dicts, whatever each was given as."""
    if isinstance(qrels, (str, os.PathLike)):
        qrels = _qrels_file(os.fspath(qrels), settings, warnings, strict)
    qrels = inmemory.qrels_dict(qrels)
    if isinstance(run, (str, os.PathLike)):
        run = _run_file(os.fspath(run), settings, warnings, strict)[0]
    run = inmemory.run_dict(run)
    inmemory.check_run(run)
    return qrels, run


def _trec_eval_memory(command, settings, qrels, run, names, params, warnings, strict=False):
    """commands.trec_eval.evaluate for dicts: the same topics, the same values (whole-run kernels), as the
    command's Evaluation, and the checked dicts. A run topic without documents is left out, as a file written
    from the dict would leave it (no line); infinite and NaN scores are ranked as trec_eval ranks them read from a
    file, with a warning, as the command warns about them in a file."""
    qrels, run = _memory_side(command, settings, qrels, run, warnings, strict)
    if not qrels:
        raise ConfigError("the qrels have no judgements", "qrels")
    run = {qid: ranked for qid, ranked in run.items() if ranked}
    topics = []
    for qid in sorted(qrels):
        if qid not in run and not settings.complete:
            if settings.v10:
                raise RunError("topic %s of the qrels has no lines in the run (trec_eval 10.0 stops here; use "
                               "complete=True to score it as an empty ranking)" % qid, "run")
            continue
        topics.append(qid)
    from ..measures.trec import TrecOptions

    options = TrecOptions(interp_cutoff="v10" if settings.v10 else "v9", num_docs_in_coll=settings.num_docs_in_coll,
                          empty_is_nan=True)
    computed = [m for m in names if m not in ("runid", "num_q")]
    missing = {qid for qid in topics if qid not in run}
    if settings.v10 and missing:    # trec_eval 10.0 scores its placeholder ranking for a missing topic (-c)
        run = dict(run)
        run.update({qid: {command.BOGUS_DOCNO: 1.0} for qid in missing})
    else:                           # 9.0.8 averages a missing topic as 0 without evaluating it
        topics = [qid for qid in topics if qid in run]
    bound = 0
    for qid in topics if computed else ():
        bound = command.grade_counts(settings, qid, max(qrels[qid].values()), bound, computed, warnings)
    non_finite: Dict[str, Any] = {}
    per_topic = inmemory.evaluate(run, inmemory.MemoryQrels(qrels), topics, computed, settings.level, options,
                                  settings.max_docs, params, np.float64 if settings.v10 else np.float32,
                                  settings.judged_only, non_finite)
    if non_finite.get("NaN") or non_finite.get("infinite"):
        warnings.append("run: warning: %s (first in topic %s): ranked as trec_eval ranks them read from a file "
                        "(ties by docno descending%s), NaN below every number"
                        % (" and ".join("%d %s score(s)" % (non_finite[kind], kind) for kind in ("infinite", "NaN")
                                        if non_finite.get(kind)), non_finite["topic"],
                           "" if settings.v10 else "; a double beyond a C float is infinite in trec_eval 9"))
    evaluation = command.Evaluation()
    for qid in topics:
        values = per_topic[qid]
        if qid in missing:          # then clears what commands.trec_eval.zero_bogus says
            for name in values:
                command.zero_bogus(values, name)
        evaluation.values[qid] = values
        evaluation.printed.append(qid)
    if not evaluation.values:
        raise RunError("no topic of the run is in the qrels (nothing to evaluate)", "run")
    evaluation.denominator = len(evaluation.values)
    if settings.complete:
        evaluation.denominator = len(qrels)
        evaluation.missing = evaluation.denominator - len(evaluation.values)
        evaluation.complete_num_rel = sum(1 for judged in qrels.values() for grade in judged.values() if grade > 0)
    return evaluation, run, qrels


def _topic_values(command, names, values, params) -> Dict[str, Any]:
    """topic_lines' values: what -q prints for one topic."""
    from ..measures.trec import REGISTRY

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
    from .. import compare as analysis

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

    task = _task(task)
    overview.check_settings(trials, alpha, confidence, tau_bootstrap, pool_depth)
    report_files.check_output(os.fspath(output))
    paths, texts = _in_memory(runs)
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
            paths += _write_runs(memory, texts)
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
        campaign_runs = [overview.CampaignRun(taken.label, taken.owner, replace(taken.run, name=taken.label), scores)
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
