"""A drop-in for pytrec_eval: `import runscore.pytrec_eval as pytrec_eval`, and a script runs unchanged.

Why: pytrec_eval (trec_eval 9.x compiled as a C extension) is what IR notebooks and scripts call, and it needs a
C build to install. This module has its interface (RelevanceEvaluator(qrels, measures, relevance_level,
judged_docs_only_flag).evaluate(run) -> {qid: {measure: value}}, supported_measures, supported_nicknames,
parse_qrel, parse_run, compute_aggregated_measure) and its values, computed by runscore's trec_eval code (the
same as `runscore trec_eval`) on the whole-run numpy kernels, straight from the dicts. What it copies from
pytrec_eval on purpose (so that values match, see docs/python-api.md):

* trec_eval 9.0.8 rules: run scores are compared as C floats (float32), recall points rounded the 9.x way;
* only topics in both the run and the qrels are evaluated, in the run's order; qrels topics without any
  judgement are dropped;
* measure names `map`, `P`, `P.5`, `P_5`, `ndcg_cut.5,10`, nicknames `official`, `set`, `all_trec`; when a
  measure is asked for both with and without parameters, only the parameters count (`{"P", "P.1"}` gives P_1);
* output keys: `P_5`, `ndcg_cut_10`, `iprec_at_recall_0.10` ... for cutoff measures, the bare name otherwise;
  a gm_* value per topic is the log of the value floored at 1e-5 (compute_aggregated_measure takes exp of the
  mean); runid and relstring are 0.0 and num_q 1.0 per topic.

Where it differs: a topic of the run without any document is an empty ranking, with trec_eval's NaN for
iprec_at_recall and 11pt_avg as pytrec_eval gives it (pytrec_eval crashes when that topic is the first it
evaluates), ids must be strings and grades integers within +-1,000,000 (ConfigError / RunError, which are also
TypeError); parse_run and parse_qrel raise pytrec_eval's AssertionError and ValueError but skip blank lines; numpy
scalar scores and grades pytrec_eval refuses are taken at their value; a NaN score ranks below every number
(pytrec_eval's order of NaN is its C++ and C libraries' sorts), with a warning, as for +-inf, which are ranked as
pytrec_eval ranks them; a relevance_level below 1 is a TypeError (pytrec_eval refuses 0 and lets negative ones
through); a measure it does not support (prefs, qrels_jg measures) raises UnsupportedMeasure (a ValueError) naming
it. Measure parameters may also be written the trec_eval way (`ndcg.0=0,1=1,2=3`, `utility.1,-1,0,0`).
register() makes `import pytrec_eval` give this module (BEIR, mteb, ir_measures); so does the stand-in wheel that
`runscore pytrec-eval-wheel` writes (wheel.py).

The package: this module is the drop-in, registration.py its register() and the warnings when it has not
taken effect, wheel.py the stand-in wheel.
"""
import collections
import difflib
import math
import re
import sys
import warnings
from numbers import Integral
from typing import Any, Dict, Iterable, List, Mapping, Sequence, Set

import numpy as np

from .. import __version__ as _runscore_version
from .. import inmemory
from ..errors import ConfigError, RunError
from ..measures.trec import ALL_TREC_V9, DOUBLE_CUTOFFS, LONG_CUTOFFS, MIN_GEO_MEAN, REGISTRY, TrecOptions
from . import registration

__all__ = ["parse_run", "parse_qrel", "supported_measures", "supported_nicknames", "RelevanceEvaluator",
           "compute_aggregated_measure", "UnsupportedMeasure", "RunLineError", "QrelsLineError", "RepeatedRunDocument",
           "RepeatedJudgement", "register", "NotRegisteredWarning", "__version__"]
NotRegisteredWarning = registration.NotRegisteredWarning

# runscore's version: ir_measures uses a pytrec_eval module only if it has a __version__ (older pytrec_eval
# builds had none), and a script that records `pytrec_eval.__version__` records what computed its numbers.
__version__ = _runscore_version

_OFFICIAL = ("num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
             "iprec_at_recall", "P")
_SET = ("num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall", "set_relative_P", "set_map", "set_F")
# pytrec_eval's sets: every trec_eval 9.x measure (all_trec), with runid and num_q.
supported_measures: Set[str] = set(ALL_TREC_V9) | {"runid", "num_q"}
supported_nicknames: Dict[str, Set[str]] = {
    "official": set(_OFFICIAL) | {"runid", "num_q"},
    "set": set(_SET) | {"runid", "num_q"},
    "all_trec": set(supported_measures),
}
# pytrec_eval's nicknames and measures that read other judgement formats; runscore does not compute them.
_OTHER_FORMATS = {"all_prefs", "prefs", "qrels_jg", "prefs_num_prefs_poss", "prefs_num_prefs_ful",
                  "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel",
                  "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp",
                  "prefs_pair_imp", "prefs_avgjg_imp", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"}
_CUTOFF_KINDS = (LONG_CUTOFFS, DOUBLE_CUTOFFS)
# trec_eval 9's rules; with nothing retrieved (a topic of the run without documents, or every document dropped
# by judged_docs_only_flag), m_iprec_at_recall.c and m_11pt_avg.c take precision 0/0 = NaN at every recall point
# whose cutoff (long)(p R + 0.9) is 0, and pytrec_eval gives that NaN.
_OPTIONS = TrecOptions(empty_is_nan=True)
# pytrec_eval's grammar of parameters after `.` or `_` (numbers separated by commas).
_NUMBERS = r"[0-9]+(\.[0-9]+)?(,[0-9]+(\.[0-9]+)?)*"


class UnsupportedMeasure(ConfigError, ValueError):
    """A measure name runscore.pytrec_eval does not know or does not compute (a ValueError, as pytrec_eval's)."""


class BadQrels(ConfigError, TypeError):
    """Qrels of the wrong shape or type (a TypeError, as pytrec_eval's)."""


class BadRun(RunError, TypeError):
    """A run of the wrong shape or type (a TypeError, as pytrec_eval's)."""


class RunLineError(RunError, ValueError):
    """A line parse_run cannot read: a wrong number of fields, or a score that is no number (a ValueError, as
    pytrec_eval's)."""


class QrelsLineError(ConfigError, ValueError):
    """A line parse_qrel cannot read: a wrong number of fields, or a grade that is no integer (a ValueError, as
    pytrec_eval's)."""


class RepeatedRunDocument(RunError, AssertionError):
    """A document listed twice for a topic by parse_run's lines (an AssertionError, as pytrec_eval's assert)."""


class RepeatedJudgement(ConfigError, AssertionError):
    """A document judged twice for a topic by parse_qrel's lines (an AssertionError, as pytrec_eval's assert)."""


def parse_run(f_run: Iterable[str]) -> Dict[str, Dict[str, float]]:
    """`{qid: {docno: score}}` from the lines of a TREC run (`qid Q0 docno rank score tag`). Fails as pytrec_eval
    fails: ValueError (RunLineError) for a wrong number of fields or a score that is no number, AssertionError
    (RepeatedRunDocument) for a document listed twice for a topic, with the line's number; a blank line is
    skipped (pytrec_eval stops on it with a ValueError)."""
    run: Dict[str, Dict[str, float]] = collections.defaultdict(dict)
    for number, line in enumerate(f_run, 1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 6:
            raise RunLineError("the line has %d fields, expected 6: qid Q0 docno rank score tag" % len(fields),
                               "run", number)
        if fields[2] in run[fields[0]]:
            raise RepeatedRunDocument("document %s is listed twice for topic %s" % (fields[2], fields[0]), "run",
                                      number)
        try:
            run[fields[0]][fields[2]] = float(fields[4])
        except ValueError:
            raise RunLineError("the score %r is not a number" % fields[4], "run", number) from None
    return run


def parse_qrel(f_qrel: Iterable[str]) -> Dict[str, Dict[str, int]]:
    """`{qid: {docno: grade}}` from the lines of a TREC qrels file (`qid 0 docno grade`). Fails as pytrec_eval
    fails: ValueError (QrelsLineError) for a wrong number of fields or a grade that is no integer, AssertionError
    (RepeatedJudgement) for a document judged twice for a topic, with the line's number; a blank line is skipped
    (pytrec_eval stops on it with a ValueError)."""
    qrel: Dict[str, Dict[str, int]] = collections.defaultdict(dict)
    for number, line in enumerate(f_qrel, 1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 4:
            raise QrelsLineError("the line has %d fields, expected 4: qid 0 docno grade" % len(fields), "qrels",
                                 number)
        if fields[2] in qrel[fields[0]]:
            raise RepeatedJudgement("document %s is judged twice for topic %s" % (fields[2], fields[0]), "qrels",
                                    number)
        try:
            qrel[fields[0]][fields[2]] = int(fields[3])
        except ValueError:
            raise QrelsLineError("the grade %r is not an integer" % fields[3], "qrels", number) from None
    return qrel


def compute_aggregated_measure(measure: str, values: Sequence[float]) -> float:
    """The summary of per-topic values as pytrec_eval computes it: sum for num_*, exp of the mean for gm_* (whose
    per-topic values are logs), else the mean."""
    if measure.startswith("num_"):
        return float(np.sum(values))
    if measure.startswith("gm_"):
        return float(np.exp(np.sum(values) / len(values)))
    return float(np.mean(values))


def _split(name: str):
    """(measure, parameter text or None) of one requested name, or UnsupportedMeasure."""
    if name in supported_measures:
        return name, None
    for base in sorted(supported_measures, key=len, reverse=True):
        if name.startswith(base) and len(name) > len(base) + 1 and name[len(base)] in "._":
            rest = name[len(base) + 1:]
            if re.fullmatch(_NUMBERS, rest) or (name[len(base)] == "." and base in REGISTRY
                                                 and REGISTRY[base].param_kind is not None):
                return base, rest
    if name in _OTHER_FORMATS or name.split(".")[0] in _OTHER_FORMATS:
        raise UnsupportedMeasure("measure %r reads preference or judgement-group qrels, which runscore does not "
                                 "support (see docs/trec_eval.md)" % name)
    close = difflib.get_close_matches(name, sorted(supported_measures) + sorted(supported_nicknames), n=3)
    raise UnsupportedMeasure("unsupported measure %r%s; supported: %s"
                             % (name, " (did you mean %s?)" % " or ".join(close) if close else "",
                                ", ".join(sorted(supported_measures))))


def resolve_measures(measures: Iterable[str]) -> Dict[str, Any]:
    """{measure: parameters or None (the defaults)} as pytrec_eval combines a request; UnsupportedMeasure for
    a name it cannot resolve."""
    if isinstance(measures, (str, bytes)) or not isinstance(measures, Iterable):
        raise UnsupportedMeasure("measures must be a set of names such as {'map', 'ndcg_cut.10'}, not %r"
                                 % (measures,))
    expanded = set()
    for name in measures:
        if not isinstance(name, str):
            raise UnsupportedMeasure("measure names must be strings, got %r" % (name,))
        expanded.update(supported_nicknames.get(name, {name}))
    wanted: Dict[str, List[str]] = {}
    raw: Dict[str, str] = {}
    for name in sorted(expanded):
        base, text = _split(name)
        parts = wanted.setdefault(base, [])
        if text is None:
            continue
        if re.fullmatch(_NUMBERS, text):
            parts.extend(p for p in text.split(",") if p not in parts)
        else:
            raw[base] = text            # trec_eval's own syntax (pairs, negative numbers): taken as written
    resolved: Dict[str, Any] = {}
    for base, parts in wanted.items():
        text = raw.get(base) or (",".join(sorted(parts)) if parts else None)
        if text is None or base in ("runid", "num_q"):
            resolved[base] = None
            continue
        try:
            resolved[base] = REGISTRY[base].parse_params(text)
        except ValueError as exc:
            raise UnsupportedMeasure("measure %s.%s: %s" % (base, text, exc))
    return resolved


_C_INT_MAX = 2 ** 31 - 1


def _c_int(value: Any, name: str) -> int:
    """An argument pytrec_eval parses as a C int: an integer within a C int (bool and numpy integers too)."""
    if isinstance(value, Integral) and -_C_INT_MAX - 1 <= value <= _C_INT_MAX:
        return int(value)
    raise TypeError("Argument %s must be an integer within a C int (pytrec_eval reads it as one), got %r"
                    % (name, value))


class RelevanceEvaluator:
    """pytrec_eval.RelevanceEvaluator: the qrels and measures once, then evaluate(run) for any number of runs."""

    def __init__(self, query_relevance: Mapping[str, Mapping[str, int]], measures: Iterable[str],
                 relevance_level: int = 1, judged_docs_only_flag: bool = False) -> None:
        # pytrec_eval reads both as C ints: any integer (bool and numpy integers too) within a C int, else a
        # TypeError; a level <= 0 is refused (0) or crashes it (below 0); any non-zero flag is "on".
        relevance_level = _c_int(relevance_level, "relevance_level")
        if relevance_level <= 0:
            raise TypeError("Argument relevance_level should be positive.")
        judged_docs_only_flag = _c_int(judged_docs_only_flag, "judged_docs_only_flag")
        if not isinstance(query_relevance, Mapping):
            raise BadQrels("Argument query_relevance should be of type dictionary.", "qrels")
        self.relevance_level = relevance_level
        self.judged_docs_only_flag = bool(judged_docs_only_flag)
        self._params = resolve_measures(measures)
        self._computed = [m for m in REGISTRY if m in self._params]
        self._extra = [m for m in ("runid", "num_q") if m in self._params]
        try:
            self._qrels = inmemory.MemoryQrels(inmemory.qrels_dict(query_relevance))
        except ConfigError as exc:
            raise BadQrels(exc.args[0], exc.path)
        self._names = {}
        for name in self._computed:
            measure = REGISTRY[name]
            params = self._params[name] if self._params[name] is not None else measure.params
            names = measure.value_names(params)
            self._names[name] = names if measure.param_kind in _CUTOFF_KINDS else [name] * len(names)
        # (output key, value name, how the value is given) of every value, found once, not per topic and run
        self._fields = [(key, value_name, "string" if REGISTRY[name].is_string else REGISTRY[name].summary)
                        for name in self._computed
                        for key, value_name in zip(self._names[name], REGISTRY[name].value_names(
                            self._params[name] if self._params[name] is not None else REGISTRY[name].params))]
        # A string measure (relstring) is 0.0 in pytrec_eval's output: it is not computed. The values of the others
        # come in the order of _fields less the strings: their keys, where a 0.0 goes in, which values are logs.
        self._valued = [m for m in self._computed if not REGISTRY[m].is_string]
        self._keys = [key for key, _name, _kind in self._fields] + self._extra
        self._zeros = [i for i, (_k, _n, kind) in enumerate(self._fields) if kind == "string"]
        self._logs = [i - sum(1 for z in self._zeros if z < i) for i, (_k, _n, kind) in enumerate(self._fields)
                      if kind == "gm"]
        self._tail = [1.0 if name == "num_q" else 0.0 for name in self._extra]
        # The same for the values as one array (inmemory.evaluate_values): each 0.0's place among the values
        # before it is inserted, and each log's place once the 0.0s are in.
        self._zeros_before = [z - k for k, z in enumerate(self._zeros)]
        valued_at = [i for i in range(len(self._fields)) if i not in set(self._zeros)]
        self._logs_at = [valued_at[i] for i in self._logs]

    def evaluate(self, scores: Mapping[str, Mapping[str, float]]) -> Dict[str, Dict[str, float]]:
        """{qid: {measure: value}} for the topics of `scores` that the qrels judge, in the order of `scores`."""
        if not isinstance(scores, Mapping):
            raise BadRun("Argument object scores should be of type dictionary.", "run")
        if not scores:
            return {}
        try:
            run = inmemory.run_dict(scores)
            # the ids of the topics evaluated are checked by inmemory.evaluate_rows on its list of them
            inmemory.check_run(run, ids=False)
            topics = [t for t in run if t in self._qrels.qrels]
            if len(topics) < len(run):
                inmemory.check_ids({t: ranked for t, ranked in run.items() if t not in self._qrels.qrels})
        except RunError as exc:
            raise BadRun(exc.diagnostic.message, exc.diagnostic.path)
        params = {m: p for m, p in self._params.items() if p is not None}
        non_finite: Dict[str, Any] = {}
        try:
            _names, table, rows = inmemory.evaluate_values(run, self._qrels, topics, self._valued,
                                                           self.relevance_level, _OPTIONS, None, params, np.float32,
                                                           self.judged_docs_only_flag, non_finite)
        except RunError as exc:
            raise BadRun(exc.diagnostic.message, exc.diagnostic.path)
        if non_finite.get("NaN") or non_finite.get("infinite"):
            warnings.warn("runscore.pytrec_eval: %s in %d topic(s) (first: %s); ranked as pytrec_eval ranks them "
                          "(score descending as a C float, then docno descending), NaN below every number "
                          "(pytrec_eval's order of NaN depends on its C++ and C libraries' sorts)"
                          % (" and ".join(text % non_finite[kind] for kind, text in (
                              ("infinite", "%d infinite score(s) (as a C float)"), ("NaN", "%d NaN score(s)"))
                                          if non_finite.get(kind)), non_finite["topics"], non_finite["topic"]),
                          RuntimeWarning, stacklevel=2)
        out: Dict[str, Dict[str, float]] = {}
        log, floor = math.log, MIN_GEO_MEAN
        if table is not None:
            # the 0.0s and the fixed values of runid and num_q put in by numpy, every value a float: then one list a
            # topic, whose logs (libm's, as trec_eval takes them) are the only values made one by one
            table = table.astype(np.float64, copy=False)
            if self._zeros_before:
                table = np.insert(table, self._zeros_before, 0.0, axis=1)
            if self._tail:
                table = np.hstack([table, np.tile(np.array(self._tail), (table.shape[0], 1))])
            keys, logs = self._keys, self._logs_at
            rows = table.tolist()
            for values in rows if logs else ():
                for i in logs:
                    values[i] = log(max(values[i], floor))
            return dict(zip(topics, [dict(zip(keys, values)) for values in rows]))
        keys, zeros, logs, tail = self._keys, self._zeros, self._logs, self._tail
        for topic, values in zip(topics, rows):
            for i in logs:
                values[i] = log(max(values[i], floor))
            for i in zeros:
                values.insert(i, 0.0)
            out[topic] = dict(zip(keys, map(float, values + tail)))
        return out


def register() -> "object":
    """Make `import pytrec_eval` give this module, for code that imports it by name (BEIR, mteb, ir_measures).

    Call it before that code first imports pytrec_eval (ir_measures imports it at its first computation): a
    module that already holds another pytrec_eval keeps it, so a NotRegisteredWarning says which; so does an
    import of pytrec_eval by BEIR, mteb or ir_measures before register() (registration.py)."""
    return registration.register(sys.modules[__name__])


registration.watch(__name__)
