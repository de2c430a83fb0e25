"""api.trec_eval for ir_measures names (`nDCG@10`, `P(rel=2)@5`, `Judged@10`, `RR@10`): each evaluated with its own
settings, as ir_measures' pytrec_eval provider groups them; with complete=True ir_measures' own aggregation (the
drop-in's values, 0 for every other qrels topic), otherwise trec_eval's (trec_measures.py)."""
import os
from typing import Any, Dict, List, Mapping, Optional, Sequence

from ..errors import ConfigError
from ..measures.trec import REGISTRY
from .trec_measures import evaluate_trec
from .trec_reading import as_api_error, memory_side, trec_argv


# Bare names that are both trec_eval's and ir_measures': trec_eval's, except with complete=True, which asks for
# ir_measures' answer (every qrels topic, zeros where nothing is shared), as ir_measures gives it for them.
_BOTH = ("Rprec", "infAP")


def ir_measures_name(name: str, complete: bool) -> Any:
    """The ir_measures measure `name` stands for (None: a trec_eval name); with complete=True a bare Rprec or
    infAP is ir_measures' (`Rprec()`, `infAP()`), still returned under the name asked."""
    from ..measures import ir_measures_names

    if complete and name.strip() in _BOTH:
        return ir_measures_names.parse(name.strip() + "()")._replace(name=name)
    return ir_measures_names.parse(name)


def evaluate_ir(qrels: Any, run: Any, ir_names: Sequence[Any], options: Dict[str, Any], with_trec_eval_names: bool
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
    settings, _ = command.parse_settings(trec_argv(["num_q"], False, 1, None, False, 0, options["version"],
                                                   options["keep_first_duplicate"]))
    warnings: List[str] = []
    qrels_topics = _qrels_topics(qrels)
    settings.qrels_path = os.fspath(qrels) if isinstance(qrels, (str, os.PathLike)) else "qrels"
    try:
        qrels, run = memory_side(command, settings, qrels, run, warnings, options["strict"])
    except TrecEvalFailure as exc:
        raise as_api_error(exc, settings.qrels_path)
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
        out = evaluate_trec(graded[gains] if gains else qrels, run, ir.trec_eval_args(group) or ["num_q"], **settings)
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
