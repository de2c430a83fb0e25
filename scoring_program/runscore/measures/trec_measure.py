"""What a trec_eval measure is: its record (TrecMeasure), its parameters (Params, read from `-m name.params` as
trec_eval's meas_init.c reads them) and the evaluation-wide options that change values (TrecOptions).

Why a module of its own: the command line, the Python API and the tasks describe measures with these records;
the measures themselves (measures/trec.py) and their building blocks (measures/trec_blocks.py) only fill them.
"""
from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence, Tuple

from .c_numbers import c_atof, c_atol
from .judged import JudgedTopic

INTERP_RULES = ("v9", "v10", "ceil")

# How the parameters of a measure are written after the dot of `-m name.params` (trec_eval meas_init.c).
LONG_CUTOFFS = "long_cutoffs"        # 5,10,15: integers, sorted, positive, no duplicates; one value each
DOUBLE_CUTOFFS = "double_cutoffs"    # .1,.2: numbers, sorted, no duplicates; one value each
DOUBLE_PARAMS = "double_params"      # 2,-1,0,0: numbers kept in order; one value named name_<params>
PAIR_PARAMS = "pair_params"          # 1=3,2=9: name=number pairs; one value named name_<params>


class Params(tuple):
    """A measure's parameter values plus the text they were given as (None for the defaults).

    trec_eval names a one-value measure after the parameter text when there is one (`utility_2,-1,0,0`).
    """

    text: Optional[str] = None

    @classmethod
    def of(cls, values, text: Optional[str] = None) -> "Params":
        made = cls(values)
        made.text = text
        return made


@dataclass(frozen=True)
class TrecOptions:
    """Evaluation-wide settings that change measure values.

    interp_cutoff: how a recall point p becomes a number of relevant documents for iprec_at_recall,
    11pt_avg (and Rprec_mult, which trec_eval never changed): `v9` = (long)(p*R + 0.9) in doubles (trec_eval
    9.x), `v10` = lround(p*R) (10.0), `ceil` = integer ceil(R*p) (trec_eval 7.2, NTCIR-1 era).
    num_docs_in_coll: trec_eval -N, used only by utility's fourth coefficient.
    empty_is_nan: an empty ranking gets trec_eval's 0/0 (-nan) in iprec_at_recall and 11pt_avg, as `runscore
    trec_eval` prints it after -M 0 or -J; the tasks score a topic missing from the run as 0 everywhere.
    """

    interp_cutoff: str = "v9"
    num_docs_in_coll: int = 0
    empty_is_nan: bool = False


@dataclass(frozen=True)
class TrecMeasure:
    name: str
    help: str
    compute: Callable[[JudgedTopic, Sequence, TrecOptions], List[float]]
    params: Optional[Tuple] = None            # default parameters; None = the measure takes none
    param_type: Optional[type] = None         # int or float (kept for callers of the first API)
    summary: str = "mean"                     # mean | sum | gm (floored at MIN_GEO_MEAN) | none (per topic only)
    is_count: bool = False                    # printed as an integer count
    param_kind: Optional[str] = None          # one of the *_CUTOFFS / *_PARAMS kinds above
    is_string: bool = False                   # value is text (relstring), printed quoted per topic only
    param_count: Optional[int] = None         # exact number of parameters required (utility: 4)

    def value_names(self, params: Optional[Sequence] = None) -> List[str]:
        params = self.params if params is None else params
        if self.param_kind in (LONG_CUTOFFS, DOUBLE_CUTOFFS):
            if self.param_kind == LONG_CUTOFFS:
                return ["%s_%d" % (self.name, p) for p in params]
            # meas_init.c's append_float: snprintf into strlen(name) + 10 bytes, so a long number is cut there
            return [("%s_%3.2f" % (self.name, p))[:len(self.name) + 9] for p in params]
        text = getattr(params, "text", None)
        return ["%s_%s" % (self.name, text) if text else self.name]

    def parse_params(self, text: str) -> Params:
        """Parameters from the text after the dot of `-m name.text`; ValueError says what is wrong."""
        if self.param_kind is None:
            raise ValueError("measure %s takes no parameters" % self.name)
        if text == "":
            raise ValueError("empty parameter list for measure %s" % self.name)
        parts = text.split(",")
        if self.param_kind == LONG_CUTOFFS:
            values = sorted(c_atol(p) for p in parts)
            if values[0] <= 0:
                raise ValueError("cutoffs of %s must be positive, got %r" % (self.name, text))
        elif self.param_kind == DOUBLE_CUTOFFS:
            values = sorted(c_atof(p) for p in parts)
        elif self.param_kind == DOUBLE_PARAMS:
            if self.param_count is not None and len(parts) != self.param_count:
                raise ValueError("%s takes exactly %d parameters, got %d" % (self.name, self.param_count, len(parts)))
            return Params.of([c_atof(p) for p in parts], text)
        else:
            pairs = []
            for part in parts:
                if part.count("=") != 1:
                    raise ValueError("malformed pair parameters %r for %s: expected level=gain,..." % (text, self.name))
                key, value = part.split("=")
                pairs.append((key, c_atof(value)))
            return Params.of(pairs, text)
        if any(a == b for a, b in zip(values, values[1:])):
            raise ValueError("duplicate cutoffs in %r for %s" % (text, self.name))
        return Params.of(values, text)
