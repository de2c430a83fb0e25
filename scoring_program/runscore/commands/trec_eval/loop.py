"""trec_eval's main loop on parsed files, topic by topic as trec_eval.c runs it (the order of the topics, the
placeholder ranking of 10.0's -c, where it stops and where it would crash), the lines it prints for a topic and
the `all` rows its calc_avg functions make.

Why a module of its own: the command line (commands/trec_eval/__init__.py) and the Python API (api.trec_eval) run the
same loop on the same parsed files, and the fast path's result (`Evaluation.of_columns`) is summarised and
printed by the same code, so every door prints the same digits.
"""
import math
from collections import OrderedDict
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from ...ranking import fastpath
from ...measures.trec import MIN_GEO_MEAN, REGISTRY, TrecOptions, evaluate_topic
from ...ranking.label import judge_ranking
from ...ranking.qrels import MAX_GRADE
from ...ranking.rankeval import TopicRun, ranked_docnos
from ...ranking.trec_eval_files import BPREF_OVERREAD_WARN, TrecEvalFailure
from .options import Settings


def format_value(value: float, full: bool = False) -> str:
    """C printf("%6.4f") (or "%.17g" when `full`), including C's spelling of NaN and infinities."""
    if value != value:
        return ("%s" if full else "%6s") % ("-nan" if math.copysign(1.0, value) < 0 else "nan")
    if value in (math.inf, -math.inf):
        return ("%s" if full else "%6s") % ("inf" if value > 0 else "-inf")
    return "%.17g" % value if full else "%6.4f" % value


def _line(name: str, qid: str, text: str) -> str:
    return "%-22s\t%s\t%s" % (name, qid, text)


def topic_lines(qid: str, measures: Sequence[str], values: Dict[str, object], params: Dict,
                full: bool = False) -> List[str]:
    out = []
    for name in measures:
        if name in ("runid", "num_q"):
            continue
        measure = REGISTRY[name]
        if measure.summary == "gm":
            continue   # trec_eval prints geometric means only in the summary
        for value_name in measure.value_names(params.get(name, measure.params)):
            value = values[value_name]
            if measure.is_string:
                out.append(_line(value_name, qid, "'%s'" % value))
            elif measure.is_count:
                out.append(_line(value_name, qid, "%d" % int(value)))
            else:
                out.append(_line(value_name, qid, format_value(value, full)))
    return out


class Evaluation:
    """What trec_eval's main loop produced: the evaluated topics in its order with their values, the per-topic
    lines it printed, and what the summary divides by."""

    def __init__(self):
        self.values: "OrderedDict[str, Dict[str, object]]" = OrderedDict()
        self.printed: List[str] = []
        self.denominator = 0            # num_q: the evaluated topics, or every qrels topic with -c
        self.missing = 0                # 9.0.8 -c: qrels topics averaged as 0 without being evaluated
        self.complete_num_rel: Optional[int] = None   # -c: num_rel of the summary (qrels lines with rel > 0)

    @classmethod
    def of_columns(cls, fast: "fastpath.TrecEvalColumns", complete: bool) -> "Evaluation":
        """The fast path's result (every evaluated topic printed, in its order); -c averages over every qrels
        topic (a topic missing from the run scores 0)."""
        result = cls()
        for qid in fast.topics:
            result.values[qid] = fast.values[qid]
            result.printed.append(qid)
        result.denominator = len(fast.topics)
        if complete:
            result.denominator = fast.qrels_topics
            result.missing = result.denominator - len(fast.topics)
            result.complete_num_rel = fast.positive_judgements
        return result


BOGUS_DOCNO = "ceci_nest_pas_un_docno"     # trec_eval 10.0's one-document ranking for a missing topic (-c)
_BOGUS_ZEROED = ("num_ret", "utility", "rbp_resid")


def zero_bogus(values: Dict[str, object], name: str) -> None:
    """What trec_eval 10.0 clears after scoring its placeholder ranking for a topic missing from the run (-c):
    the values named exactly num_ret, utility, relstring and rbp_resid, and every unj* (strncmp 3). A value
    with parameters (utility_2,-1,0,0, relstring_3, rbp_resid_p=0.5) keeps what the placeholder document gave
    it, as in trec_eval.c."""
    if name in _BOGUS_ZEROED or name.startswith("unj"):
        values[name] = 0.0
    elif name == "relstring":
        values[name] = ""


def _first_duplicate(docnos: Sequence[str]) -> Optional[str]:
    """trec_eval's duplicate check: the smallest docno that occurs twice."""
    ordered = sorted(docnos)
    for a, b in zip(ordered, ordered[1:]):
        if a == b:
            return a
    return None


def grade_counts(settings: Settings, qid: str, highest: int, bound: int, computed: Sequence[str],
                 warnings: List[str]) -> int:
    """trec_eval's array of per-grade counts (form_res_rels' rel_levels, highest grade + 1 longs, grown by
    te_chk_and_malloc and kept across topics) for topic `qid`: the bound after it, what trec_eval stops on
    (TrecEvalFailure) and where it would crash (a warning). Every door calls it for each topic it evaluates, in
    trec_eval's order, so that the same judgements stop or warn whatever they were given as."""
    needed = highest + 1
    if needed <= bound and bound == 0:
        # Only negative grades, and no topic before allocated the array: te_chk_and_malloc returns its
        # NULL pointer and trec_eval gives up (a later such topic reuses the array and scores 0).
        raise TrecEvalFailure("trec_eval: Can't calculate measure '%s'\n" % computed[0], 4,
                              "%s: error: topic %s has only negative grades (trec_eval fails on it when "
                              "it is the first topic evaluated)" % (settings.qrels_path, qid))
    if needed <= -1:
        # trec_eval clears grade + 1 <= -1 counts (a negative size: it crashes); a topic whose highest
        # grade is -1 it scores as having nothing relevant, and so does runscore for this one.
        warnings.append("%s: warning: topic %s: its highest grade is %d; trec_eval crashes on such a topic "
                        "(it clears an array of %d counts) when another topic comes before it; runscore "
                        "scores it as trec_eval scores a topic whose highest grade is -1 (nothing relevant)"
                        % (settings.qrels_path, qid, needed - 1, needed))
    if settings.level - max(bound, needed) >= BPREF_OVERREAD_WARN and \
            ("bpref" in computed or "gm_bpref" in computed):
        warnings.append("runscore trec_eval: warning: topic %s: bpref with -l %d reads %d counts past the "
                        "end of trec_eval's array of per-grade counts (its highest grade is %d), which can "
                        "crash trec_eval; runscore gives bpref 0, as trec_eval does when it does not crash "
                        "(no document is relevant at that level)"
                        % (qid, settings.level, settings.level - max(bound, needed), needed - 1))
    if needed - 1 > MAX_GRADE:
        # trec_eval allocates and clears grade + 1 longs per topic (gigabytes here, or a failed malloc).
        raise TrecEvalFailure("trec_eval: Can't calculate measure '%s'\n" % computed[0], 4,
                              "%s: error: topic %s has grade %d; runscore refuses grades above %d "
                              "(trec_eval would allocate an array of that many counts)"
                              % (settings.qrels_path, qid, needed - 1, MAX_GRADE))
    return bound + needed if needed > bound else bound


def evaluate(settings: Settings, qrels, run, measures: Sequence[str], params: Dict, run_path: str,
             out: List[str], warnings: Optional[List[str]] = None) -> Evaluation:
    """trec_eval's main loop on parsed files (trec_eval_files.Qrels, Run). Per-topic lines go to `out` as the
    topics are evaluated, so a failure (TrecEvalFailure) leaves there what trec_eval printed before it.
    `warnings` receives where trec_eval crashes and runscore prints values (docs/trec_eval.md)."""
    warnings = [] if warnings is None else warnings
    options = TrecOptions(interp_cutoff="v10" if settings.v10 else "v9",
                          num_docs_in_coll=settings.num_docs_in_coll, empty_is_nan=True)
    dtype = np.float64 if settings.v10 else np.float32
    computed = [m for m in measures if m not in ("runid", "num_q")]
    result = Evaluation()
    levels_bound = 0        # form_res_rels' rel_levels array: te_chk_and_malloc's bound, kept across topics
    if settings.v10:
        order = sorted(qrels.topics)
    else:
        order = [qid for qid in sorted(run.topics) if qid in qrels.topics]
    for qid in order:
        topic_run = run.topics.get(qid)
        bogus = topic_run is None
        if bogus:
            if not settings.complete:
                raise TrecEvalFailure("trec_eval: result qid '%s' not found in qrels\n" % qid, 4,
                                      "%s: error: topic %s of the qrels has no line in the run (trec_eval 10.0 "
                                      "stops here; -c scores it as an empty ranking)" % (run_path, qid))
            topic_run = TopicRun([BOGUS_DOCNO], [1.0], [0])
        grades = qrels.grades(qid)
        if "utility" in computed and len(params.get("utility", REGISTRY["utility"].params)) != 4:
            raise TrecEvalFailure("trec_eval.calc_utility: improper number of coefficients\n"
                                  "trec_eval: Can't calculate measure 'utility'\n", 4,
                                  "%s: error: utility takes 4 coefficients, got %d" % (
                                      run_path, len(params["utility"])))
        if computed:
            docnos = ranked_docnos(topic_run, "desc", settings.max_docs, dtype)
            repeated = _first_duplicate(docnos)
            if repeated is not None:
                first = [line for d, line in zip(topic_run.docnos, topic_run.lines) if d == repeated][:2]
                raise TrecEvalFailure("trec_eval.form_res_qrels: duplicate docs %s"
                                      "trec_eval: Can't calculate measure '%s'\n" % (repeated, computed[0]), 4,
                                      "%s:%d: error: duplicate docno %s in topic %s (first seen at line %d)"
                                      % (run_path, first[-1], repeated, qid, first[0]))
            twice = qrels.duplicate(qid)
            if twice is not None:
                raise TrecEvalFailure("trec_eval.form_res_rels: duplicate docs %s\n"
                                      "trec_eval: Can't calculate measure '%s'\n" % (twice[0], computed[0]), 4,
                                      "%s:%d: error: duplicate judgement of %s in topic %s (first at line %d)"
                                      % (settings.qrels_path, twice[2], twice[0], qid, twice[1]))
            levels_bound = grade_counts(settings, qid, max(rel for _d, rel, _l in qrels.topics[qid]), levels_bound,
                                        computed, warnings)
            judged = judge_ranking(docnos, grades, settings.level)
            if settings.judged_only:
                judged.rels = judged.rels[judged.rels >= 0]
            values = evaluate_topic(judged, computed, options, params)
        else:
            values = {}
        if bogus:
            # trec_eval 10.0 scores the placeholder ranking, then zeroes what it would otherwise count.
            for name in values:
                zero_bogus(values, name)
        result.values[qid] = values
        result.printed.append(qid)
        if settings.per_topic:
            out.extend(topic_lines(qid, measures, values, params, settings.full_precision))
    if not result.values:
        raise TrecEvalFailure("trec_eval: No queries with both results and relevance info\n", 7,
                              "%s: error: no topic of the run is in the qrels (nothing to evaluate)" % run_path)
    result.denominator = len(result.values)
    if settings.complete:
        result.denominator = len(qrels.topics)
        result.missing = result.denominator - len(result.values)
        result.complete_num_rel = sum(1 for entries in qrels.topics.values() for _d, rel, _l in entries if rel > 0)
    return result


def summary_values(measures: Sequence[str], evaluation: Evaluation, params: Dict, run_id: str) -> List[Tuple]:
    """The `all` rows as trec_eval's calc_avg functions make them, as (name, value) with counts as ints: sums in
    topic order, divided by num_q (api.trec_eval returns them; summary_lines prints them)."""
    out: List[Tuple] = []
    per_topic = list(evaluation.values.values())
    n = evaluation.denominator
    for name in measures:
        if name == "runid":
            out.append(("runid", run_id))
            continue
        if name == "num_q":
            out.append(("num_q", n))
            continue
        measure = REGISTRY[name]
        if measure.summary == "none":
            continue
        for value_name in measure.value_names(params.get(name, measure.params)):
            values = [v[value_name] for v in per_topic]
            if measure.summary == "sum":
                total = 0.0
                for v in values:
                    total += v
                if value_name == "num_rel" and evaluation.complete_num_rel is not None:
                    total = evaluation.complete_num_rel
                out.append((value_name, int(total)))
                continue
            total = 0.0
            if measure.summary == "gm":
                for v in values:
                    total += math.log(max(v, MIN_GEO_MEAN))
                total += evaluation.missing * math.log(MIN_GEO_MEAN)
                value = math.exp(total / n) if n else 0.0
            else:
                for v in values:
                    total += v
                value = total / n if n else total
            out.append((value_name, value))
    return out


def summary_lines(measures: Sequence[str], evaluation: Evaluation, params: Dict, run_id: str,
                  full: bool = False) -> List[str]:
    """The `all` rows as trec_eval prints them."""
    return [_line(name, "all", value if name == "runid" else "%d" % value if isinstance(value, int)
                  else format_value(value, full))
            for name, value in summary_values(measures, evaluation, params, run_id)]
