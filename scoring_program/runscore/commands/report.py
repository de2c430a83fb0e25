"""`runscore report`: the overview paper's tables and figures for a whole campaign of one task.

Why a command of its own: after a campaign the organisers need every run's means with group letters, the
significant pairs, the agreement between measures, judged@k and the reusability of the pool, as CSV, LaTeX and
one HTML page. The numbers live in runscore/campaign/ (overview.py and the writers); this module only reads the
command line and prints what it did.
"""
import argparse
import sys
from typing import List

from .. import api
from ..campaign import agreement_tau, overview
from ..cli import _option_overrides, _Parser
from .pool import add_identity_options, say
from ..errors import EXIT_INVALID_RUN, EXIT_OK

NAME = "report"
HELP = "the overview tables of a campaign: means with Tukey HSD groups, significance, tau, pool, reusability"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="runscore report", description=HELP + ". See docs/report.md.",
                     formatter_class=argparse.RawDescriptionHelpFormatter,
                     epilog="example:\n  runscore report --task ntcir1-adhoc --ref REF --pool-depth 100 runs/ -o "
                            "overview/\n  runscore report --task r2c2-pr --ref REF --discpower --phase 1 "
                            "1_alice_PhaseId1_2026-05-01:10-22_s.zip 2_bob_PhaseId1_2026-05-01:11-02_t.zip -o overview/")
    parser.add_argument("--task", required=True, help="task id (see `runscore tasks`)")
    parser.add_argument("--ref", required=True, help="reference folder (with task.yaml) or a single reference file")
    parser.add_argument("-o", "--output", required=True, metavar="DIR", help="folder the report is written to")
    parser.add_argument("--pool-depth", type=int, metavar="K",
                        help="pool depth: judged@K in pool.csv and leave-one-team-out in reusability.csv")
    parser.add_argument("--measure", action="append", metavar="M", default=[],
                        help="also test this measure in significance.csv (repeatable)")
    parser.add_argument("--trials", type=int, default=overview.DEFAULT_TRIALS,
                        help="randomised Tukey HSD trials (default %d)" % overview.DEFAULT_TRIALS)
    parser.add_argument("--seed", type=int, default=overview.DEFAULT_SEED,
                        help="seed of the Tukey HSD and the tau bootstrap (default %d)" % overview.DEFAULT_SEED)
    parser.add_argument("--alpha", type=float, default=overview.DEFAULT_ALPHA,
                        help="significance level of the group letters (default %.2f)" % overview.DEFAULT_ALPHA)
    parser.add_argument("--tau-bootstrap", type=int, default=agreement_tau.DEFAULT_TAU_BOOTSTRAP,
                        help="bootstrap samples of the tau intervals (default %d; 0: none)"
                             % agreement_tau.DEFAULT_TAU_BOOTSTRAP)
    parser.add_argument("--confidence", type=float, default=0.95, help="level of the tau intervals (default 0.95)")
    parser.add_argument("--discpower", action="store_true",
                        help="also write Discpower's input matrix and p-value files (DIR/discpower/)")
    parser.add_argument("--runs", dest="family", action="append", default=[], metavar="RUN[,RUN...]",
                        help="the family of Tukey's HSD: only these runs (labels as in means.csv; shell patterns "
                             "such as 'team1-*'; repeatable). The HSD's p-values depend on the family: "
                             "default every run")
    parser.add_argument("--exclude", action="append", default=[], metavar="RUN[,RUN...]",
                        help="leave these runs (or patterns, e.g. 'baseline*') out of Tukey's HSD family; they "
                             "keep their means, tau and pool figures")
    parser.add_argument("--option", action="append", metavar="NAME=VALUE", help="override a task option")
    parser.add_argument("--max-errors", type=int, default=50, help="different errors listed per file (default 50)")
    parser.add_argument("runs", nargs="+", metavar="RUN_OR_SUBMISSION",
                        help="run files, folders of runs, or submission zips as downloaded from Codabench (read "
                             "as `runscore pool` reads them: a run is its owner's, see docs/campaign.md)")
    add_identity_options(parser)
    return parser


def run(argv: List[str]) -> int:
    args = build_parser().parse_args(argv)
    try:
        written = api.report(args.task, args.ref, args.runs, args.output, pool_depth=args.pool_depth,
                             measures=args.measure, trials=args.trials, seed=args.seed, alpha=args.alpha,
                             tau_bootstrap=args.tau_bootstrap, confidence=args.confidence, discpower=args.discpower,
                             options=_option_overrides(args.option), max_errors=args.max_errors,
                             phase=args.phase, deadline=args.deadline, submissions=args.submissions,
                             allow_same_names=args.allow_same_names, skip_invalid=args.skip_invalid,
                             family=_listed(args.family), exclude=_listed(args.exclude))
    except api.InvalidRunsError as exc:
        for line in exc.lines:
            say(line, file=sys.stderr)
        say("no report written: fix the errors above", file=sys.stderr)
        return EXIT_INVALID_RUN
    for message in written.messages:
        say(message, file=sys.stderr)
    for note in written.notes:
        say("note: %s" % note, file=sys.stderr)
    rules = overview.rules_line(written.overview.task, written.overview.settings.get("rules") or {})
    if rules:
        say(rules)
    say("%d run%s of %s: wrote %s into %s" % (written.runs, "" if written.runs == 1 else "s", args.task,
                                              ", ".join(written.files), args.output))
    return EXIT_OK


def _listed(values: List[str]) -> List[str]:
    """--runs a,b --runs c -> [a, b, c]."""
    return [name.strip() for value in values for name in value.split(",") if name.strip()]
