"""`runscore check SUBMISSION`: what the platform will make of the zip (or folder) you are about to upload.

Why: `validate` checks one run file of a task you name; a participant's question is "will this zip be accepted,
and as which task's runs?". This command runs exactly the discovery and checks of score.py
and `runscore validate` (submission.examine: the same function, so they cannot disagree), offline, and prints a
table of every file -> task, run name, verdict and counts, then every message. Without reference data by default
(format rules only); --ref adds the reference checks (topic ids, the organisers' options). --task T checks as
T's competition does (one competition per task); without it the runs' own task is the competition, and runs of
several tasks are rejected, as every competition would (with --ref of several task folders, as score.py with
that reference data).

Exit codes as everywhere: 0 the submission would be accepted (warnings allowed), 1 it would be rejected, 2 bad
usage or bad reference data.
"""
import argparse
import os
import shutil
import sys
import tempfile
import zipfile
from typing import Dict, List

from ..errors import EXIT_INVALID_RUN, EXIT_OK, WARNING, ConfigError, RunError

NAME = "check"
HELP = "check a whole submission (zip or folder) exactly as the platform will: which file is a run of which task"
EXAMPLE = """examples:
  runscore check submission.zip                          # as the competition of its runs' task, no reference data
  runscore check --task ntcir1-adhoc submission.zip      # as the ntcir1-adhoc competition will
  runscore check --ref reference_data/ntcir1-adhoc submission.zip   # plus the reference checks (topic ids)
"""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        raise ConfigError(message)


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="runscore check", description=HELP, epilog=EXAMPLE,
                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("submission", metavar="SUBMISSION", help="the zip you will upload, or a folder of run files")
    p.add_argument("--task", metavar="T", help="check as task T's competition does (default: the competition of "
                   "the task the runs belong to; runs of several tasks are rejected)")
    p.add_argument("--ref", metavar="REF", help="reference data: one task's folder (with task.yaml) or a folder "
                   "of task folders, as the platform's input/ref; adds the reference checks")
    return p


def _tasks_and_references(args):
    from ..codabench.references import task_references
    from ..tasks import all_tasks, get_task

    if args.ref:
        references = task_references(args.ref)
        if args.task:
            if args.task not in references:
                raise ConfigError("--ref %s holds no reference data of task %s (it holds %s)"
                                  % (args.ref, args.task, ", ".join(references)))
            references = {args.task: references[args.task]}
        return [r.task for r in references.values()], references
    if args.task:
        return [get_task(args.task)], None
    return list(all_tasks()), None


def _unpack(submission: str, workdir: str) -> str:
    """The folder the platform hands score.py as input/res: the folder itself, or the zip unzipped."""
    from ..discover import safe_extract

    if os.path.isdir(submission):
        return submission
    if not os.path.isfile(submission):
        raise ConfigError("%s does not exist" % submission)
    if not zipfile.is_zipfile(submission):
        raise RunError("not a zip file; the platform takes a zip of run files", submission)
    res = os.path.join(workdir, "res")
    os.makedirs(res)
    safe_extract(submission, res, os.path.basename(submission))
    return res


def table_rows(found) -> List[List[str]]:
    """One row per file of the submission: file, task, run(s), verdict, errors, warnings."""
    problems: Dict[str, int] = {}
    warnings: Dict[str, int] = {}
    for p in found.problems:        # a file's own problems, and the submission's (a run name twice) at the file
        counts = warnings if p.severity == WARNING else problems
        counts[p.path] = counts.get(p.path, 0) + 1
    rows = [["file", "task", "run", "verdict", "errors", "warnings"]]
    tasks = {c.display: t.id for c, t in found.pairs}
    companions = {c.display for c in found.companions}
    for candidate in sorted(found.candidates + found.companions, key=lambda c: c.display):
        name = candidate.display
        if name in companions:
            rows.append([name, "-", "-", "read beside the runs", str(problems.get(name, 0)),
                         str(warnings.get(name, 0))])
        elif name in found.checked:
            checked = found.checked[name]
            runs = ", ".join(r.name for r in checked.runs) or "-"
            errors = checked.diags.error_count + problems.get(name, 0)
            verdict = "invalid" if errors else "valid"
            rows.append([name, tasks[name], runs, verdict, str(errors),
                         str(checked.diags.warning_count + warnings.get(name, 0))])
        else:
            rows.append([name, "-", "-", "not a run", str(problems.get(name, 1)), str(warnings.get(name, 0))])
    return rows


def run(argv: List[str]) -> int:
    args = parser().parse_args(argv)
    from ..submission import examine
    from ..tasks.base import submission_scope
    from ..report import summary_table

    tasks, references = _tasks_and_references(args)
    workdir = tempfile.mkdtemp(prefix="runscore-check-")
    try:
        res = _unpack(args.submission, workdir)
        program = [n for n in sorted(os.listdir(res)) if n.lower() in ("metadata", "metadata.yaml")]
        if program:       # Codabench's worker would run it as a program; score.py refuses what it wrote
            print("%s: error: the submission holds %s at its top, which makes Codabench run it as a program: "
                  "every phase refuses it (a competition whose reference lies on the organisers' worker cancels "
                  "it before it runs); take the file out" % (args.submission, program[0]))
            print("submission rejected: the platform would score nothing")
            return EXIT_INVALID_RUN
        nested = os.path.join(workdir, "nested")       # where nested zips are opened
        os.makedirs(nested)
        with submission_scope():
            found = examine(res, nested, tasks, references, one_competition=not args.task and not args.ref)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(summary_table(table_rows(found)))
    print()
    for message in found.messages:
        print(message)
    errors, warnings = found.errors, found.warnings       # from the diagnostics' data, never from printed text
    runs = [r for c in found.checked.values() for r in c.runs]
    if found.failed:
        print("submission rejected: %d error(s), %d warning(s); the platform would score nothing"
              % (errors, warnings))
        return EXIT_INVALID_RUN
    by_task: Dict[str, int] = {}
    for candidate, task in found.pairs:
        by_task[task.id] = by_task.get(task.id, 0) + len(found.checked[candidate.display].runs)
    print("submission accepted: %s; %d warning(s)%s" % (
        ", ".join("%d run(s) of %s" % (n, t) for t, n in by_task.items()), warnings,
        "" if references else " (format rules only; --ref adds the reference checks)"))
    return EXIT_OK if runs else EXIT_INVALID_RUN
