"""trec_eval's command line as runscore trec_eval reads it: getopt's syntax, the options, the nicknames and the
measure list with its parameters, as each version (9.0.8, 10.0) reads them, and the help text.

Why a module of its own: what the command line asks is settled before a file is opened, and api.trec_eval asks
the same questions with keyword arguments (`parse_settings`, `select_measures`); commands/trec_eval/__init__.py reads
the files and prints, commands/trec_eval/loop.py evaluates.
"""
import re
from typing import Dict, List, Optional, Sequence, Tuple

from ...errors import ConfigError
from ...measures.c_numbers import c_atof, c_float
from ...measures.trec import ALL_TREC_V9, ALL_TREC_V10, DEFAULT_SET, PAIR_PARAMS, REGISTRY, V10_ONLY, Params
from ...ranking.trec_eval_files import c_atol

EXIT_USAGE = 1      # trec_eval's exit code for a bad command line (and an illegal measure)

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
            from ...measures.names import ir_measures_to_trec_eval

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
