"""`runscore compare`: score several runs of one task and say which differences between them are real.

Why a command of its own: organisers compare a whole campaign's runs (a folder of runs) with the same tests
the overviews report; the per-topic scores come from the same pipeline as `runscore score`, so the numbers
compared are exactly the official ones. The statistics live in runscore/compare.py.
"""
import argparse
import json
import os
import sys
from typing import List

from .. import compare as analysis
from ..cli import UsageError, _option_overrides, _Parser
from ..errors import EXIT_INVALID_RUN, EXIT_OK
from ..pipeline import check_file, load_reference, score_runs
from ..report import atomic_write, summary_table
from ..tasks import get_task

NAME = "compare"
HELP = "compare runs of one task: per-topic scores, paired t, Wilcoxon, randomised Tukey HSD, bootstrap CIs"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="runscore compare", description=HELP + ". See docs/compare.md.",
                     formatter_class=argparse.RawDescriptionHelpFormatter,
                     epilog="example:\n  runscore compare --task ntcir1-adhoc --ref reference_data/ntcir1-adhoc "
                            "--measure AP --figure cmp.svg run1 run2 run3\n"
                            "  runscore compare --task r2c2-pr --ref REF --runs-dir campaign_runs/ --json > cmp.json")
    parser.add_argument("--task", required=True, help="task id (see `runscore tasks`)")
    parser.add_argument("--ref", required=True, help="reference folder (with task.yaml) or a single reference file")
    parser.add_argument("--measure", help="per-topic measure to compare (default: the task's primary measure)")
    parser.add_argument("--trials", type=int, default=analysis.DEFAULT_TRIALS,
                        help="randomised Tukey HSD trials (default %d)" % analysis.DEFAULT_TRIALS)
    parser.add_argument("--bootstrap", type=int, default=analysis.DEFAULT_BOOTSTRAP,
                        help="bootstrap samples for the CIs (default %d)" % analysis.DEFAULT_BOOTSTRAP)
    parser.add_argument("--seed", type=int, default=analysis.DEFAULT_SEED,
                        help="random seed of the Tukey HSD and the bootstrap (default %d)" % analysis.DEFAULT_SEED)
    parser.add_argument("--confidence", type=float, default=analysis.DEFAULT_CONFIDENCE,
                        help="confidence level of the intervals (default %.2f)" % analysis.DEFAULT_CONFIDENCE)
    parser.add_argument("--correction", choices=analysis.CORRECTIONS, default="holm",
                        help="family-wise correction of the pairwise t and Wilcoxon p-values (default holm)")
    parser.add_argument("--runs-dir", action="append", metavar="DIR",
                        help="also compare every file in DIR (a campaign's runs; hidden files are skipped)")
    parser.add_argument("--json", action="store_true", help="print the analysis as one JSON object")
    parser.add_argument("--figure", metavar="OUT.svg", help="write an SVG figure (means, per-topic differences)")
    parser.add_argument("--option", action="append", metavar="NAME=VALUE", help="override a task option")
    parser.add_argument("--max-errors", type=int, default=50, help="different errors listed per file (default 50)")
    parser.add_argument("runs", nargs="*", metavar="RUN")
    return parser


def run_files(runs: List[str], runs_dirs: List[str]) -> List[str]:
    """The run files named, then each folder's regular files in name order."""
    files = []
    for path in runs:
        if not os.path.isfile(path):
            raise UsageError("run file %r does not exist" % path)
        files.append(path)
    for folder in runs_dirs:
        if not os.path.isdir(folder):
            raise UsageError("--runs-dir %r is not a folder" % folder)
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            if not name.startswith(".") and os.path.isfile(path):
                files.append(path)
    return files


def run(argv: List[str]) -> int:
    args = build_parser().parse_args(argv)
    if args.trials < 1 or args.bootstrap < 1:
        raise UsageError("--trials and --bootstrap must be at least 1")
    if not 0.0 < args.confidence < 1.0:
        raise UsageError("--confidence must be between 0 and 1, got %r" % args.confidence)
    if args.figure and not os.path.isdir(os.path.dirname(os.path.abspath(args.figure))):
        raise UsageError("--figure %r: its folder does not exist" % args.figure)
    files = run_files(args.runs, args.runs_dir or [])
    if not files:
        raise UsageError("no run files: name at least 2 runs, or a folder of runs with --runs-dir")
    task = get_task(args.task)
    reference = load_reference(task, args.ref, _option_overrides(args.option))
    checked = [check_file(task, path, path, reference, reference.options, args.max_errors) for path in files]
    for c in checked:
        for message in c.diags.lines():
            print(message, file=sys.stderr)
    if any(c.diags.has_errors for c in checked):
        print("not compared: fix the errors above", file=sys.stderr)
        return EXIT_INVALID_RUN
    parsed = [r for c in checked for r in c.runs]
    scored = list(zip(parsed, score_runs(reference, parsed)))
    if len(scored) < 2:
        raise UsageError("comparing needs at least 2 runs; %s holds only %d"
                         % (", ".join(files), len(scored)))
    measure = analysis.choose_measure(task, scored, args.measure)
    matrix = analysis.build_matrix(scored, measure)
    comparison = analysis.compare(matrix, trials=args.trials, bootstrap=args.bootstrap, seed=args.seed,
                                  confidence=args.confidence, correction=args.correction)
    for note in matrix.notes:
        print("note: %s" % note, file=sys.stderr)
    if args.figure:
        try:
            atomic_write(args.figure, analysis.figure_svg(comparison))
        except OSError as exc:
            raise UsageError("cannot write --figure %r: %s" % (args.figure, exc.strerror or exc))
    if args.json:
        print(json.dumps(analysis.comparison_json(comparison, task.id), indent=2, allow_nan=False))
        return EXIT_OK
    blocks = []
    for table in analysis.comparison_tables(comparison):
        blocks.append("%s\n%s" % (table["caption"], summary_table([table["header"]] + table["rows"])))
    print("\n\n".join(blocks))
    return EXIT_OK
