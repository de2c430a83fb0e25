"""ir_measures' measure names (`nDCG@10`, `P@10`, `AP`, `R@100`, `RR`, `Judged@10`) as trec_eval measures, for
runscore.api.trec_eval, and Judged@k, which trec_eval does not have.

Why: people who move from ir_measures type its names; api.trec_eval takes them next to trec_eval's and returns
each value under the name asked. The translation is exact (case and spelling as ir_measures writes them), unlike
measures/names.py's lenient matching, which only suggests names. ir_measures' parameters in parentheses
(`P(rel=2)@10`) are not taken: their trec_eval form is an option (level=) or a `-m` parameter.
"""
import re
from typing import Dict, List, Mapping, NamedTuple, Optional, Sequence

from ..errors import ConfigError

# ir_measures name -> (trec_eval measure without a cutoff, trec_eval measure taking the cutoff); None = not
# available that way.
_TABLE = {
    "AP": ("map", "map_cut"), "nDCG": ("ndcg", "ndcg_cut"), "P": (None, "P"), "R": (None, "recall"),
    "RR": ("recip_rank", None), "Success": (None, "success"), "IPrec": (None, "iprec_at_recall"),
    "Rprec": ("Rprec", None), "Bpref": ("bpref", None), "infAP": ("infAP", None), "NumRet": ("num_ret", None),
    "NumRel": ("num_rel", None), "NumQ": ("num_q", None), "SetP": ("set_P", None), "SetR": ("set_recall", None),
    "SetF": ("set_F", None), "SetAP": ("set_map", None), "Judged": ("", ""),
}
_NAME = re.compile(r"([A-Za-z]+)(\(.*\))?(?:@([0-9]+(?:\.[0-9]+)?))?")


class IrMeasure(NamedTuple):
    """One ir_measures name: the `-m` argument that computes it and the trec_eval output name of its value
    (both empty for Judged), and its cutoff (None when not given)."""
    name: str
    trec_arg: str
    value_name: str
    cutoff: Optional[str]


def parse(name: str) -> Optional[IrMeasure]:
    """The ir_measures measure `name` stands for, None when it is not an ir_measures name (then it is a trec_eval
    one), or ConfigError when it is one that trec_eval cannot compute."""
    match = _NAME.fullmatch(name)
    if not match or match.group(1) not in _TABLE or match.group(1) in ("Rprec", "infAP") and not match.group(3):
        return None                 # Rprec and infAP are also trec_eval's names, for the same measures
    base, params, cutoff = match.groups()
    if params:
        raise ConfigError("measure %r: ir_measures parameters %s are not taken here; give trec_eval's form "
                          "(level= for rel, a -m parameter such as ndcg.1=3,2=9 for gains)" % (name, params))
    plain, with_cutoff = _TABLE[base]
    if base == "Judged":
        if cutoff is not None and "." in cutoff:
            raise ConfigError("measure %r: Judged takes an integer cutoff" % name)
        return IrMeasure(name, "", "", cutoff)
    if cutoff is None:
        if plain is None:
            raise ConfigError("measure %r needs a cutoff, e.g. %s@10" % (name, base))
        return IrMeasure(name, plain, plain, None)
    if with_cutoff is None:
        raise ConfigError("measure %r: trec_eval has no %s with a cutoff; ask for %s" % (name, base, base))
    if base == "IPrec":
        return IrMeasure(name, "%s.%s" % (with_cutoff, cutoff), "%s_%.2f" % (with_cutoff, float(cutoff)), cutoff)
    if "." in cutoff:
        raise ConfigError("measure %r: the cutoff must be an integer" % name)
    return IrMeasure(name, "%s.%s" % (with_cutoff, cutoff), "%s_%s" % (with_cutoff, cutoff), cutoff)


def trec_eval_args(measures: Sequence[IrMeasure]) -> List[str]:
    """`-m` arguments computing `measures`, the cutoffs of one trec_eval measure joined (P@5 and P@10 give
    P.5,10: trec_eval keeps only the first `-m` of a measure)."""
    cutoffs: Dict[str, List[str]] = {}
    for measure in measures:
        if measure.trec_arg:
            base, _, cutoff = measure.trec_arg.partition(".")
            listed = cutoffs.setdefault(base, [])
            if cutoff and cutoff not in listed:
                listed.append(cutoff)
    return [base + ("." + ",".join(listed) if listed else "") for base, listed in cutoffs.items()]


def judged_at(run: Mapping[str, Mapping[str, float]], qrels: Mapping[str, Mapping[str, int]],
              topics: Sequence[str], cutoff: Optional[str]) -> Dict[str, float]:
    """Judged@k of each topic as ir_measures defines it: the share of the first k documents (all when k is not
    given; k = the ranking's length when it is shorter) that the qrels judge, whatever the grade, with
    ir_measures' ranking (score descending as a double, then docno ascending). A topic with nothing retrieved
    scores 0 (ir_measures divides by zero)."""
    out: Dict[str, float] = {}
    for topic in topics:
        ranked: List = sorted((run.get(topic) or {}).items(), key=lambda item: (-item[1], item[0]))
        top = ranked if cutoff is None else ranked[:int(cutoff)]
        judged = qrels.get(topic, {})
        out[topic] = sum(doc in judged for doc, _ in top) / len(top) if top else 0.0
    return out
