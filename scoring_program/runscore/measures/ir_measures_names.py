"""ir_measures' measure names (`nDCG@10`, `P(rel=2)@5`, `AP`, `RR@10`, `Judged@10`) as trec_eval measures, for
runscore.api.trec_eval, and the two ir_measures measures trec_eval does not have: Judged@k and RR@k.

Why: people who move from ir_measures type its names and expect its numbers; api.trec_eval takes them next to
trec_eval's and returns each value under the name asked. A name means what it means in ir_measures, parameters
included: `P@5` is relevance 1 whatever api.trec_eval's `level=` (that option is trec_eval's `-l`, for trec_eval
names), `P(rel=2)@5` is trec_eval's `P.5` with `-l 2`, `nDCG(gains={0: 0, 1: 1, 2: 3})@10` is `ndcg_cut.10` on the
qrels with their grades mapped, as ir_measures' pytrec_eval provider computes them. The grammar is ir_measures'
own (a Python expression: a name, keyword parameters, `@` and the cutoff), read by `ast` with literal values only.
The translation is exact (case and spelling as ir_measures writes them), unlike measures/names.py's lenient
matching, which only suggests names.
"""
import ast
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple

from ..errors import ConfigError
from .judged import MAX_GRADE

# ir_measures name -> (trec_eval measure without a cutoff, trec_eval measure taking the cutoff, the parameters
# ir_measures gives it besides the cutoff); None = not available that way; "" = computed here (Judged, RR@k).
_TABLE = {
    "AP": ("map", "map_cut", ("rel", "judged_only")),
    "nDCG": ("ndcg", "ndcg_cut", ("dcg", "gains", "judged_only")),
    "P": (None, "P", ("rel", "judged_only")),
    "R": (None, "recall", ("rel", "judged_only")),
    "RR": ("recip_rank", "", ("rel", "judged_only")),
    "Success": (None, "success", ("rel", "judged_only")),
    "IPrec": (None, "iprec_at_recall", ("rel", "judged_only")),
    "Rprec": ("Rprec", None, ("rel", "judged_only")),
    "Bpref": ("bpref", None, ("rel",)),
    "infAP": ("infAP", None, ("rel",)),
    "NumRet": ("num_ret", None, ("rel",)),
    "NumRel": ("num_rel", None, ("rel",)),
    "NumQ": ("num_q", None, ()),
    "SetP": ("set_P", None, ("rel", "relative", "judged_only")),
    "SetR": ("set_recall", None, ("rel",)),
    "SetF": ("set_F", None, ("rel", "beta", "judged_only")),
    "SetAP": ("set_map", None, ("rel", "judged_only")),
    "Judged": ("", "", ()),
}
# Names that are also trec_eval's, for the same measure: written bare, they stay trec_eval names (`Rprec()` is
# ir_measures').
_TREC_EVAL_TOO = ("P", "Rprec", "infAP")
# ir_measures sums these over the topics (SumAgg); every other measure is a mean.
_SUMMED = ("NumRet", "NumRel", "NumQ")
_TYPES = {"rel": int, "judged_only": bool, "dcg": str, "gains": dict, "relative": bool, "beta": (int, float)}


class IrMeasure(NamedTuple):
    """One ir_measures name: how it is computed (`kind`: "trec" by the trec_eval measure `trec_arg` whose value is
    `value_name`, "judged" for Judged@k, "rr_cut" for RR@k), its cutoff (None when not given), the settings of
    the evaluation that computes it (the relevance level `rel`, `judged_only`, the grade -> gain mapping `gains`)
    and how ir_measures aggregates it ("mean" or "sum")."""
    name: str
    kind: str
    trec_arg: str
    value_name: str
    cutoff: Optional[str]
    rel: int = 1
    judged_only: bool = False
    gains: Optional[Tuple[Tuple[int, int], ...]] = None
    summary: str = "mean"

    @property
    def setting(self) -> Tuple[int, bool, Optional[Tuple[Tuple[int, int], ...]], str]:
        """What one trec_eval evaluation shares (ir_measures' pytrec_eval invocations): level, -J, gains, and the
        set_F parameter (trec_eval keeps the first set_F asked for)."""
        return self.rel, self.judged_only, self.gains, self.trec_arg if self.trec_arg.startswith("set_F") else ""


def parse(name: str) -> Optional[IrMeasure]:
    """The ir_measures measure `name` stands for, None when it is not an ir_measures name (then it is a trec_eval
    one), or ConfigError when it is one that has no trec_eval equivalent here."""
    parsed = _expression(name)
    if parsed is None:
        return None
    base, params, cutoff, called = parsed
    if base in _TREC_EVAL_TOO and not called and cutoff is None:
        return None
    plain, with_cutoff, known = _TABLE[base]
    unknown = sorted(set(params) - set(known))
    if unknown:
        raise ConfigError("measure %r: %s takes %s in ir_measures, not %s" % (
            name, base, ", ".join(known) or "no parameter", ", ".join(unknown)))
    for key, value in params.items():
        if not isinstance(value, _TYPES[key]) or (_TYPES[key] is int and isinstance(value, bool)):
            raise ConfigError("measure %r: %s=%r is not a %s" % (name, key, value, {
                int: "whole number", bool: "True or False", str: "string", dict: "dict"}.get(_TYPES[key], "number")))
    rel, judged_only = params.get("rel", 1), params.get("judged_only", False)
    if rel < 1:
        raise ConfigError("measure %r: rel is at least 1 (pytrec_eval, behind ir_measures, refuses lower levels)"
                          % name)
    summary = "sum" if base in _SUMMED else "mean"
    if base == "Judged":
        return IrMeasure(name, "judged", "", "", _cutoff(name, cutoff, integer=True))
    if base == "RR" and cutoff is not None:
        if judged_only:
            raise ConfigError("measure %r: ir_measures computes RR with a cutoff (its MS MARCO provider) without "
                              "judged_only" % name)
        return IrMeasure(name, "rr_cut", "", "", _cutoff(name, cutoff, integer=True), rel=rel)
    gains = _gains(name, params) if base == "nDCG" else None
    if cutoff is None:
        if plain is None:
            raise ConfigError("measure %r needs a cutoff, e.g. %s@10" % (name, base))
        arg = plain
        if base == "NumRet" and "rel" in params:
            arg = "num_rel_ret"         # the documents retrieved at or above rel (ir_measures' NumRet(rel=k))
        elif base == "SetP" and params.get("relative"):
            arg = "set_relative_P"
        elif base == "SetF" and "beta" in params:
            arg = "set_F.%r" % float(params["beta"])
        value = arg.split(".")[0] if base != "SetF" else "set_F" + ("_%r" % float(params["beta"])
                                                                     if "beta" in params else "")
        return IrMeasure(name, "trec", arg, value, None, rel, judged_only, gains, summary)
    if with_cutoff is None:
        raise ConfigError("measure %r: trec_eval has no %s with a cutoff; ask for %s" % (name, base, base))
    if base == "IPrec":
        point = _number(name, cutoff)
        return IrMeasure(name, "trec", "iprec_at_recall.%s" % cutoff, "iprec_at_recall_%.2f" % point, cutoff, rel,
                         judged_only, gains, summary)
    cutoff = _cutoff(name, cutoff, integer=True)
    return IrMeasure(name, "trec", "%s.%s" % (with_cutoff, cutoff), "%s_%s" % (with_cutoff, cutoff), cutoff, rel,
                     judged_only, gains, summary)


def _expression(name: str) -> Optional[Tuple[str, Dict[str, Any], Optional[Any], bool]]:
    """(measure name, parameters, cutoff, whether written with parentheses) of ir_measures' grammar
    (`Name(key=literal, ...)@literal`), or None when `name` is not written that way or names no measure of
    _TABLE."""
    try:
        tree = ast.parse(name.strip(), mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):      # (nesting too deep for the parser)
        return None
    cutoff = None
    if isinstance(tree, ast.BinOp) and isinstance(tree.op, ast.MatMult):
        cutoff, tree = tree.right, tree.left
    params: Dict[str, Any] = {}
    called = isinstance(tree, ast.Call)
    if called:
        if tree.args or any(k.arg is None for k in tree.keywords) or not isinstance(tree.func, ast.Name) \
                or tree.func.id not in _TABLE:
            return None
        params = {keyword.arg: keyword.value for keyword in tree.keywords}
        tree = tree.func
    if not isinstance(tree, ast.Name) or tree.id not in _TABLE:
        return None
    try:
        params = {key: ast.literal_eval(value) for key, value in params.items()}
        cutoff = ast.literal_eval(cutoff) if cutoff is not None else None
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise ConfigError("measure %r: parameters and cutoffs are literal values (P(rel=2)@10)" % name)
    return tree.id, params, cutoff, called


def _cutoff(name: str, cutoff: Any, integer: bool) -> Optional[str]:
    if cutoff is None:
        return None
    if isinstance(cutoff, bool) or not isinstance(cutoff, int) or cutoff < 1:
        raise ConfigError("measure %r: the cutoff must be a whole number of at least 1" % name)
    return str(cutoff)


def _number(name: str, point: Any) -> float:
    if isinstance(point, bool) or not isinstance(point, (int, float)) or not 0 <= point <= 1:
        raise ConfigError("measure %r: the recall point is a number between 0 and 1" % name)
    return float(point)


def _gains(name: str, params: Mapping[str, Any]) -> Optional[Tuple[Tuple[int, int], ...]]:
    """The grade -> gain mapping of an nDCG: `gains` as given, or dcg='exp-log2' (gain 2^grade - 1, which is
    ir_measures' exp-log2 formulation; log2 discounts are trec_eval's own), as integers (trec_eval's grades)."""
    dcg = params.get("dcg", "log2")
    if dcg not in ("log2", "exp-log2"):
        raise ConfigError("measure %r: dcg is 'log2' or 'exp-log2', not %r" % (name, dcg))
    if "gains" in params:
        if dcg != "log2":
            raise ConfigError("measure %r: give gains or dcg='exp-log2', not both (ir_measures computes neither "
                              "with the other)" % name)
        pairs = params["gains"].items()
        if not all(isinstance(v, int) and not isinstance(v, bool) for pair in pairs for v in pair):
            raise ConfigError("measure %r: gains map whole grades to whole gains (trec_eval's grades are "
                              "integers)" % name)
        if any(abs(v) > MAX_GRADE for pair in pairs for v in pair):
            raise ConfigError("measure %r: gains are at most %d" % (name, MAX_GRADE))
        return tuple(sorted(pairs))
    return "exp" if dcg == "exp-log2" else None         # (the grades are known only with the qrels)


def map_grades(qrels: Mapping[str, Mapping[str, int]], gains) -> Dict[str, Dict[str, int]]:
    """The qrels with each grade replaced by its gain, as ir_measures' pytrec_eval provider hands nDCG with gains
    to pytrec_eval (a grade the mapping does not name keeps its value); "exp": 2^grade - 1 for grades above 0."""
    if gains == "exp":
        if any(g > 19 for judged in qrels.values() for g in judged.values()):
            raise ConfigError("dcg='exp-log2': a grade above 19 has a gain beyond %d" % MAX_GRADE)
        return {qid: {doc: (2 ** g - 1 if g > 0 else g) for doc, g in judged.items()} for qid, judged in qrels.items()}
    mapping = dict(gains)
    return {qid: {doc: mapping.get(g, g) for doc, g in judged.items()} for qid, judged in qrels.items()}


def trec_eval_args(measures: Sequence[IrMeasure]) -> List[str]:
    """`-m` arguments computing `measures` (of one setting), the cutoffs of one trec_eval measure joined (P@5 and
    P@10 give P.5,10: trec_eval keeps only the first `-m` of a measure)."""
    cutoffs: Dict[str, List[str]] = {}
    for measure in measures:
        if measure.trec_arg:
            base, _, cutoff = measure.trec_arg.partition(".")
            listed = cutoffs.setdefault(base, [])
            if cutoff and cutoff not in listed:
                listed.append(cutoff)
    return [base + ("." + ",".join(listed) if listed else "") for base, listed in cutoffs.items()]


def ranked_as_ir_measures(docs: Mapping[str, float]) -> List[str]:
    """The documents of one topic as ir_measures' own providers (judged, msmarco) rank them: score descending as
    a double, then docno ascending (not trec_eval's order: score as a C float, then docno descending)."""
    return [doc for doc, _ in sorted(docs.items(), key=lambda item: (-item[1], item[0]))]


def judged_at(ranked: Sequence[str], judged: Mapping[str, int], cutoff: Optional[str]) -> float:
    """Judged@k of one topic as ir_measures defines it: the share of the first k documents (all when k is not
    given; k = the ranking's length when it is shorter) that the qrels judge, whatever the grade. A topic with
    nothing retrieved scores 0 (ir_measures divides by zero)."""
    top = ranked if cutoff is None else ranked[:int(cutoff)]
    return sum(doc in judged for doc in top) / len(top) if top else 0.0


def rr_at(ranked: Sequence[str], judged: Mapping[str, int], cutoff: Optional[str], rel: int) -> float:
    """RR@k of one topic as ir_measures defines it (its MS MARCO provider): 1 / the rank of the first document
    graded `rel` or more among the first k, 0 when there is none."""
    for rank, doc in enumerate(ranked[:int(cutoff)], 1):
        grade = judged.get(doc)
        if grade is not None and grade >= rel:
            return 1 / rank
    return 0.0


def expected_topics(measures: Sequence[IrMeasure], qrels_topics: Sequence[str],
                    qrels: Mapping[str, Mapping[str, int]]) -> List[str]:
    """The topics ir_measures averages `measures` (asked in one call) over: every qrels topic, also one without
    judgements, as its pytrec_eval and judged providers list them; only those with a judgement when every measure
    is an RR@k (its MS MARCO provider lists those, and ir_measures takes the topics of the first provider it
    calls for all the measures of a call)."""
    if all(measure.kind == "rr_cut" for measure in measures):
        return [qid for qid in qrels_topics if qrels.get(qid)]
    return list(qrels_topics)


def aggregate(measure: IrMeasure, values: Sequence[float]) -> Any:
    """ir_measures' aggregation of one measure's values, in its order: a sum from 0 (SumAgg) or a mean, NaN
    when there is no topic (MeanAgg), each added left to right as ir_measures adds them."""
    total: Any = 0 if measure.summary == "sum" else 0.0
    for value in values:
        total += value
    if measure.summary == "sum":
        return total
    return total / len(values) if values else float("nan")
