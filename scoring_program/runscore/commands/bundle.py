"""`runscore bundle`: build the competition upload zip, or regenerate the bundle files committed at the root.

Exit codes: 0 built (and the linter found no error in it), 2 bad usage, missing data, or a bundle the linter
rejects (the organiser's side, as every other set-up problem).
"""
import argparse
import os
import sys
from typing import List

from ..codabench.bundle import BundlePlan, PhaseDates, build_zip, select_tasks, tasks_without_samples, write_root
from ..errors import EXIT_CONFIG, EXIT_OK, ConfigError

NAME = "bundle"
HELP = "build the Codabench upload zip (or --write-root: regenerate competition.yaml, pages/, logo.png)"

DEFAULT_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        raise ConfigError(message)


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="runscore bundle", description=HELP)
    p.add_argument("-o", "--output", metavar="FILE.zip", help="the zip to write")
    p.add_argument("--tasks", metavar="A,B", help="only these task ids (default: every task with sample data)")
    p.add_argument("--reference", metavar="DIR", help="the organiser's real reference data (a folder per task "
                   "id) for the formal phase; default: the formal phase uses the sample data")
    p.add_argument("--v1", action="store_true", help="CodaLab v1.5 format (nested zips, html pages, v1 keys)")
    p.add_argument("--dates", metavar="DRY_START,DRY_END,FORMAL_START[,FORMAL_END]",
                   help="phase dates, ISO 'YYYY-MM-DD HH:MM:SS' (default: placeholders of 2026/2027)")
    p.add_argument("--root", default=DEFAULT_ROOT, help="the repository root (default: this checkout)")
    p.add_argument("--write-root", action="store_true",
                   help="regenerate competition.yaml, pages/, logo.png and starting_kit/schemas/ at --root")
    p.add_argument("--no-lint", action="store_true", help="do not lint the zip after building it")
    return p


def _dates(text: str) -> PhaseDates:
    parts = [p.strip() for p in text.split(",")]
    if len(parts) not in (3, 4):
        raise ConfigError("--dates expects DRY_START,DRY_END,FORMAL_START[,FORMAL_END], got %r" % text)
    return PhaseDates(*parts)


def run(argv: List[str]) -> int:
    args = parser().parse_args(argv)
    root = os.path.abspath(args.root)
    if args.write_root:
        for name in write_root(root):
            print("wrote %s" % name)
        for task_id in tasks_without_samples(root):
            print("note: task %s has no reference_data/%s/ and is left out of the bundle" % (task_id, task_id),
                  file=sys.stderr)
        if not args.output:
            return EXIT_OK
    if not args.output:
        raise ConfigError("give -o FILE.zip (or --write-root)")
    tasks = select_tasks(root, args.tasks.split(",") if args.tasks else None)
    plan = BundlePlan(root, tasks, os.path.abspath(args.reference) if args.reference else None,
                      _dates(args.dates) if args.dates else PhaseDates())
    names = build_zip(plan, args.output, v1=args.v1)
    print("wrote %s: %d files, tasks %s%s" % (args.output, len(names), ", ".join(t.id for t in tasks),
                                              " (CodaLab v1.5 format)" if args.v1 else ""))
    if args.no_lint:
        return EXIT_OK
    from ..codabench.lint import lint_path, print_report

    problems = lint_path(args.output)
    print_report(problems)
    return EXIT_CONFIG if any(p.severity == "error" for p in problems) else EXIT_OK
