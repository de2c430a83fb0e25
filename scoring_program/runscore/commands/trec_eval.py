"""`runscore trec_eval`: a drop-in for the trec_eval command line (9.0.8 output by default, 10.0 with --v10).

Why: users of trec_eval can check that runscore gives their numbers, line for line, before they trust its
task scorers, which share the same ranking, labelling and measure code (rankeval, label, measures.trec).
Options follow trec_eval's own syntax (getopt: `-mP.5,10`, `-m P.5,10`, `-M100`, `-l2`, `-qc`, long forms);
bad input is reported as `FILE:LINE: error: message` (exit 1 for the run, 2 for the qrels or usage).
"""
import difflib
import io
import math
import sys
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..ranking import fastpath
from ..errors import EXIT_CONFIG, EXIT_INVALID_RUN, EXIT_OK, ConfigError
from ..measures.names import ir_measures_to_trec_eval
from ..measures.trec import (ALL_TREC_V9, ALL_TREC_V10, DEFAULT_SET, REGISTRY, V10_ONLY, TrecOptions,
                             summarise)
from ..ranking.qrels import parse_qrels_text
from ..ranking.rankeval import evaluate_topic_run
from ..textfile import read_text
from ..ranking.trec_format import read_trec_run

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
                "keep-first-duplicate": "DUP"}

USAGE = """usage: runscore trec_eval [-h] [-q] [-c] [-n] [-J] [-l N] [-M N] [-N N] [-m MEASURE[.PARAMS]]...
                          [--v10 | -V 9|10] QRELS RUN
  -q  per-topic values too          -c  average over every qrels topic (a missing topic scores 0)
  -l  relevance level (default 1)   -M  documents kept per topic after sorting (default all)
  -N  documents in the collection (utility)   -n  no summary   -J  judged documents only
  -m  measure or nickname (official, all_trec, set); parameters after a dot: -m P.5,10 -m ndcg.1=3,2=9
  --v10 / -V 10  trec_eval 10.0 rules: lround recall cutoffs, double scores, '#' comments, a qrels topic
                 missing from the run is an error without -c and printed with -c -q, all_trec adds rbp,
                 rbp_resid, unj.  Default: trec_eval 9.0.8 (scores read as C float).
  --full-precision  print values with %.17g instead of %6.4f (runscore extension)
  --keep-first-duplicate  a repeated docno of a topic is a warning and its first line counts (default: error)
RUN may be '-' for standard input. See docs/trec_eval.md."""


class _Usage(ConfigError):
    """Bad command line (exit 2)."""


class _RunProblem(Exception):
    """The run cannot be evaluated as a whole, e.g. nothing in common with the qrels (exit 1)."""


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


def _int_arg(letter: str, value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise _Usage("option -%s needs an integer, got %r" % (letter, value))


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
            s.level = _int_arg(letter, value)
        elif letter == "M":
            s.max_docs = _int_arg(letter, value)
        elif letter == "N":
            s.num_docs_in_coll = _int_arg(letter, value)
        elif letter == "m":
            s.measure_args.append(value)
        elif letter == "F":
            s.full_precision = True
        elif letter == "K":
            s.keep_first_duplicate = True
        elif letter == "V":
            if value not in ("9", "10"):
                raise _Usage("-V takes 9 (trec_eval 9.0.8, default) or 10 (trec_eval 10.0), got %r" % value)
            s.v10 = value == "10"
        elif letter == "R" and value == "qrels" or letter == "T" and value == "trec_results":
            continue
        else:
            raise _Usage("%s is not supported by runscore trec_eval"
                         % UNSUPPORTED_OPTIONS.get("-" + letter, "-%s %s" % (letter, value)))
    return s, positional


def select_measures(measure_args: Sequence[str], v10: bool) -> Tuple[List[str], Dict[str, object]]:
    """Measures to print in trec_eval's order, and parameters given on the command line (the first wins)."""
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
        if name not in REGISTRY or (name == "unj" and not v10):
            hint = " (a trec_eval 10.0 measure: add --v10)" if name == "unj" else ""
            translated = ir_measures_to_trec_eval(arg)      # an ir_measures name: nDCG@10 -> ndcg_cut.10
            if translated is not None and translated.split(".")[0] in REGISTRY:
                close = [translated]
            else:
                close = difflib.get_close_matches(name, list(REGISTRY) + list(NICKNAMES) + ["all_trec"], n=3)
            if close and not hint:
                hint = "; did you mean %s?" % " or ".join(close)
            raise _Usage("illegal measure %r%s" % (name, hint))
        marked.add(name)
        if dot and name not in params:
            try:
                params[name] = REGISTRY[name].parse_params(param_text)
            except ValueError as exc:
                raise _Usage("illegal measure %r: %s" % (arg, exc))
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


def summary_lines(measures: Sequence[str], per_topic: Dict[str, Dict[str, object]], params: Dict,
                  run_id: str, full: bool = False) -> List[str]:
    out = []
    for name in measures:
        if name == "runid":
            out.append(_line("runid", "all", run_id))
            continue
        if name == "num_q":
            out.append(_line("num_q", "all", "%d" % len(per_topic)))
            continue
        measure = REGISTRY[name]
        if measure.summary == "none":
            continue
        for value_name in measure.value_names(params.get(name, measure.params)):
            value = summarise(measure, [v[value_name] for v in per_topic.values()])
            text = "%d" % int(value) if measure.is_count else format_value(value, full)
            out.append(_line(value_name, "all", text))
    return out


def evaluate(settings: Settings, qrels, run, measures: Sequence[str], params: Dict, run_path: str):
    """Per-topic values (topics in byte order) and which topics to print; raises for v10 missing topics."""
    options = TrecOptions(interp_cutoff="v10" if settings.v10 else "v9",
                          num_docs_in_coll=settings.num_docs_in_coll)
    dtype = np.float64 if settings.v10 else np.float32
    computed = [m for m in measures if m not in ("runid", "num_q")]
    per_topic: Dict[str, Dict[str, object]] = {}
    printed: List[str] = []
    for qid in sorted(qrels):
        topic_run = run.topics.get(qid)
        if topic_run is None and not settings.complete:
            if settings.v10:
                raise _RunProblem("%s: error: topic %s of the qrels has no lines in the run (trec_eval 10.0 "
                                  "stops here; use -c to score it as an empty ranking)" % (run_path, qid))
            continue
        values = evaluate_topic_run(topic_run, qrels[qid], computed, settings.level, options, "desc",
                                    settings.max_docs, params, dtype, settings.judged_only)
        if topic_run is None:
            # trec_eval scores a missing topic with a one-document placeholder ranking and then zeroes the
            # values that placeholder would change; utility is zeroed whatever its coefficients.
            for value_name in values:
                if value_name == "utility" or value_name.startswith("utility_"):
                    values[value_name] = 0.0
        per_topic[qid] = values
        if topic_run is not None or settings.v10:
            printed.append(qid)
    return per_topic, printed


def run(argv: Sequence[str]) -> int:
    try:
        return _run(argv)
    except _Usage as exc:
        print("runscore trec_eval: error: %s" % exc.args[0], file=sys.stderr)
        print("usage: runscore trec_eval [options] QRELS RUN  (runscore trec_eval -h for help)", file=sys.stderr)
        return EXIT_CONFIG
    except ConfigError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_CONFIG
    except _RunProblem as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_INVALID_RUN


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


def _run(argv: Sequence[str]) -> int:
    settings, positional = parse_settings(argv)
    if settings.help:
        print(help_text())
        return EXIT_OK
    if settings.version:
        from .. import __version__
        print("runscore %s trec_eval front end (trec_eval %s rules)" % (__version__,
                                                                          "10.0" if settings.v10 else "9.0.8"))
        return EXIT_OK
    if len(positional) != 2:
        raise _Usage("expected two files, QRELS and RUN, got %d argument(s)" % len(positional))
    qrels_path, run_path = positional
    if settings.max_docs is not None and settings.max_docs < 0:
        raise _Usage("-M needs a number >= 0, got %d" % settings.max_docs)
    measures, params = select_measures(settings.measure_args, settings.v10)
    fast = fastpath.trec_eval(settings, qrels_path, run_path, measures, params, _RunProblem)  # big, clean
    if fast is not None:
        (per_topic, printed, run_id), shown = fast, run_path
    else:
        qrels = parse_qrels_text(read_text(qrels_path, error_class=ConfigError), qrels_path,
                                 allow_comments=settings.v10)
        if not qrels:
            raise ConfigError("the qrels file has no judgements", qrels_path)
        if run_path == "-":
            data, shown = sys.stdin.buffer.read(), "<stdin>"
        else:
            try:
                with open(run_path, "rb") as handle:
                    data = handle.read()
            except OSError as exc:
                raise ConfigError("cannot read run file: %s" % exc.strerror, run_path)
            shown = run_path
        run_data, diags = read_trec_run(shown, comments=settings.v10, data=data,
                                        keep_first_duplicate=settings.keep_first_duplicate)
        for line in diags.lines():
            print(line, file=sys.stderr)
        if diags.has_errors:
            return EXIT_INVALID_RUN
        per_topic, printed = evaluate(settings, qrels, run_data, measures, params, shown)
        run_id = run_data.run_id
    if not per_topic:
        raise _RunProblem("%s: error: no topic of the run is in the qrels (nothing to evaluate)" % shown)
    out = io.StringIO()
    if settings.per_topic:
        for qid in printed:
            for line in topic_lines(qid, measures, per_topic[qid], params, settings.full_precision):
                out.write(line + "\n")
    if settings.summary:
        for line in summary_lines(measures, per_topic, params, run_id, settings.full_precision):
            out.write(line + "\n")
    sys.stdout.write(out.getvalue())
    return EXIT_OK
