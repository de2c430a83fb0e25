"""api.trec_eval for trec_eval's -m arguments: two files through the command's own reading and main loop (or its
fast path for a big clean run), dicts and DataFrames through the whole-run kernels (inmemory.py), both into the
command's summary, so the values are those `runscore trec_eval -q` prints, at full precision."""
import os
from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from .. import inmemory
from ..errors import ConfigError, RunError
from ..ranking import fastpath
from .trec_reading import as_api_error, id_text, memory_side, read_as_trec_eval, trec_argv


def evaluate_trec(qrels: Any, run: Any, measures: Sequence[str], complete: bool, level: int,
                  max_docs: Optional[int], judged_only: bool, num_docs_in_coll: int, version: str,
                  keep_first_duplicate: bool, run_id: str, strict: bool) -> Dict[str, Any]:
    """trec_eval() for trec_eval's -m arguments: the files through the command's own reading and main loop (or
    its fast path), anything else through the whole-run kernels, both into the command's summary."""
    from ..commands import trec_eval as command
    from ..ranking.trec_eval_files import TrecEvalFailure

    argv = trec_argv(measures, complete, level, max_docs, judged_only, num_docs_in_coll, version,
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
        raise as_api_error(exc, settings.qrels_path)
    summary = dict(command.summary_values(names, evaluation, params, run_id))
    # ids read from files are their bytes as Latin-1 characters; the dicts' ids are the caller's own text
    key = id_text if files else str
    return {"all": summary, "per_topic": {key(qid): _topic_values(command, names, evaluation.values[qid], params)
                                          for qid in evaluation.printed}, "warnings": warnings}


def _trec_eval_files(command, settings, qrels_path, run_path, names, params, warnings, strict):
    """The fast path for a big clean run (as `runscore trec_eval`), else both files read as the command reads
    them (trec_eval's lenient readings warned about, or refused with `strict`) and trec_eval's main loop:
    (Evaluation, run id)."""
    fast = None if settings.complete else fastpath.trec_eval(settings, qrels_path, run_path, names, params)
    if fast is not None:
        return command.Evaluation.of_columns(fast, settings.complete), fast.run_id
    qrels, run = read_as_trec_eval(command, settings, qrels_path, run_path, warnings, strict)
    evaluation = command.evaluate(settings, qrels, run, names, params, run_path, [], warnings)
    return evaluation, run.run_id


def _trec_eval_memory(command, settings, qrels, run, names, params, warnings, strict=False):
    """commands.trec_eval.evaluate for dicts: the same topics, the same values (whole-run kernels), as the
    command's Evaluation, and the checked dicts. A run topic without documents is left out, as a file written
    from the dict would leave it (no line); infinite and NaN scores are ranked as trec_eval ranks them read from a
    file, with a warning, as the command warns about them in a file."""
    qrels, run = memory_side(command, settings, qrels, run, warnings, strict)
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
