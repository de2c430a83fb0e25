"""`runscore trec_eval`: a drop-in for the trec_eval command line (9.0.8 output by default, 10.0 with --v10).

Why: users of trec_eval can check that runscore gives their numbers, line for line, before they trust its
task scorers, which share the same ranking, labelling and measure code (rankeval, label, measures.trec).
Options follow trec_eval's own syntax (getopt: `-mP.5,10`, `-m P.5,10`, `-M100`, `-l2`, `-qc`, long forms);
bad input is reported as `FILE:LINE: error: message` (exit 1 for the run, 2 for the qrels or usage).
"""
import math
import re
import sys
from collections import OrderedDict
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..ranking import fastpath
from ..errors import EXIT_CONFIG, EXIT_INVALID_RUN, EXIT_OK, ConfigError
from ..measures.trec import (ALL_TREC_V9, ALL_TREC_V10, DEFAULT_SET, MIN_GEO_MEAN, PAIR_PARAMS, REGISTRY,
                             V10_ONLY, Params, TrecOptions, evaluate_topic)
from ..measures.c_numbers import c_atof, c_float
from ..ranking.label import judge_ranking
from ..ranking.qrels import MAX_GRADE
from ..ranking.rankeval import TopicRun, ranked_docnos
from ..ranking.trec_eval_files import BPREF_OVERREAD_WARN, Note, TrecEvalFailure, c_atol, read_qrels, read_run

EXIT_USAGE = 1      # trec_eval's exit code for a bad command line (and an illegal measure)
EXIT_FILES = 2      # trec_eval's exit code for a file it cannot read or use

NAME = "trec_eval"
HELP = "trec_eval-compatible evaluation: runscore trec_eval [-q] [-c] [-M N] [-l N] [-m MEASURE]... QRELS RUN"

NICKNAMES = {
    "official": ("runid", "num_q") + DEFAULT_SET,
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F"),
}
# trec_eval measures and nicknames runscore does not compute (other input formats, or not in 9.0.8/10.0's
# all_trec); asking for one is a usage error that says so.
UNSUPPORTED = ("all_prefs", "prefs", "qrels_jg", "prefs_num_prefs_poss", "prefs_num_prefs_ful",
               "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel",
               "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret",
               "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp", "map_avgjg", "P_avgjg",
               "Rprec_mult_avgjg", "yaap", "dcg", "ideal_dcg")
UNSUPPORTED_OPTIONS = {"-R": "rel_info formats other than qrels (prefs, qrels_jg)",
                       "-T": "results formats other than trec_results",
                       "-Z": "z-scores (-Z)", "-D": "debug output (-D)", "-o": "the old output format (-o)"}

SHORT_WITH_ARG = set("mlDNMRTZV")
SHORT_FLAGS = set("hvqcnJo")
LONG_OPTIONS = {"help": "h", "version": "v", "query_eval_wanted": "q", "measure": "m",
                "complete_rel_info_wanted": "c", "level_for_rel": "l", "nosummary": "n", "Debug_level": "D",
                "Judged_docs_only": "J", "Number_docs_in_coll": "N", "Max_retrieved_per_topic": "M",
                "Rel_info_format": "R", "Results_format": "T", "Output_old_results_format": "o",
                "Zscore": "Z", "v10": "V10", "full-precision": "FULL",
                "keep-first-duplicate": "DUP", "strict": "STRICT"}

USAGE = """usage: runscore trec_eval [-h] [-q] [-c] [-n] [-J] [-l N] [-M N] [-N N] [-m MEASURE[.PARAMS]]...
                          [--v10 | -V 9|10] [--strict] [--full-precision] [--keep-first-duplicate] QRELS RUN
  -q  per-topic values too          -c  average over every qrels topic (a missing topic scores 0)
  -l  relevance level (default 1)   -M  documents kept per topic after sorting (default all)
  -N  documents in the collection (utility)   -n  no summary   -J  judged documents only
  -m  measure or nickname (official, all_trec, set); parameters after a dot: -m P.5,10 -m ndcg.1=3,2=9
  --v10 / -V 10  trec_eval 10.0 rules: lround recall cutoffs, double scores, '#' comments, a qrels topic
                 missing from the run is an error without -c and printed with -c -q, all_trec adds rbp,
                 rbp_resid, unj.  Default: trec_eval 9.0.8 (scores read as C float).
  --full-precision  print values with %.17g instead of %6.4f (runscore extension)
  --keep-first-duplicate  a repeated docno of a topic is a warning and its first line counts
  --strict  what trec_eval reads silently (a score `abc` read as 0, a grade `1.5` read as 1, a byte order
            mark kept in a topic id, a duplicate docno it does not check) is an error instead of a warning
RUN may be '-' for standard input. See docs/trec_eval.md.

example:
  runscore trec_eval -q -m all_trec qrels.txt run.txt     # every measure, per topic then 'all', as trec_eval -q"""


class _Usage(ConfigError):
    """Bad command line (exit 1, as trec_eval); `trec_eval_line` is what trec_eval itself prints, if known."""

    def __init__(self, message: str, trec_eval_line: str = ""):
        super().__init__(message)
        self.trec_eval_line = trec_eval_line


def _parse_argv(argv: Sequence[str]) -> Tuple[List[Tuple[str, str]], List[str]]:
    """GNU getopt_long with permutation: (option letter, argument) pairs and the positional arguments."""
    opts: List[Tuple[str, str]] = []
    positional: List[str] = []
    args = list(argv)
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            positional.extend(args[i:])
            break
        if arg.startswith("--"):
            name, eq, value = arg[2:].partition("=")
            matches = [n for n in LONG_OPTIONS if n == name] or [n for n in LONG_OPTIONS if n.startswith(name)]
            if len(matches) != 1:
                raise _Usage("unknown option --%s" % name)
            letter = LONG_OPTIONS[matches[0]]
            if letter == "V10":
                opts.append(("V", "10"))
            elif letter == "FULL":
                opts.append(("F", ""))
            elif letter == "DUP":
                opts.append(("K", ""))
            elif letter == "STRICT":
                opts.append(("S", ""))
            elif letter in SHORT_WITH_ARG:
                if not eq:
                    if i >= len(args):
                        raise _Usage("option --%s needs an argument" % matches[0])
                    value = args[i]
                    i += 1
                opts.append((letter, value))
            else:
                opts.append((letter, ""))
            continue
        if arg.startswith("-") and len(arg) > 1:
            j = 1
            while j < len(arg):
                letter = arg[j]
                if letter in SHORT_WITH_ARG:
                    value = arg[j + 1:]
                    if not value:
                        if i >= len(args):
                            raise _Usage("option -%s needs an argument" % letter)
                        value = args[i]
                        i += 1
                    opts.append((letter, value))
                    break
                if letter not in SHORT_FLAGS:
                    raise _Usage("unknown option -%s" % letter)
                opts.append((letter, ""))
                j += 1
            continue
        positional.append(arg)
    return opts, positional


def _int_arg(letter: str, value: str, notes: List[str]) -> int:
    """trec_eval reads -l, -M and -N with atol (`1.5` -> 1, `abc` -> 0): the same, with a note when the
    text is not an integer."""
    text = value.encode("utf-8", "surrogateescape")
    number = c_atol(text.lstrip(b" \t\n\v\f\r"))
    if not re.fullmatch(rb"\s*[+-]?\d+", text):
        notes.append("option -%s %r is not an integer; trec_eval reads it as %d" % (letter, value, number))
    return number


class Settings:
    """Everything the command line asked for."""

    def __init__(self):
        self.per_topic = False
        self.complete = False
        self.summary = True
        self.judged_only = False
        self.level = 1
        self.max_docs: Optional[int] = None
        self.num_docs_in_coll = 0
        self.v10 = False
        self.measure_args: List[str] = []
        self.help = False
        self.version = False
        self.full_precision = False   # runscore extension: %.17g instead of %6.4f
        self.keep_first_duplicate = False   # runscore extension: a repeated docno is a warning, first line wins
        self.strict = False     # runscore extension: what trec_eval reads silently is an error
        self.notes: List[str] = []          # option values trec_eval reads leniently (atol)
        self.qrels_path = ""


def parse_settings(argv: Sequence[str]) -> Tuple[Settings, List[str]]:
    opts, positional = _parse_argv(argv)
    s = Settings()
    for letter, value in opts:
        if letter == "h":
            s.help = True
        elif letter == "v":
            s.version = True
        elif letter == "q":
            s.per_topic = True
        elif letter == "c":
            s.complete = True
        elif letter == "n":
            s.summary = False
        elif letter == "J":
            s.judged_only = True
        elif letter == "l":
            s.level = _int_arg(letter, value, s.notes)
        elif letter == "M":
            s.max_docs = _int_arg(letter, value, s.notes)
        elif letter == "N":
            s.num_docs_in_coll = _int_arg(letter, value, s.notes)
        elif letter == "m":
            s.measure_args.append(value)
        elif letter == "F":
            s.full_precision = True
        elif letter == "K":
            s.keep_first_duplicate = True
        elif letter == "S":
            s.strict = True
        elif letter == "V":
            if value not in ("9", "10"):
                raise _Usage("-V takes 9 (trec_eval 9.0.8, default) or 10 (trec_eval 10.0), got %r" % value)
            s.v10 = value == "10"
        elif letter == "R" and value == "qrels" or letter == "T" and value == "trec_results":
            continue
        else:
            raise _Usage("runscore trec_eval does not support %s"
                         % UNSUPPORTED_OPTIONS.get("-" + letter, "-%s %s" % (letter, value)))
    return s, positional


class _InitError(ConfigError):
    """trec_eval's "Cannot initialize measure" (bad parameters of a known measure): exit 2."""

    def __init__(self, message: str, name: str):
        super().__init__(message)
        self.text = message         # two lines (ConfigError's message is clipped to one)
        self.name = name


def _version_pairs(name: str, params: Params, v10: bool) -> Params:
    """level=gain pairs as each version reads them: 9.0.8 keeps every pair (level by atol) with the gain as a C
    float; 10.0 skips a pair whose level is not an integer (gain_init.c's valid_int), gains stay doubles."""
    pairs = []
    for key, value in params:
        if name in ("rbp", "rbp_resid") and key == "p":
            pairs.append((key, value))
        elif not v10:
            pairs.append((key, c_float(value)))
        elif re.fullmatch(r"[+-]?\d+", key):
            pairs.append((key, value))
    return Params.of(pairs, params.text)


def select_measures(measure_args: Sequence[str], v10: bool,
                    notes: Optional[List[str]] = None) -> Tuple[List[str], Dict[str, object]]:
    """Measures to print in trec_eval's order, and parameters given on the command line (the first wins).
    `notes` receives what trec_eval accepts silently (parameters of a measure that has none)."""
    marked = set()
    params: Dict[str, object] = {}
    all_trec = ("runid", "num_q") + (ALL_TREC_V10 if v10 else ALL_TREC_V9)
    for arg in measure_args or ["official"]:
        name, dot, param_text = arg.partition(".")
        if dot and param_text == "":
            raise _Usage("improper measure in parameter %r: nothing after the dot" % arg)
        if name == "all_trec":
            marked.update(all_trec)
            continue
        if name in NICKNAMES:
            marked.update(NICKNAMES[name])
            continue
        if name in UNSUPPORTED:
            raise _Usage("trec_eval measure %r is not supported by runscore (see docs/trec_eval.md)" % name)
        if name in ("runid", "num_q"):
            marked.add(name)
            continue
        if name not in REGISTRY or (name in V10_ONLY and not v10):
            hint = " (a trec_eval 10.0 measure: add --v10)" if name in V10_ONLY else ""
            import difflib      # here, as the name translation: only a bad measure name needs them
            from ..measures.names import ir_measures_to_trec_eval

            translated = ir_measures_to_trec_eval(arg)      # an ir_measures name: nDCG@10 -> ndcg_cut.10
            if translated is not None and translated.split(".")[0] in REGISTRY:
                close = [translated]
            else:
                close = difflib.get_close_matches(name, list(REGISTRY) + list(NICKNAMES) + ["all_trec"], n=3)
            if close and not hint:
                hint = "; did you mean %s?" % " or ".join(close)
            raise _Usage("illegal measure '%s'%s" % (arg, hint), "trec_eval: illegal measure '%s'" % arg)
        marked.add(name)
        measure = REGISTRY[name]
        if dot and measure.param_kind is None:
            if notes is not None:
                notes.append("measure %s takes no parameters; trec_eval ignores %r" % (name, param_text))
            continue
        if dot and name not in params:
            try:
                params[name] = measure.parse_params(param_text)
            except ValueError as exc:
                if name == "utility":           # trec_eval fails when it computes it (exit 4), not here
                    params[name] = Params.of([c_atof(p) for p in param_text.split(",")], param_text)
                    continue
                raise _InitError("trec_eval: %s\ntrec_eval: Cannot initialize measure '%s'" % (exc, name), name)
            if measure.param_kind == PAIR_PARAMS:
                params[name] = _version_pairs(name, params[name], v10)
    order = ["runid", "num_q"] + list(REGISTRY)
    return [m for m in order if m in marked], params


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


def run(argv: Sequence[str]) -> int:
    try:
        return _run(argv)
    except _Usage as exc:
        if exc.trec_eval_line:
            print(exc.trec_eval_line, file=sys.stderr)
        print("runscore trec_eval: error: %s" % exc.args[0], file=sys.stderr)
        print("usage: runscore trec_eval [options] QRELS RUN  (runscore trec_eval -h for help)", file=sys.stderr)
        return EXIT_USAGE
    except _InitError as exc:
        print(exc.text, file=sys.stderr)
        return EXIT_CONFIG
    except ConfigError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_CONFIG


def help_text() -> str:
    lines = [USAGE, "", "Supported measures (trec_eval names; default parameters in brackets):"]
    for name, measure in REGISTRY.items():
        default = ""
        if measure.params is not None and len(measure.params):
            default = " [%s]" % ",".join("%g" % p if not isinstance(p, tuple) else "%s=%g" % p
                                         for p in measure.params)
        lines.append("  %-22s %s%s" % (name, measure.help, default))
    lines.append("  %-22s %s" % ("runid, num_q", "run id of the last run line; number of topics evaluated."))
    lines.append("Nicknames: official (default), set, all_trec (10.0 adds %s)." % ", ".join(V10_ONLY))
    lines.append("Not supported: %s; options -R prefs/qrels_jg, -T, -Z, -D, -o." % ", ".join(UNSUPPORTED))
    return "\n".join(lines)


def _read_bytes(path: str, what: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as exc:
        if what == "qrels":
            raise TrecEvalFailure("trec_eval.get_qrels: Cannot read qrels file '%s'\ntrec_eval: Quit in file '%s'\n"
                                  % (path, path), 2, "%s: error: cannot read the qrels file: %s" % (path, exc.strerror))
        raise TrecEvalFailure("trec_eval.get_results: Cannot read results file '%s'\ntrec_eval: Quit in file '%s'\n"
                              % (path, path), 2, "%s: error: cannot read the run file: %s" % (path, exc.strerror))


def _report_notes(notes, path: str, strict: bool, code: int) -> Optional[int]:
    """Print what trec_eval reads silently: warnings, or errors with --strict (then the exit code)."""
    notes = sorted(notes, key=lambda note: note.line)
    for note in notes[:50]:
        where = "%s:%d" % (path, note.line) if note.line else path
        print("%s: %s: %s" % (where, "error" if strict else "warning", note.message), file=sys.stderr)
    if len(notes) > 50:
        print("%s: %s: ... and %d more" % (path, "error" if strict else "warning", len(notes) - 50), file=sys.stderr)
    return code if strict and notes else None


def _keep_first_lines(run, notes) -> None:
    """--keep-first-duplicate: a repeated docno of a topic is dropped (its first line counts), with a warning."""
    for qid, topic in run.topics.items():
        seen: Dict[str, int] = {}
        keep = []
        for i, (docno, line) in enumerate(zip(topic.docnos, topic.lines)):
            if docno in seen:
                notes.append(Note(line, "duplicate docno %s in topic %s (first seen at line %d); this line is "
                                        "ignored" % (docno, qid, seen[docno])))
                continue
            seen[docno] = line
            keep.append(i)
        if len(keep) != len(topic.docnos):
            run.topics[qid] = TopicRun([topic.docnos[i] for i in keep], [topic.scores[i] for i in keep],
                                       [topic.lines[i] for i in keep])


def _duplicate_notes(run, notes) -> None:
    """A docno listed twice for a topic: a warning (an error with --strict) wherever it is; trec_eval itself
    only notices it within -M documents of an evaluated topic (then exit 4) and ranks it like any line elsewhere."""
    for qid, topic in run.topics.items():
        seen: Dict[str, int] = {}
        for docno, line in zip(topic.docnos, topic.lines):
            if docno in seen:
                notes.append(Note(line, "duplicate docno %s in topic %s (first seen at line %d)"
                                  % (docno, qid, seen[docno])))
            else:
                seen[docno] = line


def _write(lines: Sequence[str]) -> None:
    """Lines to stdout as bytes: ids are Latin-1 strings standing for the files' bytes."""
    data = "".join(line + "\n" for line in lines).encode("latin-1")
    sys.stdout.flush()
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        sys.stdout.write(data.decode("latin-1"))
    else:
        buffer.write(data)
        buffer.flush()


def _run(argv: Sequence[str]) -> int:
    settings, positional = parse_settings(argv)
    if settings.help:
        print(help_text())
        return EXIT_OK
    if settings.version:
        from .. import __version__
        # trec_eval prints its VersionID on stderr (9.0.8's still says 9.0.7), nothing on stdout.
        print("trec_eval version %s" % ("10.0-rc3" if settings.v10 else "9.0.7"), file=sys.stderr)
        print("runscore %s trec_eval front end (trec_eval %s rules)" % (__version__,
                                                                          "10.0" if settings.v10 else "9.0.8"),
              file=sys.stderr)
        return EXIT_OK
    if len(positional) != 2:
        raise _Usage("expected two files, QRELS and RUN, got %d argument(s)" % len(positional))
    qrels_path, run_path = positional
    settings.qrels_path = qrels_path
    for note in settings.notes:
        print("runscore trec_eval: %s: %s" % ("error" if settings.strict else "warning", note), file=sys.stderr)
    if settings.notes and settings.strict:
        return EXIT_USAGE
    if settings.max_docs is not None and settings.max_docs < 0:
        raise _Usage("-M needs a number >= 0, got %d (trec_eval crashes on a negative -M)" % settings.max_docs)
    notes: List[str] = []
    measures, params = select_measures(settings.measure_args, settings.v10, notes)
    for note in notes:
        print("runscore trec_eval: %s: %s" % ("error" if settings.strict else "warning", note), file=sys.stderr)
    if notes and settings.strict:
        return EXIT_USAGE
    out: List[str] = []
    try:
        fast = fastpath.trec_eval(settings, qrels_path, run_path, measures, params, min_bytes=0)
        if fast is not None:
            evaluation, run_id = Evaluation.of_columns(fast, settings.complete), fast.run_id
            if settings.per_topic:
                for qid in evaluation.printed:
                    out.extend(topic_lines(qid, measures, evaluation.values[qid], params, settings.full_precision))
        else:
            evaluation, run_id = _exact(settings, qrels_path, run_path, measures, params, out)
            if evaluation is None:
                return run_id
    except TrecEvalFailure as failure:
        _write(out)
        sys.stderr.write(failure.stderr)
        if failure.detail:
            print(failure.detail, file=sys.stderr)
        return failure.code
    except MemoryError:
        # The line-by-line reader holds about ten times the file; the columnar reader, which takes nearly every
        # file in a tenth of that, declined this one (a BOM, -J, standard input, see docs/trec_eval.md).
        print("runscore trec_eval: error: not enough memory to evaluate %s line by line; nothing was printed"
              % run_path, file=sys.stderr)
        return EXIT_FILES
    if settings.summary:
        out.extend(summary_lines(measures, evaluation, params, run_id, settings.full_precision))
    _write(out)
    return EXIT_OK


def _exact(settings: Settings, qrels_path: str, run_path: str, measures, params, out: List[str]):
    """Read both files as trec_eval does and run its main loop: (Evaluation, run id), or (None, exit code)
    when --strict refuses what trec_eval would read silently."""
    qrels = read_qrels(_read_bytes(qrels_path, "qrels"), qrels_path, settings.v10)
    if run_path == "-":
        run = read_run(sys.stdin.buffer.read(), "-", settings.v10, "<stdin>")
        shown = "<stdin>"
    else:
        run = read_run(_read_bytes(run_path, "run"), run_path, settings.v10)
        shown = run_path
    if settings.keep_first_duplicate:
        _keep_first_lines(run, run.notes)
    else:
        _duplicate_notes(run, run.notes)
    code = _report_notes(qrels.notes, qrels_path, settings.strict, EXIT_CONFIG)
    code = _report_notes(run.notes, shown, settings.strict, EXIT_INVALID_RUN) or code
    if code:
        return None, code
    warnings: List[str] = []
    try:
        evaluation = evaluate(settings, qrels, run, measures, params, shown, out, warnings)
    finally:                        # also when trec_eval's stop follows: its crash may come first
        for warning in warnings:
            print(warning, file=sys.stderr)
    return evaluation, run.run_id
