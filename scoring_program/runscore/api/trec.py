"""api.trec_eval, the door: `runscore trec_eval -q` as data. It sorts the measures asked into trec_eval's -m
arguments (trec_measures.py), ir_measures names (ir_measures.py) and names spelt `trec_eval:NAME`, evaluates each
kind apart and merges their values and warnings."""
from typing import Any, Dict, Optional, Sequence

from .ir_measures import evaluate_ir, ir_measures_name
from .trec_measures import evaluate_trec


# A measure spelt `trec_eval:NAME` is trec_eval's -m NAME whatever else NAME could mean (with complete=True, bare
# `Rprec` and `infAP` are ir_measures' names): its values come back keyed `trec_eval:` + trec_eval's output name.
TREC_EVAL_PREFIX = "trec_eval:"


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
    asked = [(m, ir_measures_name(m, complete) if isinstance(m, str) else None) for m in measures
             if not (isinstance(m, str) and m.startswith(TREC_EVAL_PREFIX))]
    trec_args = [m for m, ir in asked if ir is None]
    ir_names = [ir for _, ir in asked if ir is not None]
    options = dict(complete=complete, level=level, max_docs=max_docs, judged_only=judged_only,
                   num_docs_in_coll=num_docs_in_coll, version=version, keep_first_duplicate=keep_first_duplicate,
                   run_id=run_id, strict=strict)
    if not ir_names and not explicit:
        return evaluate_trec(qrels, run, trec_args, **options)
    # Two evaluations when both kinds are asked, so that trec_eval's rule for a measure asked twice (the first -m
    # wins) never drops a cutoff asked by its ir_measures name (P.5 and P@10); a third for the names spelt
    # trec_eval:NAME, whose values are keyed with that prefix.
    empty: Dict[str, Any] = {"all": {}, "per_topic": {}, "warnings": []}
    result = evaluate_trec(qrels, run, trec_args, **options) if trec_args or not (ir_names or explicit) else empty
    parts = [evaluate_ir(qrels, run, ir_names, options, bool(trec_args or explicit))] if ir_names else []
    if explicit:
        spelt = evaluate_trec(qrels, run, explicit, **options)
        parts.append({"all": {TREC_EVAL_PREFIX + k: v for k, v in spelt["all"].items()},
                      "per_topic": {q: {TREC_EVAL_PREFIX + k: v for k, v in row.items()}
                                    for q, row in spelt["per_topic"].items()}, "warnings": spelt["warnings"]})
    for extra in parts:
        result["all"].update(extra["all"])
        for qid, values in extra["per_topic"].items():
            result["per_topic"].setdefault(qid, {}).update(values)
        result["warnings"] += [w for w in extra["warnings"] if w not in result["warnings"]]
    return result
