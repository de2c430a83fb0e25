"""`runscore pytrec-eval-wheel`: write the pytrec-eval-terrier stand-in (runscore/pytrec_eval/wheel.py) and its
constraints file, for installing ir_measures, BEIR or mteb beside runscore with no C extension and a clean
`pip check` (docs/python-api.md). This module only reads the command line and says what to run next.
"""
import argparse
import os
import shlex

from ..pytrec_eval import wheel as pytrec_eval_wheel
from ..cli import _Parser
from ..errors import EXIT_OK, ConfigError, printable

NAME = "pytrec-eval-wheel"
HELP = "write a local pytrec-eval-terrier wheel that is runscore's pytrec_eval, for ir_measures, BEIR and mteb"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="runscore %s" % NAME, formatter_class=argparse.RawDescriptionHelpFormatter,
                     description=HELP + ": pip then counts pytrec-eval-terrier as installed (no C build, no scipy) "
                     "and `import pytrec_eval` gives runscore.pytrec_eval everywhere, with no register() to call. "
                     "A constraints file beside it keeps a later pip install from replacing it.",
                     epilog="example:\n  runscore pytrec-eval-wheel -o wheels\n"
                            "  pip install --find-links wheels -c wheels/constraints.txt ir_measures beir\n"
                            "  pip check")
    parser.add_argument("-o", "--output", default=".", metavar="DIR", help="folder to write into (default: .)")
    return parser


def run(argv) -> int:
    args = build_parser().parse_args(argv)
    try:
        wheel, constraints = pytrec_eval_wheel.write(args.output)
    except OSError as exc:          # -o names a file, or a folder that cannot be made or written
        raise ConfigError("cannot write the wheel into this folder: %s" % (exc.strerror or exc), args.output)
    folder = os.path.dirname(wheel) or "."
    print(printable(wheel))
    print(printable(constraints))
    print(printable("next: pip install --find-links %s -c %s ir_measures   (or beir, mteb; keep -c for later "
                    "installs)" % (shlex.quote(folder), shlex.quote(constraints))))
    return EXIT_OK
