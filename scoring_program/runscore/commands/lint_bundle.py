"""`runscore lint-bundle PATH`: check a competition bundle folder or upload zip against the platform's rules.

Exit codes (as everywhere in runscore): 0 no error (warnings allowed), 1 the bundle breaks a rule (the
input under check is invalid, as `validate` does for a run), 2 bad usage (PATH missing, not a zip or folder).
"""
import argparse
import sys
from typing import List

from ..errors import EXIT_INVALID_RUN, EXIT_OK, ConfigError

NAME = "lint-bundle"
HELP = "check a competition bundle (folder or zip) against Codabench / CodaLab rules"


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        raise ConfigError(message)


def run(argv: List[str]) -> int:
    parser = _Parser(prog="runscore lint-bundle", description=HELP,
                     formatter_class=argparse.RawDescriptionHelpFormatter,
                     epilog="example:\n  runscore lint-bundle dist/runscore-bundle.zip\n  runscore lint-bundle .")
    parser.add_argument("path", metavar="PATH", help="the bundle folder (e.g. the repository root) or zip")
    parser.add_argument("--quiet", action="store_true", help="print errors only")
    parser.add_argument("--worker-data", metavar="DIR", help="the compute worker's data folder (what runscore "
                        "bundle --reference wrote beside the zip, <task-id>.worker-data/): a formal reference kept "
                        "there is checked against the zip's fingerprints and loaded")
    args = parser.parse_args(argv)
    from ..codabench.lint import lint_path, print_report

    from ..codabench.form_bundle import register_carried_forms

    register_carried_forms(args.path)        # a form's competition: its task, as its own score.py registers it
    found = lint_path(args.path, args.worker_data)
    shown = [d for d in found if d.severity == "error"] if args.quiet else found
    print_report(shown)
    return EXIT_INVALID_RUN if any(d.severity == "error" for d in found) else EXIT_OK
