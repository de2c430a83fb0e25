"""The command line: `runscore tasks | options | validate | score`, plus the modules of runscore/commands/.

Exit codes everywhere: 0 success, 1 invalid run (the participant's fault), 2 bad usage or bad reference data
(the organiser's fault). No traceback for bad input: RunError and ConfigError are mapped here, once.
"""
import argparse
import json
import os
import re
import sys
from typing import Any, Dict, List, Optional

from . import __version__
from .commands import command_modules, find_command
from .errors import EXIT_CONFIG, EXIT_INVALID_RUN, EXIT_OK, ConfigError, RunError, report_internal_error
from .pipes import readers_may_leave


class UsageError(ConfigError):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        raise UsageError(message)


def _option_overrides(pairs: Optional[List[str]]) -> Dict[str, Any]:
    """`--option name=value` pairs; values are read as YAML scalars (true, 1000, desc)."""
    if not pairs:
        return {}
    import yaml         # here: only --option needs it, and it costs 20 ms at every start

    out = {}
    for pair in pairs:
        if "=" not in pair:
            raise UsageError("--option expects NAME=VALUE, got %r" % pair)
        name, value = pair.split("=", 1)
        out[name.strip()] = yaml.safe_load(value) if value.strip() else ""
    return out


# The stages (pipeline, report, tasks) are imported by the built-in commands that use them, not at start-up:
# `runscore trec_eval` needs none of them, and its start-up is part of what it is measured by (the shape table's
# many-tiny-files rows).

def cmd_tasks(_args) -> int:
    from .tasks import all_tasks

    for task in all_tasks():
        print("%-16s %s" % (task.id, task.description))
    return EXIT_OK


# The options' texts are written against the task's sources; a participant reading them needs the three words.
OPTION_WORDS = ("# Words below: 'the seed' is the task's run-format description (the competition's instructions);\n"
                "# 'the spec' is runscore's specification of it (runscore's docs/<task-id>.md); 'Proposed' marks the\n"
                "# default runscore chose where those leave the rule open. The leaderboard uses the defaults unless\n"
                "# the organiser's task.yaml sets an option.")
_NAMES_A_SOURCE = re.compile(r"\b(seed|spec|Proposed)\b")


def cmd_options(args) -> int:
    from .tasks import get_task

    task = get_task(args.task)
    if any(_NAMES_A_SOURCE.search(option.help) for option in task.options):
        print(OPTION_WORDS)
    for option in task.options:
        choices = " (%s)" % " | ".join(str(c) for c in option.choices) if option.choices else ""
        print("%s = %r%s\n    %s" % (option.name, option.default, choices, option.help))
    return EXIT_OK


def _check_all(task, files, reference, max_errors, team_cap=False, options=None, after_check=None):
    """Judge the files as the task's competition would (submission.examine_files: the judgement of `runscore
    check` and score.py); the campaign's per-team run cap only with --team-cap (a researcher scores every team's
    runs in one call; a participant checking a submission asks for it), the platform's caps never. `after_check`
    sees each file once checked (its runs are scored and their records dropped there)."""
    import shutil
    import tempfile

    from .submission import examine_files
    from .tasks.base import submission_scope

    for path in files:
        if not os.path.exists(path):
            raise UsageError("run file %r does not exist" % path)
    workdir = tempfile.mkdtemp(prefix="runscore-validate-")
    try:
        with submission_scope():
            found = examine_files(files, workdir, [task], {task.id: reference} if reference else None, team_cap,
                                  max_errors, {task.id: options} if options else None, after_check)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    for message in found.messages:
        print(message, file=sys.stderr)
    return found


def _drop_records(_task, checked) -> None:
    """A checked file's records are not needed once its verdict is known (names and teams stay on the runs):
    checking a whole campaign's runs holds one file's records at a time."""
    for run in checked.runs:
        run.data = None


def cmd_validate(args) -> int:
    from .pipeline import load_reference
    from .tasks import get_task

    task = get_task(args.task)
    reference = load_reference(task, args.ref, _option_overrides(args.option)) if args.ref else None
    options = None if reference else task.resolve_options(_option_overrides(args.option), "--option")
    # a collecting phase's topic check reads the runs' records after every file is checked
    drop = None if reference is not None and reference.collect else _drop_records
    found = _check_all(task, args.runs, reference, args.max_errors, args.team_cap, options, drop)
    problems: Dict[str, int] = {}
    for p in found.problems:
        problems[p.path] = problems.get(p.path, 0) + 1
    companions = {c.display for c in found.companions}
    for candidate in found.candidates + found.companions:
        name = candidate.display
        if name in companions:
            print("%s: read beside the %s runs that cite it, not a run" % (name, task.id))
        elif name in found.checked:
            c = found.checked[name]
            status = "invalid" if c.diags.has_errors or name in problems else "valid"
            print("%s: %s (%d error(s), %d warning(s))" % (name, status, c.diags.error_count + problems.get(name, 0),
                                                           c.diags.warning_count))
        else:
            print("%s: invalid (%d error(s), 0 warning(s))" % (name, problems.get(name, 1)))
    return EXIT_INVALID_RUN if found.failed else EXIT_OK


def _notes_once(results) -> List[str]:
    """Each note said once: one that every run carries (topics without a relevant document: the reference's, not
    the runs') is one line, not one a run; one only some runs carry names them."""
    runs_of: Dict[str, List[str]] = {}
    for run, scores in results:
        for note in dict.fromkeys(scores.notes):
            runs_of.setdefault(note, []).append(run.name)
    return [note if len(names) == len(results) else "%s: %s" % (", ".join(names), note)
            for note, names in runs_of.items()]


def cmd_score(args) -> int:
    from .pipeline import ScoreAsChecked, load_reference
    from .report import summary_table
    from .tasks import get_task

    task = get_task(args.task)
    reference = load_reference(task, args.ref, _option_overrides(args.option))
    # each file's runs scored as soon as it is checked and their records dropped: memory of one batch of runs
    stream = ScoreAsChecked(reference)
    found = _check_all(task, args.runs, reference, args.max_errors, args.team_cap, after_check=stream.add)
    if found.failed:
        print("not scored: fix the errors above", file=sys.stderr)
        return EXIT_INVALID_RUN
    runs = [run for c in found.checked.values() for run in c.runs]
    results = list(zip(runs, stream.scores(runs)))
    for note in _notes_once(results):
        print("note: %s" % note, file=sys.stderr)
    if args.json:
        out = {}
        for run, scores in results:
            out[run.name] = ({"all": scores.measures, "per_topic": scores.per_topic} if args.per_topic
                             else scores.measures)
        print(json.dumps(out, indent=2, sort_keys=False, allow_nan=False))
        return EXIT_OK
    names = [r.name for r, _ in results]
    # Every measure some run has, in first-seen order; a run without one shows n/a (its notes say why, e.g.
    # an r2c2-ac run without judgement labels), never a 0 that would read as a score.
    measure_names = list(dict.fromkeys([m for _, s in results for m in s.measures] +
                                       [c.measure for c in task.columns]))
    rows = [["measure"] + names] + [[m] + [_cell(task, m, s.measures.get(m)) for _, s in results]
                                    for m in measure_names]
    print(summary_table(rows))
    if task.rules_sentence(reference.options):
        print(task.rules_sentence(reference.options))
    if args.per_topic:
        for run, scores in results:
            shown = list(task.per_topic_measures) or sorted({k for v in scores.per_topic.values() for k in v})
            rows = [["topic"] + shown] + [[t] + [_cell(task, k, v.get(k), "-") for k in shown]
                                          for t, v in scores.per_topic.items()]
            print("\n%s per topic\n%s" % (run.name, summary_table(rows)))
    return EXIT_OK


def _cell(task, name: str, value: Optional[float], missing: str = "n/a") -> str:
    """A value in the task's one number format; `missing` where the run has no value (never a 0)."""
    return missing if value is None else task.format_value(name, value)


BUILTIN_COMMANDS = ("tasks", "options", "validate", "score")


# What each built-in command does and an example, for `runscore COMMAND --help`.
BUILTIN_HELP = {
    "tasks": ("list the task ids, one a line",
              "List the task ids this runscore scores, one a line, with a one-line description of each.",
              "runscore tasks"),
    "options": ("list a task's options and their defaults",
                "List the options of a task (set under `options:` in the reference folder's task.yaml, or with "
                "--option NAME=VALUE): name, default, allowed values and meaning.",
                "runscore options --task ntcir1-adhoc"),
    "validate": ("check run files (exit 0 valid, 1 invalid)",
                 "Check run files of one task with the platform's own discovery and checks (the verdict of `runscore "
                 "check` and of the task's competition), without scoring them. Every problem "
                 "is printed on stderr as FILE:LINE: error: message (or warning:); exit 0 when every file is "
                 "valid, 1 when one is not, 2 for bad usage or reference data. With --ref the checks that need "
                 "the reference data (topic and question ids) are made too.",
                 "runscore validate --task ntcir1-adhoc my_run\n"
                 "  runscore validate --task ntcir1-adhoc --ref reference_data/ntcir1-adhoc my_run"),
    "score": ("score run files against reference data",
              "Check and score run files of one task against reference data (a folder with task.yaml, or a "
              "single reference file): a table of every measure, --per-topic for the values per topic, --json "
              "for {run: {measure: value}}. Nothing is scored when a file has an error (exit 1).",
              "runscore score --task ntcir1-adhoc --ref reference_data/ntcir1-adhoc my_run\n"
              "  runscore score --task temporalia-tqic --ref reference_data/temporalia-tqic --per-topic --json "
              "tqic_mygroup"),
}


def _sub_parser(sub, name: str):
    short, description, example = BUILTIN_HELP[name]
    return sub.add_parser(name, help=short, description=description, epilog="example:\n  %s" % example,
                          formatter_class=argparse.RawDescriptionHelpFormatter)


def build_parser(list_extra_commands: bool = True) -> argparse.ArgumentParser:
    """The parser of the built-in commands; the commands/ modules are listed only when help may be shown
    (listing them imports them all, scipy included, which `runscore score` does not need)."""
    parser = _Parser(prog="runscore", description="Validate and score runs of IR and QA evaluation campaigns.",
                     epilog="`runscore COMMAND --help` describes a command, with an example.")
    parser.add_argument("--version", action="version", version="runscore %s" % __version__)
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    _sub_parser(sub, "tasks")
    p = _sub_parser(sub, "options")
    p.add_argument("--task", required=True, help="task id (see `runscore tasks`)")
    for name in ("validate", "score"):
        p = _sub_parser(sub, name)
        p.add_argument("--task", required=True, help="task id (see `runscore tasks`)")
        p.add_argument("--ref", required=(name == "score"),
                       help="reference folder (with task.yaml) or a single reference file")
        p.add_argument("--option", action="append", metavar="NAME=VALUE", help="override a task option")
        p.add_argument("--max-errors", type=int, default=50, help="different errors listed per file (default 50)")
        p.add_argument("--team-cap", action="store_true",
                       help="apply the platform's rules on a submission's runs (one team's, the campaign's cap), as "
                       "runscore check and the competition do; off by default")
        if name == "score":
            p.add_argument("--json", action="store_true", help="print {run: {measure: value}} as JSON")
            p.add_argument("--per-topic", action="store_true", help="include per-topic values")
        p.add_argument("runs", nargs="+", metavar="RUN", help="run files of the task (a zip or a folder is opened as "
                       "the platform opens a submission)")
    for name, module in sorted(command_modules().items() if list_extra_commands else ()):
        sub.add_parser(name, help=module.HELP, add_help=False)
    return parser


def _one_blas_thread() -> None:
    """No command multiplies matrices, but numpy's OpenBLAS starts a thread per core at import, which costs as
    much CPU as the rest of numpy's import (0.09 s of 0.19 s here); a variable the user set is kept."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def main(argv: Optional[List[str]] = None) -> int:
    _one_blas_thread()      # before the command imports numpy
    argv = list(sys.argv[1:] if argv is None else argv)
    with readers_may_leave():           # `runscore ... | head`: the exit code still says 0, 1 or 2 (runscore.pipes)
        return _main(argv)


def _main(argv: List[str]) -> int:
    try:
        if "--form" in argv or any(arg.startswith("--form=") for arg in argv):
            from .tasks import form_arguments     # here: a form costs a YAML read and a schema check

            argv = form_arguments(argv)
        try:
            command = find_command(argv[0]) if argv else None
        except ImportError as exc:
            from . import optional

            if optional.missing(exc) is None or not optional.asks_for_help(argv[1:]):
                raise
            with optional.stand_ins():      # its help is readable before its dependencies are installed
                return find_command(argv[0]).run(argv[1:])
        if command is not None:
            return command.run(argv[1:])
        args = build_parser(not argv or argv[0] not in BUILTIN_COMMANDS).parse_args(argv)
        if args.command is None:
            build_parser().print_help()
            return EXIT_CONFIG
        handler = {"tasks": cmd_tasks, "options": cmd_options, "validate": cmd_validate, "score": cmd_score}
        return handler[args.command](args)
    except RunError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_INVALID_RUN
    except ConfigError as exc:
        for line in exc.lines():          # a reference file's every problem, one line each
            print("runscore: %s" % line, file=sys.stderr)
        return EXIT_CONFIG
    except KeyboardInterrupt:
        return 130
    except MemoryError:
        print("runscore: out of memory (see docs/limits.md for the sizes runscore is built for)", file=sys.stderr)
        return EXIT_CONFIG
    except ImportError as exc:     # an optional dependency this command needs (optional.py), else a defect
        from .optional import missing

        if missing(exc) is None:
            return report_internal_error(exc, __version__)
        print("runscore: %s" % missing(exc), file=sys.stderr)
        return EXIT_CONFIG
    except Exception as exc:   # a defect of runscore: exit 2, never 1 (errors.report_internal_error)
        return report_internal_error(exc, __version__)


if __name__ == "__main__":
    sys.exit(main())
