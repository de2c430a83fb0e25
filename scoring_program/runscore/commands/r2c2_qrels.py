"""`runscore r2c2-qrels`: derive R2C2 PR qrels from AC nugget labels (offline helper, spec r2c2.md 4.3).

Why: the official PR qrels are not public; the design paper derives a passage's grade from the AC judgements
(nuggets citing it). This tool makes that derivation reproducible so the r2c2-pr scorer can be run on qrels
built from any label set. For every AC nugget line whose label is set (mode `entailed`, the default and the
reading consistent with topic 0039, or `relevant`, the design paper's reading), the cited (PRrunname,
PassageRank) is resolved to a passage of the PR runs and that passage's count grows by 1; level = min(count,
15), or L1 for any count with --binary. Every passage of the PR runs is written (L0 when never credited).

Usage: runscore r2c2-qrels --pr PR_RUN... --ac AC_RUN... --labels ac_nugget_labels.tsv (r2c2-ac's format)
       [--mode entailed|relevant] [--binary] [--key-mode content|run_rank] [--aliases FILE] [-o OUT]
Output lines: `qID<TAB>passage_key<TAB>Lk` with a header line, sorted by qID then key.
"""
import argparse
import os
import sys
from collections import OrderedDict
from typing import Dict, List, Optional, Tuple

from ..errors import EXIT_CONFIG, EXIT_INVALID_RUN, EXIT_OK, ConfigError, Diagnostics
from ..measures.ntcireval import MAX_LEVELS
from ..tasks.r2c2.ac_format import ACRun, parse_ac_run
from ..tasks.r2c2.pr_format import KEY_MODES, PRRun, key_text, normalise_run_name, parse_pr_run
from ..tasks.r2c2.labels import NuggetLabel, read_nugget_labels
from ..textfile import numbered_lines, read_text

NAME = "r2c2-qrels"
HELP = "derive R2C2 PR qrels (qID, passage key, Lk) from AC nugget labels (offline helper)"
MODES = ("entailed", "relevant")

def read_aliases(path: str) -> Dict[str, str]:
    """`display name<TAB>official run name` lines (e.g. a team's long name used in AC runs)."""
    aliases = {}
    for line_no, line in numbered_lines(read_text(path, error_class=ConfigError)):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != 2:
            raise ConfigError("expected 'display name<TAB>run name'", path, line_no)
        aliases[normalise_run_name(fields[0])] = normalise_run_name(fields[1])
    return aliases


def derive_qrels(pr_runs: Dict[str, PRRun], ac_runs: List[ACRun], labels: Dict[tuple, NuggetLabel],
                 keyed_by_passage: bool = False, mode: str = "entailed", binary: bool = False,
                 key_mode: str = "content", aliases: Optional[Dict[str, str]] = None,
                 warn=None) -> "OrderedDict[Tuple[str, str], int]":
    """{(qID, passage key text): level} over every passage of the PR runs, sorted (see the module docstring).

    AC runs are read by the r2c2-ac task's own parser and labels by its own reader, so a nugget means here
    exactly what it means when the AC run is scored.
    """
    warn = warn or (lambda message: None)
    counts: Dict[Tuple[str, str], int] = {}
    for pr_run in pr_runs.values():
        for qid in pr_run.topics:
            for rank, _ in pr_run.passages(qid):
                counts.setdefault((qid, key_text(pr_run.key(qid, rank, key_mode))), 0)
    for ac_run in ac_runs:
        for qid, block in ac_run.blocks.items():
            for nugget in block.nuggets:
                pr_name = normalise_run_name(nugget.pr_run, aliases)
                key = (ac_run.name, qid, nugget.number) + ((pr_name, nugget.rank) if keyed_by_passage else ())
                label = labels.get(key)
                if label is None:
                    warn("%s:%d: no label for question %s nugget %d; counted as not entailed"
                         % (ac_run.path, nugget.line, qid, nugget.number))
                    continue
                if not (label.entailed if mode == "entailed" else label.relevant):
                    continue
                pr_run = pr_runs.get(pr_name)
                if pr_run is None or pr_run.passage(qid, nugget.rank) is None:
                    warn("%s:%d: nugget %d cites %s;%d, which no PR run has for question %s; not counted"
                         % (ac_run.path, nugget.line, nugget.number, nugget.pr_run, nugget.rank, qid))
                    continue
                counts[(qid, key_text(pr_run.key(qid, nugget.rank, key_mode)))] += 1
    return OrderedDict((key, (min(count, 1) if binary else min(count, MAX_LEVELS)))
                       for key, count in sorted(counts.items()))


def run(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(prog="runscore r2c2-qrels", description=HELP,
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="example:\n  runscore r2c2-qrels --pr T-PG-1 T-PO-2 --ac T-AC-1 "
                                            "--labels nugget_labels.tsv -o pr_qrels.txt")
    parser.add_argument("--pr", nargs="+", required=True, help="PR run files ([Team]-{PG|PO}-[1-4])")
    parser.add_argument("--ac", nargs="+", required=True, help="AC run files ([Team]-AC-[1-4])")
    parser.add_argument("--labels", required=True, help="nugget label file, the r2c2-ac task's format "
                        "(header run_id qID NuggetNum [PRrunname PassageRank] entailed relevant)")
    parser.add_argument("--mode", choices=MODES, default="entailed", help="which nugget label credits a passage")
    parser.add_argument("--binary", action="store_true", help="L1 for any credited passage (else L = count, <= 15)")
    parser.add_argument("--key-mode", choices=KEY_MODES, default="content", help="passage identity")
    parser.add_argument("--aliases", help="TAB-separated 'display name<TAB>run name' file")
    parser.add_argument("-o", "--output", help="output file (default: standard output)")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return EXIT_OK if exc.code == 0 else EXIT_CONFIG
    aliases = read_aliases(args.aliases) if args.aliases else {}
    labels, keyed_by_passage = read_nugget_labels(args.labels, aliases)
    pr_runs: Dict[str, PRRun] = {}
    failed = False
    for path in args.pr:
        diags = Diagnostics(os.path.basename(path))
        pr_run = parse_pr_run(path, os.path.basename(path), diags)
        for text in diags.lines():
            print(text, file=sys.stderr)
        failed = failed or diags.has_errors
        if pr_run.name in pr_runs:
            raise ConfigError("two PR runs are named %s" % pr_run.name, path)
        pr_runs[pr_run.name] = pr_run
    ac_runs: List[ACRun] = []
    for path in args.ac:
        diags = Diagnostics(os.path.basename(path))
        ac_runs.append(parse_ac_run(path, os.path.basename(path), diags, check_name=False))
        for text in diags.lines():
            print(text, file=sys.stderr)
        failed = failed or diags.has_errors
    if failed:
        return EXIT_INVALID_RUN
    qrels = derive_qrels(pr_runs, ac_runs, labels, keyed_by_passage, args.mode, args.binary, args.key_mode,
                         aliases, warn=lambda message: print("warning: " + message, file=sys.stderr))
    text = "qID\tpassage_key\tlevel\n" + "".join("%s\t%s\tL%d\n" % (qid, key, level)
                                                  for (qid, key), level in qrels.items())
    if args.output:
        with open(args.output, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
    else:
        sys.stdout.write(text)
    return EXIT_OK
