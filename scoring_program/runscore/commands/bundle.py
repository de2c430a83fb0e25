"""`runscore bundle`: build the Codabench upload zip of one task's competition (or of every task's), or
regenerate the bundle files committed at the root.

One competition per task: Codabench ranks a leaderboard by its primary column with empty cells first, so a
leaderboard of several tasks' columns would rank one task's rows by another task's column (docs/codabench.md).

Exit codes: 0 built (and the linter found no error in it), 2 bad usage, missing data, or a bundle the linter
rejects (the organiser's side, as every other set-up problem). A rejected bundle leaves no file behind.
"""
import argparse
import os
import sys
from typing import List, Optional

from ..codabench.bundle import build_zip, check_plans, write_root
from ..codabench.bundle_plan import BundlePlan, PhaseDates, select_tasks, tasks_without_samples
from ..errors import EXIT_CONFIG, EXIT_OK, ConfigError

NAME = "bundle"
HELP = ("build the Codabench upload zip of one task's competition (--tasks T -o FILE.zip) or of every task's "
        "(--per-task DIR); --write-root regenerates competition.yaml, pages/, logo.png")

DEFAULT_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        raise ConfigError(message)


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="runscore bundle", description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter,
                epilog="examples:\n  runscore bundle --per-task dist/   (dist/<task-id>.zip for every task)\n"
                       "  runscore bundle -o dist/ntcir1-adhoc.zip --tasks ntcir1-adhoc --reference /secret/ref\n"
                       "      (the zip without the data, and dist/ntcir1-adhoc.worker-data/ for your worker)\n"
                       "  runscore bundle --write-root")
    p.add_argument("-o", "--output", metavar="FILE.zip", help="the zip to write (with --tasks T, one task)")
    p.add_argument("--per-task", metavar="DIR", help="write DIR/<task-id>.zip, one competition per task (every "
                   "task with sample data, or those of --tasks)")
    p.add_argument("--tasks", metavar="T[,U]", help="the task of the competition (with -o, exactly one); with "
                   "--per-task, which tasks (default: every task with sample data)")
    p.add_argument("--reference", metavar="DIR", help="the organiser's real reference data (a folder per task "
                   "id, or one task's folder) for the formal phase. It does not go into the zip: it is written beside "
                   "it, as <zip name>.worker-data/, for the organiser's compute worker (/app/data), and the zip says "
                   "where it is and holds a keyed fingerprint of each file (docs/codabench.md). Default: the formal "
                   "phase collects runs (every check, a receipt, no scores, leaderboard hidden) until the judgements "
                   "exist (docs/campaign.md)")
    p.add_argument("--publish-reference", action="store_true", help="put the --reference data IN the zip instead: "
                   "Codabench then serves it to ANYONE who asks once the competition is published (to any approved "
                   "participant before), since a dataset's download checks no permission; only for data that may "
                   "be public")
    p.add_argument("--queue", metavar="VHOST", help="the vhost of the organiser's own Codabench queue, written into "
                   "competition.yaml (`queue:`) so that every phase runs on the workers that hold the reference "
                   "data (the queue's eye button in Queue management shows it)")
    p.add_argument("--formal-end", metavar="DATE", help="end of the formal phase, ISO 'YYYY-MM-DD HH:MM:SS' "
                   "(Codabench keeps a phase without an end active for ever; default %s)" % PhaseDates().formal_end)
    p.add_argument("--formal-detail", choices=("aggregate", "per_topic", "full"),
                   help="what participants see of the formal phase built from --reference (its task.yaml's "
                   "`detail:` is set to it): aggregate (default: aggregate measures, diagnostics and a receipt, "
                   "nothing from individual gold items), per_topic (plus per-topic effectiveness values) or full "
                   "(everything, as the dry run on public sample data); docs/codabench.md")
    p.add_argument("--v1", action="store_true", help="CodaLab v1.5 format (nested zips, html pages, v1 keys)")
    p.add_argument("--dates", metavar="DRY_START,DRY_END,FORMAL_START[,FORMAL_END]",
                   help="phase dates, ISO 'YYYY-MM-DD HH:MM:SS' (default: placeholders of 2026/2027)")
    p.add_argument("--submissions", metavar="PER_DAY,TOTAL",
                   help="submissions a team may make to the formal phase, per day and in all (default: the "
                        "campaign's rule, e.g. 3,3 for Temporalia, else 5,100; docs/codabench.md)")
    p.add_argument("--root", default=DEFAULT_ROOT, help="the repository root (default: this checkout)")
    p.add_argument("--write-root", action="store_true",
                   help="regenerate competition.yaml, pages/, logo.png and starting_kit/schemas/ at --root")
    p.add_argument("--no-lint", action="store_true", help="do not lint the zip before keeping it")
    return p


def _submissions(text: str):
    """--submissions PER_DAY,TOTAL: two positive whole numbers, the daily one at most the total."""
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 2 or not all(p.isdigit() and 0 < int(p) < 10 ** 6 for p in parts):
        raise ConfigError("--submissions expects PER_DAY,TOTAL, two positive whole numbers, got %r" % text)
    per_day, total = int(parts[0]), int(parts[1])
    if per_day > total:
        raise ConfigError("--submissions %s: the daily limit is more than the total" % text)
    return per_day, total


def _dates(text: str) -> PhaseDates:
    parts = [p.strip() for p in text.split(",")]
    if len(parts) not in (3, 4):
        raise ConfigError("--dates expects DRY_START,DRY_END,FORMAL_START[,FORMAL_END], got %r" % text)
    if len(parts) == 3:       # the formal phase must end (Codabench keeps an endless phase active): 90 days on
        import datetime
        try:
            start = datetime.datetime.strptime(parts[2], "%Y-%m-%d %H:%M:%S")
        except ValueError:
            raise ConfigError("--dates: %r is not 'YYYY-MM-DD HH:MM:SS'" % parts[2])
        parts.append((start + datetime.timedelta(days=90)).strftime("%Y-%m-%d %H:%M:%S"))
    return PhaseDates(*parts)


def _formal_reference(reference: Optional[str]) -> Optional[str]:
    """--reference as an absolute folder: DIR/<task-id>/ per task, or one task's folder (its task.yaml names it;
    codabench.bundle_files.reference_files tells the two apart)."""
    if not reference:
        return None
    folder = os.path.abspath(reference)
    if not os.path.isdir(folder):
        raise ConfigError("formal reference data folder %s does not exist" % folder)
    return folder


def _formal_detail(args, task) -> str:
    """--formal-detail, else aggregate: a formal phase is hidden unless the organiser says otherwise here, even when
    the reference's own task.yaml (copied from a public sample, say) asks for more."""
    if args.formal_detail == "per_topic" and args.reference:
        print("note: --formal-detail per_topic shows each topic's values of %s's formal phase, computed from that "
              "topic's judgements (the AP of a run holding one relevant document is 1/num_rel): a much wider "
              "channel to the hidden reference (docs/codabench.md, 'How much a leaderboard tells')" % task.id,
              file=sys.stderr)
    if args.formal_detail or not args.reference:
        return args.formal_detail or "aggregate"
    from ..codabench.bundle_files import formal_task_yaml_detail

    where, asked = formal_task_yaml_detail(os.path.abspath(args.reference), task)
    if asked not in (None, "aggregate"):
        print("note: %s says detail: %s; the formal phase of %s shows the leaderboard columns only "
              "(give --formal-detail %s to show more)" % (where, asked, task.id, asked), file=sys.stderr)
    return "aggregate"


def _lint(path: str, worker=None) -> bool:
    """The linter's verdict on the zip; a formal reference kept on the worker is checked and loaded from the
    worker's copy about to be written (laid out in a temporary folder as the worker holds it)."""
    import shutil
    import tempfile

    from ..codabench.lint import lint_path, print_report
    from ..codabench.worker_data import write_worker_copy

    data = tempfile.mkdtemp(prefix="runscore-worker-") if worker is not None else None
    try:
        if worker is not None:
            write_worker_copy(worker, data, "")
        problems = lint_path(path, data)
    finally:
        if data is not None:
            shutil.rmtree(data, ignore_errors=True)
    if problems:
        print_report(problems)
    return not any(p.severity == "error" for p in problems)


def _build(plan: BundlePlan, out: str, v1: bool, lint: bool) -> bool:
    names = build_zip(plan, out, v1=v1, accept=_lint if lint else None)
    if names is None:
        print("%s not written: the bundle of %s is rejected (see above)" % (out, plan.task.id), file=sys.stderr)
        return False
    print("wrote %s: %d files, the %s competition%s%s" % (out, len(names), plan.task.id,
                                                         " (CodaLab v1.5 format)" if v1 else "",
                                                         "" if not lint else ", linted"))
    print("   phases: %s" % "; ".join("%s %s" % phase for phase in plan.phase_modes()))
    if plan.on_worker:
        from ..codabench.worker_steps import worker_readme

        steps = worker_readme(plan, out).split("\n\n")[2:4]
        print("   the formal reference data is NOT in the zip: it is in %s/, for your compute worker; the steps "
              "(also in its README.md):" % plan.worker_root)
        print("   " + "\n\n".join(steps).replace("\n", "\n   "))
    elif plan.formal_reference and not plan.collecting:
        print("   warning: the formal reference data is IN the zip (--publish-reference): once the competition is "
              "published ANYONE can download it (before, any approved participant): Codabench's dataset download "
              "checks no permission (docs/codabench.md)")
    return True


# What a bundle is built from: the repository, not the installed package (which holds only runscore/).
ROOT_PARTS = ("scoring_program/score.py", "scoring_program/metadata", "reference_data", "starting_kit", "docs")


def check_root(root: str, default: bool) -> None:
    """A bundle is built from a clone of the repository (the scoring program's score.py and metadata, the sample
    reference data, the starting kit, the task docs). Installed with `pip install .` the package has none of
    them: say so and what to do, instead of failing on the first missing file."""
    missing = [part for part in ROOT_PARTS if not os.path.exists(os.path.join(root, *part.split("/")))]
    if not missing:
        return
    where = ("runscore is installed as a package here (%s), without the repository it is built from"
             % os.path.dirname(os.path.dirname(os.path.abspath(__file__)))) if default else \
        "--root %s is not a clone of the runscore repository" % root
    raise ConfigError("%s: `runscore bundle` needs the repository's %s (missing: %s); run it in a clone of the "
                      "repository (`make bundle` there), or give --root CLONE"
                      % (where, ", ".join(ROOT_PARTS), ", ".join(missing)))


class _FormPlan(BundlePlan):
    """A form's plan: its summary names the organiser's reference folder, not the staged copy read from."""

    shown_reference = ""

    def phase_modes(self):
        staged = self.formal_reference or ""
        return [(phase, what.replace(staged, self.shown_reference) if staged and self.shown_reference else what)
                for phase, what in super().phase_modes()]


def _build_form(args, root: str, task, dates, submissions) -> int:
    """A form's competition (--form FORM.yaml): built from a staged copy of the repository holding the form and the
    samples made from it (codabench/form_bundle.py), then as any task's."""
    import shutil
    import tempfile

    from ..codabench.form_bundle import staged_reference, staged_root

    workdir = tempfile.mkdtemp(prefix="runscore-form-bundle-")
    try:
        staged = staged_root(root, task, workdir)
        reference = staged_reference(_formal_reference(args.reference), task, workdir)
        plan = _FormPlan(staged, [task], reference, dates, submissions, formal_detail=_formal_detail(args, task),
                         publish_reference=args.publish_reference, queue=args.queue)
        plan.shown_reference = _formal_reference(args.reference) or ""
        check_plans([plan])
        return EXIT_OK if _build(plan, args.output, args.v1, not args.no_lint) else EXIT_CONFIG
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def run(argv: List[str]) -> int:
    args = parser().parse_args(argv)
    root = os.path.abspath(args.root)
    check_root(root, args.root == DEFAULT_ROOT)
    if args.write_root:
        for name in write_root(root):
            print("wrote %s" % name)
        for task_id in tasks_without_samples(root):
            print("note: task %s has no reference_data/%s/ and has no competition" % (task_id, task_id),
                  file=sys.stderr)
        if not args.output and not args.per_task:
            return EXIT_OK
    if args.publish_reference and not args.reference:
        raise ConfigError("--publish-reference puts the --reference data in the zip: give --reference DIR too")
    if args.v1 and args.reference and not args.publish_reference:
        raise ConfigError("a CodaLab v1.5 bundle (--v1) cannot keep the formal reference on a compute worker: give "
                          "--publish-reference to put it in the zip (anyone can then download it), or build the "
                          "Codabench bundle (without --v1)")
    if bool(args.output) == bool(args.per_task):
        raise ConfigError("give either --tasks T -o FILE.zip (one task's competition) or --per-task DIR (one "
                          "zip per task)")
    dates = _dates(args.dates) if args.dates else PhaseDates()
    submissions = _submissions(args.submissions) if args.submissions else None
    if args.formal_end:
        import dataclasses
        dates = dataclasses.replace(dates, formal_end=args.formal_end)
    wanted = [t for t in args.tasks.split(",") if t.strip()] if args.tasks else None
    if args.output:
        if not wanted or len(wanted) != 1:
            raise ConfigError("-o FILE.zip builds one task's competition: give --tasks T with one task id (one "
                              "competition per task; --per-task DIR builds them all)")
        from ..tasks import get_task

        if getattr(get_task(wanted[0].strip()), "form_path", None) is not None:       # --form FORM.yaml
            return _build_form(args, root, get_task(wanted[0].strip()), dates, submissions)
        task = select_tasks(root, wanted)[0]
        plan = BundlePlan(root, [task], _formal_reference(args.reference), dates, submissions,
                          formal_detail=_formal_detail(args, task), publish_reference=args.publish_reference,
                          queue=args.queue)
        check_plans([plan])
        return EXIT_OK if _build(plan, args.output, args.v1, not args.no_lint) else EXIT_CONFIG
    plans = [BundlePlan(root, [task], _formal_reference(args.reference), dates, submissions,
                        formal_detail=_formal_detail(args, task), publish_reference=args.publish_reference,
                        queue=args.queue)
             for task in select_tasks(root, wanted)]
    check_plans(plans)            # every task's inputs first: an error writes no zip at all
    status = EXIT_OK
    for plan in plans:
        out = os.path.join(args.per_task, "%s.zip" % plan.task.id)
        if not _build(plan, out, args.v1, not args.no_lint):
            status = EXIT_CONFIG
    return status
