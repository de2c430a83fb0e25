"""`runscore new-task KIND NAME`: write a commented form of an organiser's own task to NAME.yaml (docs/own-campaign.md).

Why a command: the form's defaults are the common case (for trec-ranking: TREC runs of at most 1,000 documents a
topic, qrels graded 0-3, nDCG@10 primary, MAP and P@10), so an organiser starts from a valid form and changes a few
lines; the file written is checked by the same loader `--form` uses before it is kept.
"""
import argparse
import os
import re
import sys
from typing import List

from ..errors import EXIT_CONFIG, EXIT_OK, ConfigError

NAME = "new-task"
HELP = ("write a commented form of your own task (trec-ranking, classification, qa) to NAME.yaml; then use --form "
        "NAME.yaml")


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        raise ConfigError(message)


def run(argv: List[str]) -> int:
    from ..tasks.forms import KINDS, load_form, template

    parser = _Parser(prog="runscore new-task", description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter,
                     epilog="example:\n  runscore new-task trec-ranking cranfield   (writes cranfield.yaml)\n"
                            "  runscore validate --form cranfield.yaml my_run")
    parser.add_argument("kind", choices=sorted(KINDS), help="the kind of task")
    parser.add_argument("name", help="the task's name: lower-case letters, digits and '-' (at most 24 characters)")
    parser.add_argument("-o", "--output", help="the file to write (default NAME.yaml); an existing file is kept")
    args = parser.parse_args(argv)
    if not re.fullmatch(r"[a-z][a-z0-9-]{0,23}", args.name):
        raise ConfigError("name %r: lower-case letters, digits and '-', starting with a letter, at most 24 "
                          "characters (the leaderboard keys are made of it)" % args.name[:60])
    from ..tasks import all_tasks

    if any(task.id == args.name and getattr(task, "form_path", None) is None for task in all_tasks()):
        raise ConfigError("name %r is a task of runscore (`runscore tasks`); a form needs a name of its own"
                          % args.name)
    out = args.output or args.name + ".yaml"
    if os.path.exists(out):
        print("runscore: %s exists; it is kept (remove it or give -o)" % out, file=sys.stderr)
        return EXIT_CONFIG
    with open(out, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(template(args.kind, args.name))
    load_form(out)          # the template is a valid form (a defect of runscore otherwise)
    print("wrote %s: edit it, then `runscore validate --form %s RUN`" % (out, out))
    return EXIT_OK
